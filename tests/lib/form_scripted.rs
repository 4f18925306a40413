//! Scripted mode over every file in
//! `examples/`: `--action` for every request, answers files in
//! both shapes, refusals, and the URL launcher hook. Every accepted answer is
//! turned into a result event by `make_result_event`, which validates it.

use crate::common;

use std::sync::{Arc, Mutex};

use ahp_elicit::binding::{self, Action, Answer, RequestEvent, RequestView, ResultMeta};
use ahp_elicit::launcher::Launcher;
use ahp_elicit::responder::{Context, Outcome, Progress, RespondError, Responder};
use ahp_elicit::scripted::{Answers, ScriptedResponder};
use serde_json::{json, Value};

fn cx() -> Context {
    Context {
        progress: Progress::of(1, 1),
        deadline: None,
        ..Default::default()
    }
}

fn answer(r: Result<Outcome, RespondError>) -> Result<Answer, RespondError> {
    r.map(|o| match o {
        Outcome::Answer(a) => a,
        Outcome::Quit => panic!("scripted never quits"),
    })
}

#[test]
fn action_over_every_example() {
    for (name, req) in common::example_requests() {
        for action in [Action::Decline, Action::Cancel] {
            let mut s = ScriptedResponder::from_action(action);
            let a = answer(s.respond(&req, &cx())).expect("decline/cancel always answer");
            assert_eq!(a, Answer::bare(action), "{name}");
            binding::make_result_event(&req, &a, &ResultMeta::default())
                .unwrap_or_else(|e| panic!("{name}: {e:?}"));
        }
        let mut s = ScriptedResponder::from_action(Action::Accept);
        let got = answer(s.respond(&req, &cx()));
        match &req.view {
            // Accept as shown: refused while a required field has no
            // default (see every_kind_accept_as_shown_needs_required_fields).
            RequestView::Body(binding::ElicitationRequest {
                body: binding::RequestBody::Form(f),
                ..
            }) if f
                .fields
                .iter()
                .any(|x| x.required && x.default_value().is_none()) =>
            {
                assert!(matches!(got, Err(RespondError::Refused(_))), "{name}")
            }
            RequestView::Body(_) => {
                let a = got.unwrap_or_else(|e| panic!("{name} {}: {e}", req.id));
                assert_eq!(a.action, Action::Accept);
                assert_eq!(
                    a.content.is_some(),
                    req.mode == binding::Mode::Form,
                    "{name}"
                );
                binding::make_result_event(&req, &a, &ResultMeta::default())
                    .unwrap_or_else(|e| panic!("{name}: {e:?}"));
            }
            _ => match got {
                Err(RespondError::Refused(m)) => {
                    assert!(m.contains("not executable"), "{m}")
                }
                other => panic!("{name}: accept of a non-executable view gave {other:?}"),
            },
        }
    }
}

fn every_kind() -> RequestEvent {
    common::example_requests()
        .into_iter()
        .find(|(_, r)| r.id == "evt-profile-1")
        .expect("every-kind")
        .1
}

