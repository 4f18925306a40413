//! The terminal front end (the only module that imports ratatui and
//! crossterm): [`TuiResponder`] draws each request on the controlling
//! terminal and feeds keys to the form state machine ([`crate::form`]).
//!
//! Terminal handling:
//! - the UI opens `/dev/tty` read+write itself, so stdin and stdout carry
//!   data (as fzf does); no `ratatui::init`, no cursor-position queries
//!   (no inline viewport): full-screen alternate screen, raw mode,
//!   bracketed paste, hidden cursor except in inputs; key events are
//!   filtered by `KeyEventKind::Press`;
//! - the screen is cleared and drawn whole when a request screen or one of
//!   its steps starts, and on Ctrl-L (another program writing on the same
//!   terminal, such as a consumer of stdout, leaves nothing behind);
//! - raw mode and the alternate screen are restored by a `Drop` guard, and
//!   on a panic or a signal by [`crate::signals`], which owns the signals:
//!   SIGTERM, SIGHUP, SIGINT and SIGQUIT sent from outside end a request on
//!   screen with [`Outcome::Quit`] so the driver can cancel what remains,
//!   then the process exits with 128 + the signal number; SIGTSTP gives
//!   the terminal back before the process stops, and SIGCONT takes it
//!   again and repaints the whole screen (Ctrl-Z is a key in raw mode and
//!   does nothing);
//! - Ctrl-C cancels the current request; another Ctrl-C within
//!   [`QUIT_WINDOW`] of it (on the next request or while waiting), or a
//!   second Ctrl-C while waiting, quits ([`Outcome::Quit`]);
//! - `Context::deadline` (`--timeout`) cancels an unanswered request; the
//!   clock stands still while `$EDITOR` (Ctrl-O) has the terminal;
//! - a request its source withdraws gives way to a notice that stays until
//!   a key (guarded like a request screen), so one screen never turns into
//!   another unseen.
//!
//! The module, by screen. The spine is here: the [`Screen`] trait, which
//! every request screen implements, and the one loop they all run through
//! (`TuiResponder::run`), which owns the terminal, the consent guard, the
//! deadline, Ctrl-C and signals; and [`TuiResponder`]'s answers to the
//! driver. Each screen keeps its state, its keys and its drawing together:
//! - `form`: the elicitation form (also a tool's arguments) and its review;
//! - `refusable`: a request that can only be declined or cancelled;
//! - `url_view`: URL consent, the consent machine's view and its screen;
//! - `picker`, `result_view`, `browse`: trying a server by hand (the tool
//!   list, a call's result, the steps between them);
//! - `wait`, `sign_in_wait`: the waiting screen between requests, and a
//!   sign-in waiting for the browser;
//! - `notice`: how a request ended, until a key;
//! - `protocol`: the session's JSON-RPC messages, over any screen (Ctrl-P)
//!   or beside it.
//!
//! What the screens share: `header` (who asks, the request's place, the
//! countdown), [`chrome`] (the scrolled body between a fixed header and
//! footer, the button row, the help line, the too-small message), the
//! [`Theme`], `text` (widths, wrapping, wide glyphs) and `link` (the URL as
//! a hyperlink). Beneath them: `terminal` (taking the terminal and giving
//! it back, reading keys), `keys` (the ESC and terminal-reply filter),
//! `guard` (the consent guard), `background` (the terminal's background
//! colour) and `editor` (Ctrl-O, the outside editor). `view` names the
//! drawing of every screen for the crate's tests and benchmarks.

mod browse;
mod editor;
mod form;
mod header;
mod link;
mod notice;
mod protocol;
mod refusable;
mod sign_in_wait;
mod stderr_view;
mod terminal;
pub mod theme;
#[cfg(feature = "internals")]
#[doc(hidden)]
pub mod view;
mod wait;

