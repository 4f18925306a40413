//! URL mode end to end: the real `ahp-elicit respond` in a
//! real pseudo-terminal, stdout redirected to a file (the UI draws on
//! `/dev/tty`), `--browser` pointing at `tests/fixtures/record-browser.sh`,
//! which appends each launch (its argument count and arguments) to a file.
//!
//! The screen is read through a terminal emulator (`vt100`), so the checks
//! see what a person sees, whatever cells ratatui chose to redraw. Texts are
//! compared with all whitespace removed, so word and character wrapping do
//! not matter. Every wait is for screen text; the timeouts are only a safety
//! net against a hang, nothing here measures time.

#![cfg(unix)]

use crate::common;
use common::pty::*;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_json::json;

/// A URL-mode request event as one JSON line.
fn url_request(id: &str, message: &str, url: &str) -> String {
    let params =
        json!({"mode": "url", "message": message, "url": url, "elicitationId": format!("el-{id}")});
    common::request_event("auth", Some("Auth Server"), id, &params).to_string()
}

/// Write the requests (id, message, url) as a JSON Lines file.
fn write_stream(dir: &Path, reqs: &[(&str, &str, &str)]) -> PathBuf {
    let lines: Vec<String> = reqs
        .iter()
        .map(|(id, msg, url)| url_request(id, msg, url))
        .collect();
    write_requests(dir, &lines)
}

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/record-browser.sh")
}

/// `--browser` running the recording script, which exits with `status`.
fn browser_arg(launches: &Path, status: i32) -> String {
    format!(
        "--browser \"sh '{}' '{}' {status}\"",
        fixture().display(),
        launches.display()
    )
}

/// The recorded launches (one line each), or none when the file was never
/// created.
fn launches(path: &Path) -> Vec<String> {
    match std::fs::read_to_string(path) {
        Ok(t) => t.lines().map(str::to_owned).collect(),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
        Err(e) => panic!("launch log: {e}"),
    }
}

// ---- the tests ----

/// Nothing is launched before consent; Enter alone declines (focus starts on
/// Decline); `d` declines; Esc cancels; `o` launches exactly once with the
/// exact URL as the only argument; the Open button reached with Shift-Tab
/// launches too. Consent answers `accept` with no content.
#[test]
fn consent_is_explicit_and_launches_once() {
    let dir = tempfile::tempdir().expect("tempdir");
    let log = dir.path().join("launches");
    let urls = [
        "https://auth.example.com/connect?elicitation=u1",
        "https://auth.example.com/connect?elicitation=u2",
        "https://auth.example.com/connect?elicitation=u3",
        "https://auth.example.com/connect?elicitation=u4",
        "https://pay.example.org/checkout/42",
    ];
    let reqs: Vec<(String, String)> = (0..5)
        .map(|i| {
            (
                format!("evt-c{}", i + 1),
                format!("Step {} of the sign-in.", i + 1),
            )
        })
        .collect();
    let stream: Vec<(&str, &str, &str)> = reqs
        .iter()
        .zip(urls)
        .map(|((id, m), u)| (id.as_str(), m.as_str(), u))
        .collect();
    let input = write_stream(dir.path(), &stream);
    let out = dir.path().join("out.jsonl");
    let mut t = Tui::respond(dir.path(), &out, (80, 24), &input, &browser_arg(&log, 0));

    // 1: the consent screen, Decline focused; Enter alone declines.
    t.wait_for("Step 1 of the sign-in.");
    t.wait_for(urls[0]);
    t.wait_for("[ Open in browser ] [>Decline<] [ Cancel ]");
    t.wait_for("Host: auth.example.com");
    assert_eq!(launches(&log), Vec::<String>::new());
    assert!(!log.exists(), "nothing launched while the screen is shown");
    t.send("\r");
    // 2: d declines.
    t.wait_for("Step 2 of the sign-in.");
    t.send("d");
    // 3: Esc cancels.
    t.wait_for("Step 3 of the sign-in.");
    t.send("\u{1b}");
    // 4: still nothing launched; o opens.
    t.wait_for("Step 4 of the sign-in.");
    assert!(!log.exists(), "decline and cancel launch nothing");
    t.send("o");
    // 5: exactly one launch so far, with the exact URL as its one argument.
    t.wait_for("Step 5 of the sign-in.");
    assert_eq!(launches(&log), vec![format!("1 {}", urls[3])]);
    // Shift-Tab from Decline focuses Open; Enter presses it.
    t.press("\u{1b}[Z", "[>Open in browser<] [ Decline ]");
    t.send("\r");
    assert_eq!(t.finish(), 0);

    assert_eq!(
        launches(&log),
        vec![format!("1 {}", urls[3]), format!("1 {}", urls[4])]
    );
    let rs = results(&out);
    assert_eq!(
        actions_and_parents(&rs),
        vec![
            ("decline", "evt-c1"),
            ("decline", "evt-c2"),
            ("cancel", "evt-c3"),
            ("accept", "evt-c4"),
            ("accept", "evt-c5"),
        ]
    );
    // Consent to open, not completion: accept carries no content.
    assert_eq!(rs[3].2, json!({"action": "accept"}));
    assert_eq!(rs[0].2, json!({"action": "decline"}));
    assert_eq!(rs[2].2, json!({"action": "cancel"}));
}

