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

use super::{Browsed, Client, Watch};
use crate::binding::tool_args;
use crate::binding::tool_form::{self, ToolForm};
use crate::binding::{wrap_request, Revision, SchemaPolicy, WrapOptions};
use crate::browse::{
    changes_line, CallFailure, CallOutcome, FailureCause, Kind, ListFeed, Reply, Step, ToolEntry,
};
use crate::mcp::{Incomplete, McpError};
use crate::responder::{CallInProgress, RespondError, Waiting};
use crate::safe_text;

/// Most pages of `prompts/list` or `resources/list` followed.
const MAX_PAGES: usize = 100;
/// Most prompts (or resources) put in the list.
const MAX_ENTRIES: usize = 1000;

/// What the person picked on the list ([`Client::put_pick`]).
enum Picked {
    /// The entry at this index of the fresh list.
    At(usize),
    /// An entry the server no longer lists: the sentence saying so.
    Gone(String),
    /// Not an entry: back, leave, quit.
    Other(Reply),
}

/// Whether two entries name the same thing (kind and name).
fn same_entry(a: &ToolEntry, b: &ToolEntry) -> bool {
    a.kind == b.kind && a.name == b.name
}

/// What the list says when the entry picked is no longer listed (safe
/// text): `The tool 'old_y' is no longer listed by the server: it was not
/// called.`
fn gone_words(entry: &ToolEntry) -> String {
    let not = match entry.kind {
        Kind::Tool => "called",
        Kind::Prompt => "got",
        Kind::Resource => "read",
    };
    format!(
        "The {} '{}' is no longer listed by the server: it was not {not}.",
        entry.kind.noun(),
        safe_text::display(&entry.name)
    )
}

/// Two lines for the list, `; ` between (either may be missing).
fn joined(a: Option<String>, b: Option<String>) -> Option<String> {
    match (a, b) {
        (Some(a), Some(b)) => Some(format!("{a}; {b}")),
        (a, b) => a.or(b),
    }
}

/// Where the loop goes after a step.
enum Next<T> {
    /// On, with this.
    Go(T),
    /// Back to the list.
    List,
    /// The person left the list (exit 0).
    Leave,
}

impl Client {
    /// Browse `tools` (as listed) until the person leaves.
    ///
    /// Errors: [`McpError::Quit`] (Ctrl-C twice), a signal, the connection
    /// lost, the terminal failing. A call that fails (a JSON-RPC error, its
    /// rounds cut short, no answer in time) is shown on the result screen
    /// and the list comes back; a call the person cancels brings the list
    /// back at once.
    pub(super) async fn browse(&mut self, tools: &[Value]) -> Result<Browsed, McpError> {
        match self.put_step(Step::Ready).await {
            Err(McpError::Responder(RespondError::Unavailable(_))) => {
                return Ok(Browsed::Unavailable)
            }
            Err(e) => return Err(e),
            Ok(_) => {}
        }
        let mut listed = self.browse_list(tools).await?;
        let mut last: Option<usize> = None;
        // The last arguments sent to each tool: its form starts with them.
        let mut kept: HashMap<String, Map<String, Value>> = HashMap::new();
        // What the next list says first (what changed, a tool gone); the
        // first time, the --arg names that no form here would take.
        let mut said: Option<String> = self.undeclared_args(&listed);
        loop {
            if self.life.lists_changed {
                let line = self.relist(&mut listed, &mut last).await?;
                said = joined(said, line);
            }
            let i = match self.put_pick(&mut listed, &mut last, said.take()).await? {
                Picked::At(i) => i,
                Picked::Gone(words) => {
                    said = Some(words);
                    continue;
                }
                Picked::Other(Reply::Quit) => return Err(McpError::Quit),
                Picked::Other(Reply::Leave) => return Ok(Browsed::Left),
                Picked::Other(_) => continue,
            };
            last = Some(i);
            let (entry, item) = listed[i].clone();
            let (entry, item) = (&entry, &item);
            let key = format!("{}:{}", entry.kind.noun(), entry.name);
            // Picked the first time: the form starts with the --arg
            // values that fit it.
            let prefilled = match (kept.get(&key), entry.kind) {
                (None, Kind::Tool | Kind::Prompt) if !self.opts.arg_values.is_empty() => {
                    let schema = match entry.kind {
                        Kind::Prompt => tool_form::prompt_input_schema(item),
                        _ => item.get("inputSchema").cloned().unwrap_or(Value::Null),
                    };
                    Some(tool_args::prefill(&schema, &self.opts.arg_values))
                        .filter(|m| !m.is_empty())
                }
                _ => None,
            };
            let sent = kept.get(&key).or(prefilled.as_ref());
            let arguments = match self.ask_arguments(entry, item, sent).await? {
                Next::Go(a) => a,
                Next::List => continue,
                Next::Leave => return Ok(Browsed::Left),
            };
            // The server may have taken it away while its arguments were
            // asked: it is not called blindly.
            if self.life.lists_changed {
                let line = self.relist(&mut listed, &mut last).await?;
                said = joined(said, line);
                if !listed.iter().any(|(e, _)| same_entry(e, entry)) {
                    said = joined(said, Some(gone_words(entry)));
                    continue;
                }
            }
            kept.insert(key, arguments.clone());
            if let Next::Leave = self.run_picked(entry, item, arguments).await? {
                return Ok(Browsed::Left);
            }
        }
    }

