//! The protocol view of a session tried by hand, in a real pseudo-terminal,
//! against the Python SDK server tests/servers/py_try_server.py at
//! 2025-11-25 (its form comes as a pushed `elicitation/create`): Ctrl-P
//! from the list shows every JSON-RPC message (`tools/list` among them),
//! Enter opens a body as pretty JSON, `w` saves the trace as JSON lines to
//! the file typed; Ctrl-P over the call's elicitation form and back leaves
//! what was typed in it; `s` puts the trace beside the form (150 columns),
//! where the keys still go to the form. Every wait is for screen text or
//! for the program to end.

#![cfg(unix)]

use crate::common;
use common::pty::*;
use common::sdk::{installed, root};

use serde_json::{json, Value};

/// Ctrl-P as the terminal sends it.
const CTRL_P: &str = "\u{10}";

#[test]
fn the_protocol_view_opens_from_the_list_and_over_a_form_and_saves_the_trace() {
    let py = root().join(".ci/sdk/venv/bin/python");
    if !installed("the Python MCP SDK", &py) {
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("out.json");
    let saved = dir.path().join("trace.jsonl");
    let script = root().join("tests/servers/py_try_server.py");
    let args = format!(
        "mcp --protocol 2025-11-25 -- '{}' '{}'",
        py.display(),
        script.display()
    );
    let record = dir.path().join("received.jsonl");
    let envs = [("TRY_RECORD", record.display().to_string())];
    let mut t = Tui::start_env(dir.path(), &out, 150, 32, &args, &envs);
    t.wait_for("The server's tools, prompts and resources: 7 of 7 shown");

    // From the list: every message so far, the list's request and answer.
    t.press(CTRL_P, "Protocol: ");
    t.wait_for("following");
    t.wait_for("request tools/list #2");
    t.wait_for("result tools/list #2");
    // The first message's body, as pretty JSON.
    t.send("\u{1b}[H");
    t.press("\r", "Message 1:");
    t.wait_for(r#""method": "initialize","#);
    t.wait_for(r#""protocolVersion": "2025-11-25""#);
    t.press("\u{1b}", "Protocol: ");
    // Too narrow for the trace beside the screen: said, the view stays.
    t.resize_marker(120, 32);
    t.press(
        "s",
        "The trace goes beside the screen from 140 columns; this terminal has 120.",
    );
    t.resize_marker(150, 32);
    // w asks where; the file typed gets the trace as JSON lines.
    t.press("w", "Save the trace to:");
    t.send("\u{15}");
    t.send(&saved.display().to_string());
    t.press("\r", "Saved ");
    let lines: Vec<Value> = std::fs::read_to_string(&saved)
        .expect("the saved trace")
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect();
    let asked = lines
        .iter()
        .find(|l| l["method"] == "tools/list" && l["direction"] == "out")
        .expect("tools/list sent");
    assert_eq!(asked["outcome"], "request");
    let listed = lines
        .iter()
        .find(|l| l["method"] == "tools/list" && l["direction"] == "in")
        .expect("tools/list answered");
    assert_eq!(listed["outcome"], "result");
    assert_eq!(listed["id"], asked["id"]);
    let names: Vec<&Value> = listed["message"]["result"]["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .map(|t| &t["name"])
        .collect();
    assert!(names.contains(&&json!("book_table")), "{names:?}");
    assert_eq!(lines[0]["n"], 1);
    assert_eq!(lines[0]["method"], "initialize");
    // Back to the list as it was.
    t.press(CTRL_P, "7 of 7 shown");

    // A call that asks a form: the view over it, and back to what was
    // typed.
    t.press("survey", "1 of 7 shown");
    t.press("\r", "How was it?");
    t.send("4");
    t.send("\t");
    t.press("lovely soup", "lovely soup");
    t.press(CTRL_P, "Protocol: ");
    t.wait_for("request elicitation/create");
    assert!(!t.shows("lovely soup"), "{}", t.screen());
    t.press(CTRL_P, "lovely soup");
    t.wait_for("How was it?");
    // s: the trace beside the form, which keeps the keys.
    t.press(CTRL_P, "Protocol: ");
    t.press("s", "Protocol · Ctrl-P");
    t.wait_for("lovely soup");
    t.wait_for("elicitation/create");
    t.press(" today", "lovely soup today");
    t.submit();
    t.wait_for("Result of the tool 'ask_survey'");
    t.wait_for("lovely soup today");
    // The answer is in the trace beside the result.
    t.wait_for("elicitation/create #");
    t.press("\r", "7 of 7 shown");
    t.send("q");
    assert_eq!(t.finish(), 0, "{}", t.stderr());
    let got: Vec<Value> = std::fs::read_to_string(&record)
        .expect("record")
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON line"))
        .collect();
    assert_eq!(
        got[0]["received"]["content"]["comment"],
        "lovely soup today"
    );
    assert_eq!(got[0]["received"]["content"]["rating"], 4);
}
