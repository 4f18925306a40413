//! Width-aware helpers for drawing: wrapping and clipping by display columns
//! (unicode-width), so wide and combining characters never break the layout. Inputs here are already sanitised by `safe_text`.

use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

/// Display width of `s` in terminal columns.
pub fn width(s: &str) -> usize {
    UnicodeWidthStr::width(s)
}

/// Wrap `s` into lines of at most `w` columns, breaking at spaces when
/// possible and inside words otherwise; leading spaces (indentation) are
/// kept on every line. Always at least one line.
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
            lw = 0;
        }
        for c in word.chars() {
            let cw = UnicodeWidthChar::width(c).unwrap_or(0);
            if lw + cw > w && !line.is_empty() {
                out.push(std::mem::take(&mut line));
                lw = 0;
            }
            line.push(c);
            lw += cw;
        }
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

/// Clip `s` to `w` columns, ending with `…` when cut.
pub fn clip(s: &str, w: usize) -> String {
    if width(s) <= w {
        return s.to_owned();
    }
    let mut out = slice_cols(s, 0, w.saturating_sub(1));
    out.push('…');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

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
