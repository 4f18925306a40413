//! The demo request: a request event with every field kind
//! (`src/demo_request.json`, the shared every-kind example), built into the
//! binary for `ahp-elicit demo` and for tests of the terminal front end.

use crate::binding;

/// The embedded demo request (JSON text): every field kind.
pub const DEMO_REQUEST: &str = include_str!("demo_request.json");

/// The demo request, parsed and validated (by the fast reading, so the
/// first frame compiles no JSON schema; its `event` is then `Null`).
///
/// Errors: the violations of the embedded request (a build defect the tests
/// catch), each with its pointer and rule.
pub fn demo_request() -> Result<binding::RequestEvent, Vec<binding::Violation>> {
    if let Some(binding::fast::ValidEvent::Request(r)) =
        binding::fast::read_valid(DEMO_REQUEST.as_bytes())
    {
        return Ok(r);
    }
    let v = binding::parse_json(DEMO_REQUEST.as_bytes()).map_err(|e| vec![e])?;
    binding::read_request(v, binding::ReadOptions::default())
}

#[cfg(test)]
mod tests {
    #[test]
    fn embedded_request_is_valid() {
        let r = super::demo_request().expect("valid");
        assert_eq!(r.id, "evt-profile-1");
        assert_eq!(r.mode, crate::binding::Mode::Form);
        // The fast reading took it (no tree kept), and reads it as the
        // full reading does.
        assert!(r.event.is_null());
        let v = crate::binding::parse_json(super::DEMO_REQUEST.as_bytes()).unwrap();
        let mut full = crate::binding::read_request(v, Default::default()).expect("valid");
        full.event = serde_json::Value::Null;
        assert_eq!(r, full);
    }
}
