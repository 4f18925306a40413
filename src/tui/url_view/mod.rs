//! The URL-mode consent screen: its state and keys (here), its drawing
//! (`draw`, with the [`Theme`](super::theme::Theme)) and the screen the
//! loop runs ([`screen::UrlScreen`]). What
//! the person may choose in each phase and what each choice means belong to
//! the consent machine ([`crate::consent`]); this view draws its state and
//! turns keys into its [`Input`]s. The terminal front end runs it as one of
//! its request screens ([`screen::UrlScreen`]), calls [`draw()`] each frame
//! and hands it each key that passed the key guard.
//!
//! Screen, top to bottom (see [`draw()`]): a title line with the progress
//! text and, with `--timeout`, the seconds left; the pinned block, which no scrolling and no server text can move:
//! the host on a line of its own with the registrable domain emphasised,
//! the scheme (and a non-default port), and the warning count; then,
//! scrollable: the full URL (wrapped by character, never truncated), the
//! URL as sent when the parser rewrote it, for a refused scheme the reason,
//! the warnings, then the requesting server and adapter and the server's
//! message, framed as the server's own words (below the URL, so a message
//! cannot imitate the URL block or push it away); then (fixed) the buttons
//! (the machine's [`Consent::choices`]) and a key help line. A screen too
//! small for the pinned block plus the URL shows a "too small" message
//! instead. All server-provided text passes through [`crate::safe_text`].
//!
//! Open is enabled only once every row of the URL and of every warning
//! has been on screen at the current width (scrolled through when long;
//! [`UrlViewState::read_all`]); until then the help line says "scroll to
//! read the whole URL". The view reports to the machine when that came to
//! hold ([`Consent::shown`]; a new width that wraps the URL again, or a
//! frame too small to show it, starts it over), and the machine, a person's at a terminal
//! ([`Reader::AT_TERMINAL`]), takes no consent before the URL and every
//! warning have been read whole for [`crate::consent::CONSENT_GUARD`]:
//! consent is decided there, as for plain mode and scripts. The app loop's
//! key guard (`tui::guard`, with the same period) holds every key of every
//! screen besides: no key counts within 400 ms of the screen being shown
//! whole, of a resize, of a new phase, of a scroll (other rows on screen,
//! Open perhaps enabled by them), or of another key. The view reads the
//! time from its clock ([`UrlViewState::set_clock`]: the system's, or one
//! a test sets), when the URL came to be read whole and when a key comes.
//!
//! Keys, each standing for one input of the machine, which takes it or
//! not in the current phase:
//! - `Tab`, `→`: next button; `Shift-Tab`, `←`: previous button;
//! - `Enter` or `Space`: the focused button. The initial focus is on
//!   **Decline**, so Enter alone never consents;
//! - `o`: consent (Open in browser); `d`, `Ctrl-D`: decline;
//! - `r`: retry; `s` or `c`: show the URL for copying; `g`: give up;
//! - `Esc` or `Ctrl-C`: cancel while asking for consent, give up after;
//! - `↑`/`↓`, `k`/`j`, `PgUp`/`PgDn`, `Home`/`End`: scroll the body.
//!
//! Phases: asking for consent (Open, Decline, Cancel); after a failed
//! launch ([`UrlViewState::launch_failed`]) Retry (focused), Show URL, Give
//! up; the copy phase ([`UrlViewState::show_for_copy`] with `--no-open`, or
//! Show URL) shows the URL alone for copying with Done (focused; consent
//! stands, so `accept`), Retry after a failure, and Give up.
//!
//! The screen takes keys through [`take_key`], the one path from a key to
//! the machine: the key's input is given to the machine, the machine's
//! [`Effect::Open`] is carried out with the launcher
//! ([`Consent::open_with`]), and a decided answer ends the screen.

use std::cell::{Cell, RefCell};
use std::time::Instant;

use crate::binding::Action;
#[cfg(any(test, feature = "internals"))]
use crate::consent::Launch;
use crate::consent::{self, Consent, Effect, Input, NotTaken, Reader};
use crate::form::Key;
use crate::launcher::LaunchError;
use crate::launcher::Launcher;
use crate::url_review::UrlReview;

