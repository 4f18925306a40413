//! What the two transports share: the [`Transport`] trait the session
//! writes to, the [`Incoming`] items their reader threads put on a channel
//! with the reasons they carry ([`Noise`], [`TransportError`],
//! [`StatusError`], [`OversizedEvent`]), and a bounded line reader. The
//! transports use this module; it uses neither of them.
//!
//! Reading and writing happen on threads (one for a child's stdout, one for
//! its stdin, one per HTTP response stream); they hand items to the session
//! (a tokio task) through a bounded channel ([`INCOMING_CAPACITY`]): a server
//! that floods is slowed down (backpressure), never buffered without bound.
//! [`Transport::send`] never blocks on the server.

use std::io::BufRead;

use tokio::sync::mpsc::Sender;

use serde_json::Value;

use super::McpError;
use crate::binding::limits::MAX_EVENT_BYTES;

/// Bytes in one transport message (a stdio line, an SSE event's data, an
/// HTTP JSON body): the event limit plus room for the JSON-RPC envelope.
pub const MAX_MESSAGE_BYTES: usize = MAX_EVENT_BYTES + 64 * 1024;
/// Items a transport's readers may hand over before they wait for the
/// session to take some.
pub const INCOMING_CAPACITY: usize = 8;

/// One item from a transport's reader.
#[derive(Debug)]
pub enum Incoming {
    /// A parsed JSON value (one JSON-RPC message, not yet classified).
    Message(Value),
    /// Something that is not a message (a non-JSON line, an oversized
    /// message): shown to the person, then skipped.
    Noise(Noise),
    /// A line of the server's own log (a stdio server's stderr), not yet
    /// sanitized. The session prints it between responder calls, so it never
    /// draws over a form on the terminal.
    Log(String),
    /// HTTP: the response stream of the POST carrying request `id` ended.
    StreamEnded { id: u64 },
    /// HTTP: the POST carrying request `id` failed before any answer.
    Failed { id: u64, error: TransportError },
    /// HTTP: the server answered request `id` with 404 for the session:
    /// the session is gone, a new one may be initialized.
    SessionExpired { id: u64 },
    /// The connection is gone (the child closed stdout, a fatal error).
    Closed(Closed),
    /// A message that could not be read (too deep, too large) whose
    /// top-level `id` is `id`: the answer to that request, if it is one of
    /// ours, is lost, so the request ends at once.
    Unreadable { id: u64, noise: Noise },
}

