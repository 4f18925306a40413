//! How a session starts, per revision: MCP 2026-07-28 asks `server/discover`
//! (no handshake, no session); MCP 2025-11-25 runs the `initialize`
//! handshake and `notifications/initialized`, then (HTTP) opens the GET
//! stream. With `--protocol auto` the modern question comes first and the
//! handshake follows when the server does not speak 2026-07-28; a stdio
//! server that cannot go on after the question (it exited, or refuses or
//! ignores the handshake that follows) is started again.
//!
//! The revision chosen ([`Lifecycle::revision`](super::Lifecycle),
//! a [`Revision`], with the version the server agreed in
//! `Lifecycle::version`) is said once on stderr ("connected to ... (MCP
//! ...)").

use std::time::Duration;

use serde_json::{json, Value};
use tokio::time::Instant;

use super::{connect, str_field, Client};
use crate::binding::{Revision, Server};
use crate::mcp::jsonrpc::{self, METHOD_NOT_FOUND};
use crate::mcp::request_meta::{self, UNSUPPORTED_VERSION};
use crate::mcp::transport::TransportError;
use crate::mcp::ProtocolBreak;
use crate::mcp::{McpError, Target};
use crate::safe_text;

/// The longest wait for the answer to `server/discover` under `--protocol
/// auto` (and at most half of `--connect-timeout`): a server of an older
/// revision may ignore the unknown method instead of answering it (over
/// HTTP, hold its stream open), and the handshake then needs its time.
pub const DISCOVER_WAIT: Duration = Duration::from_secs(15);
/// How long a stdio server whose connection closed may take to exit (and
/// its last stderr lines to arrive) before its exit status is read.
const EXIT_WAIT: Duration = Duration::from_millis(500);

/// What `--protocol auto` does after `server/discover` failed.
enum Fallback {
    /// `initialize` on the same connection.
    SameProcess,
    /// Start the stdio server again, then `initialize`.
    Restart,
}

impl Client {
    /// Choose the revision (`--protocol`; None asks the server) and
    /// connect in it: afterwards the lifecycle's `revision`, `version` and
    /// `server` are set.
    ///
    /// Errors: the question or the handshake failed (see [`McpError`]).
    pub(super) async fn connect_revision(&mut self) -> Result<(), McpError> {
        let out = match self.opts.protocol {
            None => self.connect_auto().await,
            Some(Revision::V2025_11_25) => self.start_legacy().await,
            // 2026-07-28, the only other revision pinned.
            Some(_) => self.discover().await,
        };
        self.life.handshake_until = None;
        match out {
            Err(e) => Err(self.exited_early(e, "the handshake").await),
            ok => ok,
        }
    }

    /// `--protocol auto`: `server/discover`, then the fallback, all within
    /// one `--connect-timeout` (a hung server fails once, with the figure
    /// given). A stdio server that exited before writing anything (as
    /// servers that know only the older revision may, on an unknown first
    /// request) is started once more for the handshake, said in one line;
    /// one that exits then too is named once, with its status.
    async fn connect_auto(&mut self) -> Result<(), McpError> {
        let total = self.opts.connect_timeout;
        self.life.handshake_until = Some((
            Instant::now() + total,
            self.desk.sign_ins().time_signing_in(),
        ));
        let e = match self.discover().await {
            Ok(()) => return Ok(()),
            Err(e) => self.exited_early(e, "server/discover").await,
        };
        if matches!(e, McpError::ExitedEarly { .. }) {
            return self.start_after_exit().await;
        }
        let Some(how) = self.fallback_for(&e) else {
            return Err(e);
        };
        if !self.opts.quiet {
            self.notice(&format!(
                "the server does not answer server/discover as an MCP {} server ({}): using MCP {} (initialize)",
                Revision::V2026_07_28,
                safe_text::display(&e.to_string()),
                Revision::V2025_11_25
            ));
        }
        self.fall_back(how).await.map_err(|e| match e {
            McpError::Timeout { .. } => McpError::Timeout {
                method: "server/discover or initialize".into(),
                limit: total,
            },
            e => e,
        })
    }

    /// The stdio server exited, silent, when asked `server/discover`: start
    /// it again for the 2025-11-25 handshake.
    ///
    /// Errors: [`McpError::ExitedEarly`] when it exits silent again (named
    /// once, for both questions), or what the handshake met.
    async fn start_after_exit(&mut self) -> Result<(), McpError> {
        if !self.opts.quiet {
            self.notice(&format!(
                "the server exited when asked server/discover: starting it again for the MCP {} handshake",
                Revision::V2025_11_25
            ));
        }
        self.link.transport.reset_session();
        self.restart()?;
        match self.start_legacy().await {
            Ok(()) => Ok(()),
            Err(e) => Err(match self.exited_early(e, "initialize").await {
                McpError::ExitedEarly { status, stderr, .. } => McpError::ExitedEarly {
                    method: "server/discover, and again before answering initialize".into(),
                    status,
                    stderr,
                },
                e => e,
            }),
        }
    }

