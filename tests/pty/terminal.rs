//! A person at a real terminal: stdout, stdin and `/dev/tty` are the same
//! pseudo-terminal (the harness's "out" file is `/dev/tty` itself). Result
//! lines must never be written over a frame and must be on the normal
//! screen after the run; a stdin that is the keyboard is refused at once;
//! Ctrl-C twice quits from every state with exit 130.

#![cfg(unix)]

use crate::common;
use common::pty::*;

use std::path::{Path, PathBuf};

use serde_json::{json, Value};

/// A one-field form request as one JSON line.
fn request(id: &str, message: &str) -> String {
    let params = json!({"message": message, "requestedSchema": {"type": "object",
        "properties": {"name": {"type": "string", "title": "Name"}}}});
    common::request_line("terminal", id, &params)
}

fn two_forms(dir: &Path) -> PathBuf {
    let path = dir.join("requests.jsonl");
    let text = format!(
        "{}\n{}\n",
        request("evt-1", "First form."),
        request("evt-2", "Second form.")
    );
    std::fs::write(&path, text).expect("write requests");
    path
}

const TTY: &str = "/dev/tty";
const LEAVE: &str = "\u{1b}[?1049l";

/// The JSON lines the program wrote on the terminal after it left the
/// alternate screen for the last time (the tty turns `\n` into `\r\n`).
fn lines_after_leaving(raw: &[u8]) -> Vec<Value> {
    let raw = String::from_utf8_lossy(raw);
    let at = raw.rfind(LEAVE).expect("left the alternate screen");
    raw[at + LEAVE.len()..]
        .split("\r\n")
        .map(|l| l.trim_start_matches(|c: char| c != '{'))
        .filter(|l| l.starts_with('{'))
        .map(|l| serde_json::from_str(l).expect("a whole JSON line"))
        .collect()
}

/// What was written while the alternate screen was up (between the first
/// enter and the last leave).
fn written_on_the_form_screen(raw: &[u8]) -> String {
    let raw = String::from_utf8_lossy(raw);
    let from = raw
        .find("\u{1b}[?1049h")
        .expect("entered the alternate screen");
    let to = raw.rfind(LEAVE).expect("left the alternate screen");
    raw[from..to].to_owned()
}

/// `respond FILE` with stdout on the terminal: nothing of the results is
/// written while a form is up (the second form is drawn clean), and after
/// the run both result lines are on the normal screen, in order, complete.
#[test]
fn results_on_the_terminal_come_after_the_screen_is_given_back() {
    let dir = tempfile::tempdir().expect("tempdir");
    let input = two_forms(dir.path());
    let command = format!("respond '{}'", input.display());
    let mut t = Tui::start(dir.path(), Path::new(TTY), 100, 24, &command);
    t.wait_for("First form.");
    t.send("\u{1b}");
    // The first whole frame of the second form.
    t.wait_for_frame("Second form.");
    let second = t.screen();
    assert!(!second.contains("user.elicitation.result"), "{second}");
    t.send("\u{4}");
    assert_eq!(t.finish(), 0);
    let during = written_on_the_form_screen(&t.raw);
    assert!(!during.contains("user.elicitation.result"), "{during:?}");
    let lines = lines_after_leaving(&t.raw);
    let got: Vec<(&str, &str)> = lines
        .iter()
        .map(|v| {
            ahp_elicit::binding::read_result(v.clone()).expect("a valid result event");
            (
                v["payload"]["elicitation"]["action"].as_str().unwrap_or(""),
                v["parentEventId"].as_str().unwrap_or(""),
            )
        })
        .collect();
    assert_eq!(got, vec![("cancel", "evt-1"), ("decline", "evt-2")]);
    // And they are on the normal screen a person sees afterwards.
    let screen = squash(&t.screen());
    assert!(screen.contains("\"parentEventId\":\"evt-2\""), "{screen}");
}

/// The same run with stdout to a pipe writes the same bytes (the held
/// lines are exactly what a pipe gets: compact JSON, `\n` each).
#[test]
fn held_lines_are_the_lines_a_pipe_gets() {
    let dir = tempfile::tempdir().expect("tempdir");
    let input = two_forms(dir.path());
    let mut t = Tui::start(
        dir.path(),
        Path::new(TTY),
        100,
        24,
        // A stream on stdin: a pipe gets each result at once (the results
        // of FILE arguments or a file on stdin wait for the screen, see
        // tests/pty/faults.rs).
        &format!(
            "respond - < '{}' | cat",
            stream_of(dir.path(), &input).display()
        ),
    );
    t.wait_for("First form.");
    // `cat` writes the first result over the screen, which may scroll the
    // second form's top away: its message is awaited in what was written
    // (a word: the frame skips the blank cells between words).
    t.send("\u{1b}");
    t.wait_raw("Second");
    t.send("\u{1b}");
    t.finish();
    // Through `cat` each line is written as soon as it is decided: the
    // first result appears while the alternate screen is still up.
    let during = written_on_the_form_screen(&t.raw);
    assert!(during.contains("\"parentEventId\":\"evt-1\""), "{during:?}");
}

