//! The grants' tests against the tiny authorization server: what each
//! token request sends, the metadata's checks, which stored sign-in a
//! grant may use, and the renewal of a token that ends.

use super::*;
use crate::mcp::auth::fake_as::*;
use crate::mcp::auth::options::{AuthOptions, PreRegistered};
use crate::mcp::auth::store::{MemoryStore, Store};
use std::sync::Arc;

/// An authorizer for `base`'s MCP URL with the grant `grant`, the client
/// `cid` and secret `sec`, over `store`.
fn grant_authorizer(base: &str, grant: Grant, store: Arc<MemoryStore>) -> Authorizer {
    let mut o = AuthOptions::new(Ok(store));
    o.notices = crate::notice::Notices::collect().0;
    o.client = Some(PreRegistered {
        client_id: "cid".into(),
        client_secret: Some(Secret::new("client-secret-value")),
    });
    o.unattended = Some(Unattended {
        grant,
        client_auth: None,
        client_key: None,
    });
    Authorizer::new(&format!("{base}/mcp"), o)
}

/// The form of the `n`th POST to /token.
fn token_form(fake: &FakeAs, n: usize) -> Vec<(String, String)> {
    let seen = fake.seen.lock().unwrap();
    let (_, _, body) = seen
        .iter()
        .filter(|(m, t, _)| m == "POST" && t == "/token")
        .nth(n)
        .expect("a token request");
    url::form_urlencoded::parse(body.as_bytes())
        .into_owned()
        .collect()
}

fn posts(fake: &FakeAs) -> usize {
    fake.seen
        .lock()
        .unwrap()
        .iter()
        .filter(|(m, _, _)| m == "POST")
        .count()
}

#[test]
fn client_credentials_send_the_resource_and_scope_and_are_stored_with_the_grant() {
    let fake = token_as(
        200,
        r#"{"access_token":"cc-access-1","token_type":"Bearer","expires_in":60}"#,
    );
    let store = Arc::new(MemoryStore::default());
    let a = grant_authorizer(&fake.base, Grant::ClientCredentials, Arc::clone(&store));
    a.authorize(&first_401()).unwrap();
    assert_eq!(a.header().1.as_deref(), Some("Bearer cc-access-1"));
    let form = token_form(&fake, 0);
    assert!(form.contains(&("grant_type".into(), "client_credentials".into())));
    assert!(form.contains(&("resource".into(), format!("{}/mcp", fake.base))));
    // Neither the challenge nor the resource metadata names a scope.
    assert!(form.iter().all(|(k, _)| k != "scope"), "{form:?}");
    // client_secret_basic (no method listed): the secret is not in the form.
    assert!(form.iter().all(|(_, v)| v != "client-secret-value"));
    let kept = &store.all().unwrap()[0];
    assert_eq!(kept.grant, GrantType::ClientCredentials);
    assert_eq!(
        kept.client.token_endpoint_auth_method,
        "client_secret_basic"
    );
    assert_eq!(kept.client.kind, ClientKind::PreRegistered);
}

#[test]
fn a_grant_the_metadata_does_not_list_is_refused_before_any_token_request() {
    let fake = fake_as(|base, m, t, _| match (m, t) {
        ("GET", "/.well-known/oauth-authorization-server") => {
            let mut v: Value = serde_json::from_str(&metadata(base)).unwrap();
            v["grant_types_supported"] = json!(["authorization_code"]);
            (200, v.to_string())
        }
        _ => prm_and_metadata(base, m, t).unwrap_or((404, "{}".into())),
    });
    let a = grant_authorizer(
        &fake.base,
        Grant::ClientCredentials,
        Arc::new(MemoryStore::default()),
    );
    let e = a.authorize(&first_401()).unwrap_err();
    assert!(
        matches!(
            e,
            AuthError::Grant(GrantError::NotOffered {
                grant: "client_credentials",
                ..
            })
        ),
        "{e:?}"
    );
    assert_eq!(
        e.to_string(),
        format!("{} does not offer the client_credentials grant (its metadata lists authorization_code): choose another with --grant, or leave --grant out to sign in with a browser", fake.base)
    );
    assert_eq!(posts(&fake), 0);
}

