//! Text that enters a field from outside the keyboard's one-key-at-a-time
//! path (a bracketed paste, the outside editor's file) made fit for a
//! value: no control character ever reaches a value.
//!
//! The rules ([`clean_entered`]):
//! - a line break (`\n`, `\r`, `\r\n`) stays (the field decides whether it
//!   keeps it or makes it a space);
//! - a key the terminal encoded inside the paste (the kitty keyboard
//!   protocol's `CSI code ; mods u`, xterm's `CSI 27 ; mods ; code ~`, which
//!   tmux popups and terminals with those modes on put into a paste) is read
//!   as that key: Enter, Ctrl-J and Ctrl-M are a line break, Tab a space, a
//!   printable key with no modifier or Shift its character, any other key
//!   nothing;
//! - a tab is a space;
//! - every other escape sequence (CSI, OSC, DCS, APC, PM, SOS, or ESC and one
//!   character) and every other control character (C0, DEL, C1) is dropped.

/// `text` with the rules of the [module documentation](self) applied.
pub fn clean_entered(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\u{1b}' => match chars.peek() {
                Some('[') => {
                    chars.next();
                    let (params, last) = read_csi(&mut chars);
                    if let Some(k) = last.and_then(|f| encoded_key(&params, f)) {
                        out.push(k);
                    }
                }
                Some(']' | 'P' | '_' | '^' | 'X') => {
                    chars.next();
                    skip_string(&mut chars);
                }
                Some(n) if (' '..='~').contains(n) => {
                    chars.next();
                }
                _ => {}
            },
            '\n' | '\r' => out.push(c),
            '\t' => out.push(' '),
            c if c.is_control() => {}
            c => out.push(c),
        }
    }
    out
}

/// After `ESC [`: the parameters and intermediates, and the final byte
/// (None when the text ends first or a byte outside a sequence comes).
fn read_csi(chars: &mut std::iter::Peekable<std::str::Chars<'_>>) -> (String, Option<char>) {
    let mut params = String::new();
    while let Some(&c) = chars.peek() {
        match c {
            '\u{30}'..='\u{3f}' | '\u{20}'..='\u{2f}' => {
                params.push(c);
                chars.next();
            }
            '\u{40}'..='\u{7e}' => {
                chars.next();
                return (params, Some(c));
            }
            _ => return (params, None),
        }
    }
    (params, None)
}

/// Skip a control string to its end (BEL, or ESC `\`, or the text's end).
fn skip_string(chars: &mut std::iter::Peekable<std::str::Chars<'_>>) {
    while let Some(c) = chars.next() {
        match c {
            '\u{7}' | '\u{9c}' => return,
            '\u{1b}' => {
                if chars.peek() == Some(&'\\') {
                    chars.next();
                }
                return;
            }
            _ => {}
        }
    }
}

/// The character a key encoded as `CSI params final` stands for in a
/// value (see the module documentation), if any.
fn encoded_key(params: &str, last: char) -> Option<char> {
    let number = |s: Option<&str>| -> Option<u32> {
        // A sub-parameter (`:`) after the first is left out.
        let s = s?.split(':').next()?;
        if s.is_empty() {
            Some(1)
        } else {
            s.parse().ok()
        }
    };
    let mut parts = params.split(';');
    let (code, mods) = match last {
        'u' => {
            let code = number(parts.next())?;
            (code, number(parts.next()).unwrap_or(1))
        }
        '~' if parts.next() == Some("27") => {
            let mods = number(parts.next())?;
            (number(parts.next())?, mods)
        }
        _ => return None,
    };
    // The modifiers are sent as 1 + a bit mask: Shift 1, Alt 2, Ctrl 4.
    let bits = mods.saturating_sub(1);
    let ctrl = bits & 4 != 0;
    let only_shift = bits & !1 == 0;
    match code {
        13 => Some('\n'),
        106 | 109 | 74 | 77 if ctrl && bits & !(4 | 1) == 0 => Some('\n'),
        9 if only_shift => Some(' '),
        c if only_shift => char::from_u32(c).filter(|c| !c.is_control()),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_encoded_ctrl_j_or_enter_is_a_line_break() {
        assert_eq!(clean_entered("one\u{1b}[106;5utwo"), "one\ntwo");
        assert_eq!(clean_entered("one\u{1b}[13utwo"), "one\ntwo");
        assert_eq!(clean_entered("one\u{1b}[109;5utwo"), "one\ntwo");
        assert_eq!(clean_entered("one\u{1b}[27;5;106~two"), "one\ntwo");
        assert_eq!(clean_entered("one\u{1b}[13;2utwo"), "one\ntwo");
    }

    #[test]
    fn other_encoded_keys_are_their_character_or_nothing() {
        assert_eq!(clean_entered("a\u{1b}[98ub"), "abb");
        assert_eq!(clean_entered("a\u{1b}[65;2ub"), "aAb");
        assert_eq!(clean_entered("a\u{1b}[99;5ub"), "ab");
        assert_eq!(clean_entered("a\u{1b}[9ub"), "a b");
        assert_eq!(clean_entered("a\u{1b}[27u"), "a");
    }

    #[test]
    fn no_control_character_is_left() {
        let dirty = "a\u{1b}]0;title\u{7}b\u{1b}[31mc\u{7}d\u{0}e\u{7f}f\u{9b}g\th\u{1b}Pdcs\u{1b}\\i\u{1b}";
        let clean = clean_entered(dirty);
        assert_eq!(clean, "abcdefg hi");
        assert!(!clean.chars().any(char::is_control));
        assert_eq!(clean_entered("x\r\ny\rz\n"), "x\r\ny\rz\n");
        assert_eq!(clean_entered("日本\u{1b}[106;5u語"), "日本\n語");
    }
}
