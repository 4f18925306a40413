//! A tool's arguments given one by one on the command line (`mcp --arg
//! NAME=VALUE`, `--arg NAME:=JSON`), each read by its property's type in
//! the tool's `inputSchema`.
//!
//! `NAME=VALUE` is text read by the property's schema (its `$ref` to the
//! schema's own definitions followed, its `anyOf`/`oneOf` branches
//! looked into): a property that takes a string gets the text as it is;
//! otherwise an `integer` reads `-?[0-9]+` (beyond 64 bits kept exactly,
//! [`super::exact_int`]), a `number` a JSON number, a `boolean` `true` or
//! `false`, a `null` `null`, an `object` a JSON object. An `enum` (or
//! `oneOf` of `const`s) member whose text is VALUE is taken as that member.
//! A property whose type is `array` takes each `NAME=VALUE` given for it as
//! one item, in order, read by its `items` schema. `NAME:=JSON` gives the
//! whole value as JSON, once. Text that reads as none of the types is kept
//! as text. Then the values given are checked against the `inputSchema`
//! (without its `required`: the others may come from `--args`), and each
//! fault is said with the argument it is about, in the schema's words
//! (`--arg times: "two" is not of type "integer"`).

use serde_json::{Map, Value};

use super::exact_int;
use super::tool_form::check_value;

/// How deep `$ref`s and `anyOf`/`oneOf` branches are followed.
const MAX_DEPTH: usize = 8;

/// What one `--arg` gave.
#[derive(Debug, Clone, PartialEq)]
pub enum Given {
    /// `NAME=VALUE`: text, read by the property's type.
    Text(String),
    /// `NAME:=JSON`: the value as JSON (integers beyond 64 bits kept).
    Json(Value),
}

/// One `--arg`: the argument's name and what was given for it.
#[derive(Debug, Clone, PartialEq)]
pub struct ArgValue {
    /// The property name.
    pub name: String,
    /// Its value, as text or JSON.
    pub given: Given,
}

impl ArgValue {
    /// Read one `--arg`: `NAME=VALUE` (split at the first `=`) or
    /// `NAME:=JSON` (the name then ends before `:=`).
    ///
    /// Errors: a sentence for the person: no `=`, an empty name, JSON that
    /// does not read (with its column).
    pub fn parse(arg: &str) -> Result<ArgValue, String> {
        let Some((name, value)) = arg.split_once('=') else {
            return Err(format!(
                "--arg '{}': write NAME=VALUE, or NAME:=JSON",
                crate::safe_text::display(arg)
            ));
        };
        let (name, json) = match name.strip_suffix(':') {
            Some(n) => (n, true),
            None => (name, false),
        };
        if name.is_empty() {
            return Err(format!(
                "--arg '{}': the argument's name is missing before '='",
                crate::safe_text::display(arg)
            ));
        }
        let given = if json {
            Given::Json(exact_int::parse(value).map_err(|e| {
                format!(
                    "--arg {}: the value after ':=' is not JSON: {e}",
                    crate::safe_text::display(name)
                )
            })?)
        } else {
            Given::Text(value.to_owned())
        };
        Ok(ArgValue {
            name: name.to_owned(),
            given,
        })
    }
}

