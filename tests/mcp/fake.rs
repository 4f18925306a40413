//! `ahp-elicit mcp` against a fake MCP server (tests/mcp_fake_server.py),
//! over stdio and Streamable HTTP; no node needed. The fake
//! server sends ping, a form, a URL request, elicitation/complete, an
//! unknown mode, invalid params and roots/list, and returns every answer in
//! the tool result, which these tests read.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};

use serde_json::{json, Value};

use crate::common::sdk::{ahp_in, mcp_in, HttpServer, McpRun as Run};
use crate::common::{alive, fake_server, signal, BIN};

fn python() -> &'static str {
    let ok = Command::new("python3")
        .arg("--version")
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false);
    assert!(
        ok,
        "python3 is needed for the fake MCP server of tests/mcp/fake.rs"
    );
    "python3"
}

/// What the fake server records in a call's result.
trait Recorded {
    /// The record: the result's `structuredContent`.
    fn record(&self) -> Value;
    /// The person's answer to the fake server's step `step`.
    fn response(&self, step: &str) -> Value;
}

impl Recorded for Run {
    fn record(&self) -> Value {
        self.json()["structuredContent"].clone()
    }
    fn response(&self, step: &str) -> Value {
        self.record()["responses"][step].clone()
    }
}

/// Run `ahp-elicit mcp ARGS` with `--events` into a temp file.
fn run(args: &[&str]) -> Run {
    let dir = tempfile::tempdir().unwrap();
    // The fake server's invalid request is refused with -32602 under the
    // strict reading; the compatible default is tested in sdk_*.rs.
    mcp_in(dir.path(), ["--schema-policy", "strict"].iter().chain(args))
}

fn stdio(extra: &[&str]) -> Run {
    let server = fake_server();
    let mut args: Vec<&str> = extra.to_vec();
    args.extend(["--", python(), server.as_str()]);
    run(&args)
}

/// Listing the tools asks nothing of the person, so it runs without a
/// terminal (the test has none) and with no --answers or --action.
#[test]
fn listing_needs_no_terminal() {
    let r = stdio(&[]);
    r.assert_said(0, "the server offers 2 tool(s)");
    let listed: Value = serde_json::from_str(&r.stdout).expect("the tools as JSON");
    assert_eq!(listed["tools"][0]["name"], "probe");
    assert!(!r.stderr.contains("no terminal"), "{}", r.stderr);
}

/// Without --call a server's only tool is listed, never called: the
/// server sees no tools/call.
#[test]
fn listing_never_calls_a_servers_only_tool() {
    let dir = tempfile::tempdir().unwrap();
    let record = dir.path().join("received.jsonl");
    let env = format!("FAKE_RECORD={}", record.display());
    let server = fake_server();
    let r = run(&["--", "env", &env, python(), &server, "--one-tool"]);
    assert_eq!(r.code, 0, "stderr: {}", r.stderr);
    let listed: Value = serde_json::from_str(&r.stdout).expect("the tools as JSON");
    let names = crate::common::tool_names(&listed);
    assert_eq!(names, ["probe"]);
    let seen = std::fs::read_to_string(&record).unwrap_or_default();
    let methods: Vec<String> = seen
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter_map(|m| m["method"].as_str().map(str::to_owned))
        .collect();
    assert!(methods.iter().any(|m| m == "tools/list"), "{methods:?}");
    assert!(!methods.iter().any(|m| m == "tools/call"), "{methods:?}");
    assert!(r.events.is_empty(), "{:?}", r.events);
}

/// `ahp-elicit mcp ARGS -- python3 fake` in a new session (no
/// controlling terminal, no /dev/tty), without --events or a policy.
fn without_terminal(args: &[&str]) -> Run {
    use std::os::unix::process::CommandExt;
    let dir = tempfile::tempdir().unwrap();
    let mut c = ahp_in(dir.path());
    c.arg("mcp")
        .args(args)
        .args(["--", python(), &fake_server()]);
    // SAFETY: setsid is async-signal-safe; nothing else runs in the child
    // before exec.
    unsafe {
        c.pre_exec(|| {
            libc::setsid();
            Ok(())
        });
    }
    Run::of(&c.output().unwrap(), None)
}

