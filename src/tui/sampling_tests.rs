//! A server's `sampling/createMessage` on the form screen: the request
//! written out as the server's message (every part of it escaped), the
//! header saying the person writes the model's reply, and a reply of
//! several lines sent from the review.

use ratatui::backend::TestBackend;
use ratatui::Terminal;
use serde_json::json;

use super::form::FormScreen;
use super::header::Header;
use super::{Screen, Step, Theme};
use crate::binding::{
    wrap_request, Action, RequestBody, RequestView, SchemaPolicy, Server, WrapOptions,
};
use crate::form::Key;
use crate::mcp::sampling::{mark, sampling_params};
use crate::responder::{Outcome, Progress};

/// The form screen of a sampling request with hostile text in every part
/// the server writes: a right-to-left override, a colour escape, a title
/// (OSC) escape with BEL, a C1 control.
fn hostile_screen() -> FormScreen {
    let params = json!({
        "messages": [
            {"role": "user", "content": {"type": "text",
                "text": "Capital of France?\u{202e}txt.exe\u{1b}[31m red"}},
            {"role": "assistant\u{1b}]0;owned\u{7}", "content": {"type": "text", "text": "Thinking\u{9b}2J"}}
        ],
        "systemPrompt": "Be brief.\u{1b}[2J\u{2066}hidden",
        "modelPreferences": {"hints": [{"name": "cla\u{1b}[1mude"}], "costPriority": 0.2},
        "maxTokens": 64,
        "tools": [{"name": "look\u{202e}up", "description": "Find\u{1b}[5m it", "inputSchema": {"type": "object"}}]
    });
    let server = Server {
        name: "py-sampling".into(),
        title: None,
        version: Some("1.0.0".into()),
    };
    let options = WrapOptions {
        policy: SchemaPolicy::Compatible,
        ..WrapOptions::new(&server, "mcp-stdio", "run-1")
    };
    let mut req = wrap_request(&sampling_params(&params), &options).expect("a form");
    mark(&mut req, &params);
    let header = Header::of(&req, Progress::of(1, 1));
    assert!(header.sampling);
    let RequestView::Body(r) = &req.view else {
        panic!("a body")
    };
    let RequestBody::Form(s) = &r.body else {
        panic!("a form")
    };
    FormScreen::new(header, s, &r.message)
}

fn draw(screen: &mut FormScreen, w: u16, h: u16) -> TestBackend {
    let mut t = Terminal::new(TestBackend::new(w, h)).expect("terminal");
    t.draw(|f| {
        screen.draw(f, &Theme::monochrome(), None);
    })
    .expect("draw");
    t.backend().clone()
}

#[test]
fn a_sampling_request_is_shown_escaped_and_the_reply_is_sent_from_the_review() {
    let mut screen = hostile_screen();
    let shown = draw(&mut screen, 100, 30);
    let text: String = shown
        .buffer()
        .content()
        .iter()
        .map(|c| c.symbol())
        .collect();
    for raw in ['\u{1b}', '\u{7}', '\u{9b}', '\u{202e}', '\u{2066}'] {
        assert!(!text.contains(raw), "{raw:?} reached the screen");
    }
    insta::assert_snapshot!("sampling_request_hostile", shown);
    // Two lines of reply (Alt-Enter between them), Ctrl-S, the review,
    // Enter.
    for k in "Paris".chars() {
        screen.key(&Key::Char(k));
    }
    screen.key(&Key::Alt('\n'));
    for k in "(a guess)".chars() {
        screen.key(&Key::Char(k));
    }
    screen.key(&Key::Ctrl('s'));
    let review = draw(&mut screen, 100, 30);
    insta::assert_snapshot!("sampling_review", review);
    match screen.key(&Key::Enter) {
        Step::Done(Outcome::Answer(a)) => {
            assert_eq!(a.action, Action::Accept);
            assert_eq!(
                a.content.and_then(|c| c.get("reply").cloned()),
                Some(json!("Paris\n(a guess)"))
            );
        }
        _ => panic!("the review sends"),
    }
}
