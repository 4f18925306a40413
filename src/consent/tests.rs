//! The consent machine alone: every phase against every input, the launch
//! reports, the grace period, and (as properties over any sequence) that
//! nothing opens before the URL was shown whole for the grace period and
//! that a request gets at most one answer.

use std::time::{Duration, Instant};

use proptest::prelude::*;

use super::*;
use crate::url_review::review;

// The answerers are the command line's (plain mode, the full screen).
#[cfg(feature = "cli")]
mod answerers;

const URL: &str = "https://auth.example.com/cb?x=1";
const G: Duration = Duration::from_millis(400);
const PERSON: Reader = Reader::Person { grace: G };

fn ms(t0: Instant, n: u64) -> Instant {
    t0 + Duration::from_millis(n)
}

/// A machine for `URL` shown whole at `t0`.
fn shown(t0: Instant) -> Consent {
    let mut c = Consent::new(&review(URL), PERSON);
    c.shown(Some(t0));
    c
}

/// A machine for `URL` in `phase`, reached the way a driver reaches it.
fn in_phase(phase: &Phase, t0: Instant) -> Consent {
    let mut c = shown(t0);
    match phase {
        Phase::Consent => {}
        Phase::LaunchFailed(why) => {
            c.launched(Launch::Failed(why.clone()));
        }
        Phase::Copy {
            after_failure: false,
        } => {
            c.launched(Launch::NotOpened);
        }
        Phase::Copy {
            after_failure: true,
        } => {
            c.launched(Launch::Failed("no browser".into()));
            c.input(Input::Copy, ms(t0, 500));
        }
    }
    assert_eq!(c.phase(), phase);
    c
}

fn open() -> Result<Effect, NotTaken> {
    Ok(Effect::Open(URL.to_owned()))
}

fn answer(a: Action) -> Result<Effect, NotTaken> {
    Ok(Effect::Answer(a))
}

const NO: Result<Effect, NotTaken> = Err(NotTaken::NotOffered);

/// The whole table of the module docs: each phase × each input, what it
/// does, and the phase after it (the same, but for Copy after a failure).
#[test]
fn every_phase_against_every_input() {
    let t0 = Instant::now();
    let copy = |after_failure| Phase::Copy { after_failure };
    // One letter a cell, columns in the order of `Input::ALL` (Consent,
    // Decline, Cancel, Retry, Copy, GiveUp, Done): O opens, S shows the
    // URL for copying, A/D/C answer accept/decline/cancel, - not offered.
    let table = [
        (Phase::Consent, "ODC----"),
        (Phase::LaunchFailed("no browser".into()), "--COSC-"),
        (copy(true), "--CO-CA"),
        (copy(false), "--C--CA"),
    ];
    let cell = |c: char| match c {
        'O' => open(),
        'S' => Ok(Effect::Copy),
        'A' => answer(Action::Accept),
        'D' => answer(Action::Decline),
        'C' => answer(Action::Cancel),
        _ => NO,
    };
    for (phase, row) in table {
        for (input, does) in Input::ALL.into_iter().zip(row.chars().map(cell)) {
            let after = match does {
                Ok(Effect::Copy) => copy(true),
                _ => phase.clone(),
            };
            let mut c = in_phase(&phase, t0);
            let now = ms(t0, 1000);
            assert_eq!(c.decide(input, now), does, "{phase:?} × {input:?}");
            let step = c.input(input, now);
            assert_eq!(step.effect, does.clone().ok(), "{phase:?} × {input:?}");
            assert_eq!(step.not_taken, does.clone().err(), "{phase:?} × {input:?}");
            assert_eq!(step.phase, after, "{phase:?} × {input:?}");
            assert_eq!(c.phase(), &after);
            assert_eq!(c.answer(), step.answer(), "{phase:?} × {input:?}");
        }
        // The buttons a screen shows are the inputs the phase takes
        // (Cancel, taken in every phase, stands behind Give up after
        // consent).
        let c = in_phase(&phase, t0);
        let taken: Vec<Input> = Input::ALL
            .into_iter()
            .filter(|i| c.decide(*i, ms(t0, 1000)).is_ok())
            .filter(|i| *i != Input::Cancel || phase == Phase::Consent)
            .collect();
        let mut choices = c.choices();
        choices.sort_by_key(|i| Input::ALL.iter().position(|a| a == i));
        assert_eq!(taken, choices, "{phase:?}");
    }
}

