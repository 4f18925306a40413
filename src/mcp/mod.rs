//! `ahp-elicit mcp`: a small MCP client session for both protocol eras
//! (2025-11-25 and 2026-07-28, chosen by asking the server:
//! [`client::lifecycle`]) that connects to a live server, lists and calls a
//! tool (or gets a prompt, or reads a resource), and answers the server's
//! elicitations through the same [`Responder`] the stream driver uses,
//! while it keeps serving the server (ping, cancellation, progress,
//! completion) on a tokio session thread ([`crate::session`]).
//!
//! Layout: [`transport`] (and [`stdio`], [`http`]) only send, receive and
//! close; [`request_meta`] builds what 2026-07-28 adds to every request
//! (`_meta`, HTTP request headers); [`client`] is the client object, its
//! methods by concern in its children: [`client::lifecycle`] connects per
//! revision (`server/discover` or the `initialize` handshake, with the
//! fallback); [`client::rounds`] repeats a request until it completes
//! (-32042 and `input_required` rounds alike); [`client::elicit`] turns one
//! elicitation into events and an answer; [`client::browse`] lets a person
//! try the server by hand.
//!
//! Why not the official Rust SDK `rmcp` (3.x): it re-serializes
//! `elicitation/create` params through typed structs, dropping unknown
//! fields and the 2025-11-25 `task` field and reordering `_meta`, while the
//! binding requires the complete params to be preserved in `request.text`
//! and checked raw (closed form subset, limits, our own -32602 with
//! violations); it also no longer types -32042 or the completion
//! notification. The JSON-RPC layer here stays raw (`serde_json::Value` in,
//! exact values out): [`jsonrpc`], [`stdio`], [`http`].
//!
//! Data flow per elicitation: see [`client::elicit`]; per round: see
//! [`client::rounds`].

use std::path::PathBuf;
use std::time::Duration;

use serde_json::{Map, Value};

use crate::binding::{Mode, Revision, SchemaPolicy, Server};
use crate::notice::Notices;
use crate::responder::Responder;

pub mod auth;
mod client;
pub mod roots;
pub mod sampling;

internals! {
    pub(crate) mod http;
    pub(crate) mod jsonrpc;
    pub(crate) mod request_meta;
    pub(crate) mod stdio;
    pub(crate) mod transport;
}
// `cargo fmt` reaches the modules of `internals!` through this list
// (see src/lib.rs).
#[cfg(any())]
#[path = "."]
mod for_cargo_fmt {
    mod http;
    mod jsonrpc;
    mod request_meta;
    mod stdio;
    mod transport;
}

pub use client::elicit::SCRIPTED_COMPLETION_WAIT;
pub use client::rounds::{older_way_hint, DEFAULT_MAX_ROUNDS};
pub use http::ExtraHeaders;

/// `source.adapter` of request events that came over stdio.
pub const ADAPTER_STDIO: &str = "mcp-stdio";
/// `source.adapter` of request events that came over Streamable HTTP.
pub const ADAPTER_HTTP: &str = "mcp-http";

/// Where the server is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// A command started as a child process (stdio transport).
    Stdio { program: String, args: Vec<String> },
    /// A Streamable HTTP endpoint (`http://` or `https://` URL).
    Http { url: String },
}

impl Target {
    /// The server as the person gave it, for the screen's header: the
    /// command line (quoted as a shell would need it), or the URL with its
    /// userinfo, query and fragment redacted.
    pub fn launch_label(&self) -> String {
        match self {
            Target::Stdio { program, args } => {
                let words = std::iter::once(program).chain(args);
                shlex::try_join(words.map(String::as_str))
                    .unwrap_or_else(|_| format!("{program} …"))
            }
            Target::Http { url } => crate::redact::redact_url(url),
        }
    }

    /// Read the trailing positional arguments: one `http(s)://` URL means
    /// Streamable HTTP, anything else is a command and its arguments.
    /// Errors: [`TargetError`]: nothing given, arguments after a URL, or a
    /// URL that does not parse.
    pub fn from_args(args: &[String]) -> Result<Target, TargetError> {
        match args {
            [] => Err(TargetError::NoServer),
            [url, more, ..] if url.starts_with("http://") || url.starts_with("https://") => {
                Err(TargetError::AfterUrl { arg: more.clone() })
            }
            [one] if one.starts_with("http://") || one.starts_with("https://") => {
                url::Url::parse(one).map_err(|source| TargetError::BadUrl {
                    url: one.clone(),
                    source,
                })?;
                Ok(Target::Http { url: one.clone() })
            }
            // `ftp://x/mcp`, `ws://...`: a URL this client cannot speak,
            // not a program to run.
            [first, ..] if url_scheme(first).is_some() => {
                Err(TargetError::Scheme { url: first.clone() })
            }
            [program, rest @ ..] => Ok(Target::Stdio {
                program: program.clone(),
                args: rest.to_vec(),
            }),
        }
    }

