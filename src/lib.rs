//! ahp-elicit answers MCP elicitations in a terminal.
//!
//! Data flows one way: event in ([`binding::parse_json`],
//! [`binding::read_request`]) → validated request → form state
//! (`form`) → answer → validated result event out
//! ([`binding::make_result_event`]).
//!
//! Dependency rule: the answerers build `binding ← form ← {tui, plain,
//! scripted}`, and all three decide URL consent through one terminal-free
//! state machine, [`consent`]; the front doors build `binding ← responder ← session ←
//! {respond, mcp}` and reach an answerer only through the
//! [`responder::Responder`] trait (see docs/architecture.md); `validate`
//! (stream validation) builds on `binding` and `stream`, and `upstream` (the
//! pinned MCP files) on [`binding::Revision`] alone. The command line (`cli`, with the
//! `cli` feature) is the binary's; the library without it keeps none of its
//! dependencies. The public API is the library's; the rest is crate-private
//! (the `internals` feature opens it to the project's own tests).
//! Only `tui` imports ratatui or crossterm; the library builds without the
//! `tui` feature.

// The library: reading and validating events, the answerers behind the
// `Responder` trait, and the two front doors.
pub mod binding;
pub mod browse;
pub mod form;
pub mod launcher;
pub mod mcp;
pub mod notice;
pub mod plain;
pub mod respond;
pub mod responder;
pub mod safe_text;
pub mod scripted;
#[cfg(feature = "tui")]
pub mod tui;
pub mod url_review;
pub mod validate;

// The binary's command line (`src/main.rs` calls `cli::main`).
#[cfg(feature = "cli")]
#[doc(hidden)]
pub mod cli;

// The machinery behind them: crate-private, or public (and hidden from the
// documentation) with the `internals` feature, which only the project's own
// tests, benchmarks and fuzz targets turn on (a dev-dependency of the crate
// on itself). Plain declarations, so rustfmt formats every file and the
// compiler reports dead code in them when the feature is off. `demo` and
// `upstream` serve only the command line.
#[cfg(feature = "internals")]
#[doc(hidden)]
pub mod consent;
#[cfg(not(feature = "internals"))]
pub(crate) mod consent;
#[cfg(feature = "internals")]
#[doc(hidden)]
pub mod demo;
#[cfg(all(feature = "cli", not(feature = "internals")))]
pub(crate) mod demo;
#[cfg(feature = "internals")]
#[doc(hidden)]
pub mod files;
#[cfg(not(feature = "internals"))]
pub(crate) mod files;
#[cfg(feature = "internals")]
#[doc(hidden)]
pub mod log;
#[cfg(not(feature = "internals"))]
pub(crate) mod log;
#[cfg(feature = "internals")]
#[doc(hidden)]
pub mod misplaced;
#[cfg(not(feature = "internals"))]
pub(crate) mod misplaced;
#[cfg(feature = "internals")]
#[doc(hidden)]
pub mod redact;
#[cfg(not(feature = "internals"))]
pub(crate) mod redact;
#[cfg(feature = "internals")]
#[doc(hidden)]
pub mod session;
#[cfg(not(feature = "internals"))]
pub(crate) mod session;
#[cfg(feature = "internals")]
#[doc(hidden)]
pub mod signals;
#[cfg(not(feature = "internals"))]
pub(crate) mod signals;
#[cfg(feature = "internals")]
#[doc(hidden)]
pub mod stream;
#[cfg(not(feature = "internals"))]
pub(crate) mod stream;
#[cfg(feature = "internals")]
#[doc(hidden)]
pub mod upstream;
#[cfg(all(feature = "cli", not(feature = "internals")))]
pub(crate) mod upstream;
