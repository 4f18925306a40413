//! `ahp-elicit mcp` with the terminal form, in a real pseudo-terminal,
//! against the fake server (tests/mcp_fake_server.py over stdio): the
//! session keeps serving the server while a screen is open. Every wait is
//! for screen text or for the program to end; the timeouts are only a
//! safety net against a hang.

#![cfg(unix)]

use crate::common;
use common::pty::*;

use std::path::Path;
use std::time::Duration;

use serde_json::Value;

/// `ahp-elicit mcp FLAGS -- python3 FAKE SERVER_FLAGS` (the fake server)
/// on a `cols`x30 screen in `dir`, stdout to `dir/out.json`.
fn fake_screen(dir: &Path, flags: &str, server_flags: &str, cols: u16) -> Tui {
    fake_screen_env(dir, flags, server_flags, cols, &[])
}

/// [`fake_screen`] with `envs` set for the run.
fn fake_screen_env(
    dir: &Path,
    flags: &str,
    server_flags: &str,
    cols: u16,
    envs: &[(&str, String)],
) -> Tui {
    let fake = common::fake_server();
    let args = format!("mcp {flags} -- python3 '{fake}' {server_flags}");
    Tui::start_env(dir, &dir.join("out.json"), cols, 30, &args, envs)
}

/// The tool result in `out` (case "required") records `cancel` as the
/// answer to its form.
fn assert_required_was_cancelled(out: &Path) {
    let result: Value =
        serde_json::from_str(&std::fs::read_to_string(out).expect("stdout")).expect("JSON");
    assert_eq!(
        result["structuredContent"]["responses"]["required"]["result"],
        serde_json::json!({"action": "cancel"})
    );
}

/// The notice that replaces a screen its server withdrew.
const WITHDRAWN: &str = "The server withdrew this request. Nothing was sent.";

/// The server sends a form, pings 5 s later, then withdraws the form: the
/// screen gives way to the notice, which stays until a key, and the ping was answered while the form
/// was on screen.
#[test]
fn a_withdrawn_form_closes_with_a_notice() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("out.json");
    let mut t = fake_screen(
        dir.path(),
        r#"--call probe --args '{"case":"hold","delay":5,"after":4}'"#,
        "",
        100,
    );
    t.wait_for("Fake form");
    t.wait_for(WITHDRAWN);
    t.send("\r");
    assert_eq!(t.finish(), 0, "{}", t.stderr());
    let result: Value =
        serde_json::from_str(&std::fs::read_to_string(&out).expect("stdout")).expect("JSON");
    let rec = &result["structuredContent"];
    assert_eq!(rec["ping"]["result"], serde_json::json!({}));
    // No answer was sent for the withdrawn form.
    assert_eq!(rec["late"], Value::Null);
    let ping_ms = rec["ping_ms"].as_f64().expect("ping_ms");
    eprintln!("ping answered in {ping_ms:.1} ms with the form on screen for 5 s");
    // Hang detection only (the measured figure is printed above).
    assert!(ping_ms < 3000.0, "ping took {ping_ms} ms");
    assert!(t.stderr().contains("the server withdrew this request"));
}

/// Ctrl-C twice while the tool never answers: exit 130, the call is
/// cancelled, and the stdio server (which ignores stdin's end and SIGTERM)
/// is ended.
#[test]
fn ctrl_c_twice_quits_a_silent_call_and_ends_the_server() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("out.json");
    let pid_file = dir.path().join("server.pid");
    let args = format!("mcp --call silent -- python3 '{}'", common::fake_server());
    let record = dir.path().join("received.jsonl");
    let envs = [
        ("FAKE_PID_FILE", pid_file.display().to_string()),
        ("FAKE_STUBBORN", "1".to_owned()),
        ("FAKE_RECORD", record.display().to_string()),
    ];
    let mut t = Tui::start_env(dir.path(), &out, 100, 30, &args, &envs);
    t.wait_for("Waiting for the next request");
    common::wait_file(&pid_file);
    // The call is in flight once the server received it.
    common::wait_until("the tools/call at the server", || {
        std::fs::read_to_string(&record).is_ok_and(|t| t.contains("\"tools/call\""))
    });
    let server_pid: i32 = std::fs::read_to_string(&pid_file)
        .expect("server pid")
        .trim()
        .parse()
        .expect("pid");
    assert!(common::alive(server_pid));
    t.press("\u{3}", "Press Ctrl-C again to quit");
    t.send("\u{3}");
    assert_eq!(t.finish(), 130, "{}", t.stderr());
    assert!(
        common::came_true(Duration::from_secs(20), || !common::alive(server_pid)),
        "the server is still running"
    );
    assert!(t.stderr().contains("killing it"), "{}", t.stderr());
    // The pending call was cancelled before the connection closed.
    let got = common::json_lines(&record);
    let call = got
        .iter()
        .find(|m| m["method"] == "tools/call")
        .expect("tools/call sent");
    let cancel = got
        .iter()
        .find(|m| m["method"] == "notifications/cancelled")
        .expect("notifications/cancelled sent");
    assert_eq!(cancel["params"]["requestId"], call["id"]);
    assert_eq!(cancel["params"]["reason"], "the person quit");
}

