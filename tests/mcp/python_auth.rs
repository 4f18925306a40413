//! Signing in to a second, independently written authorization server:
//! tests/servers/py_auth_server.py, on the Python MCP SDK's
//! `mcp.server.auth` (pinned in `.ci/sdk/requirements.txt`), an MCP server
//! and its authorization server in one process. Its `/authorize` redirects
//! at once, so the stand-in browser `.ci/mcp/follow-redirects.py` signs in,
//! recording every URL it visits (the browser visits are counted there).
//! The server records what its authorization server did (sign-ins,
//! refreshes and their outcome, refused calls) in a file the tests read.
//!
//! What is proved, against its flags: a short-lived access token is
//! refreshed on the next run without a browser; a rotated refresh token is
//! kept and the spent one is never sent again (the server refuses reuse);
//! `invalid_grant` on refresh signs in again with the browser once (no
//! loop) and keeps the registered client; a call that needs a new scope
//! signs in once more for the union of scopes and then succeeds, in both
//! protocol revisions; a step-up that asks for nothing new is refused
//! without a browser. No stored credential reaches stderr, `--log` or
//! `--events`. A sign-in file open to others is named once a run; a run
//! for an account with no sign-in points at the accounts that have one.
//!
//! The waits for a token's end are on the stored file's `expires_at` (the
//! client decides from it); every other wait is for a process to end, and
//! the server's start is bounded only as a safety net against a hang.

#![cfg(unix)]

use std::path::Path;
use std::time::{Duration, SystemTime};

use serde_json::Value;

use super::oauth::{ahp, assert_unseen_in, browser, logged_call, mode, only_json, Run};
use crate::common::sdk::{installed, root, start_http, HttpServer};

/// The server started with `flags`, recording into `dir/as.jsonl`, with
/// the answer to `admin_reset`'s form in `dir/answers.json`; None when the
/// Python SDK is not installed. tests/mcp/signin_screen.rs uses it too.
pub(crate) fn server(dir: &Path, flags: &[&str]) -> Option<HttpServer> {
    let py = root().join(".ci/sdk/venv/bin/python");
    if !installed("the Python MCP SDK", &py) {
        return None;
    }
    let mut argv = vec![
        py.display().to_string(),
        root()
            .join("tests/servers/py_auth_server.py")
            .display()
            .to_string(),
        "--record".to_owned(),
        dir.join("as.jsonl").display().to_string(),
    ];
    argv.extend(flags.iter().map(|f| f.to_string()));
    // The answer to `admin_reset`'s form.
    std::fs::write(
        dir.join("answers.json"),
        r#"{"action":"accept","content":{"reason":"spring cleaning"}}"#,
    )
    .unwrap();
    Some(start_http(&argv))
}

use super::oauth::{recorded, recorded_count as count};

/// The authorization URLs the stand-in browser was sent to, parsed.
pub(crate) fn sign_in_visits(dir: &Path) -> Vec<url::Url> {
    std::fs::read_to_string(dir.join("visited.txt"))
        .unwrap_or_default()
        .lines()
        .filter(|l| l.contains("/authorize?"))
        .map(|l| url::Url::parse(l).unwrap())
        .collect()
}

/// A query parameter of `u`.
pub(crate) fn param(u: &url::Url, name: &str) -> String {
    u.query_pairs()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.into_owned())
        .unwrap_or_else(|| panic!("no {name} in {u}"))
}

/// The one stored sign-in of `dir`'s store, parsed.
fn stored(dir: &Path) -> Value {
    let file = only_json(&dir.join("state/oauth"));
    serde_json::from_str(&std::fs::read_to_string(file).unwrap()).unwrap()
}

/// The stored client registration, parsed.
fn stored_client(dir: &Path) -> Value {
    let file = only_json(&dir.join("state/oauth/clients"));
    serde_json::from_str(&std::fs::read_to_string(file).unwrap()).unwrap()
}

/// The stored tokens' values (access, refresh).
fn tokens(dir: &Path) -> (String, String) {
    let t = &stored(dir)["tokens"];
    (
        t["access_token"].as_str().unwrap().to_owned(),
        t["refresh_token"].as_str().unwrap().to_owned(),
    )
}

/// Wait until the stored access token has expired by its `expires_at`.
fn wait_for_expiry(dir: &Path) {
    let at = stored(dir)["tokens"]["expires_at"]
        .as_str()
        .map(|s| humantime::parse_rfc3339(s).unwrap())
        .expect("an access token with an end");
    assert!(
        at < SystemTime::now() + Duration::from_secs(60),
        "a short-lived token: {at:?}"
    );
    crate::common::wait_until("the access token's end", || SystemTime::now() > at);
}

