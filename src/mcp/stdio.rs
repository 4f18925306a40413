//! The stdio transport (MCP 2025-11-25 "Transports: stdio"): the client
//! starts the server as a child process, writes newline-delimited JSON-RPC
//! to its stdin and reads messages from its stdout, one per line. The
//! child's stderr is the server's log: each line goes to the session as
//! [`Incoming::Log`], which shows it on our stderr through the sanitizer,
//! prefixed `server:`, between responder calls.
//!
//! Writes go through a writer thread with a bounded queue
//! ([`WRITE_QUEUE`]): a server that stops reading its stdin makes `send`
//! fail with a clear error instead of freezing the session.
//!
//! The child runs in its own process group (a Ctrl-C at the terminal
//! reaches only us; we end the child in order) and, on Linux, gets SIGTERM
//! if we die without closing it. Shutdown ([`Transport::close`]): close
//! its stdin, wait [`EXIT_GRACE`], SIGTERM, wait [`EXIT_GRACE`], SIGKILL.

use std::io::{BufRead, BufReader, Write};
use std::os::unix::process::CommandExt;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc as smpsc;
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

use serde_json::Value;
use tokio::sync::mpsc::Sender;

use super::transport::{
    deliver, read_line, Closed, Delivery, Incoming, Line, Noise, Transport, MAX_MESSAGE_BYTES,
};
use super::{LinkDown, McpError};
use crate::notice::Notices;

/// How long the child may take to exit after its stdin is closed, and
/// again after SIGTERM.
pub const EXIT_GRACE: Duration = Duration::from_millis(1000);
/// Messages queued for the child's stdin before `send` fails.
pub const WRITE_QUEUE: usize = 256;
/// Characters of one server stderr line that are shown.
const MAX_LOG_CHARS: usize = 2_000;

/// A running stdio MCP server.
pub struct StdioTransport {
    child: Child,
    writer: Option<smpsc::SyncSender<Vec<u8>>>,
    closed: bool,
    /// Where a server that will not exit is said.
    notices: Notices,
    /// The server wrote something on its stdout (a line, even one that is
    /// not JSON).
    spoke: Arc<AtomicBool>,
}

impl StdioTransport {
    /// Start `program args...` and its reader and writer threads; messages
    /// go to `tx`; what the transport itself has to say goes to `notices`.
    ///
    /// Errors: [`McpError::Spawn`] when the program cannot be started.
    pub fn spawn(
        program: &str,
        args: &[String],
        tx: Sender<Incoming>,
        notices: Notices,
    ) -> Result<Self, McpError> {
        let mut cmd = Command::new(program);
        cmd.args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0);
        #[cfg(target_os = "linux")]
        // SAFETY: prctl is async-signal-safe and touches no memory of ours;
        // the closure runs in the child between fork and exec.
        unsafe {
            cmd.pre_exec(|| {
                libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGTERM as libc::c_ulong);
                Ok(())
            });
        }
        let mut child = cmd.spawn().map_err(|source| McpError::Spawn {
            program: program.to_owned(),
            source,
        })?;
        let stdin = child.stdin.take();
        let stdout = child.stdout.take();
        let stderr = child.stderr.take();
        if let Some(err) = stderr {
            let tx = tx.clone();
            thread::spawn(move || relay_stderr(BufReader::new(err), tx));
        }
        let spoke = Arc::new(AtomicBool::new(false));
        if let Some(out) = stdout {
            let spoke = spoke.clone();
            thread::spawn(move || read_stdout(BufReader::new(out), tx, &spoke));
        }
        let writer = stdin.map(|stdin| {
            let (wtx, wrx) = smpsc::sync_channel(WRITE_QUEUE);
            thread::spawn(move || write_stdin(stdin, wrx));
            wtx
        });
        Ok(StdioTransport {
            child,
            writer,
            closed: false,
            notices,
            spoke,
        })
    }

    /// Wait up to `grace` for the child to exit; true when it did.
    fn wait_exit(&mut self, grace: Duration) -> bool {
        let until = Instant::now() + grace;
        loop {
            match self.child.try_wait() {
                Ok(Some(_)) | Err(_) => return true,
                Ok(None) if Instant::now() >= until => return false,
                Ok(None) => thread::sleep(Duration::from_millis(10)),
            }
        }
    }
}

