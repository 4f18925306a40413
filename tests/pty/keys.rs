//! Keys as they arrive from a real terminal, end to end: the real
//! `ahp-elicit respond` in a pseudo-terminal, stdout to a file. An Esc that
//! a letter follows a few milliseconds later (Alt over a slow link) is Alt
//! plus the letter, not a cancel; a terminal's reply to a colour query is
//! never typed into a field; a form with typed text asks before Esc throws
//! it away.
//!
//! Every wait is for screen text; the timeouts only guard against a hang.

#![cfg(unix)]

use crate::common;
use common::pty::*;

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::json;

/// One form request with a text field "Name".
fn one_form(dir: &Path) -> PathBuf {
    let params = json!({"message": "Who are you?", "requestedSchema": {"type": "object",
        "properties": {"name": {"type": "string", "title": "Name"}}}});
    let path = dir.join("requests.jsonl");
    std::fs::write(&path, common::request_line("keys", "evt-1", &params) + "\n")
        .expect("write requests");
    path
}

/// `respond` on [`one_form`] in a new temporary directory (returned, to
/// keep), stdout to its `out.jsonl`, once the form is on screen.
fn name_form_on_screen() -> (tempfile::TempDir, PathBuf, Tui) {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("out.jsonl");
    let input = one_form(dir.path());
    let mut t = Tui::respond(dir.path(), &out, (80, 24), &input, "");
    t.wait_for("Who are you?");
    (dir, out, t)
}

/// `respond` on one form request per `(server, id, message)`, each with
/// one text field, in this order.
fn start_forms(dir: &Path, out: &Path, forms: &[(&str, &str, &str)]) -> Tui {
    let lines: Vec<String> = forms
        .iter()
        .map(|(server, id, m)| {
            let params = json!({"message": m, "requestedSchema": {"type": "object",
                "properties": {"n": {"type": "string"}}}});
            common::request_line(server, id, &params)
        })
        .collect();
    let input = dir.join("requests.jsonl");
    std::fs::write(&input, lines.join("\n") + "\n").expect("write");
    Tui::start(dir, out, 80, 24, &format!("respond '{}'", input.display()))
}

/// The name the run sent (it must have been accepted).
fn sent_name(out: &Path) -> String {
    let rs = results(out);
    assert_eq!(actions_and_parents(&rs), vec![("accept", "evt-1")]);
    rs[0].2["content"]["name"]
        .as_str()
        .expect("name")
        .to_owned()
}

#[test]
fn an_esc_then_a_letter_over_a_slow_link_is_alt_and_replies_are_not_typed() {
    let (_dir, out, mut t) = name_form_on_screen();
    t.press("hello world", "hello world");
    // Alt-B as a slow link delivers it: ESC, then `b` 20 ms later (within
    // the Alt window).
    t.pace();
    t.send_spaced(Duration::from_millis(20), &["\u{1b}", "b"]);
    // Another program's colour query answered by the terminal, in one
    // piece and split after the ESC.
    t.send("\u{1b}]11;rgb:ffff/ffff/ffff\u{1b}\\");
    t.send("\u{1b}");
    t.send_now("]11;rgb:0000/0000/0000\u{7}");
    // And split by a pause a slow link can make (200 ms, longer than the
    // Alt window).
    t.pace();
    t.send_spaced(
        Duration::from_millis(200),
        &["\u{1b}]11;rgb:ff", "ff/ffff/ffff\u{1b}\\"],
    );
    t.press("X", "hello Xworld");
    t.submit();
    assert_eq!(t.finish(), 0);
    assert_eq!(sent_name(&out), "hello Xworld");
}

/// A terminal reply split right after its ESC by a pause longer than the
/// Esc wait: the Esc acts as a lone Esc (on a touched form it asks), but
/// the reply that follows never answers the question and is never typed.
#[test]
fn a_reply_split_right_after_its_esc_neither_answers_nor_types() {
    let (_dir, out, mut t) = name_form_on_screen();
    t.press("hello", "hello");
    t.press("\u{1b}", "Throw away what you entered and cancel?");
    // The rest of another program's colour reply, well after its ESC.
    t.send_now("]11;rgb:ffff/ffff/ffff\u{1b}\\");
    // Still the question: `q` goes back to the form, the text as typed.
    t.press("q", "^S submit");
    t.submit();
    assert_eq!(t.finish(), 0);
    assert_eq!(sent_name(&out), "hello");
}

