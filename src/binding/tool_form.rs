//! A tool's `inputSchema` as the form the elicitation screen draws.
//!
//! Each property is read on its own exactly as an elicitation's
//! `requestedSchema` is read under the compatible schema policy
//! ([`super::params::read_params`]): a property that reads as a
//! field (a string with its format, a number or integer with its bounds, a
//! boolean, an enum or `oneOf` of options, an array of enum strings; its
//! default and title as declared) goes into the form; anything else (nested
//! objects, arrays of objects, `$ref`, `anyOf` unions...) is left out, with
//! the first reason, and must be given as JSON (`--call NAME --args JSON`).
//! `required` keeps the names that went into the form.

use serde_json::{json, Map, Value};

use super::envelope::Mode;
use super::params::{read_params, RequestView};
use super::policy::SchemaPolicy;
use super::revision::Revision;

/// A property of the `inputSchema` the form cannot draw.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LeftOut {
    /// The property name (unsanitized: the server's).
    pub name: String,
    /// Listed in the `inputSchema`'s `required`: the tool cannot be called
    /// from the form alone.
    pub required: bool,
    /// Why, one sentence starting with the pointer (safe text).
    pub why: String,
}

/// The form of a tool's arguments.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolForm {
    /// The `requestedSchema` to draw: `type: object`, the properties that
    /// fit (in the `inputSchema`'s order), and those of them required.
    pub schema: Value,
    /// The properties left out, in the `inputSchema`'s order.
    pub left_out: Vec<LeftOut>,
}

impl ToolForm {
    /// Read `input_schema` (a tool's `inputSchema`). A schema that is not
    /// an object, or has no `properties` object, gives an empty form.
    pub fn of(input_schema: &Value) -> ToolForm {
        let empty = Map::new();
        let props = input_schema
            .get("properties")
            .and_then(Value::as_object)
            .unwrap_or(&empty);
        let required: Vec<&str> = input_schema
            .get("required")
            .and_then(Value::as_array)
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let mut kept = Map::new();
        let mut kept_required = Vec::new();
        let mut left_out = Vec::new();
        for (name, def) in props {
            let is_required = required.contains(&name.as_str());
            match misfit(name, def, is_required) {
                None => {
                    kept.insert(name.clone(), def.clone());
                    if is_required {
                        kept_required.push(Value::String(name.clone()));
                    }
                }
                Some(why) => left_out.push(LeftOut {
                    name: name.clone(),
                    required: is_required,
                    why,
                }),
            }
        }
        let mut schema = json!({ "type": "object", "properties": kept });
        if !kept_required.is_empty() {
            schema["required"] = Value::Array(kept_required);
        }
        ToolForm { schema, left_out }
    }

    /// Whether the form has no field at all.
    pub fn is_empty(&self) -> bool {
        self.schema["properties"]
            .as_object()
            .is_none_or(Map::is_empty)
    }

    /// Whether a required property was left out: the form alone cannot
    /// make a valid call.
    #[cfg(test)]
    pub fn misses_required(&self) -> bool {
        self.left_out.iter().any(|l| l.required)
    }

    /// The form's message for the `noun` (`tool`, `prompt`) named `tool`
    /// (unsanitized, like any
    /// request's message: the screen escapes it): what is asked and, when
    /// properties were left out, which and how to give them.
    pub fn message(&self, noun: &str, tool: &str) -> String {
        let mut m = format!("The arguments of the {noun} '{tool}'.");
        if !self.left_out.is_empty() {
            let names: Vec<String> = self
                .left_out
                .iter()
                .map(|l| {
                    if l.required {
                        format!("{} (required)", l.name)
                    } else {
                        l.name.clone()
                    }
                })
                .collect();
            m.push_str(&format!(
                " Left out, as this form cannot draw them: {}. After this form, they are given as JSON, checked against the tool's inputSchema (or call the tool with --call '{tool}' --args JSON).",
                names.join(", ")
            ));
        }
        m
    }

    /// The `elicitation/create`-style params of the form (mode form, the
    /// message of [`ToolForm::message`], the schema).
    pub fn params(&self, noun: &str, tool: &str) -> Value {
        json!({
            "mode": "form",
            "message": self.message(noun, tool),
            "requestedSchema": self.schema,
        })
    }
}

