//! Reading the AHP event stream: files or stdin split into event texts by
//! the incremental [`Framer`](crate::stream::Framer) on a reader thread,
//! with backpressure (a bounded channel and a byte budget), so a flood of
//! requests cannot fill memory while a person answers one.

use crate::binding::fast::{read_valid, ValidEvent};
use crate::binding::{parse_json, RequestEvent, SchemaPolicy, Violation, RESULT_TYPE};

// The readers of files and stdin (`spawn_readers` and what it builds on)
// serve the command line only.
use {
    crate::binding::limits::MAX_EVENT_BYTES, crate::files::io_reason, crate::stream::Frame,
    std::io::BufRead, std::path::PathBuf, tokio::sync::mpsc,
};

/// One item read from the input.
#[derive(Debug)]
pub enum Item {
    /// One complete event text and the line where it starts (1-based);
    /// `held` counts its bytes against the read-ahead budget until the item
    /// is dropped.
    Event {
        line: usize,
        bytes: Vec<u8>,
        held: Held,
    },
    /// One event already read as a request on the reader thread (the
    /// order-free part of the boundary checks, [`read_event`]), and the
    /// line where it starts; `held` as for [`Item::Event`].
    Read {
        line: usize,
        read: Box<ReadEvent>,
        held: Held,
    },
    /// Input that is not an event (bad line, too long, truncated document).
    Bad { line: usize, message: String },
    /// The input could not be read.
    ReadError(std::io::Error),
    /// Of several inputs, the one whose items follow (its file name as
    /// given, or `stdin` for `-`): reports of later items name it, since
    /// each input counts its lines from 1.
    Source { name: String },
    /// A named file that held no event at all (nothing to answer).
    Empty { name: String },
}

/// One event text read as a request event ([`read_event`]).
#[derive(Debug, PartialEq)]
pub enum ReadEvent {
    /// The text is not a JSON event (limits, UTF-8, syntax).
    Unreadable(Violation),
    /// A JSON event, but not a valid request event; `id` is its `id` when
    /// that is a string.
    Invalid {
        id: Option<String>,
        errors: Vec<Violation>,
    },
    /// A valid request event; `id` is its `id`.
    Request {
        id: Option<String>,
        request: Box<RequestEvent>,
    },
    /// A valid AHP event of another type (a result in a file `mcp
    /// --events` recorded): nothing to answer, skipped with one line.
    Other { id: Option<String>, ty: String },
}

/// Read one event text as a request event under `policy`: limits, UTF-8
/// and syntax ([`parse_json`]), then the request codec
/// ([`read_request`]: wire root, body, closed form subset).
/// Needs no other event, so the reader thread runs it ahead of the loop.
///
/// Under the strict policy a valid event is read by the fast reading
/// ([`read_valid`]: one pass, no tree of the event, no schema run), and the
/// request's [`RequestEvent::event`] is then `Null`; any event it is not
/// sure of, and every event under the compatible policy, takes
/// [`read_event_full`], the only reading that reports violations. Both give
/// the same answer for every event the fast reading takes (but for
/// `event`).
pub fn read_event(bytes: &[u8], policy: SchemaPolicy) -> ReadEvent {
    if policy == SchemaPolicy::Strict {
        match read_valid(bytes) {
            Some(ValidEvent::Request(request)) => {
                return ReadEvent::Request {
                    id: Some(request.id.clone()),
                    request: Box::new(request),
                }
            }
            Some(ValidEvent::Result(result)) => {
                return ReadEvent::Other {
                    id: Some(result.id),
                    ty: RESULT_TYPE.to_owned(),
                }
            }
            None => {}
        }
    }
    read_event_full(bytes, policy)
}

/// [`read_event`] without the fast reading: the whole event parsed into a
/// tree, then the wire root and the codec with their schemas; the
/// request's [`RequestEvent::event`] is the event as read.
pub fn read_event_full(bytes: &[u8], policy: SchemaPolicy) -> ReadEvent {
    let value = match parse_json(bytes) {
        Ok(v) => v,
        Err(e) => return ReadEvent::Unreadable(e),
    };
    let id = value.get("id").and_then(|v| v.as_str()).map(str::to_owned);
    if let Some(h) = crate::misplaced::hint(&value) {
        let rule = crate::binding::violation::Rule::WireRoot;
        let errors = vec![crate::binding::Violation::new("", rule, h)];
        return ReadEvent::Invalid { id: None, errors };
    }
    let ty = value.get("type").and_then(|v| v.as_str());
    if let Some(t) = ty.filter(|t| *t != crate::binding::REQUEST_TYPE) {
        if crate::validate::EVENT_TYPES.contains(&t)
            && crate::binding::schemas::validate_event(&value).is_empty()
        {
            let ty = t.to_owned();
            return ReadEvent::Other { id, ty };
        }
    }
    match crate::validate::read_request_noted(value, policy) {
        Ok(request) => ReadEvent::Request {
            id,
            request: Box::new(request),
        },
        Err(errors) => ReadEvent::Invalid { id, errors },
    }
}

