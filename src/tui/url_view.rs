//! The URL-mode consent screen: drawing (with the [`Theme`]) and keys. What
//! the person may choose in each phase and what each choice means belong to
//! the consent machine ([`crate::consent`]); this view draws its state and
//! turns keys into its [`Input`]s. The terminal front end runs it as one of
//! its request screens (`tui::screens`), calls [`draw`] each frame and hands
//! it each key that passed the key guard.
//!
//! Screen, top to bottom (see [`draw`]): a title line with the progress
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

use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use ratatui::Frame;
use unicode_width::UnicodeWidthChar;

use super::chrome::{button_row, help_line, row_width, ButtonCell, RowKind, ScrollView};
use super::text;
use super::theme::Theme;
use crate::binding::Action;
#[cfg(any(test, feature = "internals"))]
use crate::consent::Launch;
use crate::consent::{self, Consent, Effect, Input, NotTaken, Reader};
use crate::form::Key;
use crate::launcher::LaunchError;
use crate::launcher::Launcher;
use crate::safe_text;
use crate::url_review::{Severity, UrlReview};

pub use crate::consent::Phase as UrlPhase;

/// The theme's styles by what they mean on this screen (a view of the
/// [`Theme`], built for each frame).
#[derive(Debug, Clone, PartialEq)]
struct UrlStyles {
    /// Ordinary text (message, URL).
    normal: Style,
    /// Labels and help.
    muted: Style,
    /// The registrable domain and the title.
    emphasis: Style,
    /// Caution warnings (http, IDN, port, IP literal, length).
    warning: Style,
    /// Danger warnings and refusals (userinfo, confusable, hidden
    /// characters, a refused scheme, a failed launch).
    danger: Style,
}

impl UrlStyles {
    /// The styles of `theme`: text, muted, the title underlined, warning,
    /// error in bold.
    fn of(theme: &Theme) -> Self {
        UrlStyles {
            normal: theme.text(),
            muted: theme.muted(),
            emphasis: theme.title().add_modifier(Modifier::UNDERLINED),
            warning: theme.warning(),
            danger: theme.error().add_modifier(Modifier::BOLD),
        }
    }
}

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

    /// The seconds the extend key ([`super::view::EXTEND_KEY`]) adds,
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
/// terminal front end translated them ([`super::translate_key`]: presses
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

/// Rows the URL must be able to show under the pinned block (fewer when the
/// URL is shorter) for the screen to count as big enough.
pub const MIN_URL_ROWS: usize = 3;

/// The layout of one frame: the fixed rows and the scrollable body.
struct Layout {
    title: Line<'static>,
    pinned: Vec<Line<'static>>,
    body: Vec<Line<'static>>,
    /// Body rows `0..must_read` (the URL and every warning) must all have
    /// been on screen before Open is enabled.
    must_read: usize,
    /// Rows the URL itself takes in the body.
    url_rows: usize,
    /// The URL's rows in the body: the first's index, the column they
    /// start at, and their text.
    url_at: (usize, u16, Vec<String>),
}

