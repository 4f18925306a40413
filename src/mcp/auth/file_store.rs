//! The sign-in store on disk ([`FileStore`]): where `ahp-elicit auth login`
//! and `mcp` keep sign-ins between runs.
//!
//! Layout, under the state directory ([`default_dir`], or `--auth-store
//! DIR`):
//!
//! - `oauth/` (mode `0700`): one file per sign-in,
//!   `<16 hex digits of sha256(resource, issuer, account)>.json`, mode
//!   `0600`, and beside it the sign-in's lock file (`<same>.lock`, taken
//!   with `flock` around a refresh);
//! - `oauth/clients/` (mode `0700`): one file per authorization server's
//!   client registration (DCR or metadata document),
//!   `<16 hex digits of sha256(issuer)>.json`, mode `0600`.
//!
//! The hash input is each string's length (8 bytes, big-endian) followed by
//! its bytes, so no two different triples hash alike by concatenation.
//!
//! Writes are atomic: a new file beside the old one is opened
//! `O_CREAT|O_EXCL|O_NOFOLLOW` with mode `0600`, written, `fsync`ed and
//! renamed over the old one (then the directory is `fsync`ed); a reader sees
//! the old file or the new one, never half of one. Reads open with
//! `O_NOFOLLOW` and check the open file (`fstat`): a symbolic link, a file
//! that is not a regular file, a file owned by another user or one that
//! its group or others may read or write is refused with one line naming
//! the file and the command that fixes it, as `ssh` does for its keys.
//! The directories are checked the same way (`chmod 700`).
//!
//! The files are JSON with a `version` ([`FORMAT_VERSION`]); a file of
//! another version, or one that is not such JSON, is reported by name,
//! never read as something else. Tokens, DCR client secrets and a DPoP
//! sign-in's private key (`dpop_key`, absent for a bearer sign-in and in
//! files written before DPoP) are in the files (that is what they are
//! for); a pre-registered client's secret is never written. Nothing here puts a secret in an error or in `Debug`.

use std::fs::{File, OpenOptions};
use std::io::{Read, Write};
use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::SystemTime;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::store::{
    ClientKind, ClientRegistration, Damage, GrantType, Secret, SignIn, SignInKey, Store,
    StoreError, StoreLock, Tokens, Unsafety,
};

/// The version of the files this build writes and reads.
pub const FORMAT_VERSION: u32 = 1;

/// The largest sign-in or client file read (64 KiB): tokens are long, but
/// not that long; a bigger file is refused rather than read whole.
const MAX_FILE_BYTES: u64 = 64 * 1024;

/// The state directory by the environment: `$AHP_ELICIT_STATE_DIR`, else
/// `$XDG_STATE_HOME/ahp-elicit`, else `$HOME/.local/state/ahp-elicit`
/// (empty variables and a relative `XDG_STATE_HOME` are ignored, as the
/// XDG base directory specification says). `None` when none is set.
pub fn default_dir() -> Option<PathBuf> {
    dir_from(|name| std::env::var_os(name))
}

/// [`default_dir`] with the environment given as a function.
fn dir_from(env: impl Fn(&str) -> Option<std::ffi::OsString>) -> Option<PathBuf> {
    let set = |name: &str| env(name).filter(|v| !v.is_empty()).map(PathBuf::from);
    if let Some(d) = set("AHP_ELICIT_STATE_DIR") {
        return Some(d);
    }
    if let Some(d) = set("XDG_STATE_HOME").filter(|d| d.is_absolute()) {
        return Some(d.join("ahp-elicit"));
    }
    set("HOME").map(|h| h.join(".local/state/ahp-elicit"))
}

/// The sign-in store in a directory (see the module documentation).
#[derive(Debug, Clone)]
pub struct FileStore {
    /// `<dir>/oauth`.
    oauth: PathBuf,
    /// `<dir>/oauth/clients`.
    clients: PathBuf,
}

