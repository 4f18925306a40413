//! `ahp-elicit respond`: the stream driver (issue 3 items 1, 7, 9, 10;
//! issue 5 items 5 and 6).
//!
//! Requests are read from FILE or stdin as they arrive (one JSON document,
//! pretty-printed or not, or JSON Lines), each validated at the boundary,
//! answered by a [`Responder`] (the terminal, or a script), and its result
//! event built, validated and written as one JSON line, flushed at once.
//! Every request that is read gets exactly one result event or one clear
//! error on stderr; nothing is lost, nothing is invented.

use std::collections::VecDeque;
use std::io::{BufRead, Write};
use std::path::PathBuf;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use crate::binding::limits::MAX_EVENT_BYTES;
use crate::binding::{
    make_result_event, parse_json, take_request_event_with, Action, Answer, Mode, ResultMeta,
    SchemaPolicy, Violation,
};
use crate::responder::{Context, Outcome, Progress, RespondError, Responder};
use crate::stream::Frame;

/// Arguments of `ahp-elicit respond`.
#[derive(Debug, Clone, clap::Args)]
#[command(after_help = "\
Examples:\n  ahp-elicit respond < requests.jsonl > results.jsonl\n  \
ahp-elicit respond examples/form-every-kind.request.json\n  \
ahp-elicit respond --action decline examples/stream.requests.jsonl\n\n\
The form is drawn on the controlling terminal (/dev/tty); stdin and stdout carry events. \
When stdout is that terminal, the results are written after the screen is given back.\n\n\
Exit status: 0 every request got a result, 1 a request was invalid or an answer was refused, \
2 usage or I/O error (or no terminal and no --answers/--action), 130 quit with Ctrl-C twice, \
128+N ended by signal N.")]
pub struct RespondArgs {
    /// Request events: files read in turn, or `-` / nothing for stdin. Each
    /// holds one JSON event or JSON Lines; a stream may stay open, requests
    /// are answered as they come (line numbers count within each file).
    #[arg(value_name = "FILE")]
    pub inputs: Vec<PathBuf>,
    /// Write result events here (JSON Lines) instead of stdout.
    #[arg(long, short)]
    pub output: Option<PathBuf>,
    /// Theme: default, light, high-contrast, monochrome, or a TOML file
    /// (PATH). NO_COLOR selects monochrome unless a theme is given.
    #[arg(long, value_name = "NAME|PATH")]
    pub theme: Option<String>,
    /// Answer from a file instead of a terminal: {"action":..,"content":{..}}
    /// for every request, or an object keyed by request event id.
    #[arg(long, conflicts_with = "action")]
    pub answers: Option<PathBuf>,
    /// Answer every request with this action, without a terminal (accept
    /// submits a form as shown, defaults pre-filled; on a URL request it is
    /// consent to open).
    #[arg(long, value_parser = action_values())]
    pub action: Option<Action>,
    /// `source.adapter` of the result events.
    #[arg(long, default_value = "ahp-elicit")]
    pub source_adapter: String,
    /// Cancel a request left unanswered this long: seconds (`120`) or a
    /// duration (`2m`, `1.5s`); finite and positive.
    #[arg(long, value_name = "DURATION", value_parser = super::parse_duration, allow_hyphen_values = true)]
    pub timeout: Option<Duration>,
    /// Modes this responder advertises and answers (comma separated).
    #[arg(long, value_delimiter = ',', default_value = "form,url", value_parser = mode_values())]
    pub modes: Vec<Mode>,
    /// Open consented URLs with CMD (no shell; the URL is added as its last argument) instead of the
    /// system browser.
    #[arg(long, value_name = "CMD", conflicts_with = "no_open")]
    pub browser: Option<String>,
    /// Never open a URL: show it for copying; consent is still recorded.
    #[arg(long)]
    pub no_open: bool,
    /// Log events and decisions (JSON Lines) to FILE; URL queries and
    /// fragments redacted, no form values.
    #[arg(long, value_name = "FILE")]
    pub log: Option<PathBuf>,
    /// With --log, also log form values.
    #[arg(long, requires = "log")]
    pub log_values: bool,
    /// Plain mode: ask line by line (screen readers, dumb terminals); also
    /// chosen by TERM=dumb or AHP_ELICIT_PLAIN=1.
    #[arg(long)]
    pub plain: bool,
    /// How a requestedSchema outside the closed AHP form subset is read:
    /// strict refuses it (the AHP rule); compatible draws what real servers
    /// send, lists the keywords it ignored, enforces the assertions it can,
    /// and shows a shape it cannot take as a request to decline or cancel.
    #[arg(long, value_enum, default_value = "strict", value_name = "POLICY")]
    pub schema_policy: SchemaPolicy,
}