internals! {
    pub(crate) mod background;
    pub(crate) mod chrome;
    pub(crate) mod guard;
    pub(crate) mod keys;
    pub(crate) mod picker;
    pub(crate) mod result_view;
    pub(crate) mod text;
    pub(crate) mod url_view;
}
// `cargo fmt` reaches the modules of `internals!` through this list
// (see src/lib.rs).
#[cfg(any())]
#[path = "."]
mod for_cargo_fmt {
    mod background;
    mod chrome;
    mod guard;
    mod keys;
    mod picker;
    mod result_view;
    mod text;
    mod url_view;
}

use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use ratatui::Frame;

use crate::binding::{Action, Answer, RequestBody, RequestEvent, RequestView};
use crate::form::Key;
use crate::responder::notify::Notify;
use crate::responder::notify::{notify_bytes, NOTIFY_AFTER};
use crate::responder::{Context, Outcome, Progress, RespondError, Responder, WaitKey, Waiting};
use form::FormScreen;
use header::Header;
use notice::{screen_label, Notice};
use refusable::{not_executable_lines, RefusableScreen};
use terminal::{
    discard_typeahead, read_input, resume_terminal, suspend_terminal, Input, Tty, REPAINT, SIGNALS,
};

pub use refusable::not_a_form_lines;
#[cfg(feature = "internals")]
pub use terminal::translate_key;
pub use theme::Theme;

pub(crate) use crate::responder::QUIT_WINDOW;

/// How often the loop wakes up to check the deadline and signals.
const TICK: Duration = Duration::from_millis(100);

/// How long the URL consent screen must have been on screen, whole and
/// untouched, before its keys count (consent is an explicit act; see
/// [`guard`]): the consent machine's period.
pub use crate::consent::CONSENT_GUARD;

/// The same grace period for forms and refusable screens: keys typed for
/// the previous request never answer the next one.
pub const FORM_GUARD: Duration = Duration::from_millis(300);

/// What a screen's key handler tells the loop.
pub(crate) enum Step {
    /// Keep the screen.
    Continue,
    /// The request is decided.
    Done(Outcome),
}

/// One request screen. The loop draws it every frame and hands it the keys
/// that passed the consent guard ([`guard`]); Ctrl-C, the deadline,
/// a withdrawal and signals are the loop's.
pub(crate) trait Screen {
    /// How long the screen must have been on screen, whole and untouched,
    /// before its keys count.
    fn grace(&self) -> Duration;

    /// Draw one frame with `theme`; `clock` is the time left before
    /// `--timeout` cancels (None: no timeout). Returns whether the request
    /// was shown whole (false: too small; then only Esc counts).
    fn draw(&mut self, f: &mut Frame, theme: &Theme, clock: Option<Clock>) -> bool;

    /// One key (never Ctrl-C).
    fn key(&mut self, k: &Key) -> Step;

    /// A key while the screen is too small to be drawn: a screen whose
    /// keys there need nothing seen (the list's Esc and `q` leave, a
    /// result's go back or leave) takes it; None (the default) leaves it
    /// to the loop, where only Esc counts (a request: cancel, asking first
    /// on a changed form).
    fn small_key(&mut self, _k: &Key) -> Option<Step> {
        None
    }

    /// Whether the person typed or chose anything here (a discard then
    /// asks to confirm, also while the screen is too small to show it).
    fn changed(&self) -> bool {
        false
    }

    /// Ask the person to confirm a front end's own discard (`question`,
    /// answered by `keys`) before `a` is sent; false, asking nothing, when
    /// nothing here would be thrown away.
    fn ask_to_confirm(&mut self, _a: Action, _question: String, _keys: String) -> bool {
        false
    }

    /// The text of the focused text field, for an external editor (None:
    /// nothing to edit here).
    fn text_to_edit(&self) -> Option<String> {
        None
    }

    /// Why the outside editor is not opened here now (a field that looks
    /// like a secret), said as the form's notice; None: it may be.
    fn editor_refused(&self) -> Option<String> {
        None
    }

    /// The editor's text for the focused text field.
    fn put_edited(&mut self, _text: String) {}

