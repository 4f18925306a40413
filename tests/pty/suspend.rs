//! Stopped and continued from outside (`kill -TSTP`, then `kill -CONT`, as
//! a shell's job control does): while the program is stopped the terminal
//! is given back (the alternate screen left, the terminal mode as before the
//! program started); when it continues it takes the terminal again (raw
//! mode, or plain mode's settings) and the full screen is repainted whole,
//! so keys act at once and the form is back.

#![cfg(unix)]

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::common;
use common::pty::{assert_answers, printed, Tui};

/// Send `sig` (`TSTP`, `CONT`) to `pid`.
/// The state letter of `pid` in /proc (`T`: stopped).
fn state(pid: i32) -> char {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).expect("stat");
    // "pid (comm) S ...": the state follows the last ')'.
    let after = &stat[stat.rfind(')').expect(")") + 1..];
    after.trim_start().chars().next().expect("state")
}

/// Wait until `pid` is stopped (`stopped`) or running again.
fn wait_state(pid: i32, stopped: bool) {
    common::wait_until(&format!("pid {pid} stopped: {stopped}"), || {
        (state(pid) == 'T') == stopped
    });
}

/// The pseudo-terminal the program runs on: the shell that started it has
/// it as its stdin.
fn pty_of(pid: i32) -> PathBuf {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).expect("stat");
    let after = &stat[stat.rfind(')').expect(")") + 1..];
    let ppid = after.split_whitespace().nth(1).expect("ppid");
    std::fs::read_link(format!("/proc/{ppid}/fd/0")).expect("the shell's terminal")
}

/// `stty ARG` on `tty` (its mode, read from outside the program).
fn stty(tty: &Path, arg: &str) -> String {
    let out = Command::new("stty")
        .arg(arg)
        .stdin(Stdio::from(std::fs::File::open(tty).expect("open the pty")))
        .output()
        .expect("stty");
    assert!(out.status.success(), "stty {arg}");
    String::from_utf8_lossy(&out.stdout).trim().to_owned()
}

/// Whether `flags` (`stty -a`) holds the setting `flag` as a whole word.
fn has(flags: &str, flag: &str) -> bool {
    flags.split_whitespace().any(|w| w == flag)
}

/// `demo` on its form screen: the run, the program's pid, its terminal
/// and that terminal's mode before the program started.
fn demo_on_screen(dir: &Path, out: &Path) -> (Tui, i32, PathBuf, String) {
    let mut t = Tui::start(dir, out, 80, 24, "demo --theme monochrome");
    t.wait_for_frame("request 1 of 1");
    let pid = t.pid();
    let tty = pty_of(pid);
    let before = printed(&String::from_utf8_lossy(&t.raw), "before");
    (t, pid, tty, before)
}

/// Keys act at once (no Enter needed): Shift-Tab moves the focus to the
/// buttons, once more to Decline, and Enter declines; the run ends with
/// the terminal given back.
fn decline_and_finish(t: &mut Tui, out: &Path) {
    t.send_marker("\u{1b}[Z");
    t.send_marker("\u{1b}[Z");
    t.send("\r");
    assert_eq!(t.finish(), 0, "{}", t.stderr());
    assert_answers(out, &[("decline", "evt-profile-1")]);
}

