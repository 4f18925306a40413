//! Trying a server by hand: at a terminal, without `--call`, `--prompt`
//! or `--read`, the session keeps the connection and puts the server's
//! tools to the person ([`crate::browse`]): pick a tool, fill in its
//! arguments on the elicitation form (built by
//! [`crate::binding::tool_form`]), the call runs (its elicitations are
//! answered on the same screen, as for `--call`), the result is shown,
//! then the list again. The server is served all the while (pings,
//! notifications, its requests).

use std::collections::HashMap;

use serde_json::{json, Map, Value};

use super::client::Client;
use super::McpError;
use crate::binding::tool_form::{self, ToolForm};
use crate::binding::{wrap_params_in, SchemaPolicy};
use crate::browse::{Reply, Step, ToolEntry};
use crate::responder::{RespondError, Waiting};
use crate::safe_text;

/// How a browsing session ended.
pub(super) enum Browsed {
    /// The responder cannot show the list (no terminal, a script, plain
    /// lines): the caller lists the tools as before.
    Unavailable,
    /// The person left the list (exit 0).
    Left,
}

impl Client {
    /// Browse `tools` (as listed) until the person leaves.
    ///
    /// Errors: [`McpError::Quit`] (Ctrl-C twice), a signal, the connection
    /// lost, the terminal failing. A call that fails (a JSON-RPC error, its
    /// rounds cut short, no answer in time) is shown on the result screen
    /// and the list comes back.
    pub(super) async fn browse(&mut self, tools: &[Value]) -> Result<Browsed, McpError> {
        let listed: Vec<(ToolEntry, &Value)> = tools
            .iter()
            .filter_map(|t| ToolEntry::of(t).map(|e| (e, t)))
            .collect();
        let entries: Vec<ToolEntry> = listed.iter().map(|(e, _)| e.clone()).collect();
        let mut last: Option<usize> = None;
        // The last arguments sent to each tool: its form starts with them.
        let mut kept: HashMap<String, Map<String, Value>> = HashMap::new();
        loop {
            let pick = Step::Pick {
                tools: entries.clone(),
                last,
            };
            let i = match self.put_step(pick).await {
                Err(McpError::Responder(RespondError::Unavailable(_))) if last.is_none() => {
                    return Ok(Browsed::Unavailable)
                }
                Err(e) => return Err(e),
                Ok(Reply::Picked(i)) if i < listed.len() => i,
                Ok(Reply::Quit) => return Err(McpError::Quit),
                Ok(Reply::Leave) => return Ok(Browsed::Left),
                Ok(_) => continue,
            };
            last = Some(i);
            let (entry, tool) = &listed[i];
            let name = entry.name.clone();
            let form = ToolForm::of(tool.get("inputSchema").unwrap_or(&Value::Null));
            let arguments = if form.is_empty() && form.left_out.is_empty() {
                // Nothing to ask: called at once.
                Map::new()
            } else {
                let request = match self.arguments_form(&name, &form, kept.get(&name)) {
                    Ok(r) => r,
                    Err(why) => {
                        let result = json!({ "error": why });
                        let step = Step::Result {
                            tool: name,
                            result,
                            arguments: Map::new(),
                            output_check: None,
                        };
                        match self.put_step(step).await? {
                            Reply::Quit => return Err(McpError::Quit),
                            _ => continue,
                        }
                    }
                };
                let step = Step::Arguments {
                    tool: name.clone(),
                    request: Box::new(request),
                    input_schema: tool.get("inputSchema").cloned().unwrap_or(Value::Null),
                    left_out: form.left_out.iter().map(|l| l.name.clone()).collect(),
                };
                match self.put_step(step).await? {
                    Reply::Arguments(a) => a,
                    Reply::Quit => return Err(McpError::Quit),
                    _ => continue,
                }
            };
            kept.insert(name.clone(), arguments.clone());
            let result = self.browse_call(&name, arguments.clone()).await?;
            let output_check = match (tool.get("outputSchema"), result.get("structuredContent")) {
                (Some(schema), Some(content)) => Some(
                    tool_form::check_value(schema, content)
                        .map_err(|e| e.sentences("outputSchema", "it")),
                ),
                _ => None,
            };
            let step = Step::Result {
                tool: name,
                result,
                arguments,
                output_check,
            };
            match self.put_step(step).await? {
                Reply::Quit => return Err(McpError::Quit),
                Reply::Leave => return Ok(Browsed::Left),
                _ => {}
            }
        }
    }

