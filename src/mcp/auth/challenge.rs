//! `WWW-Authenticate` challenges (RFC 9110 §11.6.1, §11.3): a header is a
//! comma-separated list of challenges, each an auth scheme followed by
//! either a `token68` or a list of `name=value` parameters whose values are
//! tokens or quoted strings (with `\` escapes, commas allowed inside).
//! Scheme and parameter names are case-insensitive. Several headers are
//! read as one list, in order.
//!
//! The parser is bounded ([`MAX_HEADER_BYTES`], [`MAX_CHALLENGES`],
//! [`MAX_PARAMS`]) and never panics (a fuzz target checks it). What the MCP
//! client reads is the `Bearer` challenge (RFC 6750 §3):
//! `resource_metadata` (RFC 9728 §5.1), `scope`, `error`,
//! `error_description`.

/// Bytes of one `WWW-Authenticate` header that are read; a longer header
/// is refused.
pub const MAX_HEADER_BYTES: usize = 8 * 1024;
/// Challenges kept from all headers together; later ones are dropped.
pub const MAX_CHALLENGES: usize = 16;
/// Parameters kept per challenge; later ones are dropped.
pub const MAX_PARAMS: usize = 32;

/// One challenge: its scheme as sent, and either a `token68` or its
/// parameters (names lowercased, values unquoted).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Challenge {
    /// The auth scheme as sent (`Bearer`, `Basic`, ...).
    pub scheme: String,
    /// The `token68` form, when the challenge has one.
    pub token68: Option<String>,
    /// Parameters in order: names lowercased, values with quoting undone.
    pub params: Vec<(String, String)>,
}

impl Challenge {
    /// The first value of parameter `name` (case-insensitive).
    pub fn param(&self, name: &str) -> Option<&str> {
        self.params
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// Whether the scheme is `scheme` (case-insensitive).
    pub fn is(&self, scheme: &str) -> bool {
        self.scheme.eq_ignore_ascii_case(scheme)
    }
}

/// Why a header could not be read: where (a byte offset) and which rule.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ChallengeError {
    /// The header is longer than [`MAX_HEADER_BYTES`].
    #[error("the WWW-Authenticate header is longer than {MAX_HEADER_BYTES} bytes")]
    TooLong,
    /// Something that breaks RFC 9110's grammar at byte `at`.
    #[error("the WWW-Authenticate header breaks RFC 9110 at byte {at}: {rule}")]
    Syntax {
        /// Byte offset in the header.
        at: usize,
        /// What was expected there.
        rule: &'static str,
    },
}

fn is_tchar(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b)
}

fn is_token68_char(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"-._~+/".contains(&b)
}

struct Cursor<'a> {
    s: &'a [u8],
    at: usize,
}

impl Cursor<'_> {
    fn peek(&self) -> Option<u8> {
        self.s.get(self.at).copied()
    }

    fn skip_ows(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t')) {
            self.at += 1;
        }
    }

    fn token(&mut self) -> &[u8] {
        let start = self.at;
        while self.peek().is_some_and(is_tchar) {
            self.at += 1;
        }
        &self.s[start..self.at]
    }

    fn err(&self, rule: &'static str) -> ChallengeError {
        ChallengeError::Syntax { at: self.at, rule }
    }

    /// A quoted string, the opening quote under the cursor.
    fn quoted(&mut self) -> Result<String, ChallengeError> {
        self.at += 1;
        let mut out = Vec::new();
        loop {
            match self.peek() {
                None => return Err(self.err("a quoted string ends with '\"'")),
                Some(b'"') => {
                    self.at += 1;
                    return Ok(String::from_utf8_lossy(&out).into_owned());
                }
                Some(b'\\') => {
                    self.at += 1;
                    match self.peek() {
                        Some(b) if b == b'\t' || b >= 0x20 && b != 0x7f => {
                            out.push(b);
                            self.at += 1;
                        }
                        _ => return Err(self.err("'\\' escapes a visible character")),
                    }
                }
                Some(b) if b == b'\t' || b >= 0x20 && b != 0x7f => {
                    out.push(b);
                    self.at += 1;
                }
                Some(_) => return Err(self.err("no control characters in a quoted string")),
            }
        }
    }

    /// Whether a `token68` starts here: its characters, then `=`s, then the
    /// end of the challenge (end of header or a comma).
    fn token68_here(&self) -> Option<usize> {
        let mut i = self.at;
        while self.s.get(i).copied().is_some_and(is_token68_char) {
            i += 1;
        }
        if i == self.at {
            return None;
        }
        while self.s.get(i) == Some(&b'=') {
            i += 1;
        }
        let end = i;
        while matches!(self.s.get(i), Some(b' ' | b'\t')) {
            i += 1;
        }
        matches!(self.s.get(i), None | Some(b',')).then_some(end)
    }
}

