//! The request screens through the [`Screen`] trait, as the loop runs
//! them, and the loop's own rules.

use std::sync::{Arc, Mutex};
use std::time::Instant;

use ratatui::backend::TestBackend;
use ratatui::Terminal;

use super::form::FormScreen;
use super::refusable::RefusableScreen;
use super::url_view::screen::UrlScreen;
use super::url_view::UrlViewState;
use super::*;
use crate::binding::{Mode, RequestBody, RequestView};
use crate::launcher::Launcher;
use crate::responder::Withdrawal;

fn header() -> Header {
    Header {
        server_name: "srv".into(),
        server_title: None,
        server_version: None,
        adapter: "mcp-stdio".into(),
        mode: Mode::Url,
        progress: Progress::of(1, 1),
        seconds_left: None,
        extend_secs: None,
        launched: None,
        call: None,
        banner: None,
        arguments_for: None,
    }
}

/// The action a step decides, or None while the screen stays.
fn decided(step: Step) -> Option<Action> {
    match step {
        Step::Done(Outcome::Answer(a)) => Some(a.action),
        Step::Done(Outcome::Quit) => panic!("a screen never quits"),
        Step::Continue => None,
    }
}

/// Draw `screen` once at 80x24 with `secs` left; returns the top row and
/// whether the screen said it showed the request whole.
fn frame(screen: &mut dyn Screen, secs: Option<u64>) -> (String, bool) {
    let clock = secs.map(|left| Clock { left, extend: 30 });
    let mut t = Terminal::new(TestBackend::new(80, 24)).expect("terminal");
    let theme = Theme::monochrome();
    let mut whole = false;
    t.draw(|f| whole = screen.draw(f, &theme, clock))
        .expect("draw");
    let buf = t.backend().buffer();
    let top: String = (0..80).map(|x| buf[(x, 0)].symbol().to_owned()).collect();
    (top.trim_end().to_owned(), whole)
}

/// A URL consent screen for `url` whose view reads the time from a test
/// clock standing at `t0` (moved on with [`at`]).
fn url_screen(url: &str, launcher: Rec, no_open: bool, t0: Instant) -> UrlScreen {
    let mut state = UrlViewState::new(crate::url_review::review(url), "m", "srv", "a", "");
    state.set_clock(Some(t0));
    UrlScreen::new(state, Box::new(launcher), no_open)
}

/// Move `screen`'s clock to `now`.
fn at(screen: &mut UrlScreen, now: Instant) {
    screen.state.set_clock(Some(now));
}

#[test]
fn the_stage_changes_with_what_enter_does() {
    let v = serde_json::json!({
        "type": "object", "properties": {"note": {"type": "string", "default": "x"}}
    });
    let schema =
        crate::binding::form_schema::parse_form_schema(&v, "/requestedSchema").expect("schema");
    let mut f = FormScreen::new(header(), &schema, "m");
    assert_eq!(f.stage(), 0);
    assert_eq!(decided(f.key(&Key::Ctrl('s'))), None);
    assert_eq!(f.stage(), 1, "the review");
    let t0 = Instant::now();
    let url = "https://auth.example.com/cb";
    let mut u = url_screen(url, Rec(Arc::default()), true, t0);
    let _ = frame(&mut u, None);
    at(&mut u, t0 + CONSENT_GUARD);
    assert_eq!(u.stage(), 0);
    assert_eq!(decided(u.key(&Key::Char('o'))), None);
    assert_eq!(u.stage(), 2, "the copy step");
}

#[test]
fn esc_throws_answers_away_only_while_the_cancel_question_is_up() {
    let v = serde_json::json!({"type": "object", "properties": {"n": {"type": "string"}}});
    let schema =
        crate::binding::form_schema::parse_form_schema(&v, "/requestedSchema").expect("schema");
    let mut f = FormScreen::new(header(), &schema, "m");
    assert!(!f.esc_discards(), "untouched");
    assert_eq!(decided(f.key(&Key::Char('a'))), None);
    assert!(!f.esc_discards(), "typed, nothing asked");
    assert_eq!(decided(f.key(&Key::Esc)), None);
    assert!(f.esc_discards(), "the cancel question");
    assert_eq!(decided(f.key(&Key::Char('q'))), None);
    assert!(!f.esc_discards(), "back to the form");
    // The decline question: Esc there asks about cancel, loses nothing.
    assert_eq!(decided(f.key(&Key::Ctrl('x'))), None);
    assert_eq!(decided(f.key(&Key::Ctrl('d'))), None);
    assert_eq!(f.form.confirming(), Some(Action::Decline));
    assert!(!f.esc_discards(), "the decline question");
}

