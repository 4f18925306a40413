//! Drawing: pure functions from state to a ratatui frame, tested with
//! `TestBackend` snapshots. Every server-provided string goes through
//! [`crate::safe_text`] here.
//!
//! Screen layout: a fixed header (server, adapter, progress, the
//! `--timeout` countdown, secret warning), a scrolled body (message, then one block per
//! field) that keeps the focused field visible, and a fixed footer (notice,
//! buttons, help line), so the buttons are always reachable. Below
//! [`MIN_WIDTH`] x [`MIN_HEIGHT`] a clear message replaces the screen.

use ratatui::layout::{Position, Rect};
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use ratatui::Frame;

use crate::binding::{Action, FieldKind, Mode, RequestEvent, StringFormat};
use crate::form::{Button, FieldState, FieldValue, Focus, Form, Stage};
use crate::responder::Progress;
use crate::safe_text::{display, display_multiline};

use super::chrome::{button_row, help_line, ButtonCell, RowKind, ScrollView};
use super::text::{clip, clip_middle, slice_cols, width, wrap};
use super::theme::Theme;

/// Smallest usable screen (columns).
pub const MIN_WIDTH: u16 = 40;
/// Smallest usable screen (rows).
pub const MIN_HEIGHT: u16 = 10;
/// Rows of options shown at once in a focused list.
pub const LIST_ROWS: usize = 8;

/// Who asks, as the header shows it.
#[derive(Debug, Clone)]
pub struct Header {
    /// The server's name (shown as `Title (name version)`; unsanitised).
    pub server_name: String,
    /// The server's title, if it gave one (unsanitised).
    pub server_title: Option<String>,
    /// The server's version, if it gave one (unsanitised).
    pub server_version: Option<String>,
    /// `source.adapter`.
    pub adapter: String,
    /// The request's mode.
    pub mode: Mode,
    /// Which request of how many this is.
    pub progress: Progress,
    /// Seconds left before `--timeout` cancels, if any.
    pub seconds_left: Option<u64>,
    /// Seconds [`EXTEND_KEY`] adds to the time left (None: no timeout).
    pub extend_secs: Option<u64>,
    /// The server as the person launched it: the command or URL they gave
    /// (unsanitised; [`crate::responder::Origin::launched`]).
    pub launched: Option<String>,
    /// The call that asked: method and name from `extensions.mcp.call`, or
    /// the front door's fuller line with the arguments (unsanitised).
    pub call: Option<String>,
    /// A warning about the request that keeps it open, under the first
    /// line (trusted text: e.g. [`crate::responder::CALL_FINISHED_BANNER`]).
    pub banner: Option<String>,
    /// The screen asks the arguments of this call (`tools/call NAME`,
    /// `prompts/get NAME`; unsanitised), not a request of the server's:
    /// the header says "Arguments for" it where a request says how many
    /// there are and who relayed it.
    pub arguments_for: Option<String>,
}

impl Header {
    /// The header of a request.
    pub fn of(req: &RequestEvent, progress: Progress) -> Self {
        Header {
            server_name: req.server.name.clone(),
            server_title: req.server.title.clone(),
            server_version: req.server.version.clone(),
            adapter: req.adapter.clone(),
            mode: req.mode,
            progress,
            seconds_left: None,
            extend_secs: None,
            launched: None,
            call: crate::responder::request_call(req),
            banner: None,
            arguments_for: None,
        }
    }

    /// The header of a request with what the front door knows of who
    /// asked ([`crate::responder::Origin`]): its call line replaces the
    /// event's `extensions.mcp.call`.
    pub fn with_origin(mut self, origin: Option<crate::responder::Origin>) -> Self {
        if let Some(o) = origin {
            self.launched = o.launched;
            if o.call.is_some() {
                self.call = o.call;
            }
        }
        self
    }
}

/// The words for a request's mode and the program that relayed it, for a
/// newcomer: `A form, relayed by mcp-stdio`.
pub fn relayed_line(mode: Mode, adapter: &str) -> String {
    let what = match mode {
        Mode::Form => "A form",
        Mode::Url => "A web page to open",
    };
    format!("{what}, relayed by {}", display(adapter))
}

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

/// The key that gives the request on screen more time (`--timeout`): the
/// deadline moves on by the time the request had when it first appeared.
pub const EXTEND_KEY: &str = "Ctrl-T";

/// The countdown a header or title shows: ` · 42s left`, with the key that
/// adds `extend` seconds when there is one (` · 42s left · Ctrl-T +60s`);
/// long times in larger units ([`crate::responder::short_duration`]:
/// ` · 1h59m left · Ctrl-T +2h00m`).
pub fn countdown(left: u64, extend: Option<u64>) -> String {
    let left = crate::responder::short_duration(left);
    match extend {
        Some(e) => format!(
            " · {left} left · {EXTEND_KEY} +{}",
            crate::responder::short_duration(e)
        ),
        None => format!(" · {left} left"),
    }
}

/// The cells the server's name keeps before the counts in the header's
/// first line when the counts can be shortened to leave them (the progress
/// as `1/3`, then the countdown without the extend key).
pub const WHO_ROOM: usize = 12;

/// Below this many rows the header is compact: who asks and the progress on
/// one line, the secret warning (if any) on one clipped line, then the rule,
/// so a 12-row screen still shows the focused field's input at once.
pub const COMPACT_HEADER_BELOW: u16 = 16;

/// The compact header's one origin line, `w` cells wide at most: the
/// launch and the call joined by " · ", each keeping a share when both do
/// not fit. The launch is cut in the middle (its end names the program and
/// its arguments) to at most half the line unless the call needs less; the
/// call is cut at its end. None when there is neither.
fn origin_line(launched: Option<&str>, call: Option<&str>, w: usize) -> Option<String> {
    const JOIN: &str = " · ";
    match (launched, call) {
        (None, None) => None,
        (Some(l), None) => Some(clip_middle(l, w)),
        (None, Some(c)) => Some(clip(c, w)),
        (Some(l), Some(c)) => {
            let room = w.saturating_sub(width(JOIN));
            if width(l) + width(c) <= room {
                return Some(format!("{l}{JOIN}{c}"));
            }
            let half = room / 2;
            // The launch gets what the call leaves of its half, and never
            // less than half the room.
            let for_launch = room.saturating_sub(width(c)).max(half).min(width(l));
            let for_call = room - for_launch;
            // The label ("Launched as: ", "Connected to: ") stays whole;
            // what follows is cut in the middle, or from its start when
            // too little room is left for a middle cut. With less room
            // still the label goes, so the end of the command can show.
            let launch = match l.split_once(": ") {
                Some((label, rest)) if width(label) + 2 + 12 > for_launch => {
                    crate::tui::text::clip_start(rest, for_launch)
                }
                Some((label, rest)) => {
                    let left = for_launch - width(label) - 2;
                    let rest = if left >= 16 {
                        clip_middle(rest, left)
                    } else {
                        crate::tui::text::clip_start(rest, left)
                    };
                    format!("{label}: {rest}")
                }
                _ => clip_middle(l, for_launch),
            };
            Some(format!("{launch}{JOIN}{}", clip(c, for_call)))
        }
    }
}

/// The header's lines, `w` cells wide: the server and the request count
/// (with the clock) on the first row, the `--banner`, then who relayed,
/// launched and asked, the secret warning, and a rule. `compact` (a short
/// window) keeps each of those to one line.
fn header_lines(
    h: &Header,
    theme: &Theme,
    w: usize,
    secret: Option<&str>,
    compact: bool,
) -> Vec<Line<'static>> {
    let mut out = vec![title_row(h, theme, w)];
    if let Some(b) = &h.banner {
        if compact {
            out.push(Line::styled(clip(b, w), theme.warning()));
        } else {
            for l in wrap(b, w) {
                out.push(Line::styled(l, theme.warning()));
            }
        }
    }
    if compact {
        compact_origin(h, theme, w, secret, &mut out);
    } else {
        full_origin(h, theme, w, secret, &mut out);
    }
    out.push(Line::styled("─".repeat(w), theme.border()));
    out
}

