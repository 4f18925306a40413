//! The closed form subset as types: one serde struct per definition of MCP
//! 2025-11-25 (`schema.ts`: `StringSchema`, `NumberSchema`, `BooleanSchema`,
//! the three single selects, the two multi selects) and the
//! `requestedSchema` object itself, each closed (`deny_unknown_fields`).
//!
//! What a type cannot say (required names exist, options unique, `enumNames`
//! as long as `enum`, defaults that fit, bounds in order, the limits) is
//! checked by [`super::form_schema`] after these are read.

use serde::de::{self, DeserializeOwned, IgnoredAny, Visitor};
use serde::{Deserialize, Deserializer};
use serde_json::Number;

/// The `format` names of `StringSchema`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(
    rename_all = "kebab-case",
    expecting = "one of email, uri, date, date-time"
)]
pub(crate) enum Format {
    Email,
    Uri,
    Date,
    DateTime,
}

/// `"string"`, the `type` of the string-valued definitions.
#[derive(Debug, Clone, Copy, Deserialize)]
#[serde(expecting = "\"string\"")]
pub(crate) enum StringTag {
    #[serde(rename = "string")]
    String,
}

/// `"number"` or `"integer"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase", expecting = "\"number\" or \"integer\"")]
pub(crate) enum NumberTag {
    Number,
    Integer,
}

/// `"boolean"`.
#[derive(Debug, Clone, Copy, Deserialize)]
#[serde(expecting = "\"boolean\"")]
pub(crate) enum BooleanTag {
    #[serde(rename = "boolean")]
    Boolean,
}

/// `"array"`.
#[derive(Debug, Clone, Copy, Deserialize)]
#[serde(expecting = "\"array\"")]
pub(crate) enum ArrayTag {
    #[serde(rename = "array")]
    Array,
}

/// `"object"`.
#[derive(Debug, Clone, Copy, Deserialize)]
#[serde(expecting = "\"object\"")]
pub(crate) enum ObjectTag {
    #[serde(rename = "object")]
    Object,
}

/// A count (`minLength`, `maxItems`, ...): a non-negative integer, written
/// `5` or `5.0` (JSON Schema's integer).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Count(pub u64);

impl<'de> Deserialize<'de> for Count {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let n = Number::deserialize(d)?;
        let whole = n.as_u64().or_else(|| {
            n.as_f64()
                .filter(|f| *f >= 0.0 && f.fract() == 0.0 && *f < 1e15)
                .map(|f| f as u64)
        });
        whole.map(Count).ok_or_else(|| {
            let shown = n.to_string();
            de::Error::invalid_value(de::Unexpected::Other(&shown), &"a non-negative integer")
        })
    }
}

/// Any JSON object, not read further (`properties`, whose entries are read
/// one by one).
#[derive(Debug, Clone, Copy)]
pub(crate) struct AnyObject;

impl<'de> Deserialize<'de> for AnyObject {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = AnyObject;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<A: de::MapAccess<'de>>(self, mut m: A) -> Result<AnyObject, A::Error> {
                while m.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(AnyObject)
            }
        }
        d.deserialize_map(V)
    }
}

/// `requestedSchema`: `{$schema?, type: "object", properties, required?}`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, expecting = "an object")]
pub(crate) struct RequestedSchema {
    #[serde(rename = "$schema")]
    pub _schema: Option<String>,
    #[serde(rename = "type")]
    pub _type: ObjectTag,
    #[serde(rename = "properties")]
    pub _properties: AnyObject,
    pub required: Option<Vec<String>>,
}

/// `StringSchema`: a text field.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase", expecting = "an object")]
pub(crate) struct StringSchema {
    #[serde(rename = "type")]
    pub _type: StringTag,
    pub title: Option<String>,
    pub description: Option<String>,
    pub min_length: Option<Count>,
    pub max_length: Option<Count>,
    pub format: Option<Format>,
    pub default: Option<String>,
}

/// `NumberSchema`: a number or integer field.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, expecting = "an object")]
pub(crate) struct NumberSchema {
    #[serde(rename = "type")]
    pub kind: NumberTag,
    pub title: Option<String>,
    pub description: Option<String>,
    pub minimum: Option<Number>,
    pub maximum: Option<Number>,
    pub default: Option<Number>,
}

/// `BooleanSchema`: a yes/no field.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, expecting = "an object")]
pub(crate) struct BooleanSchema {
    #[serde(rename = "type")]
    pub _type: BooleanTag,
    pub title: Option<String>,
    pub description: Option<String>,
    pub default: Option<bool>,
}

/// `UntitledSingleSelectEnumSchema`: `enum` of strings.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, expecting = "an object")]
pub(crate) struct UntitledSingleSelectEnumSchema {
    #[serde(rename = "type")]
    pub _type: StringTag,
    pub title: Option<String>,
    pub description: Option<String>,
    #[serde(rename = "enum")]
    pub values: Vec<String>,
    pub default: Option<String>,
}

/// One `{const, title}` option of a titled select.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, expecting = "a {const, title} object")]
pub(crate) struct TitledOption {
    #[serde(rename = "const")]
    pub value: String,
    pub title: String,
}

