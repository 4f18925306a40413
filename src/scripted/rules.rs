//! Answer rules: the `{"rules": [...]}` form of an answers file, for runs
//! whose request ids are made at run time (`ahp-elicit mcp`, an adapter's
//! stream) and whose requests must still be told apart.
//!
//! A rule is `{"match": {...}, "answer": {...}, "name"?: "..."}`. The rules
//! are tried in file order; the first whose `match` holds answers. Every key
//! of a `match` is optional, and a key that is given must hold:
//!
//! | key | holds when |
//! |---|---|
//! | `method` | `elicitation/create`, or `sampling/createMessage` for a server's sampling request put to the person as a form (its event carries `extensions."ahp-elicit/sampling"`) |
//! | `server` | the request's `payload.elicitation.server.name` is this string |
//! | `call` | the name in `extensions.mcp.call` (tool, prompt or resource URI) is this string |
//! | `mode` | the request's mode is `form` or `url` |
//! | `protocolVersion` | the event's revision (`extensions.mcp.protocolVersion`; none means 2025-11-25) |
//! | `message` | this regular expression (the `regex` crate's syntax) matches somewhere in the message |
//! | `fields` | the form asks for exactly these property names (order free) |
//! | `host` | the URL request's host is this name (case-insensitive; an international name in its ASCII `xn--` form, an IP address as the URL parser writes it) |
//!
//! A scripted accept of a URL whose host the consent screen warns about
//! (look-alike or international names, a user name before `@`, a loopback,
//! link-local or private address, `localhost`) is refused unless the rule
//! that answers names that host with `host`
//! ([`crate::url_review::UrlReview::unattended_refusal`]).
//!
//! `{"match": {}}` holds for every request: a catch-all, written on purpose.
//! There is no default: a request no rule matches gets no answer, and the
//! reason says rule by rule which keys did not hold ([`NoRule`]).
//!
//! `message` and `fields` are read from the request's params: a metadata,
//! omit or gap view has neither, so a rule that names one of them does not
//! match it; a form outside the closed subset read under the compatible
//! schema policy still has its message and property names.
//!
//! An unknown key anywhere is an error when the file is read (a misspelt
//! key must not widen a rule to every request). [`Rules::lint`] finds the
//! rules that can never answer: one an earlier rule always takes, and one
//! whose own keys contradict each other or its answer.

use std::collections::{BTreeSet, HashMap};
use std::fmt;

use regex::Regex;
use serde_json::{Map, Value};

use super::{AnswersError, ScriptedAnswer};
use crate::binding::{Action, Mode, RequestBody, RequestEvent, RequestView, Revision};
use crate::safe_text::display;

/// The JSON Schema of an answers file (all three forms), as embedded in
/// the binary (`schemas/answers.schema.json`).
pub const SCHEMA: &str = include_str!("../../schemas/answers.schema.json");

/// The keys of a `match` object, in the order reasons name them.
pub const MATCH_KEYS: &[&str] = &[
    "method",
    "server",
    "call",
    "mode",
    "protocolVersion",
    "message",
    "fields",
    "host",
];

/// What an event says in `extensions.mcp`: the revision it follows and the
/// name of the client request in progress, if any.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct McpFacts {
    /// `protocolVersion` ([`Revision::DEFAULT`] when the event has no
    /// `extensions.mcp`).
    pub protocol_version: Revision,
    /// `call.name`: the tool or prompt name or the resource URI.
    pub call: Option<String>,
}

/// What `extensions.mcp` of a validated request event says (as the
/// binding read it): the revision (2025-11-25 without it) and the call's
/// name.
pub fn mcp_facts(req: &RequestEvent) -> McpFacts {
    McpFacts {
        protocol_version: req.revision(),
        call: req
            .mcp
            .as_ref()
            .and_then(|m| m.call.as_ref())
            .map(|c| c.name.clone()),
    }
}

/// The extension key of a request event that stands for a server's
/// `sampling/createMessage` (the person writes the model's reply in its
/// form).
pub const SAMPLING_EXTENSION: &str = "ahp-elicit/sampling";
/// `method` of such a request.
pub const SAMPLING_METHOD: &str = "sampling/createMessage";
/// `method` of every other request.
pub const ELICIT_METHOD: &str = "elicitation/create";

/// The MCP method `req` stands for: [`SAMPLING_METHOD`] when its event
/// carries [`SAMPLING_EXTENSION`], else [`ELICIT_METHOD`].
pub fn method_of(req: &RequestEvent) -> &'static str {
    let sampling = req
        .event
        .get("extensions")
        .and_then(|e| e.get(SAMPLING_EXTENSION))
        .is_some();
    if sampling {
        SAMPLING_METHOD
    } else {
        ELICIT_METHOD
    }
}

/// What a request offers the rules to match on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Facts {
    /// The MCP method the request stands for (`elicitation/create`, or
    /// `sampling/createMessage` for a sampling request put as a form).
    pub method: &'static str,
    /// `server.name`.
    pub server: String,
    /// `extensions.mcp.call.name`, if the adapter set it.
    pub call: Option<String>,
    /// The request's mode.
    pub mode: Mode,
    /// The event's protocol revision.
    pub protocol_version: Revision,
    /// The message, when the request carries its params.
    pub message: Option<String>,
    /// The form's property names: None for a URL request or a view without
    /// params.
    pub fields: Option<BTreeSet<String>>,
    /// What the request shows instead of params (`metadata only`, ...), for
    /// the reasons; None for a body.
    pub view: Option<&'static str>,
    /// A URL request's host as the URL parser writes it (lower case, ASCII
    /// form); None for a form or a URL without a host.
    pub host: Option<String>,
}

