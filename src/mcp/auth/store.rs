//! Stored sign-ins: what an OAuth sign-in to one MCP server leaves behind
//! (the client registration at the authorization server and the tokens),
//! and the [`Store`] trait the authorizer reads and writes them through.
//!
//! Two stores implement it: [`MemoryStore`] (`--auth-store memory`:
//! nothing read from or written to disk, for hermetic runs) and the file
//! store (`file_store`: one `0600` file per sign-in in a `0700` directory
//! under the XDG state directory, written atomically, with a lock file
//! around refresh).
//!
//! Identifiers (`resource`, `issuer`, `redirect_uri`, `client_id`) are kept
//! as exact strings, byte for byte as published or sent: they are compared
//! and sent back as they are, never re-serialized through `url::Url`.

use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, Mutex};
use std::time::SystemTime;

/// A credential string (access or refresh token, client secret): its
/// `Debug` and `Display` print `(hidden)`, so it never reaches stderr,
/// `--log`, `--events` or an error by accident. [`Secret::expose`] is the
/// one way to read it, at the point where it is sent or stored.
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(String);

impl Secret {
    /// Wraps a credential.
    pub fn new(value: impl Into<String>) -> Self {
        Self(value.into())
    }

    /// The credential itself, for a request header or body, or the store.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("(hidden)")
    }
}

impl fmt::Display for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("(hidden)")
    }
}

/// Where a client identity came from (the MCP authorization spec's order
/// of preference: pre-registered, Client ID Metadata Document, Dynamic
/// Client Registration).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClientKind {
    /// `--client-id` (with `--client-secret env:VAR|file:PATH`); its secret
    /// is read each run and never stored.
    PreRegistered,
    /// `--client-metadata-url`: the URL is the client id.
    MetadataDocument,
    /// Registered at the authorization server's `registration_endpoint`
    /// (RFC 7591), kept per issuer.
    Dynamic,
}

impl ClientKind {
    /// The stored spelling: `pre`, `cimd` or `dcr`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::PreRegistered => "pre",
            Self::MetadataDocument => "cimd",
            Self::Dynamic => "dcr",
        }
    }

    /// Reads the stored spelling back; `None` for anything else.
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "pre" => Some(Self::PreRegistered),
            "cimd" => Some(Self::MetadataDocument),
            "dcr" => Some(Self::Dynamic),
            _ => None,
        }
    }
}

/// A client identity at one authorization server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClientRegistration {
    /// The authorization server's `issuer`, exactly as published.
    pub issuer: String,
    /// How the identity was obtained.
    pub kind: ClientKind,
    /// `client_id`, exactly as issued or given.
    pub client_id: String,
    /// A DCR-issued `client_secret` (never a pre-registered one).
    pub client_secret: Option<Secret>,
    /// `client_secret_expires_at` of a DCR answer, seconds since the Unix
    /// epoch; 0 or `None` means it does not expire.
    pub client_secret_expires_at: Option<u64>,
    /// The token endpoint authentication method in use:
    /// `client_secret_basic`, `client_secret_post` or `none`.
    pub token_endpoint_auth_method: String,
    /// The redirect URI registered (DCR) or used, exactly as sent.
    pub redirect_uri: String,
}

/// The tokens of one sign-in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tokens {
    /// `access_token`.
    pub access_token: Secret,
    /// `token_type` as issued (`Bearer`, any case).
    pub token_type: String,
    /// When the access token expires (from `expires_in`); `None` when the
    /// authorization server did not say.
    pub expires_at: Option<SystemTime>,
    /// `refresh_token`, replaced whenever a refresh rotates it.
    pub refresh_token: Option<Secret>,
    /// The scopes asked for in the authorization request, in order.
    pub scopes_requested: Vec<String>,
    /// The token answer's `scope`, split on spaces; `None` when absent.
    pub scopes_granted: Option<Vec<String>>,
    /// When these tokens were obtained.
    pub obtained_at: SystemTime,
}

