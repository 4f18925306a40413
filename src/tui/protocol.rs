//! The protocol view: the session's trace ([`crate::responder::trace`])
//! on the full screen, one key ([`PROTOCOL_KEY`]) away from every screen
//! of a session (the tool list, the arguments form, the waiting screen,
//! a result, an elicitation form, the URL consent). Each message on one
//! row: direction, time since the start, method and id, size, outcome; it
//! follows new messages while the last row is selected; Enter shows a
//! message's body (pretty JSON, escaped, redacted as in `--log`); `w` saves
//! the trace as JSON lines; `s` puts the trace beside every screen, at
//! widths from [`SPLIT_MIN_WIDTH`] columns, where the screen keeps the keys
//! ([`draw_beside`]); the key again or Esc returns to the screen it was
//! opened from, as it was.

use std::sync::Arc;

use ratatui::backend::TestBackend;
use ratatui::layout::Rect;
use ratatui::text::Line;
use ratatui::widgets::{Block, Borders, Paragraph};
use ratatui::{Frame, Terminal};

use super::chrome::help_line;
use super::guard::ConsentGuard;
use super::terminal::{read_input, read_input_until_asked, Input};
use super::text::clip;
use super::theme::Theme;
use super::{Screen, TuiResponder, TICK};
use crate::form::Key;
use crate::responder::trace::{elapsed, size_words, Entry, Trace};
use crate::responder::RespondError;
use crate::responder::{Context, Outcome};
use crate::safe_text::display;

/// The key that opens the protocol view, and closes it.
pub(super) const PROTOCOL: Key = Key::Ctrl('p');

/// [`PROTOCOL`] as the help and the docs name it.
pub const PROTOCOL_KEY: &str = "Ctrl-P";

/// The narrowest terminal on which the trace is drawn beside a screen.
pub const SPLIT_MIN_WIDTH: u16 = 140;

/// The columns a screen keeps when the trace is beside it.
const SCREEN_COLUMNS: u16 = 80;

/// What the full screen knows of the session's trace: the trace itself
/// (an empty one until a session hands its own over) and whether it is
/// drawn beside every screen.
#[derive(Debug, Default)]
pub(super) struct Protocol {
    pub(super) trace: Arc<Trace>,
    pub(super) beside: bool,
}

/// What a key on the view asks of its loop.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ViewStep {
    /// Keep the view.
    Continue,
    /// Back to the screen it was opened from.
    Back,
    /// Save the trace ([`save`]) to this file.
    SaveTo(std::path::PathBuf),
    /// Put the trace beside every screen, or stop, and go back.
    Beside,
    /// Ctrl-C: back, and the screen takes it.
    CtrlC,
}

/// The protocol view's state: the selected message, by its number, so it
/// stays selected while older ones are dropped (None: the last, following
/// new messages), the first row drawn, the body open, a note.
#[derive(Debug, Default)]
pub(crate) struct ProtocolView {
    selected: Option<u64>,
    top: usize,
    /// The message whose body is shown, and the first line drawn.
    body: Option<(Entry, usize)>,
    /// What the last action said (where the trace was saved).
    note: Option<String>,
    /// `w` was pressed: the file to save to, as being typed (it starts
    /// as [`default_save_path`]).
    saving: Option<String>,
    /// Rows of the list (or of the body) drawn by the last frame.
    rows: usize,
    /// Columns of the last frame (whether `s` can put the trace beside).
    width: u16,
    /// The session's roots line ([`Trace::roots`]), shown under the title.
    pub(crate) roots: Option<String>,
}

impl ProtocolView {
    /// Say `note` under the title until the next one.
    pub(crate) fn put_note(&mut self, note: String) {
        self.note = Some(note);
    }

    /// The row of the selected message in `entries` (the last when
    /// following; the first when it was dropped).
    fn at(&self, entries: &[Entry]) -> usize {
        match self.selected {
            None => entries.len().saturating_sub(1),
            Some(number) => entries
                .iter()
                .position(|e| e.number >= number)
                .unwrap_or(entries.len().saturating_sub(1)),
        }
    }