    /// Call `name` with `arguments` while the waiting screen says so;
    /// returns the result, or `{"error": sentence}` for a call that failed
    /// in a way the person can try again.
    ///
    /// Errors: what ends the session (quit, signal, connection lost).
    async fn browse_call(
        &mut self,
        name: &str,
        arguments: Map<String, Value>,
    ) -> Result<Value, McpError> {
        self.desk.show(Waiting {
            status: Some(format!("Calling the tool '{}'…", safe_text::display(name))),
            offer_retry: false,
            connecting: false,
        });
        let params = json!({ "name": name, "arguments": Value::Object(arguments) });
        let out = self.call_with_rounds("tools/call", name, params).await;
        self.desk.show(Waiting::default());
        match out {
            Ok(v) => Ok(v),
            Err(
                e @ (McpError::Rpc { .. }
                | McpError::Incomplete(_)
                | McpError::Timeout { .. }
                | McpError::Delivery { .. }),
            ) => Ok(json!({ "error": e.to_string() })),
            Err(e) => Err(e),
        }
    }

    /// The form of `tool`'s arguments as a request event (never written to
    /// `--events`: it is not the server's), its fields starting with the
    /// arguments `last` sent to it.
    ///
    /// Errors: why the form cannot be built (a sentence, safe text).
    fn arguments_form(
        &mut self,
        tool: &str,
        form: &ToolForm,
        last: Option<&Map<String, Value>>,
    ) -> Result<crate::binding::RequestEvent, String> {
        let mut params = form.params(tool);
        if let (Some(last), Some(props)) = (
            last,
            params["requestedSchema"]["properties"].as_object_mut(),
        ) {
            for (k, v) in last {
                if let Some(Value::Object(def)) = props.get_mut(k) {
                    def.insert("default".into(), v.clone());
                }
            }
        }
        let Some(server) = self.life.server.clone() else {
            return Err("the server has not named itself yet".to_owned());
        };
        let id = format!("{}-arguments-{}", self.run_tag, self.peek_id());
        let built = wrap_params_in(
            &params,
            &server,
            &self.adapter,
            &id,
            None,
            SchemaPolicy::Compatible,
            None,
        );
        // Kept arguments that no longer fit (they always did when sent):
        // the form as declared.
        let built = match built {
            Err(_) if last.is_some() => wrap_params_in(
                &form.params(tool),
                &server,
                &self.adapter,
                &id,
                None,
                SchemaPolicy::Compatible,
                None,
            ),
            other => other,
        };
        built.map_err(|v| {
            let first = v
                .first()
                .map(|v| format!("{}: {}", v.pointer(), v.message))
                .unwrap_or_default();
            format!(
                "the arguments of '{}' cannot be asked as a form: {}",
                safe_text::display(tool),
                safe_text::display(&first)
            )
        })
    }

    /// Put `step` to the person and serve the server until the reply.
    ///
    /// Errors: [`McpError::Responder`] with the responder's error (one that
    /// cannot show it: [`RespondError::Unavailable`]); what ends the
    /// session meanwhile.
    async fn put_step(&mut self, step: Step) -> Result<Reply, McpError> {
        let mut rx = self
            .desk
            .browse(step)
            .map_err(|_| McpError::Responder(RespondError::Stopped))?;
        loop {
            tokio::select! {
                r = &mut rx => {
                    return match r {
                        Ok(Ok(reply)) => Ok(reply),
                        Ok(Err(e)) => Err(McpError::Responder(e)),
                        Err(_) => Err(McpError::Responder(RespondError::Stopped)),
                    };
                }
                s = self.step(None) => { s?; }
            }
        }
    }
}
