//! The command line: clap definitions and dispatch. Each command lives in
//! its own module with its `Args` and a `run` returning the exit code.
//!
//! Exit codes: 0 ok; 1 invalid input or a refused answer;
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

/// The longest duration a flag takes (100 days): beyond it a deadline
/// means nothing, and the clock arithmetic stays far from overflow.
pub const MAX_DURATION: std::time::Duration = std::time::Duration::from_secs(100 * 24 * 3600);

/// clap value parser for a duration flag (`--timeout`): seconds as a
/// plain number (`120`, `1.5`), or a number with a unit (`1.5s`, `2m`,
/// `250ms`, `1h`), or a humantime span (`1m 30s`).
///
/// Errors: a sentence naming the value when it is not a duration, not
/// finite, not positive, or longer than [`MAX_DURATION`].
pub fn parse_duration(s: &str) -> Result<std::time::Duration, String> {
    let t = s.trim();
    let shown = crate::safe_text::display(t);
    let secs = match t.parse::<f64>() {
        Ok(x) => Some(x),
        Err(_) => unit_seconds(t),
    };
    let d =
        match secs {
            Some(x) if !x.is_finite() => {
                return Err(format!("'{shown}' is not a finite duration"));
            }
            Some(x) if x <= 0.0 => return Err(format!("'{shown}' is not a positive duration")),
            Some(x) if x > MAX_DURATION.as_secs_f64() => None,
            Some(x) => Some(std::time::Duration::from_secs_f64(x)),
            None => Some(humantime::parse_duration(t).map_err(|_| {
                format!("'{shown}' is not a duration (seconds, or like 1.5s, 2m, 1h)")
            })?),
        };
    match d {
        Some(d) if d.is_zero() => Err(format!("'{shown}' is not a positive duration")),
        Some(d) if d <= MAX_DURATION => Ok(d),
        _ => Err(format!("'{shown}' is longer than the limit of 100 days")),
    }
}

/// `<number><unit>` in seconds (`1.5s`, `2m`, `250ms`, `1h`, `1d`), or
/// None when `t` is not written so.
fn unit_seconds(t: &str) -> Option<f64> {
    let at = t.find(|c: char| c.is_ascii_alphabetic())?;
    let (num, unit) = t.split_at(at);
    let scale = match unit.trim() {
        "ms" => 1e-3,
        "s" | "sec" | "secs" => 1.0,
        "m" | "min" | "mins" => 60.0,
        "h" | "hr" | "hrs" => 3600.0,
        "d" => 86400.0,
        _ => return None,
    };
    let x: f64 = num.trim().parse().ok()?;
    Some(x * scale)
}

/// Answer MCP elicitations (AHP user.elicitation.request events) in a terminal.
#[derive(Debug, Parser)]
#[command(
    name = "ahp-elicit",
    version,
    about,
    long_about = None,
    propagate_version = true,
    after_help = "Exit status: 0 ok, 1 invalid input or a refused answer, 2 usage or I/O error (or no terminal), 130 quit with Ctrl-C twice. Each command's --help gives its own."
)]
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
    #[command(
        subcommand,
        after_help = "Exit status: 0 ok, 1 a digest or the extraction differs, 2 unreadable files, a failed download or write."
    )]
    Upstream(upstream::UpstreamCommand),
    /// Connect to a live MCP server as a client and answer its elicitations.
    Mcp(mcp::McpArgs),
    /// Print a shell completion script (bash, zsh, fish, elvish, powershell).
    #[command(after_help = "\
Examples:\n  ahp-elicit completions bash > ~/.local/share/bash-completion/completions/ahp-elicit\n  \
ahp-elicit completions zsh > ~/.zfunc/_ahp-elicit\n  \
ahp-elicit completions fish > ~/.config/fish/completions/ahp-elicit.fish\n\n\
Exit status: 0 printed, 2 usage.")]
    Completions {
        /// The shell.
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Print the manual pages (roff), e.g. `ahp-elicit man | man -l -`, or
    /// write one file per command with --dir.
    #[command(after_help = "Exit status: 0 printed, 2 usage or a write error.")]
    Man {
        /// Write one page per command into DIR (ahp-elicit.1,
        /// ahp-elicit-respond.1, ahp-elicit-upstream-verify.1, …; DIR is
        /// created if missing), the pages each SUBCOMMANDS section names,
        /// instead of printing them all.
        #[arg(long, value_name = "DIR")]
        dir: Option<std::path::PathBuf>,
    },
}

/// The clap command (for completions and the manual page).
pub fn command() -> clap::Command {
    <Cli as clap::CommandFactory>::command()
}

fn completions(shell: clap_complete::Shell) -> u8 {
    let mut cmd = command();
    // Into memory first: the generator panics on a write error (a closed
    // pipe), and a closed pipe is not worth a panic.
    let mut out = Vec::new();
    clap_complete::generate(shell, &mut cmd, "ahp-elicit", &mut out);
    write_stdout(&out, "the completion script")
}

/// Write `bytes` to stdout; a closed pipe ends quietly with exit 0.
fn write_stdout(bytes: &[u8], what: &str) -> u8 {
    use std::io::Write;
    let mut stdout = std::io::stdout();
    match stdout.write_all(bytes).and_then(|_| stdout.flush()) {
        Ok(()) => EXIT_OK,
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => EXIT_OK,
        Err(e) => {
            eprintln!("ahp-elicit: cannot write {what}: {e}");
            EXIT_USAGE
        }
    }
}