/// One file of the store as `auth status` lists it: where it is and what
/// it holds, or why it could not be read.
#[derive(Debug)]
pub struct Entry {
    /// The file.
    pub path: PathBuf,
    /// The sign-in it holds, or the one-line reason it was not read.
    pub sign_in: Result<SignIn, StoreError>,
}

impl FileStore {
    /// Opens (creating when missing) the store in `dir`: `dir` itself is
    /// created with mode `0700` when missing; `oauth/` and
    /// `oauth/clients/` are created `0700` and must be directories (not
    /// links) owned by this user with no group or other bits.
    ///
    /// Errors: one line naming the directory and, when it is unsafe, the
    /// `chmod` that fixes it.
    pub fn open(dir: &Path) -> Result<FileStore, StoreError> {
        let oauth = dir.join("oauth");
        let clients = oauth.join("clients");
        for d in [dir, oauth.as_path(), clients.as_path()] {
            make_dir(d)?;
        }
        for d in [&oauth, &clients] {
            check_dir(d)?;
        }
        Ok(FileStore { oauth, clients })
    }

    /// The file a sign-in is kept in (whether or not it exists).
    pub fn path_of(&self, key: &SignInKey) -> PathBuf {
        self.oauth.join(format!(
            "{}.json",
            hash(&[&key.resource, &key.issuer, &key.account])
        ))
    }

    /// The file the client registered at `issuer` is kept in.
    pub fn client_path(&self, issuer: &str) -> PathBuf {
        self.clients.join(format!("{}.json", hash(&[issuer])))
    }

    /// Every sign-in file with what it holds or why it could not be read,
    /// sorted by file name (`auth status`, which lists a broken file
    /// instead of failing on it).
    ///
    /// Errors: the `oauth/` directory cannot be listed.
    pub fn entries(&self) -> Result<Vec<Entry>, StoreError> {
        Ok(self
            .files()?
            .into_iter()
            .map(|path| Entry {
                sign_in: read_sign_in(&path),
                path,
            })
            .collect())
    }

    /// Deletes every sign-in file (`auth logout --all`), read or not;
    /// returns how many were deleted.
    ///
    /// Errors: the first file that could not be deleted.
    pub fn remove_all(&self) -> Result<usize, StoreError> {
        let files = self.files()?;
        for f in &files {
            remove_file(f)?;
        }
        Ok(files.len())
    }

    /// Deletes every client registration (`auth logout --all
    /// --forget-client`); returns how many were deleted.
    ///
    /// Errors: the first file that could not be deleted.
    pub fn remove_all_clients(&self) -> Result<usize, StoreError> {
        let files = json_files(&self.clients)?;
        for f in &files {
            remove_file(f)?;
        }
        Ok(files.len())
    }

    /// The sign-in files (`*.json` in `oauth/`), sorted.
    fn files(&self) -> Result<Vec<PathBuf>, StoreError> {
        json_files(&self.oauth)
    }
}

/// The `*.json` files of `dir` (not the temporary `.…` ones), sorted.
fn json_files(dir: &Path) -> Result<Vec<PathBuf>, StoreError> {
    let list = std::fs::read_dir(dir).map_err(|e| io_error("list", dir, e))?;
    let mut out = Vec::new();
    for entry in list {
        let entry = entry.map_err(|e| io_error("list", dir, e))?;
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if name.ends_with(".json") && !name.starts_with('.') {
            out.push(entry.path());
        }
    }
    out.sort();
    Ok(out)
}

impl Store for FileStore {
    fn sign_ins(&self, resource: &str, account: &str) -> Result<Vec<SignIn>, StoreError> {
        Ok(self
            .all()?
            .into_iter()
            .filter(|s| s.key.resource == resource && s.key.account == account)
            .collect())
    }

    /// Every stored sign-in. Errors: the first file that is unsafe or
    /// unreadable (`auth status` lists them all with [`FileStore::entries`]).
    fn all(&self) -> Result<Vec<SignIn>, StoreError> {
        self.files()?.iter().map(|p| read_sign_in(p)).collect()
    }

