//! An incremental framer: splits a byte stream into JSON values, in one pass
//! and bounded memory.
//!
//! The framer follows the structure of the text (strings, escapes, nesting,
//! and which token may come next), not its lines, so it reads JSON Lines,
//! pretty-printed documents, several documents on one line and documents
//! whose inner `{` starts a line alike. Each input byte is looked at once,
//! or twice at most: a line that starts a value is first read in one tight
//! pass (`line`), which takes it when it holds exactly one whole value
//! followed by blanks (JSON Lines) and copies it once; any other line is
//! then read byte by byte. A value is held only up to the byte limit (a
//! longer one is skipped without being kept and reported as
//! [`Frame::TooLong`]).
//!
//! Recovery from broken input: a value that turns out to be impossible (a
//! raw line break inside a string, a token where none may stand) is cut
//! there. When a `{` in column 0 was seen inside it, the text is split at
//! each such `{` (the start of a new event after a truncated line) and every
//! piece is framed on its own; otherwise the broken text runs up to the
//! next line that starts with `{` and is reported as one
//! [`Frame::Broken`]. The same split applies to a value still open at end
//! of input. Stray text outside any value (a line that does not start a
//! JSON object or array) is one [`Frame::Broken`] per line, or a
//! [`Frame::Value`] when it is a bare scalar such as `42`.
//!
//! A known limit: a line cut short right where a value may follow (after
//! `:` or `,`), followed by exactly one complete event and then a pause,
//! reads as that event continuing the cut one until more input (or the end
//! of input) shows otherwise.
//!
//! The framer only frames: a [`Frame::Value`] is structurally one JSON
//! value, and its text is still parsed (numbers, escapes, UTF-8) by the
//! caller.

use crate::binding::limits::MAX_EVENT_BYTES;

mod line;

/// One piece of the input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Frame {
    /// The text of one complete JSON value and the line where it starts
    /// (1-based).
    Value { line: usize, bytes: Vec<u8> },
    /// Text that is not one JSON value (truncated, broken or stray), with
    /// the parser's message saying where and why.
    Broken {
        line: usize,
        bytes: Vec<u8>,
        error: String,
    },
    /// A value or broken text longer than the limit: `len` bytes skipped,
    /// none of them kept.
    TooLong { line: usize, len: usize },
}

impl Frame {
    /// The line where the frame starts (1-based).
    pub fn line(&self) -> usize {
        match self {
            Frame::Value { line, .. }
            | Frame::Broken { line, .. }
            | Frame::TooLong { line, .. } => *line,
        }
    }
}

/// What the grammar allows next inside an open value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Expect {
    /// A value (after `:`, or after `,` in an array).
    Value,
    /// A value or `]` (after `[`).
    ValueOrClose,
    /// A key or `}` (after `{`).
    KeyOrClose,
    /// A key (after `,` in an object).
    Key,
    /// `:` (after a key).
    Colon,
    /// `,` or the container's closer (after a value).
    After,
}

/// Where the framer is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// Between values.
    Top,
    /// Inside a value, outside strings and scalars.
    Open,
    /// Inside a string; `key` tells what follows it.
    Str { key: bool, escape: bool },
    /// Inside a number or literal (`true`, `false`, `null`).
    Scalar,
    /// Inside broken text, which ends before the next line starting with
    /// `{` (`line`: stray text outside any value, which ends with its line).
    Junk { line: bool },
}