/// The server as it names itself (title, name and version, escaped) on
/// the left and the request count with the clock on the right, in `w`
/// cells: the count shortens before the server's name is cut below
/// [`WHO_ROOM`] cells.
fn title_row(h: &Header, theme: &Theme, w: usize) -> Line<'static> {
    let mut who = String::new();
    if let Some(t) = &h.server_title {
        who.push_str(&display(t));
        who.push_str(" (");
    }
    who.push_str(&display(&h.server_name));
    if let Some(v) = &h.server_version {
        who.push(' ');
        who.push_str(&display(v));
    }
    if h.server_title.is_some() {
        who.push(')');
    }
    // The counts, from the fullest to the shortest, until the server keeps
    // at least WHO_ROOM cells (or all it needs) before them.
    let short_who = display(h.server_title.as_deref().unwrap_or(&h.server_name)).into_owned();
    let wanted = width(&short_who).min(WHO_ROOM) + 1;
    let clock = |extend| {
        h.seconds_left
            .map(|s| countdown(s, extend))
            .unwrap_or_default()
    };
    // A form of arguments is no request: no count.
    let count = |label: String| match h.arguments_for {
        Some(_) => String::new(),
        None => label,
    };
    let candidates = [
        format!("{}{}", count(h.progress.label()), clock(h.extend_secs)),
        format!(
            "{}{}",
            count(h.progress.short_label()),
            clock(h.extend_secs)
        ),
        format!("{}{}", count(h.progress.short_label()), clock(None)),
    ];
    let last = candidates[2].clone();
    let right = candidates
        .into_iter()
        .find(|r| w >= width(r) + wanted)
        .unwrap_or(last);
    let room = w.saturating_sub(width(&right) + 1);
    let left = if width(&who) <= room {
        who
    } else {
        clip(&short_who, room)
    };
    let pad = w.saturating_sub(width(&left) + width(&right));
    Line::from(vec![
        Span::styled(left, theme.title()),
        Span::raw(" ".repeat(pad)),
        Span::styled(right, theme.muted()),
    ])
}

/// A short window's origin: who launched what and which call asked on one
/// line (it still says who is asking beyond the name the server gives
/// itself), and the secret warning cut to one line.
fn compact_origin(
    h: &Header,
    theme: &Theme,
    w: usize,
    secret: Option<&str>,
    out: &mut Vec<Line<'static>>,
) {
    let launched = h
        .launched
        .as_deref()
        .map(|l| display(&crate::responder::launched_line(l)).into_owned());
    let call = match &h.arguments_for {
        Some(a) => Some(format!("arguments for {}", display(a))),
        None => h
            .call
            .as_deref()
            .map(|c| format!("asked during {}", display(c))),
    };
    if let Some(line) = origin_line(launched.as_deref(), call.as_deref(), w) {
        out.push(Line::styled(line, theme.text()));
    }
    if let Some(what) = secret {
        let warn = format!("⚠ {}: secrets must use URL mode", display(what));
        out.push(Line::styled(clip(&warn, w), theme.warning()));
    }
}

/// The full origin: who relayed the request (wrapped), who launched what
/// and which call asked (each cut to one line), and the secret warning
/// (wrapped).
fn full_origin(
    h: &Header,
    theme: &Theme,
    w: usize,
    secret: Option<&str>,
    out: &mut Vec<Line<'static>>,
) {
    match &h.arguments_for {
        Some(a) => {
            let line = format!("Arguments for {}", display(a));
            out.push(Line::styled(clip(&line, w), theme.text()));
        }
        None => {
            let via = relayed_line(h.mode, &h.adapter);
            for l in wrap(&via, w) {
                out.push(Line::styled(l, theme.muted()));
            }
        }
    }
    if let Some(l) = &h.launched {
        // Cut in the middle: the end names the program and its arguments.
        let line = display(&crate::responder::launched_line(l)).into_owned();
        out.push(Line::styled(clip_middle(&line, w), theme.text()));
    }
    if let Some(c) = &h.call {
        let line = format!("Asked during: {}", display(c));
        out.push(Line::styled(clip(&line, w), theme.text()));
    }
    if let Some(what) = secret {
        let warn = format!("⚠ This form seems to ask for a secret: {}. Servers must use URL mode for secrets: do not type passwords, tokens, keys or card numbers here.", display(what));
        for l in wrap(&warn, w) {
            out.push(Line::styled(l, theme.warning()));
        }
    }
}

/// A body of lines with the row range of the focused part and an optional
/// cursor (row, column) inside it.
#[derive(Default)]
struct Body {
    lines: Vec<Line<'static>>,
    focus: Option<(usize, usize)>,
    cursor: Option<(usize, u16)>,
    /// A row of the focus range that must be on screen even when the range
    /// is taller than the screen: the focused field's highlighted option.
    mark: Option<usize>,
    /// The focused field's first input row and the end of its block.
    input: Option<(usize, usize)>,
    /// Scroll (only as far as needed) so that `input` is on screen: the
    /// first frame of a form and the first after a resize.
    place: bool,
}

impl Body {
    fn push(&mut self, l: Line<'static>) {
        self.lines.push(l);
    }
    fn text(&mut self, s: &str, style: Style, indent: usize, w: usize) {
        for l in wrap(s, w.saturating_sub(indent).max(1)) {
            self.push(Line::from(vec![
                Span::raw(" ".repeat(indent)),
                Span::styled(l, style),
            ]));
        }
    }
}

/// The text of an input box: (visible text, cursor column inside the box).
/// A long value scrolls so the cursor stays in view; the scrolled start is
/// moved to a glyph boundary (never half a wide character), and the cursor
/// column is measured from that start, so it sits exactly after (or on) the
/// glyph it belongs to, for wide and combining text alike.
pub fn input_view(value: &str, cursor_chars: usize, box_w: usize) -> (String, usize) {
    let before: String = value.chars().take(cursor_chars).collect();
    let cur = width(&display(&before));
    let full = display(value).into_owned();
    let inner = box_w.saturating_sub(1).max(1);
    let skip = crate::tui::text::glyph_start_at_or_after(&full, cur.saturating_sub(inner));
    let shown = slice_cols(&full, skip, box_w);
    (shown, cur.saturating_sub(skip))
}

/// Most rows a text field with line breaks shows at once (a window that
/// follows the cursor; a line under it says which lines are shown).
pub const MAX_TEXT_ROWS: usize = 8;

/// A text value laid out one row per line of it ([`text_rows`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TextRows {
    /// The visible text of each row shown (each as [`input_view`] makes it).
    pub rows: Vec<String>,
    /// The cursor: (row among `rows`, column inside the box).
    pub cursor: (usize, usize),
    /// "lines 3–10 of 14" when not every line is shown.
    pub more: Option<String>,
}

/// Lay out a text value in a box `box_w` columns wide: one row per line
/// (split at `\n`, so a line break is never drawn as an escape), at most
/// [`MAX_TEXT_ROWS`] of them around the cursor's line; the cursor's line
/// scrolls sideways to keep the cursor in view, the others show their
/// start.
pub fn text_rows(value: &str, cursor_chars: usize, box_w: usize) -> TextRows {
    let lines: Vec<&str> = value.split('\n').collect();
    // The cursor's line and its place in that line, in characters.
    let (mut at, mut col) = (0, cursor_chars);
    for (i, l) in lines.iter().enumerate() {
        let n = l.chars().count();
        if col <= n || i + 1 == lines.len() {
            at = i;
            break;
        }
        col -= n + 1;
    }
    let first = at.saturating_sub(MAX_TEXT_ROWS - 1);
    let last = (first + MAX_TEXT_ROWS).min(lines.len());
    let mut cur = (at - first, 0);
    let rows = (first..last)
        .map(|i| {
            let (shown, c) = input_view(lines[i], if i == at { col } else { 0 }, box_w);
            if i == at {
                cur.1 = c;
            }
            shown
        })
        .collect();
    let more = (lines.len() > MAX_TEXT_ROWS)
        .then(|| format!("lines {}–{} of {}", first + 1, last, lines.len()));
    TextRows {
        rows,
        cursor: cur,
        more,
    }
}

