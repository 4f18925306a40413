//! Writing result events: one terminal-safe JSON line per result, written
//! when the loop has nothing more at hand (or held while the terminal UI
//! owns the screen stdout is on).

use std::io::Write;
use std::path::PathBuf;

/// Where result lines go: stdout or `--output FILE`. Lines are gathered and
/// written whole ([`Sink::emit`], never half a line); the loop calls
/// [`Sink::flush`] whenever it is about to wait (for input, or for a
/// person), so a live stream gets each result as soon as it is made, and a
/// file of thousands of requests costs one write per [`BATCH_BYTES`], not
/// one per line.
///
/// When stdout is the terminal the UI draws on, a line written while a
/// screen is up would land on the alternate screen (garbling the frame and
/// vanishing on exit), so a held sink ([`Sink::hold`]) keeps the lines and
/// [`Sink::release`] writes them, in order and byte for byte as a pipe gets
/// them, once the terminal is given back.
pub struct Sink {
    out: Box<dyn Write + Send>,
    /// Lines kept back while the UI owns the terminal (`None`: write at once).
    held: Option<Vec<u8>>,
    /// Whole lines not yet written (at most about [`BATCH_BYTES`]).
    pending: Vec<u8>,
}

/// Lines gathered beyond this many bytes are written at once, without
/// waiting for [`Sink::flush`].
pub const BATCH_BYTES: usize = 64 * 1024;

impl Sink {
    /// Open stdout or FILE (created or truncated).
    ///
    /// Errors: the file cannot be created; the message names the path.
    pub fn open(path: Option<&PathBuf>) -> std::io::Result<Sink> {
        let out: Box<dyn Write + Send> = match path {
            // 0600, and never through a symbolic link.
            Some(p) => Box::new(crate::files::open_private(
                p,
                crate::files::Existing::Truncate,
            )?),
            None => Box::new(std::io::stdout()),
        };
        Ok(Sink::to_writer(out))
    }

    /// Write to `out` (a library user's writer).
    pub fn to_writer(out: Box<dyn Write + Send>) -> Sink {
        Sink {
            out,
            held: None,
            pending: Vec::new(),
        }
    }

    /// Keep every line until [`Sink::release`] (stdout is the UI's terminal).
    pub fn hold(mut self) -> Sink {
        self.held = Some(Vec::new());
        self
    }

    /// Add one event as one line; it is written by the next
    /// [`Sink::flush`], or at once when [`BATCH_BYTES`] are gathered (or
    /// kept, when held).
    ///
    /// Errors: the event cannot be serialized, or writing gathered lines
    /// failed.
    #[cfg(test)]
    pub fn emit(&mut self, event: &serde_json::Value) -> std::io::Result<()> {
        let line = terminal_safe_json(event).map_err(std::io::Error::other)?;
        self.emit_line(&line)
    }

    /// Add `line` (one event as terminal-safe JSON without its newline, as
    /// [`crate::binding::ResultLine::line`] holds it) and a newline, as
    /// [`Sink::emit`] does.
    ///
    /// Errors: writing gathered lines failed.
    pub fn emit_line(&mut self, line: &str) -> std::io::Result<()> {
        if let Some(held) = self.held.as_mut() {
            held.extend_from_slice(line.as_bytes());
            held.push(b'\n');
            return Ok(());
        }
        self.pending.extend_from_slice(line.as_bytes());
        self.pending.push(b'\n');
        if self.pending.len() >= BATCH_BYTES {
            return self.flush();
        }
        Ok(())
    }

    /// Whether lines are gathered and not yet written.
    pub fn has_pending(&self) -> bool {
        !self.pending.is_empty()
    }

    /// Write the gathered lines (whole) and flush the output.
    ///
    /// Errors: the write or the flush failed (a closed pipe is
    /// `BrokenPipe`); the lines are dropped then.
    pub fn flush(&mut self) -> std::io::Result<()> {
        if self.pending.is_empty() {
            return Ok(());
        }
        let lines = std::mem::take(&mut self.pending);
        self.out.write_all(&lines)?;
        self.out.flush()
    }

    /// Write the held lines (if any) and write at once from now on. Call it
    /// after the terminal is given back.
    pub fn release(&mut self) -> std::io::Result<()> {
        self.flush()?;
        match self.held.take() {
            Some(bytes) if !bytes.is_empty() => {
                self.out.write_all(&bytes)?;
                self.out.flush()
            }
            _ => Ok(()),
        }
    }
}

impl Drop for Sink {
    /// Lines still gathered are written (the loop flushes before it ends;
    /// this keeps a line from being lost on an early return).
    fn drop(&mut self) {
        let _ = self.flush();
    }
}

