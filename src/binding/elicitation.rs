//! The elicitation codec: reading `user.elicitation.request` and
//! `user.elicitation.result` events, the runtime checks of requests and results,
//! the cross-body checks of a result against its request, and building a
//! validated result event.
//!
//! Data flow: bytes → [`parse_json`] (limits first) → [`read_request_event`]
//! (wire root, pinned `request` definition, closed form subset, mode rule) →
//! a [`RequestEvent`] → the responder decides an [`Answer`] →
//! [`make_result_event`] builds the result and validates it exactly as
//! [`read_result_event`] and [`check_answer`] would, so nothing invalid is
//! ever emitted.

use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};

use super::form_schema::{parse_form_schema, FormSchema};
use super::limits::{json_depth, MAX_DEPTH, MAX_EVENT_BYTES, MAX_STRING_CHARS};
use super::policy::{self, SchemaPolicy};
use super::revision::{read_mcp_extension, revision_of, McpExtension, Revision, EXTENSION_KEY};
use super::schemas;
use super::violation::{Part, Rule, Violation};

/// Event type of a request.
pub const REQUEST_TYPE: &str = "user.elicitation.request";
/// Event type of a result.
pub const RESULT_TYPE: &str = "user.elicitation.result";
/// The `_meta` key of MCP related-task metadata, echoed into results.
pub const RELATED_TASK: &str = "io.modelcontextprotocol/related-task";

/// Elicitation mode (the binding: "A form request has optional mode: form").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    Form,
    Url,
}

impl Mode {
    /// `form` or `url`.
    pub fn as_str(self) -> &'static str {
        match self {
            Mode::Form => "form",
            Mode::Url => "url",
        }
    }
    /// Parse `form` or `url`.
    pub fn parse(s: &str) -> Option<Mode> {
        match s {
            "form" => Some(Mode::Form),
            "url" => Some(Mode::Url),
            _ => None,
        }
    }
}

/// `form` or `url` on the command line (`--modes`), with the words listed
/// in `--help` and the completions.
#[cfg(feature = "cli")]
impl clap::ValueEnum for Mode {
    fn value_variants<'a>() -> &'a [Self] {
        &[Mode::Form, Mode::Url]
    }
    fn to_possible_value(&self) -> Option<clap::builder::PossibleValue> {
        Some(clap::builder::PossibleValue::new(self.as_str()))
    }
}

/// The person's action (MCP `ElicitResult.action`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Action {
    Accept,
    Decline,
    Cancel,
}

impl Action {
    /// `accept`, `decline` or `cancel`.
    pub fn as_str(self) -> &'static str {
        match self {
            Action::Accept => "accept",
            Action::Decline => "decline",
            Action::Cancel => "cancel",
        }
    }
    /// Parse `accept`, `decline` or `cancel`.
    pub fn parse(s: &str) -> Option<Action> {
        match s {
            "accept" => Some(Action::Accept),
            "decline" => Some(Action::Decline),
            "cancel" => Some(Action::Cancel),
            _ => None,
        }
    }
}

/// `accept`, `decline` or `cancel` on the command line (`--action`), with
/// the words listed in `--help` and the completions.
#[cfg(feature = "cli")]
impl clap::ValueEnum for Action {
    fn value_variants<'a>() -> &'a [Self] {
        &[Action::Accept, Action::Decline, Action::Cancel]
    }
    fn to_possible_value(&self) -> Option<clap::builder::PossibleValue> {
        Some(clap::builder::PossibleValue::new(self.as_str()))
    }
}

/// The requesting MCP server's identity as the adapter knows it
/// (closed `{name, title?, version?}`). Never the answering user.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Server {
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
}

/// A request's body as parsed from `request.text`.
#[derive(Debug, Clone, PartialEq)]
pub enum RequestBody {
    /// Form mode: the validated closed form.
    Form(FormSchema),
    /// URL mode: the absolute URL and, under a revision whose URL requests
    /// carry one (2025-11-25), the opaque `elicitationId` (None otherwise).
    Url {
        url: String,
        elicitation_id: Option<String>,
    },
}

