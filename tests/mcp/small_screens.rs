//! Every screen of trying a server by hand takes its keys at any size: at
//! 20x6 and 30x8 the list says the size it needs and `q` or Esc leaves; a
//! tool whose arguments cannot be drawn as a form says so, with the way
//! out. In a real pseudo-terminal, against tests/servers/echo_args.py.

#![cfg(unix)]

use crate::common;
use common::pty::*;
use common::sdk::root;

fn start(dir: &std::path::Path, (cols, rows): (u16, u16)) -> Tui {
    let server = root().join("tests/servers/echo_args.py");
    let args = format!(
        "mcp --protocol 2025-11-25 -- python3 '{}'",
        server.display()
    );
    let envs = [("ECHO_HUGE", "1".to_owned())];
    Tui::start_env(dir, &dir.join("out.json"), cols, rows, &args, &envs)
}

#[test]
fn q_or_esc_leaves_the_list_on_a_tiny_terminal() {
    for (size, key) in [((20, 6), "q"), ((30, 8), "\u{1b}")] {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut t = start(dir.path(), size);
        // The list's own words (the connecting screen before it is too
        // small too, with other keys).
        t.wait_for("this screen needs at least 40x10");
        t.wait_for("or q to leave");
        t.send(key);
        assert_eq!(t.finish(), 0, "{size:?}: {}", t.screen());
    }
}

#[test]
fn the_list_comes_back_when_the_terminal_grows() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut t = start(dir.path(), (20, 6));
    t.wait_for("or q to leave");
    t.resize(80, 24);
    t.wait_for("2 of 2 shown");
    t.send("q");
    assert_eq!(t.finish(), 0);
}

#[test]
fn a_tool_whose_form_cannot_be_drawn_says_the_way_out() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut t = start(dir.path(), (120, 30));
    t.wait_for("2 of 2 shown");
    t.press("huge", "1 of 2 shown");
    t.press("\r", "cannot be asked as a form");
    t.wait_for("Call it from the command line instead: ahp-elicit mcp --call 'huge' --args JSON (or --arg NAME=VALUE for each) -- SERVER");
    t.press("\r", "2 of 2 shown");
    t.send("q");
    assert_eq!(t.finish(), 0);
}

/// The server's stderr while a call runs: its last lines on the waiting
/// screen under a heading of their own, all of it on `s` (escaped), the
/// key offered on the result too; after the session, one block on our
/// stderr, not between our own lines.
#[test]
fn the_servers_stderr_is_shown_in_the_session() {
    let dir = tempfile::tempdir().expect("tempdir");
    let gate = dir.path().join("gate");
    let server = root().join("tests/servers/echo_args.py");
    let args = format!(
        "mcp --protocol 2025-11-25 -- python3 '{}'",
        server.display()
    );
    let envs = [("ECHO_GATE", gate.display().to_string())];
    let mut t = Tui::start_env(
        dir.path(),
        &dir.path().join("out.json"),
        100,
        30,
        &args,
        &envs,
    );
    t.wait_for("2 of 2 shown");
    t.press("noisy", "1 of 2 shown");
    t.press("\r", "Calling the tool 'noisy'");
    t.wait_for("The server's stderr (5 lines; s: all of it):");
    t.wait_for("| debug 5 \\u{1b}[31mred");
    assert!(!t.shows("| debug 2"), "only the last three: {}", t.screen());
    t.press("s", "The server's stderr: 5 line(s)");
    t.wait_for("| debug 1");
    t.press("\u{1b}", "Calling the tool 'noisy'");
    std::fs::write(&gate, "").expect("open the gate");
    t.wait_for("Result of the tool 'noisy'");
    t.wait_for("s: server's stderr");
    t.press("s", "| debug 3");
    t.press("q", "Result of the tool 'noisy'");
    t.send("q");
    assert_eq!(t.finish(), 0);
    let err = t.stderr();
    let block =
        "ahp-elicit: the server wrote 5 line(s) on its stderr:\nahp-elicit: server: debug 1\n";
    assert!(err.contains(block), "{err}");
    assert!(err.contains("server: debug 5 \\u{1b}[31mred"), "{err}");
    assert!(!err.contains('\u{1b}'), "{err}");
}
