//! The HTTP of a sign-in: GET a metadata document, read an answer
//! (bounded) as JSON (token requests are POSTed by
//! [`Authorizer::token_request`](super::dpop)), and say what went wrong naming the step and
//! the address.

use std::io::Read;

use serde_json::Value;

use super::authorizer::*;
use super::discovery::ServerMetadata;
use super::error::AuthError;
use super::flow::{oauth_error, read_tokens};
use super::store::Tokens;

/// Bytes of a metadata, registration or token answer that are read.
pub(super) const MAX_ANSWER_BYTES: u64 = 1024 * 1024;

/// One thing asked of an authorization server (or of the resource), for
/// the errors: `what` in words ("the protected resource metadata") and
/// where.
#[derive(Clone, Copy)]
pub(super) struct Ask<'a> {
    pub(super) what: &'static str,
    pub(super) url: &'a str,
}

/// Read a token endpoint's successful answer `body` from `meta`'s token
/// endpoint, named `what` in errors: JSON, then the tokens
/// ([`read_tokens`], keeping `scopes` as asked for, their end made
/// absolute from now).
///
/// Errors: what [`json_answer`] and [`read_tokens`] refuse.
pub(super) fn token_answer(
    what: &'static str,
    meta: &ServerMetadata,
    body: &[u8],
    scopes: &[String],
) -> Result<Tokens, AuthError> {
    let v = json_answer(
        Ask {
            what,
            url: &meta.token_endpoint,
        },
        body,
    )?;
    Ok(read_tokens(
        &v,
        (&meta.issuer, &meta.token_endpoint),
        scopes,
        now(),
    )?)
}

/// Read an answer as JSON.
///
/// Errors: nested deeper than the reader goes (128 levels), or not JSON,
/// each said as such.
pub(super) fn json_answer(ask: Ask<'_>, body: &[u8]) -> Result<Value, AuthError> {
    let Ask { what, url } = ask;
    serde_json::from_slice(body).map_err(|e| {
        let url = url.to_owned();
        // serde_json names this error in its text only.
        if e.to_string().starts_with("recursion limit exceeded") {
            AuthError::TooDeep { what, url }
        } else {
            AuthError::NotJson {
                what,
                url,
                source: e,
            }
        }
    })
}

/// Why an authorization server refused a request, in one line: its
/// RFC 6749 `error` and `error_description` (`invalid_grant: …`), or the
/// HTTP status when the body carries none. Never the rest of the body.
pub(super) fn refusal(status: u16, body: &[u8]) -> String {
    match oauth_error(body) {
        Some((e, Some(d))) => format!("{e}: {d}"),
        Some((e, None)) => e,
        None => format!("HTTP {status}"),
    }
}

impl Authorizer {
    /// GET a JSON document: None for a 4xx, 5xx or redirect (the next
    /// address is tried).
    ///
    /// Errors: the request failed or had no answer in time, or a 2xx body
    /// is too large, too deep or not JSON (each said naming `what` is asked
    /// for and where).
    pub(super) fn get_json(
        &self,
        what: &'static str,
        url: &str,
    ) -> Result<Option<Value>, AuthError> {
        let ask = Ask { what, url };
        let resp = self
            .agent_for(url)
            .get(url)
            .header("Accept", "application/json")
            .call()
            .map_err(|e| self.trouble(ask, e))?;
        if !resp.status().is_success() {
            return Ok(None);
        }
        let body = self.read_answer(ask, resp)?;
        json_answer(ask, &body).map(Some)
    }

    /// What went wrong asking `ask`: no answer in time (naming the limit),
    /// an answer larger than [`MAX_ANSWER_BYTES`], or the request's error.
    pub(super) fn trouble(&self, ask: Ask<'_>, e: ureq::Error) -> AuthError {
        let Ask { what, url } = ask;
        match e {
            ureq::Error::Timeout(_) => AuthError::NoAnswer {
                what,
                url: url.to_owned(),
                limit: self.opts.request_timeout,
                flag: self.opts.request_timeout_flag,
            },
            ureq::Error::BodyExceedsLimit(_) => AuthError::TooLarge {
                what,
                url: url.to_owned(),
            },
            source => AuthError::Request {
                what,
                url: url.to_owned(),
                source,
            },
        }
    }

    /// The body of an answer to `ask`, at most [`MAX_ANSWER_BYTES`].
    ///
    /// Errors: it is larger, or could not be read in time.
    pub(super) fn read_answer(
        &self,
        ask: Ask<'_>,
        resp: ureq::http::Response<ureq::Body>,
    ) -> Result<Vec<u8>, AuthError> {
        let mut body = Vec::new();
        resp.into_body()
            .into_with_config()
            .limit(MAX_ANSWER_BYTES)
            .reader()
            .read_to_end(&mut body)
            .map_err(|e| self.trouble(ask, ureq::Error::from(e)))?;
        Ok(body)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mcp::auth::options::*;
    use std::sync::Arc;

    #[test]
    fn a_request_without_an_answer_in_time_names_its_step_url_and_limit() {
        let a = Authorizer::new(
            "http://127.0.0.1:9/mcp",
            AuthOptions::new(Ok(
                Arc::new(crate::mcp::auth::store::MemoryStore::default()),
            )),
        );
        let ask = Ask {
            what: "the protected resource metadata",
            url: "http://127.0.0.1:9/prm",
        };
        assert_eq!(
            a.trouble(ask, ureq::Error::Timeout(ureq::Timeout::Global))
                .to_string(),
            "no answer from http://127.0.0.1:9/prm (the protected resource metadata) within 30 s"
        );
        assert_eq!(
            a.trouble(ask, ureq::Error::BodyExceedsLimit(1)).to_string(),
            "the protected resource metadata at http://127.0.0.1:9/prm is larger than 1 MiB: not read"
        );
        assert_eq!(
            json_answer(ask, b"[[1]").unwrap_err().to_string(),
            "the protected resource metadata at http://127.0.0.1:9/prm is not JSON"
        );
        // Each says what failed, keeping the cause.
        let timeout = a.trouble(ask, ureq::Error::Timeout(ureq::Timeout::Global));
        assert!(
            matches!(timeout, AuthError::NoAnswer { limit, flag: None, .. } if limit == REQUEST_TIMEOUT),
            "{timeout:?}"
        );
        let not_json = json_answer(ask, b"[[1]").unwrap_err();
        assert!(
            matches!(not_json, AuthError::NotJson { .. }),
            "{not_json:?}"
        );
        assert!(std::error::Error::source(&not_json).is_some());
        let deep = format!("{}{}", "[".repeat(200), "]".repeat(200));
        assert_eq!(
            json_answer(ask, deep.as_bytes()).unwrap_err().to_string(),
            "the protected resource metadata at http://127.0.0.1:9/prm is nested too deeply to read (over 128 levels)"
        );
    }
}
