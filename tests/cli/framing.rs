//! Event framing through the binary: pretty-printed documents of any size
//! are read in one pass by `respond` and `validate` alike, and a valid event
//! whose inner `{` starts a line is one event for both.

use serde_json::{json, Value};

use crate::common;

/// A valid request event whose form has `n` text fields, each with a
/// description of `desc` characters; with `pad` items in its open
/// `extensions` (each pretty-printed over several lines).
fn request(id: &str, n: usize, desc: usize) -> Value {
    padded(id, n, desc, 0)
}

fn padded(id: &str, n: usize, desc: usize, pad: usize) -> Value {
    let mut props = serde_json::Map::new();
    for i in 0..n {
        props.insert(
            format!("f{i}"),
            json!({"type": "string", "title": format!("Field {i}"),
                   "description": "d".repeat(desc)}),
        );
    }
    let params = json!({"message": "Please fill in.",
        "requestedSchema": {"type": "object", "properties": props}});
    let server = ahp_elicit::binding::Server {
        name: "framing".into(),
        title: None,
        version: None,
    };
    let mut ev = ahp_elicit::binding::wrap_request(
        &params,
        &ahp_elicit::binding::WrapOptions {
            time: Some("2026-11-30T09:00:00Z"),
            ..ahp_elicit::binding::WrapOptions::new(&server, "mcp-stdio", id)
        },
    )
    .expect("valid request")
    .event;
    if pad > 0 {
        let items: Vec<Value> = (0..pad)
            .map(|i| json!({"i": i, "note": {"text": "padding {", "more": [i, "}"]}}))
            .collect();
        ev["extensions"] = json!({ "org.example.padding": items });
    }
    ev
}

/// `respond --action decline` on `input`: (exit code, stdout, stderr).
fn decline(input: &str) -> (Option<i32>, String, String) {
    common::run(["respond", "--action", "decline"], input.as_bytes()).parts()
}

/// The results on stdout as (action, parentEventId).
fn results(stdout: &str) -> Vec<(String, String)> {
    stdout
        .lines()
        .map(|l| common::action_and_parent(&serde_json::from_str(l).expect("a JSON line")))
        .collect()
}

/// A pretty-printed request of at least `min_bytes` over thousands of lines
/// (the framer is linear: each byte is looked at once, where reading line
/// by line and re-parsing the document so far took seconds at 75 KB and
/// minutes at 300 KB).
fn pretty_document_is_answered(pad: usize, min_bytes: usize) {
    let ev = padded("big-pretty", 3, 100, pad);
    let text = serde_json::to_string_pretty(&ev).expect("pretty");
    assert!(text.len() >= min_bytes, "{} bytes", text.len());
    assert!(text.lines().count() > pad * 8, "pretty: many lines");
    let id = ev["id"].as_str().expect("id").to_owned();
    let (code, out, err) = decline(&text);
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(results(&out), vec![("decline".to_owned(), id.clone())]);
    // The same document twice in a row: two requests, two results.
    let twice = format!("{text}\n{text}\n");
    let (code, out, err) = decline(&twice);
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(results(&out).len(), 2);
    let (code, out, err) = common::run(["validate", "--format", "json"], twice.as_bytes()).parts();
    assert_eq!(code, Some(0), "{err}");
    let lines: Vec<Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 2);
    assert_eq!(lines[0]["valid"], json!(true));
    assert_eq!(lines[1]["line"], json!(text.lines().count() + 1));
}

#[test]
fn a_75_kb_pretty_document_is_answered() {
    pretty_document_is_answered(550, 75_000);
}

#[test]
fn a_300_kb_pretty_document_is_answered() {
    pretty_document_is_answered(2200, 300_000);
}

/// A compact event with a line break before the `{` of its payload, so an
/// inner `{` stands in column 0.
fn inner_brace_event(id: &str) -> (String, String) {
    let ev = request(id, 2, 10);
    let compact = ev.to_string();
    let at = compact.find("\"payload\":{").expect("a payload object") + "\"payload\":".len();
    let text = format!("{}\n{}", &compact[..at], &compact[at..]);
    assert!(text.lines().nth(1).is_some_and(|l| l.starts_with('{')));
    (text, ev["id"].as_str().expect("id").to_owned())
}

#[test]
fn an_inner_brace_in_column_0_is_one_event_for_respond_and_validate() {
    let (a, id_a) = inner_brace_event("inner-a");
    let (b, id_b) = inner_brace_event("inner-b");
    let stream = format!("{a}\n{b}\n");
    let (code, out, err) = decline(&stream);
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(
        results(&out),
        vec![
            ("decline".to_owned(), id_a.clone()),
            ("decline".to_owned(), id_b.clone())
        ]
    );
    let (code, out, err) = common::run(["validate"], stream.as_bytes()).parts();
    assert_eq!(code, Some(0), "{err}\n{out}");
    assert_eq!(
        out,
        format!("<stdin>:1: {id_a}: valid\n<stdin>:3: {id_b}: valid\n")
    );
}

/// A JSON Lines stream with a line cut short in the middle: the cut line
/// is reported by its number, the events around it are answered.
#[test]
fn a_cut_line_between_events_is_reported_and_the_rest_answered() {
    let (a, b) = (request("cut-a", 1, 5), request("cut-b", 1, 5));
    let a = a.to_string();
    let cut = &a[..a.len() / 2];
    let stream = format!("{a}\n{cut}\n{}\n", b);
    let (code, out, err) = decline(&stream);
    assert_eq!(code, Some(1), "{err}");
    assert_eq!(
        results(&out),
        vec![
            ("decline".to_owned(), "cut-a".to_owned()),
            ("decline".to_owned(), "cut-b".to_owned())
        ]
    );
    assert!(err.contains("line 2: not a JSON event"), "{err}");
    let (code, out, _) = common::run(["validate"], stream.as_bytes()).parts();
    assert_eq!(code, Some(1));
    let verdicts: Vec<&str> = out.lines().filter(|l| !l.starts_with("  ")).collect();
    assert_eq!(
        verdicts,
        vec![
            "<stdin>:1: cut-a: valid",
            "<stdin>:2: invalid",
            "<stdin>:3: cut-b: valid"
        ]
    );
}

/// A file `mcp --events` wrote holds requests and their results: `respond`
/// answers the requests and skips each valid event of another type with one
/// line, and exits 0 when every request got its result.
#[test]
fn respond_skips_valid_events_of_another_type() {
    let req = request("ev-1", 1, 5).to_string();
    let (code, first, err) = decline(&req);
    assert_eq!(code, Some(0), "{err}");
    let both = format!("{req}\n{first}");
    let (code, out, err) = decline(&both);
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(results(&out), vec![("decline".into(), "ev-1".into())]);
    let result_id = serde_json::from_str::<Value>(first.trim()).expect("result")["id"]
        .as_str()
        .expect("id")
        .to_owned();
    assert!(
        err.contains(&format!(
            "event {result_id} (line 2): skipped, a user.elicitation.result event is not a request"
        )),
        "{err}"
    );
    assert!(!err.contains("invalid"), "{err}");
}
