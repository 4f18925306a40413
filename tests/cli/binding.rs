//! `modify`, `capabilities` and `wrap` through the real binary, plus the
//! capability library.

use crate::common::{self, Ran};

use ahp_elicit::binding::capabilities::{advertise, from_ahp, from_mcp, EffectKind};
use ahp_elicit::binding::Mode;
use serde_json::{json, Value};

fn ex(name: &str) -> String {
    common::examples_dir()
        .join(name)
        .to_str()
        .unwrap()
        .to_owned()
}

fn write(dir: &tempfile::TempDir, name: &str, v: &Value) -> String {
    let p = dir.path().join(name);
    std::fs::write(&p, serde_json::to_vec(v).unwrap()).unwrap();
    p.to_str().unwrap().to_owned()
}

fn modify(effect: &Value, extra: &[&str]) -> Ran {
    let dir = tempfile::tempdir().unwrap();
    let e = write(&dir, "effect.json", effect);
    let req = ex("form-every-kind.request.json");
    let res = ex("form-every-kind.result.json");
    modify_files(&res, &req, &e, extra)
}

/// `modify --result RESULT --request REQUEST --effect EFFECT EXTRA...`.
fn modify_files(result: &str, request: &str, effect: &str, extra: &[&str]) -> Ran {
    let mut args = vec![
        "modify",
        "--result",
        result,
        "--request",
        request,
        "--effect",
        effect,
    ];
    args.extend_from_slice(extra);
    common::run(&args, b"")
}

fn merge(value: Value) -> Value {
    json!({"effect": "modify", "target": "content", "op": "merge", "value": value})
}

#[test]
fn modify_prints_the_new_result_event() {
    let o = modify(&merge(json!({"seats": 9})), &["--permission", "read-write"]);
    assert_eq!(o.code, Some(0), "{}", o.stderr);
    assert_eq!(o.stdout.lines().count(), 1);
    let ev: Value = serde_json::from_str(&o.stdout).unwrap();
    let text: Value = serde_json::from_str(
        ev["payload"]["elicitation"]["result"]["text"]
            .as_str()
            .unwrap(),
    )
    .unwrap();
    assert_eq!(text["content"]["seats"], json!(9));
    assert_eq!(text["content"]["fullName"], json!("Ada Example"));
    assert_eq!(text["_meta"], json!({"example.org/trace": "abc"}));
    assert_eq!(ev["id"], json!("evt-profile-1-result"));
    assert_eq!(ev["parentEventId"], json!("evt-profile-1"));
    assert_eq!(ev["payload"]["elicitation"]["action"], json!("accept"));
    // The new event validates against its request.
    let dir = tempfile::tempdir().unwrap();
    let p = write(&dir, "new.json", &ev);
    let v = common::run(
        [
            "validate",
            "--request",
            &ex("form-every-kind.request.json"),
            &p,
        ],
        b"",
    );
    assert_eq!(v.code, Some(0), "{}", v.stdout);
}

#[test]
fn modify_defaults_to_read_permission_and_refuses() {
    let o = modify(&merge(json!({"seats": 9})), &[]);
    assert_eq!(o.code, Some(1));
    assert_eq!(o.stdout, "");
    assert!(o.stderr.contains("[permission]"), "{}", o.stderr);
}

#[test]
fn modify_refusals_print_nothing_on_stdout() {
    let cases = [
        (
            json!({"effect": "modify", "target": "content", "op": "replace", "value": [{"seats": 1}]}),
            "[effect-value]",
        ),
        (merge(json!({"seats": 0})), "[content-value]"),
        (merge(json!({"extra": "x"})), "[content-closed]"),
        (
            json!({"effect": "modify", "target": "result", "op": "merge", "value": {}}),
            "[effect-shape]",
        ),
    ];
    for (effect, rule) in cases {
        let o = modify(&effect, &["--permission", "read-write"]);
        assert_eq!(o.code, Some(1), "{effect}");
        assert_eq!(o.stdout, "", "{effect}");
        assert!(o.stderr.contains(rule), "{effect}: {}", o.stderr);
        assert!(o.stderr.contains("refused"));
    }
}

