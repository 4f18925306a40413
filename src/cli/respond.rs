//! `ahp-elicit respond`: its arguments and wiring. The loop that answers
//! the event stream (reading, validation, the responder, result events)
//! is the library's [`crate::respond`].

use std::path::PathBuf;
use std::time::Duration;

use crate::binding::{Action, Mode, SchemaPolicy};
pub use crate::notice::{say, HoldStderr};
pub use crate::respond::input::{spawn_reader, spawn_readers};
pub use crate::respond::sink::{terminal_safe, terminal_safe_json, Sink};
use crate::respond::{drive, Config, Tally};
pub use crate::respond::{LoggingLauncher, SharedLog};

/// Arguments of `ahp-elicit respond`.
#[derive(Debug, Clone, clap::Args)]
#[command(after_help = "\
Examples:\n  ahp-elicit respond < requests.jsonl > results.jsonl\n  \
ahp-elicit respond examples/form-every-kind.request.json\n  \
ahp-elicit respond --action decline examples/stream.requests.jsonl\n\n\
The form is drawn on the controlling terminal (/dev/tty); stdin and stdout carry events. \
When stdout is that terminal, the results are written after the screen is given back.\n\n\
Exit status: 0 every request got a result, 1 a request was invalid or an answer was refused, \
2 usage or I/O error (or no terminal and no --answers/--action), 130 quit with Ctrl-C twice, \
128+N ended by signal N.")]
pub struct RespondArgs {
    /// Request events: files read in turn, or `-` / nothing for stdin. Each
    /// holds one JSON event or JSON Lines; a stream may stay open, requests
    /// are answered as they come (line numbers count within each file).
    #[arg(value_name = "FILE")]
    pub inputs: Vec<PathBuf>,
    /// Write result events here (JSON Lines) instead of stdout.
    #[arg(long, short)]
    pub output: Option<PathBuf>,
    /// Theme: default, light, high-contrast, monochrome, or a TOML file
    /// (PATH). NO_COLOR selects monochrome unless a theme is given.
    #[arg(long, value_name = "NAME|PATH")]
    pub theme: Option<String>,
    /// Answer from a file instead of a terminal: {"action":..,"content":{..}}
    /// for every request, or an object keyed by request event id.
    #[arg(long, conflicts_with = "action")]
    pub answers: Option<PathBuf>,
    /// Answer every request with this action, without a terminal (accept
    /// submits a form as shown, defaults pre-filled; on a URL request it is
    /// consent to open).
    #[arg(long, value_parser = action_values())]
    pub action: Option<Action>,
    /// `source.adapter` of the result events.
    #[arg(long, default_value = "ahp-elicit")]
    pub source_adapter: String,
    /// Cancel a request left unanswered this long: seconds (`120`) or a
    /// duration (`2m`, `1.5s`); finite and positive.
    #[arg(long, value_name = "DURATION", value_parser = super::parse_duration, allow_hyphen_values = true)]
    pub timeout: Option<Duration>,
    /// Modes this responder advertises and answers (comma separated).
    #[arg(long, value_delimiter = ',', default_value = "form,url", value_parser = mode_values())]
    pub modes: Vec<Mode>,
    /// Open consented URLs with CMD (no shell; the URL is added as its last argument) instead of the
    /// system browser.
    #[arg(long, value_name = "CMD", conflicts_with = "no_open")]
    pub browser: Option<String>,
    /// Never open a URL: show it for copying; consent is still recorded.
    #[arg(long)]
    pub no_open: bool,
    /// Log events and decisions (JSON Lines) to FILE; URL queries and
    /// fragments redacted, no form values.
    #[arg(long, value_name = "FILE")]
    pub log: Option<PathBuf>,
    /// With --log, also log form values.
    #[arg(long, requires = "log")]
    pub log_values: bool,
    /// Plain mode: ask line by line (screen readers, dumb terminals); also
    /// chosen by TERM=dumb or AHP_ELICIT_PLAIN=1.
    #[arg(long)]
    pub plain: bool,
    /// How a requestedSchema outside the closed AHP form subset is read:
    /// strict refuses it (the AHP rule); compatible draws what real servers
    /// send, lists the keywords it ignored, enforces the assertions it can,
    /// and shows a shape it cannot take as a request to decline or cancel.
    #[arg(long, value_enum, default_value = "strict", value_name = "POLICY")]
    pub schema_policy: SchemaPolicy,
}

