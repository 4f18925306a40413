//! The loopback listener the browser comes back to (RFC 8252 §7.3): a
//! `std::net::TcpListener` on `127.0.0.1`, one accept loop on its own
//! thread. Only a `GET` of the callback path counts; its query is checked
//! with [`validate_callback`](super::flow::validate_callback). The pages
//! are fixed text: nothing from the request is echoed.
//!
//! A callback whose `state` is not this flow's gets a 400 page and the
//! wait goes on; the first callback with the right `state` ends it (its
//! verdict is handed over before its page is written, so a browser
//! command that ends after reading the page finds the verdict waiting).
//! Each connection gets [`READ_DEADLINE`] and [`MAX_HEAD_BYTES`].
//!
//! A browser on another machine cannot reach this listener: the address
//! it ended on can be pasted instead ([`PasteBack`]), checked the same way
//! and fed into the same wait.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::sync::Arc;
use std::time::Duration;

use super::flow::{validate_callback, CallbackError, Expected};
use super::store::Secret;

/// How long one connection may take to send its request head.
pub const READ_DEADLINE: Duration = Duration::from_secs(5);
/// The most bytes of a request head read.
pub const MAX_HEAD_BYTES: usize = 8 * 1024;
/// The callback path.
pub const CALLBACK_PATH: &str = "/callback";

/// Where the browser comes back to for a loopback redirect URI
/// (`http://127.0.0.1:PORT/callback`, as [`Loopback::bind`] makes it):
/// `127.0.0.1:PORT`. None for an address of another shape (a client
/// registration kept for another redirect URI).
pub fn listening_at(redirect_uri: &str) -> Option<&str> {
    redirect_uri
        .strip_prefix("http://")?
        .strip_suffix(CALLBACK_PATH)
}

/// The port of a loopback redirect URI (`http://127.0.0.1:PORT/callback`);
/// None for an address of another shape.
pub fn port_of(redirect_uri: &str) -> Option<u16> {
    listening_at(redirect_uri)?
        .strip_prefix("127.0.0.1:")?
        .parse()
        .ok()
}

const OK_PAGE: &str = "Signed in. You can close this tab and go back to the terminal.\n";
const FAIL_PAGE: &str = "Sign-in failed; the terminal says why.\n";
const STATE_PAGE: &str = "This address is not for the sign-in in progress.\n";
const NOT_FOUND: &str = "Not found.\n";