/// Each warning kind shows its sentence before consent and
/// the URL stays openable. (Control and bidi characters cannot reach this
/// screen: the binding refuses such a URL as not a `uri`; see
/// `hidden_characters_are_refused_at_the_boundary`.)
#[test]
fn each_warning_kind_is_shown() {
    let long = format!("https://example.com/?q={}", "a".repeat(2000));
    let cases: Vec<(&str, String, Vec<&str>)> = vec![
        (
            "http",
            "http://example.com/".into(),
            vec!["! Plain http: the page is not encrypted; anyone on the network path can read or change it."],
        ),
        (
            "idn",
            "https://xn--mnchen-3ya.example/".into(),
            vec![
                "International domain name: shown as münchen.example, its ASCII (Punycode) form is xn--mnchen-3ya.example.",
                "Host: münchen.example",
            ],
        ),
        (
            "confusable",
            "https://xn--pypal-4ve.com/login".into(),
            vec![
                "The host label \"p\u{430}ypal\" looks like \"paypal\" but is made of other characters.",
                "The host label \"p\u{430}ypal\" mixes scripts (Latin, Cyrillic): a common way to imitate another name.",
                "its ASCII (Punycode) form is xn--pypal-4ve.com.",
            ],
        ),
        (
            "userinfo",
            "https://trusted.example@evil.test/".into(),
            vec![
                "The text before '@' (\"trusted.example\") is not the site: this URL opens evil.test.",
                "Host: evil.test",
            ],
        ),
        (
            "ip",
            "https://93.184.216.34/x".into(),
            vec!["The host is an IPv4 address (93.184.216.34), not a name."],
        ),
        (
            "port",
            "https://example.com:8443/".into(),
            vec!["Non-default port 8443 (this scheme normally uses 443).", "Scheme: https · port 8443"],
        ),
        (
            "long",
            long.clone(),
            vec!["Very long URL (2023 characters): check the host; the rest can hide things."],
        ),
    ];
    let dir = tempfile::tempdir().expect("tempdir");
    let log = dir.path().join("launches");
    let msgs: Vec<String> = cases
        .iter()
        .map(|(k, _, _)| format!("Warning case {k}."))
        .collect();
    let ids: Vec<String> = cases.iter().map(|(k, _, _)| format!("evt-w-{k}")).collect();
    let stream: Vec<(&str, &str, &str)> = cases
        .iter()
        .enumerate()
        .map(|(i, (_, u, _))| (ids[i].as_str(), msgs[i].as_str(), u.as_str()))
        .collect();
    let input = write_stream(dir.path(), &stream);
    let out = dir.path().join("out.jsonl");
    // Tall and wide, so the long URL and every warning fit on one screen.
    let mut t = Tui::respond(dir.path(), &out, (160, 60), &input, &browser_arg(&log, 0));
    for (i, (kind, _, sentences)) in cases.iter().enumerate() {
        t.wait_for(&msgs[i]);
        for s in sentences {
            t.wait_for(s);
        }
        assert!(
            t.shows("[ Open in browser ] [>Decline<]"),
            "{kind}: a warning does not take Open away"
        );
        t.send("d");
    }
    assert_eq!(t.finish(), 0);
    assert!(launches(&log).is_empty());
    let rs = results(&out);
    let got: Vec<(&str, &str)> = actions_and_parents(&rs);
    let want: Vec<(&str, &str)> = ids.iter().map(|id| ("decline", id.as_str())).collect();
    assert_eq!(got, want);
}

