//! A result event as the one line it is written as: terminal-safe compact
//! JSON ([`crate::safe_text::json_line`]) and its id.
//!
//! [`make_result_line`] gives the same line as [`make_result_event`] then
//! [`crate::safe_text::json_line`], for every request, answer and meta. A
//! bare `decline` or `cancel` (no content, nothing echoed into the result's
//! `_meta`) is written straight from the request, with no
//! `serde_json::Value` tree and no schema run: such a result is valid by
//! construction once the few strings it copies hold their rules (checked
//! here, see [`bare_line`]). Any other answer, or a string that breaks its
//! rule, is built and validated by [`make_result_event`], which alone
//! reports violations. `tests/lib/result_line_agrees.rs` holds both ways to
//! the same bytes.

use serde_json::Value;

use super::content::format_ok;
use super::envelope::{Action, RESULT_TYPE};
use super::fast::{event_id, id_like};
use super::form_model::StringFormat;
use super::params::RELATED_TASK;
use super::request::RequestEvent;
use super::violation::{Rule, Violation};
use super::wrap::{derive_result_id, make_result_event, Answer, ResultMeta};

/// A validated result event as written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResultLine {
    /// The event's `id`.
    pub id: String,
    /// The event as one line of compact JSON, without the newline, every
    /// control, bidi or zero-width character written as a
    /// `\uXXXX` escape.
    pub line: String,
}

impl ResultLine {
    /// The event as a JSON value (the line read back; the escapes give the
    /// original strings).
    ///
    /// Errors: none for a line made here (it is JSON); the parser's error
    /// otherwise.
    pub fn event(&self) -> serde_json::Result<Value> {
        serde_json::from_str(&self.line)
    }
}

/// Build the result event for `answer` to `req` as [`make_result_event`]
/// does, validated, as the line it is written as.
///
/// Errors: the violations of the built event, as [`make_result_event`]
/// reports them; nothing is returned then.
pub fn make_result_line(
    req: &RequestEvent,
    answer: &Answer,
    meta: &ResultMeta,
) -> Result<ResultLine, Vec<Violation>> {
    if let Some(line) = bare_line(req, answer, meta) {
        return Ok(line);
    }
    let event = make_result_event(req, answer, meta)?;
    let id = match event.get("id").and_then(Value::as_str) {
        Some(id) => id.to_owned(),
        None => {
            return Err(vec![Violation::new(
                "/id",
                Rule::Serialize,
                "the built result has no string id",
            )])
        }
    };
    Ok(ResultLine {
        id,
        line: crate::safe_text::json_line(&event),
    })
}

