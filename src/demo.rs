//! The demo request: a request event with every field kind
//! (`src/demo_request.json`, the shared every-kind example), built into the
//! binary for `ahp-elicit demo` and for tests of the terminal front end.

use crate::binding;

/// The embedded demo request (JSON text): every field kind.
pub const DEMO_REQUEST: &str = include_str!("demo_request.json");

/// The demo request, parsed and validated.
///
/// Errors: the violations of the embedded request (a build defect the tests
/// catch), each with its pointer and rule.
pub fn demo_request() -> Result<binding::RequestEvent, Vec<binding::Violation>> {
    let v = binding::parse_json(DEMO_REQUEST.as_bytes()).map_err(|e| vec![e])?;
    binding::read_request_event(&v)
}

#[cfg(test)]
mod tests {
    #[test]
    fn embedded_request_is_valid() {
        let r = super::demo_request().expect("valid");
        assert_eq!(r.id, "evt-profile-1");
        assert_eq!(r.mode, crate::binding::Mode::Form);
    }
}
