//! The protocol view's drawing (snapshots), keys and saving.

use super::*;
use crate::responder::trace::Direction;
use serde_json::json;

/// A trace of a short session: tools/list and its answer, a call with
/// an elicitation on the way, an error.
fn session() -> Trace {
    let t = Trace::default();
    let msgs = [
        (
            Direction::Out,
            json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}),
        ),
        (
            Direction::In,
            json!({"jsonrpc": "2.0", "id": 1, "result": {"tools": [{"name": "book\u{1b}[2J", "inputSchema": {"type": "object"}}]}}),
        ),
        (
            Direction::Out,
            json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "book", "arguments": {"city": "Paris"}}}),
        ),
        (
            Direction::In,
            json!({"jsonrpc": "2.0", "id": 0, "method": "elicitation/create", "params": {"message": "Guests?", "requestedSchema": {"type": "object", "properties": {}}}}),
        ),
        (
            Direction::Out,
            json!({"jsonrpc": "2.0", "id": 0, "result": {"action": "accept", "content": {}}}),
        ),
        (
            Direction::In,
            json!({"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": 2, "progress": 1}}),
        ),
        (
            Direction::In,
            json!({"jsonrpc": "2.0", "id": 2, "error": {"code": -32602, "message": "unknown tool"}}),
        ),
    ];
    for (i, (d, m)) in msgs.into_iter().enumerate() {
        t.record_at(d, &m, std::time::Duration::from_millis(12 * i as u64 + 3));
    }
    t
}

fn entries(t: &Trace) -> Vec<Entry> {
    t.entries()
}

fn draw_view(view: &mut ProtocolView, entries: &[Entry], w: u16, h: u16) -> TestBackend {
    let mut t = Terminal::new(TestBackend::new(w, h)).expect("terminal");
    let theme = Theme::monochrome();
    t.draw(|f| view.draw(f, &theme, entries, 0, false))
        .expect("draw");
    t.backend().clone()
}

