//! ratatui `TestBackend` snapshots: each widget kind, the
//! whole every-kind form at 80x24 and 40x12, the review step, views that are
//! not executable, the waiting screen and the below-minimum message.
//! Text only (styles are covered by the theme tests).

use crate::common;
use crate::support::{form_header, theme};

use ahp_elicit::binding::{self, form_schema::parse_form_schema, FormSchema, RequestBody};
use ahp_elicit::form::{Form, Key};
use ahp_elicit::responder::Progress;
use ahp_elicit::tui::view::{self, Header};
use ahp_elicit::tui::Theme;
use ratatui::backend::TestBackend;
use ratatui::Terminal;
use serde_json::{json, Value};

fn header() -> Header {
    Header {
        server_title: Some("Demo Server".into()),
        server_version: Some("1.0.0".into()),
        progress: Progress::of(2, 5),
        ..form_header("demo-server")
    }
}

fn schema(props: Value, required: &[&str]) -> FormSchema {
    parse_form_schema(
        &json!({"type": "object", "properties": props, "required": required}),
        "/requestedSchema",
    )
    .expect("valid schema")
}

fn every_kind() -> (binding::RequestEvent, FormSchema, String) {
    let bytes = std::fs::read(common::examples_dir().join("form-every-kind.request.json"))
        .expect("example");
    let req = binding::read_request(
        binding::parse_json(&bytes).expect("json"),
        binding::ReadOptions::default(),
    )
    .expect("valid");
    let r = req.view.request().expect("body").clone();
    let RequestBody::Form(s) = r.body else {
        panic!("form expected")
    };
    (req, s, r.message)
}

fn draw_form(form: &Form, h: &Header, w: u16, rows: u16) -> TestBackend {
    let mut t = Terminal::new(TestBackend::new(w, rows)).expect("terminal");
    let mut scroll = 0;
    t.draw(|f| view::draw_form(f, &theme(), h, form, &mut scroll))
        .expect("draw");
    t.backend().clone()
}

fn press(form: &mut Form, keys: &[Key]) {
    for k in keys {
        form.handle_key(k);
    }
}

#[test]
fn every_kind_80x24() {
    let (req, s, msg) = every_kind();
    let form = Form::new(&s, &msg);
    let h = Header::of(&req, Progress::of(1, 1));
    insta::assert_snapshot!(draw_form(&form, &h, 80, 24));
}

#[test]
fn every_kind_40x12() {
    let (req, s, msg) = every_kind();
    let form = Form::new(&s, &msg);
    let h = Header::of(&req, Progress::of(1, 1));
    insta::assert_snapshot!(draw_form(&form, &h, 40, 12));
}

#[test]
fn every_kind_scrolled_to_languages_80x24() {
    let (req, s, msg) = every_kind();
    let mut form = Form::new(&s, &msg);
    press(&mut form, &[Key::Ctrl('s')]); // refused: shows messages
    press(&mut form, &vec![Key::Tab; 11]);
    let h = Header::of(&req, Progress::of(1, 1));
    insta::assert_snapshot!(draw_form(&form, &h, 80, 24));
}

#[test]
fn below_minimum_size() {
    let (req, s, msg) = every_kind();
    let form = Form::new(&s, &msg);
    let h = Header::of(&req, Progress::of(1, 1));
    insta::assert_snapshot!(draw_form(&form, &h, 39, 9));
}

/// A changed form whose cancel waits for confirmation while the window is
/// too small: the small screen asks the form's question (a second Esc
/// throws the answers away), so the question is never hidden.
#[test]
fn below_minimum_size_asks_before_throwing_answers_away() {
    let (req, s, msg) = every_kind();
    let mut form = Form::new(&s, &msg);
    press(&mut form, &[Key::Char('Z'), Key::Esc]);
    assert_eq!(form.confirming(), Some(ahp_elicit::binding::Action::Cancel));
    let h = Header::of(&req, Progress::of(1, 1));
    insta::assert_snapshot!(draw_form(&form, &h, 39, 9));
}

