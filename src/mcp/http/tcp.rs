//! The TCP sockets of the HTTP transport: ureq's own connector chain (a
//! CONNECT proxy when one is configured, then TCP, then rustls) with one
//! change, the TCP socket, which asks the kernel for a quick ACK before
//! every read (Linux `TCP_QUICKACK`; elsewhere a plain socket).
//!
//! Why: once a kept-alive connection has carried a request and its answer,
//! Linux delays the ACK of what arrives next by up to 40 ms. A server that
//! writes a response's headers and its body (or an SSE event) in two
//! writes with Nagle's algorithm on (Python's `http.server`, among others)
//! holds the second write until that ACK: every answer, and every
//! `elicitation/create` pushed on a call's stream, arrived 40 ms late,
//! while the same server over stdio answers at once. A quick ACK releases
//! it. Everything else (connect timeouts per address, read and write
//! timeouts, the agent's shutdown handle) is as ureq's own TCP connector
//! does it.
//!
//! A read can also be given up: a thread that reads a request's answer may
//! say when it no longer wants it ([`give_up_when`]); a read on that thread
//! then waits in slices of [`GIVE_UP_CHECK`] and ends with
//! `ConnectionAborted` once the condition holds, so the connection is
//! dropped (closed) at once rather than when the server next writes. At
//! MCP 2026-07-28 over Streamable HTTP, closing a request's response stream
//! is how the client cancels it.

