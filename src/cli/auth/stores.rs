//! The stores the `auth` subcommands read and change ([`Held`]), as
//! `--auth-store` names them, and `auth move` (a sign-in from the file
//! store to the keychain or back, with no new sign-in).

use std::path::PathBuf;

use crate::mcp::auth::default_store::PROBE_TIMEOUT;
use crate::mcp::auth::file_store::{default_dir, FileStore};
#[cfg(all(
    feature = "keyring",
    any(target_os = "linux", target_os = "macos", windows)
))]
use crate::mcp::auth::keyring_store::{self, KeyringStore};
use crate::mcp::auth::store::{SignIn, Store, StoreError};
use crate::safe_text::display;

use super::super::Exit;
use super::{fail, matches, StoreArgs};

/// One store holding sign-ins.
pub(super) enum Held {
    /// The file store in a directory.
    File(FileStore),
    /// The operating system's keychain.
    #[cfg(all(
        feature = "keyring",
        any(target_os = "linux", target_os = "macos", windows)
    ))]
    Keychain(KeyringStore),
}

/// One stored sign-in as the subcommands list it.
pub(super) struct Listed {
    /// The sign-in, or why it could not be read.
    pub sign_in: Result<SignIn, StoreError>,
    /// `file` or `keyring`.
    pub store: &'static str,
    /// The file, or the keychain and its item.
    pub location: String,
    /// The file, for a sign-in in the file store.
    pub file: Option<PathBuf>,
}

impl Held {
    /// The store as a [`Store`].
    pub fn store(&self) -> &dyn Store {
        match self {
            Self::File(f) => f,
            #[cfg(all(
                feature = "keyring",
                any(target_os = "linux", target_os = "macos", windows)
            ))]
            Self::Keychain(k) => k,
        }
    }

    /// Every sign-in kept, each read or why not.
    ///
    /// Errors: the store cannot be listed.
    pub fn entries(&self) -> Result<Vec<Listed>, StoreError> {
        match self {
            Self::File(f) => Ok(f
                .entries()?
                .into_iter()
                .map(|e| Listed {
                    sign_in: e.sign_in,
                    store: "file",
                    location: e.path.to_string_lossy().into_owned(),
                    file: Some(e.path),
                })
                .collect()),
            #[cfg(all(
                feature = "keyring",
                any(target_os = "linux", target_os = "macos", windows)
            ))]
            Self::Keychain(k) => Ok(k
                .entries()?
                .into_iter()
                .map(|(item, sign_in)| Listed {
                    sign_in,
                    store: "keyring",
                    location: format!(
                        "{} (service {}, item \"{item}\")",
                        keyring_store::keychain_name(),
                        keyring_store::SERVICE
                    ),
                    file: None,
                })
                .collect()),
        }
    }

    /// Deletes every sign-in (`auth logout --all`); how many.
    ///
    /// Errors: the first that could not be deleted.
    pub fn remove_all(&self) -> Result<usize, StoreError> {
        match self {
            Self::File(f) => f.remove_all(),
            #[cfg(all(
                feature = "keyring",
                any(target_os = "linux", target_os = "macos", windows)
            ))]
            Self::Keychain(k) => k.remove_all(),
        }
    }

    /// Deletes every client registration; how many.
    ///
    /// Errors: the first that could not be deleted.
    pub fn remove_all_clients(&self) -> Result<usize, StoreError> {
        match self {
            Self::File(f) => f.remove_all_clients(),
            #[cfg(all(
                feature = "keyring",
                any(target_os = "linux", target_os = "macos", windows)
            ))]
            Self::Keychain(k) => k.remove_all_clients(),
        }
    }
}

/// The keychain when it answers ([`keyring_store::probe`]), else why not
/// (a sentence naming `--auth-store file`).
fn keychain() -> Result<Held, String> {
    #[cfg(all(
        feature = "keyring",
        any(target_os = "linux", target_os = "macos", windows)
    ))]
    {
        keyring_store::probe(PROBE_TIMEOUT).map_err(|e| e.to_string())?;
        Ok(Held::Keychain(KeyringStore::system(default_dir())))
    }
    #[cfg(not(all(
        feature = "keyring",
        any(target_os = "linux", target_os = "macos", windows)
    )))]
    {
        let _ = PROBE_TIMEOUT;
        Err(StoreError::NoKeychainHere.to_string())
    }
}

/// The file store in `dir`, when it was ever created.
fn file_in(dir: &std::path::Path) -> Result<Option<Held>, String> {
    if std::fs::symlink_metadata(dir.join("oauth")).is_err() {
        return Ok(None);
    }
    FileStore::open(dir)
        .map(|f| Some(Held::File(f)))
        .map_err(|e| e.to_string())
}

/// The state directory, or the sentence why there is none.
fn state_dir() -> Result<PathBuf, String> {
    default_dir().ok_or_else(|| {
        "no state directory: set HOME or XDG_STATE_HOME, or give --auth-store DIR".into()
    })
}

