//! The real binary in a pseudo-terminal, read through a terminal emulator: the form screen,
//! plain mode, URL consent, repaint, restore, stop and continue, and the
//! terminal's own faults.
//!
//! One test binary per area (it links the library once); one module per
//! feature.

#[path = "../common/mod.rs"]
mod common;

mod background;
mod demo;
mod faults;
mod flood;
mod guard;
mod keys;
mod notify;
mod plain;
mod repaint;
mod responder;
mod restore;
mod suspend;
mod terminal;
mod url;
mod wide;
