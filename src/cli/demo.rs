//! `ahp-elicit demo [--theme NAME|PATH]`: the terminal UI
//! on a request embedded in the binary that has every field kind
//! ([`crate::demo::demo_request`]). When the person
//! is done, the validated result event (built by
//! [`make_result_event`](crate::binding::make_result_event)) is printed to
//! stdout as one JSON line.
//!
//! `--request FILE` shows another request event instead (handy to look at
//! an adapter's request; `respond` is the command for streams).
//!
//! Exit codes: 0 when a result was printed; 1 when `--request` is invalid;
//! 2 with no terminal, a bad `--theme`, or an I/O error; 128+N when signal
//! N ended the screen (its cancel result is printed first).

use crate::binding;
use crate::binding::limits::MAX_EVENT_BYTES;
use crate::demo::demo_request;

use super::Exit;

/// Arguments of `ahp-elicit demo`.
#[derive(Debug, clap::Args)]
#[command(after_help = "\
Examples:\n  ahp-elicit demo\n  ahp-elicit demo --theme high-contrast\n  \
ahp-elicit demo --request examples/url-connect.request.json\n\n\
Exit status: 0 a result was printed, 1 the --request event is invalid, \
2 no terminal, a bad --theme, an unreadable --request or an I/O error, \
128+N ended by signal N (the cancel result is still printed).")]
pub struct DemoArgs {
    /// Theme: default, light, high-contrast, monochrome, or a TOML file
    /// (PATH). NO_COLOR selects monochrome unless a theme is given.
    #[arg(long, value_name = "NAME|PATH", value_parser = super::ThemeArg, hide_possible_values = true)]
    pub theme: Option<String>,
    /// Show this request event (a JSON file) instead of the built-in one.
    #[arg(long, value_name = "FILE")]
    pub request: Option<std::path::PathBuf>,
    /// How the --request file's requestedSchema is read: strict (the AHP
    /// rule) or compatible (what `mcp` reads real servers' forms under, and
    /// records its --events under).
    #[arg(long, value_enum, default_value = "strict", value_name = "POLICY")]
    pub schema_policy: crate::binding::SchemaPolicy,
    /// Plain mode: ask line by line (screen readers, dumb terminals); also
    /// chosen by TERM=dumb or AHP_ELICIT_PLAIN=1.
    #[arg(long)]
    pub plain: bool,
    /// Cancel the request when left unanswered this long: seconds (`120`)
    /// or a duration (`2m`, `1.5s`); finite and positive.
    #[arg(long, value_name = "DURATION", value_parser = super::parse_duration, allow_hyphen_values = true)]
    pub timeout: Option<std::time::Duration>,
    /// Open a consented URL (a URL request from --request) with CMD (no
    /// shell; the URL is added as its last argument) instead of the system
    /// browser.
    #[arg(long, value_name = "CMD", value_parser = super::answer::browser_command)]
    pub browser: Option<String>,
}

/// A `demo` command line (`ahp-elicit demo ...`) parsed against the demo's
/// own arguments alone, or None for any other command line and for any
/// `demo` line that this parse refuses (a usage error, `--help`,
/// `--version`): those take the whole command's parse, which says what it
/// says for every command. The whole command builds every subcommand's
/// arguments (about a fifth of the instructions before the demo's first
/// frame, and the pages of code that run them); a valid `demo` line gives
/// the same [`DemoArgs`] either way, as both parse it with the arguments
/// `DemoArgs` declares.
pub fn parse_alone<I>(args: I) -> Option<DemoArgs>
where
    I: IntoIterator<Item = std::ffi::OsString>,
{
    use clap::{Args, FromArgMatches};
    let args: Vec<std::ffi::OsString> = args.into_iter().collect();
    if args.get(1).map(|a| a.as_os_str()) != Some(std::ffi::OsStr::new("demo")) {
        return None;
    }
    let cmd = clap::Command::new("ahp-elicit")
        .subcommand_required(true)
        .subcommand(DemoArgs::augment_args(clap::Command::new("demo")));
    let mut matches = cmd.try_get_matches_from(args).ok()?;
    let (_, sub) = matches.remove_subcommand()?;
    DemoArgs::from_arg_matches(&sub).ok()
}

/// Why `--request FILE` gave no request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LoadError {
    /// The file cannot be read ("cannot read PATH: no such file or
    /// directory"): a usage error, exit 2.
    Read(String),
    /// The file holds no valid request event (each violation, naming the
    /// file): exit 1.
    Invalid(String),
}

impl std::fmt::Display for LoadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LoadError::Read(m) => write!(f, "{m}"),
            LoadError::Invalid(m) => write!(f, "invalid request: {m}"),
        }
    }
}

