//! The stdio transport (MCP 2025-11-25 "Transports: stdio"): the client
//! starts the server as a child process, writes newline-delimited JSON-RPC
//! to its stdin and reads messages from its stdout, one per line. The
//! child's stderr is the server's log: each line goes to the session as
//! [`Incoming::Log`], which shows it on our stderr through the sanitizer,
//! prefixed `server:`, between responder calls.
//!
//! Shutdown follows the spec: close the child's stdin, wait for it to exit
//! (up to [`EXIT_GRACE`]), then kill it.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::Sender;
use std::thread;
use std::time::{Duration, Instant};

use serde_json::Value;

use super::transport::{deliver, read_line, Incoming, Line, Transport, MAX_MESSAGE_BYTES};
use super::McpError;

/// How long the child may take to exit after its stdin is closed.
pub const EXIT_GRACE: Duration = Duration::from_secs(2);
/// Characters of one server stderr line that are shown.
const MAX_LOG_CHARS: usize = 2_000;

/// A running stdio MCP server.
pub struct StdioTransport {
    child: Child,
    stdin: Option<ChildStdin>,
    closed: bool,
}

impl StdioTransport {
    /// Start `program args...` and its reader threads; messages go to `tx`.
    ///
    /// Errors: [`McpError::Spawn`] when the program cannot be started.
    pub fn spawn(program: &str, args: &[String], tx: Sender<Incoming>) -> Result<Self, McpError> {
        let mut child = Command::new(program)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| McpError::Spawn(format!("{program}: {e}")))?;
        let stdin = child.stdin.take();
        let stdout = child.stdout.take();
        let stderr = child.stderr.take();
        if let Some(err) = stderr {
            let tx = tx.clone();
            thread::spawn(move || relay_stderr(BufReader::new(err), tx));
        }
        if let Some(out) = stdout {
            thread::spawn(move || read_stdout(BufReader::new(out), tx));
        }
        Ok(StdioTransport {
            child,
            stdin,
            closed: false,
        })
    }
}

fn read_stdout(mut r: impl BufRead, tx: Sender<Incoming>) {
    let (mut buf, mut cr) = (Vec::new(), false);
    loop {
        match read_line(&mut r, &mut buf, MAX_MESSAGE_BYTES, &mut cr) {
            Ok(Line::Text) => {
                if buf.iter().all(u8::is_ascii_whitespace) {
                    continue;
                }
                if !deliver(&buf, &tx) {
                    return;
                }
            }
            Ok(Line::TooLong) => {
                let m = format!(
                    "skipped a line of more than {MAX_MESSAGE_BYTES} bytes on the server's stdout"
                );
                if tx.send(Incoming::Noise(m)).is_err() {
                    return;
                }
            }
            Ok(Line::Eof) => {
                let _ = tx.send(Incoming::Closed("the server closed its stdout".into()));
                return;
            }
            Err(e) => {
                let _ = tx.send(Incoming::Closed(format!(
                    "reading the server's stdout: {e}"
                )));
                return;
            }
        }
    }
}

fn relay_stderr(mut r: impl BufRead, tx: Sender<Incoming>) {
    let (mut buf, mut cr) = (Vec::new(), false);
    while let Ok(l) = read_line(&mut r, &mut buf, 64 * 1024, &mut cr) {
        let line = match l {
            Line::Eof => return,
            Line::TooLong => "(a log line of more than 64 KiB was skipped)".to_owned(),
            Line::Text => String::from_utf8_lossy(&buf)
                .chars()
                .take(MAX_LOG_CHARS)
                .collect(),
        };
        if tx.send(Incoming::Log(line)).is_err() {
            return;
        }
    }
}

impl Transport for StdioTransport {
    fn send(&mut self, msg: &Value, _request_id: Option<u64>) -> Result<(), McpError> {
        let Some(stdin) = self.stdin.as_mut() else {
            return Err(McpError::Transport("the connection is closed".into()));
        };
        let mut line = serde_json::to_vec(msg).map_err(|e| McpError::Transport(e.to_string()))?;
        line.push(b'\n');
        let written = stdin.write_all(&line).and_then(|()| stdin.flush());
        written.map_err(|e| match self.child.try_wait() {
            Ok(Some(status)) => McpError::Transport(format!("the server exited ({status})")),
            _ => McpError::Transport(format!("writing to the server's stdin: {e}")),
        })
    }

    fn close(&mut self) {
        if self.closed {
            return;
        }
        self.closed = true;
        drop(self.stdin.take());
        let until = Instant::now() + EXIT_GRACE;
        while Instant::now() < until {
            match self.child.try_wait() {
                Ok(Some(_)) | Err(_) => return,
                Ok(None) => thread::sleep(Duration::from_millis(10)),
            }
        }
        crate::notice::say(format!(
            "ahp-elicit: the server did not exit within {} s of its stdin closing; killing it",
            EXIT_GRACE.as_secs()
        ));
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for StdioTransport {
    fn drop(&mut self) {
        self.close();
    }
}
