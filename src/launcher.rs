//! Opening a consented URL: implementations of
//! [`Launcher`].
//!
//! - [`SystemBrowser`]: the system browser through the `open` crate
//!   (`open::that_detached`: a detached launcher with no standard streams).
//! - [`CommandBrowser`]: `--browser CMD`. CMD is split into words with POSIX
//!   shell quoting rules (`shlex`: `'...'`, `"..."` and `\` quote; nothing is
//!   expanded: no variables, globs, pipes or redirections, and no shell is
//!   run). The first word is the program, the other words are its leading
//!   arguments, and the URL is appended as one final argument, so
//!   `--browser "firefox --new-window"` runs `firefox --new-window URL`.
//!   The program's standard input, output and error are null (standard output
//!   carries the result events and must stay clean).
//! - [`NoOpen`]: `--no-open`: consent is recorded, nothing is opened; the
//!   caller shows the URL for copying.
//!
//! Neither launcher passes on the environment variables the run read
//! secrets from ([`hide_from_children`]: `--header NAME: env:VAR`,
//! `--client-secret env:VAR`): a browser, and whatever it starts, never
//! inherits them.
//!
//! The answerers launch through the consent machine, and only through it,
//! which hands a launcher only the target of a URL its review found
//! openable. The launchers that start something ([`SystemBrowser`],
//! [`CommandBrowser`]) review what they are given once more, so a program
//! that calls one directly cannot open a `javascript:`, `file:` or other
//! refused URL either ([`LaunchError::Refused`]).

