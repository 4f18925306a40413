use std::sync::Arc;

use ring::signature::{UnparsedPublicKey, ECDSA_P256_SHA256_FIXED};
use serde_json::json;

use super::*;
use crate::mcp::auth::fake_as::*;
use crate::mcp::auth::jose::jwk_thumbprint;
use crate::mcp::auth::store::{MemoryStore, SignIn, Store};

/// A proof checked as a server checks it (RFC 9449 §4.3): three parts,
/// `typ` and `alg`, a public `jwk` only, and a signature that verifies
/// with it. Gives the header and the claims.
fn checked(proof: &str) -> (Value, Value) {
    let parts: Vec<&str> = proof.split('.').collect();
    assert_eq!(parts.len(), 3, "{proof}");
    let dec =
        |p: &str| -> Value { serde_json::from_slice(&URL_SAFE_NO_PAD.decode(p).unwrap()).unwrap() };
    let (h, c) = (dec(parts[0]), dec(parts[1]));
    assert_eq!(h["typ"], "dpop+jwt");
    assert_eq!(h["alg"], "ES256");
    let jwk = h["jwk"].as_object().unwrap();
    assert_eq!(
        jwk.keys().collect::<Vec<_>>(),
        ["kty", "crv", "x", "y"],
        "no private member"
    );
    let b = |m: &str| URL_SAFE_NO_PAD.decode(jwk[m].as_str().unwrap()).unwrap();
    let mut point = vec![4u8];
    point.extend(b("x"));
    point.extend(b("y"));
    UnparsedPublicKey::new(&ECDSA_P256_SHA256_FIXED, point)
        .verify(
            format!("{}.{}", parts[0], parts[1]).as_bytes(),
            &URL_SAFE_NO_PAD.decode(parts[2]).unwrap(),
        )
        .expect("the proof's signature verifies with its jwk");
    (h, c)
}

/// The value of header `name` in a recorded request head.
fn header_in(head: &str, name: &str) -> Option<String> {
    head.lines().find_map(|l| {
        let (k, v) = l.split_once(':')?;
        k.trim()
            .eq_ignore_ascii_case(name)
            .then(|| v.trim().to_owned())
    })
}

#[test]
fn a_proof_names_the_request_and_binds_the_token() {
    let key = new_key().unwrap();
    let k = key_from(&key).unwrap();
    let p = proof(
        &k,
        "POST",
        "https://mcp.example.com/mcp?session=1#frag",
        Some("n-1"),
        Some("tok"),
    )
    .unwrap();
    let (h, c) = checked(&p);
    assert_eq!(c["htm"], "POST");
    assert_eq!(
        c["htu"], "https://mcp.example.com/mcp",
        "no query or fragment"
    );
    assert_eq!(c["nonce"], "n-1");
    // RFC 9449 §4.2: base64url(SHA-256("tok")), computed apart with
    // Python's hashlib.
    assert_eq!(c["ath"], "GnZ0607njffhrEOak8P6jjyUV4TU3sn9jjARc4svHWI");
    assert_eq!(c["ath"], ath("tok"));
    let iat = c["iat"].as_u64().unwrap();
    let now = SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .unwrap()
        .as_secs();
    assert!(iat <= now && now - iat < 60, "{iat} {now}");
    assert_eq!(c["jti"].as_str().unwrap().len(), 22, "16 random bytes");
    assert_eq!(
        jwk_thumbprint(h["jwk"].as_object().unwrap()).unwrap(),
        k.thumbprint()
    );
    // A token request's proof: no nonce, no ath; a fresh jti each time.
    let (_, c2) = checked(&proof(&k, "POST", "https://as.example/token", None, None).unwrap());
    assert!(c2.get("nonce").is_none() && c2.get("ath").is_none(), "{c2}");
    assert_ne!(c2["jti"], c["jti"]);
    // The stored form never shows in Debug.
    assert_eq!(format!("{key:?}"), "(hidden)");
    assert!(!format!("{k:?}").contains(key.expose()));
}

#[test]
fn nonces_are_kept_per_server_and_bad_ones_ignored() {
    let n = Nonces::default();
    assert_eq!(n.get("https://as.example/token"), None);
    assert!(n.note("https://as.example/token", Some(b"abc")));
    // The same server (origin), another path: the same nonce.
    assert_eq!(
        n.get("https://as.example/other?x=1").as_deref(),
        Some("abc")
    );
    assert!(!n.note("https://as.example/token", Some(b"abc")), "not new");
    assert_eq!(n.get("https://mcp.example/mcp"), None, "another server");
    // RFC 9449's NQCHAR only: no space, quote, backslash or control.
    for bad in [
        &b""[..],
        b"a b",
        b"a\"b",
        b"a\\b",
        b"a\r\nX: 1",
        &[b'a'; 1025][..],
    ] {
        assert!(!n.note("https://as.example/token", Some(bad)), "{bad:?}");
    }
    assert!(!n.note("https://as.example/token", None));
    assert_eq!(n.get("https://as.example/token").as_deref(), Some("abc"));
    assert!(n.note("https://as.example/token", Some(b"def")));
    assert_eq!(n.get("https://as.example/token").as_deref(), Some("def"));
}

