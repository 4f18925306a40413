//! The request screens the terminal front end runs through
//! [`TuiResponder::run`](super::TuiResponder): the form, the refusable
//! screen (decline or cancel only) and URL consent, each a [`Screen`].

use std::time::Duration;

use ratatui::Frame;

use super::theme::Theme;
use super::url_view::{self, UrlPhase, UrlViewState};
use super::view::{self, Header};
use super::{CONSENT_GUARD, FORM_GUARD};
use crate::binding::{Action, Answer, FormSchema};
use crate::form::{Form, Key, KeyIntent, Stage, Status};
use crate::launcher::Launcher;
use crate::responder::{Outcome, Progress, Withdrawal};

/// What a screen's key handler tells the loop.
pub(crate) enum Step {
    /// Keep the screen.
    Continue,
    /// The request is decided.
    Done(Outcome),
}

/// One request screen. The loop draws it every frame and hands it the keys
/// that passed the consent guard ([`super::guard`]); Ctrl-C, the deadline,
/// a withdrawal and signals are the loop's.
pub(crate) trait Screen {
    /// How long the screen must have been on screen, whole and untouched,
    /// before its keys count.
    fn grace(&self) -> Duration;

    /// Draw one frame with `theme`; `clock` is the time left before
    /// `--timeout` cancels (None: no timeout). Returns whether the request
    /// was shown whole (false: too small; then only Esc counts).
    fn draw(&mut self, f: &mut Frame, theme: &Theme, clock: Option<Clock>) -> bool;

    /// One key (never Ctrl-C).
    fn key(&mut self, k: &Key) -> Step;

    /// Whether the person typed or chose anything here (a discard then
    /// asks to confirm, also while the screen is too small to show it).
    fn changed(&self) -> bool {
        false
    }

    /// Ask the person to confirm a front end's own discard (`question`,
    /// answered by `keys`) before `a` is sent; false, asking nothing, when
    /// nothing here would be thrown away.
    fn ask_to_confirm(&mut self, _a: Action, _question: String, _keys: String) -> bool {
        false
    }

    /// The text of the focused text field, for an external editor (None:
    /// nothing to edit here).
    fn text_to_edit(&self) -> Option<String> {
        None
    }

    /// Why the outside editor is not opened here now (a field that looks
    /// like a secret), said as the form's notice; None: it may be.
    fn editor_refused(&self) -> Option<String> {
        None
    }

    /// The editor's text for the focused text field.
    fn put_edited(&mut self, _text: String) {}

    /// Ctrl-O here edits everything the screen asks as one JSON text (a
    /// tool's arguments, [`FormScreen::edits_whole`]): the screen ends with
    /// this outcome and whoever ran it opens the editor. None: Ctrl-O edits
    /// the focused field, if any.
    fn edit_whole(&mut self) -> Option<Outcome> {
        None
    }

    /// The URL drawn by the last frame, to be written again as one
    /// hyperlink (None: no URL on this screen).
    fn link(&self) -> Option<url_view::UrlLink> {
        None
    }

    /// A one-line note for the person (why the editor did not help).
    fn put_note(&mut self, _note: String) {}

    /// A warning that stays above the request from now on (the call that
    /// asked has finished); a screen without a header ignores it.
    fn put_banner(&mut self, _banner: String) {}

    /// Where the request stands now ("request 1 of 3": requests that
    /// arrived behind it while it is on screen are counted).
    fn put_progress(&mut self, progress: Progress);

    /// Which step of the screen is shown: a different value means Enter
    /// (or `o`) now does something else (form → review, consent → copy),
    /// so the loop starts the grace period again and repaints the screen
    /// whole.
    fn stage(&self) -> u8 {
        0
    }

    /// Whether a lone Esc now would throw what was typed away (a question
    /// that Esc confirms is up): the key filter then holds an Esc longer,
    /// so a terminal reply split after its ESC never answers it.
    fn esc_discards(&self) -> bool {
        false
    }

    /// Whether what this screen's keys do changed since the last call
    /// (asked after each frame): a question now waits for `y` or the key
    /// again, the end of a long review came on screen (Enter now sends),
    /// other rows of a URL are on screen (`o` may now consent, new warnings
    /// show). The loop then starts the grace period again, so a key typed
    /// with the one that made the change never answers it.
    fn keys_changed(&mut self) -> bool {
        false
    }
}

/// The time a screen shows: seconds left before `--timeout` cancels, and
/// the seconds the extend key adds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Clock {
    pub(crate) left: u64,
    pub(crate) extend: u64,
}

