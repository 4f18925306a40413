//! What every request screen (form, refusable, URL consent) shares: the
//! scroll window over its body, the button row and the help line, all drawn
//! with the [`Theme`].

use std::ops::Range;

use ratatui::layout::{Position, Rect};
use ratatui::widgets::Paragraph;
use ratatui::Frame;

use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};

use super::header::{header_lines, Header, COMPACT_HEADER_BELOW};
use super::text::{clip, width, wrap};
use super::theme::Theme;
use crate::binding::Action;

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

/// The column of the focused button's label in a [`button_row`] of
/// `cells` (0-based, from the row's start), where the terminal cursor goes
/// so a screen reader reads the button that has the focus; None when no
/// button has it.
pub fn focused_label_column(cells: &[ButtonCell], kind: RowKind) -> Option<u16> {
    let mut x = match kind {
        RowKind::Spaced => 1,
        RowKind::Marked => 0,
    };
    for cell in cells {
        if cell.focused {
            // After `[ ` or `[>`.
            return u16::try_from(x + 2).ok();
        }
        x += width(&button_text(cell, kind))
            + match kind {
                RowKind::Spaced => 2,
                RowKind::Marked => 1,
            };
    }
    None
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

/// Smallest usable screen (columns).
pub const MIN_WIDTH: u16 = 40;
/// Smallest usable screen (rows).
pub const MIN_HEIGHT: u16 = 10;

/// Whether the area is below the minimum; draws the message if so.
pub fn too_small(f: &mut Frame, theme: &Theme) -> bool {
    too_small_asking(f, theme, None)
}

/// [`too_small`] for a form that may wait for a discard to be confirmed
/// (`confirming`: the decline or cancel asked for): the message then says
/// that a second Esc throws the answers away, so the question is seen
/// even while the form itself cannot be.
pub fn too_small_asking(f: &mut Frame, theme: &Theme, confirming: Option<Action>) -> bool {
    let a = f.area();
    if a.width >= MIN_WIDTH && a.height >= MIN_HEIGHT {
        return false;
    }
    let size = format!(
        "Terminal too small ({}x{}): ahp-elicit needs at least {MIN_WIDTH}x{MIN_HEIGHT}.",
        a.width, a.height
    );
    let msg = match confirming {
        Some(what) => format!(
            "{size} {} Esc again: yes. Enlarge the window to go back to the form.",
            crate::form::discard_question(what)
        ),
        None => format!(
            "{size} Enlarge the window, or press Esc to cancel (twice if you entered anything)."
        ),
    };
    let w = a.width.max(1) as usize;
    let mut text = wrap(&msg, w);
    if text.len() > a.height as usize {
        // Too few rows for the sentences: the short form, so what a key
        // does is never cut away.
        let short = match confirming {
            Some(Action::Decline) => {
                format!("Too small: needs {MIN_WIDTH}x{MIN_HEIGHT}. Discard and decline? Esc: yes.")
            }
            Some(_) => {
                format!("Too small: needs {MIN_WIDTH}x{MIN_HEIGHT}. Discard and cancel? Esc: yes.")
            }
            None => {
                format!("Too small: needs {MIN_WIDTH}x{MIN_HEIGHT}. Enlarge it, or Esc: cancel.")
            }
        };
        text = wrap(&short, w);
    }
    let lines: Vec<Line> = text
        .into_iter()
        .map(|l| Line::styled(l, theme.warning()))
        .collect();
    f.render_widget(Paragraph::new(lines), a);
    true
}

/// [`too_small`] for a screen of the session that is no request (the
/// list, a result): the size it needs and what its keys do there, `keys`
/// (`press Esc or q to leave`) in the sentence, `short` (`Esc/q: leave`)
/// when the sentence does not fit the rows, so what a key does is never
/// cut away.
pub fn too_small_saying(f: &mut Frame, theme: &Theme, keys: &str, short: &str) -> bool {
    let a = f.area();
    if a.width >= MIN_WIDTH && a.height >= MIN_HEIGHT {
        return false;
    }
    let w = a.width.max(1) as usize;
    let mut text = wrap(
        &format!(
            "Terminal too small ({}x{}): this screen needs at least {MIN_WIDTH}x{MIN_HEIGHT}. Enlarge the window, or {keys}.",
            a.width, a.height
        ),
        w,
    );
    if text.len() > a.height as usize {
        text = wrap(
            &format!("Too small: needs {MIN_WIDTH}x{MIN_HEIGHT}. {short}."),
            w,
        );
    }
    let lines: Vec<Line> = text
        .into_iter()
        .map(|l| Line::styled(l, theme.warning()))
        .collect();
    f.render_widget(Paragraph::new(lines), a);
    true
}

/// A body of lines with the row range of the focused part and an optional
/// cursor (row, column) inside it.
#[derive(Default)]
pub(super) struct Body {
    pub(super) lines: Vec<Line<'static>>,
    pub(super) focus: Option<(usize, usize)>,
    pub(super) cursor: Option<(usize, u16)>,
    /// A row of the focus range that must be on screen even when the range
    /// is taller than the screen: the focused field's highlighted option.
    pub(super) mark: Option<usize>,
    /// The focused field's first input row and the end of its block.
    pub(super) input: Option<(usize, usize)>,
    /// Scroll (only as far as needed) so that `input` is on screen: the
    /// first frame of a form and the first after a resize.
    pub(super) place: bool,
    /// Where the terminal cursor goes for a focused widget that takes no
    /// typing (body row, column): a checkbox, the highlighted option.
    /// Screen readers follow the cursor. Unlike `cursor` it does not steer
    /// the scrolling, and it wins over `cursor` when both are set.
    pub(super) point: Option<(usize, u16)>,
    /// The terminal cursor on a footer row instead (footer row, column):
    /// the focused button's label.
    pub(super) foot_point: Option<(usize, u16)>,
}

impl Body {
    pub(super) fn push(&mut self, l: Line<'static>) {
        self.lines.push(l);
    }
    pub(super) fn text(&mut self, s: &str, style: Style, indent: usize, w: usize) {
        for l in wrap(s, w.saturating_sub(indent).max(1)) {
            self.push(Line::from(vec![
                Span::raw(" ".repeat(indent)),
                Span::styled(l, style),
            ]));
        }
    }
}

pub(super) fn buttons_line(labels: &[(&str, bool)], theme: &Theme) -> Line<'static> {
    let cells: Vec<ButtonCell> = labels
        .iter()
        .map(|(l, focused)| ButtonCell::new(l, *focused))
        .collect();
    button_row(&cells, RowKind::Spaced, theme)
}

