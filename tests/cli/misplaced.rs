//! Raw MCP `elicitation/create` params or a JSON-RPC message given where an
//! AHP event is expected (`respond`, `validate`, `demo --request`) get one
//! line that says what the input looks like and the `wrap` command to use,
//! not a list of wire-root errors.

use crate::common;

fn write(dir: &std::path::Path, name: &str, v: &serde_json::Value) -> String {
    let p = dir.join(name);
    std::fs::write(&p, v.to_string() + "\n").expect("write");
    p.display().to_string()
}

/// What `validate`, `respond` and `demo --request` print for `file` (stdout
/// and stderr together), each after checking that it exits with 1.
fn where_an_event_is_expected(file: &str, dir: &std::path::Path) -> Vec<(String, String)> {
    [
        vec!["validate", file],
        vec!["respond", "--action", "cancel", file],
        vec!["demo", "--request", file],
    ]
    .into_iter()
    .map(|args| {
        let (code, out, err) = common::run_in(&args, dir);
        let all = format!("{out}{err}");
        assert_eq!(code, Some(1), "{args:?}: {all}");
        (args[0].to_owned(), all)
    })
    .collect()
}

#[test]
fn params_and_json_rpc_get_one_line_naming_wrap() {
    let dir = tempfile::tempdir().expect("tempdir");
    let params = serde_json::json!({"message": "Name?",
        "requestedSchema": {"type": "object", "properties": {"n": {"type": "string"}}}});
    let rpc = serde_json::json!({"jsonrpc": "2.0", "id": 3, "method": "elicitation/create",
        "params": params});
    let p = write(dir.path(), "params.json", &params);
    let r = write(dir.path(), "rpc.json", &rpc);
    for (args, all) in where_an_event_is_expected(&p, dir.path()) {
        assert!(
            all.contains("looks like the params of an MCP elicitation/create request")
                && all.contains("ahp-elicit wrap --server NAME"),
            "{args:?}: {all}"
        );
        assert!(!all.contains("wire-root/required"), "{args:?}: {all}");
    }
    let (code, out, err) = common::run_in(&["validate", r.as_str()], dir.path());
    assert_eq!(code, Some(1));
    assert!(
        format!("{out}{err}").contains("JSON-RPC elicitation/create request"),
        "{out}{err}"
    );
}

/// A 2026-07-28 `inputRequests` entry (`method` and `params`, no `jsonrpc`)
/// and an `input_required` result holding entries are named in one line
/// with the `wrap` command for one entry's params, which `wrap` then takes.
#[test]
fn input_requests_entries_and_results_get_one_line_naming_wrap() {
    let dir = tempfile::tempdir().expect("tempdir");
    let params = serde_json::json!({"mode": "form", "message": "Name?",
        "requestedSchema": {"type": "object", "properties": {"n": {"type": "string"}}}});
    let entry = serde_json::json!({"method": "elicitation/create", "params": params});
    let result = serde_json::json!({"resultType": "input_required",
        "inputRequests": {"ask-name": entry}, "requestState": "s1"});
    let e = write(dir.path(), "entry.json", &entry);
    let r = write(dir.path(), "result.json", &result);
    for (file, says) in [
        (&e, "this is an MCP 2026-07-28 inputRequests entry"),
        (
            &r,
            "this is an MCP input_required result (1 entry: \"ask-name\")",
        ),
    ] {
        for (args, all) in where_an_event_is_expected(file, dir.path()) {
            assert!(all.contains(says), "{args:?}: {all}");
            assert!(
                all.contains(
                    "ahp-elicit wrap --server NAME --protocol-version 2026-07-28 --input-key KEY -"
                ),
                "{args:?}: {all}"
            );
            assert!(!all.contains("wire-root/"), "{args:?}: {all}");
            // The hint, after at most a heading line.
            assert!(all.trim().lines().count() <= 2, "{args:?}: {all}");
        }
    }
    // What the line says to give wrap, wrap takes.
    let p = write(dir.path(), "params.json", &params);
    let (code, out, err) = common::run_in(
        &[
            "wrap",
            "--server",
            "NAME",
            "--protocol-version",
            "2026-07-28",
            "--input-key",
            "ask-name",
            p.as_str(),
        ],
        dir.path(),
    );
    assert_eq!(code, Some(0), "{out}{err}");
    let ev: serde_json::Value = serde_json::from_str(out.trim()).expect("one event");
    assert_eq!(ev["extensions"]["mcp"]["inputKey"], "ask-name", "{out}");
}

