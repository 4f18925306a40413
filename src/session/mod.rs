//! The request → responder → answer loop both front doors run on (the
//! JSON-RPC session of `mcp`, the AHP event stream of [`crate::respond`]),
//! with the source's cancellations handled in one place and each outcome
//! settled into its one result ([`settle`]).
//!
//! Threads:
//! - the **responder thread** is the caller's thread ([`run`] serves the
//!   responder there): it runs the blocking [`Responder`] (the terminal
//!   form, or a script) one request at a time and, between requests, its
//!   waiting screen ([`Responder::wait`]) in slices of [`WAIT_SLICE`], so
//!   keys (Ctrl-C twice) are always read (a script, [`Between::Sleep`],
//!   sleeps until the next request instead);
//! - the **session thread** runs a current-thread tokio runtime with the
//!   front door's future: transport readers, timers, signals. It talks to
//!   the responder only through a [`Desk`], so reading and writing the
//!   source never wait for a person.
//!
//! A sign-in (the MCP client's, run on the HTTP transport's threads) uses
//! the same desk: its question goes to the responder thread on the desk's
//! channel ([`SignInDesk::ask_in_lines`]), taken after the requests asked
//! before it, and what it is doing (under way, waiting for the browser)
//! is the session's [`SignIns`], which the responder is given when the
//! session starts ([`Responder::follow_sign_ins`]) and whose every change
//! wakes the waiting screen and the session.
//!
//! Cancellation from the source (the server cancelled the request, its
//! stream closed, a timer ran out, the person quit) is [`Desk::withdraw`]: the request's
//! [`Withdrawal`] flag is set, the screen showing it closes
//! ([`Context::withdrawn`]), a request not yet shown is skipped (and no
//! longer counted among those waiting, [`Context::behind`]), and the
//! eventual answer comes back as [`Reply::Withdrawn`], so the front door
//! sends nothing for it.
//!
//! A quit ends the run for the responder: once a respond returns
//! [`Outcome::Quit`] (or the waiting screen reports [`WaitKey::Quit`]), no
//! later request is shown and no waiting screen runs again; each request
//! still asked is answered [`Outcome::Quit`] at once (its `cancel`), so
//! nothing says that the source ended a request the person quit on.

mod settle;

pub use settle::{settle, NoResult, Settled};

use std::collections::HashMap;
use std::future::Future;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc as smpsc;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::mpsc;

use crate::binding::RequestEvent;
use crate::responder::lines::SignInError;
use crate::responder::sign_in::SignIns;
use crate::responder::{
    Behind, Context, LinesJobOnce, Origin, Outcome, RespondError, Responder, WaitKey, Waiting,
    Withdrawal,
};

/// How long one look at the waiting screen lasts between checks for a new
/// request; also the most a request waits before the responder takes it.
pub const WAIT_SLICE: Duration = Duration::from_millis(50);
/// Most requests open at once (asked and not yet answered); a front door
/// refuses more, so a flooding source cannot grow the queue without bound.
pub const MAX_OPEN: usize = 16;

pub use crate::responder::WithdrawReason;

/// What the responder thread reports to the front door ([`Desk::next`]).
#[derive(Debug)]
pub enum Reply {
    /// The responder finished request `key`.
    Answered {
        key: u64,
        outcome: Result<Outcome, RespondError>,
    },
    /// Request `key` was withdrawn by its source: nothing must be sent for
    /// it (whatever the responder did). `shown` is false when it was
    /// withdrawn while still queued: the person never saw it, and no screen
    /// said the withdrawal.
    Withdrawn {
        key: u64,
        reason: WithdrawReason,
        shown: bool,
    },
    /// A key on the waiting screen: quit, retry now, give up.
    Key(WaitKey),
}

/// Requests sent to the responder thread.
enum ToResponder {
    Ask {
        key: u64,
        req: Box<RequestEvent>,
        cx: Context,
        withdrawal: Withdrawal,
        origin: Option<Box<Origin>>,
        /// The time limit, started when the responder takes the request.
        limit: Option<Duration>,
        /// The count of requests waiting for the responder.
        behind: Behind,
        /// Set by whichever comes first, the responder taking the request
        /// or its withdrawal while queued: that one takes it off `behind`.
        uncounted: Arc<AtomicBool>,
    },
    /// A step of trying a server by hand ([`Desk::browse`]).
    Browse {
        step: Box<crate::browse::Step>,
        reply: BrowseSender,
    },
    /// A sign-in's question, run in plain lines on the responder's
    /// terminal ([`SignInDesk::ask_in_lines`]).
    Lines {
        job: LinesJobOnce,
        reply: smpsc::Sender<Result<(), SignInError>>,
    },
}

