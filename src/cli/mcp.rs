//! `ahp-elicit mcp`: connect to a live MCP server (MCP 2026-07-28 or
//! 2025-11-25, chosen by asking the server unless `--protocol` says), call a
//! tool (or get a prompt, or read a resource) and answer its elicitations. The session is
//! [`crate::mcp::run_session`]; this file reads the flags and builds the
//! responder.
//!
//! Output: the tool's result as one JSON document on stdout (or, when no
//! tool was called, `{"tools": [...]}`; nothing after trying the server by
//! hand at a terminal, [`crate::browse`]); notices on stderr.
//!
//! Exit codes: 0 done; 1 the tool call failed or reported `isError`, did
//! not complete (rounds), an answer was refused, or an elicitation was
//! refused as invalid (or in a mode not advertised); 2 usage, connection, timeout or I/O error; 130 the
//! person quit (Ctrl-C twice) or SIGINT; 143 SIGTERM.

use std::path::PathBuf;

use serde_json::{Map, Value};

use crate::binding::{Action, Mode, SchemaPolicy};
use crate::log::SharedLog;
use crate::mcp::{
    run_session, ExtraHeaders, McpError, McpOptions, Operation, ProtocolChoice, Target,
};
use crate::respond::sink::terminal_safe;

use super::answer::AnswerArgs;
use super::{Exit, Words};

/// Arguments of `ahp-elicit mcp`.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  ahp-elicit mcp --call trigger-elicitation-request --action decline -- npx -y @modelcontextprotocol/server-everything@2026.8.31 stdio\n  ahp-elicit mcp --action accept http://127.0.0.1:3001/mcp\n\nExit status: 0 done, 1 the tool call failed or reported isError, the server answered or asked what this client cannot take (an elicitation refused as invalid or in a mode not advertised), or an answer was refused, 2 usage, connection or I/O error, 130 the person quit, 128+N ended by signal N.",
    mut_arg("answers", |a| a
        .value_name("FILE")
        .help("Answer elicitations from this answers file (scripted person): one answer for all, answers by event id, or rules matching server, call, mode, protocol revision, message and fields (see `ahp-elicit answers check`)")),
    mut_arg("action", |a| a.help(
        "Answer every elicitation with this action; accept submits a form as shown (its defaults filled in)"
    )),
    mut_arg("theme", |a| a.display_order(121)),
    mut_arg("log", |a| a.display_order(126).help(
        "Log requests, decisions and launches (JSON Lines) to FILE; URL queries and fragments redacted, no form values"
    )),
    mut_arg("log_values", |a| a.display_order(127)),
)]
pub struct McpArgs {
    /// The tool to call. Without it (and without --prompt or --read), at a
    /// terminal, pick tools from a list, fill in their arguments and see
    /// their results; otherwise the tools are listed (and a server's only
    /// tool is called).
    #[arg(long, value_name = "TOOL", display_order = 1, conflicts_with_all = ["prompt", "read"])]
    pub call: Option<String>,
    /// Get this prompt (prompts/get) instead of calling a tool; --args are
    /// its arguments.
    #[arg(long, value_name = "NAME", display_order = 3, conflicts_with = "read")]
    pub prompt: Option<String>,
    /// Read this resource (resources/read) instead of calling a tool.
    #[arg(long, value_name = "URI", display_order = 4)]
    pub read: Option<String>,
    /// The tool's (or the prompt's) arguments, a JSON object.
    #[arg(long, value_name = "JSON", display_order = 2)]
    pub args: Option<String>,
    /// The MCP revision to speak: auto asks the server (server/discover,
    /// then initialize when the server is older); 2025-11-25 or 2026-07-28
    /// speak only that one.
    #[arg(long, value_name = "REVISION", default_value = "auto", value_parser = parse_protocol, display_order = 43)]
    pub protocol: ProtocolChoice,
    /// How many input_required rounds (MCP 2026-07-28) one request may take.
    #[arg(long, value_name = "N", default_value_t = crate::mcp::DEFAULT_MAX_ROUNDS, value_parser = clap::value_parser!(u32).range(1..=1000), display_order = 44)]
    pub max_rounds: u32,
    /// Add a header to every HTTP request, written 'Name: value'
    /// (repeatable); a value 'env:VAR' is read from the environment
    /// variable VAR. Values never appear in logs, events or messages.
    #[arg(long = "header", value_name = "HEADER", display_order = 45)]
    pub headers: Vec<String>,
    /// How elicitations are answered (the flags shared with `respond`).
    #[command(flatten)]
    pub answer: AnswerArgs,
    /// Write every AHP event (requests and results) to FILE as JSON Lines,
    /// exactly as sent (URLs not redacted; the file is created 0600).
    #[arg(long, value_name = "FILE", display_order = 41)]
    pub events: Option<PathBuf>,
    /// The elicitation modes to advertise, comma-separated.
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "form,url",
        value_name = "MODES",
        value_parser = Words::<Mode>::new(),
        display_order = 42
    )]
    pub modes: Vec<Mode>,
    /// How a requestedSchema outside the closed AHP form subset is read:
    /// compatible (the default here: real servers' SDKs add titles,
    /// patterns, nullable fields...) draws it, lists the keywords it ignored
    /// and enforces the assertions it can; strict answers -32602 with the
    /// subset rule.
    #[arg(
        long,
        value_enum,
        default_value = "compatible",
        value_name = "POLICY",
        display_order = 122
    )]
    pub schema_policy: SchemaPolicy,
    /// Cancel an elicitation left unanswered this long: seconds (`120`) or a
    /// duration (`2m`, `1.5s`); finite and positive. Also bounds the wait
    /// for a browser flow after a -32042 error.
    #[arg(long, value_name = "DURATION", value_parser = super::parse_duration, allow_hyphen_values = true, display_order = 123)]
    pub timeout: Option<std::time::Duration>,
    /// How long the server may take to answer `initialize` (and
    /// `tools/list`): seconds or a duration, as for --timeout.
    #[arg(long, value_name = "DURATION", default_value = "30", value_parser = super::parse_duration, allow_hyphen_values = true, display_order = 124)]
    pub connect_timeout: std::time::Duration,
    /// `source.adapter` of the request events (default mcp-stdio or mcp-http).
    #[arg(long, value_name = "NAME", display_order = 125)]
    pub source_adapter: Option<String>,
    /// The server: `-- COMMAND [ARGS...]` (stdio) or a URL (Streamable HTTP).
    #[arg(
        value_name = "SERVER",
        trailing_var_arg = true,
        allow_hyphen_values = true
    )]
    pub server: Vec<String>,
}

