//! The protocol trace of one session ([`Trace`], shared by `Arc`): every
//! JSON-RPC message the MCP client sends and receives, in order, with its
//! direction, the time since the session started, its method (a response
//! names the method of the request it answers) or id, its size and its
//! outcome. The session makes it (`session::Desk::trace`), the MCP client
//! records into it, and the responder shows it
//! ([`Responder::follow_trace`](crate::responder::Responder::follow_trace):
//! the full screen's protocol view, plain lines' `trace` command).
//!
//! Memory is bounded: a ring of the last [`TRACE_MESSAGES`] messages whose
//! bodies together hold at most [`TRACE_BYTES`]; the oldest go first and
//! are counted ([`Trace::dropped`]). A body longer than [`TRACE_BODY_BYTES`]
//! is kept cut at that size, and the entry says so ([`Entry::cut`]).
//!
//! Bodies are kept redacted as the `--log` file is ([`crate::log`]): every
//! URL-looking span has its userinfo, query and fragment replaced
//! ([`crate::redact::redact_json`]), and every credential the run knows
//! (`--header` values, tokens) is replaced
//! ([`crate::redact::redact_secrets_json`]). They are not made safe for a
//! terminal here: whoever shows them escapes them
//! ([`crate::safe_text`]).
//!
//! Every message recorded is an event: it bumps [`Trace::version`] and
//! wakes a screen that watches the arrival pipe (`responder::wake`), so an
//! open view follows new messages without looking on a timer.

use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

use serde_json::{json, Map, Value};

/// Most messages kept: the oldest is dropped when one more comes.
pub const TRACE_MESSAGES: usize = 2_000;
/// Most bytes of one message's body kept (the rest is cut, and said so).
pub const TRACE_BODY_BYTES: usize = 64 * 1024;
/// Most bytes of all bodies kept together (the oldest messages go first).
pub const TRACE_BYTES: usize = 16 << 20;
/// Most requests (both ways) whose method is remembered until their answer
/// comes; past it, the oldest are forgotten (their answer then names only
/// its id).
const OPEN_REQUESTS: usize = 4_096;

/// Which way a message went.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Direction {
    /// Sent by this client to the server.
    Out,
    /// Received from the server.
    In,
}

impl Direction {
    /// The arrow a row starts with: `→` sent, `←` received.
    pub fn arrow(self) -> &'static str {
        match self {
            Direction::Out => "→",
            Direction::In => "←",
        }
    }

    /// The word a saved line says: `out`, `in`.
    pub fn word(self) -> &'static str {
        match self {
            Direction::Out => "out",
            Direction::In => "in",
        }
    }
}

/// What a message is, or how the request it answers ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Kind {
    /// A request (a method and an id).
    Request,
    /// A notification (a method, no id).
    Notification,
    /// A response with a `result`.
    Result,
    /// A response with an `error`, and its code (0 when it has none).
    Error(i64),
    /// Not a JSON-RPC message (a batch, a value of another shape).
    Other,
}

impl Kind {
    /// The word a row says: `request`, `notification`, `result`,
    /// `error -32602`, `other`.
    pub fn words(&self) -> String {
        match self {
            Kind::Request => "request".into(),
            Kind::Notification => "notification".into(),
            Kind::Result => "result".into(),
            Kind::Error(c) => format!("error {c}"),
            Kind::Other => "other".into(),
        }
    }
}

/// One message of the trace.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// Its number in the session, from 1 (numbers of dropped messages are
    /// not reused).
    pub number: u64,
    pub direction: Direction,
    /// Time since the session started.
    pub at: Duration,
    /// The method: a request's or notification's own, a response's
    /// request's (None when that request is not known).
    pub method: Option<String>,
    /// The id as JSON text (`3`, `"a"`), for requests and responses.
    pub id: Option<String>,
    /// The message's size in bytes, as compact JSON.
    pub size: usize,
    pub kind: Kind,
    /// The message as compact JSON, redacted (see the module), cut at
    /// [`TRACE_BODY_BYTES`] when [`Entry::cut`].
    pub body: String,
    /// The body was cut (it holds the first [`TRACE_BODY_BYTES`] bytes).
    pub cut: bool,
}

