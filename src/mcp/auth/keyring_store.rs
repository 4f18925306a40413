//! The sign-in store in the operating system's keychain
//! ([`KeyringStore`], `--auth-store keyring`): the Secret Service on Linux
//! (GNOME Keyring, KWallet), the macOS Keychain, the Windows Credential
//! Manager, reached through the `keyring` crate.
//!
//! Items, all of service `ahp-elicit`:
//!
//! - `sign-in <16 hex digits>` (the hash of resource, issuer and account,
//!   as the file store names its files): the whole sign-in as one secret,
//!   its record ([`super::record`]: tokens, refresh token, the client
//!   registration with a DCR client secret, and whatever a sign-in keeps
//!   beside them), compact JSON;
//! - `client <16 hex digits>` (the hash of the issuer): a client
//!   registration kept for its authorization server;
//! - `index`: the names of the sign-ins and issuers kept (no secret), as
//!   the keychains have no portable way to list one application's items.
//!   A sign-in the index lost is found again by [`KeyringStore::sign_ins`]
//!   never; saving it again puts it back.
//!
//! Nothing else is written anywhere, except the lock file of a sign-in
//! (empty) in the state directory's `oauth/` around a refresh, when there is
//! a state directory: two processes never spend one rotating refresh token.
//!
//! Errors are typed ([`StoreError::KeychainUnreachable`],
//! [`StoreError::KeychainLocked`], [`StoreError::KeychainItemDamaged`],
//! [`StoreError::KeychainFailed`]) and name `--auth-store file` as the way
//! out. The system's own words are kept (made safe for a terminal); a
//! secret never is.

use std::path::PathBuf;
use std::sync::{mpsc, Arc};
use std::time::Duration;

use super::record;
use super::store::{
    ClientRegistration, Damage, NoLock, SignIn, SignInKey, Store, StoreError, StoreLock,
};

/// The keychain items' service name.
pub const SERVICE: &str = "ahp-elicit";

/// The index item's user name.
const INDEX: &str = "index";

/// The largest item read (64 KiB, as a sign-in file).
const MAX_ITEM_BYTES: usize = 64 * 1024;

/// The keychain of this system, in words: `the Secret Service keychain`,
/// `the macOS Keychain`, `the Windows Credential Manager`.
pub fn keychain_name() -> &'static str {
    if cfg!(target_os = "macos") {
        "the macOS Keychain"
    } else if cfg!(windows) {
        "the Windows Credential Manager"
    } else {
        "the Secret Service keychain"
    }
}

/// One keychain: items of service [`SERVICE`] by user name. The system's
/// ([`SystemKeychain`]) in use; a map in the tests.
pub trait Keychain: Send + Sync {
    /// The secret of item `user`; `None` when there is none.
    fn get(&self, user: &str) -> Result<Option<Vec<u8>>, keyring::Error>;
    /// Writes (or replaces) item `user`.
    fn set(&self, user: &str, secret: &[u8]) -> Result<(), keyring::Error>;
    /// Deletes item `user`; `false` when there was none.
    fn delete(&self, user: &str) -> Result<bool, keyring::Error>;
}

/// The operating system's keychain, through `keyring::Entry`.
#[derive(Debug, Default, Clone, Copy)]
pub struct SystemKeychain;

impl Keychain for SystemKeychain {
    fn get(&self, user: &str) -> Result<Option<Vec<u8>>, keyring::Error> {
        match keyring::Entry::new(SERVICE, user)?.get_secret() {
            Ok(s) => Ok(Some(s)),
            Err(keyring::Error::NoEntry) => Ok(None),
            Err(e) => Err(e),
        }
    }
    fn set(&self, user: &str, secret: &[u8]) -> Result<(), keyring::Error> {
        keyring::Entry::new(SERVICE, user)?.set_secret(secret)
    }
    fn delete(&self, user: &str) -> Result<bool, keyring::Error> {
        match keyring::Entry::new(SERVICE, user)?.delete_credential() {
            Ok(()) => Ok(true),
            Err(keyring::Error::NoEntry) => Ok(false),
            Err(e) => Err(e),
        }
    }
}

/// The sign-in store in a keychain (see the module documentation).
pub struct KeyringStore {
    keychain: Arc<dyn Keychain>,
    /// The state directory the lock files go in, if any.
    lock_dir: Option<PathBuf>,
}

impl std::fmt::Debug for KeyringStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("KeyringStore")
            .field("lock_dir", &self.lock_dir)
            .finish_non_exhaustive()
    }
}