/// What names one sign-in: the protected resource (the PRM `resource`
/// string), the authorization server's issuer and an account name
/// (`--account`, default `default`), so one server can have several.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct SignInKey {
    /// The PRM `resource`, exactly as published.
    pub resource: String,
    /// The authorization server's `issuer`, exactly as published.
    pub issuer: String,
    /// The account name.
    pub account: String,
}

/// One stored sign-in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SignIn {
    /// Which sign-in this is.
    pub key: SignInKey,
    /// The MCP server URL the sign-in was made for (as given).
    pub mcp_url: String,
    /// The URL the authorization server metadata was read from.
    pub as_metadata_url: String,
    /// The client identity the tokens were issued to.
    pub client: ClientRegistration,
    /// The tokens.
    pub tokens: Tokens,
    /// The grant the tokens were obtained with (a refresh keeps it).
    pub grant: GrantType,
    /// The private key of the sign-in's DPoP key pair (RFC 9449), when
    /// the authorization server offered DPoP: the PKCS#8 document of an
    /// ES256 key made for this sign-in, base64url. Every token request
    /// and (with a `DPoP` token) every MCP request carries a proof signed
    /// with it. Secret: never printed or logged.
    pub dpop_key: Option<Secret>,
}

/// The grant a sign-in's tokens were obtained with: a person's browser
/// (the authorization code flow), or one of the grants that need no person
/// (`--grant`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum GrantType {
    /// The authorization code flow, a person signing in in a browser.
    #[default]
    AuthorizationCode,
    /// `client_credentials` (RFC 6749 §4.4): the client's own credentials.
    ClientCredentials,
    /// The JWT bearer grant (RFC 7523 §2.1): an assertion the runner holds
    /// (a CI system's OIDC token, a workload identity).
    JwtBearer,
    /// Enterprise-managed authorization: an identity provider's ID token
    /// exchanged there (RFC 8693) for an ID-JAG, which the JWT bearer grant
    /// takes at the authorization server.
    Enterprise,
}

impl GrantType {
    /// The stored spelling: `authorization_code`, `client_credentials`,
    /// `jwt_bearer` or `enterprise`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::AuthorizationCode => "authorization_code",
            Self::ClientCredentials => "client_credentials",
            Self::JwtBearer => "jwt_bearer",
            Self::Enterprise => "enterprise",
        }
    }

    /// Reads the stored spelling back; `None` for anything else.
    pub fn parse(s: &str) -> Option<Self> {
        [
            Self::AuthorizationCode,
            Self::ClientCredentials,
            Self::JwtBearer,
            Self::Enterprise,
        ]
        .into_iter()
        .find(|g| g.as_str() == s)
    }

    /// The grant in words, for `auth status` and the errors: `browser
    /// sign-in`, `client credentials`, `JWT bearer assertion`,
    /// `enterprise-managed (ID-JAG)`.
    pub fn words(self) -> &'static str {
        match self {
            Self::AuthorizationCode => "browser sign-in",
            Self::ClientCredentials => "client credentials",
            Self::JwtBearer => "JWT bearer assertion",
            Self::Enterprise => "enterprise-managed (ID-JAG)",
        }
    }
}

