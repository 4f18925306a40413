//! The state of one field: its value as a person edits it, and how that
//! value becomes a JSON answer value.

use serde_json::{Number, Value};
use tui_input::{Input, InputRequest};

use crate::binding::content::{check_value, OptionIndex};
use crate::binding::{Choice, Field, FieldKind};

/// Why typed text is not a number of a field's type. The words are the
/// ones shown beside the field.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum NumberError {
    /// Not a number at all (`1-2`, `-`).
    #[error("not a number")]
    NotANumber,
    /// A fraction (or an exponent making one) in an integer field.
    #[error("must be a whole number")]
    NotWhole,
    /// Past what an integer field or a finite number can hold.
    #[error("too large")]
    TooLarge,
}

/// Why a JSON value cannot be entered in a field as a person would enter
/// it (scripted answers, plain mode). Option values are server text:
/// sanitise before showing.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EntryError {
    /// A string that is not one of the select's options, with what to give
    /// instead (the value whose title it is, or the values).
    #[error("'{given}' is not one of the options{hint}")]
    NotAnOption { given: String, hint: String },
    /// A number that is not one of a numeric select's options.
    #[error("{0} is not one of the options")]
    NotANumberOption(Number),
    /// An item of a multi select answer that is not a string.
    #[error("every selected item must be a string")]
    ItemNotAString,
    /// An option given twice in a multi select answer.
    #[error("'{0}' is selected twice")]
    SelectedTwice(String),
    /// A value of the wrong JSON type for the widget, e.g. `a string`
    /// in an `integer` field.
    #[error("cannot enter {value} in {} {kind} field", article(kind))]
    WrongKind {
        /// The JSON type given, with its article (`a string`).
        value: &'static str,
        /// The field kind (`integer`, `yes/no`).
        kind: &'static str,
    },
}

/// `an` before a vowel, else `a`.
fn article(word: &str) -> &'static str {
    if word.starts_with(['a', 'e', 'i', 'o', 'u']) {
        "an"
    } else {
        "a"
    }
}

/// Option lists with at least this many options get type-to-filter.
pub const FILTER_MIN_OPTIONS: usize = 10;

/// The cursor and filter of a single or multi select.
#[derive(Debug, Clone, Default)]
pub struct OptionList {
    /// The filter text (only used when [`OptionList::filterable`]).
    pub filter: Input,
    /// Whether the list has type-to-filter (10 options or more).
    pub filterable: bool,
    /// Indices (into the field's options) that match the filter, in order.
    pub matches: Vec<usize>,
    /// Position of the cursor within `matches`.
    pub cursor: usize,
    /// The lowercase filter `matches` was computed for.
    needle: String,
    /// Per option, the lowercase text the filter searches: what the person
    /// sees, the title (the value only where there is no title), as drawn
    /// (computed once, for filterable lists only).
    haystack: Vec<String>,
}

/// The text of an option as the person sees it (the title, else the
/// value, sanitised as drawn), lowercased for the filter.
fn shown_label(o: &Choice) -> String {
    crate::safe_text::display(o.label()).to_lowercase()
}

impl OptionList {
    fn new(options: &[Choice], start: Option<usize>) -> Self {
        let filterable = options.len() >= FILTER_MIN_OPTIONS;
        let haystack = if filterable {
            options.iter().map(shown_label).collect()
        } else {
            Vec::new()
        };
        let mut l = OptionList {
            filter: Input::default(),
            filterable,
            matches: (0..options.len()).collect(),
            cursor: 0,
            needle: String::new(),
            haystack,
        };
        if let Some(s) = start {
            l.cursor = s.min(options.len().saturating_sub(1));
        }
        l
    }

    /// Recompute `matches` after the filter changed: options whose shown
    /// label (the title, else the value) contains the filter, ignoring case;
    /// a hidden value never matches. The cursor stays on the same
    /// option when it still matches, else goes to the first match.
    pub fn refilter(&mut self, options: &[Choice]) {
        let current = self.current();
        let needle = self.filter.value().to_lowercase();
        let hay = &self.haystack;
        let hit = |i: &usize| match hay.get(*i) {
            Some(h) => h.contains(&needle),
            None => options
                .get(*i)
                .is_some_and(|o| shown_label(o).contains(&needle)),
        };
        self.matches = if needle.is_empty() {
            (0..options.len()).collect()
        } else if !self.needle.is_empty() && needle.starts_with(&self.needle) {
            // A longer filter only narrows the previous matches.
            self.matches.iter().copied().filter(hit).collect()
        } else {
            (0..options.len()).filter(hit).collect()
        };
        self.needle = needle;
        self.cursor = current
            .and_then(|c| self.matches.iter().position(|&m| m == c))
            .unwrap_or(0);
    }

