//! One client session on tokio: the request/response loop, the server's
//! requests (`ping`, `elicitation/create`) and notifications answered while
//! a person looks at a screen, timers, signals and shutdown.
//!
//! The session runs as the future of a [`crate::session`] front door: it
//! puts elicitations to the responder through a [`Desk`] and never waits
//! for a person itself, so `ping` is answered and `notifications/cancelled`
//! closes the screen while a form is open. Elicitation handling and the
//! -32042 flow are in [`super::elicit`].

use std::collections::{HashMap, HashSet};
use std::fs::File;
use std::io::{BufWriter, Write};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde_json::{json, Map, Value};
use tokio::signal::unix::{signal, Signal, SignalKind};
use tokio::sync::mpsc;
use tokio::time::Instant;

use super::http::HttpTransport;
use super::jsonrpc::{self, Message, METHOD_NOT_FOUND};
use super::stdio::StdioTransport;
use super::transport::{Incoming, Transport, INCOMING_CAPACITY};
use super::{McpError, McpOptions, SessionReport, Target, OLDER_VERSIONS, PROTOCOL_VERSION};
use crate::binding::{RequestEvent, Server};
use crate::notice::Notices;
use crate::responder::{Responder, WaitKey, Waiting};
use crate::safe_text;
use crate::session::{Desk, Reply};

/// Most pages of `tools/list` followed.
const MAX_TOOL_PAGES: usize = 100;
/// Server-originated notices (log lines, log notifications, progress)
/// shown; later ones are counted and summed up at the end.
const MAX_SERVER_NOTICES: usize = 300;
/// The message of the -32600 error that refuses a request whose id is
/// that of one still open.
pub const DUPLICATE_ID: &str = "a request with this id is still open";
/// After a quit: time for the cancellations to reach the server.
const QUIT_GRACE: Duration = Duration::from_millis(300);

pub(super) fn run(
    opts: &McpOptions,
    responder: &mut dyn Responder,
) -> Result<SessionReport, McpError> {
    let opts = opts.clone();
    crate::session::run(responder, move |desk| start(opts, desk))
        .map_err(|e| McpError::Responder(e.to_string()))?
}

async fn start(opts: McpOptions, desk: Desk) -> Result<SessionReport, McpError> {
    let events = match &opts.events {
        Some(p) => {
            // 0600, never through a symbolic link (the error names the path).
            Some(BufWriter::new(
                crate::files::open_private(p, crate::files::Existing::Truncate)
                    .map_err(McpError::Events)?,
            ))
        }
        None => None,
    };
    let (tx, rx) = mpsc::channel(INCOMING_CAPACITY);
    let transport: Box<dyn Transport> = match &opts.target {
        Target::Stdio { program, args } => Box::new(StdioTransport::spawn(
            program,
            args,
            tx,
            opts.notices.clone(),
        )?),
        Target::Http { url } => Box::new(HttpTransport::new(url, tx)),
    };
    let run_tag = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis())
        .unwrap_or(0);
    let mut s = Session {
        transport,
        rx,
        desk,
        adapter: opts
            .source_adapter
            .clone()
            .unwrap_or_else(|| opts.target.adapter().to_owned()),
        opts,
        sigint: signal(SignalKind::interrupt()).ok(),
        sigterm: signal(SignalKind::terminate()).ok(),
        next_id: 1,
        server: None,
        events,
        run_tag: format!("mcp-{run_tag}-{}", std::process::id()),
        pending: HashMap::new(),
        responses: HashMap::new(),
        asks: HashMap::new(),
        finished: HashMap::new(),
        consented: HashSet::new(),
        completed: HashSet::new(),
        progress_token: None,
        wait_key: None,
        reinitialized: false,
        asked: 0,
        quit: false,
        answered: 0,
        rejected: Vec::new(),
        refused: Vec::new(),
        server_notices: 0,
        shown_refusals: HashSet::new(),
    };
    let out = s.drive().await;
    s.finish(&out).await;
    out
}

/// A client request in flight.
pub(super) struct Pending {
    pub method: String,
}

/// An elicitation put to the responder.
pub(super) struct Ask {
    /// The server's request id; None for one carried by a -32042 error.
    pub rpc_id: Option<Value>,
    pub req: RequestEvent,
    /// URL mode: its `elicitationId`.
    pub url_id: Option<String>,
}