/// Why the store could not be read or written. The message names the
/// file and, for unsafe files, the command that fixes them (as `ssh` does
/// for its keys). Never holds a secret. Paths are kept made safe for a
/// terminal.
#[derive(Debug, Clone, thiserror::Error)]
pub enum StoreError {
    /// No state directory in the environment to keep sign-ins in.
    #[error("no state directory to keep sign-ins in: set HOME or XDG_STATE_HOME, or give --auth-store DIR (or memory)")]
    NoStateDir,
    /// Sign-ins are kept on disk only on Unix.
    #[error("sign-ins are kept on disk only on Unix: give --auth-store memory")]
    NotOnDisk,
    /// A run that only looks up where it would sign in has no store.
    #[error("not signing in")]
    NotSigningIn,
    /// A thread panicked while it held the in-memory store.
    #[error("the in-memory sign-in store was poisoned by a panic")]
    Poisoned,
    /// The operating system refused or failed: `cannot DOING PATH: why`.
    #[error("cannot {doing} {path}: {}", crate::files::io_reason(.source))]
    Io {
        /// What was being done: `list`, `lock`, `read the sign-in file`.
        doing: &'static str,
        /// The file or directory.
        path: String,
        /// The operating system's error.
        #[source]
        source: Arc<std::io::Error>,
    },
    /// A file or directory is not safe to use: refused, naming the command
    /// that fixes it.
    #[error("refusing to {doing} {path}: {}", .why.words(.path))]
    Unsafe {
        /// What was being done: `read the sign-in file`, `use the sign-in
        /// directory`.
        doing: &'static str,
        /// The file or directory.
        path: String,
        /// What is unsafe about it.
        why: Unsafety,
    },
    /// A sign-in file is not one this version reads.
    #[error("the sign-in file {path} {}", .why.words(.path))]
    Unreadable {
        /// The file.
        path: String,
        /// What is wrong with it.
        why: Damage,
    },
    /// A sign-in or client registration could not be written as JSON.
    #[error("cannot write {what}: {source}")]
    Encode {
        /// `a sign-in`, `a client registration`.
        what: &'static str,
        /// The writer's error.
        #[source]
        source: Arc<serde_json::Error>,
    },
}

/// What makes a store file or directory unsafe to use
/// ([`StoreError::Unsafe`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unsafety {
    /// It is a symbolic link.
    SymbolicLink,
    /// A directory was expected.
    NotADirectory,
    /// A regular file was expected.
    NotARegularFile,
    /// It belongs to another user.
    OtherOwner {
        /// Its owner.
        uid: u32,
        /// This process's effective user.
        me: u32,
    },
    /// Its group or others have permissions on it.
    OpenTo {
        /// `its group` or `others`.
        who: &'static str,
        /// Its permission bits.
        mode: u32,
        /// The mode `chmod` is to set (`600`, `700`).
        fix: &'static str,
    },
}

impl Unsafety {
    /// Why, and the fix, for the file or directory `path`.
    fn words(&self, path: &str) -> String {
        match self {
            Self::SymbolicLink => {
                format!("it is a symbolic link; remove it (rm {path}) and sign in again")
            }
            Self::NotADirectory => "it is not a directory".to_owned(),
            Self::NotARegularFile => format!("it is not a regular file; remove it (rm {path})"),
            Self::OtherOwner { uid, me } => format!(
                "it belongs to another user (uid {uid}); remove it, or run chown {me} {path}"
            ),
            Self::OpenTo { who, mode, fix } => {
                format!("it is open to {who} (mode {mode:04o}); run chmod {fix} {path}")
            }
        }
    }
}

