//! Which store a run keeps its sign-ins in ([`open_store`], from
//! `--auth-store`), and the default store ([`DefaultStore`]) that holds
//! them when the flag is not given.
//!
//! | `--auth-store` | store |
//! |---|---|
//! | (not given) | [`DefaultStore`]: new sign-ins in the keychain when one answers within [`PROBE_TIMEOUT`], else in the file store; sign-ins are read from both, and one found in the file store is kept there |
//! | `keyring` | the keychain only (`keyring_store`) |
//! | `file` | the file store in the state directory (`file_store::default_dir`) |
//! | `memory` | [`MemoryStore`]: this run only |
//! | any other word | the file store in that directory |

use std::path::PathBuf;
use std::sync::{Arc, OnceLock};

#[cfg(unix)]
use super::file_store;
#[cfg(all(
    feature = "keyring",
    any(target_os = "linux", target_os = "macos", windows)
))]
use super::keyring_store::{self, KeyringStore};
use super::store::{
    ClientRegistration, MemoryStore, NoLock, SignIn, SignInKey, Store, StoreError, StoreLock,
};

/// How long the default store waits for the keychain's first answer.
pub const PROBE_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(3);

/// The store `--auth-store` names (see the module documentation). The
/// file store is opened only when first used, and its directories are
/// created only when a sign-in or a client is first written, so a run that
/// never signs in leaves nothing behind; the keychain is first asked when
/// a sign-in is first looked up.
///
/// Errors: `keyring` in a build without a keychain
/// ([`StoreError::NoKeychainHere`]) or when the keychain does not answer
/// within [`NAMED_PROBE_TIMEOUT`] ([`StoreError::KeychainUnreachable`],
/// [`StoreError::KeychainLocked`]); `file` or the default with no state
/// directory in the environment (no `HOME`, `XDG_STATE_HOME` or
/// `AHP_ELICIT_STATE_DIR`) and, for the default, no keychain either; a
/// directory (not on Unix: sign-ins are kept on disk only there).
pub fn open_store(choice: Option<&str>) -> Result<Arc<dyn Store>, StoreError> {
    match choice {
        Some("memory") => Ok(Arc::new(MemoryStore::default())),
        Some("keyring") => keyring(),
        Some("file") => Ok(Arc::new(lazy_file(None)?)),
        Some(dir) => Ok(Arc::new(lazy_file(Some(PathBuf::from(dir)))?)),
        None => Ok(Arc::new(DefaultStore::new())),
    }
}

/// The state directory the keychain store's lock files are in.
#[cfg(all(
    feature = "keyring",
    any(target_os = "linux", target_os = "macos", windows)
))]
fn state_dir() -> Option<PathBuf> {
    #[cfg(unix)]
    {
        file_store::default_dir()
    }
    #[cfg(not(unix))]
    {
        None
    }
}

/// How long `--auth-store keyring` waits for the keychain's first answer
/// (longer than the default's: the person may be unlocking it).
#[cfg(all(
    feature = "keyring",
    any(target_os = "linux", target_os = "macos", windows)
))]
pub const NAMED_PROBE_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(30);

/// `--auth-store keyring`: the keychain, asked once at the start (so a run
/// that cannot keep its sign-in there says so before any sign-in).
fn keyring() -> Result<Arc<dyn Store>, StoreError> {
    #[cfg(all(
        feature = "keyring",
        any(target_os = "linux", target_os = "macos", windows)
    ))]
    {
        keyring_store::probe(NAMED_PROBE_TIMEOUT)?;
        Ok(Arc::new(KeyringStore::system(state_dir())))
    }
    #[cfg(not(all(
        feature = "keyring",
        any(target_os = "linux", target_os = "macos", windows)
    )))]
    {
        Err(StoreError::NoKeychainHere)
    }
}

