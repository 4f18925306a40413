//! Trying a server by hand in plain lines ([`crate::browse`]): the same
//! loop as the full screen's, one question at a time. The server's tools,
//! prompts and resources are said as numbered choices (a number or part of
//! a name picks one; `q` leaves); each argument is asked as a field of the
//! elicitation form (the form [`crate::binding::tool_form`] builds), those
//! the form cannot draw as JSON on one line, checked against the
//! `inputSchema`; the review says the arguments; while the call runs, what
//! the server reports is said line by line and Control-C cancels it; then
//! the result, in lines, and the list again.
//!
//! Every text of the server's goes through [`crate::safe_text`]; the lines
//! of a result that are the server's own start with `| `, so none of them
//! passes for one of ours.

use std::time::{Duration, Instant};

use serde_json::{Map, Value};

use super::io::{LineIo, Reply as Typed};
use super::{PlainResponder, Read, ReviewWords, QUIT_WINDOW};
use crate::binding::tool_form;
use crate::binding::Revision;
use crate::binding::{Action, RequestBody, RequestView};
use crate::browse::result::{result_lines, Tone};
use crate::browse::{CallOutcome, Kind, Reply, Step, ToolEntry};
use crate::form::Form;
use crate::responder::{Context, Outcome, RespondError, WaitKey, Waiting};
use crate::safe_text::{display, display_multiline};

/// Most characters of an entry's title or description said on its line.
const ABOUT_CHARS: usize = 100;
/// Most entries said when a typed text matches several.
const MATCHES_SAID: usize = 20;

/// The review of a tool's arguments.
const ARGUMENTS_REVIEW: ReviewWords = ReviewWords {
    intro: "Review: the call is made with exactly these arguments.",
    prompt: "Type call, edit N, or back: ",
    sent: "Arguments taken.",
    arguments: true,
};

/// The review of a tool's arguments when the form leaves some out: they
/// are asked next, and the call is made after them.
const ARGUMENTS_REVIEW_NEXT: ReviewWords = ReviewWords {
    intro: "Review: the arguments from the form. The ones it cannot ask come next, as JSON; the call is made after them.",
    prompt: "Type next, edit N, or back: ",
    sent: "Arguments taken.",
    arguments: true,
};

/// What a line typed at the list means.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Choice {
    /// The entry at this index.
    Entry(usize),
    /// Leave the list.
    Leave,
    /// Nothing picked: say this and ask again.
    Again(Vec<String>),
}

/// `text` cut to `n` characters, "…" when cut.
fn cut(text: &str, n: usize) -> String {
    let mut t: String = text.chars().take(n).collect();
    if text.chars().nth(n).is_some() {
        t.push('…');
    }
    t
}

/// One entry of the list as said: its number (1-based), name, what it is
/// about and its tag, all escaped.
fn entry_line(i: usize, t: &ToolEntry) -> String {
    let about = cut(t.about(), ABOUT_CHARS);
    let about = if about.is_empty() {
        String::new()
    } else {
        format!(" — {}", display(&about))
    };
    format!("{}. {}{about} {}", i + 1, display(&t.name), t.tag())
}

/// What `line`, typed at the list of `tools`, picks: a number, `q`, a name
/// (any case), or part of a name, title or description that only one entry
/// has.
fn choose(tools: &[ToolEntry], line: &str) -> Choice {
    let t = line.trim();
    let n = tools.len();
    if t.is_empty() {
        return Choice::Again(vec![
            "A bare Enter picks nothing: type a number or part of a name (q leaves).".into(),
        ]);
    }
    if t.eq_ignore_ascii_case("q") || t.eq_ignore_ascii_case("quit") {
        return Choice::Leave;
    }
    if let Ok(k) = t.parse::<usize>() {
        if (1..=n).contains(&k) {
            return Choice::Entry(k - 1);
        }
    }
    if let Some(i) = tools.iter().position(|e| e.name.eq_ignore_ascii_case(t)) {
        return Choice::Entry(i);
    }
    let found: Vec<usize> = (0..n).filter(|&i| tools[i].matches(t)).collect();
    match found.as_slice() {
        [one] => Choice::Entry(*one),
        [] => Choice::Again(vec![format!(
            "Nothing matches \"{}\": type a number from 1 to {n}, or part of a name.",
            display(&cut(t, 100))
        )]),
        many => {
            let mut said = vec![format!(
                "{} entries match \"{}\":",
                many.len(),
                display(&cut(t, 100))
            )];
            said.extend(
                many.iter()
                    .take(MATCHES_SAID)
                    .map(|&i| entry_line(i, &tools[i])),
            );
            if many.len() > MATCHES_SAID {
                said.push(format!("and {} more.", many.len() - MATCHES_SAID));
            }
            said.push("Type one of their numbers, or more of the name.".into());
            Choice::Again(said)
        }
    }
}

