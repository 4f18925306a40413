//! Scripted answering (`--answers FILE` or `--action`): the
//! form state machine with no terminal, for tests, CI and demos.
//!
//! An answers file has one of three forms (JSON Schema:
//! `schemas/answers.schema.json`):
//! - one answer for every request,
//!   `{"action": "accept"|"decline"|"cancel", "content": {...}}`;
//! - an object keyed by request event id whose values are such answers;
//! - `{"rules": [{"match": {...}, "answer": {...}}, ...]}`: the first rule
//!   whose match holds answers ([`Rules`]); a request no rule matches gets
//!   no answer ([`RespondError::Refused`] with the reason rule by rule),
//!   never a default.
//!
//! A top-level `$schema` string (for editors) is ignored in every form.
//!
//! Content keys set field values on the form as a person would see it:
//! pre-filled defaults stay unless set to `null`, which clears the field.
//! The form is then
//! submitted through the same [`Form`] state machine as the terminal UI; an
//! answer the form refuses gives [`RespondError::Refused`] (no result for
//! that request, exit 1).
//!
//! Views that are not executable (metadata, omit, gap; the binding: "A
//! metadata/omit/gap view is not an executable request") can be declined or
//! cancelled; a scripted accept is refused. In URL mode `accept` means
//! consent to open the URL (the binding: "URL acceptance means consent to open the
//! URL, not completion of that flow"): the answer is a bare accept, and a
//! [`Launcher`] set with [`ScriptedResponder::with_launcher`] is asked to
//! open the URL.

use std::collections::HashMap;

use serde_json::{Map, Value};

internals! {
    pub(crate) mod document;
    pub(crate) mod rules;
}
// `cargo fmt` reaches the modules of `internals!` through this list
// (see src/lib.rs).
#[cfg(any())]
#[path = "scripted"]
mod for_cargo_fmt {
    mod document;
    mod rules;
}

/// The rules of an answers document (`{"rules": [...]}`), what a rule
/// matches on and why none matched: read with the document, reported by
/// [`ScriptedResponder::with_rule_trace`] and `answers check`.
pub use rules::{Facts, Lint, Match, Miss, NoRule, Pattern, PatternError, Rule, RuleFault, Rules};

use crate::binding::{Action, Answer, RequestBody, RequestEvent, RequestView, Violation};
use crate::form::{Form, Status};
use crate::launcher::Launcher;
use crate::responder::{Context, Outcome, RespondError, Responder, NOT_OPENED};

/// One scripted answer: an action and, for an accepted form, field values.
#[derive(Debug, Clone, PartialEq)]
pub struct ScriptedAnswer {
    pub action: Action,
    /// Field values to set before submitting (`null` clears a field).
    pub content: Option<Map<String, Value>>,
}

/// What is wrong with one answer of an answers document.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AnswerFault {
    /// The answer is not a JSON object.
    #[error("an answer must be an object {{\"action\": ..., \"content\": {{...}}}}")]
    NotAnObject,
    /// A key other than `action` and `content`.
    #[error("unknown key (an answer has action and content)")]
    UnknownKey,
    /// `action` is a string that names no action.
    #[error("'{0}' is not accept, decline or cancel")]
    UnknownAction(String),
    /// `action` is not a string.
    #[error("must be a string")]
    ActionNotAString,
    /// No `action`.
    #[error("an answer needs an action")]
    NoAction,
    /// `content` is not an object.
    #[error("must be an object")]
    ContentNotAnObject,
    /// A top-level `$schema` that is not a string.
    #[error("must be a string (the address of the answers schema, for editors)")]
    SchemaNotAString,
    /// `content` with an action other than accept.
    #[error("only an accept carries content, not {}", .0.as_str())]
    ContentWithoutAccept(Action),
}

