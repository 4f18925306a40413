//! The closed form subset of `requestedSchema`, read into typed
//! fields, with the runtime checks a schema cannot express: `required` names
//! existing properties, enums non-empty and unique, `enumNames` as long as
//! `enum`, defaults that fit their field, bounds in order.
//!
//! The subset is closed: any keyword not listed in the closed form subset makes the request
//! invalid. Property order is the order of the JSON text (serde_json's
//! `preserve_order`), which is the order a form shows.

use serde_json::{Map, Number, Value};

use super::limits::{MAX_OPTIONS, MAX_PROPERTIES, MAX_STRING_CHARS};
use super::policy::FieldExtra;
use super::violation::{join, Rule, Violation};

/// String formats of the subset.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StringFormat {
    Email,
    Uri,
    Date,
    DateTime,
}

impl StringFormat {
    /// The keyword value as written in a schema (`email`, `uri`, `date`, `date-time`).
    pub fn as_str(self) -> &'static str {
        match self {
            StringFormat::Email => "email",
            StringFormat::Uri => "uri",
            StringFormat::Date => "date",
            StringFormat::DateTime => "date-time",
        }
    }
    fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "email" => StringFormat::Email,
            "uri" => StringFormat::Uri,
            "date" => StringFormat::Date,
            "date-time" => StringFormat::DateTime,
            _ => return None,
        })
    }
}

/// One option of a select: the `value` sent on the wire and the `title` shown
/// (None for an untitled enum).
#[derive(Debug, Clone, PartialEq)]
pub struct Choice {
    pub value: String,
    pub title: Option<String>,
}

impl Choice {
    /// What a person sees: the title, else the value.
    pub fn label(&self) -> &str {
        self.title.as_deref().unwrap_or(&self.value)
    }
}

/// How a single select was written (the three single-select rows of the closed form subset).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SingleStyle {
    /// `enum` only.
    Untitled,
    /// `oneOf` of `{const, title}`.
    Titled,
    /// `enum` plus the legacy `enumNames`.
    Legacy,
}

/// The kind of one form field and its constraints.
#[derive(Debug, Clone, PartialEq)]
pub enum FieldKind {
    /// `type: "string"`; lengths in Unicode code points.
    Text {
        min_length: Option<u64>,
        max_length: Option<u64>,
        format: Option<StringFormat>,
        default: Option<String>,
    },
    /// `type: "number"` or `"integer"` (`integer: true`); inclusive bounds.
    Number {
        integer: bool,
        minimum: Option<Number>,
        maximum: Option<Number>,
        default: Option<Number>,
    },
    /// `type: "boolean"`.
    Boolean { default: Option<bool> },
    /// A single select: a string, one of `options`.
    Single {
        options: Vec<Choice>,
        style: SingleStyle,
        default: Option<String>,
    },
    /// A multi select: an array of distinct option values.
    Multi {
        options: Vec<Choice>,
        titled: bool,
        min_items: Option<u64>,
        max_items: Option<u64>,
        default: Option<Vec<String>>,
    },
}

/// One property of the form, in schema order.
#[derive(Debug, Clone, PartialEq)]
pub struct Field {
    /// The property name: the key in `content`.
    pub name: String,
    pub title: Option<String>,
    pub description: Option<String>,
    /// Listed in `required`.
    pub required: bool,
    pub kind: FieldKind,
    /// Checks beyond the subset, read under the compatible schema policy
    /// (empty under the strict one).
    pub extra: FieldExtra,
}

impl Field {
    /// What a person sees as the field's label: the title, else the name.
    pub fn label(&self) -> &str {
        self.title.as_deref().unwrap_or(&self.name)
    }

    /// The field's `default` as a JSON value, if it has one.
    pub fn default_value(&self) -> Option<Value> {
        match &self.kind {
            FieldKind::Text { default, .. } => default.clone().map(Value::String),
            FieldKind::Number { default, .. } => default.clone().map(Value::Number),
            FieldKind::Boolean { default } => default.map(Value::Bool),
            // A select of numbers (compatible schema policy) sends the number.
            FieldKind::Single { default, .. } if self.extra.numeric_options => default
                .as_deref()
                .and_then(|d| serde_json::from_str::<Number>(d).ok())
                .map(Value::Number),
            FieldKind::Single { default, .. } => default.clone().map(Value::String),
            FieldKind::Multi { default, .. } => default
                .clone()
                .map(|v| Value::Array(v.into_iter().map(Value::String).collect())),
        }
    }
}