    /// `e` (a failure while waiting for `method`) as a stdio server that
    /// exited before it wrote anything on its stdout: its exit status and
    /// its last stderr line ([`McpError::ExitedEarly`]); any other `e` as
    /// it is.
    async fn exited_early(&mut self, e: McpError, method: &str) -> McpError {
        let method = match &e {
            McpError::Waiting { method, source }
                if matches!(**source, McpError::Transport(_) | McpError::Closed(_)) =>
            {
                method.clone()
            }
            McpError::Transport(_) | McpError::Closed(_) => method.to_owned(),
            _ => return e,
        };
        let Some(status) = self.link.transport.exited_silent(EXIT_WAIT) else {
            return e;
        };
        // Its last stderr lines may still be on their way.
        while let Ok(Some(item)) = tokio::time::timeout(EXIT_WAIT, self.link.rx.recv()).await {
            if let crate::mcp::transport::Incoming::Log(line) = item {
                self.server_log(line);
            }
        }
        McpError::ExitedEarly {
            method,
            status,
            stderr: self.life.last_stderr.clone(),
        }
    }

    /// Whether `--protocol auto` falls back to the handshake after `e`, and
    /// how. None: the server speaks 2026-07-28 (or cannot be reached) and
    /// `e` is the answer.
    fn fallback_for(&self, e: &McpError) -> Option<Fallback> {
        let stdio = matches!(self.opts.target, Target::Stdio { .. });
        match e {
            McpError::Rpc { code, .. }
                if *code == request_meta::HEADER_MISMATCH
                    || *code == request_meta::MISSING_CAPABILITY =>
            {
                None
            }
            McpError::Rpc { .. } | McpError::Protocol(_) => Some(Fallback::SameProcess),
            McpError::Timeout { .. } if stdio => Some(Fallback::Restart),
            // A server that holds the question without an answer: the
            // handshake is a request of its own over HTTP.
            McpError::Timeout { .. } => Some(Fallback::SameProcess),
            McpError::Waiting { .. } | McpError::Transport(_) | McpError::Closed(_) if stdio => {
                Some(Fallback::Restart)
            }
            McpError::Transport(_) => Some(Fallback::SameProcess),
            McpError::Delivery {
                source: TransportError::Status(s),
                ..
            } if matches!(s.status, 400 | 404 | 405) => Some(Fallback::SameProcess),
            _ => None,
        }
    }

    /// The handshake after a failed `server/discover`: on the same
    /// connection, or after starting the stdio server again (at once for
    /// `Restart`, or when the handshake on the same process fails).
    async fn fall_back(&mut self, how: Fallback) -> Result<(), McpError> {
        self.life.revision = Revision::V2025_11_25;
        self.link.transport.reset_session();
        let stdio = matches!(self.opts.target, Target::Stdio { .. });
        if matches!(how, Fallback::Restart) {
            self.notice(&format!(
                "starting the server again for the MCP {} handshake",
                Revision::V2025_11_25
            ));
            self.restart()?;
            return self.start_legacy().await;
        }
        match self.initialize().await {
            Ok(_) => {
                self.link.transport.start_listening();
                Ok(())
            }
            Err(e) if stdio && !matches!(e, McpError::Quit | McpError::Interrupted(_)) => {
                self.notice(&format!(
                    "the server did not take initialize after server/discover ({}): starting it again",
                    safe_text::display(&e.to_string())
                ));
                self.restart()?;
                self.start_legacy().await
            }
            Err(e) => Err(e),
        }
    }

    /// Connect again, over MCP 2025-11-25 only (the person chose to run a
    /// call again that way: [`super::browse`]): the stdio server is started
    /// again (an HTTP server gets a new connection), then the handshake;
    /// every later call of the session is a 2025-11-25 one.
    ///
    /// Errors: the server could not be started, or refused the handshake.
    pub(super) async fn reconnect_legacy(&mut self) -> Result<(), McpError> {
        self.opts.protocol = Some(Revision::V2025_11_25);
        self.restart()?;
        self.link.dropped.clear();
        match self.start_legacy().await {
            Err(e) => Err(self.exited_early(e, "initialize").await),
            ok => ok,
        }
    }