/// Why an answers document or file was not read.
#[derive(Debug, thiserror::Error)]
pub enum AnswersError {
    /// The document is not a JSON object.
    #[error("answers: the file must hold a JSON object")]
    NotAnObject,
    /// One answer is wrong, at a JSON Pointer into the document.
    #[error("{pointer}: {fault}")]
    Answer {
        /// Where (the answer itself, or one of its members).
        pointer: String,
        /// What is wrong there.
        #[source]
        fault: AnswerFault,
    },
    /// A rule (or the rules list) is wrong, at a JSON Pointer into the
    /// document.
    #[error("{pointer}: {fault}")]
    Rule {
        /// Where.
        pointer: String,
        /// What is wrong there.
        #[source]
        fault: RuleFault,
    },
    /// The file could not be read.
    #[error("cannot read answers file {}: {source}", .path.display())]
    Read {
        /// The file.
        path: std::path::PathBuf,
        /// The OS error.
        #[source]
        source: std::io::Error,
    },
    /// The file is not JSON within the binding's limits.
    #[error("answers file {}: {source}", .path.display())]
    Json {
        /// The file.
        path: std::path::PathBuf,
        /// The violation (`limits`, `utf8` or `json`).
        #[source]
        source: Violation,
    },
    /// The file's JSON is not an answers document.
    #[error("answers file {}: {source}", .path.display())]
    Document {
        /// The file.
        path: std::path::PathBuf,
        /// What is wrong with the document.
        #[source]
        source: Box<AnswersError>,
    },
}

impl ScriptedAnswer {
    /// Read `{"action": ..., "content": {...}?}` at JSON pointer `ptr`.
    ///
    /// Errors: [`AnswersError::Answer`], naming `ptr` (or the member) and
    /// the fault.
    pub fn from_value(v: &Value, ptr: &str) -> Result<Self, AnswersError> {
        let at = |pointer: String, fault| AnswersError::Answer { pointer, fault };
        let Some(o) = v.as_object() else {
            return Err(at(ptr.to_owned(), AnswerFault::NotAnObject));
        };
        if let Some(k) = o.keys().find(|k| *k != "action" && *k != "content") {
            return Err(at(format!("{ptr}/{k}"), AnswerFault::UnknownKey));
        }
        let action = match o.get("action") {
            Some(Value::String(s)) => Action::parse(s).ok_or_else(|| {
                at(
                    format!("{ptr}/action"),
                    AnswerFault::UnknownAction(s.clone()),
                )
            })?,
            Some(_) => return Err(at(format!("{ptr}/action"), AnswerFault::ActionNotAString)),
            None => return Err(at(ptr.to_owned(), AnswerFault::NoAction)),
        };
        let content = match o.get("content") {
            None => None,
            Some(Value::Object(m)) => Some(m.clone()),
            Some(_) => {
                return Err(at(
                    format!("{ptr}/content"),
                    AnswerFault::ContentNotAnObject,
                ))
            }
        };
        if content.is_some() && action != Action::Accept {
            return Err(at(
                format!("{ptr}/content"),
                AnswerFault::ContentWithoutAccept(action),
            ));
        }
        Ok(ScriptedAnswer { action, content })
    }
}

/// Where the scripted answers come from.
#[derive(Debug, Clone, PartialEq)]
pub enum Answers {
    /// The same answer for every request.
    Every(ScriptedAnswer),
    /// An answer per request event id.
    ById(HashMap<String, ScriptedAnswer>),
    /// Ordered rules: the first whose match holds answers.
    Rules(Rules),
}

/// Which answer a request takes, and from where.
#[derive(Debug, Clone, PartialEq)]
pub enum Choice<'a> {
    /// The file's one answer (or `--action`).
    Every(&'a ScriptedAnswer),
    /// The answer under the request's event id.
    ById(&'a ScriptedAnswer),
    /// The first rule that matches.
    Rule(&'a Rule),
}

impl Choice<'_> {
    /// The answer chosen.
    pub fn answer(&self) -> &ScriptedAnswer {
        match self {
            Choice::Every(a) | Choice::ById(a) => a,
            Choice::Rule(r) => &r.answer,
        }
    }

    /// Where it came from, for reports: `the one answer`, `the answer for
    /// this id`, or the rule's label.
    pub fn source(&self) -> String {
        match self {
            Choice::Every(_) => "the one answer".into(),
            Choice::ById(_) => "the answer for this id".into(),
            Choice::Rule(r) => r.label(),
        }
    }
}

/// Why a request has no answer in the file.
#[derive(Debug, Clone, PartialEq)]
pub enum Unanswered {
    /// A by-id file has no entry for the request's id.
    NoId(String),
    /// No rule matches.
    NoRule(NoRule),
}

impl std::fmt::Display for Unanswered {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Unanswered::NoId(id) => write!(
                f,
                "no answer for request id {} in the answers file",
                rules::quoted(id)
            ),
            Unanswered::NoRule(n) => n.fmt(f),
        }
    }
}

