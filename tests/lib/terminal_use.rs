//! Drawing checks with ratatui's `TestBackend` for real terminal use: the
//! exact cursor cell in a scrolled text field holding wide and combining
//! characters, type-to-filter over the titles a person sees, and small
//! screens (the focused input in the first frame, "more below" only when
//! something is below).

use ahp_elicit::binding::{form_schema::parse_form_schema, FormSchema};
use ahp_elicit::form::{Form, Key};
use ahp_elicit::responder::Progress;
use ahp_elicit::tui::view::{self, Header};
use ahp_elicit::tui::Theme;
use ratatui::backend::TestBackend;
use ratatui::layout::Position;
use ratatui::Terminal;
use serde_json::{json, Value};

use crate::support::form_header;

fn header() -> Header {
    form_header("demo-server")
}

fn schema(props: Value) -> FormSchema {
    parse_form_schema(
        &json!({"type": "object", "properties": props}),
        "/requestedSchema",
    )
    .expect("valid schema")
}

/// Draw `form` at `w`x`h`; returns the terminal (screen and cursor).
fn draw(form: &Form, w: u16, h: u16) -> Terminal<TestBackend> {
    let theme = crate::support::theme();
    let mut t = Terminal::new(TestBackend::new(w, h)).expect("terminal");
    let mut scroll = 0;
    t.draw(|f| view::draw_form(f, &theme, &header(), form, &mut scroll))
        .expect("draw");
    t
}

fn cursor(t: &mut Terminal<TestBackend>) -> Position {
    t.get_cursor_position().expect("cursor")
}

/// The symbol in one cell.
fn cell(t: &Terminal<TestBackend>, x: u16, y: u16) -> String {
    t.backend().buffer()[(x, y)].symbol().to_owned()
}

fn type_text(form: &mut Form, s: &str) {
    for c in s.chars() {
        form.handle_key(&Key::Char(c));
    }
}

fn text_form() -> Form {
    Form::new(
        &schema(json!({"note": {"type": "string", "title": "Note"}})),
        "",
    )
}

/// 34 × 東 then 京 in a 60-cell box at 80 columns: the box starts at column
/// 5; the cursor is one cell right of the last glyph, and after Left it is
/// on 京 itself (its left half), not on its right half.
#[test]
fn cursor_exact_after_wide_characters_in_a_scrolled_field() {
    let mut form = text_form();
    type_text(&mut form, &"東".repeat(34));
    type_text(&mut form, "京");
    let mut t = draw(&form, 80, 24);
    let at = cursor(&mut t);
    assert_eq!(
        cell(&t, at.x - 2, at.y),
        "京",
        "the glyph just left of the cursor"
    );
    assert_eq!(at.x, 63, "one cell right of the last glyph");
    assert_eq!(
        cell(&t, 64, at.y),
        " ",
        "nothing drawn after the last glyph"
    );
    form.handle_key(&Key::Left);
    let mut t = draw(&form, 80, 24);
    let at = cursor(&mut t);
    assert_eq!(cell(&t, at.x, at.y), "京", "on the glyph after Left");
    // On the glyph's first cell: the previous glyph starts two cells left.
    assert_eq!(cell(&t, at.x - 2, at.y), "東");
}

/// Unscrolled wide text: the cursor follows the display width.
#[test]
fn cursor_after_wide_text_that_fits() {
    let mut form = text_form();
    type_text(&mut form, "a東京");
    let mut t = draw(&form, 80, 24);
    let at = cursor(&mut t);
    assert_eq!(at.x, 5 + 5);
    assert_eq!(cell(&t, 5 + 3, at.y), "京");
}

/// Combining marks take no cell: after "e\u{301}" ×70 (scrolled) the cursor
/// is right after the last "é" and the box shows whole letters.
#[test]
fn cursor_exact_after_combining_text_in_a_scrolled_field() {
    let mut form = text_form();
    type_text(&mut form, &"e\u{301}".repeat(70));
    let mut t = draw(&form, 80, 24);
    let at = cursor(&mut t);
    assert_eq!(at.x, 5 + 59, "the last cell of the 60-cell box");
    assert_eq!(cell(&t, at.x - 1, at.y), "e\u{301}");
    form.handle_key(&Key::Home);
    let mut t = draw(&form, 80, 24);
    assert_eq!(cursor(&mut t).x, 5);
}