/// Something a transport's reader skipped, and why (the text quotes the
/// server: sanitized when shown).
#[derive(Debug, thiserror::Error)]
pub enum Noise {
    /// A message that does not parse as JSON (or breaks the limits).
    #[error("skipped a message that is not JSON ({source}): {head}")]
    NotJson {
        /// Its first bytes, as text.
        head: String,
        /// Why it was refused.
        #[source]
        source: crate::binding::violation::Violation,
    },
    /// A stdio line over [`MAX_MESSAGE_BYTES`].
    #[error("skipped a line of more than {MAX_MESSAGE_BYTES} bytes on the server's stdout")]
    TooLong,
    /// An SSE event over [`MAX_MESSAGE_BYTES`].
    #[error("{0}")]
    Oversized(#[source] OversizedEvent),
    /// A notification or a response that could not be sent, or a GET
    /// stream that failed: the session goes on.
    #[error("{0}")]
    Failed(#[source] TransportError),
}

/// Why the connection is gone.
#[derive(Debug, thiserror::Error)]
pub enum Closed {
    /// The child closed its stdout.
    #[error("the server closed its stdout")]
    Eof,
    /// Reading the child's stdout failed.
    #[error("reading the server's stdout: {0}")]
    Read(#[source] std::io::Error),
}

/// The sending half of a connection to one MCP server.
pub trait Transport {
    /// Send one JSON-RPC message. `request_id` is the id when the message is
    /// a request of the client (HTTP reads its answer stream on a thread).
    ///
    /// Errors: [`McpError::Transport`] (or [`McpError::Encode`]) when the
    /// message cannot be delivered.
    fn send(&mut self, msg: &Value, request_id: Option<u64>) -> Result<(), McpError>;
    /// Send request `id` with headers of its own (HTTP: the 2026-07-28
    /// request metadata headers; other transports ignore them).
    ///
    /// Errors: as `send`.
    fn send_request(
        &mut self,
        msg: &Value,
        id: u64,
        _headers: Vec<(String, String)>,
    ) -> Result<(), McpError> {
        self.send(msg, Some(id))
    }
    /// MCP 2026-07-28: no session (HTTP keeps no session id, sends no
    /// session headers, and ends with no DELETE).
    fn set_stateless(&mut self) {}
    /// Stop waiting for request `id` the transport's way. Returns true when
    /// the transport itself tells the server (HTTP 2026-07-28: the response
    /// stream is closed), false when the caller must send
    /// `notifications/cancelled` (stdio).
    fn cancel(&mut self, _id: u64) -> bool {
        false
    }
    /// The protocol version agreed in `initialize` (HTTP sends it as the
    /// `MCP-Protocol-Version` header from then on).
    fn set_protocol_version(&mut self, _version: &str) {}
    /// Send a notification that what follows must not overtake. Returns a
    /// receiver that fires when the server took it (HTTP: the 202), or None
    /// when sending in order is enough (stdio, the default).
    ///
    /// Errors: as `send`.
    fn send_ordered(&mut self, msg: &Value) -> Result<Option<Delivered>, McpError> {
        self.send(msg, None).map(|()| None)
    }
    /// Called once after `notifications/initialized`: HTTP opens the GET
    /// stream on which the server sends messages unrelated to a request.
    fn start_listening(&mut self) {}
    /// HTTP: forget the session id the server ended (404), so the next
    /// `initialize` starts a new one.
    fn reset_session(&mut self) {}
    /// Stdio: when the server wrote nothing on its stdout, wait up to
    /// `grace` for it to exit and give its exit status (a server that
    /// crashed at start). None otherwise, and for HTTP.
    fn exited_silent(&mut self, _grace: std::time::Duration) -> Option<std::process::ExitStatus> {
        None
    }
    /// End the connection (stdio: close stdin, wait, SIGTERM, wait,
    /// SIGKILL; HTTP: DELETE the session). Blocks for a bounded time. Safe
    /// to call twice.
    fn close(&mut self);
}

/// What [`deliver`] did with one message's bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Delivery {
    /// The messages (or the noise) are on the channel.
    Handed,
    /// The message could not be read and is on the channel as the lost
    /// answer to request `id` ([`Incoming::Unreadable`]).
    Lost(u64),
    /// The receiver is gone.
    Gone,
}

/// Parse one message's bytes (limits first, [`parse_message`]) and put it
/// on the channel; a JSON array is split into its elements; one that cannot
/// be read but is the answer to a request ([`lost_answer`]; `stream_of`: the
/// client request whose response stream carried it, HTTP) is
/// [`Incoming::Unreadable`].
pub fn deliver(bytes: &[u8], tx: &Sender<Incoming>, stream_of: Option<u64>) -> Delivery {
    let handed = |ok: bool| if ok { Delivery::Handed } else { Delivery::Gone };
    match parse_message(bytes) {
        Ok(Value::Array(items)) => handed(
            items
                .into_iter()
                .all(|v| tx.blocking_send(Incoming::Message(v)).is_ok()),
        ),
        Ok(v) => handed(tx.blocking_send(Incoming::Message(v)).is_ok()),
        Err(e) => {
            let head: String = String::from_utf8_lossy(&bytes[..bytes.len().min(120)]).into();
            let noise = Noise::NotJson { head, source: e };
            match lost_answer(bytes, stream_of) {
                Some(id) => match tx.blocking_send(Incoming::Unreadable { id, noise }) {
                    Ok(()) => Delivery::Lost(id),
                    Err(_) => Delivery::Gone,
                },
                None => handed(tx.blocking_send(Incoming::Noise(noise)).is_ok()),
            }
        }
    }
}

/// Fires when a message sent with [`Transport::send_ordered`] was taken by
/// the server, or with why not.
pub type Delivered = tokio::sync::oneshot::Receiver<Result<(), TransportError>>;

/// Why an HTTP request could not be made, in a person's words where the
/// HTTP client's own are a library's: nothing listening, a host name that
/// does not resolve, a server that does not speak TLS at an `https://`
/// URL; the client's text otherwise.
fn request_failure(e: &ureq::Error) -> String {
    match e {
        ureq::Error::Io(io) if io.kind() == std::io::ErrorKind::ConnectionRefused => {
            "connection refused: nothing listens at that address (is the server running, and is the port right?)".into()
        }
        ureq::Error::Io(io) if io.to_string().contains("InvalidContentType") => {
            "the server does not answer TLS at that address (is the URL http:// rather than https://?)".into()
        }
        ureq::Error::HostNotFound => "the host name does not resolve".into(),
        ureq::Error::Io(io) if io.to_string().contains("failed to lookup address") => {
            "the host name does not resolve".into()
        }
        other => other.to_string(),
    }
}

/// Why the transport could not send a message or read its answer. The
/// messages quote the server (not yet sanitized).
#[derive(Debug, thiserror::Error)]
pub enum TransportError {
    /// The HTTP request could not be made (connection, TLS, timeout).
    #[error("{what}: {}", request_failure(.source))]
    Request {
        /// What was asked (`POST URL`, `GET stream`).
        what: String,
        /// The HTTP client's error.
        #[source]
        source: ureq::Error,
    },
    /// The response body could not be read.
    #[error("reading the response: {0}")]
    Read(#[source] std::io::Error),
    /// HTTP 404 while a session id was in use: the server ended the
    /// session; `body` is the start of the response body, as sent.
    #[error("the server ended the session (HTTP 404): {body}")]
    SessionGone {
        /// The first characters of the body.
        body: String,
    },
    /// The server answered with something this client does not take.
    #[error("{0}")]
    Refused(Refusal),
    /// An HTTP error status without an answer to the request.
    #[error("{0}")]
    Status(StatusError),
    /// HTTP 401 (or 403 `insufficient_scope`) while signing in is on: the
    /// transport asks its authorizer and sends the message again; the
    /// session never sees this one.
    #[error("HTTP {} (a sign-in is needed)", .0.status)]
    Unauthorized(Box<super::auth::Unauthorized>),
    /// Signing in failed or is not possible in this run (exit 3); boxed,
    /// as it is larger than the transport's other errors.
    #[error("{}", .0.error)]
    Auth(Box<SignInFailed>),
}

/// A sign-in that failed while a message waited to be sent: the MCP
/// endpoint signed in to, and why it failed. Said as the step of the
/// sign-in (`signing in to URL: …`), not as a failure of the request it
/// interrupted, unless the error is about that request
/// ([`super::auth::AuthError::about_request`]).
#[derive(Debug)]
pub struct SignInFailed {
    /// The MCP endpoint.
    pub mcp_url: String,
    /// Why signing in failed.
    pub error: super::auth::AuthError,
}

/// An HTTP error answer (4xx, 5xx) that carries no answer to a request:
/// its status, the endpoint, and what the body said in a few words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StatusError {
    /// The HTTP status.
    pub status: u16,
    /// The endpoint URL.
    pub url: String,
    /// What the body said in a few words (the JSON-RPC error it carries,
    /// the first line of a short text, "an HTML page"); for an OAuth error
    /// body (RFC 6750), `error: error_description`.
    pub detail: Option<String>,
    /// What the status means for the person (401: a sign-in is needed).
    pub hint: Option<String>,
}

impl std::fmt::Display for StatusError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let reason = ureq::http::StatusCode::from_u16(self.status)
            .ok()
            .and_then(|s| s.canonical_reason())
            .unwrap_or("");
        write!(f, "HTTP {} {reason}", self.status)?;
        if let Some(d) = &self.detail {
            write!(f, " ({d})")?;
        }
        let path = url::Url::parse(&self.url)
            .map(|u| u.path().to_owned())
            .unwrap_or_default();
        if let Some(h) = &self.hint {
            write!(f, ": {h}")?;
        }
        if matches!(self.status, 404 | 405) {
            write!(f, ": is {path} the server's MCP endpoint?")?;
            // Pointing at /mcp helps only when that is not where it went.
            if path != "/mcp" {
                write!(f, " Most servers serve it at /mcp")?;
            }
        }
        Ok(())
    }
}

