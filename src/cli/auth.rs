//! `ahp-elicit auth`: signing in to remote MCP servers (`auth login`), the
//! sign-ins stored for them (`auth status`, alias `list`) and signing out
//! (`auth logout`), one function per subcommand; and the sign-in flags
//! `ahp-elicit mcp` and `auth login` share ([`AuthFlags`]), with how they
//! become the session's [`AuthOptions`].
//!
//! Without a terminal nothing is opened unless `--browser CMD` was given
//! (the command gets the authorization URL as its last argument): that
//! flag is the consent. Otherwise a server that asks for a sign-in ends the
//! run at once with exit 3 and the `auth login` command to run.
//!
//! The store is the one `--auth-store` names
//! ([`crate::mcp::auth::default_store`]): `keyring` the operating system's
//! keychain, `file` the `0600` files of the state directory
//! ([`crate::mcp::auth::file_store::default_dir`]), a directory the files
//! in it, `memory` this run only; by default the keychain when one answers,
//! else the files, both read. `auth status` says which store each sign-in
//! is in, and `auth move` moves them between the two. A sign-in is *for* a URL when its MCP URL or
//! its protected resource is that exact string. Nothing here prints a token
//! or a secret: only what the sign-in is for, when its access ends, whether
//! it can be renewed and where it is kept.
//!
//! Exit codes: 0 done; 1 no sign-in stored for the URL given (status,
//! logout); 2 usage, a connection error, a store file that is unsafe or
//! unreadable, or (login) an answer that is not an MCP server's; 3 the sign-in failed or could not start (login).

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use serde_json::{json, Value};

use crate::launcher::{CommandBrowser, Launcher};
use crate::mcp::auth::{self, AuthOptions, Authorizer, Opener, PreRegistered, Unauthorized};

use crate::mcp::auth::authorizer::SignInError;
use crate::mcp::auth::store::{SignIn, StoreError};
use crate::safe_text::display;

use super::Exit;

mod stores;
use stores::Held;
pub use stores::MoveArgs;

/// The sign-in flags of `mcp` and `auth login` (HTTP servers only).
#[derive(Debug, Clone, Default, clap::Args)]
#[command(next_help_heading = "Signing in (HTTP servers)")]
pub struct AuthFlags {
    /// Where sign-ins are kept: `keyring` (the operating system's
    /// keychain), `file` (0600 files in the state directory:
    /// $AHP_ELICIT_STATE_DIR, else $XDG_STATE_HOME/ahp-elicit, else
    /// ~/.local/state/ahp-elicit), a state directory, or `memory` (this run
    /// only: hermetic runs, tests). Default: the keychain when one answers,
    /// else the files; sign-ins are read from both.
    #[arg(long, value_name = "keyring|file|DIR|memory", display_order = 200)]
    pub auth_store: Option<String>,
    /// The account name a sign-in is kept under (several sign-ins to one
    /// server).
    #[arg(
        long,
        value_name = "NAME",
        default_value = "default",
        display_order = 201
    )]
    pub account: String,
    /// The scopes to ask for, space-separated, instead of those the server
    /// names (the authorization request's `scope`); a stored sign-in that
    /// lacks one of them is replaced by a new one that has them.
    #[arg(long, value_name = "SCOPES", display_order = 202)]
    pub scope: Option<String>,
    /// A client id registered beforehand at the authorization server.
    #[arg(long, value_name = "ID", display_order = 203)]
    pub client_id: Option<String>,
    /// The secret of --client-id: env:VAR or file:PATH (never the secret
    /// itself on the command line).
    /// (With --grant the id may come from AHP_ELICIT_CLIENT_ID or the
    /// configuration file.)
    #[arg(long, value_name = "env:VAR|file:PATH", display_order = 204)]
    pub client_secret: Option<String>,
    /// A Client ID Metadata Document URL (https) used as the client id
    /// where the authorization server takes them.
    #[arg(long, value_name = "URL", display_order = 205)]
    pub client_metadata_url: Option<String>,
    /// How long to wait for the browser to come back: seconds or a
    /// duration (`5m`).
    #[arg(long, value_name = "DURATION", default_value = "300", value_parser = super::parse_duration, display_order = 206)]
    pub auth_timeout: Duration,
    /// The port the browser comes back to, http://127.0.0.1:PORT/callback
    /// (for a client registered with that redirect URI); default: any free
    /// port.
    #[arg(long, value_name = "PORT", value_parser = clap::value_parser!(u16).range(1..), display_order = 207)]
    pub callback_port: Option<u16>,
    /// Signing in without a person (`--grant` and its credentials).
    #[command(flatten)]
    pub grant: Box<super::grant::GrantFlags>,
}

impl AuthFlags {
    /// Whether any sign-in flag was given (a usage error with a stdio
    /// server).
    pub fn any(&self) -> bool {
        self.auth_store.is_some()
            || self.account != "default"
            || self.scope.is_some()
            || self.client_id.is_some()
            || self.client_metadata_url.is_some()
            || self.callback_port.is_some()
            || self.grant.any()
    }
}

/// Read `--client-secret env:VAR|file:PATH` (a browser this run starts
/// never inherits the variable), as every secret reference is read
/// ([`auth::unattended::SecretRef`]).
///
/// Errors: a usage sentence naming the flag (never the secret).
fn read_secret(
    spec: &str,
    env: impl Fn(&str) -> Option<String>,
) -> Result<auth::store::Secret, String> {
    auth::unattended::SecretRef::parse("--client-secret", spec)
        .and_then(|r| r.read_with(env))
        .map_err(|e| e.to_string())
}

/// A client key and a client secret together leave it unsaid which one
/// authenticates the client: refused unless `--client-auth` picks one
/// (the grant then uses only the one it names). `secret_from` is where
/// the secret came from, when there is one.
///
/// Errors: a usage sentence naming both and where they came from.
fn one_credential(c: &super::grant::Chosen, secret_from: Option<&str>) -> Result<(), String> {
    match (&c.key_from, secret_from, c.unattended.client_auth) {
        (Some(key), Some(secret), None) => Err(format!(
            "{key} and {secret} both authenticate the client: give one, or pick it with --client-auth private-key-jwt, basic or post"
        )),
        _ => Ok(()),
    }
}

