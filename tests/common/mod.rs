//! Helpers shared by the integration tests: where the examples, the
//! conformance vectors and the (optional) pinned upstream files are.
#![allow(dead_code)]

#[cfg(unix)]
pub mod pty;
pub mod sdk;

use std::path::PathBuf;
use std::time::{Duration, Instant};

/// The longest a test waits for what the program must do (output, a file,
/// its end): a safety net against a hang, never a measure.
pub const PATIENCE: Duration = Duration::from_secs(40);

/// How often a wait checks its condition.
pub const POLL: Duration = Duration::from_millis(20);

/// Check `ready` every [`POLL`] until it gives `Ok`, and return that;
/// after `patience` without it, panic with the last `Err` (what was seen).
/// The one polling loop of the tests: every wait is for a condition.
pub fn wait_ok<T>(patience: Duration, mut ready: impl FnMut() -> Result<T, String>) -> T {
    let end = Instant::now().checked_add(patience);
    loop {
        match ready() {
            Ok(v) => return v,
            Err(seen) if end.is_some_and(|e| Instant::now() >= e) => panic!("{seen}"),
            // The interval between two checks of a condition, not a wait
            // for something to have happened.
            Err(_) => std::thread::sleep(POLL),
        }
    }
}

/// Whether `cond` came to hold within `patience` (checked every [`POLL`]);
/// false when it did not, for a caller that reports that itself.
pub fn came_true(patience: Duration, mut cond: impl FnMut() -> bool) -> bool {
    let end = Instant::now() + patience;
    wait_ok(Duration::MAX, || {
        if cond() {
            Ok(true)
        } else if Instant::now() >= end {
            Ok(false)
        } else {
            Err(String::new())
        }
    })
}

/// Wait until `cond` holds, at most [`PATIENCE`]; panics naming `what`.
pub fn wait_until(what: &str, cond: impl FnMut() -> bool) {
    assert!(
        came_true(PATIENCE, cond),
        "waiting for {what}: it never came"
    );
}

/// Wait until the file `path` exists ([`wait_until`]).
pub fn wait_file(path: &std::path::Path) {
    wait_until(&format!("{}", path.display()), || path.exists());
}

/// The project root (`CARGO_MANIFEST_DIR`).
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The binary under test.
pub const BIN: &str = env!("CARGO_BIN_EXE_ahp-elicit");

/// `ahp-elicit` as an `assert_cmd` command: stdin is what `write_stdin`
/// gives (empty when not called), and `NO_COLOR` removed, so that what the
/// person running the tests has set does not change what the tests see (a
/// test about it sets it).
pub fn ahp() -> assert_cmd::Command {
    let mut c = assert_cmd::Command::new(BIN);
    // No keychain: a sign-in the tests make never reaches the desktop's.
    c.env_remove("NO_COLOR")
        .env_remove("DBUS_SESSION_BUS_ADDRESS")
        .env_remove("XDG_RUNTIME_DIR");
    c
}

/// `ahp-elicit` as [`ahp`], in the project root (where the paths the
/// tests name relative to it resolve), with `AHP_UPSTREAM_DIR` removed so
/// that the pinned upstream files it finds are the project's (a test about
/// that variable sets it).
pub fn ahp_at_root() -> assert_cmd::Command {
    let mut c = ahp();
    c.current_dir(root()).env_remove("AHP_UPSTREAM_DIR");
    c
}

/// One finished run of the binary ([`run`]).
#[derive(Debug)]
pub struct Ran {
    /// The exit code; None when a signal ended the run.
    pub code: Option<i32>,
    pub stdout: String,
    /// Invalid UTF-8 replaced.
    pub stderr: String,
}

impl Ran {
    /// (exit code, stdout, stderr).
    pub fn parts(self) -> (Option<i32>, String, String) {
        (self.code, self.stdout, self.stderr)
    }
}

/// Run `ahp-elicit ARGS` with `stdin` written to it and then closed, and
/// wait for its end. Panics when stdout is not UTF-8 or the binary
/// panicked (bad input gets an error, never a panic): the one way the
/// tests without a terminal run the binary on bytes.
pub fn run<S: AsRef<std::ffi::OsStr>>(args: impl IntoIterator<Item = S>, stdin: &[u8]) -> Ran {
    let o = ahp()
        .args(args)
        .write_stdin(stdin.to_vec())
        .output()
        .expect("run ahp-elicit");
    let ran = Ran {
        code: o.status.code(),
        stdout: String::from_utf8(o.stdout).expect("stdout is UTF-8"),
        stderr: String::from_utf8_lossy(&o.stderr).into_owned(),
    };
    assert!(!ran.stderr.contains("panicked"), "{}", ran.stderr);
    ran
}

