//! The terminal front end (feature `tui`): the only module that imports
//! ratatui and crossterm.

pub mod url_view;
