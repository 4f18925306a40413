//! Every answerer against the machine: the full screen (keys, taken as the
//! screen takes them: `tui::url_view::take_key`, with the view's clock set
//! by the test), plain mode (typed words, through an in-memory `LineIo`
//! with its own clock) and scripts (an action), each driven through every
//! phase × input, for an openable and a refused URL, at times before and
//! after the grace period; each must reach the machine's own verdict: the
//! input taken or not and why, the launch asked for, the answer, and the
//! phase shown after it.
//!
//! Each answerer reaches a phase as a person does (consent with a browser
//! that fails once, then copy; `--no-open` for the copy screen without a
//! failure), so the phases are the answerers' own, not set by hand.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::json;

use super::*;
use crate::binding::RequestEvent;
use crate::plain::io::{LineIo, MemoryIo, Reply};
use crate::plain::PlainResponder;
use crate::responder::{Context, Outcome, Progress, RespondError, Responder};
use crate::scripted::ScriptedResponder;
use crate::url_review::review;

const OPENABLE: &str = "https://auth.example.com/cb?x=1";
const REFUSED: &str = "javascript:alert(1)";
/// What the browser says when it fails.
const NO_BROWSER: &str = "no browser";
const G: Duration = CONSENT_GUARD;

/// When the input comes, after the URL was shown whole (asking for
/// consent) or after the phase was reached (later phases, which have no
/// period of their own).
const TIMES: [Duration; 3] = [
    Duration::ZERO,
    G.saturating_sub(Duration::from_millis(1)),
    G,
];

/// The phases, as the machine names them.
fn phases() -> [Phase; 4] {
    [
        Phase::Consent,
        Phase::LaunchFailed(NO_BROWSER.into()),
        Phase::Copy {
            after_failure: true,
        },
        Phase::Copy {
            after_failure: false,
        },
    ]
}

/// What one input did, as a test sees it from outside an answerer.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Verdict {
    /// How many times the launcher was asked to open the URL.
    opened: usize,
    /// The request's answer (with a launch asked for, one that opened).
    answer: Option<Action>,
    /// Why the input was not taken.
    not_taken: Option<NotTaken>,
    /// The phase shown after it (None: answered, nothing is shown).
    phase: Option<Phase>,
}

/// A browser that fails its first `fails` launches, then opens; it
/// records each URL it is asked to open.
#[derive(Clone, Default)]
struct Browser(Arc<Mutex<(usize, Vec<String>)>>);

impl Browser {
    fn failing(fails: usize) -> Self {
        Browser(Arc::new(Mutex::new((fails, Vec::new()))))
    }

    fn opened(&self) -> Vec<String> {
        self.0.lock().unwrap().1.clone()
    }
}

impl Launcher for Browser {
    fn open(&mut self, url: &str) -> Result<(), LaunchError> {
        let mut b = self.0.lock().unwrap();
        b.1.push(url.to_owned());
        if b.0 > 0 {
            b.0 -= 1;
            return Err(LaunchError::Other(NO_BROWSER.into()));
        }
        Ok(())
    }
}

/// A machine for `url` in `phase`, reached by launch reports, the URL
/// shown whole at `t0` (`shown`: it was).
fn reached(url: &str, reader: Reader, phase: &Phase, shown: bool, t0: Instant) -> Consent {
    let mut c = Consent::new(&review(url), reader);
    if shown {
        c.shown(Some(t0));
    }
    match phase {
        Phase::Consent => {}
        Phase::LaunchFailed(why) => {
            c.launched(Launch::Failed(why.clone()));
        }
        Phase::Copy { after_failure } => {
            if *after_failure {
                c.launched(Launch::Failed(NO_BROWSER.into()));
                c.input(Input::Copy, t0 + G);
            } else {
                c.launched(Launch::NotOpened);
            }
        }
    }
    assert_eq!(c.phase(), phase, "the machine reached the phase");
    c
}

/// The machine's own verdict on `input` in `phase` for `url`, `at` after
/// the URL was shown whole (`shown`: it was), a launch asked for going
/// well.
fn machine(
    url: &str,
    reader: Reader,
    phase: &Phase,
    shown: bool,
    input: Input,
    at: Duration,
) -> Verdict {
    let t0 = Instant::now();
    let mut c = reached(url, reader, phase, shown, t0);
    let step = c.input(input, t0 + at);
    let (opened, step) = match step.effect {
        Some(Effect::Open(_)) => (1, c.launched(Launch::Opened)),
        _ => (0, step),
    };
    let answer = step.answer();
    Verdict {
        opened,
        answer,
        not_taken: step.not_taken,
        phase: answer.is_none().then_some(step.phase),
    }
}

