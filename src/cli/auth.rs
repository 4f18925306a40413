//! `ahp-elicit auth`: the sign-ins stored for remote MCP servers
//! (`auth status`, alias `list`) and signing out (`auth logout`). One
//! function per subcommand.
//!
//! The store is [`crate::mcp::auth::file_store::FileStore`] in
//! `--auth-store DIR`, else the state directory
//! ([`crate::mcp::auth::file_store::default_dir`]). A sign-in is *for* a
//! URL when its MCP URL or its protected resource is that exact string.
//! Nothing here prints a token or a secret: only what the sign-in is for,
//! when its access ends, whether it can be renewed and where its file is.
//!
//! Exit codes: 0 done; 1 no sign-in stored for the URL given; 2 usage, or a
//! store file that is unsafe or unreadable.

use std::path::{Path, PathBuf};
use std::time::SystemTime;

use serde_json::{json, Value};

use crate::mcp::auth::file_store::{default_dir, FileStore};
use crate::mcp::auth::store::{SignIn, Store};
use crate::safe_text::display;

use super::Exit;

/// `ahp-elicit auth`.
#[derive(Debug, clap::Subcommand)]
pub enum AuthCommand {
    /// List the stored sign-ins (never a token or secret): resource,
    /// account, issuer, client kind, scopes granted, access expiry, whether
    /// it can be renewed, and its file.
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
}

/// Where the sign-ins are kept (shared by the `auth` subcommands).
#[derive(Debug, Clone, clap::Args)]
pub struct StoreArgs {
    /// The state directory sign-ins are kept in (under its oauth/); default
    /// $AHP_ELICIT_STATE_DIR, else $XDG_STATE_HOME/ahp-elicit, else
    /// ~/.local/state/ahp-elicit.
    #[arg(long, value_name = "DIR", display_order = 90)]
    pub auth_store: Option<PathBuf>,
}

impl StoreArgs {
    /// The directory: `--auth-store`, else the default.
    ///
    /// Errors: `--auth-store memory` (nothing is kept between runs), or no
    /// directory can be found in the environment.
    fn dir(&self) -> Result<PathBuf, String> {
        match &self.auth_store {
            Some(d) if d.as_os_str() == "memory" => Err(
                "--auth-store memory keeps nothing between runs: there is nothing to list or delete"
                    .into(),
            ),
            Some(d) => Ok(d.clone()),
            None => default_dir().ok_or_else(|| {
                "no state directory: set HOME or XDG_STATE_HOME, or give --auth-store DIR".into()
            }),
        }
    }

    /// The store, or `None` when it was never created (nothing stored).
    fn open(&self) -> Result<Option<FileStore>, String> {
        let dir = self.dir()?;
        if !dir.join("oauth").exists() && std::fs::symlink_metadata(dir.join("oauth")).is_err() {
            return Ok(None);
        }
        FileStore::open(&dir).map(Some).map_err(|e| e.0)
    }
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
    /// server (the next sign-in registers again).
    #[arg(long)]
    pub forget_client: bool,
    #[command(flatten)]
    pub store: StoreArgs,
}