pub use crate::consent::Phase as UrlPhase;
pub use draw::draw;

mod draw;
pub(super) mod screen;

/// A button on the screen: one of the machine's choices.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UrlButton {
    /// Open in browser (consent); with `--no-open`, consent and show the
    /// URL.
    Open,
    /// Decline.
    Decline,
    /// Cancel.
    Cancel,
    /// Try the launch again.
    Retry,
    /// Show the URL for copying.
    ShowUrl,
    /// Give up (cancel).
    GiveUp,
    /// Done with the copied URL (consent stands: accept).
    Done,
}

impl UrlButton {
    fn label(self, short: bool, no_open: bool) -> &'static str {
        match (self, short) {
            (UrlButton::Open, false) if no_open => "Consent, show URL",
            (UrlButton::Open, true) if no_open => "Consent",
            (UrlButton::Open, false) => "Open in browser",
            (UrlButton::Open, true) => "Open",
            (UrlButton::Decline, _) => "Decline",
            (UrlButton::Cancel, _) => "Cancel",
            (UrlButton::Retry, _) => "Retry",
            (UrlButton::ShowUrl, false) => "Show URL to copy",
            (UrlButton::ShowUrl, true) => "Copy",
            (UrlButton::GiveUp, _) => "Give up",
            (UrlButton::Done, _) => "Done",
        }
    }

    /// The button of a choice.
    fn of(input: Input) -> Self {
        match input {
            Input::Consent => UrlButton::Open,
            Input::Decline => UrlButton::Decline,
            Input::Cancel => UrlButton::Cancel,
            Input::Retry => UrlButton::Retry,
            Input::Copy => UrlButton::ShowUrl,
            Input::GiveUp => UrlButton::GiveUp,
            Input::Done => UrlButton::Done,
        }
    }

    /// The choice a button stands for.
    fn input(self) -> Input {
        match self {
            UrlButton::Open => Input::Consent,
            UrlButton::Decline => Input::Decline,
            UrlButton::Cancel => Input::Cancel,
            UrlButton::Retry => Input::Retry,
            UrlButton::ShowUrl => Input::Copy,
            UrlButton::GiveUp => Input::GiveUp,
            UrlButton::Done => Input::Done,
        }
    }
}

/// The state of the URL consent view: the consent machine and what the
/// screen adds (focus, scrolling, which rows have been on screen).
#[derive(Debug, Clone)]
pub struct UrlViewState {
    review: UrlReview,
    message: String,
    server: String,
    adapter: String,
    progress: String,
    consent: Consent,
    focus: UrlButton,
    scroll: u16,
    /// The largest useful scroll offset, as found by the last draw.
    max_scroll: Cell<u16>,
    /// The body height of the last draw (for page keys).
    page: Cell<u16>,
    /// Whether the last draw showed the pinned block whole (not "too
    /// small").
    complete: Cell<bool>,
    /// Which body rows have been on screen, for the body as wrapped at
    /// `read_width` columns (a new width wraps differently: start again).
    read: RefCell<Vec<bool>>,
    read_width: Cell<u16>,
    /// Every row of the URL and its warnings has been on screen.
    read_all: Cell<bool>,
    /// Since when `read_all` has held (reported to the machine).
    read_since: Cell<Option<Instant>>,
    /// The time the view reads instead of the system's (tests; None: the
    /// system clock).
    clock: Option<Instant>,
    /// The first row still to read is above the rows on screen (the hint
    /// then says to scroll up).
    unread_above: Cell<bool>,
    /// Where the last draw put the URL's rows, for the front end to make
    /// them one hyperlink ([`UrlViewState::link`]).
    link: RefCell<Option<UrlLink>>,
    /// `--no-open`: consent shows the URL for copying; the consent button
    /// and hint say so instead of "open".
    no_open: bool,
    /// Seconds left before `--timeout` cancels the request, shown in the
    /// title as the form shows it in its header.
    seconds_left: Option<u64>,
    /// Seconds the extend key adds (None: no timeout).
    extend_secs: Option<u64>,
    /// How the person launched the server, and the call that asked
    /// (unsanitised; each shown on one row).
    launched: Option<String>,
    call: Option<String>,
    /// A warning pinned above the rule from now on (trusted text: the call
    /// that asked has finished, [`crate::responder::CALL_FINISHED_BANNER`]).
    banner: Option<String>,
}

