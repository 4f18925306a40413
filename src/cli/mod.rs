//! The command line (the binary's part of the crate, only with the `cli`
//! feature): clap definitions and dispatch. Each command lives in
//! its own module with its `Args` and a `run` returning the [`Exit`]
//! status. The pieces several commands share are here and in [`answer`]:
//! the answering flags, bounded reading of `FILE` or `-`, the violation
//! printer, the exit statuses.
//!
//! Exit codes: 0 ok; 1 invalid input or a refused answer;
//! 2 usage or I/O error, or no terminal; 3 a sign-in to a remote MCP
//! server is needed or failed; 130 quit with Ctrl-C twice;
//! 128+N ended by signal N.

use std::io::Read;
use std::path::Path;

use clap::{Parser, Subcommand};

use crate::binding::Violation;
use crate::safe_text::display;

/// `println!` for the commands' stdout that never panics: see
/// [`out_or_exit`].
macro_rules! outln {
    ($($t:tt)*) => {
        $crate::cli::out_or_exit(&format!("{}\n", format_args!($($t)*)))
    };
}

/// `print!` for the commands' stdout that never panics: see
/// [`out_or_exit`].
macro_rules! out {
    ($($t:tt)*) => {
        $crate::cli::out_or_exit(&format!($($t)*))
    };
}

pub mod answer;
pub mod answers;
pub mod auth;
pub mod capabilities;
pub mod demo;
pub mod grant;
pub mod mcp;
pub mod modify;
pub mod respond;
pub mod servers_config;
pub mod upstream;
pub mod validate;
pub mod wrap;

/// A pinned MCP revision on the command line (`--protocol-version`): the
/// pinned versions are the possible values, listed in `--help`, the manual
/// page and the completions.
pub(crate) fn revision_parser(
) -> impl clap::builder::TypedValueParser<Value = crate::binding::Revision> {
    use crate::binding::Revision;
    use clap::builder::TypedValueParser as _;
    clap::builder::PossibleValuesParser::new(Revision::ALL.iter().map(|r| r.as_str()))
        .map(|s: String| Revision::parse(&s).unwrap_or(Revision::DEFAULT))
}

/// The exit status of a command.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exit {
    /// 0: success.
    Ok,
    /// 1: invalid input, or an answer or effect that was refused.
    Invalid,
    /// 2: usage or I/O error, or no terminal.
    Usage,
    /// 3: a sign-in (OAuth) is needed and could not be made, or failed.
    SignIn,
    /// 130: the person quit (Ctrl-C twice), as after an interrupt.
    Interrupted,
    /// 128 + N: ended by signal N (SIGTERM: 143), as a signal ends a
    /// process.
    Signal(i32),
}

impl Exit {
    /// The process exit code.
    pub fn code(self) -> u8 {
        match self {
            Exit::Ok => 0,
            Exit::Invalid => 1,
            Exit::Usage => 2,
            Exit::SignIn => 3,
            Exit::Interrupted => 130,
            // Signal numbers are small; a number past 127 cannot be one.
            Exit::Signal(n) => u8::try_from(128 + n).unwrap_or(130),
        }
    }
}

impl From<Exit> for std::process::ExitCode {
    fn from(e: Exit) -> Self {
        std::process::ExitCode::from(e.code())
    }
}

/// Read `path`, or stdin when it is `-`, keeping at most `cap + 1` bytes:
/// enough for a parser to see that the input is over the cap, without
/// reading an endless input to its end. A UTF-8 byte order mark at the
/// start is dropped.
///
/// Errors: "cannot read the WHAT PATH: reason" (PATH "from stdin" for `-`,
/// sanitized; the reason without Rust's "(os error N)").
pub fn read_input(path: &Path, cap: usize, what: &str) -> Result<Vec<u8>, String> {
    let mut bytes = Vec::new();
    let limit = u64::try_from(cap).unwrap_or(u64::MAX).saturating_add(1);
    let (res, shown) = if path.as_os_str() == "-" {
        let r = std::io::stdin().lock().take(limit).read_to_end(&mut bytes);
        (r, "from stdin".to_owned())
    } else {
        let r = std::fs::File::open(path).and_then(|f| f.take(limit).read_to_end(&mut bytes));
        (r, display(&path.display().to_string()).into_owned())
    };
    match res {
        Ok(_) => {
            // A byte order mark at the start is read past.
            let skip = bytes.len() - crate::stream::without_bom(&bytes).len();
            bytes.drain(..skip);
            Ok(bytes)
        }
        Err(e) => Err(format!(
            "cannot read the {what} {shown}: {}",
            crate::files::io_reason(&e)
        )),
    }
}