/// A form of 40 text fields with defaults, on its review step (taller
/// than 80x24).
fn long_review() -> FormScreen {
    let mut props = serde_json::Map::new();
    for i in 0..40 {
        props.insert(
            format!("f{i:02}"),
            serde_json::json!({"type": "string", "default": "x"}),
        );
    }
    let v = serde_json::json!({"type": "object", "properties": props});
    let schema =
        crate::binding::form_schema::parse_form_schema(&v, "/requestedSchema").expect("schema");
    let mut f = FormScreen::new(header(), &schema, "m");
    assert_eq!(decided(f.key(&Key::Ctrl('s'))), None);
    f
}

/// A review taller than the screen: a send key first shows the rest
/// (nothing is sent that was not on screen), then sends.
#[test]
fn a_long_review_is_read_to_its_end_before_it_sends() {
    let mut f = long_review();
    assert_eq!(f.stage(), 1, "the review");
    let _ = frame(&mut f, None);
    let mut pages = 0;
    loop {
        match decided(f.key(&Key::Enter)) {
            Some(a) => {
                assert_eq!(a, Action::Accept);
                break;
            }
            None => {
                pages += 1;
                assert!(pages < 10, "the review ends");
                let _ = frame(&mut f, None);
            }
        }
    }
    assert!(
        pages >= 2,
        "40 lines of review take more than one page at 80x24"
    );
}

/// What the keys do changes, once each time: the question Esc asks on
/// a changed form (and again after going back), the end of a long
/// review coming on screen; plain editing and scrolling do not.
#[test]
fn a_question_or_the_review_end_changes_what_keys_do() {
    let v = serde_json::json!({
        "type": "object", "properties": {"note": {"type": "string"}}
    });
    let schema =
        crate::binding::form_schema::parse_form_schema(&v, "/requestedSchema").expect("schema");
    let mut f = FormScreen::new(header(), &schema, "m");
    let _ = frame(&mut f, None);
    assert!(!f.keys_changed(), "the first frame");
    assert_eq!(decided(f.key(&Key::Char('a'))), None);
    let _ = frame(&mut f, None);
    assert!(!f.keys_changed(), "typing");
    assert_eq!(decided(f.key(&Key::Esc)), None);
    let _ = frame(&mut f, None);
    assert!(f.keys_changed(), "the discard question");
    let _ = frame(&mut f, None);
    assert!(!f.keys_changed(), "said once");
    assert_eq!(decided(f.key(&Key::Char('q'))), None, "back");
    let _ = frame(&mut f, None);
    assert!(!f.keys_changed());
    assert_eq!(decided(f.key(&Key::Esc)), None);
    let _ = frame(&mut f, None);
    assert!(f.keys_changed(), "asked again");
    // Another question in its place (the screen's own decline-all).
    assert!(f.ask_to_confirm(Action::Decline, "Q?".into(), "keys".into()));
    let _ = frame(&mut f, None);
    assert!(f.keys_changed(), "another question");

    let mut r = long_review();
    let _ = frame(&mut r, None);
    let mut changes = 0;
    while !r.review_end_seen {
        assert!(!r.keys_changed(), "a page before the end");
        assert_eq!(decided(r.key(&Key::Enter)), None);
        let _ = frame(&mut r, None);
        changes += usize::from(r.keys_changed());
    }
    assert_eq!(changes, 1, "the end came on screen");
    assert_eq!(decided(r.key(&Key::PageUp)), None);
    let _ = frame(&mut r, None);
    assert!(!r.keys_changed(), "scrolling back up");
}

/// The URL screen: a scroll shows other rows, so `o` waits again; a
/// frame with nothing new does not.
#[test]
fn a_scroll_of_the_url_screen_changes_what_keys_do() {
    let url = format!("https://auth.example.com/cb?s={}", "s".repeat(3000));
    let state = UrlViewState::new(crate::url_review::review(&url), "m", "srv", "a", "");
    let mut s = UrlScreen::new(state, Box::new(Rec(Arc::default())), false);
    let _ = frame(&mut s, None);
    assert!(!s.keys_changed(), "the first frame");
    let _ = frame(&mut s, None);
    assert!(!s.keys_changed(), "the same rows");
    assert_eq!(decided(s.key(&Key::PageDown)), None);
    let _ = frame(&mut s, None);
    assert!(s.keys_changed(), "other rows");
    assert_eq!(decided(s.key(&Key::Tab)), None);
    let _ = frame(&mut s, None);
    assert!(!s.keys_changed(), "a focus move shows the same rows");
}