/// `respond` or `validate` with no FILE and the keyboard as stdin: nothing
/// could ever arrive (and `respond`'s UI would fight the reader for keys).
/// Exit 2 at once with a hint, the screen never taken, instead of a silent
/// wait.
#[test]
fn the_keyboard_as_stdin_is_refused_at_once_with_a_hint() {
    let hint = ["standard input is the terminal", "give a FILE"];
    for (command, also) in [("respond", Some("pipe events in")), ("validate", None)] {
        let dir = tempfile::tempdir().expect("tempdir");
        let out = dir.path().join("out.jsonl");
        let args = format!("{command} < /dev/tty");
        let mut t = Tui::start(dir.path(), &out, 80, 24, &args);
        t.wait_end();
        let raw = String::from_utf8_lossy(&t.raw).into_owned();
        assert!(raw.contains("[exit=2]"), "{command}: {raw}");
        assert!(
            !raw.contains("\u{1b}[?1049h"),
            "{command} never took the screen"
        );
        let err = t.stderr();
        for said in hint.iter().chain(also.iter()) {
            assert!(err.contains(said), "{command}: {said:?} not in {err}");
        }
    }
}

/// A live stream that has sent nothing yet: the waiting screen, and
/// Ctrl-C twice ends the run with 130 (an interrupt), no result invented.
#[test]
fn ctrl_c_twice_while_waiting_for_the_first_request_quits_with_130() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("out.jsonl");
    let (mut t, w) = Tui::respond_live(dir.path(), &out, (80, 24), "");
    t.wait_for("Waiting");
    t.press("\u{3}", "Press Ctrl-C again to quit");
    t.send("\u{3}");
    assert_eq!(t.finish(), 130);
    drop(w);
    assert_eq!(std::fs::read_to_string(&out).expect("out"), "");
}

/// Ctrl-C twice on a form quits with 130; the rest get `cancel`.
#[test]
fn ctrl_c_twice_on_a_form_quits_with_130() {
    let dir = tempfile::tempdir().expect("tempdir");
    let input = two_forms(dir.path());
    let out = dir.path().join("out.jsonl");
    let mut t = Tui::respond(dir.path(), &out, (80, 24), &input, "");
    t.wait_for("First form.");
    t.send("\u{3}\u{3}");
    assert_eq!(t.finish(), 130);
    assert_answers(&out, &[("cancel", "evt-1"), ("cancel", "evt-2")]);
}

/// Where `text` starts on the screen (row, column); ASCII rows only.
fn find(screen: &vt100::Screen, text: &str) -> (u16, u16) {
    let (_, cols) = screen.size();
    for (r, line) in screen.rows(0, cols.get()).enumerate() {
        if let Some(i) = line.find(text) {
            let col = line[..i].chars().count();
            return (r as u16, col as u16);
        }
    }
    panic!("{text:?} not on the screen:\n{}", screen.contents());
}

fn coloured_cells(screen: &vt100::Screen) -> usize {
    let (rows, cols) = screen.size();
    let mut n = 0;
    for r in 0..rows.get() {
        for c in 0..cols.get() {
            if let Some(cell) = screen.cell(r, c) {
                if cell.fgcolor() != vt100::Color::Default
                    || cell.bgcolor() != vt100::Color::Default
                {
                    n += 1;
                }
            }
        }
    }
    n
}

fn demo_with_no_color(args: &str) -> Tui {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("out.jsonl");
    let env = [("NO_COLOR", "1".to_owned())];
    let mut t = Tui::start_env(dir.path(), &out, 80, 24, args, &env);
    t.wait_for("Work email");
    // The temporary folder must outlive the run: leak it for the test.
    std::mem::forget(dir);
    t
}

/// `NO_COLOR=1 demo --theme default`: the theme named on the command line
/// wins, so the frame has colours (crossterm would drop them by itself).
#[test]
fn explicit_theme_wins_over_no_color() {
    let mut t = demo_with_no_color("demo --theme default");
    let n = coloured_cells(t.vt.screen());
    t.send("\u{1b}");
    assert_eq!(t.finish(), 0);
    assert!(n > 20, "only {n} coloured cells");
}

/// `NO_COLOR=1 demo`: monochrome, not one coloured cell, and the focused
/// field still stands out (reverse video on its label, not on the next
/// field's).
#[test]
fn no_color_alone_is_monochrome_with_a_visible_focus() {
    let mut t = demo_with_no_color("demo");
    let screen = t.vt.screen().clone();
    t.send("\u{1b}");
    assert_eq!(t.finish(), 0);
    assert_eq!(coloured_cells(&screen), 0);
    let (r, c) = find(&screen, "Full name");
    let focused = screen.cell(r, c).expect("cell");
    assert!(
        focused.inverse() && focused.bold(),
        "focused label stands out"
    );
    let (r, c) = find(&screen, "Work email");
    let other = screen.cell(r, c).expect("cell");
    assert!(!other.inverse(), "an unfocused label is not reversed");
}

