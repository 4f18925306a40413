//! The boundary between the request stream and whoever answers: a person
//! at a terminal (`tui`), a script (`--answers` / `--action`), or an MCP
//! adapter's caller. The driver (`respond`, `session` with `mcp`) reads and
//! validates requests, calls a [`Responder`] for each, then builds and
//! validates the result event with
//! [`make_result_event`](crate::binding::make_result_event).

use std::time::{Duration, Instant};

use crate::binding::{Answer, RequestEvent};
#[cfg(feature = "cli")]
use lines::SignInError;

// The command line's: its lines jobs and plain mode's line I/O, `--notify`,
// a session's sign-ins and protocol trace as its screens show them, the arrival pipe that
// wakes a waiting screen.
#[cfg(all(feature = "cli", feature = "internals"))]
#[doc(hidden)]
pub mod lines;
#[cfg(all(feature = "cli", not(feature = "internals")))]
pub(crate) mod lines;
#[cfg(all(feature = "cli", feature = "internals"))]
#[doc(hidden)]
pub mod notify;
#[cfg(all(feature = "cli", not(feature = "internals")))]
pub(crate) mod notify;
#[cfg(all(feature = "cli", feature = "internals"))]
#[doc(hidden)]
pub mod sign_in;
#[cfg(all(feature = "cli", not(feature = "internals")))]
pub(crate) mod sign_in;
#[cfg(all(feature = "cli", feature = "internals"))]
#[doc(hidden)]
pub mod trace;
#[cfg(all(feature = "cli", not(feature = "internals")))]
pub(crate) mod trace;
#[cfg(feature = "cli")]
pub(crate) mod wake;

/// Where a request stands in the stream: `index` is 1-based; `total` is the
/// number known so far (answered, this one and queued), so the header can say
/// "request 2 of 5"; `skipped` is how many requests of the stream were
/// dropped as invalid so far (not counted in `index` or `total`), so a
/// total that shrinks is explained.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Progress {
    pub index: usize,
    pub total: usize,
    pub skipped: usize,
}

impl Progress {
    /// Request `index` of `total`, none skipped.
    pub fn of(index: usize, total: usize) -> Self {
        Progress {
            index,
            total,
            skipped: 0,
        }
    }

    /// "request 2 of 5", and " (1 invalid skipped)" when requests were
    /// dropped as invalid.
    pub fn label(&self) -> String {
        let mut s = format!("request {} of {}", self.index, self.total);
        if self.skipped > 0 {
            s.push_str(&format!(" ({} invalid skipped)", self.skipped));
        }
        s
    }

    /// The short form a narrow header uses: "2/5", and " (1 skipped)" when
    /// requests were dropped as invalid.
    pub fn short_label(&self) -> String {
        let mut s = format!("{}/{}", self.index, self.total);
        if self.skipped > 0 {
            s.push_str(&format!(" ({} skipped)", self.skipped));
        }
        s
    }
}

impl Default for Progress {
    /// A lone request: 1 of 1.
    fn default() -> Self {
        Progress::of(1, 1)
    }
}

/// A second Ctrl-C (Control-C in plain mode) within this time after one
/// that cancelled a request quits: the one window of every answerer.
#[cfg(feature = "cli")]
pub(crate) const QUIT_WINDOW: Duration = Duration::from_millis(1500);

/// How long a run gets, after a signal (SIGINT, SIGTERM, SIGHUP, SIGQUIT),
/// to end by itself (the terminal front end cancels what remains, a
/// script's run writes what it decided) before the process restores the
/// terminal and exits with 128 + the signal: the one grace period of
/// every front end.
#[cfg(feature = "cli")]
pub(crate) const SIGNAL_GRACE: Duration = Duration::from_secs(2);

/// Per-request context given to a responder.
#[derive(Debug, Clone, Default)]
pub struct Context {
    pub progress: Progress,
    /// `--timeout DURATION`: when this instant passes unanswered, the
    /// request is cancelled.
    pub deadline: Option<Instant>,
    /// The request's withdrawal flag, when its driver can withdraw it (the
    /// shared loop sets it): read through [`Context::withdrawn`], claimed
    /// through [`Context::claim_answer`]. None: never withdrawn.
    pub withdrawal: Option<Withdrawal>,
    /// Who asked beyond the event, when the front door said ([`Origin`];
    /// not sanitized).
    pub origin: Option<Origin>,
    /// The request is one of an MCP 2026-07-28 `input_required` round: its
    /// answer (a `cancel` when time runs out too) goes to the server with
    /// the round's other answers, once every request of the round is
    /// answered, not at once ([`Context::cancel_words`]).
    pub in_round: bool,
    /// How many requests wait behind this one, kept up to date while it is
    /// answered (the shared loop sets it): requests that arrive after it
    /// was asked are counted in [`Context::progress_now`]. None: only
    /// `progress` counts.
    pub behind: Option<Behind>,
}