/// What the index item holds.
#[derive(Debug, Default, serde::Serialize, serde::Deserialize)]
struct Index {
    version: u32,
    #[serde(default)]
    sign_ins: Vec<IndexKey>,
    #[serde(default)]
    clients: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
struct IndexKey {
    resource: String,
    issuer: String,
    account: String,
}

impl From<&SignInKey> for IndexKey {
    fn from(k: &SignInKey) -> Self {
        IndexKey {
            resource: k.resource.clone(),
            issuer: k.issuer.clone(),
            account: k.account.clone(),
        }
    }
}

impl From<IndexKey> for SignInKey {
    fn from(k: IndexKey) -> Self {
        SignInKey {
            resource: k.resource,
            issuer: k.issuer,
            account: k.account,
        }
    }
}

/// One sign-in's item as `auth status` lists it: its name, and the
/// sign-in or why it could not be read.
pub type Item = (String, Result<SignIn, StoreError>);

/// The item a sign-in is kept in.
pub fn item_of(key: &SignInKey) -> String {
    format!(
        "sign-in {}",
        record::hash(&[&key.resource, &key.issuer, &key.account])
    )
}

/// The item the client registered at `issuer` is kept in.
fn client_item(issuer: &str) -> String {
    format!("client {}", record::hash(&[issuer]))
}

/// A keychain error in the store's words (never a secret: a keychain's
/// error holds no item's secret, and the bytes of a badly encoded one are
/// dropped here).
fn keychain_error(doing: &'static str, e: keyring::Error) -> StoreError {
    let keychain = keychain_name();
    let safe = |e: &dyn std::error::Error| crate::safe_text::display(&e.to_string()).into_owned();
    match e {
        keyring::Error::NoStorageAccess(inner) => StoreError::KeychainLocked {
            keychain,
            why: safe(inner.as_ref()),
        },
        keyring::Error::PlatformFailure(inner) => {
            let why = safe(inner.as_ref());
            // No bus, no service on it, no answer: the keychain is not
            // there, whatever was being done.
            let unreachable = [
                "ServiceUnknown",
                "was not provided by any",
                "NoServer",
                "Unable to autolaunch",
                "Failed to connect",
                "NoReply",
                "Did not receive a reply",
                "Timeout",
            ];
            if unreachable.iter().any(|m| why.contains(m)) {
                StoreError::KeychainUnreachable { keychain, why }
            } else {
                StoreError::KeychainFailed {
                    keychain,
                    doing,
                    why,
                }
            }
        }
        keyring::Error::BadEncoding(_) => StoreError::KeychainFailed {
            keychain,
            doing,
            why: "an item is not in the encoding the keychain stated".into(),
        },
        keyring::Error::TooLong(attr, limit) => StoreError::KeychainFailed {
            keychain,
            doing,
            why: format!(
                "its {} is over the keychain's limit of {limit}",
                crate::safe_text::display(&attr)
            ),
        },
        keyring::Error::Ambiguous(items) => StoreError::KeychainFailed {
            keychain,
            doing,
            why: format!(
                "{} items of service {SERVICE} have that name; delete them with the keychain's own tool",
                items.len()
            ),
        },
        other => StoreError::KeychainFailed {
            keychain,
            doing,
            why: crate::safe_text::display(&other.to_string()).into_owned(),
        },
    }
}

impl KeyringStore {
    /// The store in the system's keychain, lock files (when sign-ins are
    /// refreshed) in `lock_dir`'s `oauth/` when given. Opening asks the
    /// keychain nothing: [`probe`] does.
    pub fn system(lock_dir: Option<PathBuf>) -> Self {
        Self::with(Arc::new(SystemKeychain), lock_dir)
    }

    /// The store in `keychain` (tests give a map).
    pub fn with(keychain: Arc<dyn Keychain>, lock_dir: Option<PathBuf>) -> Self {
        KeyringStore { keychain, lock_dir }
    }

    /// The bytes of item `user`, `None` when there is none.
    fn read(&self, user: &str, doing: &'static str) -> Result<Option<Vec<u8>>, StoreError> {
        let bytes = self
            .keychain
            .get(user)
            .map_err(|e| keychain_error(doing, e))?;
        match bytes {
            Some(b) if b.len() > MAX_ITEM_BYTES => Err(StoreError::KeychainItemDamaged {
                item: user.to_owned(),
                why: Damage::TooLarge {
                    kib: (MAX_ITEM_BYTES / 1024) as u64,
                },
            }),
            b => Ok(b),
        }
    }

