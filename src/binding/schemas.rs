//! The embedded JSON Schemas (2020-12), compiled once, offline, with formats
//! asserted: the wire root (`schemas/ahp-event.schema.json`, which refers to
//! `schemas/interaction-event.schema.json`) and, per pinned [`Revision`],
//! the generated MCP subset (`$defs` `request` and `result`;
//! [`RevisionData::definitions`](super::revision::RevisionData)).
//!
//! Each function returns every violation, with `pointer` the instance
//! location (relative to the value given) and `rule` naming the schema and
//! keyword (`wire-root/required`, `mcp-request/additionalProperties`, ...).
//!
//! Precision: the schemas choose a branch by a
//! discriminator (`if`/`then` on `type`, on `mode`, on the presence of
//! `oneOf`, `enumNames`, `enum`, `items.anyOf`), so a fault gives one error
//! inside the chosen definition, not one per `anyOf` alternative. A closed
//! object's unexpected member is reported at the member itself
//! (`/requestedSchema/properties/postcode/pattern`), one violation per
//! member.
//!
//! References are resolved from an in-memory [`jsonschema::Registry`] only;
//! the build is offline, and a `$ref` that the registry does not hold is a
//! build error (a panic at first use, caught by the tests), never a fetch.

use std::sync::OnceLock;

use jsonschema::error::{TypeKind, ValidationErrorKind};
use jsonschema::{Registry, Resource, ValidationError, Validator};
use serde_json::Value;

use super::revision::{Revision, TABLE};
use super::violation::{escape_token, Rule, Schema, Violation};

/// `schemas/ahp-event.schema.json`, as embedded in the binary.
pub const AHP_EVENT: &str = include_str!("../../schemas/ahp-event.schema.json");
/// `schemas/interaction-event.schema.json`, as embedded in the binary.
pub const INTERACTION_EVENT: &str = include_str!("../../schemas/interaction-event.schema.json");

/// Rule prefix of violations found by the wire root.
pub const RULE_WIRE_ROOT: Schema = Schema::WireRoot;
/// Rule prefix of violations found by the pinned `request` definition.
pub const RULE_MCP_REQUEST: Schema = Schema::McpRequest;
/// Rule prefix of violations found by the pinned `result` definition.
pub const RULE_MCP_RESULT: Schema = Schema::McpResult;

/// The `$id` of an embedded schema document (its registry key).
///
/// Panics if the embedded text is not JSON or has no `$id`: a build defect,
/// caught by the tests.
fn id_of(doc: &Value) -> String {
    doc.get("$id")
        .and_then(Value::as_str)
        .expect("embedded schema has an $id")
        .to_owned()
}

fn parse_embedded(text: &str, what: &str) -> Value {
    serde_json::from_str(text).unwrap_or_else(|e| panic!("embedded {what} is not JSON: {e}"))
}

/// Why a schema did not compile (see [`compile_offline`]).
#[derive(Debug, thiserror::Error)]
pub enum CompileError {
    /// A document given to register has no `$id` to register it under.
    #[error("a registered schema document has no $id")]
    MissingId,
    /// The registry refused a document or could not resolve its references.
    #[error("{0}")]
    Registry(#[source] jsonschema::ReferencingError),
    /// The root schema did not build (a `$ref` the registry does not hold
    /// is one).
    #[error("{0}")]
    Build(#[source] Box<ValidationError<'static>>),
}

/// Compile `root` with every document of `docs` registered under its `$id`,
/// offline, formats asserted.
///
/// Errors: [`CompileError`] (a missing `$ref` is a [`CompileError::Build`]).
pub fn compile_offline(root: &Value, docs: &[Value]) -> Result<Validator, CompileError> {
    let mut builder = Registry::new();
    for d in docs {
        let id = d
            .get("$id")
            .and_then(Value::as_str)
            .ok_or(CompileError::MissingId)?
            .to_owned();
        let res = Resource::from_contents(d.clone());
        builder = builder.add(id, res).map_err(CompileError::Registry)?;
    }
    let registry = builder.prepare().map_err(CompileError::Registry)?;
    jsonschema::options()
        .offline()
        .should_validate_formats(true)
        .with_registry(&registry)
        .build(root)
        .map_err(|e| CompileError::Build(Box::new(e)))
}

fn wire_root() -> &'static Validator {
    static V: OnceLock<Validator> = OnceLock::new();
    V.get_or_init(|| {
        let root = parse_embedded(AHP_EVENT, "ahp-event schema");
        let overlays = parse_embedded(INTERACTION_EVENT, "interaction-event schema");
        compile_offline(&root, &[overlays])
            .unwrap_or_else(|e| panic!("embedded wire root does not compile: {e}"))
    })
}

fn mcp_def(rev: Revision, name: &str) -> Validator {
    let doc = parse_embedded(rev.data().definitions, "mcp-elicitation schema");
    let root = serde_json::json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$ref": format!("{}#/$defs/{name}", id_of(&doc)),
    });
    compile_offline(&root, &[doc]).unwrap_or_else(|e| {
        panic!("embedded mcp-elicitation '{name}' of MCP {rev} does not compile: {e}")
    })
}

