//! Reading event streams: framing bytes into JSON values ([`framer`]),
//! working on them in parallel in input order ([`ordered`]),
//! used by `respond`, `validate` and `--request` loading. No terminal
//! dependency.

pub mod framer;
pub mod ordered;

/// The UTF-8 byte order mark, which some editors (Windows Notepad,
/// PowerShell's `Out-File`) put at the start of a text file. Every reader
/// reads past it at the start of its input: [`Framer`] for streams,
/// [`without_bom`] for whole files.
pub const UTF8_BOM: &[u8] = b"\xEF\xBB\xBF";

/// `bytes` without a UTF-8 byte order mark at its start (the one place
/// whole-file readers drop it; streams: [`Framer`]).
pub fn without_bom(bytes: &[u8]) -> &[u8] {
    bytes.strip_prefix(UTF8_BOM).unwrap_or(bytes)
}

pub use framer::{frame_all, frame_reader, frame_reader_batches, Frame, Framer};