/// An SSE event longer than [`MAX_MESSAGE_BYTES`]: it was read to its end
/// and dropped, keeping the first [`TOO_LONG_HEAD`] bytes of its data
/// (where [`lost_answer`] looks for whose answer it was).
#[derive(Clone, PartialEq, Eq, thiserror::Error)]
#[error("skipped an event of more than {} bytes", MAX_MESSAGE_BYTES)]
pub struct OversizedEvent {
    head: Vec<u8>,
}

impl OversizedEvent {
    /// An oversized event whose data began with `head` (cut to
    /// [`TOO_LONG_HEAD`] bytes); empty for an event that is no message.
    pub fn with_head(mut head: Vec<u8>) -> Self {
        head.truncate(TOO_LONG_HEAD);
        OversizedEvent { head }
    }

    /// The first bytes of its data.
    pub fn head(&self) -> &[u8] {
        &self.head
    }
}

impl std::fmt::Debug for OversizedEvent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OversizedEvent")
            .field("head_bytes", &self.head.len())
            .finish()
    }
}

/// What the server answered that this client does not take over HTTP
/// (texts as sent: sanitized when shown).
#[derive(Debug, thiserror::Error)]
pub enum Refusal {
    /// A redirect to `to` (the Location header's start).
    #[error("the server answered HTTP {status} redirecting to {to}: redirects are not followed (give the final URL)")]
    Redirect {
        /// The status.
        status: u16,
        /// Where to.
        to: String,
    },
    /// A content type that is neither JSON nor an event stream.
    #[error("HTTP {status} with Content-Type '{content_type}' (expected application/json or text/event-stream)")]
    ContentType {
        /// The status.
        status: u16,
        /// The Content-Type given.
        content_type: String,
    },
    /// A broken stream that cannot be resumed: the server has no GET
    /// stream (HTTP 405).
    #[error("the stream broke and the server offers no GET stream to resume it (HTTP 405)")]
    NoResume,
    /// The GET stream was refused with this status.
    #[error("the server refused the GET stream (HTTP {0})")]
    GetRefused(u16),
}