impl Entry {
    /// The method (or `?` when a response's request is not known) and the
    /// id (`#3`), as the server wrote them: escape before showing.
    pub fn what(&self) -> String {
        let method = self.method.as_deref().unwrap_or(match self.kind {
            Kind::Result | Kind::Error(_) => "(response)",
            _ => "(no method)",
        });
        match &self.id {
            Some(id) => format!("{method} #{id}"),
            None => method.to_owned(),
        }
    }

    /// The entry on one line, safe for a terminal: arrow, `+time`, method
    /// and id, size, outcome: `→ +0.012s  tools/list #2  58 B  request`.
    pub fn line(&self) -> String {
        format!(
            "{} {}  {}  {}  {}",
            self.direction.arrow(),
            elapsed(self.at),
            crate::safe_text::display(&self.what()),
            size_words(self.size),
            self.kind.words()
        )
    }

    /// The entry as one saved JSON object: `n`, `direction` (`out`,
    /// `in`), `ms` (since the start), `method`, `id`, `size`, `outcome`
    /// (`request`, `notification`, `result`, `error`, `other`) and `code`
    /// for an error, then `message` (the message, redacted) or, when it
    /// was cut, `cut: true` and `messageStart` (its first bytes as text).
    pub fn saved(&self) -> Value {
        let mut o = Map::new();
        o.insert("n".into(), json!(self.number));
        o.insert("direction".into(), json!(self.direction.word()));
        o.insert("ms".into(), json!(self.at.as_millis() as u64));
        o.insert("method".into(), json!(self.method));
        o.insert(
            "id".into(),
            self.id
                .as_deref()
                .and_then(|i| serde_json::from_str(i).ok())
                .unwrap_or(Value::Null),
        );
        o.insert("size".into(), json!(self.size));
        let outcome = match self.kind {
            Kind::Error(c) => {
                o.insert("code".into(), json!(c));
                "error"
            }
            Kind::Request => "request",
            Kind::Notification => "notification",
            Kind::Result => "result",
            Kind::Other => "other",
        };
        o.insert("outcome".into(), json!(outcome));
        match serde_json::from_str::<Value>(&self.body) {
            Ok(v) if !self.cut => {
                o.insert("message".into(), v);
            }
            _ => {
                o.insert("cut".into(), json!(true));
                o.insert("messageStart".into(), json!(self.body));
            }
        }
        Value::Object(o)
    }

    /// The body as lines to show, safe for a terminal: pretty JSON (each
    /// string escaped by [`crate::safe_text::json_text`]), or the cut text
    /// as it is (escaped line by line) after a line that says it was cut.
    pub fn body_lines(&self) -> Vec<String> {
        if !self.cut {
            if let Ok(v) = serde_json::from_str::<Value>(&self.body) {
                let pretty = serde_json::to_string_pretty(&v).unwrap_or_default();
                return crate::safe_text::json_text(&pretty)
                    .lines()
                    .map(str::to_owned)
                    .collect();
            }
        }
        let mut lines = vec![format!(
            "(cut: the first {} of {} are kept)",
            size_words(self.body.len()),
            size_words(self.size)
        )];
        lines.extend(crate::safe_text::display_multiline(&self.body));
        lines
    }
}

/// `+12.345s`: time since the start, in seconds with milliseconds.
pub fn elapsed(d: Duration) -> String {
    format!("+{}.{:03}s", d.as_secs(), d.subsec_millis())
}