    /// The option index under the cursor, if any option matches.
    pub fn current(&self) -> Option<usize> {
        self.matches.get(self.cursor).copied()
    }

    /// Move the cursor by `delta` rows, clamped; returns false when it was
    /// already at the edge in that direction.
    pub fn move_by(&mut self, delta: isize) -> bool {
        if self.matches.is_empty() {
            return false;
        }
        let last = self.matches.len() - 1;
        let new = (self.cursor as isize + delta).clamp(0, last as isize) as usize;
        let moved = new != self.cursor;
        self.cursor = new;
        moved
    }
}

/// A field's value being edited.
#[derive(Debug, Clone)]
pub enum FieldValue {
    /// A string. `set` is false while the field is left out of `content`
    /// (no default and untouched, or cleared); an empty set text sends `""`.
    Text { input: Input, set: bool },
    /// A number or integer being typed; an empty text is not set.
    Number { input: Input },
    /// A boolean; None is not set.
    Boolean(Option<bool>),
    /// A single select: the chosen option index.
    Single {
        selected: Option<usize>,
        list: OptionList,
    },
    /// A multi select: one flag per option; `set` is false while the field
    /// is left out of `content`.
    Multi {
        checked: Vec<bool>,
        set: bool,
        list: OptionList,
    },
}

/// One field of the form: the schema field, its value and whether its
/// message is shown yet.
#[derive(Debug, Clone)]
pub struct FieldState {
    pub field: Field,
    pub value: FieldValue,
    /// The person left the field (or tried to submit): its message shows.
    pub visited: bool,
    /// The person changed the value (plain mode then says "Now …" rather
    /// than "Default …").
    pub touched: bool,
    /// The last [`FieldState::error`] and the value it was computed for:
    /// a value that did not change is not checked again (a long option list
    /// is redrawn every tick).
    checked: std::cell::RefCell<Option<(ValueKey, Option<String>)>>,
}

/// What a field's validation message depends on: its value as edited.
#[derive(Debug, Clone, PartialEq)]
enum ValueKey {
    Text(String, bool),
    Number(String),
    Boolean(Option<bool>),
    Single(Option<usize>),
    Multi(Vec<bool>, bool),
}

impl ValueKey {
    fn of(v: &FieldValue) -> Self {
        match v {
            FieldValue::Text { input, set } => ValueKey::Text(input.value().to_owned(), *set),
            FieldValue::Number { input } => ValueKey::Number(input.value().to_owned()),
            FieldValue::Boolean(b) => ValueKey::Boolean(*b),
            FieldValue::Single { selected, .. } => ValueKey::Single(*selected),
            FieldValue::Multi { checked, set, .. } => ValueKey::Multi(checked.clone(), *set),
        }
    }
}

/// Render a JSON number the way it is typed in a number field.
pub fn number_text(n: &Number) -> String {
    n.to_string()
}

impl FieldState {
    /// The initial state: the default pre-filled (including `0`, `false`
    /// and `""`), else empty and not set.
    pub fn new(field: Field) -> Self {
        let value = match &field.kind {
            FieldKind::Text { default, .. } => FieldValue::Text {
                input: Input::new(default.clone().unwrap_or_default()),
                set: default.is_some(),
            },
            FieldKind::Number { default, .. } => FieldValue::Number {
                input: Input::new(default.as_ref().map(number_text).unwrap_or_default()),
            },
            FieldKind::Boolean { default } => FieldValue::Boolean(*default),
            FieldKind::Single {
                options, default, ..
            } => {
                let selected = default
                    .as_ref()
                    .and_then(|d| options.iter().position(|o| &o.value == d));
                FieldValue::Single {
                    selected,
                    list: OptionList::new(options, selected),
                }
            }
            FieldKind::Multi {
                options, default, ..
            } => {
                let mut checked = vec![false; options.len()];
                let index = OptionIndex::new(options);
                for d in default.iter().flatten() {
                    if let Some(i) = index.position(d) {
                        checked[i] = true;
                    }
                }
                FieldValue::Multi {
                    checked,
                    set: default.is_some(),
                    list: OptionList::new(options, None),
                }
            }
        };
        FieldState {
            field,
            value,
            visited: false,
            touched: false,
            checked: std::cell::RefCell::new(None),
        }
    }

