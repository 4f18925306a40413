//! The boundary between the request stream and whoever answers: a person
//! at a terminal (`tui`), a script (`--answers` / `--action`), or an MCP
//! adapter's caller. The driver (`cli::respond`, `cli::mcp`) reads and
//! validates requests, calls a [`Responder`] for each, then builds and
//! validates the result event with
//! [`make_result_event`](crate::binding::make_result_event).

use std::time::{Duration, Instant};

use crate::binding::{Answer, Mode, RequestEvent};

/// Where a request stands in the stream: `index` is 1-based; `total` is the
/// number known so far (answered, this one and queued), so the header can say
/// "request 2 of 5".
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Progress {
    pub index: usize,
    pub total: usize,
}

/// Per-request context given to a responder.
#[derive(Debug, Clone)]
pub struct Context {
    pub progress: Progress,
    /// `--timeout SECS`: when this instant passes unanswered, the request is
    /// cancelled (issue 5 item 5).
    pub deadline: Option<Instant>,
    /// The modes this responder advertises (`--modes`).
    pub modes: Vec<Mode>,
}

/// How a responder finished one request.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    /// The decision for this request.
    Answer(Answer),
    /// The person asked to quit (a second Ctrl-C): this request and every
    /// remaining one get `cancel` (issue 5 item 5).
    Quit,
}

/// Why a responder gave no answer.
#[derive(Debug, Clone, PartialEq)]
pub enum RespondError {
    /// A scripted answer that the form refuses (issue 3 item 7): no result
    /// for this request, exit 1.
    Refused(String),
    /// The terminal or another resource failed: no result, exit 2.
    Io(String),
}

impl std::fmt::Display for RespondError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RespondError::Refused(m) => write!(f, "answer refused: {m}"),
            RespondError::Io(m) => write!(f, "{m}"),
        }
    }
}

/// Something that answers validated requests, one at a time.
pub trait Responder {
    /// Answer one validated request. The answer is validated by the driver
    /// before it is emitted.
    fn respond(&mut self, req: &RequestEvent, cx: &Context) -> Result<Outcome, RespondError>;

    /// Called while the driver waits for the next request on a stream that is
    /// still open; `wait` is how long the driver will wait before calling
    /// again. Returns true when the person asked to quit. The default sleeps.
    fn idle(&mut self, wait: Duration) -> bool {
        std::thread::sleep(wait);
        false
    }
}

/// Opens a consented URL (issue 4 item 3): the system browser, a
/// `--browser CMD`, or nothing (`--no-open`).
pub trait Launcher {
    /// Open `url`. Errors: a sentence saying why the browser could not start.
    fn open(&mut self, url: &str) -> Result<(), String>;
}

/// Time left until `deadline`, or None when there is none; zero when passed.
pub fn time_left(deadline: Option<Instant>) -> Option<Duration> {
    deadline.map(|d| d.saturating_duration_since(Instant::now()))
}