/// The incremental framer. Feed it with [`Framer::push`], end with
/// [`Framer::finish`].
#[derive(Debug)]
pub struct Framer {
    limit: usize,
    /// Split broken values at an inner `{` in column 0 (off for the pieces
    /// of such a split, which are framed once more on their own).
    resync: bool,
    mode: Mode,
    expect: Expect,
    /// Open containers: true for an object.
    stack: Vec<bool>,
    /// The current frame's text (empty once it is over the limit).
    held: Vec<u8>,
    /// Bytes of the current frame, held or not.
    len: usize,
    /// The current frame went over the limit.
    over: bool,
    /// The current frame's first line.
    start: usize,
    /// Offsets in `held` (and lines) of each `{` in column 0 inside it.
    marks: Vec<(usize, usize)>,
    /// The line of the next byte (1-based).
    line: usize,
    /// The previous byte was a line feed (or there was none).
    bol: bool,
    /// The byte being looked at stands in column 0.
    col0: bool,
    /// At the start of the input: how many bytes of a UTF-8 byte order
    /// mark were read past so far (None once the input has begun).
    bom: Option<usize>,
}

impl Default for Framer {
    fn default() -> Self {
        Framer::new(MAX_EVENT_BYTES)
    }
}

fn is_ws(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\r' | b'\n')
}

fn is_structural(b: u8) -> bool {
    matches!(b, b'{' | b'}' | b'[' | b']' | b'"' | b',' | b':') || is_ws(b)
}

impl Framer {
    /// A framer keeping values of at most `limit` bytes.
    pub fn new(limit: usize) -> Self {
        Framer {
            limit,
            resync: true,
            mode: Mode::Top,
            expect: Expect::Value,
            stack: Vec::new(),
            held: Vec::new(),
            len: 0,
            over: false,
            start: 1,
            marks: Vec::new(),
            line: 1,
            bol: true,
            col0: true,
            bom: Some(0),
        }
    }

    /// The line of the next byte (1-based).
    #[cfg(any(test, feature = "internals"))]
    pub fn line(&self) -> usize {
        self.line
    }

    /// Frame `chunk`, the next bytes of the input, appending every frame
    /// it completes to `out`. A UTF-8 byte order mark at the start of the
    /// input is read past (even split across chunks).
    pub fn push(&mut self, chunk: &[u8], out: &mut Vec<Frame>) {
        let chunk = self.past_bom(chunk, out);
        self.push_bytes(chunk, out);
    }

