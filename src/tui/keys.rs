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
//! crossterm drops an introducer it does not know without a key (`ESC [ >`
//! of a secondary device attributes reply), so the reply's body arrives as
//! typed characters with no Esc before it (`41;356;0c`). Digits that come
//! in one burst (each within [`BURST`] of the one before: no hand types so
//! fast, and a paste comes whole as a paste) are held until known: a burst
//! shaped like such a body (`digits;digits…c`) is dropped, any other is
//! given out in order. A slow link can split the body once (`41;3`, a
//! pause, `56;0c`): a held run accepts one gap up to [`SPLIT_GAP`], after
//! which every gap must be a burst's, and only a whole body (three numbers)
//! is then dropped; when the keys after the gap are a whole body on their
//! own, those before it were typed and are given out. A person's keys have
//! a slow gap between each, so they are given out, at most [`SPLIT_GAP`]
//! late. ESC `[` within the Esc wait is held as the keys after a lone Esc
//! are: a report is dropped, a cursor key is that key.
//!
//! The filter is pure (instants are passed in), so its rules are tested
//! without a terminal or a clock.

use std::time::{Duration, Instant};

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

/// How long an Esc is held for a key that makes it Alt plus that key
/// (documented in docs/keys.md). A lone Esc acts this much later.
pub const ESC_WAIT: Duration = Duration::from_millis(100);

/// How long a lone Esc is held while it would throw typed answers away (a
/// question "Throw away what you entered and cancel?" is up, which Esc
/// confirms; see [`KeyFilter::set_esc_discards`]): a reply's opening
/// (`]`, `P`, `_`, `[`) that follows within this wait makes the Esc part of
/// that reply, dropped with it, so a terminal reply split after its ESC by
/// a slow link never answers the question (documented in docs/keys.md).
pub const DISCARD_ESC_WAIT: Duration = Duration::from_millis(500);

/// The longest pause between two characters of one terminal reply (a
/// reply split over a slow link): a longer pause ends what the filter takes
/// for a reply (documented in docs/keys.md).
pub const REPLY_GAP: Duration = Duration::from_secs(2);

/// The most characters one terminal reply is taken to hold: the next one
/// is a key again.
pub const REPLY_MAX_CHARS: usize = 4096;

/// The longest gap between two characters of one burst (see the module
/// documentation): characters of one read arrive microseconds apart, a
/// person's keys (even a held key's repeats) tens of milliseconds apart.
pub const BURST: Duration = Duration::from_millis(15);

/// The longest pause, once in a held run of digits, where a slow link split
/// a reply's body (`4`, a pause, `1;356;0c`): a digit waits this long for
/// the rest before it is given out (documented in docs/keys.md).
pub const SPLIT_GAP: Duration = Duration::from_millis(100);

/// The kind of terminal reply being dropped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Reply {
    /// A string (OSC, DCS, APC, PM, SOS): ends at BEL or ESC `\`.
    Str { esc: bool },
    /// A control sequence report: ends at a final byte `@`..`~`.
    Csi,
}

/// Where the terminal's replies that were read before the screen (the
/// background query, [`super::background`]) stopped: inside a reply whose
/// rest comes later, as typed keys.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReplyLeft {
    /// Right after an ESC: what follows may open a reply.
    Esc,
    /// Inside a control sequence report (`ESC [` and more, no final byte).
    Csi,
    /// Inside a string reply (OSC, DCS, APC, PM, SOS), not at its end.
    Str,
    /// Inside a string reply, right after an ESC (`\` ends it).
    StrEsc,
}

impl ReplyLeft {
    /// Where the reply bytes `bytes` stop (None: outside any reply, so
    /// nothing that follows is taken for one's rest).
    pub fn of(bytes: &[u8]) -> Option<ReplyLeft> {
        let mut at = None;
        for &b in bytes {
            at = match (at, b) {
                (Some(ReplyLeft::Str), 0x07) => None,
                (Some(ReplyLeft::Str), 0x1b) => Some(ReplyLeft::StrEsc),
                (Some(ReplyLeft::Str), _) => Some(ReplyLeft::Str),
                (Some(ReplyLeft::StrEsc), b'\\') => None,
                (Some(ReplyLeft::StrEsc), 0x1b) => Some(ReplyLeft::Esc),
                (Some(ReplyLeft::StrEsc), _) => None,
                (Some(ReplyLeft::Csi), 0x20..=0x3f) => Some(ReplyLeft::Csi),
                (Some(ReplyLeft::Csi), 0x1b) => Some(ReplyLeft::Esc),
                (Some(ReplyLeft::Csi), _) => None,
                (Some(ReplyLeft::Esc), b'[') => Some(ReplyLeft::Csi),
                (Some(ReplyLeft::Esc), b']' | b'P' | b'_' | b'^' | b'X') => Some(ReplyLeft::Str),
                (_, 0x1b) => Some(ReplyLeft::Esc),
                _ => None,
            };
        }
        at
    }
}

