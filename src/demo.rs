//! The demo request: a request event with every field kind
//! (`src/demo_request.json`, the shared every-kind example), built into the
//! binary for `ahp-elicit demo` and for tests of the terminal front end.

use crate::binding;

/// The embedded demo request (JSON text): every field kind.
pub const DEMO_REQUEST: &str = include_str!("demo_request.json");

/// The demo request, parsed and validated.
///
/// Errors: the embedded request is invalid (a build defect the tests catch),
/// each violation in one sentence.
pub fn demo_request() -> Result<binding::RequestEvent, String> {
    let v = binding::parse_json(DEMO_REQUEST.as_bytes()).map_err(|e| e.to_string())?;
    binding::read_request_event(&v).map_err(|es| {
        es.iter()
            .map(|e| e.to_string())
            .collect::<Vec<_>>()
            .join("; ")
    })
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
