//! The AHP event-stream front door: request events read from a stream
//! ([`input`]) are validated at the boundary, answered by a [`Responder`]
//! one at a time in stream order, and each result event is built,
//! validated and written as one line ([`sink`]). Every request that is read
//! gets exactly one result event or one clear error on stderr; nothing is
//! lost, nothing is invented.
//!
//! [`drive`] owns this loop and the stream's ends: end of input, a read
//! error, a closed output, the person quitting (the rest is answered
//! `cancel`, what arrives within [`QUIT_DRAIN`] included) and the
//! per-request deadline (`Context::deadline`, which the responder turns
//! into `cancel`). It is a front door of the shared loop
//! ([`crate::session`]): it runs on the session thread and lends each
//! request to the responder through the desk, and its outcome becomes the
//! result through [`crate::session::settle`], as in `mcp`. The stream is
//! read ahead on a reader thread, so the loop waits for a person and for
//! input at once.

internals! {
    pub(crate) mod input;
    pub(crate) mod sink;
}
// `cargo fmt` reaches the modules of `internals!` through this list
// (see src/lib.rs).
#[cfg(any())]
#[path = "."]
mod for_cargo_fmt {
    mod input;
    mod sink;
}

use std::collections::VecDeque;
use std::time::{Duration, Instant};

use tokio::sync::mpsc;

use crate::binding::{Action, Answer, Mode, RequestEvent, ResultMeta, SchemaPolicy, Violation};
use crate::log::EventLog;
use crate::log::{lock_log, SharedLog};
use crate::notice::Notices;
use crate::responder::{Context, Outcome, Progress, RespondError, Responder, WaitKey};
use crate::session::{settle, AskError, Between, Desk, NoResult, Reply, Settled, WithdrawReason};

use input::{read_event, Item, ReadEvent, READ_AHEAD};
use sink::Sink;

/// How the stream is answered.
#[derive(Debug, Clone)]
pub struct Config {
    /// `source.adapter` of the result events.
    pub source_adapter: String,
    /// How long a request may stay unanswered before it is cancelled.
    pub timeout: Option<Duration>,
    /// Modes answered; a request in another mode gets an error, no result.
    pub modes: Vec<Mode>,
    /// How a `requestedSchema` outside the closed form subset is read.
    pub schema_policy: SchemaPolicy,
    /// A person answers: between requests the responder shows its waiting
    /// screen ([`Responder::wait`]), so it redraws and Ctrl-C is read.
    pub interactive: bool,
    /// A script's run ends on SIGINT, SIGTERM, SIGHUP and SIGQUIT (taken
    /// over by [`crate::signals`]): it stops at the next request, writes the results it
    /// decided, and reports the signal in [`Tally::signal`]; when it cannot
    /// get there within [`SIGNAL_GRACE`] (blocked writing to a reader that
    /// does not read) the process exits with 128 + the signal. The binary
    /// sets it for scripts; a person's run handles signals in its terminal
    /// front end.
    pub catch_signals: bool,
    /// Where the run's errors and reports go (sanitized): the binary writes
    /// them to stderr ([`Notices::stderr`]), a library user may collect them.
    pub notices: Notices,
}

/// The outcome of a whole run.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Tally {
    /// Result events written.
    pub answered: usize,
    /// Items that got an error and no result.
    pub failed: usize,
    /// A fatal I/O or terminal error ended the run.
    pub fatal: bool,
    /// The person quit (Ctrl-C twice).
    pub quit: bool,
    /// A script's run ended on this signal (SIGINT, SIGTERM, SIGHUP,
    /// SIGQUIT): the
    /// results decided were written, the requests still unanswered got
    /// none (one notice says how many).
    pub signal: Option<i32>,
}

/// After a quit, how long the loop still waits for input before it ends
/// the run (input arriving within this time is answered `cancel`).
pub const QUIT_DRAIN: Duration = Duration::from_millis(500);

/// How long the loop gathers requests that have already arrived before it
/// shows one, so "request 2 of 5" counts those waiting: a file is read at
/// once, a live stream costs this much once per request.
const PROGRESS_WINDOW: Duration = Duration::from_millis(20);

