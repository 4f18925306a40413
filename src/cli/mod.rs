//! The command line: clap definitions and dispatch. Each command lives in
//! its own module with its `Args` and a `run` returning the exit code.
//!
//! Exit codes (issue 2 and 3): 0 ok; 1 invalid input or a refused answer;
//! 2 usage or I/O error, or no terminal.

use clap::{Parser, Subcommand};

pub mod capabilities;
pub mod demo;
pub mod mcp;
pub mod modify;
pub mod respond;
pub mod upstream;
pub mod validate;
pub mod wrap;

/// Exit code: success.
pub const EXIT_OK: u8 = 0;
/// Exit code: invalid input, or an answer or effect that was refused.
pub const EXIT_INVALID: u8 = 1;
/// Exit code: usage or I/O error, or no terminal.
pub const EXIT_USAGE: u8 = 2;
/// Exit code: the person quit (Ctrl-C twice), 128 + SIGINT as after an
/// interrupt.
pub const EXIT_INTERRUPTED: u8 = 130;

/// Answer MCP elicitations (AHP user.elicitation.request events) in a terminal.
#[derive(Debug, Parser)]
#[command(name = "ahp-elicit", version, about, long_about = None, propagate_version = true)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

/// The commands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Answer request events from FILE or stdin; result events go to stdout.
    Respond(respond::RespondArgs),
    /// Show the form UI on a built-in request with every field kind.
    Demo(demo::DemoArgs),
    /// Validate events (JSON or JSON Lines) through the wire root and the binding.
    Validate(validate::ValidateArgs),
    /// Apply a modify(content) effect to a result event.
    Modify(modify::ModifyArgs),
    /// Print the elicitation capabilities this responder advertises.
    Capabilities(capabilities::CapabilitiesArgs),
    /// Wrap raw MCP elicitation/create params into a request event.
    Wrap(wrap::WrapArgs),
    /// Check, regenerate or refresh the pinned MCP upstream files.
    #[command(subcommand)]
    Upstream(upstream::UpstreamCommand),
    /// Connect to a live MCP server as a client and answer its elicitations.
    Mcp(mcp::McpArgs),
}

/// Build the responder that `respond` (and `mcp`) use: scripted with
/// `--answers`/`--action`, else the terminal.
///
/// Errors: a sentence for the person (unreadable answers file, no terminal).
pub fn build_responder(
    args: &respond::RespondArgs,
    log: Option<respond::SharedLog>,
) -> Result<Box<dyn crate::responder::Responder>, String> {
    use crate::launcher::{CommandBrowser, NoOpen, SystemBrowser};
    use crate::responder::Launcher;
    let logged = |inner: Box<dyn Launcher>, name: &'static str| -> Box<dyn Launcher> {
        match &log {
            Some(l) => Box::new(respond::LoggingLauncher {
                inner,
                name,
                log: l.clone(),
            }),
            None => inner,
        }
    };
    check_theme(args.theme.as_deref())?;
    let scripted = match (&args.answers, args.action) {
        (Some(path), _) => Some(crate::scripted::ScriptedResponder::from_file(path)?),
        (None, Some(a)) => Some(crate::scripted::ScriptedResponder::from_action(a)),
        (None, None) => None,
    };
    let launcher = match &args.browser {
        Some(cmd) => logged(
            Box::new(CommandBrowser::new(cmd.clone())),
            "browser-command",
        ),
        // Scripted consent runs --browser if given and opens nothing
        // otherwise (issue 4 item 7).
        None if args.no_open || scripted.is_some() => {
            logged(Box::new(NoOpen::default()), "no-open")
        }
        None => logged(Box::new(SystemBrowser), "system-browser"),
    };
    match scripted {
        Some(s) => Ok(Box::new(s.with_launcher(launcher))),
        None => terminal_responder(args, launcher),
    }
}

/// Refuse an unknown `--theme` in every mode (a scripted run draws
/// nothing, but a typo must not pass silently).
///
/// Errors: the theme is neither built in nor a readable theme file.
#[cfg(feature = "tui")]
pub fn check_theme(arg: Option<&str>) -> Result<(), String> {
    match arg {
        Some(_) => crate::tui::theme::Theme::resolve(arg, false).map(|_| ()),
        None => Ok(()),
    }
}

/// Without the terminal front end there are no themes to check.
#[cfg(not(feature = "tui"))]
pub fn check_theme(_arg: Option<&str>) -> Result<(), String> {
    Ok(())
}

#[cfg(feature = "tui")]
fn terminal_responder(
    args: &respond::RespondArgs,
    launcher: Box<dyn crate::responder::Launcher>,
) -> Result<Box<dyn crate::responder::Responder>, String> {
    use crate::tui::theme::Theme;
    let theme = Theme::resolve_for_terminal(args.theme.as_deref())?;
    let tui = crate::tui::TuiResponder::new(theme).map_err(|e| e.to_string())?;
    Ok(Box::new(tui.with_launcher(launcher, args.no_open)))
}

#[cfg(not(feature = "tui"))]
fn terminal_responder(
    _args: &respond::RespondArgs,
    _launcher: Box<dyn crate::responder::Launcher>,
) -> Result<Box<dyn crate::responder::Responder>, String> {
    Err(
        "this build has no terminal front end (feature 'tui'): use --answers FILE or --action"
            .into(),
    )
}

/// Run one parsed command line; returns the process exit code.
pub fn run(cli: Cli) -> u8 {
    match cli.command {
        Command::Respond(a) => respond::run(a),
        Command::Demo(a) => demo::run(a),
        Command::Validate(a) => validate::run(a),
        Command::Modify(a) => modify::run(a),
        Command::Capabilities(a) => capabilities::run(a),
        Command::Wrap(a) => wrap::run(a),
        Command::Upstream(c) => upstream::run(c),
        Command::Mcp(a) => mcp::run(a),
    }
}