/// A URL with a raw bidi override and a newline is not a `uri`
/// (`format: uri` in the MCP schema): the request is refused at the boundary
/// with an error naming the place, gets no made-up result, and the requests
/// around it are still answered; the raw characters never reach the
/// terminal or stderr.
#[test]
fn hidden_characters_are_refused_at_the_boundary() {
    let dir = tempfile::tempdir().expect("tempdir");
    let log = dir.path().join("launches");
    let hostile = url_request("evt-h2", "Hostile.", "https://example.com/PLACEHOLDER")
        .replace("PLACEHOLDER", "\u{202e}fdp.exe\\\\n");
    assert!(hostile.contains('\u{202e}'));
    let text = format!(
        "{}\n{hostile}\n{}\n",
        url_request("evt-h1", "Before.", "https://example.com/a"),
        url_request("evt-h3", "After.", "https://example.com/c")
    );
    let input = dir.path().join("requests.jsonl");
    std::fs::write(&input, text).expect("write");
    let out = dir.path().join("out.jsonl");
    let mut t = Tui::respond(dir.path(), &out, (100, 30), &input, &browser_arg(&log, 0));
    t.wait_for("Before.");
    t.press("d", "After.");
    t.send("d");
    // 1: a request was refused.
    assert_eq!(t.finish(), 1);
    let raw = String::from_utf8_lossy(&t.raw).into_owned();
    assert!(
        !raw.contains('\u{202e}'),
        "no raw bidi override on the terminal"
    );
    let err = t.stderr();
    assert!(err.contains("request evt-h2 (line 2)"), "{err}");
    assert!(
        err.contains("/payload/elicitation/request/text#/url"),
        "{err}"
    );
    assert!(err.contains("is not a valid uri"), "{err}");
    assert!(err.contains("\\u{202e}"), "shown escaped: {err}");
    assert!(!err.contains('\u{202e}'), "{err}");
    assert!(launches(&log).is_empty());
    assert_answers(&out, &[("decline", "evt-h1"), ("decline", "evt-h3")]);
}

/// With stderr on the same terminal, the error about a refused request is
/// held while the UI is on screen (written there it would scroll and garble
/// the frame: the next consent screen showed the previous request's URL)
/// and written once the terminal is given back, where it stays visible.
#[test]
fn errors_wait_until_the_terminal_is_given_back() {
    let dir = tempfile::tempdir().expect("tempdir");
    let hostile = url_request("evt-h2", "Hostile.", "https://example.com/PLACEHOLDER")
        .replace("PLACEHOLDER", "\u{202e}fdp.exe");
    let text = format!(
        "{}\n{hostile}\n{}\n",
        url_request("evt-h1", "Before.", "https://example.com/first"),
        url_request("evt-h3", "After.", "https://example.com/third")
    );
    let input = dir.path().join("requests.jsonl");
    std::fs::write(&input, text).expect("write");
    let out = dir.path().join("out.jsonl");
    let command = format!("respond '{}' --no-open", input.display());
    let mut t = Tui::start_err_shown(dir.path(), &out, 100, 30, &command);
    t.wait_for("Before.");
    t.press("d", "After.");
    // The first whole frame of the third request: nothing else is on it.
    t.wait_for_frame("https://example.com/third");
    let screen = t.screen();
    assert!(
        !screen.contains("example.com/first"),
        "stale URL:\n{screen}"
    );
    assert!(
        !screen.contains("ahp-elicit:"),
        "error on the UI:\n{screen}"
    );
    t.send("d");
    assert_eq!(t.finish(), 1);
    // Back on the main screen: the error is there to read.
    t.wait_for("ahp-elicit: request evt-h2 (line 2): invalid request, no result");
    t.wait_for("is not a valid uri");
    assert_answers(&out, &[("decline", "evt-h1"), ("decline", "evt-h3")]);
}

/// `javascript:`, `file:`, `data:` and `ftp:` URLs offer no Open: `o` does
/// nothing, only Decline and Cancel are there.
#[test]
fn refused_schemes_offer_only_decline_and_cancel() {
    let dir = tempfile::tempdir().expect("tempdir");
    let log = dir.path().join("launches");
    let stream = [
        ("evt-r1", "Refused one.", "javascript:alert(1)"),
        ("evt-r2", "Refused two.", "file:///etc/passwd"),
        ("evt-r3", "Refused three.", "data:text/html,hi"),
        ("evt-r4", "Refused four.", "ftp://ftp.example.com/x"),
    ];
    let sentences = [
        "A javascript: URL runs code instead of opening a page; only https and http URLs are opened.",
        "A file: URL opens a file on this computer; only https and http URLs are opened.",
        "A data: URL carries its own page, which can imitate any site; only https and http URLs are opened.",
        "The scheme 'ftp:' is not opened; only https and http URLs are opened.",
    ];
    // After `o` (which must do nothing): d, Enter (on Decline), Esc, Tab +
    // Enter (on Cancel).
    let then = ["d", "\r", "\u{1b}", "\t"];
    let input = write_stream(dir.path(), &stream);
    let out = dir.path().join("out.jsonl");
    let mut t = Tui::respond(dir.path(), &out, (100, 30), &input, &browser_arg(&log, 0));
    for i in 0..4 {
        t.wait_for(stream[i].1);
        t.wait_for(stream[i].2);
        t.wait_for(&format!("✗ {}", sentences[i]));
        t.wait_for("[>Decline<] [ Cancel ]");
        for no in ["Open in browser", "[ Open", "o open"] {
            assert!(!t.shows(no), "no Open button:\n{}", t.screen());
        }
        t.send("o");
        t.send(then[i]);
        if then[i] == "\t" {
            t.wait_for("[ Decline ] [>Cancel<]");
            t.send("\r");
        }
    }
    assert_eq!(t.finish(), 0);
    assert!(!log.exists(), "a refused scheme is never launched");
    assert_answers(
        &out,
        &[
            ("decline", "evt-r1"),
            ("decline", "evt-r2"),
            ("cancel", "evt-r3"),
            ("cancel", "evt-r4"),
        ],
    );
}

