//! The two pinned MCP revisions end to end through the real binary: `wrap`
//! names the revision, a 2026-07-28 URL request without `elicitationId` is
//! answered by script and at a real terminal, every result repeats its
//! request's revision and passes `validate --request`, and a result of the
//! other revision is refused.

#![cfg(unix)]

use crate::common;
use common::pty::*;

use std::path::{Path, PathBuf};

use serde_json::{json, Value};

/// `respond FLAGS REQUEST`, which must exit 0; its stdout.
fn respond(flags: &[&str], request: &Path) -> String {
    let ran = common::ahp_at_root()
        .arg("respond")
        .args(flags)
        .arg(request)
        .assert()
        .success();
    String::from_utf8_lossy(&ran.get_output().stdout).into_owned()
}

fn url_params() -> Value {
    json!({"mode": "url", "message": "Sign in to Bookings", "url": "https://bookings.example.com/login?s=1"})
}

fn form_params() -> Value {
    json!({"message": "Book a table", "requestedSchema": {"type": "object",
        "properties": {"name": {"type": "string", "minLength": 2},
                       "guests": {"type": "integer", "minimum": 1, "maximum": 12, "default": 2}},
        "required": ["name"]}})
}

/// `ahp-elicit wrap ARGS` on `params`: (exit code, stdout, stderr).
fn wrap(params: &Value, args: &[&str]) -> (i32, String, String) {
    let out = common::ahp_at_root()
        .args([
            "wrap",
            "--server",
            "bookings",
            "--id",
            "evt-r",
            "--time",
            "2026-12-01T10:00:00Z",
        ])
        .args(args)
        .arg("-")
        .write_stdin(params.to_string())
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

/// `validate --request REQ RESULT`: the exit code and stdout.
fn validate_against(req: &Path, result: &Path) -> (i32, String) {
    let out = common::ahp_at_root()
        .args(["validate", "--request"])
        .arg(req)
        .arg(result)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

#[test]
fn wrap_names_the_revision_and_checks_the_params_against_it() {
    // Without the flag: 2025-11-25, whose URL requests need elicitationId.
    let (code, out, err) = wrap(&url_params(), &[]);
    assert_eq!(code, 1, "{out}");
    assert!(
        err.contains("/elicitationId") || err.contains("elicitationId"),
        "{err}"
    );
    assert!(err.contains("(MCP 2025-11-25)"), "{err}");
    // With it: valid, and the event says so.
    let (code, out, err) = wrap(
        &url_params(),
        &["--protocol-version", "2026-07-28", "--input-key", "login"],
    );
    assert_eq!(code, 0, "{err}");
    let ev: Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(
        ev["extensions"],
        json!({"mcp": {"protocolVersion": "2026-07-28", "inputKey": "login"}})
    );
    let text = common::event_body(&ev, "request");
    assert_eq!(text, url_params(), "the params are kept whole");
    // A revision that is not pinned is a usage error naming the pinned ones.
    let (code, _, err) = wrap(&url_params(), &["--protocol-version", "2026-08-01"]);
    assert_eq!(code, 2);
    assert!(err.contains("2025-11-25, 2026-07-28"), "{err}");
    // A form wraps under both; without the flag no extensions are written.
    let (code, out, _) = wrap(&form_params(), &[]);
    assert_eq!(code, 0);
    assert!(!out.contains("extensions"), "{out}");
}

#[test]
fn a_2026_url_request_is_answered_by_script_and_its_result_validates() {
    let dir = tempfile::tempdir().unwrap();
    let (_, event, _) = wrap(&url_params(), &["--protocol-version", "2026-07-28"]);
    let req = write(dir.path(), "req.json", &event);
    let stdout = respond(&["--action", "accept", "--browser", "true"], &req);
    let res: Value = serde_json::from_str(stdout.trim()).unwrap();
    assert_eq!(
        res["extensions"],
        json!({"mcp": {"protocolVersion": "2026-07-28"}})
    );
    assert_eq!(res["payload"]["elicitation"]["action"], "accept");
    assert_eq!(
        res["payload"]["elicitation"]["result"]["text"],
        json!("{\"action\":\"accept\"}")
    );
    let res_file = write(dir.path(), "res.json", &stdout);
    let (code, verdict) = validate_against(&req, &res_file);
    assert_eq!(code, 0, "{verdict}");
    assert!(verdict.contains("valid"), "{verdict}");
}

#[test]
fn a_result_of_the_other_revision_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let (_, event, _) = wrap(&form_params(), &["--protocol-version", "2026-07-28"]);
    let req = write(dir.path(), "req.json", &event);
    let answers = write(
        dir.path(),
        "answers.json",
        r#"{"action": "accept", "content": {"name": "Grace"}}"#,
    );
    let answers = answers.display().to_string();
    let stdout = respond(&["--answers", &answers], &req);
    let good: Value = serde_json::from_str(stdout.trim()).unwrap();
    assert_eq!(good["extensions"]["mcp"]["protocolVersion"], "2026-07-28");
    let text = common::event_body(&good, "result");
    assert_eq!(
        text,
        json!({"action": "accept", "content": {"name": "Grace", "guests": 2}})
    );
    let (code, v) = validate_against(&req, &write(dir.path(), "good.json", &stdout));
    assert_eq!(code, 0, "{v}");

    // The same result without extensions.mcp follows 2025-11-25: refused.
    let mut bad = good.clone();
    bad.as_object_mut().unwrap().remove("extensions");
    let (code, v) = validate_against(&req, &write(dir.path(), "bad.json", &bad.to_string()));
    assert_eq!(code, 1, "{v}");
    assert!(v.contains("[revision-match]"), "{v}");
    assert!(v.contains("MCP 2026-07-28"), "{v}");
}

#[test]
fn a_2026_url_request_is_answered_at_the_terminal() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (_, event, _) = wrap(&url_params(), &["--protocol-version", "2026-07-28"]);
    let req = write(dir.path(), "req.jsonl", &event);
    let launches = dir.path().join("launches");
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/record-browser.sh");
    let out = dir.path().join("out.jsonl");
    let command = format!(
        "respond '{}' --browser \"sh '{}' '{}' 0\"",
        req.display(),
        script.display(),
        launches.display()
    );
    let mut t = Tui::start(dir.path(), &out, 80, 24, &command);
    t.wait_for("Sign in to Bookings");
    t.wait_for("Host: bookings.example.com");
    t.wait_for("[ Open in browser ] [>Decline<] [ Cancel ]");
    t.send("o");
    assert_eq!(t.finish(), 0);
    assert_eq!(
        std::fs::read_to_string(&launches).unwrap().trim(),
        "1 https://bookings.example.com/login?s=1"
    );
    let rs = results(&out);
    assert_eq!(actions_and_parents(&rs), vec![("accept", "evt-r")]);
    let (code, v) = validate_against(&req, &out);
    assert_eq!(code, 0, "{v}");
    let line: Value = serde_json::from_str(std::fs::read_to_string(&out).unwrap().trim()).unwrap();
    assert_eq!(line["extensions"]["mcp"]["protocolVersion"], "2026-07-28");
}

