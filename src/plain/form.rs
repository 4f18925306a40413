//! Plain-mode sentences for form fields and the parsing of typed answers.
//! Pure functions over the form model ([`crate::form`]): what a field is
//! called, what it takes, what it holds now, and what a typed line means.
//! Every piece of server text goes through [`crate::safe_text`].

use serde_json::{Map, Value};

use crate::binding::{Choice, FieldKind, StringFormat};
use crate::form::{FieldState, Form};
use crate::safe_text::display;

/// What a typed line means for a field.
#[derive(Debug, Clone, PartialEq)]
pub enum Typed {
    /// An empty line: keep what the field holds.
    Keep,
    /// A single `-`: leave the field out of the content. (In a text
    /// field, `""` alone sets an empty text.)
    Clear,
    /// A `?`: say the field's description again.
    Help,
    /// A value to set, as the scripted answers set it.
    Set(Value),
}

fn plural(n: u64, one: &str) -> String {
    if n == 1 {
        format!("1 {one}")
    } else {
        format!("{n} {one}s")
    }
}

fn range(what: &str, lo: Option<String>, hi: Option<String>, unit: &str) -> String {
    match (lo, hi) {
        (Some(a), Some(b)) => format!("{what} from {a} to {b}{unit}"),
        (Some(a), None) => format!("{what} of at least {a}{unit}"),
        (None, Some(b)) => format!("{what} of at most {b}{unit}"),
        (None, None) => what.to_owned(),
    }
}

fn format_phrase(f: StringFormat) -> &'static str {
    match f {
        StringFormat::Email => "an e-mail address, like name@example.com",
        StringFormat::Uri => "an absolute web address, like https://example.com/",
        StringFormat::Date => "a date, like 2026-11-30",
        StringFormat::DateTime => "a date and time, like 2026-11-30T09:30:00Z",
    }
}

/// What the field takes, as a phrase: `whole number from 1 to 500`, `text
/// of at most 80 characters, an e-mail address`, `yes or no`, `one of 3
/// choices`, `any of 5 choices, choose 1 to 3`.
pub fn kind_phrase(k: &FieldKind) -> String {
    match k {
        FieldKind::Text {
            min_length,
            max_length,
            format,
            ..
        } => {
            let mut s = match (min_length, max_length) {
                (None, None) => "text".to_owned(),
                (a, b) => range(
                    "text",
                    a.map(|x| x.to_string()),
                    b.map(|x| x.to_string()),
                    // The unit agrees with the last number said.
                    if b.or(*a) == Some(1) {
                        " character"
                    } else {
                        " characters"
                    },
                ),
            };
            if let Some(f) = format {
                s.push_str(", ");
                s.push_str(format_phrase(*f));
            }
            s
        }
        FieldKind::Number {
            integer,
            minimum,
            maximum,
            ..
        } => range(
            if *integer { "whole number" } else { "number" },
            minimum.as_ref().map(|n| n.to_string()),
            maximum.as_ref().map(|n| n.to_string()),
            "",
        ),
        FieldKind::Boolean { .. } => "yes or no".into(),
        FieldKind::Single { options, .. } => format!("one of {} choices", options.len()),
        FieldKind::Multi {
            options,
            min_items,
            max_items,
            ..
        } => {
            let n = options.len();
            match (min_items, max_items) {
                (Some(a), Some(b)) => format!("any of {n} choices, choose {a} to {b}"),
                (Some(a), None) => {
                    format!("any of {n} choices, choose at least {}", plural(*a, "item"))
                }
                (None, Some(b)) => {
                    format!("any of {n} choices, choose at most {}", plural(*b, "item"))
                }
                (None, None) => format!("any of {n} choices"),
            }
        }
    }
}

/// What a person sees for one option: its title, made safe.
fn option_label(o: &Choice) -> String {
    display(o.label()).into_owned()
}

/// The field's value as spoken: `"Ada"` (quoted text), `5`, `yes`, an
/// option's title, a list of titles or `no items`. None when not set.
pub fn spoken_value(st: &FieldState) -> Option<String> {
    let v = st.json().ok()??;
    Some(spoken(st, &v))
}

fn spoken(st: &FieldState, v: &Value) -> String {
    let title = |s: &str| {
        st.options()
            .iter()
            .find(|o| o.value == s)
            .map(option_label)
            .unwrap_or_else(|| display(s).into_owned())
    };
    match v {
        Value::String(s) if matches!(st.field.kind, FieldKind::Single { .. }) => title(s),
        Value::String(s) => format!("\"{}\"", display(s)),
        Value::Bool(true) => "yes".into(),
        Value::Bool(false) => "no".into(),
        Value::Array(items) if items.is_empty() => "no items".into(),
        Value::Array(items) => items
            .iter()
            .map(|i| title(i.as_str().unwrap_or_default()))
            .collect::<Vec<_>>()
            .join(", "),
        other => display(&other.to_string()).into_owned(),
    }
}

