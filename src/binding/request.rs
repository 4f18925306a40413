//! The request event: a validated `user.elicitation.request` (envelope,
//! then the request params of its text part) as a [`RequestEvent`].

use serde_json::Value;

use super::envelope::{
    check_type, elicitation_str, parse_text, read_view, server_at, str_at, Mode, PartView, Server,
    REQUEST_TYPE,
};
#[cfg(feature = "cli")]
use super::fast::RefusedBody;
use super::params::{take_params_noting, take_params_with, RequestView};
use super::policy::SchemaPolicy;
use super::revision::{read_mcp_extension, revision_of, McpExtension, Revision};
use super::schemas;
use super::violation::{Part, Rule, Violation};

/// A validated `user.elicitation.request` event.
#[derive(Debug, Clone, PartialEq)]
pub struct RequestEvent {
    pub id: String,
    /// `source.adapter`: the adapter the request came through.
    pub adapter: String,
    pub server: Server,
    /// The explicit metadata mode (equal to the parsed mode).
    pub mode: Mode,
    pub view: RequestView,
    /// `extensions.mcp` as the event gave it; None when it names no
    /// revision (it follows [`Revision::DEFAULT`]).
    pub mcp: Option<McpExtension>,
    /// The complete event as read; `Null` when the fast reading
    /// (the one-pass fast reading: `respond`, `demo --request`) took it,
    /// which builds no tree of the event (every other member says what the
    /// event said).
    pub event: Value,
}

impl RequestEvent {
    /// The MCP revision whose definitions the body was checked against.
    pub fn revision(&self) -> Revision {
        revision_of(self.mcp.as_ref())
    }
}

/// The checks of [`read_request`](super::read_request); `event` of the answer is null.
pub(super) fn request_parts(
    event: &Value,
    policy: SchemaPolicy,
) -> Result<RequestEvent, Vec<Violation>> {
    request_parts_noting(event, policy, false).map_err(|(errs, _)| errs)
}

/// [`request_parts`]; with `note` under the strict policy, a refusal says
/// beside its violations whether the compatible policy reads the event as
/// a form (see [`read_request_noting`](super::read::read_request_noting));
/// otherwise that is always false.
pub(super) fn request_parts_noting(
    event: &Value,
    policy: SchemaPolicy,
    note: bool,
) -> Result<RequestEvent, (Vec<Violation>, bool)> {
    // Every check before the params' is the same under both policies: a
    // refusal there is one under the compatible policy too.
    let refuse = |errs: Vec<Violation>| (errs, false);
    let errs = schemas::validate_event(event);
    if !errs.is_empty() {
        return Err(refuse(errs));
    }
    check_type(event, REQUEST_TYPE).map_err(refuse)?;
    let mcp = read_mcp_extension(event).map_err(|e| refuse(vec![e]))?;
    let rev = revision_of(mcp.as_ref());
    let id = str_at(event, &["id"]).unwrap_or_default().to_owned();
    let adapter = str_at(event, &["source", "adapter"])
        .unwrap_or_default()
        .to_owned();
    let server = server_at(event).map_err(|e| refuse(vec![e]))?;
    let Some(mode) = elicitation_str(event, "mode").and_then(Mode::parse) else {
        return Err(refuse(vec![Violation::new(
            "/payload/elicitation/mode",
            Rule::WireRoot,
            "mode must be \"form\" or \"url\"",
        )]));
    };
    let view = match read_view(event, "request") {
        PartView::Metadata => RequestView::Metadata,
        PartView::Omit => RequestView::Omit,
        PartView::Gap { reason, detail } => RequestView::Gap { reason, detail },
        PartView::Text(t) => {
            let params = parse_text(t, Part::RequestText).map_err(|e| refuse(vec![e]))?;
            params_view(rev, params, mode, policy, note)?
        }
    };
    Ok(RequestEvent {
        id,
        adapter,
        server,
        mode,
        view,
        mcp,
        event: Value::Null,
    })
}

/// The view of a request whose body text parsed to `params` (the last
/// step of [`request_parts_noting`], whose `note` it takes): the params
/// read under `policy`, each violation in the request's text part.
fn params_view(
    rev: Revision,
    params: Value,
    mode: Mode,
    policy: SchemaPolicy,
    note: bool,
) -> Result<RequestView, (Vec<Violation>, bool)> {
    let read = if note && policy == SchemaPolicy::Strict {
        take_params_noting(rev, params, mode)
    } else {
        take_params_with(rev, params, mode, policy).map_err(|errs| (errs, false))
    };
    read.map_err(|(es, form)| {
        let es = es.into_iter().map(|e| e.in_part(Part::RequestText));
        (es.collect(), form)
    })
}

/// The strict reading of a request whose every member but the body the
/// fast reading proved valid and whose body it refused
/// ([`RefusedBody`]): the body's params read as
/// [`request_parts_noting`] reads them, with the note, and the event as
/// the fast reading gave it (so the same answer as the full reading, the
/// event not parsed again).
///
/// Errors: the violations of the params, in the request's text part, and
/// whether the compatible policy reads them as a form.
#[cfg(feature = "cli")]
pub(crate) fn request_from_refused_body(
    refused: RefusedBody,
) -> Result<RequestEvent, (Vec<Violation>, bool)> {
    let RefusedBody {
        mut request,
        params,
    } = refused;
    let (rev, mode) = (request.revision(), request.mode);
    request.view = params_view(rev, params, mode, SchemaPolicy::Strict, true)?;
    Ok(request)
}
