//! Answer rules, the way a CI job uses them, through the real binary:
//! `answers check` shows the choices before the run, `mcp` against the fake
//! server (one tool call asking three different forms) answers two by rule
//! and declines the third by an explicit catch-all, a request no rule
//! matches fails closed with each rule's reason, and `respond` matches on
//! `extensions.mcp` (call, protocol revision). The files are in
//! tests/fixtures/answers/.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use ahp_elicit::scripted::{schema_violations, Answers};
use serde_json::{json, Value};

fn fixture(name: &str) -> String {
    let answers = crate::common::root().join("tests/fixtures/answers");
    answers.join(name).display().to_string()
}

fn ahp(args: &[&str]) -> Output {
    Command::new(crate::common::BIN)
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("run ahp-elicit")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn json_lines(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect()
}

/// `answers check FILE EVENTS`: (request id, what it takes) per request
/// line, the part after the `(input:line)` place (lines of skipped events
/// left out).
fn dry_run(file: &str, events: &str) -> (i32, Vec<(String, String)>, String) {
    let o = ahp(&["answers", "check", file, events]);
    let out = text(&o.stdout);
    let choices = out
        .lines()
        .skip(1)
        // A recorded file holds results too: each is said and skipped.
        .filter(|l| !l.contains("): skipped, a "))
        .map(|l| {
            let (id, rest) = l.split_once(" (").expect("ID (INPUT:LINE): ...");
            let (_, what) = rest.split_once("): ").expect("place then choice");
            (id.to_owned(), what.to_owned())
        })
        .collect();
    (o.status.code().unwrap_or(-1), choices, out)
}

/// `(request id, rule pointer or null)` of each `answer-rule` log record.
fn rules_logged(log: &[Value]) -> Vec<(String, Value)> {
    log.iter()
        .filter(|r| r["event"] == "answer-rule")
        .map(|r| (r["id"].as_str().unwrap_or("").to_owned(), r["rule"].clone()))
        .collect()
}

struct McpRun {
    code: i32,
    result: Value,
    stderr: String,
    log: Vec<Value>,
    events: PathBuf,
    _dir: tempfile::TempDir,
}

/// `mcp --call probe --args {"case":"rules"} --answers RULES` against the
/// fake server over stdio, with --log and --events.
fn mcp_rules(rules: &str) -> McpRun {
    let dir = tempfile::tempdir().expect("tempdir");
    let log = dir.path().join("log.jsonl");
    let events = dir.path().join("events.jsonl");
    let server = crate::common::fake_server();
    let log_s = log.display().to_string();
    let r = crate::common::sdk::mcp_in(
        dir.path(),
        [
            "--call",
            "probe",
            "--args",
            r#"{"case":"rules"}"#,
            "--answers",
            rules,
            "--log",
            &log_s,
            "--",
            "python3",
            &server,
        ],
    );
    McpRun {
        code: r.code,
        result: serde_json::from_str(&r.stdout).unwrap_or(Value::Null),
        stderr: r.stderr,
        log: json_lines(&log),
        events,
        _dir: dir,
    }
}

#[test]
fn the_dry_run_shows_the_choices_before_the_run() {
    let (code, choices, out) = dry_run(
        &fixture("ci.rules.json"),
        &fixture("fake-server.requests.jsonl"),
    );
    assert_eq!(code, 0, "{out}");
    assert!(out.starts_with(&format!("{}: ok, 3 rules\n", fixture("ci.rules.json"))));
    assert_eq!(
        choices,
        [
            ("fake-booking", "rule 1 'booking' (/rules/0): accept"),
            ("fake-feedback", "rule 2 'feedback' (/rules/1): accept"),
            ("fake-offers", "rule 3 'anything else' (/rules/2): decline"),
        ]
        .map(|(a, b)| (a.to_owned(), b.to_owned()))
    );
}

#[test]
fn mcp_answers_two_forms_by_rule_and_declines_the_third_by_the_catch_all() {
    let r = mcp_rules(&fixture("ci.rules.json"));
    assert_eq!(r.code, 0, "stderr: {}", r.stderr);
    let got = &r.result["structuredContent"]["responses"];
    assert_eq!(
        got["booking"]["result"],
        json!({"action": "accept", "content": {"name": "Grace Hopper", "guests": 4}})
    );
    assert_eq!(
        got["feedback"]["result"],
        json!({"action": "accept", "content": {"rating": 5, "comment": "Lovely"}})
    );
    assert_eq!(got["offers"]["result"], json!({"action": "decline"}));
    // The log names the rule of each request, in order.
    let logged = rules_logged(&r.log);
    let rules: Vec<&Value> = logged.iter().map(|(_, rule)| rule).collect();
    assert_eq!(
        rules,
        [&json!("/rules/0"), &json!("/rules/1"), &json!("/rules/2")]
    );
    let named: Vec<&Value> = r
        .log
        .iter()
        .filter(|x| x["event"] == "answer-rule")
        .map(|x| &x["name"])
        .collect();
    assert_eq!(
        named,
        [
            &json!("booking"),
            &json!("feedback"),
            &json!("anything else")
        ]
    );
    // The dry run over the events this run recorded makes the same
    // choices for the same requests.
    let (code, choices, out) = dry_run(&fixture("ci.rules.json"), &r.events.to_string_lossy());
    assert_eq!(code, 0, "{out}");
    let pointers: Vec<(String, Value)> = choices
        .iter()
        .map(|(id, what)| {
            let ptr = what
                .split_once("(/rules/")
                .and_then(|(_, rest)| rest.split_once(')'))
                .map(|(n, _)| json!(format!("/rules/{n}")))
                .unwrap_or(Value::Null);
            (id.clone(), ptr)
        })
        .collect();
    assert_eq!(pointers, logged);
}

#[test]
fn mcp_fails_closed_on_a_request_no_rule_matches() {
    let r = mcp_rules(&fixture("no-catch-all.rules.json"));
    assert_eq!(r.code, 1, "stderr: {}", r.stderr);
    let got = &r.result["structuredContent"]["responses"];
    assert_eq!(got["booking"]["result"]["action"], "accept");
    assert_eq!(got["feedback"]["result"]["action"], "accept");
    // No answer is made up: the server gets an error, no result.
    assert_eq!(got["offers"]["error"]["code"], -32603, "{got}");
    // The server learns that there is no answer, not the rules' keys and
    // values (nor any value of the file).
    assert_eq!(
        got["offers"]["error"]["message"]
            .as_str()
            .and_then(|m| m.rsplit_once(": ").map(|(_, why)| why)),
        Some("the client has no answer it can send (why is said to the person only)"),
        "{got}"
    );
    assert!(got["offers"].get("result").is_none());
    let reason = "no rule of the answers file matches this form request from server \
'fake-mcp', call 'probe', fields ['email']: rule 1 'booking' (/rules/0): the message does not match \
/(?i)table/; fields are ['email'], not ['guests', 'name'] | rule 2 'feedback' (/rules/1): \
fields are ['email'], not ['comment', 'rating']";
    assert!(r.stderr.contains(reason), "stderr: {}", r.stderr);
    assert!(
        r.stderr.contains("1 elicitation(s) got no valid answer"),
        "{}",
        r.stderr
    );
    // The log says which keys of which rule did not hold, no values.
    let miss = r
        .log
        .iter()
        .find(|x| x["event"] == "answer-rule" && x["rule"].is_null())
        .expect("an answer-rule record without a rule");
    assert_eq!(
        miss["misses"],
        json!([
            {"rule": "/rules/0", "keys": ["message", "fields"]},
            {"rule": "/rules/1", "keys": ["fields"]}
        ])
    );
    // The dry run said so before the run.
    let (code, choices, _) = dry_run(
        &fixture("no-catch-all.rules.json"),
        &fixture("fake-server.requests.jsonl"),
    );
    assert_eq!(code, 1);
    assert_eq!(choices[2].0, "fake-offers");
    assert_eq!(choices[2].1, format!("no answer: {reason}"));
}

#[test]
fn respond_matches_the_call_and_the_protocol_revision() {
    let dir = tempfile::tempdir().expect("tempdir");
    let log = dir.path().join("log.jsonl");
    let o = ahp(&[
        "respond",
        "--answers",
        &fixture("revisions.rules.json"),
        "--log",
        &log.to_string_lossy(),
        &fixture("revisions.requests.jsonl"),
    ]);
    let err = text(&o.stderr);
    // The prompt's request matches no rule: exit 1, the others answered.
    assert_eq!(o.status.code(), Some(1), "{err}");
    let results: Vec<(String, String)> = text(&o.stdout)
        .lines()
        .map(|l| {
            let v: Value = serde_json::from_str(l).expect("result event");
            let e = &v["payload"]["elicitation"];
            (
                v["parentEventId"].as_str().unwrap_or("").to_owned(),
                e["action"].as_str().unwrap_or("").to_owned(),
            )
        })
        .collect();
    assert_eq!(
        results,
        [
            ("b-2026", "accept"),
            ("b-2025", "decline"),
            ("b-nocall", "cancel")
        ]
        .map(|(a, b)| (a.to_owned(), b.to_owned()))
    );
    assert_eq!(
        err.trim_end(),
        "ahp-elicit: request b-prompt (line 4): answer refused [answer-refused], no result: no rule of the \
answers file matches this form request from server 'bookings', call 'plan', protocolVersion \
2026-07-28, fields ['guests', 'name']: rule 1 'new era' (/rules/0): call is 'plan', not 'book' \
| rule 2 'old era' (/rules/1): call is 'plan', not 'book'; protocolVersion is 2026-07-28, \
not 2025-11-25 | rule 3 'no call' (/rules/2): protocolVersion is 2026-07-28, not 2025-11-25"
    );
    let logged: Vec<(String, Value)> = rules_logged(&json_lines(&log));
    assert_eq!(
        logged,
        [
            ("b-2026", json!("/rules/0")),
            ("b-2025", json!("/rules/1")),
            ("b-nocall", json!("/rules/2")),
            ("b-prompt", Value::Null),
        ]
        .map(|(a, b)| (a.to_owned(), b))
    );
}

/// Write `doc` into a temp file and run `answers check` on it alone.
fn check_doc(doc: &Value) -> (i32, String) {
    let dir = tempfile::tempdir().expect("tempdir");
    let p = dir.path().join("answers.json");
    std::fs::write(&p, doc.to_string()).expect("write");
    let o = ahp(&["answers", "check", &p.to_string_lossy()]);
    let out = text(&o.stdout).replace(&format!("{}: ", p.display()), "");
    (o.status.code().unwrap_or(-1), out)
}

#[test]
fn check_lists_the_faults_of_a_file_with_their_pointers() {
    let (code, out) = check_doc(&json!({"rules": [
        {"match": {"tool": "book"}, "answer": {"action": "decline"}},
        {"match": {"message": "(unclosed"}, "answer": {"action": "decline"}}
    ]}));
    assert_eq!(code, 1, "{out}");
    assert_eq!(
        out,
        "/rules/0/match: Additional properties are not allowed ('tool' was unexpected)\n\
/rules/1/match/message: the pattern does not compile: unclosed group (at character 1)\n"
    );
    let (code, out) = check_doc(&json!({"rules": [
        {"match": {"mode": "form"}, "answer": {"action": "decline"}},
        {"match": {"fields": ["a"]}, "answer": {"action": "accept", "content": {"a": 1}}},
        {"match": {"mode": "url", "fields": ["a"]}, "answer": {"action": "decline"}},
        {"match": {"fields": ["b"], "mode": "url"}, "answer": {"action": "cancel"}},
        {"match": {"mode": "url"}, "answer": {"action": "accept", "content": {"a": 1}}},
        {"match": {"server": "s", "fields": ["c"]}, "answer": {"action": "accept", "content": {"d": 1}}},
        {"match": {}, "answer": {"action": "cancel"}},
        {"match": {"server": "x"}, "answer": {"action": "cancel"}}
    ]}));
    assert_eq!(code, 1, "{out}");
    assert_eq!(
        out,
        "/rules/1: never matches: rule 1 (/rules/0) before it matches every request it would\n\
/rules/2: never matches: fields names form fields, and mode is url\n\
/rules/3: never matches: fields names form fields, and mode is url\n\
/rules/4: never answers: a URL-mode accept carries no content\n\
/rules/5: never matches: rule 1 (/rules/0) before it matches every request it would\n\
/rules/7: never matches: rule 7 (/rules/6) before it matches every request it would\n"
    );
    let (code, out) = check_doc(&json!({"rules": [
        {"match": {"server": "s", "fields": ["c"]}, "answer": {"action": "accept", "content": {"d": 1}}},
        {"match": {}, "answer": {"action": "cancel"}}
    ]}));
    assert_eq!(code, 1, "{out}");
    assert_eq!(
        out,
        "/rules/0: never answers: its content sets ['d'] that fields does not list\n"
    );
    // Today's two forms, with a $schema for editors.
    let (code, out) = check_doc(&json!({"$schema": "x", "action": "decline"}));
    assert_eq!(
        (code, out.as_str()),
        (0, "ok, one answer for every request\n")
    );
    let (code, out) = check_doc(&json!({"$schema": "x", "e-1": {"action": "decline"}}));
    assert_eq!(
        (code, out.as_str()),
        (0, "ok, an answer for 1 request id\n")
    );
}

#[test]
fn check_tells_rules_of_different_methods_apart() {
    // docs/answers.md's sampling example: the method keeps the three rules
    // apart, so none is covered by one before it.
    let (code, out) = check_doc(&json!({"rules": [
        {"name": "model", "match": {"method": "sampling/createMessage", "message": "(?i)capital of France"},
         "answer": {"action": "accept", "content": {"reply": "Paris"}}},
        {"match": {"method": "sampling/createMessage"}, "answer": {"action": "decline"}},
        {"match": {"method": "elicitation/create"}, "answer": {"action": "cancel"}}
    ]}));
    assert_eq!((code, out.as_str()), (0, "ok, 3 rules\n"));
    // A rule with no method still covers a later one with a method, and
    // the same method twice is caught.
    let (code, out) = check_doc(&json!({"rules": [
        {"match": {"method": "elicitation/create", "server": "s"}, "answer": {"action": "decline"}},
        {"match": {"method": "elicitation/create", "server": "s"}, "answer": {"action": "cancel"}},
        {"match": {"server": "t"}, "answer": {"action": "decline"}},
        {"match": {"method": "sampling/createMessage", "server": "t"}, "answer": {"action": "decline"}}
    ]}));
    assert_eq!(code, 1, "{out}");
    assert_eq!(
        out,
        "/rules/1: never matches: rule 1 (/rules/0) before it matches every request it would\n\
/rules/3: never matches: rule 3 (/rules/2) before it matches every request it would\n"
    );
}

/// `respond --answers ANSWERS` on the example stream.
fn respond_with_answers(answers: &str) -> std::process::Output {
    ahp(&[
        "respond",
        "--answers",
        answers,
        &example("stream.requests.jsonl"),
    ])
}

#[test]
fn a_misspelt_match_key_stops_the_run_before_anything_is_answered() {
    let dir = tempfile::tempdir().expect("tempdir");
    let rules = r#"{"rules": [{"match": {"sever": "deployer"}, "answer": {"action": "accept"}}]}"#;
    let p = crate::common::file_in(dir.path(), "answers.json", rules);
    let o = ahp(&[
        "respond",
        "--answers",
        &p.to_string_lossy(),
        "examples/stream.requests.jsonl",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(o.stdout.is_empty());
    assert!(
        text(&o.stderr).contains(
            "/rules/0/match/sever: unknown match key (method, server, call, mode, protocolVersion, message, fields, host)"
        ),
        "{}",
        text(&o.stderr)
    );
}

/// The JSON Schema (for editors) and the reader agree on what an answers
/// file is.
#[test]
fn the_schema_and_the_reader_agree() {
    let answer = json!({"action": "accept", "content": {"a": 1}});
    let good = [
        json!({"action": "decline"}),
        json!({"$schema": "s", "action": "accept", "content": {}}),
        json!({"e-1": {"action": "cancel"}, "e-2": answer}),
        json!({"$schema": "s", "rules": [{"match": {}, "answer": {"action": "cancel"}}]}),
        json!({"rules": [{"name": "n", "match": {"server": "s", "call": "c", "mode": "url",
            "protocolVersion": "2026-07-28", "message": "", "fields": []},
            "answer": {"action": "decline"}}]}),
        // An event id "rules" with an answer: a by-id file.
        json!({"rules": {"action": "decline"}}),
    ];
    let bad = [
        json!([]),
        json!({"action": "maybe"}),
        json!({"action": "decline", "content": {}}),
        json!({"e-1": {"action": "accept", "extra": 1}}),
        json!({"rules": []}),
        json!({"rules": [], "x": 1}),
        json!({"$schema": 1, "rules": [{"match": {}, "answer": {"action": "cancel"}}]}),
        json!({"$schema": 1, "action": "cancel"}),
        json!({"rules": [{"answer": {"action": "cancel"}}]}),
        json!({"rules": [{"match": {}}]}),
        json!({"rules": [{"match": {}, "answer": {"action": "cancel"}, "when": 1}]}),
        json!({"rules": [{"match": {"mode": "fax"}, "answer": {"action": "cancel"}}]}),
        json!({"rules": [{"match": {"protocolVersion": "2025-06-18"}, "answer": {"action": "cancel"}}]}),
        json!({"rules": [{"match": {"fields": ["a", "a"]}, "answer": {"action": "cancel"}}]}),
        json!({"rules": [{"match": {"fields": "a"}, "answer": {"action": "cancel"}}]}),
        json!({"rules": [{"match": {"server": ""}, "answer": {"action": "cancel"}}]}),
        json!({"rules": [{"match": {"call": 3}, "answer": {"action": "cancel"}}]}),
        json!({"rules": [{"match": [], "answer": {"action": "cancel"}}]}),
        json!({"rules": [{"name": "", "match": {}, "answer": {"action": "cancel"}}]}),
        json!({"rules": [{"match": {}, "answer": {"action": "decline", "content": {}}}]}),
    ];
    for d in &good {
        assert!(
            schema_violations(d).is_empty(),
            "{d}: {:?}",
            schema_violations(d)
        );
        assert!(Answers::from_value(d).is_ok(), "{d}");
    }
    for d in &bad {
        assert!(!schema_violations(d).is_empty(), "schema takes {d}");
        assert!(Answers::from_value(d).is_err(), "reader takes {d}");
    }
}

/// An answer the form refuses: the dry run says so, and the run gives
/// that request no result, with the same reason.
#[test]
fn the_dry_run_and_the_run_refuse_the_same_answer() {
    let dir = tempfile::tempdir().expect("tempdir");
    let rules = dir.path().join("rules.json");
    std::fs::write(
        &rules,
        json!({"rules": [
            {"match": {"fields": ["comment", "rating"]},
             "answer": {"action": "accept", "content": {"rating": 9}}},
            {"match": {}, "answer": {"action": "decline"}}
        ]})
        .to_string(),
    )
    .expect("write");
    let rules = rules.to_string_lossy().into_owned();
    let events = fixture("fake-server.requests.jsonl");
    let (code, choices, out) = dry_run(&rules, &events);
    assert_eq!(code, 1, "{out}");
    let (id, what) = &choices[1];
    assert_eq!(id, "fake-feedback");
    let reason = what
        .strip_prefix("rule 1 (/rules/0): accept, refused: ")
        .expect("a refused accept");
    assert!(reason.contains("'rating'"), "{reason}");
    let o = ahp(&["respond", "--answers", &rules, &events]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        text(&o.stderr).trim_end(),
        format!("ahp-elicit: request fake-feedback (line 2): answer refused [answer-refused], no result: {reason}")
    );
    let answered: Vec<String> = text(&o.stdout)
        .lines()
        .map(|l| {
            let v: Value = serde_json::from_str(l).expect("result");
            v["parentEventId"].as_str().unwrap_or("").to_owned()
        })
        .collect();
    assert_eq!(answered, ["fake-booking", "fake-offers"]);
}

/// A file in a temp dir with `text`; (dir, path).
fn temp_file(name: &str, text: &[u8]) -> (tempfile::TempDir, String) {
    let dir = tempfile::tempdir().expect("tempdir");
    let p = dir.path().join(name);
    std::fs::write(&p, text).expect("write");
    let p = p.to_string_lossy().into_owned();
    (dir, p)
}

fn example(name: &str) -> String {
    crate::common::examples_dir()
        .join(name)
        .display()
        .to_string()
}

/// A key given twice is not read last-wins: the run does not start (exit
/// 2) and the check fails (exit 1), both naming the key and its pointer.
#[test]
fn a_key_given_twice_is_refused_by_the_run_and_the_check() {
    let cases = [
        (
            r#"{"evt-stream-1": {"action": "decline"}, "evt-stream-1": {"action": "accept", "content": {"confirm": true}}}"#,
            "/evt-stream-1: [json] the key 'evt-stream-1' is given twice in one object",
        ),
        (
            r#"{"rules": [{"match": {"mode": "url", "mode": "form"}, "answer": {"action": "accept"}}]}"#,
            "/rules/0/match/mode: [json] the key 'mode' is given twice in one object",
        ),
        (
            r#"{"action": "decline", "action": "accept"}"#,
            "/action: [json] the key 'action' is given twice in one object",
        ),
    ];
    for (doc, said) in cases {
        let (_dir, p) = temp_file("answers.json", doc.as_bytes());
        let o = respond_with_answers(&p);
        assert_eq!(o.status.code(), Some(2), "{doc}");
        assert!(o.stdout.is_empty(), "{doc}: {}", text(&o.stdout));
        assert!(text(&o.stderr).contains(said), "{}", text(&o.stderr));
        let o = ahp(&["answers", "check", &p]);
        assert_eq!(o.status.code(), Some(1), "{doc}");
        assert!(text(&o.stdout).contains(said), "{}", text(&o.stdout));
    }
}

/// Every input line that is not a valid request event is named with its
/// place and fails the check, as it fails the run; a valid event of
/// another type is skipped, one line.
#[test]
fn the_check_names_every_input_that_is_not_a_valid_event() {
    let (_a, answers) = temp_file("answers.json", br#"{"action": "decline"}"#);
    let request = std::fs::read_to_string(example("stream.requests.jsonl")).expect("read");
    let request = request.lines().next().expect("a request");
    let result: Value = serde_json::from_str(
        &std::fs::read_to_string(example("form-every-kind.result.json")).expect("read"),
    )
    .expect("json");
    let result = result.to_string();
    // Valid: a request and a result, the result said and skipped.
    let (_e, events) = temp_file("ok.jsonl", format!("{request}\n{result}\n").as_bytes());
    let o = ahp(&["answers", "check", &answers, &events]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stdout));
    assert_eq!(
        text(&o.stdout).lines().skip(1).collect::<Vec<_>>(),
        [
            format!("evt-stream-1 ({events}:1): the one answer: decline"),
            format!(
                "evt-profile-1-result ({events}:2): skipped, a user.elicitation.result event is not a request"
            ),
        ]
    );
    for bad in [
        "[]",
        r#"{"a": 1}"#,
        r#"{"ahp": "0.1", "id": "x-1", "type": "user.elicitation.nope"}"#,
    ] {
        let (_e, events) = temp_file("bad.jsonl", format!("{request}\n{bad}\n").as_bytes());
        let o = ahp(&["answers", "check", &answers, &events]);
        let out = text(&o.stdout);
        assert_eq!(o.status.code(), Some(1), "{bad}: {out}");
        let place = format!("({events}:2): not a valid AHP event");
        assert!(out.contains(&place), "{bad}: {out}");
        // The run refuses it too.
        let o = ahp(&["respond", "--answers", &answers, &events]);
        assert_eq!(o.status.code(), Some(1), "{bad}: {}", text(&o.stderr));
    }
}

/// `answers check --modes` predicts what the run says of a mode it does
/// not answer.
#[test]
fn the_check_takes_the_runs_modes() {
    let (_a, answers) = temp_file(
        "answers.json",
        br#"{"rules": [{"match": {}, "answer": {"action": "decline"}}]}"#,
    );
    let events = example("stream.requests.jsonl");
    let o = ahp(&["answers", "check", "--modes", "form", &answers, &events]);
    let out = text(&o.stdout);
    assert_eq!(o.status.code(), Some(1), "{out}");
    let said =
        format!("evt-stream-2 ({events}:2): url mode is not advertised (--modes), no result");
    assert!(out.lines().any(|l| l == said), "{out}");
    assert!(
        out.contains(&format!(
            "evt-stream-1 ({events}:1): rule 1 (/rules/0): decline"
        )),
        "{out}"
    );
    let o = ahp(&["respond", "--modes", "form", "--answers", &answers, &events]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        text(&o.stderr).contains(
            "request evt-stream-2 (line 2): url mode is not advertised (--modes), no result"
        ),
        "{}",
        text(&o.stderr)
    );
    // The default is the run's: both modes.
    let o = ahp(&["answers", "check", &answers, &events]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stdout));
}

/// A file over the size limit is refused by both commands with the same
/// words, naming the answers file (not "per event").
#[test]
fn an_answers_file_over_the_limit_is_refused_by_both() {
    let mut big = br#"{"action": "decline"}"#.to_vec();
    big.resize(5 * 1024 * 1024, b' ');
    let (_d, p) = temp_file("big.json", &big);
    let said = "the answers file is longer than the limit of 4194304 bytes";
    let o = respond_with_answers(&p);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o.stderr).contains(said), "{}", text(&o.stderr));
    assert!(!text(&o.stderr).contains("per event"));
    let o = ahp(&["answers", "check", &p]);
    assert_eq!(o.status.code(), Some(1));
    assert!(text(&o.stdout).contains(said), "{}", text(&o.stdout));
}

