//! Plain mode (`--plain`, `TERM=dumb`, `AHP_ELICIT_PLAIN=1`): answer
//! elicitations line by line, for a screen reader, a dumb terminal or a
//! serial line. No cursor addressing, no colours, no alternate screen: every
//! line is a complete sentence, and the person answers by typing a line.
//!
//! [`PlainResponder`] drives the same form model ([`crate::form`]) as the
//! full-screen UI and the scripted responder (values are set as the
//! scripted answers set them, then submitted, reviewed and sent through the
//! same state machine), so the result events are the same. Its I/O is a
//! [`LineIo`]: the controlling terminal ([`TtyIo`]) or, in tests, typed
//! lines in memory ([`MemoryIo`]).
//!
//! The contract is the full-screen UI's: Control-C cancels the request and
//! a second Control-C within [`QUIT_WINDOW`] (or while waiting) quits;
//! Control-D on an empty line declines; `--timeout` cancels; URL consent is
//! typing `open` (never a bare Enter); typeahead is discarded at each new
//! request; a notice that a request ended without an answer (time ran
//! out, a withdrawal) waits for Enter ([`PRESS_ENTER`]) before the next
//! request or the end of the run, as the full screen's waits for a key;
//! server text goes through [`crate::safe_text`].

mod browse;
pub mod io;
pub mod signin;
mod trace;
mod url;

internals! {
    pub(crate) mod form;
}
#[cfg(unix)]
internals! {
    pub(crate) mod tty;
}
// `cargo fmt` reaches the modules of `internals!` through this list
// (see src/lib.rs).
#[cfg(any())]
#[path = "."]
mod for_cargo_fmt {
    mod form;
    mod tty;
}

use std::time::{Duration, Instant};

use crate::binding::{Action, Answer, FormSchema, RequestBody, RequestEvent, RequestView};
use crate::form::{Form, KeyIntent, Stage, Status};
use crate::launcher::Launcher;
use crate::responder::{Context, Outcome, RespondError, Responder};
use crate::safe_text::{display, display_multiline};

#[cfg(any(test, feature = "internals"))]
pub use io::MemoryIo;
pub use io::{LineIo, Reply};
#[cfg(unix)]
pub use tty::TtyIo;

pub(crate) use crate::responder::QUIT_WINDOW;

/// Whether plain mode is chosen: the `--plain` flag, `TERM=dumb`, or
/// `AHP_ELICIT_PLAIN=1` (values from the environment passed in, so the rule
/// can be tested).
pub fn chosen_by(flag: bool, term: Option<&str>, plain_env: Option<&str>) -> bool {
    flag || term == Some("dumb") || plain_env.map(str::trim) == Some("1")
}

/// [`chosen_by`] with this process's environment.
pub fn chosen(flag: bool) -> bool {
    let term = std::env::var("TERM").ok();
    let env = std::env::var("AHP_ELICIT_PLAIN").ok();
    chosen_by(flag, term.as_deref(), env.as_deref())
}

/// How reading one line ended.
enum Read {
    /// A typed line.
    Line(String),
    /// The request is decided (Control-C, Control-D, the deadline, a signal).
    Done(Outcome),
}

/// The bytes that signal a waiting request (`--notify`), from the
/// requesting server's name ([`PlainResponder::with_signal`]).
pub type SignalBytes = Box<dyn Fn(&str) -> Vec<u8>>;

/// A [`Responder`] that asks line by line on a [`LineIo`].
pub struct PlainResponder<I: LineIo> {
    io: I,
    launcher: Box<dyn Launcher>,
    no_open: bool,
    /// Why consent shows the URL for copying (with `no_open`): said
    /// before the choice and with the URL when it is not `--no-open`.
    no_open_why: Option<crate::launcher::NoOpenWhy>,
    /// When the last Control-C cancelled a request.
    last_ctrl_c: Option<Instant>,
    /// A Control-C was pressed during the current wait.
    wait_armed: bool,
    /// The waiting sentence was said since the last request.
    waiting_said: bool,
    /// Calls to `idle` since the last request.
    idle_calls: usize,
    /// Requests answered so far.
    answered: usize,
    /// A consent typed sooner than this after the URL was shown is not
    /// taken (it was typed before the URL could be read), nor an Enter this
    /// soon after a notice that a request ended; zero for in-memory tests,
    /// [`CONSENT_GUARD`] on a terminal.
    consent_guard: Duration,
    /// Hold stderr notices while a request is on screen (on a terminal;
    /// holding is process-wide, so in-memory tests leave it off).
    hold_notices: bool,
    /// The person has given a value in the request on screen: Control-D
    /// asks to confirm before it declines.
    changed: bool,
    /// The late warning of `--timeout` was said for the request on screen.
    warned: bool,
    /// The withdrawal of the request on screen was said.
    said_withdrawn: bool,
    /// That the call which asked for the request on screen has finished was
    /// said ([`crate::responder::CALL_FINISHED_BANNER`], once a request).
    said_call_finished: bool,
    /// `--notify`: the bytes that signal a request that arrives after a
    /// wait, from the requesting server's name (None: no signal).
    signal: Option<SignalBytes>,
    /// A request that arrives after waiting this long is signalled.
    notify_after: Duration,
    /// Since when no request has been shown (None while one is).
    waiting_since: Option<Instant>,
    /// When the notice that the last request ended without the person's
    /// answer was printed, while it waits for Enter ([`PRESS_ENTER`]).
    unacknowledged: Option<Instant>,
    /// The person is trying a server by hand ([`crate::browse`]): the wait
    /// between its steps is not a wait for the next request.
    browsing: bool,
    /// The questions said are a call's arguments, not a request's: Control-C
    /// and Control-D go back to the list, and the words say so.
    arguments: bool,
    /// The call in progress whose waiting lines were said: its number and
    /// how many of its lines ([`crate::responder::CallInProgress`]).
    call_said: Option<(u64, u64)>,
    /// The sign-ins of the session answered
    /// ([`Responder::follow_sign_ins`]): Control-C while one waits for the
    /// browser ends it.
    sign_ins: std::sync::Arc<crate::responder::sign_in::SignIns>,
    /// The session's protocol trace ([`Responder::follow_trace`]): what
    /// the `trace` command prints.
    trace: std::sync::Arc<crate::responder::trace::Trace>,
}