    /// A key while the file to save to is asked: typing edits it (Ctrl-U
    /// clears it), Enter saves, Esc asks no more.
    fn save_key(&mut self, k: &Key) -> ViewStep {
        let Some(path) = self.saving.as_mut() else {
            return ViewStep::Continue;
        };
        match k {
            Key::Enter if !path.trim().is_empty() => {
                let to = std::path::PathBuf::from(path.trim());
                self.saving = None;
                return ViewStep::SaveTo(to);
            }
            Key::Esc => self.saving = None,
            Key::Char(c) => path.push(*c),
            Key::Paste(t) => path.extend(t.chars().filter(|c| !c.is_control())),
            Key::Backspace => {
                path.pop();
            }
            Key::Ctrl('u') => path.clear(),
            _ => {}
        }
        ViewStep::Continue
    }

    /// One key, with `entries` the trace as drawn.
    pub(crate) fn key(&mut self, k: &Key, entries: &[Entry]) -> ViewStep {
        if self.saving.is_some() && *k != Key::Ctrl('c') {
            return self.save_key(k);
        }
        match k {
            k if *k == PROTOCOL => return ViewStep::Back,
            Key::Ctrl('c') => return ViewStep::CtrlC,
            Key::Char('w') => {
                self.saving = Some(default_save_path().display().to_string());
                return ViewStep::Continue;
            }
            Key::Char('s') if self.body.is_none() => return ViewStep::Beside,
            _ => {}
        }
        let page = self.rows.max(1) as isize;
        if let Some((e, scroll)) = &mut self.body {
            let last = e.body_lines().len().saturating_sub(1);
            let moved = match k {
                Key::Esc | Key::Backspace | Key::Left => {
                    self.body = None;
                    return ViewStep::Continue;
                }
                Key::Up => *scroll as isize - 1,
                Key::Down => *scroll as isize + 1,
                Key::PageUp => *scroll as isize - page,
                Key::PageDown => *scroll as isize + page,
                Key::Home => 0,
                Key::End => last as isize,
                _ => return ViewStep::Continue,
            };
            *scroll = moved.clamp(0, last as isize) as usize;
            return ViewStep::Continue;
        }
        let n = entries.len();
        if n == 0 {
            return match k {
                Key::Esc | Key::Char('q') => ViewStep::Back,
                _ => ViewStep::Continue,
            };
        }
        let at = self.at(entries) as isize;
        let to = match k {
            Key::Esc | Key::Char('q') => return ViewStep::Back,
            Key::Enter => {
                self.body = Some((entries[at as usize].clone(), 0));
                return ViewStep::Continue;
            }
            Key::Up => at - 1,
            Key::Down => at + 1,
            Key::PageUp => at - page,
            Key::PageDown => at + page,
            Key::Home => 0,
            Key::End => n as isize - 1,
            _ => return ViewStep::Continue,
        };
        let to = to.clamp(0, n as isize - 1) as usize;
        // On the last row the view follows new messages.
        self.selected = (to + 1 < n).then(|| entries[to].number);
        ViewStep::Continue
    }

