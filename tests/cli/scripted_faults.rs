//! Faults in a scripted run that concern one request, or the command line,
//! never the rest of the stream: a browser that cannot start, a `--browser`
//! value that can never run, a line that is not UTF-8.

use serde_json::Value;

const URL_REQUEST: &str = "examples/url-connect.request.json";
const STREAM: &str = "examples/stream.requests.jsonl";

/// The request ids the result events on `stdout` answer, in order.
fn answered(stdout: &[u8]) -> Vec<String> {
    String::from_utf8_lossy(stdout)
        .lines()
        .map(|l| {
            let v: Value = serde_json::from_str(l).expect("a result line is JSON");
            v["parentEventId"].as_str().unwrap_or_default().to_owned()
        })
        .collect()
}

fn respond(args: &[&str], stdin: &[u8]) -> std::process::Output {
    crate::common::ahp()
        .arg("respond")
        .args(args)
        .write_stdin(stdin.to_vec())
        .output()
        .expect("run")
}

#[test]
fn a_browser_that_cannot_start_fails_only_its_request_across_files() {
    let o = respond(
        &[
            "--action",
            "accept",
            "--browser",
            "/nonexistent/x",
            URL_REQUEST,
            STREAM,
        ],
        b"",
    );
    let err = String::from_utf8_lossy(&o.stderr);
    // The URL request of the first file and the URL request on line 2 of
    // the stream: each its own error; line 3 is still answered (its
    // required field makes the scripted accept refused, its own error).
    assert_eq!(o.status.code(), Some(1), "stderr: {err}");
    let errors: Vec<&str> = err.lines().collect();
    assert_eq!(errors.len(), 3, "{err}");
    assert!(errors[0].starts_with("ahp-elicit: request evt-url-1 (line 1 of examples/url-connect.request.json): answer refused [answer-refused], no result: the URL was not opened: The browser command \"/nonexistent/x\" could not be started"), "{err}");
    assert!(errors[1].starts_with("ahp-elicit: request evt-stream-2 (line 2 of examples/stream.requests.jsonl): answer refused [answer-refused], no result: the URL was not opened"), "{err}");
    assert_eq!(
        errors[2],
        "ahp-elicit: request evt-stream-3 (line 3 of examples/stream.requests.jsonl): answer refused [answer-refused], no result: 'target' required"
    );
    assert_eq!(answered(&o.stdout), ["evt-stream-1"]);
}

#[test]
fn a_browser_that_cannot_start_mid_stream_leaves_later_lines_answered() {
    // The stream alone, declined except its URL request: line 3 after the
    // failed launch on line 2 gets its result.
    let dir = tempfile::tempdir().expect("tempdir");
    let by_id = r#"{"evt-stream-1":{"action":"decline"},"evt-stream-2":{"action":"accept"},"evt-stream-3":{"action":"cancel"}}"#;
    let answers = crate::common::file_in(dir.path(), "answers.json", by_id);
    let o = respond(
        &[
            "--answers",
            answers.to_str().expect("utf-8 path"),
            "--browser",
            "/nonexistent/x",
            STREAM,
        ],
        b"",
    );
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "stderr: {err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("evt-stream-2 (line 2)") && err.contains("could not be started"),
        "{err}"
    );
    assert_eq!(answered(&o.stdout), ["evt-stream-1", "evt-stream-3"]);
}

#[test]
fn a_browser_command_that_can_never_run_is_a_usage_error_at_startup() {
    for (cmd, why) in [
        ("", "The browser command is empty."),
        ("   ", "The browser command is empty."),
        (
            "\"unterminated",
            "The browser command \"\"unterminated\" has an unclosed quote.",
        ),
    ] {
        for command in ["respond", "mcp"] {
            // No request is read and no server started: the flag is refused
            // first.
            let o = crate::common::ahp()
                .args([command, "--action", "decline", "--browser", cmd])
                .args(if command == "mcp" {
                    &["--", "/nonexistent/server"][..]
                } else {
                    &[URL_REQUEST][..]
                })
                .write_stdin(Vec::new())
                .output()
                .expect("run");
            let err = String::from_utf8_lossy(&o.stderr);
            assert_eq!(o.status.code(), Some(2), "{command} {cmd:?}: {err}");
            assert!(err.contains("--browser <CMD>"), "{command} {cmd:?}: {err}");
            assert!(err.contains(why), "{command} {cmd:?}: {err}");
            assert!(o.stdout.is_empty(), "{command} {cmd:?}: no result");
        }
    }
}

#[test]
fn a_line_that_is_not_utf8_is_the_utf8_rule_in_respond_and_validate() {
    let input = b"\xff\xfe\n".to_vec();
    let o = respond(&["--action", "decline"], &input);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert_eq!(
        err.trim_end(),
        "ahp-elicit: line 1: not a JSON event: (root): [utf8] input is not UTF-8: invalid byte at offset 0"
    );
    let o = crate::common::ahp()
        .arg("validate")
        .write_stdin(input)
        .output()
        .expect("run");
    let out = String::from_utf8_lossy(&o.stdout);
    let all = format!("{out}{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(o.status.code(), Some(1), "{all}");
    assert!(all.contains("<stdin>:1: invalid"), "{all}");
    assert!(all.contains("[utf8] input is not UTF-8"), "{all}");
}