/// `mcp --browser B --call TOOL URL` with `--log`, `--events` and the
/// answer to `admin_reset`'s form, in `dir`.
fn call(dir: &Path, url: &str, tool: &str, extra: &[&str]) -> Run {
    let b = browser();
    let flags = ["--browser", &b, "--answers", "answers.json"];
    logged_call(dir, &flags, tool, extra, url)
}

/// The JSON a tool answered with (its first text content).
pub(crate) fn answer(r: &Run) -> Value {
    let v: Value = serde_json::from_str(&r.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}\nstderr: {}", r.stdout, r.stderr));
    serde_json::from_str(v["content"][0]["text"].as_str().unwrap()).unwrap()
}

/// None of `secrets` is in the runs' stderr and stdout, nor in `dir`'s
/// `--log` and `--events` files.
fn assert_unseen(dir: &Path, runs: &[&Run], secrets: &[String]) {
    let secrets: Vec<&str> = secrets.iter().map(String::as_str).collect();
    let (log, events) = assert_unseen_in(dir, runs, &secrets, 16);
    // A form was answered: both say something.
    assert!(events.contains("spring cleaning"), "{events}");
    assert!(!log.is_empty(), "a log was written");
}

#[test]
fn a_short_lived_token_is_refreshed_on_the_next_run_and_a_rotated_one_kept() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let Some(srv) = server(d, &["--access-ttl", "2", "--rotate"]) else {
        return;
    };
    let reset = || call(d, &srv.url, "admin_reset", &["--scope", "read admin"]);
    // 1. Signed in with the browser; a two-second token and a refresh token.
    let first = reset();
    assert_eq!(first.code, 0, "{}", first.stderr);
    assert_eq!(
        answer(&first)["scopes"],
        serde_json::json!(["admin", "read"])
    );
    assert_eq!(sign_in_visits(d).len(), 1);
    assert_eq!(mode(&only_json(&d.join("state/oauth"))), 0o600);
    let (access1, refresh1) = tokens(d);
    let client = stored_client(d);
    // 2. The token has ended: the next run refreshes it, no browser.
    wait_for_expiry(d);
    let second = reset();
    assert_eq!(second.code, 0, "{}", second.stderr);
    assert_eq!(
        answer(&second)["scopes"],
        serde_json::json!(["admin", "read"])
    );
    assert_eq!(sign_in_visits(d).len(), 1, "no browser for a refresh");
    assert!(!second.stderr.contains("signing in"), "{}", second.stderr);
    let (access2, refresh2) = tokens(d);
    assert_ne!(access2, access1);
    // The rotated refresh token is what is stored now.
    assert_ne!(refresh2, refresh1);
    let refreshed = count(d, "refresh", Some("ok"));
    assert!(refreshed >= 1, "{:?}", recorded(d));
    // 3. Once more: the new refresh token is spent, never the old one.
    wait_for_expiry(d);
    let third = reset();
    assert_eq!(third.code, 0, "{}", third.stderr);
    let (access3, refresh3) = tokens(d);
    assert_ne!(refresh3, refresh2);
    assert_eq!(sign_in_visits(d).len(), 1);
    assert!(count(d, "refresh", Some("ok")) > refreshed);
    // Every refresh sent a live refresh token: none was spent twice. (A
    // slow run may refresh once more in the middle; that is no fault.)
    assert_eq!(
        count(d, "refresh", None),
        count(d, "refresh", Some("ok")),
        "{:?}",
        recorded(d)
    );
    assert_eq!(count(d, "authorize", None), 1);
    // The client registration was used all along.
    assert_eq!(stored_client(d), client);
    // The server does refuse a spent refresh token (so the client's
    // never sending one again is what kept it signed in).
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .build()
        .into();
    let token_url = srv.url.replace("/mcp", "/token");
    let client_id = client["client"]["client_id"].as_str().unwrap();
    let reuse = agent
        .post(&token_url)
        .send_form([
            ("grant_type", "refresh_token"),
            ("refresh_token", refresh1.as_str()),
            ("client_id", client_id),
        ])
        .unwrap();
    assert_eq!(reuse.status(), 400);
    assert_eq!(count(d, "refresh", Some("reused")), 1);
    let secrets = [access1, refresh1, access2, refresh2, access3, refresh3];
    assert_unseen(d, &[&first, &second, &third], &secrets);
}

