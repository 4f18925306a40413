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
//! Every request screen (form, refusable, URL consent; `screens`)
//! implements one `Screen` trait and runs through one loop
//! (`TuiResponder::run`), which owns the terminal, the consent guard, the
//! deadline, Ctrl-C and signals; the screens share the scroll window, the
//! button row and the help line ([`chrome`]) and draw with the [`Theme`].

#[cfg(feature = "internals")]
#[doc(hidden)]
pub mod background;
#[cfg(not(feature = "internals"))]
pub(crate) mod background;
mod browse;
#[cfg(feature = "internals")]
#[doc(hidden)]
pub mod chrome;
#[cfg(not(feature = "internals"))]
pub(crate) mod chrome;
mod editor;
#[cfg(feature = "internals")]
#[doc(hidden)]
pub mod guard;
#[cfg(not(feature = "internals"))]
pub(crate) mod guard;
#[cfg(feature = "internals")]
#[doc(hidden)]
pub mod keys;
#[cfg(not(feature = "internals"))]
pub(crate) mod keys;
mod link;
#[cfg(feature = "internals")]
#[doc(hidden)]
pub mod picker;
#[cfg(not(feature = "internals"))]
pub(crate) mod picker;
#[cfg(feature = "internals")]
#[doc(hidden)]
pub mod result_view;
#[cfg(not(feature = "internals"))]
pub(crate) mod result_view;
mod screens;
#[cfg(feature = "internals")]
#[doc(hidden)]
pub mod text;
#[cfg(not(feature = "internals"))]
pub(crate) mod text;
pub mod theme;
#[cfg(feature = "internals")]
#[doc(hidden)]
pub mod url_view;
#[cfg(not(feature = "internals"))]
pub(crate) mod url_view;
#[cfg(feature = "internals")]
#[doc(hidden)]
pub mod view;
#[cfg(not(feature = "internals"))]
pub(crate) mod view;

