//! The schema policy: how a `requestedSchema` outside the closed AHP form
//! subset is read.
//!
//! * [`SchemaPolicy::Strict`] (the default of `respond` and `validate`, which
//!   speak AHP): the closed subset, exactly; anything else makes the request
//!   invalid.
//! * [`SchemaPolicy::Compatible`] (the default of `mcp`, which speaks to real
//!   servers): what the popular SDKs generate is read as JSON Schema reads it:
//!   - annotation keywords outside the subset (a root `title` or
//!     `description`, `$comment`, `examples`, `deprecated`, `readOnly`,
//!     `writeOnly`, `x-*` and other unknown keys, keywords that do not apply
//!     to the field's type) are ignored for drawing and listed
//!     ([`FormSchema::outside_subset`](super::FormSchema::outside_subset));
//!   - assertions the form can enforce are enforced live and in the answer
//!     check ([`FieldExtra`]): `pattern` (ECMA-262, `regress`), formats beyond
//!     the subset's four that the validator knows (`uuid`, `ipv4`, ...),
//!     `exclusiveMinimum`, `exclusiveMaximum`, `multipleOf`, `enum` on a
//!     number or integer (a single select of numbers), `uniqueItems: true`
//!     on a multi select and a root `additionalProperties: false` (an answer
//!     never has keys the form did not ask for);
//!   - `anyOf: [T, {"type": "null"}]` and `type: [T, "null"]` are an optional
//!     T: an answer never sends `null` (the result's content cannot carry it);
//!   - anything that changes the shape (nested objects, arrays other than
//!     string-enum multi selects, `$ref`, other `anyOf`/`oneOf`/`allOf`,
//!     `not`, `if`, a `const` that is not a string or number; a string or
//!     number `const` is a select of one option) makes the request one that cannot be answered as
//!     a form ([`NotAForm`]): the person sees why and can only decline or
//!     cancel.
//!
//! [`read_compatible`] turns such a schema into a schema of the subset plus
//! the extra checks; the subset reader
//! ([`parse_form_schema`](super::form_schema::parse_form_schema)) then reads
//! it with every rule of the closed form subset, so the subset's own rules stay exact.

use std::fmt;
use std::sync::Arc;

use serde_json::{Map, Number, Value};

use super::numbers::{is_integer, num_f64};
use super::subset::{
    keys_of, BooleanSchema, LegacyTitledEnumSchema, NumberSchema, StringSchema,
    TitledSingleSelectEnumSchema, UntitledMultiSelectEnumSchema,
};
use super::violation::join;

/// How a `requestedSchema` outside the closed subset is read
/// (`--schema-policy`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
pub enum SchemaPolicy {
    /// The closed AHP form subset, exactly.
    #[default]
    Strict,
    /// What real servers send, read as JSON Schema reads it (module docs).
    Compatible,
}

impl SchemaPolicy {
    /// `strict` or `compatible`.
    pub fn as_str(self) -> &'static str {
        match self {
            SchemaPolicy::Strict => "strict",
            SchemaPolicy::Compatible => "compatible",
        }
    }
}

/// Key of the request event's `extensions` entry that says how `ahp-elicit
/// mcp` read the request (written only under the compatible policy).
pub const EXTENSION_KEY: &str = "ahp-elicit/schema-policy";

/// A compiled `pattern` (ECMA-262 with the `u` flag, not anchored, as JSON
/// Schema defines it). Equal when the source text is equal.
///
/// The syntax is checked as ECMA-262 by `regress`; matching runs on the
/// `regex` crate (linear time, so a hostile pattern such as `^(a+)+$`
/// cannot freeze the form) after `jsonschema-regex` translates the ECMA-262
/// classes (`\d` is ASCII digits, `\s` ECMA white space, ...). A pattern
/// with look-around or back-references has no linear-time match and is
/// refused.
#[derive(Clone)]
pub struct Pattern {
    /// The pattern as written in the schema.
    pub source: String,
    re: Arc<regex::Regex>,
}

/// Why a `pattern` cannot be checked.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PatternError {
    /// Not ECMA-262 syntax (the parser's reason).
    #[error("the pattern does not compile as an ECMA-262 regular expression: {0}")]
    NotEcma262(String),
    /// No linear-time match exists for it.
    #[error("the pattern uses look-around or back-references (or is too large), which the form cannot check in bounded time")]
    Unbounded,
}

impl Pattern {
    /// Compile `source`. Errors: why it cannot be checked.
    pub fn new(source: &str) -> Result<Pattern, PatternError> {
        regress::Regex::with_flags(source, "u")
            .map_err(|e| PatternError::NotEcma262(e.to_string()))?;
        let rust = jsonschema_regex::to_rust_regex(source).map_err(|()| PatternError::Unbounded)?;
        let re = regex::Regex::new(&rust).map_err(|_| PatternError::Unbounded)?;
        Ok(Pattern {
            source: source.to_owned(),
            re: Arc::new(re),
        })
    }

    /// Whether `s` contains a match.
    pub fn is_match(&self, s: &str) -> bool {
        self.re.is_match(s)
    }
}

impl PartialEq for Pattern {
    fn eq(&self, other: &Self) -> bool {
        self.source == other.source
    }
}

impl fmt::Debug for Pattern {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Pattern({:?})", self.source)
    }
}

