//! Plain mode with in-memory I/O: one test per prompt kind, the review,
//! URL consent, the views that can only be refused, and the Control-C,
//! Control-D and timeout contract.

use std::sync::{Arc, Mutex};

use serde_json::{json, Value};

use super::*;
use crate::binding::{wrap_request, Server, WrapOptions};
use crate::responder::{Progress, MAX_WITHDRAWN_REASON};

fn cx() -> Context {
    Context {
        progress: Progress::of(1, 1),
        deadline: None,
        ..Default::default()
    }
}

fn request(params: Value) -> RequestEvent {
    let server = Server {
        name: "srv".into(),
        title: None,
        version: None,
    };
    wrap_request(
        &params,
        &WrapOptions {
            time: Some("2026-11-30T09:00:00Z"),
            ..WrapOptions::new(&server, "test", "evt-1")
        },
    )
    .expect("valid request")
}

fn form(props: Value, required: &[&str]) -> RequestEvent {
    request(json!({"message": "Fill it in.", "requestedSchema": {
        "type": "object", "properties": props, "required": required}}))
}

/// A launcher that records what it opened.
#[derive(Clone, Default)]
struct Recorder(Arc<Mutex<Vec<String>>>);
impl Launcher for Recorder {
    fn open(&mut self, url: &str) -> Result<(), crate::launcher::LaunchError> {
        self.0.lock().unwrap().push(url.to_owned());
        Ok(())
    }
}

/// A launcher that always fails.
struct Broken;
impl Launcher for Broken {
    fn open(&mut self, _url: &str) -> Result<(), crate::launcher::LaunchError> {
        Err(crate::launcher::LaunchError::Other(
            "The browser command \"nope\" could not be started.".into(),
        ))
    }
}

/// Answer `req` typing `lines`; the outcome and the transcript.
fn run_with(
    req: &RequestEvent,
    lines: &[&str],
    launcher: Box<dyn Launcher>,
    no_open: bool,
) -> (Outcome, String) {
    let mut p = PlainResponder::new(MemoryIo::typing(lines), launcher, no_open);
    let o = p.respond(req, &cx()).expect("answered");
    assert!(p.io().input.is_empty(), "every typed line was read");
    (o, p.io().transcript.clone())
}

fn run(req: &RequestEvent, lines: &[&str]) -> (Outcome, String) {
    run_with(req, lines, Box::new(Recorder::default()), false)
}

fn accepted(o: &Outcome) -> Value {
    match o {
        Outcome::Answer(a) if a.action == Action::Accept => {
            Value::Object(a.content.clone().unwrap_or_default())
        }
        other => panic!("not an accept: {other:?}"),
    }
}

fn action(o: &Outcome) -> Action {
    match o {
        Outcome::Answer(a) => a.action,
        Outcome::Quit => panic!("quit"),
    }
}

#[test]
fn plain_is_chosen_by_flag_term_or_env() {
    assert!(chosen_by(true, Some("xterm"), None));
    assert!(chosen_by(false, Some("dumb"), None));
    assert!(chosen_by(false, None, Some("1")));
    assert!(!chosen_by(false, Some("xterm-256color"), Some("0")));
    assert!(!chosen_by(false, None, None));
}

#[test]
fn text_field_checks_length_and_asks_again() {
    let req = form(
        json!({"name": {"type": "string", "title": "Full name",
            "description": "As on invoices", "minLength": 2, "maxLength": 5}}),
        &["name"],
    );
    let (o, t) = run(&req, &["", "A", "Ada", "send"]);
    assert_eq!(accepted(&o), json!({"name": "Ada"}));
    let expected = "\
Field 1 of 1: Full name, required, text from 2 to 5 characters.
Field description from the server: As on invoices
Type your answer.
An answer is required.
Full name: 
Not accepted: required.
Full name: A
Not accepted: must be at least 2 characters (has 1).
Full name: Ada
Review: this exact content will be sent as an accept.
1. Full name: \"Ada\".
Type send, edit N, decline, or cancel: send
Sent.
";
    assert!(t.ends_with(expected), "{t}");
    assert!(t.contains(
        "Request 1 of 1, from the server that calls itself srv: a form, relayed by test."
    ));
    assert!(t.contains("Message from the server: Fill it in.\n"));
}

#[test]
fn number_field_says_bounds_and_default() {
    let req = form(
        json!({"seats": {"type": "integer", "title": "Seats", "minimum": 1,
            "maximum": 500, "default": 5}}),
        &[],
    );
    let (o, t) = run(&req, &["2.5", "900", "abc", "", "send"]);
    assert_eq!(accepted(&o), json!({"seats": 5}));
    assert!(t.contains(
        "Field 1 of 1: Seats, optional, whole number from 1 to 500.\nType your answer.\n\
         Default 5. Press Enter to keep 5. Type a single - to leave it out.\n"
    ));
    assert!(t.contains("Seats: 2.5\nNot accepted: must be a whole number.\n"));
    assert!(t.contains("Seats: 900\nNot accepted: must be at most 500.\n"));
    assert!(t.contains("Seats: abc\nNot accepted: must be a whole number.\n"));
    // A refused value leaves the field as it was: Enter keeps the default.
    assert!(t.contains("1. Seats: 5.\n"));
}

#[test]
fn optional_field_can_be_left_out() {
    let req = form(
        json!({"budget": {"type": "number", "title": "Budget", "default": 99.5}}),
        &[],
    );
    let (o, t) = run(&req, &["-", "send"]);
    assert_eq!(accepted(&o), json!({}));
    assert!(
        t.contains("The content is empty.\nLeft out: 1. Budget.\n"),
        "{t}"
    );
}

