//! `make_result_line` (which writes a bare decline or cancel straight from
//! the request, with no tree and no schema run) against the full build,
//! `make_result_event` then `safe_text::json_line`: for every valid request
//! of the vectors and hand-made requests at each rule's edge (ids at the
//! derivation's length limit and past the eventId rule, control, bidi and
//! quote characters in every copied string, an `inputKey` that breaks its
//! rule, a related-task `_meta`), every action and a set of result metas,
//! both give the same line and id, or the same violations.

use ahp_elicit::binding::{
    make_result_event, make_result_line, mcp_result, read_request, Action, Answer, CallMethod,
    CallRef, McpExtension, ReadOptions, RequestEvent, ResultLine, ResultMeta, Revision, Server,
    Violation,
};
use ahp_elicit::safe_text::json_line;
use serde_json::{json, Map, Value};

use crate::common;

/// The full build as a line.
fn full_line(
    req: &RequestEvent,
    answer: &Answer,
    meta: &ResultMeta,
) -> Result<ResultLine, Vec<Violation>> {
    let ev = make_result_event(req, answer, meta)?;
    Ok(ResultLine {
        id: ev["id"].as_str().expect("a string id").to_owned(),
        line: json_line(&ev),
    })
}

const TIME: &str = "2026-12-01T10:00:00.123Z";

fn meta(adapter: &str, id: Option<&str>, time: Option<&str>) -> ResultMeta {
    ResultMeta {
        adapter: adapter.to_owned(),
        id: id.map(str::to_owned),
        time: time.map(str::to_owned),
    }
}

/// Result metas: the default, hostile adapters, given ids on both sides
/// of the eventId rule, given times valid and not.
fn metas() -> Vec<ResultMeta> {
    vec![
        meta("ahp-elicit", None, Some(TIME)),
        meta("", None, Some(TIME)),
        meta(
            "a\"d\\a\u{1b}[2J\u{9b}\u{202e}\u{7f}p\u{e0041}ter",
            None,
            Some(TIME),
        ),
        meta("ahp-elicit", Some("custom-result"), Some(TIME)),
        meta("ahp-elicit", Some("ré\u{200b}sult \"q\""), Some(TIME)),
        meta("ahp-elicit", Some(""), Some(TIME)),
        meta("ahp-elicit", Some("bell\u{7}"), Some(TIME)),
        meta("ahp-elicit", Some("c1\u{85}"), Some(TIME)),
        meta("ahp-elicit", Some(&"x".repeat(256)), Some(TIME)),
        meta("ahp-elicit", Some(&"x".repeat(257)), Some(TIME)),
        meta("ahp-elicit", None, Some("2026-12-01T10:00:00+02:00")),
        meta("ahp-elicit", None, Some("2026-02-30T10:00:00Z")),
        meta("ahp-elicit", None, Some("yesterday")),
        meta("ahp-elicit", None, Some("")),
    ]
}

fn answers() -> Vec<Answer> {
    let mut content = Map::new();
    content.insert("x".into(), json!("y"));
    vec![
        Answer::bare(Action::Decline),
        Answer::bare(Action::Cancel),
        Answer::bare(Action::Accept),
        Answer {
            action: Action::Decline,
            content: Some(content.clone()),
        },
        Answer {
            action: Action::Accept,
            content: Some(content),
        },
    ]
}

/// Every request of the vectors that reads as valid on its own.
fn vector_requests() -> Vec<(String, RequestEvent)> {
    let mut out = Vec::new();
    for v in common::vectors() {
        let Some(e) = v.get("request") else {
            continue;
        };
        if let Ok(r) = read_request(e.clone(), ReadOptions::default()) {
            out.push((v["id"].as_str().unwrap_or("?").to_owned(), r));
        }
    }
    out
}

