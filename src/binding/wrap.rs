//! Building events: MCP `elicitation/create` params wrapped into a
//! validated `user.elicitation.request` event, and an [`Answer`] made into
//! the validated `user.elicitation.result` event that answers a request.
//! Every event built here is read back as a reader would read it, so
//! nothing invalid is ever emitted.

use serde_json::{json, Map, Value};

use super::envelope::{Action, Mode, Server, REQUEST_TYPE, RESULT_TYPE};
use super::params::{ElicitationRequest, RequestBody, RequestView, RELATED_TASK};
use super::policy::{self, SchemaPolicy};
use super::read::{read_request, ReadOptions};
use super::request::RequestEvent;
use super::result::{check_answer, result_parts};
use super::revision::{revision_of, McpExtension, EXTENSION_KEY};
use super::violation::{Part, Rule, Violation};

/// The decision to turn into a result event.
#[derive(Debug, Clone, PartialEq)]
pub struct Answer {
    pub action: Action,
    /// Present only for an accepted form.
    pub content: Option<Map<String, Value>>,
}

impl Answer {
    /// An answer with no content (decline, cancel, URL consent).
    pub fn bare(action: Action) -> Self {
        Answer {
            action,
            content: None,
        }
    }
}

/// Envelope fields of a result that are not decided by the answer.
#[derive(Debug, Clone)]
pub struct ResultMeta {
    /// `source.adapter` of the result event (default `ahp-elicit`).
    pub adapter: String,
    /// The result event's `id`; None derives `<request id>-result`.
    pub id: Option<String>,
    /// RFC 3339 time; None takes the current time.
    pub time: Option<String>,
}

impl Default for ResultMeta {
    fn default() -> Self {
        ResultMeta {
            adapter: "ahp-elicit".into(),
            id: None,
            time: None,
        }
    }
}

/// The MCP `ElicitResult` that answers `req` with `answer`, as a JSON
/// object: `action`, `content` when the answer has some, and under a
/// revision that echoes it the related-task `_meta` of the request. It is
/// the one value both ways out carry: the result event's `result.text`
/// ([`make_result_event`]) and the JSON-RPC result an MCP client sends.
/// Not validated here: a value whose event [`make_result_event`] accepts
/// is a valid result.
pub fn mcp_result(req: &RequestEvent, answer: &Answer) -> Value {
    let mut result = Map::new();
    result.insert("action".into(), json!(answer.action.as_str()));
    if let Some(c) = &answer.content {
        result.insert("content".into(), Value::Object(c.clone()));
    }
    if let Some(task) = req
        .view
        .request()
        .filter(|_| req.revision().data().related_task_echo)
        .and_then(|r| r.params.get("_meta"))
        .and_then(|m| m.get(RELATED_TASK))
    {
        result.insert("_meta".into(), json!({ RELATED_TASK: task }));
    }
    Value::Object(result)
}

/// Build the result event for `answer` to `req`, then validate it exactly as
/// a reader would (wire root, pinned result definition, cross-body checks).
/// The result repeats the request's `extensions.mcp` revision and
/// `inputKey` (never `call`); under 2025-11-25 the related-task `_meta` of
/// the request is echoed into the result.
///
/// Errors: the violations of the built event; nothing is returned then, so
/// an invalid result is never emitted.
pub fn make_result_event(
    req: &RequestEvent,
    answer: &Answer,
    meta: &ResultMeta,
) -> Result<Value, Vec<Violation>> {
    let text = serde_json::to_string(&mcp_result(req, answer))
        .map_err(|e| vec![Violation::new("", Rule::Serialize, e.to_string())])?;
    let id = meta.id.clone().unwrap_or_else(|| derive_result_id(&req.id));
    let time = meta.time.clone().unwrap_or_else(|| {
        humantime::format_rfc3339_millis(std::time::SystemTime::now()).to_string()
    });
    let mut event = json!({
        "ahp": "0.1",
        "id": id,
        "type": RESULT_TYPE,
        "time": time,
        "source": { "adapter": meta.adapter },
        "parentEventId": req.id,
        "payload": { "elicitation": {
            "server": req.server,
            "mode": req.mode.as_str(),
            "action": answer.action.as_str(),
            "result": { "type": "text", "selection": "body", "text": text }
        } }
    });
    if let (Some(m), Some(o)) = (&req.mcp, event.as_object_mut()) {
        let echo = McpExtension {
            protocol_version: m.protocol_version,
            input_key: m.input_key.clone(),
            call: None,
        };
        o.insert(
            "extensions".into(),
            json!({ EXTENSION_KEY: echo.to_value() }),
        );
    }
    let res = result_parts(&event)?;
    let errs = check_answer(req, &res);
    if errs.is_empty() {
        Ok(event)
    } else {
        Err(errs)
    }
}

/// `<request id>-result`, or for a request id too long to extend, `result-`
/// and the first 32 hex digits of the id's SHA-256 (ids are at most 256
/// characters).
pub(super) fn derive_result_id(request_id: &str) -> String {
    if request_id.chars().count() <= 249 {
        format!("{request_id}-result")
    } else {
        use sha2::Digest;
        let d = sha2::Sha256::digest(request_id.as_bytes());
        let hex: String = d.iter().take(16).map(|b| format!("{b:02x}")).collect();
        format!("result-{hex}")
    }
}

