//! The pinned MCP protocol revisions as a value, and `extensions.mcp`, the
//! place where an event names the revision it follows.
//!
//! The seed pins the elicitation binding to one MCP revision and adopts a new
//! one only by review: a pin of its own, regenerated definitions and
//! compatibility tests. Each pinned revision is one row of [`TABLE`]: its
//! protocol version, its `pin.json`, its generated `request`/`result`
//! definitions and the names of the `schema.ts` overrides its extraction
//! applies, plus the few rules of the binding that differ between
//! revisions. Nothing else in the crate names a pinned revision as a
//! literal (the client names them through [`Revision::as_str`], and the
//! older versions it accepts at `initialize` through
//! [`Revision::OLDER_WIRE_VERSIONS`]);
//! everything from a validated [`RequestEvent`](super::RequestEvent) on (the
//! form model, the answerers, the session) is revision-blind.
//!
//! Adopting a third revision for the binding: a folder
//! `upstream/mcp/<version>/` with its `pin.json`, the generated
//! `schemas/mcp-elicitation-<version>.schema.json` (`ahp-elicit upstream
//! extract --protocol-version <version>`), a vector file
//! `tests/vectors/elicitation-<version>.jsonl`, and one row here (with its
//! constant and its version string). Every test that is about a revision
//! iterates [`Revision::ALL`]. The live MCP client (`crate::mcp`) names the
//! revisions it speaks through these constants too, but how it negotiates
//! them (`mcp::request_meta`, `mcp::client::lifecycle`) is protocol logic that a new
//! revision may change: see docs/mcp.md.
//!
//! `extensions.mcp` (`ahp-wire.md` 6.1) is a closed object:
//! `{"protocolVersion": "<version>", "inputKey"?: string, "call"?: {"method",
//! "name"}}`. The wire root checks its shape; [`read_mcp_extension`] checks
//! that the version is a pinned one (rule `mcp-revision`). No
//! `extensions.mcp` means [`Revision::DEFAULT`] (2025-11-25, every event
//! before the second pin).

use std::fmt;

use serde_json::{json, Map, Value};

use super::violation::{Rule, Violation};

/// One pinned revision's data: its version, its pinned files and the
/// rules that differ between revisions.
#[derive(Debug)]
pub struct RevisionData {
    /// The MCP protocol version string (`protocolVersion`).
    pub version: &'static str,
    /// `upstream/mcp/<version>/pin.json`, embedded.
    pub pin_json: &'static str,
    /// The generated definitions (`$defs` `request` and `result`), embedded.
    pub definitions: &'static str,
    /// Where the generated definitions live in the repository.
    pub definitions_path: &'static str,
    /// The `$id` of the generated definitions document.
    pub definitions_id: &'static str,
    /// The names of the `schema.ts` overrides the extraction applies
    /// (`crate::upstream::OVERRIDES` holds each one with its evidence).
    pub overrides: &'static [&'static str],
    /// A URL-mode request carries an opaque `elicitationId` (2025-11-25);
    /// without it a URL request is invalid.
    pub url_elicitation_id: bool,
    /// A request's related-task `_meta` is echoed into its result
    /// (2025-11-25 tasks; tasks left the core protocol in 2026-07-28).
    pub related_task_echo: bool,
}

/// The protocol version strings of the pinned revisions, in [`TABLE`]
/// order (kept apart so that [`Revision::as_str`] is a `const fn`).
const VERSIONS: [&str; 2] = ["2025-11-25", "2026-07-28"];

/// The pinned revisions, oldest first. One row per revision.
pub static TABLE: [RevisionData; 2] = [
    RevisionData {
        version: VERSIONS[0],
        pin_json: include_str!("../../upstream/mcp/2025-11-25/pin.json"),
        definitions: include_str!("../../schemas/mcp-elicitation.schema.json"),
        definitions_path: "schemas/mcp-elicitation.schema.json",
        definitions_id: "https://ahp-elicit.invalid/schemas/0.1/mcp-elicitation.schema.json",
        overrides: &[
            "number-schema-bounds-are-numbers",
            "elicit-result-content-numbers",
            "task-metadata-ttl-number",
            "progress-token-number",
        ],
        url_elicitation_id: true,
        related_task_echo: true,
    },
    RevisionData {
        version: VERSIONS[1],
        pin_json: include_str!("../../upstream/mcp/2026-07-28/pin.json"),
        definitions: include_str!("../../schemas/mcp-elicitation-2026-07-28.schema.json"),
        definitions_path: "schemas/mcp-elicitation-2026-07-28.schema.json",
        definitions_id:
            "https://ahp-elicit.invalid/schemas/0.1/mcp-elicitation-2026-07-28.schema.json",
        overrides: &["elicit-result-content-numbers"],
        url_elicitation_id: false,
        related_task_echo: false,
    },
];

/// A pinned MCP protocol revision: an index into the table of pinned revisions. Copy, compared
/// and matched like an enum through its constants.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Revision(u8);

