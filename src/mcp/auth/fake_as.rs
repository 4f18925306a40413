//! A tiny authorization server on 127.0.0.1 and the sign-ins the
//! authorizer's tests start from.

use std::io::Read;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::json;

use super::authorizer::*;
use super::options::*;
use super::store::{ClientKind, ClientRegistration, Secret, SignIn, SignInKey, Tokens};
use crate::notice::Notices;

pub(super) fn client(method: &str) -> ClientRegistration {
    ClientRegistration {
        issuer: "http://as".into(),
        kind: ClientKind::Dynamic,
        client_id: "cid".into(),
        client_secret: Some(Secret::new("sec")),
        client_secret_expires_at: None,
        token_endpoint_auth_method: method.into(),
        redirect_uri: "http://127.0.0.1:1/callback".into(),
    }
}

/// A tiny authorization server on 127.0.0.1 for the tests: `route`
/// answers (method, target, body) with a status and a JSON body; every
/// request is recorded (and its head, in `heads`).
pub(super) struct FakeAs {
    pub(super) base: String,
    pub(super) seen: Arc<Mutex<Vec<(String, String, String)>>>,
    pub(super) heads: Arc<Mutex<Vec<String>>>,
}

pub(super) fn fake_as(
    route: impl Fn(&str, &str, &str, &str) -> (u16, String) + Send + 'static,
) -> FakeAs {
    fake_as_with_headers(move |b, m, t, body| {
        let (status, answer) = route(b, m, t, body);
        (status, Vec::new(), answer)
    })
}

/// [`fake_as`] whose answers carry headers of their own too.
pub(super) fn fake_as_with_headers(
    route: impl Fn(&str, &str, &str, &str) -> (u16, Vec<(String, String)>, String) + Send + 'static,
) -> FakeAs {
    use std::io::Write;
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://127.0.0.1:{}", l.local_addr().unwrap().port());
    let seen = Arc::new(Mutex::new(Vec::new()));
    let heads = Arc::new(Mutex::new(Vec::new()));
    let (b, rec, rec_heads) = (base.clone(), Arc::clone(&seen), Arc::clone(&heads));
    std::thread::spawn(move || {
        for conn in l.incoming() {
            let Ok(mut c) = conn else { return };
            let mut head = Vec::new();
            let mut byte = [0u8; 1];
            while !head.ends_with(b"\r\n\r\n") {
                if c.read(&mut byte).unwrap_or(0) == 0 {
                    break;
                }
                head.push(byte[0]);
            }
            let head = String::from_utf8_lossy(&head).into_owned();
            let len = head
                .lines()
                .find_map(|l| {
                    l.to_ascii_lowercase()
                        .strip_prefix("content-length:")
                        .map(|v| v.trim().parse::<usize>().unwrap_or(0))
                })
                .unwrap_or(0);
            let mut body = vec![0u8; len];
            let _ = c.read_exact(&mut body);
            let body = String::from_utf8_lossy(&body).into_owned();
            let mut first = head.lines().next().unwrap_or("").split(' ');
            let (m, t) = (
                first.next().unwrap_or("").to_owned(),
                first.next().unwrap_or("").to_owned(),
            );
            rec.lock()
                .unwrap()
                .push((m.clone(), t.clone(), body.clone()));
            rec_heads.lock().unwrap().push(head.clone());
            let (status, headers, answer) = route(&b, &m, &t, &body);
            let extra: String = headers
                .iter()
                .map(|(k, v)| format!("{k}: {v}\r\n"))
                .collect();
            let _ = write!(
                c,
                "HTTP/1.1 {status} X\r\nContent-Type: application/json\r\n{extra}Content-Length: {}\r\nConnection: close\r\n\r\n{answer}",
                answer.len()
            );
        }
    });
    FakeAs { base, seen, heads }
}

/// The first 401 of a run: no challenge, generation 0, no request named.
pub(super) fn first_401() -> Unauthorized {
    Unauthorized {
        status: 401,
        challenge: None,
        generation: 0,
        request: None,
    }
}