impl UrlViewState {
    /// A consent view for `review`. `message` is the request's message,
    /// `server` a label for the requesting server (e.g. title, name and
    /// version), `adapter` the adapter name, `progress` a short text such
    /// as `request 2 of 5`. All are sanitised when drawn. Its consent
    /// machine is a person's at a terminal ([`Reader::AT_TERMINAL`]):
    /// consent counts [`crate::consent::CONSENT_GUARD`] after every row of
    /// the URL and its warnings was on screen (module docs).
    pub fn new(
        review: UrlReview,
        message: impl Into<String>,
        server: impl Into<String>,
        adapter: impl Into<String>,
        progress: impl Into<String>,
    ) -> Self {
        let consent = Consent::new(&review, Reader::AT_TERMINAL);
        UrlViewState {
            review,
            message: message.into(),
            server: server.into(),
            adapter: adapter.into(),
            progress: progress.into(),
            consent,
            focus: UrlButton::Decline,
            scroll: 0,
            max_scroll: Cell::new(u16::MAX),
            page: Cell::new(1),
            complete: Cell::new(false),
            read: RefCell::new(Vec::new()),
            read_width: Cell::new(0),
            read_all: Cell::new(false),
            read_since: Cell::new(None),
            clock: None,
            unread_above: Cell::new(false),
            link: RefCell::new(None),
            no_open: false,
            seconds_left: None,
            extend_secs: None,
            launched: None,
            call: None,
            banner: None,
        }
    }

    /// Read the time from `now` from here on (None: the system clock, as
    /// at a terminal): when the URL came to be read whole (at a draw) and
    /// when a key came. Tests set it, and move it on, instead of sleeping.
    #[cfg(any(test, feature = "internals"))]
    pub fn set_clock(&mut self, now: Option<Instant>) {
        self.clock = now;
    }

    /// The time a test set ([`UrlViewState::set_clock`]; None: the system
    /// clock is read).
    #[cfg(any(test, feature = "internals"))]
    pub fn clock(&self) -> Option<Instant> {
        self.clock
    }

    /// The time now, as the view reads it.
    fn now(&self) -> Instant {
        self.clock.unwrap_or_else(Instant::now)
    }

    /// Pin `banner` (trusted text) in the block no scrolling moves, above
    /// the rule, from the next frame on.
    pub fn set_banner(&mut self, banner: String) {
        self.banner = Some(banner);
    }

    /// The progress text of the title ("request 1 of 3"), as it stands
    /// now (more requests may have arrived since the screen opened).
    pub fn set_progress(&mut self, progress: impl Into<String>) {
        self.progress = progress.into();
    }

    /// The seconds left before `--timeout` cancels the request (None: no
    /// timeout); the title shows them as `· 42s left`.
    pub fn set_seconds_left(&mut self, secs: Option<u64>) {
        self.seconds_left = secs;
    }

    /// How the person launched the server and the call that asked (see
    /// [`crate::responder::Origin`]), shown under the server's own name.
    pub fn set_origin(&mut self, launched: Option<String>, call: Option<String>) {
        self.launched = launched;
        self.call = call;
    }

    /// The seconds the extend key ([`super::header::EXTEND_KEY`]) adds,
    /// shown beside the countdown (None: no timeout).
    pub fn set_extend_secs(&mut self, secs: Option<u64>) {
        self.extend_secs = secs;
    }

    /// With `--no-open` nothing is opened: the consent button reads
    /// "Consent, show URL" and the hint "o consent".
    pub fn set_no_open(&mut self, no_open: bool) {
        self.no_open = no_open;
    }

