//! Elicitations in a session: the server's `elicitation/create`, the URL
//! elicitations of a -32042 `URLElicitationRequiredError`, their answers,
//! withdrawals (`notifications/cancelled`) and completions
//! (`notifications/elicitation/complete`).
//!
//! Data flow per elicitation: params → mode advertised? (else -32602) →
//! [`wrap_request`] (else -32602 with the violations) → request event (to
//! `--events`) → [`Desk::ask`](crate::session::Desk::ask) → … the reply →
//! [`make_result_event`] → result event → its `ElicitResult` is the
//! JSON-RPC result. A withdrawn elicitation gets no answer and no result
//! event.

use std::time::Duration;

use serde_json::{json, Value};
use tokio::time::Instant;

use super::{str_field, Ask, Client, MAX_URL_PLACES};
use crate::binding::violation::{Part, Violation};
use crate::binding::{
    wrap_request, Action, Answer, CallMethod, CallRef, McpExtension, Mode, RequestEvent,
    ResultMeta, Revision, WrapOptions,
};
use crate::mcp::jsonrpc::{self, INTERNAL_ERROR, INVALID_PARAMS};
use crate::mcp::McpError;
use crate::responder::{Context, Outcome, Progress, RespondError, WaitKey, Waiting};
use crate::safe_text;
use crate::session::{settle, AskError, NoResult, Reply, WithdrawReason};

/// MCP error code of `URLElicitationRequiredError` (2025-11-25).
pub const URL_ELICITATION_REQUIRED: i64 = -32042;
/// How long the client waits for the completion of a consented browser
/// flow before it retries the call anyway (without `--timeout`).
pub const COMPLETION_WAIT: Duration = Duration::from_secs(300);
/// The same wait for scripted answers (`--action`, `--answers`): no browser
/// flow runs, only a completion the server sends on its own is waited for.
pub const SCRIPTED_COMPLETION_WAIT: Duration = Duration::from_secs(5);

/// Why an elicitation gets no event: JSON-RPC code, sentence, data.
pub(super) type Refusal = (i64, String, Option<Value>);

/// Where an elicitation came from in 2026-07-28: the key of its entry in
/// an `input_required` result's `inputRequests`, and the client request in
/// progress (`tools/call`, `prompts/get`, `resources/read` and its name).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct InputRef {
    pub key: String,
    pub method: String,
    pub name: String,
}

/// The event's `extensions.mcp` (ahp-wire.md 6.1): the session's
/// `revision` (an older version the server chose at `initialize` is read
/// under 2025-11-25), and for an entry of an `input_required` round its
/// `inputKey` and the `call` in progress.
pub(super) fn mcp_extension(revision: Revision, input: Option<&InputRef>) -> McpExtension {
    let mut ext = McpExtension::of(revision);
    if let Some(i) = input {
        ext.input_key = Some(i.key.clone());
        ext.call = CallMethod::parse(&i.method).map(|method| CallRef {
            method,
            name: i.name.clone(),
        });
    }
    ext
}

/// What a server is told of an answer the client refused (an answers
/// file's value the form does not take, an accept the request cannot
/// have, no rule of the answers file matching): the reasons stay with the
/// person, since they quote the refused values and the rules' own.
pub(crate) const REFUSED: &str =
    "the client has no answer it can send (why is said to the person only)";

impl Client {
    /// The server's `elicitation/create` with request id `id`.
    pub(super) fn elicit_request(&mut self, id: Value, params: Value) -> Result<(), McpError> {
        let url_id = str_field(&params, "elicitationId");
        match self.prepare(&params, None) {
            Ok(req) => self.ask(Some(id), req, url_id, None).map(|_| ()),
            Err((code, why, data)) => {
                let shown = data.clone();
                self.reject(Some(&id), code, why, data)?;
                self.show_refusal(&params, code, shown.as_ref())
            }
        }
    }

