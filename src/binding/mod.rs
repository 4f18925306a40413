//! The AHP binding for MCP elicitation: envelope, text parts, overlays,
//! the elicitation codec, the closed form subset, runtime checks, effects
//! and capabilities. No terminal dependency (docs/binding.md describes each rule).

pub mod capabilities;
pub mod content;
pub mod effects;
mod envelope;
#[cfg(feature = "internals")]
#[doc(hidden)]
pub mod fast;
#[cfg(not(feature = "internals"))]
pub(crate) mod fast;
pub mod form_model;
pub mod form_schema;
mod holds;
pub mod limits;
mod located;
pub mod numbers;
mod params;
pub mod policy;
mod read;
mod request;
mod result;
pub mod result_line;
pub mod revision;
pub mod schemas;
mod subset;
pub mod tool_form;
pub mod violation;
mod wrap;

pub(crate) use envelope::shallow_text;
pub use envelope::{parse_json, Action, Mode, Server, REQUEST_TYPE, RESULT_TYPE};
pub use form_schema::{Choice, Field, FieldKind, FormSchema, SingleStyle, StringFormat};
pub use params::{read_params, ElicitationRequest, RequestBody, RequestView};
pub use policy::{FieldExtra, SchemaPolicy};
pub use read::{read_request, read_result, ReadOptions};
pub use request::RequestEvent;
pub use result::{check_answer, ElicitResult, ResultEvent};
pub use result_line::{make_result_line, ResultLine};
pub use revision::{CallMethod, CallRef, McpExtension, Revision};
pub use violation::{Rule, Violation};
pub use wrap::{
    make_result_event, mcp_result, policy_note, wrap_request, Answer, ResultMeta, WrapOptions,
};
