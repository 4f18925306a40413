//! The event envelope of the elicitation events: the event types, the
//! payload's metadata (`server`, `mode`, `action`), the hard limits checked
//! before any parsing ([`parse_json`]), and the body selection of the
//! `request` / `result` text part with its text parsed as JSON.
//!
//! Everything the request and result readers take from the envelope before
//! they read the body (`request.text`: the MCP params; `result.text`: the
//! `ElicitResult`) lives here.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::limits::{depth_over, MAX_DEPTH, MAX_EVENT_BYTES};
use super::violation::{Part, Rule, Violation};

/// Event type of a request.
pub const REQUEST_TYPE: &str = "user.elicitation.request";
/// Event type of a result.
pub const RESULT_TYPE: &str = "user.elicitation.result";

/// Elicitation mode (the binding: "A form request has optional mode: form").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    Form,
    Url,
}

impl Mode {
    /// `form` or `url`.
    pub fn as_str(self) -> &'static str {
        match self {
            Mode::Form => "form",
            Mode::Url => "url",
        }
    }
    /// Parse `form` or `url`.
    pub fn parse(s: &str) -> Option<Mode> {
        match s {
            "form" => Some(Mode::Form),
            "url" => Some(Mode::Url),
            _ => None,
        }
    }
}

/// `form` or `url` on the command line (`--modes`), with the words listed
/// in `--help` and the completions.
#[cfg(feature = "cli")]
impl clap::ValueEnum for Mode {
    fn value_variants<'a>() -> &'a [Self] {
        &[Mode::Form, Mode::Url]
    }
    fn to_possible_value(&self) -> Option<clap::builder::PossibleValue> {
        Some(clap::builder::PossibleValue::new(self.as_str()))
    }
}

/// The person's action (MCP `ElicitResult.action`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Action {
    Accept,
    Decline,
    Cancel,
}

impl Action {
    /// `accept`, `decline` or `cancel`.
    pub fn as_str(self) -> &'static str {
        match self {
            Action::Accept => "accept",
            Action::Decline => "decline",
            Action::Cancel => "cancel",
        }
    }
    /// Parse `accept`, `decline` or `cancel`.
    pub fn parse(s: &str) -> Option<Action> {
        match s {
            "accept" => Some(Action::Accept),
            "decline" => Some(Action::Decline),
            "cancel" => Some(Action::Cancel),
            _ => None,
        }
    }
}

/// `accept`, `decline` or `cancel` on the command line (`--action`), with
/// the words listed in `--help` and the completions.
#[cfg(feature = "cli")]
impl clap::ValueEnum for Action {
    fn value_variants<'a>() -> &'a [Self] {
        &[Action::Accept, Action::Decline, Action::Cancel]
    }
    fn to_possible_value(&self) -> Option<clap::builder::PossibleValue> {
        Some(clap::builder::PossibleValue::new(self.as_str()))
    }
}

/// The requesting MCP server's identity as the adapter knows it
/// (closed `{name, title?, version?}`). Never the answering user.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Server {
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
}

/// Read JSON text with the hard limits checked first (size, nesting depth),
/// then UTF-8 and syntax.
///
/// Errors: one violation at the root, rule `limits`, `utf8` or `json`.
pub fn parse_json(bytes: &[u8]) -> Result<Value, Violation> {
    parse_checked(checked_text(bytes)?)
}

/// The first steps of [`parse_json`], for a caller that reads the same
/// text more than once (the fast reading, then the full one): the hard
/// limits (size, then nesting depth), then UTF-8, each checked once.
///
/// Errors: one violation at the root, rule `limits` or `utf8`, the same as
/// [`parse_json`]'s.
pub(crate) fn checked_text(bytes: &[u8]) -> Result<&str, Violation> {
    if bytes.len() > MAX_EVENT_BYTES {
        return Err(Violation::new(
            "",
            Rule::Limits,
            format!(
                "{} bytes exceed the limit of {MAX_EVENT_BYTES} bytes per event",
                bytes.len()
            ),
        ));
    }
    shallow_text(bytes)
}

/// The last step of [`parse_json`]: the syntax of a text that
/// [`checked_text`] gave.
///
/// Errors: one violation at the root, rule `json`.
pub(crate) fn parse_checked(text: &str) -> Result<Value, Violation> {
    serde_json::from_str(text).map_err(|e| Violation::new("", Rule::Json, format!("not JSON: {e}")))
}

/// The text of JSON `bytes` whose size was checked: its nesting depth
/// within [`MAX_DEPTH`] (checked before any parsing, so a deep input costs
/// one pass), then UTF-8.
///
/// Errors: one violation at the root, rule `limits` or `utf8`.
pub(crate) fn shallow_text(bytes: &[u8]) -> Result<&str, Violation> {
    if let Some(depth) = depth_over(bytes, MAX_DEPTH) {
        return Err(Violation::new(
            "",
            Rule::Limits,
            format!("nesting depth {depth} exceeds the limit of {MAX_DEPTH}"),
        ));
    }
    std::str::from_utf8(bytes).map_err(|e| {
        Violation::new(
            "",
            Rule::Utf8,
            format!(
                "input is not UTF-8: invalid byte at offset {}",
                e.valid_up_to()
            ),
        )
    })
}

