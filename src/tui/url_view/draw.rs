//! The URL consent screen as drawn: the title, the pinned block (the host,
//! the scheme, the warning count), the scrolled body (the URL whole, the
//! warnings, who asks and the server's message framed as its words), the
//! buttons and the help line. See the module above for the layout.

use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use ratatui::Frame;
use unicode_width::UnicodeWidthChar;

use super::super::chrome::{button_row, help_line, row_width, ButtonCell, RowKind, ScrollView};
use super::super::text;
use super::super::theme::Theme;
use super::{link_target, UrlButton, UrlLink, UrlPhase, UrlViewState};
use crate::safe_text;
use crate::url_review::Severity;

/// The theme's styles by what they mean on this screen (a view of the
/// [`Theme`], built for each frame).
#[derive(Debug, Clone, PartialEq)]
struct UrlStyles {
    /// Ordinary text (message, URL).
    normal: Style,
    /// Labels and help.
    muted: Style,
    /// The registrable domain and the title.
    emphasis: Style,
    /// Caution warnings (http, IDN, port, IP literal, length).
    warning: Style,
    /// Danger warnings and refusals (userinfo, confusable, hidden
    /// characters, a refused scheme, a failed launch).
    danger: Style,
}

impl UrlStyles {
    /// The styles of `theme`: text, muted, the title underlined, warning,
    /// error in bold.
    fn of(theme: &Theme) -> Self {
        UrlStyles {
            normal: theme.text(),
            muted: theme.muted(),
            emphasis: theme.title().add_modifier(Modifier::UNDERLINED),
            warning: theme.warning(),
            danger: theme.error().add_modifier(Modifier::BOLD),
        }
    }
}

/// Rows the URL must be able to show under the pinned block (fewer when the
/// URL is shorter) for the screen to count as big enough.
pub const MIN_URL_ROWS: usize = 3;

/// The layout of one frame: the fixed rows and the scrollable body.
struct Layout {
    title: Line<'static>,
    pinned: Vec<Line<'static>>,
    body: Vec<Line<'static>>,
    /// Body rows `0..must_read` (the URL and every warning) must all have
    /// been on screen before Open is enabled.
    must_read: usize,
    /// Rows the URL itself takes in the body.
    url_rows: usize,
    /// The URL's rows in the body: the first's index, the column they
    /// start at, and their text.
    url_at: (usize, u16, Vec<String>),
}

/// Draw the view into `area` of `frame`. Records the scroll limits, whether
/// the pinned block was shown whole ([`UrlViewState::shown_whole`]) and
/// which body rows were on screen ([`UrlViewState::read_all`]) in the state
/// (interior mutability).
///
/// Screen, top to bottom: the title; the pinned block (Host with the
/// registrable domain emphasised, scheme and port, the warning count) that
/// no scrolling moves; the scrollable body (the full URL, the URL as sent,
/// the refusal and the warnings, then who asks and the server's message,
/// framed as the server's words); the scroll indicator; buttons; help.
/// When the pinned block plus the URL (up to [`MIN_URL_ROWS`] rows of it)
/// do not fit, a "too small" message is drawn instead and nothing can be
/// opened.
pub fn draw(frame: &mut Frame<'_>, area: Rect, state: &UrlViewState, theme: &Theme) {
    let styles = &UrlStyles::of(theme);
    state.complete.set(false);
    state.forget_link();
    if area.width == 0 || area.height == 0 {
        state.off_screen();
        return;
    }
    let width = usize::from(area.width);
    let lay = layout(state, styles, width);
    // title, pinned, URL rows, scroll indicator, buttons, help
    let need = 1 + lay.pinned.len() + lay.url_rows.min(MIN_URL_ROWS) + 3;
    if width < 20 || usize::from(area.height) < need {
        state.off_screen();
        draw_too_small(frame, area, styles);
        return;
    }
    state.complete.set(true);
    let mut y = area.y;
    let row = |frame: &mut Frame<'_>, lines: Vec<Line<'static>>, y: &mut u16| {
        let h = u16::try_from(lines.len()).unwrap_or(u16::MAX);
        frame.render_widget(Paragraph::new(lines), Rect::new(area.x, *y, area.width, h));
        *y += h;
    };
    row(frame, vec![lay.title.clone()], &mut y);
    row(frame, lay.pinned.clone(), &mut y);
    let fixed = y - area.y + 2; // + buttons, help
    let body_h = area.height.saturating_sub(fixed);
    draw_body(
        frame,
        Rect::new(area.x, y, area.width, body_h),
        state,
        styles,
        &lay,
    );
    y += body_h;
    let (buttons, help) = footer(state, theme, width);
    row(frame, vec![buttons], &mut y);
    row(frame, vec![help], &mut y);
}