/// Draw the view into `area` of `frame`. Records the scroll limits, whether
/// the pinned block was shown whole ([`UrlViewState::shown_whole`]) and
/// which body rows were on screen ([`UrlViewState::read_all`]) in the state
/// (interior mutability).
///
/// Screen, top to bottom: the title; the pinned block (Host with the
/// registrable domain emphasised, scheme and port, the warning count) that
/// no scrolling moves; the scrollable body (the full URL, the URL as sent,
/// the refusal and the warnings, then who asks and the server's message,
/// framed as the server's words); the scroll indicator; buttons; help.
/// When the pinned block plus the URL (up to [`MIN_URL_ROWS`] rows of it)
/// do not fit, a "too small" message is drawn instead and nothing can be
/// opened.
pub fn draw(frame: &mut Frame<'_>, area: Rect, state: &UrlViewState, theme: &Theme) {
    let styles = &UrlStyles::of(theme);
    state.complete.set(false);
    state.forget_link();
    if area.width == 0 || area.height == 0 {
        state.off_screen();
        return;
    }
    let width = usize::from(area.width);
    let lay = layout(state, styles, width);
    // title, pinned, URL rows, scroll indicator, buttons, help
    let need = 1 + lay.pinned.len() + lay.url_rows.min(MIN_URL_ROWS) + 3;
    if width < 20 || usize::from(area.height) < need {
        state.off_screen();
        draw_too_small(frame, area, styles);
        return;
    }
    state.complete.set(true);
    let mut y = area.y;
    let row = |frame: &mut Frame<'_>, lines: Vec<Line<'static>>, y: &mut u16| {
        let h = u16::try_from(lines.len()).unwrap_or(u16::MAX);
        frame.render_widget(Paragraph::new(lines), Rect::new(area.x, *y, area.width, h));
        *y += h;
    };
    row(frame, vec![lay.title.clone()], &mut y);
    row(frame, lay.pinned.clone(), &mut y);
    let fixed = y - area.y + 2; // + buttons, help
    let body_h = area.height.saturating_sub(fixed);
    draw_body(
        frame,
        Rect::new(area.x, y, area.width, body_h),
        state,
        styles,
        &lay,
    );
    y += body_h;
    let (buttons, help) = footer(state, theme, width);
    row(frame, vec![buttons], &mut y);
    row(frame, vec![help], &mut y);
}

fn draw_too_small(frame: &mut Frame<'_>, area: Rect, styles: &UrlStyles) {
    let msg = format!(
        "Terminal too small ({}x{}) to show the web address and its host. Enlarge the window, or press Esc to cancel.",
        area.width, area.height
    );
    let lines: Vec<Line<'static>> = text::wrap(&msg, usize::from(area.width))
        .into_iter()
        .map(|l| Line::from(Span::styled(l, styles.warning)))
        .collect();
    frame.render_widget(Paragraph::new(lines), area);
}

/// The scrollable body with its scroll indicator in `area`; marks the rows
/// shown as read.
fn draw_body(
    frame: &mut Frame<'_>,
    area: Rect,
    state: &UrlViewState,
    styles: &UrlStyles,
    lay: &Layout,
) {
    let body_h = area.height;
    let total = u16::try_from(lay.body.len()).unwrap_or(u16::MAX);
    // When the body overflows, its last row says so.
    let overflow = total > body_h;
    let visible_h = if overflow {
        body_h.saturating_sub(1)
    } else {
        body_h
    };
    let view = ScrollView {
        total: usize::from(total),
        height: usize::from(visible_h),
    };
    let max_scroll = u16::try_from(view.max_offset()).unwrap_or(u16::MAX);
    state.max_scroll.set(max_scroll);
    state.page.set(visible_h.max(1));
    let scroll = state.scroll.min(max_scroll);
    let rows = view.rows(usize::from(scroll));
    state.mark_read(area.width, lay.body.len(), rows.clone(), lay.must_read);
    *state.link.borrow_mut() = url_link(state, area, lay, rows.clone());
    frame.render_widget(
        Paragraph::new(lay.body[rows].to_vec()),
        Rect::new(area.x, area.y, area.width, visible_h),
    );
    if !overflow || body_h == 0 {
        return;
    }
    let below = total - scroll - visible_h;
    let n = state.review.warnings.len() + usize::from(state.review.refusal.is_some());
    let text = if below > 0 && n > 0 {
        format!(
            "↓ {below} more, {n} warning{} (↓ PgDn)",
            if n == 1 { "" } else { "s" }
        )
    } else if below > 0 {
        format!(
            "↓ {below} more line{} (↓ PgDn)",
            if below == 1 { "" } else { "s" }
        )
    } else {
        "↑ top (↑ PgUp Home)".to_owned()
    };
    frame.render_widget(
        Paragraph::new(Line::from(Span::styled(
            text::clip(&text, usize::from(area.width)),
            styles.muted,
        ))),
        Rect::new(area.x, area.y + visible_h, area.width, 1),
    );
}

