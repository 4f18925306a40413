//! `TuiResponder` in a real pseudo-terminal, without the stream driver: this
//! test binary re-runs itself in a pty (env `AHP_PTY_CHILD` names the
//! scenario) and the child drives the responder directly. Covers the
//! deadline, the waiting screen with Ctrl-C twice, "request N of M", a
//! metadata view, and the URL placeholder screen.

#![cfg(unix)]

use crate::common;

use std::io::Write;
use std::process::Command;
use std::time::{Duration, Instant};

use ahp_elicit::binding::{self, RequestEvent};
use ahp_elicit::responder::{Context, Outcome, Progress, Responder};
use ahp_elicit::tui::{Theme, TuiResponder};
use expectrl::{Eof, Expect, Session};

fn example(name: &str) -> RequestEvent {
    let bytes = std::fs::read(common::examples_dir().join(name)).expect("example");
    binding::read_request(
        binding::parse_json(&bytes).expect("json"),
        binding::ReadOptions::default(),
    )
    .expect("valid")
}

fn cx(index: usize, total: usize, deadline: Option<Instant>) -> Context {
    Context {
        progress: Progress {
            index,
            total,
            skipped: 0,
        },
        deadline,
        ..Default::default()
    }
}

fn show(o: &Outcome) -> String {
    match o {
        Outcome::Answer(a) => a.action.as_str().to_owned(),
        Outcome::Quit => "quit".to_owned(),
    }
}

/// The child side: runs only when `AHP_PTY_CHILD` is set.
#[test]
fn child() {
    let Ok(scenario) = std::env::var("AHP_PTY_CHILD") else {
        return;
    };
    let out_path = std::env::var("AHP_PTY_OUT").expect("out path");
    let mut log = Vec::new();
    {
        let mut tui = TuiResponder::new(Theme::monochrome()).expect("terminal");
        match scenario.as_str() {
            "deadline" => {
                let req = example("form-every-kind.request.json");
                let deadline = Some(Instant::now() + Duration::from_millis(500));
                let o = tui.respond(&req, &cx(1, 1, deadline)).expect("respond");
                log.push(show(&o));
            }
            "wait" => {
                let req = example("form-confirm-mode-omitted.request.json");
                let o = tui.respond(&req, &cx(2, 3, None)).expect("respond");
                log.push(show(&o));
                // Wait (as the driver does between requests) until quit.
                let mut quit = false;
                for _ in 0..300 {
                    if tui.idle(Duration::from_millis(100)) {
                        quit = true;
                        break;
                    }
                }
                log.push(format!("idle-quit={quit}"));
            }
            "views" => {
                let o = tui
                    .respond(&example("metadata-view.request.json"), &cx(1, 2, None))
                    .expect("respond");
                log.push(show(&o));
                let o = tui
                    .respond(&example("url-connect.request.json"), &cx(2, 2, None))
                    .expect("respond");
                log.push(show(&o));
            }
            "panic" => {
                // The panic hook must restore the terminal before the panic
                // message is printed (the Drop guard alone would run after).
                panic!("deliberate panic for the restore test");
            }
            other => panic!("unknown scenario {other}"),
        }
    }
    let mut f = std::fs::File::create(out_path).expect("out");
    writeln!(f, "{}", log.join(" ")).expect("write");
}

// ratatui writes only changed cells, so a space that was already a space is
// skipped with a cursor move: the expectations below match single words.

fn spawn(scenario: &str, out: &std::path::Path) -> expectrl::session::OsSession {
    let exe = std::env::current_exe().expect("test binary");
    // The child test's name in this binary: this module's path without the
    // crate's name, then `child`.
    let module = module_path!().split_once("::").map_or("", |(_, m)| m);
    let child = if module.is_empty() {
        "child".to_owned()
    } else {
        format!("{module}::child")
    };
    let mut cmd = Command::new("sh");
    cmd.arg("-c").arg(format!(
        "stty rows 24 cols 80 && exec '{}' --exact {child} --nocapture --test-threads 1",
        exe.display()
    ));
    cmd.env("AHP_PTY_CHILD", scenario);
    cmd.env("AHP_PTY_OUT", out);
    cmd.env("TERM", "xterm-256color");
    let mut s = Session::spawn(cmd).expect("spawn in a pty");
    let _ = s.get_process_mut().set_window_size(80, 24);
    s.set_expect_timeout(Some(Duration::from_secs(30)));
    s
}

/// A person reads a new screen before pressing a key: keys that arrive
/// within the consent guard of a request screen (300 ms for forms, 400 ms
/// for URL consent, after it was first shown whole, restarted by each such
/// key) are dropped. Not a measurement.
fn read_the_screen() {
    std::thread::sleep(Duration::from_millis(700));
}

fn outcome(s: &mut expectrl::session::OsSession, out: &std::path::Path) -> String {
    let m = s.expect(Eof).expect("child ends");
    let drawn = String::from_utf8_lossy(m.get(0).unwrap_or_default()).into_owned();
    assert!(drawn.contains("\u{1b}[?1049l"), "left the alternate screen");
    std::fs::read_to_string(out)
        .unwrap_or_else(|e| panic!("child wrote no outcome ({e}); it drew:\n{drawn}"))
        .trim()
        .to_owned()
}

#[test]
fn deadline_cancels_an_unanswered_request() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("out");
    let mut s = spawn("deadline", &out);
    s.expect("s left").expect("countdown in the header");
    assert_eq!(outcome(&mut s, &out), "cancel");
}

#[test]
fn waiting_screen_and_ctrl_c_twice_quits() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("out");
    let mut s = spawn("wait", &out);
    s.expect("request 2 of 3").expect("progress in the header");
    read_the_screen();
    s.send("\u{1b}").expect("esc");
    s.expect("Waiting").expect("waiting screen");
    s.send("\u{3}").expect("ctrl-c");
    s.expect("again").expect("asks again");
    s.send("\u{3}").expect("ctrl-c");
    assert_eq!(outcome(&mut s, &out), "cancel idle-quit=true");
}

#[test]
fn metadata_view_and_url_offer_only_decline_and_cancel() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("out");
    let mut s = spawn("views", &out);
    s.expect("metadata").expect("gap reason shown");
    s.expect("Decline").expect("decline button");
    read_the_screen();
    // Enter presses the focused Decline.
    s.send("\r").expect("enter");
    s.expect("auth.example.com").expect("URL shown");
    read_the_screen();
    s.send("\u{1b}").expect("esc");
    assert_eq!(outcome(&mut s, &out), "decline cancel");
}

#[test]
fn panic_restores_the_terminal_before_the_message() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("out");
    let mut s = spawn("panic", &out);
    let m = s.expect(Eof).expect("child ends");
    let drawn = String::from_utf8_lossy(m.get(0).unwrap_or_default()).into_owned();
    let left = drawn
        .find("\u{1b}[?1049l")
        .expect("left the alternate screen");
    let msg = drawn
        .find("deliberate panic for the restore test")
        .expect("panic message printed");
    assert!(left < msg, "restored before the message:\n{drawn:?}");
    assert!(!out.exists(), "no outcome after a panic");
}
