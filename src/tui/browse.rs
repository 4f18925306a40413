//! The terminal's side of trying a server by hand ([`crate::browse`]): the
//! tool list ([`super::picker`]), a tool's arguments on the elicitation
//! form ([`super::screens::FormScreen`], with its review), and the result
//! ([`super::result_view`]). Each runs in the loop of every request screen
//! ([`TuiResponder::run`]): the consent guard, Ctrl-C (a second within
//! [`super::QUIT_WINDOW`] quits), signals and resizes as there.

use super::picker::{Picked, Picker, PickerScreen};
use super::result_view::{ResultScreen, ResultView, Seen};
use super::screens::FormScreen;
use super::view::Header;
use super::TuiResponder;
use crate::binding::{Action, RequestBody, RequestView};
use crate::browse::{Reply, Step};
use crate::responder::{Context, Outcome, Progress, RespondError};

impl TuiResponder {
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
            Step::Pick { tools, last } => {
                let mut screen = PickerScreen(Picker::new(tools.clone(), *last));
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
            Step::Arguments { request, .. } => {
                let header = Header::of(request, Progress::default());
                let RequestView::Body(r) = &request.view else {
                    return Ok(Reply::Back);
                };
                let RequestBody::Form(schema) = &r.body else {
                    return Ok(Reply::Back);
                };
                let mut screen = FormScreen::new(header, schema, &r.message);
                match self.run(&cx, &mut screen)? {
                    Outcome::Quit => Ok(Reply::Quit),
                    Outcome::Answer(a) if a.action == Action::Accept => {
                        Ok(Reply::Arguments(a.content.unwrap_or_default()))
                    }
                    Outcome::Answer(_) => Ok(Reply::Back),
                }
            }
            Step::Result { tool, result } => {
                let mut screen = ResultScreen(ResultView::new(tool, result));
                match self.run(&cx, &mut screen)? {
                    Outcome::Quit => Ok(Reply::Quit),
                    Outcome::Answer(_) => match screen.0.seen() {
                        Some(Seen::Leave) => Ok(Reply::Leave),
                        _ => Ok(Reply::Back),
                    },
                }
            }
        }
    }
}
