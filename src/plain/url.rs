//! URL mode in plain lines (consent to open a URL is an
//! explicit act): the full URL, the host, every warning as a sentence, then consent
//! by typing `open`, never by a bare Enter. The launch goes through
//! [`consent_and_open`](crate::launcher::consent_and_open), as in the
//! full-screen view; `--no-open` shows the URL for copying instead.

use crate::binding::{Action, Answer, RequestEvent};
use crate::responder::{Context, Outcome, RespondError};
use crate::url_review::{review, UrlReview};

use super::{LineIo, PlainResponder, Read};

/// What the person may type after consent when the URL was not opened.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum After {
    /// `--no-open`: the URL was shown for copying.
    Copied,
    /// The browser could not be started.
    Failed,
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
        self.header(req, cx, Some(message))?;
        self.say("The server asks you to open a web page.")?;
        for l in url_sentences(&r) {
            self.say(&l)?;
        }
        if let Some(refusal) = &r.refusal {
            self.say(&refusal.sentence())?;
            return self.decline_or_cancel(cx);
        }
        let open = if self.no_open {
            "To agree, type open: the URL is then shown for copying, not opened."
        } else {
            "To open it in the browser, type open."
        };
        self.say(&format!(
            "{open} Otherwise type decline or cancel. Enter alone does nothing."
        ))?;
        let shown = std::time::Instant::now();
        loop {
            let line = match self.read("Type open, decline, or cancel: ", cx)? {
                Read::Line(l) => l,
                Read::Done(o) => return Ok(o),
            };
            match line.trim().to_lowercase().as_str() {
                "open" if shown.elapsed() < self.consent_guard => self.say(
                    "Not taken: that was typed before the URL could be read. Type open again to agree.",
                )?,
                "open" => return self.consent(&r, cx),
                "decline" => return self.answered(Action::Decline, "Declined."),
                "cancel" => return self.answered(Action::Cancel, "Cancelled."),
                "" => self.say("Enter alone does nothing: type open, decline, or cancel.")?,
                _ => self.say("Not understood: type open, decline, or cancel.")?,
            }
        }
    }

    fn answered(&mut self, a: Action, said: &str) -> Result<Outcome, RespondError> {
        self.say(said)?;
        Ok(Outcome::Answer(Answer::bare(a)))
    }

    /// The person typed `open` (or `retry`): launch, or show for copying.
    fn consent(&mut self, r: &UrlReview, cx: &Context) -> Result<Outcome, RespondError> {
        let res = crate::launcher::consent_and_open(self.launcher.as_mut(), r);
        let after = match res {
            Ok(()) if !self.no_open => {
                return self.answered(Action::Accept, "Opened in the browser. Consent sent.")
            }
            Ok(()) => After::Copied,
            Err(e) => {
                self.say(&crate::safe_text::display(&e.to_string()))?;
                After::Failed
            }
        };
        self.after_consent(r, after, cx)
    }

    fn after_consent(
        &mut self,
        r: &UrlReview,
        mut after: After,
        cx: &Context,
    ) -> Result<Outcome, RespondError> {
        if after == After::Copied {
            self.say_copy(r)?;
        }
        loop {
            let prompt = match after {
                After::Copied => "Type done when you have it, or give up to cancel: ",
                After::Failed => "Type retry, copy, or give up: ",
            };
            let line = match self.read(prompt, cx)? {
                Read::Line(l) => l,
                Read::Done(o) => return Ok(o),
            };
            match (after, line.trim().to_lowercase().as_str()) {
                (After::Copied, "done") => {
                    return self.answered(Action::Accept, "Consent sent.");
                }
                (_, "give up") => return self.answered(Action::Cancel, "Cancelled."),
                (After::Failed, "retry") => return self.consent(r, cx),
                (After::Failed, "copy") => {
                    after = After::Copied;
                    self.say_copy(r)?;
                }
                _ => self.say("Not understood.")?,
            }
        }
    }

    fn say_copy(&mut self, r: &UrlReview) -> Result<(), RespondError> {
        self.say("Copy this URL and open it yourself:")?;
        self.say(&r.display_url())
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
        out.push(if h.registrable_unicode.is_some() {
            format!("It opens the site {site}, on the host {}.", h.unicode)
        } else {
            // An IP address or a single-label host: no site to name.
            format!("It opens the host {}.", h.unicode)
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
