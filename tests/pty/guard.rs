//! Nothing answers a request the person has not seen: keys typed for one
//! request never act on the next (the consent guard on every request
//! screen), in the real binary in a pseudo-terminal (harness:
//! tests/common/pty.rs).
//!
//! The bursts below are sent without the harness's person-like pacing; the
//! only waits are for screen text, and for a marker (a focus move or a
//! resize, sent after the keys) before checking that no extra result was
//! written: the keys are read in order, so once the marker shows they were
//! all read.

#![cfg(unix)]

use crate::common;
use common::pty::*;

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::json;

/// A one-boolean confirmation form, or a URL request when `url` is given.
fn request(id: &str, message: &str, url: Option<&str>) -> String {
    let params = match url {
        Some(u) => json!({"mode": "url", "message": message, "url": u,
            "elicitationId": format!("el-{id}")}),
        None => json!({"message": message, "requestedSchema": {"type": "object",
            "properties": {"confirm": {"type": "boolean", "title": "Yes, do it",
                "default": false}}, "required": ["confirm"]}}),
    };
    common::request_line("guard", id, &params)
}

/// `respond INPUT` at `cols`x`rows` with a browser that records each
/// launch; returns the run, its output file and the launch record (which
/// exists only once something was launched).
fn start_recording(dir: &Path, input: &Path, (cols, rows): (u16, u16)) -> (Tui, PathBuf, PathBuf) {
    let out = dir.join("out.jsonl");
    let rec = dir.join("launches.txt");
    let browser = format!(
        "--browser \"sh '{}' '{}' 0\"",
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/record-browser.sh")
            .display(),
        rec.display()
    );
    let args = format!("respond '{}' {browser}", input.display());
    (Tui::start(dir, &out, cols, rows, &args), out, rec)
}

/// Send `keys` one by one, `gap` apart, without the harness pacing.
fn burst(t: &mut Tui, keys: &[&str], gap: Duration) {
    t.send_spaced(gap, keys);
}

/// Resize the terminal to `cols`x`rows` and wait for the frame drawn at
/// that size ([`Tui::resize_marker`]), then return the results written so
/// far. For a screen where no key changes the drawing without answering
/// (the review step, a question); elsewhere [`results_after_marker`].
fn results_after_a_resize(
    t: &mut Tui,
    out: &Path,
    (cols, rows): (u16, u16),
) -> Vec<(String, String)> {
    t.resize_marker(cols, rows);
    pairs(out)
}

/// Send the focus-moving `markers` ([`Tui::send_marker`]): once their
/// frames show, every key before them was read. Then return the results
/// written so far.
fn results_after_marker(t: &mut Tui, out: &Path, markers: &[&str]) -> Vec<(String, String)> {
    for m in markers {
        t.send_marker(m);
    }
    pairs(out)
}

fn pairs(out: &Path) -> Vec<(String, String)> {
    results(out)
        .iter()
        .map(|(a, p, _)| (a.clone(), p.clone()))
        .collect()
}

fn own(v: &[(&str, &str)]) -> Vec<(String, String)> {
    v.iter()
        .map(|(a, p)| (a.to_string(), p.to_string()))
        .collect()
}

/// On the review of the first of two forms, four Enters typed in one
/// burst (and 50 ms, 150 ms apart): the first is sent, the carried Enters do not
/// touch the second, which is answered only when the person acts on it.
#[test]
fn a_burst_for_one_form_does_not_answer_the_next() {
    for gap in [0u64, 50, 150] {
        let dir = tempfile::tempdir().expect("tempdir");
        let input = write_requests(
            dir.path(),
            &[
                request("evt-f1", "First form.", None),
                request("evt-f2", "Second form.", None),
            ],
        );
        let out = dir.path().join("out.jsonl");
        let mut t = Tui::respond(dir.path(), &out, (80, 24), &input, "");
        t.wait_for("First form.");
        t.press("\u{13}", "Review: this exact content");
        t.send("");
        burst(
            &mut t,
            &["\r", "\r", "\r", "\r"],
            Duration::from_millis(gap),
        );
        t.wait_for("Second form.");
        assert_eq!(
            results_after_marker(&mut t, &out, &["\t"]),
            own(&[("accept", "evt-f1")]),
            "gap {gap} ms: only the first request is answered"
        );
        assert!(t.shows("Second form."), "gap {gap} ms: still on screen");
        // The person now acts on the second form.
        t.send("\u{1b}");
        assert_eq!(t.finish(), 0);
        let rs = results(&out);
        assert_eq!(
            actions_and_parents(&rs),
            vec![("accept", "evt-f1"), ("cancel", "evt-f2")],
            "gap {gap} ms"
        );
        assert_eq!(
            rs[0].2,
            json!({"action": "accept", "content": {"confirm": false}})
        );
    }
}

