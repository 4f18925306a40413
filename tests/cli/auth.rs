//! `ahp-elicit auth status` and `auth logout` on a store written through
//! the file store: what is listed (never a token or secret), the `--json`
//! shape, URL and account matching, signing out of one sign-in, of every
//! one, forgetting client registrations, and unsafe files named with the
//! `chmod` that fixes them.
#![cfg(unix)]

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::time::{Duration, SystemTime};

use ahp_elicit::mcp::auth::file_store::FileStore;
use ahp_elicit::mcp::auth::store::{
    ClientKind, ClientRegistration, GrantType, Secret, SignIn, SignInKey, Store, Tokens,
};
use serde_json::Value;

const SECRETS: [&str; 3] = ["ACCESS-TOKEN-XYZ", "REFRESH-TOKEN-XYZ", "CLIENT-SECRET-XYZ"];

fn sign_in(mcp_url: &str, resource: &str, account: &str, renewable: bool) -> SignIn {
    let now = SystemTime::now();
    SignIn {
        key: SignInKey {
            resource: resource.into(),
            issuer: "https://login.example.com".into(),
            account: account.into(),
        },
        mcp_url: mcp_url.into(),
        as_metadata_url: "https://login.example.com/.well-known/oauth-authorization-server".into(),
        client: ClientRegistration {
            issuer: "https://login.example.com".into(),
            kind: ClientKind::Dynamic,
            client_id: "client-1".into(),
            client_secret: Some(Secret::new(SECRETS[2])),
            client_secret_expires_at: None,
            token_endpoint_auth_method: "client_secret_basic".into(),
            redirect_uri: "http://127.0.0.1:51234/callback".into(),
        },
        tokens: Tokens {
            access_token: Secret::new(SECRETS[0]),
            token_type: "Bearer".into(),
            expires_at: Some(now + Duration::from_secs(3600)),
            refresh_token: renewable.then(|| Secret::new(SECRETS[1])),
            scopes_requested: vec!["mcp:read".into(), "mcp:write".into()],
            scopes_granted: Some(vec!["mcp:read".into()]),
            obtained_at: now,
        },
        grant: GrantType::AuthorizationCode,
        dpop_key: None,
    }
}

/// A store with two accounts on one server and a sign-in to another.
fn filled(dir: &Path) -> FileStore {
    let store = FileStore::open(dir).expect("store");
    let a = sign_in(
        "https://mcp.example.com/mcp",
        "https://mcp.example.com",
        "default",
        true,
    );
    store.save(&a).expect("save");
    store.save_client(&a.client).expect("client");
    store
        .save(&sign_in(
            "https://mcp.example.com/mcp",
            "https://mcp.example.com",
            "work",
            false,
        ))
        .expect("save");
    store
        .save(&sign_in(
            "https://other.example.org/mcp",
            "https://other.example.org/mcp",
            "default",
            true,
        ))
        .expect("save");
    store
}

/// `ahp-elicit ARGS --auth-store DIR`: (exit code, stdout, stderr).
fn auth(dir: &Path, args: &[&str]) -> (i32, String, String) {
    let out = crate::common::ahp()
        .arg("auth")
        .args(args)
        .arg("--auth-store")
        .arg(dir)
        .output()
        .expect("run");
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    (
        out.status.code().unwrap_or(-1),
        text(&out.stdout),
        text(&out.stderr),
    )
}

fn no_secret(text: &str) {
    for s in SECRETS {
        assert!(!text.contains(s), "{s} shown in:\n{text}");
    }
}

#[test]
fn status_lists_every_sign_in_without_a_secret() {
    let dir = tempfile::tempdir().expect("tempdir");
    let store = filled(dir.path());
    let (code, out, err) = auth(dir.path(), &["status"]);
    assert_eq!(code, 0, "{err}");
    no_secret(&out);
    no_secret(&err);
    let file = store
        .path_of(
            &sign_in(
                "https://mcp.example.com/mcp",
                "https://mcp.example.com",
                "default",
                true,
            )
            .key,
        )
        .display()
        .to_string();
    assert!(out.contains("https://mcp.example.com/mcp (account default)\n  resource:  https://mcp.example.com\n  issuer:    https://login.example.com\n  client:    dcr\n  grant:     browser sign-in\n  scopes:    mcp:read\n"), "{out}");
    assert!(
        out.contains("renewable: yes (a refresh token is stored)"),
        "{out}"
    );
    assert!(
        out.contains("renewable: no (sign in again when access ends)"),
        "{out}"
    );
    assert!(out.contains(&format!("  file:      {file}\n")), "{out}");
    assert_eq!(out.matches("(account ").count(), 3, "{out}");
    // The alias.
    let (code, listed, _) = auth(dir.path(), &["list"]);
    assert_eq!((code, listed), (0, out));
}

