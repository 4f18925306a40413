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
//! A sign-in kept in the file store (`AHP_ELICIT_STATE_DIR`, a temporary
//! directory) is used again by the next runs without a browser, with or
//! without a terminal, until `auth logout`.
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

use crate::common::sdk::{ahp_in, installed, root};
use serde_json::Value;

/// The example server and its authorization server; killed on drop.
pub(crate) struct Example {
    child: Child,
    /// The MCP endpoint, `http://localhost:PORT/mcp`.
    pub(crate) url: String,
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

/// Start the example with `--oauth` (None when the SDK is not installed);
/// tests/mcp/signin_screen.rs uses it too.
pub(crate) fn example() -> Option<Example> {
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

/// `mcp FLAGS --log log.jsonl --events events.jsonl --call TOOL EXTRA URL`
/// run in `dir` as [`ahp`] runs it.
pub(crate) fn logged_call(
    dir: &Path,
    flags: &[&str],
    tool: &str,
    extra: &[&str],
    url: &str,
) -> Run {
    let mut args = vec!["mcp"];
    args.extend_from_slice(flags);
    args.extend([
        "--log",
        "log.jsonl",
        "--events",
        "events.jsonl",
        "--call",
        tool,
    ]);
    args.extend_from_slice(extra);
    args.push(url);
    ahp(dir, &args)
}

/// None of `secrets` (each `shortest` bytes or longer, so that finding
/// one means it leaked) is in the runs' stdout and stderr, nor in `dir`'s
/// `--log` and `--events` files. Gives those two files' text (empty when
/// not written).
pub(crate) fn assert_unseen_in(
    dir: &Path,
    runs: &[&Run],
    secrets: &[&str],
    shortest: usize,
) -> (String, String) {
    let log = std::fs::read_to_string(dir.join("log.jsonl")).unwrap_or_default();
    let events = std::fs::read_to_string(dir.join("events.jsonl")).unwrap_or_default();
    let mut places: Vec<&str> = vec![&log, &events];
    for r in runs {
        places.push(&r.stderr);
        places.push(&r.stdout);
    }
    for s in secrets {
        assert!(s.len() >= shortest, "{s}");
        for p in &places {
            assert!(!p.contains(s), "a secret leaked: {p}");
        }
    }
    (log, events)
}

/// One finished run of the program.
pub(crate) use crate::common::sdk::McpRun as Run;

/// Run the program in `dir` with `args`, stdin closed, the file store in
/// `dir/state` and the stand-in browser recording into `dir/visited.txt`.
pub(crate) fn ahp(dir: &Path, args: &[&str]) -> Run {
    ahp_with(dir, &[], args)
}

/// [`ahp`] with the environment variables `env` set too.
pub(crate) fn ahp_with(dir: &Path, env: &[(&str, &str)], args: &[&str]) -> Run {
    let out = ahp_in(dir)
        .envs(env.iter().copied())
        .args(args)
        .current_dir(dir)
        .env("FOLLOW_REDIRECTS_RECORD", dir.join("visited.txt"))
        .output()
        .unwrap();
    Run::of(&out, None)
}

/// What an authorization server of the tests (tests/servers/hostile_as.py,
/// py_auth_server.py) recorded in `dir/as.jsonl`, one event a line.
pub(crate) fn recorded(dir: &Path) -> Vec<Value> {
    std::fs::read_to_string(dir.join("as.jsonl"))
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// How many [`recorded`] events are named `event` (with `outcome` when
/// given).
pub(crate) fn recorded_count(dir: &Path, event: &str, outcome: Option<&str>) -> usize {
    recorded(dir)
        .iter()
        .filter(|e| e["event"] == event && outcome.is_none_or(|o| e["outcome"] == o))
        .count()
}

/// The stand-in browser, for `--browser`.
pub(crate) fn browser() -> String {
    format!(
        "python3 {}",
        root().join(".ci/mcp/follow-redirects.py").display()
    )
}

/// The query values of the URLs the stand-in browser visited.
pub(crate) fn visited_values(dir: &Path, names: &[&str]) -> Vec<String> {
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

/// `auth login` with no terminal and no browser command says what to do
/// instead, never "run auth login" again.
#[test]
fn auth_login_without_a_way_to_sign_in_does_not_send_the_person_back_to_itself() {
    let Some(ex) = example() else { return };
    let dir = tempfile::tempdir().unwrap();
    let r = ahp(
        dir.path(),
        &["auth", "login", "--auth-store", "memory", &ex.url],
    );
    r.assert_said(3, &format!(
            "{} needs a sign-in: run this at a terminal, or pass --browser CMD; this run has no terminal to sign in on",
            ex.url
        ));
    assert!(
        !r.stderr.contains("run \"ahp-elicit auth login"),
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
    r.assert_said(3, &format!(
            "{url} needs a sign-in: run \"ahp-elicit auth login {url}\" at a terminal (or pass --browser CMD); this run has no terminal to sign in on",
            url = ex.url
        ));
    assert!(!dir.path().join("visited.txt").exists());
    assert!(!r.stderr.contains("JSON-RPC error 0"), "{}", r.stderr);
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
    r.assert_said(
        2,
        "the sign-in flags apply to a server URL (Streamable HTTP), not to a command",
    );
}

/// The mode bits of a path.
pub(crate) fn mode(p: &Path) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    std::fs::symlink_metadata(p).unwrap().permissions().mode() & 0o777
}

/// The one `*.json` file of a directory.
pub(crate) fn only_json(dir: &Path) -> std::path::PathBuf {
    let files: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    assert_eq!(files.len(), 1, "{files:?}");
    files[0].clone()
}

#[test]
fn a_stored_sign_in_is_used_again_without_a_browser_until_signed_out() {
    let Some(ex) = example() else { return };
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let greet = |extra: &[&str]| {
        let mut args = vec!["mcp", "--call", "greet", "--args", r#"{"name":"Ada"}"#];
        args.extend_from_slice(extra);
        args.push(&ex.url);
        ahp(d, &args)
    };
    // 1. Signed in with the stand-in browser; the sign-in is kept.
    let b = browser();
    let first = greet(&["--browser", &b]);
    assert_eq!(first.code, 0, "{}", first.stderr);
    assert!(first.stdout.contains("Hello, Ada!"), "{}", first.stdout);
    assert!(d.join("visited.txt").exists());
    let (state, oauth) = (d.join("state"), d.join("state/oauth"));
    let clients = oauth.join("clients");
    for dir in [&state, &oauth, &clients] {
        assert_eq!(mode(dir), 0o700, "{}", dir.display());
    }
    let (sign_in, client) = (only_json(&oauth), only_json(&clients));
    assert_eq!(mode(&sign_in), 0o600);
    assert_eq!(mode(&client), 0o600);
    let file: Value = serde_json::from_str(&std::fs::read_to_string(&sign_in).unwrap()).unwrap();
    assert_eq!(file["mcp_url"], ex.url.as_str());
    assert_eq!(file["client"]["kind"], "dcr");
    let mut secrets = vec![file["tokens"]["access_token"].as_str().unwrap().to_owned()];
    // This authorization server issues no refresh token; one would be
    // looked for too.
    secrets.extend(file["tokens"]["refresh_token"].as_str().map(str::to_owned));
    secrets.extend(file["client"]["client_secret"].as_str().map(str::to_owned));
    assert!(secrets[0].len() >= 8, "{secrets:?}");
    std::fs::remove_file(d.join("visited.txt")).unwrap();

    // 2. A browser command that must not be called: the stored token is
    // sent at once.
    let record = d.join("record.sh");
    std::fs::write(
        &record,
        "#!/bin/sh\necho \"$@\" >> \"$(dirname \"$0\")/called.txt\"\n",
    )
    .unwrap();
    std::fs::set_permissions(&record, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    // It answers the server's form, so that --events has something to say.
    let answers = d.join("answers.json");
    std::fs::write(
        &answers,
        r#"{"action":"accept","content":{"name":"Ada","email":"ada@example.com"}}"#,
    )
    .unwrap();
    let second = ahp(
        d,
        &[
            "mcp",
            "--browser",
            record.to_str().unwrap(),
            "--call",
            "collect-user-info",
            "--args",
            r#"{"infoType":"contact"}"#,
            "--answers",
            answers.to_str().unwrap(),
            "--log",
            "log.jsonl",
            "--events",
            "events.jsonl",
            &ex.url,
        ],
    );
    assert_eq!(second.code, 0, "{}", second.stderr);
    let result: Value = serde_json::from_str(&second.stdout).unwrap();
    let text = result["content"][0]["text"].as_str().unwrap();
    assert!(text.contains("\"name\": \"Ada\""), "{text}");
    assert!(!d.join("called.txt").exists(), "the browser command ran");
    assert!(!second.stderr.contains("signing in"), "{}", second.stderr);

    // 3. No terminal and no --browser: the stored sign-in is enough.
    let third = greet(&[]);
    assert_eq!(third.code, 0, "{}", third.stderr);
    assert!(third.stdout.contains("Hello, Ada!"), "{}", third.stdout);
    assert!(!d.join("visited.txt").exists());

    // 4. `auth status` lists it, never a token.
    let status = ahp(d, &["auth", "status", &ex.url]);
    assert_eq!(status.code, 0, "{}", status.stderr);
    assert!(status.stdout.contains(&ex.url), "{}", status.stdout);
    let json = ahp(d, &["auth", "status", "--json", &ex.url]);
    assert_eq!(json.code, 0, "{}", json.stderr);
    let listed: Value = serde_json::from_str(&json.stdout).unwrap();
    assert_eq!(listed["sign_ins"].as_array().unwrap().len(), 1, "{listed}");
    assert!(json.stdout.contains(&ex.url), "{}", json.stdout);

    // 5. Signed out: the tokens are gone (the client stays), and a run
    // without a browser needs a sign-in again.
    let out = ahp(d, &["auth", "logout", &ex.url]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(!sign_in.exists());
    assert!(client.exists());
    let after = greet(&[]);
    after.assert_said(3, &format!(
            "{url} needs a sign-in: run \"ahp-elicit auth login {url}\" at a terminal (or pass --browser CMD)",
            url = ex.url
        ));
    assert!(!d.join("visited.txt").exists() && !d.join("called.txt").exists());

    let log = std::fs::read_to_string(d.join("log.jsonl")).unwrap();
    let events = std::fs::read_to_string(d.join("events.jsonl")).unwrap();
    assert!(!log.is_empty() && !events.is_empty());
    for run in [&first, &second, &third, &status, &json, &out, &after] {
        for place in [&run.stderr, &run.stdout] {
            for s in &secrets {
                assert!(!place.contains(s.as_str()), "a credential leaked: {place}");
            }
        }
    }
    for place in [&log, &events] {
        for s in &secrets {
            assert!(!place.contains(s.as_str()), "a credential leaked: {place}");
        }
    }
}
