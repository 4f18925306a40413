//! One broken rule, located by a JSON Pointer inside one part of the input.
//!
//! A [`Violation`] carries a typed [`Rule`] and a typed [`Location`]; both
//! render to the stable strings of the rule index (docs/binding.md), so the
//! text and JSON outputs are the same strings they always were.

use std::fmt;

use serde::ser::SerializeStruct;

/// Which embedded schema found a keyword fault (the wire root, or the pinned MCP definitions of a revision).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Schema {
    /// The wire root (`schemas/ahp-event.schema.json`).
    WireRoot,
    /// The pinned MCP `request` definition.
    McpRequest,
    /// The pinned MCP `result` definition.
    McpResult,
}

impl Schema {
    /// The rule name of the schema itself (`wire-root`, `mcp-request`,
    /// `mcp-result`), also the prefix of its keyword rules.
    pub fn as_str(self) -> &'static str {
        match self {
            Schema::WireRoot => "wire-root",
            Schema::McpRequest => "mcp-request",
            Schema::McpResult => "mcp-result",
        }
    }

    fn parse(s: &str) -> Option<Schema> {
        [Schema::WireRoot, Schema::McpRequest, Schema::McpResult]
            .into_iter()
            .find(|k| k.as_str() == s)
    }
}

/// A keyword of an embedded schema that failed: rule `<schema>/<keyword>`
/// (`wire-root/required`, `mcp-request/additionalProperties`, ...).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct SchemaKeyword {
    schema: Schema,
    /// The whole rule name, `<schema>/<keyword>`, kept so that
    /// [`Rule::as_str`] borrows it.
    name: String,
}

impl SchemaKeyword {
    /// The fault of `keyword` in `schema`.
    pub fn new(schema: Schema, keyword: &str) -> Self {
        SchemaKeyword {
            schema,
            name: format!("{}/{keyword}", schema.as_str()),
        }
    }

    /// The schema whose keyword failed.
    pub fn schema(&self) -> Schema {
        self.schema
    }

    /// The failed keyword (`required`, `additionalProperties`, ...).
    pub fn keyword(&self) -> &str {
        &self.name[self.schema.as_str().len() + 1..]
    }
}

