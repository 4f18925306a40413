//! `--log FILE`: an append-only JSON Lines record of events and decisions
//! (issue 4 item 6; seed: "authorize URL navigation and preserve requester
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
//! | `decision` | `id`, `action`, `fields` (answered field names), plus `content` only with `--log-values` |
//! | `launch` | `id`, `launcher`, `url`, `ok`, `error` when not ok |
//! | `result-emitted` | `id` (the result event), `parent` (the request), `action` |
//!
//! Redaction, always on: every URL field has its query and fragment replaced
//! by `[redacted]` and a userinfo password by `[redacted]`
//! (`https://a.example/cb?code=1#x` → `https://a.example/cb?[redacted]#[redacted]`);
//! URLs written inside messages and errors (`scheme://...`) are redacted
//! the same way. Form values are never written unless `log_values` is set.

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::Path;

use serde_json::{json, Map, Value};

use crate::binding::{Action, Answer, RequestBody, RequestEvent, RequestView, Violation};

/// The text put in place of a redacted query, fragment or password.
pub const REDACTED: &str = "[redacted]";

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
    /// Errors: a sentence naming the path and the OS error.
    pub fn open(path: &Path, log_values: bool) -> Result<EventLog, String> {
        let file = OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .map_err(|e| format!("cannot open the log file {}: {e}", path.display()))?;
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
    /// Errors: the OS error as a sentence.
    pub fn record(&mut self, event: &str, fields: Map<String, Value>) -> Result<(), String> {
        let mut obj = Map::new();
        obj.insert(
            "time".into(),
            json!(humantime::format_rfc3339_millis(std::time::SystemTime::now()).to_string()),
        );
        obj.insert("event".into(), json!(event));
        obj.extend(fields);
        let mut line = Value::Object(obj).to_string();
        line.push('\n');
        self.file
            .write_all(line.as_bytes())
            .and_then(|_| self.file.flush())
            .map_err(|e| format!("cannot write to the log file: {e}"))
    }

    /// A validated request arrived.
    pub fn request_received(&mut self, req: &RequestEvent) -> Result<(), String> {
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
    pub fn schema_policy(&mut self, req: &RequestEvent) -> Result<(), String> {
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
    ) -> Result<(), String> {
        let mut f = Map::new();
        if let Some(id) = id {
            f.insert("id".into(), json!(id));
        }
        let vs: Vec<Value> = violations
            .iter()
            .map(|v| {
                json!({"pointer": v.pointer, "rule": v.rule, "message": redact_text(&v.message)})
            })
            .collect();
        f.insert("violations".into(), Value::Array(vs));
        self.record("request-invalid", f)
    }

    /// An answer (scripted or typed) was refused by the form's checks.
    /// Messages may quote the values, so they are written only with
    /// `log_values`.
    pub fn answer_refused(&mut self, id: &str, violations: &[Violation]) -> Result<(), String> {
        let mut f = Map::new();
        f.insert("id".into(), json!(id));
        let vs: Vec<Value> = violations
            .iter()
            .map(|v| {
                let mut o = Map::new();
                o.insert("pointer".into(), json!(v.pointer));
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

    /// The decision for request `id`: the action, the answered field names,
    /// and the content only with `log_values`.
    pub fn decision(&mut self, id: &str, answer: &Answer) -> Result<(), String> {
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
        result: &Result<(), String>,
    ) -> Result<(), String> {
        let mut f = Map::new();
        f.insert("id".into(), json!(id));
        f.insert("launcher".into(), json!(launcher));
        f.insert("url".into(), json!(redact_url(url)));
        f.insert("ok".into(), json!(result.is_ok()));
        if let Err(e) = result {
            f.insert("error".into(), json!(redact_text(e)));
        }
        self.record("launch", f)
    }

    /// A result event was written to standard output.
    pub fn result_emitted(
        &mut self,
        result_id: &str,
        parent: &str,
        action: Action,
    ) -> Result<(), String> {
        let mut f = Map::new();
        f.insert("id".into(), json!(result_id));
        f.insert("parent".into(), json!(parent));
        f.insert("action".into(), json!(action.as_str()));
        self.record("result-emitted", f)
    }
}

/// `url` with a non-empty query and fragment replaced by [`REDACTED`], and a
/// userinfo password too. Works on the text as sent (no parsing, so an
/// unparseable URL is redacted the same way).
///
/// `https://u:pw@a.example/cb?code=1#x` → `https://u:[redacted]@a.example/cb?[redacted]#[redacted]`.
pub fn redact_url(url: &str) -> String {
    let (before_frag, frag) = match url.find('#') {
        Some(i) => (&url[..i], Some(&url[i + 1..])),
        None => (url, None),
    };
    let (base, query) = match before_frag.find('?') {
        Some(i) => (&before_frag[..i], Some(&before_frag[i + 1..])),
        None => (before_frag, None),
    };
    let mut out = redact_password(base);
    for (sep, part) in [('?', query), ('#', frag)] {
        if let Some(p) = part {
            out.push(sep);
            if !p.is_empty() {
                out.push_str(REDACTED);
            }
        }
    }
    out
}

fn redact_password(base: &str) -> String {
    let Some(i) = base.find("://") else {
        return base.to_owned();
    };
    let auth_start = i + 3;
    let rest = &base[auth_start..];
    let auth_end = rest.find('/').unwrap_or(rest.len());
    let auth = &rest[..auth_end];
    match auth.rfind('@') {
        Some(at) => match auth[..at].find(':') {
            Some(colon) => format!(
                "{}{}:{REDACTED}{}",
                &base[..auth_start],
                &auth[..colon],
                &rest[at..]
            ),
            None => base.to_owned(),
        },
        None => base.to_owned(),
    }
}

/// `text` with every `scheme://...` URL in it redacted by [`redact_url`]. A
/// URL runs to the next whitespace, quote, `<`, `>` or backtick.
pub fn redact_text(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut done = 0; // bytes of `text` already copied to `out`
    let mut search = 0;
    while let Some(rel) = text[search..].find("://") {
        let sep = search + rel;
        // Back over the scheme: ASCII letters, digits, '+', '-', '.'.
        let start = text[..sep]
            .char_indices()
            .rev()
            .take_while(|(_, c)| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
            .last()
            .map_or(sep, |(i, _)| i);
        // A scheme starts with a letter; skip leading non-letters.
        let start = text[start..sep]
            .char_indices()
            .find(|(_, c)| c.is_ascii_alphabetic())
            .map_or(sep, |(i, _)| start + i);
        let end = text[sep..]
            .find(|c: char| c.is_whitespace() || matches!(c, '"' | '\'' | '<' | '>' | '`'))
            .map_or(text.len(), |i| sep + i);
        if start < sep && start >= done {
            out.push_str(&text[done..start]);
            out.push_str(&redact_url(&text[start..end]));
            done = end;
        }
        search = end.max(sep + 3);
    }
    out.push_str(&text[done..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::binding::{read_request_event, wrap_params, Server};

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
            "https://user:[redacted]@a.example/x?[redacted]"
        );
        assert_eq!(
            redact_url("https://trusted.example@evil.test/"),
            "https://trusted.example@evil.test/"
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
            "see \"https://x.example/p?[redacted]\" now"
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
            &Err("The browser command \"b\" failed (exit status 3).".into()),
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
            "content-value",
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
            .request_invalid(None, &[Violation::new("", "json", "not JSON")])
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
        assert!(
            e.starts_with("cannot open the log file /nonexistent-dir/x/log.jsonl: "),
            "{e}"
        );
    }
}