    /// Ctrl-O here edits everything the screen asks as one JSON text (a
    /// tool's arguments, [`FormScreen::edits_whole`]): the screen ends with
    /// this outcome and whoever ran it opens the editor. None: Ctrl-O edits
    /// the focused field, if any.
    fn edit_whole(&mut self) -> Option<Outcome> {
        None
    }

    /// The URL drawn by the last frame, to be written again as one
    /// hyperlink (None: no URL on this screen).
    fn link(&self) -> Option<url_view::UrlLink> {
        None
    }

    /// A one-line note for the person (why the editor did not help).
    fn put_note(&mut self, _note: String) {}

    /// A warning that stays above the request from now on (the call that
    /// asked has finished); a screen without a header ignores it.
    fn put_banner(&mut self, _banner: String) {}

    /// Where the request stands now ("request 1 of 3": requests that
    /// arrived behind it while it is on screen are counted).
    fn put_progress(&mut self, progress: Progress);

    /// Which step of the screen is shown: a different value means Enter
    /// (or `o`) now does something else (form → review, consent → copy),
    /// so the loop starts the grace period again and repaints the screen
    /// whole.
    fn stage(&self) -> u8 {
        0
    }

    /// Whether a lone Esc now would throw what was typed away (a question
    /// that Esc confirms is up): the key filter then holds an Esc longer,
    /// so a terminal reply split after its ESC never answers it.
    fn esc_discards(&self) -> bool {
        false
    }

    /// Whether what this screen's keys do changed since the last call
    /// (asked after each frame): a question now waits for `y` or the key
    /// again, the end of a long review came on screen (Enter now sends),
    /// other rows of a URL are on screen (`o` may now consent, new warnings
    /// show). The loop then starts the grace period again, so a key typed
    /// with the one that made the change never answers it.
    fn keys_changed(&mut self) -> bool {
        false
    }
}

/// The time a screen shows: seconds left before `--timeout` cancels, and
/// the seconds the extend key adds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Clock {
    pub(crate) left: u64,
    pub(crate) extend: u64,
}

/// A decided answer with no content.
fn bare(a: Action) -> Step {
    Step::Done(Outcome::Answer(Answer::bare(a)))
}

/// Rows to scroll for a scrolling key (↑ ↓ one row, PageUp PageDown ten).
fn scroll_step(k: &Key) -> Option<isize> {
    match k {
        Key::Up => Some(-1),
        Key::Down => Some(1),
        Key::PageUp => Some(-10),
        Key::PageDown => Some(10),
        _ => None,
    }
}

/// A terminal [`Responder`]: one full screen per request (a form, a
/// screen that can only decline or cancel, or URL consent).
pub struct TuiResponder {
    tty: Tty,
    theme: Theme,
    /// When the last Ctrl-C cancelled a request.
    last_ctrl_c: Option<Instant>,
    /// A Ctrl-C was pressed during the current wait.
    wait_armed: bool,
    answered: usize,
    /// Opens a consented URL; lent to the URL screen while it runs.
    launcher: Option<Box<dyn crate::launcher::Launcher>>,
    /// Why consent shows the URL for copying instead of opening it
    /// (`--no-open`, no display, an SSH session); None: it opens.
    no_open: Option<crate::launcher::NoOpenWhy>,
    /// The next frame clears the terminal first and is drawn whole.
    repaint: bool,
    /// A notice about a request that already ended (time ran out), shown
    /// before anything else until a key acknowledges it.
    pending: Option<Notice>,
    /// Where a request's end is also reported (stderr in the binary: held
    /// while the screen is up, written after).
    notices: Option<crate::notice::Notices>,
    /// `--notify`: how a request that arrives after a wait is signalled.
    notify: Notify,
    /// Since when the waiting screen has been up (None while a request is).
    waiting_since: Option<Instant>,
    /// What the tool list says first when it comes back (a call that was
    /// cancelled).
    list_note: Option<String>,
    /// The count of requests taken ([`crate::responder::requests_taken`])
    /// when the waiting screen last returned early for a waiting request.
    returned_for: Option<u64>,
    /// [`BLOCK_KEY`] was pressed on the request on screen.
    block_asked: bool,
    /// [`BLOCK_KEY`] on a changed form asked to confirm; the next key
    /// confirms it (the key again, or `y`) or calls it off.
    block_pending: bool,
    /// Servers whose later requests are declined without being shown
    /// (for this run): how they were launched and the name they gave when
    /// blocked; told apart by [`same_server`].
    blocked: Vec<(String, String)>,
    /// How many requests were declined that way.
    auto_declined: usize,
    /// The sign-ins of the session this screen answers
    /// ([`Responder::follow_sign_ins`]): one waiting for the browser is
    /// what the waiting screen shows.
    sign_ins: std::sync::Arc<crate::responder::sign_in::SignIns>,
    /// The session's protocol trace and whether it is drawn beside every
    /// screen ([`protocol`]).
    protocol: protocol::Protocol,
    /// What the server wrote on its stderr, when the session shows it
    /// (taken from the waiting screen's [`Waiting::stderr`]).
    server_stderr: Option<crate::responder::ServerStderr>,
}

