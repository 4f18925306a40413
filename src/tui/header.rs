//! The header every request screen draws above its body: who asks (the
//! server, how it was launched, the call that asked, the adapter), the
//! request's place in the run, the `--timeout` countdown with its extend
//! key, and a banner; shortened on a narrow or short screen. Every
//! server-provided string is sanitised here ([`crate::safe_text`]).

use ratatui::text::{Line, Span};

use crate::binding::{Mode, RequestEvent};
use crate::responder::Progress;
use crate::safe_text::display;

use super::text::{clip, clip_middle, width, wrap};
use super::theme::Theme;

/// Who asks, as the header shows it.
#[derive(Debug, Clone)]
pub struct Header {
    /// The server's name (shown as `Title (name version)`; unsanitised).
    pub server_name: String,
    /// The server's title, if it gave one (unsanitised).
    pub server_title: Option<String>,
    /// The server's version, if it gave one (unsanitised).
    pub server_version: Option<String>,
    /// `source.adapter`.
    pub adapter: String,
    /// The request's mode.
    pub mode: Mode,
    /// Which request of how many this is.
    pub progress: Progress,
    /// Seconds left before `--timeout` cancels, if any.
    pub seconds_left: Option<u64>,
    /// Seconds [`EXTEND_KEY`] adds to the time left (None: no timeout).
    pub extend_secs: Option<u64>,
    /// The server as the person launched it: the command or URL they gave
    /// (unsanitised; [`crate::responder::Origin::launched`]).
    pub launched: Option<String>,
    /// The call that asked: method and name from `extensions.mcp.call`, or
    /// the front door's fuller line with the arguments (unsanitised).
    pub call: Option<String>,
    /// A warning about the request that keeps it open, under the first
    /// line (trusted text: e.g. [`crate::responder::CALL_FINISHED_BANNER`]).
    pub banner: Option<String>,
    /// The screen asks the arguments of this call (`tools/call NAME`,
    /// `prompts/get NAME`; unsanitised), not a request of the server's:
    /// the header says "Arguments for" it where a request says how many
    /// there are and who relayed it.
    pub arguments_for: Option<String>,
    /// The form stands for the server's `sampling/createMessage`: the
    /// person writes the model's reply (the header says so where a form
    /// says who relayed it).
    pub sampling: bool,
}

impl Header {
    /// The header of a request.
    pub fn of(req: &RequestEvent, progress: Progress) -> Self {
        Header {
            server_name: req.server.name.clone(),
            server_title: req.server.title.clone(),
            server_version: req.server.version.clone(),
            adapter: req.adapter.clone(),
            mode: req.mode,
            progress,
            seconds_left: None,
            extend_secs: None,
            launched: None,
            call: crate::responder::request_call(req),
            banner: None,
            arguments_for: None,
            sampling: crate::scripted::rules::method_of(req)
                == crate::scripted::rules::SAMPLING_METHOD,
        }
    }

    /// The header of a request with what the front door knows of who
    /// asked ([`crate::responder::Origin`]): its call line replaces the
    /// event's `extensions.mcp.call`.
    pub fn with_origin(mut self, origin: Option<crate::responder::Origin>) -> Self {
        if let Some(o) = origin {
            self.launched = o.launched;
            if o.call.is_some() {
                self.call = o.call;
            }
        }
        self
    }
}

/// The words for a request's mode and the program that relayed it, for a
/// newcomer: `A form, relayed by mcp-stdio`.
pub fn relayed_line(mode: Mode, adapter: &str) -> String {
    let what = match mode {
        Mode::Form => "A form",
        Mode::Url => "A web page to open",
    };
    format!("{what}, relayed by {}", display(adapter))
}

/// What a sampling request is, said where a form says who relayed it: the
/// server asks for a model's reply, which the person writes.
pub fn sampling_line(adapter: &str) -> String {
    format!(
        "A request for a model's reply (sampling/createMessage), relayed by {}: you write the reply, sent as model \"human\"",
        display(adapter)
    )
}

/// The key that gives the request on screen more time (`--timeout`): the
/// deadline moves on by the time the request had when it first appeared.
pub const EXTEND_KEY: &str = "Ctrl-T";

