//! The controlling terminal as a [`LineIo`]: `/dev/tty` in canonical (line)
//! mode, so the terminal itself echoes and edits the line, and nothing but
//! plain text and line ends is ever written.
//!
//! While plain mode runs, Control-C is not the interrupt character: it ends
//! the line (`VEOL`), so it reaches the responder as [`Reply::Interrupt`]
//! and cancels the request as in the full-screen UI, instead of killing the
//! process. The terminal's settings are restored on drop, and on a panic
//! or a signal by [`crate::signals`]: SIGTERM, SIGHUP, SIGINT and SIGQUIT
//! sent from outside end a request being asked with [`Reply::Quit`], so the
//! driver can cancel what remains, then the process exits with 128 + the
//! signal number; SIGTSTP (Control-Z, or sent from outside) puts the
//! settings from before back while the process is stopped, and SIGCONT
//! sets plain mode's again.

use std::fs::File;
use std::io::Write;
use std::os::fd::AsRawFd;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use super::io::{LineIo, Reply};
use crate::responder::RespondError;

/// How often a wait wakes up to look at the deadline and signals.
const TICK: Duration = Duration::from_millis(100);

/// The terminal, its settings from before plain mode (to restore) and
/// plain mode's own (to set again after a stop).
struct Saved {
    fd: i32,
    before: libc::termios,
    plain: libc::termios,
}

static SAVED: Mutex<Option<Saved>> = Mutex::new(None);

fn saved() -> std::sync::MutexGuard<'static, Option<Saved>> {
    SAVED.lock().unwrap_or_else(|e| e.into_inner())
}

/// Set `t` on `fd`.
fn set(fd: i32, t: &libc::termios) {
    // SAFETY: `fd` is the open /dev/tty of the TtyIo (closed only after
    // its restore, in its Drop) and `t` a termios read from it.
    unsafe {
        libc::tcsetattr(fd, libc::TCSANOW, t);
    }
}

/// Put back the terminal settings saved by [`TtyIo::open`]; a no-op when
/// there are none. Safe to call twice. A line typed and not ended is thrown
/// away first (TCIFLUSH): it was meant for a prompt, not for the shell that
/// reads the terminal next.
pub fn restore_terminal() {
    if let Some(s) = saved().take() {
        // SAFETY: `s.fd` is the open /dev/tty of the TtyIo (closed only
        // after this restore); TCIFLUSH only drops unread input.
        unsafe {
            libc::tcflush(s.fd, libc::TCIFLUSH);
        }
        set(s.fd, &s.before);
    }
}

/// For a stop: the settings from before, keeping plain mode's for
/// [`resume_terminal`].
fn suspend_terminal() {
    if let Some(s) = saved().as_ref() {
        set(s.fd, &s.before);
    }
}

/// After a stop (or a SIGSTOP, after which the shell may have changed the
/// mode): plain mode's settings again.
fn resume_terminal() {
    if let Some(s) = saved().as_ref() {
        set(s.fd, &s.plain);
    }
}

/// Plain mode's terminal, given back and taken again by [`crate::signals`].
static SIGNALS: crate::signals::Terminal = crate::signals::Terminal {
    restore: restore_terminal,
    suspend: suspend_terminal,
    resume: resume_terminal,
};

/// The controlling terminal, read and written by lines.
pub struct TtyIo {
    tty: File,
}

impl std::fmt::Debug for TtyIo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TtyIo").finish_non_exhaustive()
    }
}

fn io_err(step: &'static str, source: std::io::Error) -> RespondError {
    RespondError::Terminal { step, source }
}

impl TtyIo {
    /// Open `/dev/tty` and set it up for plain lines: canonical mode with
    /// echo, Control-C ending the line instead of sending SIGINT.
    ///
    /// Errors: [`RespondError::NoTerminal`] when there
    /// is no controlling terminal or it cannot be set up.
    pub fn open() -> Result<Self, RespondError> {
        let tty = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open("/dev/tty")
            .map_err(|source| RespondError::NoTerminal {
                step: "cannot open /dev/tty",
                source,
            })?;
        let fd = tty.as_raw_fd();
        // SAFETY: an all-zero termios is a valid value to be overwritten by
        // tcgetattr; `fd` is open for the whole call.
        let mut t: libc::termios = unsafe { std::mem::zeroed() };
        if unsafe { libc::tcgetattr(fd, &mut t) } != 0 {
            return Err(RespondError::NoTerminal {
                step: "/dev/tty is not a terminal",
                source: std::io::Error::last_os_error(),
            });
        }
        crate::signals::own_terminal(&SIGNALS);
        let mut plain = t;
        plain.c_lflag |= libc::ICANON | libc::ECHO;
        plain.c_cc[libc::VINTR] = libc::_POSIX_VDISABLE;
        plain.c_cc[libc::VEOL] = 3;
        *saved() = Some(Saved {
            fd,
            before: t,
            plain,
        });
        // SAFETY: `fd` is open; `plain` is a termios read from it, changed.
        if unsafe { libc::tcsetattr(fd, libc::TCSANOW, &plain) } != 0 {
            let source = std::io::Error::last_os_error();
            restore_terminal();
            return Err(RespondError::NoTerminal {
                step: "cannot set up /dev/tty",
                source,
            });
        }
        Ok(TtyIo { tty })
    }

