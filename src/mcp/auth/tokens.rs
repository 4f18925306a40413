//! Tokens: the token request for the code the browser brought back, the
//! refresh (under the store's lock), when a token is due, and the
//! credentials registered for redaction.

use std::time::{Duration, SystemTime};

use super::authorizer::*;
use super::discovery::{ResourceMetadata, ServerMetadata};
use super::error::AuthError;
use super::flow::oauth_error;
use super::http::*;
use super::registration::*;
use super::store::{ClientRegistration, Secret, SignIn, SignInKey, Tokens};

/// A token this close to its expiry is refreshed before it is sent.
pub const REFRESH_MARGIN: Duration = Duration::from_secs(60);

/// What the token request of a flow sends besides the client's id.
pub(super) struct Grant<'a> {
    pub(super) code: &'a Secret,
    pub(super) verifier: &'a Secret,
    pub(super) secret: Option<&'a Secret>,
    /// The sign-in's DPoP key, when the authorization server offers DPoP.
    pub(super) dpop: Option<&'a Secret>,
}

impl Authorizer {
    /// Refresh the current tokens when they can be: same issuer, a refresh
    /// token, not yet tried for `generation`. Ok(true): new tokens are in.
    /// `invalid_grant` deletes the stored tokens (the client registration
    /// stays; Ok(false): sign in again).
    ///
    /// The store's lock on the sign-in is held from before the stored
    /// sign-in is read again until the answer is saved: when another
    /// process refreshed it meanwhile, its fresh token is used and the
    /// (rotated, spent) refresh token is not sent again; when it was
    /// deleted (signed out, or refused elsewhere), the tokens are dropped.
    pub(super) fn try_refresh(
        &self,
        g: &mut Inner,
        meta: Option<&ServerMetadata>,
        generation: u64,
    ) -> Result<bool, AuthError> {
        let Some(c) = g.current.as_mut() else {
            return Ok(false);
        };
        if c.sign_in.tokens.refresh_token.is_none() || c.refreshed_for == Some(generation) {
            return Ok(false);
        }
        c.refreshed_for = Some(generation);
        let key = c.sign_in.key.clone();
        let _lock = self.store()?.lock(&key)?;
        match self.stored(&key) {
            Ok(Some(s)) => {
                if s.tokens.access_token != c.sign_in.tokens.access_token && !due(&s.tokens) {
                    // Refreshed by another run while this one waited.
                    remember(&s);
                    c.sign_in = s;
                    g.generation += 1;
                    return Ok(true);
                }
                if s.tokens.refresh_token.is_none() {
                    return Ok(false);
                }
                remember(&s);
                c.sign_in = s;
            }
            Ok(None) => {
                self.opts.notices.say(&format!(
                    "the sign-in to {} was removed from the store{}",
                    self.mcp_url,
                    if self.opts.can_start_sign_in() {
                        "; signing in again"
                    } else {
                        ""
                    }
                ));
                g.current = None;
                return Ok(false);
            }
            // An unreadable store: the tokens this run holds are used.
            Err(e) => self.store_trouble(&e),
        }
        let Some(refresh) = c.sign_in.tokens.refresh_token.clone() else {
            return Ok(false);
        };
        let fetched;
        let meta = match meta {
            Some(m) => m,
            None => {
                fetched = self.server_metadata(&c.sign_in.key.issuer)?.0;
                &fetched
            }
        };
        let mut form = vec![
            ("grant_type".to_owned(), "refresh_token".to_owned()),
            ("refresh_token".to_owned(), refresh.expose().to_owned()),
            ("resource".to_owned(), c.sign_in.key.resource.clone()),
        ];
        let client = c.sign_in.client.clone();
        // As at the grant: a `private_key_jwt` client signs a new assertion.
        let basic = self.authenticate(&client, meta, &mut form)?;
        let (status, body) = self.token_request(
            "the refresh's token answer",
            (&meta.token_endpoint, &meta.issuer),
            &form,
            basic,
            c.sign_in.dpop_key.as_ref(),
        )?;
        if !(200..300).contains(&status) {
            let key = c.sign_in.key.clone();
            self.refresh_refused(g, &key, &client, status, &body)?;
            return Ok(false);
        }
        c.sign_in.tokens = refreshed(meta, &c.sign_in.tokens, refresh, &body)?;
        c.from_store = false;
        remember(&c.sign_in);
        if let Err(e) = self.store()?.save(&c.sign_in) {
            self.store_trouble(&e);
        }
        g.generation += 1;
        Ok(true)
    }

