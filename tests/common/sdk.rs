//! Shared by the tests of `ahp-elicit mcp` (tests/mcp, and the MCP cases
//! of tests/cli): where `.ci/sdk-setup.sh` put the SDKs, starting a server
//! that listens on Streamable HTTP, the one way to run `ahp-elicit` with
//! the sign-in store kept out of the real home ([`ahp_in`], [`mcp_in`]),
//! and reading what the server's tool received.
#![allow(dead_code)]

use std::ffi::OsStr;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use serde_json::Value;

/// The repository root.
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The SDK's runtime if `.ci/sdk-setup.sh` installed it (`probe` is a file
/// that exists once it did). Missing: under CI a failure, else a notice and
/// None (the test returns; a plain `cargo test` needs no Python or Node).
pub fn installed(what: &str, probe: &Path) -> bool {
    if probe.exists() {
        return true;
    }
    let msg = format!(
        "{what} is not installed ({} missing): run bash .ci/sdk-setup.sh",
        probe.display()
    );
    assert!(std::env::var_os("CI").is_none(), "{msg}");
    eprintln!("skipped: {msg}");
    false
}

/// One finished `ahp-elicit mcp` run.
pub struct McpRun {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
    /// The `--events` file, one event a line.
    pub events: Vec<Value>,
}

impl McpRun {
    /// A finished run: its exit code (-1 when killed by a signal), its
    /// streams as text, and the events of the `--events` file `events`
    /// (none when there is no such file).
    pub fn of(out: &Output, events: Option<&Path>) -> McpRun {
        let text = events
            .and_then(|e| std::fs::read_to_string(e).ok())
            .unwrap_or_default();
        McpRun {
            code: out.status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
            events: text
                .lines()
                .map(|l| serde_json::from_str(l).expect("event line is JSON"))
                .collect(),
        }
    }

    /// Asserts that the run ended with exit `code` and said `text` on
    /// stderr; each failure message holds the stderr.
    pub fn assert_said(&self, code: i32, text: &str) {
        assert_eq!(self.code, code, "stderr: {}", self.stderr);
        assert!(
            self.stderr.contains(text),
            "{text:?} not said; stderr: {}",
            self.stderr
        );
    }

    /// Stdout parsed as JSON (the result `--call` prints); panics naming
    /// stdout and stderr when it is not.
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.stdout).unwrap_or_else(|e| {
            panic!(
                "stdout is not JSON ({e}): {}\nstderr: {}",
                self.stdout, self.stderr
            )
        })
    }

    /// The tool's first text content, parsed as JSON (the test servers
    /// report what they received that way).
    pub fn tool_report(&self) -> Value {
        tool_report(&self.stdout)
    }

    /// The complete params of the first request event, parsed from its text.
    pub fn request_params(&self) -> Value {
        let text = self.events[0]
            .pointer("/payload/elicitation/request/text")
            .and_then(Value::as_str)
            .expect("the request event carries the params as text");
        serde_json::from_str(text).expect("request text is JSON")
    }
}

/// The first text content of a `tools/call` result printed by `ahp-elicit
/// mcp`, parsed as JSON.
pub fn tool_report(stdout: &str) -> Value {
    let result: Value = serde_json::from_str(stdout)
        .unwrap_or_else(|e| panic!("stdout is the tool result ({e}): {stdout}"));
    let text = result
        .pointer("/content/0/text")
        .and_then(Value::as_str)
        .unwrap_or_else(|| panic!("a text content: {result}"));
    serde_json::from_str(text).expect("the tool's text is JSON")
}

/// `ahp-elicit` as the tests run it: stdin closed, the sign-in store in
/// `dir/state` (`AHP_ELICIT_STATE_DIR`) and no D-Bus session bus (so no
/// keychain), so that no run reads or writes the real home's or the
/// desktop's keychain. Add the arguments, then run it.
pub fn ahp_in(dir: &Path) -> Command {
    let mut c = Command::new(super::BIN);
    c.env("AHP_ELICIT_STATE_DIR", dir.join("state"))
        .env_remove("DBUS_SESSION_BUS_ADDRESS")
        .env_remove("XDG_RUNTIME_DIR")
        .stdin(Stdio::null());
    c
}