    /// Whether the last draw showed the title, the pinned block (host,
    /// scheme, warning count) and the start of the URL; false before the
    /// first draw and when the screen was too small.
    pub fn shown_whole(&self) -> bool {
        self.complete.get()
    }

    /// The URL as the last draw put it on screen, with the address a
    /// hyperlink on it opens ([`link_target`]); None when no row of it was
    /// on screen or it may not be opened.
    pub fn link(&self) -> Option<UrlLink> {
        self.link.borrow().clone()
    }

    /// Forget where the URL was drawn (a frame that does not draw this
    /// view, such as the "too small" message, has no link).
    pub fn forget_link(&self) {
        *self.link.borrow_mut() = None;
    }

    /// A frame that does not show the view (a "too small" message, the
    /// front end's or the view's own): no link, and the URL and its
    /// warnings are not shown whole now, so the machine's grace period
    /// starts again at the next frame that shows them whole (what was read
    /// stays read).
    pub fn off_screen(&self) {
        self.forget_link();
        self.read_since.set(None);
    }

    /// Whether every row of the full URL and of every warning has been on
    /// screen (at the current width).
    #[cfg(any(test, feature = "internals"))]
    pub fn read_all(&self) -> bool {
        self.read_all.get()
    }

    /// Whether Open can be pressed now: the URL is openable and has been
    /// read whole ([`UrlViewState::read_all`]).
    pub fn open_enabled(&self) -> bool {
        self.consent.openable() && self.read_all.get()
    }

    /// Record that body rows `shown` were on screen in a body of `total`
    /// rows wrapped at `width`; rows `0..must` must all be read.
    fn mark_read(&self, width: u16, total: usize, shown: std::ops::Range<usize>, must: usize) {
        let mut read = self.read.borrow_mut();
        if self.read_width.get() != width || read.len() != total {
            self.read_width.set(width);
            *read = vec![false; total];
            self.read_all.set(false);
        }
        for i in shown.clone() {
            if let Some(r) = read.get_mut(i) {
                *r = true;
            }
        }
        let first_unread = read.iter().take(must).position(|r| !*r);
        self.read_all.set(first_unread.is_none());
        match (first_unread, self.read_since.get()) {
            (Some(_), _) => self.read_since.set(None),
            (None, None) => self.read_since.set(Some(self.now())),
            (None, Some(_)) => {}
        }
        self.unread_above
            .set(first_unread.is_some_and(|i| i < shown.start));
    }

    /// The reviewed URL.
    #[cfg(any(test, feature = "internals"))]
    pub fn review(&self) -> &UrlReview {
        &self.review
    }

    /// The current phase (the consent machine's).
    pub fn phase(&self) -> &UrlPhase {
        self.consent.phase()
    }

    /// The focused button.
    #[cfg(any(test, feature = "internals"))]
    pub fn focus(&self) -> UrlButton {
        self.focus
    }

    /// The current scroll offset of the body, in lines.
    pub fn scroll(&self) -> u16 {
        self.scroll
    }

    /// Report that the browser could not be launched, with `msg` (the
    /// launcher's sentence) shown: the phase offers Retry (focused), Show
    /// URL and Give up. Nothing changes for a URL that cannot be opened.
    #[cfg(any(test, feature = "internals"))]
    pub fn launch_failed(&mut self, msg: impl Into<String>) {
        let step = self.consent.launched(Launch::Failed(msg.into()));
        self.settle(&step);
    }

    /// Report that consent was recorded and nothing opened (`--no-open`):
    /// the copy phase, Done focused. Nothing changes for a URL that cannot
    /// be opened.
    #[cfg(any(test, feature = "internals"))]
    pub fn show_for_copy(&mut self) {
        let step = self.consent.launched(Launch::NotOpened);
        self.settle(&step);
    }

    /// The buttons of the current phase, left to right (the machine's
    /// choices).
    pub fn buttons(&self) -> Vec<UrlButton> {
        self.consent
            .choices()
            .into_iter()
            .map(UrlButton::of)
            .collect()
    }

