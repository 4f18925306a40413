//! Another program writing on the terminal the UI draws on (a consumer of
//! stdout that prints there, `ahp-elicit respond - < STREAM | tee /dev/tty`): each
//! new screen and each new step starts from a cleared terminal, and Ctrl-L
//! repaints what was written over, in the real binary in a pseudo-terminal
//! (harness: tests/common/pty.rs). Every wait is for screen text or output;
//! the timeouts only detect a hang.

#![cfg(unix)]

use crate::common;
use common::pty::*;

use serde_json::json;

/// A one-field form request.
fn request(id: &str, message: &str) -> String {
    let params = json!({"message": message, "requestedSchema": {"type": "object",
        "properties": {"note": {"type": "string", "title": "Note", "default": "ok"}}}});
    common::request_line("repaint", id, &params)
}

/// How many times the program erased the whole screen so far.
fn clears(t: &mut Tui) -> usize {
    t.pump();
    String::from_utf8_lossy(&t.raw).matches("\u{1b}[2J").count()
}

/// Wait until `cond` holds (hang detection only).
fn wait_until(t: &mut Tui, what: &str, cond: impl Fn(&mut Tui) -> bool) {
    t.until(what, PATIENCE, |t| cond(t).then_some(()));
}

#[test]
fn screens_and_steps_start_cleared_and_ctrl_l_repaints() {
    let dir = tempfile::tempdir().expect("tempdir");
    let input = write_requests(
        dir.path(),
        &[
            request("evt-p1", "First form."),
            request("evt-p2", "Second form."),
        ],
    );
    let out = dir.path().join("out.jsonl");
    // Read from stdin (a stream: each result is written at once; the
    // results of FILE arguments or a file on stdin would wait for the
    // screen to end).
    let stream = stream_of(dir.path(), &input);
    let args = format!("respond - < '{}' | tee /dev/tty", stream.display());
    let mut t = Tui::start(dir.path(), &out, 80, 24, &args);
    t.wait_for("First form.");
    let at_first = clears(&mut t);
    assert!(at_first >= 1, "the first screen starts cleared");
    // The review step starts cleared too.
    t.press("\u{13}", "Review: this exact content");
    let at_review = clears(&mut t);
    assert!(at_review > at_first, "{at_review} > {at_first}");
    // Sent: `tee` prints the result line on the terminal.
    t.press("\r", "Second form.");
    wait_until(&mut t, "the result printed by tee", |t| {
        t.pump();
        String::from_utf8_lossy(&t.raw).contains("\"parentEventId\":\"evt-p1\"")
    });
    assert!(clears(&mut t) > at_review, "the second form starts cleared");
    // Whatever tee drew over the form, Ctrl-L clears and draws the form
    // whole again.
    let before = clears(&mut t);
    eprintln!(
        "result line on screen before Ctrl-L: {}",
        t.shows("parentEventId")
    );
    t.send("\u{c}");
    wait_until(&mut t, "Ctrl-L to clear the screen", |t| clears(t) > before);
    wait_until(&mut t, "a repaint without the result line", |t| {
        !t.shows("parentEventId") && t.shows("Second form.") && t.shows("Note")
    });
    t.send("\u{1b}");
    assert_eq!(t.finish(), 0);
    assert_answers(&out, &[("accept", "evt-p1"), ("cancel", "evt-p2")]);
}