fn format_hint(f: StringFormat) -> &'static str {
    match f {
        StringFormat::Email => "e-mail address, like name@example.com",
        StringFormat::Uri => "absolute URI, like https://example.com/",
        StringFormat::Date => "date, YYYY-MM-DD",
        StringFormat::DateTime => "date and time, YYYY-MM-DDThh:mm:ssZ",
    }
}

fn plural(n: u64, one: &str) -> String {
    if n == 1 {
        format!("1 {one}")
    } else {
        format!("{n} {one}s")
    }
}

/// Hints and bounds of a field, shown under its widget.
fn field_hint(st: &FieldState) -> Option<String> {
    match &st.field.kind {
        FieldKind::Text {
            min_length,
            max_length,
            format,
            ..
        } => {
            let mut parts = Vec::new();
            if let Some(f) = format {
                parts.push(format_hint(*f).to_owned());
            }
            if let Some(f) = &st.field.extra.format {
                parts.push(f.clone());
            }
            if let Some(p) = &st.field.extra.pattern {
                parts.push(format!("pattern {}", display(&p.source)));
            }
            let n = match &st.value {
                FieldValue::Text { input, set: true } => input.value().chars().count() as u64,
                _ => 0,
            };
            // "1 character", "0/1 character", "2/80 characters": the unit
            // agrees with the number it counts up to.
            let unit = |k: u64| if k == 1 { "character" } else { "characters" };
            match (min_length, max_length) {
                (Some(a), Some(b)) => parts.push(format!("{n}/{b} {}, at least {a}", unit(*b))),
                (None, Some(b)) => parts.push(format!("{n}/{b} {}", unit(*b))),
                (Some(a), None) => parts.push(format!("{n} {}, at least {a}", unit(n))),
                (None, None) => {}
            }
            (!parts.is_empty()).then(|| parts.join(" · "))
        }
        FieldKind::Number {
            integer,
            minimum,
            maximum,
            ..
        } => {
            let what = if *integer { "whole number" } else { "number" };
            Some(match (minimum, maximum) {
                (Some(a), Some(b)) => format!("{what}, {a} to {b}"),
                (Some(a), None) => format!("{what}, at least {a}"),
                (None, Some(b)) => format!("{what}, at most {b}"),
                (None, None) => what.to_owned(),
            })
        }
        FieldKind::Multi {
            min_items,
            max_items,
            ..
        } => match (min_items, max_items) {
            (Some(a), Some(b)) => Some(format!("choose {a} to {b}")),
            (Some(a), None) => Some(format!("choose at least {}", plural(*a, "item"))),
            (None, Some(b)) => Some(format!("choose at most {}", plural(*b, "item"))),
            (None, None) => None,
        },
        _ => None,
    }
}

fn field_block(b: &mut Body, form: &Form, i: usize, theme: &Theme, w: usize) {
    let Some(st) = form.fields().get(i) else {
        return;
    };
    let focused = form.focus() == Focus::Field(i);
    let start = b.lines.len();
    field_head(b, st, focused, theme, w);
    let input_row = b.lines.len();
    let mark = b.mark;
    field_widget(b, st, focused, theme, w);
    if !focused {
        b.mark = mark;
    }
    if let Some(h) = field_hint(st) {
        b.text(&h, theme.hint(), 4, w);
    }
    if let Some(e) = form.shown_error(i) {
        b.text(&format!("✗ {}", display(&e)), theme.error(), 4, w);
    }
    if let Some(n) = form.field_notice().filter(|_| focused) {
        b.text(&format!("! {}", display(n)), theme.notice(), 4, w);
    }
    if focused {
        b.focus = Some((start, b.lines.len()));
        b.input = Some((input_row, b.lines.len()));
    }
    b.push(Line::raw(""));
}

/// The field's label line (marker, label, required mark, name when it has
/// a title and the focus) and its description.
fn field_head(b: &mut Body, st: &FieldState, focused: bool, theme: &Theme, w: usize) {
    let marker = if focused { "› " } else { "  " };
    let mut head = vec![
        Span::styled(marker, theme.focus()),
        Span::styled(
            clip(&display(st.field.label()), w.saturating_sub(6)),
            theme.label(focused),
        ),
    ];
    if st.field.required {
        head.push(Span::styled(" *", theme.required()));
    }
    if st.field.title.is_some() && focused {
        let name = format!("  ({})", display(&st.field.name));
        let room = w.saturating_sub(head.iter().map(|s| width(&s.content)).sum::<usize>());
        head.push(Span::styled(clip(&name, room), theme.muted()));
    }
    b.push(Line::from(head));
    if let Some(d) = &st.field.description {
        for l in display_multiline(d) {
            b.text(&l, theme.muted(), 4, w);
        }
    }
}

const IND: &str = "    ";

/// The field's input, checkbox or option list.
fn field_widget(b: &mut Body, st: &FieldState, focused: bool, theme: &Theme, w: usize) {
    let iw = w.saturating_sub(6).max(4);
    match &st.value {
        FieldValue::Text { input, set } => {
            let box_w = iw.saturating_sub(2).clamp(2, 60);
            if !set && !focused {
                b.push(Line::from(vec![
                    Span::raw(IND),
                    Span::styled("[", theme.border()),
                    Span::styled(
                        format!("{:<box_w$}", "— not set —"),
                        theme.input(false).patch(theme.muted()),
                    ),
                    Span::styled("]", theme.border()),
                ]));
                return;
            }
            let rows = text_rows(input.value(), input.cursor(), box_w);
            for (i, shown) in rows.rows.iter().enumerate() {
                let pad = box_w.saturating_sub(width(shown));
                if focused && i == rows.cursor.0 {
                    b.cursor = Some((b.lines.len(), (5 + rows.cursor.1) as u16));
                }
                b.push(Line::from(vec![
                    Span::raw(IND),
                    Span::styled("[", theme.border()),
                    Span::styled(format!("{shown}{}", " ".repeat(pad)), theme.input(focused)),
                    Span::styled("]", theme.border()),
                ]));
            }
            if let Some(n) = rows.more {
                b.text(&n, theme.muted(), 4, w);
            }
        }
        FieldValue::Number { input } => {
            let box_w = iw.saturating_sub(2).clamp(2, 24);
            let (shown, cur) = input_view(input.value(), input.cursor(), box_w);
            let pad = box_w.saturating_sub(width(&shown));
            let style = theme.input(focused);
            if focused {
                b.cursor = Some((b.lines.len(), (5 + cur) as u16));
            }
            let text = if shown.is_empty() && !focused {
                format!("{:<box_w$}", "— not set —")
            } else {
                format!("{shown}{}", " ".repeat(pad))
            };
            b.push(Line::from(vec![
                Span::raw(IND),
                Span::styled("[", theme.border()),
                Span::styled(text, style),
                Span::styled("]", theme.border()),
            ]));
        }
        FieldValue::Boolean(v) => boolean_widget(b, *v, focused, theme),
        FieldValue::Single { .. } | FieldValue::Multi { .. } => {
            choice_widget(b, st, focused, theme, w)
        }
    }
}

fn boolean_widget(b: &mut Body, v: Option<bool>, focused: bool, theme: &Theme) {
    let (mark, word, style) = match v {
        Some(true) => ("[x]", "yes", theme.selected()),
        Some(false) => ("[ ]", "no", theme.text()),
        None => ("[ ]", "not set", theme.muted()),
    };
    let mut spans = vec![
        Span::raw(IND),
        Span::styled(mark, if focused { theme.focus() } else { style }),
        Span::raw(" "),
        Span::styled(word, style),
    ];
    if focused {
        spans.push(Span::styled("   Space toggles · y/n", theme.hint()));
    }
    b.push(Line::from(spans));
}