/// The URL's rows among the body rows `rows` shown in `area`, as a
/// [`UrlLink`] (None when none is shown or the URL may not be opened).
fn url_link(
    state: &UrlViewState,
    area: Rect,
    lay: &Layout,
    rows: std::ops::Range<usize>,
) -> Option<UrlLink> {
    let target = link_target(&state.review)?;
    let (first, indent, texts) = &lay.url_at;
    let mut out = Vec::new();
    for (i, t) in texts.iter().enumerate() {
        let at = first + i;
        if rows.contains(&at) {
            let y = area.y + u16::try_from(at - rows.start).ok()?;
            out.push((area.x + indent, y, t.clone()));
        }
    }
    if out.is_empty() {
        return None;
    }
    let w = usize::from(area.width);
    let full = texts
        .split_last()
        .is_some_and(|(_, before)| before.iter().all(|t| text::width(t) == w));
    let one_line = *indent == 0 && area.x == 0 && out.len() == texts.len() && full;
    Some(UrlLink {
        target,
        rows: out,
        one_line,
    })
}

fn layout(state: &UrlViewState, styles: &UrlStyles, width: usize) -> Layout {
    let title = match state.phase() {
        UrlPhase::Consent => "Open a web page?",
        UrlPhase::LaunchFailed(_) => "The browser could not be launched",
        UrlPhase::Copy { .. } => "Copy the URL",
    };
    let title = Line::from(Span::styled(
        title_text(state, title, width),
        styles.emphasis,
    ));
    let (body, must_read, url_rows) = body_lines(state, styles, width);
    let url_at = url_in_body(state, width);
    Layout {
        title,
        pinned: pinned_lines(state, styles, width),
        body,
        must_read,
        url_rows,
        url_at,
    }
}

/// The title row: the title, the progress and the countdown (when there
/// is a timeout), cut to one row; when they do not fit, the countdown is
/// kept and the progress left out.
fn title_text(state: &UrlViewState, title: &str, width: usize) -> String {
    let progress = safe_text::display(&state.progress).into_owned();
    let mut text = if progress.is_empty() {
        title.to_owned()
    } else {
        format!("{title} · {progress}")
    };
    if let Some(s) = state.seconds_left {
        let clock = super::view::countdown(s, state.extend_secs);
        let full = format!("{text}{clock}");
        text = if full.chars().map(cw).sum::<usize>() <= width {
            full
        } else {
            format!("{title}{clock}")
        };
    }
    text::wrap(&text, width)
        .into_iter()
        .next()
        .unwrap_or_default()
}

/// The pinned block: what will be opened, which no scrolling and no server
/// text can move off the screen: the host (and its ASCII form when it is an
/// international name), scheme and port, the warning count, a rule.
fn pinned_lines(state: &UrlViewState, s: &UrlStyles, width: usize) -> Vec<Line<'static>> {
    let r = &state.review;
    let mut out = Vec::new();
    match &r.host {
        Some(h) => {
            let (pre, reg) = h.split_unicode();
            let segs = vec![
                ("Host:    ".to_owned(), s.muted),
                (pre.to_owned(), s.normal),
                (reg.to_owned(), s.emphasis),
            ];
            out.extend(wrap_styled(&segs, width, 9));
            // An international name also in the form the browser uses, so a
            // look-alike cannot hide behind its Unicode form.
            if h.ascii != h.unicode {
                let ascii = safe_text::display(&h.ascii).into_owned();
                labelled(&mut out, "ASCII:   ", &ascii, s.warning, s, width);
            }
        }
        None => labelled(&mut out, "Host:    ", "(none)", s.danger, s, width),
    }
    let mut scheme = r.scheme.clone().unwrap_or_else(|| "(none)".to_owned());
    if let Some(p) = r.port {
        scheme.push_str(&format!(" · port {p}"));
    }
    labelled(
        &mut out,
        "Scheme:  ",
        &safe_text::display(&scheme),
        s.normal,
        s,
        width,
    );
    let n = r.warnings.len();
    let (text, style) = match (&r.refusal, n) {
        (Some(_), _) => (
            "Cannot be opened: the reason is below the URL.".to_owned(),
            s.danger,
        ),
        (None, 0) => ("No warnings.".to_owned(), s.muted),
        (None, n) => {
            let danger = r.warnings.iter().any(|w| w.severity() == Severity::Danger);
            let plural = if n == 1 { "" } else { "s" };
            (
                format!("{n} warning{plural}: read below the URL."),
                if danger { s.danger } else { s.warning },
            )
        }
    };
    labelled(&mut out, "Check:   ", &text, style, s, width);
    if let Some(b) = &state.banner {
        for l in text::wrap(b, width) {
            out.push(Line::from(Span::styled(l, s.warning)));
        }
    }
    out.push(Line::from(Span::styled("─".repeat(width), s.muted)));
    out
}

