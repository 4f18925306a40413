//! DPoP (RFC 9449): tokens bound to a key pair of the client's, so a
//! token that leaks cannot be used without the private key.
//!
//! When the authorization server's metadata lists `ES256` in
//! `dpop_signing_alg_values_supported`, a sign-in makes an ES256 key pair
//! ([`new_key`]) and keeps its private key with the sign-in in the store
//! (`SignIn::dpop_key`). Every token request of that sign-in (the code's,
//! each refresh) carries a proof in a `DPoP` header
//! ([`Authorizer::token_request`], the one path all token requests take),
//! and when the token answer says `token_type: DPoP` every MCP request
//! carries `Authorization: DPoP TOKEN` and a fresh proof bound to the
//! token (`ath`). A proof is a JWT (`typ: dpop+jwt`, `alg: ES256`, the
//! public key as `jwk`) with a random `jti`, the request's method (`htm`)
//! and URL without query or fragment (`htu`), `iat`, and the server's
//! latest `nonce` when it gave one ([`proof`]).
//!
//! Nonces (RFC 9449 §8, §9): a server may answer a proof without its
//! nonce with `use_dpop_nonce` (the token endpoint: 400; the MCP server:
//! 401 with a `DPoP` challenge) and a `DPoP-Nonce` header; the request is
//! sent once more with it. The latest nonce of each server (by origin) is
//! kept for the run and put in every later proof to it ([`Nonces`]).
//!
//! Only ES256 is offered (`ring` cannot make RSA keys): an authorization
//! server that lists only other algorithms gets bearer tokens, said once.
//! Without `dpop_signing_alg_values_supported` nothing changes: bearer
//! tokens, no proofs.
//!
//! The private key is a [`Secret`]: its `Debug` and `Display` are
//! `(hidden)`, and it reaches the store only. Proofs are not secret (a
//! public key and a signature) but are sent only where they are made for.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::SystemTime;

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

use super::authorizer::Authorizer;
use super::discovery::ServerMetadata;
use super::error::AuthError;
use super::flow::oauth_error;
use super::http::Ask;
use super::jose::{Header, JoseError, SigningKey};
use super::store::Secret;

/// The one proof algorithm this client signs with.
pub const ALG: &str = "ES256";

/// The largest nonce kept (bytes); a longer one is ignored.
const MAX_NONCE: usize = 1024;

/// What an authorization server offers for DPoP.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Offer {
    /// No `dpop_signing_alg_values_supported` (or an empty one): bearer.
    None,
    /// ES256 among them: a DPoP sign-in.
    Es256,
    /// Only other algorithms (listed, cut to 8): bearer, said once.
    Others(Vec<String>),
}

/// What `meta` offers for DPoP ([`Offer`]).
pub fn offer(meta: &ServerMetadata) -> Offer {
    match meta.dpop_signing_alg_values_supported.as_deref() {
        None | Some([]) => Offer::None,
        Some(algs) if algs.iter().any(|a| a == ALG) => Offer::Es256,
        Some(algs) => Offer::Others(algs.iter().take(8).cloned().collect()),
    }
}

/// A new ES256 key pair for a sign-in, from the operating system's
/// generator: its PKCS#8 document, base64url, as the store keeps it.
///
/// Errors: the generator failed ([`JoseError::Sign`]).
pub fn new_key() -> Result<Secret, JoseError> {
    let k = SigningKey::generate_es256()?;
    let der = k.pkcs8_der().ok_or(JoseError::Sign)?;
    Ok(Secret::new(URL_SAFE_NO_PAD.encode(der)))
}

/// The signing key of a stored DPoP key ([`new_key`]'s form).
///
/// Errors: not base64url, or not an ES256 PKCS#8 key (see
/// [`JoseError`]; never the key's bytes).
pub fn key_from(stored: &Secret) -> Result<SigningKey, JoseError> {
    let der = URL_SAFE_NO_PAD
        .decode(stored.expose().as_bytes())
        .map_err(|_| JoseError::Malformed {
            what: "stored DPoP key",
            reason: "it is not base64url",
        })?;
    let k = SigningKey::from_pkcs8_der(&der)?;
    k.with_alg(super::jose::Alg::Es256)
}

/// The `htu` of a request to `url`: the URL without its query and
/// fragment (RFC 9449 §4.2).
pub fn htu(url: &str) -> String {
    let end = url.find(['?', '#']).unwrap_or(url.len());
    url[..end].to_owned()
}

/// The `ath` of an access token: base64url of the SHA-256 of its ASCII
/// bytes (RFC 9449 §4.2).
pub fn ath(access_token: &str) -> String {
    URL_SAFE_NO_PAD.encode(Sha256::digest(access_token.as_bytes()))
}