/// How much an event read ahead counts against the read-ahead budget, per
/// byte of its text: its parsed form ([`Item::Read`]) takes about this many
/// times the text.
pub const PARSED_WEIGHT: usize = 3;

/// Split a byte stream into events with the incremental
/// [`Framer`](crate::stream::Framer): JSON Lines, pretty-printed documents,
/// or both; broken or truncated text is reported with its line number, a
/// document over [`MAX_EVENT_BYTES`] is reported and skipped without being
/// held in memory. One pass over the input. Sends items until end of input
/// or until `send` returns false.
pub fn split_events<R: BufRead>(input: R, mut send: impl FnMut(Item) -> bool) {
    let read = crate::stream::frame_reader(input, MAX_EVENT_BYTES, |f| {
        send(match f {
            Frame::Value { line, bytes } => Item::Event {
                line,
                bytes,
                held: Held::default(),
            },
            Frame::Broken { line, bytes, error } => Item::Bad {
                line,
                message: broken_message(&bytes, &error),
            },
            Frame::TooLong { line, .. } => Item::Bad {
                line,
                message: format!("event longer than the limit of {MAX_EVENT_BYTES} bytes"),
            },
        })
    });
    if let Err(e) = read {
        send(Item::ReadError(e));
    }
}

/// Why broken text is not an event: text that is not UTF-8 under the
/// binding's `utf8` rule (as `validate` reports it), else the framer's
/// JSON message.
fn broken_message(bytes: &[u8], error: &str) -> String {
    if std::str::from_utf8(bytes).is_err() {
        if let Err(v) = crate::binding::parse_json(bytes) {
            return format!("not a JSON event: {v}");
        }
    }
    format!("not a JSON event: {error}")
}

/// How many bytes of event text the reader may hold ahead of the driver
/// (in the channel and the driver's queue together); one event larger than
/// this still passes when nothing else is held.
pub const READ_AHEAD_BYTES: usize = 8 * 1024 * 1024;

/// The read-ahead budget shared by the reader thread and the driver.
#[derive(Debug, Default)]
pub struct Budget {
    state: std::sync::Mutex<Use>,
    freed: std::sync::Condvar,
}

/// The bytes held, and whether the reader waits for some to be freed (only
/// then is it woken: a flowing stream costs no wake-up per event).
#[derive(Debug, Default)]
struct Use {
    used: usize,
    waiting: bool,
}

impl Budget {
    /// Wait until `n` more bytes fit (or nothing is held), then count them.
    pub fn acquire(self: &std::sync::Arc<Self>, n: usize) -> Held {
        let mut st = self.state.lock().unwrap_or_else(|e| e.into_inner());
        while st.used > 0 && st.used + n > READ_AHEAD_BYTES {
            st.waiting = true;
            st = self.freed.wait(st).unwrap_or_else(|e| e.into_inner());
        }
        st.waiting = false;
        st.used += n;
        Held {
            budget: Some(self.clone()),
            n,
        }
    }

    /// Bytes held now.
    #[cfg(test)]
    pub fn used(&self) -> usize {
        self.state.lock().unwrap_or_else(|e| e.into_inner()).used
    }
}

/// Bytes counted against a [`Budget`], given back when dropped.
#[derive(Debug, Default)]
pub struct Held {
    budget: Option<std::sync::Arc<Budget>>,
    n: usize,
}

impl Drop for Held {
    fn drop(&mut self) {
        if let Some(b) = &self.budget {
            let mut st = b.state.lock().unwrap_or_else(|e| e.into_inner());
            st.used = st.used.saturating_sub(self.n);
            if st.waiting {
                b.freed.notify_all();
            }
        }
    }
}

/// How many items the reader thread may read ahead of the driver (in the
/// channel; the driver's queue holds at most as many again).
pub const READ_AHEAD: usize = 256;