/// How long the loop waits for a reply before it writes the results it has
/// gathered (a script answers within microseconds; anything slower, such
/// as a browser starting, does not hold earlier results back).
const FLUSH_AFTER: Duration = Duration::from_millis(10);

/// A script's run ends on SIGINT, SIGTERM, SIGHUP and SIGQUIT, taken over
/// by [`crate::signals`]: the run stops at the next request, writes the
/// results it decided (whole lines) and ends with 128 + the signal. A run
/// that cannot get there within [`SIGNAL_GRACE`] (blocked writing to a
/// reader that does not read) is ended then, as the signal would have. A
/// person's run handles signals in its terminal front end instead.
struct Stop {
    /// The run ends on its own once a signal came.
    _busy: crate::signals::Busy,
    events: tokio::sync::broadcast::Receiver<crate::signals::Event>,
}

impl Stop {
    /// Take the signals over from now on.
    fn watch() -> Stop {
        crate::signals::install();
        Stop {
            _busy: crate::signals::busy(),
            events: crate::signals::subscribe(),
        }
    }

    fn signal(&self) -> Option<i32> {
        crate::signals::received()
    }

    /// Until a signal that ends the run came (forever without a watch).
    async fn wait(stop: Option<&mut Stop>) {
        let Some(stop) = stop else {
            return std::future::pending().await;
        };
        use tokio::sync::broadcast::error::RecvError;
        while crate::signals::received().is_none() {
            match stop.events.recv().await {
                Ok(crate::signals::Event::End(_)) | Err(RecvError::Lagged(_)) => {}
                Ok(_) => continue,
                Err(RecvError::Closed) => return std::future::pending().await,
            }
        }
    }
}

/// Drive a stream of items through `responder` into `sink`; returns what
/// happened. Ends at the end of input, after a quit (see [`QUIT_DRAIN`]),
/// or at a fatal error.
///
/// The loop is a [`crate::session`] front door: it runs on the session
/// thread and puts each request to `responder` (on this thread) through
/// the [`Desk`], as `mcp` does, so a request is asked, withdrawn and
/// answered in one place for both.
pub fn drive(
    items: mpsc::Receiver<Item>,
    responder: &mut dyn Responder,
    sink: &mut Sink,
    config: &Config,
    log: Option<SharedLog>,
) -> Tally {
    let between = if config.interactive {
        Between::Screen
    } else {
        Between::Sleep
    };
    let ran = crate::session::run_with(responder, between, |desk| {
        Run::new(items, desk, sink, config, log).go()
    });
    ran.unwrap_or_else(|e| {
        config.notices.error(&e);
        Tally {
            fatal: true,
            ..Tally::default()
        }
    })
}

/// Go on with the next item, or end the run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Step {
    Next,
    Stop,
}

/// The state of one run of [`drive`], on the session thread.
struct Run<'a> {
    items: mpsc::Receiver<Item>,
    /// Items taken in ahead of the one being answered (at most
    /// [`READ_AHEAD`]; the rest waits in the bounded channel).
    queue: VecDeque<Item>,
    /// The input now read, when several are ([`Item::Source`]).
    source: Option<String>,
    desk: Desk,
    sink: &'a mut Sink,
    config: &'a Config,
    log: Option<SharedLog>,
    meta: ResultMeta,
    tally: Tally,
    /// The person quit: every further request is answered `cancel`.
    quit: bool,
    /// The input may still send items.
    open: bool,
    /// A script's run: the signals it ends on.
    stop: Option<Stop>,
    /// Results gathered in the sink and not yet written: (result id,
    /// request id, action), logged as emitted once written.
    unlogged: Vec<(String, String, Action)>,
    /// How many requests have been put to the responder.
    index: usize,
    /// How many requests were dropped as invalid (the screen says so
    /// beside "request N of M").
    skipped: usize,
}

impl<'a> Run<'a> {
    fn new(
        items: mpsc::Receiver<Item>,
        desk: Desk,
        sink: &'a mut Sink,
        config: &'a Config,
        log: Option<SharedLog>,
    ) -> Self {
        Run {
            items,
            queue: VecDeque::new(),
            source: None,
            desk,
            sink,
            config,
            log,
            meta: ResultMeta {
                adapter: config.source_adapter.clone(),
                ..ResultMeta::default()
            },
            tally: Tally::default(),
            quit: false,
            open: true,
            stop: None,
            unlogged: Vec::new(),
            index: 0,
            skipped: 0,
        }
    }