    /// A refused refresh: `invalid_grant` deletes the stored tokens (the
    /// client registration stays); `invalid_client` or
    /// `unauthorized_client` for a registered client forgets the
    /// registration and the tokens (the flow that follows registers
    /// again, and no flow of this run registers after it:
    /// [`Inner::registered_again`]). Anything else leaves them.
    ///
    /// Errors: the store is not there.
    pub(super) fn refresh_refused(
        &self,
        g: &mut Inner,
        key: &SignInKey,
        client: &ClientRegistration,
        status: u16,
        body: &[u8],
    ) -> Result<(), AuthError> {
        let (err, _) = oauth_error(body).unwrap_or_else(|| (format!("HTTP {status}"), None));
        // What follows: a new sign-in, or (with none possible in this run)
        // the refusal that names the way to sign in.
        let next = self.opts.can_start_sign_in();
        if err == "invalid_grant" {
            self.opts.notices.say(if next {
                "the stored sign-in expired or was revoked; signing in again"
            } else {
                "the stored sign-in expired or was revoked"
            });
        } else if self.forget_rejected_client(client, body) {
            // The authorization server forgot the client (it restarted):
            // the flow that follows registers again, the one time a run
            // does.
            g.registered_again = true;
            self.opts.notices.say(&format!(
                "{} no longer knows the client registered there ({err}){}",
                key.issuer,
                if next {
                    "; registering again"
                } else {
                    ": its registration and the sign-in are forgotten"
                }
            ));
        } else {
            return Ok(());
        }
        let _ = self.store()?.remove(key);
        g.current = None;
        Ok(())
    }

    /// The sign-in stored under `key`, read again from the store.
    ///
    /// Errors: the store cannot be read.
    pub(super) fn stored(&self, key: &SignInKey) -> Result<Option<SignIn>, AuthError> {
        Ok(self
            .store()?
            .sign_ins(&key.resource, &key.account)?
            .into_iter()
            .find(|s| s.key.issuer == key.issuer))
    }

    /// The token request for the code the browser brought back.
    /// `invalid_client` or `unauthorized_client` for a registered client
    /// forgets its registration (the next flow registers again: see
    /// [`Inner::forgot_client`]).
    ///
    /// Errors: the request failed or was refused, or its answer cannot be
    /// taken.
    pub(super) fn redeem(
        &self,
        g: &mut Inner,
        prm: &ResourceMetadata,
        meta: &ServerMetadata,
        client: &ClientRegistration,
        grant: &Grant<'_>,
        scopes: &[String],
    ) -> Result<Tokens, AuthError> {
        let mut form = vec![
            ("grant_type".to_owned(), "authorization_code".to_owned()),
            ("code".to_owned(), grant.code.expose().to_owned()),
            ("redirect_uri".to_owned(), client.redirect_uri.clone()),
            (
                "code_verifier".to_owned(),
                grant.verifier.expose().to_owned(),
            ),
            ("resource".to_owned(), prm.resource.clone()),
        ];
        let basic = client_auth(client, grant.secret, &mut form);
        let (status, body) = self.token_request(
            "the token answer",
            (&meta.token_endpoint, &meta.issuer),
            &form,
            basic,
            grant.dpop,
        )?;
        if !(200..300).contains(&status) {
            let why = refusal(status, &body);
            let forgot = self.forget_rejected_client(client, &body);
            g.forgot_client |= forgot;
            return Err(AuthError::TokenRefused {
                issuer: meta.issuer.clone(),
                why,
                forgot,
            });
        }
        token_answer("the token answer", meta, &body, scopes)
    }
}

