//! The terminal is given back cleanly: on
//! every exit of `ahp-elicit respond` (a normal end after the waiting
//! screen, and `kill -INT` / `kill -QUIT` from outside) the restore is the
//! last thing written to the terminal (nothing drawn after leaving the
//! alternate screen), the terminal mode (`stty -g`) is as before, and a
//! signal ends the request on screen as `cancel` with exit 128 + signal.
//!
//! The screen is read through a terminal emulator (`vt100`); the timeouts
//! are only a safety net against a hang.

#![cfg(unix)]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use expectrl::Expect;
use serde_json::{json, Value};

use crate::common::BIN;
const PATIENCE: Duration = Duration::from_secs(40);

/// What a clean restore writes after `ESC[?1049l`: only "show the cursor".
const AFTER_LEAVE: &str = "\u{1b}[?25h";

struct Run {
    s: expectrl::session::OsSession,
    vt: vt100::Parser,
    raw: Vec<u8>,
    eof: bool,
    pid_file: PathBuf,
}

fn squash(t: &str) -> String {
    t.chars().filter(|c| !c.is_whitespace()).collect()
}

impl Run {
    /// `ahp-elicit ARGS > out` in an 80x24 pty; the shell prints the exit
    /// code and `stty -g` before and after.
    fn start(dir: &Path, out: &Path, args: &str) -> Run {
        let pid_file = dir.join("pid");
        let script = format!(
            "stty rows 24 cols 80; echo \"[before=$(stty -g)]\"; \
             '{BIN}' {args} > '{out}' 2> '{err}' & echo $! > '{pid}'; \
             wait $!; echo \"[exit=$?]\"; echo \"[after=$(stty -g)]\"",
            out = out.display(),
            err = dir.join("stderr").display(),
            pid = pid_file.display()
        );
        let mut cmd = Command::new("sh");
        cmd.arg("-c").arg(script);
        cmd.env("TERM", "xterm-256color");
        let mut s = expectrl::Session::spawn(cmd).expect("spawn in a pty");
        let _ = s.get_process_mut().set_window_size(80, 24);
        Run {
            s,
            vt: vt100::Parser::new(
                std::num::NonZeroU16::new(24).expect("rows"),
                std::num::NonZeroU16::new(80).expect("cols"),
                0,
            ),
            raw: Vec::new(),
            eof: false,
            pid_file,
        }
    }

    fn pump(&mut self) {
        let mut buf = [0u8; 16384];
        while !self.eof {
            match self.s.try_read(&mut buf) {
                Ok(0) => self.eof = true,
                Ok(n) => {
                    self.vt.process(&buf[..n]);
                    self.raw.extend_from_slice(&buf[..n]);
                }
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => break,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(_) => self.eof = true,
            }
        }
    }