/// A form followed by a URL request: the Enter carried over from the form
/// does not decline the URL request, and `o` typed with it opens nothing.
#[test]
fn a_carried_enter_does_not_decline_a_url_request() {
    let dir = tempfile::tempdir().expect("tempdir");
    let input = write_requests(
        dir.path(),
        &[
            request("evt-g1", "Confirm first.", None),
            request(
                "evt-g2",
                "Then open this.",
                Some("https://auth.example.com/next"),
            ),
        ],
    );
    let (mut t, out, rec) = start_recording(dir.path(), &input, (80, 24));
    t.wait_for("Confirm first.");
    t.press("\u{13}", "Review: this exact content");
    t.send("");
    burst(&mut t, &["\r", "\r", "o", "\r"], Duration::from_millis(50));
    t.wait_for("Then open this.");
    assert_eq!(
        results_after_marker(&mut t, &out, &["\t"]),
        own(&[("accept", "evt-g1")])
    );
    t.send("\u{1b}");
    assert_eq!(t.finish(), 0);
    assert_answers(&out, &[("accept", "evt-g1"), ("cancel", "evt-g2")]);
    assert!(!rec.exists(), "nothing launched");
}

/// `y`, Ctrl-S and Enter typed in one burst (and Enter 50 ms after Ctrl-S):
/// Ctrl-S opens the review, but the Enter does not send it, since the
/// review was not yet on screen for the grace period; an Enter after a
/// pause does.
#[test]
fn the_review_step_has_its_own_grace_period() {
    for gap in [0u64, 50] {
        let dir = tempfile::tempdir().expect("tempdir");
        let input = write_requests(dir.path(), &[request("evt-r1", "Review me.", None)]);
        let out = dir.path().join("out.jsonl");
        let args = format!("respond '{}'", input.display());
        let mut t = Tui::start(dir.path(), &out, 80, 24, &args);
        t.wait_for("Review me.");
        t.send("");
        burst(&mut t, &["y", "\u{13}", "\r"], Duration::from_millis(gap));
        t.wait_for("Review: this exact content will be sent as an accept.");
        assert_eq!(
            results_after_a_resize(&mut t, &out, (100, 30)),
            own(&[]),
            "gap {gap} ms: nothing sent before the review was seen"
        );
        assert!(t.shows("Review: this exact content"), "gap {gap} ms");
        t.send("\r");
        assert_eq!(t.finish(), 0);
        assert_eq!(
            actions_and_parents(&results(&out)),
            vec![("accept", "evt-r1")],
            "gap {gap} ms"
        );
    }
}

/// With `--no-open`, `o` and Enter typed in one burst: `o` consents and
/// shows the URL for copying, but the Enter does not press Done on a copy
/// screen that was never seen; an Enter after a pause does (accept).
#[test]
fn the_copy_step_has_its_own_grace_period() {
    let dir = tempfile::tempdir().expect("tempdir");
    let url = "https://auth.example.com/copy-me";
    let input = write_requests(dir.path(), &[request("evt-c1", "Copy this.", Some(url))]);
    let out = dir.path().join("out.jsonl");
    let args = format!("respond '{}' --no-open", input.display());
    let mut t = Tui::start(dir.path(), &out, 80, 24, &args);
    t.wait_for("Copy this.");
    t.send("");
    burst(&mut t, &["o", "\r"], Duration::ZERO);
    t.wait_for("Copy the URL");
    // Tab and back: the focus is on Done again for the Enter below.
    assert_eq!(
        results_after_marker(&mut t, &out, &["\t", "\u{1b}[Z"]),
        own(&[])
    );
    assert!(t.shows("Copy the URL"));
    t.send("\r");
    assert_eq!(t.finish(), 0);
    assert_answers(&out, &[("accept", "evt-c1")]);
}

/// `respond` on one form of `props` (JSON Schema properties) with
/// `message`, event id `id`, at `cols`x`rows`, once the message shows;
/// returns the run and its output file.
fn one_form(
    dir: &Path,
    (id, message): (&str, &str),
    props: serde_json::Value,
    (cols, rows): (u16, u16),
) -> (Tui, PathBuf) {
    let params = json!({"message": message,
        "requestedSchema": {"type": "object", "properties": props}});
    let input = write_requests(dir, &[common::request_line("guard", id, &params)]);
    let out = dir.join("out.jsonl");
    let args = format!("respond '{}'", input.display());
    let mut t = Tui::start(dir, &out, cols, rows, &args);
    t.wait_for(message);
    (t, out)
}

/// Send `key` at once, then `then` `gap` later, without the harness pacing
/// (a person who answers a question before it could be read).
fn quick_pair(t: &mut Tui, key: &str, gap: Duration, then: &str) {
    t.send_spaced(gap, &[key, then]);
}

const CANCEL_QUESTION: &str = "Throw away what you entered and cancel?";