/// The sign-in's side of a session's [`Desk`], for the threads that sign
/// in (the HTTP transport's): put a question to the person on the
/// responder's terminal, and the session's [`SignIns`]. Cloned freely;
/// the questions travel on the desk's own channel, after the requests
/// asked before them. It does not keep that channel open: once the desk
/// is dropped the responder thread ends, even while a transport's thread
/// still holds this.
#[derive(Clone)]
pub struct SignInDesk {
    to: std::sync::Weak<smpsc::Sender<ToResponder>>,
    sign_ins: Arc<SignIns>,
}

impl std::fmt::Debug for SignInDesk {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SignInDesk").finish_non_exhaustive()
    }
}

impl SignInDesk {
    /// Put `job` to the responder thread, which runs it in plain lines on
    /// its terminal ([`Responder::in_lines`]) once the requests asked
    /// before it are answered; the waiting screen is woken for it. Its
    /// result comes back on the returned channel, which closes without
    /// one when the desk was dropped or the responder thread ended first.
    /// After a quit the job is not run: [`SignInError::NotAsked`].
    pub fn ask_in_lines(&self, job: LinesJobOnce) -> smpsc::Receiver<Result<(), SignInError>> {
        let (reply, rx) = smpsc::channel();
        let Some(to) = self.to.upgrade() else {
            return rx;
        };
        if to.send(ToResponder::Lines { job, reply }).is_ok() {
            // Only now: the woken screen finds the job on the channel.
            self.sign_ins.changed();
        }
        rx
    }

    /// The session's sign-ins.
    pub fn sign_ins(&self) -> &Arc<SignIns> {
        &self.sign_ins
    }
}

/// Where the responder thread sends what the person did on a
/// [`crate::browse::Step`].
type BrowseSender = tokio::sync::oneshot::Sender<Result<crate::browse::Reply, RespondError>>;

/// What [`Desk::browse`] gives to wait on: the person's reply to the step
/// (an error when the responder cannot show it); closed when the responder
/// thread stopped first.
pub type BrowseReceiver =
    tokio::sync::oneshot::Receiver<Result<crate::browse::Reply, RespondError>>;

/// What the responder thread sends back.
enum FromResponder {
    Done {
        key: u64,
        /// The request, given back to a front door that lent it.
        req: Box<RequestEvent>,
        /// None: withdrawn before it was shown.
        outcome: Option<Result<Outcome, RespondError>>,
    },
    Key(WaitKey),
}

/// The front door's side of the loop: ask the responder, withdraw, show a
/// status, and receive the replies.
pub struct Desk {
    /// Held here only (the sign-in's side holds it weakly): dropping the
    /// desk closes the channel, which ends the responder thread.
    to: Arc<smpsc::Sender<ToResponder>>,
    /// What the waiting screen shows: one slot, the latest status wins (a
    /// flood of statuses cannot queue up while a screen is open).
    shown: Arc<Mutex<Waiting>>,
    from: mpsc::Receiver<FromResponder>,
    open: HashMap<u64, Open>,
    next_key: u64,
    /// The last lent request the responder gave back ([`Desk::lend`]).
    returned: Option<(u64, Box<RequestEvent>)>,
    /// Each request's time limit ([`Desk::set_time_limit`]).
    limit: Option<Duration>,
    /// Requests asked and not yet taken by the responder; the request on
    /// screen reads it ([`Context::behind`]).
    behind: Behind,
    /// The session's sign-ins, shared with the responder.
    sign_ins: Arc<SignIns>,
    /// The session's protocol trace, shared with the responder.
    trace: Arc<crate::responder::trace::Trace>,
    /// The server's stderr, shown on every waiting screen once set
    /// ([`Desk::show_stderr`]).
    stderr: Option<crate::responder::ServerStderr>,
}

struct Open {
    withdrawal: Withdrawal,
    /// As [`ToResponder::Ask`]'s `uncounted`.
    uncounted: Arc<AtomicBool>,
    reason: Option<WithdrawReason>,
    /// Asked with [`Desk::lend`]: the request is kept when it comes back.
    lent: bool,
}

