//! Forms from a server written with the official Python MCP SDK (`mcp` from
//! PyPI with pydantic, installed by `.ci/sdk-setup.sh`;
//! tests/servers/py_pydantic_server.py), answered end to end through
//! `ahp-elicit mcp` with no flag (the compatible schema policy is its
//! default): by `--answers`, and by a person in a pseudo-terminal. The
//! server's tool reports the content it received and pydantic's validation
//! of it, so each test sees what reached the server.
//!
//! The server speaks both protocol revisions and `mcp` picks 2026-07-28 by
//! itself; there the SDK's serializer sends only `type`, `properties` and
//! `required` at the top of the requested schema (the model's `title` and
//! `description` are dropped). The 2025-11-25 rendering, with them, is
//! checked with `--protocol 2025-11-25`.
//!
//! The waits in the terminal tests are for screen text; their timeouts
//! only guard against a hang.

#![cfg(unix)]

use crate::common;
use crate::common::sdk;

use common::pty::*;
use sdk::*;
use serde_json::{json, Value};

fn python() -> Option<String> {
    let py = root().join(".ci/sdk/venv/bin/python");
    installed("the Python MCP SDK", &py).then(|| py.display().to_string())
}

fn server(py: &str) -> Vec<String> {
    let script = root().join("tests/servers/py_pydantic_server.py");
    vec![py.to_owned(), script.display().to_string()]
}

/// What `book` received: the answer plus the form's defaults.
fn booking(name: &str, course: i64, code: &str, nickname: Option<&str>) -> Value {
    json!({
        "name": name,
        "guests": 2,
        "seating": "inside",
        "course": course,
        "code": code,
        "nickname": nickname,
        "vegetarian": false
    })
}

#[test]
fn pydantic_model_form_is_answered_by_answers_with_no_flag() {
    let Some(py) = python() else { return };
    let dir = tempfile::tempdir().unwrap();
    let a = answers(
        dir.path(),
        &json!({"action": "accept", "content": {"name": "Ada", "course": 3, "code": "QQ", "nickname": "ada"}}),
    );
    let r = run_mcp(
        dir.path(),
        &["--call", "book", "--answers", &a],
        &server(&py),
    );
    assert_eq!(r.code, 0, "stderr: {}", r.stderr);
    let report = r.tool_report();
    assert_eq!(report["action"], "accept");
    // The integer enum went out as a number, the defaults as drawn.
    assert_eq!(report["received"], booking("Ada", 3, "QQ", Some("ada")));
    assert_eq!(report["validated"], report["received"]);

    // The request event carries the complete params as the 2026-07-28
    // serializer sent them (no top-level title) and says how it was read.
    assert_eq!(r.events.len(), 2, "a request and a result event");
    assert_eq!(
        r.events[0]["extensions"]["mcp"]["protocolVersion"],
        "2026-07-28"
    );
    let params = r.request_params();
    assert_eq!(params["requestedSchema"].get("title"), None);
    assert_eq!(
        params["requestedSchema"]["properties"]["code"]["pattern"],
        "^[A-Z]{2}$"
    );
    assert_eq!(
        r.events[0]["extensions"]["ahp-elicit/schema-policy"],
        json!({
            "policy": "compatible",
            "outsideSubset": ["/properties/code/examples"]
        })
    );
}

/// At 2025-11-25 the SDK pushes the model as `ctx.elicit` renders it: its
/// top-level title and description included (read and listed as outside
/// the subset), the same answer reaching the tool.
#[test]
fn pydantic_model_form_at_2025_11_25_keeps_the_sdk_title() {
    let Some(py) = python() else { return };
    let dir = tempfile::tempdir().unwrap();
    let a = answers(
        dir.path(),
        &json!({"action": "accept", "content": {"name": "Ada", "course": 3, "code": "QQ", "nickname": "ada"}}),
    );
    let r = run_mcp(
        dir.path(),
        &[
            "--protocol",
            "2025-11-25",
            "--call",
            "book",
            "--answers",
            &a,
        ],
        &server(&py),
    );
    assert_eq!(r.code, 0, "stderr: {}", r.stderr);
    assert_eq!(
        r.tool_report()["received"],
        booking("Ada", 3, "QQ", Some("ada"))
    );
    let params = r.request_params();
    assert_eq!(params["requestedSchema"]["title"], "Booking");
    assert_eq!(
        params["requestedSchema"]["description"],
        "Book a table at the restaurant."
    );
    assert_eq!(
        r.events[0]["extensions"]["ahp-elicit/schema-policy"],
        json!({
            "policy": "compatible",
            "outsideSubset": ["/description", "/properties/code/examples", "/title"]
        })
    );
}

