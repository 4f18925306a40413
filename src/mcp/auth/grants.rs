//! The grants that need no person ([`super::unattended`]): client
//! credentials (RFC 6749 §4.4), the JWT bearer grant (RFC 7523 §2.1) and
//! enterprise-managed authorization (the RFC 8693 token exchange at the
//! identity provider for an ID-JAG, then the JWT bearer grant with it);
//! and the client's authentication at a token endpoint, `private_key_jwt`
//! (RFC 7523 §2.2) included.
//!
//! Each token request goes through [`Authorizer::token_request`] (bounded
//! by the run's request timeout; with a DPoP proof where the authorization
//! server offers DPoP), carries `resource` (RFC 8707) exactly as the
//! protected resource metadata published it, and is sent once: a refusal
//! ends the sign-in with [`GrantError::Refused`], and no other grant is
//! tried. The assertion and the ID token are read at each use.

use std::time::{SystemTime, UNIX_EPOCH};

use serde_json::{json, Value};

use super::authorizer::*;
use super::discovery::{endpoint_allowed, ServerMetadata};
use super::error::AuthError;
use super::flow::{basic_auth, oauth_error, random_token};
use super::http::*;
use super::registration::client_auth;
use super::store::{ClientKind, ClientRegistration, GrantType, Secret, SignIn, SignInKey};
use super::unattended::*;

/// `grant_type` of the JWT bearer grant (RFC 7523 §2.1).
pub const JWT_BEARER: &str = "urn:ietf:params:oauth:grant-type:jwt-bearer";
/// `grant_type` of the token exchange (RFC 8693 §2.1).
pub const TOKEN_EXCHANGE: &str = "urn:ietf:params:oauth:grant-type:token-exchange";
/// `subject_token_type` of an OpenID Connect ID token (RFC 8693 §3).
pub const ID_TOKEN_TYPE: &str = "urn:ietf:params:oauth:token-type:id_token";
/// `requested_token_type` of an Identity Assertion JWT Authorization
/// Grant (enterprise-managed authorization).
pub const ID_JAG_TYPE: &str = "urn:ietf:params:oauth:token-type:id-jag";
/// `client_assertion_type` of `private_key_jwt` (RFC 7523 §2.2).
pub const CLIENT_ASSERTION_TYPE: &str = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer";
/// How long a client assertion is valid, in seconds.
pub const CLIENT_ASSERTION_LIFETIME: u64 = 60;

/// The `grant_type` a grant is sent as.
pub fn grant_type(g: &Grant) -> &'static str {
    match g {
        Grant::ClientCredentials => "client_credentials",
        Grant::JwtBearer { .. } | Grant::Enterprise(_) => JWT_BEARER,
    }
}

/// The step a grant's token request is, in words (for its errors).
fn step(g: &Grant) -> &'static str {
    match g {
        Grant::ClientCredentials => "the client credentials grant",
        Grant::JwtBearer { .. } => "the JWT bearer grant",
        Grant::Enterprise(_) => "the JWT bearer grant with the ID-JAG",
    }
}

/// Whether the authorization server offers the grant: yes when it lists
/// no `grant_types_supported`.
///
/// Errors: [`GrantError::NotOffered`].
pub(super) fn offered(meta: &ServerMetadata, g: &Grant) -> Result<(), GrantError> {
    let want = grant_type(g);
    match &meta.grant_types_supported {
        Some(list) if !list.iter().any(|x| x == want) => Err(GrantError::NotOffered {
            issuer: meta.issuer.clone(),
            grant: want,
            listed: if list.is_empty() {
                "none".into()
            } else {
                list.join(" ")
            },
        }),
        _ => Ok(()),
    }
}

/// Seconds since the Unix epoch.
fn epoch_seconds() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

impl Authorizer {
    /// Whether sign-in `s` may stand for this run's: always with the
    /// browser flow; with `--grant`, only one made with that grant by the
    /// same client id (another identity's tokens are not used, and a new
    /// sign-in replaces them).
    pub(super) fn grant_fits(&self, s: &SignIn) -> bool {
        let Some(u) = &self.opts.unattended else {
            return true;
        };
        let id = self
            .opts
            .client
            .as_ref()
            .map_or("", |c| c.client_id.as_str());
        s.grant == u.grant.kind() && s.client.client_id == id
    }

