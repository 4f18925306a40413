//! The scripted parity test: for every example request, plain mode driven
//! by typed lines and the scripted responder given the same content (the
//! form model the terminal UI uses) produce identical result events, for
//! accept (several sets of answers, every field kind), decline and cancel.

use crate::common;

use std::sync::{Arc, Mutex};

use ahp_elicit::binding::{
    self, Action, Field, FieldKind, RequestBody, RequestEvent, RequestView, ResultMeta,
    StringFormat,
};
use ahp_elicit::launcher::Launcher;
use ahp_elicit::plain::{MemoryIo, PlainResponder};
use ahp_elicit::responder::{Context, Outcome, Progress, Responder};
use ahp_elicit::scripted::{Answers, ScriptedAnswer, ScriptedResponder};
use serde_json::{json, Map, Value};

fn cx() -> Context {
    Context {
        progress: Progress::of(1, 1),
        deadline: None,
        ..Default::default()
    }
}

/// Every request event in `examples/` (JSON files and JSON Lines).
fn example_requests() -> Vec<RequestEvent> {
    common::example_requests()
        .into_iter()
        .map(|(_, r)| r)
        .collect()
}

/// The accepted content of the example result for `id`, if there is one.
fn example_content(id: &str) -> Option<Map<String, Value>> {
    let p = common::examples_dir().join("form-every-kind.result.json");
    let ev: Value = serde_json::from_str(&std::fs::read_to_string(p).ok()?).ok()?;
    if ev["parentEventId"] != id {
        return None;
    }
    let inner: Value =
        serde_json::from_str(ev["payload"]["elicitation"]["result"]["text"].as_str()?).ok()?;
    inner["content"].as_object().cloned()
}

/// A valid value for `f` that is not its default (when it has one).
fn some_value(f: &Field) -> Value {
    match &f.kind {
        FieldKind::Text {
            format, min_length, ..
        } => match format {
            Some(StringFormat::Email) => json!("b@example.org"),
            Some(StringFormat::Uri) => json!("https://example.org/x"),
            Some(StringFormat::Date) => json!("2026-12-01"),
            Some(StringFormat::DateTime) => json!("2026-12-01T10:00:00Z"),
            None => json!("y".repeat(min_length.unwrap_or(1).max(1) as usize)),
        },
        FieldKind::Number { maximum, .. } => json!(maximum.clone()),
        FieldKind::Boolean { default } => json!(!default.unwrap_or(false)),
        FieldKind::Single { options, .. } => json!(options.last().map(|o| o.value.clone())),
        FieldKind::Multi {
            options, min_items, ..
        } => {
            let n = min_items.unwrap_or(2).max(1) as usize;
            Value::Array(
                options
                    .iter()
                    .rev()
                    .take(n)
                    .map(|o| json!(o.value))
                    .collect(),
            )
        }
    }
}

/// Sets of accept content for a form: the example's answer, the defaults
/// (required fields filled), every field set, optional defaults cleared.
fn contents(req: &RequestEvent, fields: &[Field]) -> Vec<Map<String, Value>> {
    let mut sets = Vec::new();
    if let Some(c) = example_content(&req.id) {
        sets.push(c);
    }
    let needed: Map<String, Value> = fields
        .iter()
        .filter(|f| f.required && f.default_value().is_none())
        .map(|f| (f.name.clone(), some_value(f)))
        .collect();
    sets.push(needed.clone());
    sets.push(
        fields
            .iter()
            .map(|f| (f.name.clone(), some_value(f)))
            .collect(),
    );
    let mut cleared = needed;
    for f in fields.iter().filter(|f| !f.required) {
        cleared.insert(f.name.clone(), Value::Null);
    }
    sets.push(cleared);
    sets
}

/// What a person types in plain mode to give `content` (scripted rules:
/// absent keeps the default, null leaves the field out), then `send`.
fn typed_lines(fields: &[Field], content: &Map<String, Value>) -> Vec<String> {
    let mut lines: Vec<String> = fields
        .iter()
        .map(|f| match content.get(&f.name) {
            None => String::new(),
            Some(Value::Null) => "-".into(),
            Some(v) => match (&f.kind, v) {
                (FieldKind::Boolean { .. }, Value::Bool(b)) => (if *b { "y" } else { "n" }).into(),
                (FieldKind::Single { options, .. }, Value::String(s)) => {
                    let k = options.iter().position(|o| &o.value == s).expect("option");
                    (k + 1).to_string()
                }
                (FieldKind::Multi { options, .. }, Value::Array(items)) if items.is_empty() => {
                    let _ = options;
                    "none".into()
                }
                (FieldKind::Multi { options, .. }, Value::Array(items)) => items
                    .iter()
                    .map(|i| {
                        let k = options
                            .iter()
                            .position(|o| o.value == i.as_str().unwrap_or(""));
                        (k.expect("option") + 1).to_string()
                    })
                    .collect::<Vec<_>>()
                    .join(","),
                (_, Value::String(s)) => s.clone(),
                (_, other) => other.to_string(),
            },
        })
        .collect();
    lines.push("send".into());
    lines
}