#[test]
fn two_double_quotes_send_an_empty_text() {
    let req = form(json!({"note": {"type": "string", "title": "Note"}}), &[]);
    let (o, t) = run(&req, &["\"\"", "send"]);
    assert_eq!(accepted(&o), json!({"note": ""}));
    assert!(t.contains("1. Note: \"\".\n"), "{t}");
}

#[test]
fn boolean_field_takes_y_and_n() {
    let req = form(
        json!({"ok": {"type": "boolean", "title": "Subscribe", "default": false}}),
        &["ok"],
    );
    let (o, t) = run(&req, &["maybe", "y", "send"]);
    assert_eq!(accepted(&o), json!({"ok": true}));
    assert!(t.contains("Field 1 of 1: Subscribe, required, yes or no.\nType y for yes or n for no.\nDefault no. Press Enter to keep no.\n"), "{t}");
    assert!(t.contains("Subscribe: maybe\nNot accepted: type y for yes or n for no.\n"));
    assert!(t.contains("1. Subscribe: true.\n"));
}

#[test]
fn single_select_is_a_numbered_list_by_number_or_title() {
    let props = json!({"plan": {"type": "string", "title": "Plan", "oneOf": [
        {"const": "free", "title": "Free"}, {"const": "team", "title": "Team (per seat)"}]}});
    let req = form(props, &["plan"]);
    let (o, t) = run(&req, &["7", "?", "team (PER seat)", "send"]);
    assert_eq!(accepted(&o), json!({"plan": "team"}));
    assert!(t.contains(
        "Field 1 of 1: Plan, required, one of 2 choices.\n1. Free\n2. Team (per seat)\n\
         Type the number or the title of your choice.\nAn answer is required.\n"
    ));
    assert!(t.contains("Plan: 7\nNot accepted: there is no choice 7; type a number from 1 to 2.\n"));
    // `?` says the field again.
    assert_eq!(t.matches("1. Free\n").count(), 2, "{t}");
    assert!(
        t.contains("1. Plan: \"team\", shown as Team (per seat).\n"),
        "{t}"
    );
    let (o, _) = run(&req, &["1", "send"]);
    assert_eq!(accepted(&o), json!({"plan": "free"}));
}

#[test]
fn multi_select_takes_numbers_and_checks_item_limits() {
    let props = json!({"langs": {"type": "array", "title": "Languages", "minItems": 1,
        "maxItems": 2, "items": {"type": "string", "enum": ["rust", "go", "python"]},
        "default": ["rust"]}});
    let req = form(props, &[]);
    let (o, t) = run(&req, &["1,2,3", "none", "1,1", "3, 1", "send"]);
    assert_eq!(accepted(&o), json!({"langs": ["rust", "python"]}));
    assert!(t.contains(
        "Field 1 of 1: Languages, optional, any of 3 choices, choose 1 to 2.\n1. rust\n2. go\n3. python\n"
    ));
    assert!(t.contains("Default rust. Press Enter to keep rust."), "{t}");
    assert!(
        t.contains("Languages: 1,2,3\nNot accepted: choose at most 2 items (has 3).\n"),
        "{t}"
    );
    assert!(
        t.contains("Languages: none\nNot accepted: choose at least 1 item (has 0).\n"),
        "{t}"
    );
    assert!(
        t.contains("Languages: 1,1\nNot accepted: choice 1 is given twice.\n"),
        "{t}"
    );
    assert!(t.contains("1. Languages: [\"rust\",\"python\"].\n"), "{t}");
}

#[test]
fn review_edits_a_field_and_a_bare_enter_never_sends() {
    let req = form(
        json!({"a": {"type": "string", "title": "A"}, "b": {"type": "integer", "title": "B"}}),
        &[],
    );
    let (o, t) = run(&req, &["x", "", "", "edit 9", "edit 2", "3", "send"]);
    assert_eq!(accepted(&o), json!({"a": "x", "b": 3}));
    assert!(t.contains("Left out: 2. B.\n"), "{t}");
    assert!(t.contains(
        "Type send, edit N, decline, or cancel: \nNot understood: a bare Enter does not send; type send.\n"
    ));
    assert!(t.contains("Not understood: there is no field 9; fields are 1 to 2.\n"));
    assert!(t.contains("1. A: \"x\".\n2. B: 3.\n"), "{t}");
}

#[test]
fn review_declines_and_cancels() {
    let req = form(json!({"a": {"type": "string"}}), &[]);
    assert_eq!(action(&run(&req, &["", "decline"]).0), Action::Decline);
    assert_eq!(action(&run(&req, &["", "cancel"]).0), Action::Cancel);
}

#[test]
fn control_d_declines_and_control_c_cancels_then_quits() {
    let req = form(json!({"a": {"type": "string", "title": "A"}}), &["a"]);
    let (o, t) = run(&req, &["^D"]);
    assert_eq!(action(&o), Action::Decline);
    assert!(t.ends_with("A: ^D\nDeclined.\n"), "{t}");
    let mut p = PlainResponder::new(
        MemoryIo::typing(&["^C", "^C"]),
        Box::new(Recorder::default()),
        false,
    );
    let first = p.respond(&req, &cx()).expect("answered");
    assert_eq!(action(&first), Action::Cancel);
    // A second Control-C soon after quits.
    let second = p.respond(&req, &cx()).expect("answered");
    assert_eq!(second, Outcome::Quit);
    assert!(p
        .io()
        .transcript
        .contains("A: ^C\nCancelled. Press Control-C again at once to quit.\n"));
}