/// The tokens a refresh's answer (`body`) gives: a refresh without a new
/// refresh token keeps the old one (RFC 6749 §6), and without a scope
/// keeps the grant of `old`.
///
/// Errors: the answer cannot be read or taken.
pub(super) fn refreshed(
    meta: &ServerMetadata,
    old: &Tokens,
    refresh: Secret,
    body: &[u8],
) -> Result<Tokens, AuthError> {
    let mut t = token_answer(
        "the refresh's token answer",
        meta,
        body,
        &old.scopes_requested,
    )?;
    if t.refresh_token.is_none() {
        t.refresh_token = Some(refresh);
    }
    if t.scopes_granted.is_none() {
        t.scopes_granted = old.scopes_granted.clone();
    }
    Ok(t)
}

/// Whether an access token is due for a refresh: it expires within
/// [`REFRESH_MARGIN`], or within half its lifetime when that is shorter
/// (a token issued for 2 s is used for 1 s, not refreshed before every
/// request). A token without an expiry never is.
pub(super) fn due(t: &Tokens) -> bool {
    due_at(t, now())
}

pub(super) fn due_at(t: &Tokens, now: SystemTime) -> bool {
    t.expires_at.is_some_and(|at| {
        let life = at.duration_since(t.obtained_at).unwrap_or_default();
        at <= now + REFRESH_MARGIN.min(life / 2)
    })
}

/// Whether an access token has expired.
pub(super) fn expired(t: &Tokens) -> bool {
    t.expires_at.is_some_and(|at| at <= now())
}

