//! Signing in against an authorization server that forgets, lies and
//! misbehaves: tests/servers/hostile_as.py (standard library Python), one
//! process serving every scenario at `/s/<scenario>/mcp`, with
//! `.ci/mcp/follow-redirects.py` as the browser. What a person meets there
//! must end in one line naming the step and the fix, exit 3 for a sign-in
//! that failed, and never a loop.
//!
//! Every wait is for a process to end; the server's start is bounded only
//! as a safety net against a hang.

#![cfg(unix)]

use std::path::Path;

use serde_json::Value;

use super::oauth::{ahp, browser, recorded, Run};
use crate::common::sdk::{root, start_http, HttpServer};

/// The server, recording into `dir/as.jsonl` (tests/mcp/signin_screen.rs
/// uses it too).
pub(crate) fn server(dir: &Path) -> HttpServer {
    start_http(&[
        "python3".to_owned(),
        root()
            .join("tests/servers/hostile_as.py")
            .display()
            .to_string(),
        "--record".to_owned(),
        dir.join("as.jsonl").display().to_string(),
    ])
}

/// The MCP endpoint of `scenario`.
pub(crate) fn endpoint(srv: &HttpServer, scenario: &str) -> String {
    format!("{}/s/{scenario}/mcp", srv.url)
}

/// How many events named `event` the authorization server recorded.
fn count(dir: &Path, event: &str) -> usize {
    super::oauth::recorded_count(dir, event, None)
}

/// The authorization server forgets every client and token, as it does
/// when it restarts.
fn restart(srv: &HttpServer) {
    ureq::post(&format!("{}/restart", srv.url))
        .send_empty()
        .unwrap();
}

/// `mcp --call t URL` with the file store in `dir/state`, and more flags.
fn call(dir: &Path, url: &str, extra: &[&str]) -> Run {
    let mut args = vec!["mcp", "--call", "t"];
    args.extend_from_slice(extra);
    args.push(url);
    ahp(dir, &args)
}

/// `mcp --browser STAND-IN --call t URL` with the file store in `dir/state`.
fn call_signing_in(dir: &Path, url: &str) -> Run {
    let b = browser();
    call(dir, url, &["--browser", &b])
}

/// The stderr lines that come from ahp-elicit (every one is said with its
/// name).
fn said(r: &Run) -> Vec<&str> {
    r.stderr
        .lines()
        .filter(|l| l.starts_with("ahp-elicit"))
        .collect()
}

#[test]
fn an_authorization_server_that_forgot_its_clients_is_signed_in_to_again_in_one_run() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let srv = server(d);
    let url = endpoint(&srv, "forgetful");
    let issuer = format!("{}/as/forgetful", srv.url);
    let first = call_signing_in(d, &url);
    assert_eq!(first.code, 0, "{}", first.stderr);
    assert_eq!(count(d, "register"), 1);
    restart(&srv);
    // 1. The stored token is sent; the server fails on it (HTTP 500): the
    //    stored sign-in is dropped, its refresh finds the client unknown,
    //    and the same run registers again and signs in.
    let stale = call_signing_in(d, &url);
    assert_eq!(stale.code, 0, "{}", stale.stderr);
    assert!(stale.stdout.contains("signed in"), "{}", stale.stdout);
    assert!(
        stale.stderr.contains(&format!(
            "{url} answered the sign-in stored by an earlier run with HTTP 500: signing in again"
        )),
        "{}",
        stale.stderr
    );
    assert!(
        stale.stderr.contains(&format!(
            "{issuer} no longer knows the client registered there (invalid_client); registering again"
        )),
        "{}",
        stale.stderr
    );
    assert_eq!(count(d, "register"), 2);
    // 2. No sign-in stored, the client registration kept: the
    //    authorization endpoint refuses it (the browser command fails),
    //    and the same run forgets it, registers again and signs in.
    restart(&srv);
    let out = ahp(d, &["auth", "logout", &url]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let refused = call_signing_in(d, &url);
    assert_eq!(refused.code, 0, "{}", refused.stderr);
    assert!(
        refused.stderr.contains(&format!(
            "opening the authorization URL failed: The browser command \"python3\" failed (exit status 1); the client registration kept for {issuer} may be unknown there (it restarted) and is forgotten: registering again and signing in once more"
        )),
        "{}",
        refused.stderr
    );
    assert_eq!(count(d, "register"), 3);
    // 3. Never a loop: a browser that always fails costs one more
    //    registration, and the run ends with the browser's failure.
    let out = ahp(d, &["auth", "logout", &url]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let failing = call(d, &url, &["--browser", "false"]);
    assert_eq!(failing.code, 3, "{}", failing.stderr);
    assert_eq!(count(d, "register"), 4, "{:?}", recorded(d));
    let last = *said(&failing).last().unwrap();
    assert!(
        last.ends_with("opening the authorization URL failed: The browser command \"false\" failed (exit status 1)"),
        "{}",
        failing.stderr
    );
}

#[test]
fn invalid_client_at_the_token_endpoint_registers_again_once() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let srv = server(d);
    // /authorize takes any client id: only the token endpoint finds that
    // the kept one is unknown.
    let url = endpoint(&srv, "lenient");
    assert_eq!(call_signing_in(d, &url).code, 0);
    restart(&srv);
    let out = ahp(d, &["auth", "logout", &url]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let r = call_signing_in(d, &url);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stderr.contains(&format!(
            "token request to {}/as/lenient failed: invalid_client: unknown client; the client registration kept there is forgotten: registering again and signing in once more",
            srv.url
        )),
        "{}",
        r.stderr
    );
    assert_eq!(count(d, "register"), 2, "{:?}", recorded(d));
    assert_eq!(count(d, "authorize"), 3, "{:?}", recorded(d));
}