/// A validated, executable elicitation request (body selection with text).
#[derive(Debug, Clone, PartialEq)]
pub struct ElicitationRequest {
    /// The complete `elicitation/create` params, `_meta` and `task` included.
    pub params: Map<String, Value>,
    /// The message shown to the person.
    pub message: String,
    pub body: RequestBody,
}

/// What a request event carries: the body, or a view that is never
/// executable.
#[derive(Debug, Clone, PartialEq)]
pub enum RequestView {
    Body(ElicitationRequest),
    /// `selection: "metadata"`: event metadata only.
    Metadata,
    /// `selection: "omit"` or no part at all.
    Omit,
    /// `selection: "body"` with a gap: requested content that is missing.
    Gap {
        reason: String,
        detail: Option<String>,
    },
    /// A form request read under the compatible schema policy whose
    /// `requestedSchema` cannot be answered as a form (nested objects,
    /// `$ref`, ...): shown with the reasons, only declined or cancelled.
    NotAForm {
        /// One sentence each, starting with a pointer into `requestedSchema`;
        /// safe text (they quote the server's keys).
        reasons: Vec<String>,
    },
}

impl RequestView {
    /// The executable request, if this is a body view.
    pub fn request(&self) -> Option<&ElicitationRequest> {
        match self {
            RequestView::Body(r) => Some(r),
            _ => None,
        }
    }
    /// A short description of a non-executable view (`metadata only`, `omitted`,
    /// `gap: too-large (detail)`), or None for a body.
    pub fn describe(&self) -> Option<String> {
        match self {
            RequestView::Body(_) => None,
            RequestView::Metadata => {
                Some("metadata only: the request's content was not shared".into())
            }
            RequestView::Omit => {
                Some("omitted: the request's content was intentionally left out".into())
            }
            RequestView::Gap { reason, detail } => Some(match detail {
                Some(d) => format!("gap: the content is missing ({reason}: {d})"),
                None => format!("gap: the content is missing ({reason})"),
            }),
            RequestView::NotAForm { reasons } => Some(format!(
                "not a form: the requested schema cannot be answered as a form ({})",
                reasons.join("; ")
            )),
        }
    }
}

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
    /// ([`super::fast::read_valid`]: `respond`, `demo --request`) took it,
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

/// Read JSON text with the hard limits checked first (size, nesting depth),
/// then UTF-8 and syntax.
///
/// Errors: one violation at the root, rule `limits`, `utf8` or `json`.
pub fn parse_json(bytes: &[u8]) -> Result<Value, Violation> {
    if bytes.len() > MAX_EVENT_BYTES {
        return Err(Violation::new(
            "",
            Rule::Limits,
            format!(
                "{} bytes exceed the limit of {MAX_EVENT_BYTES} bytes per event",
                bytes.len()
            ),
        ));
    }
    let text = shallow_text(bytes)?;
    serde_json::from_str(text).map_err(|e| Violation::new("", Rule::Json, format!("not JSON: {e}")))
}

/// The text of JSON `bytes` whose size was checked: its nesting depth
/// within [`MAX_DEPTH`] (checked before any parsing, so a deep input costs
/// one pass), then UTF-8.
///
/// Errors: one violation at the root, rule `limits` or `utf8`.
pub(crate) fn shallow_text(bytes: &[u8]) -> Result<&str, Violation> {
    let depth = json_depth(bytes);
    if depth > MAX_DEPTH {
        return Err(Violation::new(
            "",
            Rule::Limits,
            format!("nesting depth {depth} exceeds the limit of {MAX_DEPTH}"),
        ));
    }
    std::str::from_utf8(bytes).map_err(|e| {
        Violation::new(
            "",
            Rule::Utf8,
            format!(
                "input is not UTF-8: invalid byte at offset {}",
                e.valid_up_to()
            ),
        )
    })
}

/// The value at a path of object keys (a JSON pointer without escapes,
/// walked without the allocations of [`Value::pointer`]).
fn at<'a>(v: &'a Value, path: &[&str]) -> Option<&'a Value> {
    path.iter().try_fold(v, |v, k| v.get(k))
}

fn str_at<'a>(v: &'a Value, path: &[&str]) -> Option<&'a str> {
    at(v, path).and_then(Value::as_str)
}

/// The path of the elicitation payload's members.
const ELICITATION: [&str; 2] = ["payload", "elicitation"];