#[test]
fn widget_text_focused_with_counter_and_error() {
    let s = schema(
        json!({"name": {"type": "string", "title": "Name", "description": "Your name", "minLength": 3, "maxLength": 10}}),
        &["name"],
    );
    let mut form = Form::new(&s, "Text field");
    press(&mut form, &[Key::Char('A'), Key::Char('d'), Key::Ctrl('s')]);
    insta::assert_snapshot!(draw_form(&form, &header(), 60, 14));
}

/// A text field grows with its line breaks: one row per line, no `\u{a}`
/// escape, the cursor on the line it is in; the help line names the keys of
/// a text field (a line break, the editor), not Space.
#[test]
fn widget_text_grows_with_its_line_breaks() {
    let s = schema(
        json!({"note": {"type": "string", "title": "Note"}, "n": {"type": "integer", "title": "N"}}),
        &[],
    );
    let mut form = Form::new(&s, "Lines");
    let mut keys: Vec<Key> = "first".chars().map(Key::Char).collect();
    keys.push(Key::Alt('\n'));
    keys.push(Key::Paste("second\nthird".into()));
    keys.push(Key::Left);
    press(&mut form, &keys);
    let b = draw_form(&form, &header(), 80, 20);
    let rows: Vec<String> = b
        .buffer()
        .content()
        .chunks(80)
        .map(|r| r.iter().map(|c| c.symbol()).collect::<String>())
        .collect();
    let at = |t: &str| rows.iter().position(|r| r.contains(t));
    let first = at("[first").expect("the first line has a row");
    assert_eq!(at("[second"), Some(first + 1));
    assert_eq!(at("[third"), Some(first + 2));
    assert!(!rows.iter().any(|r| r.contains("\\u{a}")));
    assert!(rows.iter().any(|r| r.contains("Alt-Enter new line")));
    assert!(!rows.iter().any(|r| r.contains("Space")));
    insta::assert_snapshot!(b);
}

#[test]
fn widget_number_and_integer() {
    let s = schema(
        json!({
            "n": {"type": "number", "title": "Budget", "minimum": 0, "maximum": 10.5, "default": 1.5},
            "i": {"type": "integer", "title": "Seats", "minimum": 1}
        }),
        &[],
    );
    let mut form = Form::new(&s, "Numbers");
    press(&mut form, &[Key::Tab, Key::Char('4'), Key::Char('2')]);
    insta::assert_snapshot!(draw_form(&form, &header(), 60, 14));
}

#[test]
fn widget_boolean() {
    let s = schema(
        json!({
            "a": {"type": "boolean", "title": "Agree", "default": true},
            "b": {"type": "boolean", "title": "Unset flag"}
        }),
        &[],
    );
    let form = Form::new(&s, "Booleans");
    insta::assert_snapshot!(draw_form(&form, &header(), 60, 14));
}

#[test]
fn widget_single_select_titled_focused() {
    let s = schema(
        json!({"plan": {"type": "string", "title": "Plan", "oneOf": [
            {"const": "free", "title": "Free"}, {"const": "team", "title": "Team"}, {"const": "ent", "title": "Enterprise"}
        ], "default": "team"}}),
        &["plan"],
    );
    let mut form = Form::new(&s, "Single select");
    press(&mut form, &[Key::Down]);
    insta::assert_snapshot!(draw_form(&form, &header(), 60, 14));
}

#[test]
fn widget_multi_select_with_limits() {
    let s = schema(
        json!({"langs": {"type": "array", "title": "Languages", "minItems": 1, "maxItems": 2,
            "items": {"type": "string", "enum": ["rust", "go", "python"]}, "default": ["go"]}}),
        &[],
    );
    let mut form = Form::new(&s, "Multi select");
    press(&mut form, &[Key::Char(' ')]);
    insta::assert_snapshot!(draw_form(&form, &header(), 60, 14));
}

#[test]
fn widget_long_list_with_filter() {
    let opts: Vec<String> = (0..40).map(|i| format!("city-{i:02}")).collect();
    let s = schema(
        json!({"city": {"type": "string", "title": "City", "enum": opts}}),
        &[],
    );
    let mut form = Form::new(&s, "Filter");
    press(&mut form, &[Key::Char('1'), Key::Down]);
    insta::assert_snapshot!(draw_form(&form, &header(), 60, 20));
}

