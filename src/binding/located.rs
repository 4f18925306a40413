//! Reading a JSON value into a serde type while keeping the place of the
//! first fault: a path of keys and indexes that becomes a JSON Pointer.
//!
//! serde_json's own `from_value` says what is wrong but not where; the form
//! subset reader must name the place (`/requestedSchema/properties/age/minimum`),
//! so the value is walked by this deserializer, which records the key or
//! index being read and leaves it in place when a fault stops the walk.

use std::cell::RefCell;
use std::fmt;

use serde::de::{self, DeserializeOwned, DeserializeSeed, Unexpected, Visitor};
use serde_json::{Number, Value};

use super::violation::join;

/// One reference token of a fault's path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Token<'v> {
    /// An object key.
    Key(&'v str),
    /// An array index.
    Index(usize),
}

/// What is wrong at the fault's place.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum FaultKind {
    /// A key the closed definition does not have; `allowed` are its keys.
    UnknownKey {
        key: String,
        allowed: &'static [&'static str],
    },
    /// A key the definition requires is absent (the path names the object).
    MissingKey(&'static str),
    /// A value of the wrong type, or outside the values allowed.
    Invalid { found: String, expected: String },
    /// Anything else serde reports.
    Other(String),
}

/// The first fault met while reading a value: where and what.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Fault<'v> {
    /// From the value read down to the faulty place.
    pub path: Vec<Token<'v>>,
    pub kind: FaultKind,
}

impl Fault<'_> {
    /// The pointer of the first `len` tokens of the path under `base`.
    pub fn pointer(&self, base: &str, len: usize) -> String {
        self.path
            .iter()
            .take(len)
            .fold(base.to_owned(), |p, t| match t {
                Token::Key(k) => join(&p, k),
                Token::Index(i) => join(&p, &i.to_string()),
            })
    }
}

/// Read `v` as a `T`. Errors: the first fault, with its path.
pub(crate) fn read<T: DeserializeOwned>(v: &Value) -> Result<T, Fault<'_>> {
    let path = RefCell::new(Vec::new());
    T::deserialize(Node { v, path: &path }).map_err(|DeError(kind)| Fault {
        path: path.into_inner(),
        kind,
    })
}

/// The error of the walk: a [`FaultKind`] (the path is kept beside it).
#[derive(Debug)]
struct DeError(FaultKind);

impl fmt::Display for DeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}", self.0)
    }
}

impl std::error::Error for DeError {}

/// How a fault names a value it did not expect.
fn found(u: Unexpected<'_>) -> String {
    match u {
        Unexpected::Unit => "null".into(),
        Unexpected::Map => "an object".into(),
        Unexpected::Seq => "an array".into(),
        other => other.to_string(),
    }
}

fn invalid(u: Unexpected<'_>, exp: &dyn de::Expected) -> DeError {
    let expected = exp.to_string().replace("a sequence", "an array");
    DeError(FaultKind::Invalid {
        found: found(u),
        expected,
    })
}

impl de::Error for DeError {
    fn custom<T: fmt::Display>(msg: T) -> Self {
        DeError(FaultKind::Other(msg.to_string()))
    }
    fn invalid_type(u: Unexpected<'_>, exp: &dyn de::Expected) -> Self {
        invalid(u, exp)
    }
    fn invalid_value(u: Unexpected<'_>, exp: &dyn de::Expected) -> Self {
        invalid(u, exp)
    }
    fn unknown_variant(variant: &str, expected: &'static [&'static str]) -> Self {
        DeError(FaultKind::Invalid {
            found: format!("{variant:?}"),
            expected: format!("one of {}", expected.join(", ")),
        })
    }
    fn unknown_field(field: &str, expected: &'static [&'static str]) -> Self {
        DeError(FaultKind::UnknownKey {
            key: field.to_owned(),
            allowed: expected,
        })
    }
    fn missing_field(field: &'static str) -> Self {
        DeError(FaultKind::MissingKey(field))
    }
}

type Path<'p, 'v> = &'p RefCell<Vec<Token<'v>>>;

/// One value of the walk and the shared path.
struct Node<'p, 'v> {
    v: &'v Value,
    path: Path<'p, 'v>,
}

fn visit_number<'de, V: Visitor<'de>>(n: &Number, visitor: V) -> Result<V::Value, DeError> {
    if let Some(u) = n.as_u64() {
        visitor.visit_u64(u)
    } else if let Some(i) = n.as_i64() {
        visitor.visit_i64(i)
    } else {
        visitor.visit_f64(n.as_f64().unwrap_or(f64::NAN))
    }
}

fn unexpected(v: &Value) -> Unexpected<'_> {
    match v {
        Value::Null => Unexpected::Unit,
        Value::Bool(b) => Unexpected::Bool(*b),
        Value::Number(n) => match (n.as_u64(), n.as_i64()) {
            (Some(u), _) => Unexpected::Unsigned(u),
            (None, Some(i)) => Unexpected::Signed(i),
            _ => Unexpected::Float(n.as_f64().unwrap_or(f64::NAN)),
        },
        Value::String(s) => Unexpected::Str(s),
        Value::Array(_) => Unexpected::Seq,
        Value::Object(_) => Unexpected::Map,
    }
}

