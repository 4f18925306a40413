//! The request params: the complete MCP `elicitation/create` params read
//! from `request.text` under a revision and a schema policy, with the
//! runtime checks of the binding (mode rule, string limits, the closed form
//! subset of `requestedSchema`, URL-mode members), into a
//! [`RequestView`].

use serde_json::{json, Map, Value};

use super::envelope::{member, Mode};
use super::form_schema::{parse_form_schema, FormSchema};
use super::holds::SchemaHolds;
use super::limits::MAX_STRING_CHARS;
use super::policy::{self, FieldExtra, SchemaPolicy};
use super::revision::Revision;
use super::schemas::{self, tag_revision};
use super::violation::{Rule, Violation};

/// The `_meta` key of MCP related-task metadata, echoed into results.
pub(super) const RELATED_TASK: &str = "io.modelcontextprotocol/related-task";

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
        /// The params' `message` as sent, when it is a string; not
        /// sanitised (hostile text).
        message: Option<String>,
        /// The names of `requestedSchema.properties` as sent, in their
        /// order, when it is an object; not sanitised (hostile text).
        fields: Option<Vec<String>>,
    },
}

impl RequestView {
    /// A [`RequestView::NotAForm`] for the `elicitation/create` `params` as
    /// sent, refused for `reasons`: their message and property names are
    /// kept, so nobody reads them from the request text again.
    pub fn not_a_form(params: &Value, reasons: Vec<String>) -> RequestView {
        let message = params
            .get("message")
            .and_then(Value::as_str)
            .map(str::to_owned);
        let fields = params
            .get("requestedSchema")
            .and_then(|s| s.get("properties"))
            .and_then(Value::as_object)
            .map(|o| o.keys().cloned().collect());
        RequestView::NotAForm {
            reasons,
            message,
            fields,
        }
    }

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
            RequestView::NotAForm { reasons, .. } => Some(format!(
                "not a form: the requested schema cannot be answered as a form ({})",
                reasons.join("; ")
            )),
        }
    }
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