#[derive(Clone, Default)]
struct Recorder(Arc<Mutex<Vec<String>>>);
impl Launcher for Recorder {
    fn open(&mut self, url: &str) -> Result<(), ahp_elicit::launcher::LaunchError> {
        self.0.lock().unwrap().push(url.to_owned());
        Ok(())
    }
}

fn meta() -> ResultMeta {
    ResultMeta {
        time: Some("2026-11-30T09:05:00Z".into()),
        ..ResultMeta::default()
    }
}

/// The result event plain mode gives for `lines`, and what it launched.
fn plain_result(req: &RequestEvent, lines: &[String]) -> (Value, Vec<String>) {
    let rec = Recorder::default();
    let mut p = PlainResponder::new(MemoryIo::typing(lines), Box::new(rec.clone()), false);
    let a = match p.respond(req, &cx()).expect("plain answers") {
        Outcome::Answer(a) => a,
        Outcome::Quit => panic!("quit"),
    };
    assert!(
        p.io().input.is_empty(),
        "{}: every line read; transcript:\n{}",
        req.id,
        p.io().transcript
    );
    let ev = binding::make_result_event(req, &a, &meta()).expect("valid result");
    let launched = rec.0.lock().unwrap().clone();
    (ev, launched)
}

/// The result event the scripted responder gives for `answer`.
fn scripted_result(req: &RequestEvent, answer: ScriptedAnswer) -> (Value, Vec<String>) {
    let rec = Recorder::default();
    let mut s = ScriptedResponder::new(Answers::Every(answer)).with_launcher(Box::new(rec.clone()));
    let a = match s.respond(req, &cx()).expect("scripted answers") {
        Outcome::Answer(a) => a,
        Outcome::Quit => panic!("quit"),
    };
    let ev = binding::make_result_event(req, &a, &meta()).expect("valid result");
    let launched = rec.0.lock().unwrap().clone();
    (ev, launched)
}

fn bare(action: Action) -> ScriptedAnswer {
    ScriptedAnswer {
        action,
        content: None,
    }
}

fn same(req: &RequestEvent, lines: &[&str], answer: ScriptedAnswer) {
    let lines: Vec<String> = lines.iter().map(|s| s.to_string()).collect();
    assert_eq!(
        plain_result(req, &lines),
        scripted_result(req, answer),
        "{}: typed {lines:?}",
        req.id
    );
}

#[test]
fn plain_and_scripted_give_identical_results_for_every_example() {
    let mut accepts = 0;
    for req in example_requests() {
        match &req.view {
            RequestView::Body(r) => match &r.body {
                RequestBody::Form(schema) => {
                    same(&req, &["^D"], bare(Action::Decline));
                    same(&req, &["^C"], bare(Action::Cancel));
                    for c in contents(&req, &schema.fields) {
                        let lines = typed_lines(&schema.fields, &c);
                        let (p, _) = plain_result(&req, &lines);
                        let (s, _) = scripted_result(
                            &req,
                            ScriptedAnswer {
                                action: Action::Accept,
                                content: Some(c.clone()),
                            },
                        );
                        assert_eq!(p, s, "{}: content {c:?}, typed {lines:?}", req.id);
                        assert_eq!(p["payload"]["elicitation"]["action"], "accept");
                        accepts += 1;
                    }
                }
                RequestBody::Url { .. } => {
                    same(&req, &["open"], bare(Action::Accept));
                    same(&req, &["decline"], bare(Action::Decline));
                    same(&req, &["cancel"], bare(Action::Cancel));
                }
            },
            _ => {
                same(&req, &["decline"], bare(Action::Decline));
                same(&req, &["cancel"], bare(Action::Cancel));
            }
        }
    }
    assert!(accepts >= 12, "accepted forms compared: {accepts}");
}

#[test]
fn the_every_kind_example_answer_is_the_shared_result() {
    let req = example_requests()
        .into_iter()
        .find(|r| r.id == "evt-profile-1")
        .expect("every-kind example");
    let RequestView::Body(r) = &req.view else {
        panic!("a body");
    };
    let RequestBody::Form(schema) = &r.body else {
        panic!("a form");
    };
    let c = example_content(&req.id).expect("example result");
    let (ev, _) = plain_result(&req, &typed_lines(&schema.fields, &c));
    let text = ev["payload"]["elicitation"]["result"]["text"]
        .as_str()
        .expect("text");
    let inner: Value = serde_json::from_str(text).expect("json");
    // The example's answer leaves the defaults of newsletter and region in.
    let mut want = c.clone();
    want.insert("newsletter".into(), json!(false));
    want.insert("region".into(), json!("eu-west"));
    assert_eq!(inner["content"], Value::Object(want));
}
