//! The tool picker of trying a server by hand ([`crate::browse::Step::Pick`]):
//! the server's tools, one a line (name, title or the first line of the
//! description, whether it takes arguments), narrowed by what the person
//! types; the highlighted tool's description below the list. Every text is
//! the server's: escaped ([`crate::safe_text::display`]) and cut to the
//! screen.
//!
//! Keys: a character adds to the filter (a name, title or description
//! containing it, case-insensitively), Backspace takes one back; ↑ ↓
//! PageUp PageDown move; Enter picks; Esc clears the filter, or on an empty
//! filter leaves; `q` on an empty filter leaves.

use std::time::Duration;

use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use ratatui::Frame;

use super::text::{clip, width, wrap};
use super::theme::Theme;
use super::{Clock, Screen, Step};
use crate::binding::{Action, Answer};
use crate::browse::{Kind, ListFeed, ToolEntry};
use crate::form::Key;
use crate::responder::{Outcome, Progress};
use crate::safe_text::display;

/// How long the list must have been on screen before a key counts: a pick
/// calls a tool, so a key typed for the screen before never picks one.
const PICK_GUARD: Duration = Duration::from_millis(300);
/// Most lines of the highlighted tool's description shown under the list.
const ABOUT_LINES: usize = 4;

/// What the person did on the list.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Picked {
    /// The tool at this index of the full list.
    Tool(usize),
    /// Leave the list (Esc or `q` on an empty filter).
    Leave,
}

/// The list's state: the tools, the filter, the highlighted line.
pub struct Picker {
    tools: Vec<ToolEntry>,
    filter: String,
    /// Index into [`Picker::shown`].
    at: usize,
    /// The first line of the list on screen.
    top: usize,
    picked: Option<Picked>,
    /// A line about what just happened (a call that was cancelled, the
    /// list changed), shown under the filter.
    note: Option<String>,
    /// Where a fresh list comes from while the picker is on screen.
    feed: Option<ListFeed>,
    /// A fresh list moved the highlight to another entry: Enter would now
    /// pick something else, so keys wait for the guard again.
    moved: bool,
}

impl Picker {
    /// A list of `tools`, highlighting `last` (an index of `tools`).
    pub fn new(tools: Vec<ToolEntry>, last: Option<usize>) -> Self {
        let at = last.filter(|&i| i < tools.len()).unwrap_or(0);
        Picker {
            tools,
            filter: String::new(),
            at,
            top: 0,
            picked: None,
            note: None,
            feed: None,
            moved: false,
        }
    }

    /// The same list, put again from `feed` whenever the front door posts
    /// a fresh one ([`Picker::refresh`]).
    pub fn fed_by(mut self, feed: ListFeed) -> Self {
        self.feed = Some(feed);
        self.refresh();
        self
    }

    /// Take the fresh list the feed holds, if any: the same entry stays
    /// highlighted when it is still listed (else the one at its place),
    /// the filter stays, and the line saying what changed is the note.
    pub fn refresh(&mut self) {
        let Some((tools, said)) = self.feed.as_ref().and_then(ListFeed::take) else {
            return;
        };
        let kept = self
            .highlighted()
            .map(|i| (self.tools[i].kind, self.tools[i].name.clone()));
        self.tools = tools;
        if let Some((kind, name)) = kept {
            let shown = self.shown();
            match shown
                .iter()
                .position(|&i| self.tools[i].kind == kind && self.tools[i].name == name)
            {
                Some(at) => self.at = at,
                None => {
                    self.at = self.at.min(shown.len().saturating_sub(1));
                    self.moved = true;
                }
            }
        }
        if !said.is_empty() {
            self.note = Some(said);
        }
    }

    /// The same list saying `note` (safe text) under its filter.
    pub fn with_note(mut self, note: Option<String>) -> Self {
        self.note = note;
        self
    }

    /// What the person did, once the screen is done (None: nothing yet, or
    /// Ctrl-C).
    pub fn picked(&self) -> Option<Picked> {
        self.picked
    }

    /// The filter typed so far.
    pub fn filter(&self) -> &str {
        &self.filter
    }

    /// The indexes (into the full list) of the tools the filter keeps, in
    /// order.
    pub fn shown(&self) -> Vec<usize> {
        self.tools
            .iter()
            .enumerate()
            .filter(|(_, t)| t.matches(&self.filter))
            .map(|(i, _)| i)
            .collect()
    }

