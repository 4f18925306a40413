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

/// The part of `s` from display column `skip` spanning at most `w` columns,
/// glyph (grapheme cluster) by glyph: a glyph covering column `skip` is
/// left out whole, so is one that would pass `w`; an emoji sequence or a
/// letter with its marks is never cut.
pub fn slice_cols(s: &str, skip: usize, w: usize) -> String {
    let mut col = 0;
    let mut out = String::new();
    let mut used = 0;
    for g in UnicodeSegmentation::graphemes(s, true) {
        let gw = width(g);
        if col < skip {
            col += gw;
            continue;
        }
        if used + gw > w {
            break;
        }
        out.push_str(g);
        used += gw;
    }
    out
}

/// The first display column at or after `col` where a glyph (grapheme
/// cluster) of `s` starts (a glyph covering `col` is skipped whole, as
/// [`slice_cols`] does); the width of `s` when none does.
pub fn glyph_start_at_or_after(s: &str, col: usize) -> usize {
    let mut at = 0;
    for g in UnicodeSegmentation::graphemes(s, true) {
        if at >= col {
            return at;
        }
        at += width(g);
    }
    at
}

/// Clip `s` to `w` columns, ending with `…` when cut. A cut falls between
/// glyphs ([`slice_cols`]): never half a flag (a lone regional indicator
/// would pair with whatever comes next) nor part of an emoji sequence.
pub fn clip(s: &str, w: usize) -> String {
    if width(s) <= w {
        return s.to_owned();
    }
    let mut out = slice_cols(s, 0, w.saturating_sub(1));
    out.push('…');
    out
}

/// Clip `s` to `w` columns by cutting its middle: the first third is kept,
/// then `…`, then as much of the end as fits. For a command line or a path
/// the end (the program's file name, its arguments) is what tells it
/// apart. Cuts fall between glyphs, as in [`clip`].
pub fn clip_middle(s: &str, w: usize) -> String {
    let total = width(s);
    if total <= w {
        return s.to_owned();
    }
    if w < 8 {
        return clip(s, w);
    }
    let room = w - 1;
    let head = slice_cols(s, 0, room / 3);
    let tail_w = room - width(&head);
    let start = glyph_start_at_or_after(s, total - tail_w);
    let mut out = head;
    out.push('…');
    out.push_str(&slice_cols(s, start, tail_w));
    out
}

/// Clip `s` to `w` columns by cutting its start: `…`, then as much of the
/// end as fits (cuts fall between glyphs, as in [`clip`]). For the end of
/// a command line where even a middle cut leaves too little.
pub fn clip_start(s: &str, w: usize) -> String {
    let total = width(s);
    if total <= w {
        return s.to_owned();
    }
    if w == 0 {
        return String::new();
    }
    let tail_w = w - 1;
    let start = glyph_start_at_or_after(s, total - tail_w);
    let mut out = String::from('…');
    out.push_str(&slice_cols(s, start, tail_w));
    out
}