pub(super) struct Session {
    pub transport: Box<dyn Transport>,
    rx: mpsc::Receiver<Incoming>,
    pub desk: Desk,
    pub opts: McpOptions,
    pub adapter: String,
    sigint: Option<Signal>,
    sigterm: Option<Signal>,
    next_id: u64,
    pub server: Option<Server>,
    events: Option<BufWriter<File>>,
    pub run_tag: String,
    pending: HashMap<u64, Pending>,
    responses: HashMap<u64, Result<Value, McpError>>,
    /// Open elicitations by desk key.
    pub asks: HashMap<u64, Ask>,
    /// Finished elicitations by desk key: the `ElicitResult` sent, or None
    /// (refused, withdrawn). Read by the -32042 flow.
    pub finished: HashMap<u64, Option<Value>>,
    /// URL elicitations the person consented to (by `elicitationId`).
    pub consented: HashSet<String>,
    /// ... and those the server reported complete.
    pub completed: HashSet<String>,
    pub progress_token: Option<Value>,
    /// The last "retry now" / "give up" from the waiting screen.
    pub wait_key: Option<WaitKey>,
    reinitialized: bool,
    pub asked: usize,
    /// The person quit: every later elicitation is answered `cancel`.
    pub quit: bool,
    pub answered: usize,
    pub rejected: Vec<String>,
    pub refused: Vec<String>,
    server_notices: usize,
    /// Desk keys of refused forms shown to the person
    /// ([`Session::show_refusal`]): their replies are not answers.
    pub shown_refusals: HashSet<u64>,
}

pub(super) fn str_field(v: &Value, k: &str) -> Option<String> {
    v.get(k).and_then(Value::as_str).map(str::to_owned)
}

async fn next_signal(s: &mut Option<Signal>) {
    match s {
        Some(s) => {
            s.recv().await;
        }
        None => std::future::pending().await,
    }
}

/// What woke the session.
enum Wake {
    Incoming(Option<Incoming>),
    Reply(Option<Reply>),
    Signal(i32),
    Timer,
}

