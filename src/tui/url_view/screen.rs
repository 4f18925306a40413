//! The URL consent screen as the loop runs it ([`UrlScreen`]), and how the
//! terminal front end starts it for a URL-mode request
//! ([`TuiResponder::respond_url`]).

use std::time::Duration;

use ratatui::Frame;

use super::super::chrome::too_small;
use super::super::header::Header;
use super::super::theme::Theme;
use super::super::{bare, Clock, Screen, Step, TuiResponder, CONSENT_GUARD};
use super::{UrlPhase, UrlViewState};
use crate::binding::{Action, RequestEvent};
use crate::form::Key;
use crate::launcher::Launcher;
use crate::responder::{Context, Outcome, Progress, RespondError, Withdrawal};

/// URL consent: the view ([`super`]) draws the consent machine
/// ([`crate::consent`]) and feeds it keys; an open the machine asks for is
/// carried out with the launcher (consent is an explicit act: focus starts
/// on Decline; `o` or the Open button once the URL was read whole; a failed
/// launch offers retry, copy or give up).
pub(crate) struct UrlScreen {
    state: UrlViewState,
    launcher: Box<dyn Launcher>,
    /// `--no-open`: consent shows the URL for copying.
    no_open: bool,
    /// The request's withdrawal flag: its answer is claimed before the
    /// browser is started (None: never withdrawn).
    claim: Option<Withdrawal>,
    /// The scroll offset and whether Open was enabled when
    /// [`Screen::keys_changed`] was last asked.
    shown: Option<(u16, bool)>,
}

impl UrlScreen {
    /// The consent screen for `state`, opening with `launcher`.
    pub(crate) fn new(mut state: UrlViewState, launcher: Box<dyn Launcher>, no_open: bool) -> Self {
        state.set_no_open(no_open);
        UrlScreen {
            state,
            launcher,
            no_open,
            claim: None,
            shown: None,
        }
    }

    /// Claim the answer through `withdrawal` before the browser is started
    /// (see [`super::take_key`]): a withdrawal read first opens nothing.
    pub(crate) fn with_claim(mut self, withdrawal: Option<Withdrawal>) -> Self {
        self.claim = withdrawal;
        self
    }

    /// The launcher back, for the next URL request.
    pub(crate) fn into_launcher(self) -> Box<dyn Launcher> {
        self.launcher
    }
}

impl Screen for UrlScreen {
    fn grace(&self) -> Duration {
        CONSENT_GUARD
    }

    fn draw(&mut self, f: &mut Frame, theme: &Theme, clock: Option<Clock>) -> bool {
        self.state.forget_link();
        if too_small(f, theme) {
            self.state.off_screen();
            return false;
        }
        self.state.set_seconds_left(clock.map(|c| c.left));
        self.state.set_extend_secs(clock.map(|c| c.extend));
        super::draw(f, f.area(), &self.state, theme);
        self.state.shown_whole()
    }

    fn link(&self) -> Option<super::UrlLink> {
        self.state.link()
    }

    fn key(&mut self, k: &Key) -> Step {
        let launcher = self.launcher.as_mut();
        let claim = self.claim.as_ref();
        let may_open = || claim.is_none_or(Withdrawal::claim_answer);
        let step = super::take_key(&mut self.state, k, launcher, self.no_open, &may_open);
        match step.action {
            Some(a) => bare(a),
            // Withdrawn before the browser was started: the loop claims
            // the answer, finds the withdrawal and says it.
            None if step.refused_open => bare(Action::Cancel),
            None => Step::Continue,
        }
    }

    fn put_banner(&mut self, banner: String) {
        self.state.set_banner(banner);
    }

    fn put_progress(&mut self, progress: Progress) {
        self.state.set_progress(progress.label());
    }

    fn stage(&self) -> u8 {
        match self.state.phase() {
            UrlPhase::Consent => 0,
            UrlPhase::LaunchFailed(_) => 1,
            UrlPhase::Copy { .. } => 2,
        }
    }

    /// The body scrolled (other rows of the URL, its warnings or the
    /// message are on screen), or Open became enabled: `o` must wait until
    /// what is now shown has been on screen for the grace period.
    fn keys_changed(&mut self) -> bool {
        let now = (self.state.scroll(), self.state.open_enabled());
        let changed = self.shown.is_some_and(|was| was != now);
        self.shown = Some(now);
        changed
    }
}

