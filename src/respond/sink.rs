//! Writing result events: one terminal-safe JSON line per result, flushed
//! at once, or held while the terminal UI owns the screen stdout is on.

use std::io::Write;
use std::path::PathBuf;

/// Where result lines go: stdout or `--output FILE`. Each line is written
/// with one write and flushed (never half a line).
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
}

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
/// (see [`terminal_safe_json`]; the rule is [`crate::safe_text::json_text`]).
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

    #[test]
    fn pretty_json_keeps_its_layout() {
        let v = serde_json::json!({"a": ["x\u{9b}"]});
        let s = terminal_safe(&serde_json::to_string_pretty(&v).unwrap());
        assert_eq!(s, "{\n  \"a\": [\n    \"x\\u009b\"\n  ]\n}");
        assert_eq!(serde_json::from_str::<serde_json::Value>(&s).unwrap(), v);
    }
}