impl Facts {
    /// The facts of `req` (see the module docs for where each comes from).
    pub fn of(req: &RequestEvent) -> Facts {
        let mcp = mcp_facts(req);
        let host = match &req.view {
            RequestView::Body(r) => match &r.body {
                RequestBody::Url { url, .. } => url::Url::parse(url)
                    .ok()
                    .and_then(|u| u.host_str().map(str::to_ascii_lowercase)),
                RequestBody::Form(_) => None,
            },
            _ => None,
        };
        let (message, fields, view) = match &req.view {
            RequestView::Body(r) => {
                let fields = match &r.body {
                    RequestBody::Form(s) => Some(s.fields.iter().map(|f| f.name.clone()).collect()),
                    RequestBody::Url { .. } => None,
                };
                (Some(r.message.clone()), fields, None)
            }
            RequestView::NotAForm {
                message, fields, ..
            } => (
                message.clone(),
                fields.as_ref().map(|f| f.iter().cloned().collect()),
                None,
            ),
            RequestView::Metadata => (None, None, Some("a metadata-only view")),
            RequestView::Omit => (None, None, Some("an omitted view")),
            RequestView::Gap { .. } => (None, None, Some("a gap")),
        };
        Facts {
            method: method_of(req),
            server: req.server.name.clone(),
            call: mcp.call,
            mode: req.mode,
            protocol_version: mcp.protocol_version,
            message,
            fields,
            view,
            host,
        }
    }

    /// A short description for reports: mode, server, call and fields
    /// (server text sanitized).
    pub fn summary(&self) -> String {
        let kind = if self.method == SAMPLING_METHOD {
            "sampling/createMessage"
        } else {
            self.mode.as_str()
        };
        let mut s = format!("{kind} request from server {}", quoted(&self.server));
        if let Some(c) = &self.call {
            s.push_str(&format!(", call {}", quoted(c)));
        }
        if self.protocol_version != Revision::DEFAULT {
            s.push_str(&format!(", protocolVersion {}", self.protocol_version));
        }
        if let Some(f) = &self.fields {
            s.push_str(&format!(", fields {}", list(f)));
        }
        if let Some(v) = self.view {
            s.push_str(&format!(" ({v})"));
        }
        s
    }
}

/// A set of names as `['a', 'b']`, each one [`quoted`].
fn list(names: &BTreeSet<String>) -> String {
    let shown: Vec<String> = names.iter().map(|n| quoted(n)).collect();
    format!("[{}]", shown.join(", "))
}

/// Server or file text between single quotes, delimited safely: `\` and
/// `'` inside are written `\\` and `\'`, then control and bidi characters
/// are escaped ([`display`]), so the quotes always show where the text
/// ends (`'a\', \'b'` is one name).
pub fn quoted(s: &str) -> String {
    let escaped = if s.contains(['\\', '\'']) {
        s.replace('\\', "\\\\").replace('\'', "\\'")
    } else {
        s.to_owned()
    };
    format!("'{}'", display(&escaped))
}

/// The most memory one compiled `message` pattern may take, in bytes, and
/// the most its search cache may grow to: 16 MiB each. Unicode classes are
/// large (`^\w{3,40}$` compiles to about 3 MiB); `(?-u:\w)` (ASCII only)
/// is far smaller. A pattern over the bound is refused when the file is
/// read.
pub const PATTERN_SIZE_LIMIT: usize = 16 << 20;

/// The size classes a pattern is compiled in, smallest first: it is
/// counted at the first it fits (its compiled form and search cache each
/// stay within it).
const PATTERN_CLASSES: [usize; 5] = [32 << 10, 256 << 10, 1 << 20, 4 << 20, PATTERN_SIZE_LIMIT];

/// The most memory the `message` patterns of one rules document may take
/// together, counted by size class: 64 MiB. A document over it is refused
/// when read, at the pattern that goes over.
pub const PATTERNS_SIZE_LIMIT: usize = 64 << 20;

/// A `message` pattern: the text as written and its compiled form. Equal
/// when the text is equal.
#[derive(Debug, Clone)]
pub struct Pattern {
    source: String,
    regex: Regex,
    /// The size class it compiled in (bytes).
    size: usize,
}

impl Pattern {
    /// Compile `source` (the `regex` crate's syntax; searched, not
    /// anchored: add `^...$` to match the whole message).
    ///
    /// Errors: [`PatternError`], the compiler's error (said on one line).
    pub fn new(source: &str) -> Result<Pattern, PatternError> {
        let mut last = None;
        for size in PATTERN_CLASSES {
            let built = regex::RegexBuilder::new(source)
                .size_limit(size)
                .dfa_size_limit(size)
                .build();
            match built {
                Ok(regex) => {
                    return Ok(Pattern {
                        source: source.to_owned(),
                        regex,
                        size,
                    })
                }
                Err(e @ regex::Error::CompiledTooBig(_)) => last = Some(e),
                Err(e) => return Err(PatternError(e)),
            }
        }
        Err(PatternError(last.unwrap_or(regex::Error::CompiledTooBig(
            PATTERN_SIZE_LIMIT,
        ))))
    }

    /// The size class it is counted at, in bytes (at most
    /// the size limit of one pattern).
    pub fn size(&self) -> usize {
        self.size
    }

    /// The pattern as written.
    pub fn as_str(&self) -> &str {
        &self.source
    }

    /// Whether the pattern matches somewhere in `text`.
    pub fn is_match(&self, text: &str) -> bool {
        self.regex.is_match(text)
    }
}

impl PartialEq for Pattern {
    fn eq(&self, other: &Self) -> bool {
        self.source == other.source
    }
}

/// The regex compiler's message on one line. A syntax error is drawn as
/// the pattern, a caret under the fault and `error: WHAT`; this gives
/// `WHAT (at character N)`.
/// A `message` pattern that does not compile: the `regex` crate's error,
/// said on one line with the place it names.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{}", regex_reason(.0))]
pub struct PatternError(regex::Error);

/// `regex::Error`'s equality is derived (structural), so it is one.
impl Eq for PatternError {}

impl PatternError {
    /// The compiler's own error (its multi-line text points at the place).
    pub fn regex_error(&self) -> &regex::Error {
        &self.0
    }
}