/// How many requests wait behind the one being answered (asked, not yet
/// taken by the responder): a count shared between the thread that asks
/// and the one that answers, so the screen's "request i of n" counts
/// requests that arrive while it is up.
#[derive(Debug, Clone, Default)]
pub struct Behind(std::sync::Arc<std::sync::atomic::AtomicUsize>);

/// Requests waiting for the responder in the whole process (every
/// [`Behind`] together): see [`request_waiting`].
static WAITING: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// Whether a request has been asked and not yet taken by its responder
/// (any session of the process). A waiting screen ([`Responder::wait`])
/// reads it whenever it wakes (an arrival wakes it) and returns
/// as soon as it is true, so the request is drawn at once instead of at
/// the end of the slice.
#[cfg(feature = "cli")]
pub(crate) fn request_waiting() -> bool {
    WAITING.load(std::sync::atomic::Ordering::SeqCst) > 0
}

/// How many waiting requests were taken in the whole process so far: a
/// waiting screen that returned for a waiting request and finds, at its
/// next call, the count unchanged and a request still said to wait reads
/// its slice out as before (nothing it could take was there).
static TAKEN: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

#[cfg(feature = "cli")]
pub(crate) fn requests_taken() -> u64 {
    TAKEN.load(std::sync::atomic::Ordering::SeqCst)
}

impl Behind {
    /// The requests waiting now.
    pub fn count(&self) -> usize {
        self.0.load(std::sync::atomic::Ordering::SeqCst)
    }

    /// One more request waits. Counted before the request is handed over
    /// (so its taking never comes first); the waiting screen is woken
    /// once it is on the responder's channel.
    pub fn arrived(&self) {
        self.0.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        WAITING.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    }

    /// One waiting request was taken (or could not be put).
    pub fn taken(&self) {
        let was = self.0.fetch_update(
            std::sync::atomic::Ordering::SeqCst,
            std::sync::atomic::Ordering::SeqCst,
            |n| n.checked_sub(1),
        );
        if was.is_ok() {
            TAKEN.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            let _ = WAITING.fetch_update(
                std::sync::atomic::Ordering::SeqCst,
                std::sync::atomic::Ordering::SeqCst,
                |n| n.checked_sub(1),
            );
        }
    }
}

