//! `ahp-elicit validate` through the real binary:
//! every conformance vector, every example, the JSON output shape, error
//! pointers, JSON Lines, and hostile bytes.

use crate::common;

use serde_json::{json, Value};

/// Run `validate --format json` with `stdin`, return (exit code, verdict
/// objects, stderr).
fn validate_json(args: &[&str], stdin: Vec<u8>) -> (i32, Vec<Value>, String) {
    let out = crate::common::ahp()
        .arg("validate")
        .arg("--format")
        .arg("json")
        .args(args)
        .write_stdin(stdin)
        .output()
        .expect("runs");
    let stdout = String::from_utf8(out.stdout).expect("stdout is UTF-8");
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(!stderr.contains("panicked"), "panic: {stderr}");
    let verdicts = stdout
        .lines()
        .map(|l| serde_json::from_str(l).expect("each output line is JSON"))
        .collect();
    (out.status.code().expect("exited"), verdicts, stderr)
}

fn temp_json(dir: &tempfile::TempDir, name: &str, v: &Value) -> String {
    let p = dir.path().join(name);
    std::fs::write(&p, serde_json::to_vec(v).unwrap()).unwrap();
    p.to_str().unwrap().to_owned()
}

/// Every case of the vector file through the command, with its expected
/// verdict. (Two cases, req-task-ttl-wrong-type and req-meta-not-object, are
/// decided only by the pinned MCP schema: they pass once the real schemas
/// are in.)
#[test]
fn every_vector_through_the_command() {
    let vectors = common::vectors();
    assert_eq!(
        vectors.len(),
        60 + 21,
        "the two revisions' vector files have 60 and 21 cases"
    );
    let dir = tempfile::tempdir().unwrap();
    let mut failures = Vec::new();
    for v in &vectors {
        let id = v["id"].as_str().unwrap();
        let want_valid = v["expect"] == "valid";
        let (code, verdicts, stderr) = match v["kind"].as_str().unwrap() {
            "request" => validate_json(&[], serde_json::to_vec(&v["request"]).unwrap()),
            "result" => validate_json(&[], serde_json::to_vec(&v["result"]).unwrap()),
            "request+result" => {
                let req = temp_json(&dir, &format!("{id}.request.json"), &v["request"]);
                validate_json(
                    &["--request", &req],
                    serde_json::to_vec(&v["result"]).unwrap(),
                )
            }
            other => panic!("unknown kind {other}"),
        };
        let got_valid = code == 0;
        // The exit code and the one verdict agree.
        assert_eq!(verdicts.len(), 1, "{id}: one verdict, stderr {stderr}");
        assert_eq!(verdicts[0]["valid"], json!(got_valid), "{id}");
        assert!(code == 0 || code == 1, "{id}: exit {code}");
        if got_valid != want_valid {
            failures.push(format!(
                "{id}: expected {}, got {:?}",
                v["expect"], verdicts[0]
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} vectors failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// request+result pairs also work in one JSON Lines stream: the result is
/// checked against the request seen earlier with id == parentEventId.
#[test]
fn pairs_in_one_stream_are_correlated() {
    let vectors = common::vectors();
    let pairs: Vec<&Value> = vectors
        .iter()
        .filter(|v| v["kind"] == "request+result")
        .collect();
    assert!(pairs.len() >= 10);
    let mut stream = Vec::new();
    for v in &pairs {
        stream.extend(serde_json::to_vec(&v["request"]).unwrap());
        stream.push(b'\n');
        stream.extend(serde_json::to_vec(&v["result"]).unwrap());
        stream.push(b'\n');
    }
    let (code, verdicts, _) = validate_json(&[], stream);
    assert_eq!(code, 1, "the stream holds invalid results");
    assert_eq!(verdicts.len(), pairs.len() * 2);
    for (i, v) in pairs.iter().enumerate() {
        let req = &verdicts[2 * i];
        let res = &verdicts[2 * i + 1];
        assert_eq!(req["valid"], json!(true), "{}: request", v["id"]);
        assert_eq!(req["line"], json!(2 * i + 1));
        assert_eq!(
            res["valid"],
            json!(v["expect"] == "valid"),
            "{}: {res}",
            v["id"]
        );
        assert_eq!(res["id"], v["result"]["id"]);
    }
}

#[test]
fn every_example_validates() {
    let ex = common::examples_dir();
    let names = common::example_files();
    assert!(names.len() >= 6);
    let every_kind = ex.join("form-every-kind.request.json");
    let mut total = 0;
    for p in &names {
        let mut cmd = crate::common::ahp();
        cmd.arg("validate");
        if p.to_str().unwrap().ends_with(".result.json") {
            cmd.arg("--request").arg(&every_kind);
        }
        let out = cmd.arg(p).output().unwrap();
        let stdout = String::from_utf8(out.stdout).unwrap();
        assert_eq!(out.status.code(), Some(0), "{}: {stdout}", p.display());
        for l in stdout.lines() {
            assert!(l.ends_with(": valid"), "{}: {l}", p.display());
            total += 1;
        }
    }
    // 5 single events and a stream of 3.
    assert_eq!(total, 8);
}

#[test]
fn result_against_the_every_kind_request_is_cross_checked() {
    let ex = common::examples_dir();
    let mut res: Value =
        serde_json::from_slice(&std::fs::read(ex.join("form-every-kind.result.json")).unwrap())
            .unwrap();
    // Change seats to a value over the maximum of 500.
    let text = res["payload"]["elicitation"]["result"]["text"]
        .as_str()
        .unwrap()
        .replace("\"seats\": 5", "\"seats\": 501");
    res["payload"]["elicitation"]["result"]["text"] = json!(text);
    let req = ex.join("form-every-kind.request.json");
    let (code, v, _) = validate_json(
        &["--request", req.to_str().unwrap()],
        serde_json::to_vec(&res).unwrap(),
    );
    assert_eq!(code, 1);
    assert_eq!(v[0]["valid"], json!(false));
    assert_eq!(
        v[0]["errors"][0],
        json!({
            "pointer": "/payload/elicitation/result/text#/content/seats",
            "rule": "content-value",
            "message": "'seats' must be at most 500"
        })
    );
    // Without the request the result is checked on its own and is valid.
    let (code, v, _) = validate_json(&[], serde_json::to_vec(&res).unwrap());
    assert_eq!(code, 0, "{v:?}");
}

/// A request that every schema accepts but the runtime check refuses
/// (bounds-order), so the pointer does not depend on the schema's reporting.
fn bad_request() -> Value {
    json!({
        "ahp": "0.1", "id": "evt-bad", "type": "user.elicitation.request",
        "time": "2026-11-30T10:00:00Z", "source": {"adapter": "t"},
        "payload": {"elicitation": {"server": {"name": "s"}, "mode": "form",
            "request": {"type": "text", "selection": "body",
                "text": "{\"message\":\"m\",\"requestedSchema\":{\"type\":\"object\",\"properties\":{\"x\":{\"type\":\"integer\",\"minimum\":5,\"maximum\":1}}}}"}}}
    })
}

#[test]
fn json_format_shape_and_error_pointer() {
    let (code, v, _) = validate_json(&[], serde_json::to_vec(&bad_request()).unwrap());
    assert_eq!(code, 1);
    assert_eq!(v.len(), 1);
    let o = v[0].as_object().unwrap();
    let keys: Vec<&str> = o.keys().map(String::as_str).collect();
    assert_eq!(
        keys,
        ["id", "type", "valid", "errors", "input", "line"],
        "{o:?}"
    );
    assert_eq!(o["id"], json!("evt-bad"));
    assert_eq!(o["type"], json!("user.elicitation.request"));
    assert_eq!(o["valid"], json!(false));
    assert_eq!(o["input"], json!("-"));
    assert_eq!(o["line"], json!(1));
    let errs = o["errors"].as_array().unwrap();
    assert!(!errs.is_empty());
    for e in errs {
        let ek: Vec<&str> = e.as_object().unwrap().keys().map(String::as_str).collect();
        assert_eq!(ek, ["pointer", "rule", "message"]);
    }
    assert_eq!(
        errs[0],
        json!({
            "pointer": "/payload/elicitation/request/text#/requestedSchema/properties/x/minimum",
            "rule": "bounds-order",
            "message": "minimum 5 is greater than maximum 1"
        })
    );
}

#[test]
fn text_format_lists_pointer_rule_message() {
    let out = crate::common::ahp()
        .arg("validate")
        .write_stdin(serde_json::to_vec(&bad_request()).unwrap())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let s = String::from_utf8(out.stdout).unwrap();
    let mut lines = s.lines();
    assert_eq!(lines.next(), Some("<stdin>:1: evt-bad: invalid"));
    let l = lines.next().unwrap();
    assert_eq!(
        l,
        "  /payload/elicitation/request/text#/requestedSchema/properties/x/minimum [bounds-order] minimum 5 is greater than maximum 1"
    );
    assert_eq!(lines.next(), None);
}

#[test]
fn json_lines_bad_line_is_reported_with_its_number() {
    let ex = common::examples_dir().join("stream.requests.jsonl");
    let mut input = std::fs::read(ex).unwrap();
    input.extend_from_slice(b"\n{\"ahp\": \"0.1\", truncated\n");
    let (code, v, _) = validate_json(&[], input);
    assert_eq!(code, 1);
    assert_eq!(v.len(), 4);
    assert!(v[..3].iter().all(|x| x["valid"] == json!(true)));
    assert_eq!(v[3]["line"], json!(5), "a blank line 4 is skipped");
    assert_eq!(v[3]["id"], Value::Null);
    assert_eq!(v[3]["errors"][0]["rule"], json!("json"));
}

#[test]
fn pretty_printed_and_compact_documents_are_one_event() {
    let ex = common::examples_dir().join("url-connect.request.json");
    let (code, v, _) = validate_json(&[ex.to_str().unwrap()], vec![]);
    assert_eq!(code, 0);
    assert_eq!(v.len(), 1);
    assert_eq!(v[0]["id"], json!("evt-url-1"));
}

fn assert_bad_bytes(input: Vec<u8>, rule: &str, needle: &str) {
    let (code, v, stderr) = validate_json(&[], input);
    assert_eq!(code, 1, "stderr: {stderr}");
    assert_eq!(v.len(), 1, "{v:?}");
    assert_eq!(v[0]["valid"], json!(false));
    let e = &v[0]["errors"][0];
    assert_eq!(e["rule"], json!(rule), "{e}");
    assert!(
        e["message"].as_str().unwrap().contains(needle),
        "{e} lacks {needle}"
    );
}

#[test]
fn invalid_utf8_is_a_clear_error() {
    let mut b = serde_json::to_vec(&bad_request()).unwrap();
    let at = b.iter().position(|&c| c == b'b').unwrap();
    b[at] = 0xff;
    assert_bad_bytes(b, "utf8", "not UTF-8");
}

#[test]
fn deep_nesting_is_a_limits_error() {
    let mut b = Vec::new();
    b.extend(std::iter::repeat_n(b'[', 70));
    b.extend(std::iter::repeat_n(b']', 70));
    assert_bad_bytes(b.clone(), "limits", "nesting depth 70");
    // Far beyond serde_json's own recursion limit too.
    let mut deep = Vec::new();
    deep.extend(std::iter::repeat_n(b'{', 0));
    deep.extend(std::iter::repeat_n(b'[', 100_000));
    assert_bad_bytes(deep, "limits", "nesting depth 100000");
}

#[test]
fn truncated_json_is_a_clear_error() {
    let ex = common::examples_dir().join("form-every-kind.request.json");
    let b = std::fs::read(ex).unwrap();
    assert_bad_bytes(b[..b.len() / 2].to_vec(), "json", "EOF while parsing");
}

#[test]
fn five_mib_line_is_a_limits_error() {
    let mut b = b"{\"x\":\"".to_vec();
    b.extend(std::iter::repeat_n(b'a', 5 * 1024 * 1024));
    b.extend_from_slice(b"\"}\n");
    assert_bad_bytes(b, "limits", "over the limit of 4194304 bytes");
}

#[test]
fn non_event_json_and_unknown_types_are_invalid() {
    for input in [&b"[1, 2]"[..], br#"{"type": "user.nonsense", "id": "e1"}"#] {
        let (code, v, _) = validate_json(&[], input.to_vec());
        assert_eq!(code, 1);
        assert_eq!(v[0]["valid"], json!(false));
        let errs = v[0]["errors"].as_array().unwrap();
        assert!(!errs.is_empty());
        // The wire root refuses it (its exact reporting is the schema's).
        assert!(
            errs.iter()
                .all(|e| e["rule"].as_str().unwrap().starts_with("wire-root")),
            "{errs:?}"
        );
    }
}

#[test]
fn unreadable_input_exits_2() {
    let r = crate::common::run(["validate", "/nonexistent/ahp-elicit/none.json"], b"");
    assert_eq!(r.code, Some(2));
    assert!(r.stderr.contains("cannot read"), "{}", r.stderr);
}

#[test]
fn empty_input_has_no_event() {
    let r = crate::common::run(["validate"], b"\n \n");
    assert_eq!(r.code, Some(1));
    assert!(r.stderr.contains("no event found"), "{}", r.stderr);
}

#[test]
fn hostile_id_is_sanitized_in_text_output() {
    let mut ev = bad_request();
    ev["id"] = json!("evt-\u{1b}[31mred");
    let out = crate::common::ahp()
        .arg("validate")
        .write_stdin(serde_json::to_vec(&ev).unwrap())
        .output()
        .unwrap();
    let s = String::from_utf8(out.stdout).unwrap();
    assert!(!s.contains('\u{1b}'), "{s:?}");
    assert!(
        s.starts_with("<stdin>:1: evt-\\u{1b}[31mred: invalid"),
        "{s}"
    );
}

#[test]
fn split_input_handles_crlf_blank_lines_and_large_streams() {
    use ahp_elicit::validate::split_input;
    let collect = |input: &[u8]| {
        let mut got = Vec::new();
        split_input(input, |c| {
            got.push((c.line, c.bytes.map_err(|e| e.rule.to_string())))
        })
        .unwrap();
        got
    };
    let got = collect(b"{\"a\":1}\r\n\r\n  \n{\"b\":2}\r\n");
    assert_eq!(
        got,
        [
            (1, Ok(b"{\"a\":1}".to_vec())),
            (4, Ok(b"{\"b\":2}".to_vec()))
        ]
    );
    // Over the event limit in total: read as JSON Lines with bounded lines;
    // the events after a too-long line are still read.
    let mut big = b"{\"a\":1}\n{\"x\":\"".to_vec();
    big.extend(std::iter::repeat_n(b'a', 4 * 1024 * 1024));
    big.extend_from_slice(b"\"}\n{\"b\":2}\n");
    let got = collect(&big);
    assert_eq!(got.len(), 3);
    assert_eq!(got[0], (1, Ok(b"{\"a\":1}".to_vec())));
    assert_eq!(got[1], (2, Err("limits".to_owned())));
    assert_eq!(got[2], (3, Ok(b"{\"b\":2}".to_vec())));
}

#[test]
fn request_file_with_several_requests_matches_by_parent_id() {
    let vectors = common::vectors();
    let pick = |id: &str| vectors.iter().find(|v| v["id"] == id).unwrap().clone();
    let a = pick("rr-integer-at-maximum");
    let b = pick("rr-url-decline");
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("reqs.jsonl");
    let text = format!(
        "{}\n{}\n",
        serde_json::to_string(&a["request"]).unwrap(),
        serde_json::to_string(&b["request"]).unwrap()
    );
    std::fs::write(&p, text).unwrap();
    let mut stream = serde_json::to_vec(&b["result"]).unwrap();
    stream.push(b'\n');
    stream.extend(serde_json::to_vec(&a["result"]).unwrap());
    let (code, v, _) = validate_json(&["--request", p.to_str().unwrap()], stream);
    assert_eq!(code, 0, "{v:?}");
    assert_eq!(v.len(), 2);
    // A result whose parent is not in the file is invalid.
    let mut orphan = a["result"].clone();
    orphan["parentEventId"] = json!("evt-nobody");
    let (code, v, _) = validate_json(
        &["--request", p.to_str().unwrap()],
        serde_json::to_vec(&orphan).unwrap(),
    );
    assert_eq!(code, 1);
    assert_eq!(v[0]["errors"][0]["rule"], json!("parent-id"));
}

/// A request as `mcp` records it from a pydantic server (a `title` on the
/// `requestedSchema`, outside the closed subset) and its result: strict
/// (the default) refuses the request; `--schema-policy compatible` reads it
/// as `mcp` did, and both events validate.
#[test]
fn schema_policy_compatible_accepts_what_mcp_recorded() {
    let params = json!({"message": "Your contact", "mode": "form",
        "requestedSchema": {"title": "ContactModel", "type": "object",
            "properties": {"email": {"title": "Email", "type": "string"}},
            "required": ["email"]}});
    let request = json!({"ahp": "0.1", "id": "mcp-1", "type": "user.elicitation.request",
        "time": "2026-12-01T18:55:06.796Z", "source": {"adapter": "mcp-stdio"},
        "payload": {"elicitation": {"server": {"name": "py", "version": "1"}, "mode": "form",
            "request": {"type": "text", "selection": "body", "text": params.to_string()}}},
        "extensions": {"ahp-elicit/schema-policy":
            {"policy": "compatible", "outsideSubset": ["/title"]}}});
    let answer = json!({"action": "accept", "content": {"email": "q@w.ee"}});
    let result = json!({"ahp": "0.1", "id": "mcp-1-result", "type": "user.elicitation.result",
        "time": "2026-12-01T18:55:06.991Z", "source": {"adapter": "ahp-elicit"},
        "parentEventId": "mcp-1",
        "payload": {"elicitation": {"server": {"name": "py", "version": "1"}, "mode": "form",
            "action": "accept",
            "result": {"type": "text", "selection": "body", "text": answer.to_string()}}}});
    let lines = format!("{request}\n{result}\n").into_bytes();
    let (code, verdicts, _) = validate_json(&[], lines.clone());
    assert_eq!(code, 1, "{verdicts:?}");
    assert!(!verdicts[0]["valid"].as_bool().unwrap(), "{verdicts:?}");
    let (code, verdicts, err) = validate_json(&["--schema-policy", "compatible"], lines);
    assert_eq!(code, 0, "{verdicts:?} {err}");
    assert_eq!(verdicts.len(), 2);
    assert!(
        verdicts.iter().all(|v| v["valid"] == json!(true)),
        "{verdicts:?}"
    );
}
