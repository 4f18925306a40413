//! `ahp-elicit validate` (issue 2 item 5): validate events through the wire
//! root and the binding, one report per event.
//!
//! Input: each FILE (or `-`, stdin; the default) holds one JSON event
//! (pretty-printed or not), JSON Lines of events, or several documents. An
//! input is read ([`split_input`]) by the incremental framer of
//! [`crate::stream`], the same as `respond`'s: one pass, bounded memory;
//! broken or truncated text is reported with its line number and the events
//! after it are still read; an event over [`MAX_EVENT_BYTES`] is reported
//! (rule `limits`) and skipped unread.
//!
//! Each event goes through [`crate::binding`]: [`parse_json`] (limits, UTF-8,
//! syntax), then by `type`: [`read_request_event`], [`read_result_event`]
//! (and [`check_answer`] against the request with id equal to its
//! `parentEventId`: from `--request FILE`, else one seen earlier in the
//! inputs), or for the other event types [`schemas::validate_event`].
//!
//! Output (stdout): text, one line per event `<id>: valid` or
//! `<id>: invalid` followed by indented `pointer [rule] message` lines
//! (server text passed through [`crate::safe_text::display`]); or with
//! `--format json` one object per event per line,
//! `{"id", "type", "valid", "errors": [{"pointer", "rule", "message"}], "input", "line"}`
//! (`id` and `type` are null when the event has none, e.g. not JSON).
//!
//! Exit: 0 every event valid; 1 some event invalid (or an input holds no
//! event); 2 usage or an input that cannot be read.

use std::collections::HashMap;
use std::io::{BufReader, Read, Write};
use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use crate::binding::elicitation::{REQUEST_TYPE, RESULT_TYPE};
use crate::binding::limits::MAX_EVENT_BYTES;
use crate::binding::{
    check_answer, parse_json, read_request_event, read_result_event, schemas, RequestEvent,
    ResultEvent, Violation,
};
use crate::safe_text::display;
use crate::stream::Frame;

/// The eight event types of the binding (spec 3).
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
    /// `<id>: valid|invalid` and indented `pointer [rule] message` lines.
    Text,
    /// One JSON object per event per line.
    Json,
}

/// Arguments of `ahp-elicit validate`.
#[derive(Debug, clap::Args)]
#[command(after_help = "\
Each input is one JSON event or JSON Lines of events. Results are checked against \
the request with id equal to their parentEventId: from --request FILE, else one seen \
earlier in the inputs (a result with no known request is checked on its own).\n\n\
Exit status: 0 all events valid, 1 some event invalid, 2 usage or unreadable input.")]
pub struct ValidateArgs {
    /// Files to validate; `-` is stdin (the default when none is given).
    #[arg(value_name = "FILE|-")]
    pub inputs: Vec<PathBuf>,
    /// The request event(s) that results answer (one event or JSON Lines).
    #[arg(long, value_name = "FILE")]
    pub request: Option<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
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
    let reader = BufReader::with_capacity(64 * 1024, input);
    crate::stream::frame_reader(reader, MAX_EVENT_BYTES, |f| {
        let line = f.line();
        let bytes = match f {
            Frame::Value { bytes, .. } | Frame::Broken { bytes, .. } => Ok(bytes),
            Frame::TooLong { len, .. } => Err(Violation::new(
                "",
                "limits",
                format!(
                    "the event holds {len} bytes or more, over the limit of {MAX_EVENT_BYTES} bytes per event"
                ),
            )),
        };
        each(Chunk { line, bytes });
        true
    })
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

/// Validates events one by one, remembering valid request events so that
/// later results are checked against them.
#[derive(Debug, Default)]
pub struct Checker {
    /// Requests from `--request` (when non-empty, the only ones used).
    reference: Vec<RequestEvent>,
    /// Valid requests seen so far, by id.
    seen: HashMap<String, RequestEvent>,
}

impl Checker {
    /// A checker; `reference` are the `--request` events (may be empty).
    pub fn new(reference: Vec<RequestEvent>) -> Self {
        Checker {
            reference,
            seen: HashMap::new(),
        }
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
                    "parent-id",
                    format!(
                        "no request with id '{}' in the --request file",
                        res.parent_event_id
                    ),
                )),
            };
        }
        Ok(self.seen.get(&res.parent_event_id))
    }

    /// Validate one event text (see the module doc).
    pub fn check(&mut self, bytes: &[u8]) -> Verdict {
        let v = match parse_json(bytes) {
            Ok(v) => v,
            Err(e) => {
                return Verdict {
                    id: None,
                    ty: None,
                    errors: vec![e],
                }
            }
        };
        let id = v.get("id").and_then(Value::as_str).map(str::to_owned);
        let ty = v.get("type").and_then(Value::as_str).map(str::to_owned);
        let errors = match ty.as_deref() {
            Some(REQUEST_TYPE) => match read_request_event(&v) {
                Ok(r) => {
                    self.seen.insert(r.id.clone(), r);
                    Vec::new()
                }
                Err(e) => e,
            },
            Some(RESULT_TYPE) => match read_result_event(&v) {
                Ok(res) => match self.request_for(&res) {
                    Ok(Some(req)) => check_answer(req, &res),
                    Ok(None) => Vec::new(),
                    Err(e) => vec![e],
                },
                Err(e) => e,
            },
            _ => {
                let errs = schemas::validate_event(&v);
                if errs.is_empty() {
                    envelope_guard(&v, ty.as_deref())
                } else {
                    errs
                }
            }
        };
        Verdict { id, ty, errors }
    }
}