fn regex_reason(e: &regex::Error) -> String {
    let text = e.to_string();
    let lines: Vec<&str> = text.lines().collect();
    if let [_, pattern, caret, what] = lines.as_slice() {
        let indent = pattern.len() - pattern.trim_start_matches(' ').len();
        if let (Some(what), Some(col)) = (what.strip_prefix("error: "), caret.find('^')) {
            let at = caret[indent.min(col)..col].chars().count() + 1;
            return format!("{what} (at character {at})");
        }
    }
    lines
        .iter()
        .map(|l| l.trim())
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

/// Every `message` pattern of a rules document that does not compile, as
/// (pointer, reason), whatever else is wrong with the document (reading it
/// stops at the first fault; `answers check` lists them all).
#[cfg(feature = "cli")]
pub fn pattern_faults(doc: &Value) -> Vec<(String, String)> {
    let Some(items) = doc.get("rules").and_then(Value::as_array) else {
        return Vec::new();
    };
    items
        .iter()
        .enumerate()
        .filter_map(|(i, r)| {
            let p = r.get("match")?.get("message")?.as_str()?;
            let why = Pattern::new(p).err()?;
            Some((
                format!("/rules/{i}/match/message"),
                RuleFault::BadPattern(why).to_string(),
            ))
        })
        .collect()
}

/// The `match` of a rule: each key that is given must hold.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Match {
    /// `method`: `elicitation/create` or `sampling/createMessage`.
    pub method: Option<&'static str>,
    pub server: Option<String>,
    pub call: Option<String>,
    pub mode: Option<Mode>,
    pub protocol_version: Option<Revision>,
    pub message: Option<Pattern>,
    pub fields: Option<BTreeSet<String>>,
    /// `host`, in lower case.
    pub host: Option<String>,
}

/// One key of a rule's `match` that does not hold for a request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Miss {
    /// `method`: the request's, the rule's.
    Method {
        found: &'static str,
        want: &'static str,
    },
    /// `server`: the request's server name, the rule's.
    Server { found: String, want: String },
    /// `call`: the request's call name (None: it names none), the rule's.
    Call { found: Option<String>, want: String },
    /// `mode`.
    Mode { found: Mode, want: Mode },
    /// `protocolVersion`.
    ProtocolVersion { found: Revision, want: Revision },
    /// `message`: the pattern does not match the message.
    Message { pattern: String },
    /// `message`: the request carries no message (`view` says why).
    NoMessage { pattern: String, view: &'static str },
    /// `fields`: the form's names (None: not a form with params), the rule's.
    Fields {
        found: Option<BTreeSet<String>>,
        want: BTreeSet<String>,
    },
    /// `host`: the URL's host (None: not a URL request with a host), the
    /// rule's.
    Host { found: Option<String>, want: String },
}

impl Miss {
    /// The `match` key that did not hold.
    pub fn key(&self) -> &'static str {
        match self {
            Miss::Method { .. } => "method",
            Miss::Server { .. } => "server",
            Miss::Call { .. } => "call",
            Miss::Mode { .. } => "mode",
            Miss::ProtocolVersion { .. } => "protocolVersion",
            Miss::Message { .. } | Miss::NoMessage { .. } => "message",
            Miss::Fields { .. } => "fields",
            Miss::Host { .. } => "host",
        }
    }
}

/// One clause; text from the request and the file is sanitized.
impl fmt::Display for Miss {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Miss::Method { found, want } => write!(f, "method is {found}, not {want}"),
            Miss::Server { found, want } => {
                write!(f, "server is {}, not {}", quoted(found), quoted(want))
            }
            Miss::Call {
                found: Some(c),
                want,
            } => write!(f, "call is {}, not {}", quoted(c), quoted(want)),
            Miss::Call { found: None, want } => write!(
                f,
                "the event names no call (extensions.mcp.call), not {}",
                quoted(want)
            ),
            Miss::Mode { found, want } => {
                write!(f, "mode is {}, not {}", found.as_str(), want.as_str())
            }
            Miss::ProtocolVersion { found, want } => {
                write!(f, "protocolVersion is {found}, not {want}")
            }
            Miss::Message { pattern } => {
                write!(f, "the message does not match /{}/", display(pattern))
            }
            Miss::NoMessage { pattern, view } => {
                write!(f, "no message to match /{}/ in {view}", display(pattern))
            }
            Miss::Fields {
                found: Some(found),
                want,
            } => write!(f, "fields are {}, not {}", list(found), list(want)),
            Miss::Fields { found: None, want } => {
                write!(f, "no form fields, not {}", list(want))
            }
            Miss::Host {
                found: Some(h),
                want,
            } => write!(f, "host is {}, not {}", quoted(h), quoted(want)),
            Miss::Host { found: None, want } => {
                write!(f, "no URL host, not {}", quoted(want))
            }
        }
    }
}

impl Match {
    /// Every key of this match that does not hold for `facts`, in the order
    /// of the match keys (empty: the match holds).
    pub fn misses(&self, facts: &Facts) -> Vec<Miss> {
        let mut out = Vec::new();
        if let Some(want) = self.method {
            if want != facts.method {
                out.push(Miss::Method {
                    found: facts.method,
                    want,
                });
            }
        }
        if let Some(want) = &self.server {
            if *want != facts.server {
                out.push(Miss::Server {
                    found: facts.server.clone(),
                    want: want.clone(),
                });
            }
        }
        if let Some(want) = &self.call {
            if facts.call.as_ref() != Some(want) {
                out.push(Miss::Call {
                    found: facts.call.clone(),
                    want: want.clone(),
                });
            }
        }
        if let Some(want) = self.mode {
            if want != facts.mode {
                out.push(Miss::Mode {
                    found: facts.mode,
                    want,
                });
            }
        }
        if let Some(want) = self.protocol_version {
            if want != facts.protocol_version {
                out.push(Miss::ProtocolVersion {
                    found: facts.protocol_version,
                    want,
                });
            }
        }
        if let Some(p) = &self.message {
            match &facts.message {
                Some(m) if p.is_match(m) => {}
                Some(_) => out.push(Miss::Message {
                    pattern: p.as_str().to_owned(),
                }),
                None => out.push(Miss::NoMessage {
                    pattern: p.as_str().to_owned(),
                    view: facts.view.unwrap_or("the request"),
                }),
            }
        }
        if let Some(want) = &self.fields {
            if facts.fields.as_ref() != Some(want) {
                out.push(Miss::Fields {
                    found: facts.fields.clone(),
                    want: want.clone(),
                });
            }
        }
        if let Some(want) = &self.host {
            if facts.host.as_ref() != Some(want) {
                out.push(Miss::Host {
                    found: facts.host.clone(),
                    want: want.clone(),
                });
            }
        }
        out
    }