/// clap value parser for `--action`, with its possible values listed in
/// `--help` and completions.
pub fn action_values() -> impl clap::builder::TypedValueParser<Value = Action> {
    use clap::builder::TypedValueParser;
    clap::builder::PossibleValuesParser::new(["accept", "decline", "cancel"])
        .try_map(|s| parse_action(&s))
}

/// clap value parser for one `--modes` entry, with its possible values
/// listed in `--help` and completions.
pub fn mode_values() -> impl clap::builder::TypedValueParser<Value = Mode> {
    use clap::builder::TypedValueParser;
    clap::builder::PossibleValuesParser::new(["form", "url"]).try_map(|s| parse_mode(&s))
}

/// A clap value parser for one word out of a fixed list: `--help` and the
/// completions list the words, and a wrong one is refused as "'x' is not
/// form or url" (the sentence the commands have always given).
#[derive(Debug, Clone, Copy)]
pub struct OneOf(pub &'static [&'static str]);

impl clap::builder::TypedValueParser for OneOf {
    type Value = String;

    fn parse_ref(
        &self,
        _cmd: &clap::Command,
        _arg: Option<&clap::Arg>,
        value: &std::ffi::OsStr,
    ) -> Result<String, clap::Error> {
        let v = value.to_string_lossy();
        if self.0.contains(&v.trim()) {
            return Ok(v.trim().to_owned());
        }
        let list = match self.0 {
            [a, b] => format!("{a} or {b}"),
            words => words.join(", "),
        };
        Err(clap::Error::raw(
            clap::error::ErrorKind::InvalidValue,
            format!("'{v}' is not {list}\n"),
        ))
    }

    fn possible_values(
        &self,
    ) -> Option<Box<dyn Iterator<Item = clap::builder::PossibleValue> + '_>> {
        Some(Box::new(
            self.0.iter().map(|w| clap::builder::PossibleValue::new(*w)),
        ))
    }
}

/// clap value parser for `--action`.
pub fn parse_action(s: &str) -> Result<Action, String> {
    Action::parse(s).ok_or_else(|| format!("'{s}' is not accept, decline or cancel"))
}

/// clap value parser for one `--modes` entry.
pub fn parse_mode(s: &str) -> Result<Mode, String> {
    Mode::parse(s.trim()).ok_or_else(|| format!("'{s}' is not form or url"))
}

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
    /// Input that is not an event (bad line, too long, truncated document).
    Bad { line: usize, message: String },
    /// The input could not be read.
    ReadError(String),
}

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
            Frame::Broken { line, error, .. } => Item::Bad {
                line,
                message: format!("not a JSON event: {error}"),
            },
            Frame::TooLong { line, .. } => Item::Bad {
                line,
                message: format!("event longer than the limit of {MAX_EVENT_BYTES} bytes"),
            },
        })
    });
    if let Err(e) = read {
        send(Item::ReadError(e.to_string()));
    }
}

/// How many bytes of event text the reader may hold ahead of the driver
/// (in the channel and the driver's queue together); one event larger than
/// this still passes when nothing else is held.
pub const READ_AHEAD_BYTES: usize = 8 * 1024 * 1024;

/// The read-ahead budget shared by the reader thread and the driver.
#[derive(Debug, Default)]
pub struct Budget {
    used: std::sync::Mutex<usize>,
    freed: std::sync::Condvar,
}

impl Budget {
    /// Wait until `n` more bytes fit (or nothing is held), then count them.
    pub fn acquire(self: &std::sync::Arc<Self>, n: usize) -> Held {
        let mut used = self.used.lock().unwrap_or_else(|e| e.into_inner());
        while *used > 0 && *used + n > READ_AHEAD_BYTES {
            used = self.freed.wait(used).unwrap_or_else(|e| e.into_inner());
        }
        *used += n;
        Held {
            budget: Some(self.clone()),
            n,
        }
    }