/// Run `ahp-elicit mcp --events dir/events.jsonl ARGS` ([`ahp_in`] `dir`)
/// and wait for its end.
pub fn mcp_in<S: AsRef<OsStr>>(dir: &Path, args: impl IntoIterator<Item = S>) -> McpRun {
    let events = dir.join("events.jsonl");
    let out = ahp_in(dir)
        .arg("mcp")
        .arg("--events")
        .arg(&events)
        .args(args)
        .output()
        .expect("run ahp-elicit mcp");
    McpRun::of(&out, Some(&events))
}

/// Run `ahp-elicit mcp FLAGS -- SERVER...` with `--events` into `dir`
/// ([`mcp_in`]).
pub fn run_mcp(dir: &Path, flags: &[&str], server: &[String]) -> McpRun {
    let server = server.iter().map(String::as_str);
    mcp_in(dir, flags.iter().copied().chain(["--"]).chain(server))
}

/// Write `answer` as an answers file in `dir`; returns its path as text.
pub fn answers(dir: &Path, answer: &Value) -> String {
    let p = dir.join("answers.json");
    std::fs::write(&p, answer.to_string()).expect("write answers");
    p.display().to_string()
}

/// Quote one word for the `sh -c` line of the pty harness.
pub fn sh_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

/// The longest a server may take to print where it listens (Python
/// servers import for seconds on a loaded machine): a safety net against
/// a hang.
pub const START_PATIENCE: Duration = Duration::from_secs(90);

/// A server listening on Streamable HTTP; killed (and reaped) on drop.
pub struct HttpServer {
    child: Child,
    /// The URL it said it listens at.
    pub url: String,
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl HttpServer {
    /// A server already started as `child`, answering at `url`; killed
    /// (and reaped) on drop.
    pub fn of(child: Child, url: String) -> HttpServer {
        HttpServer { child, url }
    }
}

/// Read `stream` (a server's output) line by line until one holds `text`,
/// then keep draining it in a thread, so the server never blocks on a full
/// pipe; panics naming `what` when the stream ends first.
pub fn await_line(stream: impl std::io::Read + Send + 'static, text: &str, what: &str) {
    let mut lines = BufReader::new(stream).lines();
    loop {
        match lines.next() {
            Some(Ok(l)) if l.contains(text) => break,
            Some(Ok(_)) => continue,
            _ => panic!("{what}: its output ended before {text:?}"),
        }
    }
    std::thread::spawn(move || for _ in lines {});
}

/// Start `argv` (a server serving Streamable HTTP) and wait, bounded, for the line
/// `listening http://127.0.0.1:<port>/mcp` it prints once it accepts
/// connections.
pub fn start_http(argv: &[String]) -> HttpServer {
    start_http_env(argv, &[])
}

/// [`start_http`] with `envs` set for the server.
pub fn start_http_env(argv: &[String], envs: &[(&str, String)]) -> HttpServer {
    let mut child = Command::new(&argv[0])
        .args(&argv[1..])
        .envs(envs.iter().map(|(k, v)| (*k, v.as_str())))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap_or_else(|e| panic!("start {argv:?}: {e}"));
    let out = child.stdout.take().expect("piped stdout");
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(out).lines() {
            let Ok(line) = line else { break };
            if let Some(url) = line.strip_prefix("listening ") {
                let _ = tx.send(url.trim().to_owned());
            }
        }
    });
    let mut server = HttpServer {
        child,
        url: String::new(),
    };
    match rx.recv_timeout(START_PATIENCE) {
        Ok(url) => server.url = url,
        Err(_) => panic!("{argv:?} did not say where it listens within {START_PATIENCE:?}"),
    }
    server
}
