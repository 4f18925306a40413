//! Plain mode end to end: the real `ahp-elicit` in a real pseudo-terminal,
//! stdout redirected to a file, the person's lines typed into the pty. The
//! whole transcript (prompts, the terminal's echo of what was typed) of one
//! form, one URL request and one refused answer is pinned as a snapshot.
//!
//! Each line is typed only after its prompt appeared (typeahead is
//! discarded at each request, as for a person). The timeouts are only a
//! safety net against a hang; nothing here measures time.

#![cfg(unix)]

use crate::common;
use common::pty::*;

use std::path::{Path, PathBuf};
use std::time::Instant;

use expectrl::Expect;
use serde_json::{json, Value};

/// A session: the pty and how far its output was read by [`expect`].
struct Plain {
    t: Tui,
    seen: usize,
}

impl Plain {
    fn start(dir: &Path, out: &Path, args: &str, envs: &[(&str, String)]) -> Plain {
        Plain {
            t: Tui::start_env(dir, out, 80, 24, args, envs),
            seen: 0,
        }
    }

    /// [`Plain::start`] with stderr on the terminal too.
    fn start_err_on_tty(dir: &Path, out: &Path, args: &str) -> Plain {
        Plain {
            t: Tui::start_err_shown(dir, out, 80, 24, args),
            seen: 0,
        }
    }

    /// Everything written so far, line ends as `\n`.
    fn text(&self) -> String {
        String::from_utf8_lossy(&self.t.raw).replace("\r\n", "\n")
    }

    /// Wait until `want` appears after what was already seen; then the
    /// person reads it before typing.
    fn expect(&mut self, want: &str) {
        let seen = self.seen;
        let at = self.t.until(&format!("{want:?}"), PATIENCE, |t| {
            let text = String::from_utf8_lossy(&t.raw).replace("\r\n", "\n");
            text[seen.min(text.len())..]
                .find(want)
                .map(|at| seen + at + want.len())
        });
        self.seen = at;
        self.t.last_key = Instant::now();
    }

    /// Answer the prompt `prompt` with `line` and Enter.
    fn answer(&mut self, prompt: &str, line: &str) {
        self.expect(prompt);
        self.t.send(&format!("{line}\r"));
    }

    /// Wait for the end; the exit code and the transcript without the
    /// harness's own lines. Checks that the terminal mode is as before and
    /// that nothing but text was written (no escape sequence at all).
    fn finish(&mut self) -> (i32, String) {
        self.t.wait_end();
        let text = self.text();
        assert!(
            !text.contains('\u{1b}'),
            "no escape sequence: no cursor addressing, no colours, no alternate screen:\n{text:?}"
        );
        let field = |name: &str| printed(&text, name);
        assert_eq!(field("after"), field("before"), "terminal mode restored");
        assert!(!self.t.stderr().contains("panicked"), "{}", self.t.stderr());
        let code = field("exit").parse().expect("exit code");
        let transcript = text
            .lines()
            .filter(|l| {
                !l.starts_with("[before=") && !l.starts_with("[after=") && !l.starts_with("[exit=")
            })
            .collect::<Vec<_>>()
            .join("\n");
        (code, transcript)
    }
}

/// The example at `name`, as one JSON line.
fn example_line(name: &str) -> String {
    let p = common::examples_dir().join(name);
    let v: Value =
        serde_json::from_str(&std::fs::read_to_string(p).expect("example")).expect("example json");
    v.to_string()
}

fn write_stream(dir: &Path, names: &[&str]) -> PathBuf {
    let path = dir.join("requests.jsonl");
    let text: String = names.iter().map(|n| example_line(n) + "\n").collect();
    std::fs::write(&path, text).expect("write requests");
    path
}

