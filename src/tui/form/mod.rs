//! The elicitation form screen: its state and keys ([`FormScreen`], over
//! the form state machine, [`crate::form`]), one field's drawing
//! ([`fields`]) and the whole frame with the review and the help
//! ([`draw`]). Tools' arguments are asked on it too ([`super::browse`]).

mod draw;
mod fields;
#[cfg(test)]
mod tests;

#[cfg(any(test, feature = "internals"))]
pub use draw::{draw_form, draw_form_view, ignored_words, HELP_REVIEW_MORE};
pub use draw::{draw_form_view_seen, FormViewMode};

use std::time::Duration;

use ratatui::Frame;

use super::header::Header;
use super::theme::Theme;
use super::{scroll_step, Clock, Screen, Step, FORM_GUARD};
use crate::binding::{Action, Answer, FormSchema};
use crate::form::{Form, Key, KeyIntent, Stage, Status};
use crate::responder::{Outcome, Progress};

/// A form-mode request: edit, then review, then accept.
pub(crate) struct FormScreen {
    header: Header,
    form: Form,
    scroll: usize,
    /// Whether the view scrolls to the focus. The first frame starts at the
    /// top, scrolled only as far as needed for the focused input to show,
    /// so the request's message is seen as far as the screen allows; the
    /// first key the form takes scrolls to the whole focused field.
    follow: bool,
    /// The end of the review has been on screen: only then does a send
    /// key send (a long review is read whole first, as a long URL is).
    review_end_seen: bool,
    /// Ctrl-O was pressed on a form whose Ctrl-O edits the whole content
    /// ([`FormScreen::edits_whole`]).
    whole_asked: bool,
    /// The area of the last frame: a first frame or a new size places the
    /// focused input on screen.
    drawn_at: Option<ratatui::layout::Rect>,
    /// The keys of the confirmation that waited when
    /// [`Screen::keys_changed`] was last asked (None: no question).
    asked: Option<String>,
    /// Whether the end of the review had been seen then.
    end_seen_said: bool,
}

impl FormScreen {
    /// The form of `schema` with the request's `message`.
    pub(crate) fn new(header: Header, schema: &FormSchema, message: &str) -> Self {
        FormScreen {
            header,
            form: Form::new(schema, message),
            scroll: 0,
            follow: false,
            review_end_seen: false,
            whole_asked: false,
            drawn_at: None,
            asked: None,
            end_seen_said: false,
        }
    }
}

impl FormScreen {
    /// The same form asking the arguments of `call` (`tools/call NAME`,
    /// unsanitised), not an answer: its message is ours (drawn without the
    /// frame that marks the server's words), the header says "Arguments
    /// for" the call, and its buttons and keys say Call and Back
    /// ([`Form::for_arguments`]).
    pub(crate) fn asks_arguments(mut self, call: String) -> Self {
        self.form.arguments_left_out.clear();
        self.form.message_is_ours = true;
        self.form.for_arguments = true;
        self.header.arguments_for = Some(call);
        self
    }

    /// The properties of the arguments the form cannot draw, asked as JSON
    /// after its review ([`Form::arguments_left_out`]).
    pub(crate) fn leaves_out(mut self, left_out: &[String]) -> Self {
        self.form.arguments_left_out = left_out.to_vec();
        self
    }

    /// The same form with Ctrl-O editing its whole content as JSON (a
    /// tool's arguments), at any step: the screen ends and
    /// [`FormScreen::whole_asked`] gives what was entered so far.
    pub(crate) fn edits_whole(mut self) -> Self {
        self.form.editor_takes_all = true;
        self
    }

    /// What was entered so far, checked or not ([`Form::entered`]), once
    /// Ctrl-O asked to edit the whole content; None otherwise.
    pub(crate) fn whole_asked(&self) -> Option<serde_json::Map<String, serde_json::Value>> {
        self.whole_asked.then(|| self.form.entered())
    }
}

impl Screen for FormScreen {
    fn grace(&self) -> Duration {
        FORM_GUARD
    }

    fn changed(&self) -> bool {
        self.form.changed()
    }

    fn ask_to_confirm(&mut self, a: Action, question: String, keys: String) -> bool {
        self.form.ask_to_confirm(a, question, keys)
    }