/// How a bounded line read ended.
#[derive(Debug, PartialEq, Eq)]
pub enum Line {
    /// A line (without its terminator) is in the buffer.
    Text,
    /// The line was longer than the limit; it was consumed and dropped.
    TooLong,
    /// End of input with nothing read.
    Eof,
}

/// Read one line ended by `\n`, `\r\n` or a lone `\r` into `buf` (cleared
/// first), keeping at most `limit` bytes; a longer line is consumed up to
/// its end and reported as [`Line::TooLong`], with its first
/// [`TOO_LONG_HEAD`] bytes left in `buf` (where a message's `id` is found).
///
/// `pending_cr` carries a `\r` seen at the end of the previous line so that
/// a following `\n` is not read as an empty line.
pub fn read_line(
    r: &mut impl BufRead,
    buf: &mut Vec<u8>,
    limit: usize,
    pending_cr: &mut bool,
) -> std::io::Result<Line> {
    buf.clear();
    let mut too_long = false;
    let mut any = false;
    loop {
        let chunk = r.fill_buf()?;
        if chunk.is_empty() {
            return Ok(if too_long {
                Line::TooLong
            } else if any {
                Line::Text
            } else {
                Line::Eof
            });
        }
        let mut start = 0;
        if *pending_cr {
            *pending_cr = false;
            if chunk[0] == b'\n' {
                start = 1;
            }
        }
        let rest = &chunk[start..];
        match rest.iter().position(|&b| b == b'\n' || b == b'\r') {
            Some(i) => {
                if !too_long && buf.len() + i <= limit {
                    buf.extend_from_slice(&rest[..i]);
                } else {
                    keep_head(buf, &rest[..i], too_long);
                    too_long = true;
                }
                *pending_cr = rest[i] == b'\r';
                r.consume(start + i + 1);
                return Ok(if too_long { Line::TooLong } else { Line::Text });
            }
            None => {
                let n = rest.len();
                if n > 0 {
                    any = true;
                }
                if !too_long && buf.len() + n <= limit {
                    buf.extend_from_slice(rest);
                } else {
                    keep_head(buf, rest, too_long);
                    too_long = true;
                }
                r.consume(start + n);
            }
        }
    }
}

