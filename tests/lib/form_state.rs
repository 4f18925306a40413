//! The form state machine driven by key lists, with no terminal: filling the every-kind form, defaults, clearing, filter,
//! multi-select limits, integer fractions, refused submit, review and back,
//! decline, cancel.

use crate::common;

use ahp_elicit::binding::{self, Action as Elicit, FormSchema, RequestBody};
use ahp_elicit::form::{Button, Focus, Form, Key, KeyIntent, Stage, Status};
use serde_json::{json, Value};

fn every_kind() -> (FormSchema, String) {
    let bytes = std::fs::read(common::examples_dir().join("form-every-kind.request.json"))
        .expect("example");
    let v = binding::parse_json(&bytes).expect("json");
    let req = binding::read_request(v, binding::ReadOptions::default()).expect("valid request");
    let r = req.view.request().expect("body").clone();
    match r.body {
        RequestBody::Form(s) => (s, r.message),
        RequestBody::Url { .. } => panic!("form expected"),
    }
}

fn schema(props: Value, required: &[&str]) -> FormSchema {
    binding::form_schema::parse_form_schema(
        &json!({"type": "object", "properties": props, "required": required}),
        "/requestedSchema",
    )
    .expect("valid schema")
}

fn keys(form: &mut Form, ks: &[Key]) -> Status {
    let mut last = Status::Open;
    for k in ks {
        last = form.handle_key(k);
        if last != Status::Open {
            return last;
        }
    }
    last
}

fn typed(s: &str) -> Vec<Key> {
    s.chars().map(Key::Char).collect()
}

fn accepted(st: Status) -> serde_json::Map<String, Value> {
    match st {
        Status::Done(a) => {
            assert_eq!(a.action, Elicit::Accept);
            a.content.expect("content")
        }
        Status::Open => panic!("form still open"),
    }
}

/// The error `content` gives for field `id` holding no whole number.
fn not_whole(id: &str) -> Vec<(String, String)> {
    vec![(id.to_owned(), "must be a whole number".to_owned())]
}

#[test]
fn every_kind_filled_by_keys() {
    let (s, msg) = every_kind();
    let mut ks = typed("Ada Example");
    ks.push(Key::Tab);
    ks.extend(typed("ada@example.com"));
    ks.push(Key::Tab); // homepage
    ks.extend(typed("https://ada.example/"));
    ks.extend([Key::Tab, Key::Tab, Key::Tab]); // startDate, meetingAt left empty -> seats
                                               // seats: default 5 -> 12
    ks.extend([Key::Backspace, Key::Char('1'), Key::Char('2'), Key::Tab]);
    ks.push(Key::Tab); // budget keeps 99.5
    ks.extend([Key::Char(' '), Key::Tab]); // newsletter false -> true
    ks.extend([Key::Down, Key::Char(' '), Key::Tab]); // region: eu-west -> us-east
    ks.push(Key::Tab); // plan keeps team
    ks.extend([Key::Down, Key::Down, Key::Enter, Key::Tab]); // editor: vscode
    ks.extend([Key::Down, Key::Char(' '), Key::Tab]); // languages: + go
    ks.push(Key::Tab); // notify untouched
    let mut f = Form::new(&s, &msg);
    assert_eq!(keys(&mut f, &ks), Status::Open);
    assert_eq!(f.focus(), Focus::Button(Button::Submit));
    assert_eq!(keys(&mut f, &[Key::Enter]), Status::Open);
    let Stage::Review(c) = f.stage().clone() else {
        panic!("review expected, notice {:?}", f.notice())
    };
    let want = json!({
        "fullName": "Ada Example", "email": "ada@example.com",
        "homepage": "https://ada.example/", "seats": 12, "budget": 99.5,
        "newsletter": true, "region": "us-east", "plan": "team",
        "editor": "vscode", "languages": ["rust", "go"]
    });
    assert_eq!(Value::Object(c.clone()), want);
    let out = accepted(keys(&mut f, &[Key::Enter]));
    assert_eq!(Value::Object(out), want);
}

#[test]
fn defaults_prefilled_and_untouched_optional_left_out() {
    let s = schema(
        json!({
            "n": {"type": "integer", "default": 0},
            "b": {"type": "boolean", "default": false},
            "t": {"type": "string", "default": ""},
            "free": {"type": "string"},
            "flag": {"type": "boolean"},
            "pick": {"type": "string", "enum": ["a", "b"]},
            "many": {"type": "array", "items": {"type": "string", "enum": ["x", "y"]}}
        }),
        &[],
    );
    let mut f = Form::new(&s, "m");
    let c = accepted(keys(&mut f, &[Key::Ctrl('s'), Key::Enter]));
    assert_eq!(Value::Object(c), json!({"n": 0, "b": false, "t": ""}));
}

