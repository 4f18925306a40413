//! The answering flags that `respond` and `mcp` share (one [`AnswerArgs`],
//! flattened into both), and the responder and log they build.
//!
//! Each flag keeps its place in each command's `--help`: the fields carry
//! the display order of `respond`, and `mcp` moves and rewords a few of them
//! with `mut_arg`.

use std::path::PathBuf;

use crate::binding::Action;
use crate::launcher::Launcher;
use crate::launcher::{CommandBrowser, NoOpen, NoOpenWhy, SystemBrowser};
use crate::log::{LoggingLauncher, SharedLog};
use crate::notice::Notices;
use crate::responder::{RespondError, Responder};

/// How requests are answered: by a person on the terminal (full screen or
/// plain), or by a script (`--answers`, `--action`); where a consented URL
/// is opened; what is logged.
#[derive(Debug, Clone, clap::Args)]
pub struct AnswerArgs {
    /// Theme: default, light, high-contrast, monochrome, or a TOML file
    /// (PATH). NO_COLOR selects monochrome unless a theme is given.
    #[arg(long, value_name = "NAME|PATH", value_parser = super::ThemeArg, hide_possible_values = true, display_order = 20)]
    pub theme: Option<String>,
    /// Answer from a file instead of a terminal: {"action":..,"content":{..}}
    /// for every request, an object keyed by request event id, or
    /// {"rules":[{"match":{..},"answer":{..}},..]} (the first matching rule
    /// answers; see `ahp-elicit answers check`).
    #[arg(long, conflicts_with = "action", display_order = 30)]
    pub answers: Option<PathBuf>,
    /// Answer every request with this action, without a terminal (accept
    /// submits a form as shown, defaults pre-filled; on a URL request it is
    /// consent to open).
    #[arg(long, value_enum, display_order = 40)]
    pub action: Option<Action>,
    /// Open consented URLs with CMD (no shell; the URL is added as its last argument) instead of the
    /// system browser.
    #[arg(
        long,
        value_name = "CMD",
        value_parser = browser_command,
        conflicts_with = "no_open",
        display_order = 80
    )]
    pub browser: Option<String>,
    /// Never open a URL: show it for copying; consent is still recorded.
    /// Also the way without --browser where no browser can open (no
    /// display, an SSH session).
    #[arg(long, display_order = 90)]
    pub no_open: bool,
    /// Log events and decisions (JSON Lines) to FILE; URL queries and
    /// fragments redacted, no form values.
    #[arg(long, value_name = "FILE", display_order = 100)]
    pub log: Option<PathBuf>,
    /// With --log, also log form values.
    #[arg(long, requires = "log", display_order = 110)]
    pub log_values: bool,
    /// Plain mode: ask line by line (screen readers, dumb terminals); also
    /// chosen by TERM=dumb or AHP_ELICIT_PLAIN=1.
    #[arg(long, display_order = 120)]
    pub plain: bool,
    /// How a request that arrives after the screen waited (2 s or more) is
    /// signalled: the terminal bell, a desktop notification through the
    /// terminal (OSC 9 / OSC 777, and the bell), or nothing; with bell or
    /// osc the window title says a request is waiting.
    #[arg(
        long,
        value_enum,
        value_name = "HOW",
        default_value = "bell",
        display_order = 125
    )]
    pub notify: crate::responder::notify::Notify,
}

/// `--browser CMD` checked when the command line is read: a value that
/// could never run (empty, an unclosed quote) is a usage error at startup
/// (exit 2, naming the flag and why), not a failure at the first URL.
pub(crate) fn browser_command(cmd: &str) -> Result<String, String> {
    CommandBrowser::new(cmd)
        .words()
        .map(|_| cmd.to_owned())
        .map_err(|e| e.to_string())
}

impl AnswerArgs {
    /// A person answers (no `--answers`, no `--action`).
    pub fn interactive(&self) -> bool {
        self.answers.is_none() && self.action.is_none()
    }

    /// The `--log` file, opened (None without `--log`).
    ///
    /// Errors: the file cannot be created; the sentence names it.
    pub fn open_log(&self) -> Result<Option<SharedLog>, String> {
        match &self.log {
            Some(p) => match crate::log::EventLog::open(p, self.log_values) {
                Ok(l) => Ok(Some(crate::log::share_log(l))),
                Err(e) => Err(e.to_string()),
            },
            None => Ok(None),
        }
    }

    /// Hold stderr notices while a person answers on the terminal (they are
    /// written when the returned guard drops, after the screen is given
    /// back). Declare the guard before the responder.
    pub fn hold_stderr(&self) -> crate::notice::HoldStderr {
        crate::notice::HoldStderr::start(
            self.interactive() && std::io::IsTerminal::is_terminal(&std::io::stderr()),
        )
    }

    /// Build the responder: scripted with `--answers`/`--action`, else the
    /// terminal (plain with `--plain` or TERM=dumb). Launches are logged
    /// to `log`.
    ///
    /// Errors: a sentence for the person (unknown theme, unreadable answers
    /// file, no terminal).
    pub fn responder(&self, log: Option<SharedLog>) -> Result<Box<dyn Responder>, String> {
        check_theme(self.theme.as_deref())?;
        let scripted = match (&self.answers, self.action) {
            (Some(path), _) => {
                let s = crate::scripted::ScriptedResponder::from_file(path)
                    .map_err(|e| e.to_string())?;
                Some(match &log {
                    Some(log) => s.with_rule_trace(rule_trace(log.clone())),
                    None => s,
                })
            }
            (None, Some(a)) => Some(crate::scripted::ScriptedResponder::from_action(a)),
            (None, None) => None,
        };
        let no_open = self.no_open_why(scripted.is_some());
        let launcher = self.launcher(scripted.is_some(), no_open, log);
        let made = match scripted {
            Some(s) => return Ok(Box::new(s.with_launcher(launcher))),
            // Plain mode: line by line on the terminal (--plain, TERM=dumb).
            None if crate::plain::chosen(self.plain) => {
                crate::plain::tty_responder(launcher, no_open, self.notify())
            }
            None => return terminal_responder(self, launcher, no_open),
        };
        made.map_err(|e| with_no_terminal_hint(&e, NO_TERMINAL_HINT))
    }

