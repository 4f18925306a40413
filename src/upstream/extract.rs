//! The extraction: the tagged `schema.json` and `schema.ts` in, the closed
//! `mcp-elicitation` schema document out (see the module doc of
//! [`crate::upstream`] for what it does and why), with each place where
//! `schema.ts` corrects the tagged JSON applied as a named [`Override`].

use serde_json::{json, Map, Value};

use super::{mismatch, pin, UpstreamError};
use crate::binding::Revision;

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

/// The catalogue of schema.ts corrections; each pinned revision names the
/// ones its extraction applies (`RevisionData::overrides`, read by
/// [`overrides_of`]). The tags' generator wrote `integer` for every
/// TypeScript `number` that carries no `@TJS-type number` tag.
///
/// 2025-11-25 (`schema.ts` SHA-256 `0845473b…398a07`) says `number` at
/// these lines, and all four apply:
///
/// | override | schema.ts lines | tagged schema.json |
/// |---|---|---|
/// | `number-schema-bounds-are-numbers` | 2254 `export interface NumberSchema {`, 2258-2260 `minimum?`/`maximum?`/`default?: number;` | `"type": "integer"` each |
/// | `elicit-result-content-numbers` | 2467 `export interface ElicitResult extends Result {`, 2481 `content?: { [key: string]: string \| number \| boolean \| string[] };` | `["string","integer","boolean"]` |
/// | `task-metadata-ttl-number` | 1317 `export interface TaskMetadata {`, 1321 `ttl?: number;` | `"type": "integer"` |
/// | `progress-token-number` | 23 `export type ProgressToken = string \| number;` | `["string","integer"]` |
///
/// 2026-07-28 (`schema.ts` SHA-256 `742750af…baedc2cd`) applies only
/// `elicit-result-content-numbers` (3134 `export interface ElicitResult {`,
/// 3148 the same `content?` line; the JSON still says integer). Its JSON
/// says `number` for the NumberSchema bounds already, `TaskMetadata` is
/// gone, and `ProgressToken` (165, still `string | number` against
/// `["string","integer"]`) is referred to by no elicitation definition of
/// that revision, so it is not extracted.
///
/// `upstream/README.md` says the same for readers of the repository.
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
        ts_scope: "export interface ElicitResult",
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

/// The overrides `rev`'s extraction applies, in catalogue order.
///
/// Panics if the revision names an override the catalogue does not hold (a
/// build defect the tests catch).
pub fn overrides_of(rev: Revision) -> Vec<Override> {
    let names = rev.data().overrides;
    for n in names {
        assert!(
            OVERRIDES.iter().any(|o| o.name == *n),
            "revision {rev} names an unknown override {n}"
        );
    }
    OVERRIDES
        .iter()
        .filter(|o| names.contains(&o.name))
        .copied()
        .collect()
}

/// The roots of the extraction: the params union and the result.
const ROOTS: [&str; 2] = ["ElicitRequestParams", "ElicitResult"];

/// Definitions the extraction replaces by its own dispatch instead of
/// copying.
const REPLACED: [&str; 2] = ["ElicitRequestParams", "PrimitiveSchemaDefinition"];

/// Every `#/$defs/NAME` that `v` refers to.
fn refs_in(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::Object(o) => {
            for (k, x) in o {
                match (k.as_str(), x) {
                    ("$ref", Value::String(r)) => {
                        if let Some(n) = r.strip_prefix("#/$defs/") {
                            out.push(n.to_owned());
                        }
                    }
                    _ => refs_in(x, out),
                }
            }
        }
        Value::Array(a) => a.iter().for_each(|x| refs_in(x, out)),
        _ => {}
    }
}

/// The upstream definitions the extraction copies: every definition the
/// [`ROOTS`] refer to, directly or not, except the [`REPLACED`] ones,
/// sorted.
fn copied_names(all: &Value) -> Result<Vec<String>, UpstreamError> {
    let mut seen: Vec<String> = Vec::new();
    let mut todo: Vec<String> = ROOTS.iter().map(|s| s.to_string()).collect();
    while let Some(n) = todo.pop() {
        if seen.contains(&n) {
            continue;
        }
        let d = all
            .get(&n)
            .ok_or_else(|| mismatch(format!("schema.json has no $defs/{n}")))?;
        refs_in(d, &mut todo);
        seen.push(n);
    }
    seen.retain(|n| !REPLACED.contains(&n.as_str()));
    seen.sort();
    Ok(seen)
}