/// A single or multiple choice: the option list when focused, else the
/// chosen labels on one line.
fn choice_widget(b: &mut Body, st: &FieldState, focused: bool, theme: &Theme, w: usize) {
    let iw = w.saturating_sub(6).max(4);
    let (text, style) = match &st.value {
        FieldValue::Single { selected, list } => {
            if focused {
                let on = |i| *selected == Some(i);
                return option_list(b, st, list, on, "(•)", "( )", theme, w);
            }
            match selected.and_then(|i| st.options().get(i)) {
                Some(o) => (display(o.label()).into_owned(), theme.selected()),
                None => ("— not set —".to_owned(), theme.muted()),
            }
        }
        FieldValue::Multi { checked, set, list } => {
            if focused {
                let on = |i| checked.get(i).copied().unwrap_or(false);
                return option_list(b, st, list, on, "[x]", "[ ]", theme, w);
            }
            let chosen: Vec<String> = st
                .options()
                .iter()
                .zip(checked)
                .filter(|(_, c)| **c)
                .map(|(o, _)| display(o.label()).into_owned())
                .collect();
            if !set {
                ("— not set —".to_owned(), theme.muted())
            } else if chosen.is_empty() {
                ("none chosen".to_owned(), theme.text())
            } else {
                (chosen.join(", "), theme.selected())
            }
        }
        _ => return,
    };
    b.push(Line::from(vec![
        Span::raw(IND),
        Span::styled(clip(&text, iw), style),
    ]));
}

#[allow(clippy::too_many_arguments)]
fn option_list(
    b: &mut Body,
    st: &FieldState,
    list: &crate::form::OptionList,
    is_on: impl Fn(usize) -> bool,
    on: &str,
    off: &str,
    theme: &Theme,
    w: usize,
) {
    let opts = st.options();
    if list.filterable {
        // The input takes up to 20 columns, narrower (not under 8) so the
        // count fits; a count that still does not fit ends with `…`.
        let count = format!("  {} of {}", list.matches.len(), opts.len());
        let iw = 20.min(w.saturating_sub(12 + width(&count))).max(8);
        let (shown, cur) = input_view(list.filter.value(), list.filter.cursor(), iw);
        b.cursor = Some((b.lines.len(), (12 + cur) as u16));
        b.push(Line::from(vec![
            Span::styled("    filter: ", theme.hint()),
            Span::styled(format!("{shown:<iw$}"), theme.input(true)),
            Span::styled(clip(&count, w.saturating_sub(12 + iw)), theme.muted()),
        ]));
    }
    if list.matches.is_empty() {
        b.push(Line::styled(
            "    no option matches the filter",
            theme.muted(),
        ));
        return;
    }
    let n = list.matches.len();
    let rows = LIST_ROWS.min(n);
    let top = list
        .cursor
        .saturating_sub(rows / 2)
        .min(n.saturating_sub(rows));
    if top > 0 {
        b.push(Line::styled(format!("    ↑ {top} more"), theme.muted()));
    }
    for (row, &oi) in list.matches.iter().enumerate().skip(top).take(rows) {
        let Some(o) = opts.get(oi) else { continue };
        let here = row == list.cursor;
        let chosen = is_on(oi);
        let mark = if chosen { on } else { off };
        let style = if here {
            theme.focus()
        } else if chosen {
            theme.selected()
        } else {
            theme.text()
        };
        let label = display(o.label()).into_owned();
        if here {
            b.mark = Some(b.lines.len());
        }
        b.push(Line::from(vec![
            Span::styled(if here { "  › " } else { "    " }, theme.focus()),
            Span::styled(format!("{mark} "), style),
            Span::styled(clip(&label, w.saturating_sub(9)), style),
        ]));
    }
    let below = n - (top + rows);
    if below > 0 {
        b.push(Line::styled(format!("    ↓ {below} more"), theme.muted()));
    }
}

fn buttons_line(labels: &[(&str, bool)], theme: &Theme) -> Line<'static> {
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
fn frame_with(
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
    if let Some((r, c)) = body.cursor {
        if r >= *scroll && r < *scroll + body_h && c < a.width {
            f.set_cursor_position(Position::new(a.x + c, body_area.y + (r - *scroll) as u16));
        }
    }
    let foot_y = a.y + a.height - foot_h;
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

/// The keywords ignored for drawing (compatible schema policy), in words a
/// person reads ([`ignored_words`]; the schema's own title and description
/// quoted), one sentence.
fn outside_subset_lines(b: &mut Body, form: &Form, theme: &Theme, w: usize) {
    if form.outside_subset.is_empty() {
        return;
    }
    let (title, description) = &form.outside_text;
    let words: Vec<String> = form
        .outside_subset
        .iter()
        .map(|p| {
            let text = match p.as_str() {
                "/title" => title.as_deref(),
                "/description" => description.as_deref(),
                _ => None,
            };
            ignored_words(p, text)
        })
        .collect();
    let text = format!(
        "From the server's schema, not used on this form: {}.",
        words.join(", ")
    );
    b.text(&display(&text), theme.muted(), 1, w.saturating_sub(1));
    b.push(Line::raw(""));
}

/// The most columns of the schema's own title or description quoted on the
/// form ([`ignored_words`]).
pub const IGNORED_TEXT_COLS: usize = 60;

/// A schema pointer the form leaves out, said for a person: `/title` with
/// its `text` is `the title "Booking"` (cut to [`IGNORED_TEXT_COLS`]),
/// without it "the form's title"; `/properties/age/examples` is "examples
/// of the field age"; anything else is the pointer itself (server text:
/// escape before drawing).
pub fn ignored_words(pointer: &str, text: Option<&str>) -> String {
    let parts: Vec<&str> = pointer.trim_start_matches('/').split('/').collect();
    match parts.as_slice() {
        [kw] if !kw.is_empty() => match text {
            Some(t) => format!("the {kw} \"{}\"", clip(t.trim(), IGNORED_TEXT_COLS)),
            None => format!("the form's {kw}"),
        },
        ["properties", field, rest @ ..] if !rest.is_empty() => {
            format!("{} of the field {field}", rest.join("/"))
        }
        _ => pointer.to_owned(),
    }
}

/// The first row of the frame around the server's message on the form,
/// as on the URL consent screen: what follows is the server's, not ours.
pub const MESSAGE_HEAD: &str = "┌ The server's message (its words, not checked):";

/// [`MESSAGE_HEAD`] where that does not fit.
pub const MESSAGE_HEAD_SHORT: &str = "┌ The server's words, not checked:";

/// The server's message, framed and marked as its own words (a muted
/// head, a `│` before each row, a closing `└` row where a blank row would
/// be), so text in it that imitates the header ("Launched as: …") never
/// reads as ours. An empty message draws nothing.
fn message_lines(b: &mut Body, msg: &str, theme: &Theme, w: usize) {
    if msg.trim().is_empty() {
        return;
    }
    let head = if width(MESSAGE_HEAD) <= w {
        MESSAGE_HEAD
    } else {
        MESSAGE_HEAD_SHORT
    };
    b.push(Line::styled(clip(head, w), theme.muted()));
    let inner = w.saturating_sub(2).max(1);
    for l in display_multiline(msg) {
        for row in wrap(&l, inner) {
            b.push(Line::from(vec![
                Span::styled("│ ", theme.muted()),
                Span::styled(row, theme.text()),
            ]));
        }
    }
    b.push(Line::styled("└", theme.muted()));
}

/// A message of ours (escaped all the same: it may quote the server's
/// names), wrapped, then a blank row; no frame.
fn own_message_lines(b: &mut Body, msg: &str, theme: &Theme, w: usize) {
    if msg.trim().is_empty() {
        return;
    }
    for l in display_multiline(msg) {
        for row in wrap(&l, w.max(1)) {
            b.push(Line::styled(row, theme.text()));
        }
    }
    b.push(Line::raw(""));
}

/// Draw a form-mode request: the edit step or the review step.
#[cfg(any(test, feature = "internals"))]
#[cfg(any(test, feature = "internals"))]
pub fn draw_form(f: &mut Frame, theme: &Theme, header: &Header, form: &Form, scroll: &mut usize) {
    draw_form_view(f, theme, header, form, scroll, true);
}

/// [`draw_form`] with the scrolling mode given: `follow_focus` false keeps
/// `scroll` as the person set it (PageUp/PageDown to read a long message or
/// review; also the first frame, which starts at the top so the message is
/// visible), true scrolls so the focused field is visible.
///
/// Returns whether the end of the body (the last line of a long review)
/// was on screen; false when the screen is too small.
#[cfg(any(test, feature = "internals"))]
#[cfg(any(test, feature = "internals"))]
pub fn draw_form_view(
    f: &mut Frame,
    theme: &Theme,
    header: &Header,
    form: &Form,
    scroll: &mut usize,
    follow_focus: bool,
) -> bool {
    let mode = FormViewMode {
        follow_focus,
        review_end_seen: true,
        place_input: false,
    };
    draw_form_inner(f, theme, (header, form), scroll, mode)
}

/// How [`draw_form_view_seen`] scrolls and what its review help says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FormViewMode {
    /// Scroll so the whole focused field is visible (after a key the form
    /// took); false keeps the scroll as the person set it.
    pub follow_focus: bool,
    /// The end of the review was on screen already (Enter sends).
    pub review_end_seen: bool,
    /// Scroll only as far as needed for the focused field's input row to
    /// be visible (the first frame, the first after a resize), keeping the
    /// message above it in view as far as the screen allows.
    pub place_input: bool,
}

