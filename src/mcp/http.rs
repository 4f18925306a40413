//! The Streamable HTTP transport, on `ureq` (blocking, on threads; the
//! session never waits on it), for both protocol eras.
//!
//! Every client message is a POST to the endpoint URL with
//! `Content-Type: application/json` and `Accept: application/json,
//! text/event-stream`, the `--header` headers and the headers the session
//! gives with a request (MCP 2026-07-28: `MCP-Protocol-Version`,
//! `Mcp-Method`, `Mcp-Name`, `Mcp-Param-*`). The answer to a request is
//! either one JSON body or an SSE stream (`text/event-stream`) on which the
//! server may also send notifications and (2025-11-25) its own requests
//! before the response. Requests are POSTed on a thread each; responses and
//! notifications go through one sender thread in order. A request the
//! session stops waiting for (2026-07-28) has its stream closed: the reader
//! delivers nothing more from it.
//!
//! The MCP 2025-11-25 session (its id, the GET stream, resumption with
//! `Last-Event-ID`, DELETE at the end) lives in [`legacy`]; a stateless
//! (2026-07-28) connection uses none of it.
//!
//! An error status without an answer is one [`StatusError`] (status,
//! reason, a few words of the body, a hint about the endpoint path).
//!
//! Hygiene: redirects are never followed (a 3xx is an error naming the
//! target), connect timeout [`CONNECT_TIMEOUT`], between-bytes timeout
//! [`READ_IDLE_TIMEOUT`].

use std::io::{BufRead, BufReader, Read};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc as smpsc;
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::Duration;

use serde_json::{json, Value};
use tokio::sync::mpsc::Sender;

use super::auth::challenge::BearerChallenge;
use super::auth::flow::oauth_error;
use super::auth::{AuthError, Authorizer, RequestName, Unauthorized};
use super::transport::{
    deliver, lost_answer, read_line, Delivered, Delivery, Incoming, Line, Noise, OversizedEvent,
    Refusal, StatusError, Transport, TransportError, MAX_MESSAGE_BYTES, TOO_LONG_HEAD,
};
use super::{LinkDown, McpError};

mod legacy;
mod tcp;

/// Bytes of an error body that are read and shown.
const MAX_ERROR_BODY: u64 = 64 * 1024;
/// Connecting to the server (TCP and TLS).
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
/// Most time between two reads of a response (headers or body).
pub const READ_IDLE_TIMEOUT: Duration = Duration::from_secs(300);
/// How long a notification or a response POST may take in all.
const SEND_TIMEOUT: Duration = Duration::from_secs(30);

#[derive(Debug, Default)]
struct State {
    session_id: Option<String>,
    protocol_version: Option<String>,
    /// MCP 2026-07-28: no session ids are kept (the request headers come
    /// with each request).
    stateless: bool,
    /// Requests whose answer is no longer wanted: their stream is closed at
    /// the next message.
    cancelled: std::collections::HashSet<u64>,
}

/// Headers given with `--header`: added to every HTTP request. Their
/// values never appear in a notice, an error or a log (`Debug` shows the
/// names only).
#[derive(Clone, Default)]
pub struct ExtraHeaders(pub Vec<(String, String)>);

impl std::fmt::Debug for ExtraHeaders {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let names: Vec<String> = self
            .0
            .iter()
            .map(|(k, _)| format!("{k}: (hidden)"))
            .collect();
        f.debug_tuple("ExtraHeaders").field(&names).finish()
    }
}

/// What the threads share.
struct Shared {
    agent: ureq::Agent,
    url: String,
    state: Mutex<State>,
    tx: Sender<Incoming>,
    closed: AtomicBool,
    extra: ExtraHeaders,
    /// OAuth sign-in: the bearer token on every request, and what a 401
    /// or a 403 `insufficient_scope` does. None: a 401 ends the request.
    auth: Option<Arc<Authorizer>>,
}

/// A connection to a Streamable HTTP MCP endpoint.
pub struct HttpTransport {
    shared: Arc<Shared>,
    fifo: Option<smpsc::Sender<Queued>>,
}

/// A message for the sender thread, with who waits for its delivery.
type Queued = (
    Vec<u8>,
    Option<tokio::sync::oneshot::Sender<Result<(), TransportError>>>,
);

impl HttpTransport {
    /// A transport for the endpoint `url` (`http://` or `https://`),
    /// adding `extra` to every request, and signing in with `auth` when the
    /// server asks (401, 403 `insufficient_scope`): the request is sent
    /// again with the new token (at most [`MAX_AUTH_RETRIES`] times).
    /// Nothing is sent until the first message. Messages go to `tx`.
    pub fn with_auth(
        url: &str,
        tx: Sender<Incoming>,
        extra: ExtraHeaders,
        auth: Option<Arc<Authorizer>>,
    ) -> Self {
        let mut config = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .max_redirects(0)
            .timeout_connect(Some(CONNECT_TIMEOUT))
            .timeout_per_read(Some(READ_IDLE_TIMEOUT))
            .user_agent(concat!("ahp-elicit/", env!("CARGO_PKG_VERSION")));
        // A server on this machine is reached directly, never through a
        // proxy (`HTTP_PROXY`): what it is sent (a token, a header) stays on
        // this machine.
        if url::Url::parse(url).is_ok_and(|u| super::auth::discovery::resolves_home(&u)) {
            config = config.proxy(None);
        }
        let agent = tcp::agent(config.build());
        let shared = Arc::new(Shared {
            agent,
            url: url.to_owned(),
            state: Mutex::new(State::default()),
            tx,
            closed: AtomicBool::new(false),
            extra,
            auth,
        });
        let (ftx, frx) = smpsc::channel::<Queued>();
        let sh = Arc::clone(&shared);
        thread::spawn(move || {
            for (body, done) in frx {
                let out = with_sign_in(&sh, &body, || post_and_read(&sh, &body, &[], SEND_TIMEOUT));
                match (done, out) {
                    (Some(d), out) => {
                        let _ = d.send(out);
                    }
                    (None, Err(e)) => {
                        if sh
                            .tx
                            .blocking_send(Incoming::Noise(Noise::Failed(e)))
                            .is_err()
                        {
                            return;
                        }
                    }
                    (None, Ok(())) => {}
                }
            }
        });
        HttpTransport {
            shared,
            fifo: Some(ftx),
        }
    }
}