impl Drop for Behind {
    /// The last handle of a count takes its requests out of the process's
    /// count: a session that ends with requests never taken leaves no
    /// waiting screen believing one is coming.
    fn drop(&mut self) {
        if std::sync::Arc::strong_count(&self.0) == 1 {
            let left = self.count();
            if left > 0 {
                let _ = WAITING.fetch_update(
                    std::sync::atomic::Ordering::SeqCst,
                    std::sync::atomic::Ordering::SeqCst,
                    |n| Some(n.saturating_sub(left)),
                );
            }
        }
    }
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

/// What is said of a scripted URL accept whose URL the launcher could not
/// open ([`RespondError::NotOpened`]): all a server is told; the person's
/// message adds the local reason (it names the browser program).
pub(crate) const NOT_OPENED: &str = "the URL was not opened";

/// Why a responder gave no answer. The sentences do not name the request:
/// the caller knows which request it asked about and says so in its report.
/// Operating-system failures keep their `io::Error` as the source (and
/// quote it in their sentence, so `to_string` says the whole of it).
#[derive(Debug, thiserror::Error)]
pub enum RespondError {
    /// A scripted answer that the form refuses: no result for this request,
    /// exit 1. The text is data, not a cause: the form's reasons, joined
    /// (they may quote the request: sanitize before showing).
    #[error("answer refused: {0}")]
    Refused(String),
    /// A scripted URL-mode accept whose URL could not be opened (the
    /// launcher failed): no result for this request, exit 1, and the run
    /// goes on. The text is the launcher's reason, for the person only (it
    /// names the browser program): a server learns only that the URL was
    /// not opened.
    #[error("answer refused: {what}: {0}", what = NOT_OPENED)]
    NotOpened(#[source] crate::launcher::LaunchError),
    /// There is no terminal to answer on: `step` is what failed ("cannot
    /// open /dev/tty", "/dev/tty is not a terminal", "cannot enter raw
    /// mode", "cannot set up /dev/tty"). Exit 2; the message starts with
    /// "no terminal:".
    #[error("no terminal: {step} ({source})")]
    NoTerminal {
        /// The step that failed.
        step: &'static str,
        /// The operating system's error.
        #[source]
        source: std::io::Error,
    },
    /// The terminal failed while in use: `step` is what was being done
    /// ("draw", "read a key", "poll"). Exit 2.
    #[error("terminal: {step}: {source}")]
    Terminal {
        /// The step that failed.
        step: &'static str,
        /// The operating system's error.
        #[source]
        source: std::io::Error,
    },
    /// The terminal was closed (hung up) while a line was awaited, or an
    /// in-memory terminal has no more typed lines. Exit 2.
    #[error("the terminal was closed")]
    TerminalClosed,
    /// This build has no terminal front end (the `tui` feature is off).
    #[error("this build has no terminal front end (feature 'tui')")]
    NoFrontEnd,
    /// The request was withdrawn before the responder saw it (its reason).
    #[error("{}", .0.describe())]
    Withdrawn(WithdrawReason),
    /// The responder's thread has stopped: nothing can answer any more.
    #[error("the responder has stopped")]
    Stopped,
    /// Nothing can answer here: why no responder could be made (a run that
    /// only lists tools and has no terminal).
    #[error("{0}")]
    Unavailable(#[source] Box<dyn std::error::Error + Send + Sync>),
}

/// Work done on the terminal in plain lines ([`Responder::in_lines`]): a
/// sign-in, or its URL shown again. Errors: why the sign-in ended
/// ([`SignInError`]).
#[cfg(feature = "cli")]
pub type LinesJob<'a> = dyn FnMut(&mut dyn lines::LineIo) -> Result<(), SignInError> + 'a;

/// A lines job that crosses to the thread that answers requests: a
/// sign-in's question put on the session's desk
/// ([`crate::session::SignInDesk::ask_in_lines`]), run once. Errors: why
/// the sign-in ended ([`SignInError`]).
#[cfg(feature = "cli")]
pub type LinesJobOnce = Box<dyn FnOnce(&mut dyn lines::LineIo) -> Result<(), SignInError> + Send>;

/// Something that answers validated requests, one at a time.
pub trait Responder {
    /// Answer one validated request. The answer is validated by the driver
    /// before it is emitted.
    fn respond(&mut self, req: &RequestEvent, cx: &Context) -> Result<Outcome, RespondError>;

    /// Run `job` on this responder's terminal in plain lines (a sign-in
    /// asked while the session runs), between requests, on the thread that
    /// answers them. The default has no terminal: the job is not run and
    /// the error says so. (The command line's MCP sessions sign in here.)
    #[cfg(feature = "cli")]
    fn in_lines(&mut self, job: &mut LinesJob<'_>) -> Result<(), SignInError> {
        let _ = job;
        Err(SignInError::NoTerminal)
    }

    /// Called once when a session starts, before any request: the
    /// session's sign-ins (`sign_in::SignIns`), which a
    /// waiting screen shows while one waits for the browser (and cancels
    /// on Control-C). Every change of them wakes a screen that watches
    /// the arrival pipe (`responder::wake`). The default ignores them.
    #[cfg(feature = "cli")]
    fn follow_sign_ins(&mut self, sign_ins: std::sync::Arc<sign_in::SignIns>) {
        let _ = sign_ins;
    }

    /// Called once when a session starts, before any request: the
    /// session's protocol trace (`trace::Trace`), every JSON-RPC message
    /// in and out, which the full screen shows in its protocol view and
    /// plain lines print on `trace`. Every message recorded wakes a screen
    /// that watches the arrival pipe (`responder::wake`). The default
    /// ignores it.
    #[cfg(feature = "cli")]
    fn follow_trace(&mut self, trace: std::sync::Arc<trace::Trace>) {
        let _ = trace;
    }

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

    /// Called once when the driver has no more requests, before the
    /// results held for the terminal are written: a screen shows what it
    /// still has to say (time ran out on the last request) until the
    /// person acknowledges it. The default does nothing.
    fn finish(&mut self) {}

    /// Put a step of trying a server by hand to the person
    /// ([`crate::browse`]: the tool list, a tool's arguments, its result).
    ///
    /// Errors: [`RespondError::Unavailable`] (the default) when this
    /// responder cannot show it (a script, plain lines for now): the front
    /// door then lists the tools as JSON; a terminal's own failures.
    #[cfg(feature = "cli")]
    fn browse(&mut self, step: &crate::browse::Step) -> Result<crate::browse::Reply, RespondError> {
        let _ = step;
        Err(RespondError::Unavailable(
            "this answerer cannot show the tool list".into(),
        ))
    }
}

/// Time left until `deadline`, or None when there is none; zero when passed.
#[cfg(feature = "cli")]
pub(crate) fn time_left(deadline: Option<Instant>) -> Option<Duration> {
    deadline.map(|d| d.saturating_duration_since(Instant::now()))
}

/// Up to this many seconds a time left is said in seconds; from it on, in
/// larger units ([`short_duration`], [`duration_words`]).
#[cfg(any(test, feature = "cli"))]
pub(crate) const SECONDS_BELOW: u64 = 120;

/// The parts of `secs` a duration is said in: seconds below
/// [`SECONDS_BELOW`], then minutes and seconds below an hour, hours and
/// minutes below two days, days and hours from there; the smaller part is
/// cut, never rounded up.
#[cfg(any(test, feature = "cli"))]
fn duration_parts(secs: u64) -> [(u64, &'static str, &'static str); 2] {
    const NONE: (u64, &str, &str) = (0, "", "");
    match secs {
        s if s < SECONDS_BELOW => [(s, "s", "second"), NONE],
        s if s < 3600 => [(s / 60, "m", "minute"), (s % 60, "s", "second")],
        s if s < 48 * 3600 => [(s / 3600, "h", "hour"), (s / 60 % 60, "m", "minute")],
        s => [(s / 86400, "d", "day"), (s / 3600 % 24, "h", "hour")],
    }
}

/// A time left as a screen shows it: `42s`, `4m05s`, `1h59m`, `99d23h`.
#[cfg(any(test, feature = "cli"))]
pub(crate) fn short_duration(secs: u64) -> String {
    match duration_parts(secs) {
        [(n, u, _), (_, "", _)] => format!("{n}{u}"),
        [(n, u, _), (m, v, _)] => format!("{n}{u}{m:02}{v}"),
    }
}

/// A time left in words, for plain mode: `1 second`, `42 seconds`,
/// `4 minutes 5 seconds`, `2 hours`, `99 days 23 hours` (a smaller part of
/// zero is left out).
#[cfg(any(test, feature = "cli"))]
pub(crate) fn duration_words(secs: u64) -> String {
    let word = |n: u64, w: &str| format!("{n} {w}{}", if n == 1 { "" } else { "s" });
    match duration_parts(secs) {
        [(n, _, w), (0, _, _)] => word(n, w),
        [(n, _, w), (m, _, x)] => format!("{} {}", word(n, w), word(m, x)),
    }
}

/// Why a request's source withdrew it: each way has its own words on the
/// screen ([`WithdrawReason::notice`]) and in reports
/// ([`WithdrawReason::describe`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WithdrawReason {
    /// The source cancelled it (MCP `notifications/cancelled`), with its
    /// reason if it gave one (not sanitized).
    Cancelled(Option<String>),
    /// The call that asked (a `tools/call`, a prompt or resource read) has
    /// finished: the server no longer waits for this answer.
    CallFinished,
    /// The server process exited or its connection closed.
    ServerExited,
    /// The input stream the request came on closed.
    StreamClosed,
    /// The connection to the server ended (`mcp`: over Streamable HTTP a
    /// response stream that ended, or the session closing under the
    /// request).
    ConnectionClosed,
    /// The front door's timer ran out.
    TimedOut,
}

impl WithdrawReason {
    /// A sentence for a report (the source's reason sanitized).
    pub fn describe(&self) -> String {
        match self {
            WithdrawReason::Cancelled(None) => "the server withdrew this request".into(),
            WithdrawReason::Cancelled(Some(r)) => format!(
                "the server withdrew this request ({})",
                crate::safe_text::display(&r.chars().take(200).collect::<String>())
            ),
            WithdrawReason::CallFinished => {
                "the call that asked has finished: the request was withdrawn".into()
            }
            WithdrawReason::ServerExited => "the server exited: the request was withdrawn".into(),
            WithdrawReason::StreamClosed => {
                "the connection closed: the request was withdrawn".into()
            }
            WithdrawReason::ConnectionClosed => {
                "the connection to the server ended: the request was withdrawn".into()
            }
            WithdrawReason::TimedOut => "the request timed out and was withdrawn".into(),
        }
    }