    /// Bytes held now.
    pub fn used(&self) -> usize {
        *self.used.lock().unwrap_or_else(|e| e.into_inner())
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
            let mut used = b.used.lock().unwrap_or_else(|e| e.into_inner());
            *used = used.saturating_sub(self.n);
            b.freed.notify_all();
        }
    }
}

/// Where result lines go: stdout or `--output FILE`. Each line is written
/// with one write and flushed (never half a line).
///
/// When stdout is the terminal the UI draws on, a line written while a
/// screen is up would land on the alternate screen (garbling the frame and
/// vanishing on exit), so a held sink ([`Sink::hold`]) keeps the lines and
/// [`Sink::release`] writes them, in order and byte for byte as a pipe gets
/// them, once the terminal is given back.
pub struct Sink {
    out: Box<dyn Write>,
    /// Lines kept back while the UI owns the terminal (`None`: write at once).
    held: Option<Vec<u8>>,
}

impl Sink {
    /// Open stdout or FILE (created or truncated).
    ///
    /// Errors: the file cannot be created; the message names the path.
    pub fn open(path: Option<&PathBuf>) -> std::io::Result<Sink> {
        let out: Box<dyn Write> = match path {
            // 0600, and never through a symbolic link.
            Some(p) => Box::new(crate::files::open_private(
                p,
                crate::files::Existing::Truncate,
            )?),
            None => Box::new(std::io::stdout()),
        };
        Ok(Sink { out, held: None })
    }

    /// Keep every line until [`Sink::release`] (stdout is the UI's terminal).
    pub fn hold(mut self) -> Sink {
        self.held = Some(Vec::new());
        self
    }

    /// Write one event as one line and flush (or keep it, when held).
    pub fn emit(&mut self, event: &serde_json::Value) -> std::io::Result<()> {
        let mut line = terminal_safe_json(event)
            .map_err(std::io::Error::other)?
            .into_bytes();
        line.push(b'\n');
        if let Some(held) = self.held.as_mut() {
            held.extend_from_slice(&line);
            return Ok(());
        }
        self.out.write_all(&line)?;
        self.out.flush()
    }

    /// Write the held lines (if any) and write at once from now on. Call it
    /// after the terminal is given back.
    pub fn release(&mut self) -> std::io::Result<()> {
        match self.held.take() {
            Some(bytes) if !bytes.is_empty() => {
                self.out.write_all(&bytes)?;
                self.out.flush()
            }
            _ => Ok(()),
        }
    }
}

/// An I/O error as a plain reason ("no such file or directory"), without
/// Rust's "(os error 2)".
pub fn io_reason(e: &std::io::Error) -> String {
    crate::files::io_reason(e)
}

/// Serialize `v` as compact JSON in which every character that
/// [`safe_text::is_unsafe`](crate::safe_text::is_unsafe) flags is written as
/// a `\uXXXX` escape (serde_json already escapes C0 controls; this also
/// covers DEL, C1 controls, bidi and zero-width characters). The value is
/// unchanged: a JSON reader gets the original strings back, and printing the
/// line on a terminal cannot inject anything.
pub fn terminal_safe_json(v: &serde_json::Value) -> serde_json::Result<String> {
    Ok(terminal_safe(&serde_json::to_string(v)?))
}

/// JSON text `s` with every unsafe character written as a `\uXXXX` escape
/// (see [`terminal_safe_json`]). `s` must be JSON text: there, a raw
/// newline, tab or carriage return is whitespace between tokens (kept), and
/// every other unsafe character stands inside a string.
pub fn terminal_safe(s: &str) -> String {
    let unsafe_char = |c: char| !matches!(c, '\n' | '\r' | '\t') && crate::safe_text::is_unsafe(c);
    if !s.chars().any(unsafe_char) {
        return s.to_owned();
    }
    let mut out = String::with_capacity(s.len() + 16);
    for c in s.chars() {
        if unsafe_char(c) {
            let mut units = [0u16; 2];
            for u in c.encode_utf16(&mut units) {
                out.push_str(&format!("\\u{:04x}", u));
            }
        } else {
            out.push(c);
        }
    }
    out
}

