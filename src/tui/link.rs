//! The URL on the consent and copy screens written again, after the frame,
//! as one OSC 8 hyperlink (`ESC ] 8 ; id=… ; URL ESC \`): ratatui draws the
//! URL in rows of cells, and a terminal that finds links by itself would
//! open only the part on the row clicked. Every row carries the whole
//! address ([`super::url_view::link_target`]: printable ASCII, bounded), with
//! one id, so the terminal treats the rows as one link. On the copy screen
//! the URL (from column 0, full rows) is written as one string the terminal
//! wraps itself, so a selection copies one line.
//!
//! Written only where the terminal is taken to support it
//! ([`supported`]); the cells keep the text and style ratatui drew.

use std::io::Write;

use crossterm::style::{Attribute, Print, SetAttribute, SetBackgroundColor, SetForegroundColor};
use crossterm::{cursor::MoveTo, queue};
use ratatui::backend::IntoCrossterm;
use ratatui::buffer::Buffer;
use ratatui::style::Modifier;

use super::url_view::UrlLink;

/// The OSC 8 `id` every row of the URL shares.
const LINK_ID: &str = "ahp-elicit-url";

/// Whether hyperlinks are written for this terminal: not for `TERM`
/// `dumb`, the Linux console (`linux`) or an unset `TERM`, which print or
/// ignore no OSC 8; every other terminal either supports it or ignores it.
pub fn supported() -> bool {
    supported_by(std::env::var("TERM").ok().as_deref())
}

/// [`supported`] for a given `TERM`.
pub fn supported_by(term: Option<&str>) -> bool {
    match term {
        None | Some("" | "dumb") => false,
        Some(t) => !t.starts_with("linux"),
    }
}

/// The bytes that write `link` over the frame in `buf` (its cells' style
/// kept): each row, or the whole URL as one string when
/// [`UrlLink::one_line`], between an OSC 8 opening and its end; the style
/// reset after.
pub fn bytes(link: &UrlLink, buf: &Buffer) -> Vec<u8> {
    let mut out = Vec::new();
    let open = format!("\x1b]8;id={LINK_ID};{}\x1b\\", link.target);
    let close = "\x1b]8;;\x1b\\";
    let runs: Vec<(u16, u16, String)> = if link.one_line {
        let (x, y, _) = link.rows[0];
        let all: String = link.rows.iter().map(|(_, _, t)| t.as_str()).collect();
        vec![(x, y, all)]
    } else {
        link.rows.clone()
    };
    for (x, y, text) in runs {
        let _ = queue!(out, MoveTo(x, y));
        style(&mut out, buf, x, y);
        let _ = queue!(out, Print(&open), Print(&text), Print(close));
        let _ = queue!(out, SetAttribute(Attribute::Reset));
    }
    if !out.is_empty() {
        // The frame ends as ratatui ends one on a screen without a text
        // cursor (URL screens have none): the cursor hidden, last.
        let _ = queue!(out, crossterm::cursor::Hide);
    }
    let _ = out.flush();
    out
}

/// Set the style of the cell at (`x`, `y`) of `buf`.
fn style(out: &mut Vec<u8>, buf: &Buffer, x: u16, y: u16) {
    let Some(cell) = buf.cell((x, y)) else {
        return;
    };
    let _ = queue!(
        out,
        SetAttribute(Attribute::Reset),
        SetForegroundColor(cell.fg.into_crossterm()),
        SetBackgroundColor(cell.bg.into_crossterm())
    );
    let m = cell.modifier;
    for (bit, attr) in [
        (Modifier::BOLD, Attribute::Bold),
        (Modifier::DIM, Attribute::Dim),
        (Modifier::ITALIC, Attribute::Italic),
        (Modifier::UNDERLINED, Attribute::Underlined),
        (Modifier::REVERSED, Attribute::Reverse),
    ] {
        if m.contains(bit) {
            let _ = queue!(out, SetAttribute(attr));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_row_carries_the_whole_address_or_one_string_wraps() {
        let buf = Buffer::empty(ratatui::layout::Rect::new(0, 0, 10, 5));
        let link = UrlLink {
            target: "https://a.example/0123456789".into(),
            rows: vec![(2, 1, "https://".into()), (2, 2, "a.example/".into())],
            one_line: false,
        };
        let text = String::from_utf8(bytes(&link, &buf)).expect("utf-8");
        let open = "\x1b]8;id=ahp-elicit-url;https://a.example/0123456789\x1b\\";
        assert_eq!(text.matches(open).count(), 2, "{text:?}");
        assert!(text.contains(&format!("{open}https://\x1b]8;;\x1b\\")));
        assert!(text.contains("\x1b[3;3H"), "{text:?}");
        // Written after ratatui's frame, it ends the frame as ratatui does.
        assert!(text.ends_with("\x1b[?25l"), "{text:?}");
        let one = UrlLink {
            one_line: true,
            rows: vec![(0, 1, "https://a.".into()), (0, 2, "example/".into())],
            ..link
        };
        let text = String::from_utf8(bytes(&one, &buf)).expect("utf-8");
        assert_eq!(text.matches(open).count(), 1, "{text:?}");
        assert!(text.contains(&format!("{open}https://a.example/\x1b]8;;\x1b\\")));
    }

    #[test]
    fn dumb_and_console_terminals_get_no_hyperlink() {
        assert!(supported_by(Some("xterm-256color")));
        assert!(supported_by(Some("tmux-256color")));
        assert!(!supported_by(Some("dumb")));
        assert!(!supported_by(Some("linux")));
        assert!(!supported_by(None));
    }
}
