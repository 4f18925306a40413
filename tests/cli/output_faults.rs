//! Output faults end to end, scripted (no terminal): a
//! closed stdout ends the run quietly; each result is written before the
//! run waits for the next request; `--output FILE` never holds half a line
//! after `kill -9`; SIGTERM in a flood writes every result decided, whole;
//! bad lines in a JSON Lines stream are reported with their line numbers
//! while the good lines are answered.
//!
//! The timeouts are only a safety net against a hang; nothing here measures
//! time.

#![cfg(unix)]

use crate::common;

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use serde_json::{json, Value};

use crate::common::BIN;
const PATIENCE: Duration = Duration::from_secs(60);

/// A form request (one string field with a default) as one JSON line
/// (built and checked once, then only the id changes).
fn request(id: &str) -> String {
    static TEMPLATE: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    TEMPLATE
        .get_or_init(|| build_request("TEMPLATE-ID"))
        .replace("TEMPLATE-ID", id)
}

fn build_request(id: &str) -> String {
    let params = json!({"message": format!("Request {id}."), "requestedSchema": {"type": "object",
        "properties": {"name": {"type": "string", "default": "Ada"}}}});
    common::request_line("faults", id, &params)
}

/// Wait for `child` to end (at most [`PATIENCE`]); its exit code.
fn wait(child: &mut Child) -> Option<i32> {
    let ended = common::came_true(PATIENCE, || child.try_wait().expect("try_wait").is_some());
    if !ended {
        let _ = child.kill();
        panic!("the program did not end");
    }
    child.wait().expect("wait").code()
}

/// Whether a thread of process `pid` sleeps writing to a full pipe.
fn blocked_on_a_pipe(pid: u32) -> bool {
    std::fs::read_dir(format!("/proc/{pid}/task"))
        .into_iter()
        .flatten()
        .flatten()
        .any(|task| {
            std::fs::read_to_string(task.path().join("wchan"))
                .is_ok_and(|w| w.contains("pipe_write"))
        })
}

/// Parse one output line as a complete, valid result event; returns
/// (action, parentEventId).
fn parse_result(line: &str) -> (String, String) {
    let ev: Value =
        serde_json::from_str(line).unwrap_or_else(|e| panic!("not a JSON line ({e}): {line:?}"));
    ahp_elicit::binding::read_result(ev.clone())
        .unwrap_or_else(|e| panic!("not a valid result event ({e:?}): {line}"));
    (
        ev["payload"]["elicitation"]["action"]
            .as_str()
            .unwrap_or_default()
            .to_owned(),
        ev["parentEventId"].as_str().unwrap_or_default().to_owned(),
    )
}

/// A reader that closes stdout after the first result: the run ends
/// quietly (no panic, nothing on stderr) and promptly, although thousands
/// of requests were still to be answered.
#[test]
fn closed_stdout_ends_the_run_quietly() {
    let dir = tempfile::tempdir().expect("tempdir");
    let input = dir.path().join("requests.jsonl");
    let mut text = String::new();
    for i in 0..3000 {
        text.push_str(&request(&format!("r{i}")));
        text.push('\n');
    }
    std::fs::write(&input, text).expect("write");
    let mut child = Command::new(BIN)
        .args(["respond", "--action", "accept"])
        .arg(&input)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    let mut first = String::new();
    BufReader::new(child.stdout.take().expect("stdout"))
        .read_line(&mut first)
        .expect("read the first result");
    // The reader is dropped here: the pipe's read end is closed.
    assert_eq!(
        parse_result(first.trim_end()),
        ("accept".into(), "r0".into())
    );
    let code = wait(&mut child);
    let mut err = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().expect("stderr"), &mut err)
        .expect("stderr");
    assert_eq!(err, "", "nothing on stderr, no panic");
    // Not killed by SIGPIPE: it ended by itself, quietly, with exit 2 (the
    // remaining results could not be delivered: an I/O fault, not success).
    assert_eq!(code, Some(2));
}

/// Results are flushed one event at a time: each result can be read
/// before the next request is even written.
#[test]
fn each_result_is_flushed_before_the_next_request() {
    let mut child = Command::new(BIN)
        .args(["respond", "--action", "decline"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    let mut stdin = child.stdin.take().expect("stdin");
    let stdout = child.stdout.take().expect("stdout");
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            if tx.send(line.expect("read")).is_err() {
                break;
            }
        }
    });
    for i in 1..=3 {
        writeln!(stdin, "{}", request(&format!("live-{i}"))).expect("write");
        stdin.flush().expect("flush");
        let line = rx.recv_timeout(PATIENCE).expect("a result for the request");
        assert_eq!(parse_result(&line), ("decline".into(), format!("live-{i}")));
    }
    drop(stdin);
    assert_eq!(wait(&mut child), Some(0));
    assert!(rx.recv_timeout(PATIENCE).is_err(), "no more results");
}

