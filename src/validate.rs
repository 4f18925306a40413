//! Stream validation with cross-checks: the checks behind
//! `ahp-elicit validate`, one verdict per event.
//!
//! An input (one JSON event, pretty-printed or not, JSON Lines of events, or
//! several documents) is split into events ([`split_input`]) by the
//! incremental framer of [`crate::stream`], the same as `respond`'s: one
//! pass, bounded memory; broken or truncated text is passed on with its line
//! number and the events after it are still read; an event over
//! [`MAX_EVENT_BYTES`] is reported (rule `limits`) and skipped unread.
//!
//! Each event goes through [`crate::binding`]: [`parse_json`] (limits, UTF-8,
//! syntax), then by `type`: the request codec, the result codec (and
//! [`check_answer`] against the request with id equal to its
//! `parentEventId`: from the reference requests given to [`Checker::new`],
//! else one seen earlier), or for the other event types
//! [`schemas::validate_event`]. The order-free part ([`prepare`]) runs in
//! parallel ([`check_input`]); [`Checker::finish`] completes each event in
//! input order. Memory stays bounded on endless streams: the requests kept
//! for the cross-check are the latest [`MAX_REMEMBERED`] (4,096) within
//! [`MAX_REMEMBERED_BYTES`] (4 MiB) of text; a result whose request was
//! forgotten is checked on its own, as one whose request was never seen.
//!
//! Verdicts are written ([`write_verdict`]) as text, one line per event
//! `<file>:<line>: <id>: valid` or `<file>:<line>: <id>: invalid` followed
//! by indented `pointer [rule] message` lines (server text passed through
//! [`crate::safe_text::display`]); or as JSON, one object per event per
//! line, `{"id", "type", "valid", "errors": [{"pointer", "rule", "message"}], "input", "line"}`
//! (`id` and `type` are null when the event has none, e.g. not JSON).

use std::collections::{HashMap, VecDeque};
use std::io::{BufReader, Read, Write};

use serde_json::Value;

use crate::binding::fast::ValidEvent;
use crate::binding::limits::MAX_EVENT_BYTES;
use crate::binding::{
    check_answer, checked_text, parse_checked, read_request, read_request_noting, read_result,
    request_from_refused_body, schemas, ReadOptions, RequestEvent, RequestView, ResultEvent, Rule,
    SchemaPolicy, Violation, REQUEST_TYPE, RESULT_TYPE,
};
use crate::safe_text::display;
use crate::stream::Frame;

/// The eight event types of the binding.
pub const EVENT_TYPES: [&str; 8] = [
    "config.change.before",
    "config.change.after",
    "user.attention",
    "user.elicitation.request",
    "user.elicitation.result",
    "user.message.inbound",
    "user.message.outbound",
    "hook.failure",
];

/// Output format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// `FILE:LINE: ID: valid|invalid` and indented `pointer [rule] message` lines.
    Text,
    /// One JSON object per event per line.
    Json,
}

/// One event's bytes as found in an input, or why there is none.
#[derive(Debug)]
pub struct Chunk {
    /// 1-based line where the event starts.
    pub line: usize,
    /// The event text, or a violation (rule `limits`) for a line too long
    /// to hold.
    pub bytes: Result<Vec<u8>, Violation>,
}

/// Split one input into events with the incremental
/// [`Framer`](crate::stream::Framer) (see the module doc), calling `each`
/// for every event in order. Broken or truncated text is passed on as it
/// is (parsing it names the syntax error); a value over [`MAX_EVENT_BYTES`]
/// is skipped unread and passed on as a `limits` violation.
///
/// Errors: only a read error of the input.
pub fn split_input<R: Read>(input: R, mut each: impl FnMut(Chunk)) -> std::io::Result<()> {
    split_batches(input, |batch| batch.into_iter().for_each(&mut each))
}

/// At most this many events go to a worker as one piece of work.
const BATCH: usize = 64;

/// [`split_input`] by batches of at most [`BATCH`] events: what one read of
/// the input completed (a live stream's events are passed on as soon as
/// they are read; a file's go by many at a time).
fn split_batches<R: Read>(input: R, mut each: impl FnMut(Vec<Chunk>)) -> std::io::Result<()> {
    let reader = BufReader::with_capacity(64 * 1024, input);
    crate::stream::frame_reader_batches(reader, MAX_EVENT_BYTES, |frames| {
        let mut batch = Vec::with_capacity(frames.len().min(BATCH));
        for f in frames.drain(..) {
            batch.push(chunk_of(f));
            if batch.len() == BATCH {
                each(std::mem::replace(&mut batch, Vec::with_capacity(BATCH)));
            }
        }
        if !batch.is_empty() {
            each(batch);
        }
        true
    })
}

