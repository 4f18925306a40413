//! `ahp-elicit answers check FILE [EVENTS...]`: the dry run of an answers
//! file. It checks the file (its JSON Schema, then the reader: patterns that
//! do not compile, unknown keys; then the rules that can never answer) and,
//! given request events, prints which answer each request would take and
//! whether its form would take it, without answering anything.
//!
//! Output (stdout), one line each:
//! - `FILE: ok, N rules` (or `one answer for every request`, `answers for
//!   N ids`), or `FILE: POINTER: problem` per problem;
//! - per request event: `ID (INPUT:LINE): SOURCE: ACTION`, where SOURCE is
//!   `rule N (/rules/K)` (with the rule's name), `the one answer` or `the
//!   answer for this id`; `..., refused: REASONS` when the form would refuse
//!   it; `ID (INPUT:LINE): no answer: REASON` when the file has none (for
//!   rules: each rule and the keys that did not hold); `ID (INPUT:LINE): M
//!   mode is not advertised (--modes), no result` for a mode the run does
//!   not answer;
//! - per valid AHP event of another type: `ID (INPUT:LINE): skipped, a TYPE
//!   event is not a request`; per input that is not a valid AHP event, its
//!   place and the violations.
//!
//! Exit: 0 the file is sound and every request would get a result; 1 a
//! problem in the file (a key given twice included), a request without an
//! answer, with a refused one or of a mode not in `--modes`, or an input
//! that is not a valid AHP event or request event; 2 usage or unreadable
//! input.

use std::io::BufRead;
use std::path::{Path, PathBuf};

use crate::binding::schemas::validate_event;
use crate::binding::{parse_json, Mode, SchemaPolicy};
use crate::respond::input::{read_event, split_events, Item, ReadEvent};
use crate::safe_text::display;
use crate::scripted::document::{self, MAX_ANSWERS_BYTES};
use crate::scripted::{schema_violations, Answers, AnswersError, DryRun, ScriptedResponder};

use super::Exit;

/// `ahp-elicit answers`: work with answers files.
#[derive(Debug, clap::Subcommand)]
pub enum AnswersCommand {
    /// Check an answers file and show which answer each request event would
    /// take, without answering anything.
    #[command(after_help = "\
Examples:\n  ahp-elicit answers check examples/inputs/answers.rules.json\n  \
ahp-elicit answers check examples/inputs/answers.rules.json examples/stream.requests.jsonl\n\n\
Each EVENTS file holds AHP events (one JSON event or JSON Lines; `-` is stdin); \
valid events of other types are skipped, one line each. `ahp-elicit mcp --events FILE` \
records the events of a run.\n\n\
Exit status: 0 the file is sound and every request would get a result, 1 a problem in the \
file, a request no answer fits, whose form refuses its answer or whose mode is not in \
--modes, or an input that is not a valid AHP event, 2 usage or unreadable input.")]
    Check(CheckArgs),
}

/// Arguments of `ahp-elicit answers check`.
#[derive(Debug, clap::Args)]
pub struct CheckArgs {
    /// The answers file.
    #[arg(value_name = "FILE")]
    pub file: PathBuf,
    /// Request events to try the answers on (files, or `-` for stdin).
    #[arg(value_name = "EVENTS")]
    pub events: Vec<PathBuf>,
    /// How a requestedSchema outside the closed form subset is read, as
    /// the run will read it (respond: strict; mcp: compatible). Default:
    /// the policy an event says it was recorded under (`mcp --events`
    /// writes it), else strict.
    #[arg(long, value_enum, value_name = "POLICY")]
    pub schema_policy: Option<SchemaPolicy>,
    /// The modes the run answers (comma separated), as the run's --modes:
    /// a request of another mode gets no result.
    #[arg(long, value_delimiter = ',', default_value = "form,url", value_enum)]
    pub modes: Vec<Mode>,
}

/// What `try_events` needs of the arguments.
struct Run<'a> {
    responder: ScriptedResponder,
    /// `--schema-policy`, when given.
    policy: Option<SchemaPolicy>,
    modes: &'a [Mode],
}

/// Run an `answers` subcommand; returns the exit status.
pub fn run(cmd: AnswersCommand) -> Exit {
    match cmd {
        AnswersCommand::Check(a) => check(&a),
    }
}