/// A DPoP proof for one request: `htm` (`POST`, `GET`, `DELETE`) to
/// `url`, with the server's `nonce` when there is one and, on a request
/// to the resource, the `ath` of the access token it carries.
///
/// Errors: the random generator or the signer failed.
pub fn proof(
    key: &SigningKey,
    htm: &str,
    url: &str,
    nonce: Option<&str>,
    access_token: Option<&str>,
) -> Result<String, JoseError> {
    let mut jti = [0u8; 16];
    getrandom::fill(&mut jti).map_err(|_| JoseError::Sign)?;
    let iat = SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let mut c = Map::new();
    c.insert("jti".into(), URL_SAFE_NO_PAD.encode(jti).into());
    c.insert("htm".into(), htm.into());
    c.insert("htu".into(), htu(url).into());
    c.insert("iat".into(), iat.into());
    if let Some(n) = nonce {
        c.insert("nonce".into(), n.into());
    }
    if let Some(t) = access_token {
        c.insert("ath".into(), ath(t).into());
    }
    key.sign(
        &Header {
            typ: Some("dpop+jwt"),
            kid: None,
            jwk: true,
        },
        &Value::Object(c),
    )
}

/// Whether a `DPoP-Nonce` value can be used: RFC 9449's `1*NQCHAR`
/// (printable ASCII but `"` and `\`), at most [`MAX_NONCE`] bytes.
pub fn valid_nonce(n: &[u8]) -> bool {
    !n.is_empty()
        && n.len() <= MAX_NONCE
        && n.iter()
            .all(|&b| b == 0x21 || (0x23..=0x5b).contains(&b) || (0x5d..=0x7e).contains(&b))
}

/// The origin of `url` (`scheme://host:port`), what nonces are kept by;
/// the URL itself when it does not parse.
fn origin(url: &str) -> String {
    match url::Url::parse(url) {
        Ok(u) => u.origin().ascii_serialization(),
        Err(_) => url.to_owned(),
    }
}

/// The latest DPoP nonce each server gave, by origin, for the run.
#[derive(Debug, Default)]
pub struct Nonces(Mutex<HashMap<String, String>>);

impl Nonces {
    /// The nonce to put in a proof to `url`, if its server gave one.
    pub fn get(&self, url: &str) -> Option<String> {
        self.0.lock().ok()?.get(&origin(url)).cloned()
    }

    /// Keeps the `DPoP-Nonce` a response from `url` carried (an unusable
    /// one is ignored). Returns whether it is new (not the one kept).
    pub fn note(&self, url: &str, value: Option<&[u8]>) -> bool {
        let Some(v) = value.filter(|v| valid_nonce(v)) else {
            return false;
        };
        let v = String::from_utf8_lossy(v).into_owned();
        let Ok(mut m) = self.0.lock() else {
            return false;
        };
        m.insert(origin(url), v.clone()).as_ref() != Some(&v)
    }
}

/// The answer to a token request: its status, body and `DPoP-Nonce`.
struct Answer {
    status: u16,
    body: Vec<u8>,
    nonce: Option<Vec<u8>>,
}

impl Authorizer {
    /// A token request (`form`, to the token endpoint `url` of `issuer`):
    /// the one path every grant takes. With a DPoP key (`dpop`, as the
    /// sign-in keeps it), the request carries a proof (with the server's
    /// latest nonce), and a 400 `use_dpop_nonce` that brings a new nonce
    /// is answered by sending the request once more with it. Without one,
    /// a token answer of `token_type: DPoP` is refused (no key to use it
    /// with). Returns the status and the body.
    ///
    /// Errors: the stored key cannot be read or a proof signed
    /// ([`AuthError::Dpop`]); the request failed or had no answer in time,
    /// or the answer is larger than it reads; a DPoP token answered to a
    /// request without a proof ([`AuthError::DpopNotAsked`]).
    pub(super) fn token_request(
        &self,
        what: &'static str,
        (url, issuer): (&str, &str),
        form: &[(String, String)],
        basic: Option<String>,
        dpop: Option<&Secret>,
    ) -> Result<(u16, Vec<u8>), AuthError> {
        let key = dpop
            .map(key_from)
            .transpose()
            .map_err(|source| AuthError::Dpop {
                what: "reading the DPoP key kept",
                mcp_url: self.mcp_url.clone(),
                source,
            })?;
        let mut retried = false;
        loop {
            let mut headers = Vec::new();
            if let Some(k) = &key {
                let p = proof(k, "POST", url, self.nonces.get(url).as_deref(), None).map_err(
                    |source| AuthError::Dpop {
                        what: "signing the DPoP proof of a token request",
                        mcp_url: self.mcp_url.clone(),
                        source,
                    },
                )?;
                headers.push(("DPoP", p));
            }
            let a = self.post_token_form(what, url, form, basic.clone(), &headers)?;
            let fresh = self.nonces.note(url, a.nonce.as_deref());
            if key.is_some()
                && a.status == 400
                && fresh
                && !retried
                && oauth_error(&a.body).is_some_and(|(e, _)| e == "use_dpop_nonce")
            {
                retried = true;
                continue;
            }
            if key.is_none() && (200..300).contains(&a.status) && dpop_token(&a.body) {
                return Err(AuthError::DpopNotAsked {
                    issuer: issuer.to_owned(),
                    endpoint: url.to_owned(),
                });
            }
            return Ok((a.status, a.body));
        }
    }

