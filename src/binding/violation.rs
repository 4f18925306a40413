//! One broken rule, located by a JSON Pointer.

use std::fmt;

/// A single rule violation found while validating an event, a body text or
/// an effect.
///
/// * `pointer`: RFC 6901 JSON Pointer. Into the event itself
///   (`/payload/elicitation/mode`), or, where the fault lies inside a parsed
///   body text, the pointer to the text part followed by `#` and a pointer
///   into the parsed value
///   (`/payload/elicitation/request/text#/requestedSchema/properties/age/minimum`).
/// * `rule`: a short, stable rule name (`wire-root`, `mcp-request`,
///   `form-subset`, `mode-match`, ...), listed in the README.
/// * `message`: one human sentence.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Violation {
    pub pointer: String,
    pub rule: String,
    pub message: String,
}

impl Violation {
    /// Build a violation from its three parts.
    pub fn new(
        pointer: impl Into<String>,
        rule: impl Into<String>,
        message: impl Into<String>,
    ) -> Self {
        Violation {
            pointer: pointer.into(),
            rule: rule.into(),
            message: message.into(),
        }
    }

    /// The same violation with `prefix` put before its pointer (used to move a
    /// pointer into a body text under the text part's pointer plus `#`).
    pub fn under(mut self, prefix: &str) -> Self {
        self.pointer = format!("{prefix}{}", self.pointer);
        self
    }
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let at = if self.pointer.is_empty() {
            "(root)"
        } else {
            &self.pointer
        };
        write!(f, "{at}: [{}] {}", self.rule, self.message)
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
