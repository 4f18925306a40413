//! The `WWW-Authenticate` challenge parser on arbitrary bytes: nothing
//! panics; the challenges and parameters stay within their bounds; every
//! scheme and parameter name is a non-empty token; a fault's offset lies
//! inside the header; the input split on a NUL byte as several headers
//! gives the challenges of each header in order.
#![no_main]

use ahp_elicit::mcp::auth::challenge::{
    parse_all, parse_into, BearerChallenge, ChallengeError, MAX_CHALLENGES, MAX_PARAMS,
};
use libfuzzer_sys::fuzz_target;

fn token(s: &str) -> bool {
    !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b))
}

fuzz_target!(|data: &[u8]| {
    let mut one = Vec::new();
    match parse_into(data, &mut one) {
        Ok(()) => {}
        Err(ChallengeError::TooLong) => assert!(one.is_empty()),
        Err(ChallengeError::Syntax { at, .. }) => assert!(at <= data.len()),
    }
    assert!(one.len() <= MAX_CHALLENGES);
    for c in &one {
        assert!(token(&c.scheme), "scheme {:?}", c.scheme);
        assert!(c.params.len() <= MAX_PARAMS);
        assert!(c.token68.is_none() || c.params.is_empty());
        for (n, _) in &c.params {
            assert!(token(n) && n.bytes().all(|b| !b.is_ascii_uppercase()));
        }
    }
    let headers: Vec<&[u8]> = data.split(|&b| b == 0).collect();
    let (all, _) = parse_all(headers.iter().copied());
    assert!(all.len() <= MAX_CHALLENGES);
    let mut each = Vec::new();
    for h in &headers {
        let _ = parse_into(h, &mut each);
    }
    assert_eq!(all, each);
    let _ = BearerChallenge::from_headers(headers.iter().copied());
});
