//! The pure parts of one authorization code flow with PKCE (OAuth 2.1,
//! RFC 7636, RFC 8707, RFC 9207): the verifier and `state`, the scope to
//! ask for, the token endpoint authentication method, the authorization
//! URL, the callback's validation, the token answer and error bodies.
//! Nothing here touches the network.

use std::time::{Duration, SystemTime};

use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use base64::Engine as _;
use serde_json::Value;
use sha2::{Digest, Sha256};

use super::store::{Secret, Tokens};

/// Why a flow's secret could not be made or a token answer cannot be used:
/// one sentence each, naming the authorization server; never a token.
#[derive(Debug, thiserror::Error)]
pub enum FlowError {
    /// The operating system's random generator failed (its error, which
    /// this build's `getrandom` gives no `std::error::Error` for).
    #[error("no random bytes from the system: {0}")]
    NoRandom(getrandom::Error),
    /// The token answer has no `access_token` (the issuer).
    #[error("the token answer of {0} has no access_token")]
    NoAccessToken(String),
    /// The access token is not a `b64token`, so it cannot be sent.
    #[error("the token endpoint {endpoint} of {issuer} issued an access token that cannot be sent as a Bearer token (a character outside RFC 6750's b64token: letters, digits, - . _ ~ + / and a trailing =): refusing it; the authorization server is at fault")]
    NotB64Token {
        /// The issuer.
        issuer: String,
        /// The token endpoint that answered.
        endpoint: String,
    },
    /// The token answer has no `token_type` (the issuer).
    #[error("the token answer of {0} has no token_type")]
    NoTokenType(String),
    /// A token type other than Bearer and DPoP.
    #[error("{issuer} issued a \"{token_type}\" token, which ahp-elicit does not support (only Bearer and DPoP)")]
    NotBearer {
        /// The issuer.
        issuer: String,
        /// The type given, cut to 40 characters.
        token_type: String,
    },
}

/// 32 random bytes from the operating system, base64url without padding
/// (43 characters): a PKCE verifier or a `state`.
///
/// Errors: the operating system's generator failed
/// ([`FlowError::NoRandom`]).
pub fn random_token() -> Result<Secret, FlowError> {
    let mut b = [0u8; 32];
    getrandom::fill(&mut b).map_err(FlowError::NoRandom)?;
    Ok(Secret::new(URL_SAFE_NO_PAD.encode(b)))
}

/// The S256 code challenge of a PKCE verifier: base64url (no padding) of
/// its SHA-256 (RFC 7636 §4.2).
pub fn s256_challenge(verifier: &str) -> String {
    URL_SAFE_NO_PAD.encode(Sha256::digest(verifier.as_bytes()))
}

/// The scopes of a first authorization: `--scope` when given; else the
/// challenge's `scope`; else every PRM `scopes_supported`; else none. Then
/// `offline_access` is added when the authorization server lists it in its
/// `scopes_supported`, some scope is asked at all, and it is not there
/// yet.
pub fn initial_scopes(
    pinned: Option<&[String]>,
    challenge: Option<&[String]>,
    prm_supported: Option<&[String]>,
    as_supported: Option<&[String]>,
) -> Vec<String> {
    let mut s: Vec<String> = pinned
        .or(challenge)
        .or(prm_supported)
        .map(<[String]>::to_vec)
        .unwrap_or_default();
    if !s.is_empty()
        && !s.iter().any(|x| x == "offline_access")
        && as_supported.is_some_and(|a| a.iter().any(|x| x == "offline_access"))
    {
        s.push("offline_access".into());
    }
    s
}

/// The scopes of a step-up: the union, in first-seen order, of those asked
/// before, those granted and those the 403 challenge names.
pub fn union_scopes(requested: &[String], granted: &[String], challenge: &[String]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for s in requested.iter().chain(granted).chain(challenge) {
        if !out.contains(s) {
            out.push(s.clone());
        }
    }
    out
}

