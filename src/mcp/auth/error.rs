//! Why signing in failed: [`AuthError`], one variant per thing that went
//! wrong, each keeping its cause.

use std::time::Duration;

use super::authorizer::MAX_FLOWS;
use super::discovery::DiscoveryError;
use super::flow::{CallbackError, FlowError};
use super::http::MAX_ANSWER_BYTES;
use super::jose::JoseError;
use super::listener::ListenerError;
use super::step_up::RequestName;
use super::store::StoreError;
use super::unattended::GrantError;
use crate::responder::lines::{cancelled, SignInError};

/// Why signing in failed. Each variant names the step that failed and
/// keeps its cause ([`std::error::Error::source`]); its message is one
/// sentence naming the step and the fix (it may quote a server: sanitized
/// when shown; never a secret). The command exits 3.
#[derive(Debug, thiserror::Error)]
pub enum AuthError {
    /// A thread panicked while it held the sign-in state.
    #[error("the sign-in state was poisoned by a panic")]
    Poisoned,
    /// The MCP server is on another machine over plain `http://` and
    /// `--allow-insecure-http` was not given: its token would be readable
    /// on the way, so no sign-in is made there.
    #[error("{mcp_url} asks for a sign-in, but over plain http:// to {host} its token would be readable on the way: not signing in there; use https://, or pass --allow-insecure-http")]
    InsecureHttp {
        /// The MCP server's URL.
        mcp_url: String,
        /// Its host.
        host: String,
    },
    /// A sign-in is needed and there is no store to keep it in (`source`
    /// says why: no state directory, or not on Unix).
    #[error("{mcp_url} needs a sign-in, but {source}")]
    NoStore {
        /// The MCP server's URL.
        mcp_url: String,
        /// Why there is no store.
        #[source]
        source: StoreError,
    },
    /// The store failed while a refresh held its lock (taking the lock,
    /// or reading the sign-in again under it).
    #[error(transparent)]
    Store(#[from] StoreError),
    /// An address to ask for metadata could not be made (the MCP URL or
    /// the issuer is not one to sign in at), or the authorization server's
    /// metadata lacks what a sign-in needs (S256, the code flow, https).
    #[error(transparent)]
    Discovery(#[from] DiscoveryError),
    /// A metadata document was read but cannot be used (a field missing).
    #[error("{what} at {url} cannot be used: {source}")]
    UnusableMetadata {
        /// Which document: `the protected resource metadata`, `the
        /// authorization server metadata`.
        what: &'static str,
        /// Where it was read.
        url: String,
        /// What is wrong with it.
        #[source]
        source: DiscoveryError,
    },
    /// The Protected Resource Metadata is for another resource.
    #[error("the metadata of {mcp_url} says it is for {resource}: refusing to sign in")]
    WrongResource {
        /// The MCP server's URL.
        mcp_url: String,
        /// The `resource` the metadata names.
        resource: String,
    },
    /// The Protected Resource Metadata names this same server by another
    /// loopback name (`localhost` for `127.0.0.1`, or the reverse): the
    /// run was given a URL the server does not sign in for; `resource` is
    /// the one to use.
    #[error("the metadata of {mcp_url} says it is for {resource}, the same server by another name: refusing to sign in; the server calls itself {resource}: run with that URL")]
    OtherLoopbackName {
        /// The MCP server's URL, as given.
        mcp_url: String,
        /// The `resource` the metadata names.
        resource: String,
    },
    /// The challenge names Protected Resource Metadata that cannot be
    /// reached (no name lookup, no connection): nothing says where to
    /// sign in.
    #[error("{mcp_url} asks for a sign-in, but the protected resource metadata its challenge names, {url}, cannot be reached ({source}): it cannot be signed in to automatically; with a token it takes, pass --header 'Authorization: env:VAR' (VAR holding \"Bearer TOKEN\")")]
    ResourceMetadataUnreachable {
        /// The MCP server's URL.
        mcp_url: String,
        /// The challenge's `resource_metadata`, cut for the message.
        url: String,
        /// The HTTP client's error.
        #[source]
        source: ureq::Error,
    },
    /// No Protected Resource Metadata at any address tried: the server
    /// cannot be signed in to automatically.
    #[error(
        "{mcp_url} asks for a sign-in but publishes no protected resource metadata (tried {}{}): it cannot be signed in to automatically; with a token it takes, pass --header 'Authorization: env:VAR' (VAR holding \"Bearer TOKEN\")",
        .tried.join(" and "),
        .not_asked.as_ref().map(|(url, why)| format!("; not asked: the resource_metadata its challenge names, \"{url}\", {why}")).unwrap_or_default()
    )]
    NoResourceMetadata {
        /// The MCP server's URL.
        mcp_url: String,
        /// The addresses asked, in order.
        tried: Vec<String>,
        /// The challenge's `resource_metadata` that was not asked, cut for
        /// the message, and why it was not.
        not_asked: Option<(String, NotAsked)>,
    },
    /// The authorization server's metadata names another issuer.
    #[error("the authorization server metadata at {url} says it is \"{says}\", not \"{issuer}\": refusing to use it")]
    WrongIssuer {
        /// Where the metadata was read.
        url: String,
        /// The `issuer` it names.
        says: String,
        /// The issuer asked for.
        issuer: String,
    },
    /// No authorization server metadata at any address tried.
    #[error("no authorization server metadata for {issuer} (tried {tried} addresses)")]
    NoServerMetadata {
        /// The issuer.
        issuer: String,
        /// How many addresses were asked.
        tried: usize,
    },
    /// A request of the sign-in got no answer within its limit.
    #[error(
        "no answer from {url} ({what}) within {}{}",
        crate::mcp::seconds(.limit),
        .flag.map(|f| format!(" ({f})")).unwrap_or_default()
    )]
    NoAnswer {
        /// What was asked for, in words (`the token answer`).
        what: &'static str,
        /// Where.
        url: String,
        /// The limit (`--connect-timeout`, else 30 s).
        limit: Duration,
        /// The flag that set the limit, when one did.
        flag: Option<&'static str>,
    },
    /// An answer was larger than a sign-in reads.
    #[error("{what} at {url} is larger than {} MiB: not read", MAX_ANSWER_BYTES / (1024 * 1024))]
    TooLarge {
        /// What was asked for, in words.
        what: &'static str,
        /// Where.
        url: String,
    },
    /// A request of the sign-in failed (no connection, a broken answer).
    #[error("{what}: {url}: {source}")]
    Request {
        /// What was asked for, in words.
        what: &'static str,
        /// Where.
        url: String,
        /// The HTTP client's error.
        #[source]
        source: ureq::Error,
    },
    /// An answer is nested deeper than the reader goes (128 levels).
    #[error("{what} at {url} is nested too deeply to read (over 128 levels)")]
    TooDeep {
        /// What was asked for, in words.
        what: &'static str,
        /// Where.
        url: String,
    },
    /// An answer is not JSON.
    #[error("{what} at {url} is not JSON")]
    NotJson {
        /// What was asked for, in words.
        what: &'static str,
        /// Where.
        url: String,
        /// The reader's error.
        #[source]
        source: serde_json::Error,
    },
    /// This run started [`MAX_FLOWS`] sign-ins and the server still
    /// refuses the tokens.
    #[error("gave up signing in to {mcp_url} after {MAX_FLOWS} sign-ins in this run (the server keeps refusing the tokens)")]
    TooManySignIns {
        /// The MCP server's URL.
        mcp_url: String,
    },
    /// A step-up that would ask for nothing new: not signed in again.
    #[error(
        "{mcp_url} refused {} for lack of access ({}), {why}: not signing in again",
        .request.as_ref().map_or_else(|| "the request".to_owned(), ToString::to_string),
        if .asked.is_empty() { "no scope named".to_owned() } else { .asked.join(" ") }
    )]
    NothingNewToAsk {
        /// The MCP server's URL.
        mcp_url: String,
        /// The request refused, when known.
        request: Option<RequestName>,
        /// The scopes the refusal names.
        asked: Vec<String>,
        /// Why asking again would not help.
        why: NothingNew,
    },
    /// A sign-in is needed and this run has neither a screen nor an
    /// opener to show it: `needs` (a sign-in, or the access a step-up
    /// names), `how` (the command to sign in with), `reason` (why this run
    /// cannot) and `others` (the accounts signed in, when not this one).
    #[error("{needs}: {how}; {reason}{others}")]
    NoWayToSignIn {
        /// Whether it is a step-up's (`needs` names the request refused).
        step_up: bool,
        /// What is needed: `URL needs a sign-in`, or a step-up's sentence.
        needs: String,
        /// What to do: the `auth login` command (or `--browser CMD`).
        how: String,
        /// Why this run cannot show the sign-in.
        reason: String,
        /// `; a sign-in is stored for account NAME (…)`, or empty.
        others: String,
    },
    /// `--callback-port` cannot be bound.
    #[error("{source}: choose another with --callback-port or leave it out")]
    CallbackPort {
        /// Why.
        #[source]
        source: ListenerError,
    },
    /// No loopback port could be bound for the browser's return.
    #[error(transparent)]
    Listener(ListenerError),
    /// The person cancelled the sign-in (at its screen, by Control-C while
    /// it waited, or by an ending signal).
    #[error("{}", cancelled(.mcp_url))]
    Cancelled {
        /// The MCP server's URL.
        mcp_url: String,
    },
    /// The sign-in screen could not show the sign-in, or refused the
    /// authorization URL.
    #[error(transparent)]
    Screen(SignInError),
    /// The opener (`--browser CMD`, the system browser) could not open
    /// the authorization URL.
    #[error("opening the authorization URL failed: {}", .source.to_string().trim_end_matches('.'))]
    Open {
        /// Why.
        #[source]
        source: SignInError,
    },
    /// The browser did not come back within `--auth-timeout`.
    #[error(
        "no answer from the browser within {} (the sign-in page was not completed, or it could not reach {listening})",
        humantime::format_duration(*.wait)
    )]
    BrowserTimeout {
        /// `--auth-timeout`.
        wait: Duration,
        /// Where the browser was to come back: `127.0.0.1:PORT`.
        listening: String,
    },
    /// The browser came back with an answer the sign-in refuses (an
    /// error from the authorization server, a wrong `state` or `iss`).
    #[error(transparent)]
    Callback(#[from] CallbackError),
    /// The browser never came back to a sign-in with a client
    /// registration kept from an earlier run: the authorization server
    /// may no longer know it (it restarted, and its page says
    /// `invalid_client`). The registration is forgotten, so the next
    /// sign-in registers again.
    #[error("{source}; the client registration kept for {issuer} was used and is now forgotten: if that authorization server no longer knows it (it restarted), the next sign-in registers again")]
    KeptClient {
        /// The authorization server's issuer.
        issuer: String,
        /// How the sign-in failed.
        #[source]
        source: Box<AuthError>,
    },
    /// The authorization endpoint refused a client registration kept from
    /// an earlier run (the browser command failed on its error page, or
    /// the browser came back with `invalid_client`): it is forgotten, and
    /// the run registers again once.
    #[error("{source}; the client registration kept for {issuer} may be unknown there (it restarted) and is forgotten")]
    KeptClientRefused {
        /// The authorization server's issuer.
        issuer: String,
        /// How the sign-in failed.
        #[source]
        source: Box<AuthError>,
    },
    /// The token endpoint refused the code.
    #[error(
        "token request to {issuer} failed: {why}{}",
        if *.forgot { "; the client registration kept there is forgotten" } else { "" }
    )]
    TokenRefused {
        /// The authorization server's issuer.
        issuer: String,
        /// Its `error: error_description`, or the HTTP status.
        why: String,
        /// Whether the refusal made the kept client registration
        /// forgotten (the next sign-in registers again).
        forgot: bool,
    },
    /// The token answer cannot be taken, or no random bytes for PKCE.
    #[error(transparent)]
    Flow(#[from] FlowError),
    /// A sign-in without a person (`--grant`) failed: a secret unreadable
    /// at its use, a grant the authorization server does not offer, or a
    /// token request refused (its `error` kept:
    /// [`super::unattended::Refusal`]). Nothing is retried.
    #[error(transparent)]
    Grant(#[from] GrantError),
    /// A DPoP key could not be made or read, or a proof not signed.
    #[error("{what} for the sign-in to {mcp_url} failed: {source}; if it persists, run \"ahp-elicit auth logout {mcp_url}\" and sign in again")]
    Dpop {
        /// The step: `making the DPoP key pair`, ...
        what: &'static str,
        /// The MCP server's URL.
        mcp_url: String,
        /// Why (never the key's bytes).
        #[source]
        source: JoseError,
    },
    /// The token endpoint answered a request without a DPoP proof with a
    /// DPoP-bound token (RFC 9449 §5 has it issue a Bearer token then):
    /// there is no key to use it with.
    #[error("the token endpoint {endpoint} of {issuer} issued a DPoP-bound token to a request without a DPoP proof (its metadata offers no DPoP with ES256): it cannot be used; the authorization server is at fault")]
    DpopNotAsked {
        /// The issuer.
        issuer: String,
        /// The token endpoint that answered.
        endpoint: String,
    },
    /// The server names another authorization server than the one
    /// `--client-id` was first used with.
    #[error("the client id given with --client-id was used at {first}, but the server now names {issuer}: not sending it there")]
    ClientIdElsewhere {
        /// Where the client id was used first.
        first: String,
        /// The issuer named now.
        issuer: String,
    },
    /// The `--client-id` given was used at another issuer by an earlier
    /// run (a sign-in stored with it), and the server now names another:
    /// the id is not sent there.
    #[error("the client id given with --client-id was used at {first} (a sign-in stored by an earlier run), but {mcp_url} now names {issuer}: not sending it there; give the client id registered at {issuer}, or if the move is expected run \"ahp-elicit auth logout {mcp_url}\" and sign in again")]
    ClientIdBound {
        /// The issuer of the stored sign-in that used the id.
        first: String,
        /// The MCP server's URL.
        mcp_url: String,
        /// The issuer the server names now.
        issuer: String,
    },
    /// No way to get a client identity at the authorization server.
    #[error(
        "{issuer} offers no dynamic registration{}: give a client id with --client-id (and --client-secret env:VAR){}",
        if *.metadata_documents { "" } else { " and no client metadata documents" },
        if *.metadata_documents { " or --client-metadata-url URL" } else { "" }
    )]
    NoRegistration {
        /// The authorization server's issuer.
        issuer: String,
        /// Whether it takes Client ID Metadata Documents.
        metadata_documents: bool,
    },
    /// The registration endpoint is not https (nor http on this machine).
    #[error("the registration endpoint of {issuer} is not https")]
    RegistrationNotHttps {
        /// The authorization server's issuer.
        issuer: String,
    },
    /// Dynamic Client Registration was refused.
    #[error("registration at {issuer} was refused: {why}")]
    RegistrationRefused {
        /// The authorization server's issuer.
        issuer: String,
        /// Its `error: error_description`, or the HTTP status.
        why: String,
    },
    /// Dynamic Client Registration refused the redirect URI
    /// (`invalid_redirect_uri`): named, with the flags that change it.
    #[error("registration at {issuer} was refused: {why}; the redirect URI sent was {redirect_uri}: if the authorization server takes only some, choose the port with --callback-port PORT, or give a client id registered there with --client-id")]
    RedirectUriRefused {
        /// The authorization server's issuer.
        issuer: String,
        /// Its `error: error_description`.
        why: String,
        /// The redirect URI the registration sent.
        redirect_uri: String,
    },
    /// The registration answer gave no `client_id`.
    #[error("registration at {issuer} gave no client_id")]
    NoClientId {
        /// The authorization server's issuer.
        issuer: String,
    },
    /// The server refused the request again after every sign-in this
    /// request may start.
    #[error(
        "{url} still refuses the request with HTTP {status} after signing in {tries} times{}",
        .asks.as_ref().map(|s| format!(" (it asks for {})", s.join(" "))).unwrap_or_default()
    )]
    StillRefused {
        /// The MCP endpoint.
        url: String,
        /// 401 or 403.
        status: u16,
        /// How many sign-ins were tried.
        tries: usize,
        /// The scopes the last refusal's challenge names, if any.
        asks: Option<Vec<String>>,
    },
}

