//! Reading event streams: framing bytes into JSON values ([`framer`]),
//! working on them in parallel in input order ([`ordered`]),
//! used by `respond`, `validate` and `--request` loading. No terminal
//! dependency.

#[cfg(feature = "cli")]
pub mod framer;
#[cfg(feature = "cli")]
pub mod ordered;

/// The UTF-8 byte order mark, which some editors (Windows Notepad,
/// PowerShell's `Out-File`) put at the start of a text file. Every reader
/// reads past it at the start of its input: the framer for streams,
/// [`without_bom`] for whole files.
pub const UTF8_BOM: &[u8] = b"\xEF\xBB\xBF";

/// `bytes` without a UTF-8 byte order mark at its start (the one place
/// whole-file readers drop it; streams: the framer).
pub fn without_bom(bytes: &[u8]) -> &[u8] {
    bytes.strip_prefix(UTF8_BOM).unwrap_or(bytes)
}

#[cfg(feature = "cli")]
pub use framer::{frame_reader, frame_reader_batches, Frame};
// The whole-input framer and the incremental one, for the benchmarks and
// fuzz targets (the readers above drive the framer themselves).
#[cfg(all(feature = "cli", feature = "internals"))]
pub use framer::{frame_all, Framer};