/// Start a thread that reads `inputs` one after the other (nothing, or
/// `-`: stdin) and sends their items (at most [`READ_AHEAD`] items and
/// [`READ_AHEAD_BYTES`] of event text ahead of the driver). With
/// `pre_read`, each event is also read as a request under that policy on
/// the reader thread ([`Item::Read`]), so the checks of the next requests
/// run while the loop answers one. Every file is opened first, so a
/// missing one is reported before anything is answered.
///
/// Errors: [`OpenError`] for the first input that cannot be opened.
pub fn spawn_readers(
    inputs: &[PathBuf],
    pre_read: Option<SchemaPolicy>,
) -> Result<mpsc::Receiver<Item>, OpenError> {
    let mut readers: Vec<Input> = Vec::new();
    if inputs.is_empty() {
        readers.push(Input::unnamed(Box::new(std::io::BufReader::new(
            std::io::stdin(),
        ))));
    }
    for p in inputs {
        readers.push(if p.as_os_str() == "-" {
            Input {
                name: Some("stdin".to_owned()),
                file: false,
                reader: Box::new(std::io::BufReader::new(std::io::stdin())),
            }
        } else {
            let f = std::fs::File::open(p).map_err(|source| OpenError {
                path: p.clone(),
                source,
            })?;
            Input {
                name: Some(crate::safe_text::display(&p.display().to_string()).into_owned()),
                file: true,
                reader: Box::new(std::io::BufReader::new(f)),
            }
        });
    }
    Ok(spawn_split_all(
        readers,
        std::sync::Arc::new(Budget::default()),
        pre_read,
    ))
}

/// An input file that could not be opened: "PATH: reason" (the reason as
/// [`io_reason`] words it).
#[derive(Debug, thiserror::Error)]
#[error("{}: {}", .path.display(), io_reason(.source))]
pub struct OpenError {
    /// The file as given.
    pub path: PathBuf,
    /// The operating system's error.
    #[source]
    pub source: std::io::Error,
}

/// Start a thread that splits `reader` into items sent to the returned
/// channel, with backpressure: at most [`READ_AHEAD`] items in the channel
/// and event text within `budget` ([`READ_AHEAD_BYTES`]) between the reader
/// and the end of the driver's work on each item. Events are passed on as
/// text ([`Item::Event`]).
#[cfg(test)]
pub fn spawn_split(
    reader: Box<dyn BufRead + Send>,
    budget: std::sync::Arc<Budget>,
) -> mpsc::Receiver<Item> {
    spawn_split_all(vec![Input::unnamed(reader)], budget, None)
}

/// One input of a run: a reader, with its name (a file as given, or
/// `stdin`) when it is named on the command line.
struct Input {
    name: Option<String>,
    /// A file (not stdin): one without events is said to be empty.
    file: bool,
    reader: Box<dyn BufRead + Send>,
}

impl Input {
    fn unnamed(reader: Box<dyn BufRead + Send>) -> Input {
        Input {
            name: None,
            file: false,
            reader,
        }
    }
}

/// [`spawn_split`] over several readers one after the other; with
/// `pre_read`, events are read as requests ([`Item::Read`], counted
/// [`PARSED_WEIGHT`] times their text). With several readers, each one's
/// items follow an [`Item::Source`]; a file with no event at all gives an
/// [`Item::Empty`].
fn spawn_split_all(
    readers: Vec<Input>,
    budget: std::sync::Arc<Budget>,
    pre_read: Option<SchemaPolicy>,
) -> mpsc::Receiver<Item> {
    // Bounded: the reader stays at most READ_AHEAD events ahead of the
    // answers, so a flood of requests cannot fill memory.
    let (tx, rx) = mpsc::channel(READ_AHEAD);
    let weight = if pre_read.is_some() { PARSED_WEIGHT } else { 1 };
    let several = readers.len() > 1;
    let split = move |send: &mut dyn FnMut(Item) -> bool| {
        let mut open = true;
        for input in readers {
            if !open {
                break;
            }
            if let Some(name) = input.name.clone().filter(|_| several) {
                open = send(Item::Source { name });
            }
            let mut any = false;
            split_events(input.reader, |it| {
                any = true;
                open = open && send(counted(it, &budget, weight));
                open
            });
            if let Some(name) = input.name.filter(|_| open && !any && input.file) {
                open = send(Item::Empty { name });
            }
        }
    };
    let Some(policy) = pre_read else {
        std::thread::spawn(move || split(&mut |it| tx.blocking_send(it).is_ok()));
        return rx;
    };
    // Two stages, each on its own thread: framing, then reading the
    // requests (the costlier part), so both run while the loop answers.
    let (texts, framed) = std::sync::mpsc::sync_channel::<Item>(PRE_READ_QUEUE);
    std::thread::spawn(move || split(&mut |it| texts.send(it).is_ok()));
    std::thread::spawn(move || {
        for it in framed {
            if tx.blocking_send(read_ahead(it, policy)).is_err() {
                break;
            }
        }
    });
    rx
}

