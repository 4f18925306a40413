//! Helpers shared by the screen tests of this target (screens, sdk_forms,
//! terminal_bytes, terminal_use, wide_glyphs): a form's header, the
//! default theme, and a byte sink a real terminal backend writes into.

use std::cell::RefCell;
use std::io::Write;
use std::rc::Rc;

use ahp_elicit::binding::Mode;
use ahp_elicit::responder::Progress;
use ahp_elicit::tui::view::Header;
use ahp_elicit::tui::Theme;

/// The header of request 1 of 1, a form from server `name` over
/// `mcp-stdio`, with nothing else to say (no title, version, deadline,
/// launch, call or banner). A test changes what it needs with
/// `Header { field, ..form_header(name) }`.
pub fn form_header(name: &str) -> Header {
    Header {
        server_name: name.into(),
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
        arguments_for: None,
        sampling: false,
    }
}

/// The built-in default theme.
pub fn theme() -> Theme {
    Theme::builtin("default").expect("the built-in default theme")
}

/// A writer whose bytes stay readable after a terminal backend took it
/// (clone it before, read `.0` after).
#[derive(Clone, Default)]
pub struct Sink(pub Rc<RefCell<Vec<u8>>>);

impl Write for Sink {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.borrow_mut().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}
