//! One field of the form as drawn: its head (label, required mark,
//! description), its input (a text box, a multi-line text, a boolean, a
//! choice list with its filter) and its hint (format, count, range, the
//! error). Every server-provided string is sanitised here
//! ([`crate::safe_text`]).

use ratatui::text::{Line, Span};

use crate::binding::{FieldKind, StringFormat};
use crate::form::{FieldState, FieldValue, Focus, Form};
use crate::safe_text::{display, display_multiline};

use super::super::chrome::Body;
use super::super::text::{clip, slice_cols, width};
use super::super::theme::Theme;

/// Rows of options shown at once in a focused list.
pub const LIST_ROWS: usize = 8;

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
pub(super) fn field_hint(st: &FieldState) -> Option<String> {
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

pub(super) fn field_block(b: &mut Body, form: &Form, i: usize, theme: &Theme, w: usize) {
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
