//! One client session: the request/response loop, the server's requests
//! (`elicitation/create`, `ping`) and notifications, and `--events`.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde_json::{json, Map, Value};

use super::http::HttpTransport;
use super::jsonrpc::{self, Message, INTERNAL_ERROR, INVALID_PARAMS, METHOD_NOT_FOUND};
use super::stdio::StdioTransport;
use super::transport::{Incoming, Transport};
use super::{McpError, McpOptions, SessionReport, Target, OLDER_VERSIONS, PROTOCOL_VERSION};
use crate::binding::violation::REQUEST_TEXT;
use crate::binding::{
    make_result_event, wrap_params_with, Action, Answer, Mode, ResultMeta, Server,
};
use crate::responder::{Context, Outcome, Progress, RespondError, Responder};
use crate::safe_text;

/// How long the session waits for a message before letting the responder
/// look at the terminal ([`Responder::idle`]).
const TICK: Duration = Duration::from_millis(50);
/// MCP error code of `URLElicitationRequiredError` (2025-11-25).
const URL_ELICITATION_REQUIRED: i64 = -32042;
/// Most retries of a tool call after -32042.
const MAX_URL_RETRIES: usize = 3;
/// Most pages of `tools/list` followed.
const MAX_TOOL_PAGES: usize = 100;

pub(super) fn run(
    opts: &McpOptions,
    responder: &mut dyn Responder,
) -> Result<SessionReport, McpError> {
    let events = match &opts.events {
        Some(p) => {
            // 0600, never through a symbolic link (the error names the path).
            Some(BufWriter::new(
                crate::files::open_private(p, crate::files::Existing::Truncate)
                    .map_err(|e| McpError::Events(e.to_string()))?,
            ))
        }
        None => None,
    };
    let (tx, rx) = channel();
    let transport: Box<dyn Transport> = match &opts.target {
        Target::Stdio { program, args } => Box::new(StdioTransport::spawn(program, args, tx)?),
        Target::Http { url } => Box::new(HttpTransport::new(url, tx)),
    };
    let run_tag = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis())
        .unwrap_or(0);
    let mut s = Session {
        transport,
        rx,
        responder,
        opts,
        adapter: opts
            .source_adapter
            .clone()
            .unwrap_or_else(|| opts.target.adapter().to_owned()),
        next_id: 1,
        server: None,
        events,
        run_tag: format!("mcp-{run_tag}-{}", std::process::id()),
        asked: 0,
        quit: false,
        answered: 0,
        rejected: Vec::new(),
        refused: Vec::new(),
    };
    let out = s.drive();
    s.transport.close();
    // The server's last log lines (stdio stderr) still in the channel.
    for item in s.rx.try_iter() {
        if let Incoming::Log(line) = item {
            show_log(&line);
        }
    }
    out
}

struct Session<'a> {
    transport: Box<dyn Transport>,
    rx: Receiver<Incoming>,
    responder: &'a mut dyn Responder,
    opts: &'a McpOptions,
    adapter: String,
    next_id: u64,
    server: Option<Server>,
    events: Option<BufWriter<File>>,
    run_tag: String,
    asked: usize,
    quit: bool,
    answered: usize,
    rejected: Vec<String>,
    refused: Vec<String>,
}

/// A notice for the person on stderr; server text goes through the
/// sanitizer before this is called.
fn notice(msg: &str) {
    crate::notice::say(format!("ahp-elicit: {msg}"));
}

fn str_field(v: &Value, k: &str) -> Option<String> {
    v.get(k).and_then(Value::as_str).map(str::to_owned)
}

