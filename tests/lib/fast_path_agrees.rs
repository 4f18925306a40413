//! The fast reading of valid events (`binding::fast::read_valid`, taken by
//! `validate::prepare`) against the full reading (`validate::prepare_full`:
//! the whole tree, the wire root and the pinned definitions): over every
//! vector of both revisions, the examples, every hostile case, the SDK
//! forms, the fuzz corpus and generated events near the boundary (valid
//! ones and one mutation away), they give the same verdict and the same
//! reading, and an event the full reading rejects is never taken by the
//! fast one (it falls back, to the same verdict as the full reading's).
//! `respond`'s reading of a request, which keeps
//! what `validate` drops (the params, the message), is compared the same
//! way, and so is the note on a request the strict policy refuses (that
//! the compatible policy reads it as a form), found by the one strict
//! reading, against the compatible policy's own reading.

use ahp_elicit::binding::fast::read_valid;
use ahp_elicit::binding::{
    parse_json, read_request, read_request_noting, ReadOptions, RequestView, SchemaPolicy,
    REQUEST_TYPE,
};
use ahp_elicit::respond::input::{read_event, read_event_full, ReadEvent};
use ahp_elicit::validate::{prepare, prepare_full, split_input, Prepared};
use proptest::prelude::*;
use serde_json::{json, Value};

use crate::common;

/// Whether the fast reading took the event (else it fell back).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Route {
    Fast,
    Fallback,
}

/// Run both readings over `bytes`; a disagreement is returned as text.
/// An event the fast reading does not take goes on to the full reading
/// within `validate::prepare`, with the fast reading's parse of a request's
/// body text handed on: it must give what `prepare_full` (which parses
/// everything itself) gives.
fn agree(bytes: &[u8]) -> Result<Route, String> {
    note_agrees(bytes)?;
    if read_valid(bytes).is_none() {
        let (quick, full) = (prepare(bytes), prepare_full(bytes));
        if quick != full {
            return Err(format!(
                "the fallback differs from the full reading:\n prepare: {quick:?}\n full: {full:?}"
            ));
        }
        return Ok(Route::Fallback);
    }
    let full = prepare_full(bytes);
    let valid_full = match &full {
        Prepared::Done(v) => v.errors.is_empty(),
        Prepared::Request { verdict, .. } | Prepared::Result { verdict, .. } => {
            verdict.errors.is_empty()
        }
    };
    if !valid_full {
        return Err(format!("the fast reading took an invalid event: {full:?}"));
    }
    if matches!(full, Prepared::Done(_)) {
        return Err(format!(
            "the fast reading took another event type: {full:?}"
        ));
    }
    let quick = prepare(bytes);
    if quick != full {
        return Err(format!(
            "the readings differ:\n fast: {quick:?}\n full: {full:?}"
        ));
    }
    respond_agrees(bytes)?;
    Ok(Route::Fast)
}

/// A request the strict reading refuses: whether the compatible policy
/// reads it as a form, as the one strict reading says it
/// (`read_request_noting`, what `validate` and `respond` report), and as
/// the compatible policy's own reading of the event finds it.
fn note_agrees(bytes: &[u8]) -> Result<(), String> {
    let Ok(event) = parse_json(bytes) else {
        return Ok(());
    };
    if event.get("type").and_then(Value::as_str) != Some(REQUEST_TYPE) {
        return Ok(());
    }
    let Err((errors, noted)) = read_request_noting(event.clone()) else {
        return Ok(());
    };
    let compatible = read_request(event, ReadOptions::with_policy(SchemaPolicy::Compatible))
        .is_ok_and(|r| !matches!(r.view, RequestView::NotAForm { .. }));
    if noted != compatible {
        return Err(format!(
            "the note says the compatible policy reads a form: {noted}; its own reading: {compatible}; strict violations: {errors:?}"
        ));
    }
    Ok(())
}

/// `respond`'s reading (`read_event`, which keeps the params and message
/// that `validate` drops) against its full reading, under the strict
/// policy: the same answer, but for the tree the fast reading does not
/// keep.
fn respond_agrees(bytes: &[u8]) -> Result<(), String> {
    let quick = read_event(bytes, SchemaPolicy::Strict);
    let mut full = read_event_full(bytes, SchemaPolicy::Strict);
    if let ReadEvent::Request { request, .. } = &mut full {
        request.event = Value::Null;
    }
    if quick != full {
        return Err(format!(
            "respond's readings differ:\n fast: {quick:?}\n full: {full:?}"
        ));
    }
    Ok(())
}

