//! Elicitations in a session: the server's `elicitation/create`, the URL
//! elicitations of a -32042 `URLElicitationRequiredError`, their answers,
//! withdrawals (`notifications/cancelled`) and completions
//! (`notifications/elicitation/complete`).
//!
//! Data flow per elicitation: params → mode advertised? (else -32602) →
//! [`wrap_params_with`] (else -32602 with the violations) → request event (to
//! `--events`) → [`Desk::ask`](crate::session::Desk::ask) → … the reply →
//! [`make_result_event`] → result event → its `ElicitResult` is the
//! JSON-RPC result. A withdrawn elicitation gets no answer and no result
//! event.

use std::time::Duration;

use serde_json::{json, Value};
use tokio::time::Instant;

use super::jsonrpc::{self, INTERNAL_ERROR, INVALID_PARAMS};
use super::session::{str_field, Ask, Session};
use super::McpError;
use crate::binding::violation::{Part, Violation};
use crate::binding::{wrap_params_with, Action, Answer, Mode, RequestEvent, ResultMeta};
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
type Refusal = (i64, String, Option<Value>);

impl Session {
    /// The server's `elicitation/create` with request id `id`.
    pub(super) fn elicit_request(&mut self, id: Value, params: Value) -> Result<(), McpError> {
        let url_id = str_field(&params, "elicitationId");
        match self.prepare(&params) {
            Ok(req) => self.ask(Some(id), req, url_id).map(|_| ()),
            Err((code, why, data)) => {
                let shown = data.clone();
                self.reject(Some(&id), code, why, data)?;
                self.show_refusal(&params, code, shown.as_ref())
            }
        }
    }

