//! The embedded schemas: the wire root with its
//! eight overlays and the text part, the generated MCP subset with its
//! named schema.ts overrides, the open-upstream inputs the closed subset
//! rejects, precise pointers, and asserted formats.

use crate::common;

use ahp_elicit::binding::schemas::{
    compile_offline, run, validate_event, validate_mcp_request, validate_mcp_result,
};
use ahp_elicit::binding::violation::Schema;
use ahp_elicit::binding::{Revision, Violation};
use ahp_elicit::upstream::{self, OVERRIDES};
use serde_json::{json, Value};

// ---------------------------------------------------------------- helpers

/// (pointer, rule) of each violation: what must agree across revisions.
fn places(errs: &[Violation]) -> Vec<(String, String)> {
    errs.iter()
        .map(|e| (e.pointer(), e.rule.to_string()))
        .collect()
}

/// `params` against the request definition of every pinned revision: the
/// closed form subset is the same in each, so they must agree on every
/// place and rule, and each message names its revision. Returns the
/// default revision's violations.
fn every_rev_request(params: &Value) -> Vec<Violation> {
    every_rev(params, validate_mcp_request)
}

/// [`every_rev_request`] for the result definition.
fn every_rev_result(result: &Value) -> Vec<Violation> {
    every_rev(result, validate_mcp_result)
}

fn every_rev(v: &Value, check: fn(Revision, &Value) -> Vec<Violation>) -> Vec<Violation> {
    let first = check(Revision::DEFAULT, v);
    for rev in Revision::ALL.iter().copied() {
        let errs = check(rev, v);
        assert_eq!(places(&errs), places(&first), "MCP {rev} on {v}");
        for e in &errs {
            assert!(e.message.ends_with(&rev.tag()), "{e} names MCP {rev}");
        }
    }
    first
}

/// The params against the 2025-11-25 definition only (`_meta`, `task`,
/// `elicitationId` are defined there).
fn request_2025(params: &Value) -> Vec<Violation> {
    validate_mcp_request(Revision::V2025_11_25, params)
}

/// The result against the 2025-11-25 definition only.
fn result_2025(result: &Value) -> Vec<Violation> {
    validate_mcp_result(Revision::V2025_11_25, result)
}

fn event(ty: &str, payload: Value) -> Value {
    json!({
        "ahp": "0.1",
        "id": "evt-1",
        "type": ty,
        "time": "2026-11-30T05:26:41.120Z",
        "source": {"adapter": "mcp-stdio", "instance": "laptop-1"},
        "payload": payload
    })
}

fn with(mut v: Value, ptr: &str, x: Value) -> Value {
    let (parent, key) = ptr.rsplit_once('/').unwrap();
    let p = if parent.is_empty() {
        &mut v
    } else {
        v.pointer_mut(parent).unwrap()
    };
    match p {
        Value::Object(o) => {
            o.insert(key.to_owned(), x);
        }
        Value::Array(a) => a[key.parse::<usize>().unwrap()] = x,
        _ => panic!("not a container at {parent}"),
    }
    v
}

fn without(mut v: Value, ptr: &str) -> Value {
    let (parent, key) = ptr.rsplit_once('/').unwrap();
    let p = if parent.is_empty() {
        &mut v
    } else {
        v.pointer_mut(parent).unwrap()
    };
    p.as_object_mut().unwrap().remove(key);
    v
}

fn body(t: &str) -> Value {
    json!({"type": "text", "selection": "body", "text": t})
}

/// Exactly one violation, at `pointer` with `rule`.
#[track_caller]
fn one(errs: Vec<Violation>, pointer: &str, rule: &str) -> Violation {
    assert_eq!(errs.len(), 1, "expected one violation, got {errs:#?}");
    assert_eq!(errs[0].pointer(), pointer, "{errs:#?}");
    assert_eq!(errs[0].rule, rule, "{errs:#?}");
    assert!(!errs[0].message.is_empty());
    errs.into_iter().next().unwrap()
}

#[track_caller]
fn valid(errs: Vec<Violation>) {
    assert!(errs.is_empty(), "expected valid, got {errs:#?}");
}

fn change() -> Value {
    json!({"change": {
        "source": "project", "scope": "session",
        "settings": ["editor.theme", "model"],
        "summary": body("theme: dark; model: pinned")
    }})
}

