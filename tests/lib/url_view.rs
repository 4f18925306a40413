//! The URL consent view: snapshots at 80x24 and
//! 40x12, keys (taken as the screen takes them, with a test clock), styles,
//! and that the full URL is always reachable.
#![cfg(feature = "cli")]

use std::time::{Duration, Instant};

use ahp_elicit::binding::Action;
use ahp_elicit::consent::{NotTaken, CONSENT_GUARD};
use ahp_elicit::launcher::LaunchError;
use ahp_elicit::launcher::Launcher;
use ahp_elicit::tui::url_view::{draw, take_key, UrlButton, UrlPhase, UrlStep, UrlViewState};
use ahp_elicit::tui::{translate_key, Theme};
use ahp_elicit::url_review::review;
use crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};
use ratatui::backend::TestBackend;
use ratatui::style::Modifier;
use ratatui::Terminal;

/// A view whose clock is a test clock, standing at the system's time now
/// (each [`press`] moves it on).
fn state(url: &str, message: &str) -> UrlViewState {
    let mut s = UrlViewState::new(
        review(url),
        message,
        "Calendar Connector (calendar-mcp 1.4.0)",
        "claude-code",
        "request 1 of 2",
    );
    s.set_clock(Some(Instant::now()));
    s
}

fn render(s: &UrlViewState, w: u16, h: u16) -> Terminal<TestBackend> {
    let mut t = Terminal::new(TestBackend::new(w, h)).unwrap();
    t.draw(|f| draw(f, f.area(), s, &Theme::monochrome()))
        .unwrap();
    t
}

fn text(t: &Terminal<TestBackend>) -> Vec<String> {
    let buf = t.backend().buffer();
    (0..buf.area.height)
        .map(|y| {
            (0..buf.area.width)
                .map(|x| buf[(x, y)].symbol().to_string())
                .collect::<String>()
        })
        .collect()
}

/// `text` without whitespace.
fn squash(text: &str) -> String {
    text.chars().filter(|c| !c.is_whitespace()).collect()
}

fn key(code: KeyCode) -> KeyEvent {
    KeyEvent::new(code, KeyModifiers::NONE)
}

/// A key press as the terminal delivers it, `after` the last frame or key:
/// translated as the front end does (releases dropped), then taken as the
/// screen takes it ([`take_key`]), opening with `l` (`no_open`:
/// `--no-open`).
fn press_after(
    s: &mut UrlViewState,
    after: Duration,
    ev: KeyEvent,
    l: &mut dyn Launcher,
    no_open: bool,
) -> UrlStep {
    let now = s.clock().expect("a test clock") + after;
    s.set_clock(Some(now));
    match translate_key(&ev) {
        Some(k) => take_key(s, &k, l, no_open, &|| true),
        None => UrlStep {
            action: None,
            refused_open: false,
            not_taken: None,
        },
    }
}

/// A key press a grace period after the last frame or key (the key guard
/// lets no key through sooner), opening with `l`.
fn press_with(s: &mut UrlViewState, ev: KeyEvent, l: &mut dyn Launcher) -> UrlStep {
    press_after(s, CONSENT_GUARD, ev, l, false)
}

/// A key press a grace period after the last frame or key, with a
/// launcher that opens; the action it decides.
fn press(s: &mut UrlViewState, ev: KeyEvent) -> Option<Action> {
    press_with(s, ev, &mut Rec::default()).action
}

const SPOOF: &str = "http://trusted.example@login.evil.test:8080/oauth/authorize?client_id=cal&redirect_uri=https%3A%2F%2Fapp.example%2Fcb&state=af0ifjsldkj";

#[test]
fn consent_80x24_with_warnings() {
    let s = state(SPOOF, "Sign in to connect your calendar.");
    insta::assert_snapshot!(render(&s, 80, 24).backend());
}

#[test]
fn consent_40x12_with_warnings() {
    let s = state(SPOOF, "Sign in to connect your calendar.");
    insta::assert_snapshot!(render(&s, 40, 12).backend());
}

#[test]
fn consent_40x12_scrolled_to_the_warnings() {
    let mut s = state(SPOOF, "Sign in to connect your calendar.");
    let _ = render(&s, 40, 12);
    assert_eq!(press(&mut s, key(KeyCode::End)), None);
    insta::assert_snapshot!(render(&s, 40, 12).backend());
}

#[test]
fn consent_80x24_plain() {
    let s = state(
        "https://accounts.example.co.uk/signin?continue=x",
        "Sign in to continue.",
    );
    insta::assert_snapshot!(render(&s, 80, 24).backend());
}