/// One frame as a [`Chunk`]: its text, or the `limits` violation of a
/// value over [`MAX_EVENT_BYTES`].
fn chunk_of(f: Frame) -> Chunk {
    let line = f.line();
    let bytes = match f {
        Frame::Value { bytes, .. } | Frame::Broken { bytes, .. } => Ok(bytes),
        Frame::TooLong { len, .. } => Err(Violation::new(
            "",
            Rule::Limits,
            format!(
                "the event holds {len} bytes or more, over the limit of {MAX_EVENT_BYTES} bytes per event"
            ),
        )),
    };
    Chunk { line, bytes }
}

/// The verdict on one event.
#[derive(Debug, Clone, PartialEq)]
pub struct Verdict {
    /// The event's `id`, when it is a string.
    pub id: Option<String>,
    /// The event's `type`, when it is a string.
    pub ty: Option<String>,
    /// Every violation; empty means valid.
    pub errors: Vec<Violation>,
}

/// At most this many valid requests are remembered for the cross-checks of
/// later results (the oldest is forgotten first); a result whose request
/// was forgotten, or never seen, is checked on its own.
pub const MAX_REMEMBERED: usize = 4_096;
/// At most this many bytes of event text of remembered requests (the same
/// rule as [`MAX_REMEMBERED`]; the latest request is always kept).
pub const MAX_REMEMBERED_BYTES: usize = 4 * 1024 * 1024;

/// What the order-free part of validation found for one event ([`prepare`]);
/// [`Checker::finish`] completes it in input order.
#[derive(Debug, PartialEq)]
pub enum Prepared {
    /// The verdict is final.
    Done(Verdict),
    /// A valid request, to remember for later results; `size` is its text's
    /// length in bytes.
    Request {
        verdict: Verdict,
        request: RequestEvent,
        size: usize,
    },
    /// A result valid on its own, still to check against its request.
    Result {
        verdict: Verdict,
        result: ResultEvent,
    },
}

/// The checks of one event text that need no other event (limits, syntax,
/// wire root, the codec's reading of the body): safe to run in parallel.
///
/// A valid request or result is read by the fast reading
/// ([`crate::binding::fast::read_valid`]: one pass, no schema run); any
/// event it is not sure of goes through the full reading, the only one
/// that reports violations: from the body on for a request whose every
/// other member the fast reading proved valid (the body's params, parsed
/// once, read with the pinned `request` definition, the event not parsed
/// again), else the whole of [`prepare_full`]. Every way gives the same
/// [`Prepared`] as [`prepare_full`] (tests/lib/fast_path_agrees.rs).
#[cfg(any(test, feature = "internals"))]
pub fn prepare(bytes: &[u8]) -> Prepared {
    prepare_with(bytes, SchemaPolicy::Strict)
}

/// [`prepare`] reading a request's `requestedSchema` under `policy`
/// (`validate --schema-policy`; compatible accepts what real servers'
/// SDKs add, as `mcp` records it). The fast reading is the strict one: under
/// compatible every event takes the full reading.
pub fn prepare_with(bytes: &[u8], policy: SchemaPolicy) -> Prepared {
    // The limits and UTF-8, checked once for both readings.
    let text = match checked_text(bytes) {
        Ok(t) => t,
        Err(e) => return refused(e),
    };
    if policy != SchemaPolicy::Strict {
        return prepare_full_text(text, policy);
    }
    // A request the fast reading refuses at its body (every other member
    // proven valid) is read on from there: its body's params, parsed once.
    let mut spare = None;
    match crate::binding::fast::read_valid_text(text, &mut spare) {
        Some(ValidEvent::Request(mut request)) => {
            keep_for_checks(&mut request);
            Prepared::Request {
                verdict: valid(&request.id, REQUEST_TYPE),
                request,
                size: bytes.len(),
            }
        }
        Some(ValidEvent::Result(result)) => Prepared::Result {
            verdict: valid(&result.id, RESULT_TYPE),
            result,
        },
        None => match spare {
            Some(refused) => {
                let id = Some(refused.request.id.clone());
                let verdict = |errors| Verdict {
                    id,
                    ty: Some(REQUEST_TYPE.to_owned()),
                    errors,
                };
                let read = request_from_refused_body(refused).map_err(noted);
                request_prepared(read, verdict, bytes.len())
            }
            None => prepare_full_text(text, policy),
        },
    }
}

