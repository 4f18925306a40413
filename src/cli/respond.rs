//! `ahp-elicit respond`: its arguments and wiring. The loop that answers
//! the event stream (reading, validation, the responder, result events)
//! is the library's [`crate::respond`].

use std::path::PathBuf;
use std::time::Duration;

use crate::binding::{Mode, SchemaPolicy};
use crate::notice::{say, Notices};
use crate::respond::input::spawn_readers;
use crate::respond::sink::Sink;
use crate::respond::{drive, Config, Tally};

use super::answer::AnswerArgs;
use super::Exit;

/// Arguments of `ahp-elicit respond`.
#[derive(Debug, Clone, clap::Args)]
#[command(after_help = "\
Examples:\n  ahp-elicit respond < examples/stream.requests.jsonl > results.jsonl\n  \
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
    #[arg(long, short, display_order = 10)]
    pub output: Option<PathBuf>,
    /// How requests are answered (the flags shared with `mcp`).
    #[command(flatten)]
    pub answer: AnswerArgs,
    /// `source.adapter` of the result events.
    #[arg(long, default_value = "ahp-elicit", display_order = 50)]
    pub source_adapter: String,
    /// Cancel a request left unanswered this long: seconds (`120`) or a
    /// duration (`2m`, `1.5s`); finite and positive.
    #[arg(long, value_name = "DURATION", value_parser = super::parse_duration, allow_hyphen_values = true, display_order = 60)]
    pub timeout: Option<Duration>,
    /// Modes this responder advertises and answers (comma separated).
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "form,url",
        value_enum,
        display_order = 70
    )]
    pub modes: Vec<Mode>,
    /// How a requestedSchema outside the closed AHP form subset is read:
    /// strict refuses it (the AHP rule); compatible draws what real servers
    /// send, lists the keywords it ignored, enforces the assertions it can,
    /// and shows a shape it cannot take as a request to decline or cancel.
    #[arg(
        long,
        value_enum,
        default_value = "strict",
        value_name = "POLICY",
        display_order = 130
    )]
    pub schema_policy: SchemaPolicy,
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

/// Run the command; returns the exit status.
pub fn run(args: RespondArgs) -> Exit {
    let log = match args.answer.open_log() {
        Ok(l) => l,
        Err(e) => return usage(&e),
    };
    let interactive = args.answer.interactive();
    if let Some(hint) = stdin_is_the_keyboard(&args, interactive) {
        crate::notice::say(&hint);
        return Exit::Usage;
    }
    // Declared before the responder, so it drops (and writes what it
    // held) after the terminal is given back.
    let _hold = args.answer.hold_stderr();
    let mut responder = match args.answer.responder(log.clone()) {
        Ok(r) => r,
        Err(e) => return usage(&e),
    };
    let items = match spawn_readers(&args.inputs, Some(args.schema_policy)) {
        Ok(rx) => rx,
        Err(e) => return usage(&format!("cannot open the input {e}")),
    };
    let mut sink = match open_sink(&args, interactive) {
        Ok(s) => s,
        Err(e) => return usage(&format!("cannot open the output {e}")),
    };
    watch_signals(interactive);
    let config = Config {
        source_adapter: args.source_adapter.clone(),
        timeout: args.timeout,
        modes: args.modes.clone(),
        schema_policy: args.schema_policy,
        interactive,
        catch_signals: !interactive,
        notices: Notices::stderr(),
    };
    let mut tally = drive(items, responder.as_mut(), &mut sink, &config, log);
    // Give the terminal back, then write what was held.
    drop(responder);
    match sink.release() {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => tally.fatal = true,
        Err(e) => {
            say(format!("cannot write the results: {e}"));
            tally.fatal = true;
        }
    }
    if let Some(sig) = crate::signals::received().or(tally.signal) {
        return Exit::Signal(sig);
    }
    exit_code(&tally)
}

/// Say `what` and give the usage exit status.
fn usage(what: &str) -> Exit {
    say(what);
    Exit::Usage
}

/// stdout or `--output FILE`. While a person answers on the terminal,
/// results wait until the screen is given back when stdout is that
/// terminal, and also when the input is finite (FILE arguments, or stdin
/// redirected from a regular file, `< FILE`: no live adapter waits for
/// each result) and stdout is not a regular file (a pipe into a consumer
/// such as `jq` that prints on the same terminal, where the lines would
/// vanish with the screen). A file gets each result at once, and so does a
/// pipe while the input is a pipe or another stream (a live adapter).
///
/// Errors: the file cannot be created; the message names the path.
fn open_sink(args: &RespondArgs, interactive: bool) -> std::io::Result<Sink> {
    let sink = Sink::open(args.output.as_ref())?;
    let stdin_finite = || is_regular_file(Stream::Stdin);
    let finite = if args.inputs.is_empty() {
        stdin_finite()
    } else {
        args.inputs.iter().all(|p| {
            if p.as_os_str() == "-" {
                stdin_finite()
            } else {
                p.is_file()
            }
        })
    };
    let hold = interactive
        && args.output.is_none()
        && (stdout_is_terminal() || (finite && !is_regular_file(Stream::Stdout)));
    Ok(if hold { sink.hold() } else { sink })
}

/// One of the process's standard streams.
#[derive(Debug, Clone, Copy)]
enum Stream {
    Stdin,
    Stdout,
}

/// Whether `stream` is a regular file (`< in.jsonl`, `> out.jsonl`), not a
/// pipe, a socket, a terminal or another device.
fn is_regular_file(stream: Stream) -> bool {
    #[cfg(unix)]
    {
        use std::os::fd::AsFd;
        let fd = match stream {
            Stream::Stdin => std::io::stdin().as_fd().try_clone_to_owned(),
            Stream::Stdout => std::io::stdout().as_fd().try_clone_to_owned(),
        };
        fd.map(std::fs::File::from)
            .and_then(|f| f.metadata())
            .is_ok_and(|m| m.is_file())
    }
    #[cfg(not(unix))]
    {
        let _ = stream;
        false
    }
}

/// A person's run: the signals are taken over ([`crate::signals`])
/// before the terminal is, so SIGTERM/SIGHUP/SIGINT/SIGQUIT end the screen
/// with cancels and the run then exits with 128 + the signal number, as a
/// signal ends a process, not with the code of a normal end.
pub(super) fn watch_signals(interactive: bool) {
    if interactive {
        crate::signals::install();
    }
}

/// The exit status of a run: 2 a fatal I/O or terminal error, 130 the
/// person quit, 1 a request got an error and no result, else 0.
pub fn exit_code(tally: &Tally) -> Exit {
    if tally.fatal {
        Exit::Usage
    } else if tally.quit {
        Exit::Interrupted
    } else if tally.failed > 0 {
        Exit::Invalid
    } else {
        Exit::Ok
    }
}