/// A size in a person's words: `58 B`, `1.2 KiB`, `3.4 MiB`.
pub fn size_words(n: usize) -> String {
    match n {
        n if n < 1024 => format!("{n} B"),
        n if n < 1024 * 1024 => format!("{:.1} KiB", n as f64 / 1024.0),
        n => format!("{:.1} MiB", n as f64 / (1024.0 * 1024.0)),
    }
}

/// The ring and what it needs to name a response's method.
#[derive(Debug, Default)]
struct Ring {
    entries: VecDeque<Entry>,
    /// Bytes of the bodies kept.
    bytes: usize,
    /// Messages dropped from the front so far.
    dropped: u64,
    /// Messages recorded so far (the number of the last).
    recorded: u64,
    /// Requests not yet answered: (who sent it, its id as JSON) → method.
    open: HashMap<(Direction, String), String>,
    /// The keys of `open`, oldest first (to forget past the bound).
    open_order: VecDeque<(Direction, String)>,
}

/// The trace of one session (see the module).
#[derive(Debug)]
pub struct Trace {
    started: Instant,
    capacity: usize,
    body_cap: usize,
    /// Most bytes of all bodies together ([`TRACE_BYTES`]).
    bytes_cap: usize,
    ring: Mutex<Ring>,
    version: AtomicU64,
    /// What the session offers the server beside its messages, one line
    /// (its roots: [`Trace::set_roots`]); shown under the view's title.
    roots: Mutex<Option<String>>,
}