    /// End the stdio server and start it again: a new connection, nothing
    /// in flight.
    fn restart(&mut self) -> Result<(), McpError> {
        self.link.transport.close();
        let (transport, rx) = connect(&self.opts, self.desk.trace())?;
        self.link.transport = transport;
        self.link.rx = rx;
        self.link.pending.clear();
        self.link.responses.clear();
        Ok(())
    }

    /// MCP 2025-11-25: the handshake, then (HTTP) the GET stream.
    async fn start_legacy(&mut self) -> Result<(), McpError> {
        self.life.revision = Revision::V2025_11_25;
        self.initialize().await?;
        self.link.transport.start_listening();
        Ok(())
    }

    /// MCP 2026-07-28: `server/discover` (bounded by `--connect-timeout`,
    /// and over stdio under `auto` by [`DISCOVER_WAIT`]). A -32022 that
    /// names 2026-07-28 among the supported versions is asked once more.
    ///
    /// Errors: the request failed, or the server does not list 2026-07-28
    /// ([`McpError::Rpc`] -32022 style, with the versions it named).
    async fn discover(&mut self) -> Result<(), McpError> {
        self.life.revision = Revision::V2026_07_28;
        self.life.version = Revision::V2026_07_28.as_str().to_owned();
        self.link.transport.set_stateless();
        let mut limit = self.opts.connect_timeout;
        if self.opts.protocol.is_none() {
            // The rest of --connect-timeout is the handshake's.
            limit = (limit / 2).min(DISCOVER_WAIT);
        }
        let mut asked_again = false;
        let found = loop {
            match self
                .request_once("server/discover", None, Some(limit))
                .await
            {
                Ok(r) => break r,
                Err(McpError::Rpc {
                    code: UNSUPPORTED_VERSION,
                    data,
                    ..
                }) if !asked_again && lists_modern(data.as_deref()) => {
                    asked_again = true;
                    self.notice(&format!(
                        "the server refused the version once (-32022) but lists {}: asking again",
                        Revision::V2026_07_28
                    ));
                }
                // Asked for 2026-07-28 only, of a server without it.
                Err(McpError::Rpc {
                    method,
                    code: METHOD_NOT_FOUND,
                    message,
                    data,
                }) if self.opts.protocol == Some(Revision::V2026_07_28) => {
                    return Err(McpError::Rpc {
                        method,
                        code: METHOD_NOT_FOUND,
                        message: format!(
                            "{message} (the server has no server/discover: it speaks only MCP {} or older; drop --protocol, or give --protocol auto)",
                            Revision::V2025_11_25
                        ),
                        data,
                    });
                }
                Err(e) => return Err(e),
            }
        };
        let Some(list) = found.get("supportedVersions").and_then(Value::as_array) else {
            // An answer without the versions (an older server answering
            // every method with `{}`) is not a 2026-07-28 server.
            return Err(ProtocolBreak::NoSupportedVersions.into());
        };
        {
            let modern = Revision::V2026_07_28.as_str();
            if !list.iter().any(|v| v.as_str() == Some(modern)) {
                let data = json!({ "supported": list, "requested": modern });
                let words =
                    request_meta::explain(UNSUPPORTED_VERSION, Some(&data)).unwrap_or_default();
                return Err(McpError::Rpc {
                    method: "server/discover".into(),
                    code: UNSUPPORTED_VERSION,
                    message: safe_text::display(&words).into_owned(),
                    data: Some(Box::new(data)),
                });
            }
        }
        let info = found
            .get("serverInfo")
            .or_else(|| {
                found
                    .get("_meta")
                    .and_then(|m| m.get(request_meta::META_SERVER_INFO))
            })
            .cloned()
            .unwrap_or(Value::Null);
        let server = match str_field(&info, "name") {
            Some(name) => Server {
                name,
                title: str_field(&info, "title"),
                version: str_field(&info, "version"),
            },
            None => Server {
                name: self.target_name(),
                title: None,
                version: None,
            },
        };
        self.say_connected(&server);
        self.life.server = Some(server);
        Ok(())
    }

    /// A name for a server that did not name itself: the host of its URL,
    /// or its program's file name.
    fn target_name(&self) -> String {
        match &self.opts.target {
            Target::Http { url } => url::Url::parse(url)
                .ok()
                .and_then(|u| u.host_str().map(str::to_owned))
                .unwrap_or_else(|| "mcp-server".into()),
            Target::Stdio { program, .. } => std::path::Path::new(program)
                .file_name()
                .map(|f| f.to_string_lossy().into_owned())
                .unwrap_or_else(|| "mcp-server".into()),
        }
    }