#[test]
fn invalid_grant_on_refresh_signs_in_again_once_and_keeps_the_client() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // Every refresh is refused.
    let Some(srv) = server(d, &["--access-ttl", "3", "--refresh-limit", "0"]) else {
        return;
    };
    let reset = || call(d, &srv.url, "admin_reset", &["--scope", "read admin"]);
    let first = reset();
    assert_eq!(first.code, 0, "{}", first.stderr);
    let client = stored_client(d);
    let (access1, refresh1) = tokens(d);
    wait_for_expiry(d);
    let second = reset();
    assert_eq!(second.code, 0, "{}", second.stderr);
    assert_eq!(
        answer(&second)["scopes"],
        serde_json::json!(["admin", "read"])
    );
    assert!(
        second
            .stderr
            .contains("the stored sign-in expired or was revoked; signing in again"),
        "{}",
        second.stderr
    );
    // Each refused refresh is followed by one sign-in with the browser:
    // no loop. (One at the start of this run; a slow run may meet another
    // in its middle, when the new 3-second token is due.)
    let refused = count(d, "refresh", Some("limit"));
    assert!(refused >= 1, "{:?}", recorded(d));
    assert_eq!(count(d, "refresh", None), refused, "{:?}", recorded(d));
    let visits = sign_in_visits(d);
    assert_eq!(visits.len(), 1 + refused, "{:?}", recorded(d));
    // The registered client is kept and signed in with again.
    assert_eq!(stored_client(d), client);
    let client_id = client["client"]["client_id"].as_str().unwrap();
    for v in &visits {
        assert_eq!(param(v, "client_id"), client_id);
    }
    let (access2, refresh2) = tokens(d);
    assert_ne!(access2, access1);
    let secrets = [access1, refresh1, access2, refresh2];
    assert_unseen(d, &[&first, &second], &secrets);
}

/// A call that needs `admin` signs in once more, for `read admin`, and
/// goes on (its form answered) with the new token.
fn step_up_in(protocol: &str) {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let Some(srv) = server(d, &[]) else { return };
    let first = call(d, &srv.url, "whoami", &["--protocol", protocol]);
    assert_eq!(first.code, 0, "{}", first.stderr);
    let (access1, refresh1) = tokens(d);
    let second = call(d, &srv.url, "admin_reset", &["--protocol", protocol]);
    assert_eq!(second.code, 0, "{}", second.stderr);
    let got = answer(&second);
    assert_eq!(got["reason"], "spring cleaning");
    assert_eq!(got["scopes"], serde_json::json!(["admin", "read"]));
    let visits = sign_in_visits(d);
    assert_eq!(visits.len(), 2);
    assert_eq!(param(&visits[0], "scope"), "read");
    assert_eq!(param(&visits[1], "scope"), "read admin");
    assert_eq!(count(d, "insufficient_scope", None), 1);
    assert!(
        second.stderr.contains(
            "tools/call admin_reset needs more access: scope admin (you have: read); signing in at 127.0.0.1"
        ),
        "{}",
        second.stderr
    );
    // The new sign-in replaced the old one in the store.
    assert_eq!(
        stored(d)["tokens"]["scopes_granted"],
        serde_json::json!(["read", "admin"])
    );
    let (access2, refresh2) = tokens(d);
    assert_ne!(access2, access1);
    let secrets = [access1, refresh1, access2, refresh2];
    assert_unseen(d, &[&first, &second], &secrets);
}

#[test]
fn a_call_needing_a_new_scope_signs_in_for_the_union_and_goes_on_2026_07_28() {
    step_up_in("2026-07-28");
}

#[test]
fn a_call_needing_a_new_scope_signs_in_for_the_union_and_goes_on_2025_11_25() {
    step_up_in("2025-11-25");
}

#[test]
fn a_step_up_asking_for_nothing_new_is_refused_without_a_browser() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let Some(srv) = server(d, &[]) else { return };
    let r = call(d, &srv.url, "locked", &[]);
    r.assert_said(3, &format!(
            "{} refused tools/call locked for lack of access (read), which the token in use has already: not signing in again",
            srv.url
        ));
    // The first sign-in only; the refusal was met once.
    assert_eq!(sign_in_visits(d).len(), 1);
    assert_eq!(count(d, "insufficient_scope", None), 1);
    assert_eq!(count(d, "authorize", None), 1);
}

