//! The round driver: one client request (`tools/call`, `prompts/get`,
//! `resources/read`) repeated until it completes, whichever revision asks
//! for more first.
//!
//! - MCP 2026-07-28 (Multi Round-Trip Requests): a result with
//!   `resultType: "input_required"` is a round. Each `elicitation/create`
//!   entry of its `inputRequests` is put to the person through the same
//!   desk as a pushed elicitation ("request i of n"), with its key in the
//!   request event's `extensions.mcp.inputKey`; then the request is sent
//!   again under a new id with the same name and arguments, the answers in
//!   `inputResponses` under the keys asked, and `requestState` echoed as
//!   received (left out when none came). A round with only `requestState`
//!   is sent again after a growing pause. At most `--max-rounds` rounds.
//!   A `sampling/createMessage` entry is put to the person the same way
//!   (as a form for the model's reply) and a `roots/list` entry answered
//!   from `--root`, each when the client declared it. An entry the client
//!   did not declare (sampling or roots not offered, a mode not
//!   advertised) or cannot read is the server's error: the call stops and
//!   nothing is answered.
//! - MCP 2025-11-25: a -32042 `URLElicitationRequiredError` puts its URL
//!   elicitations to the person, waits for their completion, and retries
//!   once. An `input_required` result on a 2025-11-25 session is never a
//!   success.
//!
//! A result without `resultType` is complete.

use std::time::Duration;

use serde_json::{json, Map, Value};
use tokio::time::Instant;

use super::elicit::{InputRef, URL_ELICITATION_REQUIRED};
use super::Client;
use crate::binding::Revision;
use crate::mcp::jsonrpc::INVALID_REQUEST;
use crate::mcp::sampling;
use crate::mcp::Incomplete;
use crate::mcp::McpError;
use crate::responder::Progress;
use crate::safe_text;

/// Default of `--max-rounds`.
pub const DEFAULT_MAX_ROUNDS: u32 = 10;
/// The first pause before a round that carried only `requestState` is
/// sent again; each later one doubles, up to [`MAX_STATE_PAUSE`].
pub const FIRST_STATE_PAUSE: Duration = Duration::from_millis(200);
/// The longest pause between two `requestState`-only rounds.
pub const MAX_STATE_PAUSE: Duration = Duration::from_secs(5);

/// The pause before sending again after the `n`-th (1-based) round in a row
/// that carried only `requestState`.
pub fn state_pause(n: u32) -> Duration {
    let factor = 1u32 << n.saturating_sub(1).min(8);
    (FIRST_STATE_PAUSE * factor).min(MAX_STATE_PAUSE)
}

/// What a 2026-07-28 session says when a tool can only ask the 2025-11-25
/// way (push `elicitation/create` mid-call): which revision to ask for, by
/// flag or by environment variable.
pub fn older_way_hint() -> String {
    let (older, modern) = (Revision::V2025_11_25, Revision::V2026_07_28);
    format!(
        "the tool asks in the MCP {older} way (it pushes elicitation/create during the call), which an MCP {modern} session cannot carry: run it with --protocol {older} (or set AHP_ELICIT_PROTOCOL={older})"
    )
}

/// Whether a tool's error text says it could not push a request to the
/// client (the Python SDKs' words on a 2026-07-28 connection: "no
/// back-channel", "server-initiated requests").
fn says_no_push(text: &str) -> bool {
    let t = text.to_ascii_lowercase();
    t.contains("back-channel") || t.contains("server-initiated")
}

/// A call's answer, read once: complete, or a round that asks for more.
#[derive(Debug)]
enum Answer {
    /// The call's result (no `resultType`, or `complete`).
    Complete(Value),
    /// `resultType: "input_required"`: the result object of the round.
    InputRequired(Map<String, Value>),
}

