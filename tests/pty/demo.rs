//! End to end in a real pseudo-terminal:
//! `ahp-elicit demo` with stdout redirected to a file, so the UI must draw on
//! `/dev/tty` the way `respond` does in a pipeline. The pty size is set
//! before the program starts (a 0x0 pty draws nothing).
//!
//! Runs go through the shared harness ([`Tui`]); keys are sent as the
//! bytes arrive from a terminal, at once, after the screen was read. The
//! timeouts are only a safety net against a hang; nothing here measures
//! time.

#![cfg(unix)]

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use expectrl::{Eof, Expect, Session};
use serde_json::{json, Value};

use crate::common::pty::Tui;
use crate::common::BIN;

/// `ahp-elicit demo ARGS > out` in a `cols`x`rows` pty ([`Tui::start`]).
fn start(dir: &Path, out: &Path, cols: u16, rows: u16, args: &str) -> Tui {
    Tui::start(dir, out, cols, rows, &format!("demo {args}"))
}

/// Send `keys` at once, as a terminal sends them (no pacing).
fn send(t: &mut Tui, keys: &str) {
    t.s.send(keys).expect("send keys");
}

/// Wait for the end; the terminal was given back and the restore was the
/// last thing written ([`Tui::finish_restored_last`]).
fn finish(t: &mut Tui) {
    let _ = t.finish_restored_last();
}

/// `ahp-elicit demo ARGS > out` as the pty's own process (`exec`), so the
/// test reads the program's own exit status (exited with a code, not
/// killed by the signal).
fn start_exec(out: &Path, cols: u16, rows: u16, args: &str) -> expectrl::session::OsSession {
    let mut cmd = Command::new("sh");
    cmd.arg("-c").arg(format!(
        "stty rows {rows} cols {cols} && exec '{BIN}' demo {args} > '{}'",
        out.display()
    ));
    cmd.env("TERM", "xterm-256color");
    cmd.env_remove("NO_COLOR");
    let mut s = Session::spawn(cmd).expect("spawn in a pty");
    let _ = s.get_process_mut().set_window_size(cols, rows);
    s.set_expect_timeout(Some(Duration::from_secs(30)));
    s
}

/// Wait for the end of the program; returns everything it drew.
fn finish_exec(s: &mut expectrl::session::OsSession) -> String {
    let m = s.expect(Eof).expect("program ends");
    // Eof matches the whole rest of the stream.
    String::from_utf8_lossy(m.get(0).unwrap_or_default()).into_owned()
}

/// The one result event written to `out`, with its parsed ElicitResult.
fn result(out: &Path) -> (Value, Value) {
    let text = std::fs::read_to_string(out).expect("output file");
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 1, "exactly one result line, got {text:?}");
    let ev: Value = serde_json::from_str(lines[0]).expect("json line");
    let inner: Value = serde_json::from_str(
        ev["payload"]["elicitation"]["result"]["text"]
            .as_str()
            .expect("text part"),
    )
    .expect("result text");
    (ev, inner)
}

/// `drawn` is the output after the last match, so the alternate screen was
/// entered before it; what matters is that it is left at the end.
fn assert_restored(drawn: &str) {
    assert!(drawn.contains("\u{1b}[?1049l"), "left the alternate screen");
    assert!(
        drawn.contains("\u{1b}[?2004l"),
        "bracketed paste disabled again"
    );
    // The restore is the last thing written: nothing is drawn over the
    // normal screen after leaving the alternate screen.
    let at = drawn.rfind("\u{1b}[?1049l").unwrap_or_default();
    assert_eq!(
        &drawn[at + "\u{1b}[?1049l".len()..],
        "\u{1b}[?25h",
        "nothing but the restore after leaving the alternate screen"
    );
}