/// Counts and disagreements over a set of inputs.
#[derive(Default)]
struct Tally {
    fast: usize,
    fallback: usize,
    disagreements: Vec<String>,
}

impl Tally {
    fn check(&mut self, what: impl std::fmt::Display, bytes: &[u8]) {
        match agree(bytes) {
            Ok(Route::Fast) => self.fast += 1,
            Ok(Route::Fallback) => self.fallback += 1,
            Err(e) => self.disagreements.push(format!("{what}: {e}")),
        }
    }

    /// Every event of a stream (split as `validate` splits it).
    fn check_stream(&mut self, what: &str, bytes: &[u8]) {
        let mut chunks = Vec::new();
        split_input(bytes, |c| chunks.push(c)).expect("reading memory");
        for c in chunks {
            if let Ok(b) = c.bytes {
                self.check(format!("{what}:{}", c.line), &b);
            }
        }
    }

    fn assert_none(&self) {
        assert!(
            self.disagreements.is_empty(),
            "{} disagreements:\n{}",
            self.disagreements.len(),
            self.disagreements.join("\n")
        );
    }
}

/// Every event of the vector files: compact and pretty-printed.
fn vector_events() -> Vec<(String, Value, bool)> {
    let mut out = Vec::new();
    for v in common::vectors() {
        let id = v["id"].as_str().unwrap_or("?").to_owned();
        let valid = v["expect"] == "valid";
        for part in ["request", "result"] {
            if let Some(e) = v.get(part) {
                // A request beside a result is valid on its own; the
                // vector's verdict is the pair's.
                let alone_valid = valid || (part == "request" && v.get("result").is_some());
                out.push((format!("{id}/{part}"), e.clone(), alone_valid));
            }
        }
    }
    out
}

#[test]
fn every_vector_and_example_agrees() {
    let mut t = Tally::default();
    let mut taken_valid = 0;
    for (what, e, _) in vector_events() {
        let compact = serde_json::to_vec(&e).expect("json");
        // Taken or not, the step of `validate` gives the full reading's
        // answer (the vectors' invalid events included).
        assert_eq!(prepare(&compact), prepare_full(&compact), "{what}");
        if agree(&compact) == Ok(Route::Fast) {
            taken_valid += 1;
        }
        t.check(&what, &compact);
        t.check(
            format!("{what} (pretty)"),
            &serde_json::to_vec_pretty(&e).expect("json"),
        );
    }
    for f in common::example_files() {
        let bytes = std::fs::read(&f).expect("example");
        t.check_stream(&f.display().to_string(), &bytes);
    }
    t.assert_none();
    // The fast reading is not a reading that refuses everything: the
    // common valid shapes of the vectors go through it.
    assert!(
        taken_valid >= 40,
        "the fast reading took {taken_valid} vector events"
    );
    assert!(
        t.fallback > 0 && t.fast > t.fallback / 4,
        "{} {}",
        t.fast,
        t.fallback
    );
}

#[test]
fn every_hostile_case_agrees() {
    let mut t = Tally::default();
    let cases = common::hostile_cases();
    assert!(cases.len() >= 50, "{} hostile cases", cases.len());
    for c in &cases {
        let bytes = common::hostile_input(c);
        t.check(c.display().to_string(), &bytes);
        t.check_stream(&c.display().to_string(), &bytes);
    }
    t.assert_none();
}

#[test]
fn the_fuzz_corpus_agrees() {
    let mut t = Tally::default();
    for target in ["fast_path", "parse_validate", "form_keys"] {
        let dir = common::root().join("fuzz/corpus").join(target);
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for e in entries {
            let p = e.expect("entry").path();
            let bytes = std::fs::read(&p).expect("corpus file");
            t.check(p.display().to_string(), &bytes);
            if let Some(first) = bytes.split(|b| *b == b'\n').next() {
                t.check(format!("{} (first line)", p.display()), first);
            }
        }
    }
    t.assert_none();
    assert!(
        t.fast + t.fallback > 1000,
        "{} corpus inputs",
        t.fast + t.fallback
    );
}