impl<I: LineIo> PlainResponder<I> {
    /// Put `step` to the person in lines ([`crate::responder::Responder::browse`]).
    ///
    /// Errors: the terminal's.
    pub(super) fn browse_step(&mut self, step: &Step) -> Result<Reply, RespondError> {
        // How the last request ended is acknowledged first.
        if self.acknowledge(false)? {
            return Ok(Reply::Quit);
        }
        if matches!(
            step,
            Step::Ready
                | Step::Result {
                    outcome: CallOutcome::Cancelled,
                    ..
                }
        ) {
            return Ok(Reply::Back);
        }
        self.browsing = true;
        self.changed = false;
        // Keys typed before this step was said were meant for something
        // else: never a pick or an answer.
        self.io.discard_typeahead();
        if self.hold_notices {
            crate::notice::hold();
        }
        let out = self.browse_said(step);
        if self.hold_notices {
            crate::notice::release();
        }
        out
    }

    /// [`PlainResponder::browse_step`] once the step is said (stderr
    /// notices held meanwhile).
    fn browse_said(&mut self, step: &Step) -> Result<Reply, RespondError> {
        match step {
            Step::Ready
            | Step::Result {
                outcome: CallOutcome::Cancelled,
                ..
            } => Ok(Reply::Back),
            Step::Pick { tools, last, feed } => {
                // Plain lines say what changed once, before the list; a
                // change while the prompt waits is said at the next list.
                if let Some((_, said)) = feed.take() {
                    self.say(&said)?;
                }
                self.pick(tools, *last)
            }
            Step::Arguments {
                kind,
                tool,
                request,
                input_schema,
                left_out,
                last,
            } => {
                let RequestView::Body(r) = &request.view else {
                    return Ok(Reply::Back);
                };
                let RequestBody::Form(schema) = &r.body else {
                    return Ok(Reply::Back);
                };
                let mut form = Form::new(schema, &r.message);
                form.for_arguments = true;
                form.arguments_left_out = left_out.clone();
                let call = format!("{} {tool}", kind.method());
                self.arguments = true;
                let given = self.ask_arguments(&mut form, &call, &r.message);
                self.arguments = false;
                let given = given?;
                match given {
                    Reply::Arguments(a) if !left_out.is_empty() => {
                        self.left_out_arguments(tool, input_schema, a, left_out, last)
                    }
                    other => Ok(other),
                }
            }
            Step::Result {
                kind,
                tool,
                outcome,
                output_check,
                hint,
                again,
                ..
            } => {
                for (tone, l) in result_lines(*kind, tool, outcome, output_check.as_ref()) {
                    let l = match tone {
                        Tone::Text => format!("| {l}"),
                        _ => l,
                    };
                    self.say(&l)?;
                }
                if let Some(h) = hint {
                    self.say(&format!("Hint: {}", display(h)))?;
                }
                self.result_read(*again)
            }
        }
    }

