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
//! The answerers launch through the consent machine, and only through it,
//! which hands a launcher only the target of a URL its review found
//! openable. The launchers that start something ([`SystemBrowser`],
//! [`CommandBrowser`]) review what they are given once more, so a program
//! that calls one directly cannot open a `javascript:`, `file:` or other
//! refused URL either ([`LaunchError::Refused`]).

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

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
    fn open(&mut self, url: &str) -> Result<(), LaunchError> {
        refuse_unopenable(url)?;
        open::that_detached(url).map_err(|source| LaunchError::SystemBrowser {
            reason: system_browser_failure(&source),
            source,
        })
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
        cmd.args(&words[1..])
            .arg(url)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        #[cfg(unix)]
        {
            use std::os::unix::process::CommandExt;
            // Its own process group: a terminal signal meant for us does not
            // reach the browser.
            cmd.process_group(0);
        }
        let mut child = cmd.spawn().map_err(|source| LaunchError::Start {
            program: shown.clone(),
            source,
        })?;
        let start = Instant::now();
        loop {
            match child.try_wait() {
                Ok(Some(status)) if status.success() => return Ok(()),
                Ok(Some(status)) => {
                    return Err(match status.code() {
                        Some(code) => LaunchError::Failed {
                            program: shown,
                            code,
                        },
                        None => LaunchError::Killed { program: shown },
                    })
                }
                Ok(None) if start.elapsed() >= self.check => {
                    // Still running: a browser that stays in the foreground.
                    std::thread::spawn(move || {
                        let _ = child.wait();
                    });
                    return Ok(());
                }
                Ok(None) => std::thread::sleep(Duration::from_millis(10)),
                Err(source) => {
                    return Err(LaunchError::Watch {
                        program: shown,
                        source,
                    })
                }
            }
        }
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