    /// A sign-in without a person: the grant's token request (after the
    /// identity provider's exchange, for enterprise-managed authorization)
    /// for `resource` and `scopes`. `renewal`: the tokens in use are
    /// expiring, so this sign-in does not count among the run's
    /// [`MAX_FLOWS`].
    ///
    /// Errors: [`GrantError`] (a secret unreadable now, no credentials,
    /// a refusal), or the request failed.
    pub(super) fn unattended_sign_in(
        &self,
        g: &mut Inner,
        u: &Unattended,
        (resource, meta, meta_url): (&str, &ServerMetadata, &str),
        mut scopes: Vec<String>,
        renewal: bool,
    ) -> Result<SignIn, AuthError> {
        if !renewal {
            g.flows += 1;
        }
        // `offline_access` asks for a refresh token a person would
        // otherwise sign in again for; a grant needs none unless asked.
        if self
            .opts
            .scope
            .as_ref()
            .is_none_or(|s| !s.iter().any(|x| x == "offline_access"))
        {
            scopes.retain(|s| s != "offline_access");
        }
        let client = self.grant_client(g, u, meta)?;
        let words = u.grant.kind().words();
        let assertion = match &u.grant {
            Grant::ClientCredentials => None,
            Grant::JwtBearer { assertion } => {
                Some(assertion.read().map_err(|source| GrantError::Secret {
                    grant: words,
                    source,
                })?)
            }
            Grant::Enterprise(idp) => Some(self.id_jag(idp, resource, meta, &scopes)?),
        };
        let mut form = vec![("grant_type".to_owned(), grant_type(&u.grant).to_owned())];
        if let Some(a) = &assertion {
            form.push(("assertion".into(), a.expose().to_owned()));
        }
        form.push(("resource".into(), resource.to_owned()));
        if !scopes.is_empty() {
            form.push(("scope".into(), scopes.join(" ")));
        }
        let basic = self.authenticate(&client, meta, &mut form)?;
        // Sender-constrained where the authorization server offers DPoP:
        // the key is made for this sign-in and kept with it.
        let dpop_key = self.dpop_key_for(meta)?;
        let (status, body) = self.token_request(
            "the token answer",
            (&meta.token_endpoint, &meta.issuer),
            &form,
            basic,
            dpop_key.as_ref(),
        )?;
        if !(200..300).contains(&status) {
            let kind = refusal_of(&body);
            let way_out = self.way_out(u, false, &kind, &client.client_id, &scopes, meta);
            return Err(GrantError::Refused {
                step: step(&u.grant),
                url: meta.token_endpoint.clone(),
                refusal: kind,
                why: refusal(status, &body),
                way_out,
            }
            .into());
        }
        let tokens = token_answer("the token answer", meta, &body, &scopes)?;
        Ok(SignIn {
            key: SignInKey {
                resource: resource.to_owned(),
                issuer: meta.issuer.clone(),
                account: self.opts.account.clone(),
            },
            mcp_url: self.mcp_url.clone(),
            as_metadata_url: meta_url.to_owned(),
            client,
            tokens,
            grant: u.grant.kind(),
            dpop_key,
        })
    }

    /// The client a grant authenticates as at `meta`'s issuer: the id of
    /// `--client-id` (bound to the first issuer it is used at, as a
    /// pre-registered client is), the method `--client-auth` names or the
    /// one chosen from the metadata and what was given.
    ///
    /// Errors: no client id where the grant needs one, or no credentials
    /// for the grant or method.
    fn grant_client(
        &self,
        g: &mut Inner,
        u: &Unattended,
        meta: &ServerMetadata,
    ) -> Result<ClientRegistration, AuthError> {
        let words = u.grant.kind().words();
        let issuer = meta.issuer.clone();
        let pre = self.opts.client.as_ref();
        let client_id = pre.map(|p| p.client_id.clone()).unwrap_or_default();
        if client_id.is_empty() && !matches!(u.grant, Grant::JwtBearer { .. }) {
            return Err(GrantError::NoClientId {
                grant: words,
                issuer,
            }
            .into());
        }
        if pre.is_some() {
            match &g.pre_issuer {
                Some(first) if *first != issuer => {
                    return Err(AuthError::ClientIdElsewhere {
                        first: first.clone(),
                        issuer,
                    })
                }
                _ => g.pre_issuer = Some(issuer.clone()),
            }
        }
        let has_secret = pre.is_some_and(|p| p.client_secret.is_some());
        let has_key = u.client_key.is_some();
        let listed = |m: ClientAuth| {
            meta.token_endpoint_auth_methods_supported
                .as_ref()
                .is_none_or(|l| l.iter().any(|x| x == m.as_str()))
        };
        let method = match u.client_auth {
            Some(m) => m,
            None if has_key => ClientAuth::PrivateKeyJwt,
            None if has_secret && !listed(ClientAuth::Basic) && listed(ClientAuth::Post) => {
                ClientAuth::Post
            }
            None if has_secret => ClientAuth::Basic,
            None => ClientAuth::None,
        };
        let needs = match method {
            ClientAuth::PrivateKeyJwt if !has_key => Some("--client-key file:PATH|env:VAR (the client's private key) for private_key_jwt"),
            ClientAuth::Basic | ClientAuth::Post if !has_secret => {
                Some("--client-secret env:VAR|file:PATH for client_secret_basic or client_secret_post")
            }
            ClientAuth::None if matches!(u.grant, Grant::ClientCredentials) => Some(
                "the client's credentials: --client-secret env:VAR|file:PATH, or --client-key file:PATH for private_key_jwt",
            ),
            _ => None,
        };
        if let Some(needs) = needs {
            return Err(GrantError::NoCredentials {
                grant: words,
                issuer,
                needs,
            }
            .into());
        }
        Ok(ClientRegistration {
            issuer,
            kind: ClientKind::PreRegistered,
            client_id,
            client_secret: None,
            client_secret_expires_at: None,
            token_endpoint_auth_method: method.as_str().into(),
            redirect_uri: String::new(),
        })
    }