#[test]
fn consent_80x24_idn_confusable() {
    let s = state(
        "https://www.p\u{430}ypal.com/signin",
        "Verify your payment.",
    );
    insta::assert_snapshot!(render(&s, 80, 24).backend());
}

#[test]
fn refused_scheme_80x24() {
    let s = state("javascript:alert(document.cookie)", "Click to continue.");
    insta::assert_snapshot!(render(&s, 80, 24).backend());
}

#[test]
fn refused_scheme_40x12() {
    let s = state("file:///etc/passwd", "Open the file.");
    insta::assert_snapshot!(render(&s, 40, 12).backend());
}

#[test]
fn launch_failed_80x24() {
    let mut s = state("https://a.example/cb", "Sign in.");
    s.launch_failed("The browser command \"firefox\" failed (exit status 1).");
    insta::assert_snapshot!(render(&s, 80, 24).backend());
}

#[test]
fn copy_after_no_open_80x24() {
    let mut s = state("https://a.example/cb?x=1", "Sign in.");
    s.show_for_copy();
    insta::assert_snapshot!(render(&s, 80, 24).backend());
}

#[test]
fn hostile_text_is_escaped() {
    let s = UrlViewState::new(
        review("https://example.com/\u{202e}fdp.exe"),
        "Hi\u{1b}[31m red\u{7}\nline two",
        "srv\u{1b}]8;;x\u{7}",
        "ad\u{200b}apter",
        "1/1\u{9b}",
    );
    let lines = text(&render(&s, 80, 24));
    let all = lines.join("\n");
    assert!(!all.contains('\u{1b}'));
    assert!(!all.contains('\u{202e}'));
    assert!(!all.contains('\u{9b}'));
    assert!(all.contains("Hi\\u{1b}[31m red\\u{7}"), "{all}");
    assert!(all.contains("line two"), "{all}");
    assert!(all.contains("srv\\u{1b}]8;;x\\u{7}"), "{all}");
    assert!(all.contains("ad\\u{200b}apter"), "{all}");
    assert!(
        all.contains("https://example.com/%E2%80%AEfdp.exe"),
        "{all}"
    );
    assert!(
        all.contains("https://example.com/\\u{202e}fdp.exe"),
        "{all}"
    );
}

#[test]
fn registrable_domain_is_emphasised() {
    let s = state("https://login.example.co.uk/x", "m");
    let t = render(&s, 80, 24);
    let lines = text(&t);
    let y = lines
        .iter()
        .position(|l| l.starts_with("Host:"))
        .expect("host line");
    assert_eq!(lines[y].trim_end(), "Host:    login.example.co.uk");
    let buf = t.backend().buffer();
    let bold = |x: u16| buf[(x, y as u16)].modifier.contains(Modifier::BOLD);
    // "login." (columns 9..15) is plain; "example.co.uk" (15..28) is bold.
    assert!((9..15).all(|x| !bold(x)));
    assert!((15..28).all(bold));
    assert!(!bold(28));
}

/// The step of a key that is the view's own, or no key at all.
const NOTHING: UrlStep = UrlStep {
    action: None,
    refused_open: false,
    not_taken: None,
};

#[test]
fn enter_never_consents_first() {
    let mut s = state("https://a.example/", "m");
    assert_eq!(s.focus(), UrlButton::Decline);
    assert_eq!(
        s.buttons(),
        vec![UrlButton::Open, UrlButton::Decline, UrlButton::Cancel]
    );
    let _ = render(&s, 80, 24);
    assert_eq!(press(&mut s, key(KeyCode::Enter)), Some(Action::Decline));
    // Before any frame showed the URL, Open does nothing.
    let mut s = state("https://a.example/", "m");
    let mut l = Rec::default();
    let step = press_with(&mut s, key(KeyCode::Char('o')), &mut l);
    assert_eq!(step.not_taken, Some(NotTaken::NotShown));
    assert_eq!(step.action, None);
    assert!(l.opened.is_empty());
    let _ = render(&s, 80, 24);
    let step = press_with(&mut s, key(KeyCode::Char('o')), &mut l);
    assert_eq!(step.action, Some(Action::Accept));
    assert_eq!(l.opened, vec!["https://a.example/"]);
    // Shift-Tab reaches Open; Enter presses it.
    let mut s = state("https://a.example/", "m");
    let _ = render(&s, 80, 24);
    assert_eq!(press(&mut s, key(KeyCode::BackTab)), None);
    assert_eq!(s.focus(), UrlButton::Open);
    assert_eq!(press(&mut s, key(KeyCode::Enter)), Some(Action::Accept));
    let mut s = state("https://a.example/", "m");
    assert_eq!(press(&mut s, key(KeyCode::Tab)), None);
    assert_eq!(s.focus(), UrlButton::Cancel);
    assert_eq!(press(&mut s, key(KeyCode::Char(' '))), Some(Action::Cancel));
    let ctrl = |c| KeyEvent::new(KeyCode::Char(c), KeyModifiers::CONTROL);
    for (ev, a) in [
        (key(KeyCode::Char('d')), Action::Decline),
        (ctrl('d'), Action::Decline),
        (key(KeyCode::Esc), Action::Cancel),
        (ctrl('c'), Action::Cancel),
    ] {
        let mut s = state("https://a.example/", "m");
        assert_eq!(press(&mut s, ev), Some(a), "{ev:?}");
    }
    // A release of 'o' is not a press, and Ctrl-O is not 'o': neither is
    // an input at all, on a screen where `o` would open.
    let mut s = state("https://a.example/", "m");
    let _ = render(&s, 80, 24);
    let mut release = key(KeyCode::Char('o'));
    release.kind = KeyEventKind::Release;
    assert_eq!(press_with(&mut s, release, &mut l), NOTHING);
    assert_eq!(press_with(&mut s, ctrl('o'), &mut l), NOTHING);
    assert_eq!(l.opened.len(), 1, "only the first consent opened");
}