    /// The first sentence of the notice a person sees when the request on
    /// screen ends this way (full screen and plain mode say the same).
    pub fn notice(&self) -> &'static str {
        match self {
            WithdrawReason::Cancelled(_) => {
                "The server withdrew this request. Nothing was sent."
            }
            WithdrawReason::CallFinished => {
                "The call that asked for this has finished: an answer can no longer be used. Nothing was sent."
            }
            WithdrawReason::ServerExited => {
                "The server exited before this request was answered. Nothing was sent."
            }
            WithdrawReason::StreamClosed => {
                "The input closed before this request was answered. Nothing was sent."
            }
            WithdrawReason::ConnectionClosed => {
                "The connection to the server ended before this request was answered. Nothing was sent."
            }
            WithdrawReason::TimedOut => {
                "Time ran out before this request was answered. Nothing was sent."
            }
        }
    }
}

/// The sentence of the notice that says `--timeout` ran out on a request
/// (the full screen and plain mode say the same,
/// [`Context::timed_out_notice`]); the words in brackets are
/// [`Context::cancel_words`].
pub const TIMED_OUT_NOTICE: &str = "Time ran out: this request was cancelled (cancel was sent).";

/// [`TIMED_OUT_NOTICE`] for a request of an MCP 2026-07-28 round, whose
/// cancel goes to the server with the round's other answers.
pub const TIMED_OUT_IN_ROUND_NOTICE: &str =
    "Time ran out: this request was cancelled (cancel will be sent with the round's answers).";

/// The banner a request screen shows once the call that asked for it has
/// finished while the request stays open ([`Context::call_finished`]; MCP
/// 2025-11-25, where the server's request outlives its tool call).
pub const CALL_FINISHED_BANNER: &str =
    "The call that asked for this has finished: your answer may no longer be used. It is still sent if you give one.";

/// The state of a [`Withdrawal`]: nobody decided yet.
const OPEN: u8 = 0;
/// The source withdrew the request: nothing is sent for it.
const WITHDRAWN: u8 = 1;
/// The answer was claimed: a later withdrawal does not take it back.
const ANSWERED: u8 = 2;

/// A request's source withdrew it (the server cancelled it, its stream
/// closed, the driver's timer ran out), or its answer was claimed first:
/// decided once, by whichever comes first ([`Withdrawal::withdraw_for`] on
/// the source's side, [`Withdrawal::claim_answer`] on the responder's), so
/// a key read just before a withdrawal either counts as the answer that is
/// sent or not at all, never as an answer the screen reports but nobody
/// sends. Cloned handles share the state and the reason.
///
/// Beside that decision it carries one note that does not end the request:
/// the call that asked has finished ([`Withdrawal::note_call_finished`]).
#[derive(Debug, Clone, Default)]
pub struct Withdrawal(
    std::sync::Arc<std::sync::atomic::AtomicU8>,
    std::sync::Arc<std::sync::Mutex<Option<WithdrawReason>>>,
    std::sync::Arc<std::sync::atomic::AtomicBool>,
);

impl Withdrawal {
    /// A flag that is not set.
    pub fn new() -> Self {
        Self::default()
    }