    /// Answer every item, then say how it went.
    async fn go(mut self) -> Tally {
        if self.config.catch_signals && !self.config.interactive {
            self.stop = Some(Stop::watch());
        }
        while let Some(item) = self.next_item().await {
            if self.handle(item).await == Step::Stop {
                break;
            }
        }
        self.flush();
        self.end_on_signal();
        self.tally.quit = self.quit;
        self.tally
    }

    /// The signal a script's run was told to end on, if any.
    fn signalled(&self) -> Option<i32> {
        self.stop.as_ref().and_then(Stop::signal)
    }

    /// After a signal: say how many requests read were left unanswered
    /// (those already here; the reader's are not waited for).
    fn end_on_signal(&mut self) {
        let Some(sig) = self.signalled() else {
            return;
        };
        self.tally.signal = Some(sig);
        self.take_arrived();
        let left = self
            .queue
            .iter()
            .filter(|i| matches!(i, Item::Event { .. } | Item::Read { .. }))
            .count();
        if left > 0 {
            self.config.notices.say(&format!(
                "ended by signal {sig}: {left} requests read were not answered"
            ));
        }
    }

    /// Write the results made so far: called before every wait (for
    /// input, or for a person), so no result waits on the next request.
    /// Returns false when they could not be written (the run ends).
    fn flush(&mut self) -> bool {
        match self.sink.flush() {
            Ok(()) => {
                self.log_written();
                true
            }
            Err(e) => {
                // Not written: not logged as emitted either.
                self.unlogged.clear();
                self.write_failed(e);
                false
            }
        }
    }

    /// Log the results just written (`result-emitted` means written).
    fn log_written(&mut self) {
        for (rid, parent, action) in std::mem::take(&mut self.unlogged) {
            self.note(|l| l.result_emitted(&rid, &parent, action));
        }
    }

    /// The next item to handle; None when the run ends (end of input, or a
    /// quit and nothing more arrived within [`QUIT_DRAIN`]).
    async fn next_item(&mut self) -> Option<Item> {
        loop {
            if self.signalled().is_some() {
                return None;
            }
            self.take_arrived();
            if let Some(it) = self.queue.pop_front() {
                return Some(it);
            }
            if !self.open || !self.flush() {
                return None;
            }
            if self.quit {
                // Quit (a second Ctrl-C, or a signal): what arrives promptly
                // (the rest of a file) still gets `cancel`, then the run
                // ends; it does not wait for a live stream to close.
                let drained = tokio::time::timeout(QUIT_DRAIN, self.items.recv()).await;
                return drained.ok().flatten();
            }
            if let Some(it) = self.wait_for_item().await {
                return Some(it);
            }
        }
    }

    /// Take in what has arrived, up to the queue's bound: the rest waits
    /// in the bounded channel, and the reader waits for room.
    fn take_arrived(&mut self) {
        // A script shows no "request N of M": it refills the queue only
        // when half of it is used, so the reader is woken once per batch,
        // not once per event.
        if !self.config.interactive && self.queue.len() >= READ_AHEAD / 2 {
            return;
        }
        while self.queue.len() < READ_AHEAD {
            match self.items.try_recv() {
                Ok(it) => self.queue.push_back(it),
                Err(_) => break,
            }
        }
    }

    /// Wait for input while the responder shows its waiting screen; a key
    /// there (quit) ends the wait. None: nothing yet, or the input ended
    /// (`open` is false).
    async fn wait_for_item(&mut self) -> Option<Item> {
        tokio::select! {
            it = self.items.recv() => {
                self.open = it.is_some();
                it
            }
            _ = Stop::wait(self.stop.as_mut()) => None,
            reply = self.desk.next() => {
                match reply {
                    Some(Reply::Key(WaitKey::Quit)) => self.quit = true,
                    Some(_) => {}
                    // The responder is gone: what is queued gets its error.
                    None => {
                        self.open = false;
                        self.tally.fatal = true;
                    }
                }
                None
            }
        }
    }