fn elicitation_str<'a>(v: &'a Value, member: &str) -> Option<&'a str> {
    at(v, &ELICITATION)?.get(member)?.as_str()
}

fn server_at(event: &Value) -> Result<Server, Violation> {
    let s = at(event, &ELICITATION)
        .and_then(|e| e.get("server"))
        .unwrap_or(&Value::Null);
    Server::deserialize(s).map_err(|e| {
        Violation::new(
            "/payload/elicitation/server",
            Rule::WireRoot,
            format!("server: {e}"),
        )
    })
}

/// Parse the body text of `part` (limits, then JSON); a fault is at the
/// root of the part.
pub(super) fn parse_text(text: &str, part: Part) -> Result<Value, Violation> {
    let depth = json_depth(text.as_bytes());
    if depth > MAX_DEPTH {
        return Err(Violation::within(
            part,
            "",
            Rule::Limits,
            format!("nesting depth {depth} of the body text exceeds the limit of {MAX_DEPTH}"),
        ));
    }
    serde_json::from_str(text).map_err(|e| {
        Violation::within(
            part,
            "",
            Rule::TextJson,
            format!("the text part is not JSON: {e}"),
        )
    })
}

/// The body selection of the elicitation part `part` (`request` or
/// `result`).
fn read_view<'a>(event: &'a Value, part: &str) -> PartView<'a> {
    match at(event, &ELICITATION).and_then(|e| e.get(part)) {
        None => PartView::Omit,
        Some(p) => match p.get("selection").and_then(Value::as_str) {
            Some("metadata") => PartView::Metadata,
            Some("omit") => PartView::Omit,
            _ => match (p.get("text").and_then(Value::as_str), p.get("gap")) {
                (Some(t), _) => PartView::Text(t),
                (None, Some(g)) => PartView::Gap {
                    reason: g
                        .get("reason")
                        .and_then(Value::as_str)
                        .unwrap_or("unavailable")
                        .to_owned(),
                    detail: g.get("detail").and_then(Value::as_str).map(str::to_owned),
                },
                (None, None) => PartView::Omit,
            },
        },
    }
}

enum PartView<'a> {
    /// The body text, borrowed from the event.
    Text(&'a str),
    Metadata,
    Omit,
    Gap {
        reason: String,
        detail: Option<String>,
    },
}

/// Check the strings of a request against [`MAX_STRING_CHARS`] (the request
/// text itself is bounded by the event size).
fn check_string_limits(v: &Value, ptr: &str, errs: &mut Vec<Violation>) {
    // Pointers are built only on the way to a string that is too long.
    if !has_long_string(v) {
        return;
    }
    match v {
        Value::String(s) if s.len() > MAX_STRING_CHARS && s.chars().count() > MAX_STRING_CHARS => {
            errs.push(Violation::new(
                ptr,
                Rule::Limits,
                format!(
                    "string of {} characters exceeds the limit of {MAX_STRING_CHARS}",
                    s.chars().count()
                ),
            ))
        }
        Value::Array(a) => a
            .iter()
            .enumerate()
            .for_each(|(i, x)| check_string_limits(x, &format!("{ptr}/{i}"), errs)),
        Value::Object(o) => o
            .iter()
            .for_each(|(k, x)| check_string_limits(x, &super::violation::join(ptr, k), errs)),
        _ => {}
    }
}

/// Whether some string value in `v` has more than [`MAX_STRING_CHARS`]
/// bytes (a string over the character limit is one of them); no allocation.
fn has_long_string(v: &Value) -> bool {
    match v {
        Value::String(s) => s.len() > MAX_STRING_CHARS,
        Value::Array(a) => a.iter().any(has_long_string),
        Value::Object(o) => o.values().any(has_long_string),
        _ => false,
    }
}

/// Read elicitation/create params of MCP revision `rev`, already parsed
/// from the text. `meta_mode` is the event's explicit mode. Pointers are
/// relative to the params (`/requestedSchema/...`).
///
/// Errors: schema violations (`mcp-request/...`), then runtime checks
/// (`mode-match`, `form-subset` and the rules of
/// [`parse_form_schema`](super::form_schema::parse_form_schema)).
pub fn read_params(
    rev: Revision,
    params: &Value,
    meta_mode: Mode,
) -> Result<ElicitationRequest, Vec<Violation>> {
    let (message, body) = read_params_body(rev, params, meta_mode)?;
    Ok(ElicitationRequest {
        params: params.as_object().cloned().unwrap_or_default(),
        message,
        body,
    })
}