#[test]
fn clearing_leaves_a_default_out_and_required_refuses() {
    let s = schema(
        json!({
            "seats": {"type": "integer", "default": 5},
            "plan": {"type": "string", "enum": ["a", "b"], "default": "a"}
        }),
        &["plan"],
    );
    let mut f = Form::new(&s, "m");
    // Clear seats (optional): left out.
    keys(
        &mut f,
        &[Key::Ctrl('x'), Key::Tab, Key::Ctrl('x'), Key::Ctrl('s')],
    );
    assert_eq!(*f.stage(), Stage::Edit, "required plan was cleared");
    assert_eq!(f.focus(), Focus::Field(1));
    assert_eq!(f.shown_error(1).as_deref(), Some("required"));
    assert_eq!(f.notice(), Some("Submit refused: 1 field needs attention"));
    // Select again and submit.
    let c = accepted(keys(&mut f, &[Key::Char(' '), Key::Ctrl('s'), Key::Enter]));
    assert_eq!(Value::Object(c), json!({"plan": "a"}));
}

/// A text field without a format takes line breaks, typed (Alt-Enter) or
/// pasted (CRLF, CR and LF alike); an e-mail field is one line: a pasted
/// break becomes a space and Alt-Enter is refused with a notice.
#[test]
fn line_breaks_are_kept_where_a_field_takes_them() {
    let s = schema(
        json!({
            "note": {"type": "string"},
            "mail": {"type": "string", "format": "email"}
        }),
        &[],
    );
    let mut f = Form::new(&s, "m");
    let mut ks = typed("a");
    ks.push(Key::Alt('\n'));
    ks.push(Key::Paste("b\r\nc\rd\ne".into()));
    keys(&mut f, &ks);
    assert!(f.fields()[0].takes_line_breaks());
    assert_eq!(f.fields()[0].json().unwrap(), Some(json!("a\nb\nc\nd\ne")));
    let mut ks = vec![Key::Tab];
    ks.extend(typed("x@"));
    ks.push(Key::Alt('\n'));
    keys(&mut f, &ks);
    assert!(!f.fields()[1].takes_line_breaks());
    assert_eq!(
        f.field_notice(),
        Some("a line break does not belong in this field")
    );
    keys(&mut f, &[Key::Paste("exa\r\nmple.com".into())]);
    assert_eq!(f.fields()[1].json().unwrap(), Some(json!("x@exa mple.com")));
}

#[test]
fn text_editing_keys_and_paste() {
    let s = schema(json!({"t": {"type": "string", "maxLength": 20}}), &[]);
    let mut f = Form::new(&s, "m");
    let mut ks = typed("hello world");
    ks.extend([Key::Ctrl('w'), Key::Home, Key::Char('>'), Key::End]);
    ks.push(Key::Paste("line1\r\nline2".into()));
    keys(&mut f, &ks);
    let c = f.content().expect("valid");
    // A pasted line break stays a line break in a plain text field.
    assert_eq!(c["t"], json!(">hello line1\nline2"));
    // Too long: live error once the field is left.
    keys(&mut f, &typed("xxxx"));
    assert_eq!(f.shown_error(0), None, "not shown while still in the field");
    keys(&mut f, &[Key::Tab]);
    assert_eq!(
        f.shown_error(0).as_deref(),
        Some("must be at most 20 characters (has 22)")
    );
}

