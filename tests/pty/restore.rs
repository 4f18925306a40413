//! The terminal is given back cleanly: on
//! every exit of `ahp-elicit respond` (a normal end after the waiting
//! screen, and `kill -INT` / `kill -QUIT` from outside) the restore is the
//! last thing written to the terminal (nothing drawn after leaving the
//! alternate screen), the terminal mode (`stty -g`) is as before, and a
//! signal ends the request on screen as `cancel` with exit 128 + signal.
//!
//! The screen is read through a terminal emulator (`vt100`); the timeouts
//! are only a safety net against a hang.

#![cfg(unix)]

use std::io::Write;
use std::path::Path;

use expectrl::Expect;
use serde_json::json;

use crate::common;
use common::pty::{assert_answers, Tui};

fn request(id: &str, message: &str) -> String {
    let params = json!({"message": message, "requestedSchema": {"type": "object",
        "properties": {"name": {"type": "string", "title": "Name"}}}});
    common::request_line("restore", id, &params)
}

/// A live stream (a FIFO) with one request written; returns the writer.
fn live(dir: &Path, out: &Path) -> (Tui, std::fs::File) {
    let (mut r, mut w) = Tui::respond_live(dir, out, (80, 24), "");
    writeln!(w, "{}", request("evt-1", "First form.")).expect("write");
    w.flush().expect("flush");
    r.wait_for("First form.");
    // A person reads the form before typing: keys within the consent guard
    // (300 ms after the screen was first shown whole) are dropped.
    r.pace();
    (r, w)
}

/// A normal end after the waiting screen: nothing of the waiting screen is
/// drawn over the normal screen after the restore.
#[test]
fn normal_end_after_the_waiting_screen_writes_nothing_after_the_restore() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("out.jsonl");
    let (mut r, w) = live(dir.path(), &out);
    r.s.send("\u{1b}").expect("esc");
    r.wait_for("Waiting for the next request");
    drop(w);
    assert_eq!(r.finish_restored_last(), 0);
    assert_answers(&out, &[("cancel", "evt-1")]);
}

fn signal_ends_the_run(sig: &str, code: i32) {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("out.jsonl");
    let (mut r, w) = live(dir.path(), &out);
    r.s.send("typed").expect("type");
    r.wait_for("typed");
    common::signal(r.pid(), sig);
    assert_eq!(r.finish_restored_last(), code);
    drop(w);
    assert_answers(&out, &[("cancel", "evt-1")]);
}

/// `kill -INT` from outside (not the Ctrl-C key): the request on screen is
/// cancelled, the terminal given back, exit 128 + 2.
#[test]
fn sigint_from_outside_restores_and_cancels() {
    signal_ends_the_run("INT", 130);
}

/// `kill -QUIT` from outside: the same, exit 128 + 3.
#[test]
fn sigquit_from_outside_restores_and_cancels() {
    signal_ends_the_run("QUIT", 131);
}

/// SIGTERM ends the same way (the restore is the last output).
#[test]
fn sigterm_restore_is_the_last_output() {
    signal_ends_the_run("TERM", 143);
}