/// Where [`body_lines`] puts the URL: the index of its first body row, the
/// column its rows start at, and their text.
fn url_in_body(state: &UrlViewState, width: usize) -> (usize, u16, Vec<String>) {
    let r = &state.review;
    match state.phase() {
        UrlPhase::Copy { after_failure } => {
            let t = if *after_failure {
                COPY_AFTER_FAILURE
            } else {
                COPY_NO_OPEN
            };
            let first = text::wrap(t, width).len();
            (first, 0, text::wrap_chars(&r.display_url(), width))
        }
        UrlPhase::LaunchFailed(msg) => {
            let first = text::wrap(&safe_text::display(msg), width).len() + 2;
            let rows = text::wrap_chars(&r.display_url(), width.saturating_sub(2).max(1));
            (first, 2, rows)
        }
        UrlPhase::Consent => {
            let rows = text::wrap_chars(&r.display_url(), width.saturating_sub(2).max(1));
            (1, 2, rows)
        }
    }
}

/// The copy screen's sentence after a failed launch.
const COPY_AFTER_FAILURE: &str = "Copy this URL and open it in a browser yourself:";
/// The copy screen's sentence with `--no-open`.
const COPY_NO_OPEN: &str = "Nothing was opened (--no-open). Copy this URL; Done sends your consent (accept), Give up sends cancel:";

/// The scrollable body, pre-wrapped to `width`, with the number of leading
/// rows that must be read before consent and the rows of the URL itself.
fn body_lines(
    state: &UrlViewState,
    s: &UrlStyles,
    width: usize,
) -> (Vec<Line<'static>>, usize, usize) {
    let mut out: Vec<Line<'static>> = Vec::new();
    let r = &state.review;
    let blank = || Line::from("");

    match state.phase() {
        UrlPhase::LaunchFailed(msg) => {
            for l in text::wrap(&safe_text::display(msg), width) {
                out.push(Line::from(Span::styled(l, s.danger)));
            }
            out.push(blank());
        }
        UrlPhase::Copy { after_failure } => {
            let t = if *after_failure {
                COPY_AFTER_FAILURE
            } else {
                COPY_NO_OPEN
            };
            for l in text::wrap(t, width) {
                out.push(Line::from(Span::styled(l, s.muted)));
            }
            // The URL alone, from column 0, so a terminal selection copies
            // nothing else.
            for l in text::wrap_chars(&r.display_url(), width) {
                out.push(Line::from(Span::styled(l, s.normal)));
            }
            out.push(blank());
            who_and_message(&mut out, state, s, width);
            return (out, 0, 1);
        }
        UrlPhase::Consent => {}
    }

    out.push(Line::from(Span::styled("URL", s.muted)));
    let url = text::wrap_chars(&r.display_url(), width.saturating_sub(2).max(1));
    let url_rows = url.len();
    for l in url {
        out.push(Line::from(vec![Span::raw("  "), Span::styled(l, s.normal)]));
    }
    if r.rewritten() {
        out.push(Line::from(Span::styled("As sent", s.muted)));
        for l in text::wrap_chars(&r.display_sent(), width.saturating_sub(2).max(1)) {
            out.push(Line::from(vec![Span::raw("  "), Span::styled(l, s.muted)]));
        }
    }
    if let Some(refusal) = &r.refusal {
        bullet(&mut out, "✗ ", &refusal.sentence(), s.danger, width);
    }
    if !r.warnings.is_empty() {
        out.push(Line::from(Span::styled("Warnings", s.muted)));
        for w in &r.warnings {
            let st = match w.severity() {
                Severity::Danger => s.danger,
                Severity::Caution => s.warning,
            };
            bullet(&mut out, "! ", &w.sentence(), st, width);
        }
    }
    let must_read = out.len();
    out.push(blank());
    who_and_message(&mut out, state, s, width);
    (out, must_read, url_rows)
}