/// Parse one header value into `out` (at most [`MAX_CHALLENGES`] in
/// `out`).
///
/// Errors: [`ChallengeError`] naming the byte and the rule; the challenges
/// read before the fault stay in `out`.
pub fn parse_into(header: &[u8], out: &mut Vec<Challenge>) -> Result<(), ChallengeError> {
    if header.len() > MAX_HEADER_BYTES {
        return Err(ChallengeError::TooLong);
    }
    let mut c = Cursor { s: header, at: 0 };
    loop {
        // Empty list elements are allowed (RFC 9110 §5.6.1.2).
        while matches!(c.peek(), Some(b' ' | b'\t' | b',')) {
            c.at += 1;
        }
        if c.peek().is_none() {
            return Ok(());
        }
        let scheme = c.token();
        if scheme.is_empty() {
            return Err(c.err("a challenge starts with an auth scheme (a token)"));
        }
        let mut ch = Challenge {
            scheme: String::from_utf8_lossy(scheme).into_owned(),
            ..Challenge::default()
        };
        match c.peek() {
            None | Some(b',') => {}
            Some(b' ' | b'\t') => {
                c.skip_ows();
                if let Some(end) = c.token68_here() {
                    ch.token68 = Some(String::from_utf8_lossy(&c.s[c.at..end]).into_owned());
                    c.at = end;
                } else {
                    params(&mut c, &mut ch)?;
                }
            }
            Some(_) => return Err(c.err("a space or a comma after the auth scheme")),
        }
        if out.len() < MAX_CHALLENGES {
            out.push(ch);
        }
        c.skip_ows();
        match c.peek() {
            None | Some(b',') => {}
            Some(_) => return Err(c.err("a comma between challenges")),
        }
    }
}

/// The parameters of one challenge, up to the next challenge's scheme.
fn params(c: &mut Cursor<'_>, ch: &mut Challenge) -> Result<(), ChallengeError> {
    // Where the comma before the current name is: a name that is not
    // followed by `=` starts the next challenge, after that comma.
    let mut comma: Option<usize> = None;
    loop {
        c.skip_ows();
        let start = c.at;
        let name = c.token().to_ascii_lowercase();
        if name.is_empty() {
            // `Bearer ,` or the end: no (more) parameters.
            return Ok(());
        }
        c.skip_ows();
        if c.peek() != Some(b'=') {
            // Not a parameter: the next challenge's scheme.
            c.at = comma.unwrap_or(start);
            return Ok(());
        }
        c.at += 1;
        c.skip_ows();
        let value = match c.peek() {
            Some(b'"') => c.quoted()?,
            _ => {
                let t = c.token();
                if t.is_empty() {
                    return Err(c.err("a parameter value is a token or a quoted string"));
                }
                String::from_utf8_lossy(t).into_owned()
            }
        };
        if ch.params.len() < MAX_PARAMS {
            ch.params
                .push((String::from_utf8_lossy(&name).into_owned(), value));
        }
        c.skip_ows();
        match c.peek() {
            Some(b',') => {
                comma = Some(c.at);
                c.at += 1;
            }
            None => return Ok(()),
            Some(_) => return Err(c.err("a comma between parameters")),
        }
    }
}

/// Every challenge of several `WWW-Authenticate` headers, in order. A
/// header that breaks the grammar keeps the challenges read before the
/// fault; the first fault is returned beside them.
pub fn parse_all<'a>(
    headers: impl IntoIterator<Item = &'a [u8]>,
) -> (Vec<Challenge>, Option<ChallengeError>) {
    let mut out = Vec::new();
    let mut first = None;
    for h in headers {
        if let Err(e) = parse_into(h, &mut out) {
            first.get_or_insert(e);
        }
    }
    (out, first)
}

/// What the MCP client reads from a `Bearer` challenge (RFC 6750 §3, RFC
/// 9728 §5.1), or from a `DPoP` one (RFC 9449 §7.1: the same
/// parameters, and `use_dpop_nonce`).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct BearerChallenge {
    /// `resource_metadata`: where the Protected Resource Metadata is.
    pub resource_metadata: Option<String>,
    /// `scope`, split on spaces.
    pub scope: Option<Vec<String>>,
    /// `error` (`invalid_token`, `insufficient_scope`, ...).
    pub error: Option<String>,
    /// `error_description`, as sent (sanitize before showing).
    pub error_description: Option<String>,
}

