//! A server's requests for the client's LLM (`sampling/createMessage`) and
//! roots (`roots/list`), from a tool written with the official Python SDK
//! (tests/servers/py_sampling_server.py: resolvers returning `Sample` and
//! `ListRoots`), at both revisions: pushed mid-call at 2025-11-25, input
//! requests of an `input_required` result at 2026-07-28. Answered by an
//! answers rule (`"method": "sampling/createMessage"`) and `--root`; the
//! tool reports what it received.

#![cfg(unix)]

use crate::common::sdk::*;
use serde_json::{json, Value};

const ERAS: [&str; 2] = ["2025-11-25", "2026-07-28"];

fn python() -> Option<String> {
    let py = root().join(".ci/sdk/venv/bin/python");
    installed("the Python MCP SDK", &py).then(|| py.display().to_string())
}

fn server(py: &str) -> Vec<String> {
    let script = root().join("tests/servers/py_sampling_server.py");
    vec![py.to_owned(), script.display().to_string()]
}

fn sampling_rule(answer: Value) -> Value {
    json!({"rules": [{"name": "model", "match": {"method": "sampling/createMessage"}, "answer": answer}]})
}

#[test]
fn a_sampling_rule_writes_the_models_reply_in_both_eras() {
    let Some(py) = python() else { return };
    for era in ERAS {
        let dir = tempfile::tempdir().unwrap();
        let a = answers(
            dir.path(),
            &sampling_rule(json!({"action": "accept", "content": {"reply": "Paris"}})),
        );
        let r = run_mcp(
            dir.path(),
            &["--protocol", era, "--call", "ask", "--answers", &a],
            &server(&py),
        );
        assert_eq!(r.code, 0, "{era}: stderr: {}", r.stderr);
        assert_eq!(
            r.tool_report(),
            json!({"role": "assistant", "text": "Paris", "model": "human", "stopReason": "endTurn"}),
            "{era}"
        );
        // Written to --events as an elicitation is: the request (the form
        // the person would see, and the sampling params as received), then
        // its result.
        assert_eq!(r.events.len(), 2, "{era}: {:?}", r.events);
        let ext = &r.events[0]["extensions"];
        assert_eq!(ext["mcp"]["protocolVersion"], era);
        assert_eq!(
            ext["ahp-elicit/sampling"]["method"],
            "sampling/createMessage"
        );
        let params = &ext["ahp-elicit/sampling"]["params"];
        assert_eq!(params["maxTokens"], 50);
        assert_eq!(params["systemPrompt"], "Answer in one word.");
        let message = r.request_params()["message"].as_str().unwrap().to_owned();
        assert!(
            message.contains("System prompt: Answer in one word.")
                && message.contains("Max tokens: 50")
                && message.contains("Model preferences: hints claude; speed 0.5")
                && message.ends_with("[user] What is the capital of France?"),
            "{era}: {message}"
        );
        assert_eq!(
            r.events[1]["payload"]["elicitation"]["action"], "accept",
            "{era}"
        );
        let text = r.events[1]
            .pointer("/payload/elicitation/result/text")
            .and_then(Value::as_str)
            .expect("the result's text");
        let result: Value = serde_json::from_str(text).unwrap();
        assert_eq!(
            result,
            json!({"action": "accept", "content": {"reply": "Paris"}}),
            "{era}"
        );
    }
}

#[test]
fn a_declined_sampling_request_is_the_users_rejection_in_both_eras() {
    let Some(py) = python() else { return };
    let dir = tempfile::tempdir().unwrap();
    let a = answers(dir.path(), &sampling_rule(json!({"action": "decline"})));
    // 2025-11-25: the pushed request gets the rejection error, which the
    // SDK's tool call reports.
    let r = run_mcp(
        dir.path(),
        &["--protocol", "2025-11-25", "--call", "ask", "--answers", &a],
        &server(&py),
    );
    r.assert_said(
        1,
        "tools/call failed: JSON-RPC error -1: User rejected sampling request",
    );
    assert!(r.stderr.contains("the server got error -1"), "{}", r.stderr);
    // 2026-07-28: an input response cannot say no; the call is not sent
    // again.
    let r = run_mcp(
        dir.path(),
        &["--protocol", "2026-07-28", "--call", "ask", "--answers", &a],
        &server(&py),
    );
    r.assert_said(
        1,
        "the sampling request '__main__:ask_model' was rejected: the call is not sent again",
    );
    assert_eq!(r.stdout, "", "no result");
}

#[test]
fn sampling_is_declared_only_when_a_rule_can_answer_it_and_an_unmatched_one_fails_closed() {
    let Some(py) = python() else { return };
    let dir = tempfile::tempdir().unwrap();
    // An answers file without a sampling rule: the capability is not
    // declared, so the SDK refuses the call itself (-32021).
    let a = answers(dir.path(), &json!({"action": "cancel"}));
    for era in ERAS {
        let r = run_mcp(
            dir.path(),
            &["--protocol", era, "--call", "ask", "--answers", &a],
            &server(&py),
        );
        r.assert_said(
            1,
            "JSON-RPC error -32021: Client did not declare the sampling capability",
        );
    }
    // A sampling rule that does not match this server: no rule answers,
    // the request gets no reply and the run fails (exit 1).
    let a = answers(
        dir.path(),
        &json!({"rules": [{"match": {"method": "sampling/createMessage", "server": "other"},
            "answer": {"action": "accept", "content": {"reply": "x"}}}]}),
    );
    let r = run_mcp(
        dir.path(),
        &["--protocol", "2025-11-25", "--call", "ask", "--answers", &a],
        &server(&py),
    );
    r.assert_said(1, "no rule of the answers file matches this sampling/createMessage request from server 'py-sampling'");
    assert!(
        r.stderr.contains("server is 'py-sampling', not 'other'"),
        "{}",
        r.stderr
    );
}