pub(super) fn metadata(base: &str) -> String {
    json!({
        "issuer": base,
        "authorization_endpoint": format!("{base}/authorize"),
        "token_endpoint": format!("{base}/token"),
        "registration_endpoint": format!("{base}/register"),
        "code_challenge_methods_supported": ["S256"],
        "scopes_supported": ["a", "b"],
    })
    .to_string()
}

pub(super) fn stored(base: &str, expires_in: i64, scopes: &[&str]) -> SignIn {
    let at = if expires_in < 0 {
        now() - Duration::from_secs(expires_in.unsigned_abs())
    } else {
        now() + Duration::from_secs(expires_in as u64)
    };
    SignIn {
        key: SignInKey {
            resource: format!("{base}/mcp"),
            issuer: base.to_owned(),
            account: "default".into(),
        },
        mcp_url: format!("{base}/mcp"),
        as_metadata_url: format!("{base}/.well-known/oauth-authorization-server"),
        client: ClientRegistration {
            kind: ClientKind::Dynamic,
            client_secret: None,
            token_endpoint_auth_method: "none".into(),
            issuer: base.to_owned(),
            ..client("none")
        },
        tokens: Tokens {
            access_token: Secret::new("a1"),
            token_type: "Bearer".into(),
            expires_at: Some(at),
            refresh_token: Some(Secret::new("r1")),
            scopes_requested: scopes.iter().map(|s| s.to_string()).collect(),
            scopes_granted: Some(scopes.iter().map(|s| s.to_string()).collect()),
            // An hour-long token: one that ends in 30 s is due.
            obtained_at: at - Duration::from_secs(3600),
        },
        grant: crate::mcp::auth::store::GrantType::AuthorizationCode,
        dpop_key: None,
    }
}

pub(super) fn authorizer(
    base: &str,
    store: Arc<crate::mcp::auth::store::MemoryStore>,
) -> (Authorizer, crate::notice::Collected) {
    let (notices, said) = Notices::collect();
    let mut o = AuthOptions::new(Ok(store));
    o.notices = notices;
    (Authorizer::new(&format!("{base}/mcp"), o), said)
}

/// A [`fake_as`] answering the resource's metadata and its own
/// ([`prm_and_metadata`]), and every POST to /token with `status` and
/// `answer`; 404 to anything else.
pub(super) fn token_as(status: u16, answer: &'static str) -> FakeAs {
    fake_as(move |base, m, t, _| {
        if let Some(a) = prm_and_metadata(base, m, t) {
            return a;
        }
        match (m, t) {
            ("POST", "/token") => (status, answer.into()),
            _ => (404, "{}".into()),
        }
    })
}

/// A [`fake_as`] answering its own metadata only (no resource's: a
/// refresh asks none), and every POST to /token with 200 and `answer`;
/// 404 to anything else.
pub(super) fn refresh_as(answer: &'static str) -> FakeAs {
    fake_as(move |base, m, t, _| match (m, t) {
        ("GET", "/.well-known/oauth-authorization-server") => (200, metadata(base)),
        ("POST", "/token") => (200, answer.into()),
        _ => (404, "{}".into()),
    })
}

pub(super) fn prm_and_metadata(base: &str, m: &str, t: &str) -> Option<(u16, String)> {
    match (m, t) {
        ("GET", "/.well-known/oauth-protected-resource/mcp") => Some((
            200,
            json!({"resource": format!("{base}/mcp"), "authorization_servers": [base]}).to_string(),
        )),
        ("GET", "/.well-known/oauth-authorization-server") => Some((200, metadata(base))),
        _ => None,
    }
}

/// A browser that the authorization server redirects at once; every
/// authorization URL is recorded.
pub(super) fn redirecting_opener(urls: &Arc<Mutex<Vec<String>>>) -> Opener {
    let rec = Arc::clone(urls);
    Arc::new(move |url: &str| {
        rec.lock().unwrap().push(url.to_owned());
        let u = url::Url::parse(url).unwrap();
        let q: std::collections::HashMap<String, String> = u.query_pairs().into_owned().collect();
        let back = format!("{}?code=c1&state={}", q["redirect_uri"], q["state"]);
        std::thread::spawn(move || {
            let _ = ureq::get(&back).call();
        });
        Ok(())
    })
}
