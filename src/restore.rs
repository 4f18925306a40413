//! Giving the terminal back on every way out: a panic, or SIGTERM, SIGHUP,
//! SIGINT or SIGQUIT sent from outside. Shared by the full-screen UI
//! (raw mode, alternate screen) and plain mode (line mode without the
//! interrupt key), which each say how to restore their terminal.

use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};
use std::sync::Once;

pub use crate::responder::SIGNAL_GRACE;

/// One front end's restore hooks; every field is a `static` of that front
/// end, so the hooks can live as long as the process.
pub struct Hooks {
    /// Installs the hooks once.
    pub once: &'static Once,
    /// The last signal received (0: none); the front end's loop reads it.
    pub signal: &'static AtomicI32,
    /// The front end is inside its loop and will end the run on a signal.
    pub busy: &'static AtomicBool,
    /// Give the terminal back (idempotent).
    pub restore: fn(),
}

impl Hooks {
    /// Install, once per process: on a panic restore then report as
    /// before; on a signal record it, give a busy loop [`SIGNAL_GRACE`] to
    /// end the run, restore, and exit with 128 + the signal number.
    pub fn install(&'static self) {
        self.once.call_once(|| {
            let prev = std::panic::take_hook();
            let restore = self.restore;
            std::panic::set_hook(Box::new(move |info| {
                restore();
                prev(info);
            }));
            let sigs = [
                signal_hook::consts::SIGTERM,
                signal_hook::consts::SIGHUP,
                signal_hook::consts::SIGINT,
                signal_hook::consts::SIGQUIT,
            ];
            if let Ok(mut signals) = signal_hook::iterator::Signals::new(sigs) {
                std::thread::spawn(move || {
                    if let Some(sig) = signals.forever().next() {
                        self.signal.store(sig, Ordering::SeqCst);
                        if self.busy.load(Ordering::SeqCst) {
                            std::thread::sleep(SIGNAL_GRACE);
                        }
                        (self.restore)();
                        std::process::exit(128 + sig);
                    }
                });
            }
        });
    }
}