/// Defines [`Rule`]'s plain variants with their documented names once, so
/// that [`Rule::as_str`], [`Rule::from_name`] and the list of names cannot
/// drift apart.
macro_rules! rules {
    ($($(#[$doc:meta])* $variant:ident => $name:literal,)*) => {
        /// A stable rule name of the binding (the rule index of
        /// docs/binding.md). Serializes as its name.
        #[derive(Debug, Clone, PartialEq, Eq, Hash)]
        pub enum Rule {
            $($(#[$doc])* $variant,)*
            /// A keyword of an embedded schema failed (`wire-root/<keyword>`).
            Schema(SchemaKeyword),
            /// A rule name the binding does not know: a defect of the code
            /// that built the violation (named `internal`), never of the input.
            Internal,
        }

        impl Rule {
            /// Every plain rule (not [`Rule::Schema`] nor [`Rule::Internal`]).
            pub const PLAIN: &'static [Rule] = &[$(Rule::$variant,)*];

            /// The documented name (`wire-root`, `mcp-request`,
            /// `form-subset`, `wire-root/required`, ...).
            pub fn as_str(&self) -> &str {
                match self {
                    $(Rule::$variant => $name,)*
                    Rule::Schema(k) => &k.name,
                    Rule::Internal => "internal",
                }
            }

            /// The rule of a documented name, keyword rules included
            /// (`mcp-request/type`); `None` for a name that is not one.
            pub fn from_name(name: &str) -> Option<Rule> {
                match name {
                    $($name => Some(Rule::$variant),)*
                    _ => {
                        let (schema, keyword) = name.split_once('/')?;
                        let schema = Schema::parse(schema)?;
                        (!keyword.is_empty()).then(|| Rule::schema(schema, keyword))
                    }
                }
            }
        }
    };
}

rules! {
    /// The input is not JSON.
    Json => "json",
    /// The input is not UTF-8.
    Utf8 => "utf8",
    /// A hard limit (size, depth, string length, form limits).
    Limits => "limits",
    /// The event breaks the wire root (beyond one keyword).
    WireRoot => "wire-root",
    /// `respond` got an event that is not a request.
    EventType => "event-type",
    /// A body text is not JSON.
    TextJson => "text-json",
    /// The params break the pinned `request` definition.
    McpRequest => "mcp-request",
    /// The event's mode differs from the params', or the result's from the
    /// request's.
    ModeMatch => "mode-match",
    /// The requested schema is outside the closed form subset.
    FormSubset => "form-subset",
    /// A required name is not a property.
    RequiredExists => "required-exists",
    /// Enum values are empty or repeated.
    EnumUnique => "enum-unique",
    /// `enumNames` differs in length from `enum`.
    EnumNamesLength => "enum-names-length",
    /// A default does not fit its field.
    DefaultFits => "default-fits",
    /// A lower bound is above its upper bound.
    BoundsOrder => "bounds-order",
    /// The result breaks the pinned `result` definition.
    McpResult => "mcp-result",
    /// The event's action differs from the parsed one.
    ActionMatch => "action-match",
    /// Content in a decline, a cancel or a URL result.
    ContentOnlyAcceptedForm => "content-only-accepted-form",
    /// The result does not point at its request.
    ParentId => "parent-id",
    /// The result does not repeat its request's server.
    ServerIdentity => "server-identity",
    /// A metadata, omit or gap view was accepted.
    NotExecutable => "not-executable",
    /// The content has a key that is not a field.
    ContentClosed => "content-closed",
    /// The content misses a required field.
    ContentRequired => "content-required",
    /// A content value is refused by its field.
    ContentValue => "content-value",
    /// modify without read-write permission.
    Permission => "permission",
    /// The effect document is malformed.
    EffectShape => "effect-shape",
    /// modify at a result without its request.
    EffectRequest => "effect-request",
    /// The event type has no modify target.
    EffectTarget => "effect-target",
    /// modify at a URL-mode result or request.
    EffectMode => "effect-mode",
    /// modify at a result that is not an accept.
    EffectAction => "effect-action",
    /// modify at a part that is not an inline body text.
    EffectSelection => "effect-selection",
    /// The effect value has the wrong shape for its target.
    EffectValue => "effect-value",
    /// The effect op is not defined at its target.
    EffectOp => "effect-op",
    /// An attachment reference that is not already in the event.
    EffectAttachment => "effect-attachment",
    /// A canonical outbound message is malformed.
    OutboundMessage => "outbound-message",
    /// A malformed capability object.
    Capabilities => "capabilities",
    /// A value could not be written as JSON.
    Serialize => "serialize",
    /// The answer given for a request was refused.
    AnswerRefused => "answer-refused",
    /// `extensions.mcp.protocolVersion` names no pinned MCP revision.
    McpRevision => "mcp-revision",
    /// The result does not repeat its request's MCP revision.
    RevisionMatch => "revision-match",
}

impl Rule {
    /// The fault of `keyword` in `schema` (`wire-root/<keyword>`).
    pub fn schema(schema: Schema, keyword: &str) -> Rule {
        Rule::Schema(SchemaKeyword::new(schema, keyword))
    }
}

impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl serde::Serialize for Rule {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl PartialEq<str> for Rule {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for Rule {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

/// A text part whose body is parsed JSON of its own: a location inside it is
/// the part's pointer, `#`, and a pointer into the parsed value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Part {
    /// `payload.elicitation.request.text` (the `elicitation/create` params).
    RequestText,
    /// `payload.elicitation.result.text` (the `ElicitResult`).
    ResultText,
    /// The effect document of `modify` (`effect#`).
    Effect,
}

impl Part {
    /// The pointer prefix of the part, `#` included
    /// (`/payload/elicitation/request/text#`).
    pub fn prefix(self) -> &'static str {
        match self {
            Part::RequestText => REQUEST_TEXT,
            Part::ResultText => RESULT_TEXT,
            Part::Effect => EFFECT,
        }
    }
}

/// Where a violation is: in a body text part (or, for `None`, the value
/// itself: the event, or a body not yet placed in its part), at an RFC 6901
/// JSON Pointer.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct Location {
    /// The text part the pointer is inside, `None` for the value itself.
    pub part: Option<Part>,
    /// The JSON Pointer, into the part's parsed body when `part` is set.
    pub pointer: String,
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(p) = self.part {
            f.write_str(p.prefix())?;
        }
        f.write_str(&self.pointer)
    }
}

/// A single rule violation found while validating an event, a body text or
/// an effect.
///
/// * `location`: a JSON Pointer into the event itself
///   (`/payload/elicitation/mode`), or into the parsed body of a text part,
///   rendered as the part's pointer, `#`, and the pointer
///   (`/payload/elicitation/request/text#/requestedSchema/properties/age/minimum`).
/// * `rule`: the broken rule, listed in the README and docs/binding.md.
/// * `message`: one human sentence.
///
/// Serializes as `{"pointer", "rule", "message"}`, all strings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Violation {
    pub location: Location,
    pub rule: Rule,
    pub message: String,
}

impl Violation {
    /// A violation at `pointer` in the value itself (no text part).
    pub fn new(pointer: impl Into<String>, rule: Rule, message: impl Into<String>) -> Self {
        Violation {
            location: Location {
                part: None,
                pointer: pointer.into(),
            },
            rule,
            message: message.into(),
        }
    }

    /// A violation at `pointer` inside the parsed body of `part`.
    pub fn within(
        part: Part,
        pointer: impl Into<String>,
        rule: Rule,
        message: impl Into<String>,
    ) -> Self {
        Violation::new(pointer, rule, message).in_part(part)
    }

    /// The same violation placed inside `part`: its pointer, relative to
    /// the parsed body, now reads as a pointer into that text part.
    pub fn in_part(mut self, part: Part) -> Self {
        self.location.part = Some(part);
        self
    }

    /// The full pointer string, text part prefix included
    /// (`/payload/elicitation/result/text#/content`).
    pub fn pointer(&self) -> String {
        self.location.to_string()
    }
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.location.part.is_none() && self.location.pointer.is_empty() {
            f.write_str("(root)")?;
        } else {
            write!(f, "{}", self.location)?;
        }
        write!(f, ": [{}] {}", self.rule, self.message)
    }
}

impl std::error::Error for Violation {}

impl serde::Serialize for Violation {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut st = s.serialize_struct("Violation", 3)?;
        st.serialize_field("pointer", &self.pointer())?;
        st.serialize_field("rule", &self.rule)?;
        st.serialize_field("message", &self.message)?;
        st.end()
    }
}