#[test]
fn refused_scheme_offers_only_decline_and_cancel() {
    for u in [
        "javascript:alert(1)",
        "data:text/html,x",
        "file:///etc/passwd",
        "ftp://a.example/",
    ] {
        let mut s = state(u, "m");
        assert_eq!(
            s.buttons(),
            vec![UrlButton::Decline, UrlButton::Cancel],
            "{u}"
        );
        let lines = text(&render(&s, 80, 24)).join("\n");
        assert!(!lines.contains("Open in browser"), "{lines}");
        let mut l = Rec::default();
        let step = press_with(&mut s, key(KeyCode::Char('o')), &mut l);
        assert_eq!(step.not_taken, Some(NotTaken::NotOffered), "{u}");
        press(&mut s, key(KeyCode::Tab));
        press(&mut s, key(KeyCode::Tab));
        assert_eq!(
            s.focus(),
            UrlButton::Decline,
            "{u}: focus never reaches Open"
        );
        assert_eq!(
            press_with(&mut s, key(KeyCode::Enter), &mut l).action,
            Some(Action::Decline)
        );
        assert!(l.opened.is_empty(), "{u}: never launched");
    }
}

const FAILED: &str = "The browser command \"x\" failed (exit status 1).";

#[test]
fn launch_failure_retry_copy_give_up() {
    let mut s = state("https://a.example/cb", "m");
    let _ = render(&s, 80, 24);
    let mut fail = Rec {
        fail: true,
        ..Rec::default()
    };
    assert_eq!(
        press_with(&mut s, key(KeyCode::Char('o')), &mut fail).action,
        None
    );
    assert_eq!(s.phase(), &UrlPhase::LaunchFailed(FAILED.into()));
    assert_eq!(s.focus(), UrlButton::Retry);
    // Retry, the focused button or `r`, launches again.
    for k in [KeyCode::Enter, KeyCode::Char('r')] {
        assert_eq!(press_with(&mut s, key(k), &mut fail).action, None);
        assert_eq!(s.phase(), &UrlPhase::LaunchFailed(FAILED.into()));
    }
    assert_eq!(fail.opened.len(), 3);
    // Esc and `g` give up: cancel.
    for k in [KeyCode::Esc, KeyCode::Char('g')] {
        let mut t = s.clone();
        assert_eq!(press(&mut t, key(k)), Some(Action::Cancel), "{k:?}");
    }
    // Consent was given: Open is no choice here any more.
    let step = press_with(&mut s, key(KeyCode::Char('o')), &mut fail);
    assert_eq!(step.not_taken, Some(NotTaken::NotOffered));
    assert_eq!(fail.opened.len(), 3);
    assert_eq!(press(&mut s, key(KeyCode::Char('s'))), None);
    assert_eq!(
        s.phase(),
        &UrlPhase::Copy {
            after_failure: true
        }
    );
    assert_eq!(
        s.buttons(),
        vec![UrlButton::Done, UrlButton::Retry, UrlButton::GiveUp]
    );
    let lines = text(&render(&s, 80, 24));
    assert!(
        lines.iter().any(|l| l.trim_end() == "https://a.example/cb"),
        "the URL alone on a line from column 0: {lines:?}"
    );
    let mut t = s.clone();
    assert_eq!(
        press(&mut t, key(KeyCode::Enter)),
        Some(Action::Accept),
        "Done"
    );
    let mut t = s.clone();
    let ctrl_c = KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL);
    assert_eq!(press(&mut t, ctrl_c), Some(Action::Cancel));
    // A retry from the copy screen that opens the browser: accept.
    let mut ok = Rec::default();
    let step = press_with(&mut s, key(KeyCode::Char('r')), &mut ok);
    assert_eq!(step.action, Some(Action::Accept));
    assert_eq!(ok.opened, vec!["https://a.example/cb"]);
}