impl TuiResponder {
    /// Open the controlling terminal and take it over (alternate screen,
    /// raw mode, bracketed paste).
    ///
    /// Errors: [`RespondError::NoTerminal`] when
    /// `/dev/tty` cannot be opened (no controlling terminal: exit 2).
    pub fn new(theme: Theme) -> Result<Self, RespondError> {
        Ok(TuiResponder {
            tty: Tty::open()?,
            theme,
            last_ctrl_c: None,
            wait_armed: false,
            answered: 0,
            launcher: Some(Box::new(crate::launcher::SystemBrowser)),
            no_open: None,
            repaint: true,
            pending: None,
            notices: None,
            notify: Notify::None,
            waiting_since: None,
            list_note: None,
            returned_for: None,
            block_asked: false,
            block_pending: false,
            blocked: Vec::new(),
            auto_declined: 0,
            sign_ins: std::sync::Arc::default(),
            protocol: protocol::Protocol::default(),
            server_stderr: None,
        })
    }

    /// Open consented URLs with `launcher` (`--browser CMD`, or the system
    /// browser by default); `no_open` (`--no-open`) shows the URL for copying
    /// after consent; the caller then passes a launcher that opens nothing
    /// ([`NoOpen`](crate::launcher::NoOpen)).
    pub fn with_launcher(
        mut self,
        launcher: Box<dyn crate::launcher::Launcher>,
        no_open: bool,
    ) -> Self {
        self.launcher = Some(launcher);
        self.no_open = no_open.then_some(crate::launcher::NoOpenWhy::Asked);
        self
    }

    /// Show consented URLs for copying, saying why (`--no-open`, no
    /// display, an SSH session), or (None) open them with the launcher.
    /// The caller passes a launcher that opens nothing with a reason
    /// ([`NoOpen`](crate::launcher::NoOpen)).
    pub fn showing_urls_for(mut self, why: Option<crate::launcher::NoOpenWhy>) -> Self {
        self.no_open = why;
        self
    }

    /// Also report each request that time ran out on to `notices` (the
    /// binary passes stderr), so the run's output says it after the screen
    /// is gone.
    pub fn with_notices(mut self, notices: crate::notice::Notices) -> Self {
        self.notices = Some(notices);
        self
    }

    /// The servers declined with [`BLOCK_KEY`], as their names (safe text).
    fn blocked_names(&self) -> String {
        let names: Vec<String> = self
            .blocked
            .iter()
            .map(|(launched, name)| blocked_label(launched, name))
            .collect();
        names.join(", ")
    }

    /// Signal a request that arrives after the screen has waited
    /// ([`Notify`]; a new responder signals nothing).
    pub fn with_notify(mut self, how: Notify) -> Self {
        self.notify = how;
        self
    }