impl BearerChallenge {
    /// The first `Bearer` challenge of `headers`, else the first `DPoP`
    /// one; the `DPoP` one first when it asks for a nonce
    /// (`use_dpop_nonce`). None when there is neither.
    pub fn from_headers<'a>(headers: impl IntoIterator<Item = &'a [u8]>) -> Option<Self> {
        let (all, _) = parse_all(headers);
        let dpop = all.iter().find(|c| c.is("DPoP"));
        let b = match dpop.filter(|d| d.param("error") == Some(USE_DPOP_NONCE)) {
            Some(d) => d,
            None => all.iter().find(|c| c.is("Bearer")).or(dpop)?,
        };
        let get = |n: &str| b.param(n).map(str::to_owned);
        Some(Self {
            resource_metadata: get("resource_metadata"),
            scope: b.param("scope").map(split_scope),
            error: get("error"),
            error_description: get("error_description"),
        })
    }

    /// Whether the challenge is RFC 6750's `insufficient_scope`.
    pub fn insufficient_scope(&self) -> bool {
        self.error.as_deref() == Some("insufficient_scope")
    }

    /// Whether the challenge asks for a DPoP nonce (RFC 9449 §9,
    /// `use_dpop_nonce`): the request is sent again with the one the
    /// answer's `DPoP-Nonce` gave.
    pub fn use_dpop_nonce(&self) -> bool {
        self.error.as_deref() == Some(USE_DPOP_NONCE)
    }
}

/// The `error` of a DPoP challenge that asks for a nonce.
const USE_DPOP_NONCE: &str = "use_dpop_nonce";