    /// Draw the view of `entries` (`dropped`: older messages no longer
    /// kept; `waiting`: a request waits behind the view).
    pub(crate) fn draw(
        &mut self,
        f: &mut Frame,
        theme: &Theme,
        entries: &[Entry],
        dropped: u64,
        waiting: bool,
    ) {
        let a = f.area();
        self.width = a.width;
        let w = a.width as usize;
        if a.height < 4 || w < 20 {
            let l = Line::styled(clip("Too small: Esc goes back", w), theme.error());
            f.render_widget(Paragraph::new(l), a);
            return;
        }
        let mut head = vec![self.title(entries.len(), dropped, theme, w)];
        if let (Some(r), None) = (&self.roots, &self.body) {
            head.push(Line::styled(clip(r, w), theme.muted()));
        }
        if waiting {
            head.push(Line::styled(
                clip(
                    &format!("A request is waiting: Esc or {PROTOCOL_KEY} goes back to it."),
                    w,
                ),
                theme.warning(),
            ));
        }
        if let Some(n) = &self.note {
            head.push(Line::styled(clip(n, w), theme.notice()));
        }
        if let Some(path) = &self.saving {
            // The end of the path is where the typing goes: kept in view.
            let label = "Save the trace to: ";
            let shown = super::text::clip_start(&display(path), w.saturating_sub(label.len() + 1));
            let col = (label.len() + super::text::width(&shown)) as u16;
            f.set_cursor_position((a.x + col.min(a.width - 1), a.y + head.len() as u16));
            head.push(Line::styled(format!("{label}{shown}"), theme.focus()));
        }
        let help = match (&self.saving, &self.body) {
            (Some(_), _) => help_line(
                &[
                    "Enter save · Ctrl-U clear · Esc do not save",
                    "Enter save · Esc back",
                ],
                theme,
                w,
            ),
            (None, body) => match body {
            Some(_) => help_line(
                &[
                    "↑↓ PgUp PgDn Home End scroll · Esc back to the list · w save",
                    "↑↓ scroll · Esc back · w save",
                ],
                theme,
                w,
            ),
            None => help_line(
                &[
                    "↑↓ PgUp PgDn Home End move · Enter body · w save · s beside the screen · Esc or Ctrl-P back",
                    "↑↓ move · Enter body · w save · s beside · Esc back",
                    "Enter body · w save · Esc back",
                ],
                theme,
                w,
            ),
            },
        };
        let rows = (a.height as usize).saturating_sub(head.len() + 1);
        self.rows = rows;
        let mut lines = head;
        match &self.body {
            Some((e, scroll)) => {
                let body = e.body_lines();
                let scroll = (*scroll).min(body.len().saturating_sub(1));
                lines[0] = Line::styled(
                    clip(
                        &format!(
                            "Message {}: {}",
                            e.number,
                            row_text(e, w.saturating_sub(10))
                        ),
                        w,
                    ),
                    theme.title(),
                );
                for l in body.iter().skip(scroll).take(rows) {
                    lines.push(Line::styled(clip(l, w), theme.text()));
                }
            }
            None => {
                let n = entries.len();
                let at = self.at(entries);
                if at < self.top {
                    self.top = at;
                } else if rows > 0 && at >= self.top + rows {
                    self.top = at + 1 - rows;
                }
                self.top = self.top.min(n.saturating_sub(rows));
                for (i, e) in entries.iter().enumerate().skip(self.top).take(rows) {
                    let style = if i == at && n > 0 {
                        theme.selected()
                    } else {
                        theme.text()
                    };
                    lines.push(Line::styled(row_text(e, w), style));
                }
                if n == 0 {
                    lines.push(Line::styled("No message yet.", theme.muted()));
                }
            }
        }
        f.render_widget(Paragraph::new(lines), a);
        let help_area = Rect {
            y: a.y + a.height - 1,
            height: 1,
            ..a
        };
        f.render_widget(Paragraph::new(help), help_area);
    }

    /// The first row: how many messages, how many dropped, following.
    fn title(&self, n: usize, dropped: u64, theme: &Theme, w: usize) -> Line<'static> {
        let mut t = format!("Protocol: {n} message{}", if n == 1 { "" } else { "s" });
        if dropped > 0 {
            t.push_str(&format!(" (the {dropped} before them were dropped)"));
        }
        if self.selected.is_none() {
            t.push_str(" · following");
        }
        Line::styled(clip(&t, w), theme.title())
    }
}

/// One message on one row of `w` columns: arrow, time, size and outcome
/// in fixed columns, the method and id (escaped) in the rest.
pub(crate) fn row_text(e: &Entry, w: usize) -> String {
    let fixed = format!(
        "{} {:>9} {:>9}  {:<13}",
        e.direction.arrow(),
        elapsed(e.at),
        size_words(e.size),
        e.kind.words()
    );
    let rest = w.saturating_sub(super::text::width(&fixed) + 1);
    clip(&format!("{fixed} {}", clip(&display(&e.what()), rest)), w)
}

