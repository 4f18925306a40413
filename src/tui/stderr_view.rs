//! What a stdio server wrote on its stderr, all of it that is kept
//! ([`crate::responder::ServerStderr`]), on a screen of its own: opened
//! with `s` from the waiting screen or a call's result, it follows new
//! lines while it is open (when scrolled to the end) and goes back on Esc,
//! `q`, Enter or `s`. Every line is the server's, escaped when it was
//! kept, and drawn as its words (after `| `).

use std::time::Duration;

use ratatui::layout::Rect;
use ratatui::text::Line;
use ratatui::widgets::Paragraph;
use ratatui::Frame;

use super::chrome::too_small_saying;
use super::text::{clip, wrap};
use super::theme::Theme;
use super::{Clock, Screen, Step};
use crate::binding::{Action, Answer};
use crate::form::Key;
use crate::responder::{Outcome, Progress, ServerStderr, STDERR_LINES};

/// The key that opens the view, on the waiting screen and a result.
pub const STDERR_KEY: char = 's';

/// The server's stderr, scrolled.
pub struct StderrView {
    stderr: ServerStderr,
    /// The first row on screen; None: the end (new lines are followed).
    top: Option<usize>,
    /// Rows of the last frame's text and of its window.
    total: usize,
    rows: usize,
}

impl StderrView {
    /// The view of `stderr`, at its end.
    pub fn new(stderr: ServerStderr) -> Self {
        StderrView {
            stderr,
            top: None,
            total: 0,
            rows: 1,
        }
    }

    /// Handle one key; true when the view is done (back).
    pub fn on_key(&mut self, k: &Key) -> bool {
        let end = self.total.saturating_sub(self.rows);
        let at = self.top.unwrap_or(end);
        let to = |n: usize| if n >= end { None } else { Some(n) };
        match k {
            Key::Esc | Key::Enter | Key::Char('q') | Key::Char(STDERR_KEY) => return true,
            Key::Up => self.top = to(at.saturating_sub(1)),
            Key::Down => self.top = to(at + 1),
            Key::PageUp => self.top = to(at.saturating_sub(10)),
            Key::PageDown => self.top = to(at + 10),
            Key::Home => self.top = to(0),
            Key::End => self.top = None,
            _ => {}
        }
        false
    }

    /// Draw the lines in `area`: a heading, the lines wrapped (each after
    /// `| `), the keys.
    pub fn draw(&mut self, f: &mut Frame, theme: &Theme, area: Rect) {
        let w = (area.width as usize).max(3);
        let (lines, total) = self.stderr.all();
        let heading = if total > lines.len() as u64 {
            format!(
                "The server's stderr: {total} lines, the last {} kept",
                lines.len().min(STDERR_LINES)
            )
        } else {
            format!("The server's stderr: {total} line(s)")
        };
        let body: Vec<String> = lines
            .iter()
            .flat_map(|l| {
                let mut first = true;
                wrap(l, w - 2)
                    .into_iter()
                    .map(move |p| {
                        format!("{} {p}", if std::mem::take(&mut first) { "|" } else { " " })
                    })
                    .collect::<Vec<_>>()
            })
            .collect();
        self.total = body.len();
        self.rows = (area.height as usize).saturating_sub(2).max(1);
        let end = self.total.saturating_sub(self.rows);
        let top = self.top.map_or(end, |t| t.min(end));
        let mut out = vec![Line::styled(clip(&heading, w), theme.title())];
        out.extend(
            body.into_iter()
                .skip(top)
                .take(self.rows)
                .map(|l| Line::styled(l, theme.text())),
        );
        while out.len() < self.rows + 1 {
            out.push(Line::raw(""));
        }
        let more = if top < end { " · ↓ more" } else { "" };
        out.push(Line::styled(
            clip(
                &format!("Esc: back · ↑↓ PageUp PageDown Home End: scroll{more}"),
                w,
            ),
            theme.muted(),
        ));
        f.render_widget(Paragraph::new(out), area);
    }
}

/// The view as a screen of the terminal loop: done (with an accept) on
/// the key that goes back.
pub(crate) struct StderrScreen(pub StderrView);

impl Screen for StderrScreen {
    fn grace(&self) -> Duration {
        Duration::ZERO
    }

    fn draw(&mut self, f: &mut Frame, theme: &Theme, _clock: Option<Clock>) -> bool {
        if too_small_saying(f, theme, "press Esc or q to go back", "Esc/q: back") {
            return false;
        }
        let area = f.area();
        self.0.draw(f, theme, area);
        true
    }

    fn key(&mut self, k: &Key) -> Step {
        if self.0.on_key(k) {
            Step::Done(Outcome::Answer(Answer::bare(Action::Accept)))
        } else {
            Step::Continue
        }
    }

    fn small_key(&mut self, k: &Key) -> Option<Step> {
        matches!(k, Key::Esc | Key::Char('q'))
            .then(|| Step::Done(Outcome::Answer(Answer::bare(Action::Accept))))
    }

    fn put_progress(&mut self, _progress: Progress) {}
}

#[cfg(test)]
mod tests {
    use super::*;

    fn drawn(v: &mut StderrView, w: u16, h: u16) -> ratatui::backend::TestBackend {
        let mut t =
            ratatui::Terminal::new(ratatui::backend::TestBackend::new(w, h)).expect("terminal");
        t.draw(|f| {
            let a = f.area();
            v.draw(f, &Theme::monochrome(), a)
        })
        .expect("draw");
        t.backend().clone()
    }

    #[test]
    fn the_view_follows_new_lines_escaped_and_scrolls() {
        let ring = ServerStderr::default();
        for i in 0..12 {
            ring.push(&format!("debug line {i}"));
        }
        ring.push("evil \u{1b}[2J\u{202e} line");
        let mut v = StderrView::new(ring.clone());
        insta::assert_snapshot!(drawn(&mut v, 40, 8));
        // Scrolled up, it stays; at the end, it follows.
        v.on_key(&Key::Home);
        ring.push("newest");
        let b = format!("{:?}", drawn(&mut v, 40, 8));
        assert!(b.contains("debug line 0") && !b.contains("newest"), "{b}");
        v.on_key(&Key::End);
        let b = format!("{:?}", drawn(&mut v, 40, 8));
        assert!(b.contains("newest"), "{b}");
        assert!(v.on_key(&Key::Esc));
    }
}