pub use crate::notice::{say, HoldStderr};

fn report(line: usize, id: Option<&str>, what: &str, errs: &[Violation]) {
    // `what` may quote the request (a gap's reason, a refusal's reasons).
    let what = crate::safe_text::display(what);
    let mut msg = match id {
        Some(id) if !id.is_empty() => format!(
            "ahp-elicit: request {} (line {line}): {what}",
            crate::safe_text::display(id)
        ),
        _ => format!("ahp-elicit: line {line}: {what}"),
    };
    for e in errs {
        msg.push_str(&format!(
            "\n  {}",
            crate::safe_text::display(&e.to_string())
        ));
    }
    say(msg);
}

/// The outcome of a whole run.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Tally {
    pub answered: usize,
    pub failed: usize,
    /// A fatal I/O or terminal error ended the run (exit 2).
    pub fatal: bool,
    /// The person quit (Ctrl-C twice): exit 130, as after an interrupt.
    pub quit: bool,
}

impl Tally {
    /// Exit code (issue 3 item 10).
    pub fn exit_code(&self) -> u8 {
        if self.fatal {
            super::EXIT_USAGE
        } else if self.quit {
            super::EXIT_INTERRUPTED
        } else if self.failed > 0 {
            super::EXIT_INVALID
        } else {
            super::EXIT_OK
        }
    }
}

/// After a quit, how long the driver still waits for input before it ends
/// the run (input arriving within this time is answered `cancel`).
pub const QUIT_DRAIN: Duration = Duration::from_millis(500);

