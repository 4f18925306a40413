//! What the tool writes under the compatible schema policy it reads back:
//! every reader takes `--schema-policy`, and under the strict policy (the
//! default, but for `answers check`, which reads a recorded event under
//! the policy it names) a request the compatible policy reads is refused
//! with a line saying so.

use crate::common;

const NOTE: &str = "it is a valid request under --schema-policy compatible";

/// A form as the Python SDK sends it: pydantic's model title on top.
const PARAMS: &str = r#"{"message":"Book a table","requestedSchema":{"title":"Booking","type":"object","properties":{"name":{"type":"string","title":"Name"}},"required":["name"]}}"#;

#[test]
fn every_reader_takes_the_policy_and_says_when_compatible_would_read_it() {
    let dir = tempfile::tempdir().expect("tempdir");
    let d = dir.path();
    std::fs::write(d.join("params.json"), PARAMS).expect("write");
    std::fs::write(
        d.join("rules.json"),
        r#"{"rules":[{"match":{},"answer":{"action":"decline"}}]}"#,
    )
    .expect("write");
    let (code, _, err) = common::run_in(&["wrap", "--server", "py", "params.json"], d);
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains(NOTE), "wrap: {err}");
    let (code, event, err) = common::run_in(
        &[
            "wrap",
            "--schema-policy",
            "compatible",
            "--server",
            "py",
            "params.json",
        ],
        d,
    );
    assert_eq!(code, Some(0), "{err}");
    std::fs::write(d.join("ev.json"), &event).expect("write");
    let strict: [&[&str]; 4] = [
        &["validate", "ev.json"],
        &["respond", "--action", "decline", "ev.json"],
        &[
            "answers",
            "check",
            "--schema-policy",
            "strict",
            "rules.json",
            "ev.json",
        ],
        &["demo", "--request", "ev.json"],
    ];
    for args in strict {
        let (code, out, err) = common::run_in(args, d);
        assert_ne!(code, Some(0), "{args:?}: {out}{err}");
        assert!(
            out.contains(NOTE) || err.contains(NOTE),
            "{args:?}: {out}{err}"
        );
    }
    // `answers check` reads a recorded event under the policy it says it
    // was recorded under.
    let compatible: [&[&str]; 4] = [
        &["answers", "check", "rules.json", "ev.json"],
        &["validate", "--schema-policy", "compatible", "ev.json"],
        &[
            "respond",
            "--schema-policy",
            "compatible",
            "--action",
            "decline",
            "ev.json",
        ],
        &[
            "answers",
            "check",
            "--schema-policy",
            "compatible",
            "rules.json",
            "ev.json",
        ],
    ];
    for args in compatible {
        let (code, out, err) = common::run_in(args, d);
        assert_eq!(code, Some(0), "{args:?}: {out}{err}");
        assert!(!out.contains(NOTE) && !err.contains(NOTE), "{args:?}");
    }
}