/// Escape one reference token for a JSON Pointer (RFC 6901: `~` to `~0`,
/// `/` to `~1`).
pub fn escape_token(token: &str) -> String {
    if !token.contains(['~', '/']) {
        return token.to_owned();
    }
    token.replace('~', "~0").replace('/', "~1")
}

/// Append one reference token to a pointer.
pub fn join(pointer: &str, token: &str) -> String {
    let mut out = String::with_capacity(pointer.len() + token.len() + 1);
    out.push_str(pointer);
    out.push('/');
    if token.contains(['~', '/']) {
        out.push_str(&escape_token(token));
    } else {
        out.push_str(token);
    }
    out
}

/// Pointer prefix for faults inside the request text part.
pub const REQUEST_TEXT: &str = "/payload/elicitation/request/text#";
/// Pointer prefix for faults inside the result text part.
pub const RESULT_TEXT: &str = "/payload/elicitation/result/text#";
/// Pointer prefix for faults in the effect document.
pub const EFFECT: &str = "effect#";

#[cfg(test)]
mod tests {
    use super::*;

    /// Every name of the rule index in docs/binding.md (keyword rules by an
    /// example keyword), plus the rules only the program itself reports.
    const DOCUMENTED: &[&str] = &[
        "json",
        "utf8",
        "limits",
        "wire-root",
        "wire-root/required",
        "event-type",
        "text-json",
        "mcp-request",
        "mcp-request/additionalProperties",
        "mode-match",
        "form-subset",
        "required-exists",
        "enum-unique",
        "enum-names-length",
        "default-fits",
        "bounds-order",
        "mcp-result",
        "mcp-result/type",
        "action-match",
        "content-only-accepted-form",
        "parent-id",
        "server-identity",
        "not-executable",
        "content-closed",
        "content-required",
        "content-value",
        "permission",
        "effect-shape",
        "effect-request",
        "effect-target",
        "effect-mode",
        "effect-action",
        "effect-selection",
        "effect-value",
        "effect-op",
        "effect-attachment",
        "outbound-message",
        "capabilities",
        "serialize",
        "answer-refused",
        "mcp-revision",
        "revision-match",
    ];