fn attention() -> Value {
    json!({"attention": {
        "kind": "input-needed",
        "message": body("The agent waits for your answer."),
        "title": {"type": "text", "selection": "metadata"}
    }})
}

fn elicitation_request() -> Value {
    json!({"elicitation": {
        "server": {"name": "github", "title": "GitHub", "version": "1.4.0"},
        "mode": "form",
        "request": body(r#"{"message":"Name?","requestedSchema":{"type":"object","properties":{"name":{"type":"string"}}}}"#)
    }})
}

fn elicitation_result() -> Value {
    json!({"elicitation": {
        "server": {"name": "github"},
        "mode": "form", "action": "accept",
        "result": body(r#"{"action":"accept","content":{"name":"demo"}}"#)
    }})
}

fn inbound() -> Value {
    json!({"message": {
        "channel": "slack:#ops",
        "sender": {"id": "U123", "display": "Ada"},
        "messages": [{"role": "user", "parts": [
            body("deploy please"),
            {"type": "json", "value": {"ticket": 17}},
            {"type": "attachment", "ref": {
                "uri": "blob:sha256/ab", "sha256": "a".repeat(64),
                "mediaType": "image/png", "size": 2048}},
            {"type": "text", "selection": "body", "gap": {"reason": "too-large", "detail": "3 MB"}}
        ]}]
    }})
}

fn outbound() -> Value {
    json!({"message": {
        "channel": "slack:#ops",
        "messages": [{"role": "assistant", "parts": [body("Deployed.")]}]
    }})
}

fn failure() -> Value {
    json!({"failure": {
        "backendId": "audit-1", "subscription": "sub-9",
        "reason": "timeout", "policy": "fail-closed", "detail": "no answer in 5 s"
    }})
}

fn with_parent(mut e: Value) -> Value {
    e["parentEventId"] = json!("evt-0");
    e
}

/// One valid event of each of the eight types.
fn valid_events() -> Vec<Value> {
    vec![
        event("config.change.before", change()),
        event("config.change.after", change()),
        event("user.attention", attention()),
        event("user.elicitation.request", elicitation_request()),
        with_parent(event("user.elicitation.result", elicitation_result())),
        event("user.message.inbound", inbound()),
        event("user.message.outbound", outbound()),
        with_parent(event("hook.failure", failure())),
    ]
}

// ------------------------------------------------------ the eight overlays

#[test]
fn each_of_the_eight_event_types_is_valid() {
    let events = valid_events();
    let types: Vec<&str> = events.iter().map(|e| e["type"].as_str().unwrap()).collect();
    assert_eq!(types.len(), 8);
    for e in &events {
        valid(validate_event(e));
    }
}

#[test]
fn config_change_before_invalid() {
    let e = event("config.change.before", change());
    one(
        validate_event(&with(e.clone(), "/payload/change/settings", json!([]))),
        "/payload/change/settings",
        "wire-root/minItems",
    );
    // Settings are keys, never values.
    one(
        validate_event(&with(
            e.clone(),
            "/payload/change/settings",
            json!([{"key": "token", "value": "s3cret"}]),
        )),
        "/payload/change/settings/0",
        "wire-root/type",
    );
    one(
        validate_event(&with(e, "/payload/change/scope", json!("global"))),
        "/payload/change/scope",
        "wire-root/enum",
    );
}

#[test]
fn config_change_after_invalid() {
    let e = event("config.change.after", change());
    one(
        validate_event(&with(
            e.clone(),
            "/payload/change/settings",
            json!(["a", "a"]),
        )),
        "/payload/change/settings",
        "wire-root/uniqueItems",
    );
    one(
        validate_event(&without(e, "/payload/change/summary")),
        "/payload/change",
        "wire-root/required",
    );
}

#[test]
fn user_attention_invalid() {
    let e = event("user.attention", attention());
    one(
        validate_event(&with(
            e.clone(),
            "/payload/attention/kind",
            json!("approve"),
        )),
        "/payload/attention/kind",
        "wire-root/enum",
    );
    // message is a single text part, not a list of parts.
    one(
        validate_event(&with(e, "/payload/attention/message", json!([body("x")]))),
        "/payload/attention/message",
        "wire-root/type",
    );
}

#[test]
fn user_elicitation_request_invalid() {
    let e = event("user.elicitation.request", elicitation_request());
    one(
        validate_event(&with(
            e.clone(),
            "/payload/elicitation/server/user",
            json!("ada"),
        )),
        "/payload/elicitation/server/user",
        "wire-root/additionalProperties",
    );
    one(
        validate_event(&with(
            e.clone(),
            "/payload/elicitation/mode",
            json!("modal"),
        )),
        "/payload/elicitation/mode",
        "wire-root/enum",
    );
    one(
        validate_event(&without(e.clone(), "/payload/elicitation/mode")),
        "/payload/elicitation",
        "wire-root/required",
    );
    // An elicitation request is never an attachment reference.
    let v = validate_event(&with(
        e,
        "/payload/elicitation/request",
        json!({"type": "attachment", "ref": {}}),
    ));
    assert!(
        v.iter()
            .any(|x| x.pointer() == "/payload/elicitation/request/type"
                && x.rule == "wire-root/const")
    );
}

#[test]
fn user_elicitation_result_invalid() {
    let e = with_parent(event("user.elicitation.result", elicitation_result()));
    // parentEventId is required by the result overlay.
    one(
        validate_event(&without(e.clone(), "/parentEventId")),
        "",
        "wire-root/required",
    );
    one(
        validate_event(&with(e.clone(), "/payload/elicitation/action", json!("ok"))),
        "/payload/elicitation/action",
        "wire-root/enum",
    );
    one(
        validate_event(&without(e, "/payload/elicitation/action")),
        "/payload/elicitation",
        "wire-root/required",
    );
}

#[test]
fn user_message_inbound_invalid() {
    let e = event("user.message.inbound", inbound());
    // Inbound messages have role user.
    let v = one(
        validate_event(&with(
            e.clone(),
            "/payload/message/messages/0/role",
            json!("assistant"),
        )),
        "/payload/message/messages/0/role",
        "wire-root/const",
    );
    assert!(v.message.contains("inbound messages have role user"), "{v}");
    one(
        validate_event(&without(e.clone(), "/payload/message/sender")),
        "/payload/message",
        "wire-root/required",
    );
    one(
        validate_event(&with(e.clone(), "/payload/message/messages", json!([]))),
        "/payload/message/messages",
        "wire-root/minItems",
    );
    // Attachments are for non-text, non-JSON media only.
    one(
        validate_event(&with(
            e.clone(),
            "/payload/message/messages/0/parts/2/ref/mediaType",
            json!("text/plain"),
        )),
        "/payload/message/messages/0/parts/2/ref/mediaType",
        "wire-root/not",
    );
    one(
        validate_event(&with(
            e.clone(),
            "/payload/message/messages/0/parts/2/ref/mediaType",
            json!("application/ld+json"),
        )),
        "/payload/message/messages/0/parts/2/ref/mediaType",
        "wire-root/not",
    );
    one(
        validate_event(&with(
            e.clone(),
            "/payload/message/messages/0/parts/2/ref/sha256",
            json!("abc"),
        )),
        "/payload/message/messages/0/parts/2/ref/sha256",
        "wire-root/pattern",
    );
    one(
        validate_event(&with(
            e.clone(),
            "/payload/message/messages/0/parts/2/ref/size",
            json!(-1),
        )),
        "/payload/message/messages/0/parts/2/ref/size",
        "wire-root/minimum",
    );
    // A part of an unknown kind: one error, at its type.
    one(
        validate_event(&with(
            e,
            "/payload/message/messages/0/parts/1",
            json!({"type": "upload", "bytes": "AAAA"}),
        )),
        "/payload/message/messages/0/parts/1/type",
        "wire-root/enum",
    );
}

#[test]
fn user_message_outbound_invalid() {
    let e = event("user.message.outbound", outbound());
    one(
        validate_event(&with(
            e.clone(),
            "/payload/message/messages/0/role",
            json!("user"),
        )),
        "/payload/message/messages/0/role",
        "wire-root/const",
    );
    // Only inbound carries a sender.
    one(
        validate_event(&with(e, "/payload/message/sender", json!({"id": "U1"}))),
        "/payload/message/sender",
        "wire-root/additionalProperties",
    );
}

#[test]
fn hook_failure_invalid() {
    let e = with_parent(event("hook.failure", failure()));
    one(
        validate_event(&without(e.clone(), "/parentEventId")),
        "",
        "wire-root/required",
    );
    one(
        validate_event(&with(e.clone(), "/payload/failure/policy", json!("retry"))),
        "/payload/failure/policy",
        "wire-root/enum",
    );
    one(
        validate_event(&without(e, "/payload/failure/backendId")),
        "/payload/failure",
        "wire-root/required",
    );
}

#[test]
fn payload_is_owned_by_the_overlay_and_closed() {
    // A result payload under a request type: the overlay decides.
    let e = event("user.elicitation.request", elicitation_result());
    let errs = validate_event(&e);
    assert!(errs
        .iter()
        .any(|x| x.pointer() == "/payload/elicitation/action"
            && x.rule == "wire-root/additionalProperties"));
    // An extra payload member.
    one(
        validate_event(&with(
            event("user.attention", attention()),
            "/payload/extra",
            json!(1),
        )),
        "/payload/extra",
        "wire-root/additionalProperties",
    );
}

// ------------------------------------------------------------ the envelope

#[test]
fn envelope_is_closed_and_extensions_open() {
    let e = event("user.attention", attention());
    one(
        validate_event(&with(e.clone(), "/meta", json!({}))),
        "/meta",
        "wire-root/additionalProperties",
    );
    one(
        validate_event(&with(e.clone(), "/source/user", json!("ada"))),
        "/source/user",
        "wire-root/additionalProperties",
    );
    one(
        validate_event(&without(e.clone(), "/source/adapter")),
        "/source",
        "wire-root/required",
    );
    one(
        validate_event(&with(e.clone(), "/ahp", json!("0.2"))),
        "/ahp",
        "wire-root/const",
    );
    valid(validate_event(&with(
        e,
        "/extensions",
        json!({"vendor.example/anything": {"deep": [1, {"x": null}]}}),
    )));
}

#[test]
fn unknown_type_is_one_error_at_type() {
    let e = event("user.elicitation.complete", json!({}));
    one(validate_event(&e), "/type", "wire-root/enum");
}

#[test]
fn id_rules() {
    let e = event("user.attention", attention());
    valid(validate_event(&with(
        e.clone(),
        "/id",
        json!("é".repeat(256)),
    )));
    one(
        validate_event(&with(e.clone(), "/id", json!("x".repeat(257)))),
        "/id",
        "wire-root/maxLength",
    );
    one(
        validate_event(&with(e.clone(), "/id", json!(""))),
        "/id",
        "wire-root/minLength",
    );
    for bad in ["evt\n1", "evt\u{7f}", "evt\u{85}", "\u{0}"] {
        one(
            validate_event(&with(e.clone(), "/id", json!(bad))),
            "/id",
            "wire-root/pattern",
        );
    }
    one(
        validate_event(&with(e, "/parentEventId", json!("a\tb"))),
        "/parentEventId",
        "wire-root/pattern",
    );
}

#[test]
fn formats_are_asserted() {
    let e = event("user.attention", attention());
    for bad in [
        "yesterday",
        "2026-11-30",
        "2026-11-30T25:00:00Z",
        "2026-11-30 05:26:41Z",
    ] {
        let v = one(
            validate_event(&with(e.clone(), "/time", json!(bad))),
            "/time",
            "wire-root/format",
        );
        assert!(v.message.contains("date-time"), "{v}");
    }
    valid(validate_event(&with(
        e,
        "/time",
        json!("2026-11-30T05:26:41+01:00"),
    )));
    // The MCP URL request's url is format uri, asserted too.
    let errs = request_2025(&json!({
        "mode": "url", "message": "m", "url": "not a url", "elicitationId": "x"
    }));
    one(errs, "/url", "mcp-request/format");
}

// ------------------------------------------------------------ the text part

#[test]
fn text_part_selection_rules() {
    let e = event("user.attention", attention());
    let at = "/payload/attention/message";
    let part = |p: Value| with(e.clone(), at, p);
    valid(validate_event(&part(
        json!({"type": "text", "selection": "omit"}),
    )));
    valid(validate_event(&part(
        json!({"type": "text", "selection": "metadata"}),
    )));
    valid(validate_event(&part(
        json!({"type": "text", "selection": "body", "gap": {"reason": "unavailable"}}),
    )));
    // body: exactly one of text and gap.
    one(
        validate_event(&part(json!({"type": "text", "selection": "body"}))),
        at,
        "wire-root/required",
    );
    let v = one(
        validate_event(&part(
            json!({"type": "text", "selection": "body", "text": "x",
            "gap": {"reason": "error"}}),
        )),
        &format!("{at}/text"),
        "wire-root/falseSchema",
    );
    assert!(v.message.contains("exactly one of text and gap"), "{v}");
    // text or gap only under body.
    one(
        validate_event(&part(
            json!({"type": "text", "selection": "metadata", "text": "x"}),
        )),
        &format!("{at}/text"),
        "wire-root/falseSchema",
    );
    one(
        validate_event(&part(
            json!({"type": "text", "selection": "omit", "gap": {"reason": "error"}}),
        )),
        &format!("{at}/gap"),
        "wire-root/falseSchema",
    );
    one(
        validate_event(&part(
            json!({"type": "text", "selection": "body", "gap": {"reason": "lost"}}),
        )),
        &format!("{at}/gap/reason"),
        "wire-root/enum",
    );
    one(
        validate_event(&part(
            json!({"type": "text", "selection": "all", "text": "x"}),
        )),
        &format!("{at}/selection"),
        "wire-root/enum",
    );
    // No upload: a part carries no other member.
    one(
        validate_event(&part(
            json!({"type": "text", "selection": "body", "text": "x", "ref": "blob:1"}),
        )),
        &format!("{at}/ref"),
        "wire-root/additionalProperties",
    );
}

#[test]
fn every_shared_example_is_valid_through_the_wire_root() {
    let mut n = 0;
    for p in common::example_files() {
        for d in common::example_documents(&p) {
            assert!(validate_event(&d).is_empty(), "{}", p.display());
            n += 1;
        }
    }
    assert!(n >= 7, "{n} example events");
}

// ------------------------------------------- the closed MCP request subset

fn form(props: Value) -> Value {
    json!({"mode": "form", "message": "m",
        "requestedSchema": {"type": "object", "properties": props}})
}

#[test]
fn pattern_keyword_is_one_error_at_the_keyword() {
    let errs = every_rev_request(&form(json!({
        "postcode": {"type": "string", "pattern": "^[0-9]{4}$"}
    })));
    let v = one(
        errs,
        "/requestedSchema/properties/postcode/pattern",
        "mcp-request/additionalProperties",
    );
    assert!(v.message.contains("'pattern'"), "{v}");
    assert!(v.message.contains("closed form subset"), "{v}");
}

#[test]
fn additional_properties_on_requested_schema_is_rejected() {
    let mut p = form(json!({"a": {"type": "string"}}));
    p["requestedSchema"]["additionalProperties"] = json!(false);
    one(
        every_rev_request(&p),
        "/requestedSchema/additionalProperties",
        "mcp-request/additionalProperties",
    );
}

#[test]
fn enum_not_an_array_is_rejected() {
    // The open upstream union lets this through as a plain StringSchema.
    one(
        every_rev_request(&form(json!({"size": {"type": "string", "enum": "abc"}}))),
        "/requestedSchema/properties/size/enum",
        "mcp-request/type",
    );
}

#[test]
fn one_of_items_without_title_are_rejected() {
    one(
        every_rev_request(&form(json!({"plan": {"type": "string",
            "oneOf": [{"const": "free", "title": "Free"}, {"const": "team"}]}}))),
        "/requestedSchema/properties/plan/oneOf/1",
        "mcp-request/required",
    );
}

#[test]
fn unknown_keyword_is_rejected() {
    one(
        every_rev_request(&form(
            json!({"ok": {"type": "boolean", "x-widget": "toggle"}}),
        )),
        "/requestedSchema/properties/ok/x-widget",
        "mcp-request/additionalProperties",
    );
    // Also inside the titled multi-select's items and options.
    one(
        every_rev_request(&form(json!({"tags": {"type": "array",
            "items": {"anyOf": [{"const": "a", "title": "A", "icon": "x"}]}}}))),
        "/requestedSchema/properties/tags/items/anyOf/0/icon",
        "mcp-request/additionalProperties",
    );
    // A nested object is no primitive kind: one error at its type.
    one(
        every_rev_request(&form(json!({"addr": {"type": "object", "properties": {}}}))),
        "/requestedSchema/properties/addr/type",
        "mcp-request/enum",
    );
}

#[test]
#[ignore = "needs the pinned upstream files: run `ahp-elicit upstream refresh` or set AHP_UPSTREAM_DIR"]
fn the_raw_upstream_union_accepts_what_the_closed_subset_rejects() {
    let raw = raw_def("ElicitRequestFormParams");
    let open_inputs = [
        form(json!({"postcode": {"type": "string", "pattern": "^[0-9]{4}$"}})),
        form(json!({"size": {"type": "string", "enum": "abc"}})),
        form(json!({"plan": {"type": "string", "oneOf": [{"const": "team"}]}})),
        form(json!({"ok": {"type": "boolean", "x-widget": "toggle"}})),
        {
            let mut p = form(json!({}));
            p["requestedSchema"]["additionalProperties"] = json!(true);
            p
        },
    ];
    for p in &open_inputs {
        assert!(raw.is_valid(p), "raw upstream accepts {p}");
        assert!(
            !every_rev_request(p).is_empty(),
            "closed subset rejects {p}"
        );
    }
}

#[test]
fn every_primitive_kind_is_valid() {
    valid(every_rev_request(&json!({
        "message": "m",
        "requestedSchema": {"$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "object", "required": ["s"], "properties": {
            "s": {"type": "string", "title": "S", "description": "d", "minLength": 1,
                  "maxLength": 9, "format": "email", "default": "a@b.c"},
            "n": {"type": "number", "minimum": 0.5, "maximum": 9.5, "default": 1.5},
            "i": {"type": "integer", "minimum": 1, "maximum": 9, "default": 2},
            "b": {"type": "boolean", "default": true},
            "e": {"type": "string", "enum": ["a", "b"], "default": "a"},
            "t": {"type": "string", "oneOf": [{"const": "a", "title": "A"}]},
            "l": {"type": "string", "enum": ["a"], "enumNames": ["A"]},
            "m": {"type": "array", "items": {"type": "string", "enum": ["a"]},
                  "minItems": 0, "maxItems": 1, "default": ["a"]},
            "mt": {"type": "array", "items": {"anyOf": [{"const": "a", "title": "A"}]}}
        }},
        "_meta": {"progressToken": 7, "vendor.example/x": {"open": true}},
        "task": {"ttl": 60000, "vendor": "open"},
        "vendorExtension": 1
    })));
    valid(request_2025(&json!({
        "mode": "url", "message": "m", "url": "https://example.com/x",
        "elicitationId": "e-1", "_meta": {"k": 1}, "extra": true
    })));
}

#[test]
fn meta_and_task_types() {
    one(
        request_2025(&json!({"message": "m",
            "requestedSchema": {"type": "object", "properties": {}}, "_meta": "x"})),
        "/_meta",
        "mcp-request/type",
    );
    one(
        request_2025(&json!({"message": "m",
            "requestedSchema": {"type": "object", "properties": {}}, "task": {"ttl": "1m"}})),
        "/task/ttl",
        "mcp-request/type",
    );
}

#[test]
fn url_mode_errors_are_in_the_url_definition() {
    let errs = request_2025(&json!({"mode": "url", "message": "m", "url": "https://a.example"}));
    one(errs, "", "mcp-request/required");
}

// ------------------------------------------------- the result definition

#[test]
fn result_content_values() {
    valid(every_rev_result(&json!({"action": "accept",
        "content": {"s": "x", "n": 4.5, "i": 3, "b": false, "l": ["a", "b"]},
        "_meta": {"io.modelcontextprotocol/related-task": {"taskId": "t"}}})));
    valid(every_rev_result(&json!({"action": "decline", "vendor": 1})));
    one(
        every_rev_result(&json!({"action": "accept", "content": {"l": ["a", 1]}})),
        "/content/l/1",
        "mcp-result/type",
    );
    one(
        every_rev_result(&json!({"action": "accept", "content": {"o": {"x": 1}}})),
        "/content/o",
        "mcp-result/type",
    );
    one(
        every_rev_result(&json!({"action": "accept", "content": {"z": null}})),
        "/content/z",
        "mcp-result/type",
    );
    one(
        every_rev_result(&json!({"action": "ok"})),
        "/action",
        "mcp-result/enum",
    );
}

// ---------------------------------- the named schema.ts overrides, each tested

/// A validator for one definition of the raw tagged `schema.json`.
fn raw_def(name: &str) -> jsonschema::Validator {
    raw_def_of(Revision::V2025_11_25, name)
}

/// [`raw_def`] of `rev`'s tagged `schema.json`.
fn raw_def_of(rev: Revision, name: &str) -> jsonschema::Validator {
    let dir = common::upstream_dir(rev);
    let mut doc: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("schema.json")).unwrap()).unwrap();
    doc["$id"] = json!("https://upstream.invalid/mcp/schema.json");
    let root = json!({"$ref": format!("https://upstream.invalid/mcp/schema.json#/$defs/{name}")});
    compile_offline(&root, &[doc]).unwrap()
}

