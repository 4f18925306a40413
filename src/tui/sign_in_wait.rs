//! The screen of a sign-in waiting for the browser: what it waits for,
//! the time left, the authorization URL cut to the screen, and its keys
//! (`u` shows the URL whole in lines, Control-C ends the sign-in). The
//! waiting screen ([`super::wait`]) shows it while a sign-in waits.

use ratatui::text::Line;
use ratatui::widgets::Paragraph;
use ratatui::Frame;

use crate::responder::Responder;

use super::chrome::{inset, too_small};
use super::text::{clip, wrap};
use super::theme::Theme;
use super::TuiResponder;

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

impl TuiResponder {
    /// Show the authorization URL of the sign-in waiting in lines on the
    /// terminal (the full screen steps aside), whole and on one line, for
    /// copying; back on Enter, or when the wait ends. Control-C there ends
    /// the sign-in.
    pub(super) fn show_sign_in_url(&mut self, w: &crate::responder::sign_in::Waiting) {
        use crate::mcp::auth::authorizer::SignInError;
        use crate::plain::{LineIo, Reply};
        let url = crate::plain::signin::review_sign_in(&w.url).display_url();
        let sentence = w.sentence();
        let sign_ins = std::sync::Arc::clone(&self.sign_ins);
        let mut job = |io: &mut dyn LineIo| -> Result<(), SignInError> {
            let term = SignInError::Lines;
            io.say("Copy this URL and open it in a browser:")
                .map_err(term)?;
            io.say(&url).map_err(term)?;
            io.say(&sentence).map_err(term)?;
            let ended = || sign_ins.current().is_none();
            let reply = io
                .ask(
                    "Press Enter to go back (or Control-C to cancel the sign-in): ",
                    None,
                    &ended,
                )
                .map_err(term)?;
            if matches!(reply, Reply::Interrupt | Reply::Quit) {
                sign_ins.cancel();
            }
            Ok(())
        };
        let _ = Responder::in_lines(self, &mut job);
        self.repaint = true;
    }
}

#[cfg(test)]
mod tests {
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
