//! modify(content) in all its branches, through the library (seed
//! "Elicitation modification target").

use crate::common;

use ahp_elicit::binding::effects::{
    apply_content_effect, modify_outbound, modify_result, parse_effect, ContentEffect, Op,
    Permission,
};
use ahp_elicit::binding::{
    make_result_event, parse_json, read_request, read_result, Action, Answer, ReadOptions,
    RequestEvent, ResultMeta, Violation,
};
use serde_json::{json, Map, Value};

fn example(name: &str) -> Value {
    let p = common::examples_dir().join(name);
    parse_json(&std::fs::read(p).unwrap()).unwrap()
}

fn every_kind() -> (RequestEvent, Value) {
    let req = read_request(
        example("form-every-kind.request.json"),
        ReadOptions::default(),
    )
    .unwrap();
    (req, example("form-every-kind.result.json"))
}

fn eff(op: Op, value: Value) -> ContentEffect {
    ContentEffect { op, value }
}

fn result_text(ev: &Value) -> Value {
    serde_json::from_str(
        ev["payload"]["elicitation"]["result"]["text"]
            .as_str()
            .unwrap(),
    )
    .unwrap()
}

/// Everything but `result.text` is the same in both events.
fn assert_envelope_unchanged(before: &Value, after: &Value) {
    let strip = |v: &Value| {
        let mut v = v.clone();
        v["payload"]["elicitation"]["result"]["text"] = json!(null);
        v
    };
    assert_eq!(strip(before), strip(after));
}

fn rules(errs: &[Violation]) -> Vec<&str> {
    errs.iter().map(|e| e.rule.as_str()).collect()
}

#[test]
fn replace_swaps_the_content_and_keeps_meta_action_mode_envelope() {
    let (req, res) = every_kind();
    let value = json!({"fullName": "Bo Example", "email": "bo@example.com", "plan": "free"});
    let out = modify_result(
        &req,
        &res,
        &eff(Op::Replace, value.clone()),
        Permission::ReadWrite,
    )
    .unwrap();
    assert_eq!(
        result_text(&out),
        json!({"action": "accept", "content": value, "_meta": {"example.org/trace": "abc"}})
    );
    assert_envelope_unchanged(&res, &out);
    let back = read_result(out).unwrap();
    assert_eq!(back.action, Action::Accept);
    assert_eq!(back.parent_event_id, "evt-profile-1");
}

#[test]
fn merge_is_shallow_omitted_fields_survive() {
    let (req, res) = every_kind();
    let out = modify_result(
        &req,
        &res,
        &eff(
            Op::Merge,
            json!({"seats": 7, "languages": ["go"], "newsletter": true}),
        ),
        Permission::ReadWrite,
    )
    .unwrap();
    assert_eq!(
        result_text(&out)["content"],
        json!({"fullName": "Ada Example", "email": "ada@example.com", "plan": "team",
               "seats": 7, "budget": 99.5, "languages": ["go"], "newsletter": true})
    );
    assert_eq!(
        result_text(&out)["_meta"],
        json!({"example.org/trace": "abc"})
    );
    assert_envelope_unchanged(&res, &out);
}

#[test]
fn extension_fields_of_the_result_are_preserved() {
    let (req, mut res) = every_kind();
    res["payload"]["elicitation"]["result"]["text"] = json!(
        "{\"action\":\"accept\",\"content\":{\"fullName\":\"Ada\",\"email\":\"a@example.com\",\"plan\":\"free\"},\"_meta\":{\"io.modelcontextprotocol/related-task\":{\"taskId\":\"t1\"}},\"x-ext\":[1,2]}"
    );
    let out = modify_result(
        &req,
        &res,
        &eff(Op::Merge, json!({"plan": "ent"})),
        Permission::ReadWrite,
    )
    .unwrap();
    let t = result_text(&out);
    assert_eq!(t["content"]["plan"], json!("ent"));
    assert_eq!(
        t["_meta"],
        json!({"io.modelcontextprotocol/related-task": {"taskId": "t1"}})
    );
    assert_eq!(t["x-ext"], json!([1, 2]));
}

#[test]
fn a_list_is_rejected_whole() {
    let (req, res) = every_kind();
    let before = res.clone();
    for op in [Op::Replace, Op::Merge] {
        let errs = modify_result(
            &req,
            &res,
            &eff(op, json!([{"fullName": "X"}])),
            Permission::ReadWrite,
        )
        .unwrap_err();
        assert_eq!(errs.len(), 1);
        assert_eq!(errs[0].rule, "effect-value");
        assert_eq!(errs[0].pointer(), "effect#/value");
        assert!(errs[0].message.contains("a list is rejected whole"));
    }
    assert_eq!(res, before);
}