    /// POST a form to a token endpoint with `headers` besides the form's
    /// own; the answer with its `DPoP-Nonce`.
    ///
    /// Errors: the request failed or had no answer in time, or the body is
    /// larger than [`super::http::MAX_ANSWER_BYTES`].
    fn post_token_form(
        &self,
        what: &'static str,
        url: &str,
        form: &[(String, String)],
        basic: Option<String>,
        headers: &[(&str, String)],
    ) -> Result<Answer, AuthError> {
        let mut body = url::form_urlencoded::Serializer::new(String::new());
        for (k, v) in form {
            body.append_pair(k, v);
        }
        let mut rb = self
            .agent_for(url)
            .post(url)
            .header("Content-Type", "application/x-www-form-urlencoded")
            .header("Accept", "application/json");
        if let Some(b) = basic {
            rb = rb.header("Authorization", b);
        }
        for (k, v) in headers {
            rb = rb.header(*k, v);
        }
        let ask = Ask { what, url };
        let resp = rb
            .send(body.finish().as_bytes())
            .map_err(|e| self.trouble(ask, e))?;
        let status = resp.status().as_u16();
        let nonce = resp
            .headers()
            .get("dpop-nonce")
            .map(|v| v.as_bytes().to_vec());
        Ok(Answer {
            status,
            nonce,
            body: self.read_answer(ask, resp)?,
        })
    }

    /// The DPoP key for a new sign-in at `meta`'s authorization server:
    /// a new one when it offers ES256 ([`Offer::Es256`]); none otherwise
    /// (when it offers only other algorithms, that is said once a run).
    ///
    /// Errors: the key could not be made ([`AuthError::Dpop`]).
    pub(super) fn dpop_key_for(&self, meta: &ServerMetadata) -> Result<Option<Secret>, AuthError> {
        match offer(meta) {
            Offer::None => Ok(None),
            Offer::Es256 => new_key().map(Some).map_err(|source| AuthError::Dpop {
                what: "making the DPoP key pair",
                mcp_url: self.mcp_url.clone(),
                source,
            }),
            Offer::Others(algs) => {
                self.store_trouble(&format!(
                    "{} offers DPoP only with {}; ahp-elicit signs DPoP proofs with {ALG} only: using bearer tokens there",
                    meta.issuer,
                    algs.join(", ")
                ));
                Ok(None)
            }
        }
    }

    /// The sign-in's headers for one request to the MCP server, `htm`
    /// (`POST`, `GET`, `DELETE`) to `url`: `Authorization` ([`Self::header`])
    /// and, with a DPoP-bound token, a fresh `DPoP` proof bound to it
    /// (with the server's latest nonce). With the generation they belong
    /// to. A DPoP key that cannot be used is said once, and nothing is
    /// sent (the 401 that follows signs in again).
    pub fn headers_for(&self, htm: &str, url: &str) -> (u64, Vec<(String, String)>) {
        let (generation, sending) = self.sending();
        let Some(s) = sending else {
            return (generation, Vec::new());
        };
        let mut h = vec![("Authorization".to_owned(), s.authorization())];
        if let Some(key) = &s.dpop {
            let nonce = self.nonces.get(url);
            match key_from(key).and_then(|k| proof(&k, htm, url, nonce.as_deref(), Some(&s.token)))
            {
                Ok(p) => h.push(("DPoP".to_owned(), p)),
                Err(e) => {
                    self.store_trouble(&format!(
                        "the DPoP key kept with the sign-in to {} cannot be used ({e}): signing in again",
                        self.mcp_url
                    ));
                    return (generation, Vec::new());
                }
            }
        }
        (generation, h)
    }

    /// Keeps the `DPoP-Nonce` a response from `url` carried (the MCP
    /// server's, for the next proofs to it). Returns whether it is new.
    pub fn note_dpop_nonce(&self, url: &str, value: Option<&[u8]>) -> bool {
        self.nonces.note(url, value)
    }
}

/// A token to send: the access token and, for a DPoP-bound one, the key
/// its proofs are signed with.
pub(super) struct Sending {
    pub(super) token: String,
    pub(super) dpop: Option<Secret>,
}

impl Sending {
    /// The `Authorization` header value: `DPoP TOKEN` or `Bearer TOKEN`.
    pub(super) fn authorization(&self) -> String {
        match self.dpop {
            Some(_) => format!("DPoP {}", self.token),
            None => format!("Bearer {}", self.token),
        }
    }
}

/// Whether a token answer says `token_type: DPoP` (any case).
fn dpop_token(body: &[u8]) -> bool {
    serde_json::from_slice::<Value>(body).is_ok_and(|v| {
        v.get("token_type")
            .and_then(Value::as_str)
            .is_some_and(|t| t.eq_ignore_ascii_case("dpop"))
    })
}

#[cfg(test)]
mod tests;