/// The first row below the pinned block (after its `─` rule).
fn body_top(lines: &[String]) -> usize {
    lines
        .iter()
        .position(|l| l.starts_with('─'))
        .expect("the pinned block ends with a rule")
        + 1
}

#[test]
fn the_whole_long_url_is_reachable_by_scrolling() {
    let url = format!("https://a.example/cb?data={}", "0123456789".repeat(210));
    for (w, h) in [(80u16, 24u16), (40, 12)] {
        let mut s = state(&url, "A very long URL follows.");
        // Every body line, by its index in the body, from all scroll
        // positions.
        let mut seen: std::collections::BTreeMap<usize, String> = Default::default();
        let mut last = None;
        for _ in 0..200 {
            let lines = text(&render(&s, w, h));
            if last == Some(s.scroll()) {
                break;
            }
            last = Some(s.scroll());
            // Body rows run from below the pinned block to the row before
            // the "more" indicator, buttons and help.
            let top = body_top(&lines);
            for (i, l) in lines[top..usize::from(h) - 3].iter().enumerate() {
                seen.insert(usize::from(s.scroll()) + i, l.clone());
            }
            press(&mut s, key(KeyCode::Down));
        }
        let joined: String = seen
            .values()
            .filter(|l| l.starts_with("  ") && !l.trim().contains(' '))
            .map(|l| l.trim().to_string())
            .collect();
        assert!(
            joined.contains(&url),
            "{w}x{h}: the URL is not fully reachable; got {} chars",
            joined.len()
        );
        // Scrolling through reaches the warnings, and then Open works.
        let all: String = seen.values().map(|l| squash(l)).collect();
        assert!(all.contains("VerylongURL"), "{w}x{h}: {all}");
        assert!(s.open_enabled(), "{w}x{h}: read through");
        // End jumps over the middle of the URL: Open stays disabled.
        let mut s = state(&url, "m");
        let _ = render(&s, w, h);
        press(&mut s, key(KeyCode::End));
        let _ = render(&s, w, h);
        assert!(!s.open_enabled(), "{w}x{h}: the middle was never shown");
        let step = press_with(&mut s, key(KeyCode::Char('o')), &mut Rec::default());
        assert_eq!(step.not_taken, Some(NotTaken::NotShown), "{w}x{h}");
    }
}

/// A launcher that records each URL and fails while `fail` is set.
#[derive(Default)]
struct Rec {
    opened: Vec<String>,
    fail: bool,
}
impl Launcher for Rec {
    fn open(&mut self, url: &str) -> Result<(), LaunchError> {
        self.opened.push(url.to_owned());
        if self.fail {
            Err(LaunchError::Failed {
                program: "x".into(),
                code: 1,
            })
        } else {
            Ok(())
        }
    }
}

#[test]
fn open_launches_once_then_accepts() {
    let mut s = state("https://a.example/cb?x=1", "m");
    let mut l = Rec::default();
    // Moving around and scrolling launches nothing.
    for k in [KeyCode::Tab, KeyCode::BackTab, KeyCode::Down, KeyCode::Left] {
        assert_eq!(press_with(&mut s, key(k), &mut l), NOTHING, "{k:?}");
    }
    assert!(l.opened.is_empty());
    let _ = render(&s, 80, 24);
    let step = press_with(&mut s, key(KeyCode::Char('o')), &mut l);
    assert_eq!(step.action, Some(Action::Accept));
    assert_eq!(l.opened, vec!["https://a.example/cb?x=1"]);
    // The request has its one answer: no key opens again.
    let step = press_with(&mut s, key(KeyCode::Char('o')), &mut l);
    assert_eq!(step.not_taken, Some(NotTaken::Answered));
    assert_eq!(l.opened.len(), 1);
}