    /// The index; empty when there is none yet.
    fn index(&self) -> Result<Index, StoreError> {
        let Some(bytes) = self.read(INDEX, "read its index of sign-ins")? else {
            return Ok(Index {
                version: record::FORMAT_VERSION,
                ..Index::default()
            });
        };
        serde_json::from_slice(&bytes).map_err(|e| StoreError::KeychainItemDamaged {
            item: INDEX.to_owned(),
            why: Damage::NotJson(Arc::new(e)),
        })
    }

    /// Changes the index with `change` and writes it when it changed.
    fn update_index(&self, change: impl Fn(&mut Index)) -> Result<(), StoreError> {
        let mut index = self.index()?;
        let before = serde_json::to_vec(&index).unwrap_or_default();
        change(&mut index);
        index.version = record::FORMAT_VERSION;
        let after = serde_json::to_vec(&index).map_err(|e| StoreError::Encode {
            what: "the keychain index",
            source: Arc::new(e),
        })?;
        if after == before {
            return Ok(());
        }
        self.keychain
            .set(INDEX, &after)
            .map_err(|e| keychain_error("keep its index of sign-ins", e))
    }

    /// The sign-in of `key`, if kept.
    ///
    /// Errors: the keychain failed, or its item is damaged.
    pub fn get(&self, key: &SignInKey) -> Result<Option<SignIn>, StoreError> {
        let item = item_of(key);
        let Some(bytes) = self.read(&item, "read a sign-in")? else {
            return Ok(None);
        };
        let s = record::sign_in_from(&bytes)
            .map_err(|why| StoreError::KeychainItemDamaged { item, why })?;
        // Another key with the same 64-bit hash: not this one's.
        Ok((s.key == *key).then_some(s))
    }

    /// Every sign-in the index names, each read or why not (`auth status`,
    /// which lists a damaged item instead of failing on it), with its item
    /// name. A sign-in the index names that is gone is left out.
    ///
    /// Errors: the index cannot be read.
    pub fn entries(&self) -> Result<Vec<Item>, StoreError> {
        let index = self.index()?;
        let mut out = Vec::new();
        for k in index.sign_ins {
            let key = SignInKey::from(k);
            match self.get(&key) {
                Ok(Some(s)) => out.push((item_of(&key), Ok(s))),
                Ok(None) => {}
                Err(e) => out.push((item_of(&key), Err(e))),
            }
        }
        Ok(out)
    }

    /// Deletes every sign-in the index names (`auth logout --all`); returns
    /// how many were deleted.
    ///
    /// Errors: the first that could not be deleted.
    pub fn remove_all(&self) -> Result<usize, StoreError> {
        let mut n = 0;
        for k in self.index()?.sign_ins {
            if self.remove(&SignInKey::from(k))? {
                n += 1;
            }
        }
        Ok(n)
    }

    /// Deletes every client registration the index names; returns how
    /// many were deleted.
    ///
    /// Errors: the first that could not be deleted.
    pub fn remove_all_clients(&self) -> Result<usize, StoreError> {
        let mut n = 0;
        for issuer in self.index()?.clients {
            if self.remove_client(&issuer)? {
                n += 1;
            }
        }
        Ok(n)
    }
}

impl Store for KeyringStore {
    fn sign_ins(&self, resource: &str, account: &str) -> Result<Vec<SignIn>, StoreError> {
        let mut out = Vec::new();
        for k in self.index()?.sign_ins {
            if k.resource == resource && k.account == account {
                if let Some(s) = self.get(&SignInKey::from(k))? {
                    out.push(s);
                }
            }
        }
        Ok(out)
    }

    fn all(&self) -> Result<Vec<SignIn>, StoreError> {
        self.entries()?.into_iter().map(|(_, s)| s).collect()
    }

    fn save(&self, sign_in: &SignIn) -> Result<(), StoreError> {
        let bytes = compact(record::sign_in_bytes(sign_in)?);
        self.keychain
            .set(&item_of(&sign_in.key), &bytes)
            .map_err(|e| keychain_error("keep a sign-in", e))?;
        let k = IndexKey::from(&sign_in.key);
        self.update_index(|i| {
            if !i.sign_ins.contains(&k) {
                i.sign_ins.push(k.clone());
            }
        })
    }

    fn remove(&self, key: &SignInKey) -> Result<bool, StoreError> {
        let removed = self
            .keychain
            .delete(&item_of(key))
            .map_err(|e| keychain_error("delete a sign-in", e))?;
        let k = IndexKey::from(key);
        self.update_index(|i| i.sign_ins.retain(|x| *x != k))?;
        Ok(removed)
    }