fn draw_too_small(frame: &mut Frame<'_>, area: Rect, styles: &UrlStyles) {
    let msg = format!(
        "Terminal too small ({}x{}) to show the web address and its host. Enlarge the window, or press Esc to cancel.",
        area.width, area.height
    );
    let lines: Vec<Line<'static>> = text::wrap(&msg, usize::from(area.width))
        .into_iter()
        .map(|l| Line::from(Span::styled(l, styles.warning)))
        .collect();
    frame.render_widget(Paragraph::new(lines), area);
}

/// The scrollable body with its scroll indicator in `area`; marks the rows
/// shown as read.
fn draw_body(
    frame: &mut Frame<'_>,
    area: Rect,
    state: &UrlViewState,
    styles: &UrlStyles,
    lay: &Layout,
) {
    let body_h = area.height;
    let total = u16::try_from(lay.body.len()).unwrap_or(u16::MAX);
    // When the body overflows, its last row says so.
    let overflow = total > body_h;
    let visible_h = if overflow {
        body_h.saturating_sub(1)
    } else {
        body_h
    };
    let view = ScrollView {
        total: usize::from(total),
        height: usize::from(visible_h),
    };
    let max_scroll = u16::try_from(view.max_offset()).unwrap_or(u16::MAX);
    state.max_scroll.set(max_scroll);
    state.page.set(visible_h.max(1));
    let scroll = state.scroll.min(max_scroll);
    let rows = view.rows(usize::from(scroll));
    state.mark_read(area.width, lay.body.len(), rows.clone(), lay.must_read);
    *state.link.borrow_mut() = url_link(state, area, lay, rows.clone());
    frame.render_widget(
        Paragraph::new(lay.body[rows].to_vec()),
        Rect::new(area.x, area.y, area.width, visible_h),
    );
    if !overflow || body_h == 0 {
        return;
    }
    let below = total - scroll - visible_h;
    let n = state.review.warnings.len() + usize::from(state.review.refusal.is_some());
    let text = if below > 0 && n > 0 {
        format!(
            "↓ {below} more, {n} warning{} (↓ PgDn)",
            if n == 1 { "" } else { "s" }
        )
    } else if below > 0 {
        format!(
            "↓ {below} more line{} (↓ PgDn)",
            if below == 1 { "" } else { "s" }
        )
    } else {
        "↑ top (↑ PgUp Home)".to_owned()
    };
    frame.render_widget(
        Paragraph::new(Line::from(Span::styled(
            text::clip(&text, usize::from(area.width)),
            styles.muted,
        ))),
        Rect::new(area.x, area.y + visible_h, area.width, 1),
    );
}

/// The URL's rows among the body rows `rows` shown in `area`, as a
/// [`UrlLink`] (None when none is shown or the URL may not be opened).
fn url_link(
    state: &UrlViewState,
    area: Rect,
    lay: &Layout,
    rows: std::ops::Range<usize>,
) -> Option<UrlLink> {
    let target = link_target(&state.review)?;
    let (first, indent, texts) = &lay.url_at;
    let mut out = Vec::new();
    for (i, t) in texts.iter().enumerate() {
        let at = first + i;
        if rows.contains(&at) {
            let y = area.y + u16::try_from(at - rows.start).ok()?;
            out.push((area.x + indent, y, t.clone()));
        }
    }
    if out.is_empty() {
        return None;
    }
    let w = usize::from(area.width);
    let full = texts
        .split_last()
        .is_some_and(|(_, before)| before.iter().all(|t| text::width(t) == w));
    let one_line = *indent == 0 && area.x == 0 && out.len() == texts.len() && full;
    Some(UrlLink {
        target,
        rows: out,
        one_line,
    })
}

