//! Reading event streams: framing bytes into JSON values ([`framer`]),
//! shared by `respond`, `validate` and the MCP stdio reader. No terminal
//! dependency.

pub mod framer;

pub use framer::{frame_all, frame_reader, Frame, Framer};