    /// The default `source.adapter` of request events: `mcp-stdio` or
    /// `mcp-http`.
    pub fn adapter(&self) -> &'static str {
        match self {
            Target::Stdio { .. } => ADAPTER_STDIO,
            Target::Http { .. } => ADAPTER_HTTP,
        }
    }
}

/// What the session asks of the server once connected.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum Operation {
    /// List the tools (printed as `{"tools": [...]}`); no tool is called,
    /// not even a server's only one.
    #[default]
    List,
    /// `--call TOOL`: `tools/call`.
    Tool(String),
    /// `--prompt NAME`: `prompts/list`, then `prompts/get`.
    Prompt(String),
    /// `--read URI`: `resources/list`, then `resources/read`.
    Read(String),
}

/// What one session does.
#[derive(Debug, Clone)]
pub struct McpOptions {
    pub target: Target,
    /// What to ask once connected ([`Operation`]).
    pub operation: Operation,
    /// `--args JSON`: the tool's (or the prompt's) `arguments` object
    /// (default `{}`).
    pub arguments: Map<String, Value>,
    /// `--arg NAME=VALUE` / `NAME:=JSON`, in order: read by the tool's
    /// `inputSchema` once it is listed and put over `arguments` (a name in
    /// both takes this value); at a terminal without `--call` they fill
    /// the arguments form of each tool picked
    /// ([`crate::binding::tool_args`]).
    pub arg_values: Vec<crate::binding::tool_args::ArgValue>,
    /// `--protocol`: the one revision to speak; None (`auto`, the
    /// default): ask the server (`server/discover` first, `initialize`
    /// when that fails).
    pub protocol: Option<Revision>,
    /// `--max-rounds`: how many `input_required` rounds one request may
    /// take (default [`DEFAULT_MAX_ROUNDS`]).
    pub max_rounds: u32,
    /// `--header`: added to every HTTP request; values are never shown.
    pub headers: ExtraHeaders,
    /// `--modes`: the elicitation modes advertised in
    /// `capabilities.elicitation` (`{form:{}, url:{}}`, only these).
    pub modes: Vec<Mode>,
    /// `--events FILE`: every AHP event, requests and results, as JSON Lines.
    pub events: Option<PathBuf>,
    /// `--source-adapter`: `source.adapter` of request events; None takes
    /// [`Target::adapter`].
    pub source_adapter: Option<String>,
    /// `--schema-policy`: how a `requestedSchema` outside the closed subset
    /// is read ([`SchemaPolicy`]; the request events then say so in their
    /// `extensions`).
    pub schema_policy: SchemaPolicy,
    /// `--timeout SECS`: each elicitation is cancelled when unanswered this
    /// long, counted from when it can be shown (one waiting behind another
    /// keeps its whole time); also bounds the wait for a browser flow after -32042.
    pub timeout: Option<Duration>,
    /// `--connect-timeout SECS`: how long `initialize` (and `tools/list`)
    /// may take (default [`DEFAULT_CONNECT_TIMEOUT`]).
    pub connect_timeout: Duration,
    /// `--call-timeout`: how long one `tools/call`, `prompts/get` or
    /// `resources/read` request may wait for its answer (default
    /// [`DEFAULT_CALL_TIMEOUT`]); the time an elicitation is open on the
    /// person's screen does not count.
    pub call_timeout: Duration,
    /// How long to wait for a browser flow's completion after -32042 when
    /// `timeout` is not given; None: 300 s (a person in a browser). The
    /// command sets a short wait for scripted answers, which can do no
    /// browser flow.
    pub completion_wait: Option<Duration>,
    /// Where the session's notices go (sanitized): what it does, what the
    /// server logs, what it refused. The binary writes them to stderr
    /// ([`Notices::stderr`], the default); a library user may collect them.
    pub notices: Notices,
    /// `--quiet`: the informational lines about the connection (the era
    /// fallback, "connected to ...") are not said; errors, warnings and
    /// the server's own text still are. Default false.
    pub quiet: bool,
    /// A person answers (not a script): a form refused with -32602 (its
    /// rules broken, e.g. under `--schema-policy strict`) is also shown on
    /// the "cannot be answered as a form" screen, with each rule and
    /// pointer, after the error was sent. Default false.
    pub show_refusals: bool,
    /// Between requests the responder shows its waiting screen (and reads
    /// keys) in slices of 50 ms: right for a person. False for a script:
    /// the responder thread then sleeps until the next request and takes
    /// it at once, instead of at the end of a slice (up to 50 ms later).
    /// Default true.
    pub waiting_screen: bool,
    /// A stdio server's stderr is shown on the full screen while the
    /// session runs (the last lines on the waiting screen, all of them on
    /// a key: [`crate::responder::ServerStderr`]) and said on our stderr
    /// as one block after it, never between our own lines; false: each
    /// line is said on our stderr as it comes (`server: …`). Default false.
    pub stderr_on_screen: bool,
    /// Signing in (OAuth) when an HTTP server asks for it; None: a 401
    /// ends the request (stdio servers, `--header Authorization`).
    pub auth: Option<auth::AuthOptions>,
    /// Someone can write a model's reply: a person at a terminal, or an
    /// answers file with a rule for `sampling/createMessage`. Declares the
    /// client capability `sampling` and answers the server's sampling
    /// requests; false (the default): they get -32601 (pushed) or end the
    /// call (an input request). Default false.
    pub sampling: bool,
    /// `--root`: the roots `roots/list` answers with; empty (the default):
    /// the capability `roots` is not declared and the request is refused.
    pub roots: Vec<roots::Root>,
}

