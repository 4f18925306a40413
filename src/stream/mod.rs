//! Reading event streams: framing bytes into JSON values ([`framer`]),
//! working on them in parallel in input order ([`ordered`]),
//! used by `respond`, `validate` and `--request` loading. No terminal
//! dependency.

pub mod framer;
pub mod ordered;

#[cfg(any(feature = "cli", feature = "internals"))]
pub use framer::frame_reader;
pub use framer::{frame_reader_batches, Frame};
// The whole-input framer and the incremental one, for the benchmarks and
// fuzz targets (the readers above drive the framer themselves).
#[cfg(feature = "internals")]
pub use framer::{frame_all, Framer};