/// Plain mode says once, this long before `--timeout` cancels a request,
/// how much time is left (requests with a limit longer than this; a
/// shorter limit is said once, in the header, with no warning).
pub const LATE_WARNING: Duration = Duration::from_secs(10);

/// What plain mode adds to a notice that cuts a prompt short (the late
/// warning of `--timeout`, the call that asked has finished): the line half
/// typed at that prompt was thrown away, and the prompt is asked again.
pub const TYPED_CLEARED: &str = "Anything you had typed at the prompt was cleared.";

/// The prompt after a notice that a request ended without the person's
/// answer (time ran out, the server withdrew it, the call finished, the
/// server exited, the connection or the input closed): nothing goes on
/// until Enter (or Control-C, Control-D) is typed here.
pub const PRESS_ENTER: &str = "Press Enter to go on: ";

/// What plain mode says when a line reached [`PRESS_ENTER`] sooner than
/// [`CONSENT_GUARD`] after the notice was printed: it was typed before the
/// notice could be read, and it is thrown away.
pub const NOTICE_TOO_SOON: &str =
    "Not taken: that was typed before the notice could be read. Press Enter again to go on.";

/// How long the URL block must have been on the terminal before `open`
/// counts: the consent machine's period, as on the full-screen consent
/// screen.
pub use crate::consent::CONSENT_GUARD;

impl<I: LineIo> std::fmt::Debug for PlainResponder<I> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PlainResponder")
            .field("no_open", &self.no_open)
            .finish_non_exhaustive()
    }
}

impl<I: LineIo> PlainResponder<I> {
    /// Ask on `io`; consented URLs go to `launcher`, and `no_open`
    /// (`--no-open`) shows the URL for copying after consent (pass a
    /// launcher that opens nothing, [`NoOpen`](crate::launcher::NoOpen)).
    pub fn new(io: I, launcher: Box<dyn Launcher>, no_open: bool) -> Self {
        PlainResponder {
            io,
            launcher,
            no_open,
            no_open_why: no_open.then_some(crate::launcher::NoOpenWhy::Asked),
            last_ctrl_c: None,
            wait_armed: false,
            waiting_said: false,
            idle_calls: 0,
            answered: 0,
            consent_guard: Duration::ZERO,
            hold_notices: false,
            changed: false,
            warned: false,
            said_withdrawn: false,
            said_call_finished: false,
            signal: None,
            notify_after: Duration::ZERO,
            waiting_since: None,
            unacknowledged: None,
            browsing: false,
            arguments: false,
            call_said: None,
            sign_ins: std::sync::Arc::default(),
            trace: std::sync::Arc::default(),
        }
    }

    /// Show consented URLs for copying, saying why (`--no-open`, no
    /// display, an SSH session), or (None) open them with the launcher
    /// (pass one that opens nothing with a reason,
    /// [`NoOpen`](crate::launcher::NoOpen)).
    pub fn showing_urls_for(mut self, why: Option<crate::launcher::NoOpenWhy>) -> Self {
        self.no_open = why.is_some();
        self.no_open_why = why;
        self
    }

    /// Signal a request that arrives after no request was shown for
    /// `after` or longer: `make` gives the bytes (the bell, a notification
    /// sequence) from the requesting server's name, written as they are
    /// ([`LineIo::signal`]). A new responder signals nothing.
    pub fn with_signal(mut self, make: SignalBytes, after: Duration) -> Self {
        self.signal = Some(make);
        self.notify_after = after;
        self
    }

    /// The I/O (a test reads the transcript of a [`MemoryIo`] here).
    #[cfg(any(test, feature = "internals"))]
    pub fn io(&self) -> &I {
        &self.io
    }

    fn say(&mut self, text: &str) -> Result<(), RespondError> {
        self.io.say(text)
    }