/// clap value parser for `--action`, with its possible values listed in
/// `--help` and completions.
pub fn action_values() -> impl clap::builder::TypedValueParser<Value = Action> {
    use clap::builder::TypedValueParser;
    clap::builder::PossibleValuesParser::new(["accept", "decline", "cancel"])
        .try_map(|s| parse_action(&s))
}

/// clap value parser for one `--modes` entry, with its possible values
/// listed in `--help` and completions.
pub fn mode_values() -> impl clap::builder::TypedValueParser<Value = Mode> {
    use clap::builder::TypedValueParser;
    clap::builder::PossibleValuesParser::new(["form", "url"]).try_map(|s| parse_mode(&s))
}

/// A clap value parser for one word out of a fixed list: `--help` and the
/// completions list the words, and a wrong one is refused as "'x' is not
/// form or url" (the sentence the commands have always given).
#[derive(Debug, Clone, Copy)]
pub struct OneOf(pub &'static [&'static str]);

impl clap::builder::TypedValueParser for OneOf {
    type Value = String;

    fn parse_ref(
        &self,
        _cmd: &clap::Command,
        _arg: Option<&clap::Arg>,
        value: &std::ffi::OsStr,
    ) -> Result<String, clap::Error> {
        let v = value.to_string_lossy();
        if self.0.contains(&v.trim()) {
            return Ok(v.trim().to_owned());
        }
        let list = match self.0 {
            [a, b] => format!("{a} or {b}"),
            words => words.join(", "),
        };
        Err(clap::Error::raw(
            clap::error::ErrorKind::InvalidValue,
            format!("'{v}' is not {list}\n"),
        ))
    }

    fn possible_values(
        &self,
    ) -> Option<Box<dyn Iterator<Item = clap::builder::PossibleValue> + '_>> {
        Some(Box::new(
            self.0.iter().map(|w| clap::builder::PossibleValue::new(*w)),
        ))
    }
}

/// clap value parser for `--action`.
pub fn parse_action(s: &str) -> Result<Action, String> {
    Action::parse(s).ok_or_else(|| format!("'{s}' is not accept, decline or cancel"))
}

/// clap value parser for one `--modes` entry.
pub fn parse_mode(s: &str) -> Result<Mode, String> {
    Mode::parse(s.trim()).ok_or_else(|| format!("'{s}' is not form or url"))
}

/// An I/O error as a plain reason ("no such file or directory"), without
/// Rust's "(os error 2)".
pub fn io_reason(e: &std::io::Error) -> String {
    crate::files::io_reason(e)
}

fn stdout_is_terminal() -> bool {
    std::io::IsTerminal::is_terminal(&std::io::stdout())
}

/// Why reading events from stdin makes no sense here, if it does not: stdin
/// is a terminal and either no FILE was given (nothing would ever arrive but
/// what the person types) or the terminal UI reads the same keyboard.
fn stdin_is_the_keyboard(args: &RespondArgs, interactive: bool) -> Option<String> {
    let from_stdin = match args.inputs.as_slice() {
        [] => true,
        ps => interactive && ps.iter().any(|p| p.as_os_str() == "-"),
    };
    if !from_stdin || !std::io::IsTerminal::is_terminal(&std::io::stdin()) {
        return None;
    }
    Some(
        "standard input is the terminal, so no request events can arrive there: \
give a FILE (ahp-elicit respond requests.jsonl) or pipe events in \
(adapter | ahp-elicit respond)"
            .into(),
    )
}