#[test]
fn invalid_client_on_refresh_forgets_the_client_and_registers_again() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let srv = server(d);
    let url = endpoint(&srv, "ok");
    assert_eq!(call_signing_in(d, &url).code, 0);
    restart(&srv);
    // The stored token is refused (401): its refresh gets invalid_client.
    let r = call_signing_in(d, &url);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stderr.contains(&format!(
            "{}/as/ok no longer knows the client registered there (invalid_client); registering again",
            srv.url
        )),
        "{}",
        r.stderr
    );
    let tokens: Vec<String> = recorded(d)
        .iter()
        .filter(|e| e["event"] == "token")
        .map(|e| format!("{} {}", e["grant"], e["outcome"]))
        .collect();
    assert_eq!(
        tokens,
        [
            "\"authorization_code\" \"ok\"",
            "\"refresh_token\" \"invalid_client\"",
            "\"authorization_code\" \"ok\""
        ]
    );
    assert_eq!(count(d, "register"), 2);
}

#[test]
fn a_browser_command_gets_the_reviewed_authorization_url_after_its_warnings() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let srv = server(d);
    // A browser command that records the URL it was given and fails.
    let rec = d.join("given.txt");
    let b = format!(
        "sh -c 'printf \"%s\\n\" \"$1\" >> \"$0\"; exit 1' {}",
        rec.display()
    );
    let cases = [
        (
            "authz-idn",
            "the authorization URL: The host label \"p\u{430}ypal\" looks like \"paypal\" but is made of other characters.",
            "https://xn--pypal-4ve.com/authorize?",
        ),
        (
            "authz-userinfo",
            "the authorization URL: The text before '@' (\"accounts.example.com\") is not the site: this URL opens evil.test.",
            "https://accounts.example.com@evil.test/authorize?",
        ),
        (
            "authz-ctl",
            "the authorization URL: The URL as sent contains 3 control, bidi or invisible characters (\\u{202e} \\u{1b} \\u{7}); they are shown escaped.",
            "https://evil.test/auth%E2%80%AEorize%1B]8;;x%07?",
        ),
    ];
    for (scenario, warning, given) in cases {
        let _ = std::fs::remove_file(&rec);
        let r = call(d, &endpoint(&srv, scenario), &["--browser", &b]);
        assert_eq!(r.code, 3, "{}", r.stderr);
        let lines = said(&r);
        let at = lines
            .iter()
            .position(|l| l.ends_with(warning))
            .unwrap_or_else(|| panic!("{warning} not in {}", r.stderr));
        // Said after "signing in at" and before the launch's failure.
        assert!(lines[at - 1].contains("opening the authorization URL with"));
        assert!(lines
            .last()
            .unwrap()
            .contains("opening the authorization URL failed"));
        let url = std::fs::read_to_string(&rec).unwrap();
        assert!(url.starts_with(given), "{scenario}: {url}");
        assert!(
            !url.trim_end()
                .chars()
                .any(|c| c.is_control() || c == '\u{202e}' || !c.is_ascii()),
            "{url:?}"
        );
    }
}

