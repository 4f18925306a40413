//! Signing in without a person (`--grant`), end to end with the binary,
//! against an authorization server and identity provider of the tests'
//! own: tests/servers/grants_as.py (PyJWT and cryptography from the Python
//! SDK's environment, `.ci/sdk-setup.sh`), which verifies client secrets
//! (basic and post), `private_key_jwt` signatures, assertions (signature,
//! audience, expiry), the token exchange for an ID-JAG and `resource`, and
//! records what it did in `as.jsonl`.
//!
//! What is proved: each grant signs in and calls a tool with no browser and
//! no terminal (stdin closed, no `--browser`); the sign-in is stored with
//! its grant (`auth status`) and used again; a token that ends is replaced
//! by a new grant in the next run, with the assertion file read again (it
//! was rotated); a 403 `insufficient_scope` gets a new grant for the wider
//! scope; `invalid_grant`, `invalid_scope` and `unauthorized_client` end the
//! run with exit 3 and their typed sentence after one token request (no
//! retry, no other grant); where the authorization server offers DPoP
//! (tests/servers/hostile_as.py's `dpop` scenario, which checks every
//! proof) a grant's token is bound to a key of the sign-in's and every
//! request proves it; a secret given on the command line is refused;
//! no client secret, key, assertion or ID token reaches stdout, stderr,
//! `--log` or `--events`.

#![cfg(unix)]

use std::path::Path;
use std::time::{Duration, SystemTime};

use serde_json::Value;

use super::oauth::{ahp, assert_unseen_in, logged_call, recorded, Run};
use crate::common::sdk::{installed, root, start_http, HttpServer};

const BASIC_SECRET: &str = "basic-secret-Vq3xZ8";
const POST_SECRET: &str = "post-secret-Lm4pT2";
const ENTERPRISE_SECRET: &str = "enterprise-secret-Rt7yU1";
const NO_CC_SECRET: &str = "nocc-secret-Hb9wQ5";
const IDP_SECRET: &str = "idp-secret-Kc2nM8";

/// The server, writing its keys and records into `dir`, its tokens
/// lasting `expires_in` seconds; None when the Python SDK's environment is
/// not installed.
fn server(dir: &Path, expires_in: u32) -> Option<HttpServer> {
    let py = root().join(".ci/sdk/venv/bin/python");
    if !installed("the Python MCP SDK", &py) {
        return None;
    }
    Some(start_http(&[
        py.display().to_string(),
        root()
            .join("tests/servers/grants_as.py")
            .display()
            .to_string(),
        "--dir".into(),
        dir.display().to_string(),
        "--expires-in".into(),
        expires_in.to_string(),
    ]))
}

/// A new folder and the server writing into it (see `server`); None
/// when the Python SDK's environment is not installed.
fn start(expires_in: u32) -> Option<(tempfile::TempDir, HttpServer)> {
    let dir = tempfile::tempdir().unwrap();
    let srv = server(dir.path(), expires_in)?;
    Some((dir, srv))
}

/// The server's base (`http://127.0.0.1:PORT`) of its MCP URL.
fn base(url: &str) -> &str {
    url.trim_end_matches("/mcp")
}

/// A JWT the server mints at `path` (`workload?sub=…`, `id-token`).
fn mint(url: &str, path: &str) -> String {
    let u = format!("{}/mint/{path}", base(url));
    ureq::get(&u)
        .call()
        .unwrap()
        .into_body()
        .read_to_string()
        .unwrap()
}

/// `value` written to the private file `dir/name`; its `file:` reference.
fn secret_file(dir: &Path, name: &str, value: &str) -> String {
    use std::os::unix::fs::PermissionsExt;
    let p = dir.join(name);
    std::fs::write(&p, value).unwrap();
    std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o600)).unwrap();
    format!("file:{}", p.display())
}

/// `mcp --call TOOL` with `--log`, `--events`, the grant flags `grant` and
/// the MCP URL, in `dir`: stdin closed, no browser.
fn call(dir: &Path, url: &str, tool: &str, grant: &[&str]) -> Run {
    write_answers(dir);
    logged_call(dir, &["--answers", "answers.json"], tool, grant, url)
}