#[test]
fn demo_filled_and_submitted() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("out.jsonl");
    let mut t = start(dir.path(), &out, 80, 24, "");
    t.wait_for("request 1 of 1");
    t.pace();
    send(&mut t, "Ada Example");
    send(&mut t, "\t");
    send(&mut t, "ada@example.com");
    // Paste a homepage with bracketed paste.
    send(&mut t, "\t\u{1b}[200~https://ada.example/\u{1b}[201~");
    // Tab to languages (fields 4..11), add "go".
    for _ in 0..9 {
        send(&mut t, "\t");
    }
    t.wait_for("choose 1 to 3");
    send(&mut t, "\u{1b}[B");
    send(&mut t, " ");
    send(&mut t, "\u{13}");
    t.wait_for("Review");
    t.pace();
    send(&mut t, "\r");
    finish(&mut t);
    let (ev, inner) = result(&out);
    assert_eq!(ev["payload"]["elicitation"]["action"], "accept");
    assert_eq!(ev["parentEventId"], "evt-profile-1");
    assert_eq!(
        inner["content"],
        json!({"fullName": "Ada Example", "email": "ada@example.com",
               "homepage": "https://ada.example/", "seats": 5, "budget": 99.5,
               "newsletter": false, "region": "eu-west", "plan": "team",
               "languages": ["rust", "go"]})
    );
}

#[test]
fn demo_decline_button() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("out.jsonl");
    let mut t = start(dir.path(), &out, 80, 24, "--theme monochrome");
    t.wait_for("request 1 of 1");
    t.pace();
    // Shift-Tab from the first field wraps to the Cancel button, once more
    // to Decline.
    send(&mut t, "\u{1b}[Z\u{1b}[Z");
    send(&mut t, "\r");
    finish(&mut t);
    let (ev, inner) = result(&out);
    assert_eq!(ev["payload"]["elicitation"]["action"], "decline");
    assert_eq!(inner, json!({"action": "decline"}));
}

#[test]
fn demo_esc_cancels() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("out.jsonl");
    let mut t = start(dir.path(), &out, 80, 24, "");
    t.wait_for("request 1 of 1");
    t.pace();
    send(&mut t, "typing");
    send(&mut t, "\u{1b}");
    // Typed text is not thrown away by one key: Esc asks, `y` confirms.
    t.wait_for("Throw away what");
    t.pace();
    send(&mut t, "y");
    finish(&mut t);
    let (_, inner) = result(&out);
    assert_eq!(inner, json!({"action": "cancel"}));
}

#[test]
fn demo_ctrl_c_cancels() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("out.jsonl");
    let mut t = start(dir.path(), &out, 80, 24, "");
    t.wait_for("request 1 of 1");
    send(&mut t, "\u{3}");
    finish(&mut t);
    let (_, inner) = result(&out);
    assert_eq!(inner, json!({"action": "cancel"}));
}

#[test]
fn sigterm_restores_the_terminal() {
    signal_restores_the_terminal("-TERM");
}

#[test]
fn sighup_restores_the_terminal() {
    signal_restores_the_terminal("-HUP");
}

/// `kill -INT` from outside (not the Ctrl-C key, a key event in raw mode).
#[test]
fn sigint_from_outside_restores_the_terminal() {
    signal_restores_the_terminal("-INT");
}

/// `kill -QUIT` from outside.
#[test]
fn sigquit_from_outside_restores_the_terminal() {
    signal_restores_the_terminal("-QUIT");
}

fn signal_restores_the_terminal(sig: &str) {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("out.jsonl");
    let mut s = start_exec(&out, 80, 24, "");
    s.expect("request 1 of 1").expect("header drawn");
    let pid = s.get_process().pid();
    // The shell's builtin kill: no dependency on a kill binary.
    let st = Command::new("sh")
        .args(["-c", &format!("kill {sig} {pid}")])
        .status()
        .expect("kill");
    assert!(st.success());
    let drawn = finish_exec(&mut s);
    assert_restored(&drawn);
    // The request on screen ends as cancel (Outcome::Quit), nothing invented.
    let (_, inner) = result(&out);
    assert_eq!(inner, json!({"action": "cancel"}));
    // Then the exit status of a run ended by signal N: 128 + N.
    let status = s.get_process_mut().wait().expect("exit status");
    assert_eq!(
        format!("{status:?}"),
        format!("Exited(Pid({pid}), {})", 128 + signal_number(sig)),
    );
}

