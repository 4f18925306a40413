//! The [`Authorizer`]: the sign-in state the HTTP transport's threads
//! share. It hands out the `Authorization: Bearer` header for every
//! request, and on a 401 (or a 403 `insufficient_scope`) runs what the
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
//! [`Secret`]s: they reach the wire and the store, never a notice or an
//! error.

use std::io::Read;
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, SystemTime};

use serde_json::{json, Value};

use super::challenge::BearerChallenge;
use super::discovery::{
    as_metadata_urls, endpoint_allowed, plain_http_host, points_home, prm_urls, resource_matches,
    DiscoveryError, ResourceMetadata, ServerMetadata,
};
use super::flow::{
    auth_method, basic_auth, initial_scopes, is_b64token, oauth_error, random_token, read_tokens,
    s256_challenge, union_scopes, AuthorizationRequest, CallbackError, FlowError,
};
use super::listener::{Loopback, PasteBack};
use super::store::{
    ClientKind, ClientRegistration, Secret, SignIn, SignInKey, Store, StoreError, Tokens,
};
use crate::notice::Notices;
pub use crate::responder::lines::{cancelled, SignInError};

/// Most authorization flows one run starts.
pub const MAX_FLOWS: u32 = 3;
/// A token this close to its expiry is refreshed before it is sent.
pub const REFRESH_MARGIN: Duration = Duration::from_secs(60);
/// Default wait for the browser to come back (`--auth-timeout`).
pub const DEFAULT_WAIT: Duration = Duration::from_secs(300);
/// Bytes of a metadata, registration or token answer that are read.
const MAX_ANSWER_BYTES: u64 = 1024 * 1024;
/// Default time for one request to an authorization server
/// ([`AuthOptions::request_timeout`]).
pub const REQUEST_TIMEOUT: Duration = Duration::from_secs(30);
/// How often the wait for the browser looks whether it was cancelled.
const WAIT_TICK: Duration = Duration::from_millis(100);

/// Opens the authorization URL (the CLI's `--browser CMD`). Errors: why
/// it could not ([`SignInError`]).
pub type Opener = Arc<dyn Fn(&str) -> Result<(), SignInError> + Send + Sync>;

/// What a sign-in screen shows, and the way back for a pasted address:
/// handed to [`AuthOptions::screen`] once per authorization flow, after
/// the loopback listener is up.
pub struct SignInRequest<'a> {
    /// The whole authorization URL (the client's own parameters added to
    /// the metadata's `authorization_endpoint`).
    pub url: &'a str,
    /// The MCP server signed in to.
    pub mcp_url: &'a str,
    /// The authorization server's issuer.
    pub issuer: &'a str,
    /// The scopes asked for (empty: the server's default access).
    pub scopes: &'a [String],
    /// For a step-up, what the refusal asked for and of which request;
    /// None for a first sign-in.
    pub step_up: Option<StepUp<'a>>,
    /// Where the browser comes back to (and a pasted address is fed in).
    pub paste: &'a PasteBack,
    /// Where a launch of the browser is recorded (`--log`), if anywhere.
    pub record_launch: Option<&'a LaunchRecord>,
}

/// Records a launch of the browser for a sign-in (`--log`): the launcher's
/// name (`browser-command`, `system-browser`), the URL handed to it and
/// whether it started (else why not).
pub type LaunchRecord = Arc<dyn Fn(&str, &str, Result<(), &str>) + Send + Sync>;

impl std::fmt::Debug for SignInRequest<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SignInRequest")
            .field("url", &self.url)
            .field("mcp_url", &self.mcp_url)
            .field("issuer", &self.issuer)
            .field("scopes", &self.scopes)
            .field("step_up", &self.step_up)
            .field("paste", &self.paste)
            .finish_non_exhaustive()
    }
}

/// The request a server refused for lack of a sign-in or of access: its
/// JSON-RPC method and, for `tools/call`, the tool's name (as this client
/// sent it: the server's text, unescaped).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct RequestName {
    /// The JSON-RPC method (`tools/call`).
    pub method: String,
    /// The tool called, for `tools/call`.
    pub tool: Option<String>,
}

impl RequestName {
    /// The request named in a JSON-RPC message's bytes (the body the
    /// transport sent); None when it is not a request (a response or
    /// something that does not parse).
    pub fn of_message(body: &[u8]) -> Option<Self> {
        let v: Value = serde_json::from_slice(body).ok()?;
        let method = v.get("method")?.as_str()?.to_owned();
        let tool = (method == "tools/call")
            .then(|| v.get("params")?.get("name")?.as_str())
            .flatten()
            .map(str::to_owned);
        Some(Self { method, tool })
    }
}

impl std::fmt::Display for RequestName {
    /// `tools/call NAME` (the name made safe for a terminal), or the method.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&crate::safe_text::display(&self.method))?;
        if let Some(t) = &self.tool {
            write!(f, " {}", crate::safe_text::display(t))?;
        }
        Ok(())
    }
}

/// What a step-up sign-in is for: a 403 `insufficient_scope` named access
/// the token in use does not have.
#[derive(Debug, Clone, Copy)]
pub struct StepUp<'a> {
    /// The scopes the refusal named that were neither asked for nor
    /// granted before (what the new sign-in adds).
    pub adds: &'a [String],
    /// The scopes of the token in use: as granted, else as asked for.
    pub has: &'a [String],
    /// The request refused, when known.
    pub request: Option<&'a RequestName>,
}

impl StepUp<'_> {
    /// One sentence, safe for a terminal: `tools/call admin_reset needs
    /// more access: scope admin (you have: read)`; `host` names the
    /// server when the request is not known.
    pub fn sentence(&self, host: &str) -> String {
        let who = match self.request {
            Some(r) => r.to_string(),
            None => crate::safe_text::display(host).into_owned(),
        };
        let adds = crate::safe_text::display(&self.adds.join(" ")).into_owned();
        let what = match self.adds.len() {
            0 => "no scope named".to_owned(),
            1 => format!("scope {adds}"),
            _ => format!("scopes {adds}"),
        };
        let has = if self.has.is_empty() {
            String::new()
        } else {
            format!(
                " (you have: {})",
                crate::safe_text::display(&self.has.join(" "))
            )
        };
        format!("{who} needs more access: {what}{has}")
    }
}