/// The command as the manual pages show it: built (so each subcommand
/// carries its page name, e.g. `ahp-elicit-upstream-verify`) and without
/// the `help` subcommands, which get no page.
fn man_command() -> clap::Command {
    let mut cmd = command().disable_help_subcommand(true);
    cmd.build();
    cmd
}

/// The command and every subcommand under it, depth first (the order of
/// the pages).
fn man_pages(cmd: &clap::Command, pages: &mut Vec<clap::Command>) {
    pages.push(cmd.clone());
    for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()) {
        man_pages(sub, pages);
    }
}

/// `man`: every page to stdout (the main one first), or one file per page
/// into `dir`. Each page's SUBCOMMANDS section names pages that are among
/// them.
fn man(dir: Option<&std::path::Path>) -> u8 {
    if let Some(dir) = dir {
        let written = std::fs::create_dir_all(dir)
            .and_then(|()| clap_mangen::generate_to(man_command(), dir));
        return match written {
            Ok(()) => EXIT_OK,
            Err(e) => {
                eprintln!(
                    "ahp-elicit: cannot write the manual pages into {}: {e}",
                    crate::safe_text::display(&dir.display().to_string())
                );
                EXIT_USAGE
            }
        };
    }
    let mut pages = Vec::new();
    man_pages(&man_command(), &mut pages);
    let mut out = Vec::new();
    for page in pages {
        if let Err(e) = clap_mangen::Man::new(page).render(&mut out) {
            eprintln!("ahp-elicit: cannot render the manual page: {e}");
            return EXIT_USAGE;
        }
    }
    write_stdout(&out, "the manual pages")
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
        // otherwise.
        None if args.no_open || scripted.is_some() => {
            logged(Box::new(NoOpen::default()), "no-open")
        }
        None => logged(Box::new(SystemBrowser), "system-browser"),
    };
    match scripted {
        Some(s) => Ok(Box::new(s.with_launcher(launcher))),
        // Plain mode: line by line on the terminal (--plain, TERM=dumb).
        None if crate::plain::chosen(args.plain) => {
            crate::plain::tty_responder(launcher, args.no_open)
        }
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
        Some(_) => crate::tui::theme::Theme::resolve(arg, false)
            .map(|_| ())
            .map_err(|e| e.to_string()),
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
        Command::Completions { shell } => completions(shell),
        Command::Man { dir } => man(dir.as_deref()),
    }
}

#[cfg(test)]
mod man_tests {
    use super::*;

    /// The page names a roff text refers to in its SUBCOMMANDS sections
    /// (`name(1)` lines), unescaped.
    fn references(roff: &str) -> Vec<String> {
        roff.lines()
            .map(|l| l.replace("\\-", "-"))
            .filter_map(|l| l.strip_suffix("(1)").map(str::to_owned))
            .collect()
    }

    #[test]
    fn man_dir_writes_every_page_the_subcommands_sections_name() {
        let dir = tempfile::tempdir().expect("tempdir");
        let at = dir.path().join("man1");
        assert_eq!(man(Some(&at)), EXIT_OK);
        let main = std::fs::read_to_string(at.join("ahp-elicit.1")).expect("main page");
        let mut named = references(&main);
        let upstream = std::fs::read_to_string(at.join("ahp-elicit-upstream.1")).expect("page");
        named.extend(references(&upstream));
        assert!(
            named.contains(&"ahp-elicit-respond".to_owned()),
            "{named:?}"
        );
        assert!(named.contains(&"ahp-elicit-upstream-verify".to_owned()));
        for name in &named {
            assert!(at.join(format!("{name}.1")).is_file(), "{name}.1 written");
        }
        assert!(!named.iter().any(|n| n.ends_with("-help")), "{named:?}");
    }

    #[test]
    fn the_printed_pages_include_every_page_they_name() {
        let mut pages = Vec::new();
        man_pages(&man_command(), &mut pages);
        let mut out = Vec::new();
        for page in pages {
            clap_mangen::Man::new(page)
                .render(&mut out)
                .expect("render");
        }
        let text = String::from_utf8(out).expect("UTF-8");
        let named = references(&text);
        assert_eq!(named.len(), 13, "{named:?}");
        for name in &named {
            let title = format!(".TH {name} 1");
            assert!(text.contains(&title), "{title} printed");
        }
    }
}

#[cfg(test)]
mod duration_tests {
    use super::parse_duration;
    use std::time::Duration;

    #[test]
    fn durations_parse() {
        assert_eq!(parse_duration("120"), Ok(Duration::from_secs(120)));
        assert_eq!(parse_duration("2m"), Ok(Duration::from_secs(120)));
        assert_eq!(parse_duration("1.5s"), Ok(Duration::from_millis(1500)));
        assert_eq!(parse_duration("0.25"), Ok(Duration::from_millis(250)));
        assert_eq!(parse_duration("250ms"), Ok(Duration::from_millis(250)));
        assert_eq!(parse_duration("1m 30s"), Ok(Duration::from_secs(90)));
        assert_eq!(parse_duration(" 1h "), Ok(Duration::from_secs(3600)));
    }

    #[test]
    fn bad_durations_are_refused_with_a_reason() {
        for (s, why) in [
            ("NaN", "not a finite duration"),
            ("inf", "not a finite duration"),
            ("-inf", "not a finite duration"),
            ("-1", "not a positive duration"),
            ("0", "not a positive duration"),
            ("0s", "not a positive duration"),
            ("-2m", "not a positive duration"),
            ("1e300", "longer than the limit"),
            ("101d", "longer than the limit"),
            ("soon", "not a duration"),
            ("", "not a duration"),
        ] {
            let e = parse_duration(s).expect_err(s);
            assert!(e.contains(why), "{s}: {e}");
        }
    }
}
