//! Terminal and process faults end to end (issue 5 item 5): the real
//! `ahp-elicit respond` in a real pseudo-terminal, stdout redirected to a
//! file. Ctrl-C cancels the current request, a second Ctrl-C quits and the
//! rest still get `cancel`; `--timeout` cancels an unanswered request;
//! SIGTERM and SIGHUP give the terminal back (alternate screen left, the
//! `stty -g` mode as before) and no result is invented or half written.
//!
//! The screen is read through a terminal emulator (`vt100`); every wait is
//! for screen text, the timeouts are only a safety net against a hang.

#![cfg(unix)]

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use expectrl::Expect;
use serde_json::{json, Value};

const BIN: &str = env!("CARGO_BIN_EXE_ahp-elicit");
const PATIENCE: Duration = Duration::from_secs(40);

// ---- the pty harness (the same small code is in tests/pty_url.rs) ----

/// One run of the binary in a pty, with the screen it draws.
struct Tui {
    s: expectrl::session::OsSession,
    vt: vt100::Parser,
    raw: Vec<u8>,
    eof: bool,
    pid_file: PathBuf,
    err_file: PathBuf,
}

/// `text` without any whitespace (wrapping-insensitive comparison).
fn squash(text: &str) -> String {
    text.chars().filter(|c| !c.is_whitespace()).collect()
}

impl Tui {
    /// Run `ahp-elicit ARGS > out` in a `cols`x`rows` pty (the size is set
    /// before the program starts); stderr goes to a file. The shell prints
    /// `stty -g` before and after, and `[exit=N]`.
    fn start(dir: &Path, out: &Path, cols: u16, rows: u16, args: &str) -> Tui {
        Tui::start_env(dir, out, cols, rows, args, &[])
    }

    /// [`Tui::start`] with extra environment variables.
    fn start_env(
        dir: &Path,
        out: &Path,
        cols: u16,
        rows: u16,
        args: &str,
        envs: &[(&str, String)],
    ) -> Tui {
        let pid_file = dir.join("pid");
        let err_file = dir.join("stderr");
        let script = format!(
            "stty rows {rows} cols {cols}; echo \"[before=$(stty -g)]\"; \
             '{BIN}' {args} > '{out}' 2> '{err}' & echo $! > '{pid}'; \
             wait $!; echo \"[exit=$?]\"; echo \"[after=$(stty -g)]\"",
            out = out.display(),
            err = err_file.display(),
            pid = pid_file.display()
        );
        let mut cmd = Command::new("sh");
        cmd.arg("-c").arg(script);
        cmd.env("TERM", "xterm-256color");
        cmd.env_remove("NO_COLOR");
        for (k, v) in envs {
            cmd.env(k, v);
        }
        let mut s = expectrl::Session::spawn(cmd).expect("spawn in a pty");
        let _ = s.get_process_mut().set_window_size(cols, rows);
        Tui {
            s,
            vt: vt100::Parser::new(
                std::num::NonZeroU16::new(rows).expect("rows > 0"),
                std::num::NonZeroU16::new(cols).expect("cols > 0"),
                0,
            ),
            raw: Vec::new(),
            eof: false,
            pid_file,
            err_file,
        }
    }