impl StoreArgs {
    /// The stores `--auth-store` names: `keyring` the keychain, `file` the
    /// state directory's file store, a directory the file store in it, and
    /// by default both (the keychain when it answers; the file store when
    /// it was ever created).
    ///
    /// Errors: `memory` (nothing is kept between runs), `keyring` when
    /// the keychain does not answer, no state directory.
    pub(super) fn open(&self) -> Result<Vec<Held>, String> {
        let word = self.auth_store.as_ref().map(|d| d.to_string_lossy());
        match word.as_deref() {
            Some("memory") => Err(
                "--auth-store memory keeps nothing between runs: there is nothing to list or delete"
                    .into(),
            ),
            Some("keyring") => Ok(vec![keychain()?]),
            Some("file") => Ok(file_in(&state_dir()?)?.into_iter().collect()),
            Some(_) => Ok(file_in(self.auth_store.as_deref().unwrap_or_else(|| ".".as_ref()))?
                .into_iter()
                .collect()),
            None => {
                let mut out: Vec<Held> = keychain().ok().into_iter().collect();
                if let Some(dir) = default_dir() {
                    out.extend(file_in(&dir)?);
                }
                Ok(out)
            }
        }
    }
}

/// Arguments of `ahp-elicit auth move`.
#[derive(Debug, clap::Args)]
pub struct MoveArgs {
    /// Where to: `keyring` (the operating system's keychain) or `file`
    /// (0600 files in the state directory, or --auth-store DIR).
    #[arg(long, value_name = "keyring|file", value_parser = ["keyring", "file"])]
    pub to: String,
    /// Only the sign-ins for this MCP server URL (or protected resource);
    /// default every sign-in.
    #[arg(value_name = "URL")]
    pub url: Option<String>,
    /// Only the sign-ins of this account.
    #[arg(long, value_name = "NAME")]
    pub account: Option<String>,
    /// The state directory of the file store (default
    /// $AHP_ELICIT_STATE_DIR, else $XDG_STATE_HOME/ahp-elicit, else
    /// ~/.local/state/ahp-elicit).
    #[arg(long, value_name = "DIR")]
    pub auth_store: Option<PathBuf>,
}

/// `auth move`: each sign-in (with the client registration kept for its
/// authorization server) written to the other store, then deleted from
/// the one it was in. Nothing is asked of any server.
pub(super) fn move_sign_ins(a: MoveArgs) -> Exit {
    let dir = match &a.auth_store {
        Some(d) => d.clone(),
        None => match state_dir() {
            Ok(d) => d,
            Err(e) => return fail(&e),
        },
    };
    let keychain = match keychain() {
        Ok(k) => k,
        Err(e) => return fail(&e),
    };
    let (from, to) = if a.to == "keyring" {
        match file_in(&dir) {
            Ok(Some(f)) => (f, keychain),
            Ok(None) => return nothing_to_move(&a),
            Err(e) => return fail(&e),
        }
    } else {
        match FileStore::open(&dir) {
            Ok(f) => (keychain, Held::File(f)),
            Err(e) => return fail(&e.to_string()),
        }
    };
    let entries = match from.entries() {
        Ok(e) => e,
        Err(e) => return fail(&e.to_string()),
    };
    let mut moved = 0;
    for e in entries {
        let s = match e.sign_in {
            Ok(s) => s,
            Err(err) => {
                crate::notice::say_in(
                    "auth move",
                    format!("{} (not read, not moved)", display(&err.to_string())),
                );
                continue;
            }
        };
        if !matches(&s, a.url.as_deref(), a.account.as_deref()) {
            continue;
        }
        if let Err(e) = move_one(&s, &from, &to) {
            return fail(&e.to_string());
        }
        moved += 1;
        outln!(
            "moved the sign-in to {} (account {}) to {}",
            display(&s.mcp_url),
            display(&s.key.account),
            display(&to.store().kept_in(&s.key))
        );
    }
    if moved == 0 {
        return nothing_to_move(&a);
    }
    Exit::Ok
}

/// Writes `s` (and its kept client registration) to `to`, then deletes it
/// from `from`; the client registration leaves `from` when no other
/// sign-in there is at its authorization server.
fn move_one(s: &SignIn, from: &Held, to: &Held) -> Result<(), StoreError> {
    let (from, to) = (from.store(), to.store());
    let client = from.client(&s.key.issuer)?;
    if let Some(c) = &client {
        to.save_client(c)?;
    }
    to.save(s)?;
    from.remove(&s.key)?;
    let used_there = from
        .all()
        .map_or(true, |all| all.iter().any(|o| o.key.issuer == s.key.issuer));
    if client.is_some() && !used_there {
        from.remove_client(&s.key.issuer)?;
    }
    Ok(())
}

fn nothing_to_move(a: &MoveArgs) -> Exit {
    let which = match (&a.url, &a.account) {
        (Some(u), Some(acc)) => format!(" for {} (account {})", display(u), display(acc)),
        (Some(u), None) => format!(" for {}", display(u)),
        (None, Some(acc)) => format!(" for account {}", display(acc)),
        (None, None) => String::new(),
    };
    let other = if a.to == "keyring" { "file" } else { "keyring" };
    crate::notice::say_in(
        "auth move",
        format!("no sign-in{which} in the {other} store to move"),
    );
    Exit::Invalid
}