    /// A Control-C at one of the loop's own prompts: the second within
    /// [`QUIT_WINDOW`] quits (true); the first says so.
    fn ctrl_c(&mut self) -> Result<bool, RespondError> {
        let now = Instant::now();
        if self
            .last_ctrl_c
            .is_some_and(|t| now.duration_since(t) < QUIT_WINDOW)
        {
            self.say("Quitting.")?;
            return Ok(true);
        }
        self.last_ctrl_c = Some(now);
        self.say("Press Control-C again at once to quit.")?;
        Ok(false)
    }

    /// The list: each entry numbered, then what the person types picks one
    /// ([`choose`]).
    fn pick(&mut self, tools: &[ToolEntry], last: Option<usize>) -> Result<Reply, RespondError> {
        self.say("")?;
        let what = if tools.iter().all(|t| t.kind == Kind::Tool) {
            "The server's tools"
        } else {
            "The server's tools, prompts and resources"
        };
        self.say(&format!("{what}: {}.", tools.len()))?;
        for (i, t) in tools.iter().enumerate() {
            self.say(&entry_line(i, t))?;
        }
        if let Some(i) = last.filter(|&i| i < tools.len()) {
            self.say(&format!("Picked last: {}.", i + 1))?;
        }
        loop {
            let prompt = "Type a number or part of a name to pick one (q leaves): ";
            match self.io.ask(prompt, None, &|| false)? {
                Typed::Line(l) if self.traced(&l)? => {}
                Typed::Line(l) => match choose(tools, &l) {
                    Choice::Entry(i) => return Ok(Reply::Picked(i)),
                    Choice::Leave => return Ok(Reply::Leave),
                    Choice::Again(said) => {
                        for l in said {
                            self.say(&l)?;
                        }
                    }
                },
                Typed::Interrupt => {
                    if self.ctrl_c()? {
                        return Ok(Reply::Quit);
                    }
                }
                Typed::Eof => return Ok(Reply::Leave),
                Typed::Quit => return Ok(Reply::Quit),
                Typed::TimedOut | Typed::Withdrawn => {}
            }
        }
    }

    /// The arguments form of `call` (`tools/call NAME`, unsanitized), one
    /// question per field, then its review: [`Reply::Arguments`] with what
    /// the person gave, [`Reply::Back`] when they gave up (Control-C,
    /// Control-D, back), [`Reply::Quit`].
    ///
    /// Errors: the terminal's.
    fn ask_arguments(
        &mut self,
        form: &mut Form,
        call: &str,
        message: &str,
    ) -> Result<Reply, RespondError> {
        self.say("")?;
        self.say(&format!("Arguments for {}.", display(call)))?;
        // The message is ours (the names in it are escaped as said).
        for l in display_multiline(message) {
            self.say(&l)?;
        }
        let n = form.fields().len();
        let required = form.fields().iter().filter(|f| f.field.required).count();
        self.say(&format!(
            "{} to give, {required} required. Control-C goes back to the list.",
            if n == 1 {
                "1 argument".to_owned()
            } else {
                format!("{n} arguments")
            }
        ))?;
        let cx = Context::default();
        let done = |o: Outcome| match o {
            Outcome::Quit => Reply::Quit,
            Outcome::Answer(_) => Reply::Back,
        };
        for i in 0..n {
            if let Some(o) = self.ask_field(form, i, &cx)? {
                return Ok(done(o));
            }
        }
        let words = if form.arguments_left_out.is_empty() {
            &ARGUMENTS_REVIEW
        } else {
            &ARGUMENTS_REVIEW_NEXT
        };
        match self.review(form, &cx, words)? {
            Outcome::Answer(a) if a.action == Action::Accept => {
                Ok(Reply::Arguments(a.content.unwrap_or_default()))
            }
            o => Ok(done(o)),
        }
    }