/// Whether the grapheme `s` (several code points) is drawn by terminals
/// differently from how it is measured: regional indicator pairs (flags),
/// variation selectors (VS15, VS16) and emoji modifiers, or any cluster
/// whose measured width is not the sum of its characters' widths (an emoji
/// ZWJ sequence).
fn disputed_cluster(s: &str) -> bool {
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

/// The most columns a terminal that draws character by character gives
/// the cluster `s`: the sum of its characters' widths, a character made
/// wide by a following VS16 counted as two (some such terminals widen it).
/// Never less than the measured width.
fn widest_drawing(s: &str) -> usize {
    let mut cols = 0;
    let mut last = 0;
    for c in s.chars() {
        if c == '\u{fe0f}' && last == 1 {
            cols += 1;
            last = 2;
            continue;
        }
        let cw = UnicodeWidthChar::width(c).unwrap_or(0);
        if cw > 0 {
            last = cw;
        }
        cols += cw;
    }
    cols.max(width(s))
}

/// Append to `text` the sequence that sets exactly `style` (attributes
/// reset first): what crossterm writes for it.
fn sgr(text: &mut String, style: ratatui::style::Style) {
    use ratatui::backend::IntoCrossterm;
    use ratatui::crossterm::Command;
    text.push_str("\x1b[0m");
    let _ = ratatui::crossterm::style::SetStyle(style.into_crossterm()).write_ansi(text);
}

/// Make every frame draw emoji sequences whole and clean on any terminal.
///
/// Terminals disagree on the width of some grapheme clusters: a modern
/// terminal (kitty, WezTerm, foot, Ghostty, iTerm2, Windows Terminal,
/// Konsole; tmux depending on its version and build) draws an emoji ZWJ
/// sequence (👩‍💻), an emoji with a skin tone (👍🏽), a VS16 emoji (❤️)
/// and a flag as one glyph two columns wide, the width Unicode's emoji
/// rules and `unicode-width` give and the one this program lays out with. A terminal that draws
/// character by character (xterm, Alacritty, VTE before grapheme support,
/// the Linux console) draws a ZWJ sequence or a skin tone wider (each
/// emoji of it) and may draw a VS16 emoji one column wide. Either way,
/// ratatui writes only the cells that changed and never the cells a wide
/// glyph covers, so a glyph drawn narrower would leave what an earlier
/// frame had there, and one drawn wider would cover its neighbours.
///
/// Each such cluster, with the clusters right after it and the glyphs a
/// character-by-character terminal could draw over (a run), is written as
/// one cell of the run's measured width. Its text blanks each cluster's
/// columns and writes it whole at its column, writes each other glyph at
/// its column, each in its own style, and puts the cursor at the run's end
/// in the style the run started with (absolute column moves, `CSI n G`,
/// and SGR; the text is the sanitized glyphs themselves). Whenever any
/// glyph of the run changes, the whole run is written again. So a modern
/// terminal shows the emoji whole; an older one shows its first emoji (the
/// rest it drew past the cluster's columns is overwritten by the glyphs
/// that belong there): no cell is ever stale. A run an older terminal could draw past the right edge of the
/// screen is written with automatic wrapping off (DECAWM, `CSI ? 7 l`, on
/// again right after it), so nothing is wrapped onto the next line.
/// Called on every frame before it is written.
pub fn settle_wide(buf: &mut ratatui::buffer::Buffer) {
    use ratatui::buffer::CellDiffOption;
    use ratatui::style::Style;
    use std::fmt::Write;
    let area = buf.area;
    let right = area.right() as usize;
    for y in area.top()..area.bottom() {
        let mut x = area.left() as usize;
        while x < right {
            let cell = &buf[(x as u16, y)];
            let w = width(cell.symbol()).max(1);
            if !disputed_cluster(cell.symbol()) {
                x += w;
                continue;
            }
            // The run: this cluster, the clusters right after it and every
            // glyph a character-by-character terminal could draw over. Each
            // is written in its own style; the run's first style is set
            // again at its end, where the backend believes it stands.
            let style = cell.style();
            let mut parts: Vec<(usize, usize, String, Style)> = Vec::new();
            let mut end = x;
            let mut reach = x;
            while end < right {
                let c = &buf[(end as u16, y)];
                let sym = c.symbol();
                let disputed = disputed_cluster(sym);
                if !disputed && end >= reach {
                    break;
                }
                let cw = width(sym).max(1).min(right - end);
                if disputed {
                    reach = reach.max(end + widest_drawing(sym));
                }
                parts.push((end, cw, sym.to_owned(), c.style()));
                end += cw;
            }
            let past_edge = reach > right;
            let mut text = String::new();
            if past_edge {
                text.push_str("\x1b[?7l");
            }
            let mut current = style;
            for (at, cw, part, part_style) in &parts {
                if *part_style != current {
                    sgr(&mut text, *part_style);
                    current = *part_style;
                }
                let col = at + 1;
                if disputed_cluster(part) {
                    let _ = write!(text, "\x1b[{col}G{}", " ".repeat(*cw));
                }
                let _ = write!(text, "\x1b[{col}G{part}");
            }
            if current != style {
                sgr(&mut text, style);
            }
            let _ = write!(text, "\x1b[{}G", end + 1);
            if past_edge {
                text.push_str("\x1b[?7h");
            }
            let run = u16::try_from(end - x)
                .ok()
                .and_then(std::num::NonZeroU16::new);
            let Some(run) = run else {
                x += w;
                continue;
            };
            buf[(x as u16, y)]
                .set_symbol(&text)
                .set_diff_option(CellDiffOption::ForcedWidth(run));
            // The run's other columns are never written while it stands
            // (the cell above covers them), and differ from any cell a
            // later frame puts there: that cell is then written, even a
            // blank, over what a terminal drew there of the run (a flag
            // drawn as two letters).
            for (at, cw, _, part_style) in &parts {
                for k in (*at).max(x + 1)..at + cw {
                    let c = &mut buf[(k as u16, y)];
                    c.reset();
                    c.set_style(*part_style)
                        .set_diff_option(CellDiffOption::AlwaysUpdate);
                }
            }
            x = end;
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
    fn a_start_cut_keeps_the_end_whole_glyphs_only() {
        assert_eq!(clip_start("python3 srv.py form", 6), "… form");
        assert_eq!(clip_start("short", 9), "short");
        assert_eq!(clip_start("abc", 0), "");
        // A wide glyph that would be split at the cut is left out.
        assert_eq!(clip_start("x日本", 3), "…本");
    }

    #[test]
    fn clip_middle_keeps_the_end() {
        let s = "Launched as: node /home/ada/src/servers/src/server-everything/dist/index.js stdio";
        let got = clip_middle(s, 40);
        assert_eq!(got, "Launched as: …ything/dist/index.js stdio");
        assert_eq!(width(&got), 40);
        assert_eq!(clip_middle("short", 40), "short");
        // Wide glyphs are never split: the cut lands between them.
        let got = clip_middle("漢字漢字漢字漢字漢字漢字", 13);
        assert_eq!(got, "漢字…漢字漢字");
        assert!(width(&got) <= 13);
    }

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
        assert_eq!(
            wrap("the quick brown fox", 9),
            vec!["the quick", "brown fox"]
        );
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

    fn settled(line: &str, w: u16) -> ratatui::buffer::Buffer {
        let mut buf = ratatui::buffer::Buffer::empty(ratatui::layout::Rect::new(0, 0, w, 1));
        buf.set_string(0, 0, line, ratatui::style::Style::default());
        settle_wide(&mut buf);
        buf
    }

    #[test]
    fn an_emoji_sequence_is_written_whole_in_one_cell_of_its_width() {
        use ratatui::buffer::CellDiffOption::{AlwaysUpdate, ForcedWidth, None};
        let coder = "\u{1f469}\u{200d}\u{1f4bb}";
        let buf = settled(&format!("a{coder}bcdef"), 10);
        // Blank the two columns, draw the sequence at column 2 (1-based),
        // then the two glyphs a terminal drawing it character by character
        // (four columns) would draw over, and leave the cursor after them.
        assert_eq!(
            buf[(1, 0)].symbol(),
            format!("\x1b[2G  \x1b[2G{coder}\x1b[4Gb\x1b[5Gc\x1b[6G")
        );
        assert_eq!(buf[(1, 0)].diff_option, ForcedWidth(4.try_into().unwrap()));
        for covered in 2..5 {
            assert_eq!(buf[(covered, 0)].diff_option, AlwaysUpdate);
        }
        assert_eq!(buf[(5, 0)].symbol(), "d");
        assert_eq!(buf[(5, 0)].diff_option, None);
        assert_eq!(buf[(0, 0)].diff_option, None);
    }

    #[test]
    fn side_by_side_sequences_are_one_run_and_plain_text_is_untouched() {
        let thumb = "\u{1f44d}\u{1f3fd}";
        let heart = "\u{2764}\u{fe0f}";
        let buf = settled(&format!("{thumb}{heart}x"), 6);
        assert_eq!(
            buf[(0, 0)].symbol(),
            format!("\x1b[1G  \x1b[1G{thumb}\x1b[3G  \x1b[3G{heart}\x1b[5G")
        );
        let plain = "e\u{301}世界 ok";
        let buf = settled(plain, 8);
        let mut want = ratatui::buffer::Buffer::empty(buf.area);
        want.set_string(0, 0, plain, ratatui::style::Style::default());
        assert_eq!(buf, want);
    }

    #[test]
    fn a_run_that_could_pass_the_right_edge_turns_wrapping_off() {
        let family = "\u{1f468}\u{200d}\u{1f469}\u{200d}\u{1f467}";
        let buf = settled(&format!("abcd{family}"), 6);
        assert_eq!(
            buf[(4, 0)].symbol(),
            format!("\x1b[?7l\x1b[5G  \x1b[5G{family}\x1b[7G\x1b[?7h")
        );
        let buf = settled(&format!("ab{family}xy"), 10);
        assert!(
            !buf[(2, 0)].symbol().contains("?7"),
            "{:?}",
            buf[(2, 0)].symbol()
        );
    }

    #[test]
    fn glyph_starts() {
        assert_eq!(glyph_start_at_or_after("世界x", 0), 0);
        assert_eq!(glyph_start_at_or_after("世界x", 1), 2);
        assert_eq!(glyph_start_at_or_after("世界x", 3), 4);
        assert_eq!(glyph_start_at_or_after("ab", 5), 2);
        // A combining mark has no width: it stays with its base.
        assert_eq!(glyph_start_at_or_after("e\u{301}f", 1), 1);
        // An emoji sequence is one glyph two columns wide.
        let coder = "\u{1f469}\u{1f3fd}\u{200d}\u{1f4bb}";
        let text = format!("a{coder}b");
        assert_eq!(glyph_start_at_or_after(&text, 2), 3);
        assert_eq!(slice_cols(&text, 1, 2), coder);
        assert_eq!(slice_cols(&text, 2, 2), "b");
        assert_eq!(slice_cols(&text, 0, 2), "a");
        assert_eq!(slice_cols("e\u{301}f", 1, 1), "f");
        assert_eq!(clip(&format!("{coder}{coder}x"), 4), format!("{coder}…"));
    }
}
