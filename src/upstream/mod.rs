//! The pinned MCP upstream: the pin
//! (`upstream/mcp/2025-11-25/pin.json`, embedded), the digest check, the
//! extraction that generates `schemas/mcp-elicitation.schema.json` from the
//! pinned `schema.json` and `schema.ts`, and the refresh that downloads
//! exactly the pinned addresses.
//!
//! The extraction, from the tagged `schema.json`:
//! - keeps the elicitation definitions (`ElicitRequestFormParams`,
//!   `ElicitRequestURLParams`, `ElicitResult`, the eight primitive
//!   definitions, `TaskMetadata`, `ProgressToken`) and leaves out
//!   upstream's `description` prose;
//! - closes the requested-schema vocabulary and every primitive and enum
//!   definition (`additionalProperties: false`), while `_meta`,
//!   `task` and the params/result extension fields stay open;
//! - applies each place where `schema.ts` corrects the tagged JSON as a
//!   named [`Override`] ([`OVERRIDES`]); each one checks that the tagged
//!   JSON still says what it corrects and that `schema.ts` says what it
//!   corrects to, so a new revision cannot slip through unreviewed;
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
use serde_json::{json, Map, Value};
use sha2::{Digest, Sha256};

/// `upstream/mcp/2025-11-25/pin.json`, as embedded in the binary.
pub const PIN_JSON: &str = include_str!("../../upstream/mcp/2025-11-25/pin.json");
/// The environment variable naming the upstream folder.
pub const ENV_DIR: &str = "AHP_UPSTREAM_DIR";
/// The project's own upstream folder (relative to the current directory).
pub const LOCAL_DIR: &str = "upstream/mcp/2025-11-25";
/// The shared read-only copy (relative to the current directory).
pub const SHARED_DIR: &str = "../shared/upstream/mcp/2025-11-25";
/// `$id` of the generated schema document.
pub const GENERATED_ID: &str = "https://ahp-elicit.invalid/schemas/0.1/mcp-elicitation.schema.json";
/// Where the generated file lives in the project.
pub const GENERATED_PATH: &str = "schemas/mcp-elicitation.schema.json";

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

/// The embedded pin.
///
/// Panics only if the embedded `pin.json` is malformed (a build defect the
/// tests catch).
pub fn pin() -> Pin {
    serde_json::from_str(PIN_JSON).expect("embedded pin.json is well formed")
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
    #[error("download {url}: {message}")]
    Download { url: String, message: String },
    /// The pinned files are not what the extraction expects, or a digest
    /// does not match (exit 1).
    #[error("{0}")]
    Mismatch(String),
}

impl UpstreamError {
    /// The exit code for this error: 1 for a mismatch, 2 for I/O.
    pub fn exit_code(&self) -> u8 {
        match self {
            UpstreamError::Mismatch(_) => 1,
            _ => 2,
        }
    }
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

/// The upstream folder: `explicit` (`--dir`), else `$AHP_UPSTREAM_DIR`, else
/// [`LOCAL_DIR`] when it holds `schema.json`, else [`SHARED_DIR`]; the two
/// defaults relative to the current directory.
pub fn resolve_dir(explicit: Option<&Path>) -> PathBuf {
    if let Some(d) = explicit {
        return d.to_path_buf();
    }
    if let Some(d) = std::env::var_os(ENV_DIR) {
        if !d.is_empty() {
            return PathBuf::from(d);
        }
    }
    let local = PathBuf::from(LOCAL_DIR);
    if local.join("schema.json").is_file() {
        return local;
    }
    PathBuf::from(SHARED_DIR)
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

/// One place where `schema.ts` (the source of truth) corrects the tagged
/// `schema.json`, applied by the extraction under its name.
#[derive(Debug, Clone, Copy)]
pub struct Override {
    /// Stable name, used in messages and tests.
    pub name: &'static str,
    /// Why, in one sentence.
    pub reason: &'static str,
    /// JSON Pointers into upstream `$defs` (no leading `#`).
    pub sites: &'static [&'static str],
    /// What the tagged JSON says at each site (JSON text).
    pub upstream: &'static str,
    /// What the extraction writes there instead (JSON text).
    pub corrected: &'static str,
    /// The declaration in `schema.ts` that holds the evidence.
    pub ts_scope: &'static str,
    /// Text that must appear in that declaration.
    pub ts_evidence: &'static [&'static str],
}