/// One compiled definition per pinned revision, each compiled at first use.
type PerRevision = [OnceLock<Validator>; TABLE.len()];

fn mcp_request(rev: Revision) -> &'static Validator {
    static V: PerRevision = [const { OnceLock::new() }; TABLE.len()];
    V[rev.index()].get_or_init(|| mcp_def(rev, "request"))
}

fn mcp_result(rev: Revision) -> &'static Validator {
    static V: PerRevision = [const { OnceLock::new() }; TABLE.len()];
    V[rev.index()].get_or_init(|| mcp_def(rev, "result"))
}

/// Run `v` over `instance` and turn every error into violations named
/// `<rule>/<keyword>`. Exposed for tests that compile other schemas (the raw
/// upstream definitions) and want the same error shape.
pub fn run(v: &Validator, instance: &Value, rule: Schema) -> Vec<Violation> {
    // Most instances are valid: the boolean check stops at nothing and
    // builds no error, so the error walk runs only when there is one.
    if v.is_valid(instance) {
        return Vec::new();
    }
    let mut out = Vec::new();
    for e in v.iter_errors(instance) {
        convert(&e, rule, &mut out);
    }
    // The same fault reached through several branches (the `if`/`then`
    // dispatch of the wire root) is reported once.
    let mut seen = std::collections::HashSet::new();
    out.retain(|x: &Violation| {
        seen.insert((x.location.clone(), x.rule.clone(), x.message.clone()))
    });
    out
}

/// A short rendering of a JSON value for a message (at most 60 characters).
fn short(v: &Value) -> String {
    let s = v.to_string();
    if s.chars().count() <= 60 {
        s
    } else {
        let cut: String = s.chars().take(57).collect();
        format!("{cut}...")
    }
}

fn last_token(pointer: &str) -> String {
    pointer
        .rsplit('/')
        .next()
        .unwrap_or("")
        .replace("~1", "/")
        .replace("~0", "~")
}

/// The rule behind a keyword at a schema location, for the places where the
/// bare keyword says too little. `schema_path` is canonical
/// (`/$defs/textPart/...`).
fn hint(schema_path: &str, keyword: &str) -> Option<&'static str> {
    let p = schema_path;
    Some(match keyword {
        "falseSchema" | "required" if p.starts_with("/$defs/textPart/") => {
            "a text part has exactly one of text and gap, and only under selection body"
        }
        "const" if p.starts_with("/$defs/inboundMessage/") => {
            "inbound messages have role user"
        }
        "const" if p.starts_with("/$defs/outboundMessage/") => {
            "outbound messages have role assistant"
        }
        "not" if p.ends_with("/mediaType/not") => {
            "attachments are for non-text, non-JSON media only; text goes inline in a text part, JSON in a json part"
        }
        "pattern" if p.starts_with("/$defs/eventId/") => {
            "an event id has no control characters"
        }
        "additionalProperties" if p.contains("/requestedSchema/") => {
            "requestedSchema has only type, properties, required and $schema (closed form subset)"
        }
        "additionalProperties" if p.contains("Schema/") => {
            "it is not a keyword of the closed form subset"
        }
        _ => return None,
    })
}

fn convert(e: &ValidationError<'_>, rule: Schema, out: &mut Vec<Violation>) {
    let at = e.instance_path().as_str().to_owned();
    let keyword = e.kind().keyword().to_owned();
    let name = Rule::schema(rule, &keyword);
    let inst = e.instance();
    let why = hint(e.schema_path().as_str(), &keyword);
    let msg = match e.kind() {
        ValidationErrorKind::AdditionalProperties { unexpected }
        | ValidationErrorKind::UnevaluatedProperties { unexpected } => {
            for k in unexpected {
                out.push(Violation::new(
                    format!("{at}/{}", escape_token(k)),
                    name.clone(),
                    format!(
                        "'{k}' is not allowed here: {}",
                        why.unwrap_or("this object is closed")
                    ),
                ));
            }
            return;
        }
        ValidationErrorKind::FalseSchema => {
            format!("'{}' is not allowed here", last_token(&at))
        }
        ValidationErrorKind::Required { property } => {
            format!("{} is required", short(property))
        }
        ValidationErrorKind::Type { kind } => {
            let want = match kind {
                TypeKind::Single(t) => t.to_string(),
                TypeKind::Multiple(set) => set
                    .iter()
                    .map(|t| t.to_string())
                    .collect::<Vec<_>>()
                    .join(" or "),
            };
            format!("{} is not of type {want}", short(inst))
        }
        ValidationErrorKind::Enum { options } => {
            format!("{} is not one of {}", short(inst), short(options))
        }
        ValidationErrorKind::Constant { expected_value } => {
            format!("{} must be {}", short(inst), short(expected_value))
        }
        ValidationErrorKind::Format { format } => {
            format!("{} is not a valid {format}", short(inst))
        }
        ValidationErrorKind::Pattern { pattern } => {
            format!("{} does not match the pattern {pattern}", short(inst))
        }
        ValidationErrorKind::MinLength { limit } => {
            format!("{} is shorter than {limit} characters", short(inst))
        }
        ValidationErrorKind::MaxLength { limit } => {
            format!("{} is longer than {limit} characters", short(inst))
        }
        ValidationErrorKind::MinItems { limit } => {
            format!("the array has fewer than {limit} items")
        }
        ValidationErrorKind::MaxItems { limit } => {
            format!("the array has more than {limit} items")
        }
        ValidationErrorKind::UniqueItems => "the array has repeated items".to_owned(),
        ValidationErrorKind::Minimum { limit } => {
            format!("{} is less than the minimum {limit}", short(inst))
        }
        ValidationErrorKind::Maximum { limit } => {
            format!("{} is greater than the maximum {limit}", short(inst))
        }
        ValidationErrorKind::Not { .. } => {
            format!("{} is a value this place excludes", short(inst))
        }
        _ => {
            let full = e.to_string();
            if full.chars().count() > 200 {
                let cut: String = full.chars().take(197).collect();
                format!("{cut}...")
            } else {
                full
            }
        }
    };
    let msg = match why {
        Some(w) => format!("{msg}: {w}"),
        None => msg,
    };
    out.push(Violation::new(at, name, msg));
}