/// The responder of a run that only lists (no `--call`, `--prompt` or
/// `--read`) and has no terminal: every request gets no answer, with why.
struct NoAnswerer(String);

impl crate::responder::Responder for NoAnswerer {
    fn respond(
        &mut self,
        _: &crate::binding::RequestEvent,
        _: &crate::responder::Context,
    ) -> Result<crate::responder::Outcome, crate::responder::RespondError> {
        Err(crate::responder::RespondError::Unavailable(
            self.0.clone().into(),
        ))
    }
}

/// The responder `mcp` hands to the shared loop: `--log` records requests
/// and decisions, as in `respond` (the loop itself applies `--timeout`).
struct LoggingResponder {
    inner: Box<dyn crate::responder::Responder>,
    log: Option<SharedLog>,
}

impl LoggingResponder {
    fn note(&self, f: impl FnOnce(&mut crate::log::EventLog) -> Result<(), crate::log::LogError>) {
        if let Some(l) = &self.log {
            if let Err(e) = f(&mut crate::log::lock_log(l)) {
                crate::notice::say(format!("cannot write the log: {e}"));
            }
        }
    }
}

impl crate::responder::Responder for LoggingResponder {
    fn respond(
        &mut self,
        req: &crate::binding::RequestEvent,
        cx: &crate::responder::Context,
    ) -> Result<crate::responder::Outcome, crate::responder::RespondError> {
        self.note(|l| {
            l.set_current(&req.id);
            l.request_received(req)
        });
        let out = self.inner.respond(req, cx);
        match &out {
            Ok(crate::responder::Outcome::Answer(a)) => self.note(|l| l.decision(&req.id, a)),
            Ok(crate::responder::Outcome::Quit) => {
                let a = crate::binding::Answer::bare(Action::Cancel);
                self.note(|l| l.decision(&req.id, &a))
            }
            Err(_) => {}
        }
        out
    }

    fn idle(&mut self, wait: std::time::Duration) -> bool {
        self.inner.idle(wait)
    }

    /// The screen says what it still has to say (time ran out on the last
    /// request, the requests declined without being shown) before the
    /// result is printed: the session may end before the waiting screen
    /// ever ran again.
    fn finish(&mut self) {
        self.inner.finish()
    }

    fn wait(
        &mut self,
        wait: std::time::Duration,
        shown: &crate::responder::Waiting,
    ) -> crate::responder::WaitKey {
        self.inner.wait(wait, shown)
    }

    /// `--log` records each call made while trying the server by hand
    /// (when its result is shown).
    fn browse(
        &mut self,
        step: &crate::browse::Step,
    ) -> Result<crate::browse::Reply, crate::responder::RespondError> {
        if let crate::browse::Step::Result {
            kind: crate::browse::Kind::Tool,
            tool,
            result,
            arguments,
            ..
        } = step
        {
            self.note(|l| l.tool_called(tool, arguments, result));
        }
        self.inner.browse(step)
    }
}

