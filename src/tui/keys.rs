//! The filter between the terminal's key events and the screens: an Esc
//! that a key follows within [`ESC_WAIT`] is Alt plus that key (over a slow
//! link such as ssh, Alt-B arrives as ESC and, milliseconds later, `b`), and
//! replies the terminal sends (OSC, DCS, APC, PM, SOS strings, and CSI
//! reports such as a cursor position or device attributes) never become
//! typed text, even when they answer another program's query.
//!
//! crossterm reads `ESC ]` as Alt-`]` followed by the reply's characters as
//! keys; a reply split across reads arrives as Esc, then `[` or `]`, then
//! its characters, and a slow link may pause inside it. The filter
//! recognises all of these: a string reply ends at its terminator (BEL, or
//! ESC `\`), a CSI report at its final byte. Bounds, so that a person's own
//! Alt-`]` or Alt-`[` never swallows their typing for long: a key no reply
//! holds (Enter, Tab, Backspace, an arrow or other named key, a Ctrl key
//! but Ctrl-G) ends it and acts; a pause longer than [`REPLY_GAP`] ends it,
//! and so do [`REPLY_MAX_CHARS`] characters.
//!
//! The filter is pure (instants are passed in), so its rules are tested
//! without a terminal or a clock.

use std::time::{Duration, Instant};

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

/// How long an Esc is held for a key that makes it Alt plus that key
/// (documented in docs/keys.md). A lone Esc acts this much later.
pub const ESC_WAIT: Duration = Duration::from_millis(100);

/// The longest pause between two characters of one terminal reply (a
/// reply split over a slow link): a longer pause ends what the filter takes
/// for a reply (documented in docs/keys.md).
pub const REPLY_GAP: Duration = Duration::from_secs(2);

/// The most characters one terminal reply is taken to hold: the next one
/// is a key again.
pub const REPLY_MAX_CHARS: usize = 4096;

/// The kind of terminal reply being dropped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Reply {
    /// A string (OSC, DCS, APC, PM, SOS): ends at BEL or ESC `\`.
    Str { esc: bool },
    /// A control sequence report: ends at a final byte `@`..`~`.
    Csi,
}

/// Keys in, keys out: see the module documentation.
#[derive(Debug, Clone, Default)]
pub struct KeyFilter {
    /// An Esc read at this instant, held for a following key.
    esc: Option<Instant>,
    /// A reply being dropped, when its last character came, and how many
    /// characters it has had.
    reply: Option<(Reply, Instant, usize)>,
}

fn plain(k: &KeyEvent) -> bool {
    !k.modifiers
        .intersects(KeyModifiers::CONTROL | KeyModifiers::ALT | KeyModifiers::SUPER)
}

fn with_alt(mut k: KeyEvent) -> KeyEvent {
    k.modifiers |= KeyModifiers::ALT;
    k
}

/// Whether `k` is a key no terminal reply holds: a named key (Enter, Tab,
/// Backspace, an arrow...) other than Esc, or a Ctrl key other than Ctrl-G
/// (BEL, a string's terminator). Replies are printable characters between
/// their introducer and terminator.
fn never_in_a_reply(k: &KeyEvent) -> bool {
    match k.code {
        KeyCode::Char('g') => false,
        KeyCode::Char(_) => k.modifiers.contains(KeyModifiers::CONTROL),
        KeyCode::Esc => false,
        _ => true,
    }
}

/// The reply an Alt key opens, if it is one's introducer.
fn reply_start(k: &KeyEvent) -> Option<Reply> {
    if !k.modifiers.contains(KeyModifiers::ALT) || k.modifiers.contains(KeyModifiers::CONTROL) {
        return None;
    }
    match k.code {
        // OSC, DCS, APC, PM, SOS.
        KeyCode::Char(']' | 'P' | '_' | '^' | 'X') => Some(Reply::Str { esc: false }),
        KeyCode::Char('[') => Some(Reply::Csi),
        _ => None,
    }
}

impl KeyFilter {
    /// When [`KeyFilter::flush`] must be called if no key came (a held Esc
    /// acts then); None when nothing is held.
    pub fn due(&self) -> Option<Instant> {
        self.esc.map(|t| t + ESC_WAIT)
    }

    /// The held Esc, once [`ESC_WAIT`] has passed at `now` with no key.
    pub fn flush(&mut self, now: Instant) -> Option<KeyEvent> {
        match self.esc {
            Some(t) if now >= t + ESC_WAIT => self.flush_now(),
            _ => None,
        }
    }