/// The line of a bare `decline` or `cancel`, or None when the answer is
/// not one or a rule is not certain to hold (then [`make_result_event`]
/// judges it).
///
/// Why such a result is valid: the envelope is the wire root's closed
/// shape with `ahp` `0.1`, the result type and an `extensions` holding
/// only `mcp`; `id` and `parentEventId` are checked against `eventId`
/// here, `time` against the schema's `date-time` checker, `inputKey`
/// against its rule, the revision is a pinned one and `call` is never
/// echoed; `source.adapter` and the server's members are any strings. The
/// result text is `{"action": …}`, which the pinned `result` definition of
/// both revisions holds, with no content (only an accepted form has
/// content). Against its request: the same mode and revision, and not
/// `accept`, so the cross-checks of [`super::check_answer`] find nothing.
fn bare_line(req: &RequestEvent, answer: &Answer, meta: &ResultMeta) -> Option<ResultLine> {
    if answer.content.is_some() || !matches!(answer.action, Action::Decline | Action::Cancel) {
        return None;
    }
    // A related-task `_meta` echoed into the result: built in full.
    let echoes_task = req.revision().data().related_task_echo
        && req
            .view
            .request()
            .and_then(|r| r.params.get("_meta"))
            .and_then(|m| m.get(RELATED_TASK))
            .is_some();
    if echoes_task {
        return None;
    }
    let id = meta.id.clone().unwrap_or_else(|| derive_result_id(&req.id));
    let time = meta.time.clone().unwrap_or_else(|| {
        humantime::format_rfc3339_millis(std::time::SystemTime::now()).to_string()
    });
    let input_key_ok = req
        .mcp
        .as_ref()
        .and_then(|m| m.input_key.as_deref())
        .is_none_or(|k| id_like(k, 256));
    if !(event_id(&id)
        && event_id(&req.id)
        && input_key_ok
        && format_ok(StringFormat::DateTime, &time))
    {
        return None;
    }
    let action = answer.action.as_str();
    let mut out = Vec::with_capacity(320 + req.id.len() * 2);
    out.extend_from_slice(br#"{"ahp":"0.1","id":"#);
    string(&mut out, &id)?;
    out.extend_from_slice(br#","type":""#);
    out.extend_from_slice(RESULT_TYPE.as_bytes());
    out.extend_from_slice(br#"","time":"#);
    string(&mut out, &time)?;
    out.extend_from_slice(br#","source":{"adapter":"#);
    string(&mut out, &meta.adapter)?;
    out.extend_from_slice(br#"},"parentEventId":"#);
    string(&mut out, &req.id)?;
    out.extend_from_slice(br#","payload":{"elicitation":{"server":{"name":"#);
    string(&mut out, &req.server.name)?;
    if let Some(t) = &req.server.title {
        out.extend_from_slice(br#","title":"#);
        string(&mut out, t)?;
    }
    if let Some(v) = &req.server.version {
        out.extend_from_slice(br#","version":"#);
        string(&mut out, v)?;
    }
    out.extend_from_slice(br#"},"mode":""#);
    out.extend_from_slice(req.mode.as_str().as_bytes());
    out.extend_from_slice(br#"","action":""#);
    out.extend_from_slice(action.as_bytes());
    // The text `{"action":"…"}` as a JSON string.
    out.extend_from_slice(
        br#"","result":{"type":"text","selection":"body","text":"{\"action\":\""#,
    );
    out.extend_from_slice(action.as_bytes());
    out.extend_from_slice(br#"\"}"}}}"#);
    if let Some(m) = &req.mcp {
        out.extend_from_slice(br#","extensions":{"mcp":{"protocolVersion":"#);
        string(&mut out, m.protocol_version.as_str())?;
        if let Some(k) = &m.input_key {
            out.extend_from_slice(br#","inputKey":"#);
            string(&mut out, k)?;
        }
        out.extend_from_slice(b"}}");
    }
    out.push(b'}');
    let text = String::from_utf8(out).ok()?;
    let line = match crate::safe_text::json_text(&text) {
        std::borrow::Cow::Borrowed(_) => text,
        std::borrow::Cow::Owned(safe) => safe,
    };
    Some(ResultLine { id, line })
}

/// `s` as a JSON string, escaped as serde_json escapes every string.
fn string(out: &mut Vec<u8>, s: &str) -> Option<()> {
    serde_json::to_writer(out, s).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::binding::{parse_json, read_request, ReadOptions};

    fn request() -> RequestEvent {
        let text = r#"{"ahp":"0.1","id":"evt-1","type":"user.elicitation.request","time":"2026-11-30T10:00:00Z","source":{"adapter":"a"},"payload":{"elicitation":{"server":{"name":"s"},"mode":"url","request":{"type":"text","selection":"body","text":"{\"mode\":\"url\",\"message\":\"Go\",\"url\":\"https://example.com\",\"elicitationId\":\"e\"}"}}}}"#;
        read_request(parse_json(text.as_bytes()).unwrap(), ReadOptions::default()).unwrap()
    }

    fn meta() -> ResultMeta {
        ResultMeta {
            time: Some("2026-12-01T10:00:00.000Z".into()),
            ..ResultMeta::default()
        }
    }

    #[test]
    fn a_bare_decline_or_cancel_is_written_straight() {
        let req = request();
        for action in [Action::Decline, Action::Cancel] {
            let line = bare_line(&req, &Answer::bare(action), &meta()).expect("written straight");
            let a = action.as_str();
            assert_eq!(
                line.line,
                format!(
                    r#"{{"ahp":"0.1","id":"evt-1-result","type":"user.elicitation.result","time":"2026-12-01T10:00:00.000Z","source":{{"adapter":"ahp-elicit"}},"parentEventId":"evt-1","payload":{{"elicitation":{{"server":{{"name":"s"}},"mode":"url","action":"{a}","result":{{"type":"text","selection":"body","text":"{{\"action\":\"{a}\"}}"}}}}}}}}"#
                )
            );
            assert_eq!(line.id, "evt-1-result");
        }
    }

    #[test]
    fn anything_else_is_left_to_the_full_build() {
        let req = request();
        assert!(bare_line(&req, &Answer::bare(Action::Accept), &meta()).is_none());
        let bad_time = ResultMeta {
            time: Some("soon".into()),
            ..ResultMeta::default()
        };
        assert!(bare_line(&req, &Answer::bare(Action::Decline), &bad_time).is_none());
        let errs = make_result_line(&req, &Answer::bare(Action::Decline), &bad_time).unwrap_err();
        assert_eq!(errs[0].location.pointer, "/time");
    }
}
