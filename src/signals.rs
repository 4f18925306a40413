//! The one owner of signals and of giving the terminal back: installed
//! once per process ([`install`]), it listens for every signal the program
//! reacts to on one watcher thread, knows the terminals to restore
//! ([`own_terminal`]) and tells the rest of the program what happened
//! through one channel ([`subscribe`]) and one flag ([`received`]).
//!
//! What each signal does:
//! - SIGINT, SIGTERM, SIGHUP, SIGQUIT sent from outside end the run
//!   ([`Event::End`]): the signal is recorded, subscribers are told, and a
//!   loop that said it will end the run on its own ([`busy`]) gets
//!   [`SIGNAL_GRACE`] to do so (a request on screen ends as a quit, so the
//!   driver can cancel what remains and write the results); then every
//!   terminal is given back and the process exits with 128 + the signal
//!   number. A run that ends the process itself ([`hold`]: `mcp`, which
//!   first stops the server it started) is only told; a second ending
//!   signal then ends the process at once. (The Ctrl-C key is a key in raw
//!   mode, not a signal.)
//! - SIGTSTP sent from outside ([`Event::Suspend`]): every terminal is
//!   given back (the alternate screen left, the mode the terminal had
//!   before), then the process stops as the default action would. The
//!   Ctrl-Z key in raw mode is a key, not a signal, and does nothing.
//! - SIGCONT ([`Event::Continue`]): each terminal given back at the stop is
//!   taken back (raw mode, the alternate screen) and repainted whole; one
//!   that was never given back (a stop by SIGSTOP, after which the shell
//!   may have changed the mode) has its mode set again and is repainted.
//! - SIGWINCH ([`Event::Resize`]): told to subscribers only (the terminal
//!   front end reads its size on every frame).
//!
//! A panic gives every terminal back before the panic is reported.

use std::sync::atomic::{AtomicI32, AtomicUsize, Ordering};
use std::sync::{Mutex, Once, OnceLock};

pub(crate) use crate::responder::SIGNAL_GRACE;

/// What a signal told the program.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Event {
    /// SIGINT, SIGTERM, SIGHUP or SIGQUIT (the number): end the run; the
    /// process exits with 128 + the number after at most [`SIGNAL_GRACE`].
    End(i32),
    /// SIGTSTP: the terminals were given back; the process stops next.
    Suspend,
    /// SIGCONT: the process runs again; the terminals were taken back.
    Continue,
    /// SIGWINCH: the terminal's size changed.
    Resize,
}

/// A terminal front end's ways to give its terminal back and take it
/// again; a `static` of that front end, registered by [`own_terminal`].
/// Each function is a no-op when the terminal is not the front end's.
pub struct Terminal {
    /// Give the terminal back for good (idempotent): on the way out.
    pub restore: fn(),
    /// Give the terminal back for a stop, remembering to take it again.
    pub suspend: fn(),
    /// After a stop: take the terminal back and ask for a whole repaint.
    pub resume: fn(),
}

/// The signals that end the run.
const ENDING: [i32; 4] = [libc::SIGTERM, libc::SIGHUP, libc::SIGINT, libc::SIGQUIT];

static INSTALL: Once = Once::new();
/// The ending signal received (0: none).
static RECEIVED: AtomicI32 = AtomicI32::new(0);
/// How many loops are running that end the run on their own when
/// [`received`] says so.
static BUSY: AtomicUsize = AtomicUsize::new(0);
/// How many runs end the process themselves on a signal ([`hold`]).
static HELD: AtomicUsize = AtomicUsize::new(0);
/// The terminals to give back, in the order they were registered.
static TERMINALS: Mutex<Vec<&'static Terminal>> = Mutex::new(Vec::new());
/// The channel every signal is told on.
static EVENTS: OnceLock<tokio::sync::broadcast::Sender<Event>> = OnceLock::new();

fn events() -> &'static tokio::sync::broadcast::Sender<Event> {
    EVENTS.get_or_init(|| tokio::sync::broadcast::channel(16).0)
}

/// Take over the signals (once per process; later calls do nothing): from
/// here on they act as the module documentation says. When the watcher
/// cannot be set up the signals keep their default actions.
pub fn install() {
    INSTALL.call_once(|| {
        let prev = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            restore_all();
            prev(info);
        }));
        let mut sigs = ENDING.to_vec();
        sigs.extend([libc::SIGTSTP, libc::SIGCONT, libc::SIGWINCH]);
        if let Ok(mut signals) = signal_hook::iterator::Signals::new(sigs) {
            let _ = std::thread::Builder::new()
                .name("signals".into())
                .spawn(move || {
                    for sig in signals.forever() {
                        on_signal(sig);
                    }
                });
        }
    });
}