/// How the authorization URL may be opened in this run.
pub enum Open<'a> {
    /// `--browser CMD`.
    Command {
        /// CMD.
        cmd: &'a str,
        /// Nobody is there to read the warnings (`--answers`, `--action`):
        /// a sign-in URL the review would refuse as a URL elicitation's is
        /// refused ([`crate::url_review::UrlReview::unattended_refusal`]).
        unattended: bool,
    },
    /// The sign-in asked at this terminal ([`crate::plain::signin`]), the
    /// system browser opened on consent. `desk`: asked on the thread that
    /// answers the session's requests (`mcp`, whose terminal that thread
    /// holds), else on the terminal directly (`auth login`).
    Terminal {
        /// Put the sign-in on the session's desk, to the answering thread.
        desk: bool,
        /// `--no-open`: the URL is shown for copying, never opened.
        copy: bool,
    },
    /// Nothing, and why (the run fails when a sign-in is needed).
    Not(&'a str),
}

/// The session's sign-in options from the flags.
///
/// Errors: a usage sentence (a secret that cannot be read, a metadata
/// document URL that is not https).
pub fn options(
    flags: &AuthFlags,
    open: Open<'_>,
    url: Option<&str>,
) -> Result<AuthOptions, String> {
    let store = auth::open_store(flags.auth_store.as_deref());
    if let (Some(s), Err(e)) = (&flags.auth_store, &store) {
        // A store named on the command line that cannot be used is a
        // mistake shown before any request.
        return Err(format!(
            "--auth-store {}: {e}",
            crate::safe_text::display(s)
        ));
    }
    let mut o = AuthOptions::new(store);
    o.account = flags.account.clone();
    o.scope = flags
        .scope
        .as_deref()
        .map(auth::challenge::split_scope)
        .filter(|s| !s.is_empty());
    let env = |v: &str| std::env::var(v).ok();
    // The server's entry in the configuration file, when there is one.
    let entry = match (url, super::servers_config::path(&env)) {
        (Some(u), Some(p)) => super::servers_config::entry(&p, u)?,
        _ => None,
    };
    let chosen = super::grant::chosen(&flags.grant, &env, entry.as_ref(), &super::grant::load_key)?;
    // With a grant, the client id and secret may come from the environment
    // or the configuration file.
    let (env_id, env_secret) = match &chosen {
        Some(c) => (c.client_id.clone(), c.client_secret.clone()),
        None => (None, None),
    };
    if let Some(c) = &chosen {
        let secret_from = match (&flags.client_secret, &env_secret) {
            (Some(_), _) => Some("--client-secret"),
            (None, Some(r)) => Some(r.flag.as_str()),
            (None, None) => None,
        };
        one_credential(c, secret_from)?;
    }
    let id = flags.client_id.clone().or(env_id);
    if id.is_none() && flags.client_secret.is_some() {
        return Err("--client-secret is the secret of --client-id: give the client id too".into());
    }
    if let Some(id) = id {
        let client_secret = match (&flags.client_secret, env_secret) {
            (Some(spec), _) => Some(read_secret(spec, |v| std::env::var(v).ok())?),
            (None, Some(r)) => Some(r.read().map_err(|e| e.to_string())?),
            (None, None) => None,
        };
        if let Some(s) = &client_secret {
            crate::redact::register_secret(s.expose());
        }
        o.client = Some(PreRegistered {
            client_id: id,
            client_secret,
        });
    }
    o.unattended = chosen.map(|c| c.unattended);
    if let Some(u) = &flags.client_metadata_url {
        let ok = url::Url::parse(u)
            .is_ok_and(|p| p.scheme() == "https" && p.path() != "/" && !p.path().is_empty());
        if !ok {
            return Err(format!(
                "--client-metadata-url {}: give an https URL with a path",
                crate::safe_text::display(u)
            ));
        }
        o.client_metadata_url = Some(u.clone());
    }
    o.wait = flags.auth_timeout;
    o.callback_port = flags.callback_port;
    match open {
        Open::Command { cmd, unattended } => {
            let b = CommandBrowser::new(cmd);
            let notices = o.notices.clone();
            let opener: Opener = Arc::new(move |url: &str| {
                let mut b = b.clone();
                open_reviewed(&mut b, url, &notices, unattended)
            });
            o.opener = Some(opener);
            o.opener_name = format!("the browser command \"{}\"", crate::safe_text::display(cmd));
        }
        Open::Terminal { desk, copy } => terminal_screen(&mut o, desk, copy),
        Open::Not(why) => o.no_opener_reason = why.into(),
    }
    Ok(o)
}

/// Hand `launcher` (`--browser CMD`) the authorization URL as the terminal
/// sign-in opens it: reviewed ([`crate::plain::signin::review_sign_in`]),
/// its warnings said first, one line each, and the reviewed form given
/// (percent-encoded: no raw control or bidi character reaches the
/// command). A URL the review refuses is not opened.
///
/// Errors: why it was not opened ([`SignInError::Refused`],
/// [`SignInError::Launch`]).
fn open_reviewed(
    launcher: &mut dyn Launcher,
    url: &str,
    notices: &crate::notice::Notices,
    unattended: bool,
) -> Result<(), SignInError> {
    let review = crate::plain::signin::review_sign_in(url);
    if let Some(r) = &review.refusal {
        return Err(SignInError::Refused(r.sentence()));
    }
    // Nobody reads the warnings: what a scripted run refuses to open for
    // a URL elicitation is refused here too. (An authorization server on
    // this machine is what a local server's sign-in opens: discovery
    // already refuses one that a remote server names.)
    if unattended {
        if let Some((host, why)) = review.unattended_concern(true) {
            return Err(SignInError::Refused(format!(
                "its host '{host}' {}, and nobody is there to read the warnings of a scripted run; sign in at a terminal with \"ahp-elicit auth login\"",
                why.trim_end_matches('.')
            )));
        }
    }
    for w in &review.warnings {
        notices.say(&format!("the authorization URL: {}", w.sentence()));
    }
    // `--browser CMD` is the person's consent given in advance: the
    // machine takes it as a script's and opens the reviewed form.
    let mut consent = crate::consent::Consent::new(&review, crate::consent::Reader::Script);
    let (_, opened) = consent.open_with(launcher, false);
    opened.map_err(SignInError::Launch)
}

