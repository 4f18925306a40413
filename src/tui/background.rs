//! The terminal's background, asked once at start so the theme fits it:
//! `default` on a dark background, `light` on a light one, unless a theme is
//! named (`--theme`) or `NO_COLOR` is set.
//!
//! Two sources, the first that answers wins:
//! - OSC 11: `ESC ] 11 ; ? BEL` asks the terminal for its background colour,
//!   followed by a device attributes query (`ESC [ c`), which every terminal
//!   answers, so a terminal that does not know OSC 11 ends the wait at once;
//!   otherwise the wait ends after [`QUERY_WAIT`]. The reply is read from
//!   `/dev/tty` in raw mode before the screen starts, with the signals
//!   already owned by [`crate::signals`] (a signal during the wait gives
//!   the terminal its mode back and ends the run; so does the Ctrl-C key,
//!   once the replies were read, so none is left for the shell); anything
//!   that arrives later is dropped by the key filter ([`super::keys`]);
//! - `COLORFGBG` (`fg;bg` or `fg;extra;bg`, set by rxvt, Konsole and
//!   others): background colour 7 or 9..=15 is light, 0..=6 and 8 dark; an
//!   index of the 256-colour palette (16..=255) goes by its colour's
//!   lightness.
//!
//! Parsing and the choice are pure functions, tested without a terminal.

use std::time::Duration;

/// The longest wait for the terminal's answer to the background query.
/// Long enough for a slow link (ssh with a round trip of most of a second,
/// whose answer may arrive in pieces): a terminal that answers ends the
/// wait with its device attributes reply, one round trip after the query,
/// so only a terminal that answers nothing waits all of it.
pub const QUERY_WAIT: Duration = Duration::from_secs(1);

/// What the background looks like.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Background {
    Dark,
    Light,
}

impl Background {
    /// The built-in theme made for this background.
    pub fn theme_name(self) -> &'static str {
        match self {
            Background::Dark => "default",
            Background::Light => "light",
        }
    }
}

/// The relative luminance (WCAG 2) of an sRGB colour.
pub fn luminance(rgb: [u8; 3]) -> f64 {
    let lin = |c: u8| {
        let c = f64::from(c) / 255.0;
        if c <= 0.04045 {
            c / 12.92
        } else {
            ((c + 0.055) / 1.055).powf(2.4)
        }
    };
    0.2126 * lin(rgb[0]) + 0.7152 * lin(rgb[1]) + 0.0722 * lin(rgb[2])
}

/// The contrast ratio (WCAG 2) of two colours, from 1 to 21.
pub fn contrast(a: [u8; 3], b: [u8; 3]) -> f64 {
    let (la, lb) = (luminance(a), luminance(b));
    let (hi, lo) = if la > lb { (la, lb) } else { (lb, la) };
    (hi + 0.05) / (lo + 0.05)
}

/// Light or dark, by which of black and white text has more contrast on
/// the colour.
pub fn classify(rgb: [u8; 3]) -> Background {
    if contrast(rgb, [0, 0, 0]) > contrast(rgb, [255, 255, 255]) {
        Background::Light
    } else {
        Background::Dark
    }
}

/// The colour in a terminal's OSC 11 reply found in `bytes`
/// (`ESC ] 11 ; rgb:RRRR/GGGG/BBBB`, or `rgba:` with a fourth part, the alpha, left out; ended by BEL or `ESC \`; each part has
/// 1 to 4 hex digits), if there is one.
pub fn parse_osc11(bytes: &[u8]) -> Option<[u8; 3]> {
    let text = String::from_utf8_lossy(bytes);
    let at = text.find("\u{1b}]11;")?;
    let rest = &text[at + 5..];
    let end = rest.find(['\u{7}', '\u{1b}'])?;
    // `rgb:R/G/B`, or `rgba:R/G/B/A` (some terminals with a translucent
    // background; the alpha is left out).
    let spec = rest[..end].trim_start_matches(' ');
    let (spec, parts_wanted) = match spec.strip_prefix("rgba:") {
        Some(s) => (s, 4),
        None => (spec.strip_prefix("rgb:")?, 3),
    };
    let mut out = [0u8; 3];
    let parts: Vec<&str> = spec.split('/').collect();
    if parts.len() != parts_wanted || parts.iter().any(|p| p.is_empty() || p.len() > 4) {
        return None;
    }
    for (o, p) in out.iter_mut().zip(parts) {
        if p.is_empty() || p.len() > 4 {
            return None;
        }
        let v = u32::from_str_radix(p, 16).ok()?;
        let max = (1u32 << (4 * p.len())) - 1;
        *o = u8::try_from(v * 255 / max).ok()?;
    }
    Some(out)
}