/// The checks of a field beyond the subset, enforced live and in the answer
/// check (empty under the strict policy).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct FieldExtra {
    /// `pattern` of a text field.
    pub pattern: Option<Pattern>,
    /// A `format` outside the subset's four that the validator knows.
    pub format: Option<String>,
    /// `exclusiveMinimum` of a number field.
    pub exclusive_minimum: Option<Number>,
    /// `exclusiveMaximum` of a number field.
    pub exclusive_maximum: Option<Number>,
    /// `multipleOf` of a number field.
    pub multiple_of: Option<Number>,
    /// A single select whose option values are numbers (`enum` on a number
    /// or integer): the value sent is the number, not its text.
    pub numeric_options: bool,
    /// The schema also allowed `null` (the answer never sends it).
    pub nullable: bool,
}

impl FieldExtra {
    /// Whether there is nothing beyond the subset.
    pub fn is_empty(&self) -> bool {
        *self == FieldExtra::default()
    }

    /// Check `value` (already fitting the subset field) against the extra
    /// assertions. Errors: the assertion broken (its text one sentence, like
    /// the subset's checks).
    pub fn check(&self, value: &Value) -> Result<(), ExtraError> {
        match value {
            Value::String(s) => self.check_text(s),
            Value::Number(n) => self.check_number(n),
            _ => Ok(()),
        }
    }

    /// The format first: its message is plainer than a generated pattern's.
    fn check_text(&self, s: &str) -> Result<(), ExtraError> {
        if let Some(f) = &self.format {
            if !extra_format_ok(f, s) {
                return Err(ExtraError::Format(f.clone()));
            }
        }
        if let Some(p) = &self.pattern {
            if !p.is_match(s) {
                return Err(ExtraError::Pattern(p.source.clone()));
            }
        }
        Ok(())
    }

    fn check_number(&self, n: &Number) -> Result<(), ExtraError> {
        let x = num_f64(n);
        if let Some(m) = &self.exclusive_minimum {
            if x <= num_f64(m) {
                return Err(ExtraError::NotAbove(m.clone()));
            }
        }
        if let Some(m) = &self.exclusive_maximum {
            if x >= num_f64(m) {
                return Err(ExtraError::NotBelow(m.clone()));
            }
        }
        if let Some(m) = &self.multiple_of {
            let q = x / num_f64(m);
            if !(q.is_finite() && (q - q.round()).abs() < 1e-9) {
                return Err(ExtraError::NotMultiple(m.clone()));
            }
        }
        Ok(())
    }
}

/// An assertion beyond the subset that a value breaks.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ExtraError {
    /// Not of a format outside the subset's four.
    #[error("must be a valid {0}")]
    Format(String),
    /// No match of the `pattern` (its source).
    #[error("must match the pattern {0}")]
    Pattern(String),
    /// Not above `exclusiveMinimum`.
    #[error("must be greater than {0}")]
    NotAbove(Number),
    /// Not below `exclusiveMaximum`.
    #[error("must be less than {0}")]
    NotBelow(Number),
    /// Not a multiple of `multipleOf`.
    #[error("must be a multiple of {0}")]
    NotMultiple(Number),
}

/// Formats outside the subset that the validator (`jsonschema`) checks.
pub const EXTRA_FORMATS: &[&str] = &[
    "uuid",
    "ipv4",
    "ipv6",
    "hostname",
    "time",
    "duration",
    "uri-reference",
    "iri",
    "iri-reference",
    "uri-template",
    "json-pointer",
    "relative-json-pointer",
    "regex",
];

