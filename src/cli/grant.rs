//! The flags of signing in without a person (`--grant` and the
//! credentials it takes), shared by `mcp` and `auth login`, with their
//! environment variables: a flag not given is read from its variable
//! (`--grant` from `AHP_ELICIT_GRANT`, …; see [`ENV`]), and `--client-id`
//! and `--client-secret` from `AHP_ELICIT_CLIENT_ID` and
//! `AHP_ELICIT_CLIENT_SECRET` when a grant is chosen. Every secret is a
//! reference (`env:VAR` or `file:PATH`); the secret itself is refused.
//!
//! The grant is always the run's choice (flags, environment), never the
//! server's.

use std::sync::Arc;

use super::servers_config::ServerEntry;
use crate::mcp::auth::unattended::{ClientAuth, Grant, IdentityProvider, SecretRef, Unattended};

/// The sign-in flags that need no person.
#[derive(Debug, Clone, Default, clap::Args)]
#[command(next_help_heading = "Signing in without a person (HTTP servers)")]
pub struct GrantFlags {
    /// How to sign in: `browser` (a person; the default),
    /// `client-credentials` (the client's secret or key),
    /// `jwt-bearer` (an assertion the runner holds: a CI system's OIDC
    /// token) or `enterprise` (an identity provider's ID token exchanged
    /// for an ID-JAG). Default $AHP_ELICIT_GRANT, else the server's entry
    /// in the configuration file (each of these flags likewise: see
    /// docs/mcp.md, "Ways to sign in").
    #[arg(long, value_name = "GRANT", value_parser = ["browser", "client-credentials", "jwt-bearer", "enterprise"], display_order = 210)]
    pub grant: Option<String>,
    /// How the client authenticates at the token endpoint: `basic`
    /// (client_secret_basic), `post` (client_secret_post),
    /// `private-key-jwt` or `none`; default: from --client-key or
    /// --client-secret and what the authorization server lists.
    #[arg(long, value_name = "METHOD", value_parser = ["basic", "post", "private-key-jwt", "none"], display_order = 211)]
    pub client_auth: Option<String>,
    /// The client's private key for private-key-jwt: file:PATH or env:VAR
    /// holding a PEM key or a private JWK (EC P-256 or RSA).
    #[arg(long, value_name = "file:PATH|env:VAR", display_order = 212)]
    pub client_key: Option<String>,
    /// The key's algorithm, when not the key type's (ES256 for EC, RS256
    /// for RSA).
    #[arg(long, value_name = "ALG", value_parser = ["ES256", "RS256"], display_order = 213)]
    pub client_key_alg: Option<String>,
    /// The JWT of --grant jwt-bearer: file:PATH or env:VAR, read again at
    /// every use (CI systems rotate them).
    #[arg(long, value_name = "file:PATH|env:VAR", display_order = 214)]
    pub assertion: Option<String>,
    /// The identity provider's token endpoint (--grant enterprise).
    #[arg(long, value_name = "URL", display_order = 215)]
    pub idp_token_endpoint: Option<String>,
    /// This client's id at the identity provider (--grant enterprise).
    #[arg(long, value_name = "ID", display_order = 216)]
    pub idp_client_id: Option<String>,
    /// Its secret there, when it has one: env:VAR or file:PATH.
    #[arg(long, value_name = "env:VAR|file:PATH", display_order = 217)]
    pub idp_client_secret: Option<String>,
    /// The ID token from the identity provider (--grant enterprise):
    /// file:PATH or env:VAR, read again at every use.
    #[arg(long, value_name = "file:PATH|env:VAR", display_order = 218)]
    pub id_token: Option<String>,
}

/// The environment variable of each flag, read when the flag is not given.
pub const ENV: [(&str, &str); 11] = [
    ("--grant", "AHP_ELICIT_GRANT"),
    ("--client-auth", "AHP_ELICIT_CLIENT_AUTH"),
    ("--client-key", "AHP_ELICIT_CLIENT_KEY"),
    ("--client-key-alg", "AHP_ELICIT_CLIENT_KEY_ALG"),
    ("--assertion", "AHP_ELICIT_ASSERTION"),
    ("--idp-token-endpoint", "AHP_ELICIT_IDP_TOKEN_ENDPOINT"),
    ("--idp-client-id", "AHP_ELICIT_IDP_CLIENT_ID"),
    ("--idp-client-secret", "AHP_ELICIT_IDP_CLIENT_SECRET"),
    ("--id-token", "AHP_ELICIT_ID_TOKEN"),
    ("--client-id", "AHP_ELICIT_CLIENT_ID"),
    ("--client-secret", "AHP_ELICIT_CLIENT_SECRET"),
];

