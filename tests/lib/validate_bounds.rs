//! `validate`'s memory of requests is bounded: a result whose request was
//! let go is checked on its own (never an error), one whose request is
//! still remembered gets the cross-checks.

use ahp_elicit::validate::{Checker, MAX_REMEMBERED};
use serde_json::Value;

fn example(name: &str) -> Value {
    let path = format!("{}/examples/{name}", env!("CARGO_MANIFEST_DIR"));
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn bytes(v: &Value) -> Vec<u8> {
    serde_json::to_vec(v).unwrap()
}

/// The example result, answering request `parent`, from a server whose
/// name differs from the request's: valid on its own, invalid against the
/// request (`server-identity`).
fn mismatched_result(parent: &str) -> Vec<u8> {
    let mut res = example("form-every-kind.result.json");
    res["parentEventId"] = parent.into();
    res["payload"]["elicitation"]["server"]["name"] = "someone-else".into();
    bytes(&res)
}

fn request(id: &str) -> Vec<u8> {
    let mut req = example("form-every-kind.request.json");
    req["id"] = id.into();
    bytes(&req)
}

#[test]
fn a_remembered_request_cross_checks_its_result() {
    let mut c = Checker::new(Vec::new());
    assert!(c.check(&request("first")).errors.is_empty());
    let v = c.check(&mismatched_result("first"));
    let rules: Vec<&str> = v.errors.iter().map(|e| e.rule.as_str()).collect();
    assert_eq!(rules, vec!["server-identity"]);
    assert_eq!(c.forgotten(), (0, 0));
}

#[test]
fn a_result_whose_request_was_let_go_is_checked_on_its_own() {
    let mut c = Checker::new(Vec::new());
    assert!(c.check(&request("first")).errors.is_empty());
    for i in 0..MAX_REMEMBERED {
        assert!(c.check(&request(&format!("r{i}"))).errors.is_empty());
    }
    let v = c.check(&mismatched_result("first"));
    assert_eq!(v.id.as_deref(), Some("evt-profile-1-result"));
    assert!(v.errors.is_empty(), "{:?}", v.errors);
    // Let go by the count or, for these large requests, by the bytes
    // (MAX_REMEMBERED_BYTES) first.
    let (forgotten, alone) = c.forgotten();
    assert!(forgotten >= 1, "{forgotten}");
    assert_eq!(alone, 1);
    // The latest one is still there.
    let last = format!("r{}", MAX_REMEMBERED - 1);
    let v = c.check(&mismatched_result(&last));
    assert_eq!(v.errors.len(), 1, "{:?}", v.errors);
    assert_eq!(v.errors[0].rule, "server-identity");
}

#[test]
fn a_repeated_id_keeps_the_latest_request_and_the_bound() {
    let mut c = Checker::new(Vec::new());
    for _ in 0..(MAX_REMEMBERED + 10) {
        assert!(c.check(&request("same")).errors.is_empty());
    }
    // Replaced, never let go: the one id is still cross-checked.
    assert_eq!(c.forgotten(), (0, 0));
    let v = c.check(&mismatched_result("same"));
    assert_eq!(v.errors.len(), 1, "{:?}", v.errors);
}

/// The example request with a member holding `levels` nested arrays, as
/// compact text: the event's nesting depth is `levels + 1`.
fn request_nested(levels: usize) -> Vec<u8> {
    let mut deep = Value::Array(Vec::new());
    for _ in 1..levels {
        deep = Value::Array(vec![deep]);
    }
    let mut req = example("form-every-kind.request.json");
    req["deep"] = deep;
    let b = bytes(&req);
    assert_eq!(ahp_elicit::binding::limits::json_depth(&b), levels + 1);
    b
}

/// The nesting depth is checked once for the fast and the full reading
/// (`prepare`), before either: at the limit the event is read (and refused
/// for its unknown member, not for its depth); one over, the one `limits`
/// violation, at the root, with the same words as the full reading's, under
/// both policies.
#[test]
fn nesting_depth_at_the_limit_and_one_over() {
    use ahp_elicit::binding::limits::MAX_DEPTH;
    use ahp_elicit::binding::{Rule, SchemaPolicy};
    use ahp_elicit::validate::{prepare, prepare_full, prepare_with, Prepared};

    let at = request_nested(MAX_DEPTH - 1);
    let Prepared::Done(v) = prepare(&at) else {
        panic!("an unknown member is refused");
    };
    assert!(!v.errors.is_empty());
    assert!(v.errors.iter().all(|e| e.rule != Rule::Limits), "{v:?}");
    assert_eq!(v.id.as_deref(), Some("evt-profile-1"), "{v:?}");
    assert_eq!(prepare(&at), prepare_full(&at));

    let over = request_nested(MAX_DEPTH);
    for p in [SchemaPolicy::Strict, SchemaPolicy::Compatible] {
        let Prepared::Done(v) = prepare_with(&over, p) else {
            panic!("too deep is refused");
        };
        assert_eq!((v.id, v.ty), (None, None));
        assert_eq!(v.errors.len(), 1, "{:?}", v.errors);
        let e = &v.errors[0];
        assert_eq!((&e.rule, e.location.pointer.as_str()), (&Rule::Limits, ""));
        assert_eq!(e.location.part, None);
        assert_eq!(e.message, "nesting depth 65 exceeds the limit of 64");
    }
    assert_eq!(prepare(&over), prepare_full(&over));
}
