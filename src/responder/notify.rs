//! `--notify`: how the terminal signals a request that arrives while the
//! answerer waits, the full screen (the window title too) and plain mode
//! (the signal alone).

use std::time::Duration;

/// How the terminal signals a request that arrives after the screen has
/// been waiting for at least [`NOTIFY_AFTER`] (`--notify`; default
/// `bell`). With `bell` or `osc` the window title also says a request is
/// waiting while one is on screen (the title is restored on exit).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum Notify {
    /// Ring the terminal bell (BEL).
    #[default]
    Bell,
    /// A desktop notification through the terminal (OSC 9 and OSC 777,
    /// which terminals that do not know them ignore), and the bell.
    Osc,
    /// No signal, no title.
    None,
}

/// How long the waiting screen must have been up for a new request to be
/// signalled ([`Notify`]): a flowing stream goes from one request to the
/// next without a signal each time.
pub const NOTIFY_AFTER: Duration = Duration::from_secs(2);

/// The bytes that signal a waiting request: the title, then the bell or a
/// notification. `from` is the requesting server's name; only letters,
/// digits, spaces and `.-_()` of it are kept (at most 40), so nothing of
/// the server's text can end or extend the escape sequence.
pub fn notify_bytes(how: Notify, from: &str) -> Vec<u8> {
    if how == Notify::None {
        return Vec::new();
    }
    let mut out = format!("\x1b]2;ahp-elicit: {}\x1b\\", waiting_words(from)).into_bytes();
    out.extend(notify_signal_bytes(how, from));
    out
}

/// The signal of [`notify_bytes`] without the window title (plain mode,
/// which leaves the title alone): the bell, or a notification and the
/// bell; nothing for [`Notify::None`]. `from` is kept as there.
pub fn notify_signal_bytes(how: Notify, from: &str) -> Vec<u8> {
    let what = waiting_words(from);
    match how {
        Notify::Bell => b"\x07".to_vec(),
        Notify::Osc => {
            format!("\x1b]9;ahp-elicit: {what}\x1b\\\x1b]777;notify;ahp-elicit;{what}\x1b\\\x07")
                .into_bytes()
        }
        Notify::None => Vec::new(),
    }
}

/// "A request from NAME is waiting", with only letters, digits, spaces and
/// `.-_()` of the server's name (at most 40).
fn waiting_words(from: &str) -> String {
    let name: String = from
        .chars()
        .filter(|c| c.is_alphanumeric() || " .-_()".contains(*c))
        .filter(|c| !crate::safe_text::is_unsafe(*c))
        .take(40)
        .collect();
    let name = name.trim();
    if name.is_empty() {
        "A request is waiting".to_owned()
    } else {
        format!("A request from {name} is waiting")
    }
}