/// Say `heading` for `command` ("ahp-elicit COMMAND: heading"), then
/// each violation on its own indented line (`pointer [rule] message`,
/// server text sanitized), as one message.
pub fn print_violations(command: &str, heading: &str, errs: &[Violation]) {
    let lines: Vec<String> = errs.iter().map(|e| e.to_string()).collect();
    crate::notice::say_list(Some(command), heading, &lines);
}

/// `values` without repeats, in their first order (`--modes form,form`).
pub fn unique<T: PartialEq + Copy>(values: &[T]) -> Vec<T> {
    let mut out = Vec::new();
    for v in values {
        if !out.contains(v) {
            out.push(*v);
        }
    }
    out
}

/// A clap value parser for one word of a [`clap::ValueEnum`] (surrounding
/// blanks ignored): `--help` and the completions list the words, and a
/// wrong one is refused as "'x' is not form or url".
#[derive(Debug, Clone, Copy, Default)]
pub struct Words<T>(std::marker::PhantomData<T>);

impl<T> Words<T> {
    /// The parser.
    pub fn new() -> Self {
        Words(std::marker::PhantomData)
    }
}

impl<T: clap::ValueEnum + Clone + Send + Sync + 'static> clap::builder::TypedValueParser
    for Words<T>
{
    type Value = T;

    fn parse_ref(
        &self,
        _cmd: &clap::Command,
        _arg: Option<&clap::Arg>,
        value: &std::ffi::OsStr,
    ) -> Result<T, clap::Error> {
        let v = value.to_string_lossy();
        if let Ok(t) = T::from_str(v.trim(), false) {
            return Ok(t);
        }
        let words: Vec<String> = T::value_variants()
            .iter()
            .filter_map(|t| t.to_possible_value())
            .map(|p| p.get_name().to_owned())
            .collect();
        let list = match words.as_slice() {
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
            T::value_variants()
                .iter()
                .filter_map(|t| t.to_possible_value()),
        ))
    }
}

/// The longest duration a flag takes (100 days): beyond it a deadline
/// means nothing, and the clock arithmetic stays far from overflow.
pub const MAX_DURATION: std::time::Duration = std::time::Duration::from_secs(100 * 24 * 3600);

/// The built-in theme names (`crate::tui::theme::BUILTIN`), offered by the
/// shell completions for `--theme`.
pub const THEME_NAMES: [&str; 4] = ["default", "light", "high-contrast", "monochrome"];

/// `--theme NAME|PATH`: any text is taken (a built-in name or a theme
/// file, checked when the theme is loaded), and the completions offer the
/// built-in names ([`THEME_NAMES`]) rather than files.
#[derive(Debug, Clone, Copy, Default)]
pub struct ThemeArg;

impl clap::builder::TypedValueParser for ThemeArg {
    type Value = String;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &std::ffi::OsStr,
    ) -> Result<String, clap::Error> {
        clap::builder::StringValueParser::new().parse_ref(cmd, arg, value)
    }

    fn possible_values(
        &self,
    ) -> Option<Box<dyn Iterator<Item = clap::builder::PossibleValue> + '_>> {
        Some(Box::new(
            THEME_NAMES
                .iter()
                .map(|n| clap::builder::PossibleValue::new(*n)),
        ))
    }
}

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
    after_help = "Exit status: 0 ok, 1 invalid input or a refused answer, 2 usage or I/O error (or no terminal), 3 a sign-in failed (mcp, auth login), 130 quit with Ctrl-C twice. Each command's --help gives its own.\n\nScreen reader? Answer line by line with --plain (respond, demo, mcp)."
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
    Mcp(Box<mcp::McpArgs>),
    /// Check an answers file (--answers) and dry-run it on request events.
    #[command(subcommand)]
    Answers(answers::AnswersCommand),
    /// Sign in to remote MCP servers (OAuth), list the stored sign-ins,
    /// sign out.
    #[command(
        subcommand,
        after_help = "Exit status: 0 done; 1 no sign-in stored for the URL given (status, logout); 2 usage, a connection error or an unsafe store file; 3 the sign-in failed or could not start (login)."
    )]
    Auth(auth::AuthCommand),
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

