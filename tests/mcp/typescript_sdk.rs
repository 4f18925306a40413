//! A form from a server written with the official TypeScript MCP SDK
//! (`@modelcontextprotocol/sdk`) and zod (`z.toJSONSchema`: `$schema`,
//! `additionalProperties: false`, formats with zod's own patterns,
//! `exclusiveMinimum`, a nullable `type: ["string", "null"]`), installed by
//! `.ci/sdk-setup.sh`; tests/servers/ts_zod_server.mjs. Answered end to end
//! through `ahp-elicit mcp` with no flag, by `--answers` and by a person in
//! a pseudo-terminal. The SDK checks an accepted answer against the
//! requested schema (ajv) before the tool runs; the tool reports the
//! content it received.
//!
//! The waits in the terminal test are for screen text; their timeouts only
//! guard against a hang.

#![cfg(unix)]

use crate::common;
use crate::common::sdk;

use common::pty::*;
use sdk::*;
use serde_json::json;

fn server() -> Option<Vec<String>> {
    let probe = root().join(".ci/sdk/node/node_modules/@modelcontextprotocol/sdk/package.json");
    installed("the TypeScript MCP SDK", &probe).then(|| {
        vec![
            "node".to_owned(),
            root()
                .join("tests/servers/ts_zod_server.mjs")
                .display()
                .to_string(),
        ]
    })
}

#[test]
fn zod_form_is_answered_by_answers_with_no_flag() {
    let Some(srv) = server() else { return };
    let dir = tempfile::tempdir().unwrap();
    let content = json!({
        "name": "Ada",
        "email": "ada@example.com",
        "id": "123e4567-e89b-42d3-a456-426614174000",
        "age": 36,
        "tags": ["news", "beta"],
        "zip": "12345",
        "note": "nullable as type [string, null]"
    });
    let a = answers(dir.path(), &json!({"action": "accept", "content": content}));
    let r = run_mcp(dir.path(), &["--call", "signup", "--answers", &a], &srv);
    assert_eq!(r.code, 0, "stderr: {}", r.stderr);
    let mut want = content.clone();
    let o = want.as_object_mut().unwrap();
    o.insert("plan".into(), json!("free"));
    o.insert("ok".into(), json!(true));
    assert_eq!(
        r.tool_report(),
        json!({"action": "accept", "received": want})
    );
    let schema = &r.request_params()["requestedSchema"];
    assert_eq!(schema["additionalProperties"], false);
    assert_eq!(
        schema["$schema"],
        "https://json-schema.org/draft/2020-12/schema"
    );
    assert_eq!(
        r.events[0]["extensions"]["ahp-elicit/schema-policy"],
        json!({"policy": "compatible", "outsideSubset": []})
    );
}

#[test]
fn zod_assertions_are_enforced_on_scripted_answers() {
    let Some(srv) = server() else { return };
    let cases = [
        (json!({"id": "not-a-uuid"}), "'id' must be a valid uuid"),
        (json!({"age": 0}), "'age' must be greater than 0"),
        (
            json!({"zip": "1234"}),
            "'zip' must match the pattern ^[0-9]{5}$",
        ),
        (json!({"extra": "x"}), "'extra' is not a field"),
    ];
    for (bad, msg) in cases {
        let dir = tempfile::tempdir().unwrap();
        let mut content = json!({"name": "Ada", "email": "ada@example.com"});
        content
            .as_object_mut()
            .unwrap()
            .extend(bad.as_object().unwrap().clone());
        let a = answers(dir.path(), &json!({"action": "accept", "content": content}));
        let r = run_mcp(dir.path(), &["--call", "signup", "--answers", &a], &srv);
        r.assert_said(1, msg);
    }
}

/// A refused answer's values stay with the person: the server's tool
/// reports the JSON-RPC error it got, which says the answer was refused
/// and quotes nothing of what the answers file gave.
#[test]
fn a_refused_answer_tells_the_server_nothing_of_its_values() {
    let Some(srv) = server() else { return };
    let dir = tempfile::tempdir().unwrap();
    let content = json!({"name": "Ada", "email": "ada@example.com", "zip": "hunter2-secret"});
    let a = answers(dir.path(), &json!({"action": "accept", "content": content}));
    let r = run_mcp(dir.path(), &["--call", "signup", "--answers", &a], &srv);
    r.assert_said(1, "'zip' must match");
    assert!(
        r.stdout
            .contains("the client has no answer it can send (why is said to the person only)"),
        "the tool reports the refusal: {}",
        r.stdout
    );
    assert!(!r.stdout.contains("hunter2-secret"), "{}", r.stdout);
    assert!(!r.stdout.contains("'zip'"), "{}", r.stdout);
}

#[test]
fn zod_form_is_filled_in_a_terminal() {
    let Some(srv) = server() else { return };
    let dir = tempfile::tempdir().unwrap();
    let mut t = Tui::start_words(
        dir.path(),
        (100, 40),
        ["mcp", "--call", "signup", "--"]
            .iter()
            .map(|s| s.to_string())
            .chain(srv),
    );
    t.wait_for("Sign up");
    t.send("Ada");
    t.send("\t");
    t.send("ada@example.com");
    // id (left out), then age: 0 is refused (exclusiveMinimum), 41 is fine.
    t.press("\t", "uuid");
    t.send("\t");
    t.send("\x18");
    t.send("0");
    t.press("\t", "must be greater than 0");
    t.send("\x1b[Z");
    t.send("\x18");
    t.send("41");
    // plan: the next option; tags: the first two.
    t.send("\t");
    t.send("\x1b[B");
    t.send(" ");
    t.send("\t");
    t.send(" ");
    t.send("\x1b[B");
    t.send(" ");
    t.send("\t");
    t.send("12345");
    t.submit();
    assert_eq!(t.finish(), 0, "stderr: {}", t.stderr());
    let out = std::fs::read_to_string(dir.path().join("out.json")).unwrap();
    assert_eq!(
        tool_report(&out),
        json!({"action": "accept", "received": {
            "name": "Ada", "email": "ada@example.com", "age": 41, "plan": "pro",
            "tags": ["news", "beta"], "zip": "12345", "ok": true
        }})
    );
}