    /// Whether this match holds for every request that `later` holds for,
    /// judged from the keys alone: each key given here is given the same in
    /// `later` (`mode: form` is also implied by `fields`, which only a form
    /// has; an empty `message` pattern matches every message, though not a
    /// request without one).
    pub fn covers(&self, later: &Match) -> bool {
        fn same<T: PartialEq>(a: &Option<T>, b: &Option<T>) -> bool {
            a.is_none() || a == b
        }
        let mode = match self.mode {
            None => true,
            Some(m) => later.mode == Some(m) || (m == Mode::Form && later.fields.is_some()),
        };
        let message = match (&self.message, &later.message) {
            (None, _) => true,
            (Some(a), Some(b)) => a == b || a.as_str().is_empty(),
            (Some(a), None) => a.as_str().is_empty() && later.fields.is_some(),
        };
        let fields = self.fields.is_none() || self.fields == later.fields;
        same(&self.method, &later.method)
            && same(&self.server, &later.server)
            && same(&self.call, &later.call)
            && mode
            && same(&self.protocol_version, &later.protocol_version)
            && message
            && fields
            && same(&self.host, &later.host)
    }
}

/// One rule of an answers file.
#[derive(Debug, Clone, PartialEq)]
pub struct Rule {
    /// Its position in `rules` (0-based; the file's pointer is
    /// `/rules/<index>`).
    pub index: usize,
    /// `name`: a label for reports and the log.
    pub name: Option<String>,
    /// `match`.
    pub when: Match,
    /// `answer`.
    pub answer: ScriptedAnswer,
}

impl Rule {
    /// The rule's JSON Pointer in the answers file (`/rules/0`).
    pub fn pointer(&self) -> String {
        format!("/rules/{}", self.index)
    }

    /// How reports name the rule: `rule 2 (/rules/1)`, or with a name
    /// `rule 2 'booking' (/rules/1)` (sanitized).
    pub fn label(&self) -> String {
        match &self.name {
            Some(n) => format!("rule {} {} ({})", self.index + 1, quoted(n), self.pointer()),
            None => format!("rule {} ({})", self.index + 1, self.pointer()),
        }
    }
}

/// Why no rule answers a request: each rule with the keys that did not
/// hold. Its display is one line, rule by rule: `no rule of the answers
/// file matches this SUMMARY: rule 1 (/rules/0): MISS; MISS | rule 2
/// (/rules/1): MISS`.
#[derive(Debug, Clone, PartialEq)]
pub struct NoRule {
    /// What the request offered (for the report).
    pub facts: Box<Facts>,
    /// Per rule in file order: its label, its pointer and its misses.
    pub misses: Vec<(String, String, Vec<Miss>)>,
}

impl fmt::Display for NoRule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "no rule of the answers file matches this {}:",
            self.facts.summary()
        )?;
        for (i, (label, _, misses)) in self.misses.iter().enumerate() {
            let why: Vec<String> = misses.iter().map(Miss::to_string).collect();
            let sep = if i == 0 { " " } else { " | " };
            write!(f, "{sep}{label}: {}", why.join("; "))?;
        }
        Ok(())
    }
}

/// A rule that can never answer ([`Rules::lint`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Lint {
    /// The rule's pointer (`/rules/2`).
    pub pointer: String,
    /// Why, one sentence.
    pub why: String,
}

impl fmt::Display for Lint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.pointer, self.why)
    }
}

/// The ordered rules of an answers file (at least one).
#[derive(Debug, Clone, PartialEq)]
pub struct Rules {
    rules: Vec<Rule>,
}

/// What is wrong with a rules document, at a JSON Pointer.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RuleFault {
    /// `rules` is not an array.
    #[error("rules must be an array of {{\"match\": {{...}}, \"answer\": {{...}}}}")]
    NotAnArray,
    /// `rules` is empty.
    #[error("give at least one rule (a request no rule matches gets no answer)")]
    NoRules,
    /// A key beside `rules` (and `$schema`) at the top.
    #[error("unknown key (a rules file has rules and $schema)")]
    UnknownTopKey,
    /// A rule that is not an object.
    #[error("a rule must be an object {{\"match\": {{...}}, \"answer\": {{...}}}}")]
    RuleNotAnObject,
    /// A key other than match, answer and name in a rule.
    #[error("unknown key (a rule has match, answer and name)")]
    UnknownRuleKey,
    /// A rule without `match` (write `{}` to match every request).
    #[error("a rule needs a match (write \"match\": {{}} to match every request)")]
    NoMatch,
    /// A rule without `answer`.
    #[error("a rule needs an answer")]
    NoAnswer,
    /// `match` is not an object.
    #[error("match must be an object")]
    MatchNotAnObject,
    /// A key of `match` that is not one of the six.
    #[error(
        "unknown match key (method, server, call, mode, protocolVersion, message, fields, host)"
    )]
    UnknownMatchKey,
    /// A value that must be a non-empty string.
    #[error("must be a non-empty string")]
    NotAString,
    /// `mode` names no mode.
    #[error("'{0}' is not form or url")]
    UnknownMode(String),
    /// `method` names no method the rules answer.
    #[error("'{0}' is not elicitation/create or sampling/createMessage")]
    UnknownMethod(String),
    /// `protocolVersion` names no pinned revision.
    #[error("'{0}' is not a pinned revision ({list})", list = Revision::list())]
    UnknownRevision(String),
    /// `message` does not compile.
    #[error("the pattern does not compile: {0}")]
    BadPattern(#[source] PatternError),
    /// The `message` patterns up to this one take more than
    /// the size limit of all patterns together.
    #[error(
        "the message patterns up to this one take more than {} MiB together (each counts the size class it compiles in: 32 KiB, 256 KiB, 1, 4 or 16 MiB): use fewer or smaller patterns (an ASCII class such as (?-u:\\w) is far smaller than \\w)",
        PATTERNS_SIZE_LIMIT >> 20
    )]
    PatternsTooLarge,
    /// `fields` is not an array of strings.
    #[error("fields must be an array of property names")]
    FieldsNotAnArray,
    /// A name listed twice in `fields`.
    #[error("'{0}' is listed twice")]
    DuplicateField(String),
}