/// A call that asks nothing needs no terminal and no --action.
#[test]
fn a_call_that_asks_nothing_runs_without_a_terminal() {
    let r = without_terminal(&["--call", "probe", "--args", r#"{"case":"quiet"}"#]);
    assert_eq!(r.code, 0, "stderr: {}", r.stderr);
    assert_eq!(r.json()["content"][0]["text"], "probe done");
    assert!(!r.stderr.contains("no terminal"), "{}", r.stderr);
}

/// Without a terminal, an elicitation that comes is answered cancel, the
/// reason is said, and the run exits 2.
#[test]
fn an_elicitation_without_a_terminal_is_cancelled_and_said() {
    let r = without_terminal(&["--call", "probe", "--args", r#"{"case":"required"}"#]);
    assert_eq!(r.code, 2, "stderr: {}", r.stderr);
    assert_eq!(
        r.response("required"),
        json!({"id": r.response("required")["id"], "result": {"action": "cancel"}})
    );
    assert!(
        r.stderr.contains("answered cancel: no terminal"),
        "{}",
        r.stderr
    );
    assert!(
        r.stderr
            .contains("use --answers FILE or --action to answer without one"),
        "{}",
        r.stderr
    );
    assert!(
        r.stderr
            .contains("1 elicitation(s) answered cancel: no terminal to answer on"),
        "{}",
        r.stderr
    );
}

/// A structured result nested 66 deep (inside the JSON-RPC envelope) is
/// read; one nested 200 deep, or a line over the size limit, ends the call
/// at once with why, never a wait.
#[test]
fn a_deep_or_huge_answer_ends_the_call_at_once() {
    let r = stdio(&[
        "--call",
        "probe",
        "--args",
        r#"{"case":"deep"}"#,
        "--action",
        "accept",
        "--call-timeout",
        "60",
    ]);
    assert_eq!(r.code, 0, "stderr: {}", r.stderr);
    let mut v = &r.json()["structuredContent"]["deep"];
    let mut depth = 0;
    while let Some(inner) = v.get(0) {
        v = inner;
        depth += 1;
    }
    assert_eq!((depth, v.as_str()), (66, Some("bottom")));
    for (case, why) in [
        ("toodeep", "nesting depth 203 exceeds the limit of 128"),
        ("huge", "skipped a line of more than"),
    ] {
        let args = format!(r#"{{"case":"{case}"}}"#);
        let r = stdio(&[
            "--call",
            "probe",
            "--args",
            &args,
            "--action",
            "accept",
            "--call-timeout",
            "60",
        ]);
        assert_eq!(r.code, 1, "{case}: {}", r.stderr);
        assert!(
            r.stderr
                .contains("the server's answer to tools/call cannot be read: ")
                && r.stderr.contains(why),
            "{case}: {}",
            r.stderr
        );
        assert_eq!(r.stdout, "", "{case}");
    }
}

/// Over Streamable HTTP an answer that cannot be read ends the call at once
/// too, never a wait for --call-timeout: an SSE event over the size limit
/// (its id first or after the result), one nested too deep with its id
/// after the result, each while the stream stays open; and one followed by
/// an SSE event id, whose resumption would never answer.
#[test]
fn an_unreadable_answer_over_http_ends_the_call_at_once() {
    let srv = fake_http(&[]);
    for (args, why) in [
        (
            r#"{"case":"huge","hold":true}"#,
            "skipped an event of more than",
        ),
        (
            r#"{"case":"huge","late_id":true,"hold":true}"#,
            "skipped an event of more than",
        ),
        (
            r#"{"case":"toodeep","late_id":true,"hold":true}"#,
            "nesting depth 203 exceeds the limit of 128",
        ),
        (
            r#"{"case":"huge","event_id":"hang"}"#,
            "skipped an event of more than",
        ),
    ] {
        let r = run(&[
            "--protocol",
            "2025-11-25",
            "--call",
            "probe",
            "--args",
            args,
            "--action",
            "accept",
            "--call-timeout",
            "120",
            &srv.url,
        ]);
        assert_eq!(r.code, 1, "{args}: {}", r.stderr);
        assert!(
            r.stderr
                .contains("the server's answer to tools/call cannot be read: ")
                && r.stderr.contains(why),
            "{args}: {}",
            r.stderr
        );
        assert!(!r.stderr.contains("--call-timeout"), "{args}: {}", r.stderr);
        assert_eq!(r.stdout, "", "{args}");
    }
}

/// A call the server never answers ends after --call-timeout, said as
/// given.
#[test]
fn a_call_never_answered_ends_after_the_call_timeout() {
    let r = stdio(&[
        "--call",
        "silent",
        "--action",
        "accept",
        "--call-timeout",
        "1.5",
    ]);
    r.assert_said(2, "no answer to tools/call within 1.5 s (--call-timeout;");
}

/// A server that pages its tools without end is read up to the list's
/// bound (tools, not pages), said on stderr.
#[test]
fn an_endless_tool_list_is_cut_at_its_bound() {
    let server = fake_server();
    let r = run(&["--", python(), &server, "--endless-tools"]);
    assert_eq!(r.code, 0, "stderr: {}", r.stderr);
    assert_eq!(r.json()["tools"].as_array().map(Vec::len), Some(10_000));
    assert!(
        r.stderr.contains("tools/list: stopped after 10000 tools"),
        "{}",
        r.stderr
    );
}

/// A server that makes the client refuse again and again gets a line for
/// each of the first 20 refusals, then one saying the rest are counted,
/// and the count at the end: stderr does not grow with the flood.
#[test]
fn a_flood_of_refused_elicitations_is_said_up_to_a_bound_then_counted() {
    let r = stdio(&[
        "--call",
        "probe",
        "--args",
        r#"{"case":"refusals"}"#,
        "--action",
        "accept",
    ]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert_eq!(
        r.stderr.matches("refused an elicitation:").count(),
        20,
        "{}",
        r.stderr
    );
    assert_eq!(
        r.stderr
            .matches(
                "refused more than 20 elicitations: later ones are counted, not said one by one"
            )
            .count(),
        1,
        "{}",
        r.stderr
    );
    assert!(
        r.stderr
            .contains("30 elicitation(s) refused without an answer"),
        "{}",
        r.stderr
    );
}

/// The same when the refused requests outlive the call that asked them:
/// the lines stay bounded and the count at the end counts them all.
#[test]
fn refusals_after_the_call_are_bounded_and_counted() {
    let r = stdio(&[
        "--call",
        "probe",
        "--args",
        r#"{"case":"refusals_open"}"#,
        "--action",
        "accept",
    ]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(
        r.stderr.matches("refused an elicitation:").count() <= 20,
        "{}",
        r.stderr
    );
    assert!(
        r.stderr.contains("30 elicitation(s) got no valid answer"),
        "{}",
        r.stderr
    );
}

/// A server whose cursor never advances is asked twice, not to the bound:
/// its tools listed once, and said so.
#[test]
fn a_tool_list_whose_cursor_never_advances_stops_at_the_repeat() {
    let server = fake_server();
    let r = run(&["--", python(), &server, "--stuck-cursor"]);
    assert_eq!(r.code, 0, "stderr: {}", r.stderr);
    let once = run(&["--", python(), &server]);
    assert_eq!(r.json()["tools"], once.json()["tools"]);
    let n = once.json()["tools"].as_array().map_or(0, Vec::len);
    assert!(
        r.stderr.contains(&format!(
            "tools/list: page 2 gave the cursor of an earlier page again: the list stops there, with {n} tools"
        )),
        "{}",
        r.stderr
    );
}

/// --quiet leaves out the lines about the revision chosen and the fallback.
#[test]
fn quiet_leaves_out_the_fallback_line() {
    let r = stdio(&["--call", "probe", "--args", r#"{"case":"quiet"}"#]);
    r.assert_said(0, "using MCP 2025-11-25 (initialize)");
    assert!(r.stderr.contains("connected to Fake MCP"), "{}", r.stderr);
    let r = stdio(&[
        "--quiet",
        "--call",
        "probe",
        "--args",
        r#"{"case":"quiet"}"#,
    ]);
    assert_eq!(r.code, 0, "stderr: {}", r.stderr);
    assert!(!r.stderr.contains("using MCP 2025-11-25"), "{}", r.stderr);
    assert!(!r.stderr.contains("connected to"), "{}", r.stderr);
    // The server's own lines are still said.
    assert!(
        r.stderr.contains("server: fake server ready"),
        "{}",
        r.stderr
    );
}

/// A server that answers server/discover with an internal error and has
/// no initialize: under `--protocol auto` both revisions were tried, so the
/// error never suggests `--protocol auto`; with `--protocol 2025-11-25` it
/// does (that is the revision not yet tried).
#[test]
fn no_initialize_after_auto_suggests_nothing_already_tried() {
    let dir = tempfile::tempdir().unwrap();
    let server = dir.path().join("neither.py");
    std::fs::write(
        &server,
        r#"import json, sys
for line in sys.stdin:
    m = json.loads(line)
    if "id" not in m:
        continue
    if m.get("method") == "server/discover":
        err = {"code": -32603, "message": "discover broke"}
    else:
        err = {"code": -32601, "message": "Method not found"}
    print(json.dumps({"jsonrpc": "2.0", "id": m["id"], "error": err}), flush=True)
"#,
    )
    .unwrap();
    let server = server.display().to_string();
    let r = run(&["--", python(), &server]);
    assert_ne!(r.code, 0, "stderr: {}", r.stderr);
    assert!(r.stderr.contains("the server has no initialize, and did not answer server/discover as an MCP 2026-07-28 server either"), "{}", r.stderr);
    assert!(!r.stderr.contains("try --protocol auto"), "{}", r.stderr);
    let r = run(&["--protocol", "2025-11-25", "--", python(), &server]);
    assert_ne!(r.code, 0, "stderr: {}", r.stderr);
    assert!(r.stderr.contains("try --protocol auto"), "{}", r.stderr);
}

fn result_text(ev: &Value) -> Value {
    let t = ev["payload"]["elicitation"]["result"]["text"]
        .as_str()
        .expect("result text");
    serde_json::from_str(t).unwrap()
}

#[test]
fn stdio_answers_form_and_url_and_refuses_the_rest() {
    let r = stdio(&["--call", "probe", "--action", "accept"]);
    // The elicitations refused as invalid (an unknown mode, a nested
    // object) got no answer: exit 1, said at the end.
    r.assert_said(
        1,
        "2 elicitation(s) refused without an answer (invalid params, or a mode not advertised)",
    );
    // The URL was accepted without --browser: nothing was opened, and the
    // run says so.
    assert!(
        r.stderr.contains("a URL request was accepted, but nothing was opened: scripted answers open a URL only with --browser CMD"),
        "{}",
        r.stderr
    );
    let rec = r.record();
    // Initialize as a 2025-11-25 client advertising both modes, then
    // initialized before anything else.
    assert_eq!(rec["initialize"]["protocolVersion"], "2025-11-25");
    assert_eq!(
        rec["initialize"]["capabilities"],
        json!({"elicitation": {"form": {}, "url": {}}})
    );
    assert_eq!(rec["initialize"]["clientInfo"]["name"], "ahp-elicit");
    // Without --protocol the client asks server/discover first; this server
    // speaks only 2025-11-25 (-32601), so the handshake follows on the same
    // process.
    assert_eq!(
        rec["received"],
        json!([
            "server/discover",
            "initialize",
            "notifications/initialized",
            "tools/list",
            "tools/call"
        ])
    );
    assert!(
        r.stderr
            .contains("connected to Fake MCP 0.0.1 (MCP 2025-11-25)"),
        "{}",
        r.stderr
    );
    // ping is answered with an empty result.
    assert_eq!(r.response("ping"), json!({"id": 1001, "result": {}}));
    // The form is submitted as shown: the fields with a default.
    assert_eq!(
        r.response("form")["result"],
        json!({"action": "accept", "content": {"name": "Ada", "age": 36}})
    );
    // URL consent: accept with no content.
    assert_eq!(r.response("url")["result"], json!({"action": "accept"}));
    // Unknown mode and invalid params: -32602, the violation named.
    assert_eq!(r.response("bad-mode")["error"]["code"], -32602);
    let inv = r.response("invalid");
    assert_eq!(inv["error"]["code"], -32602);
    assert_eq!(
        inv["error"]["data"]["violations"][0]["pointer"],
        "/requestedSchema/properties/address/type"
    );
    // The pinned MCP definition (closed subset) rejects the nested object.
    assert_eq!(
        inv["error"]["data"]["violations"][0]["rule"],
        "mcp-request/enum"
    );
    // A method the client does not offer.
    assert_eq!(r.response("roots")["error"]["code"], -32601);

    // Events: request and result for the form and the URL request only.
    assert_eq!(r.events.len(), 4, "events: {:?}", r.events);
    let server = json!({"name": "fake-mcp", "title": "Fake MCP", "version": "0.0.1"});
    for (i, mode) in [(0, "form"), (2, "url")] {
        let (req, res) = (&r.events[i], &r.events[i + 1]);
        assert_eq!(req["type"], "user.elicitation.request");
        assert_eq!(req["source"]["adapter"], "mcp-stdio");
        assert_eq!(req["payload"]["elicitation"]["server"], server);
        assert_eq!(req["payload"]["elicitation"]["mode"], mode);
        assert_eq!(res["type"], "user.elicitation.result");
        assert_eq!(res["parentEventId"], req["id"]);
        assert_eq!(res["payload"]["elicitation"]["server"], server);
        assert_eq!(res["payload"]["elicitation"]["action"], "accept");
        // A pushed 2025-11-25 elicitation names its revision and the call
        // in progress; the result repeats the revision only.
        assert_eq!(
            req["extensions"]["mcp"],
            json!({"protocolVersion": "2025-11-25",
                   "call": {"method": "tools/call", "name": "probe"}})
        );
        assert_eq!(
            res["extensions"]["mcp"],
            json!({"protocolVersion": "2025-11-25"})
        );
    }
    // The request text is the params, whole.
    let text: Value = serde_json::from_str(
        r.events[0]["payload"]["elicitation"]["request"]["text"]
            .as_str()
            .unwrap(),
    )
    .unwrap();
    assert_eq!(text["message"], "Fake form");
    assert_eq!(text["requestedSchema"]["required"], json!(["name"]));
    assert_eq!(
        result_text(&r.events[1]),
        json!({"action": "accept", "content": {"name": "Ada", "age": 36}})
    );
    assert_ne!(r.events[0]["id"], r.events[2]["id"]);

    // elicitation/complete is shown once, for the consented id; a repeat
    // and an id never issued are logged as ignored (sanitized); no raw ESC
    // reaches stderr.
    assert_eq!(
        r.stderr
            .matches("the server reports URL elicitation 'el-1' complete")
            .count(),
        1,
        "{}",
        r.stderr
    );
    assert!(r
        .stderr
        .contains("ignored a repeated completion for URL elicitation 'el-1'"));
    assert!(
        r.stderr.contains(
            "ignored a completion for URL elicitation 'el-9\\u{1b}[2J', which was not consented to here"
        ),
        "{}",
        r.stderr
    );
    assert!(!r
        .stderr
        .contains("URL elicitation 'el-9\\u{1b}[2J' complete"));
    // A cancellation of a request that is not open is ignored.
    assert!(r
        .stderr
        .contains("ignored a cancellation of request 4242, which is not open"));
    assert!(r
        .stderr
        .contains("server: fake server ready \\u{1b}[31mred"));
    assert!(!r.stderr.contains('\u{1b}'), "raw ESC on stderr");
    // The non-JSON line before the handshake is noted and skipped.
    assert!(r.stderr.contains("this is not JSON"));
}

/// A `--browser` that cannot start: the person reads why (the program
/// named); the server gets -32603 saying only that the URL was not opened.
#[test]
fn a_failed_browser_is_not_named_to_the_server() {
    let r = stdio(&[
        "--call",
        "probe",
        "--action",
        "accept",
        "--browser",
        "/nonexistent/secret-browser-xyz",
    ]);
    assert_eq!(r.code, 1, "stderr: {}", r.stderr);
    let url = r.response("url");
    assert_eq!(url["error"]["code"], -32603, "{url}");
    let sent = url["error"]["message"].as_str().unwrap_or_default();
    assert!(sent.ends_with(": the URL was not opened"), "{sent}");
    assert!(!sent.contains("secret-browser-xyz"), "{sent}");
    assert!(r.stderr.contains("secret-browser-xyz"), "{}", r.stderr);
}

#[test]
fn stdio_form_only_declines_and_rejects_url_mode() {
    let r = stdio(&[
        "--call",
        "probe",
        "--modes",
        "form",
        "--action",
        "decline",
        "--source-adapter",
        "lab-adapter",
    ]);
    // The URL request (and the bad-mode and invalid ones) got no answer.
    assert_eq!(r.code, 1, "stderr: {}", r.stderr);
    assert_eq!(
        r.record()["initialize"]["capabilities"],
        json!({"elicitation": {"form": {}}})
    );
    assert_eq!(r.response("form")["result"], json!({"action": "decline"}));
    let url = r.response("url");
    assert_eq!(url["error"]["code"], -32602);
    assert!(url["error"]["message"]
        .as_str()
        .unwrap()
        .contains("'url' was not advertised"));
    // Only the form made events; the unadvertised mode made none.
    assert_eq!(r.events.len(), 2);
    assert_eq!(r.events[0]["source"]["adapter"], "lab-adapter");
    assert_eq!(result_text(&r.events[1]), json!({"action": "decline"}));
}

/// With `--root` and an answers file with a sampling rule, `initialize`
/// declares `roots` (`listChanged: false`) and `sampling`, and the pushed
/// `roots/list` gets the root's URI and name.
#[test]
fn stdio_roots_and_sampling_are_declared_when_offered() {
    let dir = tempfile::tempdir().unwrap();
    let rules = dir.path().join("rules.json");
    std::fs::write(
        &rules,
        json!({"rules": [{"match": {"method": "sampling/createMessage"}, "answer": {"action": "decline"}},
            {"match": {}, "answer": {"action": "decline"}}]})
        .to_string(),
    )
    .unwrap();
    let root = std::fs::canonicalize(dir.path()).unwrap();
    let r = stdio(&[
        "--call",
        "probe",
        "--modes",
        "form",
        "--answers",
        rules.to_str().unwrap(),
        "--root",
        root.to_str().unwrap(),
    ]);
    assert_eq!(
        r.record()["initialize"]["capabilities"],
        json!({"elicitation": {"form": {}}, "sampling": {}, "roots": {"listChanged": false}})
    );
    let uri = url::Url::from_file_path(&root).unwrap().to_string();
    let name = root.file_name().unwrap().to_str().unwrap();
    assert_eq!(
        r.response("roots")["result"],
        json!({"roots": [{"uri": uri, "name": name}]})
    );
}

#[test]
fn stdio_url_only_rejects_forms() {
    let r = stdio(&["--call", "probe", "--modes", "url", "--action", "cancel"]);
    assert_eq!(r.code, 1, "stderr: {}", r.stderr);
    assert_eq!(
        r.record()["initialize"]["capabilities"],
        json!({"elicitation": {"url": {}}})
    );
    assert_eq!(r.response("form")["error"]["code"], -32602);
    assert_eq!(r.response("url")["result"], json!({"action": "cancel"}));
    assert_eq!(r.events.len(), 2);
    assert_eq!(r.events[0]["payload"]["elicitation"]["mode"], "url");
}

#[test]
fn an_answer_the_form_refuses_gets_an_error_and_no_result() {
    // A required field with no default: "submit as shown" is not valid.
    let r = stdio(&[
        "--call",
        "probe",
        "--args",
        r#"{"case":"required"}"#,
        "--action",
        "accept",
    ]);
    assert_eq!(r.code, 1, "stderr: {}", r.stderr);
    let resp = r.response("required");
    assert_eq!(resp["error"]["code"], -32603);
    // The server learns the answer was refused, not why (the reasons may
    // quote refused values); the person reads why on stderr.
    let said = resp["error"]["message"].as_str().unwrap();
    assert!(
        said.ends_with(": the client has no answer it can send (why is said to the person only)"),
        "{said}"
    );
    assert!(!said.contains("'code'"), "{said}");
    assert!(r.stderr.contains("'code' required"), "{}", r.stderr);
    // The request event is written; no result event.
    assert_eq!(r.events.len(), 1);
    assert_eq!(r.events[0]["type"], "user.elicitation.request");
}

#[test]
fn without_call_the_tools_are_listed() {
    let r = stdio(&["--action", "cancel"]);
    assert_eq!(r.code, 0, "stderr: {}", r.stderr);
    let listed = r.json();
    let names: Vec<&str> = listed["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["probe", "other"]);
    assert!(r.stderr.contains("offers 2 tool(s)"));
    assert!(r.stderr.contains("  probe  Sends elicitations"));
    assert!(r.events.is_empty());
}

#[test]
fn a_tool_error_exits_1() {
    let r = stdio(&["--call", "missing", "--action", "cancel"]);
    r.assert_said(1, "tools/call failed: JSON-RPC error -32602: unknown tool");
    assert!(r.stderr.contains("did not list a tool 'missing'"));
}

#[test]
fn usage_errors_exit_2() {
    let r = run(&["--action", "accept"]);
    r.assert_said(2, "give the server");
    let r = run(&[
        "--action",
        "accept",
        "--modes",
        "form,telepathy",
        "--",
        "true",
    ]);
    r.assert_said(2, "'telepathy' is not form or url");
    let r = run(&["--action", "accept", "--args", "[1]", "--", "true"]);
    r.assert_said(2, "--args must be a JSON object");
    // Arguments with nothing to give them to are refused, not dropped.
    let r = run(&["--action", "accept", "--args", "{}", "--", "true"]);
    r.assert_said(
        2,
        "--args gives the arguments of --call TOOL or --prompt NAME: name one",
    );
    // A server address without its scheme is run as a command, and the
    // error says how to give it.
    let r = run(&["--action", "accept", "127.0.0.1:9/mcp"]);
    r.assert_said(
        2,
        "is it a server's address? Give the URL with its scheme: http://127.0.0.1:9/mcp",
    );
    // A URL of another scheme is not run as a command.
    let r = run(&["--action", "accept", "ftp://x/mcp"]);
    r.assert_said(
        2,
        "'ftp://x/mcp': a server URL starts with http:// or https://",
    );
    assert!(!r.stderr.contains("could not start"), "{}", r.stderr);
    let out = Command::new(BIN)
        .args([
            "mcp",
            "--action",
            "accept",
            "--events",
            "/nonexistent/dir/ev.jsonl",
            "--",
            "true",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("events file: /nonexistent/dir/ev.jsonl"));
    let r = run(&["http://127.0.0.1:9/mcp", "--action", "accept"]);
    r.assert_said(2, "give the flags before the URL");
    let r = run(&["--action", "accept", "--", "/nonexistent/mcp-server"]);
    r.assert_said(2, "could not start the server");
    // A server that exits at once, having said nothing: started once
    // more for the older handshake, then said with its status, once.
    let r = run(&["--action", "accept", "--", "true"]);
    r.assert_said(
        2,
        "the server exited with status 0 before answering server/discover, and again before answering initialize",
    );
    assert_eq!(r.stderr.matches("status 0").count(), 1, "{}", r.stderr);
}

/// The fake server over HTTP with more flags (`--modern`, `--mixed`),
/// killed on drop.
pub(crate) fn fake_http(flags: &[&str]) -> HttpServer {
    let mut child = Command::new(python())
        .arg(fake_server())
        .arg("--http")
        .args(flags)
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let port = line.trim().strip_prefix("PORT ").expect("PORT line");
    HttpServer::of(child, format!("http://127.0.0.1:{port}/mcp"))
}

#[test]
fn streamable_http_with_session_and_version_headers() {
    let srv = fake_http(&[]);
    let r = run(&["--call", "probe", "--action", "accept", &srv.url]);
    // The bad-mode and invalid requests got no answer: exit 1.
    assert_eq!(r.code, 1, "stderr: {}", r.stderr);
    assert_eq!(r.response("ping")["result"], json!({}));
    assert_eq!(
        r.response("form")["result"],
        json!({"action": "accept", "content": {"name": "Ada", "age": 36}})
    );
    assert_eq!(r.response("url")["result"], json!({"action": "accept"}));
    assert_eq!(r.response("bad-mode")["error"]["code"], -32602);
    assert_eq!(r.response("invalid")["error"]["code"], -32602);
    assert_eq!(r.response("roots")["error"]["code"], -32601);

    let all = r.record()["headers"].as_array().unwrap().clone();
    // The 2026-07-28 question first (no session, its version header); this
    // server speaks only 2025-11-25, so the handshake follows.
    assert_eq!(
        all[0],
        json!({"method": "server/discover", "accept": "application/json, text/event-stream", "session": null, "version": "2026-07-28"})
    );
    let headers = all[1..].to_vec();
    // initialize: no session yet, no version header; both Accept types.
    assert_eq!(
        headers[0],
        json!({"method": "initialize", "accept": "application/json, text/event-stream", "session": null, "version": null})
    );
    // Every later request carries the session and the protocol version.
    for h in &headers[1..] {
        assert_eq!(h["session"], "sess--1", "{h}");
        assert_eq!(h["version"], "2025-11-25", "{h}");
    }
    let methods: Vec<&str> = headers
        .iter()
        .map(|h| h["method"].as_str().unwrap())
        .collect();
    assert_eq!(
        &methods[..5],
        [
            "initialize",
            "notifications/initialized",
            "GET",
            "tools/list",
            "tools/call"
        ]
    );
    // Six answers to the server's six requests, each its own POST.
    assert_eq!(methods.iter().filter(|m| **m == "(response)").count(), 6);
    assert_eq!(headers[2]["accept"], "text/event-stream");

    assert_eq!(r.events.len(), 4);
    assert_eq!(r.events[0]["source"]["adapter"], "mcp-http");
    assert!(!r.stderr.contains('\u{1b}'));
}

#[test]
fn an_http_url_is_taken_as_the_trailing_argument_after_flags() {
    // As the conformance suite calls it: flags first, the URL appended last.
    let srv = fake_http(&[]);
    let r = run(&[
        "--action", "decline", "--call", "probe", "--modes", "form", &srv.url,
    ]);
    // The URL request (mode not advertised) and the invalid ones: exit 1.
    assert_eq!(r.code, 1, "stderr: {}", r.stderr);
    assert_eq!(r.response("form")["result"], json!({"action": "decline"}));
    assert_eq!(r.response("url")["error"]["code"], -32602);
}

mod library {
    //! The session through the library API with responders that quit.
    use super::*;
    use ahp_elicit::binding::RequestEvent;
    use ahp_elicit::mcp::{run_session, McpError, McpOptions, Operation, Target};
    use ahp_elicit::responder::{Context, Outcome, RespondError, Responder};
    use std::time::Duration;

    struct Quitter {
        calls: usize,
        idle_quits: bool,
    }

    impl Responder for Quitter {
        fn respond(&mut self, _r: &RequestEvent, _cx: &Context) -> Result<Outcome, RespondError> {
            self.calls += 1;
            Ok(Outcome::Quit)
        }
        fn idle(&mut self, _wait: Duration) -> bool {
            self.idle_quits
        }
    }

    fn opts(program: &str, args: Vec<String>) -> McpOptions {
        let mut o = McpOptions::new(Target::Stdio {
            program: program.into(),
            args,
        });
        o.operation = Operation::Tool("probe".into());
        // The probe's nested-object form is meant to be refused (-32602).
        o.schema_policy = ahp_elicit::binding::SchemaPolicy::Strict;
        o
    }

    #[test]
    fn quit_on_a_form_cancels_it_and_ends_the_session() {
        let mut q = Quitter {
            calls: 0,
            idle_quits: false,
        };
        let err = run_session(&opts(python(), vec![fake_server()]), &mut q).unwrap_err();
        // Asked once, answered cancel, then the session ends (exit 130).
        assert!(matches!(err, McpError::Quit), "{err:?}");
        assert_eq!(q.calls, 1);
    }

    #[test]
    fn the_servers_stderr_reaches_a_collecting_notice_sink_sanitized() {
        let mut q = Quitter {
            calls: 0,
            idle_quits: false,
        };
        let mut o = opts(python(), vec![fake_server()]);
        let (notices, kept) = ahp_elicit::notice::Notices::collect();
        o.notices = notices;
        let err = run_session(&o, &mut q).unwrap_err();
        assert!(matches!(err, McpError::Quit), "{err:?}");
        // The fake server's first stderr line carries raw ESC sequences:
        // the sink gets them escaped, with the "server:" prefix.
        let said = kept.texts();
        let line = r"ahp-elicit: server: fake server ready \u{1b}[31mred\u{1b}[0m";
        assert!(said.iter().any(|s| s == line), "{said:#?}");
        assert!(said.iter().all(|s| !s.contains('\u{1b}')), "{said:#?}");
    }

    #[test]
    fn quitting_while_waiting_ends_the_session() {
        let mut q = Quitter {
            calls: 0,
            idle_quits: true,
        };
        // A "server" that never answers; stdin closing ends it.
        let args = vec!["-c".into(), "import sys; sys.stdin.read()".into()];
        let err = run_session(&opts(python(), args), &mut q).unwrap_err();
        assert!(matches!(err, McpError::Quit), "{err:?}");
        assert_eq!(q.calls, 0);
    }
}

#[test]
fn url_elicitation_required_is_put_to_the_person_then_retried() {
    let r = stdio(&["--call", "gated", "--action", "accept"]);
    assert_eq!(r.code, 0, "stderr: {}", r.stderr);
    assert_eq!(r.json()["content"][0]["text"], "gate open");
    assert!(r
        .stderr
        .contains("needs 1 URL elicitation(s) first (error -32042)"));
    assert_eq!(r.events.len(), 2);
    assert_eq!(r.events[0]["payload"]["elicitation"]["mode"], "url");
    assert_eq!(r.events[1]["payload"]["elicitation"]["action"], "accept");
    // Declined: no retry; the -32042 error is the outcome.
    let r = stdio(&["--call", "gated", "--action", "decline"]);
    r.assert_said(1, "JSON-RPC error -32042: authorization needed");
    assert_eq!(r.events.len(), 2);
    assert_eq!(r.events[1]["payload"]["elicitation"]["action"], "decline");
    // Not advertised: the URL elicitation is refused, no event.
    let r = stdio(&["--call", "gated", "--modes", "form", "--action", "accept"]);
    assert_eq!(r.code, 1);
    assert!(r.events.is_empty());
}

// ---- The live session: the server is served while a screen is open. ----

mod live {
    use super::*;
    use ahp_elicit::binding::RequestEvent;
    use ahp_elicit::mcp::{run_session, McpOptions, Operation, Target};
    use ahp_elicit::responder::{Context, Outcome, RespondError, Responder};
    use std::time::{Duration, Instant};

    /// Keeps every form open (as a person who does not answer) until its
    /// source withdraws it; records how long it was open.
    struct Slow {
        open_for: Vec<Duration>,
        withdrawn: Vec<bool>,
    }

    impl Responder for Slow {
        fn respond(&mut self, _r: &RequestEvent, cx: &Context) -> Result<Outcome, RespondError> {
            let start = Instant::now();
            crate::common::came_true(Duration::from_secs(60), || cx.withdrawn());
            self.open_for.push(start.elapsed());
            self.withdrawn.push(cx.withdrawn());
            Ok(Outcome::Answer(ahp_elicit::binding::Answer::bare(
                ahp_elicit::binding::Action::Accept,
            )))
        }
    }

    /// Answers every request decline, after a person's pause.
    struct Pondering(Duration);

    impl Responder for Pondering {
        fn respond(&mut self, _r: &RequestEvent, _cx: &Context) -> Result<Outcome, RespondError> {
            // The person's pause is what the test is about (a server that
            // waits that long): a clock by design.
            std::thread::sleep(self.0);
            Ok(Outcome::Answer(ahp_elicit::binding::Answer::bare(
                ahp_elicit::binding::Action::Decline,
            )))
        }
    }

    /// The time a form is open is not counted against --call-timeout: a
    /// person who takes longer than it still gets the answer through.
    #[test]
    fn the_call_timeout_stops_while_a_form_is_open() {
        let mut o = McpOptions::new(Target::Stdio {
            program: python().into(),
            args: vec![fake_server()],
        });
        o.operation = Operation::Tool("probe".into());
        o.arguments = json!({"case": "required"}).as_object().unwrap().clone();
        o.call_timeout = Duration::from_secs(1);
        let report = run_session(&o, &mut Pondering(Duration::from_secs(3))).unwrap();
        assert_eq!(
            report.result["structuredContent"]["responses"]["required"]["result"],
            json!({"action": "decline"})
        );
    }

    #[test]
    fn ping_is_answered_while_a_form_is_open_and_cancel_withdraws_it() {
        let mut o = McpOptions::new(Target::Stdio {
            program: python().into(),
            args: vec![fake_server()],
        });
        o.operation = Operation::Tool("probe".into());
        o.arguments = json!({"case": "hold", "delay": 5})
            .as_object()
            .unwrap()
            .clone();
        let (notices, kept) = ahp_elicit::notice::Notices::collect();
        o.notices = notices;
        let mut slow = Slow {
            open_for: Vec::new(),
            withdrawn: Vec::new(),
        };
        let report = run_session(&o, &mut slow).unwrap();
        // The withdrawal is said through the session's notice sink.
        let said = kept.texts();
        let withdrawn = "ahp-elicit: the server withdrew this request (took too long)";
        assert!(said.iter().any(|s| s == withdrawn), "{said:#?}");
        let rec = &report.result["structuredContent"];
        // The ping came 5 s after the form appeared and was answered while
        // the form was still open.
        assert_eq!(rec["ping"], json!({"id": 1002, "result": {}}));
        let ping_ms = rec["ping_ms"].as_f64().unwrap();
        eprintln!("ping answered in {ping_ms:.1} ms with a form open for 5 s");
        // Hang detection only (the measured figure is printed above).
        assert!(ping_ms < 3000.0, "ping took {ping_ms} ms");
        // notifications/cancelled closed the form; nothing was sent for it.
        assert_eq!(slow.withdrawn, vec![true]);
        assert!(
            slow.open_for[0] >= Duration::from_millis(4500),
            "{:?}",
            slow.open_for
        );
        assert_eq!(rec["late"], Value::Null);
        assert_eq!(report.answered, 0);
    }

    /// Keeps the first form open until the server has read the client's
    /// refusal of the second request under the same id (its record file
    /// holds the -32600), then declines it.
    struct HoldUntilRefused {
        record: std::path::PathBuf,
        asked: Vec<String>,
    }

    impl Responder for HoldUntilRefused {
        fn respond(&mut self, r: &RequestEvent, _cx: &Context) -> Result<Outcome, RespondError> {
            self.asked.push(r.id.clone());
            // Hang detection only: the refusal comes at once.
            crate::common::came_true(Duration::from_secs(30), || {
                std::fs::read_to_string(&self.record)
                    .unwrap_or_default()
                    .contains("-32600")
            });
            Ok(Outcome::Answer(ahp_elicit::binding::Answer::bare(
                ahp_elicit::binding::Action::Decline,
            )))
        }
    }

    #[test]
    fn a_second_request_under_an_open_id_is_refused_and_the_first_answered() {
        let dir = tempfile::tempdir().unwrap();
        let record = dir.path().join("received.jsonl");
        let mut o = McpOptions::new(Target::Stdio {
            program: "env".into(),
            args: vec![
                format!("FAKE_RECORD={}", record.display()),
                python().into(),
                fake_server(),
            ],
        });
        o.operation = Operation::Tool("probe".into());
        o.arguments = json!({"case": "dupid"}).as_object().unwrap().clone();
        let mut hold = HoldUntilRefused {
            record,
            asked: Vec::new(),
        };
        let report = run_session(&o, &mut hold).unwrap();
        let rec = &report.result["structuredContent"];
        let id = rec["id"].clone();
        assert!(id.is_u64(), "{rec}");
        // The duplicate is refused at once; the first request, still open
        // then, is answered afterwards under its id; nothing else is sent.
        assert_eq!(
            rec["answers"],
            json!([
                {"id": id, "error": {"code": -32600, "message": "a request with this id is still open"}},
                {"id": id, "result": {"action": "decline"}},
            ])
        );
        assert_eq!(hold.asked.len(), 1, "{:?}", hold.asked);
        assert_eq!(report.answered, 1);
        assert_eq!(
            report.rejected.kept,
            vec![format!(
                "a request with this id is still open (elicitation/create id {id})"
            )]
        );
    }

    #[test]
    fn progress_for_the_call_is_shown_and_others_are_not() {
        let r = stdio(&[
            "--call",
            "probe",
            "--args",
            r#"{"case":"progress"}"#,
            "--action",
            "accept",
        ]);
        assert_eq!(r.code, 0, "{}", r.stderr);
        let token = r.record()["token"].as_str().unwrap().to_owned();
        assert!(token.contains("-call-"), "{token}");
        assert_eq!(
            r.stderr.matches("the tool reports progress").count(),
            1,
            "{}",
            r.stderr
        );
        assert!(r.stderr.contains("the tool reports progress 1/2: half"));
    }

    #[test]
    fn url_required_waits_for_the_completion_then_retries_once() {
        // The completion comes 1 s after the error; the retry after it.
        let r = stdio(&[
            "--call",
            "gated",
            "--args",
            r#"{"delay":1,"twice":true}"#,
            "--action",
            "accept",
        ]);
        assert_eq!(r.code, 0, "{}", r.stderr);
        let rec = r.record();
        assert_eq!(rec["retry_after_complete"], true);
        // Two tools/call in all: the first and one retry.
        let calls = rec["received"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|m| *m == "tools/call")
            .count();
        assert_eq!(calls, 2);
        // The same elicitationId twice: consent asked once (one request
        // event, one result event).
        assert_eq!(r.events.len(), 2, "{:?}", r.events);
        assert!(r.stderr.contains("waiting for the browser flow"));
        assert!(r
            .stderr
            .contains("the server reports URL elicitation 'el-1' complete"));

        // No completion ever: --timeout bounds the wait, then one retry.
        let r = stdio(&[
            "--call",
            "gated",
            "--args",
            r#"{"delay":-1}"#,
            "--timeout",
            "1",
            "--action",
            "accept",
        ]);
        assert_eq!(r.code, 0, "{}", r.stderr);
        assert_eq!(r.record()["retry_after_complete"], false);
        assert!(r
            .stderr
            .contains("no completion within 1 s; retrying the call anyway"));
    }

    #[test]
    fn a_server_that_never_answers_initialize_times_out() {
        let start = Instant::now();
        let r = run(&[
            "--connect-timeout",
            "1",
            "--action",
            "accept",
            "--",
            python(),
            "-c",
            "import sys; sys.stdin.read()",
        ]);
        assert_eq!(r.code, 2, "{}", r.stderr);
        // One --connect-timeout for the question and the fallback, said
        // as given.
        assert!(
            r.stderr.contains(
                "no answer to server/discover or initialize within 1 s (--connect-timeout)"
            ),
            "{}",
            r.stderr
        );
        // Hang detection only.
        assert!(start.elapsed() < Duration::from_secs(20));
        let r = run(&[
            "--connect-timeout",
            "1.5s",
            "--protocol",
            "2025-11-25",
            "--action",
            "accept",
            "--",
            python(),
            "-c",
            "import sys; sys.stdin.read()",
        ]);
        assert!(
            r.stderr
                .contains("no answer to initialize within 1.5 s (--connect-timeout)"),
            "{}",
            r.stderr
        );
    }

    /// A server that crashes at start is started once more for the older
    /// handshake (it may only have refused server/discover), then said
    /// once with its exit status and last stderr line.
    #[test]
    fn a_server_that_crashes_at_start_is_started_once_more_then_named_once() {
        let dir = tempfile::tempdir().unwrap();
        let starts = dir.path().join("starts");
        let code = format!(
            "import sys; open({:?}, 'a').write('x'); sys.stderr.write('Traceback\\nImportError: no module named mcp\\n'); sys.exit(3)",
            starts.display().to_string()
        );
        let r = run(&[
            "--call",
            "x",
            "--action",
            "accept",
            "--",
            python(),
            "-c",
            &code,
        ]);
        r.assert_said(2, "the server exited with status 3 before answering server/discover, and again before answering initialize (its last stderr line: ImportError: no module named mcp)");
        assert_eq!(
            r.stderr
                .matches("the server exited when asked server/discover: starting it again for the MCP 2025-11-25 handshake")
                .count(),
            1,
            "{}",
            r.stderr
        );
        // Started twice: the second time for the handshake, no more.
        assert_eq!(std::fs::read_to_string(&starts).unwrap(), "xx");
        // In the older revision too.
        let r = run(&[
            "--protocol",
            "2025-11-25",
            "--call",
            "x",
            "--action",
            "accept",
            "--",
            python(),
            "-c",
            &code,
        ]);
        assert!(
            r.stderr
                .contains("the server exited with status 3 before answering initialize"),
            "{}",
            r.stderr
        );
    }

    #[test]
    fn sigterm_ends_the_stdio_server_even_a_stubborn_one() {
        let dir = tempfile::tempdir().unwrap();
        let pid_file = dir.path().join("server.pid");
        let mut child = ahp_in(dir.path())
            .args(["mcp", "--call", "silent", "--action", "accept", "--"])
            .arg(python())
            .arg(fake_server())
            .env("FAKE_PID_FILE", &pid_file)
            .env("FAKE_STUBBORN", "1")
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // Wait until the call is in flight (the server listed its tools).
        let mut err = BufReader::new(child.stderr.take().unwrap());
        let mut seen = String::new();
        while !seen.contains("calling it anyway") {
            let mut line = String::new();
            assert!(err.read_line(&mut line).unwrap() > 0, "{seen}");
            seen.push_str(&line);
        }
        let server: i32 = std::fs::read_to_string(&pid_file)
            .unwrap()
            .trim()
            .parse()
            .unwrap();
        assert!(alive(server));
        signal(child.id(), "TERM");
        let status = child.wait().unwrap();
        let mut rest = String::new();
        let _ = std::io::Read::read_to_string(&mut err, &mut rest);
        assert_eq!(status.code(), Some(143), "{seen}{rest}");
        // Ignoring stdin's end and SIGTERM, the server got SIGKILL.
        assert!(!alive(server), "the server {server} is still running");
        assert!(rest.contains("killing it"), "{rest}");
    }

    #[test]
    fn http_stream_dropped_is_resumed_with_last_event_id_after_retry() {
        let srv = fake_http(&[]);
        let r = run(&[
            "--call",
            "probe",
            "--args",
            r#"{"case":"drop"}"#,
            "--action",
            "accept",
            &srv.url,
        ]);
        assert_eq!(r.code, 0, "{}", r.stderr);
        assert_eq!(r.json()["content"][0]["text"], "resumed");
        let rec = r.record();
        assert_eq!(rec["last_event_id"], "d1");
        // The server's retry (300 ms) was waited for.
        assert!(rec["resume_ms"].as_f64().unwrap() >= 290.0, "{rec}");
    }

    #[test]
    fn http_404_for_the_session_reinitializes_once() {
        let srv = fake_http(&[]);
        let r = run(&[
            "--call",
            "probe",
            "--args",
            r#"{"case":"expire"}"#,
            "--action",
            "accept",
            &srv.url,
        ]);
        assert_eq!(r.code, 0, "{}", r.stderr);
        assert_eq!(r.json()["content"][0]["text"], "new session");
        let rec = r.record();
        assert_eq!(rec["inits"], 2);
        assert!(r
            .stderr
            .contains("the server ended the session (HTTP 404): initializing a new session once"));
        // The retried call carries the new session.
        let last = rec["headers"].as_array().unwrap().last().unwrap().clone();
        assert_eq!(last["method"], "tools/call");
        assert_eq!(last["session"], "sess-2");
    }

    #[test]
    fn http_redirects_are_not_followed() {
        let srv = fake_http(&[]);
        let url = srv.url.replace("/mcp", "/redirect");
        let r = run(&["--action", "accept", &url]);
        r.assert_said(2, "the server answered HTTP 307 redirecting to http://127.0.0.1:1/elsewhere: redirects are not followed");
    }
}

/// Run `validate` on `events`; asserts exit 0.
fn assert_validates(events: &std::path::Path) {
    let v = Command::new(BIN)
        .arg("validate")
        .arg(events)
        .output()
        .unwrap();
    assert_eq!(
        v.status.code(),
        Some(0),
        "validate: {}{}",
        String::from_utf8_lossy(&v.stdout),
        String::from_utf8_lossy(&v.stderr)
    );
}

/// The `--events` file records each event exactly as sent (it is readable
/// by its owner only): a URL with userinfo, query and fragment is kept, so
/// the event still validates and says what was asked.
#[test]
fn events_file_records_urls_as_sent_and_validates() {
    let dir = tempfile::tempdir().unwrap();
    let events = dir.path().join("events.jsonl");
    let server = fake_server();
    // A scripted accept of a URL with a user name before `@` needs a rule
    // that names its host.
    let answers = dir.path().join("answers.json");
    std::fs::write(
        &answers,
        r#"{"rules": [{"match": {"host": "evil.test"}, "answer": {"action": "accept"}}]}"#,
    )
    .unwrap();
    let r = mcp_in(
        dir.path(),
        [
            "--call",
            "gated",
            "--answers",
            answers.to_str().unwrap(),
            "--args",
            r#"{"url": "https://user:pw@evil.test/auth?x=1#frag"}"#,
            "--",
            python(),
            server.as_str(),
        ],
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    let text = std::fs::read_to_string(&events).unwrap();
    let first: Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    let req = first["payload"]["elicitation"]["request"]["text"]
        .as_str()
        .unwrap();
    let req: Value = serde_json::from_str(req).unwrap();
    assert_eq!(req["url"], "https://user:pw@evil.test/auth?x=1#frag");
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(&events).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o600);
    assert_validates(&events);
}

/// A form whose default (maxLength 12) and options are URLs with a query:
/// the recorded request keeps them (a redacted default would outgrow its
/// maxLength, two redacted options would be the same), so `validate`
/// accepts the file and the result says which option was chosen.
#[test]
fn events_file_keeps_url_defaults_and_options_valid() {
    let dir = tempfile::tempdir().unwrap();
    let events = dir.path().join("events.jsonl");
    let server = fake_server();
    let out = ahp_in(dir.path())
        .arg("mcp")
        .arg("--events")
        .arg(&events)
        .args(["--call", "probe", "--action", "accept", "--args"])
        .arg(r#"{"case": "links"}"#)
        .args(["--", python(), server.as_str()])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read_to_string(&events).unwrap();
    let lines: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 2, "{text}");
    assert_eq!(
        result_text(&lines[1])["content"],
        serde_json::json!({"site": "http://a.b?q", "mirror": "http://x.y?b"})
    );
    assert_validates(&events);
}

mod modern {
    //! MCP 2026-07-28 against the fake server's `--modern` mode (and the
    //! era choice against its 2025-11-25 modes), without `--protocol`.

    use super::*;

    /// `ahp-elicit mcp ARGS -- python3 fake --FLAGS`.
    fn stdio_with(flags: &[&str], args: &[&str]) -> Run {
        let server = fake_server();
        let mut all: Vec<&str> = args.to_vec();
        all.extend(["--", python(), server.as_str()]);
        all.extend(flags);
        run(&all)
    }

    fn calls(r: &Run) -> Vec<Value> {
        r.record()["calls"].as_array().expect("calls").clone()
    }

    fn meta_of(call: &Value) -> Value {
        call["params"]["_meta"].clone()
    }

    #[test]
    fn stdio_auto_speaks_2026_and_answers_an_input_required_round() {
        let r = stdio_with(
            &["--modern"],
            &[
                "--call",
                "mrtr",
                "--args",
                r#"{"case":"form"}"#,
                "--action",
                "accept",
            ],
        );
        r.assert_said(0, "connected to Fake MCP 0.0.1 (MCP 2026-07-28)");
        assert_eq!(r.stderr.matches("connected to").count(), 1, "{}", r.stderr);
        let calls = calls(&r);
        assert_eq!(calls.len(), 2);
        // Every request carries the 2026 _meta; the same name and arguments
        // both times.
        for c in &calls {
            let m = meta_of(c);
            assert_eq!(m["io.modelcontextprotocol/protocolVersion"], "2026-07-28");
            assert_eq!(
                m["io.modelcontextprotocol/clientInfo"]["name"],
                "ahp-elicit"
            );
            assert_eq!(
                m["io.modelcontextprotocol/clientCapabilities"],
                json!({"elicitation": {"form": {}, "url": {}}})
            );
            assert_eq!(c["params"]["name"], "mrtr");
            assert_eq!(c["params"]["arguments"], json!({"case": "form"}));
        }
        // The first carries no answers and no state; the retry carries the
        // answer under the key asked and the state byte for byte.
        assert!(calls[0]["params"].get("inputResponses").is_none());
        assert!(calls[0]["params"].get("requestState").is_none());
        assert_eq!(
            calls[1]["params"]["inputResponses"],
            json!({"form": {"action": "accept", "content": {"name": "Ada", "age": 36}}})
        );
        assert_eq!(
            calls[1]["params"]["requestState"],
            " st-1 {\"a\": \"\u{e9}\u{4e16}\", \"b\": [1, 2]} "
        );
        // One request event and one result event, both naming the revision;
        // the request names its key and the call.
        assert_eq!(r.events.len(), 2);
        assert_eq!(
            r.events[0]["extensions"]["mcp"],
            json!({"protocolVersion": "2026-07-28", "inputKey": "form",
                   "call": {"method": "tools/call", "name": "mrtr"}})
        );
        assert_eq!(
            r.events[1]["extensions"]["mcp"]["protocolVersion"],
            "2026-07-28"
        );
        assert_eq!(r.json()["content"][0]["text"], "mrtr done");
    }

    #[test]
    fn two_entries_are_asked_as_one_round_and_answered_under_their_keys() {
        let r = stdio_with(
            &["--modern"],
            &[
                "--call",
                "mrtr",
                "--args",
                r#"{"case":"two"}"#,
                "--action",
                "accept",
            ],
        );
        assert_eq!(r.code, 0, "stderr: {}", r.stderr);
        let calls = calls(&r);
        assert_eq!(
            calls[1]["params"]["inputResponses"],
            json!({
                "first": {"action": "accept", "content": {"name": "Ada", "age": 36}},
                "second": {"action": "accept", "content": {"colour": "blue"}}
            })
        );
        // Request events (a result event repeats its request's extension).
        let keys: Vec<&str> = r
            .events
            .iter()
            .filter(|e| e["payload"]["elicitation"].get("request").is_some())
            .filter_map(|e| e["extensions"]["mcp"]["inputKey"].as_str())
            .collect();
        assert_eq!(keys, ["first", "second"]);
    }

    #[test]
    fn a_url_entry_is_consent_then_the_retry_without_state() {
        let r = stdio_with(
            &["--modern"],
            &[
                "--call",
                "mrtr",
                "--args",
                r#"{"case":"url"}"#,
                "--action",
                "accept",
            ],
        );
        assert_eq!(r.code, 0, "stderr: {}", r.stderr);
        let calls = calls(&r);
        assert_eq!(
            calls[1]["params"]["inputResponses"],
            json!({"u": {"action": "accept"}})
        );
        // No requestState came, none is sent.
        assert!(calls[1]["params"].get("requestState").is_none());
        let req = &r.events[0];
        assert_eq!(req["extensions"]["mcp"]["inputKey"], "u");
        let text = crate::common::event_body(req, "request");
        // The params as the server sent them: no elicitationId made up.
        assert!(text.get("elicitationId").is_none(), "{text}");
        assert_eq!(text["url"], "https://example.com/auth");
    }

    #[test]
    fn state_only_rounds_are_sent_again_without_answers() {
        let r = stdio_with(
            &["--modern"],
            &[
                "--call",
                "mrtr",
                "--args",
                r#"{"case":"state-only"}"#,
                "--action",
                "accept",
            ],
        );
        assert_eq!(r.code, 0, "stderr: {}", r.stderr);
        let calls = calls(&r);
        let states: Vec<Value> = calls
            .iter()
            .map(|c| {
                c["params"]
                    .get("requestState")
                    .cloned()
                    .unwrap_or(Value::Null)
            })
            .collect();
        assert_eq!(states, [Value::Null, json!("wait-1"), json!("wait-2")]);
        assert!(calls
            .iter()
            .all(|c| c["params"].get("inputResponses").is_none()));
        assert!(r.events.is_empty());
        assert!(
            r.stderr.contains("is not done with tools/call 'mrtr' yet"),
            "{}",
            r.stderr
        );
    }

    #[test]
    fn rounds_are_capped_by_max_rounds() {
        let r = stdio_with(
            &["--modern"],
            &[
                "--call",
                "mrtr",
                "--args",
                r#"{"case":"forever"}"#,
                "--action",
                "accept",
                "--max-rounds",
                "2",
            ],
        );
        r.assert_said(1, "the server still asked for input after 2 round(s) of tools/call 'mrtr' (--max-rounds 2)");
        assert_eq!(r.stdout, "");
    }

    #[test]
    fn an_undeclared_input_request_is_the_servers_error_and_never_answered() {
        let r = stdio_with(
            &["--modern"],
            &[
                "--call",
                "mrtr",
                "--args",
                r#"{"case":"sampling"}"#,
                "--action",
                "accept",
            ],
        );
        r.assert_said(
            1,
            "asks for 'sampling/createMessage', which this client did not declare",
        );
        assert!(r.events.is_empty());
    }

    #[test]
    fn a_result_without_result_type_is_complete() {
        let r = stdio_with(
            &["--modern"],
            &[
                "--call",
                "mrtr",
                "--args",
                r#"{"case":"no-type"}"#,
                "--action",
                "accept",
            ],
        );
        assert_eq!(r.code, 0, "stderr: {}", r.stderr);
        assert_eq!(calls(&r).len(), 1);
    }

    #[test]
    fn prompts_and_resources_take_rounds_too() {
        let r = stdio_with(&["--modern"], &["--prompt", "greet", "--action", "decline"]);
        assert_eq!(r.code, 0, "stderr: {}", r.stderr);
        let c = calls(&r);
        assert_eq!(c[1]["method"], "prompts/get");
        assert_eq!(c[1]["params"]["name"], "greet");
        assert_eq!(
            c[1]["params"]["inputResponses"],
            json!({"form": {"action": "decline"}})
        );
        assert_eq!(
            r.events[0]["extensions"]["mcp"]["call"],
            json!({"method": "prompts/get", "name": "greet"})
        );
        let r = stdio_with(
            &["--modern"],
            &["--read", "fake://doc", "--action", "decline"],
        );
        assert_eq!(r.code, 0, "stderr: {}", r.stderr);
        let c = calls(&r);
        assert_eq!(c[1]["method"], "resources/read");
        assert_eq!(c[1]["params"]["uri"], "fake://doc");
    }

    #[test]
    fn forcing_2025_on_a_2026_only_server_names_its_versions() {
        let r = stdio_with(
            &["--modern"],
            &["--protocol", "2025-11-25", "--action", "accept"],
        );
        // The server cannot be spoken to in the revision asked: exit 2.
        r.assert_said(2, "JSON-RPC error -32022");
        r.assert_said(2, "it speaks: 2026-07-28");
    }

    /// `--protocol 2026-07-28` of a server that speaks only 2025-11-25
    /// (-32601 to server/discover): exit 2, with the way out.
    #[test]
    fn forcing_2026_on_a_2025_only_server_hints_to_drop_protocol() {
        let r = stdio_with(&[], &["--protocol", "2026-07-28", "--action", "accept"]);
        assert_eq!(r.code, 2, "stderr: {}", r.stderr);
        assert!(
            r.stderr.contains("server/discover failed: JSON-RPC error -32601")
                && r.stderr.contains(
                    "it speaks only MCP 2025-11-25 or older; drop --protocol, or give --protocol auto"
                ),
            "{}",
            r.stderr
        );
    }

    #[test]
    fn an_input_required_result_on_a_2025_session_is_never_success() {
        let r = stdio_with(&["--mixed"], &["--call", "probe", "--action", "accept"]);
        r.assert_said(1, "with an MCP 2026-07-28 result (resultType input_required) on an MCP 2025-11-25 session");
        assert_eq!(r.stdout, "");
    }

    #[test]
    fn a_2025_server_that_exits_on_discover_is_started_again() {
        let r = stdio_with(
            &["--exit-on-unknown"],
            &[
                "--call",
                "probe",
                "--args",
                r#"{"case":"links"}"#,
                "--action",
                "accept",
            ],
        );
        r.assert_said(0, "starting the server again");
        // The new process saw the handshake first.
        assert_eq!(r.record()["received"][0], "initialize");
        assert_eq!(r.record()["initialize"]["protocolVersion"], "2025-11-25");
    }

    /// A server over HTTP that holds `server/discover` open without an
    /// answer gets the handshake after half of --connect-timeout, said so,
    /// instead of an error when the whole limit ran out.
    #[test]
    fn an_http_server_that_never_answers_discover_gets_the_handshake() {
        let srv = super::fake_http(&["--ignore-unknown"]);
        let r = run(&[
            "--connect-timeout",
            "4",
            "--call",
            "probe",
            "--args",
            r#"{"case":"quiet"}"#,
            "--action",
            "accept",
            &srv.url,
        ]);
        r.assert_said(
            0,
            "the server does not answer server/discover as an MCP 2026-07-28 server (no answer to server/discover within 2 s",
        );
        assert!(
            r.stderr.contains("using MCP 2025-11-25 (initialize)"),
            "{}",
            r.stderr
        );
    }

    /// A server that exits, silent, on the unknown `server/discover` (as
    /// rmcp-based servers do) is started again for the handshake, said in
    /// one line.
    #[test]
    fn a_2025_server_that_exits_silently_on_discover_is_answered_after_a_second_start() {
        let r = stdio_with(
            &["--silent-exit-on-discover"],
            &[
                "--call",
                "probe",
                "--args",
                r#"{"case":"links"}"#,
                "--action",
                "accept",
            ],
        );
        assert_eq!(r.code, 0, "{}", r.stderr);
        r.assert_said(
            0,
            "the server exited when asked server/discover: starting it again for the MCP 2025-11-25 handshake",
        );
        assert_eq!(r.record()["received"][0], "initialize");
    }

    #[test]
    fn a_discover_refused_with_only_older_versions_falls_back_on_the_same_process() {
        let r = stdio_with(
            &["--discover-32022"],
            &[
                "--call",
                "probe",
                "--args",
                r#"{"case":"required"}"#,
                "--action",
                "decline",
            ],
        );
        r.assert_said(0, "it speaks: 2025-11-25, 2025-06-18");
        assert!(
            !r.stderr.contains("starting the server again"),
            "{}",
            r.stderr
        );
        assert_eq!(
            r.record()["received"],
            json!([
                "server/discover",
                "initialize",
                "notifications/initialized",
                "tools/list",
                "tools/call"
            ])
        );
    }

    #[test]
    fn a_missing_capability_is_explained_with_what_the_server_needs() {
        let r = stdio_with(
            &["--modern"],
            &["--modes", "url", "--call", "mrtr", "--action", "accept"],
        );
        r.assert_said(1, "JSON-RPC error -32021");
        r.assert_said(1, "the server needs a client capability this client did not declare (-32021): {\"elicitation\":{\"form\":{}}}");
    }

    #[test]
    fn a_2025_server_that_ignores_discover_is_started_again() {
        let r = stdio_with(
            &["--ignore-unknown"],
            &[
                "--call",
                "probe",
                "--args",
                r#"{"case":"links"}"#,
                "--action",
                "accept",
                "--connect-timeout",
                "2",
            ],
        );
        r.assert_said(0, "starting the server again");
        assert_eq!(r.record()["received"][0], "initialize");
    }

    #[test]
    fn http_2026_sends_the_request_headers_and_no_session() {
        let srv = fake_http(&["--modern"]);
        let r = run(&[
            "--call",
            "mrtr",
            "--args",
            r#"{"case":"form","region":"eu west"}"#,
            "--action",
            "accept",
            &srv.url,
        ]);
        assert_eq!(r.code, 0, "stderr: {}", r.stderr);
        let calls = calls(&r);
        assert_eq!(calls.len(), 2);
        for c in &calls {
            assert_eq!(
                c["headers"],
                json!({"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call",
                       "Mcp-Name": "mrtr", "Mcp-Param-Region": "eu west",
                       "Mcp-Session-Id": null, "X-Api-Key": null})
            );
        }
        assert_eq!(
            calls[1]["params"]["inputResponses"]["form"]["action"],
            "accept"
        );
        // The tool whose annotation breaks the rules is left out, said once.
        assert!(
            r.stderr.contains("left out the tool 'bad-header'"),
            "{}",
            r.stderr
        );
        // No GET stream, no DELETE.
        let rec = r.record();
        let methods: Vec<&str> = rec["headers"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|h| h["method"].as_str())
            .collect();
        assert!(
            !methods.contains(&"GET") && !methods.contains(&"DELETE"),
            "{methods:?}"
        );
        assert_eq!(methods[0], "server/discover");
    }

    #[test]
    fn http_2026_never_calls_a_tool_left_out_for_its_annotations() {
        let srv = fake_http(&["--modern"]);
        let r = run(&["--call", "bad-header", "--action", "accept", &srv.url]);
        r.assert_said(1, "the tool 'bad-header' is not called");
        assert_eq!(r.stdout, "");
    }

    #[test]
    fn sigint_closes_the_stream_of_a_2026_http_call_in_flight() {
        let srv = fake_http(&["--modern"]);
        let record_url = srv.url.replace("/mcp", "/record");
        let get = || -> Value {
            let out = Command::new(python())
                .args([
                    "-c",
                    "import sys, urllib.request; print(urllib.request.urlopen(sys.argv[1]).read().decode())",
                    &record_url,
                ])
                .output()
                .unwrap();
            serde_json::from_slice(&out.stdout).unwrap_or(Value::Null)
        };
        let dir = tempfile::tempdir().unwrap();
        let mut child = ahp_in(dir.path())
            .args([
                "mcp",
                "--call",
                "mrtr",
                "--args",
                r#"{"case":"silent"}"#,
                "--action",
                "accept",
                &srv.url,
            ])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // Wait (a safety net, not a measure) until the call is in flight.
        crate::common::came_true(std::time::Duration::from_secs(30), || {
            get()["silent"].as_array().is_some_and(|a| !a.is_empty())
        });
        signal(child.id(), "INT");
        let status = child.wait().unwrap();
        assert_eq!(status.code(), Some(130));
        crate::common::came_true(std::time::Duration::from_secs(30), || {
            get()["closed"].as_array().is_some_and(|a| !a.is_empty())
        });
        let rec = get();
        // The stream of the call was closed (its id), which is the
        // cancellation over HTTP; no notification was posted.
        assert_eq!(rec["closed"], rec["silent"], "{rec}");
        let received = rec["received"].as_array().unwrap();
        assert!(
            !received.contains(&json!("notifications/cancelled")),
            "{rec}"
        );
    }

    #[test]
    fn http_header_values_reach_the_server_and_nothing_else() {
        let srv = fake_http(&["--modern"]);
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("log.jsonl");
        let log_s = log.to_string_lossy().into_owned();
        let r = {
            let events = dir.path().join("events.jsonl");
            let out = ahp_in(dir.path())
                .arg("mcp")
                .arg("--events")
                .arg(&events)
                .args(["--log", &log_s, "--header", "X-Api-Key: env:FAKE_TOKEN"])
                .args(["--call", "mrtr", "--action", "accept", &srv.url])
                .env("FAKE_TOKEN", "tok-s3cret-42")
                .output()
                .unwrap();
            let ev = std::fs::read_to_string(&events).unwrap_or_default();
            (out, ev)
        };
        let (out, events) = r;
        let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        assert_eq!(out.status.code(), Some(0), "{stderr}");
        let v: Value = serde_json::from_str(&stdout).unwrap();
        let calls = v["structuredContent"]["calls"].as_array().unwrap();
        assert_eq!(calls[0]["headers"]["X-Api-Key"], "tok-s3cret-42");
        let logged = std::fs::read_to_string(&log).unwrap_or_default();
        for (what, text) in [("stderr", &stderr), ("events", &events), ("log", &logged)] {
            assert!(!text.contains("tok-s3cret-42"), "{what}: {text}");
        }
    }

    /// A server that quotes the credential it got (in a form's message,
    /// then in its error) has it redacted from stderr, --log and --events.
    #[test]
    fn a_credential_quoted_back_by_the_server_is_redacted_everywhere() {
        let srv = fake_http(&["--modern"]);
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("log.jsonl");
        let events = dir.path().join("events.jsonl");
        let out = ahp_in(dir.path())
            .arg("mcp")
            .arg("--events")
            .arg(&events)
            .arg("--log")
            .arg(&log)
            .args(["--header", "Authorization: env:FAKE_AUTH"])
            .args(["--call", "mrtr", "--args", r#"{"case":"echo-auth"}"#])
            .args(["--action", "decline", &srv.url])
            .env("FAKE_AUTH", "Bearer TOPSECRET-123")
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        let events = std::fs::read_to_string(&events).unwrap_or_default();
        let logged = std::fs::read_to_string(&log).unwrap_or_default();
        assert_eq!(out.status.code(), Some(1), "{stderr}");
        assert!(
            stderr.contains("token [redacted] is not allowed"),
            "{stderr}"
        );
        assert!(
            events.contains("token [redacted] is not allowed"),
            "{events}"
        );
        assert!(
            logged.contains("token [redacted] is not allowed"),
            "{logged}"
        );
        for (what, text) in [("stderr", &stderr), ("events", &events), ("log", &logged)] {
            assert!(!text.contains("TOPSECRET"), "{what}: {text}");
        }
    }

    #[test]
    fn http_auto_on_a_2025_server_falls_back_to_initialize() {
        let srv = fake_http(&[]);
        let r = run(&[
            "--call",
            "probe",
            "--args",
            r#"{"case":"required"}"#,
            "--action",
            "decline",
            &srv.url,
        ]);
        r.assert_said(0, "(MCP 2025-11-25)");
        assert_eq!(
            r.events[0]["extensions"]["mcp"],
            json!({"protocolVersion": "2025-11-25",
                   "call": {"method": "tools/call", "name": "probe"}})
        );
    }

    #[test]
    fn an_http_error_page_is_one_line_with_a_hint() {
        let srv = fake_http(&[]);
        let url = srv.url.replace("/mcp", "/nothing-here");
        let r = run(&["--protocol", "2025-11-25", "--action", "accept", &url]);
        assert_eq!(r.code, 2, "stderr: {}", r.stderr);
        let last = r.stderr.lines().last().unwrap_or("");
        assert!(
            last.contains("HTTP 404 Not Found")
                && last.contains(
                    "is /nothing-here the server's MCP endpoint? Most servers serve it at /mcp"
                ),
            "{}",
            r.stderr
        );
    }
}