    /// Withdraw the request, giving no reason (idempotent; any thread).
    /// Returns false when its answer was claimed first.
    pub fn withdraw(&self) -> bool {
        self.withdraw_for(WithdrawReason::Cancelled(None))
    }

    /// Withdraw the request with the reason its source gave (MCP
    /// `notifications/cancelled` `reason`; not sanitized: the screen does
    /// that). Returns false when its answer was claimed first.
    pub fn withdraw_because(&self, reason: &str) -> bool {
        self.withdraw_for(WithdrawReason::Cancelled(Some(reason.to_owned())))
    }

    /// Withdraw the request for `why`; the reason is stored before the
    /// state changes. Returns true when the request is withdrawn (now or
    /// before), false when its answer was claimed first (the answer stands).
    pub fn withdraw_for(&self, why: WithdrawReason) -> bool {
        use std::sync::atomic::Ordering::SeqCst;
        if self.0.load(SeqCst) == ANSWERED {
            return false;
        }
        if let Ok(mut r) = self.1.lock() {
            if r.is_none() {
                *r = Some(why);
            }
        }
        match self.0.compare_exchange(OPEN, WITHDRAWN, SeqCst, SeqCst) {
            Ok(_) => true,
            Err(now) => now == WITHDRAWN,
        }
    }

    /// Claim the request's answer for the responder: true when it was not
    /// withdrawn (then a later withdrawal does not take the answer back),
    /// false when it was (the screen says so; nothing is sent). Idempotent.
    pub fn claim_answer(&self) -> bool {
        use std::sync::atomic::Ordering::SeqCst;
        match self.0.compare_exchange(OPEN, ANSWERED, SeqCst, SeqCst) {
            Ok(_) => true,
            Err(now) => now == ANSWERED,
        }
    }

    /// Whether the request was withdrawn.
    pub fn is_withdrawn(&self) -> bool {
        self.0.load(std::sync::atomic::Ordering::SeqCst) == WITHDRAWN
    }

    /// Why the request was withdrawn (None while it is not).
    pub fn why(&self) -> Option<WithdrawReason> {
        if !self.is_withdrawn() {
            return None;
        }
        self.1.lock().ok().and_then(|r| r.clone())
    }

    /// The call that asked for the request has finished while the request
    /// stays open (MCP 2025-11-25: the server's request is still open and
    /// an answer is still sent, but the server may no longer use it). The
    /// screen says so ([`CALL_FINISHED_BANNER`]); any thread, idempotent.
    pub fn note_call_finished(&self) {
        self.2.store(true, std::sync::atomic::Ordering::SeqCst);
    }

    /// Whether [`Withdrawal::note_call_finished`] was called.
    pub fn call_finished(&self) -> bool {
        self.2.load(std::sync::atomic::Ordering::SeqCst)
    }

    /// The reason the source gave for the withdrawal, if any (not
    /// sanitized).
    pub fn reason(&self) -> Option<String> {
        match self.why() {
            Some(WithdrawReason::Cancelled(r)) => r,
            _ => None,
        }
    }
}

/// Who is asking, as the front door knows it beyond the request event:
/// the server as the person launched it and the call that asked, with its
/// arguments. Informational, never identity; not sanitized (the screen does
/// that, and cuts each to one line).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Origin {
    /// The command line or URL the person gave to start or reach the
    /// server (`mcp -- npx weather-server`, `mcp --url https://…`).
    pub launched: Option<String>,
    /// The call that asked, as one line: method, name and arguments, e.g.
    /// `tools/call book {"day":"Monday"}`.
    pub call: Option<String>,
}

/// The line that says how the server was reached, from
/// [`Origin::launched`]: "Connected to URL" for a server URL (Streamable
/// HTTP), "Launched as: COMMAND" for a command. Not sanitized (as
/// `launched`).
#[cfg(any(test, feature = "cli"))]
pub(crate) fn launched_line(launched: &str) -> String {
    let lower = launched.get(..8).unwrap_or(launched).to_ascii_lowercase();
    if lower.starts_with("http://") || lower.starts_with("https://") {
        format!("Connected to: {launched}")
    } else {
        format!("Launched as: {launched}")
    }
}

