//! Checking an answer (`ElicitResult.content`) against the requesting form,
//! read as closed: value types, integer vs number,
//! inclusive bounds, lengths in Unicode code points, the formats email, uri,
//! date and date-time, enum membership by value (never by title),
//! multi-select items and counts, no keys the form did not ask for, every
//! required field present.
//!
//! The form model (`crate::form`) calls [`check_value`] for live field
//! validation, so a person and the binding apply the same rules.

use std::sync::OnceLock;

use serde_json::{Map, Number, Value};

use super::form_model::{Choice, Field, FieldKind, FormSchema, StringFormat};
use super::numbers::{cmp_numbers, is_integer};
use super::policy::ExtraError;
use super::violation::{join, Rule, Violation};

/// The `jsonschema` format checker of `email` (true) or `uri` (false),
/// built on first use (one at a time: a build checks its schema against
/// the meta-schema).
fn format_validator(email: bool) -> &'static jsonschema::Validator {
    static V: [OnceLock<jsonschema::Validator>; 2] = [const { OnceLock::new() }; 2];
    let (i, name) = if email { (0, "email") } else { (1, "uri") };
    V[i].get_or_init(|| {
        jsonschema::options()
            .should_validate_formats(true)
            .build(&serde_json::json!({"type": "string", "format": name}))
            .expect("a one-keyword format schema always builds")
    })
}

/// Whether `s` is valid for `format`: RFC 5321 address and RFC 3986
/// absolute URI by the `jsonschema` crate's format checkers; RFC 3339
/// full-date and date-time by the same rules written out
/// ([`super::rfc3339`]), so reading an event's `time` builds no validator.
pub fn format_ok(format: StringFormat, s: &str) -> bool {
    match format {
        StringFormat::Date => super::rfc3339::is_date(s),
        StringFormat::DateTime => super::rfc3339::is_date_time(s),
        StringFormat::Email | StringFormat::Uri => {
            format_validator(format == StringFormat::Email).is_valid(&Value::String(s.to_owned()))
        }
    }
}

/// The options of a select indexed by value (value → position), built
/// once in linear time; small lists are searched in place instead.
#[derive(Debug, Clone)]
pub struct OptionIndex<'a> {
    options: &'a [Choice],
    by_value: Option<std::collections::HashMap<&'a str, usize>>,
}

impl<'a> OptionIndex<'a> {
    /// Lists longer than this get a hash index.
    const SCAN_MAX: usize = 16;

    /// Index `options` (the first position wins for a repeated value).
    pub fn new(options: &'a [Choice]) -> Self {
        let by_value = (options.len() > Self::SCAN_MAX).then(|| {
            let mut m = std::collections::HashMap::with_capacity(options.len());
            for (i, o) in options.iter().enumerate() {
                m.entry(o.value.as_str()).or_insert(i);
            }
            m
        });
        OptionIndex { options, by_value }
    }

    /// The position of the option whose value is `value`.
    pub fn position(&self, value: &str) -> Option<usize> {
        match &self.by_value {
            Some(m) => m.get(value).copied(),
            None => self.options.iter().position(|o| o.value == value),
        }
    }
}

fn plural(n: u64, one: &str) -> String {
    if n == 1 {
        format!("1 {one}")
    } else {
        format!("{n} {one}s")
    }
}

/// The example shown when a string is not of its format.
fn format_example(f: StringFormat) -> &'static str {
    match f {
        StringFormat::Email => "an e-mail address, like name@example.com",
        StringFormat::Uri => "an absolute URI, like https://example.com/",
        StringFormat::Date => "a date, like 2026-11-30",
        StringFormat::DateTime => "a date and time, like 2026-11-30T09:00:00Z",
    }
}

