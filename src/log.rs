//! `--log FILE`: an append-only JSON Lines record of events and decisions
//! (the binding: "authorize URL navigation and preserve requester
//! identity without exposing secrets in logs").
//!
//! One JSON object a line, each with `time` (RFC 3339, UTC, milliseconds)
//! and `event`, one of:
//!
//! | `event` | other fields |
//! |---|---|
//! | `request-received` | `id`, `mode`, `server` (name), `adapter`, `view` (`body`, `metadata`, `omit`, `gap`), `message`, then `url` (URL mode) or `fields` (form mode: names only) |
//! | `schema-policy` | `id`, `policy` (`compatible`), `outsideSubset` (pointers into `requestedSchema` ignored for drawing), `notAForm` (reasons, when it cannot be answered as a form); written after `request-received` for each form request read under `--schema-policy compatible` |
//! | `request-invalid` | `id` (when known), `violations`: `[{pointer, rule, message}]` |
//! | `answer-refused` | `id`, `violations`: `[{pointer, rule}]`, plus `message` only with `--log-values` (messages may quote values) |
//! | `answer-rule` | `id`, then `rule` (the JSON Pointer of the rule of the answers file that answers it, `/rules/0`) and `name` when the rule has one; or `rule: null` and `misses`: `[{rule, keys}]`, the keys of each rule's `match` that did not hold (names only). Written before `decision` (or `answer-refused`) when `--answers` holds rules |
//! | `decision` | `id`, `action`, `fields` (answered field names), plus `content` only with `--log-values` |
//! | `launch` | `id`, `launcher`, `url`, `ok`, `error` when not ok |
//! | `result-emitted` | `id` (the result event), `parent` (the request), `action`; written once the result is written to the output (`respond` writes results in batches, so these may follow the records of later requests) |
//!
//! Redaction, always on: every URL-looking span in every field (the URL,
//! messages, errors, ids; not the form values `--log-values` adds) has its userinfo, query and fragment
//! replaced by `[redacted]`
//! (`https://u:pw@a.example/cb?code=1#x` → `https://[redacted]@a.example/cb?[redacted]#[redacted]`),
//! malformed ones too (`https:/\a.example/cb?code=1`, `https:c.example/?t=1`,
//! a quote inside the query) and ones without a scheme (`//u:p@h.example/?t=1`,
//! `www.h.example/?t=1`); see [`redact_text`]. Form values are never
//! written unless `log_values` is set. Every line is written by
//! [`crate::safe_text::json_line`]: no raw control, C1 or bidi character
//! reaches the file. The file is created 0600 and never through a symbolic
//! link ([`crate::files::open_private`]). [`event_line`] applies the same to
//! `mcp --events` lines, with [`EVENTS_REDACTED`] as the token so URLs stay
//! valid URIs.

use std::fs::File;
use std::io::Write;
use std::path::Path;

use serde_json::{json, Map, Value};

use crate::binding::{Action, Answer, RequestBody, RequestEvent, RequestView, Violation};
use crate::launcher::LaunchError;

/// The text put in place of a redacted query, fragment or password.
pub const REDACTED: &str = "[redacted]";

/// The text [`event_line`] puts in place of a redacted query, fragment or
/// userinfo in `mcp --events` lines: letters only, so a redacted URL stays
/// a valid URI (`https://REDACTED@a.example/cb?REDACTED`) and every event
/// written still passes `ahp-elicit validate`.
pub const EVENTS_REDACTED: &str = "REDACTED";

