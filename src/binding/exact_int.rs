//! Integers beyond 64 bits, carried exactly from the command line to the
//! server (`mcp --args`, `--arg`).
//!
//! `serde_json` (without its `arbitrary_precision` feature, which would
//! change how every number of every stream is read) keeps an integer that
//! fits neither `i64` nor `u64` as the nearest `f64`: `18446744073709551617`
//! would be sent as `18446744073709552000`. A person who writes such an
//! integer means it, so [`parse`] keeps it as a one-member object standing
//! for the number (its key private to this process, [`integer`]), and the
//! messages the client sends are written by [`to_vec`], which writes that
//! object as the integer's digits, exactly as they were given. Checks
//! against a schema see the nearest `f64` ([`approximate`]).
//!
//! Only an object this process made is written as a number: its key holds
//! a random word chosen at start, which no server can know, and nothing is
//! replaced until a run made one.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::OnceLock;

use serde_json::{Map, Value};

/// Whether this process made a stand-in (until then [`to_vec`] is
/// `serde_json::to_vec`).
static MADE: AtomicBool = AtomicBool::new(false);

/// The stand-in's key: `$ahp-elicit:exact-integer:` and a random word.
fn key() -> &'static str {
    static KEY: OnceLock<String> = OnceLock::new();
    KEY.get_or_init(|| {
        use std::hash::{BuildHasher, Hasher};
        let mut h = std::collections::hash_map::RandomState::new().build_hasher();
        h.write_u128(
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_nanos())
                .unwrap_or(0),
        );
        h.write_u32(std::process::id());
        format!("$ahp-elicit:exact-integer:{:016x}", h.finish())
    })
}

/// Whether `text` is an integer as JSON writes one: `-?(0|[1-9][0-9]*)`.
pub fn is_integer_text(text: &str) -> bool {
    let digits = text.strip_prefix('-').unwrap_or(text);
    !digits.is_empty()
        && digits.bytes().all(|b| b.is_ascii_digit())
        && (digits == "0" || !digits.starts_with('0'))
}

/// The JSON value of the integer written `text` (`-?(0|[1-9][0-9]*)`): a
/// number when it fits `i64` or `u64`, else the stand-in written back as
/// these digits by [`to_vec`]; None when `text` is not an integer.
pub fn integer(text: &str) -> Option<Value> {
    if !is_integer_text(text) {
        return None;
    }
    if let Ok(i) = text.parse::<i64>() {
        return Some(Value::from(i));
    }
    if let Ok(u) = text.parse::<u64>() {
        return Some(Value::from(u));
    }
    MADE.store(true, Ordering::Relaxed);
    let mut m = Map::new();
    m.insert(key().to_owned(), Value::String(text.to_owned()));
    Some(Value::Object(m))
}

/// The digits `v` stands for, when it is a stand-in made by [`integer`].
pub fn digits(v: &Value) -> Option<&str> {
    match v {
        Value::Object(m) if m.len() == 1 => m
            .get(key())
            .and_then(Value::as_str)
            .filter(|d| is_integer_text(d)),
        _ => None,
    }
}

/// Read `text` as JSON as `serde_json::from_str` does, but with each
/// integer beyond 64 bits kept exactly ([`integer`]).
///
/// Errors: `text` is not JSON (serde_json's error, with its line and
/// column in `text`).
pub fn parse(text: &str) -> serde_json::Result<Value> {
    let value: Value = serde_json::from_str(text)?;
    let Some(rewritten) = rewrite_big_integers(text) else {
        return Ok(value);
    };
    serde_json::from_str(&rewritten)
}

/// `text` with every integer token beyond 64 bits (outside strings)
/// written as its stand-in; None when there is none. `text` is JSON.
fn rewrite_big_integers(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out: Option<String> = None;
    let mut copied = 0;
    let (mut i, mut in_string, mut escaped) = (0, false, false);
    while i < bytes.len() {
        let b = bytes[i];
        if in_string {
            match b {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            }
            i += 1;
            continue;
        }
        if b == b'"' {
            in_string = true;
            i += 1;
            continue;
        }
        if b == b'-' || b.is_ascii_digit() {
            let start = i;
            i += 1;
            while i < bytes.len()
                && matches!(bytes[i], b'0'..=b'9' | b'.' | b'e' | b'E' | b'+' | b'-')
            {
                i += 1;
            }
            let token = &text[start..i];
            if is_integer_text(token)
                && token.parse::<i64>().is_err()
                && token.parse::<u64>().is_err()
            {
                let o = out.get_or_insert_with(|| String::with_capacity(text.len() + 64));
                o.push_str(&text[copied..start]);
                if let Some(stand_in) = integer(token) {
                    o.push_str(&stand_in.to_string());
                }
                copied = i;
            }
            continue;
        }
        i += 1;
    }
    out.map(|mut o| {
        o.push_str(&text[copied..]);
        o
    })
}

