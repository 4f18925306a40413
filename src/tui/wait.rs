//! The waiting screen, between requests: the wait for the next request
//! (with the count of answers), the connection to the source, a browser
//! flow's wait with its retry, a picked call in progress with what the
//! server reports, and a sign-in waiting for the browser
//! ([`super::sign_in_wait`]); the keys that end or answer each wait.

use std::time::{Duration, Instant};

use ratatui::text::Line;
use ratatui::widgets::Paragraph;
use ratatui::Frame;

use crate::form::Key;
use crate::responder::notify::Notify;
use crate::responder::{RespondError, WaitKey, Waiting};
use crate::safe_text::display;

use super::chrome::{inset, too_small, too_small_saying};
use super::sign_in_wait::{draw_sign_in_wait, SignInWait};
use super::stderr_view::{StderrScreen, StderrView, STDERR_KEY};
use super::terminal::{read_input_until_asked, Input};
use super::text::{clip, clip_middle, wrap};
use super::theme::Theme;
use super::{requests, TuiResponder, QUIT_WINDOW, TICK};

impl TuiResponder {
    /// The waiting screen ([`Responder::wait`](crate::responder::Responder::wait)):
    /// the wait `shown` asks for, or a sign-in's, until `wait` has passed,
    /// a request is ready or a key ends the wait.
    pub(super) fn waiting_screen(&mut self, wait: Duration, shown: &Waiting) -> WaitKey {
        if shown.stderr.is_some() {
            self.server_stderr = shown.stderr.clone();
        }
        match self.acknowledge_pending() {
            Ok(true) => return WaitKey::Quit,
            Ok(false) => {}
            Err(_) => return WaitKey::Nothing,
        }
        let _busy = crate::signals::busy();
        if self.waiting_since.is_none() {
            self.waiting_since = Some(Instant::now());
            if self.notify != Notify::None {
                self.tty.write_raw(b"\x1b]2;ahp-elicit\x1b\\");
            }
        }
        let end = Instant::now() + wait;
        loop {
            if crate::signals::received().is_some() {
                return WaitKey::Quit;
            }
            let armed = self.wait_armed.then_some(
                "Press Ctrl-C again to quit (the remaining requests will be cancelled).",
            );
            // Messages held until exit (e.g. bad input lines) are counted
            // here, so errors are seen while waiting.
            let held = crate::notice::held_summary().map(|(n, latest)| {
                let s = if n == 1 { "" } else { "s" };
                let latest = crate::safe_text::display(&latest).into_owned();
                format!("{n} message{s} shown on exit; latest: {latest}")
            });
            let blocked = (self.auto_declined > 0).then(|| {
                format!(
                    "{} from {} declined without being shown",
                    requests(self.auto_declined),
                    self.blocked_names()
                )
            });
            let extra: Vec<&str> = [armed, blocked.as_deref(), held.as_deref()]
                .into_iter()
                .flatten()
                .collect();
            let extra = (!extra.is_empty()).then(|| extra.join(" — "));
            if self.clear_if_asked().is_err() {
                return WaitKey::Nothing;
            }
            // A sign-in waiting for the browser is what the screen says;
            // a change of the session's sign-ins wakes the screen.
            let seen = self.sign_ins.version();
            let signing_in = self.sign_ins.current();
            if self
                .draw_wait_frame(shown, signing_in.as_ref(), extra.as_deref())
                .is_err()
            {
                return WaitKey::Nothing;
            }
            let now = Instant::now();
            if now >= end {
                return WaitKey::Nothing;
            }
            // A request said to wait that was not taken since the last
            // early return is not there to take: read the slice out.
            let taken = crate::responder::requests_taken();
            let heed = self.returned_for != Some(taken);
            let sign_ins = std::sync::Arc::clone(&self.sign_ins);
            let changed = || sign_ins.version() != seen;
            match read_input_until_asked((end - now).min(TICK), heed, &changed) {
                // The sign-ins changed: give the thread back, which takes
                // a question put on the desk, or comes back to draw the
                // change.
                Ok(None) if changed() => return WaitKey::Nothing,
                // A request is ready: give the thread back to take it.
                Ok(None) => {
                    self.returned_for = Some(taken);
                    return WaitKey::Nothing;
                }
                // Control-C ends the sign-in waiting (exit 3), as at its
                // question; `u` shows its URL in lines.
                Ok(Some(Input::Key(Key::Ctrl('c')))) if signing_in.is_some() => {
                    self.sign_ins.cancel();
                }
                Ok(Some(Input::Key(Key::Char('u')))) if signing_in.is_some() => {
                    if let Some(w) = &signing_in {
                        self.show_sign_in_url(w);
                    }
                }
                Ok(Some(Input::Key(Key::Ctrl('c')))) => {
                    let recent = self
                        .last_ctrl_c
                        .is_some_and(|t| Instant::now().duration_since(t) < QUIT_WINDOW);
                    if self.wait_armed || recent {
                        return WaitKey::Quit;
                    }
                    self.wait_armed = true;
                }
                Ok(Some(Input::Key(Key::Ctrl('l')))) => self.repaint = true,
                Ok(Some(Input::Key(super::protocol::PROTOCOL))) => {
                    // A request that arrives meanwhile is said there; the
                    // waiting screen takes it once the view is closed.
                    // Control-C there is Control-C here.
                    match self.protocol_view(&|| crate::signals::received().is_some()) {
                        Ok(Some(_)) if signing_in.is_some() => {
                            self.sign_ins.cancel();
                        }
                        Ok(Some(_)) => {
                            let recent = self
                                .last_ctrl_c
                                .is_some_and(|t| Instant::now().duration_since(t) < QUIT_WINDOW);
                            if self.wait_armed || recent {
                                return WaitKey::Quit;
                            }
                            self.wait_armed = true;
                        }
                        Ok(None) => {}
                        Err(_) => return WaitKey::Nothing,
                    }
                }
                // All the server wrote on its stderr, on a screen of its
                // own until the person goes back.
                Ok(Some(Input::Key(Key::Char(STDERR_KEY))))
                    if shown.stderr.as_ref().is_some_and(|r| r.total() > 0) =>
                {
                    if self.show_stderr() {
                        return WaitKey::Quit;
                    }
                }
                Ok(Some(Input::Key(Key::Char('r')))) if shown.offer_retry => {
                    return WaitKey::RetryNow
                }
                Ok(Some(Input::Key(Key::Esc))) if shown.offer_retry => return WaitKey::GiveUp,
                Ok(Some(Input::Key(Key::Esc))) if shown.call.is_some() => {
                    return WaitKey::CancelCall
                }
                Ok(_) => {}
                Err(_) => return WaitKey::Nothing,
            }
        }
    }