#[test]
fn non_objects_are_rejected() {
    let (req, res) = every_kind();
    for v in [json!("x"), json!(1), json!(null), json!(true)] {
        let errs = modify_result(
            &req,
            &res,
            &eff(Op::Merge, v.clone()),
            Permission::ReadWrite,
        )
        .unwrap_err();
        assert_eq!(rules(&errs), ["effect-value"], "{v}");
    }
}

#[test]
fn decline_and_cancel_results_are_refused() {
    let (req, _) = every_kind();
    for a in [Action::Decline, Action::Cancel] {
        let res = make_result_event(&req, &Answer::bare(a), &ResultMeta::default()).unwrap();
        let errs = modify_result(
            &req,
            &res,
            &eff(Op::Merge, json!({"seats": 2})),
            Permission::ReadWrite,
        )
        .unwrap_err();
        assert_eq!(rules(&errs), ["effect-action"]);
        assert_eq!(errs[0].pointer(), "/payload/elicitation/action");
    }
}

#[test]
fn url_result_is_refused() {
    let req = read_request(example("url-connect.request.json"), ReadOptions::default()).unwrap();
    let res =
        make_result_event(&req, &Answer::bare(Action::Accept), &ResultMeta::default()).unwrap();
    let errs = modify_result(
        &req,
        &res,
        &eff(Op::Replace, json!({})),
        Permission::ReadWrite,
    )
    .unwrap_err();
    assert_eq!(rules(&errs), ["effect-mode"]);
}

#[test]
fn metadata_omit_and_gap_result_views_are_refused() {
    let (req, res) = every_kind();
    for part in [
        json!({"type": "text", "selection": "metadata"}),
        json!({"type": "text", "selection": "omit"}),
        json!({"type": "text", "selection": "body", "gap": {"reason": "too-large"}}),
    ] {
        let mut view = res.clone();
        view["payload"]["elicitation"]["result"] = part.clone();
        let errs = modify_result(
            &req,
            &view,
            &eff(Op::Merge, json!({"seats": 2})),
            Permission::ReadWrite,
        )
        .unwrap_err();
        assert_eq!(rules(&errs), ["effect-selection"], "{part}");
    }
}

#[test]
fn read_permission_is_refused_first() {
    let (req, res) = every_kind();
    let errs = modify_result(
        &req,
        &res,
        &eff(Op::Merge, json!({"seats": 2})),
        Permission::Read,
    )
    .unwrap_err();
    assert_eq!(rules(&errs), ["permission"]);
}

#[test]
fn invalid_effective_content_is_refused_and_nothing_changes() {
    let (req, res) = every_kind();
    let before = res.clone();
    let cases = [
        (
            Op::Merge,
            json!({"seats": 501}),
            "content-value",
            "/payload/elicitation/result/text#/content/seats",
        ),
        (
            Op::Merge,
            json!({"seats": 2.5}),
            "content-value",
            "/payload/elicitation/result/text#/content/seats",
        ),
        (
            Op::Merge,
            json!({"nickname": "x"}),
            "content-closed",
            "/payload/elicitation/result/text#/content/nickname",
        ),
        (
            Op::Replace,
            json!({"fullName": "Ada", "email": "ada@example.com"}),
            "content-required",
            "/payload/elicitation/result/text#/content/plan",
        ),
        (
            Op::Merge,
            json!({"plan": "Team (per seat)"}),
            "content-value",
            "/payload/elicitation/result/text#/content/plan",
        ),
        (
            Op::Merge,
            json!({"fullName": {"first": "Ada"}}),
            "mcp-result",
            "/payload/elicitation/result/text#/content/fullName",
        ),
        (
            Op::Merge,
            json!({"seats": null}),
            "mcp-result",
            "/payload/elicitation/result/text#/content/seats",
        ),
    ];
    for (op, value, rule, pointer) in cases {
        let errs =
            modify_result(&req, &res, &eff(op, value.clone()), Permission::ReadWrite).unwrap_err();
        assert!(
            errs.iter().any(|e| e.pointer() == pointer),
            "{value}: {errs:?}"
        );
        // The schema (once real) may report first with its own rule name;
        // the runtime rule is the one this binding guarantees.
        assert!(
            errs.iter()
                .any(|e| e.rule == rule || e.rule.as_str().starts_with("mcp-result")),
            "{value}: {errs:?}"
        );
        assert_eq!(res, before);
    }
}

