//! Trying a server by hand (`ahp-elicit mcp SERVER` at a terminal, without
//! `--call`): what the front door puts to the person besides elicitations.
//! The session lists the server's tools, then its prompts and resources
//! ([`Step::Pick`]), asks a picked tool's (or prompt's) arguments as a
//! form ([`Step::Arguments`]), calls it (gets the prompt, reads the
//! resource; elicitations on the way are answered as always) and shows the
//! result ([`Step::Result`]); then the list again, until the person leaves.
//!
//! These are plain data: the terminal front end draws them
//! ([`crate::responder::Responder::browse`]); a responder that cannot show
//! them (a script, no terminal) says so and the front door lists the tools
//! as JSON instead. Every text here is the server's, unsanitized: whoever
//! shows it escapes it ([`crate::safe_text`]).

use serde_json::{Map, Value};

use crate::binding::RequestEvent;

pub mod result;

/// What an entry of the list is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A tool (`tools/list`, called with `tools/call`).
    Tool,
    /// A prompt (`prompts/list`, got with `prompts/get`).
    Prompt,
    /// A resource (`resources/list`, read with `resources/read`).
    Resource,
}

impl Kind {
    /// The method that calls it: `tools/call`, `prompts/get`,
    /// `resources/read`.
    pub fn method(self) -> &'static str {
        match self {
            Kind::Tool => "tools/call",
            Kind::Prompt => "prompts/get",
            Kind::Resource => "resources/read",
        }
    }

    /// The word for it: `tool`, `prompt`, `resource`.
    pub fn noun(self) -> &'static str {
        match self {
            Kind::Tool => "tool",
            Kind::Prompt => "prompt",
            Kind::Resource => "resource",
        }
    }
}

/// One entry of the server's lists (a tool, a prompt or a resource), as the
/// picker shows it (unsanitized server text).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolEntry {
    /// A tool, a prompt or a resource.
    pub kind: Kind,
    /// `name`: what `tools/call` or `prompts/get` names (a resource's
    /// name, else its URI).
    pub name: String,
    /// `title`, when the server gave one.
    pub title: Option<String>,
    /// `description`, when the server gave one (any length: the screen cuts
    /// it).
    pub description: Option<String>,
    /// Whether the `inputSchema` declares any property (a prompt: any
    /// argument; a resource: never).
    pub takes_arguments: bool,
}

impl ToolEntry {
    /// The entry of one listed tool (None when it has no string `name`).
    pub fn of(tool: &Value) -> Option<ToolEntry> {
        let text = |k: &str| tool.get(k).and_then(Value::as_str).map(str::to_owned);
        Some(ToolEntry {
            kind: Kind::Tool,
            name: text("name")?,
            title: text("title").filter(|t| !t.is_empty()),
            description: text("description").filter(|d| !d.is_empty()),
            takes_arguments: tool
                .get("inputSchema")
                .and_then(|s| s.get("properties"))
                .and_then(Value::as_object)
                .is_some_and(|p| !p.is_empty()),
        })
    }

    /// Whether the entry's name, title or description contains `needle`,
    /// ignoring case (an empty needle: every entry); how the list is
    /// narrowed by typing, at the terminal and in plain mode.
    pub fn matches(&self, needle: &str) -> bool {
        let needle = needle.to_lowercase();
        needle.is_empty()
            || [
                Some(&self.name),
                self.title.as_ref(),
                self.description.as_ref(),
            ]
            .into_iter()
            .flatten()
            .any(|s| s.to_lowercase().contains(&needle))
    }

    /// What the entry is about, in one line: its title, else the first
    /// line of its description, else nothing (unsanitized).
    pub fn about(&self) -> &str {
        self.title
            .as_deref()
            .or_else(|| self.description.as_deref().and_then(|d| d.lines().next()))
            .unwrap_or("")
    }