    /// Check the params (mode advertised, the binding's rules) and build the
    /// request event.
    pub(super) fn prepare(
        &mut self,
        params: &Value,
        input: Option<&InputRef>,
    ) -> Result<RequestEvent, Refusal> {
        let Some(server) = self.life.server.clone() else {
            return Err((
                jsonrpc::INVALID_REQUEST,
                "elicitation/create before initialization finished".into(),
                None,
            ));
        };
        let mode = match params.get("mode") {
            None => Some(Mode::Form),
            Some(Value::String(s)) => Mode::parse(s),
            Some(_) => None,
        };
        let Some(mode) = mode else {
            let shown = params
                .get("mode")
                .map(|m| m.to_string())
                .unwrap_or_default();
            let shown: String = shown.chars().take(100).collect();
            return Err((
                INVALID_PARAMS,
                format!("unknown elicitation mode {}", safe_text::display(&shown)),
                None,
            ));
        };
        if !self.opts.modes.contains(&mode) {
            let advertised: Vec<&str> = self.opts.modes.iter().map(|m| m.as_str()).collect();
            return Err((
                INVALID_PARAMS,
                format!(
                    "elicitation mode '{}' was not advertised (this client advertised: {})",
                    mode.as_str(),
                    advertised.join(", ")
                ),
                None,
            ));
        }
        self.elic.asked += 1;
        let event_id = format!("{}-{}", self.run_tag, self.elic.asked);
        let mut ext = mcp_extension(self.life.revision, input);
        // A pushed (2025-11-25) elicitation names the call in progress too.
        if ext.call.is_none() {
            ext.call = self.elic.call.clone();
        }
        let options = WrapOptions {
            policy: self.opts.schema_policy,
            mcp: Some(&ext),
            ..WrapOptions::new(&server, &self.adapter, &event_id)
        };
        let built = wrap_request(params, &options);
        if built.is_err() {
            self.elic.not_asked += 1;
        }
        built.map_err(|violations| {
            // A fault in the params is reported relative to the params.
            let strip = |v: &Violation| match v.location.part {
                Some(Part::RequestText) => v.location.pointer.clone(),
                _ => v.pointer(),
            };
            let listed: Vec<Value> = violations
                .iter()
                .map(|v| json!({ "pointer": strip(v), "rule": v.rule, "message": v.message }))
                .collect();
            let first = violations
                .first()
                .map(|v| {
                    let p = strip(v);
                    let p = if p.is_empty() { "(root)".to_owned() } else { p };
                    format!("{p}: [{}] {}", v.rule, v.message)
                })
                .unwrap_or_default();
            (
                INVALID_PARAMS,
                format!(
                    "invalid elicitation/create params ({} violation(s)); first: {}",
                    violations.len(),
                    safe_text::display(&first)
                ),
                Some(json!({ "violations": listed })),
            )
        })
    }

    /// Write the request event and put the request to the responder;
    /// returns its desk key (None when it was answered at once: the person
    /// quit earlier, or too many are open).
    /// `progress` is the request's place in its 2026-07-28 round ("request i
    /// of n"; its answer then goes out with the round's:
    /// [`Context::in_round`]); None for a request answered on its own,
    /// counted among the elicitations so far.
    pub(super) fn ask(
        &mut self,
        rpc_id: Option<Value>,
        req: RequestEvent,
        url_id: Option<String>,
        progress: Option<Progress>,
    ) -> Result<Option<u64>, McpError> {
        self.write_event(&req.event)?;
        let ask = Ask {
            rpc_id,
            req,
            url_id,
        };
        if self.elic.quit {
            self.finish_ask(ask, Ok(Outcome::Answer(Answer::bare(Action::Cancel))))?;
            return Ok(None);
        }
        let cx = Context {
            in_round: progress.is_some(),
            progress: progress.unwrap_or_else(|| self.place(ask.url_id.as_deref())),
            // The deadline is set when the request can be shown
            // (`Desk::set_time_limit`), not now: it may wait behind another.
            ..Default::default()
        };
        // Who asked, for the screen: the server as launched, and the call.
        let origin = crate::responder::Origin {
            launched: Some(self.opts.target.launch_label()),
            call: self.elic.call.as_ref().map(|c| match c.method {
                CallMethod::ResourcesRead => format!("{} {}", c.method.as_str(), c.name),
                _ => {
                    let args = self
                        .elic
                        .call_args
                        .clone()
                        .unwrap_or_else(|| Value::Object(self.opts.arguments.clone()));
                    let args = crate::binding::exact_int::to_string(&args);
                    format!("{} {} {args}", c.method.as_str(), c.name)
                }
            }),
        };
        match self.desk.ask_from(ask.req.clone(), cx, origin) {
            Ok(key) => {
                self.elic.asks.insert(key, ask);
                Ok(Some(key))
            }
            Err(AskError::Busy) => {
                let why = format!("{}: refused", AskError::Busy);
                self.reject(ask.rpc_id.as_ref(), INTERNAL_ERROR, why, None)?;
                Ok(None)
            }
            Err(AskError::Gone) => Err(McpError::Responder(RespondError::Stopped)),
        }
    }