/// A validated `requestedSchema`: its fields in schema order.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct FormSchema {
    pub fields: Vec<Field>,
    /// Keywords of the requested schema outside the closed subset that were
    /// ignored for drawing (pointers relative to `requestedSchema`; only
    /// under the compatible schema policy).
    pub outside_subset: Vec<String>,
}

impl FormSchema {
    /// The field named `name`.
    pub fn field(&self, name: &str) -> Option<&Field> {
        self.fields.iter().find(|f| f.name == name)
    }
}

const RULE: &str = "form-subset";

struct Ctx {
    errs: Vec<Violation>,
}

impl Ctx {
    fn err(&mut self, ptr: &str, rule: &str, msg: impl Into<String>) {
        let rule = Rule::from_name(rule).unwrap_or(Rule::Internal);
        self.errs.push(Violation::new(ptr, rule, msg));
    }
}

fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// Read `requestedSchema` (the value at `ptr`, normally `/requestedSchema`
/// inside the params) as the closed form subset.
///
/// Errors: every violation found, each with a pointer under `ptr` and a rule
/// (`form-subset` for the shape, `required-exists`, `enum-unique`,
/// `enum-names-length`, `default-fits`, `bounds-order`, `limits`).
pub fn parse_form_schema(v: &Value, ptr: &str) -> Result<FormSchema, Vec<Violation>> {
    let mut cx = Ctx { errs: Vec::new() };
    let Some(obj) = v.as_object() else {
        cx.err(
            ptr,
            RULE,
            format!("requestedSchema must be an object, found {}", type_name(v)),
        );
        return Err(cx.errs);
    };
    for key in obj.keys() {
        if !matches!(key.as_str(), "type" | "properties" | "required" | "$schema") {
            cx.err(&join(ptr, key), RULE, format!("keyword '{key}' is not part of the closed requestedSchema subset (type, properties, required, $schema)"));
        }
    }
    match obj.get("type") {
        Some(Value::String(s)) if s == "object" => {}
        Some(other) => cx.err(
            &join(ptr, "type"),
            RULE,
            format!("requestedSchema type must be \"object\", found {other}"),
        ),
        None => cx.err(ptr, RULE, "requestedSchema must have type \"object\""),
    }
    if let Some(s) = obj.get("$schema") {
        if !s.is_string() {
            cx.err(&join(ptr, "$schema"), RULE, "$schema must be a string");
        }
    }
    let mut required: Vec<String> = Vec::new();
    match obj.get("required") {
        None => {}
        Some(Value::Array(items)) => {
            for (i, it) in items.iter().enumerate() {
                match it.as_str() {
                    Some(s) => required.push(s.to_owned()),
                    None => cx.err(
                        &join(&join(ptr, "required"), &i.to_string()),
                        RULE,
                        "required entries must be strings",
                    ),
                }
            }
        }
        Some(_) => cx.err(
            &join(ptr, "required"),
            RULE,
            "required must be an array of property names",
        ),
    }
    let mut fields = Vec::new();
    let props_ptr = join(ptr, "properties");
    match obj.get("properties") {
        None => cx.err(ptr, RULE, "requestedSchema must have properties"),
        Some(Value::Object(props)) => {
            if props.len() > MAX_PROPERTIES {
                cx.err(
                    &props_ptr,
                    "limits",
                    format!(
                        "{} properties exceed the limit of {MAX_PROPERTIES}",
                        props.len()
                    ),
                );
                return Err(cx.errs);
            }
            for (name, def) in props {
                let fptr = join(&props_ptr, name);
                if name.chars().count() > MAX_STRING_CHARS {
                    cx.err(
                        &fptr,
                        "limits",
                        format!("property name longer than {MAX_STRING_CHARS} characters"),
                    );
                    continue;
                }
                if let Some(f) = parse_field(&mut cx, name, def, &fptr, required.contains(name)) {
                    fields.push(f);
                }
            }
        }
        Some(other) => cx.err(
            &props_ptr,
            RULE,
            format!("properties must be an object, found {}", type_name(other)),
        ),
    }
    if let Some(props) = obj.get("properties").and_then(Value::as_object) {
        let mut seen = std::collections::HashSet::new();
        for (i, r) in required.iter().enumerate() {
            let rptr = join(&join(ptr, "required"), &i.to_string());
            if !props.contains_key(r) {
                cx.err(&rptr, "required-exists", format!("'{r}' is required but is not a property, so no answer can satisfy the form"));
            }
            if !seen.insert(r) {
                cx.err(
                    &rptr,
                    "required-exists",
                    format!("'{r}' is listed twice in required"),
                );
            }
        }
    }
    if cx.errs.is_empty() {
        Ok(FormSchema {
            fields,
            outside_subset: Vec::new(),
        })
    } else {
        Err(cx.errs)
    }
}