/// Default of `--connect-timeout`.
#[cfg(any(test, feature = "internals"))]
pub const DEFAULT_CONNECT_TIMEOUT: Duration = Duration::from_secs(30);
/// Default of `--call-timeout`: ten minutes (a tool may work long; the
/// time a person answers is not counted).
#[cfg(any(test, feature = "internals"))]
pub const DEFAULT_CALL_TIMEOUT: Duration = Duration::from_secs(600);

impl McpOptions {
    /// Options for `target` with every default: list the tools (calling
    /// none), both modes, no events file, no timeout.
    #[cfg(any(test, feature = "internals"))]
    pub fn new(target: Target) -> Self {
        McpOptions {
            target,
            operation: Operation::List,
            arguments: Map::new(),
            arg_values: Vec::new(),
            stderr_on_screen: false,
            protocol: None,
            max_rounds: DEFAULT_MAX_ROUNDS,
            headers: ExtraHeaders::default(),
            modes: vec![Mode::Form, Mode::Url],
            events: None,
            source_adapter: None,
            timeout: None,
            connect_timeout: DEFAULT_CONNECT_TIMEOUT,
            call_timeout: DEFAULT_CALL_TIMEOUT,
            completion_wait: None,
            schema_policy: SchemaPolicy::Compatible,
            notices: Notices::stderr(),
            show_refusals: false,
            waiting_screen: true,
            auth: None,
            quiet: false,
            sampling: false,
            roots: Vec::new(),
        }
    }
}

/// What a finished session produced.
#[derive(Debug, Clone, PartialEq)]
pub struct SessionReport {
    /// The server as `serverInfo` named it (the `server` of every event).
    pub server: Server,
    /// The protocol version the server chose.
    pub protocol_version: String,
    /// The tools as `tools/list` gave them (all pages, within the list's
    /// bounds) when a tool was called; empty for a listing, whose tools are
    /// in `result`.
    pub tools: Vec<Value>,
    /// The tool that was called, if any.
    pub called: Option<String>,
    /// The `tools/call` result; or, when no tool was called, `{"tools": [...]}`.
    pub result: Value,
    /// Elicitations answered with a result.
    pub answered: usize,
    /// Elicitations refused with a JSON-RPC error (mode not advertised,
    /// invalid params): counted, the first sentences kept.
    pub rejected: Tally,
    /// Elicitations for which no valid answer could be made (a scripted
    /// answer the form refuses): answered with JSON-RPC error -32603, no
    /// result event; the command exits 1.
    pub refused: Tally,
    /// Under `--protocol auto` at 2026-07-28 the tool reported (`isError`)
    /// that it could not push its question: it asks the 2025-11-25 way
    /// ([`older_way_hint`]).
    pub older_way: bool,
    /// The person tried the server by hand ([`crate::browse`]) and left
    /// the tool list: `result` is null and nothing is printed.
    pub browsed: bool,
}

/// How many of something happened, with the sentences of the first
/// [`Tally::KEPT`] (a server that makes the client refuse without end
/// cannot grow its memory).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Tally {
    /// How many in all.
    pub count: usize,
    /// The first ones' sentences, in order.
    pub kept: Vec<String>,
}

impl Tally {
    /// Sentences kept at most.
    pub const KEPT: usize = 20;

    /// Count one; keep its sentence while fewer than [`Tally::KEPT`] are.
    pub fn push(&mut self, sentence: String) {
        self.count += 1;
        if self.kept.len() < Self::KEPT {
            self.kept.push(sentence);
        }
    }

    /// Count `other`'s too, keeping its sentences while fewer than
    /// [`Tally::KEPT`] are.
    pub fn extend(&mut self, other: Tally) {
        self.count += other.count;
        let room = Self::KEPT.saturating_sub(self.kept.len());
        self.kept.extend(other.kept.into_iter().take(room));
    }

    /// How many in all.
    pub fn len(&self) -> usize {
        self.count
    }

    /// None at all.
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }
}

/// The scheme of `arg` when it reads as a URL (`scheme://`, the scheme a
/// letter followed by letters, digits, `+`, `-` or `.`); None for anything
/// else (a program, a path).
fn url_scheme(arg: &str) -> Option<&str> {
    let (scheme, _) = arg.split_once("://")?;
    let mut chars = scheme.chars();
    let first = chars.next()?;
    (first.is_ascii_alphabetic() && chars.all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c)))
        .then_some(scheme)
}