/// Write queued lines to the child's stdin until the queue closes or a
/// write fails; then the stdin is closed (dropped).
fn write_stdin(mut stdin: ChildStdin, rx: smpsc::Receiver<Vec<u8>>) {
    for line in rx {
        if stdin.write_all(&line).and_then(|()| stdin.flush()).is_err() {
            return;
        }
    }
}

fn read_stdout(mut r: impl BufRead, tx: Sender<Incoming>, spoke: &AtomicBool) {
    let (mut buf, mut cr) = (Vec::new(), false);
    loop {
        match read_line(&mut r, &mut buf, MAX_MESSAGE_BYTES, &mut cr) {
            Ok(Line::Text) => {
                if buf.iter().all(u8::is_ascii_whitespace) {
                    continue;
                }
                spoke.store(true, Ordering::Relaxed);
                if deliver(&buf, &tx, None) == Delivery::Gone {
                    return;
                }
            }
            Ok(Line::TooLong) => {
                spoke.store(true, Ordering::Relaxed);
                let item = match super::transport::lost_answer(&buf, None) {
                    Some(id) => Incoming::Unreadable {
                        id,
                        noise: Noise::TooLong,
                    },
                    None => Incoming::Noise(Noise::TooLong),
                };
                if tx.blocking_send(item).is_err() {
                    return;
                }
            }
            Ok(Line::Eof) => {
                let _ = tx.blocking_send(Incoming::Closed(Closed::Eof));
                return;
            }
            Err(e) => {
                let _ = tx.blocking_send(Incoming::Closed(Closed::Read(e)));
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
        if tx.blocking_send(Incoming::Log(line)).is_err() {
            return;
        }
    }
}

impl Transport for StdioTransport {
    fn send(&mut self, msg: &Value, _request_id: Option<u64>) -> Result<(), McpError> {
        let Some(writer) = self.writer.as_ref() else {
            return Err(LinkDown::Closed.into());
        };
        let mut line = crate::binding::exact_int::to_vec(msg).map_err(McpError::Encode)?;
        line.push(b'\n');
        match writer.try_send(line) {
            Ok(()) => Ok(()),
            Err(smpsc::TrySendError::Full(_)) => Err(LinkDown::NotReading(WRITE_QUEUE).into()),
            Err(smpsc::TrySendError::Disconnected(_)) => match self.child.try_wait() {
                Ok(Some(status)) => Err(LinkDown::Exited(status).into()),
                _ => Err(LinkDown::WriteFailed.into()),
            },
        }
    }

    fn exited_silent(&mut self, grace: Duration) -> Option<std::process::ExitStatus> {
        if self.spoke.load(Ordering::Relaxed) || !self.wait_exit(grace) {
            return None;
        }
        self.child.try_wait().ok().flatten()
    }

    fn close(&mut self) {
        if self.closed {
            return;
        }
        self.closed = true;
        // Closing the queue ends the writer thread, which closes stdin (a
        // writer stuck on a full pipe is ended by the signals below).
        drop(self.writer.take());
        if self.wait_exit(EXIT_GRACE) {
            return;
        }
        if let Ok(pid) = libc::pid_t::try_from(self.child.id()) {
            // SAFETY: kill(2) on our own child, which has not been reaped.
            unsafe {
                libc::kill(pid, libc::SIGTERM);
            }
        }
        if self.wait_exit(EXIT_GRACE) {
            return;
        }
        self.notices.say(&format!(
            "the server did not exit after its stdin closed and SIGTERM; killing it (pid {})",
            self.child.id()
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
