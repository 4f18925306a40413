//! The [`Authorizer`]: the sign-in state the HTTP transport's threads
//! share. It hands out the `Authorization: Bearer` header for every
//! request (`Authorization: DPoP` and a proof for a DPoP-bound token:
//! `dpop`), and on a 401 (or a 403 `insufficient_scope`) runs what the
//! MCP authorization specification asks, one flow at a time:
//!
//! 1. Protected Resource Metadata (the challenge's `resource_metadata`,
//!    else path-aware, else root), its `resource` checked against the
//!    server before anything else is sent;
//! 2. the authorization server's metadata (spec order, `issuer`
//!    byte-equal, S256 advertised, https endpoints);
//! 3. a sign-in stored for (resource, issuer, account) that is not the
//!    token just refused (another run made it) is used at once; with
//!    tokens from the same issuer and a refresh token, a refresh first (a
//!    rotated refresh token is kept; `invalid_grant` deletes the tokens and
//!    keeps the client); stored sign-ins at an issuer the server no longer
//!    names are deleted, and their clients never reused;
//! 4. else an authorization code flow: the client identity (pre-registered
//!    `--client-id`, then `--client-metadata-url` where the server takes
//!    metadata documents, then a registration kept per issuer, then Dynamic
//!    Client Registration with `application_type: native`), the loopback
//!    listener, PKCE and `state`, the authorization URL handed to the
//!    opener (`--browser CMD`), the callback's checks, the token request
//!    with `resource` and the client's authentication.
//!
//! Limits: [`MAX_FLOWS`] authorization flows per run; a step-up that asks
//! for nothing new is refused. Without an opener nothing is started: the
//! run fails with the `ahp-elicit auth login` command to run.
//!
//! Before the first request, the sign-in stored for this MCP URL and
//! account is sent (refreshed first when it is due). Every refresh holds
//! the store's lock on the sign-in and reads it again under the lock, so
//! two processes never both spend a rotating refresh token.
//!
//! Secrets (tokens, codes, verifiers, `state`, client secrets) are
//! [`Secret`](super::store::Secret)s: they reach the wire and the store,
//! never a notice or an error.
//!
//! This file holds the state and the spine ([`Authorizer::authorize`]);
//! each step is an `impl Authorizer` block in a file of its own:
//! `metadata` (steps 1 and 2), `tokens` (step 3's refresh, the token
//! request, when a token is due), `registration` (the client identity),
//! `browser` (the loopback listener, the authorization URL shown or
//! opened, the wait), `step_up` (a 403's scopes), `http` (the requests and
//! their bounded answers), `dpop` (the token requests, DPoP proofs and
//! nonces) and `hints` (the sentences). Errors are
//! [`AuthError`] variants.

use std::sync::{Arc, Mutex, MutexGuard};
use std::time::SystemTime;

use super::challenge::BearerChallenge;
use super::discovery::{plain_http_host, ResourceMetadata, ServerMetadata};
use super::dpop::Sending;
use super::error::AuthError;
use super::flow::{initial_scopes, is_b64token};
pub use super::hints::accounts_hint;
pub use super::options::LaunchRecord;
use super::options::*;
use super::step_up::*;
use super::store::{ClientKind, GrantType, SignIn, SignInKey, Store};
use super::tokens::*;
pub use crate::responder::lines::SignInError;

/// Most authorization flows one run starts.
pub const MAX_FLOWS: u32 = 3;

/// What a 401 or 403 said.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Unauthorized {
    /// 401 or 403.
    pub status: u16,
    /// The `Bearer` challenge, when there was one.
    pub challenge: Option<BearerChallenge>,
    /// The generation of the token the request carried.
    pub generation: u64,
    /// The request refused, when known (said by a step-up sign-in).
    pub request: Option<RequestName>,
}

pub(super) struct Current {
    pub(super) sign_in: SignIn,
    /// The generation a refresh was last tried for.
    pub(super) refreshed_for: Option<u64>,
    /// Whether the tokens were read from the store as an earlier run (or
    /// another one) left them, not obtained or renewed by this run: when
    /// the server fails on them, the error says how to clear them.
    pub(super) from_store: bool,
}

