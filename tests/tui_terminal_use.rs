//! Drawing checks with ratatui's `TestBackend` for real terminal use: the
//! exact cursor cell in a scrolled text field holding wide and combining
//! characters, type-to-filter over the titles a person sees, and small
//! screens (the focused input in the first frame, "more below" only when
//! something is below).

use ahp_elicit::binding::{form_schema::parse_form_schema, FormSchema, Mode};
use ahp_elicit::form::{Form, Key};
use ahp_elicit::responder::Progress;
use ahp_elicit::tui::view::{self, Header};
use ahp_elicit::tui::Theme;
use ratatui::backend::TestBackend;
use ratatui::layout::Position;
use ratatui::Terminal;
use serde_json::{json, Value};

fn header() -> Header {
    Header {
        server_name: "demo-server".into(),
        server_title: None,
        server_version: None,
        adapter: "mcp-stdio".into(),
        mode: Mode::Form,
        progress: Progress { index: 1, total: 1 },
        seconds_left: None,
    }
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
    let theme = Theme::builtin("default").expect("theme");
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