/// Whether there is a terminal to sign in on: stderr is one, or the
/// controlling terminal (`/dev/tty`, which the screens use) can be opened
/// (stderr may go to a file while the screen is on the terminal).
pub(crate) fn at_terminal() -> bool {
    std::io::IsTerminal::is_terminal(&std::io::stderr())
        || (cfg!(unix)
            && std::fs::OpenOptions::new()
                .read(true)
                .write(true)
                .open("/dev/tty")
                .is_ok())
}

/// Ask the sign-in at the terminal: with `desk`, on the terminal of the
/// thread that answers the session's requests, put there on the session's
/// desk ([`auth::SignInRequest::desk`]: without one it is not asked), else
/// on `/dev/tty` here; the system browser opens on
/// consent, or on a remote session ([`crate::plain::signin::remote_session`])
/// or with `copy` (`--no-open`) the URL is shown for copying and the
/// address pasted back.
#[cfg(unix)]
fn terminal_screen(o: &mut AuthOptions, desk: bool, copy: bool) {
    let wait = o.wait;
    let screen: auth::Screen = Arc::new(move |req: &auth::SignInRequest<'_>| {
        let mut owned = OwnedRequest::of(req);
        owned.copy = copy;
        if desk {
            let Some(session) = req.desk else {
                return Err(SignInError::NotAsked);
            };
            let rx = session.ask_in_lines(Box::new(move |io| owned.ask(io)));
            match rx.recv_timeout(wait) {
                Ok(r) => r,
                Err(_) => Err(SignInError::NotAsked),
            }
        } else {
            let mut io = crate::plain::TtyIo::open().map_err(SignInError::Lines)?;
            owned.ask(&mut io)
        }
    });
    o.screen = Some(screen);
    o.opener_name = "this terminal".into();
}

/// Without the terminal front end no sign-in is asked at the terminal.
#[cfg(not(unix))]
fn terminal_screen(o: &mut AuthOptions, _desk: bool, _copy: bool) {
    o.no_opener_reason = "this build has no terminal front end to sign in on".into();
}

/// A [`auth::SignInRequest`] that can cross to the answering thread.
#[cfg(unix)]
struct OwnedRequest {
    url: String,
    mcp_url: String,
    issuer: String,
    scopes: Vec<String>,
    /// A step-up's scopes added, scopes held and request refused.
    step_up: Option<(Vec<String>, Vec<String>, Option<auth::RequestName>)>,
    paste: auth::listener::PasteBack,
    /// Show the URL for copying, never open it.
    copy: bool,
    /// Where the system browser's launch is recorded (`--log`).
    record_launch: Option<auth::authorizer::LaunchRecord>,
}

#[cfg(unix)]
impl OwnedRequest {
    fn of(r: &auth::SignInRequest<'_>) -> Self {
        Self {
            url: r.url.to_owned(),
            mcp_url: r.mcp_url.to_owned(),
            issuer: r.issuer.to_owned(),
            scopes: r.scopes.to_vec(),
            step_up: r
                .step_up
                .map(|s| (s.adds.to_vec(), s.has.to_vec(), s.request.cloned())),
            paste: r.paste.clone(),
            copy: false,
            record_launch: r.record_launch.cloned(),
        }
    }

    fn ask(&self, io: &mut dyn crate::plain::LineIo) -> Result<(), SignInError> {
        let req = auth::SignInRequest {
            url: &self.url,
            mcp_url: &self.mcp_url,
            issuer: &self.issuer,
            scopes: &self.scopes,
            step_up: self
                .step_up
                .as_ref()
                .map(|(adds, has, request)| auth::StepUp {
                    adds,
                    has,
                    request: request.as_ref(),
                }),
            paste: &self.paste,
            record_launch: self.record_launch.as_ref(),
            desk: None,
        };
        let remote = self.copy || crate::plain::signin::remote_session(&|k| std::env::var(k).ok());
        let mut browser = Recorded {
            inner: crate::launcher::SystemBrowser,
            name: "system-browser",
            record: self.record_launch.clone(),
        };
        crate::plain::signin::sign_in(io, &req, &mut browser, remote, crate::plain::CONSENT_GUARD)
    }
}

/// A launcher whose launches are recorded (`--log`).
#[cfg(unix)]
struct Recorded<L> {
    inner: L,
    name: &'static str,
    record: Option<auth::authorizer::LaunchRecord>,
}

#[cfg(unix)]
impl<L: Launcher> Launcher for Recorded<L> {
    fn open(&mut self, url: &str) -> Result<(), crate::launcher::LaunchError> {
        let r = self.inner.open(url);
        if let Some(record) = &self.record {
            let why = r.as_ref().err().map(ToString::to_string);
            record(self.name, url, why.as_deref().map_or(Ok(()), Err));
        }
        r
    }
}