/// `--arg` values as `arguments`, read by `input_schema` (a tool's
/// `inputSchema`; None when the tool is not listed: text stays text,
/// JSON as given, nothing checked), in the order first given.
///
/// Errors: one sentence each (safe text), at most five: a name the schema
/// does not declare (when it declares properties and allows no others
/// explicitly), a name given twice that takes no array, a value that does
/// not fit its property (the schema's reason).
pub fn typed(
    input_schema: Option<&Value>,
    given: &[ArgValue],
) -> Result<Map<String, Value>, Vec<String>> {
    let mut order: Vec<&str> = Vec::new();
    for g in given {
        if !order.contains(&g.name.as_str()) {
            order.push(&g.name);
        }
    }
    let mut out = Map::new();
    let mut faults = Vec::new();
    for name in order {
        let values: Vec<&Given> = given
            .iter()
            .filter(|g| g.name == name)
            .map(|g| &g.given)
            .collect();
        let def = match input_schema {
            None => None,
            Some(schema) => match property(schema, name) {
                Ok(d) => d,
                Err(why) => {
                    faults.push(why);
                    continue;
                }
            },
        };
        match read_values(input_schema, def, name, &values) {
            Ok(v) => {
                out.insert(name.to_owned(), v);
            }
            Err(why) => faults.push(why),
        }
    }
    if let (Some(schema), true) = (input_schema, faults.is_empty()) {
        let mut open = schema.clone();
        if let Some(o) = open.as_object_mut() {
            o.remove("required");
        }
        let instance = exact_int::approximate(&Value::Object(out.clone()));
        if let Err(misfit) = check_value(&open, &instance) {
            faults.extend(
                misfit
                    .sentences("inputSchema", "--arg")
                    .into_iter()
                    .map(|s| match s.strip_prefix('/') {
                        Some(rest) => format!("--arg {rest}"),
                        None => s,
                    })
                    .map(|s| as_written(s, &out)),
            );
        }
    }
    faults.truncate(5);
    if faults.is_empty() {
        Ok(out)
    } else {
        Err(faults)
    }
}

/// The `--arg` names that none of `input_schemas` declares under its
/// `properties`, in the order first given, each once: at a terminal
/// without `--call`, a misspelled name that no form would take.
pub fn undeclared<'a>(input_schemas: &[Value], given: &'a [ArgValue]) -> Vec<&'a str> {
    let mut out: Vec<&str> = Vec::new();
    for g in given {
        let declared = input_schemas.iter().any(|s| {
            s.get("properties")
                .and_then(Value::as_object)
                .is_some_and(|p| p.contains_key(&g.name))
        });
        if !declared && !out.contains(&g.name.as_str()) {
            out.push(&g.name);
        }
    }
    out
}

/// `sentence` about `--arg NAME` followed by the value as written when
/// that value is an integer beyond 64 bits: the schema compared its
/// nearest `f64`, which the sentence quotes.
fn as_written(sentence: String, args: &Map<String, Value>) -> String {
    let digits = sentence
        .strip_prefix("--arg ")
        .and_then(|rest| rest.split([':', '/']).next())
        .and_then(|name| args.get(name))
        .and_then(exact_int::digits);
    match digits {
        Some(d) => format!("{sentence} (given as {d}, compared as the nearest float)"),
        None => sentence,
    }
}

/// The `--arg` values that fit `input_schema`, each name on its own (a
/// name it does not declare, or a value that does not fit, is left out):
/// what the arguments form of a tool picked at a terminal starts with.
pub fn prefill(input_schema: &Value, given: &[ArgValue]) -> Map<String, Value> {
    let mut out = Map::new();
    for g in given {
        if out.contains_key(&g.name) {
            continue;
        }
        let same: Vec<ArgValue> = given.iter().filter(|o| o.name == g.name).cloned().collect();
        if let Ok(m) = typed(Some(input_schema), &same) {
            out.extend(m);
        }
    }
    out
}

/// `base` (`--args`) with `given` (`--arg`) put over it: a name in both
/// takes the `--arg` value.
pub fn merge(mut base: Map<String, Value>, given: Map<String, Value>) -> Map<String, Value> {
    for (k, v) in given {
        base.insert(k, v);
    }
    base
}

