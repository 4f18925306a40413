//! Waking a waiting screen: a pipe that becomes readable when a request
//! arrives for the responder (or a signal comes) while a waiting screen
//! watches it ([`watch`]). The screen waits on the terminal and on this
//! pipe together (poll(2)), so a request that arrives is taken at once,
//! not at the screen's next look, and an idle screen does not wake up
//! every few milliseconds to look. Nothing is written while no screen
//! watches (a script's stream of requests costs no system call).

use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::OnceLock;

/// The pipe's two ends (read, write), both non-blocking; None when it
/// could not be made.
static PIPE: OnceLock<Option<(OwnedFd, OwnedFd)>> = OnceLock::new();
/// How many waiting screens watch the pipe now.
static WATCHERS: AtomicUsize = AtomicUsize::new(0);

/// A non-blocking, close-on-exec pipe.
fn make_pipe() -> Option<(OwnedFd, OwnedFd)> {
    let mut fds = [0 as libc::c_int; 2];
    // SAFETY: pipe(2) writes two descriptors into the array it is given.
    if unsafe { libc::pipe(fds.as_mut_ptr()) } != 0 {
        return None;
    }
    // SAFETY: both descriptors were just made by pipe(2) and are owned
    // here only.
    let ends = unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) };
    for fd in [fds[0], fds[1]] {
        // SAFETY: fcntl on a descriptor owned above.
        let ok = unsafe {
            let fl = libc::fcntl(fd, libc::F_GETFL);
            fl >= 0
                && libc::fcntl(fd, libc::F_SETFL, fl | libc::O_NONBLOCK) == 0
                && libc::fcntl(fd, libc::F_SETFD, libc::FD_CLOEXEC) == 0
        };
        if !ok {
            return None;
        }
    }
    Some(ends)
}

fn pipe() -> Option<&'static (OwnedFd, OwnedFd)> {
    PIPE.get_or_init(make_pipe).as_ref()
}

/// Wake the waiting screens that watch (a request arrived, a signal came);
/// nothing when none does.
pub fn wake() {
    if WATCHERS.load(Ordering::SeqCst) == 0 {
        return;
    }
    if let Some((_, w)) = pipe() {
        // A full pipe already wakes its reader: the byte is not needed.
        // SAFETY: write(2) of one byte from a live buffer to our pipe.
        let _ = unsafe { libc::write(w.as_raw_fd(), b"!".as_ptr().cast(), 1) };
    }
}

/// A waiting screen's watch of the pipe, for as long as it lives (the
/// terminal's waiting screen is its one user).
#[derive(Debug)]
pub struct Watch {
    fd: std::os::fd::RawFd,
}

/// Start watching: from now on an arrival makes [`Watch::fd`] readable.
/// Look at what woke the screen (`request_waiting`) only after
/// [`Watch::drain`], so no arrival falls between the look and the wait.
/// None when the pipe could not be made (the screen looks in short steps
/// instead).
pub fn watch() -> Option<Watch> {
    let (r, _) = pipe()?;
    WATCHERS.fetch_add(1, Ordering::SeqCst);
    Some(Watch { fd: r.as_raw_fd() })
}

impl Watch {
    /// The descriptor to wait on (readable: something to look at).
    pub fn fd(&self) -> std::os::fd::RawFd {
        self.fd
    }

    /// Empty the pipe: what woke the screen is looked at next.
    pub fn drain(&self) {
        let mut buf = [0u8; 64];
        // SAFETY: read(2) into a live buffer of its length from our
        // non-blocking pipe; stops when it is empty.
        while unsafe { libc::read(self.fd, buf.as_mut_ptr().cast(), buf.len()) } > 0 {}
    }
}

impl Drop for Watch {
    fn drop(&mut self) {
        WATCHERS.fetch_sub(1, Ordering::SeqCst);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Readable now, without waiting.
    fn readable(fd: std::os::fd::RawFd) -> bool {
        let mut p = libc::pollfd {
            fd,
            events: libc::POLLIN,
            revents: 0,
        };
        // SAFETY: poll(2) on one live pollfd, timeout zero.
        unsafe { libc::poll(&mut p, 1, 0) == 1 }
    }

    #[test]
    fn a_wake_makes_a_watching_screen_readable_and_drain_empties_it() {
        let w = watch().expect("pipe");
        w.drain();
        assert!(!readable(w.fd()));
        wake();
        assert!(readable(w.fd()), "a wake makes the pipe readable");
        w.drain();
        assert!(!readable(w.fd()));
    }
}