    /// The held Esc at once (another kind of event came).
    pub fn flush_now(&mut self) -> Option<KeyEvent> {
        self.esc
            .take()
            .map(|_| KeyEvent::new(KeyCode::Esc, KeyModifiers::NONE))
    }

    /// One key press read at `now`; returns the keys to act on, in order
    /// (none while an Esc is held or a reply is dropped; two when a held
    /// Esc turns out to be alone).
    pub fn feed(&mut self, k: KeyEvent, now: Instant) -> Vec<KeyEvent> {
        if let Some((kind, last, n)) = self.reply.take() {
            let within = now.saturating_duration_since(last) <= REPLY_GAP
                && n < REPLY_MAX_CHARS
                && !never_in_a_reply(&k);
            if within {
                self.reply = self.reply_goes_on(kind, &k).map(|kind| (kind, now, n + 1));
                return Vec::new();
            }
        }
        let mut out = Vec::new();
        let mut k = k;
        if let Some(t) = self.esc.take() {
            let joined = now.saturating_duration_since(t) <= ESC_WAIT
                && plain(&k)
                && matches!(k.code, KeyCode::Char(_) | KeyCode::Backspace);
            if joined {
                k = with_alt(k);
            } else {
                out.push(KeyEvent::new(KeyCode::Esc, KeyModifiers::NONE));
            }
        }
        if k.code == KeyCode::Esc && plain(&k) {
            self.esc = Some(now);
            return out;
        }
        if let Some(kind) = reply_start(&k) {
            self.reply = Some((kind, now, 0));
            return out;
        }
        out.push(k);
        out
    }

