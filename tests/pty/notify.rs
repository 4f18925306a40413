//! A request that arrives after the screen has waited is signalled
//! (`--notify`): the real `ahp-elicit respond` in a pseudo-terminal reading
//! a FIFO the test writes to; the bytes the terminal receives carry the
//! bell or the OSC 9 / OSC 777 notification and the window title, with the
//! server's name stripped to plain characters; `--notify none` sends none.
//!
//! Every wait is for screen text; the timeouts only guard against a hang.

#![cfg(unix)]

use crate::common;
use common::pty::*;

use std::io::Write;

/// Run `respond FIFO --notify HOW`, wait on the waiting screen for longer
/// than the signal's threshold, then send one form request whose server name
/// holds an escape; returns the bytes drawn after the request was sent.
fn run(how: &str) -> String {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("out.jsonl");
    let flags = format!("--notify {how}");
    let (mut t, mut w) = Tui::respond_live(dir.path(), &out, (80, 24), &flags);
    t.wait_for("Waiting for the next request");
    // Longer than NOTIFY_AFTER (2 s): the screen has been waiting. The
    // window is what is tested, and nothing marks its end, so a clock by
    // design.
    std::thread::sleep(std::time::Duration::from_millis(2500));
    t.pump();
    let before = t.raw.len();
    let params = serde_json::json!({"message": "Late one.", "requestedSchema": {"type": "object",
        "properties": {"n": {"type": "string"}}}});
    writeln!(
        w,
        "{}",
        common::request_line("srv\u{1b}]0;x\u{7}", "evt-1", &params)
    )
    .expect("write");
    w.flush().expect("flush");
    t.wait_for("Late one.");
    let after = String::from_utf8_lossy(&t.raw[before..]).into_owned();
    drop(w);
    t.send("\u{1b}");
    assert_eq!(t.finish(), 0);
    after
}

#[test]
fn a_request_after_a_wait_rings_the_bell_and_sets_the_title() {
    let bytes = run("bell");
    let title_and_bell = "\u{1b}]2;ahp-elicit: A request from srv0x is waiting\u{1b}\\\u{7}";
    assert!(bytes.contains(title_and_bell), "{bytes:?}");
    assert!(!bytes.contains("\u{1b}]0;x"), "{bytes:?}");
}

#[test]
fn osc_sends_a_desktop_notification_and_none_sends_nothing() {
    let bytes = run("osc");
    let osc9 = "\u{1b}]9;ahp-elicit: A request from srv0x is waiting\u{1b}\\";
    assert!(bytes.contains(osc9), "{bytes:?}");
    assert!(bytes.contains("\u{1b}]777;notify;ahp-elicit;A request from srv0x is waiting"));
    let none = run("none");
    assert!(
        !none.contains('\u{7}') && !none.contains("\u{1b}]"),
        "{none:?}"
    );
}
