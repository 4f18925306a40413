//! ahp-elicit answers MCP elicitations in a terminal.
//!
//! Data flows one way: event in ([`binding::parse_json`],
//! [`binding::read_request_event`]) → validated request → form state
//! (`form`) → answer → validated result event out
//! ([`binding::make_result_event`]).
//!
//! Dependency rule: the answerers build `binding ← form ← {tui, plain,
//! scripted}`, and all three decide URL consent through one terminal-free
//! state machine, [`consent`]; the front doors build `binding ← responder ← session ←
//! {respond, mcp}` and reach an answerer only through the
//! [`responder::Responder`] trait (see docs/architecture.md); `validate`
//! (stream validation) builds on `binding` and `stream`, and `upstream` (the
//! pinned MCP files) on [`binding::Revision`] alone. The command line is not part
//! of the library: it is the binary's (`src/main.rs`, `src/cli/`), and uses
//! only what is public here.
//! Only `tui` imports ratatui or crossterm; the library builds without the
//! `tui` feature.

pub mod binding;
pub mod consent;
pub mod demo;
pub mod files;
pub mod form;
pub mod launcher;
pub mod log;
pub mod mcp;
pub mod misplaced;
pub mod notice;
pub mod plain;
pub mod redact;
pub mod respond;
pub mod responder;
pub mod safe_text;
pub mod scripted;
pub mod session;
pub mod signals;
pub mod stream;
#[cfg(feature = "tui")]
pub mod tui;
pub mod upstream;
pub mod url_review;
pub mod validate;