    fn draw(&mut self, f: &mut Frame, theme: &Theme, clock: Option<Clock>) -> bool {
        self.header.seconds_left = clock.map(|c| c.left);
        self.header.extend_secs = clock.map(|c| c.extend);
        // The first frame, and the first after a resize, scroll as far as
        // needed for the focused input to show (the message stays above it
        // as far as the screen allows).
        let area = f.area();
        let mode = FormViewMode {
            follow_focus: self.follow,
            review_end_seen: self.review_end_seen,
            place_input: self.drawn_at != Some(area),
        };
        self.drawn_at = Some(area);
        let shown = (&self.header, &self.form);
        let at_end = draw_form_view_seen(f, theme, shown, &mut self.scroll, mode);
        match self.form.stage() {
            Stage::Review(_) => self.review_end_seen |= at_end,
            Stage::Edit => self.review_end_seen = false,
        }
        true
    }

    fn key(&mut self, k: &Key) -> Step {
        // A send key before the end of a long review was on screen shows
        // the next page instead: nothing is sent that was not seen.
        let reviewing = matches!(self.form.stage(), Stage::Review(_));
        if reviewing && !self.review_end_seen && self.form.intent_for(k) == KeyIntent::Send {
            self.scroll = self.scroll.saturating_add(10);
            self.follow = false;
            return Step::Continue;
        }
        // Keys the form does not use scroll the view by hand (a long
        // message, a long review).
        if self.form.intent_for(k) == KeyIntent::None {
            if let Some(d) = scroll_step(k) {
                self.scroll = self.scroll.saturating_add_signed(d);
                self.follow = false;
                return Step::Continue;
            }
        }
        self.follow = true;
        match self.form.handle_key(k) {
            Status::Open => Step::Continue,
            Status::Done(a) => Step::Done(Outcome::Answer(a)),
        }
    }

    fn stage(&self) -> u8 {
        match self.form.stage() {
            Stage::Edit => 0,
            Stage::Review(_) => 1,
        }
    }

    /// The question "Throw away what you entered and cancel?" is up (Esc
    /// confirms it).
    fn esc_discards(&self) -> bool {
        self.form.confirming() == Some(Action::Cancel)
    }

    /// A question that asks to confirm a discard appeared (or another took
    /// its place), or the end of the review came on screen.
    fn keys_changed(&mut self) -> bool {
        let asked = self.form.confirm_keys();
        let new_question = asked.is_some() && asked != self.asked;
        self.asked = asked;
        let end_seen = self.review_end_seen && !self.end_seen_said;
        self.end_seen_said = self.review_end_seen;
        new_question || end_seen
    }

    fn edit_whole(&mut self) -> Option<Outcome> {
        if !self.form.editor_takes_all {
            return None;
        }
        self.whole_asked = true;
        Some(Outcome::Answer(Answer::bare(Action::Accept)))
    }

    fn text_to_edit(&self) -> Option<String> {
        if self.form.focused_is_secret() {
            return None;
        }
        self.form.focused_text().map(|(_, v)| v)
    }

    fn editor_refused(&self) -> Option<String> {
        if self.form.editor_takes_all {
            return self.form.secret_entered().then(|| {
                "the editor is not used while a field that looks like a secret holds a value (nothing of it is written to a file)".to_owned()
            });
        }
        (self.form.focused_is_secret() && self.form.focused_text().is_some()).then(|| {
            "the editor is not used for a field that looks like a secret (nothing of it is written to a file)".to_owned()
        })
    }

    fn put_edited(&mut self, text: String) {
        use crate::form::field::{too_long_notice, MAX_TEXT_CHARS};
        if let Some((name, _)) = self.form.focused_text() {
            // An editor can write more than the field takes: the start is
            // kept and the form says the rest was not taken.
            // What the editor wrote holds no control character once in
            // the value (`\r\n` is one line break).
            let text = crate::form::entered::clean_entered(&text)
                .replace("\r\n", "\n")
                .replace('\r', "\n");
            let (text, cut) = match text.char_indices().nth(MAX_TEXT_CHARS) {
                Some((at, _)) => (text[..at].to_owned(), true),
                None => (text, false),
            };
            if let Err(e) = self.form.set_json(&name, &serde_json::Value::String(text)) {
                self.form.set_notice(e.to_string());
            } else if cut {
                self.form.set_notice(too_long_notice());
            }
        }
    }

    fn put_note(&mut self, note: String) {
        self.form.set_notice(note);
    }

    fn put_banner(&mut self, banner: String) {
        self.header.banner = Some(banner);
    }

    fn put_progress(&mut self, progress: Progress) {
        self.header.progress = progress;
    }
}