/// Shows the sign-in to the person, asks consent and opens the
/// authorization URL (or shows it for copying). It returns once the person
/// consented and the URL was opened or shown, or a pasted address ended
/// the wait; an error ends the sign-in with that sentence ([`cancelled`]
/// when the person cancelled).
pub type Screen = Arc<dyn Fn(&SignInRequest<'_>) -> Result<(), SignInError> + Send + Sync>;

/// A pre-registered client: `--client-id` and the secret read from
/// `--client-secret env:VAR|file:PATH` (never stored).
#[derive(Debug, Clone)]
pub struct PreRegistered {
    /// `client_id`.
    pub client_id: String,
    /// `client_secret`, when the client has one.
    pub client_secret: Option<Secret>,
}

/// How a run signs in: what the `mcp` and `auth login` flags say.
#[derive(Clone)]
pub struct AuthOptions {
    /// Where sign-ins and client registrations are kept; an error (why
    /// there is no store) ends a run that must sign in.
    pub store: Result<Arc<dyn Store>, StoreError>,
    /// `--account` (default `default`).
    pub account: String,
    /// `--scope`: the scopes to ask for instead of the server's.
    pub scope: Option<Vec<String>>,
    /// `--client-id` and `--client-secret`.
    pub client: Option<PreRegistered>,
    /// `--client-metadata-url`: a Client ID Metadata Document URL.
    pub client_metadata_url: Option<String>,
    /// How the authorization URL is opened; None: no flow is started (the
    /// run fails with the command to sign in).
    pub opener: Option<Opener>,
    /// What the opener is, for the notice (`the browser command "CMD"`).
    pub opener_name: String,
    /// Why there is no opener, for the error (`this run has no terminal
    /// to sign in on`).
    pub no_opener_reason: String,
    /// Whether the error without an opener names `ahp-elicit auth login
    /// URL` as the way to sign in (not when this run is that command).
    /// Default true.
    pub name_login: bool,
    /// The sign-in screen at a terminal; when set it is used instead of
    /// [`opener`](Self::opener).
    pub screen: Option<Screen>,
    /// How long to wait for the browser to come back.
    pub wait: Duration,
    /// `--callback-port`: the loopback port the browser comes back to
    /// (`http://127.0.0.1:PORT/callback`, for clients registered with that
    /// exact redirect URI); None: a kept registration's port, else any.
    pub callback_port: Option<u16>,
    /// Where "signing in at ..." is said.
    pub notices: Notices,
    /// Time for one request of a sign-in (metadata, registration, token):
    /// `mcp`'s `--connect-timeout`, else [`REQUEST_TIMEOUT`].
    pub request_timeout: Duration,
    /// The flag that set [`Self::request_timeout`], named when it runs out.
    pub request_timeout_flag: Option<&'static str>,
    /// Where the browser's launches are recorded (`--log`), if anywhere.
    pub record_launch: Option<LaunchRecord>,
    /// `--allow-insecure-http`: a sign-in's token may be sent to an MCP
    /// server on another machine over plain `http://`. Without it such a
    /// server is never signed in to and a stored token is never sent to it
    /// ([`plain_http_host`]). Default false.
    pub allow_insecure_http: bool,
}

impl std::fmt::Debug for AuthOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AuthOptions")
            .field("account", &self.account)
            .field("scope", &self.scope)
            .field("client", &self.client)
            .field("client_metadata_url", &self.client_metadata_url)
            .field("opener", &self.opener_name)
            .field("wait", &self.wait)
            .finish_non_exhaustive()
    }
}

impl AuthOptions {
    /// Options with every default: no opener, the account `default`.
    pub fn new(store: Result<Arc<dyn Store>, StoreError>) -> Self {
        Self {
            store,
            account: "default".into(),
            scope: None,
            client: None,
            client_metadata_url: None,
            opener: None,
            opener_name: String::new(),
            no_opener_reason: "this run cannot open a browser".into(),
            name_login: true,
            screen: None,
            wait: DEFAULT_WAIT,
            callback_port: None,
            notices: Notices::stderr(),
            request_timeout: REQUEST_TIMEOUT,
            request_timeout_flag: None,
            record_launch: None,
            allow_insecure_http: false,
        }
    }
}

/// `word` as one word of a POSIX shell command line: as it is when it
/// holds only characters no shell treats specially, else in single quotes
/// (a single quote in it written `'\''`).
fn shell_word(word: &str) -> String {
    let plain = !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "_-./:@%+=,".contains(c));
    if plain {
        word.to_owned()
    } else {
        format!("'{}'", word.replace('\'', "'\\''"))
    }
}

/// Why signing in failed: one sentence naming the step and the fix (it may
/// quote a server: sanitized when shown; never a secret). The command
/// exits 3.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct AuthError(pub String);

impl From<DiscoveryError> for AuthError {
    fn from(e: DiscoveryError) -> Self {
        Self(e.to_string())
    }
}

impl From<FlowError> for AuthError {
    fn from(e: FlowError) -> Self {
        Self(e.to_string())
    }
}

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

/// The scopes of a step-up ([`Authorizer::step_up_scopes`]).
struct StepUpScopes {
    /// Asked for now: asked and granted before, then the challenge's.
    union: Vec<String>,
    /// What the union adds.
    adds: Vec<String>,
    /// What the token in use has.
    has: Vec<String>,
}

struct Current {
    sign_in: SignIn,
    /// The generation a refresh was last tried for.
    refreshed_for: Option<u64>,
    /// Whether the tokens were read from the store as an earlier run (or
    /// another one) left them, not obtained or renewed by this run: when
    /// the server fails on them, the error says how to clear them.
    from_store: bool,
}

#[derive(Default)]
struct Inner {
    /// Bumped with every new token: a thread whose 401 came with an older
    /// one just retries.
    generation: u64,
    current: Option<Current>,
    flows: u32,
    /// The issuer a pre-registered client was first used with.
    pre_issuer: Option<String>,
    loaded: bool,
    /// The last flow's token request refused the client (`invalid_client`)
    /// and its kept registration was forgotten: one more flow registers
    /// again.
    forgot_client: bool,
    /// That one more flow was made.
    registered_again: bool,
}

/// What one flow shows or opens, and where the browser comes back.
struct Shown<'a> {
    url: &'a str,
    meta: &'a ServerMetadata,
    scopes: &'a [String],
    step_up: Option<StepUp<'a>>,
    paste: &'a PasteBack,
}

/// What the token request of a flow sends besides the client's id.
struct Grant<'a> {
    code: &'a Secret,
    verifier: &'a Secret,
    secret: Option<&'a Secret>,
}

/// The sign-in state of one MCP server URL, shared by the transport's
/// threads (one flow at a time).
pub struct Authorizer {
    mcp_url: String,
    opts: AuthOptions,
    agent: ureq::Agent,
    inner: Mutex<Inner>,
    /// The store troubles said so far (each is said once a run).
    said: Mutex<Vec<String>>,
}

impl std::fmt::Debug for Authorizer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Authorizer")
            .field("mcp_url", &self.mcp_url)
            .field("opts", &self.opts)
            .finish_non_exhaustive()
    }
}

fn now() -> SystemTime {
    SystemTime::now()
}

impl Authorizer {
    /// An authorizer for the MCP endpoint `mcp_url`.
    pub fn new(mcp_url: &str, opts: AuthOptions) -> Self {
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .max_redirects(0)
            .timeout_global(Some(opts.request_timeout))
            .user_agent(concat!("ahp-elicit/", env!("CARGO_PKG_VERSION")))
            .build()
            .into();
        Self {
            mcp_url: mcp_url.to_owned(),
            opts,
            agent,
            inner: Mutex::new(Inner::default()),
            said: Mutex::new(Vec::new()),
        }
    }

    /// The MCP server's host when its URL is plain `http://` to another
    /// machine and `--allow-insecure-http` was not given: no token of a
    /// sign-in goes there.
    fn insecure_host(&self) -> Option<String> {
        plain_http_host(&self.mcp_url).filter(|_| !self.opts.allow_insecure_http)
    }

    /// Say a store trouble (an unsafe or unreadable file, a failed
    /// write) once: the store is read again at every step of a sign-in,
    /// and a file that is unsafe stays so for the run.
    fn store_trouble(&self, e: &dyn std::fmt::Display) {
        let text = e.to_string();
        let Ok(mut said) = self.said.lock() else {
            return;
        };
        if !said.contains(&text) {
            self.opts.notices.say(&text);
            said.push(text);
        }
    }

