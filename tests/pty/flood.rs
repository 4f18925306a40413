//! A flood of bad input while the terminal UI waits: the messages are held
//! within bounds (the rest counted), and the waiting screen shows how many
//! there are and the latest, so errors are seen while waiting. Screen
//! text is read through `vt100`; timeouts only guard against a hang.

#![cfg(unix)]

use crate::common;
use common::pty::*;

use std::io::Write;

#[test]
fn bad_lines_while_waiting_are_counted_on_screen_and_summarized_on_exit() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("out.jsonl");
    let fifo = make_fifo(dir.path());
    // stderr stays on the terminal: messages are held while the UI is up.
    let command = format!("respond '{}'", fifo.display());
    let mut t = Tui::start_err_shown(dir.path(), &out, 100, 30, &command);
    let mut w = open_live(&fifo);
    t.wait_for("Waiting for the next request");
    for i in 1..=1000 {
        writeln!(w, "not json {i}").expect("write");
    }
    w.flush().expect("flush");
    t.wait_for("1000 messages shown on exit; latest: ahp-elicit: line 1000: not a JSON event");
    t.press("\u{3}", "Press Ctrl-C again to quit");
    t.send("\u{3}");
    assert_eq!(t.finish(), 130, "quit with Ctrl-C twice: exit 130");
    drop(w);
    // Back on the main screen: the first held messages, then the count of
    // the rest.
    let raw = t.screen();
    assert!(
        raw.contains("ahp-elicit: 800 more messages not shown"),
        "{raw}"
    );
    assert!(std::fs::read_to_string(&out).unwrap_or_default().is_empty());
}