    /// Check the params (mode advertised, the binding's rules) and build the
    /// request event.
    fn prepare(&mut self, params: &Value) -> Result<RequestEvent, Refusal> {
        let Some(server) = self.server.clone() else {
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
        self.asked += 1;
        let event_id = format!("{}-{}", self.run_tag, self.asked);
        wrap_params_with(
            params,
            &server,
            &self.adapter,
            &event_id,
            None,
            self.opts.schema_policy,
        )
        .map_err(|violations| {
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
    fn ask(
        &mut self,
        rpc_id: Option<Value>,
        req: RequestEvent,
        url_id: Option<String>,
    ) -> Result<Option<u64>, McpError> {
        self.write_event(&req.event)?;
        let ask = Ask {
            rpc_id,
            req,
            url_id,
        };
        if self.quit {
            self.finish_ask(ask, Ok(Outcome::Answer(Answer::bare(Action::Cancel))))?;
            return Ok(None);
        }
        let cx = Context {
            progress: Progress {
                index: self.asked,
                total: self.asked,
            },
            deadline: self.opts.timeout.map(|t| std::time::Instant::now() + t),
        };
        // Who asked, for the screen: the server as launched, and the call.
        let origin = crate::responder::Origin {
            launched: Some(self.opts.target.launch_label()),
            call: self.opts.call.as_ref().map(|name| {
                let args = Value::Object(self.opts.arguments.clone());
                format!("tools/call {name} {args}")
            }),
        };
        match self.desk.ask_from(ask.req.clone(), cx, origin) {
            Ok(key) => {
                self.asks.insert(key, ask);
                Ok(Some(key))
            }
            Err(AskError::Busy) => {
                let why = format!("{}: refused", AskError::Busy);
                self.reject(ask.rpc_id.as_ref(), INTERNAL_ERROR, why, None)?;
                Ok(None)
            }
            Err(AskError::Gone) => Err(McpError::Responder("the responder stopped".into())),
        }
    }

    /// A reply from the responder thread (keys are handled by `step`).
    pub(super) fn on_reply(&mut self, r: Reply) -> Result<(), McpError> {
        match r {
            Reply::Answered { key, outcome } => {
                let Some(ask) = self.asks.remove(&key) else {
                    return Ok(());
                };
                // Only the -32042 flow (no request id) reads the result back.
                let keep = ask.rpc_id.is_none();
                let result = self.finish_ask(ask, outcome)?;
                if keep {
                    self.finished.insert(key, result);
                }
                if self.quit {
                    return Err(McpError::Quit);
                }
            }
            Reply::Withdrawn { key, reason } => {
                if self.asks.remove(&key).is_some_and(|a| a.rpc_id.is_none()) {
                    self.finished.insert(key, None);
                }
                let said = reason.describe();
                self.notice(&said);
                self.desk.show(Waiting {
                    status: Some(capitalized(&said)),
                    offer_retry: false,
                });
            }
            Reply::Key(_) => {}
        }
        Ok(())
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
                let m = format!("answer refused: request {}: {m}", ask.req.id);
                self.reject(id, INTERNAL_ERROR, m, None)?;
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
                self.quit |= quit;
                let list: Vec<String> = violations.iter().map(|v| v.to_string()).collect();
                let why = format!("the answer did not validate: {}", list.join("; "));
                self.reject(id, INTERNAL_ERROR, why, None)?;
                return Ok(None);
            }
        };
        self.quit |= settled.quit;
        let (answer, ev) = (settled.answer, settled.event);
        let text = ev
            .pointer("/payload/elicitation/result/text")
            .and_then(Value::as_str)
            .unwrap_or("{}");
        // The text was built and re-read by make_result_event: it is JSON.
        let result: Value = serde_json::from_str(text).map_err(McpError::ResultText)?;
        self.write_event(&ev)?;
        self.answered += 1;
        if answer.action == Action::Accept {
            if let Some(u) = &ask.url_id {
                self.consented.insert(u.clone());
            }
        }
        if let Some(id) = id {
            self.reply(jsonrpc::response(id, result.clone()))?;
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
        self.notice(&format!("refused an elicitation: {why}"));
        let msg = id.map(|id| jsonrpc::error_response(id, code, &why, data));
        if code == INVALID_PARAMS {
            self.rejected.push(why);
        } else {
            self.refused.push(why);
        }
        match msg {
            Some(m) => self.reply(m),
            None => Ok(()),
        }
    }

    /// `notifications/cancelled`: the server withdrew one of its requests.
    pub(super) fn on_cancelled(&mut self, p: &Value) {
        let Some(rid) = p.get("requestId") else {
            return;
        };
        let key = self
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
        if !self.consented.contains(&eid) {
            self.notice(&format!(
                "ignored a completion for URL elicitation '{shown}', which was not consented to here"
            ));
        } else if !self.completed.insert(eid) {
            self.notice(&format!(
                "ignored a repeated completion for URL elicitation '{shown}'"
            ));
        } else {
            let said = format!("the server reports URL elicitation '{shown}' complete");
            self.notice(&said);
            self.desk.show(Waiting {
                status: Some(capitalized(&said)),
                offer_retry: false,
            });
        }
    }

    /// `tools/call` (with a `progressToken`). A -32042 error puts its URL
    /// elicitations to the person one by one (once per `elicitationId`),
    /// waits for their completion, then retries the call once.
    pub(super) async fn call_tool(&mut self, name: &str) -> Result<Value, McpError> {
        let mut retried = false;
        loop {
            let token = json!(format!("{}-call-{}", self.run_tag, self.peek_id()));
            self.progress_token = Some(token.clone());
            let params = json!({
                "name": name,
                "arguments": Value::Object(self.opts.arguments.clone()),
                "_meta": { "progressToken": token },
            });
            let err = match self.request("tools/call", Some(params), None).await {
                Err(
                    e @ McpError::Rpc {
                        code: URL_ELICITATION_REQUIRED,
                        ..
                    },
                ) => e,
                other => return other,
            };
            let McpError::Rpc { data, .. } = &err else {
                return Err(err);
            };
            let list = data
                .as_ref()
                .and_then(|d| d.get("elicitations"))
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default();
            if list.is_empty() || retried {
                return Err(err);
            }
            self.notice(&format!(
                "the tool needs {} URL elicitation(s) first (error -32042)",
                list.len()
            ));
            let Some(ids) = self.consent_all(list).await? else {
                return Err(err);
            };
            if !self.await_completion(&ids).await? {
                return Err(err);
            }
            retried = true;
            self.notice(&format!(
                "retrying the tool call '{}'",
                safe_text::display(name)
            ));
        }
    }

    /// Put each URL elicitation to the person (skipping those consented to
    /// before). Returns their `elicitationId`s when all were accepted, None
    /// otherwise.
    async fn consent_all(&mut self, list: Vec<Value>) -> Result<Option<Vec<String>>, McpError> {
        let mut ids = Vec::new();
        for params in list {
            let url_id = str_field(&params, "elicitationId");
            if let Some(u) = &url_id {
                ids.push(u.clone());
                if self.consented.contains(u) {
                    continue;
                }
            }
            let req = match self.prepare(&params) {
                Ok(r) => r,
                Err((code, why, data)) => {
                    self.reject(None, code, why, data)?;
                    return Ok(None);
                }
            };
            let Some(key) = self.ask(None, req, url_id)? else {
                return Ok(None);
            };
            while !self.finished.contains_key(&key) {
                self.step(None).await?;
            }
            let accepted = self
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
    async fn await_completion(&mut self, ids: &[String]) -> Result<bool, McpError> {
        let done = |s: &Session| ids.iter().all(|i| s.completed.contains(i));
        if done(self) {
            return Ok(true);
        }
        self.notice("waiting for the browser flow to complete");
        self.desk.show(Waiting {
            status: Some("Waiting for the browser flow to complete".into()),
            offer_retry: true,
        });
        self.wait_key = None;
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
            match self.wait_key.take() {
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
        self.desk.show(Waiting::default());
        Ok(out)
    }
}

fn capitalized(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_uppercase().collect::<String>() + c.as_str(),
        None => String::new(),
    }
}