/// The word plain mode takes for each input.
fn word(input: Input) -> &'static str {
    match input {
        Input::Consent => "open",
        Input::Decline => "decline",
        Input::Cancel => "cancel",
        Input::Retry => "retry",
        Input::Copy => "copy",
        Input::GiveUp => "give up",
        Input::Done => "done",
    }
}

/// The phase a plain-mode prompt asks in.
fn prompt_phase(prompt: &str) -> Phase {
    match prompt {
        "Type open, decline, or cancel: " | "Type decline or cancel: " => Phase::Consent,
        "Type retry, copy, or give up: " => Phase::LaunchFailed(NO_BROWSER.into()),
        "Type done when you have it, retry, or give up to cancel: " => Phase::Copy {
            after_failure: true,
        },
        "Type done when you have it, or give up to cancel: " => Phase::Copy {
            after_failure: false,
        },
        other => panic!("not a URL prompt: {other:?}"),
    }
}

/// An in-memory terminal whose clock stands at `t0` plus the time given
/// with each typed line, from the moment the line is read; it notes each
/// prompt with where it starts and where its echoed line ends in the
/// transcript.
struct TimedIo {
    inner: MemoryIo,
    t0: Instant,
    now: Instant,
    times: VecDeque<Duration>,
    asks: Vec<(String, usize, usize)>,
}

impl TimedIo {
    fn typing(lines: &[(Duration, &str)]) -> Self {
        let t0 = Instant::now();
        let words: Vec<&str> = lines.iter().map(|(_, w)| *w).collect();
        TimedIo {
            inner: MemoryIo::typing(&words),
            t0,
            now: t0,
            times: lines.iter().map(|(t, _)| *t).collect(),
            asks: Vec::new(),
        }
    }
}

impl LineIo for TimedIo {
    fn say(&mut self, text: &str) -> Result<(), RespondError> {
        self.inner.say(text)
    }

    fn ask(
        &mut self,
        prompt: &str,
        deadline: Option<Instant>,
        withdrawn: &dyn Fn() -> bool,
    ) -> Result<Reply, RespondError> {
        let start = self.inner.transcript.len();
        let r = self.inner.ask(prompt, deadline, withdrawn)?;
        if let Some(t) = self.times.pop_front() {
            self.now = self.t0 + t;
        }
        let end = self.inner.transcript.len();
        self.asks.push((prompt.to_owned(), start, end));
        Ok(r)
    }

    fn discard_typeahead(&mut self) {
        self.inner.discard_typeahead();
    }

    fn wait(&mut self, wait: Duration) -> Option<Reply> {
        self.inner.wait(wait)
    }

    fn now(&self) -> Instant {
        self.now
    }
}

/// A URL-mode request for `url`, as read from its event.
fn request(url: &str) -> RequestEvent {
    let params = json!({"mode": "url", "message": "Sign in.", "url": url, "elicitationId": "e1"});
    let ev = json!({"ahp": "0.1", "id": "evt-u", "type": "user.elicitation.request",
        "time": "2026-11-30T09:00:00Z", "source": {"adapter": "test"},
        "payload": {"elicitation": {"server": {"name": "srv"}, "mode": "url",
            "request": {"type": "text", "selection": "body", "text": params.to_string()}}}});
    crate::binding::read_request(ev, crate::binding::ReadOptions::default())
        .expect("a valid URL request")
}

fn cx() -> Context {
    Context {
        progress: Progress::of(1, 1),
        ..Context::default()
    }
}