    /// The arguments the form could not draw (`left_out`), each asked as
    /// JSON on one line (Enter keeps the value last sent, else its
    /// default), added to `answered`; the whole then checked against
    /// `input_schema`. Faults are said by JSON pointer, and the person
    /// gives them again or goes back to the list.
    ///
    /// Errors: the terminal's.
    fn left_out_arguments(
        &mut self,
        tool: &str,
        input_schema: &Value,
        answered: Map<String, Value>,
        left_out: &[String],
        last: &Map<String, Value>,
    ) -> Result<Reply, RespondError> {
        loop {
            self.say(&format!(
                "The form cannot ask {} of the tool's arguments: give each as JSON on one line.",
                left_out.len()
            ))?;
            let mut all = answered.clone();
            for name in left_out {
                match self.json_argument(input_schema, name, last.get(name))? {
                    Ok(Some(v)) => {
                        all.insert(name.clone(), v);
                    }
                    Ok(None) => {}
                    Err(reply) => return Ok(reply),
                }
            }
            let text = Value::Object(all).to_string();
            let faults = match tool_form::check_arguments(input_schema, &text) {
                Ok(args) => return Ok(Reply::Arguments(args)),
                Err(f) => f,
            };
            self.say(&format!(
                "The arguments of the tool '{}' were not taken:",
                display(tool)
            ))?;
            for f in faults {
                self.say(&format!("  {f}"))?;
            }
            match self.io.ask(
                "Type again to give them again; Enter goes back to the list: ",
                None,
                &|| false,
            )? {
                Typed::Line(l) if l.trim().eq_ignore_ascii_case("again") => continue,
                Typed::Quit => return Ok(Reply::Quit),
                Typed::Interrupt if self.ctrl_c()? => return Ok(Reply::Quit),
                _ => return Ok(Reply::Back),
            }
        }
    }

    /// Ask the argument `name` of `input_schema` as JSON: its description
    /// and what it starts with (`sent` last time, else its default); Enter
    /// keeps that, `-` leaves an optional one out. Ok(None): left out;
    /// Err(reply): the person went back or quit.
    ///
    /// Errors: the terminal's.
    fn json_argument(
        &mut self,
        input_schema: &Value,
        name: &str,
        sent: Option<&Value>,
    ) -> Result<Result<Option<Value>, Reply>, RespondError> {
        let def = input_schema
            .get("properties")
            .and_then(|p| p.get(name))
            .cloned()
            .unwrap_or(Value::Null);
        let required = input_schema
            .get("required")
            .and_then(Value::as_array)
            .is_some_and(|r| r.iter().any(|v| v.as_str() == Some(name)));
        let start = sent.or_else(|| def.get("default")).cloned();
        self.say(&format!(
            "Argument {}, {}, as JSON.",
            display(name),
            if required { "required" } else { "optional" }
        ))?;
        if let Some(d) = def.get("description").and_then(Value::as_str) {
            for l in super::server_words(
                "Argument description from the server",
                "Description continues",
                d,
            ) {
                self.say(&l)?;
            }
        }
        self.say(&format!(
            "Its schema: {}",
            cut(&crate::safe_text::json_line(&def), 300)
        ))?;
        match &start {
            Some(v) => self.say(&format!(
                "Now {}. Press Enter to keep it.",
                cut(&crate::safe_text::json_line(v), 300)
            ))?,
            None if required => self.say("An answer is required.")?,
            None => self.say("Press Enter to leave it out.")?,
        }
        let cx = Context::default();
        loop {
            let line = match self.read(&format!("{}: ", display(name)), &cx)? {
                Read::Line(l) => l,
                Read::Done(Outcome::Quit) => return Ok(Err(Reply::Quit)),
                Read::Done(_) => return Ok(Err(Reply::Back)),
            };
            let t = line.trim();
            match (t, &start) {
                ("", Some(v)) => return Ok(Ok(Some(v.clone()))),
                ("", None) if !required => return Ok(Ok(None)),
                ("", None) => self.say("Not accepted: this argument is required.")?,
                ("-", _) if !required => return Ok(Ok(None)),
                ("-", _) => self.say("Not accepted: this argument is required.")?,
                _ => match serde_json::from_str::<Value>(t) {
                    Ok(v) => {
                        self.changed = true;
                        return Ok(Ok(Some(v)));
                    }
                    Err(e) => self.say(&format!(
                        "Not accepted: that is not JSON ({}).",
                        display(&e.to_string())
                    ))?,
                },
            }
        }
    }