    /// The options of a select field (empty for other kinds).
    pub fn options(&self) -> &[Choice] {
        match &self.field.kind {
            FieldKind::Single { options, .. } | FieldKind::Multi { options, .. } => options,
            _ => &[],
        }
    }

    /// The value to send: Ok(None) when not set, Ok(Some(v)) when set and
    /// well formed, Err(reason) when the typed text is not a number of the
    /// field's type (e.g. `12a` in a number field). Bounds and formats are
    /// checked by [`FieldState::error`].
    pub fn json(&self) -> Result<Option<Value>, NumberError> {
        Ok(Some(match &self.value {
            FieldValue::Text { input, set } => {
                if !set {
                    return Ok(None);
                }
                Value::String(input.value().to_owned())
            }
            FieldValue::Number { input } => {
                let t = input.value().trim();
                if t.is_empty() {
                    return Ok(None);
                }
                let integer = matches!(self.field.kind, FieldKind::Number { integer: true, .. });
                Value::Number(parse_number(t, integer)?)
            }
            FieldValue::Boolean(b) => match b {
                Some(b) => Value::Bool(*b),
                None => return Ok(None),
            },
            FieldValue::Single { selected, .. } => {
                match selected.and_then(|i| self.options().get(i)) {
                    Some(o) => option_json(&self.field, &o.value),
                    None => return Ok(None),
                }
            }
            FieldValue::Multi { checked, set, .. } => {
                if !set {
                    return Ok(None);
                }
                Value::Array(
                    self.options()
                        .iter()
                        .zip(checked)
                        .filter(|(_, c)| **c)
                        .map(|(o, _)| Value::String(o.value.clone()))
                        .collect(),
                )
            }
        }))
    }

    /// The value entered, checked or not: [`FieldState::json`], or, for a
    /// number field whose text is not a number, that text as a string;
    /// None when not set.
    pub fn entered(&self) -> Option<Value> {
        match (self.json(), &self.value) {
            (Ok(v), _) => v,
            (Err(_), FieldValue::Number { input }) => {
                Some(Value::String(input.value().trim().to_owned()))
            }
            (Err(_), _) => None,
        }
    }

    /// The live validation message (the binding's rules), or None when the field is fine. A required field
    /// that is not set gives `required`.
    pub fn error(&self) -> Option<String> {
        let key = ValueKey::of(&self.value);
        if let Some((k, e)) = &*self.checked.borrow() {
            if *k == key {
                return e.clone();
            }
        }
        let e = self.check();
        *self.checked.borrow_mut() = Some((key, e.clone()));
        e
    }

    fn check(&self) -> Option<String> {
        match self.json() {
            Err(e) => Some(e.to_string()),
            Ok(None) if self.field.required => Some("required".into()),
            Ok(None) => None,
            Ok(Some(v)) => check_value(&self.field, &v).err().map(|e| e.to_string()),
        }
    }

    /// Leave the field out of `content` (Ctrl-X; also a scripted `null`).
    pub fn clear(&mut self) {
        self.touched = true;
        match &mut self.value {
            FieldValue::Text { input, set } => {
                input.reset();
                *set = false;
            }
            FieldValue::Number { input } => input.reset(),
            FieldValue::Boolean(b) => *b = None,
            FieldValue::Single { selected, .. } => *selected = None,
            FieldValue::Multi { checked, set, .. } => {
                checked.iter_mut().for_each(|c| *c = false);
                *set = false;
            }
        }
    }