    /// What it is and whether it takes arguments, as the list tags it:
    /// `[arguments]`, `[no arguments]`, `[prompt, arguments]`, `[prompt]`,
    /// `[resource]`.
    pub fn tag(&self) -> &'static str {
        match (self.kind, self.takes_arguments) {
            (Kind::Tool, true) => "[arguments]",
            (Kind::Tool, false) => "[no arguments]",
            (Kind::Prompt, true) => "[prompt, arguments]",
            (Kind::Prompt, false) => "[prompt]",
            (Kind::Resource, _) => "[resource]",
        }
    }

    /// The entry of one listed prompt (None when it has no string `name`).
    pub fn prompt(prompt: &Value) -> Option<ToolEntry> {
        let text = |k: &str| prompt.get(k).and_then(Value::as_str).map(str::to_owned);
        Some(ToolEntry {
            kind: Kind::Prompt,
            name: text("name")?,
            title: text("title").filter(|t| !t.is_empty()),
            description: text("description").filter(|d| !d.is_empty()),
            takes_arguments: prompt
                .get("arguments")
                .and_then(Value::as_array)
                .is_some_and(|a| !a.is_empty()),
        })
    }

    /// The entry of one listed resource: its name, else its URI (None when
    /// it has no string `uri`).
    pub fn resource(resource: &Value) -> Option<ToolEntry> {
        let text = |k: &str| resource.get(k).and_then(Value::as_str).map(str::to_owned);
        let uri = text("uri")?;
        Some(ToolEntry {
            kind: Kind::Resource,
            name: text("name")
                .filter(|n| !n.is_empty())
                .unwrap_or(uri.clone()),
            title: text("title").filter(|t| !t.is_empty()),
            description: Some(match text("description").filter(|d| !d.is_empty()) {
                Some(d) => format!("{uri}\n{d}"),
                None => uri,
            }),
            takes_arguments: false,
        })
    }
}

/// What the front door asks the person to do next.
#[derive(Debug, Clone, PartialEq)]
pub enum Step {
    /// Whether the responder can show the steps: one that can answers
    /// [`Reply::Back`] at once, showing nothing (the default answer,
    /// unavailable, makes the front door list the tools as JSON without
    /// asking the server anything more).
    Ready,
    /// Pick one of `tools` (listed order); `last` is the index of the tool
    /// picked last time (the list starts on it).
    Pick {
        /// The tools, in the server's order.
        tools: Vec<ToolEntry>,
        /// The tool picked last, to start on.
        last: Option<usize>,
    },
    /// Fill in the arguments of the tool `tool`: `request` is a form-mode
    /// request whose `requestedSchema` holds the properties of its
    /// `inputSchema` that fit the form (see
    /// [`crate::binding::tool_form`]); the answer's `content` is the
    /// arguments. When properties were left out of the form (or, at the
    /// terminal, on Ctrl-O at any time), the answer is then edited as JSON
    /// with them added
    /// ([`crate::binding::tool_form::arguments_text`]) and checked against
    /// `input_schema` ([`crate::binding::tool_form::check_arguments`]).
    Arguments {
        /// A tool or a prompt.
        kind: Kind,
        /// The tool's name (unsanitized).
        tool: String,
        /// The form to show, built by the front door.
        request: Box<RequestEvent>,
        /// The tool's `inputSchema` as listed.
        input_schema: Value,
        /// The properties the form could not draw (unsanitized names).
        left_out: Vec<String>,
        /// The arguments last sent to this tool (empty before its first
        /// call): the JSON to edit starts with those the form does not draw.
        last: Map<String, Value>,
    },
    /// Show how the call of `tool` ended (`tools/call`; or `prompts/get`,
    /// `resources/read`: `kind` says). A call the person cancelled
    /// ([`CallOutcome::Cancelled`]) is not shown: the front end answers
    /// [`Reply::Back`] at once (the call's end is logged, as a result's);
    /// the full screen's list then says so ([`cancelled_words`]), plain
    /// lines said it already.
    Result {
        /// What was called, got or read.
        kind: Kind,
        /// The tool's (prompt's, resource's) name (unsanitized).
        tool: String,
        /// How it ended: the server's result as it sent it, or why there
        /// is none.
        outcome: CallOutcome,
        /// The arguments the tool was called with.
        arguments: Map<String, Value>,
        /// When the tool declares an `outputSchema` and the result has
        /// `structuredContent`: whether it fits (the sentences saying why
        /// not, safe text).
        output_check: Option<Result<(), Vec<String>>>,
        /// Our hint on how the call could work (safe text), said after the
        /// result: the tool asks the 2025-11-25 way, which this session
        /// cannot carry ([`crate::mcp::older_way_hint`]).
        hint: Option<String>,
        /// The session speaks 2026-07-28 and the tool asks the 2025-11-25
        /// way: the screen offers to run the call again over 2025-11-25,
        /// with the same arguments ([`Reply::Again`]), saying the tool may
        /// run twice.
        again: bool,
    },
}