/// The declared schema of property `name` (None: undeclared, allowed).
///
/// Errors: the schema declares properties, `name` is not one of them, and
/// it allows no others explicitly (a typo is refused rather than sent).
fn property<'a>(schema: &'a Value, name: &str) -> Result<Option<&'a Value>, String> {
    let props = schema.get("properties").and_then(Value::as_object);
    if let Some(def) = props.and_then(|p| p.get(name)) {
        return Ok(Some(def));
    }
    let open = match schema.get("additionalProperties") {
        Some(Value::Bool(b)) => *b,
        Some(Value::Object(_)) => true,
        _ => props.is_none_or(Map::is_empty),
    };
    if open {
        return Ok(schema.get("additionalProperties").filter(|a| a.is_object()));
    }
    let names: Vec<String> = props
        .map(|p| {
            p.keys()
                .map(|k| crate::safe_text::display(k).into_owned())
                .collect()
        })
        .unwrap_or_default();
    Err(format!(
        "--arg {}: the tool's inputSchema has no such property (it has: {}); an argument it does not declare can be given in --args JSON",
        crate::safe_text::display(name),
        names.join(", ")
    ))
}

/// The value of `name` from all that was given for it, read by `def`.
fn read_values(
    root: Option<&Value>,
    def: Option<&Value>,
    name: &str,
    values: &[&Given],
) -> Result<Value, String> {
    let types = def.map(|d| types_of(root, d)).unwrap_or_default();
    let array = types.contains(&"array") && !types.contains(&"string");
    let shown = crate::safe_text::display(name);
    if values.len() > 1 && values.iter().any(|g| matches!(g, Given::Json(_))) {
        return Err(format!(
            "--arg {shown}: given {} times, once as JSON (:=): give the whole value once",
            values.len()
        ));
    }
    if let [Given::Json(v)] = values {
        return Ok(v.clone());
    }
    let texts = values.iter().filter_map(|g| match g {
        Given::Text(t) => Some(t.as_str()),
        Given::Json(_) => None,
    });
    if array {
        let items = def
            .and_then(|d| resolved(root, d, 0))
            .and_then(|d| d.get("items"));
        return Ok(Value::Array(
            texts.map(|t| read_text(root, items, t)).collect(),
        ));
    }
    if values.len() > 1 {
        return Err(format!(
            "--arg {shown}: given {} times, but it takes one value, not an array",
            values.len()
        ));
    }
    Ok(texts
        .map(|t| read_text(root, def, t))
        .next()
        .unwrap_or(Value::Null))
}

/// `text` read by `def` (see the module doc); text when nothing else fits.
fn read_text(root: Option<&Value>, def: Option<&Value>, text: &str) -> Value {
    let Some(def) = def else {
        return Value::String(text.to_owned());
    };
    if let Some(member) = members(root, def, 0)
        .into_iter()
        .find(|m| member_text(m).as_deref() == Some(text))
    {
        return member;
    }
    let types = types_of(root, def);
    if types.contains(&"string") {
        return Value::String(text.to_owned());
    }
    for t in types {
        let read = match t {
            "integer" => exact_int::integer(text),
            "number" => exact_int::integer(text).or_else(|| {
                serde_json::from_str::<Value>(text)
                    .ok()
                    .filter(Value::is_number)
            }),
            "boolean" => match text {
                "true" => Some(Value::Bool(true)),
                "false" => Some(Value::Bool(false)),
                _ => None,
            },
            "null" => (text == "null").then_some(Value::Null),
            "object" => exact_int::parse(text).ok().filter(Value::is_object),
            _ => None,
        };
        if let Some(v) = read {
            return v;
        }
    }
    Value::String(text.to_owned())
}

/// How an enum member is written as `--arg` text: a string as it is, a
/// number, boolean or null as JSON.
fn member_text(m: &Value) -> Option<String> {
    match m {
        Value::String(s) => Some(s.clone()),
        Value::Number(_) | Value::Bool(_) | Value::Null => Some(m.to_string()),
        _ => None,
    }
}

/// `def` with a local `$ref` (`#/...` in `root`) followed.
fn resolved<'a>(root: Option<&'a Value>, def: &'a Value, depth: usize) -> Option<&'a Value> {
    match def.get("$ref").and_then(Value::as_str) {
        Some(r) if depth < MAX_DEPTH => {
            let target = root?.pointer(r.strip_prefix('#')?)?;
            resolved(root, target, depth + 1)
        }
        Some(_) => None,
        None => Some(def),
    }
}

