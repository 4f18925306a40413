//! Scripted answering: the input is a request event (first line) and an
//! answers document (the rest). Nothing may panic; an answer the scripted
//! responder gives must always make a valid result event.
#![no_main]

use ahp_elicit::binding::{make_result_event, parse_json, read_request, ReadOptions, ResultMeta};
use ahp_elicit::responder::{Context, Outcome, Progress, Responder};
use ahp_elicit::scripted::{Answers, ScriptedResponder};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let split = data.iter().position(|&b| b == b'\n').unwrap_or(data.len());
    let Ok(v) = parse_json(&data[..split]) else {
        return;
    };
    let Ok(req) = read_request(v, ReadOptions::default()) else {
        return;
    };
    // The answers text is read as the run reads a file: no key twice.
    let answers_text = data.get(split + 1..).unwrap_or_default();
    let Ok(answers_value) = ahp_elicit::scripted::document::parse(answers_text) else {
        return;
    };
    let Ok(answers) = Answers::from_value(&answers_value) else {
        return;
    };
    let mut responder = ScriptedResponder::new(answers);
    let cx = Context {
        progress: Progress::of(1, 1),
        ..Context::default()
    };
    if let Ok(Outcome::Answer(a)) = responder.respond(&req, &cx) {
        make_result_event(&req, &a, &ResultMeta::default())
            .expect("a scripted answer is a valid result");
    }
});