    /// The theme in use.
    #[cfg(test)]
    pub fn theme(&self) -> &Theme {
        &self.theme
    }

    /// Run one screen until its key handler returns [`Step::Done`], the
    /// deadline passes (cancel), the source withdraws the request (a
    /// notice until a key, then cancel, which the driver never sends),
    /// Ctrl-C (cancel, or quit when it is the second within
    /// [`QUIT_WINDOW`]) or a signal (quit).
    ///
    /// Keys pass the [`guard::ConsentGuard`] with the screen's grace period
    /// first: nothing typed before the screen was shown whole, or within
    /// the period of that (or of a resize, of another such key, of a new
    /// step such as the review, or of a change of what the keys do: a
    /// question to confirm a discard, the end of a long review, more of a
    /// URL on screen), acts on it. While the request does not
    /// fit, only Esc (cancel) counts.
    fn run(&mut self, cx: &Context, screen: &mut dyn Screen) -> Result<Outcome, RespondError> {
        let _busy = crate::signals::busy();
        // Keys typed before this screen was drawn were meant for something
        // else (the previous request, or a browser that was slow to start):
        // they are discarded, so no answer is given to an unseen screen.
        discard_typeahead();
        let mut guard = guard::ConsentGuard::new(screen.grace());
        let mut stage = screen.stage();
        self.repaint = true;
        // The person may extend the deadline by the time the request had
        // when it appeared (the `--timeout` amount, in whole seconds).
        let mut deadline = cx.deadline;
        let extend = cx
            .deadline
            .map(|d| whole_secs(d.saturating_duration_since(Instant::now())));
        let mut call_finished = false;
        loop {
            let left = crate::responder::time_left(deadline);
            // The call that asked has finished: the request stays, and the
            // screen says its answer may no longer be used.
            if !call_finished && cx.call_finished() {
                call_finished = true;
                screen.put_banner(crate::responder::CALL_FINISHED_BANNER.to_owned());
            }
            if cx.withdrawn() && crate::signals::received().is_none() {
                return self.withdrawn_notice(cx);
            }
            if crate::signals::received().is_some() {
                return Ok(Outcome::Quit);
            }
            if left == Some(Duration::ZERO) {
                // The cancel is sent at once; the notice that says so is
                // shown before anything else and waits for a key.
                if !cx.claim_answer() {
                    return self.withdrawn_notice(cx);
                }
                self.pending = Some(Notice::timed_out(cx, extend));
                if let Some(n) = &self.notices {
                    n.say(&format!(
                        "{}: time ran out (--timeout), {}",
                        screen_label(cx),
                        cx.cancel_words()
                    ));
                }
                return Ok(Outcome::Answer(Answer::bare(Action::Cancel)));
            }
            let clock = left.zip(extend).map(|(l, e)| Clock {
                left: whole_secs(l).as_secs(),
                extend: e.as_secs(),
            });
            screen.put_progress(cx.progress_now());
            let small = self.frame(screen, clock, &mut guard)?;
            let timeout = left.map_or(TICK, |l| l.min(TICK));
            if let Input::Key(k) = read_input(timeout, screen.esc_discards())? {
                // A key read after the source withdrew the request is not
                // for it: the withdrawal is said instead (the URL screen
                // also claims the answer before it starts a browser).
                if cx.withdrawn() && crate::signals::received().is_none() {
                    return self.withdrawn_notice(cx);
                }
                // The protocol view, over any screen; the screen comes
                // back as it was, and is new to the guard again.
                if k == protocol::PROTOCOL {
                    match self.protocol_over(screen, cx, deadline, &mut guard, small)? {
                        Some(o) => return Ok(o),
                        None => continue,
                    }
                }
                if k == EXTEND {
                    if let (Some(d), Some(e)) = (deadline.as_mut(), extend) {
                        *d += e;
                    }
                    continue;
                }
                if k == EDITOR && guard.admit(Instant::now()) {
                    if let Some(o) = self.editor_key(screen, &mut deadline, &mut guard) {
                        return Ok(o);
                    }
                    continue;
                }
                if let Some(o) = self.dispatch(screen, &mut guard, small, k) {
                    // A key read as the source withdrew the request never
                    // counts as its answer: the withdrawal is said instead.
                    if matches!(o, Outcome::Answer(_)) && !cx.claim_answer() {
                        return self.withdrawn_notice(cx);
                    }
                    return Ok(o);
                }
                // Enter or `o` now does something else (the review, the
                // copy phase): like a new screen, it must have been on
                // screen for the grace period before a key counts.
                if screen.stage() != stage {
                    stage = screen.stage();
                    guard = guard::ConsentGuard::new(screen.grace());
                    self.repaint = true;
                }
            }
        }
    }