use std::process::{Child, Command, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// The environment variables this run read a secret from.
static SECRET_VARIABLES: Mutex<Vec<String>> = Mutex::new(Vec::new());

/// Keep the environment variable `name` from every program a launcher
/// starts (and so from everything those start): the run read a secret
/// from it (`--header NAME: env:VAR`, `--client-secret env:VAR`). The
/// process's own environment is left as it is.
pub fn hide_from_children(name: &str) {
    let mut v = SECRET_VARIABLES.lock().unwrap_or_else(|e| e.into_inner());
    if !v.iter().any(|n| n == name) {
        v.push(name.to_owned());
    }
}

/// `cmd` without the variables of [`hide_from_children`].
pub fn without_secrets(cmd: &mut Command) -> &mut Command {
    let v = SECRET_VARIABLES.lock().unwrap_or_else(|e| e.into_inner());
    for name in v.iter() {
        cmd.env_remove(name);
    }
    cmd
}

/// Why a reviewed URL is not opened at all ([`LaunchError::Refused`]).
pub use crate::url_review::Refusal;

/// Opens a consented URL: the system browser, a
/// `--browser CMD`, or nothing (`--no-open`).
pub trait Launcher: Send {
    /// Open `url`. Errors: why the browser could not start (its message is
    /// one sentence for the person).
    fn open(&mut self, url: &str) -> Result<(), LaunchError>;
}

/// Why a consented URL was not opened. Each message is one sentence for the
/// person (names from the command line pass through the sanitizer).
#[derive(Debug, thiserror::Error)]
pub enum LaunchError {
    /// The URL is not one that is opened (see [`Refusal`]).
    #[error("{}", .0.sentence())]
    Refused(Refusal),
    /// The review found no form of the URL to hand to a browser.
    #[error("the URL has no form that can be opened")]
    NoTarget,
    /// The system browser failed; `reason` is
    /// [`system_browser_failure`]'s sentence for `source`.
    #[error("{reason}; set one with --browser CMD, or copy the URL.")]
    SystemBrowser {
        /// The failure as a plain sentence.
        reason: String,
        /// The `open` crate's error.
        #[source]
        source: std::io::Error,
    },
    /// `--browser CMD` has an unclosed quote (`command` as shown).
    #[error("The browser command \"{command}\" has an unclosed quote.")]
    UnclosedQuote {
        /// CMD, sanitized.
        command: String,
    },
    /// `--browser CMD` has no words.
    #[error("The browser command is empty.")]
    EmptyCommand,
    /// The browser program could not be started.
    #[error("The browser command \"{program}\" could not be started: {source}.")]
    Start {
        /// The program, sanitized.
        program: String,
        /// The OS error.
        #[source]
        source: std::io::Error,
    },
    /// The browser program exited early with a failure status.
    #[error("The browser command \"{program}\" failed (exit status {code}).")]
    Failed {
        /// The program, sanitized.
        program: String,
        /// Its exit status.
        code: i32,
    },
    /// The browser program was killed by a signal before the check ended.
    #[error("The browser command \"{program}\" was killed by a signal.")]
    Killed {
        /// The program, sanitized.
        program: String,
    },
    /// Waiting on the browser program failed.
    #[error("The browser command \"{program}\" could not be watched: {source}.")]
    Watch {
        /// The program, sanitized.
        program: String,
        /// The OS error.
        #[source]
        source: std::io::Error,
    },
    /// The failure of a [`Launcher`] defined outside this module, kept as
    /// its own error (a sentence converts: `"...".into()`).
    #[error("{0}")]
    Other(#[source] Box<dyn std::error::Error + Send + Sync>),
}

/// How long a launcher is watched for an early failure (a missing browser,
/// a bad argument) before it is taken to have started. A browser command
/// that is still running then is left to run, and reaped in the background.
pub const LAUNCH_CHECK: Duration = Duration::from_secs(2);

/// The system browser, through the `open` crate.
#[derive(Debug, Default, Clone)]
pub struct SystemBrowser;

impl Launcher for SystemBrowser {
    /// The `open` crate's launchers for the platform (`xdg-open`, `gio`,
    /// ... on Linux), tried in order as `open::that_detached` tries them:
    /// one that is not installed or fails within [`LAUNCH_CHECK`] makes
    /// way for the next. Each is started as [`CommandBrowser`] starts its
    /// program (no standard streams, its own process group, no secret
    /// variables).
    fn open(&mut self, url: &str) -> Result<(), LaunchError> {
        refuse_unopenable(url)?;
        // The failure said: the first launcher that started and failed,
        // else why the last could not start (none is installed).
        let mut failed = None;
        let mut missing = None;
        for mut cmd in open::commands(url) {
            let program = cmd.get_program().to_string_lossy().into_owned();
            let shown = crate::safe_text::display(&program).into_owned();
            let child = match start(&mut cmd) {
                Ok(child) => child,
                Err(source) => {
                    missing = Some((system_browser_failure(&source), source));
                    continue;
                }
            };
            let why = match watch(child, &shown, LAUNCH_CHECK) {
                Ok(()) => return Ok(()),
                Err(LaunchError::Failed { code, .. }) => (
                    format!("The system browser ({shown}) failed (exit status {code})"),
                    std::io::Error::other(format!("{program} exited with status {code}")),
                ),
                Err(LaunchError::Killed { .. }) => (
                    format!("The system browser ({shown}) was killed by a signal"),
                    std::io::Error::other(format!("{program} was killed by a signal")),
                ),
                Err(e) => (
                    format!("The system browser ({shown}) could not be watched"),
                    std::io::Error::other(e.to_string()),
                ),
            };
            failed.get_or_insert(why);
        }
        let (reason, source) = failed.or(missing).unwrap_or_else(|| {
            (
                "The system browser could not be started: no launcher for this platform".into(),
                std::io::Error::from(std::io::ErrorKind::Unsupported),
            )
        });
        Err(LaunchError::SystemBrowser { reason, source })
    }
}

/// Start `cmd` as a browser: no standard streams (standard output carries
/// the result events), its own process group (a terminal signal meant for
/// us does not reach it), none of the secret variables.
fn start(cmd: &mut Command) -> std::io::Result<Child> {
    without_secrets(cmd)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt;
        cmd.process_group(0);
    }
    cmd.spawn()
}

/// Watch a started browser for `check`: its successful exit, or still
/// running then (a browser that stays in the foreground, reaped in the
/// background), is a launch.
///
/// Errors: it exited with a failure status or was killed within `check`,
/// or could not be watched.
fn watch(mut child: Child, shown: &str, check: Duration) -> Result<(), LaunchError> {
    let start = Instant::now();
    loop {
        match child.try_wait() {
            Ok(Some(status)) if status.success() => return Ok(()),
            Ok(Some(status)) => {
                return Err(match status.code() {
                    Some(code) => LaunchError::Failed {
                        program: shown.to_owned(),
                        code,
                    },
                    None => LaunchError::Killed {
                        program: shown.to_owned(),
                    },
                })
            }
            Ok(None) if start.elapsed() >= check => {
                std::thread::spawn(move || {
                    let _ = child.wait();
                });
                return Ok(());
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(10)),
            Err(source) => {
                return Err(LaunchError::Watch {
                    program: shown.to_owned(),
                    source,
                })
            }
        }
    }
}

/// Refuse a URL that the review refuses (not `https`/`http`, not a URL at
/// all, a script or file scheme): what the consent machine never hands a
/// launcher, checked again where something is started.
fn refuse_unopenable(url: &str) -> Result<(), LaunchError> {
    match crate::url_review::review(url).refusal {
        Some(r) => Err(LaunchError::Refused(r)),
        None => Ok(()),
    }
}

/// A plain sentence for a failure of the `open` crate, whose error text is
/// Rust debug output (`Launcher "xdg-open" "URL" failed with
/// ExitStatus(unix_wait_status(512))`): "The system browser (xdg-open)
/// failed (exit status 2)". Other errors keep their own text, with Rust's
/// "(os error N)" dropped.
pub fn system_browser_failure(e: &std::io::Error) -> String {
    let text = e.to_string();
    let Some(rest) = text.strip_prefix("Launcher ") else {
        let reason = match text.find(" (os error") {
            Some(i) => &text[..i],
            None => &text,
        };
        return format!(
            "The system browser could not be started: {}",
            crate::safe_text::display(reason)
        );
    };
    // The program is the first quoted word of the command.
    let program = rest
        .strip_prefix('"')
        .and_then(|r| r.split('"').next())
        .unwrap_or("launcher");
    let program = crate::safe_text::display(program);
    let status = rest
        .rsplit_once("unix_wait_status(")
        .and_then(|(_, n)| n.split(')').next())
        .and_then(|n| n.trim().parse::<i32>().ok());
    match status {
        Some(w) if w & 0x7f == 0 => format!(
            "The system browser ({program}) failed (exit status {})",
            (w >> 8) & 0xff
        ),
        Some(w) => format!(
            "The system browser ({program}) was killed by signal {}",
            w & 0x7f
        ),
        None => format!("The system browser ({program}) failed"),
    }
}

/// `--browser CMD`: run a program with the URL as its final argument (see
/// the module docs for how CMD is split).
#[derive(Debug, Clone)]
pub struct CommandBrowser {
    /// CMD as given on the command line.
    pub cmd: String,
    /// How long to watch for an early failure (default [`LAUNCH_CHECK`]).
    pub check: Duration,
}

impl CommandBrowser {
    /// A browser command with the default check period.
    pub fn new(cmd: impl Into<String>) -> Self {
        CommandBrowser {
            cmd: cmd.into(),
            check: LAUNCH_CHECK,
        }
    }

    /// CMD split into program and leading arguments.
    ///
    /// Errors: unbalanced quotes, or no program at all.
    pub fn words(&self) -> Result<Vec<String>, LaunchError> {
        let words = shlex::split(&self.cmd).ok_or_else(|| LaunchError::UnclosedQuote {
            command: crate::safe_text::display(&self.cmd).into_owned(),
        })?;
        if words.is_empty() {
            return Err(LaunchError::EmptyCommand);
        }
        Ok(words)
    }
}

impl Launcher for CommandBrowser {
    fn open(&mut self, url: &str) -> Result<(), LaunchError> {
        refuse_unopenable(url)?;
        let words = self.words()?;
        let program = &words[0];
        let shown = crate::safe_text::display(program).into_owned();
        let mut cmd = Command::new(program);
        cmd.args(&words[1..]).arg(url);
        let child = start(&mut cmd).map_err(|source| LaunchError::Start {
            program: shown.clone(),
            source,
        })?;
        watch(child, &shown, self.check)
    }
}

/// `--no-open`: records consent and opens nothing.
#[derive(Debug, Default, Clone)]
pub struct NoOpen {
    /// Every URL consented to, in order.
    pub consented: Vec<String>,
}

impl Launcher for NoOpen {
    fn open(&mut self, url: &str) -> Result<(), LaunchError> {
        self.consented.push(url.to_owned());
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(unix)]
    #[test]
    fn a_browser_command_never_inherits_a_secret_variable() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("env");
        // The variable this run read a secret from, and one it did not.
        std::env::set_var("AHP_ELICIT_TEST_SECRET_VAR", "s3cret");
        std::env::set_var("AHP_ELICIT_TEST_PLAIN_VAR", "plain");
        hide_from_children("AHP_ELICIT_TEST_SECRET_VAR");
        let cmd = format!("sh -c 'env > \"$0\"' {}", out.display());
        CommandBrowser::new(cmd)
            .open("https://example.com/")
            .unwrap();
        let env = std::fs::read_to_string(&out).unwrap();
        assert!(env.contains("AHP_ELICIT_TEST_PLAIN_VAR=plain"), "{env}");
        assert!(!env.contains("s3cret"), "{env}");
        let mut sh = Command::new("sh");
        without_secrets(&mut sh).args(["-c", "echo \"[$AHP_ELICIT_TEST_SECRET_VAR]\""]);
        assert_eq!(sh.output().unwrap().stdout, b"[]\n");
    }
    use crate::url_review::review;

    #[test]
    fn system_browser_failures_are_plain_sentences() {
        let e = std::io::Error::other(
            "Launcher \"xdg-open\" \"https://x.test/\" failed with ExitStatus(unix_wait_status(512))",
        );
        assert_eq!(
            system_browser_failure(&e),
            "The system browser (xdg-open) failed (exit status 2)"
        );
        let e = std::io::Error::other(
            "Launcher \"gio\" \"open\" \"u\" failed with ExitStatus(unix_wait_status(9))",
        );
        assert_eq!(
            system_browser_failure(&e),
            "The system browser (gio) was killed by signal 9"
        );
        let e = std::io::Error::from_raw_os_error(2);
        assert_eq!(
            system_browser_failure(&e),
            "The system browser could not be started: No such file or directory"
        );
    }

    /// A launcher that records what it was asked to open.
    #[derive(Default)]
    struct Recorder(Vec<String>);
    impl Launcher for Recorder {
        fn open(&mut self, url: &str) -> Result<(), LaunchError> {
            self.0.push(url.to_owned());
            Ok(())
        }
    }

    /// Consent to `url` through the consent machine (a script's: at once)
    /// and carry out its launch with `l`: the launcher's result.
    fn consent_and_launch(l: &mut dyn Launcher, url: &str) -> Result<(), LaunchError> {
        use crate::consent::{Consent, Input, Reader};
        let mut c = Consent::new(&review(url), Reader::Script);
        let step = c.input(Input::Consent, Instant::now());
        assert_eq!(step.effect.is_some(), c.openable(), "{url}");
        c.open_with(l, false).1
    }

    #[test]
    fn consent_opens_the_target_once() {
        let mut l = Recorder::default();
        consent_and_launch(&mut l, "https://a.example/cb?x=1#f").unwrap();
        assert_eq!(l.0, vec!["https://a.example/cb?x=1#f"]);
    }

    #[test]
    fn refused_schemes_are_never_launched() {
        let mut l = Recorder::default();
        for u in [
            "javascript:alert(1)",
            "file:///etc/passwd",
            "data:,x",
            "nope",
        ] {
            let e = consent_and_launch(&mut l, u).unwrap_err();
            assert!(matches!(e, LaunchError::Refused(_)), "{e:?}");
            let e = e.to_string();
            assert!(
                e.contains("only https and http URLs are opened") || e.contains("not a valid"),
                "{e}"
            );
        }
        assert!(l.0.is_empty());
    }

    /// Called directly, without the consent machine, the launchers that
    /// start something still refuse what the review refuses; an openable
    /// URL is handed on.
    #[test]
    fn a_launcher_called_directly_refuses_what_the_review_refuses() {
        for u in [
            "javascript:alert(1)",
            "file:///etc/passwd",
            "data:,x",
            "nope",
        ] {
            let e = CommandBrowser::new("true").open(u).unwrap_err();
            assert!(matches!(e, LaunchError::Refused(_)), "{u}: {e:?}");
            let e = SystemBrowser.open(u).unwrap_err();
            assert!(matches!(e, LaunchError::Refused(_)), "{u}: {e:?}");
        }
        CommandBrowser::new("true")
            .open("https://example.com/a?b=c")
            .expect("an openable URL is opened");
    }

    #[test]
    fn no_open_records_consent() {
        let mut l = NoOpen::default();
        consent_and_launch(&mut l, "https://a.example/").unwrap();
        assert_eq!(l.consented, vec!["https://a.example/"]);
    }

    #[test]
    fn command_words_are_split_without_a_shell() {
        let b = CommandBrowser::new("firefox --new-window 'My Profile' $HOME");
        assert_eq!(
            b.words().unwrap(),
            vec!["firefox", "--new-window", "My Profile", "$HOME"]
        );
        assert_eq!(
            CommandBrowser::new("x 'open")
                .words()
                .unwrap_err()
                .to_string(),
            "The browser command \"x 'open\" has an unclosed quote."
        );
        assert_eq!(
            CommandBrowser::new("  ").words().unwrap_err().to_string(),
            "The browser command is empty."
        );
    }
}