/// The generated document without any override: what trusting the tagged
/// JSON alone would give.
fn without_overrides(def: &str) -> jsonschema::Validator {
    without_overrides_of(Revision::V2025_11_25, def)
}

/// [`without_overrides`] of `rev`'s tagged files.
fn without_overrides_of(rev: Revision, def: &str) -> jsonschema::Validator {
    let (json, ts) = upstream_files(rev);
    let doc = upstream::extract(rev, &json, &ts, &[]).unwrap();
    let root = json!({"$ref": format!("{}#/$defs/{def}", rev.data().definitions_id)});
    compile_offline(&root, &[doc]).unwrap()
}

/// The parsed tagged `schema.json` and the `schema.ts` text of `rev`.
fn upstream_files(rev: Revision) -> (Value, String) {
    let dir = common::upstream_dir(rev);
    let json: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("schema.json")).unwrap()).unwrap();
    let ts = std::fs::read_to_string(dir.join("schema.ts")).unwrap();
    (json, ts)
}

fn override_named(name: &str) -> &'static upstream::Override {
    OVERRIDES.iter().find(|o| o.name == name).unwrap()
}

#[test]
#[ignore = "needs the pinned upstream files: run `ahp-elicit upstream refresh` or set AHP_UPSTREAM_DIR"]
fn override_number_schema_bounds_are_numbers() {
    override_named("number-schema-bounds-are-numbers");
    let p = form(
        json!({"score": {"type": "number", "minimum": 0.5, "maximum": 99.5,
        "default": 95.5}}),
    );
    valid(request_2025(&p));
    assert!(!raw_def("ElicitRequestFormParams").is_valid(&p));
    let errs = run(&without_overrides("request"), &p, Schema::McpRequest);
    let mut ptrs: Vec<String> = errs.iter().map(|e| e.pointer()).collect();
    ptrs.sort();
    assert_eq!(
        ptrs,
        [
            "/requestedSchema/properties/score/default",
            "/requestedSchema/properties/score/maximum",
            "/requestedSchema/properties/score/minimum"
        ]
    );
    assert!(errs.iter().all(|e| e.rule == "mcp-request/type"));
    // minimum 0.5 alone too.
    let p = form(json!({"w": {"type": "number", "minimum": 0.5}}));
    valid(request_2025(&p));
    assert!(!raw_def("ElicitRequestFormParams").is_valid(&p));
}

