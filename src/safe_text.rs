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
//! - Unicode tag characters (U+E0000..U+E007F) and noncharacters;
//! - a variation selector (U+FE00..U+FE0F, U+E0100..U+E01EF) that selects
//!   nothing: at the start of the text or of a line, after white space, a
//!   control, a joiner or another variation selector (a run of them is how
//!   bytes are hidden in text that looks like one emoji).
//!
//! Emoji sequences are drawn whole (the rule, in [`display`]): these
//! characters cannot hide or reorder text, so they stay:
//! - U+200D ZERO WIDTH JOINER when it joins two emoji into one grapheme
//!   cluster (an emoji ZWJ sequence such as 👩‍💻 or 👨‍👩‍👧: UAX #29
//!   rule GB11 keeps the emoji after it in the cluster, and that emoji is
//!   not a letter). Anywhere else (between letters, at an end, before a
//!   space) it is invisible and is shown escaped, as is U+200C;
//! - VS15/VS16 (U+FE0E, U+FE0F) and the other variation selectors right
//!   after the character they select a form of (❤️, #️⃣);
//! - emoji modifiers (skin tones U+1F3FB..U+1F3FF) and regional indicator
//!   pairs (flags): visible characters, never escaped.
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

/// Whether `c` is a variation selector (VS1..VS16, U+FE00..U+FE0F, or
/// VS17..VS256, U+E0100..U+E01EF): invisible on its own, it selects a form
/// of the character before it.
pub fn is_variation_selector(c: char) -> bool {
    matches!(c as u32, 0xfe00..=0xfe0f | 0xe0100..=0xe01ef)
}

const ZWJ: char = '\u{200d}';

/// Whether `c`, inside one grapheme cluster after `prev` and before
/// `next` (both of the same cluster), is drawn as itself: a joiner of an
/// emoji ZWJ sequence and a variation selector after the character it
/// selects are; otherwise the rule of [`is_unsafe`].
fn shown_in_cluster(prev: Option<char>, c: char, next: Option<char>) -> bool {
    if c == ZWJ {
        // The segmenter keeps the character after a joiner in its cluster
        // only for an emoji ZWJ sequence (GB11) or an Indic conjunct
        // (GB9c, whose consonants are letters).
        return prev.is_some_and(|p| !p.is_alphabetic())
            && next.is_some_and(|n| !n.is_alphabetic() && !is_unsafe(n));
    }
    if is_variation_selector(c) {
        return prev
            .is_some_and(|p| !(is_unsafe(p) || is_variation_selector(p) || p.is_whitespace()));
    }
    !is_unsafe(c)
}

/// Whether `s` may hold a character [`display`] changes (a quick test; the
/// grapheme-aware rule decides).
fn needs_care(c: char) -> bool {
    is_unsafe(c) || is_variation_selector(c)
}

fn escape_into(out: &mut String, c: char) {
    use std::fmt::Write;
    let _ = write!(out, "\\u{{{:x}}}", c as u32);
}

/// One line of safe text: unsafe characters shown as `\u{..}`, a tab as a
/// space, a newline as `\u{a}`. The rule is the module's: characters that
/// can hide or reorder text are escaped, the joiners and variation
/// selectors of an emoji sequence are kept (decided per grapheme cluster,
/// UAX #29 extended clusters).
pub fn display(s: &str) -> Cow<'_, str> {
    if !s.chars().any(needs_care) {
        return Cow::Borrowed(s);
    }
    use unicode_segmentation::UnicodeSegmentation;
    let mut out = String::with_capacity(s.len() + 8);
    let mut changed = false;
    for g in s.graphemes(true) {
        let mut prev = None;
        let mut chars = g.chars().peekable();
        while let Some(c) = chars.next() {
            if c == '\t' {
                out.push(' ');
                changed = true;
            } else if shown_in_cluster(prev, c, chars.peek().copied()) {
                out.push(c);
            } else {
                escape_into(&mut out, c);
                changed = true;
            }
            prev = Some(c);
        }
    }
    if changed {
        Cow::Owned(out)
    } else {
        Cow::Borrowed(s)
    }
}

/// Multi-line safe text: like [`display`] but `\n` (and `\r\n`) stay line
/// breaks; a lone `\r` is escaped.
#[cfg(any(test, feature = "cli"))]
pub fn display_multiline(s: &str) -> Vec<String> {
    s.split('\n')
        .map(|line| display(line.strip_suffix('\r').unwrap_or(line)).into_owned())
        .collect()
}

/// Multi-line safe text as one string: [`display_multiline`] joined with
/// `\n`. For a message written to stderr or a file: every line of it is
/// neutralised, the line breaks stay.
#[cfg(any(test, feature = "cli"))]
pub fn display_lines(s: &str) -> String {
    if !s.chars().any(|c| c != '\n' && needs_care(c)) {
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
    fn emoji_sequences_are_kept_whole() {
        for whole in [
            "\u{1f469}\u{200d}\u{1f4bb}",                  // 👩‍💻
            "\u{1f468}\u{200d}\u{1f469}\u{200d}\u{1f467}", // family
            "\u{1f3f3}\u{fe0f}\u{200d}\u{1f308}",          // rainbow flag
            "\u{1f469}\u{1f3fd}\u{200d}\u{1f4bb}",         // with a skin tone
            "\u{1f44d}\u{1f3fd}",                          // 👍🏽
            "\u{2764}\u{fe0f} \u{263a}\u{fe0e}",           // ❤️ ☺︎
            "#\u{fe0f}\u{20e3}",                           // keycap
            "\u{1f1eb}\u{1f1f7}",                          // 🇫🇷
            "\u{845b}\u{e0100}",                           // an ideographic variant
        ] {
            assert_eq!(display(whole), whole);
            assert!(matches!(display(whole), Cow::Borrowed(_)), "{whole:?}");
            assert_eq!(display_lines(whole), whole);
        }
    }

    #[test]
    fn a_joiner_or_selector_outside_an_emoji_sequence_is_escaped() {
        // Between letters, at either end, before a space or a letter.
        assert_eq!(display("pay\u{200d}pal"), "pay\\u{200d}pal");
        assert_eq!(display("\u{200d}\u{1f4bb}"), "\\u{200d}\u{1f4bb}");
        assert_eq!(display("\u{1f469}\u{200d}"), "\u{1f469}\\u{200d}");
        assert_eq!(display("\u{1f469}\u{200d} x"), "\u{1f469}\\u{200d} x");
        assert_eq!(display("\u{1f469}\u{200d}a"), "\u{1f469}\\u{200d}a");
        assert_eq!(display("a\u{200c}b"), "a\\u{200c}b");
        // A selector with nothing to select, or a run of them (hidden bytes).
        assert_eq!(display("\u{fe0f}x"), "\\u{fe0f}x");
        assert_eq!(display("x \u{fe0f}"), "x \\u{fe0f}");
        assert_eq!(
            display("\u{1f600}\u{e0101}\u{e0102}"),
            "\u{1f600}\u{e0101}\\u{e0102}"
        );
        assert_eq!(display("\u{1b}\u{fe0f}"), "\\u{1b}\\u{fe0f}");
        // Bidi controls stay escaped inside an emoji sequence too.
        assert_eq!(
            display("\u{1f469}\u{200d}\u{202e}\u{1f4bb}"),
            "\u{1f469}\\u{200d}\\u{202e}\u{1f4bb}"
        );
        assert_eq!(
            display_lines("\u{200d}a\n\u{1f469}\u{200d}\u{1f4bb}"),
            "\\u{200d}a\n\u{1f469}\u{200d}\u{1f4bb}"
        );
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