/// (exit code, stdout, stderr) of a finished run, the streams as text
/// (invalid UTF-8 replaced).
pub fn texts(o: &std::process::Output) -> (Option<i32>, String, String) {
    (
        o.status.code(),
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

/// The fake MCP server (tests/mcp_fake_server.py; run with `python3`).
pub fn fake_server() -> String {
    root()
        .join("tests/mcp_fake_server.py")
        .to_string_lossy()
        .into_owned()
}

/// Send the signal named `sig` (`TERM`, `INT`, `TSTP`, ...) to `pid`
/// with kill(1); panics when kill fails (no such process).
#[cfg(unix)]
pub fn signal(pid: impl std::fmt::Display, sig: &str) {
    let st = std::process::Command::new("kill")
        .args([format!("-{sig}"), pid.to_string()])
        .status()
        .expect("run kill");
    assert!(st.success(), "kill -{sig} {pid}");
}

/// Whether process `pid` exists (kill -0).
#[cfg(unix)]
pub fn alive(pid: i32) -> bool {
    std::process::Command::new("kill")
        .args(["-0", &pid.to_string()])
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// The bytes of a hostile case's input (tests/hostile/cases/NAME): its
/// `input` file, or the large one its `input.gen.json` describes
/// (`prefix`, `repeat` times `count`, `suffix`).
pub fn hostile_input(dir: &std::path::Path) -> Vec<u8> {
    if let Ok(b) = std::fs::read(dir.join("input")) {
        return b;
    }
    let g: serde_json::Value = serde_json::from_slice(
        &std::fs::read(dir.join("input.gen.json")).expect("input or input.gen.json"),
    )
    .expect("input.gen.json is JSON");
    let text = |k: &str| g[k].as_str().unwrap_or_default().as_bytes().to_vec();
    let mut out = text("prefix");
    for _ in 0..g["count"].as_u64().unwrap_or(0) {
        out.extend(text("repeat"));
    }
    out.extend(text("suffix"));
    out
}

/// Every case of the hostile corpus (tests/hostile/cases/*), sorted.
pub fn hostile_cases() -> Vec<PathBuf> {
    let mut cases: Vec<PathBuf> = std::fs::read_dir(root().join("tests/hostile/cases"))
        .expect("the hostile corpus")
        .map(|e| e.expect("a corpus entry").path())
        .collect();
    cases.sort();
    cases
}

/// Every non-blank line of the file `path`, parsed as JSON.
pub fn json_lines(path: &std::path::Path) -> Vec<serde_json::Value> {
    std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("read {}: {e}", path.display()))
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect()
}

/// The MCP message an event carries as text (`part`: `request` or
/// `result`), parsed; panics naming the event when there is none.
pub fn event_body(ev: &serde_json::Value, part: &str) -> serde_json::Value {
    let text = ev["payload"]["elicitation"][part]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("a {part} text in {ev}"));
    serde_json::from_str(text).unwrap_or_else(|e| panic!("the {part} text is JSON ({e}): {text}"))
}

/// The names of the tools a `tools/list` result lists.
pub fn tool_names(listed: &serde_json::Value) -> Vec<&str> {
    listed["tools"]
        .as_array()
        .expect("a tools list")
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect()
}

/// (action, parentEventId) of a result event; empty where it has none.
pub fn action_and_parent(ev: &serde_json::Value) -> (String, String) {
    let text = |v: &serde_json::Value| v.as_str().unwrap_or_default().to_owned();
    (
        text(&ev["payload"]["elicitation"]["action"]),
        text(&ev["parentEventId"]),
    )
}

/// The arguments of a hostile case (tests/hostile/cases/NAME/args.json),
/// its `ANSWERS` replaced by the path of the case's `answers.json`.
pub fn hostile_args(dir: &std::path::Path) -> Vec<String> {
    let args: Vec<String> = serde_json::from_slice(
        &std::fs::read(dir.join("args.json")).expect("args.json of the case"),
    )
    .expect("args.json is a list of strings");
    let answers = dir.join("answers.json").to_string_lossy().into_owned();
    args.into_iter()
        .map(|a| if a == "ANSWERS" { answers.clone() } else { a })
        .collect()
}

/// Write `contents` to the file `name` in `dir`; returns its path.
pub fn file_in(dir: &std::path::Path, name: &str, contents: impl AsRef<[u8]>) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, contents).unwrap_or_else(|e| panic!("write {}: {e}", p.display()));
    p
}

/// The sample events kept in the repository (`examples/`).
pub fn examples_dir() -> PathBuf {
    root().join("examples")
}

/// The example event files (`examples/*.json` and `*.jsonl`), sorted; the
/// folder's README is not an event.
pub fn example_files() -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(examples_dir())
        .expect("examples/")
        .map(|e| e.expect("examples/ entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "json" || x == "jsonl"))
        .collect();
    v.sort();
    v
}

/// The events of one example file: every non-blank line of a `.jsonl`
/// file, or the one document of a `.json` file, parsed.
pub fn example_documents(path: &std::path::Path) -> Vec<serde_json::Value> {
    let text =
        std::fs::read_to_string(path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()));
    let parse =
        |t: &str| serde_json::from_str(t).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    if path.extension().is_some_and(|x| x == "jsonl") {
        text.lines()
            .filter(|l| !l.trim().is_empty())
            .map(parse)
            .collect()
    } else {
        vec![parse(&text)]
    }
}