    fn save(&self, sign_in: &SignIn) -> Result<(), StoreError> {
        let bytes = serde_json::to_vec_pretty(&SignInFile::from(sign_in)).map_err(|e| {
            StoreError::Encode {
                what: "a sign-in",
                source: Arc::new(e),
            }
        })?;
        write_atomic(&self.path_of(&sign_in.key), &bytes)
    }

    fn remove(&self, key: &SignInKey) -> Result<bool, StoreError> {
        remove_file(&self.path_of(key))
    }

    fn client(&self, issuer: &str) -> Result<Option<ClientRegistration>, StoreError> {
        let path = self.client_path(issuer);
        let Some(bytes) = read_private(&path)? else {
            return Ok(None);
        };
        let file: ClientFile = parse(&path, &bytes)?;
        let client = file.client.into_registration(&path)?;
        // Another issuer with the same 64-bit hash: not this one's.
        Ok((client.issuer == issuer).then_some(client))
    }

    fn save_client(&self, client: &ClientRegistration) -> Result<(), StoreError> {
        let file = ClientFile {
            version: FORMAT_VERSION,
            client: ClientJson::from(client),
        };
        let bytes = serde_json::to_vec_pretty(&file).map_err(|e| StoreError::Encode {
            what: "a client registration",
            source: Arc::new(e),
        })?;
        write_atomic(&self.client_path(&client.issuer), &bytes)
    }

    fn remove_client(&self, issuer: &str) -> Result<bool, StoreError> {
        remove_file(&self.client_path(issuer))
    }

    fn lock(&self, key: &SignInKey) -> Result<Box<dyn StoreLock>, StoreError> {
        let path = self.path_of(key).with_extension("lock");
        let file = open_lock(&path)?;
        // SAFETY: flock on a descriptor this function owns; blocks until
        // the lock is free.
        loop {
            let rc = unsafe { libc::flock(std::os::fd::AsRawFd::as_raw_fd(&file), libc::LOCK_EX) };
            if rc == 0 {
                return Ok(Box::new(FileLock(file)));
            }
            let e = std::io::Error::last_os_error();
            if e.kind() != std::io::ErrorKind::Interrupted {
                return Err(io_error("lock", &path, e));
            }
        }
    }
}

