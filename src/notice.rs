//! Messages for the person on stderr: the one path every message takes.
//! It adds the program's prefix ("ahp-elicit: ", or "ahp-elicit mcp: "
//! for a command; callers never type it), sanitizes every line, holds
//! messages back while the terminal UI owns the screen (a message written
//! then would land on the alternate screen, garble the frame and vanish on
//! exit) and writes them, in the order they were said, once the terminal
//! is given back. It is the only writer to stderr; a closed stderr drops
//! the message instead of panicking. Errors are said with their causes
//! ([`chain`]).
//!
//! Library code does not write here itself: it reports through the
//! [`Notices`] handle its caller gives it (in `respond`'s `Config`, in
//! `McpOptions`). The binary passes [`Notices::stderr`], which writes or
//! holds as below; a library user or a test can pass
//! [`Notices::collect`] and read the notices back.
//!
//! What is held is bounded: at most [`MAX_HELD`] messages and
//! [`MAX_HELD_BYTES`] bytes; later ones are counted, and written as one
//! "N more messages" line, so a flood of bad input cannot fill memory.

/// At most this many messages are held.
pub const MAX_HELD: usize = 200;
/// At most this many bytes of messages are held.
pub const MAX_HELD_BYTES: usize = 256 * 1024;

/// Messages held while the terminal UI is on screen.
#[derive(Debug, Default)]
struct Held {
    msgs: Vec<String>,
    bytes: usize,
    /// Messages not kept (over a bound).
    more: usize,
    /// The latest message's first line, clipped (kept or not).
    latest: String,
}

/// Unit tests that hold messages take this lock: holding is process-wide.
#[cfg(test)]
pub(crate) static TEST_LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// Messages held back while the terminal UI owns the screen (see
/// [`HoldStderr`]); `None`: write at once.
static HELD: std::sync::Mutex<Option<Held>> = std::sync::Mutex::new(None);

/// The program's name: every message to the person opens with it
/// ("ahp-elicit: ..."), added here and nowhere else.
pub const PROGRAM: &str = "ahp-elicit";

/// `msg` as the person reads it: "ahp-elicit: msg", or with a command
/// ("ahp-elicit mcp: msg"). Only the first line gets the prefix: later
/// lines continue the message (indented lists).
fn voiced(command: Option<&str>, msg: &str) -> String {
    match command {
        Some(c) => format!("{PROGRAM} {c}: {msg}"),
        None => format!("{PROGRAM}: {msg}"),
    }
}

/// Say `msg` to the person: "ahp-elicit: msg" on stderr, or held while
/// [`HoldStderr`] is active, so messages come out in the order they were
/// said. Every line goes through the sanitizer
/// ([`crate::safe_text::display_lines`]): messages quote server text (ids,
/// property names, details), which must never reach the terminal raw.
pub fn say(msg: impl std::fmt::Display) {
    write_or_hold(crate::safe_text::display_lines(&voiced(
        None,
        &msg.to_string(),
    )));
}

/// [`say`] for one command: "ahp-elicit COMMAND: msg".
pub fn say_in(command: &str, msg: impl std::fmt::Display) {
    write_or_hold(crate::safe_text::display_lines(&voiced(
        Some(command),
        &msg.to_string(),
    )));
}

/// Say `heading`, then each of `lines` indented by two spaces below it,
/// as one message (held and written together).
pub fn say_list(command: Option<&str>, heading: &str, lines: &[String]) {
    let mut msg = voiced(command, heading);
    for l in lines {
        msg.push_str("\n  ");
        msg.push_str(l);
    }
    write_or_hold(crate::safe_text::display_lines(&msg));
}