impl Context {
    /// This context with its deadline moved `by` later (None when it has
    /// no deadline): the time a person spent acknowledging how the last
    /// request ended is not the next request's, whose `--timeout` counts
    /// from when it can be shown.
    pub fn deadline_later_by(&self, by: std::time::Duration) -> Option<Context> {
        self.deadline.map(|d| Context {
            deadline: Some(d + by),
            ..self.clone()
        })
    }

    /// Where the request stands now: [`Context::progress`], its total
    /// raised to count the requests waiting behind it at this moment
    /// ([`Context::behind`]), so "request 1 of 1" becomes "request 1 of 3"
    /// when two more arrive while it is on screen.
    pub fn progress_now(&self) -> Progress {
        let mut p = self.progress;
        if let Some(b) = &self.behind {
            p.total = p.total.max(p.index + b.count());
        }
        p
    }

    /// True when the request's source withdrew it while it was being
    /// answered: the responder should close its screen and return (any
    /// outcome; the driver sends nothing for a withdrawn request).
    pub fn withdrawn(&self) -> bool {
        self.withdrawal
            .as_ref()
            .is_some_and(Withdrawal::is_withdrawn)
    }

    /// The reason the source gave when it withdrew the request being
    /// answered (not sanitized: hostile server text), if it gave one.
    pub fn withdrawal_reason(&self) -> Option<String> {
        self.withdrawal.as_ref().and_then(Withdrawal::reason)
    }

    /// True when the call that asked for the request being answered has
    /// finished while it stays open ([`Withdrawal::note_call_finished`]):
    /// the screen shows [`CALL_FINISHED_BANNER`] and keeps the request.
    pub fn call_finished(&self) -> bool {
        self.withdrawal
            .as_ref()
            .is_some_and(Withdrawal::call_finished)
    }

    /// How the `cancel` a responder gives when time runs out reaches the
    /// source, as the person is told: "cancel was sent" for a request
    /// answered on its own, "cancel will be sent with the round's answers"
    /// for one of a round ([`Context::in_round`]), where it only goes out
    /// with the round's retry.
    pub fn cancel_words(&self) -> &'static str {
        if self.in_round {
            "cancel will be sent with the round's answers"
        } else {
            "cancel was sent"
        }
    }

    /// The sentence that says `--timeout` ran out on the request being
    /// answered ([`TIMED_OUT_NOTICE`], or [`TIMED_OUT_IN_ROUND_NOTICE`] for
    /// a request of a round): the full screen and plain mode both say it.
    pub fn timed_out_notice(&self) -> &'static str {
        if self.in_round {
            TIMED_OUT_IN_ROUND_NOTICE
        } else {
            TIMED_OUT_NOTICE
        }
    }

    /// Who asked for the request being answered, when the front door said
    /// ([`Origin`]; not sanitized).
    pub fn origin(&self) -> Option<Origin> {
        self.origin.clone()
    }

    /// Why the request being answered was withdrawn (None while it is not).
    pub fn withdrawn_why(&self) -> Option<WithdrawReason> {
        self.withdrawal.as_ref().and_then(Withdrawal::why)
    }

    /// Claim the answer of the request being answered before the screen
    /// reports it answered ([`Withdrawal::claim_answer`]): false when the
    /// source withdrew it first (say so; nothing is sent). True when the
    /// driver gave no withdrawal flag.
    pub fn claim_answer(&self) -> bool {
        self.withdrawal
            .as_ref()
            .is_none_or(Withdrawal::claim_answer)
    }
}

/// Most lines of a server's stderr kept for the screens
/// ([`ServerStderr`]); older ones are dropped, and counted.
pub const STDERR_LINES: usize = 1_000;
/// Characters of one stderr line kept ([`ServerStderr`]).
pub const STDERR_LINE_CHARS: usize = 500;

/// What a stdio server wrote on its stderr, its last [`STDERR_LINES`]
/// lines, each escaped (control and bidi characters written as `\u{..}`)
/// and cut to [`STDERR_LINE_CHARS`]: the session adds each line as it
/// comes, the screens show them (the last few on the waiting screen,
/// all of them on a key). Clones share the same lines.
#[derive(Debug, Clone, Default)]
pub struct ServerStderr(std::sync::Arc<std::sync::Mutex<StderrRing>>);

#[derive(Debug, Default)]
struct StderrRing {
    lines: std::collections::VecDeque<String>,
    total: u64,
}

impl ServerStderr {
    /// Add one line as the server wrote it (escaped and cut here).
    pub fn push(&self, line: &str) {
        let cut: String = line.chars().take(STDERR_LINE_CHARS).collect();
        let mut safe = crate::safe_text::display(&cut).into_owned();
        if line.chars().nth(STDERR_LINE_CHARS).is_some() {
            safe.push('…');
        }
        if let Ok(mut r) = self.0.lock() {
            if r.lines.len() == STDERR_LINES {
                r.lines.pop_front();
            }
            r.lines.push_back(safe);
            r.total += 1;
        }
    }