/// What is wrong with a sign-in file ([`StoreError::Unreadable`]).
#[derive(Debug, Clone)]
pub enum Damage {
    /// It is larger than any sign-in.
    TooLarge {
        /// The limit, in KiB.
        kib: u64,
    },
    /// It went away between its listing and its reading.
    Disappeared,
    /// It is not JSON.
    NotJson(Arc<serde_json::Error>),
    /// It is of another format version.
    Version {
        /// The version it has.
        found: u64,
        /// The version this build reads.
        reads: u32,
    },
    /// It has no format version.
    NoVersion,
    /// A field is missing or of the wrong type (the reader's words, never
    /// the values).
    Fields(String),
    /// A time field is not an RFC 3339 time.
    Time(&'static str),
    /// Its client kind is none this build knows (as written, unescaped).
    ClientKind(String),
    /// Its grant is none this build knows (as written, unescaped).
    Grant(String),
}

impl Damage {
    /// What is wrong, and the fix, for the file `path`.
    fn words(&self, path: &str) -> String {
        let again = format!("remove it (rm {path}) and sign in again");
        match self {
            Self::TooLarge { kib } => {
                format!("is over {kib} KiB: not a sign-in; remove it (rm {path})")
            }
            Self::Disappeared => "disappeared while it was read".to_owned(),
            Self::NotJson(e) => format!("is not JSON ({e}); {again}"),
            Self::Version { found, reads } => format!(
                "has format version {found}; this ahp-elicit reads version {reads} (was it written by another version?)"
            ),
            Self::NoVersion => {
                format!("has no format version: not an ahp-elicit sign-in; remove it (rm {path})")
            }
            Self::Fields(why) => format!("is damaged ({why}); {again}"),
            Self::Time(field) => {
                format!("is damaged ({field} is not an RFC 3339 time); {again}")
            }
            Self::ClientKind(kind) => format!(
                "names an unknown client kind '{}'; {again}",
                crate::safe_text::display(kind)
            ),
            Self::Grant(grant) => format!(
                "names an unknown grant '{}' (written by a newer version?); {again}",
                crate::safe_text::display(grant)
            ),
        }
    }
}

/// A held lock on one sign-in (released on drop). Refresh holds it, reads
/// the sign-in again and uses a token another process already refreshed,
/// so two processes never both spend a rotating refresh token.
pub trait StoreLock: Send {}

/// Where sign-ins and client registrations are kept.
pub trait Store: Send + Sync {
    /// The sign-ins stored for `resource` and `account`, any issuer.
    fn sign_ins(&self, resource: &str, account: &str) -> Result<Vec<SignIn>, StoreError>;
    /// Every stored sign-in (`auth status`).
    fn all(&self) -> Result<Vec<SignIn>, StoreError>;
    /// Writes (or replaces) a sign-in.
    fn save(&self, sign_in: &SignIn) -> Result<(), StoreError>;
    /// Deletes a sign-in's tokens; `Ok(false)` when there was none.
    fn remove(&self, key: &SignInKey) -> Result<bool, StoreError>;
    /// The client registered at `issuer` (DCR or metadata document;
    /// pre-registered clients are never stored).
    fn client(&self, issuer: &str) -> Result<Option<ClientRegistration>, StoreError>;
    /// Keeps a client registration for its issuer.
    fn save_client(&self, client: &ClientRegistration) -> Result<(), StoreError>;
    /// Forgets the client registered at `issuer`.
    fn remove_client(&self, issuer: &str) -> Result<bool, StoreError>;
    /// Takes the lock on one sign-in, waiting for another process that
    /// holds it.
    fn lock(&self, key: &SignInKey) -> Result<Box<dyn StoreLock>, StoreError>;
}

/// `--auth-store memory`: sign-ins live only as long as the run.
#[derive(Debug, Default)]
pub struct MemoryStore {
    sign_ins: Mutex<HashMap<SignInKey, SignIn>>,
    clients: Mutex<HashMap<String, ClientRegistration>>,
}

struct NoLock;
impl StoreLock for NoLock {}

fn poisoned() -> StoreError {
    StoreError::Poisoned
}

impl Store for MemoryStore {
    fn sign_ins(&self, resource: &str, account: &str) -> Result<Vec<SignIn>, StoreError> {
        let map = self.sign_ins.lock().map_err(|_| poisoned())?;
        Ok(map
            .values()
            .filter(|s| s.key.resource == resource && s.key.account == account)
            .cloned()
            .collect())
    }

    fn all(&self) -> Result<Vec<SignIn>, StoreError> {
        let map = self.sign_ins.lock().map_err(|_| poisoned())?;
        Ok(map.values().cloned().collect())
    }

    fn save(&self, sign_in: &SignIn) -> Result<(), StoreError> {
        let mut map = self.sign_ins.lock().map_err(|_| poisoned())?;
        map.insert(sign_in.key.clone(), sign_in.clone());
        Ok(())
    }

    fn remove(&self, key: &SignInKey) -> Result<bool, StoreError> {
        let mut map = self.sign_ins.lock().map_err(|_| poisoned())?;
        Ok(map.remove(key).is_some())
    }

    fn client(&self, issuer: &str) -> Result<Option<ClientRegistration>, StoreError> {
        let map = self.clients.lock().map_err(|_| poisoned())?;
        Ok(map.get(issuer).cloned())
    }

    fn save_client(&self, client: &ClientRegistration) -> Result<(), StoreError> {
        let mut map = self.clients.lock().map_err(|_| poisoned())?;
        map.insert(client.issuer.clone(), client.clone());
        Ok(())
    }

