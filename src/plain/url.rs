//! URL mode in plain lines (consent to open a URL is an
//! explicit act): the full URL, the host, every warning as a sentence, then consent
//! by typing `open`, never by a bare Enter. What each typed word means, when
//! consent counts (the URL printed whole, then [`CONSENT_GUARD`] on a
//! terminal), a failed launch, the copy step and a URL that cannot be
//! opened (decline or cancel only) belong to the consent machine
//! ([`crate::consent`]); this module prints its state and feeds it one
//! input per line, at the time its [`LineIo`] reads ([`LineIo::now`]). The
//! launch is the machine's [`Effect::Open`], carried out with the
//! responder's launcher; `--no-open`, or a machine where no browser can
//! open (no display, an SSH session), shows the URL for copying instead,
//! and the latter says why.
//!
//! [`CONSENT_GUARD`]: crate::consent::CONSENT_GUARD

use crate::binding::{Action, Answer, RequestEvent};
use crate::consent::{Consent, Effect, Input, NotTaken, Phase, Reader, Step};
use crate::launcher::NoOpenWhy;
use crate::responder::{Context, Outcome, RespondError};
use crate::url_review::{review, UrlReview};

use super::{LineIo, PlainResponder, Read};

/// The input a typed line stands for (lower case, trimmed), in any phase;
/// the machine says whether the phase takes it.
fn line_input(line: &str) -> Option<Input> {
    Some(match line {
        "open" => Input::Consent,
        "decline" => Input::Decline,
        "cancel" => Input::Cancel,
        "retry" => Input::Retry,
        "copy" => Input::Copy,
        "done" => Input::Done,
        "give up" => Input::GiveUp,
        _ => return None,
    })
}

impl<I: LineIo> PlainResponder<I> {
    pub(super) fn respond_url(
        &mut self,
        req: &RequestEvent,
        message: &str,
        url: &str,
        cx: &Context,
    ) -> Result<Outcome, RespondError> {
        let r = review(url);
        let reader = Reader::Person {
            grace: self.consent_guard,
        };
        let mut consent = Consent::new(&r, reader);
        self.header(req, cx, Some(message))?;
        self.say("The server asks you to open a web page.")?;
        for l in url_sentences(&r) {
            self.say(&l)?;
        }
        match &r.refusal {
            // Only decline and cancel are offered: the machine says so.
            Some(refusal) => self.say(&refusal.sentence())?,
            None if !consent.openable() => {}
            None => {
                // Why no browser opens, when it is the machine and not
                // --no-open.
                let why = match self.no_open_why {
                    Some(w) if w != NoOpenWhy::Asked => format!("{}. ", w.words()),
                    _ => String::new(),
                };
                let open = if self.no_open {
                    "To agree, type open: the URL is then shown for copying, not opened."
                } else {
                    "To open it in the browser, type open."
                };
                self.say(&format!(
                    "{why}{open} Otherwise type decline or cancel. Enter alone does nothing."
                ))?;
            }
        }
        // The URL and every warning are on the terminal now.
        consent.shown(Some(self.io.now()));
        loop {
            let line = match self.read(prompt(&consent), cx)? {
                Read::Line(l) => l,
                Read::Done(o) => return Ok(o),
            };
            let line = line.trim().to_lowercase();
            let step = match line_input(&line) {
                Some(input) => consent.input(input, self.io.now()),
                None => not_offered(&consent),
            };
            if let Some(o) = self.carry_out(&mut consent, &r, step, &line, cx)? {
                return Ok(o);
            }
        }
    }