#[test]
fn client_credentials_without_a_secret_or_key_say_what_to_give() {
    let fake = fake_as(|base, m, t, _| prm_and_metadata(base, m, t).unwrap_or((404, "{}".into())));
    let mut a = grant_authorizer(
        &fake.base,
        Grant::ClientCredentials,
        Arc::new(MemoryStore::default()),
    );
    a.opts.client.as_mut().unwrap().client_secret = None;
    let e = a.authorize(&first_401()).unwrap_err();
    assert!(
        e.to_string().ends_with("needs the client's credentials: --client-secret env:VAR|file:PATH, or --client-key file:PATH for private_key_jwt"),
        "{e}"
    );
    // --client-auth private-key-jwt without a key.
    a.opts.unattended.as_mut().unwrap().client_auth = Some(ClientAuth::PrivateKeyJwt);
    let e = a.authorize(&first_401()).unwrap_err();
    assert!(e.to_string().contains("needs --client-key"), "{e}");
    a.opts.client = None;
    let e = a.authorize(&first_401()).unwrap_err();
    assert!(
        matches!(e, AuthError::Grant(GrantError::NoClientId { .. })),
        "{e:?}"
    );
    assert_eq!(posts(&fake), 0);
}

#[test]
fn a_stored_sign_in_of_another_grant_or_client_is_not_used() {
    let fake = token_as(
        200,
        r#"{"access_token":"cc-access-2","token_type":"Bearer"}"#,
    );
    let store = Arc::new(MemoryStore::default());
    // A browser sign-in, then one of another client: neither is sent.
    let mut browser = stored(&fake.base, 3600, &["a"]);
    store.save(&browser).unwrap();
    let a = grant_authorizer(&fake.base, Grant::ClientCredentials, Arc::clone(&store));
    assert_eq!(a.header().1, None);
    browser.grant = GrantType::ClientCredentials;
    browser.client.client_id = "other-client".into();
    store.save(&browser).unwrap();
    let a = grant_authorizer(&fake.base, Grant::ClientCredentials, Arc::clone(&store));
    assert_eq!(a.header().1, None);
    a.authorize(&first_401()).unwrap();
    assert_eq!(a.header().1.as_deref(), Some("Bearer cc-access-2"));
    // The new sign-in replaced it, and is what the next run sends.
    let kept = &store.all().unwrap()[0];
    assert_eq!(kept.client.client_id, "cid");
    let next = grant_authorizer(&fake.base, Grant::ClientCredentials, Arc::clone(&store));
    assert_eq!(next.header().1.as_deref(), Some("Bearer cc-access-2"));
}

#[test]
fn tokens_that_end_are_replaced_by_a_new_grant_without_counting_as_sign_ins() {
    let n = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let count = Arc::clone(&n);
    let fake = fake_as(move |base, m, t, _| {
        if let Some(a) = prm_and_metadata(base, m, t) {
            return a;
        }
        match (m, t) {
            ("POST", "/token") => {
                let i = count.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                // Each token is already past its end when it arrives.
                (
                    200,
                    format!(
                        r#"{{"access_token":"short-{i}","token_type":"Bearer","expires_in":0}}"#
                    ),
                )
            }
            _ => (404, "{}".into()),
        }
    });
    let a = grant_authorizer(
        &fake.base,
        Grant::ClientCredentials,
        Arc::new(MemoryStore::default()),
    );
    a.authorize(&first_401()).unwrap();
    // More renewals than MAX_FLOWS sign-ins: each is a renewal.
    for i in 1..=(MAX_FLOWS as usize + 2) {
        let (generation, h) = a.header();
        assert_eq!(h, Some(format!("Bearer short-{}", i - 1)));
        a.authorize(&Unauthorized {
            status: 401,
            challenge: None,
            generation,
            request: None,
        })
        .unwrap();
    }
    assert_eq!(
        n.load(std::sync::atomic::Ordering::SeqCst),
        MAX_FLOWS as usize + 3
    );
}

#[test]
fn a_refused_jwt_bearer_grant_is_typed_and_sent_once() {
    let fake = token_as(
        400,
        r#"{"error":"invalid_grant","error_description":"audience"}"#,
    );
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("jwt");
    std::fs::write(&f, "eyJ.assertion-value-1.sig\n").unwrap();
    let assertion = SecretRef::parse("--assertion", &format!("file:{}", f.display())).unwrap();
    let mut a = grant_authorizer(
        &fake.base,
        Grant::JwtBearer { assertion },
        Arc::new(MemoryStore::default()),
    );
    // No client id: none is sent (the assertion is the credential).
    a.opts.client = None;
    let e = a.authorize(&first_401()).unwrap_err();
    let AuthError::Grant(GrantError::Refused { refusal, .. }) = &e else {
        panic!("{e:?}")
    };
    assert_eq!(*refusal, Refusal::InvalidGrant);
    assert!(!e.to_string().contains("assertion-value-1"), "{e}");
    assert_eq!(posts(&fake), 1);
    let form = token_form(&fake, 0);
    assert!(form.contains(&("grant_type".into(), JWT_BEARER.into())));
    assert!(form.contains(&("assertion".into(), "eyJ.assertion-value-1.sig".into())));
    assert!(form.iter().all(|(k, _)| k != "client_id"), "{form:?}");
}

