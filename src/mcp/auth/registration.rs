//! The client identity at an authorization server, in the specification's
//! order: pre-registered, a Client ID Metadata Document, a registration
//! kept per issuer, Dynamic Client Registration; and the client's
//! authentication at the token endpoint.

use std::time::{Duration, SystemTime};

use serde_json::{json, Value};

use super::authorizer::*;
use super::discovery::{endpoint_allowed, ServerMetadata};
use super::error::AuthError;
use super::flow::{auth_method, basic_auth, oauth_error};
use super::http::*;
use super::store::{ClientKind, ClientRegistration, Secret};

/// Add the client's authentication to a token request: `client_id` (and
/// `client_secret` for `client_secret_post`) in the form, or the Basic
/// header it returns.
pub(super) fn client_auth(
    client: &ClientRegistration,
    secret: Option<&Secret>,
    form: &mut Vec<(String, String)>,
) -> Option<String> {
    match (client.token_endpoint_auth_method.as_str(), secret) {
        ("client_secret_basic", Some(s)) => Some(basic_auth(&client.client_id, s.expose())),
        ("client_secret_post", Some(s)) => {
            form.push(("client_id".into(), client.client_id.clone()));
            form.push(("client_secret".into(), s.expose().to_owned()));
            None
        }
        _ => {
            form.push(("client_id".into(), client.client_id.clone()));
            None
        }
    }
}

impl Authorizer {
    /// The pre-registered client's secret when `client` is it.
    pub(super) fn secret_of(&self, client: &ClientRegistration) -> Option<Secret> {
        match client.kind {
            ClientKind::PreRegistered => self
                .opts
                .client
                .as_ref()
                .and_then(|p| p.client_secret.clone()),
            _ => client.client_secret.clone(),
        }
    }

    /// The client identity at this server, in the specification's order.
    pub(super) fn client_identity(
        &self,
        g: &mut Inner,
        meta: &ServerMetadata,
        stored: Option<ClientRegistration>,
        redirect_uri: &str,
    ) -> Result<ClientRegistration, AuthError> {
        let supported = meta.token_endpoint_auth_methods_supported.as_deref();
        if let Some(pre) = &self.opts.client {
            match &g.pre_issuer {
                Some(first) if *first != meta.issuer => {
                    return Err(AuthError::ClientIdElsewhere {
                        first: first.clone(),
                        issuer: meta.issuer.clone(),
                    })
                }
                _ => g.pre_issuer = Some(meta.issuer.clone()),
            }
            return Ok(ClientRegistration {
                issuer: meta.issuer.clone(),
                kind: ClientKind::PreRegistered,
                client_id: pre.client_id.clone(),
                client_secret: None,
                client_secret_expires_at: None,
                token_endpoint_auth_method: auth_method(
                    None,
                    supported,
                    pre.client_secret.is_some(),
                )
                .into(),
                redirect_uri: redirect_uri.into(),
            });
        }
        if let Some(cimd) = &self.opts.client_metadata_url {
            if meta.client_id_metadata_document_supported {
                return Ok(ClientRegistration {
                    issuer: meta.issuer.clone(),
                    kind: ClientKind::MetadataDocument,
                    client_id: cimd.clone(),
                    client_secret: None,
                    client_secret_expires_at: None,
                    token_endpoint_auth_method: "none".into(),
                    redirect_uri: redirect_uri.into(),
                });
            }
        }
        if let Some(c) = stored {
            let expired = c.client_secret_expires_at.is_some_and(|t| {
                t != 0 && SystemTime::UNIX_EPOCH + Duration::from_secs(t) <= now()
            });
            if c.redirect_uri == redirect_uri && !expired {
                return Ok(c);
            }
        }
        let Some(endpoint) = &meta.registration_endpoint else {
            return Err(AuthError::NoRegistration {
                issuer: meta.issuer.clone(),
                metadata_documents: meta.client_id_metadata_document_supported,
            });
        };
        self.register(meta, endpoint, redirect_uri)
    }

    /// Dynamic Client Registration (RFC 7591) at `endpoint`, kept in the
    /// store for the issuer.
    ///
    /// Errors: the endpoint is not https, the request fails or is refused,
    /// or the answer gives no `client_id`.
    pub(super) fn register(
        &self,
        meta: &ServerMetadata,
        endpoint: &str,
        redirect_uri: &str,
    ) -> Result<ClientRegistration, AuthError> {
        let supported = meta.token_endpoint_auth_methods_supported.as_deref();
        if !endpoint_allowed(endpoint) {
            return Err(AuthError::RegistrationNotHttps {
                issuer: meta.issuer.clone(),
            });
        }
        let body = json!({
            "client_name": "ahp-elicit",
            "redirect_uris": [redirect_uri],
            "grant_types": ["authorization_code", "refresh_token"],
            "response_types": ["code"],
            "token_endpoint_auth_method": "none",
            "application_type": "native",
            "software_id": "ahp-elicit",
            "software_version": env!("CARGO_PKG_VERSION"),
        });
        let resp = self
            .agent_for(endpoint)
            .post(endpoint)
            .header("Content-Type", "application/json")
            .header("Accept", "application/json")
            .send(body.to_string().as_bytes());
        let ask = Ask {
            what: "the registration answer",
            url: endpoint,
        };
        let resp = resp.map_err(|e| self.trouble(ask, e))?;
        let status = resp.status().as_u16();
        let answer = self.read_answer(ask, resp)?;
        if !(200..300).contains(&status) {
            let why = refusal(status, &answer);
            if oauth_error(&answer).is_some_and(|(e, _)| e == "invalid_redirect_uri") {
                return Err(AuthError::RedirectUriRefused {
                    issuer: meta.issuer.clone(),
                    why,
                    redirect_uri: redirect_uri.to_owned(),
                });
            }
            return Err(AuthError::RegistrationRefused {
                issuer: meta.issuer.clone(),
                why,
            });
        }
        let v = json_answer(ask, &answer)?;
        let client_id = v
            .get("client_id")
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
            .ok_or_else(|| AuthError::NoClientId {
                issuer: meta.issuer.clone(),
            })?;
        let secret = v
            .get("client_secret")
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
            .map(Secret::new);
        let registered = v
            .get("token_endpoint_auth_method")
            .and_then(Value::as_str)
            .or(secret.is_some().then_some("client_secret_basic"));
        let client = ClientRegistration {
            issuer: meta.issuer.clone(),
            kind: ClientKind::Dynamic,
            client_id: client_id.to_owned(),
            token_endpoint_auth_method: auth_method(registered, supported, secret.is_some()).into(),
            client_secret: secret,
            client_secret_expires_at: v.get("client_secret_expires_at").and_then(Value::as_u64),
            redirect_uri: redirect_uri.into(),
        };
        if let Err(e) = self.store()?.save_client(&client) {
            self.store_trouble(&e);
        }
        Ok(client)
    }