/// Why a value does not fit its field. Its text is one sentence suitable to
/// show beside the field (e.g. `must be at least 2 characters (has 1)`).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ValueError {
    /// A JSON type the field does not take.
    #[error("must be {expected}, found {found}")]
    WrongType {
        expected: &'static str,
        found: &'static str,
    },
    /// Text shorter than `minLength` (code points).
    #[error("must be at least {} (has {has})", plural(*.min, "character"))]
    TooShort { min: u64, has: u64 },
    /// Text longer than `maxLength` (code points).
    #[error("must be at most {} (has {has})", plural(*.max, "character"))]
    TooLong { max: u64, has: u64 },
    /// Text not of the field's format.
    #[error("must be {}", format_example(*.0))]
    Format(StringFormat),
    /// A fraction for an integer field.
    #[error("must be a whole number")]
    NotWhole,
    /// Below the inclusive `minimum`.
    #[error("must be at least {0}")]
    BelowMinimum(Number),
    /// Above the inclusive `maximum`.
    #[error("must be at most {0}")]
    AboveMaximum(Number),
    /// A value that is not one of the select's options.
    #[error("'{0}' is not one of the options")]
    NotAnOption(String),
    /// A number that is not one of a select of numbers' options.
    #[error("{0} is not one of the options")]
    NumberNotAnOption(Number),
    /// A select of numbers that is not a single select (never read so).
    #[error("must be one of the options")]
    NotASelect,
    /// A multi select item that is not a string.
    #[error("every selected item must be a string")]
    ItemNotString,
    /// A multi select item given twice.
    #[error("'{0}' is selected twice")]
    SelectedTwice(String),
    /// Fewer items than `minItems`.
    #[error("choose at least {} (has {has})", plural(*.min, "item"))]
    TooFewItems { min: u64, has: u64 },
    /// More items than `maxItems`.
    #[error("choose at most {} (has {has})", plural(*.max, "item"))]
    TooManyItems { max: u64, has: u64 },
    /// An assertion beyond the subset (compatible schema policy).
    #[error(transparent)]
    Extra(#[from] ExtraError),
}

/// Check one answer value against its field.
///
/// Errors: what is wrong ([`ValueError`], whose text suits a message beside
/// the field).
pub fn check_value(field: &Field, value: &Value) -> Result<(), ValueError> {
    if !field.extra.is_empty() {
        return check_with_extra(field, value);
    }
    match (&field.kind, value) {
        (
            FieldKind::Text {
                min_length,
                max_length,
                format,
                ..
            },
            Value::String(s),
        ) => check_text(s, *min_length, *max_length, *format),
        (
            FieldKind::Number {
                integer,
                minimum,
                maximum,
                ..
            },
            Value::Number(n),
        ) => check_number(n, *integer, minimum.as_ref(), maximum.as_ref()),
        (FieldKind::Boolean { .. }, Value::Bool(_)) => Ok(()),
        (FieldKind::Single { options, .. }, Value::String(s)) => {
            if options.iter().any(|o| &o.value == s) {
                Ok(())
            } else {
                Err(ValueError::NotAnOption(s.clone()))
            }
        }
        (
            FieldKind::Multi {
                options,
                min_items,
                max_items,
                ..
            },
            Value::Array(items),
        ) => check_multi(options, items, *min_items, *max_items),
        (kind, v) => Err(ValueError::WrongType {
            expected: expected(kind),
            found: found(v),
        }),
    }
}

/// Lengths in code points, then the format.
fn check_text(
    s: &str,
    min: Option<u64>,
    max: Option<u64>,
    format: Option<StringFormat>,
) -> Result<(), ValueError> {
    let has = s.chars().count() as u64;
    if let Some(min) = min.filter(|m| has < *m) {
        return Err(ValueError::TooShort { min, has });
    }
    if let Some(max) = max.filter(|m| has > *m) {
        return Err(ValueError::TooLong { max, has });
    }
    match format {
        Some(f) if !format_ok(f, s) => Err(ValueError::Format(f)),
        _ => Ok(()),
    }
}

/// Whole for an integer field, then the inclusive bounds, compared exactly
/// (integers as integers, f64 only when a float is involved).
fn check_number(
    n: &Number,
    integer: bool,
    minimum: Option<&Number>,
    maximum: Option<&Number>,
) -> Result<(), ValueError> {
    use std::cmp::Ordering::{Greater, Less};
    if integer && !is_integer(n) {
        return Err(ValueError::NotWhole);
    }
    if let Some(min) = minimum.filter(|m| cmp_numbers(n, m).is_none_or(|o| o == Less)) {
        return Err(ValueError::BelowMinimum(min.clone()));
    }
    if let Some(max) = maximum.filter(|m| cmp_numbers(n, m).is_none_or(|o| o == Greater)) {
        return Err(ValueError::AboveMaximum(max.clone()));
    }
    Ok(())
}