/// How many framed events wait between the framing and the reading stage.
const PRE_READ_QUEUE: usize = 64;

/// An event counted against `budget` (`weight` per byte of its text).
fn counted(it: Item, budget: &std::sync::Arc<Budget>, weight: usize) -> Item {
    match it {
        Item::Event { line, bytes, .. } => {
            let held = budget.acquire(bytes.len().saturating_mul(weight));
            Item::Event { line, bytes, held }
        }
        other => other,
    }
}

/// An event read as a request under `policy` ([`Item::Read`]; its text is
/// dropped, its share of the budget kept).
fn read_ahead(it: Item, policy: SchemaPolicy) -> Item {
    match it {
        Item::Event { line, bytes, held } => Item::Read {
            line,
            read: Box::new(read_event(&bytes, policy)),
            held,
        },
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn split(s: &str) -> Vec<String> {
        let mut out = Vec::new();
        split_events(std::io::Cursor::new(s.as_bytes().to_vec()), |it| {
            out.push(match it {
                Item::Event { line, bytes, .. } => {
                    format!("event@{line}:{}", String::from_utf8_lossy(&bytes).trim())
                }
                Item::Bad { line, message } => {
                    format!("bad@{line}:{}", &message[..10.min(message.len())])
                }
                Item::Read { line, .. } => format!("request@{line}"),
                Item::ReadError(e) => format!("read:{e}"),
                Item::Source { name } => format!("source:{name}"),
                Item::Empty { name } => format!("empty:{name}"),
            });
            true
        });
        out
    }

    #[test]
    fn json_lines_with_a_bad_line() {
        let got = split("{\"a\":1}\nnot json\n\n{\"b\":2}\n");
        assert_eq!(
            got,
            vec!["event@1:{\"a\":1}", "bad@2:not a JSON", "event@4:{\"b\":2}"]
        );
    }

    #[test]
    fn a_line_that_is_not_utf8_is_reported_under_the_utf8_rule() {
        let mut out = Vec::new();
        let input = b"{\"a\":1}\n\xff\xfe\n{\"b\":2}\n".to_vec();
        split_events(std::io::Cursor::new(input), |it| {
            if let Item::Bad { line, message } = it {
                out.push((line, message));
            }
            true
        });
        assert_eq!(
            out,
            vec![(
                2,
                "not a JSON event: (root): [utf8] input is not UTF-8: invalid byte at offset 0"
                    .to_owned()
            )]
        );
    }

    #[test]
    fn pretty_document_spans_lines() {
        let got = split("{\n  \"a\": [\n    1\n  ]\n}\n{\"b\":2}");
        assert_eq!(got.len(), 2);
        assert!(got[0].starts_with("event@1:{"));
        assert_eq!(got[1], "event@6:{\"b\":2}");
    }

    #[test]
    fn truncated_line_is_reported_and_next_is_kept() {
        let got = split("{\"a\":\n{\"b\":2}\n{\"c\":");
        assert_eq!(
            got,
            vec!["bad@1:not a JSON", "event@2:{\"b\":2}", "bad@3:not a JSON"]
        );
    }

    #[test]
    fn inner_brace_in_column_0_is_part_of_the_event() {
        let got = split("{\"a\":\n{\"b\":2}\n}\n{\"c\":3}\n");
        assert_eq!(
            got,
            vec!["event@1:{\"a\":\n{\"b\":2}\n}", "event@4:{\"c\":3}"]
        );
    }

    #[test]
    fn the_budget_blocks_the_reader_until_the_driver_drops_items() {
        let big = format!("{{\"a\":\"{}\"}}\n", "x".repeat(READ_AHEAD_BYTES / 3));
        let input = big.repeat(8);
        let budget = std::sync::Arc::new(Budget::default());
        let mut rx = spawn_split(
            Box::new(std::io::Cursor::new(input.into_bytes())),
            budget.clone(),
        );
        let mut kept = Vec::new();
        for _ in 0..8 {
            let it = rx.blocking_recv().unwrap();
            assert!(matches!(it, Item::Event { .. }));
            // Never more than the budget held, however many are read ahead.
            assert!(budget.used() <= READ_AHEAD_BYTES, "{}", budget.used());
            kept.push(it);
            if kept.len() == 2 {
                kept.clear();
            }
        }
        drop(kept);
        assert!(rx.blocking_recv().is_none(), "eight events, then the end");
        assert_eq!(budget.used(), 0);
    }
}