#[test]
fn pydantic_pattern_is_enforced_on_a_scripted_answer() {
    let Some(py) = python() else { return };
    let dir = tempfile::tempdir().unwrap();
    let a = answers(
        dir.path(),
        &json!({"action": "accept", "content": {"name": "Ada", "code": "q1"}}),
    );
    let r = run_mcp(
        dir.path(),
        &["--call", "book", "--answers", &a],
        &server(&py),
    );
    r.assert_said(1, "'code' must match the pattern ^[A-Z]{2}$");
}

#[test]
fn pydantic_plain_schema_with_a_nullable_field_is_answered() {
    let Some(py) = python() else { return };
    let dir = tempfile::tempdir().unwrap();
    // The nullable `nickname` left out: it is not sent (never null).
    let a = answers(
        dir.path(),
        &json!({"action": "accept", "content": {"name": "Bo", "course": 1, "code": "XY"}}),
    );
    let r = run_mcp(
        dir.path(),
        &["--call", "book_raw", "--answers", &a],
        &server(&py),
    );
    assert_eq!(r.code, 0, "stderr: {}", r.stderr);
    let report = r.tool_report();
    let mut want = booking("Bo", 1, "XY", None);
    want.as_object_mut().unwrap().remove("nickname");
    assert_eq!(report["received"], want);
    assert_eq!(report["validated"], booking("Bo", 1, "XY", None));
    let nickname = &r.request_params()["requestedSchema"]["properties"]["nickname"];
    assert_eq!(
        nickname["anyOf"],
        json!([{"type": "string"}, {"type": "null"}]),
        "the event keeps the params as sent"
    );
}

/// Under the strict policy the form is refused, the rule named. At
/// 2025-11-25 the server gets -32602 for its pushed request; at 2026-07-28
/// there is nothing to answer it with: the call ends with the server's
/// error, nothing answered.
#[test]
fn strict_policy_refuses_the_pydantic_form_naming_the_rule() {
    let Some(py) = python() else { return };
    for (protocol, says) in [
        ("2025-11-25", "-32602"),
        ("auto", "the server's error, nothing was answered"),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let r = run_mcp(
            dir.path(),
            &[
                "--protocol",
                protocol,
                "--schema-policy",
                "strict",
                "--call",
                "book",
                "--action",
                "accept",
            ],
            &server(&py),
        );
        r.assert_said(1, says);
        assert!(
            r.stderr
                .contains("[mcp-request/additionalProperties] 'enum' is not allowed here"),
            "{protocol}: stderr: {}",
            r.stderr
        );
        assert!(r.events.is_empty(), "no event for a refused request");
    }
}

#[test]
fn nested_model_is_not_a_form_decline_only() {
    let Some(py) = python() else { return };
    let dir = tempfile::tempdir().unwrap();
    let r = run_mcp(
        dir.path(),
        &["--call", "ship", "--action", "accept"],
        &server(&py),
    );
    assert_eq!(r.code, 1, "a scripted accept is refused: {}", r.stdout);
    assert!(
        r.stderr
            .contains("cannot accept a view that is not executable")
            && r.stderr.contains("/properties/address/$ref"),
        "stderr: {}",
        r.stderr
    );
    let r = run_mcp(
        dir.path(),
        &["--call", "ship", "--action", "decline"],
        &server(&py),
    );
    assert_eq!(r.code, 0, "stderr: {}", r.stderr);
    assert_eq!(r.tool_report()["action"], "decline");
    assert_eq!(
        r.events[0]["extensions"]["ahp-elicit/schema-policy"]["notAForm"],
        json!(["/properties/address/$ref: '$ref' is not followed: the field's shape is unknown"])
    );
}