    /// Handle one item: an error, or a request answered with one result.
    async fn handle(&mut self, item: Item) -> Step {
        // The item's share of the read-ahead budget is held until the
        // request is answered.
        let (line, read, _held) = match item {
            Item::Event { line, bytes, held } => {
                (line, read_event(&bytes, self.config.schema_policy), held)
            }
            Item::Read { line, read, held } => (line, *read, held),
            Item::Bad { line, message } => {
                self.report(line, None, &message, &[]);
                self.tally.failed += 1;
                return Step::Next;
            }
            Item::ReadError(e) => {
                self.config
                    .notices
                    .say(&format!("cannot read the input: {e}"));
                self.tally.fatal = true;
                return Step::Stop;
            }
            Item::Source { name } => {
                self.source = Some(name);
                return Step::Next;
            }
            Item::Empty { name } => {
                self.flush();
                self.config
                    .notices
                    .say(&format!("no requests in {name}: it holds no event"));
                return Step::Next;
            }
        };
        let Some((req, id)) = self.take_request(line, read) else {
            return Step::Next;
        };
        let at = At {
            line,
            id: id.as_deref(),
        };
        if !self.mode_answered(at, &req) {
            return Step::Next;
        }
        self.index += 1;
        if self.config.interactive {
            self.gather_waiting().await;
        }
        let (req, outcome) = match self.ask(req).await {
            Ok(asked) => asked,
            Err(e) => {
                self.report(at.line, at.id, &format!("no result: {e}"), &[]);
                self.tally.fatal = true;
                return Step::Stop;
            }
        };
        self.conclude(at, &req, outcome)
    }

    /// The request of a read event; an invalid event is reported (and
    /// logged), in input order. Returns the request and the event's `id`.
    fn take_request(
        &mut self,
        line: usize,
        read: ReadEvent,
    ) -> Option<(RequestEvent, Option<String>)> {
        match read {
            ReadEvent::Request { id, request } => {
                self.note_received(&request);
                Some((*request, id))
            }
            ReadEvent::Unreadable(e) => {
                self.note(|l| l.request_invalid(None, std::slice::from_ref(&e)));
                self.report(line, None, "invalid event", &[e]);
                self.tally.failed += 1;
                self.skipped += 1;
                None
            }
            ReadEvent::Other { id, ty } => {
                // Not a fault: the results of a recorded run, for example.
                self.flush();
                let place = self.place(line);
                let at = match id {
                    Some(id) => format!("event {} ({place})", crate::safe_text::display(&id)),
                    None => place,
                };
                let ty = crate::safe_text::display(&ty);
                self.config
                    .notices
                    .say(&format!("{at}: skipped, a {ty} event is not a request"));
                None
            }
            ReadEvent::Invalid { id, errors } => {
                self.note(|l| l.request_invalid(id.as_deref(), &errors));
                self.report(line, id.as_deref(), "invalid request, no result", &errors);
                self.tally.failed += 1;
                self.skipped += 1;
                None
            }
        }
    }

    fn note_received(&self, req: &RequestEvent) {
        let compatible = self.config.schema_policy == SchemaPolicy::Compatible;
        self.note(|l| {
            l.set_current(&req.id);
            l.request_received(req)?;
            if compatible && req.mode == Mode::Form {
                l.schema_policy(req)?;
            }
            Ok(())
        });
    }

    /// Whether the request's mode is one this run answers; if not, it is
    /// reported (no result).
    fn mode_answered(&mut self, at: At, req: &RequestEvent) -> bool {
        if self.config.modes.contains(&req.mode) {
            return true;
        }
        let what = format!(
            "{} mode is not advertised (--modes), no result",
            req.mode.as_str()
        );
        self.report(at.line, at.id, &what, &[]);
        self.tally.failed += 1;
        false
    }