/// The background `COLORFGBG` names, if it names one: its last part is the
/// background's colour index. The 16 basic colours go by their names (7
/// and 9..=15 light, 0..=6 and 8 dark, whatever shade a palette gives
/// them); an index of the xterm 256-colour palette (16..=255: the 6x6x6
/// colour cube and the grey ramp) by its colour's lightness
/// ([`xterm_256`], [`classify`]), so 231 and 255 (whites) are light.
pub fn parse_colorfgbg(value: &str) -> Option<Background> {
    let bg: u8 = value.rsplit(';').next()?.trim().parse().ok()?;
    match bg {
        7 | 9..=15 => Some(Background::Light),
        0..=6 | 8 => Some(Background::Dark),
        _ => xterm_256(bg).map(classify),
    }
}

/// The sRGB colour of xterm 256-colour palette index `i` from 16 on: the
/// 6x6x6 cube (16..=231, levels 0, 95, 135, 175, 215, 255) and the grey ramp
/// (232..=255, 8 to 238 in steps of 10). None for the 16 basic colours,
/// which each terminal's palette sets.
pub fn xterm_256(i: u8) -> Option<[u8; 3]> {
    const LEVEL: [u8; 6] = [0, 95, 135, 175, 215, 255];
    match i {
        16..=231 => {
            let n = usize::from(i - 16);
            Some([LEVEL[n / 36], LEVEL[n / 6 % 6], LEVEL[n % 6]])
        }
        232..=255 => {
            let g = 8 + 10 * (i - 232);
            Some([g, g, g])
        }
        _ => None,
    }
}

/// Whether `bytes` holds the end of the terminal's device attributes reply
/// (`ESC [ ? … c`): the terminal has answered everything asked before it.
fn has_da_reply(bytes: &[u8]) -> bool {
    let text = String::from_utf8_lossy(bytes);
    text.find("\u{1b}[?")
        .is_some_and(|at| text[at + 3..].contains('c'))
}

/// The terminal mode to put back while the background query has the
/// terminal in raw mode: the descriptor and the mode it had before.
#[cfg(unix)]
static QUERY_MODE: std::sync::Mutex<Option<(std::os::fd::RawFd, libc::termios)>> =
    std::sync::Mutex::new(None);

/// The mode the query set (raw, signals kept), to set again after a stop.
#[cfg(unix)]
static QUERY_RAW: std::sync::Mutex<Option<libc::termios>> = std::sync::Mutex::new(None);

/// Put back the mode the terminal had before the query (a no-op when no
/// query has it): on every way out, from the signal watcher too.
#[cfg(unix)]
fn give_back_query() {
    let held = QUERY_MODE.lock().unwrap_or_else(|e| e.into_inner()).take();
    if let Some((fd, saved)) = held {
        // SAFETY: `fd` is open while the query runs (the query takes the
        // saved mode out of `QUERY_MODE` before it closes the descriptor);
        // `saved` was read from it.
        unsafe {
            libc::tcsetattr(fd, libc::TCSANOW, &saved);
        }
    }
}

/// For a stop (SIGTSTP): the mode given back, to be set again at
/// [`resume_query`].
#[cfg(unix)]
fn suspend_query() {
    let held = *QUERY_MODE.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((fd, saved)) = held {
        // SAFETY: as in `give_back_query`.
        unsafe {
            libc::tcsetattr(fd, libc::TCSANOW, &saved);
        }
    }
}

/// After a stop: raw mode again while the query still runs.
#[cfg(unix)]
fn resume_query() {
    let held = *QUERY_MODE.lock().unwrap_or_else(|e| e.into_inner());
    let raw = *QUERY_RAW.lock().unwrap_or_else(|e| e.into_inner());
    if let (Some((fd, _)), Some(raw)) = (held, raw) {
        // SAFETY: as in `give_back_query`.
        unsafe {
            libc::tcsetattr(fd, libc::TCSANOW, &raw);
        }
    }
}

/// The query's hold on the terminal, given back by [`crate::signals`] on
/// a signal or a panic.
#[cfg(unix)]
static QUERY_TERMINAL: crate::signals::Terminal = crate::signals::Terminal {
    restore: give_back_query,
    suspend: suspend_query,
    resume: resume_query,
};