/// A text field takes at most 65,536 characters from a paste or typing:
/// a longer paste keeps its start, put in at the cursor, and says so; a
/// key typed at the limit is refused with the same notice.
#[test]
fn a_paste_past_the_text_limit_keeps_its_start_and_says_so() {
    let s = schema(json!({"t": {"type": "string"}}), &[]);
    let mut f = Form::new(&s, "m");
    keys(&mut f, &typed("ab"));
    keys(&mut f, &[Key::Left]);
    let limit = ahp_elicit::form::field::MAX_TEXT_CHARS;
    let long = "é".repeat(limit);
    keys(&mut f, &[Key::Paste(long)]);
    assert_eq!(
        f.notice(),
        Some("a text answer holds at most 65,536 characters: the rest was not taken")
    );
    let v = f.content().expect("valid")["t"]
        .as_str()
        .unwrap()
        .to_owned();
    assert_eq!(v.chars().count(), limit);
    // Put in at the cursor: between the a and the b, the b kept last.
    assert!(v.starts_with("aé") && v.ends_with("éb"), "{}", &v[..8]);
    keys(&mut f, &typed("z"));
    assert_eq!(
        f.notice(),
        Some("a text answer holds at most 65,536 characters: the rest was not taken")
    );
    assert!(!f.content().expect("valid")["t"]
        .as_str()
        .unwrap()
        .contains('z'));
    // Under the limit a paste is taken whole, with no notice.
    let mut g = Form::new(&s, "m");
    keys(&mut g, &[Key::Paste("x".repeat(1000))]);
    assert_eq!(g.notice(), None);
    assert_eq!(g.content().expect("valid")["t"], json!("x".repeat(1000)));
}

#[test]
fn integer_refuses_fraction_and_number_takes_exponent() {
    let s = schema(
        json!({
            "i": {"type": "integer", "minimum": 1, "maximum": 500},
            "x": {"type": "number"}
        }),
        &["i"],
    );
    let mut f = Form::new(&s, "m");
    // A typed fraction is kept as typed and marked invalid at once, never
    // silently turned into another number (`2.5` was `25`).
    keys(&mut f, &typed("2.5"));
    assert_eq!(f.notice(), None);
    assert_eq!(f.shown_error(0).as_deref(), Some("must be a whole number"));
    assert_eq!(f.content(), Err(not_whole("i")));
    // `3.0` is the number 3, not 30.
    keys(&mut f, &[Key::Ctrl('u')]);
    keys(&mut f, &typed("3.0"));
    assert_eq!(f.shown_error(0), None);
    assert_eq!(f.content().expect("valid")["i"], json!(3));
    // A comma is refused with a notice.
    keys(&mut f, &[Key::Ctrl('u'), Key::Char('2'), Key::Char(',')]);
    assert_eq!(f.notice(), Some("whole numbers only"));
    keys(&mut f, &typed("5"));
    assert_eq!(f.content().expect("valid")["i"], json!(25));
    keys(&mut f, &[Key::Tab]);
    keys(&mut f, &typed("-1.5e2"));
    assert_eq!(f.content().expect("valid")["x"], json!(-150.0));
    keys(&mut f, &[Key::BackTab, Key::Ctrl('u')]);
    keys(&mut f, &typed("900"));
    assert_eq!(
        f.content(),
        Err(vec![("i".to_string(), "must be at most 500".to_string())])
    );
    keys(&mut f, &[Key::Ctrl('u'), Key::Char('-')]);
    // A lone sign cannot be sent (the field was left, so it is shown).
    assert_eq!(f.shown_error(0).as_deref(), Some("must be a whole number"));
    assert_eq!(f.content(), Err(not_whole("i")));
}

/// A paste that does not make a number of the field's type
/// is refused whole, with a notice; a good paste is taken.
#[test]
fn number_paste_is_taken_whole_or_refused_whole() {
    let s = schema(
        json!({"i": {"type": "integer"}, "x": {"type": "number"}}),
        &[],
    );
    let mut f = Form::new(&s, "m");
    keys(&mut f, &[Key::Paste("2.5".into())]);
    assert_eq!(
        f.notice(),
        Some("paste refused: '2.5' is not a whole number")
    );
    // Shown beside the field, not only in the footer.
    assert_eq!(f.field_notice(), f.notice());
    assert_eq!(f.content().expect("valid").get("i"), None);
    keys(&mut f, &[Key::Paste(" 42\n".into())]);
    assert_eq!(f.notice(), None);
    assert_eq!(f.content().expect("valid")["i"], json!(42));
    keys(&mut f, &[Key::Paste("1,000".into())]);
    assert_eq!(
        f.notice(),
        Some("paste refused: '1,000' is not a whole number")
    );
    assert_eq!(f.content().expect("valid")["i"], json!(42));
    keys(&mut f, &[Key::Tab, Key::Paste("2.5".into())]);
    assert_eq!(f.content().expect("valid")["x"], json!(2.5));
    keys(&mut f, &[Key::Paste("abc".into())]);
    assert_eq!(f.notice(), Some("paste refused: 'abc' is not a number"));
    assert_eq!(f.content().expect("valid")["x"], json!(2.5));
}

