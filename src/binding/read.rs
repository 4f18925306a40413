//! The readers of the elicitation events: one entry point for a
//! `user.elicitation.request` event ([`read_request`], read as
//! [`ReadOptions`] say) and one for a `user.elicitation.result` event
//! ([`read_result`]). Both take the event whole and keep it in what they
//! give; both report every violation, with pointers into the event or, for
//! a fault in the body, into the text part's JSON.

use serde_json::Value;

use super::fast::{read_valid, ValidEvent};
use super::policy::SchemaPolicy;
use super::request::{request_parts, request_parts_noting, RequestEvent};
use super::result::{result_parts, ResultEvent};
use super::violation::Violation;

/// How [`read_request`] reads a request event. The default is the strict
/// policy and the full reading.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ReadOptions {
    /// How `requestedSchema` is read: under the strict policy (the default)
    /// only the closed form subset; under the compatible one (see
    /// the schema policy) a form outside the subset becomes a form with
    /// extra checks, or a [`RequestView::NotAForm`](super::RequestView).
    /// The params are kept complete either way.
    pub policy: SchemaPolicy,
    /// Under the strict policy, try the fast reading first
    /// (the one-pass fast reading, on the event's serialized text: no
    /// schema run, so the first request of a session does not wait for the
    /// schemas to compile). An event it does not take, and every event under
    /// the compatible policy, takes the full reading, which alone reports
    /// violations; both give the same request for every event the fast
    /// reading takes.
    pub fast: bool,
}

impl ReadOptions {
    /// The full reading with `requestedSchema` read under `policy`.
    pub fn with_policy(policy: SchemaPolicy) -> Self {
        ReadOptions {
            policy,
            fast: false,
        }
    }
}

/// Read and validate a `user.elicitation.request` event: the wire root,
/// the event type, `extensions.mcp`, the envelope's server and mode, then
/// the body selection of `request` and, for a body with text, the params
/// against the pinned `request` definition of the event's revision, the
/// mode rule, the string limits and `requestedSchema` under
/// `options.policy`. The event is moved into the [`RequestEvent`] (its
/// `event` member), not copied.
///
/// Errors: every violation, pointers into the event or, for faults in the
/// body, the request text part
/// ([`Part::RequestText`](super::violation::Part)) and a pointer into the
/// params.
pub fn read_request(event: Value, options: ReadOptions) -> Result<RequestEvent, Vec<Violation>> {
    if options.fast && options.policy == SchemaPolicy::Strict {
        let fast = serde_json::to_vec(&event).ok().and_then(|b| read_valid(&b));
        if let Some(ValidEvent::Request(mut req)) = fast {
            req.event = event;
            return Ok(req);
        }
    }
    let mut req = request_parts(&event, options.policy)?;
    req.event = event;
    Ok(req)
}

/// [`read_request`] with the full reading under the strict policy, saying
/// beside a refusal whether the compatible policy reads the event as a
/// form (a valid request whose view is not
/// [`RequestView::NotAForm`](super::RequestView)): what
/// `validate`'s compatible note finds, from this one reading. The
/// event is not parsed or checked again: only a form's params, refused
/// under the strict policy, are read once more under the compatible one
/// (every check before them is the same under both policies).
///
/// Errors: the violations of [`read_request`], and whether the compatible
/// policy reads the event as a form.
pub fn read_request_noting(event: Value) -> Result<RequestEvent, (Vec<Violation>, bool)> {
    let mut req = request_parts_noting(&event, SchemaPolicy::Strict, true)?;
    req.event = event;
    Ok(req)
}

/// Read and validate a `user.elicitation.result` event on its own (no
/// request known): the wire root, the event type, `extensions.mcp`, the
/// envelope's server, mode and action, then for a body with text the
/// `ElicitResult` against the pinned `result` definition, the action equal
/// to the envelope's, and content only for an accepted form. The event is
/// moved into the [`ResultEvent`], not copied; [`super::check_answer`]
/// checks it against its request.
///
/// Errors: every violation, pointers into the event or, for faults in the
/// body, the result text part ([`Part::ResultText`](super::violation::Part))
/// and a pointer into the result.
pub fn read_result(event: Value) -> Result<ResultEvent, Vec<Violation>> {
    let mut res = result_parts(&event)?;
    res.event = event;
    Ok(res)
}