/// The types `def` allows: its `type` (one or a list), those of its
/// `anyOf`/`oneOf` branches, and those of its `enum`/`const` members.
fn types_of<'a>(root: Option<&'a Value>, def: &'a Value) -> Vec<&'static str> {
    let mut out = Vec::new();
    collect_types(root, def, 0, &mut out);
    out
}

fn collect_types(root: Option<&Value>, def: &Value, depth: usize, out: &mut Vec<&'static str>) {
    const NAMES: [&str; 7] = [
        "string", "integer", "number", "boolean", "null", "object", "array",
    ];
    let Some(def) = resolved(root, def, depth) else {
        return;
    };
    let mut add = |t: &str| {
        if let Some(n) = NAMES.iter().find(|n| **n == t) {
            if !out.contains(n) {
                out.push(n);
            }
        }
    };
    match def.get("type") {
        Some(Value::String(t)) => add(t),
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).for_each(&mut add),
        _ => {}
    }
    for m in def
        .get("enum")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .chain(def.get("const"))
    {
        add(match m {
            Value::String(_) => "string",
            Value::Number(n) if n.is_f64() => "number",
            Value::Number(_) => "integer",
            Value::Bool(_) => "boolean",
            Value::Null => "null",
            Value::Array(_) => "array",
            Value::Object(_) => "object",
        });
    }
    if depth < MAX_DEPTH {
        for key in ["anyOf", "oneOf"] {
            for branch in def.get(key).and_then(Value::as_array).into_iter().flatten() {
                collect_types(root, branch, depth + 1, out);
            }
        }
    }
}

