//! The form's frame: the header, the server's message, one block per field
//! ([`super::fields`]), the fields the form leaves out, then the notice,
//! the buttons and the help line; the review step before sending; the
//! help for the focused field. Pure functions from state to a ratatui
//! frame; every server-provided string goes through [`crate::safe_text`].

use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use ratatui::Frame;

use crate::form::{FieldValue, Focus, Form, Stage};
use crate::safe_text::{display, display_multiline};

use super::super::chrome::{
    buttons_line, focused_label_column, frame_with, help_line, too_small_asking, Body, ButtonCell,
    RowKind, MIN_HEIGHT, MIN_WIDTH,
};
use super::super::header::Header;
use super::super::text::{clip, width, wrap};
use super::super::theme::Theme;
use super::fields::field_block;

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
                // Until the first change, where a screen-reader user looks
                // first: plain mode asks line by line.
                None if !form.changed() => {
                    Line::styled(plain_hint(w.saturating_sub(15)), theme.muted())
                }
                None => Line::raw(""),
            });
            let labels: Vec<(&str, bool)> = form
                .buttons()
                .iter()
                .map(|btn| (form.button_label(*btn), form.focus() == Focus::Button(*btn)))
                .collect();
            b.foot_point = button_cursor(&labels).map(|c| (footer.len(), c));
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
        Stage::Review(content) => review_body(
            &mut b,
            &mut footer,
            (form, content, header.sampling),
            theme,
            w,
        ),
    }
    if !follow_focus {
        b.focus = None;
    }
    b.place = mode.place_input && matches!(form.stage(), Stage::Edit);
    let secret = form.secret_warning();
    frame_with(f, theme, header, secret.as_deref(), b, footer, scroll)
}

/// The hint for a screen-reader user on an untouched form, in the notice
/// row: the first of [`PLAIN_HINTS`] (longest first) that fits in `w`
/// cells, else the last cut to `w`.
pub fn plain_hint(w: usize) -> String {
    let last = PLAIN_HINTS[PLAIN_HINTS.len() - 1];
    let fits = PLAIN_HINTS.iter().find(|h| width(h) <= w);
    clip(fits.copied().unwrap_or(last), w)
}

/// The notice row of an untouched form, longest first: a screen-reader
/// user can answer line by line instead (`--plain`).
pub const PLAIN_HINTS: [&str; 3] = [
    " Screen reader? Run with --plain to answer line by line.",
    " Screen reader? Use --plain.",
    " Screen reader: --plain",
];

/// The column of the focused button's label in a [`buttons_line`] of
/// `labels`: the terminal cursor goes there (screen readers follow it).
fn button_cursor(labels: &[(&str, bool)]) -> Option<u16> {
    let cells: Vec<ButtonCell> = labels
        .iter()
        .map(|(l, focused)| ButtonCell::new(l, *focused))
        .collect();
    focused_label_column(&cells, RowKind::Spaced)
}

/// The review step's body (the exact content, pretty-printed) and footer
/// (a waiting question, the buttons, the keys), `w` cells wide; a form of
/// arguments says the call is made with it, a sampling request's
/// (`sampling`) that the reply goes as the model's.
fn review_body(
    b: &mut Body,
    footer: &mut Vec<Line<'static>>,
    (form, content, sampling): (&Form, &serde_json::Map<String, serde_json::Value>, bool),
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
    } else if sampling {
        (
            "Review: this reply is sent to the server as the model's (model \"human\").",
            "Send",
            crate::form::HELP_REVIEW,
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
    let labels = [(send, true), ("Back", false)];
    b.foot_point = button_cursor(&labels).map(|c| (footer.len(), c));
    footer.push(buttons_line(&labels, theme));
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