#[test]
fn a_form_a_url_and_a_refused_answer_transcript() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("out.jsonl");
    let input = write_stream(
        dir.path(),
        &[
            "form-every-kind.request.json",
            "url-connect.request.json",
            "metadata-view.request.json",
        ],
    );
    let mut s = Plain::start(
        dir.path(),
        &out,
        &format!("respond --plain --no-open '{}'", input.display()),
        &[],
    );
    s.expect("Request 1 of 3");
    for (prompt, line) in [
        ("Full name: ", "Ada Example"),
        ("Work email: ", "ada@example.com"),
        ("Homepage: ", ""),
        ("Start date: ", ""),
        ("Kick-off meeting: ", ""),
        // Refused: over the maximum; the prompt is asked again.
        ("Seats: ", "900"),
        ("Seats: ", ""),
        ("Monthly budget (EUR): ", ""),
        ("Subscribe to the newsletter: ", ""),
        ("Data region: ", ""),
        ("Plan: ", ""),
        ("Preferred editor: ", ""),
        ("Languages: ", "1,2"),
        ("Notify me by: ", ""),
        ("Type send, edit N, decline, or cancel: ", "send"),
        ("Type open, decline, or cancel: ", "open"),
        ("Type done when you have it, or give up to cancel: ", "done"),
        ("Type decline or cancel: ", "decline"),
    ] {
        s.answer(prompt, line);
    }
    let (code, transcript) = s.finish();
    assert_eq!(code, 0, "{}", s.t.stderr());
    let rs = results(&out);
    assert_eq!(
        actions_and_parents(&rs),
        vec![
            ("accept", "evt-profile-1"),
            ("accept", "evt-url-1"),
            ("decline", "evt-meta-1")
        ]
    );
    assert_eq!(
        rs[0].2["content"],
        json!({"fullName": "Ada Example", "email": "ada@example.com", "seats": 5,
               "budget": 99.5, "newsletter": false, "region": "eu-west", "plan": "team",
               "languages": ["rust", "go"]})
    );
    insta::assert_snapshot!("plain_form_url_refused", transcript);
}

#[test]
fn term_dumb_chooses_plain_and_control_c_cancels_control_d_declines() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("out.jsonl");
    let input = write_stream(
        dir.path(),
        &[
            "form-confirm-mode-omitted.request.json",
            "url-connect.request.json",
        ],
    );
    let mut s = Plain::start(
        dir.path(),
        &out,
        &format!("respond '{}'", input.display()),
        &[("TERM", "dumb".to_owned())],
    );
    s.expect("Yes, delete it: ");
    s.t.send("\u{3}");
    s.expect("Cancelled.");
    s.expect("Type open, decline, or cancel: ");
    s.t.send("\u{4}");
    s.expect("Declined.");
    let (code, transcript) = s.finish();
    assert_eq!(code, 0, "{}", s.t.stderr());
    assert!(
        transcript.contains("Yes, delete it: ^C\nCancelled."),
        "{transcript}"
    );
    assert_answers(
        &out,
        &[("cancel", "evt-confirm-1"), ("decline", "evt-url-1")],
    );
}

#[test]
fn sigterm_while_asking_cancels_and_restores_the_terminal() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("out.jsonl");
    let input = write_stream(
        dir.path(),
        &[
            "form-confirm-mode-omitted.request.json",
            "metadata-view.request.json",
        ],
    );
    let mut s = Plain::start(
        dir.path(),
        &out,
        &format!("respond --plain '{}'", input.display()),
        &[],
    );
    s.expect("Yes, delete it: ");
    let pid = s.t.pid();
    common::signal(pid, "TERM");
    let (code, _) = s.finish();
    assert_eq!(code, 143);
    assert_answers(
        &out,
        &[("cancel", "evt-confirm-1"), ("cancel", "evt-meta-1")],
    );
}

#[test]
fn demo_plain_prints_the_result() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("out.jsonl");
    let mut s = Plain::start(
        dir.path(),
        &out,
        "demo",
        &[("AHP_ELICIT_PLAIN", "1".to_owned())],
    );
    s.expect("Request 1 of 1, from the server that calls itself Workspace Setup");
    s.answer("Full name: ", "\u{4}");
    let (code, transcript) = s.finish();
    assert_eq!(code, 0, "{}", s.t.stderr());
    assert!(transcript.contains("Declined."), "{transcript}");
    assert_answers(&out, &[("decline", "evt-profile-1")]);
}