/// A decided answer with no content.
fn bare(a: Action) -> Step {
    Step::Done(Outcome::Answer(Answer::bare(a)))
}

/// Rows to scroll for a scrolling key (↑ ↓ one row, PageUp PageDown ten).
fn scroll_step(k: &Key) -> Option<isize> {
    match k {
        Key::Up => Some(-1),
        Key::Down => Some(1),
        Key::PageUp => Some(-10),
        Key::PageDown => Some(10),
        _ => None,
    }
}

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
        let mode = view::FormViewMode {
            follow_focus: self.follow,
            review_end_seen: self.review_end_seen,
            place_input: self.drawn_at != Some(area),
        };
        self.drawn_at = Some(area);
        let shown = (&self.header, &self.form);
        let at_end = view::draw_form_view_seen(f, theme, shown, &mut self.scroll, mode);
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

/// A request that can only be declined or cancelled: why, one line each
/// (`(text, emphasised)`), then the Decline and Cancel buttons.
pub(crate) struct RefusableScreen {
    header: Header,
    lines: Vec<(String, bool)>,
    /// The index into [`view::REFUSE_BUTTONS`].
    focus: usize,
    scroll: usize,
}

impl RefusableScreen {
    /// The screen with `lines` (sanitised when drawn).
    pub(crate) fn new(header: Header, lines: Vec<(String, bool)>) -> Self {
        RefusableScreen {
            header,
            lines,
            focus: 0,
            scroll: 0,
        }
    }
}

impl Screen for RefusableScreen {
    fn grace(&self) -> Duration {
        FORM_GUARD
    }

    fn draw(&mut self, f: &mut Frame, theme: &Theme, clock: Option<Clock>) -> bool {
        self.header.seconds_left = clock.map(|c| c.left);
        self.header.extend_secs = clock.map(|c| c.extend);
        let (h, lines) = (&self.header, &self.lines);
        view::draw_refusable(f, theme, h, lines, self.focus, &mut self.scroll);
        true
    }

    fn key(&mut self, k: &Key) -> Step {
        match k {
            Key::Esc => bare(Action::Cancel),
            Key::Ctrl('d') | Key::Char('d') => bare(Action::Decline),
            Key::Tab | Key::BackTab | Key::Left | Key::Right => {
                self.focus = 1 - self.focus.min(1);
                Step::Continue
            }
            Key::Enter | Key::Char(' ') if self.focus == 0 => bare(Action::Decline),
            Key::Enter | Key::Char(' ') => bare(Action::Cancel),
            k => {
                if let Some(d) = scroll_step(k) {
                    self.scroll = self.scroll.saturating_add_signed(d);
                }
                Step::Continue
            }
        }
    }

    fn put_banner(&mut self, banner: String) {
        self.header.banner = Some(banner);
    }

    fn put_progress(&mut self, progress: Progress) {
        self.header.progress = progress;
    }
}

/// URL consent: the view ([`url_view`]) draws the consent machine
/// ([`crate::consent`]) and feeds it keys; an open the machine asks for is
/// carried out with the launcher (consent is an explicit act: focus starts
/// on Decline; `o` or the Open button once the URL was read whole; a failed
/// launch offers retry, copy or give up).
pub(crate) struct UrlScreen {
    state: UrlViewState,
    launcher: Box<dyn Launcher>,
    /// `--no-open`: consent shows the URL for copying.
    no_open: bool,
    /// The request's withdrawal flag: its answer is claimed before the
    /// browser is started (None: never withdrawn).
    claim: Option<Withdrawal>,
    /// The scroll offset and whether Open was enabled when
    /// [`Screen::keys_changed`] was last asked.
    shown: Option<(u16, bool)>,
}

impl UrlScreen {
    /// The consent screen for `state`, opening with `launcher`.
    pub(crate) fn new(mut state: UrlViewState, launcher: Box<dyn Launcher>, no_open: bool) -> Self {
        state.set_no_open(no_open);
        UrlScreen {
            state,
            launcher,
            no_open,
            claim: None,
            shown: None,
        }
    }

    /// Claim the answer through `withdrawal` before the browser is started
    /// (see [`url_view::take_key`]): a withdrawal read first opens nothing.
    pub(crate) fn with_claim(mut self, withdrawal: Option<Withdrawal>) -> Self {
        self.claim = withdrawal;
        self
    }

    /// The launcher back, for the next URL request.
    pub(crate) fn into_launcher(self) -> Box<dyn Launcher> {
        self.launcher
    }
}

impl Screen for UrlScreen {
    fn grace(&self) -> Duration {
        CONSENT_GUARD
    }