    /// Give `input` to the machine now, with what has been on screen.
    fn take(&mut self, input: Input) -> consent::Step {
        self.consent.shown(self.read_since.get());
        let before = self.consent.phase().clone();
        let step = self.consent.input(input, self.now());
        if step.phase != before {
            self.settle(&step);
        }
        step
    }

    /// Carry out an [`Effect::Open`] with `launcher`.
    fn open(
        &mut self,
        launcher: &mut dyn Launcher,
        no_open: bool,
    ) -> (consent::Step, Result<(), LaunchError>) {
        let (step, res) = self.consent.open_with(launcher, no_open);
        self.settle(&step);
        (step, res)
    }

    /// After a step that entered or repeated a phase: focus its first
    /// choice and scroll to the top.
    fn settle(&mut self, step: &consent::Step) {
        if step.not_taken.is_some() || step.answer().is_some() {
            return;
        }
        if let Some(first) = self.consent.choices().first() {
            self.focus = UrlButton::of(*first);
        }
        self.scroll = 0;
    }

    fn move_focus(&mut self, forward: bool) {
        let bs = self.buttons();
        let n = bs.len();
        if n == 0 {
            return;
        }
        let i = bs.iter().position(|b| *b == self.focus).unwrap_or(0);
        let j = if forward {
            (i + 1) % n
        } else {
            (i + n - 1) % n
        };
        self.focus = bs[j];
    }

    fn scroll_by(&mut self, delta: i32) {
        let max = i32::from(self.max_scroll.get());
        let s = (i32::from(self.scroll) + delta).clamp(0, max);
        self.scroll = u16::try_from(s).unwrap_or(0);
    }
}

/// The input a key stands for (None: a key of the view itself, scrolling
/// or moving the focus, done here, or no key at all). Keys come as the
/// terminal front end translated them ([`super::terminal::translate_key`]: presses
/// only, Ctrl letters lowercase); an Alt chord acts as its plain key only
/// for scrolling (`k`, `j`) and Space.
fn key_input(state: &mut UrlViewState, key: &Key) -> Option<Input> {
    let page = i32::from(state.page.get().max(1));
    match key {
        Key::Up | Key::Char('k') | Key::Alt('k') => state.scroll_by(-1),
        Key::Down | Key::Char('j') | Key::Alt('j') => state.scroll_by(1),
        Key::PageUp => state.scroll_by(-page),
        Key::PageDown => state.scroll_by(page),
        Key::Home => state.scroll = 0,
        Key::End => state.scroll = state.max_scroll.get(),
        Key::Tab | Key::Right | Key::WordRight => state.move_focus(true),
        Key::BackTab | Key::Left | Key::WordLeft => state.move_focus(false),
        Key::Ctrl('c') | Key::Esc if matches!(state.phase(), UrlPhase::Consent) => {
            return Some(Input::Cancel)
        }
        Key::Ctrl('c') | Key::Esc => return Some(Input::GiveUp),
        // Ctrl-D declines, as on every other screen.
        Key::Ctrl('d') => return Some(Input::Decline),
        Key::Enter | Key::Char(' ') | Key::Alt(' ') => return Some(state.focus.input()),
        Key::Char(c) => {
            return match c.to_ascii_lowercase() {
                'o' => Some(Input::Consent),
                'd' => Some(Input::Decline),
                'r' => Some(Input::Retry),
                's' | 'c' => Some(Input::Copy),
                'g' => Some(Input::GiveUp),
                _ => None,
            }
        }
        _ => {}
    }
    None
}

/// What the driver does after a key ([`take_key`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UrlStep {
    /// The request's action when it is decided (consent with a successful
    /// launch or Done: `accept`; Decline: `decline`; Cancel or Give up:
    /// `cancel`); None while the view stays up (a failed launch, the copy
    /// phase).
    pub action: Option<Action>,
    /// The step would have opened the browser, and `may_open` said no (the
    /// request was withdrawn first): nothing was opened.
    pub refused_open: bool,
    /// Why the machine did not take the key's input (None: it took it, or
    /// the key was the view's own: a scroll, a focus move, no key at all).
    pub not_taken: Option<NotTaken>,
}

