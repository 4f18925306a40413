//! Effects: `modify(content)` (the binding: "Elicitation modification
//! target").
//!
//! An effect, as JSON (closed):
//! `{ "effect": "modify", "target": "content", "op": "replace" | "merge", "value": … }`.
//! The standalone effect shape cannot say what `value` must be: the target
//! event decides ([`apply_content_effect`]):
//!
//! * at `user.elicitation.result` ([`modify_result`]) the target is the
//!   parsed result's `content` answer object; `value` must be an object (a
//!   list or any other non-object is rejected whole); `replace` swaps the
//!   content, `merge` is shallow (a key in `value` replaces that field's
//!   whole value, omitted fields survive; `null` is a value, not a deletion,
//!   and is then refused by the answer shape). Only an `accept` form result
//!   whose `result` part is `selection: "body"` with text, for a subscriber
//!   with read-write permission. The effective content is checked against
//!   the answer shape and the original form; the complete effective
//!   `ElicitResult` (`_meta` and extension fields kept) is serialized back
//!   into `result.text`; `action`, `mode`, `server`, `parentEventId` and the
//!   rest of the envelope stay as they were.
//! * at `user.message.outbound` ([`modify_outbound`]) the target is the
//!   canonical message list; `value` must be a list (an object is rejected
//!   whole), and only `replace` is defined (a shallow merge of a list has no
//!   meaning here, so `merge` is refused).
//! * `user.elicitation.request` has no `modify(request)`; every other event
//!   type has no `modify(content)` target.
//!
//! Every function is atomic: it returns a new event or the reasons for the
//! refusal, and never changes its input.
//!
//! Pointers: into the event as usual (`/payload/...`, or the text part's
//! pointer, `#`, and a pointer into the parsed result); a fault in the
//! effect document itself is `effect#` and a pointer into the effect
//! (`effect#/value`). Rules: `permission`, `effect-shape`, `effect-target`,
//! `effect-request`, `effect-mode`, `effect-action`, `effect-selection`,
//! `effect-value`, `effect-op`, `effect-attachment`, `outbound-message`, and
//! the binding's own rules for the effective value.

use serde_json::{Map, Value};

use super::content::check_content;
use super::envelope::{Action, Mode, REQUEST_TYPE, RESULT_TYPE};
use super::form_schema::FormSchema;
use super::params::{RequestBody, RequestView};
use super::read::read_result;
use super::request::RequestEvent;
use super::result::{check_answer, read_result_value, ElicitResult, ResultEvent};
use super::revision::Revision;
use super::schemas;
use super::violation::{Part, Rule, Violation};

/// Event type whose `modify(content)` target is the message list.
pub const OUTBOUND_TYPE: &str = "user.message.outbound";
/// Pointer prefix for faults in the effect document.
pub use super::violation::EFFECT;

/// The subscriber's permission on the event (modify needs read
/// and write).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Permission {
    /// May see the event, may not change it.
    Read,
    /// May see and change the event.
    ReadWrite,
}

impl Permission {
    /// Parse `read` or `read-write`.
    pub fn parse(s: &str) -> Option<Permission> {
        match s {
            "read" => Some(Permission::Read),
            "read-write" => Some(Permission::ReadWrite),
            _ => None,
        }
    }
}

/// `read` or `read-write` on the command line (`--permission`), with the
/// words listed in `--help` and the completions.
#[cfg(feature = "cli")]
impl clap::ValueEnum for Permission {
    fn value_variants<'a>() -> &'a [Self] {
        &[Permission::Read, Permission::ReadWrite]
    }
    fn to_possible_value(&self) -> Option<clap::builder::PossibleValue> {
        Some(clap::builder::PossibleValue::new(match self {
            Permission::Read => "read",
            Permission::ReadWrite => "read-write",
        }))
    }
}

/// How `value` is applied.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    /// Swap the target for `value`.
    Replace,
    /// Shallow merge of `value` into the target object.
    Merge,
}