/// `--timeout`: a form left unanswered is cancelled when the time is up,
/// and the cancel is the server's answer; a notice says so until a key.
#[test]
fn timeout_cancels_an_unanswered_form() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("out.json");
    let mut t = fake_screen(
        dir.path(),
        r#"--timeout 2 --call probe --args '{"case":"required"}'"#,
        "",
        100,
    );
    t.wait_for("Required");
    t.wait_for("Time ran out: this request was cancelled (cancel was sent).");
    // The notice takes keys once it has been up for CONSENT_GUARD, counted
    // from when the program recorded the frame, which a loaded machine may
    // do a while after the frame reached the terminal: a dropped key is
    // pressed again.
    t.press_until("x", "the end of the run", |t| t.eof);
    assert_eq!(t.finish(), 0, "{}", t.stderr());
    assert!(
        t.stderr()
            .contains("time ran out (--timeout), cancel was sent"),
        "{}",
        t.stderr()
    );
    assert_required_was_cancelled(&out);
}

/// 2025-11-25: the tool call returns while the form it asked for is still
/// open. The form stays, with a banner that says the answer may no longer
/// be used and is still sent; the answer given then reaches the server and
/// the run ends after it, with the tool's result.
#[test]
fn a_form_outliving_its_call_says_so_and_its_answer_is_still_sent() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("out.json");
    let record = dir.path().join("received.jsonl");
    let envs = [("FAKE_RECORD", record.display().to_string())];
    let mut t = probe_screen(dir.path(), r#"{"case":"leave"}"#, &envs);
    t.wait_for("Fake form");
    t.wait_for(ahp_elicit::responder::CALL_FINISHED_BANNER);
    // Still the form, not a notice: it takes the answer.
    t.submit();
    assert_eq!(t.finish(), 0, "{}", t.stderr());
    let result: Value =
        serde_json::from_str(&std::fs::read_to_string(&out).expect("stdout")).expect("JSON");
    assert_eq!(result["content"][0]["text"], "left open");
    let form_id = result["structuredContent"]["form_id"].clone();
    let got: Vec<Value> = std::fs::read_to_string(&record)
        .expect("record")
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON line"))
        .collect();
    let answer = got
        .iter()
        .find(|m| m["id"] == form_id && m.get("method").is_none())
        .expect("the form's answer reached the server");
    assert_eq!(answer["result"]["action"], "accept");
    assert_eq!(answer["result"]["content"]["name"], "Ada");
    let err = t.stderr();
    assert!(
        err.contains("the call finished while a request was open: an answer may no longer be used (it is still sent)"),
        "{err}"
    );
    assert!(!err.contains("withdrawn"), "{err}");
}

/// `mcp --call probe --args ARGS` against the fake server, on a 100x30
/// screen in `dir` (stdout to `dir/out.json`).
fn probe_screen(dir: &Path, args: &str, envs: &[(&str, String)]) -> Tui {
    fake_screen_env(dir, &format!("--call probe --args '{args}'"), "", 100, envs)
}

/// A request refused before it was shown (its params break the rules) is
/// not counted: the one form the person sees is request 1 of 1.
#[test]
fn a_request_refused_unseen_is_not_counted_in_request_i_of_n() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut t = fake_screen_env(
        dir.path(),
        r#"--plain --call probe --args '{"case":"invalid_first"}'"#,
        "",
        100,
        &[],
    );
    t.wait_for("Fake form");
    let screen = t.screen();
    assert!(
        screen.contains("Request 1 of 1, from the server"),
        "{screen}"
    );
}

/// A form the server asked before any call is not the call's: when the
/// call returns while it is still open, it gets no "call finished" banner
/// and stderr counts only the form the call asked.
#[test]
fn a_form_asked_before_any_call_is_not_said_to_outlive_the_call() {
    let dir = tempfile::tempdir().expect("tempdir");
    let record = dir.path().join("received.jsonl");
    let envs = [("FAKE_RECORD", record.display().to_string())];
    let mut t = fake_screen_env(
        dir.path(),
        r#"--call probe --args '{"case":"leave","ping_after":true}'"#,
        "--ask-at-start",
        100,
        &envs,
    );
    t.wait_for("Fake form");
    // The client answered the ping sent after the call's answer: it has
    // read that answer while the first form is on screen.
    t.until("the answer to the ping after the call", PATIENCE, |_| {
        std::fs::read_to_string(&record)
            .is_ok_and(|r| r.contains("after-call"))
            .then_some(())
    });
    assert!(
        !t.screen()
            .contains(ahp_elicit::responder::CALL_FINISHED_BANNER),
        "{}",
        t.screen()
    );
    // The call's own form comes next, with the banner.
    t.submit();
    t.wait_for(ahp_elicit::responder::CALL_FINISHED_BANNER);
    t.submit();
    assert_eq!(t.finish(), 0, "{}", t.stderr());
    let err = t.stderr();
    assert!(
        err.contains("the call finished while a request was open"),
        "{err}"
    );
}

