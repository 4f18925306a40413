//! DPoP (RFC 9449) against an authorization server of our own that checks
//! every proof for real: tests/servers/hostile_as.py's `dpop` scenarios,
//! whose proofs are checked by tests/servers/dpop_proof.py (signature
//! verified on P-256, `jti` never twice, `htm`, `htu`, `iat`, `ath`, the
//! key the token is bound to, the nonces). The stand-in browser
//! `.ci/mcp/follow-redirects.py` signs in.
//!
//! What is proved: a sign-in there binds its tokens to a key pair of its
//! own, kept with it in the `0600` file and never said (stdout, stderr,
//! `--log`, `--events`, `auth status`); every token request and every MCP
//! request carries a proof the server accepts, with `Authorization:
//! DPoP`; a later run proves with the stored key, and its refresh too;
//! both nonces are answered once and then kept; a step-up signs in again
//! bound; `auth logout` revokes with a proof (and the nonce); an
//! authorization server that does not offer DPoP (or offers only RS256)
//! gets bearer tokens and no proof.
//!
//! Every wait is for a process to end; the server's start is bounded only
//! as a safety net against a hang.

#![cfg(unix)]

use std::path::Path;

use serde_json::Value;

use super::hostile_auth::{endpoint, server};
use super::oauth::{ahp, assert_unseen_in, browser, logged_call, mode, only_json, recorded, Run};

/// `mcp --browser STAND-IN --log --events --call t URL` in `dir` (file
/// store in `dir/state`), with `extra` flags.
fn call(dir: &Path, url: &str, extra: &[&str]) -> Run {
    logged_call(dir, &["--browser", &browser()], "t", extra, url)
}

/// The one stored sign-in, parsed.
fn stored(dir: &Path) -> Value {
    let file = only_json(&dir.join("state/oauth"));
    assert_eq!(mode(&file), 0o600);
    serde_json::from_str(&std::fs::read_to_string(file).unwrap()).unwrap()
}

/// The DPoP events the server recorded at `at` (`token`, `mcp`,
/// `revoke`).
fn proofs(dir: &Path, at: &str) -> Vec<Value> {
    recorded(dir)
        .into_iter()
        .filter(|e| e["event"] == "dpop" && e["at"] == at)
        .collect()
}

/// The thumbprint of the stored sign-in's DPoP key, read as the client
/// reads it.
fn stored_thumbprint(dir: &Path) -> String {
    let key = stored(dir)["dpop_key"]
        .as_str()
        .expect("a DPoP key")
        .to_owned();
    ahp_elicit::mcp::auth::dpop::key_from(&ahp_elicit::mcp::auth::store::Secret::new(key))
        .expect("the stored key reads")
        .thumbprint()
}

/// None of `secrets` is in the runs' output, `--log` or `--events`.
fn unseen(dir: &Path, runs: &[&Run], secrets: &[&str]) {
    let (log, _) = assert_unseen_in(dir, runs, secrets, 10);
    assert!(!log.is_empty(), "a log was written");
}