/// `ahp-elicit auth`.
#[derive(Debug, clap::Subcommand)]
pub enum AuthCommand {
    /// Sign in to an MCP server (Streamable HTTP) and keep the sign-in.
    #[command(after_help = "\
Examples:\n  ahp-elicit auth login https://mcp.example.com/mcp\n  \
ahp-elicit auth login --browser 'firefox --new-window' --auth-store memory http://127.0.0.1:3000/mcp\n  \
ahp-elicit auth login --grant client-credentials --client-id ci-bot --client-secret env:MCP_SECRET https://mcp.example.com/mcp\n\n\
At a terminal the sign-in is asked on it (type open to start the system browser; on a remote session paste back the address the browser ended on), unless --browser CMD is given; without a terminal only --browser CMD opens anything. --grant client-credentials|jwt-bearer|enterprise signs in without a person (no browser, no terminal).\n\n\
Exit status: 0 signed in (or the server answered as an MCP server without asking for one), 2 usage, a connection error or an answer that is not an MCP server's (a wrong path, a web page), 3 the sign-in failed, was cancelled or could not start.")]
    Login(LoginArgs),
    /// List the stored sign-ins (never a token or secret): resource,
    /// account, issuer, client kind, scopes granted, access expiry, whether
    /// it can be renewed, and its store (keyring or file) and place.
    #[command(
        visible_alias = "list",
        after_help = "Exit status: 0 listed, 1 no sign-in stored for URL, 2 usage or an unsafe or unreadable store file."
    )]
    Status(StatusArgs),
    /// Sign out: delete the stored tokens of URL (every account, or the
    /// one --account names), or of every server with --all.
    #[command(
        after_help = "Exit status: 0 signed out, 1 no sign-in stored for URL, 2 usage or a store file that could not be read or deleted."
    )]
    Logout(LogoutArgs),
    /// Move stored sign-ins (tokens and the client registration kept with
    /// them) to the keychain or to the file store, with no new sign-in:
    /// every sign-in, or those of URL (and --account).
    #[command(
        after_help = "Examples:\n  ahp-elicit auth move --to keyring\n  ahp-elicit auth move --to file https://mcp.example.com/mcp --account work\n\nExit status: 0 moved, 1 no sign-in to move, 2 usage, no keychain, or a store that could not be read or written."
    )]
    Move(MoveArgs),
}

/// Where the sign-ins are kept (shared by the `auth` subcommands).
#[derive(Debug, Clone, clap::Args)]
pub struct StoreArgs {
    /// The store: `keyring` (the operating system's keychain), `file`
    /// (the state directory's oauth/: $AHP_ELICIT_STATE_DIR, else
    /// $XDG_STATE_HOME/ahp-elicit, else ~/.local/state/ahp-elicit) or a
    /// state directory; default both the keychain (when one answers) and
    /// the state directory.
    #[arg(long, value_name = "keyring|file|DIR", display_order = 90)]
    pub auth_store: Option<PathBuf>,
}

/// Arguments of `ahp-elicit auth status`.
#[derive(Debug, clap::Args)]
pub struct StatusArgs {
    /// Only the sign-ins for this MCP server URL (or protected resource).
    #[arg(value_name = "URL")]
    pub url: Option<String>,
    /// Only the sign-ins of this account.
    #[arg(long, value_name = "NAME")]
    pub account: Option<String>,
    /// Print one JSON document: {"sign_ins": [...], "unreadable": [...]}.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub store: StoreArgs,
}

/// Arguments of `ahp-elicit auth logout`.
#[derive(Debug, clap::Args)]
#[command(group(clap::ArgGroup::new("which").required(true).args(["url", "all"])))]
pub struct LogoutArgs {
    /// The MCP server URL (or protected resource) to sign out of.
    #[arg(value_name = "URL")]
    pub url: Option<String>,
    /// Only this account (default: every account signed in to URL).
    #[arg(long, value_name = "NAME", conflicts_with = "all")]
    pub account: Option<String>,
    /// Sign out of every server (every sign-in file, read or not).
    #[arg(long)]
    pub all: bool,
    /// Also forget the client registration kept for the authorization
    /// server (the next sign-in registers again); with URL and no sign-in
    /// stored for it, the server is asked which authorization server that
    /// is.
    #[arg(long)]
    pub forget_client: bool,
    /// Only delete here: do not revoke the grant at the authorization
    /// server first (by default the refresh token, else the access token,
    /// is revoked at its `revocation_endpoint` when one is advertised).
    #[arg(long)]
    pub no_revoke: bool,
    #[command(flatten)]
    pub store: StoreArgs,
}

/// Revoke the grant of `s` at its authorization server (RFC 7009), unless
/// `--no-revoke`; what happened is said (a failure too: the sign-in is
/// deleted here all the same).
fn revoke_first(s: &auth::store::SignIn, no_revoke: bool) {
    if no_revoke {
        return;
    }
    match auth::revoke::revoke(s, None, auth::options::REQUEST_TIMEOUT) {
        Ok(which) => outln!(
            "revoked the {} at {}",
            which.words(),
            display(&s.key.issuer)
        ),
        Err(e) => crate::notice::say_in(
            "auth logout",
            format!(
                "{}; the sign-in is deleted here all the same",
                display(&e.to_string())
            ),
        ),
    }
}

/// Arguments of `ahp-elicit auth login`.
#[derive(Debug, clap::Args)]
pub struct LoginArgs {
    /// Open the authorization URL with CMD (no shell; the URL is added as
    /// its last argument) instead of the system browser.
    #[arg(long, value_name = "CMD", display_order = 80)]
    pub browser: Option<String>,
    /// The sign-in flags.
    #[command(flatten)]
    pub auth: AuthFlags,
    /// Sign in anew even when a sign-in is stored (it is neither used nor
    /// renewed; the new one replaces it).
    #[arg(long, display_order = 81)]
    pub force: bool,
    /// The MCP server's URL.
    #[arg(value_name = "URL")]
    pub url: String,
}

/// Run an `auth` subcommand; returns the exit status.
pub fn run(cmd: AuthCommand) -> Exit {
    match cmd {
        AuthCommand::Login(a) => login(a),
        AuthCommand::Status(a) => status(a),
        AuthCommand::Logout(a) => logout(a),
        AuthCommand::Move(a) => stores::move_sign_ins(a),
    }
}

fn fail(msg: &str) -> Exit {
    crate::notice::say_in("auth", msg);
    Exit::Usage
}

