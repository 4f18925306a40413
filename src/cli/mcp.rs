//! `ahp-elicit mcp`: connect to a live MCP server as a 2025-11-25 client,
//! call a tool and answer its elicitations. The session is
//! [`ahp_elicit::mcp::run_session`]; this file reads the flags and builds the
//! responder.
//!
//! Output: the tool's result as one JSON document on stdout (or, when no
//! tool was called, `{"tools": [...]}`); notices on stderr.
//!
//! Exit codes: 0 done; 1 the tool call failed or reported `isError`, or an
//! answer was refused; 2 usage, connection, timeout or I/O error; 130 the
//! person quit (Ctrl-C twice) or SIGINT; 143 SIGTERM.

use std::path::PathBuf;

use serde_json::{Map, Value};

use ahp_elicit::binding::{Action, Mode, SchemaPolicy};
use ahp_elicit::mcp::{run_session, McpError, McpOptions, Target};
use ahp_elicit::respond::sink::terminal_safe;
use ahp_elicit::respond::SharedLog;

use super::answer::AnswerArgs;
use super::{Exit, Words};

/// Arguments of `ahp-elicit mcp`.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  ahp-elicit mcp --call trigger-elicitation-request --action decline -- npx -y @modelcontextprotocol/server-everything@2026.8.31 stdio\n  ahp-elicit mcp --action accept http://127.0.0.1:3001/mcp\n\nExit status: 0 done, 1 the tool call failed or reported isError, an answer was refused, or the person quit, 2 usage, connection or I/O error.",
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
    /// The tool to call. Without it the tools are listed (and a server's only
    /// tool is called).
    #[arg(long, value_name = "TOOL", display_order = 1)]
    pub call: Option<String>,
    /// The tool's arguments, a JSON object.
    #[arg(long, value_name = "JSON", display_order = 2)]
    pub args: Option<String>,
    /// How elicitations are answered (the flags shared with `respond`).
    #[command(flatten)]
    pub answer: AnswerArgs,
    /// Write every AHP event (requests and results) to FILE as JSON Lines.
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

/// The responder `mcp` hands to the session: `--log` records requests and
/// decisions, as in `respond` (the session itself applies `--timeout`).
struct Session {
    inner: Box<dyn ahp_elicit::responder::Responder>,
    log: Option<SharedLog>,
}

impl Session {
    fn note(
        &self,
        f: impl FnOnce(&mut ahp_elicit::log::EventLog) -> Result<(), ahp_elicit::log::LogError>,
    ) {
        if let Some(l) = &self.log {
            if let Err(e) = f(&mut ahp_elicit::respond::lock_log(l)) {
                ahp_elicit::notice::say(format!("ahp-elicit: cannot write the log: {e}"));
            }
        }
    }
}

impl ahp_elicit::responder::Responder for Session {
    fn respond(
        &mut self,
        req: &ahp_elicit::binding::RequestEvent,
        cx: &ahp_elicit::responder::Context,
    ) -> Result<ahp_elicit::responder::Outcome, ahp_elicit::responder::RespondError> {
        self.note(|l| {
            l.set_current(&req.id);
            l.request_received(req)
        });
        let out = self.inner.respond(req, cx);
        match &out {
            Ok(ahp_elicit::responder::Outcome::Answer(a)) => self.note(|l| l.decision(&req.id, a)),
            Ok(ahp_elicit::responder::Outcome::Quit) => {
                let a = ahp_elicit::binding::Answer::bare(Action::Cancel);
                self.note(|l| l.decision(&req.id, &a))
            }
            Err(_) => {}
        }
        out
    }

    fn idle(&mut self, wait: std::time::Duration) -> bool {
        self.inner.idle(wait)
    }

    fn wait(
        &mut self,
        wait: std::time::Duration,
        shown: &ahp_elicit::responder::Waiting,
    ) -> ahp_elicit::responder::WaitKey {
        self.inner.wait(wait, shown)
    }
}

fn usage(msg: &str) -> Exit {
    ahp_elicit::notice::say(format!("ahp-elicit mcp: {msg}"));
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
    Ok(McpOptions {
        target,
        call: args.call,
        arguments,
        modes,
        events: args.events,
        source_adapter: args.source_adapter,
        schema_policy: args.schema_policy,
        timeout: args.timeout,
        connect_timeout: args.connect_timeout,
        completion_wait: (!interactive).then_some(ahp_elicit::mcp::SCRIPTED_COMPLETION_WAIT),
        notices: ahp_elicit::notice::Notices::stderr(),
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
        Err(e) => return usage(&e),
    };
    let mut responder = Session { inner, log };
    let outcome = run_session(&opts, &mut responder);
    // The terminal is given back before the tool result is printed (stdout
    // may be that terminal).
    drop(responder);
    match outcome {
        Ok(report) => report_result(&report),
        Err(e) => {
            // Errors may quote the server (an HTTP body): sanitized.
            eprintln!(
                "ahp-elicit mcp: {}",
                ahp_elicit::safe_text::display(&e.to_string())
            );
            match e {
                McpError::Rpc { .. } => Exit::Invalid,
                McpError::Quit => Exit::Interrupted,
                McpError::Interrupted(sig) => Exit::Signal(sig),
                _ => Exit::Usage,
            }
        }
    }
}

/// Print the tool's result on stdout and say on stderr what went wrong:
/// 1 when the tool reported `isError` or an elicitation got no valid
/// answer.
fn report_result(report: &ahp_elicit::mcp::SessionReport) -> Exit {
    match serde_json::to_string_pretty(&report.result) {
        Ok(s) => println!("{}", terminal_safe(&s)),
        Err(e) => return usage(&format!("printing the result: {e}")),
    }
    let tool_error = report.result.get("isError") == Some(&Value::Bool(true));
    if tool_error {
        eprintln!("ahp-elicit mcp: the tool reported an error (isError: true)");
    }
    if !report.refused.is_empty() {
        eprintln!(
            "ahp-elicit mcp: {} elicitation(s) got no valid answer",
            report.refused.len()
        );
    }
    if tool_error || !report.refused.is_empty() {
        Exit::Invalid
    } else {
        Exit::Ok
    }
}
