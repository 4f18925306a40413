//! The terminal front end (the only module that imports ratatui and
//! crossterm): [`TuiResponder`] draws each request on the controlling
//! terminal and feeds keys to the form state machine ([`crate::form`]).
//!
//! Terminal handling (stack notes; issue 5 item 5):
//! - the UI opens `/dev/tty` read+write itself, so stdin and stdout carry
//!   data (as fzf does); no `ratatui::init`, no cursor-position queries
//!   (`Terminal::clear` and inline viewports are never used): full-screen
//!   alternate screen, raw mode, bracketed paste, hidden cursor except in
//!   inputs; key events are filtered by `KeyEventKind::Press`;
//! - raw mode and the alternate screen are restored by a `Drop` guard, by a
//!   panic hook that runs before the default hook, and on SIGTERM, SIGHUP,
//!   SIGINT and SIGQUIT sent from outside (a
//!   watcher thread: a request on screen ends with [`Outcome::Quit`] so the
//!   driver can cancel what remains; the watcher then restores the terminal
//!   and exits with 128 + the signal number, after 2 s when the UI was on
//!   screen, at once otherwise);
//! - Ctrl-C cancels the current request; another Ctrl-C within
//!   [`QUIT_WINDOW`] of it (on the next request or while waiting), or a
//!   second Ctrl-C while waiting, quits ([`Outcome::Quit`]);
//! - `Context::deadline` (`--timeout`) cancels an unanswered request.
//!
//! URL-mode requests: [`TuiResponder::respond`] dispatches them to
//! `respond_url`, the one place where the consent view (`url_view`,
//! written separately) is plugged in; until then they get a screen that
//! shows the URL and offers only decline and cancel.

pub mod text;
pub mod theme;
pub mod url_glue;
pub mod url_view;
pub mod view;

use std::cell::Cell;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};
use std::sync::{Mutex, Once};
use std::time::{Duration, Instant};

use crossterm::event::{
    self, DisableBracketedPaste, EnableBracketedPaste, Event, KeyCode, KeyEvent, KeyEventKind,
    KeyModifiers,
};
use crossterm::terminal::{
    disable_raw_mode, enable_raw_mode, EnterAlternateScreen, LeaveAlternateScreen,
};
use crossterm::{cursor, execute};
use ratatui::backend::CrosstermBackend;
use ratatui::{Frame, Terminal};

use crate::binding::{Action, Answer, RequestBody, RequestEvent, RequestView};
use crate::form::{Action as FormAction, Form, Key, Status};
use crate::responder::{Context, Outcome, RespondError, Responder};

pub use theme::Theme;
use view::Header;

/// A second Ctrl-C within this time after one that cancelled a request
/// quits.
pub const QUIT_WINDOW: Duration = Duration::from_millis(1500);

/// How often the loop wakes up to check the deadline and signals.
const TICK: Duration = Duration::from_millis(100);

/// Whether the terminal is currently in raw mode + alternate screen by us.
static ACTIVE: AtomicBool = AtomicBool::new(false);
/// The last SIGTERM/SIGHUP/SIGINT/SIGQUIT received (0: none).
static SIGNAL: AtomicI32 = AtomicI32::new(0);
/// The UI loop is running and will see [`SIGNAL`].
static IN_LOOP: AtomicBool = AtomicBool::new(false);
static HOOKS: Once = Once::new();
/// Held while drawing and while restoring, so a restore from the signal
/// watcher never interleaves with a frame being written.
static TERM_LOCK: Mutex<()> = Mutex::new(());

/// Leave the alternate screen, disable bracketed paste and raw mode, show
/// the cursor; a no-op when the terminal is not ours. Safe to call twice.
pub fn restore_terminal() {
    // Wait for a frame being written to end; a panic inside a draw (the
    // panic hook runs on the thread that holds the lock) or a poisoned lock
    // still restores, after at most ~200 ms.
    let mut _lock = None;
    for _ in 0..40 {
        match TERM_LOCK.try_lock() {
            Ok(g) => {
                _lock = Some(g);
                break;
            }
            Err(std::sync::TryLockError::Poisoned(e)) => {
                _lock = Some(e.into_inner());
                break;
            }
            Err(std::sync::TryLockError::WouldBlock) => {
                std::thread::sleep(Duration::from_millis(5))
            }
        }
    }
    if ACTIVE.swap(false, Ordering::SeqCst) {
        if let Ok(mut tty) = std::fs::OpenOptions::new().write(true).open("/dev/tty") {
            let _ = execute!(
                tty,
                DisableBracketedPaste,
                LeaveAlternateScreen,
                cursor::Show
            );
            let _ = tty.flush();
        }
        let _ = disable_raw_mode();
    }
}