    /// Ask one line; Control-C, Control-D, the deadline and signals decide
    /// the request here, the same way at every prompt. Control-D after a
    /// value was given asks to confirm first; the deadline is announced
    /// once, [`LATE_WARNING`] before it passes.
    fn read(&mut self, prompt: &str, cx: &Context) -> Result<Read, RespondError> {
        // The prompt was cut short by the banner below.
        let mut cut_short = false;
        loop {
            // The call that asked has finished (the request stays open):
            // said once, before the prompt.
            if cx.call_finished() && !self.said_call_finished {
                self.said_call_finished = true;
                if std::mem::take(&mut cut_short) {
                    self.interrupt(crate::responder::CALL_FINISHED_BANNER)?;
                } else {
                    self.say(crate::responder::CALL_FINISHED_BANNER)?;
                }
            }
            let said_finished = self.said_call_finished;
            let warn_at = cx
                .deadline
                .and_then(|d| d.checked_sub(LATE_WARNING))
                // A limit shorter than the warning was said in full in the
                // header: no warning that would claim more time.
                .filter(|w| !self.warned && *w > Instant::now());
            let r = self.io.ask(prompt, warn_at.or(cx.deadline), &|| {
                cx.withdrawn() || (!said_finished && cx.call_finished())
            })?;
            // The wait ended for the call that finished: say it, ask again.
            if r == Reply::Withdrawn && !cx.withdrawn() {
                cut_short = true;
                continue;
            }
            // A line read as the source withdrew the request is not for it.
            let r = match r {
                Reply::Line(_) if cx.withdrawn() => Reply::Withdrawn,
                r => r,
            };
            if r == Reply::TimedOut && warn_at.is_some() {
                self.warned = true;
                if crate::responder::time_left(cx.deadline).is_some_and(|l| !l.is_zero()) {
                    let secs = LATE_WARNING.as_secs();
                    self.interrupt(&format!(
                        "{secs} seconds left to answer; then the request is cancelled."
                    ))?;
                }
                continue;
            }
            let discard = match r {
                Reply::Eof => Some(Action::Decline),
                Reply::Interrupt => Some(Action::Cancel),
                _ => None,
            };
            let r = match discard {
                Some(a) if self.changed => match self.confirm_discard(a, cx)? {
                    Some(r) => r,
                    None => continue,
                },
                _ => r,
            };
            return self.decided(r, cx);
        }
    }

    /// Say `notice`, which cut a prompt short (the prompt is asked again
    /// below it, empty): a line half typed at the cut prompt is thrown away
    /// first, so it cannot join what is typed at the new one, and the
    /// notice says so ([`TYPED_CLEARED`]).
    fn interrupt(&mut self, notice: &str) -> Result<(), RespondError> {
        self.io.discard_typeahead();
        self.say(&format!("{notice} {TYPED_CLEARED}"))
    }

    /// Control-D (decline) or Control-C (cancel) after a value was given:
    /// ask whether the answers are thrown away. Returns the reply that
    /// decides the request (`y` or the same key again confirms `a`; another
    /// key, the time or a withdrawal decide as they would at any prompt),
    /// or None when the person goes back to the question.
    fn confirm_discard(&mut self, a: Action, cx: &Context) -> Result<Option<Reply>, RespondError> {
        let (verb, done, again, confirmed) = match a {
            Action::Decline => ("decline", "Not declined", "Control-D", Reply::Eof),
            _ => ("cancel", "Not cancelled", "Control-C", Reply::Interrupt),
        };
        let asked = if self.arguments {
            format!(
                "{} Type y (or {again} again) to go back to the list; anything else returns to the question: ",
                crate::form::ARGUMENTS_DISCARD_QUESTION
            )
        } else {
            let q = crate::form::discard_question(a);
            format!("{q} Type y (or {again} again) to {verb}; anything else goes back: ")
        };
        let r = self.io.ask(&asked, cx.deadline, &|| cx.withdrawn())?;
        match r {
            Reply::Line(l) if l.trim().eq_ignore_ascii_case("y") => Ok(Some(confirmed)),
            Reply::Line(_) => {
                let done = if self.arguments { "Kept" } else { done };
                self.say(&format!("{done}: back to the question."))?;
                Ok(None)
            }
            other => Ok(Some(other)),
        }
    }