/// The number of `kill` signal name `sig` (`-TERM`).
fn signal_number(sig: &str) -> i32 {
    match sig {
        "-HUP" => 1,
        "-INT" => 2,
        "-QUIT" => 3,
        "-TERM" => 15,
        other => panic!("no number for {other}"),
    }
}

#[test]
fn forty_fields_in_24_rows_reach_submit() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut props = serde_json::Map::new();
    for i in 0..40 {
        props.insert(
            format!("f{i:02}"),
            json!({"type": "string", "title": format!("Field number {i}")}),
        );
    }
    let params = json!({"message": "Forty fields", "requestedSchema": {"type": "object", "properties": props}});
    let req = crate::common::request_line("many", "evt-40", &params);
    let path = crate::common::file_in(dir.path(), "req.json", req);
    let out = dir.path().join("out.jsonl");
    let mut t = start(
        dir.path(),
        &out,
        80,
        24,
        &format!("--request '{}'", path.display()),
    );
    t.wait_for("Field number 0");
    t.pace();
    for _ in 0..39 {
        send(&mut t, "\t");
    }
    // (ratatui redraws only changed cells, so the label is not matched as a
    // whole here; the snapshot test checks it is visible, and the content
    // below proves the keys reached field 39.)
    send(&mut t, "last");
    send(&mut t, "\t");
    send(&mut t, "\r");
    t.wait_for("Review");
    t.pace();
    send(&mut t, "\r");
    finish(&mut t);
    let (_, inner) = result(&out);
    assert_eq!(
        inner,
        json!({"action": "accept", "content": {"f39": "last"}})
    );
}

#[test]
fn no_terminal_is_a_clear_error() {
    // setsid: a new session with no controlling terminal, so /dev/tty fails.
    let o = Command::new("setsid")
        .args(["-w", BIN, "demo"])
        .stdin(std::process::Stdio::null())
        .output()
        .expect("run setsid");
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("no terminal: cannot open /dev/tty"), "{err}");
    assert!(o.stdout.is_empty());
}

/// At 40x12 the first frame shows the request's message
/// (it starts at the top; no PageUp needed), and typing then goes to the
/// focused first field.
#[test]
fn first_frame_at_40x12_shows_the_message() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("out.jsonl");
    let mut t = start(dir.path(), &out, 40, 12, "");
    t.wait_for("Tell us about");
    t.pace();
    send(&mut t, "Ada Example");
    send(&mut t, "\u{1b}");
    // A form with typed text asks before it cancels; `y` confirms (sent
    // once the question shows, so the Esc was read alone, not as Alt-y).
    t.wait_for("Throw away what");
    t.pace();
    send(&mut t, "y");
    finish(&mut t);
    let (_, inner) = result(&out);
    assert_eq!(inner, json!({"action": "cancel"}));
}

/// In the real terminal a 4th check in "Languages"
/// (`maxItems: 3`) is refused with a notice on screen; the answer keeps 3.
#[test]
fn fourth_check_over_max_items_shows_a_notice() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("out.jsonl");
    let mut t = start(dir.path(), &out, 80, 24, "");
    t.wait_for("request 1 of 1");
    t.pace();
    for _ in 0..11 {
        send(&mut t, "\t");
    }
    t.wait_for("choose 1 to 3");
    // rust is checked by default: add go and python, then try typescript.
    for _ in 0..3 {
        send(&mut t, "\u{1b}[B ");
    }
    t.wait_for("choose at most 3");
    send(&mut t, "\u{1b}");
    // The question's keys, on the help line (drawn whole there).
    t.wait_for("Esc again or y: cancel");
    t.pace();
    send(&mut t, "y");
    finish(&mut t);
}