impl Revision {
    /// MCP 2025-11-25: the first pin, and the revision of every event that
    /// does not name one.
    pub const V2025_11_25: Revision = Revision(0);
    /// MCP 2026-07-28: stateless, elicitation by Multi Round-Trip Requests.
    pub const V2026_07_28: Revision = Revision(1);
    /// Every pinned revision, oldest first.
    pub const ALL: &'static [Revision] = &[Revision::V2025_11_25, Revision::V2026_07_28];
    /// The revision of an event without `extensions.mcp`.
    pub const DEFAULT: Revision = Revision::V2025_11_25;
    /// The newest pinned revision.
    pub const LATEST: Revision = Revision::V2026_07_28;
    /// Protocol versions older than every pin that the live client still
    /// accepts when a server answers `initialize` with one of them: the
    /// session then goes on under [`Revision::V2025_11_25`] (the same
    /// handshake; URL mode does not exist before it) and its events name
    /// that revision. Not pinned: no event names one of these.
    pub const OLDER_WIRE_VERSIONS: &'static [&'static str] = &["2025-06-18", "2025-03-26"];

    /// This revision's position in [`Revision::ALL`].
    pub fn index(self) -> usize {
        usize::from(self.0)
    }

    /// This revision's pinned data.
    pub fn data(self) -> &'static RevisionData {
        &TABLE[usize::from(self.0)]
    }

    /// The protocol version string (`2025-11-25`); usable in constants.
    pub const fn as_str(self) -> &'static str {
        VERSIONS[self.0 as usize]
    }

    /// The pinned revision of a protocol version string; None for any other
    /// string (a version is never guessed or read as the nearest one).
    pub fn parse(s: &str) -> Option<Revision> {
        Revision::ALL.iter().copied().find(|r| r.as_str() == s)
    }

    /// The pinned versions, comma-separated, for messages.
    pub fn list() -> String {
        Revision::ALL
            .iter()
            .map(|r| r.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// `" (MCP <version>)"`, the suffix of a message whose rule depends on
    /// the revision.
    pub fn tag(self) -> String {
        format!(" (MCP {})", self.as_str())
    }
}

impl Default for Revision {
    fn default() -> Self {
        Revision::DEFAULT
    }
}

/// A protocol version string that is not a pinned revision
/// (`"2025-06-18".parse::<Revision>()`): the string as given.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{:?} is not a pinned MCP revision (pinned: {})", .0, Revision::list())]
pub struct UnknownRevision(pub String);

impl std::str::FromStr for Revision {
    type Err = UnknownRevision;

    /// [`Revision::parse`], with the string kept in the error.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Revision::parse(s).ok_or_else(|| UnknownRevision(s.to_owned()))
    }
}

impl fmt::Display for Revision {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl fmt::Debug for Revision {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Revision({})", self.as_str())
    }
}

/// The client request that an elicitation came from
/// (`extensions.mcp.call.method`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CallMethod {
    /// `tools/call`
    ToolsCall,
    /// `prompts/get`
    PromptsGet,
    /// `resources/read`
    ResourcesRead,
}

impl CallMethod {
    /// The JSON-RPC method name.
    pub fn as_str(self) -> &'static str {
        match self {
            CallMethod::ToolsCall => "tools/call",
            CallMethod::PromptsGet => "prompts/get",
            CallMethod::ResourcesRead => "resources/read",
        }
    }
    /// The method of a JSON-RPC method name; None for any other.
    pub fn parse(s: &str) -> Option<CallMethod> {
        match s {
            "tools/call" => Some(CallMethod::ToolsCall),
            "prompts/get" => Some(CallMethod::PromptsGet),
            "resources/read" => Some(CallMethod::ResourcesRead),
            _ => None,
        }
    }
}

/// `extensions.mcp.call`: the method and the tool or prompt name or the
/// resource URI (1 to 2048 characters, no control characters). Informational:
/// never identity, never trusted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CallRef {
    pub method: CallMethod,
    pub name: String,
}

/// `extensions.mcp` of an event: which revision its body follows and,
/// informationally, which `inputRequests` entry (`input_key`, 1 to 256
/// characters) and which client request (`call`) it came from.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct McpExtension {
    pub protocol_version: Revision,
    pub input_key: Option<String>,
    pub call: Option<CallRef>,
}

impl McpExtension {
    /// An extension naming only `revision`.
    pub fn of(revision: Revision) -> Self {
        McpExtension {
            protocol_version: revision,
            input_key: None,
            call: None,
        }
    }

    /// The JSON object written as `extensions.mcp`.
    pub fn to_value(&self) -> Value {
        let mut m = Map::new();
        m.insert(
            "protocolVersion".into(),
            json!(self.protocol_version.as_str()),
        );
        if let Some(k) = &self.input_key {
            m.insert("inputKey".into(), json!(k));
        }
        if let Some(c) = &self.call {
            m.insert(
                "call".into(),
                json!({ "method": c.method.as_str(), "name": c.name }),
            );
        }
        Value::Object(m)
    }
}

