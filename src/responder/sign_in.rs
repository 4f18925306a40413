//! The sign-ins of one session as the rest of the program sees them
//! ([`SignIns`], shared by `Arc`): the session makes it
//! (`session::Desk::sign_ins`) and hands it to the authorizer that signs
//! in for it (`mcp::auth::AuthOptions::sign_ins`, on the HTTP transport's
//! threads) and to the responder that answers it
//! ([`Responder::follow_sign_ins`](crate::responder::Responder::follow_sign_ins)).
//! While a sign-in waits, the screens say so (what is waited for, the
//! listening address, the time left) and keep the authorization URL
//! within reach ([`SignIns::current`]); Control-C there ends the sign-in
//! ([`SignIns::cancel`]), as does an ending signal (SIGINT) received
//! during it. While any part of a sign-in is under way
//! ([`SignIns::signing_in`]) the session's clock for the request waiting
//! on it stops.
//!
//! Every change (a sign-in or refresh started or ended, its wait for the
//! browser began, its question put to the person) is an event: it wakes
//! the waiting screen through the arrival pipe (`responder::wake`) and
//! the session through [`SignIns::changes`], so neither looks at the state
//! on a timer.
//!
//! It sits beside the [`Responder`](crate::responder::Responder) trait,
//! below the session and the MCP client that share it, as plain lines do
//! (`responder::lines`). One wait at a time per session (the authorizer
//! runs one flow at a time; a session signs in to one server).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
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
#[derive(Debug)]
struct Slot {
    mcp_url: String,
    /// Set once the person consented and the wait for the browser began.
    waiting: Option<Waiting>,
    cancel: Arc<AtomicBool>,
}

/// The time sign-ins took: those ended, how many are under way, and since
/// when.
#[derive(Debug, Default)]
struct Clock {
    ended: Duration,
    under_way: usize,
    since: Option<Instant>,
}

/// The sign-ins of one session: whether one is under way and the time
/// they took (the session's clock stops meanwhile), the one waiting for
/// the browser (its URL, listening address and time left, for the
/// screens) and how to cancel it. Made by the session
/// (`session::Desk::sign_ins`) and shared by `Arc` with the authorizer
/// (which changes it, on the HTTP transport's threads) and the responder
/// (whose screens read it when woken).
#[derive(Debug)]
pub struct SignIns {
    clock: Mutex<Clock>,
    slot: Mutex<Option<Slot>>,
    /// The MCP URL of the last sign-in an ending signal ended.
    signalled: Mutex<Option<String>>,
    /// How many changes there were: bumped at every one
    /// ([`SignIns::changes`]).
    changes: tokio::sync::watch::Sender<u64>,
}