/// The schema.ts corrections (`../shared/upstream/mcp/2025-11-25/NOTES.md`:
/// the tag's generator wrote `integer` for every TypeScript `number` that
/// has no `@TJS-type number` tag).
pub const OVERRIDES: &[Override] = &[
    Override {
        name: "number-schema-bounds-are-numbers",
        reason: "NumberSchema.minimum, .maximum and .default are `number` in schema.ts; the tagged JSON says integer and rejects 0.5 or 95.5",
        sites: &[
            "/NumberSchema/properties/minimum/type",
            "/NumberSchema/properties/maximum/type",
            "/NumberSchema/properties/default/type",
        ],
        upstream: r#""integer""#,
        corrected: r#""number""#,
        ts_scope: "export interface NumberSchema {",
        ts_evidence: &["minimum?: number;", "maximum?: number;", "default?: number;"],
    },
    Override {
        name: "elicit-result-content-numbers",
        reason: "ElicitResult.content values are string | number | boolean | string[] in schema.ts; the tagged JSON says integer and rejects {\"rating\": 4.5}",
        sites: &["/ElicitResult/properties/content/additionalProperties/anyOf/1/type"],
        upstream: r#"["string","integer","boolean"]"#,
        corrected: r#"["string","number","boolean"]"#,
        ts_scope: "export interface ElicitResult extends Result {",
        ts_evidence: &["content?: { [key: string]: string | number | boolean | string[] };"],
    },
    Override {
        name: "task-metadata-ttl-number",
        reason: "TaskMetadata.ttl is `number` in schema.ts; the tagged JSON says integer",
        sites: &["/TaskMetadata/properties/ttl/type"],
        upstream: r#""integer""#,
        corrected: r#""number""#,
        ts_scope: "export interface TaskMetadata {",
        ts_evidence: &["ttl?: number;"],
    },
    Override {
        name: "progress-token-number",
        reason: "ProgressToken is `string | number` in schema.ts; the tagged JSON says string or integer",
        sites: &["/ProgressToken/type"],
        upstream: r#"["string","integer"]"#,
        corrected: r#"["string","number"]"#,
        ts_scope: "export type ProgressToken =",
        ts_evidence: &["string | number;"],
    },
];

/// The eight primitive definitions of `PrimitiveSchemaDefinition`, in the
/// order of the tagged union.
pub const PRIMITIVES: [&str; 8] = [
    "StringSchema",
    "NumberSchema",
    "BooleanSchema",
    "UntitledSingleSelectEnumSchema",
    "TitledSingleSelectEnumSchema",
    "UntitledMultiSelectEnumSchema",
    "TitledMultiSelectEnumSchema",
    "LegacyTitledEnumSchema",
];

/// Every upstream definition the extraction copies.
const COPIED: [&str; 13] = [
    "ElicitRequestFormParams",
    "ElicitRequestURLParams",
    "ElicitResult",
    "StringSchema",
    "NumberSchema",
    "BooleanSchema",
    "UntitledSingleSelectEnumSchema",
    "TitledSingleSelectEnumSchema",
    "UntitledMultiSelectEnumSchema",
    "TitledMultiSelectEnumSchema",
    "LegacyTitledEnumSchema",
    "TaskMetadata",
    "ProgressToken",
];

fn mismatch(msg: impl Into<String>) -> UpstreamError {
    UpstreamError::Mismatch(msg.into())
}

