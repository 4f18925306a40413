//! The form screen: its steps, its keys and what it draws (one field's
//! hint, the help line, the arguments form).

use ratatui::backend::TestBackend;
use ratatui::Terminal;

use super::draw::edit_help;
use super::fields::field_hint;
use super::*;
use crate::binding::{RequestBody, RequestView};
use crate::tui::tests::{decided, frame, header, rows_at};

fn hint(props: serde_json::Value, typed: &str) -> Option<String> {
    let v = serde_json::json!({"type": "object", "properties": props});
    let schema =
        crate::binding::form_schema::parse_form_schema(&v, "/requestedSchema").expect("schema");
    let mut form = Form::new(&schema, "");
    for c in typed.chars() {
        form.handle_key(&crate::form::Key::Char(c));
    }
    field_hint(&form.fields()[0])
}

#[test]
fn the_count_of_characters_agrees_with_its_number() {
    let at_least = serde_json::json!({"a": {"type": "string", "minLength": 2}});
    assert_eq!(
        hint(at_least.clone(), "x").as_deref(),
        Some("1 character, at least 2")
    );
    assert_eq!(
        hint(at_least, "xy").as_deref(),
        Some("2 characters, at least 2")
    );
    let one = serde_json::json!({"a": {"type": "string", "maxLength": 1}});
    assert_eq!(hint(one, "").as_deref(), Some("0/1 character"));
    let many = serde_json::json!({"a": {"type": "string", "maxLength": 80}});
    assert_eq!(hint(many, "x").as_deref(), Some("1/80 characters"));
}

/// A tool's arguments form: what was entered so far (a number that is
/// not one kept as its text), whether a secret-looking field holds a
/// value, and the key help naming Ctrl-O for the whole as JSON on every
/// field (a text field's own editor is not offered then).
#[test]
fn the_arguments_form_offers_the_whole_as_json() {
    let v = serde_json::json!({"type": "object", "properties": {
        "guests": {"type": "integer"},
        "note": {"type": "string"},
        "api_token": {"type": "string"},
        "terrace": {"type": "boolean", "default": false}
    }});
    let schema =
        crate::binding::form_schema::parse_form_schema(&v, "/requestedSchema").expect("schema");
    let mut form = Form::new(&schema, "");
    for c in "4-".chars() {
        form.handle_key(&crate::form::Key::Char(c));
    }
    assert_eq!(
        serde_json::Value::Object(form.entered()),
        serde_json::json!({"guests": "4-", "terrace": false})
    );
    assert!(!form.secret_entered());
    assert_eq!(
        edit_help(&form)[1],
        "Tab/S-Tab move · ^X clear · ^S submit · Esc cancel"
    );
    form.editor_takes_all = true;
    assert_eq!(
        edit_help(&form)[1],
        "Tab/S-Tab move · ^O JSON · ^X clear · ^S submit · Esc cancel"
    );
    form.handle_key(&crate::form::Key::Tab);
    assert!(edit_help(&form)[0].contains("Ctrl-O all as JSON"));
    assert!(!edit_help(&form)[0].contains("Ctrl-O editor"));
    form.editor_takes_all = false;
    assert!(edit_help(&form)[0].contains("Ctrl-O editor"));
    form.handle_key(&crate::form::Key::Tab);
    form.handle_key(&crate::form::Key::Char('s'));
    assert!(form.secret_entered());
}

/// A choice list with a typed filter takes Space into the filter: its
/// help says Enter picks, and says Space again once the filter is
/// empty.
#[test]
fn a_filtered_list_says_enter_picks() {
    let options: Vec<String> = (0..12).map(|i| format!("option {i}")).collect();
    let v = serde_json::json!({"type": "object", "properties": {
        "pick": {"type": "string", "enum": options}
    }});
    let schema =
        crate::binding::form_schema::parse_form_schema(&v, "/requestedSchema").expect("schema");
    let mut form = Form::new(&schema, "");
    assert!(
        edit_help(&form)[0].contains("Space select"),
        "{:?}",
        edit_help(&form)
    );
    form.handle_key(&crate::form::Key::Char('1'));
    let help = edit_help(&form);
    assert!(help[0].contains("Enter select"), "{help:?}");
    assert!(!help[0].contains("Space"), "{help:?}");
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
    assert_eq!(help_row(&mut f), HELP_REVIEW_MORE);
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