    fn draw(&mut self, f: &mut Frame, theme: &Theme, clock: Option<Clock>) -> bool {
        self.state.forget_link();
        if view::too_small(f, theme) {
            self.state.off_screen();
            return false;
        }
        self.state.set_seconds_left(clock.map(|c| c.left));
        self.state.set_extend_secs(clock.map(|c| c.extend));
        url_view::draw(f, f.area(), &self.state, theme);
        self.state.shown_whole()
    }

    fn link(&self) -> Option<url_view::UrlLink> {
        self.state.link()
    }

    fn key(&mut self, k: &Key) -> Step {
        let launcher = self.launcher.as_mut();
        let claim = self.claim.as_ref();
        let may_open = || claim.is_none_or(Withdrawal::claim_answer);
        let step = url_view::take_key(&mut self.state, k, launcher, self.no_open, &may_open);
        match step.action {
            Some(a) => bare(a),
            // Withdrawn before the browser was started: the loop claims
            // the answer, finds the withdrawal and says it.
            None if step.refused_open => bare(Action::Cancel),
            None => Step::Continue,
        }
    }

    fn put_banner(&mut self, banner: String) {
        self.state.set_banner(banner);
    }

    fn put_progress(&mut self, progress: Progress) {
        self.state.set_progress(progress.label());
    }

    fn stage(&self) -> u8 {
        match self.state.phase() {
            UrlPhase::Consent => 0,
            UrlPhase::LaunchFailed(_) => 1,
            UrlPhase::Copy { .. } => 2,
        }
    }

    /// The body scrolled (other rows of the URL, its warnings or the
    /// message are on screen), or Open became enabled: `o` must wait until
    /// what is now shown has been on screen for the grace period.
    fn keys_changed(&mut self) -> bool {
        let now = (self.state.scroll(), self.state.open_enabled());
        let changed = self.shown.is_some_and(|was| was != now);
        self.shown = Some(now);
        changed
    }
}

#[cfg(test)]
mod tests {
    use std::sync::{Arc, Mutex};
    use std::time::Instant;

    use ratatui::backend::TestBackend;
    use ratatui::Terminal;

    use super::*;
    use crate::binding::{Mode, RequestBody, RequestView};

    fn header() -> Header {
        Header {
            server_name: "srv".into(),
            server_title: None,
            server_version: None,
            adapter: "mcp-stdio".into(),
            mode: Mode::Url,
            progress: Progress::of(1, 1),
            seconds_left: None,
            extend_secs: None,
            launched: None,
            call: None,
            banner: None,
            arguments_for: None,
        }
    }

    /// The action a step decides, or None while the screen stays.
    fn decided(step: Step) -> Option<Action> {
        match step {
            Step::Done(Outcome::Answer(a)) => Some(a.action),
            Step::Done(Outcome::Quit) => panic!("a screen never quits"),
            Step::Continue => None,
        }
    }

    /// Draw `screen` once at 80x24 with `secs` left; returns the top row and
    /// whether the screen said it showed the request whole.
    fn frame(screen: &mut dyn Screen, secs: Option<u64>) -> (String, bool) {
        let clock = secs.map(|left| Clock { left, extend: 30 });
        let mut t = Terminal::new(TestBackend::new(80, 24)).expect("terminal");
        let theme = Theme::monochrome();
        let mut whole = false;
        t.draw(|f| whole = screen.draw(f, &theme, clock))
            .expect("draw");
        let buf = t.backend().buffer();
        let top: String = (0..80).map(|x| buf[(x, 0)].symbol().to_owned()).collect();
        (top.trim_end().to_owned(), whole)
    }

    /// A URL consent screen for `url` whose view reads the time from a test
    /// clock standing at `t0` (moved on with [`at`]).
    fn url_screen(url: &str, launcher: Rec, no_open: bool, t0: Instant) -> UrlScreen {
        let mut state = UrlViewState::new(crate::url_review::review(url), "m", "srv", "a", "");
        state.set_clock(Some(t0));
        UrlScreen::new(state, Box::new(launcher), no_open)
    }

    /// Move `screen`'s clock to `now`.
    fn at(screen: &mut UrlScreen, now: Instant) {
        screen.state.set_clock(Some(now));
    }

