//! The session's protocol trace on the sending side: a [`Transport`] that
//! records every message it is given to send in the session's
//! [`Trace`] before passing it on (what is received is recorded where the
//! client takes it, `Client::on_incoming`). Recorded before sending, so a
//! request is in the trace before its answer can be.

use std::sync::Arc;

use serde_json::Value;

use super::super::transport::{Delivered, Transport};
use super::super::McpError;
use crate::responder::trace::{Direction, Trace};

/// `inner`, recording what it sends in `trace`.
pub(in crate::mcp) struct Traced {
    inner: Box<dyn Transport>,
    trace: Arc<Trace>,
}

impl Traced {
    /// Wrap `inner`: what it sends from now on goes into `trace` too.
    pub(in crate::mcp) fn new(inner: Box<dyn Transport>, trace: Arc<Trace>) -> Self {
        Traced { inner, trace }
    }
}

impl Transport for Traced {
    fn send(&mut self, msg: &Value, request_id: Option<u64>) -> Result<(), McpError> {
        self.trace.record(Direction::Out, msg);
        self.inner.send(msg, request_id)
    }

    fn send_request(
        &mut self,
        msg: &Value,
        id: u64,
        headers: Vec<(String, String)>,
    ) -> Result<(), McpError> {
        self.trace.record(Direction::Out, msg);
        self.inner.send_request(msg, id, headers)
    }

    fn set_stateless(&mut self) {
        self.inner.set_stateless();
    }

    fn cancel(&mut self, id: u64) -> bool {
        self.inner.cancel(id)
    }

    fn set_protocol_version(&mut self, version: &str) {
        self.inner.set_protocol_version(version);
    }

    fn send_ordered(&mut self, msg: &Value) -> Result<Option<Delivered>, McpError> {
        self.trace.record(Direction::Out, msg);
        self.inner.send_ordered(msg)
    }

    fn start_listening(&mut self) {
        self.inner.start_listening();
    }

    fn reset_session(&mut self) {
        self.inner.reset_session();
    }

    fn exited_silent(&mut self, grace: std::time::Duration) -> Option<std::process::ExitStatus> {
        self.inner.exited_silent(grace)
    }

    fn close(&mut self) {
        self.inner.close();
    }
}