/// The validators of [`EXTRA_FORMATS`], built once (a live check runs on
/// every key).
fn extra_format_validators() -> &'static [(&'static str, Option<jsonschema::Validator>)] {
    static V: std::sync::OnceLock<Vec<(&'static str, Option<jsonschema::Validator>)>> =
        std::sync::OnceLock::new();
    V.get_or_init(|| {
        EXTRA_FORMATS
            .iter()
            .map(|f| {
                let schema = serde_json::json!({"type": "string", "format": f});
                let v = jsonschema::options()
                    .should_validate_formats(true)
                    .should_ignore_unknown_formats(false)
                    .build(&schema)
                    .ok();
                (*f, v)
            })
            .collect()
    })
}

fn extra_format_ok(format: &str, s: &str) -> bool {
    extra_format_validators()
        .iter()
        .find(|(f, _)| *f == format)
        .and_then(|(_, v)| v.as_ref())
        // Every format of EXTRA_FORMATS builds (tested).
        .is_some_and(|v| v.is_valid(&Value::String(s.to_owned())))
}

/// A request that cannot be answered as a form, and why (pointers relative
/// to `requestedSchema`).
#[derive(Debug, Clone, PartialEq)]
pub struct NotAForm {
    /// One sentence each, starting with the pointer; safe text (control,
    /// bidi and zero-width characters shown escaped).
    pub reasons: Vec<String>,
}

/// A schema read under the compatible policy.
#[derive(Debug, Clone, PartialEq)]
pub struct Compatible {
    /// The schema rewritten into the closed subset.
    pub schema: Value,
    /// Keywords ignored for drawing (pointers relative to `requestedSchema`).
    pub outside_subset: Vec<String>,
    /// The extra checks, by property name.
    pub extras: Vec<(String, FieldExtra)>,
}

struct Reader {
    ignored: Vec<String>,
    reasons: Vec<String>,
    extras: Vec<(String, FieldExtra)>,
}

impl Reader {
    fn ignore(&mut self, ptr: &str) {
        self.ignored.push(ptr.to_owned());
    }
    /// A reason quotes the server's keys: it is kept as safe text
    /// ([`crate::safe_text::display`]), since it reaches stderr and screens.
    fn refuse(&mut self, ptr: &str, why: impl fmt::Display) {
        let at = if ptr.is_empty() { "(root)" } else { ptr };
        let text = format!("{at}: {why}");
        self.reasons
            .push(crate::safe_text::display(&text).into_owned());
    }
}

/// Keywords that change the shape or assert what a form cannot check: a
/// request using them cannot be answered as a form.
const SHAPE: &[&str] = &[
    "$ref",
    "$dynamicRef",
    "$recursiveRef",
    "anyOf",
    "oneOf",
    "allOf",
    "not",
    "if",
    "then",
    "else",
    "const",
    "dependentRequired",
    "dependentSchemas",
    "dependencies",
    "patternProperties",
    "propertyNames",
    "minProperties",
    "maxProperties",
    "unevaluatedProperties",
];

/// Read `schema` (the `requestedSchema` value) under the compatible policy.
///
/// Errors: [`NotAForm`] with every reason found (a shape the form cannot
/// take, a pattern that does not compile).
pub fn read_compatible(schema: &Value) -> Result<Compatible, NotAForm> {
    let mut rd = Reader {
        ignored: Vec::new(),
        reasons: Vec::new(),
        extras: Vec::new(),
    };
    let out = match schema.as_object() {
        Some(obj) => Value::Object(read_root(&mut rd, obj)),
        // Not an object: the subset reader says so.
        None => schema.clone(),
    };
    if rd.reasons.is_empty() {
        Ok(Compatible {
            schema: out,
            outside_subset: rd.ignored,
            extras: rd.extras,
        })
    } else {
        Err(NotAForm {
            reasons: rd.reasons,
        })
    }
}

fn read_root(rd: &mut Reader, obj: &Map<String, Value>) -> Map<String, Value> {
    let mut out = Map::new();
    for (k, v) in obj {
        let ptr = join("", k);
        match k.as_str() {
            "type" | "required" | "$schema" => {
                out.insert(k.clone(), v.clone());
            }
            "properties" => match v.as_object() {
                Some(props) => {
                    let mut o = Map::new();
                    for (name, def) in props {
                        let d = read_property(rd, name, def, &join(&ptr, name));
                        o.insert(name.clone(), d);
                    }
                    out.insert(k.clone(), Value::Object(o));
                }
                None => {
                    out.insert(k.clone(), v.clone());
                }
            },
            // An answer never has keys the form did not ask for.
            "additionalProperties" if v == &Value::Bool(false) => {}
            k if SHAPE.contains(&k) => {
                rd.refuse(&ptr, format!("'{k}' at the root changes the form's shape"))
            }
            _ => rd.ignore(&ptr),
        }
    }
    out
}

/// A field's schema after [`strip_null`]: the keys to read, whether it was
/// nullable, and where each key taken from inside a branch was written
/// (its pointer prefix), so that listed pointers name the real place.
struct Stripped {
    obj: Map<String, Value>,
    nullable: bool,
    origin: std::collections::HashMap<String, String>,
}

impl Stripped {
    /// The pointer of `key` as written in the schema.
    fn ptr(&self, field_ptr: &str, key: &str) -> String {
        join(self.origin.get(key).map_or(field_ptr, String::as_str), key)
    }
}

/// Collapse `anyOf`/`oneOf: [T, {type: null}]` and `type: [T, "null"]`
/// into T (a `default: null` and a `null` in `enum` go too).
fn strip_null(obj: &Map<String, Value>, ptr: &str) -> Stripped {
    let plain = |obj: Map<String, Value>, nullable| Stripped {
        obj,
        nullable,
        origin: Default::default(),
    };
    let is_null = |v: &Value| v.get("type") == Some(&Value::String("null".into()));
    for key in ["anyOf", "oneOf"] {
        let Some(Value::Array(branches)) = obj.get(key) else {
            continue;
        };
        if branches.len() != 2 || branches.iter().filter(|b| is_null(b)).count() != 1 {
            continue;
        }
        let found = branches.iter().enumerate().find(|(_, b)| !is_null(b));
        if let Some((i, Value::Object(inner))) = found {
            let base = join(&join(ptr, key), &i.to_string());
            let mut out = obj.clone();
            out.remove(key);
            let mut origin = std::collections::HashMap::new();
            for (k, v) in inner {
                if !out.contains_key(k) {
                    out.insert(k.clone(), v.clone());
                    origin.insert(k.clone(), base.clone());
                }
            }
            return Stripped {
                obj: without_null(out),
                nullable: true,
                origin,
            };
        }
    }
    if let Some(Value::Array(types)) = obj.get("type") {
        let null = Value::String("null".into());
        if types.len() == 2 && types.contains(&null) {
            let mut out = obj.clone();
            if let Some(t) = types.iter().find(|t| **t != null) {
                out.insert("type".into(), t.clone());
            }
            return plain(without_null(out), true);
        }
    }
    plain(obj.clone(), false)
}

/// A nullable field's schema without its `null` default or `null` option.
fn without_null(mut out: Map<String, Value>) -> Map<String, Value> {
    if out.get("default") == Some(&Value::Null) {
        out.remove("default");
    }
    if let Some(Value::Array(items)) = out.get_mut("enum") {
        items.retain(|v| !v.is_null());
    }
    out
}

/// The subset keywords of a field of type `ty`, and the extra
/// assertions the form enforces on it.
fn kind_keys(
    ty: &str,
    obj: &Map<String, Value>,
) -> (&'static [&'static str], &'static [&'static str]) {
    match ty {
        "string" if obj.contains_key("oneOf") => (keys_of::<TitledSingleSelectEnumSchema>(), &[]),
        // enumNames may come with the enum: the legacy definition has both.
        "string" if obj.contains_key("enum") => (keys_of::<LegacyTitledEnumSchema>(), &[]),
        "string" => (keys_of::<StringSchema>(), &["pattern"]),
        "number" | "integer" => (
            keys_of::<NumberSchema>(),
            &["exclusiveMinimum", "exclusiveMaximum", "multipleOf", "enum"],
        ),
        "boolean" => (keys_of::<BooleanSchema>(), &[]),
        // Both multi selects have the same keys.
        _ => (keys_of::<UntitledMultiSelectEnumSchema>(), &["uniqueItems"]),
    }
}

