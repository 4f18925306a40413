//! The configuration file's entry for a server: how to sign in to it
//! without a person when neither the flags nor the environment say.
//!
//! The file is `$AHP_ELICIT_CONFIG`, else
//! `$XDG_CONFIG_HOME/ahp-elicit/config.toml`, else
//! `~/.config/ahp-elicit/config.toml`; a missing file is no entry. Each
//! server is a table named by its MCP URL exactly as given on the command
//! line, whose keys are the flags' names without the dashes:
//!
//! ```toml
//! [servers."https://mcp.example.com/mcp"]
//! grant = "client-credentials"
//! client-id = "ci-bot"
//! client-secret = "env:MCP_CLIENT_SECRET"
//! ```
//!
//! Keys: `grant`, `client-auth`, `client-key`, `client-key-alg`,
//! `assertion`, `idp-token-endpoint`, `idp-client-id`,
//! `idp-client-secret`, `id-token`, `client-id`, `client-secret`. Secrets
//! are references (`env:VAR`, `file:PATH`) here too, never the secret.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The keys a server's entry may have (the flags' names).
pub const KEYS: [&str; 11] = [
    "grant",
    "client-auth",
    "client-key",
    "client-key-alg",
    "assertion",
    "idp-token-endpoint",
    "idp-client-id",
    "idp-client-secret",
    "id-token",
    "client-id",
    "client-secret",
];

/// The largest configuration file read.
const MAX_BYTES: u64 = 1024 * 1024;

/// One server's entry: its file (for the messages) and its keys.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ServerEntry {
    /// Where it was read, for the messages: `PATH [servers."URL"]`.
    pub place: String,
    /// Key (a flag's name without the dashes) to value.
    pub values: BTreeMap<String, String>,
}

impl ServerEntry {
    /// The value of `flag` (`--client-id`), with where it came from
    /// (`PATH [servers."URL"] client-id`).
    pub fn value(&self, flag: &str) -> Option<(String, String)> {
        let key = flag.trim_start_matches('-');
        self.values
            .get(key)
            .map(|v| (format!("{} {key}", self.place), v.clone()))
    }
}

/// The configuration file: `$AHP_ELICIT_CONFIG`, else under
/// `$XDG_CONFIG_HOME`, else under `~/.config`; None without any of them.
pub fn path(env: &dyn Fn(&str) -> Option<String>) -> Option<PathBuf> {
    let set = |k: &str| env(k).filter(|v| !v.is_empty());
    if let Some(p) = set("AHP_ELICIT_CONFIG") {
        return Some(PathBuf::from(p));
    }
    let base = set("XDG_CONFIG_HOME")
        .map(PathBuf::from)
        .or_else(|| set("HOME").map(|h| Path::new(&h).join(".config")))?;
    Some(base.join("ahp-elicit/config.toml"))
}

/// The entry of the server `url` in the file at `path`; None when the
/// file or the entry does not exist.
///
/// Errors: a usage sentence naming the file: it cannot be read, is not
/// TOML, or the entry has a key that is not a flag's or a value that is
/// not a string.
pub fn entry(path: &Path, url: &str) -> Result<Option<ServerEntry>, String> {
    use std::io::Read;
    let shown = crate::safe_text::display(&path.to_string_lossy()).into_owned();
    let file = match std::fs::File::open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => {
            return Err(format!(
                "cannot read {shown}: {}",
                crate::files::io_reason(&e)
            ))
        }
    };
    let mut text = String::new();
    file.take(MAX_BYTES + 1)
        .read_to_string(&mut text)
        .map_err(|e| format!("cannot read {shown}: {}", crate::files::io_reason(&e)))?;
    if text.len() as u64 > MAX_BYTES {
        return Err(format!("{shown} is over 1 MiB: not read"));
    }
    let doc: toml::Table =
        toml::from_str(&text).map_err(|e| format!("{shown} is not TOML: {}", e.message()))?;
    let Some(table) = doc
        .get("servers")
        .and_then(toml::Value::as_table)
        .and_then(|s| s.get(url))
    else {
        return Ok(None);
    };
    let place = format!("{shown} [servers.\"{}\"]", crate::safe_text::display(url));
    let Some(table) = table.as_table() else {
        return Err(format!("{place} is not a table"));
    };
    let mut values = BTreeMap::new();
    for (k, v) in table {
        if !KEYS.contains(&k.as_str()) {
            return Err(format!(
                "{place}: unknown key '{}' (the keys are {})",
                crate::safe_text::display(k),
                KEYS.join(", ")
            ));
        }
        let Some(s) = v.as_str() else {
            return Err(format!("{place} {k}: give a string"));
        };
        values.insert(k.clone(), s.to_owned());
    }
    Ok(Some(ServerEntry { place, values }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_file_is_found_in_the_environment_or_under_the_home() {
        let env = |pairs: &'static [(&'static str, &'static str)]| {
            move |k: &str| {
                pairs
                    .iter()
                    .find(|(n, _)| *n == k)
                    .map(|(_, v)| v.to_string())
            }
        };
        assert_eq!(
            path(&env(&[
                ("AHP_ELICIT_CONFIG", "/etc/a.toml"),
                ("HOME", "/h")
            ])),
            Some(PathBuf::from("/etc/a.toml"))
        );
        assert_eq!(
            path(&env(&[("XDG_CONFIG_HOME", "/x"), ("HOME", "/h")])),
            Some(PathBuf::from("/x/ahp-elicit/config.toml"))
        );
        assert_eq!(
            path(&env(&[("HOME", "/h")])),
            Some(PathBuf::from("/h/.config/ahp-elicit/config.toml"))
        );
        assert_eq!(path(&env(&[])), None);
    }

    #[test]
    fn a_server_entry_is_read_by_its_exact_url_and_checked() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("config.toml");
        assert_eq!(entry(&f, "https://a.example/mcp").unwrap(), None);
        std::fs::write(
            &f,
            r#"
[servers."https://a.example/mcp"]
grant = "client-credentials"
client-id = "ci-bot"
client-secret = "env:S"
"#,
        )
        .unwrap();
        let e = entry(&f, "https://a.example/mcp").unwrap().unwrap();
        assert_eq!(
            e.value("--client-id"),
            Some((
                format!(
                    "{} [servers.\"https://a.example/mcp\"] client-id",
                    f.display()
                ),
                "ci-bot".to_owned()
            ))
        );
        assert_eq!(e.value("--assertion"), None);
        // Another spelling of the URL is another server.
        assert_eq!(entry(&f, "https://a.example/mcp/").unwrap(), None);
        std::fs::write(&f, "[servers.\"u\"]\npassword = \"x\"\n").unwrap();
        let e = entry(&f, "u").unwrap_err();
        assert!(e.contains("unknown key 'password'"), "{e}");
        std::fs::write(&f, "[servers.\"u\"]\ngrant = 3\n").unwrap();
        assert!(entry(&f, "u")
            .unwrap_err()
            .ends_with("grant: give a string"));
        std::fs::write(&f, "servers = [").unwrap();
        assert!(entry(&f, "u").unwrap_err().contains("is not TOML"));
    }
}