/// Whether `s` is for `url` (its MCP URL or resource, exactly) and
/// `account` (when given).
fn matches(s: &SignIn, url: Option<&str>, account: Option<&str>) -> bool {
    url.is_none_or(|u| s.mcp_url == u || s.key.resource == u)
        && account.is_none_or(|a| s.key.account == a)
}

/// `auth status`.
fn status(a: StatusArgs) -> Exit {
    let stores = match a.store.open() {
        Ok(s) => s,
        Err(e) => return fail(&e),
    };
    let mut entries = Vec::new();
    for held in &stores {
        match held.entries() {
            Ok(e) => entries.extend(e),
            Err(e) => return fail(&e.to_string()),
        }
    }
    let now = SystemTime::now();
    let mut shown = Vec::new();
    let mut unreadable = Vec::new();
    // The accounts signed in for URL when another account is asked for.
    let mut others = Vec::new();
    for e in entries {
        match e.sign_in {
            Ok(s) if matches(&s, a.url.as_deref(), a.account.as_deref()) => {
                shown.push(describe(&s, e.store, &e.location, e.file.as_deref(), now))
            }
            Ok(s) if matches(&s, a.url.as_deref(), None) => others.push(s.key.account),
            Ok(_) => {}
            Err(err) => unreadable.push(json!({
                "store": e.store,
                "file": e.file.as_ref().map(|f| f.to_string_lossy()),
                "location": e.location,
                "error": err.to_string(),
            })),
        }
    }
    if a.json {
        let doc = json!({"sign_ins": shown, "unreadable": unreadable});
        let text = serde_json::to_string_pretty(&doc).unwrap_or_default();
        outln!("{}", crate::safe_text::json_text(&text));
    } else {
        for s in &shown {
            out!("{}", status_text(s));
        }
    }
    for u in &unreadable {
        crate::notice::say_in("auth", display(u["error"].as_str().unwrap_or_default()));
    }
    if !unreadable.is_empty() {
        return Exit::Usage;
    }
    if shown.is_empty() {
        let which = match (&a.url, &a.account) {
            (Some(u), Some(acc)) => format!("for {} (account {})", display(u), display(acc)),
            (Some(u), None) => format!("for {}", display(u)),
            (None, Some(acc)) => format!("for account {}", display(acc)),
            (None, None) => String::new(),
        };
        others.sort_unstable();
        others.dedup();
        let names: Vec<&str> = others.iter().map(String::as_str).collect();
        let msg = format!("no sign-in stored {which}").trim_end().to_owned()
            + &auth::authorizer::accounts_hint(&names);
        crate::notice::say_in("auth", &msg);
        return if a.url.is_some() {
            Exit::Invalid
        } else {
            Exit::Ok
        };
    }
    Exit::Ok
}

/// What `auth status` says of one sign-in (never a token or secret): with
/// the store it is in (`file`, `keyring`), where there (`location`: the
/// file, or the keychain and its item) and its file (null in the keychain).
fn describe(
    s: &SignIn,
    store: &str,
    location: &str,
    file: Option<&Path>,
    now: SystemTime,
) -> Value {
    let t = &s.tokens;
    json!({
        "mcp_url": s.mcp_url,
        "resource": s.key.resource,
        "account": s.key.account,
        "issuer": s.key.issuer,
        "client_kind": s.client.kind.as_str(),
        "grant": s.grant.as_str(),
        "scopes_granted": t.scopes_granted,
        "expires_at": t.expires_at.map(|x| humantime::format_rfc3339_seconds(x).to_string()),
        "expired": t.expires_at.is_some_and(|x| x <= now),
        "expires_in_seconds": t.expires_at.map(|x| match x.duration_since(now) {
            Ok(d) => i64::try_from(d.as_secs()).unwrap_or(i64::MAX),
            Err(e) => -i64::try_from(e.duration().as_secs()).unwrap_or(i64::MAX),
        }),
        "renewable": t.refresh_token.is_some(),
        "dpop": s.dpop_key.as_ref().map(|k| match auth::dpop::key_from(k) {
            Ok(k) => json!({"alg": k.alg().as_str(), "thumbprint": k.thumbprint()}),
            Err(e) => json!({"error": e.to_string()}),
        }),
        "store": store,
        "location": location,
        "file": file.map(|f| f.to_string_lossy()),
    })
}

/// The text form of a [`describe`]d sign-in: a heading line, then one
/// indented line per fact; server text made safe for a terminal.
fn status_text(d: &Value) -> String {
    let s = |k: &str| display(d[k].as_str().unwrap_or_default()).into_owned();
    let scopes = match d["scopes_granted"].as_array() {
        Some(list) if list.is_empty() => "none".to_owned(),
        Some(list) => list
            .iter()
            .map(|v| display(v.as_str().unwrap_or_default()).into_owned())
            .collect::<Vec<_>>()
            .join(" "),
        None => "not stated by the authorization server".to_owned(),
    };
    let access = match (d["expires_at"].as_str(), d["expires_in_seconds"].as_i64()) {
        (Some(at), Some(secs)) if secs > 0 => format!("valid until {at} ({} left)", span(secs)),
        (Some(at), Some(secs)) => format!("expired at {at} ({} ago)", span(-secs)),
        _ => "no expiry stated".to_owned(),
    };
    let grant =
        auth::store::GrantType::parse(d["grant"].as_str().unwrap_or_default()).unwrap_or_default();
    let renew = if d["renewable"] == Value::Bool(true) {
        "yes (a refresh token is stored)"
    } else if grant == auth::store::GrantType::AuthorizationCode {
        "no (sign in again when access ends)"
    } else {
        "no (a run given the same --grant gets a new token when access ends)"
    };
    let mut out = format!("{} (account {})\n", s("mcp_url"), s("account"));
    if d["resource"] != d["mcp_url"] {
        out.push_str(&format!("  resource:  {}\n", s("resource")));
    }
    out.push_str(&format!("  issuer:    {}\n", s("issuer")));
    out.push_str(&format!("  client:    {}\n", s("client_kind")));
    out.push_str(&format!("  grant:     {}\n", grant.words()));
    out.push_str(&format!("  scopes:    {scopes}\n"));
    out.push_str(&format!("  access:    {access}\n"));
    out.push_str(&format!("  renewable: {renew}\n"));
    // A DPoP sign-in: its key, by its public thumbprint (RFC 7638).
    if let Some(o) = d["dpop"].as_object() {
        let key = match (o.get("alg"), o.get("thumbprint"), o.get("error")) {
            (Some(alg), Some(tp), _) => format!(
                "{}, thumbprint {} (tokens bound to it)",
                alg.as_str().unwrap_or_default(),
                tp.as_str().unwrap_or_default()
            ),
            (_, _, e) => format!(
                "cannot be read ({}): sign in again",
                e.and_then(Value::as_str).unwrap_or_default()
            ),
        };
        out.push_str(&format!("  dpop key:  {key}\n"));
    }
    out.push_str(&format!("  store:     {}\n", s("store")));
    if d["file"].is_string() {
        out.push_str(&format!("  file:      {}\n", s("file")));
    } else {
        out.push_str(&format!("  in:        {}\n", s("location")));
    }
    out
}