fn text(b: &TestBackend) -> String {
    let buf = b.buffer();
    let w = buf.area.width as usize;
    buf.content()
        .chunks(w)
        .map(|row| row.iter().map(|c| c.symbol()).collect::<String>())
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn the_view_lists_every_message_and_follows_the_last() {
    let t = session();
    let e = entries(&t);
    let mut view = ProtocolView::default();
    let b = draw_view(&mut view, &e, 90, 12);
    let shown = text(&b);
    assert!(
        shown.contains("Protocol: 7 messages · following"),
        "{shown}"
    );
    assert!(shown.contains("tools/list #1"), "{shown}");
    assert!(shown.contains("error -32602"), "{shown}");
    // The response names its request's method; server text is escaped.
    assert!(!shown.contains('\u{1b}'), "{shown}");
    insta::assert_snapshot!("protocol_view", b);
    // Up leaves the end: the view no longer follows.
    assert_eq!(view.key(&Key::Up, &e), ViewStep::Continue);
    assert!(!text(&draw_view(&mut view, &e, 90, 12)).contains("following"));
    assert_eq!(view.key(&Key::End, &e), ViewStep::Continue);
    assert!(text(&draw_view(&mut view, &e, 90, 12)).contains("following"));
    assert_eq!(view.key(&PROTOCOL, &e), ViewStep::Back);
    assert_eq!(view.key(&Key::Char('s'), &e), ViewStep::Beside);
    // w asks where, starting from the default; typing edits it.
    assert_eq!(view.key(&Key::Char('w'), &e), ViewStep::Continue);
    let asked = text(&draw_view(&mut view, &e, 90, 12));
    assert!(asked.contains("Save the trace to: "), "{asked}");
    assert!(asked.contains("ahp-elicit-trace-"), "{asked}");
    for k in [
        Key::Ctrl('u'),
        Key::Char('t'),
        Key::Char('.'),
        Key::Char('j'),
    ] {
        assert_eq!(view.key(&k, &e), ViewStep::Continue);
    }
    assert_eq!(
        view.key(&Key::Enter, &e),
        ViewStep::SaveTo(std::path::PathBuf::from("t.j"))
    );
    assert_eq!(view.key(&Key::Char('w'), &e), ViewStep::Continue);
    assert_eq!(view.key(&Key::Esc, &e), ViewStep::Continue);
    assert_eq!(view.key(&Key::Esc, &e), ViewStep::Back);
}

#[test]
fn enter_shows_a_body_as_pretty_escaped_json_and_esc_goes_back() {
    let t = session();
    let e = entries(&t);
    let mut view = ProtocolView::default();
    draw_view(&mut view, &e, 90, 12);
    for k in [Key::Home, Key::Down, Key::Enter] {
        view.key(&k, &e);
    }
    let b = draw_view(&mut view, &e, 90, 12);
    let shown = text(&b);
    assert!(shown.contains("Message 2:"), "{shown}");
    assert!(shown.contains("\"name\": \"book\\u001b[2J\""), "{shown}");
    insta::assert_snapshot!("protocol_body", b);
    assert_eq!(view.key(&Key::Esc, &e), ViewStep::Continue);
    assert!(text(&draw_view(&mut view, &e, 90, 12)).contains("Protocol: 7 messages"));
}

#[test]
fn the_trace_beside_a_screen_leaves_the_screen_its_columns_and_cursor() {
    let t = Arc::new(session());
    let p = Protocol {
        trace: Arc::clone(&t),
        beside: true,
    };
    let mut term = Terminal::new(TestBackend::new(140, 12)).expect("terminal");
    let theme = Theme::monochrome();
    let mut seen = None;
    term.draw(|f| {
        draw_beside(f, &theme, &p, |g| {
            seen = Some(g.area());
            g.render_widget(Paragraph::new("Guests: 4"), g.area());
            g.set_cursor_position((9, 0));
        })
    })
    .expect("draw");
    assert_eq!(seen, Some(Rect::new(0, 0, 80, 12)));
    term.backend_mut().assert_cursor_position((9, 0));
    let shown = text(term.backend());
    assert!(shown.contains("Protocol · Ctrl-P"), "{shown}");
    assert!(shown.contains("tools/call #2 error -32602"), "{shown}");
    insta::assert_snapshot!("protocol_beside", term.backend());
    // Narrower: the screen has the whole width.
    let mut narrow = Terminal::new(TestBackend::new(139, 12)).expect("terminal");
    narrow
        .draw(|f| draw_beside(f, &theme, &p, |g| seen = Some(g.area())))
        .expect("draw");
    assert_eq!(seen, Some(Rect::new(0, 0, 139, 12)));
}

#[test]
fn w_saves_json_lines_privately_and_says_where() {
    let t = session();
    let dir = std::env::temp_dir().join(format!("ahp-trace-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let path = dir.join("t.jsonl");
    let said = save(&t, &path);
    assert!(said.starts_with("Saved 7 messages to "), "{said}");
    let text = std::fs::read_to_string(&path).expect("saved");
    let lines: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect();
    assert_eq!(lines.len(), 7);
    assert_eq!(lines[1]["method"], json!("tools/list"));
    assert_eq!(lines[1]["direction"], json!("in"));
    assert_eq!(lines[6]["code"], json!(-32602));
    assert_eq!(lines[0]["message"]["method"], json!("tools/list"));
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(&path).expect("meta").permissions().mode();
    assert_eq!(mode & 0o777, 0o600);
    let _ = std::fs::remove_dir_all(&dir);
}

/// The selected message stays selected while older ones are dropped and
/// new ones come; on the last row the view follows.
#[test]
fn the_selection_holds_its_message_while_the_ring_moves() {
    let t = Trace::new(4, 1024);
    let note = |i: u64| json!({"jsonrpc": "2.0", "method": format!("n/{i}")});
    for i in 1..=4 {
        t.record_at(Direction::In, &note(i), std::time::Duration::from_millis(i));
    }
    let mut view = ProtocolView::default();
    view.key(&Key::Up, &t.entries());
    view.key(&Key::Up, &t.entries());
    // n/2 selected; two more come, n/1 and n/2 are dropped: the first kept
    // row is selected, and the view does not follow.
    for i in 5..=6 {
        t.record_at(Direction::In, &note(i), std::time::Duration::from_millis(i));
    }
    let e = t.entries();
    assert_eq!(view.at(&e), 0);
    view.key(&Key::Down, &e);
    assert_eq!(e[view.at(&e)].method.as_deref(), Some("n/4"));
    t.record_at(Direction::In, &note(7), std::time::Duration::from_millis(7));
    let e = t.entries();
    assert_eq!(e[view.at(&e)].method.as_deref(), Some("n/4"));
    view.key(&Key::End, &e);
    t.record_at(Direction::In, &note(8), std::time::Duration::from_millis(8));
    let e = t.entries();
    assert_eq!(e[view.at(&e)].method.as_deref(), Some("n/8"));
}

/// The session's roots are in the view, under its title, whether or not
/// the server asked for them; escaped as the session says them.
#[test]
fn the_view_names_the_roots_offered_to_the_server() {
    let t = session();
    let dir = tempfile::tempdir().expect("dir");
    let sub = dir.path().join("my project");
    std::fs::create_dir(&sub).expect("mkdir");
    let root = crate::mcp::roots::Root::parse(sub.to_str().expect("utf-8")).expect("root");
    t.set_roots(crate::mcp::roots::summary(&[root]));
    let e = entries(&t);
    let mut view = ProtocolView {
        roots: t.roots(),
        ..ProtocolView::default()
    };
    let shown = text(&draw_view(&mut view, &e, 120, 12));
    let lines: Vec<&str> = shown.lines().collect();
    assert!(lines[0].starts_with("Protocol: 7 messages"), "{shown}");
    assert!(
        lines[1].starts_with("roots offered to the server: my project (file:///"),
        "{shown}"
    );
    assert!(lines[1].contains("my%20project)"), "{shown}");
    // Not over a message's body.
    assert_eq!(view.key(&Key::Enter, &e), ViewStep::Continue);
    let body = text(&draw_view(&mut view, &e, 120, 12));
    assert!(!body.contains("roots offered"), "{body}");
}