use std::cell::RefCell;
use std::io::{self, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::{Arc, Weak};
use std::time::{Duration, Instant};

use ureq::unversioned::resolver::DefaultResolver;
use ureq::unversioned::transport::{
    Buffers, ConnectProxyConnector, ConnectionDetails, Connector, Either, LazyBuffers, NextTimeout,
    RustlsConnector, ShutdownHandle, Transport,
};
use ureq::{Error, Timeout};

/// How often a read that may be given up checks whether it is.
pub(super) const GIVE_UP_CHECK: Duration = Duration::from_millis(100);

thread_local! {
    /// When this thread's reads are no longer wanted ([`give_up_when`]).
    static GIVE_UP: RefCell<Option<Box<dyn Fn() -> bool>>> = const { RefCell::new(None) };
}

/// From now on, every read on this thread ends (`ConnectionAborted`, "the
/// request was cancelled") once `wanted_no_more` returns true; it is asked
/// every [`GIVE_UP_CHECK`] while a read waits. For the threads that each
/// carry one request and read its answer.
pub(super) fn give_up_when(wanted_no_more: impl Fn() -> bool + 'static) {
    GIVE_UP.with(|g| *g.borrow_mut() = Some(Box::new(wanted_no_more)));
}

/// Whether this thread's reads are no longer wanted.
fn given_up() -> bool {
    GIVE_UP.with(|g| g.borrow().as_ref().is_some_and(|f| f()))
}

/// Whether this thread's reads may be given up (they then wait in slices).
fn may_give_up() -> bool {
    GIVE_UP.with(|g| g.borrow().is_some())
}

/// The error a given-up read ends with.
fn given_up_error() -> Error {
    Error::Io(io::Error::new(
        io::ErrorKind::ConnectionAborted,
        "the request was cancelled",
    ))
}

/// An agent with `config` whose TCP sockets ask for quick ACKs.
pub(super) fn agent(config: ureq::config::Config) -> ureq::Agent {
    let chain =
        ().chain(ConnectProxyConnector::default())
            .chain(QuickAckConnector)
            .chain(RustlsConnector::default());
    ureq::Agent::with_parts(config, chain, DefaultResolver::default())
}

/// Opens a [`QuickAckTransport`] unless an earlier connector (a proxy)
/// already made the connection.
#[derive(Debug)]
struct QuickAckConnector;

impl<In: Transport> Connector<In> for QuickAckConnector {
    type Out = Either<In, QuickAckTransport>;

    fn connect(
        &self,
        details: &ConnectionDetails,
        chained: Option<In>,
    ) -> Result<Option<Self::Out>, Error> {
        if let Some(c) = chained {
            return Ok(Some(Either::A(c)));
        }
        let stream = Arc::new(connect_first(details)?);
        (details.register_shutdown)(Arc::downgrade(&stream) as Weak<dyn ShutdownHandle>)?;
        let config = details.config;
        Ok(Some(Either::B(QuickAckTransport {
            stream,
            buffers: LazyBuffers::new(config.input_buffer_size(), config.output_buffer_size()),
            read_timeout: None,
            write_timeout: None,
        })))
    }
}

/// Connect to the first of the resolved addresses that answers: each
/// address but the last gets half of the time left, the last all of it (a
/// host whose first address hangs still gets its second tried).
fn connect_first(details: &ConnectionDetails) -> Result<TcpStream, Error> {
    let start = std::time::Instant::now();
    let budget = details.timeout.not_zero().map(|d| *d);
    let addrs: &[SocketAddr] = &details.addrs;
    let mut last_err = None;
    for (i, addr) in addrs.iter().enumerate() {
        let left = budget.map(|b| b.saturating_sub(start.elapsed()));
        if left.is_some_and(|l| l.is_zero()) {
            return Err(Error::Timeout(details.timeout.reason));
        }
        let this = left.map(|l| if i + 1 == addrs.len() { l } else { l / 2 });
        let tried = match this {
            Some(t) => TcpStream::connect_timeout(addr, t.max(MIN_PER_ADDRESS)),
            None => TcpStream::connect(addr),
        };
        match tried {
            Ok(s) => {
                if details.config.no_delay() {
                    s.set_nodelay(true)?;
                }
                return Ok(s);
            }
            Err(e) if e.kind() == io::ErrorKind::TimedOut => {
                last_err = Some(Error::Timeout(Timeout::Connect));
            }
            Err(e) if is_address_specific(&e) => last_err = Some(Error::Io(e)),
            Err(e) => return Err(Error::Io(e)),
        }
    }
    Err(last_err.unwrap_or_else(|| {
        Error::Io(io::Error::new(
            io::ErrorKind::ConnectionRefused,
            "no address to connect to",
        ))
    }))
}

/// The shortest connect attempt on one address.
const MIN_PER_ADDRESS: std::time::Duration = std::time::Duration::from_millis(10);

/// A failed connect that concerns only the address tried: the next one may
/// answer (refused, or no route for that address family).
fn is_address_specific(e: &io::Error) -> bool {
    matches!(
        e.kind(),
        io::ErrorKind::ConnectionRefused
            | io::ErrorKind::HostUnreachable
            | io::ErrorKind::NetworkUnreachable
            | io::ErrorKind::NetworkDown
            | io::ErrorKind::AddrNotAvailable
    )
}

/// A TCP connection that asks for a quick ACK before every read.
#[derive(Debug)]
pub(super) struct QuickAckTransport {
    stream: Arc<TcpStream>,
    buffers: LazyBuffers,
    /// The timeouts last set on the socket (set again only when they
    /// change).
    read_timeout: Option<std::time::Duration>,
    write_timeout: Option<std::time::Duration>,
}

/// The time a read or write may take, or the timeout error when none is
/// left.
fn time_left(timeout: NextTimeout) -> Result<Option<std::time::Duration>, Error> {
    if timeout.after.is_zero() {
        return Err(Error::Timeout(timeout.reason));
    }
    Ok(timeout.not_zero().map(|d| *d))
}

/// An I/O error as ureq reports it: a socket timeout (`EAGAIN` under
/// `SO_RCVTIMEO`) is the timeout `reason`.
fn io_error(e: io::Error, reason: Timeout) -> Error {
    match e.kind() {
        io::ErrorKind::TimedOut | io::ErrorKind::WouldBlock => Error::Timeout(reason),
        _ => Error::Io(e),
    }
}

/// Ask for the ACK of what arrives next to be sent at once (Linux: it
/// leaves the delayed-ACK mode a request-answer exchange puts the
/// connection in; the kernel may enter it again, so this is done before
/// every read).
fn quick_ack(stream: &TcpStream) {
    #[cfg(target_os = "linux")]
    {
        use std::os::fd::AsRawFd;
        let on: libc::c_int = 1;
        // SAFETY: setsockopt on a socket this transport owns, with a
        // pointer to a live c_int and its size.
        unsafe {
            libc::setsockopt(
                stream.as_raw_fd(),
                libc::IPPROTO_TCP,
                libc::TCP_QUICKACK,
                (&on as *const libc::c_int).cast(),
                std::mem::size_of::<libc::c_int>() as libc::socklen_t,
            );
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = stream;
}

impl Transport for QuickAckTransport {
    fn buffers(&mut self) -> &mut dyn Buffers {
        &mut self.buffers
    }

    fn transmit_output(&mut self, amount: usize, timeout: NextTimeout) -> Result<(), Error> {
        let timeout = timeout.for_write();
        let left = time_left(timeout)?;
        if left != self.write_timeout {
            self.stream.set_write_timeout(left)?;
            self.write_timeout = left;
        }
        let output = &self.buffers.output()[..amount];
        (&*self.stream)
            .write_all(output)
            .map_err(|e| io_error(e, timeout.reason))
    }

    fn await_input(&mut self, timeout: NextTimeout) -> Result<bool, Error> {
        let timeout = timeout.for_read();
        let left = time_left(timeout)?;
        let start = Instant::now();
        let sliced = may_give_up();
        let amount = loop {
            if sliced && given_up() {
                return Err(given_up_error());
            }
            // What is left of the read's own timeout; a read that may be
            // given up waits at most a slice of it at a time.
            let rest = left.map(|l| l.saturating_sub(start.elapsed()));
            if rest.is_some_and(|r| r.is_zero()) {
                return Err(Error::Timeout(timeout.reason));
            }
            let wait = match (sliced, rest) {
                (true, Some(r)) => Some(r.min(GIVE_UP_CHECK)),
                (true, None) => Some(GIVE_UP_CHECK),
                (false, r) => r,
            };
            if wait != self.read_timeout {
                self.stream.set_read_timeout(wait)?;
                self.read_timeout = wait;
            }
            quick_ack(&self.stream);
            match (&*self.stream).read(self.buffers.input_append_buf()) {
                // A signal: read again for the time left (a socket read
                // with a timeout is not restarted by the kernel).
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                // A slice ran out: check, then wait for the rest.
                Err(e)
                    if sliced
                        && matches!(
                            e.kind(),
                            io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
                        ) => {}
                Err(e) => return Err(io_error(e, timeout.reason)),
                Ok(n) => break n,
            }
        };
        self.buffers.input_appended(amount);
        Ok(amount > 0)
    }

    fn is_open(&mut self) -> bool {
        is_idle_and_open(&self.stream)
    }
}

/// A pooled connection is usable when the server sent nothing on it and did
/// not close it: a read that would block, done without blocking.
fn is_idle_and_open(stream: &TcpStream) -> bool {
    if stream.set_nonblocking(true).is_err() {
        return false;
    }
    let mut one = [0u8];
    let idle = matches!(
        (&*stream).read(&mut one),
        Err(e) if e.kind() == io::ErrorKind::WouldBlock
    );
    stream.set_nonblocking(false).is_ok() && idle
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::BufRead;
    use std::net::TcpListener;

    /// A one-connection test server on a free port: `serve` gets the
    /// connection's reader and writer once a client connects.
    fn one_connection<T: Send + 'static>(
        serve: impl FnOnce(io::BufReader<TcpStream>, TcpStream) -> T + Send + 'static,
    ) -> (u16, std::thread::JoinHandle<T>) {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
        let port = listener.local_addr().expect("addr").port();
        let server = std::thread::spawn(move || {
            let (conn, _) = listener.accept().expect("accept");
            let reader = io::BufReader::new(conn.try_clone().expect("clone"));
            serve(reader, conn)
        });
        (port, server)
    }

    /// Read a request's head, to its empty line.
    fn read_head(reader: &mut io::BufReader<TcpStream>) {
        loop {
            let mut line = String::new();
            if reader.read_line(&mut line).expect("read") == 0 || line == "\r\n" {
                return;
            }
        }
    }

    /// The agent speaks HTTP over these sockets: a request, its answer in
    /// two writes, then a second request on the same (pooled) connection.
    #[test]
    fn the_agent_reads_answers_and_reuses_its_connection() {
        let (port, server) = one_connection(|mut reader, mut writer| {
            for body in ["one", "two"] {
                read_head(&mut reader);
                let head = format!("HTTP/1.1 200 OK\r\nContent-Length: {}\r\n\r\n", body.len());
                writer.write_all(head.as_bytes()).expect("head");
                writer.write_all(body.as_bytes()).expect("body");
            }
        });
        let config = ureq::Agent::config_builder().build();
        let agent = agent(config);
        let url = format!("http://127.0.0.1:{port}/");
        for want in ["one", "two"] {
            let got = agent
                .get(&url)
                .call()
                .expect("answer")
                .into_body()
                .read_to_string()
                .expect("body");
            assert_eq!(got, want);
        }
        // One connection served both: the server accepted only one.
        server.join().expect("server");
    }

    /// A read given up on its thread ends within a slice, and the
    /// connection is closed: the server, which writes nothing more after a
    /// stream's headers, reads the end of the connection.
    #[test]
    fn a_read_given_up_closes_its_connection() {
        use std::sync::atomic::{AtomicBool, Ordering};
        let (port, server) = one_connection(|mut reader, mut writer| {
            read_head(&mut reader);
            writer
                .write_all(b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\n: open\n\n")
                .expect("head");
            // Nothing more is written: the next read sees the client close.
            let mut rest = Vec::new();
            let _ = reader.read_to_end(&mut rest);
            Instant::now()
        });
        let cancelled = Arc::new(AtomicBool::new(false));
        let flag = Arc::clone(&cancelled);
        let client = std::thread::spawn(move || {
            give_up_when(move || flag.load(Ordering::SeqCst));
            // Without the give-up the read would end only here, 5 s on.
            let config = ureq::Agent::config_builder()
                .timeout_recv_body(Some(Duration::from_secs(5)))
                .build();
            let agent = agent(config);
            let mut body = agent
                .get(format!("http://127.0.0.1:{port}/"))
                .call()
                .expect("headers")
                .into_body()
                .into_reader();
            let mut all = Vec::new();
            // A body read to the connection's end takes the given-up read
            // as that end; either way nothing more is waited for.
            let _ = body.read_to_end(&mut all);
            all
        });
        std::thread::sleep(Duration::from_millis(300));
        let set = Instant::now();
        cancelled.store(true, Ordering::SeqCst);
        let read = client.join().expect("client");
        assert_eq!(read, b": open\n\n", "what was sent before the cancel");
        let closed = server.join().expect("server");
        let after = closed.duration_since(set);
        assert!(
            after < Duration::from_secs(2),
            "closed {after:?} after the cancel"
        );
    }
}