/// A browser command that fails: the failure screen (focus on Retry), `r`
/// retries (a second launch), `g` gives up (cancel); `s` shows the URL to
/// copy and Done answers accept (consent stands); Esc gives up.
#[test]
fn failed_launch_offers_retry_copy_and_give_up() {
    let dir = tempfile::tempdir().expect("tempdir");
    let log = dir.path().join("launches");
    let urls = [
        "https://auth.example.com/a",
        "https://auth.example.com/b",
        "https://auth.example.com/c",
    ];
    let stream = [
        ("evt-f1", "Fail one.", urls[0]),
        ("evt-f2", "Fail two.", urls[1]),
        ("evt-f3", "Fail three.", urls[2]),
    ];
    let input = write_stream(dir.path(), &stream);
    let out = dir.path().join("out.jsonl");
    let mut t = Tui::respond(dir.path(), &out, (100, 30), &input, &browser_arg(&log, 3));
    let failed = "failed (exit status 3).";

    t.wait_for("Fail one.");
    t.press("o", failed);
    t.wait_for("[>Retry<] [ Show URL to copy ] [ Give up ]");
    assert_eq!(launches(&log).len(), 1);
    t.send("r");
    // The retry launches again and fails again; the screen stays.
    common::wait_until("a second launch after r", || launches(&log).len() >= 2);
    t.wait_for("[>Retry<]");
    t.press("g", "Fail two.");
    t.press("o", failed);
    t.press("s", "Copy this URL and open it in a browser yourself:");
    t.wait_for("[>Done<]");
    t.press("\r", "Fail three.");
    t.press("o", failed);
    t.send("\u{1b}");
    assert_eq!(t.finish(), 0);

    let want: Vec<String> = [urls[0], urls[0], urls[1], urls[2]]
        .iter()
        .map(|u| format!("1 {u}"))
        .collect();
    assert_eq!(launches(&log), want);
    assert_answers(
        &out,
        &[
            ("cancel", "evt-f1"),
            ("accept", "evt-f2"),
            ("cancel", "evt-f3"),
        ],
    );
}

/// A browser command that cannot be started at all is a launch failure
/// too; giving up answers cancel.
#[test]
fn missing_browser_program_is_a_failure() {
    let dir = tempfile::tempdir().expect("tempdir");
    let input = write_stream(
        dir.path(),
        &[("evt-m1", "Missing browser.", "https://auth.example.com/m")],
    );
    let out = dir.path().join("out.jsonl");
    let command = format!(
        "respond '{}' --browser '/nonexistent/dir/browser --flag'",
        input.display()
    );
    let mut t = Tui::start(dir.path(), &out, 100, 30, &command);
    t.wait_for("Missing browser.");
    t.press(
        "o",
        "The browser command \"/nonexistent/dir/browser\" could not be started",
    );
    t.send("g");
    assert_eq!(t.finish(), 0);
    assert_answers(&out, &[("cancel", "evt-m1")]);
}

/// Fake system browsers first on PATH (and `$BROWSER`), each recording its
/// arguments, to catch any launch through the `open` crate.
fn fake_system_browsers(dir: &Path) -> (PathBuf, PathBuf) {
    let log = dir.join("system-launches");
    // Browsers a fallback may start too, to catch any launch at all.
    let names = [SYSTEM_BROWSERS, &["firefox", "chromium", "open"]].concat();
    let bin = fake_browsers(dir, &names, |name| {
        format!(
            "printf '%s %s\\n' \"{name}\" \"$*\" >> '{}'\n",
            log.display()
        )
    });
    (bin, log)
}