/// A server that exits with a form open: the screen says the server exited
/// and nothing was sent, and stderr never says the call finished (it did
/// not: the server went away before answering it).
#[test]
fn a_server_exiting_under_an_open_form_is_not_a_finished_call() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut t = probe_screen(dir.path(), r#"{"case":"die","delay":1}"#, &[]);
    t.wait_for("Fake form");
    t.wait_for("The server exited before this request was answered");
    t.send("\r");
    let code = t.finish();
    let err = t.stderr();
    assert_eq!(code, 2, "{err}");
    assert!(!err.contains("the call finished"), "{err}");
}

/// The server withdraws the form, and its call returns while the notice
/// that says so is still on screen: a withdrawn request is not an open
/// one, so stderr says the withdrawal and never that the call finished
/// while a request was open.
#[test]
fn a_withdrawal_still_on_screen_when_the_call_returns_is_only_a_withdrawal() {
    let dir = tempfile::tempdir().expect("tempdir");
    let args = r#"{"case":"hold","delay":1,"after":0.2}"#;
    let sent = dir.path().join("sent.jsonl");
    let mut t = probe_screen(
        dir.path(),
        args,
        &[("FAKE_SENT", sent.display().to_string())],
    );
    t.wait_for("Fake form");
    t.wait_for(WITHDRAWN);
    // The call returns 0.2 s after the withdrawal (the server sent its
    // result); the notice stays up until a key, also once a frame drawn
    // after that shows.
    common::wait_until("the call's result sent", || {
        std::fs::read_to_string(&sent).is_ok_and(|s| s.contains("hold done"))
    });
    t.resize_marker(110, 30);
    assert!(t.shows(WITHDRAWN), "{}", t.screen());
    t.send("\r");
    assert_eq!(t.finish(), 0, "{}", t.stderr());
    let err = t.stderr();
    assert!(err.contains("the server withdrew this request"), "{err}");
    assert!(!err.contains("the call finished while"), "{err}");
}

/// 2025-11-25: the call returns while the URL request it asked for is
/// still open. The consent screen says that the answer may no longer be
/// used and is still sent, as the form does; in plain mode it is said
/// once.
#[test]
fn a_url_request_outliving_its_call_says_so_on_screen_and_in_plain_mode() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut t = probe_screen(dir.path(), r#"{"case":"leave","mode":"url"}"#, &[]);
    t.wait_for("Open a web page?");
    t.wait_for(ahp_elicit::responder::CALL_FINISHED_BANNER);
    t.send("d");
    assert_eq!(t.finish(), 0, "{}", t.stderr());
    let dir = tempfile::tempdir().expect("tempdir");
    let mut t = fake_screen(
        dir.path(),
        r#"--plain --call probe --args '{"case":"leave","mode":"url"}'"#,
        "",
        100,
    );
    t.wait_for("Type open, decline, or cancel:");
    t.wait_for(ahp_elicit::responder::CALL_FINISHED_BANNER);
    t.send("decline\r");
    assert_eq!(t.finish_plain(), 0, "{}", t.stderr());
    let text = String::from_utf8_lossy(&t.raw).replace("\r\n", "\n");
    let banner = ahp_elicit::responder::CALL_FINISHED_BANNER;
    assert_eq!(text.matches(banner).count(), 1, "{text}");
}

/// Over Streamable HTTP, a server that dies with a form open ends its
/// response stream: the screen says the connection to the server ended
/// (not that an input closed), and nothing was sent.
#[test]
fn an_http_server_dying_under_a_form_is_a_connection_that_ended() {
    let srv = crate::fake::fake_http(&[]);
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("out.json");
    let args = format!(
        "mcp --call probe --args '{{\"case\":\"die\",\"delay\":1}}' {}",
        srv.url
    );
    let mut t = Tui::start(dir.path(), &out, 100, 30, &args);
    t.wait_for("Fake form");
    t.wait_for(
        "The connection to the server ended before this request was answered. Nothing was sent.",
    );
    assert!(!t.shows("The input closed"), "{}", t.screen());
    t.send("\r");
    let code = t.finish();
    let err = t.stderr();
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("ended the response stream"), "{err}");
}

/// `--timeout` in a 2026-07-28 round of two forms: the cancel of the first
/// goes to the server with the round's answers, after the second is
/// answered, and the notice says that, not that it was sent.
#[test]
fn a_timeout_in_a_round_says_the_cancel_goes_with_the_rounds_answers() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut t = fake_screen(
        dir.path(),
        r#"--timeout 2 --call mrtr --args '{"case":"two"}'"#,
        "--modern",
        100,
    );
    t.wait_for("request 1 of 2");
    t.wait_for(ahp_elicit::responder::TIMED_OUT_IN_ROUND_NOTICE);
    assert!(!t.shows("(cancel was sent)"), "{}", t.screen());
    // Each notice takes keys once up for CONSENT_GUARD, counted from when
    // the program recorded its frame: a dropped key is pressed again.
    t.press_until("x", "request 2 of 2", |t| t.shows("request 2 of 2"));
    t.wait_for(ahp_elicit::responder::TIMED_OUT_IN_ROUND_NOTICE);
    t.press_until("x", "the end of the run", |t| t.eof);
    assert_eq!(t.finish(), 0, "{}", t.stderr());
    let err = t.stderr();
    assert!(
        err.contains("request 1 of 2: time ran out (--timeout), cancel will be sent with the round's answers"),
        "{err}"
    );
    assert!(!err.contains("cancel was sent"), "{err}");
}