    /// Add the client's authentication to a token request to `meta`:
    /// `private_key_jwt` signs a fresh client assertion with the run's
    /// `--client-key` (`iss` = `sub` = the client id, `aud` = the issuer,
    /// a minute's life, a random `jti`); the other methods as
    /// [`client_auth`]. A client with no id (a JWT bearer grant without
    /// `--client-id`) adds nothing. Returns the `Authorization` header for
    /// `client_secret_basic`.
    ///
    /// Errors: the key cannot sign, or signs with an algorithm the
    /// authorization server does not list.
    pub(super) fn authenticate(
        &self,
        client: &ClientRegistration,
        meta: &ServerMetadata,
        form: &mut Vec<(String, String)>,
    ) -> Result<Option<String>, AuthError> {
        if client.client_id.is_empty() {
            return Ok(None);
        }
        if client.token_endpoint_auth_method != ClientAuth::PrivateKeyJwt.as_str() {
            let secret = self.secret_of(client);
            return Ok(client_auth(client, secret.as_ref(), form));
        }
        let key = self
            .opts
            .unattended
            .as_ref()
            .and_then(|u| u.client_key.clone())
            .ok_or_else(|| GrantError::NoCredentials {
                grant: "private_key_jwt",
                issuer: meta.issuer.clone(),
                needs: "--client-key file:PATH|env:VAR (the client's private key)",
            })?;
        if let Some(listed) = &meta.token_endpoint_auth_signing_alg_values_supported {
            if !listed.iter().any(|a| a == key.alg()) {
                return Err(GrantError::AlgNotTaken {
                    issuer: meta.issuer.clone(),
                    alg: key.alg().to_owned(),
                    listed: listed.join(" "),
                }
                .into());
            }
        }
        let iat = epoch_seconds();
        let claims = json!({
            "iss": client.client_id,
            "sub": client.client_id,
            "aud": meta.issuer,
            "iat": iat,
            "exp": iat + CLIENT_ASSERTION_LIFETIME,
            "jti": random_token()?.expose(),
        });
        let assertion = key.sign(&claims).map_err(|why| GrantError::Signing {
            issuer: meta.issuer.clone(),
            why,
        })?;
        crate::redact::register_secret(&assertion);
        form.push(("client_id".into(), client.client_id.clone()));
        form.push(("client_assertion_type".into(), CLIENT_ASSERTION_TYPE.into()));
        form.push(("client_assertion".into(), assertion));
        Ok(None)
    }