    /// The line naming the `--arg` names that no listed tool or prompt
    /// declares (each would be left out of every form), if any:
    /// `--arg nmae: no tool or prompt here declares it; left out of every
    /// form`.
    fn undeclared_args(&self, listed: &[(ToolEntry, Value)]) -> Option<String> {
        if self.opts.arg_values.is_empty() {
            return None;
        }
        let schemas: Vec<Value> = listed
            .iter()
            .map(|(entry, item)| match entry.kind {
                Kind::Prompt => tool_form::prompt_input_schema(item),
                _ => item.get("inputSchema").cloned().unwrap_or(Value::Null),
            })
            .collect();
        let names = tool_args::undeclared(&schemas, &self.opts.arg_values);
        (!names.is_empty()).then(|| {
            let names: Vec<String> = names
                .iter()
                .map(|n| crate::safe_text::display(n).into_owned())
                .collect();
            let it = if names.len() == 1 { "it" } else { "them" };
            format!(
                "--arg {}: no tool or prompt here declares {it}; left out of every form",
                names.join(", ")
            )
        })
    }

    /// List everything again after the server said a list changed:
    /// `listed` becomes the fresh list (bounded and paged as the first),
    /// `last` follows the entry it named (None when it is gone); returns
    /// the line saying what changed ([`changes_line`]). A `tools/list`
    /// that fails now keeps the tools as they were (said as a notice).
    ///
    /// Errors: what ends the session.
    async fn relist(
        &mut self,
        listed: &mut Vec<(ToolEntry, Value)>,
        last: &mut Option<usize>,
    ) -> Result<Option<String>, McpError> {
        self.life.lists_changed = false;
        match self.list_tools().await {
            Ok(()) => {}
            Err(
                e @ (McpError::Rpc { .. }
                | McpError::Delivery { .. }
                | McpError::Timeout { .. }
                | McpError::Protocol(_)),
            ) => self.notice(&format!(
                "listing the tools again failed: {}",
                safe_text::display(&e.to_string())
            )),
            Err(e) => return Err(e),
        }
        let tools = self.life.tools.clone();
        let fresh = self.browse_list(&tools).await?;
        let before: Vec<ToolEntry> = listed.iter().map(|(e, _)| e.clone()).collect();
        let after: Vec<ToolEntry> = fresh.iter().map(|(e, _)| e.clone()).collect();
        *last = last
            .and_then(|i| before.get(i))
            .and_then(|e| after.iter().position(|f| same_entry(e, f)));
        *listed = fresh;
        Ok(changes_line(&before, &after))
    }

