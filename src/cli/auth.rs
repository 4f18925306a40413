//! Signing in to remote MCP servers from the command line: the flags
//! `ahp-elicit mcp` and `ahp-elicit auth login` share ([`AuthFlags`]), how
//! they become the session's [`AuthOptions`], and `ahp-elicit auth login
//! URL`, which signs in and keeps the sign-in.
//!
//! Without a terminal nothing is opened unless `--browser CMD` was given
//! (the command gets the authorization URL as its last argument): that
//! flag is the consent. Otherwise a server that asks for a sign-in ends the
//! run at once with exit 3 and the `auth login` command to run.
//!
//! Exit codes: 0 signed in; 2 usage or connection error; 3 sign-in needed
//! or failed.

use std::sync::Arc;
use std::time::Duration;

use crate::launcher::{CommandBrowser, Launcher, SystemBrowser};
use crate::mcp::auth::{self, AuthOptions, Authorizer, Opener, PreRegistered, Unauthorized};

use super::Exit;

/// The sign-in flags of `mcp` and `auth login` (HTTP servers only).
#[derive(Debug, Clone, Default, clap::Args)]
#[command(next_help_heading = "Signing in (HTTP servers)")]
pub struct AuthFlags {
    /// Where sign-ins are kept: `memory` keeps them for this run only
    /// (hermetic runs, tests).
    #[arg(long, value_name = "memory", display_order = 200)]
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
    /// names.
    #[arg(long, value_name = "SCOPES", display_order = 202)]
    pub scope: Option<String>,
    /// A client id registered beforehand at the authorization server.
    #[arg(long, value_name = "ID", display_order = 203)]
    pub client_id: Option<String>,
    /// The secret of --client-id: env:VAR or file:PATH (never the secret
    /// itself on the command line).
    #[arg(
        long,
        value_name = "env:VAR|file:PATH",
        requires = "client_id",
        display_order = 204
    )]
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
    }
}

/// Read `--client-secret env:VAR|file:PATH`.
///
/// Errors: a usage sentence naming the flag (never the secret).
fn read_secret(spec: &str, env: impl Fn(&str) -> Option<String>) -> Result<String, String> {
    if let Some(var) = spec.strip_prefix("env:") {
        return env(var).filter(|v| !v.is_empty()).ok_or_else(|| {
            format!(
                "--client-secret: the environment variable '{}' is not set",
                crate::safe_text::display(var)
            )
        });
    }
    if let Some(path) = spec.strip_prefix("file:") {
        let text = std::fs::read_to_string(path).map_err(|e| {
            format!(
                "--client-secret: cannot read {}: {e}",
                crate::safe_text::display(path)
            )
        })?;
        let secret = text.trim_end_matches(['\n', '\r']);
        if secret.is_empty() {
            return Err(format!(
                "--client-secret: {} is empty",
                crate::safe_text::display(path)
            ));
        }
        return Ok(secret.to_owned());
    }
    Err(
        "--client-secret: give env:VAR or file:PATH (the secret never goes on the command line)"
            .into(),
    )
}

/// How the authorization URL may be opened in this run.
pub enum Open<'a> {
    /// `--browser CMD`.
    Command(&'a str),
    /// The system browser (`auth login` at a terminal).
    System,
    /// Nothing, and why (the run fails when a sign-in is needed).
    Not(&'a str),
}

/// The session's sign-in options from the flags.
///
/// Errors: a usage sentence (a secret that cannot be read, a metadata
/// document URL that is not https).
pub fn options(flags: &AuthFlags, open: Open<'_>) -> Result<AuthOptions, String> {
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
    if let Some(id) = &flags.client_id {
        let client_secret = match &flags.client_secret {
            Some(spec) => Some(auth::store::Secret::new(read_secret(spec, |v| {
                std::env::var(v).ok()
            })?)),
            None => None,
        };
        o.client = Some(PreRegistered {
            client_id: id.clone(),
            client_secret,
        });
    }
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
        Open::Command(cmd) => {
            let b = CommandBrowser::new(cmd);
            let opener: Opener = Arc::new(move |url: &str| {
                let mut b = b.clone();
                b.open(url).map_err(|e| e.to_string())
            });
            o.opener = Some(opener);
            o.opener_name = format!("the browser command \"{}\"", crate::safe_text::display(cmd));
        }
        Open::System => {
            let opener: Opener =
                Arc::new(|url: &str| SystemBrowser.open(url).map_err(|e| e.to_string()));
            o.opener = Some(opener);
            o.opener_name = "the system browser".into();
        }
        Open::Not(why) => o.no_opener_reason = why.into(),
    }
    Ok(o)
}