/// In a filtered list Home/End go to the first/last match,
/// and the filter is always edited at its end.
#[test]
fn home_end_in_a_filtered_list_move_on_the_options() {
    let opts: Vec<String> = (0..30).map(|i| format!("opt{i:02}")).collect();
    let s = schema(json!({"o": {"type": "string", "enum": opts}}), &["o"]);
    let filter = |f: &Form| match &f.fields()[0].value {
        ahp_elicit::form::FieldValue::Single { list, .. } => {
            (list.filter.value().to_owned(), list.filter.cursor())
        }
        _ => panic!("single select"),
    };
    let mut f = Form::new(&s, "m");
    keys(&mut f, &typed("opt2"));
    assert_eq!(f.intent_for(&Key::End), KeyIntent::Last);
    assert_eq!(f.intent_for(&Key::Home), KeyIntent::First);
    let mut g = f.clone();
    assert_eq!(
        keys(&mut g, &[Key::End, Key::Enter, Key::Ctrl('s'), Key::Enter]),
        Status::Done(binding::Answer {
            action: Elicit::Accept,
            content: Some(json!({"o": "opt29"}).as_object().expect("object").clone())
        })
    );
    keys(&mut f, &[Key::End, Key::Home]);
    assert_eq!(filter(&f), ("opt2".to_owned(), 4));
    // Left and Ctrl-A do not move a hidden cursor either.
    keys(&mut f, &[Key::Left, Key::Ctrl('a')]);
    keys(&mut f, &typed("5"));
    assert_eq!(filter(&f), ("opt25".to_owned(), 5));
    keys(&mut f, &[Key::Backspace]);
    assert_eq!(filter(&f), ("opt2".to_owned(), 4));
    keys(&mut f, &[Key::Ctrl('u')]);
    assert_eq!(filter(&f), (String::new(), 0));
    keys(&mut f, &[Key::End, Key::Enter]);
    assert_eq!(f.content().expect("valid")["o"], json!("opt29"));
}

/// The article fits the kind.
#[test]
fn wrong_type_message_says_an_integer() {
    let s = schema(json!({"i": {"type": "integer"}}), &[]);
    let mut f = Form::new(&s, "m");
    assert_eq!(
        f.set_json("i", &json!("x")).map_err(|e| e.to_string()),
        Err("'i': cannot enter a string in an integer field".into())
    );
}

#[test]
fn filter_in_long_lists() {
    let opts: Vec<String> = (0..30).map(|i| format!("opt{i:02}")).collect();
    let s = schema(json!({"o": {"type": "string", "enum": opts}}), &["o"]);
    let mut f = Form::new(&s, "m");
    keys(&mut f, &typed("opt2"));
    let st = &f.fields()[0];
    let ahp_elicit::form::FieldValue::Single { list, .. } = &st.value else {
        panic!()
    };
    assert!(list.filterable);
    assert_eq!(list.matches, (20..30).collect::<Vec<_>>());
    keys(&mut f, &[Key::Down, Key::Down, Key::Enter]);
    assert_eq!(f.content().expect("valid")["o"], json!("opt22"));
    // Short lists do not filter: letters do nothing.
    let s = schema(json!({"o": {"type": "string", "enum": ["a", "b"]}}), &[]);
    let f = Form::new(&s, "m");
    assert_eq!(f.intent_for(&Key::Char('b')), KeyIntent::None);
}

/// Type-to-filter matches the titles a person sees, never the hidden
/// values: "c1" in a titled list whose values are c0..c11 matches no title
/// (it used to show Green, Brown, Pink, whose values are c1, c10, c11).
#[test]
fn filter_matches_the_shown_titles_not_hidden_values() {
    let titles = [
        "Red", "Green", "Blue", "Cyan", "Magenta", "Yellow", "Black", "White", "Grey", "Orange",
        "Brown", "Pink",
    ];
    let one_of: Vec<Value> = titles
        .iter()
        .enumerate()
        .map(|(i, t)| json!({"const": format!("c{i}"), "title": t}))
        .collect();
    let s = schema(
        json!({"colour": {"type": "string", "oneOf": one_of}}),
        &["colour"],
    );
    let matches = |f: &Form| match &f.fields()[0].value {
        ahp_elicit::form::FieldValue::Single { list, .. } => list.matches.clone(),
        _ => panic!("a single select"),
    };
    let mut f = Form::new(&s, "m");
    keys(&mut f, &typed("c1"));
    assert_eq!(matches(&f), Vec::<usize>::new());
    keys(&mut f, &[Key::Ctrl('u')]);
    keys(&mut f, &typed("re"));
    // Red, Green, Grey: the titles that contain "re".
    assert_eq!(matches(&f), vec![0, 1, 8]);
    // Options without a title are found by their value, which is shown.
    let plain: Vec<String> = (0..12).map(|i| format!("c{i}")).collect();
    let s = schema(json!({"o": {"type": "string", "enum": plain}}), &[]);
    let mut f = Form::new(&s, "m");
    keys(&mut f, &typed("c1"));
    let ahp_elicit::form::FieldValue::Single { list, .. } = &f.fields()[0].value else {
        panic!("a single select")
    };
    assert_eq!(list.matches, vec![1, 10, 11]);
}

