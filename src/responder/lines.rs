//! Plain lines on the answering terminal, beside the full screen and
//! plain mode: the line I/O a lines job runs on ([`LineIo`], what a read
//! gave, [`Reply`]) and why a sign-in asked there ended ([`SignInError`]).
//! The command line's MCP sessions ask a sign-in this way
//! (`Responder::in_lines`); plain mode answers every request through a
//! [`LineIo`].

use std::time::{Duration, Instant};

use crate::responder::RespondError;

/// What one read gave.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reply {
    /// A typed line, without its line end.
    Line(String),
    /// Control-C: cancel the request (a second one soon after quits).
    Interrupt,
    /// Control-D on an empty line: decline the request.
    Eof,
    /// The `--timeout` deadline passed before a line was typed.
    TimedOut,
    /// A signal from outside (SIGTERM, SIGHUP, SIGINT, SIGQUIT): quit.
    Quit,
    /// The request's source withdrew it while the line was awaited (the
    /// server cancelled it, its stream closed): nothing is to be sent.
    Withdrawn,
}

/// Plain lines in, plain lines out: no cursor addressing, no colours.
pub trait LineIo {
    /// Write `text` followed by a line end. The caller has made any server
    /// text in it safe ([`crate::safe_text`]).
    ///
    /// Errors: the terminal cannot be written.
    fn say(&mut self, text: &str) -> Result<(), RespondError>;

    /// Write `prompt` (no line end) and read one line, waiting at most until
    /// `deadline`; while waiting, `withdrawn` is polled and a true answer
    /// ends the wait with [`Reply::Withdrawn`] (nothing typed is read then).
    ///
    /// Errors: the terminal cannot be read or was closed.
    fn ask(
        &mut self,
        prompt: &str,
        deadline: Option<Instant>,
        withdrawn: &dyn Fn() -> bool,
    ) -> Result<Reply, RespondError>;

    /// Throw away whatever was typed before now (typeahead meant for
    /// something else).
    fn discard_typeahead(&mut self);

    /// Wait up to `wait` for a Control-C or a signal while no request is
    /// shown: `Some(Reply::Interrupt)` or `Some(Reply::Quit)`, None when
    /// nothing of the kind happened. Typed lines are thrown away.
    fn wait(&mut self, wait: Duration) -> Option<Reply>;

    /// The time now, as this I/O reads it: when the URL was printed whole
    /// and when a line was typed, for the consent machine's grace period.
    /// The default is the system clock; a test's I/O may keep its own, so
    /// a test types "too soon" or "in time" without sleeping.
    fn now(&self) -> Instant {
        Instant::now()
    }

    /// Write `bytes` as they are, with no line end: the bell or a
    /// notification sequence that signals a waiting request (`--notify`).
    /// The default writes nothing.
    fn signal(&mut self, bytes: &[u8]) {
        let _ = bytes;
    }
}

/// Why a sign-in screen or opener did not show or open the authorization
/// URL, or ended the sign-in: one sentence for the person, each kind
/// keeping its cause. Never holds a secret (the authorization URL's review
/// sentences and the terminal's failures only).
#[derive(Debug, thiserror::Error)]
pub enum SignInError {
    /// The person cancelled: `sign-in to URL cancelled` ([`cancelled`]).
    #[error("{}", cancelled(.mcp_url))]
    Cancelled {
        /// The MCP server's URL, as given.
        mcp_url: String,
    },
    /// The terminal sign-in's review refuses the authorization URL (the
    /// review's sentence).
    #[error("the authorization URL is refused: {0}")]
    UrlRefused(String),
    /// The browser command's review refuses the authorization URL (the
    /// review's sentence).
    #[error("the URL is refused: {0}")]
    Refused(String),
    /// The browser could not be launched.
    #[error("{0}")]
    Launch(#[source] crate::launcher::LaunchError),
    /// The terminal failed while the sign-in was asked.
    #[error("the terminal failed: {0}")]
    Terminal(#[source] crate::responder::RespondError),
    /// The terminal could not be opened, or failed while showing the URL.
    #[error("{0}")]
    Lines(#[source] crate::responder::RespondError),
    /// The answering thread did not take the sign-in in time.
    #[error("the sign-in could not be asked on this terminal")]
    NotAsked,
    /// A sign-in handed to the answering thread was asked once already.
    #[error("the sign-in was already asked")]
    AlreadyAsked,
    /// The responder has no terminal.
    #[error("no terminal to sign in on")]
    NoTerminal,
    /// Neither a screen nor an opener was given.
    #[error("nothing to open the URL with")]
    NothingToOpen,
}

/// The error a sign-in the person cancelled ends with: `sign-in to URL
/// cancelled`, naming the MCP server (made safe for a terminal).
pub fn cancelled(mcp_url: &str) -> String {
    format!(
        "sign-in to {} cancelled",
        crate::safe_text::display(mcp_url)
    )
}