/// The desk was asked more than [`MAX_OPEN`] requests, or the responder
/// thread is gone.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AskError {
    #[error("{MAX_OPEN} requests are already open")]
    Busy,
    #[error("the responder has stopped")]
    Gone,
}

impl Desk {
    /// Give every request asked from now on this time limit (`--timeout`),
    /// counted from the moment the responder takes it (the request can be
    /// shown), not from when it was asked: a request queued behind another
    /// keeps its whole time. The responder thread sets
    /// [`Context::deadline`] from it; None leaves the deadline the front
    /// door gave.
    pub fn set_time_limit(&mut self, limit: Option<Duration>) {
        self.limit = limit;
    }

    /// Put `req` to the responder; returns the key its reply will carry.
    ///
    /// Errors: [`AskError::Busy`] when [`MAX_OPEN`] requests are open,
    /// [`AskError::Gone`] when the responder thread ended.
    pub fn ask(&mut self, req: RequestEvent, cx: Context) -> Result<u64, AskError> {
        self.put(req, cx, false, None)
    }

    /// Like [`Desk::ask`], saying who asked ([`Origin`]: how the person
    /// launched the server, the call that asked), which the screen shows
    /// ([`Context::origin`]).
    ///
    /// Errors: as [`Desk::ask`].
    pub fn ask_from(
        &mut self,
        req: RequestEvent,
        cx: Context,
        origin: Origin,
    ) -> Result<u64, AskError> {
        self.put(req, cx, false, Some(Box::new(origin)))
    }

    /// Like [`Desk::ask`], and the request comes back with its reply: take
    /// it with [`Desk::returned`] (a front door that builds the result from
    /// the request needs no copy of it).
    ///
    /// Errors: as [`Desk::ask`].
    pub fn lend(&mut self, req: RequestEvent, cx: Context) -> Result<u64, AskError> {
        self.put(req, cx, true, None)
    }

    /// The lent request `key`, once its reply was received; None for any
    /// other key.
    pub fn returned(&mut self, key: u64) -> Option<RequestEvent> {
        match self.returned.take() {
            Some((k, req)) if k == key => Some(*req),
            other => {
                self.returned = other;
                None
            }
        }
    }

    fn put(
        &mut self,
        req: RequestEvent,
        cx: Context,
        lent: bool,
        origin: Option<Box<Origin>>,
    ) -> Result<u64, AskError> {
        if self.open.len() >= MAX_OPEN {
            return Err(AskError::Busy);
        }
        self.next_key += 1;
        let key = self.next_key;
        let withdrawal = Withdrawal::new();
        let uncounted = Arc::new(AtomicBool::new(false));
        self.behind.arrived();
        self.to
            .send(ToResponder::Ask {
                key,
                req: Box::new(req),
                cx,
                withdrawal: withdrawal.clone(),
                origin,
                limit: self.limit,
                behind: self.behind.clone(),
                uncounted: Arc::clone(&uncounted),
            })
            .map_err(|_| {
                self.behind.taken();
                AskError::Gone
            })?;
        // Only now: a waiting screen woken earlier would find the request
        // counted but not yet there to take, and read out its slice.
        crate::responder::wake::wake();
        self.open.insert(
            key,
            Open {
                withdrawal,
                uncounted,
                reason: None,
                lent,
            },
        );
        Ok(key)
    }

    /// The source withdrew request `key`: its screen closes and its reply
    /// will be [`Reply::Withdrawn`]; a request still queued is no longer
    /// counted among those waiting (the screen's "request i of n" drops
    /// it at once). Returns false when `key` is not open
    /// (already answered, or never asked) or the responder already claimed
    /// its answer ([`Withdrawal::claim_answer`]: the answer is then sent).
    pub fn withdraw(&mut self, key: u64, reason: WithdrawReason) -> bool {
        match self.open.get_mut(&key) {
            // A responder that claimed the answer first keeps it: the
            // answer is sent (a cancellation that crosses an answer).
            Some(o) if o.reason.is_none() => {
                if !o.withdrawal.withdraw_for(reason.clone()) {
                    return false;
                }
                if !o.uncounted.swap(true, Ordering::SeqCst) {
                    self.behind.taken();
                }
                o.reason = Some(reason);
                true
            }
            _ => false,
        }
    }