/// The file store in `dir`, else in the state directory, opened on first
/// use.
fn lazy_file(dir: Option<PathBuf>) -> Result<LazyFileStore, StoreError> {
    #[cfg(unix)]
    {
        let dir = match dir {
            Some(d) => d,
            None => file_store::default_dir().ok_or(StoreError::NoStateDir)?,
        };
        Ok(LazyFileStore {
            dir,
            opened: OnceLock::new(),
        })
    }
    #[cfg(not(unix))]
    {
        let _ = dir;
        Err(StoreError::NotOnDisk)
    }
}

/// A file store opened on first use (see [`open_store`]). Not on Unix
/// there is none: every use fails with [`StoreError::NotOnDisk`].
pub struct LazyFileStore {
    #[cfg_attr(not(unix), allow(dead_code))]
    dir: PathBuf,
    #[cfg(unix)]
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

#[cfg(not(unix))]
impl LazyFileStore {
    fn get(&self) -> Result<&NeverFile, StoreError> {
        Err(StoreError::NotOnDisk)
    }
    fn existing(&self) -> Result<Option<&NeverFile>, StoreError> {
        Ok(None)
    }
}

/// Not on Unix: the file store that is never there.
#[cfg(not(unix))]
type NeverFile = MemoryStore;

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
        match self.existing()? {
            Some(s) => s.remove(key),
            None => Ok(false),
        }
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
    fn kept_in(&self, key: &SignInKey) -> String {
        match self.get() {
            Ok(s) => s.kept_in(key),
            Err(_) => format!(
                "{} (0600 file)",
                crate::safe_text::display(&self.dir.join("oauth").to_string_lossy())
            ),
        }
    }
}

/// The store of a run without `--auth-store`: new sign-ins and client
/// registrations go to the keychain when one answers the first question
/// within [`PROBE_TIMEOUT`] ([`keyring_store::probe`]; on a Linux machine
/// with no Secret Service, as over ssh, in containers and on CI, it fails
/// at once), else to the `0600` file store. Sign-ins are read from both;
/// one found in the file store (kept there by an earlier version, or by a
/// run without a keychain) is used and renewed there, until `ahp-elicit
/// auth move --to keyring` moves it.
pub struct DefaultStore {
    /// The file store; an error when there is none (no state directory).
    file: Result<LazyFileStore, StoreError>,
    /// The keychain, when it answered; asked once, when first needed.
    keychain: OnceLock<Result<Arc<dyn Store>, StoreError>>,
    /// How the keychain is reached (the system's; a map in the tests).
    open_keychain: Box<dyn Fn() -> Result<Arc<dyn Store>, StoreError> + Send + Sync>,
}

impl DefaultStore {
    /// The default store on this system (nothing is asked or opened yet).
    pub fn new() -> Self {
        Self::with(lazy_file(None), Box::new(system_keychain))
    }

    /// The default store with its file store and its way to the keychain
    /// given.
    pub fn with(
        file: Result<LazyFileStore, StoreError>,
        open_keychain: Box<dyn Fn() -> Result<Arc<dyn Store>, StoreError> + Send + Sync>,
    ) -> Self {
        DefaultStore {
            file,
            keychain: OnceLock::new(),
            open_keychain,
        }
    }

    /// The keychain, when it answers (asked once).
    pub fn keychain(&self) -> Result<&Arc<dyn Store>, StoreError> {
        self.keychain
            .get_or_init(|| (self.open_keychain)())
            .as_ref()
            .map_err(Clone::clone)
    }

    /// Where new sign-ins go: the keychain when it answers, else the file.
    fn primary(&self) -> Result<&dyn Store, StoreError> {
        match (self.keychain(), &self.file) {
            (Ok(k), _) => Ok(k.as_ref()),
            (Err(_), Ok(f)) => Ok(f),
            // Neither: the file store's reason, which names the way out.
            (Err(_), Err(e)) => Err(e.clone()),
        }
    }

    /// Whether the file store holds the sign-in `key`.
    fn file_holds(&self, key: &SignInKey) -> Result<bool, StoreError> {
        match &self.file {
            Ok(f) => Ok(f
                .sign_ins(&key.resource, &key.account)?
                .iter()
                .any(|s| s.key == *key)),
            Err(_) => Ok(false),
        }
    }