/// The last row of `screen` drawn at 80x24.
fn help_row(screen: &mut dyn Screen) -> String {
    let mut t = Terminal::new(TestBackend::new(80, 24)).expect("terminal");
    let theme = Theme::monochrome();
    t.draw(|f| {
        screen.draw(f, &theme, None);
    })
    .expect("draw");
    let buf = t.backend().buffer();
    let row: String = (0..80).map(|x| buf[(x, 23)].symbol().to_owned()).collect();
    row.trim_end().to_owned()
}

/// The help line names the keys of what has the focus: Ctrl-X clears
/// a field, so it is named on a field and not on a button.
#[test]
fn the_help_line_offers_clear_on_a_field_and_not_on_a_button() {
    let v = serde_json::json!({
        "type": "object", "properties": {"seats": {"type": "integer"}}
    });
    let schema =
        crate::binding::form_schema::parse_form_schema(&v, "/requestedSchema").expect("schema");
    let mut f = FormScreen::new(header(), &schema, "m");
    let on_field = help_row(&mut f);
    assert!(on_field.contains("^X clear"), "{on_field}");
    assert_eq!(decided(f.key(&Key::Tab)), None);
    let on_button = help_row(&mut f);
    assert!(on_button.contains("Enter press"), "{on_button}");
    assert!(!on_button.contains("clear"), "{on_button}");
}

/// The help line of a long review says what Enter does now: the next
/// page until the end was on screen, then send.
#[test]
fn a_long_review_help_says_enter_shows_the_next_page_until_the_end() {
    let mut f = long_review();
    assert_eq!(help_row(&mut f), super::form::HELP_REVIEW_MORE);
    let mut pages = 0;
    while !f.review_end_seen {
        assert_eq!(decided(f.key(&Key::Enter)), None);
        pages += 1;
        assert!(pages < 10, "the review ends");
        let _ = help_row(&mut f);
    }
    assert_eq!(help_row(&mut f), crate::form::HELP_REVIEW);
    // Scrolled back up, Enter sends now, and the help says so.
    let _ = f.key(&Key::PageUp);
    assert_eq!(help_row(&mut f), crate::form::HELP_REVIEW);
    let mut short = FormScreen::new(header(), &schema_of_one(), "m");
    assert_eq!(decided(short.key(&Key::Ctrl('s'))), None);
    assert_eq!(help_row(&mut short), crate::form::HELP_REVIEW);
}

fn schema_of_one() -> crate::binding::FormSchema {
    let v = serde_json::json!({
        "type": "object", "properties": {"note": {"type": "string", "default": "x"}}
    });
    crate::binding::form_schema::parse_form_schema(&v, "/requestedSchema").expect("schema")
}

/// `screen`'s first frame at `w`x`h`, as text rows.
fn rows_at(screen: &mut dyn Screen, w: u16, h: u16) -> Vec<String> {
    let mut t = Terminal::new(TestBackend::new(w, h)).expect("terminal");
    let theme = Theme::monochrome();
    t.draw(|f| {
        screen.draw(f, &theme, None);
    })
    .expect("draw");
    let buf = t.backend().buffer();
    (0..h)
        .map(|y| (0..w).map(|x| buf[(x, y)].symbol()).collect::<String>())
        .collect()
}

/// The first row of `screen` drawn at `w`x10 with `left` seconds left
/// and `extend` seconds on the extend key.
fn top_at(screen: &mut dyn Screen, w: u16, left: u64, extend: u64) -> String {
    let mut t = Terminal::new(TestBackend::new(w, 10)).expect("terminal");
    let theme = Theme::monochrome();
    t.draw(|f| {
        screen.draw(f, &theme, Some(Clock { left, extend }));
    })
    .expect("draw");
    let buf = t.backend().buffer();
    let top: String = (0..w).map(|x| buf[(x, 0)].symbol()).collect();
    top.trim_end().to_owned()
}

