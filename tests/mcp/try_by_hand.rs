//! Trying a server by hand: `ahp-elicit mcp -- SERVER` at a terminal with
//! no `--call`, in a real pseudo-terminal, against the Python SDK server
//! tests/servers/py_try_server.py. The person picks a tool by typing part
//! of its name, fills its arguments on the form (a bounded integer refused
//! out of range, then taken), reads the result, picks a tool that asks a
//! form during its call and answers it, and leaves the list with exit 0.
//! Every wait is for screen text or for the program to end.

#![cfg(unix)]

use crate::common;
use common::pty::*;
use common::sdk::{installed, root, start_http_env};

use serde_json::Value;

fn python() -> Option<String> {
    let py = root().join(".ci/sdk/venv/bin/python");
    installed("the Python MCP SDK", &py).then(|| py.display().to_string())
}

/// One session of `ahp-elicit mcp FLAGS -- PYTHON py_try_server.py` in a
/// pseudo-terminal: stdout goes to `out`, the server's tools write what
/// they received to `record`, and `log` is the `--log` file when asked.
struct Session {
    out: std::path::PathBuf,
    record: std::path::PathBuf,
    log: std::path::PathBuf,
    t: Tui,
}

/// Start a [`Session`] in `dir` on a `cols`x`rows` screen, with `flags`
/// (and `--log` when `log`) and `envs` besides the server's record file.
fn session(
    dir: &std::path::Path,
    py: &str,
    flags: &str,
    log: bool,
    envs: &[(&str, String)],
    (cols, rows): (u16, u16),
) -> Session {
    let out = dir.join("out.json");
    let record = dir.join("received.jsonl");
    let log_file = dir.join("run.log");
    let script = root().join("tests/servers/py_try_server.py");
    let log_flag = if log {
        format!(" --log '{}'", log_file.display())
    } else {
        String::new()
    };
    let args = format!("mcp {flags}{log_flag} -- '{py}' '{}'", script.display());
    let mut all = vec![("TRY_RECORD", record.display().to_string())];
    all.extend(envs.iter().cloned());
    let t = Tui::start_env(dir, &out, cols, rows, &args, &all);
    Session {
        out,
        record,
        log: log_file,
        t,
    }
}

/// Write the shell script `text` at `path`, executable (a stand-in
/// `$VISUAL`).
fn write_script(path: &std::path::Path, text: &str) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::write(path, text).expect("write the script");
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
}

/// What the server's tools received, one JSON object per call.
fn received(record: &std::path::Path) -> Vec<Value> {
    std::fs::read_to_string(record)
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON line"))
        .collect()
}