/// The sentences that introduce field `i` (0-based) of `n`: label,
/// required or optional, what it takes, the description, the numbered
/// options, the current value and what Enter does.
pub fn field_sentences(st: &FieldState, i: usize, n: usize) -> Vec<String> {
    let f = &st.field;
    let need = if f.required { "required" } else { "optional" };
    let mut out = vec![format!(
        "Field {} of {n}: {}, {need}, {}.",
        i + 1,
        display(f.label()),
        kind_phrase(&f.kind)
    )];
    if let Some(d) = &f.description {
        // Blank lines are left out before the marking, so every line said
        // carries words.
        let d = d
            .lines()
            .filter(|l| !l.trim().is_empty())
            .collect::<Vec<_>>();
        out.extend(super::server_words(
            "Field description from the server",
            "Description continues",
            &d.join("\n"),
        ));
    }
    let opts = st.options();
    for (k, o) in opts.iter().enumerate() {
        out.push(format!("{}. {}", k + 1, option_label(o)));
    }
    out.push(match &f.kind {
        FieldKind::Boolean { .. } => "Type y for yes or n for no.".into(),
        FieldKind::Single { .. } => "Type the number or the title of your choice.".into(),
        FieldKind::Multi { .. } => {
            "Type the numbers of your choices separated by commas, like 1,3, or none for no items."
                .into()
        }
        _ => "Type your answer.".into(),
    });
    out.push(keep_sentence(st));
    out
}

/// What Enter does now, and how to leave an optional field out.
pub fn keep_sentence(st: &FieldState) -> String {
    let untouched_default = !st.touched && st.field.default_value().is_some();
    let clear = if st.field.required {
        ""
    } else {
        " Type a single - to leave it out."
    };
    match spoken_value(st) {
        Some(v) if untouched_default => format!("Default {v}. Press Enter to keep {v}.{clear}"),
        Some(v) => format!("Now {v}. Press Enter to keep it.{clear}"),
        None if st.field.required => "An answer is required.".into(),
        None => "Press Enter to leave it out.".into(),
    }
}

/// The option a typed word names: its number (1-based), or its title or
/// value, ignoring case and surrounding spaces.
fn pick(options: &[Choice], word: &str) -> Option<usize> {
    let w = word.trim();
    // The number said before each option comes first; a number that is
    // not one of them may still be a title ("10" among "5" and "10").
    if let Ok(k) = w.parse::<usize>() {
        if (1..=options.len()).contains(&k) {
            return Some(k - 1);
        }
    }
    let lw = w.to_lowercase();
    options
        .iter()
        .position(|o| o.label().to_lowercase() == lw)
        .or_else(|| options.iter().position(|o| o.value.to_lowercase() == lw))
}

/// Why a typed line is not a value of its field; each message is a
/// sentence for the person (typed text passes through the sanitizer).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TypedError {
    /// `-` at a required field.
    #[error("this field is required and cannot be left out")]
    Required,
    /// A yes/no field got something else.
    #[error("type y for yes or n for no")]
    NotYesNo,
    /// A choice number out of range.
    #[error("there is no choice {number}; type a number from 1 to {count}")]
    NoSuchNumber {
        /// The number as typed.
        number: String,
        /// How many choices there are.
        count: usize,
    },
    /// Text that is no choice's title or value.
    #[error("\"{}\" is not one of the choices; type a number from 1 to {count}", display(.text))]
    NotAChoice {
        /// The text as typed (sanitized when shown).
        text: String,
        /// How many choices there are.
        count: usize,
    },
    /// The same choice twice in a multi-select line.
    #[error("choice {0} is given twice")]
    Twice(usize),
    /// Not a number of the field's kind (the form's own sentence).
    #[error(transparent)]
    Number(#[from] crate::form::field::NumberError),
}