fn draw_form_inner(
    f: &mut Frame,
    theme: &Theme,
    (header, form): (&Header, &Form),
    scroll: &mut usize,
    mode: FormViewMode,
) -> bool {
    let follow_focus = mode.follow_focus;
    if too_small_asking(f, theme, form.confirming()) {
        return false;
    }
    let w = f.area().width as usize;
    let mut b = Body::default();
    let mut footer = Vec::new();
    match form.stage() {
        Stage::Edit => {
            if form.message_is_ours {
                own_message_lines(&mut b, &form.message, theme, w);
            } else {
                message_lines(&mut b, &form.message, theme, w);
            }
            outside_subset_lines(&mut b, form, theme, w);
            for i in 0..form.fields().len() {
                field_block(&mut b, form, i, theme, w);
            }
            if form.fields().is_empty() {
                b.push(Line::styled(
                    "  (this form asks for no fields)",
                    theme.muted(),
                ));
            }
            // Always in the footer (never scrolled away); a notice about the
            // focused field is also shown whole beside it.
            footer.push(match form.notice() {
                Some(n) => Line::styled(
                    clip(&format!(" {}", display(n)), w.saturating_sub(15)),
                    theme.notice(),
                ),
                None => Line::raw(""),
            });
            let labels: Vec<(&str, bool)> = form
                .buttons()
                .iter()
                .map(|btn| (form.button_label(*btn), form.focus() == Focus::Button(*btn)))
                .collect();
            footer.push(buttons_line(&labels, theme));
            footer.push(match form.confirm_keys() {
                Some(keys) => confirm_line(&keys, theme, w),
                None => {
                    let mut help = edit_help(form);
                    // With a deadline, the key that stretches it (the
                    // header shows how much), in every form of the line.
                    if header.extend_secs.is_some() {
                        for h in &mut help {
                            h.push_str(" · ^T more time");
                        }
                    }
                    let help: Vec<&str> = help.iter().map(String::as_str).collect();
                    help_line(&help, theme, w)
                }
            });
            if let Focus::Button(_) = form.focus() {
                // Buttons are in the footer; keep the scroll where it is.
            }
        }
        Stage::Review(content) => review_body(&mut b, &mut footer, (form, content), theme, w),
    }
    if !follow_focus {
        b.focus = None;
    }
    b.place = mode.place_input && matches!(form.stage(), Stage::Edit);
    let secret = form.secret_warning();
    frame_with(f, theme, header, secret.as_deref(), b, footer, scroll)
}

/// The review step's body (the exact content, pretty-printed) and footer
/// (a waiting question, the buttons, the keys), `w` cells wide; a form of
/// arguments says the call is made with it.
fn review_body(
    b: &mut Body,
    footer: &mut Vec<Line<'static>>,
    (form, content): (&Form, &serde_json::Map<String, serde_json::Value>),
    theme: &Theme,
    w: usize,
) {
    let rest;
    let (intro, send, help) = if form.for_arguments && !form.arguments_left_out.is_empty() {
        let names: Vec<String> = form
            .arguments_left_out
            .iter()
            .map(|n| format!("'{}'", display(n)))
            .collect();
        rest = format!(
            "Review: the arguments from the form. Next, your editor for what the form cannot show ({}), with all the arguments; the call is made after it.",
            names.join(", ")
        );
        (
            rest.as_str(),
            "Next",
            "Enter next: your editor · b/Backspace back to the form · Esc back to the list",
        )
    } else if form.for_arguments {
        (
            "Review: the call is made with exactly these arguments.",
            "Call",
            crate::form::HELP_REVIEW_ARGUMENTS,
        )
    } else {
        (
            "Review: this exact content will be sent as an accept.",
            "Send",
            crate::form::HELP_REVIEW,
        )
    };
    b.text(intro, theme.title(), 1, w);
    b.push(Line::raw(""));
    let json = serde_json::to_string_pretty(&serde_json::Value::Object(content.clone()))
        .unwrap_or_default();
    for l in display_multiline(&json) {
        b.text(&l, theme.text(), 2, w);
    }
    // A discard waiting for confirmation asks here.
    footer.push(match form.notice() {
        Some(n) => Line::styled(clip(&format!(" {}", display(n)), w), theme.notice()),
        None => Line::raw(""),
    });
    footer.push(buttons_line(&[(send, true), ("Back", false)], theme));
    footer.push(match form.confirm_keys() {
        Some(keys) => confirm_line(&keys, theme, w),
        None => help_line(&[help], theme, w),
    });
}

/// The help line while a discard waits for confirmation: its keys, in the
/// notice style so the question is not missed.
fn confirm_line(keys: &str, theme: &Theme, w: usize) -> Line<'static> {
    Line::styled(clip(keys, w), theme.notice())
}

/// The review step's key help while its end has not been on screen: Enter
/// shows the next page instead of sending.
pub const HELP_REVIEW_MORE: &str =
    "Enter next page · b/Backspace back to the form · Ctrl-D decline · Esc cancel";

/// [`HELP_REVIEW_MORE`] on a form of arguments ([`Form::for_arguments`]).
pub const HELP_REVIEW_MORE_ARGUMENTS: &str =
    "Enter next page · b/Backspace back to the form · Esc back to the list";

/// [`draw_form_view`] with the scrolling `mode` of a form screen: until the
/// end of the review was on screen (`mode.review_end_seen`, or now), the
/// review's help line says that Enter shows the next page
/// ([`HELP_REVIEW_MORE`]) rather than that it sends. Returns whether the
/// end of the body is on screen in this frame.
pub fn draw_form_view_seen(
    f: &mut Frame,
    theme: &Theme,
    shown: (&Header, &Form),
    scroll: &mut usize,
    mode: FormViewMode,
) -> bool {
    let form = shown.1;
    let at_end = draw_form_inner(f, theme, shown, scroll, mode);
    let review_end_seen = mode.review_end_seen;
    let a = f.area();
    let reviewing = matches!(form.stage(), Stage::Review(_));
    let fits = a.width >= MIN_WIDTH && a.height >= MIN_HEIGHT;
    if reviewing && !at_end && !review_end_seen && fits && form.confirming().is_none() {
        // The help is the footer's last row (drawn by frame_with).
        let row = Rect::new(a.x, a.y + a.height - 1, a.width, 1);
        f.render_widget(ratatui::widgets::Clear, row);
        let more = if form.for_arguments {
            HELP_REVIEW_MORE_ARGUMENTS
        } else {
            HELP_REVIEW_MORE
        };
        let help = help_line(&[more], theme, a.width as usize);
        f.render_widget(Paragraph::new(help), row);
    }
    at_end
}