    /// `--notify`, for plain mode.
    fn notify(&self) -> crate::responder::notify::Notify {
        self.notify
    }

    /// Why a person's consent shows the URL for copying instead of
    /// opening it: `--no-open`, or (without `--browser CMD`) a machine
    /// where no browser can be opened ([`NoOpenWhy::of_this_machine`]: no
    /// display, an SSH session). None with `--browser CMD` (the command
    /// runs) and for a script (`scripted`), which opens only with it.
    fn no_open_why(&self, scripted: bool) -> Option<NoOpenWhy> {
        match &self.browser {
            Some(_) => None,
            None if self.no_open => Some(NoOpenWhy::Asked),
            None if scripted => None,
            None => NoOpenWhy::of_this_machine(),
        }
    }

    /// `--browser CMD`, else nothing when the URL is only shown
    /// (`no_open`: [`AnswerArgs::no_open_why`]) or for a script (scripted
    /// consent runs --browser if given and opens nothing otherwise), else
    /// the system browser; logged when there is a log.
    fn launcher(
        &self,
        scripted: bool,
        no_open: Option<NoOpenWhy>,
        log: Option<SharedLog>,
    ) -> Box<dyn Launcher> {
        let (inner, name): (Box<dyn Launcher>, &'static str) = match &self.browser {
            Some(cmd) => (
                Box::new(CommandBrowser::new(cmd.clone())),
                "browser-command",
            ),
            None if no_open.is_some() => (Box::new(NoOpen::default()), "no-open"),
            None if scripted => (Box::new(ScriptNoOpen), "no-open"),
            None => (Box::new(SystemBrowser), "system-browser"),
        };
        match log {
            Some(log) => Box::new(LoggingLauncher {
                inner,
                name,
                log,
                notices: Notices::stderr(),
            }),
            None => inner,
        }
    }
}

/// A script's launcher without `--browser`: the consent is passed on and
/// nothing is opened, which stderr says (the URL is not quoted: it may
/// carry a secret).
struct ScriptNoOpen;

impl Launcher for ScriptNoOpen {
    fn open(&mut self, _url: &str) -> Result<(), crate::launcher::LaunchError> {
        crate::notice::say(
            "a URL request was accepted, but nothing was opened: scripted answers open a URL only with --browser CMD",
        );
        Ok(())
    }
}

/// Record in the log which rule answered each request, or, per rule, the
/// keys that did not hold.
fn rule_trace(log: SharedLog) -> crate::scripted::RuleTrace {
    Box::new(move |req, chosen| {
        let mut l = crate::log::lock_log(&log);
        let written = match chosen {
            Ok(rule) => l.rule_chosen(&req.id, &rule.pointer(), rule.name.as_deref()),
            Err(none) => {
                let misses: Vec<(String, Vec<&str>)> = none
                    .misses
                    .iter()
                    .map(|(_, ptr, ms)| (ptr.clone(), ms.iter().map(|m| m.key()).collect()))
                    .collect();
                l.no_rule(&req.id, &misses)
            }
        };
        if let Err(e) = written {
            crate::notice::say(format!("cannot write the log: {e}"));
        }
    })
}

/// Refuse an unknown `--theme` in every mode (a scripted run draws
/// nothing, but a typo must not pass silently).
///
/// Errors: the theme is neither built in nor a readable theme file.
pub fn check_theme(arg: Option<&str>) -> Result<(), String> {
    match arg {
        Some(_) => crate::tui::theme::Theme::resolve(arg, false)
            .map(|_| ())
            .map_err(|e| e.to_string()),
        None => Ok(()),
    }
}

/// What `respond` and `mcp` say a person without a terminal can do.
pub const NO_TERMINAL_HINT: &str = "use --answers FILE or --action to answer without one";

/// `e` as the person reads it (with its causes), and `hint` after it when
/// `e` says there is no terminal.
pub fn with_no_terminal_hint(e: &RespondError, hint: &str) -> String {
    let text = crate::notice::chain(e);
    match e {
        RespondError::NoTerminal { .. } | RespondError::NoFrontEnd => format!("{text}; {hint}"),
        _ => text,
    }
}

/// The full-screen responder with the chosen theme.
///
/// Errors: a sentence for the person (the theme, no terminal with the
/// hint).
fn terminal_responder(
    args: &AnswerArgs,
    launcher: Box<dyn Launcher>,
    no_open: Option<NoOpenWhy>,
) -> Result<Box<dyn Responder>, String> {
    use crate::tui::theme::Theme;
    let theme = Theme::resolve_for_terminal(args.theme.as_deref()).map_err(|e| e.to_string())?;
    let tui = crate::tui::TuiResponder::new(theme)
        .map_err(|e| with_no_terminal_hint(&e, NO_TERMINAL_HINT))?;
    Ok(Box::new(
        tui.with_launcher(launcher, no_open.is_some())
            .showing_urls_for(no_open)
            .with_notices(Notices::stderr())
            .with_notify(args.notify),
    ))
}