fn start_tui(dir: &std::path::Path, tool: &str, py: &str) -> Tui {
    Tui::start_words(
        dir,
        (100, 40),
        ["mcp", "--call", tool, "--"]
            .iter()
            .map(|s| s.to_string())
            .chain(server(py)),
    )
}

#[test]
fn pydantic_form_is_filled_in_a_terminal() {
    let Some(py) = python() else { return };
    let dir = tempfile::tempdir().unwrap();
    let mut t = start_tui(dir.path(), "book", &py);
    t.wait_for("Book a table");
    t.wait_for("From the server's schema, not used on this form: examples of the field code.");
    t.wait_for("pattern ^[A-Z]{2}$");
    t.send("Ada Lovelace");
    // guests, seating, then the integer select: the next option is 3.
    t.send("\t");
    t.send("\t");
    t.send("\t");
    t.send("\x1b[B");
    t.send(" ");
    // code: a value the pattern refuses is marked once the field is left.
    t.send("\t");
    t.send("\x18");
    t.send("z9");
    t.press("\t", "must match the pattern ^[A-Z]{2}$");
    t.send("\x1b[Z");
    t.send("\x18");
    t.send("ZZ");
    t.send("\t");
    t.send("ada");
    t.submit();
    assert_eq!(t.finish(), 0, "stderr: {}", t.stderr());
    let out = std::fs::read_to_string(dir.path().join("out.json")).unwrap();
    let report = tool_report(&out);
    assert_eq!(
        report["received"],
        booking("Ada Lovelace", 3, "ZZ", Some("ada"))
    );
}

#[test]
fn nested_model_is_shown_as_not_a_form_in_a_terminal() {
    let Some(py) = python() else { return };
    let dir = tempfile::tempdir().unwrap();
    let mut t = start_tui(dir.path(), "ship", &py);
    t.wait_for("This request cannot be answered as a form.");
    t.wait_for("/properties/address/$ref: '$ref' is not followed");
    assert!(
        t.shows("[ Decline ]") && !t.shows("Submit"),
        "{}",
        t.screen()
    );
    t.send("\x04");
    assert_eq!(t.finish(), 0, "stderr: {}", t.stderr());
    let out = std::fs::read_to_string(dir.path().join("out.json")).unwrap();
    assert_eq!(tool_report(&out)["action"], "decline");
}

/// The request event `mcp --events` wrote for the SDK's form, read again
/// by `validate` (strict: invalid, the subset's rule named) and by
/// `respond` (strict by default: refused; compatible: answered and logged).
#[test]
fn the_sdk_request_event_is_strict_invalid_and_compatible_answerable() {
    let Some(py) = python() else { return };
    let dir = tempfile::tempdir().unwrap();
    let r = run_mcp(
        dir.path(),
        &["--call", "book", "--action", "decline"],
        &server(&py),
    );
    assert_eq!(r.code, 0, "stderr: {}", r.stderr);
    let req = dir.path().join("request.json");
    std::fs::write(&req, r.events[0].to_string()).unwrap();
    let run = |args: &[&str]| {
        let r = McpRun::of(&ahp_in(dir.path()).args(args).output().unwrap(), None);
        (r.code, r.stdout, r.stderr)
    };
    let req_s = req.display().to_string();
    let (code, out, err) = run(&["validate", &req_s]);
    assert_ne!(code, 0, "validate is strict: {out}{err}");
    assert!(
        (out.clone() + &err).contains(
            "/payload/elicitation/request/text#/requestedSchema/properties/code/examples [mcp-request/additionalProperties]"
        ),
        "{out}{err}"
    );
    let (code, _, err) = run(&["respond", "--action", "decline", &req_s]);
    assert_eq!(code, 1, "respond is strict by default: {err}");
    assert!(err.contains("invalid request, no result"), "{err}");

    let a = answers(
        dir.path(),
        &json!({"action": "accept", "content": {"name": "Ada"}}),
    );
    let log = dir.path().join("log.jsonl");
    let log_s = log.display().to_string();
    let (code, out, err) = run(&[
        "respond",
        "--schema-policy",
        "compatible",
        "--answers",
        &a,
        "--log",
        &log_s,
        &req_s,
    ]);
    assert_eq!(code, 0, "{err}");
    let result: Value = serde_json::from_str(out.trim()).unwrap();
    let text = result["payload"]["elicitation"]["result"]["text"]
        .as_str()
        .unwrap();
    assert_eq!(
        serde_json::from_str::<Value>(text).unwrap()["content"],
        json!({"name": "Ada", "guests": 2, "seating": "inside", "course": 2, "code": "AB", "vegetarian": false})
    );
    let records: Vec<Value> = std::fs::read_to_string(&log)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let note = records
        .iter()
        .find(|r| r["event"] == "schema-policy")
        .expect("a schema-policy record");
    assert_eq!(note["policy"], "compatible");
    assert_eq!(note["outsideSubset"], json!(["/properties/code/examples"]));
}