#[test]
fn a_token_refusal_with_control_characters_is_said_once_escaped() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let srv = server(d);
    let r = call_signing_in(d, &endpoint(&srv, "token-ctl"));
    assert_eq!(r.code, 3, "{}", r.stderr);
    let last = *said(&r).last().unwrap();
    assert_eq!(
        last,
        format!(
            "ahp-elicit mcp: signing in to {0}/s/token-ctl/mcp: token request to {0}/as/token-ctl failed: invalid_grant: \\u{{202e}}oops\\u{{1b}}[2J\\u{{1b}}]0;title\\u{{7}}",
            srv.url
        )
    );
    assert!(!r.stderr.contains('\u{1b}') && !r.stderr.contains('\u{202e}'));
}

#[test]
fn an_access_token_a_bearer_header_cannot_carry_is_refused_at_the_token_answer() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let srv = server(d);
    let r = call_signing_in(d, &endpoint(&srv, "token-crlf"));
    assert_eq!(r.code, 3, "{}", r.stderr);
    let last = *said(&r).last().unwrap();
    assert!(
        last.ends_with(&format!(
            "the token endpoint {0}/token/token-crlf of {0}/as/token-crlf issued an access token that cannot be sent as a Bearer token (a character outside RFC 6750's b64token: letters, digits, - . _ ~ + / and a trailing =): refusing it; the authorization server is at fault",
            srv.url
        )),
        "{}",
        r.stderr
    );
    assert!(!r.stderr.contains("X-Injected"), "{}", r.stderr);
}

/// The last line ahp-elicit said of a run of `scenario` with more flags.
fn last_said(srv: &HttpServer, d: &Path, scenario: &str, extra: &[&str]) -> (i32, String) {
    let b = browser();
    let mut flags = vec!["--browser", b.as_str()];
    flags.extend_from_slice(extra);
    let r = call(d, &endpoint(srv, scenario), &flags);
    let last = said(&r).last().copied().unwrap_or_default().to_owned();
    (r.code, last)
}

#[test]
fn answers_too_large_too_deep_or_never_given_are_named_as_such_with_the_step() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let srv = server(d);
    let base = &srv.url;
    let cases = [
        (
            "prm-deep",
            &[][..],
            format!("the protected resource metadata at {base}/prm/prm-deep is nested too deeply to read (over 128 levels)"),
        ),
        (
            "token-deep",
            &[][..],
            format!("the token answer at {base}/token/token-deep is nested too deeply to read (over 128 levels)"),
        ),
        (
            "token-huge",
            &[][..],
            format!("the token answer at {base}/token/token-huge is larger than 1 MiB: not read"),
        ),
        (
            "prm-hang",
            &["--connect-timeout", "2"][..],
            format!("no answer from {base}/prm/prm-hang (the protected resource metadata) within 2 s (--connect-timeout)"),
        ),
    ];
    for (scenario, flags, want) in cases {
        let (code, last) = last_said(&srv, d, scenario, flags);
        assert_eq!(code, 3, "{scenario}: {last}");
        assert_eq!(
            last,
            format!(
                "ahp-elicit mcp: signing in to {}: {want}",
                endpoint(&srv, scenario)
            ),
            "{scenario}"
        );
    }
}

#[test]
fn a_challenges_resource_metadata_that_is_not_asked_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let srv = server(d);
    for (scenario, rm) in [
        ("rm-file", "file:///etc/passwd"),
        ("rm-remote-http", "http://metadata.example/prm"),
    ] {
        let (code, last) = last_said(&srv, d, scenario, &[]);
        assert_eq!(code, 3, "{last}");
        assert!(
            last.ends_with(&format!(
                "; not asked: the resource_metadata its challenge names, \"{rm}\", which is not https (nor http on this machine)): it cannot be signed in to automatically; with a token it takes, pass --header 'Authorization: env:VAR' (VAR holding \"Bearer TOKEN\")"
            )),
            "{last}"
        );
    }
}

