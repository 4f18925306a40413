//! Messages for the person on stderr, held back while the terminal UI owns
//! the screen (a message written then would land on the alternate screen,
//! garble the frame and vanish on exit) and written once the terminal is
//! given back. Used by `respond` and `mcp`.

/// Messages held back while the terminal UI owns the screen (see
/// [`HoldStderr`]); `None`: write at once.
static HELD: std::sync::Mutex<Option<Vec<String>>> = std::sync::Mutex::new(None);

/// Write one message to stderr, or hold it while [`HoldStderr`] is active.
/// Every line of it goes through the sanitizer
/// ([`crate::safe_text::display_lines`]): messages quote server text (ids,
/// property names, details), which must never reach the terminal raw.
pub fn say(msg: String) {
    let msg = crate::safe_text::display_lines(&msg);
    if let Ok(mut held) = HELD.lock() {
        if let Some(v) = held.as_mut() {
            v.push(msg);
            return;
        }
    }
    eprintln!("{msg}");
}

/// While the terminal UI is on screen and stderr is that terminal, a
/// message written to stderr would land on the alternate screen: it would
/// scroll and garble the frame (ratatui redraws only the cells it changed,
/// so a consent screen could show a stale URL) and vanish when the
/// alternate screen is left. So the messages are held and written when
/// this guard drops, after the terminal is given back (declare it before
/// the responder, so it drops after it).
pub struct HoldStderr;

impl HoldStderr {
    /// Hold messages from now on when `hold` is true.
    pub fn start(hold: bool) -> HoldStderr {
        if hold {
            if let Ok(mut held) = HELD.lock() {
                *held = Some(Vec::new());
            }
        }
        HoldStderr
    }
}

impl Drop for HoldStderr {
    fn drop(&mut self) {
        let msgs = HELD.lock().ok().and_then(|mut h| h.take());
        for m in msgs.into_iter().flatten() {
            eprintln!("{m}");
        }
    }
}

/// Stop holding messages and write those held so far. Plain mode owns no
/// screen (it writes whole lines), so messages can go out at once, between
/// its lines, where a person hears them in order.
pub fn release() {
    let msgs = HELD.lock().ok().and_then(|mut h| h.take());
    for m in msgs.into_iter().flatten() {
        eprintln!("{m}");
    }
}