/// A bound listener and its redirect URI.
/// Why the loopback listener could not listen, or a pasted address was not
/// taken: one sentence, each kind keeping its cause. Never holds what was
/// pasted.
#[derive(Debug, thiserror::Error)]
pub enum ListenerError {
    /// No port at all could be listened on.
    #[error("cannot listen on 127.0.0.1 for the browser to come back: {0}")]
    NoPort(#[source] std::io::Error),
    /// The port asked for is taken.
    #[error("port {port} is in use (is another sign-in running?): {source}")]
    PortInUse {
        /// The port asked for.
        port: u16,
        /// The operating system's error.
        #[source]
        source: std::io::Error,
    },
    /// The bound socket's port could not be read.
    #[error("cannot read the listening port: {0}")]
    LocalAddr(#[source] std::io::Error),
    /// This listener's own return address does not parse.
    #[error("the return address cannot be read: {0}")]
    ReturnAddress(#[source] url::ParseError),
    /// What was pasted is not a URL (a bare code, most often).
    #[error("that is not a whole address: paste the full address the browser ended on (it starts with {redirect_uri})")]
    NotAnAddress {
        /// The address the browser comes back to.
        redirect_uri: String,
    },
    /// The pasted address is not this listener's.
    #[error("that address does not lead back here: it must start with {redirect_uri}")]
    NotHere {
        /// The address the browser comes back to.
        redirect_uri: String,
    },
    /// The pasted address carries another sign-in's `state`.
    #[error("{}: the wait goes on", CallbackError::State)]
    OtherSignIn,
}

#[derive(Debug)]
pub struct Loopback {
    listener: TcpListener,
    /// `http://127.0.0.1:PORT/callback`.
    pub redirect_uri: String,
}

impl Loopback {
    /// Bind `127.0.0.1:port` (0: any free port).
    ///
    /// Errors: the port is taken ([`ListenerError::PortInUse`]), or no
    /// port can be listened on.
    pub fn bind(port: u16) -> Result<Self, ListenerError> {
        let listener = TcpListener::bind(("127.0.0.1", port)).map_err(|e| {
            if port == 0 {
                ListenerError::NoPort(e)
            } else {
                ListenerError::PortInUse { port, source: e }
            }
        })?;
        let port = listener
            .local_addr()
            .map_err(ListenerError::LocalAddr)?
            .port();
        Ok(Self {
            listener,
            redirect_uri: format!("http://127.0.0.1:{port}{CALLBACK_PATH}"),
        })
    }

    /// The port bound (the one in [`redirect_uri`](Self::redirect_uri)).
    #[cfg(test)]
    pub fn port(&self) -> u16 {
        port_of(&self.redirect_uri).expect("the redirect URI names the port bound")
    }

    /// Serve callbacks on a thread until one carries this flow's `state`;
    /// its verdict (the code, or why not) arrives on the returned channel.
    /// Setting `stop` ends the thread at its next poll.
    #[cfg(test)]
    pub fn serve(
        self,
        state: Secret,
        issuer: String,
        iss_required: bool,
        stop: Arc<AtomicBool>,
    ) -> mpsc::Receiver<Result<Secret, CallbackError>> {
        self.serve_with_paste(state, issuer, iss_required, stop).0
    }

    /// [`serve`](Self::serve), with a [`PasteBack`] that feeds a pasted
    /// address into the same wait.
    pub fn serve_with_paste(
        self,
        state: Secret,
        issuer: String,
        iss_required: bool,
        stop: Arc<AtomicBool>,
    ) -> (mpsc::Receiver<Result<Secret, CallbackError>>, PasteBack) {
        let (tx, rx) = mpsc::channel();
        let answered = Arc::new(AtomicBool::new(false));
        let paste = PasteBack {
            tx: tx.clone(),
            redirect_uri: self.redirect_uri.clone(),
            state: state.clone(),
            issuer: issuer.clone(),
            iss_required,
            answered: Arc::clone(&answered),
        };
        std::thread::spawn(move || {
            if self.listener.set_nonblocking(true).is_err() {
                return;
            }
            let want = Expected {
                state: &state,
                issuer: &issuer,
                iss_required,
            };
            while !stop.load(Ordering::SeqCst) {
                match self.listener.accept() {
                    Ok((conn, _)) => {
                        if answered.load(Ordering::SeqCst) {
                            return;
                        }
                        if one(conn, &want, &tx, &answered) {
                            return;
                        }
                    }
                    Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                        std::thread::sleep(Duration::from_millis(50));
                    }
                    Err(_) => std::thread::sleep(Duration::from_millis(50)),
                }
            }
        });
        (rx, paste)
    }
}

/// The way back for the address a browser ended on, pasted by the person
/// when the browser could not reach the listener (another machine). A
/// pasted address must be `http`, this listener's host, port and path, and
/// carry this flow's `state`; then its query is checked like a callback's
/// ([`validate_callback`]) and the verdict ends the wait.
#[derive(Clone)]
pub struct PasteBack {
    tx: mpsc::Sender<Result<Secret, CallbackError>>,
    redirect_uri: String,
    state: Secret,
    issuer: String,
    iss_required: bool,
    answered: Arc<AtomicBool>,
}

impl std::fmt::Debug for PasteBack {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PasteBack")
            .field("redirect_uri", &self.redirect_uri)
            .finish_non_exhaustive()
    }
}

impl PasteBack {
    /// The address the browser comes back to (`http://127.0.0.1:PORT/callback`).
    pub fn redirect_uri(&self) -> &str {
        &self.redirect_uri
    }

    /// Whether the wait has its verdict (from the listener or a paste).
    pub fn answered(&self) -> bool {
        self.answered.load(Ordering::SeqCst)
    }

