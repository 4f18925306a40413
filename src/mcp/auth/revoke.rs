//! Signing out at the authorization server: token revocation (RFC 7009),
//! what `auth logout` does before it deletes a stored sign-in.
//!
//! The refresh token is revoked when there is one (revoking it ends the
//! grant, and the access tokens of most servers with it), else the access
//! token. The endpoint is the `revocation_endpoint` of the metadata the
//! sign-in was made with, read again from where it was read
//! (`SignIn::as_metadata_url`), its `issuer` still the sign-in's; it must
//! be https (or http on this machine), and a remote server's may not be on
//! this machine ([`super::discovery::points_home`]). The client
//! authenticates as it did at the token endpoint (a pre-registered
//! client's secret is never stored: without it the client id alone is
//! sent); a DPoP sign-in's request carries a proof signed with its key
//! (sent once more with the server's nonce when it asks for one). Nothing
//! of the answer is trusted but its status (and a `use_dpop_nonce`); no
//! token is ever said.

use std::time::Duration;

use super::discovery::{endpoint_allowed, points_home, resolves_home, ServerMetadata};
use super::dpop;
use super::flow::oauth_error;
use super::registration::client_auth;
use super::store::{Secret, SignIn};

/// Which token was revoked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Revoked {
    /// The refresh token (the grant).
    RefreshToken,
    /// The access token (the sign-in had no refresh token).
    AccessToken,
}

impl Revoked {
    /// `refresh token` or `access token`.
    pub fn words(self) -> &'static str {
        match self {
            Revoked::RefreshToken => "refresh token",
            Revoked::AccessToken => "access token",
        }
    }

    /// RFC 7009's `token_type_hint`.
    fn hint(self) -> &'static str {
        match self {
            Revoked::RefreshToken => "refresh_token",
            Revoked::AccessToken => "access_token",
        }
    }
}

/// Why a token was not revoked. One sentence each (URLs as published, made
/// safe when shown); never a token.
#[derive(Debug, thiserror::Error)]
pub enum RevokeError {
    /// The authorization server advertises no `revocation_endpoint`.
    #[error("{issuer} offers no token revocation (no revocation_endpoint)")]
    NotOffered {
        /// The issuer.
        issuer: String,
    },
    /// The metadata could not be read again.
    #[error("the authorization server metadata at {url} could not be read: {why}")]
    Metadata {
        /// Where it was read.
        url: String,
        /// Why.
        why: String,
    },
    /// The metadata now names another issuer.
    #[error(
        "the metadata at {url} now says it is \"{said}\", not \"{issuer}\": not revoking there"
    )]
    OtherIssuer {
        /// Where it was read.
        url: String,
        /// What it says.
        said: String,
        /// The sign-in's issuer.
        issuer: String,
    },
    /// The endpoint is not one credentials are sent to.
    #[error("the revocation endpoint {url} is not https (nor on this machine for a server on it): not sending a token there")]
    NotAllowed {
        /// The endpoint.
        url: String,
    },
    /// The request failed or the server refused it.
    #[error("the revocation request to {url} failed: {why}")]
    Failed {
        /// The endpoint.
        url: String,
        /// Why (a status, or the transport's error in words).
        why: String,
    },
}