#[test]
#[ignore = "needs the pinned upstream files: run `ahp-elicit upstream refresh` or set AHP_UPSTREAM_DIR"]
fn override_elicit_result_content_numbers() {
    override_named("elicit-result-content-numbers");
    let r = json!({"action": "accept", "content": {"rating": 4.5}});
    valid(result_2025(&r));
    assert!(!raw_def("ElicitResult").is_valid(&r));
    one(
        run(&without_overrides("result"), &r, Schema::McpResult),
        "/content/rating",
        "mcp-result/type",
    );
}

#[test]
#[ignore = "needs the pinned upstream files: run `ahp-elicit upstream refresh` or set AHP_UPSTREAM_DIR"]
fn override_task_metadata_ttl_number() {
    override_named("task-metadata-ttl-number");
    let p = json!({"message": "m", "requestedSchema": {"type": "object", "properties": {}},
        "task": {"ttl": 1500.5}});
    valid(request_2025(&p));
    assert!(!raw_def("ElicitRequestFormParams").is_valid(&p));
}

#[test]
#[ignore = "needs the pinned upstream files: run `ahp-elicit upstream refresh` or set AHP_UPSTREAM_DIR"]
fn override_progress_token_number() {
    override_named("progress-token-number");
    let p = json!({"message": "m", "requestedSchema": {"type": "object", "properties": {}},
        "_meta": {"progressToken": 1.5}});
    valid(request_2025(&p));
    assert!(!raw_def("ElicitRequestFormParams").is_valid(&p));
}

