//! Signing in at the terminal, in a real pseudo-terminal, against the
//! TypeScript MCP SDK example `simpleStreamableHttp.js --oauth` (pinned in
//! `.ci/sdk/node`, started as tests/mcp/oauth.rs starts it): the sign-in is
//! asked in lines on the terminal the session holds, naming the MCP server,
//! the authorization server's host, the access asked and the return
//! address; `open` starts the system browser (a stand-in `xdg-open` on
//! `PATH` that runs `.ci/mcp/follow-redirects.py`), `cancel` ends with exit
//! 3; on a remote session (`SSH_CONNECTION`) the address the browser ended
//! on is pasted back, and one with another `state` is refused. A step-up,
//! against the Python authorization server of tests/mcp/python_auth.rs,
//! names the call that needs more access, the scope it adds and the scopes
//! held.
//!
//! Every wait is for terminal text or the program's end; the timeouts are
//! only a safety net against a hang.

#![cfg(unix)]

use std::path::Path;
use std::process::Command;

use super::hostile_auth::{endpoint, server as hostile};
use super::oauth::{ahp, browser, example, Example};
use super::python_auth::{param, server, sign_in_visits};
use crate::common::pty::*;
use crate::common::sdk::root;

/// A directory holding a stand-in `xdg-open` (the system browser's opener
/// on Linux) that follows the redirects into the loopback listener.
fn stand_in_browser(dir: &Path) -> String {
    let bin = dir.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let opener = bin.join("xdg-open");
    std::fs::write(
        &opener,
        format!(
            "#!/bin/sh\nexec python3 '{}' \"$1\"\n",
            root().join(".ci/mcp/follow-redirects.py").display()
        ),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&opener, std::fs::Permissions::from_mode(0o755)).unwrap();
    format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    )
}

fn args(ex: &Example, plain: bool) -> String {
    format!(
        "mcp {}--auth-store memory --call greet --args '{{\"name\":\"Ada\"}}' {}",
        if plain { "--plain " } else { "" },
        ex.url
    )
}

fn greeting(out: &Path) -> String {
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out).expect("stdout")).expect("JSON");
    v["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

#[test]
fn the_sign_in_is_asked_at_the_terminal_and_open_completes_it() {
    let Some(ex) = example() else { return };
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.json");
    let path = stand_in_browser(dir.path());
    let env = [
        ("PATH", path),
        ("DISPLAY", ":0".to_owned()),
        ("SSH_CONNECTION", String::new()),
        ("SSH_TTY", String::new()),
    ];
    // The system browser's launch is logged (--log), its URL redacted.
    let log = dir.path().join("log.jsonl");
    let args = args(&ex, false).replacen("mcp ", &format!("mcp --log '{}' ", log.display()), 1);
    let mut t = Tui::start_env(dir.path(), &out, 200, 50, &args, &env);
    t.wait_raw("Sign in to use localhost");
    t.wait_raw(&format!("The MCP server {} needs you to sign in.", ex.url));
    t.wait_raw("Sign in at localhost (issuer http://localhost:");
    t.wait_raw("Access asked mcp:tools");
    t.wait_raw("Comes back http://127.0.0.1:");
    t.wait_raw("Type open, or cancel:");
    let raw = String::from_utf8_lossy(&t.raw).into_owned();
    assert!(!raw.contains("another domain"), "{raw}");
    // Typed after the URL could be read (the consent guard): the wait
    // above paces the next key.
    t.send("open\r");
    t.wait_raw("Opened in the browser. Waiting for the sign-in to finish");
    assert_eq!(t.finish(), 0, "stderr: {}", t.stderr());
    assert_eq!(greeting(&out), "Hello, Ada!");
    let launch: serde_json::Value = std::fs::read_to_string(&log)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .find(|v| v["event"] == "launch")
        .expect("the launch is logged");
    assert_eq!(launch["for"], "sign-in");
    assert_eq!(launch["launcher"], "system-browser");
    assert_eq!(launch["ok"], true);
    let url = launch["url"].as_str().unwrap();
    assert!(url.ends_with("/authorize?[redacted]"), "{url}");
}

#[test]
fn cancel_ends_the_run_with_exit_3() {
    let Some(ex) = example() else { return };
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.json");
    let mut t = Tui::start_env(dir.path(), &out, 200, 50, &args(&ex, false), &[]);
    t.wait_raw("or cancel:");
    t.send("cancel\r");
    assert_eq!(t.finish(), 3);
    assert!(
        t.stderr()
            .contains(&format!("sign-in to {} cancelled", ex.url)),
        "{}",
        t.stderr()
    );
}

/// The authorization server's answer to `url`: where it redirects (the
/// address a browser on another machine would end on).
fn ends_on(url: &str) -> String {
    let out = Command::new("python3")
        .arg("-c")
        .arg(
            "import sys, urllib.request, urllib.error\n\
             class N(urllib.request.HTTPRedirectHandler):\n\
             \x20   def redirect_request(self, *a): return None\n\
             try:\n\
             \x20   urllib.request.build_opener(N).open(sys.argv[1])\n\
             except urllib.error.HTTPError as e:\n\
             \x20   print(e.headers['Location'])\n",
        )
        .arg(url)
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stdout).trim().to_owned()
}