fn check(args: &CheckArgs) -> Exit {
    let shown = display(&args.file.display().to_string()).into_owned();
    let bytes = match super::read_input(&args.file, MAX_ANSWERS_BYTES, "answers file") {
        Ok(b) => b,
        Err(e) => {
            crate::notice::say_in("answers", &e);
            return Exit::Usage;
        }
    };
    let (answers, mut worst) = match read_answers(&bytes, &shown) {
        Some(a) => (a, Exit::Ok),
        None => return Exit::Invalid,
    };
    let lints = match &answers {
        Answers::Rules(r) => r.lint(),
        _ => Vec::new(),
    };
    for l in &lints {
        outln!("{shown}: {}", display(&l.to_string()));
    }
    if lints.is_empty() {
        outln!("{shown}: ok, {}", describe(&answers));
    } else {
        worst = Exit::Invalid;
    }
    let mut run = Run {
        responder: ScriptedResponder::new(answers),
        policy: args.schema_policy,
        modes: &args.modes,
    };
    for path in &args.events {
        match try_events(path, &mut run) {
            Ok(true) => {}
            Ok(false) => worst = worse(worst, Exit::Invalid),
            Err(e) => {
                crate::notice::say_in("answers", &e);
                worst = Exit::Usage;
            }
        }
    }
    worst
}

/// The more severe of two statuses (usage over invalid over ok).
fn worse(a: Exit, b: Exit) -> Exit {
    match (a, b) {
        (Exit::Usage, _) | (_, Exit::Usage) => Exit::Usage,
        (Exit::Invalid, _) | (_, Exit::Invalid) => Exit::Invalid,
        _ => a,
    }
}

/// What the file holds, for the `ok` line.
fn describe(a: &Answers) -> String {
    match a {
        Answers::Every(_) => "one answer for every request".into(),
        Answers::ById(m) if m.len() == 1 => "an answer for 1 request id".into(),
        Answers::ById(m) => format!("answers for {} request ids", m.len()),
        Answers::Rules(r) if r.rules().len() == 1 => "1 rule".into(),
        Answers::Rules(r) => format!("{} rules", r.rules().len()),
    }
}

/// Read the file as JSON, check it against the answers schema (every
/// violation), then read it as answers (the first fault the schema cannot
/// see, such as a pattern that does not compile). Prints each problem;
/// None when there was one.
fn read_answers(bytes: &[u8], shown: &str) -> Option<Answers> {
    let doc = match document::parse(bytes) {
        Ok(v) => v,
        Err(e) => {
            outln!("{shown}: {}", display(&e.to_string()));
            return None;
        }
    };
    let schema = schema_violations(&doc);
    for (ptr, msg) in &schema {
        let ptr = if ptr.is_empty() { "(root)" } else { ptr };
        outln!("{shown}: {}: {}", display(ptr), display(msg));
    }
    // Patterns are not the schema's to check: every one that does not
    // compile, then the reader's first fault unless already said. (A file
    // the reader takes has none: its patterns are compiled once.)
    let mut said = schema;
    let read = Answers::from_value(&doc);
    if read.is_err() {
        for (ptr, msg) in crate::scripted::rules::pattern_faults(&doc) {
            outln!("{shown}: {}: {}", display(&ptr), display(&msg));
            said.push((ptr, msg));
        }
    }
    if let Err(e) = &read {
        if !said_at(&said, e) {
            outln!("{shown}: {}", display(&e.to_string()));
        }
    }
    match read {
        Ok(a) if said.is_empty() => Some(a),
        _ => None,
    }
}

/// Whether the schema already reported a problem at the pointer of `e` or
/// above it (a closed object's unknown key is reported at the object).
fn said_at(schema: &[(String, String)], e: &AnswersError) -> bool {
    let ptr = match e {
        AnswersError::Rule { pointer, .. } | AnswersError::Answer { pointer, .. } => pointer,
        _ => return !schema.is_empty(),
    };
    schema
        .iter()
        .any(|(p, _)| ptr == p || ptr.starts_with(&format!("{p}/")) || p.is_empty())
}