/// Read `result` of `call` by its `resultType`.
///
/// Errors: [`Incomplete::UnknownResultType`] for any other value (cut to
/// 60 characters); an `input_required` answer that is not an object is
/// [`Incomplete::NothingRequired`].
fn read_answer(result: Value, call: &str) -> Result<Answer, Incomplete> {
    match result.get("resultType") {
        None => Ok(Answer::Complete(result)),
        Some(Value::String(t)) if t == "complete" => Ok(Answer::Complete(result)),
        Some(Value::String(t)) if t == "input_required" => match result {
            Value::Object(round) => Ok(Answer::InputRequired(round)),
            _ => Err(Incomplete::NothingRequired {
                call: call.to_owned(),
            }),
        },
        Some(other) => Err(Incomplete::UnknownResultType {
            call: call.to_owned(),
            result_type: other.to_string().chars().take(60).collect(),
        }),
    }
}

/// What an `input_required` round asks.
#[derive(Debug, PartialEq)]
struct Asks<'r> {
    /// Its `inputRequests` (None when absent or empty).
    requests: Option<&'r Map<String, Value>>,
    /// Its `requestState` (a string, to be echoed).
    state: Option<Value>,
}

/// What the `input_required` round `round` of `call` asks.
///
/// Errors: [`Incomplete::BadRequestState`] when `requestState` is not a
/// string; [`Incomplete::NothingRequired`] when `inputRequests` is not an
/// object.
fn read_round<'r>(round: &'r Map<String, Value>, call: &str) -> Result<Asks<'r>, Incomplete> {
    let state = match round.get("requestState") {
        None => None,
        Some(s @ Value::String(_)) => Some(s.clone()),
        Some(_) => {
            return Err(Incomplete::BadRequestState {
                call: call.to_owned(),
            })
        }
    };
    let requests = match round.get("inputRequests") {
        Some(Value::Object(list)) => Some(list).filter(|l| !l.is_empty()),
        None => None,
        Some(_) => {
            return Err(Incomplete::NothingRequired {
                call: call.to_owned(),
            })
        }
    };
    Ok(Asks { requests, state })
}

impl Client {
    /// A complete result as it is; under `--protocol auto` at 2026-07-28,
    /// an `isError` result whose text says the tool could not push its
    /// question is noted ([`older_way_hint`] is said at the end).
    fn said_older_way(&mut self, result: Value) -> Value {
        if self.life.revision != Revision::V2026_07_28
            || self.opts.protocol.is_some()
            || result.get("isError") != Some(&Value::Bool(true))
        {
            return result;
        }
        let texts = result.get("content").and_then(Value::as_array);
        let pushed = texts.into_iter().flatten().any(|c| {
            c.get("text")
                .and_then(Value::as_str)
                .is_some_and(says_no_push)
        });
        self.elic.older_way |= pushed;
        result
    }

    /// `tools/call` of `name` with `--args`.
    pub(super) async fn call_tool(&mut self, name: &str) -> Result<Value, McpError> {
        let params = json!({
            "name": name,
            "arguments": Value::Object(self.opts.arguments.clone()),
        });
        self.call_with_rounds("tools/call", name, params).await
    }

    /// Send `method` with `base` params (each time with a fresh
    /// `progressToken`) until it completes; see the module doc.
    ///
    /// Errors: the request's own errors; [`McpError::Incomplete`] when the
    /// rounds cannot go on (too many, an entry the client cannot answer, an
    /// `input_required` result on a 2025-11-25 session).
    pub(super) async fn call_with_rounds(
        &mut self,
        method: &str,
        name: &str,
        base: Value,
    ) -> Result<Value, McpError> {
        self.elic.call =
            crate::binding::CallMethod::parse(method).map(|method| crate::binding::CallRef {
                method,
                name: name.to_owned(),
            });
        self.elic.call_args = base.get("arguments").cloned();
        let result = self.rounds(method, name, base).await;
        let call = self.elic.call.take();
        self.elic.call_args = None;
        // The server answered the call (a result or its JSON-RPC error):
        // a request still open outlived it. A lost link is no answer: the
        // requests are withdrawn as the server's exit, not as a finished call.
        if matches!(result, Ok(_) | Err(McpError::Rpc { .. })) {
            self.call_finished_under_open_requests(call.as_ref());
        }
        result
    }