impl GrantFlags {
    /// Whether any of these flags was given (a usage error with a stdio
    /// server).
    pub fn any(&self) -> bool {
        [
            &self.grant,
            &self.client_auth,
            &self.client_key,
            &self.client_key_alg,
            &self.assertion,
            &self.idp_token_endpoint,
            &self.idp_client_id,
            &self.idp_client_secret,
            &self.id_token,
        ]
        .iter()
        .any(|f| f.is_some())
    }

    /// The value of `flag`: given, else its environment variable's, else
    /// the server's entry in the configuration file; with where it came
    /// from (the flag, the variable, the entry's key).
    fn value(
        &self,
        flag: &str,
        env: &dyn Fn(&str) -> Option<String>,
        config: Option<&ServerEntry>,
    ) -> Option<(String, String)> {
        let given = match flag {
            "--grant" => &self.grant,
            "--client-auth" => &self.client_auth,
            "--client-key" => &self.client_key,
            "--client-key-alg" => &self.client_key_alg,
            "--assertion" => &self.assertion,
            "--idp-token-endpoint" => &self.idp_token_endpoint,
            "--idp-client-id" => &self.idp_client_id,
            "--idp-client-secret" => &self.idp_client_secret,
            "--id-token" => &self.id_token,
            _ => &None,
        };
        if let Some(v) = given {
            return Some((flag.to_owned(), v.clone()));
        }
        let var = ENV.iter().find(|(f, _)| *f == flag)?.1;
        env(var)
            .filter(|v| !v.is_empty())
            .map(|v| (var.to_owned(), v))
            .or_else(|| config?.value(flag))
    }
}

/// Reads `--client-key` with the algorithm `--client-key-alg` names
/// ([`load_key`]); a usage sentence when it cannot.
pub type KeyLoader = dyn Fn(
    &SecretRef,
    Option<&str>,
) -> Result<Arc<dyn crate::mcp::auth::unattended::ClientKey>, String>;

/// What the grant flags (their variables, the server's configuration
/// entry) ask for: the grant, and the client id and secret reference from
/// the environment or the entry, for when the flags give none.
pub struct Chosen {
    /// The grant and how the client authenticates.
    pub unattended: Unattended,
    /// `AHP_ELICIT_CLIENT_ID`, else the entry's `client-id` (used when
    /// `--client-id` was not given).
    pub client_id: Option<String>,
    /// `AHP_ELICIT_CLIENT_SECRET`, else the entry's `client-secret` (a
    /// reference; used when `--client-secret` was not given).
    pub client_secret: Option<SecretRef>,
    /// Where `--client-key` came from (the flag, its variable or the
    /// entry's key), for the messages.
    pub key_from: Option<String>,
}