/// The value at a path of object keys (a JSON pointer without escapes,
/// walked without the allocations of [`Value::pointer`]).
pub(super) fn at<'a>(v: &'a Value, path: &[&str]) -> Option<&'a Value> {
    path.iter()
        .try_fold(v, |v, k| v.as_object().and_then(|o| member(o, k)))
}

/// The member `key` of `o`, as [`Map::get`] finds it. That hashes the key
/// (SipHash, the map's hasher) at every lookup; the objects of an event
/// are small, so one of at most [`SMALL`] members is found by comparing
/// the keys in turn instead (a map's keys are unique: the same member).
pub(super) fn member<'a>(o: &'a Map<String, Value>, key: &str) -> Option<&'a Value> {
    /// Members up to which comparing keys in turn beats hashing the key.
    const SMALL: usize = 8;
    if o.len() <= SMALL {
        o.iter().find_map(|(k, v)| (k == key).then_some(v))
    } else {
        o.get(key)
    }
}

pub(super) fn str_at<'a>(v: &'a Value, path: &[&str]) -> Option<&'a str> {
    at(v, path).and_then(Value::as_str)
}

/// The path of the elicitation payload's members.
pub(super) const ELICITATION: [&str; 2] = ["payload", "elicitation"];

pub(super) fn elicitation_str<'a>(v: &'a Value, member: &str) -> Option<&'a str> {
    at(v, &ELICITATION)?.get(member)?.as_str()
}

pub(super) fn server_at(event: &Value) -> Result<Server, Violation> {
    let s = at(event, &ELICITATION)
        .and_then(|e| e.get("server"))
        .unwrap_or(&Value::Null);
    Server::deserialize(s).map_err(|e| {
        Violation::new(
            "/payload/elicitation/server",
            Rule::WireRoot,
            format!("server: {e}"),
        )
    })
}

/// Parse the body text of `part` (limits, then JSON); a fault is at the
/// root of the part.
pub(super) fn parse_text(text: &str, part: Part) -> Result<Value, Violation> {
    if let Some(depth) = depth_over(text.as_bytes(), MAX_DEPTH) {
        return Err(Violation::within(
            part,
            "",
            Rule::Limits,
            format!("nesting depth {depth} of the body text exceeds the limit of {MAX_DEPTH}"),
        ));
    }
    serde_json::from_str(text).map_err(|e| {
        Violation::within(
            part,
            "",
            Rule::TextJson,
            format!("the text part is not JSON: {e}"),
        )
    })
}

/// The body selection of the elicitation part `part` (`request` or
/// `result`).
pub(super) fn read_view<'a>(event: &'a Value, part: &str) -> PartView<'a> {
    match at(event, &ELICITATION).and_then(|e| e.get(part)) {
        None => PartView::Omit,
        Some(p) => match p.get("selection").and_then(Value::as_str) {
            Some("metadata") => PartView::Metadata,
            Some("omit") => PartView::Omit,
            _ => match (p.get("text").and_then(Value::as_str), p.get("gap")) {
                (Some(t), _) => PartView::Text(t),
                (None, Some(g)) => PartView::Gap {
                    reason: g
                        .get("reason")
                        .and_then(Value::as_str)
                        .unwrap_or("unavailable")
                        .to_owned(),
                    detail: g.get("detail").and_then(Value::as_str).map(str::to_owned),
                },
                (None, None) => PartView::Omit,
            },
        },
    }
}

pub(super) enum PartView<'a> {
    /// The body text, borrowed from the event.
    Text(&'a str),
    Metadata,
    Omit,
    Gap {
        reason: String,
        detail: Option<String>,
    },
}

pub(super) fn check_type(event: &Value, want: &str) -> Result<(), Vec<Violation>> {
    let ty = event.get("type").and_then(Value::as_str).unwrap_or("");
    if ty == want {
        Ok(())
    } else {
        Err(vec![Violation::new(
            "/type",
            Rule::EventType,
            format!("expected a {want} event, found '{ty}'"),
        )])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `member` finds what `Map::get` finds, on both sides of the size at
    /// which it stops comparing keys in turn, for present and absent keys
    /// (a key that prefixes another among them).
    #[test]
    fn member_is_get() {
        for n in 0..12 {
            let mut o = Map::new();
            for i in 0..n {
                o.insert(format!("k{i}"), Value::from(i));
            }
            for key in ["k0", "k7", "k8", "k1", "k10", "k", "k00", ""] {
                assert_eq!(member(&o, key), o.get(key), "{n} members, key {key:?}");
            }
        }
    }
}
