//! Whether the pinned `request` and `result` definitions certainly hold for
//! a body: a closed model of each ([`request_holds`], [`result_holds`]) that
//! knows only the members it lists, each of its type, integers as integer
//! literals and formats through [`format_ok`]; any member or shape it does
//! not model refuses. When it holds it gives a [`SchemaHolds`], which the
//! runtime checks of the request params and the result take in place of a
//! schema run (the fast reading, [`super::fast`]).

use serde_json::{Map, Value};

use super::content::format_ok;
use super::envelope::member;
use super::form_model::StringFormat;
use super::revision::Revision;

/// The pinned definition of a body holds: only [`request_holds`] and
/// [`result_holds`] make one, and the runtime checks take it in place of a
/// schema run.
#[derive(Debug)]
pub(super) struct SchemaHolds(());

/// A member name and the rule its value must hold.
type Member = (&'static str, fn(&Value) -> bool);

/// Whether every member of `o` is one of `known` and holds its rule.
fn closed(o: &Map<String, Value>, known: &[Member]) -> bool {
    o.iter().all(|(k, v)| {
        known
            .iter()
            .find(|(name, _)| name == k)
            .is_some_and(|(_, ok)| ok(v))
    })
}

fn is_str(v: &Value) -> bool {
    v.is_string()
}

/// An integer literal (the schema's `integer` also takes `5.0`: refused
/// here, judged by the full reading).
fn is_int(v: &Value) -> bool {
    v.as_i64().is_some() || v.as_u64().is_some()
}

fn is_num(v: &Value) -> bool {
    v.is_number()
}

fn is_bool(v: &Value) -> bool {
    v.is_boolean()
}

fn strings(v: &Value) -> bool {
    v.as_array().is_some_and(|a| a.iter().all(Value::is_string))
}

fn has_type(o: &Map<String, Value>, t: &str) -> bool {
    member(o, "type").and_then(Value::as_str) == Some(t)
}

/// `{const, title}` options, both strings, closed.
fn titled_options(v: &Value) -> bool {
    v.as_array().is_some_and(|a| {
        a.iter().all(|x| {
            x.as_object().is_some_and(|o| {
                member(o, "const").is_some()
                    && member(o, "title").is_some()
                    && closed(o, &[("const", is_str), ("title", is_str)])
            })
        })
    })
}

/// The common members of every primitive definition but `type`.
const TEXTS: [Member; 2] = [("description", is_str), ("title", is_str)];

fn closed_with(o: &Map<String, Value>, own: &[Member]) -> bool {
    o.iter().all(|(k, v)| {
        k == "type"
            || TEXTS
                .iter()
                .chain(own)
                .find(|(name, _)| name == k)
                .is_some_and(|(_, ok)| ok(v))
    })
}

/// `$defs/PrimitiveSchemaDefinition` with its dispatch (the same in both
/// pinned revisions).
fn primitive(v: &Value) -> bool {
    let Some(o) = v.as_object() else {
        return false;
    };
    let Some(t) = member(o, "type").and_then(Value::as_str) else {
        return false;
    };
    match t {
        "string" if member(o, "oneOf").is_some() => {
            closed_with(o, &[("default", is_str), ("oneOf", titled_options)])
        }
        "string" if member(o, "enumNames").is_some() => {
            closed_with(
                o,
                &[
                    ("default", is_str),
                    ("enum", strings),
                    ("enumNames", strings),
                ],
            ) && member(o, "enum").is_some()
        }
        "string" if member(o, "enum").is_some() => {
            closed_with(o, &[("default", is_str), ("enum", strings)])
        }
        "string" => closed_with(
            o,
            &[
                ("default", is_str),
                ("format", |f| {
                    matches!(f.as_str(), Some("date" | "date-time" | "email" | "uri"))
                }),
                ("maxLength", is_int),
                ("minLength", is_int),
            ],
        ),
        "number" | "integer" => closed_with(
            o,
            &[
                ("default", is_num),
                ("maximum", is_num),
                ("minimum", is_num),
            ],
        ),
        "boolean" => closed_with(o, &[("default", is_bool)]),
        "array" => {
            let Some(items) = member(o, "items").and_then(Value::as_object) else {
                return false;
            };
            let items_ok = if member(items, "anyOf").is_some() {
                closed(items, &[("anyOf", titled_options)])
            } else {
                member(items, "enum").is_some()
                    && has_type(items, "string")
                    && closed(items, &[("enum", strings), ("type", is_str)])
            };
            items_ok
                && closed_with(
                    o,
                    &[
                        ("default", strings),
                        ("items", |_| true),
                        ("maxItems", is_int),
                        ("minItems", is_int),
                    ],
                )
        }
        _ => false,
    }
}

/// `requestedSchema` of the form params (closed).
fn requested_schema(v: &Value) -> bool {
    let Some(o) = v.as_object() else {
        return false;
    };
    has_type(o, "object")
        && member(o, "properties")
            .and_then(Value::as_object)
            .is_some_and(|p| p.values().all(primitive))
        && closed(
            o,
            &[
                ("$schema", is_str),
                ("properties", |_| true),
                ("required", strings),
                ("type", is_str),
            ],
        )
}

/// `_meta` of the params: an object, its `progressToken` (when there is
/// one) a string or a number (2025-11-25; open under 2026-07-28).
fn request_meta(v: &Value) -> bool {
    v.as_object()
        .is_some_and(|m| member(m, "progressToken").is_none_or(|t| t.is_string() || t.is_number()))
}

/// `task` of the params: an object, its `ttl` (when there is one) a number
/// (`TaskMetadata` of 2025-11-25; open under 2026-07-28).
fn task(v: &Value) -> bool {
    v.as_object()
        .is_some_and(|t| member(t, "ttl").is_none_or(Value::is_number))
}

/// Whether the pinned `request` definition of `rev` certainly holds for
/// `params`: the members this reading knows, each of its type (the
/// definition's other open members refuse).
pub(super) fn request_holds(rev: Revision, params: &Value) -> Option<SchemaHolds> {
    let o = params.as_object()?;
    let message = member(o, "message").is_some_and(Value::is_string);
    let ok = match member(o, "mode").map(Value::as_str) {
        Some(Some("url")) => {
            let id_needed = rev.data().url_elicitation_id;
            message
                && (member(o, "elicitationId").is_some() || !id_needed)
                && member(o, "url")
                    .and_then(Value::as_str)
                    .is_some_and(|u| format_ok(StringFormat::Uri, u))
                && closed(
                    o,
                    &[
                        ("message", is_str),
                        ("mode", is_str),
                        ("url", is_str),
                        ("elicitationId", is_str),
                        ("_meta", request_meta),
                        ("task", task),
                    ],
                )
        }
        None | Some(Some("form")) => {
            message
                && member(o, "requestedSchema").is_some_and(requested_schema)
                && closed(
                    o,
                    &[
                        ("message", is_str),
                        ("mode", is_str),
                        ("requestedSchema", |_| true),
                        ("_meta", request_meta),
                        ("task", task),
                    ],
                )
        }
        Some(_) => false,
    };
    ok.then_some(SchemaHolds(()))
}

/// A value `content` may hold under the `result` definition.
fn content_value(v: &Value) -> bool {
    match v {
        Value::String(_) | Value::Number(_) | Value::Bool(_) => true,
        Value::Array(a) => a.iter().all(Value::is_string),
        _ => false,
    }
}

/// Whether the pinned `result` definition (the same `ElicitResult` rules in
/// both pinned revisions for the members known here) certainly holds.
pub(super) fn result_holds(value: &Value) -> Option<SchemaHolds> {
    let o = value.as_object()?;
    let ok = matches!(
        member(o, "action").and_then(Value::as_str),
        Some("accept" | "decline" | "cancel")
    ) && closed(
        o,
        &[
            ("action", is_str),
            ("content", |c| {
                c.as_object().is_some_and(|c| c.values().all(content_value))
            }),
            ("_meta", Value::is_object),
        ],
    );
    ok.then_some(SchemaHolds(()))
}