/// An error as the person reads it: its own sentence, then each source it
/// names (`std::error::Error::source`) after a colon, outermost first:
/// "the responder failed: terminal: draw: Input/output error (os error 5)".
/// A source whose sentence the message already carries is not repeated:
/// most errors here quote their cause in their own sentence (so `to_string`
/// alone says the whole), some in the short form of
/// [`crate::files::io_reason`] (lower case, without "(os error N)").
///
/// The comparison is of the text as shown: a sentence that quotes its cause
/// made safe for the terminal (`\u{202e}` for a bidi override) carries the
/// cause all the same.
pub fn chain(e: &(dyn std::error::Error + 'static)) -> String {
    let shown = |t: &str| crate::safe_text::display(t).to_lowercase();
    let mut out = e.to_string();
    let mut next = e.source();
    while let Some(s) = next {
        let text = s.to_string();
        let short = shown(text.split(" (os error").next().unwrap_or(""));
        if !short.is_empty() && !shown(&out).contains(&short) {
            out.push_str(": ");
            out.push_str(&text);
        }
        next = s.source();
    }
    out
}

/// Write one sanitized message to stderr, or hold it while [`HoldStderr`]
/// is active.
fn write_or_hold(msg: String) {
    // A credential the run knows never reaches stderr, even quoted back
    // by a server.
    let msg = match crate::redact::redact_secrets(&msg) {
        std::borrow::Cow::Owned(r) => r,
        std::borrow::Cow::Borrowed(_) => msg,
    };
    if let Ok(mut held) = HELD.lock() {
        if let Some(h) = held.as_mut() {
            h.latest = msg.lines().next().unwrap_or("").chars().take(300).collect();
            if h.msgs.len() < MAX_HELD && h.bytes + msg.len() <= MAX_HELD_BYTES {
                h.bytes += msg.len();
                h.msgs.push(msg);
            } else {
                h.more += 1;
            }
            return;
        }
    }
    write_line(&msg);
}

/// Write one line to stderr. A write that fails (stderr closed:
/// `ahp-elicit … 2>&1 >/dev/null | head -1`) is dropped: std's `eprintln!`
/// would panic there, and a message the person can no longer read is not
/// worth a crash. The only writer to stderr in the program.
fn write_line(msg: &str) {
    use std::io::Write as _;
    let _ = writeln!(std::io::stderr().lock(), "{msg}");
}

/// While messages are held: how many were said (kept or not) and the first
/// line of the latest, for a waiting screen to show. None when nothing is
/// held.
pub fn held_summary() -> Option<(usize, String)> {
    let held = HELD.lock().ok()?;
    let h = held.as_ref()?;
    let n = h.msgs.len() + h.more;
    (n > 0).then(|| (n, h.latest.clone()))
}

/// While the terminal UI is on screen and stderr is that terminal, a
/// message written to stderr would land on the alternate screen: it would
/// scroll and garble the frame (ratatui redraws only the cells it changed,
/// so a consent screen could show a stale URL) and vanish when the
/// alternate screen is left. So the messages are held and written when
/// this guard drops, after the terminal is given back (declare it before
/// the responder, so it drops after it).
pub struct HoldStderr;

impl HoldStderr {
    /// Hold messages from now on when `hold` is true.
    pub fn start(hold: bool) -> HoldStderr {
        if hold {
            if let Ok(mut held) = HELD.lock() {
                *held = Some(Held::default());
            }
        }
        HoldStderr
    }
}

impl Drop for HoldStderr {
    fn drop(&mut self) {
        write_held();
    }
}

/// Hold messages from now on (until [`release`]), with no guard: plain mode
/// holds them while a prompt waits for an answer, so nothing the server
/// writes can print lines that pass for the prompt's own.
pub fn hold() {
    if let Ok(mut held) = HELD.lock() {
        if held.is_none() {
            *held = Some(Held::default());
        }
    }
}

/// Stop holding messages and write those held so far. Plain mode owns no
/// screen (it writes whole lines), so messages can go out at once, between
/// its lines, where a person hears them in order.
pub fn release() {
    write_held();
}

/// Take what is held (holding stops) and write it to stderr, then one
/// "N more messages" line for those not kept.
fn write_held() {
    let held = HELD.lock().ok().and_then(|mut h| h.take());
    if let Some(h) = held {
        for m in h.msgs {
            write_line(&m);
        }
        if h.more > 0 {
            write_line(&voiced(
                None,
                &format!(
                    "{} more message{} not shown",
                    h.more,
                    if h.more == 1 { "" } else { "s" }
                ),
            ));
        }
    }
}

/// One message for the person, sanitized: every line of it went through
/// [`crate::safe_text::display_lines`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Notice {
    text: String,
}