/// Bytes of a too long line kept for a look at its start.
pub const TOO_LONG_HEAD: usize = 64 * 1024;

/// A line went over its limit: keep only its first [`TOO_LONG_HEAD`] bytes
/// (`more` follows what `buf` holds; `already`: the line was over before).
fn keep_head(buf: &mut Vec<u8>, more: &[u8], already: bool) {
    if !already {
        buf.truncate(TOO_LONG_HEAD);
    }
    let room = TOO_LONG_HEAD.saturating_sub(buf.len());
    buf.extend_from_slice(&more[..more.len().min(room)]);
}

/// Bytes of one MCP message kept for the look at its top-level `id`.
const ID_SCAN: usize = TOO_LONG_HEAD;

/// What the first bytes of a message that could not be read show at its
/// top level.
#[derive(Debug, Default, PartialEq, Eq)]
struct TopLevel {
    /// Its integer `"id"`, when one is there.
    id: Option<u64>,
    /// A `"method"` key is there: a request or a notification, no answer.
    method: bool,
}

/// Scan the first [`ID_SCAN`] bytes of a JSON-RPC message that could not be
/// read (too deep, too large, cut) for its top-level `"id"` and `"method"`
/// keys, skipping strings and nested values.
fn scan_top_level(bytes: &[u8]) -> TopLevel {
    let bytes = &bytes[..bytes.len().min(ID_SCAN)];
    let mut found = TopLevel::default();
    let (mut depth, mut i) = (0usize, 0usize);
    while i < bytes.len() {
        match bytes[i] {
            b'"' => {
                let start = i + 1;
                i = start;
                while i < bytes.len() && bytes[i] != b'"' {
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
                let Some(key) = bytes.get(start..i) else {
                    break;
                };
                i += 1;
                // A key is followed by a colon; a string value is not.
                let value = bytes
                    .get(i..)
                    .and_then(|r| r.trim_ascii_start().strip_prefix(b":"));
                match (depth, key, value) {
                    (1, b"method", Some(_)) => found.method = true,
                    (1, b"id", Some(v)) if found.id.is_none() => {
                        let v = v.trim_ascii_start();
                        let digits = v.iter().take_while(|b| b.is_ascii_digit()).count();
                        found.id = std::str::from_utf8(&v[..digits])
                            .ok()
                            .and_then(|d| d.parse().ok());
                    }
                    _ => {}
                }
            }
            b'{' | b'[' => {
                depth += 1;
                i += 1;
            }
            b'}' | b']' => {
                depth = depth.saturating_sub(1);
                i += 1;
            }
            _ => i += 1,
        }
    }
    found
}

/// Which request a message that could not be read answered, from its first
/// bytes: its top-level integer `"id"`, unless a `"method"` shows it is
/// the server's own request or notification. On the response stream of
/// client request `stream_of` (HTTP), an object whose first bytes show
/// neither key is that request's answer: the stream carries nothing else
/// without a method, and the `id` may come after the part that was kept.
/// None: nothing to end.
pub fn lost_answer(head: &[u8], stream_of: Option<u64>) -> Option<u64> {
    let top = scan_top_level(head);
    if top.method {
        return None;
    }
    top.id
        .or_else(|| stream_of.filter(|_| head.trim_ascii_start().starts_with(b"{")))
}

/// Deepest nesting of an MCP message this client reads (serde_json's own
/// limit): deeper than an AHP event may be, since a tool's structured
/// result sits inside the JSON-RPC envelope.
pub const MAX_MESSAGE_DEPTH: usize = 128;

/// Parse one MCP message: at most [`MAX_MESSAGE_BYTES`] and
/// [`MAX_MESSAGE_DEPTH`] (checked before parsing), UTF-8, JSON.
///
/// Errors: a violation at the root naming the limit, or the parser's
/// reason.
pub fn parse_message(bytes: &[u8]) -> Result<Value, crate::binding::violation::Violation> {
    use crate::binding::violation::{Rule, Violation};
    if bytes.len() > MAX_MESSAGE_BYTES {
        return Err(Violation::new(
            "",
            Rule::Limits,
            format!(
                "{} bytes exceed the limit of {MAX_MESSAGE_BYTES} bytes per message",
                bytes.len()
            ),
        ));
    }
    let depth = crate::binding::limits::json_depth(bytes);
    if depth > MAX_MESSAGE_DEPTH {
        return Err(Violation::new(
            "",
            Rule::Limits,
            format!("nesting depth {depth} exceeds the limit of {MAX_MESSAGE_DEPTH}"),
        ));
    }
    let text = std::str::from_utf8(bytes)
        .map_err(|e| Violation::new("", Rule::Json, format!("not UTF-8: {e}")))?;
    serde_json::from_str(text).map_err(|e| Violation::new("", Rule::Json, format!("not JSON: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A request that could not be made says why in a person's words,
    /// with the way out, where the HTTP client's own words are a library's.
    #[test]
    fn a_failed_request_says_why_in_words() {
        let said = |e: ureq::Error| {
            TransportError::Request {
                what: "POST https://h/mcp".into(),
                source: e,
            }
            .to_string()
        };
        let refused = std::io::Error::from(std::io::ErrorKind::ConnectionRefused);
        assert_eq!(
            said(ureq::Error::Io(refused)),
            "POST https://h/mcp: connection refused: nothing listens at that address (is the server running, and is the port right?)"
        );
        let tls = std::io::Error::other("received corrupt message of type InvalidContentType");
        assert_eq!(
            said(ureq::Error::Io(tls)),
            "POST https://h/mcp: the server does not answer TLS at that address (is the URL http:// rather than https://?)"
        );
        assert_eq!(
            said(ureq::Error::HostNotFound),
            "POST https://h/mcp: the host name does not resolve"
        );
    }
    use std::io::Cursor;

    #[test]
    fn finds_the_top_level_id_of_an_unreadable_message() {
        let deep = format!(
            "{{\"jsonrpc\":\"2.0\",\"id\": 7,\"result\":{}1{}}}",
            "[".repeat(300),
            "]".repeat(300)
        );
        assert_eq!(lost_answer(deep.as_bytes(), None), Some(7));
        let later = br#"{"result":{"id":1,"s":"\"id\":2"},"id":3}"#;
        assert_eq!(lost_answer(later, None), Some(3));
        // A string value "id" is no key.
        assert_eq!(lost_answer(br#"{"x":"id","id":5}"#, None), Some(5));
        assert_eq!(
            lost_answer(br#"{"method":"x","params":{"id":4}}"#, None),
            None
        );
        assert_eq!(lost_answer(br#"{"id":"abc"}"#, None), None);
        // The server's own request is no answer, even with an id.
        let request = br#"{"jsonrpc":"2.0","id":3,"method":"elicitation/create","params":{"#;
        assert_eq!(lost_answer(request, Some(3)), None);
        // On the stream of request 9: an object whose id is not in its
        // first bytes is request 9's answer; text that is no object is not.
        let cut = br#"{"jsonrpc":"2.0","result":{"content":[{"text":"xxxx"#;
        assert_eq!(lost_answer(cut, Some(9)), Some(9));
        assert_eq!(lost_answer(cut, None), None);
        assert_eq!(lost_answer(b"not json", Some(9)), None);
        assert!(parse_message(deep.as_bytes()).is_err());
        let ok = format!(
            "{{\"id\":1,\"result\":{}1{}}}",
            "[".repeat(70),
            "]".repeat(70)
        );
        assert!(parse_message(ok.as_bytes()).is_ok());
    }

    fn lines(input: &[u8], limit: usize) -> Vec<(Line, String)> {
        let mut r = std::io::BufReader::with_capacity(4, Cursor::new(input.to_vec()));
        let (mut buf, mut cr, mut out) = (Vec::new(), false, Vec::new());
        loop {
            let l = read_line(&mut r, &mut buf, limit, &mut cr).unwrap();
            if l == Line::Eof {
                return out;
            }
            out.push((l, String::from_utf8_lossy(&buf).into_owned()));
        }
    }

    #[test]
    fn splits_on_every_line_ending() {
        let got = lines(b"ab\ncd\r\nef\rgh", 100);
        let want: Vec<(Line, String)> = ["ab", "cd", "ef", "gh"]
            .iter()
            .map(|s| (Line::Text, s.to_string()))
            .collect();
        assert_eq!(got, want);
        // An empty line between two line feeds is kept.
        assert_eq!(
            lines(b"a\n\nb\n", 100),
            vec![
                (Line::Text, "a".into()),
                (Line::Text, "".into()),
                (Line::Text, "b".into())
            ]
        );
    }

    #[test]
    fn drops_a_line_over_the_limit_and_goes_on() {
        let got = lines(b"0123456789\nok\n", 5);
        assert_eq!(got[0].0, Line::TooLong);
        assert_eq!(got[1], (Line::Text, "ok".into()));
        assert_eq!(got.len(), 2);
    }

    #[test]
    fn delivers_values_splits_arrays_and_reports_noise() {
        let (tx, mut rx) = tokio::sync::mpsc::channel(8);
        assert_eq!(deliver(br#"{"a":1}"#, &tx, None), Delivery::Handed);
        assert_eq!(
            deliver(br#"[{"b":1},{"c":2}]"#, &tx, None),
            Delivery::Handed
        );
        assert_eq!(deliver(b"not json", &tx, Some(4)), Delivery::Handed);
        let deep = format!("{{\"result\":{}1{}}}", "[".repeat(200), "]".repeat(200));
        assert_eq!(deliver(deep.as_bytes(), &tx, Some(4)), Delivery::Lost(4));
        drop(tx);
        let mut got = Vec::new();
        while let Some(i) = rx.blocking_recv() {
            got.push(i);
        }
        assert!(matches!(&got[0], Incoming::Message(v) if *v == serde_json::json!({"a":1})));
        assert!(matches!(&got[2], Incoming::Message(v) if *v == serde_json::json!({"c":2})));
        match &got[3] {
            Incoming::Noise(n @ Noise::NotJson { .. }) => {
                use std::error::Error;
                let m = n.to_string();
                assert!(m.contains("not JSON") && m.contains("not json"), "{m}");
                assert!(n.source().is_some());
            }
            other => panic!("expected noise, got {other:?}"),
        }
        match &got[4] {
            Incoming::Unreadable { id, noise } => {
                assert_eq!(*id, 4);
                assert!(noise.to_string().contains("nesting depth 201"), "{noise}");
            }
            other => panic!("expected the lost answer, got {other:?}"),
        }
        assert_eq!(got.len(), 5);
    }
}
