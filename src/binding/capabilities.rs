//! Elicitation capabilities (the binding: "capabilities.elicitation.form
//! and .url are independent optional objects").
//!
//! AHP shape: `{ "elicitation": { "form"?: {"effects"?: [..]}, "url"?: {..} } }`.
//! Each mode object is optional and independent; an absent mode is
//! unsupported; an empty AHP `elicitation` object grants neither mode. Only
//! for a capability that came from MCP, the legacy `elicitation: {}` means
//! form support ([`from_mcp`]); the AHP reading ([`from_ahp`]) never applies
//! that mapping. [`advertise`] lists only the effects this program enforces
//! ("Advertise only modes and effects that the adapter can faithfully
//! enforce").

use serde_json::{json, Map, Value};

use super::envelope::Mode;
use super::violation::{Rule, Violation};

/// An effect a subscriber may apply to an elicitation event.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum EffectKind {
    /// The result is returned to the requester as answered.
    Return,
    /// modify(content) at an accepted form result.
    Modify,
}

impl EffectKind {
    /// `return` or `modify`.
    pub fn as_str(self) -> &'static str {
        match self {
            EffectKind::Return => "return",
            EffectKind::Modify => "modify",
        }
    }
    /// Parse `return` or `modify`.
    pub fn parse(s: &str) -> Option<EffectKind> {
        match s {
            "return" => Some(EffectKind::Return),
            "modify" => Some(EffectKind::Modify),
            _ => None,
        }
    }
}

/// One supported mode and the effects enforced for it (empty: none
/// claimed; the `effects` key is then left out of the JSON).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ModeCapability {
    pub effects: Vec<EffectKind>,
}

/// The elicitation capability: each mode `Some` when supported.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ElicitationCapabilities {
    pub form: Option<ModeCapability>,
    pub url: Option<ModeCapability>,
}

impl ElicitationCapabilities {
    /// Whether `mode` is supported (its mode object is present).
    pub fn supports(&self, mode: Mode) -> bool {
        self.mode(mode).is_some()
    }

    /// The capability of one mode, if supported.
    pub fn mode(&self, mode: Mode) -> Option<&ModeCapability> {
        match mode {
            Mode::Form => self.form.as_ref(),
            Mode::Url => self.url.as_ref(),
        }
    }

    /// Whether `effect` is advertised for `mode` (false for an unsupported
    /// mode).
    pub fn enforces(&self, mode: Mode, effect: EffectKind) -> bool {
        self.mode(mode).is_some_and(|m| m.effects.contains(&effect))
    }

    /// The AHP JSON, `{"elicitation": {"form": {...}?, "url": {...}?}}`;
    /// the mode objects in the order form, url.
    pub fn to_json(&self) -> Value {
        let mut el = Map::new();
        for (name, m) in [("form", &self.form), ("url", &self.url)] {
            if let Some(m) = m {
                let mut o = Map::new();
                if !m.effects.is_empty() {
                    o.insert(
                        "effects".into(),
                        Value::Array(m.effects.iter().map(|e| json!(e.as_str())).collect()),
                    );
                }
                el.insert(name.into(), Value::Object(o));
            }
        }
        json!({ "elicitation": el })
    }
}

/// The effects this program enforces for `mode`: `return` for both; `modify`
/// only for form, where `ahp-elicit modify` enforces modify(content) (a URL result
/// has no content, so there is nothing to modify).
pub fn enforced_effects(mode: Mode) -> Vec<EffectKind> {
    match mode {
        Mode::Form => vec![EffectKind::Return, EffectKind::Modify],
        Mode::Url => vec![EffectKind::Return],
    }
}

/// What this responder advertises for `modes` (each listed mode with
/// [`enforced_effects`]; modes not listed are absent, i.e. unsupported).
pub fn advertise(modes: &[Mode]) -> ElicitationCapabilities {
    let mut c = ElicitationCapabilities::default();
    for &m in modes {
        let cap = Some(ModeCapability {
            effects: enforced_effects(m),
        });
        match m {
            Mode::Form => c.form = cap,
            Mode::Url => c.url = cap,
        }
    }
    c
}

fn mode_object(v: &Value, ptr: &str, errs: &mut Vec<Violation>) -> Option<ModeCapability> {
    let Some(o) = v.as_object() else {
        errs.push(Violation::new(
            ptr,
            Rule::Capabilities,
            "a mode capability must be an object",
        ));
        return None;
    };
    let mut effects = Vec::new();
    match o.get("effects") {
        None => {}
        Some(Value::Array(items)) => {
            for (i, it) in items.iter().enumerate() {
                match it.as_str().and_then(EffectKind::parse) {
                    Some(e) if !effects.contains(&e) => effects.push(e),
                    Some(e) => errs.push(Violation::new(
                        format!("{ptr}/effects/{i}"),
                        Rule::Capabilities,
                        format!("effect '{}' is listed twice", e.as_str()),
                    )),
                    None => errs.push(Violation::new(
                        format!("{ptr}/effects/{i}"),
                        Rule::Capabilities,
                        "an effect is \"return\" or \"modify\"",
                    )),
                }
            }
        }
        Some(_) => errs.push(Violation::new(
            format!("{ptr}/effects"),
            Rule::Capabilities,
            "effects must be an array of effect names",
        )),
    }
    Some(ModeCapability { effects })
}

