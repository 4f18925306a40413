//! The framer's quick reading of one whole line (JSON Lines, the common
//! input): one tight pass over the line's bytes with the same grammar as
//! the byte-by-byte framer ([`Framer::push`](super::Framer::push)), and the
//! value copied once. It decides only the plain case, a line holding one
//! whole value followed by blanks at most; any other line (broken, cut,
//! several values, a value going on past the line) is left to the
//! byte-by-byte framer, which alone reports broken text.

use super::{is_structural, Expect};

/// Blanks after a value on its line (the line feed is not in the line).
fn blank(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\r')
}

/// The length of the value that `line` starts with, when the byte-by-byte
/// framer, at the top (between values) at its first byte, would read from
/// `line` exactly one whole value followed by blanks at most; None
/// otherwise. `line` holds no line feed; `stack` is scratch space (the
/// open containers), left empty or holding what this pass opened.
pub(super) fn whole_value(line: &[u8], stack: &mut Vec<bool>) -> Option<usize> {
    use Expect::*;
    stack.clear();
    let mut expect = Value;
    let mut i = 0;
    while let Some(&b) = line.get(i) {
        let value_ok = matches!(expect, Value | ValueOrClose);
        match b {
            b' ' | b'\t' | b'\r' => {}
            b'{' | b'[' if value_ok => {
                stack.push(b == b'{');
                expect = if b == b'{' { KeyOrClose } else { ValueOrClose };
            }
            b'}' | b']' => {
                let object = b == b'}';
                let empty = if object { KeyOrClose } else { ValueOrClose };
                if stack.last() != Some(&object) || !(expect == After || expect == empty) {
                    return None;
                }
                stack.pop();
                expect = After;
                if stack.is_empty() {
                    let end = i + 1;
                    return line[end..].iter().all(|&c| blank(c)).then_some(end);
                }
            }
            b'"' if value_ok || matches!(expect, KeyOrClose | Key) => {
                let key = matches!(expect, KeyOrClose | Key);
                // The closing quote; an escape takes the byte after it,
                // which must be on this line.
                let mut j = i + 1;
                loop {
                    j += memchr::memchr2(b'"', b'\\', &line[j..])?;
                    if line[j] == b'"' {
                        break;
                    }
                    if j + 1 >= line.len() {
                        return None;
                    }
                    j += 2;
                }
                i = j;
                expect = if key { Colon } else { After };
            }
            b':' if expect == Colon => expect = Value,
            b',' if expect == After => {
                expect = if stack.last() == Some(&true) {
                    Key
                } else {
                    Value
                };
            }
            b'{' | b'[' | b'"' | b':' | b',' => return None,
            _ if value_ok => {
                // A number or literal runs to the next structural byte
                // (the framer does not read scalars; the parser does).
                while line.get(i + 1).is_some_and(|&c| !is_structural(c)) {
                    i += 1;
                }
                expect = After;
            }
            _ => return None,
        }
        i += 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::super::Framer;
    use super::*;

    /// Generated inputs of JSON-like lines (whole, cut, broken, several
    /// values a line, values across lines) framed by `push` in chunks of
    /// every size and byte by byte give the same frames.
    #[test]
    fn generated_inputs_frame_alike_in_chunks_and_byte_by_byte() {
        const ALPHABET: &[u8] = b"{{{}}}[]\"\"\"\"\\::,,1a  \n\r";
        let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        let whole = [
            &br#"{"a":1,"b":[true,{"c":"x\"y"}]}"#[..],
            br#"{"k":"v"}  "#,
            b"{}",
        ];
        for _ in 0..3000 {
            let mut input = Vec::new();
            for _ in 0..(next() % 6) {
                if next() % 2 == 0 {
                    input.extend_from_slice(whole[(next() % 3) as usize]);
                } else {
                    for _ in 0..(next() % 24) {
                        input.push(ALPHABET[(next() % ALPHABET.len() as u64) as usize]);
                    }
                }
                if next() % 4 != 0 {
                    input.push(b'\n');
                }
            }
            let limit = if next() % 5 == 0 { 12 } else { 1 << 20 };
            let mut slow = Framer::new(limit);
            let mut expected = Vec::new();
            for &b in &input {
                slow.byte(b, &mut expected);
            }
            slow.finish(&mut expected);
            let step = 1 + (next() % 40) as usize;
            let mut quick = Framer::new(limit);
            let mut got = Vec::new();
            for chunk in input.chunks(step) {
                quick.push(chunk, &mut got);
            }
            quick.finish(&mut got);
            assert_eq!(got, expected, "{:?}", String::from_utf8_lossy(&input));
        }
    }

    /// Every line framed byte by byte and with the quick reading alike.
    #[test]
    fn the_quick_reading_agrees_with_the_byte_by_byte_one() {
        let lines: &[&[u8]] = &[
            br#"{"a":1}"#,
            br#"{"a":[1,2,{"b":null}],"c":"x\"y\\"}  "#,
            br#"{}"#,
            br#"{"a":1} {"b":2}"#,
            br#"{"a":1}}"#,
            br#"{"a" 1}"#,
            br#"{"a":1,}"#,
            br#"{"a":"cut\"#,
            br#"{"a":"open"#,
            br#"{"a":tru"#,
            br#"{"a":[1,2}"#,
            br#"{,}"#,
            br#"{"a":1}x"#,
            br#"{"a"::1}"#,
            br#"{"a":1 2}"#,
            b"{\"a\":1}\r",
            br#"{"a":{"b":{"c":[[],{}]}}}"#,
        ];
        for line in lines {
            let mut slow = Framer::new(1 << 20);
            let mut expected = Vec::new();
            for &b in line.iter().chain(b"\n") {
                slow.byte(b, &mut expected);
            }
            slow.finish(&mut expected);
            let mut stack = Vec::new();
            let quick = whole_value(line, &mut stack);
            match quick {
                Some(end) => assert_eq!(
                    expected,
                    vec![super::super::Frame::Value {
                        line: 1,
                        bytes: line[..end].to_vec()
                    }],
                    "{}",
                    String::from_utf8_lossy(line)
                ),
                None => assert!(
                    !matches!(&expected[..], [super::super::Frame::Value { .. }]),
                    "{}: {expected:?}",
                    String::from_utf8_lossy(line)
                ),
            }
        }
    }
}