#[test]
fn the_time_a_sign_in_takes_is_not_counted_against_connect_timeout() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let srv = server(d);
    // A browser that takes longer than --connect-timeout to come back.
    let slow = format!(
        "sh -c 'sleep 4; exec python3 {} \"$1\"' sh",
        root().join(".ci/mcp/follow-redirects.py").display()
    );
    let r = call(
        d,
        &endpoint(&srv, "ok"),
        &["--browser", &slow, "--connect-timeout", "2"],
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.contains("signed in"), "{}", r.stdout);
}

#[test]
fn the_log_records_a_sign_ins_launch_of_the_browser_with_the_url_redacted() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let srv = server(d);
    let r = call(
        d,
        &endpoint(&srv, "ok"),
        &["--browser", &browser(), "--log", "log.jsonl"],
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    let log = std::fs::read_to_string(d.join("log.jsonl")).unwrap();
    let launches: Vec<Value> = log
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|v| v["event"] == "launch")
        .collect();
    assert_eq!(launches.len(), 1, "{log}");
    let l = &launches[0];
    assert_eq!(l["id"], Value::Null);
    assert_eq!(l["for"], "sign-in");
    assert_eq!(l["launcher"], "browser-command");
    assert_eq!(l["ok"], true);
    assert_eq!(
        l["url"],
        format!("{}/authorize/ok?[redacted]", srv.url),
        "no query: state and the PKCE challenge never reach the log"
    );
}

/// `auth login URL` with the file store in `dir/state` and no terminal.
fn login(dir: &Path, url: &str) -> Run {
    ahp(dir, &["auth", "login", url])
}

#[test]
fn auth_login_fails_on_an_answer_that_is_not_an_mcp_servers_in_the_words_mcp_uses() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let srv = server(d);
    let u = &srv.url;
    // A wrong path: the same sentence and hint as `mcp`, exit 2.
    let typo = login(d, &format!("{u}/typo"));
    let hint = "server/discover: HTTP 404 Not Found (\"not found\"): is /typo the server's MCP endpoint? Most servers serve it at /mcp";
    assert_eq!(
        said(&typo),
        [format!("ahp-elicit auth login: {hint}")],
        "{}",
        typo.stderr
    );
    assert_eq!(typo.code, 2);
    let mcp = call(d, &format!("{u}/typo"), &[]);
    mcp.assert_said(2, hint);
    // At /mcp already, the hint does not send the person there.
    let at_mcp = login(d, &format!("{u}/mcp"));
    assert_eq!(
        said(&at_mcp),
        ["ahp-elicit auth login: server/discover: HTTP 404 Not Found (\"not found\"): is /mcp the server's MCP endpoint?"],
        "{}",
        at_mcp.stderr
    );
    assert_eq!(at_mcp.code, 2);
    for (kind, sentence) in [
        (
            "500",
            "server/discover: HTTP 500 Internal Server Error (\"upstream timed out\")".to_owned(),
        ),
        (
            "html",
            "server/discover: HTTP 200 with Content-Type 'text/html' (expected application/json or text/event-stream)".to_owned(),
        ),
        (
            "not-json",
            "the server's answer to server/discover cannot be read: skipped a message that is not JSON".to_owned(),
        ),
        (
            "not-rpc",
            "the server's answer to server/discover cannot be read: the message lacks \"jsonrpc\": \"2.0\"".to_owned(),
        ),
    ] {
        let r = login(d, &format!("{u}/plain/{kind}"));
        r.assert_said(2, &format!("ahp-elicit auth login: {sentence}"));
        assert!(!r.stderr.contains("nothing to do"), "{kind}: {}", r.stderr);
    }
    // An MCP server that answers without asking: nothing to do, exit 0.
    let open = login(d, &format!("{u}/plain/open"));
    open.assert_said(
        0,
        &format!("ahp-elicit auth login: {u}/plain/open answered without asking for a sign-in: nothing to do"),
    );
    assert!(!d.join("state").join("oauth").exists(), "nothing stored");
}