/// The members `def` lists: its `enum`, its `const`, and those of its
/// `anyOf`/`oneOf` branches.
fn members(root: Option<&Value>, def: &Value, depth: usize) -> Vec<Value> {
    let Some(def) = resolved(root, def, depth) else {
        return Vec::new();
    };
    let mut out: Vec<Value> = def
        .get("enum")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    out.extend(def.get("const").cloned());
    if depth < MAX_DEPTH {
        for key in ["anyOf", "oneOf"] {
            for branch in def.get(key).and_then(Value::as_array).into_iter().flatten() {
                out.extend(members(root, branch, depth + 1));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn args(list: &[&str]) -> Vec<ArgValue> {
        list.iter()
            .map(|a| ArgValue::parse(a).expect("arg"))
            .collect()
    }

    fn schema() -> Value {
        json!({
            "type": "object",
            "properties": {
                "name": {"type": "string"},
                "times": {"type": "integer", "minimum": 1},
                "ratio": {"type": "number"},
                "loud": {"type": "boolean"},
                "size": {"type": "integer", "enum": [1, 2, 3]},
                "color": {"$ref": "#/$defs/Color"},
                "tags": {"type": "array", "items": {"type": "integer"}},
                "maybe": {"anyOf": [{"type": "integer"}, {"type": "null"}]},
                "where": {"type": "object", "properties": {"city": {"type": "string"}}}
            },
            "required": ["name", "times"],
            "$defs": {"Color": {"type": "string", "enum": ["red", "green"]}}
        })
    }

    #[test]
    fn each_value_is_read_by_its_property_type() {
        let got = typed(
            Some(&schema()),
            &args(&[
                "times=3",
                "ratio=0.5",
                "loud=true",
                "size=2",
                "color=red",
                "tags=1",
                "tags=2",
                "maybe=null",
                "name=007",
                r#"where={"city":"Oslo"}"#,
            ]),
        )
        .expect("fits");
        assert_eq!(
            Value::Object(got),
            json!({"times": 3, "ratio": 0.5, "loud": true, "size": 2, "color": "red",
                   "tags": [1, 2], "maybe": null, "name": "007", "where": {"city": "Oslo"}})
        );
    }

    #[test]
    fn a_value_that_does_not_fit_is_refused_with_the_schemas_reason() {
        let why = typed(
            Some(&schema()),
            &args(&["times=two", "color=blue", "tags=x"]),
        )
        .expect_err("refused");
        assert_eq!(why.len(), 3, "{why:?}");
        assert!(
            why[0].starts_with("--arg times: \"two\" is not of type \"integer\""),
            "{why:?}"
        );
        assert!(
            why.iter()
                .any(|w| w.starts_with("--arg color: \"blue\" is not one of")),
            "{why:?}"
        );
        assert!(
            why.iter()
                .any(|w| w.starts_with("--arg tags/0: \"x\" is not of type \"integer\"")),
            "{why:?}"
        );
        let why = typed(Some(&schema()), &args(&["times=0"])).expect_err("below minimum");
        assert!(why[0].contains("less than the minimum of 1"), "{why:?}");
    }

    #[test]
    fn unknown_names_and_repeats_are_refused() {
        let why = typed(Some(&schema()), &args(&["tims=3"])).expect_err("typo");
        assert!(
            why[0].contains("has no such property (it has: name, times"),
            "{why:?}"
        );
        let why = typed(Some(&schema()), &args(&["times=3", "times=4"])).expect_err("twice");
        assert!(
            why[0].contains("given 2 times, but it takes one value"),
            "{why:?}"
        );
        let open = json!({"type": "object", "properties": {}, "additionalProperties": true});
        assert_eq!(
            Value::Object(typed(Some(&open), &args(&["x=3"])).expect("open")),
            json!({"x": "3"})
        );
    }

    #[test]
    fn json_values_and_big_integers_are_kept_exactly() {
        let got = typed(
            Some(&schema()),
            &args(&[
                "times=18446744073709551617",
                "tags:=[1, 340282366920938463463374607431768211457]",
            ]),
        )
        .expect("fits");
        let text = String::from_utf8(exact_int::to_vec(&Value::Object(got)).expect("write"))
            .expect("utf8");
        assert_eq!(
            text,
            r#"{"times":18446744073709551617,"tags":[1,340282366920938463463374607431768211457]}"#
        );
    }

    #[test]
    fn names_no_schema_declares_are_found_once_in_order() {
        let given = args(&["nmae=Ada", "times=3", "other=1", "nmae=Bo"]);
        assert_eq!(
            undeclared(&[schema(), json!({"type": "object"})], &given),
            ["nmae", "other"]
        );
        assert!(undeclared(&[schema()], &args(&["times=3", "tags=1"])).is_empty());
    }

    #[test]
    fn a_refused_integer_beyond_64_bits_is_quoted_as_written() {
        let why = typed(Some(&schema()), &args(&["times=-99999999999999999999999"]))
            .expect_err("below the minimum");
        assert_eq!(why.len(), 1, "{why:?}");
        assert!(why[0].starts_with("--arg times: "), "{why:?}");
        assert!(
            why[0].ends_with("(given as -99999999999999999999999, compared as the nearest float)"),
            "{why:?}"
        );
    }

    #[test]
    fn the_form_starts_with_the_values_that_fit() {
        let got = prefill(
            &schema(),
            &args(&["times=4", "color=blue", "other=1", "tags=1", "tags=2"]),
        );
        assert_eq!(Value::Object(got), json!({"times": 4, "tags": [1, 2]}));
    }

    #[test]
    fn without_a_schema_text_stays_text() {
        let got = typed(None, &args(&["a=3", "b:=3", "c="])).expect("any");
        assert_eq!(Value::Object(got), json!({"a": "3", "b": 3, "c": ""}));
    }

    #[test]
    fn malformed_args_are_said() {
        assert!(ArgValue::parse("times").unwrap_err().contains("NAME=VALUE"));
        assert!(ArgValue::parse("=3")
            .unwrap_err()
            .contains("name is missing"));
        assert!(ArgValue::parse("a:={").unwrap_err().contains("not JSON"));
        assert_eq!(
            ArgValue::parse("a=b=c").expect("arg").given,
            Given::Text("b=c".into())
        );
    }
}