#[test]
fn typeahead_is_not_an_answer_to_the_next_request() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("out.jsonl");
    let input = write_stream(
        dir.path(),
        &[
            "form-confirm-mode-omitted.request.json",
            "url-connect.request.json",
        ],
    );
    let mut s = Plain::start(
        dir.path(),
        &out,
        &format!("respond --plain --no-open '{}'", input.display()),
        &[],
    );
    s.answer("Yes, delete it: ", "y");
    // The answer to the review and, typed ahead in the same breath, an
    // "open" meant for nothing yet: it is discarded, not taken as consent.
    s.answer("Type send, edit N, decline, or cancel: ", "send\ropen");
    s.answer("Type open, decline, or cancel: ", "decline");
    let (code, _) = s.finish();
    assert_eq!(code, 0, "{}", s.t.stderr());
    assert_answers(
        &out,
        &[("accept", "evt-confirm-1"), ("decline", "evt-url-1")],
    );
}

#[test]
fn the_timeout_cancels_an_unanswered_request() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("out.jsonl");
    let input = write_stream(dir.path(), &["url-connect.request.json"]);
    let mut s = Plain::start(
        dir.path(),
        &out,
        &format!("respond --plain --timeout 1 '{}'", input.display()),
        &[],
    );
    s.expect("You have 1 second to answer");
    // The full screen's words, and as there the notice waits, at the end
    // of the run too: the program ends only once Enter was typed.
    s.expect("Time ran out: this request was cancelled (cancel was sent).");
    s.answer(ahp_elicit::plain::PRESS_ENTER, "");
    let (code, _) = s.finish();
    assert_eq!(code, 0, "{}", s.t.stderr());
    assert_answers(&out, &[("cancel", "evt-url-1")]);
}

/// A line typed and not ended when time runs out is thrown away with the
/// request: when plain mode gives the terminal back, the shell reads
/// nothing of it (it would otherwise run it as a command).
#[test]
fn a_half_typed_line_never_reaches_the_shell_after_the_run() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("out.jsonl");
    let input = write_stream(dir.path(), &["url-connect.request.json"]);
    let mut s = Plain {
        t: Tui::start_then(
            dir.path(),
            &out,
            80,
            24,
            &format!("respond --plain --timeout 2 '{}'", input.display()),
            "read -r typed; echo \"[typed=$typed]\"",
        ),
        seen: 0,
    };
    s.expect("Type open, decline, or cancel: ");
    s.t.send("echo LEAKED");
    s.expect("Time ran out: this request was cancelled (cancel was sent).");
    s.answer(ahp_elicit::plain::PRESS_ENTER, "");
    s.expect("[after=");
    // The shell's `read` waits now: end its line.
    s.t.send("\r");
    let (code, text) = s.finish();
    assert_eq!(code, 0, "{}", s.t.stderr());
    assert_eq!(printed(&text, "typed"), "", "{text}");
    assert_answers(&out, &[("cancel", "evt-url-1")]);
}

#[test]
fn an_invalid_line_is_reported_at_once_between_the_plain_lines() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("out.jsonl");
    let input = dir.path().join("requests.jsonl");
    let text = format!(
        "not json\n{}\n",
        example_line("form-confirm-mode-omitted.request.json")
    );
    std::fs::write(&input, text).expect("write");
    let mut s = Plain::start_err_on_tty(
        dir.path(),
        &out,
        &format!("respond --plain '{}'", input.display()),
    );
    // The error is said before the request, not held until the end.
    s.expect("ahp-elicit: line 1: not a JSON event");
    s.expect("Request 1 of 1, from the server that calls itself git-tools");
    s.t.send("\u{3}");
    let (code, _) = s.finish();
    assert_eq!(code, 1, "the bad line makes the run fail");
    assert_answers(&out, &[("cancel", "evt-confirm-1")]);
}

