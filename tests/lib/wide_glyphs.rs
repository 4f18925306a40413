//! Wide glyphs draw clean: flag (regional indicator pairs), ZWJ and VS16
//! emoji in titles, labels and values leave no stale cells when the focus
//! moves or a list scrolls. The frames are drawn by the real crossterm
//! backend into bytes and read by a terminal emulator model (`vt100`),
//! frame after frame on one screen, as a terminal would; after every frame
//! the emulator's screen must match what ratatui meant to draw.

#![cfg(feature = "tui")]

use std::cell::RefCell;
use std::io::Write;
use std::num::NonZeroU16;
use std::rc::Rc;

use ahp_elicit::binding::{form_schema::parse_form_schema, Mode};
use ahp_elicit::form::{Form, Key};
use ahp_elicit::responder::Progress;
use ahp_elicit::tui::view::{self, Header};
use ahp_elicit::tui::Theme;
use ratatui::backend::CrosstermBackend;
use ratatui::layout::Rect;
use ratatui::{Terminal, TerminalOptions, Viewport};
use serde_json::json;

#[derive(Clone, Default)]
struct Sink(Rc<RefCell<Vec<u8>>>);

impl Write for Sink {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.borrow_mut().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

fn header() -> Header {
    Header {
        server_name: "glyphs 🇫🇷".into(),
        server_title: None,
        server_version: None,
        adapter: "mcp-stdio".into(),
        mode: Mode::Form,
        progress: Progress::of(1, 1),
        seconds_left: None,
        extend_secs: None,
        launched: None,
        call: None,
        banner: None,
    }
}

const W: u16 = 60;
const H: u16 = 24;

#[test]
fn moving_through_emoji_options_leaves_no_stale_cells() {
    let schema = parse_form_schema(
        &json!({"type": "object", "properties": {
            "flag": {"type": "string", "title": "Country 🇫🇷 ❤️ 👩‍💻",
                "oneOf": [
                    {"const": "fr", "title": "France 🇫🇷"},
                    {"const": "jp", "title": "Japan 🇯🇵 ❤️"},
                    {"const": "dev", "title": "Dev 👩‍💻 team"},
                    {"const": "love", "title": "❤️❤️❤️ hearts"},
                    {"const": "x", "title": "plain"},
                    {"const": "th", "title": "🏳️‍🌈 pride"},
                    {"const": "a", "title": "ascii a"},
                    {"const": "b", "title": "ascii b"},
                    {"const": "c", "title": "ascii c"},
                    {"const": "d", "title": "ascii d"},
                    {"const": "e", "title": "ascii e"},
                    {"const": "f", "title": "ascii f"}
                ]},
            "note": {"type": "string", "title": "Note ❤️", "default": "🇯🇵❤️x"}
        }}),
        "/requestedSchema",
    )
    .expect("valid schema");
    let mut form = Form::new(&schema, "Pick one 🇫🇷❤️");
    let theme = Theme::monochrome();
    let sink = Sink::default();
    let options = TerminalOptions {
        viewport: Viewport::Fixed(Rect::new(0, 0, W, H)),
    };
    let mut t = Terminal::with_options(CrosstermBackend::new(sink.clone()), options)
        .expect("terminal over a byte buffer");
    let mut vt = vt100::Parser::new(NonZeroU16::new(H).unwrap(), NonZeroU16::new(W).unwrap(), 0);
    let keys = [
        Key::Down,
        Key::Down,
        Key::Down,
        Key::Down,
        Key::Down,
        Key::Down,
        Key::Down,
        Key::Down,
        Key::Down,
        Key::Up,
        Key::Up,
        Key::Up,
        Key::Up,
        Key::Up,
        Key::Up,
        Key::Tab,
        Key::BackTab,
        Key::Tab,
    ];
    let mut scroll = 0;
    for (step, k) in std::iter::once(None)
        .chain(keys.iter().map(Some))
        .enumerate()
    {
        if let Some(k) = k {
            form.handle_key(k);
        }
        let completed = t
            .draw(|f| {
                view::draw_form(f, &theme, &header(), &form, &mut scroll);
                // As the terminal front end does with every frame.
                ahp_elicit::tui::text::settle_wide(f.buffer_mut());
            })
            .expect("draw");
        let buf = completed.buffer.clone();
        let bytes = std::mem::take(&mut *sink.0.borrow_mut());

        vt.process(&bytes);
        for y in 0..H {
            let mut want = String::new();
            let mut skip = 0;
            for x in 0..W {
                let c = &buf[(x, y)];
                if skip > 0 {
                    skip -= 1;
                    continue;
                }
                want.push_str(c.symbol());
                skip = unicode_width::UnicodeWidthStr::width(c.symbol()).saturating_sub(1);
            }
            let got = vt
                .screen()
                .rows(0, W)
                .nth(usize::from(y))
                .unwrap_or_default();
            assert_eq!(
                got.trim_end(),
                want.trim_end(),
                "step {step}, row {y}:\n{}",
                vt.screen().contents()
            );
        }
    }
}
