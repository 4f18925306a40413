//! `ahp-elicit mcp`: connect to a live MCP server as a 2025-11-25 client,
//! call a tool and answer its elicitations (issue 6). The session is
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

use crate::binding::{Action, Mode};
use crate::mcp::{run_session, McpError, McpOptions, Target};

use super::{EXIT_INVALID, EXIT_OK, EXIT_USAGE};

/// Arguments of `ahp-elicit mcp`.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  ahp-elicit mcp --call trigger-elicitation-request --action decline -- npx -y @modelcontextprotocol/server-everything@2026.8.31 stdio\n  ahp-elicit mcp --action accept http://127.0.0.1:3001/mcp"
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
        value_name = "MODES"
    )]
    pub modes: Vec<String>,
    /// Open consented URLs with CMD (no shell; the URL is added as its last argument) instead of the
    /// system browser.
    #[arg(long, value_name = "CMD", conflicts_with = "no_open")]
    pub browser: Option<String>,
    /// Never open a URL: show it for copying; consent is still recorded.
    #[arg(long)]
    pub no_open: bool,
    /// The theme of the terminal form.
    #[arg(long, value_name = "NAME")]
    pub theme: Option<String>,
    /// Cancel an elicitation left unanswered for this many seconds; also
    /// bounds the wait for a browser flow after a -32042 error.
    #[arg(long, value_name = "SECS")]
    pub timeout: Option<f64>,
    /// How long the server may take to answer `initialize` (and
    /// `tools/list`), in seconds.
    #[arg(long, value_name = "SECS", default_value_t = 30.0)]
    pub connect_timeout: f64,
    /// `source.adapter` of the request events (default mcp-stdio or mcp-http).
    #[arg(long, value_name = "NAME")]
    pub source_adapter: Option<String>,
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

/// Seconds from a flag as a duration. Errors: a sentence naming the flag.
fn seconds(flag: &str, v: f64) -> Result<std::time::Duration, String> {
    std::time::Duration::try_from_secs_f64(v)
        .ok()
        .filter(|d| !d.is_zero())
        .ok_or_else(|| format!("{flag}: '{v}' is not a positive number of seconds"))
}

fn usage(msg: &str) -> u8 {
    eprintln!("ahp-elicit mcp: {msg}");
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
    let timeout = match args.timeout.map(|t| seconds("--timeout", t)).transpose() {
        Ok(t) => t,
        Err(e) => return usage(&e),
    };
    let connect_timeout = match seconds("--connect-timeout", args.connect_timeout) {
        Ok(t) => t,
        Err(e) => return usage(&e),
    };
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
        input: None,
        output: None,
        theme: args.theme.clone(),
        answers: args.answers.clone(),
        action: args.action.map(Action::from),
        source_adapter: "ahp-elicit".into(),
        timeout: args.timeout,
        modes: modes.clone(),
        browser: args.browser.clone(),
        no_open: args.no_open,
        log: None,
        log_values: false,
    };
    let interactive = args.answers.is_none() && args.action.is_none();
    // Declared before the responder: held messages are written after the
    // terminal is given back.
    let _hold = crate::notice::HoldStderr::start(
        interactive && std::io::IsTerminal::is_terminal(&std::io::stderr()),
    );
    let mut responder = match super::build_responder(&respond_args, None) {
        Ok(r) => r,
        Err(e) => return usage(&e),
    };
    let opts = McpOptions {
        target,
        call: args.call,
        arguments,
        modes,
        events: args.events,
        source_adapter: args.source_adapter,
        timeout,
        connect_timeout,
        completion_wait: (!interactive).then_some(crate::mcp::SCRIPTED_COMPLETION_WAIT),
    };
    match run_session(&opts, responder.as_mut()) {
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