/// Headers every POST (and the GET and the final DELETE) carries: those of
/// `--header`, the sign-in's (its token; with a DPoP-bound one, a fresh
/// proof for `method` to the endpoint), then the session's.
fn session_headers(sh: &Shared, method: &str) -> Vec<(String, String)> {
    let mut h: Vec<(String, String)> = sh.extra.0.clone();
    if let Some(a) = &sh.auth {
        h.extend(a.headers_for(method, &sh.url).1);
    }
    if let Ok(s) = sh.state.lock() {
        if let Some(id) = &s.session_id {
            h.push(("Mcp-Session-Id".into(), id.clone()));
        }
        if let Some(v) = &s.protocol_version {
            h.push(("MCP-Protocol-Version".into(), v.clone()));
        }
    }
    h
}

/// Whether the client gave up waiting for request `id`.
fn is_cancelled(sh: &Shared, id: u64) -> bool {
    sh.state
        .lock()
        .map(|s| s.cancelled.contains(&id))
        .unwrap_or(false)
}

/// Why a POST or GET gave no (more) messages.
type HttpFail = TransportError;

/// What one SSE stream left behind.
#[derive(Debug, Default, Clone)]
struct StreamMark {
    last_id: Option<String>,
    retry: Option<Duration>,
    /// The response to the request the stream belongs to was seen.
    answered: bool,
}

/// POST `body` with the session headers and `headers` (the request's own;
/// one of them replaces a session header of the same name).
fn post(
    sh: &Shared,
    body: &[u8],
    headers: &[(String, String)],
    total: Option<Duration>,
) -> Result<ureq::http::Response<ureq::Body>, HttpFail> {
    let mut rb = sh
        .agent
        .post(&sh.url)
        .config()
        .timeout_global(total)
        .build()
        .header("Content-Type", "application/json")
        .header("Accept", "application/json, text/event-stream");
    for (k, v) in session_headers(sh, "POST") {
        if !headers.iter().any(|(n, _)| n.eq_ignore_ascii_case(&k)) {
            rb = rb.header(k, v);
        }
    }
    for (k, v) in headers {
        rb = rb.header(k, v);
    }
    rb.send(body).map_err(|source| HttpFail::Request {
        what: format!("POST {}", sh.url),
        source,
    })
}

/// POST a notification or response and read what comes back.
fn post_and_read(
    sh: &Shared,
    body: &[u8],
    headers: &[(String, String)],
    total: Duration,
) -> Result<(), HttpFail> {
    let resp = post(sh, body, headers, Some(total))?;
    handle_response(resp, sh, None).map(|_| ())
}

/// A non-2xx answer: a JSON-RPC error in the body is delivered as the
/// answer; otherwise a sentence (3xx names its target, 404 with a session
/// Where a redirect answer points (its `Location`, cut to 300
/// characters), for the refusal that names it.
fn redirect_target(resp: &ureq::http::Response<ureq::Body>) -> String {
    resp.headers()
        .get("location")
        .and_then(|v| v.to_str().ok())
        .unwrap_or("(no Location)")
        .chars()
        .take(300)
        .collect()
}