/// A request event around `params` (text of the body).
fn request(params: &Value, rev: Option<&str>) -> Value {
    let mut e = json!({
        "ahp": "0.1", "id": "evt-1", "type": "user.elicitation.request",
        "time": "2026-11-30T10:00:00Z", "source": {"adapter": "sdk"},
        "payload": {"elicitation": {"server": {"name": "s"}, "mode": "form",
            "request": {"type": "text", "selection": "body", "text": params.to_string()}}}
    });
    if let Some(r) = rev {
        e["extensions"] = json!({"mcp": {"protocolVersion": r}});
    }
    e
}

/// The forms the SDKs send (see `sdk_forms`): a pydantic model, a nested
/// object; read under the strict policy they are outside the closed subset.
fn sdk_forms() -> Vec<Value> {
    vec![
        crate::sdk_forms::booking(),
        json!({
            "type": "object", "title": "Shipping",
            "properties": {
                "recipient": {"type": "string"},
                "address": {"$ref": "#/$defs/Address"},
                "lines": {"type": "array", "items": {"type": "object"}}
            },
            "$defs": {"Address": {"type": "object"}}
        }),
        json!({"type": "object", "properties": {"name": {"type": "string", "title": "Name"}},
            "required": ["name"]}),
    ]
}

#[test]
fn the_sdk_forms_agree() {
    let mut t = Tally::default();
    for (i, schema) in sdk_forms().into_iter().enumerate() {
        for rev in [None, Some("2025-11-25"), Some("2026-07-28")] {
            let params = json!({"message": "Book a table", "requestedSchema": schema});
            let e = request(&params, rev);
            t.check(
                format!("sdk form {i} {rev:?}"),
                &serde_json::to_vec(&e).expect("json"),
            );
        }
    }
    t.assert_none();
    assert_eq!(t.fast, 3, "the plain form is taken under each revision");
}

/// Inputs the derive of serde would read differently from the schemas:
/// the fast reading must refuse each.
#[test]
fn serde_lenience_is_refused() {
    let ok = request(
        &json!({"message": "m", "requestedSchema": {"type": "object", "properties": {}}}),
        None,
    );
    let text = serde_json::to_string(&ok).expect("json");
    assert_eq!(agree(text.as_bytes()), Ok(Route::Fast));
    let cases = [
        // A member given twice.
        text.replacen("\"ahp\":\"0.1\"", "\"ahp\":\"0.1\",\"ahp\":\"0.1\"", 1),
        // null for an optional member.
        text.replacen(
            "{\"adapter\":\"sdk\"}",
            "{\"adapter\":\"sdk\",\"instance\":null}",
            1,
        ),
        text.replacen("\"name\":\"s\"", "\"name\":\"s\",\"title\":null", 1),
        // An object given as an array of its members.
        text.replacen("{\"adapter\":\"sdk\"}", "[\"sdk\"]", 1),
        text.replacen("{\"name\":\"s\"}", "[\"s\"]", 1),
        // An unknown member; a number where a string goes.
        text.replacen("\"ahp\":\"0.1\"", "\"ahp\":\"0.1\",\"x\":1", 1),
        text.replacen("\"ahp\":\"0.1\"", "\"ahp\":0.1", 1),
        // Trailing text.
        format!("{text} x"),
        // Ids the pattern refuses: C0, DEL, C1; too long; empty.
        text.replacen("\"evt-1\"", "\"a\\u0007b\"", 1),
        text.replacen("\"evt-1\"", "\"a\u{7f}b\"", 1),
        text.replacen("\"evt-1\"", "\"a\u{85}b\"", 1),
        text.replacen("\"evt-1\"", &format!("\"{}\"", "é".repeat(257)), 1),
        text.replacen("\"evt-1\"", "\"\"", 1),
    ];
    for c in &cases {
        assert_ne!(text, *c, "the case changed the event");
        assert_eq!(agree(c.as_bytes()), Ok(Route::Fallback), "{c}");
    }
}

/// One step along a JSON tree.
#[derive(Debug, Clone)]
enum Step {
    Key(String),
    Index(usize),
}

/// Every path of `v` (the root included).
fn paths(v: &Value, here: &mut Vec<Step>, out: &mut Vec<Vec<Step>>) {
    out.push(here.clone());
    match v {
        Value::Object(o) => {
            for (k, x) in o {
                here.push(Step::Key(k.clone()));
                paths(x, here, out);
                here.pop();
            }
        }
        Value::Array(a) => {
            for (i, x) in a.iter().enumerate() {
                here.push(Step::Index(i));
                paths(x, here, out);
                here.pop();
            }
        }
        _ => {}
    }
}