    /// Clear the terminal when a repaint was asked for (a new screen or
    /// step, Ctrl-L, the terminal taken back after a stop).
    fn clear_if_asked(&mut self) -> Result<(), RespondError> {
        if std::mem::take(&mut self.repaint) | REPAINT.swap(false, Ordering::SeqCst) {
            self.tty.clear()?;
        }
        Ok(())
    }

    /// Draw one frame of `screen` (`clock`: the time before the deadline)
    /// and report it to `guard`, with a change of what the screen's keys
    /// do ([`Screen::keys_changed`]); returns whether the request did not
    /// fit.
    fn frame(
        &mut self,
        screen: &mut dyn Screen,
        clock: Option<Clock>,
        guard: &mut guard::ConsentGuard,
    ) -> Result<bool, RespondError> {
        self.clear_if_asked()?;
        let theme = &self.theme;
        let mut small = false;
        let mut area = ratatui::layout::Rect::default();
        let mut over = Vec::new();
        let trace = &self.protocol;
        self.tty.draw(|f| {
            area = f.area();
            small = area.width < chrome::MIN_WIDTH || area.height < chrome::MIN_HEIGHT;
            small |= !protocol::draw_beside(f, theme, trace, |g| screen.draw(g, theme, clock));
            if let Some(l) = screen.link().filter(|_| link::supported()) {
                over = link::bytes(&l, f.buffer_mut());
            }
        })?;
        // The URL as one hyperlink, over the cells just drawn.
        self.tty.write_over(&over);
        let now = Instant::now();
        guard.frame(area, !small, now);
        // A question that now takes `y`, the end of a review that Enter now
        // sends, more of a URL that `o` now opens: counted from this frame.
        if screen.keys_changed() {
            guard.restart(now);
        }
        Ok(small)
    }

    /// One key on a screen: Ctrl-C is the loop's; other keys count only
    /// when the guard admits them, and while the request does not fit
    /// (`small`) only Esc does: nothing is answered blind.
    fn dispatch(
        &mut self,
        screen: &mut dyn Screen,
        guard: &mut guard::ConsentGuard,
        small: bool,
        k: Key,
    ) -> Option<Outcome> {
        match k {
            Key::Ctrl('c') => Some(self.ctrl_c()),
            Key::Ctrl('l') => {
                self.repaint = true;
                None
            }
            _ if !guard.admit(Instant::now()) => None,
            // Too small to show the form: Esc cancels an untouched one at
            // once; a changed one asks, as on the full screen (a second Esc
            // confirms), so one stray key never throws the answers away.
            // No other key counts: nothing is answered blind.
            _ if small => {
                if let Some(step) = screen.small_key(&k) {
                    return match step {
                        Step::Done(o) => Some(o),
                        Step::Continue => None,
                    };
                }
                if k != Key::Esc {
                    return None;
                }
                self.block_pending = false;
                if !screen.changed() {
                    return Some(Outcome::Answer(Answer::bare(Action::Cancel)));
                }
                match screen.key(&k) {
                    Step::Done(o) => Some(o),
                    Step::Continue => None,
                }
            }
            // On a changed form the first Ctrl-N asks (nothing typed is
            // lost by one stray key); the second, or `y`, confirms.
            BLOCK
                if !std::mem::take(&mut self.block_pending)
                    && screen.ask_to_confirm(
                        Action::Decline,
                        "Throw away what you entered and decline all from this server?".to_owned(),
                        format!(
                            "{BLOCK_KEY} again or y: decline all · any other key: back to the form"
                        ),
                    ) =>
            {
                self.block_pending = true;
                None
            }
            BLOCK => {
                self.block_asked = true;
                Some(Outcome::Answer(Answer::bare(Action::Decline)))
            }
            k => {
                let blocking = std::mem::take(&mut self.block_pending);
                match screen.key(&k) {
                    Step::Done(o) => {
                        let declined =
                            matches!(&o, Outcome::Answer(a) if a.action == Action::Decline);
                        self.block_asked |= blocking && declined;
                        Some(o)
                    }
                    Step::Continue => None,
                }
            }
        }
    }