    /// The reply still being read after `k`, or None when `k` ended it.
    fn reply_goes_on(&self, kind: Reply, k: &KeyEvent) -> Option<Reply> {
        let ctrl = k.modifiers.contains(KeyModifiers::CONTROL);
        let alt = k.modifiers.contains(KeyModifiers::ALT);
        match (kind, k.code) {
            // BEL (Ctrl-G) or ESC `\` (Alt-`\`, or Esc then `\`).
            (Reply::Str { .. }, KeyCode::Char('g')) if ctrl => None,
            (Reply::Str { .. }, KeyCode::Char('\\')) if alt => None,
            (Reply::Str { esc: true }, KeyCode::Char('\\')) => None,
            (Reply::Str { .. }, KeyCode::Esc) => Some(Reply::Str { esc: true }),
            (Reply::Str { .. }, _) => Some(Reply::Str { esc: false }),
            (Reply::Csi, KeyCode::Char(c)) if ('@'..='~').contains(&c) && !alt => None,
            (Reply::Csi, _) => Some(Reply::Csi),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ch(c: char) -> KeyEvent {
        KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE)
    }

    fn alt(c: char) -> KeyEvent {
        KeyEvent::new(KeyCode::Char(c), KeyModifiers::ALT)
    }

    fn esc() -> KeyEvent {
        KeyEvent::new(KeyCode::Esc, KeyModifiers::NONE)
    }

    /// Feed `keys`, each `gap` after the previous; what comes out, with a
    /// final flush well after the last.
    fn run(keys: &[KeyEvent], gap: Duration) -> Vec<KeyEvent> {
        let mut f = KeyFilter::default();
        let mut t = Instant::now();
        let mut out = Vec::new();
        for k in keys {
            t += gap;
            if let Some(e) = f.flush(t) {
                out.push(e);
            }
            out.extend(f.feed(*k, t));
        }
        out.extend(f.flush(t + Duration::from_secs(1)));
        out
    }

    fn typed(s: &str) -> Vec<KeyEvent> {
        s.chars().map(ch).collect()
    }

    #[test]
    fn an_esc_followed_soon_by_a_key_is_alt_and_a_lone_esc_is_esc() {
        let soon = Duration::from_millis(30);
        assert_eq!(run(&[esc(), ch('b')], soon), vec![alt('b')]);
        let back = KeyEvent::new(KeyCode::Backspace, KeyModifiers::NONE);
        assert_eq!(run(&[esc(), back], soon), vec![with_alt(back)]);
        // Later than the wait: Esc, then the key itself.
        let late = ESC_WAIT + Duration::from_millis(50);
        assert_eq!(run(&[esc(), ch('b')], late), vec![esc(), ch('b')]);
        // Alone: Esc once the wait is over.
        assert_eq!(run(&[esc()], soon), vec![esc()]);
        // Two Escs: the first is Esc, the second is held and then Esc.
        assert_eq!(run(&[esc(), esc()], soon), vec![esc(), esc()]);
        // Esc then an arrow: both, in order.
        let up = KeyEvent::new(KeyCode::Up, KeyModifiers::NONE);
        assert_eq!(run(&[esc(), up], soon), vec![esc(), up]);
    }

    #[test]
    fn terminal_replies_never_become_typed_text() {
        let fast = Duration::from_millis(1);
        // OSC 11 reply in one read: Alt-], text, Alt-\ (ESC \).
        let mut osc = vec![alt(']')];
        osc.extend(typed("11;rgb:ffff/ffff/ffff"));
        osc.push(alt('\\'));
        osc.extend(typed("ok"));
        assert_eq!(run(&osc, fast), typed("ok"));
        // The same reply split across reads: Esc, `]`, ..., BEL.
        let mut split = vec![esc(), ch(']')];
        split.extend(typed("11;rgb:0000/0000/0000"));
        split.push(KeyEvent::new(KeyCode::Char('g'), KeyModifiers::CONTROL));
        split.push(ch('x'));
        assert_eq!(run(&split, fast), vec![ch('x')]);
        // Terminated by Esc then `\` as two keys.
        let mut st = vec![alt('P')];
        st.extend(typed("1$r0m"));
        st.extend([esc(), ch('\\'), ch('y')]);
        assert_eq!(run(&st, fast), vec![ch('y')]);
        // A cursor position report (CPR) and device attributes (DA) split
        // after the Esc.
        let mut cpr = vec![esc(), ch('[')];
        cpr.extend(typed("12;40R"));
        cpr.extend([esc(), ch('[')]);
        cpr.extend(typed("?62;22c"));
        cpr.push(ch('z'));
        assert_eq!(run(&cpr, fast), vec![ch('z')]);
    }

    #[test]
    fn a_long_pause_ends_what_looked_like_a_reply() {
        // A person's own Alt-] followed, after a long pause, by typing.
        let slow = REPLY_GAP + Duration::from_millis(50);
        assert_eq!(run(&[alt(']'), ch('a'), ch('b')], slow), typed("ab"));
    }

    #[test]
    fn a_reply_split_by_a_pause_is_still_a_reply() {
        // `ESC ] 11 ; rgb:ff`, 200 ms, `ff/ffff/ffff ESC \`, then a key.
        let mut f = KeyFilter::default();
        let t0 = Instant::now();
        let ms = |n| t0 + Duration::from_millis(n);
        let mut out = Vec::new();
        let mut at = 0;
        let mut feed = |f: &mut KeyFilter, k, t| {
            out.extend(f.flush(t));
            out.extend(f.feed(k, t));
        };
        feed(&mut f, esc(), ms(at));
        for k in std::iter::once(ch(']')).chain(typed("11;rgb:ff")) {
            at += 1;
            feed(&mut f, k, ms(at));
        }
        at += 200;
        for k in typed("ff/ffff/ffff") {
            at += 1;
            feed(&mut f, k, ms(at));
        }
        feed(&mut f, esc(), ms(at + 1));
        feed(&mut f, ch('\\'), ms(at + 2));
        feed(&mut f, ch('x'), ms(at + 600));
        out.extend(f.flush(ms(at + 5000)));
        assert_eq!(out, vec![ch('x')]);
    }

    #[test]
    fn a_key_no_reply_holds_ends_one_and_counts() {
        let fast = Duration::from_millis(1);
        let enter = KeyEvent::new(KeyCode::Enter, KeyModifiers::NONE);
        // A person's Alt-] then typing: the typing is taken for a reply
        // until a key no reply holds, which acts.
        assert_eq!(
            run(&[alt(']'), ch('a'), enter, ch('b')], fast),
            vec![enter, ch('b')]
        );
        let ctrl_s = KeyEvent::new(KeyCode::Char('s'), KeyModifiers::CONTROL);
        assert_eq!(run(&[alt('['), ch('1'), ctrl_s], fast), vec![ctrl_s]);
        // And a reply longer than the bound ends at the bound.
        let mut long = vec![alt(']')];
        long.extend(std::iter::repeat_n(ch('f'), REPLY_MAX_CHARS));
        long.push(ch('z'));
        assert_eq!(run(&long, fast), vec![ch('z')]);
    }
}