/// Why the server arguments name no server (see [`Target::from_args`]).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TargetError {
    /// No server was given.
    #[error("give the server: -- COMMAND [ARGS...] for stdio, or a URL for Streamable HTTP")]
    NoServer,
    /// An argument follows the server URL (a flag given too late).
    #[error("'{arg}' after the server URL: give the flags before the URL (a URL server takes no arguments)")]
    AfterUrl {
        /// The first argument after the URL.
        arg: String,
    },
    /// The server is a URL of a scheme other than http or https (usage
    /// error: it is not run as a command).
    #[error("'{url}': a server URL starts with http:// or https:// (Streamable HTTP); a command is given after --")]
    Scheme {
        /// The argument as given.
        url: String,
    },
    /// The server URL does not parse.
    #[error("bad server URL '{url}': {source}")]
    BadUrl {
        /// The URL as given.
        url: String,
        /// The parser's reason.
        #[source]
        source: url::ParseError,
    },
}

/// Why the connection cannot carry a message, when no error of the
/// operating system is underneath.
#[derive(Debug, thiserror::Error)]
pub enum LinkDown {
    /// The connection was closed (by either side).
    #[error("the connection is closed")]
    Closed,
    /// The server's stdin is full: it stopped reading.
    #[error("the server is not reading its stdin ({0} messages waiting)")]
    NotReading(usize),
    /// The server process exited.
    #[error("the server exited ({0})")]
    Exited(std::process::ExitStatus),
    /// The writer to the server's stdin stopped.
    #[error("writing to the server's stdin failed")]
    WriteFailed,
    /// A Streamable HTTP session ended (404) right after it was begun again.
    #[error("the server ended the session again (HTTP 404)")]
    SessionEndedAgain,
    /// A response stream ended before the answer to `method` came.
    #[error("the server ended the response stream of {0} without answering it")]
    StreamEnded(String),
}

/// What the server sent that the protocol forbids.
#[derive(Debug, thiserror::Error)]
pub enum ProtocolBreak {
    /// `server/discover` named no revision.
    #[error("the server/discover result lists no supportedVersions")]
    NoSupportedVersions,
    /// `initialize` answered without `protocolVersion`.
    #[error("the initialize result has no protocolVersion")]
    NoProtocolVersion,
    /// `initialize` chose a revision this client does not speak (as sent;
    /// sanitized when shown).
    #[error(
        "the server chose protocol version '{}', which this client does not speak ({})",
        crate::safe_text::display(.0),
        Revision::V2025_11_25
    )]
    UnknownVersion(String),
    /// `initialize` answered without `serverInfo.name`.
    #[error("the initialize result has no serverInfo.name")]
    NoServerName,
    /// The session ended its handshake without the server's name.
    #[error("the server did not name itself")]
    Unnamed,
    /// `tools/list` answered without a `tools` array.
    #[error("the tools/list result has no tools array")]
    NoToolsArray,
}

/// Why a call could not complete. `call` is the call as shown
/// ("tools/call 'name'", sanitized); `key` an input request's key, as sent
/// (sanitized when shown).
#[derive(Debug, thiserror::Error)]
pub enum Incomplete {
    /// A `resultType` this client does not know (its first characters).
    #[error(
        "the server answered {call} with resultType {}, which this client does not know",
        crate::safe_text::display(.result_type)
    )]
    UnknownResultType { call: String, result_type: String },
    /// An `input_required` result on a 2025-11-25 session.
    #[error(
        "the server answered {call} with an MCP {} result (resultType input_required) on an MCP {} session: the call did not complete (the server mixes protocol revisions)",
        Revision::V2026_07_28,
        crate::safe_text::display(.version)
    )]
    MixedRevisions { call: String, version: String },
    /// More rounds than `--max-rounds`.
    #[error(
        "the server still asked for input after {max} round(s) of {call} (--max-rounds {max})"
    )]
    TooManyRounds { call: String, max: u32 },
    /// A `requestState` that is not a string.
    #[error(
        "the server's input_required answer to {call} has a requestState that is not a string"
    )]
    BadRequestState { call: String },
    /// An `input_required` result with nothing to answer or send back.
    #[error(
        "the server's input_required answer to {call} has neither inputRequests nor requestState"
    )]
    NothingRequired { call: String },
    /// An input request for a method the client did not declare (`what`:
    /// the method, quoted and sanitized, or "a request without a method").
    #[error(
        "the server's input request '{}' asks for {what}, which this client did not declare (it declares elicitation; sampling/createMessage only when someone can write a model's reply, at a terminal or by an answers rule with \"method\": \"sampling/createMessage\"; roots/list only with --root): the server's error, nothing was answered",
        crate::safe_text::display(.key)
    )]
    Undeclared { key: String, what: String },
    /// An input request that is not a valid elicitation (`why`: the
    /// refusal, sanitized).
    #[error(
        "the server's input request '{}' cannot be answered ({why}): the server's error, nothing was answered",
        crate::safe_text::display(.key)
    )]
    Unanswerable { key: String, why: String },
    /// An input request that could not be put to the person.
    #[error("the input request '{}' could not be put to the person", crate::safe_text::display(.key))]
    NotAsked { key: String },
    /// A sampling input request the person (or an answers rule) declined
    /// or cancelled: an input response cannot carry a rejection, so the
    /// call is not sent again.
    #[error("the sampling request '{}' was rejected: the call is not sent again (an MCP 2026-07-28 input response cannot say no)", crate::safe_text::display(.key))]
    SamplingRejected { key: String },
    /// An input request that got no answer.
    #[error("the input request '{}' got no answer", crate::safe_text::display(.key))]
    NoAnswer { key: String },
    /// A 2026-07-28 call refused with -32600 under `--protocol auto`: the
    /// tool asks the 2025-11-25 way (`said`: the server's message,
    /// sanitized).
    #[error(
        "{call} failed: JSON-RPC error -32600: {}; {}",
        without_full_stop(.said),
        older_way_hint()
    )]
    OlderWayOnly { call: String, said: String },
    /// A tool whose `x-mcp-header` annotations break the rules (named,
    /// sanitized when shown).
    #[error(
        "the tool '{}' is not called: its x-mcp-header annotations break the rules (see above)",
        crate::safe_text::display(.0)
    )]
    BadHeaders(String),
}

