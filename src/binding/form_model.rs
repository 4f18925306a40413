//! The form model: the fields of a validated `requestedSchema`, as the form,
//! the terminal front ends and the answer checks use them. Reading a schema
//! into this model is [`super::form_schema`]'s work; checking a value
//! against a field is [`super::content`]'s.

use serde_json::{Number, Value};

use super::policy::FieldExtra;

/// String formats of the subset.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StringFormat {
    /// `email`: an RFC 5321 address.
    Email,
    /// `uri`: an RFC 3986 absolute URI.
    Uri,
    /// `date`: an RFC 3339 full-date.
    Date,
    /// `date-time`: an RFC 3339 date-time.
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
}

/// One option of a select: the `value` sent on the wire and the `title` shown
/// (None for an untitled enum).
#[derive(Debug, Clone, PartialEq)]
pub struct Choice {
    /// The value sent in `content`.
    pub value: String,
    /// The label shown, when the option has one.
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
    /// The label, when the schema gives one.
    pub title: Option<String>,
    /// Help text, when the schema gives one.
    pub description: Option<String>,
    /// Listed in `required`.
    pub required: bool,
    /// What the field takes, and its constraints.
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
    /// The fields, in schema order.
    pub fields: Vec<Field>,
    /// Keywords of the requested schema outside the closed subset that were
    /// ignored for drawing (pointers relative to `requestedSchema`; only
    /// under the compatible schema policy).
    pub outside_subset: Vec<String>,
    /// The schema's own `title`, when it was ignored for drawing (in
    /// `outside_subset`): as given (unsanitized), for the line that says
    /// what the form does not use.
    pub title: Option<String>,
    /// The schema's own `description`, likewise.
    pub description: Option<String>,
}

impl FormSchema {
    /// The field named `name`.
    pub fn field(&self, name: &str) -> Option<&Field> {
        self.fields.iter().find(|f| f.name == name)
    }
}
