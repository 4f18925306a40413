//! The AHP binding for MCP elicitation: envelope, text parts, overlays,
//! the elicitation codec, the closed form subset, runtime checks, effects
//! and capabilities. No terminal dependency (docs/binding.md describes each rule).

pub mod capabilities;
#[cfg(feature = "internals")]
#[doc(hidden)]
pub mod content;
#[cfg(not(feature = "internals"))]
pub(crate) mod content;
pub mod effects;
mod envelope;
#[cfg(feature = "internals")]
#[doc(hidden)]
pub mod fast;
#[cfg(not(feature = "internals"))]
pub(crate) mod fast;
#[cfg(feature = "internals")]
#[doc(hidden)]
pub mod form_model;
#[cfg(not(feature = "internals"))]
pub(crate) mod form_model;
#[cfg(feature = "internals")]
#[doc(hidden)]
pub mod form_schema;
#[cfg(not(feature = "internals"))]
pub(crate) mod form_schema;
mod holds;
pub mod limits;
mod located;
#[cfg(feature = "internals")]
#[doc(hidden)]
pub mod numbers;
#[cfg(not(feature = "internals"))]
pub(crate) mod numbers;
mod params;
#[cfg(feature = "internals")]
#[doc(hidden)]
pub mod policy;
#[cfg(not(feature = "internals"))]
pub(crate) mod policy;
mod read;
mod request;
mod result;
#[cfg(feature = "internals")]
#[doc(hidden)]
pub mod result_line;
#[cfg(not(feature = "internals"))]
pub(crate) mod result_line;
#[cfg(feature = "internals")]
#[doc(hidden)]
pub mod revision;
#[cfg(not(feature = "internals"))]
pub(crate) mod revision;
#[cfg(feature = "internals")]
#[doc(hidden)]
pub mod schemas;
#[cfg(not(feature = "internals"))]
pub(crate) mod schemas;
mod subset;
// A tool's or prompt's arguments as a form: the MCP client's (`mcp`).
#[cfg(all(feature = "cli", feature = "internals"))]
#[doc(hidden)]
pub mod tool_form;
#[cfg(all(feature = "cli", not(feature = "internals")))]
pub(crate) mod tool_form;
#[cfg(feature = "internals")]
#[doc(hidden)]
pub mod violation;
#[cfg(not(feature = "internals"))]
pub(crate) mod violation;
mod wrap;

pub(crate) use envelope::shallow_text;
pub use envelope::{parse_json, Action, Mode, Server, REQUEST_TYPE, RESULT_TYPE};
pub use form_schema::{Choice, Field, FieldKind, FormSchema, SingleStyle, StringFormat};
pub use params::{read_params, ElicitationRequest, RequestBody, RequestView};
pub use policy::{ExtraError, FieldExtra, Pattern, PatternError, SchemaPolicy};
pub use read::{read_request, read_result, ReadOptions};
pub use request::RequestEvent;
pub use result::{check_answer, ElicitResult, ResultEvent};
pub use result_line::{make_result_line, ResultLine};
pub use revision::{CallMethod, CallRef, McpExtension, Revision, RevisionData, UnknownRevision};
pub use violation::{Location, Part, Rule, Schema, SchemaKeyword, Violation};
pub use wrap::{
    make_result_event, mcp_result, policy_note, wrap_request, Answer, ResultMeta, WrapOptions,
};