#[test]
fn status_json_has_one_object_per_sign_in() {
    let dir = tempfile::tempdir().expect("tempdir");
    filled(dir.path());
    let (code, out, err) = auth(
        dir.path(),
        &["status", "https://mcp.example.com/mcp", "--json"],
    );
    assert_eq!(code, 0, "{err}");
    no_secret(&out);
    let doc: Value = serde_json::from_str(&out).expect("JSON");
    let list = doc["sign_ins"].as_array().expect("sign_ins");
    assert_eq!(list.len(), 2, "{out}");
    assert_eq!(doc["unreadable"], serde_json::json!([]));
    let first = list
        .iter()
        .find(|s| s["account"] == "default")
        .expect("default");
    let mut keys: Vec<&str> = first
        .as_object()
        .expect("object")
        .keys()
        .map(String::as_str)
        .collect();
    keys.sort_unstable();
    assert_eq!(
        keys,
        [
            "account",
            "client_kind",
            "dpop",
            "expired",
            "expires_at",
            "expires_in_seconds",
            "file",
            "grant",
            "issuer",
            "mcp_url",
            "renewable",
            "resource",
            "scopes_granted"
        ]
    );
    assert_eq!(first["mcp_url"], "https://mcp.example.com/mcp");
    assert_eq!(first["resource"], "https://mcp.example.com");
    assert_eq!(first["issuer"], "https://login.example.com");
    assert_eq!(first["client_kind"], "dcr");
    assert_eq!(first["grant"], "authorization_code");
    assert_eq!(first["scopes_granted"], serde_json::json!(["mcp:read"]));
    assert_eq!(first["renewable"], true);
    assert_eq!(first["dpop"], Value::Null, "a bearer sign-in");
    assert_eq!(first["expired"], false);
    let left = first["expires_in_seconds"].as_i64().expect("seconds");
    assert!((3000..=3600).contains(&left), "{left}");

    // Matched by resource too, and by account.
    let (_, out, _) = auth(
        dir.path(),
        &[
            "status",
            "https://mcp.example.com",
            "--account",
            "work",
            "--json",
        ],
    );
    let doc: Value = serde_json::from_str(&out).expect("JSON");
    assert_eq!(doc["sign_ins"].as_array().map(Vec::len), Some(1));
    assert_eq!(doc["sign_ins"][0]["renewable"], false);
}

#[test]
fn status_names_a_dpop_sign_ins_key_by_its_thumbprint_never_the_key() {
    let dir = tempfile::tempdir().expect("tempdir");
    let store = FileStore::open(dir.path()).expect("store");
    let mut s = sign_in(
        "https://mcp.example.com/mcp",
        "https://mcp.example.com",
        "default",
        true,
    );
    s.tokens.token_type = "DPoP".into();
    let key = ahp_elicit::mcp::auth::dpop::new_key().expect("key");
    let thumbprint = ahp_elicit::mcp::auth::dpop::key_from(&key)
        .expect("readable")
        .thumbprint();
    s.dpop_key = Some(key.clone());
    store.save(&s).expect("save");
    // The key is in the 0600 file, as the tokens are.
    let file = std::fs::read_to_string(store.path_of(&s.key)).expect("file");
    assert!(file.contains(key.expose()));
    let (code, out, err) = auth(dir.path(), &["status"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains(&format!(
            "  dpop key:  ES256, thumbprint {thumbprint} (tokens bound to it)\n"
        )),
        "{out}"
    );
    let (code, json, err) = auth(dir.path(), &["status", "--json"]);
    assert_eq!(code, 0, "{err}");
    let doc: Value = serde_json::from_str(&json).expect("JSON");
    assert_eq!(
        doc["sign_ins"][0]["dpop"],
        serde_json::json!({"alg": "ES256", "thumbprint": thumbprint})
    );
    for text in [&out, &json, &err] {
        no_secret(text);
        assert!(!text.contains(key.expose()), "the key shown in:\n{text}");
    }
}

#[test]
fn status_of_an_unknown_url_exits_1_and_an_empty_store_lists_nothing() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (code, out, err) = auth(dir.path(), &["status"]);
    assert_eq!((code, out.as_str()), (0, ""), "{err}");
    assert_eq!(err, "ahp-elicit auth: no sign-in stored\n");
    filled(dir.path());
    // Identifiers are exact: a trailing slash is another URL.
    let (code, out, err) = auth(dir.path(), &["status", "https://mcp.example.com/mcp/"]);
    assert_eq!(code, 1);
    assert_eq!(out, "");
    assert_eq!(
        err,
        "ahp-elicit auth: no sign-in stored for https://mcp.example.com/mcp/\n"
    );
}

