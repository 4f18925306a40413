//! Hard limits, checked before any deep work. Each limit is inclusive: a value equal to the limit is accepted.
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
/// Length of an event `id` in characters: 256.
pub const MAX_ID_CHARS: usize = 256;

/// The nesting depth of the JSON text `bytes` when it exceeds `max`
/// ([`json_depth`]), or `None` when it is within `max`.
///
/// Most texts hold no more than `max` opening brackets (`{` and `[`, in
/// strings or not), a bound on their depth: those are counted in one
/// branch-free pass and the scan of [`json_depth`] is left out. The count
/// goes by pieces of 255 bytes into a byte-wide sum, which the compiler
/// turns into vector instructions (16 bytes a step at the x86-64 baseline;
/// about ten times faster than counting into a `usize`).
pub fn depth_over(bytes: &[u8], max: usize) -> Option<usize> {
    let mut open = 0usize;
    for chunk in bytes.chunks(usize::from(u8::MAX)) {
        // `[` and `{` are the only bytes whose value with bit 5 set is `{`.
        let n = chunk
            .iter()
            .fold(0u8, |n, &b| n + u8::from(b | 0x20 == b'{'));
        open += usize::from(n);
        if open > max {
            let depth = json_depth(bytes);
            return (depth > max).then_some(depth);
        }
    }
    None
}

/// Maximum nesting depth of the JSON text `bytes`, found by a scan that
/// skips strings; no parse. Malformed text gives some number and is left for
/// the parser to reject.
pub fn json_depth(bytes: &[u8]) -> usize {
    let (mut depth, mut max, mut i) = (0usize, 0usize, 0usize);
    while i < bytes.len() {
        match bytes[i] {
            b'"' => {
                // Skip the string at once: to the next quote not escaped.
                i += 1;
                loop {
                    let Some(j) = bytes.get(i..).and_then(|r| memchr::memchr2(b'"', b'\\', r))
                    else {
                        return max;
                    };
                    i += j;
                    if bytes[i] == b'\\' {
                        i += 2;
                    } else {
                        break;
                    }
                }
            }
            b'{' | b'[' => {
                depth += 1;
                max = max.max(depth);
            }
            b'}' | b']' => depth = depth.saturating_sub(1),
            _ => {}
        }
        i += 1;
    }
    max
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn depth_over_the_limit_only() {
        let nested = |n: usize| {
            let mut t = "[".repeat(n);
            t.push_str(&"]".repeat(n));
            t.into_bytes()
        };
        assert_eq!(depth_over(&nested(MAX_DEPTH), MAX_DEPTH), None);
        assert_eq!(
            depth_over(&nested(MAX_DEPTH + 1), MAX_DEPTH),
            Some(MAX_DEPTH + 1)
        );
        // Many brackets, few of them nested or most inside strings: the scan
        // decides.
        let flat = "[]".repeat(MAX_DEPTH * 8);
        assert_eq!(depth_over(flat.as_bytes(), MAX_DEPTH), None);
        let quoted = format!(r#"["{}"]"#, "{[".repeat(MAX_DEPTH * 4));
        assert_eq!(depth_over(quoted.as_bytes(), MAX_DEPTH), None);
        // Over the limit past the first 256 bytes.
        let mut late = b" ".repeat(300);
        late.extend(nested(MAX_DEPTH + 2));
        assert_eq!(depth_over(&late, MAX_DEPTH), Some(MAX_DEPTH + 2));
        // Unclosed brackets count as the scan counts them.
        assert_eq!(depth_over(&b"{".repeat(70), MAX_DEPTH), Some(70));
        assert_eq!(depth_over(b"", MAX_DEPTH), None);
    }

    #[test]
    fn depth_skips_strings() {
        assert_eq!(json_depth(br#"{"a":[1,{"b":"[[[{"}]}"#), 3);
        assert_eq!(json_depth(br#""\"[""#), 0);
        assert_eq!(json_depth(b"1"), 0);
        // An escape at the very end, an unterminated string.
        assert_eq!(json_depth(br#"[["\"#), 2);
        assert_eq!(json_depth(br#"[{"a\"}"#), 2);
        assert_eq!(json_depth(br#"[{"a\\"}]"#), 2);
    }

    /// The scan before it skipped strings one byte at a time.
    fn depth_bytewise(bytes: &[u8]) -> usize {
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

    #[test]
    fn depth_agrees_with_the_bytewise_scan() {
        let alphabet = br#"{}[]"\ a:,"#;
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        for len in 0..2_000usize {
            let text: Vec<u8> = (0..len % 40)
                .map(|_| {
                    seed ^= seed << 13;
                    seed ^= seed >> 7;
                    seed ^= seed << 17;
                    alphabet[(seed % alphabet.len() as u64) as usize]
                })
                .collect();
            assert_eq!(
                json_depth(&text),
                depth_bytewise(&text),
                "{:?}",
                String::from_utf8_lossy(&text)
            );
        }
    }
}