/// `token` escaped for a JSON Pointer.
fn token(s: &str) -> String {
    s.replace('~', "~0").replace('/', "~1")
}

impl Rules {
    /// Whether `o` (an answers document's top object) is a rules document:
    /// it has a `rules` key whose value is not an object (a by-id answer is
    /// an object, so an event id `rules` still reads as one; `"rules":
    /// null` is a wrong rules list, not an answer).
    pub fn is_rules_document(o: &Map<String, Value>) -> bool {
        o.get("rules").is_some_and(|v| !v.is_object())
    }

    /// Read a rules document `{"rules": [...], "$schema"?: "..."}`.
    ///
    /// Errors: the first fault, as [`AnswersError::Rule`] with its pointer,
    /// or [`AnswersError::Answer`] for a rule's answer.
    pub fn from_value(o: &Map<String, Value>) -> Result<Rules, AnswersError> {
        let at = |pointer: String, fault| AnswersError::Rule { pointer, fault };
        if let Some(k) = o.keys().find(|k| *k != "rules" && *k != "$schema") {
            return Err(at(format!("/{}", token(k)), RuleFault::UnknownTopKey));
        }
        if o.get("$schema").is_some_and(|v| !v.is_string()) {
            return Err(at("/$schema".into(), RuleFault::NotAString));
        }
        let Some(Value::Array(items)) = o.get("rules") else {
            return Err(at("/rules".into(), RuleFault::NotAnArray));
        };
        if items.is_empty() {
            return Err(at("/rules".into(), RuleFault::NoRules));
        }
        let mut rules = Vec::with_capacity(items.len());
        let mut size = 0usize;
        // A pattern written again (rules that differ in other keys) is
        // compiled, and counted, once.
        let mut compiled: HashMap<String, Pattern> = HashMap::new();
        let mut counted = std::collections::HashSet::new();
        for (index, v) in items.iter().enumerate() {
            let rule = Self::rule(index, v, &mut compiled)?;
            size += rule
                .when
                .message
                .as_ref()
                .filter(|p| counted.insert(p.as_str().to_owned()))
                .map_or(0, Pattern::size);
            if size > PATTERNS_SIZE_LIMIT {
                return Err(at(
                    format!("/rules/{index}/match/message"),
                    RuleFault::PatternsTooLarge,
                ));
            }
            rules.push(rule);
        }
        Ok(Rules { rules })
    }

    fn rule(
        index: usize,
        v: &Value,
        compiled: &mut HashMap<String, Pattern>,
    ) -> Result<Rule, AnswersError> {
        let ptr = format!("/rules/{index}");
        let at = |pointer: String, fault| AnswersError::Rule { pointer, fault };
        let Some(o) = v.as_object() else {
            return Err(at(ptr, RuleFault::RuleNotAnObject));
        };
        if let Some(k) = o
            .keys()
            .find(|k| !matches!(k.as_str(), "match" | "answer" | "name"))
        {
            return Err(at(format!("{ptr}/{}", token(k)), RuleFault::UnknownRuleKey));
        }
        let name = match o.get("name") {
            None => None,
            Some(Value::String(s)) if !s.is_empty() => Some(s.clone()),
            Some(_) => return Err(at(format!("{ptr}/name"), RuleFault::NotAString)),
        };
        let when = match o.get("match") {
            None => return Err(at(ptr, RuleFault::NoMatch)),
            Some(Value::Object(m)) => Self::matcher(m, &format!("{ptr}/match"), compiled)?,
            Some(_) => return Err(at(format!("{ptr}/match"), RuleFault::MatchNotAnObject)),
        };
        let answer = match o.get("answer") {
            None => return Err(at(ptr, RuleFault::NoAnswer)),
            Some(a) => ScriptedAnswer::from_value(a, &format!("{ptr}/answer"))?,
        };
        Ok(Rule {
            index,
            name,
            when,
            answer,
        })
    }

    fn matcher(
        m: &Map<String, Value>,
        ptr: &str,
        compiled: &mut HashMap<String, Pattern>,
    ) -> Result<Match, AnswersError> {
        let at = |key: &str, fault| AnswersError::Rule {
            pointer: format!("{ptr}/{}", token(key)),
            fault,
        };
        if let Some(k) = m.keys().find(|k| !MATCH_KEYS.contains(&k.as_str())) {
            return Err(at(k, RuleFault::UnknownMatchKey));
        }
        let text = |key: &str| -> Result<Option<String>, AnswersError> {
            match m.get(key) {
                None => Ok(None),
                Some(Value::String(s)) if !s.is_empty() => Ok(Some(s.clone())),
                Some(_) => Err(at(key, RuleFault::NotAString)),
            }
        };
        let mode = match text("mode")? {
            None => None,
            Some(s) => Some(Mode::parse(&s).ok_or_else(|| at("mode", RuleFault::UnknownMode(s)))?),
        };
        let method = match text("method")? {
            None => None,
            Some(s) if s == ELICIT_METHOD => Some(ELICIT_METHOD),
            Some(s) if s == SAMPLING_METHOD => Some(SAMPLING_METHOD),
            Some(s) => return Err(at("method", RuleFault::UnknownMethod(s))),
        };
        let protocol_version = match text("protocolVersion")? {
            None => None,
            Some(s) => Some(
                Revision::parse(&s)
                    .ok_or_else(|| at("protocolVersion", RuleFault::UnknownRevision(s)))?,
            ),
        };
        // An empty pattern is allowed (it matches every message).
        let message = match m.get("message") {
            None => None,
            Some(Value::String(s)) => Some(match compiled.get(s) {
                Some(p) => p.clone(),
                None => {
                    let p = Pattern::new(s).map_err(|e| at("message", RuleFault::BadPattern(e)))?;
                    compiled.insert(s.clone(), p.clone());
                    p
                }
            }),
            Some(_) => return Err(at("message", RuleFault::NotAString)),
        };
        let fields = match m.get("fields") {
            None => None,
            Some(Value::Array(items)) => {
                let mut set = BTreeSet::new();
                for (i, item) in items.iter().enumerate() {
                    let Some(s) = item.as_str() else {
                        return Err(AnswersError::Rule {
                            pointer: format!("{ptr}/fields/{i}"),
                            fault: RuleFault::FieldsNotAnArray,
                        });
                    };
                    if !set.insert(s.to_owned()) {
                        return Err(AnswersError::Rule {
                            pointer: format!("{ptr}/fields/{i}"),
                            fault: RuleFault::DuplicateField(s.to_owned()),
                        });
                    }
                }
                Some(set)
            }
            Some(_) => return Err(at("fields", RuleFault::FieldsNotAnArray)),
        };
        Ok(Match {
            method,
            server: text("server")?,
            call: text("call")?,
            mode,
            protocol_version,
            message,
            fields,
            host: text("host")?.map(|h| h.to_ascii_lowercase()),
        })
    }