/// Keys in, keys out: see the module documentation.
#[derive(Debug, Clone, Default)]
pub struct KeyFilter {
    /// An Esc read at this instant, held for a following key for this
    /// long.
    esc: Option<(Instant, Duration)>,
    /// A reply being dropped, when its last character came, and how many
    /// characters it has had.
    reply: Option<(Reply, Instant, usize)>,
    /// A lone Esc was given out; the instant it was read. The key that
    /// follows it within [`REPLY_GAP`] may open a terminal reply.
    late: Option<Instant>,
    /// Characters after a lone Esc that may be the start of a terminal
    /// reply, held (not given out).
    held: Option<Held>,
    /// Digits (and `;`) of one burst that may be the body of a reply whose
    /// introducer crossterm dropped.
    burst: Option<Burst>,
    /// A lone Esc would now throw typed answers away: it is held for
    /// [`DISCARD_ESC_WAIT`] instead of [`ESC_WAIT`].
    esc_discards: bool,
}

/// Digits (and `;`) held while they may be a reply's body.
#[derive(Debug, Clone)]
struct Burst {
    keys: Vec<KeyEvent>,
    /// When the last of them came.
    last: Instant,
    /// Where one gap between them was longer than [`BURST`] (at most
    /// [`SPLIT_GAP`]): the index of the first key after it. The reply came
    /// in two pieces over a slow link, or a person typed the keys before
    /// the gap; every later gap must be a burst's, and only a whole
    /// secondary device attributes body (`digits;digits;digits c`) is
    /// dropped.
    split: Option<usize>,
}

impl Burst {
    /// How long after its last character the burst waits for the next.
    fn wait(&self) -> Duration {
        if self.split.is_some() {
            BURST
        } else {
            SPLIT_GAP
        }
    }
}

/// Characters held after a lone Esc while they may open a reply.
#[derive(Debug, Clone)]
struct Held {
    keys: Vec<KeyEvent>,
    /// When the last of them came.
    last: Instant,
    /// They were typeahead a new screen threw away: if they open no reply,
    /// they are still not given out.
    thrown: bool,
    /// The Esc before them was not given out yet (it was held for
    /// [`DISCARD_ESC_WAIT`]): it goes out before them when they open no
    /// reply, and is dropped with them when they do.
    esc: bool,
}

impl Held {
    /// The first key `k` held at `now`, after an Esc not given out yet
    /// (`esc`) or one already given out.
    fn first(k: KeyEvent, now: Instant, esc: bool) -> Self {
        Held {
            keys: vec![k],
            last: now,
            thrown: false,
            esc,
        }
    }

    /// The held keys to give out when they open no reply (the Esc first
    /// when it was still held).
    fn release(self) -> Vec<KeyEvent> {
        if self.thrown {
            return Vec::new();
        }
        let esc = self
            .esc
            .then(|| KeyEvent::new(KeyCode::Esc, KeyModifiers::NONE));
        esc.into_iter().chain(self.keys).collect()
    }
}

/// What the characters after a lone Esc are so far.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Opening {
    /// They may still begin a reply: hold them.
    Maybe,
    /// The opening of a string reply (OSC, DCS, APC): drop it up to its
    /// terminator.
    Str,
    /// A whole control sequence report (CPR, DA, a mode report): drop it.
    Report,
    /// Not a reply but a cursor key whose ESC came alone (`[A`..`[D`,
    /// `[H`, `[F` over a slow link): that key, never its letters typed.
    Key(KeyCode),
    /// Not a reply: give them out.
    Not,
}

/// Classify `s`, the characters read after a lone Esc: the reply
/// openings a terminal sends are `]` digits `;` (OSC), `P` then `>`, `!`
/// or digits and `$`, `+` or `|` (DCS: DECRQSS, XTGETTCAP, XTVERSION,
/// DECRPTUI), `_G` (APC: kitty graphics), and `[`, an optional `?` `>` `=`
/// `<`, parameters (digits, `;`, `:`), intermediates (space to `/`) and a
/// final byte `@`..`~` (CSI reports, which need one parameter digit).
fn opening(s: &str) -> Opening {
    let first = s.chars().next();
    let rest = &s[first.map_or(0, char::len_utf8)..];
    match first {
        Some(']') => {
            let after = rest.trim_start_matches(|c: char| c.is_ascii_digit());
            match after {
                "" => Opening::Maybe,
                ";" if after.len() < rest.len() => Opening::Str,
                _ => Opening::Not,
            }
        }
        Some('P') => {
            let body = rest.strip_prefix(['>', '!']).unwrap_or(rest);
            let opened = body.len() < rest.len();
            let after = body.trim_start_matches(|c: char| c.is_ascii_digit());
            let any = opened || after.len() < body.len();
            match after {
                "" => Opening::Maybe,
                "$" | "+" | "|" if any => Opening::Str,
                _ => Opening::Not,
            }
        }
        Some('_') => match rest {
            "" => Opening::Maybe,
            "G" => Opening::Str,
            _ => Opening::Not,
        },
        Some('[') if rest.len() == 1 && !rest.starts_with(|c: char| c.is_ascii_digit()) => {
            match rest {
                "A" => Opening::Key(KeyCode::Up),
                "B" => Opening::Key(KeyCode::Down),
                "C" => Opening::Key(KeyCode::Right),
                "D" => Opening::Key(KeyCode::Left),
                "H" => Opening::Key(KeyCode::Home),
                "F" => Opening::Key(KeyCode::End),
                _ if matches!(rest, "?" | ">" | "=" | "<" | ";" | ":") => Opening::Maybe,
                _ => Opening::Not,
            }
        }
        Some('[') => {
            let body = rest.strip_prefix(['?', '>', '=', '<']).unwrap_or(rest);
            let param = |c: char| c.is_ascii_digit() || c == ';' || c == ':';
            let params = body.trim_start_matches(param);
            let digits = body[..body.len() - params.len()]
                .chars()
                .any(|c| c.is_ascii_digit());
            let after = params.trim_start_matches(|c: char| (' '..='/').contains(&c));
            let mut last = after.chars();
            match (last.next(), last.next()) {
                (None, _) => Opening::Maybe,
                (Some(c), None) if digits && ('@'..='~').contains(&c) => Opening::Report,
                _ => Opening::Not,
            }
        }
        _ => Opening::Not,
    }
}