#[test]
fn the_choices_of_each_phase_in_button_order() {
    let t0 = Instant::now();
    let c = shown(t0);
    assert_eq!(
        c.choices(),
        vec![Input::Consent, Input::Decline, Input::Cancel]
    );
    let c = in_phase(&Phase::LaunchFailed("x".into()), t0);
    assert_eq!(c.choices(), vec![Input::Retry, Input::Copy, Input::GiveUp]);
    let c = in_phase(
        &Phase::Copy {
            after_failure: true,
        },
        t0,
    );
    assert_eq!(c.choices(), vec![Input::Done, Input::Retry, Input::GiveUp]);
    let c = in_phase(
        &Phase::Copy {
            after_failure: false,
        },
        t0,
    );
    assert_eq!(c.choices(), vec![Input::Done, Input::GiveUp]);
}

/// A refused URL offers decline and cancel only, is never opened, and a
/// launch report cannot move it anywhere.
#[test]
fn a_refused_url_is_declined_or_cancelled_only() {
    let t0 = Instant::now();
    for u in ["javascript:alert(1)", "file:///etc/passwd", "::not a url::"] {
        let mut c = Consent::new(&review(u), PERSON);
        c.shown(Some(t0));
        assert!(!c.openable(), "{u}");
        assert_eq!(c.choices(), vec![Input::Decline, Input::Cancel], "{u}");
        assert_eq!(c.decide(Input::Consent, ms(t0, 9000)), NO, "{u}");
        let step = c.launched(Launch::Failed("x".into()));
        assert_eq!(step.not_taken, Some(NotTaken::NotOffered), "{u}");
        assert_eq!(c.phase(), &Phase::Consent, "{u}");
        assert_eq!(c.launched(Launch::Opened).answer(), None, "{u}");
        assert_eq!(c.input(Input::Decline, t0).answer(), Some(Action::Decline));
    }
}

#[test]
fn consent_counts_only_after_the_url_was_shown_whole_for_the_grace_period() {
    let t0 = Instant::now();
    let mut c = Consent::new(&review(URL), PERSON);
    assert_eq!(c.reader(), PERSON);
    assert_eq!(
        c.decide(Input::Consent, ms(t0, 5000)),
        Err(NotTaken::NotShown)
    );
    c.shown(Some(ms(t0, 1000)));
    assert_eq!(
        c.decide(Input::Consent, ms(t0, 1000)),
        Err(NotTaken::TooSoon)
    );
    assert_eq!(
        c.decide(Input::Consent, ms(t0, 1399)),
        Err(NotTaken::TooSoon)
    );
    assert_eq!(c.decide(Input::Consent, ms(t0, 1400)), open());
    // Rewrapped unread (a resize): not shown whole any more.
    c.shown(None);
    assert_eq!(
        c.decide(Input::Consent, ms(t0, 9000)),
        Err(NotTaken::NotShown)
    );
    // Decline and cancel need no reading.
    assert_eq!(c.decide(Input::Decline, t0), answer(Action::Decline));
    // A clock that reads earlier than the report is too soon, not a panic.
    c.shown(Some(ms(t0, 2000)));
    assert_eq!(c.decide(Input::Consent, t0), Err(NotTaken::TooSoon));
    // A zero period: at once.
    let mut z = Consent::new(
        &review(URL),
        Reader::Person {
            grace: Duration::ZERO,
        },
    );
    z.shown(Some(t0));
    assert_eq!(z.decide(Input::Consent, t0), open());
}

