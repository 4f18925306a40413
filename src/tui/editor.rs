//! The outside editor's leftovers on every way out: while `$VISUAL` /
//! `$EDITOR` (Ctrl-O) runs, its temporary file (which holds what was typed)
//! and its process are known here, so a signal or a panic that ends the
//! program removes the file and ends the editor ([`crate::signals`] calls
//! [`give_back`] with the terminals). The text written into the file has
//! its control characters escaped ([`escape_controls`]): a server's
//! default never reaches the editor, and so the terminal, as raw ESC or
//! BEL.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus};
use std::sync::Mutex;

/// The editor running now: its temporary file and process id.
static RUNNING: Mutex<Option<(PathBuf, Option<u32>)>> = Mutex::new(None);

/// Registered with [`crate::signals`]: removes the file and ends the
/// editor on a signal or a panic.
static SIGNALS: crate::signals::Terminal = crate::signals::Terminal {
    restore: give_back,
    suspend: nothing,
    resume: nothing,
};

fn nothing() {}

/// Remove the running editor's file and end the editor (SIGTERM); a no-op
/// when none runs.
fn give_back() {
    let held = RUNNING.lock().unwrap_or_else(|e| e.into_inner()).take();
    if let Some((path, pid)) = held {
        if let Some(pid) = pid.and_then(|p| i32::try_from(p).ok()) {
            // SAFETY: sending a signal to a process id has no memory effect.
            unsafe {
                libc::kill(pid, libc::SIGTERM);
            }
        }
        let _ = std::fs::remove_file(path);
    }
}

/// `text` with every control character but line breaks and tabs written
/// as a visible `\u{..}` escape (ESC as `\u{1b}`, BEL as `\u{7}`).
pub fn escape_controls(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if c.is_control() && c != '\n' && c != '\t' {
            out.push_str(&format!("\\u{{{:x}}}", u32::from(c)));
        } else {
            out.push(c);
        }
    }
    out
}

/// Record `path` as the editor's file before it is written: from here on a
/// signal removes it.
pub fn track(path: &Path) {
    crate::signals::own_terminal(&SIGNALS);
    *RUNNING.lock().unwrap_or_else(|e| e.into_inner()) = Some((path.to_owned(), None));
}

/// Start `cmd` (the editor), note its process id to end it on a signal,
/// and wait for it.
///
/// Errors: the operating system's, when it cannot be started or waited for.
pub fn run(cmd: &mut Command) -> std::io::Result<ExitStatus> {
    let mut child: Child = cmd.spawn()?;
    if let Some((_, pid)) = RUNNING.lock().unwrap_or_else(|e| e.into_inner()).as_mut() {
        *pid = Some(child.id());
    }
    child.wait()
}

/// The editor ended: its file is removed by the caller after reading, and
/// a signal no longer needs to.
pub fn done() {
    *RUNNING.lock().unwrap_or_else(|e| e.into_inner()) = None;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_characters_are_escaped_and_line_breaks_kept() {
        assert_eq!(
            escape_controls("a\u{1b}[31mred\u{7}\nnext\tcol\u{0}"),
            "a\\u{1b}[31mred\\u{7}\nnext\tcol\\u{0}"
        );
        assert_eq!(escape_controls("plain"), "plain");
    }
}