/// is [`HttpFail::SessionGone`]). `request` is the id of the client's
/// request the answer is to: a 2026-07-28 error that ends the run (-32020,
/// -32021) sent with `"id": null` is its answer.
fn handle_error_status(
    resp: ureq::http::Response<ureq::Body>,
    sh: &Shared,
    ctype: &str,
    request: Option<u64>,
) -> Result<StreamMark, HttpFail> {
    let status = resp.status().as_u16();
    note_dpop_nonce(sh, &resp);
    if (300..400).contains(&status) {
        let to = redirect_target(&resp);
        return Err(HttpFail::Refused(Refusal::Redirect { status, to }));
    }
    let had_session = legacy::has_session(&sh.state);
    let challenge = if matches!(status, 401 | 403) {
        BearerChallenge::from_headers(
            resp.headers()
                .get_all("www-authenticate")
                .iter()
                .map(|v| v.as_bytes()),
        )
    } else {
        None
    };
    let wants_sign_in = status == 401
        || (status == 403 && challenge.as_ref().is_some_and(|c| c.insufficient_scope()));
    let mut head = Vec::new();
    let _ = resp
        .into_body()
        .into_with_config()
        .limit(MAX_ERROR_BODY)
        .reader()
        .read_to_end(&mut head);
    if status == 404 && had_session {
        let text: String = String::from_utf8_lossy(&head).chars().take(300).collect();
        return Err(HttpFail::SessionGone { body: text });
    }
    // A server error answered to a token an earlier run stored: taken
    // (once a run) as a refusal of it, and signed in again.
    let stale = status >= 500 && sh.auth.as_ref().is_some_and(|a| a.stored_token_failed());
    if (wants_sign_in || stale) && sh.auth.is_some() {
        return Err(HttpFail::Unauthorized(Box::new(Unauthorized {
            status,
            challenge,
            ..Unauthorized::default()
        })));
    }
    let asks = challenge.as_ref().and_then(|c| scope_words(c, status));
    // An OAuth error body (RFC 6749 §5.2, RFC 6750 §3.1: `error` is a
    // string): read as such, never as JSON-RPC.
    if let Some(e) = oauth_status(sh, status, &head, asks.as_deref()) {
        return Err(HttpFail::Status(e));
    }
    // A JSON-RPC error in the body says more than the status; the words
    // for a 2026-07-28 error code (-32021 names the capabilities) too.
    let mut rpc: Option<(i64, String)> = None;
    let mut explained = None;
    if ctype.starts_with("application/json") {
        if let Ok(mut v) = serde_json::from_slice::<Value>(&head) {
            let ends_the_run = rpc_error(&v).is_some_and(|(code, _)| {
                code == super::request_meta::HEADER_MISMATCH
                    || code == super::request_meta::MISSING_CAPABILITY
            });
            if let (Some(id), true, Some(Value::Null)) = (request, ends_the_run, v.get("id")) {
                v["id"] = Value::from(id);
            }
            if v.get("error").is_some() && v.get("id").is_some_and(|i| !i.is_null()) {
                let _ = sh.tx.blocking_send(Incoming::Message(v));
                return Ok(StreamMark {
                    answered: true,
                    ..StreamMark::default()
                });
            }
            rpc = rpc_error(&v);
            explained = rpc.as_ref().and_then(|(code, _)| {
                super::request_meta::explain(*code, v.get("error").and_then(|e| e.get("data")))
            });
        }
    }
    Err(HttpFail::Status(StatusError {
        status,
        url: sh.url.clone(),
        detail: error_detail(ctype, &head, rpc),
        hint: match status {
            401 => Some("the server needs a sign-in".into()),
            403 => Some(format!(
                "the server refused access{}",
                asks.map(|a| format!("; {a}")).unwrap_or_default()
            )),
            _ => explained.or_else(|| stored_sign_in_hint(sh, status)),
        },
    }))
}

/// Keeps the `DPoP-Nonce` an answer of the server carried, for the next
/// proofs to it (RFC 9449 §9).
fn note_dpop_nonce(sh: &Shared, resp: &ureq::http::Response<ureq::Body>) {
    if let (Some(a), Some(n)) = (&sh.auth, resp.headers().get("dpop-nonce")) {
        a.note_dpop_nonce(&sh.url, Some(n.as_bytes()));
    }
}

/// For a 403 whose challenge names the scope it wants (RFC 6750 §3.1
/// `insufficient_scope`): `the server asks for scope A B`, cut to 200
/// characters. None for another status or no scope named.
fn scope_words(c: &BearerChallenge, status: u16) -> Option<String> {
    let scopes = c
        .scope
        .as_ref()
        .filter(|s| status == 403 && !s.is_empty())?;
    let words: String = scopes.join(" ").chars().take(200).collect();
    Some(format!("the server asks for scope {words}"))
}

/// An error status whose body is an OAuth error (RFC 6749 §5.2, RFC 6750
/// §3.1): its `error` and `error_description`, and what the status means
/// here. None when the body is not one.
/// `asks` is what the challenge asks for ([`scope_words`]), said after a
/// 403's hint.
fn oauth_status(sh: &Shared, status: u16, head: &[u8], asks: Option<&str>) -> Option<StatusError> {
    let (error, description) = oauth_error(head)?;
    let brought = sh
        .extra
        .0
        .iter()
        .any(|(k, _)| k.eq_ignore_ascii_case("authorization"));
    let hint = match status {
        403 => Some(format!(
            "the token does not allow this{}",
            asks.map(|a| format!("; {a}")).unwrap_or_default()
        )),
        401 if brought => {
            Some("the Authorization header given with --header was refused".to_owned())
        }
        401 => Some("the server needs a sign-in".to_owned()),
        _ => stored_sign_in_hint(sh, status),
    };
    Some(StatusError {
        status,
        url: sh.url.clone(),
        detail: Some(match description {
            Some(d) => format!("{error}: {d}"),
            None => error,
        }),
        hint,
    })
}

/// For a server error (5xx) answered to a request that carried a token an
/// earlier run stored: that it was sent and how to clear it.
fn stored_sign_in_hint(sh: &Shared, status: u16) -> Option<String> {
    if status < 500 {
        return None;
    }
    sh.auth.as_ref()?.stored_sign_in_hint()
}

/// What an error answer's body says, in a few words: the JSON-RPC error it
/// carries (without id), the first line of a short plain-text body, "an
/// HTML page", or nothing. Never the page itself.
fn error_detail(ctype: &str, body: &[u8], rpc: Option<(i64, String)>) -> Option<String> {
    if let Some((code, msg)) = rpc {
        return Some(format!("JSON-RPC error {code}: {msg}"));
    }
    let text = String::from_utf8_lossy(body);
    let trimmed = text.trim_start();
    let lower: String = trimmed
        .chars()
        .take(20)
        .collect::<String>()
        .to_ascii_lowercase();
    if ctype.starts_with("text/html")
        || lower.starts_with("<!doctype")
        || lower.starts_with("<html")
    {
        return Some("an HTML page".into());
    }
    let first = trimmed.lines().next().unwrap_or("").trim();
    if first.is_empty() {
        return None;
    }
    let mut line: String = first.chars().take(120).collect();
    if first.chars().count() > 120 {
        line.push('…');
    }
    Some(format!("\"{line}\""))
}