impl Session<'_> {
    fn drive(&mut self) -> Result<SessionReport, McpError> {
        let mut elicitation = Map::new();
        for m in &self.opts.modes {
            elicitation.insert(m.as_str().into(), json!({}));
        }
        let init = self.request(
            "initialize",
            json!({
                "protocolVersion": PROTOCOL_VERSION,
                "capabilities": { "elicitation": Value::Object(elicitation) },
                "clientInfo": {
                    "name": "ahp-elicit",
                    "title": "ahp-elicit",
                    "version": env!("CARGO_PKG_VERSION")
                }
            }),
        )?;
        let version = str_field(&init, "protocolVersion").ok_or_else(|| {
            McpError::Protocol("the initialize result has no protocolVersion".into())
        })?;
        if version != PROTOCOL_VERSION {
            if !OLDER_VERSIONS.contains(&version.as_str()) {
                return Err(McpError::Protocol(format!(
                    "the server chose protocol version '{}', which this client does not speak ({PROTOCOL_VERSION})",
                    safe_text::display(&version)
                )));
            }
            notice(&format!(
                "the server speaks MCP {version}, not {PROTOCOL_VERSION}: URL mode is not available"
            ));
        }
        let info = init.get("serverInfo").cloned().unwrap_or(Value::Null);
        let Some(name) = str_field(&info, "name") else {
            return Err(McpError::Protocol(
                "the initialize result has no serverInfo.name".into(),
            ));
        };
        let server = Server {
            name,
            title: str_field(&info, "title"),
            version: str_field(&info, "version"),
        };
        notice(&format!(
            "connected to {} {} (MCP {version})",
            safe_text::display(server.title.as_deref().unwrap_or(&server.name)),
            safe_text::display(server.version.as_deref().unwrap_or(""))
        ));
        self.server = Some(server.clone());
        self.transport.set_protocol_version(&version);
        self.transport.send(
            &jsonrpc::notification("notifications/initialized", None),
            None,
        )?;
        self.transport.start_listening();

        let tools = self.list_tools()?;
        let call = match &self.opts.call {
            Some(t) => Some(t.clone()),
            None => {
                show_tools(&tools);
                match tools.as_slice() {
                    [only] => {
                        let name = str_field(only, "name");
                        if let Some(n) = &name {
                            notice(&format!(
                                "no --call given and the server offers one tool: calling '{}'",
                                safe_text::display(n)
                            ));
                        }
                        name
                    }
                    _ => None,
                }
            }
        };
        let result = match &call {
            Some(name) => {
                if !tools
                    .iter()
                    .any(|t| t.get("name").and_then(Value::as_str) == Some(name))
                {
                    notice(&format!(
                        "the server did not list a tool '{}'; calling it anyway",
                        safe_text::display(name)
                    ));
                }
                self.call_tool(name)?
            }
            None => json!({ "tools": tools }),
        };
        Ok(SessionReport {
            server,
            protocol_version: version,
            tools,
            called: call,
            result,
            answered: self.answered,
            rejected: std::mem::take(&mut self.rejected),
            refused: std::mem::take(&mut self.refused),
        })
    }

    /// `tools/call`; a -32042 `URLElicitationRequiredError` is answered by
    /// putting each URL elicitation it carries to the person, and the call
    /// is retried when all were accepted (at most [`MAX_URL_RETRIES`] times).
    fn call_tool(&mut self, name: &str) -> Result<Value, McpError> {
        let params =
            json!({ "name": name, "arguments": Value::Object(self.opts.arguments.clone()) });
        let mut retries = 0;
        loop {
            let err = match self.request("tools/call", params.clone()) {
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
            if list.is_empty() || retries == MAX_URL_RETRIES {
                return Err(err);
            }
            notice(&format!(
                "the tool needs {} URL elicitation(s) first (error -32042)",
                list.len()
            ));
            let mut all_accepted = true;
            for params in list {
                let result = self.elicit(None, params)?;
                let accepted = result
                    .as_ref()
                    .and_then(|r| r.get("action"))
                    .and_then(Value::as_str)
                    == Some("accept");
                all_accepted &= accepted;
            }
            if !all_accepted {
                return Err(err);
            }
            retries += 1;
            notice(&format!(
                "retrying the tool call '{}'",
                safe_text::display(name)
            ));
        }
    }

    fn list_tools(&mut self) -> Result<Vec<Value>, McpError> {
        let mut tools = Vec::new();
        let mut cursor: Option<String> = None;
        for _ in 0..MAX_TOOL_PAGES {
            let params = cursor.as_ref().map(|c| json!({ "cursor": c }));
            let page = self.request_opt("tools/list", params)?;
            match page.get("tools") {
                Some(Value::Array(t)) => tools.extend(t.iter().cloned()),
                _ => {
                    return Err(McpError::Protocol(
                        "the tools/list result has no tools array".into(),
                    ))
                }
            }
            cursor = str_field(&page, "nextCursor");
            if cursor.is_none() {
                return Ok(tools);
            }
        }
        notice(&format!("tools/list: stopped after {MAX_TOOL_PAGES} pages"));
        Ok(tools)
    }

    fn request(&mut self, method: &str, params: Value) -> Result<Value, McpError> {
        self.request_opt(method, Some(params))
    }

    /// Send a request and handle everything that arrives until its answer.
    fn request_opt(&mut self, method: &str, params: Option<Value>) -> Result<Value, McpError> {
        let id = self.next_id;
        self.next_id += 1;
        self.transport
            .send(&jsonrpc::request(id, method, params), Some(id))?;
        let want = json!(id);
        loop {
            match self.next_incoming()? {
                Incoming::Message(v) => match jsonrpc::classify(v) {
                    Ok(Message::Response { id: rid, outcome }) if rid == want => {
                        return outcome.map_err(|e| McpError::Rpc {
                            method: method.to_owned(),
                            code: e.code,
                            message: safe_text::display(&e.message).into_owned(),
                            data: e.data.map(Box::new),
                        });
                    }
                    Ok(Message::Response { id: rid, .. }) => notice(&format!(
                        "ignored a response to an unknown request id {}",
                        safe_text::display(&rid.to_string())
                    )),
                    Ok(Message::Request { id, method, params }) => {
                        self.handle_request(id, &method, params)?
                    }
                    Ok(Message::Notification { method, params }) => {
                        self.handle_notification(&method, params.as_ref())
                    }
                    Err(e) => notice(&format!("ignored a message: {e}")),
                },
                Incoming::Noise(m) => notice(&safe_text::display(&m)),
                Incoming::Log(line) => show_log(&line),
                Incoming::StreamEnded { id: sid } if sid == id => {
                    return Err(McpError::Transport(format!(
                        "the server ended the response stream of {method} without answering it"
                    )))
                }
                Incoming::StreamEnded { .. } => {}
                Incoming::Failed { id: fid, error } if fid == id => {
                    return Err(McpError::Transport(format!(
                        "{method}: {}",
                        safe_text::display(&error)
                    )))
                }
                Incoming::Failed { error, .. } => notice(&safe_text::display(&error)),
                Incoming::Closed(reason) => {
                    return Err(McpError::Transport(format!(
                        "{reason} while waiting for the answer to {method}"
                    )))
                }
            }
        }
    }

    /// The next incoming item. After each [`TICK`] without one the
    /// responder gets `idle(Duration::ZERO)`: a look at the terminal that
    /// must not block (the session itself does the waiting); true (the
    /// person asked to quit) ends the session with [`McpError::Quit`].
    fn next_incoming(&mut self) -> Result<Incoming, McpError> {
        loop {
            match self.rx.recv_timeout(TICK) {
                Ok(i) => return Ok(i),
                Err(RecvTimeoutError::Timeout) => {
                    if self.responder.idle(Duration::ZERO) {
                        return Err(McpError::Quit);
                    }
                }
                Err(RecvTimeoutError::Disconnected) => {
                    return Err(McpError::Transport("the connection is closed".into()))
                }
            }
        }
    }

    fn reply(&mut self, msg: Value) -> Result<(), McpError> {
        self.transport.send(&msg, None)
    }

    fn handle_request(
        &mut self,
        id: Value,
        method: &str,
        params: Option<Value>,
    ) -> Result<(), McpError> {
        match method {
            "ping" => self.reply(jsonrpc::response(&id, json!({}))),
            "elicitation/create" => self
                .elicit(Some(&id), params.unwrap_or(Value::Null))
                .map(|_| ()),
            other => {
                notice(&format!(
                    "the server asked for '{}', which this client does not offer",
                    safe_text::display(other)
                ));
                self.reply(jsonrpc::error_response(
                    &id,
                    METHOD_NOT_FOUND,
                    &format!("method not found: {other} (ahp-elicit answers elicitation/create and ping)"),
                    None,
                ))
            }
        }
    }

    fn handle_notification(&mut self, method: &str, params: Option<&Value>) {
        let p = params.cloned().unwrap_or(Value::Null);
        match method {
            "notifications/elicitation/complete" => {
                let eid = str_field(&p, "elicitationId").unwrap_or_else(|| "(no id)".into());
                notice(&format!(
                    "the server reports URL elicitation '{}' complete",
                    safe_text::display(&eid)
                ));
            }
            "notifications/message" => {
                let level = str_field(&p, "level").unwrap_or_default();
                let data = match p.get("data") {
                    Some(Value::String(s)) => s.clone(),
                    Some(v) => v.to_string(),
                    None => String::new(),
                };
                let data: String = data.chars().take(2_000).collect();
                notice(&format!(
                    "server log [{}]: {}",
                    safe_text::display(&level),
                    safe_text::display(&data)
                ));
            }
            _ => {}
        }
    }

    /// Reject an elicitation: a JSON-RPC error answers request `id` (none
    /// for an elicitation carried by a -32042 error); no result event.
    fn reject(
        &mut self,
        id: Option<&Value>,
        code: i64,
        why: String,
        data: Option<Value>,
    ) -> Result<Option<Value>, McpError> {
        notice(&format!("refused an elicitation: {why}"));
        let msg = id.map(|id| jsonrpc::error_response(id, code, &why, data));
        if code == INVALID_PARAMS {
            self.rejected.push(why);
        } else {
            self.refused.push(why);
        }
        if let Some(m) = msg {
            self.reply(m)?;
        }
        Ok(None)
    }

    /// Answer one elicitation (`elicitation/create` params). With `id`, the
    /// answer is also sent as the JSON-RPC response. Returns the
    /// `ElicitResult` sent, or None when the elicitation was rejected.
    fn elicit(&mut self, id: Option<&Value>, params: Value) -> Result<Option<Value>, McpError> {
        let Some(server) = self.server.clone() else {
            return self.reject(
                id,
                jsonrpc::INVALID_REQUEST,
                "elicitation/create before initialization finished".into(),
                None,
            );
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
            return self.reject(
                id,
                INVALID_PARAMS,
                format!(
                    "unknown elicitation mode {}",
                    safe_text::display(&shown.chars().take(100).collect::<String>())
                ),
                None,
            );
        };
        if !self.opts.modes.contains(&mode) {
            let advertised: Vec<&str> = self.opts.modes.iter().map(|m| m.as_str()).collect();
            return self.reject(
                id,
                INVALID_PARAMS,
                format!(
                    "elicitation mode '{}' was not advertised (this client advertised: {})",
                    mode.as_str(),
                    advertised.join(", ")
                ),
                None,
            );
        }
        self.asked += 1;
        let event_id = format!("{}-{}", self.run_tag, self.asked);
        let req = match wrap_params_with(
            &params,
            &server,
            &self.adapter,
            &event_id,
            None,
            self.opts.schema_policy,
        ) {
            Ok(r) => r,
            Err(violations) => {
                let listed: Vec<Value> = violations
                    .iter()
                    .map(|v| {
                        json!({
                            "pointer": v.pointer.strip_prefix(REQUEST_TEXT).unwrap_or(&v.pointer),
                            "rule": v.rule,
                            "message": v.message,
                        })
                    })
                    .collect();
                let first = violations
                    .first()
                    .map(|v| {
                        let p = v.pointer.strip_prefix(REQUEST_TEXT).unwrap_or(&v.pointer);
                        format!(
                            "{}: [{}] {}",
                            if p.is_empty() { "(root)" } else { p },
                            v.rule,
                            v.message
                        )
                    })
                    .unwrap_or_default();
                return self.reject(
                    id,
                    INVALID_PARAMS,
                    format!(
                        "invalid elicitation/create params ({} violation(s)); first: {}",
                        violations.len(),
                        safe_text::display(&first)
                    ),
                    Some(json!({ "violations": listed })),
                );
            }
        };
        self.write_event(&req.event)?;
        let outcome = if self.quit {
            Ok(Outcome::Answer(Answer::bare(Action::Cancel)))
        } else {
            let cx = Context {
                progress: Progress {
                    index: self.asked,
                    total: self.asked,
                },
                deadline: None,
                modes: self.opts.modes.clone(),
            };
            self.responder.respond(&req, &cx)
        };
        let answer = match outcome {
            Ok(Outcome::Answer(a)) => a,
            Ok(Outcome::Quit) => {
                self.quit = true;
                Answer::bare(Action::Cancel)
            }
            Err(RespondError::Refused(m)) => {
                return self.reject(id, INTERNAL_ERROR, format!("answer refused: {m}"), None)
            }
            Err(RespondError::Io(m)) => {
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
        };
        let meta = ResultMeta::default();
        match make_result_event(&req, &answer, &meta) {
            Ok(ev) => {
                let text = ev
                    .pointer("/payload/elicitation/result/text")
                    .and_then(Value::as_str)
                    .unwrap_or("{}");
                // The text was built and re-read by make_result_event: it is JSON.
                let result: Value = serde_json::from_str(text)
                    .map_err(|e| McpError::Protocol(format!("result text: {e}")))?;
                self.write_event(&ev)?;
                self.answered += 1;
                if let Some(id) = id {
                    self.reply(jsonrpc::response(id, result.clone()))?;
                }
                Ok(Some(result))
            }
            Err(violations) => {
                let list: Vec<String> = violations.iter().map(|v| v.to_string()).collect();
                self.reject(
                    id,
                    INTERNAL_ERROR,
                    format!("the answer did not validate: {}", list.join("; ")),
                    None,
                )
            }
        }
    }

    fn write_event(&mut self, ev: &Value) -> Result<(), McpError> {
        let Some(w) = self.events.as_mut() else {
            return Ok(());
        };
        // Redacted (URLs' userinfo, query, fragment) and escaped (no raw
        // control, C1 or bidi character).
        w.write_all(crate::log::event_line(ev, false).as_bytes())
            .and_then(|()| w.flush())
            .map_err(|e| McpError::Events(e.to_string()))
    }
}

/// One line of the server's own log, sanitized.
fn show_log(line: &str) {
    crate::notice::say(format!("server: {}", safe_text::display(line)));
}

/// Show the tool list to the person (stderr, sanitized): name and title or
/// the first line of the description.
fn show_tools(tools: &[Value]) {
    notice(&format!("the server offers {} tool(s):", tools.len()));
    for t in tools {
        let name = str_field(t, "name").unwrap_or_default();
        let about = str_field(t, "title")
            .or_else(|| str_field(t, "description"))
            .unwrap_or_default();
        let about: String = about
            .lines()
            .next()
            .unwrap_or("")
            .chars()
            .take(100)
            .collect();
        crate::notice::say(format!(
            "  {}  {}",
            safe_text::display(&name),
            safe_text::display(&about)
        ));
    }
}
