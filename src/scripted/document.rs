//! The JSON text of an answers file: the binding's hard limits (size,
//! nesting depth), UTF-8, then a parse that refuses a key repeated in one
//! object.
//!
//! A plain JSON reader keeps the last of two equal keys, so
//! `{"e1": {"action": "decline"}, "e1": {"action": "accept"}}` would
//! silently accept; an answers file decides what is sent for a person, so
//! a repeated key (at the top, in a rule, a `match`, an answer or its
//! content) is an error naming the key and its JSON Pointer.

use std::cell::RefCell;
use std::fmt;

use serde::de::{self, DeserializeSeed, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};

use crate::binding::limits::MAX_EVENT_BYTES;
use crate::binding::{Rule, Violation};
use crate::safe_text::display;

/// The largest answers file read, in bytes (the binding's limit for one
/// event: 4 MiB). A reader takes at most this many bytes plus one, so a
/// longer file (or an endless one such as `/dev/zero`) is refused without
/// being held in memory.
pub const MAX_ANSWERS_BYTES: usize = MAX_EVENT_BYTES;

/// Read the JSON text of an answers file.
///
/// Errors: one [`Violation`]: rule `limits` (more than
/// [`MAX_ANSWERS_BYTES`] bytes, or nesting deeper than the binding's
/// limit), `utf8`, or `json` (not JSON, or a key given twice in one object:
/// the pointer is that of the repeated member, the message names the key
/// and where the second one is).
pub fn parse(bytes: &[u8]) -> Result<Value, Violation> {
    if bytes.len() > MAX_ANSWERS_BYTES {
        return Err(Violation::new(
            "",
            Rule::Limits,
            format!("the answers file is longer than the limit of {MAX_ANSWERS_BYTES} bytes"),
        ));
    }
    let text = crate::binding::shallow_text(bytes)?;
    let repeated = RefCell::new(None);
    let mut de = serde_json::Deserializer::from_str(text);
    let read = Node {
        pointer: String::new(),
        repeated: &repeated,
    }
    .deserialize(&mut de)
    .and_then(|v| de.end().map(|()| v));
    read.map_err(|e| match repeated.into_inner() {
        Some(Repeated { pointer, key }) => Violation::new(
            pointer,
            Rule::Json,
            format!(
                "the key '{}' is given twice in one object (again at line {}, column {}); \
                 give each key once",
                display(&key),
                e.line(),
                e.column()
            ),
        ),
        None => Violation::new("", Rule::Json, format!("not JSON: {e}")),
    })
}

/// The first key found twice, and its member's pointer.
struct Repeated {
    pointer: String,
    key: String,
}

/// A JSON value at `pointer`, built as `serde_json::Value` builds itself,
/// except that a repeated key is an error (recorded in `repeated`).
struct Node<'a> {
    pointer: String,
    repeated: &'a RefCell<Option<Repeated>>,
}

impl<'de> DeserializeSeed<'de> for Node<'_> {
    type Value = Value;

    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Node<'_> {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        Ok(Number::from_f64(v).map_or(Value::Null, Value::Number))
    }

    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_owned()))
    }

    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut out = Vec::new();
        loop {
            let item = Node {
                pointer: format!("{}/{}", self.pointer, out.len()),
                repeated: self.repeated,
            };
            match seq.next_element_seed(item)? {
                Some(v) => out.push(v),
                None => return Ok(Value::Array(out)),
            }
        }
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut out = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            let pointer = format!(
                "{}/{}",
                self.pointer,
                key.replace('~', "~0").replace('/', "~1")
            );
            if out.contains_key(&key) {
                *self.repeated.borrow_mut() = Some(Repeated { pointer, key });
                return Err(de::Error::custom("a key given twice"));
            }
            let v = map.next_value_seed(Node {
                pointer,
                repeated: self.repeated,
            })?;
            out.insert(key, v);
        }
        Ok(Value::Object(out))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn repeated(text: &str) -> (String, String) {
        let e = parse(text.as_bytes()).expect_err("a repeated key");
        (e.location.pointer.clone(), e.message.clone())
    }

    #[test]
    fn a_document_reads_as_serde_json_reads_it() {
        let text = r#"{"rules": [{"match": {"fields": ["a", "b"]}, "answer":
            {"action": "accept", "content": {"n": -3, "u": 18446744073709551615,
            "f": 0.1, "t": true, "z": null, "s": "\u00e9"}}}], "$schema": "x"}"#;
        let want: Value = serde_json::from_str(text).expect("json");
        assert_eq!(parse(text.as_bytes()).expect("read"), want);
    }

    #[test]
    fn a_repeated_key_is_named_with_its_pointer_wherever_it_is() {
        let (at, why) =
            repeated(r#"{"e1": {"action": "decline"}, "e1": {"action": "accept", "content": {}}}"#);
        assert_eq!(at, "/e1");
        assert_eq!(
            why,
            "the key 'e1' is given twice in one object (again at line 1, column 34); \
             give each key once"
        );
        let (at, _) = repeated(
            r#"{"rules": [{"match": {}, "answer": {"action": "cancel"}},
               {"match": {"mode": "url", "mode": "form"}, "answer": {"action": "cancel"}}]}"#,
        );
        assert_eq!(at, "/rules/1/match/mode");
        let (at, _) = repeated(r#"{"action": "accept", "content": {"a/b": 1, "a/b": 2}}"#);
        assert_eq!(at, "/content/a~1b");
        let (at, _) = repeated(r#"{"rules": [], "rules": []}"#);
        assert_eq!(at, "/rules");
    }

    #[test]
    fn the_limits_name_the_answers_file() {
        let big = vec![b' '; MAX_ANSWERS_BYTES + 1];
        let e = parse(&big).expect_err("too long");
        assert_eq!(
            e.message,
            format!("the answers file is longer than the limit of {MAX_ANSWERS_BYTES} bytes")
        );
        assert!(!e.message.contains("per event"));
        let e = parse(b"{\"a\": 1} x").expect_err("trailing");
        assert!(
            e.message.starts_with("not JSON: trailing characters"),
            "{}",
            e.message
        );
        assert_eq!(
            parse(b" {\"a\": [1, 2]} \n").expect("read"),
            json!({"a": [1, 2]})
        );
    }
}