    /// The call that asked for request `key` has finished, and the request
    /// stays open: its screen says the answer may no longer be used
    /// ([`Withdrawal::note_call_finished`]). Returns false when `key` is not
    /// open, or was withdrawn (its screen says the withdrawal, and only
    /// that: a withdrawn request is not open for an answer).
    pub fn note_call_finished(&self, key: u64) -> bool {
        match self.open.get(&key) {
            Some(o) if o.reason.is_none() && !o.withdrawal.is_withdrawn() => {
                o.withdrawal.note_call_finished();
                true
            }
            _ => false,
        }
    }

    /// Withdraw every open request (the source is gone).
    pub fn withdraw_all(&mut self, reason: WithdrawReason) {
        let keys: Vec<u64> = self.open.keys().copied().collect();
        for k in keys {
            self.withdraw(k, reason.clone());
        }
    }

    /// Whether request `key` is still open.
    #[cfg(any(test, feature = "internals"))]
    #[cfg(any(test, feature = "internals"))]
    pub fn is_open(&self, key: u64) -> bool {
        self.open.contains_key(&key)
    }

    /// How many requests are open.
    #[cfg(any(test, feature = "internals"))]
    #[cfg(any(test, feature = "internals"))]
    pub fn open_count(&self) -> usize {
        self.open.len()
    }

    /// Put a step of trying a server by hand to the responder (the tool
    /// list, a tool's arguments, its result: [`crate::browse`]). The
    /// responder takes it after the requests asked before it; the front
    /// door keeps serving its source while it waits on the receiver.
    ///
    /// Errors: [`AskError::Gone`] when the responder thread ended.
    pub fn browse(&mut self, step: crate::browse::Step) -> Result<BrowseReceiver, AskError> {
        let (tx, rx) = tokio::sync::oneshot::channel();
        self.to
            .send(ToResponder::Browse {
                step: Box::new(step),
                reply: tx,
            })
            .map_err(|_| AskError::Gone)?;
        Ok(rx)
    }

    /// The session's sign-ins ([`SignIns`]): what its authorizer is
    /// doing, which its responder's screens show; the session's clock
    /// stops while one is under way.
    pub fn sign_ins(&self) -> &Arc<SignIns> {
        &self.sign_ins
    }

    /// The session's protocol trace: its front door records every
    /// message it sends and receives there, its responder's screens show
    /// it.
    pub fn trace(&self) -> &Arc<crate::responder::trace::Trace> {
        &self.trace
    }

    /// The sign-in's side of this desk, for the authorizer
    /// (`mcp::auth::AuthOptions::desk`).
    pub fn sign_in_desk(&self) -> SignInDesk {
        SignInDesk {
            to: Arc::downgrade(&self.to),
            sign_ins: Arc::clone(&self.sign_ins),
        }
    }

    /// What the waiting screen shows from now on (with the server's
    /// stderr, when the session shows it: [`Desk::show_stderr`]).
    pub fn show(&self, mut waiting: Waiting) {
        if waiting.stderr.is_none() {
            waiting.stderr = self.stderr.clone();
        }
        if let Ok(mut w) = self.shown.lock() {
            *w = waiting;
        }
    }

    /// From now on every waiting screen also shows `stderr` (what the
    /// server writes on its stderr), and so does the one shown now.
    pub fn show_stderr(&mut self, stderr: crate::responder::ServerStderr) {
        self.stderr = Some(stderr.clone());
        if let Ok(mut w) = self.shown.lock() {
            w.stderr = Some(stderr);
        }
    }

    /// The next reply; None when the responder thread is gone.
    /// Cancel-safe (a `select!` branch may drop it).
    pub async fn next(&mut self) -> Option<Reply> {
        loop {
            match self.from.recv().await? {
                FromResponder::Key(k) => return Some(Reply::Key(k)),
                FromResponder::Done { key, req, outcome } => {
                    let Some(open) = self.open.remove(&key) else {
                        continue;
                    };
                    if open.lent {
                        self.returned = Some((key, req));
                    }
                    let shown = outcome.is_some();
                    return Some(match (open.reason, outcome) {
                        (Some(reason), _) => Reply::Withdrawn { key, reason, shown },
                        (None, Some(outcome)) => Reply::Answered { key, outcome },
                        // Skipped without a reason cannot happen; report it
                        // as withdrawn rather than invent an answer.
                        (None, None) => Reply::Withdrawn {
                            key,
                            reason: WithdrawReason::TimedOut,
                            shown,
                        },
                    });
                }
            }
        }
    }
}

