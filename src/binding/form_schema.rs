//! Reading `requestedSchema` as the closed form subset into the form model
//! ([`super::form_model`]).
//!
//! Each property is read into the serde type of its MCP definition
//! ([`super::subset`], closed: any keyword not in the definition makes the
//! request invalid), chosen as the pinned schema chooses it: by `type`, then
//! by `oneOf`, `enumNames`, `enum` or `items.anyOf`. What a type cannot say
//! is checked here: `required` names existing properties, enums non-empty
//! and unique, `enumNames` as long as `enum`, defaults that fit their field
//! (by [`super::content::check_value`], the answer check), bounds in order,
//! and the limits. Property order is the order of the JSON text
//! (serde_json's `preserve_order`), which is the order a form shows.

use std::collections::HashSet;

use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use super::content::check_value;
use super::envelope::member;
use super::limits::{MAX_OPTIONS, MAX_PROPERTIES, MAX_STRING_CHARS};
use super::located::{self, Fault, FaultKind, Token};
use super::policy::FieldExtra;
use super::subset::{
    BooleanSchema, Count, Format, LegacyTitledEnumSchema, NumberSchema, NumberTag, RequestedSchema,
    StringSchema, TitledMultiSelectEnumSchema, TitledOption, TitledSingleSelectEnumSchema,
    UntitledMultiSelectEnumSchema, UntitledSingleSelectEnumSchema,
};
use super::violation::{join, Rule, Violation};

pub use super::form_model::{Choice, Field, FieldKind, FormSchema, SingleStyle, StringFormat};
use super::numbers::cmp_numbers;

/// The rule of a property or `requestedSchema` outside the closed subset.
const RULE: Rule = Rule::FormSubset;

/// The violations found so far.
#[derive(Default)]
struct Ctx {
    errs: Vec<Violation>,
}

impl Ctx {
    /// Record one violation (every rule of this reader goes through here).
    fn err(&mut self, ptr: &str, rule: Rule, msg: impl Into<String>) {
        self.errs.push(Violation::new(ptr, rule, msg));
    }

    /// Record the first fault of reading a definition at `base` (`what`
    /// names it in the message).
    fn fault(&mut self, base: &str, fault: &Fault<'_>, what: &str) {
        let (ptr, msg) = describe(base, fault, what);
        self.err(&ptr, RULE, msg);
    }
}

/// A fault's pointer and sentence. A titled option's fault is reported at
/// the option, and a missing key of a field definition at the key (as the
/// reader always named them); a missing key of `requestedSchema` itself at
/// `requestedSchema`.
fn describe(base: &str, f: &Fault<'_>, what: &str) -> (String, String) {
    let n = f.path.len();
    let option = n >= 2
        && matches!(f.path[n - 2], Token::Index(_))
        && matches!(f.path[n - 1], Token::Key("const" | "title"));
    match &f.kind {
        FaultKind::UnknownKey { key, allowed } => (
            f.pointer(base, n),
            format!(
                "keyword '{key}' is not part of the closed subset for {} (allowed: {})",
                container(f, what),
                allowed.join(", ")
            ),
        ),
        FaultKind::MissingKey(key) => {
            let at_key = n > 0 || what != ROOT;
            let at_key = at_key && !matches!(f.path.last(), Some(Token::Index(_)));
            let ptr = f.pointer(base, n);
            let ptr = if at_key { join(&ptr, key) } else { ptr };
            (ptr, format!("{} needs '{key}'", container(f, what)))
        }
        FaultKind::Invalid { found, .. } if option => (
            f.pointer(base, n - 1),
            format!("a titled option needs a string const and a string title, found {found}"),
        ),
        FaultKind::Invalid { found, expected } => (
            f.pointer(base, n),
            format!("{} must be {expected}, found {found}", place(f, what)),
        ),
        FaultKind::Other(msg) => (f.pointer(base, n), msg.clone()),
    }
}

/// How `describe` names `requestedSchema` itself.
const ROOT: &str = "requestedSchema";

/// The object holding the fault's last key: the definition read, its
/// `items`, or an option.
fn container(f: &Fault<'_>, what: &str) -> String {
    let n = f.path.len();
    let parent = match &f.kind {
        FaultKind::MissingKey(_) => f.path.last(),
        _ if n >= 2 => f.path.get(n - 2),
        _ => None,
    };
    match parent {
        None => what.to_owned(),
        Some(Token::Index(_)) => "a titled option".into(),
        Some(Token::Key(k)) => format!("'{k}' of {what}"),
    }
}