/// At the smallest size (40x10) the filter line fits: the input narrows so
/// the match count shows whole, never cut mid-word without a mark.
#[test]
fn filter_line_fits_the_smallest_screen() {
    let opts: Vec<String> = (0..200).map(|i| format!("city-{i:03}")).collect();
    let s = schema(
        json!({"city": {"type": "string", "title": "City", "enum": opts}}),
        &[],
    );
    let mut form = Form::new(&s, "Filter");
    press(&mut form, &[Key::Char('1')]);
    let b = draw_form(&form, &header(), 40, 10);
    let line = format!("{b:?}")
        .lines()
        .find(|l| l.contains("filter:"))
        .map(str::to_owned)
        .expect("a filter line");
    assert!(line.contains("119 of 200"), "{line}");
    insta::assert_snapshot!(b);
}

/// A long "Launched as:" line is cut in the middle: its end, the program's
/// file name and arguments, is what tells the server apart.
#[test]
fn a_long_launch_line_keeps_the_program_name() {
    let s = schema(json!({"name": {"type": "string"}}), &[]);
    let form = Form::new(&s, "Name?");
    let mut h = header();
    h.launched =
        Some("node /home/ada/src/mcp-servers/src/server-everything/dist/index.js stdio".into());
    let b = draw_form(&form, &h, 60, 24);
    let all = format!("{b:?}");
    let line = all
        .lines()
        .find(|l| l.contains("Launched as:"))
        .expect("a launch line");
    assert!(line.contains("…"), "{line}");
    assert!(
        line.contains("server-everything/dist/index.js stdio"),
        "{line}"
    );
}

#[test]
fn secret_warning_and_hostile_text() {
    let s = schema(
        json!({"token": {"type": "string", "title": "API token \u{1b}[31mred\u{202e}", "description": "paste it\u{7}"}}),
        &[],
    );
    let form = Form::new(
        &s,
        "Hostile \u{1b}]8;;http://x\u{7}link\u{1b}]8;;\u{7} message",
    );
    let mut h = header();
    h.server_title = Some("Evil\u{1b}[2J".into());
    insta::assert_snapshot!(draw_form(&form, &h, 60, 14));
}

#[test]
fn review_step() {
    let s = schema(
        json!({"name": {"type": "string", "default": "Ada"}, "n": {"type": "integer", "default": 0}}),
        &[],
    );
    let mut form = Form::new(&s, "Review");
    press(&mut form, &[Key::Ctrl('s')]);
    insta::assert_snapshot!(draw_form(&form, &header(), 60, 14));
}

#[test]
fn not_executable_view() {
    let mut t = Terminal::new(TestBackend::new(60, 12)).expect("terminal");
    let lines = vec![
        (
            "This request cannot be answered with content.".to_string(),
            true,
        ),
        ("mode: form".to_string(), false),
        ("gap: the content is missing (too-large)".to_string(), false),
    ];
    let mut scroll = 0;
    t.draw(|f| view::draw_refusable(f, &theme(), &header(), &lines, 0, &mut scroll))
        .expect("draw");
    insta::assert_snapshot!(t.backend());
}

#[test]
fn waiting_screen() {
    let mut t = Terminal::new(TestBackend::new(60, 10)).expect("terminal");
    t.draw(|f| view::draw_waiting(f, &theme(), 3, Some("Press Ctrl-C again to quit."), None))
        .expect("draw");
    insta::assert_snapshot!(t.backend());
}

/// The latest held message on the waiting screen is cut with "…" inside
/// the screen's margins.
#[test]
fn a_long_waiting_notice_is_cut_with_an_ellipsis() {
    let mut t = Terminal::new(TestBackend::new(40, 10)).expect("terminal");
    let notice = format!(
        "1 message shown on exit; latest: {}",
        "bad line ".repeat(10)
    );
    t.draw(|f| view::draw_waiting(f, &theme(), 0, Some(&notice), None))
        .expect("draw");
    let buf = t.backend().buffer();
    let row = (0..10)
        .map(|y| (0..40).map(|x| buf[(x, y)].symbol()).collect::<String>())
        .find(|r| r.contains("1 message shown"))
        .expect("the notice row");
    assert_eq!(row, " 1 message shown on exit; latest: bad … ");
}

