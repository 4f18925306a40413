//! `respond` over FILE arguments: with several files, each counting its
//! lines from 1, a report names the file as well as the line; a file that
//! holds no event is said to be empty, not passed over in silence.

use crate::common;

/// A valid request event (the demo's).
const REQUEST: &str = include_str!("../../src/demo_request.json");

#[test]
fn a_report_names_the_file_when_several_are_given() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(dir.path().join("ev.json"), REQUEST).expect("write");
    std::fs::write(
        dir.path().join("rpc.json"),
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n",
    )
    .expect("write");
    let (code, out, err) = common::run_in(
        &["respond", "--action", "decline", "ev.json", "rpc.json"],
        dir.path(),
    );
    assert_eq!(code, Some(1), "{err}");
    assert_eq!(out.lines().count(), 1, "one result, for ev.json: {out}");
    assert!(
        err.contains("line 1 of rpc.json: invalid request, no result"),
        "{err}"
    );
    // One input: its lines need no file name.
    let (_, _, err) = common::run_in(&["respond", "--action", "decline", "rpc.json"], dir.path());
    assert!(err.contains("ahp-elicit: line 1: invalid request"), "{err}");
}

#[test]
fn an_empty_file_is_said_to_hold_no_requests() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(dir.path().join("empty.json"), "").expect("write");
    std::fs::write(dir.path().join("ev.json"), REQUEST).expect("write");
    let (code, out, err) = common::run_in(
        &["respond", "--action", "decline", "empty.json"],
        dir.path(),
    );
    // Nothing to answer is not a failure: exit 0, with a word on stderr.
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(out, "");
    assert_eq!(
        err.trim_end(),
        "ahp-elicit: no requests in empty.json: it holds no event"
    );
    let (code, out, err) = common::run_in(
        &["respond", "--action", "decline", "empty.json", "ev.json"],
        dir.path(),
    );
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(out.lines().count(), 1, "{out}");
    assert!(err.contains("no requests in empty.json"), "{err}");
}