/// [`read_params`] under the strict policy: the executable request.
/// Errors as [`read_params`] under the strict policy.
fn strict_params(
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

/// [`strict_params`] for params the caller owns: the params map is moved into
/// the request, not copied.
fn take_params(
    rev: Revision,
    params: Value,
    meta_mode: Mode,
) -> Result<ElicitationRequest, Vec<Violation>> {
    take_params_or_back(rev, params, meta_mode).map_err(|(errs, _)| errs)
}

/// [`take_params`], giving the params back beside the violations.
fn take_params_or_back(
    rev: Revision,
    params: Value,
    meta_mode: Mode,
) -> Result<ElicitationRequest, (Vec<Violation>, Value)> {
    let (message, body) = match read_params_body(rev, &params, meta_mode) {
        Ok(read) => read,
        Err(errs) => return Err((errs, params)),
    };
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

/// Read elicitation/create params of MCP revision `rev`, already parsed
/// from the text, under `policy`. `meta_mode` is the event's explicit
/// mode. Pointers are relative to the params (`/requestedSchema/...`).
///
/// Under the strict policy the params are checked against the pinned
/// `request` definition, then by the runtime checks (`mode-match`, the
/// string limits, `form-subset` and the rules of
/// `parse_form_schema`), into a
/// [`RequestView::Body`]. Under the compatible policy a form's
/// `requestedSchema` is first read under the compatible policy and the
/// rest of the params as under the strict policy, and a schema the form
/// cannot take (or one whose rewritten subset still breaks a rule of the
/// closed form subset) gives [`RequestView::NotAForm`]. `params` of the
/// request stay the complete params as sent.
///
/// Errors: schema violations (`mcp-request/...`), then the runtime checks,
/// of the params outside `requestedSchema` and, under the strict policy,
/// inside it.
pub fn read_params(
    rev: Revision,
    params: &Value,
    meta_mode: Mode,
    policy: SchemaPolicy,
) -> Result<RequestView, Vec<Violation>> {
    let schema = match (policy, meta_mode, params.get("requestedSchema")) {
        (SchemaPolicy::Compatible, Mode::Form, Some(rs)) => rs,
        _ => return strict_params(rev, params, meta_mode).map(RequestView::Body),
    };
    let reading = policy::read_compatible(schema);
    let read = strict_params_under(rev, params.clone(), meta_mode, &reading);
    let (message, body) = match (read, reading) {
        (Err(errs), _) => return not_a_form_or_errors(params, errs),
        (Ok(_), Err(naf)) => return Ok(RequestView::not_a_form(params, naf.reasons)),
        (Ok(read), Ok(c)) => {
            let (message, mut body) = read;
            if let RequestBody::Form(form) = &mut body {
                // The schema's own title and description, said on the
                // form as what it does not use.
                let text = |k: &str| {
                    let ignored = c.outside_subset.iter().any(|p| *p == format!("/{k}"));
                    let v = schema.get(k).and_then(Value::as_str);
                    v.filter(|_| ignored).map(str::to_owned)
                };
                form.title = text("title");
                form.description = text("description");
                form.outside_subset = c.outside_subset;
                let reasons = defaults_misfit(form, c.extras);
                if !reasons.is_empty() {
                    return Ok(RequestView::not_a_form(params, reasons));
                }
            }
            (message, body)
        }
    };
    Ok(RequestView::Body(ElicitationRequest {
        params: params.as_object().cloned().unwrap_or_default(),
        message,
        body,
    }))
}

/// The checks of [`strict_params`] (the message and the body) on `params`
/// with `requestedSchema` replaced by the compatible `reading`'s schema in
/// the closed subset, or, when the reading refused it, by an empty form
/// (so the rest of the params are still checked).
fn strict_params_under(
    rev: Revision,
    mut params: Value,
    meta_mode: Mode,
    reading: &Result<policy::Compatible, policy::NotAForm>,
) -> Result<(String, RequestBody), Vec<Violation>> {
    let subset = match reading {
        Ok(c) => c.schema.clone(),
        Err(_) => json!({"type": "object", "properties": {}}),
    };
    if let Some(o) = params.as_object_mut() {
        o.insert("requestedSchema".into(), subset);
    }
    read_params_body(rev, &params, meta_mode)
}

/// Whether the compatible policy reads `params`, which the strict policy
/// refused with `refusal` (pointers relative to the params), as a form:
/// the same answer as [`read_params`] under [`SchemaPolicy::Compatible`]
/// giving a view other than [`RequestView::NotAForm`], without building
/// the view. Outside a form with a `requestedSchema` the compatible
/// reading is the strict one (refused). It differs from the strict reading
/// only in `requestedSchema`, so a violation elsewhere in the params (the
/// root aside, where a fault of the schema may be said) refuses under it
/// too. A schema the compatible reading refuses gives no form whatever the
/// rest says; otherwise the strict checks under the rewritten schema and
/// the defaults' extra checks decide.
fn compatible_reads_a_form(
    rev: Revision,
    params: Value,
    meta_mode: Mode,
    refusal: &[Violation],
) -> bool {
    let (Mode::Form, Some(schema)) = (meta_mode, params.get("requestedSchema")) else {
        return false;
    };
    let elsewhere = |v: &Violation| {
        let p = v.location.pointer.as_str();
        v.location.part.is_none()
            && !p.is_empty()
            && p != "/requestedSchema"
            && !p.starts_with("/requestedSchema/")
    };
    if refusal.iter().any(elsewhere) {
        return false;
    }
    let reading = policy::read_compatible(schema);
    if reading.is_err() {
        return false;
    }
    match (
        strict_params_under(rev, params, meta_mode, &reading),
        reading,
    ) {
        (Ok((_, mut body)), Ok(c)) => match &mut body {
            RequestBody::Form(form) => defaults_misfit(form, c.extras).is_empty(),
            _ => true,
        },
        _ => false,
    }
}

/// Give `form`'s fields the compatible reading's extra checks, then say
/// which defaults the subset accepted but those checks refuse (a `default`
/// that breaks its own `pattern`): the form could not send them.
fn defaults_misfit(form: &mut FormSchema, extras: Vec<(String, FieldExtra)>) -> Vec<String> {
    for (name, extra) in extras {
        if let Some(f) = form.fields.iter_mut().find(|f| f.name == name) {
            f.extra = extra;
        }
    }
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
fn not_a_form_or_errors(
    params: &Value,
    errs: Vec<Violation>,
) -> Result<RequestView, Vec<Violation>> {
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
        Ok(RequestView::not_a_form(params, reasons))
    } else {
        Err(errs)
    }
}

/// [`read_params`] for params the caller owns: under the strict policy
/// they are moved into the request, not copied.
pub(super) fn take_params_with(
    rev: Revision,
    params: Value,
    meta_mode: Mode,
    policy: SchemaPolicy,
) -> Result<RequestView, Vec<Violation>> {
    match policy {
        SchemaPolicy::Strict => take_params(rev, params, meta_mode).map(RequestView::Body),
        SchemaPolicy::Compatible => read_params(rev, &params, meta_mode, policy),
    }
}

/// [`take_params_with`] under the strict policy, saying beside a refusal
/// whether the compatible policy reads the same params as a form (a
/// [`RequestView`] other than [`RequestView::NotAForm`]); the params are
/// parsed once for both readings.
pub(super) fn take_params_noting(
    rev: Revision,
    params: Value,
    meta_mode: Mode,
) -> Result<RequestView, (Vec<Violation>, bool)> {
    match take_params_or_back(rev, params, meta_mode) {
        Ok(req) => Ok(RequestView::Body(req)),
        Err((errs, params)) => {
            let form = compatible_reads_a_form(rev, params, meta_mode, &errs);
            Err((errs, form))
        }
    }
}

/// The checks of [`strict_params`]; returns the message and the body. Every
/// `mcp-request` violation names the revision whose definitions were
/// applied.
fn read_params_body(
    rev: Revision,
    params: &Value,
    meta_mode: Mode,
) -> Result<(String, RequestBody), Vec<Violation>> {
    params_body(rev, params, meta_mode, None).map_err(|errs| tag_revision(errs, rev))
}

/// The runtime checks of [`strict_params`] on params whose pinned `request`
/// definition `_proof` shows to hold (the schema is not run again); returns
/// the message and the body. Errors as [`strict_params`].
pub(super) fn proven_params_body(
    rev: Revision,
    params: &Value,
    meta_mode: Mode,
    proof: &SchemaHolds,
) -> Result<(String, RequestBody), Vec<Violation>> {
    params_body(rev, params, meta_mode, Some(proof)).map_err(|errs| tag_revision(errs, rev))
}

/// `proof`: the pinned definition is known to hold (see [`super::fast`]);
/// None runs it.
fn params_body(
    rev: Revision,
    params: &Value,
    meta_mode: Mode,
    proof: Option<&SchemaHolds>,
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
    let message = match member(obj, "message") {
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
    let parsed_mode = match member(obj, "mode") {
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
    match member(obj, "requestedSchema") {
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
    if member(obj, "requestedSchema").is_some() {
        errs.push(Violation::new(
            "/requestedSchema",
            Rule::McpRequest,
            "a URL request has no requestedSchema",
        ));
    }
    let url = member(obj, "url").and_then(Value::as_str);
    let id = member(obj, "elicitationId").and_then(Value::as_str);
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