#[test]
fn modify_refuses_a_request_and_a_decline() {
    let dir = tempfile::tempdir().unwrap();
    let e = write(&dir, "e.json", &merge(json!({"seats": 2})));
    let req = ex("form-every-kind.request.json");
    let o = modify_files(&req, &req, &e, &["--permission", "read-write"]);
    assert_eq!(o.code, Some(1));
    assert!(o.stderr.contains("no modify(request)"), "{}", o.stderr);

    let mut res: Value =
        serde_json::from_slice(&std::fs::read(ex("form-every-kind.result.json")).unwrap()).unwrap();
    res["payload"]["elicitation"]["action"] = json!("decline");
    res["payload"]["elicitation"]["result"]["text"] = json!("{\"action\":\"decline\"}");
    let r = write(&dir, "decline.json", &res);
    let o = modify_files(&r, &req, &e, &["--permission", "read-write"]);
    assert_eq!(o.code, Some(1));
    assert_eq!(o.stdout, "");
    assert!(o.stderr.contains("[effect-action]"), "{}", o.stderr);
}

#[test]
fn modify_unreadable_file_exits_2() {
    let o = common::run(
        [
            "modify",
            "--result",
            "/nonexistent/r.json",
            "--effect",
            "/nonexistent/e.json",
        ],
        b"",
    );
    assert_eq!(o.code, Some(2));
    assert!(o.stderr.contains("cannot read"));
}

fn caps(args: &[&str]) -> Value {
    let mut a = vec!["capabilities"];
    a.extend_from_slice(args);
    let o = common::run(&a, b"");
    assert_eq!(o.code, Some(0), "{}", o.stderr);
    serde_json::from_str(&o.stdout).unwrap()
}

#[test]
fn capabilities_advertise_only_enforced_effects() {
    assert_eq!(
        caps(&[]),
        json!({"elicitation": {"form": {"effects": ["return", "modify"]}, "url": {"effects": ["return"]}}})
    );
    assert_eq!(
        caps(&["--modes", "form"]),
        json!({"elicitation": {"form": {"effects": ["return", "modify"]}}})
    );
    assert_eq!(
        caps(&["--modes", "url"]),
        json!({"elicitation": {"url": {"effects": ["return"]}}})
    );
}