/// [`read_params`] for params the caller owns: the params map is moved into
/// the request, not copied.
fn take_params(
    rev: Revision,
    params: Value,
    meta_mode: Mode,
) -> Result<ElicitationRequest, Vec<Violation>> {
    let (message, body) = read_params_body(rev, &params, meta_mode)?;
    let params = match params {
        Value::Object(m) => m,
        // read_params_body refuses anything but an object.
        _ => Map::new(),
    };
    Ok(ElicitationRequest {
        params,
        message,
        body,
    })
}

/// Read elicitation/create params under `policy`: [`read_params`] under the
/// strict policy; under the compatible one a form's `requestedSchema` is
/// first read by [`policy::read_compatible`] and the rest of the params by
/// [`read_params`], and a schema the form cannot take (or one whose
/// rewritten subset still breaks a rule of the closed form subset) gives
/// [`RequestView::NotAForm`]. `params` of the request stay the complete
/// params as sent.
///
/// Errors: the violations of the params outside `requestedSchema` (and,
/// under the strict policy, inside it), as [`read_params`] gives them.
pub fn read_params_with(
    rev: Revision,
    params: &Value,
    meta_mode: Mode,
    policy: SchemaPolicy,
) -> Result<RequestView, Vec<Violation>> {
    let schema = match (policy, meta_mode, params.get("requestedSchema")) {
        (SchemaPolicy::Compatible, Mode::Form, Some(rs)) => rs,
        _ => return read_params(rev, params, meta_mode).map(RequestView::Body),
    };
    let mut normal = params.clone();
    let reading = policy::read_compatible(schema);
    let subset = match &reading {
        Ok(c) => c.schema.clone(),
        // Check the rest of the params against an empty form.
        Err(_) => json!({"type": "object", "properties": {}}),
    };
    if let Some(o) = normal.as_object_mut() {
        o.insert("requestedSchema".into(), subset);
    }
    let mut req = match (read_params(rev, &normal, meta_mode), reading) {
        (Err(errs), _) => return not_a_form_or_errors(errs),
        (Ok(_), Err(naf)) => {
            return Ok(RequestView::NotAForm {
                reasons: naf.reasons,
            })
        }
        (Ok(req), Ok(c)) => {
            let mut req = req;
            if let RequestBody::Form(form) = &mut req.body {
                form.outside_subset = c.outside_subset;
                for (name, extra) in c.extras {
                    if let Some(f) = form.fields.iter_mut().find(|f| f.name == name) {
                        f.extra = extra;
                    }
                }
                let reasons = defaults_misfit(form);
                if !reasons.is_empty() {
                    return Ok(RequestView::NotAForm { reasons });
                }
            }
            req
        }
    };
    if let Some(o) = params.as_object() {
        req.params = o.clone();
    }
    Ok(RequestView::Body(req))
}

/// Defaults that the subset accepted but the extra checks refuse (a
/// `default` that breaks its own `pattern`): the form could not send them.
fn defaults_misfit(form: &FormSchema) -> Vec<String> {
    form.fields
        .iter()
        .filter(|f| !f.extra.is_empty())
        .filter_map(|f| {
            let d = f.default_value()?;
            let m = super::content::check_value(f, &d).err()?;
            let ptr = super::violation::join("/properties", &f.name);
            let text = format!("{ptr}/default: [default-fits] default does not fit the field: {m}");
            Some(crate::safe_text::display(&text).into_owned())
        })
        .collect()
}

/// Violations of the rewritten params: all inside `requestedSchema` means
/// the form cannot be answered (shown to the person); any outside it is an
/// invalid request.
fn not_a_form_or_errors(errs: Vec<Violation>) -> Result<RequestView, Vec<Violation>> {
    const AT: &str = "/requestedSchema";
    let inside = |v: &Violation| {
        v.location.part.is_none()
            && (v.location.pointer == AT || v.location.pointer.starts_with("/requestedSchema/"))
    };
    if errs.iter().all(inside) {
        let reasons = errs
            .iter()
            .map(|v| {
                let p = v.location.pointer.get(AT.len()..).unwrap_or_default();
                let p = if p.is_empty() { "(root)" } else { p };
                let text = format!("{p}: [{}] {}", v.rule, v.message);
                crate::safe_text::display(&text).into_owned()
            })
            .collect();
        Ok(RequestView::NotAForm { reasons })
    } else {
        Err(errs)
    }
}