    /// The index (into the full list) of the highlighted tool.
    pub fn highlighted(&self) -> Option<usize> {
        self.shown().get(self.at).copied()
    }

    /// Handle one key; returns the choice once made.
    pub fn on_key(&mut self, k: &Key) -> Option<Picked> {
        let n = self.shown().len();
        let last = n.saturating_sub(1);
        match k {
            Key::Enter => {
                let i = self.highlighted()?;
                self.picked = Some(Picked::Tool(i));
            }
            Key::Esc if !self.filter.is_empty() => {
                self.filter.clear();
                self.at = 0;
            }
            Key::Esc => self.picked = Some(Picked::Leave),
            Key::Char('q') if self.filter.is_empty() => self.picked = Some(Picked::Leave),
            Key::Char(c) => {
                self.filter.push(*c);
                self.at = 0;
            }
            Key::Paste(s) => {
                self.filter
                    .extend(s.chars().filter(|c| !c.is_control()).take(200));
                self.at = 0;
            }
            Key::Backspace => {
                self.filter.pop();
                self.at = 0;
            }
            Key::Up => self.at = self.at.saturating_sub(1),
            Key::Down => self.at = (self.at + 1).min(last),
            Key::PageUp => self.at = self.at.saturating_sub(10),
            Key::PageDown => self.at = (self.at + 10).min(last),
            Key::Home => self.at = 0,
            Key::End => self.at = last,
            _ => {}
        }
        self.picked
    }

    /// One line of the list: marker, name, what it is about, whether it
    /// takes arguments; cut to `w` columns.
    fn line(&self, i: usize, on: bool, theme: &Theme, w: usize) -> Line<'static> {
        let t = &self.tools[i];
        let about = t.about();
        let args = format!("  {}", t.tag());
        let marker = if on { "› " } else { "  " };
        let name = display(&t.name).into_owned();
        let about = display(about).into_owned();
        let room = w.saturating_sub(width(marker) + width(&args));
        let name = clip(&name, room.max(1));
        let about_room = room.saturating_sub(width(&name) + 3);
        let mut spans = vec![
            Span::styled(marker, theme.focus()),
            Span::styled(
                name,
                if on {
                    theme.selected()
                } else {
                    theme.label(false)
                },
            ),
        ];
        if !about.is_empty() && about_room > 1 {
            spans.push(Span::styled(
                format!(" — {}", clip(&about, about_room)),
                theme.text(),
            ));
        }
        spans.push(Span::styled(args, theme.muted()));
        Line::from(spans)
    }

    /// Draw the list in `area`.
    pub fn draw(&mut self, f: &mut Frame, theme: &Theme, area: Rect) {
        self.refresh();
        let w = area.width as usize;
        let shown = self.shown();
        self.at = self.at.min(shown.len().saturating_sub(1));
        let mut lines = vec![
            Line::styled(
                clip(
                    &format!(
                        "{}: {} of {} shown",
                        if self.tools.iter().all(|t| t.kind == Kind::Tool) {
                            "The server's tools"
                        } else {
                            "The server's tools, prompts and resources"
                        },
                        shown.len(),
                        self.tools.len()
                    ),
                    w,
                ),
                theme.title(),
            ),
            Line::from(vec![
                Span::styled("Filter: ", theme.label(false)),
                Span::styled(
                    clip(&display(self.filter()), w.saturating_sub(9)),
                    theme.input(true),
                ),
                Span::styled("▏", theme.focus()),
            ]),
            match &self.note {
                Some(n) => Line::styled(clip(n, w), theme.notice()),
                None => Line::raw(""),
            },
        ];
        let about: Vec<String> = self
            .highlighted()
            .and_then(|i| self.tools[i].description.as_deref())
            .map(|d| {
                d.lines()
                    .flat_map(|l| wrap(&display(l), w.max(1)))
                    .take(ABOUT_LINES)
                    .collect()
            })
            .unwrap_or_default();
        // Title, filter, blank; blank, description, help.
        let fixed = 3 + 1 + about.len() + 1;
        let rows = (area.height as usize).saturating_sub(fixed).max(1);
        if self.at < self.top {
            self.top = self.at;
        } else if self.at >= self.top + rows {
            self.top = self.at + 1 - rows;
        }
        if shown.is_empty() {
            lines.push(Line::styled("Nothing matches the filter.", theme.muted()));
        }
        for (n, &i) in shown.iter().enumerate().skip(self.top).take(rows) {
            lines.push(self.line(i, n == self.at, theme, w));
        }
        while lines.len() < 3 + rows {
            lines.push(Line::raw(""));
        }
        lines.push(Line::raw(""));
        lines.extend(about.into_iter().map(|l| Line::styled(l, theme.text())));
        lines.push(super::chrome::help_line(
            &[
                "type to filter · ↑↓ choose · Enter: pick (a tool without arguments is called at once) · Esc: clear the filter, or leave · q: leave · ^P: protocol",
                "type to filter · ↑↓ · Enter: pick · Esc/q: leave · ^P: protocol",
                "type to filter · ↑↓ · Enter: pick · Esc/q: leave",
                "Enter: pick · Esc: leave",
            ],
            theme,
            w,
        ));
        f.render_widget(Paragraph::new(lines), area);
    }
}