/// The verdict of an event refused before its `id` and `type` could be
/// read (limits, UTF-8, syntax).
fn refused(e: Violation) -> Prepared {
    Prepared::Done(Verdict {
        id: None,
        ty: None,
        errors: vec![e],
    })
}

/// The verdict of a valid event.
fn valid(id: &str, ty: &str) -> Verdict {
    Verdict {
        id: Some(id.to_owned()),
        ty: Some(ty.to_owned()),
        errors: Vec::new(),
    }
}

/// Drop what the cross-checks do not need from a valid request: they need
/// the id, server, mode and the form only; a remembered request holds no
/// more than that.
fn keep_for_checks(request: &mut RequestEvent) {
    request.event = Value::Null;
    if let RequestView::Body(body) = &mut request.view {
        body.params = serde_json::Map::new();
        body.message = String::new();
    }
}

/// [`prepare`] without the fast reading: parse the whole event, then the
/// wire root and the codec with their schemas. Every verdict with
/// violations comes from here.
#[cfg(any(test, feature = "internals"))]
pub fn prepare_full(bytes: &[u8]) -> Prepared {
    prepare_full_with(bytes, SchemaPolicy::Strict)
}

/// What is said of a request refused under the strict policy that the
/// compatible policy reads (events `ahp-elicit mcp --events` recorded from
/// real servers' SDKs are such requests).
pub const COMPATIBLE_WOULD_PASS: &str =
    "it is a valid request under --schema-policy compatible, the policy `ahp-elicit mcp` reads real servers' forms (and records its --events) under";

/// Read the request event `event` under `policy` ([`read_request`], the
/// full reading); a refusal under the strict policy that the compatible
/// policy reads as a form says so: its last violation's message ends with
/// [`COMPATIBLE_WOULD_PASS`]. The note comes from the one reading
/// ([`read_request_noting`]): the event is not parsed or read again.
///
/// Errors: every violation of the reading, noted as said.
pub fn read_request_noted(
    event: Value,
    policy: SchemaPolicy,
) -> Result<RequestEvent, Vec<Violation>> {
    match policy {
        SchemaPolicy::Strict => read_request_noting(event).map_err(noted),
        _ => read_request(event, ReadOptions::with_policy(policy)),
    }
}

/// The violations of a refusal, the note added when the compatible policy
/// reads the event as a form (`form`).
fn noted((mut errors, form): (Vec<Violation>, bool)) -> Vec<Violation> {
    if form {
        note(&mut errors);
    }
    errors
}

/// End the last of `errors` with [`COMPATIBLE_WOULD_PASS`].
pub fn note(errors: &mut [Violation]) {
    if let Some(last) = errors.last_mut() {
        last.message = format!("{} ({COMPATIBLE_WOULD_PASS})", last.message);
    }
}

/// [`prepare_full`] under `policy`.
#[cfg(any(test, feature = "internals"))]
fn prepare_full_with(bytes: &[u8], policy: SchemaPolicy) -> Prepared {
    match checked_text(bytes) {
        Ok(text) => prepare_full_text(text, policy),
        Err(e) => refused(e),
    }
}