/// Esc on a form with typed text asks whether to throw it away; "yes"
/// typed 200 ms after the Esc (before the question could be read) does
/// not answer it: the question is a new meaning for `y`, so its keys count
/// only once it has been on screen for the grace period. After a pause,
/// `q` goes back to the form with the text kept.
#[test]
fn yes_typed_right_after_esc_does_not_confirm_the_discard() {
    let dir = tempfile::tempdir().expect("tempdir");
    let name = json!({"name": {"type": "string", "title": "Name"}});
    let (mut t, out) = one_form(dir.path(), ("evt-q1", "Who are you?"), name, (80, 24));
    t.press("Ada", "Ada");
    t.send("");
    quick_pair(&mut t, "\u{1b}", Duration::from_millis(200), "yes");
    t.wait_for(CANCEL_QUESTION);
    assert_eq!(results_after_a_resize(&mut t, &out, (100, 30)), own(&[]));
    assert!(t.shows(CANCEL_QUESTION), "{}", t.screen());
    t.press("q", "^S submit");
    t.press("\u{13}", "Review: this exact content");
    t.send("\r");
    assert_eq!(t.finish(), 0);
    let rs = results(&out);
    assert_eq!(actions_and_parents(&rs), vec![("accept", "evt-q1")]);
    assert_eq!(rs[0].2["content"]["name"], "Ada");
}

/// Ctrl-D held in a number field (a repeat every 33 ms) deletes forward;
/// once the field is empty the next repeat asks whether to decline, and
/// the repeats after it are dropped (each restarts the period): the form
/// stays, with the question, until the person answers it.
#[test]
fn a_held_ctrl_d_stops_at_the_decline_question() {
    let dir = tempfile::tempdir().expect("tempdir");
    let seats = json!({"seats": {"type": "integer", "title": "Seats"}});
    let (mut t, out) = one_form(dir.path(), ("evt-q2", "How many seats?"), seats, (80, 24));
    t.press("12", "12");
    // To the start of the field (Ctrl-A), then Ctrl-D held down.
    t.send("\u{1}");
    t.send("");
    let held: Vec<&str> = vec!["\u{4}"; 20];
    burst(&mut t, &held, Duration::from_millis(33));
    t.wait_for("Throw away what you entered and decline?");
    assert_eq!(results_after_a_resize(&mut t, &out, (100, 30)), own(&[]));
    assert!(
        t.shows("Throw away what you entered and decline?"),
        "{}",
        t.screen()
    );
    t.press("q", "^S submit");
    t.send("3");
    t.press("\u{13}", "Review: this exact content");
    t.send("\r");
    assert_eq!(t.finish(), 0);
    let rs = results(&out);
    assert_eq!(actions_and_parents(&rs), vec![("accept", "evt-q2")]);
    assert_eq!(rs[0].2["content"]["seats"], 3);
}

/// A review two pages tall at 60x12: Enter shows its second page (its
/// end), which turns Enter into "send"; an Enter 50 ms later does not send
/// what was on screen for 50 ms. An Enter after a pause does.
#[test]
fn an_enter_right_after_the_last_review_page_appears_does_not_send() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut props = serde_json::Map::new();
    for i in 0..REVIEW_FIELDS {
        props.insert(
            format!("f{i}"),
            json!({"type": "string", "title": format!("Field {i}"), "default": "x"}),
        );
    }
    let (mut t, out) = one_form(
        dir.path(),
        ("evt-q3", "Check these."),
        props.into(),
        (60, 12),
    );
    t.press("\u{13}", "Enter next page");
    // Past the review's guard: the first Enter turns the page.
    t.send("");
    quick_pair(&mut t, "\r", Duration::from_millis(50), "\r");
    t.wait_for("Enter send");
    // Wider, the review's second page still shows its end.
    assert_eq!(results_after_a_resize(&mut t, &out, (70, 12)), own(&[]));
    assert!(t.shows("Enter send"), "{}", t.screen());
    t.send("\r");
    assert_eq!(t.finish(), 0);
    assert_answers(&out, &[("accept", "evt-q3")]);
}

/// Fields of the review that takes two pages at 60x12.
const REVIEW_FIELDS: usize = 8;

/// A long `http` URL at 60x16: the warning is below the fold, so Open
/// waits until it was scrolled to. PageDown after a long look brings it on
/// screen; `o` 30 ms later opens nothing (what PageDown showed was on
/// screen for 30 ms); `o` after a pause opens the URL.
#[test]
fn o_right_after_a_page_down_opens_nothing() {
    let dir = tempfile::tempdir().expect("tempdir");
    let url = format!("http://auth.example.com/cb?state={}", "s".repeat(400));
    let input = write_requests(dir.path(), &[request("evt-q4", "Scroll me.", Some(&url))]);
    let (mut t, out, rec) = start_recording(dir.path(), &input, (60, 16));
    t.wait_for("scroll to read the whole URL");
    // The long look the test describes, by design: well past every guard
    // and key wait, so only the 30 ms after PageDown are under test.
    std::thread::sleep(Duration::from_millis(3500));
    quick_pair(&mut t, "\u{1b}[6~", Duration::from_millis(30), "o");
    t.wait_for("o open");
    // Every key before it was read once the focus move typed after the
    // `o` shows.
    t.send_marker("\t");
    assert!(!rec.exists(), "nothing launched");
    assert_eq!(pairs(&out), own(&[]));
    t.send("o");
    assert_eq!(t.finish(), 0);
    assert_answers(&out, &[("accept", "evt-q4")]);
    assert!(rec.exists(), "launched after the pause");
}