fn completions(shell: clap_complete::Shell) -> Exit {
    let mut cmd = command();
    // Into memory first: the generator panics on a write error (a closed
    // pipe), and a closed pipe is not worth a panic.
    let mut out = Vec::new();
    clap_complete::generate(shell, &mut cmd, "ahp-elicit", &mut out);
    if shell == clap_complete::Shell::Bash {
        out = fix_bash_names(&out);
    }
    write_stdout(&out, "the completion script")
}

/// clap_complete's bash script names a subcommand's state twice, and
/// differently for a hyphenated binary: the loop that reads the words sets
/// `ahp__elicit__subcmd__respond`, the switch that offers the options
/// expects `ahp__subcmd__elicit__subcmd__respond`, so no subcommand's
/// options were ever offered. One spelling, the loop's, for both.
fn fix_bash_names(script: &[u8]) -> Vec<u8> {
    String::from_utf8_lossy(script)
        .replace("ahp__subcmd__elicit", "ahp__elicit")
        .into_bytes()
}

/// Write `text` to stdout. Errors: a closed pipe is [`Exit::Usage`]
/// quietly (the reader went away: nothing more can be delivered, as
/// `respond` ends); any other write error is said on stderr and is
/// [`Exit::Usage`] too.
pub fn out_text(text: &str) -> Result<(), Exit> {
    use std::io::Write;
    let mut stdout = std::io::stdout().lock();
    match stdout
        .write_all(text.as_bytes())
        .and_then(|_| stdout.flush())
    {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Err(Exit::Usage),
        Err(e) => {
            crate::notice::say(format!("cannot write to stdout: {e}"));
            Err(Exit::Usage)
        }
    }
}

/// [`out_text`], ending the process with exit 2 when stdout cannot be
/// written (used by the commands that hold no terminal and no messages:
/// nothing is left to restore or to say).
pub fn out_or_exit(text: &str) {
    if out_text(text).is_err() {
        std::process::exit(2);
    }
}

