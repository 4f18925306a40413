//! The terminal's side of trying a server by hand ([`crate::browse`]): the
//! tool list ([`super::picker`]), a tool's arguments on the elicitation
//! form ([`super::form::FormScreen`], with its review; Ctrl-O there, at
//! any time, edits the whole arguments as JSON in the outside editor), and
//! the result ([`super::result_view`]). Each runs in the loop of every request screen
//! ([`TuiResponder::run`]): the consent guard, Ctrl-C (a second within
//! [`super::QUIT_WINDOW`] quits), signals and resizes as there.

use std::time::Duration;

use ratatui::text::Line;
use ratatui::widgets::{Paragraph, Wrap};
use ratatui::Frame;
use serde_json::{Map, Value};

use super::form::FormScreen;
use super::header::Header;
use super::picker::{Picked, Picker, PickerScreen};
use super::result_view::{ResultScreen, ResultView, Seen};
use super::theme::Theme;
use super::TuiResponder;
use super::{Clock, Screen, Step as ScreenStep};
use crate::binding::tool_form;
use crate::binding::{Action, Answer, RequestBody, RequestView};
use crate::browse::{CallOutcome, Reply, Step};
use crate::form::Key;
use crate::responder::{Context, Outcome, Progress, RespondError};
use crate::safe_text::display;

/// Why edited arguments were not taken, and the two ways on: Enter edits
/// them again, Esc goes back to the list.
struct FaultScreen {
    lines: Vec<String>,
    /// Enter was pressed: edit again.
    again: bool,
}

impl FaultScreen {
    /// The faults (safe text) of the arguments of `tool` (unsanitized).
    fn new(tool: &str, faults: Vec<String>) -> Self {
        let mut lines = vec![format!(
            "The arguments of the tool '{}' were not taken:",
            display(tool)
        )];
        lines.extend(faults.into_iter().map(|f| format!("  {f}")));
        FaultScreen {
            lines,
            again: false,
        }
    }
}

impl Screen for FaultScreen {
    fn grace(&self) -> Duration {
        super::FORM_GUARD
    }

    fn draw(&mut self, f: &mut Frame, theme: &Theme, _clock: Option<Clock>) -> bool {
        if super::chrome::too_small_saying(
            f,
            theme,
            "press Esc or q to go back to the list",
            "Esc/q: back",
        ) {
            return false;
        }
        let area = f.area();
        let mut lines: Vec<Line> = self
            .lines
            .iter()
            .map(|l| Line::styled(l.clone(), theme.error()))
            .collect();
        lines.push(Line::raw(""));
        lines.push(Line::styled(
            "Enter: edit them again · Esc: back to the tools",
            theme.muted(),
        ));
        f.render_widget(Paragraph::new(lines).wrap(Wrap { trim: false }), area);
        true
    }

    fn key(&mut self, k: &Key) -> ScreenStep {
        match k {
            Key::Enter => {
                self.again = true;
                ScreenStep::Done(Outcome::Answer(Answer::bare(Action::Accept)))
            }
            Key::Esc => ScreenStep::Done(Outcome::Answer(Answer::bare(Action::Cancel))),
            _ => ScreenStep::Continue,
        }
    }

    fn put_progress(&mut self, _progress: Progress) {}

    /// Too small to show the faults: Esc and `q` go back to the list
    /// (editing again waits for the faults to be seen).
    fn small_key(&mut self, k: &Key) -> Option<ScreenStep> {
        matches!(k, Key::Esc | Key::Char('q'))
            .then(|| ScreenStep::Done(Outcome::Answer(Answer::bare(Action::Cancel))))
    }
}

impl TuiResponder {
    /// The arguments of `tool` (`answered` on the form, with the properties
    /// the form left out), edited as JSON in the outside editor (`$VISUAL`,
    /// `$EDITOR`, `vi`) until they fit its `input_schema` (a screen names
    /// what does not fit by JSON pointer: Enter edits again, Esc goes back
    /// to the list): after the form when properties were left out, or at
    /// once on Ctrl-O.
    ///
    /// Errors: the terminal's.
    fn edit_arguments(
        &mut self,
        tool: &str,
        input_schema: &Value,
        answered: &Map<String, Value>,
        left_out: &[String],
        last: &Map<String, Value>,
    ) -> Result<Reply, RespondError> {
        let mut text = tool_form::arguments_text(input_schema, answered, left_out, Some(last));
        loop {
            let faults = match self.edit_outside(&text) {
                Ok(t) => {
                    text = t;
                    match tool_form::check_arguments(input_schema, &text) {
                        Ok(args) => return Ok(Reply::Arguments(args)),
                        Err(faults) => faults,
                    }
                }
                Err(e) => vec![display(&e.to_string()).into_owned()],
            };
            let mut note = FaultScreen::new(tool, faults);
            match self.run(&Context::default(), &mut note)? {
                Outcome::Quit => return Ok(Reply::Quit),
                _ if note.again => continue,
                _ => return Ok(Reply::Back),
            }
        }
    }