fn screen_text(t: &Terminal<TestBackend>) -> String {
    let b = t.backend().buffer();
    let mut out = String::new();
    for y in 0..b.area.height {
        for x in 0..b.area.width {
            out.push_str(b[(x, y)].symbol());
        }
        out.push('\n');
    }
    out
}

fn every_kind() -> (ahp_elicit::binding::RequestEvent, FormSchema, String) {
    let req = ahp_elicit::demo::demo_request().expect("demo request");
    let r = req.view.request().expect("body").clone();
    let ahp_elicit::binding::RequestBody::Form(s) = r.body else {
        panic!("form expected")
    };
    (req, s, r.message)
}

/// At 40x12 the first frame (drawn from the top, so the message shows)
/// also shows the focused field's input box: the header takes 2 rows.
#[test]
fn first_frame_at_40x12_shows_the_focused_input() {
    let (req, s, msg) = every_kind();
    let form = Form::new(&s, &msg);
    let h = Header::of(&req, Progress::of(1, 1));
    let theme = crate::support::theme();
    let mut t = Terminal::new(TestBackend::new(40, 12)).expect("terminal");
    let mut scroll = 0;
    t.draw(|f| {
        view::draw_form_view(f, &theme, &h, &form, &mut scroll, false);
    })
    .expect("draw");
    let text = screen_text(&t);
    let rows: Vec<&str> = text.lines().collect();
    assert!(rows[1].starts_with("────"), "a 2-row header:\n{text}");
    assert!(text.contains("Tell us about yourself"), "{text}");
    assert!(text.contains("› Full name"), "{text}");
    let input_row = rows
        .iter()
        .position(|r| r.starts_with("    [") && r.trim_end().ends_with(']'))
        .unwrap_or_else(|| panic!("the input box is on the first frame:\n{text}"));
    assert_eq!(cursor(&mut t), Position::new(5, input_row as u16));
}

/// "▼ more below" shows only when something is below: not when the last
/// field is whole on screen (only its trailing blank line is hidden), and
/// yes when a field is hidden below.
#[test]
fn more_below_only_when_there_is_content_below() {
    let one = Form::new(
        &schema(json!({"ok": {"type": "boolean", "title": "Understood"}})),
        "Short.",
    );
    let t = draw(&one, 60, 10);
    let text = screen_text(&t);
    assert!(text.contains("Understood"), "{text}");
    assert!(!text.contains("more below"), "{text}");
    let many = Form::new(
        &schema(json!({
            "a": {"type": "string", "title": "First", "description": "one"},
            "b": {"type": "string", "title": "Second", "description": "two"},
            "c": {"type": "string", "title": "Third", "description": "three"}
        })),
        "Three fields.",
    );
    let t = draw(&many, 60, 10);
    let text = screen_text(&t);
    assert!(!text.contains("Third"), "{text}");
    assert!(text.contains("▼ more below"), "{text}");
}

/// With `--no-open` the consent screen says what consent does: no "Open in
/// browser" button and no "o open" hint; the copy screen after consent says
/// that Done sends the consent and Give up sends cancel (it never claims a
/// consent that may not be sent).
#[test]
fn no_open_consent_screen_says_what_consent_does() {
    use ahp_elicit::tui::url_view::{draw, UrlViewState};
    let mut s = UrlViewState::new(
        ahp_elicit::url_review::review("https://auth.example.com/cb"),
        "Sign in.",
        "srv",
        "mcp-stdio",
        "request 1 of 1",
    );
    s.set_no_open(true);
    let render = |s: &UrlViewState| {
        let mut t = Terminal::new(TestBackend::new(100, 30)).expect("terminal");
        t.draw(|f| draw(f, f.area(), s, &ahp_elicit::tui::Theme::monochrome()))
            .expect("draw");
        screen_text(&t)
    };
    let consent = render(&s);
    assert!(!consent.contains("Open in browser"), "{consent}");
    assert!(!consent.contains("o open"), "{consent}");
    assert!(consent.contains("[ Consent, show URL ]"), "{consent}");
    assert!(consent.contains("o consent"), "{consent}");
    s.show_for_copy();
    let copy = render(&s);
    assert!(!copy.contains("Consent recorded"), "{copy}");
    assert!(copy.contains("Done sends your consent (accept)"), "{copy}");
}