    /// The rounds of [`Client::call_with_rounds`]: send, read the answer
    /// ([`read_answer`]), and while it asks for more, answer and send
    /// again.
    async fn rounds(&mut self, method: &str, name: &str, base: Value) -> Result<Value, McpError> {
        let shown = safe_text::display(name).into_owned();
        let call = format!("{method} '{shown}'");
        let mut url_retried = false;
        let mut rounds = 0u32;
        let mut state_only = 0u32;
        let mut answers: Option<Map<String, Value>> = None;
        let mut state: Option<Value> = None;
        loop {
            let params = self.round_params(&base, answers.as_ref(), state.as_ref());
            let Some(result) = self
                .send_round(method, params, (&call, &shown), &mut url_retried)
                .await?
            else {
                continue;
            };
            let round = match read_answer(result, &call)? {
                Answer::Complete(result) => return Ok(self.said_older_way(result)),
                Answer::InputRequired(round) => round,
            };
            if self.life.revision == Revision::V2025_11_25 {
                let version = self.life.version.clone();
                return Err(Incomplete::MixedRevisions { call, version }.into());
            }
            rounds += 1;
            if rounds > self.opts.max_rounds {
                let max = self.opts.max_rounds;
                return Err(Incomplete::TooManyRounds { call, max }.into());
            }
            let asks = read_round(&round, &call)?;
            state = asks.state;
            match asks.requests {
                Some(list) => {
                    state_only = 0;
                    answers = Some(self.input_round(method, name, list).await?);
                    self.notice(&format!(
                        "sending {call} again with {} answer(s) (round {rounds})",
                        list.len()
                    ));
                }
                None if state.is_some() => {
                    state_only += 1;
                    answers = None;
                    let pause = state_pause(state_only);
                    self.notice(&format!(
                        "the server is not done with {call} yet: sending it again in {} ms (round {rounds})",
                        pause.as_millis()
                    ));
                    self.pause(pause).await?;
                }
                None => return Err(Incomplete::NothingRequired { call }.into()),
            }
        }
    }

    /// The params of one round: `base` with a fresh `progressToken` in
    /// `_meta`, and the answers (`inputResponses`) and `requestState` the
    /// last round asks to send back.
    fn round_params(
        &mut self,
        base: &Value,
        answers: Option<&Map<String, Value>>,
        state: Option<&Value>,
    ) -> Value {
        let mut params = base.clone();
        let token = json!(format!("{}-call-{}", self.run_tag, self.peek_id()));
        self.progress_token = Some(token.clone());
        params["_meta"] = json!({ "progressToken": token });
        if let Some(a) = answers {
            params["inputResponses"] = Value::Object(a.clone());
        }
        if let Some(s) = state {
            params["requestState"] = s.clone();
        }
        params
    }

    /// Send one round of `call` (the method and the name as shown, and the
    /// name alone) and take its answer: the result, or None when a
    /// 2025-11-25 -32042 was answered and the call is to be sent once more
    /// (`url_retried` then set).
    ///
    /// Errors: the request's own; a timeout as the call's (`--call-timeout`);
    /// a 2026-07-28 -32600 under `--protocol auto` as
    /// [`Incomplete::OlderWayOnly`] (a dual-era server whose tool can only
    /// push its questions fails this way).
    async fn send_round(
        &mut self,
        method: &str,
        params: Value,
        (call, shown): (&str, &str),
        url_retried: &mut bool,
    ) -> Result<Option<Value>, McpError> {
        let limit = Some(self.opts.call_timeout);
        let answer = self.request(method, Some(params), limit).await;
        match answer.map_err(|e| match e {
            McpError::Timeout { method, limit } => McpError::CallTimeout { method, limit },
            e => e,
        }) {
            Err(
                e @ McpError::Rpc {
                    code: URL_ELICITATION_REQUIRED,
                    ..
                },
            ) if self.life.revision == Revision::V2025_11_25 && !*url_retried => {
                if !self.url_round(&e).await? {
                    return Err(e);
                }
                *url_retried = true;
                self.notice(&format!("retrying the tool call '{shown}'"));
                Ok(None)
            }
            Err(McpError::Rpc {
                code: INVALID_REQUEST,
                message,
                ..
            }) if self.life.revision == Revision::V2026_07_28 && self.opts.protocol.is_none() => {
                self.elic.older_way = true;
                Err(Incomplete::OlderWayOnly {
                    call: call.to_owned(),
                    said: message,
                }
                .into())
            }
            other => other.map(Some),
        }
    }