    /// Take in what has already arrived, so "request 2 of 5" counts the
    /// requests that are waiting (a person's screen shows it; a script,
    /// which shows nothing, does not wait for it). One window in all, not one per item: a
    /// stream that never pauses must not hold back the first answer.
    async fn gather_waiting(&mut self) {
        let window_end = Instant::now() + PROGRESS_WINDOW;
        loop {
            let left = window_end.saturating_duration_since(Instant::now());
            if left.is_zero() || self.queue.len() >= READ_AHEAD {
                break;
            }
            match tokio::time::timeout(left, self.items.recv()).await {
                Ok(Some(it)) => self.queue.push_back(it),
                Ok(None) | Err(_) => break,
            }
        }
    }

    /// Put the request to the responder through the desk and wait for its
    /// outcome; after a quit it is answered `cancel` without being shown.
    /// The request comes back with the outcome (lent, not copied).
    ///
    /// Errors: the responder thread is gone.
    async fn ask(
        &mut self,
        req: RequestEvent,
    ) -> Result<(RequestEvent, Result<Outcome, RespondError>), AskError> {
        if self.quit {
            return Ok((req, Ok(Outcome::Answer(Answer::bare(Action::Cancel)))));
        }
        let cx = self.context();
        if self.config.interactive && !self.flush() {
            // The output is gone: the run ends after this request, which
            // is answered `cancel` without being shown.
            return Ok((req, Ok(Outcome::Answer(Answer::bare(Action::Cancel)))));
        }
        let key = self.desk.lend(req, cx)?;
        let outcome = self.reply_to(key).await;
        let req = self.desk.returned(key).ok_or(AskError::Gone)?;
        Ok((req, outcome))
    }

    /// Wait for the reply to request `key`.
    async fn reply_to(&mut self, key: u64) -> Result<Outcome, RespondError> {
        loop {
            let next = if self.sink.has_pending() {
                // A reply that takes a while (a browser starting, a
                // person) does not hold back the results already made.
                tokio::select! {
                    r = self.desk.next() => r,
                    _ = tokio::time::sleep(FLUSH_AFTER) => {
                        self.flush();
                        continue;
                    }
                }
            } else {
                self.desk.next().await
            };
            match next {
                Some(Reply::Answered { key: k, outcome }) if k == key => return outcome,
                // Only a quit withdraws a request of this stream: the end of
                // the input leaves a request already read to be answered.
                Some(Reply::Withdrawn { key: k, reason, .. }) if k == key => {
                    if self.quit {
                        return Ok(Outcome::Answer(Answer::bare(Action::Cancel)));
                    }
                    return Err(RespondError::Withdrawn(reason));
                }
                // A quit on the waiting screen just before the request
                // reached the responder: the request is not shown.
                Some(Reply::Key(WaitKey::Quit)) => {
                    self.quit = true;
                    self.desk.withdraw(key, WithdrawReason::StreamClosed);
                }
                Some(_) => {}
                None => return Err(RespondError::Stopped),
            }
        }
    }

    /// The request's context: where it stands in the stream (the requests
    /// already waiting counted) and its deadline (`--timeout`).
    fn context(&self) -> Context {
        let waiting = self
            .queue
            .iter()
            .filter(|i| matches!(i, Item::Event { .. } | Item::Read { .. }))
            .count();
        Context {
            progress: Progress {
                index: self.index,
                total: self.index + waiting,
                skipped: self.skipped,
            },
            deadline: self
                .config
                .timeout
                .and_then(|d| Instant::now().checked_add(d)),
            ..Default::default()
        }
    }