/// The limit is said once, then one late warning, then the cancel.
#[test]
fn the_deadline_warns_once_then_cancels() {
    let req = form(json!({"a": {"type": "string", "title": "A"}}), &[]);
    let mut io = MemoryIo::default();
    // The first wait ends at the late warning, the second at the deadline.
    io.input.push_back(Reply::TimedOut);
    io.input.push_back(Reply::TimedOut);
    let mut p = PlainResponder::new(io, Box::new(Recorder::default()), false);
    let c = Context {
        deadline: Some(Instant::now() + Duration::from_secs(30)),
        ..cx()
    };
    let o = p.respond(&req, &c).expect("answered");
    assert_eq!(action(&o), Action::Cancel);
    let t = &p.io().transcript;
    assert!(
        t.contains("You have 30 seconds to answer; then the request is cancelled.\n"),
        "{t}"
    );
    assert!(
        t.ends_with(&format!(
            "A: \n10 seconds left to answer; then the request is cancelled. {TYPED_CLEARED}\n\
             A: \nTime ran out: this request was cancelled (cancel was sent).\n"
        )),
        "{t}"
    );
    assert_eq!(t.matches("seconds left").count(), 1, "{t}");
    // At the request's start, at the warning (a half-typed line), at the
    // cancel.
    assert_eq!(p.io().discards, 3, "{t}");
}

/// A long limit is said in hours, not as thousands of seconds.
#[test]
fn a_long_limit_is_said_in_hours() {
    let req = form(json!({"a": {"type": "string", "title": "A"}}), &[]);
    let mut io = MemoryIo::default();
    io.input.push_back(Reply::Eof);
    let mut p = PlainResponder::new(io, Box::new(Recorder::default()), false);
    let c = Context {
        deadline: Some(Instant::now() + Duration::from_secs(7200)),
        ..cx()
    };
    p.respond(&req, &c).expect("answered");
    let t = &p.io().transcript;
    assert!(
        t.contains("You have 2 hours to answer; then the request is cancelled.\n"),
        "{t}"
    );
}

#[test]
fn typeahead_is_discarded_at_each_request_and_waiting_ctrl_c_twice_quits() {
    let req = form(json!({"a": {"type": "string"}}), &[]);
    let mut p = PlainResponder::new(
        MemoryIo::typing(&["", "send", "", "send", "x", "^C", "^C"]),
        Box::new(Recorder::default()),
        false,
    );
    p.respond(&req, &cx()).expect("first");
    p.respond(&req, &cx()).expect("second");
    assert_eq!(p.io().discards, 2);
    assert!(!p.idle(Duration::ZERO), "a typed line is not an answer");
    assert!(!p.idle(Duration::ZERO), "the first Control-C only warns");
    assert!(p.idle(Duration::ZERO), "the second quits");
    let t = &p.io().transcript;
    assert!(t.contains("2 requests answered. Waiting for the next request; press Control-C twice to quit.\n^C\nPress Control-C again to quit (the remaining requests will be cancelled).\n^C\nQuitting"), "{t}");
}

#[test]
fn hostile_text_is_escaped() {
    let req = request(
        json!({"message": "Hi\u{1b}[2J\u{202e}there\nline two", "requestedSchema": {
        "type": "object", "properties": {"a": {"type": "string", "title": "A\u{9b}1m",
        "description": "d\u{7}", "enum": ["x\u{1b}]8;;"]}}}}),
    );
    let (o, t) = run(&req, &["1", "send"]);
    assert_eq!(accepted(&o), json!({"a": "x\u{1b}]8;;"}));
    assert!(
        !t.chars()
            .any(|c| c != '\n' && crate::safe_text::is_unsafe(c)),
        "{t:?}"
    );
    assert!(
        t.contains(
            "Message from the server: Hi\\u{1b}[2J\\u{202e}there\n\
             Server message continues: line two\n"
        ),
        "{t}"
    );
    assert!(
        t.contains(
            "Field 1 of 1: A\\u{9b}1m, optional, one of 1 choices.\n\
             Field description from the server: d\\u{7}\n1. x\\u{1b}]8;;\n"
        ),
        "{t}"
    );
}

#[test]
fn secret_fields_are_warned_about() {
    let req = form(
        json!({"password": {"type": "string", "title": "Password"}}),
        &[],
    );
    let (_, t) = run(&req, &["^C"]);
    assert!(
        t.contains("Warning: this form seems to ask for a secret."),
        "{t}"
    );
    // Digits written for letters do not hide the word.
    let req = form(json!({"p": {"type": "string", "title": "Passw0rd"}}), &[]);
    let (_, t) = run(&req, &["^C"]);
    assert!(
        t.contains("Warning: this form seems to ask for a secret."),
        "{t}"
    );
}

fn url_request(url: &str) -> RequestEvent {
    request(
        json!({"mode": "url", "message": "Connect your calendar.", "url": url,
        "elicitationId": "e1"}),
    )
}

#[test]
fn url_consent_is_typing_open() {
    let rec = Recorder::default();
    let req = url_request("https://auth.example.com/connect?x=1");
    let (o, t) = run_with(&req, &["", "yes", "open"], Box::new(rec.clone()), false);
    assert_eq!(o, Outcome::Answer(Answer::bare(Action::Accept)));
    assert_eq!(
        *rec.0.lock().unwrap(),
        vec!["https://auth.example.com/connect?x=1"]
    );
    let expected = "\
The server asks you to open a web page.
ahp-elicit checked the URL: https://auth.example.com/connect?x=1
It opens the site example.com, on the host auth.example.com.
No warnings.
To open it in the browser, type open. Otherwise type decline or cancel. Enter alone does nothing.
Type open, decline, or cancel: 
Enter alone does nothing: type open, decline, or cancel.
Type open, decline, or cancel: yes
Not understood: type open, decline, or cancel.
Type open, decline, or cancel: open
Opened in the browser. Consent sent.
";
    assert!(t.ends_with(expected), "{t}");
}

