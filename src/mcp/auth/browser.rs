//! The browser flow: the loopback listener, the authorization URL shown
//! or opened, the wait for the browser's return (or a pasted address), and
//! the code redeemed.

use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;

use super::authorizer::*;
use super::discovery::{ResourceMetadata, ServerMetadata};
use super::error::AuthError;
use super::flow::{random_token, s256_challenge, AuthorizationRequest, CallbackError};
use super::listener::{listening_at, port_of, Loopback, PasteBack};
use super::options::*;
use super::step_up::*;
use super::store::{ClientKind, ClientRegistration, Secret, SignIn, SignInKey};
use super::tokens::*;

/// How often the wait for the browser looks whether it was cancelled.
pub(super) const WAIT_TICK: Duration = Duration::from_millis(100);

/// What one flow shows or opens, and where the browser comes back.
pub(super) struct Shown<'a> {
    pub(super) url: &'a str,
    pub(super) meta: &'a ServerMetadata,
    pub(super) scopes: &'a [String],
    pub(super) step_up: Option<StepUp<'a>>,
    pub(super) paste: &'a PasteBack,
}

impl Authorizer {
    /// One authorization code flow: the client identity, the loopback
    /// listener, the authorization URL shown or opened, the browser's
    /// return and the token request.
    pub(super) fn flow(
        &self,
        g: &mut Inner,
        prm: &ResourceMetadata,
        meta: &ServerMetadata,
        meta_url: &str,
        scopes: Vec<String>,
        step_up: Option<StepUp<'_>>,
    ) -> Result<SignIn, AuthError> {
        if self.opts.screen.is_none() && self.opts.opener.is_none() {
            if let Some(limit) = self.opts.wait_for_sign_in {
                let command = self.login_command(&scopes, step_up.is_some());
                if let Some(s) = self.wait_for_stored(g, prm, meta, limit, &command) {
                    g.found_elsewhere = true;
                    return Ok(s);
                }
            }
            return Err(self.no_way_to_sign_in(&prm.resource, &scopes, step_up));
        }
        g.flows += 1;
        let (loopback, kept) = self.loopback(meta)?;
        let client = self.client_identity(g, meta, kept.clone(), &loopback.redirect_uri)?;
        // A registration kept from an earlier run, which the authorization
        // server may have forgotten since (it restarted).
        let reused = kept.as_ref() == Some(&client);
        let secret = self.secret_of(&client);
        let verifier = random_token()?;
        let state = random_token()?;
        // An authorization server that quotes these back in its error text
        // never has them shown (stderr, --log, --events).
        for v in secret.iter().chain([&verifier, &state]) {
            crate::redact::register_secret(v.expose());
        }
        let url = AuthorizationRequest {
            endpoint: &meta.authorization_endpoint,
            client_id: &client.client_id,
            redirect_uri: &client.redirect_uri,
            scopes: &scopes,
            state: &state,
            code_challenge: &s256_challenge(verifier.expose()),
            resource: &prm.resource,
        }
        .url();
        let stop = Arc::new(AtomicBool::new(false));
        let (rx, paste) = loopback.serve_with_paste(
            state.clone(),
            meta.issuer.clone(),
            meta.authorization_response_iss_parameter_supported,
            Arc::clone(&stop),
        );
        let shown = Shown {
            url: &url,
            meta,
            scopes: &scopes,
            step_up,
            paste: &paste,
        };
        let code = self.ask_and_wait(&shown, &rx);
        stop.store(true, std::sync::atomic::Ordering::SeqCst);
        let code = code.map_err(|e| match reused {
            true => self.kept_client_failed(g, &client, e),
            false => e,
        })?;
        crate::redact::register_secret(code.expose());
        // A key pair of this sign-in's own when the authorization server
        // offers DPoP: the tokens are bound to it.
        let dpop_key = self.dpop_key_for(meta)?;
        let grant = Grant {
            code: &code,
            verifier: &verifier,
            secret: secret.as_ref(),
            dpop: dpop_key.as_ref(),
        };
        let tokens = self.redeem(g, prm, meta, &client, &grant, &scopes)?;
        Ok(SignIn {
            key: SignInKey {
                resource: prm.resource.clone(),
                issuer: meta.issuer.clone(),
                account: self.opts.account.clone(),
            },
            mcp_url: self.mcp_url.clone(),
            as_metadata_url: meta_url.to_owned(),
            client,
            tokens,
            grant: super::store::GrantType::AuthorizationCode,
            dpop_key,
        })
    }