/// While the server has not answered the handshake (this one ignores
/// server/discover, so the client waits out --connect-timeout and starts it
/// again), the screen says it is connecting, with how the server was
/// launched, and counts no answers; the form comes after.
#[test]
fn the_screen_says_it_is_connecting_until_the_handshake() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("out.json");
    let mut t = fake_screen(
        dir.path(),
        r#"--connect-timeout 2 --call probe --args '{"case":"required"}'"#,
        "--ignore-unknown",
        100,
    );
    t.wait_for(ahp_elicit::tui::view::CONNECTING);
    t.wait_for("Launched as: python3");
    assert!(!t.shows("answered so far"), "{}", t.screen());
    assert!(!t.shows("Waiting for the next request"), "{}", t.screen());
    t.wait_for("Required");
    t.send("\u{1b}");
    assert_eq!(t.finish(), 0, "{}", t.stderr());
    assert_required_was_cancelled(&out);
}

/// -32042: the URL consent screen, then "waiting for the browser flow"
/// (the server never reports completion) with a key to retry now; the
/// retried call succeeds.
#[test]
fn url_required_waits_for_the_browser_flow_and_r_retries() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("out.json");
    let flags = r#"--no-open --call gated --args '{"delay":-1}'"#;
    let mut t = fake_screen(dir.path(), flags, "", 100);
    t.wait_for("Open the page");
    t.wait_for("https://example.com/auth");
    t.press("o", "Nothing was opened (--no-open)");
    t.press("\r", "Waiting for the browser flow to complete");
    t.wait_for("r: retry now");
    t.send("r");
    assert_eq!(t.finish(), 0, "{}", t.stderr());
    let result: Value =
        serde_json::from_str(&std::fs::read_to_string(&out).expect("stdout")).expect("JSON");
    assert_eq!(result["content"][0]["text"], "gate open");
    assert_eq!(result["structuredContent"]["retry_after_complete"], false);

    // Esc gives up: no retry, the server's error is the outcome.
    let out = dir.path().join("out2.json");
    let args = format!("mcp {flags} -- python3 '{}'", common::fake_server());
    let mut t = Tui::start(dir.path(), &out, 100, 30, &args);
    t.wait_for("Open the page");
    t.press("o", "Nothing was opened (--no-open)");
    t.press("\r", "Esc: give up (cancel)");
    t.send("\u{1b}");
    assert_eq!(t.finish(), 1, "{}", t.stderr());
    let err = t.stderr();
    assert!(
        err.contains("gave up waiting for the browser flow"),
        "{err}"
    );
    assert!(
        err.contains("JSON-RPC error -32042: authorization needed"),
        "{err}"
    );
    // Nothing on stdout: the call failed.
    assert_eq!(std::fs::read_to_string(&out).unwrap_or_default(), "");
}

/// -32042 (the browser flow never completes; r retries), then the retried
/// call pushes the same URL elicitation (same elicitationId) once more: it
/// is the same request, shown again as "request 1 of 1", never as a second
/// one.
#[test]
fn a_url_elicitation_asked_again_after_the_retry_keeps_its_number() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("out.json");
    let mut t = fake_screen(
        dir.path(),
        r#"--no-open --call gated --args '{"delay":-1,"push_again":true}'"#,
        "",
        100,
    );
    t.wait_for("Open the page");
    t.wait_for("request 1 of 1");
    t.press("o", "Nothing was opened (--no-open)");
    t.press("\r", "r: retry now");
    t.send("r");
    // The second consent screen: the page offered again, not yet opened.
    t.until("the second consent screen", PATIENCE, |t| {
        (t.at_frame_end() && t.shows("Open the page") && !t.shows("Nothing was opened"))
            .then_some(())
    });
    assert!(t.shows("request 1 of 1"), "{}", t.screen());
    assert!(!t.shows("of 2"), "{}", t.screen());
    t.press("o", "Nothing was opened (--no-open)");
    t.send("\r");
    assert_eq!(t.finish(), 0, "{}", t.stderr());
    let result: Value =
        serde_json::from_str(&std::fs::read_to_string(&out).expect("stdout")).expect("JSON");
    assert_eq!(result["content"][0]["text"], "gate open");
    assert_eq!(
        result["structuredContent"]["pushed"]["result"],
        serde_json::json!({"action": "accept"})
    );
}

/// Peak resident memory (VmHWM) of `pid`, in KiB.
fn peak_rss_kib(pid: i32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).expect("proc status");
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("VmHWM")
}