impl AuthError {
    /// Whether the error is about the request that met it, not about a
    /// step of signing in: a refusal after every sign-in, or a step-up
    /// that names the request. Those are said after the request's name;
    /// the others after the sign-in's (`signing in to URL: …`).
    pub fn about_request(&self) -> bool {
        match self {
            Self::StillRefused { .. } => true,
            Self::NothingNewToAsk { request, .. } => request.is_some(),
            Self::NoWayToSignIn { step_up, .. } => *step_up,
            _ => false,
        }
    }

    /// The error of a sign-in screen: the person cancelling is
    /// [`AuthError::Cancelled`], anything else [`AuthError::Screen`].
    pub fn of_screen(e: SignInError) -> Self {
        match e {
            SignInError::Cancelled { mcp_url } => Self::Cancelled { mcp_url },
            e => Self::Screen(e),
        }
    }
}

/// Why a step-up that asks for nothing new is refused
/// ([`AuthError::NothingNewToAsk`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum NothingNew {
    /// The refusal names no scope.
    #[error("so there is nothing to ask for")]
    NoScopeNamed,
    /// The token in use has every scope the refusal names.
    #[error("which the token in use has already")]
    Held,
    /// Those scopes were asked for before and not granted.
    #[error("which was asked for before and not granted")]
    NotGranted,
}