#[test]
fn multi_select_limits() {
    let s = schema(
        json!({"l": {"type": "array", "minItems": 1, "maxItems": 2,
            "items": {"anyOf": [{"const": "a", "title": "A"}, {"const": "b", "title": "B"}, {"const": "c", "title": "C"}]}}}),
        &["l"],
    );
    let mut f = Form::new(&s, "m");
    keys(
        &mut f,
        &[
            Key::Char(' '),
            Key::Down,
            Key::Char(' '),
            Key::Down,
            Key::Char(' '),
        ],
    );
    assert_eq!(f.notice(), Some("choose at most 2: uncheck one first"));
    assert_eq!(f.content().expect("valid")["l"], json!(["a", "b"]));
    keys(&mut f, &[Key::Up, Key::Char(' '), Key::Up, Key::Char(' ')]);
    assert_eq!(
        f.content(),
        Err(vec![(
            "l".to_string(),
            "choose at least 1 item (has 0)".to_string()
        )])
    );
}

#[test]
fn review_then_back_then_change() {
    let s = schema(json!({"t": {"type": "string", "default": "one"}}), &[]);
    let mut f = Form::new(&s, "m");
    keys(&mut f, &[Key::Ctrl('s')]);
    assert!(matches!(f.stage(), Stage::Review(_)));
    keys(&mut f, &[Key::Char('b')]);
    assert_eq!(*f.stage(), Stage::Edit);
    keys(&mut f, &[Key::Char('!')]);
    let c = accepted(keys(&mut f, &[Key::Ctrl('s'), Key::Enter]));
    assert_eq!(c["t"], json!("one!"));
}

#[test]
fn decline_and_cancel() {
    let (s, msg) = every_kind();
    let mut f = Form::new(&s, &msg);
    // Decline button reached by Tab past the 13 fields and Submit.
    let mut ks = vec![Key::Tab; 14];
    ks.push(Key::Enter);
    assert_eq!(
        keys(&mut f, &ks),
        Status::Done(binding::Answer::bare(Elicit::Decline))
    );
    // An untouched form cancels and declines at once.
    for k in [Key::Esc, Key::Ctrl('c')] {
        let mut f = Form::new(&s, &msg);
        assert_eq!(
            keys(&mut f, &[k]),
            Status::Done(binding::Answer::bare(Elicit::Cancel))
        );
    }
    let mut f = Form::new(&s, &msg);
    assert_eq!(
        keys(&mut f, &[Key::Ctrl('d')]),
        Status::Done(binding::Answer::bare(Elicit::Decline))
    );
}