    /// Ctrl-C on a request screen: cancel, or quit when it is the second
    /// within [`QUIT_WINDOW`].
    fn ctrl_c(&mut self) -> Outcome {
        let now = Instant::now();
        if self
            .last_ctrl_c
            .is_some_and(|t| now.duration_since(t) < QUIT_WINDOW)
        {
            return Outcome::Quit;
        }
        self.last_ctrl_c = Some(now);
        Outcome::Answer(Answer::bare(Action::Cancel))
    }
}

/// The key that declines the request on screen and every later one from
/// the same server, for this run, without showing them.
const BLOCK: Key = Key::Ctrl('n');

/// [`BLOCK`] as the help and the docs name it.
pub const BLOCK_KEY: &str = "Ctrl-N";

/// The key that opens the focused text field in `$VISUAL` / `$EDITOR`.
const EDITOR: Key = Key::Ctrl('o');

/// The key that extends the deadline ([`header::EXTEND_KEY`]).
const EXTEND: Key = Key::Ctrl('t');

/// A duration rounded up to whole seconds.
fn whole_secs(d: Duration) -> Duration {
    Duration::from_secs(d.as_secs() + u64::from(d.subsec_nanos() > 0))
}

/// Most columns of a launch command named in the Ctrl-N report (the rest
/// is cut, "…").
const BLOCKED_LAUNCH_COLS: usize = 60;

/// Whether `a` and `b` (how a server was launched, the name it gives) are
/// the same server for [`BLOCK_KEY`]: by the launch (the command or URL the
/// person gave) when one is known, never by the name the server reports,
/// which it may change (a re-initialization under a new name does not
/// evade the block); by the name only when no launch is known (`respond`
/// on a stream).
fn same_server(a: &(String, String), b: &(String, String)) -> bool {
    if a.0.is_empty() && b.0.is_empty() {
        a.1 == b.1
    } else {
        a.0 == b.0
    }
}

/// A server declined with [`BLOCK`], as the run's report names it: the name
/// it gives itself and, when known, how it was launched (cut to
/// [`BLOCKED_LAUNCH_COLS`] columns, ending with "…" when cut), both
/// sanitized.
fn blocked_label(launched: &str, name: &str) -> String {
    let n = crate::safe_text::display(name).into_owned();
    if launched.is_empty() {
        return n;
    }
    let l = text::clip(launched, BLOCKED_LAUNCH_COLS);
    format!("{n} ({})", crate::safe_text::display(&l))
}

/// "1 request", "3 requests".
fn requests(n: usize) -> String {
    if n == 1 {
        "1 request".to_owned()
    } else {
        format!("{n} requests")
    }
}