#[test]
#[ignore = "needs the pinned upstream files: run `ahp-elicit upstream refresh` or set AHP_UPSTREAM_DIR"]
fn an_override_whose_evidence_is_gone_stops_the_extraction() {
    let rev = Revision::V2025_11_25;
    let (json, ts) = upstream_files(rev);
    // schema.ts says integer after all: the override must not apply blindly.
    let ts2 = ts.replacen("  minimum?: number;", "  minimum?: integer;", 1);
    let e = upstream::extract(rev, &json, &ts2, OVERRIDES).unwrap_err();
    assert!(
        e.to_string().contains("number-schema-bounds-are-numbers"),
        "{e}"
    );
    // The tagged JSON already fixed: the override notices.
    let mut json2 = json.clone();
    json2["$defs"]["NumberSchema"]["properties"]["minimum"]["type"] = json!("number");
    let e = upstream::extract(rev, &json2, &ts, OVERRIDES).unwrap_err();
    assert!(e.to_string().contains("review the override"), "{e}");
    // A new primitive member in the union: review, not silence.
    let mut json3 = json.clone();
    json3["$defs"]["PrimitiveSchemaDefinition"]["anyOf"]
        .as_array_mut()
        .unwrap()
        .push(json!({"$ref": "#/$defs/DateSchema"}));
    let e = upstream::extract(rev, &json3, &ts, OVERRIDES).unwrap_err();
    assert!(e.to_string().contains("DateSchema"), "{e}");
}