/// A long limit is shown in hours and minutes, and a narrow header
/// shortens its counts so the server's name stays before them.
#[test]
fn a_narrow_header_keeps_the_server_name_and_long_times_read_as_hours() {
    let lines = vec![("Why.".to_owned(), true)];
    let mut wide = RefusableScreen::new(header(), lines.clone());
    assert_eq!(
        top_at(&mut wide, 80, 7199, 7200),
        format!(
            "srv{}request 1 of 1 · 1h59m left · Ctrl-T +2h00m",
            " ".repeat(34)
        )
    );
    let mut h = header();
    h.server_name = "weather-server".into();
    let mut narrow = RefusableScreen::new(h.clone(), lines.clone());
    assert_eq!(
        top_at(&mut narrow, 40, 42, 60),
        format!("weather-server{}1/1 · 42s left", " ".repeat(12))
    );
    let mut narrow = RefusableScreen::new(h, lines);
    assert_eq!(
        top_at(&mut narrow, 40, 8_639_999, 8_640_000),
        format!("weather-server{}1/1 · 99d23h left", " ".repeat(9))
    );
}

/// Whether a row is the focused input box (`[` ... `]`).
fn has_input_box(rows: &[String]) -> bool {
    rows.iter()
        .any(|r| r.starts_with("    [") && r.trim_end().ends_with(']'))
}

/// The demo at 40x10: the first frame (and the first after a resize to
/// 40x10) shows the focused input box, not only its label.
#[test]
fn the_first_frame_at_40x10_shows_the_focused_input() {
    let req = crate::demo::demo_request().expect("demo");
    let RequestView::Body(r) = &req.view else {
        panic!("a body")
    };
    let RequestBody::Form(schema) = &r.body else {
        panic!("a form")
    };
    let mut f = FormScreen::new(header(), schema, &r.message);
    let rows = rows_at(&mut f, 40, 10);
    assert!(has_input_box(&rows), "{}", rows.join("\n"));
    let mut g = FormScreen::new(header(), schema, &r.message);
    let big = rows_at(&mut g, 100, 40);
    let first_words: String = r
        .message
        .split_whitespace()
        .take(3)
        .collect::<Vec<_>>()
        .join(" ");
    assert!(
        big.iter().any(|l| l.contains(&first_words)),
        "{}",
        big.join("\n")
    );
    let small = rows_at(&mut g, 40, 10);
    assert!(
        has_input_box(&small),
        "after a resize:\n{}",
        small.join("\n")
    );
}

/// A 3,000-character description above the focused input: the first
/// frame at 100x30 cuts the description rather than the input.
#[test]
fn a_long_description_does_not_push_the_input_off_the_first_frame() {
    let desc = "word ".repeat(600);
    let v = serde_json::json!({"type": "object", "properties": {
        "name": {"type": "string", "title": "Name", "description": desc}}});
    let schema =
        crate::binding::form_schema::parse_form_schema(&v, "/requestedSchema").expect("schema");
    let mut f = FormScreen::new(header(), &schema, "Who are you?");
    let rows = rows_at(&mut f, 100, 30);
    assert!(has_input_box(&rows), "{}", rows.join("\n"));
    assert!(
        rows.iter().any(|r| r.contains("more above")),
        "{}",
        rows.join("\n")
    );
}

#[test]
fn the_withdrawal_notice_shows_the_server_reason_sanitised() {
    let mut t = Terminal::new(TestBackend::new(80, 12)).expect("terminal");
    let reason = "user closed\u{1b}[2J the tab";
    t.draw(|f| super::notice::draw_withdrawn_because(f, &Theme::monochrome(), Some(reason)))
        .expect("draw");
    let buf = t.backend().buffer();
    let rows: Vec<String> = (0..12)
        .map(|y| (0..80).map(|x| buf[(x, y)].symbol()).collect::<String>())
        .collect();
    let text = rows.join("\n");
    assert!(text.contains(super::notice::WITHDRAWN_NOTICE), "{text}");
    assert!(
        text.contains("The server's reason (its words): user closed\\u{1b}[2J the tab"),
        "{text}"
    );
    let mut t = Terminal::new(TestBackend::new(80, 12)).expect("terminal");
    t.draw(|f| super::notice::draw_withdrawn_because(f, &Theme::monochrome(), None))
        .expect("draw");
    assert!(!format!("{}", t.backend()).contains("reason"));
}

#[test]
fn the_withdrawal_notice_wraps_at_40_columns() {
    let mut t = Terminal::new(TestBackend::new(40, 12)).expect("terminal");
    t.draw(|f| super::notice::draw_withdrawn(f, &Theme::monochrome()))
        .expect("draw");
    let buf = t.backend().buffer();
    let text: String = (0..12)
        .flat_map(|y| (0..40).map(move |x| (x, y)))
        .map(|p| buf[p].symbol().to_owned())
        .collect();
    let squashed: String = text.split_whitespace().collect();
    assert!(
        squashed.contains("Theserverwithdrewthisrequest.Nothingwassent."),
        "{text}"
    );
    assert!(squashed.contains("Pressanykeytocontinue."), "{text}");
}