    /// After the result: Enter goes back to the list, `q` leaves, and
    /// (`again`) `again` runs the call again over MCP 2025-11-25.
    fn result_read(&mut self, again: bool) -> Result<Reply, RespondError> {
        if again {
            self.say(&crate::browse::again_offer())?;
        }
        let (prompt, not_understood) = if again {
            (
                format!(
                    "Type again to run it again over MCP {}; Enter goes back to the list, q leaves: ",
                    Revision::V2025_11_25
                ),
                "Not understood: type again to run it again, press Enter, or type q.",
            )
        } else {
            (
                "Press Enter to go back to the list (q leaves): ".to_owned(),
                "Not understood: press Enter, or type q.",
            )
        };
        loop {
            match self.io.ask(&prompt, None, &|| false)? {
                Typed::Line(l) if self.traced(&l)? => {}
                Typed::Line(l) => match l.trim().to_ascii_lowercase().as_str() {
                    "" => return Ok(Reply::Back),
                    "q" | "quit" => return Ok(Reply::Leave),
                    "again" if again => return Ok(Reply::Again),
                    _ => self.say(not_understood)?,
                },
                Typed::Interrupt => {
                    return Ok(if self.ctrl_c()? {
                        Reply::Quit
                    } else {
                        Reply::Back
                    })
                }
                Typed::Quit => return Ok(Reply::Quit),
                _ => return Ok(Reply::Back),
            }
        }
    }

