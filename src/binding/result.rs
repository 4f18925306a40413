//! The result: the MCP `ElicitResult` read from `result.text`, the
//! `user.elicitation.result` event that carries it, and the cross-body
//! checks of a result against its request ([`check_answer`]).

use serde_json::{Map, Value};

use super::envelope::{
    check_type, elicitation_str, parse_text, read_view, server_at, str_at, Action, Mode, PartView,
    Server, RESULT_TYPE,
};
use super::holds::SchemaHolds;
use super::params::{RequestBody, RequestView};
use super::request::RequestEvent;
use super::revision::{read_mcp_extension, revision_of, McpExtension, Revision};
use super::schemas::{self, tag_revision};
use super::violation::{Part, Rule, Violation};

/// A parsed `ElicitResult`.
#[derive(Debug, Clone, PartialEq)]
pub struct ElicitResult {
    /// The complete value, `_meta` and extension fields included.
    pub value: Map<String, Value>,
    pub action: Action,
    pub content: Option<Map<String, Value>>,
}

/// A validated `user.elicitation.result` event (checked on its own).
#[derive(Debug, Clone, PartialEq)]
pub struct ResultEvent {
    pub id: String,
    pub parent_event_id: String,
    pub server: Server,
    pub mode: Mode,
    pub action: Action,
    /// The parsed result when the part is a body with text.
    pub result: Option<ElicitResult>,
    /// `extensions.mcp` as the event gave it; None when it names no
    /// revision (it follows [`Revision::DEFAULT`]).
    pub mcp: Option<McpExtension>,
    pub event: Value,
}

impl ResultEvent {
    /// The MCP revision whose definitions the result was checked against.
    pub fn revision(&self) -> Revision {
        revision_of(self.mcp.as_ref())
    }
}

/// Read a parsed `ElicitResult` of MCP revision `rev` given the result
/// event's mode. Pointers are relative to the result.
///
/// Errors: schema violations (`mcp-result/...`), then the runtime rules
/// (content values, `content-only-accepted-form`).
pub(super) fn read_result_value(
    rev: Revision,
    value: &Value,
    mode: Mode,
) -> Result<ElicitResult, Vec<Violation>> {
    let action = result_checks(rev, value, mode)?;
    let value = value.as_object().cloned().unwrap_or_default();
    Ok(elicit_result(value, action))
}

/// [`read_result_value`] for a value the caller owns: moved into the
/// [`ElicitResult`], not copied.
fn take_result_value(
    rev: Revision,
    value: Value,
    mode: Mode,
) -> Result<ElicitResult, Vec<Violation>> {
    let action = result_checks(rev, &value, mode)?;
    match value {
        Value::Object(value) => Ok(elicit_result(value, action)),
        _ => Err(vec![not_an_object()]),
    }
}

/// The violation of a result that is not a JSON object.
fn not_an_object() -> Violation {
    Violation::new("", Rule::McpResult, "the result must be a JSON object")
}

pub(super) fn elicit_result(value: Map<String, Value>, action: Action) -> ElicitResult {
    let content = value.get("content").and_then(Value::as_object).cloned();
    ElicitResult {
        value,
        action,
        content,
    }
}

/// The checks of [`read_result_value`]; returns the result's action.
fn result_checks(rev: Revision, value: &Value, mode: Mode) -> Result<Action, Vec<Violation>> {
    result_rules(rev, value, mode, None).map_err(|errs| tag_revision(errs, rev))
}

/// The runtime checks of [`read_result_value`] on a result whose pinned
/// `result` definition `proof` shows to hold (the schema is not run
/// again); returns the result's action. Errors as [`read_result_value`].
pub(super) fn proven_result_checks(
    rev: Revision,
    value: &Value,
    mode: Mode,
    proof: &SchemaHolds,
) -> Result<Action, Vec<Violation>> {
    result_rules(rev, value, mode, Some(proof)).map_err(|errs| tag_revision(errs, rev))
}

/// `proof`: the pinned definition is known to hold; None runs it.
fn result_rules(
    rev: Revision,
    value: &Value,
    mode: Mode,
    proof: Option<&SchemaHolds>,
) -> Result<Action, Vec<Violation>> {
    let Some(obj) = value.as_object() else {
        return Err(vec![not_an_object()]);
    };
    if proof.is_none() {
        let errs = schemas::validate_mcp_result(rev, value);
        if !errs.is_empty() {
            return Err(errs);
        }
    }
    let Some(action) = obj
        .get("action")
        .and_then(Value::as_str)
        .and_then(Action::parse)
    else {
        return Err(vec![Violation::new(
            "/action",
            Rule::McpResult,
            "action must be accept, decline or cancel",
        )]);
    };
    match obj.get("content") {
        None => return Ok(action),
        Some(Value::Object(c)) => {
            let errs: Vec<Violation> = c
                .iter()
                .filter(|(_, v)| !is_content_value(v))
                .map(|(k, _)| {
                    Violation::new(
                        super::violation::join("/content", k),
                        Rule::McpResult,
                        "content values are string, number, boolean or array of strings",
                    )
                })
                .collect();
            if !errs.is_empty() {
                return Err(errs);
            }
        }
        Some(_) => {
            return Err(vec![Violation::new(
                "/content",
                Rule::McpResult,
                "content must be an object",
            )])
        }
    }
    if !(action == Action::Accept && mode == Mode::Form) {
        return Err(vec![Violation::new(
            "/content",
            Rule::ContentOnlyAcceptedForm,
            format!(
                "content is present only for an accepted form; this is {} in {} mode",
                action.as_str(),
                mode.as_str()
            ),
        )]);
    }
    Ok(action)
}