/// The least the wire root demands of an event whose type has no codec: an
/// object with one of the eight types (kept in case a schema says nothing).
fn envelope_guard(v: &Value, ty: Option<&str>) -> Vec<Violation> {
    if !v.is_object() {
        return vec![Violation::new("", "wire-root", "an event is a JSON object")];
    }
    match ty {
        None => vec![Violation::new(
            "/type",
            "wire-root",
            "type is required and must be a string",
        )],
        Some(t) if !EVENT_TYPES.contains(&t) => vec![Violation::new(
            "/type",
            "wire-root",
            format!("'{t}' is not one of the eight event types of this binding"),
        )],
        Some(_) => Vec::new(),
    }
}

fn open(path: &Path) -> std::io::Result<Box<dyn Read>> {
    if path.as_os_str() == "-" {
        Ok(Box::new(std::io::stdin().lock()))
    } else {
        Ok(Box::new(std::fs::File::open(path)?))
    }
}

fn name(path: &Path) -> String {
    if path.as_os_str() == "-" {
        "-".into()
    } else {
        path.display().to_string()
    }
}

/// Load the `--request` events. Errors: unreadable (exit 2) or invalid
/// (reported on stderr, exit at least 1; the valid ones are kept).
fn load_reference(path: &Path) -> Result<(Vec<RequestEvent>, bool), String> {
    let mut reqs = Vec::new();
    let mut problems = Vec::new();
    let rd = open(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    split_input(rd, |c| {
        let r = c.bytes.map_err(|e| vec![e]).and_then(|b| {
            parse_json(&b)
                .map_err(|e| vec![e])
                .and_then(|v| read_request_event(&v))
        });
        match r {
            Ok(r) => reqs.push(r),
            Err(es) => problems.push((c.line, es)),
        }
    })
    .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let who = display(&name(path)).into_owned();
    for (line, es) in &problems {
        eprintln!("ahp-elicit validate: --request {who}:{line}: not a valid request event");
        for e in es {
            eprintln!("  {}", display(&e.to_string()));
        }
    }
    if reqs.is_empty() && problems.is_empty() {
        eprintln!("ahp-elicit validate: --request {who}: no event found");
        return Ok((reqs, true));
    }
    Ok((reqs, !problems.is_empty()))
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
        Format::Json => {
            let o = json!({
                "id": v.id,
                "type": v.ty,
                "valid": v.errors.is_empty(),
                "errors": v.errors,
                "input": input,
                "line": line,
            });
            writeln!(out, "{}", super::respond::terminal_safe(&o.to_string()))
        }
        Format::Text => {
            let who = match &v.id {
                Some(id) => shown_id(id),
                None => format!("{}:{line}", display(input)),
            };
            if v.errors.is_empty() {
                writeln!(out, "{who}: valid")
            } else {
                writeln!(out, "{who}: invalid")?;
                for e in &v.errors {
                    let p = if e.pointer.is_empty() {
                        "(root)"
                    } else {
                        &e.pointer
                    };
                    writeln!(
                        out,
                        "  {} [{}] {}",
                        display(p),
                        display(&e.rule),
                        display(&e.message)
                    )?;
                }
                Ok(())
            }
        }
    }
}

/// Run the command; returns the exit code.
pub fn run(args: ValidateArgs) -> u8 {
    let mut worst = super::EXIT_OK;
    let reference = match &args.request {
        None => Vec::new(),
        Some(p) => match load_reference(p) {
            Ok((r, bad)) => {
                if bad {
                    worst = super::EXIT_INVALID;
                }
                r
            }
            Err(m) => {
                eprintln!("ahp-elicit validate: {}", display(&m));
                return super::EXIT_USAGE;
            }
        },
    };
    let inputs = if args.inputs.is_empty() {
        vec![PathBuf::from("-")]
    } else {
        args.inputs.clone()
    };
    let mut checker = Checker::new(reference);
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let mut unreadable = false;
    for path in &inputs {
        let input = name(path);
        let rd = match open(path) {
            Ok(r) => r,
            Err(e) => {
                eprintln!("ahp-elicit validate: cannot read {}: {e}", display(&input));
                unreadable = true;
                continue;
            }
        };
        let mut count = 0usize;
        let mut write_failed = false;
        let res = split_input(rd, |c| {
            count += 1;
            let v = match c.bytes {
                Ok(b) => checker.check(&b),
                Err(e) => Verdict {
                    id: None,
                    ty: None,
                    errors: vec![e],
                },
            };
            if !v.errors.is_empty() {
                worst = super::EXIT_INVALID;
            }
            if write_verdict(&mut out, args.format, &input, c.line, &v).is_err() {
                write_failed = true;
            }
        });
        if let Err(e) = res {
            eprintln!("ahp-elicit validate: cannot read {}: {e}", display(&input));
            unreadable = true;
        } else if count == 0 {
            eprintln!("ahp-elicit validate: {}: no event found", display(&input));
            worst = super::EXIT_INVALID;
        }
        if write_failed {
            unreadable = true;
        }
    }
    if out.flush().is_err() {
        unreadable = true;
    }
    if unreadable {
        super::EXIT_USAGE
    } else {
        worst
    }
}
