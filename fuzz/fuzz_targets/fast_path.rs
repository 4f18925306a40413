//! The fast reading of valid events against the full reading on arbitrary
//! bytes: when the fast reading takes an event, the full reading must find
//! it valid and give the same reading; `validate`'s per-event step and
//! `respond`'s reading of a request (params and message kept) give the same
//! answer either way. (The same comparison runs over this target's corpus
//! and the `parse_validate` corpus as a normal test:
//! tests/lib/fast_path_agrees.rs.)
#![no_main]

use ahp_elicit::binding::fast::read_valid;
use ahp_elicit::binding::SchemaPolicy;
use ahp_elicit::respond::input::{read_event, read_event_full, ReadEvent};
use ahp_elicit::validate::{prepare, prepare_full, Prepared};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if read_valid(data).is_none() {
        return;
    }
    let full = prepare_full(data);
    assert!(
        !matches!(full, Prepared::Done(_)),
        "the fast reading took an event the full reading rejects: {full:?}"
    );
    assert_eq!(prepare(data), full, "the readings differ");
    let quick = read_event(data, SchemaPolicy::Strict);
    let mut full = read_event_full(data, SchemaPolicy::Strict);
    if let ReadEvent::Request { request, .. } = &mut full {
        request.event = serde_json::Value::Null;
    }
    assert_eq!(quick, full, "respond's readings differ");
});