impl Answers {
    /// Read an answers document (see the module docs).
    ///
    /// Errors: [`AnswersError::NotAnObject`], or the first fault: a wrong
    /// answer ([`AnswersError::Answer`]) or rule ([`AnswersError::Rule`]),
    /// naming the JSON pointer and the fault.
    pub fn from_value(v: &Value) -> Result<Self, AnswersError> {
        let Some(o) = v.as_object() else {
            return Err(AnswersError::NotAnObject);
        };
        // `$schema` (a string) tells editors which schema to check against.
        if o.get("$schema").is_some_and(|v| !v.is_string()) {
            return Err(AnswersError::Answer {
                pointer: "/$schema".into(),
                fault: AnswerFault::SchemaNotAString,
            });
        }
        let schema_only = |k: &str| k == "$schema";
        if Rules::is_rules_document(o) {
            return Ok(Answers::Rules(Rules::from_value(o)?));
        }
        if o.contains_key("action") {
            let mut one = o.clone();
            if schema_only("$schema") {
                one.remove("$schema");
            }
            return Ok(Answers::Every(ScriptedAnswer::from_value(
                &Value::Object(one),
                "",
            )?));
        }
        let mut by = HashMap::new();
        for (id, a) in o.iter().filter(|(k, _)| !schema_only(k)) {
            let ptr = format!("/{}", id.replace('~', "~0").replace('/', "~1"));
            by.insert(id.clone(), ScriptedAnswer::from_value(a, &ptr)?);
        }
        Ok(Answers::ById(by))
    }

    /// Read an answers file (at most
    /// 4 MiB, the binding's depth limit, no
    /// key given twice in one object). Reads no more than the limit and one
    /// byte, whatever the file's size.
    ///
    /// Errors: the file cannot be read, its text is not such JSON, or its
    /// content is not an answers document.
    pub fn from_file(path: &std::path::Path) -> Result<Self, AnswersError> {
        use std::io::Read;
        let read_err = |source| AnswersError::Read {
            path: path.to_owned(),
            source,
        };
        let limit = u64::try_from(document::MAX_ANSWERS_BYTES)
            .unwrap_or(u64::MAX)
            .saturating_add(1);
        let mut bytes = Vec::new();
        std::fs::File::open(path)
            .and_then(|f| f.take(limit).read_to_end(&mut bytes))
            .map_err(read_err)?;
        let v = document::parse(crate::stream::without_bom(&bytes)).map_err(|source| {
            AnswersError::Json {
                path: path.to_owned(),
                source,
            }
        })?;
        Self::from_value(&v).map_err(|e| AnswersError::Document {
            path: path.to_owned(),
            source: Box::new(e),
        })
    }

    /// Whether these answers can write a model's reply: a rules file with
    /// a rule whose `match` names `"method": "sampling/createMessage"` (a
    /// sampling request no rule matches fails closed, as an elicitation
    /// does). Then the client declares the capability `sampling`.
    pub fn covers_sampling(&self) -> bool {
        match self {
            Answers::Rules(r) => r
                .rules()
                .iter()
                .any(|r| r.when.method == Some(rules::SAMPLING_METHOD)),
            Answers::Every(_) | Answers::ById(_) => false,
        }
    }

    /// The answer for request `id` (a rules file: None, since rules look
    /// at the whole request: see [`Answers::choose`]).
    pub fn for_id(&self, id: &str) -> Option<&ScriptedAnswer> {
        match self {
            Answers::Every(a) => Some(a),
            Answers::ById(m) => m.get(id),
            Answers::Rules(_) => None,
        }
    }

    /// The answer `req` takes: the one answer, the answer under its id, or
    /// that of the first rule that matches it.
    ///
    /// Errors: [`Unanswered`]: no entry for the id, or no rule matches
    /// (with each rule's reason).
    pub fn choose(&self, req: &RequestEvent) -> Result<Choice<'_>, Unanswered> {
        match self {
            Answers::Every(a) => Ok(Choice::Every(a)),
            Answers::ById(m) => m
                .get(&req.id)
                .map(Choice::ById)
                .ok_or_else(|| Unanswered::NoId(req.id.clone())),
            Answers::Rules(r) => r.choose(req).map(Choice::Rule).map_err(Unanswered::NoRule),
        }
    }
}