/// Why an answer to `auth login`'s probe is not an MCP server's: what
/// `mcp` says of the same answer, after the request it was about
/// (`server/discover: HTTP 404 …`). Quotes the server (not yet sanitized).
#[cfg(feature = "cli")]
#[derive(Debug, thiserror::Error)]
pub(crate) enum NotMcp {
    /// A redirect, or a content type that is neither JSON nor an event
    /// stream.
    #[error("{method}: {refusal}")]
    Refused {
        /// The request probed with.
        method: String,
        /// What the transport refuses.
        refusal: Refusal,
    },
    /// An HTTP error status with a few words of its body (and, for 404 and
    /// 405, the endpoint hint).
    #[error("{method}: {status}")]
    Status {
        /// The request probed with.
        method: String,
        /// The status, the endpoint and what the body said.
        status: StatusError,
    },
    /// The body could not be read.
    #[error("{method}: {source}")]
    Read {
        /// The request probed with.
        method: String,
        /// The read error.
        #[source]
        source: TransportError,
    },
    /// A body that is not JSON or not JSON-RPC, or no answer at all.
    #[error("{0}")]
    Session(#[source] McpError),
}

/// Whether the answer to `method`, POSTed to `url` without a token and not
/// asking for a sign-in, came from an MCP server: `auth login`'s probe.
/// Ok when its body is a JSON-RPC message (a 2xx JSON body or the first
/// event of an event stream; at any status, a JSON-RPC error, which a
/// server without a session gives).
///
/// Errors: what `mcp` says for the same answer ([`NotMcp`]): a redirect,
/// an HTTP error status with a few words of its body and, for 404 and 405,
/// the endpoint hint ([`StatusError`]), a content type that is neither
/// JSON nor an event stream, a body that is not JSON or not JSON-RPC, no
/// answer at all.
#[cfg(feature = "cli")]
pub(crate) fn mcp_answer(
    resp: ureq::http::Response<ureq::Body>,
    url: &str,
    method: &str,
) -> Result<(), NotMcp> {
    let status = resp.status().as_u16();
    let ctype = resp
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_ascii_lowercase();
    let refused = |refusal| NotMcp::Refused {
        method: method.to_owned(),
        refusal,
    };
    if (300..400).contains(&status) {
        let to = redirect_target(&resp);
        return Err(refused(Refusal::Redirect { status, to }));
    }
    if !(200..300).contains(&status) {
        return error_status_answer(resp, url, method, status, &ctype);
    }
    let body = if ctype.starts_with("text/event-stream") || ctype.starts_with("application/json") {
        answer_body(resp, method, &ctype)?
    } else if status == 202 || status == 204 {
        return Err(no_answer(method));
    } else {
        return Err(refused(Refusal::ContentType {
            status,
            content_type: ctype,
        }));
    };
    let unreadable = |why: &dyn std::fmt::Display| {
        NotMcp::Session(McpError::Unreadable {
            method: method.to_owned(),
            why: why.to_string(),
        })
    };
    let v = super::transport::parse_message(&body).map_err(|source| {
        let head = String::from_utf8_lossy(&body[..body.len().min(120)]).into();
        unreadable(&Noise::NotJson { head, source })
    })?;
    let first = match v {
        Value::Array(mut items) if !items.is_empty() => items.swap_remove(0),
        v => v,
    };
    super::jsonrpc::classify(first)
        .map(|_| ())
        .map_err(|e| unreadable(&e))
}

/// No answer came to the probe `method` (an empty stream, 202, 204).
#[cfg(feature = "cli")]
fn no_answer(method: &str) -> NotMcp {
    NotMcp::Session(McpError::from(LinkDown::StreamEnded(method.to_owned())))
}

/// [`mcp_answer`] for an HTTP error `status`: a JSON-RPC error in its body
/// is an MCP server's (one without a session gives it); anything else is
/// the status with a few words of its body.
#[cfg(feature = "cli")]
fn error_status_answer(
    resp: ureq::http::Response<ureq::Body>,
    url: &str,
    method: &str,
    status: u16,
    ctype: &str,
) -> Result<(), NotMcp> {
    let mut head = Vec::new();
    let _ = resp
        .into_body()
        .into_with_config()
        .limit(MAX_ERROR_BODY)
        .reader()
        .read_to_end(&mut head);
    let v = serde_json::from_slice::<Value>(&head).ok();
    let is_rpc_error = v.clone().map(super::jsonrpc::classify).is_some_and(|m| {
        matches!(
            m,
            Ok(super::jsonrpc::Message::Response {
                outcome: Err(_),
                ..
            })
        )
    });
    if is_rpc_error {
        return Ok(());
    }
    let detail = match oauth_error(&head) {
        Some((error, Some(d))) => Some(format!("{error}: {d}")),
        Some((error, None)) => Some(error),
        None => error_detail(ctype, &head, v.as_ref().and_then(rpc_error)),
    };
    Err(NotMcp::Status {
        method: method.to_owned(),
        status: StatusError {
            status,
            url: url.to_owned(),
            detail,
            hint: (status == 403).then(|| "the server refused access".to_owned()),
        },
    })
}

/// [`mcp_answer`]'s body of a 2xx answer: the first event with data of an
/// event stream, or the JSON body (bounded).
#[cfg(feature = "cli")]
fn answer_body(
    resp: ureq::http::Response<ureq::Body>,
    method: &str,
    ctype: &str,
) -> Result<Vec<u8>, NotMcp> {
    let read = |e| NotMcp::Read {
        method: method.to_owned(),
        source: TransportError::Read(e),
    };
    if ctype.starts_with("text/event-stream") {
        let mut events = SseReader::new(BufReader::new(resp.into_body().into_reader()));
        loop {
            match events.next_event() {
                Ok(Some(Ok(e))) if e.data.is_empty() => continue,
                Ok(Some(Ok(e))) => return Ok(e.data),
                Ok(Some(Err(oversized))) => {
                    return Err(NotMcp::Session(McpError::Unreadable {
                        method: method.to_owned(),
                        why: oversized.to_string(),
                    }))
                }
                Ok(None) => return Err(no_answer(method)),
                Err(e) => return Err(read(e)),
            }
        }
    }
    let mut body = Vec::new();
    resp.into_body()
        .into_with_config()
        .limit(MAX_MESSAGE_BYTES as u64)
        .reader()
        .read_to_end(&mut body)
        .map_err(read)?;
    Ok(body)
}

/// The code and message of a JSON-RPC `error` object in an error answer's
/// body (`{"error": {"code": …, "message": …}}`), the message cut to 200
/// characters.
fn rpc_error(v: &Value) -> Option<(i64, String)> {
    let e = v.get("error").filter(|e| e.is_object())?;
    let code = e.get("code").and_then(Value::as_i64).unwrap_or(0);
    let msg = e.get("message").and_then(Value::as_str).unwrap_or("");
    Some((code, msg.chars().take(200).collect()))
}

/// Read one HTTP answer: keep the session id, then deliver the JSON body or
/// every SSE message. `request` is the id of the client's request this
/// answers (its response marks the stream answered).
fn handle_response(
    resp: ureq::http::Response<ureq::Body>,
    sh: &Shared,
    request: Option<u64>,
) -> Result<StreamMark, HttpFail> {
    legacy::keep_session_id(&resp, &sh.state);
    note_dpop_nonce(sh, &resp);
    let status = resp.status().as_u16();
    let ctype = resp
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_ascii_lowercase();
    if !(200..300).contains(&status) {
        return handle_error_status(resp, sh, &ctype, request);
    }
    if status == 202 || status == 204 {
        return Ok(StreamMark::default());
    }
    if ctype.starts_with("text/event-stream") {
        let reader = BufReader::new(resp.into_body().into_reader());
        return read_sse(SseReader::new(reader), sh, request, StreamMark::default());
    }
    if ctype.starts_with("application/json") {
        let mut body = Vec::new();
        resp.into_body()
            .into_with_config()
            .limit(MAX_MESSAGE_BYTES as u64)
            .reader()
            .read_to_end(&mut body)
            .map_err(HttpFail::Read)?;
        deliver(&body, &sh.tx, request);
        return Ok(StreamMark {
            answered: true,
            ..StreamMark::default()
        });
    }
    Err(HttpFail::Refused(Refusal::ContentType {
        status,
        content_type: ctype.to_string(),
    }))
}

/// Whether `v` is the response to request `id`.
fn answers(v: &[u8], id: u64) -> bool {
    serde_json::from_slice::<Value>(v).is_ok_and(|v| {
        v.get("id") == Some(&json!(id)) && (v.get("result").is_some() || v.get("error").is_some())
    })
}

/// Deliver every message of an SSE stream; returns the stream's last event
/// id and retry, and whether request `request` was answered on it. A read
/// error ends the stream like its end does (it may be resumed).
fn read_sse<R: BufRead>(
    mut sse: SseReader<R>,
    sh: &Shared,
    request: Option<u64>,
    mut mark: StreamMark,
) -> Result<StreamMark, HttpFail> {
    loop {
        let next = sse.next_event();
        if let Some(id) = sse.last_id.clone() {
            mark.last_id = Some(id);
        }
        if let Some(ms) = sse.retry {
            mark.retry = Some(Duration::from_millis(ms).min(legacy::MAX_RETRY));
        }
        match next {
            Ok(None) | Err(_) => {
                // A cancelled request's read was given up: its stream is
                // closed, not to be resumed.
                if request.is_some_and(|id| is_cancelled(sh, id)) {
                    mark.answered = true;
                }
                return Ok(mark);
            }
            Ok(Some(Err(over))) => {
                // An oversized answer to this stream's request ends it at
                // once; nothing after it on the stream is waited for.
                let lost = lost_answer(over.head(), request);
                let noise = Noise::Oversized(over);
                let item = match lost {
                    Some(id) => Incoming::Unreadable { id, noise },
                    None => Incoming::Noise(noise),
                };
                if sh.tx.blocking_send(item).is_err() {
                    return Ok(mark);
                }
                if lost.is_some() && lost == request {
                    mark.answered = true;
                    return Ok(mark);
                }
            }
            Ok(Some(Ok(ev))) => {
                let is_message = ev.event.is_empty() || ev.event == "message";
                if !is_message || ev.data.iter().all(u8::is_ascii_whitespace) {
                    continue;
                }
                if request.is_some_and(|id| answers(&ev.data, id)) {
                    mark.answered = true;
                }
                if request.is_some_and(|id| is_cancelled(sh, id)) {
                    // The client closes the stream: that cancels the
                    // request (2026-07-28); nothing more is delivered.
                    mark.answered = true;
                    return Ok(mark);
                }
                match deliver(&ev.data, &sh.tx, request) {
                    Delivery::Gone => return Ok(mark),
                    // This stream's answer could not be read: the request
                    // ended with it.
                    Delivery::Lost(id) if Some(id) == request => {
                        mark.answered = true;
                        return Ok(mark);
                    }
                    Delivery::Handed | Delivery::Lost(_) => {}
                }
            }
        }
    }
}

/// One request, on its own thread: POST it, read its answer, resume its
/// stream while it ends unanswered; report the end. Once the request is
/// cancelled ([`Transport::cancel`]) this thread's reads are given up
/// within [`tcp::GIVE_UP_CHECK`], which drops the connection: the server
/// sees the response stream closed at once, even while it writes nothing.
fn run_request(sh: Arc<Shared>, id: u64, body: &[u8], headers: &[(String, String)]) {
    let watch = Arc::clone(&sh);
    tcp::give_up_when(move || is_cancelled(&watch, id));
    let sh = &*sh;
    let out = with_sign_in(sh, body, || {
        post(sh, body, headers, None).and_then(|r| handle_response(r, sh, Some(id)))
    });
    let Some(out) = legacy::resume_request(sh, id, out) else {
        return;
    };
    let item = match out {
        // A cancelled request's stream was closed by the client: it ended,
        // whatever the read that was given up said.
        _ if is_cancelled(sh, id) => Incoming::StreamEnded { id },
        Ok(_) => Incoming::StreamEnded { id },
        Err(HttpFail::SessionGone { .. }) => Incoming::SessionExpired { id },
        Err(error) => Incoming::Failed { id, error },
    };
    let _ = sh.tx.blocking_send(item);
}

/// Most times one message is sent again after signing in (a first
/// sign-in, then a step-up).
pub const MAX_AUTH_RETRIES: usize = 3;

/// Send with `send` and, while the server asks for a sign-in (and the
/// authorizer gets a token), send the same bytes again. A 401 that cannot
/// be answered becomes [`HttpFail::Auth`]. `body` is the message sent: the
/// request it names is told to the authorizer (a step-up says which call
/// needs more access).
fn with_sign_in<T>(
    sh: &Shared,
    body: &[u8],
    mut send: impl FnMut() -> Result<T, HttpFail>,
) -> Result<T, HttpFail> {
    let Some(auth) = &sh.auth else {
        return send();
    };
    let mut tries = 0;
    let mut nonce_retried = false;
    loop {
        let generation = auth.header().0;
        match send() {
            // A DPoP nonce asked for (RFC 9449 §9): the answer's nonce is
            // kept ([`note_dpop_nonce`]); the request is sent once more
            // with it, no sign-in needed.
            Err(HttpFail::Unauthorized(u))
                if !nonce_retried
                    && u.status == 401
                    && u.challenge.as_ref().is_some_and(|c| c.use_dpop_nonce()) =>
            {
                nonce_retried = true;
            }
            Err(HttpFail::Unauthorized(mut u)) => {
                if tries == MAX_AUTH_RETRIES {
                    return Err(sign_in_failed(
                        sh,
                        AuthError::StillRefused {
                            url: sh.url.clone(),
                            status: u.status,
                            tries: MAX_AUTH_RETRIES,
                            asks: u.challenge.and_then(|c| c.scope),
                        },
                    ));
                }
                tries += 1;
                u.generation = generation;
                u.request = RequestName::of_message(body);
                auth.authorize(&u).map_err(|e| sign_in_failed(sh, e))?;
            }
            other => return other,
        }
    }
}

/// [`HttpFail::Auth`] for a sign-in to this endpoint that failed.
fn sign_in_failed(sh: &Shared, error: AuthError) -> HttpFail {
    HttpFail::Auth(Box::new(super::transport::SignInFailed {
        mcp_url: sh.url.clone(),
        error,
    }))
}

impl HttpTransport {
    fn enqueue(
        &self,
        body: Vec<u8>,
        done: Option<tokio::sync::oneshot::Sender<Result<(), TransportError>>>,
    ) -> Result<(), McpError> {
        match &self.fifo {
            Some(f) => f
                .send((body, done))
                .map_err(|_| McpError::from(LinkDown::Closed)),
            None => Err(McpError::from(LinkDown::Closed)),
        }
    }
}

impl Transport for HttpTransport {
    fn send(&mut self, msg: &Value, request_id: Option<u64>) -> Result<(), McpError> {
        if self.shared.closed.load(Ordering::SeqCst) {
            return Err(McpError::from(LinkDown::Closed));
        }
        let body = serde_json::to_vec(msg).map_err(McpError::Encode)?;
        match request_id {
            // A request: its answer may be a long stream carrying the server's
            // own requests, so it is read on a thread.
            Some(id) => {
                let sh = Arc::clone(&self.shared);
                thread::spawn(move || run_request(sh, id, &body, &[]));
                Ok(())
            }
            // A notification or a response: in order, on the sender thread.
            None => self.enqueue(body, None),
        }
    }