    fn client(&self, issuer: &str) -> Result<Option<ClientRegistration>, StoreError> {
        let item = client_item(issuer);
        let Some(bytes) = self.read(&item, "read a client registration")? else {
            return Ok(None);
        };
        let c = record::client_from(&bytes)
            .map_err(|why| StoreError::KeychainItemDamaged { item, why })?;
        Ok((c.issuer == issuer).then_some(c))
    }

    fn save_client(&self, client: &ClientRegistration) -> Result<(), StoreError> {
        let bytes = compact(record::client_bytes(client)?);
        self.keychain
            .set(&client_item(&client.issuer), &bytes)
            .map_err(|e| keychain_error("keep a client registration", e))?;
        self.update_index(|i| {
            if !i.clients.contains(&client.issuer) {
                i.clients.push(client.issuer.clone());
            }
        })
    }

    fn remove_client(&self, issuer: &str) -> Result<bool, StoreError> {
        let removed = self
            .keychain
            .delete(&client_item(issuer))
            .map_err(|e| keychain_error("delete a client registration", e))?;
        self.update_index(|i| i.clients.retain(|x| x != issuer))?;
        Ok(removed)
    }

    fn lock(&self, key: &SignInKey) -> Result<Box<dyn StoreLock>, StoreError> {
        #[cfg(unix)]
        if let Some(dir) = &self.lock_dir {
            return super::file_store::FileStore::open(dir)?.lock(key);
        }
        let _ = key;
        Ok(Box::new(NoLock))
    }

    fn kept_in(&self, _key: &SignInKey) -> String {
        keychain_name().to_owned()
    }
}

/// A record as compact JSON (the Windows Credential Manager keeps at most
/// 2,560 bytes an item).
fn compact(pretty: Vec<u8>) -> Vec<u8> {
    serde_json::from_slice::<serde_json::Value>(&pretty)
        .and_then(|v| serde_json::to_vec(&v))
        .unwrap_or(pretty)
}

/// Whether the system's keychain answers, within `timeout`: the index item
/// is read (nothing is written). On Linux with no session bus in the
/// environment (`DBUS_SESSION_BUS_ADDRESS` unset and no
/// `$XDG_RUNTIME_DIR/bus`) it fails at once, without asking D-Bus to start
/// one. A keychain that does not answer in time is left to answer no one
/// (its thread is abandoned).
///
/// Errors: why the keychain cannot be used ([`StoreError::KeychainUnreachable`],
/// [`StoreError::KeychainLocked`], …).
pub fn probe(timeout: Duration) -> Result<(), StoreError> {
    if cfg!(target_os = "linux") {
        if let Some(why) = no_session_bus(|v| std::env::var_os(v)) {
            return Err(StoreError::KeychainUnreachable {
                keychain: keychain_name(),
                why,
            });
        }
    }
    probe_with(Arc::new(SystemKeychain), timeout)
}

/// [`probe`] on a given keychain, without looking for a session bus.
pub fn probe_with(keychain: Arc<dyn Keychain>, timeout: Duration) -> Result<(), StoreError> {
    let (tx, rx) = mpsc::channel();
    let asked = std::thread::Builder::new()
        .name("keychain-probe".into())
        .spawn(move || {
            let _ = tx.send(keychain.get(INDEX).map(|_| ()));
        });
    if let Err(e) = asked {
        return Err(StoreError::KeychainFailed {
            keychain: keychain_name(),
            doing: "answer",
            why: e.to_string(),
        });
    }
    match rx.recv_timeout(timeout) {
        Ok(Ok(())) => Ok(()),
        Ok(Err(e)) => Err(match keychain_error("answer", e) {
            // Whatever went wrong, the keychain cannot be used now.
            StoreError::KeychainFailed { keychain, why, .. } => {
                StoreError::KeychainUnreachable { keychain, why }
            }
            other => other,
        }),
        Err(_) => Err(StoreError::KeychainUnreachable {
            keychain: keychain_name(),
            why: format!("no answer within {} s", timeout.as_secs_f32()),
        }),
    }
}

/// Why there is no D-Bus session bus to find a Secret Service on, from
/// the environment; `None` when there may be one.
fn no_session_bus(env: impl Fn(&str) -> Option<std::ffi::OsString>) -> Option<String> {
    let set = |v: &str| env(v).filter(|x| !x.is_empty());
    if set("DBUS_SESSION_BUS_ADDRESS").is_some() {
        return None;
    }
    if let Some(run) = set("XDG_RUNTIME_DIR") {
        if std::path::Path::new(&run).join("bus").exists() {
            return None;
        }
    }
    Some("no D-Bus session bus: DBUS_SESSION_BUS_ADDRESS is not set".into())
}

#[cfg(test)]
pub(crate) mod tests;