/// What `line` means for the field.
///
/// Errors: [`TypedError`], why the line is not a value of this field
/// (`must be a whole number`, `there is no choice 7`); bounds and formats
/// are checked afterwards by the form's live check.
pub fn parse_typed(st: &FieldState, line: &str) -> Result<Typed, TypedError> {
    let t = line.trim();
    if line.is_empty() {
        return Ok(Typed::Keep);
    }
    if t == "-" {
        return if st.field.required {
            Err(TypedError::Required)
        } else {
            Ok(Typed::Clear)
        };
    }
    let is_text = matches!(st.field.kind, FieldKind::Text { .. });
    if t == "?" && !is_text {
        return Ok(Typed::Help);
    }
    match &st.field.kind {
        // Two double quotes alone: an empty text (Enter keeps the value).
        FieldKind::Text { .. } if t == "\"\"" => Ok(Typed::Set(Value::String(String::new()))),
        FieldKind::Text { .. } => Ok(Typed::Set(Value::String(line.to_owned()))),
        FieldKind::Number { integer, .. } => crate::form::field::parse_number(t, *integer)
            .map(|n| Typed::Set(Value::Number(n)))
            .map_err(TypedError::Number),
        FieldKind::Boolean { .. } => match t.to_lowercase().as_str() {
            "y" | "yes" | "true" => Ok(Typed::Set(Value::Bool(true))),
            "n" | "no" | "false" => Ok(Typed::Set(Value::Bool(false))),
            _ => Err(TypedError::NotYesNo),
        },
        FieldKind::Single { options, .. } => match pick(options, t) {
            Some(k) => Ok(Typed::Set(Value::String(options[k].value.clone()))),
            None => Err(no_such_choice(t, options.len())),
        },
        FieldKind::Multi { options, .. } => parse_multi(options, t),
    }
}

fn no_such_choice(t: &str, count: usize) -> TypedError {
    if t.parse::<usize>().is_ok() {
        TypedError::NoSuchNumber {
            number: t.to_owned(),
            count,
        }
    } else {
        TypedError::NotAChoice {
            text: t.to_owned(),
            count,
        }
    }
}

fn parse_multi(options: &[Choice], t: &str) -> Result<Typed, TypedError> {
    if t.eq_ignore_ascii_case("none") {
        return Ok(Typed::Set(Value::Array(Vec::new())));
    }
    // One title may itself hold commas: try the whole line first.
    let words: Vec<&str> = match pick(options, t) {
        Some(_) => vec![t],
        None => t
            .split(',')
            .flat_map(|w| {
                let w = w.trim();
                // "1 3" (numbers with spaces) counts like "1,3".
                if w.split_whitespace().all(|x| x.parse::<usize>().is_ok()) {
                    w.split_whitespace().collect::<Vec<_>>()
                } else {
                    vec![w]
                }
            })
            .filter(|w| !w.is_empty())
            .collect(),
    };
    let mut out: Vec<Value> = Vec::new();
    for w in words {
        let k = pick(options, w).ok_or_else(|| no_such_choice(w, options.len()))?;
        let v = Value::String(options[k].value.clone());
        if out.contains(&v) {
            return Err(TypedError::Twice(k + 1));
        }
        out.push(v);
    }
    // The content lists the items in option order, as the form does.
    out.sort_by_key(|v| {
        options
            .iter()
            .position(|o| Value::String(o.value.clone()) == *v)
    });
    Ok(Typed::Set(Value::Array(out)))
}

/// The review step: the exact content that will be sent, one line per
/// field in form order (number, label, the JSON value sent and, for
/// choices, the titles shown), then the fields left out.
pub fn review_lines(form: &Form, content: &Map<String, Value>) -> Vec<String> {
    let mut out = vec!["Review: this exact content will be sent as an accept.".to_owned()];
    let mut left_out = Vec::new();
    for (i, st) in form.fields().iter().enumerate() {
        let label = display(st.field.label()).into_owned();
        match content.get(&st.field.name) {
            Some(v) => {
                // The JSON that is sent, with one escape style for
                // everything unsafe on a terminal (as the result writer's).
                let sent = crate::safe_text::json_line(v);
                let shown = spoken(st, v);
                // Choices whose titles are their values need no "shown as".
                let bare = match v {
                    Value::String(s) => display(s).into_owned(),
                    Value::Array(a) if !a.is_empty() => a
                        .iter()
                        .map(|i| display(i.as_str().unwrap_or_default()).into_owned())
                        .collect::<Vec<_>>()
                        .join(", "),
                    _ => shown.clone(),
                };
                let extra = match &st.field.kind {
                    FieldKind::Single { .. } | FieldKind::Multi { .. } if shown != bare => {
                        format!(", shown as {shown}")
                    }
                    _ => String::new(),
                };
                out.push(format!("{}. {label}: {sent}{extra}.", i + 1));
            }
            None => left_out.push(format!("{}. {label}", i + 1)),
        }
    }
    if content.is_empty() {
        out.push("The content is empty.".into());
    }
    if !left_out.is_empty() {
        out.push(format!("Left out: {}.", left_out.join("; ")));
    }
    out
}