    /// Put the list (`listed`, starting on `last`, saying `said` first) to
    /// the person; while it is on screen, a list the server says changed
    /// is listed again and put on the screen as it stands
    /// ([`ListFeed`]). The entry picked is found in the list the person
    /// saw, and then in the fresh one: one no longer listed is not
    /// picked ([`Picked::Gone`]).
    ///
    /// Errors: what ends the session.
    async fn put_pick(
        &mut self,
        listed: &mut Vec<(ToolEntry, Value)>,
        last: &mut Option<usize>,
        said: Option<String>,
    ) -> Result<Picked, McpError> {
        let entries: Vec<ToolEntry> = listed.iter().map(|(e, _)| e.clone()).collect();
        let feed = ListFeed::default();
        if let Some(s) = said {
            feed.post(0, entries.clone(), s);
        }
        // Each list the picker may show, by version, to read its index in.
        let mut versions: Vec<(u64, Vec<ToolEntry>)> = vec![(0, entries.clone())];
        let step = Step::Pick {
            tools: entries,
            last: *last,
            feed: feed.clone(),
        };
        let mut rx = self
            .desk
            .browse(step)
            .map_err(|_| McpError::Responder(RespondError::Stopped))?;
        let mut version = 0;
        let reply = loop {
            tokio::select! {
                r = &mut rx => {
                    break match r {
                        Ok(Ok(reply)) => reply,
                        Ok(Err(e)) => return Err(McpError::Responder(e)),
                        Err(_) => return Err(McpError::Responder(RespondError::Stopped)),
                    };
                }
                s = self.step(None) => { s?; }
            }
            if self.life.lists_changed {
                let line = self.relist(listed, last).await?;
                version += 1;
                let fresh: Vec<ToolEntry> = listed.iter().map(|(e, _)| e.clone()).collect();
                feed.post(version, fresh.clone(), line.unwrap_or_default());
                // The picker never goes back to a list older than the one
                // it shows.
                let shown = feed.shown();
                versions.retain(|(v, _)| *v >= shown);
                versions.push((version, fresh));
            }
        };
        let Reply::Picked(i) = reply else {
            return Ok(Picked::Other(reply));
        };
        let shown = feed.shown();
        let Some(entry) = versions
            .iter()
            .find(|(v, _)| *v == shown)
            .and_then(|(_, e)| e.get(i))
        else {
            return Ok(Picked::Other(Reply::Back));
        };
        Ok(
            match listed.iter().position(|(e, _)| same_entry(e, entry)) {
                Some(j) => Picked::At(j),
                None => Picked::Gone(gone_words(entry)),
            },
        )
    }

    /// The server's tools (as listed), then its prompts and resources,
    /// each with its entry for the list.
    ///
    /// Errors: what ends the session.
    async fn browse_list(&mut self, tools: &[Value]) -> Result<Vec<(ToolEntry, Value)>, McpError> {
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
        Ok(listed)
    }

    /// The arguments of the picked `entry` (`item` as listed): none for
    /// an entry without any (called at once), else those the person gives
    /// on the arguments form, which starts with `last` (sent to it the time
    /// before).
    ///
    /// Errors: what ends the session (a quit included).
    async fn ask_arguments(
        &mut self,
        entry: &ToolEntry,
        item: &Value,
        last: Option<&Map<String, Value>>,
    ) -> Result<Next<Map<String, Value>>, McpError> {
        let (kind, name) = (entry.kind, entry.name.clone());
        let input_schema = match kind {
            Kind::Tool => item.get("inputSchema").cloned().unwrap_or(Value::Null),
            Kind::Prompt => tool_form::prompt_input_schema(item),
            Kind::Resource => Value::Null,
        };
        let form = ToolForm::of(&input_schema);
        if form.is_empty() && form.left_out.is_empty() {
            // Nothing to ask: called at once.
            return Ok(Next::Go(Map::new()));
        }
        let request = match self.arguments_form(kind.noun(), &name, &form, last) {
            Ok(r) => r,
            Err(why) => {
                let step = Step::Result {
                    kind,
                    tool: name,
                    outcome: CallOutcome::Failed(CallFailure {
                        cause: FailureCause::NoForm,
                        sentence: why.to_string(),
                    }),
                    arguments: Map::new(),
                    output_check: None,
                    hint: None,
                    again: false,
                };
                return match self.put_step(step).await? {
                    Reply::Quit => Err(McpError::Quit),
                    _ => Ok(Next::List),
                };
            }
        };
        let step = Step::Arguments {
            kind,
            tool: name,
            request: Box::new(request),
            input_schema,
            left_out: form.left_out.iter().map(|l| l.name.clone()).collect(),
            last: last.cloned().unwrap_or_default(),
        };
        match self.put_step(step).await? {
            Reply::Arguments(a) => Ok(Next::Go(a)),
            Reply::Quit => Err(McpError::Quit),
            Reply::Leave => Ok(Next::Leave),
            _ => Ok(Next::List),
        }
    }

