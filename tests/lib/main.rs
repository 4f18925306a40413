//! Library-level tests: the binding (schemas, vectors, effects, numbers), the form model, the
//! screens (TestBackend snapshots) and the URL review, through the public API, no binary.
//!
//! One test binary per area (it links the library once); one module per
//! feature.

#[path = "../common/mod.rs"]
mod common;

mod binding_props;
mod effects;
mod fast_path_agrees;
mod form_props;
mod form_scripted;
mod form_state;
mod plain_parity;
mod result_line_agrees;
mod schemas;
mod screens;
mod sdk_forms;
mod sdk_policy_props;
mod support;
mod terminal_bytes;
mod terminal_use;
mod theme_contrast;
mod url_launcher;
mod url_review;
mod url_view;
mod validate_bounds;
mod vectors;
mod wide_glyphs;