/// Read and validate one request event from a file (`--request`), its
/// `requestedSchema` under `policy`.
///
/// Errors: [`LoadError::Read`] when the file cannot be read,
/// [`LoadError::Invalid`] when the event is invalid.
pub fn read_request_file(
    p: &std::path::Path,
    policy: binding::SchemaPolicy,
) -> Result<binding::RequestEvent, LoadError> {
    let bytes = super::read_input(p, MAX_EVENT_BYTES, "request file").map_err(LoadError::Read)?;
    parse_request(&bytes, p, policy).map_err(LoadError::Invalid)
}

/// A valid request is read by the fast reading (no tree, no schema run:
/// the first frame does not wait for the schemas to compile); anything else
/// takes the full reading, whose errors are the ones reported.
fn parse_request(
    bytes: &[u8],
    p: &std::path::Path,
    policy: binding::SchemaPolicy,
) -> Result<binding::RequestEvent, String> {
    if policy == binding::SchemaPolicy::Strict {
        if let Some(binding::fast::ValidEvent::Request(r)) = binding::fast::read_valid(bytes) {
            return Ok(r);
        }
    }
    let v = binding::parse_json(bytes).map_err(|e| {
        // Several JSON lines: a stream, which respond answers one by one.
        let lines: Option<Vec<serde_json::Value>> = bytes
            .split(|b| *b == b'\n')
            .filter(|l| !l.iter().all(u8::is_ascii_whitespace))
            .map(|l| binding::parse_json(l).ok())
            .collect();
        let lines = lines.unwrap_or_default();
        if lines.len() > 1 {
            let first = crate::misplaced::hint(&lines[0])
                .map(|h| format!(" (the first line: {h})"))
                .unwrap_or_default();
            format!(
                "{}: holds {} JSON lines, and demo --request shows one request: answer a stream with ahp-elicit respond FILE{first}",
                p.display(),
                lines.len()
            )
        } else {
            format!("{}: {e}", p.display())
        }
    })?;
    if let Some(h) = crate::misplaced::hint(&v) {
        return Err(format!("{}: {h}", p.display()));
    }
    crate::validate::read_request_noted(v, policy).map_err(|es| {
        es.iter()
            .map(|e| format!("{}: {e}", p.display()))
            .collect::<Vec<_>>()
            .join("; ")
    })
}

/// Run the command; returns the exit status.
pub fn run(args: DemoArgs) -> Exit {
    use crate::binding::{Action, Answer};
    use crate::responder::{Context, Outcome, Progress, Responder};
    use crate::tui::{Theme, TuiResponder};
    // Plain mode draws no colours: the terminal is not asked for its
    // background there, only the theme name is checked.
    let plain = crate::plain::chosen(args.plain);
    let theme = if plain {
        Theme::resolve(args.theme.as_deref(), true)
    } else {
        Theme::resolve_for_terminal(args.theme.as_deref())
    };
    let theme = match theme {
        Ok(t) => t,
        Err(e) => {
            crate::notice::say(&e);
            return Exit::Usage;
        }
    };
    let req = match &args.request {
        Some(p) => read_request_file(p, args.schema_policy),
        None => demo_request().map_err(|es| {
            let each: Vec<String> = es.iter().map(|e| e.to_string()).collect();
            LoadError::Invalid(each.join("; "))
        }),
    };
    let req = match req {
        Ok(r) => r,
        Err(e) => {
            crate::notice::say(&e);
            return match e {
                LoadError::Invalid(_) if args.request.is_some() => Exit::Invalid,
                _ => Exit::Usage,
            };
        }
    };
    // A signal ends the screen with a cancel, which is still printed; the
    // exit status is then 128 + the signal, as in `respond`.
    super::respond::watch_signals(true);
    // `--browser CMD`, else the system browser where one can open (else
    // the URL is shown for copying, saying why).
    let no_open = match &args.browser {
        Some(_) => None,
        None => crate::launcher::NoOpenWhy::of_this_machine(),
    };
    let launcher = || -> Box<dyn crate::launcher::Launcher> {
        match &args.browser {
            Some(cmd) => Box::new(crate::launcher::CommandBrowser::new(cmd.clone())),
            None if no_open.is_some() => Box::new(crate::launcher::NoOpen::default()),
            None => Box::new(crate::launcher::SystemBrowser),
        }
    };
    let outcome = if plain {
        crate::plain::answer_one(&req, launcher(), no_open)
    } else {
        let mut tui = match TuiResponder::new(theme) {
            Ok(t) => t,
            Err(e) => {
                let e = super::answer::with_no_terminal_hint(&e, DEMO_HINT);
                crate::notice::say(&e);
                return Exit::Usage;
            }
        };
        tui = tui
            .with_launcher(launcher(), false)
            .showing_urls_for(no_open);
        let cx = Context {
            progress: Progress::of(1, 1),
            deadline: args
                .timeout
                .and_then(|d| std::time::Instant::now().checked_add(d)),
            ..Default::default()
        };
        let outcome = tui.respond(&req, &cx);
        // Time ran out: the notice that says so waits for a key.
        tui.finish();
        outcome
        // The terminal is restored here, before anything is printed.
    };
    let answer = match outcome {
        Ok(Outcome::Answer(a)) => a,
        Ok(Outcome::Quit) => Answer::bare(Action::Cancel),
        Err(e) => {
            let e = super::answer::with_no_terminal_hint(&e, DEMO_HINT);
            crate::notice::say(&e);
            return Exit::Usage;
        }
    };
    let emitted = emit(&req, &answer);
    match crate::signals::received() {
        None => emitted,
        Some(sig) => Exit::Signal(sig),
    }
}