/// A value `content` may hold: string, number, boolean or array of strings.
fn is_content_value(v: &Value) -> bool {
    match v {
        Value::String(_) | Value::Number(_) | Value::Bool(_) => true,
        Value::Array(a) => a.iter().all(Value::is_string),
        _ => false,
    }
}

/// The checks of [`read_result`](super::read_result); `event` of the answer is null.
pub(super) fn result_parts(event: &Value) -> Result<ResultEvent, Vec<Violation>> {
    let errs = schemas::validate_event(event);
    if !errs.is_empty() {
        return Err(errs);
    }
    check_type(event, RESULT_TYPE)?;
    let mcp = read_mcp_extension(event).map_err(|e| vec![e])?;
    let rev = revision_of(mcp.as_ref());
    let id = str_at(event, &["id"]).unwrap_or_default().to_owned();
    let parent = str_at(event, &["parentEventId"])
        .unwrap_or_default()
        .to_owned();
    let server = server_at(event).map_err(|e| vec![e])?;
    let mode = elicitation_str(event, "mode").and_then(Mode::parse);
    let action = elicitation_str(event, "action").and_then(Action::parse);
    let (Some(mode), Some(action)) = (mode, action) else {
        return Err(vec![Violation::new(
            "/payload/elicitation",
            Rule::WireRoot,
            "mode and action are required",
        )]);
    };
    let result = match read_view(event, "result") {
        PartView::Text(t) => {
            let v = parse_text(t, Part::ResultText).map_err(|e| vec![e])?;
            let r = take_result_value(rev, v, mode).map_err(|es| {
                es.into_iter()
                    .map(|e| e.in_part(Part::ResultText))
                    .collect::<Vec<_>>()
            })?;
            if r.action != action {
                return Err(vec![Violation::within(
                    Part::ResultText,
                    "/action",
                    Rule::ActionMatch,
                    format!(
                        "the event says action {} but the result text says {}",
                        action.as_str(),
                        r.action.as_str()
                    ),
                )]);
            }
            Some(r)
        }
        _ => None,
    };
    Ok(ResultEvent {
        id,
        parent_event_id: parent,
        server,
        mode,
        action,
        result,
        mcp,
        event: Value::Null,
    })
}

/// Cross-body checks of a result against its request: parent id,
/// identical server, same mode, same MCP revision (`revision-match`: an
/// event without `extensions.mcp` follows 2025-11-25), no accept for a view
/// that is not executable, and content against the form read as closed.
pub fn check_answer(req: &RequestEvent, res: &ResultEvent) -> Vec<Violation> {
    let mut errs = Vec::new();
    if res.parent_event_id != req.id {
        errs.push(Violation::new(
            "/parentEventId",
            Rule::ParentId,
            format!(
                "parentEventId '{}' is not the request id '{}'",
                res.parent_event_id, req.id
            ),
        ));
    }
    if res.server != req.server {
        errs.push(Violation::new(
            "/payload/elicitation/server",
            Rule::ServerIdentity,
            "the result must repeat the request's server exactly",
        ));
    }
    if res.mode != req.mode {
        errs.push(Violation::new(
            "/payload/elicitation/mode",
            Rule::ModeMatch,
            format!(
                "the result's mode {} differs from the request's mode {}",
                res.mode.as_str(),
                req.mode.as_str()
            ),
        ));
    }
    if res.revision() != req.revision() {
        let said = |m: &Option<McpExtension>, r: Revision| match m {
            Some(_) => format!("MCP {r}"),
            None => format!("MCP {r} (it has no extensions.mcp)"),
        };
        errs.push(Violation::new(
            "/extensions/mcp/protocolVersion",
            Rule::RevisionMatch,
            format!(
                "the result follows {} but its request follows {}: a result repeats its request's revision",
                said(&res.mcp, res.revision()),
                said(&req.mcp, req.revision())
            ),
        ));
    }
    match &req.view {
        RequestView::Body(r) => {
            if let (RequestBody::Form(form), Some(result)) = (&r.body, &res.result) {
                if result.action == Action::Accept {
                    let content = result.content.clone().unwrap_or_default();
                    errs.extend(
                        super::content::check_content(form, &content)
                            .into_iter()
                            .map(|e| e.in_part(Part::ResultText)),
                    );
                }
            }
        }
        _ => {
            if res.action == Action::Accept {
                errs.push(Violation::new(
                    "/payload/elicitation/action",
                    Rule::NotExecutable,
                    format!(
                        "the request is not executable ({}): it cannot be accepted, only declined or cancelled",
                        req.view.describe().unwrap_or_default()
                    ),
                ));
            }
        }
    }
    errs
}