/// A script has the request whole: its consent counts at once, with no
/// report of what was shown; what it may consent to is the same.
#[test]
fn a_scripts_consent_counts_at_once() {
    let t0 = Instant::now();
    let mut s = Consent::new(&review(URL), Reader::Script);
    assert_eq!(s.reader(), Reader::Script);
    assert_eq!(s.decide(Input::Consent, t0), open());
    s.shown(None);
    assert_eq!(s.decide(Input::Consent, t0), open());
    assert_eq!(s.decide(Input::Retry, t0), NO, "no launch failed yet");
    let r = Consent::new(&review("javascript:alert(1)"), Reader::Script);
    assert_eq!(r.decide(Input::Consent, t0), NO);
    assert_eq!(r.decide(Input::Decline, t0), answer(Action::Decline));
    assert_eq!(
        Reader::AT_TERMINAL,
        Reader::Person {
            grace: CONSENT_GUARD
        }
    );
}

#[test]
fn each_launch_report_moves_the_phase() {
    let t0 = Instant::now();
    let mut c = shown(t0);
    assert_eq!(c.input(Input::Consent, ms(t0, 500)).effect, open().ok());
    assert_eq!(c.answer(), None, "opening is not yet the answer");
    let s = c.launched(Launch::Failed("The browser could not start.".into()));
    assert_eq!(
        s.phase,
        Phase::LaunchFailed("The browser could not start.".into())
    );
    assert_eq!((s.effect, s.not_taken), (None, None));
    assert_eq!(c.input(Input::Retry, ms(t0, 600)).effect, open().ok());
    let s = c.launched(Launch::Opened);
    assert_eq!(s.effect, Some(Effect::Answer(Action::Accept)));
    assert_eq!(c.answer(), Some(Action::Accept));

    let mut c = shown(t0);
    c.input(Input::Consent, ms(t0, 500));
    let s = c.launched(Launch::NotOpened);
    assert_eq!(s.effect, Some(Effect::Copy));
    assert_eq!(
        s.phase,
        Phase::Copy {
            after_failure: false
        }
    );
    assert_eq!(c.answer(), None, "consent recorded, the answer is Done's");
    assert_eq!(
        c.input(Input::Done, ms(t0, 600)).answer(),
        Some(Action::Accept)
    );
}

#[test]
fn after_the_answer_nothing_is_taken() {
    let t0 = Instant::now();
    for first in [Input::Decline, Input::Cancel] {
        let mut c = shown(t0);
        assert_eq!(c.input(first, t0).answer(), first.answer());
        assert!(c.choices().is_empty());
        for i in Input::ALL {
            let s = c.input(i, ms(t0, 1000));
            assert_eq!(s.effect, None, "{first:?} then {i:?}");
            assert_eq!(s.not_taken, Some(NotTaken::Answered));
        }
        let s = c.launched(Launch::Opened);
        assert_eq!(s.effect, None);
        assert_eq!(s.not_taken, Some(NotTaken::Answered));
        assert_eq!(c.answer(), first.answer(), "the first answer stands");
    }
}

/// A launcher that records each URL and fails while `fail` is set.
#[derive(Default)]
struct Rec {
    opened: Vec<String>,
    fail: bool,
}

impl Launcher for Rec {
    fn open(&mut self, url: &str) -> Result<(), LaunchError> {
        self.opened.push(url.to_owned());
        if self.fail {
            Err(LaunchError::Failed {
                program: "x".into(),
                code: 1,
            })
        } else {
            Ok(())
        }
    }
}

