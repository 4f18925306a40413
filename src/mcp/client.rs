//! The MCP client ([`Client`]) on tokio: the request/response loop, the server's
//! requests (`ping`, `elicitation/create`) and notifications answered while
//! a person looks at a screen, timers, signals and shutdown.
//!
//! The client runs as the future of a [`crate::session`] front door: it
//! puts elicitations to the responder through a [`Desk`] and never waits
//! for a person itself, so `ping` is answered and `notifications/cancelled`
//! closes the screen while a form is open.
//!
//! `Client` is one type whose methods are spread by concern over this
//! module's children, so a call can be followed from here: [`lifecycle`]
//! (connecting per revision, the fallback, reconnecting), [`rounds`] (a
//! call repeated until it completes: -32042 and `input_required`),
//! [`elicit`] (one elicitation into events and an answer, consent,
//! completion), [`refusal`] (a request the client cannot answer, said to
//! the person) and [`browse`] (trying the server by hand). This file holds
//! the type and its parts ([`Link`], [`Lifecycle`], [`Elicitations`]), the
//! request/response loop and what the server sends unasked.

use std::collections::{HashMap, HashSet};
use std::fs::File;
use std::io::{BufWriter, Write};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde_json::{json, Map, Value};
use tokio::sync::mpsc;
use tokio::time::Instant;

use super::http::HttpTransport;
use super::jsonrpc::{self, Message};
use super::request_meta;
use super::stdio::StdioTransport;
use super::transport::{Incoming, Transport, INCOMING_CAPACITY};
use super::{Incomplete, LinkDown, ProtocolBreak};
use super::{McpError, McpOptions, Operation, SessionReport, Target};
use crate::binding::{RequestEvent, Revision, Server};
use crate::notice::Notices;
use crate::responder::{CallInProgress, Responder, WaitKey, Waiting};
use crate::safe_text;
use crate::session::{Desk, Reply};

mod browse;
pub(super) mod elicit;
mod lifecycle;
mod refusal;
pub(super) mod rounds;
mod sampling;
mod traced;

/// How a browsing session ended (`Client::browse`, in [`browse`]).
pub(super) enum Browsed {
    /// The responder cannot show the list (no terminal, a script, plain
    /// lines): the caller lists the tools as before.
    Unavailable,
    /// The person left the list (exit 0).
    Left,
}

/// Most items of a list (`tools/list`, `prompts/list`, `resources/list`)
/// kept, over all its pages.
pub const MAX_LISTED: usize = 10_000;
/// Most bytes of a list's items (as JSON, and 64 for each page) read, over
/// all its pages: a server cannot grow the client's memory by paging.
pub const MAX_LISTED_BYTES: usize = 32 << 20;

/// How much of a list was read ([`MAX_LISTED`], [`MAX_LISTED_BYTES`]),
/// and the cursors followed (a cursor given twice ends the list: a server
/// whose cursor never advances would otherwise be asked up to the bound).
#[derive(Default)]
pub(super) struct ListBound {
    items: usize,
    bytes: usize,
    pages: usize,
    cursors: std::collections::HashSet<String>,
}

/// Counts the bytes written to it.
struct Counter(usize);

impl Write for Counter {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        self.0 += b.len();
        Ok(b.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl ListBound {
    /// A page came, with `cursor` for the next one: false when that
    /// cursor was given before (the list ends here, [`Self::loop_notice`]).
    pub(super) fn page(&mut self, cursor: Option<&str>) -> bool {
        self.pages += 1;
        self.bytes += 64 + cursor.map_or(0, str::len);
        cursor.is_none_or(|c| self.cursors.insert(c.to_owned()))
    }

    /// What is said when a cursor came back: the list ends at the page
    /// that repeated it, with `kept` items.
    pub(super) fn loop_notice(&self, method: &str, key: &str, kept: usize) -> String {
        format!(
            "{method}: page {} gave the cursor of an earlier page again: the list stops there, with {kept} {key}",
            self.pages
        )
    }

    /// Count `item`; false when it is over the bound (not kept).
    fn take(&mut self, item: &Value) -> bool {
        let mut c = Counter(0);
        let _ = serde_json::to_writer(&mut c, item);
        if self.items >= MAX_LISTED || self.bytes + c.0 > MAX_LISTED_BYTES {
            return false;
        }
        self.items += 1;
        self.bytes += c.0;
        true
    }

    /// Whether another page may be read.
    fn more(&self) -> bool {
        self.items < MAX_LISTED && self.bytes < MAX_LISTED_BYTES
    }

    /// What is said when the list is cut.
    fn cut_notice(&self, method: &str, key: &str) -> String {
        format!(
            "{method}: stopped after {} {key} ({} bytes): the list is cut at {MAX_LISTED} {key} or {MAX_LISTED_BYTES} bytes",
            self.items, self.bytes
        )
    }
}
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
    // Until the server answered the handshake, the screen says it is
    // connecting (no request can come yet).
    let connecting = crate::responder::Waiting {
        status: Some(format!(
            "Launched as: {}",
            safe_text::display(&opts.target.launch_label())
        )),
        offer_retry: false,
        connecting: true,
        call: None,
        stderr: None,
    };
    let between = if opts.waiting_screen {
        crate::session::Between::Screen
    } else {
        crate::session::Between::Sleep
    };
    crate::session::run_showing(responder, between, connecting, move |desk| {
        start(opts, desk)
    })
    .map_err(McpError::Run)?
}

async fn start(mut opts: McpOptions, mut desk: Desk) -> Result<SessionReport, McpError> {
    desk.set_time_limit(opts.timeout);
    // The sign-in reaches the person through this session's desk, and its
    // state is this session's.
    if let Some(a) = opts.auth.as_mut() {
        a.sign_ins = std::sync::Arc::clone(desk.sign_ins());
        a.desk = Some(desk.sign_in_desk());
    }
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
    // A stdio server's stderr on the screens, from its first line.
    let stderr = (opts.stderr_on_screen && !matches!(opts.target, Target::Http { .. }))
        .then(crate::responder::ServerStderr::default);
    if let Some(ring) = &stderr {
        desk.show_stderr(ring.clone());
    }
    let (transport, rx) = connect(&opts, desk.trace())?;
    let run_tag = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis())
        .unwrap_or(0);
    let mut s = Client {
        link: Link {
            transport,
            rx,
            next_id: 1,
            pending: HashMap::new(),
            responses: HashMap::new(),
            dropped: HashSet::new(),
        },
        life: Lifecycle {
            revision: Revision::V2025_11_25,
            version: String::new(),
            server: None,
            reinitialized: false,
            tools: Vec::new(),
            left_out: Vec::new(),
            handshake_until: None,
            last_stderr: None,
            lists_changed: false,
        },
        elic: Elicitations::default(),
        desk,
        adapter: opts
            .source_adapter
            .clone()
            .unwrap_or_else(|| opts.target.adapter().to_owned()),
        opts,
        signals: crate::signals::subscribe(),
        _hold: crate::signals::hold(),
        events,
        run_tag: format!("mcp-{run_tag}-{}", std::process::id()),
        progress_token: None,
        server_notices: 0,
        watch: None,
        calls: 0,
        stderr,
    };
    let mut out = s.drive().await;
    s.finish(&out).await;
    // Requests answered or refused after the report was made (they stayed
    // open after the call) count too.
    if let Ok(report) = &mut out {
        report.answered = s.elic.answered;
        report.refused.extend(std::mem::take(&mut s.elic.refused));
        report.rejected.extend(std::mem::take(&mut s.elic.rejected));
    }
    out
}

