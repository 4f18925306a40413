//! Scripted answering (`--answers FILE` or `--action`): the
//! form state machine with no terminal, for tests, CI and demos.
//!
//! The answers file is either one answer for every request,
//! `{"action": "accept"|"decline"|"cancel", "content": {...}}`, or an object
//! keyed by request event id whose values are such answers. Content keys set
//! field values on the form as a person would see it: pre-filled defaults
//! stay unless set to `null`, which clears the field. The form is then
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

use crate::binding::{Action, Answer, RequestBody, RequestEvent, RequestView, Violation};
use crate::form::{Form, Status};
use crate::responder::{Context, Launcher, Outcome, RespondError, Responder};

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
}

impl Answers {
    /// Read an answers document (see the module docs).
    ///
    /// Errors: [`AnswersError::NotAnObject`], or the first wrong answer
    /// ([`AnswersError::Answer`], naming the JSON pointer and the fault).
    pub fn from_value(v: &Value) -> Result<Self, AnswersError> {
        let Some(o) = v.as_object() else {
            return Err(AnswersError::NotAnObject);
        };
        if o.contains_key("action") {
            return Ok(Answers::Every(ScriptedAnswer::from_value(v, "")?));
        }
        let mut by = HashMap::new();
        for (id, a) in o {
            let ptr = format!("/{}", id.replace('~', "~0").replace('/', "~1"));
            by.insert(id.clone(), ScriptedAnswer::from_value(a, &ptr)?);
        }
        Ok(Answers::ById(by))
    }

    /// Read an answers file (JSON, with the binding's size and depth limits).
    ///
    /// Errors: the file cannot be read, or its content is not an answers
    /// document.
    pub fn from_file(path: &std::path::Path) -> Result<Self, AnswersError> {
        let bytes = std::fs::read(path).map_err(|source| AnswersError::Read {
            path: path.to_owned(),
            source,
        })?;
        let v = crate::binding::parse_json(&bytes).map_err(|source| AnswersError::Json {
            path: path.to_owned(),
            source,
        })?;
        Self::from_value(&v).map_err(|e| AnswersError::Document {
            path: path.to_owned(),
            source: Box::new(e),
        })
    }

    /// The answer for request `id`.
    pub fn for_id(&self, id: &str) -> Option<&ScriptedAnswer> {
        match self {
            Answers::Every(a) => Some(a),
            Answers::ById(m) => m.get(id),
        }
    }
}

/// A [`Responder`] that answers from a script.
pub struct ScriptedResponder {
    answers: Answers,
    launcher: Option<Box<dyn Launcher>>,
}

impl std::fmt::Debug for ScriptedResponder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ScriptedResponder")
            .field("answers", &self.answers)
            .field("launcher", &self.launcher.is_some())
            .finish()
    }
}

impl ScriptedResponder {
    /// Answer every request with `answers`.
    pub fn new(answers: Answers) -> Self {
        ScriptedResponder {
            answers,
            launcher: None,
        }
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
    /// [`RespondError::Refused`] (no result, exit 1): an accept whose URL
    /// was never opened is not sent, and later requests are still answered.
    pub fn with_launcher(mut self, launcher: Box<dyn Launcher>) -> Self {
        self.launcher = Some(launcher);
        self
    }

    /// Answer one request with `a` (what [`Responder::respond`] does after
    /// choosing the answer).
    ///
    /// Errors: [`RespondError::Refused`] when the form refuses the answer or
    /// an accept targets a view that is not executable.
    pub fn answer(
        &mut self,
        req: &RequestEvent,
        a: &ScriptedAnswer,
    ) -> Result<Answer, RespondError> {
        if a.action != Action::Accept {
            return Ok(Answer::bare(a.action));
        }
        let r = match &req.view {
            RequestView::Body(r) => r,
            other => {
                return Err(RespondError::Refused(format!(
                    "cannot accept a view that is not executable ({}); only decline or cancel",
                    other.describe().unwrap_or_default()
                )))
            }
        };
        match &r.body {
            RequestBody::Url { url, .. } => {
                if a.content.is_some() {
                    return Err(RespondError::Refused(
                        "a URL-mode accept carries no content".into(),
                    ));
                }
                // Consent only to a URL that can be opened:
                // a refused scheme is a refused answer, not an I/O fault.
                let review = crate::url_review::review(url);
                if let Some(r) = &review.refusal {
                    return Err(RespondError::Refused(r.sentence()));
                }
                // A URL that could not be opened was not consented to in
                // effect: that request gets an error and no result (a
                // scripted accept is not sent for a flow that never
                // started), and the run goes on with the next request.
                if let Some(l) = self.launcher.as_mut() {
                    crate::launcher::consent_and_open(l.as_mut(), &review).map_err(|e| {
                        RespondError::Refused(format!("the URL was not opened: {e}"))
                    })?;
                }
                Ok(Answer::bare(Action::Accept))
            }
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

impl Responder for ScriptedResponder {
    fn respond(&mut self, req: &RequestEvent, _cx: &Context) -> Result<Outcome, RespondError> {
        let Some(a) = self.answers.for_id(&req.id).cloned() else {
            return Err(RespondError::Refused(format!(
                "no answer for request id '{}' in the answers file",
                req.id
            )));
        };
        self.answer(req, &a).map(Outcome::Answer)
    }
}