/// The scroll offset that keeps the focus range `focus` (body rows) of a
/// body with an optional `cursor` row visible in `body_h` rows, starting
/// from `scroll`.
fn follow_focus(
    scroll: usize,
    focus: Option<(usize, usize)>,
    cursor: Option<(usize, u16)>,
    mark: Option<usize>,
    body_h: usize,
) -> usize {
    let Some((s, e)) = focus else {
        return scroll;
    };
    let e = e.max(s + 1);
    if e - s > body_h {
        // Taller than the screen: show as much of its end (the messages
        // under the input) as fits without scrolling the cursor row (the
        // input) out at the top; with no cursor, show its top.
        let top = match cursor {
            Some((r, _)) if r >= s => s.max(r.min(e - body_h)),
            _ => s,
        };
        // The highlighted option stays on screen, whatever else must go.
        match mark {
            Some(m) if (s..e).contains(&m) && body_h > 0 => {
                top.clamp(s.max((m + 1).saturating_sub(body_h)), m.min(e - body_h))
            }
            _ => top,
        }
    } else if s < scroll {
        s
    } else if e > scroll + body_h {
        e - body_h
    } else {
        scroll
    }
}

/// `scroll` moved only as far as needed for the input row of `input`
/// (its first row, then the end of its block) to be on screen: the top of
/// the body (the message) stays as far as the screen allows, and a long
/// description above the input is cut at its top rather than pushing the
/// input off the screen.
fn place_input(scroll: usize, input: Option<(usize, usize)>, body_h: usize) -> usize {
    let Some((row, end)) = input else {
        return scroll;
    };
    if body_h == 0 {
        return scroll;
    }
    if row < scroll {
        return row;
    }
    let last = end.max(row + 1).min(row + body_h);
    if last > scroll + body_h {
        last - body_h
    } else {
        scroll
    }
}

