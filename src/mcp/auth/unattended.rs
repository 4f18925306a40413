//! Signing in without a person: what a run is told to do instead of the
//! browser flow (`--grant`, its environment variables, or the server's
//! entry in the configuration file), where its secrets are read from, and
//! why such a sign-in fails ([`GrantError`]). The grants themselves (their
//! token requests) are in `grants`.
//!
//! The grant is always the run's choice, never the server's: a server or
//! authorization server that advertises a grant starts nothing by itself.
//! Secrets are named by reference ([`SecretRef`]: `env:VAR` or
//! `file:PATH`), never given on the command line, and an assertion is read
//! again at every use (CI systems and Kubernetes rotate them in place).

use std::path::PathBuf;
use std::sync::Arc;

use super::store::{GrantType, Secret};

/// The most bytes a secret file is read for: larger is no secret of a
/// sign-in (a JWT, a key or a client secret).
pub const MAX_SECRET_FILE_BYTES: u64 = 64 * 1024;

/// Where a secret is read from: `env:VAR` or `file:PATH`, named with the
/// flag that gave it (for the errors).
#[derive(Clone, PartialEq, Eq)]
pub struct SecretRef {
    /// The flag (or environment variable, or configuration key) that named
    /// it: `--assertion`.
    pub flag: String,
    /// Where.
    pub from: SecretFrom,
}

/// The place a [`SecretRef`] names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SecretFrom {
    /// An environment variable of this process.
    Env(String),
    /// A file (its contents, trailing line breaks and spaces cut).
    File(PathBuf),
}

impl std::fmt::Debug for SecretRef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} {:?}", self.flag, self.from)
    }
}

impl SecretRef {
    /// Read `env:VAR` or `file:PATH` given with `flag`.
    ///
    /// Errors: anything else ([`SecretRefError::Literal`]: a secret on a
    /// command line is in `ps` and the shell's history).
    pub fn parse(flag: &str, spec: &str) -> Result<Self, SecretRefError> {
        let from = if let Some(var) = spec.strip_prefix("env:") {
            if var.is_empty() {
                return Err(SecretRefError::NoName {
                    flag: flag.into(),
                    prefix: "env:",
                    what: "a variable name",
                });
            }
            SecretFrom::Env(var.to_owned())
        } else if let Some(path) = spec.strip_prefix("file:") {
            if path.is_empty() {
                return Err(SecretRefError::NoName {
                    flag: flag.into(),
                    prefix: "file:",
                    what: "a path",
                });
            }
            SecretFrom::File(PathBuf::from(path))
        } else {
            return Err(SecretRefError::Literal {
                flag: flag.into(),
                why: literal_reason(flag),
            });
        };
        Ok(Self {
            flag: flag.into(),
            from,
        })
    }

    /// Where it is read from, in words: `the environment variable VAR`,
    /// `the file PATH` (made safe for a terminal).
    pub fn place(&self) -> String {
        match &self.from {
            SecretFrom::Env(v) => {
                format!("the environment variable {}", crate::safe_text::display(v))
            }
            SecretFrom::File(p) => format!(
                "the file {}",
                crate::safe_text::display(&p.to_string_lossy())
            ),
        }
    }

    /// Read the secret now (every use reads it again). An environment
    /// variable is hidden from the programs this run starts
    /// ([`crate::launcher::hide_from_children`]), and the value is
    /// registered for redaction ([`crate::redact::register_secret`]).
    ///
    /// Errors: the variable is not set or empty; the file cannot be read,
    /// is empty or is larger than [`MAX_SECRET_FILE_BYTES`].
    pub fn read(&self) -> Result<Secret, SecretRefError> {
        self.read_with(|v| std::env::var(v).ok())
    }