    /// The last `n` lines kept (safe text), the latest last.
    pub fn last(&self, n: usize) -> Vec<String> {
        self.0
            .lock()
            .map(|r| {
                r.lines
                    .iter()
                    .skip(r.lines.len().saturating_sub(n))
                    .cloned()
                    .collect()
            })
            .unwrap_or_default()
    }

    /// Every line kept (safe text), the latest last, and how many lines
    /// came in all (more than kept once older ones were dropped).
    pub fn all(&self) -> (Vec<String>, u64) {
        self.0
            .lock()
            .map(|r| (r.lines.iter().cloned().collect(), r.total))
            .unwrap_or_default()
    }

    /// How many lines came in all.
    pub fn total(&self) -> u64 {
        self.0.lock().map(|r| r.total).unwrap_or(0)
    }
}

/// Two handles are equal when they share the same lines.
impl PartialEq for ServerStderr {
    fn eq(&self, other: &Self) -> bool {
        std::sync::Arc::ptr_eq(&self.0, &other.0)
    }
}

impl Eq for ServerStderr {}

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
    /// The driver is still connecting to its source (`mcp` before the
    /// server answered the handshake): the screen says so instead of
    /// "waiting for the next request".
    pub connecting: bool,
    /// A call the person started is running (trying a server by hand):
    /// the screen says so with what the server reports meanwhile, and
    /// offers to cancel it ([`WaitKey::CancelCall`]). None otherwise.
    pub call: Option<CallInProgress>,
    /// What the server (stdio) wrote on its stderr in this session, when
    /// the screens show it ([`ServerStderr`]): the last lines under the
    /// rest, all of them on a key. None: not shown here (said on our
    /// stderr instead).
    pub stderr: Option<ServerStderr>,
}

/// Most lines of a call's progress and log kept for its waiting screen
/// ([`CallInProgress::lines`]).
pub(crate) const CALL_LINES: usize = 5;

/// A call running while the waiting screen is up ([`Waiting::call`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CallInProgress {
    /// Which call this is, counted from 1 in the run: a new number is a
    /// new call (a front end that says each line once starts again).
    pub number: u64,
    /// What the server reported while it runs (`notifications/progress`
    /// and `notifications/message`), one safe line each (escaped, cut),
    /// the latest last, at most five.
    pub lines: Vec<String>,
    /// How many lines came in all: more than `lines` holds once older ones
    /// were dropped, so a front end that says each line once says the
    /// last `total - said` of them.
    pub total: u64,
}

impl CallInProgress {
    /// Add `line` (safe text), dropping the oldest beyond the last five.
    pub fn push(&mut self, line: String) {
        if self.lines.len() == CALL_LINES {
            self.lines.remove(0);
        }
        self.lines.push(line);
        self.total += 1;
    }

    /// The lines that came after the first `said` (as many of them as are
    /// still kept), oldest first.
    pub fn after(&self, said: u64) -> &[String] {
        let new = self.total.saturating_sub(said);
        let n = usize::try_from(new)
            .unwrap_or(usize::MAX)
            .min(self.lines.len());
        &self.lines[self.lines.len() - n..]
    }
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
    /// Cancel the call in progress (only while [`Waiting::call`] is set:
    /// Esc on the full screen, Control-C in plain mode).
    CancelCall,
}

/// Most characters of a withdrawal reason shown (the rest is cut, "…").
#[cfg(feature = "cli")]
pub(crate) const MAX_WITHDRAWN_REASON: usize = 200;

/// The reason a server gave for withdrawing a request (MCP
/// `notifications/cancelled` `reason`) as one safe line, framed as its
/// words and cut to [`MAX_WITHDRAWN_REASON`] characters; the full-screen
/// notice shows the same line.
#[cfg(feature = "cli")]
pub(crate) fn withdrawn_reason_line(reason: &str) -> String {
    let mut r: String = reason.chars().take(MAX_WITHDRAWN_REASON).collect();
    if reason.chars().nth(MAX_WITHDRAWN_REASON).is_some() {
        r.push('…');
    }
    format!(
        "The server's reason (its words): {}",
        crate::safe_text::display(&r)
    )
}

/// `extensions.mcp.call` of a request event as `method name`
/// (informational: which call was in progress when the server asked; not
/// sanitized). Read from [`RequestEvent::mcp`], so a request read without
/// its tree (the fast reading) says it too.
#[cfg(feature = "cli")]
pub(crate) fn request_call(req: &RequestEvent) -> Option<String> {
    let call = req.mcp.as_ref()?.call.as_ref()?;
    let line = format!("{} {}", call.method.as_str(), call.name);
    Some(line.trim_end().to_owned())
}