/// `kill -9` in the middle of a long stream: the `--output` file holds only
/// complete lines, each a valid result event, for a prefix of the requests
/// in order (nothing skipped, nothing repeated).
#[test]
fn output_file_never_holds_half_a_line_after_kill_9() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("out.jsonl");
    let mut child = Command::new(BIN)
        .args(["respond", "--action", "accept", "--output"])
        .arg(&out)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn");
    let mut stdin = child.stdin.take().expect("stdin");
    let writer = std::thread::spawn(move || {
        // Until the process is killed (a broken pipe) or 100000 requests.
        for i in 0..100_000 {
            if writeln!(stdin, "{}", request(&format!("k{i}"))).is_err() {
                return;
            }
        }
    });
    common::wait_until("50 results", || {
        std::fs::read(&out)
            .map(|b| b.iter().filter(|&&c| c == b'\n').count())
            .unwrap_or(0)
            >= 50
    });
    child.kill().expect("kill -9");
    assert_eq!(wait(&mut child), None, "killed by a signal");
    writer.join().expect("writer");
    let text = std::fs::read_to_string(&out).expect("output file");
    assert!(text.ends_with('\n'), "the file ends with a complete line");
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines.len() >= 50);
    for (i, line) in lines.iter().enumerate() {
        assert_eq!(parse_result(line), ("accept".into(), format!("k{i}")));
    }
}

/// Results and reports sent to one file (`> file 2>&1`) keep the input's
/// order: each report follows the results of the requests before it.
#[test]
fn results_and_reports_in_one_file_keep_the_input_order() {
    let dir = tempfile::tempdir().expect("tempdir");
    let input = dir.path().join("requests.jsonl");
    let text = format!(
        "{}\nnot json\n{}\nnot json either\n{}\n",
        request("r1"),
        request("r3"),
        request("r5")
    );
    std::fs::write(&input, text).expect("write");
    let both = std::fs::File::create(dir.path().join("both.txt")).expect("file");
    let status = Command::new(BIN)
        .args(["respond", "--action", "decline"])
        .arg(&input)
        .stdin(Stdio::null())
        .stdout(both.try_clone().expect("clone"))
        .stderr(both)
        .status()
        .expect("run");
    assert_eq!(status.code(), Some(1));
    let text = std::fs::read_to_string(dir.path().join("both.txt")).expect("read");
    let order: Vec<String> = text
        .lines()
        .map(|l| match serde_json::from_str::<Value>(l) {
            Ok(v) => v["parentEventId"].as_str().unwrap_or("?").to_owned(),
            Err(_) if l.contains("line 2:") => "report 2".into(),
            Err(_) if l.contains("line 4:") => "report 4".into(),
            Err(_) => l.to_owned(),
        })
        .collect();
    assert_eq!(order, ["r1", "report 2", "r3", "report 4", "r5"], "{text}");
}

/// A scripted `respond --log` run on a file of `n` requests (ids
/// `<prefix>0`, `<prefix>1`, ...), stdout and stderr piped and not read.
struct Flood {
    _dir: tempfile::TempDir,
    log: std::path::PathBuf,
    child: Child,
}

impl Flood {
    fn start(prefix: &str, n: usize) -> Flood {
        let dir = tempfile::tempdir().expect("tempdir");
        let input = dir.path().join("in.jsonl");
        let log = dir.path().join("log.jsonl");
        let text: String = (0..n)
            .map(|i| request(&format!("{prefix}{i}")) + "\n")
            .collect();
        std::fs::write(&input, text).expect("input");
        let child = Command::new(BIN)
            .args(["respond", "--action", "decline", "--log"])
            .arg(&log)
            .arg(&input)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn");
        Flood {
            _dir: dir,
            log,
            child,
        }
    }

    /// How many records of `event` the log holds now.
    fn logged(&self, event: &str) -> usize {
        std::fs::read_to_string(&self.log)
            .map(|t| t.matches(&format!("\"{event}\"")).count())
            .unwrap_or(0)
    }