/// Why the `resource_metadata` a challenge names was not asked
/// ([`AuthError::NoResourceMetadata`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum NotAsked {
    /// It is neither https nor http on this machine.
    #[error("which is not https (nor http on this machine)")]
    NotHttps,
    /// It is on this machine (or its local link) and the server is not.
    #[error("which is on this machine (or its local link) while the server is not")]
    OnThisMachine,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cancelled_screen_is_a_cancelled_sign_in_and_other_screen_errors_are_kept() {
        let e = AuthError::of_screen(SignInError::Cancelled {
            mcp_url: "http://a.example/mcp".into(),
        });
        assert!(
            matches!(&e, AuthError::Cancelled { mcp_url } if mcp_url == "http://a.example/mcp")
        );
        assert_eq!(e.to_string(), "sign-in to http://a.example/mcp cancelled");
        let e = AuthError::of_screen(SignInError::NoTerminal);
        assert!(
            matches!(e, AuthError::Screen(SignInError::NoTerminal)),
            "{e:?}"
        );
        assert_eq!(e.to_string(), "no terminal to sign in on");
    }

    #[test]
    fn a_timeout_with_a_kept_client_keeps_the_failure_and_says_it_is_forgotten() {
        let e = AuthError::KeptClient {
            issuer: "http://as.example".into(),
            source: Box::new(AuthError::BrowserTimeout {
                wait: Duration::from_secs(300),
                listening: "127.0.0.1:4000".into(),
            }),
        };
        assert_eq!(
            e.to_string(),
            "no answer from the browser within 5m (the sign-in page was not completed, or it could not reach 127.0.0.1:4000); the client registration kept for http://as.example was used and is now forgotten: if that authorization server no longer knows it (it restarted), the next sign-in registers again"
        );
        let source = std::error::Error::source(&e).map(ToString::to_string);
        assert_eq!(
            source.as_deref(),
            Some("no answer from the browser within 5m (the sign-in page was not completed, or it could not reach 127.0.0.1:4000)")
        );
    }
}