/// The edit step's key help for what has the focus, longest first (the
/// first that fits is shown): a text field names its line-break and editor
/// keys (and not Ctrl-D, which deletes there while it holds text), a
/// number field no Space key, a yes/no field or a multi select "Space
/// toggle", a single select "Space select", a button "Enter press" (and
/// no Ctrl-X, which clears fields); with no focus the general line
/// ([`crate::form::HELP_EDIT`]).
pub fn edit_help(form: &Form) -> Vec<String> {
    let field = match form.focus() {
        Focus::Field(i) => form.fields().get(i),
        Focus::Button(_) => None,
    };
    let (what, short, decline) = match field.map(|st| (&st.value, st.takes_line_breaks())) {
        None if matches!(form.focus(), Focus::Button(_)) => ("Enter press", "Enter press", true),
        None => return edit_help_general(form.for_arguments),
        Some((FieldValue::Text { .. }, true)) => {
            ("Alt-Enter new line", "Alt-Enter new line", false)
        }
        Some((FieldValue::Text { .. }, false)) => ("", "", false),
        Some((FieldValue::Number { .. }, _)) => ("", "", false),
        // While a filter is typed, Space goes into it: Enter picks.
        Some((FieldValue::Multi { list, .. }, _)) if !list.filter.value().is_empty() => {
            ("Enter toggle", "Enter toggle", true)
        }
        Some((FieldValue::Single { list, .. }, _)) if !list.filter.value().is_empty() => {
            ("Enter select", "Enter select", true)
        }
        Some((FieldValue::Boolean(_) | FieldValue::Multi { .. }, _)) => {
            ("Space toggle", "Space toggle", true)
        }
        Some((FieldValue::Single { .. }, _)) => ("Space select", "Space select", true),
    };
    let join = |parts: &[&str]| {
        parts
            .iter()
            .filter(|p| !p.is_empty())
            .copied()
            .collect::<Vec<_>>()
            .join(" · ")
    };
    // Ctrl-O opens the outside editor: on the whole content (a tool's
    // arguments), or on a text field.
    let (o, so) = match field.map(|st| &st.value) {
        _ if form.editor_takes_all => ("Ctrl-O all as JSON", "^O JSON"),
        Some(FieldValue::Text { .. }) => ("Ctrl-O editor", "^O editor"),
        _ => ("", ""),
    };
    let (what, short) = (join(&[what, o]), join(&[short, so]));
    let (what, short) = (what.as_str(), short.as_str());
    // A form of arguments is called or left (back to the list): nothing
    // to decline, no server to decline everything from.
    let decline = decline && !form.for_arguments;
    let d = if decline { "Ctrl-D decline" } else { "" };
    let sd = if decline { "^D decline" } else { "" };
    let words = HelpWords::of(form.for_arguments);
    // Ctrl-X clears a field; a button has nothing to clear.
    let (x, sx) = match field {
        Some(_) => ("Ctrl-X clear", "^X clear"),
        None => ("", ""),
    };
    let HelpWords {
        submit,
        s_submit,
        block,
        esc,
    } = words;
    vec![
        join(&[
            "Tab/↓ next · Shift-Tab/↑ prev",
            what,
            x,
            submit,
            d,
            block,
            esc,
        ]),
        join(&["Tab/S-Tab move", short, sx, s_submit, sd, esc]),
        join(&["Tab/S-Tab move", short, s_submit, sd, esc]),
        join(&["Tab/S-Tab move", sx, s_submit, sd, esc]),
        join(&["Tab next", s_submit, sd, esc]),
        format!(
            "Tab next {s_submit}{} {esc}",
            if decline { " ^D decline" } else { "" }
        ),
    ]
}

/// The words of the edit step's key help for Ctrl-S, Ctrl-N and Esc: an
/// answer's (submit, decline all, cancel) or, on a form of arguments,
/// the call's (call, back to the list).
#[derive(Clone, Copy)]
struct HelpWords {
    submit: &'static str,
    s_submit: &'static str,
    /// Ctrl-N, when it means something here.
    block: &'static str,
    esc: &'static str,
}

impl HelpWords {
    fn of(for_arguments: bool) -> HelpWords {
        if for_arguments {
            HelpWords {
                submit: "Ctrl-S call",
                s_submit: "^S call",
                block: "",
                esc: "Esc back",
            }
        } else {
            HelpWords {
                submit: "Ctrl-S submit",
                s_submit: "^S submit",
                block: "Ctrl-N decline all from this server",
                esc: "Esc cancel",
            }
        }
    }
}

/// The edit step's key help when nothing is focused (`for_arguments`: on
/// a form of arguments).
fn edit_help_general(for_arguments: bool) -> Vec<String> {
    if for_arguments {
        return [
            "Tab/↓ next · Shift-Tab/↑ prev · Space toggle/select · Ctrl-X clear · Ctrl-S call · Esc back",
            "Tab/S-Tab move · Space pick · ^X clear · ^S call · Esc back",
            "Tab next · ^S call · Esc back",
            "Tab next ^S call Esc back",
        ]
        .map(str::to_owned)
        .to_vec();
    }
    [
        crate::form::HELP_EDIT,
        "Tab/S-Tab move · Space pick · ^X clear · ^S submit · ^D decline · Esc cancel",
        "Tab next · ^S submit · ^D decline · Esc cancel",
        "Tab next ^S submit ^D decline Esc cancel",
    ]
    .map(str::to_owned)
    .to_vec()
}

/// The buttons of a screen that can only be declined or cancelled.
pub const REFUSE_BUTTONS: [Button; 2] = [Button::Decline, Button::Cancel];

/// Draw a request that cannot be accepted here (a view that is not
/// executable, or a form that cannot be answered as one): `lines` say why,
/// each `(text, emphasised)`, sanitised here; then only Decline and
/// Cancel, `focus` being the index into [`REFUSE_BUTTONS`].
pub fn draw_refusable(
    f: &mut Frame,
    theme: &Theme,
    header: &Header,
    lines: &[(String, bool)],
    focus: usize,
    scroll: &mut usize,
) {
    if too_small(f, theme) {
        return;
    }
    let w = f.area().width as usize;
    let mut b = Body::default();
    for (l, emphasis) in lines {
        for part in display_multiline(l) {
            b.text(
                &part,
                if *emphasis {
                    theme.title()
                } else {
                    theme.text()
                },
                1,
                w.saturating_sub(1),
            );
        }
    }
    let labels: Vec<(&str, bool)> = REFUSE_BUTTONS
        .iter()
        .enumerate()
        .map(|(i, btn)| (btn.label(), i == focus))
        .collect();
    let footer = vec![
        Line::raw(""),
        buttons_line(&labels, theme),
        help_line(
            &["Tab move · Enter press · Ctrl-D decline · Esc cancel"],
            theme,
            w,
        ),
    ];
    let _ = frame_with(f, theme, header, None, b, footer, scroll);
}

/// The keys of a wait for a browser flow ([`draw_wait`]).
pub const FLOW_WAIT_KEYS: &str = "r: retry now · Esc: give up (cancel)";