    fn sigterm(&self) {
        let killed = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status();
        assert!(killed.expect("kill").success());
    }
}

/// SIGTERM while a flood is answered into a pipe nobody reads yet (the run
/// is blocked writing results): the run stops at the next request, writes
/// every result it decided as whole lines (as many as the log says were
/// emitted), says how many requests read were left, and exits 143.
#[test]
fn sigterm_in_a_flood_writes_every_decided_result_whole() {
    let n = 20_000;
    let mut flood = Flood::start("t", n);
    // Until the log shows 100 answers decided (the pipe fills soon after,
    // since nobody reads it, and the run blocks writing to it).
    common::wait_until("100 answers decided", || flood.logged("decision") >= 100);
    flood.sigterm();
    let stdout = flood.child.stdout.take().expect("stdout");
    let lines: Vec<String> = BufReader::new(stdout)
        .lines()
        .map(|l| l.expect("whole UTF-8 lines"))
        .collect();
    let mut stderr = String::new();
    let mut err = flood.child.stderr.take().expect("stderr");
    std::io::Read::read_to_string(&mut err, &mut stderr).expect("stderr");
    assert_eq!(
        wait(&mut flood.child),
        Some(143),
        "128 + SIGTERM; stderr: {stderr}"
    );
    assert!(
        !lines.is_empty() && lines.len() < n,
        "{} results",
        lines.len()
    );
    for (i, line) in lines.iter().enumerate() {
        assert_eq!(parse_result(line), ("decline".into(), format!("t{i}")));
    }
    assert_eq!(
        flood.logged("result-emitted"),
        lines.len(),
        "every result the log names was written"
    );
    assert!(
        stderr.contains("ended by signal 15") && stderr.contains("were not answered"),
        "{stderr}"
    );
}

/// SIGTERM while the run is blocked writing to a reader that never reads:
/// it cannot write what it decided, so it ends within the grace time, as
/// the signal would have ended it.
#[test]
fn sigterm_ends_a_run_blocked_on_a_reader_that_never_reads() {
    let n = 20_000;
    let mut flood = Flood::start("s", n);
    // Until the run is blocked writing to the full pipe (the kernel names
    // where each thread sleeps in /proc/PID/task/TID/wchan).
    let pid = flood.child.id();
    assert!(
        common::came_true(PATIENCE, || blocked_on_a_pipe(pid)),
        "the run never blocked on the pipe: {} answers",
        flood.logged("decision")
    );
    let last = flood.logged("decision");
    assert!(last < n, "blocked before the end: {last}");
    flood.sigterm();
    // stdout stays open and is never read.
    assert_eq!(wait(&mut flood.child), Some(143));
}

/// Bad lines in a JSON Lines stream (a truncated event, a line that is not
/// JSON) are reported with their line numbers; the good lines around them
/// are answered, in order, and the run exits 1.
#[test]
fn bad_lines_are_reported_by_number_and_good_lines_answered() {
    let dir = tempfile::tempdir().expect("tempdir");
    let input = dir.path().join("requests.jsonl");
    let text = format!(
        "{}\n{{\"ahp\": \"0.1\", \"id\": \"tru\n{}\nnot json at all\n{}\n",
        request("good-1"),
        request("good-3"),
        request("good-5")
    );
    std::fs::write(&input, text).expect("write");
    let out = dir.path().join("out.jsonl");
    let o = Command::new(BIN)
        .args(["respond", "--action", "decline", "--output"])
        .arg(&out)
        .arg(&input)
        .stdin(Stdio::null())
        .output()
        .expect("run");
    assert_eq!(o.status.code(), Some(1));
    assert!(o.stdout.is_empty(), "results go to --output only");
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("line 2: not a JSON event"),
        "names line 2: {err}"
    );
    assert!(
        err.contains("line 4: not a JSON event"),
        "names line 4: {err}"
    );
    assert!(!err.contains("panicked"), "{err}");
    let got: Vec<(String, String)> = std::fs::read_to_string(&out)
        .expect("output")
        .lines()
        .map(parse_result)
        .collect();
    let want: Vec<(String, String)> = ["good-1", "good-3", "good-5"]
        .iter()
        .map(|id| ("decline".to_owned(), (*id).to_owned()))
        .collect();
    assert_eq!(got, want);
}