use std::fs::File;
use std::io::{BufWriter, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;
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
use crate::form::Key;
use crate::responder::{Context, Outcome, RespondError, Responder, WaitKey, Waiting};
use screens::{FormScreen, RefusableScreen, Screen, Step, UrlScreen};

pub use theme::Theme;
use view::Header;

pub(crate) use crate::responder::QUIT_WINDOW;

/// How often the loop wakes up to check the deadline and signals.
const TICK: Duration = Duration::from_millis(100);

/// Whether the terminal is currently in raw mode + alternate screen by us.
static ACTIVE: AtomicBool = AtomicBool::new(false);
/// The terminal was given back for a stop (SIGTSTP) and is taken back
/// when the process continues.
static SUSPENDED: AtomicBool = AtomicBool::new(false);
/// The terminal was taken back after a stop: the next frame clears the
/// screen and is drawn whole.
static REPAINT: AtomicBool = AtomicBool::new(false);
/// Held while drawing and while restoring, so a restore from the signal
/// watcher never interleaves with a frame being written.
static TERM_LOCK: Mutex<()> = Mutex::new(());

/// Leave the alternate screen, disable bracketed paste and raw mode, show
/// the cursor; a no-op when the terminal is not ours. Safe to call twice.
pub fn restore_terminal() {
    give_back();
}

/// [`restore_terminal`]; true when the terminal was ours.
fn give_back() -> bool {
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
    let ours = ACTIVE.swap(false, Ordering::SeqCst);
    if ours {
        if let Ok(mut tty) = std::fs::OpenOptions::new().write(true).open("/dev/tty") {
            // The saved window title first: after leaving the alternate
            // screen only the cursor is shown.
            let _ = tty.write_all(b"\x1b[23;0t");
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
    ours
}

/// Give the terminal back for a stop, to be taken again by
/// [`resume_terminal`]; a no-op when it is not ours.
fn suspend_terminal() {
    if give_back() {
        SUSPENDED.store(true, Ordering::SeqCst);
    }
}

/// After a stop: raw mode, the alternate screen, bracketed paste and the
/// hidden cursor again, and a whole repaint at the next frame. A terminal
/// that was ours and not given back (a stop by SIGSTOP, after which the
/// shell may have put it in line mode) has its mode set again.
fn resume_terminal() {
    let _lock = TERM_LOCK.lock().unwrap_or_else(|e| e.into_inner());
    let was_given_back = SUSPENDED.swap(false, Ordering::SeqCst);
    if !was_given_back && !ACTIVE.load(Ordering::SeqCst) {
        return;
    }
    if !was_given_back {
        // crossterm keeps raw mode as set: set it again from the mode the
        // terminal has now.
        let _ = disable_raw_mode();
    }
    if enable_raw_mode().is_err() {
        return;
    }
    ACTIVE.store(true, Ordering::SeqCst);
    if let Ok(mut tty) = std::fs::OpenOptions::new().write(true).open("/dev/tty") {
        let _ = enter_screen(&mut tty, was_given_back);
    }
    REPAINT.store(true, Ordering::SeqCst);
}

/// Take the screen: save the window title (`save_title`; xterm's title
/// stack: `--notify` sets it while a request waits, and it is put back when
/// the terminal is given back), enter the alternate screen, enable
/// bracketed paste, hide the cursor.
fn enter_screen(w: &mut impl Write, save_title: bool) -> std::io::Result<()> {
    if save_title {
        w.write_all(b"\x1b[22;0t")?;
    }
    execute!(w, EnterAlternateScreen, EnableBracketedPaste, cursor::Hide)
}

/// The full-screen terminal, given back and taken again by
/// [`crate::signals`].
static SIGNALS: crate::signals::Terminal = crate::signals::Terminal {
    restore: restore_terminal,
    suspend: suspend_terminal,
    resume: resume_terminal,
};

type Backend = CrosstermBackend<BufWriter<File>>;

/// The terminal, owned; restores itself on drop.
struct Tty {
    term: Terminal<Backend>,
}

impl Tty {
    fn open() -> Result<Self, RespondError> {
        let tty = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open("/dev/tty")
            .map_err(|source| RespondError::NoTerminal {
                step: "cannot open /dev/tty",
                source,
            })?;
        crate::signals::own_terminal(&SIGNALS);
        enable_raw_mode().map_err(|source| RespondError::NoTerminal {
            step: "cannot enter raw mode",
            source,
        })?;
        ACTIVE.store(true, Ordering::SeqCst);
        let mut w = BufWriter::new(tty);
        let setup = enter_screen(&mut w, true);
        if let Err(e) = setup {
            restore_terminal();
            return Err(RespondError::Terminal {
                step: "set up the screen",
                source: e,
            });
        }
        let term = Terminal::new(CrosstermBackend::new(w)).map_err(|e| {
            restore_terminal();
            RespondError::Terminal {
                step: "set up the screen",
                source: e,
            }
        })?;
        Ok(Tty { term })
    }

    /// Take the terminal back after another program used it (raw mode,
    /// the alternate screen, bracketed paste; the next frame is drawn
    /// whole).
    fn resume(&mut self) -> Result<(), RespondError> {
        let failed = |source| RespondError::Terminal {
            step: "take the terminal back",
            source,
        };
        enable_raw_mode().map_err(failed)?;
        ACTIVE.store(true, Ordering::SeqCst);
        let w = self.term.backend_mut();
        enter_screen(w, false).map_err(failed)?;
        self.term.swap_buffers();
        Ok(())
    }

    /// Clear the terminal and forget the last frame, so the next draw
    /// writes every cell.
    fn clear(&mut self) -> Result<(), RespondError> {
        let _lock = TERM_LOCK.lock();
        if !ACTIVE.load(Ordering::SeqCst) {
            return Ok(());
        }
        // Not `Terminal::clear`, which asks the terminal where the cursor
        // is: blank the last frame ratatui remembers, so the next draw
        // writes every cell, and erase the screen.
        self.term.swap_buffers();
        let backend = self.term.backend_mut();
        ratatui::backend::Backend::clear_region(backend, ratatui::backend::ClearType::All)
            .and_then(|()| ratatui::backend::Backend::flush(backend))
            .map_err(|source| RespondError::Terminal {
                step: "clear the screen",
                source,
            })
    }

    /// Write `bytes` (a title, a bell: nothing that moves the cursor) to
    /// the terminal as they are; nothing once the terminal was given back.
    fn write_raw(&mut self, bytes: &[u8]) {
        let _lock = TERM_LOCK.lock();
        if bytes.is_empty() || !ACTIVE.load(Ordering::SeqCst) {
            return;
        }
        let w = self.term.backend_mut();
        let _ = w.write_all(bytes).and_then(|()| w.flush());
    }

    /// Write `bytes` over the frame just drawn (the same cells again, as a
    /// hyperlink: [`link`]); nothing once the terminal was given back. The
    /// next frame places the cursor itself (ratatui moves to each cell run
    /// it draws).
    fn write_over(&mut self, bytes: &[u8]) {
        self.write_raw(bytes);
    }

    fn draw(&mut self, f: impl FnOnce(&mut Frame)) -> Result<(), RespondError> {
        // Never draw once the terminal was given back (a signal restored it
        // from the watcher thread): that would write on the normal screen.
        let _lock = TERM_LOCK.lock();
        if !ACTIVE.load(Ordering::SeqCst) {
            return Ok(());
        }
        self.term
            .draw(|frame| {
                f(frame);
                text::settle_wide(frame.buffer_mut());
            })
            .map(|_| ())
            .map_err(|source| RespondError::Terminal {
                step: "draw",
                source,
            })
    }
}

impl Drop for Tty {
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
        KeyCode::Enter if alt => Key::Alt('\n'),
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

thread_local! {
    /// Keys read from the terminal, through the ESC and terminal-reply
    /// filter ([`keys::KeyFilter`]).
    static FILTER: std::cell::RefCell<keys::KeyFilter> =
        std::cell::RefCell::new(keys::KeyFilter::default());
    /// Inputs the filter let through that were not returned yet (a held Esc
    /// followed by another event gives two at once).
    static QUEUED: std::cell::RefCell<std::collections::VecDeque<Input>> =
        const { std::cell::RefCell::new(std::collections::VecDeque::new()) };
}

/// How often a waiting screen looks for a request that became ready while
/// it reads keys, when it cannot be woken ([`read_input_in_steps`]).
const ASKED_POLL: Duration = Duration::from_millis(5);

/// [`read_input`] for a waiting screen: reads keys for at most `timeout`
/// and stops early with `None` when a request is ready for the responder
/// ([`crate::responder::request_waiting`]), so its form is drawn at once
/// rather than at the end of the slice. The screen sleeps on the terminal
/// and on the arrival pipe together ([`crate::responder::wake`]): a key or
/// an arrival wakes it, nothing else. With `heed` false, one plain read of
/// `timeout`.
fn read_input_until_asked(timeout: Duration, heed: bool) -> Result<Option<Input>, RespondError> {
    if !heed {
        return read_input(timeout, false).map(Some);
    }
    let (Some(watch), Some(keys)) = (crate::responder::wake::watch(), key_fd()) else {
        return read_input_in_steps(timeout);
    };
    let end = Instant::now() + timeout;
    loop {
        // Emptied before the look, so an arrival after it wakes the wait.
        watch.drain();
        if crate::responder::request_waiting() {
            return Ok(None);
        }
        // What the terminal gave (read without waiting), and keys the
        // filter held that are due.
        match read_input(READ_NOW, false)? {
            Input::Tick => {}
            i => return Ok(Some(i)),
        }
        let now = Instant::now();
        if now >= end {
            return Ok(Some(Input::Tick));
        }
        let until = FILTER
            .with(|f| f.borrow().due())
            .map_or(end, |d| d.min(end));
        wait_readable(&[keys, watch.fd()], until.saturating_duration_since(now));
    }
}

/// The timeout of a read that must not wait: crossterm reads the terminal
/// only for a timeout above zero (with zero it gives only events it
/// already parsed); this one rounds to a poll(2) of 0 ms.
const READ_NOW: Duration = Duration::from_micros(1);

/// [`read_input_until_asked`] without the arrival pipe: keys read in steps
/// of [`ASKED_POLL`], looking for a waiting request between them.
fn read_input_in_steps(timeout: Duration) -> Result<Option<Input>, RespondError> {
    let end = Instant::now() + timeout;
    loop {
        if crate::responder::request_waiting() {
            return Ok(None);
        }
        let now = Instant::now();
        let step = end.saturating_duration_since(now).min(ASKED_POLL);
        match read_input(step, false)? {
            Input::Tick if Instant::now() < end => continue,
            i => return Ok(Some(i)),
        }
    }
}

/// The descriptor keys come from, as crossterm reads them: standard input
/// when it is a terminal, else `/dev/tty` (opened once, only to wait on).
fn key_fd() -> Option<std::os::fd::RawFd> {
    use std::os::fd::AsRawFd;
    static DEV_TTY: std::sync::OnceLock<Option<std::fs::File>> = std::sync::OnceLock::new();
    // SAFETY: isatty(3) on the standard input's descriptor.
    if unsafe { libc::isatty(libc::STDIN_FILENO) } == 1 {
        return Some(libc::STDIN_FILENO);
    }
    DEV_TTY
        .get_or_init(|| std::fs::File::open("/dev/tty").ok())
        .as_ref()
        .map(|f| f.as_raw_fd())
}

/// Sleep until one of `fds` is readable or `wait` has passed (a signal
/// ends it early too; the caller looks again either way).
fn wait_readable(fds: &[std::os::fd::RawFd], wait: Duration) {
    let mut polled: Vec<libc::pollfd> = fds
        .iter()
        .map(|&fd| libc::pollfd {
            fd,
            events: libc::POLLIN,
            revents: 0,
        })
        .collect();
    // Rounded up: a wait cut to 0 ms would spin until its end.
    let ms = wait.as_micros().div_ceil(1000).min(i32::MAX as u128) as libc::c_int;
    // SAFETY: poll(2) on a live array of pollfd of the length given.
    unsafe {
        libc::poll(polled.as_mut_ptr(), polled.len() as libc::nfds_t, ms);
    }
}

/// One input, waiting at most `timeout`: keys pass the [`keys::KeyFilter`]
/// (an Esc is held for [`keys::ESC_WAIT`] and becomes Alt with a key that
/// follows it; replies of the terminal are dropped), pastes pass as they
/// are, anything else is a tick. `esc_discards`: a lone Esc read now would
/// throw typed answers away (it is held longer,
/// [`keys::KeyFilter::set_esc_discards`]).
fn read_input(timeout: Duration, esc_discards: bool) -> Result<Input, RespondError> {
    if let Some(i) = QUEUED.with(|q| q.borrow_mut().pop_front()) {
        return Ok(i);
    }
    reply_left_by_the_query();
    FILTER.with(|f| f.borrow_mut().set_esc_discards(esc_discards));
    let io = |source| RespondError::Terminal {
        step: "read a key",
        source,
    };
    let now = Instant::now();
    let due = FILTER.with(|f| f.borrow().due());
    let wait = due.map_or(timeout, |d| d.saturating_duration_since(now).min(timeout));
    if !event::poll(wait).map_err(io)? {
        let held = FILTER.with(|f| f.borrow_mut().flush(Instant::now()));
        return QUEUED.with(|q| {
            let mut q = q.borrow_mut();
            q.extend(held.iter().filter_map(translate_key).map(Input::Key));
            Ok(q.pop_front().unwrap_or(Input::Tick))
        });
    }
    loop {
        let ev = event::read().map_err(io)?;
        let now = Instant::now();
        let keys: Vec<KeyEvent> = match &ev {
            Event::Key(k) if k.kind == KeyEventKind::Press => {
                FILTER.with(|f| f.borrow_mut().feed(*k, now))
            }
            // Another event ends a held Esc (it was a lone Esc).
            _ => FILTER.with(|f| f.borrow_mut().flush_now()),
        };
        let next = QUEUED.with(|q| {
            let mut q = q.borrow_mut();
            q.extend(keys.iter().filter_map(translate_key).map(Input::Key));
            if let Event::Paste(s) = ev {
                q.push_back(Input::Key(Key::Paste(s)));
            }
            q.pop_front()
        });
        if let Some(i) = next {
            return Ok(i);
        }
        // The filter holds what it read: events already waiting (read in
        // the same burst) are read now, before a frame is drawn, so the
        // filter sees them as close together as they came.
        if !event::poll(Duration::ZERO).map_err(io)? {
            return Ok(Input::Tick);
        }
    }
}

/// A reply the background query read the start of: the filter drops its
/// rest when it arrives as keys (once per process).
fn reply_left_by_the_query() {
    if let Some((left, at)) = background::take_reply_left() {
        FILTER.with(|f| f.borrow_mut().rest_of_reply(left, at));
    }
}

/// Discard every input event already waiting (typeahead), with a held Esc
/// and characters held after one; a terminal reply partly read (or one
/// that may follow an Esc) is still dropped when its rest comes
/// ([`keys::KeyFilter::discarded`]).
fn discard_typeahead() {
    reply_left_by_the_query();
    while event::poll(Duration::ZERO).unwrap_or(false) {
        match event::read() {
            Ok(Event::Key(k)) if k.kind == KeyEventKind::Press => {
                // Read through the filter, so a reply's state follows it.
                FILTER.with(|f| f.borrow_mut().feed(k, Instant::now()));
            }
            Ok(_) => {}
            Err(_) => break,
        }
    }
    QUEUED.with(|q| q.borrow_mut().clear());
    FILTER.with(|f| f.borrow_mut().discarded());
}

/// How long the URL consent screen must have been on screen, whole and
/// untouched, before its keys count (consent is an explicit act; see
/// [`guard`]): the consent machine's period.
pub use crate::consent::CONSENT_GUARD;

/// The same grace period for forms and refusable screens: keys typed for
/// the previous request never answer the next one.
pub const FORM_GUARD: Duration = Duration::from_millis(300);

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
    /// `--no-open`: consent shows the URL for copying instead of opening it.
    no_open: bool,
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
}

/// Why a field edited in the outside editor (`$VISUAL`, `$EDITOR`, `vi`)
/// is unchanged; the sentence is said in the form's notice.
#[derive(Debug, thiserror::Error)]
enum EditError {
    /// The private temporary file could not be made or written.
    #[error("cannot prepare the editor's file: {0}")]
    Prepare(#[source] std::io::Error),
    /// The terminal could not be taken back after the editor.
    #[error("{0}")]
    Resume(#[source] RespondError),
    /// The editor ended with a failure status.
    #[error("the editor ({editor}) failed ({status}): the field is unchanged")]
    Failed {
        /// The editor command as run.
        editor: String,
        /// How it ended.
        status: std::process::ExitStatus,
    },
    /// The editor could not be started.
    #[error("the editor ({editor}) did not start: {source}")]
    NoStart {
        /// The editor command as run.
        editor: String,
        /// The operating system's error.
        #[source]
        source: std::io::Error,
    },
    /// The file could not be read back.
    #[error("cannot read the editor's file: {0}")]
    Read(#[source] std::io::Error),
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
            no_open: false,
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
        self.no_open = no_open;
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
            let clock = left.zip(extend).map(|(l, e)| screens::Clock {
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

    /// Ctrl-O on `screen`: refused with a note (a secret), the screen
    /// ended for its owner to edit everything (Some outcome: the arguments
    /// of a tool), or the focused text field edited in the outside editor;
    /// while the editor has the terminal the clock stands still (the
    /// `deadline` moves on by that time) and afterwards the `guard` starts
    /// again. The editor's failures are said as the screen's note.
    fn editor_key(
        &mut self,
        screen: &mut dyn Screen,
        deadline: &mut Option<Instant>,
        guard: &mut guard::ConsentGuard,
    ) -> Option<Outcome> {
        if let Some(why) = screen.editor_refused() {
            screen.put_note(why);
            return None;
        }
        if let Some(o) = screen.edit_whole() {
            return Some(o);
        }
        if let Some(text) = screen.text_to_edit() {
            let opened = Instant::now();
            let edited = self.edit_outside(&text);
            if let Some(d) = deadline.as_mut() {
                *d += opened.elapsed();
            }
            match edited {
                Ok(t) => screen.put_edited(t),
                Err(e) => screen.put_note(e.to_string()),
            }
            discard_typeahead();
            *guard = guard::ConsentGuard::new(screen.grace());
            self.repaint = true;
        }
        None
    }

    /// The request on screen was withdrawn by its source: say how (in
    /// its own words for each way, with the server's reason if it gave
    /// one) until a key that passes the guard (a key typed for the
    /// withdrawn screen neither dismisses the notice unseen nor reaches the
    /// next request), Ctrl-C or a signal. The answer returned is never sent.
    fn withdrawn_notice(&mut self, cx: &Context) -> Result<Outcome, RespondError> {
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
    fn show_notice(&mut self, notice: &Notice) -> Result<Option<Outcome>, RespondError> {
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
                view::draw_notice(f, theme, &notice.title, &notice.lines);
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
    fn acknowledge_pending(&mut self) -> Result<bool, RespondError> {
        let Some(notice) = self.pending.take() else {
            return Ok(false);
        };
        let _busy = crate::signals::busy();
        match self.show_notice(&notice)? {
            Some(Outcome::Quit) => Ok(true),
            _ => Ok(false),
        }
    }

    /// Give the terminal to `$VISUAL` (else `$EDITOR`, else `vi`) on a
    /// private temporary file holding `text`, and take it back; returns the
    /// file's text, one final line end removed.
    ///
    /// Errors: [`EditError`], said in the form's notice.
    fn edit_outside(&mut self, text: &str) -> Result<String, EditError> {
        let editor = std::env::var("VISUAL")
            .ok()
            .filter(|e| !e.trim().is_empty())
            .or_else(|| {
                std::env::var("EDITOR")
                    .ok()
                    .filter(|e| !e.trim().is_empty())
            })
            .unwrap_or_else(|| "vi".to_owned());
        let dir = std::env::temp_dir();
        let path = dir.join(format!(
            "ahp-elicit-{}-{}.txt",
            std::process::id(),
            rand_suffix()
        ));
        // The file ends with a line break, as editors write it back; one
        // final line break is taken off when it is read. Control
        // characters (a server's default may hold ESC or BEL) are written
        // as visible escapes. From here until it is removed, a signal
        // removes the file and ends the editor.
        editor::track(&path);
        if let Err(e) = new_private_file(&path).and_then(|mut f| {
            f.write_all(format!("{}\n", editor::escape_controls(text)).as_bytes())
        }) {
            editor::done();
            let _ = std::fs::remove_file(&path);
            return Err(EditError::Prepare(e));
        }
        // The editor talks to the terminal the form is on, never to the
        // program's stdin and stdout, which carry events and results.
        let tty = |write: bool| {
            std::fs::OpenOptions::new()
                .read(!write)
                .write(write)
                .open("/dev/tty")
        };
        let (tty_in, tty_out, tty_err) = match (tty(false), tty(true), tty(true)) {
            (Ok(i), Ok(o), Ok(e)) => (i, o, e),
            (Err(e), _, _) | (_, Err(e), _) | (_, _, Err(e)) => {
                editor::done();
                let _ = std::fs::remove_file(&path);
                return Err(EditError::Prepare(e));
            }
        };
        restore_terminal();
        // The editor is run as the shell runs it (`$EDITOR` may hold
        // arguments), with the file as its last argument; the shell
        // becomes the editor (`exec`), so ending its process ends it.
        let status = editor::run(
            std::process::Command::new("sh")
                .arg("-c")
                .arg(format!("exec {editor} \"$1\""))
                .arg("sh")
                .arg(&path)
                .stdin(tty_in)
                .stdout(tty_out)
                .stderr(tty_err),
        );
        // A signal ends the run (it ended the editor): the terminal is not
        // taken again, so it stays as it was given back.
        let back = match crate::signals::received() {
            Some(_) => Err(RespondError::Terminal {
                step: "take the terminal back",
                source: std::io::Error::other("a signal ends the run"),
            }),
            None => self.tty.resume(),
        };
        let read = std::fs::read_to_string(&path);
        editor::done();
        let _ = std::fs::remove_file(&path);
        back.map_err(EditError::Resume)?;
        match status {
            Ok(s) if s.success() => {}
            Ok(status) => return Err(EditError::Failed { editor, status }),
            Err(source) => return Err(EditError::NoStart { editor, source }),
        }
        let mut t = read.map_err(EditError::Read)?;
        if t.ends_with('\n') {
            t.pop();
            if t.ends_with('\r') {
                t.pop();
            }
        }
        Ok(t)
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
        clock: Option<screens::Clock>,
        guard: &mut guard::ConsentGuard,
    ) -> Result<bool, RespondError> {
        self.clear_if_asked()?;
        let theme = &self.theme;
        let mut small = false;
        let mut area = ratatui::layout::Rect::default();
        let mut over = Vec::new();
        self.tty.draw(|f| {
            area = f.area();
            small = area.width < view::MIN_WIDTH || area.height < view::MIN_HEIGHT;
            small |= !screen.draw(f, theme, clock);
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
            Key::Esc if small => {
                self.block_pending = false;
                if !screen.changed() {
                    return Some(Outcome::Answer(Answer::bare(Action::Cancel)));
                }
                match screen.key(&k) {
                    Step::Done(o) => Some(o),
                    Step::Continue => None,
                }
            }
            _ if small => None,
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

    /// URL mode: the consent screen ([`url_view`]) with the launcher, which
    /// is given back afterwards.
    fn respond_url(
        &mut self,
        req: &RequestEvent,
        message: &str,
        url: &str,
        cx: &Context,
    ) -> Result<Outcome, RespondError> {
        let header = Header::of(req, cx.progress).with_origin(cx.origin());
        let mut state = url_view::UrlViewState::new(
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

use crate::responder::notify::Notify;
use crate::responder::notify::{notify_bytes, NOTIFY_AFTER};

/// The key that declines the request on screen and every later one from
/// the same server, for this run, without showing them.
const BLOCK: Key = Key::Ctrl('n');

/// [`BLOCK`] as the help and the docs name it.
pub const BLOCK_KEY: &str = "Ctrl-N";

/// The key that opens the focused text field in `$VISUAL` / `$EDITOR`.
const EDITOR: Key = Key::Ctrl('o');

/// The key that extends the deadline ([`view::EXTEND_KEY`]).
const EXTEND: Key = Key::Ctrl('t');

/// A duration rounded up to whole seconds.
fn whole_secs(d: Duration) -> Duration {
    Duration::from_secs(d.as_secs() + u64::from(d.subsec_nanos() > 0))
}

/// Most columns of a launch command named in the Ctrl-N report (the rest
/// is cut, "…").
const BLOCKED_LAUNCH_COLS: usize = 60;

/// A server declined with [`BLOCK`], as the run's report names it: the name
/// it gives itself and, when known, how it was launched (cut to
/// [`BLOCKED_LAUNCH_COLS`] columns, ending with "…" when cut), both
/// sanitized.
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

fn blocked_label(launched: &str, name: &str) -> String {
    let n = crate::safe_text::display(name).into_owned();
    if launched.is_empty() {
        return n;
    }
    let l = text::clip(launched, BLOCKED_LAUNCH_COLS);
    format!("{n} ({})", crate::safe_text::display(&l))
}

/// Which request a notice is about: "request N of M".
fn screen_label(cx: &Context) -> String {
    let p = cx.progress_now();
    format!("request {} of {}", p.index, p.total)
}

/// A full-screen notice that waits for a key: how a request ended.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Notice {
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
    fn timed_out(cx: &Context, extend: Option<Duration>) -> Self {
        let mut lines = vec![format!("It was {}.", screen_label(cx))];
        if let Some(e) = extend {
            lines.push(format!(
                "Next time, {} gives a request {}s more while it is on screen.",
                view::EXTEND_KEY,
                e.as_secs()
            ));
        }
        Notice {
            title: cx.timed_out_notice().to_owned(),
            lines,
        }
    }
}

/// Create `path`, which must not exist yet (no symbolic link followed),
/// readable and writable by the owner only.
fn new_private_file(path: &std::path::Path) -> std::io::Result<File> {
    let mut o = std::fs::OpenOptions::new();
    o.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut o, 0o600);
    o.open(path)
}

/// A few characters that make a temporary file's name unlikely to be
/// guessed before it exists (it is also created exclusively, 0600).
fn rand_suffix() -> String {
    use std::hash::{BuildHasher, Hasher};
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u128(Instant::now().elapsed().as_nanos());
    format!("{:016x}", h.finish())
}

/// "1 request", "3 requests".
fn requests(n: usize) -> String {
    if n == 1 {
        "1 request".to_owned()
    } else {
        format!("{n} requests")
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

/// The lines of a request whose view is not executable (`reason`: why).
fn not_executable_lines(req: &RequestEvent, reason: String) -> Vec<(String, bool)> {
    vec![
        (
            "This request cannot be answered with content.".to_owned(),
            true,
        ),
        (format!("mode: {}", req.mode.as_str()), false),
        (reason, false),
        (String::new(), false),
        (
            "It is not an executable request: you can only decline or cancel it.".to_owned(),
            false,
        ),
    ]
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

    fn wait(&mut self, wait: Duration, shown: &Waiting) -> WaitKey {
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
            // A sign-in waiting for the browser is what the screen says.
            let signing_in = crate::mcp::auth::wait::current();
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
            match read_input_until_asked((end - now).min(TICK), heed) {
                // A request is ready: give the thread back to take it.
                Ok(None) => {
                    self.returned_for = Some(taken);
                    return WaitKey::Nothing;
                }
                // Control-C ends the sign-in waiting (exit 3), as at its
                // question; `u` shows its URL in lines.
                Ok(Some(Input::Key(Key::Ctrl('c')))) if signing_in.is_some() => {
                    crate::mcp::auth::wait::cancel();
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
}

impl TuiResponder {
    /// Draw the waiting screen: the sign-in's wait when one is on
    /// (`signing_in`), else what `shown` says.
    fn draw_wait_frame(
        &mut self,
        shown: &Waiting,
        signing_in: Option<&crate::mcp::auth::wait::Waiting>,
        extra: Option<&str>,
    ) -> Result<(), RespondError> {
        let (theme, answered) = (&self.theme, self.answered);
        let Some(w) = signing_in else {
            return self
                .tty
                .draw(|f| view::draw_wait(f, theme, answered, shown, extra))
                .map(|_| ());
        };
        let url = crate::plain::signin::review_sign_in(&w.url).display_url();
        let (waiting, left) = (w.sentence(), w.time_left());
        let s = view::SignInWait {
            waiting: &waiting,
            left: &left,
            url: &url,
        };
        self.tty
            .draw(|f| view::draw_sign_in_wait(f, theme, &s, extra))
            .map(|_| ())
    }

    /// Show the authorization URL of the sign-in waiting in lines on the
    /// terminal (the full screen steps aside), whole and on one line, for
    /// copying; back on Enter, or when the wait ends. Control-C there ends
    /// the sign-in.
    fn show_sign_in_url(&mut self, w: &crate::mcp::auth::wait::Waiting) {
        use crate::mcp::auth::authorizer::SignInError;
        use crate::plain::{LineIo, Reply};
        let url = crate::plain::signin::review_sign_in(&w.url).display_url();
        let sentence = w.sentence();
        let mut job = |io: &mut dyn LineIo| -> Result<(), SignInError> {
            let term = SignInError::Lines;
            io.say("Copy this URL and open it in a browser:")
                .map_err(term)?;
            io.say(&url).map_err(term)?;
            io.say(&sentence).map_err(term)?;
            let ended = || crate::mcp::auth::wait::current().is_none();
            let reply = io
                .ask(
                    "Press Enter to go back (or Control-C to cancel the sign-in): ",
                    None,
                    &ended,
                )
                .map_err(term)?;
            if matches!(reply, Reply::Interrupt | Reply::Quit) {
                crate::mcp::auth::wait::cancel();
            }
            Ok(())
        };
        let _ = Responder::in_lines(self, &mut job);
        self.repaint = true;
    }
}

/// The screen of a request that cannot be answered as a form (compatible
/// schema policy, or a form refused under the strict one): the server's
/// `message` framed as its own words (left out when empty), then why, one
/// reason a line (all sanitised when drawn).
pub fn not_a_form_lines(message: &str, reasons: &[String]) -> Vec<(String, bool)> {
    let mut lines = vec![
        (
            "This request cannot be answered as a form.".to_owned(),
            true,
        ),
        ("mode: form".to_owned(), false),
    ];
    if !message.is_empty() {
        lines.push((String::new(), false));
        lines.push((
            "┌ The server's message (its words, not checked):".to_owned(),
            false,
        ));
        for l in crate::safe_text::display_multiline(message) {
            lines.push((format!("│ {l}"), false));
        }
        lines.push(("└".to_owned(), false));
    }
    lines.push((
        "Its requested schema asks for what a form cannot show or check:".to_owned(),
        false,
    ));
    lines.extend(reasons.iter().map(|r| (format!("  · {r}"), false)));
    lines.push((String::new(), false));
    lines.push(("You can only decline or cancel it.".to_owned(), false));
    lines
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

    /// A Ctrl-N block is kept by the launch: a server that re-initializes
    /// under a new name is still blocked; another launch under the same
    /// name is not. Without a launch, the name tells servers apart.
    #[test]
    fn a_block_is_kept_by_the_launch_not_the_name() {
        let blocked = ("npx srv".to_owned(), "srv".to_owned());
        assert!(same_server(&blocked, &("npx srv".into(), "renamed".into())));
        assert!(!same_server(&blocked, &("npx other".into(), "srv".into())));
        let unlaunched = (String::new(), "srv".to_owned());
        assert!(same_server(&unlaunched, &(String::new(), "srv".into())));
        assert!(!same_server(&unlaunched, &(String::new(), "other".into())));
    }

    #[test]
    fn a_long_launch_command_is_cut_with_an_ellipsis_in_the_ctrl_n_report() {
        let long = format!("npx -y {}", "x".repeat(80));
        let label = blocked_label(&long, "srv");
        assert!(label.starts_with("srv (npx -y xxx"), "{label}");
        assert!(label.ends_with("x…)"), "{label}");
        assert_eq!(text::width(&label), "srv ()".len() + BLOCKED_LAUNCH_COLS);
        // Short: whole; none: the name alone; hostile text sanitized.
        assert_eq!(blocked_label("npx srv", "srv"), "srv (npx srv)");
        assert_eq!(blocked_label("", "srv"), "srv");
        assert_eq!(blocked_label("a\u{1b}[2J", "s"), "s (a\\u{1b}[2J)");
    }

    #[test]
    fn not_a_form_screen_shows_the_server_message_framed_and_sanitised() {
        let server = crate::binding::Server {
            name: "srv".into(),
            title: None,
            version: None,
        };
        let params = serde_json::json!({"message": "Ship\u{1b}[2J where?\nSecond.",
            "requestedSchema": {"type": "object", "properties": {
                "address": {"type": "object"}}}});
        let options = crate::binding::WrapOptions {
            policy: crate::binding::SchemaPolicy::Compatible,
            ..crate::binding::WrapOptions::new(&server, "test", "e-1")
        };
        let req = crate::binding::wrap_request(&params, &options).expect("valid request");
        let RequestView::NotAForm { reasons, .. } = &req.view else {
            panic!("not a form: {req:?}")
        };
        let lines = not_a_form_lines(&crate::responder::request_message(&req), reasons);
        let texts: Vec<&str> = lines.iter().map(|(l, _)| l.as_str()).collect();
        let at = |s: &str| texts.iter().position(|l| *l == s);
        let msg = at("│ Ship\\u{1b}[2J where?").expect("message shown");
        assert_eq!(texts.get(msg + 1), Some(&"│ Second."));
        assert!(at("┌ The server's message (its words, not checked):") < Some(msg));
        let why = at("Its requested schema asks for what a form cannot show or check:");
        assert!(Some(msg) < why, "{texts:?}");
        let none = not_a_form_lines("", reasons);
        assert!(!none.iter().any(|(l, _)| l.starts_with('┌')));
    }

    /// The waiting screen `shown` asks for, at 60x12, as text.
    fn wait_screen(shown: &Waiting) -> String {
        let mut t =
            ratatui::Terminal::new(ratatui::backend::TestBackend::new(60, 12)).expect("terminal");
        let theme = Theme::monochrome();
        t.draw(|f| view::draw_wait(f, &theme, 1, shown, Some("held")))
            .expect("draw");
        let buf = t.backend().buffer();
        (0..12)
            .map(|y| (0..60).map(|x| buf[(x, y)].symbol()).collect::<String>())
            .collect::<Vec<_>>()
            .join("\n")
    }

    #[test]
    fn a_browser_flow_wait_shows_only_that_wait_and_its_keys() {
        let flow = Waiting {
            status: Some("Waiting for the browser flow to complete".into()),
            offer_retry: true,
            connecting: false,
            call: None,
        };
        let s = wait_screen(&flow);
        assert!(
            s.contains("Waiting for the browser flow to complete"),
            "{s}"
        );
        assert!(s.contains(view::FLOW_WAIT_KEYS), "{s}");
        assert!(s.contains("held"), "{s}");
        assert!(!s.contains("Waiting for the next request"), "{s}");
        assert!(!s.contains("answered so far"), "{s}");
        let next = wait_screen(&Waiting {
            status: Some("Tool progress".into()),
            offer_retry: false,
            connecting: false,
            call: None,
        });
        assert!(next.contains("Waiting for the next request"), "{next}");
        assert!(next.contains("1 answered so far"), "{next}");
        // The status, then what is held on a line of its own (never cut
        // with it).
        let rows: Vec<&str> = next.lines().map(str::trim).collect();
        let at = rows.iter().position(|r| *r == "Tool progress");
        assert!(at.is_some_and(|i| rows[i + 1] == "held"), "{next}");
        assert!(!next.contains(view::FLOW_WAIT_KEYS), "{next}");
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