/// `--no-open`: consent shows the URL for copying and records consent
/// (`accept`), nothing is launched (not even the system browser); giving
/// up on the copy screen answers cancel. Without `--no-open` and
/// `--browser`, the same fake system browser does get the URL, which
/// proves the trap works.
#[test]
fn no_open_records_consent_without_launching() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (bin, syslog) = fake_system_browsers(dir.path());
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let fake = bin.join("x-www-browser");
    let input = write_stream(
        dir.path(),
        &[
            ("evt-n1", "No open one.", "https://auth.example.com/n1"),
            ("evt-n2", "No open two.", "https://auth.example.com/n2"),
        ],
    );
    let envs = [
        ("PATH", path.clone()),
        ("BROWSER", fake.display().to_string()),
    ];
    let out = dir.path().join("out.jsonl");
    let command = format!("respond '{}' --no-open", input.display());
    let mut t = Tui::start_env(dir.path(), &out, 100, 30, &command, &envs);
    t.wait_for("No open one.");
    t.send("o");
    t.wait_for("Nothing was opened (--no-open). Copy this URL;");
    t.wait_for("https://auth.example.com/n1");
    t.wait_for("[>Done<] [ Give up ]");
    t.press("\r", "No open two.");
    t.press("o", "Nothing was opened (--no-open).");
    t.send("g");
    assert_eq!(t.finish(), 0);
    assert!(
        !syslog.exists(),
        "--no-open launched: {:?}",
        launches(&syslog)
    );
    let rs = results(&out);
    assert_eq!(
        actions_and_parents(&rs),
        vec![("accept", "evt-n1"), ("cancel", "evt-n2")]
    );
    assert_eq!(rs[0].2, json!({"action": "accept"}));

    // The trap works: without --no-open and --browser, the system browser
    // (through the `open` crate) gets the URL, after consent only.
    let input = write_stream(
        dir.path(),
        &[("evt-n3", "System browser.", "https://auth.example.com/n3")],
    );
    let out = dir.path().join("out2.jsonl");
    let command = format!("respond '{}'", input.display());
    let mut t = Tui::start_env(dir.path(), &out, 100, 30, &command, &envs);
    t.wait_for("System browser.");
    assert!(!syslog.exists());
    t.send("o");
    assert_eq!(t.finish(), 0);
    common::wait_until("the system browser's launch", || {
        !launches(&syslog).is_empty()
    });
    assert_eq!(
        launches(&syslog),
        vec!["xdg-open https://auth.example.com/n3".to_owned()]
    );
    assert_answers(&out, &[("accept", "evt-n3")]);
}

/// Below the minimum size the request is not shown, so no key answers it:
/// `o` (consent) and Enter launch nothing; Esc cancels (keys must never
/// reach a consent screen the person cannot see).
#[test]
fn too_small_a_screen_takes_no_consent() {
    let dir = tempfile::tempdir().expect("tempdir");
    let input = write_stream(
        dir.path(),
        &[("evt-s1", "Small screen.", "https://auth.example.com/s")],
    );
    let out = dir.path().join("out.jsonl");
    let rec = dir.path().join("launches.txt");
    let mut t = Tui::respond(dir.path(), &out, (30, 8), &input, &browser_arg(&rec, 0));
    t.wait_for("too small");
    t.send("o");
    t.send("\t\t\r");
    t.send("\x1b");
    assert_eq!(t.finish(), 0);
    assert_eq!(launches(&rec), Vec::<String>::new(), "nothing launched");
    assert_answers(&out, &[("cancel", "evt-s1")]);
}

/// With `--timeout` the consent screen counts down in its title like the
/// form does, and an unanswered request is cancelled at the deadline with
/// nothing launched.
#[test]
fn the_timeout_counts_down_on_the_consent_screen_then_cancels() {
    let dir = tempfile::tempdir().expect("tempdir");
    let input = write_stream(
        dir.path(),
        &[("evt-t1", "Waiting too long.", "https://auth.example.com/t")],
    );
    let out = dir.path().join("out.jsonl");
    let rec = dir.path().join("launches.txt");
    let command = format!(
        "respond '{}' --timeout 3 {}",
        input.display(),
        browser_arg(&rec, 0)
    );
    let mut t = Tui::start(dir.path(), &out, 80, 24, &command);
    t.wait_for("Waiting too long.");
    let title = screen_row(&mut t, 0);
    assert!(
        title.starts_with("Open a web page? · request 1 of 1 · ")
            && title.trim_end().ends_with("s left · Ctrl-T +3s"),
        "{title:?}"
    );
    t.wait_for("Time ran out");
    t.send("x");
    assert_eq!(t.finish(), 0);
    assert_eq!(launches(&rec), Vec::<String>::new(), "nothing launched");
    assert_answers(&out, &[("cancel", "evt-t1")]);
}