fn layout(state: &UrlViewState, styles: &UrlStyles, width: usize) -> Layout {
    let title = match state.phase() {
        UrlPhase::Consent => "Open a web page?",
        UrlPhase::LaunchFailed(_) => "The browser could not be launched",
        UrlPhase::Copy { .. } => "Copy the URL",
    };
    let title = Line::from(Span::styled(
        title_text(state, title, width),
        styles.emphasis,
    ));
    let (body, must_read, url_rows) = body_lines(state, styles, width);
    let url_at = url_in_body(state, width);
    Layout {
        title,
        pinned: pinned_lines(state, styles, width),
        body,
        must_read,
        url_rows,
        url_at,
    }
}

/// The title row: the title, the progress and the countdown (when there
/// is a timeout), cut to one row; when they do not fit, the countdown is
/// kept and the progress left out.
fn title_text(state: &UrlViewState, title: &str, width: usize) -> String {
    let progress = safe_text::display(&state.progress).into_owned();
    let mut text = if progress.is_empty() {
        title.to_owned()
    } else {
        format!("{title} · {progress}")
    };
    if let Some(s) = state.seconds_left {
        let clock = super::super::header::countdown(s, state.extend_secs);
        let full = format!("{text}{clock}");
        text = if full.chars().map(cw).sum::<usize>() <= width {
            full
        } else {
            format!("{title}{clock}")
        };
    }
    text::wrap(&text, width)
        .into_iter()
        .next()
        .unwrap_or_default()
}

/// The pinned block: what will be opened, which no scrolling and no server
/// text can move off the screen: the host (and its ASCII form when it is an
/// international name), scheme and port, the warning count, a rule.
fn pinned_lines(state: &UrlViewState, s: &UrlStyles, width: usize) -> Vec<Line<'static>> {
    let r = &state.review;
    let mut out = Vec::new();
    match &r.host {
        Some(h) => {
            let (pre, reg) = h.split_unicode();
            let segs = vec![
                ("Host:    ".to_owned(), s.muted),
                (pre.to_owned(), s.normal),
                (reg.to_owned(), s.emphasis),
            ];
            out.extend(wrap_styled(&segs, width, 9));
            // An international name also in the form the browser uses, so a
            // look-alike cannot hide behind its Unicode form.
            if h.ascii != h.unicode {
                let ascii = safe_text::display(&h.ascii).into_owned();
                labelled(&mut out, "ASCII:   ", &ascii, s.warning, s, width);
            }
        }
        None => labelled(&mut out, "Host:    ", "(none)", s.danger, s, width),
    }
    let mut scheme = r.scheme.clone().unwrap_or_else(|| "(none)".to_owned());
    if let Some(p) = r.port {
        scheme.push_str(&format!(" · port {p}"));
    }
    labelled(
        &mut out,
        "Scheme:  ",
        &safe_text::display(&scheme),
        s.normal,
        s,
        width,
    );
    let n = r.warnings.len();
    let (text, style) = match (&r.refusal, n) {
        (Some(_), _) => (
            "Cannot be opened: the reason is below the URL.".to_owned(),
            s.danger,
        ),
        (None, 0) => ("No warnings.".to_owned(), s.muted),
        (None, n) => {
            let danger = r.warnings.iter().any(|w| w.severity() == Severity::Danger);
            let plural = if n == 1 { "" } else { "s" };
            (
                format!("{n} warning{plural}: read below the URL."),
                if danger { s.danger } else { s.warning },
            )
        }
    };
    labelled(&mut out, "Check:   ", &text, style, s, width);
    if let Some(b) = &state.banner {
        for l in text::wrap(b, width) {
            out.push(Line::from(Span::styled(l, s.warning)));
        }
    }
    out.push(Line::from(Span::styled("─".repeat(width), s.muted)));
    out
}

