//! The Streamable HTTP transport (MCP 2025-11-25 "Transports: Streamable
//! HTTP"), on `ureq` (blocking; one thread per response stream).
//!
//! Every client message is a POST to the endpoint URL with
//! `Content-Type: application/json` and `Accept: application/json,
//! text/event-stream`; after `initialize` every POST also carries the
//! `Mcp-Session-Id` the server assigned (if any) and `MCP-Protocol-Version`.
//! The answer to a request is either one JSON body or an SSE stream
//! (`text/event-stream`) on which the server may also send its own requests
//! (e.g. `elicitation/create`) before the response; those are answered with
//! further POSTs, which the server acknowledges with 202. At the end the
//! session is ended with DELETE.
//!
//! After `notifications/initialized` the client also opens the GET stream
//! (`Accept: text/event-stream`), on which a server sends requests that are
//! not tied to one of the client's requests (the TypeScript SDK sends a
//! `Server.request(...)` elicitation there, and drops it when no GET stream
//! is open). A server without one answers 405, which is fine.
//!
//! Not implemented (said in docs/mcp.md): reconnecting a broken stream and
//! resuming with `Last-Event-ID`.

use std::io::{BufRead, BufReader, Read};
use std::sync::mpsc::Sender;
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::Duration;

use serde_json::Value;

use super::transport::{deliver, read_line, Incoming, Line, Transport, MAX_MESSAGE_BYTES};
use super::McpError;

/// How long opening the GET stream may take before the session goes on.
const GET_STREAM_WAIT: Duration = Duration::from_secs(5);
/// How long ending the session (DELETE) may take.
const DELETE_WAIT: Duration = Duration::from_secs(5);
/// Bytes of an error body that are read and shown.
const MAX_ERROR_BODY: u64 = 64 * 1024;

#[derive(Debug, Default)]
struct State {
    session_id: Option<String>,
    protocol_version: Option<String>,
}

/// A connection to a Streamable HTTP MCP endpoint.
pub struct HttpTransport {
    agent: ureq::Agent,
    url: String,
    state: Arc<Mutex<State>>,
    tx: Sender<Incoming>,
    closed: bool,
}

impl HttpTransport {
    /// A transport for the endpoint `url` (`http://` or `https://`); nothing
    /// is sent until the first message. Messages go to `tx`.
    pub fn new(url: &str, tx: Sender<Incoming>) -> Self {
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .user_agent(concat!("ahp-elicit/", env!("CARGO_PKG_VERSION")))
            .build()
            .into();
        HttpTransport {
            agent,
            url: url.to_owned(),
            state: Arc::new(Mutex::new(State::default())),
            tx,
            closed: false,
        }
    }

    /// The session id the server assigned, if any.
    pub fn session_id(&self) -> Option<String> {
        self.state.lock().ok().and_then(|s| s.session_id.clone())
    }
}

/// Headers every POST (and the final DELETE) carries.
fn session_headers(state: &Mutex<State>) -> Vec<(&'static str, String)> {
    let mut h = Vec::new();
    if let Ok(s) = state.lock() {
        if let Some(id) = &s.session_id {
            h.push(("Mcp-Session-Id", id.clone()));
        }
        if let Some(v) = &s.protocol_version {
            h.push(("MCP-Protocol-Version", v.clone()));
        }
    }
    h
}

fn post(
    agent: &ureq::Agent,
    url: &str,
    state: &Mutex<State>,
    body: &[u8],
) -> Result<ureq::http::Response<ureq::Body>, String> {
    let mut rb = agent
        .post(url)
        .header("Content-Type", "application/json")
        .header("Accept", "application/json, text/event-stream");
    for (k, v) in session_headers(state) {
        rb = rb.header(k, v);
    }
    rb.send(body).map_err(|e| format!("POST {url}: {e}"))
}

