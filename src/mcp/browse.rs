//! Trying a server by hand: at a terminal, without `--call`, `--prompt`
//! or `--read`, the session keeps the connection and puts the server's
//! tools, prompts and resources to the person ([`crate::browse`]): pick
//! one, fill in its arguments on the elicitation form (built by
//! [`crate::binding::tool_form`]), the call runs (`tools/call`,
//! `prompts/get` or `resources/read`; its elicitations are answered on the
//! same screen, as for `--call`), the result is shown, then the list
//! again. The server is served all the while (pings,
//! notifications, its requests).

use std::collections::HashMap;

use serde_json::{json, Map, Value};

use super::client::Client;
use super::{Incomplete, McpError};
use crate::binding::tool_form::{self, ToolForm};
use crate::binding::{wrap_request, SchemaPolicy, WrapOptions};
use crate::browse::{Kind, Reply, Step, ToolEntry};
use crate::responder::{RespondError, Waiting};
use crate::safe_text;

/// Most pages of `prompts/list` or `resources/list` followed.
const MAX_PAGES: usize = 100;
/// Most prompts (or resources) put in the list.
const MAX_ENTRIES: usize = 1000;

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
        match self.put_step(Step::Ready).await {
            Err(McpError::Responder(RespondError::Unavailable(_))) => {
                return Ok(Browsed::Unavailable)
            }
            Err(e) => return Err(e),
            Ok(_) => {}
        }
        let mut listed: Vec<(ToolEntry, Value)> = tools
            .iter()
            .filter_map(|t| ToolEntry::of(t).map(|e| (e, t.clone())))
            .collect();
        for p in self.quiet_list("prompts/list", "prompts").await? {
            if let Some(e) = ToolEntry::prompt(&p) {
                listed.push((e, p));
            }
        }
        for r in self.quiet_list("resources/list", "resources").await? {
            if let Some(e) = ToolEntry::resource(&r) {
                listed.push((e, r));
            }
        }
        let entries: Vec<ToolEntry> = listed.iter().map(|(e, _)| e.clone()).collect();
        let mut last: Option<usize> = None;
        // The last arguments sent to each tool: its form starts with them.
        let mut kept: HashMap<String, Map<String, Value>> = HashMap::new();
        loop {
            let pick = Step::Pick {
                tools: entries.clone(),
                last,
            };
            let i = match self.put_step(pick).await? {
                Reply::Picked(i) if i < listed.len() => i,
                Reply::Quit => return Err(McpError::Quit),
                Reply::Leave => return Ok(Browsed::Left),
                _ => continue,
            };
            last = Some(i);
            let (entry, tool) = &listed[i];
            let (kind, name) = (entry.kind, entry.name.clone());
            let input_schema = match kind {
                Kind::Tool => tool.get("inputSchema").cloned().unwrap_or(Value::Null),
                Kind::Prompt => tool_form::prompt_input_schema(tool),
                Kind::Resource => Value::Null,
            };
            let form = ToolForm::of(&input_schema);
            let key = format!("{}:{name}", kind.noun());
            let arguments = if form.is_empty() && form.left_out.is_empty() {
                // Nothing to ask: called at once.
                Map::new()
            } else {
                let request = match self.arguments_form(kind.noun(), &name, &form, kept.get(&key)) {
                    Ok(r) => r,
                    Err(why) => {
                        let result = json!({ "error": why });
                        let step = Step::Result {
                            kind,
                            tool: name,
                            result,
                            arguments: Map::new(),
                            output_check: None,
                            hint: None,
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
                    input_schema: input_schema.clone(),
                    left_out: form.left_out.iter().map(|l| l.name.clone()).collect(),
                    last: kept.get(&key).cloned().unwrap_or_default(),
                };
                match self.put_step(step).await? {
                    Reply::Arguments(a) => a,
                    Reply::Quit => return Err(McpError::Quit),
                    _ => continue,
                }
            };
            kept.insert(key, arguments.clone());
            let (method, params) = match kind {
                Kind::Tool => (
                    "tools/call",
                    json!({ "name": name, "arguments": arguments }),
                ),
                Kind::Prompt => (
                    "prompts/get",
                    json!({ "name": name, "arguments": arguments }),
                ),
                Kind::Resource => {
                    let uri = tool.get("uri").cloned().unwrap_or(Value::Null);
                    ("resources/read", json!({ "uri": uri }))
                }
            };
            let label = match kind {
                Kind::Resource => tool.get("uri").and_then(Value::as_str).unwrap_or(&name),
                _ => &name,
            }
            .to_owned();
            // Whether this call (not an earlier one) said the tool asks
            // the 2025-11-25 way.
            let before = std::mem::take(&mut self.elic.older_way);
            let result = self.browse_call(kind, method, &label, params).await;
            let older_way = self.elic.older_way;
            self.elic.older_way |= before;
            let result = result?;
            // The same hint whether the call was refused (-32600) or its
            // result says so (`isError`).
            let hint = older_way.then(crate::mcp::older_way_hint);
            let output_check = match (
                kind,
                tool.get("outputSchema"),
                result.get("structuredContent"),
            ) {
                (Kind::Tool, Some(schema), Some(content)) => Some(
                    tool_form::check_value(schema, content)
                        .map_err(|e| e.sentences("outputSchema", "it")),
                ),
                _ => None,
            };
            let step = Step::Result {
                kind,
                tool: name,
                result,
                arguments,
                output_check,
                hint,
            };
            match self.put_step(step).await? {
                Reply::Quit => return Err(McpError::Quit),
                Reply::Leave => return Ok(Browsed::Left),
                _ => {}
            }
        }
    }

    /// Send `method` (`tools/call`, `prompts/get`, `resources/read`) for
    /// the `kind` named `name` with `params` while the waiting screen says
    /// so; returns the result, or `{"error": sentence}` for a call that
    /// failed in a way the person can try again.
    ///
    /// Errors: what ends the session (quit, signal, connection lost).
    async fn browse_call(
        &mut self,
        kind: Kind,
        method: &str,
        name: &str,
        params: Value,
    ) -> Result<Value, McpError> {
        let doing = match kind {
            Kind::Tool => "Calling the tool",
            Kind::Prompt => "Getting the prompt",
            Kind::Resource => "Reading the resource",
        };
        self.desk.show(Waiting {
            status: Some(format!("{doing} '{}'…", safe_text::display(name))),
            offer_retry: false,
            connecting: false,
        });
        let out = self.call_with_rounds(method, name, params).await;
        self.desk.show(Waiting::default());
        match out {
            Ok(v) => Ok(v),
            // Its hint is said apart, as for an `isError` result.
            Err(McpError::Incomplete(Incomplete::OlderWayOnly { call, said })) => {
                Ok(json!({ "error": format!("{call} failed: JSON-RPC error -32600: {said}") }))
            }
            Err(
                e @ (McpError::Rpc { .. }
                | McpError::Incomplete(_)
                | McpError::Timeout { .. }
                | McpError::Delivery { .. }),
            ) => Ok(json!({ "error": e.to_string() })),
            Err(e) => Err(e),
        }
    }

    /// The form of the arguments of the `noun` (`tool`, `prompt`) named
    /// `tool` as a request event (never written to
    /// `--events`: it is not the server's), its fields starting with the
    /// arguments `last` sent to it.
    ///
    /// Errors: why the form cannot be built (a sentence, safe text).
    fn arguments_form(
        &mut self,
        noun: &str,
        tool: &str,
        form: &ToolForm,
        last: Option<&Map<String, Value>>,
    ) -> Result<crate::binding::RequestEvent, String> {
        let mut params = form.params(noun, tool);
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
        let options = WrapOptions {
            policy: SchemaPolicy::Compatible,
            ..WrapOptions::new(&server, &self.adapter, &id)
        };
        let built = wrap_request(&params, &options);
        // Kept arguments that no longer fit (they always did when sent):
        // the form as declared.
        let built = match built {
            Err(_) if last.is_some() => wrap_request(&form.params(noun, tool), &options),
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

    /// Every page of `method`'s `key` list; a server that offers none (a
    /// JSON-RPC error, a failed delivery) gives an empty list, quietly.
    ///
    /// Errors: what ends the session.
    async fn quiet_list(&mut self, method: &str, key: &str) -> Result<Vec<Value>, McpError> {
        let mut items = Vec::new();
        let mut cursor: Option<String> = None;
        for _ in 0..MAX_PAGES {
            let params = cursor.as_ref().map(|c| json!({ "cursor": c }));
            let limit = Some(self.opts.connect_timeout);
            let page = match self.request(method, params, limit).await {
                Ok(p) => p,
                Err(
                    McpError::Rpc { .. } | McpError::Delivery { .. } | McpError::Timeout { .. },
                ) => return Ok(items),
                Err(e) => return Err(e),
            };
            if let Some(Value::Array(t)) = page.get(key) {
                items.extend(
                    t.iter()
                        .take(MAX_ENTRIES.saturating_sub(items.len()))
                        .cloned(),
                );
            }
            cursor = page
                .get("nextCursor")
                .and_then(Value::as_str)
                .map(str::to_owned);
            if cursor.is_none() || items.len() >= MAX_ENTRIES {
                break;
            }
        }
        Ok(items)
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
