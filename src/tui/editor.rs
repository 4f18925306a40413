//! The outside editor's leftovers on every way out: while `$VISUAL` /
//! `$EDITOR` (Ctrl-O) runs, its temporary file (which holds what was typed)
//! and its process are known here, so a signal or a panic that ends the
//! program removes the file and ends the editor ([`crate::signals`] calls
//! [`give_back`] with the terminals). The text written into the file has
//! its control characters escaped ([`escape_controls`]): a server's
//! default never reaches the editor, and so the terminal, as raw ESC or
//! BEL.

use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus};
use std::sync::Mutex;
use std::time::Instant;

use super::guard;
use super::terminal::{discard_typeahead, restore_terminal};
use super::{Screen, TuiResponder};
use crate::responder::{Outcome, RespondError};

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

/// Why a field edited in the outside editor (`$VISUAL`, `$EDITOR`, `vi`)
/// is unchanged; the sentence is said in the form's notice.
#[derive(Debug, thiserror::Error)]
pub(super) enum EditError {
    /// The private temporary file could not be made or written.
    #[error("cannot prepare the editor's file: {0}")]
    Prepare(#[source] std::io::Error),
    /// The terminal could not be taken back after the editor.
    #[error("{0}")]
    Resume(#[source] RespondError),
    /// The editor ended with a failure status.
    #[error("the editor ({editor}) failed ({status}): the field is unchanged")]
    Failed {
        /// The editor command as run.
        editor: String,
        /// How it ended.
        status: std::process::ExitStatus,
    },
    /// The editor could not be started.
    #[error("the editor ({editor}) did not start: {source}")]
    NoStart {
        /// The editor command as run.
        editor: String,
        /// The operating system's error.
        #[source]
        source: std::io::Error,
    },
    /// The file could not be read back.
    #[error("cannot read the editor's file: {0}")]
    Read(#[source] std::io::Error),
}

impl TuiResponder {
    /// Ctrl-O on `screen`: refused with a note (a secret), the screen
    /// ended for its owner to edit everything (Some outcome: the arguments
    /// of a tool), or the focused text field edited in the outside editor;
    /// while the editor has the terminal the clock stands still (the
    /// `deadline` moves on by that time) and afterwards the `guard` starts
    /// again. The editor's failures are said as the screen's note.
    pub(super) fn editor_key(
        &mut self,
        screen: &mut dyn Screen,
        deadline: &mut Option<Instant>,
        guard: &mut guard::ConsentGuard,
    ) -> Option<Outcome> {
        if let Some(why) = screen.editor_refused() {
            screen.put_note(why);
            return None;
        }
        if let Some(o) = screen.edit_whole() {
            return Some(o);
        }
        if let Some(text) = screen.text_to_edit() {
            let opened = Instant::now();
            let edited = self.edit_outside(&text);
            if let Some(d) = deadline.as_mut() {
                *d += opened.elapsed();
            }
            match edited {
                Ok(t) => screen.put_edited(t),
                Err(e) => screen.put_note(e.to_string()),
            }
            discard_typeahead();
            *guard = guard::ConsentGuard::new(screen.grace());
            self.repaint = true;
        }
        None
    }

    /// Give the terminal to `$VISUAL` (else `$EDITOR`, else `vi`) on a
    /// private temporary file holding `text`, and take it back; returns the
    /// file's text, one final line end removed.
    ///
    /// Errors: [`EditError`], said in the form's notice.
    pub(super) fn edit_outside(&mut self, text: &str) -> Result<String, EditError> {
        let editor = std::env::var("VISUAL")
            .ok()
            .filter(|e| !e.trim().is_empty())
            .or_else(|| {
                std::env::var("EDITOR")
                    .ok()
                    .filter(|e| !e.trim().is_empty())
            })
            .unwrap_or_else(|| "vi".to_owned());
        let dir = std::env::temp_dir();
        let path = dir.join(format!(
            "ahp-elicit-{}-{}.txt",
            std::process::id(),
            rand_suffix()
        ));
        // The file ends with a line break, as editors write it back; one
        // final line break is taken off when it is read. Control
        // characters (a server's default may hold ESC or BEL) are written
        // as visible escapes. From here until it is removed, a signal
        // removes the file and ends the editor.
        track(&path);
        if let Err(e) = new_private_file(&path)
            .and_then(|mut f| f.write_all(format!("{}\n", escape_controls(text)).as_bytes()))
        {
            done();
            let _ = std::fs::remove_file(&path);
            return Err(EditError::Prepare(e));
        }
        // The editor talks to the terminal the form is on, never to the
        // program's stdin and stdout, which carry events and results.
        let tty = |write: bool| {
            std::fs::OpenOptions::new()
                .read(!write)
                .write(write)
                .open("/dev/tty")
        };
        let (tty_in, tty_out, tty_err) = match (tty(false), tty(true), tty(true)) {
            (Ok(i), Ok(o), Ok(e)) => (i, o, e),
            (Err(e), _, _) | (_, Err(e), _) | (_, _, Err(e)) => {
                done();
                let _ = std::fs::remove_file(&path);
                return Err(EditError::Prepare(e));
            }
        };
        restore_terminal();
        // The editor is run as the shell runs it (`$EDITOR` may hold
        // arguments), with the file as its last argument; the shell
        // becomes the editor (`exec`), so ending its process ends it.
        let status = run(std::process::Command::new("sh")
            .arg("-c")
            .arg(format!("exec {editor} \"$1\""))
            .arg("sh")
            .arg(&path)
            .stdin(tty_in)
            .stdout(tty_out)
            .stderr(tty_err));
        // A signal ends the run (it ended the editor): the terminal is not
        // taken again, so it stays as it was given back.
        let back = match crate::signals::received() {
            Some(_) => Err(RespondError::Terminal {
                step: "take the terminal back",
                source: std::io::Error::other("a signal ends the run"),
            }),
            None => self.tty.resume(),
        };
        let read = std::fs::read_to_string(&path);
        done();
        let _ = std::fs::remove_file(&path);
        back.map_err(EditError::Resume)?;
        match status {
            Ok(s) if s.success() => {}
            Ok(status) => return Err(EditError::Failed { editor, status }),
            Err(source) => return Err(EditError::NoStart { editor, source }),
        }
        let mut t = read.map_err(EditError::Read)?;
        if t.ends_with('\n') {
            t.pop();
            if t.ends_with('\r') {
                t.pop();
            }
        }
        Ok(t)
    }
}

/// Create `path`, which must not exist yet (no symbolic link followed),
/// readable and writable by the owner only.
fn new_private_file(path: &std::path::Path) -> std::io::Result<File> {
    let mut o = std::fs::OpenOptions::new();
    o.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut o, 0o600);
    o.open(path)
}

/// A few characters that make a temporary file's name unlikely to be
/// guessed before it exists (it is also created exclusively, 0600).
fn rand_suffix() -> String {
    use std::hash::{BuildHasher, Hasher};
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u128(Instant::now().elapsed().as_nanos());
    format!("{:016x}", h.finish())
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