impl<'de> de::Deserializer<'de> for Node<'_, '_> {
    type Error = DeError;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        match self.v {
            Value::Null => visitor.visit_unit(),
            Value::Bool(b) => visitor.visit_bool(*b),
            Value::Number(n) => visit_number(n, visitor),
            Value::String(s) => visitor.visit_str(s),
            Value::Array(a) => visitor.visit_seq(Items {
                iter: a.iter().enumerate(),
                path: self.path,
            }),
            Value::Object(m) => visitor.visit_map(Entries {
                iter: m.iter(),
                value: None,
                path: self.path,
            }),
        }
    }

    /// A key that is present has a value: `null` is not "absent".
    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        visitor.visit_some(self)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, DeError> {
        match self.v {
            Value::String(s) => visitor.visit_enum(de::value::StrDeserializer::<DeError>::new(s)),
            other => Err(de::Error::invalid_type(unexpected(other), &visitor)),
        }
    }

    /// A struct is an object only (serde also reads one from an array, by
    /// position, which no closed definition allows).
    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, DeError> {
        match self.v {
            Value::Object(_) => self.deserialize_any(visitor),
            other => Err(de::Error::invalid_type(unexpected(other), &visitor)),
        }
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, DeError> {
        visitor.visit_newtype_struct(self)
    }

    /// A value nobody reads is not walked.
    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        visitor.visit_unit()
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf unit unit_struct seq tuple tuple_struct map identifier
    }
}

/// The items of an array, each read under its index.
struct Items<'p, 'v> {
    iter: std::iter::Enumerate<std::slice::Iter<'v, Value>>,
    path: Path<'p, 'v>,
}

impl<'de> de::SeqAccess<'de> for Items<'_, '_> {
    type Error = DeError;

    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, DeError> {
        let Some((i, v)) = self.iter.next() else {
            return Ok(None);
        };
        self.path.borrow_mut().push(Token::Index(i));
        let out = seed.deserialize(Node { v, path: self.path })?;
        self.path.borrow_mut().pop();
        Ok(Some(out))
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.iter.len())
    }
}

/// The entries of an object, each key and value read under the key.
struct Entries<'p, 'v> {
    iter: serde_json::map::Iter<'v>,
    value: Option<&'v Value>,
    path: Path<'p, 'v>,
}

impl<'de> de::MapAccess<'de> for Entries<'_, '_> {
    type Error = DeError;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, DeError> {
        let Some((k, v)) = self.iter.next() else {
            return Ok(None);
        };
        self.value = Some(v);
        // Pushed before the key is read: an unknown key is reported at itself.
        self.path.borrow_mut().push(Token::Key(k));
        seed.deserialize(de::value::StrDeserializer::<DeError>::new(k))
            .map(Some)
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, DeError> {
        let Some(v) = self.value.take() else {
            return Err(de::Error::custom("a value asked for before its key"));
        };
        let out = seed.deserialize(Node { v, path: self.path })?;
        self.path.borrow_mut().pop();
        Ok(out)
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.iter.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;
    use serde_json::json;

    #[derive(Debug, Deserialize, PartialEq)]
    #[serde(deny_unknown_fields)]
    struct Inner {
        a: String,
        b: Option<u64>,
    }

    #[derive(Debug, Deserialize, PartialEq)]
    #[serde(deny_unknown_fields)]
    struct Outer {
        list: Vec<Inner>,
        n: Option<Number>,
    }

    #[test]
    fn a_good_value_reads_whole() {
        let v = json!({"list": [{"a": "x"}, {"a": "y", "b": 2}], "n": 1.5});
        let o: Outer = read(&v).unwrap();
        assert_eq!(o.list[1].b, Some(2));
        assert_eq!(o.n, Some(Number::from_f64(1.5).unwrap()));
    }

    #[test]
    fn faults_keep_their_place() {
        let v = json!({"list": [{"a": "x"}, {"a": "y", "zz": 1}]});
        let f = read::<Outer>(&v).unwrap_err();
        assert_eq!(f.pointer("/r", f.path.len()), "/r/list/1/zz");
        assert!(
            matches!(&f.kind, FaultKind::UnknownKey { key, allowed } if key == "zz" && *allowed == ["a", "b"])
        );

        let v = json!({"list": [{"a": 5}]});
        let f = read::<Outer>(&v).unwrap_err();
        assert_eq!(f.pointer("", f.path.len()), "/list/0/a");
        assert_eq!(
            f.kind,
            FaultKind::Invalid {
                found: "integer `5`".into(),
                expected: "a string".into()
            }
        );

        let v = json!({"list": [{"b": 1}]});
        let f = read::<Outer>(&v).unwrap_err();
        assert_eq!(f.pointer("", f.path.len()), "/list/0");
        assert_eq!(f.kind, FaultKind::MissingKey("a"));

        // A present null is a value of the wrong type, not an absent key.
        let v = json!({"list": [], "n": null});
        let f = read::<Outer>(&v).unwrap_err();
        assert_eq!(f.pointer("", f.path.len()), "/n");

        // An array is not a struct, even with the right items in order.
        let v = json!({"list": [["x", 1]]});
        let f = read::<Outer>(&v).unwrap_err();
        assert_eq!(f.pointer("", f.path.len()), "/list/0");
        assert!(matches!(&f.kind, FaultKind::Invalid { found, .. } if found == "an array"));

        let v = json!({"list": {"a": "x"}});
        let f = read::<Outer>(&v).unwrap_err();
        assert_eq!(f.pointer("", 1), "/list");
        assert!(
            matches!(&f.kind, FaultKind::Invalid { found, expected } if found == "an object" && expected == "an array")
        );
    }
}
