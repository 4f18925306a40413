//! Width-aware helpers for drawing: wrapping and clipping by display columns
//! (unicode-width), so wide and combining characters never break the layout. Inputs here are already sanitised by `safe_text`.

use unicode_segmentation::UnicodeSegmentation;
use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

/// Display width of `s` in terminal columns.
pub fn width(s: &str) -> usize {
    UnicodeWidthStr::width(s)
}

/// Wrap `s` into lines of at most `w` columns, breaking at spaces when
/// possible and inside words otherwise (between grapheme clusters, so a
/// flag or an emoji sequence is never split across lines); leading spaces
/// (indentation) are kept on every line. Always at least one line.
pub fn wrap(s: &str, w: usize) -> Vec<String> {
    let rest = s.trim_start_matches(' ');
    let indent = s.len() - rest.len();
    if indent > 0 && indent < w {
        let pad = " ".repeat(indent);
        return wrap_words(rest, w - indent)
            .into_iter()
            .map(|l| format!("{pad}{l}"))
            .collect();
    }
    wrap_words(s, w)
}

fn wrap_words(s: &str, w: usize) -> Vec<String> {
    let w = w.max(1);
    let mut out = Vec::new();
    let mut line = String::new();
    let mut lw = 0;
    for word in s.split(' ') {
        let ww = width(word);
        let sep = usize::from(!line.is_empty());
        if lw + sep + ww <= w {
            if sep == 1 {
                line.push(' ');
            }
            line.push_str(word);
            lw += sep + ww;
            continue;
        }
        if !line.is_empty() {
            out.push(std::mem::take(&mut line));
        }
        // A word longer than the line breaks between grapheme clusters
        // (`wrap_chars`): a flag, a ZWJ sequence or a letter with its marks
        // stays whole; its last piece starts the next line.
        let mut pieces = wrap_chars(word, w);
        line = pieces.pop().unwrap_or_default();
        lw = width(&line);
        out.extend(pieces);
    }
    out.push(line);
    out
}

/// Wrap by glyph (grapheme cluster), ignoring spaces: every character is
/// kept, each line is at most `w` columns (a glyph wider than `w` gets a
/// line of its own), and a flag or an emoji sequence is never split. For a
/// URL, whose every character must be shown. Always at least one line.
pub fn wrap_chars(s: &str, w: usize) -> Vec<String> {
    let w = w.max(1);
    let mut out = Vec::new();
    let mut line = String::new();
    let mut lw = 0;
    for g in UnicodeSegmentation::graphemes(s, true) {
        let gw = width(g);
        if lw + gw > w && !line.is_empty() {
            out.push(std::mem::take(&mut line));
            lw = 0;
        }
        line.push_str(g);
        lw += gw;
    }
    out.push(line);
    out
}

/// The part of `s` from display column `skip` spanning at most `w` columns.
pub fn slice_cols(s: &str, skip: usize, w: usize) -> String {
    let mut col = 0;
    let mut out = String::new();
    let mut used = 0;
    for c in s.chars() {
        let cw = UnicodeWidthChar::width(c).unwrap_or(0);
        if col < skip {
            col += cw;
            continue;
        }
        if used + cw > w {
            break;
        }
        out.push(c);
        used += cw;
    }
    out
}

/// The first display column at or after `col` where a glyph of `s` starts
/// (a wide character covering `col` is skipped whole, as
/// [`slice_cols`] does); the width of `s` when none does.
pub fn glyph_start_at_or_after(s: &str, col: usize) -> usize {
    let mut at = 0;
    for c in s.chars() {
        if at >= col {
            return at;
        }
        at += UnicodeWidthChar::width(c).unwrap_or(0);
    }
    at
}

/// Clip `s` to `w` columns, ending with `…` when cut. A cut never leaves
/// half a flag: a trailing regional indicator without its pair is left
/// out, or the terminal would pair it with whatever comes next.
pub fn clip(s: &str, w: usize) -> String {
    if width(s) <= w {
        return s.to_owned();
    }
    let mut out = slice_cols(s, 0, w.saturating_sub(1));
    let trailing = out
        .chars()
        .rev()
        .take_while(|c| matches!(*c as u32, 0x1f1e6..=0x1f1ff))
        .count();
    if trailing % 2 == 1 {
        out.pop();
    }
    out.push('…');
    out
}

/// Whether the grapheme `s` (several code points) is drawn by terminals
/// differently from how it is measured: regional indicator pairs (flags),
/// variation selectors (VS15, VS16) and emoji modifiers, or any cluster
/// whose measured width is not the sum of its characters' widths.
fn ambiguous_cluster(s: &str) -> bool {
    let mut chars = s.chars();
    if chars.next().is_none() || chars.next().is_none() {
        return false;
    }
    let per_char: usize = s
        .chars()
        .map(|c| UnicodeWidthChar::width(c).unwrap_or(0))
        .sum();
    per_char != width(s)
        || s.chars()
            .any(|c| matches!(c as u32, 0xfe0e | 0xfe0f | 0x1f1e6..=0x1f1ff | 0x1f3fb..=0x1f3ff))
}