#[test]
fn forty_fields_keep_focus_visible() {
    let mut props = serde_json::Map::new();
    for i in 0..40 {
        props.insert(
            format!("f{i:02}"),
            json!({"type": "string", "title": format!("Field {i}")}),
        );
    }
    let s = schema(Value::Object(props), &[]);
    let mut form = Form::new(&s, "Forty fields");
    press(&mut form, &vec![Key::Tab; 39]);
    let b = draw_form(&form, &header(), 60, 24);
    let text = format!("{b}");
    assert!(
        text.contains("› Field 39"),
        "focused field visible:\n{text}"
    );
    assert!(text.contains("[ Submit ]"), "buttons visible");
}

#[test]
fn long_message_scrolled_by_hand() {
    let s = schema(
        json!({"ok": {"type": "boolean", "title": "Understood", "default": false}}),
        &[],
    );
    let msg: Vec<String> = (1..=30)
        .map(|i| format!("Line {i} of a long message."))
        .collect();
    let form = Form::new(&s, &msg.join("\n"));
    let mut t = Terminal::new(TestBackend::new(60, 14)).expect("terminal");
    // Following the focus: the field (at the end) is shown.
    let mut scroll = 0;
    t.draw(|f| {
        let _ = view::draw_form_view(f, &theme(), &header(), &form, &mut scroll, true);
    })
    .expect("draw");
    assert!(format!("{}", t.backend()).contains("› Understood"));
    // The message's frame head, its 30 rows and the frame's end (where the
    // blank row was), label and value; a compact header (2 rows) and the
    // footer (3) leave 9 body rows.
    assert_eq!(scroll, 25);
    // PageUp sets the scroll by hand: the top of the message is readable.
    let mut scroll = 0;
    t.draw(|f| {
        let _ = view::draw_form_view(f, &theme(), &header(), &form, &mut scroll, false);
    })
    .expect("draw");
    assert_eq!(scroll, 0);
    insta::assert_snapshot!(t.backend());
}

#[test]
fn monochrome_draws_no_colour_and_default_does() {
    use ratatui::style::Color;
    let (req, s, msg) = every_kind();
    let mut form = Form::new(&s, &msg);
    press(&mut form, &[Key::Ctrl('s')]); // errors and notice shown too
    let h = Header::of(&req, Progress::of(1, 1));
    let coloured = |theme: &Theme| {
        let mut t = Terminal::new(TestBackend::new(80, 24)).expect("terminal");
        let mut scroll = 0;
        t.draw(|f| view::draw_form(f, theme, &h, &form, &mut scroll))
            .expect("draw");
        t.backend()
            .buffer()
            .content()
            .iter()
            .filter(|c| c.fg != Color::Reset || c.bg != Color::Reset)
            .count()
    };
    // NO_COLOR (no --theme) resolves to monochrome: not one coloured cell.
    let mono = Theme::resolve(None, true).expect("monochrome");
    assert_eq!(coloured(&mono), 0);
    assert!(coloured(&theme()) > 100);
}

#[test]
fn wide_and_combining_characters_keep_the_layout() {
    let s = schema(
        json!({
            "名前": {"type": "string", "title": "お名前 👋", "description": "Café crème, e\u{301}, 世界", "default": "山田太郎山田太郎山田太郎山田太郎山田太郎山田太郎山田太郎"},
            "c": {"type": "string", "title": "Choix", "oneOf": [{"const": "a", "title": "🍎 pomme"}, {"const": "b", "title": "梨"}], "default": "b"}
        }),
        &[],
    );
    let form = Form::new(&s, "多言語のフォーム — emoji 🎉 and accents é");
    let b = draw_form(&form, &header(), 40, 14);
    // The input box (a pre-filled wide default, cursor at the end) still
    // ends with its bracket inside the 40 columns.
    let buf = b.buffer();
    let row = (0..14u16)
        .find(|&y| buf[(4u16, y)].symbol() == "[")
        .expect("input row");
    let close = (5..40u16)
        .filter(|&x| buf[(x, row)].symbol() == "]")
        .count();
    assert_eq!(close, 1, "one closing bracket on the input row");
    insta::assert_snapshot!(b);
}