    /// `chunk` after the part of a byte order mark it holds at the start of
    /// the input; bytes that began like one but were not are framed first.
    fn past_bom<'a>(&mut self, chunk: &'a [u8], out: &mut Vec<Frame>) -> &'a [u8] {
        let Some(mut seen) = self.bom else {
            return chunk;
        };
        let bom = super::UTF8_BOM;
        let mut i = 0;
        while seen < bom.len() {
            match chunk.get(i) {
                None => {
                    self.bom = Some(seen);
                    return &[];
                }
                Some(&b) if b == bom[seen] => {
                    seen += 1;
                    i += 1;
                }
                Some(_) => {
                    self.bom = None;
                    self.push_bytes(&bom[..seen], out);
                    return &chunk[i..];
                }
            }
        }
        self.bom = None;
        &chunk[i..]
    }

    fn push_bytes(&mut self, chunk: &[u8], out: &mut Vec<Frame>) {
        let mut i = 0;
        // Where the chunk's next line feed at or after `i` is (the chunk's
        // length: none), looked for once per line.
        let mut nl: Option<usize> = None;
        while let Some(&b) = chunk.get(i) {
            if b == b'{' && self.mode == Mode::Top {
                // A line holding one whole value (JSON Lines) is read in one
                // tight pass; any other goes byte by byte below.
                if nl.is_none_or(|n| n < i) {
                    nl = Some(memchr::memchr(b'\n', &chunk[i..]).map_or(chunk.len(), |k| i + k));
                }
                let nl = nl.unwrap_or(chunk.len());
                if nl < chunk.len() {
                    let line = &chunk[i..nl];
                    if let Some(end) =
                        line::whole_value(line, &mut self.stack).filter(|&end| end <= self.limit)
                    {
                        out.push(Frame::Value {
                            line: self.line,
                            bytes: line[..end].to_vec(),
                        });
                        self.stack.clear();
                        self.line += 1;
                        self.bol = true;
                        i = nl + 1;
                        continue;
                    }
                }
            }
            if let Mode::Str { escape: false, .. } = self.mode {
                // Fast path: the plain run of a string and the escapes
                // inside it (each `\` and the byte it escapes, not a line
                // feed, which cuts the string), kept in one copy; it stops
                // at the closing quote, a line feed, or an escape it cannot
                // finish in this chunk.
                let rest = &chunk[i..];
                let mut run = 0;
                loop {
                    match memchr::memchr3(b'"', b'\\', b'\n', &rest[run..]) {
                        None => {
                            run = rest.len();
                            break;
                        }
                        Some(k) => {
                            run += k;
                            let escape = rest[run] == b'\\'
                                && rest.get(run + 1).is_some_and(|n| *n != b'\n');
                            if !escape {
                                break;
                            }
                            run += 2;
                        }
                    }
                }
                if run > 0 {
                    self.keep_all(&rest[..run]);
                    self.bol = false;
                    i += run;
                    continue;
                }
            }
            self.byte(b, out);
            i += 1;
        }
    }

    /// [`Framer::keep`] for a run of bytes with no line feed.
    fn keep_all(&mut self, run: &[u8]) {
        self.len += run.len();
        if self.over {
            return;
        }
        if self.held.len() + run.len() > self.limit {
            self.over = true;
            self.held = Vec::new();
            self.marks = Vec::new();
        } else {
            self.held.extend_from_slice(run);
        }
    }

    /// End of input: the frame still open, if any, is emitted (broken, or
    /// split at its column-0 `{`s).
    pub fn finish(&mut self, out: &mut Vec<Frame>) {
        if let Some(seen) = self.bom.take() {
            // The input was only the start of a byte order mark.
            self.push_bytes(&super::UTF8_BOM[..seen], out);
        }
        match self.mode {
            Mode::Top => {}
            Mode::Junk { .. } => self.emit(out),
            _ => self.resplit(out),
        }
        self.mode = Mode::Top;
    }

    fn keep(&mut self, b: u8) {
        self.len += 1;
        if self.over {
            return;
        }
        if self.held.len() >= self.limit {
            self.over = true;
            self.held = Vec::new();
            self.marks = Vec::new();
        } else {
            self.held.push(b);
        }
    }

    fn byte(&mut self, b: u8, out: &mut Vec<Frame>) {
        let bol = self.bol;
        self.col0 = bol;
        self.bol = b == b'\n';
        match self.mode {
            Mode::Top => self.top(b, out),
            Mode::Junk { line } => {
                if line && b == b'\n' {
                    self.emit(out);
                } else if bol && b == b'{' {
                    self.emit(out);
                    self.top(b, out);
                } else {
                    self.keep(b);
                }
            }
            Mode::Str { key, escape } => self.string(b, key, escape, out),
            Mode::Scalar => {
                if is_structural(b) {
                    self.mode = Mode::Open;
                    self.expect = Expect::After;
                    self.open(b, bol, out);
                } else {
                    self.keep(b);
                }
            }
            Mode::Open => self.open(b, bol, out),
        }
        if b == b'\n' {
            self.line += 1;
        }
    }

    fn top(&mut self, b: u8, out: &mut Vec<Frame>) {
        if is_ws(b) {
            return;
        }
        self.start = self.line;
        self.len = 0;
        self.over = false;
        self.held.clear();
        self.marks.clear();
        self.stack.clear();
        self.expect = Expect::Value;
        if b == b'{' || b == b'[' {
            self.mode = Mode::Open;
            self.open(b, false, out);
        } else {
            // Stray text (or a bare scalar): not an event.
            self.mode = Mode::Junk { line: true };
            self.keep(b);
        }
    }

    fn string(&mut self, b: u8, key: bool, escape: bool, out: &mut Vec<Frame>) {
        if b == b'\n' {
            // JSON strings hold no raw line break: the line was cut short.
            self.broken(b, out);
            return;
        }
        self.keep(b);
        self.mode = match (escape, b) {
            (true, _) => Mode::Str { key, escape: false },
            (false, b'\\') => Mode::Str { key, escape: true },
            (false, b'"') => {
                self.expect = if key { Expect::Colon } else { Expect::After };
                self.after_value(out);
                return;
            }
            (false, _) => Mode::Str { key, escape: false },
        };
    }

    /// After a string or container closed: at depth 0 the frame is done.
    fn after_value(&mut self, out: &mut Vec<Frame>) {
        if self.stack.is_empty() {
            self.emit(out);
            self.mode = Mode::Top;
        } else {
            self.mode = Mode::Open;
        }
    }

    fn open(&mut self, b: u8, bol: bool, out: &mut Vec<Frame>) {
        use Expect::*;
        if is_ws(b) {
            if !self.stack.is_empty() {
                self.keep(b);
            }
            return;
        }
        let value_ok = matches!(self.expect, Value | ValueOrClose);
        let ok = match b {
            b'{' | b'[' if value_ok => {
                if b == b'{' && bol && !self.stack.is_empty() && !self.over {
                    self.marks.push((self.held.len(), self.line));
                }
                self.keep(b);
                self.stack.push(b == b'{');
                self.expect = if b == b'{' { KeyOrClose } else { ValueOrClose };
                return;
            }
            b'}' => self.stack.last() == Some(&true) && matches!(self.expect, KeyOrClose | After),
            b']' => {
                self.stack.last() == Some(&false) && matches!(self.expect, ValueOrClose | After)
            }
            b'"' if value_ok || matches!(self.expect, KeyOrClose | Key) => {
                self.keep(b);
                let key = matches!(self.expect, KeyOrClose | Key);
                self.mode = Mode::Str { key, escape: false };
                return;
            }
            b':' => self.expect == Colon,
            b',' => self.expect == After,
            b'{' | b'[' | b'"' => false,
            _ if value_ok => {
                self.keep(b);
                self.mode = Mode::Scalar;
                return;
            }
            _ => false,
        };
        if !ok {
            self.broken(b, out);
            return;
        }
        self.keep(b);
        match b {
            b'}' | b']' => {
                self.stack.pop();
                self.expect = After;
                self.after_value(out);
            }
            b':' => self.expect = Value,
            _ => {
                // ','
                self.expect = if self.stack.last() == Some(&true) {
                    Key
                } else {
                    Value
                };
            }
        }
    }

    /// Byte `b` cannot continue the current value.
    fn broken(&mut self, b: u8, out: &mut Vec<Frame>) {
        if self.resync && !self.marks.is_empty() {
            self.resplit(out);
            self.top(b, out);
            return;
        }
        if self.col0 && b == b'{' {
            // A new value where this one cannot go on: this one was cut.
            self.mode = Mode::Junk { line: false };
            self.emit(out);
            self.top(b, out);
            return;
        }
        self.mode = Mode::Junk { line: false };
        self.keep(b);
    }

    /// Split the held text at each column-0 `{` and frame the pieces one by
    /// one (each ends broken or holds whole values).
    fn resplit(&mut self, out: &mut Vec<Frame>) {
        if self.over || self.marks.is_empty() || !self.resync {
            self.emit(out);
            return;
        }
        let held = std::mem::take(&mut self.held);
        let marks = std::mem::take(&mut self.marks);
        let mut cuts = vec![(0usize, self.start)];
        cuts.extend(marks);
        for (i, &(at, line)) in cuts.iter().enumerate() {
            let end = cuts.get(i + 1).map_or(held.len(), |c| c.0);
            let mut piece = Framer::new(self.limit);
            piece.resync = false;
            piece.bom = None;
            piece.line = line;
            piece.push(&held[at..end], out);
            piece.finish(out);
        }
        self.held = held;
        self.held.clear();
        self.mode = Mode::Top;
    }

    /// Emit the current frame.
    fn emit(&mut self, out: &mut Vec<Frame>) {
        let line = self.start;
        let frame = if self.over {
            Frame::TooLong {
                line,
                len: self.len,
            }
        } else {
            while self.held.last().is_some_and(|b| is_ws(*b)) {
                self.held.pop();
            }
            // The next frame is likely as long as this one: room for it at
            // once, not grown byte by byte (at most 64 KiB ahead).
            let room = self.held.len().min(64 * 1024);
            let bytes = std::mem::replace(&mut self.held, Vec::with_capacity(room));
            let whole = !matches!(self.mode, Mode::Junk { .. })
                && self.stack.is_empty()
                && !matches!(self.mode, Mode::Str { .. });
            if whole {
                Frame::Value { line, bytes }
            } else {
                match serde_json::from_slice::<serde::de::IgnoredAny>(&bytes) {
                    // A bare scalar: one value, if not an event.
                    Ok(_) => Frame::Value { line, bytes },
                    Err(e) => Frame::Broken {
                        line,
                        bytes,
                        error: e.to_string(),
                    },
                }
            }
        };
        out.push(frame);
        self.len = 0;
        self.over = false;
        self.marks.clear();
        self.stack.clear();
        self.mode = Mode::Top;
    }
}

