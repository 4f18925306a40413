//! Keys and key intents: the form's input vocabulary, with no terminal
//! type in it (the `tui` module translates crossterm events into [`Key`]).
//!
//! Flow (the split prompt libraries such as inquire use): a [`Key`] is mapped to
//! a [`KeyIntent`] by [`crate::form::Form::intent_for`] (the mapping depends on
//! the focused widget and the stage), then [`crate::form::Form::apply`]
//! changes the state and may finish the form.

use tui_input::InputRequest;

/// One key press (or a bracketed paste) as the form sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Key {
    /// A printable character (Shift already applied).
    Char(char),
    /// Ctrl plus a lowercase letter (`Ctrl('c')` is Ctrl-C).
    Ctrl(char),
    /// Alt plus a character.
    Alt(char),
    Enter,
    Esc,
    Tab,
    BackTab,
    Up,
    Down,
    Left,
    Right,
    /// Ctrl-Left / Ctrl-Right: one word.
    WordLeft,
    WordRight,
    Home,
    End,
    PageUp,
    PageDown,
    Backspace,
    Delete,
    /// A bracketed paste: the pasted text in one piece.
    Paste(String),
}

/// What a key means in the current state. Produced by
/// [`crate::form::Form::intent_for`]; applied by
/// [`crate::form::Form::apply`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KeyIntent {
    /// Nothing to do (an unbound key).
    None,
    /// Move focus to the next field or button (Tab; Enter or Down on a
    /// text, number or boolean field; Down or Right on a button).
    Next,
    /// Move focus to the previous field or button (Shift-Tab; Up on a
    /// text, number or boolean field; Up or Left on a button).
    Prev,
    /// Move the option cursor in a list by this many rows (negative: up;
    /// Up/Down one row, PageUp/PageDown ten).
    Move(isize),
    /// Move the option cursor to the first / last option that matches the
    /// filter (Home / End).
    First,
    Last,
    /// Edit the focused text or number input.
    Edit(InputRequest),
    /// Insert text (a paste) into the focused input or filter.
    Insert(String),
    /// Edit the focused list's filter.
    Filter(InputRequest),
    /// Space on a boolean: flip it. Enter, or Space while no filter is
    /// typed, on an option: select it (single) or check/uncheck it (multi).
    Toggle,
    /// Set the focused boolean to this value (y/Right yes, n/Left no).
    SetBool(bool),
    /// Clear the focused field: it is left out of `content` (Ctrl-X).
    Clear,
    /// Activate the focused button (Enter or Space on a button).
    Press,
    /// Ask to submit (Ctrl-S, or the Submit button): go to the review
    /// step, or refuse with the reasons.
    Submit,
    /// In the review step: send the reviewed content (Enter, Ctrl-S, y).
    Send,
    /// In the review step: go back to editing (b, Backspace, Shift-Tab,
    /// Left).
    Back,
    /// Answer `decline` (Ctrl-D outside a non-empty text or number
    /// field, or the Decline button). In a form the person has changed it
    /// first asks to confirm ([`crate::form::Form::confirming`]).
    Decline,
    /// Answer `cancel` (Esc, Ctrl-C, or the Cancel button); asks to
    /// confirm first in a changed form, as `Decline` does.
    Cancel,
    /// A key other than the confirming one while a discard waits for
    /// confirmation: the discard is called off and the key does nothing
    /// else.
    KeepEditing,
}

/// Map a key to a text-editing request (tui-input), for text, number and
/// filter inputs. None for keys that are not editing keys.
pub fn edit_request(key: &Key) -> Option<InputRequest> {
    use InputRequest::*;
    Some(match key {
        Key::Char(c) => InsertChar(*c),
        // Alt-Enter: a line break in the value.
        Key::Alt('\n') => InsertChar('\n'),
        Key::Backspace | Key::Ctrl('h') => DeletePrevChar,
        Key::Delete => DeleteNextChar,
        Key::Left | Key::Ctrl('b') => GoToPrevChar,
        Key::Right | Key::Ctrl('f') => GoToNextChar,
        Key::WordLeft | Key::Alt('b') => GoToPrevWord,
        Key::WordRight | Key::Alt('f') => GoToNextWord,
        Key::Home | Key::Ctrl('a') => GoToStart,
        Key::End | Key::Ctrl('e') => GoToEnd,
        Key::Ctrl('w') | Key::Alt('\u{8}') => DeletePrevWord,
        Key::Alt('d') => DeleteNextWord,
        Key::Ctrl('u') => DeleteFromStart,
        Key::Ctrl('k') => DeleteTillEnd,
        Key::Ctrl('y') => Yank,
        _ => return None,
    })
}

/// The key that confirms a discard besides pressing Esc or Ctrl-D again.
pub const CONFIRM_KEY: char = 'y';

/// The help line: the keys of the edit step.
pub const HELP_EDIT: &str = "Tab/↓ next · Shift-Tab/↑ prev · Space toggle/select · Ctrl-X clear · Ctrl-S submit · Ctrl-D decline · Ctrl-N decline all from this server · Esc cancel";
/// The help line: the keys of the review step.
pub const HELP_REVIEW: &str =
    "Enter send · b/Backspace back to the form · Ctrl-D decline · Esc cancel";
/// The help line: the keys of the review step of a form of arguments
/// ([`crate::form::Form::for_arguments`]).
pub const HELP_REVIEW_ARGUMENTS: &str =
    "Enter call · b/Backspace back to the form · Esc back to the list";