/// The grant the flags, the environment (`env`) and the server's entry in
/// the configuration file (`config`) choose, in that order; None for the
/// browser flow. `load_key` reads `--client-key` (with `--client-key-alg`).
///
/// Errors: a usage sentence naming the flag (or variable): an unknown
/// value, a secret given itself instead of by reference, a flag the grant
/// does not take or one it needs missing.
pub fn chosen(
    flags: &GrantFlags,
    env: &dyn Fn(&str) -> Option<String>,
    config: Option<&ServerEntry>,
    load_key: &KeyLoader,
) -> Result<Option<Chosen>, String> {
    let value = |flag: &str| flags.value(flag, env, config);
    let reference = |flag: &str| -> Result<Option<SecretRef>, String> {
        value(flag)
            .map(|(from, v)| SecretRef::parse(&from, &v).map_err(|e| e.to_string()))
            .transpose()
    };
    let Some((from, grant)) = value("--grant") else {
        return refuse_without_grant(flags);
    };
    let grant = match grant.as_str() {
        "browser" => return refuse_without_grant(flags),
        "client-credentials" => Grant::ClientCredentials,
        "jwt-bearer" => Grant::JwtBearer {
            assertion: reference("--assertion")?.ok_or(
                "--grant jwt-bearer needs --assertion file:PATH|env:VAR (the JWT the runner holds)",
            )?,
        },
        "enterprise" => {
            let need = |flag: &str, what: &str| {
                value(flag)
                    .map(|(_, v)| v)
                    .ok_or(format!("--grant enterprise needs {flag} {what}"))
            };
            let token_endpoint = need(
                "--idp-token-endpoint",
                "URL (the identity provider's token endpoint)",
            )?;
            let ok = url::Url::parse(&token_endpoint).is_ok()
                && crate::mcp::auth::discovery::endpoint_allowed(&token_endpoint);
            if !ok {
                let from = value("--idp-token-endpoint")
                    .map(|(f, _)| f)
                    .unwrap_or_default();
                return Err(format!(
                    "{from} {}: give an https URL (or http on this machine)",
                    crate::safe_text::display(&token_endpoint)
                ));
            }
            Grant::Enterprise(IdentityProvider {
                token_endpoint,
                client_id: need("--idp-client-id", "ID (this client's id at the identity provider)")?,
                client_secret: reference("--idp-client-secret")?,
                id_token: reference("--id-token")?.ok_or(
                    "--grant enterprise needs --id-token file:PATH|env:VAR (the ID token from the identity provider)",
                )?,
            })
        }
        other => {
            return Err(format!(
                "{from} {}: give browser, client-credentials, jwt-bearer or enterprise",
                crate::safe_text::display(other)
            ))
        }
    };
    if !matches!(grant, Grant::JwtBearer { .. }) && flags.assertion.is_some() {
        return Err("--assertion is the JWT of --grant jwt-bearer".into());
    }
    if !matches!(grant, Grant::Enterprise(_)) {
        if let Some(f) = [
            "--idp-token-endpoint",
            "--idp-client-id",
            "--idp-client-secret",
            "--id-token",
        ]
        .into_iter()
        .find(|f| flags.value(f, &|_| None, None).is_some())
        {
            return Err(format!("{f} is for --grant enterprise"));
        }
    }
    let client_auth = match value("--client-auth") {
        None => None,
        Some((from, m)) => Some(match m.as_str() {
            "basic" => ClientAuth::Basic,
            "post" => ClientAuth::Post,
            "private-key-jwt" => ClientAuth::PrivateKeyJwt,
            "none" => ClientAuth::None,
            other => {
                return Err(format!(
                    "{from} {}: give basic, post, private-key-jwt or none",
                    crate::safe_text::display(other)
                ))
            }
        }),
    };
    let alg = value("--client-key-alg");
    if let Some((from, a)) = &alg {
        // The flag is checked by its parser; a variable or the file here.
        if !["ES256", "RS256"].contains(&a.as_str()) {
            return Err(format!(
                "{from} {}: give ES256 or RS256",
                crate::safe_text::display(a)
            ));
        }
    }
    let (client_key, key_from) = match reference("--client-key")? {
        Some(r) => (
            Some(load_key(&r, alg.as_ref().map(|(_, a)| a.as_str()))?),
            Some(r.flag),
        ),
        None => match alg {
            Some((from, _)) => return Err(format!("{from} goes with --client-key")),
            None => (None, None),
        },
    };
    Ok(Some(Chosen {
        unattended: Unattended {
            grant,
            client_auth,
            client_key,
        },
        client_id: value("--client-id").map(|(_, v)| v),
        client_secret: reference("--client-secret")?,
        key_from,
    }))
}

/// Read `--client-key` (PEM or a private JWK) for `private_key_jwt`, with
/// the algorithm `--client-key-alg` names, else the key type's
/// ([`crate::mcp::auth::unattended::client_key`]).
///
/// Errors: a usage sentence naming the flag (never the key).
pub fn load_key(
    r: &SecretRef,
    alg: Option<&str>,
) -> Result<Arc<dyn crate::mcp::auth::unattended::ClientKey>, String> {
    crate::mcp::auth::unattended::client_key(r, alg)
}