impl Drop for Desk {
    /// The front door is done: any screen still open closes.
    fn drop(&mut self) {
        self.withdraw_all(WithdrawReason::StreamClosed);
    }
}

/// How the responder thread spends the time between requests.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Between {
    /// A person answers: the waiting screen runs ([`Responder::wait`]) in
    /// slices of [`WAIT_SLICE`], so it redraws and reads keys.
    Screen,
    /// A script answers: the thread sleeps until the next request, so a
    /// stream of thousands is answered at full speed.
    Sleep,
}

/// After an answer, how long the responder thread waits for the next
/// request before it shows the waiting screen: a flowing stream goes from
/// one request to the next without a waiting screen flashing in between
/// (the front door validates the next request meanwhile).
const FOLLOW_ON: Duration = Duration::from_millis(25);

/// Serve `responder` on this thread until the desk is dropped: each asked
/// request is answered (or skipped when already withdrawn); between
/// requests the waiting screen runs in slices of [`WAIT_SLICE`] (or, for a
/// script, the thread sleeps until the next request). After a quit no
/// request is shown and no waiting screen runs: each request still asked
/// is answered [`Outcome::Quit`] unseen, until the desk is dropped.
fn serve(
    responder: &mut dyn Responder,
    rx: smpsc::Receiver<ToResponder>,
    tx: mpsc::Sender<FromResponder>,
    shown: &Mutex<Waiting>,
    between: Between,
) {
    let mut answered = false;
    let mut quit = false;
    loop {
        let next = match (between, answered) {
            _ if quit => rx.recv().map_err(|_| smpsc::RecvTimeoutError::Disconnected),
            (Between::Sleep, _) => rx.recv().map_err(|_| smpsc::RecvTimeoutError::Disconnected),
            (Between::Screen, true) => rx.recv_timeout(FOLLOW_ON),
            (Between::Screen, false) => rx.try_recv().map_err(|e| match e {
                smpsc::TryRecvError::Empty => smpsc::RecvTimeoutError::Timeout,
                smpsc::TryRecvError::Disconnected => smpsc::RecvTimeoutError::Disconnected,
            }),
        };
        answered = false;
        let reply = match next {
            Ok(ToResponder::Ask {
                key,
                req,
                mut cx,
                withdrawal,
                origin,
                limit,
                behind,
                uncounted,
            }) => {
                answered = true;
                // Taken: it no longer waits (unless a withdrawal already
                // took it off), and those still waiting count in its
                // "request i of n".
                if !uncounted.swap(true, Ordering::SeqCst) {
                    behind.taken();
                }
                cx.behind = Some(behind);
                // The clock starts now, when the request can be shown.
                if let Some(l) = limit {
                    cx.deadline = std::time::Instant::now().checked_add(l);
                }
                // The request's flag and origin travel in its context.
                cx.withdrawal = Some(withdrawal.clone());
                cx.origin = origin.map(|o| *o);
                let outcome = (!withdrawal.is_withdrawn()).then(|| {
                    // After a quit the request is not shown: it is
                    // answered as the quit answered the rest.
                    let o = if quit {
                        Ok(Outcome::Quit)
                    } else {
                        responder.respond(&req, &cx)
                    };
                    // Decided here at the latest: a withdrawal after this
                    // point no longer takes the answer back.
                    withdrawal.claim_answer();
                    o
                });
                quit |= matches!(outcome, Some(Ok(Outcome::Quit)));
                FromResponder::Done { key, req, outcome }
            }
            Ok(ToResponder::Browse { step, reply }) => {
                answered = true;
                // After a quit nothing is shown: the step ends the run too.
                let r = if quit {
                    Ok(crate::browse::Reply::Quit)
                } else {
                    responder.browse(&step)
                };
                quit |= matches!(r, Ok(crate::browse::Reply::Quit));
                // The front door may have stopped waiting (it ended).
                let _ = reply.send(r);
                continue;
            }
            Ok(ToResponder::Lines { job, reply }) => {
                answered = true;
                // After a quit nothing is shown: the sign-in is not asked.
                let r = if quit {
                    Err(SignInError::NotAsked)
                } else {
                    let mut job = Some(job);
                    responder.in_lines(&mut |io| match job.take() {
                        Some(j) => j(io),
                        None => Err(SignInError::AlreadyAsked),
                    })
                };
                // The sign-in may have stopped waiting (its time ran out).
                let _ = reply.send(r);
                continue;
            }
            Err(smpsc::RecvTimeoutError::Timeout) => {
                let waiting = shown.lock().map(|w| w.clone()).unwrap_or_default();
                match responder.wait(WAIT_SLICE, &waiting) {
                    WaitKey::Nothing => continue,
                    k => {
                        quit |= k == WaitKey::Quit;
                        FromResponder::Key(k)
                    }
                }
            }
            Err(smpsc::RecvTimeoutError::Disconnected) => return,
        };
        if tx.blocking_send(reply).is_err() {
            return;
        }
    }
}