/// Registers a sign-in's credentials (access and refresh token, a
/// registered client's secret, the DPoP private key) for redaction, so that a server or an
/// authorization server that quotes one back never has it shown on stderr,
/// in `--log` or in `--events` ([`crate::redact::register_secret`]).
pub(super) fn remember(s: &SignIn) {
    crate::redact::register_secret(s.tokens.access_token.expose());
    if let Some(r) = &s.tokens.refresh_token {
        crate::redact::register_secret(r.expose());
    }
    if let Some(c) = &s.client.client_secret {
        crate::redact::register_secret(c.expose());
    }
    if let Some(k) = &s.dpop_key {
        crate::redact::register_secret(k.expose());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mcp::auth::fake_as::*;
    use crate::mcp::auth::options::*;
    use crate::mcp::auth::store::Store;
    use crate::notice::Notices;
    use serde_json::json;
    use std::sync::{Arc, Mutex};

    #[test]
    fn a_token_near_its_expiry_is_refreshed_and_the_rotated_refresh_token_kept() {
        let fake = fake_as(|base, m, t, _| {
            match (m, t) {
            ("GET", "/.well-known/oauth-authorization-server") => (200, metadata(base)),
            ("POST", "/token") => (
                200,
                r#"{"access_token":"a2","token_type":"Bearer","expires_in":3600,"refresh_token":"r2"}"#.into(),
            ),
            _ => (404, "{}".into()),
        }
        });
        let store = Arc::new(crate::mcp::auth::store::MemoryStore::default());
        store.save(&stored(&fake.base, 30, &["a"])).unwrap();
        let (a, said) = authorizer(&fake.base, Arc::clone(&store));
        assert_eq!(a.header(), (1, Some("Bearer a2".into())));
        let kept = &store.all().unwrap()[0];
        assert_eq!(kept.tokens.refresh_token.as_ref().unwrap().expose(), "r2");
        // The grant kept when the answer names no scope.
        assert_eq!(kept.tokens.scopes_granted, Some(vec!["a".to_string()]));
        let seen = fake.seen.lock().unwrap();
        let (_, _, body) = seen.iter().find(|(_, t, _)| t == "/token").unwrap();
        let form: Vec<(String, String)> = url::form_urlencoded::parse(body.as_bytes())
            .into_owned()
            .collect();
        assert!(form.contains(&("grant_type".into(), "refresh_token".into())));
        assert!(form.contains(&("refresh_token".into(), "r1".into())));
        assert!(form.contains(&("resource".into(), format!("{}/mcp", fake.base))));
        assert!(form.contains(&("client_id".into(), "cid".into())));
        assert!(said
            .texts()
            .iter()
            .all(|t| !t.contains("a2") && !t.contains("r2")));
        // A fresh token is sent as it is.
        assert_eq!(a.header(), (1, Some("Bearer a2".into())));
    }

    #[test]
    fn invalid_grant_drops_the_tokens_and_a_new_sign_in_is_needed() {
        let fake = fake_as(|base, m, t, _| match (m, t) {
            ("GET", "/.well-known/oauth-protected-resource/mcp") => (
                200,
                json!({"resource": format!("{base}/mcp"), "authorization_servers": [base]})
                    .to_string(),
            ),
            ("GET", "/.well-known/oauth-authorization-server") => (200, metadata(base)),
            ("POST", "/token") => (400, r#"{"error":"invalid_grant"}"#.into()),
            _ => (404, "{}".into()),
        });
        let store = Arc::new(crate::mcp::auth::store::MemoryStore::default());
        let s = stored(&fake.base, 3600, &["a"]);
        store.save(&s).unwrap();
        store.save_client(&s.client).unwrap();
        let (a, said) = authorizer(&fake.base, Arc::clone(&store));
        let (generation, h) = a.header();
        assert_eq!(h.as_deref(), Some("Bearer a1"));
        let e = a
            .authorize(&Unauthorized {
                status: 401,
                challenge: None,
                generation,
                request: None,
            })
            .unwrap_err();
        assert!(
            e.to_string()
                .contains("needs a sign-in: run \"ahp-elicit auth login"),
            "{e}"
        );
        assert!(store.all().unwrap().is_empty());
        // The tokens are gone, the client registration stays.
        assert_eq!(store.client(&fake.base).unwrap(), Some(s.client));
        assert_eq!(a.header().1, None);
        assert!(said
            .texts()
            .iter()
            .any(|t| t.contains("the stored sign-in expired or was revoked")));
    }

    #[test]
    fn a_token_is_due_a_minute_before_its_end_or_halfway_when_it_is_short() {
        let t0 = SystemTime::UNIX_EPOCH + Duration::from_secs(1_800_000_000);
        let token = |life: u64| Tokens {
            access_token: Secret::new("a"),
            token_type: "Bearer".into(),
            expires_at: Some(t0 + Duration::from_secs(life)),
            refresh_token: None,
            scopes_requested: vec![],
            scopes_granted: None,
            obtained_at: t0,
        };
        let at = |s: u64| t0 + Duration::from_secs(s);
        // An hour: due in its last minute.
        assert!(!due_at(&token(3600), at(3539)));
        assert!(due_at(&token(3600), at(3540)));
        // Two seconds: used for one, then due.
        assert!(!due_at(&token(2), at(0)));
        assert!(due_at(&token(2), at(1)));
        // Two minutes: due after one.
        assert!(!due_at(&token(120), at(59)));
        assert!(due_at(&token(120), at(60)));
        // No expiry: never due.
        let mut forever = token(1);
        forever.expires_at = None;
        assert!(!due_at(&forever, at(1_000_000)));
    }

    #[test]
    fn two_runs_sharing_a_store_spend_a_rotating_refresh_token_once() {
        // The authorization server rotates: r1 is good once, then refused.
        let spent = Arc::new(Mutex::new(false));
        let s2 = Arc::clone(&spent);
        let fake = fake_as(move |base, m, t, body| {
            if let Some(a) = prm_and_metadata(base, m, t) {
                return a;
            }
            let mut spent = s2.lock().unwrap();
            match (m, t) {
                ("POST", "/token") if body.contains("refresh_token=r1") && !*spent => {
                    *spent = true;
                    (
                        200,
                        r#"{"access_token":"a2","token_type":"Bearer","expires_in":3600,"refresh_token":"r2"}"#.into(),
                    )
                }
                ("POST", "/token") => (400, r#"{"error":"invalid_grant"}"#.into()),
                _ => (404, "{}".into()),
            }
        });
        let dir = tempfile::tempdir().unwrap();
        let open = || -> Arc<dyn Store> {
            Arc::new(crate::mcp::auth::file_store::FileStore::open(dir.path()).unwrap())
        };
        open().save(&stored(&fake.base, 30, &["a"])).unwrap();
        let run = |store: Arc<dyn Store>| {
            let mut o = AuthOptions::new(Ok(store));
            o.notices = Notices::collect().0;
            Authorizer::new(&format!("{}/mcp", fake.base), o)
        };
        // Both runs read the sign-in (due for a refresh) before either
        // refreshes it, each through its own store (its own lock file
        // descriptor, as two processes).
        let (first, second) = (run(open()), run(open()));
        assert!(first.signed_in() && second.signed_in());
        assert_eq!(first.header(), (1, Some("Bearer a2".into())));
        // The second takes the lock, reads the refreshed sign-in and uses
        // it: r1 is not sent again.
        assert_eq!(second.header(), (1, Some("Bearer a2".into())));
        let posts = fake
            .seen
            .lock()
            .unwrap()
            .iter()
            .filter(|(m, t, _)| m == "POST" && t == "/token")
            .count();
        assert_eq!(posts, 1);
        let kept = open().all().unwrap();
        assert_eq!(kept.len(), 1);
        assert_eq!(
            kept[0].tokens.refresh_token.as_ref().unwrap().expose(),
            "r2"
        );
    }

    #[test]
    fn a_stored_sign_in_removed_by_another_run_is_not_refreshed() {
        let fake =
            fake_as(|base, m, t, _| prm_and_metadata(base, m, t).unwrap_or((404, "{}".into())));
        let store = Arc::new(crate::mcp::auth::store::MemoryStore::default());
        let s = stored(&fake.base, 30, &["a"]);
        store.save(&s).unwrap();
        let (a, said) = authorizer(&fake.base, Arc::clone(&store));
        assert!(a.signed_in());
        // `auth logout` in another terminal.
        store.remove(&s.key).unwrap();
        assert_eq!(a.header(), (0, None));
        assert!(fake
            .seen
            .lock()
            .unwrap()
            .iter()
            .all(|(m, _, _)| m != "POST"));
        // This run cannot sign in: nothing says it does.
        assert!(said
            .texts()
            .iter()
            .any(|t| t.ends_with("was removed from the store")));
    }

    #[test]
    fn an_authorization_server_that_never_knows_the_client_is_registered_at_once_a_run() {
        // Every token request (refresh or code) answers invalid_client.
        let fake = fake_as(|base, m, t, _| {
            if let Some(a) = prm_and_metadata(base, m, t) {
                return a;
            }
            match (m, t) {
                ("POST", "/register") => (201, r#"{"client_id":"new-client"}"#.into()),
                ("POST", "/token") => (
                    401,
                    r#"{"error":"invalid_client","error_description":"unknown client"}"#.into(),
                ),
                _ => (404, "{}".into()),
            }
        });
        let store = Arc::new(crate::mcp::auth::store::MemoryStore::default());
        store.save(&stored(&fake.base, 3600, &["a"])).unwrap();
        let (mut a, _) = authorizer(&fake.base, Arc::clone(&store));
        let urls = Arc::new(Mutex::new(Vec::new()));
        a.opts.opener = Some(redirecting_opener(&urls));
        a.opts.opener_name = "a test".into();
        let (generation, sent) = a.header();
        assert_eq!(sent.as_deref(), Some("Bearer a1"));
        // The stored token is refused: its refresh finds the client
        // unknown (forgotten), the flow registers again, and its code's
        // exchange finds the new client unknown too: no second
        // registration, the run ends.
        let e = a
            .authorize(&Unauthorized {
                status: 401,
                challenge: None,
                generation,
                request: None,
            })
            .unwrap_err();
        assert!(
            matches!(e, AuthError::TokenRefused { forgot: true, .. }),
            "{e:?}"
        );
        let count = |path: &str| {
            fake.seen
                .lock()
                .unwrap()
                .iter()
                .filter(|(m, t, _)| m == "POST" && t == path)
                .count()
        };
        assert_eq!(count("/register"), 1);
        assert_eq!(count("/token"), 2, "the refresh and one code exchange");
        assert_eq!(urls.lock().unwrap().len(), 1);
    }
}