/// `dir/answers.json`: the answer to whoami's form.
fn write_answers(dir: &Path) {
    std::fs::write(
        dir.join("answers.json"),
        r#"{"action":"accept","content":{"reason":"audit"}}"#,
    )
    .unwrap();
}

/// The grant flags of client credentials for `client_id` with a client
/// secret.
fn client_secret<'a>(client_id: &'a str, secret: &'a str) -> Vec<&'a str> {
    client_credentials(client_id, "--client-secret", secret, &[])
}

/// The grant flags of client credentials for `client_id`, its credential
/// given by `flag` (`--client-secret`, `--client-key`) and `reference`,
/// then `more`.
fn client_credentials<'a>(
    client_id: &'a str,
    flag: &'a str,
    reference: &'a str,
    more: &[&'a str],
) -> Vec<&'a str> {
    let mut flags = vec![
        "--grant",
        "client-credentials",
        "--client-id",
        client_id,
        flag,
        reference,
    ];
    flags.extend_from_slice(more);
    flags
}

/// The tool's text answer of a run that ended with exit 0.
fn ok_text(r: &Run) -> String {
    assert_eq!(r.code, 0, "{}", r.stderr);
    text(r)
}

/// whoami's answer for the client `client` signed in as itself.
fn whoami_as(client: &str) -> String {
    format!("whoami: sub={client} client={client} scopes=read reason=audit")
}

/// The tool's text answer.
fn text(r: &Run) -> String {
    let v: Value = serde_json::from_str(&r.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}\nstderr: {}", r.stdout, r.stderr));
    v["content"][0]["text"].as_str().unwrap().to_owned()
}

/// The recorded events named `event`.
fn events(dir: &Path, event: &str) -> Vec<Value> {
    recorded(dir)
        .into_iter()
        .filter(|e| e["event"] == event)
        .collect()
}

/// None of `secrets` is in the runs' stdout and stderr, nor in `dir`'s
/// `--log` and `--events` files (both written when a form was `answered`).
fn assert_unseen(dir: &Path, runs: &[&Run], secrets: &[&str], answered: bool) {
    let (log, ev) = assert_unseen_in(dir, runs, secrets, 9);
    if answered {
        assert!(ev.contains("audit"), "--events: {ev}");
        assert!(!log.is_empty(), "--log was written");
    }
}