/// Ordinary patterns with Unicode classes compile; the misleading readings
/// of a wrong `rules` or `$schema` are gone.
#[test]
fn the_check_reads_patterns_and_top_keys_as_meant() {
    let (code, out) = check_doc(&json!({"rules": [
        {"match": {"message": "^\\w{3,40}$"}, "answer": {"action": "decline"}},
        {"match": {}, "answer": {"action": "cancel"}}
    ]}));
    assert_eq!((code, out.as_str()), (0, "ok, 2 rules\n"));
    let (code, out) = check_doc(&json!({"rules": null}));
    assert_eq!(code, 1);
    assert!(out.contains("/rules"), "{out}");
    // `respond` refuses the same files before it reads a request.
    for (file, said) in [
        (r#"{"rules": null}"#, "/rules: rules must be an array"),
        (
            r#"{"$schema": 5, "action": "decline"}"#,
            "/$schema: must be a string",
        ),
    ] {
        let (_d, p) = temp_file("answers.json", file.as_bytes());
        let o = respond_with_answers(&p);
        assert_eq!(o.status.code(), Some(2), "{file}");
        assert!(
            text(&o.stderr).contains(said),
            "{file}: {}",
            text(&o.stderr)
        );
    }
}

/// A request recorded by `mcp --events` (compatible policy: a Python SDK's
/// `Optional[str]` is an `anyOf` with null) is checked as it was read,
/// without --schema-policy; --schema-policy strict still reads it as
/// `respond` would.
#[test]
fn the_check_reads_a_recorded_request_under_the_policy_it_was_recorded_under() {
    let params = r#"{"message":"Who are you?","requestedSchema":{"type":"object","properties":{"name":{"anyOf":[{"type":"string"},{"type":"null"}],"default":null,"title":"Name"}}}}"#;
    let (_p, params_file) = temp_file("params.json", params.as_bytes());
    let wrapped = ahp(&[
        "wrap",
        "--server",
        "py",
        "--schema-policy",
        "compatible",
        &params_file,
    ]);
    assert_eq!(wrapped.status.code(), Some(0), "{}", text(&wrapped.stderr));
    let (_e, events) = temp_file("recorded.jsonl", &wrapped.stdout);
    let rules = r#"{"rules":[{"match":{"fields":["name"]},"answer":{"action":"accept","content":{"name":"Ada"}}}]}"#;
    let (_r, rules_file) = temp_file("rules.json", rules.as_bytes());
    let (code, choices, out) = dry_run(&rules_file, &events);
    assert_eq!(code, 0, "{out}");
    assert_eq!(choices.len(), 1, "{out}");
    assert_eq!(choices[0].1, "rule 1 (/rules/0): accept");
    let strict = ahp(&[
        "answers",
        "check",
        "--schema-policy",
        "strict",
        &rules_file,
        &events,
    ]);
    assert_eq!(strict.status.code(), Some(1));
    assert!(
        text(&strict.stdout).contains("not a valid request event"),
        "{}",
        text(&strict.stdout)
    );
}
