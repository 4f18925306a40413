//! Property test of the form state machine (for the form
//! model): for the every-kind form and any key sequence, no panic, and every
//! accepted content validates against its request (the binding's
//! `check_content`).

use crate::common;

use ahp_elicit::binding::{self, content::check_content, Action, RequestBody};
use ahp_elicit::form::{Form, Key, Status};
use std::sync::OnceLock;

use proptest::prelude::*;
use serde_json::json;

fn key() -> impl Strategy<Value = Key> {
    prop_oneof![
        4 => any::<char>().prop_map(Key::Char),
        2 => prop::sample::select(vec!['a', '1', '.', '-', 'e', ' ', '@', 'é', '世']).prop_map(Key::Char),
        2 => Just(Key::Tab),
        1 => Just(Key::BackTab),
        2 => Just(Key::Down),
        1 => Just(Key::Up),
        1 => Just(Key::Left),
        1 => Just(Key::Right),
        1 => Just(Key::Backspace),
        1 => Just(Key::Delete),
        1 => Just(Key::Home),
        1 => Just(Key::End),
        1 => Just(Key::PageDown),
        1 => Just(Key::Enter),
        1 => Just(Key::Ctrl('s')),
        1 => Just(Key::Ctrl('x')),
        1 => Just(Key::Ctrl('u')),
        1 => Just(Key::Ctrl('w')),
        1 => Just(Key::Char('b')),
        1 => prop::sample::select(vec!["x", "a\nb", "1e3", "ada@example.com", "\u{1b}[31m"]).prop_map(|s| Key::Paste(s.to_string())),
    ]
}

fn request() -> &'static binding::RequestEvent {
    static R: OnceLock<binding::RequestEvent> = OnceLock::new();
    R.get_or_init(|| {
        let bytes = std::fs::read(common::examples_dir().join("form-every-kind.request.json"))
            .expect("example");
        binding::read_request(
            binding::parse_json(&bytes).expect("json"),
            binding::ReadOptions::default(),
        )
        .expect("valid")
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    #[test]
    fn any_keys_never_panic_and_accepts_validate(
        prefill in any::<bool>(),
        keys in prop::collection::vec(key(), 0..80),
        submit in any::<bool>(),
    ) {
        let req = request();
        let r = req.view.request().expect("body");
        let RequestBody::Form(schema) = &r.body else { panic!("form") };
        let mut form = Form::new(schema, &r.message);
        if prefill {
            // Required fields filled, so random keys can reach an accept.
            form.set_json("fullName", &json!("Ada")).expect("set");
            form.set_json("email", &json!("ada@example.com")).expect("set");
        }
        let mut keys = keys;
        if submit {
            keys.extend([Key::Ctrl('s'), Key::Enter]);
        }
        for k in &keys {
            if let Status::Done(a) = form.handle_key(k) {
                if a.action == Action::Accept {
                    let c = a.content.clone().expect("accept has content");
                    prop_assert!(check_content(schema, &c).is_empty(), "{:?}", check_content(schema, &c));
                } else {
                    prop_assert!(a.content.is_none());
                }
                break;
            }
        }
    }
}