    fn send_request(
        &mut self,
        msg: &Value,
        id: u64,
        headers: Vec<(String, String)>,
    ) -> Result<(), McpError> {
        if self.shared.closed.load(Ordering::SeqCst) {
            return Err(McpError::from(LinkDown::Closed));
        }
        let body = serde_json::to_vec(msg).map_err(McpError::Encode)?;
        let sh = Arc::clone(&self.shared);
        thread::spawn(move || run_request(sh, id, &body, &headers));
        Ok(())
    }

    fn set_stateless(&mut self) {
        if let Ok(mut s) = self.shared.state.lock() {
            s.stateless = true;
            s.session_id = None;
            s.protocol_version = None;
        }
    }

    fn cancel(&mut self, id: u64) -> bool {
        match self.shared.state.lock() {
            Ok(mut s) if s.stateless => {
                s.cancelled.insert(id);
                true
            }
            _ => false,
        }
    }

    fn send_ordered(&mut self, msg: &Value) -> Result<Option<Delivered>, McpError> {
        let body = serde_json::to_vec(msg).map_err(McpError::Encode)?;
        let (done, delivered) = tokio::sync::oneshot::channel();
        self.enqueue(body, Some(done))?;
        Ok(Some(delivered))
    }

    fn set_protocol_version(&mut self, version: &str) {
        if let Ok(mut s) = self.shared.state.lock() {
            s.protocol_version = Some(version.to_owned());
        }
    }

