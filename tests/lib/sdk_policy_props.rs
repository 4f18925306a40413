//! Property tests of the compatible schema policy: any `requestedSchema`
//! made of JSON Schema keywords (the subset's, annotations, assertions,
//! shapes, hostile keys) is read without a panic into one of three
//! outcomes, and a readable form keeps the complete params, lists only
//! pointers that exist in the schema, and its defaults pass its own answer
//! check (only a required field without a default can be missing).

use ahp_elicit::binding::content::check_content;
use ahp_elicit::binding::{read_params, Mode, RequestBody, RequestView, Revision, SchemaPolicy};
use proptest::prelude::*;
use serde_json::{json, Map, Value};

const KEYS: &[&str] = &[
    "type",
    "title",
    "description",
    "default",
    "enum",
    "const",
    "format",
    "pattern",
    "minLength",
    "maxLength",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "multipleOf",
    "items",
    "anyOf",
    "oneOf",
    "allOf",
    "$ref",
    "examples",
    "x-ui",
    "deprecated",
    "additionalProperties",
    "properties",
    "\u{1b}[31m",
    "a/b~c",
];

fn leaf() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        (-5i64..200).prop_map(|n| json!(n)),
        (-5.0f64..5.0).prop_map(|n| json!(n)),
        prop::sample::select(vec![
            "string", "number", "integer", "boolean", "array", "object", "null", "uuid", "email",
            "^[a-z]+$", "(", "^(a+)+$", "x",
        ])
        .prop_map(|s| json!(s)),
    ]
}

fn schema_value() -> impl Strategy<Value = Value> {
    leaf().prop_recursive(4, 48, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::vec((prop::sample::select(KEYS.to_vec()), inner), 0..6).prop_map(
                |kv| {
                    let m: Map<String, Value> =
                        kv.into_iter().map(|(k, v)| (k.to_owned(), v)).collect();
                    Value::Object(m)
                }
            ),
        ]
    })
}

/// Keyword and value pairs that real generators write on a field.
fn plausible_pairs() -> Vec<(&'static str, Value)> {
    vec![
        ("title", json!("T")),
        ("description", json!("d")),
        ("examples", json!(["x"])),
        ("x-ui", json!({"widget": "w"})),
        ("deprecated", json!(true)),
        ("pattern", json!("^[a-z]+$")),
        ("pattern", json!("^(a+)+$")),
        ("pattern", json!("(")),
        ("format", json!("uuid")),
        ("format", json!("email")),
        ("format", json!("x-custom")),
        ("minLength", json!(1)),
        ("maxLength", json!(5)),
        ("minimum", json!(0)),
        ("maximum", json!(10)),
        ("exclusiveMinimum", json!(0)),
        ("multipleOf", json!(2)),
        ("default", json!("abc")),
        ("default", json!(4)),
        ("default", json!(true)),
        ("default", Value::Null),
        ("enum", json!(["a", "abc"])),
        ("enum", json!([2, 4])),
        ("const", json!("abc")),
        ("uniqueItems", json!(true)),
        ("items", json!({"type": "string", "enum": ["a", "b"]})),
        ("items", json!({"type": "integer"})),
        ("$ref", json!("#/$defs/X")),
    ]
}

/// A field as SDKs write them: a type, some keywords, maybe nullable.
fn plausible_field() -> impl Strategy<Value = Value> {
    (
        prop::sample::select(vec!["string", "number", "integer", "boolean", "array"]),
        prop::collection::vec(prop::sample::select(plausible_pairs()), 0..5),
        0u8..3,
    )
        .prop_map(|(ty, pairs, nullable)| {
            let mut o = Map::new();
            o.insert("type".into(), json!(ty));
            for (k, v) in pairs {
                o.insert(k.to_owned(), v);
            }
            match nullable {
                0 => Value::Object(o),
                1 => {
                    o.insert("type".into(), json!([ty, "null"]));
                    Value::Object(o)
                }
                _ => json!({"anyOf": [Value::Object(o), {"type": "null"}], "default": null}),
            }
        })
}