/// The server that asks with `ctx.elicit` as the SDKs' documentation shows
/// (`mcp`, or fastmcp with `--fastmcp`).
fn ctx_elicit_server(py: &str, fastmcp: bool) -> Vec<String> {
    let script = root().join("tests/servers/py_ctx_elicit_server.py");
    let mut s = vec![py.to_owned(), script.display().to_string()];
    if fastmcp {
        s.push("--fastmcp".into());
    }
    s
}

/// `ctx.elicit` cannot push its question on the auto-chosen 2026-07-28
/// session: the `mcp` SDK refuses the call (-32600), fastmcp reports an
/// `isError` result; both end with the same hint, and both work with
/// AHP_ELICIT_PROTOCOL set to 2025-11-25 (as with --protocol).
#[test]
fn ctx_elicit_of_both_sdks_gets_the_same_hint_and_runs_with_the_variable() {
    let Some(py) = python() else { return };
    let hint = "the tool asks in the MCP 2025-11-25 way (it pushes elicitation/create during the call), which an MCP 2026-07-28 session cannot carry: run it with --protocol 2025-11-25 (or set AHP_ELICIT_PROTOCOL=2025-11-25)";
    for fastmcp in [false, true] {
        let dir = tempfile::tempdir().unwrap();
        let server = ctx_elicit_server(&py, fastmcp);
        let r = run_mcp(
            dir.path(),
            &["--call", "book", "--action", "decline"],
            &server,
        );
        r.assert_said(1, hint);
        // The SDK's sentence is quoted without its full stop before ours.
        assert!(!r.stderr.contains(".;"), "fastmcp {fastmcp}: {}", r.stderr);
        let out = ahp_in(dir.path())
            .args(["mcp", "--call", "book", "--action", "decline", "--"])
            .args(&server)
            .env("AHP_ELICIT_PROTOCOL", "2025-11-25")
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "fastmcp {fastmcp}: {stderr}");
        let report = tool_report(&String::from_utf8_lossy(&out.stdout));
        assert_eq!(report, json!({"action": "decline", "name": null}));
    }
}