    fn reset_session(&mut self) {
        if let Ok(mut s) = self.shared.state.lock() {
            s.session_id = None;
            s.protocol_version = None;
            s.stateless = false;
        }
    }

    fn start_listening(&mut self) {
        legacy::open_get_stream(&self.shared);
    }

    fn close(&mut self) {
        if self.shared.closed.swap(true, Ordering::SeqCst) {
            return;
        }
        drop(self.fifo.take());
        legacy::end_session(&self.shared);
    }
}

impl Drop for HttpTransport {
    fn drop(&mut self) {
        self.close();
    }
}

/// One server-sent event (WHATWG HTML "Server-sent events", the parts MCP
/// uses): its type (`event:`, empty for the default `message`), its data
/// lines joined by `\n`, and its `id:`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SseEvent {
    pub event: String,
    pub data: Vec<u8>,
    pub id: Option<String>,
}

/// An incremental SSE parser over a byte stream. Events whose data exceeds
/// [`MAX_MESSAGE_BYTES`] are dropped and reported as noise.
pub struct SseReader<R> {
    r: R,
    line: Vec<u8>,
    cr: bool,
    /// The last event id seen (`id:` field), kept across events as the
    /// standard's "last event ID buffer".
    pub last_id: Option<String>,
    /// The last `retry:` value in milliseconds.
    pub retry: Option<u64>,
}