/// The token endpoint authentication method: the registered one when the
/// server lists it (or lists none) and it can be used; else with a secret
/// `client_secret_basic` when listed or the list is absent (RFC 8414's
/// default), `client_secret_post` when only that is listed; without a
/// secret `none`.
pub fn auth_method(
    registered: Option<&str>,
    supported: Option<&[String]>,
    has_secret: bool,
) -> &'static str {
    let listed = |m: &str| supported.is_none_or(|s| s.iter().any(|x| x == m));
    let known = |m: &str| match m {
        "client_secret_basic" => Some("client_secret_basic"),
        "client_secret_post" => Some("client_secret_post"),
        "none" => Some("none"),
        _ => None,
    };
    if let Some(m) = registered.and_then(known) {
        if listed(m) && (m == "none" || has_secret) {
            return m;
        }
    }
    if !has_secret {
        return "none";
    }
    if listed("client_secret_basic") {
        "client_secret_basic"
    } else if listed("client_secret_post") {
        "client_secret_post"
    } else {
        "none"
    }
}

/// `Authorization: Basic` for a client id and secret (RFC 6749 §2.3.1:
/// each form-urlencoded first).
pub fn basic_auth(client_id: &str, secret: &str) -> String {
    let enc = |s: &str| url::form_urlencoded::byte_serialize(s.as_bytes()).collect::<String>();
    format!(
        "Basic {}",
        STANDARD.encode(format!("{}:{}", enc(client_id), enc(secret)))
    )
}

/// What goes into an authorization request.
#[derive(Debug)]
pub struct AuthorizationRequest<'a> {
    /// The metadata's `authorization_endpoint` (its own query is kept).
    pub endpoint: &'a str,
    /// `client_id`.
    pub client_id: &'a str,
    /// `redirect_uri`, exactly as registered.
    pub redirect_uri: &'a str,
    /// The scopes (no `scope` parameter when empty).
    pub scopes: &'a [String],
    /// `state`.
    pub state: &'a Secret,
    /// The S256 challenge of the verifier.
    pub code_challenge: &'a str,
    /// `resource` (RFC 8707): the PRM `resource` as published.
    pub resource: &'a str,
}

impl AuthorizationRequest<'_> {
    /// The URL the browser is sent to: the endpoint as published, with the
    /// parameters appended form-urlencoded.
    pub fn url(&self) -> String {
        let mut q = url::form_urlencoded::Serializer::new(String::new());
        q.append_pair("response_type", "code")
            .append_pair("client_id", self.client_id)
            .append_pair("redirect_uri", self.redirect_uri)
            .append_pair("code_challenge", self.code_challenge)
            .append_pair("code_challenge_method", "S256")
            .append_pair("state", self.state.expose());
        if !self.scopes.is_empty() {
            q.append_pair("scope", &self.scopes.join(" "));
        }
        q.append_pair("resource", self.resource);
        let sep = match self.endpoint.split_once('?') {
            None => "?",
            Some((_, "")) => "",
            Some(_) => "&",
        };
        format!("{}{sep}{}", self.endpoint, q.finish())
    }
}

/// Why a callback was not taken.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CallbackError {
    /// `state` absent, repeated or not this flow's.
    #[error("that address is not from this sign-in (its state does not match)")]
    State,
    /// RFC 9207: `iss` is not the recorded issuer (its other parameters
    /// were neither read nor shown).
    #[error(
        "the sign-in answer came from \"{got}\", not \"{want}\": rejected (possible mix-up attack); nothing was sent to either: sign in again with only this sign-in's page open, and if it happens again, tell the operator of {want} that the iss it returns does not match its issuer"
    )]
    Issuer {
        /// The `iss` sent (sanitize before showing).
        got: String,
        /// The recorded issuer.
        want: String,
    },
    /// RFC 9207: no `iss` although the server says it always sends one.
    #[error(
        "the sign-in answer carried no issuer although {0} says it always sends one: rejected"
    )]
    NoIssuer(String),
    /// The authorization server refused (`error`, `error_description`:
    /// sanitize before showing).
    #[error("{issuer} refused the sign-in: {error}{}", description.as_ref().map(|d| format!(": {d}")).unwrap_or_default())]
    Refused {
        /// The issuer.
        issuer: String,
        /// `error`.
        error: String,
        /// `error_description`.
        description: Option<String>,
    },
    /// No `code`.
    #[error("the sign-in answer carried no authorization code")]
    NoCode,
}