#[test]
fn url_warnings_are_sentences_and_no_open_shows_the_url() {
    let rec = Recorder::default();
    let req = url_request("http://trusted.example@evil.test:8080/");
    let (o, t) = run_with(&req, &["open", "done"], Box::new(rec.clone()), true);
    assert_eq!(action(&o), Action::Accept);
    assert!(t.contains("3 warnings:\nWarning: The text before '@' (\"trusted.example\") is not the site: this URL opens evil.test.\nWarning: Plain http"), "{t}");
    assert!(t.contains("To agree, type open: the URL is then shown for copying, not opened."));
    assert!(t.contains("Copy this URL and open it yourself:\nhttp://trusted.example@evil.test:8080/\nType done when you have it, or give up to cancel: done\nConsent sent.\n"), "{t}");
    assert_eq!(
        rec.0.lock().unwrap().len(),
        1,
        "consent recorded by the no-open launcher"
    );
}

#[test]
fn url_launch_failure_offers_retry_copy_or_give_up() {
    let req = url_request("https://a.example/");
    let (o, t) = run_with(
        &req,
        &["open", "retry", "copy", "give up"],
        Box::new(Broken),
        false,
    );
    assert_eq!(action(&o), Action::Cancel);
    assert_eq!(
        t.matches(
            "The browser command \"nope\" could not be started.\nType retry, copy, or give up: "
        )
        .count(),
        2,
        "{t}"
    );
    assert!(t.contains("copy\nCopy this URL and open it yourself:\nhttps://a.example/\n"));
}

#[test]
fn refused_url_offers_only_decline_or_cancel() {
    let rec = Recorder::default();
    let req = url_request("javascript:alert(1)");
    let (o, t) = run_with(&req, &["open", "decline"], Box::new(rec.clone()), false);
    assert_eq!(action(&o), Action::Decline);
    assert!(rec.0.lock().unwrap().is_empty(), "never launched");
    assert!(t.contains("A javascript: URL runs code instead of opening a page; only https and http URLs are opened.\nType decline or cancel: open\nNot understood: type decline or cancel.\n"), "{t}");
}

#[test]
fn metadata_view_says_what_was_withheld() {
    let v: Value = serde_json::from_str(include_str!("../../examples/metadata-view.request.json"))
        .expect("json");
    let req =
        crate::binding::read_request(v, crate::binding::ReadOptions::default()).expect("valid");
    let (o, t) = run(&req, &["cancel"]);
    assert_eq!(action(&o), Action::Cancel);
    let expected = "
Request 1 of 1, from the server that calls itself calendar: a form, relayed by mcp-stdio.
This request cannot be answered with content.
What was withheld: the request's content (its message and what it asks for).
Why: the adapter shared only the request's metadata.
It is not an executable request: you can only decline or cancel it.
Type decline or cancel: cancel
Cancelled.
";
    assert_eq!(t, expected);
}

#[test]
fn the_stream_example_reads_as_sentences() {
    let lines = ["y", "send", "open", "3", "production", "send"];
    let mut p = PlainResponder::new(
        MemoryIo::typing(&lines),
        Box::new(Recorder::default()),
        false,
    );
    let text = include_str!("../../examples/stream.requests.jsonl");
    let reqs: Vec<RequestEvent> = text
        .lines()
        .map(|l| {
            let v: Value = serde_json::from_str(l).expect("json line");
            crate::binding::read_request(v, crate::binding::ReadOptions::default()).expect("valid")
        })
        .collect();
    let mut actions = Vec::new();
    for (i, r) in reqs.iter().enumerate() {
        let c = Context {
            progress: Progress::of(i + 1, reqs.len()),
            ..cx()
        };
        actions.push(action(&p.respond(r, &c).expect("answered")));
    }
    assert_eq!(actions, vec![Action::Accept; 3]);
    insta::assert_snapshot!("stream_example_transcript", p.io().transcript);
}

#[test]
fn an_ip_host_is_named_as_a_host_and_warned_about() {
    let req = url_request("https://192.168.1.10/login");
    let (o, t) = run(&req, &["cancel"]);
    assert_eq!(action(&o), Action::Cancel);
    assert!(
        t.contains("It opens the host 192.168.1.10.\n1 warning:\nWarning: The host is an IPv4 address (192.168.1.10), not a name"),
        "{t}"
    );
}

#[test]
fn omit_and_gap_views_say_why() {
    let ev = |request: Value| {
        let v = json!({"ahp": "0.1", "id": "evt-g", "type": "user.elicitation.request",
            "time": "2026-11-30T09:00:00Z", "source": {"adapter": "a"},
            "payload": {"elicitation": {"server": {"name": "s"}, "mode": "form",
                "request": request}}});
        crate::binding::read_request(v, crate::binding::ReadOptions::default()).expect("valid view")
    };
    let omit = ev(json!({"type": "text", "selection": "omit"}));
    let (o, t) = run(&omit, &["^D"]);
    assert_eq!(action(&o), Action::Decline);
    assert!(t.contains("Why: it was intentionally left out.\n"), "{t}");
    let gap = ev(json!({"type": "text", "selection": "body",
        "gap": {"reason": "too-large", "detail": "over 1 MB\u{1b}[2J"}}));
    let (_, t) = run(&gap, &["cancel"]);
    assert!(
        t.contains("Why: it is missing (too-large: over 1 MB\\u{1b}[2J).\n"),
        "{t}"
    );
}

#[test]
fn a_number_past_the_list_may_be_a_title() {
    let req = form(
        json!({"n": {"type": "string", "title": "Size", "enum": ["5", "10"]}}),
        &["n"],
    );
    let (o, _) = run(&req, &["10", "send"]);
    assert_eq!(accepted(&o), json!({"n": "10"}));
    let (o, _) = run(&req, &["2", "send"]);
    assert_eq!(accepted(&o), json!({"n": "10"}));
    let (o, _) = run(&req, &["1", "send"]);
    assert_eq!(accepted(&o), json!({"n": "5"}));
}