/// Told which rule of a rules file answered each request, or why none did
/// (`--log` records it). Not called for the other forms of the file.
pub type RuleTrace = Box<dyn FnMut(&RequestEvent, Result<&Rule, &NoRule>) + Send>;

/// A [`Responder`] that answers from a script: one action for every
/// request ([`from_action`](Self::from_action), `--action`), or an answers
/// document ([`from_file`](Self::from_file), `--answers`) whose content or
/// rules are checked against each request's form as a person's entry is.
///
/// ```
/// use ahp_elicit::binding::{self, Action, ReadOptions};
/// use ahp_elicit::responder::{Context, Outcome, Responder};
/// use ahp_elicit::scripted::ScriptedResponder;
/// use serde_json::json;
///
/// let params = json!({"message": "Go on?", "requestedSchema": {"type": "object", "properties": {}}});
/// let event = json!({
///     "ahp": "0.1", "id": "evt-3", "type": "user.elicitation.request",
///     "time": "2026-12-03T10:00:00Z", "source": {"adapter": "example"},
///     "payload": {"elicitation": {
///         "server": {"name": "demo"}, "mode": "form",
///         "request": {"type": "text", "selection": "body", "text": params.to_string()}
///     }}
/// });
/// let request = binding::read_request(event, ReadOptions::default()).unwrap();
/// let mut responder = ScriptedResponder::from_action(Action::Decline);
/// match responder.respond(&request, &Context::default()).unwrap() {
///     Outcome::Answer(a) => assert_eq!((a.action, a.content), (Action::Decline, None)),
///     other => panic!("{other:?}"),
/// }
/// ```
pub struct ScriptedResponder {
    answers: Answers,
    launcher: Option<Box<dyn Launcher>>,
    trace: Option<RuleTrace>,
}

impl std::fmt::Debug for ScriptedResponder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ScriptedResponder")
            .field("answers", &self.answers)
            .field("launcher", &self.launcher.is_some())
            .field("trace", &self.trace.is_some())
            .finish()
    }
}

impl ScriptedResponder {
    /// Answer every request with `answers`.
    pub fn new(answers: Answers) -> Self {
        ScriptedResponder {
            answers,
            launcher: None,
            trace: None,
        }
    }

    /// The answers this responder gives.
    pub fn answers(&self) -> &Answers {
        &self.answers
    }

    /// Tell `trace` which rule answered each request, or why none did (a
    /// rules file only).
    pub fn with_rule_trace(mut self, trace: RuleTrace) -> Self {
        self.trace = Some(trace);
        self
    }

    /// `--action accept|decline|cancel`: the same action for every request;
    /// `accept` submits each form as shown (defaults pre-filled).
    pub fn from_action(action: Action) -> Self {
        Self::new(Answers::Every(ScriptedAnswer {
            action,
            content: None,
        }))
    }

    /// `--answers FILE`.
    ///
    /// Errors: see [`Answers::from_file`].
    pub fn from_file(path: &std::path::Path) -> Result<Self, AnswersError> {
        Ok(Self::new(Answers::from_file(path)?))
    }

    /// The hook for URL consent: on a URL-mode accept, `launcher.open(url)`
    /// is called. Its failure is that request's outcome,
    /// [`RespondError::NotOpened`] (no result, exit 1): an accept whose URL
    /// was never opened is not sent, and later requests are still answered.
    pub fn with_launcher(mut self, launcher: Box<dyn Launcher>) -> Self {
        self.launcher = Some(launcher);
        self
    }