    /// Wait until a line can be read, the deadline passes, a signal
    /// arrives or `withdrawn` says the request was withdrawn; None when a
    /// line is ready.
    fn wait_readable(
        &mut self,
        until: Option<Instant>,
        withdrawn: &dyn Fn() -> bool,
    ) -> Result<Option<Reply>, RespondError> {
        let fd = self.tty.as_raw_fd();
        loop {
            if crate::signals::received().is_some() {
                return Ok(Some(Reply::Quit));
            }
            if withdrawn() {
                return Ok(Some(Reply::Withdrawn));
            }
            let left = until.map(|d| d.saturating_duration_since(Instant::now()));
            if left == Some(Duration::ZERO) {
                return Ok(Some(Reply::TimedOut));
            }
            let tick = left.map_or(TICK, |l| l.min(TICK));
            let mut p = libc::pollfd {
                fd,
                events: libc::POLLIN,
                revents: 0,
            };
            // SAFETY: one valid pollfd for the duration of the call.
            let n = unsafe { libc::poll(&mut p, 1, tick.as_millis().max(1) as libc::c_int) };
            if n < 0 {
                let e = std::io::Error::last_os_error();
                if e.kind() == std::io::ErrorKind::Interrupted {
                    continue;
                }
                return Err(io_err("poll", e));
            }
            if n > 0 && p.revents & libc::POLLIN != 0 {
                return Ok(None);
            }
            if n > 0 && p.revents & (libc::POLLHUP | libc::POLLERR | libc::POLLNVAL) != 0 {
                return Err(RespondError::TerminalClosed);
            }
        }
    }

    /// Read one line that is ready.
    fn read_line(&mut self) -> Result<Reply, RespondError> {
        let mut buf = [0u8; 8192];
        let n = loop {
            match std::io::Read::read(&mut self.tty, &mut buf) {
                Ok(n) => break n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(io_err("read", e)),
            }
        };
        let kept = drop_terminal_replies(&buf[..n]);
        // Only a reply and Control-D: an empty line's Control-D.
        let (b, n) = (&kept[..], kept.len());
        Ok(match b.last() {
            None => Reply::Eof,
            Some(3) => Reply::Interrupt,
            Some(b'\n') => {
                let l = &b[..n - 1];
                let l = l.strip_suffix(b"\r").unwrap_or(l);
                Reply::Line(String::from_utf8_lossy(l).into_owned())
            }
            // Control-D after some text hands the text over without a line
            // end: end the line on the terminal.
            Some(_) => {
                self.write("\n")?;
                Reply::Line(String::from_utf8_lossy(b).into_owned())
            }
        })
    }

    /// Say `prompt` and read one key, with no Enter: the terminal leaves
    /// line mode (and echo) for that key only. Keys typed before the
    /// prompt, and within `guard` after it (typed before it could be read),
    /// are thrown away, as are terminal replies. Returns the key's first
    /// byte (Control-C is 3), or None on a signal.
    ///
    /// Errors: the terminal's (closed, unreadable).
    pub fn ask_key(&mut self, prompt: &str, guard: Duration) -> Result<Option<u8>, RespondError> {
        let _busy = crate::signals::busy();
        self.write(prompt)?;
        self.discard_typeahead();
        let fd = self.tty.as_raw_fd();
        let plain = saved().as_ref().map(|s| s.plain);
        if let Some(p) = &plain {
            let mut key = *p;
            key.c_lflag &= !(libc::ICANON | libc::ECHO);
            key.c_cc[libc::VMIN] = 1;
            key.c_cc[libc::VTIME] = 0;
            set(fd, &key);
        }
        let shown = Instant::now();
        let got = self.first_key(shown + guard);
        if let Some(p) = &plain {
            set(fd, p);
        }
        self.write("\n")?;
        got
    }

    /// The first key read after `from` ([`TtyIo::ask_key`]).
    fn first_key(&mut self, from: Instant) -> Result<Option<u8>, RespondError> {
        loop {
            if self.wait_readable(None, &|| false)?.is_some() {
                return Ok(None);
            }
            let mut buf = [0u8; 256];
            let n = loop {
                match std::io::Read::read(&mut self.tty, &mut buf) {
                    Ok(n) => break n,
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                    Err(e) => return Err(io_err("read", e)),
                }
            };
            if n == 0 {
                return Err(RespondError::TerminalClosed);
            }
            if Instant::now() < from {
                continue;
            }
            if let Some(b) = drop_terminal_replies(&buf[..n]).first() {
                return Ok(Some(*b));
            }
        }
    }

