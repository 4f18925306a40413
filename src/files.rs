//! Files this program writes (`--output`, `--log`, `--events`): created
//! readable and writable by the owner only (mode 0600: they can hold answers
//! and URLs), and never opened through a symbolic link (`O_NOFOLLOW`), so a
//! link planted at the path cannot redirect the write to another file; a
//! file, FIFO or device that is not the person's own is refused (see
//! [`open_private`]).

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
/// What is at the path already is checked before anything is written or
/// emptied (as `ssh` checks its keys), and again once open: a regular file
/// or FIFO owned by another user, a block device, or a character device
/// other than `/dev/null` and the person's own terminal is refused.
/// `/dev/stdout` and `/dev/stderr` (links to the process's own streams)
/// write to a copy of that stream.
///
/// Errors: an [`io::Error`] of the same kind whose text names the path
/// (made safe for a terminal) and, for a link or a refused file, says why.
pub fn open_private(path: &Path, existing: Existing) -> io::Result<File> {
    let shown = crate::safe_text::display(&path.to_string_lossy()).into_owned();
    #[cfg(unix)]
    if let Some(f) = standard_stream(path) {
        return f.map_err(|e| explain(e, &shown));
    }
    // Before the open: opening another user's FIFO could block, and
    // emptying their file cannot be undone.
    #[cfg(unix)]
    if let Ok(m) = std::fs::symlink_metadata(path) {
        check_target(&m, None, &shown)?;
    }
    let mut o = OpenOptions::new();
    o.write(true).create(true);
    if existing == Existing::Append {
        o.append(true);
    }
    #[cfg(not(unix))]
    if existing == Existing::Truncate {
        o.truncate(true);
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        o.mode(0o600).custom_flags(libc::O_NOFOLLOW);
    }
    let file = o.open(path).map_err(|e| explain(e, &shown))?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let m = file.metadata().map_err(|e| explain(e, &shown))?;
        check_target(&m, Some(&file), &shown)?;
        // Only a regular file: never change the mode of a device such as
        // /dev/null or of a FIFO.
        if m.is_file() {
            file.set_permissions(std::fs::Permissions::from_mode(0o600))
                .map_err(|e| explain(e, &shown))?;
            if existing == Existing::Truncate {
                file.set_len(0).map_err(|e| explain(e, &shown))?;
            }
        }
    }
    Ok(file)
}

/// `/dev/stdout` and `/dev/stderr`: a copy of the process's own stream
/// (the paths are links, which [`open_private`] never follows).
#[cfg(unix)]
fn standard_stream(path: &Path) -> Option<io::Result<File>> {
    use std::os::fd::AsFd;
    let fd = match path.to_str()? {
        "/dev/stdout" => std::io::stdout().as_fd().try_clone_to_owned(),
        "/dev/stderr" => std::io::stderr().as_fd().try_clone_to_owned(),
        _ => return None,
    };
    Some(fd.map(File::from))
}

/// Refuses what must not be written to (see [`open_private`]); `open` is
/// the file once open (a character device is then allowed when it is the
/// person's own terminal).
#[cfg(unix)]
fn check_target(m: &std::fs::Metadata, open: Option<&File>, shown: &str) -> io::Result<()> {
    use std::os::unix::fs::{FileTypeExt, MetadataExt};
    // SAFETY: geteuid has no preconditions and cannot fail.
    let me = unsafe { libc::geteuid() };
    let t = m.file_type();
    let refuse = |why: String| {
        Err(io::Error::new(
            io::ErrorKind::PermissionDenied,
            format!("{shown}: {why}; refusing to write to it (give a path of your own)"),
        ))
    };
    if (t.is_file() || t.is_fifo()) && m.uid() != me {
        let what = if t.is_fifo() {
            "a FIFO that"
        } else {
            "a file that"
        };
        return refuse(format!(
            "is {what} belongs to another user (uid {})",
            m.uid()
        ));
    }
    if t.is_block_device() {
        return refuse("is a block device".into());
    }
    if t.is_char_device() {
        let null = std::fs::metadata("/dev/null")
            .map(|n| n.file_type().is_char_device() && n.rdev() == m.rdev())
            .unwrap_or(false);
        let own_terminal = m.uid() == me
            && open.is_none_or(|f| {
                use std::os::fd::AsRawFd;
                // SAFETY: isatty on a descriptor this function borrows.
                unsafe { libc::isatty(f.as_raw_fd()) == 1 }
            });
        if !null && !own_terminal {
            return refuse("is a device (not /dev/null or your terminal)".into());
        }
    }
    Ok(())
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
    fn the_null_device_and_the_standard_streams_keep_working() {
        for p in ["/dev/null", "/dev/stdout", "/dev/stderr"] {
            for how in [Existing::Truncate, Existing::Append] {
                let mut f = open_private(Path::new(p), how).unwrap();
                f.write_all(b"").unwrap();
            }
        }
    }

    #[test]
    fn other_devices_are_refused() {
        let e = open_private(Path::new("/dev/zero"), Existing::Append).unwrap_err();
        assert_eq!(
            e.to_string(),
            "/dev/zero: is a device (not /dev/null or your terminal); refusing to write to it (give a path of your own)"
        );
    }

    #[test]
    fn the_persons_own_fifo_is_written() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("fifo");
        let c = std::ffi::CString::new(p.to_str().unwrap()).unwrap();
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        let reader = {
            let p = p.clone();
            std::thread::spawn(move || std::fs::read_to_string(p).unwrap())
        };
        let mut f = open_private(&p, Existing::Truncate).unwrap();
        f.write_all(b"line\n").unwrap();
        drop(f);
        assert_eq!(reader.join().unwrap(), "line\n");
    }

    /// Another user's file and FIFO (made with chown, so only when the
    /// tests run as root): refused before anything is written or emptied.
    #[test]
    fn another_users_file_or_fifo_is_refused() {
        if unsafe { libc::geteuid() } != 0 {
            return;
        }
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("theirs.log");
        std::fs::write(&file, "theirs\n").unwrap();
        std::os::unix::fs::chown(&file, Some(65534), Some(65534)).unwrap();
        for how in [Existing::Truncate, Existing::Append] {
            let e = open_private(&file, how).unwrap_err();
            assert!(
                e.to_string()
                    .ends_with("is a file that belongs to another user (uid 65534); refusing to write to it (give a path of your own)"),
                "{e}"
            );
        }
        assert_eq!(std::fs::read_to_string(&file).unwrap(), "theirs\n");
        let fifo = dir.path().join("fifo");
        let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        std::os::unix::fs::chown(&fifo, Some(65534), None).unwrap();
        // Refused before the open, which would wait for a reader.
        let e = open_private(&fifo, Existing::Append).unwrap_err();
        assert!(
            e.to_string()
                .contains("is a FIFO that belongs to another user"),
            "{e}"
        );
    }

    #[test]
    fn an_existing_file_of_ones_own_is_emptied_or_appended() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("out");
        std::fs::write(&p, "old old old\n").unwrap();
        let mut f = open_private(&p, Existing::Truncate).unwrap();
        f.write_all(b"new\n").unwrap();
        drop(f);
        assert_eq!(std::fs::read_to_string(&p).unwrap(), "new\n");
    }

    #[test]
    fn a_missing_folder_is_named() {
        let e = open_private(Path::new("/nonexistent-dir/x"), Existing::Truncate).unwrap_err();
        assert!(e.to_string().starts_with("/nonexistent-dir/x: "), "{e}");
    }
}