/// `mcp --browser STAND-IN --call t http://mcp.remote.test/s/SCENARIO/mcp`
/// through the server as a forward proxy: the MCP server is on another
/// machine as far as the client can tell, the stand-in browser and the
/// loopback callback stay direct.
fn call_remote(dir: &Path, srv: &HttpServer, scenario: &str, extra: &[&str]) -> Run {
    let b = browser();
    let url = format!("http://mcp.remote.test/s/{scenario}/mcp");
    let mut args = vec!["mcp", "--browser", &b, "--call", "t"];
    args.extend_from_slice(extra);
    args.push(&url);
    let out = crate::common::sdk::ahp_in(dir)
        .args(&args)
        .current_dir(dir)
        .env("HTTP_PROXY", &srv.url)
        .env("NO_PROXY", "127.0.0.1,localhost")
        .env_remove("http_proxy")
        .env_remove("no_proxy")
        .output()
        .unwrap();
    Run::of(&out, None)
}

/// The requests the server recorded, as (host, path, carried a token).
fn requests(dir: &Path) -> Vec<(String, String, bool)> {
    recorded(dir)
        .iter()
        .filter(|e| e["event"] == "request")
        .map(|e| {
            (
                e["host"].as_str().unwrap_or_default().to_owned(),
                e["path"].as_str().unwrap_or_default().to_owned(),
                e["auth"] == true,
            )
        })
        .collect()
}

#[test]
fn a_sign_in_token_never_goes_over_plain_http_to_another_machine() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let srv = server(d);
    let refused = call_remote(d, &srv, "as-home", &[]);
    assert_eq!(refused.code, 3, "{}", refused.stderr);
    assert!(
        refused.stderr.contains("http://mcp.remote.test/s/as-home/mcp asks for a sign-in, but over plain http:// to mcp.remote.test its token would be readable on the way: not signing in there; use https://, or pass --allow-insecure-http"),
        "{}",
        refused.stderr
    );
    // Nothing of a sign-in was asked, and no request carried a token.
    assert_eq!(
        count(d, "authorize") + count(d, "token") + count(d, "register"),
        0
    );
    assert!(
        requests(d).iter().all(|(_, _, auth)| !auth),
        "{:?}",
        requests(d)
    );
}

#[test]
fn a_remote_server_cannot_point_sign_in_at_this_machine() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let srv = server(d);
    // Its metadata names an authorization server on this machine.
    let out = call_remote(d, &srv, "as-home", &["--allow-insecure-http"]);
    assert_eq!(out.code, 3, "{}", out.stderr);
    assert!(
        out.stderr.contains(&format!(
            "the authorization server \"{}/as/as-home\" is on this machine (or its local link) but http://mcp.remote.test/s/as-home/mcp is not: a remote server may not send sign-in requests to this machine",
            srv.url
        )),
        "{}",
        out.stderr
    );
    // Its challenge names resource metadata on this machine: not asked,
    // and said so.
    let out = call_remote(d, &srv, "rm-home", &["--allow-insecure-http"]);
    assert_eq!(out.code, 3, "{}", out.stderr);
    assert!(
        out.stderr
            .contains("which is on this machine (or its local link) while the server is not"),
        "{}",
        out.stderr
    );
    // Every request went to the remote host; none to this machine.
    let asked = requests(d);
    assert!(!asked.is_empty());
    assert!(
        asked.iter().all(|(host, _, _)| host == "mcp.remote.test"),
        "{asked:?}"
    );
}

#[test]
fn a_server_that_calls_itself_by_another_loopback_name_is_named_with_the_url_to_use() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let srv = server(d);
    let (code, last) = last_said(&srv, d, "named-localhost", &[]);
    assert_eq!(code, 3, "{last}");
    let port = srv.url.rsplit(':').next().unwrap();
    assert!(
        last.ends_with(&format!(
            "the server calls itself http://localhost:{port}/s/named-localhost/mcp: run with that URL"
        )),
        "{last}"
    );
    assert_eq!(count(d, "authorize") + count(d, "register"), 0);
}

#[test]
fn a_refused_redirect_uri_is_named_with_the_flags_that_change_it() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let srv = server(d);
    let (code, last) = last_said(&srv, d, "reg-redirect", &[]);
    assert_eq!(code, 3, "{last}");
    let prefix = format!(
        "registration at {}/as/reg-redirect was refused: invalid_redirect_uri: redirect URI not allowed; the redirect URI sent was http://127.0.0.1:",
        srv.url
    );
    assert!(last.contains(&prefix), "{last}");
    assert!(
        last.ends_with("/callback: if the authorization server takes only some, choose the port with --callback-port PORT, or give a client id registered there with --client-id"),
        "{last}"
    );
}