#[test]
fn a_failed_launch_is_retried_or_given_up() {
    let mut l = Rec {
        fail: true,
        ..Rec::default()
    };
    let mut s = state("https://a.example/", "m");
    let _ = render(&s, 80, 24);
    assert_eq!(
        press_with(&mut s, key(KeyCode::Char('o')), &mut l).action,
        None
    );
    assert_eq!(s.phase(), &UrlPhase::LaunchFailed(FAILED.into()));
    l.fail = false;
    let step = press_with(&mut s, key(KeyCode::Enter), &mut l);
    assert_eq!(step.action, Some(Action::Accept), "Retry, focused, opened");
    assert_eq!(l.opened.len(), 2);

    let mut s = state("https://a.example/", "m");
    let _ = render(&s, 80, 24);
    l.fail = true;
    press_with(&mut s, key(KeyCode::Char('o')), &mut l);
    assert_eq!(
        press_with(&mut s, key(KeyCode::Esc), &mut l).action,
        Some(Action::Cancel)
    );
    // Declining and cancelling never launch.
    let n = l.opened.len();
    for (k, a) in [
        (KeyCode::Char('d'), Action::Decline),
        (KeyCode::Esc, Action::Cancel),
    ] {
        let mut s = state("https://a.example/", "m");
        let _ = render(&s, 80, 24);
        assert_eq!(press_with(&mut s, key(k), &mut l).action, Some(a));
    }
    // A refused scheme is never launched, read or not.
    let mut s = state("javascript:alert(1)", "m");
    let _ = render(&s, 80, 24);
    let step = press_with(&mut s, key(KeyCode::Char('o')), &mut l);
    assert_eq!(step.not_taken, Some(NotTaken::NotOffered), "{step:?}");
    assert_eq!(l.opened.len(), n);
}

#[test]
fn no_open_shows_the_url_then_accepts() {
    use ahp_elicit::launcher::NoOpen;
    let mut s = state("https://a.example/cb", "m");
    s.set_no_open(true);
    let _ = render(&s, 80, 24);
    let mut l = NoOpen::default();
    let step = press_after(&mut s, CONSENT_GUARD, key(KeyCode::Char('o')), &mut l, true);
    assert_eq!(step.action, None);
    assert_eq!(
        s.phase(),
        &UrlPhase::Copy {
            after_failure: false
        }
    );
    assert_eq!(l.consented, vec!["https://a.example/cb"]);
    assert_eq!(s.focus(), UrlButton::Done);
    let step = press_after(&mut s, CONSENT_GUARD, key(KeyCode::Enter), &mut l, true);
    assert_eq!(step.action, Some(Action::Accept));
    assert_eq!(l.consented.len(), 1);
}

/// The machine's grace period counts from the frame that brought the last
/// unread rows of the URL and its warnings on screen, not from the first
/// frame: `o` sooner is not taken (whatever a key filter let through), `o`
/// a full period later opens.
#[test]
fn open_counts_only_a_grace_period_after_the_url_was_read_whole() {
    let url = format!("https://a.example/cb?data={}", "0123456789".repeat(210));
    let mut s = state(&url, "m");
    let mut l = Rec::default();
    let _ = render(&s, 80, 24);
    while !s.open_enabled() {
        press(&mut s, key(KeyCode::PageDown));
        let _ = render(&s, 80, 24);
    }
    let ms = Duration::from_millis;
    for after in [ms(0), ms(1), CONSENT_GUARD - ms(1)] {
        let mut t = s.clone();
        let step = press_after(&mut t, after, key(KeyCode::Char('o')), &mut l, false);
        assert_eq!(step.not_taken, Some(NotTaken::TooSoon), "{after:?}");
        assert_eq!(t.phase(), &UrlPhase::Consent);
    }
    assert!(l.opened.is_empty());
    // Scrolling on keeps what was read: the period still counts from then.
    let mut t = s.clone();
    let step = press_after(&mut t, ms(100), key(KeyCode::Up), &mut l, false);
    assert_eq!(step, NOTHING);
    let _ = render(&t, 80, 24);
    let step = press_after(
        &mut t,
        CONSENT_GUARD - ms(100),
        key(KeyCode::Char('o')),
        &mut l,
        false,
    );
    assert_eq!(step.action, Some(Action::Accept));
    let step = press_after(
        &mut s,
        CONSENT_GUARD,
        key(KeyCode::Char('o')),
        &mut l,
        false,
    );
    assert_eq!(step.action, Some(Action::Accept));
    assert_eq!(l.opened.len(), 2);
}