#[test]
fn what_2026_07_28_leaves_undefined_stays_open_in_a_form_too() {
    let mut p = form_params();
    p["elicitationId"] = json!("el-1");
    p["_meta"] = json!({"k": 1});
    let (code, _, err) = wrap(&p, &["--protocol-version", "2026-07-28"]);
    assert_eq!(code, 0, "{err}");
    // Under 2025-11-25 elicitationId belongs to URL mode.
    let (code, _, err) = wrap(&p, &[]);
    assert_eq!(code, 1);
    assert!(err.contains("'elicitationId' belongs to URL mode"), "{err}");
    assert!(err.contains("(MCP 2025-11-25)"), "{err}");
}

#[test]
fn an_unpinned_revision_is_refused_on_every_event_type() {
    let ev = json!({"ahp": "0.1", "id": "a", "type": "user.attention",
        "time": "2026-11-30T05:26:41Z", "source": {"adapter": "a"},
        "payload": {"attention": {"kind": "info",
            "message": {"type": "text", "selection": "omit"},
            "title": {"type": "text", "selection": "omit"}}},
        "extensions": {"mcp": {"protocolVersion": format!("2099-01-01{}", "x".repeat(100)),
                               "requestState": "x"}}});
    let out = common::ahp_at_root()
        .args(["validate", "-"])
        .write_stdin(ev.to_string())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout);
    // Both faults of the object, the long value cut.
    assert!(text.contains("[wire-root/additionalProperties]"), "{text}");
    assert!(text.contains("[mcp-revision]"), "{text}");
    assert!(text.lines().all(|l| l.chars().count() < 200), "{text}");
}

#[test]
fn wrap_says_what_a_wrapper_of_params_looks_like() {
    let entry = json!({"method": "elicitation/create", "params": url_params()});
    let (code, _, err) = wrap(&entry, &["--protocol-version", "2026-07-28"]);
    assert_eq!(code, 1);
    assert!(err.contains("inputRequests entry"), "{err}");
    let result = json!({"resultType": "input_required", "inputRequests": {"login": entry}});
    let (code, _, err) = wrap(&result, &["--protocol-version", "2026-07-28"]);
    assert_eq!(code, 1);
    assert!(err.contains("input_required result"), "{err}");
    // --input-key names an entry of a revision: it needs --protocol-version.
    let (code, _, err) = wrap(&url_params(), &["--input-key", "login"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--protocol-version"), "{err}");
}