/// The countdown a header or title shows: ` · 42s left`, with the key that
/// adds `extend` seconds when there is one (` · 42s left · Ctrl-T +60s`);
/// long times in larger units ([`crate::responder::short_duration`]:
/// ` · 1h59m left · Ctrl-T +2h00m`).
pub fn countdown(left: u64, extend: Option<u64>) -> String {
    let left = crate::responder::short_duration(left);
    match extend {
        Some(e) => format!(
            " · {left} left · {EXTEND_KEY} +{}",
            crate::responder::short_duration(e)
        ),
        None => format!(" · {left} left"),
    }
}

/// The cells the server's name keeps before the counts in the header's
/// first line when the counts can be shortened to leave them (the progress
/// as `1/3`, then the countdown without the extend key).
pub const WHO_ROOM: usize = 12;

/// Below this many rows the header is compact: who asks and the progress on
/// one line, the secret warning (if any) on one clipped line, then the rule,
/// so a 12-row screen still shows the focused field's input at once.
pub const COMPACT_HEADER_BELOW: u16 = 16;

/// The compact header's one origin line, `w` cells wide at most: the
/// launch and the call joined by " · ", each keeping a share when both do
/// not fit. The launch is cut in the middle (its end names the program and
/// its arguments) to at most half the line unless the call needs less; the
/// call is cut at its end. None when there is neither.
fn origin_line(launched: Option<&str>, call: Option<&str>, w: usize) -> Option<String> {
    const JOIN: &str = " · ";
    match (launched, call) {
        (None, None) => None,
        (Some(l), None) => Some(clip_middle(l, w)),
        (None, Some(c)) => Some(clip(c, w)),
        (Some(l), Some(c)) => {
            let room = w.saturating_sub(width(JOIN));
            if width(l) + width(c) <= room {
                return Some(format!("{l}{JOIN}{c}"));
            }
            let half = room / 2;
            // The launch gets what the call leaves of its half, and never
            // less than half the room.
            let for_launch = room.saturating_sub(width(c)).max(half).min(width(l));
            let for_call = room - for_launch;
            // The label ("Launched as: ", "Connected to: ") stays whole;
            // what follows is cut in the middle, or from its start when
            // too little room is left for a middle cut. With less room
            // still the label goes, so the end of the command can show.
            let launch = match l.split_once(": ") {
                Some((label, rest)) if width(label) + 2 + 12 > for_launch => {
                    crate::tui::text::clip_start(rest, for_launch)
                }
                Some((label, rest)) => {
                    let left = for_launch - width(label) - 2;
                    let rest = if left >= 16 {
                        clip_middle(rest, left)
                    } else {
                        crate::tui::text::clip_start(rest, left)
                    };
                    format!("{label}: {rest}")
                }
                _ => clip_middle(l, for_launch),
            };
            Some(format!("{launch}{JOIN}{}", clip(c, for_call)))
        }
    }
}

/// The header's lines, `w` cells wide: the server and the request count
/// (with the clock) on the first row, the `--banner`, then who relayed,
/// launched and asked, the secret warning, and a rule. `compact` (a short
/// window) keeps each of those to one line.
pub(super) fn header_lines(
    h: &Header,
    theme: &Theme,
    w: usize,
    secret: Option<&str>,
    compact: bool,
) -> Vec<Line<'static>> {
    let mut out = vec![title_row(h, theme, w)];
    if let Some(b) = &h.banner {
        if compact {
            out.push(Line::styled(clip(b, w), theme.warning()));
        } else {
            for l in wrap(b, w) {
                out.push(Line::styled(l, theme.warning()));
            }
        }
    }
    if compact {
        compact_origin(h, theme, w, secret, &mut out);
    } else {
        full_origin(h, theme, w, secret, &mut out);
    }
    out.push(Line::styled("─".repeat(w), theme.border()));
    out
}

/// The label that opens the header's first row: what follows is how the
/// server names itself, not the program's own heading, so a server title
/// that imitates ours ("ahp-elicit — Confirm your password") reads as the
/// server's words.
pub const SERVER_LABEL: &str = "Server: ";