/// A parsed `modify(content)` effect. `value` is kept as given: the target
/// decides whether it must be an object or a list.
#[derive(Debug, Clone, PartialEq)]
pub struct ContentEffect {
    pub op: Op,
    pub value: Value,
}

fn shape(ptr: &str, msg: impl Into<String>) -> Violation {
    Violation::within(Part::Effect, ptr, Rule::EffectShape, msg)
}

/// Read an effect document (closed: `effect`, `target`, `op`, `value`).
///
/// Errors (rule `effect-shape`, pointers `effect#/...`): not an object, an
/// unknown key, `effect` not `modify`, `target` not `content`, `op` not
/// `replace`/`merge`, `value` missing.
pub fn parse_effect(v: &Value) -> Result<ContentEffect, Vec<Violation>> {
    let Some(o) = v.as_object() else {
        return Err(vec![shape("", "an effect must be a JSON object")]);
    };
    let mut errs = Vec::new();
    for k in o.keys() {
        if !matches!(k.as_str(), "effect" | "target" | "op" | "value") {
            errs.push(shape(
                &super::violation::join("", k),
                format!("unknown effect key '{k}' (effect, target, op, value)"),
            ));
        }
    }
    if o.get("effect").and_then(Value::as_str) != Some("modify") {
        errs.push(shape("/effect", "effect must be \"modify\""));
    }
    if o.get("target").and_then(Value::as_str) != Some("content") {
        errs.push(shape(
            "/target",
            "target must be \"content\" (the only modify target of this binding)",
        ));
    }
    let op = match o.get("op").and_then(Value::as_str) {
        Some("replace") => Some(Op::Replace),
        Some("merge") => Some(Op::Merge),
        _ => {
            errs.push(shape("/op", "op must be \"replace\" or \"merge\""));
            None
        }
    };
    let value = o.get("value").cloned();
    if value.is_none() {
        errs.push(shape("/value", "value is required"));
    }
    match (op, value) {
        (Some(op), Some(value)) if errs.is_empty() => Ok(ContentEffect { op, value }),
        _ => Err(errs),
    }
}

fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    }
}

fn need_write(perm: Permission) -> Result<(), Vec<Violation>> {
    match perm {
        Permission::ReadWrite => Ok(()),
        Permission::Read => Err(vec![Violation::new(
            "",
            Rule::Permission,
            "modify needs read-write permission; this subscriber has read only",
        )]),
    }
}

/// Apply `effect` to `event`, dispatching on its `type`:
/// a result goes to [`modify_result`] (needs `request`, the original
/// request event), an outbound message to [`modify_outbound`];
/// `user.elicitation.request` and every other type are refused
/// (`effect-target`).
pub fn apply_content_effect(
    event: &Value,
    request: Option<&RequestEvent>,
    effect: &ContentEffect,
    perm: Permission,
) -> Result<Value, Vec<Violation>> {
    match event.get("type").and_then(Value::as_str) {
        Some(RESULT_TYPE) => match request {
            Some(req) => modify_result(req, event, effect, perm),
            None => Err(vec![Violation::new(
                "/parentEventId",
                Rule::EffectRequest,
                "modify at a result needs the original request, to check the content against its form",
            )]),
        },
        Some(OUTBOUND_TYPE) => modify_outbound(event, effect, perm),
        Some(REQUEST_TYPE) => Err(vec![Violation::new(
            "/type",
            Rule::EffectTarget,
            "user.elicitation.request has no modify(request): its MCP params are not a message-list target",
        )]),
        Some(t) => Err(vec![Violation::new(
            "/type",
            Rule::EffectTarget,
            format!("{t} has no modify(content) target in this binding"),
        )]),
        None => Err(vec![Violation::new(
            "/type",
            Rule::EffectTarget,
            "the event has no type",
        )]),
    }
}