/// The text of the declaration that starts with `scope` in `ts`: up to the
/// closing `}` line of an interface, or the end of the line of a one-line
/// type.
fn ts_block<'a>(ts: &'a str, scope: &str) -> Option<&'a str> {
    let start = ts.find(scope)?;
    let rest = &ts[start..];
    let end = if scope.trim_end().ends_with('{') {
        rest.find("\n}").map(|i| i + 2)?
    } else {
        rest.find('\n').unwrap_or(rest.len())
    };
    Some(&rest[..end])
}

fn apply_override(defs: &mut Value, ts: &str, o: &Override) -> Result<(), UpstreamError> {
    let block = ts_block(ts, o.ts_scope).ok_or_else(|| {
        mismatch(format!(
            "override {}: schema.ts has no declaration `{}`",
            o.name, o.ts_scope
        ))
    })?;
    for ev in o.ts_evidence {
        if !block.contains(ev) {
            return Err(mismatch(format!(
                "override {}: schema.ts `{}` no longer says `{ev}`; review the override",
                o.name, o.ts_scope
            )));
        }
    }
    let upstream: Value = serde_json::from_str(o.upstream).expect("override JSON is valid");
    let corrected: Value = serde_json::from_str(o.corrected).expect("override JSON is valid");
    for site in o.sites {
        let slot = defs.pointer_mut(site).ok_or_else(|| {
            mismatch(format!(
                "override {}: schema.json has nothing at $defs{site}",
                o.name
            ))
        })?;
        if *slot != upstream {
            return Err(mismatch(format!(
                "override {}: schema.json has {} at $defs{site}, the override expects {}; review the override",
                o.name, slot, upstream
            )));
        }
        *slot = corrected.clone();
    }
    Ok(())
}

/// Remove upstream's `description` prose from a schema, walking only schema
/// positions (so a *property named* `description` survives).
fn strip_prose(schema: &mut Value) {
    let Value::Object(o) = schema else { return };
    o.remove("description");
    for k in ["properties", "$defs", "patternProperties"] {
        if let Some(Value::Object(m)) = o.get_mut(k) {
            m.values_mut().for_each(strip_prose);
        }
    }
    for k in [
        "additionalProperties",
        "items",
        "not",
        "if",
        "then",
        "else",
        "contains",
    ] {
        if let Some(s) = o.get_mut(k) {
            strip_prose(s);
        }
    }
    for k in ["anyOf", "oneOf", "allOf", "prefixItems"] {
        if let Some(Value::Array(a)) = o.get_mut(k) {
            a.iter_mut().for_each(strip_prose);
        }
    }
}

/// Close every object schema under `schema` that lists `properties` and does
/// not say otherwise (`additionalProperties: false`).
fn close(schema: &mut Value) {
    let Value::Object(o) = schema else { return };
    if o.contains_key("properties") && !o.contains_key("additionalProperties") {
        o.insert("additionalProperties".into(), Value::Bool(false));
    }
    if let Some(Value::Object(m)) = o.get_mut("properties") {
        m.values_mut().for_each(close);
    }
    if let Some(s) = o.get_mut("items") {
        close(s);
    }
}

fn refs_of(union: &Value) -> Vec<String> {
    union
        .get("anyOf")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|x| x.get("$ref").and_then(Value::as_str))
                .map(|r| r.trim_start_matches("#/$defs/").to_owned())
                .collect()
        })
        .unwrap_or_default()
}

fn when(cond: Value, then: Value) -> Value {
    json!({ "if": cond, "then": then })
}

fn has(key: &str) -> Value {
    json!({ "required": [key] })
}

fn type_is(t: Value) -> Value {
    json!({ "properties": { "type": t }, "required": ["type"] })
}

fn to_def(name: &str) -> Value {
    json!({ "$ref": format!("#/$defs/{name}") })
}