/// The keywords of each property kind of the closed form subset (the
/// reader and the compatible schema policy share these lists).
pub(crate) const TITLED_SELECT_KEYS: &[&str] =
    &["type", "title", "description", "oneOf", "default"];
/// An untitled single select.
pub(crate) const ENUM_SELECT_KEYS: &[&str] = &["type", "title", "description", "enum", "default"];
/// A legacy titled single select (`enumNames`).
pub(crate) const LEGACY_SELECT_KEYS: &[&str] = &[
    "type",
    "title",
    "description",
    "enum",
    "enumNames",
    "default",
];
/// A text field.
pub(crate) const STRING_KEYS: &[&str] = &[
    "type",
    "title",
    "description",
    "minLength",
    "maxLength",
    "format",
    "default",
];
/// A number or integer field.
pub(crate) const NUMBER_KEYS: &[&str] = &[
    "type",
    "title",
    "description",
    "minimum",
    "maximum",
    "default",
];
/// A yes/no field.
pub(crate) const BOOLEAN_KEYS: &[&str] = &["type", "title", "description", "default"];
/// A multi select.
pub(crate) const MULTI_SELECT_KEYS: &[&str] = &[
    "type",
    "title",
    "description",
    "items",
    "minItems",
    "maxItems",
    "default",
];

fn check_keys(
    cx: &mut Ctx,
    obj: &Map<String, Value>,
    ptr: &str,
    allowed: &[&str],
    kind: &str,
) -> bool {
    let mut ok = true;
    for key in obj.keys() {
        if !allowed.contains(&key.as_str()) {
            cx.err(
                &join(ptr, key),
                RULE,
                format!(
                    "keyword '{key}' is not allowed in a {kind} field (allowed: {})",
                    allowed.join(", ")
                ),
            );
            ok = false;
        }
    }
    ok
}

fn opt_string(cx: &mut Ctx, obj: &Map<String, Value>, ptr: &str, key: &str) -> Option<String> {
    match obj.get(key) {
        None => None,
        Some(Value::String(s)) => {
            if s.chars().count() > MAX_STRING_CHARS {
                cx.err(
                    &join(ptr, key),
                    "limits",
                    format!("'{key}' is longer than {MAX_STRING_CHARS} characters"),
                );
            }
            Some(s.clone())
        }
        Some(other) => {
            cx.err(
                &join(ptr, key),
                RULE,
                format!("'{key}' must be a string, found {}", type_name(other)),
            );
            None
        }
    }
}

fn opt_count(cx: &mut Ctx, obj: &Map<String, Value>, ptr: &str, key: &str) -> Option<u64> {
    match obj.get(key) {
        None => None,
        Some(Value::Number(n)) if n.as_u64().is_some() => n.as_u64(),
        Some(Value::Number(n))
            if n.as_f64()
                .is_some_and(|f| f >= 0.0 && f.fract() == 0.0 && f < 1e15) =>
        {
            n.as_f64().map(|f| f as u64)
        }
        Some(other) => {
            cx.err(
                &join(ptr, key),
                RULE,
                format!("'{key}' must be a non-negative integer, found {other}"),
            );
            None
        }
    }
}

fn opt_number(cx: &mut Ctx, obj: &Map<String, Value>, ptr: &str, key: &str) -> Option<Number> {
    match obj.get(key) {
        None => None,
        Some(Value::Number(n)) => Some(n.clone()),
        Some(other) => {
            cx.err(
                &join(ptr, key),
                RULE,
                format!("'{key}' must be a number, found {}", type_name(other)),
            );
            None
        }
    }
}

/// A number as f64 (for display and arithmetic; comparisons use
/// [`cmp_numbers`], which is exact).
pub fn num_f64(n: &Number) -> f64 {
    n.as_f64().unwrap_or(f64::NAN)
}