impl Default for Trace {
    fn default() -> Self {
        Trace::new(TRACE_MESSAGES, TRACE_BODY_BYTES)
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// `s` cut to at most `n` bytes, at a character boundary.
fn cut_at(s: &mut String, n: usize) -> bool {
    if s.len() <= n {
        return false;
    }
    let mut i = n;
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    s.truncate(i);
    true
}

impl Trace {
    /// A trace keeping the last `capacity` messages (at least one), each
    /// body cut at `body_cap` bytes; the clock starts now.
    pub fn new(capacity: usize, body_cap: usize) -> Self {
        Trace {
            started: Instant::now(),
            capacity: capacity.max(1),
            body_cap,
            bytes_cap: TRACE_BYTES,
            ring: Mutex::default(),
            version: AtomicU64::new(0),
            roots: Mutex::default(),
        }
    }

    /// The session's roots, as the line the session says of them
    /// (`roots: NAME (URI), …`), for the protocol view: they are the
    /// session's whether or not the server asks for them.
    pub fn set_roots(&self, line: String) {
        *lock(&self.roots) = Some(line);
    }

    /// The line [`Trace::set_roots`] gave, if any.
    pub fn roots(&self) -> Option<String> {
        lock(&self.roots).clone()
    }

    /// Record `msg`, going `direction`, now.
    pub fn record(&self, direction: Direction, msg: &Value) {
        self.record_at(direction, msg, self.started.elapsed());
    }

    /// [`Trace::record`] as if `at` after the start (a test's fixed
    /// times).
    #[cfg(any(test, feature = "internals"))]
    pub fn record_at(&self, direction: Direction, msg: &Value, at: Duration) {
        self.put(direction, msg, at);
    }

    #[cfg(not(any(test, feature = "internals")))]
    fn record_at(&self, direction: Direction, msg: &Value, at: Duration) {
        self.put(direction, msg, at);
    }

    fn put(&self, direction: Direction, msg: &Value, at: Duration) {
        // One pass over the message as sent: its size, and its first bytes.
        let (size, mut body) = compact_head(msg, self.body_cap);
        // Redacted as --log is; copied only when something is to redact
        // (a flood of plain log lines costs one pass each).
        if needs_redaction(msg, crate::redact::any_secret()) {
            let mut red = crate::redact::redact_json(msg);
            crate::redact::redact_secrets_json(&mut red);
            body = compact_head(&red, self.body_cap).1;
        }
        let cut = cut_at(&mut body, self.body_cap);
        let (kind, method, id) = classify(msg);
        let mut ring = lock(&self.ring);
        let method = match kind {
            Kind::Request => {
                if let (Some(id), Some(m)) = (id.clone(), method.clone()) {
                    ring.remember(direction, id, m);
                }
                method
            }
            Kind::Result | Kind::Error(_) => {
                // A response answers a request that went the other way.
                let asker = match direction {
                    Direction::In => Direction::Out,
                    Direction::Out => Direction::In,
                };
                id.clone().and_then(|i| ring.open.remove(&(asker, i)))
            }
            _ => method,
        };
        ring.recorded += 1;
        let entry = Entry {
            number: ring.recorded,
            direction,
            at,
            method,
            id,
            size,
            kind,
            body,
            cut,
        };
        ring.bytes += entry.body.len();
        ring.entries.push_back(entry);
        while ring.entries.len() > self.capacity
            || (ring.bytes > self.bytes_cap && ring.entries.len() > 1)
        {
            if let Some(old) = ring.entries.pop_front() {
                ring.bytes -= old.body.len();
                ring.dropped += 1;
            }
        }
        drop(ring);
        self.version.fetch_add(1, Ordering::SeqCst);
        crate::responder::wake::wake();
    }

    /// How many messages were recorded so far: a screen that drew the
    /// trace after reading this draws it again when it differs.
    pub fn version(&self) -> u64 {
        self.version.load(Ordering::SeqCst)
    }

    /// The messages kept, oldest first.
    pub fn entries(&self) -> Vec<Entry> {
        lock(&self.ring).entries.iter().cloned().collect()
    }

    /// The last `n` messages kept, oldest first.
    pub fn last(&self, n: usize) -> Vec<Entry> {
        let ring = lock(&self.ring);
        let skip = ring.entries.len().saturating_sub(n);
        ring.entries.iter().skip(skip).cloned().collect()
    }

    /// How many messages are kept now.
    pub fn len(&self) -> usize {
        lock(&self.ring).entries.len()
    }

    /// Whether no message is kept.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// How many of the oldest messages were dropped to keep the bound.
    pub fn dropped(&self) -> u64 {
        lock(&self.ring).dropped
    }

    /// The messages kept, as JSON lines ([`Entry::saved`], each made safe
    /// by [`crate::safe_text::json_line`]), each ending with a line feed;
    /// a first line `{"dropped": N}` when older ones were dropped.
    pub fn json_lines(&self) -> String {
        let (entries, dropped) = {
            let ring = lock(&self.ring);
            (
                ring.entries.iter().cloned().collect::<Vec<_>>(),
                ring.dropped,
            )
        };
        let mut out = String::new();
        if dropped > 0 {
            out.push_str(&crate::safe_text::json_line(&json!({ "dropped": dropped })));
            out.push('\n');
        }
        for e in entries {
            out.push_str(&crate::safe_text::json_line(&e.saved()));
            out.push('\n');
        }
        out
    }
}

impl Ring {
    /// Remember that `who` sent request `id` for `method`, forgetting the
    /// oldest past [`OPEN_REQUESTS`].
    fn remember(&mut self, who: Direction, id: String, method: String) {
        let key = (who, id);
        if self.open.insert(key.clone(), method).is_none() {
            self.open_order.push_back(key);
        }
        while self.open_order.len() > OPEN_REQUESTS {
            if let Some(k) = self.open_order.pop_front() {
                self.open.remove(&k);
            }
        }
        // Keys answered long ago still sit in the order: drop them from its
        // front so it does not outgrow what is open.
        while self
            .open_order
            .front()
            .is_some_and(|k| !self.open.contains_key(k))
        {
            self.open_order.pop_front();
        }
    }
}

/// The length of `v` as compact JSON, and its text up to a few bytes
/// past `keep` (whole characters: [`cut_at`] cuts it to `keep`).
fn compact_head(v: &Value, keep: usize) -> (usize, String) {
    struct Head {
        len: usize,
        keep: usize,
        head: Vec<u8>,
    }
    impl std::io::Write for Head {
        fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
            self.len += b.len();
            // Four bytes more than kept: the character cut at `keep` is
            // whole, so the text stays UTF-8.
            let room = (self.keep + 4).saturating_sub(self.head.len());
            self.head.extend_from_slice(&b[..b.len().min(room)]);
            Ok(b.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut h = Head {
        len: 0,
        keep,
        head: Vec::new(),
    };
    let _ = serde_json::to_writer(&mut h, v);
    let text = match String::from_utf8(h.head) {
        Ok(t) => t,
        Err(e) => {
            // Cut inside a character past `keep`: only what is valid.
            let ok = e.utf8_error().valid_up_to();
            let mut b = e.into_bytes();
            b.truncate(ok);
            String::from_utf8(b).unwrap_or_default()
        }
    };
    (h.len, text)
}

/// Whether redacting `v` as `--log` is redacted could change it: a string
/// that may hold a URL ([`crate::redact::may_hold_url`]) or, when
/// `secrets` are registered, a string (or key) that holds one.
fn needs_redaction(v: &Value, secrets: bool) -> bool {
    let secret_in =
        |s: &str| secrets && matches!(crate::redact::redact_secrets(s), std::borrow::Cow::Owned(_));
    match v {
        Value::String(s) => crate::redact::may_hold_url(s) || secret_in(s),
        Value::Array(a) => a.iter().any(|x| needs_redaction(x, secrets)),
        Value::Object(o) => o
            .iter()
            .any(|(k, x)| secret_in(k) || needs_redaction(x, secrets)),
        _ => false,
    }
}

/// What `msg` is, its method and its id (as JSON text).
fn classify(msg: &Value) -> (Kind, Option<String>, Option<String>) {
    let Some(o) = msg.as_object() else {
        return (Kind::Other, None, None);
    };
    let method = o.get("method").and_then(Value::as_str).map(str::to_owned);
    let id = o.get("id").filter(|i| !i.is_null()).map(Value::to_string);
    let kind = match (&method, &id) {
        (Some(_), Some(_)) => Kind::Request,
        (Some(_), None) => Kind::Notification,
        (None, _) if o.contains_key("error") => Kind::Error(
            o.get("error")
                .and_then(|e| e.get("code"))
                .and_then(Value::as_i64)
                .unwrap_or(0),
        ),
        (None, Some(_)) if o.contains_key("result") => Kind::Result,
        _ => Kind::Other,
    };
    (kind, method, id)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_ring_drops_the_oldest_and_counts_what_it_dropped() {
        let t = Trace::new(3, 1024);
        for i in 1..=5 {
            t.record(
                Direction::Out,
                &json!({"jsonrpc": "2.0", "method": "notifications/progress", "params": {"n": i}}),
            );
        }
        assert_eq!(t.len(), 3);
        assert_eq!(t.dropped(), 2);
        assert_eq!(t.version(), 5);
        let kept: Vec<u64> = t.entries().iter().map(|e| e.number).collect();
        assert_eq!(kept, [3, 4, 5]);
        assert!(t.entries()[0].body.contains("\"n\":3"));
        assert_eq!(
            t.last(2).iter().map(|e| e.number).collect::<Vec<_>>(),
            [4, 5]
        );
        let saved = t.json_lines();
        assert!(saved.starts_with("{\"dropped\":2}\n"), "{saved}");
        assert_eq!(saved.lines().count(), 4);
    }

    #[test]
    fn the_ring_keeps_its_bodies_under_the_byte_bound() {
        let t = Trace {
            bytes_cap: 300,
            ..Trace::new(100, 200)
        };
        let msg = |i: usize| json!({"jsonrpc": "2.0", "method": "m", "params": {"pad": "x".repeat(60 + i)}});
        for i in 0..10 {
            t.record(Direction::In, &msg(i));
        }
        let kept = t.entries();
        let bytes: usize = kept.iter().map(|e| e.body.len()).sum();
        assert!(bytes <= 300, "{bytes}");
        assert_eq!(kept.len() as u64 + t.dropped(), 10);
        assert_eq!(kept.last().map(|e| e.number), Some(10));
        // One message over the bound on its own is still kept (cut).
        let big = Trace {
            bytes_cap: 10,
            ..Trace::new(100, 200)
        };
        big.record(Direction::In, &msg(500));
        assert_eq!(big.len(), 1);
        assert!(big.entries()[0].cut);
    }

    #[test]
    fn a_response_names_the_method_of_its_request_and_its_outcome() {
        let t = Trace::default();
        t.record(
            Direction::Out,
            &json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}),
        );
        t.record(
            Direction::In,
            &json!({"jsonrpc": "2.0", "id": 7, "method": "elicitation/create", "params": {}}),
        );
        t.record(
            Direction::Out,
            &json!({"jsonrpc": "2.0", "id": 7, "result": {"action": "cancel"}}),
        );
        t.record(
            Direction::In,
            &json!({"jsonrpc": "2.0", "id": 2, "error": {"code": -32602, "message": "no"}}),
        );
        t.record(
            Direction::In,
            &json!({"jsonrpc": "2.0", "id": 9, "result": {}}),
        );
        let e = t.entries();
        assert_eq!(e[0].kind, Kind::Request);
        assert_eq!(e[2].method.as_deref(), Some("elicitation/create"));
        assert_eq!(e[2].kind, Kind::Result);
        assert_eq!(e[3].method.as_deref(), Some("tools/list"));
        assert_eq!(e[3].kind, Kind::Error(-32602));
        assert_eq!(e[4].method, None);
        assert_eq!(e[0].size, e[0].body.len());
        assert_eq!(e[3].line()[..9], *"← +0.00");
        assert!(
            e[3].line().ends_with("  tools/list #2  63 B  error -32602"),
            "{}",
            e[3].line()
        );
        assert!(e[4].line().contains("(response) #9"), "{}", e[4].line());
    }

    #[test]
    fn bodies_are_cut_past_the_bound_and_said_so() {
        let t = Trace::new(10, 40);
        let big = json!({"jsonrpc": "2.0", "method": "m", "params": {"text": "é".repeat(100)}});
        t.record(Direction::In, &big);
        let e = &t.entries()[0];
        assert!(e.cut);
        assert!(e.body.len() <= 40);
        assert_eq!(e.size, big.to_string().len());
        assert!(
            e.body_lines()[0].starts_with("(cut: the first"),
            "{:?}",
            e.body_lines()
        );
        assert_eq!(e.saved()["cut"], json!(true));
        assert!(e.saved().get("message").is_none());
    }

    #[test]
    fn bodies_are_redacted_as_the_log_is_and_shown_escaped() {
        crate::redact::register_secret("Bearer trace-secret-token-1234");
        let t = Trace::default();
        t.record(
            Direction::In,
            &json!({"jsonrpc": "2.0", "id": 1, "result": {
                "said": "your token trace-secret-token-1234",
                "url": "https://a.example/cb?code=42",
                "evil": "\u{1b}[2J\u{202e}x"
            }}),
        );
        let e = &t.entries()[0];
        assert!(!e.body.contains("trace-secret-token-1234"), "{}", e.body);
        assert!(!e.body.contains("code=42"), "{}", e.body);
        let shown = e.body_lines().join("\n");
        assert!(shown.contains("[redacted]"), "{shown}");
        assert!(
            !shown.contains('\u{1b}') && !shown.contains('\u{202e}'),
            "{shown}"
        );
        assert!(
            shown.contains("\"said\": \"your token [redacted]\""),
            "{shown}"
        );
    }
}
