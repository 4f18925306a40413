//! `ahp-elicit demo [--theme NAME|PATH]` (issue 3 item 2): the terminal UI
//! on a request embedded in the binary that has every field kind
//! (`src/demo_request.json`, the shared every-kind example). When the person
//! is done, the validated result event (built by
//! [`make_result_event`](crate::binding::make_result_event)) is printed to
//! stdout as one JSON line.
//!
//! Exit codes: 0 when a result was printed; 2 with no terminal, a bad
//! `--theme`, or an I/O error.

use std::io::Write;

use crate::binding::{self, Action, Answer, Mode, ResultMeta};
use crate::responder::{Context, Outcome, Progress, Responder};

/// The embedded demo request: every field kind.
pub const DEMO_REQUEST: &str = include_str!("../demo_request.json");

/// Arguments of `ahp-elicit demo`.
#[derive(Debug, clap::Args)]
pub struct DemoArgs {
    /// Theme: default, light, high-contrast, monochrome, or a TOML file.
    /// NO_COLOR selects monochrome unless a theme is given.
    #[arg(long, value_name = "NAME|PATH")]
    pub theme: Option<String>,
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

/// Run the command; returns the exit code.
#[cfg(feature = "tui")]
pub fn run(args: DemoArgs) -> u8 {
    use crate::tui::{Theme, TuiResponder};
    let theme = match Theme::resolve(args.theme.as_deref(), Theme::no_color_env()) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("ahp-elicit: {e}");
            return super::EXIT_USAGE;
        }
    };
    let req = match demo_request() {
        Ok(r) => r,
        Err(e) => {
            eprintln!("ahp-elicit: the embedded demo request is invalid: {e}");
            return super::EXIT_USAGE;
        }
    };
    let outcome = {
        let mut tui = match TuiResponder::new(theme) {
            Ok(t) => t,
            Err(e) => {
                eprintln!("ahp-elicit: {e}");
                return super::EXIT_USAGE;
            }
        };
        let cx = Context {
            progress: Progress { index: 1, total: 1 },
            deadline: None,
            modes: vec![Mode::Form, Mode::Url],
        };
        tui.respond(&req, &cx)
        // The terminal is restored here, before anything is printed.
    };
    let answer = match outcome {
        Ok(Outcome::Answer(a)) => a,
        Ok(Outcome::Quit) => Answer::bare(Action::Cancel),
        Err(e) => {
            eprintln!("ahp-elicit: {e}");
            return super::EXIT_USAGE;
        }
    };
    match binding::make_result_event(&req, &answer, &ResultMeta::default()) {
        Ok(ev) => {
            let mut out = std::io::stdout().lock();
            match writeln!(out, "{ev}").and_then(|_| out.flush()) {
                Ok(()) => super::EXIT_OK,
                Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => super::EXIT_OK,
                Err(e) => {
                    eprintln!("ahp-elicit: cannot write the result: {e}");
                    super::EXIT_USAGE
                }
            }
        }
        Err(es) => {
            for e in es {
                eprintln!("ahp-elicit: result not emitted: {e}");
            }
            super::EXIT_INVALID
        }
    }
}

/// Run the command; without the `tui` feature there is no terminal UI.
#[cfg(not(feature = "tui"))]
pub fn run(_args: DemoArgs) -> u8 {
    eprintln!("ahp-elicit: this build has no terminal UI (feature 'tui' is off)");
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