    /// Apply an editing request to a text or number input. Number fields
    /// (integer ones too) accept only digits, `-`, `+`, `.`, `e`, `E`; other
    /// characters are refused with a notice. In an integer field a typed
    /// fraction is kept as typed and the field is marked invalid (`must be a
    /// whole number`, shown at once by [`FieldState::format_error`]), so
    /// typing never silently makes a different number (`3.0` stays `3.0`,
    /// not `30`). Returns a notice when a character
    /// was refused.
    pub fn edit(&mut self, req: InputRequest) -> Option<String> {
        let integer = matches!(self.field.kind, FieldKind::Number { integer: true, .. });
        let lines = self.takes_line_breaks();
        match &mut self.value {
            FieldValue::Text { .. } if req == InputRequest::InsertChar('\n') && !lines => {
                Some("a line break does not belong in this field".into())
            }
            // A control character typed (one the terminal did not read as
            // a key) never enters a value.
            _ if matches!(req, InputRequest::InsertChar(c) if c.is_control() && c != '\n') => None,
            FieldValue::Text { input, .. }
                if matches!(req, InputRequest::InsertChar(_))
                    && input.value().chars().count() >= MAX_TEXT_CHARS =>
            {
                Some(too_long_notice())
            }
            FieldValue::Text { input, set } => {
                if input.handle(req).is_some_and(|c| c.value) {
                    *set = true;
                    self.touched = true;
                }
                None
            }
            FieldValue::Number { input } => {
                if let InputRequest::InsertChar(c) = req {
                    if !number_char(c) {
                        return Some(if integer && c == ',' {
                            "whole numbers only".into()
                        } else {
                            format!("'{}' is not part of a number", c.escape_debug())
                        });
                    }
                }
                if input.handle(req).is_some_and(|c| c.value) {
                    self.touched = true;
                }
                None
            }
            _ => None,
        }
    }

    /// The message of a number field whose text is not a number of its type
    /// (`must be a whole number`, `not a number`, `too large`), shown beside
    /// the field at once, while typing; None for other fields, an empty text
    /// or a lone sign being typed.
    pub fn format_error(&self) -> Option<String> {
        let FieldValue::Number { input } = &self.value else {
            return None;
        };
        let t = input.value().trim();
        if matches!(t, "" | "-" | "+") {
            return None;
        }
        self.json().err().map(|e| e.to_string())
    }

    /// Whether the field's value may hold line breaks: a text field
    /// without a `format` (an e-mail address, a URI or a date is one line).
    pub fn takes_line_breaks(&self) -> bool {
        matches!(self.field.kind, FieldKind::Text { format: None, .. })
    }

    /// Insert pasted text into a text input at the cursor, made fit for a
    /// value first (a key
    /// the terminal encoded in the paste is read as that key, no control
    /// character is kept). A line break (`\r\n`, `\r` or `\n`) is
    /// kept as `\n` in a field that [takes line
    /// breaks](FieldState::takes_line_breaks) and becomes a space in the
    /// others. In a number
    /// field the paste (without surrounding white space) is taken whole only
    /// when the text it makes is a number of the field's type; else it is
    /// refused whole with a notice (`2.5` pasted in an integer field is not
    /// turned into `25`).
    pub fn paste(&mut self, text: &str) -> Option<String> {
        let text = &super::entered::clean_entered(text);
        let integer = matches!(self.field.kind, FieldKind::Number { integer: true, .. });
        if let FieldValue::Number { input } = &mut self.value {
            let t = text.trim();
            let mut next = input.clone();
            for c in t.chars() {
                next.handle(InputRequest::InsertChar(c));
            }
            let ok =
                t.chars().all(number_char) && parse_number(next.value().trim(), integer).is_ok();
            if !ok {
                let shown: String = t.chars().take(24).collect();
                let more = if t.chars().count() > 24 { "…" } else { "" };
                let what = if integer {
                    "a whole number"
                } else {
                    "a number"
                };
                return Some(format!("paste refused: '{shown}{more}' is not {what}"));
            }
            if next.value() != input.value() {
                *input = next;
                self.touched = true;
            }
            return None;
        }
        let line_break = if self.takes_line_breaks() { '\n' } else { ' ' };
        let FieldValue::Text { input, set } = &mut self.value else {
            return None;
        };
        // The text with its line breaks made one `\n` (or a space), cut to
        // what the field has room for, put in at the cursor in one step
        // (a long paste costs one pass, not one pass per character).
        let value = input.value();
        let room = MAX_TEXT_CHARS.saturating_sub(value.chars().count());
        let mut taken = String::new();
        let (mut n, mut cut, mut prev_cr) = (0usize, false, false);
        for c in text.chars() {
            if c == '\n' && prev_cr {
                prev_cr = false;
                continue;
            }
            prev_cr = c == '\r';
            if n == room {
                cut = true;
                break;
            }
            taken.push(if c == '\n' || c == '\r' {
                line_break
            } else {
                c
            });
            n += 1;
        }
        if n > 0 {
            let at = input.cursor();
            let split = value.char_indices().nth(at).map_or(value.len(), |(i, _)| i);
            let next = format!("{}{taken}{}", &value[..split], &value[split..]);
            *input = Input::new(next).with_cursor(at + n);
            *set = true;
            self.touched = true;
        }
        cut.then(too_long_notice)
    }

