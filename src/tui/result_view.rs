//! The result of a tool called while trying a server by hand
//! ([`crate::browse::Step::Result`], a [`CallOutcome`]): whether it failed
//! (the call itself, or the server's `isError`), its content blocks (text wrapped; images and audio named
//! with their type and size; embedded resources and links by URI), then
//! `structuredContent` pretty-printed. Every text is the server's: escaped
//! ([`crate::safe_text::display`]).
//!
//! Keys: ↑ ↓ PageUp PageDown scroll; Enter or Esc: back to the list; `q`:
//! leave.

use std::time::Duration;

use ratatui::layout::Rect;
use ratatui::text::Line;
use ratatui::widgets::Paragraph;
use ratatui::Frame;

use super::text::{clip, wrap};
use super::theme::Theme;
use super::{Clock, Screen, Step};
use crate::binding::{Action, Answer, Revision};
use crate::browse::result::{result_lines, Tone};
use crate::browse::{CallOutcome, Kind};
use crate::form::Key;
use crate::responder::{Outcome, Progress};
use crate::safe_text::display;

/// How long the result must have been on screen before a key counts (a
/// key typed while the call ran never dismisses it unseen).
const RESULT_GUARD: Duration = Duration::from_millis(300);

/// What the person did on the result.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Seen {
    /// Back to the list.
    Back,
    /// Leave the session.
    Leave,
    /// Run the call again over MCP 2025-11-25 (only when offered:
    /// [`ResultView::with_again`]).
    Again,
    /// Show what the server wrote on its stderr (only when there is some:
    /// [`ResultView::with_stderr`]), then the result again.
    Stderr,
}

/// The result on screen, scrolled.
pub struct ResultView {
    lines: Vec<(Tone, String)>,
    scroll: usize,
    /// The rows that fit in the last frame.
    rows: usize,
    /// The wrapped line count of the last frame.
    total: usize,
    seen: Option<Seen>,
    /// `a` runs the call again over MCP 2025-11-25.
    again: bool,
    /// `s` shows the server's stderr.
    stderr: bool,
}

impl ResultView {
    /// How the call of the tool `tool` ended (`outcome`), with the check
    /// of its structured content (see [`result_lines`]).
    pub fn new(
        kind: Kind,
        tool: &str,
        outcome: &CallOutcome,
        output_check: Option<&Result<(), Vec<String>>>,
    ) -> Self {
        ResultView {
            lines: result_lines(kind, tool, outcome, output_check),
            scroll: 0,
            rows: 1,
            total: 0,
            seen: None,
            again: false,
            stderr: false,
        }
    }

    /// The view offering the server's stderr on `s` (when `stderr`: the
    /// server wrote some).
    pub fn with_stderr(mut self, stderr: bool) -> Self {
        self.stderr = stderr;
        self
    }

    /// On screen again after the stderr was shown: nothing seen yet.
    pub fn shown_again(&mut self) {
        self.seen = None;
    }

    /// The view with our `hint` (safe text) said after the result, as a
    /// note of ours (not framed as the server's text).
    pub fn with_hint(mut self, hint: Option<&str>) -> Self {
        if let Some(h) = hint {
            self.lines
                .push((Tone::Muted, format!("Hint: {}", display(h))));
        }
        self
    }

    /// The view offering to run the call again over MCP 2025-11-25 (`a`),
    /// when `again` ([`crate::browse::again_offer`]).
    pub fn with_again(mut self, again: bool) -> Self {
        if again {
            self.again = true;
            self.lines
                .push((Tone::Heading, crate::browse::again_offer()));
            self.lines.push((
                Tone::Heading,
                format!(
                    "Press a to run it again over MCP {}.",
                    Revision::V2025_11_25
                ),
            ));
        }
        self
    }

    /// What the person did, once done.
    pub fn seen(&self) -> Option<Seen> {
        self.seen
    }

    /// Handle one key; returns what the person did once done.
    pub fn on_key(&mut self, k: &Key) -> Option<Seen> {
        let max = self.total.saturating_sub(self.rows);
        match k {
            Key::Enter | Key::Esc => self.seen = Some(Seen::Back),
            Key::Char('q') => self.seen = Some(Seen::Leave),
            Key::Char('a') if self.again => self.seen = Some(Seen::Again),
            Key::Char(super::stderr_view::STDERR_KEY) if self.stderr => {
                self.seen = Some(Seen::Stderr)
            }
            Key::Up => self.scroll = self.scroll.saturating_sub(1),
            Key::Down => self.scroll = (self.scroll + 1).min(max),
            Key::PageUp => self.scroll = self.scroll.saturating_sub(10),
            Key::PageDown => self.scroll = (self.scroll + 10).min(max),
            Key::Home => self.scroll = 0,
            Key::End => self.scroll = max,
            _ => {}
        }
        self.seen
    }