/// Plain mode's verdict on `input` in `phase`, typed `at` after the phase
/// was reached (the URL shown whole, for consent), with the grace period
/// of a terminal.
fn plain(url: &str, phase: &Phase, input: Input, at: Duration) -> Verdict {
    // Reach the phase as a person does, each word in time.
    let (reach, fails, no_open): (&[&str], usize, bool) = match phase {
        Phase::Consent => (&[], 0, false),
        Phase::LaunchFailed(_) => (&["open"], 1, false),
        Phase::Copy {
            after_failure: true,
        } => (&["open", "copy"], 1, false),
        Phase::Copy {
            after_failure: false,
        } => (&["open"], 0, true),
    };
    let mut lines: Vec<(Duration, &str)> = Vec::new();
    for (i, w) in reach.iter().enumerate() {
        lines.push((G * (u32::try_from(i).expect("few") + 1), w));
    }
    let reached = lines.last().map_or(Duration::ZERO, |(t, _)| *t);
    lines.push((reached + at, word(input)));
    // Then cancel, taken in every phase, if the request is still open.
    lines.push((reached + at + G, "cancel"));
    let browser = Browser::failing(fails);
    let io = TimedIo::typing(&lines);
    let mut p = PlainResponder::new(io, Box::new(browser.clone()), no_open).with_consent_guard(G);
    let outcome = p.respond(&request(url), &cx()).expect("answered");
    let io = p.io();
    let k = reach.len();
    assert!(
        io.asks.len() > k,
        "the word was read: {}",
        io.inner.transcript
    );
    assert_eq!(
        prompt_phase(&io.asks[k].0),
        *phase,
        "plain reached the phase"
    );
    let opened = browser.opened().len() - usize::from(!reach.is_empty());
    let answered = !io.inner.input.is_empty();
    let said_from = io.asks[k].2;
    let said_to = io
        .asks
        .get(k + 1)
        .map_or(io.inner.transcript.len(), |a| a.1);
    let said = &io.inner.transcript[said_from..said_to];
    let not_taken = if said.starts_with("Not taken: that was typed before the URL could be read.") {
        Some(NotTaken::TooSoon)
    } else if said.starts_with("Not understood") || said.starts_with("Enter alone") {
        Some(NotTaken::NotOffered)
    } else {
        None
    };
    let Outcome::Answer(a) = outcome else {
        panic!("plain mode quit")
    };
    Verdict {
        opened,
        answer: answered.then_some(a.action),
        not_taken,
        phase: io.asks.get(k + 1).map(|a| prompt_phase(&a.0)),
    }
}

/// A script's verdict: it answers while asking for consent only (its
/// actions are accept, decline and cancel; a failed launch is its error,
/// not a phase); None for another phase or input.
fn script(url: &str, phase: &Phase, input: Input) -> Option<Verdict> {
    let action = match (phase, input) {
        (Phase::Consent, Input::Consent) => Action::Accept,
        (Phase::Consent, Input::Decline) => Action::Decline,
        (Phase::Consent, Input::Cancel) => Action::Cancel,
        _ => return None,
    };
    let browser = Browser::default();
    let mut s = ScriptedResponder::from_action(action).with_launcher(Box::new(browser.clone()));
    let (answer, not_taken) = match s.respond(&request(url), &cx()) {
        Ok(Outcome::Answer(a)) => (Some(a.action), None),
        // A script's refused answer is the machine's input not offered.
        Err(RespondError::Refused(_)) => (None, Some(NotTaken::NotOffered)),
        other => panic!("{url} {action:?}: {other:?}"),
    };
    Some(Verdict {
        opened: browser.opened().len(),
        answer,
        not_taken,
        phase: None,
    })
}

mod screen {
    use ratatui::backend::TestBackend;
    use ratatui::Terminal;

    use super::*;
    use crate::form::Key;
    use crate::tui::theme::Theme;
    use crate::tui::url_view::{draw, take_key, UrlButton, UrlViewState};

    /// The key a person presses for `input` on `s` (None: no key stands
    /// for it there: after consent Esc gives up, with the same answer as
    /// cancel, and Done is only a button). A button is first given the
    /// focus with Tab, a key of the view's own.
    fn key_for(
        s: &mut UrlViewState,
        input: Input,
        l: &mut dyn Launcher,
        no_open: bool,
    ) -> Option<Key> {
        Some(match input {
            Input::Consent => Key::Char('o'),
            Input::Decline => Key::Char('d'),
            Input::Cancel if *s.phase() == Phase::Consent => Key::Esc,
            Input::Cancel => return None,
            Input::Retry => Key::Char('r'),
            Input::Copy => Key::Char('s'),
            Input::GiveUp => Key::Char('g'),
            Input::Done => {
                if !s.buttons().contains(&UrlButton::Done) {
                    return None;
                }
                while s.focus() != UrlButton::Done {
                    let step = take_key(s, &Key::Tab, l, no_open, &|| true);
                    assert_eq!((step.action, step.not_taken), (None, None));
                }
                Key::Enter
            }
        })
    }