/// Drive a stream of items through `responder` into `sink`.
/// `interactive` makes the driver call [`Responder::idle`] while it waits.
pub fn drive(
    items: mpsc::Receiver<Item>,
    responder: &mut dyn Responder,
    sink: &mut Sink,
    args: &RespondArgs,
    interactive: bool,
    log: Option<SharedLog>,
) -> Tally {
    let note = |f: &mut dyn FnMut(&mut crate::log::EventLog) -> Result<(), String>| {
        if let Some(l) = &log {
            if let Err(e) = f(&mut l.borrow_mut()) {
                say(format!("ahp-elicit: cannot write the log: {e}"));
            }
        }
    };
    let mut tally = Tally::default();
    let mut queue: VecDeque<Item> = VecDeque::new();
    let mut quit = false;
    let mut index = 0usize;
    let meta = ResultMeta {
        adapter: args.source_adapter.clone(),
        ..ResultMeta::default()
    };
    let mut open = true;
    let mut busy = false;
    loop {
        // Take in what has arrived, up to the queue's bound: the rest waits
        // in the bounded channel, and the reader waits for room.
        while queue.len() < READ_AHEAD {
            match items.try_recv() {
                Ok(it) => queue.push_back(it),
                Err(_) => break,
            }
        }
        let item = match queue.pop_front() {
            Some(it) => it,
            None if !open => break,
            None if quit => {
                // Quit (a second Ctrl-C, or a signal): what arrives promptly
                // (the rest of a file) still gets `cancel`, then the run
                // ends; it does not wait for a live stream to close.
                match items.recv_timeout(QUIT_DRAIN) {
                    Ok(it) => it,
                    Err(_) => break,
                }
            }
            None => {
                // Right after work (a stream is flowing) the wait is short,
                // so a flood is taken in at full speed; the screen still
                // redraws and reads keys in between.
                let wait = Duration::from_millis(if busy { 1 } else { 100 });
                busy = false;
                if interactive && !quit {
                    if responder.idle(wait) {
                        quit = true;
                    }
                    match items.try_recv() {
                        Ok(it) => it,
                        Err(mpsc::TryRecvError::Empty) => continue,
                        Err(mpsc::TryRecvError::Disconnected) => {
                            open = false;
                            continue;
                        }
                    }
                } else {
                    match items.recv() {
                        Ok(it) => it,
                        Err(_) => {
                            open = false;
                            continue;
                        }
                    }
                }
            }
        };
        busy = true;
        let (line, bytes) = match item {
            Item::Event { line, bytes, .. } => (line, bytes),
            Item::Bad { line, message } => {
                report(line, None, &message, &[]);
                tally.failed += 1;
                continue;
            }
            Item::ReadError(e) => {
                say(format!("ahp-elicit: cannot read the input: {e}"));
                tally.fatal = true;
                break;
            }
        };
        let value = match parse_json(&bytes) {
            Ok(v) => v,
            Err(e) => {
                note(&mut |l| l.request_invalid(None, std::slice::from_ref(&e)));
                report(line, None, "invalid event", &[e]);
                tally.failed += 1;
                continue;
            }
        };
        let id = value.get("id").and_then(|v| v.as_str()).map(str::to_owned);
        let req = match take_request_event_with(value, args.schema_policy) {
            Ok(r) => r,
            Err(errs) => {
                note(&mut |l| l.request_invalid(id.as_deref(), &errs));
                report(line, id.as_deref(), "invalid request, no result", &errs);
                tally.failed += 1;
                continue;
            }
        };
        note(&mut |l| {
            l.set_current(&req.id);
            l.request_received(&req)?;
            if args.schema_policy == SchemaPolicy::Compatible && req.mode == Mode::Form {
                l.schema_policy(&req)?;
            }
            Ok(())
        });
        if !args.modes.contains(&req.mode) {
            report(
                line,
                id.as_deref(),
                &format!(
                    "{} mode is not advertised (--modes), no result",
                    req.mode.as_str()
                ),
                &[],
            );
            tally.failed += 1;
            continue;
        }
        index += 1;
        // Take in what has already arrived, so "request 2 of 5" counts the
        // requests that are waiting (a short pause: a file is read at once,
        // a live stream costs 20 ms). One window in all, not 20 ms per item:
        // a stream that never pauses must not hold back the first answer.
        let window_end = Instant::now() + Duration::from_millis(20);
        loop {
            let left = window_end.saturating_duration_since(Instant::now());
            if left.is_zero() || queue.len() >= READ_AHEAD {
                break;
            }
            match items.recv_timeout(left) {
                Ok(it) => queue.push_back(it),
                Err(_) => break,
            }
        }
        let outcome = if quit {
            Ok(Outcome::Answer(Answer::bare(Action::Cancel)))
        } else {
            let cx = Context {
                progress: Progress {
                    index,
                    total: index
                        + queue
                            .iter()
                            .filter(|i| matches!(i, Item::Event { .. }))
                            .count(),
                },
                deadline: args.timeout.and_then(|d| Instant::now().checked_add(d)),
                modes: args.modes.clone(),
            };
            responder.respond(&req, &cx)
        };
        let answer = match outcome {
            Ok(Outcome::Answer(a)) => a,
            Ok(Outcome::Quit) => {
                quit = true;
                Answer::bare(Action::Cancel)
            }
            Err(RespondError::Refused(m)) => {
                // The report already names the request.
                let m = m
                    .strip_prefix(&format!("request {}: ", req.id))
                    .map(str::to_owned)
                    .unwrap_or(m);
                note(&mut |l| {
                    l.answer_refused(&req.id, &[Violation::new("", "answer-refused", m.clone())])
                });
                report(
                    line,
                    id.as_deref(),
                    &format!("answer refused, no result: {m}"),
                    &[],
                );
                tally.failed += 1;
                continue;
            }
            Err(RespondError::Io(m)) => {
                report(line, id.as_deref(), &format!("no result: {m}"), &[]);
                tally.fatal = true;
                break;
            }
        };
        note(&mut |l| l.decision(&req.id, &answer));
        match make_result_event(&req, &answer, &meta) {
            Ok(ev) => match sink.emit(&ev) {
                Ok(()) => {
                    tally.answered += 1;
                    let rid = ev["id"].as_str().unwrap_or_default().to_owned();
                    note(&mut |l| l.result_emitted(&rid, &req.id, answer.action));
                }
                // A closed stdout ends the run quietly (issue 5 item 6), but not
                // with exit 0: results could not be delivered.
                Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {
                    tally.fatal = true;
                    break;
                }
                Err(e) => {
                    say(format!("ahp-elicit: cannot write the result: {e}"));
                    tally.fatal = true;
                    break;
                }
            },
            Err(errs) => {
                report(
                    line,
                    id.as_deref(),
                    "the answer does not make a valid result, no result",
                    &errs,
                );
                tally.failed += 1;
            }
        }
    }
    tally.quit = quit;
    tally
}

