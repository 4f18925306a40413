//! The form model: one field state per property of a validated
//! `requestedSchema`, edited by a pure key → [`KeyIntent`] → state machine, and
//! turned into the `content` of an accepted answer. No drawing and no
//! terminal here (layering rule: `binding ← form ← {tui, plain, scripted}`); the
//! `tui` module draws a [`Form`] and feeds it [`Key`]s, the scripted
//! responder sets values and submits through the same machine.
//!
//! Rules:
//! - defaults are pre-filled (including `0`, `false`, `""`), editable and
//!   clearable (Ctrl-X leaves a field out of `content`);
//! - an untouched optional field without a default is left out of `content`;
//! - each field is checked live with the binding's rules
//!   (the binding's runtime checks); its message is shown once
//!   the field is left, or for every field on a submit attempt;
//! - Submit is refused while anything is invalid; otherwise a review step
//!   shows the exact content, from which the person sends or goes back;
//! - Decline (the button, or Ctrl-D outside a non-empty text or number
//!   field, where Ctrl-D deletes the character under the cursor) sends
//!   `decline`; Esc, Ctrl-C and the Cancel button send `cancel`; once the
//!   person has typed or chosen anything, a decline or cancel first asks to
//!   confirm (the same key again, or `y`; any other key goes back to the
//!   form), so one stray key never throws answers away.
//! - a form of a call's arguments ([`Form::for_arguments`], trying a server
//!   by hand) is no answer: its buttons are Call and Back, nothing is
//!   declined, and its notices say so.

internals! {
    pub(crate) mod entered;
    pub(crate) mod field;
    pub(crate) mod key;
    pub(crate) mod secret;
}
// `cargo fmt` reaches the modules of `internals!` through this list
// (see src/lib.rs).
#[cfg(any())]
#[path = "."]
mod for_cargo_fmt {
    mod entered;
    mod field;
    mod key;
    mod secret;
}

use serde_json::{Map, Value};

use crate::binding::{Action, Answer, FieldKind, FormSchema};

pub use field::{EntryError, FieldState, FieldValue, NumberError, OptionList, FILTER_MIN_OPTIONS};
pub use key::{Key, KeyIntent, CONFIRM_KEY, HELP_EDIT, HELP_REVIEW, HELP_REVIEW_ARGUMENTS};
/// The text-editing state of a text, number or filter field and the edits
/// a key makes to it, from the `tui-input` crate (0.15): a field's
/// [`FieldValue`] holds one, a [`KeyIntent`] carries the other.
pub use tui_input::{Input, InputRequest};

/// Why [`Form::set_json`] could not set a field. Names are server text:
/// sanitise before showing.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FormEntryError {
    /// No field of the form has this name.
    #[error("'{0}' is not a field of the form")]
    NoSuchField(String),
    /// The field refused the value.
    #[error("'{name}': {error}")]
    Field {
        /// The field's name.
        name: String,
        /// Why the value does not fit the widget.
        error: EntryError,
    },
}

/// The buttons below the fields, in focus order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Button {
    Submit,
    Decline,
    Cancel,
}

/// All buttons in focus order.
pub const BUTTONS: [Button; 3] = [Button::Submit, Button::Decline, Button::Cancel];

/// The buttons of a form of arguments ([`Form::for_arguments`]), in focus
/// order: there is nothing to decline.
pub const ARGUMENT_BUTTONS: [Button; 2] = [Button::Submit, Button::Cancel];

impl Button {
    /// The button's caption.
    pub fn label(self) -> &'static str {
        match self {
            Button::Submit => "Submit",
            Button::Decline => "Decline",
            Button::Cancel => "Cancel",
        }
    }
}

/// What has the focus.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Focus {
    /// The field at this index (schema order).
    Field(usize),
    Button(Button),
}

/// The two steps of a form.
#[derive(Debug, Clone, PartialEq)]
pub enum Stage {
    /// Filling in fields.
    Edit,
    /// Reviewing the exact `content` to send.
    Review(Map<String, Value>),
}

/// How the form ended, or that it goes on.
#[derive(Debug, Clone, PartialEq)]
pub enum Status {
    /// Still open.
    Open,
    /// Finished with this answer (accept with content, decline, or cancel).
    Done(Answer),
}

