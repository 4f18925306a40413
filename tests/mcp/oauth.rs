//! Signing in to a real authorization server: the TypeScript MCP SDK
//! 1.32.2 example `simpleStreamableHttp.js --oauth` (pinned in
//! `.ci/sdk/node`): a separate authorization server with dynamic
//! registration, an auto-approving `/authorize` that redirects at once, an
//! issuer with a trailing slash, and a resource server that wants a bearer
//! token on every request. The stand-in browser `.ci/mcp/follow-redirects.py`
//! follows the redirect into the client's real loopback listener and
//! records every URL it visits, so the test can look for `state`, the
//! PKCE challenge and the authorization code where they must not be.
//!
//! Also: without a terminal and without `--browser` nothing is opened and
//! the run ends at once with exit 3 naming `ahp-elicit auth login`; a
//! token brought with `--header Authorization` turns signing in off and a
//! refusal is read as RFC 6750; the sign-in flags with a stdio server are
//! a usage error.
//!
//! The wait for the server's start only guards against a hang.

#![cfg(unix)]

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use crate::common::sdk::{installed, root};
use serde_json::Value;

/// The example server and its authorization server; killed on drop.
struct Example {
    child: Child,
    url: String,
}

impl Drop for Example {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// Start the example with `--oauth` (None when the SDK is not installed).
fn example() -> Option<Example> {
    let script = root().join(
        ".ci/sdk/node/node_modules/@modelcontextprotocol/sdk/dist/esm/examples/server/simpleStreamableHttp.js",
    );
    if !installed("the TypeScript MCP SDK", &script) {
        return None;
    }
    let (mcp, auth) = (free_port(), free_port());
    let mut child = Command::new("node")
        .arg(&script)
        .arg("--oauth")
        .env("MCP_PORT", mcp.to_string())
        .env("MCP_AUTH_PORT", auth.to_string())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("start node");
    let out = child.stdout.take().unwrap();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(out).lines() {
            let Ok(line) = line else { break };
            if line.starts_with("MCP Streamable HTTP Server listening") {
                let _ = tx.send(());
            }
        }
    });
    let ex = Example {
        child,
        url: format!("http://localhost:{mcp}/mcp"),
    };
    rx.recv_timeout(Duration::from_secs(90))
        .expect("the example did not start");
    Some(ex)
}

struct Run {
    code: i32,
    stdout: String,
    stderr: String,
}