/// `v` written as compact JSON, as `serde_json::to_vec` writes it, but with
/// every stand-in written as its integer's digits.
///
/// Errors: serde_json's (a map key that is not a string cannot occur in a
/// `Value`, so in practice none).
pub fn to_vec(v: &Value) -> serde_json::Result<Vec<u8>> {
    let written = serde_json::to_vec(v)?;
    if !MADE.load(Ordering::Relaxed) {
        return Ok(written);
    }
    // `{"KEY":"DIGITS"}`: the key has no character JSON escapes.
    let open = format!("{{\"{}\":\"", key());
    let open = open.as_bytes();
    let mut out = Vec::with_capacity(written.len());
    let mut i = 0;
    while i < written.len() {
        if written[i..].starts_with(open) {
            let from = i + open.len();
            let end = written[from..]
                .iter()
                .position(|b| !(b.is_ascii_digit() || *b == b'-'))
                .map(|n| from + n);
            if let Some(end) = end.filter(|&e| written[e..].starts_with(b"\"}")) {
                let digits = &written[from..end];
                if std::str::from_utf8(digits).is_ok_and(is_integer_text) {
                    out.extend_from_slice(digits);
                    i = end + 2;
                    continue;
                }
            }
        }
        out.push(written[i]);
        i += 1;
    }
    Ok(out)
}

/// `v` as compact JSON text with its stand-ins written as integers
/// ([`to_vec`]), for a line the person reads.
pub fn to_string(v: &Value) -> String {
    to_vec(v)
        .ok()
        .and_then(|b| String::from_utf8(b).ok())
        .unwrap_or_else(|| v.to_string())
}

/// `v` with each stand-in replaced by the nearest `f64`, for a check
/// against a schema (`type: integer` holds: the number is whole).
pub fn approximate(v: &Value) -> Value {
    if let Some(d) = digits(v) {
        return d
            .parse::<f64>()
            .ok()
            .and_then(serde_json::Number::from_f64)
            .map_or(Value::Null, Value::Number);
    }
    match v {
        Value::Array(a) => Value::Array(a.iter().map(approximate).collect()),
        Value::Object(m) => {
            Value::Object(m.iter().map(|(k, x)| (k.clone(), approximate(x))).collect())
        }
        other => other.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn integers_beyond_64_bits_are_written_as_given() {
        let text = r#"{"n": 18446744073709551617, "m": -9223372036854775809, "s": "18446744073709551617", "f": 1.5, "e": 1e30, "k": [340282366920938463463374607431768211457]}"#;
        let v = parse(text).expect("json");
        assert!(digits(&v["n"]).is_some(), "{v}");
        assert_eq!(v["s"], json!("18446744073709551617"));
        assert_eq!(v["f"], json!(1.5));
        let out = String::from_utf8(to_vec(&v).expect("write")).expect("utf8");
        assert_eq!(
            out,
            r#"{"n":18446744073709551617,"m":-9223372036854775809,"s":"18446744073709551617","f":1.5,"e":1e+30,"k":[340282366920938463463374607431768211457]}"#
        );
        assert_eq!(approximate(&v)["n"], json!(18446744073709551617f64));
    }

    #[test]
    fn integers_within_64_bits_stay_numbers() {
        for t in [
            "0",
            "-1",
            "9223372036854775807",
            "18446744073709551615",
            "-9223372036854775808",
        ] {
            let v = integer(t).expect("integer");
            assert!(v.is_number(), "{t}");
            assert_eq!(v.to_string(), t);
        }
        for t in ["", "-", "01", "1.0", "1e3", "+1", " 1", "x"] {
            assert_eq!(integer(t), None, "{t:?}");
        }
    }

    #[test]
    fn an_object_that_imitates_a_stand_in_stays_an_object() {
        let _ = integer("18446744073709551617");
        let forged = json!({"$ahp-elicit:exact-integer:0000000000000000": "1"});
        assert_eq!(
            String::from_utf8(to_vec(&forged).expect("write")).expect("utf8"),
            forged.to_string()
        );
        assert_eq!(digits(&forged), None);
    }
}
