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
//! Views that are not executable (metadata, omit, gap; seed: "A
//! metadata/omit/gap view is not an executable request") can be declined or
//! cancelled; a scripted accept is refused. In URL mode `accept` means
//! consent to open the URL (seed: "URL acceptance means consent to open the
//! URL, not completion of that flow"): the answer is a bare accept, and a
//! [`Launcher`] set with [`ScriptedResponder::with_launcher`] is asked to
//! open the URL.

use std::collections::HashMap;

use serde_json::{Map, Value};

use crate::binding::{Action, Answer, RequestBody, RequestEvent, RequestView};
use crate::form::{Form, Status};
use crate::responder::{Context, Launcher, Outcome, RespondError, Responder};

/// One scripted answer: an action and, for an accepted form, field values.
#[derive(Debug, Clone, PartialEq)]
pub struct ScriptedAnswer {
    pub action: Action,
    /// Field values to set before submitting (`null` clears a field).
    pub content: Option<Map<String, Value>>,
}

impl ScriptedAnswer {
    /// Read `{"action": ..., "content": {...}?}` at JSON pointer `ptr`.
    ///
    /// Errors: a sentence naming `ptr` and what is wrong.
    pub fn from_value(v: &Value, ptr: &str) -> Result<Self, String> {
        let Some(o) = v.as_object() else {
            return Err(format!(
                "{ptr}: an answer must be an object {{\"action\": ..., \"content\": {{...}}}}"
            ));
        };
        for k in o.keys() {
            if k != "action" && k != "content" {
                return Err(format!(
                    "{ptr}/{k}: unknown key (an answer has action and content)"
                ));
            }
        }
        let action = match o.get("action") {
            Some(Value::String(s)) => Action::parse(s)
                .ok_or_else(|| format!("{ptr}/action: '{s}' is not accept, decline or cancel"))?,
            Some(_) => return Err(format!("{ptr}/action: must be a string")),
            None => return Err(format!("{ptr}: an answer needs an action")),
        };
        let content = match o.get("content") {
            None => None,
            Some(Value::Object(m)) => Some(m.clone()),
            Some(_) => return Err(format!("{ptr}/content: must be an object")),
        };
        if content.is_some() && action != Action::Accept {
            return Err(format!(
                "{ptr}/content: only an accept carries content, not {}",
                action.as_str()
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
    /// Errors: a sentence naming the JSON pointer and the fault.
    pub fn from_value(v: &Value) -> Result<Self, String> {
        let Some(o) = v.as_object() else {
            return Err("answers: the file must hold a JSON object".into());
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
    pub fn from_file(path: &std::path::Path) -> Result<Self, String> {
        let bytes = std::fs::read(path)
            .map_err(|e| format!("cannot read answers file {}: {e}", path.display()))?;
        let v = crate::binding::parse_json(&bytes)
            .map_err(|e| format!("answers file {}: {e}", path.display()))?;
        Self::from_value(&v).map_err(|e| format!("answers file {}: {e}", path.display()))
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
    pub fn from_file(path: &std::path::Path) -> Result<Self, String> {
        Ok(Self::new(Answers::from_file(path)?))
    }

    /// The hook for URL consent: on a URL-mode accept, `launcher.open(url)`
    /// is called (its failure is reported as [`RespondError::Io`]).
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
                if let Some(l) = self.launcher.as_mut() {
                    crate::launcher::consent_and_open(l.as_mut(), &review)
                        .map_err(RespondError::Io)?;
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
                            errs.push(e);
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
                form.apply(crate::form::Action::Submit);
                match form.apply(crate::form::Action::Send) {
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