/// The `elicitation` member of a capabilities object: Ok(None) when absent.
fn elicitation_member(caps: &Value) -> Result<Option<&Map<String, Value>>, Violation> {
    let Some(o) = caps.as_object() else {
        return Err(Violation::new(
            "",
            Rule::Capabilities,
            "a capabilities object must be a JSON object",
        ));
    };
    match o.get("elicitation") {
        None => Ok(None),
        Some(Value::Object(e)) => Ok(Some(e)),
        Some(_) => Err(Violation::new(
            "/elicitation",
            Rule::Capabilities,
            "elicitation must be an object",
        )),
    }
}

fn read_modes(el: &Map<String, Value>) -> Result<ElicitationCapabilities, Vec<Violation>> {
    let mut errs = Vec::new();
    let form = el
        .get("form")
        .and_then(|v| mode_object(v, "/elicitation/form", &mut errs));
    let url = el
        .get("url")
        .and_then(|v| mode_object(v, "/elicitation/url", &mut errs));
    if errs.is_empty() {
        Ok(ElicitationCapabilities { form, url })
    } else {
        Err(errs)
    }
}

/// Read an AHP capabilities object. An absent `elicitation`, an
/// empty `elicitation: {}` and absent modes all mean unsupported: the legacy
/// MCP mapping does NOT apply here.
///
/// Errors (rule `capabilities`): not an object, `elicitation` or a mode not
/// an object, `effects` not an array of unique `return`/`modify`.
pub fn from_ahp(caps: &Value) -> Result<ElicitationCapabilities, Vec<Violation>> {
    match elicitation_member(caps).map_err(|e| vec![e])? {
        None => Ok(ElicitationCapabilities::default()),
        Some(el) => read_modes(el),
    }
}

/// Map an MCP client capabilities object (`ClientCapabilities`, e.g.
/// `{"elicitation": {"form": {}, "url": {}}, "roots": {}}`) to AHP
/// (the binding: "For an MCP-origin capability only, legacy elicitation: {} maps to
/// form support"):
/// - `elicitation` absent: neither mode;
/// - `elicitation: {}` (exactly empty): form only, the legacy mapping;
/// - otherwise `form` and `url` each supported when present; other keys
///   (MCP objects are open) are ignored.
///
/// MCP declares no AHP effects, so the mapped mode objects list none.
///
/// Errors (rule `capabilities`): not an object, `elicitation`, `form` or
/// `url` not an object.
pub fn from_mcp(caps: &Value) -> Result<ElicitationCapabilities, Vec<Violation>> {
    let Some(el) = elicitation_member(caps).map_err(|e| vec![e])? else {
        return Ok(ElicitationCapabilities::default());
    };
    if el.is_empty() {
        return Ok(ElicitationCapabilities {
            form: Some(ModeCapability::default()),
            url: None,
        });
    }
    let mut errs = Vec::new();
    let mut mode = |k: &str| -> Option<ModeCapability> {
        match el.get(k) {
            None => None,
            Some(Value::Object(_)) => Some(ModeCapability::default()),
            Some(_) => {
                errs.push(Violation::new(
                    format!("/elicitation/{k}"),
                    Rule::Capabilities,
                    format!("elicitation.{k} must be an object"),
                ));
                None
            }
        }
    };
    let form = mode("form");
    let url = mode("url");
    if errs.is_empty() {
        Ok(ElicitationCapabilities { form, url })
    } else {
        Err(errs)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn legacy_empty_is_form_only_for_mcp_and_nothing_for_ahp() {
        let caps = json!({"elicitation": {}});
        let m = from_mcp(&caps).unwrap();
        assert!(m.supports(Mode::Form));
        assert!(!m.supports(Mode::Url));
        let a = from_ahp(&caps).unwrap();
        assert!(!a.supports(Mode::Form));
        assert!(!a.supports(Mode::Url));
    }

    #[test]
    fn advertise_lists_enforced_effects() {
        let c = advertise(&[Mode::Form, Mode::Url]);
        assert_eq!(
            c.to_json(),
            json!({"elicitation": {"form": {"effects": ["return", "modify"]}, "url": {"effects": ["return"]}}})
        );
        assert!(c.enforces(Mode::Form, EffectKind::Modify));
        assert!(!c.enforces(Mode::Url, EffectKind::Modify));
    }
}