/// Try the answers on every request event of `path`; prints one line per
/// request. Ok(false) when a request would get no result or an input is
/// not a valid request event.
///
/// Errors: the input cannot be opened or read.
fn try_events(path: &Path, run: &mut Run) -> Result<bool, String> {
    let input = if path.as_os_str() == "-" {
        "-".to_owned()
    } else {
        display(&path.display().to_string()).into_owned()
    };
    let reader: Box<dyn BufRead> = if path.as_os_str() == "-" {
        Box::new(std::io::BufReader::new(std::io::stdin()))
    } else {
        let f = std::fs::File::open(path).map_err(|e| {
            format!(
                "cannot read the events {input}: {}",
                crate::files::io_reason(&e)
            )
        })?;
        Box::new(std::io::BufReader::new(f))
    };
    let mut all_ok = true;
    let mut read_error = None;
    let mut requests = 0usize;
    split_events(reader, |item| {
        match item {
            Item::Event { line, bytes, .. } => {
                all_ok &= try_event(&bytes, line, &input, run, &mut requests);
            }
            Item::Read { .. } => {}
            Item::Bad { line, message } => {
                outln!("{input}:{line}: {}", display(&message));
                all_ok = false;
            }
            Item::ReadError(e) => read_error = Some(e),
            Item::Source { .. } | Item::Empty { .. } => {}
        }
        true
    });
    if let Some(e) = read_error {
        return Err(format!("cannot read the events {input}: {e}"));
    }
    if requests == 0 {
        outln!("{input}: no request event found");
        all_ok = false;
    }
    Ok(all_ok)
}

/// The schema policy a recorded request event says it was read under
/// (`extensions."ahp-elicit/schema-policy".policy`, which `mcp --events`
/// writes under the compatible policy), if it says one.
fn recorded_policy(event: &serde_json::Value) -> Option<SchemaPolicy> {
    let said = event
        .get("extensions")?
        .get(crate::binding::policy::EXTENSION_KEY)?
        .get("policy")?
        .as_str()?;
    [SchemaPolicy::Strict, SchemaPolicy::Compatible]
        .into_iter()
        .find(|p| p.as_str() == said)
}

/// One event text: a `user.elicitation.request` is read under the run's
/// schema policy and dry-run; a valid AHP event of another type is skipped
/// with one line; anything else (not JSON, not a valid AHP event) is
/// reported with its place. Returns whether the text is fine: a request
/// that would get a result, or a valid event skipped.
fn try_event(bytes: &[u8], line: usize, input: &str, run: &mut Run, requests: &mut usize) -> bool {
    let value = match parse_json(bytes) {
        Ok(v) => v,
        Err(e) => {
            outln!("{input}:{line}: {}", display(&e.to_string()));
            return false;
        }
    };
    let kind = value.get("type").and_then(serde_json::Value::as_str);
    if kind != Some("user.elicitation.request") {
        let id = value.get("id").and_then(serde_json::Value::as_str);
        let at = match id {
            Some(id) => format!("{} ({input}:{line})", display(id)),
            None => format!("? ({input}:{line})"),
        };
        let errors = validate_event(&value);
        if !errors.is_empty() {
            outln!("{at}: not a valid AHP event");
            for e in errors {
                outln!("  {}", display(&e.to_string()));
            }
            return false;
        }
        // Results and other events in a recorded file are not asked.
        outln!(
            "{at}: skipped, a {} event is not a request",
            display(kind.unwrap_or("?"))
        );
        return true;
    }
    *requests += 1;
    let policy = run
        .policy
        .or_else(|| recorded_policy(&value))
        .unwrap_or(SchemaPolicy::Strict);
    let (id, req) = match read_event(bytes, policy) {
        ReadEvent::Request { id, request } => (id.unwrap_or_default(), request),
        ReadEvent::Invalid { id, errors } => {
            let id = display(id.as_deref().unwrap_or("?")).into_owned();
            outln!("{id} ({input}:{line}): not a valid request event");
            for e in errors {
                outln!("  {}", display(&e.to_string()));
            }
            return false;
        }
        ReadEvent::Unreadable(e) => {
            outln!("{input}:{line}: {}", display(&e.to_string()));
            return false;
        }
        // Events of other types were skipped above.
        ReadEvent::Other { .. } => return true,
    };
    let at = format!("{} ({input}:{line})", display(&id));
    if !run.modes.contains(&req.mode) {
        outln!(
            "{at}: {} mode is not advertised (--modes), no result",
            req.mode.as_str()
        );
        return false;
    }
    match run.responder.dry_run(&req) {
        DryRun::Answered {
            source,
            action,
            refused: None,
            ..
        } => {
            outln!("{at}: {}: {}", display(&source), action.as_str());
            true
        }
        DryRun::Answered {
            source,
            action,
            refused: Some(why),
            ..
        } => {
            outln!(
                "{at}: {}: {}, refused: {}",
                display(&source),
                action.as_str(),
                display(&why)
            );
            false
        }
        DryRun::Unanswered(why) => {
            outln!("{at}: no answer: {}", display(&why));
            false
        }
    }
}