    /// Set the value from a JSON value, as a person would set it on the form
    /// (scripted answers, plain mode). `null` clears the field.
    ///
    /// Errors: [`EntryError`] when the value cannot be entered in this
    /// widget (wrong type, an option that is not offered).
    pub fn set_json(&mut self, v: &Value) -> Result<(), EntryError> {
        if v.is_null() {
            self.clear();
            return Ok(());
        }
        if let (true, Value::Number(n)) = (self.field.extra.numeric_options, v) {
            return self.set_numeric_option(n);
        }
        self.touched = true;
        let integer = matches!(self.field.kind, FieldKind::Number { integer: true, .. });
        let index = match &self.field.kind {
            FieldKind::Single { options, .. } | FieldKind::Multi { options, .. } => {
                OptionIndex::new(options)
            }
            _ => OptionIndex::new(&[]),
        };
        match (&mut self.value, v) {
            (FieldValue::Text { input, set }, Value::String(s)) => {
                *input = Input::new(s.clone());
                *set = true;
            }
            (FieldValue::Number { input }, Value::Number(n)) => {
                let text = match n.as_f64() {
                    Some(f)
                        if integer
                            && f.fract() == 0.0
                            && f.abs() < 9.0e15
                            && !n.is_i64()
                            && !n.is_u64() =>
                    {
                        format!("{}", f as i64)
                    }
                    _ => number_text(n),
                };
                *input = Input::new(text);
            }
            (FieldValue::Boolean(b), Value::Bool(x)) => *b = Some(*x),
            (FieldValue::Single { selected, list }, Value::String(s)) => {
                let Some(i) = index.position(s) else {
                    return Err(not_an_option(&self.field.kind, s));
                };
                *selected = Some(i);
                list.cursor = list.matches.iter().position(|&m| m == i).unwrap_or(0);
            }
            (FieldValue::Multi { checked, set, .. }, Value::Array(items)) => {
                let mut new = vec![false; checked.len()];
                for it in items {
                    let Some(s) = it.as_str() else {
                        return Err(EntryError::ItemNotAString);
                    };
                    let Some(i) = index.position(s) else {
                        return Err(not_an_option(&self.field.kind, s));
                    };
                    if new[i] {
                        return Err(EntryError::SelectedTwice(s.to_owned()));
                    }
                    new[i] = true;
                }
                *checked = new;
                *set = true;
            }
            (_, v) => {
                return Err(EntryError::WrongKind {
                    value: json_kind(v),
                    kind: kind_name(&self.field.kind),
                });
            }
        }
        Ok(())
    }
}

impl FieldState {
    /// Choose the option of a numeric select whose number equals `n`.
    fn set_numeric_option(&mut self, n: &Number) -> Result<(), EntryError> {
        self.touched = true;
        let x = n.as_f64();
        let found = self
            .options()
            .iter()
            .position(|o| o.value.parse::<f64>().ok() == x);
        let Some(i) = found else {
            return Err(EntryError::NotANumberOption(n.clone()));
        };
        if let FieldValue::Single { selected, list } = &mut self.value {
            *selected = Some(i);
            list.cursor = list.matches.iter().position(|&m| m == i).unwrap_or(0);
        }
        Ok(())
    }
}

