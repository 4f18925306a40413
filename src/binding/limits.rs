//! Hard limits, checked before any deep work (issue 2 "Bad input", issue 5
//! item 2). Each limit is inclusive: a value equal to the limit is accepted.
//! The README's "Limits" table repeats these numbers.

/// Bytes in one event (one JSON document or one JSON Lines line): 4 MiB.
pub const MAX_EVENT_BYTES: usize = 4 * 1024 * 1024;
/// Nesting depth of arrays and objects in an event or a body text: 64.
pub const MAX_DEPTH: usize = 64;
/// Properties in one `requestedSchema`: 1,000.
pub const MAX_PROPERTIES: usize = 1_000;
/// Options in one single or multi select: 20,000.
pub const MAX_OPTIONS: usize = 20_000;
/// Unicode code points in any one string of a request (message, title,
/// description, option, URL, default): 65,536.
pub const MAX_STRING_CHARS: usize = 65_536;
/// Length of an event `id` in characters (spec section 1): 256.
pub const MAX_ID_CHARS: usize = 256;

/// Maximum nesting depth of the JSON text `bytes`, found by a scan that
/// skips strings; no parse. Malformed text gives some number and is left for
/// the parser to reject.
pub fn json_depth(bytes: &[u8]) -> usize {
    let (mut depth, mut max, mut in_str, mut esc) = (0usize, 0usize, false, false);
    for &b in bytes {
        if in_str {
            if esc {
                esc = false;
            } else if b == b'\\' {
                esc = true;
            } else if b == b'"' {
                in_str = false;
            }
            continue;
        }
        match b {
            b'"' => in_str = true,
            b'{' | b'[' => {
                depth += 1;
                max = max.max(depth);
            }
            b'}' | b']' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    max
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn depth_skips_strings() {
        assert_eq!(json_depth(br#"{"a":[1,{"b":"[[[{"}]}"#), 3);
        assert_eq!(json_depth(br#""\"[""#), 0);
        assert_eq!(json_depth(b"1"), 0);
    }
}
