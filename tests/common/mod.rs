//! Helpers shared by the integration tests: where `../shared` and the
//! upstream files are.
#![allow(dead_code)]

#[cfg(unix)]
pub mod pty;

use std::path::PathBuf;

/// The `shared/` folder beside the project root (`../shared`), or
/// `$AHP_SHARED_DIR`.
pub fn shared_dir() -> PathBuf {
    if let Ok(d) = std::env::var("AHP_SHARED_DIR") {
        return PathBuf::from(d);
    }
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let d = root.join("../shared");
    assert!(
        d.is_dir(),
        "../shared is missing beside the project (set AHP_SHARED_DIR)"
    );
    d
}

/// Every line of `vectors/elicitation.jsonl`, parsed.
pub fn vectors() -> Vec<serde_json::Value> {
    let text = std::fs::read_to_string(shared_dir().join("vectors/elicitation.jsonl"))
        .expect("vectors file");
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).expect("vector line"))
        .collect()
}

/// The upstream folder: `$AHP_UPSTREAM_DIR`, else `upstream/mcp/2025-11-25/`
/// when it holds the files, else `../shared/upstream/mcp/2025-11-25/`.
pub fn upstream_dir() -> PathBuf {
    if let Ok(d) = std::env::var("AHP_UPSTREAM_DIR") {
        return PathBuf::from(d);
    }
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let local = root.join("upstream/mcp/2025-11-25");
    if local.join("schema.json").is_file() {
        return local;
    }
    shared_dir().join("upstream/mcp/2025-11-25")
}