    fn write(&mut self, s: &str) -> Result<(), RespondError> {
        self.tty
            .write_all(s.as_bytes())
            .and_then(|_| self.tty.flush())
            .map_err(|e| io_err("write", e))
    }
}

/// `b` without the terminal replies in it (they may answer another
/// program's query and arrive while a line is typed): OSC, DCS, APC, PM and
/// SOS strings up to BEL or ESC `\` (or the end of what was read), and
/// control sequence reports (ESC `[`, parameters, intermediates, a final
/// byte), such as a cursor position or device attributes. Any other byte,
/// an ESC the person typed included, is kept.
fn drop_terminal_replies(b: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] != 0x1b || i + 1 == b.len() {
            out.push(b[i]);
            i += 1;
            continue;
        }
        match b[i + 1] {
            b']' | b'P' | b'_' | b'^' | b'X' => {
                let mut j = i + 2;
                loop {
                    match b.get(j) {
                        None => break,
                        Some(7) => {
                            j += 1;
                            break;
                        }
                        Some(0x1b) if b.get(j + 1) == Some(&b'\\') => {
                            j += 2;
                            break;
                        }
                        Some(_) => j += 1,
                    }
                }
                i = j;
            }
            b'[' => {
                let mut j = i + 2;
                while b.get(j).is_some_and(|c| (0x30..=0x3f).contains(c)) {
                    j += 1;
                }
                while b.get(j).is_some_and(|c| (0x20..=0x2f).contains(c)) {
                    j += 1;
                }
                match b.get(j) {
                    // A report has parameters (`ESC [ A`, an arrow typed
                    // in the line, is left as it is).
                    Some(c) if (0x40..=0x7e).contains(c) && j > i + 2 => i = j + 1,
                    _ => {
                        out.push(b[i]);
                        i += 1;
                    }
                }
            }
            _ => {
                out.push(b[i]);
                i += 1;
            }
        }
    }
    out
}

impl LineIo for TtyIo {
    fn say(&mut self, text: &str) -> Result<(), RespondError> {
        self.write(&format!("{text}\n"))
    }

    fn signal(&mut self, bytes: &[u8]) {
        let _ = self.tty.write_all(bytes).and_then(|_| self.tty.flush());
    }

    fn ask(
        &mut self,
        prompt: &str,
        deadline: Option<Instant>,
        withdrawn: &dyn Fn() -> bool,
    ) -> Result<Reply, RespondError> {
        let _busy = crate::signals::busy();
        self.write(prompt)?;
        let r = match self.wait_readable(deadline, withdrawn)? {
            Some(r) => r,
            None => self.read_line()?,
        };
        // Everything but a typed line leaves the cursor after the prompt
        // (or after the echoed ^C): end that line.
        if !matches!(r, Reply::Line(_)) {
            self.write("\n")?;
        }
        Ok(r)
    }

    fn discard_typeahead(&mut self) {
        // SAFETY: the fd is open; TCIFLUSH only drops unread input.
        unsafe {
            libc::tcflush(self.tty.as_raw_fd(), libc::TCIFLUSH);
        }
    }

    fn wait(&mut self, wait: Duration) -> Option<Reply> {
        let end = Instant::now() + wait;
        loop {
            match self.wait_readable(Some(end), &|| false) {
                Ok(Some(Reply::TimedOut)) | Err(_) => return None,
                Ok(Some(r)) => return Some(r),
                Ok(None) => match self.read_line() {
                    Ok(Reply::Interrupt) => {
                        let _ = self.write("\n");
                        return Some(Reply::Interrupt);
                    }
                    // Lines typed while nothing is asked are not answers.
                    Ok(_) => {}
                    Err(_) => return None,
                },
            }
        }
    }
}

impl Drop for TtyIo {
    fn drop(&mut self) {
        restore_terminal();
    }
}

#[cfg(test)]
mod tests {
    use super::drop_terminal_replies;

    #[test]
    fn terminal_replies_are_taken_out_of_a_line() {
        let cases: [(&[u8], &[u8]); 7] = [
            (b"Ada\x1b]11;rgb:ffff/ffff/ffff\x1b\\\n", b"Ada\n"),
            (b"\x1b]11;rgb:0/0/0\x07Ada\n", b"Ada\n"),
            (b"A\x1b[12;40Rda\x1b[?62;22c\n", b"Ada\n"),
            (b"\x1bP1$r0m\x1b\\Ada\n", b"Ada\n"),
            // Cut off at the end of what was read: dropped to there.
            (b"Ada\x1b]11;rgb:ff", b"Ada"),
            // Not replies: kept.
            (b"a\x1b[Ab\n", b"a\x1b[Ab\n"),
            (b"x\x1b\n", b"x\x1b\n"),
        ];
        for (line, want) in cases {
            assert_eq!(
                drop_terminal_replies(line),
                want,
                "{}",
                String::from_utf8_lossy(line)
            );
        }
    }
}
