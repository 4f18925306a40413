//! `ahp-elicit demo [--theme NAME|PATH]`: the terminal UI
//! on a request embedded in the binary that has every field kind
//! (`src/demo_request.json`, the shared every-kind example). When the person
//! is done, the validated result event (built by
//! [`make_result_event`](crate::binding::make_result_event)) is printed to
//! stdout as one JSON line.
//!
//! `--request FILE` shows another request event instead (handy to look at
//! an adapter's request; `respond` is the command for streams).
//!
//! Exit codes: 0 when a result was printed; 1 when `--request` is invalid;
//! 2 with no terminal, a bad `--theme`, or an I/O error.

use crate::binding;

/// The embedded demo request: every field kind.
pub const DEMO_REQUEST: &str = include_str!("../demo_request.json");

/// Arguments of `ahp-elicit demo`.
#[derive(Debug, clap::Args)]
#[command(after_help = "\
Examples:\n  ahp-elicit demo\n  ahp-elicit demo --theme high-contrast\n  \
ahp-elicit demo --request examples/url-connect.request.json\n\n\
Exit status: 0 a result was printed, 1 the --request event is invalid, \
2 no terminal, a bad --theme, an unreadable --request or an I/O error.")]
pub struct DemoArgs {
    /// Theme: default, light, high-contrast, monochrome, or a TOML file
    /// (PATH). NO_COLOR selects monochrome unless a theme is given.
    #[arg(long, value_name = "NAME|PATH")]
    pub theme: Option<String>,
    /// Show this request event (a JSON file) instead of the built-in one.
    #[arg(long, value_name = "FILE")]
    pub request: Option<std::path::PathBuf>,
    /// Plain mode: ask line by line (screen readers, dumb terminals); also
    /// chosen by TERM=dumb or AHP_ELICIT_PLAIN=1.
    #[arg(long)]
    pub plain: bool,
    /// Cancel the request when left unanswered this long: seconds (`120`)
    /// or a duration (`2m`, `1.5s`); finite and positive.
    #[arg(long, value_name = "DURATION", value_parser = super::parse_duration, allow_hyphen_values = true)]
    pub timeout: Option<std::time::Duration>,
}

/// The demo request, parsed and validated.
///
/// Errors: the embedded request is invalid (a build defect).
pub fn demo_request() -> Result<binding::RequestEvent, String> {
    let v = binding::parse_json(DEMO_REQUEST.as_bytes()).map_err(|e| e.to_string())?;
    binding::read_request_event(&v).map_err(|es| {
        es.iter()
            .map(|e| e.to_string())
            .collect::<Vec<_>>()
            .join("; ")
    })
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

/// Read and validate one request event from a file (`--request`).
///
/// Errors: [`LoadError::Read`] when the file cannot be read,
/// [`LoadError::Invalid`] when the event is invalid.
pub fn read_request_file(p: &std::path::Path) -> Result<binding::RequestEvent, LoadError> {
    let bytes = std::fs::read(p).map_err(|e| {
        LoadError::Read(format!(
            "cannot read the request file {}: {}",
            p.display(),
            super::respond::io_reason(&e)
        ))
    })?;
    parse_request(&bytes, p).map_err(LoadError::Invalid)
}

/// Read and validate one request event from a file (`--request`).
///
/// Errors: the file cannot be read, or the event is invalid (each violation).
pub fn load_request(p: &std::path::Path) -> Result<binding::RequestEvent, String> {
    let bytes = std::fs::read(p).map_err(|e| format!("cannot read {}: {e}", p.display()))?;
    parse_request(&bytes, p)
}

fn parse_request(bytes: &[u8], p: &std::path::Path) -> Result<binding::RequestEvent, String> {
    let v = binding::parse_json(bytes).map_err(|e| format!("{}: {e}", p.display()))?;
    binding::read_request_event(&v).map_err(|es| {
        es.iter()
            .map(|e| format!("{}: {e}", p.display()))
            .collect::<Vec<_>>()
            .join("; ")
    })
}

/// Run the command; returns the exit code.
#[cfg(feature = "tui")]
pub fn run(args: DemoArgs) -> u8 {
    use crate::binding::{Action, Answer, ResultMeta};
    use crate::responder::{Context, Outcome, Progress, Responder};
    use crate::tui::{Theme, TuiResponder};
    use std::io::Write;
    let theme = match Theme::resolve_for_terminal(args.theme.as_deref()) {
        Ok(t) => t,
        Err(e) => {
            crate::notice::say(format!("ahp-elicit: {e}"));
            return super::EXIT_USAGE;
        }
    };
    let req = match &args.request {
        Some(p) => read_request_file(p),
        None => demo_request().map_err(LoadError::Invalid),
    };
    let req = match req {
        Ok(r) => r,
        Err(e) => {
            crate::notice::say(format!("ahp-elicit: {e}"));
            return match e {
                LoadError::Invalid(_) if args.request.is_some() => super::EXIT_INVALID,
                _ => super::EXIT_USAGE,
            };
        }
    };
    let outcome = if crate::plain::chosen(args.plain) {
        crate::plain::answer_one(&req)
    } else {
        let mut tui = match TuiResponder::new(theme) {
            Ok(t) => t,
            Err(e) => {
                crate::notice::say(format!("ahp-elicit: {e}"));
                return super::EXIT_USAGE;
            }
        };
        let cx = Context {
            progress: Progress { index: 1, total: 1 },
            deadline: args
                .timeout
                .and_then(|d| std::time::Instant::now().checked_add(d)),
        };
        tui.respond(&req, &cx)
        // The terminal is restored here, before anything is printed.
    };
    let answer = match outcome {
        Ok(Outcome::Answer(a)) => a,
        Ok(Outcome::Quit) => Answer::bare(Action::Cancel),
        Err(e) => {
            crate::notice::say(format!("ahp-elicit: {e}"));
            return super::EXIT_USAGE;
        }
    };
    match binding::make_result_event(&req, &answer, &ResultMeta::default()) {
        Ok(ev) => {
            let mut out = std::io::stdout().lock();
            match writeln!(out, "{}", super::respond::terminal_safe(&ev.to_string()))
                .and_then(|_| out.flush())
            {
                Ok(()) => super::EXIT_OK,
                Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => super::EXIT_OK,
                Err(e) => {
                    crate::notice::say(format!("ahp-elicit: cannot write the result: {e}"));
                    super::EXIT_USAGE
                }
            }
        }
        Err(es) => {
            for e in es {
                crate::notice::say(format!("ahp-elicit: result not emitted: {e}"));
            }
            super::EXIT_INVALID
        }
    }
}

/// Run the command; without the `tui` feature there is no terminal UI.
#[cfg(not(feature = "tui"))]
pub fn run(_args: DemoArgs) -> u8 {
    crate::notice::say(format!(
        "ahp-elicit: this build has no terminal UI (feature 'tui' is off)"
    ));
    super::EXIT_USAGE
}

#[cfg(test)]
mod tests {
    #[test]
    fn embedded_request_is_valid() {
        let r = super::demo_request().expect("valid");
        assert_eq!(r.id, "evt-profile-1");
    }
}
