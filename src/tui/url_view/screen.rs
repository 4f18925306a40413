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
    pub(in crate::tui) state: UrlViewState,
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