/// Run the command; returns the exit code.
pub fn run(args: RespondArgs) -> u8 {
    let log = match open_log(&args) {
        Ok(l) => l,
        Err(code) => return code,
    };
    let interactive = args.answers.is_none() && args.action.is_none();
    if let Some(hint) = stdin_is_the_keyboard(&args, interactive) {
        eprintln!("ahp-elicit: {hint}");
        return super::EXIT_USAGE;
    }
    // Declared before the responder, so it drops (and writes what it
    // held) after the terminal is given back.
    let _hold =
        HoldStderr::start(interactive && std::io::IsTerminal::is_terminal(&std::io::stderr()));
    let mut responder = match super::build_responder(&args, log.clone()) {
        Ok(r) => r,
        Err(e) => return usage(&e),
    };
    let items = match spawn_readers(&args.inputs) {
        Ok(rx) => rx,
        Err(e) => return usage(&format!("cannot open the input {e}")),
    };
    let mut sink = match open_sink(&args, interactive) {
        Ok(s) => s,
        Err(e) => return usage(&format!("cannot open the output {e}")),
    };
    let signalled = watch_signals(interactive);
    let config = Config {
        source_adapter: args.source_adapter.clone(),
        timeout: args.timeout,
        modes: args.modes.clone(),
        schema_policy: args.schema_policy,
        interactive,
    };
    let mut tally = drive(items, responder.as_mut(), &mut sink, &config, log);
    // Give the terminal back, then write what was held.
    drop(responder);
    match sink.release() {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => tally.fatal = true,
        Err(e) => {
            say(format!("ahp-elicit: cannot write the results: {e}"));
            tally.fatal = true;
        }
    }
    let sig = signalled.load(std::sync::atomic::Ordering::SeqCst);
    if sig != 0 {
        return u8::try_from(128 + sig).unwrap_or(super::EXIT_USAGE);
    }
    exit_code(&tally)
}

/// Say `what` and give the usage exit code.
fn usage(what: &str) -> u8 {
    say(format!("ahp-elicit: {what}"));
    super::EXIT_USAGE
}

/// The `--log` file, opened; Err is the exit code after saying why not.
fn open_log(args: &RespondArgs) -> Result<Option<SharedLog>, u8> {
    match &args.log {
        Some(p) => match crate::log::EventLog::open(p, args.log_values) {
            Ok(l) => Ok(Some(crate::respond::share_log(l))),
            Err(e) => Err(usage(&e.to_string())),
        },
        None => Ok(None),
    }
}

/// stdout or `--output FILE`. When stdout is the UI's terminal, results
/// wait until the screen is given back (a pipe or a file gets each one at
/// once).
///
/// Errors: the file cannot be created; the message names the path.
fn open_sink(args: &RespondArgs, interactive: bool) -> std::io::Result<Sink> {
    let sink = Sink::open(args.output.as_ref())?;
    Ok(
        if interactive && args.output.is_none() && stdout_is_terminal() {
            sink.hold()
        } else {
            sink
        },
    )
}

/// SIGTERM/SIGHUP/SIGINT/SIGQUIT end the terminal UI with cancels; the run
/// then exits with 128 + the signal number, as a signal ends a process,
/// not with the code of a normal end. The flag holds the signal (0: none).
fn watch_signals(interactive: bool) -> std::sync::Arc<std::sync::atomic::AtomicUsize> {
    let flag = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    #[cfg(feature = "tui")]
    if interactive {
        for sig in [
            signal_hook::consts::SIGTERM,
            signal_hook::consts::SIGHUP,
            signal_hook::consts::SIGINT,
            signal_hook::consts::SIGQUIT,
        ] {
            let _ = signal_hook::flag::register_usize(sig, flag.clone(), sig as usize);
        }
    }
    #[cfg(not(feature = "tui"))]
    let _ = interactive;
    flag
}

/// The exit code of a run: 2 a fatal I/O or terminal error, 130 the
/// person quit, 1 a request got an error and no result, else 0.
pub fn exit_code(tally: &Tally) -> u8 {
    if tally.fatal {
        super::EXIT_USAGE
    } else if tally.quit {
        super::EXIT_INTERRUPTED
    } else if tally.failed > 0 {
        super::EXIT_INVALID
    } else {
        super::EXIT_OK
    }
}
