//! One field's hint, the help line and the arguments form, as drawn.

use super::draw::edit_help;
use super::fields::field_hint;
use crate::form::Form;

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