    /// Read what the pty has now (never blocks).
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
                // EIO: the other side of the pty is closed.
                Err(_) => self.eof = true,
            }
        }
    }

    fn screen(&self) -> String {
        self.vt.screen().contents()
    }

    /// Wait until the screen shows `text` (whitespace ignored).
    fn wait_for(&mut self, text: &str) {
        let want = squash(text);
        let end = Instant::now() + PATIENCE;
        loop {
            self.pump();
            if squash(&self.screen()).contains(&want) {
                return;
            }
            assert!(
                !self.eof && Instant::now() < end,
                "waiting for {text:?}; the screen:\n{}",
                self.screen()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Whether the screen shows `text` now (whitespace ignored).
    #[allow(dead_code)]
    fn shows(&mut self, text: &str) -> bool {
        self.pump();
        squash(&self.screen()).contains(&squash(text))
    }

    fn send(&mut self, keys: &str) {
        self.s.send(keys).expect("send keys");
    }

    /// The pid of `ahp-elicit` itself (not of the shell).
    #[allow(dead_code)]
    fn pid(&self) -> i32 {
        let end = Instant::now() + PATIENCE;
        loop {
            if let Ok(t) = std::fs::read_to_string(&self.pid_file) {
                if let Ok(p) = t.trim().parse() {
                    return p;
                }
            }
            assert!(Instant::now() < end, "no pid file");
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// What the program wrote on stderr.
    fn stderr(&self) -> String {
        std::fs::read_to_string(&self.err_file).unwrap_or_default()
    }

    /// Wait for the end of the run; returns the program's exit code and
    /// checks that the terminal was given back: the alternate screen left,
    /// bracketed paste off, and the terminal mode (`stty -g`) as it was
    /// before the program started (so raw mode is off).
    fn finish(&mut self) -> i32 {
        let end = Instant::now() + PATIENCE;
        while !self.eof {
            self.pump();
            assert!(
                Instant::now() < end,
                "the program did not end; the screen:\n{}",
                self.screen()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
        let raw = String::from_utf8_lossy(&self.raw).into_owned();
        assert!(raw.contains("\u{1b}[?1049l"), "left the alternate screen");
        assert!(raw.contains("\u{1b}[?2004l"), "bracketed paste disabled");
        let field = |name: &str| -> String {
            let key = format!("[{name}=");
            let at = raw.rfind(&key).unwrap_or_else(|| panic!("{key} printed"));
            let rest = &raw[at + key.len()..];
            rest[..rest.find(']').expect("]")].to_owned()
        };
        let code: i32 = field("exit").parse().expect("exit code");
        assert_eq!(
            field("after"),
            field("before"),
            "the terminal mode (stty -g) is restored"
        );
        assert!(
            !self.stderr().contains("panicked"),
            "no panic: {}",
            self.stderr()
        );
        code
    }
}

/// Every line of `out`, each a complete result event: (action,
/// parentEventId, parsed ElicitResult text).
fn results(out: &Path) -> Vec<(String, String, Value)> {
    let text = std::fs::read_to_string(out).expect("output file");
    assert!(
        text.is_empty() || text.ends_with('\n'),
        "no partial line: {text:?}"
    );
    text.lines()
        .map(|l| {
            let ev: Value = serde_json::from_str(l).expect("a JSON line");
            ahp_elicit::binding::read_result_event(&ev).expect("a valid result event");
            let inner: Value = serde_json::from_str(
                ev["payload"]["elicitation"]["result"]["text"]
                    .as_str()
                    .expect("text part"),
            )
            .expect("result text");
            (
                ev["payload"]["elicitation"]["action"]
                    .as_str()
                    .unwrap_or_default()
                    .to_owned(),
                ev["parentEventId"].as_str().unwrap_or_default().to_owned(),
                inner,
            )
        })
        .collect()
}

fn actions_and_parents(rs: &[(String, String, Value)]) -> Vec<(&str, &str)> {
    rs.iter()
        .map(|(a, p, _)| (a.as_str(), p.as_str()))
        .collect()
}

/// A request event as one JSON line: a one-field form, or a URL request
/// when `url` is given.
fn request(id: &str, message: &str, url: Option<&str>) -> String {
    let params = match url {
        Some(u) => {
            json!({"mode": "url", "message": message, "url": u, "elicitationId": format!("el-{id}")})
        }
        None => json!({"message": message, "requestedSchema": {"type": "object",
            "properties": {"name": {"type": "string", "title": "Name"}}}}),
    };
    let server = ahp_elicit::binding::Server {
        name: "faults".into(),
        title: None,
        version: None,
    };
    ahp_elicit::binding::wrap_params(
        &params,
        &server,
        "mcp-stdio",
        id,
        Some("2026-11-30T09:00:00Z"),
    )
    .expect("valid request")
    .event
    .to_string()
}

/// Write the requests as a JSON Lines file.
fn write_stream(dir: &Path, lines: &[String]) -> PathBuf {
    let path = dir.join("requests.jsonl");
    let mut text = lines.join("\n");
    text.push('\n');
    std::fs::write(&path, text).expect("write requests");
    path
}

fn three_forms(dir: &Path) -> PathBuf {
    write_stream(
        dir,
        &[
            request("evt-1", "First form.", None),
            request("evt-2", "Second form.", None),
            request("evt-3", "Third form.", None),
        ],
    )
}

fn kill(pid: i32, sig: &str) {
    let st = Command::new("kill")
        .args([sig, &pid.to_string()])
        .status()
        .expect("kill");
    assert!(st.success(), "kill {sig} {pid}");
}

// ---- the tests ----

/// Ctrl-C cancels the request on screen; the next one is still shown and
/// answered.
#[test]
fn ctrl_c_cancels_the_current_request_only() {
    let dir = tempfile::tempdir().expect("tempdir");
    let input = write_stream(
        dir.path(),
        &[
            request("evt-1", "First form.", None),
            request("evt-2", "Second, a URL.", Some("https://example.com/x")),
        ],
    );
    let out = dir.path().join("out.jsonl");
    let mut t = Tui::start(
        dir.path(),
        &out,
        80,
        24,
        &format!("respond '{}' --no-open", input.display()),
    );
    t.wait_for("First form.");
    t.send("\u{3}");
    t.wait_for("Second, a URL.");
    t.send("d");
    assert_eq!(t.finish(), 0);
    assert_eq!(
        actions_and_parents(&results(&out)),
        vec![("cancel", "evt-1"), ("decline", "evt-2")]
    );
}

/// Two Ctrl-C in a row: the first cancels request 1, the second quits, and
/// every remaining request still gets a `cancel` result (3 results), with
/// no key pressed for request 3.
#[test]
fn second_ctrl_c_quits_and_cancels_the_rest() {
    let dir = tempfile::tempdir().expect("tempdir");
    let input = three_forms(dir.path());
    let out = dir.path().join("out.jsonl");
    let mut t = Tui::start(
        dir.path(),
        &out,
        80,
        24,
        &format!("respond '{}'", input.display()),
    );
    t.wait_for("First form.");
    t.send("\u{3}\u{3}");
    assert_eq!(t.finish(), 0);
    let rs = results(&out);
    assert_eq!(
        actions_and_parents(&rs),
        vec![
            ("cancel", "evt-1"),
            ("cancel", "evt-2"),
            ("cancel", "evt-3")
        ]
    );
    for r in &rs {
        assert_eq!(r.2, json!({"action": "cancel"}));
    }
}

/// `--timeout 1` cancels an unanswered request, a form and a URL one alike,
/// with no key pressed.
#[test]
fn timeout_cancels_unanswered_requests() {
    let dir = tempfile::tempdir().expect("tempdir");
    let input = write_stream(
        dir.path(),
        &[
            request("evt-1", "First form.", None),
            request("evt-2", "Second, a URL.", Some("https://example.com/x")),
        ],
    );
    let out = dir.path().join("out.jsonl");
    let mut t = Tui::start(
        dir.path(),
        &out,
        80,
        24,
        &format!("respond '{}' --timeout 1 --no-open", input.display()),
    );
    t.wait_for("First form.");
    t.wait_for("Second, a URL.");
    assert_eq!(t.finish(), 0);
    assert_eq!(
        actions_and_parents(&results(&out)),
        vec![("cancel", "evt-1"), ("cancel", "evt-2")]
    );
}

/// Run three form requests, send `sig` while request 1 is on screen;
/// returns the exit code, the results and stderr.
fn signal_run(sig: &str) -> (i32, Vec<(String, String, Value)>, String) {
    let dir = tempfile::tempdir().expect("tempdir");
    let input = three_forms(dir.path());
    let out = dir.path().join("out.jsonl");
    let mut t = Tui::start(
        dir.path(),
        &out,
        80,
        24,
        &format!("respond '{}'", input.display()),
    );
    t.wait_for("First form.");
    t.send("typed");
    t.wait_for("typed");
    kill(t.pid(), sig);
    let code = t.finish();
    (code, results(&out), t.stderr())
}

/// SIGTERM while request 1 is on screen (a form with text typed in): the
/// terminal is given back, request 1 ends as `cancel` (nothing typed is
/// sent) and so do the two requests already read behind it; every line is
/// complete; the run exits with 128 + 15.
#[test]
fn sigterm_restores_the_terminal_and_cancels_what_was_read() {
    let (code, rs, err) = signal_run("-TERM");
    assert_eq!(code, 143, "{err}");
    assert_eq!(
        actions_and_parents(&rs),
        vec![
            ("cancel", "evt-1"),
            ("cancel", "evt-2"),
            ("cancel", "evt-3")
        ]
    );
    assert_eq!(rs[0].2, json!({"action": "cancel"}));
}

/// SIGHUP (the terminal closed) behaves like SIGTERM; exit 128 + 1.
#[test]
fn sighup_restores_the_terminal_and_cancels_what_was_read() {
    let (code, rs, err) = signal_run("-HUP");
    assert_eq!(code, 129, "{err}");
    assert_eq!(
        actions_and_parents(&rs),
        vec![
            ("cancel", "evt-1"),
            ("cancel", "evt-2"),
            ("cancel", "evt-3")
        ]
    );
}

/// SIGTERM on a live stream that stays open (a FIFO whose writer is still
/// there): the request on screen gets `cancel`, nothing is invented for
/// requests not yet sent, the terminal is given back, and the process ends
/// at once (it does not wait for the stream to close) with 128 + 15.
#[test]
fn sigterm_on_a_live_stream_ends_with_143() {
    use std::io::Write;
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("out.jsonl");
    let (mut t, mut w) = live_stream(dir.path(), &out);
    writeln!(w, "{}", request("evt-1", "First form.", None)).expect("write");
    w.flush().expect("flush");
    t.wait_for("First form.");
    kill(t.pid(), "-TERM");
    assert_eq!(t.finish(), 143);
    drop(w);
    assert_eq!(
        actions_and_parents(&results(&out)),
        vec![("cancel", "evt-1")]
    );
}

/// Open a FIFO as the input of a run; returns the session and the writer
/// (kept open: a live stream).
fn live_stream(dir: &Path, out: &Path) -> (Tui, std::fs::File) {
    let fifo = dir.join("requests.fifo");
    let st = Command::new("mkfifo").arg(&fifo).status().expect("mkfifo");
    assert!(st.success());
    let t = Tui::start(dir, out, 80, 24, &format!("respond '{}'", fifo.display()));
    // Opening blocks until ahp-elicit opens the FIFO for reading: done in
    // a thread, so a program that never opens it fails the test instead of
    // hanging it.
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(std::fs::OpenOptions::new().write(true).open(&fifo));
    });
    let w = rx
        .recv_timeout(PATIENCE)
        .expect("ahp-elicit opens the FIFO")
        .expect("open the FIFO");
    (t, w)
}

/// On a live stream, Ctrl-C twice while waiting for the next request quits
/// at once (it used to wait for the stream to close, with the terminal
/// still taken and no key able to end it).
#[test]
fn second_ctrl_c_while_waiting_quits_a_live_stream() {
    use std::io::Write;
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("out.jsonl");
    let (mut t, mut w) = live_stream(dir.path(), &out);
    writeln!(w, "{}", request("evt-1", "First form.", None)).expect("write");
    w.flush().expect("flush");
    t.wait_for("First form.");
    t.send("\u{1b}");
    t.wait_for("Waiting for the next request");
    t.send("\u{3}");
    t.wait_for("Press Ctrl-C again to quit");
    t.send("\u{3}");
    assert_eq!(t.finish(), 0);
    drop(w);
    assert_eq!(
        actions_and_parents(&results(&out)),
        vec![("cancel", "evt-1")]
    );
}