/// A form being filled in.
#[derive(Debug, Clone)]
pub struct Form {
    /// The request's message, as given (sanitise before drawing).
    pub message: String,
    /// Whether the message is ahp-elicit's own (a tool's arguments asked
    /// as a form), drawn as ours; else it is the server's, framed as its
    /// words.
    pub message_is_ours: bool,
    /// Ctrl-O edits the whole content as JSON (a tool's arguments), not
    /// the focused field: the key help says so. Set by the front end.
    pub editor_takes_all: bool,
    /// The form asks the arguments of a call (trying a server by hand),
    /// not an answer for a server: its buttons are Call and Back (nothing
    /// is declined; Ctrl-D declines nothing), and its notices and
    /// questions say call and back ([`Form::button_label`],
    /// [`ARGUMENT_BUTTONS`]). Set by the front end.
    pub for_arguments: bool,
    /// On a form of arguments: the properties it cannot draw, asked as
    /// JSON after it (unsanitised). When there are any, the review says
    /// so and its button is Next: the call is made after them.
    pub arguments_left_out: Vec<String>,
    /// Keywords of the requested schema ignored for drawing (compatible
    /// schema policy; pointers, sanitise before drawing).
    pub outside_subset: Vec<String>,
    /// The schema's own title and description when they were ignored for
    /// drawing ([`FormSchema::title`], unsanitized).
    pub outside_text: (Option<String>, Option<String>),
    fields: Vec<FieldState>,
    focus: Focus,
    stage: Stage,
    /// A one-line notice for the person (e.g. why Submit was refused).
    notice: Option<String>,
    /// The notice is about the focused field (a refused key or paste, a
    /// refused check): the screen shows it beside that field.
    notice_at_field: bool,
    /// The fields that look like they ask for a secret (first hits).
    secrets: Vec<secret::SecretHit>,
    /// A decline or cancel waits for confirmation (the person changed the
    /// form): the action it will send.
    confirm: Option<Action>,
    /// The keys that answer the waiting confirmation when a front end
    /// asked it with its own words ([`Form::ask_to_confirm`]); None: the
    /// form's own ([`discard_keys`]).
    confirm_keys: Option<String>,
}

impl Form {
    /// Build the form for a validated schema and its message; focus on the
    /// first field (or Submit when there are no fields).
    pub fn new(schema: &FormSchema, message: &str) -> Self {
        let fields: Vec<FieldState> = schema.fields.iter().cloned().map(FieldState::new).collect();
        let secrets: Vec<secret::SecretHit> = schema
            .fields
            .iter()
            .filter_map(secret::field_secret)
            .collect();
        let focus = if fields.is_empty() {
            Focus::Button(Button::Submit)
        } else {
            Focus::Field(0)
        };
        Form {
            message: message.to_owned(),
            message_is_ours: false,
            editor_takes_all: false,
            for_arguments: false,
            arguments_left_out: Vec::new(),
            outside_subset: schema.outside_subset.clone(),
            outside_text: (schema.title.clone(), schema.description.clone()),
            fields,
            focus,
            stage: Stage::Edit,
            notice: None,
            notice_at_field: false,
            secrets,
            confirm: None,
            confirm_keys: None,
        }
    }

    /// Whether the person has typed or chosen anything (a field edited,
    /// set or cleared, or the review reached): a decline or cancel then
    /// asks to confirm.
    pub fn changed(&self) -> bool {
        matches!(self.stage, Stage::Review(_)) || self.fields.iter().any(|f| f.touched)
    }

    /// The decline or cancel that waits for confirmation, if any (its
    /// question is the form's notice).
    pub fn confirming(&self) -> Option<Action> {
        self.confirm
    }

    /// The keys that answer the waiting confirmation (the help line while
    /// it waits); None when nothing waits.
    pub fn confirm_keys(&self) -> Option<String> {
        let a = self.confirm?;
        let keys = match (&self.confirm_keys, self.for_arguments) {
            (Some(k), _) => k.clone(),
            (None, true) => ARGUMENTS_DISCARD_KEYS.to_owned(),
            (None, false) => discard_keys(a),
        };
        // "Back" is where the person was: the form, or the review.
        Some(match self.stage {
            Stage::Review(_) => keys.replace(BACK_TO_FORM, "back to the review"),
            Stage::Edit => keys,
        })
    }