#[test]
fn an_issuer_mix_up_is_not_blamed_on_the_kept_client() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let srv = server(d);
    let issuer = format!("{}/as/iss-mixup", srv.url);
    // The second run uses the client registration the first one kept.
    for _ in 0..2 {
        let (code, last) = last_said(&srv, d, "iss-mixup", &[]);
        assert_eq!(code, 3, "{last}");
        assert!(
            last.ends_with(&format!(
                "the sign-in answer came from \"http://evil.example/as\", not \"{issuer}\": rejected (possible mix-up attack); nothing was sent to either: sign in again with only this sign-in's page open, and if it happens again, tell the operator of {issuer} that the iss it returns does not match its issuer"
            )),
            "{last}"
        );
        assert!(!last.contains("--forget-client"), "{last}");
    }
    assert_eq!(count(d, "register"), 1);
}

#[test]
fn a_challenges_resource_metadata_that_cannot_be_reached_says_how_to_give_a_token() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let srv = server(d);
    let url = endpoint(&srv, "rm-nxdomain");
    let (code, last) = last_said(&srv, d, "rm-nxdomain", &[]);
    assert_eq!(code, 3, "{last}");
    assert!(
        last.contains(&format!(
            "{url} asks for a sign-in, but the protected resource metadata its challenge names, https://metadata.invalid/prm, cannot be reached ("
        )),
        "{last}"
    );
    assert!(
        last.ends_with("): it cannot be signed in to automatically; with a token it takes, pass --header 'Authorization: env:VAR' (VAR holding \"Bearer TOKEN\")"),
        "{last}"
    );
}

#[test]
fn a_scope_refusal_of_a_token_given_with_header_names_the_scope_asked() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let srv = server(d);
    let r = call(
        d,
        &endpoint(&srv, "scope-header"),
        &["--header", "Authorization: Bearer given-token"],
    );
    assert_eq!(r.code, 2, "{}", r.stderr);
    let last = *said(&r).last().unwrap();
    assert!(
        last.ends_with("HTTP 403 Forbidden (insufficient_scope): the token does not allow this; the server asks for scope admin"),
        "{}",
        r.stderr
    );
}

#[test]
fn a_missing_capability_in_an_http_error_without_id_names_the_capability() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let srv = server(d);
    // The answer to server/discover, as one with its id would be: said
    // with the capability, and no fallback to the 2025-11-25 handshake
    // (a refusal of the handshake: exit 2).
    let r = call(d, &format!("{}/plain/missing-cap", srv.url), &[]);
    r.assert_said(
        2,
        "server/discover failed: JSON-RPC error -32021: Missing capability (the server needs a client capability this client did not declare (-32021): {\"elicitation\":{\"form\":{}}})",
    );
    assert!(!r.stderr.contains("initialize"), "{}", r.stderr);
}

/// A server on this machine is reached directly even when the environment
/// names a proxy: a credential for it never goes through the proxy.
#[test]
fn a_credential_for_a_server_on_this_machine_never_goes_through_a_proxy() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let srv = server(d);
    let proxy_dir = tempfile::tempdir().unwrap();
    let proxy = server(proxy_dir.path());
    for url in [
        endpoint(&srv, "lenient"),
        endpoint(&srv, "lenient").replace("127.0.0.1", "localhost"),
    ] {
        let out = crate::common::sdk::ahp_in(d)
            .args([
                "mcp",
                "--header",
                "Authorization: Bearer env:TOK",
                "--call",
                "t",
                &url,
            ])
            .env("TOK", "a-token-for-this-machine")
            .env("HTTP_PROXY", &proxy.url)
            .env("http_proxy", &proxy.url)
            .env_remove("NO_PROXY")
            .env_remove("no_proxy")
            .output()
            .unwrap();
        let run = Run::of(&out, None);
        assert_ne!(run.code, 0, "{}", run.stderr);
    }
    // The server got the header, twice; the proxy was never asked.
    assert_eq!(
        requests(d).iter().filter(|(_, _, auth)| *auth).count(),
        2,
        "{:?}",
        requests(d)
    );
    assert!(
        recorded(proxy_dir.path()).is_empty(),
        "{:?}",
        recorded(proxy_dir.path())
    );
}