impl TuiResponder {
    /// URL mode: the consent screen ([`url_view`]) with the launcher, which
    /// is given back afterwards.
    pub(in crate::tui) fn respond_url(
        &mut self,
        req: &RequestEvent,
        message: &str,
        url: &str,
        cx: &Context,
    ) -> Result<Outcome, RespondError> {
        let header = Header::of(req, cx.progress).with_origin(cx.origin());
        let mut state = super::UrlViewState::new(
            crate::url_review::review(url),
            message,
            format!("{} (the name it gives itself)", server_label(&header)),
            header.adapter.clone(),
            cx.progress.label(),
        );
        state.set_origin(header.launched.clone(), header.call.clone());
        let launcher = self
            .launcher
            .take()
            .unwrap_or_else(|| Box::new(crate::launcher::NoOpen::default()));
        let mut screen =
            UrlScreen::new(state, launcher, self.no_open).with_claim(cx.withdrawal.clone());
        let out = self.run(cx, &mut screen);
        self.launcher = Some(screen.into_launcher());
        out
    }
}

/// The requesting server as the URL screen names it: `Title (name
/// version)`, `name version` or `name` (sanitised when drawn).
fn server_label(h: &Header) -> String {
    match (&h.server_title, &h.server_version) {
        (Some(t), Some(v)) => format!("{t} ({} {v})", h.server_name),
        (Some(t), None) => format!("{t} ({})", h.server_name),
        (None, Some(v)) => format!("{} {v}", h.server_name),
        (None, None) => h.server_name.clone(),
    }
}

#[cfg(test)]
mod tests {
    use std::sync::{Arc, Mutex};
    use std::time::Instant;

    use ratatui::backend::TestBackend;
    use ratatui::Terminal;

    use super::*;
    use crate::launcher::Launcher;
    use crate::tui::chrome::{MIN_HEIGHT, MIN_WIDTH};
    use crate::tui::tests::{decided, frame, rows_at};

    /// A URL consent screen for `url` whose view reads the time from a test
    /// clock standing at `t0` (moved on with [`at`]).
    fn url_screen(url: &str, launcher: Rec, no_open: bool, t0: Instant) -> UrlScreen {
        let mut state = UrlViewState::new(crate::url_review::review(url), "m", "srv", "a", "");
        state.set_clock(Some(t0));
        UrlScreen::new(state, Box::new(launcher), no_open)
    }

    /// Move `screen`'s clock to `now`.
    fn at(screen: &mut UrlScreen, now: Instant) {
        screen.state.set_clock(Some(now));
    }

    #[test]
    fn the_stage_changes_with_what_o_does() {
        let t0 = Instant::now();
        let url = "https://auth.example.com/cb";
        let mut u = url_screen(url, Rec(Arc::default()), true, t0);
        let _ = frame(&mut u, None);
        at(&mut u, t0 + CONSENT_GUARD);
        assert_eq!(u.stage(), 0);
        assert_eq!(decided(u.key(&Key::Char('o'))), None);
        assert_eq!(u.stage(), 2, "the copy step");
    }

    /// The URL screen: a scroll shows other rows, so `o` waits again; a
    /// frame with nothing new does not.
    #[test]
    fn a_scroll_of_the_url_screen_changes_what_keys_do() {
        let url = format!("https://auth.example.com/cb?s={}", "s".repeat(3000));
        let state = UrlViewState::new(crate::url_review::review(&url), "m", "srv", "a", "");
        let mut s = UrlScreen::new(state, Box::new(Rec(Arc::default())), false);
        let _ = frame(&mut s, None);
        assert!(!s.keys_changed(), "the first frame");
        let _ = frame(&mut s, None);
        assert!(!s.keys_changed(), "the same rows");
        assert_eq!(decided(s.key(&Key::PageDown)), None);
        let _ = frame(&mut s, None);
        assert!(s.keys_changed(), "other rows");
        assert_eq!(decided(s.key(&Key::Tab)), None);
        let _ = frame(&mut s, None);
        assert!(!s.keys_changed(), "a focus move shows the same rows");
    }

    /// Records each URL it is asked to open.
    struct Rec(Arc<Mutex<Vec<String>>>);
    impl Launcher for Rec {
        fn open(&mut self, url: &str) -> Result<(), crate::launcher::LaunchError> {
            self.0.lock().unwrap().push(url.to_owned());
            Ok(())
        }
    }

    #[test]
    fn url_screen_opens_only_after_a_frame_showed_the_url() {
        let t0 = Instant::now();
        let opened = Arc::new(Mutex::new(Vec::new()));
        let url = "https://auth.example.com/cb";
        let mut s = url_screen(url, Rec(opened.clone()), false, t0);
        assert_eq!(s.grace(), CONSENT_GUARD);
        // Before any frame the URL was not read: `o` opens nothing, however
        // long the screen waited.
        at(&mut s, t0 + CONSENT_GUARD * 10);
        assert_eq!(decided(s.key(&Key::Char('o'))), None);
        at(&mut s, t0);
        let (top, whole) = frame(&mut s, Some(42));
        assert!(whole);
        assert_eq!(top, "Open a web page? · 42s left · Ctrl-T +30s");
        // Within the grace period of that frame the machine takes no
        // consent, whatever the key guard let through.
        at(&mut s, t0 + CONSENT_GUARD - Duration::from_millis(1));
        assert_eq!(decided(s.key(&Key::Char('o'))), None);
        assert!(opened.lock().unwrap().is_empty());
        at(&mut s, t0 + CONSENT_GUARD);
        // The translated key type reaches the view: Alt-Space presses the
        // focused button (Decline), as Space does.
        let mut d = UrlScreen::new(
            UrlViewState::new(crate::url_review::review(url), "m", "srv", "a", ""),
            Box::new(Rec(opened.clone())),
            false,
        );
        assert_eq!(decided(d.key(&Key::Alt(' '))), Some(Action::Decline));
        assert_eq!(decided(s.key(&Key::Char('o'))), Some(Action::Accept));
        assert_eq!(*opened.lock().unwrap(), vec![url.to_owned()]);
    }