/// The pane of the trace beside a screen: a rule on its left, a title, the
/// last messages that fit (the newest at the bottom).
pub(crate) fn draw_pane(f: &mut Frame, area: Rect, theme: &Theme, entries: &[Entry]) {
    let block = Block::default()
        .borders(Borders::LEFT)
        .border_style(theme.border())
        .title(Line::styled(
            format!(" Protocol · {PROTOCOL_KEY} "),
            theme.title(),
        ));
    let inner = block.inner(area);
    f.render_widget(block, area);
    let w = inner.width.saturating_sub(1) as usize;
    let rows = inner.height as usize;
    let lines: Vec<Line> = entries
        .iter()
        .skip(entries.len().saturating_sub(rows))
        .map(|e| {
            let t = format!(
                "{} {} {} {}",
                e.direction.arrow(),
                elapsed(e.at),
                display(&e.what()),
                e.kind.words()
            );
            Line::styled(clip(&t, w), theme.text())
        })
        .collect();
    let inner = Rect {
        x: inner.x + 1,
        width: inner.width.saturating_sub(1),
        ..inner
    };
    f.render_widget(Paragraph::new(lines), inner);
}

/// Draw a screen with `draw`, and when `p` asks for it and the frame is at
/// least [`SPLIT_MIN_WIDTH`] wide, the trace beside it: the screen is drawn
/// on the left (from the first column, so its cursor and its links keep
/// their places) as on a terminal of that width, the trace on the right.
pub(super) fn draw_beside<R>(
    f: &mut Frame,
    theme: &Theme,
    p: &Protocol,
    draw: impl FnOnce(&mut Frame) -> R,
) -> R {
    let a = f.area();
    if !p.beside || a.width < SPLIT_MIN_WIDTH {
        return draw(f);
    }
    let pane = (a.width - SCREEN_COLUMNS).min(a.width / 2);
    let left = Rect {
        width: a.width - pane,
        ..a
    };
    // A test backend cannot fail (its error type has no value).
    let Ok(mut t) = Terminal::new(TestBackend::new(left.width, left.height));
    let mut out = None;
    let Ok(_) = t.draw(|g| out = Some(draw(g)));
    let Some(out) = out else {
        unreachable!("Terminal::draw runs its callback")
    };
    let src = t.backend().buffer();
    let buf = f.buffer_mut();
    for y in 0..left.height {
        for x in 0..left.width {
            buf[(a.x + x, a.y + y)] = src[(x, y)].clone();
        }
    }
    if t.backend().cursor_visible() {
        let c = t.backend().cursor_position();
        f.set_cursor_position((a.x + c.x, a.y + c.y));
    }
    let right = Rect {
        x: a.x + left.width,
        width: pane,
        ..a
    };
    draw_pane(f, right, theme, &p.trace.entries());
    out
}

/// Where `w` saves the trace by default: `ahp-elicit-trace-TIME.jsonl` in
/// the current directory (`TIME` in UTC, `20261205T071502Z`).
pub fn default_save_path() -> std::path::PathBuf {
    let now = humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string();
    let stamp: String = now.chars().filter(|c| *c != '-' && *c != ':').collect();
    let name = format!("ahp-elicit-trace-{stamp}.jsonl");
    std::env::current_dir()
        .map(|d| d.join(&name))
        .unwrap_or_else(|_| name.into())
}

/// Save `trace` to `path` as JSON lines ([`Trace::json_lines`]), created
/// 0600 and never through a symbolic link ([`crate::files::open_private`]);
/// returns what the view says: where it went, or why not.
pub fn save(trace: &Trace, path: &std::path::Path) -> String {
    use std::io::Write;
    let text = trace.json_lines();
    let n = trace.len();
    let shown = display(&path.display().to_string()).into_owned();
    match crate::files::open_private(path, crate::files::Existing::Truncate)
        .and_then(|mut f| f.write_all(text.as_bytes()).and_then(|()| f.flush()))
    {
        Ok(()) => format!(
            "Saved {n} message{} to {shown}",
            if n == 1 { "" } else { "s" }
        ),
        Err(e) => format!("Not saved to {shown}: {}", crate::files::io_reason(&e)),
    }
}