/// Frame everything `input` holds, calling `each` for every frame in order
/// until it returns false. Reads in the reader's own chunks: memory stays
/// within one frame's limit plus the reader's buffer.
///
/// Errors: a read error of the input (frames before it were delivered).
pub fn frame_reader<R: std::io::BufRead>(
    input: R,
    limit: usize,
    mut each: impl FnMut(Frame) -> bool,
) -> std::io::Result<()> {
    frame_reader_batches(input, limit, |frames| frames.drain(..).all(&mut each))
}

/// [`frame_reader`] by batches: after each read of the input, `each` gets
/// every frame that read completed, in order, in a vector it may drain
/// (never empty), until it returns false. A reader of a live stream gets
/// each frame as soon as the read that completes it returns; a reader of
/// a file gets many frames per call, which lets the caller hand them on
/// as one piece of work.
///
/// Errors: a read error of the input (frames before it were delivered).
pub fn frame_reader_batches<R: std::io::BufRead>(
    mut input: R,
    limit: usize,
    mut each: impl FnMut(&mut Vec<Frame>) -> bool,
) -> std::io::Result<()> {
    let mut framer = Framer::new(limit);
    let mut out = Vec::new();
    loop {
        let chunk = match input.fill_buf() {
            Ok(c) => c,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if chunk.is_empty() {
            break;
        }
        let n = chunk.len();
        framer.push(chunk, &mut out);
        input.consume(n);
        if !out.is_empty() && !each(&mut out) {
            return Ok(());
        }
        out.clear();
    }
    framer.finish(&mut out);
    if !out.is_empty() {
        each(&mut out);
    }
    Ok(())
}

/// Frame a whole byte string (see [`Framer`]).
#[cfg(any(test, feature = "internals"))]
pub fn frame_all(bytes: &[u8], limit: usize) -> Vec<Frame> {
    let mut framer = Framer::new(limit);
    let mut out = Vec::new();
    framer.push(bytes, &mut out);
    framer.finish(&mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A byte order mark at the start is read past, whole or split across
    /// chunks; one that is not at the start, or only begun, is text.
    #[test]
    fn reads_past_a_byte_order_mark_at_the_start() {
        let text = b"\xEF\xBB\xBF{\n  \"a\": 1\n}\n{\"b\":2}\n";
        let plain = frame_all(&text[3..], 100);
        assert_eq!(frame_all(text, 100), plain);
        assert!(plain.iter().all(|f| matches!(f, Frame::Value { .. })));
        for cut in 1..5 {
            let mut f = Framer::new(100);
            let mut out = Vec::new();
            f.push(&text[..cut], &mut out);
            f.push(&text[cut..], &mut out);
            f.finish(&mut out);
            assert_eq!(out, plain, "cut at {cut}");
        }
        let late = frame_all(b"{\"a\":1}\n\xEF\xBB\xBF{\"b\":2}\n", 100);
        assert!(
            late.iter().any(|f| matches!(f, Frame::Broken { .. })),
            "{late:?}"
        );
        let begun = frame_all(b"\xEF\xBB{}", 100);
        assert!(matches!(begun[0], Frame::Broken { .. }), "{begun:?}");
        assert_eq!(crate::stream::without_bom(b"\xEF\xBB\xBF{}"), b"{}");
        assert_eq!(crate::stream::without_bom(b"{}"), b"{}");
    }

    /// Frames as `kind@line:text` (the text trimmed; Broken without its message).
    fn show(s: &str, limit: usize) -> Vec<String> {
        frame_all(s.as_bytes(), limit)
            .into_iter()
            .map(|f| match f {
                Frame::Value { line, bytes } => {
                    format!("value@{line}:{}", String::from_utf8_lossy(&bytes))
                }
                Frame::Broken { line, bytes, .. } => {
                    format!("broken@{line}:{}", String::from_utf8_lossy(&bytes))
                }
                Frame::TooLong { line, len } => format!("long@{line}:{len}"),
            })
            .collect()
    }

    fn frames(s: &str) -> Vec<String> {
        show(s, 1 << 20)
    }

    #[test]
    fn json_lines_with_a_bad_line_and_blank_lines() {
        assert_eq!(
            frames("{\"a\":1}\nnot json\n\n{\"b\":2}\n"),
            vec![
                "value@1:{\"a\":1}",
                "broken@2:not json",
                "value@4:{\"b\":2}"
            ]
        );
    }

    #[test]
    fn pretty_document_then_a_line() {
        assert_eq!(
            frames("{\n  \"a\": [\n    1, {\"x\": \"}]\\\"\"}\n  ]\n}\n{\"b\":2}"),
            vec![
                "value@1:{\n  \"a\": [\n    1, {\"x\": \"}]\\\"\"}\n  ]\n}",
                "value@6:{\"b\":2}"
            ]
        );
    }

    #[test]
    fn inner_brace_in_column_0_continues_the_value() {
        let s = "{\"id\":\"r1\",\"payload\":\n{\"mode\":\"form\",\n\"x\":[1,\n{\"y\":2}]}\n}\n{\"n\":3}\n";
        assert_eq!(
            frames(s),
            vec![
                "value@1:{\"id\":\"r1\",\"payload\":\n{\"mode\":\"form\",\n\"x\":[1,\n{\"y\":2}]}\n}",
                "value@6:{\"n\":3}"
            ]
        );
    }

    #[test]
    fn truncated_lines_are_cut_and_the_next_lines_kept() {
        assert_eq!(
            frames("{\"a\":\n{\"b\":2}\n{\"c\":"),
            vec!["broken@1:{\"a\":", "value@2:{\"b\":2}", "broken@3:{\"c\":"]
        );
        // Cut inside a string: known at the line break.
        assert_eq!(
            frames("{\"a\":1}\n{\"id\": \"tru\n{\"b\":2}\n"),
            vec![
                "value@1:{\"a\":1}",
                "broken@2:{\"id\": \"tru",
                "value@3:{\"b\":2}"
            ]
        );
        // Open at end of input, with complete events after the cut.
        assert_eq!(
            frames("{\"a\": [\n{\"b\":2}\n"),
            vec!["broken@1:{\"a\": [", "value@2:{\"b\":2}"]
        );
    }

    #[test]
    fn a_line_cut_after_a_key_ends_at_the_next_line() {
        assert_eq!(
            frames("{\"a\":{\"type\"\n{\"b\":2}\n"),
            vec!["broken@1:{\"a\":{\"type\"", "value@2:{\"b\":2}"]
        );
    }

    #[test]
    fn several_values_on_a_line_and_stray_text() {
        assert_eq!(
            frames("{\"a\":1} {\"b\":2}x\n42\n{\"c\":}\n{}"),
            vec![
                "value@1:{\"a\":1}",
                "value@1:{\"b\":2}",
                "broken@1:x",
                "value@2:42",
                "broken@3:{\"c\":}",
                "value@4:{}"
            ]
        );
    }

    #[test]
    fn broken_messages_name_the_place() {
        let f = frame_all(b"{\"a\":1,}\n", 100);
        match &f[..] {
            [Frame::Broken { line: 1, error, .. }] => {
                assert!(error.contains("line 1 column 8"), "{error}")
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn over_the_limit_is_skipped_and_the_next_value_kept() {
        let big = format!("{{\"a\":\"{}\"}}", "x".repeat(100));
        let s = format!("{{\"s\":1}}\n{big}\n{{\"t\":2}}\n");
        assert_eq!(
            show(&s, 50),
            vec!["value@1:{\"s\":1}", "long@2:108", "value@3:{\"t\":2}"]
        );
        // Exactly at the limit is kept.
        let exact = format!("{{\"a\":\"{}\"}}", "x".repeat(42));
        assert_eq!(exact.len(), 50);
        assert_eq!(show(&exact, 50), vec![format!("value@1:{exact}")]);
    }

    #[test]
    fn chunk_boundaries_do_not_matter() {
        let s = "{\"a\":\"x\\\"}\"}\n{\n\"b\":\n{\"c\":[1,2]}\n}\nnope\n{\"d\":";
        let whole = frame_all(s.as_bytes(), 1000);
        for step in 1..8 {
            let mut f = Framer::new(1000);
            let mut out = Vec::new();
            for c in s.as_bytes().chunks(step) {
                f.push(c, &mut out);
            }
            f.finish(&mut out);
            assert_eq!(out, whole, "chunks of {step}");
        }
        assert_eq!(whole.len(), 4, "{whole:?}");
    }

    /// Bytes that look like JSON text often: structure, strings, escapes,
    /// line feeds and column-0 braces.
    fn jsonish() -> impl proptest::strategy::Strategy<Value = Vec<u8>> {
        use proptest::prelude::*;
        let token = prop::sample::select(vec![
            "{", "}", "[", "]", ":", ",", "\"", "\\", "\n", "\n{", " ", "1", "true", "\"k\"",
            "\"a b\"", "x", "\u{e9}",
        ]);
        prop::collection::vec(token, 0..60).prop_map(|t| t.concat().into_bytes())
    }

    proptest::proptest! {
        #[test]
        fn framing_does_not_depend_on_chunks(data in jsonish(), step in 1usize..9, small in proptest::bool::ANY) {
            let limit = if small { 24 } else { 1 << 20 };
            let whole = frame_all(&data, limit);
            let mut f = Framer::new(limit);
            let mut cut = Vec::new();
            for c in data.chunks(step) {
                f.push(c, &mut cut);
            }
            f.finish(&mut cut);
            proptest::prop_assert_eq!(&whole, &cut);
            for fr in &whole {
                if let Frame::Value { bytes, .. } | Frame::Broken { bytes, .. } = fr {
                    proptest::prop_assert!(bytes.len() <= limit && !bytes.is_empty());
                }
            }
            if data.len() <= limit && serde_json::from_slice::<serde_json::Value>(&data).is_ok() {
                let one = matches!(&whole[..], [Frame::Value { bytes, .. }] if bytes[..] == *data.trim_ascii());
                proptest::prop_assert!(one, "{:?}", whole);
            }
        }
    }

    #[test]
    fn reader_frames_in_order() {
        let mut got = Vec::new();
        frame_reader(&b"{\"a\":1}\n\n  {\"b\":\n2}"[..], 100, |f| {
            got.push(f.line());
            true
        })
        .unwrap();
        assert_eq!(got, vec![1, 3]);
    }

    /// Frames of `input` fed one byte at a time through `byte` alone (no
    /// run of string bytes taken at once).
    fn bytewise(input: &[u8], limit: usize) -> Vec<Frame> {
        let mut f = Framer::new(limit);
        let mut out = Vec::new();
        for &b in input {
            f.byte(b, &mut out);
        }
        f.finish(&mut out);
        out
    }

    #[test]
    fn string_runs_frame_as_byte_by_byte() {
        let vectors = include_str!("../../tests/vectors/elicitation.jsonl");
        let cases = [
            vectors,
            "{\"a\":\"x\\\"y\\\\\"}\n{\"b\":\"cut\n{\"c\":1}\n",
            "{\"t\":\"0123456789abcdef\"}{\"u\":\"\\u00e9\"} [\"\\\\\", \"\"]",
            "{\"long\":\"0123456789012345678901234567890123456789\"}\n{\"ok\":\"x\"}",
            "{\"open\":\"never closed",
        ];
        for input in cases {
            for limit in [8, 30, 64, MAX_EVENT_BYTES] {
                let want = bytewise(input.as_bytes(), limit);
                let got = frame_all(input.as_bytes(), limit);
                assert_eq!(got, want, "limit {limit}: {input:?}");
            }
        }
    }

    #[test]
    fn a_string_past_the_limit_is_counted_in_one_pass() {
        // Quadratic work here (a scan of the rest per byte) would not end
        // in any reasonable time.
        let mut input = b"{\"s\":\"".to_vec();
        input.extend(std::iter::repeat_n(b'a', 6 << 20));
        input.extend_from_slice(b"\"}\n{\"ok\":1}\n");
        let frames = frame_all(&input, 1 << 20);
        assert_eq!(
            frames,
            vec![
                Frame::TooLong {
                    line: 1,
                    len: input.len() - 10
                },
                Frame::Value {
                    line: 2,
                    bytes: b"{\"ok\":1}".to_vec()
                }
            ]
        );
    }

    /// A reader that hands out its bytes `step` at a time, as a pipe does.
    struct Trickle<'a> {
        rest: &'a [u8],
        step: usize,
    }

    impl std::io::Read for Trickle<'_> {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            let n = self.rest.len().min(self.step).min(buf.len());
            buf[..n].copy_from_slice(&self.rest[..n]);
            self.rest = &self.rest[n..];
            Ok(n)
        }
    }

    #[test]
    fn batches_hold_what_each_read_completed_in_order() {
        let text = b"{\"a\":1}\n{\"b\":2}\n{\"c\":3}\nnot json\n{\"d\":";
        let batches = |step: usize| {
            let rd = std::io::BufReader::new(Trickle { rest: text, step });
            let mut got: Vec<Vec<Frame>> = Vec::new();
            frame_reader_batches(rd, 1024, |fs| {
                got.push(std::mem::take(fs));
                true
            })
            .unwrap();
            got
        };
        // All at once: one batch per read, the open value at the end last.
        let whole = batches(text.len());
        assert_eq!(whole.len(), 2, "{whole:?}");
        assert_eq!(whole[0].len(), 4);
        assert_eq!(whole[1].len(), 1);
        assert!(matches!(&whole[1][0], Frame::Broken { line: 5, .. }));
        // Read by read, the same frames in the same order, each handed on
        // by the read that completed it.
        let flat: Vec<Frame> = whole.into_iter().flatten().collect();
        assert_eq!(flat, frame_all(text, 1024));
        let small = batches(9);
        assert!(small.iter().all(|b| b.len() == 1), "{small:?}");
        assert_eq!(small.into_iter().flatten().collect::<Vec<_>>(), flat);
    }

    #[test]
    fn batches_stop_when_told() {
        let text = b"{}\n{}\n{}\n";
        let rd = std::io::BufReader::new(Trickle {
            rest: text,
            step: 3,
        });
        let mut calls = 0;
        frame_reader_batches(rd, 1024, |_| {
            calls += 1;
            false
        })
        .unwrap();
        assert_eq!(calls, 1);
    }
}