/// [`read_params_with`] for params the caller owns: under the strict policy
/// they are moved into the request, not copied.
fn take_params_with(
    rev: Revision,
    params: Value,
    meta_mode: Mode,
    policy: SchemaPolicy,
) -> Result<RequestView, Vec<Violation>> {
    match policy {
        SchemaPolicy::Strict => take_params(rev, params, meta_mode).map(RequestView::Body),
        SchemaPolicy::Compatible => read_params_with(rev, &params, meta_mode, policy),
    }
}

/// The checks of [`read_params`]; returns the message and the body. Every
/// `mcp-request` violation names the revision whose definitions were
/// applied.
fn read_params_body(
    rev: Revision,
    params: &Value,
    meta_mode: Mode,
) -> Result<(String, RequestBody), Vec<Violation>> {
    params_body(rev, params, meta_mode, None).map_err(|errs| tag_revision(errs, rev))
}

/// The runtime checks of [`read_params`] on params whose pinned `request`
/// definition `_proof` shows to hold (the schema is not run again); returns
/// the message and the body. Errors as [`read_params`].
pub(crate) fn proven_params_body(
    rev: Revision,
    params: &Value,
    meta_mode: Mode,
    proof: &super::fast::SchemaHolds,
) -> Result<(String, RequestBody), Vec<Violation>> {
    params_body(rev, params, meta_mode, Some(proof)).map_err(|errs| tag_revision(errs, rev))
}

/// Append ` (MCP <version>)` to the message of each violation of a pinned
/// definition's rule (`mcp-request`, `mcp-result` and their keywords) that
/// does not name it yet.
fn tag_revision(mut errs: Vec<Violation>, rev: Revision) -> Vec<Violation> {
    let tag = rev.tag();
    for e in &mut errs {
        let name = e.rule.as_str();
        let pinned = name.starts_with("mcp-request") || name.starts_with("mcp-result");
        if pinned && !e.message.ends_with(&tag) {
            e.message.push_str(&tag);
        }
    }
    errs
}

/// `proof`: the pinned definition is known to hold (see [`super::fast`]);
/// None runs it.
fn params_body(
    rev: Revision,
    params: &Value,
    meta_mode: Mode,
    proof: Option<&super::fast::SchemaHolds>,
) -> Result<(String, RequestBody), Vec<Violation>> {
    let Some(obj) = params.as_object() else {
        return Err(vec![Violation::new(
            "",
            Rule::McpRequest,
            "the params must be a JSON object",
        )]);
    };
    let errs = mode_and_limits(obj, params, meta_mode);
    if !errs.is_empty() {
        return Err(errs);
    }
    if proof.is_none() {
        let schema_errs = schemas::validate_mcp_request(rev, params);
        if !schema_errs.is_empty() {
            return Err(schema_errs);
        }
    }
    let message = match obj.get("message") {
        Some(Value::String(s)) => s.clone(),
        _ => {
            return Err(vec![Violation::new(
                "/message",
                Rule::McpRequest,
                "message is required and must be a string",
            )])
        }
    };
    let body = match meta_mode {
        Mode::Form => form_body(rev, obj)?,
        Mode::Url => url_body(rev, obj)?,
    };
    Ok((message, body))
}

/// The runtime rules checked before the schema: the params' mode (it
/// decides which definition applies) against the event's, and the string
/// limits.
fn mode_and_limits(obj: &Map<String, Value>, params: &Value, meta_mode: Mode) -> Vec<Violation> {
    let mut errs = Vec::new();
    let parsed_mode = match obj.get("mode") {
        None => Some(Mode::Form),
        Some(Value::String(s)) => Mode::parse(s),
        Some(_) => None,
    };
    match parsed_mode {
        None => errs.push(Violation::new(
            "/mode",
            Rule::McpRequest,
            "mode must be \"form\" or \"url\"",
        )),
        Some(m) if m != meta_mode => errs.push(Violation::new(
            "/mode",
            Rule::ModeMatch,
            format!(
                "the event says mode {} but the params give mode {} (a missing mode means form)",
                meta_mode.as_str(),
                m.as_str()
            ),
        )),
        Some(_) => {}
    }
    check_string_limits(params, "", &mut errs);
    errs
}