    /// A front end's own discard of a changed form (the screen's "decline
    /// everything else from this server"): ask `question`, answered by
    /// `keys` (the help line), as [`discard_question`] is: `y` then
    /// confirms `a`, any key the form takes calls it off, and the front end
    /// takes its own key again as the confirmation. Returns false, asking
    /// nothing, on an unchanged form (the front end discards at once).
    pub fn ask_to_confirm(&mut self, a: Action, question: String, keys: String) -> bool {
        if !self.changed() {
            return false;
        }
        self.confirm = Some(a);
        self.confirm_keys = Some(keys);
        self.notice_at_field = false;
        self.notice = Some(question);
        true
    }

    /// The buttons below the fields, in focus order ([`BUTTONS`]; a form
    /// of arguments: [`ARGUMENT_BUTTONS`]).
    pub fn buttons(&self) -> &'static [Button] {
        if self.for_arguments {
            &ARGUMENT_BUTTONS
        } else {
            &BUTTONS
        }
    }

    /// The caption of `b` on this form: a form of arguments says Call
    /// (for Submit) and Back (for Cancel: back to the list).
    pub fn button_label(&self, b: Button) -> &'static str {
        match (self.for_arguments, b) {
            (true, Button::Submit) if self.arguments_left_out.is_empty() => "Call",
            (true, Button::Submit) => "Next",
            (true, Button::Cancel) => "Back",
            _ => b.label(),
        }
    }

    /// The fields in schema order.
    pub fn fields(&self) -> &[FieldState] {
        &self.fields
    }

    /// The field named `name`.
    pub fn field(&self, name: &str) -> Option<&FieldState> {
        self.fields.iter().find(|f| f.field.name == name)
    }

    /// What has the focus.
    pub fn focus(&self) -> Focus {
        self.focus
    }

    /// The current step.
    pub fn stage(&self) -> &Stage {
        &self.stage
    }

    /// A notice to show (why Submit was refused, a refused character).
    pub fn notice(&self) -> Option<&str> {
        self.notice.as_deref()
    }

    /// The notice when it is about the focused field (a refused character,
    /// a refused paste, a refused check over `maxItems`): the screen shows it
    /// beside the field, where the person looks.
    pub fn field_notice(&self) -> Option<&str> {
        if self.notice_at_field {
            self.notice.as_deref()
        } else {
            None
        }
    }

    /// Whether some field looks like it asks for a secret: the screen then
    /// warns that servers must use URL mode for secrets.
    pub fn asks_for_secret(&self) -> bool {
        !self.secrets.is_empty()
    }

    /// The warning to show when some field looks like it asks for a secret:
    /// it names the field and the word that matched (server text: sanitise
    /// before drawing), e.g. `field "API token" asks for a "token"`.
    pub fn secret_warning(&self) -> Option<String> {
        let first = self.secrets.first()?;
        let more = match self.secrets.len() {
            1 => String::new(),
            2 => " (and 1 more field)".to_owned(),
            n => format!(" (and {} more fields)", n - 1),
        };
        Some(format!(
            "field \"{}\" asks for a \"{}\"{more}",
            first.field, first.word
        ))
    }

    /// The message to show beside field `i`: its validation message once the
    /// field was left or a submit was attempted.
    pub fn shown_error(&self, i: usize) -> Option<String> {
        let f = self.fields.get(i)?;
        if f.visited {
            f.error()
        } else {
            // A number typed in a form its type cannot take shows at once.
            f.format_error()
        }
    }

    /// The content to send, with every field checked.
    ///
    /// Errors: `(field name, message)` for each field that is invalid or
    /// required and not set.
    pub fn content(&self) -> Result<Map<String, Value>, Vec<(String, String)>> {
        let mut out = Map::new();
        let mut errs = Vec::new();
        for f in &self.fields {
            if let Some(e) = f.error() {
                errs.push((f.field.name.clone(), e));
                continue;
            }
            if let Ok(Some(v)) = f.json() {
                out.insert(f.field.name.clone(), v);
            }
        }
        if errs.is_empty() {
            Ok(out)
        } else {
            Err(errs)
        }
    }

    /// Every value entered so far, checked or not, as each field would send
    /// it ([`FieldState::entered`]); fields not set are left out. For
    /// editing the whole content elsewhere: nothing typed is lost.
    pub fn entered(&self) -> Map<String, Value> {
        self.fields
            .iter()
            .filter_map(|f| f.entered().map(|v| (f.field.name.clone(), v)))
            .collect()
    }

    /// Whether a field that looks like it asks for a secret holds a
    /// value (nothing of it may be written to a file).
    pub fn secret_entered(&self) -> bool {
        self.fields
            .iter()
            .any(|f| secret::field_secret(&f.field).is_some() && f.entered().is_some())
    }

    /// Set a field's value from JSON as a person would;
    /// `null` clears it.
    ///
    /// Errors: [`FormEntryError`] (`'<name>' is not a field of the form`,
    /// or `'<name>': ` and why the value does not fit the widget).
    pub fn set_json(&mut self, name: &str, v: &Value) -> Result<(), FormEntryError> {
        let Some(f) = self.fields.iter_mut().find(|f| f.field.name == name) else {
            return Err(FormEntryError::NoSuchField(name.to_owned()));
        };
        f.set_json(v).map_err(|error| FormEntryError::Field {
            name: name.to_owned(),
            error,
        })
    }

    fn focused_field(&self) -> Option<&FieldState> {
        match self.focus {
            Focus::Field(i) => self.fields.get(i),
            Focus::Button(_) => None,
        }
    }

    /// What a key means in the current state (no state change).
    pub fn intent_for(&self, key: &Key) -> KeyIntent {
        use key::edit_request;
        // A discard waiting for confirmation: the same key again or `y`
        // confirms, any other key calls it off.
        if let Some(a) = self.confirm {
            return confirming_intent(key, a);
        }
        // Keys that mean the same everywhere (Ctrl-D deletes the character
        // under the cursor in a non-empty text or number field, the Emacs
        // meaning its neighbours Ctrl-A/E/K have).
        match key {
            Key::Esc | Key::Ctrl('c') => return KeyIntent::Cancel,
            Key::Ctrl('d') if self.stage == Stage::Edit && self.focused_has_text() => {
                return KeyIntent::Edit(tui_input::InputRequest::DeleteNextChar)
            }
            // A form of arguments has nothing to decline.
            Key::Ctrl('d') if self.for_arguments => return KeyIntent::None,
            Key::Ctrl('d') => return KeyIntent::Decline,
            _ => {}
        }
        if let Stage::Review(_) = self.stage {
            return match key {
                Key::Enter | Key::Ctrl('s') | Key::Char('y') => KeyIntent::Send,
                Key::Char('b') | Key::Backspace | Key::BackTab | Key::Left => KeyIntent::Back,
                _ => KeyIntent::None,
            };
        }
        match key {
            Key::Tab => return KeyIntent::Next,
            Key::BackTab => return KeyIntent::Prev,
            Key::Ctrl('s') => return KeyIntent::Submit,
            Key::Ctrl('x') => {
                return if self.focused_field().is_some() {
                    KeyIntent::Clear
                } else {
                    KeyIntent::None
                }
            }
            _ => {}
        }
        let Some(f) = self.focused_field() else {
            // A button.
            return match key {
                Key::Enter | Key::Char(' ') => KeyIntent::Press,
                Key::Down | Key::Right => KeyIntent::Next,
                Key::Up | Key::Left => KeyIntent::Prev,
                _ => KeyIntent::None,
            };
        };
        match &f.value {
            FieldValue::Text { .. } | FieldValue::Number { .. } => match key {
                Key::Enter | Key::Down => KeyIntent::Next,
                Key::Up => KeyIntent::Prev,
                Key::Paste(t) => KeyIntent::Insert(t.clone()),
                k => edit_request(k)
                    .map(KeyIntent::Edit)
                    .unwrap_or(KeyIntent::None),
            },
            FieldValue::Boolean(_) => match key {
                Key::Char(' ') => KeyIntent::Toggle,
                Key::Char('y') | Key::Char('Y') | Key::Right => KeyIntent::SetBool(true),
                Key::Char('n') | Key::Char('N') | Key::Left => KeyIntent::SetBool(false),
                Key::Enter | Key::Down => KeyIntent::Next,
                Key::Up => KeyIntent::Prev,
                _ => KeyIntent::None,
            },
            FieldValue::Single { list, .. } | FieldValue::Multi { list, .. } => {
                let filtering = list.filterable && !list.filter.value().is_empty();
                match key {
                    Key::Up => KeyIntent::Move(-1),
                    Key::Down => KeyIntent::Move(1),
                    Key::PageUp => KeyIntent::Move(-10),
                    Key::PageDown => KeyIntent::Move(10),
                    // Home/End go to the first/last option, filtered or not
                    // (docs/keys.md).
                    Key::Home => KeyIntent::First,
                    Key::End => KeyIntent::Last,
                    Key::Enter => KeyIntent::Toggle,
                    Key::Char(' ') if !filtering => KeyIntent::Toggle,
                    Key::Paste(t) if list.filterable => KeyIntent::Insert(t.clone()),
                    // The filter is always edited at its end: only typing
                    // and deleting backwards, no cursor moves.
                    k if list.filterable => match edit_request(k) {
                        Some(
                            r @ (tui_input::InputRequest::InsertChar(_)
                            | tui_input::InputRequest::DeletePrevChar
                            | tui_input::InputRequest::DeletePrevWord
                            | tui_input::InputRequest::DeleteFromStart),
                        ) => KeyIntent::Filter(r),
                        _ => KeyIntent::None,
                    },
                    _ => KeyIntent::None,
                }
            }
        }
    }

    /// Show `note` as the form's notice until the next key (server text in
    /// it must be sanitised by the caller before drawing: the screen does).
    pub fn set_notice(&mut self, note: String) {
        self.notice = Some(note);
        self.notice_at_field = false;
    }

    /// Whether the focused field looks like it asks for a secret (its
    /// name, title or description): the outside
    /// editor is not offered for it, so nothing of it is written to a file.
    pub fn focused_is_secret(&self) -> bool {
        self.focused_field()
            .is_some_and(|f| secret::field_secret(&f.field).is_some())
    }

    /// The focused text field's name and value, for editing it in an
    /// external editor (None on anything but a text field, or in review).
    pub fn focused_text(&self) -> Option<(String, String)> {
        if self.stage != Stage::Edit {
            return None;
        }
        let f = self.focused_field()?;
        match &f.value {
            FieldValue::Text { input, .. } => {
                Some((f.field.name.clone(), input.value().to_owned()))
            }
            _ => None,
        }
    }

    /// Whether the focus is on a text or number field that holds text.
    fn focused_has_text(&self) -> bool {
        match self.focused_field().map(|f| &f.value) {
            Some(FieldValue::Text { input, .. } | FieldValue::Number { input, .. }) => {
                !input.value().is_empty()
            }
            _ => false,
        }
    }

    /// Handle one key: map it to an intent and apply it.
    pub fn handle_key(&mut self, key: &Key) -> Status {
        let a = self.intent_for(key);
        self.apply(a)
    }

    /// Apply a key intent; returns [`Status::Done`] when the form is finished.
    pub fn apply(&mut self, intent: KeyIntent) -> Status {
        if !matches!(intent, KeyIntent::None) {
            self.notice = None;
            // Any key the form takes ends a wait for confirmation; a second
            // decline or cancel finds it in `confirming`.
            let confirming = self.confirm.take();
            self.confirm_keys = None;
            if let KeyIntent::Cancel | KeyIntent::Decline = intent {
                return self.discard(intent == KeyIntent::Cancel, confirming);
            }
            // Only keys that edit the focused field give a field notice.
            self.notice_at_field = matches!(
                intent,
                KeyIntent::Edit(_) | KeyIntent::Insert(_) | KeyIntent::Toggle
            );
        }
        match intent {
            KeyIntent::None | KeyIntent::KeepEditing => {}
            KeyIntent::Cancel => return self.discard(true, None),
            KeyIntent::Decline => return self.discard(false, None),
            KeyIntent::Next => self.move_focus(1),
            KeyIntent::Prev => self.move_focus(-1),
            KeyIntent::Submit => self.submit(),
            KeyIntent::Send => {
                if let Stage::Review(c) = &self.stage {
                    return Status::Done(Answer {
                        action: Action::Accept,
                        content: Some(c.clone()),
                    });
                }
            }
            KeyIntent::Back => self.stage = Stage::Edit,
            KeyIntent::Press => return self.press(),
            KeyIntent::Clear => {
                if let Some(f) = self.focused_mut() {
                    f.clear();
                }
            }
            KeyIntent::Edit(r) => {
                if let Some(f) = self.focused_mut() {
                    let n = f.edit(r);
                    self.notice = n;
                }
            }
            KeyIntent::Insert(t) => self.insert(&t),
            KeyIntent::Filter(r) => self.filter(r),
            KeyIntent::Move(d) => self.move_cursor(d),
            KeyIntent::First => self.cursor_to_end(false),
            KeyIntent::Last => self.cursor_to_end(true),
            KeyIntent::SetBool(b) => {
                if let Some(f) = self.focused_mut() {
                    if let FieldValue::Boolean(v) = &mut f.value {
                        *v = Some(b);
                        f.touched = true;
                    }
                }
            }
            KeyIntent::Toggle => self.toggle(),
        }
        Status::Open
    }

    /// Enter or Space on a button.
    fn press(&mut self) -> Status {
        match self.focus {
            Focus::Button(Button::Submit) => self.submit(),
            Focus::Button(Button::Decline) => return self.discard(false, None),
            Focus::Button(Button::Cancel) => return self.discard(true, None),
            Focus::Field(_) => {}
        }
        Status::Open
    }

    /// Cancel (`cancel`) or decline: at once when the form is unchanged or
    /// this confirms the same discard (`confirming`), else ask to confirm.
    fn discard(&mut self, cancel: bool, confirming: Option<Action>) -> Status {
        let a = if cancel {
            Action::Cancel
        } else {
            Action::Decline
        };
        if !self.changed() || confirming == Some(a) {
            return Status::Done(Answer::bare(a));
        }
        self.confirm = Some(a);
        self.notice_at_field = false;
        self.notice = Some(if self.for_arguments {
            ARGUMENTS_DISCARD_QUESTION.to_owned()
        } else {
            discard_question(a)
        });
        Status::Open
    }

    /// A paste ([`entered::clean_entered`]: no control character): into a
    /// list's filter (line breaks dropped), else into the focused input.
    fn insert(&mut self, t: &str) {
        let Some(f) = self.focused_mut() else {
            return;
        };
        let t = &entered::clean_entered(t);
        match &mut f.value {
            FieldValue::Single { list, .. } | FieldValue::Multi { list, .. } => {
                list.filter.handle(tui_input::InputRequest::GoToEnd);
                for c in t.chars().filter(|c| !c.is_control()) {
                    list.filter.handle(tui_input::InputRequest::InsertChar(c));
                }
                list.refilter(options_of(&f.field.kind));
            }
            _ => {
                let n = f.paste(t);
                self.notice = n;
            }
        }
    }

    /// Edit the focused list's filter, always at its end.
    fn filter(&mut self, r: tui_input::InputRequest) {
        if let Some(f) = self.focused_mut() {
            if let FieldValue::Single { list, .. } | FieldValue::Multi { list, .. } = &mut f.value {
                list.filter.handle(tui_input::InputRequest::GoToEnd);
                if list.filter.handle(r).is_some_and(|c| c.value) {
                    list.refilter(options_of(&f.field.kind));
                }
            }
        }
    }

    /// Move the option cursor by `d` rows; one row past either end of a
    /// list (or on a field that is not a list) moves the focus instead.
    fn move_cursor(&mut self, d: isize) {
        let at_edge = match self.focused_mut().map(|f| &mut f.value) {
            Some(FieldValue::Single { list, .. } | FieldValue::Multi { list, .. }) => {
                !list.move_by(d)
            }
            _ => true,
        };
        if at_edge && d.abs() == 1 {
            self.move_focus(d);
        }
    }

    /// Put the option cursor on the first or (`last`) the last match.
    fn cursor_to_end(&mut self, last: bool) {
        if let Some(FieldValue::Single { list, .. } | FieldValue::Multi { list, .. }) =
            self.focused_mut().map(|f| &mut f.value)
        {
            list.cursor = if last {
                list.matches.len().saturating_sub(1)
            } else {
                0
            };
        }
    }

    fn focused_mut(&mut self) -> Option<&mut FieldState> {
        match self.focus {
            Focus::Field(i) => self.fields.get_mut(i),
            Focus::Button(_) => None,
        }
    }

    fn toggle(&mut self) {
        let mut notice = None;
        if let Some(f) = self.focused_mut() {
            let max = match &f.field.kind {
                FieldKind::Multi { max_items, .. } => *max_items,
                _ => None,
            };
            match &mut f.value {
                FieldValue::Boolean(v) => {
                    *v = Some(!v.unwrap_or(false));
                    f.touched = true;
                }
                FieldValue::Single { selected, list } => {
                    if let Some(c) = list.current() {
                        *selected = Some(c);
                        f.touched = true;
                    }
                }
                FieldValue::Multi { checked, set, list } => {
                    if let Some(c) = list.current() {
                        let n = checked.iter().filter(|x| **x).count() as u64;
                        let on = checked.get(c).copied().unwrap_or(false);
                        if !on && max.is_some_and(|m| n >= m) {
                            notice = Some(format!(
                                "choose at most {}: uncheck one first",
                                max.unwrap_or(0)
                            ));
                        } else if let Some(x) = checked.get_mut(c) {
                            *x = !on;
                            *set = true;
                            f.touched = true;
                        }
                    }
                }
                _ => {}
            }
        }
        if notice.is_some() {
            self.notice = notice;
        }
    }

    /// The focus order: every field, then the buttons.
    fn focus_index(&self) -> usize {
        match self.focus {
            Focus::Field(i) => i,
            Focus::Button(b) => {
                self.fields.len() + self.buttons().iter().position(|x| *x == b).unwrap_or(0)
            }
        }
    }

    fn focus_at(&self, idx: usize) -> Focus {
        if idx < self.fields.len() {
            Focus::Field(idx)
        } else {
            let buttons = self.buttons();
            Focus::Button(buttons[(idx - self.fields.len()).min(buttons.len() - 1)])
        }
    }

    /// Move the focus by `d` steps (wrapping), marking the field left as
    /// visited so its message shows.
    fn move_focus(&mut self, d: isize) {
        if let Focus::Field(i) = self.focus {
            if let Some(f) = self.fields.get_mut(i) {
                f.visited = true;
            }
        }
        let n = (self.fields.len() + self.buttons().len()) as isize;
        let idx = (self.focus_index() as isize + d).rem_euclid(n) as usize;
        self.focus = self.focus_at(idx);
    }

    /// Attempt to submit: on success go to the review step; else mark every
    /// field visited (so each reason shows beside its field), focus the
    /// first invalid field and set a notice.
    fn submit(&mut self) {
        for f in &mut self.fields {
            f.visited = true;
        }
        match self.content() {
            Ok(c) => self.stage = Stage::Review(c),
            Err(errs) => {
                if let Some(i) = self
                    .fields
                    .iter()
                    .position(|f| errs.first().is_some_and(|(n, _)| *n == f.field.name))
                {
                    self.focus = Focus::Field(i);
                }
                let refused = if self.for_arguments {
                    "Not called yet"
                } else {
                    "Submit refused"
                };
                self.notice = Some(match errs.len() {
                    1 => format!("{refused}: 1 field needs attention"),
                    n => format!("{refused}: {n} fields need attention"),
                });
            }
        }
    }
}