/// The faulty value: its key, or its index.
fn place(f: &Fault<'_>, what: &str) -> String {
    match f.path.last() {
        None => what.to_owned(),
        Some(Token::Key(k)) => format!("'{k}'"),
        Some(Token::Index(i)) => format!("entry {i}"),
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
/// Errors: the violations found, each with a pointer under `ptr` and a rule
/// (`form-subset` for the shape: the first fault of `requestedSchema`
/// itself, else the first fault of each property; `required-exists`,
/// `enum-unique`, `enum-names-length`, `default-fits`, `bounds-order`,
/// `limits`).
pub fn parse_form_schema(v: &Value, ptr: &str) -> Result<FormSchema, Vec<Violation>> {
    let mut cx = Ctx::default();
    let root = match located::read::<RequestedSchema>(v) {
        Ok(root) => root,
        Err(f) => {
            cx.fault(ptr, &f, ROOT);
            return Err(cx.errs);
        }
    };
    // Read as an object just above; the entries are read one by one.
    let props = v.get("properties").and_then(Value::as_object);
    let required = root.required.unwrap_or_default();
    let Some(fields) = props.and_then(|p| read_properties(&mut cx, p, &required, ptr)) else {
        return Err(cx.errs);
    };
    if let Some(props) = props {
        check_required(&mut cx, props, &required, ptr);
    }
    if cx.errs.is_empty() {
        Ok(FormSchema {
            fields,
            outside_subset: Vec::new(),
            title: None,
            description: None,
        })
    } else {
        Err(cx.errs)
    }
}

/// Each property as a field (None past the limit on properties).
fn read_properties(
    cx: &mut Ctx,
    props: &Map<String, Value>,
    required: &[String],
    ptr: &str,
) -> Option<Vec<Field>> {
    let props_ptr = join(ptr, "properties");
    if props.len() > MAX_PROPERTIES {
        let msg = format!(
            "{} properties exceed the limit of {MAX_PROPERTIES}",
            props.len()
        );
        cx.err(&props_ptr, Rule::Limits, msg);
        return None;
    }
    let required: HashSet<&str> = required.iter().map(String::as_str).collect();
    let mut fields = Vec::with_capacity(props.len());
    for (name, def) in props {
        let fptr = join(&props_ptr, name);
        if name.chars().count() > MAX_STRING_CHARS {
            let msg = format!("property name longer than {MAX_STRING_CHARS} characters");
            cx.err(&fptr, Rule::Limits, msg);
            continue;
        }
        let is_required = required.contains(name.as_str());
        if let Some(f) = read_property(cx, name, def, &fptr, is_required) {
            fields.push(f);
        }
    }
    Some(fields)
}

/// `required-exists`: each required name is a property, listed once.
fn check_required(cx: &mut Ctx, props: &Map<String, Value>, required: &[String], ptr: &str) {
    let mut seen = HashSet::new();
    for (i, r) in required.iter().enumerate() {
        let rptr = join(&join(ptr, "required"), &i.to_string());
        if !props.contains_key(r) {
            cx.err(
                &rptr,
                Rule::RequiredExists,
                format!(
                    "'{r}' is required but is not a property, so no answer can satisfy the form"
                ),
            );
        }
        if !seen.insert(r) {
            cx.err(
                &rptr,
                Rule::RequiredExists,
                format!("'{r}' is listed twice in required"),
            );
        }
    }
}

/// One property as a field, or None with its violations recorded.
fn read_property(
    cx: &mut Ctx,
    name: &str,
    def: &Value,
    ptr: &str,
    required: bool,
) -> Option<Field> {
    let before = cx.errs.len();
    let read = read_definition(cx, name, def, ptr)?;
    let field = Field {
        name: name.to_owned(),
        title: read.title,
        description: read.description,
        required,
        kind: read.kind,
        extra: FieldExtra::default(),
    };
    if cx.errs.len() == before {
        default_fits(cx, &field, ptr);
    }
    (cx.errs.len() == before).then_some(field)
}

/// `default-fits`: the default is an answer the field accepts (checked by
/// the answer check itself).
fn default_fits(cx: &mut Ctx, field: &Field, ptr: &str) {
    let Some(d) = field.default_value() else {
        return;
    };
    if let Err(e) = check_value(field, &d) {
        cx.err(
            &join(ptr, "default"),
            Rule::DefaultFits,
            format!("default does not fit the field: {e}"),
        );
    }
}

/// Choose the property's definition as the pinned schema does and read it.
fn read_definition(cx: &mut Ctx, name: &str, def: &Value, ptr: &str) -> Option<Read> {
    let Some(obj) = def.as_object() else {
        let msg = format!(
            "property '{name}' must be a schema object, found {}",
            type_name(def)
        );
        cx.err(ptr, RULE, msg);
        return None;
    };
    let has = |k: &str| obj.contains_key(k);
    let titled_items = member(obj, "items").is_some_and(|i| i.get("anyOf").is_some());
    match member(obj, "type").and_then(Value::as_str) {
        Some("string") if has("oneOf") => read_as::<TitledSingleSelectEnumSchema>(cx, def, ptr),
        Some("string") if has("enumNames") => read_as::<LegacyTitledEnumSchema>(cx, def, ptr),
        Some("string") if has("enum") => read_as::<UntitledSingleSelectEnumSchema>(cx, def, ptr),
        Some("string") => read_as::<StringSchema>(cx, def, ptr),
        Some("number" | "integer") => read_as::<NumberSchema>(cx, def, ptr),
        Some("boolean") => read_as::<BooleanSchema>(cx, def, ptr),
        Some("array") if titled_items => read_as::<TitledMultiSelectEnumSchema>(cx, def, ptr),
        Some("array") => read_as::<UntitledMultiSelectEnumSchema>(cx, def, ptr),
        Some(other) => {
            cx.err(&join(ptr, "type"), RULE, format!("type '{other}' is not a form field kind (string, number, integer, boolean, array of enum strings)"));
            None
        }
        None => {
            cx.err(ptr, RULE, format!("property '{name}' has no type"));
            None
        }
    }
}

/// A definition read: the field's annotations and kind.
struct Read {
    title: Option<String>,
    description: Option<String>,
    kind: FieldKind,
}

impl Read {
    /// The read field, the limit on its annotations checked.
    fn new(
        cx: &mut Ctx,
        ptr: &str,
        title: Option<String>,
        description: Option<String>,
        kind: FieldKind,
    ) -> Read {
        text_limit(cx, ptr, "title", title.as_deref());
        text_limit(cx, ptr, "description", description.as_deref());
        Read {
            title,
            description,
            kind,
        }
    }
}

/// A closed definition of the subset and the rules its type cannot say.
trait Definition: DeserializeOwned {
    /// How messages name the definition.
    const WHAT: &'static str;
    /// The field it defines; violations of its rules go to `cx`.
    fn into_read(self, cx: &mut Ctx, ptr: &str) -> Read;
}

/// Read `def` as `T`: its first fault is a `form-subset` violation.
fn read_as<T: Definition>(cx: &mut Ctx, def: &Value, ptr: &str) -> Option<Read> {
    match located::read::<T>(def) {
        Ok(d) => Some(d.into_read(cx, ptr)),
        Err(f) => {
            cx.fault(ptr, &f, T::WHAT);
            None
        }
    }
}

/// `limits`: a string of the request longer than the limit.
fn text_limit(cx: &mut Ctx, ptr: &str, key: &str, text: Option<&str>) {
    if text.is_some_and(|s| s.chars().count() > MAX_STRING_CHARS) {
        let msg = format!("'{key}' is longer than {MAX_STRING_CHARS} characters");
        cx.err(&join(ptr, key), Rule::Limits, msg);
    }
}

/// `bounds-order` for two counts: `lo` not above `hi`.
fn count_order(cx: &mut Ctx, ptr: &str, lo: (&str, Option<Count>), hi: (&str, Option<Count>)) {
    if let (Some(Count(a)), Some(Count(b))) = (lo.1, hi.1) {
        if a > b {
            let msg = format!("{} {a} is greater than {} {b}", lo.0, hi.0);
            cx.err(&join(ptr, lo.0), Rule::BoundsOrder, msg);
        }
    }
}

/// The limit on options and `enum-unique` (non-empty, no value twice) for
/// the option values at `ptr`.
fn options_ok<'a>(
    cx: &mut Ctx,
    values: impl ExactSizeIterator<Item = &'a str>,
    ptr: &str,
    what: &str,
) -> bool {
    let n = values.len();
    if n > MAX_OPTIONS {
        let msg = format!("{n} options exceed the limit of {MAX_OPTIONS}");
        cx.err(ptr, Rule::Limits, msg);
        return false;
    }
    if n == 0 {
        cx.err(ptr, Rule::EnumUnique, format!("{what} must not be empty"));
        return false;
    }
    let mut seen = HashSet::with_capacity(n);
    for (i, v) in values.enumerate() {
        if !seen.insert(v) {
            let msg = format!("{what} value '{v}' appears more than once");
            cx.err(&join(ptr, &i.to_string()), Rule::EnumUnique, msg);
            return false;
        }
    }
    true
}

/// Untitled options of `values` (none when a rule is broken).
fn untitled(cx: &mut Ctx, values: Vec<String>, ptr: &str, what: &str) -> Vec<Choice> {
    if !options_ok(cx, values.iter().map(String::as_str), ptr, what) {
        return Vec::new();
    }
    values
        .into_iter()
        .map(|value| Choice { value, title: None })
        .collect()
}

/// Titled options of `options` (none when a rule is broken).
fn titled(cx: &mut Ctx, options: Vec<TitledOption>, ptr: &str, what: &str) -> Vec<Choice> {
    if !options_ok(cx, options.iter().map(|o| o.value.as_str()), ptr, what) {
        return Vec::new();
    }
    options
        .into_iter()
        .map(|o| Choice {
            value: o.value,
            title: Some(o.title),
        })
        .collect()
}

/// The limit on a multi select's default list.
fn default_list_limit(cx: &mut Ctx, ptr: &str, default: Option<&Vec<String>>) {
    if let Some(n) = default.map(Vec::len).filter(|n| *n > MAX_OPTIONS) {
        let msg = format!("{n} options exceed the limit of {MAX_OPTIONS}");
        cx.err(&join(ptr, "default"), Rule::Limits, msg);
    }
}

/// The model's name of a `format`.
fn string_format(f: Format) -> StringFormat {
    match f {
        Format::Email => StringFormat::Email,
        Format::Uri => StringFormat::Uri,
        Format::Date => StringFormat::Date,
        Format::DateTime => StringFormat::DateTime,
    }
}

impl Definition for StringSchema {
    const WHAT: &'static str = "a string field";
    fn into_read(self, cx: &mut Ctx, ptr: &str) -> Read {
        let (lo, hi) = (self.min_length, self.max_length);
        count_order(cx, ptr, ("minLength", lo), ("maxLength", hi));
        text_limit(cx, ptr, "default", self.default.as_deref());
        let kind = FieldKind::Text {
            min_length: lo.map(|c| c.0),
            max_length: hi.map(|c| c.0),
            format: self.format.map(string_format),
            default: self.default,
        };
        Read::new(cx, ptr, self.title, self.description, kind)
    }
}

impl Definition for NumberSchema {
    const WHAT: &'static str = "a number field";
    fn into_read(self, cx: &mut Ctx, ptr: &str) -> Read {
        if let (Some(a), Some(b)) = (&self.minimum, &self.maximum) {
            if cmp_numbers(a, b) == Some(std::cmp::Ordering::Greater) {
                let msg = format!("minimum {a} is greater than maximum {b}");
                cx.err(&join(ptr, "minimum"), Rule::BoundsOrder, msg);
            }
        }
        let kind = FieldKind::Number {
            integer: self.kind == NumberTag::Integer,
            minimum: self.minimum,
            maximum: self.maximum,
            default: self.default,
        };
        Read::new(cx, ptr, self.title, self.description, kind)
    }
}

impl Definition for BooleanSchema {
    const WHAT: &'static str = "a boolean field";
    fn into_read(self, cx: &mut Ctx, ptr: &str) -> Read {
        let kind = FieldKind::Boolean {
            default: self.default,
        };
        Read::new(cx, ptr, self.title, self.description, kind)
    }
}

impl Definition for UntitledSingleSelectEnumSchema {
    const WHAT: &'static str = "a single-select field";
    fn into_read(self, cx: &mut Ctx, ptr: &str) -> Read {
        let options = untitled(cx, self.values, &join(ptr, "enum"), "enum");
        text_limit(cx, ptr, "default", self.default.as_deref());
        let kind = FieldKind::Single {
            options,
            style: SingleStyle::Untitled,
            default: self.default,
        };
        Read::new(cx, ptr, self.title, self.description, kind)
    }
}

impl Definition for TitledSingleSelectEnumSchema {
    const WHAT: &'static str = "a titled single-select field";
    fn into_read(self, cx: &mut Ctx, ptr: &str) -> Read {
        let options = titled(cx, self.one_of, &join(ptr, "oneOf"), "oneOf");
        text_limit(cx, ptr, "default", self.default.as_deref());
        let kind = FieldKind::Single {
            options,
            style: SingleStyle::Titled,
            default: self.default,
        };
        Read::new(cx, ptr, self.title, self.description, kind)
    }
}

impl Definition for LegacyTitledEnumSchema {
    const WHAT: &'static str = "a legacy titled enum field";
    fn into_read(self, cx: &mut Ctx, ptr: &str) -> Read {
        let n = self.values.len();
        let mut options = untitled(cx, self.values, &join(ptr, "enum"), "enum");
        let nptr = join(ptr, "enumNames");
        match self.enum_names {
            _ if options.is_empty() => {}
            Some(names) if names.len() > MAX_OPTIONS => {
                let msg = format!("{} options exceed the limit of {MAX_OPTIONS}", names.len());
                cx.err(&nptr, Rule::Limits, msg);
            }
            Some(names) if names.len() != n => {
                let msg = format!("enumNames has {} entries but enum has {n}", names.len());
                cx.err(&nptr, Rule::EnumNamesLength, msg);
            }
            Some(names) => {
                for (o, t) in options.iter_mut().zip(names) {
                    o.title = Some(t);
                }
            }
            None => {}
        }
        text_limit(cx, ptr, "default", self.default.as_deref());
        let kind = FieldKind::Single {
            options,
            style: SingleStyle::Legacy,
            default: self.default,
        };
        Read::new(cx, ptr, self.title, self.description, kind)
    }
}

impl Definition for UntitledMultiSelectEnumSchema {
    const WHAT: &'static str = "a multi-select field";
    fn into_read(self, cx: &mut Ctx, ptr: &str) -> Read {
        let eptr = join(&join(ptr, "items"), "enum");
        let options = untitled(cx, self.items.values, &eptr, "items.enum");
        let kind = multi(
            cx,
            ptr,
            (options, false),
            (self.min_items, self.max_items),
            self.default,
        );
        Read::new(cx, ptr, self.title, self.description, kind)
    }
}

impl Definition for TitledMultiSelectEnumSchema {
    const WHAT: &'static str = "a titled multi-select field";
    fn into_read(self, cx: &mut Ctx, ptr: &str) -> Read {
        let aptr = join(&join(ptr, "items"), "anyOf");
        let options = titled(cx, self.items.any_of, &aptr, "items.anyOf");
        let kind = multi(
            cx,
            ptr,
            (options, true),
            (self.min_items, self.max_items),
            self.default,
        );
        Read::new(cx, ptr, self.title, self.description, kind)
    }
}

/// A multi select's kind: its counts in order (`bounds-order`), its default
/// list within the limit.
fn multi(
    cx: &mut Ctx,
    ptr: &str,
    (options, titled): (Vec<Choice>, bool),
    (min_items, max_items): (Option<Count>, Option<Count>),
    default: Option<Vec<String>>,
) -> FieldKind {
    count_order(cx, ptr, ("minItems", min_items), ("maxItems", max_items));
    default_list_limit(cx, ptr, default.as_ref());
    FieldKind::Multi {
        options,
        titled,
        min_items: min_items.map(|c| c.0),
        max_items: max_items.map(|c| c.0),
        default,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// The first violation of reading `schema` at `/rs`: (rule, pointer).
    fn first(schema: Value) -> (String, String) {
        let errs = parse_form_schema(&schema, "/rs").expect_err("invalid");
        (errs[0].rule.as_str().to_owned(), errs[0].pointer())
    }

    /// A form of the one property `a`.
    fn prop(def: Value) -> Value {
        json!({"type": "object", "properties": {"a": def}})
    }

    fn want(rule: &str, ptr: &str) -> (String, String) {
        (rule.to_owned(), ptr.to_owned())
    }

    #[test]
    fn a_keyword_outside_a_definition_is_named_at_itself() {
        let errs = parse_form_schema(&prop(json!({"type": "string", "pattern": "^a"})), "/rs")
            .unwrap_err();
        assert_eq!(errs.len(), 1, "{errs:?}");
        assert_eq!(errs[0].rule, Rule::FormSubset);
        assert_eq!(errs[0].pointer(), "/rs/properties/a/pattern");
        assert_eq!(
            errs[0].message,
            "keyword 'pattern' is not part of the closed subset for a string field \
             (allowed: type, title, description, minLength, maxLength, format, default)"
        );
        let cases = [
            (
                json!({"type": "number", "exclusiveMinimum": 0}),
                "/rs/properties/a/exclusiveMinimum",
            ),
            (
                json!({"type": "string", "enum": ["x"], "enumNames": ["X"], "const": "x"}),
                "/rs/properties/a/const",
            ),
            (
                json!({"type": "string", "oneOf": [{"const": "x", "title": "X", "description": "d"}]}),
                "/rs/properties/a/oneOf/0/description",
            ),
            (
                json!({"type": "array", "items": {"type": "string", "enum": ["x"], "minLength": 1}}),
                "/rs/properties/a/items/minLength",
            ),
            (
                json!({"type": "array", "items": {"anyOf": [{"const": "x", "title": "X"}], "type": "string"}}),
                "/rs/properties/a/items/type",
            ),
        ];
        for (def, ptr) in cases {
            assert_eq!(first(prop(def.clone())), want("form-subset", ptr), "{def}");
        }
        let root = json!({"type": "object", "properties": {}, "title": "T"});
        assert_eq!(first(root), want("form-subset", "/rs/title"));
    }

    #[test]
    fn root_faults_keep_their_rule_and_place() {
        let cases = [
            (json!(5), "/rs"),
            (json!(["object", {}]), "/rs"),
            (json!({"properties": {}}), "/rs"),
            (json!({"type": "object"}), "/rs"),
            (json!({"type": "array", "properties": {}}), "/rs/type"),
            (
                json!({"type": "object", "properties": []}),
                "/rs/properties",
            ),
            (
                json!({"type": "object", "properties": {}, "required": "a"}),
                "/rs/required",
            ),
            (
                json!({"type": "object", "properties": {}, "required": [1]}),
                "/rs/required/0",
            ),
            (
                json!({"type": "object", "properties": {}, "$schema": 1}),
                "/rs/$schema",
            ),
        ];
        for (schema, ptr) in cases {
            assert_eq!(first(schema.clone()), want("form-subset", ptr), "{schema}");
        }
    }

    #[test]
    fn shape_faults_keep_their_rule_and_place() {
        let p = "/rs/properties/a";
        let cases = [
            (prop(json!("string")), p.into()),
            (prop(json!({"title": "no type"})), p.into()),
            (prop(json!({"type": 5})), p.into()),
            (prop(json!({"type": "object"})), format!("{p}/type")),
            (
                prop(json!({"type": "string", "title": 5})),
                format!("{p}/title"),
            ),
            (
                prop(json!({"type": "string", "minLength": -1})),
                format!("{p}/minLength"),
            ),
            (
                prop(json!({"type": "string", "maxLength": null})),
                format!("{p}/maxLength"),
            ),
            (
                prop(json!({"type": "string", "format": "phone"})),
                format!("{p}/format"),
            ),
        ];
        for (schema, ptr) in cases {
            assert_eq!(first(schema.clone()), want("form-subset", &ptr), "{schema}");
        }
    }

    #[test]
    fn select_faults_keep_their_rule_and_place() {
        let p = "/rs/properties/a";
        let cases = [
            (
                prop(json!({"type": "string", "enumNames": ["A"]})),
                format!("{p}/enum"),
            ),
            (
                prop(json!({"type": "string", "enum": "ab"})),
                format!("{p}/enum"),
            ),
            (
                prop(json!({"type": "string", "enum": ["a", 2]})),
                format!("{p}/enum/1"),
            ),
            (
                prop(json!({"type": "string", "oneOf": [{"const": "a"}]})),
                format!("{p}/oneOf/0"),
            ),
            (
                prop(json!({"type": "string", "oneOf": [{"const": 1, "title": "A"}]})),
                format!("{p}/oneOf/0"),
            ),
            (
                prop(json!({"type": "string", "oneOf": ["a"]})),
                format!("{p}/oneOf/0"),
            ),
            (
                prop(json!({"type": "number", "minimum": "1"})),
                format!("{p}/minimum"),
            ),
            (
                prop(json!({"type": "number", "default": "1"})),
                format!("{p}/default"),
            ),
            (
                prop(json!({"type": "boolean", "default": "yes"})),
                format!("{p}/default"),
            ),
            (prop(json!({"type": "array"})), format!("{p}/items")),
            (
                prop(json!({"type": "array", "items": "x"})),
                format!("{p}/items"),
            ),
            // An array in place of an object, even with the right items in order.
            (
                prop(json!({"type": "array", "items": ["string", ["x"]]})),
                format!("{p}/items"),
            ),
            (
                prop(json!({"type": "string", "oneOf": [["x", "X"]]})),
                format!("{p}/oneOf/0"),
            ),
            (
                prop(json!({"type": "array", "items": {"type": "string"}})),
                format!("{p}/items/enum"),
            ),
            (
                prop(json!({"type": "array", "items": {"enum": ["x"]}})),
                format!("{p}/items/type"),
            ),
            (
                prop(json!({"type": "array", "items": {"type": "number", "enum": ["x"]}})),
                format!("{p}/items/type"),
            ),
            (
                prop(json!({"type": "array", "items": {"anyOf": [{"title": "X"}]}})),
                format!("{p}/items/anyOf/0"),
            ),
            (
                prop(
                    json!({"type": "array", "items": {"type": "string", "enum": ["x"]}, "default": "x"}),
                ),
                format!("{p}/default"),
            ),
            (
                prop(
                    json!({"type": "array", "items": {"type": "string", "enum": ["x"]}, "default": [1]}),
                ),
                format!("{p}/default/0"),
            ),
            (
                prop(
                    json!({"type": "array", "items": {"type": "string", "enum": ["x"]}, "minItems": 1.5}),
                ),
                format!("{p}/minItems"),
            ),
        ];
        for (schema, ptr) in cases {
            assert_eq!(first(schema.clone()), want("form-subset", &ptr), "{schema}");
        }
    }

    #[test]
    fn fault_messages_say_what_is_wrong() {
        let msg = |schema: Value| {
            parse_form_schema(&schema, "/rs").unwrap_err()[0]
                .message
                .clone()
        };
        assert_eq!(
            msg(json!(5)),
            "requestedSchema must be an object, found integer `5`"
        );
        assert_eq!(
            msg(json!({"properties": {}})),
            "requestedSchema needs 'type'"
        );
        assert_eq!(
            msg(prop(json!({"type": "string", "minLength": -1}))),
            "'minLength' must be a non-negative integer, found -1"
        );
        assert_eq!(
            msg(prop(json!({"type": "string", "format": "phone"}))),
            "'format' must be one of email, uri, date, date-time, found \"phone\""
        );
        assert_eq!(
            msg(prop(json!({"type": "array"}))),
            "a multi-select field needs 'items'"
        );
        assert_eq!(
            msg(prop(
                json!({"type": "string", "oneOf": [{"const": 1, "title": "A"}]})
            )),
            "a titled option needs a string const and a string title, found integer `1`"
        );
        assert_eq!(
            msg(prop(json!({"type": "string", "oneOf": [{"const": "a", "title": "A", "x": 1}]}))),
            "keyword 'x' is not part of the closed subset for a titled option (allowed: const, title)"
        );
        // Server text in a message is quoted escaped.
        assert_eq!(
            msg(prop(json!({"type": "string", "minLength": "\u{1b}[2J"}))),
            "'minLength' must be a JSON number, found string \"\\u{1b}[2J\""
        );
    }

    #[test]
    fn bounds_out_of_order_are_named_at_the_lower_bound() {
        let p = "/rs/properties/a";
        let cases = [
            (
                json!({"type": "string", "minLength": 3, "maxLength": 2}),
                "minLength",
            ),
            (
                json!({"type": "integer", "minimum": 9007199254740993_u64, "maximum": 9007199254740992_u64}),
                "minimum",
            ),
            (
                json!({"type": "array", "items": {"type": "string", "enum": ["x"]}, "minItems": 2, "maxItems": 1}),
                "minItems",
            ),
        ];
        for (def, key) in cases {
            let ptr = format!("{p}/{key}");
            assert_eq!(
                first(prop(def.clone())),
                want("bounds-order", &ptr),
                "{def}"
            );
        }
        let errs = parse_form_schema(
            &prop(json!({"type": "string", "minLength": 3, "maxLength": 2})),
            "/rs",
        )
        .unwrap_err();
        assert_eq!(errs[0].message, "minLength 3 is greater than maxLength 2");
        // Equal bounds are in order; 5.0 is a count.
        let ok = prop(json!({"type": "string", "minLength": 2.0, "maxLength": 2}));
        let form = parse_form_schema(&ok, "/rs").unwrap();
        assert!(matches!(
            form.fields[0].kind,
            FieldKind::Text {
                min_length: Some(2),
                max_length: Some(2),
                ..
            }
        ));
    }

    #[test]
    fn a_default_that_does_not_fit_is_named_at_the_default() {
        let cases = [
            json!({"type": "string", "minLength": 3, "default": "ab"}),
            json!({"type": "string", "format": "email", "default": "nobody"}),
            json!({"type": "integer", "default": 1.5}),
            json!({"type": "number", "maximum": 10, "default": 11}),
            json!({"type": "string", "enum": ["s", "m"], "default": "xl"}),
            json!({"type": "string", "oneOf": [{"const": "s", "title": "S"}], "default": "S"}),
            json!({"type": "array", "items": {"type": "string", "enum": ["x"]}, "default": ["x", "x"]}),
            json!({"type": "array", "items": {"anyOf": [{"const": "x", "title": "X"}]}, "maxItems": 0, "default": ["x"]}),
        ];
        for def in cases {
            let p = "/rs/properties/a/default";
            assert_eq!(first(prop(def.clone())), want("default-fits", p), "{def}");
        }
        let errs = parse_form_schema(
            &prop(json!({"type": "string", "minLength": 3, "default": "ab"})),
            "/rs",
        )
        .unwrap_err();
        assert_eq!(
            errs[0].message,
            "default does not fit the field: must be at least 3 characters (has 2)"
        );
    }

    #[test]
    fn option_rules_and_required_names() {
        let p = "/rs/properties/a";
        let cases = [
            (
                json!({"type": "string", "enum": []}),
                "enum-unique",
                format!("{p}/enum"),
            ),
            (
                json!({"type": "string", "enum": ["a", "b", "a"]}),
                "enum-unique",
                format!("{p}/enum/2"),
            ),
            (
                json!({"type": "string", "oneOf": [{"const": "a", "title": "A"}, {"const": "a", "title": "B"}]}),
                "enum-unique",
                format!("{p}/oneOf/1"),
            ),
            (
                json!({"type": "array", "items": {"type": "string", "enum": ["a", "a"]}}),
                "enum-unique",
                format!("{p}/items/enum/1"),
            ),
            (
                json!({"type": "array", "items": {"anyOf": []}}),
                "enum-unique",
                format!("{p}/items/anyOf"),
            ),
            (
                json!({"type": "string", "enum": ["a", "b"], "enumNames": ["A"]}),
                "enum-names-length",
                format!("{p}/enumNames"),
            ),
        ];
        for (def, rule, ptr) in cases {
            assert_eq!(first(prop(def.clone())), want(rule, &ptr), "{def}");
        }
        let many: Vec<String> = (0..=MAX_OPTIONS).map(|i| i.to_string()).collect();
        let big = prop(json!({"type": "string", "enum": many}));
        assert_eq!(first(big), want("limits", &format!("{p}/enum")));
        let req = json!({"type": "object", "properties": {"a": {"type": "boolean"}}, "required": ["a", "b", "a"]});
        let errs = parse_form_schema(&req, "/rs").unwrap_err();
        let got: Vec<(&str, String)> = errs
            .iter()
            .map(|e| (e.rule.as_str(), e.pointer()))
            .collect();
        assert_eq!(
            got,
            [
                ("required-exists", "/rs/required/1".to_owned()),
                ("required-exists", "/rs/required/2".to_owned())
            ]
        );
    }

    #[test]
    fn every_kind_reads_into_its_field() {
        let schema = json!({"type": "object", "$schema": "https://json-schema.org/draft/2020-12/schema", "properties": {
            "t": {"type": "string", "title": "T", "format": "date", "default": "2026-11-30"},
            "n": {"type": "integer", "minimum": 1, "default": 2},
            "b": {"type": "boolean", "description": "B", "default": true},
            "u": {"type": "string", "enum": ["x", "y"]},
            "o": {"type": "string", "oneOf": [{"const": "x", "title": "X"}]},
            "l": {"type": "string", "enum": ["x", "y"], "enumNames": ["X", "Y"], "default": "y"},
            "m": {"type": "array", "items": {"type": "string", "enum": ["x"]}, "maxItems": 1},
            "mt": {"type": "array", "items": {"anyOf": [{"const": "x", "title": "X"}]}, "default": ["x"]}
        }, "required": ["t"]});
        let form = parse_form_schema(&schema, "/rs").unwrap();
        let names: Vec<&str> = form.fields.iter().map(|f| f.name.as_str()).collect();
        assert_eq!(names, ["t", "n", "b", "u", "o", "l", "m", "mt"]);
        let t = form.field("t").unwrap();
        assert!(t.required && t.title.as_deref() == Some("T"));
        assert_eq!(
            t.kind,
            FieldKind::Text {
                min_length: None,
                max_length: None,
                format: Some(StringFormat::Date),
                default: Some("2026-11-30".into())
            }
        );
        let FieldKind::Number {
            integer, default, ..
        } = &form.field("n").unwrap().kind
        else {
            panic!("a number")
        };
        assert!(*integer && default.as_ref().and_then(serde_json::Number::as_u64) == Some(2));
        let FieldKind::Single {
            options,
            style,
            default,
        } = &form.field("l").unwrap().kind
        else {
            panic!("a select")
        };
        assert_eq!(*style, SingleStyle::Legacy);
        assert_eq!(options[1].label(), "Y");
        assert_eq!(default.as_deref(), Some("y"));
        let FieldKind::Multi {
            titled, default, ..
        } = &form.field("mt").unwrap().kind
        else {
            panic!("a multi select")
        };
        assert!(*titled && default.as_deref() == Some(&["x".to_owned()][..]));
    }
}