impl Notice {
    /// A notice of `msg`, sanitized (messages quote server text), with the
    /// registered credentials redacted ([`crate::redact::redact_secrets`]).
    pub fn new(msg: &str) -> Notice {
        Notice {
            text: crate::safe_text::display_lines(&crate::redact::redact_secrets(msg)),
        }
    }

    /// A one-line notice of `msg`: as [`Notice::new`], with every line
    /// break escaped too ([`crate::safe_text::display`]).
    pub fn line(msg: &str) -> Notice {
        Notice {
            text: crate::safe_text::display(&crate::redact::redact_secrets(msg)).into_owned(),
        }
    }

    /// The sanitized text (one or more lines, no trailing newline).
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The sanitized text, owned.
    pub fn into_text(self) -> String {
        self.text
    }
}

/// Where library code reports its notices: a cheap, cloneable handle on a
/// callback. [`Notices::stderr`] (the default) writes to stderr or holds
/// while a screen is up; [`Notices::collect`] keeps them in memory.
#[derive(Clone)]
pub struct Notices {
    sink: std::sync::Arc<dyn Fn(Notice) + Send + Sync>,
}

impl Notices {
    /// Notices passed to `f`, sanitized.
    pub fn new(f: impl Fn(Notice) + Send + Sync + 'static) -> Notices {
        Notices {
            sink: std::sync::Arc::new(f),
        }
    }

    /// Notices written to stderr, or held while [`HoldStderr`] (or
    /// [`hold`]) is active: what [`say`] does.
    pub fn stderr() -> Notices {
        Notices::new(|n| write_or_hold(n.into_text()))
    }

    /// Notices kept in memory (within [`MAX_HELD`] and [`MAX_HELD_BYTES`];
    /// later ones are counted), read back through the [`Collected`].
    pub fn collect() -> (Notices, Collected) {
        let kept = Collected::default();
        let into = kept.clone();
        (Notices::new(move |n| into.keep(n)), kept)
    }

    /// Report `msg` as [`say`] words it ("ahp-elicit: msg"), as one line:
    /// it is sanitized before the sink sees it, a line break in it escaped
    /// (`\u{a}`) like any control character, so server text quoted in it
    /// (a scope, an issuer) can never start a line that passes for ours.
    /// Several lines are said with [`Self::say_list`].
    pub fn say(&self, msg: &str) {
        (self.sink)(Notice::line(&voiced(None, msg)));
    }

    /// Report `heading` and the indented `lines` below it as one notice
    /// (as [`say_list`]).
    pub fn say_list(&self, heading: &str, lines: &[String]) {
        let mut msg = voiced(None, heading);
        for l in lines {
            msg.push_str("\n  ");
            msg.push_str(l);
        }
        (self.sink)(Notice::new(&msg));
    }

    /// Report an error with its sources ([`chain`]).
    pub fn error(&self, e: &(dyn std::error::Error + 'static)) {
        self.say(&chain(e));
    }
}

impl Default for Notices {
    /// [`Notices::stderr`].
    fn default() -> Self {
        Notices::stderr()
    }
}

impl std::fmt::Debug for Notices {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Notices(..)")
    }
}

/// Notices kept by [`Notices::collect`], bounded as held ones are.
#[derive(Debug, Clone, Default)]
pub struct Collected {
    inner: std::sync::Arc<std::sync::Mutex<Held>>,
}