/// `ahp-elicit auth`.
#[derive(Debug, clap::Subcommand)]
pub enum AuthCommand {
    /// Sign in to an MCP server (Streamable HTTP) and keep the sign-in.
    #[command(after_help = "\
Examples:\n  ahp-elicit auth login https://mcp.example.com/mcp\n  \
ahp-elicit auth login --browser 'firefox --new-window' --auth-store memory http://127.0.0.1:3000/mcp\n\n\
At a terminal the system browser is opened (or --browser CMD); without one only --browser CMD opens anything.\n\n\
Exit status: 0 signed in (or no sign-in needed), 2 usage or connection error, 3 the sign-in failed or could not start.")]
    Login(LoginArgs),
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
    /// The MCP server's URL.
    #[arg(value_name = "URL")]
    pub url: String,
}

/// Run `ahp-elicit auth`.
pub fn run(cmd: AuthCommand) -> Exit {
    match cmd {
        AuthCommand::Login(a) => login(a),
    }
}

fn login(a: LoginArgs) -> Exit {
    let say = |m: &str| crate::notice::say_in("auth login", crate::safe_text::display(m));
    let http = url::Url::parse(&a.url).is_ok_and(|u| matches!(u.scheme(), "http" | "https"));
    if !http {
        say("give the MCP server's http(s) URL");
        return Exit::Usage;
    }
    let terminal = std::io::IsTerminal::is_terminal(&std::io::stderr());
    let open = match (&a.browser, terminal) {
        (Some(cmd), _) => Open::Command(cmd),
        (None, true) => Open::System,
        (None, false) => Open::Not("this run has no terminal to sign in on"),
    };
    let opts = match options(&a.auth, open) {
        Ok(o) => o,
        Err(e) => {
            say(&e);
            return Exit::Usage;
        }
    };
    let authorizer = Authorizer::new(&a.url, opts);
    let challenge = match probe(&a.url) {
        Ok(Some(c)) => c,
        Ok(None) => {
            crate::notice::say_in(
                "auth login",
                format!(
                    "{} answered without asking for a sign-in: nothing to do",
                    crate::safe_text::display(&a.url)
                ),
            );
            return Exit::Ok;
        }
        Err(e) => {
            say(&e);
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
            say(&e.0);
            Exit::SignIn
        }
    }
}

/// Ask the server without a token (a `server/discover` POST) to get its
/// challenge. None: it answered without asking for a sign-in.
///
/// Errors: the server cannot be reached.
fn probe(url: &str) -> Result<Option<Unauthorized>, String> {
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
        .map_err(|e| format!("POST {url}: {e}"))?;
    let status = resp.status().as_u16();
    let challenge = auth::challenge::BearerChallenge::from_headers(
        resp.headers()
            .get_all("www-authenticate")
            .iter()
            .map(|v| v.as_bytes()),
    );
    Ok(
        (status == 401 || challenge.as_ref().is_some_and(|c| c.insufficient_scope())).then_some(
            Unauthorized {
                status: 401,
                challenge,
                generation: 0,
            },
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn client_secrets_come_from_the_environment_or_a_file_only() {
        let env = |v: &str| (v == "S").then(|| "s3cret".to_owned());
        assert_eq!(read_secret("env:S", env).unwrap(), "s3cret");
        let e = read_secret("env:NOPE", env).unwrap_err();
        assert_eq!(
            e,
            "--client-secret: the environment variable 'NOPE' is not set"
        );
        let e = read_secret("s3cret", env).unwrap_err();
        assert!(
            !e.contains("s3cret") && e.contains("env:VAR or file:PATH"),
            "{e}"
        );
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("secret");
        std::fs::write(&f, "from-file\n").unwrap();
        assert_eq!(
            read_secret(&format!("file:{}", f.display()), env).unwrap(),
            "from-file"
        );
    }

    #[test]
    fn only_the_memory_store_is_in_this_build() {
        let flags = AuthFlags {
            auth_store: Some("/tmp/x".into()),
            account: "default".into(),
            ..AuthFlags::default()
        };
        let e = options(&flags, Open::Not("x")).unwrap_err();
        assert_eq!(
            e,
            "--auth-store /tmp/x: sign-ins are kept only with --auth-store memory in this build"
        );
        let flags = AuthFlags {
            auth_store: Some("memory".into()),
            ..flags
        };
        assert!(options(&flags, Open::Not("x")).unwrap().store.is_ok());
        let flags = AuthFlags {
            client_metadata_url: Some("http://a.example/c.json".into()),
            ..flags
        };
        assert!(options(&flags, Open::Not("x")).is_err());
    }
}