fn field() -> impl Strategy<Value = Value> {
    prop_oneof![4 => plausible_field(), 1 => schema_value()]
}

fn requested_schema() -> impl Strategy<Value = Value> {
    (
        prop::collection::vec((prop::sample::select(KEYS.to_vec()), schema_value()), 0..5),
        prop::collection::vec(field(), 0..4),
    )
        .prop_map(|(root, props)| {
            let mut o: Map<String, Value> =
                root.into_iter().map(|(k, v)| (k.to_owned(), v)).collect();
            o.insert("type".into(), json!("object"));
            // Root keys are mostly annotations in real schemas.
            o.remove("properties");
            let p: Map<String, Value> = props
                .into_iter()
                .enumerate()
                .map(|(i, v)| (format!("f{i}"), v))
                .collect();
            o.insert("properties".into(), Value::Object(p));
            Value::Object(o)
        })
}

/// Whether `ptr` (relative to the schema) names a member of `schema`.
fn exists(schema: &Value, ptr: &str) -> bool {
    schema.pointer(ptr).is_some()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn any_schema_reads_to_a_form_a_refusal_or_not_a_form(
        rs in requested_schema(),
        rev in prop::sample::select(Revision::ALL),
    ) {
        // The form subset is the same in every pinned revision.
        let params = json!({"message": "m", "requestedSchema": rs});
        match read_params(rev, &params, Mode::Form, SchemaPolicy::Compatible) {
            Ok(RequestView::Body(r)) => {
                prop_assert_eq!(&Value::Object(r.params.clone()), &params);
                let RequestBody::Form(form) = &r.body else {
                    return Err(TestCaseError::fail("a form body"));
                };
                for p in &form.outside_subset {
                    prop_assert!(exists(&params["requestedSchema"], p), "listed {} exists", p);
                }
                // The defaults, as a form would send them, pass the answer check.
                let content: Map<String, Value> = form
                    .fields
                    .iter()
                    .filter_map(|f| f.default_value().map(|d| (f.name.clone(), d)))
                    .collect();
                let errs = check_content(form, &content);
                for e in &errs {
                    prop_assert_eq!(&e.rule, "content-required", "{}", e);
                }
            }
            Ok(RequestView::NotAForm { reasons, .. }) => {
                prop_assert!(!reasons.is_empty());
                for r in &reasons {
                    prop_assert!(!r.chars().any(|c| c.is_control()), "safe text: {:?}", r);
                }
            }
            Ok(other) => return Err(TestCaseError::fail(format!("unexpected view {other:?}"))),
            // Only faults outside requestedSchema are refusals.
            Err(errs) => {
                for e in &errs {
                    prop_assert!(!e.pointer().starts_with("/requestedSchema"), "{}", e);
                }
            }
        }
    }
}

/// The generator reaches every outcome (so the property above is not
/// vacuous): forms with fields and defaults, and requests that are not
/// forms.
#[test]
fn the_generator_reaches_forms_and_not_forms() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;
    let mut runner = TestRunner::deterministic();
    let (mut forms, mut with_default, mut not_forms) = (0, 0, 0);
    for i in 0..2000 {
        let rs = requested_schema()
            .new_tree(&mut runner)
            .expect("a value")
            .current();
        let params = json!({"message": "m", "requestedSchema": rs});
        let rev = Revision::ALL[i % Revision::ALL.len()];
        match read_params(rev, &params, Mode::Form, SchemaPolicy::Compatible) {
            Ok(RequestView::Body(r)) => {
                if let RequestBody::Form(f) = &r.body {
                    if !f.fields.is_empty() {
                        forms += 1;
                    }
                    if f.fields.iter().any(|x| x.default_value().is_some()) {
                        with_default += 1;
                    }
                }
            }
            Ok(RequestView::NotAForm { .. }) => not_forms += 1,
            _ => {}
        }
    }
    eprintln!("forms {forms}, with a default {with_default}, not forms {not_forms}");
    assert!(
        forms >= 20 && with_default >= 1 && not_forms >= 200,
        "forms {forms}, with a default {with_default}, not forms {not_forms}"
    );
}