/// What a callback is checked against.
#[derive(Debug)]
pub struct Expected<'a> {
    /// This flow's `state`.
    pub state: &'a Secret,
    /// The issuer recorded with the flow.
    pub issuer: &'a str,
    /// The metadata's `authorization_response_iss_parameter_supported`.
    pub iss_required: bool,
}

/// Validate a callback's query in the order that keeps a mix-up attack
/// from being acted on: `state` first, then RFC 9207 `iss` (present:
/// byte-equal to the recorded issuer; absent: refused when the server
/// advertised it), and only then `error`; returns the `code`.
///
/// Errors: [`CallbackError`]; parameters after the failing check are not
/// read.
pub fn validate_callback(query: &str, want: &Expected<'_>) -> Result<Secret, CallbackError> {
    let pairs: Vec<(String, String)> = url::form_urlencoded::parse(query.as_bytes())
        .map(|(k, v)| (k.into_owned(), v.into_owned()))
        .collect();
    let only = |name: &str| -> Result<Option<&str>, ()> {
        let mut it = pairs.iter().filter(|(k, _)| k == name);
        let first = it.next().map(|(_, v)| v.as_str());
        if it.next().is_some() {
            return Err(());
        }
        Ok(first)
    };
    match only("state") {
        Ok(Some(s)) if s == want.state.expose() => {}
        _ => return Err(CallbackError::State),
    }
    match only("iss") {
        Ok(Some(iss)) if iss == want.issuer => {}
        Ok(Some(iss)) => {
            return Err(CallbackError::Issuer {
                got: cut(iss, 200),
                want: want.issuer.into(),
            })
        }
        Ok(None) if want.iss_required => return Err(CallbackError::NoIssuer(want.issuer.into())),
        Ok(None) => {}
        Err(()) => {
            return Err(CallbackError::Issuer {
                got: "(several)".into(),
                want: want.issuer.into(),
            })
        }
    }
    if let Ok(Some(error)) = only("error") {
        return Err(CallbackError::Refused {
            issuer: want.issuer.into(),
            error: cut(error, 100),
            description: only("error_description")
                .ok()
                .flatten()
                .map(|d| cut(d, 200)),
        });
    }
    match only("code") {
        Ok(Some(c)) if !c.is_empty() => Ok(Secret::new(c)),
        _ => Err(CallbackError::NoCode),
    }
}

/// At most `n` characters of `s`, an ellipsis when cut, made safe for a
/// terminal: control, bidi and invisible characters shown escaped
/// (`\u{1b}`, [`crate::safe_text::display`]), never dropped, so what a
/// server sent can be read as it was.
pub fn cut(s: &str, n: usize) -> String {
    let mut out: String = s.chars().take(n).collect();
    if s.chars().nth(n).is_some() {
        out.push('…');
    }
    crate::safe_text::display(&out).into_owned()
}

/// An OAuth error body (RFC 6749 §5.2, RFC 6750 §3.1): `error` and
/// `error_description`, cut (sanitize before showing). None when the body
/// is not one (its `error` is not a string). The rest of the body is never
/// kept: it may echo credentials.
pub fn oauth_error(body: &[u8]) -> Option<(String, Option<String>)> {
    let v: Value = serde_json::from_slice(body).ok()?;
    let e = v.get("error")?.as_str()?;
    let d = v
        .get("error_description")
        .and_then(Value::as_str)
        .filter(|d| !d.is_empty())
        .map(|d| cut(d, 200));
    Some((cut(e, 100), d))
}

/// Whether `token` is an RFC 6750 `b64token` (`1*( ALPHA / DIGIT / "-" /
/// "." / "_" / "~" / "+" / "/" ) *"="`): what an `Authorization: Bearer`
/// header can carry. A token with a line break or a space could end the
/// header or add another.
pub fn is_b64token(token: &str) -> bool {
    let body = token.trim_end_matches('=');
    !body.is_empty()
        && body
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-._~+/".contains(&b))
}

