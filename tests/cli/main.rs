//! The real binary without a terminal: the binding commands, streams, hostile inputs, output
//! faults, the upstream pins, the README's commands and both MCP revisions end to end.
//!
//! One test binary per area (it links the library once); one module per
//! feature.

#[path = "../common/mod.rs"]
mod common;

mod answer_rules;
mod auth;
mod binding;
mod bom;
mod completions;
mod exact_numbers;
mod files_private;
mod flag_values;
mod framing;
mod hostile;
mod hostile_streams;
mod insecure_http;
mod large_options;
mod misplaced;
mod output_faults;
mod policy_roundtrip;
mod readme_examples;
mod revisions;
mod scripted_faults;
mod several_inputs;
mod terminal_use;
mod upstream;
mod validate;