#[derive(Default)]
pub(super) struct Inner {
    /// Bumped with every new token: a thread whose 401 came with an older
    /// one just retries.
    pub(super) generation: u64,
    pub(super) current: Option<Current>,
    pub(super) flows: u32,
    /// The issuer a pre-registered client was first used with.
    pub(super) pre_issuer: Option<String>,
    pub(super) loaded: bool,
    /// The last flow's token request refused the client (`invalid_client`)
    /// and its kept registration was forgotten: one more flow registers
    /// again.
    pub(super) forgot_client: bool,
    /// The client was registered again this run (after a refresh or a
    /// flow found the kept one unknown): never a second time.
    pub(super) registered_again: bool,
    /// A server error answered to a token read from the store was taken
    /// as a refusal of it ([`Authorizer::stored_token_failed`]): once a
    /// run.
    pub(super) stale_dropped: bool,
    /// The generation whose token is not sent: the stored one a server
    /// failed on. Any new token (a later generation) is sent again.
    pub(super) withheld: Option<u64>,
    /// The last flow's sign-in was not made but found in the store,
    /// stored by another process (`--wait-for-sign-in`): said as found,
    /// not stored again.
    pub(super) found_elsewhere: bool,
}

/// The sign-in state of one MCP server URL, shared by the transport's
/// threads (one flow at a time).
pub struct Authorizer {
    pub(super) mcp_url: String,
    pub(super) opts: AuthOptions,
    /// The HTTP agent of sign-in's requests (a proxy of the environment
    /// applies).
    pub(super) agent: ureq::Agent,
    /// The agent for URLs on this machine: never through a proxy (a code,
    /// a verifier, a refresh token stay on this machine).
    pub(super) direct: ureq::Agent,
    pub(super) inner: Mutex<Inner>,
    /// The store troubles said so far (each is said once a run).
    pub(super) said: Mutex<Vec<String>>,
    /// The latest DPoP nonce of each server (its authorization server's
    /// and its own), for the run.
    pub(super) nonces: super::dpop::Nonces,
}

impl std::fmt::Debug for Authorizer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Authorizer")
            .field("mcp_url", &self.mcp_url)
            .field("opts", &self.opts)
            .finish_non_exhaustive()
    }
}

pub(super) fn now() -> SystemTime {
    SystemTime::now()
}

impl Authorizer {
    /// An authorizer for the MCP endpoint `mcp_url`.
    pub fn new(mcp_url: &str, opts: AuthOptions) -> Self {
        let config = || {
            ureq::Agent::config_builder()
                .http_status_as_error(false)
                .max_redirects(0)
                .timeout_global(Some(opts.request_timeout))
                .user_agent(concat!("ahp-elicit/", env!("CARGO_PKG_VERSION")))
        };
        let agent: ureq::Agent = config().build().into();
        let direct: ureq::Agent = config().proxy(None).build().into();
        Self {
            mcp_url: mcp_url.to_owned(),
            opts,
            agent,
            direct,
            inner: Mutex::new(Inner::default()),
            said: Mutex::new(Vec::new()),
            nonces: super::dpop::Nonces::default(),
        }
    }

    /// The MCP server's host when its URL is plain `http://` to another
    /// machine and `--allow-insecure-http` was not given: no token of a
    /// sign-in goes there.
    fn insecure_host(&self) -> Option<String> {
        plain_http_host(&self.mcp_url).filter(|_| !self.opts.allow_insecure_http)
    }

    /// The agent to ask `url` with: [`Self::direct`] for a URL on this
    /// machine, else [`Self::agent`].
    pub(super) fn agent_for(&self, url: &str) -> &ureq::Agent {
        match url::Url::parse(url) {
            Ok(u) if super::discovery::resolves_home(&u) => &self.direct,
            _ => &self.agent,
        }
    }

    /// Say a store trouble (an unsafe or unreadable file, a failed
    /// write) once: the store is read again at every step of a sign-in,
    /// and a file that is unsafe stays so for the run.
    pub(super) fn store_trouble(&self, e: &dyn std::fmt::Display) {
        let text = e.to_string();
        let Ok(mut said) = self.said.lock() else {
            return;
        };
        if !said.contains(&text) {
            self.opts.notices.say(&text);
            said.push(text);
        }
    }