/// `mode` made raw for the query (no echo, no line editing, reads that do
/// not wait).
#[cfg(unix)]
fn query_mode(mode: &libc::termios) -> libc::termios {
    let mut raw = *mode;
    // SAFETY: `raw` is a valid termios.
    unsafe { libc::cfmakeraw(&mut raw) };
    raw.c_cc[libc::VMIN] = 0;
    raw.c_cc[libc::VTIME] = 0;
    raw
}

/// Ask the controlling terminal for its background (OSC 11), waiting at
/// most [`QUERY_WAIT`]; None when there is no terminal or no answer.
///
/// The signals are taken over ([`crate::signals::own_terminal`]) before the
/// terminal's mode is changed: SIGTERM, SIGHUP, SIGINT or SIGQUIT while
/// the query waits give the terminal its mode back before the process
/// exits with 128 + the signal. The Ctrl-C key typed while it waits (a
/// byte no reply holds) ends the run as SIGINT does
/// ([`crate::signals::end_as`]), once the terminal's replies were read
/// (at most until [`QUERY_WAIT`] after the query), so none is left unread
/// for the shell.
#[cfg(unix)]
pub fn query_terminal() -> Option<[u8; 3]> {
    use std::io::Write;
    use std::os::fd::AsRawFd;
    let mut tty = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open("/dev/tty")
        .ok()?;
    let fd = tty.as_raw_fd();
    crate::signals::own_terminal(&QUERY_TERMINAL);
    // SAFETY: fd is open for the life of `tty`.
    let saved = unsafe {
        let mut t: libc::termios = std::mem::zeroed();
        if libc::tcgetattr(fd, &mut t) != 0 {
            return None;
        }
        t
    };
    let raw = query_mode(&saved);
    *QUERY_RAW.lock().unwrap_or_else(|e| e.into_inner()) = Some(raw);
    {
        // Recorded before the mode changes, under the lock a signal's
        // restore takes: a signal from here on puts it back.
        let mut held = QUERY_MODE.lock().unwrap_or_else(|e| e.into_inner());
        *held = Some((fd, saved));
        // SAFETY: as above.
        if unsafe { libc::tcsetattr(fd, libc::TCSANOW, &raw) } != 0 {
            *held = None;
            return None;
        }
    }
    let mut got = Vec::new();
    if tty
        .write_all(b"\x1b]11;?\x07\x1b[c")
        .and_then(|()| tty.flush())
        .is_ok()
    {
        read_replies(&mut tty, &mut got);
    }
    give_back_query();
    if let Some(left) = super::keys::ReplyLeft::of(&got) {
        *REPLY_LEFT.lock().unwrap_or_else(|e| e.into_inner()) =
            Some((left, std::time::Instant::now()));
    }
    if got.contains(&CTRL_C) {
        crate::signals::end_as(libc::SIGINT);
        return None;
    }
    parse_osc11(&got)
}

/// Where the replies the query read stopped, when inside one, and when
/// the query ended: the key filter drops the rest when it comes.
static REPLY_LEFT: std::sync::Mutex<Option<(super::keys::ReplyLeft, std::time::Instant)>> =
    std::sync::Mutex::new(None);

/// Take (once) where the replies the background query read stopped inside
/// one, and when: a slow link split a reply after its first bytes, and its
/// rest arrives later as typed keys ([`super::keys::KeyFilter::rest_of_reply`]).
pub fn take_reply_left() -> Option<(super::keys::ReplyLeft, std::time::Instant)> {
    REPLY_LEFT.lock().unwrap_or_else(|e| e.into_inner()).take()
}

/// The byte the Ctrl-C key sends in raw mode.
const CTRL_C: u8 = 0x03;