/// modify(content) at a `user.elicitation.result` answering `req`
/// (see the module doc for the rules). Checks, in order: permission; the
/// result valid on its own and as an answer to `req`; form mode; `accept`;
/// a body part with text; `value` an object; the effective result's answer
/// shape and its content against the form; then the new event is read back
/// exactly as a reader would.
///
/// Returns the new event; on refusal the reasons, and nothing changed.
pub fn modify_result(
    req: &RequestEvent,
    event: &Value,
    effect: &ContentEffect,
    perm: Permission,
) -> Result<Value, Vec<Violation>> {
    need_write(perm)?;
    let res = read_result(event.clone())?;
    let cross = check_answer(req, &res);
    if !cross.is_empty() {
        return Err(cross);
    }
    let rev = req.revision();
    let (form, parsed) = accepted_form(req, res)?;
    let effective = effective_result(rev, form, &parsed, effect)?;
    let text = serde_json::to_string(&effective).map_err(|e| {
        vec![Violation::within(
            Part::ResultText,
            "",
            Rule::Serialize,
            e.to_string(),
        )]
    })?;
    let mut out = event.clone();
    match out.pointer_mut("/payload/elicitation/result/text") {
        Some(slot) => *slot = Value::String(text),
        None => {
            return Err(vec![Violation::new(
                "/payload/elicitation/result",
                Rule::EffectSelection,
                "the result part has no text",
            )])
        }
    }
    // Read the new event back as any reader would: never emit an invalid one.
    let back = read_result(out)?;
    let errs = check_answer(req, &back);
    if errs.is_empty() {
        Ok(back.event)
    } else {
        Err(errs)
    }
}

/// The form of `req` and the parsed result of `res`, when the result is an
/// accepted form-mode answer in a body text and the request's form is known.
fn accepted_form(
    req: &RequestEvent,
    res: ResultEvent,
) -> Result<(&FormSchema, ElicitResult), Vec<Violation>> {
    if res.mode != Mode::Form {
        return Err(vec![Violation::new(
            "/payload/elicitation/mode",
            Rule::EffectMode,
            "a URL-mode result has no content to modify",
        )]);
    }
    if res.action != Action::Accept {
        return Err(vec![Violation::new(
            "/payload/elicitation/action",
            Rule::EffectAction,
            format!(
                "only an accepted form result has content to modify; this one is {}",
                res.action.as_str()
            ),
        )]);
    }
    let Some(parsed) = res.result else {
        return Err(vec![Violation::new(
            "/payload/elicitation/result",
            Rule::EffectSelection,
            "the result part is not a body with text (a metadata, omit or gap view cannot be modified)",
        )]);
    };
    match &req.view {
        RequestView::Body(r) => match &r.body {
            RequestBody::Form(f) => Ok((f, parsed)),
            RequestBody::Url { .. } => Err(vec![Violation::new(
                "/payload/elicitation/mode",
                Rule::EffectMode,
                "the request is a URL request",
            )]),
        },
        _ => Err(vec![Violation::new(
            "/payload/elicitation/result",
            Rule::EffectSelection,
            "the request is a metadata, omit or gap view: its form is not known",
        )]),
    }
}

/// The result with `effect` applied to its content, checked as an answer
/// shape and against `form`.
fn effective_result(
    rev: Revision,
    form: &FormSchema,
    parsed: &ElicitResult,
    effect: &ContentEffect,
) -> Result<Value, Vec<Violation>> {
    let Value::Object(value) = &effect.value else {
        return Err(vec![Violation::within(
            Part::Effect,
            "/value",
            Rule::EffectValue,
            format!(
                "modify(content) at a result takes an object; {} is rejected whole",
                kind(&effect.value)
            ),
        )]);
    };
    let content: Map<String, Value> = match effect.op {
        Op::Replace => value.clone(),
        Op::Merge => {
            let mut c = parsed.content.clone().unwrap_or_default();
            for (k, v) in value {
                c.insert(k.clone(), v.clone());
            }
            c
        }
    };
    let mut effective = parsed.value.clone();
    effective.insert("content".into(), Value::Object(content.clone()));
    let effective = Value::Object(effective);
    read_result_value(rev, &effective, Mode::Form).map_err(|es| {
        es.into_iter()
            .map(|e| e.in_part(Part::ResultText))
            .collect::<Vec<_>>()
    })?;
    let errs: Vec<Violation> = check_content(form, &content)
        .into_iter()
        .map(|e| e.in_part(Part::ResultText))
        .collect();
    if errs.is_empty() {
        Ok(effective)
    } else {
        Err(errs)
    }
}