/// Who is asking: the header names the server as the person launched it
/// beside the name it gives itself, and the call that asked (from the
/// event's `extensions.mcp.call`, or the front door's fuller line), each
/// sanitized and cut to one line.
#[test]
fn the_header_names_the_launch_and_the_call() {
    let line = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/vectors/elicitation-2026-07-28.jsonl"),
    )
    .expect("vectors")
    .lines()
    .find(|l| l.contains("\"r26-ext-call\""))
    .expect("vector")
    .to_owned();
    let v: Value = serde_json::from_str(&line).expect("json");
    let req = ahp_elicit::binding::read_request(
        v["request"].clone(),
        ahp_elicit::binding::ReadOptions::default(),
    )
    .expect("valid");
    let h = Header::of(&req, Progress::of(1, 1));
    assert_eq!(h.call.as_deref(), Some("tools/call book"));
    let h = h.with_origin(Some(ahp_elicit::responder::Origin {
        launched: Some("npx -y bookings-server\u{1b}[2J".into()),
        call: Some(format!(
            "tools/call book {{\"note\":\"{}\"}}",
            "x".repeat(200)
        )),
    }));
    let schema = schema(json!({"name": {"type": "string"}}));
    let form = Form::new(&schema, "Book a table");
    let theme = Theme::monochrome();
    let mut t = Terminal::new(TestBackend::new(60, 24)).expect("terminal");
    let mut scroll = 0;
    t.draw(|f| view::draw_form(f, &theme, &h, &form, &mut scroll))
        .expect("draw");
    let rows: Vec<String> = (0..6)
        .map(|y| (0..60).map(|x| cell(&t, x, y)).collect::<String>())
        .collect();
    assert!(
        rows[1].starts_with("A form, relayed by mcp-http"),
        "{rows:#?}"
    );
    assert!(
        rows[2].starts_with("Launched as: npx -y bookings-server\\u{1b}[2J"),
        "{rows:#?}"
    );
    assert!(
        rows[3].starts_with("Asked during: tools/call book {\"note\":\"xxx"),
        "{rows:#?}"
    );
    assert!(rows[3].trim_end().ends_with('…'), "{rows:#?}");
}

/// On a window too short for the full header (under 16 rows) the launch
/// and the call still show, on one line under the server's own name.
#[test]
fn a_short_window_still_names_the_launch_and_the_call() {
    let h = header().with_origin(Some(ahp_elicit::responder::Origin {
        launched: Some("python3 srv.py".into()),
        call: Some("tools/call go {}".into()),
    }));
    let schema = schema(json!({"name": {"type": "string"}}));
    let form = Form::new(&schema, "Name?");
    let theme = Theme::monochrome();
    let mut t = Terminal::new(TestBackend::new(80, 15)).expect("terminal");
    let mut scroll = 0;
    t.draw(|f| view::draw_form(f, &theme, &h, &form, &mut scroll))
        .expect("draw");
    let row1: String = (0..80).map(|x| cell(&t, x, 1)).collect();
    assert!(
        row1.starts_with("Launched as: python3 srv.py · asked during tools/call go {}"),
        "{row1:?}"
    );
}

/// When the launch and the call do not both fit on the short header's
/// line, each keeps a share: the launch cut in the middle to half the
/// line, the call cut at its end, so neither pushes the other out.
#[test]
fn a_short_narrow_window_keeps_a_share_for_the_launch_and_the_call() {
    let h = header().with_origin(Some(ahp_elicit::responder::Origin {
        launched: Some("python3 /work/main/tests/mcp_fake_server.py form".into()),
        call: Some("tools/call probe {\"city\":\"Paris\"}".into()),
    }));
    let schema = schema(json!({"name": {"type": "string"}}));
    let form = Form::new(&schema, "Name?");
    let theme = Theme::monochrome();
    for (w, rows) in [(60u16, 15u16), (40, 10)] {
        let mut t = Terminal::new(TestBackend::new(w, rows)).expect("terminal");
        let mut scroll = 0;
        t.draw(|f| view::draw_form(f, &theme, &h, &form, &mut scroll))
            .expect("draw");
        let row1: String = (0..w).map(|x| cell(&t, x, 1)).collect();
        let (launch, call) = row1
            .split_once(" · ")
            .unwrap_or_else(|| panic!("{w}x{rows}: {row1:?}"));
        // The label while it leaves room for the command's end; on the
        // narrowest the end alone.
        let label = if w >= 60 { "Launched as: " } else { "…" };
        assert!(
            launch.starts_with(label) && launch.contains('…'),
            "{w}x{rows}: {row1:?}"
        );
        assert!(launch.ends_with("server.py form"), "{w}x{rows}: {row1:?}");
        assert!(
            call.starts_with("asked during tools"),
            "{w}x{rows}: {row1:?}"
        );
        let half = usize::from(w - 3) / 2;
        assert!(launch.chars().count() <= half, "{w}x{rows}: {row1:?}");
    }
}