/// Draw header, scrolled body and footer; keeps `scroll` so that the
/// body's focus range is visible, and puts the terminal cursor at the
/// body's cursor (body row, column) when that row is on screen.
#[allow(clippy::too_many_arguments)]
pub(super) fn frame_with(
    f: &mut Frame,
    theme: &Theme,
    header: &Header,
    secret: Option<&str>,
    body: Body,
    footer: Vec<Line<'static>>,
    scroll: &mut usize,
) -> bool {
    let a = f.area();
    let w = a.width as usize;
    let compact = a.height < COMPACT_HEADER_BELOW;
    let head = header_lines(header, theme, w, secret, compact);
    let head_h = (head.len() as u16).min(a.height / 2);
    let foot_h = (footer.len() as u16).min(a.height.saturating_sub(head_h + 1));
    let body_h = a.height.saturating_sub(head_h + foot_h) as usize;
    f.render_widget(Paragraph::new(head), Rect::new(a.x, a.y, a.width, head_h));
    let view = ScrollView {
        total: body.lines.len(),
        height: body_h,
    };
    *scroll = view.clamp(follow_focus(
        *scroll,
        body.focus,
        body.cursor,
        body.mark,
        body_h,
    ));
    if body.place {
        *scroll = view.clamp(place_input(*scroll, body.input, body_h));
    }
    // Only real content counts as "below" (not the blank line that ends
    // the last field).
    let content_end = body
        .lines
        .iter()
        .rposition(|l| l.spans.iter().any(|s| !s.content.trim().is_empty()))
        .map_or(0, |i| i + 1);
    let more_below = content_end > *scroll + body_h;
    let rows = view.rows(*scroll);
    let visible: Vec<Line> = body.lines[rows].to_vec();
    let body_area = Rect::new(a.x, a.y + head_h, a.width, body_h as u16);
    f.render_widget(Paragraph::new(visible), body_area);
    if let Some((r, c)) = body.point.or(body.cursor) {
        if r >= *scroll && r < *scroll + body_h && c < a.width {
            f.set_cursor_position(Position::new(a.x + c, body_area.y + (r - *scroll) as u16));
        }
    }
    let foot_y = a.y + a.height - foot_h;
    if let Some((r, c)) = body.foot_point {
        if r < foot_h as usize && c < a.width {
            f.set_cursor_position(Position::new(a.x + c, foot_y + r as u16));
        }
    }
    f.render_widget(
        Paragraph::new(footer),
        Rect::new(a.x, foot_y, a.width, foot_h),
    );
    // Scroll indicators: on the header's rule and the footer's notice row, so
    // they never cover the body.
    if *scroll > 0 && body_h > 0 {
        let y = if head_h > 0 {
            a.y + head_h - 1
        } else {
            body_area.y
        };
        scroll_mark(f, theme, " ▲ more above ", y);
    }
    if more_below && body_h > 0 {
        let y = if foot_h > 0 {
            foot_y
        } else {
            body_area.y + body_h as u16 - 1
        };
        scroll_mark(f, theme, " ▼ more below ", y);
    }
    !more_below
}

/// A scroll indicator `t` at the right end of row `y`.
fn scroll_mark(f: &mut Frame, theme: &Theme, t: &str, y: u16) {
    let a = f.area();
    let tw = width(t) as u16;
    if tw < a.width {
        let x = a.x + a.width - tw - 1;
        f.render_widget(
            Paragraph::new(Line::styled(t.to_owned(), theme.muted())),
            Rect::new(x, y, tw, 1),
        );
    }
}

/// The area of a full-screen message inside `a`: one cell in from the left,
/// right and top edges.
pub(super) fn inset(a: Rect) -> Rect {
    Rect::new(
        a.x + 1,
        a.y + 1,
        a.width.saturating_sub(2),
        a.height.saturating_sub(1),
    )
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

#[cfg(test)]
mod too_small_tests {
    use super::*;
    use ratatui::{backend::TestBackend, Terminal};

    fn shown(w: u16, h: u16, confirming: Option<Action>) -> String {
        let mut t = Terminal::new(TestBackend::new(w, h)).expect("terminal");
        t.draw(|f| {
            too_small_asking(f, &Theme::monochrome(), confirming);
        })
        .expect("draw");
        let buf = t.backend().buffer().clone();
        (0..h)
            .map(|y| {
                (0..w)
                    .map(|x| buf[(x, y)].symbol().to_owned())
                    .collect::<String>()
                    .trim_end()
                    .to_owned()
            })
            .collect::<Vec<_>>()
            .join(" ")
    }

    #[test]
    fn a_tiny_window_says_what_esc_does_whole() {
        let s = shown(20, 6, None);
        assert!(s.contains("Esc: cancel."), "{s:?}");
        let s = shown(20, 6, Some(Action::Decline));
        assert!(s.contains("decline? Esc: yes."), "{s:?}");
        // Where the sentences fit, they are shown.
        let s = shown(39, 11, None);
        assert!(s.contains("(twice if you entered anything)."), "{s:?}");
    }
}