    /// Settle the outcome into the request's one result and write it, or
    /// report why there is none (a refused or invalid answer; a terminal
    /// error ends the run).
    fn conclude(
        &mut self,
        at: At,
        req: &RequestEvent,
        outcome: Result<Outcome, RespondError>,
    ) -> Step {
        match settle(req, outcome, &self.meta) {
            Ok(s) => {
                self.quit |= s.quit;
                self.note(|l| l.decision(&req.id, &s.answer));
                self.deliver(req, &s)
            }
            Err(refused @ (NoResult::Refused(_) | NoResult::NotOpened(_))) => {
                let m = refused.reasons();
                // The reasons name no request: the report adds it.
                self.note(|l| {
                    l.answer_refused(
                        &req.id,
                        &[Violation::new(
                            "",
                            crate::binding::violation::Rule::AnswerRefused,
                            m.clone(),
                        )],
                    )
                });
                let what = format!("answer refused [answer-refused], no result: {m}");
                self.report(at.line, at.id, &what, &[]);
                self.tally.failed += 1;
                Step::Next
            }
            Err(NoResult::Invalid {
                answer,
                violations,
                quit,
            }) => {
                self.quit |= quit;
                self.note(|l| l.decision(&req.id, &answer));
                let what = "the answer does not make a valid result, no result";
                self.report(at.line, at.id, what, &violations);
                self.tally.failed += 1;
                Step::Next
            }
            Err(NoResult::Failed(m)) => {
                self.report(at.line, at.id, &format!("no result: {m}"), &[]);
                self.tally.fatal = true;
                Step::Stop
            }
        }
    }

    /// Write the settled result event (gathered: see [`Sink`]).
    fn deliver(&mut self, req: &RequestEvent, settled: &Settled) -> Step {
        match self.sink.emit_line(&settled.result.line) {
            Ok(()) => {
                self.tally.answered += 1;
                let rid = settled.result.id.clone();
                self.unlogged
                    .push((rid, req.id.clone(), settled.answer.action));
                if !self.sink.has_pending() {
                    self.log_written();
                }
                Step::Next
            }
            Err(e) => {
                // What the failed write held was not written: not logged.
                self.unlogged.clear();
                self.write_failed(e);
                Step::Stop
            }
        }
    }

    /// Results could not be written: the run ends, not as a success. A
    /// closed stdout ends it quietly.
    fn write_failed(&mut self, e: std::io::Error) {
        if e.kind() != std::io::ErrorKind::BrokenPipe {
            self.config
                .notices
                .say(&format!("cannot write the result: {e}"));
        }
        self.tally.fatal = true;
    }

    /// Write to the log, if there is one; a log that cannot be written is
    /// said once per failure and does not stop the run.
    fn note(&self, f: impl FnOnce(&mut EventLog) -> Result<(), crate::log::LogError>) {
        if let Some(l) = &self.log {
            if let Err(e) = f(&mut lock_log(l)) {
                self.config
                    .notices
                    .say(&format!("cannot write the log: {e}"));
            }
        }
    }

    /// Say what went wrong with the item at `line` (and `id`), with its
    /// violations, all sanitized.
    fn report(&mut self, line: usize, id: Option<&str>, what: &str, errs: &[Violation]) {
        // The results before it first: stdout and stderr sent to one file
        // keep the input's order.
        self.flush();
        let place = self.place(line);
        let text = report_text(&place, id, what, errs);
        let mut lines = text.split('\n');
        let heading = lines.next().unwrap_or_default();
        let below: Vec<String> = lines
            .map(|l| l.strip_prefix("  ").unwrap_or(l).to_owned())
            .collect();
        self.config.notices.say_list(heading, &below);
    }

    /// `line N`, or `line N of FILE` when several inputs are read.
    fn place(&self, line: usize) -> String {
        match &self.source {
            Some(f) => format!("line {line} of {f}"),
            None => format!("line {line}"),
        }
    }
}

/// Where in the input a request came from, for its reports.
#[derive(Debug, Clone, Copy)]
struct At<'a> {
    /// The line where the event starts (1-based).
    line: usize,
    /// The event's `id`, if it had a string one.
    id: Option<&'a str>,
}

/// What went wrong with the item at `place` (`line N`, or `line N of
/// FILE`; and `id`), with its violations, all sanitized.
fn report_text(place: &str, id: Option<&str>, what: &str, errs: &[Violation]) -> String {
    // `what` may quote the request (a gap's reason, a refusal's reasons).
    let what = crate::safe_text::display(what);
    let mut msg = match id {
        Some(id) if !id.is_empty() => format!(
            "request {} ({place}): {what}",
            crate::safe_text::display(id)
        ),
        _ => format!("{place}: {what}"),
    };
    for e in errs {
        msg.push_str(&format!(
            "\n  {}",
            crate::safe_text::display(&e.to_string())
        ));
    }
    msg
}

#[cfg(test)]
mod tests;