    /// A flow with a client registration kept from an earlier run that
    /// failed before the browser brought a code back. When the
    /// authorization endpoint refused it (the opener failed: a browser
    /// command ends non-zero on the error page; or the browser came back
    /// with `invalid_client` or `unauthorized_client`), the registration
    /// is forgotten and [`Inner::forgot_client`] set (the run registers
    /// again once): [`AuthError::KeptClientRefused`]. When the browser
    /// never came back, it is forgotten for the next sign-in:
    /// [`AuthError::KeptClient`]. Any other failure (cancelled, a wrong
    /// `state` or `iss`) is not the client's and is returned as it is.
    pub(super) fn kept_client_failed(
        &self,
        g: &mut Inner,
        client: &ClientRegistration,
        e: AuthError,
    ) -> AuthError {
        let refused = match &e {
            AuthError::Open { .. } => true,
            AuthError::Callback(CallbackError::Refused { error, .. }) => {
                matches!(error.as_str(), "invalid_client" | "unauthorized_client")
            }
            _ => false,
        };
        let timed_out = matches!(e, AuthError::BrowserTimeout { .. });
        if !(refused || timed_out) || client.kind != ClientKind::Dynamic {
            return e;
        }
        self.forget_client(client);
        let issuer = client.issuer.clone();
        let source = Box::new(e);
        if refused {
            g.forgot_client = true;
            AuthError::KeptClientRefused { issuer, source }
        } else {
            AuthError::KeptClient { issuer, source }
        }
    }

    /// The loopback listener the browser comes back to, and the client
    /// registration kept for the issuer (Dynamic Client Registration
    /// only): its port is bound first, so it can be used again.
    ///
    /// Errors: `--callback-port` cannot be bound, or no port can.
    pub(super) fn loopback(
        &self,
        meta: &ServerMetadata,
    ) -> Result<(Loopback, Option<ClientRegistration>), AuthError> {
        let kept = match self.store()?.client(&meta.issuer) {
            Ok(c) => c.filter(|c| c.kind == ClientKind::Dynamic),
            Err(e) => {
                self.store_trouble(&e);
                None
            }
        };
        let kept_port = kept.as_ref().and_then(|c| port_of(&c.redirect_uri));
        let loopback = match (self.opts.callback_port, kept_port.map(Loopback::bind)) {
            (Some(port), _) => {
                Loopback::bind(port).map_err(|source| AuthError::CallbackPort { source })?
            }
            (None, Some(Ok(l))) => l,
            (None, _) => Loopback::bind(0).map_err(AuthError::Listener)?,
        };
        Ok((loopback, kept))
    }

    /// Show the sign-in (the screen) or open the authorization URL (the
    /// opener), then wait for the browser's return (or a pasted address).
    ///
    /// Errors: the person cancelled, the URL could not be opened, no answer
    /// within `--auth-timeout`, or the answer was refused.
    pub(super) fn ask_and_wait(
        &self,
        s: &Shown<'_>,
        rx: &std::sync::mpsc::Receiver<Result<Secret, CallbackError>>,
    ) -> Result<Secret, AuthError> {
        // From here a signal ends the sign-in, not the run: held until the
        // wait ends, and published so that the session knows.
        let _hold = crate::signals::hold();
        let published = self.opts.sign_ins.publish(&self.mcp_url);
        let opened = match (&self.opts.screen, &self.opts.opener) {
            (Some(screen), _) => {
                screen(&SignInRequest {
                    url: s.url,
                    mcp_url: &self.mcp_url,
                    issuer: &s.meta.issuer,
                    scopes: s.scopes,
                    step_up: s.step_up,
                    paste: s.paste,
                    record_launch: self.opts.record_launch.as_ref(),
                    desk: self.opts.desk.as_ref(),
                })
                .map_err(AuthError::of_screen)?;
                Ok(())
            }
            (None, Some(opener)) => {
                self.opts.notices.say(&self.opening_sentence(s));
                let r = opener(s.url);
                if let Some(record) = &self.opts.record_launch {
                    let why = r.as_ref().err().map(ToString::to_string);
                    record("browser-command", s.url, why.as_deref().map_or(Ok(()), Err));
                }
                r
            }
            (None, None) => Err(SignInError::NothingToOpen),
        };
        let verdict = match opened {
            // The browser ended before its page: the verdict is in already
            // when there is one.
            Err(source) => rx.try_recv().map_err(|_| AuthError::Open { source }),
            Ok(()) => self.wait_for_browser(s, rx, &published),
        };
        Ok(verdict??)
    }

    /// Wait for the browser's return (or a pasted address), up to
    /// `--auth-timeout`. Meanwhile the wait is published for the screens
    /// ([`crate::responder::sign_in::SignIns`]): Control-C there, or an ending signal (SIGINT at a
    /// terminal given back), ends it as a cancelled sign-in.
    ///
    /// Errors: [`cancelled`], or no answer in time.
    pub(super) fn wait_for_browser(
        &self,
        s: &Shown<'_>,
        rx: &std::sync::mpsc::Receiver<Result<Secret, CallbackError>>,
        published: &crate::responder::sign_in::Published<'_>,
    ) -> Result<Result<Secret, CallbackError>, AuthError> {
        use std::sync::mpsc::RecvTimeoutError;
        let uri = s.paste.redirect_uri();
        let listening = listening_at(uri).unwrap_or(uri).to_owned();
        let until = std::time::Instant::now() + self.opts.wait;
        published.waiting(crate::responder::sign_in::Waiting {
            url: s.url.to_owned(),
            listening: listening.clone(),
            until,
            timeout: self.opts.wait,
        });
        loop {
            if published.cancelled(crate::signals::received()) {
                return Err(AuthError::Cancelled {
                    mcp_url: self.mcp_url.clone(),
                });
            }
            let left = until.saturating_duration_since(std::time::Instant::now());
            match rx.recv_timeout(left.min(WAIT_TICK)) {
                Ok(v) => return Ok(v),
                Err(RecvTimeoutError::Timeout) if !left.is_zero() => {}
                Err(_) => {
                    return Err(AuthError::BrowserTimeout {
                        wait: self.opts.wait,
                        listening,
                    })
                }
            }
        }
    }
}

