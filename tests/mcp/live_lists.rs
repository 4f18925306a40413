//! Lists that change while a person tries a server by hand: a TypeScript
//! SDK server (tests/servers/ts_list_changed_server.mjs) adds and removes
//! tools mid-session, and the SDK sends `notifications/tools/list_changed`.
//! In a real pseudo-terminal: the list on screen is put again at once,
//! keeps the highlighted tool, and says what changed in one line; a tool
//! removed while its arguments were asked is said gone, not called.

#![cfg(unix)]

use std::io::Write;

use crate::common;
use common::pty::*;
use common::sdk::{installed, root};

fn node_server() -> Option<String> {
    let probe = root().join(".ci/sdk/node/node_modules/@modelcontextprotocol/sdk/package.json");
    installed("the TypeScript MCP SDK", &probe).then(|| {
        root()
            .join("tests/servers/ts_list_changed_server.mjs")
            .display()
            .to_string()
    })
}

/// Tell the server to do `line` (`add NAME`, `remove NAME`) and wait until
/// it did (its notification is then written).
fn command(commands: &std::path::Path, done: &std::path::Path, line: &str) {
    let mut f = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(commands)
        .expect("commands file");
    writeln!(f, "{line}").expect("write a command");
    common::wait_until(&format!("the server to {line}"), || {
        std::fs::read_to_string(done)
            .unwrap_or_default()
            .lines()
            .any(|l| l == line)
    });
}

#[test]
fn the_list_follows_the_server_and_a_gone_tool_is_not_called() {
    let Some(server) = node_server() else { return };
    let dir = tempfile::tempdir().expect("tempdir");
    let (commands, done) = (dir.path().join("commands"), dir.path().join("done"));
    let envs = [
        ("LIST_COMMANDS", commands.display().to_string()),
        ("LIST_DONE", done.display().to_string()),
    ];
    let args = format!("mcp -- node '{server}'");
    let mut t = Tui::start_env(
        dir.path(),
        &dir.path().join("out.json"),
        120,
        30,
        &args,
        &envs,
    );
    t.wait_for("2 of 2 shown");
    // Picked, and taken away while its arguments are asked.
    t.press("\r", "Arguments for tools/call old_y");
    command(&commands, &done, "remove old_y");
    t.send("4");
    t.submit();
    t.wait_for("tools changed: -old_y; The tool 'old_y' is no longer listed by the server: it was not called.");
    t.wait_for("1 of 1 shown");
    let calls = std::fs::read_to_string(&done).unwrap_or_default();
    assert!(!calls.contains("called old_y"), "{calls}");
    // While the list is on screen: put again at once, the highlighted
    // tool kept.
    command(&commands, &done, "add add_x");
    t.wait_for("tools changed: +add_x");
    t.wait_for("2 of 2 shown");
    assert!(t.shows("› keep_me"), "{}", t.screen());
    command(&commands, &done, "add old_y");
    t.wait_for("tools changed: +old_y");
    t.wait_for("3 of 3 shown");
    // The highlighted tool's neighbour goes: the highlight stays on it.
    command(&commands, &done, "remove add_x");
    t.wait_for("tools changed: -add_x");
    t.wait_for("2 of 2 shown");
    assert!(t.shows("› keep_me"), "{}", t.screen());
    // Enter picks what is highlighted: the tool kept, called at once.
    t.press("\r", "Result of the tool 'keep_me'");
    t.press("\r", "2 of 2 shown");
    t.send("q");
    assert_eq!(t.finish(), 0);
    let calls = std::fs::read_to_string(&done).unwrap_or_default();
    assert!(calls.contains("called keep_me"), "{calls}");
}