/// Write `bytes` to stdout; a closed pipe ends quietly with exit 0.
fn write_stdout(bytes: &[u8], what: &str) -> Exit {
    use std::io::Write;
    let mut stdout = std::io::stdout();
    match stdout.write_all(bytes).and_then(|_| stdout.flush()) {
        Ok(()) => Exit::Ok,
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Exit::Ok,
        Err(e) => {
            crate::notice::say(format!("cannot write {what}: {e}"));
            Exit::Usage
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
fn man(dir: Option<&std::path::Path>) -> Exit {
    if let Some(dir) = dir {
        let written = std::fs::create_dir_all(dir)
            .and_then(|()| clap_mangen::generate_to(man_command(), dir));
        return match written {
            Ok(()) => Exit::Ok,
            Err(e) => {
                crate::notice::say(format!(
                    "cannot write the manual pages into {}: {e}",
                    display(&dir.display().to_string())
                ));
                Exit::Usage
            }
        };
    }
    let mut pages = Vec::new();
    man_pages(&man_command(), &mut pages);
    let mut out = Vec::new();
    for page in pages {
        if let Err(e) = clap_mangen::Man::new(page).render(&mut out) {
            crate::notice::say(format!("cannot render the manual page: {e}"));
            return Exit::Usage;
        }
    }
    write_stdout(&out, "the manual pages")
}

/// The program: parse the process's command line (clap prints usage and
/// exits 2 on a usage error), run the command, and return its exit status.
pub fn main() -> std::process::ExitCode {
    if let Some(a) = demo::parse_alone(std::env::args_os()) {
        return std::process::ExitCode::from(demo::run(a));
    }
    let cli = Cli::parse();
    std::process::ExitCode::from(run(cli))
}

/// Run one parsed command line; returns the process exit code.
pub fn run(cli: Cli) -> Exit {
    match cli.command {
        Command::Respond(a) => respond::run(a),
        Command::Demo(a) => demo::run(a),
        Command::Validate(a) => validate::run(a),
        Command::Modify(a) => modify::run(a),
        Command::Capabilities(a) => capabilities::run(a),
        Command::Wrap(a) => wrap::run(a),
        Command::Upstream(c) => upstream::run(c),
        Command::Mcp(a) => mcp::run(*a),
        Command::Answers(c) => answers::run(c),
        Command::Auth(c) => auth::run(c),
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
        assert_eq!(man(Some(&at)), Exit::Ok);
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
        assert_eq!(named.len(), 20, "{named:?}");
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

#[cfg(test)]
mod shared_tests {
    use super::*;
    use crate::binding::Mode;
    use clap::builder::TypedValueParser;

    #[test]
    fn exit_codes_are_the_documented_numbers() {
        assert_eq!(Exit::Ok.code(), 0);
        assert_eq!(Exit::Invalid.code(), 1);
        assert_eq!(Exit::Usage.code(), 2);
        assert_eq!(Exit::Interrupted.code(), 130);
        assert_eq!(Exit::Signal(15).code(), 143);
        assert_eq!(Exit::Signal(1).code(), 129);
    }

    #[test]
    fn read_input_names_the_path_and_stops_past_the_cap() {
        let e = read_input(Path::new("/nonexistent/in.json"), 10, "request file").unwrap_err();
        assert_eq!(
            e,
            "cannot read the request file /nonexistent/in.json: no such file or directory"
        );
        let dir = tempfile::tempdir().expect("tempdir");
        let p = dir.path().join("big.json");
        std::fs::write(&p, vec![b' '; 100]).expect("write");
        assert_eq!(read_input(&p, 10, "event").expect("read").len(), 11);
        assert_eq!(read_input(&p, 1000, "event").expect("read").len(), 100);
    }

    #[test]
    fn words_trims_and_refuses_with_the_list() {
        let cmd = clap::Command::new("t");
        let w = Words::<Mode>::new();
        let parse = |s: &str| w.parse_ref(&cmd, None, std::ffi::OsStr::new(s));
        assert_eq!(parse(" url ").expect("url"), Mode::Url);
        assert_eq!(parse("form").expect("form"), Mode::Form);
        let e = parse("fax").expect_err("fax").to_string();
        assert!(e.contains("'fax' is not form or url"), "{e}");
    }

    #[test]
    fn unique_keeps_the_first_order() {
        assert_eq!(
            unique(&[Mode::Url, Mode::Form, Mode::Url]),
            vec![Mode::Url, Mode::Form]
        );
    }

    /// The long flags of a command's help, in the order shown.
    fn shown_flags(path: &[&str]) -> Vec<String> {
        let mut cmd = command();
        cmd.build();
        let mut sub = &mut cmd;
        for name in path {
            sub = sub.find_subcommand_mut(name).expect("subcommand");
        }
        let help = sub.render_long_help().to_string();
        help.lines()
            .filter_map(|l| {
                let l = l.trim_start();
                let l = l.strip_prefix("-o, ").unwrap_or(l);
                let l = l.strip_prefix("-q, ").unwrap_or(l);
                l.strip_prefix("--")
                    .map(|f| f.split([' ', '=']).next().unwrap_or(f).to_owned())
            })
            .collect()
    }

    /// The shared answering flags keep each command's own order in --help.
    #[test]
    fn shared_flags_keep_each_commands_order() {
        assert_eq!(
            shown_flags(&["respond"]),
            [
                "output",
                "theme",
                "answers",
                "action",
                "source-adapter",
                "timeout",
                "modes",
                "browser",
                "no-open",
                "log",
                "log-values",
                "plain",
                "notify",
                "schema-policy"
            ]
        );
        assert_eq!(
            shown_flags(&["mcp"]),
            [
                "call",
                "arg",
                "args",
                "prompt",
                "read",
                "answers",
                "action",
                "events",
                "modes",
                "protocol",
                "max-rounds",
                "header",
                "allow-insecure-http",
                "stored-auth-only",
                "wait-for-sign-in",
                "root",
                "browser",
                "no-open",
                "plain",
                "theme",
                "schema-policy",
                "timeout",
                "call-timeout",
                "connect-timeout",
                "notify",
                "quiet",
                "source-adapter",
                "log",
                "log-values",
                "auth-store",
                "account",
                "scope",
                "client-id",
                "client-secret",
                "client-metadata-url",
                "auth-timeout",
                "callback-port",
                "grant",
                "client-auth",
                "client-key",
                "client-key-alg",
                "assertion",
                "idp-token-endpoint",
                "idp-client-id",
                "idp-client-secret",
                "id-token"
            ]
        );
    }
}