/// `auth logout` revokes the refresh token at the authorization server's
/// revocation endpoint before it deletes the sign-in here; `--no-revoke`
/// only deletes; a revocation that fails is said, and the sign-in is
/// deleted all the same.
#[test]
fn logout_revokes_the_grant_first_unless_told_not_to() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let srv = server(d);
    let url = endpoint(&srv, "lenient");
    let issuer = format!("{}/as/lenient", srv.url);
    let revokes = |d: &Path| -> Vec<Value> {
        recorded(d)
            .into_iter()
            .filter(|e| e["event"] == "revoke")
            .collect()
    };
    assert_eq!(call_signing_in(d, &url).code, 0);
    let out = ahp(d, &["auth", "logout", &url]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stdout.starts_with(&format!(
            "revoked the refresh token at {issuer}\nsigned out of {url}"
        )),
        "{}",
        out.stdout
    );
    // The token revoked is never said.
    for text in [&out.stdout, &out.stderr] {
        assert!(
            !text.contains("refresh-") && !text.contains("access-"),
            "{text}"
        );
    }
    let r = revokes(d);
    assert_eq!(r.len(), 1, "{r:?}");
    assert_eq!(r[0]["hint"], "refresh_token");
    assert_eq!(r[0]["known"], true, "the token revoked is the one issued");
    // --no-revoke: deleted here only.
    assert_eq!(call_signing_in(d, &url).code, 0);
    let out = ahp(d, &["auth", "logout", "--no-revoke", &url]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stdout.starts_with("signed out of"), "{}", out.stdout);
    assert_eq!(revokes(d).len(), 1);
    // A revocation that fails is said; the sign-in is deleted all the same.
    let url = endpoint(&srv, "revoke-500");
    assert_eq!(call_signing_in(d, &url).code, 0);
    let out = ahp(d, &["auth", "logout", &url]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stderr.contains(&format!(
            "the revocation request to {}/revoke/revoke-500 failed: HTTP 500; the sign-in is deleted here all the same",
            srv.url
        )),
        "{}",
        out.stderr
    );
    assert_eq!(revokes(d).len(), 2);
    let status = ahp(d, &["auth", "status"]);
    assert!(!status.stdout.contains("revoke-500"), "{}", status.stdout);
}

/// `--stored-auth-only` uses a stored sign-in and never starts one, even
/// with `--browser`: without one it ends with exit 3 naming `auth login`.
/// `auth login` on a stored sign-in keeps it; `--force` signs in anew.
#[test]
fn stored_auth_only_never_signs_in_and_login_force_always_does() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let srv = server(d);
    let url = endpoint(&srv, "lenient");
    let b = browser();
    assert_eq!(call_signing_in(d, &url).code, 0);
    assert_eq!(count(d, "authorize"), 1);
    let stored = call(d, &url, &["--stored-auth-only", "--browser", &b]);
    assert_eq!(stored.code, 0, "{}", stored.stderr);
    let login = ahp(d, &["auth", "login", "--browser", &b, &url]);
    assert_eq!(login.code, 0, "{}", login.stderr);
    assert_eq!(count(d, "authorize"), 1, "the stored sign-in is kept");
    let forced = ahp(d, &["auth", "login", "--force", "--browser", &b, &url]);
    assert_eq!(forced.code, 0, "{}", forced.stderr);
    assert_eq!(count(d, "authorize"), 2, "--force signs in anew");
    assert_eq!(ahp(d, &["auth", "logout", "--no-revoke", &url]).code, 0);
    let none = call(d, &url, &["--stored-auth-only", "--browser", &b]);
    assert_eq!(none.code, 3, "{}", none.stderr);
    assert!(
        none.stderr.contains("--stored-auth-only") && none.stderr.contains("ahp-elicit auth login"),
        "{}",
        none.stderr
    );
    // The flag refuses --browser: it is not offered as a way out.
    assert!(
        !none.stderr.contains("pass --browser CMD"),
        "{}",
        none.stderr
    );
    assert_eq!(count(d, "authorize"), 2, "no sign-in was started");
    // A stored sign-in the restarted authorization server no longer
    // honours: forgotten, and nothing says a new one is under way.
    assert_eq!(call_signing_in(d, &url).code, 0);
    let registered = count(d, "register");
    restart(&srv);
    let forgot = call(d, &url, &["--stored-auth-only", "--browser", &b]);
    assert_eq!(forgot.code, 3, "{}", forgot.stderr);
    assert!(
        !forgot.stderr.contains("registering again") && !forgot.stderr.contains("signing in again"),
        "{}",
        forgot.stderr
    );
    assert_eq!(count(d, "authorize"), 3, "no sign-in was started");
    assert_eq!(count(d, "register"), registered, "no registration was made");
}