#[test]
fn refusable_screen_declines_or_cancels_only() {
    let lines = vec![("Why.".to_owned(), true)];
    let mut s = RefusableScreen::new(header(), lines.clone());
    assert_eq!(decided(s.key(&Key::Enter)), Some(Action::Decline));
    assert_eq!(decided(s.key(&Key::Tab)), None);
    assert_eq!(decided(s.key(&Key::Char(' '))), Some(Action::Cancel));
    let mut s = RefusableScreen::new(header(), lines);
    assert_eq!(decided(s.key(&Key::Char('a'))), None);
    assert_eq!(decided(s.key(&Key::Down)), None);
    assert_eq!(decided(s.key(&Key::Ctrl('d'))), Some(Action::Decline));
    assert_eq!(decided(s.key(&Key::Esc)), Some(Action::Cancel));
    let (top, whole) = frame(&mut s, Some(7));
    assert!(whole);
    assert!(
        top.ends_with("request 1 of 1 · 7s left · Ctrl-T +30s"),
        "{top:?}"
    );
}

/// Records each URL it is asked to open.
struct Rec(Arc<Mutex<Vec<String>>>);
impl Launcher for Rec {
    fn open(&mut self, url: &str) -> Result<(), crate::launcher::LaunchError> {
        self.0.lock().unwrap().push(url.to_owned());
        Ok(())
    }
}

#[test]
fn url_screen_opens_only_after_a_frame_showed_the_url() {
    let t0 = Instant::now();
    let opened = Arc::new(Mutex::new(Vec::new()));
    let url = "https://auth.example.com/cb";
    let mut s = url_screen(url, Rec(opened.clone()), false, t0);
    assert_eq!(s.grace(), CONSENT_GUARD);
    // Before any frame the URL was not read: `o` opens nothing, however
    // long the screen waited.
    at(&mut s, t0 + CONSENT_GUARD * 10);
    assert_eq!(decided(s.key(&Key::Char('o'))), None);
    at(&mut s, t0);
    let (top, whole) = frame(&mut s, Some(42));
    assert!(whole);
    assert_eq!(top, "Open a web page? · 42s left · Ctrl-T +30s");
    // Within the grace period of that frame the machine takes no
    // consent, whatever the key guard let through.
    at(&mut s, t0 + CONSENT_GUARD - Duration::from_millis(1));
    assert_eq!(decided(s.key(&Key::Char('o'))), None);
    assert!(opened.lock().unwrap().is_empty());
    at(&mut s, t0 + CONSENT_GUARD);
    // The translated key type reaches the view: Alt-Space presses the
    // focused button (Decline), as Space does.
    let mut d = UrlScreen::new(
        UrlViewState::new(crate::url_review::review(url), "m", "srv", "a", ""),
        Box::new(Rec(opened.clone())),
        false,
    );
    assert_eq!(decided(d.key(&Key::Alt(' '))), Some(Action::Decline));
    assert_eq!(decided(s.key(&Key::Char('o'))), Some(Action::Accept));
    assert_eq!(*opened.lock().unwrap(), vec![url.to_owned()]);
}

/// A frame too small for any screen (the front end's own message)
/// hides the URL: consent waits a grace period from the frame that
/// shows it whole again, however long ago it was first read.
#[test]
fn url_screen_counts_again_after_a_too_small_frame() {
    let t0 = Instant::now();
    let opened = Arc::new(Mutex::new(Vec::new()));
    let url = "https://auth.example.com/cb";
    let mut s = url_screen(url, Rec(opened.clone()), false, t0);
    assert!(frame(&mut s, None).1);
    let back = t0 + CONSENT_GUARD * 10;
    at(&mut s, back);
    let small = rows_at(
        &mut s,
        super::chrome::MIN_WIDTH - 1,
        super::chrome::MIN_HEIGHT,
    );
    assert!(small.join("").contains("small"), "{small:?}");
    assert!(frame(&mut s, None).1);
    assert_eq!(decided(s.key(&Key::Char('o'))), None);
    at(&mut s, back + CONSENT_GUARD);
    assert_eq!(decided(s.key(&Key::Char('o'))), Some(Action::Accept));
    assert_eq!(*opened.lock().unwrap(), vec![url.to_owned()]);
}