/// The message of a request as the server sent it (`message` of the
/// params), or empty when there is none (a view that is neither a body nor
/// a form refused as not a form, or params without a message). Not
/// sanitised: hostile text, for the not-a-form screen and plain mode. A
/// body's message is its own; a not-a-form view keeps the one its params
/// gave.
#[cfg(feature = "cli")]
pub(crate) fn request_message(req: &RequestEvent) -> String {
    match &req.view {
        crate::binding::RequestView::Body(r) => r.message.clone(),
        crate::binding::RequestView::NotAForm { message, .. } => {
            message.clone().unwrap_or_default()
        }
        _ => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The time-out sentence names the same cancel as the words the
    /// report uses, for a request on its own and one of a round.
    #[test]
    fn the_timed_out_notice_says_how_the_cancel_goes() {
        for in_round in [false, true] {
            let cx = Context {
                in_round,
                ..Context::default()
            };
            assert_eq!(
                cx.timed_out_notice(),
                format!(
                    "Time ran out: this request was cancelled ({}).",
                    cx.cancel_words()
                )
            );
        }
    }

    #[test]
    fn a_call_keeps_its_last_lines_and_says_which_are_new() {
        let mut c = CallInProgress::default();
        c.push("one".into());
        c.push("two".into());
        assert_eq!(c.after(0), ["one", "two"]);
        assert_eq!(c.after(1), ["two"]);
        assert!(c.after(2).is_empty());
        for i in 3..=8 {
            c.push(format!("n{i}"));
        }
        assert_eq!(c.total, 8);
        assert_eq!(c.lines.len(), CALL_LINES);
        assert_eq!(c.lines[0], "n4");
        // Said two: the six after them, of which five are kept.
        assert_eq!(c.after(2), ["n4", "n5", "n6", "n7", "n8"]);
        assert_eq!(c.after(7), ["n8"]);
    }

    #[test]
    fn a_server_url_is_connected_to_and_a_command_launched() {
        assert_eq!(
            launched_line("https://mcp.example/mcp"),
            "Connected to: https://mcp.example/mcp"
        );
        assert_eq!(launched_line("HTTP://h/mcp"), "Connected to: HTTP://h/mcp");
        assert_eq!(
            launched_line("npx -y weather-server"),
            "Launched as: npx -y weather-server"
        );
    }

    #[test]
    fn long_times_left_are_said_in_larger_units() {
        let short: Vec<String> = [1, 42, 119, 120, 245, 3599, 3600, 7199, 172_799, 8_639_999]
            .into_iter()
            .map(short_duration)
            .collect();
        assert_eq!(
            short,
            [
                "1s", "42s", "119s", "2m00s", "4m05s", "59m59s", "1h00m", "1h59m", "47h59m",
                "99d23h"
            ]
        );
        assert_eq!(duration_words(1), "1 second");
        assert_eq!(duration_words(42), "42 seconds");
        assert_eq!(duration_words(245), "4 minutes 5 seconds");
        assert_eq!(duration_words(3660), "1 hour 1 minute");
        assert_eq!(duration_words(7200), "2 hours");
        assert_eq!(duration_words(8_639_999), "99 days 23 hours");
    }

    #[test]
    fn a_withdrawal_and_a_claimed_answer_exclude_each_other() {
        let w = Withdrawal::new();
        assert!(w.withdraw_for(WithdrawReason::ServerExited));
        assert!(!w.claim_answer());
        assert!(w.is_withdrawn());
        assert_eq!(w.why(), Some(WithdrawReason::ServerExited));
        // The first reason stays.
        assert!(w.withdraw_for(WithdrawReason::StreamClosed));
        assert_eq!(w.why(), Some(WithdrawReason::ServerExited));
        let a = Withdrawal::new();
        assert!(a.claim_answer());
        assert!(a.claim_answer());
        assert!(!a.withdraw_because("too late"));
        assert!(!a.is_withdrawn());
        assert_eq!(a.why(), None);
        assert_eq!(a.reason(), None);
    }

    #[test]
    fn each_way_a_request_ends_has_its_own_words() {
        let ways = [
            WithdrawReason::Cancelled(None),
            WithdrawReason::CallFinished,
            WithdrawReason::ServerExited,
            WithdrawReason::StreamClosed,
            WithdrawReason::TimedOut,
        ];
        let words: std::collections::HashSet<&str> = ways.iter().map(|w| w.notice()).collect();
        assert_eq!(words.len(), ways.len());
        assert_eq!(
            WithdrawReason::ServerExited.notice(),
            "The server exited before this request was answered. Nothing was sent."
        );
        assert!(WithdrawReason::CallFinished
            .notice()
            .starts_with("The call that asked for this has finished"));
    }

    #[test]
    fn the_total_counts_the_requests_waiting_behind_now() {
        let behind = Behind::default();
        let cx = Context {
            progress: Progress::of(1, 1),
            behind: Some(behind.clone()),
            ..Default::default()
        };
        assert_eq!(cx.progress_now(), Progress::of(1, 1));
        behind.arrived();
        behind.arrived();
        assert_eq!(cx.progress_now().label(), "request 1 of 3");
        // Taken ones no longer wait; a known total never shrinks.
        behind.taken();
        behind.taken();
        behind.taken();
        assert_eq!(behind.count(), 0);
        let later = Context {
            progress: Progress::of(2, 3),
            behind: Some(behind),
            ..Default::default()
        };
        assert_eq!(later.progress_now(), Progress::of(2, 3));
    }
}