    /// Serve the server (and the person) for `d`.
    async fn pause(&mut self, d: Duration) -> Result<(), McpError> {
        let until = Instant::now() + d;
        while self.step(Some(until)).await? {}
        Ok(())
    }

    /// The -32042 flow: consent to each URL elicitation of the error, then
    /// wait for their completion. True: retry the call.
    async fn url_round(&mut self, err: &McpError) -> Result<bool, McpError> {
        let McpError::Rpc { data, .. } = err else {
            return Ok(false);
        };
        let list = data
            .as_ref()
            .and_then(|d| d.get("elicitations"))
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        if list.is_empty() {
            return Ok(false);
        }
        self.notice(&format!(
            "the tool needs {} URL elicitation(s) first (error -32042)",
            list.len()
        ));
        let Some(ids) = self.consent_all(list).await? else {
            return Ok(false);
        };
        self.await_completion(&ids).await
    }

    /// One `input_required` round: check every entry first (each must be
    /// an `elicitation/create` in an advertised mode, with params the
    /// binding reads, or a `sampling/createMessage` or `roots/list` the
    /// client declared), then answer the roots at once and put the rest to
    /// the person and wait for every answer. Returns the `inputResponses`,
    /// keyed as asked.
    ///
    /// Errors: an entry the client did not declare or cannot read
    /// ([`Incomplete::Undeclared`], [`Incomplete::Unanswerable`]); a
    /// sampling request the person rejected
    /// ([`Incomplete::SamplingRejected`]: no input response can say so).
    async fn input_round(
        &mut self,
        method: &str,
        name: &str,
        list: &Map<String, Value>,
    ) -> Result<Map<String, Value>, McpError> {
        let offered = self.offered();
        for (key, entry) in list {
            let m = entry.get("method").and_then(Value::as_str).unwrap_or("");
            if m == "ping" || !offered.contains(&m) {
                let what = if m.is_empty() {
                    "a request without a method".to_owned()
                } else {
                    format!("'{}'", safe_text::display(m))
                };
                return Err(Incomplete::Undeclared {
                    key: key.clone(),
                    what,
                }
                .into());
            }
        }
        let is_roots = |e: &Value| e.get("method").and_then(Value::as_str) == Some(sampling::ROOTS);
        // The roots are answered without asking: "request i of n" counts
        // what is put to the person.
        let total = list.values().filter(|e| !is_roots(e)).count();
        self.notice(&format!(
            "the server needs {} answer(s) before {method} '{}' can go on",
            list.len(),
            safe_text::display(name)
        ));
        let mut keys = Vec::with_capacity(total);
        let mut out = Map::new();
        let mut sampled = Vec::new();
        let mut i = 0;
        for (key, entry) in list {
            let params = entry.get("params").cloned().unwrap_or(Value::Null);
            let kind = entry.get("method").and_then(Value::as_str).unwrap_or("");
            if kind == sampling::ROOTS {
                self.notice(&format!(
                    "the server asked for the roots: {} sent with the round's answers",
                    self.opts.roots.len()
                ));
                out.insert(
                    key.clone(),
                    crate::mcp::roots::list_result(&self.opts.roots),
                );
                continue;
            }
            let input = InputRef {
                key: key.clone(),
                method: method.to_owned(),
                name: name.to_owned(),
            };
            let asked = if kind == sampling::SAMPLING {
                sampled.push(key.clone());
                sampling::sampling_params(&params)
            } else {
                params.clone()
            };
            let mut req = self.prepare(&asked, Some(&input)).map_err(|(_, why, _)| {
                McpError::from(Incomplete::Unanswerable {
                    key: key.clone(),
                    why: why.to_string(),
                })
            })?;
            if kind == sampling::SAMPLING {
                sampling::mark(&mut req, &params);
            }
            i += 1;
            let progress = Progress {
                index: i,
                total,
                skipped: 0,
            };
            match self.ask(None, req, None, Some(progress))? {
                Some(k) => keys.push((key.clone(), k)),
                None if self.elic.quit => return Err(McpError::Quit),
                None => return Err(Incomplete::NotAsked { key: key.clone() }.into()),
            }
        }
        while keys
            .iter()
            .any(|(_, k)| !self.elic.finished.contains_key(k))
        {
            self.step(None).await?;
        }
        for (key, k) in keys {
            match self.elic.finished.remove(&k).flatten() {
                Some(result) if sampled.contains(&key) => {
                    match sampling::sampling_answer(&result) {
                        Some(reply) => {
                            out.insert(key, reply);
                        }
                        None if self.elic.quit => return Err(McpError::Quit),
                        None => return Err(Incomplete::SamplingRejected { key }.into()),
                    }
                }
                Some(result) => {
                    out.insert(key, result);
                }
                None => return Err(Incomplete::NoAnswer { key }.into()),
            }
        }
        if self.elic.quit {
            return Err(McpError::Quit);
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each `resultType` is read once into what the driver does next;
    /// what the round asks is read only from an `input_required` answer.
    #[test]
    fn an_answer_is_complete_or_a_round_and_a_round_says_what_it_asks() {
        let call = "tools/call 'book'";
        let done = json!({"content": [], "resultType": "complete"});
        assert!(matches!(read_answer(done.clone(), call), Ok(Answer::Complete(r)) if r == done));
        let bare = json!({"content": []});
        assert!(matches!(read_answer(bare.clone(), call), Ok(Answer::Complete(r)) if r == bare));
        let odd = json!({"resultType": "x".repeat(100)});
        match read_answer(odd, call) {
            Err(Incomplete::UnknownResultType { result_type, .. }) => {
                assert_eq!(result_type.chars().count(), 60)
            }
            other => panic!("{other:?}"),
        }
        let ask = json!({"resultType": "input_required", "requestState": "s1",
            "inputRequests": {"k": {"method": "elicitation/create", "params": {}}}});
        let Ok(Answer::InputRequired(round)) = read_answer(ask, call) else {
            panic!("a round");
        };
        let asks = read_round(&round, call).expect("a round");
        assert_eq!(asks.requests.map(|r| r.len()), Some(1));
        assert_eq!(asks.state, Some(json!("s1")));
        // An empty list is no request; the state alone asks to send again.
        let wait = json!({"inputRequests": {}, "requestState": "s2"});
        let wait = wait.as_object().expect("object");
        assert_eq!(
            read_round(wait, call).expect("a round"),
            Asks {
                requests: None,
                state: Some(json!("s2"))
            }
        );
        let bad_state = json!({"requestState": 7});
        assert!(matches!(
            read_round(bad_state.as_object().expect("object"), call),
            Err(Incomplete::BadRequestState { .. })
        ));
        let bad_list = json!({"inputRequests": [1]});
        assert!(matches!(
            read_round(bad_list.as_object().expect("object"), call),
            Err(Incomplete::NothingRequired { .. })
        ));
    }

    #[test]
    fn the_pause_grows_and_is_capped() {
        assert_eq!(state_pause(1), Duration::from_millis(200));
        assert_eq!(state_pause(2), Duration::from_millis(400));
        assert_eq!(state_pause(3), Duration::from_millis(800));
        assert_eq!(state_pause(7), MAX_STATE_PAUSE);
        assert_eq!(state_pause(1000), MAX_STATE_PAUSE);
    }
}