fn ahp(dir: &Path, args: &[&str]) -> Run {
    let out = Command::new(env!("CARGO_BIN_EXE_ahp-elicit"))
        .args(args)
        .current_dir(dir)
        .env("FOLLOW_REDIRECTS_RECORD", dir.join("visited.txt"))
        .stdin(Stdio::null())
        .output()
        .unwrap();
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

fn browser() -> String {
    format!(
        "python3 {}",
        root().join(".ci/mcp/follow-redirects.py").display()
    )
}

/// The query values of the URLs the stand-in browser visited.
fn visited_values(dir: &Path, names: &[&str]) -> Vec<String> {
    let text = std::fs::read_to_string(dir.join("visited.txt")).unwrap_or_default();
    let mut out = Vec::new();
    for line in text.lines() {
        let u = url::Url::parse(line).unwrap();
        for (k, v) in u.query_pairs() {
            if names.contains(&k.as_ref()) {
                out.push(v.into_owned());
            }
        }
    }
    out
}

#[test]
fn signs_in_with_a_browser_command_and_answers_the_form_keeping_secrets_out_of_sight() {
    let Some(ex) = example() else { return };
    let dir = tempfile::tempdir().unwrap();
    let answers = dir.path().join("answers.json");
    std::fs::write(
        &answers,
        r#"{"action":"accept","content":{"name":"Ada","email":"ada@example.com"}}"#,
    )
    .unwrap();
    let b = browser();
    let r = ahp(
        dir.path(),
        &[
            "mcp",
            "--auth-store",
            "memory",
            "--browser",
            &b,
            "--call",
            "collect-user-info",
            "--args",
            r#"{"infoType":"contact"}"#,
            "--answers",
            answers.to_str().unwrap(),
            "--events",
            "events.jsonl",
            "--log",
            "log.jsonl",
            &ex.url,
        ],
    );
    assert_eq!(r.code, 0, "stderr: {}", r.stderr);
    let result: Value = serde_json::from_str(&r.stdout).unwrap();
    let text = result["content"][0]["text"].as_str().unwrap();
    assert!(text.contains("\"name\": \"Ada\""), "{text}");
    assert!(
        r.stderr.contains(&format!(
            "signing in at localhost for {} (access asked: mcp:tools): opening the authorization URL with the browser command",
            ex.url
        )),
        "{}",
        r.stderr
    );
    // The browser went to the authorization server and came back with a
    // code, a state and (the first URL) a PKCE challenge.
    let secrets = visited_values(dir.path(), &["state", "code", "code_challenge"]);
    assert!(secrets.len() >= 4, "{secrets:?}");
    let events = std::fs::read_to_string(dir.path().join("events.jsonl")).unwrap();
    let log = std::fs::read_to_string(dir.path().join("log.jsonl")).unwrap();
    assert!(!events.is_empty() && !log.is_empty());
    for place in [&r.stderr, &r.stdout, &events, &log] {
        for s in &secrets {
            assert!(!place.contains(s.as_str()), "{s} leaked: {place}");
        }
        assert!(!place.contains("Bearer"), "{place}");
        assert!(!place.contains("access_token"), "{place}");
    }
}

#[test]
fn auth_login_signs_in_and_says_where() {
    let Some(ex) = example() else { return };
    let dir = tempfile::tempdir().unwrap();
    let b = browser();
    let r = ahp(
        dir.path(),
        &[
            "auth",
            "login",
            "--auth-store",
            "memory",
            "--browser",
            &b,
            &ex.url,
        ],
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    // The issuer as published: with its trailing slash.
    assert!(
        r.stderr
            .contains(&format!("signed in to {} at http://localhost:", ex.url))
            && r.stderr.contains("/ (account default)"),
        "{}",
        r.stderr
    );
}

#[test]
fn without_a_terminal_or_browser_command_nothing_opens_and_the_run_ends_with_exit_3() {
    let Some(ex) = example() else { return };
    let dir = tempfile::tempdir().unwrap();
    let r = ahp(
        dir.path(),
        &[
            "mcp",
            "--auth-store",
            "memory",
            "--action",
            "accept",
            &ex.url,
        ],
    );
    assert_eq!(r.code, 3, "{}", r.stderr);
    assert!(
        r.stderr.contains(&format!(
            "{url} needs a sign-in: run \"ahp-elicit auth login {url}\" at a terminal (or pass --browser CMD); this run has no terminal to sign in on",
            url = ex.url
        )),
        "{}",
        r.stderr
    );
    assert!(!dir.path().join("visited.txt").exists());
    assert!(!r.stderr.contains("JSON-RPC error 0"), "{}", r.stderr);
    // Without --auth-store memory, this build keeps no sign-in: said, exit 3.
    let b = browser();
    let r = ahp(
        dir.path(),
        &["mcp", "--browser", &b, "--action", "accept", &ex.url],
    );
    assert_eq!(r.code, 3, "{}", r.stderr);
    assert!(
        r.stderr.contains(&format!(
            "{} needs a sign-in, but sign-ins are kept only with --auth-store memory in this build",
            ex.url
        )),
        "{}",
        r.stderr
    );
    assert!(!dir.path().join("visited.txt").exists());
}

#[test]
fn a_token_brought_with_header_turns_signing_in_off() {
    let Some(ex) = example() else { return };
    let dir = tempfile::tempdir().unwrap();
    let b = browser();
    let r = ahp(
        dir.path(),
        &[
            "mcp",
            "--browser",
            &b,
            "--header",
            "Authorization: Bearer not-a-token-value",
            "--action",
            "accept",
            &ex.url,
        ],
    );
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(!dir.path().join("visited.txt").exists(), "a browser ran");
    // This server answers an unknown token with 500 and an OAuth error
    // body: read as `error: error_description`, not as JSON-RPC.
    assert!(
        r.stderr.contains(
            "server/discover: HTTP 500 Internal Server Error (server_error: Internal Server Error)"
        ),
        "{}",
        r.stderr
    );
    assert!(!r.stderr.contains("JSON-RPC error 0"), "{}", r.stderr);
    assert!(!r.stderr.contains("not-a-token-value"), "{}", r.stderr);
}

#[test]
fn sign_in_flags_with_a_stdio_server_are_a_usage_error() {
    let dir = tempfile::tempdir().unwrap();
    let r = ahp(dir.path(), &["mcp", "--auth-store", "memory", "--", "true"]);
    assert_eq!(r.code, 2);
    assert!(
        r.stderr.contains(
            "the sign-in flags apply to a server URL (Streamable HTTP), not to a command"
        ),
        "{}",
        r.stderr
    );
}