/// How many items the reader thread may read ahead of the driver (in the
/// channel; the driver's queue holds at most as many again).
pub const READ_AHEAD: usize = 256;

/// Start a thread that reads `inputs` one after the other (nothing, or
/// `-`: stdin) and sends their items (at most [`READ_AHEAD`] ahead of the
/// driver). Every file is opened first, so a missing one is reported before
/// anything is answered.
///
/// Errors: the first input that cannot be opened, as "PATH: reason".
pub fn spawn_readers(inputs: &[PathBuf]) -> Result<mpsc::Receiver<Item>, String> {
    if inputs.len() <= 1 {
        return spawn_reader(inputs.first().cloned()).map_err(|e| match inputs.first() {
            Some(p) => format!("{}: {}", p.display(), io_reason(&e)),
            None => io_reason(&e),
        });
    }
    let mut readers: Vec<Box<dyn BufRead + Send>> = Vec::new();
    for p in inputs {
        readers.push(if p.as_os_str() == "-" {
            Box::new(std::io::BufReader::new(std::io::stdin()))
        } else {
            let f = std::fs::File::open(p)
                .map_err(|e| format!("{}: {}", p.display(), io_reason(&e)))?;
            Box::new(std::io::BufReader::new(f))
        });
    }
    let (tx, rx) = mpsc::sync_channel(READ_AHEAD);
    std::thread::spawn(move || {
        let mut open = true;
        for r in readers {
            if open {
                split_events(r, |it| {
                    open = tx.send(it).is_ok();
                    open
                });
            }
        }
    });
    Ok(rx)
}

/// Start a thread that reads `input` and sends its items (at most
/// [`READ_AHEAD`] items and [`READ_AHEAD_BYTES`] of event text ahead of
/// the driver).
pub fn spawn_reader(input: Option<PathBuf>) -> std::io::Result<mpsc::Receiver<Item>> {
    let reader: Box<dyn BufRead + Send> = match input.as_ref().filter(|p| p.as_os_str() != "-") {
        Some(p) => Box::new(std::io::BufReader::new(std::fs::File::open(p)?)),
        None => Box::new(std::io::BufReader::new(std::io::stdin())),
    };
    // Bounded: the reader stays at most READ_AHEAD events ahead of the
    // answers, so a flood of requests cannot fill memory.
    Ok(spawn_split(reader, std::sync::Arc::new(Budget::default())))
}

/// Start a thread that splits `reader` into items sent to the returned
/// channel, with backpressure: at most [`READ_AHEAD`] items in the channel
/// and event text within `budget` ([`READ_AHEAD_BYTES`]) between the reader
/// and the end of the driver's work on each item.
pub fn spawn_split(
    reader: Box<dyn BufRead + Send>,
    budget: std::sync::Arc<Budget>,
) -> mpsc::Receiver<Item> {
    let (tx, rx) = mpsc::sync_channel(READ_AHEAD);
    std::thread::spawn(move || {
        split_events(reader, |it| {
            let it = match it {
                Item::Event { line, bytes, .. } => {
                    let held = budget.acquire(bytes.len());
                    Item::Event { line, bytes, held }
                }
                other => other,
            };
            tx.send(it).is_ok()
        })
    });
    rx
}

/// The `--log` event log, shared by the driver and the launcher.
pub type SharedLog = std::rc::Rc<std::cell::RefCell<crate::log::EventLog>>;

/// A [`Launcher`](crate::responder::Launcher) that logs each launch (URL
/// redacted) before passing on its result.
pub struct LoggingLauncher {
    pub inner: Box<dyn crate::responder::Launcher>,
    pub name: &'static str,
    pub log: SharedLog,
}

impl crate::responder::Launcher for LoggingLauncher {
    fn open(&mut self, url: &str) -> Result<(), String> {
        let r = self.inner.open(url);
        let mut log = self.log.borrow_mut();
        let id = log.current().to_owned();
        if let Err(e) = log.launch(&id, self.name, url, &r) {
            say(format!("ahp-elicit: cannot write the log: {e}"));
        }
        r
    }
}