/// While "Throw away what you entered and cancel?" is up, a terminal reply
/// split after its ESC by a slow link (a cursor position report: ESC,
/// 150 ms, `[12;5R`) is dropped whole: its ESC never confirms the question,
/// and nothing typed is lost.
#[test]
fn a_split_reply_never_confirms_the_discard_question() {
    let (_dir, out, mut t) = name_form_on_screen();
    t.press("abc", "abc");
    // A colour reply split after its ESC by 150 ms, longer than the Esc
    // wait: the ESC asks, the rest is dropped.
    let split = Duration::from_millis(150);
    t.pace();
    t.send_spaced(split, &["\u{1b}", "]11;rgb:ffff/ffff/ffff\u{1b}\\"]);
    t.wait_for("Throw away what you entered and cancel?");
    // A cursor position report split the same way, once the question has
    // been read.
    t.pace();
    t.send_spaced(split, &["\u{1b}", "[12;5R"]);
    // Still the question: `q` goes back to the form, the text as typed.
    t.press("q", "^S submit");
    assert!(!t.shows("Throw away"), "{}", t.screen());
    t.submit();
    assert_eq!(t.finish(), 0);
    assert_eq!(sent_name(&out), "abc");
}

/// A secondary device attributes reply (`ESC [ > 41;356;0c`, whose
/// introducer crossterm drops) is not typed into the field; an Esc that
/// Enter follows over a slow link is Alt-Enter, a line break.
#[test]
fn a_da2_reply_is_not_typed_and_a_split_alt_enter_breaks_the_line() {
    let (_dir, out, mut t) = name_form_on_screen();
    t.press("ab", "ab");
    t.send("\u{1b}[>41;356;0c");
    // Esc, then Enter 30 ms later: within the Alt window.
    t.pace();
    t.send_spaced(Duration::from_millis(30), &["\u{1b}", "\r"]);
    t.press("cd", "cd");
    t.submit();
    assert_eq!(t.finish(), 0);
    assert_eq!(sent_name(&out), "ab\ncd");
}

/// The same reply split inside its body by a slow link (`ESC [ > 41;3`,
/// 40 ms, `56;0c`, and cut just before its final `c`) is not typed either,
/// and a digit the person typed 50 ms before a whole reply is kept: the
/// text is what the person typed around the replies.
#[test]
fn a_da2_reply_split_inside_its_body_is_not_typed() {
    let (_dir, out, mut t) = name_form_on_screen();
    t.press("abc", "abc");
    for (head, rest) in [
        ("\u{1b}[>41;3", "56;0c"),
        ("\u{1b}[>41;356;0", "c"),
        ("1", "\u{1b}[>41;356;0c"),
    ] {
        // Each reply apart from the one before (paced), its pieces 40 ms
        // apart as a slow link splits them.
        t.pace();
        t.send_spaced(Duration::from_millis(40), &[head, rest]);
    }
    t.press("def", "abc1def");
    t.submit();
    assert_eq!(t.finish(), 0);
    assert_eq!(sent_name(&out), "abc1def");
}

/// A cursor key split right after its ESC by a slow link (ESC, 40 ms,
/// `[D`) is that key: the cursor moves left, nothing is dropped or typed.
#[test]
fn a_cursor_key_split_right_after_its_esc_moves_the_cursor() {
    let (_dir, out, mut t) = name_form_on_screen();
    t.press("12", "12");
    // ESC, then `[D` 40 ms later (within the Esc wait).
    t.pace();
    t.send_spaced(Duration::from_millis(40), &["\u{1b}", "[D"]);
    t.press("3", "132");
    t.submit();
    assert_eq!(t.finish(), 0);
    assert_eq!(sent_name(&out), "132");
}

#[test]
fn esc_in_a_form_with_typed_text_asks_first() {
    let (_dir, out, mut t) = name_form_on_screen();
    t.press("Ada", "Ada");
    t.press("\u{1b}", "Throw away what you entered and cancel?");
    t.wait_for("Esc again or y: cancel");
    // Any other key goes back, with the text kept.
    t.press("q", "^S submit");
    assert!(!t.shows("Throw away"), "{}", t.screen());
    t.press("\u{1b}", "Throw away what you entered and cancel?");
    t.send("y");
    assert_eq!(t.finish(), 0);
    assert_answers(&out, &[("cancel", "evt-1")]);
}

/// Ctrl-N declines the request on screen and every later one from the same
/// server for this run, without showing them; another server's request is
/// still shown, and the run says how many were declined that way.
#[test]
fn ctrl_n_declines_everything_else_from_this_server() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("out.jsonl");
    let mut t = start_forms(
        dir.path(),
        &out,
        &[
            ("pushy", "evt-1", "Pushy one."),
            ("pushy", "evt-2", "Pushy two."),
            ("calm", "evt-3", "Calm one."),
            ("pushy", "evt-4", "Pushy three."),
        ],
    );
    t.wait_for("Pushy one.");
    t.press("\u{e}", "Calm one.");
    t.send("\u{1b}");
    assert_eq!(t.finish(), 0);
    assert!(!t.raw.windows(10).any(|w| w == b"Pushy two."));
    assert_answers(
        &out,
        &[
            ("decline", "evt-1"),
            ("decline", "evt-2"),
            ("cancel", "evt-3"),
            ("decline", "evt-4"),
        ],
    );
    assert!(
        t.stderr().contains(
            "2 requests declined without being shown (Ctrl-N: everything else from pushy)"
        ),
        "{}",
        t.stderr()
    );
}