    /// [`Self::read`] with the environment given.
    ///
    /// Errors: as [`Self::read`].
    pub fn read_with(
        &self,
        env: impl Fn(&str) -> Option<String>,
    ) -> Result<Secret, SecretRefError> {
        let flag = self.flag.clone();
        let value = match &self.from {
            SecretFrom::Env(var) => {
                crate::launcher::hide_from_children(var);
                let shown = || crate::safe_text::display(var).into_owned();
                match env(var) {
                    None => return Err(SecretRefError::NotSet { flag, var: shown() }),
                    Some(v) if v.trim().is_empty() => {
                        return Err(SecretRefError::Empty { flag, var: shown() })
                    }
                    Some(v) => v,
                }
            }
            SecretFrom::File(path) => read_small(path).map_err(|why| SecretRefError::File {
                flag,
                path: crate::safe_text::display(&path.to_string_lossy()).into_owned(),
                why,
            })?,
        };
        let value = value.trim_end_matches(['\n', '\r', ' ', '\t']).to_owned();
        crate::redact::register_secret(&value);
        Ok(Secret::new(value))
    }
}

/// Why a secret is not taken itself where `flag` gave it: on the command
/// line (`--flag`) it is seen in `ps` and the shell's history; in an
/// environment variable (`AHP_ELICIT_*`) it reaches every program the
/// shell starts; in the configuration file (`PATH [servers."URL"] key`)
/// it would be kept in a file that is not for secrets.
pub fn literal_reason(flag: &str) -> &'static str {
    if flag.starts_with("--") {
        "the secret never goes on the command line, where ps and the shell's history show it"
    } else if flag.starts_with("AHP_ELICIT_") {
        "the variable names where the secret is kept; the secret itself is not taken from it"
    } else {
        "a secret is not written into the configuration file; keep it in a variable or a file of its own"
    }
}

/// A file of at most [`MAX_SECRET_FILE_BYTES`], as UTF-8.
fn read_small(path: &std::path::Path) -> Result<String, String> {
    use std::io::Read;
    let f = std::fs::File::open(path).map_err(|e| crate::files::io_reason(&e))?;
    let mut text = String::new();
    f.take(MAX_SECRET_FILE_BYTES + 1)
        .read_to_string(&mut text)
        .map_err(|e| crate::files::io_reason(&e))?;
    if text.len() as u64 > MAX_SECRET_FILE_BYTES {
        return Err(format!("it is over {} KiB", MAX_SECRET_FILE_BYTES / 1024));
    }
    if text.trim().is_empty() {
        return Err("it is empty".into());
    }
    Ok(text)
}

/// Why a secret could not be read. Never holds the secret.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SecretRefError {
    /// The flag was given the secret itself.
    #[error("{flag}: give env:VAR or file:PATH ({why})")]
    Literal {
        /// The flag (or variable, or configuration key).
        flag: String,
        /// Why, for where it was given ([`literal_reason`]).
        why: &'static str,
    },
    /// `env:` or `file:` with nothing after it.
    #[error("{flag}: {prefix} needs {what}")]
    NoName {
        /// The flag.
        flag: String,
        /// `env:` or `file:`.
        prefix: &'static str,
        /// `a variable name` or `a path`.
        what: &'static str,
    },
    /// The environment variable is not set.
    #[error("{flag}: the environment variable '{var}' is not set")]
    NotSet {
        /// The flag.
        flag: String,
        /// The variable.
        var: String,
    },
    /// The environment variable is set but empty (or blank).
    #[error("{flag}: the environment variable '{var}' is empty")]
    Empty {
        /// The flag.
        flag: String,
        /// The variable.
        var: String,
    },
    /// The file cannot be read, is empty or too large.
    #[error("{flag}: cannot read {path}: {why}")]
    File {
        /// The flag.
        flag: String,
        /// The file.
        path: String,
        /// Why.
        why: String,
    },
}

/// How the client authenticates at a token endpoint (RFC 6749 §2.3,
/// RFC 7523 §2.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClientAuth {
    /// `client_secret_basic`: the id and secret in an `Authorization:
    /// Basic` header.
    Basic,
    /// `client_secret_post`: the id and secret in the form.
    Post,
    /// `private_key_jwt`: a JWT signed with the client's key
    /// (`--client-key`) as `client_assertion`.
    PrivateKeyJwt,
    /// `none`: the client id alone (a public client).
    None,
}

impl ClientAuth {
    /// The metadata's spelling (`client_secret_basic`, …).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Basic => "client_secret_basic",
            Self::Post => "client_secret_post",
            Self::PrivateKeyJwt => "private_key_jwt",
            Self::None => "none",
        }
    }

    /// The metadata's spelling read back; `None` for another method.
    pub fn parse(s: &str) -> Option<Self> {
        [Self::Basic, Self::Post, Self::PrivateKeyJwt, Self::None]
            .into_iter()
            .find(|m| m.as_str() == s)
    }
}

