//! Reading event streams: framing bytes into JSON values ([`framer`]),
//! working on them in parallel in input order ([`ordered`]),
//! used by `respond`, `validate` and `--request` loading. No terminal
//! dependency.

pub mod framer;
pub mod ordered;

pub use framer::{frame_all, frame_reader, frame_reader_batches, Frame, Framer};