/// At a terminal the person is offered to run the call again over
/// 2025-11-25 (told the tool may run twice); the key `y` alone runs it
/// (in plain lines, `y` then Enter, as the prompt says), and the form
/// comes.
#[test]
fn ctx_elicit_at_a_terminal_offers_to_run_again_over_2025_11_25() {
    let Some(py) = python() else { return };
    for (fastmcp, plain) in [(false, false), (true, false), (false, true)] {
        let dir = tempfile::tempdir().unwrap();
        let flags: &[&str] = if plain {
            &["mcp", "--plain", "--call", "book", "--"]
        } else {
            &["mcp", "--call", "book", "--"]
        };
        let mut t = Tui::start_words(
            dir.path(),
            (100, 40),
            flags
                .iter()
                .map(|s| s.to_string())
                .chain(ctx_elicit_server(&py, fastmcp)),
        );
        t.wait_for("Run the call again over MCP 2025-11-25?");
        t.wait_for("The tool may run twice");
        if plain {
            t.wait_for("Type y and press Enter to run it again; anything else does not:");
            t.press("y\r", "Field 1 of 1: Name, required, text.");
            t.press("Ada\r", "Type send, edit N, decline, or cancel:");
            t.send("send\r");
            assert_eq!(t.finish_plain(), 0, "{}", t.stderr());
            let out = std::fs::read_to_string(dir.path().join("out.json")).unwrap();
            assert_eq!(
                tool_report(&out),
                json!({"action": "accept", "name": "Ada"})
            );
            continue;
        }
        t.wait_for("Press y to run it again, any other key not to:");
        // One key, no Enter.
        t.press("y", "Book a table");
        t.send("Ada");
        t.submit();
        assert_eq!(t.finish(), 0, "fastmcp {fastmcp}: {}", t.stderr());
        let out = std::fs::read_to_string(dir.path().join("out.json")).unwrap();
        assert_eq!(
            tool_report(&out),
            json!({"action": "accept", "name": "Ada"}),
            "fastmcp {fastmcp}"
        );
        assert!(
            t.stderr()
                .contains("running the call again over MCP 2025-11-25"),
            "{}",
            t.stderr()
        );
    }
}

/// Tried from the list, the tool of either SDK that asks the 2025-11-25
/// way gets the same hint on its result screen, with the offer to run the
/// call again over 2025-11-25 (saying the tool may run twice); `a` connects
/// again in that revision and runs the same call, whose form then comes and
/// whose answer reaches the tool; the list goes on in that revision.
#[test]
fn ctx_elicit_from_the_list_is_run_again_over_2025_11_25_on_request() {
    let Some(py) = python() else { return };
    for fastmcp in [false, true] {
        let dir = tempfile::tempdir().unwrap();
        let mut t = Tui::start_words(
            dir.path(),
            (120, 40),
            ["mcp", "--"]
                .iter()
                .map(|s| s.to_string())
                .chain(ctx_elicit_server(&py, fastmcp)),
        );
        t.wait_for("shown");
        t.press("book", "1 of 1 shown");
        t.press("\r", "Result of the tool 'book'");
        t.wait_for("Hint: the tool asks in the MCP 2025-11-25 way");
        t.wait_for("the tool may run twice (it has run once already)");
        t.wait_for("Press a to run it again over MCP 2025-11-25.");
        t.press("a", "Book a table");
        t.send("Ada");
        t.press("\x13", "Review");
        t.press("\r", "Result of the tool 'book'");
        t.wait_for(r#"{"action": "accept", "name": "Ada"}"#);
        // Over 2025-11-25 the call asked: nothing more is offered.
        assert!(!t.shows("Press a to run it again"), "{}", t.screen());
        t.send("q");
        assert_eq!(t.finish(), 0, "fastmcp {fastmcp}: {}", t.stderr());
        assert!(
            t.stderr()
                .contains("running the call again over MCP 2025-11-25"),
            "{}",
            t.stderr()
        );
    }
}

/// The same offer in plain mode: `again` runs the call again over
/// 2025-11-25 and its form is asked in lines.
#[test]
fn ctx_elicit_from_the_plain_list_is_run_again_over_2025_11_25() {
    let Some(py) = python() else { return };
    let dir = tempfile::tempdir().unwrap();
    let mut t = Tui::start_words(
        dir.path(),
        (120, 50),
        ["mcp", "--plain", "--"]
            .iter()
            .map(|s| s.to_string())
            .chain(ctx_elicit_server(&py, true)),
    );
    t.wait_for("Type a number or part of a name to pick one (q leaves):");
    t.press("book\r", "Result of the tool 'book'");
    t.wait_for("the tool may run twice (it has run once already)");
    t.wait_for("Type again to run it again over MCP 2025-11-25");
    t.press("again\r", "Message from the server: Book a table");
    t.press("Ada\r", "Type send, edit N, decline, or cancel:");
    t.press("send\r", r#"| {"action": "accept", "name": "Ada"}"#);
    t.wait_for("Press Enter to go back to the list (q leaves):");
    t.send("q\r");
    assert_eq!(t.finish_plain(), 0, "{}", t.stderr());
}