/// [`prepare_full_with`] of a text whose limits and UTF-8 were checked
/// ([`checked_text`]): the syntax, then the wire root and the codec.
fn prepare_full_text(text: &str, policy: SchemaPolicy) -> Prepared {
    let v = match parse_checked(text) {
        Ok(v) => v,
        Err(e) => return refused(e),
    };
    if let Some(h) = crate::misplaced::hint(&v) {
        let rule = crate::binding::violation::Rule::WireRoot;
        return Prepared::Done(Verdict {
            id: None,
            ty: None,
            errors: vec![Violation::new("", rule, h)],
        });
    }
    let id = v.get("id").and_then(Value::as_str).map(str::to_owned);
    let ty = v.get("type").and_then(Value::as_str).map(str::to_owned);
    // Some(true): a request; Some(false): a result; None: another type.
    let kind = match ty.as_deref() {
        Some(REQUEST_TYPE) => Some(true),
        Some(RESULT_TYPE) => Some(false),
        _ => None,
    };
    let verdict = move |errors| Verdict { id, ty, errors };
    match kind {
        Some(true) => request_prepared(read_request_noted(v, policy), verdict, text.len()),
        Some(false) => match read_result(v) {
            Ok(mut result) => {
                result.event = Value::Null;
                Prepared::Result {
                    verdict: verdict(Vec::new()),
                    result,
                }
            }
            Err(e) => Prepared::Done(verdict(e)),
        },
        None => {
            let errs = schemas::validate_event(&v);
            let ty = v.get("type").and_then(Value::as_str);
            let errs = if errs.is_empty() {
                envelope_guard(&v, ty)
            } else {
                errs
            };
            Prepared::Done(verdict(suggest_type(errs, ty)))
        }
    }
}

/// What a request's reading gives to the checks in order: a valid
/// request (with its text's `size` in bytes) to remember, or its verdict.
fn request_prepared(
    read: Result<RequestEvent, Vec<Violation>>,
    verdict: impl FnOnce(Vec<Violation>) -> Verdict,
    size: usize,
) -> Prepared {
    match read {
        Ok(mut request) => {
            // Dropped here, on the worker.
            keep_for_checks(&mut request);
            Prepared::Request {
                verdict: verdict(Vec::new()),
                request,
                size,
            }
        }
        Err(e) => Prepared::Done(verdict(e)),
    }
}

/// Validates events one by one, remembering valid request events (at most
/// [`MAX_REMEMBERED`], [`MAX_REMEMBERED_BYTES`]) so that later results are
/// checked against them.
#[derive(Debug, Default)]
pub struct Checker {
    /// Requests from `--request` (when non-empty, the only ones used).
    reference: Vec<RequestEvent>,
    /// Valid requests seen lately, by id, with their place in `order`.
    seen: HashMap<String, (u64, RequestEvent)>,
    /// Remembered ids, oldest first: (id, place, text bytes). An entry whose
    /// place differs from the map's was replaced by a later request with
    /// the same id.
    order: VecDeque<(String, u64, usize)>,
    /// The next place.
    next: u64,
    /// Text bytes of the remembered requests.
    bytes: usize,
    /// Requests forgotten to keep within the bounds.
    forgotten: usize,
    /// Results checked on their own: no remembered request matched.
    alone: usize,
    /// How requests' schemas are read ([`Checker::with_policy`]).
    policy: SchemaPolicy,
}

impl Checker {
    /// A checker; `reference` are the `--request` events (may be empty).
    pub fn new(reference: Vec<RequestEvent>) -> Self {
        Checker {
            reference,
            ..Checker::default()
        }
    }

    /// The same checker reading requests' schemas under `policy` (default
    /// strict: the closed AHP subset).
    pub fn with_policy(mut self, policy: SchemaPolicy) -> Self {
        self.policy = policy;
        self
    }

    /// How many requests are remembered now.
    #[cfg(any(test, feature = "internals"))]
    pub fn remembered(&self) -> usize {
        self.seen.len()
    }

    /// How many requests were forgotten to keep within the bounds, and how
    /// many results were checked on their own (no remembered request).
    pub fn forgotten(&self) -> (usize, usize) {
        (self.forgotten, self.alone)
    }

    fn request_for(&self, res: &ResultEvent) -> Result<Option<&RequestEvent>, Violation> {
        if self.reference.len() == 1 {
            return Ok(self.reference.first());
        }
        if !self.reference.is_empty() {
            return match self.reference.iter().find(|r| r.id == res.parent_event_id) {
                Some(r) => Ok(Some(r)),
                None => Err(Violation::new(
                    "/parentEventId",
                    Rule::ParentId,
                    format!(
                        "no request with id '{}' in the --request file",
                        res.parent_event_id
                    ),
                )),
            };
        }
        Ok(self.seen.get(&res.parent_event_id).map(|(_, r)| r))
    }