    #[test]
    fn the_stage_changes_with_what_enter_does() {
        let v = serde_json::json!({
            "type": "object", "properties": {"note": {"type": "string", "default": "x"}}
        });
        let schema =
            crate::binding::form_schema::parse_form_schema(&v, "/requestedSchema").expect("schema");
        let mut f = FormScreen::new(header(), &schema, "m");
        assert_eq!(f.stage(), 0);
        assert_eq!(decided(f.key(&Key::Ctrl('s'))), None);
        assert_eq!(f.stage(), 1, "the review");
        let t0 = Instant::now();
        let url = "https://auth.example.com/cb";
        let mut u = url_screen(url, Rec(Arc::default()), true, t0);
        let _ = frame(&mut u, None);
        at(&mut u, t0 + CONSENT_GUARD);
        assert_eq!(u.stage(), 0);
        assert_eq!(decided(u.key(&Key::Char('o'))), None);
        assert_eq!(u.stage(), 2, "the copy step");
    }

    #[test]
    fn esc_throws_answers_away_only_while_the_cancel_question_is_up() {
        let v = serde_json::json!({"type": "object", "properties": {"n": {"type": "string"}}});
        let schema =
            crate::binding::form_schema::parse_form_schema(&v, "/requestedSchema").expect("schema");
        let mut f = FormScreen::new(header(), &schema, "m");
        assert!(!f.esc_discards(), "untouched");
        assert_eq!(decided(f.key(&Key::Char('a'))), None);
        assert!(!f.esc_discards(), "typed, nothing asked");
        assert_eq!(decided(f.key(&Key::Esc)), None);
        assert!(f.esc_discards(), "the cancel question");
        assert_eq!(decided(f.key(&Key::Char('q'))), None);
        assert!(!f.esc_discards(), "back to the form");
        // The decline question: Esc there asks about cancel, loses nothing.
        assert_eq!(decided(f.key(&Key::Ctrl('x'))), None);
        assert_eq!(decided(f.key(&Key::Ctrl('d'))), None);
        assert_eq!(f.form.confirming(), Some(Action::Decline));
        assert!(!f.esc_discards(), "the decline question");
    }

    /// A form of 40 text fields with defaults, on its review step (taller
    /// than 80x24).
    fn long_review() -> FormScreen {
        let mut props = serde_json::Map::new();
        for i in 0..40 {
            props.insert(
                format!("f{i:02}"),
                serde_json::json!({"type": "string", "default": "x"}),
            );
        }
        let v = serde_json::json!({"type": "object", "properties": props});
        let schema =
            crate::binding::form_schema::parse_form_schema(&v, "/requestedSchema").expect("schema");
        let mut f = FormScreen::new(header(), &schema, "m");
        assert_eq!(decided(f.key(&Key::Ctrl('s'))), None);
        f
    }

    /// A review taller than the screen: a send key first shows the rest
    /// (nothing is sent that was not on screen), then sends.
    #[test]
    fn a_long_review_is_read_to_its_end_before_it_sends() {
        let mut f = long_review();
        assert_eq!(f.stage(), 1, "the review");
        let _ = frame(&mut f, None);
        let mut pages = 0;
        loop {
            match decided(f.key(&Key::Enter)) {
                Some(a) => {
                    assert_eq!(a, Action::Accept);
                    break;
                }
                None => {
                    pages += 1;
                    assert!(pages < 10, "the review ends");
                    let _ = frame(&mut f, None);
                }
            }
        }
        assert!(
            pages >= 2,
            "40 lines of review take more than one page at 80x24"
        );
    }

    /// What the keys do changes, once each time: the question Esc asks on
    /// a changed form (and again after going back), the end of a long
    /// review coming on screen; plain editing and scrolling do not.
    #[test]
    fn a_question_or_the_review_end_changes_what_keys_do() {
        let v = serde_json::json!({
            "type": "object", "properties": {"note": {"type": "string"}}
        });
        let schema =
            crate::binding::form_schema::parse_form_schema(&v, "/requestedSchema").expect("schema");
        let mut f = FormScreen::new(header(), &schema, "m");
        let _ = frame(&mut f, None);
        assert!(!f.keys_changed(), "the first frame");
        assert_eq!(decided(f.key(&Key::Char('a'))), None);
        let _ = frame(&mut f, None);
        assert!(!f.keys_changed(), "typing");
        assert_eq!(decided(f.key(&Key::Esc)), None);
        let _ = frame(&mut f, None);
        assert!(f.keys_changed(), "the discard question");
        let _ = frame(&mut f, None);
        assert!(!f.keys_changed(), "said once");
        assert_eq!(decided(f.key(&Key::Char('q'))), None, "back");
        let _ = frame(&mut f, None);
        assert!(!f.keys_changed());
        assert_eq!(decided(f.key(&Key::Esc)), None);
        let _ = frame(&mut f, None);
        assert!(f.keys_changed(), "asked again");
        // Another question in its place (the screen's own decline-all).
        assert!(f.ask_to_confirm(Action::Decline, "Q?".into(), "keys".into()));
        let _ = frame(&mut f, None);
        assert!(f.keys_changed(), "another question");

        let mut r = long_review();
        let _ = frame(&mut r, None);
        let mut changes = 0;
        while !r.review_end_seen {
            assert!(!r.keys_changed(), "a page before the end");
            assert_eq!(decided(r.key(&Key::Enter)), None);
            let _ = frame(&mut r, None);
            changes += usize::from(r.keys_changed());
        }
        assert_eq!(changes, 1, "the end came on screen");
        assert_eq!(decided(r.key(&Key::PageUp)), None);
        let _ = frame(&mut r, None);
        assert!(!r.keys_changed(), "scrolling back up");
    }

