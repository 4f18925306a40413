//! Number bounds are compared exactly: with `maximum: 9007199254740992`
//! (2^53), the integer 9007199254740993 is over it, though both are the
//! same f64. A number written with a fraction or exponent is a float and
//! is taken at its f64 value (`9007199254740993.0` is 2^53 as a float), as
//! JSON Schema validators read it.

use crate::common;

use serde_json::{json, Value};

const MAX: &str = "9007199254740992";
const OVER: &str = "9007199254740993";

/// A request event (compact text) with one integer field `n`; `extra` is
/// merged into the field's schema.
fn request(id: &str, extra: Value) -> String {
    let mut field = json!({"type": "integer", "maximum": 9007199254740992u64});
    for (k, v) in extra.as_object().expect("object") {
        field[k] = v.clone();
    }
    let params = json!({"message": "How many?",
        "requestedSchema": {"type": "object", "properties": {"n": field}, "required": ["n"]}});
    common::request_line("numbers", id, &params)
}

/// The result answering `req` with `n` = `MAX`, made by `respond`, then
/// with the number's text replaced by `value`.
fn result_with(dir: &std::path::Path, value: &str) -> String {
    std::fs::write(
        dir.join("a.json"),
        format!(r#"{{"action":"accept","content":{{"n":{MAX}}}}}"#),
    )
    .expect("write");
    let (code, out, err) = common::run_in(&["respond", "--answers", "a.json", "req.json"], dir);
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(out.matches(MAX).count(), 1, "{out}");
    out.trim().replace(MAX, value)
}

#[test]
fn validate_request_rejects_one_over_2_pow_53() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(dir.path().join("req.json"), request("big-n", json!({}))).expect("write");
    for (value, valid) in [(MAX, true), (OVER, false), ("9007199254740993.0", true)] {
        let res = result_with(dir.path(), value);
        std::fs::write(dir.path().join("res.json"), &res).expect("write");
        let args = [
            "validate",
            "--format",
            "json",
            "--request",
            "req.json",
            "res.json",
        ];
        let (code, out, err) = common::run_in(&args, dir.path());
        let v: Value = serde_json::from_str(out.trim()).expect(&err);
        assert_eq!(v["valid"], json!(valid), "{value}: {out}");
        if !valid {
            assert_eq!(code, Some(1));
            assert_eq!(v["errors"][0]["rule"], json!("content-value"), "{out}");
            assert_eq!(
                v["errors"][0]["pointer"],
                json!("/payload/elicitation/result/text#/content/n"),
                "{out}"
            );
            assert!(
                v["errors"][0]["message"]
                    .as_str()
                    .unwrap_or("")
                    .contains("must be at most"),
                "{out}"
            );
        }
    }
}

#[test]
fn respond_answers_refuses_one_over_2_pow_53() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(dir.path().join("req.json"), request("big-n", json!({}))).expect("write");
    std::fs::write(
        dir.path().join("a.json"),
        format!(r#"{{"action":"accept","content":{{"n":{OVER}}}}}"#),
    )
    .expect("write");
    let (code, out, err) =
        common::run_in(&["respond", "--answers", "a.json", "req.json"], dir.path());
    assert_eq!(code, Some(1), "{out}{err}");
    assert!(out.is_empty(), "no result: {out}");
    assert!(err.contains("must be at most 9007199254740992"), "{err}");
}

#[test]
fn defaults_and_bounds_are_checked_exactly_too() {
    let dir = tempfile::tempdir().expect("tempdir");
    let cases = [
        (
            json!({"default": 9007199254740993u64}),
            "default-fits",
            "/default",
        ),
        (
            json!({"minimum": 9007199254740993u64}),
            "bounds-order",
            "/minimum",
        ),
    ];
    for (extra, rule, tail) in cases {
        // Built with the bound inside, then the text changed past it (the
        // wrapper would refuse it).
        let good = request("edge", json!({"default": 1}));
        let text = match rule {
            "default-fits" => good.replace(r#"\"default\":1"#, &format!(r#"\"default\":{OVER}"#)),
            _ => good.replace(r#"\"default\":1"#, &format!(r#"\"minimum\":{OVER}"#)),
        };
        assert_ne!(text, good, "{extra}");
        std::fs::write(dir.path().join("req.json"), &text).expect("write");
        let (code, out, _) =
            common::run_in(&["validate", "--format", "json", "req.json"], dir.path());
        assert_eq!(code, Some(1), "{extra}: {out}");
        let v: Value = serde_json::from_str(out.trim()).expect("json");
        let first = &v["errors"][0];
        assert_eq!(first["rule"], json!(rule), "{out}");
        assert!(
            first["pointer"].as_str().unwrap_or("").ends_with(tail),
            "{out}"
        );
    }
}
