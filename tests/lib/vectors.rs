//! Every conformance vector through the library API.

use crate::common;

use ahp_elicit::binding::{
    check_answer, read_request, read_result, ReadOptions, Revision, Violation,
};

fn judge(v: &serde_json::Value) -> Result<(), String> {
    let kind = v["kind"].as_str().unwrap();
    match kind {
        "request" => read_request(v["request"].clone(), ReadOptions::default())
            .map(|_| ())
            .map_err(|e| format!("{e:?}")),
        "result" => read_result(v["result"].clone())
            .map(|_| ())
            .map_err(|e| format!("{e:?}")),
        "request+result" => {
            let req = read_request(v["request"].clone(), ReadOptions::default())
                .map_err(|e| format!("request itself invalid: {e:?}"))?;
            let res = read_result(v["result"].clone()).map_err(|e| format!("{e:?}"))?;
            let errs = check_answer(&req, &res);
            if errs.is_empty() {
                Ok(())
            } else {
                Err(format!("{errs:?}"))
            }
        }
        other => panic!("unknown vector kind {other}"),
    }
}

/// The number of cases of each pinned revision's vector file.
const CASES: &[(&str, usize)] = &[("2025-11-25", 60), ("2026-07-28", 21)];

#[test]
fn every_vector_passes_through_the_library() {
    let mut failures = Vec::new();
    for rev in Revision::ALL.iter().copied() {
        let vectors = common::vectors_of(rev);
        let want = CASES.iter().find(|(r, _)| *r == rev.as_str()).map(|c| c.1);
        assert_eq!(Some(vectors.len()), want, "the {rev} vector file's cases");
        for v in &vectors {
            check_vector(v, &mut failures);
        }
    }
    assert!(
        failures.is_empty(),
        "{} vectors failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

fn check_vector(v: &serde_json::Value, failures: &mut Vec<String>) {
    let id = v["id"].as_str().unwrap();
    let want_valid = v["expect"] == "valid";
    let got = judge(v);
    if got.is_ok() != want_valid {
        failures.push(format!("{id}: expected {}, got {got:?}", v["expect"]));
    }
}

/// The first violation of an invalid vector, or None when it is valid.
fn first_violation(v: &serde_json::Value) -> Option<Violation> {
    let first = |e: Vec<Violation>| e.into_iter().next();
    match v["kind"].as_str().unwrap() {
        "request" => read_request(v["request"].clone(), ReadOptions::default())
            .err()
            .and_then(first),
        "result" => read_result(v["result"].clone()).err().and_then(first),
        _ => {
            let req = read_request(v["request"].clone(), ReadOptions::default()).ok()?;
            match read_result(v["result"].clone()) {
                Err(e) => first(e),
                Ok(res) => first(check_answer(&req, &res)),
            }
        }
    }
}

/// What each invalid vector breaks first: (vector id, rule, JSON Pointer).
/// The rule names are the ones `validate` reports (docs/binding.md).
const FIRST_VIOLATIONS: &[(&str, &str, &str)] = &[
    (
        "req-string-format-unsupported",
        "mcp-request/enum",
        "/payload/elicitation/request/text#/requestedSchema/properties/server/format",
    ),
    (
        "req-string-pattern-keyword",
        "mcp-request/additionalProperties",
        "/payload/elicitation/request/text#/requestedSchema/properties/postcode/pattern",
    ),
    (
        "req-number-default-wrong-type",
        "mcp-request/type",
        "/payload/elicitation/request/text#/requestedSchema/properties/budget/default",
    ),
    (
        "req-boolean-default-wrong-type",
        "mcp-request/type",
        "/payload/elicitation/request/text#/requestedSchema/properties/newsletter/default",
    ),
    (
        "req-unsupported-type-null",
        "mcp-request/enum",
        "/payload/elicitation/request/text#/requestedSchema/properties/nothing/type",
    ),
    (
        "req-enum-titled-multi-items-oneOf",
        "mcp-request/required",
        "/payload/elicitation/request/text#/requestedSchema/properties/channels/items",
    ),
    (
        "req-enum-default-not-member",
        "default-fits",
        "/payload/elicitation/request/text#/requestedSchema/properties/size/default",
    ),
    (
        "req-form-missing-message",
        "mcp-request/required",
        "/payload/elicitation/request/text#",
    ),
    (
        "req-form-message-not-string",
        "mcp-request/type",
        "/payload/elicitation/request/text#/message",
    ),
    (
        "req-form-missing-requestedSchema",
        "mcp-request/required",
        "/payload/elicitation/request/text#",
    ),
    (
        "req-requestedSchema-type-array",
        "mcp-request/required",
        "/payload/elicitation/request/text#/requestedSchema",
    ),
    (
        "req-requestedSchema-no-properties",
        "mcp-request/required",
        "/payload/elicitation/request/text#/requestedSchema",
    ),
    (
        "req-requestedSchema-additionalProperties",
        "mcp-request/additionalProperties",
        "/payload/elicitation/request/text#/requestedSchema/additionalProperties",
    ),
    (
        "req-nested-object-property",
        "mcp-request/enum",
        "/payload/elicitation/request/text#/requestedSchema/properties/address/type",
    ),
    (
        "req-array-of-objects-property",
        "mcp-request/required",
        "/payload/elicitation/request/text#/requestedSchema/properties/guests/items",
    ),
    (
        "req-required-unknown-field",
        "required-exists",
        "/payload/elicitation/request/text#/requestedSchema/required/1",
    ),
    (
        "req-url-missing-elicitationId",
        "mcp-request/required",
        "/payload/elicitation/request/text#",
    ),
    (
        "req-url-elicitationId-not-string",
        "mcp-request/type",
        "/payload/elicitation/request/text#/elicitationId",
    ),
    (
        "req-url-missing-message",
        "mcp-request/required",
        "/payload/elicitation/request/text#",
    ),
    (
        "req-form-mode-with-url-fields",
        "mcp-request/required",
        "/payload/elicitation/request/text#",
    ),
    (
        "req-task-ttl-wrong-type",
        "mcp-request/type",
        "/payload/elicitation/request/text#/task/ttl",
    ),
    (
        "req-meta-not-object",
        "mcp-request/type",
        "/payload/elicitation/request/text#/_meta",
    ),
    (
        "res-content-nested-object",
        "mcp-result/type",
        "/payload/elicitation/result/text#/content/address",
    ),
    (
        "res-content-value-null",
        "mcp-result/type",
        "/payload/elicitation/result/text#/content/nickname",
    ),
    (
        "res-content-number-array",
        "mcp-result/type",
        "/payload/elicitation/result/text#/content/lottery/0",
    ),
    (
        "res-decline-with-content",
        "content-only-accepted-form",
        "/payload/elicitation/result/text#/content",
    ),
    (
        "rr-wrong-type-string-for-boolean",
        "content-value",
        "/payload/elicitation/result/text#/content/newsletter",
    ),
    (
        "rr-number-below-minimum",
        "content-value",
        "/payload/elicitation/result/text#/content/rating",
    ),
    (
        "rr-integer-given-fraction",
        "content-value",
        "/payload/elicitation/result/text#/content/seats",
    ),
    (
        "rr-string-too-short",
        "content-value",
        "/payload/elicitation/result/text#/content/handle",
    ),
    (
        "rr-email-format-bad",
        "content-value",
        "/payload/elicitation/result/text#/content/contact",
    ),
    (
        "rr-datetime-format-bad",
        "content-value",
        "/payload/elicitation/result/text#/content/meetingAt",
    ),
    (
        "rr-enum-value-not-in-list",
        "content-value",
        "/payload/elicitation/result/text#/content/size",
    ),
    (
        "rr-multi-below-minItems",
        "content-value",
        "/payload/elicitation/result/text#/content/toppings",
    ),
    (
        "rr-extra-field-not-in-schema",
        "content-closed",
        "/payload/elicitation/result/text#/content/isAdmin",
    ),
    (
        "rr-url-accept-with-content",
        "content-only-accepted-form",
        "/payload/elicitation/result/text#/content",
    ),
    (
        "r25-url-no-elicitationid",
        "mcp-request/required",
        "/payload/elicitation/request/text#",
    ),
    (
        "r25-explicit-url-no-elicitationid",
        "mcp-request/required",
        "/payload/elicitation/request/text#",
    ),
    (
        "r26-unknown-revision",
        "mcp-revision",
        "/extensions/mcp/protocolVersion",
    ),
    (
        "r26-ext-mcp-unknown-key",
        "wire-root/additionalProperties",
        "/extensions/mcp/requestState",
    ),
    (
        "r26-ext-mcp-no-version",
        "wire-root/required",
        "/extensions/mcp",
    ),
    (
        "r26-subset-closed",
        "mcp-request/additionalProperties",
        "/payload/elicitation/request/text#/requestedSchema/properties/a/pattern",
    ),
    (
        "r26-inputrequests-map-as-text",
        "mcp-request/required",
        "/payload/elicitation/request/text#",
    ),
    (
        "r26-result-revision-mismatch",
        "revision-match",
        "/extensions/mcp/protocolVersion",
    ),
    (
        "r26-result-revision-missing",
        "revision-match",
        "/extensions/mcp/protocolVersion",
    ),
    (
        "r26-result-content-outside",
        "content-closed",
        "/payload/elicitation/result/text#/content/table",
    ),
    (
        "r26-url-accept-content",
        "content-only-accepted-form",
        "/payload/elicitation/result/text#/content",
    ),
];

#[test]
fn every_invalid_vector_breaks_the_rule_it_is_about_at_its_place() {
    let vectors = common::vectors();
    let mut seen = 0;
    for v in &vectors {
        let id = v["id"].as_str().unwrap();
        let got = first_violation(v).map(|x| (x.rule.to_string(), x.pointer()));
        let want = FIRST_VIOLATIONS
            .iter()
            .find(|(i, _, _)| *i == id)
            .map(|(_, r, p)| (r.to_string(), p.to_string()));
        assert_eq!(got, want, "vector {id}");
        if want.is_some() {
            seen += 1;
            assert_eq!(v["expect"], "invalid", "vector {id} is listed but valid");
        }
    }
    assert_eq!(seen, FIRST_VIOLATIONS.len(), "every listed vector exists");
}
