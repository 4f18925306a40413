//! URL consent as one state machine, without a terminal: what the person
//! may choose in each phase, what each choice means, when consent counts,
//! launch failure and retry, the URL shown for copying, and the one answer.
//! The full screen (`tui::url_view`), plain mode (`plain::url`) and
//! scripts (`scripted`) only show its state and feed it [`Input`]s: a key,
//! a typed line or a script's action each stand for one input. The machine
//! returns what to do as data ([`Step`], [`Effect`]); the driver carries
//! out an [`Effect::Open`] with its launcher and reports how that went
//! ([`Consent::launched`]).
//!
//! Phases ([`Phase`]) and what each input does there (an input not listed
//! is not taken: [`NotTaken::NotOffered`]):
//!
//! | phase | input | effect, new phase |
//! |---|---|---|
//! | `Consent` | `Consent` | [`Effect::Open`], only for an openable URL ([`UrlReview::openable`]) shown whole ([`Consent::shown`]) for the grace period (a script's: at once) |
//! | `Consent` | `Decline` | answer `decline` |
//! | any | `Cancel` | answer `cancel` |
//! | `LaunchFailed` | `Retry` | [`Effect::Open`] again (consent was given) |
//! | `LaunchFailed` | `Copy` | [`Effect::Copy`], phase `Copy { after_failure: true }` |
//! | `Copy { after_failure: true }` | `Retry` | [`Effect::Open`] again |
//! | `Copy { .. }` | `Done` | answer `accept` (consent stands) |
//! | `LaunchFailed`, `Copy { .. }` | `GiveUp` | answer `cancel` |
//!
//! How a launch went ([`Launch`]): opened answers `accept`; not opened
//! (`--no-open`, consent only recorded) is [`Effect::Copy`] and phase
//! `Copy { after_failure: false }`; failed is phase `LaunchFailed` with the
//! launcher's sentence. After the answer nothing is taken
//! ([`NotTaken::Answered`]): a request gets exactly one.
//!
//! The grace period: consent counts only once the URL and every warning
//! have been shown whole for a period, which depends on who answers
//! ([`Reader`]): a person ([`Reader::Person`]) must have had them on screen
//! whole ([`Consent::shown`]) for the period, [`CONSENT_GUARD`] at a
//! terminal (the full screen and plain mode; the full screen reports when
//! every row of the URL and its warnings had been on screen at the current
//! width); a script ([`Reader::Script`]) has the request whole when it
//! answers, so its consent counts at once. The full screen's key guard,
//! `tui::guard`, holds every key of every screen as well (after the screen
//! is shown whole, a resize, a new phase, a scroll and each early key); the
//! machine does not rely on it. Retry, copy, done and give up come after
//! consent was given and have no period of their own.

use std::time::{Duration, Instant};

use crate::binding::Action;
use crate::launcher::{LaunchError, Launcher};
use crate::url_review::{Refusal, UrlReview};

/// How long the URL and every warning must have been shown whole before a
/// consent counts (consent is an explicit act, not a key typed for
/// something else). The only definition: the full screen's machine and its
/// key guard, and plain mode's machine, use this one ([`Reader::AT_TERMINAL`]).
#[cfg(any(test, feature = "cli", feature = "internals"))]
pub const CONSENT_GUARD: Duration = Duration::from_millis(400);

/// Who answers a request, which decides when a consent counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reader {
    /// A person, who reads the URL and its warnings where the answerer
    /// shows them: consent counts once they have been shown whole
    /// ([`Consent::shown`]) for `grace` ([`Reader::AT_TERMINAL`] at a
    /// terminal; plain mode's in-memory tests, which type at once, pass
    /// zero). Only the command line's terminal answerers read as a person.
    #[cfg_attr(not(feature = "cli"), allow(dead_code))]
    Person {
        /// How long the URL and every warning must have been shown whole.
        grace: Duration,
    },
    /// A script (`--answers`, `--action`): it has the request whole when it
    /// answers, with nothing shown and nobody to read it, so its consent
    /// counts at once (what a script may consent to at all is the
    /// script's rule: `scripted`).
    Script,
}

