//! Safe text: the one place where server-provided strings are made fit for
//! a terminal.
//!
//! Every widget draws server text only through [`display`] (one line) or
//! [`display_multiline`] (keeps `\n` as a line break). Neutralised, shown
//! as a visible escape like `\u{1b}`:
//! - C0 controls (U+0000..U+001F, except `\n` in multi-line text and `\t`,
//!   which becomes a space) and DEL (U+007F);
//! - C1 controls (U+0080..U+009F), which also covers 8-bit CSI/OSC/DCS;
//! - bidi embeddings, overrides and isolates (U+202A..U+202E,
//!   U+2066..U+2069), the marks U+200E, U+200F, U+061C;
//! - zero-width and invisible characters (U+200B..U+200D, U+2060..U+2064,
//!   U+FEFF, U+180E, U+00AD soft hyphen), and the line/paragraph separators
//!   U+2028, U+2029;
//! - Unicode tag characters (U+E0000..U+E007F) and noncharacters.
//!
//! Because ESC itself is escaped, no escape sequence (CSI, OSC hyperlinks,
//! DCS, ...) can survive. The emitted JSON keeps the original values; only
//! what is drawn is changed.

use std::borrow::Cow;

/// Whether `c` must never reach the terminal as itself.
pub fn is_unsafe(c: char) -> bool {
    let u = c as u32;
    u < 0x20
        || (0x7f..=0x9f).contains(&u)
        || matches!(u, 0x00ad | 0x061c | 0x180e | 0x200b..=0x200f | 0x2028..=0x202e | 0x2060..=0x206f | 0xfeff)
        || (0xe0000..=0xe007f).contains(&u)
        || (0xfdd0..=0xfdef).contains(&u)
        || (u & 0xfffe) == 0xfffe
}

fn escape_into(out: &mut String, c: char) {
    use std::fmt::Write;
    let _ = write!(out, "\\u{{{:x}}}", c as u32);
}

/// One line of safe text: unsafe characters shown as `\u{..}`, a tab as a
/// space, a newline as `\u{a}`.
pub fn display(s: &str) -> Cow<'_, str> {
    if !s.chars().any(is_unsafe) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        match c {
            '\t' => out.push(' '),
            c if is_unsafe(c) => escape_into(&mut out, c),
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// Multi-line safe text: like [`display`] but `\n` (and `\r\n`) stay line
/// breaks; a lone `\r` is escaped.
pub fn display_multiline(s: &str) -> Vec<String> {
    s.split('\n')
        .map(|line| display(line.strip_suffix('\r').unwrap_or(line)).into_owned())
        .collect()
}

/// Multi-line safe text as one string: [`display_multiline`] joined with
/// `\n`. For a message written to stderr or a file: every line of it is
/// neutralised, the line breaks stay.
pub fn display_lines(s: &str) -> String {
    if !s.chars().any(|c| c != '\n' && is_unsafe(c)) {
        return s.to_owned();
    }
    display_multiline(s).join("\n")
}

/// JSON text `s` with every character that [`is_unsafe`] flags written as
/// a `\uXXXX` escape (serde_json escapes only C0 controls; this also covers
/// DEL, C1 controls, bidi and zero-width characters). `s` must be JSON
/// text: there a raw newline, tab or carriage return is whitespace between
/// tokens (kept) and every other unsafe character stands inside a string,
/// so the value a JSON reader gets back is unchanged, while printing the
/// text on a terminal cannot inject anything.
pub fn json_text(s: &str) -> Cow<'_, str> {
    let bad = |c: char| !matches!(c, '\n' | '\r' | '\t') && is_unsafe(c);
    // Printable ASCII (and the three kept controls) holds nothing unsafe:
    // a byte scan settles the common case.
    let plain = |b: &u8| matches!(b, 0x20..=0x7e | b'\n' | b'\r' | b'\t');
    if s.as_bytes().iter().all(plain) || !s.chars().any(bad) {
        return Cow::Borrowed(s);
    }
    use std::fmt::Write;
    let mut out = String::with_capacity(s.len() + 16);
    for c in s.chars() {
        if bad(c) {
            let mut units = [0u16; 2];
            for u in c.encode_utf16(&mut units) {
                let _ = write!(out, "\\u{:04x}", u);
            }
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// `v` as one line of compact JSON made safe by [`json_text`].
pub fn json_line(v: &serde_json::Value) -> String {
    json_text(&v.to_string()).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_text_is_untouched() {
        assert!(matches!(display("Grüße, 世界 👋"), Cow::Borrowed(_)));
    }

    #[test]
    fn escapes_are_neutralised() {
        assert_eq!(display("a\u{1b}[31mred"), "a\\u{1b}[31mred");
        assert_eq!(
            display("\u{1b}]8;;http://x\u{7}link"),
            "\\u{1b}]8;;http://x\\u{7}link"
        );
        assert_eq!(display("x\u{9b}2J"), "x\\u{9b}2J");
        assert_eq!(display("abc\u{202e}fed"), "abc\\u{202e}fed");
        assert_eq!(display("a\u{200b}b\u{2066}c"), "a\\u{200b}b\\u{2066}c");
        assert_eq!(display("tab\there"), "tab here");
        assert_eq!(display("l1\nl2"), "l1\\u{a}l2");
    }

    #[test]
    fn lines_and_json_are_neutralised() {
        assert_eq!(
            display_lines("a\u{1b}]0;x\u{7}\nb"),
            "a\\u{1b}]0;x\\u{7}\nb"
        );
        assert_eq!(display_lines("plain\ntext"), "plain\ntext");
        let v = serde_json::json!({"k\u{9b}": "a\u{202e}b\u{1b}\u{e0041}"});
        let line = json_line(&v);
        assert_eq!(line, r#"{"k\u009b":"a\u202eb\u001b\udb40\udc41"}"#);
        assert_eq!(serde_json::from_str::<serde_json::Value>(&line).unwrap(), v);
    }

    #[test]
    fn multiline_keeps_breaks() {
        assert_eq!(
            display_multiline("a\r\nb\u{7}\nc\r"),
            vec!["a", "b\\u{7}", "c"]
        );
    }
}
