//! The wait for the browser's return, as the rest of the program sees it:
//! while a sign-in waits, the screens say so (what is waited for, the
//! listening address, the time left) and keep the authorization URL
//! within reach ([`current`]); Control-C there ends the sign-in
//! ([`cancel`]), as does an ending signal (SIGINT) received during it.
//! While any part of a sign-in is under way ([`signing_in`]) a session's
//! clock for the request waiting on it stops.
//!
//! One wait at a time per process (the authorizer runs one flow at a time;
//! a run signs in to one server).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// A sign-in waiting for the browser to come back.
#[derive(Debug, Clone)]
pub struct Waiting {
    /// The authorization URL, as the authorizer made it (review it before
    /// showing: [`crate::plain::signin::review_sign_in`]).
    pub url: String,
    /// Where the browser comes back: `127.0.0.1:PORT`.
    pub listening: String,
    /// When the wait ends (`--auth-timeout` after it began).
    pub until: Instant,
    /// `--auth-timeout`.
    pub timeout: Duration,
}

impl Waiting {
    /// What the wait is, in one sentence: `Waiting for the sign-in to
    /// finish in the browser (listening on 127.0.0.1:PORT).`
    pub fn sentence(&self) -> String {
        waiting_sentence(&self.listening)
    }

    /// The time left, in a person's words: `4m 59s left of 5m
    /// (--auth-timeout)`.
    pub fn time_left(&self) -> String {
        let left = self.until.saturating_duration_since(Instant::now());
        format!(
            "{} left of {} (--auth-timeout)",
            humantime::format_duration(Duration::from_secs(left.as_secs())),
            humantime::format_duration(self.timeout)
        )
    }
}

/// The sentence of a sign-in waiting for the browser that comes back to
/// `listening` (`127.0.0.1:PORT`): `Waiting for the sign-in to finish in
/// the browser (listening on 127.0.0.1:PORT).`
pub fn waiting_sentence(listening: &str) -> String {
    format!("Waiting for the sign-in to finish in the browser (listening on {listening}).")
}

/// The sign-in under way: from its question (or the browser's launch)
/// until the browser's return.
struct Slot {
    mcp_url: String,
    /// Set once the person consented and the wait for the browser began.
    waiting: Option<Waiting>,
    cancel: Arc<AtomicBool>,
}

static CURRENT: Mutex<Option<Slot>> = Mutex::new(None);
/// The time sign-ins took: those ended, how many are under way, and since
/// when.
struct Clock {
    ended: Duration,
    under_way: usize,
    since: Option<Instant>,
}

static CLOCK: Mutex<Clock> = Mutex::new(Clock {
    ended: Duration::ZERO,
    under_way: 0,
    since: None,
});

fn clock() -> std::sync::MutexGuard<'static, Clock> {
    CLOCK.lock().unwrap_or_else(|e| e.into_inner())
}

/// Whether a sign-in or a refresh is under way: a session's clock for the
/// request it holds stops meanwhile (the sign-in's own limits apply: each
/// request's, and `--auth-timeout` for the browser).
pub fn signing_in() -> bool {
    clock().under_way > 0
}

/// The time this process has spent signing in so far (sign-ins and
/// refreshes, the one under way included): what a request's limit is
/// moved on by.
pub fn time_signing_in() -> Duration {
    let c = clock();
    c.ended + c.since.map_or(Duration::ZERO, |s| s.elapsed())
}

/// Held while a sign-in or a refresh is under way ([`signing_in`]).
pub(crate) struct SigningIn(());

impl SigningIn {
    pub(crate) fn start() -> Self {
        let mut c = clock();
        if c.under_way == 0 {
            c.since = Some(Instant::now());
        }
        c.under_way += 1;
        Self(())
    }
}

impl Drop for SigningIn {
    fn drop(&mut self) {
        let mut c = clock();
        c.under_way = c.under_way.saturating_sub(1);
        if c.under_way == 0 {
            if let Some(s) = c.since.take() {
                c.ended += s.elapsed();
            }
        }
    }
}

