//! The line-oriented I/O under plain mode: a [`LineIo`] writes whole lines
//! and reads one typed line at a time. [`TtyIo`](super::tty::TtyIo) is the
//! controlling terminal; [`MemoryIo`] replays typed lines and records the
//! transcript, so every prompt can be tested without a terminal.

#[cfg(any(test, feature = "internals"))]
use std::time::{Duration, Instant};

#[cfg(any(test, feature = "internals"))]
use crate::responder::RespondError;

pub use crate::responder::lines::{LineIo, Reply};

/// A [`LineIo`] for tests: replays [`Reply`]s and records a transcript that
/// reads like the terminal (the prompt followed by the typed line, `^C` for
/// Control-C, `^D` for Control-D). Test support, not part of the library's
/// surface.
#[doc(hidden)]
#[cfg(any(test, feature = "internals"))]
#[derive(Debug, Default, Clone)]
pub struct MemoryIo {
    /// What is still to be typed.
    pub input: std::collections::VecDeque<Reply>,
    /// Everything written, with the typed lines echoed.
    pub transcript: String,
    /// How many times typeahead was discarded.
    pub discards: usize,
    /// Every [`LineIo::signal`], in order.
    pub signals: Vec<Vec<u8>>,
}

#[cfg(any(test, feature = "internals"))]
impl MemoryIo {
    /// A person who will type `lines` in order (`^C` stands for Control-C,
    /// `^D` for Control-D).
    pub fn typing<S: AsRef<str>>(lines: &[S]) -> Self {
        let input = lines
            .iter()
            .map(|l| match l.as_ref() {
                "^C" => Reply::Interrupt,
                "^D" => Reply::Eof,
                s => Reply::Line(s.to_owned()),
            })
            .collect();
        MemoryIo {
            input,
            ..MemoryIo::default()
        }
    }
}

#[cfg(any(test, feature = "internals"))]
impl LineIo for MemoryIo {
    fn say(&mut self, text: &str) -> Result<(), RespondError> {
        self.transcript.push_str(text);
        self.transcript.push('\n');
        Ok(())
    }

    fn ask(
        &mut self,
        prompt: &str,
        _deadline: Option<Instant>,
        withdrawn: &dyn Fn() -> bool,
    ) -> Result<Reply, RespondError> {
        self.transcript.push_str(prompt);
        // A withdrawal wins over whatever is still to be typed, as on the
        // terminal, where the typed line is never read.
        if withdrawn() {
            self.transcript.push('\n');
            return Ok(Reply::Withdrawn);
        }
        let r = self.input.pop_front().ok_or(RespondError::TerminalClosed)?;
        match &r {
            Reply::Line(s) => self.transcript.push_str(s),
            Reply::Interrupt => self.transcript.push_str("^C"),
            Reply::Eof => self.transcript.push_str("^D"),
            Reply::TimedOut | Reply::Quit | Reply::Withdrawn => {}
        }
        self.transcript.push('\n');
        Ok(r)
    }

    fn discard_typeahead(&mut self) {
        self.discards += 1;
    }

    fn signal(&mut self, bytes: &[u8]) {
        self.signals.push(bytes.to_vec());
    }

    fn wait(&mut self, _wait: Duration) -> Option<Reply> {
        match self.input.pop_front()? {
            Reply::Interrupt => {
                self.transcript.push_str("^C\n");
                Some(Reply::Interrupt)
            }
            Reply::Quit => Some(Reply::Quit),
            // A line typed while nothing is asked is echoed and thrown away.
            Reply::Line(l) => {
                self.transcript.push_str(&l);
                self.transcript.push('\n');
                None
            }
            Reply::Eof | Reply::TimedOut | Reply::Withdrawn => None,
        }
    }
}