    /// What a reply other than a typed line decides.
    fn decided(&mut self, r: Reply, cx: &Context) -> Result<Read, RespondError> {
        let done = |a: Action| Ok(Read::Done(Outcome::Answer(Answer::bare(a))));
        match r {
            Reply::Line(l) => Ok(Read::Line(l)),
            Reply::Interrupt => {
                let now = Instant::now();
                if self
                    .last_ctrl_c
                    .is_some_and(|t| now.duration_since(t) < QUIT_WINDOW)
                {
                    self.say("Quitting: this request and every remaining one are cancelled.")?;
                    return Ok(Read::Done(Outcome::Quit));
                }
                self.last_ctrl_c = Some(now);
                self.say(if self.arguments {
                    "Back to the list. Press Control-C again at once to quit."
                } else {
                    "Cancelled. Press Control-C again at once to quit."
                })?;
                done(Action::Cancel)
            }
            Reply::Eof => {
                self.say(if self.arguments {
                    BACK_TO_THE_LIST
                } else {
                    "Declined."
                })?;
                done(Action::Decline)
            }
            Reply::TimedOut => {
                // A half-typed line is not left for whoever reads next.
                self.io.discard_typeahead();
                self.say(cx.timed_out_notice())?;
                // The cancel is sent at once; the notice then waits for
                // Enter, before whatever comes next.
                self.unacknowledged = Some(Instant::now());
                done(Action::Cancel)
            }
            Reply::Quit => Ok(Read::Done(Outcome::Quit)),
            Reply::Withdrawn => {
                // As in the full-screen UI: the driver sends nothing for a
                // withdrawn request, whatever the outcome says; a
                // half-typed line is thrown away (by say_withdrawn).
                self.say_withdrawn(cx)?;
                done(Action::Cancel)
            }
        }
    }

    /// Say how the source withdrew the request, in the words the full
    /// screen uses, with the server's reason if it gave one, after throwing
    /// away what was typed; the notice then waits for Enter
    /// ([`PlainResponder::acknowledge`]).
    fn say_withdrawn(&mut self, cx: &Context) -> Result<(), RespondError> {
        self.said_withdrawn = true;
        // Whatever was typed for the withdrawn request, a line ended just
        // after an answer that came too late included, is for nothing:
        // it neither acknowledges the notice nor reaches the next request.
        self.io.discard_typeahead();
        let why = cx
            .withdrawn_why()
            .unwrap_or(crate::responder::WithdrawReason::Cancelled(None));
        self.say(why.notice())?;
        if let Some(r) = cx.withdrawal_reason() {
            self.say(&crate::responder::withdrawn_reason_line(&r))?;
        }
        // Nothing is sent; the notice waits for Enter, before whatever
        // comes next.
        self.unacknowledged = Some(Instant::now());
        Ok(())
    }

    /// The notice that the last request ended without the person's answer
    /// waits for Enter ([`PRESS_ENTER`]), as the full screen's waits for a
    /// key: a line typed before it was printed was thrown away with the
    /// request, and one read sooner than the guard after it is not taken
    /// ([`NOTICE_TOO_SOON`]). Control-C goes on too, or quits when it is
    /// the second within [`QUIT_WINDOW`]; `next` says a request follows (the
    /// hint about a second Control-C is said only then). Returns true when
    /// the person quit here (or a signal came); does nothing when no notice
    /// waits.
    ///
    /// Errors: the terminal cannot be read or written.
    fn acknowledge(&mut self, next: bool) -> Result<bool, RespondError> {
        let Some(said) = self.unacknowledged.take() else {
            return Ok(false);
        };
        loop {
            match self.io.ask(PRESS_ENTER, None, &|| false)? {
                Reply::Quit => return Ok(true),
                Reply::Interrupt => {
                    let now = Instant::now();
                    if self
                        .last_ctrl_c
                        .is_some_and(|t| now.duration_since(t) < QUIT_WINDOW)
                    {
                        self.say("Quitting: any request still to come is cancelled.")?;
                        return Ok(true);
                    }
                    self.last_ctrl_c = Some(now);
                    if next {
                        self.say("Press Control-C again at once to quit.")?;
                    }
                    return Ok(false);
                }
                Reply::Line(_) | Reply::Eof if said.elapsed() < self.consent_guard => {
                    self.say(NOTICE_TOO_SOON)?;
                }
                _ => return Ok(false),
            }
        }
    }

    /// The request header: who asks, in which mode, through which adapter,
    /// where it stands in the stream, the time limit and the message.
    fn header(
        &mut self,
        req: &RequestEvent,
        cx: &Context,
        message: Option<&str>,
    ) -> Result<(), RespondError> {
        let s = &req.server;
        let who = match (&s.title, &s.version) {
            (Some(t), Some(v)) => format!("{} ({} {})", display(t), display(&s.name), display(v)),
            (Some(t), None) => format!("{} ({})", display(t), display(&s.name)),
            (None, Some(v)) => format!("{} {}", display(&s.name), display(v)),
            (None, None) => display(&s.name).into_owned(),
        };
        self.say("")?;
        let sampling =
            crate::scripted::rules::method_of(req) == crate::scripted::rules::SAMPLING_METHOD;
        let what = match req.mode {
            // The server asks for a model's reply, which the person writes.
            _ if sampling => {
                "a request for a model's reply (sampling/createMessage) that you write"
            }
            crate::binding::Mode::Form => "a form",
            crate::binding::Mode::Url => "a web page to open",
        };
        let progress = cx.progress_now();
        self.say(&format!(
            "Request {} of {}, from the server that calls itself {who}: {what}, relayed by {}.",
            progress.index,
            progress.total,
            display(&req.adapter)
        ))?;
        if cx.progress.skipped > 0 {
            self.say(&format!(
                "{} invalid request(s) of this input were skipped (see the messages on stderr).",
                cx.progress.skipped
            ))?;
        }
        let origin = cx.origin().unwrap_or_default();
        if let Some(l) = &origin.launched {
            let l: String = l.chars().take(200).collect();
            self.say(&display(&crate::responder::launched_line(&l)))?;
        }
        if let Some(c) = origin.call.or_else(|| crate::responder::request_call(req)) {
            let c: String = c.chars().take(200).collect();
            self.say(&format!("Asked during: {}", display(&c)))?;
        }
        if let Some(left) = crate::responder::time_left(cx.deadline) {
            let secs = left.as_secs() + u64::from(left.subsec_nanos() > 0);
            let time = crate::responder::duration_words(secs);
            self.say(&format!(
                "You have {time} to answer; then the request is cancelled."
            ))?;
        }
        if let Some(m) = message {
            for l in server_words("Message from the server", "Server message continues", m) {
                self.say(&l)?;
            }
        }
        Ok(())
    }