    /// Remember a valid request, forgetting the oldest beyond the bounds.
    fn remember(&mut self, request: RequestEvent, size: usize) {
        let place = self.next;
        self.next += 1;
        self.order.push_back((request.id.clone(), place, size));
        self.bytes += size;
        self.seen.insert(request.id.clone(), (place, request));
        while self.order.len() > MAX_REMEMBERED
            || (self.bytes > MAX_REMEMBERED_BYTES && self.order.len() > 1)
        {
            let Some((id, place, size)) = self.order.pop_front() else {
                break;
            };
            self.bytes -= size;
            if self.seen.get(&id).is_some_and(|(p, _)| *p == place) {
                self.seen.remove(&id);
                self.forgotten += 1;
            }
        }
    }

    /// Complete a [`prepare`]d event, in input order: remember a request,
    /// check a result against its request.
    pub fn finish(&mut self, p: Prepared) -> Verdict {
        match p {
            Prepared::Done(v) => v,
            Prepared::Request {
                verdict,
                request,
                size,
            } => {
                self.remember(request, size);
                verdict
            }
            Prepared::Result {
                mut verdict,
                result,
            } => {
                match self.request_for(&result) {
                    Ok(Some(req)) => verdict.errors = check_answer(req, &result),
                    Ok(None) => self.alone += 1,
                    Err(e) => verdict.errors = vec![e],
                }
                verdict
            }
        }
    }

    /// Validate one event text (see the module doc).
    #[cfg(any(test, feature = "internals"))]
    pub fn check(&mut self, bytes: &[u8]) -> Verdict {
        self.finish(prepare_with(bytes, self.policy))
    }
}

/// An unknown event `type`: the `/type` violation says which valid type is
/// nearest (a typo such as `user.elicitation.reqest`).
fn suggest_type(mut errors: Vec<Violation>, ty: Option<&str>) -> Vec<Violation> {
    let Some(t) = ty.filter(|t| !EVENT_TYPES.contains(t)) else {
        return errors;
    };
    let Some(near) = nearest_type(t) else {
        return errors;
    };
    for e in errors.iter_mut().filter(|e| e.pointer() == "/type") {
        e.message = format!(
            "'{t}' is not one of the eight event types of this binding; did you mean '{near}'?"
        );
    }
    errors
}

/// The event type nearest to `t` (edit distance), when it is close enough
/// to be a typo (at most a third of its length, and at most 6 edits).
pub fn nearest_type(t: &str) -> Option<&'static str> {
    let (best, d) = EVENT_TYPES
        .iter()
        .map(|c| (*c, edit_distance(t, c)))
        .min_by_key(|(_, d)| *d)?;
    (d <= (best.len() / 3).min(6)).then_some(best)
}

/// Levenshtein distance by characters.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let cur = row[j + 1];
            row[j + 1] = if ca == *cb {
                prev
            } else {
                1 + prev.min(cur).min(row[j])
            };
            prev = cur;
        }
    }
    row[b.len()]
}

/// The least the wire root demands of an event whose type has no codec: an
/// object with one of the eight types (kept in case a schema says nothing).
fn envelope_guard(v: &Value, ty: Option<&str>) -> Vec<Violation> {
    if !v.is_object() {
        return vec![Violation::new(
            "",
            Rule::WireRoot,
            "an event is a JSON object",
        )];
    }
    match ty {
        None => vec![Violation::new(
            "/type",
            Rule::WireRoot,
            "type is required and must be a string",
        )],
        Some(t) if !EVENT_TYPES.contains(&t) => vec![Violation::new(
            "/type",
            Rule::WireRoot,
            format!("'{t}' is not one of the eight event types of this binding"),
        )],
        Some(_) => Vec::new(),
    }
}

/// Shorten a hostile id for the terminal.
fn shown_id(id: &str) -> String {
    const MAX: usize = 256;
    let s: String = id.chars().take(MAX).collect();
    let s = if id.chars().count() > MAX {
        format!("{s}…")
    } else {
        s
    };
    display(&s).into_owned()
}

/// Write one verdict in `format`.
pub fn write_verdict(
    out: &mut dyn Write,
    format: Format,
    input: &str,
    line: usize,
    v: &Verdict,
) -> std::io::Result<()> {
    match format {
        Format::Json => write_json(out, input, line, v),
        Format::Text => {
            // FILE:LINE first, as compilers do, then the event id.
            let file = if input == "-" {
                "<stdin>".into()
            } else {
                display(input)
            };
            let who = match &v.id {
                Some(id) => format!("{file}:{line}: {}", shown_id(id)),
                None => format!("{file}:{line}"),
            };
            if v.errors.is_empty() {
                writeln!(out, "{who}: valid")
            } else {
                writeln!(out, "{who}: invalid")?;
                for e in &v.errors {
                    let p = e.pointer();
                    let p = if p.is_empty() { "(root)" } else { &p };
                    writeln!(
                        out,
                        "  {} [{}] {}",
                        display(p),
                        display(e.rule.as_str()),
                        display(&e.message)
                    )?;
                }
                Ok(())
            }
        }
    }
}