fn is_hex64(s: &str) -> bool {
    s.len() == 64 && s.bytes().all(|b| b.is_ascii_hexdigit())
}

/// Check one canonical outbound message given as an effect value, at `ptr`
/// in the effect document:
/// closed `{role: "assistant", parts: [part, …]}` where a part is an inline
/// body text part, a JSON part, or an attachment reference that already is
/// in the event (`known`: no upload, attachment bytes immutable).
fn check_outbound_message(m: &Value, ptr: &str, known: &[&Value], errs: &mut Vec<Violation>) {
    let bad = |errs: &mut Vec<Violation>, p: String, msg: &str| {
        errs.push(Violation::within(
            Part::Effect,
            p,
            Rule::OutboundMessage,
            msg,
        ))
    };
    let Some(o) = m.as_object() else {
        return bad(errs, ptr.into(), "a canonical message is an object");
    };
    for k in o.keys() {
        if k != "role" && k != "parts" {
            bad(
                errs,
                super::violation::join(ptr, k),
                "a canonical message has only role and parts",
            );
        }
    }
    if o.get("role").and_then(Value::as_str) != Some("assistant") {
        bad(
            errs,
            format!("{ptr}/role"),
            "outbound messages have role \"assistant\"",
        );
    }
    let parts = match o.get("parts") {
        Some(Value::Array(p)) if !p.is_empty() => p,
        _ => return bad(errs, format!("{ptr}/parts"), "parts is a non-empty list"),
    };
    for (i, p) in parts.iter().enumerate() {
        let pp = format!("{ptr}/parts/{i}");
        let Some(po) = p.as_object() else {
            bad(errs, pp, "a part is an object");
            continue;
        };
        let keys: Vec<&str> = po.keys().map(String::as_str).collect();
        match po.get("type").and_then(Value::as_str) {
            Some("text") => {
                let ok = po.get("selection").and_then(Value::as_str) == Some("body")
                    && po.get("text").is_some_and(Value::is_string)
                    && keys
                        .iter()
                        .all(|k| matches!(*k, "type" | "selection" | "text"));
                if !ok {
                    bad(
                        errs,
                        pp,
                        "a modified text part is inline: exactly {type: \"text\", selection: \"body\", text}",
                    );
                }
            }
            Some("json") => {
                if !(po.contains_key("value")
                    && keys.iter().all(|k| matches!(*k, "type" | "value")))
                {
                    bad(errs, pp, "a JSON part is exactly {type: \"json\", value}");
                }
            }
            Some("attachment") => {
                let r = po.get("ref");
                let shape_ok = keys.iter().all(|k| matches!(*k, "type" | "ref"))
                    && r.and_then(Value::as_object).is_some_and(|r| {
                        r.len() == 4
                            && r.get("uri").is_some_and(Value::is_string)
                            && r.get("sha256")
                                .and_then(Value::as_str)
                                .is_some_and(is_hex64)
                            && r.get("mediaType").is_some_and(Value::is_string)
                            && r.get("size").is_some_and(Value::is_u64)
                    });
                if !shape_ok {
                    bad(
                        errs,
                        pp,
                        "an attachment part is {type: \"attachment\", ref: {uri, sha256, mediaType, size}}",
                    );
                } else if !known.iter().any(|k| Some(*k) == r) {
                    errs.push(Violation::within(
                        Part::Effect,
                        format!("{pp}/ref"),
                        Rule::EffectAttachment,
                        "an attachment reference must already be in the event: modify uploads nothing and attachment bytes are immutable",
                    ));
                }
            }
            _ => bad(
                errs,
                format!("{pp}/type"),
                "a part type is text, json or attachment",
            ),
        }
    }
}