/// The discriminated replacement of upstream's `PrimitiveSchemaDefinition`
/// union: `type` picks the family, then the presence of `oneOf`,
/// `enumNames`, `enum` (strings) or `items.anyOf` (arrays) picks the
/// definition. Every definition is closed, so each accepts only what it
/// lists and the dispatch accepts exactly the closed union.
fn primitive_dispatch() -> Value {
    let string = json!({
        "if": has("oneOf"),
        "then": to_def("TitledSingleSelectEnumSchema"),
        "else": {
            "if": has("enumNames"),
            "then": to_def("LegacyTitledEnumSchema"),
            "else": {
                "if": has("enum"),
                "then": to_def("UntitledSingleSelectEnumSchema"),
                "else": to_def("StringSchema")
            }
        }
    });
    let array = json!({
        "if": { "properties": { "items": has("anyOf") }, "required": ["items"] },
        "then": to_def("TitledMultiSelectEnumSchema"),
        "else": to_def("UntitledMultiSelectEnumSchema")
    });
    json!({
        "$comment": "Closed PrimitiveSchemaDefinition: a dispatch on type (and on oneOf, enumNames, enum, items.anyOf) to exactly one closed definition.",
        "type": "object",
        "required": ["type"],
        "properties": {
            "type": { "enum": ["string", "number", "integer", "boolean", "array"] }
        },
        "allOf": [
            when(type_is(json!({"const": "string"})), string),
            when(type_is(json!({"enum": ["number", "integer"]})), to_def("NumberSchema")),
            when(type_is(json!({"const": "boolean"})), to_def("BooleanSchema")),
            when(type_is(json!({"const": "array"})), array),
        ]
    })
}

/// Recursively sorted copy of `v` (every object's keys in byte order).
fn sorted(v: &Value) -> Value {
    match v {
        Value::Object(o) => {
            let mut keys: Vec<&String> = o.keys().collect();
            keys.sort();
            let mut m = Map::new();
            for k in keys {
                m.insert(k.clone(), sorted(&o[k]));
            }
            Value::Object(m)
        }
        Value::Array(a) => Value::Array(a.iter().map(sorted).collect()),
        other => other.clone(),
    }
}