/// One verdict as one JSON line, keys in the documented order, written
/// without building a JSON value; terminal-unsafe characters escaped as
/// [`crate::safe_text::json_text`] does.
fn write_json(out: &mut dyn Write, input: &str, line: usize, v: &Verdict) -> std::io::Result<()> {
    let mut buf = Vec::with_capacity(128);
    buf.extend_from_slice(b"{\"id\":");
    serde_json::to_writer(&mut buf, &v.id)?;
    buf.extend_from_slice(b",\"type\":");
    serde_json::to_writer(&mut buf, &v.ty)?;
    buf.extend_from_slice(b",\"valid\":");
    buf.extend_from_slice(if v.errors.is_empty() {
        b"true"
    } else {
        b"false"
    });
    buf.extend_from_slice(b",\"errors\":");
    serde_json::to_writer(&mut buf, &v.errors)?;
    buf.extend_from_slice(b",\"input\":");
    serde_json::to_writer(&mut buf, input)?;
    write!(buf, ",\"line\":{line}}}")?;
    // Printable ASCII cannot hold anything unsafe; anything else is looked
    // at. Every byte is tested (no early exit) so the test runs in vector
    // instructions: the common line is all printable.
    if buf
        .iter()
        .fold(true, |ok, &b| ok & (b.wrapping_sub(0x20) < 0x5f))
    {
        buf.push(b'\n');
        return out.write_all(&buf);
    }
    let text = String::from_utf8_lossy(&buf);
    writeln!(out, "{}", crate::safe_text::json_text(&text))
}

/// Batches of at most 64 events (so at most 512 events), and bytes of event
/// text (each event counted as at least 1 KiB), read ahead of the report:
/// the bound on the memory of the parallel check.
pub const WINDOW: crate::stream::ordered::Limits = crate::stream::ordered::Limits {
    items: 512 / BATCH,
    bytes: 4 * 1024 * 1024,
};

/// How one input went.
#[derive(Debug, Default)]
pub struct InputOutcome {
    /// Events read (each got a verdict).
    pub events: usize,
    /// Some event was invalid.
    pub invalid: bool,
    /// Writing a verdict failed (the later ones were not written).
    pub write_failed: bool,
}

/// Check every event of one input, reporting each to `out` in input order
/// (`input` names it in the report). Returns the read result of the input
/// and how it went.
/// The per-event checks run on `workers` threads; the cross-checks of
/// results against remembered requests run in order on this one.
pub fn check_input(
    rd: Box<dyn Read + Send>,
    input: &str,
    checker: &mut Checker,
    out: &mut dyn Write,
    format: Format,
    workers: usize,
) -> (std::io::Result<()>, InputOutcome) {
    let mut o = InputOutcome::default();
    let policy = checker.policy;
    let read = crate::stream::ordered::map_ordered(
        workers,
        WINDOW,
        move |send| {
            split_batches(rd, |batch| {
                let cost = batch
                    .iter()
                    .map(|c| c.bytes.as_ref().map_or(0, Vec::len).max(1024))
                    .sum();
                send(batch, cost)
            })
        },
        |batch: Vec<Chunk>| {
            batch
                .into_iter()
                .map(|c| prepare_chunk(c, policy))
                .collect::<Vec<_>>()
        },
        |done| {
            for (line, p) in done {
                o.events += 1;
                let v = checker.finish(p);
                o.invalid |= !v.errors.is_empty();
                if !o.write_failed && write_verdict(out, format, input, line, &v).is_err() {
                    o.write_failed = true;
                }
            }
        },
    );
    (read, o)
}

/// The order-free checks of one chunk, with its line.
fn prepare_chunk(c: Chunk, policy: SchemaPolicy) -> (usize, Prepared) {
    let p = match c.bytes {
        Ok(b) => prepare_with(&b, policy),
        Err(e) => Prepared::Done(Verdict {
            id: None,
            ty: None,
            errors: vec![e],
        }),
    };
    (c.line, p)
}