/// Ctrl-N on a form with typed text asks before it throws the text away
/// (any other key goes back with the text kept); Ctrl-N again confirms,
/// and the server's later requests are declined unseen.
#[test]
fn ctrl_n_on_a_touched_form_asks_first() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("out.jsonl");
    let mut t = start_forms(
        dir.path(),
        &out,
        &[
            ("pushy", "evt-1", "Pushy one."),
            ("pushy", "evt-2", "Pushy two."),
        ],
    );
    t.wait_for("Pushy one.");
    t.press("abc", "abc");
    t.press(
        "\u{e}",
        "Throw away what you entered and decline all from this server?",
    );
    t.wait_for("Ctrl-N again or y: decline all · any other key: back to the form");
    // Any other key goes back, with the text kept.
    t.press("x", "^S submit");
    assert!(t.shows("[abc "), "{}", t.screen());
    assert!(!t.shows("Throw away"), "{}", t.screen());
    t.press(
        "\u{e}",
        "Throw away what you entered and decline all from this server?",
    );
    t.send("\u{e}");
    assert_eq!(t.finish(), 0);
    assert_answers(&out, &[("decline", "evt-1"), ("decline", "evt-2")]);
    assert!(!t.raw.windows(10).any(|w| w == b"Pushy two."));
}

/// The one-form run ([`one_form`]), `flags` before its file, with
/// `$EDITOR` an executable `editor.sh` in `dir` running `body` (the file to
/// edit is `$1`) and `$VISUAL` empty.
fn start_with_editor(dir: &Path, out: &Path, flags: &str, body: &str) -> Tui {
    let editor = dir.join("editor.sh");
    std::fs::write(&editor, format!("#!/bin/sh\n{body}")).expect("editor script");
    let st = std::process::Command::new("chmod")
        .arg("+x")
        .arg(&editor)
        .status()
        .expect("chmod");
    assert!(st.success());
    let input = one_form(dir);
    let command = format!("respond {flags}'{}'", input.display());
    let env = [
        ("VISUAL", String::new()),
        ("EDITOR", editor.display().to_string()),
    ];
    Tui::start_env(dir, out, 80, 24, &command, &env)
}

/// Ctrl-O opens the focused text field in `$EDITOR` and reads it back
/// (line breaks kept), the screen restored after; Alt-Enter types a line
/// break and a pasted one is kept; the field grows a row per line (no
/// `\u{a}` escape on one row).
#[test]
fn ctrl_o_edits_in_the_editor_and_alt_enter_breaks_the_line() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("out.jsonl");
    let mut t = start_with_editor(
        dir.path(),
        &out,
        "",
        // The editor must get the terminal, not the program's stdin and
        // stdout (here a file of results).
        "old=$(cat \"$1\")\nif [ -t 0 ] && [ -t 1 ]; then s='second line'; else s='not a terminal'; fi\nprintf '%s\\n%s\\n' \"$old\" \"$s\" > \"$1\"\n",
    );
    t.wait_for("Who are you?");
    t.send("a");
    t.send("\u{1b}\r");
    t.press("b", "[a]\n[b]");
    t.press("\u{f}", "[a]\n[b]\n[second line]");
    t.press(
        "\u{1b}[200~, pasted\r\nthen\u{1b}[201~",
        "[a]\n[b]\n[second line, pasted]\n[then]",
    );
    assert!(!t.shows("\\u{a}"), "{}", t.screen());
    t.submit();
    assert_eq!(t.finish(), 0);
    assert_eq!(sent_name(&out), "a\nb\nsecond line, pasted\nthen");
}

/// With `--timeout`, the clock stands still while `$EDITOR` has the
/// terminal: an editor open longer than the whole limit leaves the form
/// there, with the edited text, and it can still be sent.
#[test]
fn the_timeout_clock_stops_while_the_editor_is_open() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("out.jsonl");
    let mut t = start_with_editor(
        dir.path(),
        &out,
        "--timeout 5 ",
        "sleep 6\nprintf 'from the editor\\n' > \"$1\"\n",
    );
    t.wait_for("Who are you?");
    t.press("\u{f}", "[from the editor]");
    assert!(!t.shows("Time ran out"), "{}", t.screen());
    t.submit();
    assert_eq!(t.finish(), 0);
    assert_eq!(sent_name(&out), "from the editor");
}