#[test]
fn a_step_up_without_a_terminal_names_the_access_and_the_login_that_gets_it() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let Some(srv) = server(d, &[]) else { return };
    let url = &srv.url;
    let first = call(d, url, "whoami", &[]);
    assert_eq!(first.code, 0, "{}", first.stderr);
    // The stored sign-in has `read`; the call needs `admin`, and this run
    // can open nothing.
    let reset = || {
        ahp(
            d,
            &[
                "mcp",
                "--answers",
                "answers.json",
                "--call",
                "admin_reset",
                url,
            ],
        )
    };
    let refused = reset();
    refused.assert_said(
        3,
        &format!(
            "tools/call admin_reset needs more access: scope admin (you have: read): run \"ahp-elicit auth login --scope 'read admin' {url}\" at a terminal (or pass --browser CMD); this run has no terminal to sign in on"
        ),
    );
    assert!(
        !refused.stderr.contains("needs a sign-in"),
        "{}",
        refused.stderr
    );
    assert_eq!(sign_in_visits(d).len(), 1);
    // The command named (with a browser command in place of the terminal)
    // signs in for both scopes though a sign-in for `read` is stored...
    let b = browser();
    let login = ahp(
        d,
        &[
            "auth",
            "login",
            "--browser",
            &b,
            "--scope",
            "read admin",
            url,
        ],
    );
    assert_eq!(login.code, 0, "{}", login.stderr);
    let visits = sign_in_visits(d);
    assert_eq!(visits.len(), 2, "{}", login.stderr);
    assert_eq!(param(&visits[1], "scope"), "read admin");
    assert_eq!(
        stored(d)["tokens"]["scopes_granted"],
        serde_json::json!(["read", "admin"])
    );
    // ...and the call then goes through with the stored sign-in.
    let again = reset();
    assert_eq!(again.code, 0, "{}", again.stderr);
    assert_eq!(
        answer(&again)["scopes"],
        serde_json::json!(["admin", "read"])
    );
    assert_eq!(sign_in_visits(d).len(), 2);
}

#[test]
fn a_sign_in_file_open_to_others_is_named_once_per_run() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let Some(srv) = server(d, &[]) else { return };
    let first = call(d, &srv.url, "whoami", &[]);
    assert_eq!(first.code, 0, "{}", first.stderr);
    let file = only_json(&d.join("state/oauth"));
    std::fs::set_permissions(&file, std::os::unix::fs::PermissionsExt::from_mode(0o644)).unwrap();
    let warning = format!(
        "refusing to read the sign-in file {f}: it is open to others (mode 0644); run chmod 600 {f}",
        f = file.display()
    );
    // Read when the run starts and again at the server's 401: said once.
    let run = ahp(d, &["mcp", "--call", "whoami", &srv.url]);
    assert_eq!(run.code, 3, "{}", run.stderr);
    assert_eq!(run.stderr.matches(&warning).count(), 1, "{}", run.stderr);
    let login = ahp(d, &["auth", "login", &srv.url]);
    assert_eq!(login.code, 3, "{}", login.stderr);
    assert_eq!(
        login.stderr.matches(&warning).count(),
        1,
        "{}",
        login.stderr
    );
    assert_eq!(sign_in_visits(d).len(), 1);
}

#[test]
fn a_sign_in_stored_for_another_account_is_pointed_at() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let Some(srv) = server(d, &[]) else { return };
    let first = call(d, &srv.url, "whoami", &[]);
    assert_eq!(first.code, 0, "{}", first.stderr);
    let run = ahp(
        d,
        &["mcp", "--account", "work", "--call", "whoami", &srv.url],
    );
    assert_eq!(run.code, 3, "{}", run.stderr);
    assert!(
        run.stderr.contains(&format!(
            "{url} needs a sign-in: run \"ahp-elicit auth login --account work {url}\" at a terminal (or pass --browser CMD); this run has no terminal to sign in on; a sign-in is stored for account default (pass --account default)",
            url = srv.url
        )),
        "{}",
        run.stderr
    );
    let status = ahp(d, &["auth", "status", "--account", "work", &srv.url]);
    assert_eq!(status.code, 1, "{}", status.stderr);
    assert!(
        status.stderr.contains(&format!(
            "no sign-in stored for {} (account work); a sign-in is stored for account default (pass --account default)",
            srv.url
        )),
        "{}",
        status.stderr
    );
    // The account named is the one signed in: listed, no hint.
    let listed = ahp(d, &["auth", "status", "--account", "default", &srv.url]);
    assert_eq!(listed.code, 0, "{}", listed.stderr);
    assert!(
        !listed.stderr.contains("pass --account"),
        "{}",
        listed.stderr
    );
    assert_eq!(sign_in_visits(d).len(), 1);
}
