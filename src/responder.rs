//! The boundary between the request stream and whoever answers: a person
//! at a terminal (`tui`), a script (`--answers` / `--action`), or an MCP
//! adapter's caller. The driver (`respond`, `session` with `mcp`) reads and
//! validates requests, calls a [`Responder`] for each, then builds and
//! validates the result event with
//! [`make_result_event`](crate::binding::make_result_event).

use std::time::{Duration, Instant};

use crate::binding::{Answer, RequestEvent};

/// Where a request stands in the stream: `index` is 1-based; `total` is the
/// number known so far (answered, this one and queued), so the header can say
/// "request 2 of 5".
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Progress {
    pub index: usize,
    pub total: usize,
}

/// Per-request context given to a responder.
#[derive(Debug, Clone)]
pub struct Context {
    pub progress: Progress,
    /// `--timeout DURATION`: when this instant passes unanswered, the
    /// request is cancelled.
    pub deadline: Option<Instant>,
}

/// How a responder finished one request.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    /// The decision for this request.
    Answer(Answer),
    /// The person asked to quit (a second Ctrl-C): this request and every
    /// remaining one get `cancel`.
    Quit,
}

/// Why a responder gave no answer. The sentences do not name the request:
/// the caller knows which request it asked about and says so in its report.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum RespondError {
    /// A scripted answer that the form refuses: no result
    /// for this request, exit 1.
    #[error("answer refused: {0}")]
    Refused(String),
    /// The terminal or another resource failed: no result, exit 2.
    #[error("{0}")]
    Io(String),
}

/// Something that answers validated requests, one at a time.
pub trait Responder {
    /// Answer one validated request. The answer is validated by the driver
    /// before it is emitted.
    fn respond(&mut self, req: &RequestEvent, cx: &Context) -> Result<Outcome, RespondError>;

    /// Called while the driver waits for the next request on a stream that is
    /// still open; `wait` is how long the driver will wait before calling
    /// again. Returns true when the person asked to quit. The default sleeps.
    fn idle(&mut self, wait: Duration) -> bool {
        std::thread::sleep(wait);
        false
    }

    /// Like [`idle`](Responder::idle), with a status to show and, when
    /// `shown.offer_retry`, the keys "retry now" and "give up". The default
    /// ignores the status and calls `idle`.
    fn wait(&mut self, wait: Duration, shown: &Waiting) -> WaitKey {
        let _ = shown;
        if self.idle(wait) {
            WaitKey::Quit
        } else {
            WaitKey::Nothing
        }
    }
}

/// The launcher every responder opens a consented URL through (defined
/// with the launchers in [`crate::launcher`]).
pub use crate::launcher::Launcher;

/// Time left until `deadline`, or None when there is none; zero when passed.
pub fn time_left(deadline: Option<Instant>) -> Option<Duration> {
    deadline.map(|d| d.saturating_duration_since(Instant::now()))
}

/// A request's source withdrew it (the server cancelled it, its stream
/// closed, the driver's timer ran out): set once, read by the screen that
/// shows the request, with the reason the source gave if any. Cloned
/// handles share the flag and the reason.
#[derive(Debug, Clone, Default)]
pub struct Withdrawal(
    std::sync::Arc<std::sync::atomic::AtomicBool>,
    std::sync::Arc<std::sync::Mutex<Option<String>>>,
);

impl Withdrawal {
    /// A flag that is not set.
    pub fn new() -> Self {
        Self::default()
    }

    /// Withdraw the request (idempotent; any thread).
    pub fn withdraw(&self) {
        self.0.store(true, std::sync::atomic::Ordering::SeqCst);
    }

    /// Withdraw the request with the reason its source gave (MCP
    /// `notifications/cancelled` `reason`; not sanitized: the screen does
    /// that). The reason is stored before the flag is set.
    pub fn withdraw_because(&self, reason: &str) {
        if let Ok(mut r) = self.1.lock() {
            *r = Some(reason.to_owned());
        }
        self.withdraw();
    }

