//! Glue between the terminal app loop and the URL consent view
//! (`url_view`): the theme mapped onto [`UrlStyles`], and the form-level
//! [`Key`] turned back into the crossterm key the view reads.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use super::theme::{Role, Theme};
use super::url_view::UrlStyles;
use crate::form::Key;

/// The URL view's styles from the theme's roles (text, muted, title,
/// warning, error, focused button, button).
pub fn url_styles(theme: &Theme) -> UrlStyles {
    UrlStyles {
        normal: theme.style(Role::Text),
        muted: theme.style(Role::Muted),
        emphasis: theme
            .style(Role::Title)
            .add_modifier(ratatui::style::Modifier::UNDERLINED),
        warning: theme.style(Role::Warning),
        danger: theme
            .style(Role::Error)
            .add_modifier(ratatui::style::Modifier::BOLD),
        focus: theme.style(Role::ButtonFocus),
        button: theme.style(Role::Button),
    }
}

/// The crossterm key press for a form [`Key`] (None for a paste, which the
/// URL view ignores).
pub fn key_event(k: &Key) -> Option<KeyEvent> {
    let (code, mods) = match k {
        Key::Char(c) => (KeyCode::Char(*c), KeyModifiers::NONE),
        Key::Ctrl(c) => (KeyCode::Char(*c), KeyModifiers::CONTROL),
        Key::Alt(c) => (KeyCode::Char(*c), KeyModifiers::ALT),
        Key::Enter => (KeyCode::Enter, KeyModifiers::NONE),
        Key::Esc => (KeyCode::Esc, KeyModifiers::NONE),
        Key::Tab => (KeyCode::Tab, KeyModifiers::NONE),
        Key::BackTab => (KeyCode::BackTab, KeyModifiers::SHIFT),
        Key::Up => (KeyCode::Up, KeyModifiers::NONE),
        Key::Down => (KeyCode::Down, KeyModifiers::NONE),
        Key::Left | Key::WordLeft => (KeyCode::Left, KeyModifiers::NONE),
        Key::Right | Key::WordRight => (KeyCode::Right, KeyModifiers::NONE),
        Key::Home => (KeyCode::Home, KeyModifiers::NONE),
        Key::End => (KeyCode::End, KeyModifiers::NONE),
        Key::PageUp => (KeyCode::PageUp, KeyModifiers::NONE),
        Key::PageDown => (KeyCode::PageDown, KeyModifiers::NONE),
        Key::Backspace => (KeyCode::Backspace, KeyModifiers::NONE),
        Key::Delete => (KeyCode::Delete, KeyModifiers::NONE),
        Key::Paste(_) => return None,
    };
    Some(KeyEvent::new(code, mods))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_round_trip_to_crossterm() {
        assert_eq!(
            key_event(&Key::Char('o')),
            Some(KeyEvent::new(KeyCode::Char('o'), KeyModifiers::NONE))
        );
        assert_eq!(
            key_event(&Key::Ctrl('c')),
            Some(KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL))
        );
        assert_eq!(key_event(&Key::Paste("x".into())), None);
    }
}
