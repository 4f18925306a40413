//! The server's requests of the client other than elicitations, as a
//! session answers them when pushed (2025-11-25): `sampling/createMessage`
//! (put to the person as a form: [`crate::mcp::sampling`]) and
//! `roots/list` (from `--root`: [`crate::mcp::roots`]). The round driver
//! answers the same requests when they come as input requests.

use serde_json::Value;

use super::{Ask, Client};
use crate::mcp::jsonrpc;
use crate::mcp::sampling::{
    mark, sampling_answer, sampling_params, ROOTS, SAMPLING, USER_REJECTED, USER_REJECTED_MESSAGE,
};
use crate::mcp::McpError;
use crate::safe_text;

impl Client {
    /// The server's pushed `sampling/createMessage` (2025-11-25) with
    /// request id `id`: put to the person when the client declared
    /// `sampling`, else -32601 as any request it does not offer.
    pub(super) fn sampling_request(&mut self, id: Value, params: Value) -> Result<(), McpError> {
        if !self.opts.sampling {
            return self.not_offered(&id, SAMPLING);
        }
        let form = sampling_params(&params);
        match self.prepare(&form, None) {
            Ok(mut req) => {
                mark(&mut req, &params);
                self.notice("the server asks for a model's reply (sampling/createMessage): it is put to the person");
                self.ask(Some(id), req, None, None).map(|_| ())
            }
            Err((code, why, data)) => self.reject_sampling(&id, code, why, data),
        }
    }

    /// A sampling request whose form could not be made (its text breaks a
    /// limit): the error goes back with the reason.
    fn reject_sampling(
        &mut self,
        id: &Value,
        code: i64,
        why: String,
        data: Option<Value>,
    ) -> Result<(), McpError> {
        let why = why.replace("elicitation/create", SAMPLING);
        self.notice(&format!("refused a sampling request: {why}"));
        self.elic.refused.push(why.clone());
        self.reply(jsonrpc::error_response(id, code, &why, data))
    }

    /// The server's pushed `roots/list` (2025-11-25): the `--root` list,
    /// or -32601 when none was given (the capability was not declared).
    pub(super) fn roots_request(&mut self, id: Value) -> Result<(), McpError> {
        if self.opts.roots.is_empty() {
            return self.not_offered(&id, ROOTS);
        }
        self.notice(&format!(
            "the server asked for the roots: sent {}",
            self.opts.roots.len()
        ));
        let result = crate::mcp::roots::list_result(&self.opts.roots);
        self.reply(jsonrpc::response(&id, result))
    }

    /// -32601 for a request the client does not offer, said on stderr.
    pub(super) fn not_offered(&mut self, id: &Value, method: &str) -> Result<(), McpError> {
        self.notice(&format!(
            "the server asked for '{}', which this client does not offer",
            safe_text::display(method)
        ));
        self.reply(jsonrpc::error_response(
            id,
            jsonrpc::METHOD_NOT_FOUND,
            &format!(
                "method not found: {method} (ahp-elicit answers {})",
                self.offered().join(", ")
            ),
            None,
        ))
    }

    /// The server requests this client answers, as declared.
    pub(super) fn offered(&self) -> Vec<&'static str> {
        let mut m = vec!["elicitation/create", "ping"];
        if self.opts.sampling {
            m.push(SAMPLING);
        }
        if !self.opts.roots.is_empty() {
            m.push(ROOTS);
        }
        m
    }

    /// The answer sent for a pushed sampling request whose form got
    /// `elicit` (an `ElicitResult`): the `CreateMessageResult`, or the
    /// user's rejection.
    pub(super) fn answer_sampling(&mut self, ask: &Ask, elicit: &Value) -> Result<(), McpError> {
        let Some(id) = ask.rpc_id.as_ref() else {
            return Ok(());
        };
        match sampling_answer(elicit) {
            Some(result) => {
                self.notice("sent the reply you wrote as the model's (model \"human\")");
                self.reply(jsonrpc::response(id, result))
            }
            None => {
                self.notice("the sampling request was rejected: the server got error -1");
                self.reply(jsonrpc::error_response(
                    id,
                    USER_REJECTED,
                    USER_REJECTED_MESSAGE,
                    None,
                ))
            }
        }
    }
}