    fn respond_form(
        &mut self,
        req: &RequestEvent,
        message: &str,
        schema: &FormSchema,
        cx: &Context,
    ) -> Result<Outcome, RespondError> {
        let mut form = Form::new(schema, message);
        self.header(req, cx, Some(message))?;
        if form.asks_for_secret() {
            self.say(
                "Warning: this form seems to ask for a secret. Servers must use URL mode for \
                 secrets: do not type passwords, tokens, keys or card numbers here.",
            )?;
        }
        let n = form.fields().len();
        let required = form.fields().iter().filter(|f| f.field.required).count();
        self.say(&format!(
            "This form has {}, {required} required. Control-C cancels the request; \
             Control-D on an empty line declines it.",
            if n == 1 {
                "1 field".to_owned()
            } else {
                format!("{n} fields")
            }
        ))?;
        for i in 0..n {
            if let Some(o) = self.ask_field(&mut form, i, cx)? {
                return Ok(o);
            }
        }
        self.review(&mut form, cx, &REQUEST_REVIEW)
    }

    /// Ask field `i` until it holds a value that passes the live check;
    /// Some(outcome) when the request was decided instead.
    fn ask_field(
        &mut self,
        form: &mut Form,
        i: usize,
        cx: &Context,
    ) -> Result<Option<Outcome>, RespondError> {
        let n = form.fields().len();
        let Some(st) = form.fields().get(i) else {
            return Ok(None);
        };
        for l in form::field_sentences(st, i, n) {
            self.say(&l)?;
        }
        loop {
            let Some(st) = form.fields().get(i) else {
                return Ok(None);
            };
            let name = st.field.name.clone();
            let prompt = format!("{}: ", display(st.field.label()));
            let before = st.json().ok().flatten().unwrap_or(serde_json::Value::Null);
            let line = match self.read(&prompt, cx)? {
                Read::Line(l) => l,
                Read::Done(o) => return Ok(Some(o)),
            };
            let typed = match form::parse_typed(st, &line) {
                Ok(t) => t,
                Err(e) => {
                    self.say(&format!("Not accepted: {e}."))?;
                    continue;
                }
            };
            let gives = matches!(typed, form::Typed::Clear | form::Typed::Set(_));
            let set = match typed {
                form::Typed::Keep => Ok(()),
                form::Typed::Clear => form.set_json(&name, &serde_json::Value::Null),
                form::Typed::Help => {
                    for l in form::field_sentences(st, i, n) {
                        self.say(&l)?;
                    }
                    continue;
                }
                form::Typed::Set(v) => form.set_json(&name, &v),
            };
            if set.is_ok() && gives {
                self.changed = true;
            }
            let err = match set {
                Err(e) => Some(e.to_string()),
                Ok(()) => form.field(&name).and_then(|f| f.error()),
            };
            match err {
                None => return Ok(None),
                Some(e) => {
                    // The value stays as it was; the prompt is asked again.
                    let _ = form.set_json(&name, &before);
                    self.say(&format!("Not accepted: {}.", display(&e)))?;
                }
            }
        }
    }

    /// The review step: read the exact content back (introduced by
    /// `words`), then send, edit a field, decline or cancel.
    fn review(
        &mut self,
        form: &mut Form,
        cx: &Context,
        words: &ReviewWords,
    ) -> Result<Outcome, RespondError> {
        loop {
            form.apply(KeyIntent::Submit);
            let content = match form.stage() {
                Stage::Review(c) => c.clone(),
                Stage::Edit => {
                    let first = self.refused_submit(form)?;
                    if let Some(o) = self.ask_field(form, first, cx)? {
                        return Ok(o);
                    }
                    continue;
                }
            };
            for (k, l) in form::review_lines(form, &content).iter().enumerate() {
                self.say(if k == 0 { words.intro } else { l })?;
            }
            loop {
                let line = match self.read(words.prompt, cx)? {
                    Read::Line(l) => l,
                    Read::Done(o) => return Ok(o),
                };
                match review_command(&line, form.fields().len(), words.arguments) {
                    Ok(ReviewCommand::Send) => {
                        if let Status::Done(a) = form.apply(KeyIntent::Send) {
                            // Withdrawn as it was typed: not sent (the
                            // respond step says how it ended).
                            if cx.claim_answer() {
                                self.say(words.sent)?;
                            }
                            return Ok(Outcome::Answer(a));
                        }
                    }
                    Ok(ReviewCommand::Edit(i)) => {
                        form.apply(KeyIntent::Back);
                        if let Some(o) = self.ask_field(form, i, cx)? {
                            return Ok(o);
                        }
                        break;
                    }
                    Ok(ReviewCommand::Decline) => {
                        self.say("Declined.")?;
                        return Ok(Outcome::Answer(Answer::bare(Action::Decline)));
                    }
                    Ok(ReviewCommand::Cancel) => {
                        self.say(if words.arguments {
                            BACK_TO_THE_LIST
                        } else {
                            "Cancelled."
                        })?;
                        return Ok(Outcome::Answer(Answer::bare(Action::Cancel)));
                    }
                    Err(e) => self.say(&format!("Not understood: {e}."))?,
                }
            }
        }
    }