fn install_hooks() {
    HOOKS.call_once(|| {
        let prev = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            restore_terminal();
            prev(info);
        }));
        // SIGINT and SIGQUIT sent from outside (`kill -INT`; the Ctrl-C key
        // is a key event in raw mode) end the run like SIGTERM/SIGHUP.
        let sigs = [
            signal_hook::consts::SIGTERM,
            signal_hook::consts::SIGHUP,
            signal_hook::consts::SIGINT,
            signal_hook::consts::SIGQUIT,
        ];
        if let Ok(mut signals) = signal_hook::iterator::Signals::new(sigs) {
            std::thread::spawn(move || {
                if let Some(sig) = signals.forever().next() {
                    SIGNAL.store(sig, Ordering::SeqCst);
                    // Inside the UI, the loop sees SIGNAL within a tick and
                    // returns Outcome::Quit, so the driver can cancel the
                    // remaining requests and end; give it time to do so.
                    if IN_LOOP.load(Ordering::SeqCst) {
                        std::thread::sleep(Duration::from_secs(2));
                    }
                    restore_terminal();
                    std::process::exit(128 + sig);
                }
            });
        }
    });
}

type Backend = CrosstermBackend<BufWriter<File>>;

/// The terminal, owned; restores itself on drop.
struct Screen {
    term: Terminal<Backend>,
}

impl Screen {
    fn open() -> Result<Self, RespondError> {
        let tty = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open("/dev/tty")
            .map_err(|e| {
                RespondError::Io(format!(
                    "no terminal: cannot open /dev/tty ({e}); use --answers FILE or --action to answer without one"
                ))
            })?;
        install_hooks();
        enable_raw_mode()
            .map_err(|e| RespondError::Io(format!("no terminal: cannot enter raw mode ({e})")))?;
        ACTIVE.store(true, Ordering::SeqCst);
        let mut w = BufWriter::new(tty);
        let setup = execute!(w, EnterAlternateScreen, EnableBracketedPaste, cursor::Hide);
        if let Err(e) = setup {
            restore_terminal();
            return Err(RespondError::Io(format!("terminal: {e}")));
        }
        let term = Terminal::new(CrosstermBackend::new(w)).map_err(|e| {
            restore_terminal();
            RespondError::Io(format!("terminal: {e}"))
        })?;
        Ok(Screen { term })
    }

    fn draw(&mut self, f: impl FnOnce(&mut Frame)) -> Result<(), RespondError> {
        // Never draw once the terminal was given back (a signal restored it
        // from the watcher thread): that would write on the normal screen.
        let _lock = TERM_LOCK.lock();
        if !ACTIVE.load(Ordering::SeqCst) {
            return Ok(());
        }
        self.term
            .draw(f)
            .map(|_| ())
            .map_err(|e| RespondError::Io(format!("terminal: {e}")))
    }
}