#[test]
fn mcp_plain_answers_a_live_server_line_by_line() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("tool-result.json");
    let server = common::root().join("tests/mcp_fake_server.py");
    let mut s = Plain::start(
        dir.path(),
        &out,
        &format!(
            "mcp --plain --no-open --call probe -- python3 '{}'",
            server.display()
        ),
        &[],
    );
    s.expect("Message from the server: Fake form");
    s.answer("Name: ", "");
    s.answer("age: ", "40");
    s.answer("sure: ", "y");
    s.answer("Type send, edit N, decline, or cancel: ", "send");
    s.expect("ahp-elicit checked the URL: https://example.com/auth");
    s.answer("Type open, decline, or cancel: ", "open");
    s.answer("Type done when you have it, or give up to cancel: ", "done");
    // The fake server's nested-object form: under the compatible schema
    // policy (mcp's default) it is shown with the reason, to decline.
    s.expect("This request cannot be answered as a form");
    s.expect("Why: /properties/");
    s.answer("Type decline or cancel: ", "decline");
    let (code, _) = s.finish();
    // The request in an unknown mode was refused (-32602): exit 1.
    assert_eq!(code, 1, "{}", s.t.stderr());
    let text = std::fs::read_to_string(&out).expect("tool result");
    let v: Value = serde_json::from_str(&text).expect("tool result JSON");
    let responses = &v["structuredContent"]["responses"];
    assert_eq!(
        responses["form"]["result"],
        json!({"action": "accept", "content": {"name": "Ada", "age": 40, "sure": true}})
    );
    assert_eq!(responses["url"]["result"], json!({"action": "accept"}));
    assert_eq!(responses["invalid"]["result"], json!({"action": "decline"}));
}

/// `mcp --plain`: the server withdraws its URL request while the consent
/// prompt waits. The prompt closes with a sentence saying nothing was
/// sent; an `open` typed afterwards opens nothing and answers nothing.
#[test]
fn mcp_plain_closes_a_withdrawn_url_request() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("tool-result.json");
    let server = common::root().join("tests/mcp_fake_server.py");
    let mut s = Plain::start(
        dir.path(),
        &out,
        &format!(
            "mcp --plain --no-open --call probe --args '{{\"case\":\"hold\",\"mode\":\"url\",\"delay\":1,\"after\":3}}' -- python3 '{}'",
            server.display()
        ),
        &[],
    );
    s.expect("Type open, decline, or cancel: ");
    s.expect("The server withdrew this request. Nothing was sent.");
    // The notice waits for Enter; the "open" typed there only goes on.
    s.expect(ahp_elicit::plain::PRESS_ENTER);
    s.t.send("open\r");
    let (code, transcript) = s.finish();
    assert_eq!(code, 0, "{}", s.t.stderr());
    assert!(!transcript.contains("Consent sent."), "{transcript}");
    assert!(!transcript.contains("Copy this URL"), "{transcript}");
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&out).expect("tool result"))
        .expect("tool result JSON");
    // No answer reached the server for the withdrawn request.
    assert_eq!(v["structuredContent"]["late"], Value::Null);
    assert_eq!(v["structuredContent"]["ping"]["result"], json!({}));
}

/// `respond --plain FLAGS` on one form request asking "Who are you?" with
/// a text field "Name"; returns the session and its output file.
fn name_form(dir: &Path, flags: &str) -> (Plain, PathBuf) {
    let params = json!({"message": "Who are you?", "requestedSchema": {"type": "object",
        "properties": {"name": {"type": "string", "title": "Name"}}}});
    let input = dir.join("requests.jsonl");
    std::fs::write(
        &input,
        common::request_line("keys", "evt-1", &params) + "\n",
    )
    .expect("write requests");
    let out = dir.join("out.jsonl");
    let args = format!("respond --plain {flags} '{}'", input.display());
    (Plain::start(dir, &out, &args, &[]), out)
}

/// A terminal's reply to another program's query (an OSC colour reply, a
/// cursor position report) that arrives while a line is typed is not part
/// of the answer.
#[test]
fn a_terminal_reply_in_a_typed_line_is_not_part_of_the_answer() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (mut s, out) = name_form(dir.path(), "");
    s.answer(
        "Name: ",
        "Ad\u{1b}]11;rgb:ffff/ffff/ffff\u{1b}\\a\u{1b}[12;40R",
    );
    s.answer("Type send, edit N, decline, or cancel: ", "send");
    let (code, _) = s.finish();
    assert_eq!(code, 0, "{}", s.t.stderr());
    let rs = results(&out);
    assert_eq!(actions_and_parents(&rs), vec![("accept", "evt-1")]);
    assert_eq!(rs[0].2["content"], json!({"name": "Ada"}));
}