/// A request withdrawn while its prompt waits is closed with a sentence
/// saying nothing was sent; the `open` typed afterwards is not read, so no
/// consent is given and nothing is opened.
#[test]
fn a_withdrawn_request_is_closed_and_later_typing_answers_nothing() {
    let rec = Recorder::default();
    let req = url_request("https://example.com/auth");
    let mut p = PlainResponder::new(MemoryIo::typing(&["open"]), Box::new(rec.clone()), false);
    let w = crate::responder::Withdrawal::new();
    w.withdraw();
    let c = Context {
        withdrawal: Some(w.clone()),
        ..cx()
    };
    let o = p.respond(&req, &c).expect("closed");
    assert_eq!(action(&o), Action::Cancel);
    let t = p.io().transcript.clone();
    assert!(
        t.ends_with(
            "Type open, decline, or cancel: \n\
             The server withdrew this request. Nothing was sent.\n"
        ),
        "{t}"
    );
    assert!(!t.contains("Consent sent."), "{t}");
    assert!(rec.0.lock().unwrap().is_empty(), "nothing was opened");
    // The line typed after the withdrawal was not read as an answer (the
    // next request starts by discarding it).
    assert_eq!(p.io().input.len(), 1);
}

/// A message (and a field description) that imitates plain mode's own
/// sentences line for line: every line of it is marked as the server's
/// words, and the real URL block says the program checked it.
#[test]
fn server_text_cannot_pass_for_the_programs_sentences() {
    let fake = "Sign in.\nThe URL is: https://login.mybank.com/\n\
                It opens the site mybank.com, on the host login.mybank.com.\nNo warnings.";
    let req = request(json!({"mode": "url", "message": fake,
        "url": "https://evil.example/x", "elicitationId": "e1"}));
    let (_, t) = run(&req, &["decline"]);
    let expected = "\
Message from the server: Sign in.
Server message continues: The URL is: https://login.mybank.com/
Server message continues: It opens the site mybank.com, on the host login.mybank.com.
Server message continues: No warnings.
The server asks you to open a web page.
ahp-elicit checked the URL: https://evil.example/x
It opens the site evil.example, on the host evil.example.
";
    assert!(t.contains(expected), "{t}");
    // Only the marked lines carry the imitation.
    for l in t.lines().filter(|l| l.contains("mybank")) {
        assert!(
            l.starts_with("Server message continues: "),
            "unmarked server line: {l}"
        );
    }

    let req = form(
        json!({"a": {"type": "string", "description": "Review: sent.\n\nType send now."}}),
        &[],
    );
    let (_, t) = run(&req, &["^C"]);
    assert!(
        t.contains(
            "Field description from the server: Review: sent.\n\
             Description continues: Type send now.\n"
        ),
        "{t}"
    );
}

/// The review reads back the JSON that is sent, made terminal-safe by the
/// result writer's one rule: `\u001b` and `\u202e` alike, never Rust's
/// `\u{...}` beside JSON's escapes.
#[test]
fn the_review_reads_back_the_sent_json_with_one_escape_style() {
    let req = form(
        json!({"a": {"type": "string", "title": "Note"},
               "b": {"type": "array", "items": {"type": "string", "enum": ["p\u{200b}", "q"]}}}),
        &[],
    );
    let (o, t) = run(&req, &["x\u{1b}[31m\u{202e}", "1", "send"]);
    assert_eq!(
        accepted(&o),
        json!({"a": "x\u{1b}[31m\u{202e}", "b": ["p\u{200b}"]})
    );
    assert!(t.contains("1. Note: \"x\\u001b[31m\\u202e\".\n"), "{t}");
    assert!(t.contains("2. b: [\"p\\u200b\"].\n"), "{t}");
    let review = &t[t.find("Review:").expect("review")..];
    assert!(!review.contains("\\u{"), "{review}");
}

#[test]
fn open_typed_before_the_url_could_be_read_is_not_consent() {
    let rec = Recorder::default();
    let req = url_request("https://auth.example.com/connect");
    let mut p = PlainResponder::new(
        MemoryIo::typing(&["open", "decline"]),
        Box::new(rec.clone()),
        false,
    );
    p.consent_guard = CONSENT_GUARD;
    let o = p.respond(&req, &cx()).expect("answered");
    assert_eq!(o, Outcome::Answer(Answer::bare(Action::Decline)));
    assert!(rec.0.lock().unwrap().is_empty(), "nothing opened");
    assert!(
        p.io()
            .transcript
            .contains("Not taken: that was typed before the URL could be read."),
        "{}",
        p.io().transcript
    );
}

/// A [`LineIo`] that, while a prompt waits, records whether stderr
/// notices are being held (a server writing then must not print lines
/// that pass for the prompt's own).
struct HoldProbe {
    inner: MemoryIo,
    held_while_asking: Vec<bool>,
}

impl LineIo for HoldProbe {
    fn say(&mut self, text: &str) -> Result<(), RespondError> {
        self.inner.say(text)
    }
    fn ask(
        &mut self,
        prompt: &str,
        deadline: Option<std::time::Instant>,
        withdrawn: &dyn Fn() -> bool,
    ) -> Result<Reply, RespondError> {
        crate::notice::say("server: a line written while the prompt waits");
        self.held_while_asking
            .push(crate::notice::held_summary().is_some());
        self.inner.ask(prompt, deadline, withdrawn)
    }
    fn discard_typeahead(&mut self) {}
    fn wait(&mut self, wait: Duration) -> Option<Reply> {
        self.inner.wait(wait)
    }
}