/// The revision an event follows: the one its `extensions.mcp` names, else
/// [`Revision::DEFAULT`].
pub fn revision_of(mcp: Option<&McpExtension>) -> Revision {
    mcp.map_or(Revision::DEFAULT, |m| m.protocol_version)
}

/// The key of the extension in an event's `extensions` object.
pub const EXTENSION_KEY: &str = "mcp";

/// The pinned revision `version` names.
///
/// Errors: one violation at `/extensions/mcp/protocolVersion`, rule
/// `mcp-revision`, quoting the version (at most 40 characters of it) and
/// listing the pinned ones.
pub fn check_version(version: &str) -> Result<Revision, Violation> {
    Revision::parse(version).ok_or_else(|| {
        let shown: String = if version.chars().count() > 40 {
            let cut: String = version.chars().take(37).collect();
            format!("{cut}...")
        } else {
            version.to_owned()
        };
        Violation::new(
            "/extensions/mcp/protocolVersion",
            Rule::McpRevision,
            format!(
                "'{}' is not a pinned MCP revision (pinned: {})",
                crate::safe_text::display(&shown),
                Revision::list()
            ),
        )
    })
}

/// Read `extensions.mcp` of an event that passed the wire root (which
/// checks its shape). Ok(None): the event names no revision (it follows
/// [`Revision::DEFAULT`]).
///
/// Errors: one violation at `/extensions/mcp/protocolVersion`, rule
/// `mcp-revision`, when the version is not a pinned one.
pub fn read_mcp_extension(event: &Value) -> Result<Option<McpExtension>, Violation> {
    let Some(ext) = event
        .get("extensions")
        .and_then(|e| e.get(EXTENSION_KEY))
        .and_then(Value::as_object)
    else {
        return Ok(None);
    };
    let version = ext
        .get("protocolVersion")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let protocol_version = check_version(version)?;
    let input_key = ext
        .get("inputKey")
        .and_then(Value::as_str)
        .map(str::to_owned);
    let call = ext.get("call").and_then(|c| {
        Some(CallRef {
            method: CallMethod::parse(c.get("method")?.as_str()?)?,
            name: c.get("name")?.as_str()?.to_owned(),
        })
    });
    Ok(Some(McpExtension {
        protocol_version,
        input_key,
        call,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_version_string_parses_to_its_pinned_revision_or_says_why_not() {
        assert_eq!("2026-07-28".parse::<Revision>(), Ok(Revision::V2026_07_28));
        assert_eq!("2025-11-25".parse::<Revision>(), Ok(Revision::V2025_11_25));
        let e = "2025-06-18".parse::<Revision>().unwrap_err();
        assert_eq!(
            e.to_string(),
            r#""2025-06-18" is not a pinned MCP revision (pinned: 2025-11-25, 2026-07-28)"#
        );
    }

    #[test]
    fn every_revision_parses_back_and_lists_in_order() {
        for (i, r) in Revision::ALL.iter().enumerate() {
            assert_eq!(Revision::parse(r.as_str()), Some(*r));
            assert_eq!(usize::from(r.0), i, "ALL is the table order");
        }
        assert_eq!(Revision::ALL.len(), TABLE.len());
        assert_eq!(Revision::parse("2025-06-18"), None);
        for v in Revision::OLDER_WIRE_VERSIONS {
            assert_eq!(Revision::parse(v), None, "{v} is not pinned");
            assert!(
                *v < Revision::ALL[0].as_str(),
                "{v} is older than every pin"
            );
        }
        assert_eq!(Revision::parse(""), None);
        assert!(Revision::DEFAULT < Revision::LATEST);
    }

    #[test]
    fn each_revision_has_its_own_pin_and_definitions() {
        for r in Revision::ALL {
            let d = r.data();
            let pin: Value = serde_json::from_str(d.pin_json).unwrap();
            assert_eq!(pin["protocolRevision"], r.as_str(), "{r}");
            let defs: Value = serde_json::from_str(d.definitions).unwrap();
            assert_eq!(defs["$id"], d.definitions_id, "{r}");
            assert!(defs["$defs"]["request"].is_object(), "{r}");
            assert!(defs["$defs"]["result"].is_object(), "{r}");
            assert!(
                defs["title"].as_str().unwrap().contains(r.as_str()),
                "{r}: {}",
                defs["title"]
            );
        }
    }

    #[test]
    fn the_extension_round_trips() {
        let ext = McpExtension {
            protocol_version: Revision::V2026_07_28,
            input_key: Some("booking".into()),
            call: Some(CallRef {
                method: CallMethod::ToolsCall,
                name: "book".into(),
            }),
        };
        let event = json!({ "extensions": { "mcp": ext.to_value() } });
        assert_eq!(read_mcp_extension(&event).unwrap(), Some(ext));
        assert_eq!(read_mcp_extension(&json!({})).unwrap(), None);
        let bad = json!({ "extensions": { "mcp": { "protocolVersion": "2099-01-01" } } });
        let e = read_mcp_extension(&bad).unwrap_err();
        assert_eq!(e.pointer(), "/extensions/mcp/protocolVersion");
        assert_eq!(e.rule, "mcp-revision");
    }
}