/// Seconds as a person reads them: `42s`, `59m`, `3h 5m`, `2d 4h`.
fn span(secs: i64) -> String {
    let (d, h, m) = (secs / 86400, secs % 86400 / 3600, secs % 3600 / 60);
    match (d, h, m) {
        (0, 0, 0) => format!("{secs}s"),
        (0, 0, m) => format!("{m}m"),
        (0, h, m) => format!("{h}h {m}m"),
        (d, h, _) => format!("{d}d {h}h"),
    }
}

/// `auth logout`.
fn logout(a: LogoutArgs) -> Exit {
    let stores = match a.store.open() {
        Ok(s) if s.is_empty() && a.all => {
            outln!("no sign-ins stored");
            return Exit::Ok;
        }
        Ok(s) if s.is_empty() => return not_stored(&a),
        Ok(s) => s,
        Err(e) => return fail(&e),
    };
    if a.all {
        return logout_all(&stores, a.forget_client, a.no_revoke);
    }
    let mut removed = 0;
    let mut unreadable = 0;
    for held in &stores {
        match logout_in(held, &a) {
            Ok((r, u)) => {
                removed += r;
                unreadable += u;
            }
            Err(exit) => return exit,
        }
    }
    if removed > 0 {
        Exit::Ok
    } else if unreadable > 0 {
        Exit::Usage
    } else if a.forget_client {
        forget_client_of(&stores, &a)
    } else {
        not_stored(&a)
    }
}

/// `auth logout URL` in one store: how many sign-ins were deleted and how
/// many could not be read.
///
/// Errors: the exit status of a store that failed (said).
fn logout_in(held: &Held, a: &LogoutArgs) -> Result<(usize, usize), Exit> {
    let store = held.store();
    let entries = held.entries().map_err(|e| fail(&e.to_string()))?;
    let mut removed = 0;
    let mut unreadable = 0;
    for e in entries {
        let s = match e.sign_in {
            Ok(s) => s,
            Err(err) => {
                unreadable += 1;
                crate::notice::say_in(
                    "auth",
                    format!(
                        "{} (not read; `ahp-elicit auth logout --all` deletes it)",
                        display(&err.to_string())
                    ),
                );
                continue;
            }
        };
        if !matches(&s, a.url.as_deref(), a.account.as_deref()) {
            continue;
        }
        revoke_first(&s, a.no_revoke);
        match store.remove(&s.key) {
            Ok(_) => {
                removed += 1;
                outln!(
                    "signed out of {} (account {}) at {}",
                    display(&s.mcp_url),
                    display(&s.key.account),
                    display(&s.key.issuer)
                );
            }
            Err(e) => return Err(fail(&e.to_string())),
        }
        if a.forget_client {
            match store.remove_client(&s.key.issuer) {
                Ok(true) => outln!("forgot the client registered at {}", display(&s.key.issuer)),
                Ok(false) => {}
                Err(e) => return Err(fail(&e.to_string())),
            }
        }
    }
    Ok((removed, unreadable))
}

/// `auth logout URL --forget-client` with no sign-in stored for URL (it
/// was deleted, or the sign-in never finished): the client registrations
/// kept for the authorization servers URL names now are forgotten, so an
/// authorization server that forgot them (it restarted) gets a new one.
fn forget_client_of(stores: &[Held], a: &LogoutArgs) -> Exit {
    let url = a.url.as_deref().unwrap_or_default();
    let issuers = match probe(url).and_then(|p| {
        let c = match p {
            Probed::SignIn(u) => Some(u),
            // The resource metadata may still be at its well-known place.
            Probed::Answered | Probed::NotMcp(_) => None,
        };
        let from_header = c
            .as_ref()
            .and_then(|u| u.challenge.as_ref())
            .and_then(|ch| ch.resource_metadata.clone());
        let finder = Authorizer::new(url, AuthOptions::new(Err(StoreError::NotSigningIn)));
        finder
            .authorization_servers(from_header.as_deref())
            .map_err(|e| e.to_string())
    }) {
        Ok(i) => i,
        Err(e) => {
            crate::notice::say_in(
                "auth",
                format!(
                    "no sign-in stored for {}, and its authorization server could not be found to forget its client registration: {}; \"ahp-elicit auth logout --all --forget-client\" forgets every one",
                    display(url),
                    display(&e)
                ),
            );
            return Exit::Usage;
        }
    };
    let mut forgot = 0;
    for issuer in &issuers {
        for held in stores {
            match held.store().remove_client(issuer) {
                Ok(true) => {
                    forgot += 1;
                    outln!("forgot the client registered at {}", display(issuer));
                }
                Ok(false) => {}
                Err(e) => return fail(&e.to_string()),
            }
        }
    }
    if forgot > 0 {
        return Exit::Ok;
    }
    crate::notice::say_in(
        "auth",
        format!(
            "no sign-in stored for {}, and no client registration kept for {}",
            display(url),
            display(&issuers.join(", "))
        ),
    );
    Exit::Invalid
}