#[test]
fn an_unsafe_file_is_named_with_the_chmod_that_fixes_it() {
    let dir = tempfile::tempdir().expect("tempdir");
    let store = filled(dir.path());
    let key = sign_in(
        "https://other.example.org/mcp",
        "https://other.example.org/mcp",
        "default",
        true,
    )
    .key;
    let path = store.path_of(&key);
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).expect("chmod");
    let (code, out, err) = auth(dir.path(), &["status"]);
    assert_eq!(code, 2);
    let p = path.display();
    assert!(err.contains(&format!("refusing to read the sign-in file {p}: it is open to others (mode 0644); run chmod 600 {p}")), "{err}");
    // The other sign-ins are still listed.
    assert_eq!(out.matches("(account ").count(), 2, "{out}");
    no_secret(&err);
}

#[test]
fn logout_deletes_the_sign_ins_of_a_url() {
    let dir = tempfile::tempdir().expect("tempdir");
    let store = filled(dir.path());
    let (code, out, err) = auth(
        dir.path(),
        &["logout", "https://mcp.example.com/mcp", "--account", "work"],
    );
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        out,
        "signed out of https://mcp.example.com/mcp (account work) at https://login.example.com\n"
    );
    assert_eq!(store.all().expect("all").len(), 2);

    // Without --account: every account of that server; the client is
    // forgotten on request.
    let (code, out, _) = auth(
        dir.path(),
        &["logout", "https://mcp.example.com", "--forget-client"],
    );
    assert_eq!(code, 0);
    assert!(out.contains("(account default)"), "{out}");
    assert!(
        out.contains("forgot the client registered at https://login.example.com"),
        "{out}"
    );
    let left = store.all().expect("all");
    assert_eq!(left.len(), 1);
    assert_eq!(left[0].mcp_url, "https://other.example.org/mcp");
    assert_eq!(
        store.client("https://login.example.com").expect("client"),
        None
    );

    let (code, _, err) = auth(dir.path(), &["logout", "https://mcp.example.com/mcp"]);
    assert_eq!(code, 1);
    assert_eq!(
        err,
        "ahp-elicit auth: no sign-in stored for https://mcp.example.com/mcp\n"
    );
}

#[test]
fn logout_all_deletes_every_file_even_an_unreadable_one() {
    let dir = tempfile::tempdir().expect("tempdir");
    let store = filled(dir.path());
    std::fs::write(dir.path().join("oauth/0000000000000000.json"), "not json").expect("write");
    let (code, out, err) = auth(dir.path(), &["logout", "--all", "--forget-client"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        out,
        "signed out of every server (4 sign-in(s) deleted)\nforgot 1 client registration(s)\n"
    );
    assert!(store.entries().expect("entries").is_empty());
    assert_eq!(
        store.client("https://login.example.com").expect("client"),
        None
    );
}

#[test]
fn logout_needs_a_url_or_all_and_memory_is_refused() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (code, _, err) = auth(dir.path(), &["logout"]);
    assert_eq!(code, 2);
    assert!(err.contains("<URL|--all>"), "{err}");
    let out = crate::common::ahp()
        .args(["auth", "status", "--auth-store", "memory"])
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "ahp-elicit auth: --auth-store memory keeps nothing between runs: there is nothing to list or delete\n"
    );
}

#[test]
fn forgetting_the_client_of_a_url_without_a_sign_in_asks_the_server_and_says_when_it_cannot() {
    let dir = tempfile::tempdir().expect("tempdir");
    let store = filled(dir.path());
    // Nothing listens there: the authorization server cannot be found.
    let (code, out, err) = auth(
        dir.path(),
        &["logout", "http://127.0.0.1:1/mcp", "--forget-client"],
    );
    assert_eq!(code, 2, "{err}");
    assert!(out.is_empty(), "{out}");
    assert!(
        err.starts_with("ahp-elicit auth: no sign-in stored for http://127.0.0.1:1/mcp, and its authorization server could not be found to forget its client registration: ")
            && err.trim_end().ends_with("\"ahp-elicit auth logout --all --forget-client\" forgets every one"),
        "{err}"
    );
    // Nothing else was touched.
    assert!(store.client("https://login.example.com").unwrap().is_some());
    assert_eq!(store.all().unwrap().len(), 3);
}