/// A held `flock` on a sign-in's lock file, released when dropped (the
/// descriptor is closed).
struct FileLock(#[allow(dead_code)] File);
impl StoreLock for FileLock {}

/// Opens (creating, `0600`, never through a link) a lock file.
fn open_lock(path: &Path) -> Result<File, StoreError> {
    OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .mode(0o600)
        .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
        .open(path)
        .map_err(|e| refused_open(path, e, "open the lock file"))
}

/// 16 lowercase hex digits of SHA-256 over each part's length (8 bytes,
/// big-endian) and bytes.
fn hash(parts: &[&str]) -> String {
    let mut h = Sha256::new();
    for p in parts {
        h.update((p.len() as u64).to_be_bytes());
        h.update(p.as_bytes());
    }
    h.finalize()
        .iter()
        .take(8)
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// A path for a message: made safe for a terminal.
fn shown(path: &Path) -> String {
    crate::safe_text::display(&path.to_string_lossy()).into_owned()
}

/// `cannot DOING PATH: why` ([`StoreError::Io`]).
fn io_error(doing: &'static str, path: &Path, e: std::io::Error) -> StoreError {
    StoreError::Io {
        doing,
        path: shown(path),
        source: Arc::new(e),
    }
}

/// `refusing to DOING PATH: why` ([`StoreError::Unsafe`]).
fn unsafe_to(doing: &'static str, path: &str, why: Unsafety) -> StoreError {
    StoreError::Unsafe {
        doing,
        path: path.to_owned(),
        why,
    }
}

/// `the sign-in file PATH …` ([`StoreError::Unreadable`]).
fn unreadable(path: &str, why: Damage) -> StoreError {
    StoreError::Unreadable {
        path: path.to_owned(),
        why,
    }
}

/// Creates `dir` (mode `0700`) when missing.
fn make_dir(dir: &Path) -> Result<(), StoreError> {
    match std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)
    {
        Ok(()) => Ok(()),
        Err(e) => Err(io_error("create the sign-in directory", dir, e)),
    }
}

/// `dir` is a real directory, this user's, with no group or other bits.
fn check_dir(dir: &Path) -> Result<(), StoreError> {
    let p = shown(dir);
    let m = std::fs::symlink_metadata(dir)
        .map_err(|e| io_error("read the sign-in directory", dir, e))?;
    if m.file_type().is_symlink() {
        return Err(unsafe_to(
            "use the sign-in directory",
            &p,
            Unsafety::SymbolicLink,
        ));
    }
    if !m.is_dir() {
        return Err(unsafe_to(
            "use the sign-in directory",
            &p,
            Unsafety::NotADirectory,
        ));
    }
    check_owner_and_mode(&m, &p, "read the sign-in directory", "700")
}

/// Owned by this user and no group or other permission bits.
fn check_owner_and_mode(
    m: &std::fs::Metadata,
    shown: &str,
    doing: &'static str,
    fix: &'static str,
) -> Result<(), StoreError> {
    // SAFETY: geteuid has no preconditions and cannot fail.
    let me = unsafe { libc::geteuid() };
    if m.uid() != me {
        return Err(unsafe_to(
            doing,
            shown,
            Unsafety::OtherOwner { uid: m.uid(), me },
        ));
    }
    let mode = m.mode() & 0o777;
    if mode & 0o077 != 0 {
        let who = if mode & 0o070 != 0 && mode & 0o007 == 0 {
            "its group"
        } else {
            "others"
        };
        return Err(unsafe_to(doing, shown, Unsafety::OpenTo { who, mode, fix }));
    }
    Ok(())
}

/// An open that failed, as one line: a symbolic link says so and how to
/// get rid of it.
fn refused_open(path: &Path, e: std::io::Error, doing: &'static str) -> StoreError {
    if e.raw_os_error() == Some(libc::ELOOP) {
        return unsafe_to(doing, &shown(path), Unsafety::SymbolicLink);
    }
    io_error(doing, path, e)
}

/// The bytes of a store file, `None` when it does not exist; the file is
/// opened without following a link and checked once open (regular, this
/// user's, `0600` or stricter).
fn read_private(path: &Path) -> Result<Option<Vec<u8>>, StoreError> {
    // O_NONBLOCK: a FIFO planted at the path must not hang the open.
    let file = match OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC | libc::O_NONBLOCK)
        .open(path)
    {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(refused_open(path, e, "read the sign-in file")),
    };
    let p = shown(path);
    let m = file
        .metadata()
        .map_err(|e| io_error("read the sign-in file", path, e))?;
    if !m.is_file() {
        return Err(unsafe_to(
            "read the sign-in file",
            &p,
            Unsafety::NotARegularFile,
        ));
    }
    check_owner_and_mode(&m, &p, "read the sign-in file", "600")?;
    let mut bytes = Vec::new();
    file.take(MAX_FILE_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| io_error("read the sign-in file", path, e))?;
    if bytes.len() as u64 > MAX_FILE_BYTES {
        return Err(unreadable(
            &p,
            Damage::TooLarge {
                kib: MAX_FILE_BYTES / 1024,
            },
        ));
    }
    Ok(Some(bytes))
}

/// Reads one sign-in file.
fn read_sign_in(path: &Path) -> Result<SignIn, StoreError> {
    let bytes = read_private(path)?.ok_or_else(|| unreadable(&shown(path), Damage::Disappeared))?;
    let file: SignInFile = parse(path, &bytes)?;
    file.into_sign_in(path)
}