    /// The URL screen: a scroll shows other rows, so `o` waits again; a
    /// frame with nothing new does not.
    #[test]
    fn a_scroll_of_the_url_screen_changes_what_keys_do() {
        let url = format!("https://auth.example.com/cb?s={}", "s".repeat(3000));
        let state = UrlViewState::new(crate::url_review::review(&url), "m", "srv", "a", "");
        let mut s = UrlScreen::new(state, Box::new(Rec(Arc::default())), false);
        let _ = frame(&mut s, None);
        assert!(!s.keys_changed(), "the first frame");
        let _ = frame(&mut s, None);
        assert!(!s.keys_changed(), "the same rows");
        assert_eq!(decided(s.key(&Key::PageDown)), None);
        let _ = frame(&mut s, None);
        assert!(s.keys_changed(), "other rows");
        assert_eq!(decided(s.key(&Key::Tab)), None);
        let _ = frame(&mut s, None);
        assert!(!s.keys_changed(), "a focus move shows the same rows");
    }

    /// The last row of `screen` drawn at 80x24.
    fn help_row(screen: &mut dyn Screen) -> String {
        let mut t = Terminal::new(TestBackend::new(80, 24)).expect("terminal");
        let theme = Theme::monochrome();
        t.draw(|f| {
            screen.draw(f, &theme, None);
        })
        .expect("draw");
        let buf = t.backend().buffer();
        let row: String = (0..80).map(|x| buf[(x, 23)].symbol().to_owned()).collect();
        row.trim_end().to_owned()
    }

    /// The help line names the keys of what has the focus: Ctrl-X clears
    /// a field, so it is named on a field and not on a button.
    #[test]
    fn the_help_line_offers_clear_on_a_field_and_not_on_a_button() {
        let v = serde_json::json!({
            "type": "object", "properties": {"seats": {"type": "integer"}}
        });
        let schema =
            crate::binding::form_schema::parse_form_schema(&v, "/requestedSchema").expect("schema");
        let mut f = FormScreen::new(header(), &schema, "m");
        let on_field = help_row(&mut f);
        assert!(on_field.contains("^X clear"), "{on_field}");
        assert_eq!(decided(f.key(&Key::Tab)), None);
        let on_button = help_row(&mut f);
        assert!(on_button.contains("Enter press"), "{on_button}");
        assert!(!on_button.contains("clear"), "{on_button}");
    }

    /// The help line of a long review says what Enter does now: the next
    /// page until the end was on screen, then send.
    #[test]
    fn a_long_review_help_says_enter_shows_the_next_page_until_the_end() {
        let mut f = long_review();
        assert_eq!(help_row(&mut f), view::HELP_REVIEW_MORE);
        let mut pages = 0;
        while !f.review_end_seen {
            assert_eq!(decided(f.key(&Key::Enter)), None);
            pages += 1;
            assert!(pages < 10, "the review ends");
            let _ = help_row(&mut f);
        }
        assert_eq!(help_row(&mut f), crate::form::HELP_REVIEW);
        // Scrolled back up, Enter sends now, and the help says so.
        let _ = f.key(&Key::PageUp);
        assert_eq!(help_row(&mut f), crate::form::HELP_REVIEW);
        let mut short = FormScreen::new(header(), &schema_of_one(), "m");
        assert_eq!(decided(short.key(&Key::Ctrl('s'))), None);
        assert_eq!(help_row(&mut short), crate::form::HELP_REVIEW);
    }

    fn schema_of_one() -> crate::binding::FormSchema {
        let v = serde_json::json!({
            "type": "object", "properties": {"note": {"type": "string", "default": "x"}}
        });
        crate::binding::form_schema::parse_form_schema(&v, "/requestedSchema").expect("schema")
    }