impl Reader {
    /// A person at a terminal: the grace period is [`CONSENT_GUARD`] (the
    /// full screen's; plain mode keeps its period as a setting).
    #[cfg(any(test, feature = "cli", feature = "internals"))]
    pub const AT_TERMINAL: Reader = Reader::Person {
        grace: CONSENT_GUARD,
    };
}

/// What the person (or a script) chose, as the drivers map keys, lines and
/// actions onto it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Input {
    /// Consent: open the URL in the browser (with `--no-open`: consent and
    /// show the URL for copying).
    Consent,
    /// Decline (`decline`).
    Decline,
    /// Cancel (`cancel`); taken in every phase.
    Cancel,
    // The inputs of a failed launch and of the copy phase come from the
    // terminal answerers (the command line's); a script never gives them.
    /// Try the launch again after it failed.
    #[cfg_attr(not(feature = "cli"), allow(dead_code))]
    Retry,
    /// Show the URL for copying after the launch failed.
    #[cfg_attr(not(feature = "cli"), allow(dead_code))]
    Copy,
    /// Give up after a failed launch or in the copy phase (`cancel`).
    #[cfg_attr(not(feature = "cli"), allow(dead_code))]
    GiveUp,
    /// Done with the URL shown for copying: consent stands (`accept`).
    #[cfg_attr(not(feature = "cli"), allow(dead_code))]
    Done,
}

impl Input {
    #[cfg(any(test, feature = "internals"))]
    /// Every input, for tests that try each one in each phase.
    pub const ALL: [Input; 7] = [
        Input::Consent,
        Input::Decline,
        Input::Cancel,
        Input::Retry,
        Input::Copy,
        Input::GiveUp,
        Input::Done,
    ];

    /// The answer this input gives when it is taken (None: it opens or
    /// shows the URL instead). The same in every phase.
    pub fn answer(self) -> Option<Action> {
        match self {
            Input::Decline => Some(Action::Decline),
            Input::Cancel | Input::GiveUp => Some(Action::Cancel),
            Input::Done => Some(Action::Accept),
            Input::Consent | Input::Retry | Input::Copy => None,
        }
    }
}

/// Where consent stands: what the person is being asked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Phase {
    /// Asking for consent.
    Consent,
    /// The browser could not be launched (the launcher's sentence, not yet
    /// sanitised).
    LaunchFailed(String),
    /// The URL shown for copying: after a failed launch, or with
    /// `--no-open`.
    Copy { after_failure: bool },
}

/// What the driver does now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Effect {
    /// Open this URL (the reviewed URL's [`UrlReview::target`]) with the
    /// launcher, then report how it went with [`Consent::launched`]
    /// ([`Consent::open_with`] does both).
    Open(String),
    /// Show the URL for copying (the phase is now [`Phase::Copy`]).
    Copy,
    /// The request's one answer, with no content.
    Answer(Action),
}

/// Why an input was not taken.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NotTaken {
    /// The request is already answered.
    Answered,
    /// The phase offers no such choice (or the URL cannot be opened).
    NotOffered,
    /// Consent before the URL and every warning were shown whole.
    NotShown,
    /// Consent within the grace period of the URL being shown whole.
    TooSoon,
}

/// The machine's reply to an input or a launch report.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Step {
    /// The phase after this step.
    pub phase: Phase,
    /// What the driver does now (None: nothing, keep asking).
    pub effect: Option<Effect>,
    /// Why the input was not taken (None when it was).
    pub not_taken: Option<NotTaken>,
}

impl Step {
    /// The answer this step gives, if any.
    pub fn answer(&self) -> Option<Action> {
        match self.effect {
            Some(Effect::Answer(a)) => Some(a),
            _ => None,
        }
    }
}

/// How the launch an [`Effect::Open`] asked for went.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Launch {
    /// The browser was started.
    Opened,
    /// Consent was recorded and nothing opened (`--no-open`).
    NotOpened,
    /// The browser could not be launched (the launcher's sentence).
    Failed(String),
}