#[test]
fn plain_on_a_remote_session_takes_the_pasted_address_of_this_sign_in_only() {
    let Some(ex) = example() else { return };
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.json");
    let env = [("SSH_CONNECTION", "10.0.0.1 5 10.0.0.2 22".to_owned())];
    let mut t = Tui::start_env(dir.path(), &out, 1000, 50, &args(&ex, true), &env);
    t.wait_raw("This looks like a remote session.");
    t.wait_raw("Type open, or cancel:");
    // Typed after the URL could be read (the consent guard): the wait
    // above paces the next key.
    t.send("open\r");
    t.wait_raw("Copy this URL and open it in a browser:");
    t.wait_raw("or type done to wait, or cancel:");
    let raw = String::from_utf8_lossy(&t.raw).into_owned();
    let at = raw
        .rfind("Copy this URL and open it in a browser:")
        .unwrap();
    let url = raw[at..]
        .lines()
        .nth(1)
        .expect("the URL line")
        .trim()
        .to_owned();
    assert!(url.contains("/authorize?"), "{url}");
    let back = ends_on(&url);
    assert!(back.starts_with("http://127.0.0.1:"), "{back}");
    let u = url::Url::parse(&back).unwrap();
    let state: String = u
        .query_pairs()
        .find(|(k, _)| k == "state")
        .map(|(_, v)| v.into_owned())
        .unwrap();
    let other = back.replace(&state, "another-sign-in");
    t.send(&format!("{other}\r"));
    t.wait_raw("Not taken: that address is not from this sign-in (its state does not match): the wait goes on.");
    t.send(&format!("{back}\r"));
    t.wait_raw("Address taken.");
    assert_eq!(t.finish_plain(), 0, "stderr: {}", t.stderr());
    assert_eq!(greeting(&out), "Hello, Ada!");
}

#[test]
fn auth_login_at_a_terminal_asks_the_same_sign_in() {
    let Some(ex) = example() else { return };
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.txt");
    let path = stand_in_browser(dir.path());
    let env = [
        ("PATH", path),
        ("DISPLAY", ":0".to_owned()),
        ("SSH_CONNECTION", String::new()),
        ("SSH_TTY", String::new()),
    ];
    let args = format!("auth login --auth-store memory {}", ex.url);
    let mut t = Tui::start_env(dir.path(), &out, 200, 50, &args, &env);
    t.wait_raw("Sign in to use localhost");
    t.wait_raw("Access asked mcp:tools");
    t.wait_raw("Type open, or cancel:");
    t.send("open\r");
    t.wait_raw("Opened in the browser.");
    assert_eq!(t.finish_plain(), 0, "stderr: {}", t.stderr());
    let said = std::fs::read_to_string(&out).unwrap_or_default() + &t.stderr();
    assert!(said.contains("signed in"), "{said}");
}