#[test]
fn roots_are_the_given_paths_as_file_uris_in_both_eras() {
    let Some(py) = python() else { return };
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join("my project");
    std::fs::create_dir(&project).unwrap();
    let real = std::fs::canonicalize(&project).unwrap();
    let uri = url::Url::from_file_path(&real).unwrap().to_string();
    assert!(uri.ends_with("/my%20project"), "{uri}");
    let file_uri = url::Url::from_file_path(std::fs::canonicalize(dir.path()).unwrap())
        .unwrap()
        .to_string();
    for era in ERAS {
        let r = run_mcp(
            dir.path(),
            &[
                "--protocol",
                era,
                "--call",
                "roots",
                "--root",
                project.to_str().unwrap(),
                "--root",
                &file_uri,
            ],
            &server(&py),
        );
        assert_eq!(r.code, 0, "{era}: stderr: {}", r.stderr);
        let name = real
            .parent()
            .unwrap()
            .file_name()
            .unwrap()
            .to_str()
            .unwrap();
        assert_eq!(
            r.tool_report(),
            json!({"roots": [{"uri": uri, "name": "my project"}, {"uri": file_uri, "name": name}]}),
            "{era}"
        );
        assert!(
            r.stderr
                .contains(&format!("roots offered to the server: my project ({uri})")),
            "{era}: {}",
            r.stderr
        );
        // Without --root the capability is not declared.
        let r = run_mcp(
            dir.path(),
            &["--protocol", era, "--call", "roots"],
            &server(&py),
        );
        r.assert_said(1, "Client did not declare the roots capability");
    }
}

#[test]
fn a_root_that_does_not_exist_or_is_not_a_file_is_a_usage_error() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("nowhere");
    let r = run_mcp(
        dir.path(),
        &["--call", "roots", "--root", missing.to_str().unwrap()],
        &["true".to_owned()],
    );
    r.assert_said(2, &format!("--root {}: ", missing.display()));
    assert!(r.stderr.contains("(a root must exist)"), "{}", r.stderr);
    let r = run_mcp(
        dir.path(),
        &["--call", "roots", "--root", "https://example.com/repo"],
        &["true".to_owned()],
    );
    r.assert_said(
        2,
        "--root https://example.com/repo: a root is a local path or a file:// URI",
    );
}

/// `ahp-elicit mcp --protocol ERA --call ask -- SERVER` in a terminal:
/// the person is asked.
fn start_tui(dir: &std::path::Path, era: &str, py: &str) -> crate::common::pty::Tui {
    crate::common::pty::Tui::start_words(
        dir,
        (100, 40),
        ["mcp", "--protocol", era, "--call", "ask", "--"]
            .iter()
            .map(|s| s.to_string())
            .chain(server(py)),
    )
}

#[test]
fn a_person_writes_the_models_reply_at_a_terminal_in_both_eras() {
    let Some(py) = python() else { return };
    for era in ERAS {
        let dir = tempfile::tempdir().unwrap();
        let mut t = start_tui(dir.path(), era, &py);
        t.wait_for("The server asks for a model's reply (sampling/createMessage): you write it.");
        t.wait_for("System prompt: Answer in one word.");
        t.wait_for("[user] What is the capital of France?");
        t.wait_for("Your reply, as the model's");
        t.send("Paris,");
        // Alt-Enter: a second line of the reply.
        t.send("\x1b\r");
        t.send("of course.");
        t.submit();
        assert_eq!(t.finish(), 0, "{era}: stderr: {}", t.stderr());
        let out = std::fs::read_to_string(dir.path().join("out.json")).unwrap();
        assert_eq!(
            tool_report(&out),
            json!({"role": "assistant", "text": "Paris,\nof course.", "model": "human", "stopReason": "endTurn"}),
            "{era}"
        );
    }
}

#[test]
fn a_person_declines_a_sampling_request_at_a_terminal_in_both_eras() {
    let Some(py) = python() else { return };
    for (era, said) in [
        (
            "2025-11-25",
            "JSON-RPC error -1: User rejected sampling request",
        ),
        ("2026-07-28", "was rejected: the call is not sent again"),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let mut t = start_tui(dir.path(), era, &py);
        t.wait_for("[user] What is the capital of France?");
        // Ctrl-D on the untouched form declines at once.
        t.send("\x04");
        assert_eq!(t.finish(), 1, "{era}: stderr: {}", t.stderr());
        assert!(t.stderr().contains(said), "{era}: {}", t.stderr());
    }
}

#[test]
fn a_person_writes_the_models_reply_in_plain_lines() {
    let Some(py) = python() else { return };
    let dir = tempfile::tempdir().unwrap();
    let mut t = crate::common::pty::Tui::start_words(
        dir.path(),
        (120, 40),
        [
            "mcp",
            "--plain",
            "--protocol",
            "2025-11-25",
            "--call",
            "ask",
            "--",
        ]
        .iter()
        .map(|s| s.to_string())
        .chain(server(&py)),
    );
    t.wait_for("a request for a model's reply (sampling/createMessage) that you write, relayed by mcp-stdio.");
    t.wait_for("Server message continues: [user] What is the capital of France?");
    t.wait_for("Your reply, as the model's, required, text.");
    t.press("Paris\r", "Type send, edit N, decline, or cancel:");
    t.send("send\r");
    assert_eq!(t.finish_plain(), 0, "stderr: {}", t.stderr());
    let out = std::fs::read_to_string(dir.path().join("out.json")).unwrap();
    assert_eq!(tool_report(&out)["text"], "Paris");
}