/// The MCP URL of the last sign-in an ending signal ended.
static SIGNALLED: Mutex<Option<String>> = Mutex::new(None);

fn slot() -> std::sync::MutexGuard<'static, Option<Slot>> {
    CURRENT.lock().unwrap_or_else(|e| e.into_inner())
}

/// The sign-in waiting for the browser now, if any.
pub fn current() -> Option<Waiting> {
    slot().as_ref().and_then(|s| s.waiting.clone())
}

/// End the sign-in waiting for the browser now (the person cancelled it);
/// returns whether one was waiting. The wait ends with `sign-in to URL
/// cancelled`.
pub fn cancel() -> bool {
    match slot().as_ref() {
        Some(s) if s.waiting.is_some() => {
            s.cancel.store(true, Ordering::SeqCst);
            true
        }
        _ => false,
    }
}

/// When the ending signal `sig` is SIGINT (Control-C) and it arrived
/// during a sign-in (its question, the browser's launch or the wait), or
/// arrives now with one under way: the MCP URL of that sign-in, which the
/// signal ends (a run then ends as a cancelled sign-in, exit 3, not as the
/// signal). Other signals end the run as signals do.
pub fn ended_by_signal(sig: i32) -> Option<String> {
    if sig != libc::SIGINT {
        return None;
    }
    if let Some(s) = slot().as_ref() {
        s.cancel.store(true, Ordering::SeqCst);
        return Some(s.mcp_url.clone());
    }
    SIGNALLED.lock().unwrap_or_else(|e| e.into_inner()).clone()
}

/// A sign-in under way, published while held: it drops when the sign-in's
/// wait ends.
pub(crate) struct Published {
    cancel: Arc<AtomicBool>,
    mcp_url: String,
}

impl Published {
    /// Publish the sign-in to `mcp_url` (replacing any other): asked or
    /// being opened, not yet waiting.
    pub(crate) fn new(mcp_url: &str) -> Self {
        let cancel = Arc::new(AtomicBool::new(false));
        *slot() = Some(Slot {
            mcp_url: mcp_url.to_owned(),
            waiting: None,
            cancel: Arc::clone(&cancel),
        });
        Self {
            cancel,
            mcp_url: mcp_url.to_owned(),
        }
    }

    /// The person consented and the wait for the browser began: the
    /// screens say so ([`current`]).
    pub(crate) fn waiting(&self, waiting: Waiting) {
        if let Some(s) = slot()
            .as_mut()
            .filter(|s| Arc::ptr_eq(&s.cancel, &self.cancel))
        {
            s.waiting = Some(waiting);
        }
    }

    /// Whether the person cancelled it (Control-C: a SIGINT, remembered
    /// for [`ended_by_signal`]), or another ending signal arrived.
    pub(crate) fn cancelled(&self) -> bool {
        match crate::signals::received() {
            Some(libc::SIGINT) => {
                *SIGNALLED.lock().unwrap_or_else(|e| e.into_inner()) = Some(self.mcp_url.clone());
                true
            }
            Some(_) => true,
            None => self.cancel.load(Ordering::SeqCst),
        }
    }
}

impl Drop for Published {
    fn drop(&mut self) {
        let mut s = slot();
        if s.as_ref()
            .is_some_and(|s| Arc::ptr_eq(&s.cancel, &self.cancel))
        {
            *s = None;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // (current() and cancel() are process-wide, shared with the
    // authorizer's tests that run flows: the pseudo-terminal tests cover
    // them, tests/mcp/signin_screen.rs.)
    #[test]
    fn a_wait_says_what_it_waits_for_and_the_time_left() {
        let w = Waiting {
            url: "https://login.example.com/authorize?x=1".into(),
            listening: "127.0.0.1:4242".into(),
            until: Instant::now() + Duration::from_secs(300),
            timeout: Duration::from_secs(300),
        };
        assert_eq!(
            w.sentence(),
            "Waiting for the sign-in to finish in the browser (listening on 127.0.0.1:4242)."
        );
        let left = w.time_left();
        assert!(left.ends_with("left of 5m (--auth-timeout)"), "{left}");
    }
}