/// The body of form-mode params: no URL-mode members, and a
/// `requestedSchema` inside the closed form subset.
fn form_body(rev: Revision, obj: &Map<String, Value>) -> Result<RequestBody, Vec<Violation>> {
    let mut errs = Vec::new();
    // Under 2026-07-28 no mode defines elicitationId: in a form it is an
    // open extra member, as in a URL request.
    let url_members: &[&str] = if rev.data().url_elicitation_id {
        &["url", "elicitationId"]
    } else {
        &["url"]
    };
    for k in url_members {
        if obj.contains_key(*k) {
            errs.push(Violation::new(
                format!("/{k}"),
                Rule::McpRequest,
                format!("'{k}' belongs to URL mode, not a form request"),
            ));
        }
    }
    match obj.get("requestedSchema") {
        None => errs.push(Violation::new(
            "",
            Rule::McpRequest,
            "a form request must have requestedSchema",
        )),
        Some(rs) => match parse_form_schema(rs, "/requestedSchema") {
            Ok(f) if errs.is_empty() => return Ok(RequestBody::Form(f)),
            Ok(_) => {}
            Err(e) => errs.extend(e),
        },
    }
    Err(errs)
}

/// The body of URL-mode params: no `requestedSchema`, an absolute `url`
/// and, under a revision whose URL requests carry one (2025-11-25), a
/// string `elicitationId`. Under 2026-07-28 the params define no
/// `elicitationId`: one that is there anyway is an open extra member,
/// preserved in the params and not read.
fn url_body(rev: Revision, obj: &Map<String, Value>) -> Result<RequestBody, Vec<Violation>> {
    let wants_id = rev.data().url_elicitation_id;
    let mut errs = Vec::new();
    if obj.contains_key("requestedSchema") {
        errs.push(Violation::new(
            "/requestedSchema",
            Rule::McpRequest,
            "a URL request has no requestedSchema",
        ));
    }
    let url = obj.get("url").and_then(Value::as_str);
    let id = obj.get("elicitationId").and_then(Value::as_str);
    let id_ok = id.is_some() || !wants_id;
    match (url, id) {
        (Some(u), i) if errs.is_empty() && id_ok => {
            if url::Url::parse(u).is_err() {
                return Err(vec![Violation::new(
                    "/url",
                    Rule::McpRequest,
                    "url must be an absolute URL",
                )]);
            }
            Ok(RequestBody::Url {
                url: u.to_owned(),
                elicitation_id: i.filter(|_| wants_id).map(str::to_owned),
            })
        }
        (u, i) => {
            if u.is_none() {
                errs.push(Violation::new(
                    "/url",
                    Rule::McpRequest,
                    "a URL request needs a string url",
                ));
            }
            if i.is_none() && wants_id {
                errs.push(Violation::new(
                    "/elicitationId",
                    Rule::McpRequest,
                    "a URL request needs a string elicitationId",
                ));
            }
            Err(errs)
        }
    }
}

fn check_type(event: &Value, want: &str) -> Result<(), Vec<Violation>> {
    let ty = event.get("type").and_then(Value::as_str).unwrap_or("");
    if ty == want {
        Ok(())
    } else {
        Err(vec![Violation::new(
            "/type",
            Rule::EventType,
            format!("expected a {want} event, found '{ty}'"),
        )])
    }
}

/// Read and validate a `user.elicitation.request` event under the strict
/// schema policy.
///
/// Errors: every violation, pointers into the event or, for faults in the
/// body, the request text part ([`Part::RequestText`]) and a pointer into
/// the params.
pub fn read_request_event(event: &Value) -> Result<RequestEvent, Vec<Violation>> {
    read_request_event_with(event, SchemaPolicy::Strict)
}