/// Draw the waiting screen `shown` asks for: a wait for a browser flow
/// (`shown.offer_retry`) shows only that wait, its status and its keys;
/// any other wait is the wait for the next request ([`draw_waiting`]) with
/// the status as its notice. `extra` (held messages, the armed Ctrl-C) is
/// added to either. The status is sanitised by the driver.
pub fn draw_wait(
    f: &mut Frame,
    theme: &Theme,
    answered: usize,
    shown: &crate::responder::Waiting,
    extra: Option<&str>,
) {
    if !shown.offer_retry {
        // The status (a launch line, cut to one line) and the extra (an
        // instruction such as the second Ctrl-C's, wrapped whole) each on
        // their own lines: an instruction is never cut.
        let status = shown.status.as_deref();
        if let Some(call) = &shown.call {
            draw_call(f, theme, status, call, extra);
        } else if shown.connecting {
            draw_connecting(f, theme, status, extra);
        } else {
            draw_waiting(f, theme, answered, status, extra);
        }
        return;
    }
    if too_small(f, theme) {
        return;
    }
    let a = f.area();
    let w = a.width as usize;
    let status = shown
        .status
        .as_deref()
        .unwrap_or("Waiting for the browser flow to complete");
    let mut lines = vec![
        Line::styled("ahp-elicit", theme.title()),
        Line::raw(""),
        Line::styled(clip(&display(status), w), theme.text()),
        Line::styled(clip(FLOW_WAIT_KEYS, w), theme.muted()),
    ];
    if let Some(n) = extra {
        lines.push(Line::raw(""));
        lines.push(Line::styled(clip(n, w), theme.notice()));
    }
    let inner = inset(a);
    f.render_widget(Paragraph::new(lines), inner);
}

/// The keys of the waiting screen of a call the person started
/// ([`draw_wait`] with [`crate::responder::Waiting::call`]).
pub const CALL_WAIT_KEYS: &str = "Esc: cancel the call · Ctrl-C twice quits.";

/// Draw the waiting screen of a call the person started (trying a server
/// by hand): what is being done (`status`, safe text), the keys, then what
/// the server reported meanwhile (`call`'s lines, safe text, each cut to
/// one line), and `extra` wrapped whole.
fn draw_call(
    f: &mut Frame,
    theme: &Theme,
    status: Option<&str>,
    call: &crate::responder::CallInProgress,
    extra: Option<&str>,
) {
    if too_small(f, theme) {
        return;
    }
    let a = f.area();
    let w = (a.width as usize).saturating_sub(2);
    let mut lines = vec![
        Line::styled("ahp-elicit", theme.title()),
        Line::raw(""),
        Line::styled(clip(status.unwrap_or("Calling…"), w), theme.text()),
        Line::styled(clip(CALL_WAIT_KEYS, w), theme.muted()),
    ];
    if !call.lines.is_empty() {
        lines.push(Line::raw(""));
        lines.push(Line::styled("The server reports:", theme.muted()));
    }
    for l in &call.lines {
        lines.push(Line::styled(clip(&display(l), w), theme.notice()));
    }
    if let Some(e) = extra {
        lines.push(Line::raw(""));
        for l in wrap(e, w.max(1)) {
            lines.push(Line::styled(l, theme.notice()));
        }
    }
    f.render_widget(Paragraph::new(lines), inset(a));
}

/// The keys of the screen shown while a sign-in waits for the browser.
pub const SIGN_IN_WAIT_KEYS: &str =
    "u: show the URL in lines for copying · Ctrl-C: cancel the sign-in";

/// What the screen says while a sign-in waits for the browser (each safe
/// for the terminal).
pub struct SignInWait<'a> {
    /// `Waiting for the sign-in to finish in the browser (listening on
    /// 127.0.0.1:PORT).`
    pub waiting: &'a str,
    /// The time left of `--auth-timeout`.
    pub left: &'a str,
    /// The authorization URL as reviewed (percent-encoded, escaped).
    pub url: &'a str,
}

/// Draw the screen shown while a sign-in waits for the browser: what is
/// waited for, the time left, the keys, `extra` (held messages, wrapped
/// whole), then the authorization URL, wrapped, for a browser that did not
/// open (cut at the screen's end: `u` shows it whole in lines).
pub fn draw_sign_in_wait(f: &mut Frame, theme: &Theme, s: &SignInWait<'_>, extra: Option<&str>) {
    if too_small(f, theme) {
        return;
    }
    let a = f.area();
    let w = (a.width as usize).saturating_sub(2).max(1);
    let mut lines = vec![Line::styled("ahp-elicit", theme.title()), Line::raw("")];
    for l in wrap(s.waiting, w) {
        lines.push(Line::styled(l, theme.text()));
    }
    lines.push(Line::styled(clip(s.left, w), theme.muted()));
    for l in wrap(SIGN_IN_WAIT_KEYS, w) {
        lines.push(Line::styled(l, theme.muted()));
    }
    for l in extra.map(|e| wrap(e, w)).unwrap_or_default() {
        lines.push(Line::styled(l, theme.notice()));
    }
    lines.push(Line::raw(""));
    lines.push(Line::styled(
        clip("If the browser did not open, open this URL:", w),
        theme.muted(),
    ));
    let room = (a.height as usize).saturating_sub(1 + lines.len());
    let mut url = crate::tui::text::wrap_chars(s.url, w);
    if url.len() > room {
        url.truncate(room.max(1));
        if let Some(last) = url.last_mut() {
            *last = clip(&format!("{last}…"), w);
        }
    }
    for l in url {
        lines.push(Line::styled(l, theme.text()));
    }
    f.render_widget(Paragraph::new(lines), inset(a));
}

#[cfg(test)]
mod sign_in_wait_tests {
    use super::*;
    use ratatui::{backend::TestBackend, Terminal};

    fn rows(w: u16, h: u16, url: &str) -> Vec<String> {
        let mut t = Terminal::new(TestBackend::new(w, h)).expect("terminal");
        let s = SignInWait {
            waiting:
                "Waiting for the sign-in to finish in the browser (listening on 127.0.0.1:4242).",
            left: "4m 59s left of 5m (--auth-timeout)",
            url,
        };
        t.draw(|f| draw_sign_in_wait(f, &Theme::monochrome(), &s, None))
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
            .collect()
    }

    #[test]
    fn the_wait_the_time_left_the_keys_and_the_whole_url_when_it_fits() {
        let url = format!(
            "https://login.example.com/authorize?state={}",
            "x".repeat(150)
        );
        let r = rows(80, 24, &url);
        let text = r.join("\n");
        for want in [
            "Waiting for the sign-in to finish in the browser (listening on",
            "4m 59s left of 5m (--auth-timeout)",
            "u: show the URL in lines for copying · Ctrl-C: cancel the sign-in",
            "If the browser did not open, open this URL:",
        ] {
            assert!(text.contains(want), "{want:?} not in\n{text}");
        }
        let joined: String = r.iter().map(|l| l.trim()).collect();
        assert!(joined.contains(&url), "{text}");
    }

    #[test]
    fn a_url_longer_than_the_screen_is_cut_with_an_ellipsis() {
        let url = format!(
            "https://login.example.com/authorize?state={}",
            "x".repeat(5000)
        );
        let r = rows(60, 16, &url);
        // The last row is the URL's, cut: `u` shows it whole.
        assert!(r[15].ends_with('…'), "{r:#?}");
        assert_eq!(r.iter().filter(|l| l.ends_with('…')).count(), 1);
    }
}

/// The first line of the screen shown while the driver connects to its
/// source ([`crate::responder::Waiting::connecting`]).
pub const CONNECTING: &str = "Connecting to the server…";

/// Draw the screen shown while the driver connects to its source: no
/// request can come yet, so no count of answers.
fn draw_connecting(f: &mut Frame, theme: &Theme, notice: Option<&str>, extra: Option<&str>) {
    // The notice says how the server was launched: cut in the middle, as
    // its end names the program.
    let idle = Idle {
        what: CONNECTING,
        then: "Ctrl-C twice quits.".into(),
        notice,
        extra,
    };
    draw_idle(f, theme, &idle, clip_middle);
}