/// The token exchange at the identity provider of enterprise-managed
/// authorization (RFC 8693: the ID token for an ID-JAG).
#[derive(Debug, Clone)]
pub struct IdentityProvider {
    /// `--idp-token-endpoint`: https, or http on this machine.
    pub token_endpoint: String,
    /// `--idp-client-id`: this client's id at the identity provider.
    pub client_id: String,
    /// `--idp-client-secret`: its secret there, when it has one (sent
    /// with `client_secret_basic`).
    pub client_secret: Option<SecretRef>,
    /// `--id-token`: the person's or workload's ID token from the identity
    /// provider (the `subject_token`), read at every use.
    pub id_token: SecretRef,
}

/// A grant that needs no person (`--grant`).
#[derive(Debug, Clone)]
pub enum Grant {
    /// `client_credentials` with the client's secret or key.
    ClientCredentials,
    /// The JWT bearer grant with the assertion read from `assertion` at
    /// every use.
    JwtBearer {
        /// `--assertion`.
        assertion: SecretRef,
    },
    /// Enterprise-managed authorization: the token exchange at the
    /// identity provider, then the JWT bearer grant with the ID-JAG.
    Enterprise(IdentityProvider),
}

impl Grant {
    /// What is stored with the sign-in it makes.
    pub fn kind(&self) -> GrantType {
        match self {
            Self::ClientCredentials => GrantType::ClientCredentials,
            Self::JwtBearer { .. } => GrantType::JwtBearer,
            Self::Enterprise(_) => GrantType::Enterprise,
        }
    }
}

/// A private key the client signs its `private_key_jwt` assertions with.
pub trait ClientKey: Send + Sync {
    /// The JWS algorithm (`ES256`, `RS256`).
    fn alg(&self) -> &str;
    /// A compact JWS of `claims` (a JSON object) with a header of `alg`
    /// and `typ: JWT`.
    ///
    /// Errors: why it could not be signed.
    fn sign(&self, claims: &serde_json::Value) -> Result<String, String>;
}

impl ClientKey for super::jose::SigningKey {
    fn alg(&self) -> &str {
        super::jose::SigningKey::alg(self).as_str()
    }

    fn sign(&self, claims: &serde_json::Value) -> Result<String, String> {
        let header = super::jose::Header {
            typ: Some("JWT"),
            ..Default::default()
        };
        super::jose::SigningKey::sign(self, &header, claims).map_err(|e| e.to_string())
    }
}

/// The client's key for `private_key_jwt` from `key` (`--client-key`: a
/// PEM key or a private JWK, EC P-256 or RSA), read now, signing with
/// `alg` (`--client-key-alg`), else the key type's algorithm.
///
/// Errors: a sentence naming the flag (never the key): it cannot be read,
/// is no key this build signs with, or does not go with `alg`.
pub fn client_key(key: &SecretRef, alg: Option<&str>) -> Result<Arc<dyn ClientKey>, String> {
    let text = key.read().map_err(|e| e.to_string())?;
    let words = |e: super::jose::JoseError| format!("{}: {e}", key.flag);
    let mut k = super::jose::SigningKey::from_text(text.expose()).map_err(words)?;
    if let Some(a) = alg {
        k = k
            .with_alg(super::jose::Alg::parse(a).map_err(words)?)
            .map_err(words)?;
    }
    Ok(Arc::new(k))
}

/// How a run signs in without a person: the grant, and how the client
/// authenticates (the id and secret are [`super::AuthOptions::client`]).
#[derive(Clone)]
pub struct Unattended {
    /// The grant.
    pub grant: Grant,
    /// `--client-auth`; None: chosen from the authorization server's
    /// `token_endpoint_auth_methods_supported` and what was given (a key:
    /// `private_key_jwt`; a secret: basic where listed, else post).
    pub client_auth: Option<ClientAuth>,
    /// `--client-key`: the key of `private_key_jwt`.
    pub client_key: Option<Arc<dyn ClientKey>>,
}

impl std::fmt::Debug for Unattended {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Unattended")
            .field("grant", &self.grant)
            .field("client_auth", &self.client_auth)
            .field("client_key", &self.client_key.as_ref().map(|k| k.alg()))
            .finish()
    }
}