fn not_stored(a: &LogoutArgs) -> Exit {
    let url = display(a.url.as_deref().unwrap_or_default()).into_owned();
    let msg = match &a.account {
        Some(acc) => format!("no sign-in stored for {url} (account {})", display(acc)),
        None => format!("no sign-in stored for {url}"),
    };
    crate::notice::say_in("auth", msg);
    Exit::Invalid
}

/// `auth logout --all`: every sign-in file, and with `--forget-client`
/// every client registration.
fn logout_all(stores: &[Held], forget_client: bool, no_revoke: bool) -> Exit {
    // The grants of the sign-ins that can be read are revoked first.
    for held in stores {
        if let Ok(entries) = held.entries() {
            for s in entries.into_iter().filter_map(|e| e.sign_in.ok()) {
                revoke_first(&s, no_revoke);
            }
        }
    }
    let (mut n, mut c) = (0, 0);
    for held in stores {
        match held.remove_all() {
            Ok(k) => n += k,
            Err(e) => return fail(&e.to_string()),
        }
        if forget_client {
            match held.remove_all_clients() {
                Ok(k) => c += k,
                Err(e) => return fail(&e.to_string()),
            }
        }
    }
    outln!("signed out of every server ({n} sign-in(s) deleted)");
    if forget_client {
        outln!("forgot {c} client registration(s)");
    }
    Exit::Ok
}

fn login(a: LoginArgs) -> Exit {
    let say = |m: &str| crate::notice::say_in("auth login", crate::safe_text::display(m));
    let http = url::Url::parse(&a.url).is_ok_and(|u| matches!(u.scheme(), "http" | "https"));
    if !http {
        say("give the MCP server's http(s) URL");
        return Exit::Usage;
    }
    let open = match (&a.browser, at_terminal()) {
        // `auth login` is run by a person, who reads the warnings.
        (Some(cmd), _) => Open::Command {
            cmd,
            unattended: false,
        },
        (None, true) => Open::Terminal {
            desk: false,
            copy: false,
        },
        (None, false) => Open::Not("this run has no terminal to sign in on"),
    };
    let mut opts = match options(&a.auth, open, Some(&a.url)) {
        Ok(o) => o,
        Err(e) => {
            say(&e);
            return Exit::Usage;
        }
    };
    // This run is `auth login`: the error never sends the person back to it.
    opts.name_login = false;
    opts.force_new = a.force;
    let authorizer = Authorizer::new(&a.url, opts);
    let challenge = match probe(&a.url) {
        Ok(Probed::SignIn(c)) => c,
        Ok(Probed::Answered) => {
            crate::notice::say_in(
                "auth login",
                format!(
                    "{} answered without asking for a sign-in: nothing to do",
                    crate::safe_text::display(&a.url)
                ),
            );
            return Exit::Ok;
        }
        // Not an MCP server's answer (a wrong path, a web page, a server
        // error): said as `mcp` says it, never taken for "nothing to do".
        Ok(Probed::NotMcp(why)) | Err(why) => {
            say(&why);
            return Exit::Usage;
        }
    };
    match authorizer.authorize(&challenge) {
        Ok(()) => {
            if let Some(s) = authorizer.summary() {
                say(&s);
            }
            Exit::Ok
        }
        Err(e) => {
            say(&e.to_string());
            // Control-C (SIGINT) cancels the sign-in; another ending signal
            // ends the run as signals do.
            match crate::signals::received() {
                Some(sig) if sig != libc::SIGINT => Exit::Signal(sig),
                _ => Exit::SignIn,
            }
        }
    }
}

/// What the server answered a request sent without a token ([`probe`]).
enum Probed {
    /// It asks for a sign-in (401, or 403 `insufficient_scope`).
    SignIn(Unauthorized),
    /// It answered as an MCP server (a JSON-RPC message) without asking
    /// for one.
    Answered,
    /// Its answer is not an MCP server's: the sentence `mcp` says for it
    /// (`server/discover: HTTP 404 Not Found (…): is /path the server's MCP
    /// endpoint? …`), not yet sanitized.
    NotMcp(String),
}

/// The request the probe sends.
const PROBE_METHOD: &str = "server/discover";

