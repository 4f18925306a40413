//! Terminal and process faults end to end: the real
//! `ahp-elicit respond` in a real pseudo-terminal, stdout redirected to a
//! file. Ctrl-C cancels the current request, a second Ctrl-C quits and the
//! rest still get `cancel`; `--timeout` cancels an unanswered request;
//! SIGTERM and SIGHUP give the terminal back (alternate screen left, the
//! `stty -g` mode as before) and no result is invented or half written.
//!
//! The screen is read through a terminal emulator (`vt100`); every wait is
//! for screen text, the timeouts are only a safety net against a hang.

#![cfg(unix)]

use crate::common;
use common::pty::*;

use std::path::{Path, PathBuf};

use serde_json::{json, Value};

/// A request event as one JSON line: a one-field form, or a URL request
/// when `url` is given.
fn request(id: &str, message: &str, url: Option<&str>) -> String {
    let params = match url {
        Some(u) => {
            json!({"mode": "url", "message": message, "url": u, "elicitationId": format!("el-{id}")})
        }
        None => json!({"message": message, "requestedSchema": {"type": "object",
            "properties": {"name": {"type": "string", "title": "Name"}}}}),
    };
    common::request_line("faults", id, &params)
}

fn three_forms(dir: &Path) -> PathBuf {
    write_requests(
        dir,
        &[
            request("evt-1", "First form.", None),
            request("evt-2", "Second form.", None),
            request("evt-3", "Third form.", None),
        ],
    )
}

// ---- the tests ----

/// Ctrl-C cancels the request on screen; the next one is still shown and
/// answered.
#[test]
fn ctrl_c_cancels_the_current_request_only() {
    let dir = tempfile::tempdir().expect("tempdir");
    let input = write_requests(
        dir.path(),
        &[
            request("evt-1", "First form.", None),
            request("evt-2", "Second, a URL.", Some("https://example.com/x")),
        ],
    );
    let out = dir.path().join("out.jsonl");
    let mut t = Tui::respond(dir.path(), &out, (80, 24), &input, "--no-open");
    t.wait_for("First form.");
    t.press("\u{3}", "Second, a URL.");
    t.send("d");
    assert_eq!(t.finish(), 0);
    assert_answers(&out, &[("cancel", "evt-1"), ("decline", "evt-2")]);
}

/// Two Ctrl-C in a row: the first cancels request 1, the second quits, and
/// every remaining request still gets a `cancel` result (3 results), with
/// no key pressed for request 3.
#[test]
fn second_ctrl_c_quits_and_cancels_the_rest() {
    let dir = tempfile::tempdir().expect("tempdir");
    let input = three_forms(dir.path());
    let out = dir.path().join("out.jsonl");
    let mut t = Tui::respond(dir.path(), &out, (80, 24), &input, "");
    t.wait_for("First form.");
    t.send("\u{3}\u{3}");
    assert_eq!(t.finish(), 130);
    let rs = results(&out);
    assert_eq!(
        actions_and_parents(&rs),
        vec![
            ("cancel", "evt-1"),
            ("cancel", "evt-2"),
            ("cancel", "evt-3")
        ]
    );
    for r in &rs {
        assert_eq!(r.2, json!({"action": "cancel"}));
    }
}

/// Wait until `out` holds `n` result lines (the results of a file input
/// written to a file are not held back).
fn results_reach(out: &Path, n: usize) -> Vec<(String, String, Value)> {
    common::wait_ok(PATIENCE, || {
        let text = std::fs::read_to_string(out).unwrap_or_default();
        if text.lines().count() >= n {
            Ok(results(out))
        } else {
            Err(format!("{n} results awaited: {text:?}"))
        }
    })
}

/// `--timeout 1` cancels an unanswered request, a form and a URL one alike:
/// the countdown and the key that extends it are on screen; when time runs
/// out, `cancel` is sent at once and a notice says so, and it stays, with
/// the next request held back, until a key.
#[test]
fn timeout_cancels_unanswered_requests_and_says_so() {
    let dir = tempfile::tempdir().expect("tempdir");
    let input = write_requests(
        dir.path(),
        &[
            request("evt-1", "First form.", None),
            request("evt-2", "Second, a URL.", Some("https://example.com/x")),
        ],
    );
    let out = dir.path().join("out.jsonl");
    let mut t = Tui::respond(dir.path(), &out, (80, 24), &input, "--timeout 1 --no-open");
    t.wait_for("First form.");
    t.wait_for("s left · Ctrl-T +1s");
    t.wait_for("Time ran out: this request was cancelled (cancel was sent).");
    // The cancel went out before the notice was acknowledged.
    assert_eq!(
        actions_and_parents(&results_reach(&out, 1)),
        vec![("cancel", "evt-1")]
    );
    assert!(!t.shows("Second, a URL."), "{}", t.screen());
    t.press("x", "Second, a URL.");
    t.wait_for("Time ran out");
    t.send("x");
    assert_eq!(t.finish(), 0);
    assert_answers(&out, &[("cancel", "evt-1"), ("cancel", "evt-2")]);
    // Said on stderr too, once the screen is given back.
    let err = t.stderr();
    assert_eq!(
        err.matches("time ran out (--timeout), cancel was sent")
            .count(),
        2,
        "{err}"
    );
}