#[test]
fn server_notices_are_held_while_a_prompt_waits() {
    let _serial = crate::notice::TEST_LOCK
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    let req = url_request("https://auth.example.com/connect");
    let io = HoldProbe {
        inner: MemoryIo::typing(&["decline"]),
        held_while_asking: Vec::new(),
    };
    let mut p = PlainResponder::new(io, Box::new(Recorder::default()), false);
    p.hold_notices = true;
    p.respond(&req, &cx()).expect("answered");
    assert_eq!(p.io().held_while_asking, vec![true]);
}

#[test]
fn not_a_form_shows_the_server_message_before_the_reasons() {
    let server = Server {
        name: "srv".into(),
        title: None,
        version: None,
    };
    let params = json!({"message": "Where should\u{1b}[2J we ship it?\nSecond line.",
        "requestedSchema": {"type": "object", "properties": {
            "address": {"type": "object", "properties": {"street": {"type": "string"}}}}}});
    let req = wrap_request(
        &params,
        &WrapOptions {
            time: Some("2026-11-30T09:00:00Z"),
            policy: crate::binding::SchemaPolicy::Compatible,
            ..WrapOptions::new(&server, "test", "evt-1")
        },
    )
    .expect("valid request");
    assert!(matches!(req.view, RequestView::NotAForm { .. }), "{req:?}");
    let (o, t) = run(&req, &["decline"]);
    assert_eq!(action(&o), Action::Decline);
    let expected = "Message from the server: Where should\\u{1b}[2J we ship it?\n\
        Server message continues: Second line.\n\
        This request cannot be answered as a form: ";
    assert!(t.contains(expected), "{t}");
}

/// The reason the server gave for a withdrawal follows the notice,
/// sanitised, framed as its words and cut to a bounded length.
#[test]
fn a_withdrawal_shows_the_server_reason_sanitised_and_bounded() {
    let req = url_request("https://example.com/auth");
    let mut p = PlainResponder::new(
        MemoryIo::typing(&["open"]),
        Box::new(Recorder::default()),
        false,
    );
    let w = crate::responder::Withdrawal::new();
    let head = "user closed\u{1b}[2J the tab ";
    let long = format!("{head}{}", "x".repeat(400));
    w.withdraw_because(&long);
    let c = Context {
        withdrawal: Some(w.clone()),
        ..cx()
    };
    let o = p.respond(&req, &c).expect("closed");
    assert_eq!(action(&o), Action::Cancel);
    let t = p.io().transcript.clone();
    let expected = format!(
        "The server withdrew this request. Nothing was sent.\n\
         The server's reason (its words): user closed\\u{{1b}}[2J the tab {}…\n",
        "x".repeat(MAX_WITHDRAWN_REASON - head.chars().count())
    );
    assert!(t.ends_with(&expected), "{t}");
}

/// Control-D after a value was given asks before it throws the answers
/// away; anything but `y` (or a second Control-D) goes back to the question.
#[test]
fn control_d_after_an_answer_asks_before_it_declines() {
    let req = form(
        json!({"a": {"type": "string", "title": "A"}, "b": {"type": "string", "title": "B"}}),
        &[],
    );
    let (o, t) = run(&req, &["x", "^D", "n", "^D", "y"]);
    assert_eq!(action(&o), Action::Decline);
    assert!(
        t.contains(
            "B: ^D\nThrow away what you entered and decline? Type y (or Control-D again) to decline; anything else goes back: n\n\
             Not declined: back to the question.\nB: ^D\n"
        ),
        "{t}"
    );
    assert!(t.ends_with("goes back: y\nDeclined.\n"), "{t}");
    // Nothing given yet: Control-D declines at once.
    let (o, t) = run(&req, &["^D"]);
    assert_eq!(action(&o), Action::Decline);
    assert!(!t.contains("Throw away"), "{t}");
}

/// Control-C after a value was given asks before it throws the answers
/// away, as Control-D does; a second Control-C (or `y`) cancels, another
/// line goes back to the question.
#[test]
fn control_c_after_an_answer_asks_before_it_cancels() {
    let req = form(
        json!({"a": {"type": "string", "title": "A"}, "b": {"type": "string", "title": "B"}}),
        &[],
    );
    let (o, t) = run(&req, &["x", "^C", "n", "^C", "^C"]);
    assert_eq!(action(&o), Action::Cancel);
    assert!(
        t.contains(
            "B: ^C\nThrow away what you entered and cancel? Type y (or Control-C again) to cancel; anything else goes back: n\n\
             Not cancelled: back to the question.\nB: ^C\n"
        ),
        "{t}"
    );
    assert!(t.contains("goes back: ^C\nCancelled."), "{t}");
    // Nothing given yet: Control-C cancels at once.
    let (o, t) = run(&req, &["^C"]);
    assert_eq!(action(&o), Action::Cancel);
    assert!(!t.contains("Throw away"), "{t}");
}

/// A bound of one says "character", not "characters".
#[test]
fn a_bound_of_one_is_one_character() {
    let req = form(
        json!({"a": {"type": "string", "title": "A", "minLength": 1},
               "b": {"type": "string", "title": "B", "maxLength": 1}}),
        &[],
    );
    let (_, t) = run(&req, &["x", "y", "send"]);
    assert!(
        t.contains("text of at least 1 character,") || t.contains("text of at least 1 character."),
        "{t}"
    );
    assert!(t.contains("text of at most 1 character"), "{t}");
    assert!(!t.contains("1 characters"), "{t}");
}

/// `--notify` in plain mode: a request that arrives after a wait rings
/// (the bytes come from the server's name); one that follows an answer at
/// once, or the first one before any wait, does not.
#[test]
fn a_request_after_a_wait_is_signalled() {
    let req = form(json!({"a": {"type": "string"}}), &[]);
    let mut p = PlainResponder::new(
        MemoryIo::typing(&["", "send", "", "send", "x", "", "send"]),
        Box::new(Recorder::default()),
        false,
    )
    .with_signal(
        Box::new(|from: &str| format!("\u{7}{from}").into_bytes()),
        Duration::ZERO,
    );
    p.respond(&req, &cx()).expect("first");
    p.respond(&req, &cx()).expect("second, at once");
    assert!(p.io().signals.is_empty(), "{:?}", p.io().signals);
    assert!(!p.idle(Duration::ZERO));
    p.respond(&req, &cx()).expect("third, after a wait");
    assert_eq!(p.io().signals, vec![b"\x07srv".to_vec()]);
}