fn read_property(rd: &mut Reader, name: &str, def: &Value, ptr: &str) -> Value {
    let Some(obj) = def.as_object() else {
        return def.clone();
    };
    let stripped = strip_null(obj, ptr);
    let obj = const_as_enum(stripped.obj.clone());
    let Some(ty) = field_type(rd, &obj, &stripped, name, ptr) else {
        return Value::Object(obj);
    };
    let (subset, extra_keys) = kind_keys(&ty, &obj);
    let mut out = Map::new();
    let mut extra = FieldExtra {
        nullable: stripped.nullable,
        ..FieldExtra::default()
    };
    for (k, v) in &obj {
        let kptr = stripped.ptr(ptr, k);
        if ty == "string" && k == "oneOf" {
            out.insert(k.clone(), read_options(rd, v, &kptr));
        } else if ty == "array" && k == "items" {
            out.insert(k.clone(), read_items(rd, name, v, &kptr));
        } else if ty == "string" && k == "format" {
            read_format(rd, v, &kptr, &mut out, &mut extra);
        } else if subset.contains(&k.as_str()) {
            out.insert(k.clone(), v.clone());
        } else if extra_keys.contains(&k.as_str()) {
            read_extra(rd, k, v, &kptr, &mut out, &mut extra);
        } else if SHAPE.contains(&k.as_str()) {
            rd.refuse(
                &kptr,
                format!("'{k}' is not one form field (the form cannot show or check it)"),
            );
        } else {
            rd.ignore(&kptr);
        }
    }
    if extra.numeric_options {
        numeric_select(rd, &ty, &stripped, ptr, &mut out);
    }
    if !extra.is_empty() {
        rd.extras.push((name.to_owned(), extra));
    }
    Value::Object(out)
}

/// `const` of the field's own type (pydantic's one-value `Literal`): a
/// select of that one option.
fn const_as_enum(mut obj: Map<String, Value>) -> Map<String, Value> {
    let fits = matches!(
        (obj.get("type").and_then(Value::as_str), obj.get("const")),
        (Some("string"), Some(Value::String(_)))
            | (Some("number" | "integer"), Some(Value::Number(_)))
    );
    if fits && !obj.contains_key("enum") {
        if let Some(c) = obj.remove("const") {
            obj.insert("enum".into(), Value::Array(vec![c]));
        }
    }
    obj
}

/// The field's type when it is one form field kind; else the reasons are
/// recorded (or, with no type and nothing else wrong, the subset reader
/// says so) and None.
fn field_type(
    rd: &mut Reader,
    obj: &Map<String, Value>,
    stripped: &Stripped,
    name: &str,
    ptr: &str,
) -> Option<String> {
    let shape: Vec<&String> = obj.keys().filter(|k| SHAPE.contains(&k.as_str())).collect();
    match obj.get("type") {
        Some(Value::String(t))
            if matches!(
                t.as_str(),
                "string" | "number" | "integer" | "boolean" | "array"
            ) =>
        {
            Some(t.clone())
        }
        Some(Value::String(t)) if t == "object" => {
            rd.refuse(
                ptr,
                format!("'{name}' is a nested object, not a form field"),
            );
            None
        }
        Some(Value::String(t)) => {
            let why = format!("type '{t}' is not a form field kind");
            rd.refuse(&stripped.ptr(ptr, "type"), why);
            None
        }
        Some(other) => {
            let why = format!("type {other} is not one form field kind");
            rd.refuse(&stripped.ptr(ptr, "type"), why);
            None
        }
        None if obj.contains_key("$ref") => {
            let why = "'$ref' is not followed: the field's shape is unknown";
            rd.refuse(&stripped.ptr(ptr, "$ref"), why);
            None
        }
        None => {
            for k in shape {
                let why = format!("'{k}' is not one form field (the form cannot show or check it)");
                rd.refuse(&stripped.ptr(ptr, k), why);
            }
            None
        }
    }
}

fn read_format(
    rd: &mut Reader,
    v: &Value,
    ptr: &str,
    out: &mut Map<String, Value>,
    extra: &mut FieldExtra,
) {
    match v.as_str() {
        Some("email" | "uri" | "date" | "date-time") | None => {
            out.insert("format".into(), v.clone());
        }
        Some(f) if EXTRA_FORMATS.contains(&f) => extra.format = Some(f.to_owned()),
        // An unknown format is an annotation (JSON Schema 2020-12).
        Some(_) => rd.ignore(ptr),
    }
}