    /// The wait while a call the person started runs ([`Waiting::call`]):
    /// what is being done is said once per call, then each line the server
    /// reports as it comes; Control-C cancels the call
    /// ([`WaitKey::CancelCall`]; a second one at the list quits). Any other
    /// wait: the usual one ([`crate::responder::Responder::idle`]).
    pub(super) fn wait_call(&mut self, wait: Duration, shown: &Waiting) -> WaitKey {
        let Some(call) = &shown.call else {
            return if crate::responder::Responder::idle(self, wait) {
                WaitKey::Quit
            } else {
                WaitKey::Nothing
            };
        };
        let said = match self.call_said {
            Some((n, said)) if n == call.number => said,
            _ => {
                let status = shown.status.as_deref().unwrap_or("Calling…");
                let line = format!("{status} Control-C cancels the call.");
                if self.say(&line).is_err() {
                    return WaitKey::Nothing;
                }
                0
            }
        };
        for l in call.after(said) {
            if self.say(&format!("The server reports: {l}")).is_err() {
                return WaitKey::Nothing;
            }
        }
        self.call_said = Some((call.number, call.total));
        match self.io.wait(wait) {
            Some(Typed::Quit) => WaitKey::Quit,
            Some(Typed::Interrupt) => {
                self.last_ctrl_c = Some(Instant::now());
                let _ = self.say("Cancelling the call: back to the list.");
                WaitKey::CancelCall
            }
            _ => WaitKey::Nothing,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::binding::tool_form::ToolForm;
    use crate::binding::{wrap_request, SchemaPolicy, Server, WrapOptions};
    use crate::plain::MemoryIo;
    use crate::responder::CallInProgress;
    use serde_json::json;

    fn plain(lines: &[&str]) -> PlainResponder<MemoryIo> {
        PlainResponder::new(
            MemoryIo::typing(lines),
            Box::new(crate::launcher::NoOpen::default()),
            true,
        )
    }

    /// The arguments step of the tool `ship` with `schema`, as the front
    /// door builds it.
    fn arguments_step(schema: &Value) -> Step {
        let form = ToolForm::of(schema);
        let server = Server {
            name: "srv".into(),
            title: None,
            version: None,
        };
        let options = WrapOptions {
            policy: SchemaPolicy::Compatible,
            ..WrapOptions::new(&server, "mcp-stdio", "args-1")
        };
        let request = wrap_request(&form.params("tool", "ship"), &options).expect("a form");
        Step::Arguments {
            kind: crate::browse::Kind::Tool,
            tool: "ship".into(),
            request: Box::new(request),
            input_schema: schema.clone(),
            left_out: form.left_out.iter().map(|l| l.name.clone()).collect(),
            last: Map::new(),
        }
    }

    /// A property the form cannot draw is asked as JSON on one line; what
    /// does not fit the inputSchema is said by its JSON pointer, and given
    /// again.
    #[test]
    fn a_left_out_argument_is_asked_as_json_and_checked() {
        let schema = json!({
            "type": "object",
            "properties": {
                "recipient": {"type": "string"},
                "address": {
                    "type": "object",
                    "description": "Where\u{1b}[2J to",
                    "properties": {"street": {"type": "string"}, "city": {"type": "string"}},
                    "required": ["city"]
                }
            },
            "required": ["recipient", "address"]
        });
        let mut p = plain(&[
            "Ada",
            "next",
            "{\"street\": \"Main\"",
            "{\"street\": \"Main\"}",
            "again",
            "{\"city\": \"Oslo\"}",
        ]);
        let reply = p.browse_step(&arguments_step(&schema)).expect("reply");
        assert_eq!(
            reply,
            Reply::Arguments(
                json!({"recipient": "Ada", "address": {"city": "Oslo"}})
                    .as_object()
                    .cloned()
                    .unwrap()
            )
        );
        let t = &p.io().transcript;
        for said in [
            "1 argument to give, 1 required. Control-C goes back to the list.",
            "Review: the arguments from the form. The ones it cannot ask come next, as JSON; the call is made after them.",
            "Type next, edit N, or back: next",
            "The form cannot ask 1 of the tool's arguments: give each as JSON on one line.",
            "Argument address, required, as JSON.",
            "Argument description from the server: Where\\u{1b}[2J to",
            "An answer is required.",
            "Not accepted: that is not JSON (EOF while parsing an object at line 1 column 17).",
            "The arguments of the tool 'ship' were not taken:",
            "  /address: \"city\" is a required property",
        ] {
            assert!(t.contains(said), "{said:?} in:\n{t}");
        }
        assert!(!t.contains('\u{1b}'), "{t}");
    }

    /// The arguments form says what it is (the call's arguments) and its
    /// words are a call's: `call` and `back` at the review, nothing to
    /// decline; Control-C on a question goes back to the list.
    #[test]
    fn the_arguments_form_speaks_of_the_call_not_of_an_answer() {
        let schema = json!({
            "type": "object",
            "properties": {"city": {"type": "string"}},
            "required": ["city"]
        });
        let mut p = plain(&["Paris", "", "decline", "back"]);
        let reply = p.browse_step(&arguments_step(&schema)).expect("reply");
        assert_eq!(reply, Reply::Back);
        let t = p.io().transcript.clone();
        for said in [
            "Arguments for tools/call ship.",
            "The arguments of the tool 'ship'.",
            "Type call, edit N, or back: ",
            "Not understood: a bare Enter does not call; type call.",
            "Not understood: type call, edit and a field number, or back.",
            "Back to the list.",
        ] {
            assert!(t.contains(said), "{said:?} in:\n{t}");
        }
        for unsaid in ["decline,", "Declined", "Cancelled", "cancel:", "request 1"] {
            assert!(!t.contains(unsaid), "{unsaid:?} in:\n{t}");
        }
        // Control-C on a question: back to the list, in those words.
        let mut p = plain(&["^C"]);
        let reply = p.browse_step(&arguments_step(&schema)).expect("reply");
        assert_eq!(reply, Reply::Back);
        let t = &p.io().transcript;
        assert!(
            t.contains("Back to the list. Press Control-C again at once to quit."),
            "{t}"
        );
        // `call` makes it.
        let mut p = plain(&["Oslo", "call"]);
        let reply = p.browse_step(&arguments_step(&schema)).expect("reply");
        assert_eq!(
            reply,
            Reply::Arguments(json!({"city": "Oslo"}).as_object().cloned().unwrap())
        );
    }

    /// The offer to run a call again over 2025-11-25 says what to type, and
    /// says it again after a line it does not take (a bare `y`).
    #[test]
    fn the_offer_to_run_again_says_exactly_what_to_type() {
        let step = Step::Result {
            kind: crate::browse::Kind::Tool,
            tool: "book".into(),
            outcome: CallOutcome::Failed(crate::browse::CallFailure {
                cause: crate::browse::FailureCause::OlderWayOnly,
                sentence: "tools/call 'book' failed".into(),
            }),
            arguments: Map::new(),
            output_check: None,
            hint: None,
            again: true,
        };
        let mut p = plain(&["y", "again"]);
        assert_eq!(p.browse_step(&step).expect("reply"), Reply::Again);
        let t = &p.io().transcript;
        for said in [
            &format!(
                "Type again to run it again over MCP {}; Enter goes back to the list, q leaves: ",
                Revision::V2025_11_25
            ),
            "Not understood: type again to run it again, press Enter, or type q.",
        ] {
            assert!(t.contains(said), "{said:?} in:\n{t}");
        }
    }

    /// While a call runs: what is being done is said once, each line the
    /// server reports once, and Control-C cancels the call.
    #[test]
    fn a_call_says_each_line_once_and_control_c_cancels_it() {
        let mut p = plain(&["typed ahead", "^C"]);
        let mut call = CallInProgress {
            number: 1,
            ..Default::default()
        };
        call.push("Progress 1/3: warming up".into());
        let shown = |call: &CallInProgress| Waiting {
            status: Some("Calling the tool 'slow'…".into()),
            call: Some(call.clone()),
            ..Waiting::default()
        };
        let slice = Duration::from_millis(1);
        assert_eq!(p.wait_call(slice, &shown(&call)), WaitKey::Nothing);
        call.push("Log [info]: still working".into());
        assert_eq!(p.wait_call(slice, &shown(&call)), WaitKey::CancelCall);
        assert_eq!(
            p.io().transcript,
            "Calling the tool 'slow'… Control-C cancels the call.\n\
             The server reports: Progress 1/3: warming up\n\
             typed ahead\n\
             The server reports: Log [info]: still working\n\
             ^C\n\
             Cancelling the call: back to the list.\n"
        );
    }

    fn entries() -> Vec<ToolEntry> {
        let t = |name: &str, about: Option<&str>| ToolEntry {
            kind: Kind::Tool,
            name: name.into(),
            title: None,
            description: about.map(str::to_owned),
            takes_arguments: true,
        };
        vec![
            t("book_table", Some("Book a table in a city.")),
            t("ask_survey", Some("Ask a short survey")),
            t("set_mood", Some("Set the mood\u{1b}[2J of the room.")),
            t("set", None),
        ]
    }

    #[test]
    fn a_number_a_name_or_a_part_only_one_has_picks() {
        let e = entries();
        assert_eq!(choose(&e, "2"), Choice::Entry(1));
        assert_eq!(choose(&e, " survey "), Choice::Entry(1));
        assert_eq!(choose(&e, "TABLE"), Choice::Entry(0));
        // An exact name wins over the parts others share.
        assert_eq!(choose(&e, "set"), Choice::Entry(3));
        assert_eq!(choose(&e, "q"), Choice::Leave);
        let Choice::Again(said) = choose(&e, "o") else {
            panic!("several match");
        };
        assert_eq!(said[0], "3 entries match \"o\":");
        assert_eq!(
            said[3],
            "3. set_mood — Set the mood\\u{1b}[2J of the room. [arguments]"
        );
        assert_eq!(
            choose(&e, "9"),
            Choice::Again(vec![
                "Nothing matches \"9\": type a number from 1 to 4, or part of a name.".into()
            ])
        );
        let Choice::Again(said) = choose(&e, "") else {
            panic!("a bare Enter picks nothing");
        };
        assert!(
            said[0].starts_with("A bare Enter picks nothing"),
            "{said:?}"
        );
    }
}