/// Compare two JSON numbers exactly: integers (i64 and u64, widened to
/// i128) as integers, an integer with a float by the float's exact value,
/// two floats as floats. None only when a float is NaN (serde_json never
/// makes one). So `9007199254740993 > 9007199254740992` holds, which
/// comparing as f64 loses.
pub fn cmp_numbers(a: &Number, b: &Number) -> Option<std::cmp::Ordering> {
    match (as_i128(a), as_i128(b)) {
        (Some(x), Some(y)) => Some(x.cmp(&y)),
        (Some(x), None) => cmp_int_float(x, b.as_f64()?),
        (None, Some(y)) => cmp_int_float(y, a.as_f64()?).map(std::cmp::Ordering::reverse),
        (None, None) => a.as_f64()?.partial_cmp(&b.as_f64()?),
    }
}

fn as_i128(n: &Number) -> Option<i128> {
    n.as_i64()
        .map(i128::from)
        .or_else(|| n.as_u64().map(i128::from))
}

/// Compare integer `i` with float `f` exactly.
fn cmp_int_float(i: i128, f: f64) -> Option<std::cmp::Ordering> {
    use std::cmp::Ordering::*;
    // 2^127: every float below it in size converts to i128 exactly once
    // floored (a float that large is already whole).
    const LIMIT: f64 = 170_141_183_460_469_231_731_687_303_715_884_105_728.0;
    if f.is_nan() {
        return None;
    }
    if f >= LIMIT {
        return Some(Less);
    }
    if f < -LIMIT {
        return Some(Greater);
    }
    let whole = f.floor();
    Some(match i.cmp(&(whole as i128)) {
        Equal if f > whole => Less,
        o => o,
    })
}

/// Whether `n` is an integer in the JSON Schema sense (`5` and `5.0` are).
pub fn is_integer(n: &Number) -> bool {
    n.is_i64()
        || n.is_u64()
        || n.as_f64()
            .is_some_and(|f| f.is_finite() && f.fract() == 0.0)
}

fn string_list(cx: &mut Ctx, v: Option<&Value>, ptr: &str, what: &str) -> Option<Vec<String>> {
    let Some(v) = v else {
        cx.err(ptr, RULE, format!("{what} is missing"));
        return None;
    };
    let Some(items) = v.as_array() else {
        cx.err(
            ptr,
            RULE,
            format!("{what} must be an array of strings, found {}", type_name(v)),
        );
        return None;
    };
    if items.len() > MAX_OPTIONS {
        cx.err(
            ptr,
            "limits",
            format!("{} options exceed the limit of {MAX_OPTIONS}", items.len()),
        );
        return None;
    }
    let mut out = Vec::with_capacity(items.len());
    let mut ok = true;
    for (i, it) in items.iter().enumerate() {
        match it.as_str() {
            Some(s) => out.push(s.to_owned()),
            None => {
                cx.err(
                    &join(ptr, &i.to_string()),
                    RULE,
                    format!("{what} entries must be strings, found {}", type_name(it)),
                );
                ok = false;
            }
        }
    }
    ok.then_some(out)
}

fn check_unique_nonempty(cx: &mut Ctx, values: &[String], ptr: &str, what: &str) -> bool {
    if values.is_empty() {
        cx.err(ptr, "enum-unique", format!("{what} must not be empty"));
        return false;
    }
    let mut seen = std::collections::HashSet::with_capacity(values.len());
    for (i, v) in values.iter().enumerate() {
        if !seen.insert(v.as_str()) {
            cx.err(
                &join(ptr, &i.to_string()),
                "enum-unique",
                format!("{what} value '{v}' appears more than once"),
            );
            return false;
        }
    }
    true
}

/// `oneOf` / `anyOf` items `{const, title}` (exactly those two keys).
fn titled_options(cx: &mut Ctx, v: Option<&Value>, ptr: &str, what: &str) -> Option<Vec<Choice>> {
    let Some(v) = v else {
        cx.err(ptr, RULE, format!("{what} is missing"));
        return None;
    };
    let Some(items) = v.as_array() else {
        cx.err(
            ptr,
            RULE,
            format!("{what} must be an array of {{const, title}} objects"),
        );
        return None;
    };
    if items.len() > MAX_OPTIONS {
        cx.err(
            ptr,
            "limits",
            format!("{} options exceed the limit of {MAX_OPTIONS}", items.len()),
        );
        return None;
    }
    let mut out = Vec::with_capacity(items.len());
    let mut ok = true;
    for (i, it) in items.iter().enumerate() {
        let iptr = join(ptr, &i.to_string());
        let Some(o) = it.as_object() else {
            cx.err(
                &iptr,
                RULE,
                format!("{what} items must be {{const, title}} objects"),
            );
            ok = false;
            continue;
        };
        if !check_keys(cx, o, &iptr, &["const", "title"], "titled option") {
            ok = false;
        }
        let c = o.get("const").and_then(Value::as_str);
        let t = o.get("title").and_then(Value::as_str);
        match (c, t) {
            (Some(c), Some(t)) => out.push(Choice {
                value: c.to_owned(),
                title: Some(t.to_owned()),
            }),
            _ => {
                cx.err(
                    &iptr,
                    RULE,
                    "a titled option needs a string const and a string title",
                );
                ok = false;
            }
        }
    }
    if !ok {
        return None;
    }
    let values: Vec<String> = out.iter().map(|c| c.value.clone()).collect();
    check_unique_nonempty(cx, &values, ptr, what).then_some(out)
}