/// A prompt's `arguments` (`[{name, description, required}]`) as an
/// `inputSchema`: each a string property, required as declared.
pub fn prompt_input_schema(prompt: &Value) -> Value {
    let mut props = Map::new();
    let mut required = Vec::new();
    for a in prompt
        .get("arguments")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default()
    {
        let Some(name) = a.get("name").and_then(Value::as_str) else {
            continue;
        };
        let mut def = json!({ "type": "string" });
        for k in ["title", "description"] {
            if let Some(t) = a.get(k).and_then(Value::as_str) {
                def[k] = json!(t);
            }
        }
        props.insert(name.to_owned(), def);
        if a.get("required") == Some(&Value::Bool(true)) {
            required.push(json!(name));
        }
    }
    json!({ "type": "object", "properties": props, "required": required })
}

/// Most violations [`check_arguments`] reports.
const MAX_ARGUMENT_FAULTS: usize = 5;

/// The arguments to edit as JSON when properties were left out of the form:
/// the form's `answered` values, then each left-out property with the value
/// `last` sent to the tool (its arguments in the call before, if any), else
/// its declared `default`, else null when it is required (a place to fill
/// in; an optional one without either is left out, as plain lines leave
/// it: a `null` the schema does not allow would be refused), then every other argument
/// `last` sent that the `input_schema` does not declare (only the editor
/// sets those), pretty-printed. A declared property the form draws is never
/// taken from `last`: the form's answer (even leaving it empty) stands.
pub fn arguments_text(
    input_schema: &Value,
    answered: &Map<String, Value>,
    left_out: &[String],
    last: Option<&Map<String, Value>>,
) -> String {
    let declared = input_schema.get("properties").and_then(Value::as_object);
    let required = |name: &str| {
        input_schema
            .get("required")
            .and_then(Value::as_array)
            .is_some_and(|r| r.iter().any(|v| v.as_str() == Some(name)))
    };
    let mut all = answered.clone();
    for name in left_out {
        let value = last.and_then(|l| l.get(name)).or_else(|| {
            declared
                .and_then(|p| p.get(name))
                .and_then(|d| d.get("default"))
        });
        match value {
            Some(v) => {
                all.insert(name.clone(), v.clone());
            }
            None if required(name) => {
                all.insert(name.clone(), Value::Null);
            }
            None => {}
        }
    }
    for (name, value) in last.into_iter().flatten() {
        if !all.contains_key(name) && declared.is_none_or(|p| !p.contains_key(name)) {
            all.insert(name.clone(), value.clone());
        }
    }
    serde_json::to_string_pretty(&Value::Object(all)).unwrap_or_else(|_| "{}".to_owned())
}

/// Read `text` as a tool's arguments and check them against its
/// `input_schema` (JSON Schema, offline: no reference is fetched).
///
/// Errors: one sentence each (safe text), at most [`MAX_ARGUMENT_FAULTS`]:
/// the text is not JSON (with line and column), not an object, or a
/// violation as `POINTER: message` (`(root)` for the whole); or an
/// `inputSchema` that does not compile.
pub fn check_arguments(
    input_schema: &Value,
    text: &str,
) -> Result<Map<String, Value>, Vec<String>> {
    let safe = |s: String| crate::safe_text::display(&s).into_owned();
    let args = match serde_json::from_str::<Value>(text) {
        Ok(Value::Object(o)) => o,
        Ok(_) => return Err(vec!["the arguments must be a JSON object".to_owned()]),
        Err(e) => return Err(vec![safe(format!("the arguments are not JSON: {e}"))]),
    };
    let instance = Value::Object(args);
    check_value(input_schema, &instance).map_err(|e| e.sentences("inputSchema", "them"))?;
    match instance {
        Value::Object(args) => Ok(args),
        _ => Err(Vec::new()),
    }
}

/// Why a value does not fit a tool's schema ([`check_value`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Misfit {
    /// The schema does not compile (the validator's sentence, safe text).
    Schema(String),
    /// The violations, `POINTER: message` each (`(root)` for the whole),
    /// safe text, at most [`MAX_ARGUMENT_FAULTS`].
    Faults(Vec<String>),
}

impl Misfit {
    /// The sentences to show: a schema that does not compile is said as
    /// "the tool's SCHEMA cannot check WHAT: ...".
    pub fn sentences(self, schema: &str, what: &str) -> Vec<String> {
        match self {
            Misfit::Schema(e) => vec![format!("the tool's {schema} cannot check {what}: {e}")],
            Misfit::Faults(f) => f,
        }
    }
}

