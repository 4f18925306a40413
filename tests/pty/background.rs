//! The theme follows the terminal's background: the real `ahp-elicit demo`
//! in a pseudo-terminal whose "terminal" (this test) answers the OSC 11
//! background query, or sets `COLORFGBG`; a light background draws with the
//! `light` theme (blue titles), a dark one with `default` (cyan titles),
//! and `--theme` always wins.
//!
//! Every wait is for screen text; the timeouts only guard against a hang.

#![cfg(unix)]

use crate::common;
use common::pty::*;

use std::path::Path;
use std::time::{Duration, Instant};

use expectrl::Expect;

/// Start `demo ARGS` and, when `reply` is given, answer the background
/// query with it as a terminal would; returns the run once the form shows.
fn demo(dir: &Path, args: &str, reply: Option<&str>, envs: &[(&str, String)]) -> Tui {
    let pieces: Vec<(u64, &str)> = reply.map(|r| (0, r)).into_iter().collect();
    demo_slow(dir, args, &pieces, envs)
}

/// [`demo`] over a slow link: the answer comes in `pieces`, each sent the
/// given milliseconds after the one before (the first after the query).
fn demo_slow(dir: &Path, args: &str, pieces: &[(u64, &str)], envs: &[(&str, String)]) -> Tui {
    let out = dir.join("out.json");
    let mut t = Tui::start_env(dir, &out, 100, 30, &format!("demo {args}"), envs);
    // This test plays the terminal: it answers, or (no pieces) it does not.
    t.answer_queries = false;
    if !pieces.is_empty() {
        t.wait_raw_until("the background query", |raw| raw.contains("\u{1b}]11;?"));
    }
    t.last_key = Instant::now();
    for (pause, piece) in pieces {
        // Each piece `pause` after the one before (the first after the
        // query), as a slow link delivers them.
        t.send_after(Duration::from_millis(*pause), piece);
    }
    t.wait_for("Workspace Setup");
    t
}

/// The colour of the first cell of the header (the title role).
fn title_colour(t: &Tui) -> vt100::Color {
    t.vt.screen().cell(0, 0).expect("cell").fgcolor()
}

const BLUE: vt100::Color = vt100::Color::Idx(4);
const CYAN: vt100::Color = vt100::Color::Idx(6);

fn end(mut t: Tui) {
    t.send("\u{1b}");
    assert_eq!(t.finish(), 0);
}

#[test]
fn a_white_background_chooses_the_light_theme() {
    let dir = tempfile::tempdir().expect("tempdir");
    let reply = "\u{1b}]11;rgb:ffff/ffff/ffff\u{1b}\\\u{1b}[?62;22c";
    let t = demo(dir.path(), "", Some(reply), &[]);
    assert_eq!(title_colour(&t), BLUE, "{}", t.screen());
    end(t);
}

/// Over a slow link the answer comes late and in pieces (its ESC alone,
/// then the rest): it is still read as the background's colour, and its
/// ESC never acts as a key on the form.
#[test]
fn a_late_answer_split_after_its_esc_still_chooses_the_light_theme() {
    let dir = tempfile::tempdir().expect("tempdir");
    let pieces = [
        (400, "\u{1b}"),
        (110, "]11;rgb:ffff/ffff/ffff\u{1b}\\"),
        (10, "\u{1b}[?62;22c"),
    ];
    let mut t = demo_slow(dir.path(), "", &pieces, &[]);
    assert_eq!(title_colour(&t), BLUE, "{}", t.screen());
    // The form is still up (Tab moves its focus), nothing typed into it.
    t.send_marker("\t");
    assert!(!t.shows("11;rgb"), "{}", t.screen());
    end(t);
}

#[test]
fn a_dark_background_keeps_the_default_theme_and_a_named_theme_wins() {
    let dir = tempfile::tempdir().expect("tempdir");
    let reply = "\u{1b}]11;rgb:1e1e/1e1e/1e1e\u{7}\u{1b}[?62;22c";
    let t = demo(dir.path(), "", Some(reply), &[]);
    assert_eq!(title_colour(&t), CYAN, "{}", t.screen());
    end(t);
    // Asked nothing when a theme is named.
    let t = demo(dir.path(), "--theme default", None, &[]);
    assert!(!String::from_utf8_lossy(&t.raw).contains("\u{1b}]11;?"));
    assert_eq!(title_colour(&t), CYAN);
    end(t);
}

#[test]
fn colorfgbg_names_a_light_background_when_the_terminal_does_not_answer() {
    let dir = tempfile::tempdir().expect("tempdir");
    let t = demo(dir.path(), "", None, &[("COLORFGBG", "0;15".to_owned())]);
    assert_eq!(title_colour(&t), BLUE, "{}", t.screen());
    end(t);
}