/// A Ctrl-J the terminal encodes inside a bracketed paste (the kitty
/// keyboard protocol's `CSI 106 ; 5 u`, as tmux popups send it) is a line
/// break in the value; no ESC or the rest of the sequence reaches it, nor
/// any other control character the paste holds.
#[test]
fn an_encoded_ctrl_j_in_a_paste_is_a_line_break_and_no_control_character_is_sent() {
    let (_dir, out, mut t) = name_form_on_screen();
    t.send("\u{1b}[200~one\u{1b}[106;5utwo\u{7}\u{1b}[31m three\u{1b}[201~");
    t.wait_for("[one]\n[two three]");
    t.submit();
    assert_eq!(t.finish(), 0);
    assert_eq!(sent_name(&out), "one\ntwo three");
}

/// `respond` on one form of `props` (with `$EDITOR` an executable
/// `editor.sh` in `dir` running `body`, `$VISUAL` empty, `$TMPDIR` the
/// directory `dir/tmp`).
fn start_form_with_editor(dir: &Path, out: &Path, props: serde_json::Value, body: &str) -> Tui {
    let editor = dir.join("editor.sh");
    std::fs::write(&editor, format!("#!/bin/sh\n{body}")).expect("editor script");
    let st = std::process::Command::new("chmod")
        .arg("+x")
        .arg(&editor)
        .status()
        .expect("chmod");
    assert!(st.success());
    let tmp = dir.join("tmp");
    std::fs::create_dir(&tmp).expect("tmp");
    let params = json!({"message": "Who are you?", "requestedSchema": {"type": "object",
        "properties": props}});
    let input = dir.join("requests.jsonl");
    std::fs::write(
        &input,
        common::request_line("keys", "evt-1", &params) + "\n",
    )
    .expect("write requests");
    let command = format!("respond '{}'", input.display());
    let env = [
        ("VISUAL", String::new()),
        ("EDITOR", editor.display().to_string()),
        ("TMPDIR", tmp.display().to_string()),
    ];
    Tui::start_env(dir, out, 80, 24, &command, &env)
}

/// A signal while `$EDITOR` is open removes the temporary file (which
/// holds what was typed) and ends the editor; the server's default is
/// written into the file with its control characters escaped.
#[test]
fn a_signal_while_the_editor_is_open_removes_its_file_and_ends_it() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("out.jsonl");
    let seen = dir.path().join("seen");
    let pid_file = dir.path().join("editor.pid");
    let body = format!(
        "cp \"$1\" '{seen}'\necho $$ > '{pid}'\nwhile :; do sleep 1; done\n",
        seen = seen.display(),
        pid = pid_file.display()
    );
    let props = json!({"name": {"type": "string", "default": "Ada\u{1b}[2J\u{7}"}});
    let mut t = start_form_with_editor(dir.path(), &out, props, &body);
    t.wait_for("Who are you?");
    t.send("\u{f}");
    common::wait_file(&pid_file);
    let written = std::fs::read(&seen).expect("the editor's copy");
    assert_eq!(written, b"Ada\\u{1b}[2J\\u{7}\n");
    let editor_pid: i32 = std::fs::read_to_string(&pid_file)
        .expect("pid")
        .trim()
        .parse()
        .expect("a pid");
    let st = std::process::Command::new("sh")
        .args(["-c", &format!("kill -TERM {}", t.pid())])
        .status()
        .expect("kill");
    assert!(st.success());
    assert_eq!(t.finish(), 143);
    let left: Vec<_> = std::fs::read_dir(dir.path().join("tmp"))
        .expect("tmp")
        .collect();
    assert!(left.is_empty(), "{left:?}");
    // The editor ended (gone, or a zombie waiting to be reaped).
    common::wait_until("the end of the editor", || {
        std::fs::read_to_string(format!("/proc/{editor_pid}/status")).map_or(true, |s| {
            s.lines()
                .any(|l| l.starts_with("State:") && l.contains('Z'))
        })
    });
}

/// Ctrl-O on a field that looks like a secret opens no editor and writes
/// no file: the form says why.
#[test]
fn no_editor_for_a_field_that_looks_like_a_secret() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("out.jsonl");
    let seen = dir.path().join("seen");
    let body = format!("cp \"$1\" '{}'\n", seen.display());
    let props = json!({"password": {"type": "string", "title": "Password"}});
    let mut t = start_form_with_editor(dir.path(), &out, props, &body);
    t.wait_for("Who are you?");
    t.press("hunter2", "hunter2");
    t.press(
        "\u{f}",
        "the editor is not used for a field that looks like a secret",
    );
    assert!(!seen.exists());
    t.press("\u{1b}", "Throw away");
    t.send("y");
    assert_eq!(t.finish(), 0);
}