    #[test]
    fn every_documented_name_round_trips() {
        for name in DOCUMENTED {
            let rule = Rule::from_name(name).unwrap_or(Rule::Internal);
            assert_eq!(rule.as_str(), *name);
        }
        // Every plain variant is documented, and named once.
        assert_eq!(Rule::PLAIN.len() + 3, DOCUMENTED.len());
        for r in Rule::PLAIN {
            assert!(DOCUMENTED.contains(&r.as_str()), "{r}");
        }
    }

    #[test]
    fn the_rule_index_of_the_docs_names_only_known_rules() {
        let doc = include_str!("../../docs/binding.md");
        let index = doc.split("## Rule index").nth(1).unwrap_or_default();
        let mut names = 0;
        for row in index.lines().filter(|l| l.starts_with("| `")) {
            let first = row.split('|').nth(1).unwrap_or_default();
            for name in first.split('`').skip(1).step_by(2) {
                let name = name.replace("<keyword>", "type");
                if name.ends_with('*') {
                    continue; // `effect-*`: the effect rules, each listed above
                }
                assert!(Rule::from_name(&name).is_some(), "{name}");
                names += 1;
            }
        }
        assert!(names > 25, "the index was read ({names} names)");
        // And the other way: every rule the code can report is in the index.
        for rule in Rule::PLAIN {
            let listed = index.contains(&format!("`{}`", rule.as_str()))
                || (rule.as_str().starts_with("effect-") && index.contains("`effect-*`"));
            assert!(listed, "{} is not in the rule index", rule.as_str());
        }
    }

    #[test]
    fn unknown_names_are_none() {
        for name in ["", "nope", "wire-root/", "other/required", "Json"] {
            assert_eq!(Rule::from_name(name), None, "{name}");
        }
        assert_eq!(Rule::Internal.as_str(), "internal");
    }

    #[test]
    fn schema_keyword_rules_keep_both_halves() {
        let r = Rule::schema(Schema::McpRequest, "additionalProperties");
        assert_eq!(r.as_str(), "mcp-request/additionalProperties");
        let Rule::Schema(k) = &r else {
            panic!("not a schema rule: {r:?}")
        };
        assert_eq!(
            (k.schema(), k.keyword()),
            (Schema::McpRequest, "additionalProperties")
        );
    }

    #[test]
    fn locations_render_as_the_pointers_of_before() {
        let v = Violation::within(Part::RequestText, "/mode", Rule::ModeMatch, "m");
        assert_eq!(v.pointer(), "/payload/elicitation/request/text#/mode");
        assert_eq!(
            v.to_string(),
            "/payload/elicitation/request/text#/mode: [mode-match] m"
        );
        let root = Violation::new("", Rule::Json, "not JSON");
        assert_eq!(root.to_string(), "(root): [json] not JSON");
        let part_root = Violation::new("", Rule::Limits, "deep").in_part(Part::ResultText);
        assert_eq!(
            part_root.to_string(),
            "/payload/elicitation/result/text#: [limits] deep"
        );
        let effect = Violation::within(Part::Effect, "/op", Rule::EffectOp, "x");
        assert_eq!(
            serde_json::to_string(&effect).unwrap_or_default(),
            r#"{"pointer":"effect#/op","rule":"effect-op","message":"x"}"#
        );
    }
}