    /// A frame too small for any screen (the front end's own message)
    /// hides the URL: consent waits a grace period from the frame that
    /// shows it whole again, however long ago it was first read.
    #[test]
    fn url_screen_counts_again_after_a_too_small_frame() {
        let t0 = Instant::now();
        let opened = Arc::new(Mutex::new(Vec::new()));
        let url = "https://auth.example.com/cb";
        let mut s = url_screen(url, Rec(opened.clone()), false, t0);
        assert!(frame(&mut s, None).1);
        let back = t0 + CONSENT_GUARD * 10;
        at(&mut s, back);
        let small = rows_at(&mut s, MIN_WIDTH - 1, MIN_HEIGHT);
        assert!(small.join("").contains("small"), "{small:?}");
        assert!(frame(&mut s, None).1);
        assert_eq!(decided(s.key(&Key::Char('o'))), None);
        at(&mut s, back + CONSENT_GUARD);
        assert_eq!(decided(s.key(&Key::Char('o'))), Some(Action::Accept));
        assert_eq!(*opened.lock().unwrap(), vec![url.to_owned()]);
    }

    /// Every row of `screen` drawn at 80x24, joined by line ends.
    fn rows(screen: &mut dyn Screen) -> String {
        let mut t = Terminal::new(TestBackend::new(80, 24)).expect("terminal");
        let theme = Theme::monochrome();
        t.draw(|f| {
            screen.draw(f, &theme, None);
        })
        .expect("draw");
        let buf = t.backend().buffer();
        (0..24)
            .map(|y| (0..80).map(|x| buf[(x, y)].symbol()).collect::<String>())
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// The browser is started only for a request whose answer the screen
    /// could claim: `o` read after a withdrawal opens nothing (the step ends
    /// the screen, and the loop says the withdrawal); `o` on an open request
    /// claims it first, so a withdrawal after the launch cannot leave an
    /// opened page without its `accept`.
    #[test]
    fn url_screen_claims_the_answer_before_it_opens_the_browser() {
        let url = "https://auth.example.com/cb";
        let t0 = Instant::now();
        // Shown whole at `t0`, read for the grace period.
        let screen = |opened: &Arc<Mutex<Vec<String>>>, w: &Withdrawal| {
            let mut s = url_screen(url, Rec(opened.clone()), false, t0).with_claim(Some(w.clone()));
            let _ = frame(&mut s, None);
            at(&mut s, t0 + CONSENT_GUARD);
            s
        };
        let opened = Arc::new(Mutex::new(Vec::new()));
        let w = Withdrawal::new();
        let mut s = screen(&opened, &w);
        assert!(w.withdraw());
        assert_eq!(decided(s.key(&Key::Char('o'))), Some(Action::Cancel));
        assert!(
            opened.lock().unwrap().is_empty(),
            "nothing opened: {opened:?}"
        );
        let w = Withdrawal::new();
        let mut s = screen(&opened, &w);
        assert_eq!(decided(s.key(&Key::Char('o'))), Some(Action::Accept));
        assert_eq!(*opened.lock().unwrap(), vec![url.to_owned()]);
        assert!(!w.withdraw(), "the answer was claimed before the launch");
    }

    /// The call that asked has finished: the URL screen says so in its
    /// pinned block, as the form says it in its header.
    #[test]
    fn url_screen_shows_that_the_call_finished() {
        let url = "https://auth.example.com/cb";
        let state = UrlViewState::new(crate::url_review::review(url), "m", "srv", "a", "");
        let mut s = UrlScreen::new(state, Box::new(Rec(Arc::default())), false);
        assert!(!squash(&rows(&mut s)).contains("mayno"));
        s.put_banner(crate::responder::CALL_FINISHED_BANNER.to_owned());
        let shown = squash(&rows(&mut s));
        assert!(
            shown.contains(&squash(crate::responder::CALL_FINISHED_BANNER)),
            "{shown}"
        );
    }

    /// `text` without whitespace (rows wrap).
    fn squash(text: &str) -> String {
        text.chars().filter(|c| !c.is_whitespace()).collect()
    }
}