    /// Where an elicitation answered on its own stands among those asked so
    /// far ("request i of n"): a new one is the last; a URL elicitation
    /// asked again under an `elicitationId` asked before (the retry of a
    /// call after -32042 may ask for it once more) is the same request,
    /// under its first number, and the count does not grow.
    fn place(&mut self, url_id: Option<&str>) -> Progress {
        let first = url_id.and_then(|u| self.elic.url_places.get(u).copied());
        if first.is_some() {
            self.elic.repeats += 1;
        }
        let count = self.elic.counted();
        if let (None, Some(u)) = (first, url_id) {
            if self.elic.url_places.len() < MAX_URL_PLACES {
                self.elic.url_places.insert(u.to_owned(), count);
            }
        }
        Progress::of(first.unwrap_or(count), count)
    }

    /// A reply from the responder thread (keys are handled by `step`).
    pub(super) fn on_reply(&mut self, r: Reply) -> Result<(), McpError> {
        match r {
            Reply::Answered { key, outcome } => {
                let Some(ask) = self.elic.asks.remove(&key) else {
                    return Ok(());
                };
                // Only the -32042 flow (no request id) reads the result back.
                let keep = ask.rpc_id.is_none();
                let result = self.finish_ask(ask, outcome)?;
                if keep {
                    self.elic.finished.insert(key, result);
                }
                if self.elic.quit {
                    return Err(McpError::Quit);
                }
            }
            Reply::Withdrawn { key, reason, shown } => {
                if self
                    .elic
                    .asks
                    .remove(&key)
                    .is_some_and(|a| a.rpc_id.is_none())
                {
                    self.elic.finished.insert(key, None);
                }
                // A request the person never saw is not "this request":
                // stderr says a queued one went, and the waiting screen
                // keeps what it said.
                if !shown {
                    self.notice(&unseen_withdrawal(&reason));
                    return Ok(());
                }
                let said = reason.describe();
                self.notice(&said);
                self.show_status(capitalized(&said));
            }
            Reply::Key(_) => {}
        }
        Ok(())
    }

    /// Say that an elicitation was refused (`said`: why, safe text): the
    /// first [`Tally::KEPT`](crate::mcp::Tally::KEPT) of the session one line
    /// each, then one line saying that later ones are counted (the count
    /// ends the run), so a server that makes the client refuse without end
    /// cannot flood the terminal.
    fn say_refusal(&mut self, said: &str) {
        let n = self.elic.refusals_said;
        self.elic.refusals_said += 1;
        if n < crate::mcp::Tally::KEPT {
            self.notice(&format!("refused an elicitation: {said}"));
        } else if n == crate::mcp::Tally::KEPT {
            self.notice(&format!(
                "refused more than {} elicitations: later ones are counted, not said one by one",
                crate::mcp::Tally::KEPT
            ));
        }
    }

    /// Turn the responder's outcome into the result event and the answer.
    /// Returns the `ElicitResult` sent, or None when refused.
    fn finish_ask(
        &mut self,
        ask: Ask,
        outcome: Result<Outcome, RespondError>,
    ) -> Result<Option<Value>, McpError> {
        let id = ask.rpc_id.as_ref();
        let settled = match settle(&ask.req, outcome, &ResultMeta::default()) {
            Ok(s) => s,
            Err(NoResult::Refused(m)) => {
                // The responder gives the reason; the request is named here.
                // The reasons quote what was refused (a value an answers
                // file gave, perhaps a secret): they are the person's; the
                // server learns only that its request got no answer.
                let said = format!("answer refused: request {}: {m}", ask.req.id);
                let sent = format!("answer refused: request {}: {REFUSED}", ask.req.id);
                self.say_refusal(&said);
                self.elic.refused.push(said);
                if let Some(id) = id {
                    self.reply(jsonrpc::error_response(id, INTERNAL_ERROR, &sent, None))?;
                }
                return Ok(None);
            }
            Err(not_opened @ NoResult::NotOpened(_)) => {
                let said = format!(
                    "answer refused: request {}: {}",
                    ask.req.id,
                    not_opened.reasons()
                );
                // Why the browser did not open is the person's business: the
                // server learns only that the URL was not opened.
                let sent = format!(
                    "answer refused: request {}: {}",
                    ask.req.id,
                    crate::responder::NOT_OPENED
                );
                self.say_refusal(&said);
                self.elic.refused.push(said);
                if let Some(id) = id {
                    self.reply(jsonrpc::error_response(id, INTERNAL_ERROR, &sent, None))?;
                }
                return Ok(None);
            }
            Err(NoResult::Failed(m)) => {
                if let Some(id) = id {
                    let _ = self.reply(jsonrpc::error_response(
                        id,
                        INTERNAL_ERROR,
                        "the client could not ask the person",
                        None,
                    ));
                }
                return Err(McpError::Responder(m));
            }
            Err(NoResult::Invalid {
                violations, quit, ..
            }) => {
                self.elic.quit |= quit;
                let list: Vec<String> = violations.iter().map(|v| v.to_string()).collect();
                let why = format!("the answer did not validate: {}", list.join("; "));
                self.reject(id, INTERNAL_ERROR, why, None)?;
                return Ok(None);
            }
        };
        self.elic.quit |= settled.quit;
        let ev = settled.result.event().map_err(McpError::ResultText)?;
        let answer = settled.answer;
        // The value the result event's text was built from, and validated
        // with it.
        let result = crate::binding::mcp_result(&ask.req, &answer);
        self.write_event(&ev)?;
        self.elic.answered += 1;
        if answer.action == Action::Accept {
            if let Some(u) = &ask.url_id {
                self.elic.consented.insert(u.clone());
            }
        }
        if crate::mcp::sampling::is_sampling(&ask.req) {
            // The form stood for a sampling request: its answer is the
            // model's reply, or the rejection.
            self.answer_sampling(&ask, &result)?;
            if id.is_some() && self.elic.quit {
                self.elic.cancelled_on_quit += 1;
            }
        } else if let Some(id) = id {
            self.reply(jsonrpc::response(id, result.clone()))?;
            if self.elic.quit {
                self.elic.cancelled_on_quit += 1;
            }
        }
        Ok(Some(result))
    }