/// modify(content) at `user.message.outbound` (the binding: "an
/// object at ordinary outbound modify(content) MUST be rejected"). The
/// target is `payload.message.messages`; `value` must be a non-empty list of
/// canonical assistant messages; only `replace`. Requires read-write
/// permission and an event whose text parts are all inline body text (the
/// subscriber saw the content). The new event is validated through the wire
/// root before it is returned.
///
/// Returns the new event; on refusal the reasons, and nothing changed.
pub fn modify_outbound(
    event: &Value,
    effect: &ContentEffect,
    perm: Permission,
) -> Result<Value, Vec<Violation>> {
    need_write(perm)?;
    let errs = schemas::validate_event(event);
    if !errs.is_empty() {
        return Err(errs);
    }
    if event.get("type").and_then(Value::as_str) != Some(OUTBOUND_TYPE) {
        return Err(vec![Violation::new(
            "/type",
            Rule::EffectTarget,
            format!("expected a {OUTBOUND_TYPE} event"),
        )]);
    }
    let Some(Value::Array(old)) = event.pointer("/payload/message/messages") else {
        return Err(vec![Violation::new(
            "/payload/message/messages",
            Rule::OutboundMessage,
            "the event has no message list",
        )]);
    };
    // Authorized body selection: every text part of the event is inline.
    let mut known = Vec::new();
    for (i, m) in old.iter().enumerate() {
        for (j, p) in m
            .get("parts")
            .and_then(Value::as_array)
            .map(Vec::as_slice)
            .unwrap_or_default()
            .iter()
            .enumerate()
        {
            match p.get("type").and_then(Value::as_str) {
                Some("text")
                    if !(p.get("selection").and_then(Value::as_str) == Some("body")
                        && p.get("text").is_some_and(Value::is_string)) =>
                {
                    return Err(vec![Violation::new(
                        format!("/payload/message/messages/{i}/parts/{j}"),
                        Rule::EffectSelection,
                        "the event holds a metadata, omit or gap view: its content was not shared, so it cannot be modified",
                    )]);
                }
                Some("attachment") => {
                    if let Some(r) = p.get("ref") {
                        known.push(r);
                    }
                }
                _ => {}
            }
        }
    }
    if effect.op != Op::Replace {
        return Err(vec![Violation::within(
            Part::Effect,
            "/op",
            Rule::EffectOp,
            "at user.message.outbound only replace is defined (a shallow merge of a message list has no meaning)",
        )]);
    }
    let Value::Array(list) = &effect.value else {
        return Err(vec![Violation::within(
            Part::Effect,
            "/value",
            Rule::EffectValue,
            format!(
                "modify(content) at user.message.outbound takes a list of canonical messages; {} is rejected whole",
                kind(&effect.value)
            ),
        )]);
    };
    if list.is_empty() {
        return Err(vec![Violation::within(
            Part::Effect,
            "/value",
            Rule::OutboundMessage,
            "the message list must not be empty",
        )]);
    }
    let mut errs = Vec::new();
    for (i, m) in list.iter().enumerate() {
        check_outbound_message(m, &format!("/value/{i}"), &known, &mut errs);
    }
    if !errs.is_empty() {
        return Err(errs);
    }
    let mut out = event.clone();
    if let Some(slot) = out.pointer_mut("/payload/message/messages") {
        *slot = effect.value.clone();
    }
    let errs = schemas::validate_event(&out);
    if errs.is_empty() {
        Ok(out)
    } else {
        Err(errs)
    }
}