#[test]
fn the_form_gives_the_terminal_back_while_stopped_and_repaints_after() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("out.jsonl");
    let (mut t, pid, tty, before) = demo_on_screen(dir.path(), &out);
    assert_ne!(stty(&tty, "-g"), before, "the form runs in raw mode");

    common::signal(pid, "TSTP");
    wait_state(pid, true);
    t.pump();
    assert_eq!(
        stty(&tty, "-g"),
        before,
        "while stopped the terminal has its mode from before"
    );
    let raw = String::from_utf8_lossy(&t.raw).into_owned();
    let left = raw
        .rfind("\u{1b}[?1049l")
        .expect("the alternate screen left");
    assert!(
        raw.rfind("\u{1b}[?1049h").expect("entered") < left,
        "left after it was entered"
    );
    assert!(raw[left..].len() < 16, "nothing drawn after leaving");
    assert!(raw.contains("\u{1b}[?2004l"), "bracketed paste off");
    assert!(
        !t.shows("request 1 of 1"),
        "the normal screen is shown:\n{}",
        t.screen()
    );

    let drawn_before = t.raw.len();
    common::signal(pid, "CONT");
    wait_state(pid, false);
    t.wait_for_frame("request 1 of 1");
    let again = String::from_utf8_lossy(&t.raw[drawn_before..]).into_owned();
    assert!(
        again.contains("\u{1b}[?1049h"),
        "the alternate screen again"
    );
    assert!(again.contains("\u{1b}[?2004h"), "bracketed paste again");
    let mode = stty(&tty, "-a");
    for flag in ["-icanon", "-echo", "-isig"] {
        assert!(has(&mode, flag), "raw mode again ({flag}): {mode}");
    }
    // Every field of the form is there again, not only what changed.
    assert!(t.shows("Workspace Setup"), "{}", t.screen());
    assert!(t.shows("Full name"), "{}", t.screen());

    decline_and_finish(&mut t, &out);
}

#[test]
fn plain_mode_gives_its_settings_back_while_stopped_and_takes_them_after() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("out.jsonl");
    let env = [("AHP_ELICIT_PLAIN", "1".to_owned())];
    let mut t = Tui::start_env(dir.path(), &out, 80, 24, "demo", &env);
    t.wait_for("Full name:");
    let pid = t.pid();
    let tty = pty_of(pid);
    let before = printed(&String::from_utf8_lossy(&t.raw), "before");
    let plain = stty(&tty, "-g");
    assert_ne!(plain, before, "plain mode has Control-C end the line");

    common::signal(pid, "TSTP");
    wait_state(pid, true);
    assert_eq!(
        stty(&tty, "-g"),
        before,
        "the mode from before while stopped"
    );

    common::signal(pid, "CONT");
    wait_state(pid, false);
    common::wait_until("plain mode's settings again", || stty(&tty, "-g") == plain);
    // Control-C ends the line again (it is not the interrupt key): it
    // cancels the request instead of killing the program.
    t.send("\u{3}");
    assert_eq!(t.finish_plain(), 0, "{}", t.stderr());
    assert_answers(&out, &[("cancel", "evt-profile-1")]);
}

/// SIGSTOP cannot be caught: nothing gives the terminal back, and the
/// shell may put it in line mode while the program is stopped (here:
/// `stty` sets the mode from before). On SIGCONT the program sets raw mode
/// again and repaints.
#[test]
fn after_an_uncaught_stop_the_form_sets_raw_mode_again() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("out.jsonl");
    let (mut t, pid, tty, before) = demo_on_screen(dir.path(), &out);

    common::signal(pid, "STOP");
    wait_state(pid, true);
    let st = Command::new("stty")
        .arg(&before)
        .stdin(Stdio::from(
            std::fs::File::open(&tty).expect("open the pty"),
        ))
        .status()
        .expect("stty");
    assert!(st.success());
    assert!(has(&stty(&tty, "-a"), "icanon"), "line mode while stopped");

    let drawn_before = t.raw.len();
    common::signal(pid, "CONT");
    wait_state(pid, false);
    common::wait_until("raw mode again", || has(&stty(&tty, "-a"), "-icanon"));
    t.wait_for_frame("request 1 of 1");
    let again = String::from_utf8_lossy(&t.raw[drawn_before..]).into_owned();
    assert!(again.contains("\u{1b}[?1049h"), "the screen taken again");
    assert!(t.shows("Full name"), "repainted whole: {}", t.screen());

    decline_and_finish(&mut t, &out);
}