impl Drop for Screen {
    /// The restore must be the last thing written to the terminal. Every
    /// draw already flushed its bytes; push out anything still buffered
    /// (`Backend::flush`, not `Terminal::flush`, which would draw a diff
    /// against an empty buffer: blanks at the waiting screen's places), and
    /// mark the cursor shown so ratatui's own `Drop` writes nothing after
    /// the restore.
    fn drop(&mut self) {
        let _lock = TERM_LOCK.lock();
        let _ = ratatui::backend::Backend::flush(self.term.backend_mut());
        let _ = self.term.show_cursor();
        let _ = ratatui::backend::Backend::flush(self.term.backend_mut());
        drop(_lock);
        restore_terminal();
    }
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

/// Translate a crossterm key event into a form [`Key`] (None: ignored).
pub fn translate_key(k: &KeyEvent) -> Option<Key> {
    if k.kind != KeyEventKind::Press {
        return None;
    }
    let ctrl = k.modifiers.contains(KeyModifiers::CONTROL);
    let alt = k.modifiers.contains(KeyModifiers::ALT);
    Some(match k.code {
        KeyCode::Char(c) if ctrl => Key::Ctrl(c.to_ascii_lowercase()),
        KeyCode::Char(c) if alt => Key::Alt(c),
        KeyCode::Char(c) => Key::Char(c),
        KeyCode::Enter => Key::Enter,
        KeyCode::Esc => Key::Esc,
        KeyCode::Tab if k.modifiers.contains(KeyModifiers::SHIFT) => Key::BackTab,
        KeyCode::Tab => Key::Tab,
        KeyCode::BackTab => Key::BackTab,
        KeyCode::Up => Key::Up,
        KeyCode::Down => Key::Down,
        KeyCode::Left if ctrl || alt => Key::WordLeft,
        KeyCode::Right if ctrl || alt => Key::WordRight,
        KeyCode::Left => Key::Left,
        KeyCode::Right => Key::Right,
        KeyCode::Home => Key::Home,
        KeyCode::End => Key::End,
        KeyCode::PageUp => Key::PageUp,
        KeyCode::PageDown => Key::PageDown,
        KeyCode::Backspace if alt => Key::Alt('\u{8}'),
        KeyCode::Backspace => Key::Backspace,
        KeyCode::Delete => Key::Delete,
        _ => return None,
    })
}

/// What one read of the terminal gave.
enum Input {
    Key(Key),
    /// Time passed, or a resize: redraw.
    Tick,
}

fn read_input(timeout: Duration) -> Result<Input, RespondError> {
    let io = |e: std::io::Error| RespondError::Io(format!("terminal: {e}"));
    if !event::poll(timeout).map_err(io)? {
        return Ok(Input::Tick);
    }
    Ok(match event::read().map_err(io)? {
        Event::Key(k) => translate_key(&k).map(Input::Key).unwrap_or(Input::Tick),
        Event::Paste(s) => Input::Key(Key::Paste(s)),
        _ => Input::Tick,
    })
}

/// Discard every input event already waiting (typeahead).
fn discard_typeahead() {
    while event::poll(Duration::ZERO).unwrap_or(false) {
        if event::read().is_err() {
            break;
        }
    }
}

/// How long the URL consent screen must have been on screen before a
/// consent key counts (issue 4 item 3: consent is an explicit act).
pub const CONSENT_GUARD: Duration = Duration::from_millis(400);

/// A terminal [`Responder`]: one full-screen form per request.
pub struct TuiResponder {
    screen: Screen,
    theme: Theme,
    /// When the last Ctrl-C cancelled a request.
    last_ctrl_c: Option<Instant>,
    /// A Ctrl-C was pressed during the current wait.
    wait_armed: bool,
    answered: usize,
    /// Opens a consented URL (issue 4 item 3); taken out while a URL screen
    /// runs.
    launcher: Option<Box<dyn crate::responder::Launcher>>,
    /// `--no-open`: consent shows the URL for copying instead of opening it.
    no_open: bool,
}

/// What a screen's key handler tells the loop ([`TuiResponder::run`]).
pub(crate) enum Step {
    /// Keep the screen.
    Continue,
    /// The request is decided.
    Done(Outcome),
}

struct LoopGuard;
impl LoopGuard {
    fn enter() -> Self {
        IN_LOOP.store(true, Ordering::SeqCst);
        LoopGuard
    }
}
impl Drop for LoopGuard {
    fn drop(&mut self) {
        IN_LOOP.store(false, Ordering::SeqCst);
    }
}

impl TuiResponder {
    /// Open the controlling terminal and take it over (alternate screen,
    /// raw mode, bracketed paste).
    ///
    /// Errors: [`RespondError::Io`] starting with `no terminal:` when
    /// `/dev/tty` cannot be opened (no controlling terminal: exit 2).
    pub fn new(theme: Theme) -> Result<Self, RespondError> {
        Ok(TuiResponder {
            screen: Screen::open()?,
            theme,
            last_ctrl_c: None,
            wait_armed: false,
            answered: 0,
            launcher: Some(Box::new(crate::launcher::SystemBrowser)),
            no_open: false,
        })
    }