fn read_extra(
    rd: &mut Reader,
    k: &str,
    v: &Value,
    ptr: &str,
    out: &mut Map<String, Value>,
    extra: &mut FieldExtra,
) {
    let num = || v.as_number().cloned();
    match k {
        "pattern" => match v.as_str().map(Pattern::new) {
            Some(Ok(p)) => extra.pattern = Some(p),
            Some(Err(e)) => rd.refuse(ptr, e),
            None => rd.refuse(ptr, "pattern must be a string"),
        },
        "exclusiveMinimum" | "exclusiveMaximum" | "multipleOf" => match num() {
            Some(n) if k == "exclusiveMinimum" => extra.exclusive_minimum = Some(n),
            Some(n) if k == "exclusiveMaximum" => extra.exclusive_maximum = Some(n),
            Some(n) if num_f64(&n) > 0.0 => extra.multiple_of = Some(n),
            _ => rd.refuse(ptr, format!("'{k}' must be a number (multipleOf above 0)")),
        },
        "enum" => {
            extra.numeric_options = true;
            out.insert(k.into(), v.clone());
        }
        // uniqueItems: a multi select never sends an item twice.
        _ if v == &Value::Bool(true) => {}
        _ => rd.ignore(ptr),
    }
}

/// Turn `{type: number|integer, enum: [numbers], default}` into a single
/// select whose option values are the numbers' JSON text.
fn numeric_select(
    rd: &mut Reader,
    ty: &str,
    stripped: &Stripped,
    ptr: &str,
    out: &mut Map<String, Value>,
) {
    let eptr = stripped.ptr(ptr, "enum");
    let Some(Value::Array(items)) = out.get("enum") else {
        rd.refuse(&eptr, "enum must be an array of numbers");
        return;
    };
    let mut texts = Vec::with_capacity(items.len());
    for (i, it) in items.iter().enumerate() {
        match it.as_number() {
            Some(n) if ty == "number" || is_integer(n) => texts.push(Value::String(n.to_string())),
            _ => rd.refuse(
                &join(&eptr, &i.to_string()),
                format!("an enum of a {ty} field must list {ty}s"),
            ),
        }
    }
    let mut sel = Map::new();
    sel.insert("type".into(), Value::String("string".into()));
    for k in ["title", "description"] {
        if let Some(v) = out.get(k) {
            sel.insert(k.into(), v.clone());
        }
    }
    sel.insert("enum".into(), Value::Array(texts));
    if let Some(d) = out.get("default") {
        let d = d
            .as_number()
            .map(|n| Value::String(n.to_string()))
            .unwrap_or_else(|| d.clone());
        sel.insert("default".into(), d);
    }
    for k in ["minimum", "maximum"] {
        if out.contains_key(k) {
            rd.ignore(&stripped.ptr(ptr, k));
        }
    }
    *out = sel;
}

/// `oneOf` options `{const, title}`: other annotation keys of an option are
/// ignored and listed; an option that is not `{const, title}` is refused.
fn read_options(rd: &mut Reader, v: &Value, ptr: &str) -> Value {
    let Some(items) = v.as_array() else {
        return v.clone();
    };
    let mut out = Vec::with_capacity(items.len());
    for (i, it) in items.iter().enumerate() {
        let iptr = join(ptr, &i.to_string());
        let Some(o) = it.as_object() else {
            out.push(it.clone());
            continue;
        };
        if !o.contains_key("const") {
            rd.refuse(
                &iptr,
                "an option without const: oneOf here is not a list of options",
            );
            continue;
        }
        let mut opt = Map::new();
        for (k, x) in o {
            match k.as_str() {
                "const" | "title" => {
                    opt.insert(k.clone(), x.clone());
                }
                "type" if x == "string" => {}
                k if SHAPE.contains(&k) => {
                    rd.refuse(&join(&iptr, k), format!("'{k}' in an option"))
                }
                _ => rd.ignore(&join(&iptr, k)),
            }
        }
        out.push(Value::Object(opt));
    }
    Value::Array(out)
}

