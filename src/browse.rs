//! Trying a server by hand (`ahp-elicit mcp SERVER` at a terminal, without
//! `--call`): what the front door puts to the person besides elicitations.
//! The session lists the server's tools ([`Step::Pick`]), asks a picked
//! tool's arguments as a form ([`Step::Arguments`]), calls it (its
//! elicitations are answered as always) and shows the result
//! ([`Step::Result`]); then the list again, until the person leaves.
//!
//! These are plain data: the terminal front end draws them
//! ([`crate::responder::Responder::browse`]); a responder that cannot show
//! them (a script, no terminal) says so and the front door lists the tools
//! as JSON instead. Every text here is the server's, unsanitized: whoever
//! shows it escapes it ([`crate::safe_text`]).

use serde_json::{Map, Value};

use crate::binding::RequestEvent;

/// One tool of the server's `tools/list`, as the picker shows it
/// (unsanitized server text).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolEntry {
    /// `name`: what `tools/call` names.
    pub name: String,
    /// `title`, when the server gave one.
    pub title: Option<String>,
    /// `description`, when the server gave one (any length: the screen cuts
    /// it).
    pub description: Option<String>,
    /// Whether the `inputSchema` declares any property.
    pub takes_arguments: bool,
}

impl ToolEntry {
    /// The entry of one listed tool (None when it has no string `name`).
    pub fn of(tool: &Value) -> Option<ToolEntry> {
        let text = |k: &str| tool.get(k).and_then(Value::as_str).map(str::to_owned);
        Some(ToolEntry {
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
}

/// What the front door asks the person to do next.
#[derive(Debug, Clone, PartialEq)]
pub enum Step {
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
    /// arguments. When properties were left out of the form, the answer is
    /// then edited as JSON with them added
    /// ([`crate::binding::tool_form::arguments_text`]) and checked against
    /// `input_schema` ([`crate::binding::tool_form::check_arguments`]).
    Arguments {
        /// The tool's name (unsanitized).
        tool: String,
        /// The form to show, built by the front door.
        request: Box<RequestEvent>,
        /// The tool's `inputSchema` as listed.
        input_schema: Value,
        /// The properties the form could not draw (unsanitized names).
        left_out: Vec<String>,
    },
    /// Show the outcome of `tools/call` `tool`.
    Result {
        /// The tool's name (unsanitized).
        tool: String,
        /// The call's `CallToolResult` (`content`, `structuredContent`,
        /// `isError`), or, when the call failed, `{"error": "sentence"}`.
        result: Value,
        /// The arguments the tool was called with.
        arguments: Map<String, Value>,
        /// When the tool declares an `outputSchema` and the result has
        /// `structuredContent`: whether it fits (the sentences saying why
        /// not, safe text).
        output_check: Option<Result<(), Vec<String>>>,
    },
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
    /// Leave the session (Esc or `q` on the list): exit 0.
    Leave,
    /// Quit the run (Ctrl-C twice, a signal): exit 130 or 128+N.
    Quit,
}