/// A server floods notifications and log lines (160 MB) while a URL
/// consent screen is open: the queues are bounded and the held notices
/// capped, so peak RSS stays under 100 MB; the end says how many messages
/// were not shown.
#[test]
fn a_notification_flood_during_consent_keeps_memory_bounded() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut t = fake_screen(
        dir.path(),
        r#"--no-open --call probe --args '{"case":"flood","count":20000,"size":8192,"after":3}'"#,
        "",
        100,
    );
    t.wait_for("Open the page");
    t.wait_for(WITHDRAWN);
    let peak = peak_rss_kib(t.pid());
    t.send("\r");
    eprintln!("peak RSS during the flood: {} MiB", peak / 1024);
    assert_eq!(t.finish(), 0, "{}", t.stderr());
    assert!(peak < 100 * 1024, "peak RSS {peak} KiB");
    assert!(
        t.stderr()
            .contains("more messages from the server were not shown"),
        "{}",
        t.stderr().chars().take(2000).collect::<String>()
    );
}

/// The server withdraws a URL request and at once sends another one for a
/// different site with the same message: the first screen gives way to a
/// notice, which a key typed at once (`o`, meant for the withdrawn screen)
/// does not dismiss; only after a key on the notice does the second URL
/// show, and the carried `o` did not consent to it.
#[test]
fn a_withdrawn_url_request_is_acknowledged_before_the_next_one() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("out.json");
    let mut t = fake_screen(
        dir.path(),
        r#"--no-open --call probe --args '{"case":"swap","delay":2}'"#,
        "",
        100,
    );
    t.wait_for("good.example.com");
    t.wait_for(WITHDRAWN);
    assert!(!t.shows("evil.test"), "{}", t.screen());
    t.send_now("o");
    // The `o` was read once the frame redrawn after it shows.
    t.resize_marker(110, 30);
    assert!(t.shows(WITHDRAWN), "{}", t.screen());
    assert!(!t.shows("evil.test"), "{}", t.screen());
    t.press("\r", "evil.test");
    assert!(!t.shows(WITHDRAWN), "{}", t.screen());
    t.send("\u{1b}");
    assert_eq!(t.finish(), 0, "{}", t.stderr());
    let result: Value =
        serde_json::from_str(&std::fs::read_to_string(&out).expect("stdout")).expect("JSON");
    let second = &result["structuredContent"]["second"]["result"];
    assert_eq!(second["action"], "cancel", "{result}");
}

/// `--schema-policy strict`: a nested-object form is refused with -32602
/// and the person sees why on the "cannot be answered as a form" screen
/// (rule, pointer with the server's ESC neutralised, what the server got);
/// the screen stays until closed and nothing more is sent for it.
#[test]
fn a_strictly_refused_form_is_shown_with_its_rule_until_closed() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("out.json");
    let mut t = fake_screen(
        dir.path(),
        r#"--schema-policy strict --call probe --args '{"case":"refused"}'"#,
        "",
        120,
    );
    t.wait_for("This request cannot be answered as a form.");
    t.wait_for("/requestedSchema/properties/ad\\u{1b}[2Jdress/type: [mcp-request/enum]");
    t.wait_for("JSON-RPC error -32602");
    // The tool result came back meanwhile; the screen still waits.
    assert!(t.shows("[ Decline ]"), "{}", t.screen());
    t.send("\x04");
    assert_eq!(t.finish(), 1, "{}", t.stderr());
    let result: Value =
        serde_json::from_str(&std::fs::read_to_string(&out).expect("stdout")).expect("JSON");
    let refused = &result["structuredContent"]["responses"]["refused"];
    assert_eq!(refused["error"]["code"], -32602, "{refused}");
    assert_eq!(
        refused["error"]["data"]["violations"][0]["pointer"],
        "/requestedSchema/properties/ad\u{1b}[2Jdress/type"
    );
    assert!(
        t.stderr().contains("refused an elicitation"),
        "{}",
        t.stderr()
    );
}

/// The same refusal in plain mode: said on the terminal, with the rule and
/// pointer, before the person types decline or cancel.
#[test]
fn a_strictly_refused_form_is_said_in_plain_mode() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("out.json");
    let mut t = fake_screen(
        dir.path(),
        r#"--plain --schema-policy strict --call probe --args '{"case":"refused"}'"#,
        "",
        120,
    );
    t.wait_for("This request cannot be answered as a form");
    t.wait_for("Why: /requestedSchema/properties/ad\\u{1b}[2Jdress/type: [mcp-request/enum]");
    t.wait_for("Why: Refused under --schema-policy strict: the server got JSON-RPC error -32602");
    t.wait_for("Type decline or cancel: ");
    t.send("decline\r");
    assert_eq!(t.finish_plain(), 1, "{}", t.stderr());
    let result: Value =
        serde_json::from_str(&std::fs::read_to_string(&out).expect("stdout")).expect("JSON");
    let refused = &result["structuredContent"]["responses"]["refused"];
    assert_eq!(refused["error"]["code"], -32602, "{refused}");
}

