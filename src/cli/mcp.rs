//! `ahp-elicit mcp`: connect to a live MCP server as a 2025-11-25 client,
//! call a tool and answer its elicitations. The session is
//! [`crate::mcp::run_session`]; this file reads the flags and builds the
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

use crate::binding::{Action, Mode, SchemaPolicy};
use crate::mcp::{run_session, McpError, McpOptions, Target};

use super::{EXIT_INVALID, EXIT_OK, EXIT_USAGE};

/// Arguments of `ahp-elicit mcp`.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  ahp-elicit mcp --call trigger-elicitation-request --action decline -- npx -y @modelcontextprotocol/server-everything@2026.8.31 stdio\n  ahp-elicit mcp --action accept http://127.0.0.1:3001/mcp\n\nExit status: 0 done, 1 the tool call failed or reported isError, an answer was refused, or the person quit, 2 usage, connection or I/O error."
)]
pub struct McpArgs {
    /// The tool to call. Without it the tools are listed (and a server's only
    /// tool is called).
    #[arg(long, value_name = "TOOL")]
    pub call: Option<String>,
    /// The tool's arguments, a JSON object.
    #[arg(long, value_name = "JSON")]
    pub args: Option<String>,
    /// Answer every elicitation from this answers file (scripted person).
    #[arg(long, value_name = "FILE", conflicts_with = "action")]
    pub answers: Option<PathBuf>,
    /// Answer every elicitation with this action; accept submits a form as
    /// shown (its defaults filled in).
    #[arg(long, value_enum)]
    pub action: Option<ActionArg>,
    /// Write every AHP event (requests and results) to FILE as JSON Lines.
    #[arg(long, value_name = "FILE")]
    pub events: Option<PathBuf>,
    /// The elicitation modes to advertise, comma-separated.
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "form,url",
        value_name = "MODES",
        value_parser = super::respond::OneOf(&["form", "url"])
    )]
    pub modes: Vec<String>,
    /// Open consented URLs with CMD (no shell; the URL is added as its last argument) instead of the
    /// system browser.
    #[arg(long, value_name = "CMD", conflicts_with = "no_open")]
    pub browser: Option<String>,
    /// Never open a URL: show it for copying; consent is still recorded.
    #[arg(long)]
    pub no_open: bool,
    /// Plain mode: ask line by line (screen readers, dumb terminals); also
    /// chosen by TERM=dumb or AHP_ELICIT_PLAIN=1.
    #[arg(long)]
    pub plain: bool,
    /// Theme: default, light, high-contrast, monochrome, or a TOML file
    /// (PATH). NO_COLOR selects monochrome unless a theme is given.
    #[arg(long, value_name = "NAME|PATH")]
    pub theme: Option<String>,
    /// How a requestedSchema outside the closed AHP form subset is read:
    /// compatible (the default here: real servers' SDKs add titles,
    /// patterns, nullable fields...) draws it, lists the keywords it ignored
    /// and enforces the assertions it can; strict answers -32602 with the
    /// subset rule.
    #[arg(long, value_enum, default_value = "compatible", value_name = "POLICY")]
    pub schema_policy: SchemaPolicy,
    /// Cancel an elicitation left unanswered this long: seconds (`120`) or a
    /// duration (`2m`, `1.5s`); finite and positive. Also bounds the wait
    /// for a browser flow after a -32042 error.
    #[arg(long, value_name = "DURATION", value_parser = super::parse_duration, allow_hyphen_values = true)]
    pub timeout: Option<std::time::Duration>,
    /// How long the server may take to answer `initialize` (and
    /// `tools/list`): seconds or a duration, as for --timeout.
    #[arg(long, value_name = "DURATION", default_value = "30", value_parser = super::parse_duration, allow_hyphen_values = true)]
    pub connect_timeout: std::time::Duration,
    /// `source.adapter` of the request events (default mcp-stdio or mcp-http).
    #[arg(long, value_name = "NAME")]
    pub source_adapter: Option<String>,
    /// Log requests, decisions and launches (JSON Lines) to FILE; URL
    /// queries and fragments redacted, no form values.
    #[arg(long, value_name = "FILE")]
    pub log: Option<PathBuf>,
    /// With --log, also log form values.
    #[arg(long, requires = "log")]
    pub log_values: bool,
    /// The server: `-- COMMAND [ARGS...]` (stdio) or a URL (Streamable HTTP).
    #[arg(
        value_name = "SERVER",
        trailing_var_arg = true,
        allow_hyphen_values = true
    )]
    pub server: Vec<String>,
}

/// `--action` values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ActionArg {
    Accept,
    Decline,
    Cancel,
}