#[test]
fn a_dpop_sign_in_binds_its_tokens_and_proves_every_request() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let srv = server(d);
    let url = endpoint(&srv, "dpop");
    let first = call(d, &url, &[]);
    assert_eq!(first.code, 0, "{}", first.stderr);
    assert!(first.stdout.contains("signed in"), "{}", first.stdout);
    // Stored with the sign-in: a DPoP token and the key it is bound to.
    let s = stored(d);
    assert_eq!(s["tokens"]["token_type"], "DPoP");
    let jkt = stored_thumbprint(d);
    // The token request and every MCP request carried a proof the server
    // took, signed with that key, with the DPoP scheme.
    let token = proofs(d, "token");
    assert_eq!(token.len(), 1, "{token:?}");
    assert_eq!(
        (&token[0]["ok"], &token[0]["jkt"]),
        (&Value::Bool(true), &Value::from(jkt.clone()))
    );
    let mcp = proofs(d, "mcp");
    assert!(
        mcp.len() >= 3,
        "initialize, tools/list, tools/call: {mcp:?}"
    );
    for e in &mcp {
        assert_eq!(e["ok"], true, "{e}");
        assert_eq!(e["jkt"], jkt.as_str());
        assert_eq!(e["scheme"], "DPoP");
    }
    // The key, the tokens: never said.
    // (This server's tokens are short words, `access-3`: the tests of
    // the sign-in keep them out of sight; here the key.)
    let key = s["dpop_key"].as_str().unwrap().to_owned();
    let access = s["tokens"]["access_token"].as_str().unwrap().to_owned();
    unseen(d, &[&first], &[&key]);
    for args in [&["auth", "status"][..], &["auth", "status", "--json"][..]] {
        let st = ahp(d, args);
        assert_eq!(st.code, 0, "{}", st.stderr);
        assert!(st.stdout.contains(&jkt), "{}", st.stdout);
        assert!(!st.stdout.contains(&key) && !st.stderr.contains(&key));
    }

    // A later run proves with the stored key: no new sign-in.
    let again = call(d, &url, &[]);
    assert_eq!(again.code, 0, "{}", again.stderr);
    let authorized = |d: &Path| {
        recorded(d)
            .iter()
            .filter(|e| e["event"] == "authorize")
            .count()
    };
    assert_eq!(authorized(d), 1);
    let mcp = proofs(d, "mcp");
    assert!(
        mcp.iter()
            .all(|e| e["ok"] == true && e["jkt"] == jkt.as_str()),
        "{mcp:?}"
    );

    // Its token ended: the refresh proves with the same key (the server
    // refuses a refresh token with another one), and the new token is
    // bound to it too.
    let file = only_json(&d.join("state/oauth"));
    let mut v = stored(d);
    v["tokens"]["expires_at"] = "2000-01-01T00:00:00Z".into();
    std::fs::write(&file, v.to_string()).unwrap();
    let refreshed = call(d, &url, &[]);
    assert_eq!(refreshed.code, 0, "{}", refreshed.stderr);
    assert_eq!(authorized(d), 1, "no browser for a refresh");
    let grants: Vec<String> = recorded(d)
        .iter()
        .filter(|e| e["event"] == "token")
        .map(|e| format!("{} {}", e["grant"], e["outcome"]))
        .collect();
    assert_eq!(
        grants,
        ["\"authorization_code\" \"ok\"", "\"refresh_token\" \"ok\""]
    );
    let token = proofs(d, "token");
    assert!(
        token
            .iter()
            .all(|e| e["ok"] == true && e["jkt"] == jkt.as_str()),
        "{token:?}"
    );
    assert_eq!(
        stored(d)["dpop_key"].as_str(),
        Some(key.as_str()),
        "the same key"
    );
    assert_ne!(
        stored(d)["tokens"]["access_token"].as_str(),
        Some(access.as_str())
    );
    assert!(proofs(d, "mcp").iter().all(|e| e["ok"] == true));
}

