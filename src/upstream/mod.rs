//! The pinned MCP upstream, per pinned [`Revision`]: the pin
//! (`upstream/mcp/<version>/pin.json`, embedded), the digest check, the
//! extraction that generates the revision's definitions
//! (`schemas/mcp-elicitation.schema.json` for 2025-11-25,
//! `schemas/mcp-elicitation-<version>.schema.json` for later ones) from its
//! pinned `schema.json` and `schema.ts`, and the refresh that downloads
//! exactly the pinned addresses.
//!
//! The extraction, from the tagged `schema.json`:
//! - keeps the elicitation definitions: every definition that
//!   `ElicitRequestParams` and `ElicitResult` refer to, directly or not
//!   (2025-11-25: the params, the result, the eight primitive definitions,
//!   `TaskMetadata`, `ProgressToken`; 2026-07-28: the same without the
//!   last two), and leaves out upstream's `description` prose;
//! - closes the requested-schema vocabulary and every primitive and enum
//!   definition (`additionalProperties: false`), while `_meta`,
//!   `task` and the params/result extension fields stay open;
//! - applies each place where `schema.ts` corrects the tagged JSON as a
//!   named [`Override`] (the catalogue is [`OVERRIDES`]; a revision names
//!   the ones its extraction applies, [`overrides_of`]); each one checks
//!   that the tagged JSON still says what it corrects and that `schema.ts`
//!   says what it corrects to, so a new revision cannot slip through
//!   unreviewed;
//! - replaces upstream's `anyOf` unions by discriminated `if`/`then`
//!   dispatches (on `mode`, on `type`, on the presence of `oneOf`,
//!   `enumNames`, `enum`, `items.anyOf`) or a merged type list, which accept
//!   exactly what the closed union accepts but report a fault inside the chosen definition;
//! - sorts every object's keys and prints with two-space indentation and a
//!   final newline, so the output is byte-for-byte deterministic.
//!
//! Adopting a new MCP revision is never automatic (`upstream/README.md`).

use std::io::Write;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde_json::Value;
use sha2::{Digest, Sha256};

use crate::binding::Revision;

mod extract;

pub use extract::{extract, overrides_of, render};
#[cfg(feature = "internals")]
pub use extract::{Override, OVERRIDES};

/// The environment variable naming a folder that holds one folder per
/// pinned revision (`$AHP_UPSTREAM_DIR/<version>/schema.json`), as
/// `upstream/mcp/` does.
pub const ENV_DIR: &str = "AHP_UPSTREAM_DIR";
/// The project's own upstream folder, holding one folder per revision
/// (relative to the current directory).
pub const LOCAL_ROOT: &str = "upstream/mcp";

/// The project's own folder of `rev`'s upstream files
/// (`upstream/mcp/<version>`, relative to the current directory).
pub fn local_dir(rev: Revision) -> PathBuf {
    Path::new(LOCAL_ROOT).join(rev.as_str())
}

/// One pinned file.
#[derive(Debug, Clone, Deserialize, PartialEq, Eq)]
pub struct PinnedFile {
    /// File name in the upstream folder (`schema.ts`, `schema.json`).
    pub name: String,
    /// Path in the upstream repository.
    pub path: String,
    /// The download address of the tagged file.
    pub url: String,
    /// SHA-256, 64 lowercase hex digits (authoritative).
    pub sha256: String,
    /// Size in bytes of the file with that digest.
    pub bytes: u64,
}

/// The pin: which upstream revision, and its files.
#[derive(Debug, Clone, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct Pin {
    /// MCP protocol revision (`2025-11-25`).
    pub protocol_revision: String,
    /// `owner/name` of the specification repository.
    pub repository: String,
    /// The git tag.
    pub tag: String,
    /// The commit the tag names.
    pub commit: String,
    pub files: Vec<PinnedFile>,
}

impl Pin {
    /// The pinned file of this name.
    pub fn file(&self, name: &str) -> Option<&PinnedFile> {
        self.files.iter().find(|f| f.name == name)
    }
}

/// The embedded pin of `rev`.
///
/// Panics only if the embedded `pin.json` is malformed (a build defect the
/// tests catch).
pub fn pin(rev: Revision) -> Pin {
    serde_json::from_str(rev.data().pin_json).expect("embedded pin.json is well formed")
}

/// What can go wrong with the upstream files.
#[derive(Debug, thiserror::Error)]
pub enum UpstreamError {
    /// A file could not be read or written (exit 2).
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    /// A download failed (exit 2).
    #[error("download {url}: {source}")]
    Download {
        /// The address.
        url: String,
        /// The HTTP client's error.
        #[source]
        source: Box<ureq::Error>,
    },
    /// The pinned files are not what the extraction expects, or a digest
    /// does not match (exit 1). The text is a finding about the files (it
    /// becomes a line of `verify`'s list of differences), not a cause.
    #[error("{0}")]
    Mismatch(String),
}