    /// Refuse an elicitation: a JSON-RPC error answers request `id` (none
    /// for one carried by a -32042 error); no result event.
    fn reject(
        &mut self,
        id: Option<&Value>,
        code: i64,
        why: String,
        data: Option<Value>,
    ) -> Result<(), McpError> {
        self.say_refusal(&why);
        let msg = id.map(|id| jsonrpc::error_response(id, code, &why, data));
        if code == INVALID_PARAMS {
            self.elic.rejected.push(why);
        } else {
            self.elic.refused.push(why);
        }
        match msg {
            Some(m) => self.reply(m),
            None => Ok(()),
        }
    }

    /// The call in progress has finished (answered or failed) while
    /// requests the server sent during it are still open (2025-11-25: a
    /// server's `elicitation/create` outlives its tool call). They stay
    /// open, and an answer is still sent, but the server may no longer use
    /// it: each screen says so, and so does stderr.
    ///
    /// `call` is the call that finished: only the requests made while it
    /// ran (their event names it in `extensions.mcp.call`) are noted; one
    /// the server sent before any call, or during another, is not its.
    pub(super) fn call_finished_under_open_requests(&mut self, call: Option<&CallRef>) {
        let Some(call) = call else {
            return;
        };
        let keys: Vec<u64> = self
            .elic
            .asks
            .iter()
            .filter(|(_, a)| {
                a.rpc_id.is_some() && a.req.mcp.as_ref().and_then(|m| m.call.as_ref()) == Some(call)
            })
            .map(|(k, _)| *k)
            .collect();
        let noted = keys
            .into_iter()
            .filter(|k| self.desk.note_call_finished(*k))
            .count();
        if noted > 0 {
            self.notice(&format!(
                "the call finished while {} open: an answer may no longer be used (it is still sent)",
                if noted == 1 {
                    "a request was".to_owned()
                } else {
                    format!("{noted} requests were")
                }
            ));
        }
    }

    /// Whether a request the server sent is still open (asked and not yet
    /// answered or withdrawn).
    pub(super) fn server_request_open(&self) -> bool {
        self.elic.asks.values().any(|a| a.rpc_id.is_some())
    }

    /// `notifications/cancelled`: the server withdrew one of its requests.
    pub(super) fn on_cancelled(&mut self, p: &Value) {
        let Some(rid) = p.get("requestId") else {
            return;
        };
        let key = self
            .elic
            .asks
            .iter()
            .find(|(_, a)| a.rpc_id.as_ref() == Some(rid))
            .map(|(k, _)| *k);
        match key {
            Some(k) => {
                let reason = str_field(p, "reason");
                self.desk.withdraw(k, WithdrawReason::Cancelled(reason));
            }
            None => self.notice(&format!(
                "ignored a cancellation of request {}, which is not open",
                safe_text::display(&rid.to_string().chars().take(100).collect::<String>())
            )),
        }
    }

