//! The one place where a responder's outcome becomes a request's result:
//! the answer, built into a result event and validated, or the one reason
//! there is none. Both front doors (`respond`, `mcp`) settle through it.

use crate::binding::{
    make_result_line, Action, Answer, RequestEvent, ResultLine, ResultMeta, Violation,
};
use crate::responder::{Outcome, RespondError};

/// A request's one result.
#[derive(Debug, Clone, PartialEq)]
pub struct Settled {
    /// The decision.
    pub answer: Answer,
    /// Its `user.elicitation.result` event, validated, as the line it is
    /// written as (and its id); [`ResultLine::event`] reads it back.
    pub result: ResultLine,
    /// The person quit on this request: it is answered `cancel`, and so is
    /// every later one, unseen.
    pub quit: bool,
}

/// Why a request the responder finished gets no result.
#[derive(Debug, thiserror::Error)]
pub enum NoResult {
    /// The form refused a scripted answer (the reasons, which may quote the
    /// request: sanitize before showing).
    #[error("answer refused: {0}")]
    Refused(String),
    /// A scripted URL accept whose URL could not be opened: the launcher's
    /// reason, for the person only (see [`RespondError::NotOpened`]).
    #[error("answer refused: {what}: {0}", what = crate::responder::NOT_OPENED)]
    NotOpened(#[source] crate::launcher::LaunchError),
    /// The answer does not make a valid result event.
    #[error("the answer does not make a valid result")]
    Invalid {
        /// The answer that failed.
        answer: Answer,
        /// What the result event broke.
        violations: Vec<Violation>,
        /// As [`Settled::quit`].
        quit: bool,
    },
    /// The terminal (or another resource) failed: the front door ends.
    #[error("{0}")]
    Failed(#[source] RespondError),
}

impl NoResult {
    /// Why an answer was refused, without the "answer refused" lead: the
    /// form's reasons, or for a URL that could not be opened
    /// [`crate::responder::NOT_OPENED`] and the launcher's reason; for the
    /// other kinds, their sentence.
    pub fn reasons(&self) -> String {
        match self {
            NoResult::Refused(m) => m.clone(),
            NoResult::NotOpened(why) => format!("{}: {why}", crate::responder::NOT_OPENED),
            other => other.to_string(),
        }
    }
}

/// Turn the responder's `outcome` for `req` into its one result event
/// (built with `meta` and validated), or the reason there is none. A quit
/// is answered `cancel`.
///
/// Errors: [`NoResult`], one per request.
pub fn settle(
    req: &RequestEvent,
    outcome: Result<Outcome, RespondError>,
    meta: &ResultMeta,
) -> Result<Settled, NoResult> {
    let (answer, quit) = match outcome {
        Ok(Outcome::Answer(a)) => (a, false),
        Ok(Outcome::Quit) => (Answer::bare(Action::Cancel), true),
        Err(RespondError::Refused(m)) => return Err(NoResult::Refused(m)),
        Err(RespondError::NotOpened(why)) => return Err(NoResult::NotOpened(why)),
        Err(e) => return Err(NoResult::Failed(e)),
    };
    match make_result_line(req, &answer, meta) {
        Ok(result) => Ok(Settled {
            answer,
            result,
            quit,
        }),
        Err(violations) => Err(NoResult::Invalid {
            answer,
            violations,
            quit,
        }),
    }
}
