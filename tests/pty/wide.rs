//! Emoji sequences in the real binary in a pseudo-terminal, read through
//! a terminal emulator that draws character by character (`vt100`):
//! moving down a scrolling list of options whose titles hold ZWJ, skin
//! tone, VS16 and flag emoji and back up leaves the very screen it started
//! from (a stale cell would differ), and a value typed and pasted with such
//! emoji is sent exactly.
//!
//! Every wait is for screen text; the timeouts only guard against a hang.

#![cfg(unix)]

use crate::common;
use common::pty::*;

use serde_json::json;

const CODER: &str = "\u{1f469}\u{1f3fd}\u{200d}\u{1f4bb}";
const FAMILY: &str = "\u{1f468}\u{200d}\u{1f469}\u{200d}\u{1f467}";
const THUMB: &str = "\u{1f44d}\u{1f3fd}";
const HEART: &str = "\u{2764}\u{fe0f}";

/// Every cell of the emulator's screen: its text (a cell never written is
/// a blank) and how it is drawn.
fn cells(t: &Tui) -> Vec<String> {
    let screen = t.vt.screen();
    let (rows, cols) = screen.size();
    let mut out = Vec::new();
    for y in 0..rows.get() {
        for x in 0..cols.get() {
            let c = screen.cell(y, x).expect("cell");
            let text = match c.contents() {
                "" if !c.is_wide_continuation() => " ",
                text => text,
            };
            out.push(format!(
                "{y},{x} {text:?} {:?} {:?} {}{}{}{}",
                c.fgcolor(),
                c.bgcolor(),
                u8::from(c.bold()),
                u8::from(c.italic()),
                u8::from(c.underline()),
                u8::from(c.inverse())
            ));
        }
    }
    out
}

#[test]
fn emoji_options_scroll_clean_and_emoji_values_are_sent_exactly() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut options = vec![
        json!({"const": "coder", "title": format!("{CODER} coder {THUMB}")}),
        json!({"const": "family", "title": format!("{FAMILY}{THUMB}{FAMILY} family")}),
        json!({"const": "heart", "title": format!("{HEART}{HEART} heart")}),
        json!({"const": "flag", "title": "\u{1f1eb}\u{1f1f7} flag \u{1f3f3}\u{fe0f}\u{200d}\u{1f308}"}),
    ];
    options
        .extend((0..8).map(|i| json!({"const": format!("p{i}"), "title": format!("plain {i}")})));
    let params = json!({"message": format!("Emoji {FAMILY} {HEART}"), "requestedSchema": {
    "type": "object", "properties": {
        "pick": {"type": "string", "title": format!("Pick {CODER}"), "oneOf": options},
        "note": {"type": "string", "title": format!("Note {THUMB}")}
    }}});
    let input = dir.path().join("requests.jsonl");
    std::fs::write(
        &input,
        common::request_line("wide", "evt-1", &params) + "\n",
    )
    .expect("write requests");
    let out = dir.path().join("out.jsonl");
    let mut t = Tui::respond(dir.path(), &out, (60, 16), &input, "");
    t.wait_for_frame("plain 2");
    let first = cells(&t);
    for _ in 0..11 {
        t.send_marker("\u{1b}[B");
    }
    assert!(t.shows("plain 7"), "{}", t.screen());
    for _ in 0..11 {
        t.send_marker("\u{1b}[A");
    }
    t.pump();
    assert_eq!(
        cells(&t),
        first,
        "back at the first option, the screen differs from the first one:\n{}",
        t.screen()
    );
    // The second option, then the text field: typed, then pasted.
    t.send_marker("\u{1b}[B");
    t.send_marker(" ");
    t.send_marker("\t");
    t.press(&format!("{CODER} ok "), "ok");
    t.send(&format!("\u{1b}[200~{FAMILY}{HEART}\u{1b}[201~"));
    t.submit();
    assert_eq!(t.finish(), 0);
    let rs = results(&out);
    assert_eq!(actions_and_parents(&rs), vec![("accept", "evt-1")]);
    assert_eq!(
        rs[0].2["content"],
        json!({"pick": "family", "note": format!("{CODER} ok {FAMILY}{HEART}")})
    );
}