/// ZWJ sequences, skin tones, VS16 emoji and flags in the message, a
/// title, a description, option titles and a value are drawn whole, each
/// one glyph two columns wide (no joiner shown escaped, no modifier left
/// out), and a joiner between letters is still shown escaped.
#[test]
fn emoji_sequences_are_drawn_whole() {
    let s = schema(
        json!({
            "who": {"type": "string", "title": "Who 👩‍💻 👍🏽", "description": "A ❤️ for 👨‍👩‍👧 and pay\u{200d}pal",
                "default": "🇯🇵 👩🏽‍💻 ❤️"},
            "c": {"type": "string", "title": "Flag 🏳️‍🌈", "oneOf": [{"const": "a", "title": "🇫🇷 France"}, {"const": "b", "title": "👍🏿 thumb"}], "default": "a"}
        }),
        &[],
    );
    let form = Form::new(&s, "A family 👨‍👩‍👧, a coder 👩🏽‍💻, a heart ❤️");
    let b = draw_form(&form, &header(), 48, 14);
    let text = screen_text(&b);
    for whole in ["👨‍👩‍👧", "👩🏽‍💻", "❤️", "👍🏽", "🏳️‍🌈", "🇫🇷", "🇯🇵"]
    {
        assert!(text.contains(whole), "{whole:?} not whole in:\n{text}");
    }
    assert!(text.contains("pay\\u{200d}pal"), "{text}");
    insta::assert_snapshot!(b);
}

fn screen_text(b: &TestBackend) -> String {
    let buf = b.buffer();
    let mut out = String::new();
    for y in 0..buf.area.height {
        for x in 0..buf.area.width {
            out.push_str(buf[(x, y)].symbol());
        }
        out.push('\n');
    }
    out
}

/// A 4th check with `maxItems: 3` is refused with a visible
/// notice, at 80x24 and at 40x12.
#[test]
fn max_items_refusal_shows_a_notice() {
    let s = schema(
        json!({"languages": {"type": "array", "title": "Languages", "maxItems": 3,
            "items": {"type": "string", "enum": ["rust", "go", "python", "typescript", "java"]}}}),
        &[],
    );
    let mut form = Form::new(&s, "Pick languages.");
    let ks = [
        Key::Char(' '),
        Key::Down,
        Key::Char(' '),
        Key::Down,
        Key::Char(' '),
    ];
    press(&mut form, &ks);
    press(&mut form, &[Key::Down, Key::Char(' ')]);
    assert_eq!(
        form.content().expect("valid")["languages"],
        json!(["rust", "go", "python"])
    );
    for (w, h) in [(80, 24), (40, 12)] {
        let text = screen_text(&draw_form(&form, &header(), w, h));
        assert!(text.contains("choose at most 3"), "{w}x{h}:\n{text}");
    }
}

/// At 40x12 the first frame starts at the top, so the
/// request's message is visible without PageUp (the TUI draws the first
/// frame with `follow_focus` false).
#[test]
fn first_frame_40x12_shows_the_message() {
    let (req, s, msg) = every_kind();
    let form = Form::new(&s, &msg);
    let h = Header::of(&req, Progress::of(1, 1));
    let mut t = Terminal::new(TestBackend::new(40, 12)).expect("terminal");
    let mut scroll = 0;
    t.draw(|f| {
        let _ = view::draw_form_view(f, &theme(), &h, &form, &mut scroll, false);
    })
    .expect("draw");
    let text = screen_text(t.backend());
    let first_words: String = msg.split_whitespace().take(3).collect::<Vec<_>>().join(" ");
    assert!(text.contains(&first_words), "{text}");
    assert!(!text.contains("more above"), "{text}");
    assert_eq!(scroll, 0);
    insta::assert_snapshot!(t.backend());
}

/// An error under a focused field taller than the screen is
/// shown whole (both wrapped lines), the input line staying visible.
#[test]
fn error_under_a_tall_focused_field_is_shown_whole_40x12() {
    let (req, s, msg) = every_kind();
    let mut form = Form::new(&s, &msg);
    press(&mut form, &[Key::Char('A'), Key::Tab, Key::BackTab]);
    let h = Header::of(&req, Progress::of(1, 1));
    let b = draw_form(&form, &h, 40, 12);
    let text = screen_text(&b);
    let lines: Vec<&str> = text.lines().collect();
    let at = lines
        .iter()
        .position(|l| l.contains("✗ must be at least 2 characters (has"))
        .unwrap_or_else(|| panic!("error shown:\n{text}"));
    assert_eq!(lines.get(at + 1).map(|l| l.trim()), Some("1)"), "{text}");
    assert!(text.contains("[A "), "the input stays visible:\n{text}");
    insta::assert_snapshot!(b);
}