    /// Say why the form cannot be sent yet; returns the first field to fix.
    fn refused_submit(&mut self, form: &Form) -> Result<usize, RespondError> {
        let errs = form.content().err().unwrap_or_default();
        self.say(&format!(
            "The form cannot be sent yet: {} to fix.",
            if errs.len() == 1 {
                "1 field".to_owned()
            } else {
                format!("{} fields", errs.len())
            }
        ))?;
        let mut first = None;
        for (name, msg) in &errs {
            let i = form.fields().iter().position(|f| &f.field.name == name);
            let label = i
                .and_then(|i| form.fields().get(i))
                .map(|f| display(f.field.label()).into_owned())
                .unwrap_or_default();
            first = first.or(i);
            self.say(&format!("{label}: {}.", display(msg)))?;
        }
        Ok(first.unwrap_or(0))
    }

    /// A view that is not executable (metadata, omit, gap): say what was
    /// withheld and why, then decline or cancel.
    fn respond_refusable(
        &mut self,
        req: &RequestEvent,
        cx: &Context,
    ) -> Result<Outcome, RespondError> {
        if let RequestView::NotAForm { reasons, .. } = &req.view {
            let message = crate::responder::request_message(req);
            self.header(req, cx, (!message.is_empty()).then_some(message.as_str()))?;
            self.say("This request cannot be answered as a form: its requestedSchema asks for a shape a form cannot take.")?;
            for r in reasons {
                // The reasons are safe text already; display() again is harmless.
                self.say(&format!("Why: {}", display(r)))?;
            }
            self.say("You can only decline or cancel it.")?;
            return self.decline_or_cancel(cx);
        }
        self.header(req, cx, None)?;
        self.say("This request cannot be answered with content.")?;
        let why = match &req.view {
            RequestView::Metadata => "the adapter shared only the request's metadata.".to_owned(),
            RequestView::Gap {
                reason,
                detail: Some(d),
            } => format!("it is missing ({}: {}).", display(reason), display(d)),
            RequestView::Gap { reason, .. } => format!("it is missing ({}).", display(reason)),
            _ => "it was intentionally left out.".to_owned(),
        };
        self.say("What was withheld: the request's content (its message and what it asks for).")?;
        self.say(&format!("Why: {why}"))?;
        self.say("It is not an executable request: you can only decline or cancel it.")?;
        self.decline_or_cancel(cx)
    }

    /// Ask until the person types decline or cancel.
    fn decline_or_cancel(&mut self, cx: &Context) -> Result<Outcome, RespondError> {
        loop {
            let line = match self.read("Type decline or cancel: ", cx)? {
                Read::Line(l) => l,
                Read::Done(o) => return Ok(o),
            };
            match line.trim().to_lowercase().as_str() {
                "decline" | "d" => {
                    self.say("Declined.")?;
                    return Ok(Outcome::Answer(Answer::bare(Action::Decline)));
                }
                "cancel" | "c" => {
                    self.say("Cancelled.")?;
                    return Ok(Outcome::Answer(Answer::bare(Action::Cancel)));
                }
                _ => self.say("Not understood: type decline or cancel.")?,
            }
        }
    }
}

/// What the review step says ([`PlainResponder::review`]): its first
/// line, its prompt, and what it says once sent.
struct ReviewWords {
    intro: &'static str,
    prompt: &'static str,
    sent: &'static str,
    /// The review of a call's arguments: `call` sends, `back` goes back to
    /// the list, nothing is declined.
    arguments: bool,
}

/// The review of a request's answer.
const REQUEST_REVIEW: ReviewWords = ReviewWords {
    intro: "Review: this exact content will be sent as an accept.",
    prompt: "Type send, edit N, decline, or cancel: ",
    sent: "Sent.",
    arguments: false,
};

/// What is said when a call's arguments are given up.
const BACK_TO_THE_LIST: &str = "Back to the list.";

/// Server text `text` as safe lines, each marked as the server's words so
/// that no line of it can pass for one of plain mode's own sentences: the
/// first line after `first: `, every further line after `more: `.
pub fn server_words(first: &str, more: &str, text: &str) -> Vec<String> {
    display_multiline(text)
        .iter()
        .enumerate()
        .map(|(i, l)| format!("{}: {l}", if i == 0 { first } else { more }))
        .collect()
}