    /// The token exchange at the identity provider: the ID token read now
    /// for an ID-JAG whose audience is `meta`'s issuer and whose resource
    /// is `resource`.
    ///
    /// Errors: the endpoint is not https, the ID token cannot be read, the
    /// exchange is refused, or its answer holds no ID-JAG.
    fn id_jag(
        &self,
        idp: &IdentityProvider,
        resource: &str,
        meta: &ServerMetadata,
        scopes: &[String],
    ) -> Result<Secret, AuthError> {
        let url = &idp.token_endpoint;
        if !endpoint_allowed(url) {
            return Err(GrantError::IdpNotHttps {
                url: crate::safe_text::display(url).into_owned(),
            }
            .into());
        }
        let words = GrantType::Enterprise.words();
        let secret_error = |source| GrantError::Secret {
            grant: words,
            source,
        };
        let id_token = idp.id_token.read().map_err(secret_error)?;
        let mut form = vec![
            ("grant_type".to_owned(), TOKEN_EXCHANGE.to_owned()),
            ("requested_token_type".into(), ID_JAG_TYPE.into()),
            ("audience".into(), meta.issuer.clone()),
            ("resource".into(), resource.to_owned()),
        ];
        if !scopes.is_empty() {
            form.push(("scope".into(), scopes.join(" ")));
        }
        form.push(("subject_token".into(), id_token.expose().to_owned()));
        form.push(("subject_token_type".into(), ID_TOKEN_TYPE.into()));
        let basic = match &idp.client_secret {
            Some(s) => Some(basic_auth(
                &idp.client_id,
                s.read().map_err(secret_error)?.expose(),
            )),
            None => {
                form.push(("client_id".into(), idp.client_id.clone()));
                None
            }
        };
        let what = "the token exchange answer";
        // No DPoP here: the ID-JAG is no access token, and the identity
        // provider is not the server it is for.
        let (status, body) = self.token_request(what, (url, url), &form, basic, None)?;
        if !(200..300).contains(&status) {
            let kind = refusal_of(&body);
            let u = self.opts.unattended.as_ref();
            let way_out = match u {
                Some(u) => self.way_out(u, true, &kind, &idp.client_id, scopes, meta),
                None => String::new(),
            };
            return Err(GrantError::Refused {
                step: "the token exchange at the identity provider",
                url: url.clone(),
                refusal: kind,
                why: refusal(status, &body),
                way_out,
            }
            .into());
        }
        let v = json_answer(Ask { what, url }, &body)?;
        let no_jag = |why| GrantError::NoIdJag {
            url: url.clone(),
            why,
            audience: meta.issuer.clone(),
        };
        if v.get("issued_token_type").and_then(Value::as_str) != Some(ID_JAG_TYPE) {
            return Err(no_jag(
                "its issued_token_type is not urn:ietf:params:oauth:token-type:id-jag",
            )
            .into());
        }
        let jag = v
            .get("access_token")
            .and_then(Value::as_str)
            .filter(|t| !t.is_empty())
            .ok_or_else(|| no_jag("it has no access_token"))?;
        crate::redact::register_secret(jag);
        Ok(Secret::new(jag))
    }

    /// What to do after a refusal of `u`'s grant (`at_idp`: of the token
    /// exchange at the identity provider).
    fn way_out(
        &self,
        u: &Unattended,
        at_idp: bool,
        refusal: &Refusal,
        client_id: &str,
        scopes: &[String],
        meta: &ServerMetadata,
    ) -> String {
        let issuer = &meta.issuer;
        let client = if client_id.is_empty() {
            "this client".to_owned()
        } else {
            format!("the client {client_id}")
        };
        let retried = "nothing is retried and no other grant is tried";
        match (refusal, &u.grant, at_idp) {
            (Refusal::InvalidGrant, Grant::JwtBearer { assertion }, _) => format!(
                "the assertion read from {} is expired, issued for another audience or not trusted there: give a fresh one whose audience is {issuer}; {retried}",
                assertion.place()
            ),
            (Refusal::InvalidGrant, Grant::Enterprise(idp), true) => format!(
                "the ID token read from {} is expired or not issued for {client} there: give a fresh one; {retried}",
                idp.id_token.place()
            ),
            (Refusal::InvalidGrant, Grant::Enterprise(_), false) => format!(
                "{issuer} did not take the ID-JAG: check that it trusts the identity provider and that the ID-JAG is for {client}; {retried}"
            ),
            (Refusal::InvalidScope, _, _) if scopes.is_empty() => format!(
                "it wants the scopes named: give them with --scope; {retried}"
            ),
            (Refusal::InvalidScope, _, _) => format!(
                "{client} may not have every scope asked for ({}): ask for others with --scope; {retried}",
                scopes.join(" ")
            ),
            (Refusal::UnauthorizedClient, _, true) => format!(
                "{client} may not exchange tokens at the identity provider: have it allowed there; {retried}"
            ),
            (Refusal::UnauthorizedClient, _, false) => format!(
                "{client} may not use this grant at {issuer}: have it allowed there, or choose another --grant; {retried}"
            ),
            (Refusal::InvalidClient, _, true) => format!(
                "check --idp-client-id and --idp-client-secret; {retried}"
            ),
            (Refusal::InvalidClient, _, false) => format!(
                "the client's authentication failed: check --client-id and --client-secret or --client-key (and --client-auth); {retried}"
            ),
            _ => retried.to_owned(),
        }
    }
}

/// The [`Refusal`] a token endpoint's error answer names.
fn refusal_of(body: &[u8]) -> Refusal {
    oauth_error(body).map_or(Refusal::Other, |(e, _)| Refusal::of(&e))
}

#[cfg(test)]
mod tests;