    fn remove_client(&self, issuer: &str) -> Result<bool, StoreError> {
        let mut map = self.clients.lock().map_err(|_| poisoned())?;
        Ok(map.remove(issuer).is_some())
    }

    fn lock(&self, _key: &SignInKey) -> Result<Box<dyn StoreLock>, StoreError> {
        Ok(Box::new(NoLock))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sign_in(account: &str) -> SignIn {
        SignIn {
            key: SignInKey {
                resource: "http://localhost:1234".into(),
                issuer: "http://localhost:1234".into(),
                account: account.into(),
            },
            mcp_url: "http://localhost:1234/mcp".into(),
            as_metadata_url: "http://localhost:1234/.well-known/oauth-authorization-server".into(),
            client: ClientRegistration {
                issuer: "http://localhost:1234".into(),
                kind: ClientKind::Dynamic,
                client_id: "c-1".into(),
                client_secret: Some(Secret::new("client-secret-value")),
                client_secret_expires_at: None,
                token_endpoint_auth_method: "client_secret_basic".into(),
                redirect_uri: "http://127.0.0.1:5555/callback".into(),
            },
            tokens: Tokens {
                access_token: Secret::new("access-token-value"),
                token_type: "Bearer".into(),
                expires_at: None,
                refresh_token: Some(Secret::new("refresh-token-value")),
                scopes_requested: vec!["mcp".into()],
                scopes_granted: None,
                obtained_at: SystemTime::UNIX_EPOCH,
            },
            grant: GrantType::AuthorizationCode,
            dpop_key: None,
        }
    }

    #[test]
    fn debug_output_never_shows_a_credential() {
        let text = format!("{:?}", sign_in("default"));
        for secret in [
            "access-token-value",
            "refresh-token-value",
            "client-secret-value",
        ] {
            assert!(!text.contains(secret), "{secret} in {text}");
        }
        assert!(text.contains("(hidden)"));
    }

    #[test]
    fn the_memory_store_keeps_sign_ins_per_account_with_exact_identifiers() {
        let store = MemoryStore::default();
        store.save(&sign_in("default")).unwrap();
        store.save(&sign_in("work")).unwrap();
        assert_eq!(
            store
                .sign_ins("http://localhost:1234", "work")
                .unwrap()
                .len(),
            1
        );
        // `http://localhost:1234/` is another string, so another resource.
        assert!(store
            .sign_ins("http://localhost:1234/", "work")
            .unwrap()
            .is_empty());
        assert_eq!(store.all().unwrap().len(), 2);
        assert!(store.remove(&sign_in("work").key).unwrap());
        assert!(!store.remove(&sign_in("work").key).unwrap());
        assert_eq!(store.all().unwrap().len(), 1);
    }

    #[test]
    fn client_registrations_are_kept_per_issuer() {
        let store = MemoryStore::default();
        let client = sign_in("default").client;
        store.save_client(&client).unwrap();
        assert_eq!(store.client("http://localhost:1234").unwrap(), Some(client));
        assert_eq!(store.client("http://localhost:1234/").unwrap(), None);
        assert!(store.remove_client("http://localhost:1234").unwrap());
        assert_eq!(store.client("http://localhost:1234").unwrap(), None);
    }

    #[test]
    fn client_kinds_read_back_their_stored_spelling() {
        for kind in [
            ClientKind::PreRegistered,
            ClientKind::MetadataDocument,
            ClientKind::Dynamic,
        ] {
            assert_eq!(ClientKind::parse(kind.as_str()), Some(kind));
        }
        assert_eq!(ClientKind::parse("other"), None);
    }

    #[test]
    fn grants_read_back_their_stored_spelling() {
        for g in [
            GrantType::AuthorizationCode,
            GrantType::ClientCredentials,
            GrantType::JwtBearer,
            GrantType::Enterprise,
        ] {
            assert_eq!(GrantType::parse(g.as_str()), Some(g));
        }
        assert_eq!(GrantType::parse("implicit"), None);
    }
}