#[test]
fn odd_sizes_do_not_panic() {
    let long = format!("https://例え.example/{}", "x".repeat(3000));
    for u in [SPOOF, "javascript:x", long.as_str(), ""] {
        for (w, h) in [(1u16, 1u16), (2, 2), (5, 3), (10, 4), (13, 5), (200, 60)] {
            let mut s = state(u, "m\u{202e}");
            let _ = render(&s, w, h);
            press(&mut s, key(KeyCode::End));
            press(&mut s, key(KeyCode::PageUp));
            let _ = render(&s, w, h);
            s.launch_failed("x");
            let _ = render(&s, w, h);
        }
    }
}

// ---- attacks on consent: the person always sees what will be opened ----

/// A message that draws its own URL block, then blank lines to push the
/// real one away.
fn spoof_message() -> String {
    format!(
        "Sign in to continue.\n\nURL\n  https://auth.example.com/login\nHost:    auth.example.com\nScheme:  https\n{}",
        "\n".repeat(40)
    )
}

const EVIL: &str = "https://auth.example.com.evil.test/login?session=1";

/// The first row that starts with `prefix`.
fn row(lines: &[String], prefix: &str) -> usize {
    lines
        .iter()
        .position(|l| l.starts_with(prefix))
        .unwrap_or_else(|| panic!("no row starts with {prefix:?}: {lines:#?}"))
}

#[test]
fn a_message_cannot_imitate_or_push_away_the_url() {
    let mut s = state(EVIL, &spoof_message());
    let t = render(&s, 80, 24);
    let lines = text(&t);
    // The pinned block names the real host, right under the title, before
    // any server text.
    assert_eq!(row(&lines, "Host:"), 1);
    assert_eq!(lines[1].trim_end(), "Host:    auth.example.com.evil.test");
    assert_eq!(lines[2].trim_end(), "Scheme:  https");
    // The real URL comes before the server's words, which are framed.
    let url_row = row(&lines, "  https://auth.example.com.evil.test/login");
    let framed = row(&lines, "┌ The server's message");
    assert!(url_row < framed, "{lines:#?}");
    assert!(lines
        .iter()
        .any(|l| l.starts_with("│ Sign in to continue.")));
    // Nothing outside the frame claims another host.
    for l in &lines {
        if l.contains("auth.example.com") && !l.contains("evil.test") {
            assert!(l.starts_with("│ "), "unframed spoof line {l:?}");
        }
    }
    insta::assert_snapshot!(t.backend());
    // Scrolled to the bottom, the pinned host is still there.
    press(&mut s, key(KeyCode::End));
    let lines = text(&render(&s, 80, 24));
    assert_eq!(lines[1].trim_end(), "Host:    auth.example.com.evil.test");
}

/// A 7,875-character URL whose userinfo imitates Google: the real host is
/// pinned at the top from the first frame, and Open stays disabled until
/// every row of the URL and its warnings has been on screen.
#[test]
fn a_long_userinfo_url_shows_its_host_and_must_be_read() {
    let user = format!("accounts.google.com%2Fo%2Foauth2{}", "%2Fv2".repeat(1540));
    let mut url = format!("https://{user}@evil.test/cb?x=");
    url.push_str(&"y".repeat(7875 - url.len()));
    assert_eq!(url.chars().count(), 7875);
    let mut s = state(&url, "Sign in with Google.");
    let t = render(&s, 80, 24);
    let lines = text(&t);
    assert_eq!(lines[1].trim_end(), "Host:    evil.test");
    assert!(lines[3].starts_with("Check:   2 warnings"), "{lines:#?}");
    assert!(lines
        .iter()
        .any(|l| l.contains("scroll to read the whole URL")));
    insta::assert_snapshot!(t.backend());
    assert!(!s.open_enabled());
    let mut l = Rec::default();
    let step = press_with(&mut s, key(KeyCode::Char('o')), &mut l);
    assert_eq!(step.not_taken, Some(NotTaken::NotShown));
    // Focus on Open and Enter: still nothing.
    press(&mut s, key(KeyCode::BackTab));
    assert_eq!(s.focus(), UrlButton::Open);
    let step = press_with(&mut s, key(KeyCode::Enter), &mut l);
    assert_eq!(step.not_taken, Some(NotTaken::NotShown));
    assert!(l.opened.is_empty());
    // Page through to the end: now Open works.
    for _ in 0..400 {
        if s.open_enabled() {
            break;
        }
        press(&mut s, key(KeyCode::PageDown));
        let lines = text(&render(&s, 80, 24));
        assert_eq!(lines[1].trim_end(), "Host:    evil.test");
    }
    assert!(s.open_enabled());
    assert!(!text(&render(&s, 80, 24))
        .iter()
        .any(|l| l.contains("scroll to read")));
    let step = press_with(&mut s, key(KeyCode::Enter), &mut l);
    assert_eq!(step.action, Some(Action::Accept));
    assert_eq!(l.opened.len(), 1);
}