    /// Both stores' sign-ins from `get`, the keychain's first; a sign-in in
    /// both counts once (the keychain's).
    fn both(
        &self,
        get: impl Fn(&dyn Store) -> Result<Vec<SignIn>, StoreError>,
    ) -> Result<Vec<SignIn>, StoreError> {
        let mut out = match self.keychain() {
            Ok(k) => get(k.as_ref())?,
            Err(_) => Vec::new(),
        };
        if let Ok(f) = &self.file {
            for s in get(f)? {
                if !out.iter().any(|o| o.key == s.key) {
                    out.push(s);
                }
            }
        }
        Ok(out)
    }
}

impl Default for DefaultStore {
    fn default() -> Self {
        Self::new()
    }
}

/// The system's keychain when it answers ([`keyring_store::probe`]).
fn system_keychain() -> Result<Arc<dyn Store>, StoreError> {
    #[cfg(all(
        feature = "keyring",
        any(target_os = "linux", target_os = "macos", windows)
    ))]
    {
        keyring_store::probe(PROBE_TIMEOUT)?;
        Ok(Arc::new(KeyringStore::system(state_dir())))
    }
    #[cfg(not(all(
        feature = "keyring",
        any(target_os = "linux", target_os = "macos", windows)
    )))]
    {
        Err(StoreError::NoKeychainHere)
    }
}

impl Store for DefaultStore {
    fn sign_ins(&self, resource: &str, account: &str) -> Result<Vec<SignIn>, StoreError> {
        self.both(|s| s.sign_ins(resource, account))
    }

    fn all(&self) -> Result<Vec<SignIn>, StoreError> {
        self.both(|s| s.all())
    }

    fn save(&self, sign_in: &SignIn) -> Result<(), StoreError> {
        match &self.file {
            Ok(f) if self.file_holds(&sign_in.key)? => f.save(sign_in),
            _ => self.primary()?.save(sign_in),
        }
    }

    fn remove(&self, key: &SignInKey) -> Result<bool, StoreError> {
        let mut removed = false;
        if let Ok(k) = self.keychain() {
            removed |= k.remove(key)?;
        }
        if let Ok(f) = &self.file {
            removed |= f.remove(key)?;
        }
        Ok(removed)
    }

    fn client(&self, issuer: &str) -> Result<Option<ClientRegistration>, StoreError> {
        if let Ok(k) = self.keychain() {
            if let Some(c) = k.client(issuer)? {
                return Ok(Some(c));
            }
        }
        match &self.file {
            Ok(f) => f.client(issuer),
            Err(_) => Ok(None),
        }
    }

    fn save_client(&self, client: &ClientRegistration) -> Result<(), StoreError> {
        match &self.file {
            Ok(f) if f.client(&client.issuer)?.is_some() => f.save_client(client),
            _ => self.primary()?.save_client(client),
        }
    }

    fn remove_client(&self, issuer: &str) -> Result<bool, StoreError> {
        let mut removed = false;
        if let Ok(k) = self.keychain() {
            removed |= k.remove_client(issuer)?;
        }
        if let Ok(f) = &self.file {
            removed |= f.remove_client(issuer)?;
        }
        Ok(removed)
    }

    fn lock(&self, key: &SignInKey) -> Result<Box<dyn StoreLock>, StoreError> {
        match &self.file {
            Ok(f) => f.lock(key),
            Err(_) => Ok(Box::new(NoLock)),
        }
    }

    fn kept_in(&self, key: &SignInKey) -> String {
        match (&self.file, self.keychain()) {
            (Ok(f), Ok(_)) if self.file_holds(key).unwrap_or(false) => f.kept_in(key),
            (_, Ok(k)) => k.kept_in(key),
            (Ok(f), Err(why)) => format!(
                "{}; no keychain answered ({})",
                f.kept_in(key),
                why.keychain_why()
            ),
            (Err(e), Err(_)) => format!("nowhere ({e})"),
        }
    }
}

#[cfg(all(test, unix))]
mod tests;