    fn wait_for(&mut self, text: &str) {
        let end = Instant::now() + PATIENCE;
        loop {
            self.pump();
            let screen = self.vt.screen().contents();
            if squash(&screen).contains(&squash(text)) {
                return;
            }
            assert!(
                !self.eof && Instant::now() < end,
                "waiting for {text:?}; the screen:\n{screen}"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    fn pid(&self) -> i32 {
        let end = Instant::now() + PATIENCE;
        loop {
            if let Some(p) = std::fs::read_to_string(&self.pid_file)
                .ok()
                .and_then(|t| t.trim().parse().ok())
            {
                return p;
            }
            assert!(Instant::now() < end, "no pid file");
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Wait for the end; check the restore came last and the mode is back;
    /// returns the exit code.
    fn finish(&mut self) -> i32 {
        let end = Instant::now() + PATIENCE;
        while !self.eof {
            self.pump();
            assert!(Instant::now() < end, "the program did not end");
            std::thread::sleep(Duration::from_millis(20));
        }
        let raw = String::from_utf8_lossy(&self.raw).into_owned();
        let at = raw
            .rfind("\u{1b}[?1049l")
            .expect("the alternate screen was left");
        let tail = &raw[at + "\u{1b}[?1049l".len()..];
        // The shell's own lines follow the program's output.
        let program_tail = &tail[..tail.find("[exit=").unwrap_or(tail.len())];
        assert_eq!(
            program_tail.trim_end_matches(['\r', '\n']),
            AFTER_LEAVE,
            "nothing but the restore after leaving the alternate screen"
        );
        let field = |name: &str| -> String {
            let key = format!("[{name}=");
            let at = raw.rfind(&key).unwrap_or_else(|| panic!("{key} printed"));
            let rest = &raw[at + key.len()..];
            rest[..rest.find(']').expect("]")].to_owned()
        };
        assert_eq!(field("after"), field("before"), "stty -g restored");
        field("exit").parse().expect("exit code")
    }
}

fn request(id: &str, message: &str) -> String {
    let params = json!({"message": message, "requestedSchema": {"type": "object",
        "properties": {"name": {"type": "string", "title": "Name"}}}});
    let server = ahp_elicit::binding::Server {
        name: "restore".into(),
        title: None,
        version: None,
    };
    ahp_elicit::binding::wrap_request(
        &params,
        &ahp_elicit::binding::WrapOptions::new(&server, "mcp-stdio", id),
    )
    .expect("valid request")
    .event
    .to_string()
}

/// (action, parentEventId) of every result line.
fn results(out: &Path) -> Vec<(String, String)> {
    let text = std::fs::read_to_string(out).expect("output file");
    text.lines()
        .map(|l| {
            let ev: Value = serde_json::from_str(l).expect("a JSON line");
            (
                ev["payload"]["elicitation"]["action"]
                    .as_str()
                    .unwrap_or_default()
                    .to_owned(),
                ev["parentEventId"].as_str().unwrap_or_default().to_owned(),
            )
        })
        .collect()
}

/// A live stream (a FIFO) with one request written; returns the writer.
fn live(dir: &Path, out: &Path) -> (Run, std::fs::File) {
    let fifo = dir.join("requests.fifo");
    let st = Command::new("mkfifo").arg(&fifo).status().expect("mkfifo");
    assert!(st.success());
    let mut r = Run::start(dir, out, &format!("respond '{}'", fifo.display()));
    let mut w = std::fs::OpenOptions::new()
        .write(true)
        .open(&fifo)
        .expect("open the FIFO");
    writeln!(w, "{}", request("evt-1", "First form.")).expect("write");
    w.flush().expect("flush");
    r.wait_for("First form.");
    // A person reads the form before typing: keys within the consent guard
    // (300 ms after the screen was first shown whole) are dropped.
    std::thread::sleep(Duration::from_millis(600));
    (r, w)
}

/// A normal end after the waiting screen: nothing of the waiting screen is
/// drawn over the normal screen after the restore.
#[test]
fn normal_end_after_the_waiting_screen_writes_nothing_after_the_restore() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("out.jsonl");
    let (mut r, w) = live(dir.path(), &out);
    r.s.send("\u{1b}").expect("esc");
    r.wait_for("Waiting for the next request");
    drop(w);
    assert_eq!(r.finish(), 0);
    assert_eq!(results(&out), vec![("cancel".into(), "evt-1".into())]);
}

fn signal_ends_the_run(sig: &str, code: i32) {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("out.jsonl");
    let (mut r, w) = live(dir.path(), &out);
    r.s.send("typed").expect("type");
    r.wait_for("typed");
    let st = Command::new("sh")
        .args(["-c", &format!("kill {sig} {}", r.pid())])
        .status()
        .expect("kill");
    assert!(st.success());
    assert_eq!(r.finish(), code);
    drop(w);
    assert_eq!(results(&out), vec![("cancel".into(), "evt-1".into())]);
}

/// `kill -INT` from outside (not the Ctrl-C key): the request on screen is
/// cancelled, the terminal given back, exit 128 + 2.
#[test]
fn sigint_from_outside_restores_and_cancels() {
    signal_ends_the_run("-INT", 130);
}

/// `kill -QUIT` from outside: the same, exit 128 + 3.
#[test]
fn sigquit_from_outside_restores_and_cancels() {
    signal_ends_the_run("-QUIT", 131);
}

/// SIGTERM ends the same way (the restore is the last output).
#[test]
fn sigterm_restore_is_the_last_output() {
    signal_ends_the_run("-TERM", 143);
}
