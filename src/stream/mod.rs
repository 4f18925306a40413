//! Reading event streams: framing bytes into JSON values ([`framer`]),
//! working on them in parallel in input order ([`ordered`]),
//! shared by `respond`, `validate` and the MCP stdio reader. No terminal
//! dependency.

pub mod framer;
pub mod ordered;

pub use framer::{frame_all, frame_reader, Frame, Framer};
