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
//! | `launch` | `id`, `launcher`, `url`, `ok`, `error` when not ok; for a sign-in's launch of the browser (`mcp`), `id` is null and `for` is `sign-in` |
//! | `tool-called` | `tool` (its name), `fields` (the argument names), `isError` (what the tool said), `error` (when the call failed) or `cancelled: true` (the person cancelled it), plus `content` (the arguments) only with `--log-values`; written by `mcp` for each call made while trying a server by hand |
//! | `prompt-got` | `prompt` (its name), then as `tool-called` but without `isError`; for each `prompts/get` made while trying a server by hand |
//! | `resource-read` | `resource` (its name as listed, else its URI), `fields` (empty), `error` or `cancelled: true`; for each `resources/read` made while trying a server by hand |
//! | `result-emitted` | `id` (the result event), `parent` (the request), `action`; written once the result is written to the output (`respond` writes results in batches, so these may follow the records of later requests) |
//!
//! Redaction, always on: every URL-looking span in every field (the URL,
//! messages, errors, ids; not the form values `--log-values` adds) has its
//! userinfo, query and fragment replaced by `[redacted]`
//! ([`crate::redact`]). Form values are never written unless `log_values`
//! is set. Every line is written by [`crate::safe_text::json_line`]: no raw
//! control, C1 or bidi character reaches the file. The file is created 0600
//! and never through a symbolic link ([`crate::files::open_private`]).

use std::fs::File;
use std::io::Write;
use std::path::Path;

use serde_json::{json, Map, Value};