/// The `items` of an array field: a string enum or `anyOf` of titled
/// options; anything else is not a form field.
fn read_items(rd: &mut Reader, name: &str, v: &Value, ptr: &str) -> Value {
    let Some(o) = v.as_object() else {
        return v.clone();
    };
    if o.contains_key("anyOf") {
        let mut out = Map::new();
        for (k, x) in o {
            match k.as_str() {
                "anyOf" => {
                    out.insert(k.clone(), read_options(rd, x, &join(ptr, k)));
                }
                k if SHAPE.contains(&k) => rd.refuse(&join(ptr, k), format!("'{k}' in the items")),
                _ => rd.ignore(&join(ptr, k)),
            }
        }
        return Value::Object(out);
    }
    let string_enum =
        o.get("type") == Some(&Value::String("string".into())) && o.contains_key("enum");
    if !string_enum {
        rd.refuse(
            ptr,
            format!("'{name}' is an array of something other than string options: only multi selects are form fields"),
        );
        return v.clone();
    }
    let mut out = Map::new();
    for (k, x) in o {
        match k.as_str() {
            "type" | "enum" => {
                out.insert(k.clone(), x.clone());
            }
            k if SHAPE.contains(&k) => rd.refuse(&join(ptr, k), format!("'{k}' in the items")),
            _ => rd.ignore(&join(ptr, k)),
        }
    }
    Value::Object(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::binding::content::check_content;
    use crate::binding::params::read_params;
    use crate::binding::{FieldKind, Mode, RequestBody, RequestView, Revision};
    use serde_json::json;

    /// What pydantic's `model_json_schema()` gives for a small model.
    fn pydantic() -> Value {
        json!({
            "description": "Book a table",
            "properties": {
                "name": {"description": "Your name", "minLength": 2, "title": "Name", "type": "string"},
                "course": {"default": 2, "enum": [1, 2, 3], "title": "Course", "type": "integer"},
                "code": {"default": "AB", "examples": ["XY"], "pattern": "^[A-Z]{2}$", "title": "Code", "type": "string"},
                "nickname": {"anyOf": [{"type": "string", "maxLength": 8}, {"type": "null"}], "default": null, "title": "Nickname"},
                "x-ui": {"type": "boolean", "x-widget": "toggle", "deprecated": true}
            },
            "required": ["name"],
            "title": "Booking",
            "type": "object",
            "additionalProperties": false
        })
    }

    /// Why the answer check refuses `v` for `f`, as the text a person
    /// reads; None when it takes it.
    fn refusal(f: &crate::binding::Field, v: &Value) -> Option<String> {
        crate::binding::content::check_value(f, v)
            .err()
            .map(|e| e.to_string())
    }

    fn form_of(schema: Value) -> crate::binding::FormSchema {
        let params = json!({"message": "m", "requestedSchema": schema});
        match read_params(
            Revision::DEFAULT,
            &params,
            Mode::Form,
            SchemaPolicy::Compatible,
        ) {
            Ok(RequestView::Body(r)) => match r.body {
                RequestBody::Form(f) => f,
                RequestBody::Url { .. } => panic!("a form"),
            },
            other => panic!("a form body: {other:?}"),
        }
    }

    fn reasons_of(schema: Value) -> Vec<String> {
        let params = json!({"message": "m", "requestedSchema": schema});
        match read_params(
            Revision::DEFAULT,
            &params,
            Mode::Form,
            SchemaPolicy::Compatible,
        ) {
            Ok(RequestView::NotAForm { reasons, .. }) => reasons,
            other => panic!("not a form: {other:?}"),
        }
    }

    #[test]
    fn annotations_are_listed_and_assertions_kept() {
        let f = form_of(pydantic());
        assert_eq!(
            f.outside_subset,
            [
                "/description",
                "/properties/code/examples",
                "/properties/x-ui/x-widget",
                "/properties/x-ui/deprecated",
                "/title"
            ]
        );
        let names: Vec<&str> = f.fields.iter().map(|x| x.name.as_str()).collect();
        assert_eq!(names, ["name", "course", "code", "nickname", "x-ui"]);
        let code = f.field("code").unwrap();
        assert_eq!(code.extra.pattern.as_ref().unwrap().source, "^[A-Z]{2}$");
        assert_eq!(refusal(code, &json!("QQ")), None);
        assert_eq!(
            refusal(code, &json!("Q1")),
            Some("must match the pattern ^[A-Z]{2}$".into())
        );
        // Nullable: an optional string with the inner bounds, no null default.
        let nick = f.field("nickname").unwrap();
        assert!(nick.extra.nullable && !nick.required);
        assert_eq!(nick.default_value(), None);
        assert_eq!(
            refusal(nick, &json!("abcdefghi")),
            Some("must be at most 8 characters (has 9)".into())
        );
        assert!(refusal(nick, &Value::Null).is_some(), "null is never sent");
    }

    #[test]
    fn every_nullable_spelling_is_an_optional_field() {
        let f = form_of(json!({"type": "object", "properties": {
            "a": {"oneOf": [{"type": "null"}, {"type": "integer", "minimum": 1}], "default": null},
            "b": {"type": ["string", "null"], "enum": ["x", "y", null]},
            "c": {"anyOf": [{"type": "boolean"}, {"type": "null", "description": "none"}]}
        }, "required": ["c"]}));
        let kinds: Vec<(bool, bool)> = f
            .fields
            .iter()
            .map(|x| (x.extra.nullable, x.required))
            .collect();
        assert_eq!(kinds, [(true, false), (true, false), (true, true)]);
        let a = f.field("a").unwrap();
        assert_eq!(a.default_value(), None);
        assert_eq!(refusal(a, &json!(0)), Some("must be at least 1".into()));
        let FieldKind::Single { options, .. } = &f.field("b").unwrap().kind else {
            panic!("a select")
        };
        assert_eq!(options.len(), 2);
        assert!(f.outside_subset.is_empty(), "{:?}", f.outside_subset);
        // Keywords taken from inside a branch are listed where they are.
        let f = form_of(json!({"type": "object", "properties": {
            "n": {"anyOf": [{"type": "null"}, {"type": "string", "examples": ["x"]}], "title": "N"}
        }}));
        assert_eq!(f.outside_subset, ["/properties/n/anyOf/1/examples"]);
    }

    #[test]
    fn a_default_breaking_its_own_pattern_is_not_a_form() {
        let r = reasons_of(json!({"type": "object", "properties": {
            "code": {"type": "string", "pattern": "^[A-Z]{2}$", "default": "ab"}
        }}));
        assert_eq!(
            r,
            ["/properties/code/default: [default-fits] default does not fit the field: must match the pattern ^[A-Z]{2}$"]
        );
    }

    #[test]
    fn a_const_is_a_select_of_one_option() {
        let f = form_of(json!({"type": "object", "properties": {
            "kind": {"type": "string", "const": "table", "title": "Kind"},
            "v": {"type": "integer", "const": 2}
        }}));
        assert_eq!(refusal(f.field("kind").unwrap(), &json!("table")), None);
        assert!(refusal(f.field("kind").unwrap(), &json!("room")).is_some());
        assert_eq!(refusal(f.field("v").unwrap(), &json!(2)), None);
        assert!(refusal(f.field("v").unwrap(), &json!(3)).is_some());
    }

    #[test]
    fn an_integer_enum_is_a_select_of_numbers() {
        let f = form_of(pydantic());
        let course = f.field("course").unwrap();
        assert!(course.extra.numeric_options);
        let FieldKind::Single {
            options, default, ..
        } = &course.kind
        else {
            panic!("a single select: {:?}", course.kind)
        };
        let values: Vec<&str> = options.iter().map(|o| o.value.as_str()).collect();
        assert_eq!(values, ["1", "2", "3"]);
        assert_eq!(default.as_deref(), Some("2"));
        assert_eq!(refusal(course, &json!(3)), None);
        assert_eq!(refusal(course, &json!(3.0)), None);
        assert_eq!(
            refusal(course, &json!(4)),
            Some("4 is not one of the options".into())
        );
        assert_eq!(
            refusal(course, &json!("3")),
            Some("must be a number, found a string".into())
        );
        // The form sends the number, and takes one from a script.
        let mut form = crate::form::Form::new(&f, "m");
        form.set_json("name", &json!("Ada")).unwrap();
        assert_eq!(form.content().unwrap()["course"], json!(2));
        form.set_json("course", &json!(1)).unwrap();
        assert_eq!(form.content().unwrap()["course"], json!(1));
        assert_eq!(
            form.set_json("course", &json!(7))
                .map_err(|e| e.to_string()),
            Err("'course': 7 is not one of the options".into())
        );
        assert!(check_content(&f, form.content().as_ref().unwrap()).is_empty());
    }

    #[test]
    fn a_number_enum_of_the_wrong_kind_is_not_a_form() {
        let r = reasons_of(json!({"type": "object", "properties": {
            "n": {"type": "integer", "enum": [1, 2.5]}
        }}));
        assert_eq!(
            r,
            ["/properties/n/enum/1: an enum of a integer field must list integers"]
        );
    }

    #[test]
    fn extra_formats_and_number_assertions_are_enforced() {
        let f = form_of(json!({"type": "object", "properties": {
            "id": {"type": "string", "format": "uuid"},
            "ip": {"type": "string", "format": "ipv4"},
            "color": {"type": "string", "format": "x-color"},
            "age": {"type": "integer", "exclusiveMinimum": 0, "exclusiveMaximum": 130},
            "step": {"type": "number", "multipleOf": 0.5},
            "tags": {"type": "array", "uniqueItems": true, "items": {"type": "string", "enum": ["a", "b"]}}
        }}));
        let v = |n: &str, x: Value| refusal(f.field(n).unwrap(), &x);
        assert_eq!(v("id", json!("123e4567-e89b-42d3-a456-426614174000")), None);
        assert_eq!(v("id", json!("nope")), Some("must be a valid uuid".into()));
        assert_eq!(v("ip", json!("10.0.0.1")), None);
        assert_eq!(
            v("ip", json!("10.0.0.300")),
            Some("must be a valid ipv4".into())
        );
        // An unknown format is an annotation: listed, not checked.
        assert_eq!(v("color", json!("anything")), None);
        assert_eq!(f.outside_subset, ["/properties/color/format"]);
        assert_eq!(v("age", json!(0)), Some("must be greater than 0".into()));
        assert_eq!(v("age", json!(130)), Some("must be less than 130".into()));
        assert_eq!(v("age", json!(1)), None);
        assert_eq!(v("step", json!(1.5)), None);
        assert_eq!(
            v("step", json!(1.2)),
            Some("must be a multiple of 0.5".into())
        );
        assert_eq!(v("tags", json!(["a", "b"])), None);
    }

    #[test]
    fn shapes_a_form_cannot_take_are_listed() {
        let r = reasons_of(json!({
            "type": "object",
            "$defs": {"A": {"type": "object"}},
            "properties": {
                "addr": {"type": "object", "properties": {"city": {"type": "string"}}},
                "ref": {"$ref": "#/$defs/A"},
                "list": {"type": "array", "items": {"type": "integer"}},
                "either": {"anyOf": [{"type": "string"}, {"type": "integer"}]},
                "both": {"type": "string", "allOf": [{"minLength": 1}]},
                "multi": {"type": ["string", "integer"]},
                "re": {"type": "string", "pattern": "(unclosed"}
            }
        }));
        assert_eq!(r.len(), 7, "{r:#?}");
        assert_eq!(
            r[0],
            "/properties/addr: 'addr' is a nested object, not a form field"
        );
        assert_eq!(
            r[1],
            "/properties/ref/$ref: '$ref' is not followed: the field's shape is unknown"
        );
        assert!(
            r[2].starts_with("/properties/list/items: 'list' is an array of something other"),
            "{}",
            r[2]
        );
        assert!(
            r[3].starts_with("/properties/either/anyOf: 'anyOf' is not one form field"),
            "{}",
            r[3]
        );
        assert!(r[4].starts_with("/properties/both/allOf:"), "{}", r[4]);
        assert_eq!(
            r[5],
            "/properties/multi/type: type [\"string\",\"integer\"] is not one form field kind"
        );
        assert!(
            r[6].starts_with("/properties/re/pattern: the pattern does not compile as an ECMA-262 regular expression"),
            "{}",
            r[6]
        );
    }

    #[test]
    fn every_extra_format_has_a_checker() {
        for (f, v) in extra_format_validators() {
            assert!(v.is_some(), "{f} builds");
        }
        assert!(extra_format_ok("ipv6", "::1"));
        assert!(!extra_format_ok("hostname", "-bad-"));
        assert!(extra_format_ok("time", "09:30:00Z"));
        assert!(!extra_format_ok("duration", "5 minutes"));
        assert!(!extra_format_ok("iri", "not an iri"));
        assert!(!extra_format_ok("json-pointer", "x"));
        assert!(!extra_format_ok("regex", "("));
        assert!(!extra_format_ok("uuid", "123e4567e89b12d3a456426614174000"));
    }

    #[test]
    fn reasons_quoting_hostile_keys_are_safe_text() {
        let r = reasons_of(json!({"type": "object", "properties": {
            "a\u{1b}[31m\u{202e}X": {"type": "object"}
        }}));
        assert_eq!(
            r,
            [
                r"/properties/a\u{1b}[31m\u{202e}X: 'a\u{1b}[31m\u{202e}X' is a nested object, not a form field"
            ]
        );
    }

    #[test]
    fn patterns_are_ecma_262() {
        // ECMA-262 syntax and semantics: \d is ASCII, named groups, the u flag.
        let p = Pattern::new(r"^(?<y>\d{4})-\p{Lu}$").unwrap();
        assert!(p.is_match("2026-Ä"));
        assert!(!p.is_match("٢٠٢٦-A"), "\\d is ASCII digits only");
        // Not anchored unless written so.
        assert!(Pattern::new("b").unwrap().is_match("abc"));
        assert!(
            Pattern::new("(?P<x>a)").is_err(),
            "Python-style groups are not ECMA-262"
        );
        // Catastrophic backtracking is impossible: matching is linear.
        let p = Pattern::new("^(a+)+$").unwrap();
        assert!(!p.is_match(&format!("{}b", "a".repeat(5000))));
        assert!(p.is_match(&"a".repeat(5000)));
        // Look-around and back-references have no linear-time match.
        let e = Pattern::new(r"^(?!x)(a)\1$").unwrap_err();
        assert_eq!(e, PatternError::Unbounded);
        assert!(
            e.to_string().contains("look-around or back-references"),
            "{e}"
        );
        // ECMA-262 classes keep their meaning: \s includes U+FEFF, . no line break.
        assert!(Pattern::new(r"^\s$").unwrap().is_match("\u{feff}"));
        assert!(!Pattern::new("^.$").unwrap().is_match("\n"));
    }

    #[test]
    fn the_rest_of_the_subset_stays_exact() {
        // A rewritten schema still breaking a rule of the closed form subset is shown as
        // not a form, with the rule.
        let r = reasons_of(json!({"type": "object", "title": "T", "properties": {
            "c": {"type": "string", "enum": ["a", "a"]}
        }}));
        assert_eq!(r.len(), 1, "{r:?}");
        assert!(
            r[0].starts_with("/properties/c/enum/1: [enum-unique]"),
            "{}",
            r[0]
        );
        // A fault outside requestedSchema is an invalid request, as in strict.
        let params = json!({"requestedSchema": {"type": "object", "title": "T", "properties": {}}});
        let errs = read_params(
            Revision::DEFAULT,
            &params,
            Mode::Form,
            SchemaPolicy::Compatible,
        )
        .unwrap_err();
        assert!(
            errs.iter()
                .all(|e| !e.pointer().starts_with("/requestedSchema")),
            "{errs:?}"
        );
        // Strict: today's refusal, the subset's rule named.
        let params = json!({"message": "m", "requestedSchema": pydantic()});
        let errs =
            read_params(Revision::DEFAULT, &params, Mode::Form, SchemaPolicy::Strict).unwrap_err();
        assert!(
            errs.iter().any(|e| e.pointer() == "/requestedSchema/title"
                && e.rule == "mcp-request/additionalProperties"),
            "{errs:?}"
        );
    }

    #[test]
    fn params_stay_complete_and_a_subset_form_reads_the_same() {
        let params = json!({"message": "m", "requestedSchema": pydantic()});
        let Ok(RequestView::Body(r)) = read_params(
            Revision::DEFAULT,
            &params,
            Mode::Form,
            SchemaPolicy::Compatible,
        ) else {
            panic!("a body")
        };
        assert_eq!(Value::Object(r.params), params);
        // A schema inside the subset: the same form under both policies.
        let subset = json!({"message": "m", "requestedSchema": {"type": "object", "properties": {
            "a": {"type": "string", "format": "email"}, "n": {"type": "number", "minimum": 1}
        }, "required": ["a"]}});
        let Ok(RequestView::Body(strict)) =
            read_params(Revision::DEFAULT, &subset, Mode::Form, SchemaPolicy::Strict)
        else {
            panic!("a body")
        };
        let Ok(RequestView::Body(compat)) = read_params(
            Revision::DEFAULT,
            &subset,
            Mode::Form,
            SchemaPolicy::Compatible,
        ) else {
            panic!("a body")
        };
        assert_eq!(compat, strict);
    }

    #[test]
    fn titled_options_drop_their_annotations() {
        let f = form_of(json!({"type": "object", "properties": {
            "c": {"type": "string", "oneOf": [
                {"const": "a", "title": "A", "description": "the first"},
                {"const": "b", "title": "B"}
            ]},
            "m": {"type": "array", "items": {"anyOf": [{"const": "x", "title": "X", "$comment": "c"}]}}
        }}));
        assert_eq!(
            f.outside_subset,
            [
                "/properties/c/oneOf/0/description",
                "/properties/m/items/anyOf/0/$comment"
            ]
        );
        assert_eq!(f.fields.len(), 2);
    }
}