fn mismatch(msg: impl Into<String>) -> UpstreamError {
    UpstreamError::Mismatch(msg.into())
}

fn io_err(path: &Path) -> impl FnOnce(std::io::Error) -> UpstreamError + '_ {
    move |source| UpstreamError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// SHA-256 of `bytes` as 64 lowercase hex digits.
pub fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// The folder of `rev`'s upstream files: `explicit` (`--dir`), else
/// `$AHP_UPSTREAM_DIR/<version>`, else [`local_dir`] (relative to the
/// current directory).
pub fn resolve_dir(rev: Revision, explicit: Option<&Path>) -> PathBuf {
    if let Some(d) = explicit {
        return d.to_path_buf();
    }
    if let Some(d) = std::env::var_os(ENV_DIR) {
        if !d.is_empty() {
            return PathBuf::from(d).join(rev.as_str());
        }
    }
    local_dir(rev)
}

/// Whether `dir` holds upstream files at all (a `schema.json`).
pub fn holds_files(dir: &Path) -> bool {
    dir.join("schema.json").is_file()
}

/// Compare the files in `dir` with the pin. Returns one line per difference
/// (empty: all digests match).
///
/// Errors: a pinned file that cannot be read.
pub fn check_digests(dir: &Path, pin: &Pin) -> Result<Vec<String>, UpstreamError> {
    let mut diffs = Vec::new();
    for f in &pin.files {
        let path = dir.join(&f.name);
        let bytes = std::fs::read(&path).map_err(io_err(&path))?;
        let got = sha256_hex(&bytes);
        if got != f.sha256 {
            diffs.push(format!(
                "{}: SHA-256 is {got} ({} bytes), the pin says {} ({} bytes)",
                path.display(),
                bytes.len(),
                f.sha256,
                f.bytes
            ));
        }
    }
    Ok(diffs)
}

/// Read the pinned files in `dir`, check their digests, and extract (with
/// [`OVERRIDES`]). Returns the file text.
///
/// Errors: unreadable files (I/O), digests that differ from the pin or an
/// upstream shape the extraction does not know (mismatch).
pub fn extract_dir(rev: Revision, dir: &Path) -> Result<String, UpstreamError> {
    let p = pin(rev);
    let diffs = check_digests(dir, &p)?;
    if !diffs.is_empty() {
        return Err(mismatch(format!(
            "the upstream files in {} are not the pinned MCP {rev} ones:\n  {}",
            dir.display(),
            diffs.join("\n  ")
        )));
    }
    let json_path = dir.join("schema.json");
    let ts_path = dir.join("schema.ts");
    let json_text = std::fs::read_to_string(&json_path).map_err(io_err(&json_path))?;
    let ts = std::fs::read_to_string(&ts_path).map_err(io_err(&ts_path))?;
    let json: Value = serde_json::from_str(&json_text)
        .map_err(|e| mismatch(format!("{} is not JSON: {e}", json_path.display())))?;
    Ok(render(&extract(rev, &json, &ts, &overrides_of(rev))?))
}

/// The first line where `committed` and `fresh` differ, as a short report
/// (None when equal).
pub fn first_difference(committed: &str, fresh: &str) -> Option<String> {
    if committed == fresh {
        return None;
    }
    let (a, b): (Vec<&str>, Vec<&str>) = (committed.lines().collect(), fresh.lines().collect());
    let n = a.len().max(b.len());
    for i in 0..n {
        let (x, y) = (a.get(i), b.get(i));
        if x != y {
            return Some(format!(
                "line {}: committed {}, fresh extraction {}",
                i + 1,
                x.map(|s| format!("`{}`", s.trim()))
                    .unwrap_or("(end)".into()),
                y.map(|s| format!("`{}`", s.trim()))
                    .unwrap_or("(end)".into()),
            ));
        }
    }
    Some("the files differ in line endings or a final newline".into())
}

/// `verify`: the digests of the files in `dir` match `rev`'s pin, and a
/// fresh extraction equals `committed` (the revision's generated
/// definitions, or a file given instead, named `committed_name` in the
/// report). Returns one line per difference (empty: verified). Offline.
///
/// Errors: unreadable files (I/O).
pub fn verify(
    rev: Revision,
    dir: &Path,
    committed: &str,
    committed_name: &str,
) -> Result<Vec<String>, UpstreamError> {
    let p = pin(rev);
    let mut diffs = check_digests(dir, &p)?;
    if !diffs.is_empty() {
        return Ok(diffs);
    }
    match extract_dir(rev, dir) {
        Ok(fresh) => {
            if let Some(d) = first_difference(committed, &fresh) {
                let fix = if committed_name == rev.data().definitions_path {
                    format!("; run `ahp-elicit upstream extract --protocol-version {rev}` and review the diff")
                } else {
                    String::new()
                };
                diffs.push(format!(
                    "{committed_name} differs from a fresh extraction of MCP {rev} ({d}){fix}"
                ));
            }
        }
        Err(UpstreamError::Mismatch(m)) => diffs.push(m),
        Err(e) => return Err(e),
    }
    Ok(diffs)
}