// ------------------------------------------- the second pinned revision

#[test]
fn a_url_request_needs_an_elicitation_id_only_under_2025_11_25() {
    let p = json!({"mode": "url", "message": "m", "url": "https://a.example"});
    let v = one(request_2025(&p), "", "mcp-request/required");
    assert!(v.message.contains("elicitationId"), "{v}");
    assert!(v.message.ends_with(" (MCP 2025-11-25)"), "{v}");
    valid(validate_mcp_request(Revision::V2026_07_28, &p));
    // What 2026-07-28 no longer defines stays an open extra member there.
    valid(validate_mcp_request(
        Revision::V2026_07_28,
        &json!({"mode": "url", "message": "m", "url": "https://a.example",
                "elicitationId": "e-1", "_meta": {"k": 1}, "task": "anything"}),
    ));
    // The url is still a uri.
    one(
        validate_mcp_request(
            Revision::V2026_07_28,
            &json!({"mode": "url", "message": "m", "url": "not a url"}),
        ),
        "/url",
        "mcp-request/format",
    );
}

#[test]
#[ignore = "needs the pinned upstream files: run `ahp-elicit upstream refresh` or set AHP_UPSTREAM_DIR"]
fn override_elicit_result_content_numbers_under_2026_07_28() {
    let rev = Revision::V2026_07_28;
    let r = json!({"action": "accept", "content": {"rating": 4.5}});
    valid(validate_mcp_result(rev, &r));
    assert!(!raw_def_of(rev, "ElicitResult").is_valid(&r));
    one(
        run(&without_overrides_of(rev, "result"), &r, Schema::McpResult),
        "/content/rating",
        "mcp-result/type",
    );
    // Its NumberSchema bounds were fixed upstream: fractional bounds pass
    // the raw tagged definition too, with no override.
    let p = form(json!({"w": {"type": "number", "minimum": 0.5, "default": 0.75}}));
    assert!(raw_def_of(rev, "ElicitRequestFormParams").is_valid(&p));
    valid(run(
        &without_overrides_of(rev, "request"),
        &p,
        Schema::McpRequest,
    ));
}
