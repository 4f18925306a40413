//! The controlling terminal, owned by the full screen: taken (raw mode, the
//! alternate screen, bracketed paste, the hidden cursor) and given back on
//! drop, on a signal, for a stop and for the outside editor ([`Tty`],
//! [`restore_terminal`]); and the keys read from it through the ESC and
//! terminal-reply filter ([`super::keys`]), as the [`Input`]s the screen
//! loop and the waiting screen take.

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

use super::{background, keys, text};
use crate::form::Key;
use crate::responder::RespondError;

/// Whether the terminal is currently in raw mode + alternate screen by us.
static ACTIVE: AtomicBool = AtomicBool::new(false);
/// The terminal was given back for a stop (SIGTSTP) and is taken back
/// when the process continues.
static SUSPENDED: AtomicBool = AtomicBool::new(false);
/// The terminal was taken back after a stop: the next frame clears the
/// screen and is drawn whole.
pub(super) static REPAINT: AtomicBool = AtomicBool::new(false);
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
pub(super) fn suspend_terminal() {
    if give_back() {
        SUSPENDED.store(true, Ordering::SeqCst);
    }
}

/// After a stop: raw mode, the alternate screen, bracketed paste and the
/// hidden cursor again, and a whole repaint at the next frame. A terminal
/// that was ours and not given back (a stop by SIGSTOP, after which the
/// shell may have put it in line mode) has its mode set again.
pub(super) fn resume_terminal() {
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
pub(super) static SIGNALS: crate::signals::Terminal = crate::signals::Terminal {
    restore: restore_terminal,
    suspend: suspend_terminal,
    resume: resume_terminal,
};

type Backend = CrosstermBackend<BufWriter<File>>;

/// The terminal, owned; restores itself on drop.
pub(super) struct Tty {
    term: Terminal<Backend>,
}

impl Tty {
    pub(super) fn open() -> Result<Self, RespondError> {
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
    pub(super) fn resume(&mut self) -> Result<(), RespondError> {
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
    pub(super) fn clear(&mut self) -> Result<(), RespondError> {
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
    pub(super) fn write_raw(&mut self, bytes: &[u8]) {
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
    pub(super) fn write_over(&mut self, bytes: &[u8]) {
        self.write_raw(bytes);
    }

    pub(super) fn draw(&mut self, f: impl FnOnce(&mut Frame)) -> Result<(), RespondError> {
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
pub(super) enum Input {
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
/// rather than at the end of the slice, or when `changed` says so (the
/// session's sign-ins changed, which wakes the pipe too). The screen
/// sleeps on the terminal and on the arrival pipe together
/// ([`crate::responder::wake`]): a key, an arrival or a change wakes it,
/// nothing else. With `heed` false, one plain read of `timeout`.
pub(super) fn read_input_until_asked(
    timeout: Duration,
    heed: bool,
    changed: &dyn Fn() -> bool,
) -> Result<Option<Input>, RespondError> {
    if !heed {
        return read_input(timeout, false).map(Some);
    }
    let (Some(watch), Some(keys)) = (crate::responder::wake::watch(), key_fd()) else {
        return read_input_in_steps(timeout, changed);
    };
    let end = Instant::now() + timeout;
    loop {
        // Emptied before the look, so an arrival after it wakes the wait.
        watch.drain();
        if crate::responder::request_waiting() || changed() {
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
fn read_input_in_steps(
    timeout: Duration,
    changed: &dyn Fn() -> bool,
) -> Result<Option<Input>, RespondError> {
    let end = Instant::now() + timeout;
    loop {
        if crate::responder::request_waiting() || changed() {
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
pub(super) fn read_input(timeout: Duration, esc_discards: bool) -> Result<Input, RespondError> {
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
pub(super) fn discard_typeahead() {
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