impl Session {
    async fn drive(&mut self) -> Result<SessionReport, McpError> {
        let version = self.initialize().await?;
        let server = self
            .server
            .clone()
            .ok_or_else(|| McpError::Protocol("the initialize result has no serverInfo".into()))?;
        self.transport.start_listening();
        let tools = self.list_tools().await?;
        let call = self.choose_tool(&tools);
        let result = match &call {
            Some(name) => self.call_tool(name).await?,
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

    /// `initialize` (bounded by `--connect-timeout`) and
    /// `notifications/initialized`; returns the protocol version.
    async fn initialize(&mut self) -> Result<String, McpError> {
        let mut elicitation = Map::new();
        for m in &self.opts.modes {
            elicitation.insert(m.as_str().into(), json!({}));
        }
        let params = json!({
            "protocolVersion": PROTOCOL_VERSION,
            "capabilities": { "elicitation": Value::Object(elicitation) },
            "clientInfo": {
                "name": "ahp-elicit",
                "title": "ahp-elicit",
                "version": env!("CARGO_PKG_VERSION")
            }
        });
        let limit = self.opts.connect_timeout;
        let init = self
            .request_once("initialize", Some(params), Some(limit))
            .await?;
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
            self.notice(&format!(
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
        self.notice(&format!(
            "connected to {} {} (MCP {version})",
            safe_text::display(server.title.as_deref().unwrap_or(&server.name)),
            safe_text::display(server.version.as_deref().unwrap_or(""))
        ));
        self.server = Some(server);
        self.transport.set_protocol_version(&version);
        let initialized = jsonrpc::notification("notifications/initialized", None);
        if let Some(delivered) = self.transport.send_ordered(&initialized)? {
            self.await_delivery(delivered, limit).await?;
        }
        Ok(version)
    }

    /// Serve the server until `delivered` fires (at most `limit`).
    async fn await_delivery(
        &mut self,
        mut delivered: super::transport::Delivered,
        limit: Duration,
    ) -> Result<(), McpError> {
        use tokio::sync::oneshot::error::TryRecvError;
        let until = Instant::now() + limit;
        loop {
            match delivered.try_recv() {
                Ok(Ok(())) | Err(TryRecvError::Closed) => return Ok(()),
                Ok(Err(source)) => {
                    return Err(McpError::Delivery {
                        what: "notifications/initialized".into(),
                        source,
                    })
                }
                Err(TryRecvError::Empty) => {}
            }
            if Instant::now() >= until {
                return Err(McpError::NotTaken {
                    secs: limit.as_secs(),
                });
            }
            let tick = (Instant::now() + Duration::from_millis(10)).min(until);
            self.step(Some(tick)).await?;
        }
    }

    fn choose_tool(&self, tools: &[Value]) -> Option<String> {
        let call = match &self.opts.call {
            Some(t) => Some(t.clone()),
            None => {
                show_tools(&self.opts.notices, tools);
                match tools {
                    [only] => {
                        let name = str_field(only, "name");
                        if let Some(n) = &name {
                            self.notice(&format!(
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
        if let Some(name) = &call {
            if !tools
                .iter()
                .any(|t| t.get("name").and_then(Value::as_str) == Some(name))
            {
                self.notice(&format!(
                    "the server did not list a tool '{}'; calling it anyway",
                    safe_text::display(name)
                ));
            }
        }
        call
    }

    async fn list_tools(&mut self) -> Result<Vec<Value>, McpError> {
        let mut tools = Vec::new();
        let mut cursor: Option<String> = None;
        for _ in 0..MAX_TOOL_PAGES {
            let params = cursor.as_ref().map(|c| json!({ "cursor": c }));
            let limit = Some(self.opts.connect_timeout);
            let page = self.request("tools/list", params, limit).await?;
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
        self.notice(&format!("tools/list: stopped after {MAX_TOOL_PAGES} pages"));
        Ok(tools)
    }

    /// Send a request and handle everything that arrives until its answer
    /// (at most `limit`). A 404 for the HTTP session re-initializes once and
    /// sends the request again.
    pub async fn request(
        &mut self,
        method: &str,
        params: Option<Value>,
        limit: Option<Duration>,
    ) -> Result<Value, McpError> {
        match self.request_once(method, params.clone(), limit).await {
            Err(McpError::SessionExpired) if !self.reinitialized => {
                self.reinitialized = true;
                self.notice(
                    "the server ended the session (HTTP 404): initializing a new session once",
                );
                self.transport.reset_session();
                self.initialize().await?;
                self.transport.start_listening();
                self.request_once(method, params, limit).await
            }
            Err(McpError::SessionExpired) => Err(McpError::Transport(
                "the server ended the session again (HTTP 404)".into(),
            )),
            other => other,
        }
    }

    /// The id the next request will get (for a `progressToken`).
    pub fn peek_id(&self) -> u64 {
        self.next_id
    }

    async fn request_once(
        &mut self,
        method: &str,
        params: Option<Value>,
        limit: Option<Duration>,
    ) -> Result<Value, McpError> {
        let id = self.next_id;
        self.next_id += 1;
        self.pending.insert(
            id,
            Pending {
                method: method.to_owned(),
            },
        );
        self.transport
            .send(&jsonrpc::request(id, method, params), Some(id))?;
        let until = limit.map(|l| Instant::now() + l);
        loop {
            if let Some(r) = self.responses.remove(&id) {
                return r;
            }
            let woke = self.step(until).await.map_err(|e| match e {
                e @ (McpError::Transport(_) | McpError::Closed(_)) => McpError::Waiting {
                    method: method.to_owned(),
                    source: Box::new(e),
                },
                e => e,
            })?;
            if !woke {
                self.pending.remove(&id);
                self.cancel_request(id, "timed out");
                return Err(McpError::Timeout {
                    method: method.to_owned(),
                    secs: limit.map_or(0, |l| l.as_secs()),
                });
            }
        }
    }

    /// Tell the server we no longer wait for request `id`.
    pub fn cancel_request(&mut self, id: u64, reason: &str) {
        let msg = jsonrpc::notification(
            "notifications/cancelled",
            Some(json!({ "requestId": id, "reason": reason })),
        );
        let _ = self.transport.send(&msg, None);
    }

    /// Wait for the next thing (a message, a reply from the responder, a
    /// signal) and handle it. Returns false when `until` passed first.
    pub async fn step(&mut self, until: Option<Instant>) -> Result<bool, McpError> {
        let timer = async {
            match until {
                Some(u) => tokio::time::sleep_until(u).await,
                None => std::future::pending().await,
            }
        };
        let wake = tokio::select! {
            i = self.rx.recv() => Wake::Incoming(i),
            r = self.desk.next() => Wake::Reply(r),
            _ = next_signal(&mut self.sigint) => Wake::Signal(libc::SIGINT),
            _ = next_signal(&mut self.sigterm) => Wake::Signal(libc::SIGTERM),
            _ = timer => Wake::Timer,
        };
        match wake {
            Wake::Timer => return Ok(false),
            Wake::Signal(n) => return Err(McpError::Interrupted(n)),
            Wake::Incoming(None) => {
                return Err(McpError::Transport("the connection is closed".into()))
            }
            Wake::Incoming(Some(i)) => self.on_incoming(i)?,
            Wake::Reply(None) => return Err(McpError::Responder("the responder stopped".into())),
            Wake::Reply(Some(Reply::Key(WaitKey::Quit))) => return Err(McpError::Quit),
            Wake::Reply(Some(Reply::Key(k))) => self.wait_key = Some(k),
            Wake::Reply(Some(r)) if self.closes_refusal(&r) => {}
            Wake::Reply(Some(r)) => self.on_reply(r)?,
        }
        Ok(true)
    }

    fn on_incoming(&mut self, item: Incoming) -> Result<(), McpError> {
        match item {
            Incoming::Message(v) => match jsonrpc::classify(v) {
                Ok(Message::Response { id, outcome }) => self.on_response(id, outcome),
                Ok(Message::Request { id, method, params }) => {
                    self.on_request(id, &method, params)?
                }
                Ok(Message::Notification { method, params }) => {
                    self.on_notification(&method, params.as_ref())
                }
                Err(e) => self.notice(&format!("ignored a message: {e}")),
            },
            Incoming::Noise(n) => self.server_notice(&safe_text::display(&n.to_string())),
            Incoming::Log(line) => {
                self.server_notice(&format!("server: {}", safe_text::display(&line)))
            }
            Incoming::StreamEnded { id } => self.fail_pending(id, |m| {
                McpError::Transport(format!(
                    "the server ended the response stream of {m} without answering it"
                ))
            }),
            Incoming::Failed { id, error } => self.fail_pending(id, |m| McpError::Delivery {
                what: m.to_owned(),
                source: error,
            }),
            Incoming::SessionExpired { id } => self.fail_pending(id, |_| McpError::SessionExpired),
            Incoming::Closed(reason) => {
                self.desk
                    .withdraw_all(crate::session::WithdrawReason::ServerExited);
                return Err(McpError::Closed(reason));
            }
        }
        Ok(())
    }

    /// Whether `r` closes a refused form's screen (nothing is sent for it).
    fn closes_refusal(&mut self, r: &Reply) -> bool {
        match r {
            Reply::Answered { key, .. } | Reply::Withdrawn { key, .. } => {
                self.shown_refusals.remove(key)
            }
            Reply::Key(_) => false,
        }
    }

    fn fail_pending(&mut self, id: u64, err: impl FnOnce(&str) -> McpError) {
        if let Some(p) = self.pending.remove(&id) {
            self.responses.insert(id, Err(err(&p.method)));
        }
    }

    fn on_response(&mut self, id: Value, outcome: Result<Value, jsonrpc::RpcError>) {
        let pending = id
            .as_u64()
            .and_then(|n| self.pending.remove(&n).map(|p| (n, p)));
        let Some((n, p)) = pending else {
            self.notice(&format!(
                "ignored a response to an unknown request id {}",
                safe_text::display(&id.to_string())
            ));
            return;
        };
        let r = outcome.map_err(|e| McpError::Rpc {
            method: p.method,
            code: e.code,
            message: safe_text::display(&e.message).into_owned(),
            data: e.data.map(Box::new),
        });
        self.responses.insert(n, r);
    }

    fn on_request(
        &mut self,
        id: Value,
        method: &str,
        params: Option<Value>,
    ) -> Result<(), McpError> {
        match method {
            "ping" => self.reply(jsonrpc::response(&id, json!({}))),
            "elicitation/create" if self.is_open(&id) => self.refuse_duplicate(&id),
            "elicitation/create" => self.elicit_request(id, params.unwrap_or(Value::Null)),
            other => {
                self.notice(&format!(
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

    /// Whether a request of the server with this id is still open (put to
    /// the person, not yet answered).
    fn is_open(&self, id: &Value) -> bool {
        self.asks.values().any(|a| a.rpc_id.as_ref() == Some(id))
    }

    /// A request that reuses the id of one still open breaks JSON-RPC (two
    /// answers could not be told apart): refused at once with -32600; the
    /// open one stays open and is answered as usual.
    fn refuse_duplicate(&mut self, id: &Value) -> Result<(), McpError> {
        let shown: String = id.to_string().chars().take(100).collect();
        let why = format!(
            "{DUPLICATE_ID} (elicitation/create id {})",
            safe_text::display(&shown)
        );
        self.notice(&format!("refused an elicitation: {why}"));
        self.rejected.push(why);
        self.reply(jsonrpc::error_response(
            id,
            jsonrpc::INVALID_REQUEST,
            DUPLICATE_ID,
            None,
        ))
    }

    pub fn reply(&mut self, msg: Value) -> Result<(), McpError> {
        self.transport.send(&msg, None)
    }

    fn on_notification(&mut self, method: &str, params: Option<&Value>) {
        let p = params.cloned().unwrap_or(Value::Null);
        match method {
            "notifications/elicitation/complete" => self.on_complete(&p),
            "notifications/cancelled" => self.on_cancelled(&p),
            "notifications/progress" => self.on_progress(&p),
            "notifications/message" => {
                let level = str_field(&p, "level").unwrap_or_default();
                let data = match p.get("data") {
                    Some(Value::String(s)) => s.clone(),
                    Some(v) => v.to_string(),
                    None => String::new(),
                };
                let data: String = data.chars().take(2_000).collect();
                self.server_notice(&format!(
                    "ahp-elicit: server log [{}]: {}",
                    safe_text::display(&level),
                    safe_text::display(&data)
                ));
            }
            _ => {}
        }
    }

    fn on_progress(&mut self, p: &Value) {
        if self.progress_token.is_none() || p.get("progressToken") != self.progress_token.as_ref() {
            return;
        }
        let num = |k: &str| p.get(k).and_then(Value::as_f64);
        let mut line = match (num("progress"), num("total")) {
            (Some(v), Some(t)) => format!("progress {v}/{t}"),
            (Some(v), None) => format!("progress {v}"),
            _ => "progress".to_owned(),
        };
        if let Some(m) = str_field(p, "message") {
            let m: String = m.chars().take(200).collect();
            line.push_str(&format!(": {}", safe_text::display(&m)));
        }
        self.desk.show(Waiting {
            status: Some(format!("The tool reports {line}")),
            offer_retry: false,
        });
        self.server_notice(&format!("ahp-elicit: the tool reports {line}"));
    }

    /// A notice that came from the server: shown up to
    /// [`MAX_SERVER_NOTICES`], then only counted.
    pub fn server_notice(&mut self, line: &str) {
        self.server_notices += 1;
        if self.server_notices <= MAX_SERVER_NOTICES {
            self.opts.notices.say(line);
        }
    }

    /// A notice for the person; server text goes through the sanitizer
    /// before this is called.
    pub(super) fn notice(&self, msg: &str) {
        self.opts.notices.say(&format!("ahp-elicit: {msg}"));
    }

    pub fn write_event(&mut self, ev: &Value) -> Result<(), McpError> {
        let Some(w) = self.events.as_mut() else {
            return Ok(());
        };
        // Redacted (URLs' userinfo, query, fragment) and escaped (no raw
        // control, C1 or bidi character).
        w.write_all(crate::log::event_line(ev, false).as_bytes())
            .and_then(|()| w.flush())
            .map_err(McpError::Events)
    }

    /// End the session: after a quit or a signal, cancel what is in flight
    /// (our requests: `notifications/cancelled`; the server's open
    /// elicitations: `cancel`); then close the connection and show the
    /// server's last log lines.
    async fn finish(&mut self, out: &Result<SessionReport, McpError>) {
        if let Err(McpError::Quit | McpError::Interrupted(_)) = out {
            let ids: Vec<u64> = self.pending.keys().copied().collect();
            for id in ids {
                self.cancel_request(id, "the person quit");
            }
            let open: Vec<Value> = self
                .asks
                .values()
                .filter_map(|a| a.rpc_id.clone())
                .collect();
            for id in open {
                let _ = self.reply(jsonrpc::response(&id, json!({ "action": "cancel" })));
            }
            tokio::time::sleep(QUIT_GRACE).await;
        }
        // A refused form still on screen stays until the person closes it.
        while out.is_ok() && !self.shown_refusals.is_empty() {
            if self.step(None).await.is_err() {
                break;
            }
        }
        self.desk
            .withdraw_all(crate::session::WithdrawReason::StreamClosed);
        self.transport.close();
        while let Ok(item) = self.rx.try_recv() {
            if let Incoming::Log(line) = item {
                self.server_notice(&format!("server: {}", safe_text::display(&line)));
            }
        }
        if self.server_notices > MAX_SERVER_NOTICES {
            self.notice(&format!(
                "{} more messages from the server were not shown",
                self.server_notices - MAX_SERVER_NOTICES
            ));
        }
    }
}

/// Show the tool list to the person (stderr, sanitized): name and title or
/// the first line of the description.
fn show_tools(notices: &Notices, tools: &[Value]) {
    notices.say(&format!(
        "ahp-elicit: the server offers {} tool(s):",
        tools.len()
    ));
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
        notices.say(&format!(
            "  {}  {}",
            safe_text::display(&name),
            safe_text::display(&about)
        ));
    }
}