/// `; is it a server's address? Give the URL with its scheme: http://…`
/// when a program that was not found looks like `host:port/path` (the
/// scheme left out), else nothing.
fn address_hint(program: &str, source: &std::io::Error) -> String {
    if source.kind() != std::io::ErrorKind::NotFound {
        return String::new();
    }
    let (host, rest) = program.split_once(':').unwrap_or((program, ""));
    let port = rest.split('/').next().unwrap_or("");
    let hostish = !host.is_empty()
        && host
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '.' || c == '-');
    let addressish =
        (!port.is_empty() && port.chars().all(|c| c.is_ascii_digit())) || host == "localhost";
    if hostish && addressish && !program.contains(char::is_whitespace) {
        format!(
            "; is it a server's address? Give the URL with its scheme: http://{}",
            crate::safe_text::display(program)
        )
    } else {
        String::new()
    }
}

/// Why a session failed. Failures of the operating system keep their
/// `io::Error` as the source.
#[derive(Debug, thiserror::Error)]
pub enum McpError {
    /// The server command could not be started (with a hint when the
    /// program looks like a server address without its scheme).
    #[error("could not start the server: {program}: {source}{}", address_hint(.program, .source))]
    Spawn {
        /// The program as given.
        program: String,
        /// The OS error.
        #[source]
        source: std::io::Error,
    },
    /// The connection cannot carry a message (no underlying error: the
    /// connection is closed, the server exited).
    #[error("{0}")]
    Transport(#[from] LinkDown),
    /// `--arg` values that do not fit the tool's `inputSchema` (or that
    /// name no property of it): one sentence each, safe text, the argument
    /// named (`--arg times: "two" is not of type "integer"`). Exit 2, as
    /// any usage error.
    #[error("{}", .0.join("; "))]
    Arguments(Vec<String>),
    /// A message could not be encoded as JSON.
    #[error("{0}")]
    Encode(#[source] serde_json::Error),
    /// The connection is gone; the reason quotes no server text but is
    /// sanitized all the same.
    #[error("{}", crate::safe_text::display(&.0.to_string()))]
    Closed(#[source] transport::Closed),
    /// The connection failed while a request of ours waited for its answer.
    #[error("{source} while waiting for the answer to {method}")]
    Waiting {
        /// The request's method.
        method: String,
        /// Why.
        #[source]
        source: Box<McpError>,
    },
    /// A message could not be delivered: `what` names it (a method), the
    /// source is the transport's error (its text quotes the server, so it is
    /// sanitized when shown).
    #[error("{}", delivery_text(.what, .source))]
    Delivery {
        /// The message that was not delivered.
        what: String,
        /// Why.
        #[source]
        source: transport::TransportError,
    },
    /// The server sent something the protocol forbids.
    #[error("the server broke the protocol: {0}")]
    Protocol(#[from] ProtocolBreak),
    /// The result made for an elicitation is not JSON (an invariant of
    /// the result event; kept typed rather than a panic).
    #[error("the server broke the protocol: result text: {0}")]
    ResultText(#[source] serde_json::Error),
    /// A request could not complete: its rounds could not go on (too many
    /// `input_required` rounds, an input request the client did not
    /// declare or cannot read, a 2026-07-28 result on a 2025-11-25
    /// session). Exit 1.
    #[error("{0}")]
    Incomplete(#[from] Incomplete),
    /// The server answered one of our requests with a JSON-RPC error.
    #[error("{method} failed: JSON-RPC error {code}: {message}")]
    Rpc {
        method: String,
        code: i64,
        /// Sanitized.
        message: String,
        /// The error's `data`, as sent (boxed: it is rarely there).
        data: Option<Box<Value>>,
    },
    /// The responder failed (terminal lost, its thread stopped): exit 2.
    #[error("the responder failed: {0}")]
    Responder(#[source] crate::responder::RespondError),
    /// The shared loop could not run (its runtime or thread did not
    /// start, or it panicked): exit 2.
    #[error("{0}")]
    Run(#[source] crate::session::RunError),
    /// The person asked to quit (Ctrl-C twice): exit 130.
    #[error("the person quit the session")]
    Quit,
    /// The person cancelled the call `method` while it ran (Esc on its
    /// waiting screen): the server was told, the session goes on.
    #[error("the person cancelled {method}")]
    Cancelled {
        /// The request that was cancelled.
        method: String,
    },
    /// A signal (SIGINT, SIGTERM) ended the session: exit 128 + its number.
    #[error("ended by signal {0}")]
    Interrupted(i32),
    /// A signal ended the sign-in waiting for the browser: exit 3, as a
    /// cancelled sign-in.
    #[error("{0}")]
    SignIn(auth::AuthError),
    /// The server did not answer `method` within `limit`
    /// (`--connect-timeout`, as given).
    #[error("no answer to {method} within {} (--connect-timeout)", seconds(.limit))]
    Timeout {
        /// The request (or requests) that got no answer.
        method: String,
        /// The limit.
        limit: Duration,
    },
    /// The server did not answer the call `method` within `limit`
    /// (`--call-timeout`), not counting the time a form or consent screen
    /// was open.
    #[error("no answer to {method} within {} (--call-timeout; the time a form or consent screen was open is not counted)", seconds(.limit))]
    CallTimeout {
        /// The request that got no answer.
        method: String,
        /// The limit.
        limit: Duration,
    },
    /// The answer to our request `method` could not be read (nested too
    /// deep, too large): the request ends at once. `why` is sanitized.
    #[error("the server's answer to {method} cannot be read: {why}")]
    Unreadable {
        /// The request whose answer was lost.
        method: String,
        /// Why (the reader's reason, sanitized).
        why: String,
    },
    /// A stdio server exited before it wrote anything on its stdout (it
    /// crashed at start, or would not take `server/discover`): under
    /// `--protocol auto` it is started once more for the 2025-11-25
    /// handshake, and not again after that. `stderr` is the last
    /// line of its log, as written (sanitized when shown).
    #[error(
        "the server exited with {} before answering {method}{}",
        exit_words(.status),
        .stderr.as_deref().map(|l| format!(" (its last stderr line: {})", crate::safe_text::display(l))).unwrap_or_default()
    )]
    ExitedEarly {
        /// The request it did not answer.
        method: String,
        /// How it ended.
        status: std::process::ExitStatus,
        /// The last line it wrote on stderr, if any.
        stderr: Option<String>,
    },
    /// The server did not take `notifications/initialized` within `secs`
    /// seconds.
    #[error("the server did not take notifications/initialized within {secs} s")]
    NotTaken {
        /// The limit.
        secs: u64,
    },
    /// HTTP: the server ended the session (404); internal, the session
    /// re-initializes once.
    #[error("the server ended the session (HTTP 404)")]
    SessionExpired,
    /// `--events FILE` could not be opened or written.
    #[error("events file: {0}")]
    Events(#[source] std::io::Error),
}

/// What [`McpError::Delivery`] says: `METHOD: WHY`, or for a sign-in that
/// failed on the way, the step it failed at (`signing in to URL: WHY`;
/// a cancelled sign-in as it is) unless the error is about the request
/// itself (a step-up that names it, a refusal after every sign-in). The
/// transport's text quotes the server: sanitized here.
fn delivery_text(what: &str, source: &transport::TransportError) -> String {
    let why = crate::safe_text::display(&source.to_string()).into_owned();
    match source {
        transport::TransportError::Auth(f) if !f.error.about_request() => match f.error {
            auth::AuthError::Cancelled { .. } => why,
            _ => format!(
                "signing in to {}: {why}",
                crate::safe_text::display(&f.mcp_url)
            ),
        },
        _ => format!("{what}: {why}"),
    }
}

/// `s` without the full stop (or stops) it ends with: a server's sentence
/// quoted before more of ours (`…requests; the tool asks…`).
fn without_full_stop(s: &str) -> &str {
    s.trim_end().trim_end_matches('.')
}

/// A duration in seconds as a person reads it: `30 s`, `1.5 s`.
pub(crate) fn seconds(d: &Duration) -> String {
    let s = d.as_secs_f64();
    if s.fract() == 0.0 {
        format!("{s:.0} s")
    } else {
        format!("{} s", (s * 1000.0).round() / 1000.0)
    }
}

/// How a process ended: `status 3`, or `signal 9`.
fn exit_words(status: &std::process::ExitStatus) -> String {
    use std::os::unix::process::ExitStatusExt;
    match (status.code(), status.signal()) {
        (Some(c), _) => format!("status {c}"),
        (None, Some(sig)) => format!("signal {sig}"),
        (None, None) => status.to_string(),
    }
}

/// Run one session: connect in the era `opts.protocol` chooses (MCP
/// 2026-07-28: `server/discover`, then every request with its `_meta`;
/// MCP 2025-11-25: `initialize` with `capabilities.elicitation` from
/// `opts.modes` and `notifications/initialized`), list the tools, call the
/// tool (or get the prompt, or read the resource), and answer every
/// elicitation on the way: pushed `elicitation/create` requests, -32042
/// URL elicitations and the entries of `input_required` rounds. The responder runs on
/// the calling thread; the session on its own thread. Notices for the
/// person (tool list, completions, server log lines) go to stderr through
/// the sanitizer.
///
/// Errors: see [`McpError`]; the connection is closed in every case (a
/// stdio server is ended: stdin closed, SIGTERM, SIGKILL).
pub fn run_session(
    opts: &McpOptions,
    responder: &mut dyn Responder,
) -> Result<SessionReport, McpError> {
    client::run(opts, responder)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A server address given without its scheme is started as a command,
    /// which is not found: the error says how to give it.
    #[test]
    fn an_address_without_its_scheme_gets_a_hint() {
        let not_found = || std::io::Error::from(std::io::ErrorKind::NotFound);
        let said = |program: &str| {
            McpError::Spawn {
                program: program.into(),
                source: not_found(),
            }
            .to_string()
        };
        assert!(
            said("127.0.0.1:41277/mcp")
                .ends_with("; is it a server's address? Give the URL with its scheme: http://127.0.0.1:41277/mcp"),
            "{}",
            said("127.0.0.1:41277/mcp")
        );
        assert!(said("localhost:8000").ends_with("http://localhost:8000"));
        assert!(!said("./server.py").contains("address"));
        assert!(!said("python3").contains("address"));
    }

    fn args(a: &[&str]) -> Vec<String> {
        a.iter().map(|s| s.to_string()).collect()
    }

    /// The server's sentence, quoted before the hint, keeps no full stop
    /// of its own before the semicolon.
    #[test]
    fn the_older_way_error_has_no_stop_before_its_hint() {
        let e = McpError::from(Incomplete::OlderWayOnly {
            call: "tools/call 'book'".into(),
            said: "no back-channel for server-initiated requests.".into(),
        });
        let said = e.to_string();
        assert!(
            said.starts_with("tools/call 'book' failed: JSON-RPC error -32600: no back-channel for server-initiated requests; the tool asks in the MCP 2025-11-25 way"),
            "{said}"
        );
        assert!(!said.contains(".;"), "{said}");
    }

    #[test]
    fn a_delivery_failure_names_the_message_keeps_its_source_and_is_sanitized() {
        use std::error::Error;
        let e = McpError::Delivery {
            what: "notifications/initialized".into(),
            source: transport::TransportError::Refused(transport::Refusal::ContentType {
                status: 500,
                content_type: "\u{1b}[31mboom".into(),
            }),
        };
        let text = e.to_string();
        assert!(
            text.starts_with("notifications/initialized: HTTP 500 with Content-Type '"),
            "{text}"
        );
        assert!(!text.contains('\u{1b}'), "{text:?}");
        let source = e.source().map(|s| s.to_string());
        assert_eq!(
            source.as_deref(),
            Some("HTTP 500 with Content-Type '\u{1b}[31mboom' (expected application/json or text/event-stream)")
        );
    }

    #[test]
    fn connection_failures_keep_their_source_and_the_same_words() {
        use std::error::Error;
        let io = std::io::Error::new(std::io::ErrorKind::BrokenPipe, "pipe \u{1b}[2J");
        let e = McpError::Waiting {
            method: "initialize".into(),
            source: Box::new(McpError::Closed(transport::Closed::Read(io))),
        };
        assert_eq!(
            e.to_string(),
            "reading the server's stdout: pipe \\u{1b}[2J while waiting for the answer to initialize"
        );
        let closed = e.source().expect("the closed connection");
        let read = closed.source().expect("the read error");
        let io = read.source().expect("the OS error");
        assert_eq!(io.to_string(), "pipe \u{1b}[2J");
        let eof = McpError::Waiting {
            method: "tools/list".into(),
            source: Box::new(McpError::Closed(transport::Closed::Eof)),
        };
        assert_eq!(
            eof.to_string(),
            "the server closed its stdout while waiting for the answer to tools/list"
        );
        let t = McpError::Timeout {
            method: "initialize".into(),
            limit: Duration::from_secs(1),
        };
        assert_eq!(
            t.to_string(),
            "no answer to initialize within 1 s (--connect-timeout)"
        );
        let bad = serde_json::from_str::<Value>("{").unwrap_err();
        let r = McpError::ResultText(bad);
        assert!(r
            .to_string()
            .starts_with("the server broke the protocol: result text: "));
        assert!(r.source().is_some());
    }

    #[test]
    fn a_failed_sign_in_is_said_as_its_step_unless_it_is_about_the_request() {
        let failed = |error| McpError::Delivery {
            what: "tools/call".into(),
            source: transport::TransportError::Auth(Box::new(transport::SignInFailed {
                mcp_url: "http://a.example/mcp".into(),
                error,
            })),
        };
        // A step of the sign-in: said as such, not as the request's.
        let e = failed(auth::AuthError::TokenRefused {
            issuer: "http://as.example".into(),
            why: "invalid_grant".into(),
            forgot: false,
        });
        assert_eq!(
            e.to_string(),
            "signing in to http://a.example/mcp: token request to http://as.example failed: invalid_grant"
        );
        // A step-up that names the request, and a refusal after every
        // sign-in: the request's name is kept.
        let e = failed(auth::AuthError::NothingNewToAsk {
            mcp_url: "http://a.example/mcp".into(),
            request: Some(auth::RequestName {
                method: "tools/call".into(),
                tool: Some("admin_reset".into()),
            }),
            asked: vec!["admin".into()],
            why: auth::error::NothingNew::NotGranted,
        });
        assert_eq!(
            e.to_string(),
            "tools/call: http://a.example/mcp refused tools/call admin_reset for lack of access (admin), which was asked for before and not granted: not signing in again"
        );
        let e = failed(auth::AuthError::StillRefused {
            url: "http://a.example/mcp".into(),
            status: 401,
            tries: 3,
            asks: None,
        });
        assert_eq!(
            e.to_string(),
            "tools/call: http://a.example/mcp still refuses the request with HTTP 401 after signing in 3 times"
        );
        // A cancelled sign-in says so once.
        let e = failed(auth::AuthError::Cancelled {
            mcp_url: "http://a.example/mcp".into(),
        });
        assert_eq!(e.to_string(), "sign-in to http://a.example/mcp cancelled");
    }

    #[test]
    fn a_failed_request_stream_is_a_delivery_failure_with_its_source() {
        use std::error::Error;
        let failed = transport::Incoming::Failed {
            id: 3,
            error: transport::TransportError::Read(std::io::Error::other("reset")),
        };
        let transport::Incoming::Failed { error, .. } = failed else {
            panic!("built as Failed");
        };
        let e = McpError::Delivery {
            what: "tools/call".into(),
            source: error,
        };
        assert_eq!(e.to_string(), "tools/call: reading the response: reset");
        let source = e.source().expect("the transport error");
        assert_eq!(
            source.source().map(|s| s.to_string()).as_deref(),
            Some("reset")
        );
        let n = transport::Noise::Failed(transport::TransportError::Refused(
            transport::Refusal::GetRefused(500),
        ));
        assert_eq!(
            n.to_string(),
            "the server refused the GET stream (HTTP 500)"
        );
        assert!(n.source().is_some());
    }

    #[test]
    fn a_tally_counts_all_and_keeps_the_first_sentences() {
        let mut t = Tally::default();
        for i in 0..1000 {
            t.push(format!("refused {i}"));
        }
        assert_eq!(t.len(), 1000);
        assert_eq!(t.kept.len(), Tally::KEPT);
        assert_eq!(t.kept[0], "refused 0");
        assert!(!t.is_empty());
        assert!(Tally::default().is_empty());
    }

    #[test]
    fn reads_the_server_argument() {
        assert_eq!(
            Target::from_args(&args(&["http://127.0.0.1:3001/mcp"])),
            Ok(Target::Http {
                url: "http://127.0.0.1:3001/mcp".into()
            })
        );
        assert_eq!(
            Target::from_args(&args(&["node", "server.js", "--http"])),
            Ok(Target::Stdio {
                program: "node".into(),
                args: args(&["server.js", "--http"])
            })
        );
        assert_eq!(Target::from_args(&[]), Err(TargetError::NoServer));
        assert!(TargetError::NoServer
            .to_string()
            .contains("give the server"));
        let e = Target::from_args(&args(&["https://x.test/mcp", "--action"])).unwrap_err();
        assert_eq!(
            e,
            TargetError::AfterUrl {
                arg: "--action".into()
            }
        );
        assert!(e.to_string().contains("before the URL"));
        let e = Target::from_args(&args(&["http://[bad"])).unwrap_err();
        assert!(matches!(e, TargetError::BadUrl { .. }), "{e:?}");
        assert!(e.to_string().starts_with("bad server URL 'http://[bad': "));
        let e = Target::from_args(&args(&["ftp://x/mcp"])).unwrap_err();
        assert_eq!(
            e.to_string(),
            "'ftp://x/mcp': a server URL starts with http:// or https:// (Streamable HTTP); a command is given after --"
        );
        assert!(matches!(
            Target::from_args(&args(&["./server", "--url", "ws://x"])),
            Ok(Target::Stdio { .. })
        ));
        assert_eq!(Target::Http { url: String::new() }.adapter(), "mcp-http");
    }

    /// The transports build on `transport.rs`, which names neither of them
    /// (no module cycle): the types both need live there.
    #[test]
    fn the_shared_transport_module_names_no_transport() {
        let src = include_str!("transport.rs");
        for (n, line) in src.lines().enumerate() {
            let code = line.split("//").next().unwrap_or("");
            for module in ["http", "stdio"] {
                let path = format!("{module}::");
                let mut rest = code;
                while let Some(at) = rest.find(&path) {
                    let before = &rest[..at];
                    assert!(
                        before.ends_with("ureq::"),
                        "src/mcp/transport.rs:{}: names the {module} transport: {line}",
                        n + 1
                    );
                    rest = &rest[at + path.len()..];
                }
            }
        }
    }
}