/// Every item a string, an option, and chosen once; then the counts.
fn check_multi(
    options: &[Choice],
    items: &[Value],
    min: Option<u64>,
    max: Option<u64>,
) -> Result<(), ValueError> {
    // Options indexed once per check: membership and uniqueness
    // in linear time (20,000 options and items are common enough).
    let index = OptionIndex::new(options);
    let mut seen = std::collections::HashSet::with_capacity(items.len());
    for it in items {
        let Some(s) = it.as_str() else {
            return Err(ValueError::ItemNotString);
        };
        if index.position(s).is_none() {
            return Err(ValueError::NotAnOption(s.to_owned()));
        }
        if !seen.insert(s) {
            return Err(ValueError::SelectedTwice(s.to_owned()));
        }
    }
    let has = items.len() as u64;
    if let Some(min) = min.filter(|m| has < *m) {
        return Err(ValueError::TooFewItems { min, has });
    }
    if let Some(max) = max.filter(|m| has > *m) {
        return Err(ValueError::TooManyItems { max, has });
    }
    Ok(())
}

/// [`check_value`] for a field read under the compatible schema policy:
/// a numeric select compares numbers, then the subset's checks, then the
/// extra assertions ([`FieldExtra::check`](super::policy::FieldExtra::check)).
fn check_with_extra(field: &Field, value: &Value) -> Result<(), ValueError> {
    let mut plain = field.clone();
    plain.extra = Default::default();
    if field.extra.numeric_options {
        let Value::Number(n) = value else {
            return Err(ValueError::WrongType {
                expected: "a number",
                found: found(value),
            });
        };
        let FieldKind::Single { options, .. } = &field.kind else {
            return Err(ValueError::NotASelect);
        };
        // Compared exactly, as every number of the binding is.
        return match options.iter().find(|o| {
            o.value
                .parse::<Number>()
                .is_ok_and(|v| cmp_numbers(n, &v) == Some(std::cmp::Ordering::Equal))
        }) {
            Some(o) => check_value(&plain, &Value::String(o.value.clone())),
            None => Err(ValueError::NumberNotAnOption(n.clone())),
        };
    }
    check_value(&plain, value)?;
    Ok(field.extra.check(value)?)
}

fn expected(kind: &FieldKind) -> &'static str {
    match kind {
        FieldKind::Text { .. } | FieldKind::Single { .. } => "a string",
        FieldKind::Number { integer: true, .. } => "an integer",
        FieldKind::Number { .. } => "a number",
        FieldKind::Boolean { .. } => "true or false",
        FieldKind::Multi { .. } => "an array of strings",
    }
}

fn found(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// Check a whole `content` object against the form (read as closed).
/// Pointers are `/content/<name>` (relative to the ElicitResult).
///
/// Rules: `content-closed` (a key the form did not ask for),
/// `content-required` (a required field missing), `content-value` (a value
/// that does not fit its field).
pub fn check_content(form: &FormSchema, content: &Map<String, Value>) -> Vec<Violation> {
    let mut errs = Vec::new();
    for (k, v) in content {
        let ptr = join("/content", k);
        match form.field(k) {
            None => errs.push(Violation::new(
                ptr,
                Rule::ContentClosed,
                format!("'{k}' is not a field of the requested form"),
            )),
            Some(f) => {
                if let Err(m) = check_value(f, v) {
                    errs.push(Violation::new(
                        ptr,
                        Rule::ContentValue,
                        format!("'{k}' {m}"),
                    ));
                }
            }
        }
    }
    for f in &form.fields {
        if f.required && !content.contains_key(&f.name) {
            errs.push(Violation::new(
                join("/content", &f.name),
                Rule::ContentRequired,
                format!("required field '{}' is missing", f.name),
            ));
        }
    }
    errs
}
