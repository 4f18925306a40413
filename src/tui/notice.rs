//! The full-screen notices that wait for a key: how a request ended
//! without an answer from the screen (withdrawn by its source, or
//! `--timeout` ran out), shown until a key the consent guard admits, so one
//! screen never turns into another unseen.

use std::time::{Duration, Instant};

use ratatui::text::Line;
use ratatui::widgets::Paragraph;
use ratatui::Frame;

use crate::binding::{Action, Answer};
use crate::form::Key;
use crate::responder::{Context, Outcome, RespondError};
use crate::safe_text::display;

use super::chrome::{inset, too_small_saying};
use super::header::EXTEND_KEY;
use super::terminal::{read_input, Input};
use super::theme::Theme;
use super::{guard, TuiResponder, CONSENT_GUARD, TICK};

/// Which request a notice is about: "request N of M".
pub(super) fn screen_label(cx: &Context) -> String {
    let p = cx.progress_now();
    format!("request {} of {}", p.index, p.total)
}

/// A full-screen notice that waits for a key: how a request ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Notice {
    /// The sentence that says what happened.
    title: String,
    /// More lines (safe text).
    lines: Vec<String>,
}

impl Notice {
    /// The source withdrew the request (each way its own words).
    fn withdrawn(why: &crate::responder::WithdrawReason) -> Self {
        let mut lines = Vec::new();
        if let crate::responder::WithdrawReason::Cancelled(Some(r)) = why {
            lines.push(crate::responder::withdrawn_reason_line(r));
        }
        Notice {
            title: why.notice().to_owned(),
            lines,
        }
    }

    /// `--timeout` ran out on the request of `cx`: cancel was sent, or
    /// goes with its round's answers ([`Context::cancel_words`]).
    pub(super) fn timed_out(cx: &Context, extend: Option<Duration>) -> Self {
        let mut lines = vec![format!("It was {}.", screen_label(cx))];
        if let Some(e) = extend {
            lines.push(format!(
                "Next time, {} gives a request {}s more while it is on screen.",
                EXTEND_KEY,
                e.as_secs()
            ));
        }
        Notice {
            title: cx.timed_out_notice().to_owned(),
            lines,
        }
    }
}

impl TuiResponder {
    /// The request on screen was withdrawn by its source: say how (in
    /// its own words for each way, with the server's reason if it gave
    /// one) until a key that passes the guard (a key typed for the
    /// withdrawn screen neither dismisses the notice unseen nor reaches the
    /// next request), Ctrl-C or a signal. The answer returned is never sent.
    pub(super) fn withdrawn_notice(&mut self, cx: &Context) -> Result<Outcome, RespondError> {
        let why = cx
            .withdrawn_why()
            .unwrap_or(crate::responder::WithdrawReason::Cancelled(None));
        let notice = Notice::withdrawn(&why);
        Ok(self
            .show_notice(&notice)?
            .unwrap_or(Outcome::Answer(Answer::bare(Action::Cancel))))
    }

    /// Show `notice` until a key that passes its guard (None), Ctrl-C
    /// (cancel, or quit as the second within [`QUIT_WINDOW`]) or a signal
    /// (quit).
    pub(super) fn show_notice(&mut self, notice: &Notice) -> Result<Option<Outcome>, RespondError> {
        let mut guard = guard::ConsentGuard::new(CONSENT_GUARD);
        self.repaint = true;
        loop {
            if crate::signals::received().is_some() {
                return Ok(Some(Outcome::Quit));
            }
            self.clear_if_asked()?;
            let theme = &self.theme;
            let mut area = ratatui::layout::Rect::default();
            self.tty.draw(|f| {
                area = f.area();
                draw_notice(f, theme, &notice.title, &notice.lines);
            })?;
            guard.frame(area, true, Instant::now());
            match read_input(TICK, false)? {
                Input::Key(Key::Ctrl('c')) => return Ok(Some(self.ctrl_c())),
                Input::Key(Key::Ctrl('l')) => self.repaint = true,
                Input::Key(_) if guard.admit(Instant::now()) => return Ok(None),
                _ => {}
            }
        }
    }

    /// Show the notice a request that already ended left (time ran out),
    /// if any, until it is acknowledged; true when the person quit there.
    pub(super) fn acknowledge_pending(&mut self) -> Result<bool, RespondError> {
        let Some(notice) = self.pending.take() else {
            return Ok(false);
        };
        let _busy = crate::signals::busy();
        match self.show_notice(&notice)? {
            Some(Outcome::Quit) => Ok(true),
            _ => Ok(false),
        }
    }
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
    if too_small_saying(f, theme, "press a key to go on", "A key: go on") {
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

#[cfg(test)]
mod tests {
    use ratatui::backend::TestBackend;
    use ratatui::Terminal;

    use super::*;

    #[test]
    fn the_withdrawal_notice_shows_the_server_reason_sanitised() {
        let mut t = Terminal::new(TestBackend::new(80, 12)).expect("terminal");
        let reason = "user closed\u{1b}[2J the tab";
        t.draw(|f| draw_withdrawn_because(f, &Theme::monochrome(), Some(reason)))
            .expect("draw");
        let buf = t.backend().buffer();
        let rows: Vec<String> = (0..12)
            .map(|y| (0..80).map(|x| buf[(x, y)].symbol()).collect::<String>())
            .collect();
        let text = rows.join("\n");
        assert!(text.contains(WITHDRAWN_NOTICE), "{text}");
        assert!(
            text.contains("The server's reason (its words): user closed\\u{1b}[2J the tab"),
            "{text}"
        );
        let mut t = Terminal::new(TestBackend::new(80, 12)).expect("terminal");
        t.draw(|f| draw_withdrawn_because(f, &Theme::monochrome(), None))
            .expect("draw");
        assert!(!format!("{}", t.backend()).contains("reason"));
    }

    #[test]
    fn the_withdrawal_notice_wraps_at_40_columns() {
        let mut t = Terminal::new(TestBackend::new(40, 12)).expect("terminal");
        t.draw(|f| draw_withdrawn(f, &Theme::monochrome()))
            .expect("draw");
        let buf = t.backend().buffer();
        let text: String = (0..12)
            .flat_map(|y| (0..40).map(move |x| (x, y)))
            .map(|p| buf[p].symbol().to_owned())
            .collect();
        let squashed: String = text.split_whitespace().collect();
        assert!(
            squashed.contains("Theserverwithdrewthisrequest.Nothingwassent."),
            "{text}"
        );
        assert!(squashed.contains("Pressanykeytocontinue."), "{text}");
    }
}