#[test]
fn a_result_that_does_not_answer_the_request_is_refused() {
    let (req, mut res) = every_kind();
    res["parentEventId"] = json!("evt-other");
    let errs = modify_result(
        &req,
        &res,
        &eff(Op::Merge, json!({"seats": 2})),
        Permission::ReadWrite,
    )
    .unwrap_err();
    assert_eq!(rules(&errs), ["parent-id"]);
}

#[test]
fn request_has_no_modify_request() {
    let (req, _) = every_kind();
    let errs = apply_content_effect(
        &req.event,
        Some(&req),
        &eff(Op::Replace, json!({"message": "changed"})),
        Permission::ReadWrite,
    )
    .unwrap_err();
    assert_eq!(rules(&errs), ["effect-target"]);
    assert!(errs[0].message.contains("no modify(request)"));
}

#[test]
fn a_result_needs_its_request() {
    let (_, res) = every_kind();
    let errs = apply_content_effect(
        &res,
        None,
        &eff(Op::Merge, json!({"seats": 2})),
        Permission::ReadWrite,
    )
    .unwrap_err();
    assert_eq!(rules(&errs), ["effect-request"]);
}

#[test]
fn effect_documents_are_closed() {
    let ok = parse_effect(
        &json!({"effect": "modify", "target": "content", "op": "merge", "value": {"a": 1}}),
    )
    .unwrap();
    assert_eq!(ok.op, Op::Merge);
    assert_eq!(ok.value, json!({"a": 1}));
    // The standalone shape accepts a list: the target decides.
    assert!(parse_effect(
        &json!({"effect": "modify", "target": "content", "op": "replace", "value": []})
    )
    .is_ok());
    let bad = [
        (json!([]), "effect#"),
        (
            json!({"effect": "modify", "target": "content", "op": "merge", "value": {}, "x": 1}),
            "effect#/x",
        ),
        (
            json!({"effect": "return", "target": "content", "op": "merge", "value": {}}),
            "effect#/effect",
        ),
        (
            json!({"effect": "modify", "target": "request", "op": "merge", "value": {}}),
            "effect#/target",
        ),
        (
            json!({"effect": "modify", "target": "content", "op": "append", "value": {}}),
            "effect#/op",
        ),
        (
            json!({"effect": "modify", "target": "content", "op": "merge"}),
            "effect#/value",
        ),
    ];
    for (v, ptr) in bad {
        let errs = parse_effect(&v).unwrap_err();
        assert_eq!(errs.len(), 1, "{v}: {errs:?}");
        assert_eq!(errs[0].pointer(), ptr);
        assert_eq!(errs[0].rule, "effect-shape");
    }
}

const SHA: &str = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08";

fn outbound() -> Value {
    json!({
        "ahp": "0.1", "id": "evt-out-1", "type": "user.message.outbound",
        "time": "2026-11-30T10:00:00Z", "source": {"adapter": "chat"},
        "payload": {"message": {"channel": "general", "messages": [
            {"role": "assistant", "parts": [
                {"type": "text", "selection": "body", "text": "Here is the chart."},
                {"type": "attachment", "ref": {"uri": "https://files.example/c.png", "sha256": SHA, "mediaType": "image/png", "size": 1234}}
            ]}
        ]}}
    })
}

#[test]
fn outbound_replace_takes_a_list() {
    let ev = outbound();
    let new = json!([{"role": "assistant", "parts": [
        {"type": "text", "selection": "body", "text": "Here is the updated chart."},
        {"type": "attachment", "ref": {"uri": "https://files.example/c.png", "sha256": SHA, "mediaType": "image/png", "size": 1234}}
    ]}]);
    let out = modify_outbound(&ev, &eff(Op::Replace, new.clone()), Permission::ReadWrite).unwrap();
    assert_eq!(out["payload"]["message"]["messages"], new);
    let mut strip = out.clone();
    strip["payload"]["message"]["messages"] = ev["payload"]["message"]["messages"].clone();
    assert_eq!(strip, ev, "only the message list changed");
}

#[test]
fn outbound_object_is_rejected_whole() {
    let ev = outbound();
    let errs = modify_outbound(
        &ev,
        &eff(Op::Replace, json!({"role": "assistant", "parts": []})),
        Permission::ReadWrite,
    )
    .unwrap_err();
    assert_eq!(rules(&errs), ["effect-value"]);
    assert!(errs[0].message.contains("an object is rejected whole"));
}