    /// `screen`'s first frame at `w`x`h`, as text rows.
    fn rows_at(screen: &mut dyn Screen, w: u16, h: u16) -> Vec<String> {
        let mut t = Terminal::new(TestBackend::new(w, h)).expect("terminal");
        let theme = Theme::monochrome();
        t.draw(|f| {
            screen.draw(f, &theme, None);
        })
        .expect("draw");
        let buf = t.backend().buffer();
        (0..h)
            .map(|y| (0..w).map(|x| buf[(x, y)].symbol()).collect::<String>())
            .collect()
    }

    /// The first row of `screen` drawn at `w`x10 with `left` seconds left
    /// and `extend` seconds on the extend key.
    fn top_at(screen: &mut dyn Screen, w: u16, left: u64, extend: u64) -> String {
        let mut t = Terminal::new(TestBackend::new(w, 10)).expect("terminal");
        let theme = Theme::monochrome();
        t.draw(|f| {
            screen.draw(f, &theme, Some(Clock { left, extend }));
        })
        .expect("draw");
        let buf = t.backend().buffer();
        let top: String = (0..w).map(|x| buf[(x, 0)].symbol()).collect();
        top.trim_end().to_owned()
    }

    /// A long limit is shown in hours and minutes, and a narrow header
    /// shortens its counts so the server's name stays before them.
    #[test]
    fn a_narrow_header_keeps_the_server_name_and_long_times_read_as_hours() {
        let lines = vec![("Why.".to_owned(), true)];
        let mut wide = RefusableScreen::new(header(), lines.clone());
        assert_eq!(
            top_at(&mut wide, 80, 7199, 7200),
            format!(
                "srv{}request 1 of 1 · 1h59m left · Ctrl-T +2h00m",
                " ".repeat(34)
            )
        );
        let mut h = header();
        h.server_name = "weather-server".into();
        let mut narrow = RefusableScreen::new(h.clone(), lines.clone());
        assert_eq!(
            top_at(&mut narrow, 40, 42, 60),
            format!("weather-server{}1/1 · 42s left", " ".repeat(12))
        );
        let mut narrow = RefusableScreen::new(h, lines);
        assert_eq!(
            top_at(&mut narrow, 40, 8_639_999, 8_640_000),
            format!("weather-server{}1/1 · 99d23h left", " ".repeat(9))
        );
    }

    /// Whether a row is the focused input box (`[` ... `]`).
    fn has_input_box(rows: &[String]) -> bool {
        rows.iter()
            .any(|r| r.starts_with("    [") && r.trim_end().ends_with(']'))
    }

    /// The demo at 40x10: the first frame (and the first after a resize to
    /// 40x10) shows the focused input box, not only its label.
    #[test]
    fn the_first_frame_at_40x10_shows_the_focused_input() {
        let req = crate::demo::demo_request().expect("demo");
        let RequestView::Body(r) = &req.view else {
            panic!("a body")
        };
        let RequestBody::Form(schema) = &r.body else {
            panic!("a form")
        };
        let mut f = FormScreen::new(header(), schema, &r.message);
        let rows = rows_at(&mut f, 40, 10);
        assert!(has_input_box(&rows), "{}", rows.join("\n"));
        let mut g = FormScreen::new(header(), schema, &r.message);
        let big = rows_at(&mut g, 100, 40);
        let first_words: String = r
            .message
            .split_whitespace()
            .take(3)
            .collect::<Vec<_>>()
            .join(" ");
        assert!(
            big.iter().any(|l| l.contains(&first_words)),
            "{}",
            big.join("\n")
        );
        let small = rows_at(&mut g, 40, 10);
        assert!(
            has_input_box(&small),
            "after a resize:\n{}",
            small.join("\n")
        );
    }

    /// A 3,000-character description above the focused input: the first
    /// frame at 100x30 cuts the description rather than the input.
    #[test]
    fn a_long_description_does_not_push_the_input_off_the_first_frame() {
        let desc = "word ".repeat(600);
        let v = serde_json::json!({"type": "object", "properties": {
            "name": {"type": "string", "title": "Name", "description": desc}}});
        let schema =
            crate::binding::form_schema::parse_form_schema(&v, "/requestedSchema").expect("schema");
        let mut f = FormScreen::new(header(), &schema, "Who are you?");
        let rows = rows_at(&mut f, 100, 30);
        assert!(has_input_box(&rows), "{}", rows.join("\n"));
        assert!(
            rows.iter().any(|r| r.contains("more above")),
            "{}",
            rows.join("\n")
        );
    }

