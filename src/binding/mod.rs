//! The AHP binding for MCP elicitation: envelope, text parts, overlays,
//! the elicitation codec, the closed form subset, runtime checks, effects
//! and capabilities. No terminal dependency (docs/binding.md describes each rule).

pub mod capabilities;
pub mod effects;
mod envelope;
mod holds;
pub mod limits;
mod located;
mod params;
mod read;
mod request;
mod result;
mod rfc3339;
mod subset;
mod wrap;

// Crate-private (public with `internals`, for the project's own tests).
internals! {
    pub(crate) mod content;
    pub(crate) mod fast;
    pub(crate) mod form_model;
    pub(crate) mod form_schema;
    pub(crate) mod numbers;
    pub(crate) mod policy;
    pub(crate) mod result_line;
    pub(crate) mod revision;
    pub(crate) mod schemas;
    pub(crate) mod violation;
}
// A tool's or prompt's arguments as a form: the MCP client's (`mcp`).
// Integers beyond 64 bits kept exactly, and `--arg` values read by a
// tool's inputSchema.
#[cfg(feature = "cli")]
internals! {
    pub(crate) mod exact_int;
    pub(crate) mod tool_args;
    pub(crate) mod tool_form;
}
// `cargo fmt` reaches the modules of `internals!` through this list
// (see src/lib.rs).
#[cfg(any())]
#[path = "."]
mod for_cargo_fmt {
    mod content;
    mod exact_int;
    mod fast;
    mod form_model;
    mod form_schema;
    mod numbers;
    mod policy;
    mod result_line;
    mod revision;
    mod schemas;
    mod tool_args;
    mod tool_form;
    mod violation;
}

pub(crate) use envelope::shallow_text;
/// The steps of [`parse_json`], for `validate`'s two readings of one text.
#[cfg(feature = "cli")]
pub(crate) use envelope::{checked_text, parse_checked};
pub use envelope::{parse_json, Action, Mode, Server, REQUEST_TYPE, RESULT_TYPE};
pub use form_schema::{Choice, Field, FieldKind, FormSchema, SingleStyle, StringFormat};
pub use params::{read_params, ElicitationRequest, RequestBody, RequestView};
pub use policy::{ExtraError, FieldExtra, Pattern, PatternError, SchemaPolicy};
pub use read::{read_request, read_request_noting, read_result, ReadOptions};
#[cfg(feature = "cli")]
pub(crate) use request::request_from_refused_body;
pub use request::RequestEvent;
pub use result::{check_answer, ElicitResult, ResultEvent};
pub use result_line::{make_result_line, ResultLine};
pub use revision::{CallMethod, CallRef, McpExtension, Revision, RevisionData, UnknownRevision};
pub use violation::{Location, Part, Rule, Schema, SchemaKeyword, Violation};
pub use wrap::{
    make_result_event, mcp_result, policy_note, wrap_request, Answer, ResultMeta, WrapOptions,
};