#[test]
fn open_with_launches_the_target_and_reports_it() {
    let t0 = Instant::now();
    let mut c = shown(t0);
    let mut l = Rec {
        fail: true,
        ..Rec::default()
    };
    assert_eq!(c.input(Input::Consent, ms(t0, 500)).effect, open().ok());
    let (s, res) = c.open_with(&mut l, false);
    assert!(res.is_err());
    assert_eq!(
        s.phase,
        Phase::LaunchFailed("The browser command \"x\" failed (exit status 1).".into())
    );
    l.fail = false;
    let (s, res) = c.open_with(&mut l, true);
    assert!(res.is_ok());
    assert_eq!(s.effect, Some(Effect::Copy), "--no-open shows the URL");
    assert_eq!(l.opened, vec![URL, URL]);
    // A refused URL never reaches the launcher: the error says why.
    let mut r = Consent::new(&review("javascript:alert(1)"), Reader::Script);
    let (s, res) = r.open_with(&mut l, false);
    assert!(
        matches!(&res, Err(e @ LaunchError::Refused(_)) if e.to_string().contains("only https and http URLs are opened")),
        "{res:?}"
    );
    assert_eq!(s.not_taken, Some(NotTaken::NotOffered));
    assert_eq!(l.opened.len(), 2);
    assert_eq!(
        Launch::of(&Ok(()), false),
        Launch::Opened,
        "a success without --no-open opened the browser"
    );
}

/// One step of a driver in the property tests.
#[derive(Debug, Clone)]
enum Op {
    /// An input, this many ms after the previous step.
    Input(Input, u64),
    /// The URL shown whole now (true) or rewrapped unread (false).
    Shown(bool),
    /// The launch an Open effect asked for went this way (0 opened, 1 not
    /// opened, 2 failed).
    Launch(u8),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        (0usize..Input::ALL.len(), 0u64..600).prop_map(|(i, d)| Op::Input(Input::ALL[i], d)),
        any::<bool>().prop_map(Op::Shown),
        (0u8..3).prop_map(Op::Launch),
    ]
}

proptest! {
    /// Whatever is typed when, and however launches go: the URL is asked to
    /// be opened only while it is shown whole and at least the grace
    /// period after it came to be; at most one answer is given and nothing
    /// follows it; `accept` only after an open was asked for.
    #[test]
    fn never_opens_unseen_and_answers_at_most_once(
        url in prop_oneof![Just(URL), Just("javascript:alert(1)")],
        ops in proptest::collection::vec(op(), 0..40),
    ) {
        let t0 = Instant::now();
        let mut now = t0;
        let mut c = Consent::new(&review(url), PERSON);
        let mut shown_at: Option<Instant> = None;
        let mut awaiting = false;
        let mut opened = false;
        let mut answers = Vec::new();
        for op in ops {
            let step = match op {
                Op::Input(i, d) => {
                    now += Duration::from_millis(d);
                    let before = c.phase().clone();
                    let s = c.input(i, now);
                    if let Some(Effect::Open(u)) = &s.effect {
                        prop_assert_eq!(u.as_str(), URL);
                        if before == Phase::Consent {
                            let at = shown_at.expect("shown whole");
                            prop_assert!(now >= at + G, "opened within the grace period");
                        }
                        awaiting = true;
                        opened = true;
                    }
                    s
                }
                Op::Shown(whole) => {
                    shown_at = whole.then_some(now);
                    c.shown(shown_at);
                    continue;
                }
                // A driver reports only the launch it was asked for.
                Op::Launch(_) if !awaiting => continue,
                Op::Launch(k) => {
                    awaiting = false;
                    c.launched(match k {
                        0 => Launch::Opened,
                        1 => Launch::NotOpened,
                        _ => Launch::Failed("no browser".into()),
                    })
                }
            };
            if !answers.is_empty() {
                prop_assert_eq!(&step.effect, &None, "nothing after the answer");
            }
            if let Some(a) = step.answer() {
                if a == Action::Accept {
                    prop_assert!(opened, "accept without consent");
                }
                answers.push(a);
            }
        }
        prop_assert!(answers.len() <= 1, "{:?}", answers);
        prop_assert_eq!(c.answer(), answers.first().copied());
    }
}