    /// Show all the server wrote on its stderr ([`StderrScreen`]) until
    /// the person goes back; true when they quit there (Ctrl-C twice, a
    /// signal).
    pub(super) fn show_stderr(&mut self) -> bool {
        let Some(stderr) = self.server_stderr.clone() else {
            return false;
        };
        let mut screen = StderrScreen(StderrView::new(stderr));
        let quit = matches!(
            self.run(&crate::responder::Context::default(), &mut screen),
            Ok(crate::responder::Outcome::Quit) | Err(_)
        );
        self.repaint = true;
        quit
    }

    /// Draw the waiting screen: the sign-in's wait when one is on
    /// (`signing_in`), else what `shown` says.
    fn draw_wait_frame(
        &mut self,
        shown: &Waiting,
        signing_in: Option<&crate::responder::sign_in::Waiting>,
        extra: Option<&str>,
    ) -> Result<(), RespondError> {
        let (theme, answered, trace) = (&self.theme, self.answered, &self.protocol);
        let Some(w) = signing_in else {
            return self
                .tty
                .draw(|f| {
                    super::protocol::draw_beside(f, theme, trace, |g| {
                        draw_wait(g, theme, answered, shown, extra)
                    })
                })
                .map(|_| ());
        };
        let url = crate::plain::signin::review_sign_in(&w.url).display_url();
        let (waiting, left) = (w.sentence(), w.time_left());
        let s = SignInWait {
            waiting: &waiting,
            left: &left,
            url: &url,
        };
        self.tty
            .draw(|f| draw_sign_in_wait(f, theme, &s, extra))
            .map(|_| ())
    }
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
        if let Some(stderr) = &shown.stderr {
            draw_stderr_tail(f, theme, stderr);
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

/// Lines of the server's stderr the waiting screen shows.
pub const STDERR_TAIL: usize = 3;

/// The last [`STDERR_TAIL`] lines of the server's stderr at the bottom of
/// the waiting screen, under a heading of their own that names the key
/// showing all of them; each after `| `, cut to one row (the lines are
/// escaped where they are kept). Nothing when there are none, or on a
/// screen too short to keep them apart from the rest.
fn draw_stderr_tail(f: &mut Frame, theme: &Theme, stderr: &crate::responder::ServerStderr) {
    let a = f.area();
    let lines = stderr.last(STDERR_TAIL);
    if lines.is_empty() || a.width < super::chrome::MIN_WIDTH || a.height < 14 {
        return;
    }
    let w = (a.width as usize).saturating_sub(2);
    let total = stderr.total();
    let mut out = vec![Line::styled(
        clip(
            &format!(
                "The server's stderr ({total} line{}; {}: all of it):",
                if total == 1 { "" } else { "s" },
                super::stderr_view::STDERR_KEY
            ),
            w,
        ),
        theme.muted(),
    )];
    out.extend(
        lines
            .iter()
            .map(|l| Line::styled(clip(&format!("| {l}"), w), theme.text())),
    );
    let n = out.len() as u16;
    let area = ratatui::layout::Rect {
        x: a.x + 1,
        y: a.bottom().saturating_sub(n + 1),
        width: a.width.saturating_sub(2),
        height: n,
    };
    f.render_widget(ratatui::widgets::Clear, area);
    f.render_widget(Paragraph::new(out), area);
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
    if too_small_saying(
        f,
        theme,
        "press Esc to cancel the call",
        "Esc: cancel the call",
    ) {
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
    if too_small_saying(f, theme, "press Ctrl-C twice to quit", "Ctrl-C twice: quit") {
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The waiting screen `shown` asks for, at 60x12, as text.
    fn wait_screen(shown: &Waiting) -> String {
        let mut t =
            ratatui::Terminal::new(ratatui::backend::TestBackend::new(60, 12)).expect("terminal");
        let theme = Theme::monochrome();
        t.draw(|f| draw_wait(f, &theme, 1, shown, Some("held")))
            .expect("draw");
        let buf = t.backend().buffer();
        (0..12)
            .map(|y| (0..60).map(|x| buf[(x, y)].symbol()).collect::<String>())
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// A call's waiting screen keeps the server's stderr apart: its last
    /// lines under a heading of their own naming the key, after `| `,
    /// escaped; on a short screen they are left out.
    #[test]
    fn the_call_wait_shows_the_last_stderr_lines_apart() {
        let ring = crate::responder::ServerStderr::default();
        for l in ["one", "two", "three", "four \u{1b}[2J"] {
            ring.push(l);
        }
        let shown = Waiting {
            status: Some("Calling the tool 'slow'…".into()),
            call: Some(crate::responder::CallInProgress {
                number: 1,
                lines: vec!["Progress 1/3".into()],
                total: 1,
            }),
            stderr: Some(ring),
            ..Waiting::default()
        };
        let mut t =
            ratatui::Terminal::new(ratatui::backend::TestBackend::new(60, 16)).expect("terminal");
        t.draw(|f| draw_wait(f, &Theme::monochrome(), 0, &shown, None))
            .expect("draw");
        insta::assert_snapshot!(t.backend());
        let short = wait_screen(&shown);
        assert!(!short.contains("stderr"), "{short}");
    }

    #[test]
    fn a_browser_flow_wait_shows_only_that_wait_and_its_keys() {
        let flow = Waiting {
            status: Some("Waiting for the browser flow to complete".into()),
            offer_retry: true,
            connecting: false,
            call: None,
            stderr: None,
        };
        let s = wait_screen(&flow);
        assert!(
            s.contains("Waiting for the browser flow to complete"),
            "{s}"
        );
        assert!(s.contains(FLOW_WAIT_KEYS), "{s}");
        assert!(s.contains("held"), "{s}");
        assert!(!s.contains("Waiting for the next request"), "{s}");
        assert!(!s.contains("answered so far"), "{s}");
        let next = wait_screen(&Waiting {
            status: Some("Tool progress".into()),
            offer_retry: false,
            connecting: false,
            call: None,
            stderr: None,
        });
        assert!(next.contains("Waiting for the next request"), "{next}");
        assert!(next.contains("1 answered so far"), "{next}");
        // The status, then what is held on a line of its own (never cut
        // with it).
        let rows: Vec<&str> = next.lines().map(str::trim).collect();
        let at = rows.iter().position(|r| *r == "Tool progress");
        assert!(at.is_some_and(|i| rows[i + 1] == "held"), "{next}");
        assert!(!next.contains(FLOW_WAIT_KEYS), "{next}");
    }

    #[test]
    fn a_call_in_progress_shows_its_keys_and_what_the_server_reports() {
        let mut call = crate::responder::CallInProgress {
            number: 1,
            ..Default::default()
        };
        call.push("Progress 1/3: warming up".into());
        call.push("Log [info]: still working \\u{1b}[2J".into());
        let s = wait_screen(&Waiting {
            status: Some("Calling the tool 'slow'…".into()),
            call: Some(call),
            ..Waiting::default()
        });
        let rows: Vec<&str> = s.lines().map(str::trim_end).collect();
        assert_eq!(
            rows[..10],
            [
                "",
                " ahp-elicit",
                "",
                " Calling the tool 'slow'…",
                " Esc: cancel the call · Ctrl-C twice quits.",
                "",
                " The server reports:",
                " Progress 1/3: warming up",
                " Log [info]: still working \\u{1b}[2J",
                "",
            ]
        );
        assert_eq!(rows[10], " held");
        assert!(!s.contains("Waiting for the next request"), "{s}");
    }
}