    /// Call the picked `entry` (`item` as listed) with `arguments` and show
    /// the result; when the tool could only ask the 2025-11-25 way and the
    /// person says so, connect again over 2025-11-25 and call it again, with
    /// the same arguments.
    ///
    /// Errors: what ends the session (a quit included).
    async fn run_picked(
        &mut self,
        entry: &ToolEntry,
        item: &Value,
        arguments: Map<String, Value>,
    ) -> Result<Next<()>, McpError> {
        let (kind, name) = (entry.kind, entry.name.clone());
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
                let uri = item.get("uri").cloned().unwrap_or(Value::Null);
                ("resources/read", json!({ "uri": uri }))
            }
        };
        let label = match kind {
            Kind::Resource => item.get("uri").and_then(Value::as_str).unwrap_or(&name),
            _ => &name,
        }
        .to_owned();
        loop {
            // Whether this call (not an earlier one) said the tool asks
            // the 2025-11-25 way.
            let before = std::mem::take(&mut self.elic.older_way);
            let outcome = self.browse_call(kind, method, &label, params.clone()).await;
            let older_way = self.elic.older_way;
            self.elic.older_way |= before;
            let outcome = outcome?;
            if outcome == CallOutcome::Cancelled {
                // Cancelled by the person: back to the list (the front
                // door's log records it).
                let step = Step::Result {
                    kind,
                    tool: name.clone(),
                    outcome,
                    arguments: arguments.clone(),
                    output_check: None,
                    hint: None,
                    again: false,
                };
                return match self.put_step(step).await? {
                    Reply::Quit => Err(McpError::Quit),
                    _ => Ok(Next::List),
                };
            }
            // The outputSchema is the shape of a successful result: one
            // with `isError` is not checked against it.
            let structured = match &outcome {
                CallOutcome::Answered(result)
                    if result.get("isError") != Some(&Value::Bool(true)) =>
                {
                    result.get("structuredContent")
                }
                _ => None,
            };
            let output_check = match (kind, item.get("outputSchema"), structured) {
                (Kind::Tool, Some(schema), Some(content)) => Some(
                    tool_form::check_value(schema, content)
                        .map_err(|e| e.sentences("outputSchema", "it")),
                ),
                _ => None,
            };
            // The same hint whether the call was refused (-32600) or its
            // result says so (`isError`); the call may be run again over
            // 2025-11-25 while this session speaks 2026-07-28.
            let step = Step::Result {
                kind,
                tool: name.clone(),
                outcome,
                arguments: arguments.clone(),
                output_check,
                hint: older_way.then(crate::mcp::older_way_hint),
                again: older_way && self.life.revision == Revision::V2026_07_28,
            };
            match self.put_step(step).await? {
                Reply::Quit => return Err(McpError::Quit),
                Reply::Leave => return Ok(Next::Leave),
                Reply::Again if older_way => {
                    self.notice(&format!(
                        "running the call again over MCP {}",
                        Revision::V2025_11_25
                    ));
                    self.show_status(format!(
                        "Connecting again over MCP {}…",
                        Revision::V2025_11_25
                    ));
                    self.reconnect_legacy().await?;
                }
                _ => return Ok(Next::List),
            }
        }
    }

    /// Send `method` (`tools/call`, `prompts/get`, `resources/read`) for
    /// the `kind` named `name` with `params` while the waiting screen says
    /// so, with what the server reports meanwhile; returns how it ended:
    /// the server's result as sent, a failure the person can try again
    /// after (a JSON-RPC error, rounds cut short, an answer that cannot be
    /// read or a call not delivered), no answer in time, or cancelled by
    /// the person (Esc).
    ///
    /// Errors: what ends the session (quit, signal, connection lost).
    async fn browse_call(
        &mut self,
        kind: Kind,
        method: &str,
        name: &str,
        params: Value,
    ) -> Result<CallOutcome, McpError> {
        let doing = match kind {
            Kind::Tool => "Calling the tool",
            Kind::Prompt => "Getting the prompt",
            Kind::Resource => "Reading the resource",
        };
        self.calls += 1;
        // An Esc read for an earlier call's screen is not for this one.
        self.elic.wait_key = None;
        self.watch = Some(Watch {
            status: format!("{doing} '{}'…", safe_text::display(name)),
            call: CallInProgress {
                number: self.calls,
                ..CallInProgress::default()
            },
        });
        self.show_watch();
        let out = self.call_with_rounds(method, name, params).await;
        self.watch = None;
        self.desk.show(Waiting::default());
        let failed = |cause, e: &McpError| {
            Ok(CallOutcome::Failed(CallFailure {
                cause,
                sentence: e.to_string(),
            }))
        };
        match out {
            Ok(v) => Ok(CallOutcome::Answered(v)),
            Err(McpError::Cancelled { .. }) => Ok(CallOutcome::Cancelled),
            // Its hint is said apart, as for an `isError` result.
            Err(McpError::Incomplete(Incomplete::OlderWayOnly { call, said })) => {
                Ok(CallOutcome::Failed(CallFailure {
                    cause: FailureCause::OlderWayOnly,
                    sentence: format!("{call} failed: JSON-RPC error -32600: {said}"),
                }))
            }
            Err(e @ McpError::Rpc { code, .. }) => failed(FailureCause::Rpc(code), &e),
            Err(e @ McpError::Incomplete(_)) => failed(FailureCause::Incomplete, &e),
            Err(e @ McpError::Unreadable { .. }) => failed(FailureCause::Unreadable, &e),
            Err(e @ McpError::Delivery { .. }) => failed(FailureCause::Delivery, &e),
            Err(e @ (McpError::Timeout { .. } | McpError::CallTimeout { .. })) => {
                Ok(CallOutcome::TimedOut(e.to_string()))
            }
            Err(e) => Err(e),
        }
    }

    /// The form of the arguments of the `noun` (`tool`, `prompt`) named
    /// `tool` as a request event (never written to
    /// `--events`: it is not the server's), its fields starting with the
    /// arguments `last` sent to it.
    ///
    /// Errors: why the form cannot be built ([`ArgumentsFormError`]).
    fn arguments_form(
        &mut self,
        noun: &str,
        tool: &str,
        form: &ToolForm,
        last: Option<&Map<String, Value>>,
    ) -> Result<crate::binding::RequestEvent, ArgumentsFormError> {
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
            return Err(ArgumentsFormError::NoServer);
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
        let built = built.map_err(|violations| ArgumentsFormError::NotAForm {
            noun: noun.to_owned(),
            tool: tool.to_owned(),
            first: violations
                .first()
                .map(|v| format!("{}: {}", v.pointer(), v.message))
                .unwrap_or_default(),
        })?;
        // Read, but not drawable as a form (too many properties...): said,
        // with the way out, never a form that cannot be shown.
        if let crate::binding::RequestView::NotAForm { reasons, .. } = &built.view {
            return Err(ArgumentsFormError::NotAForm {
                noun: noun.to_owned(),
                tool: tool.to_owned(),
                first: reasons.first().cloned().unwrap_or_default(),
            });
        }
        Ok(built)
    }

    /// Every page of `method`'s `key` list; a server that offers none (a
    /// JSON-RPC error, a failed delivery) gives an empty list, quietly.
    ///
    /// Errors: what ends the session.
    async fn quiet_list(&mut self, method: &str, key: &str) -> Result<Vec<Value>, McpError> {
        let mut items = Vec::new();
        let mut cursor: Option<String> = None;
        let mut followed = std::collections::HashSet::new();
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
            // A cursor given twice ends the list (the server's paging
            // would never end); what the repeated page listed again is
            // kept once.
            if cursor.as_ref().is_some_and(|c| !followed.insert(c.clone())) {
                let mut seen = std::collections::HashSet::new();
                items.retain(|i| seen.insert(i.get("name").or(i.get("uri")).cloned()));
                break;
            }
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

/// Why the arguments of a tool or prompt cannot be asked as a form; the
/// text is safe for a terminal.
#[derive(Debug)]
enum ArgumentsFormError {
    /// The server has not said who it is yet (no request can name it).
    NoServer,
    /// The form built from the arguments' schema is not a valid request,
    /// or cannot be drawn (more properties than a form holds): the kind
    /// (`tool`, `prompt`), its name, and the first reason.
    NotAForm {
        noun: String,
        tool: String,
        first: String,
    },
}

impl std::fmt::Display for ArgumentsFormError {
    /// `the server has not named itself yet`, or `the arguments of the
    /// tool 'NAME' cannot be asked as a form: POINTER: MESSAGE. Call it
    /// from the command line instead: ahp-elicit mcp --call 'NAME' --args
    /// JSON (or --arg NAME=VALUE for each) -- SERVER`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ArgumentsFormError::NoServer => f.write_str("the server has not named itself yet"),
            ArgumentsFormError::NotAForm { noun, tool, first } => {
                let flag = if noun == "prompt" {
                    "--prompt"
                } else {
                    "--call"
                };
                let name = safe_text::display(tool).replace('\'', "'\\''");
                write!(
                    f,
                    "the arguments of the {noun} '{}' cannot be asked as a form: {}. Call it from the command line instead: ahp-elicit mcp {flag} '{name}' --args JSON (or --arg NAME=VALUE for each) -- SERVER",
                    safe_text::display(tool),
                    safe_text::display(first.trim_end_matches('.'))
                )
            }
        }
    }
}

impl std::error::Error for ArgumentsFormError {}