impl From<ActionArg> for Action {
    fn from(a: ActionArg) -> Action {
        match a {
            ActionArg::Accept => Action::Accept,
            ActionArg::Decline => Action::Decline,
            ActionArg::Cancel => Action::Cancel,
        }
    }
}

/// The responder `mcp` hands to the session: `--log` records requests and
/// decisions, as in `respond` (the session itself applies `--timeout`).
struct Session {
    inner: Box<dyn crate::responder::Responder>,
    log: Option<super::respond::SharedLog>,
}

impl Session {
    fn note(&self, f: impl FnOnce(&mut crate::log::EventLog) -> Result<(), crate::log::LogError>) {
        if let Some(l) = &self.log {
            if let Err(e) = f(&mut crate::respond::lock_log(l)) {
                crate::notice::say(format!("ahp-elicit: cannot write the log: {e}"));
            }
        }
    }
}

impl crate::responder::Responder for Session {
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

    fn wait(
        &mut self,
        wait: std::time::Duration,
        shown: &crate::responder::Waiting,
    ) -> crate::responder::WaitKey {
        self.inner.wait(wait, shown)
    }
}

fn usage(msg: &str) -> u8 {
    crate::notice::say(format!("ahp-elicit mcp: {msg}"));
    EXIT_USAGE
}

/// Run the command; returns the exit code.
pub fn run(args: McpArgs) -> u8 {
    let target = match Target::from_args(&args.server) {
        Ok(t) => t,
        Err(e) => return usage(&e),
    };
    let mut modes = Vec::new();
    for m in &args.modes {
        match Mode::parse(m.trim()) {
            Some(mode) if !modes.contains(&mode) => modes.push(mode),
            Some(_) => {}
            None => return usage(&format!("--modes: '{m}' is not form or url")),
        }
    }
    if modes.is_empty() {
        return usage("--modes: give at least one of form, url");
    }
    let (timeout, connect_timeout) = (args.timeout, args.connect_timeout);
    let arguments = match &args.args {
        None => Map::new(),
        Some(text) => match serde_json::from_str::<Value>(text) {
            Ok(Value::Object(o)) => o,
            Ok(_) => return usage("--args must be a JSON object"),
            Err(e) => return usage(&format!("--args is not JSON: {e}")),
        },
    };
    // The same responders as `respond`: scripted with --answers/--action,
    // else the terminal.
    let respond_args = super::respond::RespondArgs {
        inputs: Vec::new(),
        output: None,
        theme: args.theme.clone(),
        answers: args.answers.clone(),
        action: args.action.map(Action::from),
        source_adapter: "ahp-elicit".into(),
        timeout: args.timeout,
        modes: modes.clone(),
        browser: args.browser.clone(),
        no_open: args.no_open,
        log: args.log.clone(),
        log_values: args.log_values,
        plain: args.plain,
        schema_policy: args.schema_policy,
    };
    let log = match &args.log {
        Some(p) => match crate::log::EventLog::open(p, args.log_values) {
            Ok(l) => Some(crate::respond::share_log(l)),
            Err(e) => return usage(&format!("cannot open the log: {e}")),
        },
        None => None,
    };
    let interactive = args.answers.is_none() && args.action.is_none();
    // Declared before the responder: held messages are written after the
    // terminal is given back.
    let _hold = crate::notice::HoldStderr::start(
        interactive && std::io::IsTerminal::is_terminal(&std::io::stderr()),
    );
    let inner = match super::build_responder(&respond_args, log.clone()) {
        Ok(r) => r,
        Err(e) => return usage(&e),
    };
    let mut responder = Session { inner, log };
    let opts = McpOptions {
        target,
        call: args.call,
        arguments,
        modes,
        events: args.events,
        source_adapter: args.source_adapter,
        schema_policy: args.schema_policy,
        timeout,
        connect_timeout,
        completion_wait: (!interactive).then_some(crate::mcp::SCRIPTED_COMPLETION_WAIT),
    };
    let outcome = run_session(&opts, &mut responder);
    // The terminal is given back before the tool result is printed (stdout
    // may be that terminal).
    drop(responder);
    match outcome {
        Ok(report) => {
            match serde_json::to_string_pretty(&report.result) {
                Ok(s) => println!("{}", super::respond::terminal_safe(&s)),
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
                EXIT_INVALID
            } else {
                EXIT_OK
            }
        }
        Err(e) => {
            // Errors may quote the server (an HTTP body): sanitized.
            eprintln!(
                "ahp-elicit mcp: {}",
                crate::safe_text::display(&e.to_string())
            );
            match e {
                McpError::Rpc { .. } => EXIT_INVALID,
                McpError::Quit => 130,
                McpError::Interrupted(sig) => u8::try_from(128 + sig).unwrap_or(130),
                _ => EXIT_USAGE,
            }
        }
    }
}