/// Who asks, then the server's message framed as its own words (drawn
/// below the URL, so it cannot imitate or push away what will be opened).
fn who_and_message(
    out: &mut Vec<Line<'static>>,
    state: &UrlViewState,
    s: &UrlStyles,
    width: usize,
) {
    let server = safe_text::display(&state.server).into_owned();
    labelled(out, "Server:  ", &server, s.normal, s, width);
    // Each cut to the one line beside its label, ending with "…" when cut.
    if let Some(l) = &state.launched {
        let label = "Launched: ";
        let l = text::clip(
            &safe_text::display(l),
            width.saturating_sub(text::width(label)),
        );
        labelled(out, label, &l, s.normal, s, width);
    }
    if let Some(c) = &state.call {
        let label = "Asked in: ";
        let c = text::clip(
            &safe_text::display(c),
            width.saturating_sub(text::width(label)),
        );
        labelled(out, label, &c, s.normal, s, width);
    }
    let adapter = safe_text::display(&state.adapter).into_owned();
    labelled(out, "Relayed: ", &adapter, s.normal, s, width);
    if matches!(state.phase(), UrlPhase::Copy { .. }) {
        return;
    }
    out.push(Line::from(""));
    let head = "┌ The server's message (its words, not checked):";
    out.push(Line::from(Span::styled(text::clip(head, width), s.muted)));
    let inner = width.saturating_sub(2).max(1);
    for l in safe_text::display_multiline(&state.message) {
        for w in text::wrap(&l, inner) {
            out.push(Line::from(vec![
                Span::styled("│ ".to_owned(), s.muted),
                Span::styled(w, s.normal),
            ]));
        }
    }
    out.push(Line::from(Span::styled("└", s.muted)));
}

/// The button row (long labels, or short ones when those do not fit) and
/// the help line of the current phase.
fn footer(state: &UrlViewState, theme: &Theme, width: usize) -> (Line<'static>, Line<'static>) {
    let bs = state.buttons();
    let disabled = state.review.openable() && !state.open_enabled();
    let cells = |short: bool| -> Vec<ButtonCell<'static>> {
        bs.iter()
            .map(|b| ButtonCell {
                label: b.label(short, state.no_open),
                focused: *b == state.focus,
                disabled: *b == UrlButton::Open && disabled,
            })
            .collect()
    };
    let mut row = cells(false);
    if row_width(&row, RowKind::Marked) > width {
        row = cells(true);
    }
    (
        button_row(&row, RowKind::Marked, theme),
        help_line(help_texts(state, disabled), theme, width),
    )
}

/// The key help of the current phase, longest first.
fn help_texts(state: &UrlViewState, open_disabled: bool) -> &'static [&'static str] {
    match state.phase() {
        UrlPhase::Consent if open_disabled && state.unread_above.get() => &[
            "Open is disabled: scroll up to read the whole URL (↑ PgUp) · d decline · Esc cancel",
            "Open is disabled: scroll up to read the whole URL (↑ PgUp)",
            "scroll up to read the whole URL (↑ PgUp)",
            "scroll up to read the whole URL",
        ],
        UrlPhase::Consent if open_disabled => &[
            "Open is disabled: scroll to read the whole URL (↓ PgDn) · d decline · Esc cancel",
            "Open is disabled: scroll to read the whole URL (↓ PgDn)",
            "scroll to read the whole URL (↓ PgDn)",
            "scroll to read the whole URL",
        ],
        UrlPhase::Consent if state.review.openable() && state.no_open => &[
            "Tab/←→ move · Enter press · o consent · d decline · Esc cancel",
            "Tab move · Enter press · o consent · Esc cancel",
            "o consent · d decline · Esc cancel",
        ],
        UrlPhase::Consent if state.review.openable() => &[
            "Tab/←→ move · Enter press · o open · d decline · Esc cancel",
            "Tab move · Enter press · o open · Esc cancel",
            "o open · d decline · Esc cancel",
        ],
        UrlPhase::Consent => &[
            "Tab/←→ move · Enter press · d decline · Esc cancel",
            "d decline · Esc cancel",
        ],
        UrlPhase::LaunchFailed(_) => &[
            "Tab/←→ move · Enter press · r retry · s show URL · g/Esc give up",
            "r retry · s show URL · Esc give up",
        ],
        UrlPhase::Copy { .. } => &[
            "Tab/←→ move · Enter press · g/Esc give up",
            "Enter press · Esc give up",
        ],
    }
}