    /// Open consented URLs with `launcher` (`--browser CMD`, or the system
    /// browser by default); `no_open` (`--no-open`) shows the URL for copying
    /// after consent; the caller then passes a launcher that opens nothing
    /// ([`NoOpen`](crate::launcher::NoOpen)).
    pub fn with_launcher(
        mut self,
        launcher: Box<dyn crate::responder::Launcher>,
        no_open: bool,
    ) -> Self {
        self.launcher = Some(launcher);
        self.no_open = no_open;
        self
    }

    /// The theme in use.
    pub fn theme(&self) -> &Theme {
        &self.theme
    }

    /// Run one screen: draw with `draw` (frame, theme, seconds left before
    /// the deadline), hand every key except Ctrl-C to `key`, until it
    /// returns [`Step::Done`], the deadline passes (cancel), Ctrl-C (cancel,
    /// or quit when it is the second within [`QUIT_WINDOW`]) or a signal
    /// (quit). Any view (form, refusable, URL consent) runs through here.
    pub(crate) fn run<D, K>(
        &mut self,
        cx: &Context,
        mut draw: D,
        mut key: K,
    ) -> Result<Outcome, RespondError>
    where
        D: FnMut(&mut Frame, &Theme, Option<u64>),
        K: FnMut(&Key) -> Step,
    {
        let _g = LoopGuard::enter();
        // Keys typed before this screen was drawn were meant for something
        // else (the previous request, or a browser that was slow to start):
        // they are discarded, so no answer is given to an unseen screen.
        discard_typeahead();
        loop {
            if SIGNAL.load(Ordering::SeqCst) != 0 {
                return Ok(Outcome::Quit);
            }
            let left = crate::responder::time_left(cx.deadline);
            if left == Some(Duration::ZERO) {
                return Ok(Outcome::Answer(Answer::bare(Action::Cancel)));
            }
            let secs = left.map(|d| d.as_secs() + u64::from(d.subsec_nanos() > 0));
            let theme = &self.theme;
            let mut small = false;
            self.screen.draw(|f| {
                let a = f.area();
                small = a.width < view::MIN_WIDTH || a.height < view::MIN_HEIGHT;
                draw(f, theme, secs)
            })?;
            let timeout = left.map_or(TICK, |l| l.min(TICK));
            match read_input(timeout)? {
                Input::Tick => {}
                // While the screen is too small to show the request, only
                // Esc and Ctrl-C count: nothing is answered blind.
                Input::Key(k) if small && !matches!(k, Key::Esc | Key::Ctrl('c')) => {}
                Input::Key(Key::Esc) if small => {
                    return Ok(Outcome::Answer(Answer::bare(Action::Cancel)));
                }
                Input::Key(Key::Ctrl('c')) => {
                    let now = Instant::now();
                    if self
                        .last_ctrl_c
                        .is_some_and(|t| now.duration_since(t) < QUIT_WINDOW)
                    {
                        return Ok(Outcome::Quit);
                    }
                    self.last_ctrl_c = Some(now);
                    return Ok(Outcome::Answer(Answer::bare(Action::Cancel)));
                }
                Input::Key(k) => {
                    if let Step::Done(o) = key(&k) {
                        return Ok(o);
                    }
                }
            }
        }
    }

    fn respond_form(
        &mut self,
        req: &RequestEvent,
        message: &str,
        schema: &crate::binding::FormSchema,
        cx: &Context,
    ) -> Result<Outcome, RespondError> {
        let mut header = Header::of(req, cx.progress);
        let form = std::cell::RefCell::new(Form::new(schema, message));
        let scroll = Cell::new(0usize);
        // The first frame starts at the top, so the request's message is
        // seen even on a small screen (the focused field shows too when it
        // fits); the first key the form takes scrolls to the focus.
        let follow = Cell::new(false);
        self.run(
            cx,
            |f, theme, secs| {
                header.seconds_left = secs;
                let mut s = scroll.get();
                view::draw_form_view(f, theme, &header, &form.borrow(), &mut s, follow.get());
                scroll.set(s);
            },
            |k| {
                let mut form = form.borrow_mut();
                // Keys the form does not use scroll the view by hand (a long
                // message, a long review).
                if form.action_for(k) == FormAction::None {
                    if let Some(d) = scroll_step(k) {
                        scroll.set(scroll.get().saturating_add_signed(d));
                        follow.set(false);
                        return Step::Continue;
                    }
                }
                follow.set(true);
                match form.handle_key(k) {
                    Status::Open => Step::Continue,
                    Status::Done(a) => Step::Done(Outcome::Answer(a)),
                }
            },
        )
    }