/// [`SERVER_LABEL`], then the server as it names itself (title, name and
/// version, escaped, in the style of server text) on the left, and the
/// request count with the clock on the right, in `w` cells: the count
/// shortens before the server's name is cut below [`WHO_ROOM`] cells; the
/// label is never cut.
fn title_row(h: &Header, theme: &Theme, w: usize) -> Line<'static> {
    let mut who = String::new();
    if let Some(t) = &h.server_title {
        who.push_str(&display(t));
        who.push_str(" (");
    }
    who.push_str(&display(&h.server_name));
    if let Some(v) = &h.server_version {
        who.push(' ');
        who.push_str(&display(v));
    }
    if h.server_title.is_some() {
        who.push(')');
    }
    let label = width(SERVER_LABEL);
    // The counts, from the fullest to the shortest, until the server keeps
    // at least WHO_ROOM cells (or all it needs) before them.
    let short_who = display(h.server_title.as_deref().unwrap_or(&h.server_name)).into_owned();
    let wanted = label + width(&short_who).min(WHO_ROOM) + 1;
    let clock = |extend| {
        h.seconds_left
            .map(|s| countdown(s, extend))
            .unwrap_or_default()
    };
    // A form of arguments is no request: no count.
    let count = |label: String| match h.arguments_for {
        Some(_) => String::new(),
        None => label,
    };
    let candidates = [
        format!("{}{}", count(h.progress.label()), clock(h.extend_secs)),
        format!(
            "{}{}",
            count(h.progress.short_label()),
            clock(h.extend_secs)
        ),
        format!("{}{}", count(h.progress.short_label()), clock(None)),
    ];
    let last = candidates[2].clone();
    let right = candidates
        .into_iter()
        .find(|r| w >= width(r) + wanted)
        .unwrap_or(last);
    let room = w.saturating_sub(width(&right) + 1 + label);
    let left = if width(&who) <= room {
        who
    } else {
        clip(&short_who, room)
    };
    let pad = w.saturating_sub(label + width(&left) + width(&right));
    Line::from(vec![
        Span::styled(SERVER_LABEL, theme.title()),
        Span::styled(left, theme.text()),
        Span::raw(" ".repeat(pad)),
        Span::styled(right, theme.muted()),
    ])
}

/// A short window's origin: who launched what and which call asked on one
/// line (it still says who is asking beyond the name the server gives
/// itself), and the secret warning cut to one line.
fn compact_origin(
    h: &Header,
    theme: &Theme,
    w: usize,
    secret: Option<&str>,
    out: &mut Vec<Line<'static>>,
) {
    let launched = h
        .launched
        .as_deref()
        .map(|l| display(&crate::responder::launched_line(l)).into_owned());
    let call = match &h.arguments_for {
        Some(a) => Some(format!("arguments for {}", display(a))),
        None => h
            .call
            .as_deref()
            .map(|c| format!("asked during {}", display(c))),
    };
    if let Some(line) = origin_line(launched.as_deref(), call.as_deref(), w) {
        out.push(Line::styled(line, theme.text()));
    }
    if let Some(what) = secret {
        let warn = format!("⚠ {}: secrets must use URL mode", display(what));
        out.push(Line::styled(clip(&warn, w), theme.warning()));
    }
}

/// The full origin: who relayed the request (wrapped), who launched what
/// and which call asked (each cut to one line), and the secret warning
/// (wrapped).
fn full_origin(
    h: &Header,
    theme: &Theme,
    w: usize,
    secret: Option<&str>,
    out: &mut Vec<Line<'static>>,
) {
    match &h.arguments_for {
        Some(a) => {
            let line = format!("Arguments for {}", display(a));
            out.push(Line::styled(clip(&line, w), theme.text()));
        }
        None => {
            let via = if h.sampling {
                sampling_line(&h.adapter)
            } else {
                relayed_line(h.mode, &h.adapter)
            };
            for l in wrap(&via, w) {
                out.push(Line::styled(l, theme.muted()));
            }
        }
    }
    if let Some(l) = &h.launched {
        // Cut in the middle: the end names the program and its arguments.
        let line = display(&crate::responder::launched_line(l)).into_owned();
        out.push(Line::styled(clip_middle(&line, w), theme.text()));
    }
    if let Some(c) = &h.call {
        let line = format!("Asked during: {}", display(c));
        out.push(Line::styled(clip(&line, w), theme.text()));
    }
    if let Some(what) = secret {
        let warn = format!("⚠ This form seems to ask for a secret: {}. Servers must use URL mode for secrets: do not type passwords, tokens, keys or card numbers here.", display(what));
        for l in wrap(&warn, w) {
            out.push(Line::styled(l, theme.warning()));
        }
    }
}