/// `--wait-for-sign-in`: a run that cannot sign in waits while a person
/// signs in with `auth login` elsewhere, then goes on with that sign-in.
#[test]
fn a_run_waits_for_a_sign_in_made_elsewhere() {
    use std::io::{BufRead, BufReader};
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let srv = server(d);
    let url = endpoint(&srv, "lenient");
    let mut waiting = crate::common::sdk::ahp_in(d)
        .args(["mcp", "--wait-for-sign-in", "120", "--call", "t", &url])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut err = BufReader::new(waiting.stderr.take().unwrap());
    let mut said = String::new();
    loop {
        let mut line = String::new();
        assert_ne!(
            err.read_line(&mut line).unwrap(),
            0,
            "ended before waiting: {said}"
        );
        said.push_str(&line);
        if line.contains("needs a sign-in: waiting up to 2 minutes for one stored by") {
            break;
        }
    }
    let b = browser();
    let login = ahp(d, &["auth", "login", "--browser", &b, &url]);
    assert_eq!(login.code, 0, "{}", login.stderr);
    let out = waiting.wait_with_output().unwrap();
    std::io::Read::read_to_string(&mut err, &mut said).unwrap();
    assert_eq!(out.status.code(), Some(0), "{said}");
    // The sign-in is said found where auth login kept it, not made here.
    assert_eq!(
        said.matches("found a sign-in stored by another process; secrets kept in ")
            .count(),
        1,
        "{said}"
    );
    assert!(!said.contains("signed in; secrets kept in"), "{said}");
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("signed in"),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    assert_eq!(count(d, "authorize"), 1, "one sign-in, made by auth login");
    // Another account: the command named is the one that ends the wait,
    // and a wait that runs out says so.
    let other = call(d, &url, &["--wait-for-sign-in", "1", "--account", "bob"]);
    assert_eq!(other.code, 3, "{}", other.stderr);
    assert!(
        other.stderr.contains(&format!(
            "waiting up to 1 second for one stored by \"ahp-elicit auth login --account bob {url}\""
        )) && other
            .stderr
            .contains("no sign-in was stored within 1 second"),
        "{}",
        other.stderr
    );
    // The memory store is nobody else's to write.
    let memory = call(
        d,
        &url,
        &["--wait-for-sign-in", "5", "--auth-store", "memory"],
    );
    assert_eq!(memory.code, 2, "{}", memory.stderr);
}

/// The TypeScript SDK example restarted (tokens and clients forgotten, no
/// refresh token issued), signed in to again with a browser that shows the
/// error page of an unknown client instead of failing: the stored token's
/// HTTP 500 makes the run forget the kept registration, so the one sign-in
/// of that run registers again and succeeds.
#[test]
fn a_restarted_server_without_refresh_tokens_is_signed_in_to_in_one_run_by_any_browser() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let srv = server(d);
    let url = endpoint(&srv, "forgetful-norefresh");
    assert_eq!(call_signing_in(d, &url).code, 0);
    assert_eq!(count(d, "register"), 1);
    restart(&srv);
    // A browser that ends well whatever page it was shown.
    let shown_anything = format!("sh -c '{} \"$1\"; true' sh", browser());
    let again = call(
        d,
        &url,
        &["--browser", &shown_anything, "--auth-timeout", "20s"],
    );
    assert_eq!(again.code, 0, "{}", again.stderr);
    assert_eq!(count(d, "register"), 2, "registered again in the same run");
}