#[test]
fn the_offer_is_read_from_the_metadata() {
    let meta = |algs: Value| {
        let mut v: Value = serde_json::from_str(&metadata("http://127.0.0.1:1")).unwrap();
        if !algs.is_null() {
            v["dpop_signing_alg_values_supported"] = algs;
        }
        ServerMetadata::parse(&v).unwrap()
    };
    assert_eq!(offer(&meta(Value::Null)), Offer::None);
    assert_eq!(offer(&meta(json!([]))), Offer::None);
    assert_eq!(offer(&meta(json!(["RS256", "ES256"]))), Offer::Es256);
    assert_eq!(
        offer(&meta(json!(["RS256", "PS256"]))),
        Offer::Others(vec!["RS256".into(), "PS256".into()])
    );
    // Only others: bearer, said once a run.
    let store = Arc::new(MemoryStore::default());
    let (a, said) = authorizer("http://127.0.0.1:1", store);
    let m = meta(json!(["RS256"]));
    assert!(a.dpop_key_for(&m).unwrap().is_none());
    assert!(a.dpop_key_for(&m).unwrap().is_none());
    assert_eq!(
        said.texts(),
        ["ahp-elicit: http://127.0.0.1:1 offers DPoP only with RS256; ahp-elicit signs DPoP proofs with ES256 only: using bearer tokens there"]
    );
    assert!(a.dpop_key_for(&meta(Value::Null)).unwrap().is_none());
    let k = a.dpop_key_for(&meta(json!(["ES256"]))).unwrap().unwrap();
    assert_eq!(key_from(&k).unwrap().alg(), super::super::jose::Alg::Es256);
}

/// A sign-in bound to a DPoP key, due for a refresh.
fn dpop_stored(base: &str) -> SignIn {
    let mut s = stored(base, 30, &["a"]);
    s.tokens.token_type = "DPoP".into();
    s.dpop_key = Some(new_key().unwrap());
    s
}

#[test]
fn a_refresh_carries_a_proof_and_answers_the_servers_nonce_once() {
    // The token endpoint asks for a nonce, then answers.
    let asked = std::sync::Mutex::new(0);
    let fake = fake_as_with_headers(move |base, m, t, _| match (m, t) {
        ("GET", "/.well-known/oauth-authorization-server") => (200, vec![], metadata(base)),
        ("POST", "/token") => {
            let mut n = asked.lock().unwrap();
            *n += 1;
            if *n == 1 {
                (
                    400,
                    vec![("DPoP-Nonce".into(), "as-nonce-1".into())],
                    r#"{"error":"use_dpop_nonce","error_description":"nonce needed"}"#.into(),
                )
            } else {
                (
                    200,
                    vec![("DPoP-Nonce".into(), "as-nonce-2".into())],
                    r#"{"access_token":"a2","token_type":"DPoP","expires_in":3600,"refresh_token":"r2"}"#.into(),
                )
            }
        }
        _ => (404, vec![], "{}".into()),
    });
    let store = Arc::new(MemoryStore::default());
    let s = dpop_stored(&fake.base);
    let thumbprint = key_from(s.dpop_key.as_ref().unwrap()).unwrap().thumbprint();
    store.save(&s).unwrap();
    let (a, said) = authorizer(&fake.base, Arc::clone(&store));
    assert_eq!(a.header(), (1, Some("DPoP a2".into())));
    let heads = fake.heads.lock().unwrap().clone();
    let posts: Vec<&String> = heads.iter().filter(|h| h.starts_with("POST")).collect();
    assert_eq!(posts.len(), 2, "the refresh, then once more with the nonce");
    let token_url = format!("{}/token", fake.base);
    for (i, head) in posts.iter().enumerate() {
        let (h, c) = checked(&header_in(head, "dpop").expect("a DPoP header"));
        assert_eq!(c["htm"], "POST");
        assert_eq!(c["htu"], token_url.as_str());
        assert!(c.get("ath").is_none(), "no token on a token request");
        assert_eq!(
            jwk_thumbprint(h["jwk"].as_object().unwrap()).unwrap(),
            thumbprint,
            "signed with the sign-in's key"
        );
        match i {
            0 => assert!(c.get("nonce").is_none()),
            _ => assert_eq!(c["nonce"], "as-nonce-1"),
        }
    }
    // The key stays with the refreshed sign-in.
    let kept = &store.all().unwrap()[0];
    assert_eq!(kept.dpop_key, s.dpop_key);
    assert_eq!(kept.tokens.token_type, "DPoP");
    // The MCP request: the DPoP scheme and a proof bound to the token.
    let mcp = format!("{}/mcp", fake.base);
    let (generation, h) = a.headers_for("POST", &mcp);
    assert_eq!(generation, 1);
    assert_eq!(h[0], ("Authorization".to_owned(), "DPoP a2".to_owned()));
    assert_eq!(h[1].0, "DPoP");
    let (ph, c) = checked(&h[1].1);
    assert_eq!(c["htu"], mcp.as_str());
    assert_eq!(c["ath"], ath("a2"));
    // The MCP server is the token endpoint's server (origin) here: the
    // latest nonce it gave (with the tokens) goes in.
    assert_eq!(c["nonce"], "as-nonce-2");
    assert_eq!(
        jwk_thumbprint(ph["jwk"].as_object().unwrap()).unwrap(),
        thumbprint
    );
    // The MCP server's nonce goes in the next proof to it.
    assert!(a.note_dpop_nonce(&mcp, Some(b"rs-nonce")));
    let (_, h) = a.headers_for("GET", &mcp);
    let (_, c) = checked(&h[1].1);
    assert_eq!(
        (c["htm"].as_str(), c["nonce"].as_str()),
        (Some("GET"), Some("rs-nonce"))
    );
    // Nothing said names the key or a token.
    let key = s.dpop_key.as_ref().unwrap().expose();
    assert!(said
        .texts()
        .iter()
        .all(|t| !t.contains(key) && !t.contains("a2")));
    assert_eq!(
        crate::redact::redact_secrets(&format!("x {key} y")),
        format!("x {} y", crate::redact::REDACTED)
    );
}