/// Generate the `mcp-elicitation` schema document from the parsed tagged
/// `schema.json` and the text of `schema.ts`, applying `overrides` (pass
/// [`OVERRIDES`]; a test passes none to show the tagged defects).
///
/// Errors: [`UpstreamError::Mismatch`] naming what in upstream is not as
/// this extraction expects (a definition missing, a union with other
/// members, an override whose evidence is gone).
pub fn extract(
    schema_json: &Value,
    schema_ts: &str,
    overrides: &[Override],
) -> Result<Value, UpstreamError> {
    let mut all = schema_json
        .get("$defs")
        .cloned()
        .ok_or_else(|| mismatch("schema.json has no $defs"))?;
    for o in overrides {
        apply_override(&mut all, schema_ts, o)?;
    }
    let mut defs = Map::new();
    for name in COPIED {
        let mut d = all
            .get(name)
            .cloned()
            .ok_or_else(|| mismatch(format!("schema.json has no $defs/{name}")))?;
        strip_prose(&mut d);
        defs.insert(name.to_owned(), d);
    }

    // The union of primitives must be the eight this dispatch knows.
    let union = all
        .get("PrimitiveSchemaDefinition")
        .ok_or_else(|| mismatch("schema.json has no $defs/PrimitiveSchemaDefinition"))?;
    let mut got = refs_of(union);
    let mut want: Vec<String> = PRIMITIVES.iter().map(|s| s.to_string()).collect();
    got.sort();
    want.sort();
    if got != want {
        return Err(mismatch(format!(
            "PrimitiveSchemaDefinition lists {got:?}, the extraction knows {want:?}; review the new members"
        )));
    }
    for name in PRIMITIVES {
        if let Some(d) = defs.get_mut(name) {
            close(d);
        }
    }
    defs.insert("PrimitiveSchemaDefinition".into(), primitive_dispatch());

    // requestedSchema: closed vocabulary; its property map refers to the
    // closed dispatch.
    let rs = defs
        .get_mut("ElicitRequestFormParams")
        .and_then(|d| d.pointer_mut("/properties/requestedSchema"))
        .ok_or_else(|| mismatch("ElicitRequestFormParams has no requestedSchema"))?;
    let props_ref = rs
        .pointer("/properties/properties/additionalProperties/$ref")
        .and_then(Value::as_str);
    if props_ref != Some("#/$defs/PrimitiveSchemaDefinition") {
        return Err(mismatch(
            "requestedSchema.properties no longer refers to PrimitiveSchemaDefinition",
        ));
    }
    if let Value::Object(o) = rs {
        o.insert("additionalProperties".into(), Value::Bool(false));
    }

    // ElicitResult.content values: one `type` list plus `items` in place of
    // the two-member anyOf (same values; a fault is reported once).
    let value_schema = defs
        .get_mut("ElicitResult")
        .and_then(|d| d.pointer_mut("/properties/content/additionalProperties"))
        .ok_or_else(|| mismatch("ElicitResult has no content value schema"))?;
    let (arr, scalar) = match value_schema.get("anyOf").and_then(Value::as_array) {
        Some(a) if a.len() == 2 && a[0].get("type") == Some(&json!("array")) => {
            (a[0].clone(), a[1].clone())
        }
        _ => {
            return Err(mismatch(
                "ElicitResult.content values are no longer anyOf [string array, scalars]",
            ))
        }
    };
    let mut types: Vec<Value> = match scalar.get("type") {
        Some(Value::Array(t)) => t.clone(),
        Some(t @ Value::String(_)) => vec![t.clone()],
        _ => Vec::new(),
    };
    types.push(json!("array"));
    *value_schema =
        json!({ "type": types, "items": arr.get("items").cloned().unwrap_or(json!({})) });

    // The params union: mode "url" picks the URL definition, anything else
    // (a missing mode means form) the form definition.
    let mut params = refs_of(
        all.get("ElicitRequestParams")
            .ok_or_else(|| mismatch("schema.json has no $defs/ElicitRequestParams"))?,
    );
    params.sort();
    if params != ["ElicitRequestFormParams", "ElicitRequestURLParams"] {
        return Err(mismatch(format!(
            "ElicitRequestParams lists {params:?}; review the new members"
        )));
    }
    defs.insert(
        "request".into(),
        json!({
            "$comment": "elicitation/create params: ElicitRequestParams with the mode as discriminator.",
            "type": "object",
            "if": { "properties": { "mode": { "const": "url" } }, "required": ["mode"] },
            "then": to_def("ElicitRequestURLParams"),
            "else": to_def("ElicitRequestFormParams")
        }),
    );
    defs.insert(
        "result".into(),
        json!({ "$comment": "ElicitResult.", "$ref": "#/$defs/ElicitResult" }),
    );

    let p = pin();
    let digest = |n: &str| p.file(n).map(|f| f.sha256.clone()).unwrap_or_default();
    let names: Vec<&str> = overrides.iter().map(|o| o.name).collect();
    let doc = json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": GENERATED_ID,
        "title": format!("MCP {} elicitation subset (closed), generated", p.protocol_revision),
        "$comment": format!(
            "GENERATED by `ahp-elicit upstream extract`; do not edit. Source: {} tag {} (commit {}), schema.json sha256 {}, schema.ts sha256 {}. Upstream description prose left out. schema.ts overrides: {}.",
            p.repository, p.tag, p.commit, digest("schema.json"), digest("schema.ts"),
            if names.is_empty() { "none".to_owned() } else { names.join(", ") }
        ),
        "$defs": Value::Object(defs),
    });
    Ok(sorted(&doc))
}

/// The generated document as file text: two-space indentation, final
/// newline.
pub fn render(doc: &Value) -> String {
    let mut s = serde_json::to_string_pretty(doc).expect("a JSON value serializes");
    s.push('\n');
    s
}

