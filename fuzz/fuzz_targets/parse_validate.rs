//! Event parsing and validation on arbitrary bytes: `parse_json` (limits),
//! then the request and result readers, the cross-body check, and for a
//! valid request every answer action through `make_result_event`. Nothing
//! may panic, and a built result must read back as valid.
#![no_main]

use ahp_elicit::binding::{
    check_answer, make_result_event, parse_json, read_request, read_result, Action, Answer,
    ReadOptions, ResultMeta,
};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(v) = parse_json(data) else { return };
    let _ = read_result(v.clone());
    if let Ok(req) = read_request(v, ReadOptions::default()) {
        for action in [Action::Decline, Action::Cancel] {
            let ev = make_result_event(&req, &Answer::bare(action), &ResultMeta::default())
                .expect("decline and cancel are always answerable");
            let res = read_result(ev).expect("a built result reads back");
            assert!(check_answer(&req, &res).is_empty());
        }
    }
});