/// From the list: pick `book_table` by part of its name, see that its
/// form is the call's arguments, give a guest count out of range (refused)
/// then one that fits, call it and read its result; back on the list.
fn book_a_table(t: &mut Tui) {
    t.press("table", "1 of 7 shown");
    t.press("\r", "The arguments of the tool 'book_table'.");
    // The form says what it is: the call's arguments, called or left.
    t.wait_for("Arguments for tools/call book_table");
    t.wait_for("[ Call ]  [ Back ]");
    // The form's message is ours: not framed as the server's words.
    let screen = t.screen();
    assert!(!screen.contains("The server's message"), "{screen}");
    assert!(!screen.contains("not checked"), "{screen}");
    assert!(!screen.contains("request 1 of 1"), "{screen}");
    assert!(!screen.contains("Decline"), "{screen}");
    // City, then Guests out of range: refused.
    t.send("Paris");
    t.send("\t");
    t.press("99", "[99");
    t.press("\u{13}", "must be at most 12");
    assert!(!t.shows("Review"), "{}", t.screen());
    t.send("\u{7f}\u{7f}4");
    t.submit();
    t.wait_for("Result of the tool 'book_table'");
    t.wait_for(r#""guests": 4"#);
    t.wait_for("Structured content:");
    // The SDK declares an outputSchema for the tool's text result.
    t.wait_for("The structured content fits the tool's outputSchema.");
    t.press("\r", "7 of 7 shown");
}

/// The whole loop in one run, in the revision `protocol` asks for.
fn pick_fill_call_answer_and_leave(protocol: &str) {
    let Some(py) = python() else { return };
    let dir = tempfile::tempdir().expect("tempdir");
    let Session {
        out,
        record,
        log,
        mut t,
    } = session(dir.path(), &py, protocol, true, &[], (100, 30));
    t.wait_for("The server's tools, prompts and resources: 7 of 7 shown");
    t.wait_for("book_table — Book a table in a city.");
    // Typing part of a name narrows the list.
    t.press("mood", "1 of 7 shown");
    t.press("\u{7f}\u{7f}\u{7f}\u{7f}", "7 of 7 shown");
    book_a_table(&mut t);
    // A tool without arguments is called at once; its form is answered on
    // the same screen.
    t.press("survey", "1 of 7 shown");
    t.press("\r", "How was it?");
    t.send("4");
    t.submit();
    t.wait_for("Result of the tool 'ask_survey'");
    t.wait_for(r#""rating": 4"#);
    t.press("\r", "7 of 7 shown");
    // An enum argument is a select.
    t.press("mood", "1 of 7 shown");
    t.press("\r", "The arguments of the tool 'set_mood'.");
    // calm, busy, wild: the third.
    t.send("\u{1b}[B");
    t.send("\u{1b}[B");
    t.send(" ");
    t.submit();
    t.wait_for("Result of the tool 'set_mood'");
    t.wait_for(r#"{"mood": "wild"}"#);
    t.press("\r", "7 of 7 shown");
    // The list starts on the last tool picked; a tool picked again starts
    // with the arguments last sent to it.
    t.press("table", "1 of 7 shown");
    t.press("\r", "[Paris");
    t.wait_for("[4 ");
    t.press("\u{1b}", "7 of 7 shown");
    // A prompt: its argument asked as a form, its messages shown.
    t.press("greet", "1 of 7 shown");
    t.wait_for("[prompt, arguments]");
    t.press("\r", "The arguments of the prompt 'greeting'.");
    t.send("Ada");
    t.submit();
    t.wait_for("Result of the prompt 'greeting'");
    t.wait_for("Hello, Ada");
    t.press("\r", "7 of 7 shown");
    // A resource: read at once, its contents shown.
    t.press("menu", "1 of 7 shown");
    t.press("\r", "Result of the resource 'menu'");
    t.wait_for("Soup of the day");
    t.press("\r", "7 of 7 shown");
    t.send("q");
    assert_eq!(t.finish(), 0, "{}", t.stderr());
    // Nothing is printed after the list is left.
    assert_eq!(std::fs::read_to_string(&out).expect("stdout"), "");
    let got = received(&record);
    assert_eq!(got.len(), 3, "{got:?}");
    assert_eq!(got[0]["tool"], "book_table");
    assert_eq!(
        got[0]["received"],
        serde_json::json!({"city": "Paris", "guests": 4, "terrace": false})
    );
    assert_eq!(got[1]["tool"], "ask_survey");
    assert_eq!(got[1]["received"]["action"], "accept");
    assert_eq!(got[1]["received"]["content"]["rating"], 4);
    assert_eq!(got[2]["received"], serde_json::json!({"mood": "wild"}));
    // --log names each call and its arguments, never their values.
    let text = std::fs::read_to_string(&log).expect("log");
    assert!(!text.contains("Paris"), "{text}");
    assert!(!text.contains("Ada"), "{text}");
    assert_eq!(
        calls_logged(&text),
        [
            (
                "tool-called",
                "book_table".into(),
                serde_json::json!(["city", "guests", "terrace"])
            ),
            ("tool-called", "ask_survey".into(), serde_json::json!([])),
            (
                "tool-called",
                "set_mood".into(),
                serde_json::json!(["mood"])
            ),
            ("prompt-got", "greeting".into(), serde_json::json!(["name"])),
            ("resource-read", "menu".into(), serde_json::json!([])),
        ]
    );
}

/// The calls `--log` recorded (its text): the event, what was called
/// (the tool, prompt or resource) and the argument names.
fn calls_logged(text: &str) -> Vec<(&'static str, String, Value)> {
    let mut calls = Vec::new();
    for r in text
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).expect("JSON line"))
    {
        for (event, key) in [
            ("tool-called", "tool"),
            ("prompt-got", "prompt"),
            ("resource-read", "resource"),
        ] {
            if r["event"] == event {
                let name = r[key].as_str().unwrap_or("").to_owned();
                calls.push((event, name, r["fields"].clone()));
            }
        }
    }
    calls
}

/// At 2026-07-28 (what the server chooses when asked): the form comes in
/// an `input_required` round.
#[test]
fn a_person_tries_each_tool_from_the_list_in_2026_07_28() {
    pick_fill_call_answer_and_leave("");
}

/// At 2025-11-25: the form is pushed as `elicitation/create` during the
/// call.
#[test]
fn a_person_tries_each_tool_from_the_list_in_2025_11_25() {
    pick_fill_call_answer_and_leave("--protocol 2025-11-25");
}

/// A tool whose argument the form cannot draw (a nested object through
/// `$ref`): the form asks the rest and names it as left out; then the
/// arguments are edited as JSON in `$VISUAL` (a stand-in script here). An
/// edit that does not fit the `inputSchema` is refused, naming the JSON
/// pointer; Enter edits again, and the arguments that fit are sent.
#[test]
fn a_nested_argument_is_edited_as_json_and_checked_before_the_call() {
    let Some(py) = python() else { return };
    let dir = tempfile::tempdir().expect("tempdir");
    let editor = dir.path().join("editor.sh");
    let count = dir.path().join("edits");
    // First edit: the address lacks its city; second: whole.
    write_script(
        &editor,
        &format!(
            "#!/bin/sh\n\
             echo x >> '{count}'\n\
             if [ \"$(wc -l < '{count}')\" -eq 1 ]; then\n\
             printf '%s' '{{\"recipient\": \"Ada\", \"address\": {{\"street\": \"1 Main St\"}}}}' > \"$1\"\n\
             else\n\
             printf '%s' '{{\"recipient\": \"Ada\", \"address\": {{\"street\": \"1 Main St\", \"city\": \"Oslo\"}}}}' > \"$1\"\n\
             fi\n",
            count = count.display()
        ),
    );
    let envs = [("VISUAL", editor.display().to_string())];
    let Session { record, mut t, .. } = session(dir.path(), &py, "", false, &envs, (100, 30));
    t.wait_for("7 of 7 shown");
    t.press("parcel", "1 of 7 shown");
    t.send("\r");
    // The message is framed and wrapped: its start stands on one row.
    t.wait_for("Left out, as this form cannot draw them: address");
    t.send("Ada");
    // The review does not claim to hold every argument: the editor, with
    // all of them, comes next, and the call after it.
    t.press(
        "\u{13}",
        "Next, your editor for what the form cannot show ('address'),",
    );
    t.wait_for("[ Next ]  [ Back ]");
    t.send("\r");
    t.wait_for("The arguments of the tool 'ship_parcel' were not taken:");
    t.wait_for(r#"/address: "city" is a required property"#);
    t.press("\r", "Result of the tool 'ship_parcel'");
    t.wait_for(r#""city": "Oslo""#);
    t.press("\r", "7 of 7 shown");
    t.send("q");
    assert_eq!(t.finish(), 0, "{}", t.stderr());
    let got = received(&record);
    assert_eq!(got.len(), 1, "{got:?}");
    assert_eq!(
        got[0]["received"],
        serde_json::json!({"recipient": "Ada", "address": {"street": "1 Main St", "city": "Oslo"}})
    );
}

/// Ctrl-C on the list: the first does nothing but arm the quit, a second
/// within the window quits the run (exit 130), as on every screen; nothing
/// is printed and the server is not called.
#[test]
fn ctrl_c_twice_on_the_list_quits_with_130() {
    let Some(py) = python() else { return };
    let dir = tempfile::tempdir().expect("tempdir");
    let Session {
        out, record, mut t, ..
    } = session(dir.path(), &py, "", false, &[], (100, 30));
    t.wait_for("7 of 7 shown");
    t.send("\u{3}");
    t.send("\u{3}");
    assert_eq!(t.finish(), 130, "{}", t.stderr());
    assert_eq!(std::fs::read_to_string(&out).expect("stdout"), "");
    assert!(received(&record).is_empty());
    assert!(t.stderr().contains("the run was quit"), "{}", t.stderr());
}

/// Wait (a safety net against a hang only) until the record file holds
/// `n` lines; returns them.
fn wait_for_records(record: &std::path::Path, n: usize) -> Vec<Value> {
    common::wait_ok(PATIENCE, || {
        let got = received(record);
        if got.len() >= n {
            Ok(got)
        } else {
            Err(format!("{n} record(s) awaited: {got:?}"))
        }
    })
}

/// While a picked tool runs, its waiting screen shows what the server
/// reports (progress, and at 2025-11-25 its log line), and Esc cancels the
/// call: the server's tool sees the cancellation, the person is back on the
/// list, and the session goes on.
fn esc_cancels_a_call_in_progress(protocol: &str, logs: bool) {
    let Some(py) = python() else { return };
    let dir = tempfile::tempdir().expect("tempdir");
    let Session {
        record, log, mut t, ..
    } = session(dir.path(), &py, protocol, true, &[], (100, 30));
    t.wait_for("7 of 7 shown");
    t.press("slow", "1 of 7 shown");
    t.press("\r", "Calling the tool 'slow'…");
    t.wait_for("Esc: cancel the call");
    t.wait_for("Progress 1/3: warming up");
    if logs {
        t.wait_for("Log [info]: still working");
    }
    t.press("\u{1b}", "7 of 7 shown");
    t.wait_for("Cancelled the call of the tool 'slow'.");
    let got = wait_for_records(&record, 1);
    assert_eq!(
        got,
        [serde_json::json!({"tool": "slow", "received": {"cancelled": true}})]
    );
    // The session goes on: another tool is called and answers.
    t.press("mood", "1 of 7 shown");
    t.press("\r", "The arguments of the tool 'set_mood'.");
    t.send(" ");
    t.submit();
    t.wait_for(r#"{"mood": "calm"}"#);
    t.send("q");
    assert_eq!(t.finish(), 0, "{}", t.stderr());
    assert_eq!(wait_for_records(&record, 2).len(), 2);
    // Nothing about an answer nobody waited for.
    assert!(!t.stderr().contains("unknown request id"), "{}", t.stderr());
    // --log says the first call was cancelled, the second answered.
    let logged: Vec<Value> = std::fs::read_to_string(&log)
        .expect("log")
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).expect("JSON line"))
        .filter(|r| r["event"] == "tool-called")
        .collect();
    assert_eq!(logged.len(), 2, "{logged:?}");
    assert_eq!(logged[0]["tool"], "slow");
    assert_eq!(logged[0]["cancelled"], true);
    assert_eq!(logged[0].get("isError"), None);
    assert_eq!(logged[1]["tool"], "set_mood");
    assert_eq!(logged[1]["isError"], false);
    assert_eq!(logged[1].get("cancelled"), None);
}

#[test]
fn esc_cancels_a_call_in_progress_in_2026_07_28() {
    // The SDK sends no log notification at 2026-07-28 (logging is gone).
    esc_cancels_a_call_in_progress("", false);
}

#[test]
fn esc_cancels_a_call_in_progress_in_2025_11_25() {
    esc_cancels_a_call_in_progress("--protocol 2025-11-25", true);
}

/// Over Streamable HTTP at 2026-07-28 (which defines no cancel
/// notification there), Esc on a picked call gives the call up: the list
/// comes back at once, the call's response stream is closed at once (the
/// tool writes nothing more, and the SDK server's tool sees the
/// cancellation while the list is shown), `--log` records the call as
/// cancelled, and the next call of the session is answered.
#[test]
fn esc_cancels_a_call_over_streamable_http_in_2026_07_28() {
    let Some(py) = python() else { return };
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("out.json");
    let record = dir.path().join("received.jsonl");
    let script = root().join("tests/servers/py_try_server.py");
    let argv = [py, script.display().to_string(), "--http".to_owned()];
    let http = start_http_env(&argv, &[("TRY_RECORD", record.display().to_string())]);
    let log = dir.path().join("run.log");
    let args = format!("mcp --log '{}' '{}'", log.display(), http.url);
    let mut t = Tui::start(dir.path(), &out, 100, 30, &args);
    t.wait_for("7 of 7 shown");
    t.press("slow", "1 of 7 shown");
    t.press("\r", "Calling the tool 'slow'…");
    t.wait_for("Progress 1/3: warming up");
    t.press("\u{1b}", "7 of 7 shown");
    // The response stream is closed at once, though the tool writes
    // nothing more: the cancellation reaches it while the list is shown,
    // before anything else is called.
    let first = wait_for_records(&record, 1);
    assert_eq!(
        first,
        vec![serde_json::json!({"tool": "slow", "received": {"cancelled": true}})]
    );
    t.press("mood", "1 of 7 shown");
    t.press("\r", "Arguments for tools/call set_mood");
    t.send(" ");
    t.submit();
    t.wait_for(r#"{"mood": "calm"}"#);
    t.send("q");
    assert_eq!(t.finish(), 0, "{}", t.stderr());
    assert!(t.stderr().contains("(MCP 2026-07-28)"), "{}", t.stderr());
    // In either order: the cancellation may reach the tool before the
    // next call or with the session's end.
    let got = wait_for_records(&record, 2);
    assert!(
        got.contains(&serde_json::json!({"tool": "set_mood", "received": {"mood": "calm"}})),
        "{got:?}"
    );
    assert!(
        got.contains(&serde_json::json!({"tool": "slow", "received": {"cancelled": true}})),
        "{got:?}"
    );
    let text = std::fs::read_to_string(&log).expect("log");
    assert!(text.contains(r#""tool":"slow""#), "{text}");
    assert!(text.contains(r#""cancelled":true"#), "{text}");
}

/// A server that answers a call after the person cancelled it (the fake
/// server's case "late"): it got `notifications/cancelled` with the call's
/// request id, and its late answer is dropped without a word; the next
/// call (a form asked during it, cancelled) is answered as usual.
#[test]
fn an_answer_after_the_cancel_is_dropped() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("out.json");
    let record = dir.path().join("fake.jsonl");
    let server = root().join("tests/mcp_fake_server.py");
    let args = format!("mcp -- python3 '{}'", server.display());
    let envs = [("FAKE_RECORD", record.display().to_string())];
    let mut t = Tui::start_env(dir.path(), &out, 100, 30, &args, &envs);
    t.wait_for("2 of 2 shown");
    t.press("probe", "1 of 2 shown");
    t.press("\r", "The arguments of the tool 'probe'.");
    t.press("late", "[late");
    t.submit();
    t.wait_for("Progress 1: working");
    t.press("\u{1b}", "2 of 2 shown");
    t.press("probe", "1 of 2 shown");
    t.press("\r", "[late");
    t.press("\u{7f}\u{7f}\u{7f}\u{7f}required", "[required");
    t.submit();
    // The form the call asks names the call with the arguments it was
    // made with (not those of --args).
    t.wait_for(r#"Asked during: tools/call probe {"case":"required"}"#);
    t.press("\u{1b}", "Result of the tool 'probe'");
    t.send("q");
    assert_eq!(t.finish(), 0, "{}", t.stderr());
    let sent = common::json_lines(&record);
    let call = sent
        .iter()
        .find(|m| m["method"] == "tools/call" && m["params"]["arguments"]["case"] == "late")
        .expect("the call");
    let cancel = sent
        .iter()
        .find(|m| m["method"] == "notifications/cancelled")
        .expect("the cancellation");
    assert_eq!(cancel["params"]["requestId"], call["id"]);
    assert_eq!(cancel["params"]["reason"], "cancelled by the person");
    assert!(!t.stderr().contains("unknown request id"), "{}", t.stderr());
}

/// The same loop in plain lines (`--plain`): numbered choices picked by
/// part of a name, one question per argument (a bounded integer refused
/// out of range), the review, the result in lines, a call cancelled with
/// Control-C while the server's progress is said, a form asked during a
/// call answered in lines, then `q` with exit 0; no escape sequence is
/// ever written.
#[test]
fn the_plain_loop_picks_asks_calls_cancels_and_leaves() {
    let Some(py) = python() else { return };
    let dir = tempfile::tempdir().expect("tempdir");
    let Session {
        out,
        record,
        log,
        mut t,
    } = session(dir.path(), &py, "--plain", true, &[], (120, 60));
    t.wait_for("The server's tools, prompts and resources: 7.");
    t.wait_for("1. book_table — Book a table in a city. [arguments]");
    t.wait_for("7. menu — menu://today [resource]");
    t.wait_for("Type a number or part of a name to pick one (q leaves):");
    // Several match: said with their numbers, nothing is called.
    t.press("s\r", "entries match \"s\":");
    t.press("table\r", "Arguments for tools/call book_table.");
    t.wait_for("The arguments of the tool 'book_table'.");
    t.wait_for("3 arguments to give, 2 required.");
    t.wait_for("Field 1 of 3: City, required, text.");
    t.press(
        "Paris\r",
        "Field 2 of 3: Guests, required, whole number from 1 to 12.",
    );
    t.press("99\r", "Not accepted:");
    t.press("4\r", "Field 3 of 3: Terrace, optional, yes or no.");
    t.press(
        "\r",
        "Review: the call is made with exactly these arguments.",
    );
    t.wait_for("2. Guests: 4.");
    t.wait_for("Type call, edit N, or back:");
    t.press("call\r", "Result of the tool 'book_table'");
    t.wait_for(
        r#"| {"received": {"city": "Paris", "guests": 4, "terrace": false}, "tool": "book_table"}"#,
    );
    t.wait_for("Press Enter to go back to the list (q leaves):");
    t.press("\r", "Picked last: 1.");
    // A call cancelled with Control-C while it says how it goes.
    t.press(
        "slow\r",
        "Calling the tool 'slow'… Control-C cancels the call.",
    );
    t.wait_for("The server reports: Progress 1/3: warming up");
    t.press("\u{3}", "Cancelling the call: back to the list.");
    t.wait_for("Picked last: 5.");
    let got = wait_for_records(&record, 2);
    assert_eq!(
        got[1],
        serde_json::json!({"tool": "slow", "received": {"cancelled": true}})
    );
    // A form asked during the call, answered in lines.
    t.press("survey\r", "Asked during: tools/call ask_survey {}");
    t.wait_for("Field 1 of 2: Rating, required, whole number from 1 to 5.");
    t.press("5\r", "Field 2 of 2: Comment, optional, text.");
    t.press("\r", "Type send, edit N, decline, or cancel:");
    t.press("send\r", "Result of the tool 'ask_survey'");
    t.wait_for("Press Enter to go back to the list (q leaves):");
    t.press("\r", "Picked last: 2.");
    t.send("q\r");
    assert_eq!(t.finish_plain(), 0, "{}", t.stderr());
    assert_eq!(std::fs::read_to_string(&out).expect("stdout"), "");
    let got = received(&record);
    assert_eq!(got.len(), 3, "{got:?}");
    assert_eq!(got[2]["received"]["content"]["rating"], 5);
    // --log: the cancelled call too.
    let text = std::fs::read_to_string(&log).expect("log");
    let slow: Value = text
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).expect("JSON line"))
        .find(|r| r["tool"] == "slow")
        .expect("slow logged");
    assert_eq!(slow["event"], "tool-called");
    assert_eq!(slow["cancelled"], true);
    assert_eq!(
        calls_logged(&text).len(),
        3,
        "book_table, slow, ask_survey: {text}"
    );
}

/// Ctrl-O on the arguments form, at any time: the whole arguments as
/// entered so far open as JSON in `$VISUAL` (a stand-in script here, in a
/// temporary directory of the test's); arguments that do not fit the
/// inputSchema are refused naming the JSON pointer, Enter edits them
/// again, and those that fit are sent; the editor's file is gone after.
#[test]
fn ctrl_o_edits_the_whole_arguments_as_json() {
    let Some(py) = python() else { return };
    let dir = tempfile::tempdir().expect("tempdir");
    let tmp = dir.path().join("tmp");
    std::fs::create_dir(&tmp).expect("tmp");
    let editor = dir.path().join("editor.sh");
    let seen = dir.path().join("seen.json");
    // First edit: keeps what it was given, and 40 guests; second: fits.
    write_script(
        &editor,
        &format!(
            "#!/bin/sh\n\
             if [ ! -e '{seen}' ]; then\n\
             cp \"$1\" '{seen}'\n\
             printf '%s' '{{\"city\": \"Paris\", \"guests\": 40}}' > \"$1\"\n\
             else\n\
             printf '%s' '{{\"city\": \"Oslo\", \"guests\": 3, \"terrace\": true}}' > \"$1\"\n\
             fi\n",
            seen = seen.display()
        ),
    );
    let envs = [
        ("VISUAL", editor.display().to_string()),
        ("TMPDIR", tmp.display().to_string()),
    ];
    let Session { record, mut t, .. } = session(dir.path(), &py, "", false, &envs, (100, 30));
    t.wait_for("7 of 7 shown");
    t.press("table", "1 of 7 shown");
    t.press("\r", "The arguments of the tool 'book_table'.");
    t.wait_for("^O JSON");
    t.press("Paris", "[Paris");
    t.press(
        "\u{f}",
        "The arguments of the tool 'book_table' were not taken:",
    );
    t.wait_for("/guests: 40 is greater than the maximum of 12");
    t.press("\r", "Result of the tool 'book_table'");
    t.wait_for(r#""city": "Oslo""#);
    t.press("\r", "7 of 7 shown");
    t.send("q");
    assert_eq!(t.finish(), 0, "{}", t.stderr());
    // The editor got what the form held: the city typed, the default of
    // the boolean; nothing for the guests not yet given.
    let given: Value =
        serde_json::from_str(&std::fs::read_to_string(&seen).expect("seen")).expect("JSON");
    assert_eq!(
        given,
        serde_json::json!({"city": "Paris", "terrace": false})
    );
    let got = received(&record);
    assert_eq!(got.len(), 1, "{got:?}");
    assert_eq!(
        got[0]["received"],
        serde_json::json!({"city": "Oslo", "guests": 3, "terrace": true})
    );
    let left: Vec<_> = std::fs::read_dir(&tmp).expect("tmp").collect();
    assert!(left.is_empty(), "{left:?}");
}

/// A successful result may carry members of the server's own (the fake
/// server's case "extra-member" answers `{"content": [{"type": "text",
/// "text": "fine"}], "error": "not really"}`): the result is shown as the
/// server sent it, its content under the heading, never as a failed call;
/// `--log` records the call as answered (`isError` false), not as failed.
/// A result with `isError` is not checked against the tool's
/// `outputSchema` (the shape of a successful result): its structured
/// content is shown, with no sentence about fitting.
#[test]
fn an_is_error_result_is_not_checked_against_the_output_schema() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("out.json");
    let server = root().join("tests/mcp_fake_server.py");
    let args = format!(
        "mcp --plain -- python3 '{}' --checked-tool",
        server.display()
    );
    let mut t = Tui::start_env(dir.path(), &out, 120, 40, &args, &[]);
    t.wait_for("Type a number or part of a name to pick one (q leaves):");
    t.press("checked\r", "Result of the tool 'checked'");
    t.wait_for("Press Enter to go back to the list (q leaves):");
    let screen = t.screen();
    assert!(screen.contains("isError: true"), "{screen}");
    assert!(screen.contains("closed"), "{screen}");
    assert!(!screen.contains("outputSchema"), "{screen}");
    t.send("q\r");
    assert_eq!(t.finish_plain(), 0, "{}", t.stderr());
}

#[test]
fn a_result_with_an_error_member_of_its_own_is_shown_as_a_result() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("out.json");
    let log = dir.path().join("run.log");
    let server = root().join("tests/mcp_fake_server.py");
    let args = format!(
        "mcp --plain --log '{}' -- python3 '{}'",
        log.display(),
        server.display()
    );
    let mut t = Tui::start_env(dir.path(), &out, 120, 40, &args, &[]);
    t.wait_for("Type a number or part of a name to pick one (q leaves):");
    t.press("probe\r", "Field 1 of 1:");
    t.press("extra-member\r", "Type call, edit N, or back:");
    t.press("call\r", "Result of the tool 'probe'");
    t.wait_for("Press Enter to go back to the list (q leaves):");
    let screen = t.screen();
    assert!(screen.contains("Content: 1 block(s)"), "{screen}");
    assert!(screen.contains("| fine"), "{screen}");
    assert!(!screen.contains("The call failed"), "{screen}");
    t.send("q\r");
    assert_eq!(t.finish_plain(), 0, "{}", t.stderr());
    let text = std::fs::read_to_string(&log).expect("log");
    let probe: Value = text
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).expect("JSON line"))
        .find(|r| r["event"] == "tool-called")
        .expect("the call logged");
    assert_eq!(probe["tool"], "probe", "{text}");
    assert_eq!(probe["isError"], false, "{text}");
    assert_eq!(probe.get("error"), None, "{text}");
}