impl Default for SignIns {
    fn default() -> Self {
        Self {
            clock: Mutex::default(),
            slot: Mutex::default(),
            signalled: Mutex::default(),
            changes: tokio::sync::watch::channel(0).0,
        }
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl SignIns {
    /// Whether a sign-in or a refresh is under way: the session's clock
    /// for the request it holds stops meanwhile (the sign-in's own limits
    /// apply: each request's, and `--auth-timeout` for the browser).
    pub fn signing_in(&self) -> bool {
        lock(&self.clock).under_way > 0
    }

    /// The time this session spent signing in so far (sign-ins and
    /// refreshes, the one under way included): what a request's limit is
    /// moved on by.
    pub fn time_signing_in(&self) -> Duration {
        let c = lock(&self.clock);
        c.ended + c.since.map_or(Duration::ZERO, |s| s.elapsed())
    }

    /// How many changes there were so far: a screen that drew the state
    /// after reading this looks again when it differs.
    pub fn version(&self) -> u64 {
        *self.changes.borrow()
    }

    /// A receiver that is told of every change from now on (a sign-in or
    /// refresh started or ended, a wait began, a question was posted): the
    /// session's wait for a request looks at its limit again then.
    pub fn changes(&self) -> tokio::sync::watch::Receiver<u64> {
        self.changes.subscribe()
    }

    /// Something changed: the session and the waiting screen are woken.
    pub(crate) fn changed(&self) {
        self.changes.send_modify(|n| *n += 1);
        crate::responder::wake::wake();
    }

    /// The sign-in waiting for the browser now, if any.
    pub fn current(&self) -> Option<Waiting> {
        lock(&self.slot).as_ref().and_then(|s| s.waiting.clone())
    }

    /// End the sign-in waiting for the browser now (the person cancelled
    /// it); returns whether one was waiting. The wait ends with `sign-in
    /// to URL cancelled`.
    pub fn cancel(&self) -> bool {
        match lock(&self.slot).as_ref() {
            Some(s) if s.waiting.is_some() => {
                s.cancel.store(true, Ordering::SeqCst);
                true
            }
            _ => false,
        }
    }

    /// When the ending signal `sig` is SIGINT (Control-C) and it arrived
    /// during a sign-in of this session (its question, the browser's
    /// launch or the wait), or arrives now with one under way: the MCP URL
    /// of that sign-in, which the signal ends (a run then ends as a
    /// cancelled sign-in, exit 3, not as the signal). Other signals end
    /// the run as signals do.
    pub fn ended_by_signal(&self, sig: i32) -> Option<String> {
        if sig != libc::SIGINT {
            return None;
        }
        if let Some(s) = lock(&self.slot).as_ref() {
            s.cancel.store(true, Ordering::SeqCst);
            return Some(s.mcp_url.clone());
        }
        lock(&self.signalled).clone()
    }

    /// A sign-in or a refresh starts: held until it ends
    /// ([`SignIns::signing_in`]).
    pub(crate) fn start(&self) -> SigningIn<'_> {
        {
            let mut c = lock(&self.clock);
            if c.under_way == 0 {
                c.since = Some(Instant::now());
            }
            c.under_way += 1;
        }
        self.changed();
        SigningIn(self)
    }

    /// Publish the sign-in to `mcp_url` (replacing any other): asked or
    /// being opened, not yet waiting. Held until the sign-in's wait ends.
    pub(crate) fn publish(&self, mcp_url: &str) -> Published<'_> {
        let cancel = Arc::new(AtomicBool::new(false));
        *lock(&self.slot) = Some(Slot {
            mcp_url: mcp_url.to_owned(),
            waiting: None,
            cancel: Arc::clone(&cancel),
        });
        self.changed();
        Published {
            sign_ins: self,
            cancel,
            mcp_url: mcp_url.to_owned(),
        }
    }
}

/// Held while a sign-in or a refresh is under way
/// ([`SignIns::signing_in`]).
pub(crate) struct SigningIn<'a>(&'a SignIns);

impl Drop for SigningIn<'_> {
    fn drop(&mut self) {
        {
            let mut c = lock(&self.0.clock);
            c.under_way = c.under_way.saturating_sub(1);
            if c.under_way == 0 {
                if let Some(s) = c.since.take() {
                    c.ended += s.elapsed();
                }
            }
        }
        self.0.changed();
    }
}

/// A sign-in under way, published while held ([`SignIns::publish`]): it
/// drops when the sign-in's wait ends.
pub(crate) struct Published<'a> {
    sign_ins: &'a SignIns,
    cancel: Arc<AtomicBool>,
    mcp_url: String,
}

impl Published<'_> {
    /// The person consented and the wait for the browser began: the
    /// screens say so ([`SignIns::current`]).
    pub(crate) fn waiting(&self, waiting: Waiting) {
        if let Some(s) = lock(&self.sign_ins.slot)
            .as_mut()
            .filter(|s| Arc::ptr_eq(&s.cancel, &self.cancel))
        {
            s.waiting = Some(waiting);
        }
        self.sign_ins.changed();
    }

    /// Whether the person cancelled it, or an ending signal arrived (the
    /// one received so far, `signal`): Control-C, a SIGINT, is remembered
    /// for [`SignIns::ended_by_signal`].
    pub(crate) fn cancelled(&self, signal: Option<i32>) -> bool {
        match signal {
            Some(libc::SIGINT) => {
                *lock(&self.sign_ins.signalled) = Some(self.mcp_url.clone());
                true
            }
            Some(_) => true,
            None => self.cancel.load(Ordering::SeqCst),
        }
    }
}

