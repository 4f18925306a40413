//! A form the client refused with -32602 (its `requestedSchema` broke the
//! rules under `--schema-policy strict`) is shown to the person on the
//! "cannot be answered as a form" screen, with each rule and pointer, once
//! the error was sent: the server is not kept waiting, and the person sees
//! why nothing was asked instead of reading it on stderr after the screen
//! closed. Whatever the person then chooses is not sent (the server already
//! has its answer).

use serde_json::Value;

use super::Client;
use crate::binding::{wrap_request, Mode, RequestView, SchemaPolicy, WrapOptions};
use crate::mcp::jsonrpc::INVALID_PARAMS;
use crate::mcp::McpError;
use crate::responder::{Context, Progress};
use crate::safe_text;
use crate::session::AskError;

/// Most violations listed on the screen (the rest are counted).
const MAX_SHOWN: usize = 8;

impl Client {
    /// After the -32602 `code` refused the form `params` with the
    /// violations in `data`: put the refusal on the person's screen (only
    /// with [`McpOptions::show_refusals`](crate::mcp::McpOptions::show_refusals)).
    /// A request that cannot be read even under the compatible policy is
    /// left to the stderr notice.
    pub(super) fn show_refusal(
        &mut self,
        params: &Value,
        code: i64,
        data: Option<&Value>,
    ) -> Result<(), McpError> {
        if !self.opts.show_refusals || self.elic.quit || code != INVALID_PARAMS {
            return Ok(());
        }
        let Some(list) = data
            .and_then(|d| d.get("violations"))
            .and_then(Value::as_array)
        else {
            return Ok(());
        };
        let Some(server) = self.life.server.clone() else {
            return Ok(());
        };
        let id = format!("{}-{}-refused", self.run_tag, self.elic.asked);
        let options = WrapOptions {
            policy: SchemaPolicy::Compatible,
            ..WrapOptions::new(&server, &self.adapter, &id)
        };
        let read = wrap_request(params, &options);
        let Ok(mut req) = read else {
            return Ok(());
        };
        if req.mode != Mode::Form {
            return Ok(());
        }
        req.view = RequestView::not_a_form(params, refusal_reasons(list, self.opts.schema_policy));
        let cx = Context {
            progress: Progress::of(self.elic.counted(), self.elic.counted()),
            deadline: None,
            ..Default::default()
        };
        match self.desk.ask(req, cx) {
            Ok(key) => {
                self.elic.shown_refusals.insert(key);
                Ok(())
            }
            Err(AskError::Busy) => Ok(()),
            Err(AskError::Gone) => {
                Err(McpError::Responder(crate::responder::RespondError::Stopped))
            }
        }
    }
}

/// The screen's reasons: one line per violation (`pointer: [rule]
/// message`, sanitized), then what the server was told.
pub(super) fn refusal_reasons(violations: &[Value], policy: SchemaPolicy) -> Vec<String> {
    let field = |v: &Value, k: &str| v.get(k).and_then(Value::as_str).unwrap_or("").to_owned();
    let mut reasons: Vec<String> = violations
        .iter()
        .take(MAX_SHOWN)
        .map(|v| {
            let p = field(v, "pointer");
            let p = if p.is_empty() { "(root)".to_owned() } else { p };
            let line = format!("{p}: [{}] {}", field(v, "rule"), field(v, "message"));
            safe_text::display(&line).into_owned()
        })
        .collect();
    if violations.len() > MAX_SHOWN {
        reasons.push(format!("and {} more", violations.len() - MAX_SHOWN));
    }
    reasons.push(format!(
        "Refused under --schema-policy {}: the server got JSON-RPC error {INVALID_PARAMS} (invalid params) with these rules; nothing you choose here is sent.",
        policy.as_str()
    ));
    reasons
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn reasons_name_pointer_and_rule_sanitized_and_say_what_the_server_got() {
        let list = vec![
            json!({"pointer": "/requestedSchema/properties/a\u{1b}[2Jb/type", "rule": "mcp-request/enum", "message": "not one of\u{202e} the types"}),
            json!({"pointer": "", "rule": "r", "message": "m"}),
        ];
        let got = refusal_reasons(&list, SchemaPolicy::Strict);
        assert_eq!(
            got,
            vec![
                "/requestedSchema/properties/a\\u{1b}[2Jb/type: [mcp-request/enum] not one of\\u{202e} the types".to_owned(),
                "(root): [r] m".to_owned(),
                "Refused under --schema-policy strict: the server got JSON-RPC error -32602 (invalid params) with these rules; nothing you choose here is sent.".to_owned(),
            ]
        );
        let many: Vec<Value> = (0..10)
            .map(|i| json!({"pointer": format!("/{i}"), "rule": "r", "message": "m"}))
            .collect();
        let got = refusal_reasons(&many, SchemaPolicy::Strict);
        assert_eq!(got.len(), MAX_SHOWN + 2);
        assert_eq!(got[MAX_SHOWN], "and 2 more");
    }
}