/// Draw the screen shown while the driver waits for the next request: the
/// count of answers, a `notice` cut to one line, and under it `extra` (an
/// instruction such as the second Ctrl-C's) wrapped whole.
pub fn draw_waiting(
    f: &mut Frame,
    theme: &Theme,
    answered: usize,
    notice: Option<&str>,
    extra: Option<&str>,
) {
    let count = format!("{answered} answered so far. Ctrl-C twice quits.");
    let idle = Idle {
        what: "Waiting for the next request…",
        then: count,
        notice,
        extra,
    };
    draw_idle(f, theme, &idle, clip);
}

/// What a screen with no request on it says.
struct Idle<'a> {
    /// What is happening.
    what: &'a str,
    /// A quieter line under it.
    then: String,
    /// A notice, cut to one line.
    notice: Option<&'a str>,
    /// An instruction under the notice, wrapped whole (never cut).
    extra: Option<&'a str>,
}

/// A screen with no request on it: what is happening, then a quieter line
/// and, under them, the `notice` (cut to the width by `cut`).
fn draw_idle(f: &mut Frame, theme: &Theme, idle: &Idle<'_>, cut: fn(&str, usize) -> String) {
    let (what, then, notice) = (idle.what, idle.then.clone(), idle.notice);
    if too_small(f, theme) {
        return;
    }
    let a = f.area();
    // The lines are drawn one cell in from each side.
    let w = (a.width as usize).saturating_sub(2);
    let mut lines = vec![
        Line::styled("ahp-elicit", theme.title()),
        Line::raw(""),
        Line::styled(what.to_owned(), theme.text()),
        Line::styled(then, theme.muted()),
    ];
    if notice.is_some() || idle.extra.is_some() {
        lines.push(Line::raw(""));
    }
    if let Some(n) = notice {
        lines.push(Line::styled(cut(n, w), theme.notice()));
    }
    for l in idle.extra.map(|e| wrap(e, w.max(1))).unwrap_or_default() {
        lines.push(Line::styled(l, theme.notice()));
    }
    f.render_widget(Paragraph::new(lines), inset(a));
}

/// The notice shown when the source withdrew the request on screen; it
/// stays until a key, so a screen never changes into another one unseen.
#[cfg(any(test, feature = "internals"))]
#[cfg(any(test, feature = "internals"))]
pub fn draw_withdrawn(f: &mut Frame, theme: &Theme) {
    draw_withdrawn_because(f, theme, None);
}

/// [`draw_withdrawn`] with the `reason` the server gave, if any (sanitised
/// and bounded here, [`crate::responder::withdrawn_reason_line`]).
#[cfg(any(test, feature = "internals"))]
#[cfg(any(test, feature = "internals"))]
pub fn draw_withdrawn_because(f: &mut Frame, theme: &Theme, reason: Option<&str>) {
    let lines: Vec<String> = reason
        .map(crate::responder::withdrawn_reason_line)
        .into_iter()
        .collect();
    draw_notice(f, theme, WITHDRAWN_NOTICE, &lines);
}

/// A notice that waits for a key (how a request ended): `title`, then
/// `more` (safe text, e.g. the server's reason already sanitised), then
/// "Press any key to continue.".
pub fn draw_notice(f: &mut Frame, theme: &Theme, title: &str, more: &[String]) {
    if too_small(f, theme) {
        return;
    }
    let a = f.area();
    let mut lines = vec![
        Line::styled("ahp-elicit", theme.title()),
        Line::raw(""),
        Line::styled(title.to_owned(), theme.notice()),
    ];
    for l in more {
        lines.push(Line::styled(display(l).into_owned(), theme.text()));
    }
    lines.push(Line::raw(""));
    lines.push(Line::styled("Press any key to continue.", theme.muted()));
    f.render_widget(
        Paragraph::new(lines).wrap(ratatui::widgets::Wrap { trim: false }),
        inset(a),
    );
}

/// The sentence of the withdrawal notice ([`draw_withdrawn`]).
#[cfg(any(test, feature = "internals"))]
#[cfg(any(test, feature = "internals"))]
pub const WITHDRAWN_NOTICE: &str = "The server withdrew this request. Nothing was sent.";

/// The area of a full-screen message inside `a`: one cell in from the left,
/// right and top edges.
fn inset(a: Rect) -> Rect {
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

    fn hint(props: serde_json::Value, typed: &str) -> Option<String> {
        let v = serde_json::json!({"type": "object", "properties": props});
        let schema =
            crate::binding::form_schema::parse_form_schema(&v, "/requestedSchema").expect("schema");
        let mut form = Form::new(&schema, "");
        for c in typed.chars() {
            form.handle_key(&crate::form::Key::Char(c));
        }
        field_hint(&form.fields()[0])
    }

    #[test]
    fn the_count_of_characters_agrees_with_its_number() {
        let at_least = serde_json::json!({"a": {"type": "string", "minLength": 2}});
        assert_eq!(
            hint(at_least.clone(), "x").as_deref(),
            Some("1 character, at least 2")
        );
        assert_eq!(
            hint(at_least, "xy").as_deref(),
            Some("2 characters, at least 2")
        );
        let one = serde_json::json!({"a": {"type": "string", "maxLength": 1}});
        assert_eq!(hint(one, "").as_deref(), Some("0/1 character"));
        let many = serde_json::json!({"a": {"type": "string", "maxLength": 80}});
        assert_eq!(hint(many, "x").as_deref(), Some("1/80 characters"));
    }

    /// A tool's arguments form: what was entered so far (a number that is
    /// not one kept as its text), whether a secret-looking field holds a
    /// value, and the key help naming Ctrl-O for the whole as JSON on every
    /// field (a text field's own editor is not offered then).
    #[test]
    fn the_arguments_form_offers_the_whole_as_json() {
        let v = serde_json::json!({"type": "object", "properties": {
            "guests": {"type": "integer"},
            "note": {"type": "string"},
            "api_token": {"type": "string"},
            "terrace": {"type": "boolean", "default": false}
        }});
        let schema =
            crate::binding::form_schema::parse_form_schema(&v, "/requestedSchema").expect("schema");
        let mut form = Form::new(&schema, "");
        for c in "4-".chars() {
            form.handle_key(&crate::form::Key::Char(c));
        }
        assert_eq!(
            serde_json::Value::Object(form.entered()),
            serde_json::json!({"guests": "4-", "terrace": false})
        );
        assert!(!form.secret_entered());
        assert_eq!(
            edit_help(&form)[1],
            "Tab/S-Tab move · ^X clear · ^S submit · Esc cancel"
        );
        form.editor_takes_all = true;
        assert_eq!(
            edit_help(&form)[1],
            "Tab/S-Tab move · ^O JSON · ^X clear · ^S submit · Esc cancel"
        );
        form.handle_key(&crate::form::Key::Tab);
        assert!(edit_help(&form)[0].contains("Ctrl-O all as JSON"));
        assert!(!edit_help(&form)[0].contains("Ctrl-O editor"));
        form.editor_takes_all = false;
        assert!(edit_help(&form)[0].contains("Ctrl-O editor"));
        form.handle_key(&crate::form::Key::Tab);
        form.handle_key(&crate::form::Key::Char('s'));
        assert!(form.secret_entered());
    }

    /// A choice list with a typed filter takes Space into the filter: its
    /// help says Enter picks, and says Space again once the filter is
    /// empty.
    #[test]
    fn a_filtered_list_says_enter_picks() {
        let options: Vec<String> = (0..12).map(|i| format!("option {i}")).collect();
        let v = serde_json::json!({"type": "object", "properties": {
            "pick": {"type": "string", "enum": options}
        }});
        let schema =
            crate::binding::form_schema::parse_form_schema(&v, "/requestedSchema").expect("schema");
        let mut form = Form::new(&schema, "");
        assert!(
            edit_help(&form)[0].contains("Space select"),
            "{:?}",
            edit_help(&form)
        );
        form.handle_key(&crate::form::Key::Char('1'));
        let help = edit_help(&form);
        assert!(help[0].contains("Enter select"), "{help:?}");
        assert!(!help[0].contains("Space"), "{help:?}");
    }
}