/// A command typed at the review step.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ReviewCommand {
    Send,
    /// Edit the field at this index (0-based).
    Edit(usize),
    Decline,
    Cancel,
}

/// Why a line typed at the review step is not a command.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
enum ReviewCommandError {
    /// `edit N` with no such field.
    #[error("there is no field {given}; fields are 1 to {fields}")]
    NoSuchField { given: String, fields: usize },
    /// `edit` alone.
    #[error("say which field, like edit 1 (fields are 1 to {fields})")]
    WhichField { fields: usize },
    /// An empty line.
    #[error("a bare Enter does not send; type send")]
    BareEnter,
    /// Anything else.
    #[error("type send, edit and a field number, decline, or cancel")]
    Unknown,
    /// An empty line at the review of a call's arguments.
    #[error("a bare Enter does not call; type call")]
    BareEnterCall,
    /// Anything else at the review of a call's arguments.
    #[error("type call, edit and a field number, or back")]
    UnknownCall,
}

/// The command typed at the review step (`arguments`: the review of a
/// call's arguments, where `call` sends, `back` goes back to the list and
/// nothing is declined; `send` and `cancel` are taken there too).
fn review_command(
    line: &str,
    fields: usize,
    arguments: bool,
) -> Result<ReviewCommand, ReviewCommandError> {
    let t = line.trim().to_lowercase();
    let words: Vec<&str> = t.split_whitespace().collect();
    match words.as_slice() {
        ["send"] | ["s"] => Ok(ReviewCommand::Send),
        ["call"] | ["next"] if arguments => Ok(ReviewCommand::Send),
        ["back"] | ["b"] if arguments => Ok(ReviewCommand::Cancel),
        ["decline"] | ["d"] if arguments => Err(ReviewCommandError::UnknownCall),
        ["decline"] | ["d"] => Ok(ReviewCommand::Decline),
        ["cancel"] | ["c"] => Ok(ReviewCommand::Cancel),
        ["edit" | "e", n] => match n.parse::<usize>() {
            Ok(k) if (1..=fields).contains(&k) => Ok(ReviewCommand::Edit(k - 1)),
            _ => Err(ReviewCommandError::NoSuchField {
                given: (*n).to_owned(),
                fields,
            }),
        },
        ["edit" | "e"] => Err(ReviewCommandError::WhichField { fields }),
        [] if arguments => Err(ReviewCommandError::BareEnterCall),
        [] => Err(ReviewCommandError::BareEnter),
        _ if arguments => Err(ReviewCommandError::UnknownCall),
        _ => Err(ReviewCommandError::Unknown),
    }
}

impl<I: LineIo> Responder for PlainResponder<I> {
    fn in_lines(
        &mut self,
        job: &mut crate::responder::LinesJob<'_>,
    ) -> Result<(), crate::mcp::auth::authorizer::SignInError> {
        job(&mut self.io)
    }

    fn follow_sign_ins(&mut self, sign_ins: std::sync::Arc<crate::responder::sign_in::SignIns>) {
        self.sign_ins = sign_ins;
    }

    fn follow_trace(&mut self, trace: std::sync::Arc<crate::responder::trace::Trace>) {
        self.trace = trace;
    }

    fn respond(&mut self, req: &RequestEvent, cx: &Context) -> Result<Outcome, RespondError> {
        self.wait_armed = false;
        self.waiting_said = false;
        self.idle_calls = 0;
        self.changed = false;
        self.warned = false;
        self.said_withdrawn = false;
        self.said_call_finished = false;
        // How the last request ended is acknowledged first: no line typed
        // before that reaches this request.
        let asked = Instant::now();
        if self.acknowledge(true)? {
            return Ok(Outcome::Quit);
        }
        // The time spent on that notice is not this request's.
        let shifted = cx.deadline_later_by(asked.elapsed());
        let cx = shifted.as_ref().unwrap_or(cx);
        // What was typed before this request was shown was meant for
        // something else: it is not an answer to this one.
        self.io.discard_typeahead();
        let waited = self.waiting_since.take();
        if let Some(make) = &self.signal {
            if waited.is_some_and(|t| t.elapsed() >= self.notify_after) {
                let bytes = make(&req.server.name);
                if !bytes.is_empty() {
                    self.io.signal(&bytes);
                }
            }
        }
        // While the request is on screen nothing else is printed (a server's
        // stderr could otherwise print lines that pass for this request's
        // own); what was held is printed once it is answered.
        if self.hold_notices {
            crate::notice::hold();
        }
        let out = match &req.view {
            RequestView::Body(r) => match &r.body {
                RequestBody::Form(s) => self.respond_form(req, &r.message, s, cx),
                RequestBody::Url { url, .. } => self.respond_url(req, &r.message, url, cx),
            },
            _ => self.respond_refusable(req, cx),
        };
        // An answer decided as the source withdrew the request is not sent:
        // say so rather than that it was answered.
        let out = match out {
            Ok(Outcome::Answer(a)) if !cx.claim_answer() => {
                if !self.said_withdrawn {
                    self.say_withdrawn(cx)?;
                }
                Ok(Outcome::Answer(a))
            }
            o => o,
        };
        if self.hold_notices {
            crate::notice::release();
        }
        if matches!(out, Ok(Outcome::Answer(_))) && !cx.withdrawn() {
            self.answered += 1;
        }
        out
    }