/// What `key` means while a discard (`a`) waits for confirmation: the
/// same key again or `y` confirms, any other key calls it off.
fn confirming_intent(key: &Key, a: Action) -> KeyIntent {
    match (key, a) {
        (Key::Esc | Key::Ctrl('c'), _) => KeyIntent::Cancel,
        (Key::Ctrl('d'), Action::Decline) => KeyIntent::Decline,
        (Key::Char(CONFIRM_KEY), Action::Decline) => KeyIntent::Decline,
        (Key::Char(CONFIRM_KEY), _) => KeyIntent::Cancel,
        _ => KeyIntent::KeepEditing,
    }
}

/// The question a changed form asks before it sends `a` (decline or
/// cancel) and throws the answers away (the form's notice while it waits).
pub fn discard_question(a: Action) -> String {
    let verb = match a {
        Action::Decline => "decline",
        _ => "cancel",
    };
    format!("Throw away what you entered and {verb}?")
}

/// The question a changed form of arguments ([`Form::for_arguments`])
/// asks before it goes back to the list.
pub const ARGUMENTS_DISCARD_QUESTION: &str = "Throw away what you entered and go back to the list?";

/// The keys that answer [`ARGUMENTS_DISCARD_QUESTION`].
pub const ARGUMENTS_DISCARD_KEYS: &str =
    "Esc again or y: back to the list · any other key: back to the form";

/// Where any other key than a confirmation goes (the help line's words).
pub const BACK_TO_FORM: &str = "back to the form";

/// The keys that answer [`discard_question`] (the help line while it waits).
pub fn discard_keys(a: Action) -> String {
    let (verb, key) = match a {
        Action::Decline => ("decline", "Ctrl-D"),
        _ => ("cancel", "Esc"),
    };
    format!("{key} again or {CONFIRM_KEY}: {verb} · any other key: {BACK_TO_FORM}")
}

fn options_of(kind: &FieldKind) -> &[crate::binding::Choice] {
    match kind {
        FieldKind::Single { options, .. } | FieldKind::Multi { options, .. } => options,
        _ => &[],
    }
}