    fn lock(&self) -> Result<MutexGuard<'_, Inner>, AuthError> {
        let mut g = self
            .inner
            .lock()
            .map_err(|_| AuthError("the sign-in state was poisoned by a panic".into()))?;
        if !g.loaded {
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
                        .filter(|s| self.holds_scopes_asked(s))
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

    /// The header value to send (`Bearer TOKEN`) and the generation it
    /// belongs to. A token close to its expiry is refreshed first (a
    /// failed refresh leaves it: the 401 that follows starts over).
    pub fn header(&self) -> (u64, Option<String>) {
        let Ok(mut g) = self.lock() else {
            return (0, None);
        };
        let due = g
            .current
            .as_ref()
            .is_some_and(|c| c.sign_in.tokens.refresh_token.is_some() && due(&c.sign_in.tokens));
        if due {
            let _under_way = super::wait::SigningIn::start();
            let generation = g.generation;
            let _ = self.try_refresh(&mut g, None, generation);
        }
        // (A token a header cannot carry, kept by an older version, is
        // not sent: the 401 that follows signs in again. Nor is any token
        // over plain http to another machine: the 401 that follows says
        // why.)
        if self.insecure_host().is_some() {
            return (g.generation, None);
        }
        let h = g
            .current
            .as_ref()
            .map(|c| c.sign_in.tokens.access_token.expose())
            .filter(|t| is_b64token(t))
            .map(|t| format!("Bearer {t}"));
        (g.generation, h)
    }

    /// Whether a sign-in is in use.
    #[cfg(test)]
    pub fn signed_in(&self) -> bool {
        self.lock().is_ok_and(|g| g.current.is_some())
    }

    /// When the token in use is one an earlier run stored (read from the
    /// store, not obtained or renewed by this run): what to say with an
    /// error the server answered it with. A server that restarted and
    /// forgot its tokens may fail on one (HTTP 500) rather than ask for a
    /// sign-in.
    pub fn stored_sign_in_hint(&self) -> Option<String> {
        let g = self.lock().ok()?;
        let c = g.current.as_ref().filter(|c| c.from_store)?;
        let account = match c.sign_in.key.account.as_str() {
            "default" => String::new(),
            a => format!("--account {} ", crate::safe_text::display(a)),
        };
        Some(format!(
            "a sign-in stored by an earlier run was sent with the request; if the server no longer takes it, \"ahp-elicit auth logout {account}{}\" clears it",
            self.mcp_url
        ))
    }

    /// The sign-in in use, in words (never a secret): `signed in to URL at
    /// ISSUER (account NAME); access for 59 minutes 40 seconds, renewable`.
    pub fn summary(&self) -> Option<String> {
        let g = self.lock().ok()?;
        let s = &g.current.as_ref()?.sign_in;
        let mut out = format!(
            "signed in to {} at {} (account {})",
            s.mcp_url, s.key.issuer, s.key.account
        );
        if let Some(left) = s
            .tokens
            .expires_at
            .and_then(|t| t.duration_since(now()).ok())
        {
            out.push_str(&format!(
                "; access for {}",
                crate::responder::duration_words(left.as_secs())
            ));
        }
        if s.tokens.refresh_token.is_some() {
            out.push_str(", renewable");
        }
        Some(out)
    }

    /// After a 401 or 403: get a token the request can be sent again with
    /// (refresh, or a new flow), unless another thread already did.
    ///
    /// Errors: [`AuthError`], the run cannot go on signed in.
    pub fn authorize(&self, u: &Unauthorized) -> Result<(), AuthError> {
        if let Some(host) = self.insecure_host() {
            return Err(AuthError(format!(
                "{} asks for a sign-in, but over plain http:// to {host} its token would be readable on the way: not signing in there; use https://, or pass --allow-insecure-http",
                self.mcp_url
            )));
        }
        let _under_way = super::wait::SigningIn::start();
        let mut g = self.lock()?;
        if g.generation != u.generation {
            return Ok(());
        }
        self.store()?;
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
        meta.check()?;
        meta.check_reach(&self.mcp_url)?;
        if self.use_stored(&mut g, stored, &issuer) {
            return Ok(());
        }
        if !step_up {
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
        if g.flows >= MAX_FLOWS {
            return Err(AuthError(format!(
                "gave up signing in to {} after {MAX_FLOWS} sign-ins in this run (the server keeps refusing the tokens)",
                self.mcp_url
            )));
        }
        let step = more.as_ref().map(|(adds, has)| StepUp {
            adds,
            has,
            request: u.request.as_ref(),
        });
        let sign_in = self.flow_or_register_again(&mut g, &prm, &meta, &meta_url, scopes, step)?;
        remember(&sign_in);
        if let Err(e) = self.store()?.save(&sign_in) {
            self.store_trouble(&e);
        }
        g.current = Some(Current {
            sign_in,
            refreshed_for: None,
            from_store: false,
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
    fn choose_issuer(
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
        // goes to another one the server names later.
        if let Some(pre) = &self.opts.client {
            let bound = stored.iter().find(|s| {
                s.key.issuer != issuer
                    && s.client.kind == ClientKind::PreRegistered
                    && s.client.client_id == pre.client_id
            });
            if let Some(s) = bound {
                return Err(AuthError(format!(
                    "the client id given with --client-id was used at {} (a sign-in stored by an earlier run), but {} now names {issuer}: not sending it there; give the client id registered at {issuer}, or if the move is expected run \"ahp-elicit auth logout {}\" and sign in again",
                    s.key.issuer, self.mcp_url, self.mcp_url
                )));
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
    fn holds_scopes_asked(&self, s: &SignIn) -> bool {
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
    fn use_stored(&self, g: &mut Inner, stored: Vec<SignIn>, issuer: &str) -> bool {
        let Some(s) = stored
            .into_iter()
            .find(|s| s.key.issuer == issuer && self.holds_scopes_asked(s))
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
    fn flow_or_register_again(
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
                    crate::safe_text::display(&e.0)
                ));
                self.flow(g, prm, meta, meta_url, scopes, step)
            }
            r => r,
        }
    }

    /// A step-up's scopes: the union, in first-seen order, of those asked
    /// for and granted before and those the challenge names; what that
    /// adds; and what the token in use has (granted, else asked for).
    ///
    /// Errors: the union adds nothing ([`Self::nothing_new`]).
    fn step_up_scopes(
        &self,
        t: &Tokens,
        ch: &BearerChallenge,
        request: Option<&RequestName>,
    ) -> Result<StepUpScopes, AuthError> {
        let granted = t.scopes_granted.clone().unwrap_or_default();
        let asked = ch.scope.clone().unwrap_or_default();
        let union = union_scopes(&t.scopes_requested, &granted, &asked);
        let before = union_scopes(&t.scopes_requested, &granted, &[]);
        if union.len() == before.len() {
            return Err(self.nothing_new(request, &asked, &granted));
        }
        let has = t
            .scopes_granted
            .clone()
            .unwrap_or_else(|| t.scopes_requested.clone());
        let adds = union[before.len()..].to_vec();
        Ok(StepUpScopes { union, adds, has })
    }

    /// The error of a step-up that would ask for nothing new: the scopes
    /// the refusal names (`asked`) the token has, or were asked for and
    /// not granted.
    fn nothing_new(
        &self,
        request: Option<&RequestName>,
        asked: &[String],
        granted: &[String],
    ) -> AuthError {
        let (named, why) = if asked.is_empty() {
            (
                "no scope named".to_owned(),
                "so there is nothing to ask for",
            )
        } else if asked.iter().all(|s| granted.contains(s)) {
            (asked.join(" "), "which the token in use has already")
        } else {
            (
                asked.join(" "),
                "which was asked for before and not granted",
            )
        };
        AuthError(format!(
            "{} refused {} for lack of access ({named}), {why}: not signing in again",
            self.mcp_url,
            request.map_or_else(|| "the request".to_owned(), ToString::to_string),
        ))
    }

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
    fn try_refresh(
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
        let _lock = self.store()?.lock(&key).map_err(|e| AuthError(e.0))?;
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
                    "the sign-in to {} was removed from the store; signing in again",
                    self.mcp_url
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
        let secret = self.secret_of(&client);
        let basic = client_auth(&client, secret.as_ref(), &mut form);
        let (status, body) = self.post_form(
            "the refresh's token answer",
            &meta.token_endpoint,
            &form,
            basic,
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
    /// again). Anything else leaves them.
    ///
    /// Errors: the store is not there.
    fn refresh_refused(
        &self,
        g: &mut Inner,
        key: &SignInKey,
        client: &ClientRegistration,
        status: u16,
        body: &[u8],
    ) -> Result<(), AuthError> {
        let (err, _) = oauth_error(body).unwrap_or_else(|| (format!("HTTP {status}"), None));
        if err == "invalid_grant" {
            self.opts
                .notices
                .say("the stored sign-in expired or was revoked; signing in again");
        } else if self.forget_rejected_client(client, body) {
            // The authorization server forgot the client (it restarted).
            self.opts.notices.say(&format!(
                "{} no longer knows the client registered there ({err}); registering again",
                key.issuer
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
    fn stored(&self, key: &SignInKey) -> Result<Option<SignIn>, AuthError> {
        Ok(self
            .store()?
            .sign_ins(&key.resource, &key.account)
            .map_err(|e| AuthError(e.0))?
            .into_iter()
            .find(|s| s.key.issuer == key.issuer))
    }

    /// The store.
    ///
    /// Errors: why there is none (a sign-in is needed and cannot be kept).
    fn store(&self) -> Result<&Arc<dyn Store>, AuthError> {
        self.opts
            .store
            .as_ref()
            .map_err(|e| AuthError(format!("{} needs a sign-in, but {e}", self.mcp_url)))
    }

    /// The pre-registered client's secret when `client` is it.
    fn secret_of(&self, client: &ClientRegistration) -> Option<Secret> {
        match client.kind {
            ClientKind::PreRegistered => self
                .opts
                .client
                .as_ref()
                .and_then(|p| p.client_secret.clone()),
            _ => client.client_secret.clone(),
        }
    }

    /// The authorization servers the server names in its Protected
    /// Resource Metadata (the challenge's `resource_metadata`, else the
    /// well-known addresses), its `resource` checked: where a client
    /// registration for it is kept.
    ///
    /// Errors: the metadata cannot be found, read or used.
    pub fn authorization_servers(
        &self,
        from_header: Option<&str>,
    ) -> Result<Vec<String>, AuthError> {
        Ok(self.resource_metadata(from_header)?.authorization_servers)
    }

    /// Read the Protected Resource Metadata and check its `resource`.
    fn resource_metadata(&self, from_header: Option<&str>) -> Result<ResourceMetadata, AuthError> {
        let urls = prm_urls(&self.mcp_url, from_header)?;
        for url in &urls {
            let Some(v) = self.get_json("the protected resource metadata", url)? else {
                continue;
            };
            let prm = ResourceMetadata::parse(&v).map_err(|e| {
                AuthError(format!(
                    "the protected resource metadata at {url} cannot be used: {e}"
                ))
            })?;
            if !resource_matches(&prm.resource, &self.mcp_url) {
                return Err(AuthError(format!(
                    "the metadata of {} says it is for {}: refusing to sign in",
                    self.mcp_url, prm.resource
                )));
            }
            return Ok(prm);
        }
        // A challenge's resource_metadata that was not asked is named.
        let skipped = from_header
            .and_then(|r| {
                let why = if !endpoint_allowed(r) {
                    "which is not https (nor http on this machine)"
                } else if points_home(&self.mcp_url, r) {
                    "which is on this machine (or its local link) while the server is not"
                } else {
                    return None;
                };
                Some(format!(
                    "; not asked: the resource_metadata its challenge names, \"{}\", {why}",
                    super::flow::cut(r, 200)
                ))
            })
            .unwrap_or_default();
        Err(AuthError(format!(
            "{} asks for a sign-in but publishes no protected resource metadata (tried {}{skipped}): it cannot be signed in to automatically; with a token it takes, pass --header 'Authorization: env:VAR' (VAR holding \"Bearer TOKEN\")",
            self.mcp_url,
            urls.join(" and ")
        )))
    }

    /// Read the authorization server's metadata (spec order); its `issuer`
    /// must be `issuer` exactly.
    fn server_metadata(&self, issuer: &str) -> Result<(ServerMetadata, String), AuthError> {
        if points_home(&self.mcp_url, issuer) {
            return Err(DiscoveryError::PointsHome {
                what: "authorization server",
                url: issuer.to_owned(),
                server: self.mcp_url.clone(),
            }
            .into());
        }
        let urls = as_metadata_urls(issuer)?;
        for url in &urls {
            let Some(v) = self.get_json("the authorization server metadata", url)? else {
                continue;
            };
            let meta = ServerMetadata::parse(&v).map_err(|e| {
                AuthError(format!(
                    "the authorization server metadata at {url} cannot be used: {e}"
                ))
            })?;
            if meta.issuer != issuer {
                return Err(AuthError(format!(
                    "the authorization server metadata at {url} says it is \"{}\", not \"{issuer}\": refusing to use it",
                    meta.issuer
                )));
            }
            return Ok((meta, url.clone()));
        }
        Err(AuthError(format!(
            "no authorization server metadata for {issuer} (tried {} addresses)",
            urls.len()
        )))
    }

    /// GET a JSON document: None for a 4xx, 5xx or redirect (the next
    /// address is tried).
    ///
    /// Errors: the request failed or had no answer in time, or a 2xx body
    /// is too large, too deep or not JSON (each said naming `what` is asked
    /// for and where).
    fn get_json(&self, what: &str, url: &str) -> Result<Option<Value>, AuthError> {
        let ask = Ask { what, url };
        let resp = self
            .agent
            .get(url)
            .header("Accept", "application/json")
            .call()
            .map_err(|e| self.trouble(ask, e))?;
        if !resp.status().is_success() {
            return Ok(None);
        }
        let body = self.read_answer(ask, resp)?;
        json_answer(ask, &body).map(Some)
    }

    /// What went wrong asking `ask`: no answer in time (naming the limit),
    /// an answer larger than [`MAX_ANSWER_BYTES`], or the request's error.
    fn trouble(&self, ask: Ask<'_>, e: ureq::Error) -> AuthError {
        let Ask { what, url } = ask;
        match e {
            ureq::Error::Timeout(_) => AuthError(format!(
                "no answer from {url} ({what}) within {}{}",
                crate::mcp::seconds(&self.opts.request_timeout),
                self.opts
                    .request_timeout_flag
                    .map(|f| format!(" ({f})"))
                    .unwrap_or_default()
            )),
            ureq::Error::BodyExceedsLimit(_) => AuthError(format!(
                "{what} at {url} is larger than {} MiB: not read",
                MAX_ANSWER_BYTES / (1024 * 1024)
            )),
            e => AuthError(format!("{what}: {url}: {e}")),
        }
    }

    /// The body of an answer to `ask`, at most [`MAX_ANSWER_BYTES`].
    ///
    /// Errors: it is larger, or could not be read in time.
    fn read_answer(
        &self,
        ask: Ask<'_>,
        resp: ureq::http::Response<ureq::Body>,
    ) -> Result<Vec<u8>, AuthError> {
        let mut body = Vec::new();
        resp.into_body()
            .into_with_config()
            .limit(MAX_ANSWER_BYTES)
            .reader()
            .read_to_end(&mut body)
            .map_err(|e| self.trouble(ask, ureq::Error::from(e)))?;
        Ok(body)
    }

    /// POST a form (`what` it asks for, in words); returns the status and
    /// the body.
    ///
    /// Errors: the request failed or had no answer in time, or the body is
    /// larger than [`MAX_ANSWER_BYTES`].
    fn post_form(
        &self,
        what: &str,
        url: &str,
        form: &[(String, String)],
        basic: Option<String>,
    ) -> Result<(u16, Vec<u8>), AuthError> {
        let mut body = url::form_urlencoded::Serializer::new(String::new());
        for (k, v) in form {
            body.append_pair(k, v);
        }
        let mut rb = self
            .agent
            .post(url)
            .header("Content-Type", "application/x-www-form-urlencoded")
            .header("Accept", "application/json");
        if let Some(b) = basic {
            rb = rb.header("Authorization", b);
        }
        let ask = Ask { what, url };
        let resp = rb
            .send(body.finish().as_bytes())
            .map_err(|e| self.trouble(ask, e))?;
        let status = resp.status().as_u16();
        Ok((status, self.read_answer(ask, resp)?))
    }

    /// One authorization code flow: the client identity, the loopback
    /// listener, the authorization URL shown or opened, the browser's
    /// return and the token request.
    fn flow(
        &self,
        g: &mut Inner,
        prm: &ResourceMetadata,
        meta: &ServerMetadata,
        meta_url: &str,
        scopes: Vec<String>,
        step_up: Option<StepUp<'_>>,
    ) -> Result<SignIn, AuthError> {
        if self.opts.screen.is_none() && self.opts.opener.is_none() {
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
            true => AuthError(format!("{e}{}", self.forget_client_hint(&meta.issuer))),
            false => e,
        })?;
        crate::redact::register_secret(code.expose());
        let grant = Grant {
            code: &code,
            verifier: &verifier,
            secret: secret.as_ref(),
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
        })
    }

    /// The loopback listener the browser comes back to, and the client
    /// registration kept for the issuer (Dynamic Client Registration
    /// only): its port is bound first, so it can be used again.
    ///
    /// Errors: `--callback-port` cannot be bound, or no port can.
    fn loopback(
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
        let kept_port = kept.as_ref().and_then(|c| {
            c.redirect_uri
                .strip_prefix("http://127.0.0.1:")
                .and_then(|r| r.strip_suffix(super::listener::CALLBACK_PATH))
                .and_then(|p| p.parse::<u16>().ok())
        });
        let loopback = match (self.opts.callback_port, kept_port.map(Loopback::bind)) {
            (Some(port), _) => Loopback::bind(port).map_err(|e| {
                AuthError(format!(
                    "{e}: choose another with --callback-port or leave it out"
                ))
            })?,
            (None, Some(Ok(l))) => l,
            (None, _) => Loopback::bind(0).map_err(|e| AuthError(e.to_string()))?,
        };
        Ok((loopback, kept))
    }

    /// Show the sign-in (the screen) or open the authorization URL (the
    /// opener), then wait for the browser's return (or a pasted address).
    ///
    /// Errors: the person cancelled, the URL could not be opened, no answer
    /// within `--auth-timeout`, or the answer was refused.
    fn ask_and_wait(
        &self,
        s: &Shown<'_>,
        rx: &std::sync::mpsc::Receiver<Result<Secret, CallbackError>>,
    ) -> Result<Secret, AuthError> {
        // From here a signal ends the sign-in, not the run: held until the
        // wait ends, and published so that the session knows.
        let _hold = crate::signals::hold();
        let published = super::wait::Published::new(&self.mcp_url);
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
                })
                .map_err(|e| AuthError(e.to_string()))?;
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
            Err(e) => rx.try_recv().map_err(|_| {
                AuthError(format!(
                    "opening the authorization URL failed: {}",
                    e.to_string().trim_end_matches('.')
                ))
            }),
            Ok(()) => self.wait_for_browser(s, rx, &published),
        };
        verdict?.map_err(|e| AuthError(e.to_string()))
    }

    /// Wait for the browser's return (or a pasted address), up to
    /// `--auth-timeout`. Meanwhile the wait is published for the screens
    /// ([`super::wait`]): Control-C there, or an ending signal (SIGINT at a
    /// terminal given back), ends it as a cancelled sign-in.
    ///
    /// Errors: [`cancelled`], or no answer in time.
    fn wait_for_browser(
        &self,
        s: &Shown<'_>,
        rx: &std::sync::mpsc::Receiver<Result<Secret, CallbackError>>,
        published: &super::wait::Published,
    ) -> Result<Result<Secret, CallbackError>, AuthError> {
        use std::sync::mpsc::RecvTimeoutError;
        let port = loopback_port(s.paste.redirect_uri());
        let until = std::time::Instant::now() + self.opts.wait;
        published.waiting(super::wait::Waiting {
            url: s.url.to_owned(),
            listening: format!("127.0.0.1:{port}"),
            until,
            timeout: self.opts.wait,
        });
        loop {
            if published.cancelled() {
                return Err(AuthError(cancelled(&self.mcp_url)));
            }
            let left = until.saturating_duration_since(std::time::Instant::now());
            match rx.recv_timeout(left.min(WAIT_TICK)) {
                Ok(v) => return Ok(v),
                Err(RecvTimeoutError::Timeout) if !left.is_zero() => {}
                Err(_) => {
                    return Err(AuthError(format!(
                        "no answer from the browser within {} (the sign-in page was not completed, or it could not reach 127.0.0.1:{port})",
                        humantime::format_duration(self.opts.wait),
                    )))
                }
            }
        }
    }

    /// What is said before the opener opens the authorization URL.
    fn opening_sentence(&self, s: &Shown<'_>) -> String {
        format!(
            "{}signing in at {} for {}{}: opening the authorization URL with {}",
            s.step_up.map_or_else(String::new, |u| format!(
                "{}; ",
                u.sentence(&host_of(&self.mcp_url))
            )),
            host_of(&s.meta.authorization_endpoint),
            self.mcp_url,
            if s.scopes.is_empty() {
                String::new()
            } else {
                format!(" (access asked: {})", s.scopes.join(" "))
            },
            self.opts.opener_name
        )
    }

    /// What a failed sign-in with a kept client registration adds: the way
    /// to forget it, for an authorization server that no longer knows it.
    fn forget_client_hint(&self, issuer: &str) -> String {
        format!(
            "; the client registration kept for {issuer} was used: if that authorization server no longer knows it (it restarted), run \"ahp-elicit auth logout {} --forget-client\" and sign in again",
            self.mcp_url
        )
    }

    /// The token request for the code the browser brought back.
    /// `invalid_client` or `unauthorized_client` for a registered client
    /// forgets its registration (the next flow registers again: see
    /// [`Inner::forgot_client`]).
    ///
    /// Errors: the request failed or was refused, or its answer cannot be
    /// taken.
    fn redeem(
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
        let (status, body) =
            self.post_form("the token answer", &meta.token_endpoint, &form, basic)?;
        if !(200..300).contains(&status) {
            let why = refusal(status, &body);
            let forgot = self.forget_rejected_client(client, &body);
            g.forgot_client |= forgot;
            return Err(AuthError(format!(
                "token request to {} failed: {why}{}",
                meta.issuer,
                if forgot {
                    "; the client registration kept there is forgotten"
                } else {
                    ""
                }
            )));
        }
        let v = json_answer(
            Ask {
                what: "the token answer",
                url: &meta.token_endpoint,
            },
            &body,
        )?;
        Ok(read_tokens(
            &v,
            (&meta.issuer, &meta.token_endpoint),
            scopes,
            now(),
        )?)
    }

    /// After a token endpoint refusal: when it says the client is unknown
    /// (`invalid_client`, `unauthorized_client`) and the client was
    /// registered here (Dynamic Client Registration), forget that
    /// registration. Returns whether it was forgotten.
    fn forget_rejected_client(&self, client: &ClientRegistration, body: &[u8]) -> bool {
        let rejected = oauth_error(body)
            .is_some_and(|(e, _)| matches!(e.as_str(), "invalid_client" | "unauthorized_client"));
        if !rejected || client.kind != ClientKind::Dynamic {
            return false;
        }
        if let Ok(store) = self.store() {
            if let Err(e) = store.remove_client(&client.issuer) {
                self.store_trouble(&e);
            }
        }
        true
    }

    /// The error when a flow for `scopes` is needed and nothing can show
    /// it: what is needed (a sign-in, or for a step-up the access the
    /// refusal named: [`StepUp::sentence`]), the command to sign in with
    /// (`auth login`, with this run's account and, for a step-up or a
    /// run given `--scope`, `--scope` with the scopes the flow would ask
    /// for, so the sign-in it stores has them), why this run cannot, and
    /// the accounts signed in to this server when this run's is not one
    /// of them.
    fn no_way_to_sign_in(
        &self,
        resource: &str,
        scopes: &[String],
        step_up: Option<StepUp<'_>>,
    ) -> AuthError {
        let account = &self.opts.account;
        let how = if self.opts.name_login {
            let mut flags = String::new();
            if account != "default" {
                flags.push_str(&format!("--account {} ", shell_word(account)));
            }
            if (step_up.is_some() || self.opts.scope.is_some()) && !scopes.is_empty() {
                flags.push_str(&format!("--scope {} ", shell_word(&scopes.join(" "))));
            }
            format!(
                "run \"ahp-elicit auth login {flags}{}\" at a terminal (or pass --browser CMD)",
                self.mcp_url
            )
        } else {
            "run this at a terminal, or pass --browser CMD".to_owned()
        };
        let needs = match step_up {
            Some(s) => s.sentence(&self.mcp_url),
            None => format!("{} needs a sign-in", self.mcp_url),
        };
        AuthError(format!(
            "{needs}: {how}; {}{}",
            self.opts.no_opener_reason,
            self.other_accounts_hint(resource)
        ))
    }

    /// When no sign-in is stored for this run's account but some are for
    /// others (same MCP URL or resource): `; a sign-in is stored for
    /// account NAME (pass --account NAME)`; else empty.
    fn other_accounts_hint(&self, resource: &str) -> String {
        let Ok(Ok(all)) = self.opts.store.as_ref().map(|s| s.all()) else {
            return String::new();
        };
        let mut names: Vec<&str> = all
            .iter()
            .filter(|s| s.mcp_url == self.mcp_url || s.key.resource == resource)
            .map(|s| s.key.account.as_str())
            .collect();
        names.sort_unstable();
        names.dedup();
        if names.contains(&self.opts.account.as_str()) {
            return String::new();
        }
        accounts_hint(&names)
    }

    /// The client identity at this server, in the specification's order.
    fn client_identity(
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
                    return Err(AuthError(format!(
                        "the client id given with --client-id was used at {first}, but the server now names {}: not sending it there",
                        meta.issuer
                    )))
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
            return Err(AuthError(format!(
                "{} offers no dynamic registration{}: give a client id with --client-id (and --client-secret env:VAR){}",
                meta.issuer,
                if meta.client_id_metadata_document_supported { "" } else { " and no client metadata documents" },
                if meta.client_id_metadata_document_supported { " or --client-metadata-url URL" } else { "" }
            )));
        };
        self.register(meta, endpoint, redirect_uri)
    }

    /// Dynamic Client Registration (RFC 7591) at `endpoint`, kept in the
    /// store for the issuer.
    ///
    /// Errors: the endpoint is not https, the request fails or is refused,
    /// or the answer gives no `client_id`.
    fn register(
        &self,
        meta: &ServerMetadata,
        endpoint: &str,
        redirect_uri: &str,
    ) -> Result<ClientRegistration, AuthError> {
        let supported = meta.token_endpoint_auth_methods_supported.as_deref();
        if !endpoint_allowed(endpoint) {
            return Err(AuthError(format!(
                "the registration endpoint of {} is not https",
                meta.issuer
            )));
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
            .agent
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
            return Err(AuthError(format!(
                "registration at {} was refused: {why}",
                meta.issuer
            )));
        }
        let v = json_answer(ask, &answer)?;
        let client_id = v
            .get("client_id")
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
            .ok_or_else(|| {
                AuthError(format!("registration at {} gave no client_id", meta.issuer))
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
}

/// The tokens a refresh's answer (`body`) gives: a refresh without a new
/// refresh token keeps the old one (RFC 6749 §6), and without a scope
/// keeps the grant of `old`.
///
/// Errors: the answer cannot be read or taken.
fn refreshed(
    meta: &ServerMetadata,
    old: &Tokens,
    refresh: Secret,
    body: &[u8],
) -> Result<Tokens, AuthError> {
    let v = json_answer(
        Ask {
            what: "the refresh's token answer",
            url: &meta.token_endpoint,
        },
        body,
    )?;
    let mut t = read_tokens(
        &v,
        (&meta.issuer, &meta.token_endpoint),
        &old.scopes_requested,
        now(),
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
fn due(t: &Tokens) -> bool {
    due_at(t, now())
}

fn due_at(t: &Tokens, now: SystemTime) -> bool {
    t.expires_at.is_some_and(|at| {
        let life = at.duration_since(t.obtained_at).unwrap_or_default();
        at <= now + REFRESH_MARGIN.min(life / 2)
    })
}

/// Whether an access token has expired.
fn expired(t: &Tokens) -> bool {
    t.expires_at.is_some_and(|at| at <= now())
}

/// The host of a URL, for messages (empty when it has none).
fn host_of(url: &str) -> String {
    url::Url::parse(url)
        .ok()
        .and_then(|u| u.host_str().map(str::to_owned))
        .unwrap_or_default()
}

/// The port of a loopback redirect URI, for messages.
fn loopback_port(redirect_uri: &str) -> String {
    redirect_uri
        .rsplit_once(':')
        .map(|(_, r)| r.split('/').next().unwrap_or("").to_owned())
        .unwrap_or_default()
}

/// `; a sign-in is stored for account NAME (pass --account NAME)` (or
/// `for accounts A, B (pass --account NAME)`), empty for no names; the
/// names made safe for a terminal.
pub fn accounts_hint(names: &[&str]) -> String {
    let shown: Vec<String> = names
        .iter()
        .map(|n| crate::safe_text::display(n).into_owned())
        .collect();
    match shown.as_slice() {
        [] => String::new(),
        [one] => format!("; a sign-in is stored for account {one} (pass --account {one})"),
        many => format!(
            "; sign-ins are stored for accounts {} (pass --account NAME)",
            many.join(", ")
        ),
    }
}

/// Add the client's authentication to a token request: `client_id` (and
/// `client_secret` for `client_secret_post`) in the form, or the Basic
/// header it returns.
fn client_auth(
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

/// One thing asked of an authorization server (or of the resource), for
/// the errors: `what` in words ("the protected resource metadata") and
/// where.
#[derive(Clone, Copy)]
struct Ask<'a> {
    what: &'a str,
    url: &'a str,
}

/// Read an answer as JSON.
///
/// Errors: nested deeper than the reader goes (128 levels), or not JSON,
/// each said as such.
fn json_answer(ask: Ask<'_>, body: &[u8]) -> Result<Value, AuthError> {
    let Ask { what, url } = ask;
    serde_json::from_slice(body).map_err(|e| {
        if e.to_string().starts_with("recursion limit exceeded") {
            AuthError(format!(
                "{what} at {url} is nested too deeply to read (over 128 levels)"
            ))
        } else {
            AuthError(format!("{what} at {url} is not JSON"))
        }
    })
}

/// Why an authorization server refused a request, in one line: its
/// RFC 6749 `error` and `error_description` (`invalid_grant: …`), or the
/// HTTP status when the body carries none. Never the rest of the body.
fn refusal(status: u16, body: &[u8]) -> String {
    match oauth_error(body) {
        Some((e, Some(d))) => format!("{e}: {d}"),
        Some((e, None)) => e,
        None => format!("HTTP {status}"),
    }
}

/// Registers a sign-in's credentials (access and refresh token, a
/// registered client's secret) for redaction, so that a server or an
/// authorization server that quotes one back never has it shown on stderr,
/// in `--log` or in `--events` ([`crate::redact::register_secret`]).
fn remember(s: &SignIn) {
    crate::redact::register_secret(s.tokens.access_token.expose());
    if let Some(r) = &s.tokens.refresh_token {
        crate::redact::register_secret(r.expose());
    }
    if let Some(c) = &s.client.client_secret {
        crate::redact::register_secret(c.expose());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read;

    fn client(method: &str) -> ClientRegistration {
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
    fn a_request_without_an_answer_in_time_names_its_step_url_and_limit() {
        let a = Authorizer::new(
            "http://127.0.0.1:9/mcp",
            AuthOptions::new(Ok(Arc::new(super::super::store::MemoryStore::default()))),
        );
        let ask = Ask {
            what: "the protected resource metadata",
            url: "http://127.0.0.1:9/prm",
        };
        assert_eq!(
            a.trouble(ask, ureq::Error::Timeout(ureq::Timeout::Global))
                .0,
            "no answer from http://127.0.0.1:9/prm (the protected resource metadata) within 30 s"
        );
        assert_eq!(
            a.trouble(ask, ureq::Error::BodyExceedsLimit(1)).0,
            "the protected resource metadata at http://127.0.0.1:9/prm is larger than 1 MiB: not read"
        );
        assert_eq!(
            json_answer(ask, b"[[1]").unwrap_err().0,
            "the protected resource metadata at http://127.0.0.1:9/prm is not JSON"
        );
    }

    #[test]
    fn a_cancelled_sign_in_names_the_server_escaped() {
        assert_eq!(
            cancelled("https://mcp.example.com/mcp"),
            "sign-in to https://mcp.example.com/mcp cancelled"
        );
        assert_eq!(
            cancelled("http://a.example/\u{1b}[2J"),
            "sign-in to http://a.example/\\u{1b}[2J cancelled"
        );
    }

    #[test]
    fn other_accounts_are_named_with_the_flag_to_pass() {
        assert_eq!(accounts_hint(&[]), "");
        assert_eq!(
            accounts_hint(&["work"]),
            "; a sign-in is stored for account work (pass --account work)"
        );
        assert_eq!(
            accounts_hint(&["home", "w\u{1b}[2Jork"]),
            "; sign-ins are stored for accounts home, w\\u{1b}[2Jork (pass --account NAME)"
        );
    }

    #[test]
    fn without_an_opener_no_flow_starts_and_the_error_names_auth_login() {
        let a = Authorizer::new(
            "http://127.0.0.1:9/mcp",
            AuthOptions::new(Ok(Arc::new(super::super::store::MemoryStore::default()))),
        );
        let mut g = a.lock().unwrap();
        let prm = ResourceMetadata {
            resource: "http://127.0.0.1:9/mcp".into(),
            authorization_servers: vec!["http://127.0.0.1:9".into()],
            scopes_supported: None,
        };
        let e = a
            .flow(&mut g, &prm, &ServerMetadata::default(), "", vec![], None)
            .unwrap_err();
        assert_eq!(
            e.0,
            "http://127.0.0.1:9/mcp needs a sign-in: run \"ahp-elicit auth login http://127.0.0.1:9/mcp\" at a terminal (or pass --browser CMD); this run cannot open a browser"
        );
        assert_eq!(g.flows, 0);
    }

    #[test]
    fn without_an_opener_a_step_up_names_the_access_and_the_scopes_to_sign_in_for() {
        let mut opts = AuthOptions::new(Ok(Arc::new(super::super::store::MemoryStore::default())));
        opts.account = "work team".into();
        let a = Authorizer::new("http://127.0.0.1:9/mcp", opts);
        let mut g = a.lock().unwrap();
        let prm = ResourceMetadata {
            resource: "http://127.0.0.1:9/mcp".into(),
            authorization_servers: vec!["http://127.0.0.1:9".into()],
            scopes_supported: None,
        };
        let request = RequestName {
            method: "tools/call".into(),
            tool: Some("admin_reset".into()),
        };
        let (adds, has) = (vec!["admin".to_owned()], vec!["read".to_owned()]);
        let step = StepUp {
            adds: &adds,
            has: &has,
            request: Some(&request),
        };
        let scopes = vec!["read".to_owned(), "admin".to_owned()];
        let e = a
            .flow(
                &mut g,
                &prm,
                &ServerMetadata::default(),
                "",
                scopes,
                Some(step),
            )
            .unwrap_err();
        assert_eq!(
            e.0,
            "tools/call admin_reset needs more access: scope admin (you have: read): run \"ahp-elicit auth login --account 'work team' --scope 'read admin' http://127.0.0.1:9/mcp\" at a terminal (or pass --browser CMD); this run cannot open a browser"
        );
        assert_eq!(g.flows, 0);
    }

    #[test]
    fn shell_words_are_quoted_only_when_a_shell_would_split_or_read_them() {
        assert_eq!(shell_word("read"), "read");
        assert_eq!(shell_word("mcp:tools.read"), "mcp:tools.read");
        assert_eq!(shell_word("read admin"), "'read admin'");
        assert_eq!(shell_word("it's"), "'it'\\''s'");
        assert_eq!(shell_word("$HOME"), "'$HOME'");
        assert_eq!(shell_word(""), "''");
    }

    /// A tiny authorization server on 127.0.0.1 for the tests: `route`
    /// answers (method, target, body) with a status and a JSON body; every
    /// request is recorded.
    struct FakeAs {
        base: String,
        seen: Arc<Mutex<Vec<(String, String, String)>>>,
    }

    fn fake_as(route: impl Fn(&str, &str, &str, &str) -> (u16, String) + Send + 'static) -> FakeAs {
        use std::io::Write;
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let base = format!("http://127.0.0.1:{}", l.local_addr().unwrap().port());
        let seen = Arc::new(Mutex::new(Vec::new()));
        let (b, rec) = (base.clone(), Arc::clone(&seen));
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
                let (status, answer) = route(&b, &m, &t, &body);
                let _ = write!(
                    c,
                    "HTTP/1.1 {status} X\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{answer}",
                    answer.len()
                );
            }
        });
        FakeAs { base, seen }
    }

    fn metadata(base: &str) -> String {
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

    fn stored(base: &str, expires_in: i64, scopes: &[&str]) -> SignIn {
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
        }
    }

    fn authorizer(
        base: &str,
        store: Arc<super::super::store::MemoryStore>,
    ) -> (Authorizer, crate::notice::Collected) {
        let (notices, said) = Notices::collect();
        let mut o = AuthOptions::new(Ok(store));
        o.notices = notices;
        (Authorizer::new(&format!("{base}/mcp"), o), said)
    }

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
        let store = Arc::new(super::super::store::MemoryStore::default());
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
        let store = Arc::new(super::super::store::MemoryStore::default());
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
            e.0.contains("needs a sign-in: run \"ahp-elicit auth login"),
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
    fn step_up_signs_in_again_for_the_union_of_scopes() {
        let fake = fake_as(|base, m, t, _| match (m, t) {
            ("GET", "/.well-known/oauth-protected-resource/mcp") => (
                200,
                json!({"resource": format!("{base}/mcp"), "authorization_servers": [base]})
                    .to_string(),
            ),
            ("GET", "/.well-known/oauth-authorization-server") => (200, metadata(base)),
            ("POST", "/register") => (201, r#"{"client_id":"new-client"}"#.into()),
            ("POST", "/token") => (
                200,
                r#"{"access_token":"a3","token_type":"bearer","scope":"a b"}"#.into(),
            ),
            _ => (404, "{}".into()),
        });
        let store = Arc::new(super::super::store::MemoryStore::default());
        store.save(&stored(&fake.base, 3600, &["a"])).unwrap();
        let (mut a, _) = authorizer(&fake.base, Arc::clone(&store));
        let urls = Arc::new(Mutex::new(Vec::new()));
        let rec = Arc::clone(&urls);
        // A browser that the authorization server redirects at once.
        a.opts.opener = Some(Arc::new(move |url: &str| {
            rec.lock().unwrap().push(url.to_owned());
            let u = url::Url::parse(url).unwrap();
            let q: std::collections::HashMap<String, String> =
                u.query_pairs().into_owned().collect();
            let back = format!("{}?code=c1&state={}", q["redirect_uri"], q["state"]);
            std::thread::spawn(move || {
                let _ = ureq::get(&back).call();
            });
            Ok(())
        }));
        a.opts.opener_name = "a test".into();
        // A pinned callback port is the one in the redirect URI.
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        a.opts.callback_port = Some(port);
        let (generation, _) = a.header();
        let challenge = BearerChallenge {
            error: Some("insufficient_scope".into()),
            scope: Some(vec!["b".into()]),
            ..BearerChallenge::default()
        };
        a.authorize(&Unauthorized {
            status: 403,
            challenge: Some(challenge.clone()),
            generation,
            request: None,
        })
        .unwrap();
        let asked = urls.lock().unwrap()[0].clone();
        assert!(asked.contains("&scope=a+b&"), "{asked}");
        assert!(asked.contains("client_id=new-client"), "{asked}");
        assert!(
            asked.contains(&format!(
                "redirect_uri=http%3A%2F%2F127.0.0.1%3A{port}%2Fcallback"
            )),
            "{asked}"
        );
        assert_eq!(a.header(), (generation + 1, Some("Bearer a3".into())));
        // The same challenge again adds nothing: refused, no new flow.
        let e = a
            .authorize(&Unauthorized {
                status: 403,
                challenge: Some(challenge),
                generation: generation + 1,
                request: None,
            })
            .unwrap_err();
        assert!(
            e.0.ends_with("refused the request for lack of access (b), which the token in use has already: not signing in again"),
            "{e}"
        );
        assert_eq!(urls.lock().unwrap().len(), 1);
    }

    fn prm_and_metadata(base: &str, m: &str, t: &str) -> Option<(u16, String)> {
        match (m, t) {
            ("GET", "/.well-known/oauth-protected-resource/mcp") => Some((
                200,
                json!({"resource": format!("{base}/mcp"), "authorization_servers": [base]})
                    .to_string(),
            )),
            ("GET", "/.well-known/oauth-authorization-server") => Some((200, metadata(base))),
            _ => None,
        }
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
            Arc::new(super::super::file_store::FileStore::open(dir.path()).unwrap())
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
    fn after_a_401_a_sign_in_stored_by_another_run_is_used_without_a_flow() {
        let fake =
            fake_as(|base, m, t, _| prm_and_metadata(base, m, t).unwrap_or((404, "{}".into())));
        let store = Arc::new(super::super::store::MemoryStore::default());
        // No opener: a flow would fail.
        let (a, said) = authorizer(&fake.base, Arc::clone(&store));
        assert!(!a.signed_in());
        // Another run signs in meanwhile, for another spelling of the URL.
        let mut other = stored(&fake.base, 3600, &["a"]);
        other.mcp_url = format!("{}/mcp?from=elsewhere", fake.base);
        other.tokens.access_token = Secret::new("stored-access-token-of-another-run");
        store.save(&other).unwrap();
        a.authorize(&Unauthorized {
            status: 401,
            challenge: None,
            generation: 0,
            request: None,
        })
        .unwrap();
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
        assert!(e.0.contains("needs a sign-in: run"), "{e}");
    }

    #[test]
    fn a_stored_sign_in_at_an_issuer_the_server_no_longer_names_is_dropped() {
        let fake =
            fake_as(|base, m, t, _| prm_and_metadata(base, m, t).unwrap_or((404, "{}".into())));
        let store = Arc::new(super::super::store::MemoryStore::default());
        let (a, said) = authorizer(&fake.base, Arc::clone(&store));
        assert!(!a.signed_in());
        let mut old = stored(&fake.base, 3600, &["a"]);
        old.key.issuer = "https://old-issuer.example".into();
        old.mcp_url = "elsewhere".into();
        store.save(&old).unwrap();
        let e = a
            .authorize(&Unauthorized {
                status: 401,
                challenge: None,
                generation: 0,
                request: None,
            })
            .unwrap_err();
        assert!(e.0.contains("needs a sign-in: run"), "{e}");
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
            let store = Arc::new(super::super::store::MemoryStore::default());
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
            let e = a
                .authorize(&Unauthorized {
                    status: 401,
                    challenge: None,
                    generation: 0,
                    request: None,
                })
                .unwrap_err();
            assert_eq!(
                e.to_string(),
                "http://mcp.example.com/mcp asks for a sign-in, but over plain http:// to mcp.example.com its token would be readable on the way: not signing in there; use https://, or pass --allow-insecure-http"
            );
        }
        // This machine is fine without the flag.
        let store = Arc::new(super::super::store::MemoryStore::default());
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
        let store = Arc::new(super::super::store::MemoryStore::default());
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
            let e = a
                .authorize(&Unauthorized {
                    status: 401,
                    challenge: None,
                    generation: 0,
                    request: None,
                })
                .unwrap_err();
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
    }

    #[test]
    fn a_stored_sign_in_removed_by_another_run_is_not_refreshed() {
        let fake =
            fake_as(|base, m, t, _| prm_and_metadata(base, m, t).unwrap_or((404, "{}".into())));
        let store = Arc::new(super::super::store::MemoryStore::default());
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
        assert!(said
            .texts()
            .iter()
            .any(|t| t.contains("was removed from the store; signing in again")));
    }

    /// A browser that the authorization server redirects at once; every
    /// authorization URL is recorded.
    fn redirecting_opener(urls: &Arc<Mutex<Vec<String>>>) -> Opener {
        let rec = Arc::clone(urls);
        Arc::new(move |url: &str| {
            rec.lock().unwrap().push(url.to_owned());
            let u = url::Url::parse(url).unwrap();
            let q: std::collections::HashMap<String, String> =
                u.query_pairs().into_owned().collect();
            let back = format!("{}?code=c1&state={}", q["redirect_uri"], q["state"]);
            std::thread::spawn(move || {
                let _ = ureq::get(&back).call();
            });
            Ok(())
        })
    }

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
        let store = Arc::new(super::super::store::MemoryStore::default());
        let (mut a, _) = authorizer(&fake.base, store);
        let urls = Arc::new(Mutex::new(Vec::new()));
        a.opts.opener = Some(redirecting_opener(&urls));
        a.opts.opener_name = "a test".into();
        let e = a
            .authorize(&Unauthorized {
                status: 401,
                challenge: None,
                generation: 0,
                request: None,
            })
            .unwrap_err();
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
        assert!(e.0.contains(&verifier), "the server did echo it: {}", e.0);
        let shown = crate::redact::redact_secrets(&e.0);
        for secret in [
            verifier.as_str(),
            "CLIENTSECRET-abcdefgh123",
            state.as_str(),
        ] {
            assert!(!shown.contains(secret), "{secret} in {shown}");
        }
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
            let store = Arc::new(super::super::store::MemoryStore::default());
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
        let sign_in = |store: &Arc<super::super::store::MemoryStore>| {
            let (mut a, _) = authorizer(&fake.base, Arc::clone(store));
            let urls = Arc::new(Mutex::new(Vec::new()));
            a.opts.opener = Some(redirecting_opener(&urls));
            a.opts.opener_name = "a test".into();
            a.authorize(&Unauthorized {
                status: 401,
                challenge: None,
                generation: 0,
                request: None,
            })
            .unwrap();
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