impl Collected {
    fn lock(&self) -> std::sync::MutexGuard<'_, Held> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn keep(&self, n: Notice) {
        let mut h = self.lock();
        if h.msgs.len() < MAX_HELD && h.bytes + n.text.len() <= MAX_HELD_BYTES {
            h.bytes += n.text.len();
            h.msgs.push(n.into_text());
        } else {
            h.more += 1;
        }
    }

    /// The texts kept so far, in order.
    pub fn texts(&self) -> Vec<String> {
        self.lock().msgs.clone()
    }

    /// How many notices were not kept (over a bound).
    pub fn dropped(&self) -> usize {
        self.lock().more
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_break_in_a_notice_never_starts_a_line_of_its_own() {
        let (notices, kept) = Notices::collect();
        notices.say("signing in (access asked: read\nahp-elicit: all is well)");
        assert_eq!(
            kept.texts(),
            ["ahp-elicit: signing in (access asked: read\\u{a}ahp-elicit: all is well)"]
        );
    }

    #[test]
    fn a_collecting_sink_gets_sanitized_text_within_bounds() {
        let (notices, kept) = Notices::collect();
        notices.say("bad \u{1b}[2Jid\u{202e}x");
        assert_eq!(kept.texts().len(), 1);
        let text = &kept.texts()[0];
        assert_eq!(text, r"ahp-elicit: bad \u{1b}[2Jid\u{202e}x");
        for i in 0..MAX_HELD + 5 {
            notices.clone().say(&format!("line {i}"));
        }
        assert_eq!(kept.texts().len(), MAX_HELD);
        assert_eq!(kept.dropped(), 6);
    }

    #[test]
    fn every_notice_opens_with_the_program_name_once() {
        let (notices, kept) = Notices::collect();
        notices.say("cannot write the log: disk full");
        notices.say_list(
            "the server offers 2 tool(s):",
            &["a  first".to_owned(), "b  second".to_owned()],
        );
        assert_eq!(
            kept.texts(),
            vec![
                "ahp-elicit: cannot write the log: disk full".to_owned(),
                "ahp-elicit: the server offers 2 tool(s):\n  a  first\n  b  second".to_owned(),
            ]
        );
        assert_eq!(voiced(Some("mcp"), "x"), "ahp-elicit mcp: x");
    }

    /// An error whose sentence does not quote its cause.
    #[derive(Debug, thiserror::Error)]
    #[error("cannot read events.jsonl")]
    struct Bare(#[source] std::io::Error);

    /// An error whose sentence quotes its cause in the short form.
    #[derive(Debug, thiserror::Error)]
    #[error("cannot read events.jsonl: {}", crate::files::io_reason(.0))]
    struct Quoting(#[source] std::io::Error);

    #[test]
    fn the_chain_names_each_cause_once() {
        let denied = || std::io::Error::from_raw_os_error(libc::EACCES);
        let os = denied().to_string();
        assert_eq!(
            chain(&Bare(denied())),
            format!("cannot read events.jsonl: {os}")
        );
        // The cause is already in the sentence (lower case, no "os error").
        let quoting = Quoting(denied());
        assert_eq!(chain(&quoting), quoting.to_string());
        assert!(
            chain(&quoting).ends_with("permission denied"),
            "{}",
            chain(&quoting)
        );
        let (notices, kept) = Notices::collect();
        notices.error(&Bare(denied()));
        assert_eq!(
            kept.texts(),
            vec![format!("ahp-elicit: cannot read events.jsonl: {os}")]
        );
    }

    /// An error whose sentence quotes its cause made safe for a terminal.
    #[derive(Debug, thiserror::Error)]
    #[error("server/discover: {}", crate::safe_text::display(&.0.to_string()))]
    struct Sanitizing(#[source] Raw);

    /// A cause whose text holds control and bidi characters as a server
    /// sent them.
    #[derive(Debug, thiserror::Error)]
    #[error("token request failed: invalid_grant: \u{202e}oops\u{1b}[2J")]
    struct Raw;

    #[test]
    fn a_cause_quoted_made_safe_is_not_said_again() {
        let e = Sanitizing(Raw);
        assert_eq!(
            chain(&e),
            "server/discover: token request failed: invalid_grant: \\u{202e}oops\\u{1b}[2J"
        );
    }

    #[test]
    fn a_flood_is_held_within_bounds_and_counted() {
        let _serial = TEST_LOCK.lock().unwrap_or_else(|e| e.into_inner());
        let guard = HoldStderr::start(true);
        for i in 0..10_000 {
            say(format!("line {i}: not a JSON event: {}", "x".repeat(100)));
        }
        // (Other tests of this process may say something meanwhile.)
        let (n, latest) = held_summary().expect("held");
        assert!(n >= 10_000, "{n}");
        assert!(latest.chars().count() <= 300, "{latest}");
        {
            let held = HELD.lock().unwrap();
            let h = held.as_ref().unwrap();
            assert_eq!(h.msgs.len(), MAX_HELD);
            assert!(h.bytes <= MAX_HELD_BYTES);
            assert!(h.more >= 10_000 - MAX_HELD, "{}", h.more);
        }
        drop(guard);
        assert_eq!(held_summary(), None);
    }
}