/// Where [`body_lines`] puts the URL: the index of its first body row, the
/// column its rows start at, and their text.
fn url_in_body(state: &UrlViewState, width: usize) -> (usize, u16, Vec<String>) {
    let r = &state.review;
    match state.phase() {
        UrlPhase::Copy { after_failure } => {
            let t = if *after_failure {
                COPY_AFTER_FAILURE
            } else {
                COPY_NO_OPEN
            };
            let first = text::wrap(t, width).len();
            (first, 0, text::wrap_chars(&r.display_url(), width))
        }
        UrlPhase::LaunchFailed(msg) => {
            let first = text::wrap(&safe_text::display(msg), width).len() + 2;
            let rows = text::wrap_chars(&r.display_url(), width.saturating_sub(2).max(1));
            (first, 2, rows)
        }
        UrlPhase::Consent => {
            let rows = text::wrap_chars(&r.display_url(), width.saturating_sub(2).max(1));
            (1, 2, rows)
        }
    }
}

/// The copy screen's sentence after a failed launch.
const COPY_AFTER_FAILURE: &str = "Copy this URL and open it in a browser yourself:";
/// The copy screen's sentence with `--no-open`.
const COPY_NO_OPEN: &str = "Nothing was opened (--no-open). Copy this URL; Done sends your consent (accept), Give up sends cancel:";

/// The scrollable body, pre-wrapped to `width`, with the number of leading
/// rows that must be read before consent and the rows of the URL itself.
fn body_lines(
    state: &UrlViewState,
    s: &UrlStyles,
    width: usize,
) -> (Vec<Line<'static>>, usize, usize) {
    let mut out: Vec<Line<'static>> = Vec::new();
    let r = &state.review;
    let blank = || Line::from("");

    match state.phase() {
        UrlPhase::LaunchFailed(msg) => {
            for l in text::wrap(&safe_text::display(msg), width) {
                out.push(Line::from(Span::styled(l, s.danger)));
            }
            out.push(blank());
        }
        UrlPhase::Copy { after_failure } => {
            let t = if *after_failure {
                COPY_AFTER_FAILURE
            } else {
                COPY_NO_OPEN
            };
            for l in text::wrap(t, width) {
                out.push(Line::from(Span::styled(l, s.muted)));
            }
            // The URL alone, from column 0, so a terminal selection copies
            // nothing else.
            for l in text::wrap_chars(&r.display_url(), width) {
                out.push(Line::from(Span::styled(l, s.normal)));
            }
            out.push(blank());
            who_and_message(&mut out, state, s, width);
            return (out, 0, 1);
        }
        UrlPhase::Consent => {}
    }

    out.push(Line::from(Span::styled("URL", s.muted)));
    let url = text::wrap_chars(&r.display_url(), width.saturating_sub(2).max(1));
    let url_rows = url.len();
    for l in url {
        out.push(Line::from(vec![Span::raw("  "), Span::styled(l, s.normal)]));
    }
    if r.rewritten() {
        out.push(Line::from(Span::styled("As sent", s.muted)));
        for l in text::wrap_chars(&r.display_sent(), width.saturating_sub(2).max(1)) {
            out.push(Line::from(vec![Span::raw("  "), Span::styled(l, s.muted)]));
        }
    }
    if let Some(refusal) = &r.refusal {
        bullet(&mut out, "✗ ", &refusal.sentence(), s.danger, width);
    }
    if !r.warnings.is_empty() {
        out.push(Line::from(Span::styled("Warnings", s.muted)));
        for w in &r.warnings {
            let st = match w.severity() {
                Severity::Danger => s.danger,
                Severity::Caution => s.warning,
            };
            bullet(&mut out, "! ", &w.sentence(), st, width);
        }
    }
    let must_read = out.len();
    out.push(blank());
    who_and_message(&mut out, state, s, width);
    (out, must_read, url_rows)
}

