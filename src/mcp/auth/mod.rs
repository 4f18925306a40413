//! Signing in to remote MCP servers: OAuth 2.1 authorization as the MCP
//! authorization specification asks (both pinned revisions), for the
//! Streamable HTTP transport only (stdio servers take their credentials
//! from the environment).
//!
//! [`store`] keeps what a sign-in leaves behind (client registrations and
//! tokens) behind the [`store::Store`] trait; [`file_store`] keeps them on
//! disk between runs. [`challenge`] reads `WWW-Authenticate`,
//! [`discovery`] finds and checks the metadata, and [`flow`] holds the pure
//! steps of one authorization (PKCE, scopes, the authorization URL, the
//! callback's checks, the token answer). [`listener`] is the loopback
//! listener the browser comes back to, and [`authorizer::Authorizer`] runs
//! the whole flow for the HTTP transport: its spine in [`authorizer`], its
//! steps in `metadata`, `tokens`, `registration`, `browser`, [`step_up`],
//! `http` and `hints`, what it is given in [`options`], and why it fails
//! in [`error`] ([`AuthError`]). [`jose`] signs the JWTs a sign-in sends
//! (DPoP proofs, client assertions), and [`dpop`] binds tokens to a key
//! pair of the sign-in (RFC 9449) when the authorization server offers it. What a sign-in is doing (under way,
//! waiting for the browser) it publishes to the session it serves, whose
//! screens show it: [`crate::responder::sign_in::SignIns`], given in
//! [`AuthOptions::sign_ins`].

pub mod authorizer;
mod browser;
pub mod challenge;
pub mod discovery;
pub mod dpop;
pub mod error;
#[cfg(test)]
mod fake_as;
#[cfg(unix)]
pub mod file_store;
pub mod flow;
mod grants;
mod hints;
mod http;
// Reading key files (PEM, JWK) and RS256 serve client assertions
// (`private_key_jwt`); DPoP uses only the ES256 keys it makes.
#[allow(dead_code)]
pub mod jose;
pub mod listener;
mod metadata;
pub mod options;
mod registration;
pub mod revoke;
pub mod step_up;
pub mod store;
mod tokens;
pub mod unattended;

use std::sync::Arc;
#[cfg(unix)]
use std::{path::PathBuf, sync::OnceLock};

pub use authorizer::{Authorizer, Unauthorized};
pub use error::AuthError;
pub use options::{AuthOptions, Opener, PreRegistered, Screen, SignInRequest};
pub use step_up::{RequestName, StepUp};
#[cfg(unix)]
use store::{ClientRegistration, SignIn, SignInKey, StoreLock};
use store::{Store, StoreError};

/// The store `--auth-store` names: `memory` keeps sign-ins for the run
/// only; a directory, or by default the state directory
/// ([`file_store::default_dir`]), keeps them on disk. The file store is
/// opened only when first used, and its directories are created only when
/// a sign-in or a client is first written, so a run that never signs in
/// leaves nothing behind.
///
/// Errors: no state directory can be found in the environment (no `HOME`,
/// `XDG_STATE_HOME` or `AHP_ELICIT_STATE_DIR`), or (not on Unix) sign-ins
/// cannot be kept on disk at all.
pub fn open_store(choice: Option<&str>) -> Result<Arc<dyn Store>, StoreError> {
    if choice == Some("memory") {
        return Ok(Arc::new(store::MemoryStore::default()));
    }
    #[cfg(unix)]
    {
        let dir = match choice {
            Some(d) => PathBuf::from(d),
            None => file_store::default_dir().ok_or(StoreError::NoStateDir)?,
        };
        Ok(Arc::new(LazyFileStore {
            dir,
            opened: OnceLock::new(),
        }))
    }
    #[cfg(not(unix))]
    {
        Err(StoreError::NotOnDisk)
    }
}

/// A [`file_store::FileStore`] opened on first use.
#[cfg(unix)]
struct LazyFileStore {
    dir: PathBuf,
    opened: OnceLock<Result<file_store::FileStore, StoreError>>,
}

#[cfg(unix)]
impl LazyFileStore {
    fn get(&self) -> Result<&file_store::FileStore, StoreError> {
        self.opened
            .get_or_init(|| file_store::FileStore::open(&self.dir))
            .as_ref()
            .map_err(Clone::clone)
    }
}

#[cfg(unix)]
impl LazyFileStore {
    /// The store when it exists already: reading creates nothing, so a run
    /// against a server that never asks for a sign-in leaves no directory.
    fn existing(&self) -> Result<Option<&file_store::FileStore>, StoreError> {
        if self.opened.get().is_none() && std::fs::symlink_metadata(self.dir.join("oauth")).is_err()
        {
            return Ok(None);
        }
        self.get().map(Some)
    }
}

#[cfg(unix)]
impl Store for LazyFileStore {
    fn sign_ins(&self, resource: &str, account: &str) -> Result<Vec<SignIn>, StoreError> {
        match self.existing()? {
            Some(s) => s.sign_ins(resource, account),
            None => Ok(Vec::new()),
        }
    }
    fn all(&self) -> Result<Vec<SignIn>, StoreError> {
        match self.existing()? {
            Some(s) => s.all(),
            None => Ok(Vec::new()),
        }
    }
    fn save(&self, sign_in: &SignIn) -> Result<(), StoreError> {
        self.get()?.save(sign_in)
    }
    fn remove(&self, key: &SignInKey) -> Result<bool, StoreError> {
        self.get()?.remove(key)
    }
    fn client(&self, issuer: &str) -> Result<Option<ClientRegistration>, StoreError> {
        match self.existing()? {
            Some(s) => s.client(issuer),
            None => Ok(None),
        }
    }
    fn save_client(&self, client: &ClientRegistration) -> Result<(), StoreError> {
        self.get()?.save_client(client)
    }
    fn remove_client(&self, issuer: &str) -> Result<bool, StoreError> {
        self.get()?.remove_client(issuer)
    }
    fn lock(&self, key: &SignInKey) -> Result<Box<dyn StoreLock>, StoreError> {
        self.get()?.lock(key)
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    #[test]
    fn the_file_store_is_created_only_when_first_written() {
        let t = tempfile::tempdir().unwrap();
        let dir = t.path().join("state");
        let store = open_store(Some(dir.to_str().unwrap())).unwrap();
        assert!(!dir.exists(), "nothing is created when the store is opened");
        // Looking for a sign-in creates nothing either.
        assert!(store.all().unwrap().is_empty());
        assert!(store
            .sign_ins("http://a.example/mcp", "default")
            .unwrap()
            .is_empty());
        assert!(store.client("http://a.example").unwrap().is_none());
        assert!(!dir.exists(), "nothing is created by a look-up");
        // The first write creates the store.
        assert!(!store.remove_client("http://a.example").unwrap());
        assert!(dir.join("oauth").is_dir());
    }

    #[test]
    fn memory_keeps_nothing_on_disk() {
        let store = open_store(Some("memory")).unwrap();
        assert!(store.all().unwrap().is_empty());
    }
}
