//! Hostile server text on the wire to the terminal: each request screen
//! (form, URL consent, refusable) is drawn through the real crossterm
//! backend into a byte buffer, and those bytes are checked and fed to a
//! vt100 terminal emulator. A `TestBackend` buffer cannot show this: its
//! cells drop control characters by themselves, so only the bytes prove
//! that no escape sequence, C1 control or bidi override from the server
//! reaches the terminal, and that the escaped form (`\u{1b}`) is what the
//! person sees instead.
#![cfg(feature = "cli")]

use ahp_elicit::binding::{form_schema::parse_form_schema, Mode};
use ahp_elicit::form::Form;
use ahp_elicit::safe_text;
use ahp_elicit::tui::not_a_form_lines;
use ahp_elicit::tui::url_view::{self, UrlViewState};
use ahp_elicit::tui::view::{self, Header};
use ahp_elicit::url_review::review;
use ratatui::backend::CrosstermBackend;
use ratatui::layout::Rect;
use ratatui::{Frame, Terminal, TerminalOptions, Viewport};
use serde_json::json;

use crate::support::{form_header, theme, Sink};
use std::num::NonZeroU16;

/// Server text that tries every way out: CSI (colour, device status
/// report, leaving the alternate screen), 8-bit CSI and NEL (C1), OSC 8
/// hyperlink, OSC 52 clipboard write, OSC 0 window title, BEL, and bidi
/// override and isolate. Words are separated by spaces so each can be
/// found on screen even when the text wraps.
const HOSTILE: &str = "A\u{1b}[31mred\u{1b}[0m B\u{202e}txt.exe C\u{9b}6n \
D\u{1b}]8;;https://evil.test/\u{7}link\u{1b}]8;;\u{7} E\u{1b}]52;c;aGk=\u{7} \
F\u{1b}[6n G\u{1b}]0;pwned\u{1b}\\ H\u{85}I\u{2067}J\u{7} K\u{1b}[?1049l";

/// What the emulator saw happen besides drawing cells.
#[derive(Debug, Default)]
struct Seen {
    titles: usize,
    clipboard: usize,
    bells: usize,
    unhandled: Vec<String>,
}

impl vt100::Callbacks for Seen {
    fn audible_bell(&mut self, _: &mut vt100::Screen) {
        self.bells += 1;
    }
    fn set_window_title(&mut self, _: &mut vt100::Screen, _: &[u8]) {
        self.titles += 1;
    }
    fn set_window_icon_name(&mut self, _: &mut vt100::Screen, _: &[u8]) {
        self.titles += 1;
    }
    fn copy_to_clipboard(&mut self, _: &mut vt100::Screen, _: &[u8], _: &[u8]) {
        self.clipboard += 1;
    }
    fn unhandled_osc(&mut self, _: &mut vt100::Screen, params: &[&[u8]]) {
        self.unhandled.push(format!("OSC {params:?}"));
    }
    fn unhandled_control(&mut self, _: &mut vt100::Screen, b: u8) {
        self.unhandled.push(format!("control {b:#x}"));
    }
    fn unhandled_csi(
        &mut self,
        _: &mut vt100::Screen,
        i1: Option<u8>,
        i2: Option<u8>,
        params: &[&[u16]],
        c: char,
    ) {
        // An SGR the emulator does not know (crossterm resets the underline
        // colour with `CSI 59 m`) is still only a style.
        if c == 'm' && (i1, i2) == (None, None) {
            return;
        }
        self.unhandled
            .push(format!("CSI {i1:?} {i2:?} {params:?} {c}"));
    }
}

/// The bytes the real backend writes for one frame of `w`x`h`.
fn frame_bytes(w: u16, h: u16, draw: impl FnOnce(&mut Frame)) -> Vec<u8> {
    let options = TerminalOptions {
        viewport: Viewport::Fixed(Rect::new(0, 0, w, h)),
    };
    let sink = Sink::default();
    let mut t = Terminal::with_options(CrosstermBackend::new(sink.clone()), options)
        .expect("terminal over a byte buffer");
    t.draw(draw).expect("draw");
    drop(t);
    let bytes = sink.0.borrow().clone();
    bytes
}