/// One stray key never throws typed answers away: a changed form asks
/// before it cancels or declines; the same key again or `y` confirms, any
/// other key goes back with nothing lost.
#[test]
fn a_changed_form_asks_before_it_discards() {
    let (s, msg) = every_kind();
    let cancel = Status::Done(binding::Answer::bare(Elicit::Cancel));
    let decline = Status::Done(binding::Answer::bare(Elicit::Decline));
    for confirm in [Key::Esc, Key::Char('y')] {
        let mut f = Form::new(&s, &msg);
        assert_eq!(keys(&mut f, &[Key::Char('x'), Key::Esc]), Status::Open);
        assert_eq!(f.confirming(), Some(Elicit::Cancel));
        assert_eq!(f.notice(), Some("Throw away what you entered and cancel?"));
        assert_eq!(keys(&mut f, &[confirm]), cancel);
    }
    // Any other key calls the discard off and does nothing else.
    let mut f = Form::new(&s, &msg);
    keys(&mut f, &[Key::Char('x'), Key::Esc, Key::Char('q')]);
    assert_eq!(f.confirming(), None);
    assert_eq!(f.notice(), None);
    assert_eq!(f.fields()[0].json(), Ok(Some(json!("x"))));
    // Ctrl-D on a non-empty text deletes the character under the cursor.
    keys(&mut f, &[Key::Char('y'), Key::Home, Key::Ctrl('d')]);
    assert_eq!(f.fields()[0].json(), Ok(Some(json!("y"))));
    assert_eq!(f.confirming(), None);
    // At a button it declines, after asking, since the form changed.
    let mut ks = vec![Key::Tab; 14];
    ks.push(Key::Ctrl('d'));
    assert_eq!(keys(&mut f, &ks), Status::Open);
    assert_eq!(f.confirming(), Some(Elicit::Decline));
    assert_eq!(keys(&mut f, &[Key::Ctrl('d')]), decline);
    // The Cancel button asks too; Esc confirms it.
    let mut f = Form::new(&s, &msg);
    let mut ks = typed("x");
    ks.extend(vec![Key::Tab; 15]);
    ks.push(Key::Enter);
    assert_eq!(keys(&mut f, &ks), Status::Open);
    assert_eq!(f.confirming(), Some(Elicit::Cancel));
    assert_eq!(keys(&mut f, &[Key::Esc]), cancel);
    // In the empty text field Ctrl-D declines at once (nothing changed).
    let mut f = Form::new(&s, &msg);
    assert_eq!(keys(&mut f, &[Key::Ctrl('d')]), decline);
    // The keys that answer say where another key goes back to.
    let mut f = Form::new(&s, &msg);
    keys(&mut f, &[Key::Char('x'), Key::Esc]);
    assert_eq!(
        f.confirm_keys().as_deref(),
        Some("Esc again or y: cancel · any other key: back to the form")
    );
    let t = schema(json!({"n": {"type": "string"}}), &[]);
    let mut f = Form::new(&t, "One field.");
    keys(&mut f, &[Key::Ctrl('s'), Key::Ctrl('d')]);
    assert!(matches!(f.stage(), Stage::Review(_)));
    assert_eq!(
        f.confirm_keys().as_deref(),
        Some("Ctrl-D again or y: decline · any other key: back to the review")
    );
}

#[test]
fn submit_refused_while_invalid_shows_reasons() {
    let (s, msg) = every_kind();
    let mut f = Form::new(&s, &msg);
    keys(&mut f, &[Key::Char('A'), Key::Tab]);
    keys(&mut f, &typed("not-an-email"));
    keys(&mut f, &[Key::Ctrl('s')]);
    assert_eq!(*f.stage(), Stage::Edit);
    assert_eq!(f.focus(), Focus::Field(0));
    assert_eq!(
        f.shown_error(0).as_deref(),
        Some("must be at least 2 characters (has 1)")
    );
    assert_eq!(
        f.shown_error(1).as_deref(),
        Some("must be an e-mail address, like name@example.com")
    );
    assert_eq!(f.notice(), Some("Submit refused: 2 fields need attention"));
}

#[test]
fn secret_warning() {
    let s = schema(
        json!({"apiKey": {"type": "string", "title": "API key"}}),
        &[],
    );
    assert!(Form::new(&s, "m").asks_for_secret());
    let (s, msg) = every_kind();
    assert!(!Form::new(&s, &msg).asks_for_secret());
}

/// The secret warning names the field and the word that triggered it, and
/// a description telling the person NOT to give a secret raises nothing.
#[test]
fn secret_warning_names_the_field_and_the_word() {
    let s = schema(
        json!({"tok": {"type": "string", "title": "GitHub token"},
               "name": {"type": "string", "title": "Name"}}),
        &[],
    );
    let f = Form::new(&s, "m");
    assert_eq!(
        f.secret_warning(),
        Some("field \"GitHub token\" asks for a \"token\"".to_owned())
    );
    let s = schema(
        json!({"code": {"type": "string", "title": "Branch code",
                        "description": "do not give us your PIN"}}),
        &[],
    );
    let f = Form::new(&s, "m");
    assert!(!f.asks_for_secret());
    assert_eq!(f.secret_warning(), None);
    let s = schema(
        json!({"a": {"type": "string", "description": "Your card number"},
               "b": {"type": "string", "title": "Password"},
               "c": {"type": "string", "title": "API key"}}),
        &[],
    );
    assert_eq!(
        Form::new(&s, "m").secret_warning(),
        Some("field \"a\" asks for a \"card number\" (and 2 more fields)".to_owned())
    );
}