/// What `demo` says when there is no terminal: it has no scripted answers
/// (those are `respond`'s).
const DEMO_HINT: &str = "demo shows a form on a terminal: run it in one; without a terminal, `ahp-elicit respond --action accept FILE` answers a request by script";

/// Print the validated result event for `answer` as one JSON line on
/// stdout (a closed pipe is not an error). A bare decline or cancel is
/// written straight from the request, with no schema run
/// ([`make_result_line`](binding::result_line::make_result_line)).
fn emit(req: &binding::RequestEvent, answer: &binding::Answer) -> Exit {
    use std::io::Write;
    match binding::result_line::make_result_line(req, answer, &binding::ResultMeta::default()) {
        Ok(ev) => {
            let mut out = std::io::stdout().lock();
            match writeln!(out, "{}", ev.line).and_then(|_| out.flush()) {
                Ok(()) => Exit::Ok,
                Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Exit::Ok,
                Err(e) => {
                    crate::notice::say(format!("cannot write the result: {e}"));
                    Exit::Usage
                }
            }
        }
        Err(es) => {
            for e in es {
                crate::notice::say(format!("result not emitted: {e}"));
            }
            Exit::Invalid
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    fn line(args: &[&str]) -> Vec<std::ffi::OsString> {
        std::iter::once("ahp-elicit")
            .chain(args.iter().copied())
            .map(Into::into)
            .collect()
    }

    /// What the whole command makes of a line: its `demo` arguments, or
    /// None for another command or an error.
    fn whole(args: &[&str]) -> Option<String> {
        match super::super::Cli::try_parse_from(line(args)) {
            Ok(super::super::Cli {
                command: super::super::Command::Demo(a),
            }) => Some(format!("{a:?}")),
            _ => None,
        }
    }

    #[test]
    fn a_valid_demo_line_gives_the_arguments_the_whole_command_gives() {
        for args in [
            &["demo"][..],
            &["demo", "--theme", "light"],
            &["demo", "--theme=monochrome", "--plain"],
            &[
                "demo",
                "--request",
                "r.json",
                "--schema-policy",
                "compatible",
            ],
            &["demo", "--timeout", "2m", "--browser", "echo"],
            &["demo", "--timeout", "1.5"],
        ] {
            let alone = parse_alone(line(args)).map(|a| format!("{a:?}"));
            assert!(alone.is_some(), "{args:?}");
            assert_eq!(alone, whole(args), "{args:?}");
        }
    }

    #[test]
    fn another_command_help_version_and_errors_take_the_whole_parse() {
        for args in [
            &[][..],
            &["respond"],
            &["--version", "demo"],
            &["demo", "--help"],
            &["demo", "-h"],
            &["demo", "--version"],
            &["demo", "-V"],
            &["demo", "--theme"],
            &["demo", "--timeout", "0"],
            &["demo", "--schema-policy", "loose"],
            &["demo", "extra"],
            &["demo", "--no-such-flag"],
        ] {
            assert!(parse_alone(line(args)).is_none(), "{args:?}");
        }
        // The whole parse answers those lines itself (help, version, the
        // usage error), as before.
        let e = super::super::Cli::try_parse_from(line(&["demo", "--version"])).unwrap_err();
        assert_eq!(e.kind(), clap::error::ErrorKind::DisplayVersion);
        let e = super::super::Cli::try_parse_from(line(&["demo", "--help"])).unwrap_err();
        assert!(e.to_string().contains("--schema-policy"), "{e}");
    }
}