/// Every escape sequence in `bytes` (from ESC up to and including its
/// final byte, or to the end when it never ends).
fn escape_sequences(bytes: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = bytes;
    while let Some(at) = rest.find('\u{1b}') {
        let seq = &rest[at..];
        let end = seq
            .char_indices()
            .skip(2)
            .find(|(_, c)| ('@'..='~').contains(c))
            .map_or(seq.len(), |(i, c)| i + c.len_utf8());
        out.push(seq[..end].to_owned());
        rest = &seq[end..];
    }
    out
}

/// The sequences a ratatui frame is made of: cursor moves, SGR styles,
/// cursor show/hide and line clears. Nothing that reports, links, copies
/// or names a window.
fn drawing_sequence(s: &str) -> bool {
    let Some(body) = s.strip_prefix("\u{1b}[") else {
        return false;
    };
    let (params, last) = body.split_at(body.len().saturating_sub(1));
    match last {
        "H" => params.chars().all(|c| c.is_ascii_digit() || c == ';'),
        "m" => params
            .chars()
            .all(|c| c.is_ascii_digit() || c == ';' || c == ':'),
        "h" | "l" => params == "?25",
        "K" | "J" => matches!(params, "" | "0" | "2"),
        _ => false,
    }
}

/// `text` without white space (wrapping and padding moved apart).
fn squash(text: &str) -> String {
    text.chars().filter(|c| !c.is_whitespace()).collect()
}

/// Check one frame's bytes: only drawing sequences, no other unsafe
/// character, nothing the emulator acts on besides cells. Returns the
/// screen as the emulator shows it.
fn assert_no_escape(bytes: &[u8], w: u16, h: u16) -> String {
    let text = std::str::from_utf8(bytes).expect("the terminal gets UTF-8");
    for seq in escape_sequences(text) {
        assert!(drawing_sequence(&seq), "not a drawing sequence: {seq:?}");
    }
    let stray: Vec<char> = text
        .chars()
        .filter(|&c| safe_text::is_unsafe(c) && c != '\u{1b}')
        .collect();
    assert_eq!(stray, Vec::<char>::new(), "raw control or bidi characters");
    for bad in [
        "pwned\u{1b}",
        "\u{1b}]",
        "\u{1b}[6n",
        "\u{1b}[31m",
        "\u{1b}[?1049l",
    ] {
        assert!(!text.contains(bad), "{bad:?} reached the terminal");
    }

    let size = |n: u16| NonZeroU16::new(n).expect("a screen is not empty");
    let mut vt = vt100::Parser::new_with_callbacks(size(h), size(w), 0, Seen::default());
    vt.process(bytes);
    let seen = vt.callbacks();
    assert_eq!(
        (seen.titles, seen.clipboard, seen.bells),
        (0, 0, 0),
        "title, clipboard, bell"
    );
    assert_eq!(seen.unhandled, Vec::<String>::new());
    vt.screen().contents()
}

/// [`assert_no_escape`], then every word of [`HOSTILE`] is on screen in
/// its escaped form. Returns the screen text.
fn assert_safe_frame(bytes: &[u8], w: u16, h: u16) -> String {
    let screen = assert_no_escape(bytes, w, h);
    let shown = squash(&screen);
    for word in HOSTILE.split(' ') {
        let escaped = squash(&safe_text::display(word));
        assert!(
            shown.contains(&escaped),
            "{escaped:?} not on screen:\n{screen}"
        );
    }
    screen
}

fn hostile_header(mode: Mode) -> Header {
    Header {
        server_title: Some("Evil\u{1b}[2J\u{202e}".into()),
        server_version: Some("1\u{9b}2J".into()),
        mode,
        ..form_header("evil\u{1b}]0;pwned\u{7}")
    }
}