/// Without a grant (or with `browser`), a flag of one is a mistake.
fn refuse_without_grant(flags: &GrantFlags) -> Result<Option<Chosen>, String> {
    let given = GrantFlags {
        grant: None,
        ..flags.clone()
    };
    if given.any() {
        return Err("the flags of signing in without a person (--client-auth, --client-key, --assertion, --idp-*, --id-token) go with --grant client-credentials, jwt-bearer or enterprise".into());
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn no_key(
        _: &SecretRef,
        _: Option<&str>,
    ) -> Result<Arc<dyn crate::mcp::auth::unattended::ClientKey>, String> {
        Err("no key in this test".into())
    }

    #[test]
    fn the_grant_comes_from_the_flag_else_the_environment_never_the_server() {
        let none = |_: &str| None;
        assert!(chosen(&GrantFlags::default(), &none, None, &no_key)
            .unwrap()
            .is_none());
        let browser = GrantFlags {
            grant: Some("browser".into()),
            ..GrantFlags::default()
        };
        assert!(chosen(&browser, &none, None, &no_key).unwrap().is_none());
        let env = |v: &str| match v {
            "AHP_ELICIT_GRANT" => Some("jwt-bearer".to_owned()),
            "AHP_ELICIT_ASSERTION" => Some("file:/run/ci/token".to_owned()),
            "AHP_ELICIT_CLIENT_ID" => Some("ci-client".to_owned()),
            _ => None,
        };
        let c = chosen(&GrantFlags::default(), &env, None, &no_key)
            .unwrap()
            .unwrap();
        let Grant::JwtBearer { assertion } = &c.unattended.grant else {
            panic!("{:?}", c.unattended)
        };
        assert_eq!(assertion.flag, "AHP_ELICIT_ASSERTION");
        assert_eq!(c.client_id.as_deref(), Some("ci-client"));
        // The flag wins over the variable.
        let cc = GrantFlags {
            grant: Some("client-credentials".into()),
            ..GrantFlags::default()
        };
        let c = chosen(&cc, &env, None, &no_key).unwrap().unwrap();
        assert!(matches!(c.unattended.grant, Grant::ClientCredentials));
        // A variable naming no grant is named in the error.
        let bad = |v: &str| (v == "AHP_ELICIT_GRANT").then(|| "password".to_owned());
        assert_eq!(
            chosen(&GrantFlags::default(), &bad, None, &no_key)
                .err()
                .unwrap(),
            "AHP_ELICIT_GRANT password: give browser, client-credentials, jwt-bearer or enterprise"
        );
    }

    #[test]
    fn a_value_from_a_variable_or_the_file_is_named_by_where_it_came_from() {
        let env = |pairs: &'static [(&'static str, &'static str)]| {
            move |k: &str| {
                pairs
                    .iter()
                    .find(|(n, _)| *n == k)
                    .map(|(_, v)| v.to_string())
            }
        };
        let cc = GrantFlags {
            grant: Some("client-credentials".into()),
            ..GrantFlags::default()
        };
        let e = |flags: &GrantFlags, pairs, entry: Option<&ServerEntry>| {
            chosen(flags, &env(pairs), entry, &no_key).err().unwrap()
        };
        assert_eq!(
            e(&cc, &[("AHP_ELICIT_CLIENT_AUTH", "digest")], None),
            "AHP_ELICIT_CLIENT_AUTH digest: give basic, post, private-key-jwt or none"
        );
        assert_eq!(
            e(&cc, &[("AHP_ELICIT_CLIENT_KEY_ALG", "HS256")], None),
            "AHP_ELICIT_CLIENT_KEY_ALG HS256: give ES256 or RS256"
        );
        assert_eq!(
            e(&cc, &[("AHP_ELICIT_CLIENT_KEY_ALG", "ES256")], None),
            "AHP_ELICIT_CLIENT_KEY_ALG goes with --client-key"
        );
        let ent = GrantFlags {
            grant: Some("enterprise".into()),
            idp_client_id: Some("idp-client".into()),
            id_token: Some("file:/tmp/id".into()),
            ..GrantFlags::default()
        };
        assert_eq!(
            e(
                &ent,
                &[("AHP_ELICIT_IDP_TOKEN_ENDPOINT", "http://idp.example.com/t")],
                None
            ),
            "AHP_ELICIT_IDP_TOKEN_ENDPOINT http://idp.example.com/t: give an https URL (or http on this machine)"
        );
        let entry = ServerEntry {
            place: "config.toml [servers.\"u\"]".into(),
            values: [("grant", "client-credentials"), ("client-auth", "digest")]
                .into_iter()
                .map(|(k, v)| (k.to_owned(), v.to_owned()))
                .collect(),
        };
        assert_eq!(
            e(&GrantFlags::default(), &[], Some(&entry)),
            "config.toml [servers.\"u\"] client-auth digest: give basic, post, private-key-jwt or none"
        );
    }

    #[test]
    fn the_configuration_entry_comes_after_the_flags_and_the_environment() {
        let entry = ServerEntry {
            place: "config.toml [servers.\"u\"]".into(),
            values: [
                ("grant", "jwt-bearer"),
                ("assertion", "file:/run/token"),
                ("client-id", "from-config"),
                ("client-secret", "env:CONFIG_SECRET"),
            ]
            .into_iter()
            .map(|(k, v)| (k.to_owned(), v.to_owned()))
            .collect(),
        };
        let none = |_: &str| None;
        let c = chosen(&GrantFlags::default(), &none, Some(&entry), &no_key)
            .unwrap()
            .unwrap();
        let Grant::JwtBearer { assertion } = &c.unattended.grant else {
            panic!("{:?}", c.unattended)
        };
        assert_eq!(assertion.flag, "config.toml [servers.\"u\"] assertion");
        assert_eq!(c.client_id.as_deref(), Some("from-config"));
        assert_eq!(
            c.client_secret.unwrap().flag,
            "config.toml [servers.\"u\"] client-secret"
        );
        // The environment comes first, the flag before it.
        let env = |v: &str| (v == "AHP_ELICIT_CLIENT_ID").then(|| "from-env".to_owned());
        let c = chosen(&GrantFlags::default(), &env, Some(&entry), &no_key)
            .unwrap()
            .unwrap();
        assert_eq!(c.client_id.as_deref(), Some("from-env"));
        let cc = GrantFlags {
            grant: Some("client-credentials".into()),
            ..GrantFlags::default()
        };
        let c = chosen(&cc, &env, Some(&entry), &no_key).unwrap().unwrap();
        assert!(matches!(c.unattended.grant, Grant::ClientCredentials));
        // A secret written in the file itself is refused, naming the key.
        let mut literal = entry.clone();
        literal
            .values
            .insert("client-secret".into(), "hunter2-in-a-file".into());
        let e = chosen(&GrantFlags::default(), &none, Some(&literal), &no_key)
            .err()
            .unwrap();
        assert!(
            e.starts_with("config.toml [servers.\"u\"] client-secret: give env:VAR or file:PATH"),
            "{e}"
        );
        assert!(!e.contains("hunter2"), "{e}");
    }

    #[test]
    fn secrets_are_references_and_each_grant_takes_its_own_flags() {
        let none = |_: &str| None;
        let jwt = GrantFlags {
            grant: Some("jwt-bearer".into()),
            assertion: Some("eyJhbGciOiJFUzI1NiJ9.e30.sig".into()),
            ..GrantFlags::default()
        };
        let e = chosen(&jwt, &none, None, &no_key).err().unwrap();
        assert!(
            e.starts_with("--assertion: give env:VAR or file:PATH"),
            "{e}"
        );
        assert!(!e.contains("eyJ"), "{e}");
        let missing = GrantFlags {
            assertion: None,
            ..jwt.clone()
        };
        assert!(chosen(&missing, &none, None, &no_key)
            .err()
            .unwrap()
            .contains("needs --assertion"));
        let stray = GrantFlags {
            assertion: Some("env:X".into()),
            grant: None,
            ..GrantFlags::default()
        };
        assert!(chosen(&stray, &none, None, &no_key)
            .err()
            .unwrap()
            .contains("go with --grant"));
        let ent = GrantFlags {
            grant: Some("enterprise".into()),
            idp_token_endpoint: Some("http://idp.example.com/token".into()),
            idp_client_id: Some("idp-client".into()),
            id_token: Some("file:/tmp/id".into()),
            ..GrantFlags::default()
        };
        let e = chosen(&ent, &none, None, &no_key).err().unwrap();
        assert!(e.contains("give an https URL"), "{e}");
        let ent = GrantFlags {
            idp_token_endpoint: Some("https://idp.example.com/token".into()),
            ..ent
        };
        let c = chosen(&ent, &none, None, &no_key).unwrap().unwrap();
        assert!(matches!(c.unattended.grant, Grant::Enterprise(_)));
        let cc = GrantFlags {
            grant: Some("client-credentials".into()),
            id_token: Some("file:/tmp/id".into()),
            ..GrantFlags::default()
        };
        assert_eq!(
            chosen(&cc, &none, None, &no_key).err().unwrap(),
            "--id-token is for --grant enterprise"
        );
        let literal_secret = |v: &str| match v {
            "AHP_ELICIT_GRANT" => Some("client-credentials".to_owned()),
            "AHP_ELICIT_CLIENT_SECRET" => Some("hunter2-the-secret".to_owned()),
            _ => None,
        };
        let e = chosen(&GrantFlags::default(), &literal_secret, None, &no_key)
            .err()
            .unwrap();
        assert!(
            e.starts_with("AHP_ELICIT_CLIENT_SECRET: give env:VAR or file:PATH"),
            "{e}"
        );
        assert!(!e.contains("hunter2"), "{e}");
    }
}