fn parse_field(cx: &mut Ctx, name: &str, def: &Value, ptr: &str, required: bool) -> Option<Field> {
    let Some(obj) = def.as_object() else {
        cx.err(
            ptr,
            RULE,
            format!(
                "property '{name}' must be a schema object, found {}",
                type_name(def)
            ),
        );
        return None;
    };
    let before = cx.errs.len();
    let ty = obj.get("type").and_then(Value::as_str);
    let title = opt_string(cx, obj, ptr, "title");
    let description = opt_string(cx, obj, ptr, "description");
    let kind = match ty {
        Some("string") if obj.contains_key("oneOf") => {
            check_keys(cx, obj, ptr, TITLED_SELECT_KEYS, "titled single-select");
            let options = titled_options(cx, obj.get("oneOf"), &join(ptr, "oneOf"), "oneOf");
            let default = opt_string(cx, obj, ptr, "default");
            FieldKind::Single {
                options: options.unwrap_or_default(),
                style: SingleStyle::Titled,
                default,
            }
        }
        Some("string") if obj.contains_key("enum") || obj.contains_key("enumNames") => {
            let legacy = obj.contains_key("enumNames");
            let allowed = if legacy {
                LEGACY_SELECT_KEYS
            } else {
                ENUM_SELECT_KEYS
            };
            check_keys(
                cx,
                obj,
                ptr,
                allowed,
                if legacy {
                    "legacy titled enum"
                } else {
                    "single-select"
                },
            );
            let eptr = join(ptr, "enum");
            let values = string_list(cx, obj.get("enum"), &eptr, "enum");
            let mut options = Vec::new();
            if let Some(values) = values {
                if check_unique_nonempty(cx, &values, &eptr, "enum") {
                    let names = if legacy {
                        let nptr = join(ptr, "enumNames");
                        let names = string_list(cx, obj.get("enumNames"), &nptr, "enumNames");
                        if let Some(n) = &names {
                            if n.len() != values.len() {
                                cx.err(
                                    &nptr,
                                    "enum-names-length",
                                    format!(
                                        "enumNames has {} entries but enum has {}",
                                        n.len(),
                                        values.len()
                                    ),
                                );
                            }
                        }
                        names
                    } else {
                        None
                    };
                    options = values
                        .into_iter()
                        .enumerate()
                        .map(|(i, value)| Choice {
                            value,
                            title: names.as_ref().and_then(|n| n.get(i).cloned()),
                        })
                        .collect();
                }
            }
            let default = opt_string(cx, obj, ptr, "default");
            FieldKind::Single {
                options,
                style: if legacy {
                    SingleStyle::Legacy
                } else {
                    SingleStyle::Untitled
                },
                default,
            }
        }
        Some("string") => {
            check_keys(cx, obj, ptr, STRING_KEYS, "string");
            let min_length = opt_count(cx, obj, ptr, "minLength");
            let max_length = opt_count(cx, obj, ptr, "maxLength");
            let format = match obj.get("format") {
                None => None,
                Some(Value::String(s)) => match StringFormat::parse(s) {
                    Some(f) => Some(f),
                    None => {
                        cx.err(
                            &join(ptr, "format"),
                            RULE,
                            format!("format '{s}' is not one of email, uri, date, date-time"),
                        );
                        None
                    }
                },
                Some(other) => {
                    cx.err(
                        &join(ptr, "format"),
                        RULE,
                        format!("format must be a string, found {}", type_name(other)),
                    );
                    None
                }
            };
            if let (Some(a), Some(b)) = (min_length, max_length) {
                if a > b {
                    cx.err(
                        &join(ptr, "minLength"),
                        "bounds-order",
                        format!("minLength {a} is greater than maxLength {b}"),
                    );
                }
            }
            let default = opt_string(cx, obj, ptr, "default");
            FieldKind::Text {
                min_length,
                max_length,
                format,
                default,
            }
        }
        Some(t @ ("number" | "integer")) => {
            check_keys(cx, obj, ptr, NUMBER_KEYS, t);
            let minimum = opt_number(cx, obj, ptr, "minimum");
            let maximum = opt_number(cx, obj, ptr, "maximum");
            let default = opt_number(cx, obj, ptr, "default");
            if let (Some(a), Some(b)) = (&minimum, &maximum) {
                if cmp_numbers(a, b) == Some(std::cmp::Ordering::Greater) {
                    cx.err(
                        &join(ptr, "minimum"),
                        "bounds-order",
                        format!("minimum {a} is greater than maximum {b}"),
                    );
                }
            }
            FieldKind::Number {
                integer: t == "integer",
                minimum,
                maximum,
                default,
            }
        }
        Some("boolean") => {
            check_keys(cx, obj, ptr, BOOLEAN_KEYS, "boolean");
            let default = match obj.get("default") {
                None => None,
                Some(Value::Bool(b)) => Some(*b),
                Some(other) => {
                    cx.err(
                        &join(ptr, "default"),
                        RULE,
                        format!(
                            "a boolean default must be true or false, found {}",
                            type_name(other)
                        ),
                    );
                    None
                }
            };
            FieldKind::Boolean { default }
        }
        Some("array") => {
            check_keys(cx, obj, ptr, MULTI_SELECT_KEYS, "multi-select");
            let iptr = join(ptr, "items");
            let (options, titled) = match obj.get("items") {
                Some(Value::Object(items)) if items.contains_key("anyOf") => {
                    check_keys(cx, items, &iptr, &["anyOf"], "titled multi-select items");
                    (
                        titled_options(
                            cx,
                            items.get("anyOf"),
                            &join(&iptr, "anyOf"),
                            "items.anyOf",
                        ),
                        true,
                    )
                }
                Some(Value::Object(items)) => {
                    check_keys(cx, items, &iptr, &["type", "enum"], "multi-select items");
                    if items.get("type").and_then(Value::as_str) != Some("string") {
                        cx.err(&join(&iptr, "type"), RULE, "multi-select items must be {type: \"string\", enum: [...]} or {anyOf: [{const, title}...]}");
                    }
                    let eptr = join(&iptr, "enum");
                    let values = string_list(cx, items.get("enum"), &eptr, "items.enum");
                    let opts = values.and_then(|v| {
                        check_unique_nonempty(cx, &v, &eptr, "items.enum").then(|| {
                            v.into_iter()
                                .map(|value| Choice { value, title: None })
                                .collect()
                        })
                    });
                    (opts, false)
                }
                _ => {
                    cx.err(&iptr, RULE, "a multi-select needs items {type: \"string\", enum} or {anyOf: [{const, title}...]}");
                    (None, false)
                }
            };
            let min_items = opt_count(cx, obj, ptr, "minItems");
            let max_items = opt_count(cx, obj, ptr, "maxItems");
            if let (Some(a), Some(b)) = (min_items, max_items) {
                if a > b {
                    cx.err(
                        &join(ptr, "minItems"),
                        "bounds-order",
                        format!("minItems {a} is greater than maxItems {b}"),
                    );
                }
            }
            let dptr = join(ptr, "default");
            let default = match obj.get("default") {
                None => None,
                Some(v) => string_list(cx, Some(v), &dptr, "a multi-select default"),
            };
            FieldKind::Multi {
                options: options.unwrap_or_default(),
                titled,
                min_items,
                max_items,
                default,
            }
        }
        Some(other) => {
            cx.err(&join(ptr, "type"), RULE, format!("type '{other}' is not a form field kind (string, number, integer, boolean, array of enum strings)"));
            return None;
        }
        None => {
            cx.err(ptr, RULE, format!("property '{name}' has no type"));
            return None;
        }
    };
    let field = Field {
        name: name.to_owned(),
        title,
        description,
        required,
        kind,
        extra: FieldExtra::default(),
    };
    if cx.errs.len() == before {
        if let Some(d) = field.default_value() {
            if let Err(msg) = super::content::check_value(&field, &d) {
                cx.err(
                    &join(ptr, "default"),
                    "default-fits",
                    format!("default does not fit the field: {msg}"),
                );
            }
        }
    }
    (cx.errs.len() == before).then_some(field)
}