/// A raw MCP ElicitResult (alone or as a JSON-RPC response) is named as
/// one, with how AHP result events are made, not a list of wire-root
/// errors.
#[test]
fn an_elicit_result_is_named_with_how_results_are_made() {
    let dir = tempfile::tempdir().expect("tempdir");
    let result = serde_json::json!({"action": "accept", "content": {"a": 1}});
    let rpc = serde_json::json!({"jsonrpc": "2.0", "id": 3, "result": result});
    let p = write(dir.path(), "result.json", &result);
    for (args, all) in where_an_event_is_expected(&p, dir.path()) {
        assert!(
            all.contains(
                "this is an MCP ElicitResult (a client's answer), not an AHP result event"
            ) && all.contains("ahp-elicit respond request.json > result.json"),
            "{args:?}: {all}"
        );
        assert!(!all.contains("wire-root/"), "{args:?}: {all}");
    }
    let r = write(dir.path(), "rpc.json", &rpc);
    let (code, out, err) = common::run_in(&["validate", r.as_str()], dir.path());
    assert_eq!(code, Some(1));
    assert!(
        format!("{out}{err}").contains("JSON-RPC response carrying an MCP ElicitResult"),
        "{out}{err}"
    );
}

/// A JSON-RPC batch (an array of messages) is named as one, with the jq
/// path of its first elicitation/create request's params, in all three
/// places an event is expected.
#[test]
fn a_json_rpc_batch_gets_one_line_naming_wrap() {
    let dir = tempfile::tempdir().expect("tempdir");
    let params = serde_json::json!({"message": "Name?",
        "requestedSchema": {"type": "object", "properties": {"n": {"type": "string"}}}});
    let batch = serde_json::json!([
        {"jsonrpc": "2.0", "id": 4, "method": "ping"},
        {"jsonrpc": "2.0", "id": 5, "method": "elicitation/create", "params": params},
    ]);
    let b = write(dir.path(), "batch.json", &batch);
    for (args, all) in where_an_event_is_expected(&b, dir.path()) {
        assert!(
            all.contains("this is a JSON-RPC batch (2 messages, 1 of them elicitation/create)")
                && all.contains("jq '.[1].params' FILE | ahp-elicit wrap --server NAME -"),
            "{args:?}: {all}"
        );
        assert!(!all.contains("is not of type"), "{args:?}: {all}");
    }
}

/// JSON Lines of params (a server's log) are wrapped line by line into a
/// stream of request events that `validate` takes (the same params twice
/// get distinct ids); one invalid line writes nothing and names its line;
/// `--id` with several lines is refused; `demo --request` on such a file
/// says that it holds several lines and that `respond` answers a stream.
#[test]
fn json_lines_of_params_are_wrapped_line_by_line() {
    let dir = tempfile::tempdir().expect("tempdir");
    let a = serde_json::json!({"message": "A?",
        "requestedSchema": {"type": "object", "properties": {"a": {"type": "string"}}}});
    let b = serde_json::json!({"message": "B?",
        "requestedSchema": {"type": "object", "properties": {"b": {"type": "string"}}}});
    let lines = format!("{a}\n\n{b}\n{a}\n");
    let p = dir.path().join("params.jsonl");
    std::fs::write(&p, &lines).expect("write");
    let file = p.display().to_string();
    let (code, out, err) = common::run_in(&["wrap", "--server", "s", &file], dir.path());
    assert_eq!(code, Some(0), "{err}");
    let events: Vec<serde_json::Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).expect("an event a line"))
        .collect();
    assert_eq!(events.len(), 3);
    let ids: Vec<&str> = events.iter().map(|e| e["id"].as_str().unwrap()).collect();
    assert_eq!(ids[2], format!("{}-4", ids[0]), "{ids:?}");
    assert_ne!(ids[0], ids[1]);
    let texts: Vec<&str> = events
        .iter()
        .map(|e| {
            e["payload"]["elicitation"]["request"]["text"]
                .as_str()
                .unwrap()
        })
        .collect();
    assert!(texts[1].contains("\"B?\""), "{texts:?}");
    let stream = dir.path().join("requests.jsonl");
    std::fs::write(&stream, &out).expect("write");
    let (code, out, err) = common::run_in(&["validate", stream.to_str().unwrap()], dir.path());
    assert_eq!(code, Some(0), "{out}{err}");
    // One invalid line: nothing written, the line named.
    std::fs::write(&p, format!("{a}\n{{\"message\": \"B?\"}}\n")).expect("write");
    let (code, out, err) = common::run_in(&["wrap", "--server", "s", &file], dir.path());
    assert_eq!(code, Some(1));
    assert_eq!(out, "");
    assert!(
        err.contains("line 2: the params are not a valid elicitation/create request"),
        "{err}"
    );
    // --id names one event.
    std::fs::write(&p, &lines).expect("write");
    let (code, _, err) = common::run_in(&["wrap", "--server", "s", "--id", "x", &file], dir.path());
    assert_eq!(code, Some(2));
    assert!(err.contains("leave --id out"), "{err}");
    let (code, _, err) = common::run_in(&["demo", "--request", &file], dir.path());
    assert_eq!(code, Some(1));
    assert!(
        err.contains("holds 3 JSON lines, and demo --request shows one request: answer a stream with ahp-elicit respond FILE")
            && err.contains("wrap them first"),
        "{err}"
    );
}