/// The time a person spends on a "time ran out" notice is not the next
/// request's: it is shown with its whole --timeout, however long the notice
/// stayed up.
#[test]
fn the_next_request_gets_its_whole_time_after_a_timeout_notice() {
    let dir = tempfile::tempdir().expect("tempdir");
    let input = write_requests(
        dir.path(),
        &[
            request("evt-1", "First form.", None),
            request("evt-2", "Second form.", None),
        ],
    );
    let out = dir.path().join("out.jsonl");
    let mut t = Tui::respond(dir.path(), &out, (80, 24), &input, "--timeout 3");
    t.wait_for("First form.");
    t.wait_for("Time ran out: this request was cancelled (cancel was sent).");
    // Read the notice for longer than the whole timeout: by design a
    // clock, since what is tested is that nothing happens in that time.
    std::thread::sleep(std::time::Duration::from_secs(4));
    assert_eq!(
        actions_and_parents(&results_reach(&out, 1)),
        vec![("cancel", "evt-1")]
    );
    t.send("x");
    // The second request is on screen, with time left, not cancelled unseen.
    t.wait_for("Second form.");
    t.wait_for("s left · Ctrl-T +3s");
    t.wait_for("Time ran out");
    t.send("x");
    assert_eq!(t.finish(), 0);
    assert_answers(&out, &[("cancel", "evt-1"), ("cancel", "evt-2")]);
}

/// Ctrl-T gives the request on screen the time again: a form with a 2 s
/// limit is still answered well after 2 s.
#[test]
fn ctrl_t_extends_the_deadline() {
    let dir = tempfile::tempdir().expect("tempdir");
    let input = write_requests(dir.path(), &[request("evt-1", "First form.", None)]);
    let out = dir.path().join("out.jsonl");
    let mut t = Tui::respond(dir.path(), &out, (80, 24), &input, "--timeout 2");
    t.wait_for("Ctrl-T +2s");
    // Three extensions: at least 8 s in all, shown in the header.
    t.send("\u{14}\u{14}\u{14}");
    // The countdown goes above the 2 s limit (it never would without
    // the key: the request would time out first).
    t.until("a countdown above 2 s", PATIENCE, |t| {
        assert!(!t.shows("Time ran out"), "{}", t.screen());
        let header = t.screen().lines().next().unwrap_or_default().to_owned();
        let left: Option<u64> = header
            .split(" · ")
            .find_map(|p| p.strip_suffix("s left"))
            .and_then(|n| n.trim().parse().ok());
        left.is_some_and(|l| l > 2).then_some(())
    });
    t.press("Ada\u{13}", "Review");
    t.send("\r");
    assert_eq!(t.finish(), 0);
    assert_answers(&out, &[("accept", "evt-1")]);
}

/// Run three form requests, send `sig` while request 1 is on screen;
/// returns the exit code, the results and stderr.
fn signal_run(sig: &str) -> (i32, Vec<(String, String, Value)>, String) {
    let dir = tempfile::tempdir().expect("tempdir");
    let input = three_forms(dir.path());
    let out = dir.path().join("out.jsonl");
    let mut t = Tui::respond(dir.path(), &out, (80, 24), &input, "");
    t.wait_for("First form.");
    t.press("typed", "typed");
    common::signal(t.pid(), sig);
    let code = t.finish();
    (code, results(&out), t.stderr())
}

/// SIGTERM while request 1 is on screen (a form with text typed in): the
/// terminal is given back, request 1 ends as `cancel` (nothing typed is
/// sent) and so do the two requests already read behind it; every line is
/// complete; the run exits with 128 + 15.
#[test]
fn sigterm_restores_the_terminal_and_cancels_what_was_read() {
    let (code, rs, err) = signal_run("TERM");
    assert_eq!(code, 143, "{err}");
    assert_eq!(
        actions_and_parents(&rs),
        vec![
            ("cancel", "evt-1"),
            ("cancel", "evt-2"),
            ("cancel", "evt-3")
        ]
    );
    assert_eq!(rs[0].2, json!({"action": "cancel"}));
}

/// SIGHUP (the terminal closed) behaves like SIGTERM; exit 128 + 1.
#[test]
fn sighup_restores_the_terminal_and_cancels_what_was_read() {
    let (code, rs, err) = signal_run("HUP");
    assert_eq!(code, 129, "{err}");
    assert_eq!(
        actions_and_parents(&rs),
        vec![
            ("cancel", "evt-1"),
            ("cancel", "evt-2"),
            ("cancel", "evt-3")
        ]
    );
}