/// Who asks, then the server's message framed as its own words (drawn
/// below the URL, so it cannot imitate or push away what will be opened).
fn who_and_message(
    out: &mut Vec<Line<'static>>,
    state: &UrlViewState,
    s: &UrlStyles,
    width: usize,
) {
    let server = safe_text::display(&state.server).into_owned();
    labelled(out, "Server:  ", &server, s.normal, s, width);
    // Each cut to the one line beside its label, ending with "…" when cut.
    if let Some(l) = &state.launched {
        let label = "Launched: ";
        let l = text::clip(
            &safe_text::display(l),
            width.saturating_sub(text::width(label)),
        );
        labelled(out, label, &l, s.normal, s, width);
    }
    if let Some(c) = &state.call {
        let label = "Asked in: ";
        let c = text::clip(
            &safe_text::display(c),
            width.saturating_sub(text::width(label)),
        );
        labelled(out, label, &c, s.normal, s, width);
    }
    let adapter = safe_text::display(&state.adapter).into_owned();
    labelled(out, "Relayed: ", &adapter, s.normal, s, width);
    if matches!(state.phase(), UrlPhase::Copy { .. }) {
        return;
    }
    out.push(Line::from(""));
    let head = "┌ The server's message (its words, not checked):";
    out.push(Line::from(Span::styled(text::clip(head, width), s.muted)));
    let inner = width.saturating_sub(2).max(1);
    for l in safe_text::display_multiline(&state.message) {
        for w in text::wrap(&l, inner) {
            out.push(Line::from(vec![
                Span::styled("│ ".to_owned(), s.muted),
                Span::styled(w, s.normal),
            ]));
        }
    }
    out.push(Line::from(Span::styled("└", s.muted)));
}

/// The button row (long labels, or short ones when those do not fit) and
/// the help line of the current phase.
fn footer(state: &UrlViewState, theme: &Theme, width: usize) -> (Line<'static>, Line<'static>) {
    let bs = state.buttons();
    let disabled = state.review.openable() && !state.open_enabled();
    let cells = |short: bool| -> Vec<ButtonCell<'static>> {
        bs.iter()
            .map(|b| ButtonCell {
                label: b.label(short, state.no_open),
                focused: *b == state.focus,
                disabled: *b == UrlButton::Open && disabled,
            })
            .collect()
    };
    let mut row = cells(false);
    if row_width(&row, RowKind::Marked) > width {
        row = cells(true);
    }
    (
        button_row(&row, RowKind::Marked, theme),
        help_line(help_texts(state, disabled), theme, width),
    )
}

/// The key help of the current phase, longest first.
fn help_texts(state: &UrlViewState, open_disabled: bool) -> &'static [&'static str] {
    match state.phase() {
        UrlPhase::Consent if open_disabled && state.unread_above.get() => &[
            "Open is disabled: scroll up to read the whole URL (↑ PgUp) · d decline · Esc cancel",
            "Open is disabled: scroll up to read the whole URL (↑ PgUp)",
            "scroll up to read the whole URL (↑ PgUp)",
            "scroll up to read the whole URL",
        ],
        UrlPhase::Consent if open_disabled => &[
            "Open is disabled: scroll to read the whole URL (↓ PgDn) · d decline · Esc cancel",
            "Open is disabled: scroll to read the whole URL (↓ PgDn)",
            "scroll to read the whole URL (↓ PgDn)",
            "scroll to read the whole URL",
        ],
        UrlPhase::Consent if state.review.openable() && state.no_open => &[
            "Tab/←→ move · Enter press · o consent · d decline · Esc cancel",
            "Tab move · Enter press · o consent · Esc cancel",
            "o consent · d decline · Esc cancel",
        ],
        UrlPhase::Consent if state.review.openable() => &[
            "Tab/←→ move · Enter press · o open · d decline · Esc cancel",
            "Tab move · Enter press · o open · Esc cancel",
            "o open · d decline · Esc cancel",
        ],
        UrlPhase::Consent => &[
            "Tab/←→ move · Enter press · d decline · Esc cancel",
            "d decline · Esc cancel",
        ],
        UrlPhase::LaunchFailed(_) => &[
            "Tab/←→ move · Enter press · r retry · s show URL · g/Esc give up",
            "r retry · s show URL · Esc give up",
        ],
        UrlPhase::Copy { .. } => &[
            "Tab/←→ move · Enter press · g/Esc give up",
            "Enter press · Esc give up",
        ],
    }
}