#[test]
fn every_kind_accept_as_shown_needs_required_fields() {
    let req = every_kind();
    let mut s = ScriptedResponder::from_action(Action::Accept);
    match s.respond(&req, &cx()) {
        Err(RespondError::Refused(m)) => {
            // The reason only: the caller names the request.
            assert_eq!(m, "'fullName' required; 'email' required")
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn every_kind_answers_match_the_example_result() {
    let req = every_kind();
    let answers = Answers::from_value(&json!({
        "action": "accept",
        "content": {"fullName": "Ada Example", "email": "ada@example.com",
                    "languages": ["rust", "go"], "newsletter": null, "region": null}
    }))
    .expect("answers");
    let a = answer(ScriptedResponder::new(answers).respond(&req, &cx())).expect("accepted");
    let want_ev: Value = serde_json::from_str(
        &std::fs::read_to_string(common::examples_dir().join("form-every-kind.result.json"))
            .expect("result example"),
    )
    .expect("json");
    let want_res = binding::read_result(want_ev).expect("valid result example");
    let want = want_res.result.expect("body").content.expect("content");
    // Same keys and values (order aside).
    assert_eq!(
        a.content
            .clone()
            .map(|c| c.into_iter().collect::<std::collections::BTreeMap<_, _>>()),
        Some(want.into_iter().collect())
    );
    binding::make_result_event(&req, &a, &ResultMeta::default()).expect("valid result");
}

#[test]
fn answers_by_event_id_over_the_stream() {
    let answers = Answers::from_value(&json!({
        "evt-stream-1": {"action": "accept", "content": {"confirm": true}},
        "evt-stream-2": {"action": "decline"},
        "evt-stream-3": {"action": "cancel"}
    }))
    .expect("answers");
    let mut s = ScriptedResponder::new(answers);
    let stream: Vec<_> = common::example_requests()
        .into_iter()
        .filter(|(n, _)| n == "stream.requests.jsonl")
        .map(|(_, r)| r)
        .collect();
    assert_eq!(stream.len(), 3);
    let got: Vec<Answer> = stream
        .iter()
        .map(|r| answer(s.respond(r, &cx())).expect("answered"))
        .collect();
    assert_eq!(
        got[0].content,
        Some(
            json!({"confirm": true})
                .as_object()
                .cloned()
                .unwrap_or_default()
        )
    );
    assert_eq!(got[1], Answer::bare(Action::Decline));
    assert_eq!(got[2], Answer::bare(Action::Cancel));
    // An id with no answer is refused.
    let other = every_kind();
    match s.respond(&other, &cx()) {
        Err(RespondError::Refused(m)) => assert!(
            m.contains("no answer for request id 'evt-profile-1'"),
            "{m}"
        ),
        r => panic!("{r:?}"),
    }
}

#[test]
fn refused_answers_name_the_field() {
    let req = every_kind();
    let cases = [
        (
            json!({"fullName": "Ada", "email": "nope"}),
            "'email' must be an e-mail address",
        ),
        (
            json!({"fullName": "Ada", "email": "a@b.co", "plan": null}),
            "'plan' required",
        ),
        (
            json!({"fullName": "Ada", "email": "a@b.co", "plan": "gold"}),
            "'plan': 'gold' is not one of the options",
        ),
        (
            json!({"fullName": "Ada", "email": "a@b.co", "seats": 2.5}),
            "'seats' must be a whole number",
        ),
        (
            json!({"fullName": "Ada", "email": "a@b.co", "nick": "x"}),
            "'nick' is not a field of the form",
        ),
        (
            json!({"fullName": 7, "email": "a@b.co"}),
            "'fullName': cannot enter a number in a text field",
        ),
        (
            json!({"fullName": "Ada", "email": "a@b.co", "languages": []}),
            "'languages' choose at least 1 item (has 0)",
        ),
    ];
    for (content, want) in cases {
        let answers =
            Answers::from_value(&json!({"action": "accept", "content": content})).expect("answers");
        match ScriptedResponder::new(answers).respond(&req, &cx()) {
            Err(RespondError::Refused(m)) => assert!(m.contains(want), "{m} should contain {want}"),
            other => panic!("{content}: {other:?}"),
        }
    }
}

/// Every refused field is reported in one go: a value the form cannot take
/// AND a required field left out, not one now and the other after a fix.
#[test]
fn every_refused_field_is_reported_at_once() {
    let req = every_kind();
    let answers = Answers::from_value(
        &json!({"action": "accept", "content": {"fullName": 7, "plan": "gold"}}),
    )
    .expect("answers");
    match ScriptedResponder::new(answers).respond(&req, &cx()) {
        Err(RespondError::Refused(m)) => assert_eq!(
            m,
            "'fullName': cannot enter a number in a text field; \
             'plan': 'gold' is not one of the options (the values are 'free', 'team', 'ent'); \
             'email' required"
        ),
        other => panic!("{other:?}"),
    }
}

/// A script that answers a select with the title it sees on screen is told
/// the value to give instead.
#[test]
fn an_options_title_given_as_its_value_is_refused_with_the_value() {
    let req = every_kind();
    let answers = Answers::from_value(&json!({"action": "accept", "content": {
        "fullName": "Ada", "email": "a@b.co", "plan": "Enterprise"}}))
    .expect("answers");
    match ScriptedResponder::new(answers).respond(&req, &cx()) {
        Err(RespondError::Refused(m)) => assert!(
            m.contains(
                "'plan': 'Enterprise' is not one of the options (it is the title of the \
                 option whose value is 'ent': give the value)"
            ),
            "{m}"
        ),
        other => panic!("{other:?}"),
    }
}

#[test]
fn bad_answers_documents() {
    for (v, want) in [
        (json!([1]), "must hold a JSON object"),
        (json!({"action": "maybe"}), "/action: 'maybe' is not accept"),
        (
            json!({"action": "decline", "content": {}}),
            "only an accept carries content",
        ),
        (
            json!({"evt-1": {"action": "accept", "extra": 1}}),
            "/evt-1/extra: unknown key",
        ),
    ] {
        let e = Answers::from_value(&v)
            .expect_err("bad document")
            .to_string();
        assert!(e.contains(want), "{e}");
    }
}

struct Recorder(Arc<Mutex<Vec<String>>>);
impl Launcher for Recorder {
    fn open(&mut self, url: &str) -> Result<(), ahp_elicit::launcher::LaunchError> {
        self.0.lock().unwrap().push(url.to_owned());
        Ok(())
    }
}

#[test]
fn url_accept_is_consent_and_calls_the_launcher() {
    let (_, req) = common::example_requests()
        .into_iter()
        .find(|(n, _)| n == "url-connect.request.json")
        .expect("url example");
    let opened = Arc::new(Mutex::new(Vec::new()));
    let mut s = ScriptedResponder::from_action(Action::Accept)
        .with_launcher(Box::new(Recorder(opened.clone())));
    let a = answer(s.respond(&req, &cx())).expect("consent");
    assert_eq!(a, Answer::bare(Action::Accept));
    assert_eq!(
        *opened.lock().unwrap(),
        vec!["https://auth.example.com/connect?elicitation=6f1d2c".to_string()]
    );
    // Declining opens nothing.
    let mut s = ScriptedResponder::from_action(Action::Decline)
        .with_launcher(Box::new(Recorder(opened.clone())));
    answer(s.respond(&req, &cx())).expect("decline");
    assert_eq!(opened.lock().unwrap().len(), 1);
    // Content on a URL accept is refused.
    let answers =
        Answers::from_value(&json!({"action": "accept", "content": {"x": 1}})).expect("answers");
    assert!(matches!(
        ScriptedResponder::new(answers).respond(&req, &cx()),
        Err(RespondError::Refused(_))
    ));
}

/// A URL-mode request for `url`, as read from its event.
fn url_request(url: &str) -> RequestEvent {
    let params = json!({"mode": "url", "message": "Sign in", "url": url, "elicitationId": "el-1"});
    let server = binding::Server {
        name: "auth".into(),
        title: None,
        version: None,
    };
    let ev = binding::wrap_request(
        &params,
        &binding::WrapOptions::new(&server, "mcp-stdio", "evt-u"),
    )
    .expect("valid request")
    .event;
    binding::read_request(ev, binding::ReadOptions::default()).expect("valid event")
}

/// A scripted accept never consents to what the consent screen warns
/// about (look-alike and international names, a user name before `@`,
/// cloud metadata, loopback written in hex, localhost): refused with one
/// sentence naming the host, nothing opened; a rule that names the host
/// (`host`) lets it through, and a plain https URL is still opened.
#[test]
fn scripted_consent_refuses_what_the_consent_screen_warns_about() {
    let opened = Arc::new(Mutex::new(Vec::new()));
    let cases = [
        ("https://xn--pple-43d.com/login", "xn--pple-43d.com"),
        ("https://accounts.google.com@evil.test/", "evil.test"),
        (
            "http://169.254.169.254/latest/meta-data/",
            "169.254.169.254",
        ),
        ("http://0x7f000001/admin", "127.0.0.1"),
        ("http://localhost:8080/callback", "localhost"),
    ];
    for (url, host) in cases {
        let mut s = ScriptedResponder::from_action(Action::Accept)
            .with_launcher(Box::new(Recorder(opened.clone())));
        match s.respond(&url_request(url), &cx()) {
            Err(RespondError::Refused(why)) => {
                assert!(why.contains(&format!("host '{host}'")), "{url}: {why}");
                assert!(why.contains("\"host\""), "{url}: {why}");
                assert!(!why.contains('\n'), "one line: {why}");
            }
            other => panic!("{url}: {other:?}"),
        }
        // A rule that names the host allows it.
        let rules = Answers::from_value(&json!({"rules": [
            {"match": {"host": host.to_uppercase()}, "answer": {"action": "accept"}}
        ]}))
        .expect("rules");
        let mut s = ScriptedResponder::new(rules).with_launcher(Box::new(Recorder(opened.clone())));
        let a = answer(s.respond(&url_request(url), &cx())).expect("named host");
        assert_eq!(a, Answer::bare(Action::Accept), "{url}");
    }
    assert_eq!(opened.lock().unwrap().len(), cases.len());
    let mut s = ScriptedResponder::from_action(Action::Accept)
        .with_launcher(Box::new(Recorder(opened.clone())));
    answer(s.respond(&url_request("https://auth.example.com/ok"), &cx())).expect("plain");
    assert_eq!(opened.lock().unwrap().len(), cases.len() + 1);
}

/// `answers check` reports a `message` pattern that matches the empty
/// text: it narrows nothing, so the rule is a catch-all.
#[test]
fn a_message_pattern_that_matches_everything_is_reported() {
    let Answers::Rules(rules) = Answers::from_value(&json!({"rules": [
        {"match": {"server": "a", "message": "x*"}, "answer": {"action": "decline"}},
        {"match": {"server": "b", "message": "^delete$"}, "answer": {"action": "decline"}}
    ]}))
    .expect("rules") else {
        panic!("rules expected")
    };
    let lints: Vec<String> = rules.lint().iter().map(ToString::to_string).collect();
    assert_eq!(lints.len(), 1, "{lints:?}");
    assert!(
        lints[0].starts_with("/rules/0: matches every message"),
        "{lints:?}"
    );
}