    pub(super) fn lock(&self) -> Result<MutexGuard<'_, Inner>, AuthError> {
        let mut g = self.inner.lock().map_err(|_| AuthError::Poisoned)?;
        // `auth login --force`: nothing stored is used or renewed.
        if !g.loaded && !self.opts.force_new {
            g.loaded = true;
            // A stored sign-in made for this URL and account, sent with
            // the first request (refreshed first when it is due); one
            // that has expired and cannot be renewed, or lacks a scope of
            // `--scope`, is left for the 401.
            match self.opts.store.as_ref().map(|s| s.all()) {
                Err(_) => {}
                Ok(Ok(all)) => {
                    g.current = all
                        .into_iter()
                        .filter(|s| s.mcp_url == self.mcp_url && s.key.account == self.opts.account)
                        .filter(|s| s.tokens.refresh_token.is_some() || !expired(&s.tokens))
                        .filter(|s| self.holds_scopes_asked(s) && self.grant_fits(s))
                        .max_by_key(|s| s.tokens.obtained_at)
                        .map(|sign_in| {
                            remember(&sign_in);
                            Current {
                                sign_in,
                                refreshed_for: None,
                                from_store: true,
                            }
                        });
                }
                Ok(Err(e)) => self.store_trouble(&e),
            }
        }
        Ok(g)
    }

    /// The `Authorization` header value to send (`Bearer TOKEN`, or
    /// `DPoP TOKEN` for a DPoP-bound token) and the generation it belongs
    /// to. A token close to its expiry is refreshed first (a failed
    /// refresh leaves it: the 401 that follows starts over).
    pub fn header(&self) -> (u64, Option<String>) {
        let (generation, sending) = self.sending();
        (generation, sending.map(|s| s.authorization()))
    }

    /// The token to send and how, with its generation (see
    /// [`Self::header`]).
    pub(super) fn sending(&self) -> (u64, Option<Sending>) {
        let Ok(mut g) = self.lock() else {
            return (0, None);
        };
        let due = g
            .current
            .as_ref()
            .is_some_and(|c| c.sign_in.tokens.refresh_token.is_some() && due(&c.sign_in.tokens));
        if due {
            let _under_way = self.opts.sign_ins.start();
            let generation = g.generation;
            let _ = self.try_refresh(&mut g, None, generation);
        }
        // (A token a header cannot carry, kept by an older version, is
        // not sent: the 401 that follows signs in again. Nor is any token
        // over plain http to another machine: the 401 that follows says
        // why.)
        if self.insecure_host().is_some() || g.withheld == Some(g.generation) {
            return (g.generation, None);
        }
        // (A DPoP token without the key it is bound to is not sent
        // either.)
        let h = g
            .current
            .as_ref()
            .filter(|c| is_b64token(c.sign_in.tokens.access_token.expose()))
            .and_then(|c| {
                let t = &c.sign_in.tokens;
                let dpop = t.token_type.eq_ignore_ascii_case("dpop");
                if dpop && c.sign_in.dpop_key.is_none() {
                    return None;
                }
                Some(Sending {
                    token: t.access_token.expose().to_owned(),
                    dpop: c.sign_in.dpop_key.clone().filter(|_| dpop),
                })
            });
        (g.generation, h)
    }

    /// After a server error (5xx) answered to a request: whether the
    /// token it carried is one an earlier run stored (not obtained or
    /// renewed by this run), taken once a run as refused. A server whose
    /// authorization server restarted and forgot its tokens may fail on
    /// one rather than ask for a sign-in: the caller then signs in again
    /// ([`Self::authorize`] with the status: the request is sent again
    /// without it) instead of failing, with a new dynamic registration
    /// (the one kept is forgotten: that authorization server has most
    /// likely forgotten it too).
    pub fn stored_token_failed(&self) -> bool {
        if self.insecure_host().is_some() {
            return false;
        }
        let Ok(mut g) = self.lock() else {
            return false;
        };
        let stale = !g.stale_dropped && g.current.as_ref().is_some_and(|c| c.from_store);
        g.stale_dropped |= stale;
        // A server that fails on a token it issued has most likely
        // restarted with its authorization server (the SDK examples keep
        // both in memory): the dynamic registration kept for it is then
        // unknown there too, and a browser would only show an error page
        // for it. The sign-in that follows registers again.
        if let Some(c) = g.current.as_ref().filter(|_| stale) {
            if c.sign_in.client.kind == ClientKind::Dynamic {
                self.forget_client(&c.sign_in.client);
            }
        }
        stale
    }

    /// Whether a sign-in is in use.
    #[cfg(test)]
    pub fn signed_in(&self) -> bool {
        self.lock().is_ok_and(|g| g.current.is_some())
    }

    /// After a 401 or 403: get a token the request can be sent again with
    /// (refresh, or a new flow), unless another thread already did.
    ///
    /// Errors: [`AuthError`], the run cannot go on signed in.
    pub fn authorize(&self, u: &Unauthorized) -> Result<(), AuthError> {
        if let Some(host) = self.insecure_host() {
            return Err(AuthError::InsecureHttp {
                mcp_url: self.mcp_url.clone(),
                host,
            });
        }
        let _under_way = self.opts.sign_ins.start();
        let mut g = self.lock()?;
        if g.generation != u.generation {
            return Ok(());
        }
        self.store()?;
        if u.status >= 500 {
            // A server error to a stored token: the request is sent again
            // without it, and the 401 that follows signs in again (its
            // challenge says where).
            self.opts.notices.say(&format!(
                "{} answered the sign-in stored by an earlier run with HTTP {}: signing in again",
                self.mcp_url, u.status
            ));
            g.generation += 1;
            g.withheld = Some(g.generation);
            return Ok(());
        }
        let ch = u.challenge.clone().unwrap_or_default();
        let step_up = u.status == 403;
        let prm = self.resource_metadata(ch.resource_metadata.as_deref())?;
        // The sign-ins stored for this resource and account.
        let stored = match self.store()?.sign_ins(&prm.resource, &self.opts.account) {
            Ok(v) => v,
            Err(e) => {
                self.store_trouble(&e);
                Vec::new()
            }
        };
        let issuer = self.choose_issuer(&mut g, &prm, &stored)?;
        let (meta, meta_url) = self.server_metadata(&issuer)?;
        match &self.opts.unattended {
            // No browser: neither PKCE nor the code flow is needed.
            Some(un) => {
                meta.check_endpoints()?;
                super::grants::offered(&meta, &un.grant)?;
            }
            None => meta.check()?,
        }
        meta.check_reach(&self.mcp_url)?;
        if !self.opts.force_new && self.use_stored(&mut g, stored, &issuer) {
            return Ok(());
        }
        if !step_up && !self.opts.force_new {
            let generation = g.generation;
            if self.try_refresh(&mut g, Some(&meta), generation)? {
                return Ok(());
            }
        }
        // A step-up: the union, and what it adds to the token in use.
        let (scopes, more) = match (&g.current, step_up) {
            (Some(c), true) => {
                let s = self.step_up_scopes(&c.sign_in.tokens, &ch, u.request.as_ref())?;
                (s.union, Some((s.adds, s.has)))
            }
            _ => (
                initial_scopes(
                    self.opts.scope.as_deref(),
                    ch.scope.as_deref(),
                    prm.scopes_supported.as_deref(),
                    meta.scopes_supported.as_deref(),
                ),
                None,
            ),
        };
        // A grant that needs no person renews tokens that expire (it has
        // no refresh token, as a rule): that is not a new sign-in.
        let renewal = !step_up
            && g.current.as_ref().is_some_and(|c| {
                c.sign_in.grant != GrantType::AuthorizationCode && due(&c.sign_in.tokens)
            });
        if g.flows >= MAX_FLOWS && !renewal {
            return Err(AuthError::TooManySignIns {
                mcp_url: self.mcp_url.clone(),
            });
        }
        let step = more.as_ref().map(|(adds, has)| StepUp {
            adds,
            has,
            request: u.request.as_ref(),
        });
        let sign_in = match &self.opts.unattended {
            Some(un) => self.unattended_sign_in(
                &mut g,
                un,
                (&prm.resource, &meta, &meta_url),
                scopes,
                renewal,
            )?,
            None => self.flow_or_register_again(&mut g, &prm, &meta, &meta_url, scopes, step)?,
        };
        remember(&sign_in);
        let found = std::mem::take(&mut g.found_elsewhere);
        if !found {
            let store = self.store()?;
            match store.save(&sign_in) {
                Ok(()) => self.opts.notices.say(&format!(
                    "signed in; secrets kept in {}",
                    store.kept_in(&sign_in.key)
                )),
                Err(e) => self.store_trouble(&e),
            }
        }
        g.current = Some(Current {
            sign_in,
            refreshed_for: None,
            from_store: found,
        });
        g.generation += 1;
        Ok(())
    }

    /// The issuer to sign in at: that of the sign-in in use, else of the
    /// newest stored one, when the server still names it; else the first
    /// the server names. Sign-ins at an issuer the server no longer names
    /// are dropped (their clients are never used at the new one).
    ///
    /// Errors: the store is not there.
    pub(super) fn choose_issuer(
        &self,
        g: &mut Inner,
        prm: &ResourceMetadata,
        stored: &[SignIn],
    ) -> Result<String, AuthError> {
        let named = |issuer: &str| prm.authorization_servers.iter().any(|a| a == issuer);
        let issuer = g
            .current
            .as_ref()
            .map(|c| &c.sign_in)
            .filter(|s| named(&s.key.issuer))
            .or_else(|| {
                stored
                    .iter()
                    .filter(|s| named(&s.key.issuer))
                    .max_by_key(|s| s.tokens.obtained_at)
            })
            .map_or_else(
                || prm.authorization_servers[0].clone(),
                |s| s.key.issuer.clone(),
            );
        // A pre-registered client is bound to the issuer it was used at,
        // across runs too: its id (and the secret given with it) never
        // goes to another one the server names later. The sign-ins looked
        // at are this URL's under any `resource` (a server that moves its
        // issuer may rename its resource too), beside those of this one.
        if let Some(pre) = &self.opts.client {
            let same_url: Vec<SignIn> = match self.store()?.all() {
                Ok(all) => all
                    .into_iter()
                    .filter(|s| s.mcp_url == self.mcp_url && s.key.account == self.opts.account)
                    .collect(),
                Err(e) => {
                    self.store_trouble(&e);
                    Vec::new()
                }
            };
            let bound = stored.iter().chain(&same_url).find(|s| {
                s.key.issuer != issuer
                    && s.client.kind == ClientKind::PreRegistered
                    && s.client.client_id == pre.client_id
            });
            if let Some(s) = bound {
                return Err(AuthError::ClientIdBound {
                    first: s.key.issuer.clone(),
                    mcp_url: self.mcp_url.clone(),
                    issuer,
                });
            }
        }
        let mut gone: Vec<SignInKey> = stored
            .iter()
            .filter(|s| !named(&s.key.issuer))
            .map(|s| s.key.clone())
            .collect();
        if let Some(c) = &g.current {
            if c.sign_in.key.issuer != issuer {
                gone.push(c.sign_in.key.clone());
                g.current = None;
            }
        }
        if !gone.is_empty() {
            self.opts.notices.say(&format!(
                "{} now uses {issuer} for sign-in; signing in there",
                self.mcp_url
            ));
            for key in &gone {
                if let Err(e) = self.store()?.remove(key) {
                    self.store_trouble(&e);
                }
            }
        }
        Ok(issuer)
    }

    /// Whether sign-in `s` holds every scope of `--scope` (asked for or
    /// granted); true without `--scope`. A stored sign-in that does not
    /// is neither sent nor refreshed: a new sign-in replaces it.
    pub(super) fn holds_scopes_asked(&self, s: &SignIn) -> bool {
        self.opts.scope.as_deref().is_none_or(|asked| {
            let t = &s.tokens;
            let granted = t.scopes_granted.as_deref().unwrap_or_default();
            asked
                .iter()
                .all(|a| t.scopes_requested.contains(a) || granted.contains(a))
        })
    }

    /// A sign-in stored for (resource, issuer, account) that is not the
    /// one just refused (another run made it): taken at once while it is
    /// fresh (true: the request can be sent again), else taken to be
    /// refreshed. With `--scope`, only one that holds its scopes
    /// ([`Self::holds_scopes_asked`]).
    pub(super) fn use_stored(&self, g: &mut Inner, stored: Vec<SignIn>, issuer: &str) -> bool {
        let Some(s) = stored
            .into_iter()
            .find(|s| s.key.issuer == issuer && self.holds_scopes_asked(s) && self.grant_fits(s))
        else {
            return false;
        };
        let refused = g
            .current
            .as_ref()
            .is_some_and(|c| c.sign_in.tokens.access_token == s.tokens.access_token);
        let renewable = s.tokens.refresh_token.is_some();
        let fresh = !expired(&s.tokens) && (!due(&s.tokens) || !renewable);
        if refused || !(fresh || renewable) {
            return false;
        }
        remember(&s);
        g.current = Some(Current {
            sign_in: s,
            refreshed_for: None,
            from_store: true,
        });
        if fresh {
            g.generation += 1;
        }
        fresh
    }

    /// A flow; when its token request found the kept client unknown (and
    /// forgot it), one more flow that registers again, once a run.
    pub(super) fn flow_or_register_again(
        &self,
        g: &mut Inner,
        prm: &ResourceMetadata,
        meta: &ServerMetadata,
        meta_url: &str,
        scopes: Vec<String>,
        step: Option<StepUp<'_>>,
    ) -> Result<SignIn, AuthError> {
        match self.flow(g, prm, meta, meta_url, scopes.clone(), step) {
            Err(e) if std::mem::take(&mut g.forgot_client) && !g.registered_again => {
                g.registered_again = true;
                self.opts.notices.say(&format!(
                    "{}: registering again and signing in once more",
                    crate::safe_text::display(&e.to_string())
                ));
                self.flow(g, prm, meta, meta_url, scopes, step)
            }
            r => r,
        }
    }

    /// The store.
    ///
    /// Errors: why there is none (a sign-in is needed and cannot be kept).
    pub(super) fn store(&self) -> Result<&Arc<dyn Store>, AuthError> {
        self.opts.store.as_ref().map_err(|e| AuthError::NoStore {
            mcp_url: self.mcp_url.clone(),
            source: e.clone(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mcp::auth::fake_as::*;
    use crate::mcp::auth::options::PreRegistered;
    use crate::mcp::auth::store::Secret;
    use crate::notice::Notices;

    #[test]
    fn after_a_401_a_sign_in_stored_by_another_run_is_used_without_a_flow() {
        let fake =
            fake_as(|base, m, t, _| prm_and_metadata(base, m, t).unwrap_or((404, "{}".into())));
        let store = Arc::new(crate::mcp::auth::store::MemoryStore::default());
        // No opener: a flow would fail.
        let (a, said) = authorizer(&fake.base, Arc::clone(&store));
        assert!(!a.signed_in());
        // Another run signs in meanwhile, for another spelling of the URL.
        let mut other = stored(&fake.base, 3600, &["a"]);
        other.mcp_url = format!("{}/mcp?from=elsewhere", fake.base);
        other.tokens.access_token = Secret::new("stored-access-token-of-another-run");
        store.save(&other).unwrap();
        a.authorize(&first_401()).unwrap();
        assert_eq!(
            a.header(),
            (1, Some("Bearer stored-access-token-of-another-run".into()))
        );
        // Registered for redaction when read from the store.
        assert_eq!(
            crate::redact::redact_secrets("x stored-access-token-of-another-run y"),
            format!("x {} y", crate::redact::REDACTED)
        );
        assert!(said.texts().is_empty(), "{:?}", said.texts());
        // The same token refused again: not used a second time; no
        // refresh token would help (r1 refused), so a flow is needed.
        let e = a
            .authorize(&Unauthorized {
                status: 401,
                challenge: None,
                generation: 1,
                request: None,
            })
            .unwrap_err();
        assert!(e.to_string().contains("needs a sign-in: run"), "{e}");
    }

    #[test]
    fn a_stored_sign_in_at_an_issuer_the_server_no_longer_names_is_dropped() {
        let fake =
            fake_as(|base, m, t, _| prm_and_metadata(base, m, t).unwrap_or((404, "{}".into())));
        let store = Arc::new(crate::mcp::auth::store::MemoryStore::default());
        let (a, said) = authorizer(&fake.base, Arc::clone(&store));
        assert!(!a.signed_in());
        let mut old = stored(&fake.base, 3600, &["a"]);
        old.key.issuer = "https://old-issuer.example".into();
        old.mcp_url = "elsewhere".into();
        store.save(&old).unwrap();
        let e = a.authorize(&first_401()).unwrap_err();
        assert!(e.to_string().contains("needs a sign-in: run"), "{e}");
        assert!(store.all().unwrap().is_empty());
        assert_eq!(
            said.texts(),
            [format!(
                "ahp-elicit: {}/mcp now uses {} for sign-in; signing in there",
                fake.base, fake.base
            )]
        );
    }

    #[test]
    fn a_token_is_never_sent_over_plain_http_to_another_machine() {
        let remote = "http://mcp.example.com";
        for allowed in [false, true] {
            let store = Arc::new(crate::mcp::auth::store::MemoryStore::default());
            store.save(&stored(remote, 3600, &["a"])).unwrap();
            let mut o = AuthOptions::new(Ok(store));
            o.allow_insecure_http = allowed;
            let a = Authorizer::new(&format!("{remote}/mcp"), o);
            if allowed {
                assert_eq!(a.header().1.as_deref(), Some("Bearer a1"));
                continue;
            }
            // The stored token is not sent, and the 401 that follows
            // ends before any request (none could reach mcp.example.com).
            assert_eq!(a.header().1, None);
            let e = a.authorize(&first_401()).unwrap_err();
            assert_eq!(
                e.to_string(),
                "http://mcp.example.com/mcp asks for a sign-in, but over plain http:// to mcp.example.com its token would be readable on the way: not signing in there; use https://, or pass --allow-insecure-http"
            );
        }
        // This machine is fine without the flag.
        let store = Arc::new(crate::mcp::auth::store::MemoryStore::default());
        store
            .save(&stored("http://127.0.0.1:9", 3600, &["a"]))
            .unwrap();
        let (a, _) = authorizer("http://127.0.0.1:9", store);
        assert_eq!(a.header().1.as_deref(), Some("Bearer a1"));
    }

    #[test]
    fn a_pre_registered_client_is_not_sent_to_an_issuer_the_server_names_in_a_later_run() {
        let fake =
            fake_as(|base, m, t, _| prm_and_metadata(base, m, t).unwrap_or((404, "{}".into())));
        let store = Arc::new(crate::mcp::auth::store::MemoryStore::default());
        // An earlier run signed in with --client-id pre-1 at another issuer.
        let mut old = stored(&fake.base, 3600, &["a"]);
        old.key.issuer = "https://old-issuer.example".into();
        old.client.issuer = old.key.issuer.clone();
        old.client.kind = ClientKind::PreRegistered;
        old.client.client_id = "pre-1".into();
        store.save(&old).unwrap();
        let run = |client_id: &str| {
            let (notices, said) = Notices::collect();
            let mut o = AuthOptions::new(Ok(Arc::clone(&store) as Arc<dyn Store>));
            o.notices = notices;
            o.client = Some(PreRegistered {
                client_id: client_id.into(),
                client_secret: Some(Secret::new("pre-secret")),
            });
            let a = Authorizer::new(&format!("{}/mcp", fake.base), o);
            let e = a.authorize(&first_401()).unwrap_err();
            (e.to_string(), said.texts())
        };
        let (e, said) = run("pre-1");
        assert_eq!(
            e,
            format!(
                "the client id given with --client-id was used at https://old-issuer.example (a sign-in stored by an earlier run), but {b}/mcp now names {b}: not sending it there; give the client id registered at {b}, or if the move is expected run \"ahp-elicit auth logout {b}/mcp\" and sign in again",
                b = fake.base
            )
        );
        assert!(said.is_empty(), "{said:?}");
        assert_eq!(store.all().unwrap().len(), 1, "the binding is kept");
        // Another client id (the one registered at the new issuer) goes on
        // to the sign-in, which needs an opener here.
        let (e, _) = run("pre-2");
        assert!(e.contains("needs a sign-in: run"), "{e}");
        // The server moved its issuer and renamed its resource: the sign-in
        // stored for this URL under the old resource still binds the id.
        old.key.resource = format!("{}/old-resource", fake.base);
        store.save(&old).unwrap();
        let (e, _) = run("pre-1");
        assert!(
            e.starts_with(
                "the client id given with --client-id was used at https://old-issuer.example"
            ),
            "{e}"
        );
    }
}