/// Read one HTTP answer: keep the session id, then deliver the JSON body or
/// every SSE message. Errors: a sentence (status and body head, or a read
/// error).
fn handle_response(
    resp: ureq::http::Response<ureq::Body>,
    state: &Mutex<State>,
    tx: &Sender<Incoming>,
) -> Result<(), String> {
    let status = resp.status().as_u16();
    if let Some(id) = resp
        .headers()
        .get("mcp-session-id")
        .and_then(|v| v.to_str().ok())
    {
        if let Ok(mut s) = state.lock() {
            if s.session_id.is_none() {
                s.session_id = Some(id.to_owned());
            }
        }
    }
    let ctype = resp
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_ascii_lowercase();
    if !(200..300).contains(&status) {
        let had_session = state
            .lock()
            .map(|s| s.session_id.is_some())
            .unwrap_or(false);
        let mut head = Vec::new();
        let _ = resp
            .into_body()
            .into_with_config()
            .limit(MAX_ERROR_BODY)
            .reader()
            .read_to_end(&mut head);
        // A JSON-RPC error in the body says more than the status.
        if ctype.starts_with("application/json") {
            if let Ok(v) = serde_json::from_slice::<Value>(&head) {
                if v.get("error").is_some() && v.get("id").is_some_and(|i| !i.is_null()) {
                    let _ = tx.send(Incoming::Message(v));
                    return Ok(());
                }
            }
        }
        let text = String::from_utf8_lossy(&head);
        let text: String = text.chars().take(300).collect();
        if status == 404 && had_session {
            return Err(format!("the server ended the session (HTTP 404): {text}"));
        }
        return Err(format!("HTTP {status}: {text}"));
    }
    if status == 202 || status == 204 {
        return Ok(());
    }
    if ctype.starts_with("text/event-stream") {
        let mut sse = SseReader::new(BufReader::new(resp.into_body().into_reader()));
        loop {
            match sse.next_event() {
                Ok(None) => return Ok(()),
                Ok(Some(Err(noise))) => {
                    if tx.send(Incoming::Noise(noise)).is_err() {
                        return Ok(());
                    }
                }
                Ok(Some(Ok(ev))) => {
                    let is_message = ev.event.is_empty() || ev.event == "message";
                    if is_message
                        && !ev.data.iter().all(u8::is_ascii_whitespace)
                        && !deliver(&ev.data, tx)
                    {
                        return Ok(());
                    }
                }
                Err(e) => return Err(format!("reading the event stream: {e}")),
            }
        }
    }
    if ctype.starts_with("application/json") {
        let mut body = Vec::new();
        resp.into_body()
            .into_with_config()
            .limit(MAX_MESSAGE_BYTES as u64)
            .reader()
            .read_to_end(&mut body)
            .map_err(|e| format!("reading the response: {e}"))?;
        deliver(&body, tx);
        return Ok(());
    }
    Err(format!(
        "HTTP {status} with Content-Type '{ctype}' (expected application/json or text/event-stream)"
    ))
}

impl Transport for HttpTransport {
    fn send(&mut self, msg: &Value, request_id: Option<u64>) -> Result<(), McpError> {
        if self.closed {
            return Err(McpError::Transport("the connection is closed".into()));
        }
        let body = serde_json::to_vec(msg).map_err(|e| McpError::Transport(e.to_string()))?;
        match request_id {
            // A request: its answer may be a long stream carrying the server's
            // own requests, so it is read on a thread.
            Some(id) => {
                let (agent, url, state, tx) = (
                    self.agent.clone(),
                    self.url.clone(),
                    Arc::clone(&self.state),
                    self.tx.clone(),
                );
                thread::spawn(move || {
                    let outcome = post(&agent, &url, &state, &body)
                        .and_then(|r| handle_response(r, &state, &tx));
                    let _ = match outcome {
                        Ok(()) => tx.send(Incoming::StreamEnded { id }),
                        Err(error) => tx.send(Incoming::Failed { id, error }),
                    };
                });
                Ok(())
            }
            // A notification or a response: the server acknowledges with 202.
            None => {
                let resp = post(&self.agent, &self.url, &self.state, &body)
                    .map_err(McpError::Transport)?;
                handle_response(resp, &self.state, &self.tx).map_err(McpError::Transport)
            }
        }
    }

    fn set_protocol_version(&mut self, version: &str) {
        if let Ok(mut s) = self.state.lock() {
            s.protocol_version = Some(version.to_owned());
        }
    }