/// Consent needs a screen that was seen: a second `o` typed right after the
/// first (before the next request's screen could be read) opens nothing;
/// Ctrl-D declines on the consent screen as everywhere else.
#[test]
fn typeahead_is_no_consent_and_ctrl_d_declines() {
    let dir = tempfile::tempdir().expect("tempdir");
    let input = write_stream(
        dir.path(),
        &[
            ("evt-t1", "First page.", "https://auth.example.com/one"),
            ("evt-t2", "Second page.", "https://auth.example.com/two"),
        ],
    );
    let out = dir.path().join("out.jsonl");
    let rec = dir.path().join("launches.txt");
    let mut t = Tui::respond(dir.path(), &out, (100, 30), &input, &browser_arg(&rec, 0));
    t.wait_for("First page.");
    // Both presses in one write: the second arrives before the next screen.
    t.press("oo", "Second page.");
    t.send("\x04");
    assert_eq!(t.finish(), 0);
    assert_eq!(
        launches(&rec).len(),
        1,
        "exactly one launch: {:?}",
        launches(&rec)
    );
    assert_answers(&out, &[("accept", "evt-t1"), ("decline", "evt-t2")]);
}

// ---- attacks on consent (a malicious server): nothing unseen is opened ----

/// A message that draws its own URL block, then blank lines to push the
/// real one below the fold.
fn spoof_message() -> String {
    format!(
        "Sign in to continue.\n\nURL\n  https://auth.example.com/login\nHost:    auth.example.com\nScheme:  https\n{}",
        "\n".repeat(40)
    )
}

const EVIL: &str = "https://auth.example.com.evil.test/login?session=1";

/// Row `n` of the screen.
fn screen_row(t: &mut Tui, n: usize) -> String {
    t.pump();
    t.screen().lines().nth(n).unwrap_or_default().to_owned()
}

/// The message's own "Host: auth.example.com" cannot stand in for the real
/// one: the real host is pinned on the row under the title, the message is
/// framed below the real URL; reading that, the person declines.
#[test]
fn a_spoofed_url_block_in_the_message_is_framed_below_the_real_host() {
    let dir = tempfile::tempdir().expect("tempdir");
    let msg = spoof_message();
    let input = write_stream(dir.path(), &[("evt-a1", msg.as_str(), EVIL)]);
    let out = dir.path().join("out.jsonl");
    let log = dir.path().join("launches");
    let mut t = Tui::respond(dir.path(), &out, (80, 24), &input, &browser_arg(&log, 0));
    t.wait_for("│ Host: auth.example.com");
    assert_eq!(
        screen_row(&mut t, 1).trim_end(),
        "Host:    auth.example.com.evil.test"
    );
    for l in t.screen().lines() {
        if l.contains("auth.example.com") && !l.contains("evil.test") {
            assert!(l.starts_with("│ "), "an unframed spoof line: {l:?}");
        }
    }
    // Scrolling to the end never moves the real host away.
    t.press("\u{1b}[F", "↑ top");
    assert_eq!(
        screen_row(&mut t, 1).trim_end(),
        "Host:    auth.example.com.evil.test"
    );
    t.send("d");
    assert_eq!(t.finish(), 0);
    assert!(launches(&log).is_empty());
    assert_answers(&out, &[("decline", "evt-a1")]);
}

/// A 7,875-character URL whose userinfo imitates Google: the real host
/// (evil.test) is pinned from the first frame; `o`, and Enter on the Open
/// button, open nothing before the whole URL was scrolled through, and the
/// screen says why and which way to scroll.
#[test]
fn a_long_userinfo_url_opens_nothing_before_it_was_read() {
    let user = format!("accounts.google.com%2Fo%2Foauth2{}", "%2Fv2".repeat(1540));
    let mut url = format!("https://{user}@evil.test/cb?x=");
    url.push_str(&"y".repeat(7875 - url.len()));
    let dir = tempfile::tempdir().expect("tempdir");
    let input = write_stream(dir.path(), &[("evt-a2", "Sign in with Google.", &url)]);
    let out = dir.path().join("out.jsonl");
    let log = dir.path().join("launches");
    let mut t = Tui::respond(dir.path(), &out, (80, 24), &input, &browser_arg(&log, 0));
    t.wait_for("scroll to read the whole URL");
    assert_eq!(screen_row(&mut t, 1).trim_end(), "Host:    evil.test");
    t.send("o");
    t.press("\u{1b}[Z", "[>Open in browser<]");
    t.send("\r");
    // End jumps past the middle of the URL: still nothing.
    t.press("\u{1b}[F", "↑ top");
    t.send("o");
    // The unread middle is above the window now: the hint says so.
    assert!(t.shows("scroll up to read the whole URL (↑ PgUp)"));
    t.send("\u{1b}");
    assert_eq!(t.finish(), 0);
    assert!(launches(&log).is_empty(), "{:?}", launches(&log));
    assert_answers(&out, &[("cancel", "evt-a2")]);
}