#[test]
fn both_nonces_are_answered_once_and_kept_and_logout_revokes_with_a_proof() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let srv = server(d);
    let url = endpoint(&srv, "dpop-nonce");
    let r = call(d, &url, &[]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    // The token endpoint asked for its nonce once; the request was sent
    // again with it.
    let token: Vec<(Value, Value)> = proofs(d, "token")
        .into_iter()
        .map(|e| {
            (
                e["ok"].clone(),
                e.get("why").or(e.get("nonce")).cloned().unwrap_or_default(),
            )
        })
        .collect();
    assert_eq!(
        token,
        [
            (Value::Bool(false), Value::from("nonce")),
            (Value::Bool(true), Value::from("as-nonce-1"))
        ]
    );
    // The MCP server asked for its own once; every later request of the
    // run carried it (kept, never asked again).
    let mcp = proofs(d, "mcp");
    assert_eq!(mcp[0]["why"], "nonce", "{mcp:?}");
    assert!(mcp.len() >= 4, "{mcp:?}");
    for e in &mcp[1..] {
        assert_eq!(
            (&e["ok"], &e["nonce"]),
            (&Value::Bool(true), &Value::from("rs-nonce-1")),
            "{mcp:?}"
        );
    }
    // Sign-out: the revocation request carries a proof, sent once more
    // with the authorization server's nonce, and the grant is revoked.
    let out = ahp(d, &["auth", "logout", &url]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let revoke: Vec<Value> = proofs(d, "revoke");
    assert_eq!(revoke.len(), 2, "{revoke:?}");
    assert_eq!(revoke[0]["why"], "nonce");
    assert_eq!(
        (&revoke[1]["ok"], &revoke[1]["nonce"]),
        (&Value::Bool(true), &Value::from("as-nonce-1"))
    );
    let revoked: Vec<Value> = recorded(d)
        .into_iter()
        .filter(|e| e["event"] == "revoke")
        .collect();
    assert_eq!(revoked.len(), 1, "{revoked:?}");
    assert_eq!(
        (&revoked[0]["known"], &revoked[0]["hint"]),
        (&Value::Bool(true), &Value::from("refresh_token"))
    );
    assert!(!d
        .join("state/oauth")
        .read_dir()
        .unwrap()
        .any(|e| { e.unwrap().path().extension().is_some_and(|x| x == "json") }));
}

#[test]
fn a_step_up_signs_in_again_bound_to_a_key() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let srv = server(d);
    let url = endpoint(&srv, "dpop-stepup");
    let r = call(d, &url, &[]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.contains("signed in"), "{}", r.stdout);
    assert_eq!(
        recorded(d)
            .iter()
            .filter(|e| e["event"] == "authorize")
            .count(),
        2,
        "the first sign-in, then the step-up"
    );
    let s = stored(d);
    assert_eq!(s["tokens"]["token_type"], "DPoP");
    let mut granted: Vec<&str> = s["tokens"]["scopes_granted"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    granted.sort_unstable();
    assert_eq!(granted, ["admin", "mcp"]);
    let jkt = stored_thumbprint(d);
    // The call that went through was proved with the step-up's key.
    let mcp = proofs(d, "mcp");
    assert!(mcp.iter().all(|e| e["ok"] == true), "{mcp:?}");
    assert_eq!(mcp.last().unwrap()["jkt"], jkt.as_str());
    assert!(proofs(d, "token").iter().all(|e| e["ok"] == true));
}

#[test]
fn bearer_tokens_and_no_proof_where_dpop_is_not_offered_with_es256() {
    for (scenario, said) in [
        ("plain-bearer", None),
        (
            "dpop-rs256",
            Some("offers DPoP only with RS256; ahp-elicit signs DPoP proofs with ES256 only: using bearer tokens there"),
        ),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let srv = server(d);
        let r = call(d, &endpoint(&srv, scenario), &[]);
        assert_eq!(r.code, 0, "{scenario}: {}", r.stderr);
        let s = stored(d);
        assert_eq!(s["tokens"]["token_type"], "Bearer", "{scenario}");
        assert!(s.get("dpop_key").is_none(), "{scenario}: {s}");
        let requests: Vec<Value> = recorded(d)
            .into_iter()
            .filter(|e| e["event"] == "request")
            .collect();
        assert!(requests.iter().any(|e| e["auth"] == true), "{scenario}");
        assert!(requests.iter().all(|e| e["dpop"] == false), "{scenario}: {requests:?}");
        match said {
            Some(text) => assert_eq!(r.stderr.matches(text).count(), 1, "{scenario}: {}", r.stderr),
            None => assert!(!r.stderr.contains("DPoP"), "{scenario}: {}", r.stderr),
        }
    }
}

#[test]
fn the_test_server_refuses_a_proof_that_is_not_right() {
    // The checks this family leans on are real: a tampered signature, the
    // wrong URL and a replayed proof are each refused (at the revocation
    // endpoint, which checks a proof before anything else).
    use ahp_elicit::mcp::auth::dpop::{key_from, new_key, proof};
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let srv = server(d);
    let revoke = format!("{}/revoke/dpop", srv.url);
    let key = key_from(&new_key().unwrap()).unwrap();
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .build()
        .into();
    let send = |p: &str| {
        agent
            .post(&revoke)
            .header("DPoP", p)
            .send_form([("token", "x")])
            .unwrap()
            .status()
            .as_u16()
    };
    let good = proof(&key, "POST", &revoke, None, None).unwrap();
    let mut tampered = good.clone().into_bytes();
    let last = tampered.len() - 2;
    tampered[last] = if tampered[last] == b'A' { b'B' } else { b'A' };
    let tampered = String::from_utf8(tampered).unwrap();
    let elsewhere = proof(
        &key,
        "POST",
        &format!("{}/revoke/other", srv.url),
        None,
        None,
    )
    .unwrap();
    assert_eq!(send(&tampered), 400);
    assert_eq!(send(&elsewhere), 400);
    assert_eq!(send(&good), 200);
    assert_eq!(send(&good), 400, "a replay");
    let why: Vec<Value> = proofs(d, "revoke")
        .into_iter()
        .map(|e| e.get("why").cloned().unwrap_or(Value::Null))
        .collect();
    assert_eq!(
        why,
        [
            Value::from("the signature does not verify"),
            Value::from(format!("htu is not {revoke}")),
            Value::Null,
            Value::from("jti seen before (a replayed proof)"),
        ]
    );
}
