//! The screen of a request that cannot be answered here (a view that is
//! not executable, or a form that cannot be answered as one): why, then only
//! Decline and Cancel.

use std::time::Duration;

use ratatui::text::Line;
use ratatui::Frame;

use crate::binding::{Action, RequestEvent};
use crate::form::{Button, Key};
use crate::responder::Progress;
use crate::safe_text::display_multiline;

use super::chrome::{buttons_line, frame_with, help_line, too_small, Body};
use super::header::Header;
use super::theme::Theme;
use super::{bare, scroll_step, Clock, Screen, Step, FORM_GUARD};

/// A request that can only be declined or cancelled: why, one line each
/// (`(text, emphasised)`), then the Decline and Cancel buttons.
pub(crate) struct RefusableScreen {
    header: Header,
    lines: Vec<(String, bool)>,
    /// The index into [`REFUSE_BUTTONS`].
    focus: usize,
    scroll: usize,
}

impl RefusableScreen {
    /// The screen with `lines` (sanitised when drawn).
    pub(crate) fn new(header: Header, lines: Vec<(String, bool)>) -> Self {
        RefusableScreen {
            header,
            lines,
            focus: 0,
            scroll: 0,
        }
    }
}

impl Screen for RefusableScreen {
    fn grace(&self) -> Duration {
        FORM_GUARD
    }

    fn draw(&mut self, f: &mut Frame, theme: &Theme, clock: Option<Clock>) -> bool {
        self.header.seconds_left = clock.map(|c| c.left);
        self.header.extend_secs = clock.map(|c| c.extend);
        let (h, lines) = (&self.header, &self.lines);
        draw_refusable(f, theme, h, lines, self.focus, &mut self.scroll);
        true
    }

    fn key(&mut self, k: &Key) -> Step {
        match k {
            Key::Esc => bare(Action::Cancel),
            Key::Ctrl('d') | Key::Char('d') => bare(Action::Decline),
            Key::Tab | Key::BackTab | Key::Left | Key::Right => {
                self.focus = 1 - self.focus.min(1);
                Step::Continue
            }
            Key::Enter | Key::Char(' ') if self.focus == 0 => bare(Action::Decline),
            Key::Enter | Key::Char(' ') => bare(Action::Cancel),
            k => {
                if let Some(d) = scroll_step(k) {
                    self.scroll = self.scroll.saturating_add_signed(d);
                }
                Step::Continue
            }
        }
    }

    fn put_banner(&mut self, banner: String) {
        self.header.banner = Some(banner);
    }

    fn put_progress(&mut self, progress: Progress) {
        self.header.progress = progress;
    }
}

/// The lines of a request whose view is not executable (`reason`: why).
pub(super) fn not_executable_lines(req: &RequestEvent, reason: String) -> Vec<(String, bool)> {
    vec![
        (
            "This request cannot be answered with content.".to_owned(),
            true,
        ),
        (format!("mode: {}", req.mode.as_str()), false),
        (reason, false),
        (String::new(), false),
        (
            "It is not an executable request: you can only decline or cancel it.".to_owned(),
            false,
        ),
    ]
}

/// The screen of a request that cannot be answered as a form (compatible
/// schema policy, or a form refused under the strict one): the server's
/// `message` framed as its own words (left out when empty), then why, one
/// reason a line (all sanitised when drawn).
pub fn not_a_form_lines(message: &str, reasons: &[String]) -> Vec<(String, bool)> {
    let mut lines = vec![
        (
            "This request cannot be answered as a form.".to_owned(),
            true,
        ),
        ("mode: form".to_owned(), false),
    ];
    if !message.is_empty() {
        lines.push((String::new(), false));
        lines.push((
            "┌ The server's message (its words, not checked):".to_owned(),
            false,
        ));
        for l in crate::safe_text::display_multiline(message) {
            lines.push((format!("│ {l}"), false));
        }
        lines.push(("└".to_owned(), false));
    }
    lines.push((
        "Its requested schema asks for what a form cannot show or check:".to_owned(),
        false,
    ));
    lines.extend(reasons.iter().map(|r| (format!("  · {r}"), false)));
    lines.push((String::new(), false));
    lines.push(("You can only decline or cancel it.".to_owned(), false));
    lines
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::binding::RequestView;
    use crate::tui::tests::{decided, frame, header};

    #[test]
    fn not_a_form_screen_shows_the_server_message_framed_and_sanitised() {
        let server = crate::binding::Server {
            name: "srv".into(),
            title: None,
            version: None,
        };
        let params = serde_json::json!({"message": "Ship\u{1b}[2J where?\nSecond.",
            "requestedSchema": {"type": "object", "properties": {
                "address": {"type": "object"}}}});
        let options = crate::binding::WrapOptions {
            policy: crate::binding::SchemaPolicy::Compatible,
            ..crate::binding::WrapOptions::new(&server, "test", "e-1")
        };
        let req = crate::binding::wrap_request(&params, &options).expect("valid request");
        let RequestView::NotAForm { reasons, .. } = &req.view else {
            panic!("not a form: {req:?}")
        };
        let lines = not_a_form_lines(&crate::responder::request_message(&req), reasons);
        let texts: Vec<&str> = lines.iter().map(|(l, _)| l.as_str()).collect();
        let at = |s: &str| texts.iter().position(|l| *l == s);
        let msg = at("│ Ship\\u{1b}[2J where?").expect("message shown");
        assert_eq!(texts.get(msg + 1), Some(&"│ Second."));
        assert!(at("┌ The server's message (its words, not checked):") < Some(msg));
        let why = at("Its requested schema asks for what a form cannot show or check:");
        assert!(Some(msg) < why, "{texts:?}");
        let none = not_a_form_lines("", reasons);
        assert!(!none.iter().any(|(l, _)| l.starts_with('┌')));
    }

    #[test]
    fn refusable_screen_declines_or_cancels_only() {
        let lines = vec![("Why.".to_owned(), true)];
        let mut s = RefusableScreen::new(header(), lines.clone());
        assert_eq!(decided(s.key(&Key::Enter)), Some(Action::Decline));
        assert_eq!(decided(s.key(&Key::Tab)), None);
        assert_eq!(decided(s.key(&Key::Char(' '))), Some(Action::Cancel));
        let mut s = RefusableScreen::new(header(), lines);
        assert_eq!(decided(s.key(&Key::Char('a'))), None);
        assert_eq!(decided(s.key(&Key::Down)), None);
        assert_eq!(decided(s.key(&Key::Ctrl('d'))), Some(Action::Decline));
        assert_eq!(decided(s.key(&Key::Esc)), Some(Action::Cancel));
        let (top, whole) = frame(&mut s, Some(7));
        assert!(whole);
        assert!(
            top.ends_with("request 1 of 1 · 7s left · Ctrl-T +30s"),
            "{top:?}"
        );
    }
}