use crate::binding::{Action, Answer, RequestBody, RequestEvent, RequestView, Violation};
use crate::launcher::LaunchError;
use crate::redact::{redact_json, redact_text, redact_url};

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
        // No credential the run knows (a server may quote one back), and
        // no raw control, C1 or bidi character reaches the file.
        let mut record = Value::Object(obj);
        crate::redact::redact_secrets_json(&mut record);
        let mut line = crate::safe_text::json_line(&record);
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
        if let Value::Object(note) = crate::binding::policy_note(&req.view) {
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

    /// A launch of the browser for a sign-in (no request is being
    /// answered): `launcher` names it (`browser-command`,
    /// `system-browser`); `result` is its answer (why it failed).
    pub fn sign_in_launch(
        &mut self,
        launcher: &str,
        url: &str,
        result: Result<(), &str>,
    ) -> Result<(), LogError> {
        let mut f = Map::new();
        f.insert("id".into(), Value::Null);
        f.insert("for".into(), json!("sign-in"));
        f.insert("launcher".into(), json!(launcher));
        f.insert("url".into(), json!(redact_url(url)));
        f.insert("ok".into(), json!(result.is_ok()));
        if let Err(e) = result {
            f.insert("error".into(), json!(redact_text(e)));
        }
        self.record("launch", f)
    }

    /// A call made while trying a server by hand: `tool-called`,
    /// `prompt-got` or `resource-read` (as `kind` says), naming what was
    /// called (`tool`, `prompt`, `resource`) and the argument names (the
    /// values only with `log_values`), and how it ended (`outcome`):
    /// `"cancelled": true` when the person cancelled it, `"error":
    /// sentence` when it failed or got no answer in time, else, for a
    /// tool, its result's `isError` (false when absent).
    pub fn called(
        &mut self,
        kind: crate::browse::Kind,
        name: &str,
        arguments: &Map<String, Value>,
        outcome: &crate::browse::CallOutcome,
    ) -> Result<(), LogError> {
        use crate::browse::{CallOutcome, Kind};
        let mut f = Map::new();
        f.insert(kind.noun().into(), json!(name));
        let names: Vec<&str> = arguments.keys().map(String::as_str).collect();
        f.insert("fields".into(), json!(names));
        match outcome {
            CallOutcome::Cancelled => {
                f.insert("cancelled".into(), json!(true));
            }
            CallOutcome::Failed(failure) => {
                f.insert("error".into(), json!(failure.sentence));
            }
            CallOutcome::TimedOut(sentence) => {
                f.insert("error".into(), json!(sentence));
            }
            CallOutcome::Answered(result) if kind == Kind::Tool => {
                let is_error = result.get("isError") == Some(&Value::Bool(true));
                f.insert("isError".into(), json!(is_error));
            }
            CallOutcome::Answered(_) => {}
        }
        if self.log_values {
            f.insert("content".into(), Value::Object(arguments.clone()));
        }
        let event = match kind {
            Kind::Tool => "tool-called",
            Kind::Prompt => "prompt-got",
            Kind::Resource => "resource-read",
        };
        self.record(event, f)
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

/// The `--log` event log, shared by the front door's loop (on the session
/// thread) and the launcher (on the responder thread).
pub type SharedLog = std::sync::Arc<std::sync::Mutex<EventLog>>;

/// Share an opened log between the loop and the launcher.
pub fn share_log(log: EventLog) -> SharedLog {
    std::sync::Arc::new(std::sync::Mutex::new(log))
}

/// The shared log, locked (a writer that panicked leaves a log that is
/// still written: each record is one whole line).
pub fn lock_log(log: &SharedLog) -> std::sync::MutexGuard<'_, EventLog> {
    log.lock().unwrap_or_else(|e| e.into_inner())
}

/// What records a sign-in's launches of the browser in `log`
/// ([`EventLog::sign_in_launch`]); a log that cannot be written is said.
pub fn sign_in_launches(log: SharedLog) -> crate::mcp::auth::authorizer::LaunchRecord {
    std::sync::Arc::new(move |launcher: &str, url: &str, result: Result<(), &str>| {
        if let Err(e) = lock_log(&log).sign_in_launch(launcher, url, result) {
            crate::notice::say(format!("cannot write the log: {e}"));
        }
    })
}

/// A [`Launcher`](crate::launcher::Launcher) that logs each launch (URL
/// redacted) before passing on its result.
pub struct LoggingLauncher {
    /// The launcher that opens the URL.
    pub inner: Box<dyn crate::launcher::Launcher>,
    /// Its name in the log ("browser", "command", "none").
    pub name: &'static str,
    /// The log written to.
    pub log: SharedLog,
    /// Where a log that cannot be written is said.
    pub notices: crate::notice::Notices,
}

impl crate::launcher::Launcher for LoggingLauncher {
    fn open(&mut self, url: &str) -> Result<(), crate::launcher::LaunchError> {
        let r = self.inner.open(url);
        let mut log = lock_log(&self.log);
        let id = log.current().to_owned();
        if let Err(e) = log.launch(&id, self.name, url, &r) {
            self.notices.say(&format!("cannot write the log: {e}"));
        }
        r
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::binding::{read_request, wrap_request, ReadOptions, Rule, Server, WrapOptions};
    use crate::browse::{CallFailure, CallOutcome, FailureCause, Kind};

    fn request(params: Value, id: &str) -> RequestEvent {
        let server = Server {
            name: "srv".into(),
            title: None,
            version: None,
        };
        let options = WrapOptions {
            time: Some("2026-01-01T00:00:00Z"),
            ..WrapOptions::new(&server, "test-adapter", id)
        };
        wrap_request(&params, &options).unwrap()
    }

    fn url_request() -> RequestEvent {
        request(
            json!({
                "mode": "url",
                "message": "Sign in at https://a.example/login?session=s3cret",
                "url": "https://a.example/cb?code=abc#x",
                "elicitationId": "e-1"
            }),
            "req-1",
        )
    }

    fn form_request() -> RequestEvent {
        request(
            json!({
                "message": "Who?",
                "requestedSchema": {"type": "object", "properties": {
                    "name": {"type": "string"}, "age": {"type": "integer"}
                }}
            }),
            "req-2",
        )
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
    fn tool_calls_name_their_arguments_and_give_values_only_with_log_values() {
        let dir = tempfile::tempdir().unwrap();
        let mut args = Map::new();
        args.insert("city".into(), json!("Secretville"));
        args.insert("guests".into(), json!(4));
        let p = dir.path().join("a.jsonl");
        {
            let mut log = EventLog::open(&p, false).unwrap();
            let r = json!({"content": [], "isError": true});
            log.called(Kind::Tool, "book", &args, &CallOutcome::Answered(r))
                .unwrap();
            let failed = CallOutcome::Failed(CallFailure {
                cause: FailureCause::Rpc(-32603),
                sentence: "tools/call failed".into(),
            });
            log.called(Kind::Tool, "book", &Map::new(), &failed)
                .unwrap();
            // A member of the server's own named `error`: an answer.
            let r = json!({"content": [], "error": "not really"});
            log.called(Kind::Tool, "book", &Map::new(), &CallOutcome::Answered(r))
                .unwrap();
            let late = CallOutcome::TimedOut("no answer to tools/call 'book' within 2 s".into());
            log.called(Kind::Tool, "book", &Map::new(), &late).unwrap();
        }
        let text = std::fs::read_to_string(&p).unwrap();
        assert!(!text.contains("Secretville"), "{text}");
        let l = lines(&p);
        assert_eq!(l[0]["event"], "tool-called");
        assert_eq!(l[0]["tool"], "book");
        assert_eq!(l[0]["fields"], json!(["city", "guests"]));
        assert_eq!(l[0]["isError"], true);
        assert_eq!(l[0].get("content"), None);
        assert_eq!(l[1]["error"], "tools/call failed");
        assert_eq!(l[2]["isError"], false);
        assert_eq!(l[2].get("error"), None);
        assert_eq!(l[3]["error"], "no answer to tools/call 'book' within 2 s");
        assert_eq!(l[3].get("isError"), None);
        let q = dir.path().join("b.jsonl");
        {
            let mut log = EventLog::open(&q, true).unwrap();
            let r = json!({"content": []});
            log.called(Kind::Tool, "book", &args, &CallOutcome::Answered(r))
                .unwrap();
        }
        let l = lines(&q);
        assert_eq!(l[0]["content"], json!({"city": "Secretville", "guests": 4}));
        assert_eq!(l[0]["isError"], false);
    }

    #[test]
    fn prompts_got_resources_read_and_cancelled_calls_are_logged() {
        let dir = tempfile::tempdir().unwrap();
        let mut args = Map::new();
        args.insert("name".into(), json!("Secret Ada"));
        let p = dir.path().join("a.jsonl");
        {
            let mut log = EventLog::open(&p, false).unwrap();
            let r = json!({"messages": []});
            log.called(Kind::Prompt, "greeting", &args, &CallOutcome::Answered(r))
                .unwrap();
            let failed = CallOutcome::Failed(CallFailure {
                cause: FailureCause::Unreadable,
                sentence: "resources/read failed".into(),
            });
            log.called(Kind::Resource, "menu", &Map::new(), &failed)
                .unwrap();
            log.called(Kind::Tool, "slow", &args, &CallOutcome::Cancelled)
                .unwrap();
        }
        let text = std::fs::read_to_string(&p).unwrap();
        assert!(!text.contains("Secret Ada"), "{text}");
        let l = lines(&p);
        assert_eq!(l[0]["event"], "prompt-got");
        assert_eq!(l[0]["prompt"], "greeting");
        assert_eq!(l[0]["fields"], json!(["name"]));
        assert_eq!(l[0].get("isError"), None);
        assert_eq!(l[0].get("error"), None);
        assert_eq!(l[1]["event"], "resource-read");
        assert_eq!(l[1]["resource"], "menu");
        assert_eq!(l[1]["fields"], json!([]));
        assert_eq!(l[1]["error"], "resources/read failed");
        assert_eq!(l[2]["event"], "tool-called");
        assert_eq!(l[2]["tool"], "slow");
        assert_eq!(l[2]["cancelled"], true);
        assert_eq!(l[2].get("isError"), None);
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
        let errs = read_request(bad, ReadOptions::default()).unwrap_err();
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