/// [`read_request_event`] with the `requestedSchema` read under `policy`
/// (see [`super::policy`]): under the compatible policy a form outside the
/// subset becomes a form with extra checks, or a
/// [`RequestView::NotAForm`]. The params are kept complete either way.
pub fn read_request_event_with(
    event: &Value,
    policy: SchemaPolicy,
) -> Result<RequestEvent, Vec<Violation>> {
    let mut r = request_parts(event, policy)?;
    r.event = event.clone();
    Ok(r)
}

/// [`read_request_event`] for an event the caller owns: the event is moved
/// into the [`RequestEvent`], not copied.
pub fn take_request_event(event: Value) -> Result<RequestEvent, Vec<Violation>> {
    take_request_event_with(event, SchemaPolicy::Strict)
}

/// [`read_request_event_with`] for an event the caller owns (moved, not
/// copied).
pub fn take_request_event_with(
    event: Value,
    policy: SchemaPolicy,
) -> Result<RequestEvent, Vec<Violation>> {
    let mut r = request_parts(&event, policy)?;
    r.event = event;
    Ok(r)
}

/// The checks of [`read_request_event`]; `event` of the answer is null.
fn request_parts(event: &Value, policy: SchemaPolicy) -> Result<RequestEvent, Vec<Violation>> {
    let errs = schemas::validate_event(event);
    if !errs.is_empty() {
        return Err(errs);
    }
    check_type(event, REQUEST_TYPE)?;
    let mcp = read_mcp_extension(event).map_err(|e| vec![e])?;
    let rev = revision_of(mcp.as_ref());
    let id = str_at(event, &["id"]).unwrap_or_default().to_owned();
    let adapter = str_at(event, &["source", "adapter"])
        .unwrap_or_default()
        .to_owned();
    let server = server_at(event).map_err(|e| vec![e])?;
    let Some(mode) = elicitation_str(event, "mode").and_then(Mode::parse) else {
        return Err(vec![Violation::new(
            "/payload/elicitation/mode",
            Rule::WireRoot,
            "mode must be \"form\" or \"url\"",
        )]);
    };
    let view = match read_view(event, "request") {
        PartView::Metadata => RequestView::Metadata,
        PartView::Omit => RequestView::Omit,
        PartView::Gap { reason, detail } => RequestView::Gap { reason, detail },
        PartView::Text(t) => {
            let params = parse_text(t, Part::RequestText).map_err(|e| vec![e])?;
            take_params_with(rev, params, mode, policy).map_err(|es| {
                es.into_iter()
                    .map(|e| e.in_part(Part::RequestText))
                    .collect::<Vec<_>>()
            })?
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

/// Read a parsed `ElicitResult` of MCP revision `rev` given the result
/// event's mode. Pointers are relative to the result.
///
/// Errors: schema violations (`mcp-result/...`), then the runtime rules
/// (content values, `content-only-accepted-form`).
pub fn read_result_value(
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
pub(crate) fn proven_result_checks(
    rev: Revision,
    value: &Value,
    mode: Mode,
    proof: &super::fast::SchemaHolds,
) -> Result<Action, Vec<Violation>> {
    result_rules(rev, value, mode, Some(proof)).map_err(|errs| tag_revision(errs, rev))
}

/// `proof`: the pinned definition is known to hold; None runs it.
fn result_rules(
    rev: Revision,
    value: &Value,
    mode: Mode,
    proof: Option<&super::fast::SchemaHolds>,
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

/// Read and validate a `user.elicitation.result` event on its own (no
/// request known): wire root, pinned `result` definition, action equal to
/// the parsed action, content only for an accepted form.
pub fn read_result_event(event: &Value) -> Result<ResultEvent, Vec<Violation>> {
    let mut r = result_parts(event)?;
    r.event = event.clone();
    Ok(r)
}

/// [`read_result_event`] for an event the caller owns: the event is moved
/// into the [`ResultEvent`], not copied.
pub fn take_result_event(event: Value) -> Result<ResultEvent, Vec<Violation>> {
    let mut r = result_parts(&event)?;
    r.event = event;
    Ok(r)
}

/// The checks of [`read_result_event`]; `event` of the answer is null.
fn result_parts(event: &Value) -> Result<ResultEvent, Vec<Violation>> {
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
    let text = serde_json::to_string(&Value::Object(result))
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
pub fn derive_result_id(request_id: &str) -> String {
    if request_id.chars().count() <= 249 {
        format!("{request_id}-result")
    } else {
        use sha2::Digest;
        let d = sha2::Sha256::digest(request_id.as_bytes());
        let hex: String = d.iter().take(16).map(|b| format!("{b:02x}")).collect();
        format!("result-{hex}")
    }
}

/// Wrap raw MCP `elicitation/create` params into a validated
/// `user.elicitation.request` event (`ahp-elicit wrap`): the mode is
/// taken from the params (missing means form) and written explicitly in the
/// metadata; the params are serialized whole into `request.text`, nothing
/// injected.
///
/// Errors: the violations of the built event, as [`read_request_event`]
/// reports them.
pub fn wrap_params(
    params: &Value,
    server: &Server,
    adapter: &str,
    id: &str,
    time: Option<&str>,
) -> Result<RequestEvent, Vec<Violation>> {
    wrap_params_with(params, server, adapter, id, time, SchemaPolicy::Strict)
}

/// [`wrap_params`] with the params read under `policy`. Under the
/// compatible policy the event also says how it was read, in its open
/// `extensions` object under [`policy::EXTENSION_KEY`]:
/// `{"policy": "compatible", "outsideSubset": [pointers]}` for a form, plus
/// `"notAForm": [reasons]` when it cannot be answered as one. The params in
/// `request.text` are the complete params either way; a strict reader
/// (`validate`) still reports such a request with the subset's rule.
pub fn wrap_params_with(
    params: &Value,
    server: &Server,
    adapter: &str,
    id: &str,
    time: Option<&str>,
    policy: SchemaPolicy,
) -> Result<RequestEvent, Vec<Violation>> {
    wrap_params_in(params, server, adapter, id, time, policy, None)
}

/// [`wrap_params_with`] for params of the revision that `mcp` names:
/// `Some` writes it as the event's `extensions.mcp` (with `inputKey` and
/// `call` when given) and the params are checked against that revision's
/// definitions; None writes no `extensions.mcp` (2025-11-25).
///
/// Errors: the violations of the built event, as [`read_request_event`]
/// reports them.
pub fn wrap_params_in(
    params: &Value,
    server: &Server,
    adapter: &str,
    id: &str,
    time: Option<&str>,
    policy: SchemaPolicy,
    mcp: Option<&McpExtension>,
) -> Result<RequestEvent, Vec<Violation>> {
    let rev = revision_of(mcp);
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
    let time = time.map(str::to_owned).unwrap_or_else(|| {
        humantime::format_rfc3339_millis(std::time::SystemTime::now()).to_string()
    });
    let mut event = json!({
        "ahp": "0.1",
        "id": id,
        "type": REQUEST_TYPE,
        "time": time,
        "source": { "adapter": adapter },
        "payload": { "elicitation": {
            "server": server,
            "mode": mode,
            "request": { "type": "text", "selection": "body", "text": text }
        } }
    });
    if let (Some(m), Some(o)) = (mcp, event.as_object_mut()) {
        o.insert("extensions".into(), json!({ EXTENSION_KEY: m.to_value() }));
    }
    let mut req = read_built_request(event, policy)?;
    if policy == SchemaPolicy::Compatible && req.mode == Mode::Form {
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

/// A request event built here, read as [`read_request_event_with`] reads
/// it. Under the strict policy its text goes through the fast reading
/// first ([`super::fast::read_valid`]: no schema run, so the first request
/// of a session does not wait for the schemas to compile); what it does not
/// take, and every event under the compatible policy, takes the full
/// reading, which alone reports violations. The event is kept whole either
/// way.
fn read_built_request(event: Value, policy: SchemaPolicy) -> Result<RequestEvent, Vec<Violation>> {
    if policy == SchemaPolicy::Strict {
        let fast = serde_json::to_vec(&event)
            .ok()
            .and_then(|b| super::fast::read_valid(&b));
        if let Some(super::fast::ValidEvent::Request(mut req)) = fast {
            req.event = event;
            return Ok(req);
        }
    }
    take_request_event_with(event, policy)
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
    if let RequestView::NotAForm { reasons } = view {
        note.insert("notAForm".into(), json!(reasons));
    }
    Value::Object(note)
}