/// Serialize `v` as compact JSON in which every character that
/// [`safe_text::is_unsafe`](crate::safe_text::is_unsafe) flags is written as
/// a `\uXXXX` escape (serde_json already escapes C0 controls; this also
/// covers DEL, C1 controls, bidi and zero-width characters). The value is
/// unchanged: a JSON reader gets the original strings back, and printing the
/// line on a terminal cannot inject anything. (The run writes lines the
/// binding made terminal-safe already: [`crate::binding::ResultLine`].)
#[cfg(test)]
pub fn terminal_safe_json(v: &serde_json::Value) -> serde_json::Result<String> {
    let text = serde_json::to_string(v)?;
    Ok(match crate::safe_text::json_text(&text) {
        std::borrow::Cow::Borrowed(_) => text,
        std::borrow::Cow::Owned(safe) => safe,
    })
}

/// JSON text `s` with every unsafe character written as a `\uXXXX` escape
/// (the rule is [`crate::safe_text::json_text`]).
pub fn terminal_safe(s: &str) -> String {
    crate::safe_text::json_text(s).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn emitted_json_is_terminal_safe_and_lossless() {
        let v = serde_json::json!({"m": "a\u{1b}[2J\u{9b}\u{202e}\u{7f}\u{e0041}z"});
        let s = terminal_safe_json(&v).unwrap();
        assert!(!s.chars().any(crate::safe_text::is_unsafe), "{s}");
        assert_eq!(s, r#"{"m":"a\u001b[2J\u009b\u202e\u007f\udb40\udc41z"}"#);
        let back: serde_json::Value = serde_json::from_str(&s).unwrap();
        assert_eq!(back, v);
    }

    /// A writer that records each write it is given.
    #[derive(Clone, Default)]
    struct Writes(std::sync::Arc<std::sync::Mutex<Vec<Vec<u8>>>>);

    impl Write for Writes {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().push(buf.to_vec());
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    impl Writes {
        fn taken(&self) -> Vec<String> {
            let w = std::mem::take(&mut *self.0.lock().unwrap());
            w.into_iter()
                .map(|b| String::from_utf8(b).unwrap())
                .collect()
        }
    }

    #[test]
    fn lines_are_gathered_until_a_flush_and_written_whole_in_one_write() {
        let w = Writes::default();
        let mut sink = Sink::to_writer(Box::new(w.clone()));
        sink.emit(&serde_json::json!({"n": 1})).unwrap();
        sink.emit(&serde_json::json!({"n": 2})).unwrap();
        assert_eq!(w.taken(), Vec::<String>::new(), "nothing before the flush");
        sink.flush().unwrap();
        assert_eq!(w.taken(), vec!["{\"n\":1}\n{\"n\":2}\n".to_owned()]);
        sink.flush().unwrap();
        assert_eq!(
            w.taken(),
            Vec::<String>::new(),
            "an empty flush writes nothing"
        );
        sink.emit(&serde_json::json!({"n": 3})).unwrap();
        drop(sink);
        assert_eq!(
            w.taken(),
            vec!["{\"n\":3}\n".to_owned()],
            "dropping writes the rest"
        );
    }

    #[test]
    fn a_full_batch_is_written_without_waiting_for_the_flush() {
        let w = Writes::default();
        let mut sink = Sink::to_writer(Box::new(w.clone()));
        let big = serde_json::json!({"s": "x".repeat(BATCH_BYTES / 3)});
        for _ in 0..3 {
            sink.emit(&big).unwrap();
        }
        let written = w.taken();
        assert_eq!(written.len(), 1, "one write once the batch is full");
        assert_eq!(written[0].lines().count(), 3);
        assert!(written[0].ends_with('\n'), "whole lines only");
    }

    #[test]
    fn held_lines_stay_back_until_released() {
        let w = Writes::default();
        let mut sink = Sink::to_writer(Box::new(w.clone())).hold();
        sink.emit(&serde_json::json!({"n": 1})).unwrap();
        sink.flush().unwrap();
        assert_eq!(w.taken(), Vec::<String>::new());
        sink.release().unwrap();
        assert_eq!(w.taken(), vec!["{\"n\":1}\n".to_owned()]);
    }

    #[test]
    fn pretty_json_keeps_its_layout() {
        let v = serde_json::json!({"a": ["x\u{9b}"]});
        let s = terminal_safe(&serde_json::to_string_pretty(&v).unwrap());
        assert_eq!(s, "{\n  \"a\": [\n    \"x\\u009b\"\n  ]\n}");
        assert_eq!(serde_json::from_str::<serde_json::Value>(&s).unwrap(), v);
    }
}
