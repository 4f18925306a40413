//! `ahp-elicit mcp`: connect to a live MCP server as a 2025-11-25 client,
//! call a tool and answer its elicitations (issue 6). The session is
//! [`crate::mcp::run_session`]; this file reads the flags and builds the
//! responder.
//!
//! Output: the tool's result as one JSON document on stdout (or, when no
//! tool was called, `{"tools": [...]}`); notices on stderr.
//!
//! Exit codes: 0 done; 1 the tool call failed or reported `isError`, an
//! answer was refused, or the person quit; 2 usage, connection or I/O error.

use std::path::PathBuf;

use serde_json::{Map, Value};

use crate::binding::{Action, Answer, Mode, RequestBody, RequestEvent};
use crate::mcp::{run_session, McpError, McpOptions, Target};
use crate::responder::{Context, Outcome, RespondError, Responder};

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
    /// The theme of the terminal form.
    #[arg(long, value_name = "NAME")]
    pub theme: Option<String>,
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

/// TEMPORARY local responder for `--action` until
/// `crate::scripted::ScriptedResponder` is merged (the lead swaps it in; it
/// also handles `--answers`). Decline and cancel are bare answers; accept on
/// a form submits the form as shown: the content is the fields that have a
/// default, with that default (so a required field without a default makes
/// the answer invalid, and the session answers -32603 with no result);
/// accept on a URL request is consent with no content.
pub struct ActionResponder {
    pub action: Action,
}

impl Responder for ActionResponder {
    fn respond(&mut self, req: &RequestEvent, _cx: &Context) -> Result<Outcome, RespondError> {
        if self.action != Action::Accept {
            return Ok(Outcome::Answer(Answer::bare(self.action)));
        }
        let Some(r) = req.view.request() else {
            return Err(RespondError::Refused(
                "the request is not executable; it can only be declined or cancelled".into(),
            ));
        };
        Ok(Outcome::Answer(match &r.body {
            RequestBody::Url { .. } => Answer::bare(Action::Accept),
            RequestBody::Form(form) => {
                let mut content = Map::new();
                for f in &form.fields {
                    if let Some(v) = f.default_value() {
                        content.insert(f.name.clone(), v);
                    }
                }
                Answer {
                    action: Action::Accept,
                    content: Some(content),
                }
            }
        }))
    }
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
    let arguments = match &args.args {
        None => Map::new(),
        Some(text) => match serde_json::from_str::<Value>(text) {
            Ok(Value::Object(o)) => o,
            Ok(_) => return usage("--args must be a JSON object"),
            Err(e) => return usage(&format!("--args is not JSON: {e}")),
        },
    };
    let mut responder: Box<dyn Responder> = match (&args.answers, args.action) {
        (Some(_), _) => {
            return usage(
                "--answers is not yet wired for mcp (needs the scripted responder); use --action",
            )
        }
        (None, Some(a)) => Box::new(ActionResponder { action: a.into() }),
        (None, None) => return usage(
            "the terminal responder is not yet wired for mcp; use --action accept|decline|cancel",
        ),
    };
    let _ = &args.theme; // Used by the terminal responder once it is wired.
    let opts = McpOptions {
        target,
        call: args.call,
        arguments,
        modes,
        events: args.events,
        source_adapter: args.source_adapter,
    };
    match run_session(&opts, responder.as_mut()) {
        Ok(report) => {
            match serde_json::to_string_pretty(&report.result) {
                Ok(s) => println!("{s}"),
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
                McpError::Rpc { .. } | McpError::Quit => EXIT_INVALID,
                _ => EXIT_USAGE,
            }
        }
    }
}