/// Check `value` against `schema` (a tool's `inputSchema` or
/// `outputSchema`; JSON Schema, offline: no reference is fetched).
///
/// Errors: [`Misfit`].
pub fn check_value(schema: &Value, value: &Value) -> Result<(), Misfit> {
    let safe = |s: String| crate::safe_text::display(&s).into_owned();
    let validator = jsonschema::options()
        .offline()
        .build(schema)
        .map_err(|e| Misfit::Schema(safe(e.to_string())))?;
    let faults: Vec<String> = validator
        .iter_errors(value)
        .take(MAX_ARGUMENT_FAULTS)
        .map(|e| {
            let at = e.instance_path().as_str().to_owned();
            let at = if at.is_empty() {
                "(root)".to_owned()
            } else {
                at
            };
            safe(format!("{at}: {e}"))
        })
        .collect();
    if faults.is_empty() {
        Ok(())
    } else {
        Err(Misfit::Faults(faults))
    }
}

/// Why the property `name` (`def`) does not read as a form field on its
/// own: the first reason (safe text), or None when it does.
fn misfit(name: &str, def: &Value, required: bool) -> Option<String> {
    let mut schema = json!({ "type": "object", "properties": { name: def } });
    if required {
        schema["required"] = json!([name]);
    }
    let params = json!({ "mode": "form", "message": "", "requestedSchema": schema });
    let why = match read_params(
        Revision::V2025_11_25,
        &params,
        Mode::Form,
        SchemaPolicy::Compatible,
    ) {
        Ok(RequestView::Body(_)) => return None,
        Ok(RequestView::NotAForm { reasons, .. }) => reasons.into_iter().next(),
        Ok(other) => other.describe(),
        Err(violations) => violations.first().map(|v| {
            let text = format!("{}: [{}] {}", v.pointer(), v.rule, v.message);
            crate::safe_text::display(&text).into_owned()
        }),
    };
    Some(why.unwrap_or_else(|| "not a form field".to_owned()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn input() -> Value {
        json!({
            "type": "object",
            "properties": {
                "city": {"type": "string", "title": "City", "minLength": 2},
                "nights": {"type": "integer", "minimum": 1, "maximum": 14, "default": 2},
                "pets": {"type": "boolean"},
                "room": {"type": "string", "enum": ["single", "double"]},
                "extras": {"type": "array", "items": {"type": "string", "enum": ["breakfast", "parking"]}},
                "guest": {"type": "object", "properties": {"name": {"type": "string"}}},
                "when": {"anyOf": [{"type": "string"}, {"type": "integer"}]},
                "note": {"anyOf": [{"type": "string"}, {"type": "null"}], "default": null}
            },
            "required": ["city", "guest"],
            "$defs": {"x": {}}
        })
    }

    #[test]
    fn properties_that_fit_become_fields_and_the_rest_are_named() {
        let f = ToolForm::of(&input());
        let kept: Vec<&String> = f.schema["properties"].as_object().unwrap().keys().collect();
        assert_eq!(
            kept,
            ["city", "nights", "pets", "room", "extras", "note"]
                .iter()
                .collect::<Vec<_>>()
        );
        assert_eq!(f.schema["required"], json!(["city"]));
        assert_eq!(f.schema["properties"]["nights"]["maximum"], 14);
        let out: Vec<(&str, bool)> = f
            .left_out
            .iter()
            .map(|l| (l.name.as_str(), l.required))
            .collect();
        assert_eq!(out, [("guest", true), ("when", false)]);
        assert!(
            f.left_out[0].why.starts_with("/properties/guest"),
            "{}",
            f.left_out[0].why
        );
        assert!(f.misses_required());
        assert!(!f.is_empty());
        let m = f.message("tool", "book");
        assert_eq!(
            m,
            "The arguments of the tool 'book'. Left out, as this form cannot draw them: guest (required), when. After this form, they are given as JSON, checked against the tool's inputSchema (or call the tool with --call 'book' --args JSON)."
        );
    }

    #[test]
    fn the_form_reads_as_an_elicitation_under_the_compatible_policy() {
        let f = ToolForm::of(&input());
        let view = read_params(
            Revision::V2025_11_25,
            &f.params("tool", "book"),
            Mode::Form,
            SchemaPolicy::Compatible,
        )
        .expect("params");
        let RequestView::Body(req) = view else {
            panic!("not a form: {view:?}");
        };
        let super::super::RequestBody::Form(form) = req.body else {
            panic!("not a form body");
        };
        assert_eq!(form.fields.len(), 6);
        assert!(form.field("city").unwrap().required);
    }

    #[test]
    fn left_out_arguments_start_with_those_last_sent() {
        let schema = json!({
            "type": "object",
            "properties": {
                "recipient": {"type": "string"},
                "note": {"type": "string"},
                "address": {"type": "object", "properties": {"city": {"type": "string"}}},
                "tags": {"type": "array", "items": {"type": "object"}, "default": []}
            }
        });
        let last = json!({
            "recipient": "Ann",
            "note": "old",
            "address": {"street": "Main", "city": "Oslo"},
            "extra": 7
        });
        let mut answered = Map::new();
        answered.insert("recipient".into(), json!("Bo"));
        let left_out = ["address".to_owned(), "tags".to_owned()];
        let text = arguments_text(&schema, &answered, &left_out, last.as_object());
        assert_eq!(
            serde_json::from_str::<Value>(&text).unwrap(),
            json!({
                "recipient": "Bo",
                "address": {"street": "Main", "city": "Oslo"},
                "tags": [],
                "extra": 7
            })
        );
    }

    #[test]
    fn left_out_arguments_are_edited_with_their_defaults_and_checked() {
        let schema = json!({
            "type": "object",
            "properties": {
                "city": {"type": "string"},
                "guest": {
                    "type": "object",
                    "properties": {"name": {"type": "string"}},
                    "required": ["name"]
                },
                "tags": {"type": "array", "items": {"type": "object"}, "default": []},
                "extra": {"type": "array", "items": {"type": "object"}},
                "more": {"type": "object"}
            },
            "required": ["city", "guest"]
        });
        let mut answered = Map::new();
        answered.insert("city".into(), json!("Oslo"));
        let left_out = ["guest", "tags", "extra", "more"].map(String::from);
        let text = arguments_text(&schema, &answered, &left_out, None);
        // An optional property with no default is left out (a null would
        // not fit its type); a required one is there to be filled in.
        assert_eq!(
            serde_json::from_str::<Value>(&text).unwrap(),
            json!({"city": "Oslo", "guest": null, "tags": []})
        );
        let e = check_arguments(&schema, &text).unwrap_err();
        assert_eq!(e, ["/guest: null is not of type \"object\""]);
        let ok = check_arguments(&schema, r#"{"city": "Oslo", "guest": {"name": "Ada"}}"#)
            .expect("fits");
        assert_eq!(ok["guest"]["name"], "Ada");
        let e = check_arguments(&schema, r#"{"city": "Oslo", "guest": {}}"#).unwrap_err();
        assert_eq!(e, ["/guest: \"name\" is a required property"]);
        let e = check_arguments(&schema, "[1]").unwrap_err();
        assert_eq!(e, ["the arguments must be a JSON object"]);
        let e = check_arguments(&schema, "{\"city\": ").unwrap_err();
        assert!(e[0].starts_with("the arguments are not JSON: EOF"), "{e:?}");
        let e = check_arguments(&json!({"type": 3}), "{}").unwrap_err();
        assert!(
            e[0].starts_with("the tool's inputSchema cannot check them"),
            "{e:?}"
        );
    }

    #[test]
    fn structured_content_is_checked_against_the_output_schema() {
        let schema = json!({
            "type": "object",
            "properties": {"count": {"type": "integer", "minimum": 0}},
            "required": ["count"]
        });
        assert_eq!(check_value(&schema, &json!({"count": 3})), Ok(()));
        assert_eq!(
            check_value(&schema, &json!({"count": -1})),
            Err(Misfit::Faults(vec![
                "/count: -1 is less than the minimum of 0".to_owned()
            ]))
        );
        let Err(Misfit::Schema(_)) = check_value(&json!({"minimum": "x"}), &json!(1)) else {
            panic!("a schema that does not compile");
        };
    }

    #[test]
    fn a_prompts_arguments_are_strings_required_as_declared() {
        let p = json!({"name": "greet", "arguments": [
            {"name": "who", "description": "Whom to greet", "required": true},
            {"name": "tone"},
            {"description": "no name"}
        ]});
        let s = prompt_input_schema(&p);
        assert_eq!(
            s,
            json!({"type": "object", "properties": {
                "who": {"type": "string", "description": "Whom to greet"},
                "tone": {"type": "string"}
            }, "required": ["who"]})
        );
        assert!(ToolForm::of(&s).left_out.is_empty());
    }

    #[test]
    fn a_tool_without_properties_has_an_empty_form() {
        for schema in [
            json!({"type": "object"}),
            json!(null),
            json!({"properties": 3}),
        ] {
            let f = ToolForm::of(&schema);
            assert!(f.is_empty(), "{schema}");
            assert!(f.left_out.is_empty());
            assert_eq!(
                f.message("prompt", "ping"),
                "The arguments of the prompt 'ping'."
            );
        }
    }
}