#[test]
fn capabilities_from_mcp_legacy_mapping() {
    assert_eq!(
        caps(&["--from-mcp", r#"{"elicitation": {}}"#]),
        json!({"elicitation": {"form": {}}})
    );
    assert_eq!(
        caps(&["--from-mcp", r#"{"elicitation": {"form": {}, "url": {}}}"#]),
        json!({"elicitation": {"form": {}, "url": {}}})
    );
    assert_eq!(
        caps(&["--from-mcp", r#"{"elicitation": {"url": {}}}"#]),
        json!({"elicitation": {"url": {}}})
    );
    assert_eq!(
        caps(&["--from-mcp", r#"{"roots": {"listChanged": true}}"#]),
        json!({"elicitation": {}})
    );
    for bad in [
        r#"{"elicitation": true}"#,
        r#"{"elicitation": {"form": 1}}"#,
        "[",
        "7",
    ] {
        let o = common::run(["capabilities", "--from-mcp", bad], b"");
        assert_eq!(o.code, Some(1), "{bad}");
        assert_eq!(o.stdout, "");
    }
    let o = common::run(["capabilities", "--modes", "fax"], b"");
    assert_eq!(o.code, Some(2));
}

#[test]
fn capability_library_ahp_versus_mcp_origin() {
    let empty = json!({"elicitation": {}});
    // An empty AHP elicitation object grants neither mode ...
    let a = from_ahp(&empty).unwrap();
    assert!(!a.supports(Mode::Form) && !a.supports(Mode::Url));
    // ... but an MCP-origin {} is the legacy form-only capability.
    let m = from_mcp(&empty).unwrap();
    assert!(m.supports(Mode::Form) && !m.supports(Mode::Url));
    // Modes are independent.
    let u = from_ahp(&json!({"elicitation": {"url": {"effects": ["return"]}}})).unwrap();
    assert!(!u.supports(Mode::Form) && u.supports(Mode::Url));
    assert!(u.enforces(Mode::Url, EffectKind::Return));
    assert!(!u.enforces(Mode::Url, EffectKind::Modify));
    // AHP readings are checked.
    let errs = from_ahp(&json!({"elicitation": {"form": {"effects": ["return", "teleport"]}}}))
        .unwrap_err();
    assert_eq!(errs[0].pointer(), "/elicitation/form/effects/1");
    assert!(
        from_ahp(&json!({"elicitation": {"form": {"effects": ["modify", "modify"]}}})).is_err()
    );
    // What we advertise reads back as itself.
    let adv = advertise(&[Mode::Form, Mode::Url]);
    assert_eq!(from_ahp(&adv.to_json()).unwrap(), adv);
}

fn wrap(args: &[&str], params: &Value) -> Ran {
    let mut a = vec!["wrap"];
    a.extend_from_slice(args);
    common::run(&a, &serde_json::to_vec(params).unwrap())
}

#[test]
fn wrap_round_trip_and_reproducible_id() {
    let params = json!({
        "message": "Pick one",
        "requestedSchema": {"type": "object", "properties": {"c": {"type": "string", "enum": ["a", "b"]}}, "required": ["c"]},
        "_meta": {"progressToken": 3}
    });
    let args = [
        "--server",
        "srv",
        "--server-title",
        "Server",
        "--server-version",
        "1.0",
        "--time",
        "2026-11-30T10:00:00Z",
    ];
    let a = wrap(&args, &params);
    assert_eq!(a.code, Some(0), "{}", a.stderr);
    let b = wrap(&args, &params);
    assert_eq!(a.stdout, b.stdout, "same params, same output");
    let ev: Value = serde_json::from_str(&a.stdout).unwrap();
    let id = ev["id"].as_str().unwrap();
    assert!(id.starts_with("evt-") && id.len() == 20, "{id}");
    assert_eq!(ev["source"], json!({"adapter": "ahp-elicit-wrap"}));
    assert_eq!(
        ev["payload"]["elicitation"]["server"],
        json!({"name": "srv", "title": "Server", "version": "1.0"})
    );
    // The mode is explicit in the metadata, not injected into the text.
    assert_eq!(ev["payload"]["elicitation"]["mode"], json!("form"));
    let text: Value = serde_json::from_str(
        ev["payload"]["elicitation"]["request"]["text"]
            .as_str()
            .unwrap(),
    )
    .unwrap();
    assert_eq!(text, params, "the complete params, nothing added");
    // And it validates.
    let v = common::run(["validate", "-"], a.stdout.as_bytes());
    assert_eq!(v.code, Some(0), "{}", v.stdout);
}

#[test]
fn wrap_url_params_with_given_id_and_adapter() {
    let params = json!({"mode": "url", "message": "Connect", "url": "https://auth.example.com/x", "elicitationId": "e-1"});
    let o = wrap(
        &["--server", "cal", "--adapter", "mcp-stdio", "--id", "evt-7"],
        &params,
    );
    assert_eq!(o.code, Some(0), "{}", o.stderr);
    let ev: Value = serde_json::from_str(&o.stdout).unwrap();
    assert_eq!(ev["id"], json!("evt-7"));
    assert_eq!(ev["source"]["adapter"], json!("mcp-stdio"));
    assert_eq!(ev["payload"]["elicitation"]["mode"], json!("url"));
}

#[test]
fn wrap_invalid_params_name_the_place() {
    let params = json!({"message": "m", "requestedSchema": {"type": "object", "properties": {"x": {"type": "object", "properties": {}}}}});
    let o = wrap(&["--server", "s"], &params);
    assert_eq!(o.code, Some(1));
    assert_eq!(o.stdout, "");
    assert!(
        o.stderr
            .contains("/payload/elicitation/request/text#/requestedSchema/properties/x"),
        "{}",
        o.stderr
    );
    // Not JSON at all.
    let o = common::run(["wrap", "--server", "s"], b"{\"message\": ");
    assert_eq!(o.code, Some(1));
    assert!(o.stderr.contains("[json]"), "{}", o.stderr);
    // A bad --time is a usage error.
    let o = wrap(&["--server", "s", "--time", "yesterday"], &params);
    assert_eq!(o.code, Some(2));
}

#[test]
fn every_command_has_help() {
    for c in ["validate", "modify", "capabilities", "wrap"] {
        let o = common::run([c, "--help"], b"");
        assert_eq!(o.code, Some(0), "{c}");
        assert!(o.stdout.contains("Exit status"), "{c}: {}", o.stdout);
    }
    let o = common::run(["modify", "--help"], b"");
    assert!(o.stdout.contains("Permission defaults to read"));
}