/// Resize the pty and the emulator that reads it together.
fn resize(t: &mut Tui, cols: u16, rows: u16) {
    t.pump();
    t.s.get_process_mut()
        .set_window_size(cols, rows)
        .expect("resize the pty");
    let nz = |n: u16| std::num::NonZeroU16::new(n).expect("size > 0");
    t.vt.screen_mut().set_size(nz(rows), nz(cols));
}

/// Resizing during a form (80x24 → 45x14 → 120x40), then leaving: each
/// size gets a whole frame, and after the run no piece of the form is left
/// on the normal screen.
#[test]
fn resizes_during_a_form_leave_nothing_on_the_normal_screen() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("out.jsonl");
    let mut t = Tui::start(dir.path(), &out, 80, 24, "demo");
    t.wait_for("Work email");
    resize(&mut t, 45, 14);
    t.wait_for("Full name");
    t.wait_for("[ Submit ]");
    resize(&mut t, 120, 40);
    t.wait_for("Work email");
    t.wait_for("[ Submit ]");
    t.send("\u{1b}");
    assert_eq!(t.finish(), 0);
    let screen = t.screen();
    for piece in [
        "Full name",
        "Submit",
        "Workspace",
        "more below",
        "request 1 of 1",
        "────",
    ] {
        assert!(!screen.contains(piece), "{piece:?} left behind:\n{screen}");
    }
    assert!(screen.contains("[exit=0]"), "{screen}");
}

/// A form with typed text on a window too small to show it: one Esc does
/// not throw the text away (a second would) and the small screen says so;
/// back at a size that fits, the text is there and the form still asks.
#[test]
fn esc_on_a_too_small_screen_keeps_what_was_typed() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("out.jsonl");
    let mut t = Tui::start(dir.path(), &out, 80, 24, "demo");
    t.wait_for("Work email");
    t.press("Zed", "Zed");
    resize(&mut t, 30, 8);
    t.wait_for("Terminal too small");
    t.wait_for("twice if you entered anything");
    t.send("\u{1b}");
    // The Esc was read while the form did not fit: the small screen asks.
    t.wait_for("Throw away what you entered and cancel? Esc again: yes.");
    resize(&mut t, 80, 24);
    t.wait_for("Zed");
    t.wait_for("Throw away what you entered and cancel?");
    t.send("\u{1b}");
    assert_eq!(t.finish(), 0);
    let line = std::fs::read_to_string(&out).expect("result");
    assert!(
        line.contains(r#"\"action\": \"cancel\""#) || line.contains(r#"\"action\":\"cancel\""#),
        "{line}"
    );
}

/// `mcp` with stdout on the terminal: the tool result is printed after the
/// form screen is given back (it used to be written over the form and lost
/// with the alternate screen).
#[test]
fn mcp_tool_result_comes_after_the_screen_is_given_back() {
    let dir = tempfile::tempdir().expect("tempdir");
    let server = common::root().join("tests/mcp_fake_server.py");
    let command = format!(
        "mcp --call probe --args '{{\"case\":\"required\"}}' -- python3 '{}'",
        server.display()
    );
    let mut t = Tui::start(dir.path(), Path::new(TTY), 100, 30, &command);
    t.wait_for("Required");
    t.send("\u{1b}");
    t.finish();
    let during = written_on_the_form_screen(&t.raw);
    assert!(!during.contains("structuredContent"), "{during:?}");
    let raw = String::from_utf8_lossy(&t.raw).into_owned();
    let after = &raw[raw.rfind(LEAVE).expect("left") + LEAVE.len()..];
    assert!(after.contains("\"structuredContent\""), "{after:?}");
}

/// A system browser that cannot start is reported as a plain sentence with
/// the launcher and its exit status, never Rust debug text
/// (`ExitStatus(unix_wait_status(512))`).
#[test]
fn a_failing_system_browser_is_a_plain_sentence() {
    let dir = tempfile::tempdir().expect("tempdir");
    let bin = fake_browsers(dir.path(), SYSTEM_BROWSERS, |_| "exit 2\n".into());
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let out = dir.path().join("out.jsonl");
    let input = common::examples_dir().join("url-connect.request.json");
    let command = format!("respond '{}'", input.display());
    let env = [("PATH", path), ("BROWSER", String::new())];
    let mut t = Tui::start_env(dir.path(), &out, 100, 30, &command, &env);
    t.wait_for("Open a web page?");
    t.press("o", "The system browser (xdg-open) failed (exit status 2)");
    let screen = t.screen();
    assert!(!screen.contains("ExitStatus"), "{screen}");
    assert!(!screen.contains("unix_wait_status"), "{screen}");
    t.send("g");
    assert_eq!(t.finish(), 0);
    assert_answers(&out, &[("cancel", "evt-url-1")]);
}