/// The value sent for the option `value` of a select: the string, or for a
/// select of numbers (compatible schema policy) the number it spells.
fn option_json(field: &Field, value: &str) -> Value {
    if field.extra.numeric_options {
        if let Ok(n) = serde_json::from_str::<Number>(value) {
            return Value::Number(n);
        }
    }
    Value::String(value.to_owned())
}

/// Characters a number field takes as typed.
fn number_char(c: char) -> bool {
    c.is_ascii_digit() || matches!(c, '-' | '+' | '.' | 'e' | 'E')
}

fn json_kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// A short name of a field kind (`text`, `integer`, `number`, `yes/no`,
/// `choice`, `checklist`).
pub fn kind_name(k: &FieldKind) -> &'static str {
    match k {
        FieldKind::Text { .. } => "text",
        FieldKind::Number { integer: true, .. } => "integer",
        FieldKind::Number { .. } => "number",
        FieldKind::Boolean { .. } => "yes/no",
        FieldKind::Single { .. } => "choice",
        FieldKind::Multi { .. } => "checklist",
    }
}

/// Parse typed number text into a JSON number: an integer when written
/// without fraction or exponent, else a finite f64. Integer fields refuse
/// fractions and exponents with a non-whole value.
///
/// Errors: [`NumberError`] (`not a number`, `must be a whole number`,
/// `too large`).
pub fn parse_number(t: &str, integer: bool) -> Result<Number, NumberError> {
    let body = t.strip_prefix(['+', '-']).unwrap_or(t);
    let plain = !body.is_empty() && body.chars().all(|c| c.is_ascii_digit());
    let t2 = t.strip_prefix('+').unwrap_or(t);
    if plain {
        if let Ok(i) = t2.parse::<i64>() {
            return Ok(Number::from(i));
        }
        if let Ok(u) = t2.parse::<u64>() {
            return Ok(Number::from(u));
        }
        if integer {
            return Err(NumberError::TooLarge);
        }
    }
    let f: f64 = t2.parse().map_err(|_| {
        if integer {
            NumberError::NotWhole
        } else {
            NumberError::NotANumber
        }
    })?;
    if !f.is_finite() {
        return Err(NumberError::TooLarge);
    }
    if integer {
        if f.fract() != 0.0 {
            return Err(NumberError::NotWhole);
        }
        if f.abs() < 9.0e15 {
            return Ok(Number::from(f as i64));
        }
        return Err(NumberError::TooLarge);
    }
    Number::from_f64(f).ok_or(NumberError::NotANumber)
}

/// The refusal of `given` in a select of `kind`, with [`option_hint`].
fn not_an_option(kind: &FieldKind, given: &str) -> EntryError {
    let options: &[crate::binding::Choice] = match kind {
        FieldKind::Single { options, .. } | FieldKind::Multi { options, .. } => options,
        _ => &[],
    };
    EntryError::NotAnOption {
        given: given.to_owned(),
        hint: option_hint(options, given),
    }
}

/// What to give instead of `given`, which no option's value is: the value
/// of the option whose title it is (a script that answered with what the
/// screen shows), else the values (the first eight, and how many in all).
/// Server text: the caller sanitises it with the rest of the message.
pub fn option_hint(options: &[crate::binding::Choice], given: &str) -> String {
    if let Some(o) = options.iter().find(|o| o.title.as_deref() == Some(given)) {
        return format!(
            " (it is the title of the option whose value is '{}': give the value)",
            o.value
        );
    }
    if options.is_empty() {
        return String::new();
    }
    let shown: Vec<String> = options
        .iter()
        .take(8)
        .map(|o| format!("'{}'", o.value))
        .collect();
    let more = if options.len() > 8 {
        format!(", … ({} in all)", options.len())
    } else {
        String::new()
    };
    format!(" (the values are {}{more})", shown.join(", "))
}

/// The most characters a text field takes from typing, pasting or an
/// external editor: 65,536, the limit on any one string of a request
/// ([`crate::binding::limits::MAX_STRING_CHARS`]). It keeps each answer
/// well inside one event and each key's work on the value small.
pub const MAX_TEXT_CHARS: usize = crate::binding::limits::MAX_STRING_CHARS;