/// Requests changed by hand at each rule a bare result copies.
fn edge_requests(base: &RequestEvent) -> Vec<(String, RequestEvent)> {
    let mut out = Vec::new();
    let mut with = |what: &str, f: &dyn Fn(&mut RequestEvent)| {
        let mut r = base.clone();
        f(&mut r);
        out.push((what.to_owned(), r));
    };
    for n in [248, 249, 250, 256, 257] {
        with(&format!("id of {n}"), &|r| r.id = "i".repeat(n));
    }
    with("id of 249 wide", &|r| r.id = "é".repeat(249));
    with("empty id", &|r| r.id = String::new());
    with("id with a control", &|r| r.id = "a\u{1}b".into());
    with("id with bidi and quotes", &|r| {
        r.id = "\u{202e}\"q\"\\ \u{2028}".into()
    });
    with("hostile server", &|r| {
        r.server = Server {
            name: "n\u{0}\u{1b}]0;x\u{7}\"".into(),
            title: Some("t\u{202e}\u{85}".into()),
            version: Some(String::new()),
        }
    });
    with("title only", &|r| {
        r.server = Server {
            name: "n".into(),
            title: Some("t".into()),
            version: None,
        }
    });
    with("version only", &|r| {
        r.server = Server {
            name: "n".into(),
            title: None,
            version: Some("1".into()),
        }
    });
    for rev in Revision::ALL {
        with(&format!("mcp {rev}"), &|r| {
            r.mcp = Some(McpExtension {
                protocol_version: *rev,
                input_key: None,
                call: None,
            })
        });
        for key in ["k", "k\u{202e}\"", "", "bad\u{9f}"] {
            with(&format!("mcp {rev} inputKey {key:?}"), &|r| {
                r.mcp = Some(McpExtension {
                    protocol_version: *rev,
                    input_key: Some(key.into()),
                    call: Some(CallRef {
                        method: CallMethod::ToolsCall,
                        name: "never echoed".into(),
                    }),
                })
            });
        }
        with(&format!("mcp {rev} long inputKey"), &|r| {
            r.mcp = Some(McpExtension {
                protocol_version: *rev,
                input_key: Some("k".repeat(257)),
                call: None,
            })
        });
    }
    out
}

#[test]
fn a_result_line_is_the_full_build_for_every_request_answer_and_meta() {
    let requests = vector_requests();
    assert!(requests.len() >= 30, "{} vector requests", requests.len());
    let mut all = requests.clone();
    for (what, r) in &requests {
        if what.starts_with("req-form-meta-and-task") || what.starts_with("rr-meta-task") {
            all.extend(edge_requests(r));
        }
    }
    all.extend(edge_requests(&requests[0].1));
    let (mut same, mut refused) = (0, 0);
    let mut differ = Vec::new();
    for (what, req) in &all {
        for answer in answers() {
            for m in metas() {
                let quick = make_result_line(req, &answer, &m);
                let full = full_line(req, &answer, &m);
                if quick != full {
                    differ.push(format!(
                        "{what} {answer:?} {m:?}:\n quick: {quick:?}\n full: {full:?}"
                    ));
                } else if let Ok(line) = &full {
                    // The text the event carries is the MCP result a
                    // client sends.
                    let ev = line.event().expect("JSON");
                    let text = ev["payload"]["elicitation"]["result"]["text"]
                        .as_str()
                        .expect("a result text");
                    let carried: Value = serde_json::from_str(text).expect("JSON text");
                    if carried != mcp_result(req, &answer) {
                        differ.push(format!("{what} {answer:?} {m:?}: carries {carried}"));
                    }
                    same += 1;
                } else {
                    refused += 1;
                }
            }
        }
    }
    assert!(
        differ.is_empty(),
        "{} differ:\n{}",
        differ.len(),
        differ.join("\n")
    );
    // Both outcomes are covered: results made and answers refused.
    assert!(
        same > 1000 && refused > 1000,
        "{same} made, {refused} refused"
    );
}

#[test]
fn a_result_line_made_now_reads_back_as_its_event() {
    let (_, req) = vector_requests().remove(0);
    for action in [Action::Decline, Action::Cancel] {
        let m = ResultMeta::default();
        let line = make_result_line(&req, &Answer::bare(action), &m).expect("valid");
        let mut event = line.event().expect("JSON");
        let time = event["time"].take();
        // The time is now's, in the schema's date-time form.
        assert!(
            time.as_str()
                .is_some_and(|t| t.len() == 24 && t.ends_with('Z')),
            "{time}"
        );
        let mut full = make_result_event(&req, &Answer::bare(action), &m).expect("valid");
        full["time"] = Value::Null;
        assert_eq!(event, full);
        assert_eq!(line.id, format!("{}-result", req.id));
    }
}
