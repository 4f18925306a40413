//! Files this program writes (`--output`, `--log`, `--events`): created
//! readable and writable by the owner only (mode 0600: they can hold answers
//! and URLs), and never opened through a symbolic link (`O_NOFOLLOW`), so a
//! link planted at the path cannot redirect the write to another file.

use std::fs::{File, OpenOptions};
use std::io;
use std::path::Path;

/// How [`open_private`] opens an existing file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Existing {
    /// Empty it first (`--output`, `--events`).
    Truncate,
    /// Write after its end (`--log`).
    Append,
}

/// Open `path` for writing: created with mode 0600 when missing; an
/// existing regular file is set to 0600 too; a symbolic link is refused.
///
/// Errors: an [`io::Error`] of the same kind whose text names the path
/// (made safe for a terminal) and, for a link, says why it is refused.
pub fn open_private(path: &Path, existing: Existing) -> io::Result<File> {
    let mut o = OpenOptions::new();
    o.write(true).create(true);
    match existing {
        Existing::Truncate => o.truncate(true),
        Existing::Append => o.append(true),
    };
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        o.mode(0o600).custom_flags(libc::O_NOFOLLOW);
    }
    let shown = crate::safe_text::display(&path.to_string_lossy()).into_owned();
    let file = o.open(path).map_err(|e| explain(e, &shown))?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        // Only a regular file: never change the mode of a device such as
        // /dev/null or of a FIFO that someone else created.
        let regular = file.metadata().map(|m| m.is_file()).unwrap_or(false);
        if regular {
            file.set_permissions(std::fs::Permissions::from_mode(0o600))
                .map_err(|e| explain(e, &shown))?;
        }
    }
    Ok(file)
}

fn explain(e: io::Error, shown: &str) -> io::Error {
    #[cfg(unix)]
    if e.raw_os_error() == Some(libc::ELOOP) {
        return io::Error::new(
            e.kind(),
            format!(
                "{shown}: is a symbolic link; refusing to write through it (give the real path)"
            ),
        );
    }
    io::Error::new(e.kind(), format!("{shown}: {}", io_reason(&e)))
}

/// An I/O error as a person reads it: the system's sentence in lower case,
/// without the "(os error N)" tail ("no such file or directory").
pub fn io_reason(e: &io::Error) -> String {
    let s = e.to_string();
    match s.find(" (os error") {
        Some(i) => s[..i].to_lowercase(),
        None => s,
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::io::Write;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn new_files_are_private_and_links_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("out");
        let mut f = open_private(&p, Existing::Truncate).unwrap();
        f.write_all(b"x").unwrap();
        let mode = std::fs::metadata(&p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);

        let victim = dir.path().join("victim");
        std::fs::write(&victim, "keep").unwrap();
        let link = dir.path().join("link");
        std::os::unix::fs::symlink(&victim, &link).unwrap();
        for how in [Existing::Truncate, Existing::Append] {
            let e = open_private(&link, how).unwrap_err();
            assert!(e.to_string().contains("is a symbolic link"), "{e}");
            assert!(e.to_string().contains("link"), "{e}");
        }
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "keep");
    }

    #[test]
    fn an_existing_file_is_made_private() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("log");
        std::fs::write(&p, "old\n").unwrap();
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o644)).unwrap();
        let mut f = open_private(&p, Existing::Append).unwrap();
        f.write_all(b"new\n").unwrap();
        assert_eq!(std::fs::read_to_string(&p).unwrap(), "old\nnew\n");
        let mode = std::fs::metadata(&p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
    }

    #[test]
    fn a_missing_folder_is_named() {
        let e = open_private(Path::new("/nonexistent-dir/x"), Existing::Truncate).unwrap_err();
        assert!(e.to_string().starts_with("/nonexistent-dir/x: "), "{e}");
    }
}