impl<R: BufRead> SseReader<R> {
    /// A parser reading from `r`.
    pub fn new(r: R) -> Self {
        SseReader {
            r,
            line: Vec::new(),
            cr: false,
            last_id: None,
            retry: None,
        }
    }

    /// The next complete event: `Ok(None)` at the end of the stream (an
    /// unfinished last event is dropped, as the standard says),
    /// `Ok(Some(Err(OversizedEvent)))` for an oversized event (skipped; the
    /// first bytes of its data kept when it is a message).
    ///
    /// Errors: the underlying read error.
    pub fn next_event(&mut self) -> std::io::Result<Option<Result<SseEvent, OversizedEvent>>> {
        let mut ev = SseEvent {
            event: String::new(),
            data: Vec::new(),
            id: None,
        };
        let (mut has_data, mut too_long) = (false, false);
        let mut head = Vec::new();
        loop {
            match read_line(&mut self.r, &mut self.line, MAX_MESSAGE_BYTES, &mut self.cr)? {
                Line::Eof => return Ok(None),
                Line::TooLong => {
                    if !too_long {
                        let (field, value) = split_field(&self.line);
                        let more = (field == b"data").then_some(value);
                        head = oversized_head(&ev.data, has_data, more);
                    }
                    too_long = true;
                }
                Line::Text if self.line.is_empty() => {
                    if too_long {
                        if !(ev.event.is_empty() || ev.event == "message") {
                            head.clear();
                        }
                        return Ok(Some(Err(OversizedEvent::with_head(head))));
                    }
                    if has_data {
                        return Ok(Some(Ok(ev)));
                    }
                    ev.event.clear();
                }
                Line::Text => {
                    if self.line[0] == b':' {
                        continue;
                    }
                    let (field, value) = split_field(&self.line);
                    match field {
                        b"data" => {
                            let joined = ev.data.len() + usize::from(has_data) + value.len();
                            if !too_long && joined > MAX_MESSAGE_BYTES {
                                head = oversized_head(&ev.data, has_data, Some(value));
                                too_long = true;
                                ev.data = Vec::new();
                            } else if !too_long {
                                if has_data {
                                    ev.data.push(b'\n');
                                }
                                ev.data.extend_from_slice(value);
                            }
                            has_data = true;
                        }
                        b"event" => ev.event = String::from_utf8_lossy(value).into_owned(),
                        b"id" if !value.contains(&0) => {
                            let id = String::from_utf8_lossy(value).into_owned();
                            self.last_id = Some(id.clone());
                            ev.id = Some(id);
                        }
                        b"retry" if !value.is_empty() && value.iter().all(u8::is_ascii_digit) => {
                            self.retry =
                                std::str::from_utf8(value).ok().and_then(|v| v.parse().ok());
                        }
                        _ => {}
                    }
                }
            }
        }
    }
}

/// An SSE line's field name and value (one space after the colon dropped;
/// a line without a colon is a field with an empty value).
fn split_field(line: &[u8]) -> (&[u8], &[u8]) {
    match line.iter().position(|&b| b == b':') {
        Some(i) => {
            let v = &line[i + 1..];
            (&line[..i], v.strip_prefix(b" ").unwrap_or(v))
        }
        None => (line, &b""[..]),
    }
}

