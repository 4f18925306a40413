//! Messages for the person on stderr, held back while the terminal UI owns
//! the screen (a message written then would land on the alternate screen,
//! garble the frame and vanish on exit) and written once the terminal is
//! given back. Used by `respond` and `mcp`.
//!
//! What is held is bounded: at most [`MAX_HELD`] messages and
//! [`MAX_HELD_BYTES`] bytes; later ones are counted, and written as one
//! "N more messages" line, so a flood of bad input cannot fill memory.

/// At most this many messages are held.
pub const MAX_HELD: usize = 200;
/// At most this many bytes of messages are held.
pub const MAX_HELD_BYTES: usize = 256 * 1024;

/// Messages held while the terminal UI is on screen.
#[derive(Debug, Default)]
struct Held {
    msgs: Vec<String>,
    bytes: usize,
    /// Messages not kept (over a bound).
    more: usize,
    /// The latest message's first line, clipped (kept or not).
    latest: String,
}

/// Unit tests that hold messages take this lock: holding is process-wide.
#[cfg(test)]
pub(crate) static TEST_LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// Messages held back while the terminal UI owns the screen (see
/// [`HoldStderr`]); `None`: write at once.
static HELD: std::sync::Mutex<Option<Held>> = std::sync::Mutex::new(None);

/// Write one message to stderr, or hold it while [`HoldStderr`] is active.
/// Every line of it goes through the sanitizer
/// ([`crate::safe_text::display_lines`]): messages quote server text (ids,
/// property names, details), which must never reach the terminal raw.
pub fn say(msg: String) {
    let msg = crate::safe_text::display_lines(&msg);
    if let Ok(mut held) = HELD.lock() {
        if let Some(h) = held.as_mut() {
            h.latest = msg.lines().next().unwrap_or("").chars().take(300).collect();
            if h.msgs.len() < MAX_HELD && h.bytes + msg.len() <= MAX_HELD_BYTES {
                h.bytes += msg.len();
                h.msgs.push(msg);
            } else {
                h.more += 1;
            }
            return;
        }
    }
    eprintln!("{msg}");
}

/// While messages are held: how many were said (kept or not) and the first
/// line of the latest, for a waiting screen to show. None when nothing is
/// held.
pub fn held_summary() -> Option<(usize, String)> {
    let held = HELD.lock().ok()?;
    let h = held.as_ref()?;
    let n = h.msgs.len() + h.more;
    (n > 0).then(|| (n, h.latest.clone()))
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
                *held = Some(Held::default());
            }
        }
        HoldStderr
    }
}

impl Drop for HoldStderr {
    fn drop(&mut self) {
        write_held();
    }
}

/// Hold messages from now on (until [`release`]), with no guard: plain mode
/// holds them while a prompt waits for an answer, so nothing the server
/// writes can print lines that pass for the prompt's own.
pub fn hold() {
    if let Ok(mut held) = HELD.lock() {
        if held.is_none() {
            *held = Some(Held::default());
        }
    }
}

/// Stop holding messages and write those held so far. Plain mode owns no
/// screen (it writes whole lines), so messages can go out at once, between
/// its lines, where a person hears them in order.
pub fn release() {
    write_held();
}

/// Take what is held (holding stops) and write it to stderr, then one
/// "N more messages" line for those not kept.
fn write_held() {
    let held = HELD.lock().ok().and_then(|mut h| h.take());
    if let Some(h) = held {
        for m in h.msgs {
            eprintln!("{m}");
        }
        if h.more > 0 {
            eprintln!(
                "ahp-elicit: {} more message{} not shown",
                h.more,
                if h.more == 1 { "" } else { "s" }
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_flood_is_held_within_bounds_and_counted() {
        let _serial = TEST_LOCK.lock().unwrap_or_else(|e| e.into_inner());
        let guard = HoldStderr::start(true);
        for i in 0..10_000 {
            say(format!(
                "ahp-elicit: line {i}: not a JSON event: {}",
                "x".repeat(100)
            ));
        }
        // (Other tests of this process may say something meanwhile.)
        let (n, latest) = held_summary().expect("held");
        assert!(n >= 10_000, "{n}");
        assert!(latest.chars().count() <= 300, "{latest}");
        {
            let held = HELD.lock().unwrap();
            let h = held.as_ref().unwrap();
            assert_eq!(h.msgs.len(), MAX_HELD);
            assert!(h.bytes <= MAX_HELD_BYTES);
            assert!(h.more >= 10_000 - MAX_HELD, "{}", h.more);
        }
        drop(guard);
        assert_eq!(held_summary(), None);
    }
}