/// How often [`Authorizer::wait_for_stored`] reads the store again.
const STORE_POLL: std::time::Duration = std::time::Duration::from_millis(500);

impl Authorizer {
    /// `--wait-for-sign-in`: read the store every [`STORE_POLL`] for up to
    /// `limit`, for a sign-in to this resource at `meta`'s issuer, for this
    /// account, that another process (`ahp-elicit auth login`) stored: one
    /// not yet expired, holding the scopes of `--scope`, and not the token
    /// in use (the one the server refused). Said once when the wait starts,
    /// and once when one is found (with where it is kept). None when none
    /// came in time.
    pub(super) fn wait_for_stored(
        &self,
        g: &Inner,
        prm: &ResourceMetadata,
        meta: &ServerMetadata,
        limit: std::time::Duration,
        command: &str,
    ) -> Option<SignIn> {
        let store = self.store().ok()?;
        let refused = g
            .current
            .as_ref()
            .map(|c| c.sign_in.tokens.access_token.clone());
        let limit_words = crate::responder::duration_words(limit.as_secs());
        self.opts.notices.say(&format!(
            "{} needs a sign-in: waiting up to {limit_words} for one stored by \"{command}\" (run elsewhere)",
            self.mcp_url,
        ));
        let until = std::time::Instant::now() + limit;
        loop {
            let found = store
                .sign_ins(&prm.resource, &self.opts.account)
                .ok()
                .into_iter()
                .flatten()
                .filter(|s| s.key.issuer == meta.issuer)
                .filter(|s| !super::tokens::expired(&s.tokens) && self.holds_scopes_asked(s))
                .filter(|s| refused.as_ref() != Some(&s.tokens.access_token))
                .max_by_key(|s| s.tokens.obtained_at);
            if let Some(s) = &found {
                self.opts.notices.say(&format!(
                    "found a sign-in stored by another process; secrets kept in {}",
                    store.kept_in(&s.key)
                ));
                return found;
            }
            let left = until.saturating_duration_since(std::time::Instant::now());
            if left.is_zero() {
                self.opts
                    .notices
                    .say(&format!("no sign-in was stored within {limit_words}"));
                return None;
            }
            std::thread::sleep(STORE_POLL.min(left));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mcp::auth::fake_as::*;
    use serde_json::json;
    use std::sync::Mutex;

    #[test]
    fn what_an_authorization_server_quotes_back_in_its_error_is_never_shown() {
        // The token endpoint echoes the whole request (code verifier and
        // the registered client's secret) in its error description.
        let fake = fake_as(|base, m, t, body| {
            if let Some(a) = prm_and_metadata(base, m, t) {
                return a;
            }
            match (m, t) {
                ("POST", "/register") => (
                    201,
                    r#"{"client_id":"echo-client","client_secret":"CLIENTSECRET-abcdefgh123","token_endpoint_auth_method":"client_secret_post"}"#
                        .into(),
                ),
                ("POST", "/token") => (
                    400,
                    json!({"error": "invalid_grant", "error_description": body}).to_string(),
                ),
                _ => (404, "{}".into()),
            }
        });
        let store = Arc::new(crate::mcp::auth::store::MemoryStore::default());
        let (mut a, _) = authorizer(&fake.base, store);
        let urls = Arc::new(Mutex::new(Vec::new()));
        a.opts.opener = Some(redirecting_opener(&urls));
        a.opts.opener_name = "a test".into();
        let e = a.authorize(&first_401()).unwrap_err();
        let asked = url::Url::parse(&urls.lock().unwrap()[0]).unwrap();
        let state: String = asked
            .query_pairs()
            .find(|(k, _)| k == "state")
            .map(|(_, v)| v.into_owned())
            .unwrap();
        let sent = fake.seen.lock().unwrap().clone();
        let (_, _, token_body) = sent.iter().find(|(_, t, _)| t == "/token").unwrap();
        let verifier: String = url::form_urlencoded::parse(token_body.as_bytes())
            .find(|(k, _)| k == "code_verifier")
            .map(|(_, v)| v.into_owned())
            .unwrap();
        let e = e.to_string();
        assert!(e.contains(&verifier), "the server did echo it: {e}");
        let shown = crate::redact::redact_secrets(&e);
        for secret in [
            verifier.as_str(),
            "CLIENTSECRET-abcdefgh123",
            state.as_str(),
        ] {
            assert!(!shown.contains(secret), "{secret} in {shown}");
        }
    }
}
