//! How a sign-in and a client registration are written down: the JSON
//! record each store keeps (one file each in the file store, one secret
//! item each in the keychain), with its format `version`
//! ([`FORMAT_VERSION`]). A record of another version, or one that is not
//! such JSON, is refused with what is wrong ([`Damage`]), never read as
//! something else; the reasons never quote a value (a token may be one).
//! Tokens, DCR client secrets and a DPoP sign-in's private key
//! (`dpop_key`, absent for a bearer sign-in and in records written before
//! DPoP) are in the records (that is what they are for); a pre-registered
//! client's secret is never written.

use std::sync::Arc;
use std::time::SystemTime;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::store::{
    ClientKind, ClientRegistration, Damage, GrantType, Secret, SignIn, SignInKey, StoreError,
    Tokens,
};

/// The version of the records this build writes and reads.
pub const FORMAT_VERSION: u32 = 1;

/// A sign-in as its record's bytes (pretty JSON).
///
/// Errors: [`StoreError::Encode`] (not expected: every field is a string,
/// a number or a list of them).
pub fn sign_in_bytes(sign_in: &SignIn) -> Result<Vec<u8>, StoreError> {
    serde_json::to_vec_pretty(&SignInFile::from(sign_in)).map_err(|e| StoreError::Encode {
        what: "a sign-in",
        source: Arc::new(e),
    })
}

/// A sign-in read back from its record's bytes.
///
/// Errors: what is wrong with the record ([`Damage`]).
pub fn sign_in_from(bytes: &[u8]) -> Result<SignIn, Damage> {
    parse::<SignInFile>(bytes)?.into_sign_in()
}

/// A client registration as its record's bytes (pretty JSON).
///
/// Errors: [`StoreError::Encode`], as [`sign_in_bytes`].
pub fn client_bytes(client: &ClientRegistration) -> Result<Vec<u8>, StoreError> {
    let file = ClientFile {
        version: FORMAT_VERSION,
        client: ClientJson::from(client),
    };
    serde_json::to_vec_pretty(&file).map_err(|e| StoreError::Encode {
        what: "a client registration",
        source: Arc::new(e),
    })
}

/// A client registration read back from its record's bytes.
///
/// Errors: what is wrong with the record ([`Damage`]).
pub fn client_from(bytes: &[u8]) -> Result<ClientRegistration, Damage> {
    parse::<ClientFile>(bytes)?.client.into_registration()
}

/// 16 lowercase hex digits of SHA-256 over each part's length (8 bytes,
/// big-endian) and bytes: the name of a sign-in's file or keychain item
/// (no two different lists hash alike by concatenation).
pub fn hash(parts: &[&str]) -> String {
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

/// Parses a record after checking its version.
fn parse<T: serde::de::DeserializeOwned>(bytes: &[u8]) -> Result<T, Damage> {
    let value: serde_json::Value =
        serde_json::from_slice(bytes).map_err(|e| Damage::NotJson(Arc::new(e)))?;
    match value.get("version").and_then(serde_json::Value::as_u64) {
        Some(v) if v == u64::from(FORMAT_VERSION) => {}
        Some(found) => {
            return Err(Damage::Version {
                found,
                reads: FORMAT_VERSION,
            })
        }
        None => return Err(Damage::NoVersion),
    }
    serde_json::from_value(value).map_err(|e| Damage::Fields(without_values(&e.to_string())))
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

/// A time as RFC 3339 in UTC with nanoseconds (exact round trip).
fn time_text(t: SystemTime) -> String {
    humantime::format_rfc3339_nanos(t).to_string()
}

fn time_from(text: &str, field: &'static str) -> Result<SystemTime, Damage> {
    humantime::parse_rfc3339(text).map_err(|_| Damage::Time(field))
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
    /// The grant ([`GrantType::as_str`]); absent in records written before
    /// grants without a person existed: the browser's.
    #[serde(default = "browser_grant")]
    grant: String,
    /// The DPoP private key (PKCS#8, base64url), when the sign-in has one;
    /// absent in records written before DPoP, which read as sign-ins
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
    fn into_registration(self) -> Result<ClientRegistration, Damage> {
        let kind =
            ClientKind::parse(&self.kind).ok_or_else(|| Damage::ClientKind(self.kind.clone()))?;
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
    fn into_sign_in(self) -> Result<SignIn, Damage> {
        let t = self.tokens;
        let expires_at = match &t.expires_at {
            Some(x) => Some(time_from(x, "expires_at")?),
            None => None,
        };
        let grant =
            GrantType::parse(&self.grant).ok_or_else(|| Damage::Grant(self.grant.clone()))?;
        Ok(SignIn {
            grant,
            key: SignInKey {
                resource: self.resource,
                issuer: self.issuer,
                account: self.account,
            },
            mcp_url: self.mcp_url,
            as_metadata_url: self.as_metadata_url,
            client: self.client.into_registration()?,
            tokens: Tokens {
                access_token: Secret::new(t.access_token),
                token_type: t.token_type,
                expires_at,
                refresh_token: t.refresh_token.map(Secret::new),
                scopes_requested: t.scopes_requested,
                scopes_granted: t.scopes_granted,
                obtained_at: time_from(&t.obtained_at, "obtained_at")?,
            },
            dpop_key: self.dpop_key.map(Secret::new),
        })
    }
}