/// Read the pinned files in `dir`, check their digests, and extract (with
/// [`OVERRIDES`]). Returns the file text.
///
/// Errors: unreadable files (I/O), digests that differ from the pin or an
/// upstream shape the extraction does not know (mismatch).
pub fn extract_dir(dir: &Path) -> Result<String, UpstreamError> {
    let p = pin();
    let diffs = check_digests(dir, &p)?;
    if !diffs.is_empty() {
        return Err(mismatch(format!(
            "the upstream files are not the pinned ones:\n  {}",
            diffs.join("\n  ")
        )));
    }
    let json_path = dir.join("schema.json");
    let ts_path = dir.join("schema.ts");
    let json_text = std::fs::read_to_string(&json_path).map_err(io_err(&json_path))?;
    let ts = std::fs::read_to_string(&ts_path).map_err(io_err(&ts_path))?;
    let json: Value = serde_json::from_str(&json_text)
        .map_err(|e| mismatch(format!("{} is not JSON: {e}", json_path.display())))?;
    Ok(render(&extract(&json, &ts, OVERRIDES)?))
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

/// `verify`: the digests of the files in `dir` match the pin, and a fresh
/// extraction equals `committed`. Returns one line per difference (empty:
/// verified). Offline.
///
/// Errors: unreadable files (I/O).
pub fn verify(dir: &Path, committed: &str) -> Result<Vec<String>, UpstreamError> {
    let p = pin();
    let mut diffs = check_digests(dir, &p)?;
    if !diffs.is_empty() {
        return Ok(diffs);
    }
    match extract_dir(dir) {
        Ok(fresh) => {
            if let Some(d) = first_difference(committed, &fresh) {
                diffs.push(format!(
                    "{GENERATED_PATH} differs from a fresh extraction ({d}); run `ahp-elicit upstream extract` and review the diff"
                ));
            }
        }
        Err(UpstreamError::Mismatch(m)) => diffs.push(m),
        Err(e) => return Err(e),
    }
    Ok(diffs)
}

/// Replace the scheme and host of `url` by `mirror` (a prefix such as
/// `http://127.0.0.1:8080/`); for tests only.
pub fn mirrored(url: &str, mirror: &str) -> String {
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
        message: e.to_string(),
    };
    let mut resp = agent.get(url).call().map_err(fail)?;
    resp.body_mut()
        .with_config()
        .limit(16 * 1024 * 1024)
        .read_to_vec()
        .map_err(fail)
}

/// `refresh`: download exactly the pinned addresses (with the scheme and
/// host replaced by `mirror`, for tests), check both digests, and only when
/// both match write them into `dir` (temporary files, then renames).
/// Returns one line per digest mismatch; then nothing is written and `dir`
/// is left as it was.
///
/// Errors: a failed download or write (I/O).
pub fn refresh(dir: &Path, mirror: Option<&str>) -> Result<Vec<String>, UpstreamError> {
    let p = pin();
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
    fn pin_is_well_formed() {
        let p = pin();
        assert_eq!(p.tag, "2025-11-25");
        assert_eq!(p.files.len(), 2);
        for f in &p.files {
            assert_eq!(f.sha256.len(), 64);
            assert!(f.url.ends_with(&f.path), "{} ends with {}", f.url, f.path);
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

    #[test]
    fn prose_is_stripped_but_a_property_named_description_survives() {
        let mut s = json!({"description": "x", "properties": {"description": {"type": "string", "description": "y"}}});
        strip_prose(&mut s);
        assert_eq!(
            s,
            json!({"properties": {"description": {"type": "string"}}})
        );
    }

    #[test]
    fn ts_block_of_an_interface_and_of_a_type() {
        let ts = "export interface A {\n  x?: number;\n}\nexport type B = string | number;\nexport interface C {\n  y?: string;\n}\n";
        assert_eq!(
            ts_block(ts, "export interface A {"),
            Some("export interface A {\n  x?: number;\n}")
        );
        assert_eq!(
            ts_block(ts, "export type B ="),
            Some("export type B = string | number;")
        );
        assert!(!ts_block(ts, "export interface A {")
            .unwrap()
            .contains("y?:"));
    }
}