fn stdout_is_terminal() -> bool {
    std::io::IsTerminal::is_terminal(&std::io::stdout())
}

/// Why reading events from stdin makes no sense here, if it does not: stdin
/// is a terminal and either no FILE was given (nothing would ever arrive but
/// what the person types) or the terminal UI reads the same keyboard.
fn stdin_is_the_keyboard(args: &RespondArgs, interactive: bool) -> Option<String> {
    let from_stdin = match args.inputs.as_slice() {
        [] => true,
        ps => interactive && ps.iter().any(|p| p.as_os_str() == "-"),
    };
    if !from_stdin || !std::io::IsTerminal::is_terminal(&std::io::stdin()) {
        return None;
    }
    Some(
        "standard input is the terminal, so no request events can arrive there: \
give a FILE (ahp-elicit respond requests.jsonl) or pipe events in \
(adapter | ahp-elicit respond)"
            .into(),
    )
}

/// Run the command; returns the exit code.
pub fn run(args: RespondArgs) -> u8 {
    let log: Option<SharedLog> = match &args.log {
        Some(p) => match crate::log::EventLog::open(p, args.log_values) {
            Ok(l) => Some(std::rc::Rc::new(std::cell::RefCell::new(l))),
            Err(e) => {
                say(format!("ahp-elicit: {e}"));
                return super::EXIT_USAGE;
            }
        },
        None => None,
    };
    let interactive = args.answers.is_none() && args.action.is_none();
    if let Some(hint) = stdin_is_the_keyboard(&args, interactive) {
        eprintln!("ahp-elicit: {hint}");
        return super::EXIT_USAGE;
    }
    // Declared before the responder, so it drops (and writes what it
    // held) after the terminal is given back.
    let _hold =
        HoldStderr::start(interactive && std::io::IsTerminal::is_terminal(&std::io::stderr()));
    let mut responder = match super::build_responder(&args, log.clone()) {
        Ok(r) => r,
        Err(e) => {
            say(format!("ahp-elicit: {e}"));
            return super::EXIT_USAGE;
        }
    };
    let items = match spawn_readers(&args.inputs) {
        Ok(rx) => rx,
        Err(e) => {
            say(format!("ahp-elicit: cannot open the input {e}"));
            return super::EXIT_USAGE;
        }
    };
    let sink = match Sink::open(args.output.as_ref()) {
        Ok(s) => s,
        Err(e) => {
            say(format!("ahp-elicit: cannot open the output {e}"));
            return super::EXIT_USAGE;
        }
    };
    // stdout on the UI's terminal: results wait until the screen is given
    // back (a pipe or a file gets each one at once).
    let mut sink = if interactive && args.output.is_none() && stdout_is_terminal() {
        sink.hold()
    } else {
        sink
    };
    // SIGTERM/SIGHUP/SIGINT/SIGQUIT end the terminal UI with cancels (issue 5 item 5);
    // the run then exits with 128 + the signal number, as a signal ends a
    // process, not with the code of a normal end.
    #[cfg(feature = "tui")]
    let signalled = {
        let flag = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
        if interactive {
            for sig in [
                signal_hook::consts::SIGTERM,
                signal_hook::consts::SIGHUP,
                signal_hook::consts::SIGINT,
                signal_hook::consts::SIGQUIT,
            ] {
                let _ = signal_hook::flag::register_usize(sig, flag.clone(), sig as usize);
            }
        }
        flag
    };
    let mut tally = drive(
        items,
        responder.as_mut(),
        &mut sink,
        &args,
        interactive,
        log,
    );
    // Give the terminal back, then write what was held.
    drop(responder);
    match sink.release() {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => tally.fatal = true,
        Err(e) => {
            say(format!("ahp-elicit: cannot write the results: {e}"));
            tally.fatal = true;
        }
    }
    #[cfg(feature = "tui")]
    {
        let sig = signalled.load(std::sync::atomic::Ordering::SeqCst);
        if sig != 0 {
            return u8::try_from(128 + sig).unwrap_or(super::EXIT_USAGE);
        }
    }
    tally.exit_code()
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
                Item::ReadError(e) => format!("read:{e}"),
            });
            true
        });
        out
    }

    #[test]
    fn emitted_json_is_terminal_safe_and_lossless() {
        let v = serde_json::json!({"m": "a\u{1b}[2J\u{9b}\u{202e}\u{7f}\u{e0041}z"});
        let s = terminal_safe_json(&v).unwrap();
        assert!(!s.chars().any(crate::safe_text::is_unsafe), "{s}");
        assert_eq!(s, r#"{"m":"a\u001b[2J\u009b\u202e\u007f\udb40\udc41z"}"#);
        let back: serde_json::Value = serde_json::from_str(&s).unwrap();
        assert_eq!(back, v);
    }

    #[test]
    fn pretty_json_keeps_its_layout() {
        let v = serde_json::json!({"a": ["x\u{9b}"]});
        let s = terminal_safe(&serde_json::to_string_pretty(&v).unwrap());
        assert_eq!(s, "{\n  \"a\": [\n    \"x\\u009b\"\n  ]\n}");
        assert_eq!(serde_json::from_str::<serde_json::Value>(&s).unwrap(), v);
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

    /// Declines every request, noting how far ahead "request N of M" saw.
    struct Counting {
        ahead: Vec<usize>,
    }

    impl Responder for Counting {
        fn respond(
            &mut self,
            _req: &crate::binding::RequestEvent,
            cx: &Context,
        ) -> Result<Outcome, RespondError> {
            self.ahead.push(cx.progress.total - cx.progress.index);
            Ok(Outcome::Answer(Answer::bare(Action::Decline)))
        }
    }

    #[test]
    fn a_flood_is_answered_whole_with_a_bounded_queue() {
        let req = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/examples/form-confirm-mode-omitted.request.json"
        ))
        .unwrap();
        let line = serde_json::from_str::<serde_json::Value>(&req)
            .unwrap()
            .to_string();
        let n = 3 * READ_AHEAD + 17;
        let input = format!("{line}\n").repeat(n);
        let rx = spawn_split(
            Box::new(std::io::Cursor::new(input.into_bytes())),
            std::sync::Arc::new(Budget::default()),
        );
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("out.jsonl");
        let mut sink = Sink::open(Some(&out)).unwrap();
        let args = RespondArgs {
            inputs: Vec::new(),
            output: None,
            theme: None,
            answers: None,
            action: Some(Action::Decline),
            source_adapter: "test".into(),
            timeout: None,
            modes: vec![Mode::Form, Mode::Url],
            browser: None,
            no_open: false,
            log: None,
            log_values: false,
            plain: false,
            schema_policy: SchemaPolicy::Strict,
        };
        let mut r = Counting { ahead: Vec::new() };
        let tally = drive(rx, &mut r, &mut sink, &args, false, None);
        drop(sink);
        assert_eq!(tally.answered, n);
        assert_eq!(tally.failed, 0);
        assert_eq!(std::fs::read_to_string(&out).unwrap().lines().count(), n);
        assert_eq!(r.ahead.len(), n);
        let most = r.ahead.iter().copied().max().unwrap_or(0);
        assert!(
            most <= READ_AHEAD,
            "the queue stays within its bound: {most}"
        );
        assert_eq!(r.ahead.last(), Some(&0), "the last one knows it is last");
    }

    #[test]
    fn the_budget_blocks_the_reader_until_the_driver_drops_items() {
        let big = format!("{{\"a\":\"{}\"}}\n", "x".repeat(READ_AHEAD_BYTES / 3));
        let input = big.repeat(8);
        let budget = std::sync::Arc::new(Budget::default());
        let rx = spawn_split(
            Box::new(std::io::Cursor::new(input.into_bytes())),
            budget.clone(),
        );
        let mut kept = Vec::new();
        for _ in 0..8 {
            let it = rx.recv().unwrap();
            assert!(matches!(it, Item::Event { .. }));
            // Never more than the budget held, however many are read ahead.
            assert!(budget.used() <= READ_AHEAD_BYTES, "{}", budget.used());
            kept.push(it);
            if kept.len() == 2 {
                kept.clear();
            }
        }
        drop(kept);
        assert!(rx.recv().is_err(), "eight events, then the end");
        assert_eq!(budget.used(), 0);
    }
}