    /// A script's `action` on a URL-mode request, through the consent
    /// machine ([`crate::consent`]) as a script's ([`Reader::Script`]: the
    /// script has the request whole, so its consent counts at once):
    /// accept is the machine's consent, whose open is carried out with the
    /// launcher (none: consent is passed on, nothing opened); decline and
    /// cancel are its answers. `host_named`: the rule that answers names
    /// the URL's host.
    ///
    /// Errors: [`RespondError::Refused`] with the sentence why there is no
    /// answer: consent only to a URL that can be opened, and, unless the
    /// rule names the host, to none the consent screen warns about
    /// ([`UrlReview::unattended_refusal`](crate::url_review::UrlReview::unattended_refusal)),
    /// so a refused scheme is a refused answer, not an I/O fault.
    /// [`RespondError::NotOpened`] with the launcher's reason: a URL that
    /// could not be opened was not consented to in effect, so that request
    /// gets an error and no result (a scripted accept is not sent for a
    /// flow that never started), and the run goes on with the next request.
    ///
    /// [`Reader::Script`]: crate::consent::Reader::Script
    fn consent_to(
        &mut self,
        url: &str,
        action: Action,
        host_named: bool,
    ) -> Result<Action, RespondError> {
        use crate::consent::{Consent, Effect, Input, Launch, Reader};
        let review = crate::url_review::review(url);
        let input = match action {
            Action::Accept => Input::Consent,
            Action::Decline => Input::Decline,
            Action::Cancel => Input::Cancel,
        };
        // What the consent screen warns about is not consented to with
        // nobody to read it, unless the rule names the host.
        let unattended = input == Input::Consent && !host_named;
        if let Some(why) = review.unattended_refusal().filter(|_| unattended) {
            return Err(RespondError::Refused(why));
        }
        let mut consent = Consent::new(&review, Reader::Script);
        let step = match consent.input(input, std::time::Instant::now()).effect {
            Some(Effect::Answer(a)) => return Ok(a),
            Some(Effect::Open(_)) => match self.launcher.as_mut() {
                Some(l) => {
                    let (step, res) = consent.open_with(l.as_mut(), false);
                    if let Err(e) = res {
                        return Err(RespondError::NotOpened(e));
                    }
                    step
                }
                // No launcher (a library caller's script): the consent is
                // passed on and the caller opens what it will.
                None => consent.launched(Launch::Opened),
            },
            _ => {
                let why = review.refusal.as_ref().map(|r| r.sentence());
                let why = why.unwrap_or_else(|| "the URL cannot be opened".into());
                return Err(RespondError::Refused(why));
            }
        };
        step.answer().ok_or(RespondError::NotOpened(
            crate::launcher::LaunchError::NoTarget,
        ))
    }

    /// Answer the URL-mode request `req` for `url` with `a`, through the
    /// consent machine ([`ScriptedResponder::consent_to`]).
    ///
    /// Errors: [`RespondError::Refused`] for an accept with content or one
    /// the machine does not take; [`RespondError::NotOpened`].
    fn url_answer(
        &mut self,
        req: &RequestEvent,
        url: &str,
        a: &ScriptedAnswer,
    ) -> Result<Answer, RespondError> {
        if a.action == Action::Accept && a.content.is_some() {
            return Err(RespondError::Refused(
                "a URL-mode accept carries no content".into(),
            ));
        }
        // The rule that answers this request names its host.
        let host_named = matches!(
            self.answers.choose(req),
            Ok(Choice::Rule(r)) if r.when.host.is_some()
        );
        self.consent_to(url, a.action, host_named).map(Answer::bare)
    }

    /// Answer one request with `a` (what [`Responder::respond`] does after
    /// choosing the answer).
    ///
    /// Errors: [`RespondError::Refused`] when the form refuses the answer,
    /// an accept targets a view that is not executable, or the consent
    /// machine takes no consent to a URL; [`RespondError::NotOpened`] when
    /// a consented URL could not be opened.
    pub fn answer(
        &mut self,
        req: &RequestEvent,
        a: &ScriptedAnswer,
    ) -> Result<Answer, RespondError> {
        let r = match &req.view {
            RequestView::Body(r) => r,
            _ if a.action != Action::Accept => return Ok(Answer::bare(a.action)),
            other => {
                return Err(RespondError::Refused(format!(
                    "cannot accept a view that is not executable ({}); only decline or cancel",
                    other.describe().unwrap_or_default()
                )))
            }
        };
        match &r.body {
            RequestBody::Url { url, .. } => self.url_answer(req, url, a),
            RequestBody::Form(_) if a.action != Action::Accept => Ok(Answer::bare(a.action)),
            RequestBody::Form(schema) => {
                let mut form = Form::new(schema, &r.message);
                let mut errs = Vec::new();
                let mut refused: Vec<&str> = Vec::new();
                if let Some(c) = &a.content {
                    for (k, v) in c {
                        if let Err(e) = form.set_json(k, v) {
                            errs.push(e.to_string());
                            refused.push(k);
                        }
                    }
                }
                // Every refused field at once: also what the form as filled
                // lacks (a missing required field, a bound), not only the
                // values it could not take, so one fix round is enough.
                if !errs.is_empty() {
                    if let Err(es) = form.content() {
                        errs.extend(
                            es.into_iter()
                                .filter(|(n, _)| !refused.contains(&n.as_str()))
                                .map(|(n, m)| format!("'{n}' {m}")),
                        );
                    }
                }
                if !errs.is_empty() {
                    return Err(RespondError::Refused(errs.join("; ")));
                }
                form.apply(crate::form::KeyIntent::Submit);
                match form.apply(crate::form::KeyIntent::Send) {
                    Status::Done(ans) => Ok(ans),
                    Status::Open => {
                        let reasons = match form.content() {
                            Err(es) => es
                                .into_iter()
                                .map(|(n, m)| format!("'{n}' {m}"))
                                .collect::<Vec<_>>()
                                .join("; "),
                            Ok(_) => "the form did not submit".into(),
                        };
                        Err(RespondError::Refused(reasons))
                    }
                }
            }
        }
    }
}