/// The envelope a request event is built in by [`wrap_request`], and how
/// its params are read. [`WrapOptions::new`] gives the strict policy, the
/// current time and no `extensions.mcp`.
#[derive(Debug, Clone, Copy)]
pub struct WrapOptions<'a> {
    /// `payload.elicitation.server`: the requesting server's identity.
    pub server: &'a Server,
    /// `source.adapter`: the adapter the request comes through.
    pub adapter: &'a str,
    /// The event's `id`.
    pub id: &'a str,
    /// The event's `time` (RFC 3339); None takes the current time.
    pub time: Option<&'a str>,
    /// How `requestedSchema` is read. Under the compatible policy a form
    /// request's event also says how it was read, in its open `extensions`
    /// object under the binding's extension key ([`policy_note`]:
    /// `{"policy": "compatible", "outsideSubset": [pointers]}`, plus
    /// `"notAForm": [reasons]` when it cannot be answered as a form); a
    /// strict reader (`validate`) still reports such a request with the
    /// subset's rule.
    pub policy: SchemaPolicy,
    /// The MCP revision of the params: `Some` is written as the event's
    /// `extensions.mcp` (with `inputKey` and `call` when given) and the
    /// params are checked against that revision's definitions; None writes
    /// no `extensions.mcp` (the event follows [`Revision::DEFAULT`](super::Revision::DEFAULT)).
    pub mcp: Option<&'a McpExtension>,
}

impl<'a> WrapOptions<'a> {
    /// The envelope of `server`'s request `id` through `adapter`, at the
    /// current time, read under the strict policy, with no
    /// `extensions.mcp`.
    pub fn new(server: &'a Server, adapter: &'a str, id: &'a str) -> Self {
        WrapOptions {
            server,
            adapter,
            id,
            time: None,
            policy: SchemaPolicy::Strict,
            mcp: None,
        }
    }
}

/// Wrap raw MCP `elicitation/create` params into a validated
/// `user.elicitation.request` event (`ahp-elicit wrap`, the MCP client):
/// the mode is taken from the params (missing means form) and written
/// explicitly in the metadata; the params are serialized whole into
/// `request.text`, nothing injected. The event is then read as
/// [`read_request`] reads it under `options.policy`, with the fast reading
/// first (see [`ReadOptions::fast`]), and kept whole in the request.
///
/// Errors: the violations of the built event, as [`read_request`] reports
/// them (a `mode` that is not a string is reported before any event is
/// built).
pub fn wrap_request(
    params: &Value,
    options: &WrapOptions<'_>,
) -> Result<RequestEvent, Vec<Violation>> {
    let event = request_event(params, options)?;
    let read = ReadOptions {
        policy: options.policy,
        fast: true,
    };
    let mut req = read_request(event, read)?;
    if options.policy == SchemaPolicy::Compatible && req.mode == Mode::Form {
        let note = policy_note(&req.view);
        if let Some(o) = req.event.as_object_mut() {
            let ext = o
                .entry("extensions")
                .or_insert_with(|| Value::Object(Map::new()));
            if let Some(e) = ext.as_object_mut() {
                e.insert(policy::EXTENSION_KEY.into(), note);
            }
        }
    }
    Ok(req)
}

/// The request event around `params` as [`wrap_request`] builds it, not
/// yet read.
fn request_event(params: &Value, options: &WrapOptions<'_>) -> Result<Value, Vec<Violation>> {
    let rev = revision_of(options.mcp);
    let mode = match params.get("mode") {
        None => "form",
        Some(Value::String(s)) => s.as_str(),
        Some(_) => {
            return Err(vec![Violation::within(
                Part::RequestText,
                "/mode",
                Rule::McpRequest,
                format!("mode must be \"form\" or \"url\"{}", rev.tag()),
            )])
        }
    };
    let text = serde_json::to_string(params)
        .map_err(|e| vec![Violation::new("", Rule::Serialize, e.to_string())])?;
    let time = options.time.map(str::to_owned).unwrap_or_else(|| {
        humantime::format_rfc3339_millis(std::time::SystemTime::now()).to_string()
    });
    let mut event = json!({
        "ahp": "0.1",
        "id": options.id,
        "type": REQUEST_TYPE,
        "time": time,
        "source": { "adapter": options.adapter },
        "payload": { "elicitation": {
            "server": options.server,
            "mode": mode,
            "request": { "type": "text", "selection": "body", "text": text }
        } }
    });
    if let (Some(m), Some(o)) = (options.mcp, event.as_object_mut()) {
        o.insert("extensions".into(), json!({ EXTENSION_KEY: m.to_value() }));
    }
    Ok(event)
}

/// How a form request was read under the compatible policy, as the
/// `extensions` entry and the `--log` record carry it.
pub fn policy_note(view: &RequestView) -> Value {
    let mut note = Map::new();
    note.insert("policy".into(), json!(SchemaPolicy::Compatible.as_str()));
    let outside: &[String] = match view {
        RequestView::Body(ElicitationRequest {
            body: RequestBody::Form(f),
            ..
        }) => &f.outside_subset,
        _ => &[],
    };
    note.insert("outsideSubset".into(), json!(outside));
    if let RequestView::NotAForm { reasons, .. } = view {
        note.insert("notAForm".into(), json!(reasons));
    }
    Value::Object(note)
}