fn at_mut<'v>(v: &'v mut Value, path: &[Step]) -> Option<&'v mut Value> {
    path.iter().try_fold(v, |v, s| match s {
        Step::Key(k) => v.get_mut(k),
        Step::Index(i) => v.get_mut(*i),
    })
}

/// Values a mutation puts in: near the rules of the schemas.
fn near_value(i: usize) -> Value {
    let long = "x".repeat(257);
    let values = [
        Value::Null,
        json!(0),
        json!(5.0),
        json!(-1),
        json!(1e300),
        json!(""),
        json!("x"),
        json!("a\u{7}b"),
        json!("a\u{85}b"),
        json!(long),
        json!(true),
        json!([]),
        json!({}),
        json!(["a", "b"]),
        json!([1]),
        json!({"type": "string"}),
        json!({"type": "number", "minimum": 1}),
        json!({"type": "array", "items": {"enum": ["a"], "type": "string"}}),
        json!({"type": "array", "items": {"anyOf": [{"const": "a", "title": "A"}]}}),
        json!({"type": "string", "oneOf": [{"const": "a", "title": "A"}]}),
        json!({"type": "string", "enum": ["a"], "enumNames": ["A"]}),
        json!("2026-02-30T10:00:00Z"),
        json!("2026-11-30T10:00:60Z"),
        json!("2026-11-30t10:00:00z"),
        json!("https://example.com/x"),
        json!("not a uri"),
        json!("form"),
        json!("url"),
        json!("accept"),
        json!("decline"),
        json!("body"),
        json!("metadata"),
        json!("omit"),
        json!("text"),
        json!("2025-11-25"),
        json!("2026-07-28"),
        json!("object"),
        json!("integer"),
        json!("boolean"),
        json!("date"),
        json!("email"),
        json!({"reason": "too-large"}),
        json!({"mcp": {"protocolVersion": "2026-07-28"}}),
        json!({"protocolVersion": "2025-11-25", "inputKey": "k"}),
    ];
    values[i % values.len()].clone()
}

/// Member names a mutation adds.
const NEAR_KEYS: [&str; 20] = [
    "x",
    "type",
    "enum",
    "enumNames",
    "oneOf",
    "anyOf",
    "default",
    "_meta",
    "elicitationId",
    "mode",
    "url",
    "extensions",
    "instance",
    "parentEventId",
    "title",
    "gap",
    "text",
    "format",
    "minimum",
    "content",
];

/// One mutation of `v` at its `p`-th path: `op` picks delete, replace,
/// add a member, or wrap in an array.
fn mutate(v: &mut Value, p: usize, op: u8, pick: usize) {
    let mut all = Vec::new();
    paths(v, &mut Vec::new(), &mut all);
    let path = &all[p % all.len()];
    match op % 4 {
        0 => {
            if let Some((last, parent)) = path.split_last() {
                if let Some(parent) = at_mut(v, parent) {
                    match (parent, last) {
                        (Value::Object(o), Step::Key(k)) => {
                            o.shift_remove(k);
                        }
                        (Value::Array(a), Step::Index(i)) => {
                            a.remove(*i);
                        }
                        _ => {}
                    }
                }
            }
        }
        1 => {
            if let Some(x) = at_mut(v, path) {
                *x = near_value(pick);
            }
        }
        2 => {
            if let Some(Value::Object(o)) = at_mut(v, path) {
                o.insert(
                    NEAR_KEYS[pick % NEAR_KEYS.len()].into(),
                    near_value(pick / 7),
                );
            }
        }
        _ => {
            if let Some(x) = at_mut(v, path) {
                *x = Value::Array(vec![x.take()]);
            }
        }
    }
}

/// The body text of an event, parsed, when it is JSON.
fn body_of(e: &Value) -> Option<(&'static str, Value)> {
    for part in ["request", "result"] {
        let t = e["payload"]["elicitation"][part]["text"].as_str();
        if let Some(v) = t.and_then(|t| serde_json::from_str(t).ok()) {
            return Some((part, v));
        }
    }
    None
}

fn valid_bases() -> Vec<Value> {
    vector_events()
        .into_iter()
        .filter(|(_, e, _)| agree(&serde_json::to_vec(e).expect("json")) == Ok(Route::Fast))
        .map(|(_, e, _)| e)
        .collect()
}