/// At 40x10 the host is pinned and the URL must be scrolled; `o` at once
/// opens nothing.
#[test]
fn at_40x10_nothing_unseen_opens() {
    let dir = tempfile::tempdir().expect("tempdir");
    let msg = spoof_message();
    let input = write_stream(dir.path(), &[("evt-a3", msg.as_str(), EVIL)]);
    let out = dir.path().join("out.jsonl");
    let log = dir.path().join("launches");
    let mut t = Tui::respond(dir.path(), &out, (40, 10), &input, &browser_arg(&log, 0));
    t.wait_for("scroll to read the whole URL");
    assert_eq!(
        screen_row(&mut t, 1).trim_end(),
        "Host:    auth.example.com.evil.test"
    );
    t.send("o");
    t.send("\u{1b}");
    assert_eq!(t.finish(), 0);
    assert!(launches(&log).is_empty(), "{:?}", launches(&log));
    assert_answers(&out, &[("cancel", "evt-a3")]);
}

/// Press `key` (paced like a person) until the screen no longer shows
/// `text` ([`Tui::press_until`]).
fn press_until_gone(t: &mut Tui, key: &str, text: &str) {
    t.press_until(key, &format!("{text:?} gone"), |t| !t.shows(text));
}

/// Wait for `text` without the harness's reading pause (the next key goes
/// out at once).
fn wait_quietly(t: &mut Tui, text: &str) {
    let want = squash(text);
    t.until(&format!("{text:?}"), PATIENCE, |t| {
        squash(&t.screen()).contains(&want).then_some(())
    });
}

/// A resize from too small to big, then `o` at once: the guard starts at
/// the first frame that shows the request whole, so the `o` opens nothing.
#[test]
fn a_resize_then_o_opens_nothing() {
    let dir = tempfile::tempdir().expect("tempdir");
    let input = write_stream(
        dir.path(),
        &[("evt-a4", "Resize me.", "https://auth.example.com/r")],
    );
    let out = dir.path().join("out.jsonl");
    let log = dir.path().join("launches");
    let mut t = Tui::respond(dir.path(), &out, (30, 8), &input, &browser_arg(&log, 0));
    t.wait_for("too small");
    // Long enough at the small size for a guard counted from the first
    // attempt to draw to have ended (two reading pauses, each longer than
    // the 400 ms guard).
    t.send("");
    t.send("");
    t.resize(100, 30);
    // `o` the moment the request appears at the new size.
    wait_quietly(&mut t, "Host: auth.example.com");
    t.send_now("o");
    press_until_gone(&mut t, "\u{1b}", "Resize me.");
    assert_eq!(t.finish(), 0);
    assert!(launches(&log).is_empty(), "{:?}", launches(&log));
    assert_answers(&out, &[("cancel", "evt-a4")]);
}

/// Focus moves during the guard are ignored: Left (onto Open) typed as the
/// screen appears, then Enter a person's pause later, opens nothing.
#[test]
fn a_focus_move_during_the_guard_is_ignored() {
    let dir = tempfile::tempdir().expect("tempdir");
    let input = write_stream(
        dir.path(),
        &[("evt-a5", "Quick keys.", "https://auth.example.com/q")],
    );
    let out = dir.path().join("out.jsonl");
    let log = dir.path().join("launches");
    let mut t = Tui::respond(dir.path(), &out, (100, 30), &input, &browser_arg(&log, 0));
    t.wait_for("Quick keys.");
    t.send_now("\u{1b}[D");
    press_until_gone(&mut t, "\r", "Quick keys.");
    assert_eq!(t.finish(), 0);
    assert!(launches(&log).is_empty(), "{:?}", launches(&log));
    let rs = results(&out);
    assert_eq!(actions_and_parents(&rs), vec![("decline", "evt-a5")]);
}

/// A held `o` (key repeat, one every 30 ms for 1.5 s) consents to the first
/// request only: the repeats that reach the second are dropped, each one
/// restarting its guard, and it waits for the person.
#[test]
fn a_held_o_key_opens_only_the_request_it_was_pressed_on() {
    let dir = tempfile::tempdir().expect("tempdir");
    let input = write_stream(
        dir.path(),
        &[
            ("evt-h1", "First page.", "https://auth.example.com/one"),
            ("evt-h2", "Second page.", "https://auth.example.com/two"),
        ],
    );
    let out = dir.path().join("out.jsonl");
    let log = dir.path().join("launches");
    let mut t = Tui::respond(dir.path(), &out, (100, 30), &input, &browser_arg(&log, 0));
    t.wait_for("First page.");
    t.send("");
    t.send_spaced(Duration::from_millis(30), &["o"; 50]);
    t.wait_for("Second page.");
    // Every `o` has been read once the focus move typed after them shows.
    t.send_marker("\t");
    assert_eq!(launches(&log), vec!["1 https://auth.example.com/one"]);
    assert_answers(&out, &[("accept", "evt-h1")]);
    t.last_key = Instant::now();
    t.send("\u{1b}");
    assert_eq!(t.finish(), 0);
    assert_eq!(launches(&log).len(), 1);
    assert_answers(&out, &[("accept", "evt-h1"), ("cancel", "evt-h2")]);
}