#[test]
fn a_step_up_says_which_call_needs_which_new_scope() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let Some(srv) = server(d, &[]) else { return };
    // Signed in for `read` by an earlier run (the file store in d/state).
    let b = browser();
    let first = ahp(d, &["mcp", "--browser", &b, "--call", "whoami", &srv.url]);
    assert_eq!(first.code, 0, "{}", first.stderr);
    let out = d.join("out.json");
    let env = [
        ("PATH", stand_in_browser(d)),
        ("DISPLAY", ":0".to_owned()),
        ("SSH_CONNECTION", String::new()),
        ("SSH_TTY", String::new()),
        (
            "AHP_ELICIT_STATE_DIR",
            d.join("state").display().to_string(),
        ),
        (
            "FOLLOW_REDIRECTS_RECORD",
            d.join("visited.txt").display().to_string(),
        ),
    ];
    let args = format!("mcp --plain --call admin_reset {}", srv.url);
    let mut t = Tui::start_env(d, &out, 200, 50, &args, &env);
    t.wait_raw("tools/call admin_reset needs more access: scope admin (you have: read). Sign in again to grant it.",
    );
    t.wait_raw(&format!("The MCP server {} needs you to sign in.", srv.url));
    t.wait_raw("Access asked read admin");
    t.wait_raw("Type open, or cancel:");
    // Typed after the URL could be read (the consent guard): the wait
    // above paces the next key.
    t.send("open\r");
    t.wait_raw("Opened in the browser.");
    // The call goes on with the new token: its form.
    t.wait_raw("Field 1 of 1: Reason, required, text.");
    t.wait_raw("Reason:");
    t.send("spring cleaning\r");
    t.wait_raw("Type send, edit N, decline, or cancel:");
    t.send("send\r");
    assert_eq!(t.finish_plain(), 0, "stderr: {}", t.stderr());
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    let got: serde_json::Value =
        serde_json::from_str(v["content"][0]["text"].as_str().unwrap()).unwrap();
    assert_eq!(got["reason"], "spring cleaning");
    assert_eq!(got["scopes"], serde_json::json!(["admin", "read"]));
    let visits = sign_in_visits(d);
    assert_eq!(visits.len(), 2);
    assert_eq!(param(&visits[1], "scope"), "read admin");
}

/// The environment of a remote session (no browser here: `open` shows the
/// URL for copying) with the file store in `dir/state`.
fn remote(dir: &Path) -> [(&'static str, String); 2] {
    [
        ("SSH_CONNECTION", "10.0.0.1 1 10.0.0.2 22".to_owned()),
        (
            "AHP_ELICIT_STATE_DIR",
            dir.join("state").display().to_string(),
        ),
    ]
}

#[test]
fn while_the_sign_in_waits_the_screen_says_so_and_keeps_the_url_within_reach() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let srv = hostile(d);
    let url = endpoint(&srv, "ok");
    let out = d.join("out.json");
    let args = format!("mcp --call t {url}");
    let mut t = Tui::start_env(d, &out, 120, 40, &args, &remote(d));
    t.wait_raw("Type open, or cancel:");
    t.send("open\r");
    t.wait_raw("or type done to wait, or cancel:");
    t.send("done\r");
    // The full screen is back, saying what it waits for, for how long, and
    // the URL for a browser that did not open.
    t.wait_for_frame("Waiting for the sign-in to finish in the browser (listening on 127.0.0.1:");
    for text in [
        "left of 5m (--auth-timeout)",
        "u: show the URL in lines for copying · Ctrl-C: cancel the sign-in",
        "If the browser did not open, open this URL:",
        "http://127.0.0.1:",
        "/authorize/ok?response_type=code&client_id=client-",
    ] {
        assert!(t.shows(text), "{text:?} not on:\n{}", t.screen());
    }
    // `u` shows it whole, in lines; Enter goes back.
    t.send("u");
    t.wait_raw("Press Enter to go back (or Control-C to cancel the sign-in):");
    let raw = String::from_utf8_lossy(&t.raw).into_owned();
    let shown = raw
        .split("Copy this URL and open it in a browser:")
        .last()
        .unwrap()
        .trim_start_matches(['\r', '\n']);
    let line = shown.lines().next().unwrap();
    assert!(
        line.starts_with(&format!("{}/authorize/ok?response_type=code", srv.url)),
        "{line:?}"
    );
    t.send("\r");
    t.wait_for_frame("If the browser did not open, open this URL:");
    // Control-C ends the sign-in: exit 3, and the sentence says which.
    t.send("\x03");
    assert_eq!(t.finish(), 3, "stderr: {}", t.stderr());
    assert!(
        t.stderr().contains(&format!("sign-in to {url} cancelled")),
        "{}",
        t.stderr()
    );
}

#[test]
fn control_c_while_auth_login_waits_ends_the_sign_in_with_exit_3() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let srv = hostile(d);
    let url = endpoint(&srv, "ok");
    let out = d.join("out.txt");
    let args = format!("auth login {url}");
    let mut t = Tui::start_env(d, &out, 120, 40, &args, &remote(d));
    t.wait_raw("Type open, or cancel:");
    t.send("open\r");
    t.wait_raw("or type done to wait, or cancel:");
    t.send("done\r");
    t.wait_raw("Waiting for the sign-in to finish in the browser");
    // Control-C at the terminal given back is SIGINT to the program.
    crate::common::signal(t.pid(), "INT");
    assert_eq!(t.finish_plain(), 3, "stderr: {}", t.stderr());
    assert!(
        t.stderr().contains(&format!(
            "ahp-elicit auth login: sign-in to {url} cancelled"
        )),
        "{}",
        t.stderr()
    );
}