    /// Feed a pasted address into the wait. `Ok(true)`: it ended the wait
    /// (with a code, or with why the sign-in failed); `Ok(false)`: the wait
    /// had already ended.
    ///
    /// Errors (the wait goes on): not an address of this listener (a bare
    /// code included: it carries neither `state` nor `iss`), or another
    /// sign-in's `state` ([`ListenerError`], quoting nothing pasted).
    pub fn paste(&self, address: &str) -> Result<bool, ListenerError> {
        let want = url::Url::parse(&self.redirect_uri).map_err(ListenerError::ReturnAddress)?;
        let got = url::Url::parse(address.trim()).map_err(|_| ListenerError::NotAnAddress {
            redirect_uri: self.redirect_uri.clone(),
        })?;
        if got.scheme() != "http"
            || got.host_str() != want.host_str()
            || got.port() != want.port()
            || got.path() != want.path()
        {
            return Err(ListenerError::NotHere {
                redirect_uri: self.redirect_uri.clone(),
            });
        }
        let verdict = validate_callback(
            got.query().unwrap_or(""),
            &Expected {
                state: &self.state,
                issuer: &self.issuer,
                iss_required: self.iss_required,
            },
        );
        if verdict == Err(CallbackError::State) {
            return Err(ListenerError::OtherSignIn);
        }
        if self.answered.swap(true, Ordering::SeqCst) {
            return Ok(false);
        }
        let _ = self.tx.send(verdict);
        Ok(true)
    }
}

/// Answer one connection; true when it ended the flow.
fn one(
    mut conn: TcpStream,
    want: &Expected<'_>,
    tx: &mpsc::Sender<Result<Secret, CallbackError>>,
    answered: &AtomicBool,
) -> bool {
    let _ = conn.set_nonblocking(false);
    let _ = conn.set_read_timeout(Some(READ_DEADLINE));
    let _ = conn.set_write_timeout(Some(READ_DEADLINE));
    let Some(target) = request_target(&mut conn) else {
        page(&mut conn, 400, FAIL_PAGE);
        return false;
    };
    let (path, query) = target.split_once('?').unwrap_or((&target, ""));
    if path != CALLBACK_PATH {
        page(&mut conn, 404, NOT_FOUND);
        return false;
    }
    match validate_callback(query, want) {
        Err(CallbackError::State) => {
            page(&mut conn, 400, STATE_PAGE);
            false
        }
        verdict => {
            let ok = verdict.is_ok();
            if answered.swap(true, Ordering::SeqCst) {
                // A pasted address ended the wait first.
                page(&mut conn, 400, STATE_PAGE);
                return true;
            }
            let _ = tx.send(verdict);
            if ok {
                page(&mut conn, 200, OK_PAGE);
            } else {
                page(&mut conn, 400, FAIL_PAGE);
            }
            true
        }
    }
}

/// The request target of a `GET` (None for anything else, or a head that
/// is too long or too slow).
fn request_target(conn: &mut TcpStream) -> Option<String> {
    let mut head = Vec::new();
    let mut buf = [0u8; 1024];
    while !head.windows(4).any(|w| w == b"\r\n\r\n") && !head.windows(2).any(|w| w == b"\n\n") {
        let n = conn.read(&mut buf).ok()?;
        if n == 0 {
            break;
        }
        head.extend_from_slice(&buf[..n]);
        if head.len() > MAX_HEAD_BYTES {
            return None;
        }
    }
    let line = head.split(|&b| b == b'\n').next()?;
    let line = std::str::from_utf8(line).ok()?.trim_end_matches('\r');
    let mut parts = line.split(' ');
    let (method, target) = (parts.next()?, parts.next()?);
    (method == "GET").then(|| target.to_owned())
}

fn page(conn: &mut TcpStream, status: u16, body: &str) {
    let reason = match status {
        200 => "OK",
        404 => "Not Found",
        _ => "Bad Request",
    };
    let _ = write!(
        conn,
        "HTTP/1.1 {status} {reason}\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: {}\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    let _ = conn.flush();
}

#[cfg(test)]
mod tests {
    use super::*;

    fn get(port: u16, target: &str) -> String {
        let mut c = TcpStream::connect(("127.0.0.1", port)).unwrap();
        write!(c, "GET {target} HTTP/1.1\r\nHost: x\r\n\r\n").unwrap();
        let mut out = String::new();
        c.read_to_string(&mut out).unwrap();
        out
    }

    #[test]
    fn waits_past_other_states_and_never_echoes_the_request() {
        let lb = Loopback::bind(0).unwrap();
        let port = lb.port();
        assert_eq!(lb.redirect_uri, format!("http://127.0.0.1:{port}/callback"));
        let stop = Arc::new(AtomicBool::new(false));
        let rx = lb.serve(Secret::new("s1"), "http://as".into(), false, stop);
        let other = get(port, "/callback?code=c0&state=zzz-marker");
        assert!(other.starts_with("HTTP/1.1 400"), "{other}");
        assert!(!other.contains("zzz-marker"));
        assert!(get(port, "/favicon.ico").starts_with("HTTP/1.1 404"));
        assert!(rx.try_recv().is_err());
        let ok = get(port, "/callback?code=c1&state=s1");
        assert!(
            ok.starts_with("HTTP/1.1 200") && ok.contains("Signed in."),
            "{ok}"
        );
        assert!(!ok.contains("c1"));
        assert_eq!(rx.recv().unwrap().unwrap().expose(), "c1");
    }

    #[test]
    fn a_refused_answer_ends_the_wait_with_why() {
        let lb = Loopback::bind(0).unwrap();
        let port = lb.port();
        let rx = lb.serve(
            Secret::new("s1"),
            "http://as".into(),
            true,
            Arc::new(AtomicBool::new(false)),
        );
        let page = get(port, "/callback?code=c1&state=s1");
        assert!(page.starts_with("HTTP/1.1 400") && page.contains("Sign-in failed"));
        assert_eq!(
            rx.recv().unwrap(),
            Err(CallbackError::NoIssuer("http://as".into()))
        );
    }

    #[test]
    fn a_pasted_address_is_checked_and_ends_the_wait() {
        let lb = Loopback::bind(0).unwrap();
        let port = lb.port();
        let (rx, paste) = lb.serve_with_paste(
            Secret::new("s1"),
            "http://as".into(),
            false,
            Arc::new(AtomicBool::new(false)),
        );
        let e = paste.paste("c1").unwrap_err().to_string();
        assert!(e.starts_with("that is not a whole address"), "{e}");
        let e = paste
            .paste(&format!(
                "https://127.0.0.1:{port}/callback?code=c1&state=s1"
            ))
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("that address does not lead back here"), "{e}");
        let e = paste
            .paste(&format!(
                "http://127.0.0.1:{}/callback?code=c1&state=s1",
                port + 1
            ))
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("that address does not lead back here"), "{e}");
        let e = paste
            .paste(&format!("http://127.0.0.1:{port}/other?code=c1&state=s1"))
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("that address does not lead back here"), "{e}");
        let e = paste
            .paste(&format!(
                "http://127.0.0.1:{port}/callback?code=c1&state=zzz"
            ))
            .unwrap_err()
            .to_string();
        assert_eq!(
            e,
            "that address is not from this sign-in (its state does not match): the wait goes on"
        );
        assert!(rx.try_recv().is_err() && !paste.answered());
        assert!(paste
            .paste(&format!(
                " http://127.0.0.1:{port}/callback?code=c7&state=s1\n"
            ))
            .unwrap());
        assert!(paste.answered());
        assert_eq!(rx.recv().unwrap().unwrap().expose(), "c7");
        assert!(!paste
            .paste(&format!(
                "http://127.0.0.1:{port}/callback?code=c8&state=s1"
            ))
            .unwrap());
    }

    #[test]
    fn a_taken_port_is_named() {
        let lb = Loopback::bind(0).unwrap();
        let e = Loopback::bind(lb.port()).unwrap_err().to_string();
        assert!(
            e.starts_with(&format!("port {} is in use", lb.port())),
            "{e}"
        );
    }
}