#[test]
fn a_refresh_of_a_private_key_jwt_client_signs_a_new_assertion() {
    let fake = refresh_as(r#"{"access_token":"a2","token_type":"Bearer","expires_in":3600}"#);
    let store = Arc::new(MemoryStore::default());
    let mut s = stored(&fake.base, 30, &["a"]);
    s.grant = GrantType::JwtBearer;
    s.client.kind = ClientKind::PreRegistered;
    s.client.client_id = "cid".into();
    s.client.token_endpoint_auth_method = "private_key_jwt".into();
    store.save(&s).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("jwt");
    std::fs::write(&f, "unused").unwrap();
    let assertion = SecretRef::parse("--assertion", &format!("file:{}", f.display())).unwrap();
    let mut a = grant_authorizer(
        &fake.base,
        Grant::JwtBearer { assertion },
        Arc::clone(&store),
    );
    let key = crate::mcp::auth::jose::SigningKey::generate_es256().unwrap();
    a.opts.unattended.as_mut().unwrap().client_key = Some(Arc::new(key));
    assert_eq!(a.header().1.as_deref(), Some("Bearer a2"));
    let form = token_form(&fake, 0);
    assert!(form.contains(&("grant_type".into(), "refresh_token".into())));
    assert!(form.contains(&("client_assertion_type".into(), CLIENT_ASSERTION_TYPE.into())));
    let jwt = &form
        .iter()
        .find(|(k, _)| k == "client_assertion")
        .unwrap()
        .1;
    let claims = jwt.split('.').nth(1).unwrap();
    use base64::Engine;
    let claims: Value = serde_json::from_slice(
        &base64::engine::general_purpose::URL_SAFE_NO_PAD
            .decode(claims)
            .unwrap(),
    )
    .unwrap();
    assert_eq!(claims["iss"], "cid");
    assert_eq!(claims["sub"], "cid");
    assert_eq!(claims["aud"], fake.base.as_str());
    assert_eq!(
        claims["exp"].as_u64().unwrap() - claims["iat"].as_u64().unwrap(),
        CLIENT_ASSERTION_LIFETIME
    );
    assert!(claims["jti"].as_str().is_some_and(|j| j.len() >= 32));
    let header: Value = serde_json::from_slice(
        &base64::engine::general_purpose::URL_SAFE_NO_PAD
            .decode(jwt.split('.').next().unwrap())
            .unwrap(),
    )
    .unwrap();
    assert_eq!(header["alg"], "ES256");
    assert_eq!(header["typ"], "JWT");
}

#[test]
fn an_identity_provider_that_never_answers_is_bounded_by_the_request_timeout() {
    let fake = fake_as(|base, m, t, _| prm_and_metadata(base, m, t).unwrap_or((404, "{}".into())));
    // A listener that takes the connection and never answers.
    let silent = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let idp = format!("http://{}/token", silent.local_addr().unwrap());
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("id");
    std::fs::write(&f, "an.id-token.value").unwrap();
    let grant = Grant::Enterprise(IdentityProvider {
        token_endpoint: idp.clone(),
        client_id: "idp-client".into(),
        client_secret: None,
        id_token: SecretRef::parse("--id-token", &format!("file:{}", f.display())).unwrap(),
    });
    let mut a = grant_authorizer(&fake.base, grant, Arc::new(MemoryStore::default()));
    a.opts.request_timeout = std::time::Duration::from_millis(300);
    a.opts.request_timeout_flag = Some("--connect-timeout");
    // The HTTP agents take the limit when they are made.
    let a = Authorizer::new(&format!("{}/mcp", fake.base), a.opts.clone());
    let e = a.authorize(&first_401()).unwrap_err();
    assert!(
        matches!(&e, AuthError::NoAnswer { what: "the token exchange answer", url, .. } if *url == idp),
        "{e:?}"
    );
    assert!(e.to_string().ends_with("(--connect-timeout)"), "{e}");
    // Nothing reached the authorization server's token endpoint.
    assert_eq!(posts(&fake), 0);
    drop(silent);
}