    #[test]
    fn the_withdrawal_notice_shows_the_server_reason_sanitised() {
        let mut t = Terminal::new(TestBackend::new(80, 12)).expect("terminal");
        let reason = "user closed\u{1b}[2J the tab";
        t.draw(|f| view::draw_withdrawn_because(f, &Theme::monochrome(), Some(reason)))
            .expect("draw");
        let buf = t.backend().buffer();
        let rows: Vec<String> = (0..12)
            .map(|y| (0..80).map(|x| buf[(x, y)].symbol()).collect::<String>())
            .collect();
        let text = rows.join("\n");
        assert!(text.contains(view::WITHDRAWN_NOTICE), "{text}");
        assert!(
            text.contains("The server's reason (its words): user closed\\u{1b}[2J the tab"),
            "{text}"
        );
        let mut t = Terminal::new(TestBackend::new(80, 12)).expect("terminal");
        t.draw(|f| view::draw_withdrawn_because(f, &Theme::monochrome(), None))
            .expect("draw");
        assert!(!format!("{}", t.backend()).contains("reason"));
    }

    #[test]
    fn the_withdrawal_notice_wraps_at_40_columns() {
        let mut t = Terminal::new(TestBackend::new(40, 12)).expect("terminal");
        t.draw(|f| view::draw_withdrawn(f, &Theme::monochrome()))
            .expect("draw");
        let buf = t.backend().buffer();
        let text: String = (0..12)
            .flat_map(|y| (0..40).map(move |x| (x, y)))
            .map(|p| buf[p].symbol().to_owned())
            .collect();
        let squashed: String = text.split_whitespace().collect();
        assert!(
            squashed.contains("Theserverwithdrewthisrequest.Nothingwassent."),
            "{text}"
        );
        assert!(squashed.contains("Pressanykeytocontinue."), "{text}");
    }

    #[test]
    fn refusable_screen_declines_or_cancels_only() {
        let lines = vec![("Why.".to_owned(), true)];
        let mut s = RefusableScreen::new(header(), lines.clone());
        assert_eq!(decided(s.key(&Key::Enter)), Some(Action::Decline));
        assert_eq!(decided(s.key(&Key::Tab)), None);
        assert_eq!(decided(s.key(&Key::Char(' '))), Some(Action::Cancel));
        let mut s = RefusableScreen::new(header(), lines);
        assert_eq!(decided(s.key(&Key::Char('a'))), None);
        assert_eq!(decided(s.key(&Key::Down)), None);
        assert_eq!(decided(s.key(&Key::Ctrl('d'))), Some(Action::Decline));
        assert_eq!(decided(s.key(&Key::Esc)), Some(Action::Cancel));
        let (top, whole) = frame(&mut s, Some(7));
        assert!(whole);
        assert!(
            top.ends_with("request 1 of 1 · 7s left · Ctrl-T +30s"),
            "{top:?}"
        );
    }

    /// Records each URL it is asked to open.
    struct Rec(Arc<Mutex<Vec<String>>>);
    impl Launcher for Rec {
        fn open(&mut self, url: &str) -> Result<(), crate::launcher::LaunchError> {
            self.0.lock().unwrap().push(url.to_owned());
            Ok(())
        }
    }

    #[test]
    fn url_screen_opens_only_after_a_frame_showed_the_url() {
        let t0 = Instant::now();
        let opened = Arc::new(Mutex::new(Vec::new()));
        let url = "https://auth.example.com/cb";
        let mut s = url_screen(url, Rec(opened.clone()), false, t0);
        assert_eq!(s.grace(), CONSENT_GUARD);
        // Before any frame the URL was not read: `o` opens nothing, however
        // long the screen waited.
        at(&mut s, t0 + CONSENT_GUARD * 10);
        assert_eq!(decided(s.key(&Key::Char('o'))), None);
        at(&mut s, t0);
        let (top, whole) = frame(&mut s, Some(42));
        assert!(whole);
        assert_eq!(top, "Open a web page? · 42s left · Ctrl-T +30s");
        // Within the grace period of that frame the machine takes no
        // consent, whatever the key guard let through.
        at(&mut s, t0 + CONSENT_GUARD - Duration::from_millis(1));
        assert_eq!(decided(s.key(&Key::Char('o'))), None);
        assert!(opened.lock().unwrap().is_empty());
        at(&mut s, t0 + CONSENT_GUARD);
        // The translated key type reaches the view: Alt-Space presses the
        // focused button (Decline), as Space does.
        let mut d = UrlScreen::new(
            UrlViewState::new(crate::url_review::review(url), "m", "srv", "a", ""),
            Box::new(Rec(opened.clone())),
            false,
        );
        assert_eq!(decided(d.key(&Key::Alt(' '))), Some(Action::Decline));
        assert_eq!(decided(s.key(&Key::Char('o'))), Some(Action::Accept));
        assert_eq!(*opened.lock().unwrap(), vec![url.to_owned()]);
    }