impl Launch {
    /// The launch report for a launcher's result; `no_open` (`--no-open`)
    /// means a success opened nothing.
    pub fn of(res: &Result<(), LaunchError>, no_open: bool) -> Launch {
        match res {
            Ok(()) if no_open => Launch::NotOpened,
            Ok(()) => Launch::Opened,
            Err(e) => Launch::Failed(e.to_string()),
        }
    }
}

/// The consent state of one URL-mode request (see the module docs for the
/// rules).
#[derive(Debug, Clone)]
pub struct Consent {
    /// What would be opened; None when the URL is refused.
    target: Option<String>,
    /// Why the URL is not opened (None: it is, or it has no form to open).
    refusal: Option<Refusal>,
    reader: Reader,
    phase: Phase,
    /// Since when the URL and every warning have been shown whole.
    shown_since: Option<Instant>,
    answer: Option<Action>,
}

impl Consent {
    /// Consent for the reviewed URL `review`, answered by `reader` (which
    /// decides when a consent counts: see [`Reader`]). Starts in
    /// [`Phase::Consent`], not yet shown.
    pub fn new(review: &UrlReview, reader: Reader) -> Self {
        Consent {
            target: review.target().map(str::to_owned),
            refusal: review.refusal.clone(),
            reader,
            phase: Phase::Consent,
            shown_since: None,
            answer: None,
        }
    }

    /// The current phase.
    #[cfg(any(test, feature = "cli"))]
    pub fn phase(&self) -> &Phase {
        &self.phase
    }

    #[cfg(any(test, feature = "internals"))]
    /// The answer given, once there is one.
    pub fn answer(&self) -> Option<Action> {
        self.answer
    }

    /// Whether the URL can be opened at all (only then is consent offered).
    pub fn openable(&self) -> bool {
        self.target.is_some()
    }

    #[cfg(any(test, feature = "internals"))]
    /// What an [`Effect::Open`] opens: the reviewed URL's
    /// [`UrlReview::target`] (None when it cannot be opened).
    pub fn target(&self) -> Option<&str> {
        self.target.as_deref()
    }

    #[cfg(any(test, feature = "internals"))]
    /// Who answers, as this machine was given it.
    pub fn reader(&self) -> Reader {
        self.reader
    }

    /// The choices the current phase offers, in the order a screen shows
    /// them as buttons (empty once answered). [`Input::Cancel`] is also
    /// taken in the phases that offer [`Input::GiveUp`] instead.
    #[cfg(any(test, feature = "cli", feature = "internals"))]
    pub fn choices(&self) -> Vec<Input> {
        if self.answer.is_some() {
            return Vec::new();
        }
        match &self.phase {
            Phase::Consent if self.openable() => {
                vec![Input::Consent, Input::Decline, Input::Cancel]
            }
            Phase::Consent => vec![Input::Decline, Input::Cancel],
            Phase::LaunchFailed(_) => vec![Input::Retry, Input::Copy, Input::GiveUp],
            Phase::Copy {
                after_failure: true,
            } => vec![Input::Done, Input::Retry, Input::GiveUp],
            Phase::Copy {
                after_failure: false,
            } => vec![Input::Done, Input::GiveUp],
        }
    }

    /// Report what has been on screen: `since` is when the URL and every
    /// warning came to be shown whole (and have stayed so), None when they
    /// are not shown whole now (not yet, or a resize rewrapped them unread).
    /// A script's machine ([`Reader::Script`]) needs no report.
    #[cfg(any(test, feature = "cli"))]
    pub fn shown(&mut self, since: Option<Instant>) {
        self.shown_since = since;
    }

    /// Whether a consent at `now` counts as read: for a person, the URL and
    /// every warning shown whole for the grace period; for a script, always.
    ///
    /// Errors: [`NotTaken::NotShown`] or [`NotTaken::TooSoon`].
    fn read_in_time(&self, now: Instant) -> Result<(), NotTaken> {
        let grace = match self.reader {
            Reader::Script => return Ok(()),
            Reader::Person { grace } => grace,
        };
        match self.shown_since {
            None => Err(NotTaken::NotShown),
            Some(t) if now.saturating_duration_since(t) < grace => Err(NotTaken::TooSoon),
            Some(_) => Ok(()),
        }
    }