/// Parses a store file after checking its version.
fn parse<T: serde::de::DeserializeOwned>(path: &Path, bytes: &[u8]) -> Result<T, StoreError> {
    let p = shown(path);
    let value: serde_json::Value =
        serde_json::from_slice(bytes).map_err(|e| unreadable(&p, Damage::NotJson(Arc::new(e))))?;
    match value.get("version").and_then(serde_json::Value::as_u64) {
        Some(v) if v == u64::from(FORMAT_VERSION) => {}
        Some(found) => {
            return Err(unreadable(
                &p,
                Damage::Version {
                    found,
                    reads: FORMAT_VERSION,
                },
            ))
        }
        None => return Err(unreadable(&p, Damage::NoVersion)),
    }
    serde_json::from_value(value)
        .map_err(|e| unreadable(&p, Damage::Fields(without_values(&e.to_string()))))
}

/// A serde message without the values it quotes (a token may be one):
/// "missing field `x`" as it is, "invalid type: string \"…\", expected a
/// sequence" as "a field has the wrong type (expected a sequence)".
fn without_values(message: &str) -> String {
    if message.starts_with("missing field") {
        return message.to_owned();
    }
    match message.rsplit_once(", expected ") {
        Some((_, expected)) => format!("a field has the wrong type (expected {expected})"),
        None => "a field has the wrong type".to_owned(),
    }
}

/// Counter for temporary file names within this process.
static TEMP_COUNTER: AtomicU64 = AtomicU64::new(0);

/// Writes `bytes` to `path` atomically (see the module documentation).
fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), StoreError> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let (tmp, mut file) = loop {
        let n = TEMP_COUNTER.fetch_add(1, Ordering::Relaxed);
        let tmp = dir.join(format!(".{name}.{}-{n}.tmp", std::process::id()));
        match OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
            .open(&tmp)
        {
            Ok(f) => break (tmp, f),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(refused_open(&tmp, e, "write the sign-in file")),
        }
    };
    let written = file
        .write_all(bytes)
        .and_then(|()| file.sync_all())
        .and_then(|()| std::fs::rename(&tmp, path));
    if let Err(e) = written {
        let _ = std::fs::remove_file(&tmp);
        return Err(io_error("write the sign-in file", path, e));
    }
    // The rename itself made durable.
    if let Ok(d) = File::open(dir) {
        let _ = d.sync_all();
    }
    Ok(())
}

/// Deletes `path`; `Ok(false)` when it was not there.
fn remove_file(path: &Path) -> Result<bool, StoreError> {
    match std::fs::remove_file(path) {
        Ok(()) => Ok(true),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(false),
        Err(e) => Err(io_error("delete the sign-in file", path, e)),
    }
}

/// A time as RFC 3339 in UTC with nanoseconds (exact round trip).
fn time_text(t: SystemTime) -> String {
    humantime::format_rfc3339_nanos(t).to_string()
}

fn time_from(text: &str, path: &Path, field: &'static str) -> Result<SystemTime, StoreError> {
    humantime::parse_rfc3339(text).map_err(|_| unreadable(&shown(path), Damage::Time(field)))
}

/// A sign-in file.
#[derive(Serialize, Deserialize)]
struct SignInFile {
    version: u32,
    mcp_url: String,
    resource: String,
    issuer: String,
    account: String,
    as_metadata_url: String,
    client: ClientJson,
    tokens: TokensJson,
    /// The grant ([`GrantType::as_str`]); absent in files written before
    /// grants without a person existed: the browser's.
    #[serde(default = "browser_grant")]
    grant: String,
    /// The DPoP private key (PKCS#8, base64url), when the sign-in has one;
    /// absent in files written before DPoP, which read as sign-ins
    /// without one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    dpop_key: Option<String>,
}

fn browser_grant() -> String {
    GrantType::AuthorizationCode.as_str().to_owned()
}

/// A client registration file (`oauth/clients/`).
#[derive(Serialize, Deserialize)]
struct ClientFile {
    version: u32,
    client: ClientJson,
}

#[derive(Serialize, Deserialize)]
struct ClientJson {
    issuer: String,
    kind: String,
    client_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    client_secret: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    client_secret_expires_at: Option<u64>,
    token_endpoint_auth_method: String,
    redirect_uri: String,
}