/// How a call made while trying a server by hand ended ([`Step::Result`]).
/// What is ours (a failure, a cancellation, no answer in time) is never
/// written into what is the server's.
#[derive(Debug, Clone, PartialEq)]
pub enum CallOutcome {
    /// The server's result exactly as it sent it: a `CallToolResult`
    /// (`content`, `structuredContent`, `isError`), a `GetPromptResult`
    /// (`messages`) or a `ReadResourceResult` (`contents`). Every member
    /// is the server's, one named `error` included (results may carry
    /// members of their own).
    Answered(Value),
    /// The call failed in a way the person can try again.
    Failed(CallFailure),
    /// The server did not answer in time: the sentence naming the call,
    /// the limit and the option that sets it (safe text).
    TimedOut(String),
    /// The person cancelled the call while it ran (Esc, or Control-C in
    /// lines).
    Cancelled,
}

/// Why a call made by hand failed: what kind of failure, and the sentence
/// that says it (safe text, as the session's error says it:
/// `tools/call 'book' failed: JSON-RPC error -32602: …`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CallFailure {
    /// What kind of failure.
    pub cause: FailureCause,
    /// The sentence (safe text).
    pub sentence: String,
}

/// What kind of failure ended a call made by hand ([`CallFailure`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FailureCause {
    /// The arguments could not be asked as a form: the call was not made.
    NoForm,
    /// The server answered with a JSON-RPC error of this code.
    Rpc(i64),
    /// The server refused the call with -32600 on a 2026-07-28 session:
    /// the tool asks its questions the 2025-11-25 way
    /// ([`Step::Result`]'s `hint` and `again` say what can be done).
    OlderWayOnly,
    /// The call's rounds could not go on (too many `input_required`
    /// rounds, an input request that cannot be answered, …).
    Incomplete,
    /// The server's answer could not be read (nested too deep, too large).
    Unreadable,
    /// The call could not be delivered (the transport refused it).
    Delivery,
}

/// What the list says after the person cancelled the call of `tool`
/// (safe text): `Cancelled the call of the tool 'slow'.` (prompt,
/// resource for the others).
pub fn cancelled_words(kind: Kind, tool: &str) -> String {
    let noun = match kind {
        Kind::Tool => "call of the tool",
        Kind::Prompt => "request for the prompt",
        Kind::Resource => "read of the resource",
    };
    format!(
        "Cancelled the {noun} '{}'.",
        crate::safe_text::display(tool)
    )
}

/// What a result screen with [`Step::Result`]'s `again` says: why the call
/// could not ask, and that it can be run again over MCP 2025-11-25 with the
/// same arguments, the tool then running twice. Each front end adds its
/// key.
pub fn again_offer() -> String {
    use crate::binding::Revision;
    format!(
        "The tool asks its questions the MCP {} way, which this MCP {} session cannot carry. The call can be run again over MCP {}, with the same arguments: the tool may run twice (it has run once already).",
        Revision::V2025_11_25,
        Revision::V2026_07_28,
        Revision::V2025_11_25
    )
}

/// What the person did on a [`Step`].
#[derive(Debug, Clone, PartialEq)]
pub enum Reply {
    /// [`Step::Pick`]: the index of the tool picked.
    Picked(usize),
    /// [`Step::Arguments`]: the arguments to call the tool with.
    Arguments(Map<String, Value>),
    /// Back to the list (the arguments form given up, the result read).
    Back,
    /// [`Step::Result`] with `again`: connect again over MCP 2025-11-25
    /// and run the same call with the same arguments.
    Again,
    /// Leave the session (Esc or `q` on the list): exit 0.
    Leave,
    /// Quit the run (Ctrl-C twice, a signal): exit 130 or 128+N.
    Quit,
}