/// Why a front door could not run.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// The tokio runtime of the session thread did not start.
    #[error("starting the session runtime: {0}")]
    Runtime(#[source] std::io::Error),
    /// The session thread did not start.
    #[error("starting the session thread: {0}")]
    Thread(#[source] std::io::Error),
    /// The session thread panicked.
    #[error("the session thread panicked")]
    Panicked,
}

/// Run a front door whose requests a person answers: [`run_with`] with the
/// waiting screen between requests ([`Between::Screen`]).
///
/// Errors: see [`run_with`].
#[cfg(any(test, feature = "internals"))]
#[cfg(any(test, feature = "internals"))]
pub fn run<T, F, Fut>(responder: &mut dyn Responder, session: F) -> Result<T, RunError>
where
    T: Send,
    F: FnOnce(Desk) -> Fut + Send,
    Fut: Future<Output = T>,
{
    run_with(responder, Between::Screen, session)
}

/// Run a front door: `session` gets the [`Desk`] and runs on a new thread
/// under a current-thread tokio runtime, while this thread serves
/// `responder` (`between` says what it does between requests). Returns the
/// session's output once both are done. The session may borrow from the
/// caller (the threads are scoped).
///
/// Errors: [`RunError`] when the runtime or the thread cannot start, or the
/// session thread panicked.
pub fn run_with<T, F, Fut>(
    responder: &mut dyn Responder,
    between: Between,
    session: F,
) -> Result<T, RunError>
where
    T: Send,
    F: FnOnce(Desk) -> Fut + Send,
    Fut: Future<Output = T>,
{
    run_showing(responder, between, Waiting::default(), session)
}

/// [`run_with`], the waiting screen showing `first` until the session
/// says otherwise ([`Desk::show`]): `mcp` says it is connecting from the
/// first frame on.
///
/// Errors: see [`run_with`].
pub fn run_showing<T, F, Fut>(
    responder: &mut dyn Responder,
    between: Between,
    first: Waiting,
    session: F,
) -> Result<T, RunError>
where
    T: Send,
    F: FnOnce(Desk) -> Fut + Send,
    Fut: Future<Output = T>,
{
    let (to_tx, to_rx) = smpsc::channel();
    let (from_tx, from_rx) = mpsc::channel(MAX_OPEN * 2);
    let shown = Arc::new(Mutex::new(first));
    let sign_ins = Arc::new(SignIns::default());
    // The screens show this session's sign-ins (and cancel them).
    responder.follow_sign_ins(Arc::clone(&sign_ins));
    // ... and the messages its front door sends and receives.
    let trace = Arc::new(crate::responder::trace::Trace::default());
    responder.follow_trace(Arc::clone(&trace));
    let desk = Desk {
        to: Arc::new(to_tx),
        shown: Arc::clone(&shown),
        from: from_rx,
        open: HashMap::new(),
        next_key: 0,
        returned: None,
        limit: None,
        behind: Behind::default(),
        sign_ins,
        trace,
        stderr: None,
    };
    std::thread::scope(|scope| {
        let handle = std::thread::Builder::new()
            .name("session".into())
            .spawn_scoped(scope, move || -> Result<T, RunError> {
                let rt = tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                    .map_err(RunError::Runtime)?;
                Ok(rt.block_on(session(desk)))
            })
            .map_err(RunError::Thread)?;
        serve(responder, to_rx, from_tx, &shown, between);
        let out = handle.join().map_err(|_| RunError::Panicked)?;
        // The front door is done: what the screen still has to say is said
        // before the caller writes the held results and gives it back.
        responder.finish();
        out
    })
}

#[cfg(test)]
mod tests;