    /// A screen that offers only Decline and Cancel.
    fn respond_refusable(
        &mut self,
        req: &RequestEvent,
        lines: Vec<(String, bool)>,
        cx: &Context,
    ) -> Result<Outcome, RespondError> {
        let mut header = Header::of(req, cx.progress);
        let focus = Cell::new(0usize);
        let scroll = Cell::new(0usize);
        self.run(
            cx,
            |f, theme, secs| {
                header.seconds_left = secs;
                let mut s = scroll.get();
                view::draw_refusable(f, theme, &header, &lines, focus.get(), &mut s);
                scroll.set(s);
            },
            |k| match k {
                Key::Esc => Step::Done(Outcome::Answer(Answer::bare(Action::Cancel))),
                Key::Ctrl('d') | Key::Char('d') => {
                    Step::Done(Outcome::Answer(Answer::bare(Action::Decline)))
                }
                Key::Tab | Key::BackTab | Key::Left | Key::Right => {
                    focus.set(1 - focus.get().min(1));
                    Step::Continue
                }
                Key::Enter | Key::Char(' ') => {
                    Step::Done(Outcome::Answer(Answer::bare(if focus.get() == 0 {
                        Action::Decline
                    } else {
                        Action::Cancel
                    })))
                }
                k => {
                    if let Some(d) = scroll_step(k) {
                        scroll.set(scroll.get().saturating_add_signed(d));
                    }
                    Step::Continue
                }
            },
        )
    }

    /// URL mode (issue 4): the consent view (`url_view`). Consent is an
    /// explicit act (focus starts on Decline; `o` or the Open button), then
    /// and only then the launcher opens the URL; a failed launch offers
    /// retry, copy or give up (cancel).
    fn respond_url(
        &mut self,
        req: &RequestEvent,
        message: &str,
        url: &str,
        cx: &Context,
    ) -> Result<Outcome, RespondError> {
        let header = Header::of(req, cx.progress);
        let server = match (&header.server_title, &header.server_version) {
            (Some(t), Some(v)) => format!("{t} ({} {v})", header.server_name),
            (Some(t), None) => format!("{t} ({})", header.server_name),
            (None, Some(v)) => format!("{} {v}", header.server_name),
            (None, None) => header.server_name.clone(),
        };
        let progress = format!("request {} of {}", cx.progress.index, cx.progress.total);
        let state = std::cell::RefCell::new(url_view::UrlViewState::new(
            crate::url_review::review(url),
            message,
            server,
            format!("{} (as reported by the adapter)", header.adapter),
            progress,
        ));
        let styles = url_glue::url_styles(&self.theme);
        let mut launcher = self
            .launcher
            .take()
            .unwrap_or_else(|| Box::new(crate::launcher::NoOpen::default()));
        let no_open = self.no_open;
        let shown = Instant::now();
        let out = self.run(
            cx,
            |f, theme, _secs| {
                if view::too_small(f, theme) {
                    return;
                }
                let area = f.area();
                url_view::draw(f, area, &state.borrow(), &styles);
            },
            |k| {
                let Some(ev) = url_glue::key_event(k) else {
                    return Step::Continue;
                };
                let mut st = state.borrow_mut();
                let Some(decision) = url_view::handle_key(&mut st, ev) else {
                    return Step::Continue;
                };
                // Consent needs the screen to have been seen: a consent key
                // within CONSENT_GUARD of the screen appearing is ignored.
                if matches!(decision, url_view::UrlDecision::Consent)
                    && shown.elapsed() < CONSENT_GUARD
                {
                    return Step::Continue;
                }
                match url_view::apply(&mut st, decision, launcher.as_mut(), no_open).action {
                    Some(a) => Step::Done(Outcome::Answer(Answer::bare(a))),
                    None => Step::Continue,
                }
            },
        );
        self.launcher = Some(launcher);
        out
    }
}

impl Responder for TuiResponder {
    fn respond(&mut self, req: &RequestEvent, cx: &Context) -> Result<Outcome, RespondError> {
        self.wait_armed = false;
        let out =
            match &req.view {
                RequestView::Body(r) => match &r.body {
                    RequestBody::Form(s) => self.respond_form(req, &r.message, s, cx),
                    RequestBody::Url { url, .. } => self.respond_url(req, &r.message, url, cx),
                },
                other => {
                    let lines =
                        vec![
                    ("This request cannot be answered with content.".to_owned(), true),
                    (format!("mode: {}", req.mode.as_str()), false),
                    (other.describe().unwrap_or_default(), false),
                    (String::new(), false),
                    (
                        "It is not an executable request: you can only decline or cancel it."
                            .to_owned(),
                        false,
                    ),
                ];
                    self.respond_refusable(req, lines, cx)
                }
            };
        if out.is_ok() {
            self.answered += 1;
        }
        out
    }