    /// The rules in file order.
    pub fn rules(&self) -> &[Rule] {
        &self.rules
    }

    /// The first rule whose match holds for `req`.
    ///
    /// Errors: [`NoRule`], with every rule's misses.
    pub fn choose(&self, req: &RequestEvent) -> Result<&Rule, NoRule> {
        let facts = Facts::of(req);
        let mut misses = Vec::with_capacity(self.rules.len());
        for r in &self.rules {
            let m = r.when.misses(&facts);
            if m.is_empty() {
                return Ok(r);
            }
            misses.push((r.label(), r.pointer(), m));
        }
        Err(NoRule {
            facts: Box::new(facts),
            misses,
        })
    }

    /// For each rule, the index of the first earlier rule that covers it
    /// ([`Match::covers`]), if any. The same answer as trying every earlier
    /// rule, in time linear in the number of rules: a rule that covers
    /// another holds, for each key, either nothing or one of at most three
    /// values derived from the later rule, so the later rule looks up each
    /// of those (at most 288) key combinations among the earlier rules'
    /// exact keys.
    pub fn first_covers(&self) -> Vec<Option<usize>> {
        type Key<'a> = (
            (Option<&'a str>, Option<&'a str>),
            (Option<&'static str>, Option<&'a str>),
            Option<&'static str>,
            Option<&'static str>,
            Option<&'a str>,
            Option<&'a BTreeSet<String>>,
        );
        fn own(m: &Match) -> Key<'_> {
            (
                (m.server.as_deref(), m.host.as_deref()),
                (m.method, m.call.as_deref()),
                m.mode.map(Mode::as_str),
                m.protocol_version.map(Revision::as_str),
                m.message.as_ref().map(Pattern::as_str),
                m.fields.as_ref(),
            )
        }
        fn with_none<T>(v: Option<T>) -> Vec<Option<T>> {
            std::iter::once(None).chain(v.map(Some)).collect()
        }
        let mut first: HashMap<Key<'_>, usize> = HashMap::with_capacity(self.rules.len());
        let mut out = Vec::with_capacity(self.rules.len());
        for (i, r) in self.rules.iter().enumerate() {
            let m = &r.when;
            // The server and the host, as one key: each given or not.
            let servers: Vec<(Option<&str>, Option<&str>)> = with_none(m.server.as_deref())
                .into_iter()
                .flat_map(|s| {
                    with_none(m.host.as_deref())
                        .into_iter()
                        .map(move |h| (s, h))
                })
                .collect();
            // The method and the call, as one key: each given or not.
            let calls: Vec<(Option<&'static str>, Option<&str>)> = with_none(m.method)
                .into_iter()
                .flat_map(|me| {
                    with_none(m.call.as_deref())
                        .into_iter()
                        .map(move |c| (me, c))
                })
                .collect();
            let revisions = with_none(m.protocol_version.map(Revision::as_str));
            // `mode: form` also covers a rule naming fields (only a form has them).
            let mut modes = with_none(m.mode.map(Mode::as_str));
            if m.fields.is_some() && m.mode != Some(Mode::Form) {
                modes.push(Some(Mode::Form.as_str()));
            }
            // An empty pattern covers every rule that needs a message.
            let mut messages = with_none(m.message.as_ref().map(Pattern::as_str));
            if (m.message.is_some() || m.fields.is_some())
                && m.message.as_ref().is_none_or(|p| !p.as_str().is_empty())
            {
                messages.push(Some(""));
            }
            let fields = with_none(m.fields.as_ref());
            let mut best: Option<usize> = None;
            for &s in &servers {
                for &c in &calls {
                    for &mo in &modes {
                        for &v in &revisions {
                            for &me in &messages {
                                for &f in &fields {
                                    if let Some(&j) = first.get(&(s, c, mo, v, me, f)) {
                                        best = Some(best.map_or(j, |b| b.min(j)));
                                    }
                                }
                            }
                        }
                    }
                }
            }
            out.push(best);
            first.entry(own(m)).or_insert(i);
        }
        out
    }

    /// The rules that can never answer, in file order: one whose keys
    /// contradict each other (`fields` with `mode: url`) or its answer (an
    /// accept with content for URL mode, content naming a field outside
    /// `fields`), and one an earlier rule always takes ([`Match::covers`]).
    pub fn lint(&self) -> Vec<Lint> {
        let mut out = Vec::new();
        let covered = self.first_covers();
        for (r, covered) in self.rules.iter().zip(covered) {
            let lint = |why: String| Lint {
                pointer: r.pointer(),
                why,
            };
            let m = &r.when;
            if m.fields.is_some() && m.mode == Some(Mode::Url) {
                out.push(lint(
                    "never matches: fields names form fields, and mode is url".into(),
                ));
                continue;
            }
            if let Some(earlier) = covered.map(|j| &self.rules[j]) {
                out.push(lint(format!(
                    "never matches: {} before it matches every request it would",
                    earlier.label()
                )));
                continue;
            }
            if let Some(p) = m.message.as_ref().filter(|p| p.is_match("")) {
                out.push(lint(format!(
                    "matches every message: /{}/ matches the empty text, so message narrows nothing{}",
                    display(p.as_str()),
                    if p.as_str().is_empty() { "" } else { " (anchor it, or drop it to say so)" }
                )));
            }
            let a = &r.answer;
            if let (Action::Accept, Some(content)) = (a.action, &a.content) {
                if m.mode == Some(Mode::Url) {
                    out.push(lint(
                        "never answers: a URL-mode accept carries no content".into(),
                    ));
                } else if let Some(fields) = &m.fields {
                    let stray: BTreeSet<String> = content
                        .keys()
                        .filter(|k| !fields.contains(*k))
                        .cloned()
                        .collect();
                    if !stray.is_empty() {
                        out.push(lint(format!(
                            "never answers: its content sets {} that fields does not list",
                            list(&stray)
                        )));
                    }
                }
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::binding::{
        wrap_request, CallMethod, CallRef, McpExtension, SchemaPolicy, Server, WrapOptions,
    };
    use serde_json::json;

    fn event(server: &str, params: Value, policy: SchemaPolicy) -> RequestEvent {
        let server = Server {
            name: server.into(),
            title: None,
            version: None,
        };
        wrap_request(
            &params,
            &WrapOptions {
                policy,
                ..WrapOptions::new(&server, "mcp-stdio", "evt-1")
            },
        )
        .expect("valid")
    }

    fn form(message: &str, names: &[&str]) -> Value {
        let props: Map<String, Value> = names
            .iter()
            .map(|n| ((*n).to_owned(), json!({"type": "string"})))
            .collect();
        json!({"message": message, "requestedSchema": {"type": "object", "properties": props}})
    }

    fn rules(v: Value) -> Rules {
        let Value::Object(o) = json!({ "rules": v }) else {
            unreachable!()
        };
        Rules::from_value(&o).expect("rules")
    }

    fn matcher(v: Value) -> Match {
        rules(json!([{"match": v, "answer": {"action": "cancel"}}])).rules[0]
            .when
            .clone()
    }

    /// The patterns of one document are bounded together: many large
    /// ones are refused at the one that goes over, many small ones pass.
    #[test]
    fn message_patterns_are_bounded_in_sum() {
        assert_eq!(Pattern::new("table").unwrap().size(), 32 << 10);
        let big = Pattern::new(r"^\w{3,40}$").unwrap().size();
        assert_eq!(big, 4 << 20);
        // Rule i's pattern: `p` with `{i}` replaced by i, when it has one.
        let doc = |n: usize, p: &str| {
            let rules: Vec<Value> = (0..n)
                .map(|i| {
                    let p = p.replace("{i}", &i.to_string());
                    json!({"match": {"message": p}, "answer": {"action": "decline"}})
                })
                .collect();
            json!({ "rules": rules }).as_object().unwrap().clone()
        };
        let e = Rules::from_value(&doc(40, r"^\w{3,40}x{i}$")).unwrap_err();
        let text = e.to_string();
        assert!(text.contains("/rules/16/match/message"), "{text}");
        assert!(text.contains("take more than 64 MiB together"), "{text}");
        assert!(Rules::from_value(&doc(500, "table{i}")).is_ok());
        // One pattern written in many rules is compiled and counted once.
        let same = Rules::from_value(&doc(40, r"^\w{3,40}$")).expect("one pattern");
        assert_eq!(same.rules().len(), 40);
        assert!(same.rules()[39]
            .when
            .message
            .as_ref()
            .unwrap()
            .is_match("abc"));
    }

    #[test]
    fn the_first_matching_rule_answers() {
        let r = rules(json!([
            {"match": {"mode": "url"}, "answer": {"action": "accept"}},
            {"match": {"message": "(?i)TABLE"}, "answer": {"action": "decline"}},
            {"match": {}, "answer": {"action": "cancel"}}
        ]));
        let req = event("s", form("Book a table", &["a"]), SchemaPolicy::Strict);
        assert_eq!(r.choose(&req).expect("a rule").index, 1);
        let req = event("s", form("Other", &["a"]), SchemaPolicy::Strict);
        assert_eq!(r.choose(&req).expect("a rule").index, 2);
    }

    #[test]
    fn every_key_that_does_not_hold_is_named_in_key_order() {
        let m = matcher(json!({"fields": ["b"], "message": "^x$", "mode": "url",
            "server": "other", "call": "book", "protocolVersion": Revision::V2026_07_28.as_str(),
            "host": "Auth.Example", "method": "sampling/createMessage"}));
        let req = event("srv", form("x y", &["a"]), SchemaPolicy::Strict);
        let misses = m.misses(&Facts::of(&req));
        let keys: Vec<&str> = misses.iter().map(Miss::key).collect();
        assert_eq!(keys, MATCH_KEYS);
        let text: Vec<String> = misses.iter().map(Miss::to_string).collect();
        assert_eq!(
            text,
            [
                "method is elicitation/create, not sampling/createMessage",
                "server is 'srv', not 'other'",
                "the event names no call (extensions.mcp.call), not 'book'",
                "mode is form, not url",
                "protocolVersion is 2025-11-25, not 2026-07-28",
                "the message does not match /^x$/",
                "fields are ['a'], not ['b']",
                "no URL host, not 'auth.example'",
            ]
        );
    }

    #[test]
    fn server_text_in_a_reason_is_sanitized() {
        let m = matcher(json!({"server": "ok"}));
        let req = event("ev\u{1b}[2Jil", form("m", &["a"]), SchemaPolicy::Strict);
        let why = m.misses(&Facts::of(&req))[0].to_string();
        assert!(!why.contains('\u{1b}'), "{why}");
        assert!(why.contains("ev\\u{1b}[2Jil"), "{why}");
    }

    #[test]
    fn quoted_server_text_cannot_fake_its_delimiters() {
        let m = matcher(json!({"server": "ok", "fields": ["guests", "name"]}));
        let req = event(
            "a', server 'b\\",
            form("m", &["guests, name"]),
            SchemaPolicy::Strict,
        );
        let why: Vec<String> = m
            .misses(&Facts::of(&req))
            .iter()
            .map(Miss::to_string)
            .collect();
        assert_eq!(
            why,
            [
                r"server is 'a\', server \'b\\', not 'ok'",
                r"fields are ['guests, name'], not ['guests', 'name']",
            ]
        );
        // A backslash written by the server stays apart from an escape.
        assert_eq!(quoted("\\u{1b}\u{1b}\u{202e}"), r"'\\u{1b}\u{1b}\u{202e}'");
    }

    #[test]
    fn a_unicode_class_with_a_bounded_repeat_compiles_and_a_huge_one_does_not() {
        assert!(Pattern::new(r"^\w{3,40}$").is_ok());
        assert!(Pattern::new(r"^(?-u:\w){3,400}$").is_ok());
        let why = Pattern::new(r"\w{1000}")
            .expect_err("over the bound")
            .to_string();
        assert!(why.contains("size limit"), "{why}");
    }

    #[test]
    fn a_form_outside_the_subset_still_offers_its_message_and_names() {
        let params = json!({"message": "Where to?", "requestedSchema": {"type": "object",
            "properties": {"address": {"type": "object", "properties": {}}}}});
        let req = event("s", params, SchemaPolicy::Compatible);
        assert!(matches!(req.view, RequestView::NotAForm { .. }));
        let facts = Facts::of(&req);
        assert_eq!(facts.message.as_deref(), Some("Where to?"));
        assert_eq!(facts.fields, Some(BTreeSet::from(["address".to_owned()])));
        assert!(matcher(json!({"message": "Where", "fields": ["address"]}))
            .misses(&facts)
            .is_empty());
    }

    #[test]
    fn extensions_mcp_gives_the_call_and_the_revision() {
        let server = Server {
            name: "s".into(),
            title: None,
            version: None,
        };
        let mcp = McpExtension {
            protocol_version: Revision::V2026_07_28,
            input_key: Some("k".into()),
            call: Some(CallRef {
                method: CallMethod::PromptsGet,
                name: "plan".into(),
            }),
        };
        let params = form("m", &["a"]);
        let req = wrap_request(
            &params,
            &WrapOptions {
                mcp: Some(&mcp),
                ..WrapOptions::new(&server, "mcp-http", "evt-1")
            },
        )
        .expect("valid");
        let facts = Facts::of(&req);
        assert_eq!(facts.call.as_deref(), Some("plan"));
        assert_eq!(facts.protocol_version, Revision::V2026_07_28);
        assert!(matcher(
            json!({"call": "plan", "protocolVersion": Revision::V2026_07_28.as_str()})
        )
        .misses(&facts)
        .is_empty());
        // Without extensions.mcp: 2025-11-25, no call.
        let facts = Facts::of(&event("s", params, SchemaPolicy::Strict));
        assert_eq!(
            (facts.call, facts.protocol_version),
            (None, Revision::V2025_11_25)
        );
    }

    #[test]
    fn covering_is_judged_from_the_keys() {
        let m = |v: Value| matcher(v);
        assert!(m(json!({})).covers(&m(json!({"server": "a"}))));
        assert!(m(json!({"server": "a"})).covers(&m(json!({"server": "a", "mode": "url"}))));
        assert!(!m(json!({"server": "a"})).covers(&m(json!({"server": "b"}))));
        assert!(!m(json!({"server": "a"})).covers(&m(json!({}))));
        assert!(m(json!({"mode": "form"})).covers(&m(json!({"fields": ["x"]}))));
        assert!(!m(json!({"mode": "url"})).covers(&m(json!({"fields": ["x"]}))));
        assert!(m(json!({"message": "a"})).covers(&m(json!({"message": "a", "call": "c"}))));
        assert!(!m(json!({"message": "a"})).covers(&m(json!({"message": "a|b"}))));
        // An empty pattern matches every message, but a view without one.
        assert!(m(json!({"message": ""})).covers(&m(json!({"message": "x"}))));
        assert!(!m(json!({"message": ""})).covers(&m(json!({"mode": "form"}))));
        assert!(m(json!({"message": ""})).covers(&m(json!({"fields": []}))));
        assert!(!m(json!({"fields": ["a"]})).covers(&m(json!({"fields": ["a", "b"]}))));
    }

    #[test]
    fn the_first_cover_is_the_one_trying_every_earlier_rule_finds() {
        let mut matches = Vec::new();
        for server in [None, Some("a"), Some("b")] {
            for call in [None, Some("c")] {
                for mode in [None, Some("form"), Some("url")] {
                    for version in [None, Some(Revision::V2026_07_28.as_str())] {
                        for message in [None, Some(""), Some("x")] {
                            for fields in [None, Some(json!([])), Some(json!(["f"]))] {
                                let mut o = Map::new();
                                let mut put = |k: &str, v: Option<Value>| {
                                    if let Some(v) = v {
                                        o.insert(k.into(), v);
                                    }
                                };
                                put("server", server.map(Value::from));
                                put("call", call.map(Value::from));
                                put("mode", mode.map(Value::from));
                                put("protocolVersion", version.map(Value::from));
                                put("message", message.map(Value::from));
                                put("fields", fields);
                                matches.push(Value::Object(o));
                            }
                        }
                    }
                }
            }
        }
        // A fixed shuffle, so that covering rules come both before and after.
        let n = matches.len();
        let items: Vec<Value> = (0..n)
            .map(|i| json!({"match": matches[(i * 97) % n], "answer": {"action": "cancel"}}))
            .collect();
        assert_ne!(n % 97, 0, "the shuffle is a permutation");
        let r = rules(Value::Array(items));
        let tried: Vec<Option<usize>> = r
            .rules
            .iter()
            .enumerate()
            .map(|(i, later)| r.rules[..i].iter().position(|e| e.when.covers(&later.when)))
            .collect();
        assert!(tried.iter().filter(|c| c.is_some()).count() > n / 2);
        assert_eq!(r.first_covers(), tried);
    }

    #[test]
    fn the_schema_names_the_pinned_revisions() {
        let schema: Value = serde_json::from_str(SCHEMA).expect("schema");
        let listed = &schema["$defs"]["match"]["properties"]["protocolVersion"]["enum"];
        let pinned: Vec<&str> = Revision::ALL.iter().map(|r| r.as_str()).collect();
        assert_eq!(*listed, json!(pinned));
    }

    #[test]
    fn a_pattern_fault_says_what_and_where() {
        assert_eq!(
            Pattern::new("ab(c").expect_err("unclosed").to_string(),
            "unclosed group (at character 3)"
        );
        assert_eq!(
            Pattern::new("x{2,1}")
                .expect_err("bad repetition")
                .to_string(),
            "invalid repetition count range, the start must be <= the end (at character 2)"
        );
        assert!(Pattern::new("(?i)table").is_ok());
    }
}