/// Too small for the pinned block and the URL: a message, and nothing can
/// be opened.
#[test]
fn too_small_for_the_pinned_block_takes_no_consent() {
    let mut s = state(EVIL, &spoof_message());
    let t = render(&s, 40, 8);
    assert!(!s.shown_whole());
    let lines = text(&t).join("\n");
    assert!(lines.contains("Terminal too small (40x8)"), "{lines}");
    insta::assert_snapshot!(t.backend());
    let step = press_with(&mut s, key(KeyCode::Char('o')), &mut Rec::default());
    assert_eq!(step.not_taken, Some(NotTaken::NotShown));
    assert!(!s.open_enabled());
    // At 40x12 it fits: the host is pinned and the URL is read whole.
    let lines = text(&render(&s, 40, 12));
    assert!(s.shown_whole());
    assert_eq!(lines[1].trim_end(), "Host:    auth.example.com.evil.test");
    // Too small again, then back, long after it was read: the URL has
    // been shown whole only since it came back.
    let mut l = Rec::default();
    let later = CONSENT_GUARD * 10;
    assert_eq!(
        press_after(&mut s, later, key(KeyCode::Down), &mut l, false),
        NOTHING
    );
    let _ = render(&s, 40, 8);
    assert!(!s.shown_whole());
    let _ = render(&s, 40, 12);
    assert!(s.open_enabled(), "what was read stays read");
    let step = press_after(
        &mut s,
        Duration::ZERO,
        key(KeyCode::Char('o')),
        &mut l,
        false,
    );
    assert_eq!(step.not_taken, Some(NotTaken::TooSoon));
    let step = press_after(
        &mut s,
        CONSENT_GUARD,
        key(KeyCode::Char('o')),
        &mut l,
        false,
    );
    assert_eq!(step.action, Some(Action::Accept));
    assert_eq!(l.opened.len(), 1);
}

/// A new width wraps the URL again: what was read must be read again.
#[test]
fn a_new_width_must_be_read_again() {
    let url = format!("https://a.example/cb?data={}", "0123456789".repeat(210));
    let mut s = state(&url, "m");
    for _ in 0..100 {
        let _ = render(&s, 80, 24);
        press(&mut s, key(KeyCode::PageDown));
    }
    assert!(s.open_enabled());
    let _ = render(&s, 100, 30);
    assert!(!s.open_enabled());
}

/// At 40x10 the pinned host is on screen from the first frame and the URL
/// must be scrolled through before Open works.
#[test]
fn at_40x10_the_host_is_pinned_and_open_waits_for_reading() {
    let mut s = state(EVIL, &spoof_message());
    let t = render(&s, 40, 10);
    assert!(s.shown_whole());
    let lines = text(&t);
    assert_eq!(lines[1].trim_end(), "Host:    auth.example.com.evil.test");
    insta::assert_snapshot!(t.backend());
    let step = press_with(&mut s, key(KeyCode::Char('o')), &mut Rec::default());
    assert_eq!(step.not_taken, Some(NotTaken::NotShown));
    for _ in 0..40 {
        if s.open_enabled() {
            break;
        }
        press(&mut s, key(KeyCode::Down));
        let _ = render(&s, 40, 10);
    }
    assert!(s.open_enabled());
    assert_eq!(press(&mut s, key(KeyCode::Char('o'))), Some(Action::Accept));
}

/// Too small, then big: only the big frame shows the request whole.
#[test]
fn a_resize_from_too_small_shows_the_request_whole_only_when_it_fits() {
    let s = state("https://auth.example.com/r", "m");
    let _ = render(&s, 30, 8);
    assert!(!s.shown_whole());
    let lines = text(&render(&s, 100, 30));
    assert!(s.shown_whole());
    assert_eq!(lines[1].trim_end(), "Host:    auth.example.com");
}

/// With `--timeout` the title shows the seconds left, as the form's header
/// does; when the title and the progress leave no room, the countdown is
/// kept and the progress left out.
#[test]
fn consent_shows_the_timeout_countdown() {
    let mut s = state(SPOOF, "Sign in to connect your calendar.");
    s.set_seconds_left(Some(42));
    let t = render(&s, 80, 24);
    assert_eq!(
        text(&t)[0].trim_end(),
        "Open a web page? · request 1 of 2 · 42s left"
    );
    insta::assert_snapshot!(t.backend());
    let narrow = text(&render(&s, 40, 12));
    assert_eq!(narrow[0].trim_end(), "Open a web page? · 42s left");
    // The countdown takes no row: the pinned host stays right under it.
    assert_eq!(narrow[1].trim_end(), "Host:    login.evil.test");
    s.set_seconds_left(None);
    assert_eq!(
        text(&render(&s, 80, 24))[0].trim_end(),
        "Open a web page? · request 1 of 2"
    );
}