/// `label` then `value` word-wrapped with a hanging indent under the value.
fn labelled(
    out: &mut Vec<Line<'static>>,
    label: &str,
    value: &str,
    style: Style,
    s: &UrlStyles,
    width: usize,
) {
    let indent = label.chars().count();
    if indent >= width {
        out.extend(wrap_styled(
            &[(label.to_owned(), s.muted), (value.to_owned(), style)],
            width,
            0,
        ));
        return;
    }
    for (i, l) in text::wrap(value, width - indent).into_iter().enumerate() {
        let lead = if i == 0 {
            Span::styled(label.to_owned(), s.muted)
        } else {
            Span::raw(" ".repeat(indent))
        };
        out.push(Line::from(vec![lead, Span::styled(l, style)]));
    }
}

/// A bullet item: `mark` then `text` word-wrapped with a hanging indent.
fn bullet(out: &mut Vec<Line<'static>>, mark: &str, text: &str, style: Style, width: usize) {
    let indent = mark.chars().count();
    let inner = width.saturating_sub(indent).max(1);
    for (i, l) in text::wrap(text, inner).into_iter().enumerate() {
        let lead = if i == 0 {
            mark.to_owned()
        } else {
            " ".repeat(indent)
        };
        out.push(Line::from(vec![
            Span::styled(lead, style),
            Span::styled(l, style),
        ]));
    }
}

fn cw(c: char) -> usize {
    c.width().unwrap_or(0)
}

/// Wrap styled segments by character to `width`, continuation lines
/// indented by `indent` columns; every character is kept.
fn wrap_styled(segs: &[(String, Style)], width: usize, indent: usize) -> Vec<Line<'static>> {
    let width = width.max(1);
    let indent = if indent >= width { 0 } else { indent };
    let mut lines: Vec<Line<'static>> = Vec::new();
    let mut spans: Vec<Span<'static>> = Vec::new();
    let mut cur = String::new();
    let mut cur_style = Style::default();
    let mut w = 0;
    let mut line_start = 0;
    for (text, style) in segs {
        if !cur.is_empty() && *style != cur_style {
            spans.push(Span::styled(std::mem::take(&mut cur), cur_style));
        }
        cur_style = *style;
        for c in text.chars() {
            let c_w = cw(c);
            if w + c_w > width && w > line_start {
                if !cur.is_empty() {
                    spans.push(Span::styled(std::mem::take(&mut cur), cur_style));
                }
                lines.push(Line::from(std::mem::take(&mut spans)));
                if indent > 0 {
                    spans.push(Span::raw(" ".repeat(indent)));
                }
                w = indent;
                line_start = indent;
            }
            cur.push(c);
            w += c_w;
        }
    }
    if !cur.is_empty() {
        spans.push(Span::styled(cur, cur_style));
    }
    if !spans.is_empty() || lines.is_empty() {
        lines.push(Line::from(spans));
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn styled_wrap_indents_continuations() {
        let st = Style::default();
        let lines = wrap_styled(
            &[("Host:    ".into(), st), ("abcdefghijkl".into(), st)],
            12,
            9,
        );
        let text: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
        assert_eq!(
            text,
            vec![
                "Host:    abc",
                "         def",
                "         ghi",
                "         jkl"
            ]
        );
    }
}