/// Esc typed for one request does not cancel the next when that one
/// appears on a screen too small to show it.
#[test]
fn a_carried_esc_does_not_cancel_a_too_small_request() {
    let dir = tempfile::tempdir().expect("tempdir");
    let input = write_stream(
        dir.path(),
        &[
            ("evt-e1", "One.", "https://auth.example.com/one"),
            ("evt-e2", "Two.", "https://auth.example.com/two"),
        ],
    );
    let out = dir.path().join("out.jsonl");
    let mut t = Tui::respond(dir.path(), &out, (30, 8), &input, "");
    t.wait_for("too small");
    // At 30x8 the waiting screen says "too small" the same way as the
    // first request's: no condition tells them apart, so the request's
    // screen is given ample time (setup, not a measurement).
    std::thread::sleep(Duration::from_millis(1500));
    // Esc, then Esc 50 ms later (a double press meant for one screen).
    t.send_spaced(Duration::from_millis(50), &["\u{1b}", "\u{1b}"]);
    // The second request, too small too, once the first Esc cancelled the
    // first. The keys are read in order: once the second request shows
    // whole after a resize that follows both Esc, the second Esc was read
    // and did not cancel it (a cancel would have ended the run).
    common::wait_until("the first request's cancel", || {
        std::fs::read_to_string(&out).is_ok_and(|t| t.lines().count() >= 1)
    });
    t.send("");
    t.resize(100, 30);
    t.wait_for("Two.");
    assert_eq!(
        actions_and_parents(&results(&out)),
        vec![("cancel", "evt-e1")],
        "{}",
        t.screen()
    );
    press_until_gone(&mut t, "\u{1b}", "Two.");
    assert_eq!(t.finish(), 0);
    assert_answers(&out, &[("cancel", "evt-e1"), ("cancel", "evt-e2")]);
}

/// A URL longer than a row is written as one OSC 8 hyperlink: every row
/// of it on the consent screen carries the whole address (Ctrl+click on
/// any row opens all of it, never the part on that row), and on the
/// `--no-open` copy screen it is one string the terminal wraps itself, so
/// a selection copies one line.
#[test]
fn a_long_url_is_one_hyperlink_and_one_line_to_copy() {
    let dir = tempfile::tempdir().expect("tempdir");
    let url = format!(
        "https://auth.example.com/oauth/authorize?client_id=abc&state={}&scope=read",
        "0123456789".repeat(21)
    );
    assert!(url.len() > 280);
    let input = write_stream(dir.path(), &[("evt-long", "Sign in.", &url)]);
    let out = dir.path().join("out.jsonl");
    let mut t = Tui::respond(dir.path(), &out, (80, 30), &input, "--no-open");
    t.wait_for("Sign in.");
    let open = format!("\u{1b}]8;id=ahp-elicit-url;{url}\u{1b}\\");
    // Four rows at 80 columns, each a link to the whole address.
    t.wait_raw_until("four rows linked", |raw| raw.matches(&open).count() >= 4);
    assert!(t.shows(&url), "{}", t.screen());
    t.send("o");
    t.wait_for("Nothing was opened (--no-open). Copy this URL;");
    let one_line = format!("{open}{url}\u{1b}]8;;\u{1b}\\");
    t.wait_raw_until("the URL in one link", |raw| raw.contains(&one_line));
    assert!(t.shows(&url), "{}", t.screen());
    t.send("\r");
    assert_eq!(t.finish(), 0);
}

/// `demo --request` on a URL request takes `--browser CMD`, as the
/// launch failure's hint says: consent opens the URL with CMD.
#[test]
fn demo_opens_a_url_request_with_browser() {
    let dir = tempfile::tempdir().expect("tempdir");
    let request = url_request("evt-demo", "Sign in here.", "https://auth.example.com/demo");
    let req = common::file_in(dir.path(), "req.json", request);
    let log = dir.path().join("launches.log");
    let out = dir.path().join("out.json");
    let command = format!(
        "demo --request '{}' {}",
        req.display(),
        browser_arg(&log, 0)
    );
    let mut t = Tui::start(dir.path(), &out, 100, 30, &command);
    t.wait_for("Sign in here.");
    t.send("o");
    assert_eq!(t.finish(), 0);
    assert_eq!(launches(&log), vec!["1 https://auth.example.com/demo"]);
}
