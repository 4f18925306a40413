//! The MCP 2025-11-25 Streamable HTTP session, beside the transport: the
//! session id the server assigns (kept from the first answer that carries
//! one, sent on every later request, forgotten after a 404), the GET stream
//! on which a server sends requests not tied to a client request (405: the
//! server has none), resumption of a broken stream with `Last-Event-ID`
//! after the server's `retry` (default [`DEFAULT_RETRY`], at most
//! [`MAX_RESUMES`] times), and DELETE at the end. A stateless connection
//! (2026-07-28) keeps no session id, so none of this applies to it.

use std::io::BufReader;
use std::sync::atomic::Ordering;
use std::sync::mpsc as smpsc;
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::Duration;

use super::{
    handle_error_status, handle_response, read_sse, session_headers, HttpFail, Shared, SseReader,
    State, StreamMark,
};
use crate::mcp::transport::{Incoming, Noise, Refusal};

/// How long opening the GET stream may take before the session goes on.
const GET_STREAM_WAIT: Duration = Duration::from_secs(5);
/// How long ending the session (DELETE) may take.
const DELETE_WAIT: Duration = Duration::from_secs(2);
/// Reconnection delay when the server gave no `retry`.
pub const DEFAULT_RETRY: Duration = Duration::from_secs(1);
/// Longest `retry` honoured.
pub(super) const MAX_RETRY: Duration = Duration::from_secs(30);
/// Most resumptions of one stream.
pub const MAX_RESUMES: usize = 5;

/// Keep the session id the server assigned (first one wins).
pub(super) fn keep_session_id(resp: &ureq::http::Response<ureq::Body>, state: &Mutex<State>) {
    if let Some(id) = resp
        .headers()
        .get("mcp-session-id")
        .and_then(|v| v.to_str().ok())
    {
        if let Ok(mut s) = state.lock() {
            if s.session_id.is_none() && !s.stateless {
                s.session_id = Some(id.to_owned());
            }
        }
    }
}

/// Whether a session id is in use.
pub(super) fn has_session(state: &Mutex<State>) -> bool {
    state
        .lock()
        .map(|s| s.session_id.is_some())
        .unwrap_or(false)
}

/// GET the stream again with `Last-Event-ID` after the retry delay.
fn resume(sh: &Shared, request: Option<u64>, mark: StreamMark) -> Result<StreamMark, HttpFail> {
    thread::sleep(mark.retry.unwrap_or(DEFAULT_RETRY));
    let mut rb = sh.agent.get(&sh.url).header("Accept", "text/event-stream");
    for (k, v) in session_headers(sh, "GET") {
        rb = rb.header(k, v);
    }
    if let Some(id) = &mark.last_id {
        rb = rb.header("Last-Event-ID", id.as_str());
    }
    let resp = rb.call().map_err(|source| HttpFail::Request {
        what: format!("GET {} (resuming)", sh.url),
        source,
    })?;
    let status = resp.status().as_u16();
    if status == 405 {
        return Err(HttpFail::Refused(Refusal::NoResume));
    }
    keep_session_id(&resp, &sh.state);
    if !resp.status().is_success() {
        let ctype = String::new();
        return handle_error_status(resp, sh, &ctype, request);
    }
    let reader = BufReader::new(resp.into_body().into_reader());
    let mut sse = SseReader::new(reader);
    sse.last_id = mark.last_id.clone();
    read_sse(sse, sh, request, mark)
}

/// A request's stream that ended before its answer (with an event id to
/// resume from) is resumed up to [`MAX_RESUMES`] times. Returns how it
/// ended, or None when the connection was closed meanwhile.
pub(super) fn resume_request(
    sh: &Shared,
    id: u64,
    mut out: Result<StreamMark, HttpFail>,
) -> Option<Result<StreamMark, HttpFail>> {
    let mut resumes = 0;
    while let Ok(mark) = &out {
        if mark.answered || mark.last_id.is_none() || resumes == MAX_RESUMES {
            break;
        }
        if sh.closed.load(Ordering::SeqCst) {
            return None;
        }
        resumes += 1;
        out = resume(sh, Some(id), mark.clone());
    }
    Some(out)
}

/// Open the GET stream on a thread and wait (at most [`GET_STREAM_WAIT`])
/// until its headers are in, so that the server knows the stream before
/// the first tool call.
pub(super) fn open_get_stream(shared: &Arc<Shared>) {
    let sh = Arc::clone(shared);
    let (ready_tx, ready_rx) = smpsc::channel::<()>();
    thread::spawn(move || run_listener(&sh, ready_tx));
    let _ = ready_rx.recv_timeout(GET_STREAM_WAIT);
}

/// The GET stream: open it (announcing on `ready` that headers are in),
/// then resume it while it ends with an event id.
fn run_listener(sh: &Shared, ready: smpsc::Sender<()>) {
    let mut rb = sh.agent.get(&sh.url).header("Accept", "text/event-stream");
    for (k, v) in session_headers(sh, "GET") {
        rb = rb.header(k, v);
    }
    let resp = rb.call();
    let _ = ready.send(());
    let mut out = match resp {
        Err(source) => Err(HttpFail::Request {
            what: "GET stream".into(),
            source,
        }),
        // The server offers no GET stream (405).
        Ok(r) if r.status().as_u16() == 405 => return,
        Ok(r) if !r.status().is_success() => {
            super::note_dpop_nonce(sh, &r);
            Err(HttpFail::Refused(Refusal::GetRefused(r.status().as_u16())))
        }
        Ok(r) => handle_response(r, sh, None),
    };
    let mut resumes = 0;
    while let Ok(mark) = &out {
        if mark.last_id.is_none() || resumes == MAX_RESUMES || sh.closed.load(Ordering::SeqCst) {
            return;
        }
        resumes += 1;
        out = resume(sh, None, mark.clone());
    }
    if let Err(e) = out {
        if !sh.closed.load(Ordering::SeqCst) {
            let _ = sh.tx.blocking_send(Incoming::Noise(Noise::Failed(e)));
        }
    }
}

/// End the session with DELETE (when there is one; at most
/// [`DELETE_WAIT`]). 405 means the server does not let clients end
/// sessions: fine.
pub(super) fn end_session(sh: &Shared) {
    if !has_session(&sh.state) {
        return;
    }
    let mut rb = sh
        .agent
        .delete(&sh.url)
        .config()
        .timeout_global(Some(DELETE_WAIT))
        .build();
    for (k, v) in session_headers(sh, "DELETE") {
        rb = rb.header(k, v);
    }
    let _ = rb.call();
}