    /// `notifications/elicitation/complete`: shown only for a URL
    /// elicitation the person consented to and not yet seen complete.
    pub(super) fn on_complete(&mut self, p: &Value) {
        let eid = str_field(p, "elicitationId").unwrap_or_default();
        let shown = safe_text::display(&eid.chars().take(200).collect::<String>()).into_owned();
        if !self.elic.consented.contains(&eid) {
            self.notice(&format!(
                "ignored a completion for URL elicitation '{shown}', which was not consented to here"
            ));
        } else if !self.elic.completed.insert(eid) {
            self.notice(&format!(
                "ignored a repeated completion for URL elicitation '{shown}'"
            ));
        } else {
            let said = format!("the server reports URL elicitation '{shown}' complete");
            self.notice(&said);
            self.show_status(capitalized(&said));
        }
    }

    /// Put each URL elicitation to the person (skipping those consented to
    /// before). Returns their `elicitationId`s when all were accepted, None
    /// otherwise.
    pub(super) async fn consent_all(
        &mut self,
        list: Vec<Value>,
    ) -> Result<Option<Vec<String>>, McpError> {
        let mut ids = Vec::new();
        for params in list {
            let url_id = str_field(&params, "elicitationId");
            if let Some(u) = &url_id {
                ids.push(u.clone());
                if self.elic.consented.contains(u) {
                    continue;
                }
            }
            let req = match self.prepare(&params, None) {
                Ok(r) => r,
                Err((code, why, data)) => {
                    self.reject(None, code, why, data)?;
                    return Ok(None);
                }
            };
            let Some(key) = self.ask(None, req, url_id, None)? else {
                return Ok(None);
            };
            while !self.elic.finished.contains_key(&key) {
                self.step(None).await?;
            }
            let accepted = self
                .elic
                .finished
                .remove(&key)
                .flatten()
                .and_then(|r| r.get("action").cloned())
                == Some(json!("accept"));
            if !accepted {
                return Ok(None);
            }
        }
        Ok(Some(ids))
    }

    /// Wait until the server reports every `ids` complete, the person
    /// presses "retry now" (true) or "give up" (false), or the wait
    /// (`--timeout`, else the options' or [`COMPLETION_WAIT`]) ends (true:
    /// retry anyway).
    pub(super) async fn await_completion(&mut self, ids: &[String]) -> Result<bool, McpError> {
        let done = |s: &Client| ids.iter().all(|i| s.elic.completed.contains(i));
        if done(self) {
            return Ok(true);
        }
        self.notice("waiting for the browser flow to complete");
        self.desk.show(Waiting {
            status: Some("Waiting for the browser flow to complete".into()),
            offer_retry: true,
            connecting: false,
            call: None,
            stderr: None,
        });
        self.elic.wait_key = None;
        let limit = self
            .opts
            .timeout
            .or(self.opts.completion_wait)
            .unwrap_or(COMPLETION_WAIT);
        let until = Instant::now() + limit;
        let out = loop {
            if done(self) {
                break true;
            }
            match self.elic.wait_key.take() {
                Some(WaitKey::RetryNow) => break true,
                Some(WaitKey::GiveUp) => {
                    self.notice("gave up waiting for the browser flow");
                    break false;
                }
                _ => {}
            }
            if !self.step(Some(until)).await? {
                self.notice(&format!(
                    "no completion within {} s; retrying the call anyway",
                    limit.as_secs()
                ));
                break true;
            }
        };
        self.show_idle();
        Ok(out)
    }
}

/// The notice for a request withdrawn while it was still queued (never
/// shown): the server's reason, sanitized and cut, when it gave one.
fn unseen_withdrawal(reason: &WithdrawReason) -> String {
    const SAID: &str = "a queued request was withdrawn before it was shown";
    match reason {
        WithdrawReason::Cancelled(None) => format!("{SAID} (the server withdrew it)"),
        WithdrawReason::Cancelled(Some(r)) => format!(
            "{SAID} (the server withdrew it: {})",
            safe_text::display(&r.chars().take(200).collect::<String>())
        ),
        WithdrawReason::CallFinished => format!("{SAID} (the call that asked has finished)"),
        WithdrawReason::ServerExited => format!("{SAID} (the server exited)"),
        WithdrawReason::StreamClosed => format!("{SAID} (the connection closed)"),
        WithdrawReason::ConnectionClosed => {
            format!("{SAID} (the connection to the server ended)")
        }
        WithdrawReason::TimedOut => format!("{SAID} (it timed out)"),
    }
}

fn capitalized(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_uppercase().collect::<String>() + c.as_str(),
        None => String::new(),
    }
}