/// Validate a complete event through the wire root (envelope plus the
/// overlay of its `type`; the binding: "Validate the complete event through the
/// wire root, not an overlay in isolation").
///
/// Returns every violation; pointers into the event, rules
/// `wire-root/<keyword>`, and `mcp-revision` when `extensions.mcp` names a
/// protocol version that is not pinned (on any event type, beside the
/// shape faults of the same object). Empty means valid.
pub fn validate_event(event: &Value) -> Vec<Violation> {
    let mut errs = run(wire_root(), event, RULE_WIRE_ROOT);
    let version = event
        .get("extensions")
        .and_then(|e| e.get(super::revision::EXTENSION_KEY))
        .and_then(|m| m.get("protocolVersion"))
        .and_then(Value::as_str);
    if let Some(v) = version {
        if let Err(e) = super::revision::check_version(v) {
            errs.push(e);
        }
    }
    errs
}

/// Validate parsed `elicitation/create` params against `rev`'s pinned
/// `request` definition (closed form subset).
///
/// Returns every violation; pointers relative to the params
/// (`/requestedSchema/properties/age/minimum`), rules
/// `mcp-request/<keyword>`, each message ending with the revision
/// (` (MCP 2026-07-28)`). Empty means valid.
pub fn validate_mcp_request(rev: Revision, params: &Value) -> Vec<Violation> {
    tagged(run(mcp_request(rev), params, RULE_MCP_REQUEST), rev)
}

/// Validate a parsed `ElicitResult` against `rev`'s pinned `result`
/// definition.
///
/// Returns every violation; pointers relative to the result
/// (`/content/rating`), rules `mcp-result/<keyword>`, each message ending
/// with the revision. Empty means valid.
pub fn validate_mcp_result(rev: Revision, result: &Value) -> Vec<Violation> {
    tagged(run(mcp_result(rev), result, RULE_MCP_RESULT), rev)
}

/// The violations of a revision's definitions name the revision.
fn tagged(mut errs: Vec<Violation>, rev: Revision) -> Vec<Violation> {
    for e in &mut errs {
        e.message.push_str(&rev.tag());
    }
    errs
}

/// Append ` (MCP <version>)` to the message of each violation of a pinned
/// definition's rule (`mcp-request`, `mcp-result` and their keywords) that
/// does not name it yet.
pub(super) fn tag_revision(mut errs: Vec<Violation>, rev: Revision) -> Vec<Violation> {
    let tag = rev.tag();
    for e in &mut errs {
        let name = e.rule.as_str();
        let pinned = name.starts_with("mcp-request") || name.starts_with("mcp-result");
        if pinned && !e.message.ends_with(&tag) {
            e.message.push_str(&tag);
        }
    }
    errs
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn schemas_compile_offline() {
        let _ = wire_root();
        for rev in Revision::ALL.iter().copied() {
            let _ = mcp_request(rev);
            let _ = mcp_result(rev);
        }
    }

    #[test]
    fn a_missing_ref_is_a_build_error_not_a_fetch() {
        let root = json!({"$ref": "https://ahp-elicit.invalid/schemas/0.1/nowhere.json"});
        let err = compile_offline(&root, &[]).err();
        assert!(matches!(err, Some(CompileError::Build(_))), "{err:?}");
    }

    #[test]
    fn closed_member_reported_at_the_member() {
        let errs = validate_event(&json!({
            "ahp": "0.1", "id": "e", "type": "user.attention",
            "time": "2026-11-30T05:26:41Z", "source": {"adapter": "a", "x/y": 1},
            "payload": {"attention": {"kind": "info",
                "message": {"type": "text", "selection": "omit"},
                "title": {"type": "text", "selection": "omit"}}}
        }));
        assert_eq!(errs.len(), 1, "{errs:?}");
        assert_eq!(errs[0].pointer(), "/source/x~1y");
        assert_eq!(errs[0].rule, "wire-root/additionalProperties");
    }
}