/// A `scope` value split on spaces (empty parts dropped).
pub fn split_scope(s: &str) -> Vec<String> {
    s.split(' ')
        .filter(|p| !p.is_empty())
        .map(str::to_owned)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(h: &str) -> Vec<Challenge> {
        let mut out = Vec::new();
        parse_into(h.as_bytes(), &mut out).unwrap();
        out
    }

    fn p(n: &str, v: &str) -> (String, String) {
        (n.into(), v.into())
    }

    #[test]
    fn reads_a_bearer_challenge_with_quoted_and_token_values() {
        let got = one(
            r#"Bearer realm="mcp", error=invalid_token, resource_metadata="http://localhost:1234/.well-known/oauth-protected-resource/mcp""#,
        );
        assert_eq!(got.len(), 1);
        assert_eq!(got[0].scheme, "Bearer");
        assert_eq!(
            got[0].params,
            vec![
                p("realm", "mcp"),
                p("error", "invalid_token"),
                p(
                    "resource_metadata",
                    "http://localhost:1234/.well-known/oauth-protected-resource/mcp"
                )
            ]
        );
    }

    #[test]
    fn splits_challenge_lists_with_commas_inside_quotes_and_escapes() {
        let got = one(
            r#"Newauth realm="apps", type=1, title="Login to \"apps\", please", Basic realm="simple", Bearer scope="a b""#,
        );
        let schemes: Vec<&str> = got.iter().map(|c| c.scheme.as_str()).collect();
        assert_eq!(schemes, ["Newauth", "Basic", "Bearer"]);
        assert_eq!(got[0].param("title"), Some(r#"Login to "apps", please"#));
        assert_eq!(got[0].param("type"), Some("1"));
        assert_eq!(got[2].param("scope"), Some("a b"));
    }

    #[test]
    fn names_are_case_insensitive_and_token68_is_kept() {
        let got = one("bEaReR Scope=\"x\", Negotiate abc+/def==, Basic");
        assert!(got[0].is("Bearer"));
        assert_eq!(got[0].param("SCOPE"), Some("x"));
        assert_eq!(got[1].token68.as_deref(), Some("abc+/def=="));
        assert!(got[1].params.is_empty());
        assert_eq!(got[2].scheme, "Basic");
        assert!(got[2].params.is_empty() && got[2].token68.is_none());
    }

    #[test]
    fn duplicate_parameters_keep_the_first() {
        let got = one(r#"Bearer scope="a", scope="b""#);
        assert_eq!(got[0].param("scope"), Some("a"));
    }

    #[test]
    fn empty_elements_and_spaces_around_equals_are_allowed() {
        let got = one(" , Bearer  error = \"x\" ,, ,Basic realm=r");
        assert_eq!(got.len(), 2);
        assert_eq!(got[0].param("error"), Some("x"));
        assert_eq!(got[1].param("realm"), Some("r"));
    }

    #[test]
    fn faults_name_the_byte_and_keep_what_came_before() {
        let mut out = Vec::new();
        let e = parse_into(br#"Basic realm=x, Bearer scope="unterminated"#, &mut out).unwrap_err();
        assert_eq!(
            e,
            ChallengeError::Syntax {
                at: 41,
                rule: "a quoted string ends with '\"'"
            }
        );
        assert_eq!(out.len(), 1);
        assert!(e.to_string().contains("byte 41"));
        let e = parse_into(b"=x", &mut out).unwrap_err();
        assert!(matches!(e, ChallengeError::Syntax { at: 0, .. }));
        let e = parse_into(b"Bearer a=\"\x01\"", &mut out).unwrap_err();
        assert!(e.to_string().contains("control"));
        assert_eq!(
            parse_into(&vec![b'a'; MAX_HEADER_BYTES + 1], &mut out),
            Err(ChallengeError::TooLong)
        );
    }

    #[test]
    fn bounds_the_number_of_challenges_and_parameters() {
        let many = vec!["Basic"; MAX_CHALLENGES + 5].join(", ");
        assert_eq!(one(&many).len(), MAX_CHALLENGES);
        let params: Vec<String> = (0..MAX_PARAMS + 5).map(|i| format!("p{i}=v")).collect();
        let got = one(&format!("Bearer {}", params.join(", ")));
        assert_eq!(got[0].params.len(), MAX_PARAMS);
    }

    #[test]
    fn several_headers_are_one_list_and_the_first_bearer_is_read() {
        let h1: &[u8] = b"Basic realm=\"x\"";
        let h2: &[u8] =
            b"Bearer error=\"insufficient_scope\", scope=\"files:read  files:write\", error_description=\"more, please\"";
        let b = BearerChallenge::from_headers([h1, h2]).unwrap();
        assert!(b.insufficient_scope());
        assert_eq!(
            b.scope,
            Some(vec!["files:read".to_string(), "files:write".to_string()])
        );
        assert_eq!(b.error_description.as_deref(), Some("more, please"));
        assert_eq!(b.resource_metadata, None);
        assert_eq!(BearerChallenge::from_headers([h1]), None);
    }

    proptest::proptest! {
        /// The fuzz target's invariants on inputs built from the grammar's
        /// own characters: no panic, bounds kept, names are tokens, a
        /// fault lies inside the header, several headers read as one list.
        #[test]
        fn any_header_keeps_the_parser_invariants(
            parts in proptest::collection::vec(
                proptest::sample::select(vec![
                    "Bearer", "Basic", " ", "\t", ",", "=", "\"", "\\", "a", "scope",
                    "resource_metadata", "x/y+z", "==", "\u{0}", "\u{1}", "é",
                ]),
                0..40,
            )
        ) {
            let text: String = parts.concat();
            let data = text.as_bytes();
            let mut one = Vec::new();
            match parse_into(data, &mut one) {
                Ok(()) => {}
                Err(ChallengeError::TooLong) => proptest::prop_assert!(one.is_empty()),
                Err(ChallengeError::Syntax { at, .. }) => proptest::prop_assert!(at <= data.len()),
            }
            proptest::prop_assert!(one.len() <= MAX_CHALLENGES);
            for c in &one {
                proptest::prop_assert!(!c.scheme.is_empty() && c.scheme.bytes().all(is_tchar));
                proptest::prop_assert!(c.token68.is_none() || c.params.is_empty());
                for (n, _) in &c.params {
                    proptest::prop_assert!(!n.is_empty() && n.bytes().all(|b| is_tchar(b) && !b.is_ascii_uppercase()));
                }
            }
            let headers: Vec<&[u8]> = data.split(|&b| b == 0).collect();
            let (all, _) = parse_all(headers.iter().copied());
            let mut each = Vec::new();
            for h in &headers {
                let _ = parse_into(h, &mut each);
            }
            proptest::prop_assert_eq!(all, each);
        }
    }

    #[test]
    fn a_dpop_challenge_is_read_without_a_bearer_one_and_first_when_it_asks_for_a_nonce() {
        let h = |s: &str| BearerChallenge::from_headers([s.as_bytes()]).unwrap();
        // RFC 9449 §7.1: a DPoP-only server.
        let c = h(r#"DPoP resource_metadata="http://x/prm", algs="ES256""#);
        assert_eq!(c.resource_metadata.as_deref(), Some("http://x/prm"));
        assert!(!c.use_dpop_nonce());
        let c = h(r#"DPoP error="insufficient_scope", scope="a b""#);
        assert!(c.insufficient_scope());
        assert_eq!(c.scope, Some(vec!["a".to_owned(), "b".to_owned()]));
        // Both: the Bearer one, unless the DPoP one asks for a nonce.
        let c = h(r#"Bearer scope="x", DPoP error="invalid_token""#);
        assert_eq!(c.scope, Some(vec!["x".to_owned()]));
        assert_eq!(c.error, None);
        let c = h(
            r#"Bearer resource_metadata="http://x/prm", DPoP error="use_dpop_nonce", error_description="Resource server requires nonce""#,
        );
        assert!(c.use_dpop_nonce());
        assert!(BearerChallenge::from_headers([&b"Basic realm=\"x\""[..]]).is_none());
    }
}