/// MCP 2026-07-28 (the fake's `--modern`, no `--protocol`): two forms in
/// one `input_required` round are shown as "request 1 of 2" and "request 2
/// of 2" in the terminal form; the retry carries both answers under their
/// keys.
#[test]
fn a_2026_round_of_two_forms_is_counted_in_the_terminal() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("out.json");
    let mut t = fake_screen(
        dir.path(),
        r#"--call mrtr --args '{"case":"two"}'"#,
        "--modern",
        100,
    );
    t.wait_for("request 1 of 2");
    t.wait_for("Fake form");
    t.press("\x13", "Review");
    t.press("\r", "request 2 of 2");
    t.wait_for("Second form");
    t.submit();
    assert_eq!(t.finish(), 0, "{}", t.stderr());
    let result: Value =
        serde_json::from_str(&std::fs::read_to_string(&out).expect("stdout")).expect("JSON");
    let calls = result["structuredContent"]["calls"]
        .as_array()
        .expect("calls");
    assert_eq!(
        calls[1]["params"]["inputResponses"],
        serde_json::json!({
            "first": {"action": "accept", "content": {"name": "Ada", "age": 36}},
            "second": {"action": "accept", "content": {"colour": "blue"}}
        })
    );
    assert!(t.stderr().contains("(MCP 2026-07-28)"), "{}", t.stderr());
}

/// MCP 2026-07-28 over stdio: Ctrl-C twice while the call is in flight
/// cancels it the stdio way, `notifications/cancelled` naming the call's
/// id, then exit 130.
#[test]
fn ctrl_c_twice_cancels_a_2026_call_in_flight() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("out.json");
    let args = format!(
        "mcp --call mrtr --args '{{\"case\":\"silent\"}}' -- python3 '{}' --modern",
        common::fake_server()
    );
    let record = dir.path().join("received.jsonl");
    let envs = [("FAKE_RECORD", record.display().to_string())];
    let mut t = Tui::start_env(dir.path(), &out, 100, 30, &args, &envs);
    t.wait_for("Waiting for the next request");
    let sent = |p: &Path| std::fs::read_to_string(p).unwrap_or_default();
    common::wait_until("the tools/call at the server", || {
        sent(&record).contains("\"tools/call\"")
    });
    t.press("\u{3}", "Press Ctrl-C again to quit");
    t.send("\u{3}");
    assert_eq!(t.finish(), 130, "{}", t.stderr());
    let got: Vec<Value> = sent(&record)
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON line"))
        .collect();
    let call = got
        .iter()
        .find(|m| m["method"] == "tools/call")
        .expect("tools/call sent");
    assert_eq!(
        call["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"],
        "2026-07-28"
    );
    let cancel = got
        .iter()
        .find(|m| m["method"] == "notifications/cancelled")
        .expect("notifications/cancelled sent");
    assert_eq!(cancel["params"]["requestId"], call["id"]);
}

/// With the terminal UI up and stderr on the same terminal, messages wait
/// for the screen to be given back and then come out in the order they
/// were said: the era fallback and "connected" lines first, the error that
/// ended the run (the server has no such tool) last.
#[test]
fn held_messages_and_the_final_error_keep_their_order() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("out.json");
    let args = format!("mcp --call nosuch -- python3 '{}'", common::fake_server());
    let mut t = Tui::start_err_shown(dir.path(), &out, 220, 30, &args);
    assert_eq!(t.finish(), 1, "{}", t.screen());
    let screen = t.screen();
    let at = |text: &str| {
        screen
            .find(text)
            .unwrap_or_else(|| panic!("{text:?} on the screen:\n{screen}"))
    };
    let fallback = at("ahp-elicit: the server does not answer server/discover");
    let connected = at("ahp-elicit: connected to Fake MCP");
    let failed = at("ahp-elicit mcp: tools/call failed: JSON-RPC error -32602: unknown tool");
    assert!(fallback < connected && connected < failed, "{screen}");
}

/// `--timeout` counts from when a request is shown, not from when it
/// arrived: in a 2026-07-28 round of two forms, the second (which waited
/// behind the first until the first timed out) is shown with its whole
/// limit, and the limit shorter than the late warning is said once, never
/// followed by a warning that claims more time.
#[test]
fn timeout_starts_when_a_request_is_shown() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("out.json");
    let args = format!(
        "mcp --plain --timeout 2 --call mrtr --args '{{\"case\":\"two\"}}' -- python3 '{}' --modern",
        common::fake_server()
    );
    let mut t = Tui::start(dir.path(), &out, 120, 40, &args);
    t.wait_for("Request 1 of 2");
    // Each notice that time ran out waits for Enter: request 2 comes after
    // the first, the end of the run after the second.
    for n in 1..=2 {
        t.wait_raw_until(&format!("prompt {n}"), |raw| {
            raw.matches(ahp_elicit::plain::PRESS_ENTER).count() >= n
        });
        t.send("\r");
    }
    let code = t.finish_plain();
    let text = String::from_utf8_lossy(&t.raw).into_owned();
    let second = &text[text.find("Request 2 of 2").expect("request 2 shown")..];
    assert!(
        second.contains("You have 2 seconds to answer; then the request is cancelled."),
        "{second}"
    );
    // The first request's cancel went out only with the round's answers.
    let first = &text[..text.find("Request 2 of 2").expect("request 2 shown")];
    assert!(
        first.contains(ahp_elicit::responder::TIMED_OUT_IN_ROUND_NOTICE),
        "{first}"
    );
    assert!(
        !text.contains(ahp_elicit::responder::TIMED_OUT_NOTICE),
        "{text}"
    );
    assert!(!text.contains("10 seconds left"), "{text}");
    assert_eq!(code, 0, "{}", t.stderr());
    let result: Value =
        serde_json::from_str(&std::fs::read_to_string(&out).expect("stdout")).expect("JSON");
    let calls = result["structuredContent"]["calls"]
        .as_array()
        .expect("calls");
    assert_eq!(
        calls[1]["params"]["inputResponses"],
        serde_json::json!({
            "first": {"action": "cancel"},
            "second": {"action": "cancel"}
        })
    );
}