/// SIGTERM on a live stream that stays open (a FIFO whose writer is still
/// there): the request on screen gets `cancel`, nothing is invented for
/// requests not yet sent, the terminal is given back, and the process ends
/// at once (it does not wait for the stream to close) with 128 + 15.
#[test]
fn sigterm_on_a_live_stream_ends_with_143() {
    use std::io::Write;
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("out.jsonl");
    let (mut t, mut w) = Tui::respond_live(dir.path(), &out, (80, 24), "");
    writeln!(w, "{}", request("evt-1", "First form.", None)).expect("write");
    w.flush().expect("flush");
    t.wait_for("First form.");
    common::signal(t.pid(), "TERM");
    assert_eq!(t.finish(), 143);
    drop(w);
    assert_answers(&out, &[("cancel", "evt-1")]);
}

/// On a live stream, Ctrl-C twice while waiting for the next request quits
/// at once (it used to wait for the stream to close, with the terminal
/// still taken and no key able to end it).
#[test]
fn second_ctrl_c_while_waiting_quits_a_live_stream() {
    use std::io::Write;
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("out.jsonl");
    let (mut t, mut w) = Tui::respond_live(dir.path(), &out, (80, 24), "");
    writeln!(w, "{}", request("evt-1", "First form.", None)).expect("write");
    w.flush().expect("flush");
    t.wait_for("First form.");
    t.press("\u{1b}", "Waiting for the next request");
    t.press("\u{3}", "Press Ctrl-C again to quit");
    t.send("\u{3}");
    assert_eq!(t.finish(), 130);
    drop(w);
    assert_answers(&out, &[("cancel", "evt-1")]);
}

/// Runs `respond` on three forms given as `input_arg` (with `{}` for the
/// input file), piped through `tee`, and checks that no result reaches the
/// pipe while the forms are on screen, then all three in order.
fn results_wait_for_the_screen_to_end(input_arg: &str) {
    let dir = tempfile::tempdir().expect("tempdir");
    let input = three_forms(dir.path());
    let out = dir.path().join("out.jsonl");
    let piped = dir.path().join("piped.jsonl");
    let from = input_arg.replace("{}", &format!("'{}'", input.display()));
    let command = format!("respond {from} | tee '{}'", piped.display());
    let mut t = Tui::start(dir.path(), &out, 80, 24, &command);
    t.wait_for("First form.");
    t.press("\u{1b}", "Second form.");
    t.press("\u{1b}", "Third form.");
    // Had it been written on the first answer, the first result would be in
    // the file by now: a reading pause and a screen after it (`tee` copies
    // it on its own time, so no sign from the program says it is there).
    assert_eq!(std::fs::read_to_string(&piped).unwrap_or_default(), "");
    t.send("\u{1b}");
    assert_eq!(t.finish(), 0);
    assert_answers(
        &piped,
        &[
            ("cancel", "evt-1"),
            ("cancel", "evt-2"),
            ("cancel", "evt-3"),
        ],
    );
}

/// `respond FILE | consumer`: the results of a file input wait until the
/// screen is given back, so a consumer printing on the same terminal does
/// not write over the form (where its lines would vanish with the screen).
#[test]
fn results_of_a_file_input_piped_on_wait_for_the_screen_to_end() {
    results_wait_for_the_screen_to_end("{}");
}

/// `respond < FILE | consumer`: stdin redirected from a regular file is as
/// finite as a FILE argument, so its results wait for the screen too.
#[test]
fn results_of_a_file_on_stdin_piped_on_wait_for_the_screen_to_end() {
    results_wait_for_the_screen_to_end("< {}");
}

/// A request dropped as invalid makes the count shrink ("request 1 of 3",
/// then "2 of 2"): the screen says why beside it.
#[test]
fn a_request_skipped_as_invalid_is_counted_on_screen() {
    let dir = tempfile::tempdir().expect("tempdir");
    let input = write_requests(
        dir.path(),
        &[
            request("evt-1", "First form.", None),
            r#"{"ahp":"0.1","id":"evt-2","type":"user.elicitation.request"}"#.to_owned(),
            request("evt-3", "Third form.", None),
        ],
    );
    let out = dir.path().join("out.jsonl");
    let mut t = Tui::respond(dir.path(), &out, (100, 24), &input, "");
    t.wait_for("First form.");
    assert!(!t.shows("invalid skipped"), "{}", t.screen());
    t.press("\u{1b}", "Third form.");
    t.wait_for("request 2 of 2 (1 invalid skipped)");
    t.send("\u{1b}");
    assert_eq!(t.finish(), 1, "{}", t.stderr());
    assert_answers(&out, &[("cancel", "evt-1"), ("cancel", "evt-3")]);
}
