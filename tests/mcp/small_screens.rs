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
        t.wait_for("Terminal too small");
        t.wait_for("needs at least 40x10");
        t.send(key);
        assert_eq!(t.finish(), 0, "{size:?}: {}", t.screen());
    }
}

#[test]
fn the_list_comes_back_when_the_terminal_grows() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut t = start(dir.path(), (20, 6));
    t.wait_for("Terminal too small");
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