/// Read the terminal's replies into `got` until the device attributes
/// reply, [`QUERY_WAIT`] or 4 KiB. The Ctrl-C key ends the run, but the
/// replies are still read (until the device attributes reply or the same
/// deadline): the terminal is given back only after them, so a late reply
/// over a slow link never lands in the shell as typed input.
#[cfg(unix)]
fn read_replies(tty: &mut std::fs::File, got: &mut Vec<u8>) {
    use std::io::Read;
    use std::os::fd::AsRawFd;
    let fd = tty.as_raw_fd();
    let end = std::time::Instant::now() + QUERY_WAIT;
    let mut buf = [0u8; 256];
    while std::time::Instant::now() < end && got.len() < 4096 {
        let left = end.saturating_duration_since(std::time::Instant::now());
        let mut pfd = libc::pollfd {
            fd,
            events: libc::POLLIN,
            revents: 0,
        };
        let ms = i32::try_from(left.as_millis()).unwrap_or(0).max(1);
        // SAFETY: one valid pollfd.
        let ready = unsafe { libc::poll(&mut pfd, 1, ms) };
        if ready < 0 && std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted {
            continue;
        }
        if ready <= 0 {
            break;
        }
        match tty.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => got.extend_from_slice(&buf[..n]),
        }
        if has_da_reply(got) {
            break;
        }
    }
}

/// Without a Unix terminal there is nothing to ask.
#[cfg(not(unix))]
pub fn query_terminal() -> Option<[u8; 3]> {
    None
}

/// The background of this process's terminal: the OSC 11 answer, else
/// `COLORFGBG`, else None (the caller keeps `default`).
pub fn detect() -> Option<Background> {
    if let Some(rgb) = query_terminal() {
        return Some(classify(rgb));
    }
    std::env::var("COLORFGBG")
        .ok()
        .and_then(|v| parse_colorfgbg(&v))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn osc11_replies_are_read_in_every_digit_width_and_terminator() {
        assert_eq!(
            parse_osc11(b"\x1b]11;rgb:ffff/ffff/ffff\x1b\\"),
            Some([255, 255, 255])
        );
        assert_eq!(parse_osc11(b"\x1b]11;rgb:1e/1e/2e\x07"), Some([30, 30, 46]));
        assert_eq!(
            parse_osc11(b"\x1b[?62;c\x1b]11;rgb:fdfd/f6f6/e3e3\x07"),
            Some([253, 246, 227])
        );
        assert_eq!(parse_osc11(b"\x1b]11;rgb:f/0/0\x07"), Some([255, 0, 0]));
        assert_eq!(
            parse_osc11(b"\x1b]11;rgba:ffff/ffff/ffff/ffff\x1b\\"),
            Some([255, 255, 255])
        );
        assert_eq!(parse_osc11(b"\x1b]11;rgba:ff/ff/ff\x07"), None);
        assert_eq!(parse_osc11(b"\x1b[?62;22c"), None);
        assert_eq!(parse_osc11(b"\x1b]11;rgb:ff/ff\x07"), None);
        assert_eq!(parse_osc11(b"\x1b]11;rgb:zz/00/00\x07"), None);
    }

    #[test]
    fn light_and_dark_are_told_apart() {
        assert_eq!(classify([255, 255, 255]), Background::Light);
        assert_eq!(classify([253, 246, 227]), Background::Light); // Solarized light
        assert_eq!(classify([0, 43, 54]), Background::Dark); // Solarized dark
        assert_eq!(classify([30, 30, 46]), Background::Dark);
        assert_eq!(parse_colorfgbg("0;15"), Some(Background::Light));
        assert_eq!(parse_colorfgbg("15;0"), Some(Background::Dark));
        assert_eq!(parse_colorfgbg("15;default;0"), Some(Background::Dark));
        assert_eq!(parse_colorfgbg("0;default;7"), Some(Background::Light));
        assert_eq!(parse_colorfgbg("default"), None);
        // The 256-colour palette by lightness: whites and light greys are
        // light, the cube's black and the dark greys dark.
        for light in ["0;231", "0;255", "0;default;254", "0;195", "0;250"] {
            assert_eq!(parse_colorfgbg(light), Some(Background::Light), "{light}");
        }
        for dark in ["15;16", "15;232", "15;236", "15;17", "15;default;238"] {
            assert_eq!(parse_colorfgbg(dark), Some(Background::Dark), "{dark}");
        }
        assert_eq!(xterm_256(231), Some([255, 255, 255]));
        assert_eq!(xterm_256(196), Some([255, 0, 0]));
        assert_eq!(xterm_256(244), Some([128, 128, 128]));
        assert_eq!(xterm_256(15), None);
        assert_eq!(Background::Light.theme_name(), "light");
    }

    #[test]
    fn contrast_follows_wcag() {
        assert!((contrast([0, 0, 0], [255, 255, 255]) - 21.0).abs() < 1e-9);
        assert!((contrast([118, 118, 118], [255, 255, 255]) - 4.54).abs() < 0.01);
    }
}