    /// Say and do what the machine's `step` asks (`line` is what was
    /// typed); the outcome once the request is answered. The answer is
    /// claimed ([`Context::claim_answer`]) before a browser is started: a
    /// request withdrawn first opens nothing (the caller then says the
    /// withdrawal), and one opened always has its `accept` sent.
    fn carry_out(
        &mut self,
        consent: &mut Consent,
        r: &UrlReview,
        step: Step,
        line: &str,
        cx: &Context,
    ) -> Result<Option<Outcome>, RespondError> {
        let in_consent = step.phase == Phase::Consent;
        let after_failure = matches!(
            step.phase,
            Phase::Copy {
                after_failure: true
            }
        );
        let openable = consent.openable();
        match (step.effect, step.not_taken) {
            (Some(Effect::Answer(a)), _) => {
                let said = match a {
                    Action::Accept => "Consent sent.",
                    Action::Decline => "Declined.",
                    Action::Cancel => "Cancelled.",
                };
                self.say(said)?;
                return Ok(Some(Outcome::Answer(Answer::bare(a))));
            }
            (Some(Effect::Open(_)), _) => {
                if !self.no_open && !cx.claim_answer() {
                    return Ok(Some(Outcome::Answer(Answer::bare(Action::Cancel))));
                }
                let (after, res) = consent.open_with(self.launcher.as_mut(), self.no_open);
                if let Err(e) = &res {
                    self.say(&crate::safe_text::display(&e.to_string()))?;
                }
                if let Some(a) = after.answer() {
                    self.say("Opened in the browser. Consent sent.")?;
                    return Ok(Some(Outcome::Answer(Answer::bare(a))));
                }
                return self.carry_out(consent, r, after, line, cx);
            }
            (Some(Effect::Copy), _) => {
                match self.no_open_why {
                    Some(w) if w != NoOpenWhy::Asked && !after_failure => self.say(&format!(
                        "{}: copy this URL and open it in a browser yourself:",
                        w.words()
                    ))?,
                    _ => self.say("Copy this URL and open it yourself:")?,
                }
                self.say(&r.display_url())?;
            }
            (None, Some(NotTaken::TooSoon)) => self.say(
                "Not taken: that was typed before the URL could be read. Type open again to agree.",
            )?,
            (None, Some(_)) if in_consent && !openable => {
                self.say("Not understood: type decline or cancel.")?
            }
            (None, Some(_)) if in_consent && line.is_empty() => {
                self.say("Enter alone does nothing: type open, decline, or cancel.")?
            }
            (None, Some(_)) if in_consent => {
                self.say("Not understood: type open, decline, or cancel.")?
            }
            (None, Some(_)) => self.say("Not understood.")?,
            // A failed launch: its sentence was said.
            (None, None) => {}
        }
        Ok(None)
    }
}

#[cfg(test)]
impl<I: LineIo> PlainResponder<I> {
    /// The same responder with `grace` as the consent machine's period (on
    /// a terminal [`crate::consent::CONSENT_GUARD`]; a new in-memory
    /// responder has none), for tests that type too soon on purpose.
    pub(crate) fn with_consent_guard(mut self, grace: std::time::Duration) -> Self {
        self.consent_guard = grace;
        self
    }
}

/// The step of a line that is no input at all: nothing taken.
fn not_offered(consent: &Consent) -> Step {
    Step {
        phase: consent.phase().clone(),
        effect: None,
        not_taken: Some(NotTaken::NotOffered),
    }
}

/// The prompt of the machine's phase (a URL that cannot be opened is only
/// declined or cancelled).
fn prompt(consent: &Consent) -> &'static str {
    match consent.phase() {
        Phase::Consent if !consent.openable() => "Type decline or cancel: ",
        Phase::Consent => "Type open, decline, or cancel: ",
        Phase::LaunchFailed(_) => "Type retry, copy, or give up: ",
        Phase::Copy {
            after_failure: true,
        } => "Type done when you have it, retry, or give up to cancel: ",
        Phase::Copy {
            after_failure: false,
        } => "Type done when you have it, or give up to cancel: ",
    }
}

/// The URL, the site it opens and every warning, each a sentence.
pub fn url_sentences(r: &UrlReview) -> Vec<String> {
    // The program speaks here, not the server: said so, since the server's
    // message could imitate these sentences (its lines are marked too).
    let mut out = vec![format!("ahp-elicit checked the URL: {}", r.display_url())];
    if r.rewritten() {
        out.push(format!("As sent, it was written: {}", r.display_sent()));
    }
    if let Some(h) = &r.host {
        let (_, site) = h.split_unicode();
        // A fully qualified host (`example.com.`) keeps its dot: quoted,
        // so the sentence's own punctuation is not read as part of it.
        let named = |n: &str| {
            if n.ends_with('.') {
                format!("\"{n}\"")
            } else {
                n.to_owned()
            }
        };
        out.push(if h.registrable_unicode.is_some() {
            format!(
                "It opens the site {}, on the host {}.",
                named(site),
                named(&h.unicode)
            )
        } else {
            // An IP address or a single-label host: no site to name.
            format!("It opens the host {}.", named(&h.unicode))
        });
    }
    match r.warnings.len() {
        0 => out.push("No warnings.".into()),
        1 => out.push("1 warning:".into()),
        n => out.push(format!("{n} warnings:")),
    }
    for w in &r.warnings {
        out.push(format!("Warning: {}", w.sentence()));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fully_qualified_host_is_quoted_not_doubled_dotted() {
        let r = crate::url_review::review("https://example.com./x");
        let said = url_sentences(&r);
        assert!(
            said.iter()
                .any(|l| l == "It opens the site \"example.com.\", on the host \"example.com.\"."),
            "{said:?}"
        );
        let r = crate::url_review::review("https://auth.example.com/x");
        assert!(url_sentences(&r)
            .iter()
            .any(|l| l == "It opens the site example.com, on the host auth.example.com."));
    }
}