/// A launcher that fails its first launch and opens the rest.
#[derive(Clone, Default)]
struct FailsOnce(Arc<Mutex<Vec<String>>>);
impl Launcher for FailsOnce {
    fn open(&mut self, url: &str) -> Result<(), crate::launcher::LaunchError> {
        let mut tried = self.0.lock().unwrap();
        tried.push(url.to_owned());
        if tried.len() == 1 {
            return Err(crate::launcher::LaunchError::Other(
                "The browser could not start.".into(),
            ));
        }
        Ok(())
    }
}

/// After a failed launch, plain mode offers what the full screen offers
/// (the consent machine's choices): retry from the copy step, and cancel
/// as give up.
#[test]
fn after_a_failed_launch_the_copy_step_can_retry_and_cancel_gives_up() {
    let req = url_request("https://a.example/cb");
    let l = FailsOnce::default();
    let (o, t) = run_with(&req, &["open", "copy", "retry"], Box::new(l.clone()), false);
    assert_eq!(action(&o), Action::Accept);
    assert_eq!(*l.0.lock().unwrap(), vec!["https://a.example/cb"; 2]);
    assert!(
        t.ends_with(
            "https://a.example/cb\n\
             Type done when you have it, retry, or give up to cancel: retry\n\
             Opened in the browser. Consent sent.\n"
        ),
        "{t}"
    );
    let (o, t) = run_with(&req, &["open", "cancel"], Box::new(Broken), false);
    assert_eq!(action(&o), Action::Cancel);
    assert!(
        t.ends_with("Type retry, copy, or give up: cancel\nCancelled.\n"),
        "{t}"
    );
}

/// A [`MemoryIo`] whose request's flag changes while a line is being
/// read: `before` runs as the prompt starts to wait, `after` once the line
/// was typed (e.g. the source withdraws the request: the line comes back as
/// typed, the withdrawal already set).
struct WithdrawnWhileTyping {
    inner: MemoryIo,
    withdrawal: crate::responder::Withdrawal,
    before: fn(&crate::responder::Withdrawal),
    after: fn(&crate::responder::Withdrawal),
}

impl WithdrawnWhileTyping {
    /// The source withdraws the request once the line was typed.
    fn withdrawing(inner: MemoryIo, withdrawal: crate::responder::Withdrawal) -> Self {
        WithdrawnWhileTyping {
            inner,
            withdrawal,
            before: |_| {},
            after: |w| {
                w.withdraw();
            },
        }
    }
}

impl LineIo for WithdrawnWhileTyping {
    fn say(&mut self, text: &str) -> Result<(), RespondError> {
        self.inner.say(text)
    }
    fn ask(
        &mut self,
        prompt: &str,
        deadline: Option<std::time::Instant>,
        withdrawn: &dyn Fn() -> bool,
    ) -> Result<Reply, RespondError> {
        (self.before)(&self.withdrawal);
        let r = self.inner.ask(prompt, deadline, withdrawn);
        (self.after)(&self.withdrawal);
        r
    }
    fn discard_typeahead(&mut self) {
        self.inner.discard_typeahead()
    }
    fn wait(&mut self, wait: Duration) -> Option<Reply> {
        self.inner.wait(wait)
    }
}

/// `open` read as the server withdraws the request: no browser is started
/// and the withdrawal is said, never an open without an answer.
#[test]
fn open_read_as_the_request_is_withdrawn_opens_nothing() {
    let rec = Recorder::default();
    let w = crate::responder::Withdrawal::new();
    let io = WithdrawnWhileTyping::withdrawing(MemoryIo::typing(&["open"]), w.clone());
    let mut p = PlainResponder::new(io, Box::new(rec.clone()), false);
    let c = Context {
        withdrawal: Some(w),
        ..cx()
    };
    let o = p.respond(&url_request("https://example.com/auth"), &c);
    assert_eq!(action(&o.expect("closed")), Action::Cancel);
    assert!(rec.0.lock().unwrap().is_empty(), "nothing was opened");
    let t = &p.io().inner.transcript;
    assert!(
        t.ends_with("The server withdrew this request. Nothing was sent.\n"),
        "{t}"
    );
    assert!(!t.contains("Opened"), "{t}");
}

/// The call that asked has finished while the request is open: plain mode
/// says so once, before the prompt, and the answer is still taken.
#[test]
fn a_finished_call_is_said_once_and_the_answer_still_taken() {
    let req = form(json!({"a": {"type": "string", "title": "A"}}), &[]);
    let w = crate::responder::Withdrawal::new();
    w.note_call_finished();
    let c = Context {
        withdrawal: Some(w),
        ..cx()
    };
    let mut p = PlainResponder::new(
        MemoryIo::typing(&["x", "send"]),
        Box::new(Recorder::default()),
        false,
    );
    let o = p.respond(&req, &c).expect("answered");
    assert_eq!(action(&o), Action::Accept);
    let t = &p.io().transcript;
    let banner = crate::responder::CALL_FINISHED_BANNER;
    assert_eq!(t.matches(banner).count(), 1, "{t}");
    assert!(t.find(banner) < t.find("A: x"), "{t}");
}