/// The picker as a screen of the terminal loop (Ctrl-C, the guard, the
/// resize are the loop's). Done with an accept once the person chose
/// ([`Picker::picked`] says what).
pub(crate) struct PickerScreen(pub Picker);

impl Screen for PickerScreen {
    fn grace(&self) -> Duration {
        PICK_GUARD
    }

    fn draw(&mut self, f: &mut Frame, theme: &Theme, _clock: Option<Clock>) -> bool {
        if super::chrome::too_small_saying(f, theme, "press Esc or q to leave", "Esc/q: leave") {
            // The list follows the server all the same.
            self.0.refresh();
            return false;
        }
        let area = f.area();
        self.0.draw(f, theme, area);
        true
    }

    fn key(&mut self, k: &Key) -> Step {
        match self.0.on_key(k) {
            Some(_) => Step::Done(Outcome::Answer(Answer::bare(Action::Accept))),
            None => Step::Continue,
        }
    }

    /// Too small to show the list: Esc and `q` leave (nothing is picked
    /// blind).
    fn small_key(&mut self, k: &Key) -> Option<Step> {
        matches!(k, Key::Esc | Key::Char('q')).then(|| {
            self.0.picked = Some(Picked::Leave);
            Step::Done(Outcome::Answer(Answer::bare(Action::Accept)))
        })
    }

    fn put_progress(&mut self, _progress: Progress) {}

