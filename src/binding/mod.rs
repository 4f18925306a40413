//! The AHP binding for MCP elicitation: envelope, text parts, overlays,
//! the elicitation codec, the closed form subset, runtime checks, effects
//! and capabilities. No terminal dependency (docs/binding.md describes each rule).

pub mod capabilities;
pub mod content;
pub mod effects;
pub mod elicitation;
#[cfg(feature = "internals")]
#[doc(hidden)]
pub mod fast;
#[cfg(not(feature = "internals"))]
pub(crate) mod fast;
pub mod form_model;
pub mod form_schema;
pub mod limits;
mod located;
pub mod numbers;
pub mod policy;
pub mod result_line;
pub mod revision;
pub mod schemas;
mod subset;
pub mod tool_form;
pub mod violation;

pub use elicitation::{
    check_answer, make_result_event, parse_json, read_request_event, read_request_event_with,
    read_result_event, take_request_event, take_request_event_with, take_result_event, wrap_params,
    wrap_params_in, wrap_params_with, Action, Answer, ElicitResult, ElicitationRequest, Mode,
    RequestBody, RequestEvent, RequestView, ResultEvent, ResultMeta, Server,
};
pub use form_schema::{Choice, Field, FieldKind, FormSchema, SingleStyle, StringFormat};
pub use policy::{FieldExtra, SchemaPolicy};
pub use result_line::{make_result_line, ResultLine};
pub use revision::{CallMethod, CallRef, McpExtension, Revision};
pub use violation::{Rule, Violation};