/// `label` then `value` word-wrapped with a hanging indent under the value.
fn labelled(
    out: &mut Vec<Line<'static>>,
    label: &str,
    value: &str,
    style: Style,
    s: &UrlStyles,
    width: usize,
) {
    let indent = label.chars().count();
    if indent >= width {
        out.extend(wrap_styled(
            &[(label.to_owned(), s.muted), (value.to_owned(), style)],
            width,
            0,
        ));
        return;
    }
    for (i, l) in text::wrap(value, width - indent).into_iter().enumerate() {
        let lead = if i == 0 {
            Span::styled(label.to_owned(), s.muted)
        } else {
            Span::raw(" ".repeat(indent))
        };
        out.push(Line::from(vec![lead, Span::styled(l, style)]));
    }
}

/// A bullet item: `mark` then `text` word-wrapped with a hanging indent.
fn bullet(out: &mut Vec<Line<'static>>, mark: &str, text: &str, style: Style, width: usize) {
    let indent = mark.chars().count();
    let inner = width.saturating_sub(indent).max(1);
    for (i, l) in text::wrap(text, inner).into_iter().enumerate() {
        let lead = if i == 0 {
            mark.to_owned()
        } else {
            " ".repeat(indent)
        };
        out.push(Line::from(vec![
            Span::styled(lead, style),
            Span::styled(l, style),
        ]));
    }
}

fn cw(c: char) -> usize {
    c.width().unwrap_or(0)
}

/// Wrap styled segments by character to `width`, continuation lines
/// indented by `indent` columns; every character is kept.
fn wrap_styled(segs: &[(String, Style)], width: usize, indent: usize) -> Vec<Line<'static>> {
    let width = width.max(1);
    let indent = if indent >= width { 0 } else { indent };
    let mut lines: Vec<Line<'static>> = Vec::new();
    let mut spans: Vec<Span<'static>> = Vec::new();
    let mut cur = String::new();
    let mut cur_style = Style::default();
    let mut w = 0;
    let mut line_start = 0;
    for (text, style) in segs {
        if !cur.is_empty() && *style != cur_style {
            spans.push(Span::styled(std::mem::take(&mut cur), cur_style));
        }
        cur_style = *style;
        for c in text.chars() {
            let c_w = cw(c);
            if w + c_w > width && w > line_start {
                if !cur.is_empty() {
                    spans.push(Span::styled(std::mem::take(&mut cur), cur_style));
                }
                lines.push(Line::from(std::mem::take(&mut spans)));
                if indent > 0 {
                    spans.push(Span::raw(" ".repeat(indent)));
                }
                w = indent;
                line_start = indent;
            }
            cur.push(c);
            w += c_w;
        }
    }
    if !cur.is_empty() {
        spans.push(Span::styled(cur, cur_style));
    }
    if !spans.is_empty() || lines.is_empty() {
        lines.push(Line::from(spans));
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn styled_wrap_indents_continuations() {
        let st = Style::default();
        let lines = wrap_styled(
            &[("Host:    ".into(), st), ("abcdefghijkl".into(), st)],
            12,
            9,
        );
        let text: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
        assert_eq!(
            text,
            vec![
                "Host:    abc",
                "         def",
                "         ghi",
                "         jkl"
            ]
        );
    }
}