#[test]
fn outbound_refusals() {
    let ev = outbound();
    let text = |t: &str| json!({"type": "text", "selection": "body", "text": t});
    // merge has no meaning for a list
    let errs = modify_outbound(
        &ev,
        &eff(
            Op::Merge,
            json!([{"role": "assistant", "parts": [text("x")]}]),
        ),
        Permission::ReadWrite,
    )
    .unwrap_err();
    assert_eq!(rules(&errs), ["effect-op"]);
    // read permission
    let errs = modify_outbound(
        &ev,
        &eff(
            Op::Replace,
            json!([{"role": "assistant", "parts": [text("x")]}]),
        ),
        Permission::Read,
    )
    .unwrap_err();
    assert_eq!(rules(&errs), ["permission"]);
    // outbound messages are the assistant's
    let errs = modify_outbound(
        &ev,
        &eff(Op::Replace, json!([{"role": "user", "parts": [text("x")]}])),
        Permission::ReadWrite,
    )
    .unwrap_err();
    assert_eq!(errs[0].pointer(), "effect#/value/0/role");
    assert_eq!(rules(&errs), ["outbound-message"]);
    // empty list
    let errs =
        modify_outbound(&ev, &eff(Op::Replace, json!([])), Permission::ReadWrite).unwrap_err();
    assert_eq!(rules(&errs), ["outbound-message"]);
    // a view instead of inline text
    let errs = modify_outbound(
        &ev,
        &eff(
            Op::Replace,
            json!([{"role": "assistant", "parts": [{"type": "text", "selection": "metadata"}]}]),
        ),
        Permission::ReadWrite,
    )
    .unwrap_err();
    assert_eq!(errs[0].pointer(), "effect#/value/0/parts/0");
    // a new attachment would be an upload
    let errs = modify_outbound(
        &ev,
        &eff(
            Op::Replace,
            json!([{"role": "assistant", "parts": [{"type": "attachment", "ref": {"uri": "https://files.example/new.png", "sha256": SHA, "mediaType": "image/png", "size": 1}}]}]),
        ),
        Permission::ReadWrite,
    )
    .unwrap_err();
    assert_eq!(rules(&errs), ["effect-attachment"]);
    assert_eq!(errs[0].pointer(), "effect#/value/0/parts/0/ref");
}

#[test]
fn outbound_with_a_metadata_view_cannot_be_modified() {
    let mut ev = outbound();
    ev["payload"]["message"]["messages"][0]["parts"][0] =
        json!({"type": "text", "selection": "metadata"});
    let errs = modify_outbound(
        &ev,
        &eff(
            Op::Replace,
            json!([{"role": "assistant", "parts": [{"type": "text", "selection": "body", "text": "x"}]}]),
        ),
        Permission::ReadWrite,
    )
    .unwrap_err();
    assert_eq!(rules(&errs), ["effect-selection"]);
    assert_eq!(errs[0].pointer(), "/payload/message/messages/0/parts/0");
}

#[test]
fn other_event_types_have_no_content_target() {
    let ev = json!({"ahp": "0.1", "id": "e", "type": "user.attention", "time": "2026-11-30T10:00:00Z",
        "source": {"adapter": "a"}, "payload": {"attention": {"kind": "info",
        "message": {"type": "text", "selection": "body", "text": "m"},
        "title": {"type": "text", "selection": "body", "text": "t"}}}});
    let errs = apply_content_effect(
        &ev,
        None,
        &eff(Op::Replace, json!({})),
        Permission::ReadWrite,
    )
    .unwrap_err();
    assert_eq!(rules(&errs), ["effect-target"]);
}

#[test]
fn merge_into_an_accept_without_content() {
    // An accepted form whose optional answers were all left out.
    let req = read_request(json!({
        "ahp": "0.1", "id": "evt-opt", "type": "user.elicitation.request",
        "time": "2026-11-30T10:00:00Z", "source": {"adapter": "t"},
        "payload": {"elicitation": {"server": {"name": "s"}, "mode": "form",
            "request": {"type": "text", "selection": "body",
                "text": "{\"message\":\"m\",\"requestedSchema\":{\"type\":\"object\",\"properties\":{\"n\":{\"type\":\"integer\"}}}}"}}}
    }), ReadOptions::default())
    .unwrap();
    let res = make_result_event(
        &req,
        &Answer {
            action: Action::Accept,
            content: None,
        },
        &ResultMeta::default(),
    )
    .unwrap();
    let out = modify_result(
        &req,
        &res,
        &eff(Op::Merge, json!({"n": 3})),
        Permission::ReadWrite,
    )
    .unwrap();
    let mut want = Map::new();
    want.insert("n".into(), json!(3));
    assert_eq!(result_text(&out)["content"], Value::Object(want));
}