/// Start `demo` and wait (answering nothing) until it has asked the
/// terminal for its background: the query has the terminal in raw mode.
fn demo_asking(dir: &Path) -> Tui {
    let out = dir.join("out.json");
    let mut t = Tui::start(dir, &out, 100, 30, "demo");
    t.answer_queries = false;
    t.wait_raw_until("the background query", |raw| raw.contains("\u{1b}]11;?"));
    t
}

/// The exit code of a run that ends before its screen, once checked that
/// the terminal mode (`stty -g`) is as before it started.
fn exit_before_the_screen(mut t: Tui) -> i32 {
    t.wait_end();
    let raw = String::from_utf8_lossy(&t.raw).into_owned();
    assert_eq!(
        printed(&raw, "after"),
        printed(&raw, "before"),
        "the terminal mode is restored"
    );
    printed(&raw, "exit").parse().expect("exit code")
}

/// A signal from outside while the background query waits (raw mode on)
/// gives the terminal its mode back, then ends the run with 128 + it.
#[test]
fn a_signal_during_the_background_query_restores_the_terminal() {
    for (sig, code) in [("-TERM", 143), ("-HUP", 129), ("-INT", 130)] {
        let dir = tempfile::tempdir().expect("tempdir");
        let t = demo_asking(dir.path());
        let st = std::process::Command::new("sh")
            .args(["-c", &format!("kill {sig} {}", t.pid())])
            .status()
            .expect("kill");
        assert!(st.success());
        assert_eq!(exit_before_the_screen(t), code, "{sig}");
    }
}

/// Ctrl-C typed while the background query waits is not swallowed as
/// part of the terminal's reply: it ends the run (SIGINT, 130), the
/// terminal restored.
#[test]
fn ctrl_c_during_the_background_query_ends_the_run() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut t = demo_asking(dir.path());
    t.s.send("\u{3}").expect("ctrl-c");
    assert_eq!(exit_before_the_screen(t), 130);
}

/// The answer split after its first bytes by a slow link, the query's
/// wait ending between the pieces: the rest, arriving once the form is
/// drawn, is not typed into the field; what the person types is.
#[test]
fn the_rest_of_an_answer_split_across_the_query_wait_is_not_typed() {
    let dir = tempfile::tempdir().expect("tempdir");
    let pieces = [(0, "\u{1b}]1")];
    let mut t = demo_slow(dir.path(), "", &pieces, &[]);
    // After the form's guard period (a person's reading pause, longer than
    // FORM_GUARD): keys now act on it.
    t.pace();
    t.s.send("1;rgb:ffff/ffff/ffff\u{1b}\\")
        .expect("the rest of the reply");
    t.s.send("\u{1b}[?62;22c").expect("device attributes");
    t.press("Zq", "[Zq");
    assert!(!t.shows("rgb"), "{}", t.screen());
    assert!(!t.shows("11;"), "{}", t.screen());
    t.press("\u{1b}", "Throw away");
    t.send("y");
    t.finish();
}

/// Ctrl-C right after the start, while the background query waits, and the
/// terminal's answer arriving after it (a slow link): the answer is read
/// before the terminal is given back, so the shell that runs next reads
/// none of it as typed input.
#[test]
fn an_answer_after_an_early_ctrl_c_never_reaches_the_shell() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("out.json");
    let mut t = Tui::start_then(
        dir.path(),
        &out,
        100,
        30,
        "demo",
        "read -r typed; echo \"[typed=$typed]\"",
    );
    // This test plays the terminal, late.
    t.answer_queries = false;
    common::wait_ok(PATIENCE, || {
        t.pump();
        if String::from_utf8_lossy(&t.raw).contains("\u{1b}]11;?") {
            Ok(())
        } else {
            Err("no background query".to_owned())
        }
    });
    t.s.send("\u{3}").expect("ctrl-c");
    // The answer travels a slow link: it comes after the Ctrl-C.
    std::thread::sleep(Duration::from_millis(150));
    t.s.send("\u{1b}]11;rgb:ffff/ffff/ffff\u{1b}\\\u{1b}[?62;22c")
        .expect("the late answer");
    common::wait_ok(PATIENCE, || {
        t.pump();
        if String::from_utf8_lossy(&t.raw).contains("[after=") {
            Ok(())
        } else {
            Err("the run did not end".to_owned())
        }
    });
    // The shell's `read` waits now: end its line.
    t.s.send("\r").expect("enter");
    t.wait_end();
    let raw = String::from_utf8_lossy(&t.raw).into_owned();
    assert_eq!(printed(&raw, "exit"), "130");
    assert_eq!(printed(&raw, "after"), printed(&raw, "before"));
    assert_eq!(printed(&raw, "typed"), "", "{raw:?}");
}