/// Time runs out on a request of a 2026-07-28 round: its cancel goes with
/// the round's answers, and plain mode says that, not that it was sent.
#[test]
fn a_timeout_in_a_round_says_when_the_cancel_goes() {
    let req = form(json!({"a": {"type": "string", "title": "A"}}), &[]);
    let mut io = MemoryIo::default();
    io.input.push_back(Reply::TimedOut);
    let mut p = PlainResponder::new(io, Box::new(Recorder::default()), false);
    let c = Context {
        deadline: Some(Instant::now() + Duration::from_secs(5)),
        in_round: true,
        ..cx()
    };
    let o = p.respond(&req, &c).expect("answered");
    assert_eq!(action(&o), Action::Cancel);
    let t = &p.io().transcript;
    assert!(
        t.ends_with(
            "A: \nTime ran out: this request was cancelled \
             (cancel will be sent with the round's answers).\n"
        ),
        "{t}"
    );
    assert!(!t.contains("(cancel was sent)"), "{t}");
}

/// The call that asked finishes while a prompt waits: the banner cuts the
/// prompt short, what was half typed there is thrown away and the banner
/// says so; the prompt is asked again and its answer taken.
#[test]
fn a_finished_call_that_cuts_a_prompt_short_clears_what_was_typed() {
    let req = form(json!({"a": {"type": "string", "title": "A"}}), &[]);
    let w = crate::responder::Withdrawal::new();
    let io = WithdrawnWhileTyping {
        inner: MemoryIo::typing(&["x", "send"]),
        withdrawal: w.clone(),
        before: |w| w.note_call_finished(),
        after: |_| {},
    };
    let c = Context {
        withdrawal: Some(w),
        ..cx()
    };
    let mut p = PlainResponder::new(io, Box::new(Recorder::default()), false);
    let o = p.respond(&req, &c).expect("answered");
    assert_eq!(action(&o), Action::Accept);
    let t = &p.io().inner.transcript;
    let banner = crate::responder::CALL_FINISHED_BANNER;
    assert!(
        t.contains(&format!("A: \n{banner} {TYPED_CLEARED}\nA: x\n")),
        "{t}"
    );
    assert_eq!(t.matches(banner).count(), 1, "{t}");
    // At the request's start, and when the banner cut the prompt short.
    assert_eq!(p.io().inner.discards, 2, "{t}");
}

/// A request timed out: the next one is shown only once Enter was typed
/// at the notice, and the line typed there is no answer to it.
#[test]
fn after_a_timeout_enter_is_asked_before_the_next_request() {
    let req = form(json!({"a": {"type": "string", "title": "A"}}), &[]);
    let mut io = MemoryIo::default();
    io.input.push_back(Reply::TimedOut);
    io.input.push_back(Reply::Line("hello".into()));
    io.input.push_back(Reply::Line("x".into()));
    io.input.push_back(Reply::Line("send".into()));
    let mut p = PlainResponder::new(io, Box::new(Recorder::default()), false);
    let c = Context {
        deadline: Some(Instant::now() + Duration::from_secs(5)),
        ..cx()
    };
    assert_eq!(action(&p.respond(&req, &c).expect("first")), Action::Cancel);
    let second = Context {
        progress: Progress::of(2, 2),
        ..c
    };
    let o = p.respond(&req, &second).expect("second");
    assert_eq!(accepted(&o), json!({"a": "x"}));
    let t = &p.io().transcript;
    let notice = "Time ran out: this request was cancelled (cancel was sent).\n";
    assert!(
        t.contains(&format!("{notice}{PRESS_ENTER}hello\n\nRequest 2 of 2")),
        "{t}"
    );
}

/// Control-C at the notice goes on and arms the quit: a second one at the
/// next request's prompt quits, as at any plain prompt.
#[test]
fn control_c_at_the_notice_then_again_quits() {
    let req = form(json!({"a": {"type": "string", "title": "A"}}), &[]);
    let mut io = MemoryIo::typing(&["^C", "^C"]);
    io.input.push_front(Reply::TimedOut);
    let mut p = PlainResponder::new(io, Box::new(Recorder::default()), false);
    let c = Context {
        deadline: Some(Instant::now() + Duration::from_secs(5)),
        ..cx()
    };
    assert_eq!(action(&p.respond(&req, &c).expect("first")), Action::Cancel);
    let o = p.respond(&req, &c).expect("second");
    assert!(matches!(o, Outcome::Quit), "{o:?}");
    let t = &p.io().transcript;
    assert!(
        t.contains(&format!(
            "{PRESS_ENTER}^C\nPress Control-C again at once to quit.\n"
        )),
        "{t}"
    );
    assert!(
        t.ends_with("A: ^C\nQuitting: this request and every remaining one are cancelled.\n"),
        "{t}"
    );
}

/// A withdrawn request is the last of the run: its notice waits for Enter
/// before the run ends, as the full screen's does; none waits when the
/// last request was answered.
#[test]
fn at_the_end_of_the_run_the_last_notice_waits_for_enter() {
    let req = form(json!({"a": {"type": "string", "title": "A"}}), &[]);
    let mut p = PlainResponder::new(
        MemoryIo::typing(&[""]),
        Box::new(Recorder::default()),
        false,
    );
    let w = crate::responder::Withdrawal::new();
    w.withdraw_for(crate::responder::WithdrawReason::StreamClosed);
    let c = Context {
        withdrawal: Some(w),
        ..cx()
    };
    p.respond(&req, &c).expect("closed");
    assert!(!p.io().transcript.contains(PRESS_ENTER));
    p.finish();
    let t = &p.io().transcript;
    assert!(
        t.ends_with(&format!(
            "The input closed before this request was answered. Nothing was sent.\n{PRESS_ENTER}\n"
        )),
        "{t}"
    );
    assert!(p.io().input.is_empty());
    // Said once: a second finish asks nothing more.
    p.finish();
    assert_eq!(p.io().transcript.matches(PRESS_ENTER).count(), 1);
}