/// The characters of `keys`, other keys left out.
fn chars_of(keys: &[KeyEvent]) -> String {
    keys.iter()
        .filter_map(|k| match k.code {
            KeyCode::Char(c) => Some(c),
            _ => None,
        })
        .collect()
}

/// How many numbers `keys` are, joined by `;` (`41;356;0` is 3); None
/// when they are anything else (an empty part, another character).
fn numbers(keys: &[KeyEvent]) -> Option<usize> {
    let s = chars_of(keys);
    s.split(';')
        .all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()))
        .then(|| s.split(';').count())
}

/// Whether `keys` (digits and `;`) are a device attributes reply's body
/// but its final `c`: digits, then one or more `;` and digits.
fn reply_body(keys: &[KeyEvent]) -> bool {
    numbers(keys).is_some_and(|n| n >= 2)
}

/// Whether `keys` are a whole secondary device attributes body before its
/// final `c`: three numbers joined by `;` (`41;356;0`).
fn da2_body(keys: &[KeyEvent]) -> bool {
    numbers(keys) == Some(3)
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

/// Whether `k`, read after an Esc that came alone, may be the second
/// character of a terminal reply (`]`, `P`, `_`, `[`).
fn opens_reply(k: &KeyEvent) -> bool {
    matches!(k.code, KeyCode::Char(']' | 'P' | '_' | '['))
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
    /// Tell the filter whether a lone Esc would now throw typed answers
    /// away (a question to confirm a cancel is up, which Esc answers). While
    /// it would, a lone Esc is held for [`DISCARD_ESC_WAIT`] rather than
    /// [`ESC_WAIT`], and a reply's opening that follows it within that wait
    /// is read, with the Esc, as a terminal reply and dropped. An Esc
    /// already held keeps the wait it was read with.
    pub fn set_esc_discards(&mut self, on: bool) {
        self.esc_discards = on;
    }

    /// How long the Esc read now is held.
    fn esc_wait(&self) -> Duration {
        if self.esc_discards {
            DISCARD_ESC_WAIT
        } else {
            ESC_WAIT
        }
    }

    /// When [`KeyFilter::flush`] must be called if no key came (a held Esc
    /// acts then); None when nothing is held.
    pub fn due(&self) -> Option<Instant> {
        let esc = self.esc.map(|(t, wait)| t + wait);
        let held = self.held.as_ref().map(|h| h.last + REPLY_GAP);
        let burst = self.burst.as_ref().map(|b| b.last + b.wait());
        esc.into_iter().chain(held).chain(burst).min()
    }

    /// What was held and is due at `now` with no key: the held Esc once
    /// its wait ([`ESC_WAIT`], or [`DISCARD_ESC_WAIT`]) has passed,
    /// characters held after a lone Esc once [`REPLY_GAP`] has.
    pub fn flush(&mut self, now: Instant) -> Vec<KeyEvent> {
        let mut out = Vec::new();
        if self
            .burst
            .as_ref()
            .is_some_and(|b| now >= b.last + b.wait())
        {
            out.extend(self.burst.take().map(|b| b.keys).unwrap_or_default());
        }
        if self
            .held
            .as_ref()
            .is_some_and(|h| now >= h.last + REPLY_GAP)
        {
            out.extend(self.held.take().map(Held::release).unwrap_or_default());
        }
        if self.esc.is_some_and(|(t, wait)| now >= t + wait) {
            out.extend(self.esc_now());
        }
        out
    }

    /// What is held at once (another kind of event came): a burst's
    /// characters, then the held Esc.
    pub fn flush_now(&mut self) -> Vec<KeyEvent> {
        let mut out: Vec<KeyEvent> = self.burst.take().map(|b| b.keys).unwrap_or_default();
        out.extend(self.esc_now());
        out
    }

    /// The held Esc, given out as a lone Esc.
    fn esc_now(&mut self) -> Option<KeyEvent> {
        let (t, _) = self.esc.take()?;
        self.late = Some(t);
        Some(KeyEvent::new(KeyCode::Esc, KeyModifiers::NONE))
    }

    /// `k` (read at `now`, past every other rule) through the burst hold:
    /// into `out`, or held while it may be part of a reply's body.
    fn through_burst(&mut self, k: KeyEvent, now: Instant, out: &mut Vec<KeyEvent>) {
        let c = match k.code {
            KeyCode::Char(c) if plain(&k) => Some(c),
            _ => None,
        };
        if let Some(mut b) = self.burst.take() {
            let gap = now.saturating_duration_since(b.last);
            let fast = gap <= BURST;
            // One slower gap is a split; a second is a person typing.
            let within = fast || (b.split.is_none() && gap <= SPLIT_GAP);
            match c {
                Some(c) if within && b.keys.len() < 64 && (c.is_ascii_digit() || c == ';') => {
                    if !fast {
                        b.split = Some(b.keys.len());
                    }
                    b.keys.push(k);
                    b.last = now;
                    self.burst = Some(b);
                    return;
                }
                // The keys after the pause are a whole body on their own:
                // those before it were typed (a person's digit just before
                // a reply), and are given out.
                Some('c') if fast && b.split.is_some_and(|at| da2_body(&b.keys[at..])) => {
                    let at = b.split.unwrap_or(0);
                    b.keys.truncate(at);
                    out.extend(b.keys);
                    return;
                }
                Some('c') if within && (b.split.is_some() || !fast) && da2_body(&b.keys) => return,
                Some('c') if fast && b.split.is_none() && reply_body(&b.keys) => return,
                _ => out.extend(b.keys),
            }
        }
        match c {
            Some(c) if c.is_ascii_digit() => {
                self.burst = Some(Burst {
                    keys: vec![k],
                    last: now,
                    split: None,
                })
            }
            _ => out.push(k),
        }
    }

    /// The terminal's replies read before the screen stopped inside one
    /// (`left`) at `now`: the keys that follow within [`REPLY_GAP`] of each
    /// other are its rest and are dropped up to its end, as if its start
    /// had been read here (a slow link split it after its first bytes).
    pub fn rest_of_reply(&mut self, left: ReplyLeft, now: Instant) {
        match left {
            ReplyLeft::Esc => self.late = Some(now),
            ReplyLeft::Csi => self.reply = Some((Reply::Csi, now, 0)),
            ReplyLeft::Str => self.reply = Some((Reply::Str { esc: false }, now, 0)),
            ReplyLeft::StrEsc => self.reply = Some((Reply::Str { esc: true }, now, 0)),
        }
    }

    /// Keys read so far were thrown away (typeahead before a new screen):
    /// a held Esc and held characters are never given out, but a reply
    /// being dropped, or one that may follow an Esc, is still recognised
    /// when the rest comes.
    pub fn discarded(&mut self) {
        self.burst = None;
        if let Some((t, _)) = self.esc.take() {
            self.late = Some(t);
        }
        if let Some(h) = &mut self.held {
            h.thrown = true;
        }
    }

    /// A key after a lone Esc, while characters that may open a reply are
    /// held: true when it was taken (held, or dropped with the reply it
    /// completes); false when it is not part of one (the held characters
    /// are then in `out`, and the key is still to be read).
    fn after_late_esc(&mut self, k: &KeyEvent, now: Instant, out: &mut Vec<KeyEvent>) -> bool {
        let Some(mut held) = self.held.take() else {
            return false;
        };
        let c = match k.code {
            KeyCode::Char(c)
                if plain(k) && now.saturating_duration_since(held.last) <= REPLY_GAP =>
            {
                c
            }
            _ => {
                out.extend(held.release());
                return false;
            }
        };
        let mut s = chars_of(&held.keys);
        s.push(c);
        match opening(&s) {
            Opening::Maybe => {
                held.keys.push(*k);
                held.last = now;
                self.held = Some(held);
            }
            Opening::Str => self.reply = Some((Reply::Str { esc: false }, now, s.len())),
            Opening::Report => {}
            // The Esc, if still held, was this key's own ESC.
            Opening::Key(code) => {
                if !held.thrown {
                    out.push(KeyEvent::new(code, KeyModifiers::NONE));
                }
            }
            Opening::Not => {
                out.extend(held.release());
                return false;
            }
        }
        true
    }

    /// One key press read at `now`; returns the keys to act on, in order
    /// (none while an Esc is held or a reply is dropped; two when a held
    /// Esc turns out to be alone).
    pub fn feed(&mut self, k: KeyEvent, now: Instant) -> Vec<KeyEvent> {
        let mut out = Vec::new();
        for k in self.feed_replies(k, now) {
            self.through_burst(k, now, &mut out);
        }
        out
    }

    /// [`KeyFilter::feed`] before the burst hold.
    fn feed_replies(&mut self, k: KeyEvent, now: Instant) -> Vec<KeyEvent> {
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
        if self.after_late_esc(&k, now, &mut out) {
            return out;
        }
        let mut k = k;
        if let Some((t, wait)) = self.esc.take() {
            let after = now.saturating_duration_since(t);
            let joined = after <= ESC_WAIT
                && plain(&k)
                && matches!(
                    k.code,
                    KeyCode::Char(_) | KeyCode::Backspace | KeyCode::Enter
                );
            // Held the longer wait (it would throw answers away): a reply's
            // opening within it holds the Esc with it until it is known.
            let opens = after <= wait && plain(&k) && opens_reply(&k);
            if joined {
                k = with_alt(k);
            } else if opens {
                self.held = Some(Held::first(k, now, true));
                return out;
            } else {
                out.push(KeyEvent::new(KeyCode::Esc, KeyModifiers::NONE));
                self.late = Some(t);
            }
        }
        // The first key after a lone Esc may open a reply whose ESC came
        // too early to be joined with it: held until that is known.
        if let Some(t) = self.late.take() {
            let opens =
                opens_reply(&k) && plain(&k) && now.saturating_duration_since(t) <= REPLY_GAP;
            if opens {
                self.held = Some(Held::first(k, now, false));
                return out;
            }
        }
        if k.code == KeyCode::Esc && plain(&k) {
            self.esc = Some((now, self.esc_wait()));
            return out;
        }
        // ESC `[` (an Esc that `[` followed within the wait): a control
        // sequence split after its ESC, a reply (`[12;5R`) or a cursor key
        // (`[B`): held and told apart as after a lone Esc.
        if k.code == KeyCode::Char('[') && k.modifiers == KeyModifiers::ALT {
            self.held = Some(Held::first(k, now, false));
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
            out.extend(f.flush(t));
            out.extend(f.feed(*k, t));
        }
        out.extend(f.flush(t + Duration::from_secs(1)));
        out
    }

    fn typed(s: &str) -> Vec<KeyEvent> {
        s.chars().map(ch).collect()
    }

    #[test]
    fn where_replies_read_before_the_screen_stop() {
        assert_eq!(ReplyLeft::of(b""), None);
        assert_eq!(ReplyLeft::of(b"\x1b]11;rgb:ffff/ffff/ffff\x07"), None);
        assert_eq!(ReplyLeft::of(b"\x1b"), Some(ReplyLeft::Esc));
        assert_eq!(ReplyLeft::of(b"\x1b]"), Some(ReplyLeft::Str));
        assert_eq!(ReplyLeft::of(b"\x1b]11;rgb:ff"), Some(ReplyLeft::Str));
        assert_eq!(
            ReplyLeft::of(b"\x1b]11;rgb:0/0/0\x1b"),
            Some(ReplyLeft::StrEsc)
        );
        assert_eq!(ReplyLeft::of(b"\x1b]11;rgb:0/0/0\x1b\\"), None);
        assert_eq!(
            ReplyLeft::of(b"\x1b]11;rgb:0/0/0\x07\x1b[?62;"),
            Some(ReplyLeft::Csi)
        );
        assert_eq!(ReplyLeft::of(b"\x1b[?62;22c"), None);
    }

    /// The rest of a reply whose start the background query read comes
    /// as keys (`11;rgb:ffff/ffff/ffff`, ESC `\`): dropped; what the person
    /// types after it is theirs.
    #[test]
    fn the_rest_of_a_reply_read_before_the_screen_is_not_typed() {
        let t0 = Instant::now();
        let mut f = KeyFilter::default();
        f.rest_of_reply(ReplyLeft::Str, t0);
        let mut out = Vec::new();
        let mut at = t0 + Duration::from_millis(300);
        for c in "11;rgb:ffff/ffff/ffff".chars() {
            out.extend(f.feed(ch(c), at));
            at += Duration::from_millis(1);
        }
        out.extend(f.feed(alt('\\'), at));
        at += Duration::from_millis(500);
        for c in "hi".chars() {
            out.extend(f.feed(ch(c), at));
            at += Duration::from_millis(200);
        }
        out.extend(f.flush(at + Duration::from_secs(1)));
        assert_eq!(out, vec![ch('h'), ch('i')]);
        // A partial report: its rest up to the final byte.
        let mut f = KeyFilter::default();
        f.rest_of_reply(ReplyLeft::Csi, t0);
        let mut out = Vec::new();
        for c in "22cx".chars() {
            out.extend(f.feed(ch(c), t0 + Duration::from_millis(50)));
        }
        out.extend(f.flush(t0 + Duration::from_secs(1)));
        assert_eq!(out, vec![ch('x')]);
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
    fn a_reply_body_whose_introducer_crossterm_dropped_is_dropped() {
        let fast = Duration::from_millis(1);
        // `ESC [ >` of a DA2 reply never reaches the filter: its body does,
        // in one burst.
        let mut da2 = typed("41;356;0c");
        da2.extend(typed("ok"));
        assert_eq!(run(&da2, fast), typed("ok"));
        assert_eq!(run(&typed("0;10;1c"), fast), Vec::<KeyEvent>::new());
        // The same characters typed by a person (tens of ms apart) stay.
        let person = Duration::from_millis(40);
        assert_eq!(run(&typed("41;356;0c"), person), typed("41;356;0c"));
        // A burst of digits that is no reply's body is given out in order.
        assert_eq!(run(&typed("2026;12x3"), fast), typed("2026;12x3"));
        assert_eq!(run(&typed("12345"), fast), typed("12345"));
        // A long burst is given out as it goes (at most 64 held).
        let long = "1;".repeat(100) + "c";
        assert_eq!(run(&typed(&long), fast), typed(&long));
        assert_eq!(run(&typed("1c"), fast), typed("1c"));
        // A burst held when another event came is given out first.
        let mut f = KeyFilter::default();
        let t = Instant::now();
        assert!(f.feed(ch('4'), t).is_empty());
        assert_eq!(f.flush_now(), vec![ch('4')]);
    }

    /// A secondary device attributes body split once by a slow link (its
    /// first digits, a pause under [`SPLIT_GAP`], the rest in one burst)
    /// is dropped whole at every cut; the same characters typed by a person
    /// (every gap slow) or a body split twice stay typed.
    #[test]
    fn a_reply_body_split_once_by_a_slow_link_is_dropped() {
        let body = "41;356;0c";
        for cut in 1..body.len() {
            for pause in [20u64, 40, 60, 80, 95] {
                let mut keys = Vec::new();
                for (i, c) in body.chars().enumerate() {
                    let at = if i < cut { i as u64 } else { pause + i as u64 };
                    keys.push((at, ch(c)));
                }
                keys.push((pause + 300, ch('x')));
                // Where the piece after the pause is a whole body on its
                // own, the piece before it may have been typed (a person's
                // digit just before a reply): it is given out, never lost.
                let rest: Vec<KeyEvent> = typed(&body[cut..body.len() - 1]);
                let mut want = if da2_body(&rest) {
                    typed(&body[..cut])
                } else {
                    Vec::new()
                };
                want.push(ch('x'));
                assert_eq!(timed(&keys), want, "cut {cut}, pause {pause} ms");
            }
        }
        // A digit typed just before a whole reply is kept (closer than
        // a burst's gap, the two are one burst and go together).
        for pause in [20u64, 50, 90] {
            let mut keys = vec![(0, ch('1'))];
            for (i, c) in body.chars().enumerate() {
                keys.push((pause + 1 + i as u64 / 4, ch(c)));
            }
            keys.push((pause + 300, ch('x')));
            assert_eq!(timed(&keys), typed("1x"), "pause {pause} ms");
        }
        // A person's digits: every gap slow, all kept, in order.
        let person: Vec<(u64, KeyEvent)> = body
            .chars()
            .enumerate()
            .map(|(i, c)| (i as u64 * 50, ch(c)))
            .collect();
        assert_eq!(timed(&person), typed(body));
        // Two slow gaps are no one reply split once: kept.
        let twice = [
            (0, ch('4')),
            (50, ch('1')),
            (100, ch(';')),
            (101, ch('2')),
            (150, ch(';')),
            (151, ch('3')),
            (200, ch('c')),
        ];
        assert_eq!(timed(&twice), typed("41;2;3c"));
        // Split, a body of another shape stays.
        let other = [(0, ch('1')), (50, ch(';')), (51, ch('2')), (52, ch('c'))];
        assert_eq!(timed(&other), typed("1;2c"));
        // A digit alone is given out once the split wait has passed.
        let mut f = KeyFilter::default();
        let t = Instant::now();
        assert!(f.feed(ch('7'), t).is_empty());
        assert_eq!(f.due(), Some(t + SPLIT_GAP));
        assert_eq!(f.flush(t + SPLIT_GAP), vec![ch('7')]);
    }

    #[test]
    fn a_cursor_key_split_after_its_esc_is_that_key_not_typed_letters() {
        let down = KeyEvent::new(KeyCode::Down, KeyModifiers::NONE);
        // ESC, a pause longer than the Esc wait, then `[B`: the lone Esc
        // acts, and `[B` is Down, never `[` and `B` typed.
        let got = timed(&[(0, esc()), (150, ch('[')), (151, ch('B')), (400, ch('x'))]);
        assert_eq!(got, vec![esc(), down, ch('x')]);
        // `[` then a letter that is no cursor key stays typed.
        let got = timed(&[(0, esc()), (150, ch('[')), (151, ch('q'))]);
        assert_eq!(got, vec![esc(), ch('['), ch('q')]);
    }

    #[test]
    fn an_esc_split_from_enter_is_alt_enter() {
        let enter = KeyEvent::new(KeyCode::Enter, KeyModifiers::NONE);
        let soon = Duration::from_millis(60);
        assert_eq!(run(&[esc(), enter], soon), vec![with_alt(enter)]);
        let late = ESC_WAIT + Duration::from_millis(50);
        assert_eq!(run(&[esc(), enter], late), vec![esc(), enter]);
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
        // Alt-[ (ESC `[` within the Esc wait) is held as after a lone Esc:
        // a report is dropped, a cursor key is that key, and what is no
        // reply is given out, the Ctrl key after it too.
        let ctrl_s = KeyEvent::new(KeyCode::Char('s'), KeyModifiers::CONTROL);
        assert_eq!(
            run(&[alt('['), ch('1'), ctrl_s], fast),
            vec![alt('['), ch('1'), ctrl_s]
        );
        let report: Vec<KeyEvent> = std::iter::once(alt('['))
            .chain(typed("12;5R"))
            .chain(typed("ok"))
            .collect();
        assert_eq!(run(&report, fast), typed("ok"));
        let down = KeyEvent::new(KeyCode::Down, KeyModifiers::NONE);
        assert_eq!(
            run(&[alt('['), ch('B'), ch('x')], fast),
            vec![down, ch('x')]
        );
        // And a reply longer than the bound ends at the bound.
        let mut long = vec![alt(']')];
        long.extend(std::iter::repeat_n(ch('f'), REPLY_MAX_CHARS));
        long.push(ch('z'));
        assert_eq!(run(&long, fast), vec![ch('z')]);
    }

    /// Feed `(ms, key)` pairs (instants in milliseconds from a start),
    /// flushing before each as the terminal loop does; a final flush well
    /// after the last. What comes out.
    fn timed(keys: &[(u64, KeyEvent)]) -> Vec<KeyEvent> {
        timed_in(KeyFilter::default(), keys)
    }

    /// [`timed`] through the filter `f`.
    fn timed_in(mut f: KeyFilter, keys: &[(u64, KeyEvent)]) -> Vec<KeyEvent> {
        let t0 = Instant::now();
        let mut out = Vec::new();
        let mut last = 0;
        for (ms, k) in keys {
            let t = t0 + Duration::from_millis(*ms);
            // The loop wakes at each due instant before the key is read.
            while let Some(d) = f.due().filter(|d| *d <= t) {
                out.extend(f.flush(d));
            }
            out.extend(f.feed(*k, t));
            last = *ms;
        }
        out.extend(f.flush(t0 + Duration::from_millis(last) + REPLY_GAP * 2));
        out
    }

    /// `s` typed 1 ms apart from `at` on.
    fn typed_at(at: u64, s: &str) -> Vec<(u64, KeyEvent)> {
        s.chars().zip(at..).map(|(c, t)| (t, ch(c))).collect()
    }

    #[test]
    fn a_reply_split_right_after_its_esc_is_dropped_after_the_lone_esc() {
        // ESC, a 250 ms pause (the Esc acts after its wait), then the rest
        // of an OSC 11 reply ending in ESC `\`, then a key.
        let mut keys = vec![(0, esc())];
        keys.extend(typed_at(250, "]11;rgb:ffff/ffff/ffff"));
        keys.extend([(300, esc()), (301, ch('\\')), (900, ch('x'))]);
        assert_eq!(timed(&keys), vec![esc(), ch('x')]);
        // Ended by BEL instead, and read while the Esc was still held (the
        // loop was busy): the Esc is given out first, then nothing of it.
        let bel = KeyEvent::new(KeyCode::Char('g'), KeyModifiers::CONTROL);
        let mut f = KeyFilter::default();
        let t0 = Instant::now();
        let at = |ms| t0 + Duration::from_millis(ms);
        let mut out = f.feed(esc(), at(0));
        for (i, c) in "]11;rgb:0/0/0".chars().enumerate() {
            out.extend(f.feed(ch(c), at(150 + i as u64)));
        }
        out.extend(f.feed(bel, at(170)));
        out.extend(f.feed(ch('y'), at(400)));
        assert_eq!(out, vec![esc(), ch('y')]);
        // A cursor position report, device attributes and a DCS reply,
        // each after a lone Esc.
        let mut keys = vec![(0, esc())];
        keys.extend(typed_at(200, "[12;40R"));
        keys.push((400, esc()));
        keys.extend(typed_at(600, "[?62;22c"));
        keys.push((800, esc()));
        keys.extend(typed_at(1000, "P1$r0m"));
        keys.extend([(1010, esc()), (1011, ch('\\')), (1500, ch('z'))]);
        assert_eq!(timed(&keys), vec![esc(), esc(), esc(), ch('z')]);
    }

    #[test]
    fn keys_after_a_lone_esc_that_open_no_reply_are_typed_in_order() {
        // `[a`, `]x`, `Paul`, `_y`: held only until they cannot be a reply.
        for s in ["[a", "]x", "Paul", "_y", "]1x", "[?x", "P$"] {
            let mut keys = vec![(0, esc())];
            keys.extend(typed_at(300, s));
            let mut want = vec![esc()];
            want.extend(typed(s));
            assert_eq!(timed(&keys), want, "{s}");
        }
        // A lone `]` after an Esc is given out once the reply wait is over.
        assert_eq!(timed(&[(0, esc()), (300, ch(']'))]), vec![esc(), ch(']')]);
        // Later than the reply wait after the Esc: typed at once.
        let mut keys = vec![(0, esc())];
        keys.extend(typed_at(2500, "]11;x"));
        let mut want = vec![esc()];
        want.extend(typed("]11;x"));
        assert_eq!(timed(&keys), want);
        // A named key ends the hold and acts after the held characters.
        let enter = KeyEvent::new(KeyCode::Enter, KeyModifiers::NONE);
        assert_eq!(
            timed(&[(0, esc()), (300, ch('[')), (310, ch('1')), (320, enter)]),
            vec![esc(), ch('['), ch('1'), enter]
        );
    }

    #[test]
    fn a_reply_whose_start_was_discarded_is_still_dropped() {
        // A new screen throws away typeahead: the lone Esc and `]1` with
        // it; the rest of the reply, read after, is still not typed.
        let mut f = KeyFilter::default();
        let t0 = Instant::now();
        let at = |ms| t0 + Duration::from_millis(ms);
        let mut out = f.feed(esc(), at(0));
        out.extend(f.flush(at(100)));
        out.extend(f.feed(ch(']'), at(200)));
        out.extend(f.feed(ch('1'), at(201)));
        f.discarded();
        for (i, c) in "1;rgb:1/1/1".chars().enumerate() {
            out.extend(f.feed(ch(c), at(210 + i as u64)));
        }
        out.extend(f.feed(alt('\\'), at(230)));
        out.extend(f.feed(ch('k'), at(300)));
        assert_eq!(out, vec![esc(), ch('k')]);
        // Thrown-away characters that open no reply stay thrown away; the
        // key that showed it counts. A held Esc thrown away is not an Esc.
        let mut f = KeyFilter::default();
        let mut out = f.feed(esc(), at(0));
        out.extend(f.flush(at(100)));
        out.extend(f.feed(ch('['), at(200)));
        f.discarded();
        out.extend(f.feed(ch('a'), at(300)));
        out.extend(f.feed(esc(), at(400)));
        f.discarded();
        out.extend(f.flush(at(2000)));
        assert_eq!(out, vec![esc(), ch('a')]);
    }

    /// A filter told that a lone Esc now throws typed answers away.
    fn asking() -> KeyFilter {
        let mut f = KeyFilter::default();
        f.set_esc_discards(true);
        f
    }

    #[test]
    fn a_reply_split_after_its_esc_never_answers_a_discard_question() {
        // ESC, 150 ms, the rest of a cursor position report: one reply,
        // dropped whole with its Esc; the key after it counts.
        let mut keys = vec![(0, esc())];
        keys.extend(typed_at(150, "[12;5R"));
        keys.push((700, ch('q')));
        assert_eq!(timed_in(asking(), &keys), vec![ch('q')]);
        // The same with an OSC colour reply ended by ESC `\`, a DCS reply,
        // and device attributes, each 400 ms after its ESC.
        let mut keys = vec![(0, esc())];
        keys.extend(typed_at(400, "]11;rgb:ffff/ffff/ffff"));
        keys.extend([(430, esc()), (431, ch('\\'))]);
        keys.push((1000, esc()));
        keys.extend(typed_at(1400, "P1$r0m"));
        keys.extend([(1410, esc()), (1411, ch('\\'))]);
        keys.push((2000, esc()));
        keys.extend(typed_at(2400, "[?62;22c"));
        keys.push((3000, ch('z')));
        assert_eq!(timed_in(asking(), &keys), vec![ch('z')]);
        // Without the question, the same Esc acts after its 100 ms (the
        // reply after it is still dropped).
        let mut keys = vec![(0, esc())];
        keys.extend(typed_at(150, "[12;5R"));
        assert_eq!(timed(&keys), vec![esc()]);
    }

    #[test]
    fn a_lone_esc_while_it_discards_waits_longer_and_other_keys_keep_it() {
        let t0 = Instant::now();
        let at = |ms| t0 + Duration::from_millis(ms);
        let mut f = asking();
        assert!(f.feed(esc(), at(0)).is_empty());
        assert_eq!(f.due(), Some(at(500)));
        assert!(f.flush(at(499)).is_empty());
        assert_eq!(f.flush(at(500)), vec![esc()]);
        // A key that opens no reply: the Esc acts, then the key.
        assert_eq!(
            timed_in(asking(), &[(0, esc()), (200, ch('y'))]),
            vec![esc(), ch('y')]
        );
        // Within 100 ms a letter still makes it Alt.
        assert_eq!(
            timed_in(asking(), &[(0, esc()), (50, ch('b'))]),
            vec![alt('b')]
        );
        // A reply's opening that turns out to be none: Esc, then the keys.
        assert_eq!(
            timed_in(asking(), &[(0, esc()), (200, ch('[')), (210, ch('q'))]),
            vec![esc(), ch('['), ch('q')]
        );
        let enter = KeyEvent::new(KeyCode::Enter, KeyModifiers::NONE);
        assert_eq!(
            timed_in(asking(), &[(0, esc()), (200, ch(']')), (210, enter)]),
            vec![esc(), ch(']'), enter]
        );
        // A lone `[` is given out with its Esc once the reply wait is over.
        assert_eq!(
            timed_in(asking(), &[(0, esc()), (300, ch('['))]),
            vec![esc(), ch('[')]
        );
        // A cursor key split after its ESC is that key alone.
        let down = KeyEvent::new(KeyCode::Down, KeyModifiers::NONE);
        assert_eq!(
            timed_in(asking(), &[(0, esc()), (300, ch('[')), (301, ch('B'))]),
            vec![down]
        );
        // Later than the longer wait, the Esc has acted: `[` after it is
        // still recognised as a reply's start.
        let mut keys = vec![(0, esc())];
        keys.extend(typed_at(600, "[12;5R"));
        assert_eq!(timed_in(asking(), &keys), vec![esc()]);
        // Thrown away with typeahead, the held Esc and `[` are never given.
        let mut f = asking();
        let mut out = f.feed(esc(), at(0));
        out.extend(f.feed(ch('['), at(200)));
        f.discarded();
        out.extend(f.feed(ch('a'), at(300)));
        out.extend(f.flush(at(5000)));
        assert_eq!(out, vec![ch('a')]);
        // An Esc keeps the wait it was read with.
        let mut f = KeyFilter::default();
        assert!(f.feed(esc(), at(0)).is_empty());
        f.set_esc_discards(true);
        assert_eq!(f.due(), Some(at(100)));
    }
}