fn parse_protocol(s: &str) -> Result<ProtocolChoice, String> {
    ProtocolChoice::parse(s).ok_or_else(|| {
        let versions: Vec<&str> = crate::binding::Revision::ALL
            .iter()
            .map(|r| r.as_str())
            .collect();
        format!("'{s}': give auto, {}", versions.join(" or "))
    })
}

/// Read one `--header 'Name: value'`: the name an HTTP token, the value
/// without control characters; `env:VAR` is read from the environment.
///
/// Errors: a sentence naming the header (never its value).
fn parse_header(
    text: &str,
    env: impl Fn(&str) -> Option<String>,
) -> Result<(String, String), String> {
    let Some((name, value)) = text.split_once(':') else {
        return Err("--header: write it as 'Name: value'".into());
    };
    let name = name.trim();
    let token = |c: char| c.is_ascii_alphanumeric() || "!#$%&'*+-.^_`|~".contains(c);
    if name.is_empty() || !name.chars().all(token) {
        return Err(format!(
            "--header: '{}' is not an HTTP header name",
            terminal_safe(name)
        ));
    }
    let value = value.trim();
    let value = match value.strip_prefix("env:") {
        Some(var) => env(var).ok_or_else(|| {
            format!(
                "--header {name}: the environment variable '{}' is not set",
                terminal_safe(var)
            )
        })?,
        None => value.to_owned(),
    };
    if value.chars().any(|c| c.is_control() && c != '\t') || !value.is_ascii() {
        return Err(format!(
            "--header {name}: the value must be printable ASCII (no line breaks)"
        ));
    }
    Ok((name.to_owned(), value))
}

fn usage(msg: &str) -> Exit {
    crate::notice::say_in("mcp", msg);
    Exit::Usage
}

/// The session's options from the flags.
///
/// Errors: a usage sentence (no server, no mode, `--args` not a JSON
/// object).
fn options(args: McpArgs) -> Result<McpOptions, String> {
    let target = Target::from_args(&args.server).map_err(|e| e.to_string())?;
    let modes = super::unique(&args.modes);
    if modes.is_empty() {
        return Err("--modes: give at least one of form, url".into());
    }
    let arguments = match &args.args {
        None => Map::new(),
        Some(text) => match serde_json::from_str::<Value>(text) {
            Ok(Value::Object(o)) => o,
            Ok(_) => return Err("--args must be a JSON object".into()),
            Err(e) => return Err(format!("--args is not JSON: {e}")),
        },
    };
    let interactive = args.answer.interactive();
    let mut headers = Vec::new();
    for h in &args.headers {
        headers.push(parse_header(h, |v| std::env::var(v).ok())?);
    }
    if !headers.is_empty() && !matches!(target, Target::Http { .. }) {
        return Err("--header applies to a server URL (Streamable HTTP), not to a command".into());
    }
    let operation = match (args.call, args.prompt, args.read) {
        (Some(t), _, _) => Operation::Tool(t),
        (_, Some(p), _) => Operation::Prompt(p),
        (_, _, Some(u)) => Operation::Read(u),
        _ => Operation::List,
    };
    Ok(McpOptions {
        target,
        operation,
        arguments,
        protocol: args.protocol,
        max_rounds: args.max_rounds,
        headers: ExtraHeaders(headers),
        modes,
        events: args.events,
        source_adapter: args.source_adapter,
        schema_policy: args.schema_policy,
        timeout: args.timeout,
        connect_timeout: args.connect_timeout,
        completion_wait: (!interactive).then_some(crate::mcp::SCRIPTED_COMPLETION_WAIT),
        notices: crate::notice::Notices::stderr(),
        show_refusals: interactive,
    })
}

/// Run the command; returns the exit status.
pub fn run(args: McpArgs) -> Exit {
    let answer = args.answer.clone();
    let opts = match options(args) {
        Ok(o) => o,
        Err(e) => return usage(&e),
    };
    let log = match answer.open_log() {
        Ok(l) => l,
        Err(e) => return usage(&format!("cannot open the log: {e}")),
    };
    // Declared before the responder: held messages are written after the
    // terminal is given back.
    let _hold = answer.hold_stderr();
    // The same responders as `respond`: scripted with --answers/--action,
    // else the terminal.
    let inner = match answer.responder(log.clone()) {
        Ok(r) => r,
        // Listing asks nothing of the person: without a terminal it still
        // lists, and a request that comes all the same (a one-tool server
        // is called) gets no answer, with the reason.
        Err(e)
            if opts.operation == crate::mcp::Operation::List
                && answer.answers.is_none()
                && answer.action.is_none()
                && super::answer::check_theme(answer.theme.as_deref()).is_ok() =>
        {
            Box::new(NoAnswerer(e))
        }
        Err(e) => return usage(&e),
    };
    let mut responder = LoggingResponder { inner, log };
    let outcome = run_session(&opts, &mut responder);
    // The terminal is given back before the tool result is printed (stdout
    // may be that terminal).
    drop(responder);
    match outcome {
        Ok(report) => report_result(&report),
        Err(e) => {
            // Errors may quote the server (an HTTP body): sanitized.
            crate::notice::say_in("mcp", crate::safe_text::display(&crate::notice::chain(&e)));
            match e {
                // The handshake refused: the server cannot be spoken to.
                McpError::Rpc { ref method, .. } if is_handshake(method) => Exit::Usage,
                McpError::Rpc { .. } | McpError::Incomplete(_) => Exit::Invalid,
                // A signal also ends the screen as a quit: 128 + it wins.
                McpError::Quit => match crate::signals::received() {
                    Some(sig) => Exit::Signal(sig),
                    None => Exit::Interrupted,
                },
                McpError::Interrupted(sig) => Exit::Signal(sig),
                _ => Exit::Usage,
            }
        }
    }
}