    /// A frame too small for any screen (the front end's own message)
    /// hides the URL: consent waits a grace period from the frame that
    /// shows it whole again, however long ago it was first read.
    #[test]
    fn url_screen_counts_again_after_a_too_small_frame() {
        let t0 = Instant::now();
        let opened = Arc::new(Mutex::new(Vec::new()));
        let url = "https://auth.example.com/cb";
        let mut s = url_screen(url, Rec(opened.clone()), false, t0);
        assert!(frame(&mut s, None).1);
        let back = t0 + CONSENT_GUARD * 10;
        at(&mut s, back);
        let small = rows_at(&mut s, view::MIN_WIDTH - 1, view::MIN_HEIGHT);
        assert!(small.join("").contains("small"), "{small:?}");
        assert!(frame(&mut s, None).1);
        assert_eq!(decided(s.key(&Key::Char('o'))), None);
        at(&mut s, back + CONSENT_GUARD);
        assert_eq!(decided(s.key(&Key::Char('o'))), Some(Action::Accept));
        assert_eq!(*opened.lock().unwrap(), vec![url.to_owned()]);
    }

    /// Every row of `screen` drawn at 80x24, joined by line ends.
    fn rows(screen: &mut dyn Screen) -> String {
        let mut t = Terminal::new(TestBackend::new(80, 24)).expect("terminal");
        let theme = Theme::monochrome();
        t.draw(|f| {
            screen.draw(f, &theme, None);
        })
        .expect("draw");
        let buf = t.backend().buffer();
        (0..24)
            .map(|y| (0..80).map(|x| buf[(x, y)].symbol()).collect::<String>())
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// The browser is started only for a request whose answer the screen
    /// could claim: `o` read after a withdrawal opens nothing (the step ends
    /// the screen, and the loop says the withdrawal); `o` on an open request
    /// claims it first, so a withdrawal after the launch cannot leave an
    /// opened page without its `accept`.
    #[test]
    fn url_screen_claims_the_answer_before_it_opens_the_browser() {
        let url = "https://auth.example.com/cb";
        let t0 = Instant::now();
        // Shown whole at `t0`, read for the grace period.
        let screen = |opened: &Arc<Mutex<Vec<String>>>, w: &Withdrawal| {
            let mut s = url_screen(url, Rec(opened.clone()), false, t0).with_claim(Some(w.clone()));
            let _ = frame(&mut s, None);
            at(&mut s, t0 + CONSENT_GUARD);
            s
        };
        let opened = Arc::new(Mutex::new(Vec::new()));
        let w = Withdrawal::new();
        let mut s = screen(&opened, &w);
        assert!(w.withdraw());
        assert_eq!(decided(s.key(&Key::Char('o'))), Some(Action::Cancel));
        assert!(
            opened.lock().unwrap().is_empty(),
            "nothing opened: {opened:?}"
        );
        let w = Withdrawal::new();
        let mut s = screen(&opened, &w);
        assert_eq!(decided(s.key(&Key::Char('o'))), Some(Action::Accept));
        assert_eq!(*opened.lock().unwrap(), vec![url.to_owned()]);
        assert!(!w.withdraw(), "the answer was claimed before the launch");
    }

    /// The call that asked has finished: the URL screen says so in its
    /// pinned block, as the form says it in its header.
    #[test]
    fn url_screen_shows_that_the_call_finished() {
        let url = "https://auth.example.com/cb";
        let state = UrlViewState::new(crate::url_review::review(url), "m", "srv", "a", "");
        let mut s = UrlScreen::new(state, Box::new(Rec(Arc::default())), false);
        assert!(!squash(&rows(&mut s)).contains("mayno"));
        s.put_banner(crate::responder::CALL_FINISHED_BANNER.to_owned());
        let shown = squash(&rows(&mut s));
        assert!(
            shown.contains(&squash(crate::responder::CALL_FINISHED_BANNER)),
            "{shown}"
        );
    }

    /// `text` without whitespace (rows wrap).
    fn squash(text: &str) -> String {
        text.chars().filter(|c| !c.is_whitespace()).collect()
    }
}