/// The text of the declaration that starts with `scope` in `ts`: up to the
/// closing `}` line of an interface, or the end of the line of a one-line
/// type.
fn ts_block<'a>(ts: &'a str, scope: &str) -> Option<&'a str> {
    let start = ts.find(scope)?;
    let rest = &ts[start..];
    let interface = scope.trim_end().ends_with('{') || scope.starts_with("export interface");
    let end = if interface {
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
                "override {}: schema.ts `{}` no longer says `{ev}`; review the override (it exists because: {})",
                o.name, o.ts_scope, o.reason
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
                "override {}: schema.json has {} at $defs{site}, the override expects {}; review the override (it exists because: {})",
                o.name, slot, upstream, o.reason
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

/// Generate `rev`'s `mcp-elicitation` schema document from the parsed
/// tagged `schema.json` and the text of `schema.ts`, applying `overrides`
/// (pass [`overrides_of`]`(rev)`; a test passes none to show the tagged
/// defects).
///
/// Errors: [`UpstreamError::Mismatch`] naming what in upstream is not as
/// this extraction expects (a definition missing, a union with other
/// members, an override whose evidence is gone).
pub fn extract(
    rev: Revision,
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
    let mut defs = copied_defs(&all)?;
    close_primitives(&all, &mut defs)?;
    close_requested_schema(&mut defs)?;
    merge_content_values(&mut defs)?;
    dispatch_params(&all, &mut defs)?;
    Ok(sorted(&document(rev, defs, overrides)))
}

/// The copied definitions ([`copied_names`]), without upstream's prose.
fn copied_defs(all: &Value) -> Result<Map<String, Value>, UpstreamError> {
    let mut defs = Map::new();
    for name in copied_names(all)? {
        let mut d = all
            .get(&name)
            .cloned()
            .ok_or_else(|| mismatch(format!("schema.json has no $defs/{name}")))?;
        strip_prose(&mut d);
        defs.insert(name, d);
    }
    Ok(defs)
}

/// Close the eight primitive definitions and put the discriminated
/// dispatch in place of their union, after checking that the union is the
/// eight this dispatch knows.
fn close_primitives(all: &Value, defs: &mut Map<String, Value>) -> Result<(), UpstreamError> {
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
    Ok(())
}

/// requestedSchema: closed vocabulary; its property map refers to the
/// closed dispatch.
fn close_requested_schema(defs: &mut Map<String, Value>) -> Result<(), UpstreamError> {
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
    Ok(())
}

/// ElicitResult.content values: one `type` list plus `items` in place of
/// the two-member anyOf (same values; a fault is reported once).
fn merge_content_values(defs: &mut Map<String, Value>) -> Result<(), UpstreamError> {
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
    Ok(())
}

/// The params union: mode "url" picks the URL definition, anything else
/// (a missing mode means form) the form definition; and the two roots
/// `request` and `result`.
fn dispatch_params(all: &Value, defs: &mut Map<String, Value>) -> Result<(), UpstreamError> {
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
    Ok(())
}

/// The generated document around `defs`: its `$id`, title and the comment
/// naming the pinned source and the overrides applied.
fn document(rev: Revision, defs: Map<String, Value>, overrides: &[Override]) -> Value {
    let p = pin(rev);
    let digest = |n: &str| p.file(n).map(|f| f.sha256.clone()).unwrap_or_default();
    let names: Vec<&str> = overrides.iter().map(|o| o.name).collect();
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": rev.data().definitions_id,
        "title": format!("MCP {} elicitation subset (closed), generated", p.protocol_revision),
        "$comment": format!(
            "GENERATED by `ahp-elicit upstream extract`; do not edit. Source: {} tag {} (commit {}), schema.json sha256 {}, schema.ts sha256 {}. Upstream description prose left out. schema.ts overrides: {}.",
            p.repository, p.tag, p.commit, digest("schema.json"), digest("schema.ts"),
            if names.is_empty() { "none".to_owned() } else { names.join(", ") }
        ),
        "$defs": Value::Object(defs),
    })
}

/// The generated document as file text: two-space indentation, final
/// newline.
pub fn render(doc: &Value) -> String {
    let mut s = serde_json::to_string_pretty(doc).expect("a JSON value serializes");
    s.push('\n');
    s
}

#[cfg(test)]
mod tests {
    use super::*;

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