    /// Show `step` until the person decides ([`crate::responder::Responder::browse`]).
    ///
    /// Errors: the terminal's.
    pub(super) fn browse_step(&mut self, step: &Step) -> Result<Reply, RespondError> {
        // What the last request's end left to say comes first.
        if self.acknowledge_pending()? {
            return Ok(Reply::Quit);
        }
        self.waiting_since = None;
        let cx = Context::default();
        match step {
            Step::Ready => Ok(Reply::Back),
            Step::Result {
                kind,
                tool,
                outcome: CallOutcome::Cancelled,
                ..
            } => {
                self.list_note = Some(crate::browse::cancelled_words(*kind, tool));
                Ok(Reply::Back)
            }
            Step::Pick { tools, last, feed } => {
                let picker = Picker::new(tools.clone(), *last)
                    .with_note(self.list_note.take())
                    .fed_by(feed.clone());
                let mut screen = PickerScreen(picker);
                loop {
                    match self.run(&cx, &mut screen)? {
                        Outcome::Quit => return Ok(Reply::Quit),
                        Outcome::Answer(_) => match screen.0.picked() {
                            Some(Picked::Tool(i)) => return Ok(Reply::Picked(i)),
                            Some(Picked::Leave) => return Ok(Reply::Leave),
                            // A first Ctrl-C: the list stays (a second
                            // within the window quits).
                            None => continue,
                        },
                    }
                }
            }
            Step::Arguments {
                kind,
                tool,
                request,
                input_schema,
                left_out,
                last,
            } => {
                let header = Header::of(request, Progress::default());
                let call = format!("{} {tool}", kind.method());
                let RequestView::Body(r) = &request.view else {
                    return Ok(Reply::Back);
                };
                let RequestBody::Form(schema) = &r.body else {
                    return Ok(Reply::Back);
                };
                let mut screen = FormScreen::new(header, schema, &r.message)
                    .asks_arguments(call)
                    .leaves_out(left_out)
                    .edits_whole();
                let out = self.run(&cx, &mut screen)?;
                // Ctrl-O: the whole arguments, as entered so far, as JSON.
                if let (Some(entered), false) = (screen.whole_asked(), out == Outcome::Quit) {
                    return self.edit_arguments(tool, input_schema, &entered, left_out, last);
                }
                match out {
                    Outcome::Quit => Ok(Reply::Quit),
                    Outcome::Answer(a) if a.action == Action::Accept => {
                        let answered = a.content.unwrap_or_default();
                        if left_out.is_empty() {
                            return Ok(Reply::Arguments(answered));
                        }
                        self.edit_arguments(tool, input_schema, &answered, left_out, last)
                    }
                    Outcome::Answer(_) => Ok(Reply::Back),
                }
            }
            Step::Result {
                kind,
                tool,
                outcome,
                output_check,
                hint,
                again,
                ..
            } => {
                let stderr = self.server_stderr.as_ref().is_some_and(|r| r.total() > 0);
                let mut screen = ResultScreen(
                    ResultView::new(*kind, tool, outcome, output_check.as_ref())
                        .with_hint(hint.as_deref())
                        .with_again(*again)
                        .with_stderr(stderr),
                );
                loop {
                    return match self.run(&cx, &mut screen)? {
                        Outcome::Quit => Ok(Reply::Quit),
                        Outcome::Answer(_) => match screen.0.seen() {
                            Some(Seen::Leave) => Ok(Reply::Leave),
                            Some(Seen::Again) => Ok(Reply::Again),
                            Some(Seen::Stderr) => {
                                if self.show_stderr() {
                                    return Ok(Reply::Quit);
                                }
                                screen.0.shown_again();
                                continue;
                            }
                            _ => Ok(Reply::Back),
                        },
                    };
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::binding::tool_form::ToolForm;
    use crate::binding::{wrap_request, SchemaPolicy, Server, WrapOptions};
    use ratatui::backend::TestBackend;
    use ratatui::Terminal;
    use serde_json::json;

    /// The arguments form of the tool `name` (a city, a bounded number of
    /// guests, a terrace), as the terminal puts it.
    fn arguments_screen(name: &str) -> FormScreen {
        let schema = json!({
            "type": "object",
            "properties": {
                "city": {"type": "string", "title": "City"},
                "guests": {"type": "integer", "minimum": 1, "maximum": 12},
                "terrace": {"type": "boolean", "default": false}
            },
            "required": ["city", "guests"]
        });
        let params = ToolForm::of(&schema).params("tool", name);
        let server = Server {
            name: "try".into(),
            title: None,
            version: Some("1.0".into()),
        };
        let options = WrapOptions {
            policy: SchemaPolicy::Compatible,
            ..WrapOptions::new(&server, "mcp-stdio", "run-arguments-1")
        };
        let req = wrap_request(&params, &options).expect("a form");
        let header = Header::of(&req, Progress::default());
        let RequestView::Body(r) = &req.view else {
            panic!("a body")
        };
        let RequestBody::Form(s) = &r.body else {
            panic!("a form")
        };
        FormScreen::new(header, s, &r.message)
            .asks_arguments(format!("tools/call {name}"))
            .edits_whole()
    }

    fn draw(screen: &mut FormScreen, w: u16, h: u16) -> TestBackend {
        let mut t = Terminal::new(TestBackend::new(w, h)).expect("terminal");
        let theme = Theme::monochrome();
        t.draw(|f| {
            screen.draw(f, &theme, None);
        })
        .expect("draw");
        t.backend().clone()
    }

    /// The text of a drawn screen, one line a row.
    fn text(b: &TestBackend) -> String {
        let buf = b.buffer();
        let w = buf.area.width as usize;
        buf.content()
            .chunks(w)
            .map(|row| row.iter().map(|c| c.symbol()).collect::<String>())
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// The arguments form says what it is (the arguments of the call, not
    /// a request of the server's) and its buttons and keys are a call's:
    /// Call and Back, nothing to decline; so is its review.
    #[test]
    fn the_arguments_form_says_call_and_back() {
        let mut screen = arguments_screen("book_table");
        let edit = draw(&mut screen, 80, 24);
        let shown = text(&edit);
        for unsaid in [
            "request 1",
            "relayed",
            "Submit",
            "Decline",
            "decline",
            "Cancel",
            "cancel",
        ] {
            assert!(!shown.contains(unsaid), "{unsaid:?} in:\n{shown}");
        }
        insta::assert_snapshot!("arguments_form", edit);
        for k in [Key::Char('P'), Key::Tab, Key::Char('4'), Key::Ctrl('s')] {
            screen.key(&k);
        }
        let review = draw(&mut screen, 80, 24);
        let shown = text(&review);
        for unsaid in ["accept", "Send", "decline", "cancel"] {
            assert!(!shown.contains(unsaid), "{unsaid:?} in:\n{shown}");
        }
        insta::assert_snapshot!("arguments_review", review);
        // Ctrl-D declines nothing here: the review stays.
        assert!(matches!(screen.key(&Key::Ctrl('d')), ScreenStep::Continue));
        // Esc on a changed form asks, in the call's words.
        assert!(matches!(screen.key(&Key::Esc), ScreenStep::Continue));
        let asked = text(&draw(&mut screen, 80, 24));
        assert!(
            asked.contains("Throw away what you entered and go back to the list?"),
            "{asked}"
        );
        assert!(
            asked.contains("Esc again or y: back to the list"),
            "{asked}"
        );
    }

    /// A form that leaves properties out (asked as JSON in the editor after
    /// it) does not claim its review holds every argument: it names what
    /// comes next, its button is Next, not Call.
    #[test]
    fn a_review_with_arguments_left_out_says_the_editor_comes_next() {
        let mut screen = arguments_screen("ship_parcel").leaves_out(&["address".into()]);
        for k in [Key::Char('P'), Key::Tab, Key::Char('4'), Key::Ctrl('s')] {
            screen.key(&k);
        }
        let shown = text(&draw(&mut screen, 100, 24));
        for said in [
            "Review: the arguments from the form. Next, your editor for what the form cannot show ('address'),",
            "with all the arguments; the call is made after it.",
        ] {
            assert!(shown.contains(said), "{said:?} in:\n{shown}");
        }
        assert!(!shown.contains("exactly these arguments"), "{shown}");
        assert!(shown.contains("Next"), "{shown}");
        assert!(!shown.contains("Call"), "{shown}");
        assert!(shown.contains("Enter next: your editor"), "{shown}");
    }

    /// On a short window the header keeps what the form is for on its one
    /// origin line; a hostile tool name is escaped there.
    #[test]
    fn a_short_window_keeps_what_the_arguments_are_for_escaped() {
        let mut screen = arguments_screen("book\u{1b}[2J_table");
        let b = draw(&mut screen, 60, 12);
        let shown = text(&b);
        assert!(!shown.contains('\u{1b}'), "{shown}");
        assert!(
            shown.contains("arguments for tools/call book\\u{1b}[2J_table"),
            "{shown}"
        );
        insta::assert_snapshot!("arguments_form_short", b);
    }
}