/// Draw every grapheme cluster whose width terminals disagree on (flags,
/// VS16 emoji, emoji with modifiers) as its characters, one cell each, so
/// that no cell is covered by a glyph the terminal may draw narrower: a
/// covered cell is never written, and what an earlier frame left there
/// would stay on screen. Each character with a width takes the next cells
/// of the cluster's room (a flag's two letters side by side, which
/// terminals that draw flags join again); variation selectors and
/// characters that no longer fit are left out; the room left is blank.
/// Called on every frame before it is written.
pub fn settle_wide(buf: &mut ratatui::buffer::Buffer) {
    let area = buf.area;
    for y in area.top()..area.bottom() {
        let mut x = area.left();
        while x < area.right() {
            let sym = buf[(x, y)].symbol().to_owned();
            let room = width(&sym).max(1);
            if ambiguous_cluster(&sym) {
                let style = buf[(x, y)].style();
                let end = (x as usize + room).min(area.right() as usize);
                let mut at = x as usize;
                for c in sym.chars() {
                    let cw = UnicodeWidthChar::width(c).unwrap_or(0);
                    if matches!(c as u32, 0xfe0e | 0xfe0f) || cw == 0 || at + cw > end {
                        continue;
                    }
                    let pos = (at as u16, y);
                    buf[pos]
                        .set_symbol(c.encode_utf8(&mut [0; 4]))
                        .set_style(style);
                    // A wide character covers the cell after it.
                    for k in 1..cw {
                        buf[(at as u16 + k as u16, y)]
                            .set_symbol("")
                            .set_style(style);
                    }
                    at += cw;
                }
                for k in at..end {
                    buf[(k as u16, y)].set_symbol(" ").set_style(style);
                }
            }
            x = x.saturating_add(room as u16);
        }
    }
}

#[cfg(test)]
mod tests {

    #[test]
    fn a_clip_never_leaves_half_a_flag() {
        let flags = "\u{1f1ef}\u{1f1f5}".repeat(5);
        for w in 1..12 {
            let cut = clip(&flags, w);
            let letters = cut
                .chars()
                .filter(|c| matches!(*c as u32, 0x1f1e6..=0x1f1ff))
                .count();
            assert_eq!(letters % 2, 0, "width {w}: {cut:?}");
            assert!(width(&cut) <= w, "width {w}: {cut:?}");
        }
        let text = format!("xx{flags}");
        let cut = clip(&text, 9);
        assert!(cut.ends_with('…'), "{cut:?}");
        assert_eq!(
            cut.chars()
                .filter(|c| matches!(*c as u32, 0x1f1e6..=0x1f1ff))
                .count()
                % 2,
            0,
            "{cut:?}"
        );
    }

    use super::*;

    #[test]
    fn a_wrap_never_splits_a_flag_or_an_emoji_sequence() {
        // Three flags (two columns each) in a five-column line: the third
        // goes to the next line whole.
        let flags = "\u{1f1e9}\u{1f1ea}\u{1f1eb}\u{1f1f7}\u{1f1ef}\u{1f1f5}";
        assert_eq!(
            wrap(&format!("ab{flags}"), 5),
            vec![
                "ab\u{1f1e9}\u{1f1ea}".to_owned(),
                "\u{1f1eb}\u{1f1f7}\u{1f1ef}\u{1f1f5}".to_owned()
            ]
        );
        // A family (ZWJ sequence) is not cut between its people.
        let family = "\u{1f468}\u{200d}\u{1f469}\u{200d}\u{1f467}";
        let lines = wrap(&format!("abc{family}"), 4);
        assert_eq!(lines, vec!["abc".to_owned(), family.to_owned()]);
    }

    #[test]
    fn wrapping_by_glyph_keeps_every_character() {
        assert_eq!(wrap_chars("abcdefg", 3), vec!["abc", "def", "g"]);
        assert_eq!(wrap_chars("", 3), vec![""]);
        assert_eq!(wrap_chars("例え例", 3), vec!["例", "え", "例"]);
        assert_eq!(wrap_chars("ab🇳🇴", 3), vec!["ab", "🇳🇴"]);
        assert_eq!(wrap("the quick brown fox", 9), vec!["the quick", "brown fox"]);
        assert_eq!(
            wrap("a verylongword b", 5),
            vec!["a", "veryl", "ongwo", "rd b"]
        );
    }

    #[test]
    fn wraps_by_columns() {
        assert_eq!(wrap("aaa bbb ccc", 7), vec!["aaa bbb", "ccc"]);
        assert_eq!(wrap("abcdefgh", 3), vec!["abc", "def", "gh"]);
        assert_eq!(wrap("世界世界", 5), vec!["世界", "世界"]);
        assert_eq!(wrap("", 5), vec![""]);
        assert_eq!(wrap("  ab cd", 5), vec!["  ab", "  cd"]);
        assert_eq!(clip("hello world", 6), "hello…");
        assert_eq!(slice_cols("a世b", 1, 2), "世");
    }

    #[test]
    fn glyph_starts() {
        assert_eq!(glyph_start_at_or_after("世界x", 0), 0);
        assert_eq!(glyph_start_at_or_after("世界x", 1), 2);
        assert_eq!(glyph_start_at_or_after("世界x", 3), 4);
        assert_eq!(glyph_start_at_or_after("ab", 5), 2);
        // A combining mark has no width: it stays with its base.
        assert_eq!(glyph_start_at_or_after("e\u{301}f", 1), 1);
    }
}