/// Replace the scheme and host of `url` by `mirror` (a prefix such as
/// `http://127.0.0.1:8080/`); for tests only (`refresh --mirror`).
fn mirrored(url: &str, mirror: &str) -> String {
    let after_scheme = url.find("://").map(|i| i + 3).unwrap_or(0);
    let path_start = url[after_scheme..]
        .find('/')
        .map(|i| after_scheme + i + 1)
        .unwrap_or(url.len());
    format!("{}/{}", mirror.trim_end_matches('/'), &url[path_start..])
}

fn download(url: &str) -> Result<Vec<u8>, UpstreamError> {
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .timeout_global(Some(std::time::Duration::from_secs(120)))
        .build()
        .into();
    let fail = |e: ureq::Error| UpstreamError::Download {
        url: url.to_owned(),
        source: Box::new(e),
    };
    let mut resp = agent.get(url).call().map_err(fail)?;
    resp.body_mut()
        .with_config()
        .limit(16 * 1024 * 1024)
        .read_to_vec()
        .map_err(fail)
}

/// `refresh`: download exactly `rev`'s pinned addresses (with the scheme
/// and host replaced by `mirror`, for tests), check both digests, and only
/// when both match write them into `dir` (temporary files, then renames).
/// Returns one line per digest mismatch; then nothing is written and `dir`
/// is left as it was.
///
/// Errors: a failed download or write (I/O).
pub fn refresh(
    rev: Revision,
    dir: &Path,
    mirror: Option<&str>,
) -> Result<Vec<String>, UpstreamError> {
    let p = pin(rev);
    let mut got = Vec::new();
    let mut diffs = Vec::new();
    for f in &p.files {
        let url = match mirror {
            Some(m) => mirrored(&f.url, m),
            None => f.url.clone(),
        };
        let bytes = download(&url)?;
        let digest = sha256_hex(&bytes);
        if digest != f.sha256 {
            diffs.push(format!(
                "{url}: SHA-256 is {digest} ({} bytes), the pin says {} ({} bytes); nothing kept",
                bytes.len(),
                f.sha256,
                f.bytes
            ));
        }
        got.push((f, bytes));
    }
    if !diffs.is_empty() {
        return Ok(diffs);
    }
    std::fs::create_dir_all(dir).map_err(io_err(dir))?;
    let mut temps: Vec<(PathBuf, PathBuf)> = Vec::new();
    let cleanup = |temps: &[(PathBuf, PathBuf)]| {
        for (t, _) in temps {
            let _ = std::fs::remove_file(t);
        }
    };
    for (f, bytes) in &got {
        let tmp = dir.join(format!(".{}.download-{}", f.name, std::process::id()));
        let written = std::fs::File::create(&tmp)
            .and_then(|mut h| h.write_all(bytes).and_then(|_| h.sync_all()));
        temps.push((tmp.clone(), dir.join(&f.name)));
        if let Err(e) = written {
            cleanup(&temps);
            return Err(UpstreamError::Io {
                path: tmp,
                source: e,
            });
        }
    }
    for (tmp, dest) in &temps {
        if let Err(e) = std::fs::rename(tmp, dest) {
            cleanup(&temps);
            return Err(UpstreamError::Io {
                path: dest.clone(),
                source: e,
            });
        }
    }
    Ok(Vec::new())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_pin_is_well_formed() {
        for rev in Revision::ALL.iter().copied() {
            let p = pin(rev);
            assert_eq!(p.tag, rev.as_str());
            assert_eq!(p.protocol_revision, rev.as_str());
            assert_eq!(p.files.len(), 2);
            for f in &p.files {
                assert_eq!(f.sha256.len(), 64);
                assert!(f.url.ends_with(&f.path), "{} ends with {}", f.url, f.path);
                assert!(
                    f.url.contains(&format!("/{rev}/schema/{rev}/")),
                    "{}",
                    f.url
                );
            }
        }
    }

    #[test]
    fn mirror_replaces_scheme_and_host() {
        assert_eq!(
            mirrored(
                "https://raw.example.com/a/b/schema.ts",
                "http://127.0.0.1:9/"
            ),
            "http://127.0.0.1:9/a/b/schema.ts"
        );
    }
}