    /// What `input` at `now` would do, without doing it.
    ///
    /// Errors: why it is not taken ([`NotTaken`]).
    pub fn decide(&self, input: Input, now: Instant) -> Result<Effect, NotTaken> {
        if self.answer.is_some() {
            return Err(NotTaken::Answered);
        }
        let open = || {
            self.target
                .clone()
                .map(Effect::Open)
                .ok_or(NotTaken::NotOffered)
        };
        let answer = |i: Input| i.answer().map(Effect::Answer).ok_or(NotTaken::NotOffered);
        match (&self.phase, input) {
            (_, Input::Cancel) | (Phase::Consent, Input::Decline) => answer(input),
            (Phase::Consent, Input::Consent) => {
                let effect = open()?;
                self.read_in_time(now)?;
                Ok(effect)
            }
            (Phase::LaunchFailed(_), Input::Retry)
            | (
                Phase::Copy {
                    after_failure: true,
                },
                Input::Retry,
            ) => open(),
            (Phase::LaunchFailed(_), Input::Copy) => open().map(|_| Effect::Copy),
            (Phase::LaunchFailed(_) | Phase::Copy { .. }, Input::GiveUp)
            | (Phase::Copy { .. }, Input::Done) => answer(input),
            _ => Err(NotTaken::NotOffered),
        }
    }

    /// Take `input` at `now`: the answer is recorded, the copy phase entered;
    /// an [`Effect::Open`] waits for [`Consent::launched`].
    pub fn input(&mut self, input: Input, now: Instant) -> Step {
        match self.decide(input, now) {
            Ok(effect) => {
                match &effect {
                    Effect::Answer(a) => self.answer = Some(*a),
                    Effect::Copy => {
                        self.phase = Phase::Copy {
                            after_failure: true,
                        }
                    }
                    Effect::Open(_) => {}
                }
                self.step(Some(effect), None)
            }
            Err(why) => self.step(None, Some(why)),
        }
    }

    /// The driver reports how a launch for this request went (normally the
    /// one an [`Effect::Open`] asked for): opened answers `accept`; not
    /// opened shows the URL for copying; failed shows the failure. Not
    /// taken once answered, or for a URL that cannot be opened.
    pub fn launched(&mut self, launch: Launch) -> Step {
        if self.answer.is_some() {
            return self.step(None, Some(NotTaken::Answered));
        }
        if !self.openable() {
            return self.step(None, Some(NotTaken::NotOffered));
        }
        let effect = match launch {
            Launch::Opened => {
                self.answer = Some(Action::Accept);
                Some(Effect::Answer(Action::Accept))
            }
            Launch::NotOpened => {
                self.phase = Phase::Copy {
                    after_failure: false,
                };
                Some(Effect::Copy)
            }
            Launch::Failed(why) => {
                self.phase = Phase::LaunchFailed(why);
                None
            }
        };
        self.step(effect, None)
    }

    /// Carry out an [`Effect::Open`]: hand the target (and nothing else)
    /// to `launcher` and report how it went ([`Launch::of`], `no_open` for
    /// `--no-open`). Returns the step after the report and the launcher's
    /// own result (for a log, or a script's error). The answerers' one
    /// path from consent to a launch.
    ///
    /// Errors (in the result), without calling the launcher for a URL that
    /// cannot be opened: [`LaunchError::Refused`] with the review's reason,
    /// or [`LaunchError::NoTarget`]; else the launcher's.
    pub fn open_with(
        &mut self,
        launcher: &mut dyn Launcher,
        no_open: bool,
    ) -> (Step, Result<(), LaunchError>) {
        let res = match (self.target.as_deref(), &self.refusal) {
            (Some(t), _) => launcher.open(t),
            (None, Some(r)) => Err(LaunchError::Refused(r.clone())),
            (None, None) => Err(LaunchError::NoTarget),
        };
        (self.launched(Launch::of(&res, no_open)), res)
    }

    fn step(&self, effect: Option<Effect>, not_taken: Option<NotTaken>) -> Step {
        Step {
            phase: self.phase.clone(),
            effect,
            not_taken,
        }
    }
}

#[cfg(test)]
mod tests;
