//! How a run signs in: the options the `mcp` and `auth login` flags set,
//! and the screen or opener that shows the authorization URL.

use std::sync::Arc;
use std::time::Duration;

use super::authorizer::*;
use super::listener::PasteBack;
use super::step_up::*;
use super::store::{Secret, Store, StoreError};
use crate::notice::Notices;

/// Default wait for the browser to come back (`--auth-timeout`).
pub const DEFAULT_WAIT: Duration = Duration::from_secs(300);

/// Default time for one request to an authorization server
/// ([`AuthOptions::request_timeout`]).
pub const REQUEST_TIMEOUT: Duration = Duration::from_secs(30);

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
    /// The session's desk, when a session asks ([`AuthOptions::desk`]):
    /// a terminal sign-in puts its question there, to the thread that
    /// answers the session's requests and holds the terminal.
    pub desk: Option<&'a crate::session::SignInDesk>,
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
    /// The sign-ins of the session this authorizer serves: whether one is
    /// under way (the session's clock stops), the one waiting for the
    /// browser (its screens show it) and its cancellation. Default: a
    /// state of its own (`auth login`, which has no session); a session
    /// gives its own ([`crate::session::Desk::sign_ins`]).
    pub sign_ins: Arc<crate::responder::sign_in::SignIns>,
    /// The session's desk, where a terminal sign-in puts its question
    /// ([`SignInRequest::desk`]); None outside a session.
    pub desk: Option<crate::session::SignInDesk>,
    /// `--allow-insecure-http`: a sign-in's token may be sent to an MCP
    /// server on another machine over plain `http://`. Without it such a
    /// server is never signed in to and a stored token is never sent to it
    /// ([`plain_http_host`](super::discovery::plain_http_host)). Default
    /// false.
    pub allow_insecure_http: bool,
    /// `--wait-for-sign-in DURATION`: with no way to sign in here (no
    /// terminal, no `--browser`), wait up to this long for a sign-in that
    /// someone stores with `ahp-elicit auth login` (another terminal,
    /// another process), the store read again every half second. None:
    /// fail at once.
    pub wait_for_sign_in: Option<Duration>,
    /// `auth login --force`: neither use nor renew a stored sign-in; a new
    /// one replaces it. Default false.
    pub force_new: bool,
    /// Whether the error of a run that cannot sign in offers
    /// `--browser CMD` as a way (not with `--stored-auth-only`, which
    /// refuses it). Default true.
    pub offer_browser: bool,
    /// `--grant` (or its environment variable, or the server's entry in
    /// the configuration file): sign in without a person, with this grant
    /// and [`Self::client`]'s credentials, instead of the browser flow.
    /// None: the browser flow. Never chosen by a server.
    pub unattended: Option<super::unattended::Unattended>,
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
            .field("unattended", &self.unattended)
            .finish_non_exhaustive()
    }
}

impl AuthOptions {
    /// Whether this run can start a sign-in of its own: a browser (the
    /// sign-in screen or an opener) or a grant without a person. False
    /// with `--stored-auth-only` and in a run with neither (which fails,
    /// or waits for one stored by another process).
    pub fn can_start_sign_in(&self) -> bool {
        self.screen.is_some() || self.opener.is_some() || self.unattended.is_some()
    }

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
            sign_ins: Arc::default(),
            desk: None,
            allow_insecure_http: false,
            wait_for_sign_in: None,
            force_new: false,
            offer_browser: true,
            unattended: None,
        }
    }
}