#[test]
fn form_screen_bytes_carry_no_server_escape() {
    let schema = parse_form_schema(
        &json!({"type": "object", "properties": {
            "pick": {"type": "string", "enum": ["a\u{1b}[6n", "b\u{202e}"]},
            "token": {"type": "string", "title": HOSTILE, "description": HOSTILE},
        }}),
        "/requestedSchema",
    )
    .expect("valid schema");
    let form = Form::new(&schema, HOSTILE);
    let (w, h) = (100, 40);
    let bytes = frame_bytes(w, h, |f| {
        let mut scroll = 0;
        view::draw_form(f, &theme(), &hostile_header(Mode::Form), &form, &mut scroll)
    });
    let screen = assert_safe_frame(&bytes, w, h);
    // The header's server text is escaped too.
    assert!(screen.contains("Evil\\u{1b}[2J\\u{202e}"), "{screen}");
    assert!(screen.contains("1\\u{9b}2J"), "{screen}");
    // The option values (the focused list shows them) are the server's
    // as well.
    assert!(screen.contains("a\\u{1b}[6n"), "{screen}");
    assert!(screen.contains("b\\u{202e}"), "{screen}");
}

#[test]
fn url_consent_bytes_carry_no_server_escape() {
    let url = "https://evil.test/\u{202e}gpj.exe?\u{1b}]52;c;aGk=\u{7}";
    let state = UrlViewState::new(
        review(url),
        HOSTILE,
        "Evil\u{1b}[2J\u{202e} (evil\u{9b}6n)",
        "mcp-stdio",
        "request 1 of 1",
    );
    let (w, h) = (100, 60);
    let bytes = frame_bytes(w, h, |f| url_view::draw(f, f.area(), &state, &theme()));
    let screen = assert_safe_frame(&bytes, w, h);
    // The URL as sent, escaped, and the server label.
    let shown = squash(&screen);
    assert!(
        shown.contains("https://evil.test/\\u{202e}gpj.exe?\\u{1b}]52;c;aGk=\\u{7}"),
        "{screen}"
    );
    assert!(shown.contains("Evil\\u{1b}[2J\\u{202e}"), "{screen}");
}

#[test]
fn refusable_screen_bytes_carry_no_server_escape() {
    let reasons: Vec<String> = HOSTILE.split(' ').map(str::to_owned).collect();
    let mut lines = not_a_form_lines(HOSTILE, &reasons);
    lines.push((HOSTILE.to_owned(), true));
    let (w, h) = (100, 40);
    let bytes = frame_bytes(w, h, |f| {
        let mut scroll = 0;
        view::draw_refusable(
            f,
            &theme(),
            &hostile_header(Mode::Form),
            &lines,
            0,
            &mut scroll,
        )
    });
    let screen = assert_safe_frame(&bytes, w, h);
    assert!(screen.contains("Evil\\u{1b}[2J\\u{202e}"), "{screen}");
}

#[test]
fn the_checks_see_a_raw_escape() {
    // The same checks on text that was not escaped: they must fail, or
    // they prove nothing.
    let raw = std::panic::catch_unwind(|| {
        let bytes = frame_bytes(60, 5, |f| {
            f.render_widget(ratatui::text::Text::raw("x"), f.area());
        });
        let mut with = bytes.clone();
        with.extend_from_slice("\u{1b}]52;c;aGk=\u{7}".as_bytes());
        assert_no_escape(&with, 60, 5)
    });
    assert!(raw.is_err(), "an OSC 52 in the bytes must be caught");
    let bidi = std::panic::catch_unwind(|| {
        let mut bytes = frame_bytes(60, 5, |_| {});
        bytes.extend_from_slice("\u{202e}".as_bytes());
        assert_no_escape(&bytes, 60, 5)
    });
    assert!(bidi.is_err(), "a raw bidi override must be caught");
    // And a frame of plain text passes.
    let plain = frame_bytes(60, 5, |f| {
        f.render_widget(ratatui::text::Text::raw("plain words"), f.area());
    });
    assert!(assert_no_escape(&plain, 60, 5).contains("plain words"));
}