    fn idle(&mut self, wait: Duration) -> bool {
        // How the last request ended is acknowledged before the wait.
        match self.acknowledge(false) {
            Ok(true) => return true,
            Ok(false) => {}
            Err(_) => return false,
        }
        // Said once per wait, after an answer, and only when the wait goes
        // on (the end of a finished input is not announced).
        self.idle_calls += 1;
        self.waiting_since.get_or_insert_with(Instant::now);
        if !self.waiting_said && !self.browsing && self.answered > 0 && self.idle_calls >= 2 {
            self.waiting_said = true;
            let n = self.answered;
            let said = self.say(&format!(
                "{} answered. Waiting for the next request; press Control-C twice to quit.",
                if n == 1 {
                    "1 request".to_owned()
                } else {
                    format!("{n} requests")
                }
            ));
            if said.is_err() {
                return false;
            }
        }
        match self.io.wait(wait) {
            Some(Reply::Quit) => true,
            // Control-C while a sign-in waits for the browser ends the
            // sign-in (exit 3), as at its question.
            Some(Reply::Interrupt) if self.sign_ins.cancel() => false,
            Some(Reply::Interrupt) => {
                let recent = self
                    .last_ctrl_c
                    .is_some_and(|t| Instant::now().duration_since(t) < QUIT_WINDOW);
                if self.wait_armed || recent {
                    let _ = self.say("Quitting: any request still to come is cancelled.");
                    return true;
                }
                self.wait_armed = true;
                let _ = self.say(
                    "Press Control-C again to quit (the remaining requests will be cancelled).",
                );
                false
            }
            _ => false,
        }
    }

    fn browse(&mut self, step: &crate::browse::Step) -> Result<crate::browse::Reply, RespondError> {
        self.browse_step(step)
    }

    fn wait(
        &mut self,
        wait: Duration,
        shown: &crate::responder::Waiting,
    ) -> crate::responder::WaitKey {
        self.wait_call(wait, shown)
    }

    /// At the end of the run, as on the full screen: the notice that the
    /// last request ended without the person's answer waits for Enter
    /// before the terminal is given back.
    fn finish(&mut self) {
        let _ = self.acknowledge(false);
    }
}

/// The plain responder on the controlling terminal.
///
/// Errors: [`RespondError::NoTerminal`] when there is none.
#[cfg(unix)]
pub fn tty_responder(
    launcher: Box<dyn Launcher>,
    no_open: Option<crate::launcher::NoOpenWhy>,
    notify: crate::responder::notify::Notify,
) -> Result<Box<dyn Responder>, RespondError> {
    let io = TtyIo::open()?;
    // Notices on stderr go out at once, between the plain lines.
    crate::notice::release();
    let signal = move |from: &str| crate::responder::notify::notify_signal_bytes(notify, from);
    let mut r = PlainResponder::new(io, launcher, no_open.is_some())
        .showing_urls_for(no_open)
        .with_signal(Box::new(signal), crate::responder::notify::NOTIFY_AFTER);
    r.consent_guard = CONSENT_GUARD;
    r.hold_notices = true;
    Ok(Box::new(r))
}

/// Without the terminal front end there is no plain mode either.
///
/// Errors: always, [`RespondError::NoFrontEnd`].
#[cfg(not(unix))]
pub fn tty_responder<N>(
    _launcher: Box<dyn Launcher>,
    _no_open: Option<crate::launcher::NoOpenWhy>,
    _notify: N,
) -> Result<Box<dyn Responder>, RespondError> {
    Err(RespondError::NoFrontEnd)
}

/// `demo --plain`: answer one request on the controlling terminal (URLs
/// open in the system browser); the terminal is given back before this
/// returns.
///
/// Errors: no terminal, or the terminal failed.
#[cfg(unix)]
pub fn answer_one(
    req: &RequestEvent,
    launcher: Box<dyn crate::launcher::Launcher>,
    no_open: Option<crate::launcher::NoOpenWhy>,
) -> Result<Outcome, RespondError> {
    let io = TtyIo::open()?;
    let mut p = PlainResponder::new(io, launcher, false).showing_urls_for(no_open);
    let cx = Context {
        progress: crate::responder::Progress::of(1, 1),
        deadline: None,
        ..Default::default()
    };
    p.respond(req, &cx)
}

/// Without the terminal front end there is no plain mode either.
///
/// Errors: always.
#[cfg(not(unix))]
pub fn answer_one(
    _req: &RequestEvent,
    _launcher: Box<dyn crate::launcher::Launcher>,
    _no_open: Option<crate::launcher::NoOpenWhy>,
) -> Result<Outcome, RespondError> {
    Err(RespondError::NoFrontEnd)
}

#[cfg(test)]
mod tests;
