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

use std::sync::{Arc, Mutex};

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

/// A list put again while the picker is on screen ([`Step::Pick`]'s
/// `feed`): the front door posts each new list with its version and the
/// line saying what changed; the picker takes the newest and says which
/// version it shows, so the index it answers is read in the right list.
#[derive(Debug, Clone, Default)]
pub struct ListFeed(Arc<Mutex<Feed>>);

#[derive(Debug, Default)]
struct Feed {
    /// The newest list not yet taken: its version, its entries, the line.
    fresh: Option<(u64, Vec<ToolEntry>, String)>,
    /// The version the picker shows (0: the one it was put with).
    shown: u64,
}

impl ListFeed {
    /// Put list `version` (`tools`, `said`: what changed, one line of safe
    /// text) for the picker; a list not yet taken is replaced.
    pub fn post(&self, version: u64, tools: Vec<ToolEntry>, said: String) {
        if let Ok(mut f) = self.0.lock() {
            f.fresh = Some((version, tools, said));
        }
    }

    /// The newest list posted since the last call (the picker shows it
    /// from now on: [`ListFeed::shown`] says its version).
    pub fn take(&self) -> Option<(Vec<ToolEntry>, String)> {
        let mut f = self.0.lock().ok()?;
        let (version, tools, said) = f.fresh.take()?;
        f.shown = version;
        Some((tools, said))
    }

    /// The version of the list the picker shows (0: the one it was put
    /// with).
    pub fn shown(&self) -> u64 {
        self.0.lock().map(|f| f.shown).unwrap_or(0)
    }
}

/// Two feeds are the same feed.
impl PartialEq for ListFeed {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

/// What changed between two lists, in one line (safe text): `tools
/// changed: +add_x, -old_y` (then prompts', resources', `; ` between),
/// names in list order, at most five added and five gone a kind (then `3 more
/// added`); None when the names are the same.
pub fn changes_line(before: &[ToolEntry], after: &[ToolEntry]) -> Option<String> {
    let mut parts = Vec::new();
    for kind in [Kind::Tool, Kind::Prompt, Kind::Resource] {
        let names = |l: &[ToolEntry]| -> Vec<String> {
            l.iter()
                .filter(|e| e.kind == kind)
                .map(|e| e.name.clone())
                .collect()
        };
        let (old, new) = (names(before), names(after));
        let said = |sign: char, these: Vec<&String>| -> Vec<String> {
            let more = these.len().saturating_sub(5);
            let mut v: Vec<String> = these
                .into_iter()
                .take(5)
                .map(|n| format!("{sign}{}", crate::safe_text::display(n)))
                .collect();
            if more > 0 {
                v.push(format!(
                    "{more} more {}",
                    if sign == '+' { "added" } else { "gone" }
                ));
            }
            v
        };
        let mut words = said('+', new.iter().filter(|n| !old.contains(n)).collect());
        words.extend(said('-', old.iter().filter(|n| !new.contains(n)).collect()));
        if !words.is_empty() {
            parts.push(format!("{}s changed: {}", kind.noun(), words.join(", ")));
        }
    }
    (!parts.is_empty()).then(|| parts.join("; "))
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
        /// Where the front door puts the list again when the server says
        /// it changed (`notifications/tools/list_changed`, and prompts',
        /// resources') while the list is on screen; a front end that shows
        /// it live takes it from there ([`ListFeed::take`]), one that does
        /// not leaves it (the index picked is then read in `tools`).
        feed: ListFeed,
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

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(kind: Kind, name: &str) -> ToolEntry {
        ToolEntry {
            kind,
            name: name.into(),
            title: None,
            description: None,
            takes_arguments: false,
        }
    }

    #[test]
    fn a_change_is_said_in_one_line_by_kind() {
        let before = [
            entry(Kind::Tool, "old_y"),
            entry(Kind::Tool, "keep"),
            entry(Kind::Prompt, "p"),
        ];
        let after = [
            entry(Kind::Tool, "keep"),
            entry(Kind::Tool, "add_x"),
            entry(Kind::Resource, "r\u{1b}"),
        ];
        assert_eq!(
            changes_line(&before, &after).as_deref(),
            Some(
                "tools changed: +add_x, -old_y; prompts changed: -p; resources changed: +r\\u{1b}"
            )
        );
        assert_eq!(changes_line(&before, &before), None);
        let many: Vec<ToolEntry> = (0..8)
            .map(|i| entry(Kind::Tool, &format!("t{i}")))
            .collect();
        assert_eq!(
            changes_line(&[], &many).as_deref(),
            Some("tools changed: +t0, +t1, +t2, +t3, +t4, 3 more added")
        );
    }

    #[test]
    fn the_feed_gives_the_newest_list_once_and_says_its_version() {
        let feed = ListFeed::default();
        assert_eq!(feed.take(), None);
        feed.post(1, vec![entry(Kind::Tool, "a")], "one".into());
        feed.post(2, vec![entry(Kind::Tool, "b")], "two".into());
        assert_eq!(feed.shown(), 0);
        assert_eq!(
            feed.take(),
            Some((vec![entry(Kind::Tool, "b")], "two".into()))
        );
        assert_eq!(feed.shown(), 2);
        assert_eq!(feed.take(), None);
    }
}