/// Run an `auth` subcommand; returns the exit status.
pub fn run(cmd: AuthCommand) -> Exit {
    match cmd {
        AuthCommand::Status(a) => status(a),
        AuthCommand::Logout(a) => logout(a),
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
    let store = match a.store.open() {
        Ok(s) => s,
        Err(e) => return fail(&e),
    };
    let entries = match store.as_ref().map(FileStore::entries).transpose() {
        Ok(e) => e.unwrap_or_default(),
        Err(e) => return fail(&e.0),
    };
    let now = SystemTime::now();
    let mut shown = Vec::new();
    let mut unreadable = Vec::new();
    for e in entries {
        match e.sign_in {
            Ok(s) if matches(&s, a.url.as_deref(), a.account.as_deref()) => {
                shown.push(describe(&s, &e.path, now))
            }
            Ok(_) => {}
            Err(err) => unreadable.push(json!({
                "file": e.path.to_string_lossy(),
                "error": err.0,
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
        let msg = format!("no sign-in stored {which}").trim_end().to_owned();
        crate::notice::say_in("auth", &msg);
        return if a.url.is_some() {
            Exit::Invalid
        } else {
            Exit::Ok
        };
    }
    Exit::Ok
}

/// What `auth status` says of one sign-in (never a token or secret).
fn describe(s: &SignIn, file: &Path, now: SystemTime) -> Value {
    let t = &s.tokens;
    json!({
        "mcp_url": s.mcp_url,
        "resource": s.key.resource,
        "account": s.key.account,
        "issuer": s.key.issuer,
        "client_kind": s.client.kind.as_str(),
        "scopes_granted": t.scopes_granted,
        "expires_at": t.expires_at.map(|x| humantime::format_rfc3339_seconds(x).to_string()),
        "expired": t.expires_at.is_some_and(|x| x <= now),
        "expires_in_seconds": t.expires_at.map(|x| match x.duration_since(now) {
            Ok(d) => i64::try_from(d.as_secs()).unwrap_or(i64::MAX),
            Err(e) => -i64::try_from(e.duration().as_secs()).unwrap_or(i64::MAX),
        }),
        "renewable": t.refresh_token.is_some(),
        "file": file.to_string_lossy(),
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
    let renew = if d["renewable"] == Value::Bool(true) {
        "yes (a refresh token is stored)"
    } else {
        "no (sign in again when access ends)"
    };
    let mut out = format!("{} (account {})\n", s("mcp_url"), s("account"));
    if d["resource"] != d["mcp_url"] {
        out.push_str(&format!("  resource:  {}\n", s("resource")));
    }
    out.push_str(&format!("  issuer:    {}\n", s("issuer")));
    out.push_str(&format!("  client:    {}\n", s("client_kind")));
    out.push_str(&format!("  scopes:    {scopes}\n"));
    out.push_str(&format!("  access:    {access}\n"));
    out.push_str(&format!("  renewable: {renew}\n"));
    out.push_str(&format!("  file:      {}\n", s("file")));
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
    let store = match a.store.open() {
        Ok(Some(s)) => s,
        Ok(None) if a.all => {
            outln!("no sign-ins stored");
            return Exit::Ok;
        }
        Ok(None) => return not_stored(&a),
        Err(e) => return fail(&e),
    };
    if a.all {
        return logout_all(&store, a.forget_client);
    }
    let entries = match store.entries() {
        Ok(e) => e,
        Err(e) => return fail(&e.0),
    };
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
                        display(&err.0)
                    ),
                );
                continue;
            }
        };
        if !matches(&s, a.url.as_deref(), a.account.as_deref()) {
            continue;
        }
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
            Err(e) => return fail(&e.0),
        }
        if a.forget_client {
            match store.remove_client(&s.key.issuer) {
                Ok(true) => outln!("forgot the client registered at {}", display(&s.key.issuer)),
                Ok(false) => {}
                Err(e) => return fail(&e.0),
            }
        }
    }
    if removed > 0 {
        Exit::Ok
    } else if unreadable > 0 {
        Exit::Usage
    } else {
        not_stored(&a)
    }
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
fn logout_all(store: &FileStore, forget_client: bool) -> Exit {
    let n = match store.remove_all() {
        Ok(n) => n,
        Err(e) => return fail(&e.0),
    };
    outln!("signed out of every server ({n} sign-in(s) deleted)");
    if forget_client {
        match store.remove_all_clients() {
            Ok(c) => outln!("forgot {c} client registration(s)"),
            Err(e) => return fail(&e.0),
        }
    }
    Exit::Ok
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spans_read_as_a_person_reads_them() {
        assert_eq!(span(42), "42s");
        assert_eq!(span(59 * 60 + 5), "59m");
        assert_eq!(span(3 * 3600 + 5 * 60), "3h 5m");
        assert_eq!(span(2 * 86400 + 4 * 3600 + 7), "2d 4h");
    }
}