/// Why an authorization server (or an identity provider) refused a grant's
/// token request: its RFC 6749 §5.2 `error`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// `invalid_grant`: the assertion (or ID token) is expired, for
    /// another audience, or not trusted.
    InvalidGrant,
    /// `invalid_scope`: a scope asked for is not allowed.
    InvalidScope,
    /// `unauthorized_client`: the client may not use this grant.
    UnauthorizedClient,
    /// `invalid_client`: the client's authentication failed.
    InvalidClient,
    /// Any other error (or none: the HTTP status).
    Other,
}

impl Refusal {
    /// The refusal an `error` code names.
    pub fn of(error: &str) -> Self {
        match error {
            "invalid_grant" => Self::InvalidGrant,
            "invalid_scope" => Self::InvalidScope,
            "unauthorized_client" => Self::UnauthorizedClient,
            "invalid_client" => Self::InvalidClient,
            _ => Self::Other,
        }
    }
}

/// Why a sign-in without a person failed. Each names the step and the way
/// out; none holds a secret (a server's words may be quoted: sanitized when
/// shown). Nothing is retried and no other grant is tried after one.
#[derive(Debug, Clone, thiserror::Error)]
pub enum GrantError {
    /// A secret of the grant could not be read at the moment of use.
    #[error("signing in with the {grant} grant: {source}")]
    Secret {
        /// The grant, in words.
        grant: &'static str,
        /// Why.
        #[source]
        source: SecretRefError,
    },
    /// The authorization server's metadata lists its grants, and not this
    /// one.
    #[error("{issuer} does not offer the {grant} grant (its metadata lists {listed}): choose another with --grant, or leave --grant out to sign in with a browser")]
    NotOffered {
        /// The authorization server's issuer.
        issuer: String,
        /// The grant's wire name.
        grant: &'static str,
        /// The grants it lists.
        listed: String,
    },
    /// A grant that needs a client id was given none.
    #[error("the {grant} grant needs the client's id at {issuer}: give --client-id ID")]
    NoClientId {
        /// The grant, in words.
        grant: &'static str,
        /// The authorization server's issuer.
        issuer: String,
    },
    /// The client cannot authenticate as the grant (or the method chosen)
    /// needs.
    #[error("the {grant} grant at {issuer} needs {needs}")]
    NoCredentials {
        /// The grant, in words.
        grant: &'static str,
        /// The authorization server's issuer.
        issuer: String,
        /// What is missing, with the flag.
        needs: &'static str,
    },
    /// The client's key could not sign the assertion.
    #[error("signing the client assertion for {issuer} with --client-key failed: {why}")]
    Signing {
        /// The authorization server's issuer.
        issuer: String,
        /// Why.
        why: String,
    },
    /// The key's algorithm is not among those the authorization server
    /// lists for client assertions.
    #[error("{issuer} takes client assertions signed with {listed}, not {alg}: give a key of one of those (or --client-key-alg)")]
    AlgNotTaken {
        /// The authorization server's issuer.
        issuer: String,
        /// The key's algorithm.
        alg: String,
        /// What it lists.
        listed: String,
    },
    /// The identity provider's token endpoint is not https (nor http on
    /// this machine): the ID token is not sent there.
    #[error("--idp-token-endpoint {url}: give an https URL (or http on this machine): the ID token would be readable on the way")]
    IdpNotHttps {
        /// The URL given.
        url: String,
    },
    /// The identity provider answered the exchange without an ID-JAG.
    #[error("the token exchange at {url} gave no ID-JAG ({why}): check that the identity provider supports enterprise-managed authorization for {audience}")]
    NoIdJag {
        /// The identity provider's token endpoint.
        url: String,
        /// What was wrong with the answer.
        why: &'static str,
        /// The audience asked for (the MCP authorization server).
        audience: String,
    },
    /// A token request of the grant was refused; nothing is retried.
    #[error("{step} at {url} was refused ({why}): {way_out}")]
    Refused {
        /// The request, in words: `the client credentials grant`.
        step: &'static str,
        /// Where it was sent.
        url: String,
        /// What the refusal says (its `error`).
        refusal: Refusal,
        /// Its `error: error_description`, or the HTTP status.
        why: String,
        /// What to do.
        way_out: String,
    },
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_are_read_from_the_environment_or_a_file_only_and_again_each_time() {
        let env = |v: &str| (v == "S").then(|| "s3cret-value\n".to_owned());
        let r = SecretRef::parse("--assertion", "env:S").unwrap();
        assert_eq!(r.read_with(env).unwrap().expose(), "s3cret-value");
        assert_eq!(r.place(), "the environment variable S");
        let e = SecretRef::parse("--assertion", "env:NOPE")
            .unwrap()
            .read_with(env)
            .unwrap_err();
        assert_eq!(
            e.to_string(),
            "--assertion: the environment variable 'NOPE' is not set"
        );
        // The secret itself is refused, and never repeated.
        let e = SecretRef::parse("--client-secret", "s3cret-value").unwrap_err();
        assert_eq!(
            e,
            SecretRefError::Literal {
                flag: "--client-secret".into(),
                why: literal_reason("--client-secret"),
            }
        );
        assert!(!e.to_string().contains("s3cret-value"));
        for spec in ["env:", "file:", "ENV:X"] {
            assert!(SecretRef::parse("--x", spec).is_err(), "{spec}");
        }
        assert_eq!(
            SecretRef::parse("--client-secret", "env:")
                .unwrap_err()
                .to_string(),
            "--client-secret: env: needs a variable name"
        );
        assert_eq!(
            SecretRef::parse("--assertion", "file:")
                .unwrap_err()
                .to_string(),
            "--assertion: file: needs a path"
        );
        // An empty variable is said empty, not unset.
        let e = SecretRef::parse("--client-secret", "env:EMPTYV")
            .unwrap()
            .read_with(|v| (v == "EMPTYV").then(String::new))
            .unwrap_err();
        assert_eq!(
            e.to_string(),
            "--client-secret: the environment variable 'EMPTYV' is empty"
        );
        // The refusal of the secret itself says why for where it was given.
        assert_eq!(
            SecretRef::parse("--client-secret", "s3cret-value")
                .unwrap_err()
                .to_string(),
            "--client-secret: give env:VAR or file:PATH (the secret never goes on the command line, where ps and the shell's history show it)"
        );
        let e = SecretRef::parse("config.toml [servers.\"u\"] client-secret", "s3cret-value")
            .unwrap_err()
            .to_string();
        assert_eq!(
            e,
            "config.toml [servers.\"u\"] client-secret: give env:VAR or file:PATH (a secret is not written into the configuration file; keep it in a variable or a file of its own)"
        );
        assert!(!e.contains("command line"), "{e}");
        // A file is read at every use: a rotated one gives the new value.
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("jwt");
        std::fs::write(&f, "first.jwt.value\n").unwrap();
        let r = SecretRef::parse("--assertion", &format!("file:{}", f.display())).unwrap();
        assert_eq!(r.read().unwrap().expose(), "first.jwt.value");
        std::fs::write(&f, "second.jwt.value").unwrap();
        assert_eq!(r.read().unwrap().expose(), "second.jwt.value");
        std::fs::write(&f, "\n").unwrap();
        let e = r.read().unwrap_err().to_string();
        assert!(e.ends_with("it is empty"), "{e}");
        std::fs::remove_file(&f).unwrap();
        let e = r.read().unwrap_err().to_string();
        assert!(e.starts_with("--assertion: cannot read "), "{e}");
        std::fs::write(&f, "x".repeat(70 * 1024)).unwrap();
        let e = r.read().unwrap_err().to_string();
        assert!(e.ends_with("it is over 64 KiB"), "{e}");
    }

    #[test]
    fn client_auth_methods_read_back_their_metadata_spelling() {
        for m in [
            ClientAuth::Basic,
            ClientAuth::Post,
            ClientAuth::PrivateKeyJwt,
            ClientAuth::None,
        ] {
            assert_eq!(ClientAuth::parse(m.as_str()), Some(m));
        }
        assert_eq!(ClientAuth::parse("tls_client_auth"), None);
        assert_eq!(Refusal::of("invalid_scope"), Refusal::InvalidScope);
        assert_eq!(Refusal::of("slow_down"), Refusal::Other);
    }
}