/// Register `terminal` to be given back on every way out and across a
/// stop (and [`install`]). Registering the same terminal twice is one
/// registration.
pub fn own_terminal(terminal: &'static Terminal) {
    install();
    let mut all = TERMINALS.lock().unwrap_or_else(|e| e.into_inner());
    if !all.iter().any(|t| std::ptr::eq(*t, terminal)) {
        all.push(terminal);
    }
}

/// The ending signal received so far (SIGINT, SIGTERM, SIGHUP, SIGQUIT),
/// if any. A loop that holds a [`Busy`] checks it and ends the run.
pub fn received() -> Option<i32> {
    match RECEIVED.load(Ordering::SeqCst) {
        0 => None,
        n => Some(n),
    }
}

/// Every signal from now on, as an [`Event`] (a receiver that falls more
/// than 16 events behind misses the oldest).
pub fn subscribe() -> tokio::sync::broadcast::Receiver<Event> {
    events().subscribe()
}

/// Held while a loop runs that ends the run on its own once [`received`]
/// says so: an ending signal then waits up to [`SIGNAL_GRACE`] for the
/// process to end before ending it.
#[must_use = "busy only while held"]
pub struct Busy(());

/// Say a loop that ends the run on a signal is running (until the guard
/// drops).
pub fn busy() -> Busy {
    BUSY.fetch_add(1, Ordering::SeqCst);
    Busy(())
}

impl Drop for Busy {
    fn drop(&mut self) {
        BUSY.fetch_sub(1, Ordering::SeqCst);
    }
}

/// Held by a run that ends the process itself on an ending signal (it
/// cleans up, such as stopping a server it started, gives the terminal
/// back and exits with 128 + the signal, told by [`subscribe`] or
/// [`received`]): while one is held the first such signal is only
/// recorded and told; a second ends the process at once.
#[must_use = "held only while kept"]
pub struct Hold(());

/// Say the run ends the process itself on a signal (until the guard
/// drops); takes the signals over ([`install`]).
pub fn hold() -> Hold {
    install();
    HELD.fetch_add(1, Ordering::SeqCst);
    Hold(())
}

impl Drop for Hold {
    fn drop(&mut self) {
        HELD.fetch_sub(1, Ordering::SeqCst);
    }
}

/// Act on the ending signal `sig` as if it had been received from
/// outside (the Ctrl-C key read while no screen takes keys, such as during
/// the terminal's background query, is SIGINT): recorded and told; unless
/// a run ends the process itself ([`hold`]), every terminal is given back
/// and the process exits with 128 + `sig` (after [`SIGNAL_GRACE`] when a
/// loop is [`busy`]).
pub fn end_as(sig: i32) {
    install();
    on_signal(sig);
}

/// The terminals registered so far (a copy, so no lock is held while a
/// terminal is restored).
fn terminals() -> Vec<&'static Terminal> {
    TERMINALS.lock().unwrap_or_else(|e| e.into_inner()).clone()
}

/// Give every terminal back for good.
fn restore_all() {
    for t in terminals() {
        (t.restore)();
    }
}

/// On the watcher thread: act on one signal.
fn on_signal(sig: i32) {
    let tell = |e| {
        let _ = events().send(e);
        // A waiting screen looks at once (a resize, the end of the run).
        crate::responder::wake::wake();
    };
    match sig {
        libc::SIGTSTP => {
            for t in terminals() {
                (t.suspend)();
            }
            tell(Event::Suspend);
            // Stops here until SIGCONT (SIGSTOP: the default action of
            // SIGTSTP, which is caught).
            let _ = signal_hook::low_level::emulate_default_handler(libc::SIGTSTP);
        }
        libc::SIGCONT => {
            for t in terminals() {
                (t.resume)();
            }
            tell(Event::Continue);
        }
        libc::SIGWINCH => tell(Event::Resize),
        _ => {
            let first = RECEIVED
                .compare_exchange(0, sig, Ordering::SeqCst, Ordering::SeqCst)
                .is_ok();
            if first {
                tell(Event::End(sig));
                if HELD.load(Ordering::SeqCst) > 0 {
                    return;
                }
                if BUSY.load(Ordering::SeqCst) > 0 {
                    std::thread::sleep(SIGNAL_GRACE);
                }
            }
            restore_all();
            std::process::exit(128 + sig);
        }
    }
}