    /// The one line that says which server and which protocol version.
    fn say_connected(&self, server: &Server) {
        if self.opts.quiet {
            return;
        }
        self.notice(&format!(
            "connected to {} {} (MCP {})",
            safe_text::display(server.title.as_deref().unwrap_or(&server.name)),
            safe_text::display(server.version.as_deref().unwrap_or("")),
            safe_text::display(&self.life.version)
        ));
        if !self.opts.roots.is_empty() {
            let line = crate::mcp::roots::summary(&self.opts.roots);
            self.desk.trace().set_roots(line.clone());
            self.notice(&line);
        }
    }

    /// `initialize` (bounded by `--connect-timeout`) and
    /// `notifications/initialized`; returns the protocol version. A refusal
    /// with -32022 or -32601 says which versions the server speaks (as far
    /// as it said).
    pub(super) async fn initialize(&mut self) -> Result<String, McpError> {
        self.life.revision = Revision::V2025_11_25;
        let params = json!({
            "protocolVersion": Revision::V2025_11_25.as_str(),
            "capabilities": self.capabilities(),
            "clientInfo": request_meta::client_info(),
        });
        let limit = match self.life.handshake_until {
            Some((until, signed)) => {
                let moved = self
                    .desk
                    .sign_ins()
                    .time_signing_in()
                    .saturating_sub(signed);
                (until + moved).saturating_duration_since(Instant::now())
            }
            None => self.opts.connect_timeout,
        };
        let init = match self
            .request_once("initialize", Some(params), Some(limit))
            .await
        {
            Err(McpError::Rpc {
                method,
                code: METHOD_NOT_FOUND,
                message,
                data,
            }) => {
                // Under --protocol auto, server/discover was asked first
                // and did not do: no other revision is left to try.
                let modern = Revision::V2026_07_28;
                let hint = match self.opts.protocol {
                    None => format!(
                        "the server has no initialize, and did not answer server/discover as an MCP {modern} server either: it speaks neither revision this client knows, or its server/discover is broken"
                    ),
                    Some(_) => format!(
                        "the server has no initialize: it speaks only MCP {modern} or later; try --protocol auto"
                    ),
                };
                return Err(McpError::Rpc {
                    method,
                    code: METHOD_NOT_FOUND,
                    message: format!("{message} ({hint})"),
                    data,
                });
            }
            other => other?,
        };
        let version = str_field(&init, "protocolVersion")
            .ok_or_else(|| McpError::Protocol(ProtocolBreak::NoProtocolVersion))?;
        let asked = Revision::V2025_11_25;
        if version != asked.as_str() {
            if !Revision::OLDER_WIRE_VERSIONS.contains(&version.as_str()) {
                return Err(ProtocolBreak::UnknownVersion(version).into());
            }
            self.notice(&format!(
                "the server speaks MCP {version}, not {asked}: URL mode is not available"
            ));
        }
        let info = init.get("serverInfo").cloned().unwrap_or(Value::Null);
        let Some(name) = str_field(&info, "name") else {
            return Err(ProtocolBreak::NoServerName.into());
        };
        let server = Server {
            name,
            title: str_field(&info, "title"),
            version: str_field(&info, "version"),
        };
        self.life.version = version.clone();
        self.say_connected(&server);
        self.life.server = Some(server);
        self.link.transport.set_protocol_version(&version);
        let initialized = jsonrpc::notification("notifications/initialized", None);
        if let Some(delivered) = self.link.transport.send_ordered(&initialized)? {
            self.await_delivery(delivered, limit).await?;
        }
        Ok(version)
    }

    /// Serve the server until `delivered` fires (at most `limit`).
    async fn await_delivery(
        &mut self,
        mut delivered: crate::mcp::transport::Delivered,
        limit: Duration,
    ) -> Result<(), McpError> {
        use tokio::sync::oneshot::error::TryRecvError;
        let until = Instant::now() + limit;
        loop {
            match delivered.try_recv() {
                Ok(Ok(())) | Err(TryRecvError::Closed) => return Ok(()),
                Ok(Err(source)) => {
                    return Err(McpError::Delivery {
                        what: "notifications/initialized".into(),
                        source,
                    })
                }
                Err(TryRecvError::Empty) => {}
            }
            if Instant::now() >= until {
                return Err(McpError::NotTaken {
                    secs: limit.as_secs(),
                });
            }
            let tick = (Instant::now() + Duration::from_millis(10)).min(until);
            self.step(Some(tick)).await?;
        }
    }
}

/// Whether a -32022 error's `data.supported` names 2026-07-28.
fn lists_modern(data: Option<&Value>) -> bool {
    let modern = Revision::V2026_07_28.as_str();
    data.and_then(|d| d.get("supported"))
        .and_then(Value::as_array)
        .is_some_and(|l| l.iter().any(|v| v.as_str() == Some(modern)))
}