/// The row of the screen whose text contains `needle`.
fn row_of(t: &Terminal<TestBackend>, needle: &str) -> u16 {
    let text = screen_text(t);
    let at = text
        .lines()
        .position(|r| r.contains(needle))
        .unwrap_or_else(|| panic!("{needle:?} on screen:\n{text}"));
    at as u16
}

/// Screen readers follow the terminal's cursor: after each Tab it is on
/// the focused field's own widget, whatever its kind: inside a checkbox's
/// brackets, on the highlighted option's mark of a single or multiple
/// choice, at a text input's insertion point, on the focused button's
/// label.
#[test]
fn the_terminal_cursor_follows_the_focus_for_screen_readers() {
    let mut form = Form::new(
        &schema(json!({
            "agree": {"type": "boolean", "title": "Agree"},
            "size": {"type": "string", "title": "Size", "enum": ["S", "M", "L"]},
            "tags": {"type": "array", "title": "Tags",
                     "items": {"type": "string", "enum": ["red", "blue"]}},
            "note": {"type": "string", "title": "Note"}
        })),
        "",
    );
    // The checkbox: inside its brackets.
    let mut t = draw(&form, 80, 30);
    assert_eq!(
        cursor(&mut t),
        Position::new(5, row_of(&t, "[ ] not set")),
        "{}",
        screen_text(&t)
    );
    // The single choice: on the highlighted option's mark.
    form.handle_key(&Key::Tab);
    let mut t = draw(&form, 80, 30);
    assert_eq!(
        cursor(&mut t),
        Position::new(5, row_of(&t, "› ( ) S")),
        "{}",
        screen_text(&t)
    );
    form.handle_key(&Key::Down);
    let mut t = draw(&form, 80, 30);
    assert_eq!(cursor(&mut t), Position::new(5, row_of(&t, "› ( ) M")));
    // The multiple choice: on the highlighted option's box.
    form.handle_key(&Key::Tab);
    let mut t = draw(&form, 80, 30);
    assert_eq!(
        cursor(&mut t),
        Position::new(5, row_of(&t, "› [ ] red")),
        "{}",
        screen_text(&t)
    );
    // The text input: at the insertion point, as before.
    form.handle_key(&Key::Tab);
    let mut t = draw(&form, 80, 30);
    assert_eq!(cursor(&mut t).x, 5);
    // The buttons: on the focused one's label.
    form.handle_key(&Key::Tab);
    let mut t = draw(&form, 80, 30);
    let row = row_of(&t, "[ Submit ]");
    let line = screen_text(&t)
        .lines()
        .nth(row as usize)
        .unwrap()
        .to_owned();
    let at = line.find("Submit").expect("Submit") as u16;
    assert_eq!(
        cursor(&mut t),
        Position::new(at, row),
        "{}",
        screen_text(&t)
    );
    form.handle_key(&Key::Tab);
    let mut t = draw(&form, 80, 30);
    let line = screen_text(&t)
        .lines()
        .nth(row as usize)
        .unwrap()
        .to_owned();
    let at = line.find("Decline").expect("Decline") as u16;
    assert_eq!(
        cursor(&mut t),
        Position::new(at, row),
        "{}",
        screen_text(&t)
    );
}

/// An untouched form points a screen-reader user to plain mode in the row
/// above its buttons (shorter on a narrow screen); the first change takes
/// the hint away.
#[test]
fn an_untouched_form_points_a_screen_reader_to_plain_mode() {
    let mut form = text_form();
    let wide = screen_text(&draw(&form, 80, 24));
    let rows: Vec<&str> = wide.lines().collect();
    assert_eq!(
        rows[21].trim_end(),
        " Screen reader? Run with --plain to answer line by line.",
        "{wide}"
    );
    assert!(rows[22].contains("[ Submit ]"), "{wide}");
    let narrow = screen_text(&draw(&form, 40, 12));
    assert!(narrow.contains(" Screen reader: --plain"), "{narrow}");
    type_text(&mut form, "x");
    let changed = screen_text(&draw(&form, 80, 24));
    assert!(!changed.contains("Screen reader"), "{changed}");
}