/// Connect to the server of `opts`: start the stdio server, or make the
/// HTTP transport (nothing is sent yet). Returns the transport, which
/// records what it sends in `trace` ([`traced::Traced`]), and the channel
/// its readers deliver on.
///
/// Errors: [`McpError::Spawn`].
pub(super) fn connect(
    opts: &McpOptions,
    trace: &std::sync::Arc<crate::responder::trace::Trace>,
) -> Result<(Box<dyn Transport>, mpsc::Receiver<Incoming>), McpError> {
    let (tx, rx) = mpsc::channel(INCOMING_CAPACITY);
    let transport: Box<dyn Transport> = match &opts.target {
        Target::Stdio { program, args } => Box::new(StdioTransport::spawn(
            program,
            args,
            tx,
            opts.notices.clone(),
        )?),
        Target::Http { url } => Box::new(HttpTransport::with_auth(
            url,
            tx,
            opts.headers.clone(),
            opts.auth
                .clone()
                .map(|a| std::sync::Arc::new(super::auth::Authorizer::new(url, a))),
        )),
    };
    let traced = traced::Traced::new(transport, std::sync::Arc::clone(trace));
    Ok((Box::new(traced), rx))
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

/// The connection and the correlation of our requests with their answers.
pub(super) struct Link {
    /// Sends and closes (see [`Transport`]).
    pub transport: Box<dyn Transport>,
    /// What the transport's readers deliver.
    pub rx: mpsc::Receiver<Incoming>,
    /// The id of our next request.
    pub next_id: u64,
    /// Our requests waiting for an answer, by id.
    pub pending: HashMap<u64, Pending>,
    /// Answers not yet taken by their waiter, by id.
    pub responses: HashMap<u64, Result<Value, McpError>>,
    /// Our requests the person cancelled: an answer that still comes for
    /// one is dropped without a word (each id once).
    pub dropped: HashSet<u64>,
}

/// A call the person started from the list, while it runs: what its
/// waiting screen shows ([`Waiting::call`]).
pub(super) struct Watch {
    /// What is being done, e.g. "Calling the tool 'NAME'…" (safe text).
    pub status: String,
    /// The call's number and what the server reported so far.
    pub call: CallInProgress,
}

/// What the connection established in its revision
/// ([`lifecycle`]).
pub(super) struct Lifecycle {
    /// The revision in use (set once connected): 2025-11-25 (a handshake,
    /// a session, elicitations pushed as server requests) or 2026-07-28 (no
    /// handshake; every request says its version and capabilities;
    /// elicitations come back inside `input_required` results).
    pub revision: Revision,
    /// The protocol version on the wire: the revision's, or an older one
    /// the server agreed at `initialize`
    /// ([`Revision::OLDER_WIRE_VERSIONS`], spoken under 2025-11-25).
    pub version: String,
    /// The server as it named itself.
    pub server: Option<Server>,
    /// HTTP 2025-11-25: the session was initialized again after a 404.
    pub reinitialized: bool,
    /// The tools as listed (for their `x-mcp-header` annotations).
    pub tools: Vec<Value>,
    /// Tools left out of the list (broken `x-mcp-header` annotations).
    pub left_out: Vec<String>,
    /// `--protocol auto`: when the whole handshake (`server/discover` and
    /// the fallback) must be done (one `--connect-timeout`), and the time
    /// spent signing in then
    /// ([`crate::responder::sign_in::SignIns::time_signing_in`]):
    /// the time sign-ins take since moves it on.
    pub handshake_until: Option<(Instant, Duration)>,
    /// The last line of a stdio server's stderr, as written.
    pub last_stderr: Option<String>,
    /// The server said its tools, prompts or resources changed
    /// (`notifications/*/list_changed`) since they were last listed.
    pub lists_changed: bool,
}

/// URL elicitations whose number is kept for a later repeat; past this,
/// a repeat counts as a new request.
pub(super) const MAX_URL_PLACES: usize = 1024;

/// The elicitations of the session: open, finished, consented, counted.
#[derive(Default)]
pub(super) struct Elicitations {
    /// Open elicitations by desk key.
    pub asks: HashMap<u64, Ask>,
    /// Finished elicitations by desk key: the `ElicitResult` sent, or None
    /// (refused, withdrawn). Read by the round driver.
    pub finished: HashMap<u64, Option<Value>>,
    /// URL elicitations the person consented to (by `elicitationId`).
    pub consented: HashSet<String>,
    /// ... and those the server reported complete.
    pub completed: HashSet<String>,
    /// The last "retry now" / "give up" from the waiting screen.
    pub wait_key: Option<WaitKey>,
    /// Elicitations numbered so far (each request event's id has its
    /// number).
    pub asked: usize,
    /// Of those, requests refused before they were put to the person
    /// (their params break the binding's rules): not counted in "request i
    /// of n", which the person reads as the requests shown.
    pub not_asked: usize,
    /// Of those, URL elicitations asked again under an `elicitationId`
    /// asked before (a call retried after -32042 asks for the same one):
    /// not new requests, so not counted in "request i of n".
    pub repeats: usize,
    /// The number each URL elicitation was shown under, by `elicitationId`
    /// (at most [`MAX_URL_PLACES`]).
    pub url_places: HashMap<String, usize>,
    /// The person quit: every later elicitation is answered `cancel`.
    pub quit: bool,
    /// Requests of the server answered `cancel` by the quit (the one quit
    /// on, those queued or arriving after it), for the closing notice.
    pub cancelled_on_quit: usize,
    pub answered: usize,
    pub rejected: super::Tally,
    pub refused: super::Tally,
    /// Refusals said so far (rejected and refused, over the whole run):
    /// the first [`Tally::KEPT`](super::Tally::KEPT) one line each.
    pub refusals_said: usize,
    /// Desk keys of refused forms shown to the person
    /// ([`Client::show_refusal`]): their replies are not answers.
    pub shown_refusals: HashSet<u64>,
    /// The client request in progress (method and tool or prompt name or
    /// resource URI), recorded as `extensions.mcp.call` of every request
    /// event made while it runs, in both eras.
    pub call: Option<crate::binding::CallRef>,
    /// The arguments of the call in progress, as sent (shown with it on
    /// the screen: "Asked during: tools/call NAME {…}").
    pub call_args: Option<Value>,
    /// The call failed because the tool asks the 2025-11-25 way (see
    /// [`super::older_way_hint`]).
    pub older_way: bool,
}

impl Elicitations {
    /// The requests counted so far: those asked, less URL elicitations
    /// asked again ([`Elicitations::repeats`]).
    pub fn counted(&self) -> usize {
        self.asked - self.repeats - self.not_asked
    }
}

/// The MCP client of one run: the connection ([`Link`]), what its era
/// established ([`Lifecycle`]), the elicitations ([`Elicitations`]), and
/// what the front door owns (the desk, the options, the events file,
/// signals, notices).
pub(super) struct Client {
    pub link: Link,
    pub life: Lifecycle,
    pub elic: Elicitations,
    pub desk: Desk,
    pub opts: McpOptions,
    pub adapter: String,
    /// Every signal ([`crate::signals`]): an ending one ends the session
    /// with [`McpError::Interrupted`].
    signals: tokio::sync::broadcast::Receiver<crate::signals::Event>,
    /// The session ends the process itself on a signal, after stopping the
    /// server it started.
    _hold: crate::signals::Hold,
    events: Option<BufWriter<File>>,
    pub run_tag: String,
    pub progress_token: Option<Value>,
    server_notices: usize,
    /// The call the person started from the list, while it runs (None
    /// otherwise): Esc cancels it, and the server's progress and log lines
    /// go to its waiting screen instead of stderr.
    pub watch: Option<Watch>,
    /// Calls watched so far (the number of the next is one more).
    pub calls: u64,
    /// A stdio server's stderr kept for the screens
    /// ([`McpOptions::stderr_on_screen`]); None: said on our stderr.
    stderr: Option<crate::responder::ServerStderr>,
}

pub(super) fn str_field(v: &Value, k: &str) -> Option<String> {
    v.get(k).and_then(Value::as_str).map(str::to_owned)
}

/// The next signal that ends the run (SIGINT, SIGTERM, SIGHUP, SIGQUIT),
/// including one received before the session listened.
async fn next_ending(events: &mut tokio::sync::broadcast::Receiver<crate::signals::Event>) -> i32 {
    use tokio::sync::broadcast::error::RecvError;
    loop {
        if let Some(n) = crate::signals::received() {
            return n;
        }
        match events.recv().await {
            Ok(crate::signals::Event::End(n)) => return n,
            Ok(_) | Err(RecvError::Lagged(_)) => {}
            Err(RecvError::Closed) => std::future::pending::<()>().await,
        }
    }
}

/// What an ending signal `n` ends: the session's sign-in waiting for the
/// browser when there is one (or was, and the signal ended it), else the
/// session.
fn signal_ends(n: i32, sign_ins: &crate::responder::sign_in::SignIns) -> McpError {
    match sign_ins.ended_by_signal(n) {
        Some(url) => McpError::SignIn(crate::mcp::auth::AuthError::Cancelled { mcp_url: url }),
        None => McpError::Interrupted(n),
    }
}

/// What woke the session.
enum Wake {
    Incoming(Option<Incoming>),
    Reply(Option<Reply>),
    Signal(i32),
    Timer,
}

impl Client {
    async fn drive(&mut self) -> Result<SessionReport, McpError> {
        self.connect_revision().await?;
        self.desk.show(crate::responder::Waiting::default());
        let server = self
            .life
            .server
            .clone()
            .ok_or(McpError::Protocol(ProtocolBreak::Unnamed))?;
        let (tools, called, result) = match self.opts.operation.clone() {
            Operation::Prompt(name) => {
                let _ = self.list("prompts/list", "prompts").await;
                // A prompt's arguments are strings.
                let strings =
                    json!({ "type": "object", "additionalProperties": { "type": "string" } });
                self.opts.arguments = self.typed_arguments(Some(&strings))?;
                let params = json!({
                    "name": name,
                    "arguments": Value::Object(self.opts.arguments.clone()),
                });
                let r = self.call_with_rounds("prompts/get", &name, params).await?;
                (Vec::new(), Some(name), r)
            }
            Operation::Read(uri) => {
                let _ = self.list("resources/list", "resources").await;
                let params = json!({ "uri": uri });
                let r = self
                    .call_with_rounds("resources/read", &uri, params)
                    .await?;
                (Vec::new(), Some(uri), r)
            }
            Operation::Tool(_) | Operation::List => {
                self.list_tools().await?;
                // At a terminal without --call the person picks and calls
                // tools until they leave ([`browse`]); a person is
                // there, so the list is copied for the screen.
                if self.opts.operation == Operation::List {
                    let tools = self.life.tools.clone();
                    if matches!(self.browse(&tools).await?, Browsed::Left) {
                        self.life.tools = Vec::new();
                        return Ok(self.report(server, tools, None, Value::Null, true));
                    }
                }
                let call = self.choose_tool(&self.life.tools);
                if let Some(name) = call.as_ref().filter(|n| self.life.left_out.contains(n)) {
                    return Err(Incomplete::BadHeaders(name.clone()).into());
                }
                match &call {
                    Some(name) => {
                        let schema = self
                            .life
                            .tools
                            .iter()
                            .find(|t| t.get("name").and_then(Value::as_str) == Some(name))
                            .and_then(|t| t.get("inputSchema"))
                            .cloned();
                        self.opts.arguments = self.typed_arguments(schema.as_ref())?;
                        let r = self.call_tool(name).await?;
                        (std::mem::take(&mut self.life.tools), call, r)
                    }
                    // The list is moved into the result, not copied.
                    None => {
                        let tools = Value::Array(std::mem::take(&mut self.life.tools));
                        (Vec::new(), call, json!({ "tools": tools }))
                    }
                }
            }
        };
        Ok(self.report(server, tools, called, result, false))
    }

    /// The session's report (the elicitations' counts taken).
    fn report(
        &mut self,
        server: Server,
        tools: Vec<Value>,
        called: Option<String>,
        result: Value,
        browsed: bool,
    ) -> SessionReport {
        SessionReport {
            server,
            protocol_version: self.life.version.clone(),
            tools,
            called,
            result,
            answered: self.elic.answered,
            rejected: std::mem::take(&mut self.elic.rejected),
            refused: std::mem::take(&mut self.elic.refused),
            older_way: self.elic.older_way,
            browsed,
        }
    }

    /// `--args` with the `--arg` values read by `schema` (the tool's
    /// `inputSchema`; None when the server did not list the tool) put
    /// over it.
    ///
    /// Errors: [`McpError::Arguments`]: a value does not fit.
    fn typed_arguments(&self, schema: Option<&Value>) -> Result<Map<String, Value>, McpError> {
        use crate::binding::tool_args;
        if self.opts.arg_values.is_empty() {
            return Ok(self.opts.arguments.clone());
        }
        let typed = tool_args::typed(schema, &self.opts.arg_values).map_err(McpError::Arguments)?;
        Ok(tool_args::merge(self.opts.arguments.clone(), typed))
    }

    /// The tool to call: the one `--call` named, never one the person did
    /// not name (without `--call` the tools are only listed and shown).
    fn choose_tool(&self, tools: &[Value]) -> Option<String> {
        let call = match &self.opts.operation {
            Operation::Tool(t) => Some(t.clone()),
            _ => {
                show_tools(&self.opts.notices, tools);
                None
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

    /// `tools/list`, following `nextCursor`, into [`Lifecycle::tools`]
    /// (moved, never copied): at most [`MAX_LISTED`] tools and
    /// [`MAX_LISTED_BYTES`] of them (as JSON), however they are paged;
    /// past either the list is cut, with a notice.
    ///
    /// Errors: the request failed, or a page has no `tools` array.
    async fn list_tools(&mut self) -> Result<(), McpError> {
        let mut tools = Vec::new();
        let mut bound = ListBound::default();
        let mut cursor: Option<String> = None;
        loop {
            let params = cursor.as_ref().map(|c| json!({ "cursor": c }));
            let limit = Some(self.opts.connect_timeout);
            let mut page = self.request("tools/list", params, limit).await?;
            let Some(Value::Array(items)) = page.get_mut("tools").map(Value::take) else {
                return Err(ProtocolBreak::NoToolsArray.into());
            };
            cursor = str_field(&page, "nextCursor");
            let fresh = bound.page(cursor.as_deref());
            for tool in items {
                if !bound.take(&tool) {
                    self.notice(&bound.cut_notice("tools/list", "tools"));
                    self.life.tools = tools;
                    return Ok(());
                }
                if self.keeps_tool(&tool) {
                    tools.push(tool);
                }
            }
            if !fresh {
                // What the repeated page listed again is kept once.
                let mut names = std::collections::HashSet::new();
                tools.retain(|t| names.insert(t.get("name").cloned()));
                self.notice(&bound.loop_notice("tools/list", "tools", tools.len()));
                self.life.tools = tools;
                return Ok(());
            }
            if cursor.is_none() || !bound.more() {
                if cursor.is_some() {
                    self.notice(&bound.cut_notice("tools/list", "tools"));
                }
                self.life.tools = tools;
                return Ok(());
            }
        }
    }

    /// Whether a listed tool is kept: over Streamable HTTP in 2026-07-28, a
    /// tool whose `x-mcp-header` annotations break the rules is left out,
    /// with a notice naming it and the rule.
    fn keeps_tool(&mut self, tool: &Value) -> bool {
        if self.life.revision != Revision::V2026_07_28
            || !matches!(self.opts.target, Target::Http { .. })
        {
            return true;
        }
        match request_meta::header_params(tool) {
            Ok(_) => true,
            Err(why) => {
                let name = str_field(tool, "name").unwrap_or_default();
                self.notice(&format!(
                    "left out the tool '{}': {why}",
                    safe_text::display(&name),
                ));
                self.life.left_out.push(name);
                false
            }
        }
    }

    /// List prompts or resources (`method`, all pages, into `key`), as a
    /// notice for the person; failures are said and skipped (a server may
    /// offer no list).
    async fn list(&mut self, method: &str, key: &str) -> Result<usize, McpError> {
        let mut count = 0usize;
        let mut bound = ListBound::default();
        let mut cursor: Option<String> = None;
        loop {
            let params = cursor.as_ref().map(|c| json!({ "cursor": c }));
            let limit = Some(self.opts.connect_timeout);
            let page = match self.request(method, params, limit).await {
                Ok(p) => p,
                Err(e @ (McpError::Rpc { .. } | McpError::Delivery { .. })) => {
                    self.notice(&format!("{method}: {}", safe_text::display(&e.to_string())));
                    return Ok(count);
                }
                Err(e) => return Err(e),
            };
            cursor = str_field(&page, "nextCursor");
            bound.page(cursor.as_deref());
            if let Some(Value::Array(t)) = page.get(key) {
                for item in t {
                    if !bound.take(item) {
                        cursor = None;
                        self.notice(&bound.cut_notice(method, key));
                        break;
                    }
                    count += 1;
                }
            }
            if cursor.is_none() || !bound.more() {
                break;
            }
        }
        // `prompts` → `prompt`, `resources` → `resource` for one.
        let noun = if count == 1 {
            key.strip_suffix('s').unwrap_or(key)
        } else {
            key
        };
        self.notice(&format!("the server lists {count} {noun}"));
        Ok(count)
    }

    /// Send a request and handle everything that arrives until its answer
    /// (at most `limit`, not counting the time an elicitation is open on
    /// the person's screen). A 404 for the HTTP session re-initializes once and
    /// sends the request again.
    pub async fn request(
        &mut self,
        method: &str,
        params: Option<Value>,
        limit: Option<Duration>,
    ) -> Result<Value, McpError> {
        match self.request_once(method, params.clone(), limit).await {
            Err(McpError::SessionExpired) if !self.life.reinitialized => {
                self.life.reinitialized = true;
                self.notice(
                    "the server ended the session (HTTP 404): initializing a new session once",
                );
                self.link.transport.reset_session();
                self.initialize().await?;
                self.link.transport.start_listening();
                self.request_once(method, params, limit).await
            }
            Err(McpError::SessionExpired) => Err(LinkDown::SessionEndedAgain.into()),
            other => other,
        }
    }

    /// The id the next request will get (for a `progressToken`).
    pub fn peek_id(&self) -> u64 {
        self.link.next_id
    }

    pub(super) async fn request_once(
        &mut self,
        method: &str,
        params: Option<Value>,
        limit: Option<Duration>,
    ) -> Result<Value, McpError> {
        let id = self.link.next_id;
        self.link.next_id += 1;
        self.link.pending.insert(
            id,
            Pending {
                method: method.to_owned(),
            },
        );
        self.send_request(id, method, params)?;
        let mut until = limit.map(|l| Instant::now() + l);
        // While a sign-in is under way (its own limits apply) the clock
        // stops: the time sign-ins take is added to the limit.
        let sign_ins = std::sync::Arc::clone(self.desk.sign_ins());
        let mut changes = sign_ins.changes();
        let signed = sign_ins.time_signing_in();
        let deadline = |until: Option<Instant>| {
            until.map(|u| u + sign_ins.time_signing_in().saturating_sub(signed))
        };
        loop {
            if let Some(r) = self.link.responses.remove(&id) {
                return r;
            }
            // While an elicitation is open on the person's screen the
            // clock stops too: the time it was open is added to the limit.
            // A sign-in that starts or ends wakes the wait, which looks at
            // the limit again.
            let asking = !self.elic.asks.is_empty();
            let before = Instant::now();
            changes.borrow_and_update();
            let wake = match asking || sign_ins.signing_in() {
                true => None,
                false => deadline(until),
            };
            let step = tokio::select! {
                s = self.step(wake) => s,
                Ok(()) = changes.changed() => Ok(false),
            };
            if let (true, Some(u)) = (asking, until.as_mut()) {
                *u += before.elapsed();
            }
            let woke = step.map_err(|e| match e {
                e @ (McpError::Transport(_) | McpError::Closed(_)) => McpError::Waiting {
                    method: method.to_owned(),
                    source: Box::new(e),
                },
                e => e,
            })?;
            // Esc on the waiting screen of a call the person started: the
            // server is told, and an answer that still comes is dropped.
            if self.elic.wait_key == Some(WaitKey::CancelCall) {
                self.elic.wait_key = None;
                if self.watch.is_some() && self.link.pending.remove(&id).is_some() {
                    self.link.dropped.insert(id);
                    self.cancel_request(id, "cancelled by the person");
                    return Err(McpError::Cancelled {
                        method: method.to_owned(),
                    });
                }
            }
            if !woke
                && (sign_ins.signing_in() || deadline(until).is_some_and(|d| Instant::now() < d))
            {
                continue;
            }
            if !woke {
                self.link.pending.remove(&id);
                self.cancel_request(id, "timed out");
                return Err(McpError::Timeout {
                    method: method.to_owned(),
                    limit: limit.unwrap_or_default(),
                });
            }
        }
    }

    /// Send request `id`: in 2026-07-28 with the `_meta` entries and, over
    /// HTTP, the request metadata headers (and a tool's `Mcp-Param-*`).
    fn send_request(
        &mut self,
        id: u64,
        method: &str,
        params: Option<Value>,
    ) -> Result<(), McpError> {
        if self.life.revision != Revision::V2026_07_28 {
            return self
                .link
                .transport
                .send(&jsonrpc::request(id, method, params), Some(id));
        }
        let params = request_meta::with_meta_capabilities(params, self.capabilities());
        let mut headers = request_meta::standard_headers(method, Some(&params));
        if method == "tools/call" {
            headers.extend(self.param_headers(&params));
        }
        self.link
            .transport
            .send_request(&jsonrpc::request(id, method, Some(params)), id, headers)
    }

    /// The `Mcp-Param-*` headers of a `tools/call` with `params`, from the
    /// tool's listed `inputSchema` (none for a tool that was not listed).
    fn param_headers(&self, params: &Value) -> Vec<(String, String)> {
        let name = params.get("name").and_then(Value::as_str);
        let Some(tool) = self
            .life
            .tools
            .iter()
            .find(|t| t.get("name").and_then(Value::as_str) == name)
        else {
            return Vec::new();
        };
        let empty = Map::new();
        let args = params
            .get("arguments")
            .and_then(Value::as_object)
            .unwrap_or(&empty);
        request_meta::header_params(tool)
            .map(|p| request_meta::param_headers(&p, args))
            .unwrap_or_default()
    }

    /// Tell the server we no longer wait for request `id`: HTTP in
    /// 2026-07-28 closes the request's stream, otherwise
    /// `notifications/cancelled`.
    pub fn cancel_request(&mut self, id: u64, reason: &str) {
        if self.link.transport.cancel(id) {
            return;
        }
        let msg = jsonrpc::notification(
            "notifications/cancelled",
            Some(json!({ "requestId": id, "reason": reason })),
        );
        let _ = self.link.transport.send(&msg, None);
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
            i = self.link.rx.recv() => Wake::Incoming(i),
            r = self.desk.next() => Wake::Reply(r),
            n = next_ending(&mut self.signals) => Wake::Signal(n),
            _ = timer => Wake::Timer,
        };
        match wake {
            Wake::Timer => return Ok(false),
            // A signal during a sign-in's wait ends the sign-in (exit 3),
            // as Control-C at the sign-in does.
            Wake::Signal(n) => return Err(signal_ends(n, self.desk.sign_ins())),
            Wake::Incoming(None) => return Err(LinkDown::Closed.into()),
            Wake::Incoming(Some(i)) => self.on_incoming(i)?,
            Wake::Reply(None) => {
                return Err(McpError::Responder(crate::responder::RespondError::Stopped))
            }
            Wake::Reply(Some(Reply::Key(WaitKey::Quit))) => {
                return Err(match crate::signals::received() {
                    Some(n) => signal_ends(n, self.desk.sign_ins()),
                    None => McpError::Quit,
                })
            }
            Wake::Reply(Some(Reply::Key(k))) => self.elic.wait_key = Some(k),
            Wake::Reply(Some(r)) if self.closes_refusal(&r) => {}
            Wake::Reply(Some(r)) => self.on_reply(r)?,
        }
        Ok(true)
    }

    fn on_incoming(&mut self, item: Incoming) -> Result<(), McpError> {
        // Every message received, in the order taken, before anything is
        // done with it.
        if let Incoming::Message(v) = &item {
            self.desk
                .trace()
                .record(crate::responder::trace::Direction::In, v);
        }
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
            Incoming::Log(line) => self.server_log(line),
            Incoming::StreamEnded { id } => {
                self.fail_pending(id, |m| McpError::from(LinkDown::StreamEnded(m.to_owned())))
            }
            Incoming::Failed { id, error } => self.fail_pending(id, |m| McpError::Delivery {
                what: m.to_owned(),
                source: error,
            }),
            Incoming::SessionExpired { id } => self.fail_pending(id, |_| McpError::SessionExpired),
            Incoming::Unreadable { id, noise } => {
                let why = safe_text::display(&noise.to_string()).into_owned();
                if self.link.pending.contains_key(&id) {
                    self.fail_pending(id, |m| McpError::Unreadable {
                        method: m.to_owned(),
                        why,
                    });
                } else {
                    self.server_notice(&why);
                }
            }
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
                self.elic.shown_refusals.remove(key)
            }
            Reply::Key(_) => false,
        }
    }

    fn fail_pending(&mut self, id: u64, err: impl FnOnce(&str) -> McpError) {
        if let Some(p) = self.link.pending.remove(&id) {
            self.link.responses.insert(id, Err(err(&p.method)));
        }
    }

    fn on_response(&mut self, id: Value, outcome: Result<Value, jsonrpc::RpcError>) {
        // The answer to a request the person cancelled: nobody waits for it.
        if id.as_u64().is_some_and(|n| self.link.dropped.remove(&n)) {
            return;
        }
        let pending = id
            .as_u64()
            .and_then(|n| self.link.pending.remove(&n).map(|p| (n, p)));
        let Some((n, p)) = pending else {
            self.notice(&format!(
                "ignored a response to an unknown request id {}",
                safe_text::display(&id.to_string())
            ));
            return;
        };
        let r = outcome.map_err(|e| {
            let mut message = safe_text::display(&e.message).into_owned();
            if let Some(words) = request_meta::explain(e.code, e.data.as_ref()) {
                message.push_str(&format!(" ({})", safe_text::display(&words)));
            }
            McpError::Rpc {
                method: p.method,
                code: e.code,
                message,
                data: e.data.map(Box::new),
            }
        });
        self.link.responses.insert(n, r);
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
            super::sampling::SAMPLING if self.is_open(&id) => self.refuse_duplicate(&id),
            super::sampling::SAMPLING => self.sampling_request(id, params.unwrap_or(Value::Null)),
            super::sampling::ROOTS => self.roots_request(id),
            other => self.not_offered(&id, other),
        }
    }

    /// The client's capabilities in the session's revision (see
    /// [`request_meta::client_capabilities`]).
    pub(super) fn capabilities(&self) -> Value {
        request_meta::client_capabilities(
            self.life.revision,
            &self.opts.modes,
            self.opts.sampling,
            !self.opts.roots.is_empty(),
        )
    }

    /// Whether a request of the server with this id is still open (put to
    /// the person, not yet answered).
    fn is_open(&self, id: &Value) -> bool {
        self.elic
            .asks
            .values()
            .any(|a| a.rpc_id.as_ref() == Some(id))
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
        self.elic.rejected.push(why);
        self.reply(jsonrpc::error_response(
            id,
            jsonrpc::INVALID_REQUEST,
            DUPLICATE_ID,
            None,
        ))
    }

    pub fn reply(&mut self, msg: Value) -> Result<(), McpError> {
        self.link.transport.send(&msg, None)
    }

    fn on_notification(&mut self, method: &str, params: Option<&Value>) {
        let p = params.cloned().unwrap_or(Value::Null);
        match method {
            "notifications/elicitation/complete" => self.on_complete(&p),
            "notifications/cancelled" => self.on_cancelled(&p),
            "notifications/progress" => self.on_progress(&p),
            // Listed again when the person is shown the list (trying the
            // server by hand), at once when it is on screen.
            "notifications/tools/list_changed"
            | "notifications/prompts/list_changed"
            | "notifications/resources/list_changed" => self.life.lists_changed = true,
            "notifications/message" => {
                let level = str_field(&p, "level").unwrap_or_default();
                let data = match p.get("data") {
                    Some(Value::String(s)) => s.clone(),
                    Some(v) => v.to_string(),
                    None => String::new(),
                };
                let data: String = data.chars().take(2_000).collect();
                let level = safe_text::display(&level).into_owned();
                if self.watch.is_some() {
                    let short: String = data.chars().take(200).collect();
                    self.watch_line(format!("Log [{level}]: {}", safe_text::display(&short)));
                    return;
                }
                self.server_notice(&format!(
                    "server log [{level}]: {}",
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
        let mut figures = match (num("progress"), num("total")) {
            (Some(v), Some(t)) => format!(" {v}/{t}"),
            (Some(v), None) => format!(" {v}"),
            _ => String::new(),
        };
        if let Some(m) = str_field(p, "message") {
            let m: String = m.chars().take(200).collect();
            figures.push_str(&format!(": {}", safe_text::display(&m)));
        }
        if self.watch.is_some() {
            self.watch_line(format!("Progress{figures}"));
            return;
        }
        let line = format!("progress{figures}");
        self.desk.show(Waiting {
            status: Some(format!("The tool reports {line}")),
            offer_retry: false,
            connecting: false,
            call: None,
            stderr: None,
        });
        self.server_notice(&format!("the tool reports {line}"));
    }

    /// Show the watched call's waiting screen: what is being done, the
    /// lines the server reported so far, Esc to cancel.
    pub(super) fn show_watch(&self) {
        if let Some(w) = &self.watch {
            self.desk.show(Waiting {
                status: Some(w.status.clone()),
                call: Some(w.call.clone()),
                ..Waiting::default()
            });
        }
    }

    /// What the waiting screen shows when nothing else is said: the
    /// watched call's screen, else the wait for the next request.
    pub(super) fn show_idle(&self) {
        match &self.watch {
            Some(_) => self.show_watch(),
            None => self.desk.show(Waiting::default()),
        }
    }

    /// Say `status` (safe text) on the waiting screen; the watched call
    /// stays on it (its lines, Esc to cancel).
    pub(super) fn show_status(&self, status: String) {
        self.desk.show(Waiting {
            status: Some(status),
            call: self.watch.as_ref().map(|w| w.call.clone()),
            ..Waiting::default()
        });
    }

    /// A line (safe text) the server reported during the watched call:
    /// kept for its waiting screen, which is shown again.
    fn watch_line(&mut self, line: String) {
        if let Some(w) = self.watch.as_mut() {
            w.call.push(line);
        }
        self.show_watch();
    }

    /// A line of a stdio server's stderr: shown (sanitized, `server: `
    /// before it) and kept as the last one.
    pub(super) fn server_log(&mut self, line: String) {
        match &self.stderr {
            // On the screens; said after the session, as one block.
            Some(ring) => ring.push(&line),
            None => self.server_notice(&format!("server: {}", safe_text::display(&line))),
        }
        self.life.last_stderr = Some(line);
    }

    /// What the server wrote on its stderr while the screens showed it, as
    /// one block on our stderr after the session: `server:` before each
    /// line, a first line saying how many there were.
    fn say_stderr_block(&mut self) {
        let Some(ring) = self.stderr.take() else {
            return;
        };
        let (lines, total) = ring.all();
        if lines.is_empty() {
            return;
        }
        let kept = lines.len() as u64;
        self.notice(&if kept < total {
            format!("the server wrote {total} lines on its stderr; the last {kept}:")
        } else {
            format!("the server wrote {total} line(s) on its stderr:")
        });
        for l in lines {
            self.server_notice(&format!("server: {l}"));
        }
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
        self.opts.notices.say(msg);
    }

    pub fn write_event(&mut self, ev: &Value) -> Result<(), McpError> {
        let Some(w) = self.events.as_mut() else {
            return Ok(());
        };
        // Exactly as sent, so every event stays valid and means what it
        // meant (the file is its owner's only), except that a credential
        // the run knows is redacted (a server may quote one back); escaped
        // (no raw control, C1 or bidi character).
        let redacted;
        let ev = if crate::redact::any_secret() {
            let mut copy = ev.clone();
            crate::redact::redact_secrets_json(&mut copy);
            redacted = copy;
            &redacted
        } else {
            ev
        };
        let mut line = crate::safe_text::json_line(ev);
        line.push('\n');
        w.write_all(line.as_bytes())
            .and_then(|()| w.flush())
            .map_err(McpError::Events)
    }

    /// End the session: after a quit or a signal, cancel what is in flight
    /// (our requests: `notifications/cancelled`; the server's open
    /// elicitations: `cancel`); then close the connection and show the
    /// server's last log lines.
    async fn finish(&mut self, out: &Result<SessionReport, McpError>) {
        if let Err(e @ (McpError::Quit | McpError::Interrupted(_))) = out {
            let ids: Vec<u64> = self.link.pending.keys().copied().collect();
            let calls = ids.len();
            for id in ids {
                self.cancel_request(id, "the person quit");
            }
            // The open requests leave the desk unseen (the responder shows
            // nothing after a quit), answered `cancel` here.
            let open: Vec<(u64, Value)> = self
                .elic
                .asks
                .iter()
                .filter_map(|(k, a)| a.rpc_id.clone().map(|id| (*k, id)))
                .collect();
            for (key, id) in open {
                self.elic.asks.remove(&key);
                if self
                    .reply(jsonrpc::response(&id, json!({ "action": "cancel" })))
                    .is_ok()
                {
                    self.elic.cancelled_on_quit += 1;
                }
            }
            self.notice(&quit_summary(
                matches!(e, McpError::Quit),
                self.elic.cancelled_on_quit,
                calls,
            ));
            tokio::time::sleep(QUIT_GRACE).await;
        }
        // A refused form still on screen stays until the person closes it;
        // a request the server sent during the call that has finished stays
        // until it is answered (the answer is still sent) or withdrawn.
        let call_ended = matches!(out, Ok(_) | Err(McpError::Rpc { .. }));
        while call_ended && (!self.elic.shown_refusals.is_empty() || self.server_request_open()) {
            if self.step(None).await.is_err() {
                break;
            }
        }
        // What is still open ends with the connection (over HTTP, a server
        // that died ends its response stream and lands here).
        self.desk
            .withdraw_all(crate::session::WithdrawReason::ConnectionClosed);
        self.link.transport.close();
        while let Ok(item) = self.link.rx.try_recv() {
            if let Incoming::Log(line) = item {
                self.server_log(line);
            }
        }
        self.say_stderr_block();
        if self.server_notices > MAX_SERVER_NOTICES {
            self.notice(&format!(
                "{} more messages from the server were not shown",
                self.server_notices - MAX_SERVER_NOTICES
            ));
        }
    }
}

/// What a quit (`person`) or an ending signal did, for stderr: how many
/// requests of the server were answered `cancel` and whether the call in
/// progress was cancelled.
fn quit_summary(person: bool, cancelled: usize, calls: usize) -> String {
    let mut s = if person {
        "the run was quit".to_owned()
    } else {
        "the run was ended by a signal".to_owned()
    };
    match cancelled {
        0 => {}
        1 => s.push_str(": 1 request of the server was answered cancel"),
        n => s.push_str(&format!(
            ": {n} requests of the server were answered cancel"
        )),
    }
    if calls > 0 {
        s.push_str(if cancelled > 0 { "; " } else { ": " });
        s.push_str(if calls == 1 {
            "the call in progress was cancelled"
        } else {
            "the calls in progress were cancelled"
        });
    }
    s
}

/// Show the tool list to the person (stderr, sanitized): name and title or
/// the first line of the description.
fn show_tools(notices: &Notices, tools: &[Value]) {
    let lines: Vec<String> = tools
        .iter()
        .map(|t| {
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
            format!(
                "{}  {}",
                safe_text::display(&name),
                safe_text::display(&about)
            )
        })
        .collect();
    notices.say_list(
        &format!("the server offers {} tool(s):", tools.len()),
        &lines,
    );
}