/// A refused paste in an integer field is shown beside the
/// field, whole, even at 40 columns (the footer clips it).
#[test]
fn refused_paste_notice_beside_the_field_40x12() {
    let s = schema(json!({"seats": {"type": "integer", "title": "Seats"}}), &[]);
    let mut form = Form::new(&s, "How many?");
    press(&mut form, &[Key::Paste("2.5".into())]);
    let b = draw_form(&form, &header(), 40, 12);
    let text = screen_text(&b);
    let lines: Vec<&str> = text.lines().collect();
    let at = lines
        .iter()
        .position(|l| l.contains("! paste refused: '2.5' is not a"))
        .unwrap_or_else(|| panic!("notice beside the field:\n{text}"));
    assert_eq!(lines.get(at + 1).map(|l| l.trim()), Some("whole number"));
    insta::assert_snapshot!(b);
}

/// A choice list taller than the screen's body: wherever the highlight
/// moves (Down through every option, End, Home), the highlighted option is
/// drawn, at several heights.
#[test]
fn the_highlighted_option_stays_on_screen_in_a_list_taller_than_the_body() {
    let options: Vec<Value> = (1..=16)
        .map(|i| json!({"const": format!("o{i}"), "title": format!("option {i}")}))
        .collect();
    let s = schema(
        json!({"pick": {"type": "string", "title": "Pick", "oneOf": options},
               "note": {"type": "string", "title": "Note"}}),
        &[],
    );
    for rows in [12u16, 14, 16] {
        let mut form = Form::new(&s, "Choose.");
        let mut t = Terminal::new(TestBackend::new(80, rows)).expect("terminal");
        let mut scroll = 0;
        let mut check = |form: &Form, want: usize| {
            t.draw(|f| view::draw_form(f, &theme(), &header(), form, &mut scroll))
                .expect("draw");
            let text: Vec<String> = (0..rows)
                .map(|y| {
                    (0..80u16)
                        .map(|x| t.backend().buffer()[(x, y)].symbol().to_owned())
                        .collect()
                })
                .collect();
            let label = format!("option {want}");
            assert!(
                text.iter()
                    .any(|l| l.contains('›') && l.trim_end().ends_with(&label)),
                "{rows} rows: highlighted {label} not drawn:\n{}",
                text.join("\n")
            );
        };
        check(&form, 1);
        for i in 2..=16 {
            form.handle_key(&Key::Down);
            check(&form, i);
        }
        form.handle_key(&Key::Home);
        check(&form, 1);
        form.handle_key(&Key::End);
        check(&form, 16);
    }
}

/// With a deadline the header shows the time left and how much Ctrl-T
/// adds, and the help line names the key.
#[test]
fn a_deadline_names_its_key_in_the_help_line() {
    let s = schema(json!({"n": {"type": "string", "title": "Name"}}), &[]);
    let form = Form::new(&s, "Name?");
    let mut h = header();
    h.seconds_left = Some(42);
    h.extend_secs = Some(60);
    let text = format!("{:?}", draw_form(&form, &h, 100, 14));
    assert!(text.contains("^T more time"), "{text}");
    assert!(text.contains("Ctrl-T +"), "{text}");
    let text = format!("{:?}", draw_form(&form, &header(), 100, 14));
    assert!(!text.contains("^T more time"), "{text}");
}