/// The sign-in stored in `dir` for the account `default`.
fn stored(dir: &Path) -> Value {
    std::fs::read_dir(dir.join("state/oauth"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .map(|p| serde_json::from_str::<Value>(&std::fs::read_to_string(p).unwrap()).unwrap())
        .find(|s| s["account"] == "default")
        .expect("a sign-in for the account default")
}

#[test]
fn client_credentials_sign_in_with_basic_and_post_are_stored_with_their_grant_and_step_up() {
    let Some((dir, s)) = start(3600) else { return };
    let (d, url) = (dir.path(), &s.url);
    let basic = secret_file(d, "basic", BASIC_SECRET);
    let cc = client_secret("basic-client", &basic);
    let first = call(d, url, "whoami", &cc);
    assert_eq!(ok_text(&first), whoami_as("basic-client"));
    let t = events(d, "token");
    assert_eq!(t.len(), 1, "{t:?}");
    assert_eq!(t[0]["grant"], "client_credentials");
    assert_eq!(t[0]["method"], "client_secret_basic");
    assert_eq!(t[0]["resource"], url.as_str());
    // Stored with its grant, said by auth status.
    assert_eq!(stored(d)["grant"], "client_credentials");
    let status = ahp(d, &["auth", "status"]);
    assert!(
        status.stdout.contains("  grant:     client credentials\n"),
        "{}",
        status.stdout
    );
    // The next run uses the stored token: no new grant.
    let again = call(d, url, "whoami", &cc);
    assert_eq!(again.code, 0, "{}", again.stderr);
    assert_eq!(events(d, "token").len(), 1);
    // A 403 insufficient_scope: a new grant for the wider scope, no person.
    let admin = call(d, url, "admin", &cc);
    assert_eq!(
        ok_text(&admin),
        "admin: sub=basic-client client=basic-client scopes=read admin"
    );
    let t = events(d, "token");
    assert_eq!(t.len(), 2, "{t:?}");
    assert_eq!(t[1]["scope"], "read admin");
    assert_eq!(events(d, "insufficient_scope").len(), 1);
    // client_secret_post, chosen with --client-auth, for another account.
    let post = secret_file(d, "post", POST_SECRET);
    let more = ["--client-auth", "post", "--account", "ci"];
    let flags = client_credentials("post-client", "--client-secret", &post, &more);
    let p = call(d, url, "whoami", &flags);
    assert_eq!(ok_text(&p), whoami_as("post-client"));
    assert_eq!(events(d, "token")[2]["method"], "client_secret_post");
    // The secret itself on the command line is refused, and not repeated.
    let literal = call(
        d,
        url,
        "whoami",
        &client_secret("basic-client", BASIC_SECRET),
    );
    assert_eq!(literal.code, 2, "{}", literal.stderr);
    assert!(
        literal.stderr.contains("env:VAR or file:PATH"),
        "{}",
        literal.stderr
    );
    let access = stored(d)["tokens"]["access_token"]
        .as_str()
        .unwrap()
        .to_owned();
    assert_unseen(
        d,
        &[&first, &again, &admin, &p, &status],
        &[BASIC_SECRET, POST_SECRET, &access],
        true,
    );
    assert!(!literal.stderr.contains(BASIC_SECRET));
}

#[test]
fn the_jwt_bearer_grant_reads_a_rotated_assertion_again_when_its_token_ends() {
    let Some((dir, s)) = start(2) else { return };
    let (d, url) = (dir.path(), &s.url);
    let jwt1 = mint(url, "workload?sub=workload-1");
    let assertion = secret_file(d, "ci-token", &jwt1);
    let grant = ["--grant", "jwt-bearer", "--assertion", &assertion];
    let first = call(d, url, "whoami", &grant);
    assert!(
        ok_text(&first).starts_with("whoami: sub=workload-1 "),
        "{}",
        first.stdout
    );
    // The CI system rotates the token in place; the access token ends.
    let jwt2 = mint(url, "workload?sub=workload-2");
    secret_file(d, "ci-token", &jwt2);
    let at = stored(d)["tokens"]["expires_at"]
        .as_str()
        .map(|s| humantime::parse_rfc3339(s).unwrap())
        .unwrap();
    assert!(at < SystemTime::now() + Duration::from_secs(60), "{at:?}");
    crate::common::wait_until("the access token's end", || SystemTime::now() > at);
    let second = call(d, url, "whoami", &grant);
    assert!(
        ok_text(&second).starts_with("whoami: sub=workload-2 "),
        "{}",
        second.stdout
    );
    let subs: Vec<Value> = events(d, "token")
        .iter()
        .map(|t| t["sub"].clone())
        .collect();
    assert_eq!(subs, ["workload-1", "workload-2"]);
    assert_eq!(stored(d)["grant"], "jwt_bearer");
    assert_unseen(d, &[&first, &second], &[&jwt1, &jwt2], true);
}

#[test]
fn refusals_end_the_run_with_their_typed_sentence_after_one_request() {
    let Some((dir, s)) = start(3600) else { return };
    let (d, url) = (dir.path(), &s.url);
    let wrong_audience = mint(url, "workload?aud=https://wrong.example");
    let cases: Vec<(String, Vec<String>, &str, &str)> = vec![
        (
            mint(url, "workload?exp=-120"),
            vec!["--grant".into(), "jwt-bearer".into()],
            "(invalid_grant: assertion expired): the assertion read from the file ",
            "is expired, issued for another audience or not trusted there: give a fresh one whose audience is",
        ),
        (
            wrong_audience.clone(),
            vec!["--grant".into(), "jwt-bearer".into()],
            "(invalid_grant: assertion audience is not this server)",
            "give a fresh one whose audience is",
        ),
        (
            mint(url, "workload?sub=unauthorized-workload"),
            vec!["--grant".into(), "jwt-bearer".into()],
            "(unauthorized_client: workload may not use this grant)",
            "may not use this grant at",
        ),
        (
            mint(url, "workload"),
            vec!["--grant".into(), "jwt-bearer".into(), "--scope".into(), "read forbidden".into()],
            "(invalid_scope: scope not allowed for this client)",
            "may not have every scope asked for (read forbidden): ask for others with --scope",
        ),
    ];
    let mut runs = Vec::new();
    let mut jwts = Vec::new();
    for (i, (jwt, flags, why, way_out)) in cases.iter().enumerate() {
        let before = recorded(d).len();
        let f = secret_file(d, &format!("jwt-{i}"), jwt);
        let mut args: Vec<&str> = flags.iter().map(String::as_str).collect();
        args.extend(["--assertion", &f]);
        let r = call(d, url, "whoami", &args);
        assert_eq!(r.code, 3, "{}", r.stderr);
        assert!(
            r.stderr.contains("the JWT bearer grant at "),
            "{}",
            r.stderr
        );
        assert!(r.stderr.contains(why), "{why}: {}", r.stderr);
        assert!(r.stderr.contains(way_out), "{way_out}: {}", r.stderr);
        assert!(
            r.stderr
                .contains("nothing is retried and no other grant is tried"),
            "{}",
            r.stderr
        );
        // One token request, refused; none after it.
        let new: Vec<Value> = recorded(d)[before..].to_vec();
        assert_eq!(new.len(), 1, "{new:?}");
        assert_eq!(new[0]["event"], "refused");
        runs.push(r);
        jwts.push(jwt.clone());
    }
    // unauthorized_client for client credentials too.
    let nocc = secret_file(d, "nocc", NO_CC_SECRET);
    let before = recorded(d).len();
    let r = call(d, url, "whoami", &client_secret("no-cc-client", &nocc));
    assert_eq!(r.code, 3, "{}", r.stderr);
    assert!(
        r.stderr.contains("the client credentials grant at ")
            && r.stderr
                .contains("the client no-cc-client may not use this grant at"),
        "{}",
        r.stderr
    );
    assert_eq!(recorded(d).len(), before + 1);
    runs.push(r);
    let refs: Vec<&Run> = runs.iter().collect();
    let mut secrets: Vec<&str> = jwts.iter().map(String::as_str).collect();
    secrets.push(NO_CC_SECRET);
    assert_unseen(d, &refs, &secrets, false);
    assert!(events(d, "token").is_empty());
}

#[test]
fn enterprise_exchanges_the_id_token_for_an_id_jag_then_signs_in_with_it() {
    let Some((dir, s)) = start(3600) else { return };
    let (d, url) = (dir.path(), &s.url);
    let id_token = mint(url, "id-token?sub=ada@example.com");
    let idt = secret_file(d, "id-token", &id_token);
    let client = secret_file(d, "client", ENTERPRISE_SECRET);
    let idp = secret_file(d, "idp", IDP_SECRET);
    let idp_endpoint = format!("{}/idp/token", base(url));
    let r = call(
        d,
        url,
        "whoami",
        &[
            "--grant",
            "enterprise",
            "--client-id",
            "enterprise-client",
            "--client-secret",
            &client,
            "--idp-token-endpoint",
            &idp_endpoint,
            "--idp-client-id",
            "idp-client",
            "--idp-client-secret",
            &idp,
            "--id-token",
            &idt,
        ],
    );
    assert_eq!(
        ok_text(&r),
        "whoami: sub=ada@example.com client=enterprise-client scopes=read reason=audit"
    );
    let all = recorded(d);
    let kinds: Vec<&str> = all.iter().map(|e| e["event"].as_str().unwrap()).collect();
    assert_eq!(kinds, ["exchange", "token"]);
    assert_eq!(all[0]["audience"], base(url));
    assert_eq!(all[0]["resource"], url.as_str());
    assert_eq!(all[0]["method"], "client_secret_basic");
    assert_eq!(all[1]["grant"], "id-jag");
    assert_eq!(stored(d)["grant"], "enterprise");
    assert_unseen(d, &[&r], &[&id_token, ENTERPRISE_SECRET, IDP_SECRET], true);
}

#[test]
fn private_key_jwt_signs_with_an_rs256_pem_key_and_an_es256_jwk() {
    let Some((dir, s)) = start(3600) else { return };
    let (d, url) = (dir.path(), &s.url);
    let mut runs = Vec::new();
    for (client, key, alg, account) in [
        ("rs-client", "rs-client.pem", "RS256", "rs"),
        ("es-client", "es-client.jwk", "ES256", "es"),
    ] {
        let key = format!("file:{}", d.join(key).display());
        let flags = client_credentials(client, "--client-key", &key, &["--account", account]);
        let r = call(d, url, "whoami", &flags);
        assert_eq!(ok_text(&r), whoami_as(client));
        let t = events(d, "token");
        let last = t.last().unwrap();
        assert_eq!(last["method"], "private_key_jwt");
        assert_eq!(last["alg"], alg);
        runs.push(r);
    }
    // A key of another type than --client-key-alg says is refused before
    // any request.
    let before = recorded(d).len();
    let key = format!("file:{}", d.join("es-client.pem").display());
    let flags = client_credentials(
        "es-client",
        "--client-key",
        &key,
        &["--client-key-alg", "RS256"],
    );
    let r = call(d, url, "whoami", &flags);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(r.stderr.contains("--client-key: "), "{}", r.stderr);
    assert_eq!(recorded(d).len(), before);
    // No line of either private key is shown anywhere.
    let keys: Vec<String> = ["rs-client.pem", "es-client.jwk", "es-client.pem"]
        .iter()
        .map(|k| std::fs::read_to_string(d.join(k)).unwrap())
        .collect();
    let lines: Vec<&str> = keys
        .iter()
        .flat_map(|k| k.lines())
        .filter(|l| l.len() > 20 && !l.starts_with("-----"))
        .collect();
    runs.push(r);
    let refs: Vec<&Run> = runs.iter().collect();
    assert_unseen(d, &refs, &lines, true);
}

#[test]
fn a_server_entry_in_the_configuration_file_chooses_the_grant() {
    let Some((dir, s)) = start(3600) else { return };
    let (d, url) = (dir.path(), &s.url);
    let basic = secret_file(d, "basic", BASIC_SECRET);
    let config = d.join("config.toml");
    let write = |secret: &str| {
        std::fs::write(
            &config,
            format!(
                "[servers.\"{url}\"]\ngrant = \"client-credentials\"\nclient-id = \"basic-client\"\nclient-secret = \"{secret}\"\n"
            ),
        )
        .unwrap()
    };
    let run = || {
        let out = crate::common::sdk::ahp_in(d)
            .args(["mcp", "--answers", "answers.json", "--call", "whoami", url])
            .current_dir(d)
            .env("AHP_ELICIT_CONFIG", &config)
            .output()
            .unwrap();
        Run::of(&out, None)
    };
    write_answers(d);
    write(&basic);
    let r = run();
    assert_eq!(ok_text(&r), whoami_as("basic-client"));
    assert_eq!(events(d, "token")[0]["method"], "client_secret_basic");
    // The secret itself in the file is refused, naming the key.
    std::fs::remove_dir_all(d.join("state")).unwrap();
    write(BASIC_SECRET);
    let r = run();
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(
        r.stderr
            .contains("client-secret: give env:VAR or file:PATH"),
        "{}",
        r.stderr
    );
    assert!(!r.stderr.contains(BASIC_SECRET));
    assert_eq!(events(d, "token").len(), 1);
}

#[test]
fn auth_login_takes_the_same_grant_flags_and_says_the_grant() {
    let Some((dir, s)) = start(3600) else { return };
    let (d, url) = (dir.path(), &s.url);
    let jwt = mint(url, "workload?sub=login-workload");
    let assertion = secret_file(d, "token", &jwt);
    let login = ahp(
        d,
        &[
            "auth",
            "login",
            "--grant",
            "jwt-bearer",
            "--assertion",
            &assertion,
            url,
        ],
    );
    assert_eq!(login.code, 0, "{}", login.stderr);
    assert!(
        login.stderr.contains(&format!(
            "signed in to {url} at {} (account default) with JWT bearer assertion; access for",
            base(url)
        )),
        "{}",
        login.stderr
    );
    // A later run with no grant flags uses the stored token while it lasts.
    let r = call(d, url, "whoami", &[]);
    assert!(
        ok_text(&r).starts_with("whoami: sub=login-workload "),
        "{}",
        r.stdout
    );
    assert_eq!(events(d, "token").len(), 1);
    assert_unseen(d, &[&login, &r], &[&jwt], true);
}

#[test]
fn a_grant_gets_a_dpop_bound_token_where_the_authorization_server_offers_dpop() {
    // tests/servers/hostile_as.py's `dpop` scenario checks every proof; its
    // token endpoint takes any grant from a client it registered (it does
    // not judge assertions: grants_as.py does that).
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let srv = super::hostile_auth::server(d);
    let url = super::hostile_auth::endpoint(&srv, "dpop");
    let registered: Value = serde_json::from_str(
        &ureq::post(&format!("{}/register/dpop", srv.url))
            .header("Content-Type", "application/json")
            .send(r#"{"redirect_uris":[]}"#)
            .unwrap()
            .into_body()
            .read_to_string()
            .unwrap(),
    )
    .unwrap();
    let client_id = registered["client_id"].as_str().unwrap();
    let assertion = secret_file(d, "token", "eyJhbGciOiJFUzI1NiJ9.e30.not-judged-here");
    let r = ahp(
        d,
        &[
            "mcp",
            "--call",
            "t",
            "--grant",
            "jwt-bearer",
            "--client-id",
            client_id,
            "--assertion",
            &assertion,
            &url,
        ],
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.contains("signed in"), "{}", r.stdout);
    let s = stored(d);
    assert_eq!(s["grant"], "jwt_bearer");
    assert_eq!(s["tokens"]["token_type"], "DPoP");
    assert!(s["dpop_key"].is_string());
    let dpop: Vec<Value> = events(d, "dpop");
    let at = |w: &str| dpop.iter().filter(|e| e["at"] == w).collect::<Vec<_>>();
    assert_eq!(at("token").len(), 1, "{dpop:?}");
    assert!(dpop.iter().all(|e| e["ok"] == true), "{dpop:?}");
    assert!(at("mcp").len() >= 3, "{dpop:?}");
    assert!(at("mcp").iter().all(|e| e["scheme"] == "DPoP"), "{dpop:?}");
    let token: Vec<Value> = events(d, "token");
    assert_eq!(
        token[0]["grant"],
        "urn:ietf:params:oauth:grant-type:jwt-bearer"
    );
}

#[test]
fn the_environment_alone_chooses_the_grant_as_a_ci_job_sets_it() {
    // GitLab's `id_tokens:` puts the JWT in a variable; the job names it.
    let Some((dir, s)) = start(3600) else { return };
    let (d, url) = (dir.path(), &s.url);
    let jwt = mint(url, "workload?sub=gitlab-job");
    write_answers(d);
    let out = crate::common::sdk::ahp_in(d)
        .args([
            "mcp",
            "--auth-store",
            "memory",
            "--log",
            "log.jsonl",
            "--events",
            "events.jsonl",
            "--answers",
            "answers.json",
            "--call",
            "whoami",
            url,
        ])
        .current_dir(d)
        .env("AHP_ELICIT_GRANT", "jwt-bearer")
        .env("AHP_ELICIT_ASSERTION", "env:MCP_ID_TOKEN")
        .env("MCP_ID_TOKEN", &jwt)
        .output()
        .unwrap();
    let r = Run::of(&out, None);
    assert!(
        ok_text(&r).starts_with("whoami: sub=gitlab-job "),
        "{}",
        r.stdout
    );
    assert_eq!(
        events(d, "token")[0]["grant"],
        "urn:ietf:params:oauth:grant-type:jwt-bearer"
    );
    assert_unseen(d, &[&r], &[&jwt], true);
}