    /// A fresh list took the highlighted entry away: a key typed for it
    /// never picks the one now in its place.
    fn keys_changed(&mut self) -> bool {
        std::mem::take(&mut self.0.moved)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tools() -> Vec<ToolEntry> {
        let t = |name: &str, title: Option<&str>, description: Option<&str>, args| ToolEntry {
            kind: Kind::Tool,
            name: name.into(),
            title: title.map(Into::into),
            description: description.map(Into::into),
            takes_arguments: args,
        };
        vec![
            t(
                "book_table",
                Some("Book a table"),
                Some("Books a table.\nSecond line."),
                true,
            ),
            t(
                "ask_survey",
                None,
                Some("Asks a short survey\u{202e} through a form"),
                false,
            ),
            t("set_mood", Some("Set the mood"), None, true),
            t("quit_job", None, None, false),
        ]
    }

    fn typed(p: &mut Picker, s: &str) {
        for c in s.chars() {
            p.on_key(&Key::Char(c));
        }
    }

    #[test]
    fn typing_filters_by_name_title_and_description() {
        let mut p = Picker::new(tools(), None);
        assert_eq!(p.shown(), [0, 1, 2, 3]);
        typed(&mut p, "MOOD");
        assert_eq!(p.shown(), [2]);
        p.on_key(&Key::Backspace);
        p.on_key(&Key::Backspace);
        p.on_key(&Key::Backspace);
        p.on_key(&Key::Backspace);
        typed(&mut p, "survey");
        assert_eq!(p.shown(), [1]);
        assert_eq!(p.on_key(&Key::Enter), Some(Picked::Tool(1)));
    }

    #[test]
    fn q_leaves_only_on_an_empty_filter_and_esc_clears_it_first() {
        let mut p = Picker::new(tools(), None);
        typed(&mut p, "job");
        assert_eq!(p.shown(), [3]);
        // Typed, not a leave: the filter is not empty.
        assert_eq!(p.on_key(&Key::Char('q')), None);
        assert_eq!(p.filter(), "jobq");
        assert_eq!(p.on_key(&Key::Esc), None);
        assert_eq!(p.filter(), "");
        assert_eq!(p.on_key(&Key::Esc), Some(Picked::Leave));
        let mut p = Picker::new(tools(), None);
        assert_eq!(p.on_key(&Key::Char('q')), Some(Picked::Leave));
    }

    #[test]
    fn arrows_move_within_the_filtered_list_and_enter_on_nothing_picks_nothing() {
        let mut p = Picker::new(tools(), Some(2));
        assert_eq!(p.highlighted(), Some(2));
        p.on_key(&Key::Down);
        p.on_key(&Key::Down);
        assert_eq!(p.highlighted(), Some(3));
        p.on_key(&Key::Up);
        assert_eq!(p.highlighted(), Some(2));
        typed(&mut p, "zzz");
        assert_eq!(p.shown(), Vec::<usize>::new());
        assert_eq!(p.on_key(&Key::Enter), None);
    }

    fn draw(p: &mut Picker, w: u16, h: u16) -> ratatui::backend::TestBackend {
        let mut t =
            ratatui::Terminal::new(ratatui::backend::TestBackend::new(w, h)).expect("terminal");
        let theme = Theme::monochrome();
        t.draw(|f| {
            let a = f.area();
            p.draw(f, &theme, a)
        })
        .expect("draw");
        t.backend().clone()
    }

    #[test]
    fn a_fresh_list_keeps_the_highlighted_tool_and_says_what_changed() {
        let feed = ListFeed::default();
        let mut p = Picker::new(tools(), Some(2)).fed_by(feed.clone());
        assert_eq!(p.highlighted(), Some(2));
        let mut fresh = tools();
        fresh.remove(0);
        feed.post(1, fresh, "tools changed: -book_table".into());
        let b = draw(&mut p, 60, 12);
        // set_mood, now at index 1, is still the one highlighted.
        assert_eq!(p.highlighted(), Some(1));
        assert!(!p.moved);
        insta::assert_snapshot!(b);
        // The highlighted tool gone: the highlight moves, and keys wait.
        let mut fresh = tools();
        fresh.remove(2);
        fresh.remove(0);
        feed.post(2, fresh, "tools changed: -set_mood".into());
        draw(&mut p, 60, 12);
        assert!(p.moved);
    }

    /// The picker as the loop draws it, at `w`x`h`; whether it was shown.
    fn draw_screen(s: &mut PickerScreen, w: u16, h: u16) -> (ratatui::backend::TestBackend, bool) {
        let mut t =
            ratatui::Terminal::new(ratatui::backend::TestBackend::new(w, h)).expect("terminal");
        let mut shown = false;
        t.draw(|f| shown = s.draw(f, &Theme::monochrome(), None))
            .expect("draw");
        (t.backend().clone(), shown)
    }

    #[test]
    fn too_small_the_list_says_the_size_it_needs_and_esc_or_q_leave() {
        for (w, h) in [(20, 6), (30, 8)] {
            let mut s = PickerScreen(Picker::new(tools(), None));
            let (b, shown) = draw_screen(&mut s, w, h);
            assert!(!shown);
            insta::assert_snapshot!(format!("too_small_{w}x{h}"), b);
            for k in [Key::Esc, Key::Char('q')] {
                let mut s = PickerScreen(Picker::new(tools(), None));
                assert!(matches!(s.small_key(&k), Some(Step::Done(_))));
                assert_eq!(s.0.picked(), Some(Picked::Leave));
            }
            // Nothing is picked blind.
            assert!(s.small_key(&Key::Enter).is_none());
        }
    }

    #[test]
    fn the_list_shows_escaped_server_text_cut_to_the_screen() {
        let mut p = Picker::new(tools(), None);
        p.on_key(&Key::Down);
        let b = draw(&mut p, 72, 14);
        insta::assert_snapshot!(b);
    }

    #[test]
    fn a_filtered_list_says_what_it_keeps() {
        let mut p = Picker::new(tools(), None);
        typed(&mut p, "zz");
        insta::assert_snapshot!(draw(&mut p, 60, 10));
    }
}
