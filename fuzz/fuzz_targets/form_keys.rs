//! Form building from a request, then arbitrary keys: the input is a
//! request event (first line) and a key script (the rest, one key per
//! byte). Nothing may panic, and an accepted form must give a valid result.
#![no_main]

use ahp_elicit::binding::{
    make_result_event, parse_json, read_request, ReadOptions, RequestBody, ResultMeta,
};
use ahp_elicit::form::{Form, Key, Status};
use libfuzzer_sys::fuzz_target;

fn key(b: u8) -> Key {
    match b % 24 {
        0 => Key::Enter,
        1 => Key::Esc,
        2 => Key::Tab,
        3 => Key::BackTab,
        4 => Key::Up,
        5 => Key::Down,
        6 => Key::Left,
        7 => Key::Right,
        8 => Key::Backspace,
        9 => Key::Delete,
        10 => Key::Home,
        11 => Key::End,
        12 => Key::PageDown,
        13 => Key::Ctrl('s'),
        14 => Key::Ctrl('x'),
        15 => Key::Ctrl('d'),
        16 => Key::Char(' '),
        17 => Key::Paste("a\u{1b}b 1.5".into()),
        18 => Key::Char('-'),
        19 => Key::Char('.'),
        _ => Key::Char((b'0' + (b >> 3) % 10) as char),
    }
}

fuzz_target!(|data: &[u8]| {
    let split = data.iter().position(|&b| b == b'\n').unwrap_or(data.len());
    let Ok(v) = parse_json(&data[..split]) else {
        return;
    };
    let Ok(req) = read_request(v, ReadOptions::default()) else {
        return;
    };
    let Some(r) = req.view.request() else { return };
    let RequestBody::Form(schema) = &r.body else {
        return;
    };
    let mut form = Form::new(schema, &r.message);
    for &b in data.get(split + 1..).unwrap_or_default() {
        if let Status::Done(answer) = form.handle_key(&key(b)) {
            make_result_event(&req, &answer, &ResultMeta::default())
                .expect("a submitted form is a valid answer");
            return;
        }
    }
});