impl TuiResponder {
    /// [`PROTOCOL`] on a request `screen` (its request's `cx`, its
    /// `deadline`, whether it was `small`): the view until it is closed or
    /// the screen needs the terminal back; then the screen is new to the
    /// `guard` again (its keys count after its grace period), and a Ctrl-C
    /// pressed in the view is the screen's. Some: how the request ended
    /// (that Ctrl-C decided it; a withdrawal that came first is said).
    ///
    /// Errors: the terminal's.
    pub(super) fn protocol_over(
        &mut self,
        screen: &mut dyn Screen,
        cx: &Context,
        deadline: Option<std::time::Instant>,
        guard: &mut ConsentGuard,
        small: bool,
    ) -> Result<Option<Outcome>, RespondError> {
        if self.protocol.trace.version() == 0 {
            return Ok(None);
        }
        let stop = || {
            cx.withdrawn()
                || crate::signals::received().is_some()
                || crate::responder::time_left(deadline) == Some(std::time::Duration::ZERO)
        };
        let passed = self.protocol_view(&stop)?;
        *guard = ConsentGuard::new(screen.grace());
        let Some(o) = passed.and_then(|k| self.dispatch(screen, guard, small, k)) else {
            return Ok(None);
        };
        if matches!(o, Outcome::Answer(_)) && !cx.claim_answer() {
            return self.withdrawn_notice(cx).map(Some);
        }
        Ok(Some(o))
    }

    /// The protocol view on the full screen until Esc or [`PROTOCOL`]
    /// (None) or Ctrl-C (`Some`: the screen it was opened from takes the
    /// key), or until `stop` says the screen below needs the terminal (its
    /// request was withdrawn, its time ran out, a signal came). A new
    /// message wakes it (the arrival pipe); the screen below is drawn
    /// whole again after it.
    ///
    /// Errors: the terminal's.
    pub(super) fn protocol_view(
        &mut self,
        stop: &dyn Fn() -> bool,
    ) -> Result<Option<Key>, RespondError> {
        let trace = Arc::clone(&self.protocol.trace);
        // No message, ever: not a session that speaks JSON-RPC (`respond`,
        // `demo`); the key does nothing there.
        if trace.version() == 0 {
            return Ok(None);
        }
        let mut view = ProtocolView::default();
        self.repaint = true;
        let out = loop {
            if stop() {
                break None;
            }
            self.clear_if_asked()?;
            let seen = trace.version();
            let (entries, dropped) = (trace.entries(), trace.dropped());
            view.roots = trace.roots();
            let waiting = crate::responder::request_waiting();
            let theme = &self.theme;
            self.tty
                .draw(|f| view.draw(f, theme, &entries, dropped, waiting))?;
            // Woken by a key, a new message (the arrival pipe) or the tick;
            // while a request waits, the pipe would wake at once: ticks.
            let changed = || trace.version() != seen;
            let input = if waiting {
                Some(read_input(TICK, false)?)
            } else {
                read_input_until_asked(TICK, true, &changed)?
            };
            let Some(Input::Key(k)) = input else {
                continue;
            };
            if k == Key::Ctrl('l') {
                self.repaint = true;
                continue;
            }
            match view.key(&k, &entries) {
                ViewStep::Continue => {}
                ViewStep::Back => break None,
                ViewStep::CtrlC => break Some(k),
                ViewStep::SaveTo(path) => view.put_note(save(&trace, &path)),
                // Too narrow for the split: said, and the view stays (the
                // split is kept off, as it would not be drawn).
                ViewStep::Beside if !self.protocol.beside && view.width < SPLIT_MIN_WIDTH => {
                    view.put_note(format!(
                        "The trace goes beside the screen from {SPLIT_MIN_WIDTH} columns; this terminal has {}.",
                        view.width
                    ));
                }
                ViewStep::Beside => {
                    self.protocol.beside = !self.protocol.beside;
                    break None;
                }
            }
        };
        self.repaint = true;
        Ok(out)
    }
}

#[cfg(test)]
mod tests;
