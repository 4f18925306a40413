//! What every request screen (form, refusable, URL consent) shares: the
//! scroll window over its body, the button row and the help line, all drawn
//! with the [`Theme`].

use std::ops::Range;

use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};

use super::text::{clip, width};
use super::theme::Theme;

/// A window of `height` rows over a body of `total` rows, scrolled by a
/// row offset that never goes past the end of the body.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ScrollView {
    /// Rows in the body.
    pub total: usize,
    /// Rows on screen.
    pub height: usize,
}

impl ScrollView {
    /// The largest useful offset: the last row of the body at the bottom of
    /// the window (0 when the body fits).
    pub fn max_offset(&self) -> usize {
        self.total.saturating_sub(self.height)
    }

    /// `offset` limited to [`ScrollView::max_offset`].
    pub fn clamp(&self, offset: usize) -> usize {
        offset.min(self.max_offset())
    }

    /// The body rows on screen at `offset` (clamped first).
    pub fn rows(&self, offset: usize) -> Range<usize> {
        let start = self.clamp(offset);
        start..(start + self.height).min(self.total)
    }
}

/// One button of a [`button_row`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ButtonCell<'a> {
    /// The label.
    pub label: &'a str,
    /// Whether it has the focus (Enter presses it).
    pub focused: bool,
    /// Whether pressing it does nothing now (drawn crossed out).
    pub disabled: bool,
}

impl<'a> ButtonCell<'a> {
    /// An enabled button.
    pub fn new(label: &'a str, focused: bool) -> Self {
        ButtonCell {
            label,
            focused,
            disabled: false,
        }
    }
}

/// How a [`button_row`] marks its buttons.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RowKind {
    /// ` [ Send ]  [ Back ]  `: the focus shown by the theme's
    /// focused-button style (forms and refusable screens).
    Spaced,
    /// `[>Decline<] [ Open ]`: the focus also marked by arrows, so it shows
    /// without colour (URL consent, where the focus decides what Enter
    /// does).
    Marked,
}

/// The text of one button.
fn button_text(cell: &ButtonCell, kind: RowKind) -> String {
    match (kind, cell.focused) {
        (RowKind::Marked, true) => format!("[>{}<]", cell.label),
        _ => format!("[ {} ]", cell.label),
    }
}

/// The style of one button: the theme's (focused) button style; a disabled
/// button is crossed out, and muted unless focused.
fn button_style(cell: &ButtonCell, theme: &Theme) -> Style {
    match (cell.focused, cell.disabled) {
        (true, true) => theme.button(true).add_modifier(Modifier::CROSSED_OUT),
        (false, true) => theme.muted().add_modifier(Modifier::CROSSED_OUT),
        (focused, false) => theme.button(focused),
    }
}

/// The columns a [`button_row`] of `cells` takes.
pub fn row_width(cells: &[ButtonCell], kind: RowKind) -> usize {
    let texts: usize = cells.iter().map(|c| width(&button_text(c, kind))).sum();
    match kind {
        RowKind::Spaced => 1 + texts + 2 * cells.len(),
        RowKind::Marked => texts + cells.len().saturating_sub(1),
    }
}

/// The row of buttons at the foot of a screen.
pub fn button_row(cells: &[ButtonCell], kind: RowKind, theme: &Theme) -> Line<'static> {
    let mut spans = Vec::new();
    if kind == RowKind::Spaced {
        spans.push(Span::raw(" "));
    }
    for (i, cell) in cells.iter().enumerate() {
        if kind == RowKind::Marked && i > 0 {
            spans.push(Span::raw(" "));
        }
        spans.push(Span::styled(
            button_text(cell, kind),
            button_style(cell, theme),
        ));
        if kind == RowKind::Spaced {
            spans.push(Span::raw("  "));
        }
    }
    Line::from(spans)
}

/// The key help line: the first of `candidates` (longest first) that fits
/// in `w` columns, else the last one clipped; muted.
pub fn help_line(candidates: &[&str], theme: &Theme, w: usize) -> Line<'static> {
    let text = candidates
        .iter()
        .find(|h| width(h) <= w)
        .or(candidates.last())
        .copied()
        .unwrap_or_default();
    Line::styled(clip(text, w), theme.muted())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scroll_view_clamps_to_the_end() {
        let v = ScrollView {
            total: 10,
            height: 4,
        };
        assert_eq!(v.max_offset(), 6);
        assert_eq!(v.rows(3), 3..7);
        assert_eq!(v.rows(50), 6..10);
        let short = ScrollView {
            total: 2,
            height: 4,
        };
        assert_eq!(short.rows(5), 0..2);
    }

    #[test]
    fn rows_mark_the_focus_their_way() {
        let t = Theme::monochrome();
        let cells = [
            ButtonCell::new("Send", true),
            ButtonCell::new("Back", false),
        ];
        let spaced = button_row(&cells, RowKind::Spaced, &t).to_string();
        assert_eq!(spaced, " [ Send ]  [ Back ]  ");
        assert_eq!(row_width(&cells, RowKind::Spaced), width(&spaced));
        let marked = button_row(&cells, RowKind::Marked, &t).to_string();
        assert_eq!(marked, "[>Send<] [ Back ]");
        assert_eq!(row_width(&cells, RowKind::Marked), width(&marked));
    }

    #[test]
    fn help_line_takes_the_longest_that_fits() {
        let t = Theme::monochrome();
        let c = ["a long help text", "short help", "tiny help text"];
        assert_eq!(help_line(&c, &t, 20).to_string(), "a long help text");
        assert_eq!(help_line(&c, &t, 12).to_string(), "short help");
        assert_eq!(help_line(&c, &t, 8).to_string(), "tiny he…");
    }
}