/// Ask the server without a token (a `server/discover` POST) to get its
/// challenge, else whether it answered as an MCP server
/// ([`crate::mcp::http::mcp_answer`]).
///
/// Errors: the server cannot be reached.
fn probe(url: &str) -> Result<Probed, String> {
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .max_redirects(0)
        .timeout_global(Some(Duration::from_secs(30)))
        .build()
        .into();
    let resp = agent
        .post(url)
        .header("Content-Type", "application/json")
        .header("Accept", "application/json, text/event-stream")
        .send(br#"{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{}}"#.as_slice())
        .map_err(|e| match e {
            ureq::Error::Timeout(_) => format!("no answer from {url} within 30 s"),
            e => format!("POST {url}: {e}"),
        })?;
    let status = resp.status().as_u16();
    let challenge = auth::challenge::BearerChallenge::from_headers(
        resp.headers()
            .get_all("www-authenticate")
            .iter()
            .map(|v| v.as_bytes()),
    );
    if status == 401 || challenge.as_ref().is_some_and(|c| c.insufficient_scope()) {
        return Ok(Probed::SignIn(Unauthorized {
            status: 401,
            challenge,
            generation: 0,
            request: None,
        }));
    }
    Ok(
        match crate::mcp::http::mcp_answer(resp, url, PROBE_METHOD) {
            Ok(()) => Probed::Answered,
            Err(why) => Probed::NotMcp(why.to_string()),
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A launcher that keeps what it was asked to open.
    struct Kept(Arc<std::sync::Mutex<Vec<String>>>);

    impl Launcher for Kept {
        fn open(&mut self, url: &str) -> Result<(), crate::launcher::LaunchError> {
            self.0.lock().unwrap().push(url.to_owned());
            Ok(())
        }
    }

    #[test]
    fn an_unattended_sign_in_refuses_what_a_scripted_url_elicitation_refuses() {
        let (notices, said) = crate::notice::Notices::collect();
        let opened = Arc::new(std::sync::Mutex::new(Vec::new()));
        let mut b = Kept(Arc::clone(&opened));
        for (url, why) in [
            (
                "https://xn--pypal-4ve.com/authorize?x=1",
                "looks like \"paypal\" but is made of other characters, and",
            ),
            (
                "https://accounts.example.com@evil.test/authorize",
                "is warned about: ",
            ),
            (
                "http://169.254.169.254/authorize",
                "is a link-local address",
            ),
            ("http://10.1.2.3/authorize", "is a private-network address"),
        ] {
            let e = open_reviewed(&mut b, url, &notices, true).unwrap_err();
            let e = e.to_string();
            assert!(e.starts_with("the URL is refused: its host '"), "{e}");
            assert!(e.contains(why), "{url}: {e}");
            assert!(
                e.ends_with("and nobody is there to read the warnings of a scripted run; sign in at a terminal with \"ahp-elicit auth login\""),
                "{e}"
            );
            // A person who gave --browser reads the warnings: it opens.
            open_reviewed(&mut b, url, &notices, false).unwrap();
        }
        assert_eq!(opened.lock().unwrap().len(), 4);
        assert!(!said.texts().is_empty());
        // A local server's authorization server on this machine opens
        // unattended (discovery refuses one a remote server names).
        for url in [
            "http://127.0.0.1:3000/authorize?x=1",
            "http://localhost:3000/authorize",
        ] {
            open_reviewed(&mut b, url, &notices, true).unwrap();
        }
        assert_eq!(opened.lock().unwrap().len(), 6);
    }

    #[test]
    fn spans_read_as_a_person_reads_them() {
        assert_eq!(span(42), "42s");
        assert_eq!(span(59 * 60 + 5), "59m");
        assert_eq!(span(3 * 3600 + 5 * 60), "3h 5m");
        assert_eq!(span(2 * 86400 + 4 * 3600 + 7), "2d 4h");
    }

    #[test]
    fn a_client_key_and_a_client_secret_need_client_auth_to_pick_one() {
        let chosen = |client_auth| super::super::grant::Chosen {
            unattended: auth::unattended::Unattended {
                grant: auth::unattended::Grant::ClientCredentials,
                client_auth,
                client_key: None,
            },
            client_id: None,
            client_secret: None,
            key_from: Some("--client-key".into()),
        };
        assert_eq!(
            one_credential(&chosen(None), Some("--client-secret")).unwrap_err(),
            "--client-key and --client-secret both authenticate the client: give one, or pick it with --client-auth private-key-jwt, basic or post"
        );
        assert_eq!(
            one_credential(&chosen(None), Some("AHP_ELICIT_CLIENT_SECRET")).unwrap_err(),
            "--client-key and AHP_ELICIT_CLIENT_SECRET both authenticate the client: give one, or pick it with --client-auth private-key-jwt, basic or post"
        );
        assert!(one_credential(&chosen(None), None).is_ok());
        let picked = chosen(Some(auth::unattended::ClientAuth::PrivateKeyJwt));
        assert!(one_credential(&picked, Some("--client-secret")).is_ok());
    }

    #[test]
    fn client_secrets_come_from_the_environment_or_a_file_only() {
        let env = |v: &str| (v == "S").then(|| "s3cret".to_owned());
        assert_eq!(read_secret("env:S", env).unwrap().expose(), "s3cret");
        let e = read_secret("env:NOPE", env).unwrap_err();
        assert_eq!(
            e,
            "--client-secret: the environment variable 'NOPE' is not set"
        );
        let e = read_secret("env:EMPTYV", |v: &str| (v == "EMPTYV").then(String::new)).unwrap_err();
        assert_eq!(
            e,
            "--client-secret: the environment variable 'EMPTYV' is empty"
        );
        assert_eq!(
            read_secret("env:", env).unwrap_err(),
            "--client-secret: env: needs a variable name"
        );
        // The same words as every other secret flag and the docs.
        let e = read_secret("s3cret", env).unwrap_err();
        assert_eq!(
            e,
            "--client-secret: give env:VAR or file:PATH (the secret never goes on the command line, where ps and the shell's history show it)"
        );
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("secret");
        std::fs::write(&f, "from-file\n").unwrap();
        assert_eq!(
            read_secret(&format!("file:{}", f.display()), env)
                .unwrap()
                .expose(),
            "from-file"
        );
    }

    #[test]
    fn the_store_flag_takes_a_directory_or_memory_and_the_metadata_url_is_checked() {
        let t = tempfile::tempdir().unwrap();
        let dir = t.path().join("state");
        let flags = AuthFlags {
            auth_store: Some(dir.to_string_lossy().into_owned()),
            account: "default".into(),
            ..AuthFlags::default()
        };
        let o = options(&flags, Open::Not("x"), None).unwrap();
        let store = o.store.unwrap();
        assert!(store.all().unwrap().is_empty());
        assert!(!dir.exists(), "a look-up creates nothing");
        assert!(!store.remove_client("http://a.example").unwrap());
        assert!(dir.join("oauth").is_dir(), "the directory is the store");
        let flags = AuthFlags {
            auth_store: Some("memory".into()),
            ..flags
        };
        assert!(options(&flags, Open::Not("x"), None).unwrap().store.is_ok());
        let flags = AuthFlags {
            client_metadata_url: Some("http://a.example/c.json".into()),
            ..flags
        };
        assert!(options(&flags, Open::Not("x"), None).is_err());
    }
}
