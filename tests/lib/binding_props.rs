//! Property tests of the binding: requests and results
//! survive a serialize/parse round trip with values and `_meta` intact.

use ahp_elicit::binding::{
    make_result_event, read_request, read_result, wrap_request, Action, Answer, ReadOptions,
    ResultMeta, Server, WrapOptions,
};
use proptest::prelude::*;
use serde_json::{json, Map, Value};

/// Any string, including controls, bidi and astral characters.
fn any_text() -> impl Strategy<Value = String> {
    proptest::collection::vec(any::<char>(), 0..12).prop_map(|v| v.into_iter().collect())
}

fn meta() -> impl Strategy<Value = Value> {
    (any_text(), any::<i64>(), any::<bool>()).prop_map(|(s, n, b)| {
        json!({
            "progressToken": s.clone(),
            "io.modelcontextprotocol/related-task": {"taskId": s},
            "org.example/n": n,
            "org.example/flag": b,
        })
    })
}

/// A valid form with one field of each kind and answers that fit it.
fn form_and_content() -> impl Strategy<Value = (Value, Map<String, Value>)> {
    (any_text(), any_text(), -1000i64..1000, any::<bool>(), 0usize..3, proptest::collection::vec(any::<bool>(), 3), -1.0e6f64..1.0e6)
        .prop_map(|(msg, text, int, flag, pick, multi, num)| {
            let opts = ["alpha", "beta", "gamma"];
            let params = json!({
                "message": msg,
                "requestedSchema": {
                    "type": "object",
                    "properties": {
                        "t": {"type": "string", "title": "Text"},
                        "i": {"type": "integer", "minimum": -1000, "maximum": 1000},
                        "n": {"type": "number"},
                        "b": {"type": "boolean", "default": false},
                        "s": {"type": "string", "oneOf": opts.iter().map(|o| json!({"const": o, "title": o.to_uppercase()})).collect::<Vec<_>>()},
                        "m": {"type": "array", "items": {"type": "string", "enum": opts}}
                    },
                    "required": ["t"]
                }
            });
            let mut content = Map::new();
            content.insert("t".into(), json!(text));
            content.insert("i".into(), json!(int));
            content.insert("n".into(), json!(num));
            content.insert("b".into(), json!(flag));
            content.insert("s".into(), json!(opts[pick]));
            let chosen: Vec<&str> = opts.iter().zip(&multi).filter(|(_, on)| **on).map(|(o, _)| *o).collect();
            content.insert("m".into(), json!(chosen));
            (params, content)
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]

    #[test]
    fn request_round_trip_keeps_params_and_meta((params, _) in form_and_content(), m in meta(), ttl in 0u64..1_000_000, name in "[a-z]{1,12}") {
        let mut params = params;
        params["_meta"] = m;
        params["task"] = json!({"ttl": ttl});
        let server = Server { name, title: Some("T".into()), version: None };
        let req = wrap_request(&params, &WrapOptions { time: Some("2026-11-30T09:00:00Z"), ..WrapOptions::new(&server, "mcp-stdio", "evt-1") }).expect("valid request");
        let text = serde_json::to_string(&req.event).unwrap();
        let back = read_request(serde_json::from_str(&text).unwrap(), ReadOptions::default()).expect("reads back");
        prop_assert_eq!(&Value::Object(back.view.request().unwrap().params.clone()), &params);
        prop_assert_eq!(back.server, server);
    }

    #[test]
    fn result_round_trip_keeps_content_and_meta((params, content) in form_and_content(), m in meta()) {
        let mut params = params;
        params["_meta"] = m.clone();
        let server = Server { name: "s".into(), title: None, version: None };
        let req = wrap_request(&params, &WrapOptions::new(&server, "mcp-stdio", "evt-1")).unwrap();
        let ev = make_result_event(&req, &Answer { action: Action::Accept, content: Some(content.clone()) }, &ResultMeta::default()).expect("valid answer");
        let text = serde_json::to_string(&ev).unwrap();
        let res = read_result(serde_json::from_str(&text).unwrap()).expect("reads back");
        let r = res.result.expect("body");
        prop_assert_eq!(r.content, Some(content));
        // The related-task metadata of the request is echoed intact.
        prop_assert_eq!(&r.value["_meta"]["io.modelcontextprotocol/related-task"], &m["io.modelcontextprotocol/related-task"]);
    }
}