/// Whether `method` is one of the handshake's (`initialize`,
/// `server/discover`): a refusal there means the server cannot be spoken
/// to in the revision asked, exit 2 like a server that cannot be reached.
fn is_handshake(method: &str) -> bool {
    matches!(method, "initialize" | "server/discover")
}

/// Print the tool's result on stdout and say on stderr what went wrong:
/// 1 when the tool reported `isError`, an elicitation got no valid answer,
/// or one was refused as invalid (or in a mode not advertised).
fn report_result(report: &crate::mcp::SessionReport) -> Exit {
    // The person tried the server by hand and left the list: the results
    // were on the screen, nothing is printed.
    if report.browsed {
        return Exit::Ok;
    }
    match serde_json::to_string_pretty(&report.result) {
        Ok(s) => {
            if let Err(exit) = super::out_text(&format!("{}\n", terminal_safe(&s))) {
                return exit;
            }
        }
        Err(e) => return usage(&format!("printing the result: {e}")),
    }
    let tool_error = report.result.get("isError") == Some(&Value::Bool(true));
    if tool_error {
        crate::notice::say_in("mcp", "the tool reported an error (isError: true)");
    }
    if !report.refused.is_empty() {
        crate::notice::say_in(
            "mcp",
            format!(
                "{} elicitation(s) got no valid answer",
                report.refused.len()
            ),
        );
    }
    if !report.rejected.is_empty() {
        crate::notice::say_in(
            "mcp",
            format!(
                "{} elicitation(s) refused without an answer (invalid params, or a mode not advertised)",
                report.rejected.len()
            ),
        );
    }
    if tool_error || !report.refused.is_empty() || !report.rejected.is_empty() {
        Exit::Invalid
    } else {
        Exit::Ok
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_headers_and_never_quotes_their_values() {
        let env = |v: &str| (v == "TOKEN").then(|| "s3cret".to_owned());
        assert_eq!(
            parse_header("Authorization: Bearer abc", env).unwrap(),
            ("Authorization".into(), "Bearer abc".into())
        );
        assert_eq!(
            parse_header("X-Key: env:TOKEN", env).unwrap(),
            ("X-Key".into(), "s3cret".into())
        );
        let e = parse_header("X-Key: env:NOPE", env).unwrap_err();
        assert_eq!(
            e,
            "--header X-Key: the environment variable 'NOPE' is not set"
        );
        let e = parse_header("X-Key: a\u{7}secret", env).unwrap_err();
        assert!(!e.contains("secret"), "{e}");
        assert!(parse_header("no colon", env).is_err());
        assert!(parse_header("Bad Name: v", env).is_err());
    }

    /// Counts the calls of `finish` it gets.
    struct Finishes(std::rc::Rc<std::cell::Cell<u32>>);

    impl crate::responder::Responder for Finishes {
        fn respond(
            &mut self,
            _: &crate::binding::RequestEvent,
            _: &crate::responder::Context,
        ) -> Result<crate::responder::Outcome, crate::responder::RespondError> {
            Err(crate::responder::RespondError::Unavailable(
                "not asked".into(),
            ))
        }

        fn finish(&mut self) {
            self.0.set(self.0.get() + 1);
        }
    }

    /// The session's end reaches the screen: what it still has to say (time
    /// ran out on the last request) is shown even when the session ended
    /// before the waiting screen ran again.
    #[test]
    fn the_end_of_the_session_reaches_the_screen() {
        let calls = std::rc::Rc::new(std::cell::Cell::new(0));
        let mut s = LoggingResponder {
            inner: Box::new(Finishes(calls.clone())),
            log: None,
        };
        crate::responder::Responder::finish(&mut s);
        assert_eq!(calls.get(), 1);
    }
}