/// The late `--timeout` warning printed while "Bob" is half typed: the
/// prompt is asked again, empty, and the warning says what was typed was
/// cleared; so "X" typed at the new prompt is the answer, not "BobX".
#[test]
fn a_notice_that_cuts_a_prompt_short_clears_the_half_typed_line() {
    let dir = tempfile::tempdir().expect("tempdir");
    // The warning comes 10 seconds before the limit: 2 seconds in.
    let (mut s, out) = name_form(dir.path(), "--timeout 12");
    s.expect("Name: ");
    s.t.send("Bob");
    s.expect(&format!(
        "10 seconds left to answer; then the request is cancelled. {}",
        ahp_elicit::plain::TYPED_CLEARED
    ));
    s.answer("Name: ", "X");
    s.answer("Type send, edit N, decline, or cancel: ", "send");
    let (code, _) = s.finish();
    assert_eq!(code, 0, "{}", s.t.stderr());
    let rs = results(&out);
    assert_eq!(actions_and_parents(&rs), vec![("accept", "evt-1")]);
    assert_eq!(rs[0].2["content"], json!({"name": "X"}));
}

/// `respond --plain --timeout SECS` on three form requests, each with a
/// text field "Note" and a yes/no field "OK"; returns the session and its
/// output file.
fn three_notes(dir: &Path, secs: u64) -> (Plain, PathBuf) {
    let params = json!({"message": "Anything to add?", "requestedSchema": {"type": "object",
        "properties": {"note": {"type": "string", "title": "Note"},
                       "ok": {"type": "boolean", "title": "OK"}}}});
    let input = dir.join("three.jsonl");
    let text: String = (1..=3)
        .map(|i| common::request_line("notes", &format!("evt-{i}"), &params) + "\n")
        .collect();
    std::fs::write(&input, text).expect("write requests");
    let out = dir.join("out.jsonl");
    let args = format!("respond --plain --timeout {secs} '{}'", input.display());
    (Plain::start(dir, &out, &args, &[]), out)
}

/// Time runs out on request 1 while "hello" and Enter are on their way:
/// the notice waits for Enter, the line typed straight after it is not
/// taken (and that is said), so it never becomes request 2's note; Enter
/// typed once the notice could be read goes on to request 2.
#[test]
fn a_line_typed_as_time_runs_out_is_not_the_next_requests_answer() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (mut s, out) = three_notes(dir.path(), 5);
    // "of 2" or "of 3": how many requests were read by the first prompt
    // depends on how soon the file's lines came in.
    s.expect("Request 1 of ");
    s.expect("Note: ");
    s.expect("Time ran out: this request was cancelled (cancel was sent).");
    // At once, as a person still typing for request 1 would: no pacing.
    s.t.s.send("hello\r").expect("send keys");
    s.expect(
        "Not taken: that was typed before the notice could be read. \
         Press Enter again to go on.",
    );
    // The notice was read: Enter goes on.
    s.answer(ahp_elicit::plain::PRESS_ENTER, "");
    s.expect("Request 2 of 3");
    s.answer("Note: ", "second");
    s.answer("OK: ", "y");
    s.answer("Type send, edit N, decline, or cancel: ", "send");
    s.expect("Request 3 of 3");
    s.expect("Note: ");
    s.t.send("\u{4}");
    let (code, transcript) = s.finish();
    assert_eq!(code, 0, "{}", s.t.stderr());
    let rs = results(&out);
    assert_eq!(
        actions_and_parents(&rs),
        vec![
            ("cancel", "evt-1"),
            ("accept", "evt-2"),
            ("decline", "evt-3")
        ]
    );
    assert_eq!(rs[1].2["content"], json!({"note": "second", "ok": true}));
    // Request 2's prompt came only after the Enter that went on.
    let enter = transcript
        .find(ahp_elicit::plain::PRESS_ENTER)
        .expect("asked");
    let second = transcript.find("Request 2 of 3").expect("shown");
    assert!(enter < second, "{transcript}");
}