/// Every row of `screen` drawn at 80x24, joined by line ends.
fn rows(screen: &mut dyn Screen) -> String {
    let mut t = Terminal::new(TestBackend::new(80, 24)).expect("terminal");
    let theme = Theme::monochrome();
    t.draw(|f| {
        screen.draw(f, &theme, None);
    })
    .expect("draw");
    let buf = t.backend().buffer();
    (0..24)
        .map(|y| (0..80).map(|x| buf[(x, y)].symbol()).collect::<String>())
        .collect::<Vec<_>>()
        .join("\n")
}

/// The browser is started only for a request whose answer the screen
/// could claim: `o` read after a withdrawal opens nothing (the step ends
/// the screen, and the loop says the withdrawal); `o` on an open request
/// claims it first, so a withdrawal after the launch cannot leave an
/// opened page without its `accept`.
#[test]
fn url_screen_claims_the_answer_before_it_opens_the_browser() {
    let url = "https://auth.example.com/cb";
    let t0 = Instant::now();
    // Shown whole at `t0`, read for the grace period.
    let screen = |opened: &Arc<Mutex<Vec<String>>>, w: &Withdrawal| {
        let mut s = url_screen(url, Rec(opened.clone()), false, t0).with_claim(Some(w.clone()));
        let _ = frame(&mut s, None);
        at(&mut s, t0 + CONSENT_GUARD);
        s
    };
    let opened = Arc::new(Mutex::new(Vec::new()));
    let w = Withdrawal::new();
    let mut s = screen(&opened, &w);
    assert!(w.withdraw());
    assert_eq!(decided(s.key(&Key::Char('o'))), Some(Action::Cancel));
    assert!(
        opened.lock().unwrap().is_empty(),
        "nothing opened: {opened:?}"
    );
    let w = Withdrawal::new();
    let mut s = screen(&opened, &w);
    assert_eq!(decided(s.key(&Key::Char('o'))), Some(Action::Accept));
    assert_eq!(*opened.lock().unwrap(), vec![url.to_owned()]);
    assert!(!w.withdraw(), "the answer was claimed before the launch");
}

/// The call that asked has finished: the URL screen says so in its
/// pinned block, as the form says it in its header.
#[test]
fn url_screen_shows_that_the_call_finished() {
    let url = "https://auth.example.com/cb";
    let state = UrlViewState::new(crate::url_review::review(url), "m", "srv", "a", "");
    let mut s = UrlScreen::new(state, Box::new(Rec(Arc::default())), false);
    assert!(!squash(&rows(&mut s)).contains("mayno"));
    s.put_banner(crate::responder::CALL_FINISHED_BANNER.to_owned());
    let shown = squash(&rows(&mut s));
    assert!(
        shown.contains(&squash(crate::responder::CALL_FINISHED_BANNER)),
        "{shown}"
    );
}

/// `text` without whitespace (rows wrap).
fn squash(text: &str) -> String {
    text.chars().filter(|c| !c.is_whitespace()).collect()
}

/// A Ctrl-N block is kept by the launch: a server that re-initializes
/// under a new name is still blocked; another launch under the same
/// name is not. Without a launch, the name tells servers apart.
#[test]
fn a_block_is_kept_by_the_launch_not_the_name() {
    let blocked = ("npx srv".to_owned(), "srv".to_owned());
    assert!(same_server(&blocked, &("npx srv".into(), "renamed".into())));
    assert!(!same_server(&blocked, &("npx other".into(), "srv".into())));
    let unlaunched = (String::new(), "srv".to_owned());
    assert!(same_server(&unlaunched, &(String::new(), "srv".into())));
    assert!(!same_server(&unlaunched, &(String::new(), "other".into())));
}

#[test]
fn a_long_launch_command_is_cut_with_an_ellipsis_in_the_ctrl_n_report() {
    let long = format!("npx -y {}", "x".repeat(80));
    let label = blocked_label(&long, "srv");
    assert!(label.starts_with("srv (npx -y xxx"), "{label}");
    assert!(label.ends_with("x…)"), "{label}");
    assert_eq!(text::width(&label), "srv ()".len() + BLOCKED_LAUNCH_COLS);
    // Short: whole; none: the name alone; hostile text sanitized.
    assert_eq!(blocked_label("npx srv", "srv"), "srv (npx srv)");
    assert_eq!(blocked_label("", "srv"), "srv");
    assert_eq!(blocked_label("a\u{1b}[2J", "s"), "s (a\\u{1b}[2J)");
}