/// Read a token endpoint answer (RFC 6749 §5.1): `access_token`,
/// `token_type` Bearer or DPoP (any case; a DPoP token is used only
/// with the key its proofs were signed with), `expires_in` (made absolute from
/// `now`), `refresh_token`, `scope`. `requested` is kept with the tokens;
/// `endpoint` is the token endpoint that answered (named when its token
/// cannot be sent).
///
/// Errors: the missing member, the unsupported token type or an access
/// token that is not a `b64token` ([`FlowError`], never a token).
pub fn read_tokens(
    v: &Value,
    (issuer, endpoint): (&str, &str),
    requested: &[String],
    now: SystemTime,
) -> Result<Tokens, FlowError> {
    let access = v
        .get("access_token")
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
        .ok_or_else(|| FlowError::NoAccessToken(issuer.to_owned()))?;
    if !is_b64token(access) {
        return Err(FlowError::NotB64Token {
            issuer: issuer.to_owned(),
            endpoint: endpoint.to_owned(),
        });
    }
    let ty = v
        .get("token_type")
        .and_then(Value::as_str)
        .ok_or_else(|| FlowError::NoTokenType(issuer.to_owned()))?;
    if !ty.eq_ignore_ascii_case("bearer") && !ty.eq_ignore_ascii_case("dpop") {
        return Err(FlowError::NotBearer {
            issuer: issuer.to_owned(),
            token_type: cut(ty, 40),
        });
    }
    let expires_at = v
        .get("expires_in")
        .and_then(Value::as_u64)
        .map(|s| now + Duration::from_secs(s.min(10 * 365 * 86_400)));
    Ok(Tokens {
        access_token: Secret::new(access),
        token_type: ty.to_owned(),
        expires_at,
        refresh_token: v
            .get("refresh_token")
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
            .map(Secret::new),
        scopes_requested: requested.to_vec(),
        scopes_granted: v
            .get("scope")
            .and_then(Value::as_str)
            .map(super::challenge::split_scope),
        obtained_at: now,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn v(s: &[&str]) -> Vec<String> {
        s.iter().map(|x| x.to_string()).collect()
    }

    #[test]
    fn pkce_matches_rfc_7636_appendix_b() {
        assert_eq!(
            s256_challenge("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"),
            "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"
        );
        let a = random_token().unwrap();
        assert_eq!(a.expose().len(), 43);
        assert_ne!(a, random_token().unwrap());
    }

    #[test]
    fn scopes_come_from_the_flag_the_challenge_or_the_resource() {
        let ch = v(&["mcp:basic"]);
        let prm = v(&["mcp:read", "mcp:write"]);
        let pin = v(&["x"]);
        assert_eq!(initial_scopes(None, Some(&ch), Some(&prm), None), ch);
        assert_eq!(initial_scopes(None, None, Some(&prm), None), prm);
        assert_eq!(initial_scopes(Some(&pin), Some(&ch), None, None), pin);
        assert!(initial_scopes(None, None, None, None).is_empty());
        let with_offline = v(&["mcp:basic", "offline_access"]);
        assert_eq!(
            initial_scopes(None, Some(&ch), None, Some(&with_offline)),
            with_offline
        );
        // Not listed, or nothing asked at all: never added.
        assert_eq!(initial_scopes(None, Some(&ch), None, Some(&prm)), ch);
        assert!(initial_scopes(None, None, None, Some(&with_offline)).is_empty());
        // Already there: not twice.
        assert_eq!(
            initial_scopes(None, Some(&with_offline), None, Some(&with_offline)),
            with_offline
        );
    }

    #[test]
    fn step_up_asks_for_the_union_in_first_seen_order() {
        assert_eq!(
            union_scopes(&v(&["a", "b"]), &v(&["b", "c"]), &v(&["d", "a"])),
            v(&["a", "b", "c", "d"])
        );
    }

    #[test]
    fn the_token_endpoint_method_follows_registration_then_the_list() {
        let basic = v(&["client_secret_basic"]);
        let post = v(&["client_secret_post"]);
        let both = v(&["client_secret_post", "client_secret_basic", "none"]);
        assert_eq!(
            auth_method(Some("client_secret_post"), Some(&both), true),
            "client_secret_post"
        );
        assert_eq!(
            auth_method(Some("client_secret_post"), Some(&basic), true),
            "client_secret_basic"
        );
        assert_eq!(auth_method(None, None, true), "client_secret_basic");
        assert_eq!(auth_method(None, Some(&post), true), "client_secret_post");
        assert_eq!(auth_method(Some("none"), Some(&both), true), "none");
        assert_eq!(
            auth_method(Some("client_secret_basic"), None, false),
            "none"
        );
        assert_eq!(
            auth_method(Some("private_key_jwt"), None, true),
            "client_secret_basic"
        );
    }

    #[test]
    fn basic_credentials_are_form_encoded_first() {
        assert_eq!(
            basic_auth("pre-registered-client", "pre-registered-secret"),
            format!(
                "Basic {}",
                STANDARD.encode("pre-registered-client:pre-registered-secret")
            )
        );
        assert_eq!(
            basic_auth("a b", "c:d"),
            format!("Basic {}", STANDARD.encode("a+b:c%3Ad"))
        );
    }

    #[test]
    fn the_authorization_url_keeps_the_endpoint_and_exact_identifiers() {
        let state = Secret::new("st");
        let scopes = v(&["mcp:basic", "offline_access"]);
        let r = AuthorizationRequest {
            endpoint: "http://localhost:1234/authorize?tenant=a",
            client_id: "https://conformance-test.local/client-metadata.json",
            redirect_uri: "http://127.0.0.1:5555/callback",
            scopes: &scopes,
            state: &state,
            code_challenge: "cc",
            resource: "http://localhost:1234",
        };
        assert_eq!(
            r.url(),
            "http://localhost:1234/authorize?tenant=a&response_type=code&client_id=https%3A%2F%2Fconformance-test.local%2Fclient-metadata.json&redirect_uri=http%3A%2F%2F127.0.0.1%3A5555%2Fcallback&code_challenge=cc&code_challenge_method=S256&state=st&scope=mcp%3Abasic+offline_access&resource=http%3A%2F%2Flocalhost%3A1234"
        );
        let r = AuthorizationRequest {
            endpoint: "https://a.example/authorize",
            scopes: &[],
            ..r
        };
        assert!(r
            .url()
            .starts_with("https://a.example/authorize?response_type=code&"));
        assert!(!r.url().contains("scope="));
    }

    #[test]
    fn callbacks_are_checked_state_then_issuer_then_error() {
        let state = Secret::new("s1");
        let want = Expected {
            state: &state,
            issuer: "http://localhost:1234",
            iss_required: true,
        };
        assert_eq!(
            validate_callback("code=c1&state=s1&iss=http%3A%2F%2Flocalhost%3A1234", &want)
                .unwrap()
                .expose(),
            "c1"
        );
        // A wrong state wins over everything else.
        assert_eq!(
            validate_callback("error=access_denied&state=s2&iss=x", &want),
            Err(CallbackError::State)
        );
        assert_eq!(
            validate_callback("code=c&state=s1&state=s1", &want),
            Err(CallbackError::State)
        );
        // Simple string comparison: a trailing slash is another issuer, and
        // the error of a mismatched answer is not read.
        let e = validate_callback(
            "error=access_denied&state=s1&iss=http%3A%2F%2Flocalhost%3A1234%2F",
            &want,
        )
        .unwrap_err();
        assert!(
            matches!(e, CallbackError::Issuer { ref got, .. } if got == "http://localhost:1234/")
        );
        assert!(!e.to_string().contains("access_denied"));
        assert_eq!(
            validate_callback("code=c&state=s1", &want),
            Err(CallbackError::NoIssuer("http://localhost:1234".into()))
        );
        let lax = Expected {
            iss_required: false,
            ..want
        };
        assert_eq!(
            validate_callback("code=c&state=s1", &lax).unwrap().expose(),
            "c"
        );
        assert!(matches!(
            validate_callback("code=c&state=s1&iss=https%3A%2F%2Fevil.example.com", &lax),
            Err(CallbackError::Issuer { .. })
        ));
        let e = validate_callback(
            "error=access_denied&error_description=no%0Athanks&state=s1",
            &lax,
        )
        .unwrap_err();
        // The line break is shown escaped, not dropped.
        assert_eq!(
            e.to_string(),
            "http://localhost:1234 refused the sign-in: access_denied: no\\u{a}thanks"
        );
        assert_eq!(
            validate_callback("state=s1", &lax),
            Err(CallbackError::NoCode)
        );
    }

    #[test]
    fn oauth_error_bodies_are_reduced_to_error_and_description() {
        assert_eq!(
            oauth_error(br#"{"error":"invalid_token","error_description":"Missing Authorization header","token":"abc"}"#),
            Some(("invalid_token".into(), Some("Missing Authorization header".into())))
        );
        // Control and bidi characters are shown escaped, never dropped.
        assert_eq!(
            oauth_error(br#"{"error":"invalid_grant","error_description":"\u202eoops\u001b[2J"}"#),
            Some((
                "invalid_grant".into(),
                Some("\\u{202e}oops\\u{1b}[2J".into())
            ))
        );
        assert_eq!(oauth_error(br#"{"error":{"code":1}}"#), None);
        assert_eq!(oauth_error(b"nope"), None);
    }

    #[test]
    fn token_answers_must_be_bearer_or_dpop_and_expiry_is_absolute() {
        let now = SystemTime::UNIX_EPOCH + Duration::from_secs(1000);
        let t = read_tokens(
            &json!({"access_token": "at", "token_type": "bearer", "expires_in": 60, "refresh_token": "rt", "scope": "a b"}),
            ("http://as", "http://as/token"),
            &v(&["a"]),
            now,
        )
        .unwrap();
        assert_eq!(t.access_token.expose(), "at");
        assert_eq!(t.expires_at, Some(now + Duration::from_secs(60)));
        assert_eq!(t.refresh_token.as_ref().map(Secret::expose), Some("rt"));
        assert_eq!(t.scopes_granted, Some(v(&["a", "b"])));
        let t = read_tokens(
            &json!({"access_token": "at", "token_type": "DPoP"}),
            ("http://as", "http://as/token"),
            &[],
            now,
        )
        .unwrap();
        assert_eq!(t.token_type, "DPoP");
        let e = read_tokens(
            &json!({"access_token": "at", "token_type": "N_A"}),
            ("http://as", "http://as/token"),
            &[],
            now,
        )
        .unwrap_err()
        .to_string();
        assert_eq!(
            e,
            "http://as issued a \"N_A\" token, which ahp-elicit does not support (only Bearer and DPoP)"
        );
        assert!(read_tokens(
            &json!({"token_type": "Bearer"}),
            ("http://as", "http://as/token"),
            &[],
            now
        )
        .is_err());
        // A token a Bearer header cannot carry is refused at once.
        let e = read_tokens(
            &json!({"access_token": "abc\r\nX-Injected: 1", "token_type": "Bearer"}),
            ("http://as", "http://as/token"),
            &[],
            now,
        )
        .unwrap_err()
        .to_string();
        assert!(e.starts_with("the token endpoint http://as/token of http://as issued an access token that cannot be sent as a Bearer token"), "{e}");
        assert!(!e.contains("abc"), "{e}");
    }

    #[test]
    fn bearer_tokens_are_b64tokens() {
        for ok in ["abc", "eyJh.eyJz.c2ln", "a-b_c~d+e/f==", "x="] {
            assert!(is_b64token(ok), "{ok}");
        }
        for bad in ["", "=", "a b", "a\r\nb", "a=b", "\u{e9}", "a,b", "a\"b"] {
            assert!(!is_b64token(bad), "{bad:?}");
        }
    }
}