    /// Draw the result in `area`: the lines wrapped, scrolled, and the
    /// keys under them.
    pub fn draw(&mut self, f: &mut Frame, theme: &Theme, area: Rect) {
        let w = (area.width as usize).max(1);
        let wrapped: Vec<Line> = self
            .lines
            .iter()
            .flat_map(|(tone, l)| {
                let style = match tone {
                    Tone::Heading => theme.title(),
                    Tone::Text => theme.text(),
                    Tone::Error => theme.error(),
                    Tone::Muted => theme.muted(),
                };
                wrap(l, w).into_iter().map(move |s| Line::styled(s, style))
            })
            .collect();
        self.total = wrapped.len();
        self.rows = (area.height as usize).saturating_sub(1).max(1);
        self.scroll = self.scroll.min(self.total.saturating_sub(self.rows));
        let mut lines: Vec<Line> = wrapped
            .into_iter()
            .skip(self.scroll)
            .take(self.rows)
            .collect();
        while lines.len() < self.rows {
            lines.push(Line::raw(""));
        }
        let more = if self.scroll + self.rows < self.total {
            " · ↓ more"
        } else {
            ""
        };
        let again = if self.again {
            format!("a: run again over MCP {} · ", Revision::V2025_11_25)
        } else {
            String::new()
        };
        let stderr = if self.stderr {
            "s: server's stderr · "
        } else {
            ""
        };
        let help = format!(
            "{again}Enter: back to the tools · q: leave · {stderr}↑↓ PageUp PageDown: scroll{more} · ^P: protocol"
        );
        lines.push(Line::styled(clip(&help, w), theme.muted()));
        f.render_widget(Paragraph::new(lines), area);
    }
}

/// The result as a screen of the terminal loop. Done with an accept once
/// the person read it ([`ResultView::seen`] says what next).
pub(crate) struct ResultScreen(pub ResultView);

impl Screen for ResultScreen {
    fn grace(&self) -> Duration {
        RESULT_GUARD
    }

    fn draw(&mut self, f: &mut Frame, theme: &Theme, _clock: Option<Clock>) -> bool {
        if super::chrome::too_small_saying(
            f,
            theme,
            "press Esc to go back to the list or q to leave",
            "Esc: back · q: leave",
        ) {
            return false;
        }
        let area = f.area();
        self.0.draw(f, theme, area);
        true
    }

    /// Too small to show the result: Esc goes back to the list, `q` leaves
    /// (`a`, which calls the tool again, waits for the result to be seen).
    fn small_key(&mut self, k: &Key) -> Option<Step> {
        let seen = match k {
            Key::Esc => Seen::Back,
            Key::Char('q') => Seen::Leave,
            _ => return None,
        };
        self.0.seen = Some(seen);
        Some(Step::Done(Outcome::Answer(Answer::bare(Action::Accept))))
    }

    fn key(&mut self, k: &Key) -> Step {
        match self.0.on_key(k) {
            Some(_) => Step::Done(Outcome::Answer(Answer::bare(Action::Accept))),
            None => Step::Continue,
        }
    }

    fn put_progress(&mut self, _progress: Progress) {}
}

#[cfg(test)]
mod tests {
    use super::*;

    fn result() -> CallOutcome {
        CallOutcome::Answered(crate::browse::result::sample_result())
    }

    #[test]
    fn keys_go_back_or_leave() {
        let mut v = ResultView::new(Kind::Tool, "t", &result(), None);
        assert_eq!(v.on_key(&Key::Down), None);
        assert_eq!(v.on_key(&Key::Enter), Some(Seen::Back));
        let mut v = ResultView::new(Kind::Tool, "t", &result(), None);
        assert_eq!(v.on_key(&Key::Char('q')), Some(Seen::Leave));
        // `a` runs the call again only when that is offered.
        let mut v = ResultView::new(Kind::Tool, "t", &result(), None);
        assert_eq!(v.on_key(&Key::Char('a')), None);
        let mut v = ResultView::new(Kind::Tool, "t", &result(), None).with_again(true);
        assert_eq!(
            v.lines.last().map(|(_, l)| l.as_str()),
            Some(
                format!(
                    "Press a to run it again over MCP {}.",
                    Revision::V2025_11_25
                )
                .as_str()
            )
        );
        assert_eq!(v.on_key(&Key::Char('a')), Some(Seen::Again));
    }

    #[test]
    fn too_small_the_result_says_the_size_it_needs_and_esc_goes_back_q_leaves() {
        for (w, h) in [(20, 6), (30, 8)] {
            let mut s = ResultScreen(ResultView::new(Kind::Tool, "book", &result(), None));
            let mut t =
                ratatui::Terminal::new(ratatui::backend::TestBackend::new(w, h)).expect("terminal");
            let mut shown = true;
            t.draw(|f| shown = s.draw(f, &Theme::monochrome(), None))
                .expect("draw");
            assert!(!shown);
            insta::assert_snapshot!(format!("result_too_small_{w}x{h}"), t.backend());
        }
        let mut s = ResultScreen(ResultView::new(Kind::Tool, "book", &result(), None));
        assert!(s.small_key(&Key::Enter).is_none());
        assert!(s.small_key(&Key::Esc).is_some());
        assert_eq!(s.0.seen(), Some(Seen::Back));
        let mut s = ResultScreen(ResultView::new(Kind::Tool, "book", &result(), None));
        assert!(s.small_key(&Key::Char('q')).is_some());
        assert_eq!(s.0.seen(), Some(Seen::Leave));
    }

    #[test]
    fn the_result_screen_wraps_and_scrolls() {
        let hinted = ResultView::new(Kind::Tool, "book", &result(), None).with_hint(Some("run it"));
        assert_eq!(
            hinted.lines.last(),
            Some(&(Tone::Muted, "Hint: run it".to_owned()))
        );
        let mut v = ResultView::new(Kind::Tool, "book", &result(), None);
        let mut t =
            ratatui::Terminal::new(ratatui::backend::TestBackend::new(40, 12)).expect("terminal");
        let theme = Theme::monochrome();
        t.draw(|f| {
            let a = f.area();
            v.draw(f, &theme, a)
        })
        .expect("draw");
        insta::assert_snapshot!(t.backend());
    }
}