/// Ctrl-N declines the form on screen and every later one from the server
/// without showing them, and the run says how many at the end.
#[test]
fn ctrl_n_in_mcp_reports_how_many_were_declined_unseen() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("out.json");
    let mut t = fake_screen(
        dir.path(),
        r#"--call probe --args '{"case":"rules"}'"#,
        "",
        100,
    );
    t.wait_for("Book");
    t.send("\u{e}");
    assert_eq!(t.finish(), 0, "{}", t.stderr());
    let result: Value =
        serde_json::from_str(&std::fs::read_to_string(&out).expect("stdout")).expect("JSON");
    let responses = &result["structuredContent"]["responses"];
    for step in ["booking", "feedback", "offers"] {
        assert_eq!(
            responses[step]["result"],
            serde_json::json!({"action": "decline"}),
            "{step}: {responses}"
        );
    }
    assert!(
        t.stderr()
            .contains("2 requests declined without being shown (Ctrl-N: everything else from"),
        "{}",
        t.stderr()
    );
}

/// Three forms a 2025-11-25 server sends back to back: each screen counts
/// the requests already waiting behind it ("request 1 of 3" while the
/// first is up, not "1 of 1").
#[test]
fn requests_sent_back_to_back_are_counted_on_the_first_screen() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut t = probe_screen(dir.path(), r#"{"case":"burst"}"#, &[]);
    for n in 1..=3 {
        t.wait_for(&format!("Burst form {n}"));
        t.wait_for(&format!("request {n} of 3"));
        t.send("\u{1b}");
    }
    assert_eq!(t.finish(), 0, "{}", t.stderr());
    let result: Value = serde_json::from_str(
        &std::fs::read_to_string(dir.path().join("out.json")).expect("stdout"),
    )
    .expect("JSON");
    let answers = &result["structuredContent"]["answers"];
    for n in 0..3 {
        assert_eq!(
            answers[n]["result"],
            serde_json::json!({"action": "cancel"}),
            "{answers}"
        );
    }
}

/// The client's JSON-RPC answers to elicitations in a `FAKE_RECORD` file
/// (request id, `action`), waiting (at most [`PATIENCE`]) until there are
/// `n`: the server records what it reads, a little after it was sent.
fn recorded_answers(record: &Path, n: usize) -> Vec<(Value, Value)> {
    let read = || -> Vec<(Value, Value)> {
        std::fs::read_to_string(record)
            .unwrap_or_default()
            .lines()
            .filter_map(|l| serde_json::from_str::<Value>(l).ok())
            .filter(|m| m["result"].get("action").is_some())
            .map(|m| (m["id"].clone(), m["result"]["action"].clone()))
            .collect()
    };
    common::came_true(PATIENCE, || read().len() >= n);
    read()
}

/// The server read `n` answers to its elicitations, each `cancel`, under
/// `n` different ids.
fn assert_each_cancelled(record: &Path, n: usize) {
    let answers = recorded_answers(record, n);
    let ids: std::collections::HashSet<String> =
        answers.iter().map(|(id, _)| id.to_string()).collect();
    assert_eq!((answers.len(), ids.len()), (n, n), "{answers:?}");
    assert!(answers.iter().all(|(_, a)| a == "cancel"), "{answers:?}");
}