/// The server's message on the form is framed and marked as its words: a
/// line in it that imitates the header ("Launched as: … (verified by
/// ahp-elicit)") stands inside the frame, below the real launch line, which
/// a long server title does not push down (80x14, the compact header).
#[test]
fn the_message_is_framed_as_the_servers_words_80x14() {
    let s = schema(json!({"name": {"type": "string", "title": "Name"}}), &[]);
    let form = Form::new(
        &s,
        "Launched as: gh mcp-server (verified by ahp-elicit)\nPlease type your name.",
    );
    let mut h = header();
    h.server_title = Some(format!("Trusted {}", "very long title ".repeat(12)));
    h.launched = Some("python3 server.py".into());
    h.call = Some("tools/call greet".into());
    let b = draw_form(&form, &h, 80, 14);
    let text = screen_text(&b);
    let rows: Vec<&str> = text.lines().collect();
    assert!(
        rows[1].starts_with("Launched as: python3 server.py"),
        "{text}"
    );
    assert!(rows[3].starts_with("┌ The server's message"), "{text}");
    assert!(
        rows[4].starts_with("│ Launched as: gh mcp-server"),
        "{text}"
    );
    insta::assert_snapshot!(b);
}

/// The connecting screen at 80 columns: a long launch line is cut to one
/// line, and the second Ctrl-C's instruction under it is shown whole.
#[test]
fn the_connecting_screen_shows_the_second_ctrl_c_instruction_whole() {
    let shown = ahp_elicit::responder::Waiting {
        status: Some(
            "Launched as: node /home/ada/src/mcp-servers/src/server-everything/dist/index.js stdio"
                .into(),
        ),
        offer_retry: false,
        connecting: true,
        call: None,
        stderr: None,
    };
    let extra = "Press Ctrl-C again to quit (the remaining requests will be cancelled).";
    let mut t = Terminal::new(TestBackend::new(80, 12)).expect("terminal");
    t.draw(|f| view::draw_wait(f, &theme(), 0, &shown, Some(extra)))
        .expect("draw");
    let text = screen_text(t.backend());
    let squashed: String = text.chars().filter(|c| !c.is_whitespace()).collect();
    let want: String = extra.chars().filter(|c| !c.is_whitespace()).collect();
    assert!(squashed.contains(&want), "{text}");
    assert!(text.contains("Connecting to the server…"), "{text}");
    assert!(text.contains("index.js stdio"), "{text}");
}

/// What the form leaves out of a schema is said in words, not pointers.
#[test]
fn what_the_form_leaves_out_is_said_in_words() {
    assert_eq!(view::ignored_words("/title", None), "the form's title");
    assert_eq!(
        view::ignored_words("/title", Some("Booking")),
        "the title \"Booking\""
    );
    let long = "d".repeat(80);
    let cut = view::ignored_words("/description", Some(&long));
    assert_eq!(cut, format!("the description \"{}…\"", "d".repeat(59)));
    assert_eq!(
        view::ignored_words("/properties/age/examples", None),
        "examples of the field age"
    );
    assert_eq!(view::ignored_words("/$defs/x/y", None), "/$defs/x/y");
}

/// A server whose title imitates the program's own heading ("ahp-elicit —
/// Confirm your password") cannot pass for it: the header's first row
/// always starts with our label saying the server named itself so, and
/// the server's words are drawn in the style of server text (the body's),
/// never in the title style of our own labels; on a narrow screen too.
#[test]
fn a_server_title_imitating_our_heading_is_labelled_as_the_servers() {
    let s = schema(json!({"pw": {"type": "string", "title": "Name"}}), &[]);
    let form = Form::new(&s, "");
    let mut h = header();
    h.server_name = "ahp-elicit".into();
    h.server_title = Some("ahp-elicit — Confirm your password".into());
    h.server_version = None;
    let theme = theme();
    for (w, rows) in [(80, 24), (40, 12)] {
        let b = draw_form(&form, &h, w, rows);
        let buf = b.buffer();
        let first: String = (0..w).map(|x| buf[(x, 0)].symbol().to_owned()).collect();
        assert!(
            first.starts_with("Server: ahp-elicit"),
            "{w}x{rows}: {first:?}"
        );
        let label = "Server: ".len() as u16;
        assert_eq!(buf[(0, 0)].fg, theme.title().fg.expect("title colour"));
        for x in label..label + 10 {
            assert_eq!(
                buf[(x, 0)].fg,
                theme.text().fg.unwrap_or_default(),
                "{w}x{rows} column {x}"
            );
            assert!(!buf[(x, 0)]
                .modifier
                .contains(ratatui::style::Modifier::BOLD));
        }
    }
}