    fn start_listening(&mut self) {
        let (agent, url, state, tx) = (
            self.agent.clone(),
            self.url.clone(),
            Arc::clone(&self.state),
            self.tx.clone(),
        );
        let (ready_tx, ready_rx) = std::sync::mpsc::channel::<()>();
        thread::spawn(move || {
            let mut rb = agent.get(&url).header("Accept", "text/event-stream");
            for (k, v) in session_headers(&state) {
                rb = rb.header(k, v);
            }
            let resp = rb.call();
            let _ = ready_tx.send(());
            match resp {
                Err(e) => {
                    let _ = tx.send(Incoming::Noise(format!("GET stream: {e}")));
                }
                // The server offers no GET stream (405), or refuses it.
                Ok(r) if r.status().as_u16() == 405 => {}
                Ok(r) if !r.status().is_success() => {
                    let _ = tx.send(Incoming::Noise(format!(
                        "the server refused the GET stream (HTTP {})",
                        r.status().as_u16()
                    )));
                }
                Ok(r) => {
                    if let Err(e) = handle_response(r, &state, &tx) {
                        let _ = tx.send(Incoming::Noise(format!("GET stream: {e}")));
                    }
                }
            }
        });
        // Headers in (or a failure) before the first tool call, so that the
        // server knows the stream when it sends on it.
        let _ = ready_rx.recv_timeout(GET_STREAM_WAIT);
    }

    fn close(&mut self) {
        if self.closed {
            return;
        }
        self.closed = true;
        if self.session_id().is_none() {
            return;
        }
        let mut rb = self
            .agent
            .delete(&self.url)
            .config()
            .timeout_global(Some(DELETE_WAIT))
            .build();
        for (k, v) in session_headers(&self.state) {
            rb = rb.header(k, v);
        }
        // 405 means the server does not let clients end sessions: fine.
        let _ = rb.call();
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
}

impl<R: BufRead> SseReader<R> {
    /// A parser reading from `r`.
    pub fn new(r: R) -> Self {
        SseReader {
            r,
            line: Vec::new(),
            cr: false,
        }
    }

    /// The next complete event: `Ok(None)` at the end of the stream (an
    /// unfinished last event is dropped, as the standard says),
    /// `Ok(Some(Err(noise)))` for an oversized event.
    ///
    /// Errors: the underlying read error.
    pub fn next_event(&mut self) -> std::io::Result<Option<Result<SseEvent, String>>> {
        let mut ev = SseEvent {
            event: String::new(),
            data: Vec::new(),
            id: None,
        };
        let (mut has_data, mut too_long) = (false, false);
        loop {
            match read_line(&mut self.r, &mut self.line, MAX_MESSAGE_BYTES, &mut self.cr)? {
                Line::Eof => return Ok(None),
                Line::TooLong => too_long = true,
                Line::Text if self.line.is_empty() => {
                    if too_long {
                        return Ok(Some(Err(format!(
                            "skipped an event of more than {MAX_MESSAGE_BYTES} bytes"
                        ))));
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
                    let (field, value) = match self.line.iter().position(|&b| b == b':') {
                        Some(i) => {
                            let v = &self.line[i + 1..];
                            (&self.line[..i], v.strip_prefix(b" ").unwrap_or(v))
                        }
                        None => (&self.line[..], &b""[..]),
                    };
                    match field {
                        b"data" => {
                            if has_data {
                                ev.data.push(b'\n');
                            }
                            has_data = true;
                            if ev.data.len() + value.len() > MAX_MESSAGE_BYTES {
                                too_long = true;
                                ev.data.clear();
                            } else if !too_long {
                                ev.data.extend_from_slice(value);
                            }
                        }
                        b"event" => ev.event = String::from_utf8_lossy(value).into_owned(),
                        b"id" if !value.contains(&0) => {
                            ev.id = Some(String::from_utf8_lossy(value).into_owned())
                        }
                        _ => {}
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Cursor;

    fn events(input: &str) -> Vec<Result<SseEvent, String>> {
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

    fn data(e: &Result<SseEvent, String>) -> String {
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
    fn drops_an_unfinished_last_event_and_blank_runs() {
        let got = events("\n\ndata: one\n\n\n\ndata: two");
        assert_eq!(got.len(), 1);
        assert_eq!(data(&got[0]), "one");
    }

    #[test]
    fn reports_an_oversized_event_then_goes_on() {
        let big = "x".repeat(MAX_MESSAGE_BYTES / 2 + 10);
        let input = format!("data: {big}\ndata: {big}\n\ndata: ok\n\n");
        let got = events(&input);
        assert_eq!(got.len(), 2);
        assert!(got[0].as_ref().unwrap_err().contains("more than"));
        assert_eq!(data(&got[1]), "ok");
    }
}