    /// After a token endpoint refusal: when it says the client is unknown
    /// (`invalid_client`, `unauthorized_client`) and the client was
    /// registered here (Dynamic Client Registration), forget that
    /// registration. Returns whether it was forgotten.
    pub(super) fn forget_rejected_client(&self, client: &ClientRegistration, body: &[u8]) -> bool {
        let rejected = oauth_error(body)
            .is_some_and(|(e, _)| matches!(e.as_str(), "invalid_client" | "unauthorized_client"));
        if !rejected || client.kind != ClientKind::Dynamic {
            return false;
        }
        self.forget_client(client);
        true
    }

    /// Forget the registration kept for `client`'s issuer (the next flow
    /// registers again); a store that fails is said once.
    pub(super) fn forget_client(&self, client: &ClientRegistration) {
        if let Ok(store) = self.store() {
            if let Err(e) = store.remove_client(&client.issuer) {
                self.store_trouble(&e);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mcp::auth::fake_as::*;
    use crate::mcp::auth::store::Store;
    use std::sync::{Arc, Mutex};

    #[test]
    fn client_authentication_goes_where_the_method_says() {
        let s = Secret::new("sec");
        let mut form = Vec::new();
        assert_eq!(
            client_auth(&client("client_secret_basic"), Some(&s), &mut form),
            Some(basic_auth("cid", "sec"))
        );
        assert!(form.is_empty());
        assert_eq!(
            client_auth(&client("client_secret_post"), Some(&s), &mut form),
            None
        );
        assert_eq!(
            form,
            [
                ("client_id".into(), "cid".into()),
                ("client_secret".into(), "sec".into())
            ]
        );
        form.clear();
        assert_eq!(client_auth(&client("none"), Some(&s), &mut form), None);
        assert_eq!(form, [("client_id".to_string(), "cid".to_string())]);
    }

    #[test]
    fn a_kept_registration_is_used_again_when_its_port_can_be_bound() {
        let fake = fake_as(|base, m, t, _| {
            if let Some(a) = prm_and_metadata(base, m, t) {
                return a;
            }
            match (m, t) {
                ("POST", "/register") => (201, r#"{"client_id":"new-client"}"#.into()),
                ("POST", "/token") => (
                    200,
                    r#"{"access_token":"a-new","token_type":"Bearer"}"#.into(),
                ),
                _ => (404, "{}".into()),
            }
        });
        let kept = |port: u16| {
            let store = Arc::new(crate::mcp::auth::store::MemoryStore::default());
            store
                .save_client(&ClientRegistration {
                    issuer: fake.base.clone(),
                    kind: ClientKind::Dynamic,
                    client_id: "kept-client".into(),
                    client_secret: None,
                    client_secret_expires_at: None,
                    token_endpoint_auth_method: "none".into(),
                    redirect_uri: format!("http://127.0.0.1:{port}/callback"),
                })
                .unwrap();
            store
        };
        let sign_in = |store: &Arc<crate::mcp::auth::store::MemoryStore>| {
            let (mut a, _) = authorizer(&fake.base, Arc::clone(store));
            let urls = Arc::new(Mutex::new(Vec::new()));
            a.opts.opener = Some(redirecting_opener(&urls));
            a.opts.opener_name = "a test".into();
            a.authorize(&first_401()).unwrap();
            assert_eq!(a.header().1.as_deref(), Some("Bearer a-new"));
            let url = urls.lock().unwrap()[0].clone();
            url
        };
        let registrations = || {
            fake.seen
                .lock()
                .unwrap()
                .iter()
                .filter(|(m, t, _)| m == "POST" && t == "/register")
                .count()
        };
        // Its port is free: the kept client and its redirect URI are used,
        // nothing is registered.
        let free = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let url = sign_in(&kept(free));
        assert!(url.contains("client_id=kept-client"), "{url}");
        assert!(
            url.contains(&format!(
                "redirect_uri=http%3A%2F%2F127.0.0.1%3A{free}%2Fcallback"
            )),
            "{url}"
        );
        assert_eq!(registrations(), 0);
        // Its port is taken: registered anew (on another port), and the new
        // registration is kept in its place.
        let held = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let store = kept(held.local_addr().unwrap().port());
        let url = sign_in(&store);
        assert!(url.contains("client_id=new-client"), "{url}");
        assert_eq!(registrations(), 1);
        assert_eq!(
            store.client(&fake.base).unwrap().unwrap().client_id,
            "new-client"
        );
    }
}