/// What the form says when text was refused or cut at [`MAX_TEXT_CHARS`].
pub fn too_long_notice() -> String {
    "a text answer holds at most 65,536 characters: the rest was not taken".into()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn many(n: usize) -> FieldState {
        let options: Vec<Choice> = (0..n)
            .map(|i| Choice {
                value: format!("v{i}"),
                title: None,
            })
            .collect();
        let default = Some(options.iter().rev().map(|o| o.value.clone()).collect());
        FieldState::new(Field {
            name: "tags".into(),
            title: None,
            description: None,
            required: true,
            extra: Default::default(),
            kind: FieldKind::Multi {
                options,
                titled: false,
                min_items: Some(n as u64),
                max_items: None,
                default,
            },
        })
    }

    #[test]
    fn a_large_default_checks_every_option_and_errors_follow_edits() {
        let mut f = many(20_000);
        let FieldValue::Multi { checked, .. } = &f.value else {
            panic!("multi")
        };
        assert!(checked.iter().all(|c| *c));
        assert_eq!(f.error(), None);
        assert_eq!(f.error(), None, "cached, same answer");
        // Unchecking one (however the value is changed) is seen at once.
        if let FieldValue::Multi { checked, .. } = &mut f.value {
            checked[19_999] = false;
        }
        assert_eq!(
            f.error().as_deref(),
            Some("choose at least 20000 items (has 19999)")
        );
        assert_eq!(
            f.set_json(&serde_json::json!(["v1", "v2", "v1"])),
            Err(EntryError::SelectedTwice("v1".into()))
        );
        assert_eq!(
            f.set_json(&serde_json::json!(["v20000"])),
            Err(EntryError::NotAnOption {
                given: "v20000".into(),
                hint: " (the values are 'v0', 'v1', 'v2', 'v3', 'v4', 'v5', 'v6', 'v7', … (20000 in all))"
                    .into()
            })
        );
        let all: Vec<String> = (0..20_000).map(|i| format!("v{i}")).collect();
        assert_eq!(f.set_json(&serde_json::json!(all)), Ok(()));
        assert_eq!(f.error(), None);
    }

    #[test]
    fn entry_errors_read_as_sentences() {
        let shown = |e: EntryError| e.to_string();
        assert_eq!(
            shown(EntryError::NotAnOption {
                given: "v9".into(),
                hint: String::new()
            }),
            "'v9' is not one of the options"
        );
        assert_eq!(
            shown(EntryError::NotANumberOption(Number::from(7))),
            "7 is not one of the options"
        );
        assert_eq!(
            shown(EntryError::ItemNotAString),
            "every selected item must be a string"
        );
        assert_eq!(
            shown(EntryError::WrongKind {
                value: "a boolean",
                kind: "text"
            }),
            "cannot enter a boolean in a text field"
        );
        assert_eq!(
            shown(EntryError::WrongKind {
                value: "a string",
                kind: "integer"
            }),
            "cannot enter a string in an integer field"
        );
        assert_eq!(NumberError::NotWhole.to_string(), "must be a whole number");
        assert_eq!(NumberError::NotANumber.to_string(), "not a number");
        assert_eq!(NumberError::TooLarge.to_string(), "too large");
    }

    #[test]
    fn numbers_parse() {
        assert_eq!(parse_number("5", true), Ok(Number::from(5)));
        assert_eq!(parse_number("-12", false), Ok(Number::from(-12)));
        assert_eq!(parse_number("+3", true), Ok(Number::from(3)));
        assert_eq!(
            parse_number("2.5", false),
            Number::from_f64(2.5).ok_or(NumberError::NotANumber)
        );
        assert_eq!(
            parse_number("1e3", false),
            Number::from_f64(1000.0).ok_or(NumberError::NotANumber)
        );
        assert_eq!(parse_number("2.5", true), Err(NumberError::NotWhole));
        assert_eq!(parse_number("1-2", false), Err(NumberError::NotANumber));
        assert_eq!(parse_number("-", false), Err(NumberError::NotANumber));
        assert_eq!(parse_number("1e999", false), Err(NumberError::TooLarge));
        assert_eq!(
            parse_number("99999999999999999999", true),
            Err(NumberError::TooLarge)
        );
        assert_eq!(
            parse_number("99999999999999999999", false),
            Number::from_f64(1e20).ok_or(NumberError::NotANumber)
        );
        assert_eq!(parse_number("+", false), Err(NumberError::NotANumber));
    }
}
