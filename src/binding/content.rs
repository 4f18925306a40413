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

use serde_json::{Map, Value};

use super::form_schema::{
    cmp_numbers, is_integer, Choice, Field, FieldKind, FormSchema, StringFormat,
};
use super::violation::{join, Rule, Violation};

fn format_validators() -> &'static [jsonschema::Validator; 4] {
    static V: OnceLock<[jsonschema::Validator; 4]> = OnceLock::new();
    V.get_or_init(|| {
        let build = |f: &str| {
            jsonschema::options()
                .should_validate_formats(true)
                .build(&serde_json::json!({"type": "string", "format": f}))
                .expect("a one-keyword format schema always builds")
        };
        [
            build("email"),
            build("uri"),
            build("date"),
            build("date-time"),
        ]
    })
}

/// Whether `s` is valid for `format` (the `jsonschema` crate's format
/// checkers: RFC 5321 address, RFC 3986 absolute URI, RFC 3339 full-date and
/// date-time).
pub fn format_ok(format: StringFormat, s: &str) -> bool {
    let v = format_validators();
    let i = match format {
        StringFormat::Email => 0,
        StringFormat::Uri => 1,
        StringFormat::Date => 2,
        StringFormat::DateTime => 3,
    };
    v[i].is_valid(&Value::String(s.to_owned()))
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

/// Check one answer value against its field.
///
/// Errors: one sentence saying what is wrong, suitable to show beside the
/// field (e.g. `must be at least 2 characters (has 1)`).
pub fn check_value(field: &Field, value: &Value) -> Result<(), String> {
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
        ) => {
            let n = s.chars().count() as u64;
            if let Some(min) = min_length {
                if n < *min {
                    return Err(format!(
                        "must be at least {} (has {n})",
                        plural(*min, "character")
                    ));
                }
            }
            if let Some(max) = max_length {
                if n > *max {
                    return Err(format!(
                        "must be at most {} (has {n})",
                        plural(*max, "character")
                    ));
                }
            }
            if let Some(f) = format {
                if !format_ok(*f, s) {
                    return Err(match f {
                        StringFormat::Email => {
                            "must be an e-mail address, like name@example.com".into()
                        }
                        StringFormat::Uri => {
                            "must be an absolute URI, like https://example.com/".into()
                        }
                        StringFormat::Date => "must be a date, like 2026-11-30".into(),
                        StringFormat::DateTime => {
                            "must be a date and time, like 2026-11-30T09:00:00Z".into()
                        }
                    });
                }
            }
            Ok(())
        }
        (
            FieldKind::Number {
                integer,
                minimum,
                maximum,
                ..
            },
            Value::Number(n),
        ) => {
            if *integer && !is_integer(n) {
                return Err("must be a whole number".into());
            }
            // Exact: integers as integers, f64 only when a float is involved.
            use std::cmp::Ordering::{Greater, Less};
            if let Some(min) = minimum {
                if cmp_numbers(n, min).is_none_or(|o| o == Less) {
                    return Err(format!("must be at least {min}"));
                }
            }
            if let Some(max) = maximum {
                if cmp_numbers(n, max).is_none_or(|o| o == Greater) {
                    return Err(format!("must be at most {max}"));
                }
            }
            Ok(())
        }
        (FieldKind::Boolean { .. }, Value::Bool(_)) => Ok(()),
        (FieldKind::Single { options, .. }, Value::String(s)) => {
            if options.iter().any(|o| &o.value == s) {
                Ok(())
            } else {
                Err(format!("'{s}' is not one of the options"))
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
        ) => {
            // Options indexed once per check: membership and uniqueness
            // in linear time (20,000 options and items are common enough).
            let index = OptionIndex::new(options);
            let mut seen = std::collections::HashSet::with_capacity(items.len());
            for it in items {
                let Some(s) = it.as_str() else {
                    return Err("every selected item must be a string".into());
                };
                if index.position(s).is_none() {
                    return Err(format!("'{s}' is not one of the options"));
                }
                if !seen.insert(s) {
                    return Err(format!("'{s}' is selected twice"));
                }
            }
            let n = items.len() as u64;
            if let Some(min) = min_items {
                if n < *min {
                    return Err(format!(
                        "choose at least {} (has {n})",
                        plural(*min, "item")
                    ));
                }
            }
            if let Some(max) = max_items {
                if n > *max {
                    return Err(format!("choose at most {} (has {n})", plural(*max, "item")));
                }
            }
            Ok(())
        }
        (kind, v) => Err(format!("must be {}, found {}", expected(kind), found(v))),
    }
}

/// [`check_value`] for a field read under the compatible schema policy:
/// a numeric select compares numbers, then the subset's checks, then the
/// extra assertions ([`FieldExtra::check`](super::policy::FieldExtra::check)).
fn check_with_extra(field: &Field, value: &Value) -> Result<(), String> {
    let mut plain = field.clone();
    plain.extra = Default::default();
    if field.extra.numeric_options {
        let Value::Number(n) = value else {
            return Err(format!("must be a number, found {}", found(value)));
        };
        let FieldKind::Single { options, .. } = &field.kind else {
            return Err("must be one of the options".into());
        };
        // Compared exactly, as every number of the binding is.
        return match options.iter().find(|o| {
            o.value
                .parse::<serde_json::Number>()
                .is_ok_and(|v| cmp_numbers(n, &v) == Some(std::cmp::Ordering::Equal))
        }) {
            Some(o) => check_value(&plain, &Value::String(o.value.clone())),
            None => Err(format!("{n} is not one of the options")),
        };
    }
    check_value(&plain, value)?;
    field.extra.check(value)
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

#[cfg(test)]
mod tests {
    use super::super::form_schema::cmp_numbers;
    use serde_json::Number;
    use std::cmp::Ordering::{Equal, Greater, Less};

    fn n(s: &str) -> Number {
        serde_json::from_str(s).unwrap()
    }

    #[test]
    fn numbers_compare_exactly() {
        let cases = [
            ("9007199254740993", "9007199254740992", Greater),
            ("9007199254740992", "9007199254740993", Less),
            ("9007199254740993", "9007199254740992.0", Greater),
            ("9007199254740992.0", "9007199254740993", Less),
            ("18446744073709551615", "18446744073709551614", Greater),
            ("18446744073709551615", "-9223372036854775808", Greater),
            ("-9223372036854775808", "-9223372036854775807", Less),
            ("3", "2.5", Greater),
            ("-3", "-2.5", Less),
            ("2", "2.0", Equal),
            ("-2", "-2.0", Equal),
            ("18446744073709551615", "1e300", Less),
            ("-1", "-1e300", Greater),
            ("0.5", "0.25", Greater),
        ];
        for (a, b, want) in cases {
            assert_eq!(cmp_numbers(&n(a), &n(b)), Some(want), "{a} vs {b}");
        }
    }
}