    /// The full screen's verdict on `input` in `phase`, pressed `at` after
    /// the phase was reached (the URL drawn whole, for consent; `shown`
    /// false: never drawn); None when no key stands for it.
    pub(super) fn verdict(
        url: &str,
        phase: &Phase,
        shown: bool,
        input: Input,
        at: Duration,
    ) -> Option<Verdict> {
        let no_open = *phase
            == Phase::Copy {
                after_failure: false,
            };
        let fails = usize::from(matches!(
            phase,
            Phase::LaunchFailed(_)
                | Phase::Copy {
                    after_failure: true
                }
        ));
        let mut browser = Browser::failing(fails);
        let t0 = Instant::now();
        let mut s = UrlViewState::new(review(url), "Sign in.", "srv", "test", "");
        s.set_no_open(no_open);
        s.set_clock(Some(t0));
        if shown {
            let mut t = Terminal::new(TestBackend::new(80, 24)).expect("terminal");
            t.draw(|f| draw(f, f.area(), &s, &Theme::monochrome()))
                .expect("draw");
        }
        // Reach the phase as a person does, each key a grace period after
        // the last.
        let reach: &[Key] = match phase {
            Phase::Consent => &[],
            Phase::LaunchFailed(_)
            | Phase::Copy {
                after_failure: false,
            } => &[Key::Char('o')],
            Phase::Copy {
                after_failure: true,
            } => &[Key::Char('o'), Key::Char('s')],
        };
        let mut now = t0;
        for k in reach {
            now += G;
            s.set_clock(Some(now));
            let step = take_key(&mut s, k, &mut browser, no_open, &|| true);
            assert_eq!((step.action, step.not_taken), (None, None), "{k:?}");
        }
        assert_eq!(s.phase(), phase, "the screen reached the phase");
        let before = browser.opened().len();
        let key = key_for(&mut s, input, &mut browser, no_open)?;
        s.set_clock(Some(now + at));
        let step = take_key(&mut s, &key, &mut browser, no_open, &|| true);
        assert!(!step.refused_open);
        Some(Verdict {
            opened: browser.opened().len() - before,
            answer: step.action,
            not_taken: step.not_taken,
            phase: step.action.is_none().then(|| s.phase().clone()),
        })
    }
}

/// The table: for an openable and a refused URL, every phase the URL can
/// reach × every input × each time, the machine's verdict, and every
/// answerer that has a way to give that input reaches it. Every choice a
/// phase offers has a key on the full screen and a word in plain mode, so
/// no offered choice goes untried.
#[test]
fn every_answerer_reaches_the_machines_verdict() {
    let mut checked = [0usize; 3];
    for url in [OPENABLE, REFUSED] {
        let openable = review(url).openable();
        // A refused URL stays in the consent phase.
        let phases: Vec<Phase> = phases()
            .into_iter()
            .filter(|p| openable || *p == Phase::Consent)
            .collect();
        for phase in &phases {
            for input in Input::ALL {
                for at in TIMES {
                    let person = Reader::AT_TERMINAL;
                    let want = machine(url, person, phase, true, input, at);
                    let case = format!("{url} · {phase:?} × {input:?} at {at:?}");
                    assert_eq!(plain(url, phase, input, at), want, "plain: {case}");
                    checked[1] += 1;
                    let choices = reached(url, person, phase, true, Instant::now()).choices();
                    let offered = choices.contains(&input);
                    match screen::verdict(url, phase, true, input, at) {
                        Some(got) => {
                            assert_eq!(got, want, "screen: {case}");
                            checked[0] += 1;
                        }
                        None => assert!(!offered, "no key for an offered choice: {case}"),
                    }
                }
                // Never drawn: the screen takes no consent, however late.
                if *phase == Phase::Consent && input != Input::Done {
                    let want = machine(url, Reader::AT_TERMINAL, phase, false, input, G * 10);
                    let got = screen::verdict(url, phase, false, input, G * 10);
                    assert_eq!(got, Some(want), "screen, not drawn: {url} · {input:?}");
                    checked[0] += 1;
                }
                if let Some(got) = script(url, phase, input) {
                    // A script shows no phase: its request ends either
                    // way (a refused answer is its error).
                    let want = Verdict {
                        phase: None,
                        ..machine(url, Reader::Script, phase, false, input, Duration::ZERO)
                    };
                    assert_eq!(got, want, "script: {url} · {phase:?} × {input:?}");
                    checked[2] += 1;
                }
            }
        }
    }
    // Plain: 5 phases (4 openable, 1 refused) × 7 inputs × 3 times.
    // Scripts: 3 inputs × 2 URLs. The screen: no key for Cancel after
    // consent (Esc gives up there) nor for Done where it is no button, so
    // 6 inputs in each phase but the failure's 5, × 3 times, and 6 inputs
    // never drawn for each URL.
    assert_eq!(checked[1], 5 * 7 * 3);
    assert_eq!(checked[2], 6);
    assert_eq!(checked[0], (4 * 6 + 5) * 3 + 2 * 6);
}