#[derive(Serialize, Deserialize)]
struct TokensJson {
    access_token: String,
    token_type: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    expires_at: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    refresh_token: Option<String>,
    scopes_requested: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    scopes_granted: Option<Vec<String>>,
    obtained_at: String,
}

impl From<&ClientRegistration> for ClientJson {
    fn from(c: &ClientRegistration) -> Self {
        ClientJson {
            issuer: c.issuer.clone(),
            kind: c.kind.as_str().to_owned(),
            client_id: c.client_id.clone(),
            // A pre-registered client's secret is read each run
            // (`--client-secret env:|file:`), never written.
            client_secret: match c.kind {
                ClientKind::PreRegistered => None,
                _ => c.client_secret.as_ref().map(|s| s.expose().to_owned()),
            },
            client_secret_expires_at: c.client_secret_expires_at,
            token_endpoint_auth_method: c.token_endpoint_auth_method.clone(),
            redirect_uri: c.redirect_uri.clone(),
        }
    }
}

impl ClientJson {
    fn into_registration(self, path: &Path) -> Result<ClientRegistration, StoreError> {
        let kind = ClientKind::parse(&self.kind)
            .ok_or_else(|| unreadable(&shown(path), Damage::ClientKind(self.kind.clone())))?;
        Ok(ClientRegistration {
            issuer: self.issuer,
            kind,
            client_id: self.client_id,
            client_secret: self.client_secret.map(Secret::new),
            client_secret_expires_at: self.client_secret_expires_at,
            token_endpoint_auth_method: self.token_endpoint_auth_method,
            redirect_uri: self.redirect_uri,
        })
    }
}

impl From<&SignIn> for SignInFile {
    fn from(s: &SignIn) -> Self {
        let t = &s.tokens;
        SignInFile {
            version: FORMAT_VERSION,
            mcp_url: s.mcp_url.clone(),
            resource: s.key.resource.clone(),
            issuer: s.key.issuer.clone(),
            account: s.key.account.clone(),
            as_metadata_url: s.as_metadata_url.clone(),
            client: ClientJson::from(&s.client),
            tokens: TokensJson {
                access_token: t.access_token.expose().to_owned(),
                token_type: t.token_type.clone(),
                expires_at: t.expires_at.map(time_text),
                refresh_token: t.refresh_token.as_ref().map(|r| r.expose().to_owned()),
                scopes_requested: t.scopes_requested.clone(),
                scopes_granted: t.scopes_granted.clone(),
                obtained_at: time_text(t.obtained_at),
            },
            grant: s.grant.as_str().to_owned(),
            dpop_key: s.dpop_key.as_ref().map(|k| k.expose().to_owned()),
        }
    }
}

impl SignInFile {
    fn into_sign_in(self, path: &Path) -> Result<SignIn, StoreError> {
        let t = self.tokens;
        let expires_at = match &t.expires_at {
            Some(x) => Some(time_from(x, path, "expires_at")?),
            None => None,
        };
        let grant = GrantType::parse(&self.grant)
            .ok_or_else(|| unreadable(&shown(path), Damage::Grant(self.grant.clone())))?;
        Ok(SignIn {
            grant,
            key: SignInKey {
                resource: self.resource,
                issuer: self.issuer,
                account: self.account,
            },
            mcp_url: self.mcp_url,
            as_metadata_url: self.as_metadata_url,
            client: self.client.into_registration(path)?,
            tokens: Tokens {
                access_token: Secret::new(t.access_token),
                token_type: t.token_type,
                expires_at,
                refresh_token: t.refresh_token.map(Secret::new),
                scopes_requested: t.scopes_requested,
                scopes_granted: t.scopes_granted,
                obtained_at: time_from(&t.obtained_at, path, "obtained_at")?,
            },
            dpop_key: self.dpop_key.map(Secret::new),
        })
    }
}

#[cfg(test)]
mod tests;