    /// Whether the request was withdrawn.
    pub fn is_withdrawn(&self) -> bool {
        self.0.load(std::sync::atomic::Ordering::SeqCst)
    }

    /// The reason the source gave for the withdrawal, if any (not
    /// sanitized).
    pub fn reason(&self) -> Option<String> {
        self.1.lock().ok().and_then(|r| r.clone())
    }
}

thread_local! {
    /// The withdrawal flag of the request being answered on this thread.
    /// Kept beside [`Context`] rather than in it, so that drivers which never
    /// withdraw keep building `Context` as before.
    static CURRENT_WITHDRAWAL: std::cell::RefCell<Option<Withdrawal>> =
        const { std::cell::RefCell::new(None) };
}

/// Run `f` (a [`Responder::respond`] call) with `w` as the request's
/// withdrawal flag, readable through [`Context::withdrawn`].
pub fn with_withdrawal<T>(w: &Withdrawal, f: impl FnOnce() -> T) -> T {
    struct Reset;
    impl Drop for Reset {
        fn drop(&mut self) {
            CURRENT_WITHDRAWAL.with(|c| *c.borrow_mut() = None);
        }
    }
    CURRENT_WITHDRAWAL.with(|c| *c.borrow_mut() = Some(w.clone()));
    let _reset = Reset;
    f()
}

impl Context {
    /// True when the request's source withdrew it while it was being
    /// answered: the responder should close its screen and return (any
    /// outcome; the driver sends nothing for a withdrawn request).
    pub fn withdrawn(&self) -> bool {
        CURRENT_WITHDRAWAL.with(|c| c.borrow().as_ref().is_some_and(Withdrawal::is_withdrawn))
    }

    /// The reason the source gave when it withdrew the request being
    /// answered (not sanitized: hostile server text), if it gave one.
    pub fn withdrawal_reason(&self) -> Option<String> {
        CURRENT_WITHDRAWAL.with(|c| c.borrow().as_ref().and_then(Withdrawal::reason))
    }
}

/// What a waiting screen shows while no request is open
/// ([`Responder::wait`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Waiting {
    /// A status line (sanitized by the driver), e.g. the tool's progress or
    /// "the server withdrew this request".
    pub status: Option<String>,
    /// The driver waits for a browser flow the person may cut short: the
    /// screen offers "retry now" and "give up".
    pub offer_retry: bool,
}

/// What the person did on a waiting screen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WaitKey {
    /// Nothing that matters to the driver.
    Nothing,
    /// Quit (the second Ctrl-C).
    Quit,
    /// Retry now (only when [`Waiting::offer_retry`]).
    RetryNow,
    /// Give up waiting (only when [`Waiting::offer_retry`]).
    GiveUp,
}

/// Most characters of a withdrawal reason shown (the rest is cut, "…").
pub const MAX_WITHDRAWN_REASON: usize = 200;

/// The reason a server gave for withdrawing a request (MCP
/// `notifications/cancelled` `reason`) as one safe line, framed as its
/// words and cut to [`MAX_WITHDRAWN_REASON`] characters; the full-screen
/// notice shows the same line.
pub fn withdrawn_reason_line(reason: &str) -> String {
    let mut r: String = reason.chars().take(MAX_WITHDRAWN_REASON).collect();
    if reason.chars().nth(MAX_WITHDRAWN_REASON).is_some() {
        r.push('…');
    }
    format!(
        "The server's reason (its words): {}",
        crate::safe_text::display(&r)
    )
}

/// The message of a request as the server sent it (`message` of the
/// params carried as the request part's text), or empty when there is none
/// to read (a view that is not a body, or params without a message). Not
/// sanitised: hostile text, for the not-a-form screen and plain mode.
pub fn request_message(req: &RequestEvent) -> String {
    req.event
        .pointer("/payload/elicitation/request/text")
        .and_then(serde_json::Value::as_str)
        .and_then(|t| serde_json::from_str::<serde_json::Value>(t).ok())
        .and_then(|p| p.get("message").and_then(|m| m.as_str().map(str::to_owned)))
        .unwrap_or_default()
}