/// Why the event log could not be opened or written.
#[derive(Debug, thiserror::Error)]
pub enum LogError {
    /// The log file could not be opened (the OS error names the path).
    #[error("cannot open the log file {0}")]
    Open(#[source] std::io::Error),
    /// A record could not be written.
    #[error("cannot write to the log file: {0}")]
    Write(#[source] std::io::Error),
}

/// An open event log.
#[derive(Debug)]
pub struct EventLog {
    file: File,
    log_values: bool,
    /// The id of the request being answered (for launch records).
    current: String,
}

impl EventLog {
    /// Open `path` for appending (created if missing). `log_values`
    /// (`--log-values`) also writes form values.
    ///
    /// Errors: [`LogError::Open`], naming the path and the OS error.
    pub fn open(path: &Path, log_values: bool) -> Result<EventLog, LogError> {
        let file = crate::files::open_private(path, crate::files::Existing::Append)
            .map_err(LogError::Open)?;
        Ok(EventLog {
            file,
            log_values,
            current: String::new(),
        })
    }

    /// Set the id of the request now being answered; launch records made by
    /// a launcher (which does not know the request) carry it.
    pub fn set_current(&mut self, id: &str) {
        self.current = id.to_owned();
    }

    /// The id of the request now being answered ("" before the first).
    pub fn current(&self) -> &str {
        &self.current
    }

    /// Whether form values are written (`--log-values`).
    pub fn log_values(&self) -> bool {
        self.log_values
    }

    /// Append one record: `time` and `event` first, then `fields` as given
    /// (the caller redacts). One `write` call per line, flushed.
    ///
    /// Errors: [`LogError::Write`].
    pub fn record(&mut self, event: &str, fields: Map<String, Value>) -> Result<(), LogError> {
        let mut obj = Map::new();
        obj.insert(
            "time".into(),
            json!(humantime::format_rfc3339_millis(std::time::SystemTime::now()).to_string()),
        );
        obj.insert("event".into(), json!(event));
        // Every URL-looking span in every field is redacted, whatever the
        // caller did (ids and errors quote the server too); form values
        // (`content`, only with --log-values) are kept as given.
        obj.extend(fields.into_iter().map(|(k, v)| {
            let v = if k == "content" { v } else { redact_json(&v) };
            (k, v)
        }));
        // No raw control, C1 or bidi character reaches the file.
        let mut line = crate::safe_text::json_line(&Value::Object(obj));
        line.push('\n');
        self.file
            .write_all(line.as_bytes())
            .and_then(|_| self.file.flush())
            .map_err(LogError::Write)
    }

    /// A validated request arrived.
    pub fn request_received(&mut self, req: &RequestEvent) -> Result<(), LogError> {
        let mut f = Map::new();
        f.insert("id".into(), json!(req.id));
        f.insert("mode".into(), json!(req.mode.as_str()));
        f.insert("server".into(), json!(req.server.name));
        f.insert("adapter".into(), json!(req.adapter));
        let view = match &req.view {
            RequestView::Body(_) => "body",
            RequestView::Metadata => "metadata",
            RequestView::Omit => "omit",
            RequestView::Gap { .. } => "gap",
            RequestView::NotAForm { .. } => "not-a-form",
        };
        f.insert("view".into(), json!(view));
        if let Some(r) = req.view.request() {
            f.insert("message".into(), json!(redact_text(&r.message)));
            match &r.body {
                RequestBody::Url { url, .. } => {
                    f.insert("url".into(), json!(redact_url(url)));
                }
                RequestBody::Form(schema) => {
                    let names: Vec<&str> =
                        schema.fields.iter().map(|fl| fl.name.as_str()).collect();
                    f.insert("fields".into(), json!(names));
                }
            }
        }
        self.record("request-received", f)
    }

    /// How a form request was read under the compatible schema policy (the
    /// pointers and reasons may quote the server's keys: redacted like
    /// messages).
    pub fn schema_policy(&mut self, req: &RequestEvent) -> Result<(), LogError> {
        let mut f = Map::new();
        f.insert("id".into(), json!(req.id));
        if let Value::Object(note) = crate::binding::elicitation::policy_note(&req.view) {
            for (k, v) in note {
                let v = match v {
                    Value::Array(items) => Value::Array(
                        items
                            .iter()
                            .map(|i| json!(redact_text(i.as_str().unwrap_or_default())))
                            .collect(),
                    ),
                    other => other,
                };
                f.insert(k, v);
            }
        }
        self.record("schema-policy", f)
    }

    /// A request event was refused (it gets no result). `id` is the event
    /// id when it could be read.
    pub fn request_invalid(
        &mut self,
        id: Option<&str>,
        violations: &[Violation],
    ) -> Result<(), LogError> {
        let mut f = Map::new();
        if let Some(id) = id {
            f.insert("id".into(), json!(id));
        }
        let vs: Vec<Value> = violations
            .iter()
            .map(|v| {
                json!({"pointer": v.pointer(), "rule": v.rule, "message": redact_text(&v.message)})
            })
            .collect();
        f.insert("violations".into(), Value::Array(vs));
        self.record("request-invalid", f)
    }

    /// An answer (scripted or typed) was refused by the form's checks.
    /// Messages may quote the values, so they are written only with
    /// `log_values`.
    pub fn answer_refused(&mut self, id: &str, violations: &[Violation]) -> Result<(), LogError> {
        let mut f = Map::new();
        f.insert("id".into(), json!(id));
        let vs: Vec<Value> = violations
            .iter()
            .map(|v| {
                let mut o = Map::new();
                o.insert("pointer".into(), json!(v.pointer()));
                o.insert("rule".into(), json!(v.rule));
                if self.log_values {
                    o.insert("message".into(), json!(redact_text(&v.message)));
                }
                Value::Object(o)
            })
            .collect();
        f.insert("violations".into(), Value::Array(vs));
        self.record("answer-refused", f)
    }

    /// Which rule of the answers file answers request `id`: its pointer
    /// (`/rules/1`) and name, if it has one.
    pub fn rule_chosen(
        &mut self,
        id: &str,
        rule: &str,
        name: Option<&str>,
    ) -> Result<(), LogError> {
        let mut f = Map::new();
        f.insert("id".into(), json!(id));
        f.insert("rule".into(), json!(rule));
        if let Some(n) = name {
            f.insert("name".into(), json!(n));
        }
        self.record("answer-rule", f)
    }

    /// No rule of the answers file matches request `id`: per rule, its
    /// pointer and the names of the `match` keys that did not hold (no
    /// values: they may quote the request).
    pub fn no_rule(&mut self, id: &str, misses: &[(String, Vec<&str>)]) -> Result<(), LogError> {
        let mut f = Map::new();
        f.insert("id".into(), json!(id));
        f.insert("rule".into(), Value::Null);
        let ms: Vec<Value> = misses
            .iter()
            .map(|(rule, keys)| json!({"rule": rule, "keys": keys}))
            .collect();
        f.insert("misses".into(), Value::Array(ms));
        self.record("answer-rule", f)
    }

    /// The decision for request `id`: the action, the answered field names,
    /// and the content only with `log_values`.
    pub fn decision(&mut self, id: &str, answer: &Answer) -> Result<(), LogError> {
        let mut f = Map::new();
        f.insert("id".into(), json!(id));
        f.insert("action".into(), json!(answer.action.as_str()));
        if let Some(c) = &answer.content {
            let names: Vec<&str> = c.keys().map(String::as_str).collect();
            f.insert("fields".into(), json!(names));
            if self.log_values {
                f.insert("content".into(), Value::Object(c.clone()));
            }
        }
        self.record("decision", f)
    }

    /// A launch after consent: `launcher` names it (`system`, `command`,
    /// `no-open`); `result` is the launcher's answer.
    pub fn launch(
        &mut self,
        id: &str,
        launcher: &str,
        url: &str,
        result: &Result<(), LaunchError>,
    ) -> Result<(), LogError> {
        let mut f = Map::new();
        f.insert("id".into(), json!(id));
        f.insert("launcher".into(), json!(launcher));
        f.insert("url".into(), json!(redact_url(url)));
        f.insert("ok".into(), json!(result.is_ok()));
        if let Err(e) = result {
            f.insert("error".into(), json!(redact_text(&e.to_string())));
        }
        self.record("launch", f)
    }

    /// A result event was written to standard output.
    pub fn result_emitted(
        &mut self,
        result_id: &str,
        parent: &str,
        action: Action,
    ) -> Result<(), LogError> {
        let mut f = Map::new();
        f.insert("id".into(), json!(result_id));
        f.insert("parent".into(), json!(parent));
        f.insert("action".into(), json!(action.as_str()));
        self.record("result-emitted", f)
    }
}

/// `url` with a non-empty query and fragment replaced by [`REDACTED`], and
/// its userinfo (name and password) too. Works on the text as sent (no
/// parsing), so a malformed URL is redacted the same way; after `scheme:`
/// any run of `/` and `\` counts as the slashes, as browsers read it.
///
/// `https://u:pw@a.example/cb?code=1#x` → `https://[redacted]@a.example/cb?[redacted]#[redacted]`.
pub fn redact_url(url: &str) -> String {
    redact_url_with(url, REDACTED)
}

/// [`redact_url`] with `token` in place of each redacted part.
fn redact_url_with(url: &str, token: &str) -> String {
    let (before_frag, frag) = match url.find('#') {
        Some(i) => (&url[..i], Some(&url[i + 1..])),
        None => (url, None),
    };
    let (base, query) = match before_frag.find('?') {
        Some(i) => (&before_frag[..i], Some(&before_frag[i + 1..])),
        None => (before_frag, None),
    };
    let mut out = redact_userinfo(base, token);
    for (sep, part) in [('?', query), ('#', frag)] {
        if let Some(p) = part {
            out.push(sep);
            if !p.is_empty() {
                out.push_str(token);
            }
        }
    }
    out
}

/// The length of the scheme at the start of `s` (`[A-Za-z][A-Za-z0-9+.-]*`
/// followed by `:`), if there is one.
fn scheme_len(s: &str) -> Option<usize> {
    let first = s.chars().next()?;
    if !first.is_ascii_alphabetic() {
        return None;
    }
    let n = s
        .find(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.')))
        .unwrap_or(s.len());
    (s[n..].starts_with(':')).then_some(n)
}

/// Where the authority starts in `base`: after `scheme:` and its slashes,
/// after the leading `//` of a scheme-relative URL, or at 0 for a
/// `www.` host written without a scheme.
fn authority_start(base: &str) -> Option<usize> {
    let slashes_after = |i: usize| {
        let after = &base[i..];
        after.len() - after.trim_start_matches(['/', '\\']).len()
    };
    if let Some(n) = scheme_len(base) {
        return Some(n + 1 + slashes_after(n + 1));
    }
    if base.starts_with("//") {
        return Some(slashes_after(0));
    }
    starts_with_www(base).then_some(0)
}

fn starts_with_www(s: &str) -> bool {
    s.get(..4).is_some_and(|w| w.eq_ignore_ascii_case("www."))
        && s[4..].starts_with(|c: char| c.is_alphanumeric())
}

fn redact_userinfo(base: &str, token: &str) -> String {
    let Some(auth_start) = authority_start(base) else {
        return base.to_owned();
    };
    let rest = &base[auth_start..];
    let auth_end = rest.find(['/', '\\']).unwrap_or(rest.len());
    match rest[..auth_end].rfind('@') {
        Some(at) if at > 0 => format!("{}{token}{}", &base[..auth_start], &rest[at..]),
        _ => base.to_owned(),
    }
}

/// Schemes a browser opens as web addresses even without `//`
/// (`https:c.example/` is `https://c.example/`).
const SPECIAL_SCHEMES: [&str; 6] = ["http", "https", "ws", "wss", "ftp", "file"];

/// Where a URL starts in `token` (a run of text without whitespace): a
/// scheme that is special, or any scheme followed by two slashes or
/// backslashes, or, without a scheme, a `//host` authority or a `www.`
/// host (see `schemeless_start`); the earliest of these.
fn url_start(token: &str) -> Option<usize> {
    match (scheme_start(token), schemeless_start(token)) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

/// Where a URL written without a scheme starts in `token`: `//` followed
/// by a host character (`//c:d@e.test/?q`), or `www.` followed by one
/// (`www.z.test/?q`), either at the start of the token or after a
/// character that cannot be part of a host or path (`(`, `"`, `=`, ...),
/// so `a/b`, `2026/12/01` and `x.www.y` are left alone.
fn schemeless_start(token: &str) -> Option<usize> {
    token.char_indices().find_map(|(i, _)| {
        let prev = token[..i].chars().next_back();
        let boundary = prev.is_none_or(|c| {
            !(c.is_alphanumeric() || matches!(c, '.' | '-' | '_' | '/' | '\\' | ':' | '@' | '%'))
        });
        let at = &token[i..];
        let slashed = at.starts_with("//") && at[2..].starts_with(|c: char| c.is_alphanumeric());
        (boundary && (slashed || starts_with_www(at))).then_some(i)
    })
}

/// Where a URL with a scheme starts in `token` (see [`url_start`]).
fn scheme_start(token: &str) -> Option<usize> {
    for (i, _) in token.match_indices(':') {
        // Back over the scheme characters, then forward to a letter.
        let start = token[..i]
            .char_indices()
            .rev()
            .take_while(|(_, c)| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
            .last()
            .map_or(i, |(j, _)| j);
        let Some(off) = token[start..i].find(|c: char| c.is_ascii_alphabetic()) else {
            continue;
        };
        let start = start + off;
        let scheme = token[start..i].to_ascii_lowercase();
        let tail = &token[i + 1..];
        let slashed = tail.len() - tail.trim_start_matches(['/', '\\']).len() >= 2;
        if SPECIAL_SCHEMES.contains(&scheme.as_str()) || slashed {
            return Some(start);
        }
    }
    None
}

/// `text` with every URL-looking span in it redacted by [`redact_url`]: a
/// span starts at a scheme (see `url_start`: `https:`, `http:`, ... even
/// malformed as `https:/\host` or `https:host`, or any `scheme://`), or
/// without one at a `//host` authority or a `www.` host, and
/// runs to the next whitespace, so a quote or bracket inside the query
/// (`?a"&code=...`) does not end it.
pub fn redact_text(text: &str) -> String {
    redact_text_with(text, REDACTED)
}

/// [`redact_text`] with `token` in place of each redacted part.
fn redact_text_with(text: &str, redact: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while !rest.is_empty() {
        let ws = rest.find(char::is_whitespace).unwrap_or(rest.len());
        let token = &rest[..ws];
        match url_start(token) {
            Some(s) => {
                out.push_str(&token[..s]);
                out.push_str(&redact_url_with(&token[s..], redact));
            }
            None => out.push_str(token),
        }
        let after = &rest[ws..];
        let sp = after.len() - after.trim_start().len();
        out.push_str(&after[..sp]);
        rest = &after[sp..];
    }
    out
}

/// `v` with every string in it redacted by [`redact_text`] (object keys
/// are kept). A string that holds JSON itself (an AHP `text` part) is
/// redacted inside and written back compactly.
pub fn redact_json(v: &Value) -> Value {
    redact_json_with(v, REDACTED)
}

/// [`redact_json`] with `token` in place of each redacted part.
fn redact_json_with(v: &Value, token: &str) -> Value {
    match v {
        Value::String(s) => {
            let t = s.trim_start();
            if t.starts_with('{') || t.starts_with('[') {
                if let Ok(inner) = serde_json::from_str::<Value>(s) {
                    let red = redact_json_with(&inner, token);
                    return if red == inner {
                        v.clone()
                    } else {
                        Value::String(red.to_string())
                    };
                }
            }
            Value::String(redact_text_with(s, token))
        }
        Value::Array(a) => Value::Array(a.iter().map(|x| redact_json_with(x, token)).collect()),
        Value::Object(o) => Value::Object(
            o.iter()
                .map(|(k, x)| (k.clone(), redact_json_with(x, token)))
                .collect(),
        ),
        other => other.clone(),
    }
}

/// One line for an `--events` file: `ev` redacted as [`redact_json`] does
/// but with [`EVENTS_REDACTED`] in place of each redacted part (so URLs
/// stay valid URIs and the event still validates), unless `keep_values`;
/// written by [`crate::safe_text::json_line`] (no raw
/// control, C1 or bidi character), with its newline.
pub fn event_line(ev: &Value, keep_values: bool) -> String {
    let v = if keep_values {
        ev.clone()
    } else {
        redact_json_with(ev, EVENTS_REDACTED)
    };
    let mut line = crate::safe_text::json_line(&v);
    line.push('\n');
    line
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::binding::{read_request_event, wrap_params, Rule, Server};

    #[test]
    fn url_query_and_fragment_are_redacted() {
        assert_eq!(
            redact_url("https://a.example/cb?code=abc&state=x#frag"),
            "https://a.example/cb?[redacted]#[redacted]"
        );
        assert_eq!(redact_url("https://a.example/cb"), "https://a.example/cb");
        assert_eq!(redact_url("https://a.example/?"), "https://a.example/?");
        assert_eq!(
            redact_url("https://a.example/#only"),
            "https://a.example/#[redacted]"
        );
        assert_eq!(
            redact_url("https://user:pw@a.example/x?q=1"),
            "https://[redacted]@a.example/x?[redacted]"
        );
        assert_eq!(
            redact_url("https://trusted.example@evil.test/"),
            "https://[redacted]@evil.test/"
        );
        assert_eq!(redact_url("not a url?secret"), "not a url?[redacted]");
    }

    #[test]
    fn urls_inside_text_are_redacted() {
        assert_eq!(
            redact_text("Open https://a.example/cb?code=1#x to sign in, or http://b.example/?t=2."),
            "Open https://a.example/cb?[redacted]#[redacted] to sign in, or http://b.example/?[redacted]"
        );
        assert_eq!(
            redact_text("see \"https://x.example/p?tok=9\" now"),
            "see \"https://x.example/p?[redacted] now"
        );
        assert_eq!(
            redact_text("(https://x.example/?a=1)"),
            "(https://x.example/?[redacted]"
        );
        assert_eq!(redact_text("no urls here: a://"), "no urls here: a://");
        assert_eq!(redact_text("://x?y"), "://x?y");
        assert_eq!(
            redact_text("Grüße https://ü.example/?k=1"),
            "Grüße https://ü.example/?[redacted]"
        );
    }

    #[test]
    fn urls_without_a_scheme_are_redacted() {
        assert_eq!(
            redact_text("visit www.z.test/?q=SECRET3 or //c:d@e.test/?SECRET4 now"),
            "visit www.z.test/?[redacted] or //[redacted]@e.test/?[redacted] now"
        );
        assert_eq!(
            redact_text("(WWW.a.test/p#SECRET5) \"//h.test/x?t=SECRET6\""),
            "(WWW.a.test/p#[redacted] \"//h.test/x?[redacted]"
        );
        for kept in [
            "Pick red/green, then press Enter.",
            "see a/b and ./c/d or ../e",
            "due 2026/12/01 at 10:00",
            "x.www.y.test and wwwx.test",
            "a//b and // a comment",
            "is it? yes",
        ] {
            assert_eq!(redact_text(kept), kept);
        }
    }

    #[test]
    fn event_lines_keep_urls_valid() {
        let red = redact_json_with(
            &json!("https://user:pw@evil.test/auth?x=1#f"),
            EVENTS_REDACTED,
        );
        assert_eq!(
            red,
            json!("https://REDACTED@evil.test/auth?REDACTED#REDACTED")
        );
        assert!(url::Url::parse(red.as_str().unwrap_or_default()).is_ok());
    }

    #[test]
    fn malformed_and_hidden_urls_are_redacted() {
        assert_eq!(
            redact_text(r#"go https://a.example/cb?x"&code=s3cret now"#),
            "go https://a.example/cb?[redacted] now"
        );
        assert_eq!(
            redact_text(r"at https:/\a.example/cb?code=s3cret"),
            r"at https:/\a.example/cb?[redacted]"
        );
        assert_eq!(
            redact_text("see https:c.example/?t=s3cret."),
            "see https:c.example/?[redacted]"
        );
        assert_eq!(
            redact_text("x https://admin:hunter2@h.example/p"),
            "x https://[redacted]@h.example/p"
        );
        assert_eq!(
            redact_text(r"HTTPS:\\h.example\p?k=s3cret#f"),
            r"HTTPS:\\h.example\p?[redacted]#[redacted]"
        );
        assert_eq!(
            redact_url(r"https:/\admin:hunter2@a.example\x"),
            r"https:/\[redacted]@a.example\x"
        );
        assert_eq!(
            redact_text("(see:https://a.example/?k=1)"),
            "(see:https://a.example/?[redacted]"
        );
        // Not URLs: times, ratios, a colon in prose.
        let prose = "at 10:30? ratio 3:4, note: fine; mailto-like a@b";
        assert_eq!(redact_text(prose), prose);
    }

    #[test]
    fn event_lines_are_redacted_inside_json_text_and_escaped() {
        let inner = json!({"url": "https://admin:hunter2@a.example/cb?code=s3cret",
            "message": "Go to https:c.example/?t=s3cret \u{9b}\u{202e}"});
        let ev = json!({"id": "e\u{1b}1", "payload": {"text": inner.to_string()}});
        let line = event_line(&ev, false);
        assert!(line.ends_with('\n'));
        for bad in ["hunter2", "s3cret", "admin", "\u{9b}", "\u{202e}", "\u{1b}"] {
            assert!(!line.contains(bad), "{bad:?} in {line}");
        }
        let back: Value = serde_json::from_str(&line).unwrap();
        assert_eq!(back["id"], "e\u{1b}1");
        let text: Value = serde_json::from_str(back["payload"]["text"].as_str().unwrap()).unwrap();
        // A URI-safe token: the redacted URL is still a valid URI.
        assert_eq!(text["url"], "https://REDACTED@a.example/cb?REDACTED");
        // With --log-values the event is kept whole (still escaped).
        let kept: Value = serde_json::from_str(&event_line(&ev, true)).unwrap();
        assert_eq!(kept, ev);
    }

    fn url_request() -> RequestEvent {
        wrap_params(
            &json!({
                "mode": "url",
                "message": "Sign in at https://a.example/login?session=s3cret",
                "url": "https://a.example/cb?code=abc#x",
                "elicitationId": "e-1"
            }),
            &Server {
                name: "srv".into(),
                title: None,
                version: None,
            },
            "test-adapter",
            "req-1",
            Some("2026-01-01T00:00:00Z"),
        )
        .unwrap()
    }

    fn form_request() -> RequestEvent {
        wrap_params(
            &json!({
                "message": "Who?",
                "requestedSchema": {"type": "object", "properties": {
                    "name": {"type": "string"}, "age": {"type": "integer"}
                }}
            }),
            &Server {
                name: "srv".into(),
                title: None,
                version: None,
            },
            "test-adapter",
            "req-2",
            Some("2026-01-01T00:00:00Z"),
        )
        .unwrap()
    }

    fn lines(p: &Path) -> Vec<Value> {
        std::fs::read_to_string(p)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    }

    #[test]
    fn url_flow_is_logged_redacted() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("log.jsonl");
        let req = url_request();
        let mut log = EventLog::open(&p, false).unwrap();
        log.request_received(&req).unwrap();
        log.decision("req-1", &Answer::bare(Action::Accept))
            .unwrap();
        log.launch(
            "req-1",
            "command",
            "https://a.example/cb?code=abc#x",
            &Err(LaunchError::Failed {
                program: "b".into(),
                code: 3,
            }),
        )
        .unwrap();
        log.result_emitted("req-1-result", "req-1", Action::Accept)
            .unwrap();
        let text = std::fs::read_to_string(&p).unwrap();
        assert!(!text.contains("abc"), "{text}");
        assert!(!text.contains("s3cret"), "{text}");
        let l = lines(&p);
        assert_eq!(l.len(), 4);
        assert_eq!(l[0]["event"], "request-received");
        assert_eq!(l[0]["id"], "req-1");
        assert_eq!(l[0]["mode"], "url");
        assert_eq!(l[0]["server"], "srv");
        assert_eq!(l[0]["adapter"], "test-adapter");
        assert_eq!(l[0]["url"], "https://a.example/cb?[redacted]#[redacted]");
        assert_eq!(
            l[0]["message"],
            "Sign in at https://a.example/login?[redacted]"
        );
        assert_eq!(l[1]["event"], "decision");
        assert_eq!(l[1]["action"], "accept");
        assert!(l[1].get("content").is_none());
        assert_eq!(l[2]["event"], "launch");
        assert_eq!(l[2]["ok"], false);
        assert_eq!(
            l[2]["error"],
            "The browser command \"b\" failed (exit status 3)."
        );
        assert_eq!(l[3]["event"], "result-emitted");
        assert_eq!(l[3]["id"], "req-1-result");
        assert_eq!(l[3]["parent"], "req-1");
        assert!(l[3]["time"].as_str().unwrap().ends_with('Z'));
    }

    fn content() -> Map<String, Value> {
        let mut c = Map::new();
        c.insert("name".into(), json!("Alice Secret"));
        c.insert("age".into(), json!(42));
        c
    }

    #[test]
    fn form_values_only_with_log_values() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("a.jsonl");
        let req = form_request();
        let answer = Answer {
            action: Action::Accept,
            content: Some(content()),
        };
        let refused = [Violation::new(
            "/content/name",
            Rule::ContentValue,
            "'Alice Secret' is not one of the options",
        )];
        {
            let mut log = EventLog::open(&p, false).unwrap();
            log.request_received(&req).unwrap();
            log.answer_refused("req-2", &refused).unwrap();
            log.decision("req-2", &answer).unwrap();
        }
        let text = std::fs::read_to_string(&p).unwrap();
        assert!(!text.contains("Alice"), "{text}");
        let l = lines(&p);
        // No value 42 (the age) anywhere but in the timestamps.
        for line in &l {
            let mut rec = line.clone();
            rec.as_object_mut().unwrap().remove("time");
            assert!(!rec.to_string().contains("42"), "{rec}");
        }
        assert_eq!(l[0]["fields"], json!(["name", "age"]));
        assert_eq!(
            l[1]["violations"],
            json!([{"pointer": "/content/name", "rule": "content-value"}])
        );
        assert_eq!(l[2]["fields"], json!(["name", "age"]));

        let q = dir.path().join("b.jsonl");
        let mut log = EventLog::open(&q, true).unwrap();
        assert!(log.log_values());
        log.answer_refused("req-2", &refused).unwrap();
        log.decision("req-2", &answer).unwrap();
        let l = lines(&q);
        assert_eq!(
            l[0]["violations"][0]["message"],
            "'Alice Secret' is not one of the options"
        );
        assert_eq!(l[1]["content"], json!({"name": "Alice Secret", "age": 42}));
    }

    #[test]
    fn invalid_requests_and_appending() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("c.jsonl");
        EventLog::open(&p, false)
            .unwrap()
            .request_invalid(None, &[Violation::new("", Rule::Json, "not JSON")])
            .unwrap();
        let bad = json!({"ahp": "0.1"});
        let errs = read_request_event(&bad).unwrap_err();
        EventLog::open(&p, false)
            .unwrap()
            .request_invalid(Some("x"), &errs)
            .unwrap();
        let l = lines(&p);
        assert_eq!(l.len(), 2, "the second open appends");
        assert_eq!(l[0]["event"], "request-invalid");
        assert!(l[0].get("id").is_none());
        assert_eq!(
            l[0]["violations"],
            json!([{"pointer": "", "rule": "json", "message": "not JSON"}])
        );
        assert_eq!(l[1]["id"], "x");
        assert_eq!(l[1]["violations"].as_array().unwrap().len(), errs.len());
    }

    #[test]
    fn unwritable_path_is_a_sentence() {
        let e = EventLog::open(Path::new("/nonexistent-dir/x/log.jsonl"), false).unwrap_err();
        assert!(matches!(e, LogError::Open(_)), "{e:?}");
        let e = e.to_string();
        assert!(
            e.starts_with("cannot open the log file /nonexistent-dir/x/log.jsonl: "),
            "{e}"
        );
    }
}
