//! The incremental event framer on arbitrary bytes: nothing panics; the
//! frames do not depend on how the input is cut into chunks; no frame holds
//! more than the limit; lines only go forward; and input that is exactly
//! one JSON value (within the limit) is exactly one value frame.
#![no_main]

use ahp_elicit::stream::{frame_all, Frame, Framer};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&knobs, data)) = data.split_first() else {
        return;
    };
    let limit = if knobs & 0x80 != 0 { 64 } else { 1 << 20 };
    let step = usize::from(knobs & 0x1f) + 1;
    let whole = frame_all(data, limit);
    let mut f = Framer::new(limit);
    let mut cut = Vec::new();
    for c in data.chunks(step) {
        f.push(c, &mut cut);
    }
    f.finish(&mut cut);
    assert_eq!(whole, cut, "chunks of {step}");
    let mut line = 1;
    for fr in &whole {
        assert!(fr.line() >= line, "lines go forward");
        line = fr.line();
        if let Frame::Value { bytes, .. } | Frame::Broken { bytes, .. } = fr {
            assert!(bytes.len() <= limit);
            assert!(!bytes.is_empty());
        }
    }
    if data.len() <= limit && serde_json::from_slice::<serde_json::Value>(data).is_ok() {
        let trimmed = data.trim_ascii();
        match &whole[..] {
            [Frame::Value { bytes, .. }] => assert_eq!(&bytes[..], trimmed),
            other => panic!("one JSON value framed as {other:?}"),
        }
    }
});
