//! ratatui `TestBackend` snapshots of forms read under the compatible
//! schema policy: what a pydantic model's form looks like (the line of
//! keywords outside the subset, a pattern and a format hint, a select of
//! numbers, a live pattern message), and the screen of a request that
//! cannot be answered as a form. Text only.

use ahp_elicit::binding::{read_params, Mode, RequestBody, RequestView, Revision, SchemaPolicy};
use ahp_elicit::form::{Form, Key};
use ahp_elicit::tui::view::{self, Header};
use ratatui::backend::TestBackend;
use ratatui::Terminal;
use serde_json::{json, Value};

use crate::support::{form_header, theme};

fn header() -> Header {
    Header {
        server_version: Some("1.0.0".into()),
        ..form_header("py-pydantic-forms")
    }
}

fn read(schema: Value) -> RequestView {
    let params = json!({"message": "Book a table", "requestedSchema": schema});
    read_params(
        Revision::DEFAULT,
        &params,
        Mode::Form,
        SchemaPolicy::Compatible,
    )
    .expect("valid params")
}

/// What the Python SDK sends for a small pydantic model.
pub(crate) fn booking() -> Value {
    json!({
        "description": "Book a table at the restaurant.",
        "properties": {
            "name": {"description": "Your name", "minLength": 2, "title": "Name", "type": "string"},
            "course": {"default": 2, "enum": [1, 2, 3], "title": "Course", "type": "integer"},
            "code": {"default": "AB", "examples": ["XY"], "pattern": "^[A-Z]{2}$", "title": "Code", "type": "string"},
            "id": {"format": "uuid", "title": "Id", "type": "string"}
        },
        "required": ["name"],
        "title": "Booking",
        "type": "object"
    })
}

#[test]
fn pydantic_form_lists_what_is_outside_the_subset() {
    let RequestView::Body(r) = read(booking()) else {
        panic!("a form")
    };
    let RequestBody::Form(schema) = &r.body else {
        panic!("a form")
    };
    let mut form = Form::new(schema, &r.message);
    // Name, then the select of numbers, then a code the pattern refuses.
    for k in [
        Key::Char('A'),
        Key::Char('d'),
        Key::Char('a'),
        Key::Tab,
        Key::Tab,
        Key::Ctrl('x'),
    ] {
        form.handle_key(&k);
    }
    for k in [Key::Char('a'), Key::Char('1'), Key::Tab] {
        form.handle_key(&k);
    }
    let mut t = Terminal::new(TestBackend::new(80, 30)).expect("terminal");
    let mut scroll = 0;
    t.draw(|f| view::draw_form(f, &theme(), &header(), &form, &mut scroll))
        .expect("draw");
    insta::assert_snapshot!(t.backend());
}

#[test]
fn nested_object_is_shown_as_not_a_form() {
    let view = read(json!({
        "type": "object",
        "title": "Shipping",
        "properties": {
            "recipient": {"type": "string"},
            "address": {"$ref": "#/$defs/Address"},
            "lines": {"type": "array", "items": {"type": "object"}}
        },
        "$defs": {"Address": {"type": "object"}}
    }));
    let RequestView::NotAForm { reasons, .. } = &view else {
        panic!("not a form: {view:?}")
    };
    let lines =
        ahp_elicit::tui::not_a_form_lines("Where should we ship it?\nLine two\u{1b}[2J.", reasons);
    let mut t = Terminal::new(TestBackend::new(80, 18)).expect("terminal");
    let mut scroll = 0;
    t.draw(|f| view::draw_refusable(f, &theme(), &header(), &lines, 0, &mut scroll))
        .expect("draw");
    insta::assert_snapshot!(t.backend());
}