/// The first bytes of an event's data when it went over the limit: the
/// data so far (`has_data`: some data line came before), then `more`, the
/// value of the data line that did not fit (None when the long line was
/// another field).
fn oversized_head(data: &[u8], has_data: bool, more: Option<&[u8]>) -> Vec<u8> {
    let mut head = data[..data.len().min(TOO_LONG_HEAD)].to_vec();
    if let Some(v) = more {
        if has_data {
            head.push(b'\n');
        }
        let room = TOO_LONG_HEAD.saturating_sub(head.len());
        head.extend_from_slice(&v[..v.len().min(room)]);
    }
    head
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Cursor;

    fn events(input: &str) -> Vec<Result<SseEvent, OversizedEvent>> {
        let mut r = SseReader::new(BufReader::with_capacity(
            3,
            Cursor::new(input.as_bytes().to_vec()),
        ));
        let mut out = Vec::new();
        while let Some(e) = r.next_event().unwrap() {
            out.push(e);
        }
        out
    }

    fn data(e: &Result<SseEvent, OversizedEvent>) -> String {
        String::from_utf8_lossy(&e.as_ref().unwrap().data).into_owned()
    }

    #[test]
    fn parses_events_with_types_ids_comments_and_multiline_data() {
        let got = events(
            ": comment\r\nid: 1\r\nretry: 500\r\ndata: \r\n\r\nevent: message\ndata: {\"a\":\ndata:1}\nid: e-2\n\nevent: other\ndata: x\n\n",
        );
        assert_eq!(got.len(), 3);
        // The priming event: id and empty data.
        assert_eq!(got[0].as_ref().unwrap().id.as_deref(), Some("1"));
        assert_eq!(data(&got[0]), "");
        assert_eq!(data(&got[1]), "{\"a\":\n1}");
        assert_eq!(got[1].as_ref().unwrap().event, "message");
        assert_eq!(got[1].as_ref().unwrap().id.as_deref(), Some("e-2"));
        assert_eq!(got[2].as_ref().unwrap().event, "other");
    }

    #[test]
    fn keeps_the_last_event_id_and_retry_across_events() {
        let mut r = SseReader::new(BufReader::new(Cursor::new(
            b"id: a1\nretry: 500\ndata: \n\ndata: x\n\nretry: soon\nid: a2\ndata: y\n\n".to_vec(),
        )));
        assert_eq!(data(&r.next_event().unwrap().unwrap()), "");
        assert_eq!((r.last_id.as_deref(), r.retry), (Some("a1"), Some(500)));
        // An event without an id keeps the last one.
        let e = r.next_event().unwrap().unwrap();
        assert_eq!(
            (e.as_ref().unwrap().id.clone(), r.last_id.as_deref()),
            (None, Some("a1"))
        );
        // A retry that is not a number is ignored.
        r.next_event().unwrap().unwrap().unwrap();
        assert_eq!((r.last_id.as_deref(), r.retry), (Some("a2"), Some(500)));
    }

    #[test]
    fn drops_an_unfinished_last_event_and_blank_runs() {
        let got = events("\n\ndata: one\n\n\n\ndata: two");
        assert_eq!(got.len(), 1);
        assert_eq!(data(&got[0]), "one");
    }

    #[test]
    fn a_refused_token_is_said_with_its_oauth_error_and_what_it_means() {
        let e = StatusError {
            status: 401,
            url: "http://127.0.0.1:1/mcp".into(),
            detail: Some("invalid_token: Missing Authorization header".into()),
            hint: Some("the server needs a sign-in".into()),
        };
        assert_eq!(
            e.to_string(),
            "HTTP 401 Unauthorized (invalid_token: Missing Authorization header): the server needs a sign-in"
        );
        // A JSON-RPC error is an object; an OAuth `error` is a string.
        assert_eq!(
            error_detail("application/json", br#"{"error":"invalid_token"}"#, None),
            Some("\"{\"error\":\"invalid_token\"}\"".into())
        );
    }

    /// An oversized message keeps the start of its data, where the answer's
    /// id is found (one long line, or data lines that add up); an oversized
    /// event of another type keeps nothing.
    #[test]
    fn an_oversized_event_keeps_the_start_where_its_id_is() {
        let big = "x".repeat(MAX_MESSAGE_BYTES);
        let one_line = format!("data: {{\"jsonrpc\":\"2.0\",\"id\":7,\"result\":\"{big}\"}}\n\n");
        let lines = format!("data: {{\"id\":8,\ndata: \"result\":\"{big}\"}}\n\n");
        let other = format!("event: other\ndata: {{\"id\":9,\"r\":\"{big}\"}}\n\n");
        let heads: Vec<Option<u64>> = [one_line, lines, other]
            .iter()
            .map(|input| {
                let got = events(input);
                assert_eq!(got.len(), 1);
                let over = got[0].as_ref().expect_err("oversized");
                lost_answer(over.head(), None)
            })
            .collect();
        assert_eq!(heads, [Some(7), Some(8), None]);
    }

    #[test]
    fn reports_an_oversized_event_then_goes_on() {
        let big = "x".repeat(MAX_MESSAGE_BYTES / 2 + 10);
        let input = format!("data: {big}\ndata: {big}\n\ndata: ok\n\n");
        let got = events(&input);
        assert_eq!(got.len(), 2);
        let over = got[0].as_ref().expect_err("oversized");
        assert!(over.to_string().contains("more than"));
        // Its first bytes are kept: "x" up to the kept length.
        assert_eq!(over.head().len(), TOO_LONG_HEAD);
        assert!(over.head().iter().all(|&b| b == b'x'));
        assert_eq!(data(&got[1]), "ok");
    }
}