    fn idle(&mut self, wait: Duration) -> bool {
        let _g = LoopGuard::enter();
        let end = Instant::now() + wait;
        loop {
            if SIGNAL.load(Ordering::SeqCst) != 0 {
                return true;
            }
            // Messages held until exit (e.g. bad input lines) are counted
            // here, so errors are seen while waiting.
            let held = crate::notice::held_summary().map(|(n, latest)| {
                let s = if n == 1 { "" } else { "s" };
                let latest = crate::safe_text::display(&latest).into_owned();
                format!("{n} message{s} shown on exit; latest: {latest}")
            });
            let notice = match self.wait_armed {
                true => {
                    Some("Press Ctrl-C again to quit (the remaining requests will be cancelled).")
                }
                false => held.as_deref(),
            };
            let (theme, answered) = (&self.theme, self.answered);
            if self
                .screen
                .draw(|f| view::draw_waiting(f, theme, answered, notice))
                .is_err()
            {
                return false;
            }
            let now = Instant::now();
            if now >= end {
                return false;
            }
            match read_input((end - now).min(TICK)) {
                Ok(Input::Key(Key::Ctrl('c'))) => {
                    let recent = self
                        .last_ctrl_c
                        .is_some_and(|t| Instant::now().duration_since(t) < QUIT_WINDOW);
                    if self.wait_armed || recent {
                        return true;
                    }
                    self.wait_armed = true;
                }
                Ok(_) => {}
                Err(_) => return false,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crossterm::event::KeyEventState;

    fn ev(code: KeyCode, mods: KeyModifiers, kind: KeyEventKind) -> KeyEvent {
        KeyEvent {
            code,
            modifiers: mods,
            kind,
            state: KeyEventState::NONE,
        }
    }

    #[test]
    fn keys_translate_and_releases_are_ignored() {
        let p = KeyEventKind::Press;
        assert_eq!(
            translate_key(&ev(KeyCode::Char('C'), KeyModifiers::CONTROL, p)),
            Some(Key::Ctrl('c'))
        );
        assert_eq!(
            translate_key(&ev(KeyCode::Char('x'), KeyModifiers::NONE, p)),
            Some(Key::Char('x'))
        );
        assert_eq!(
            translate_key(&ev(KeyCode::Tab, KeyModifiers::SHIFT, p)),
            Some(Key::BackTab)
        );
        assert_eq!(
            translate_key(&ev(KeyCode::Left, KeyModifiers::CONTROL, p)),
            Some(Key::WordLeft)
        );
        assert_eq!(
            translate_key(&ev(
                KeyCode::Char('x'),
                KeyModifiers::NONE,
                KeyEventKind::Release
            )),
            None
        );
        assert_eq!(
            translate_key(&ev(
                KeyCode::Char('x'),
                KeyModifiers::NONE,
                KeyEventKind::Repeat
            )),
            None
        );
    }
}