impl Responder for TuiResponder {
    /// The full screen is given back while the job asks in lines on the
    /// terminal, then taken again and drawn whole.
    #[cfg(unix)]
    fn in_lines(
        &mut self,
        job: &mut crate::responder::LinesJob<'_>,
    ) -> Result<(), crate::mcp::auth::authorizer::SignInError> {
        suspend_terminal();
        let r = match crate::plain::TtyIo::open() {
            Ok(mut io) => job(&mut io),
            Err(e) => Err(crate::mcp::auth::authorizer::SignInError::Lines(e)),
        };
        crate::signals::own_terminal(&SIGNALS);
        resume_terminal();
        self.repaint = true;
        r
    }

    fn follow_sign_ins(&mut self, sign_ins: std::sync::Arc<crate::responder::sign_in::SignIns>) {
        self.sign_ins = sign_ins;
    }

    fn follow_trace(&mut self, trace: std::sync::Arc<crate::responder::trace::Trace>) {
        self.protocol.trace = trace;
    }

    fn respond(&mut self, req: &RequestEvent, cx: &Context) -> Result<Outcome, RespondError> {
        self.wait_armed = false;
        // What the last request's end left to say comes first: no key read
        // before it is acknowledged reaches this request.
        let asked = Instant::now();
        if self.acknowledge_pending()? {
            return Ok(Outcome::Quit);
        }
        // The time spent on that notice is not this request's.
        let shifted = cx.deadline_later_by(asked.elapsed());
        let cx = shifted.as_ref().unwrap_or(cx);
        let origin = cx.origin();
        let who = (
            origin
                .as_ref()
                .and_then(|o| o.launched.clone())
                .unwrap_or_default(),
            req.server.name.clone(),
        );
        if self.blocked.iter().any(|b| same_server(b, &who)) && cx.claim_answer() {
            self.auto_declined += 1;
            return Ok(Outcome::Answer(Answer::bare(Action::Decline)));
        }
        self.block_asked = false;
        let waited = self.waiting_since.take();
        if waited.is_some_and(|t| t.elapsed() >= NOTIFY_AFTER) {
            self.tty
                .write_raw(&notify_bytes(self.notify, &req.server.name));
        }
        let header = Header::of(req, cx.progress).with_origin(cx.origin());
        let out = match &req.view {
            RequestView::Body(r) => match &r.body {
                RequestBody::Form(s) => self.run(cx, &mut FormScreen::new(header, s, &r.message)),
                RequestBody::Url { url, .. } => self.respond_url(req, &r.message, url, cx),
            },
            RequestView::NotAForm { reasons, .. } => {
                let lines = not_a_form_lines(&crate::responder::request_message(req), reasons);
                self.run(cx, &mut RefusableScreen::new(header, lines))
            }
            other => {
                let lines = not_executable_lines(req, other.describe().unwrap_or_default());
                self.run(cx, &mut RefusableScreen::new(header, lines))
            }
        };
        if matches!(out, Ok(Outcome::Answer(_))) && !cx.withdrawn() {
            self.answered += 1;
            if std::mem::take(&mut self.block_asked)
                && !self.blocked.iter().any(|b| same_server(b, &who))
            {
                self.blocked.push(who);
            }
        }
        out
    }

    fn finish(&mut self) {
        let _ = self.acknowledge_pending();
        if self.auto_declined > 0 {
            if let Some(n) = &self.notices {
                n.say(&format!(
                    "{} declined without being shown ({BLOCK_KEY}: everything else from {})",
                    requests(self.auto_declined),
                    self.blocked_names()
                ));
            }
        }
    }

    fn idle(&mut self, wait: Duration) -> bool {
        self.wait(wait, &Waiting::default()) == WaitKey::Quit
    }

    fn browse(&mut self, step: &crate::browse::Step) -> Result<crate::browse::Reply, RespondError> {
        self.browse_step(step)
    }

    /// The waiting screen ([`wait`]).
    fn wait(&mut self, wait: Duration, shown: &Waiting) -> WaitKey {
        self.waiting_screen(wait, shown)
    }
}

#[cfg(test)]
mod sampling_tests;
#[cfg(test)]
mod tests;