/// Three forms sent back to back: Ctrl-C cancels the first, a second
/// Ctrl-C on the next one quits. The quit ends the run: the third form is
/// never shown, no notice waits for a key (the run ends without one, and
/// nothing says the connection ended: it had not), each of the three
/// got `cancel`, and stderr says the run was quit and what it cancelled.
#[test]
fn a_quit_with_a_request_queued_ends_the_run_and_cancels_it_unseen() {
    let dir = tempfile::tempdir().expect("tempdir");
    let record = dir.path().join("received.jsonl");
    let envs = [("FAKE_RECORD", record.display().to_string())];
    let mut t = probe_screen(dir.path(), r#"{"case":"burst"}"#, &envs);
    t.wait_for("Burst form 1");
    t.wait_for("request 1 of 3");
    t.press("\u{3}", "Burst form 2");
    t.send("\u{3}");
    // No key after the quit: the run ends on its own.
    assert_eq!(t.finish(), 130, "{}", t.stderr());
    let raw = String::from_utf8_lossy(&t.raw).into_owned();
    assert!(!raw.contains("connection to the server ended"), "{raw}");
    assert!(!raw.contains("Press any key"), "{raw}");
    // The last frame of the full screen is the one quit on, not the third
    // form (its frames differ from the second's in one digit, so the
    // screen is rebuilt from the bytes up to leaving it).
    let left = raw
        .rfind("\u{1b}[?1049l")
        .expect("left the alternate screen");
    let mut vt = vt100::Parser::new(
        std::num::NonZeroU16::new(30).unwrap(),
        std::num::NonZeroU16::new(100).unwrap(),
        0,
    );
    vt.process(&t.raw[..left]);
    let last = vt.screen().contents();
    assert!(last.contains("Burst form 2"), "{last}");
    assert!(!last.contains("Burst form 3"), "{last}");
    assert_each_cancelled(&record, 3);
    let err = t.stderr();
    assert!(
        err.contains("the run was quit: 2 requests of the server were answered cancel"),
        "{err}"
    );
}

/// The same quit in plain mode: after "Quitting", nothing of the third
/// form, no false sentence and no waiting line is printed.
#[test]
fn a_quit_in_plain_mode_prints_nothing_after_it() {
    let dir = tempfile::tempdir().expect("tempdir");
    let record = dir.path().join("received.jsonl");
    let envs = [("FAKE_RECORD", record.display().to_string())];
    let cmd = format!(
        "mcp --plain --call probe --args '{{\"case\":\"burst\"}}' -- python3 '{}'",
        common::fake_server()
    );
    let mut t = Tui::start_env(
        dir.path(),
        &dir.path().join("out.json"),
        100,
        30,
        &cmd,
        &envs,
    );
    t.wait_for("Burst form 1");
    t.press("\u{3}", "Burst form 2");
    t.send("\u{3}");
    assert_eq!(t.finish_plain(), 130, "{}", t.stderr());
    let text = String::from_utf8_lossy(&t.raw).replace("\r\n", "\n");
    let at = text.find("Quitting").expect("Quitting said");
    let after = &text[at..text.rfind("[exit=").expect("exit printed")];
    assert_eq!(
        after.trim_end(),
        "Quitting: this request and every remaining one are cancelled.",
        "{text}"
    );
    assert!(!text.contains("Burst form 3"), "{text}");
    assert_each_cancelled(&record, 3);
    assert!(
        t.stderr()
            .contains("the run was quit: 2 requests of the server were answered cancel"),
        "{}",
        t.stderr()
    );
}

/// Two forms back to back; the server withdraws the second while the first
/// is on screen. The header's count drops to "request 1 of 1" at once, the
/// withdrawn form is never shown and no notice waits for a key about it,
/// and stderr says a queued request was withdrawn (not "this request").
#[test]
fn a_queued_request_withdrawn_drops_from_the_count_and_is_said_as_unseen() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut t = probe_screen(dir.path(), r#"{"case":"queue","delay":1}"#, &[]);
    t.wait_for("Queued form 1");
    t.wait_for("request 1 of 2");
    t.wait_for("request 1 of 1");
    t.send("\u{1b}");
    assert_eq!(t.finish(), 0, "{}", t.stderr());
    let raw = String::from_utf8_lossy(&t.raw).into_owned();
    assert!(!raw.contains("Queued form 2"), "{raw}");
    assert!(!raw.contains("withdrew"), "{raw}");
    let err = t.stderr();
    assert!(
        err.contains(
            "a queued request was withdrawn before it was shown (the server withdrew it: no longer needed)"
        ),
        "{err}"
    );
    assert!(!err.contains("the server withdrew this request"), "{err}");
    let result: Value = serde_json::from_str(
        &std::fs::read_to_string(dir.path().join("out.json")).expect("stdout"),
    )
    .expect("JSON");
    let rec = &result["structuredContent"];
    assert_eq!(
        rec["first"]["result"],
        serde_json::json!({"action": "cancel"})
    );
    assert_eq!(rec["late"], Value::Null, "{rec}");
}

/// At a terminal the lines held while the screen was up (the era, the
/// server's stderr) are said before the result, never after it.
#[test]
fn held_lines_come_before_the_result() {
    let dir = tempfile::tempdir().expect("tempdir");
    let args = format!(
        "mcp --call probe --args '{{\"case\":\"quiet\"}}' -- python3 '{}'",
        common::fake_server()
    );
    let mut t = Tui::start_err_shown(dir.path(), Path::new("/dev/tty"), 100, 40, &args);
    assert_eq!(t.finish(), 0, "{}", t.screen());
    let screen = t.screen();
    let said = screen
        .find("connected to Fake MCP")
        .unwrap_or_else(|| panic!("the era's line: {screen}"));
    let result = screen.find("probe done").expect("the result");
    assert!(said < result, "{screen}");
}