/// The view draws with the theme it is given (no palette of its own): the
/// focused button in the theme's `button_focus` style, the title in its
/// `title` style, underlined.
#[test]
fn the_view_draws_with_the_theme() {
    use ahp_elicit::tui::theme::Role;
    use ratatui::style::Color;
    let s = state("https://a.example/", "m");
    let theme = crate::support::theme();
    let mut t = Terminal::new(TestBackend::new(80, 24)).unwrap();
    t.draw(|f| draw(f, f.area(), &s, &theme)).unwrap();
    let lines = text(&t);
    let y = row_of(&lines, "[ Open in browser ] [>Decline<]");
    let x = lines[y].find("[>Decline<]").expect("focused button") as u16;
    let buf = t.backend().buffer();
    let focus = theme.style(Role::ButtonFocus);
    assert_eq!(focus.bg, Some(Color::Yellow));
    assert_eq!(buf[(x, y as u16)].bg, Color::Yellow);
    assert_eq!(buf[(x, y as u16)].fg, focus.fg.expect("fg"));
    let title = theme.style(Role::Title);
    assert_eq!(buf[(0, 0)].fg, title.fg.expect("title fg"));
    assert!(buf[(0, 0)].modifier.contains(Modifier::UNDERLINED));
}

fn row_of(lines: &[String], prefix: &str) -> usize {
    lines
        .iter()
        .position(|l| l.starts_with(prefix))
        .unwrap_or_else(|| panic!("no row starts with {prefix:?}: {lines:#?}"))
}

/// The row that says why Open is disabled.
fn hint(lines: &[String]) -> String {
    lines
        .iter()
        .find(|l| l.contains("read the whole URL"))
        .map(|l| l.trim_end().to_owned())
        .unwrap_or_default()
}

/// When the rows still to read are above the window, the hint says to
/// scroll up, not down.
#[test]
fn the_disabled_open_hint_points_to_the_unread_rows() {
    let url = format!("https://a.example/cb?data={}", "0123456789".repeat(60));
    // At 60x16: the first frame shows the top, End jumps past the middle.
    let mut s = state(&url, "m");
    let top = hint(&text(&render(&s, 60, 16)));
    assert!(top.contains("(↓ PgDn)"), "{top:?}");
    press(&mut s, key(KeyCode::End));
    let after_end = hint(&text(&render(&s, 60, 16)));
    assert!(!s.open_enabled());
    assert!(
        after_end.contains("scroll up") && after_end.contains("(↑ PgUp)"),
        "{after_end:?}"
    );
    // At 40x12 after ten PgDn, a resize to 100x45 wraps again from the
    // window's place: the unread start of the URL is above.
    let url = format!("https://a.example/cb?data={}", "0123456789".repeat(500));
    let mut s = state(&url, "m");
    let _ = render(&s, 40, 12);
    for _ in 0..10 {
        press(&mut s, key(KeyCode::PageDown));
        let _ = render(&s, 40, 12);
    }
    let big = text(&render(&s, 100, 45));
    assert!(!s.open_enabled());
    let h = hint(&big);
    assert!(h.contains("(↑ PgUp)"), "{h:?}");
}

/// A launch command or call too long for its line is cut with "…" beside
/// its label, so the person sees that more was there.
#[test]
fn a_long_launch_line_is_cut_with_an_ellipsis() {
    let mut s = state("https://auth.example.com/cb", "Sign in.");
    s.set_origin(
        Some(format!(
            "npx -y weather-server {}--verbose",
            "--flag ".repeat(20)
        )),
        Some(format!(
            "tools/call forecast {{\"city\":\"{}\"}}",
            "x".repeat(80)
        )),
    );
    let lines = text(&render(&s, 50, 30));
    for label in ["Launched: ", "Asked in: "] {
        let row = lines
            .iter()
            .find(|l| l.starts_with(label))
            .unwrap_or_else(|| panic!("{label}: {}", lines.join("\n")));
        assert!(row.ends_with('…'), "{row:?}");
        let next = &lines[lines.iter().position(|l| l == row).unwrap() + 1];
        assert!(!next.starts_with("          "), "cut to one line: {next:?}");
    }
}