/// `TitledSingleSelectEnumSchema`: `oneOf` of `{const, title}`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase", expecting = "an object")]
pub(crate) struct TitledSingleSelectEnumSchema {
    #[serde(rename = "type")]
    pub _type: StringTag,
    pub title: Option<String>,
    pub description: Option<String>,
    pub one_of: Vec<TitledOption>,
    pub default: Option<String>,
}

/// `LegacyTitledEnumSchema`: `enum` with the legacy `enumNames`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase", expecting = "an object")]
pub(crate) struct LegacyTitledEnumSchema {
    #[serde(rename = "type")]
    pub _type: StringTag,
    pub title: Option<String>,
    pub description: Option<String>,
    #[serde(rename = "enum")]
    pub values: Vec<String>,
    pub enum_names: Option<Vec<String>>,
    pub default: Option<String>,
}

/// The `items` of an untitled multi select: `{type: "string", enum}`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, expecting = "an object")]
pub(crate) struct UntitledItems {
    #[serde(rename = "type")]
    pub _type: StringTag,
    #[serde(rename = "enum")]
    pub values: Vec<String>,
}

/// The `items` of a titled multi select: `{anyOf: [{const, title}...]}`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase", expecting = "an object")]
pub(crate) struct TitledItems {
    pub any_of: Vec<TitledOption>,
}

/// `UntitledMultiSelectEnumSchema`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase", expecting = "an object")]
pub(crate) struct UntitledMultiSelectEnumSchema {
    #[serde(rename = "type")]
    pub _type: ArrayTag,
    pub title: Option<String>,
    pub description: Option<String>,
    pub min_items: Option<Count>,
    pub max_items: Option<Count>,
    pub items: UntitledItems,
    pub default: Option<Vec<String>>,
}

/// `TitledMultiSelectEnumSchema`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase", expecting = "an object")]
pub(crate) struct TitledMultiSelectEnumSchema {
    #[serde(rename = "type")]
    pub _type: ArrayTag,
    pub title: Option<String>,
    pub description: Option<String>,
    pub min_items: Option<Count>,
    pub max_items: Option<Count>,
    pub items: TitledItems,
    pub default: Option<Vec<String>>,
}

/// The keys of a closed definition, as its struct names them (so the
/// compatible policy keeps exactly what the reader accepts).
pub(crate) fn keys_of<T: DeserializeOwned>() -> &'static [&'static str] {
    match T::deserialize(KeyNames) {
        Err(Found(Some(keys))) => keys,
        _ => &[],
    }
}

/// A deserializer that reads nothing: asked for a struct, it returns the
/// struct's key names as its error.
struct KeyNames;

#[derive(Debug)]
struct Found(Option<&'static [&'static str]>);

impl std::fmt::Display for Found {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:?}", self.0)
    }
}

impl std::error::Error for Found {}

impl de::Error for Found {
    fn custom<T: std::fmt::Display>(_: T) -> Self {
        Found(None)
    }
}

impl<'de> Deserializer<'de> for KeyNames {
    type Error = Found;

    fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Found> {
        Err(Found(None))
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        fields: &'static [&'static str],
        _: V,
    ) -> Result<V::Value, Found> {
        Err(Found(Some(fields)))
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf option unit unit_struct newtype_struct seq tuple
        tuple_struct map enum identifier ignored_any
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_definition_has_the_keys_of_schema_ts() {
        let t = "type";
        assert_eq!(
            keys_of::<StringSchema>(),
            [
                t,
                "title",
                "description",
                "minLength",
                "maxLength",
                "format",
                "default"
            ]
        );
        assert_eq!(
            keys_of::<NumberSchema>(),
            [t, "title", "description", "minimum", "maximum", "default"]
        );
        assert_eq!(
            keys_of::<BooleanSchema>(),
            [t, "title", "description", "default"]
        );
        assert_eq!(
            keys_of::<UntitledSingleSelectEnumSchema>(),
            [t, "title", "description", "enum", "default"]
        );
        assert_eq!(
            keys_of::<TitledSingleSelectEnumSchema>(),
            [t, "title", "description", "oneOf", "default"]
        );
        assert_eq!(
            keys_of::<LegacyTitledEnumSchema>(),
            [t, "title", "description", "enum", "enumNames", "default"]
        );
        let multi = [
            t,
            "title",
            "description",
            "minItems",
            "maxItems",
            "items",
            "default",
        ];
        assert_eq!(keys_of::<UntitledMultiSelectEnumSchema>(), multi);
        assert_eq!(keys_of::<TitledMultiSelectEnumSchema>(), multi);
        assert_eq!(keys_of::<TitledOption>(), ["const", "title"]);
        assert_eq!(
            keys_of::<RequestedSchema>(),
            ["$schema", t, "properties", "required"]
        );
    }

    #[test]
    fn counts_are_whole_and_not_negative() {
        let c = |s: &str| serde_json::from_str::<Count>(s).ok();
        assert_eq!(c("5"), Some(Count(5)));
        assert_eq!(c("5.0"), Some(Count(5)));
        assert_eq!(c("5.5"), None);
        assert_eq!(c("-1"), None);
        assert_eq!(c("\"5\""), None);
    }
}