#[test]
fn a_second_use_dpop_nonce_is_not_answered_again() {
    let n = std::sync::Mutex::new(0);
    let fake = fake_as_with_headers(move |base, m, t, _| match (m, t) {
        ("GET", "/.well-known/oauth-authorization-server") => (200, vec![], metadata(base)),
        ("POST", "/token") => {
            let mut n = n.lock().unwrap();
            *n += 1;
            (
                400,
                vec![("DPoP-Nonce".into(), format!("nonce-{n}"))],
                r#"{"error":"use_dpop_nonce"}"#.into(),
            )
        }
        _ => (404, vec![], "{}".into()),
    });
    let store = Arc::new(MemoryStore::default());
    store.save(&dpop_stored(&fake.base)).unwrap();
    let (a, _) = authorizer(&fake.base, Arc::clone(&store));
    // The refresh fails; the token in hand is sent still.
    assert_eq!(a.header().1.as_deref(), Some("DPoP a1"));
    let posts = fake
        .seen
        .lock()
        .unwrap()
        .iter()
        .filter(|(m, _, _)| m == "POST")
        .count();
    assert_eq!(posts, 2);
}

#[test]
fn a_dpop_token_answered_without_a_proof_is_refused() {
    let fake = refresh_as(r#"{"access_token":"a2","token_type":"DPoP","expires_in":3600}"#);
    let store = Arc::new(MemoryStore::default());
    let (a, _) = authorizer(&fake.base, store);
    let url = format!("{}/token", fake.base);
    let e = a
        .token_request("the token answer", (&url, &fake.base), &[], None, None)
        .unwrap_err();
    assert!(matches!(e, AuthError::DpopNotAsked { .. }), "{e:?}");
    assert_eq!(
        e.to_string(),
        format!("the token endpoint {url} of {} issued a DPoP-bound token to a request without a DPoP proof (its metadata offers no DPoP with ES256): it cannot be used; the authorization server is at fault", fake.base)
    );
    // No DPoP header was sent.
    assert!(fake
        .heads
        .lock()
        .unwrap()
        .iter()
        .all(|h| header_in(h, "dpop").is_none()));
}

#[test]
fn a_dpop_token_without_its_key_or_with_a_damaged_one_is_not_sent() {
    let store = Arc::new(MemoryStore::default());
    let base = "http://127.0.0.1:9";
    let mut s = stored(base, 3600, &["a"]);
    s.tokens.token_type = "DPoP".into();
    store.save(&s).unwrap();
    let (a, _) = authorizer(base, Arc::clone(&store));
    assert_eq!(a.header().1, None);
    assert!(a.headers_for("POST", &format!("{base}/mcp")).1.is_empty());
    // A damaged key: said once (never its bytes), nothing sent.
    s.dpop_key = Some(Secret::new("bm90IGEga2V5"));
    store.save(&s).unwrap();
    let (a, said) = authorizer(base, store);
    assert!(a.headers_for("POST", &format!("{base}/mcp")).1.is_empty());
    assert!(a.headers_for("POST", &format!("{base}/mcp")).1.is_empty());
    let texts = said.texts();
    assert_eq!(texts.len(), 1, "{texts:?}");
    assert!(
        texts[0].contains(
            "the DPoP key kept with the sign-in to http://127.0.0.1:9/mcp cannot be used"
        ),
        "{texts:?}"
    );
    assert!(!texts[0].contains("bm90IGEga2V5"));
}
