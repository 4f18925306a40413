//! A multi-select with 20,000 options and a 20,000-item default: checked
//! and answered with the options indexed once (membership and uniqueness
//! still hold at that size).

use crate::common;

use serde_json::{json, Value};

const N: usize = 20_000;

fn values() -> Vec<String> {
    (0..N).map(|i| format!("opt-{i}")).collect()
}

fn request() -> String {
    let params = json!({"message": "Pick.", "requestedSchema": {"type": "object", "properties": {
        "tags": {"type": "array", "items": {"type": "string", "enum": values()},
                 "default": values()}}}});
    crate::common::request_line("options", "many", &params)
}

/// The content of a result event's body text.
fn content(result_line: &str) -> Value {
    let ev: Value = serde_json::from_str(result_line).expect("result JSON");
    let text = ev["payload"]["elicitation"]["result"]["text"]
        .as_str()
        .expect("body text");
    let body: Value = serde_json::from_str(text).expect("body JSON");
    body["content"].clone()
}

#[test]
fn twenty_thousand_options_validate_and_answer() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(dir.path().join("req.json"), request()).expect("write");
    let (code, out, err) = common::run_in(&["validate", "req.json"], dir.path());
    assert_eq!(
        (code, out.as_str()),
        (Some(0), "req.json:1: many: valid\n"),
        "{err}"
    );

    // Accept as shown: the default, every option, in option order.
    let (code, out, err) =
        common::run_in(&["respond", "--action", "accept", "req.json"], dir.path());
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(content(&out)["tags"], json!(values()));
    let accepted = out.trim().to_owned();
    std::fs::write(dir.path().join("res.json"), &accepted).expect("write");
    let (code, out, _) = common::run_in(
        &["validate", "--request", "req.json", "res.json"],
        dir.path(),
    );
    assert_eq!(
        (code, out.as_str()),
        (Some(0), "res.json:1: many-result: valid\n")
    );

    // The last item repeated, or one not offered: refused, named.
    let last = format!("opt-{}", N - 1);
    for (bad, why) in [
        (
            format!(r#"\"{last}\",\"{last}\""#),
            format!("'{last}' is selected twice"),
        ),
        (
            format!(r#"\"{last}\",\"opt-{N}\""#),
            format!("'opt-{N}' is not one of the options"),
        ),
    ] {
        let text = accepted.replacen(&format!(r#"\"{last}\""#), &bad, 1);
        assert_ne!(text, accepted);
        std::fs::write(dir.path().join("bad.json"), &text).expect("write");
        let args = [
            "validate",
            "--format",
            "json",
            "--request",
            "req.json",
            "bad.json",
        ];
        let (code, out, _) = common::run_in(&args, dir.path());
        assert_eq!(code, Some(1), "{out}");
        let v: Value = serde_json::from_str(out.trim()).expect("json");
        assert_eq!(v["errors"][0]["rule"], json!("content-value"));
        assert_eq!(v["errors"][0]["message"], json!(format!("'tags' {why}")));
    }

    // Answers by file: the reverse order is the same set, and is kept.
    let mut rev = values();
    rev.reverse();
    std::fs::write(
        dir.path().join("a.json"),
        json!({"action": "accept", "content": {"tags": rev}}).to_string(),
    )
    .expect("write");
    let (code, out, err) =
        common::run_in(&["respond", "--answers", "a.json", "req.json"], dir.path());
    assert_eq!(code, Some(0), "{err}");
    let mut got: Vec<String> = serde_json::from_value(content(&out)["tags"].clone()).unwrap();
    got.sort();
    let mut want = values();
    want.sort();
    assert_eq!(got, want);
}
