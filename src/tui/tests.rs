//! What the screens' tests share (a header, a frame drawn on a test
//! backend, the action a key decided), the header as a screen draws it,
//! and the loop's own rules.

use ratatui::backend::TestBackend;
use ratatui::Terminal;

use super::refusable::RefusableScreen;
use super::*;
use crate::binding::Mode;

pub(super) fn header() -> Header {
    Header {
        server_name: "srv".into(),
        server_title: None,
        server_version: None,
        adapter: "mcp-stdio".into(),
        mode: Mode::Url,
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

/// The action a step decides, or None while the screen stays.
pub(super) fn decided(step: Step) -> Option<Action> {
    match step {
        Step::Done(Outcome::Answer(a)) => Some(a.action),
        Step::Done(Outcome::Quit) => panic!("a screen never quits"),
        Step::Continue => None,
    }
}

/// Draw `screen` once at 80x24 with `secs` left; returns the top row and
/// whether the screen said it showed the request whole.
pub(super) fn frame(screen: &mut dyn Screen, secs: Option<u64>) -> (String, bool) {
    let clock = secs.map(|left| Clock { left, extend: 30 });
    let mut t = Terminal::new(TestBackend::new(80, 24)).expect("terminal");
    let theme = Theme::monochrome();
    let mut whole = false;
    t.draw(|f| whole = screen.draw(f, &theme, clock))
        .expect("draw");
    let buf = t.backend().buffer();
    let top: String = (0..80).map(|x| buf[(x, 0)].symbol().to_owned()).collect();
    (top.trim_end().to_owned(), whole)
}

/// `screen`'s first frame at `w`x`h`, as text rows.
pub(super) fn rows_at(screen: &mut dyn Screen, w: u16, h: u16) -> Vec<String> {
    let mut t = Terminal::new(TestBackend::new(w, h)).expect("terminal");
    let theme = Theme::monochrome();
    t.draw(|f| {
        screen.draw(f, &theme, None);
    })
    .expect("draw");
    let buf = t.backend().buffer();
    (0..h)
        .map(|y| (0..w).map(|x| buf[(x, y)].symbol()).collect::<String>())
        .collect()
}

/// The first row of `screen` drawn at `w`x10 with `left` seconds left
/// and `extend` seconds on the extend key.
fn top_at(screen: &mut dyn Screen, w: u16, left: u64, extend: u64) -> String {
    let mut t = Terminal::new(TestBackend::new(w, 10)).expect("terminal");
    let theme = Theme::monochrome();
    t.draw(|f| {
        screen.draw(f, &theme, Some(Clock { left, extend }));
    })
    .expect("draw");
    let buf = t.backend().buffer();
    let top: String = (0..w).map(|x| buf[(x, 0)].symbol()).collect();
    top.trim_end().to_owned()
}

/// A long limit is shown in hours and minutes, and a narrow header
/// shortens its counts so the server's name stays before them.
#[test]
fn a_narrow_header_keeps_the_server_name_and_long_times_read_as_hours() {
    let lines = vec![("Why.".to_owned(), true)];
    let mut wide = RefusableScreen::new(header(), lines.clone());
    assert_eq!(
        top_at(&mut wide, 80, 7199, 7200),
        format!(
            "Server: srv{}request 1 of 1 · 1h59m left · Ctrl-T +2h00m",
            " ".repeat(26)
        )
    );
    let mut h = header();
    h.server_name = "weather-server".into();
    let mut narrow = RefusableScreen::new(h.clone(), lines.clone());
    assert_eq!(
        top_at(&mut narrow, 40, 42, 60),
        format!("Server: weather-server{}1/1 · 42s left", " ".repeat(4))
    );
    let mut narrow = RefusableScreen::new(h, lines);
    assert_eq!(
        top_at(&mut narrow, 40, 8_639_999, 8_640_000),
        "Server: weather-server 1/1 · 99d23h left"
    );
}

/// A Ctrl-N block is kept by the launch: a server that re-initializes
/// under a new name is still blocked; another launch under the same
/// name is not. Without a launch, the name tells servers apart.
#[test]
fn a_block_is_kept_by_the_launch_not_the_name() {
    let blocked = ("npx srv".to_owned(), "srv".to_owned());
    assert!(same_server(&blocked, &("npx srv".into(), "renamed".into())));
    assert!(!same_server(&blocked, &("npx other".into(), "srv".into())));
    let unlaunched = (String::new(), "srv".to_owned());
    assert!(same_server(&unlaunched, &(String::new(), "srv".into())));
    assert!(!same_server(&unlaunched, &(String::new(), "other".into())));
}

#[test]
fn a_long_launch_command_is_cut_with_an_ellipsis_in_the_ctrl_n_report() {
    let long = format!("npx -y {}", "x".repeat(80));
    let label = blocked_label(&long, "srv");
    assert!(label.starts_with("srv (npx -y xxx"), "{label}");
    assert!(label.ends_with("x…)"), "{label}");
    assert_eq!(text::width(&label), "srv ()".len() + BLOCKED_LAUNCH_COLS);
    // Short: whole; none: the name alone; hostile text sanitized.
    assert_eq!(blocked_label("npx srv", "srv"), "srv (npx srv)");
    assert_eq!(blocked_label("", "srv"), "srv");
    assert_eq!(blocked_label("a\u{1b}[2J", "s"), "s (a\\u{1b}[2J)");
}