/// Revoke the grant of `sign_in` at its authorization server (see the
/// module docs); `secret` is the client's secret when it has one that is
/// not stored (`--client-secret`). Each request is bounded by `timeout`.
///
/// Errors: [`RevokeError`], why nothing was revoked.
pub fn revoke(
    sign_in: &SignIn,
    secret: Option<&Secret>,
    timeout: Duration,
) -> Result<Revoked, RevokeError> {
    let issuer = &sign_in.key.issuer;
    let meta_url = &sign_in.as_metadata_url;
    let config = || {
        ureq::Agent::config_builder()
            .http_status_as_error(false)
            .max_redirects(0)
            .timeout_global(Some(timeout))
            .user_agent(concat!("ahp-elicit/", env!("CARGO_PKG_VERSION")))
    };
    let agent_for = |url: &str| -> ureq::Agent {
        match url::Url::parse(url) {
            Ok(u) if resolves_home(&u) => config().proxy(None).build().into(),
            _ => config().build().into(),
        }
    };
    let metadata_trouble = |why: String| RevokeError::Metadata {
        url: meta_url.clone(),
        why,
    };
    if !endpoint_allowed(meta_url) || points_home(&sign_in.mcp_url, meta_url) {
        return Err(metadata_trouble(
            "not an address sign-in reads metadata from".into(),
        ));
    }
    let mut resp = agent_for(meta_url)
        .get(meta_url)
        .header("Accept", "application/json")
        .call()
        .map_err(|e| metadata_trouble(e.to_string()))?;
    if !resp.status().is_success() {
        return Err(metadata_trouble(format!("HTTP {}", resp.status().as_u16())));
    }
    let body = resp
        .body_mut()
        .with_config()
        .limit(super::http::MAX_ANSWER_BYTES)
        .read_to_vec()
        .map_err(|e| metadata_trouble(e.to_string()))?;
    let v: serde_json::Value =
        serde_json::from_slice(&body).map_err(|e| metadata_trouble(e.to_string()))?;
    let meta = ServerMetadata::parse(&v).map_err(|e| metadata_trouble(e.to_string()))?;
    if &meta.issuer != issuer {
        return Err(RevokeError::OtherIssuer {
            url: meta_url.clone(),
            said: meta.issuer,
            issuer: issuer.clone(),
        });
    }
    let Some(endpoint) = meta.revocation_endpoint else {
        return Err(RevokeError::NotOffered {
            issuer: issuer.clone(),
        });
    };
    if !endpoint_allowed(&endpoint) || points_home(&sign_in.mcp_url, &endpoint) {
        return Err(RevokeError::NotAllowed { url: endpoint });
    }
    let tokens = &sign_in.tokens;
    let (which, token) = match &tokens.refresh_token {
        Some(r) => (Revoked::RefreshToken, r),
        None => (Revoked::AccessToken, &tokens.access_token),
    };
    let secret = secret.or(sign_in.client.client_secret.as_ref());
    let mut form: Vec<(String, String)> = vec![
        ("token".into(), token.expose().to_owned()),
        ("token_type_hint".into(), which.hint().into()),
    ];
    let basic = client_auth(&sign_in.client, secret, &mut form);
    let mut body = url::form_urlencoded::Serializer::new(String::new());
    for (k, v) in &form {
        body.append_pair(k, v);
    }
    let body = body.finish();
    let failed = |why: String| RevokeError::Failed {
        url: endpoint.clone(),
        why,
    };
    // A DPoP sign-in's tokens are bound to its key: the request carries a
    // proof, sent once more with the server's nonce when it asks for one
    // (RFC 9449 §8).
    let key = match &sign_in.dpop_key {
        Some(k) => Some(dpop::key_from(k).map_err(|e| failed(format!("its DPoP key: {e}")))?),
        None => None,
    };
    let mut nonce: Option<String> = None;
    loop {
        let mut rb = agent_for(&endpoint)
            .post(&endpoint)
            .header("Content-Type", "application/x-www-form-urlencoded")
            .header("Accept", "application/json");
        if let Some(b) = &basic {
            rb = rb.header("Authorization", b);
        }
        if let Some(k) = &key {
            let p = dpop::proof(k, "POST", &endpoint, nonce.as_deref(), None)
                .map_err(|e| failed(format!("its DPoP proof: {e}")))?;
            rb = rb.header("DPoP", &p);
        }
        let mut resp = rb
            .send(body.as_bytes())
            .map_err(|e| failed(e.to_string()))?;
        let status = resp.status().as_u16();
        let asked = resp
            .headers()
            .get("dpop-nonce")
            .map(|v| v.as_bytes())
            .filter(|v| dpop::valid_nonce(v))
            .map(|v| String::from_utf8_lossy(v).into_owned());
        if status == 400 && key.is_some() && nonce.is_none() && asked.is_some() {
            let answer = resp
                .body_mut()
                .with_config()
                .limit(super::http::MAX_ANSWER_BYTES)
                .read_to_vec()
                .unwrap_or_default();
            if oauth_error(&answer).is_some_and(|(e, _)| e == "use_dpop_nonce") {
                nonce = asked;
                continue;
            }
        }
        // RFC 7009 §2.2: 200 also for a token the server no longer knows.
        return match status {
            200 => Ok(which),
            s => Err(failed(format!("HTTP {s}"))),
        };
    }
}
