//! The drawing of every screen under the one name the crate's tests and
//! benchmarks use (`tui::view::draw_form`, `tui::view::Header`, ...): each
//! is defined with its screen (`form`, `refusable`,
//! `wait`, `sign_in_wait`, `notice`) or with
//! what the screens share (`chrome`, `header`).

pub use super::chrome::{too_small, MIN_HEIGHT, MIN_WIDTH};
pub use super::form::{
    draw_form, draw_form_view, draw_form_view_seen, ignored_words, FormViewMode, HELP_REVIEW_MORE,
};
pub use super::header::{countdown, Header, EXTEND_KEY};
pub use super::notice::{draw_notice, draw_withdrawn, draw_withdrawn_because, WITHDRAWN_NOTICE};
pub use super::refusable::{draw_refusable, REFUSE_BUTTONS};
pub use super::sign_in_wait::{draw_sign_in_wait, SignInWait};
pub use super::wait::{draw_wait, draw_waiting, CONNECTING, FLOW_WAIT_KEYS};