/// Every request event of the examples ([`example_files`]), each with the
/// name of its file; at least the six shared ones.
pub fn example_requests() -> Vec<(String, ahp_elicit::binding::RequestEvent)> {
    let mut out = Vec::new();
    for p in example_files() {
        let name = p
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        for d in example_documents(&p) {
            if d["type"] == "user.elicitation.request" {
                let r = ahp_elicit::binding::read_request(
                    d,
                    ahp_elicit::binding::ReadOptions::default(),
                )
                .expect("valid example request");
                out.push((name.clone(), r));
            }
        }
    }
    assert!(
        out.len() >= 6,
        "expected the shared examples, found {}",
        out.len()
    );
    out
}

/// The conformance vectors kept in the repository (`tests/vectors/`).
pub fn vectors_dir() -> PathBuf {
    root().join("tests/vectors")
}

/// The vector file of a pinned revision: `elicitation.jsonl` for the
/// default revision (2025-11-25, the first file), else
/// `elicitation-<version>.jsonl`.
#[allow(dead_code)]
pub fn vector_file(rev: ahp_elicit::binding::Revision) -> PathBuf {
    if rev == ahp_elicit::binding::Revision::DEFAULT {
        vectors_dir().join("elicitation.jsonl")
    } else {
        vectors_dir().join(format!("elicitation-{rev}.jsonl"))
    }
}

/// Every line of the vector file of `rev`, parsed.
#[allow(dead_code)]
pub fn vectors_of(rev: ahp_elicit::binding::Revision) -> Vec<serde_json::Value> {
    let path = vector_file(rev);
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("vectors file {}: {e}", path.display()));
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).expect("vector line"))
        .collect()
}

/// Every line of every pinned revision's vector file, parsed, oldest
/// revision first.
#[allow(dead_code)]
pub fn vectors() -> Vec<serde_json::Value> {
    ahp_elicit::binding::Revision::ALL
        .iter()
        .flat_map(|r| vectors_of(*r))
        .collect()
}

/// Why the tests that read the official upstream files are ignored by
/// default: those files are never committed.
pub const NEEDS_UPSTREAM: &str =
    "needs the pinned upstream files: run `ahp-elicit upstream refresh` \
(downloads them into upstream/mcp/<version>/ and checks the digests) or set AHP_UPSTREAM_DIR";

/// The folder holding `rev`'s pinned upstream `schema.ts`/`schema.json`:
/// `$AHP_UPSTREAM_DIR/<version>`, else `upstream/mcp/<version>/` when it
/// holds the files, else `../shared/upstream/mcp/<version>/`. Panics with
/// the way to get them when none has them (only ignored tests call it).
#[allow(dead_code)]
pub fn upstream_dir(rev: ahp_elicit::binding::Revision) -> PathBuf {
    if let Ok(d) = std::env::var("AHP_UPSTREAM_DIR") {
        return PathBuf::from(d).join(rev.as_str());
    }
    let local = root().join("upstream/mcp").join(rev.as_str());
    if local.join("schema.json").is_file() {
        return local;
    }
    let shared = root().join("../shared/upstream/mcp").join(rev.as_str());
    assert!(shared.join("schema.json").is_file(), "{NEEDS_UPSTREAM}");
    shared
}

/// A request event, as one JSON line, wrapping MCP `elicitation/create`
/// `params` from server `server` (no title or version) with event id `id`,
/// adapter `mcp-stdio` and a fixed time. Panics when the params are not a
/// valid request (a test's own fixture).
pub fn request_line(server: &str, id: &str, params: &serde_json::Value) -> String {
    request_event(server, None, id, params).to_string()
}

/// [`request_line`] as a JSON value, from a server with `title` (None: no
/// title).
pub fn request_event(
    server: &str,
    title: Option<&str>,
    id: &str,
    params: &serde_json::Value,
) -> serde_json::Value {
    let server = ahp_elicit::binding::Server {
        name: server.into(),
        title: title.map(Into::into),
        version: None,
    };
    ahp_elicit::binding::wrap_request(
        params,
        &ahp_elicit::binding::WrapOptions {
            time: Some("2026-11-30T09:00:00Z"),
            ..ahp_elicit::binding::WrapOptions::new(&server, "mcp-stdio", id)
        },
    )
    .unwrap_or_else(|e| panic!("valid request {id} ({params}): {e:?}"))
    .event
}

/// Run `ahp-elicit ARGS` in `dir`, stdin empty: (exit code, stdout,
/// stderr).
pub fn run_in(args: &[&str], dir: &std::path::Path) -> (Option<i32>, String, String) {
    let o = std::process::Command::new(BIN)
        .args(args)
        .current_dir(dir)
        .stdin(std::process::Stdio::null())
        .output()
        .expect("run");
    texts(&o)
}