/// What a request would get, computed without answering (`ahp-elicit
/// answers check FILE EVENTS`): nothing is opened, nothing is sent.
#[derive(Debug, Clone, PartialEq)]
pub enum DryRun {
    /// The answer taken from `source` (the one answer, the id's, or a
    /// rule's label) and the action; `refused` holds the form's reasons
    /// when the answer would be refused.
    Answered {
        source: String,
        /// The rule's pointer (`/rules/0`) when a rule answers.
        rule: Option<String>,
        action: Action,
        refused: Option<String>,
    },
    /// No answer in the file: why (rule by rule for rules).
    Unanswered(String),
}

impl ScriptedResponder {
    /// Which answer `req` takes and whether its form takes it, without a
    /// launcher (no URL is opened) and without a result.
    pub fn dry_run(&mut self, req: &RequestEvent) -> DryRun {
        let (source, rule, a) = match self.answers.choose(req) {
            Ok(c) => {
                let rule = match &c {
                    Choice::Rule(r) => Some(r.pointer()),
                    _ => None,
                };
                (c.source(), rule, c.answer().clone())
            }
            Err(why) => return DryRun::Unanswered(why.to_string()),
        };
        let launcher = self.launcher.take();
        let refused = match self.answer(req, &a) {
            Ok(_) => None,
            Err(RespondError::Refused(m)) => Some(m),
            Err(RespondError::NotOpened(why)) => Some(format!("{NOT_OPENED}: {why}")),
            Err(e) => Some(e.to_string()),
        };
        self.launcher = launcher;
        DryRun::Answered {
            source,
            rule,
            action: a.action,
            refused,
        }
    }
}

/// Check an answers document against its JSON Schema (`schemas/answers.schema.json`):
/// every violation as (JSON Pointer, message), in the validator's order.
pub fn schema_violations(doc: &Value) -> Vec<(String, String)> {
    static V: std::sync::OnceLock<Option<jsonschema::Validator>> = std::sync::OnceLock::new();
    let v = V.get_or_init(|| {
        let schema: Value = serde_json::from_str(rules::SCHEMA).ok()?;
        jsonschema::options().build(&schema).ok()
    });
    let Some(v) = v else {
        return vec![(
            String::new(),
            "the embedded answers schema does not compile".into(),
        )];
    };
    v.iter_errors(doc)
        .map(|e| (e.instance_path().as_str().to_owned(), e.to_string()))
        .collect()
}

impl Responder for ScriptedResponder {
    fn respond(&mut self, req: &RequestEvent, _cx: &Context) -> Result<Outcome, RespondError> {
        let chosen = self.answers.choose(req);
        if let Some(trace) = self.trace.as_mut() {
            match &chosen {
                Ok(Choice::Rule(r)) => trace(req, Ok(r)),
                Err(Unanswered::NoRule(n)) => trace(req, Err(n)),
                _ => {}
            }
        }
        let a = match chosen {
            Ok(c) => c.answer().clone(),
            Err(why) => return Err(RespondError::Refused(why.to_string())),
        };
        self.answer(req, &a).map(Outcome::Answer)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A scripted responder can be moved to the thread that answers.
    #[test]
    fn a_scripted_responder_can_move_to_another_thread() {
        let r = ScriptedResponder::from_action(Action::Decline)
            .with_launcher(Box::new(crate::launcher::NoOpen::default()));
        let moved = std::thread::spawn(move || format!("{r:?}"))
            .join()
            .expect("thread");
        assert!(moved.starts_with("ScriptedResponder"), "{moved}");
    }
}