/// The structure of a value (member names and positions, not the leaves).
fn shape(v: &Value) -> String {
    match v {
        Value::Object(o) => {
            let inner: Vec<String> = o.iter().map(|(k, x)| format!("{k}:{}", shape(x))).collect();
            format!("{{{}}}", inner.join(","))
        }
        Value::Array(a) => format!("[{}]", a.iter().map(shape).collect::<Vec<_>>().join(",")),
        _ => "_".into(),
    }
}

/// The number of mutations [`mutate`] has for one path: delete, wrap, and
/// each near value put in place or added under each near member name.
const MUTATIONS: usize = 2 + 44 + NEAR_KEYS.len();

/// The `m`-th mutation of `v` at its `p`-th path (see [`MUTATIONS`]).
fn mutate_nth(v: &mut Value, p: usize, m: usize) {
    match m {
        0 => mutate(v, p, 0, 0),
        1 => mutate(v, p, 3, 0),
        m if m < 2 + 44 => mutate(v, p, 1, m - 2),
        m => mutate(v, p, 2, m - 2 - 44 + 7 * (m % 44)),
    }
}

/// Every event one mutation away from a valid one (one base per shape of
/// the valid vector events), in the envelope and in the body text.
#[test]
fn every_one_mutation_neighbour_agrees() {
    let mut seen = std::collections::HashSet::new();
    let bases: Vec<Value> = valid_bases()
        .into_iter()
        .filter(|e| {
            let body = body_of(e).map(|(_, b)| shape(&b)).unwrap_or_default();
            seen.insert(format!("{}{body}", shape(e)))
        })
        .collect();
    assert!(bases.len() >= 10, "{} shapes", bases.len());
    let mut t = Tally::default();
    for (i, base) in bases.iter().enumerate() {
        let mut all = Vec::new();
        paths(base, &mut Vec::new(), &mut all);
        for p in 0..all.len() {
            for m in 0..MUTATIONS {
                let mut e = base.clone();
                mutate_nth(&mut e, p, m);
                if e == *base {
                    continue;
                }
                let bytes = serde_json::to_vec(&e).expect("json");
                t.check(format_args!("base {i} path {p} mutation {m}: {e}"), &bytes);
            }
        }
        if let Some((part, body)) = body_of(base) {
            let mut all = Vec::new();
            paths(&body, &mut Vec::new(), &mut all);
            for p in 0..all.len() {
                for m in 0..MUTATIONS {
                    let mut b = body.clone();
                    mutate_nth(&mut b, p, m);
                    if b == body {
                        continue;
                    }
                    let mut e = base.clone();
                    e["payload"]["elicitation"][part]["text"] = Value::String(b.to_string());
                    let bytes = serde_json::to_vec(&e).expect("json");
                    t.check(
                        format_args!("base {i} body path {p} mutation {m}: {b}"),
                        &bytes,
                    );
                }
            }
        }
    }
    eprintln!(
        "one mutation away: {} taken by the fast reading, {} fell back",
        t.fast, t.fallback
    );
    t.assert_none();
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1000, ..ProptestConfig::default() })]

    /// A valid event (one the fast reading takes) with at most one
    /// mutation, in the envelope or in the body text.
    #[test]
    fn events_near_the_boundary_agree(
        base in any::<prop::sample::Index>(),
        in_body in any::<bool>(),
        mutated in any::<bool>(),
        p in any::<usize>(),
        op in any::<u8>(),
        pick in any::<usize>(),
        pretty in any::<bool>(),
    ) {
        thread_local! {
            static BASES: Vec<Value> = valid_bases();
        }
        let mut e = BASES.with(|b| b[base.index(b.len())].clone());
        if mutated {
            match body_of(&e) {
                Some((part, mut body)) if in_body => {
                    mutate(&mut body, p, op, pick);
                    e["payload"]["elicitation"][part]["text"] = Value::String(body.to_string());
                }
                _ => mutate(&mut e, p, op, pick),
            }
        }
        let bytes = if pretty {
            serde_json::to_vec_pretty(&e)
        } else {
            serde_json::to_vec(&e)
        }
        .expect("json");
        let r = agree(&bytes);
        prop_assert!(r.is_ok(), "{}\n{}", String::from_utf8_lossy(&bytes), r.unwrap_err());
        if !mutated {
            prop_assert_eq!(r, Ok(Route::Fast));
        }
    }
}