/// A stream that never pauses does not hold back the answers: the first
/// result comes out while the writer is still far from done (the reader
/// reads only a bounded number of events ahead).
#[test]
fn a_flood_does_not_hold_back_the_first_answer() {
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Arc;
    let mut child = Command::new(BIN)
        .args(["respond", "--action", "decline"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn");
    let mut stdin = child.stdin.take().expect("stdin");
    let done = Arc::new(AtomicBool::new(false));
    let flag = done.clone();
    let writer = std::thread::spawn(move || {
        for i in 0..20_000 {
            if writeln!(stdin, "{}", request(&format!("f{i}"))).is_err() {
                return;
            }
        }
        flag.store(true, Ordering::SeqCst);
    });
    let mut first = String::new();
    BufReader::new(child.stdout.take().expect("stdout"))
        .read_line(&mut first)
        .expect("read the first result");
    assert!(
        !done.load(Ordering::SeqCst),
        "the first answer waited for the whole stream"
    );
    assert_eq!(
        parse_result(first.trim_end()),
        ("decline".into(), "f0".into())
    );
    child.kill().expect("kill");
    let _ = wait(&mut child);
    writer.join().expect("writer");
}

/// A closed stderr never turns a message into a panic (exit 101): the
/// command still ends with its own exit status (`mcp`: the server cannot
/// be started, a usage error).
#[test]
fn a_closed_stderr_is_no_panic() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("missing.jsonl");
    let bad = dir.path().join("bad.jsonl");
    std::fs::write(&bad, "{not json}\n").unwrap();
    for (args, want) in [
        (
            vec!["validate".to_owned(), missing.display().to_string()],
            2,
        ),
        (vec!["validate".to_owned(), bad.display().to_string()], 1),
        (
            vec![
                "respond".to_owned(),
                "--action".to_owned(),
                "decline".to_owned(),
                missing.display().to_string(),
            ],
            2,
        ),
        // The MCP client's messages and its final error take the same path.
        (
            vec![
                "mcp".to_owned(),
                "--action".to_owned(),
                "decline".to_owned(),
                "--".to_owned(),
                missing.display().to_string(),
            ],
            2,
        ),
    ] {
        // stderr is a pipe whose read end is closed before the program
        // starts: every write to it fails with EPIPE.
        let mut fds = [0; 2];
        assert_eq!(unsafe { libc::pipe(fds.as_mut_ptr()) }, 0);
        // SAFETY: both descriptors were just created by pipe() and are
        // owned here alone.
        let (read_end, write_end) = unsafe {
            use std::os::fd::FromRawFd;
            (
                std::os::fd::OwnedFd::from_raw_fd(fds[0]),
                std::os::fd::OwnedFd::from_raw_fd(fds[1]),
            )
        };
        drop(read_end);
        let mut child = Command::new(BIN)
            .args(&args)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::from(write_end))
            .spawn()
            .unwrap();
        assert_eq!(wait(&mut child), Some(want), "{args:?}");
    }
}

/// Run `ahp-elicit ARGS` with stdout a pipe whose reading end is closed
/// before the program writes; returns (exit code, stderr).
fn with_stdout_closed(args: &[&str]) -> (Option<i32>, String) {
    let mut child = Command::new(BIN)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    drop(child.stdout.take());
    let code = wait(&mut child);
    let mut err = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().expect("stderr"), &mut err)
        .expect("stderr");
    (code, err)
}

/// Every command's stdout write survives a closed pipe: exit 2, no panic,
/// nothing on stderr (`answers check`, `capabilities`, `mcp`).
#[test]
fn a_closed_stdout_never_panics_any_command() {
    let dir = tempfile::tempdir().expect("tempdir");
    let answers = dir.path().join("answers.json");
    std::fs::write(&answers, r#"{"action": "decline"}"#).expect("answers");
    let events = dir.path().join("requests.jsonl");
    std::fs::write(&events, request("r1") + "\n").expect("events");
    let (a, e) = (answers.to_str().unwrap(), events.to_str().unwrap());
    let fake = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/mcp_fake_server.py");
    let runs: [&[&str]; 3] = [
        &["answers", "check", a, e],
        &["capabilities"],
        &["mcp", "--action", "decline", "--", "python3", fake],
    ];
    for args in runs {
        let (code, err) = with_stdout_closed(args);
        assert!(!err.contains("panicked"), "{args:?}: {err}");
        assert_eq!(code, Some(2), "{args:?}: {err}");
        assert!(!err.contains("cannot write"), "{args:?}: quiet: {err}");
    }
}