impl UrlStep {
    const NOTHING: UrlStep = UrlStep {
        action: None,
        refused_open: false,
        not_taken: None,
    };
}

/// Take `key` as the screen does, at the view's time now: the machine
/// takes its input (or not, [`UrlStep::not_taken`] says why: Open before
/// the URL and every warning were read whole, or within
/// [`crate::consent::CONSENT_GUARD`] of it), an [`Effect::Open`] is
/// carried out with `launcher` (`no_open`: `--no-open`) once `may_open`
/// allows it, and the step says whether the request is decided. `may_open`
/// is asked just before the browser would be started (not with `no_open`,
/// which starts nothing): the screen claims the request's answer there, so
/// a browser is never opened for a request whose withdrawal came first,
/// and one that was opened always has its `accept` sent
/// ([`UrlStep::refused_open`] when it said no).
pub fn take_key(
    state: &mut UrlViewState,
    key: &Key,
    launcher: &mut dyn Launcher,
    no_open: bool,
    may_open: &dyn Fn() -> bool,
) -> UrlStep {
    let Some(input) = key_input(state, key) else {
        return UrlStep::NOTHING;
    };
    let step = state.take(input);
    if step.not_taken.is_some() {
        return UrlStep {
            not_taken: step.not_taken,
            ..UrlStep::NOTHING
        };
    }
    let effect = step.effect;
    if matches!(effect, Some(Effect::Open(_))) && !no_open && !may_open() {
        return UrlStep {
            refused_open: true,
            ..UrlStep::NOTHING
        };
    }
    carry_out(state, effect, launcher, no_open)
}

/// Carry out the machine's `effect`: open (and report the launch) or
/// answer.
fn carry_out(
    state: &mut UrlViewState,
    effect: Option<Effect>,
    launcher: &mut dyn Launcher,
    no_open: bool,
) -> UrlStep {
    match effect {
        Some(Effect::Open(_)) => {
            // A failed launch shows its own phase; the step carries only
            // the answer.
            let (step, _launch) = state.open(launcher, no_open);
            UrlStep {
                action: step.answer(),
                ..UrlStep::NOTHING
            }
        }
        Some(Effect::Answer(a)) => UrlStep {
            action: Some(a),
            ..UrlStep::NOTHING
        },
        Some(Effect::Copy) | None => UrlStep::NOTHING,
    }
}

/// The longest address made a hyperlink: terminals drop longer OSC 8
/// targets (VTE takes 2083 bytes).
pub const LINK_MAX: usize = 2048;

/// The URL's rows on screen, for the front end to write again as one
/// OSC 8 hyperlink: Ctrl+click (or the terminal's own link action) on any
/// row then opens the whole address, never the part of it on that row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UrlLink {
    /// The address the link opens ([`link_target`]: printable ASCII only).
    pub target: String,
    /// Each URL row on screen: column, row (cells from the frame's
    /// origin), the text drawn there.
    pub rows: Vec<(u16, u16, String)>,
    /// The rows are the whole URL from column 0, each but the last as wide
    /// as the screen: written as one string, the terminal wraps it itself,
    /// so a selection copies it as one line with no line breaks (the copy
    /// screen).
    pub one_line: bool,
}

/// The address a hyperlink on the URL opens: the URL as parsed (its ASCII
/// form), only when it may be opened (no refusal), is at most
/// [`LINK_MAX`] bytes and holds nothing but printable ASCII (no control
/// character, no space), so it cannot end the OSC 8 sequence early.
pub fn link_target(review: &UrlReview) -> Option<String> {
    if review.refusal.is_some() {
        return None;
    }
    let s = review.url.as_ref()?.as_str();
    let printable = s.bytes().all(|b| (0x21..=0x7e).contains(&b));
    (printable && !s.is_empty() && s.len() <= LINK_MAX).then(|| s.to_owned())
}