impl Drop for Published<'_> {
    fn drop(&mut self) {
        {
            let mut s = lock(&self.sign_ins.slot);
            if s.as_ref()
                .is_some_and(|s| Arc::ptr_eq(&s.cancel, &self.cancel))
            {
                *s = None;
            }
        }
        self.sign_ins.changed();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn a_wait(url: &str) -> Waiting {
        Waiting {
            url: url.into(),
            listening: "127.0.0.1:4242".into(),
            until: Instant::now() + Duration::from_secs(300),
            timeout: Duration::from_secs(300),
        }
    }

    #[test]
    fn a_sign_in_is_seen_by_its_own_session_only_until_its_wait_ends() {
        let (ours, theirs) = (SignIns::default(), SignIns::default());
        let published = ours.publish("https://a.example/mcp");
        // Asked, not yet waiting: nothing to show or cancel, but a
        // Control-C ends it.
        assert!(ours.current().is_none());
        assert!(!ours.cancel());
        published.waiting(a_wait("https://login.example/authorize?x=1"));
        assert_eq!(
            ours.current().map(|w| w.url).as_deref(),
            Some("https://login.example/authorize?x=1")
        );
        assert!(theirs.current().is_none(), "another session sees nothing");
        assert!(!theirs.cancel());
        assert_eq!(theirs.ended_by_signal(libc::SIGINT), None);
        assert!(!published.cancelled(None));
        assert!(ours.cancel());
        assert!(published.cancelled(None));
        assert_eq!(
            ours.ended_by_signal(libc::SIGINT).as_deref(),
            Some("https://a.example/mcp")
        );
        assert_eq!(ours.ended_by_signal(libc::SIGTERM), None);
        drop(published);
        assert!(ours.current().is_none());
        assert!(!ours.cancel());
    }

    #[test]
    fn a_control_c_during_a_sign_in_is_remembered_as_ending_it() {
        let s = SignIns::default();
        let published = s.publish("https://a.example/mcp");
        assert!(published.cancelled(Some(libc::SIGTERM)));
        drop(published);
        assert_eq!(s.ended_by_signal(libc::SIGINT), None, "not a Control-C");
        let published = s.publish("https://a.example/mcp");
        assert!(published.cancelled(Some(libc::SIGINT)));
        drop(published);
        // The wait ended; the signal still ends the run as that sign-in.
        assert_eq!(
            s.ended_by_signal(libc::SIGINT).as_deref(),
            Some("https://a.example/mcp")
        );
        assert_eq!(SignIns::default().ended_by_signal(libc::SIGINT), None);
    }

    #[test]
    fn the_clock_runs_while_a_sign_in_is_under_way_and_stops_after() {
        let s = SignIns::default();
        assert!(!s.signing_in());
        assert_eq!(s.time_signing_in(), Duration::ZERO);
        let first = s.start();
        let refresh = s.start();
        assert!(s.signing_in());
        drop(first);
        assert!(s.signing_in(), "a refresh is still under way");
        drop(refresh);
        assert!(!s.signing_in());
        let taken = s.time_signing_in();
        assert_eq!(s.time_signing_in(), taken, "stopped once none is under way");
        assert!(!SignIns::default().signing_in());
    }

    #[test]
    fn every_change_is_told_to_the_session() {
        let s = SignIns::default();
        let mut changes = s.changes();
        let seen = s.version();
        assert!(!changes.has_changed().unwrap());
        let under_way = s.start();
        assert!(changes.has_changed().unwrap(), "a start is told");
        changes.borrow_and_update();
        let published = s.publish("https://a.example/mcp");
        published.waiting(a_wait("https://login.example/authorize"));
        drop(published);
        drop(under_way);
        assert!(changes.has_changed().unwrap(), "its end is told");
        assert_eq!(*changes.borrow_and_update(), seen + 5);
        assert_eq!(s.version(), seen + 5);
    }

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
