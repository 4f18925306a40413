//! `ahp-elicit mcp` against real MCP servers: the fake server, server-everything, the official
//! SDK servers of both eras, the conformance suite, and the screen in a pseudo-terminal.
//!
//! One test binary per area (it links the library once); one module per
//! feature.

#[path = "../common/mod.rs"]
mod common;

mod conformance;
mod dpop;
mod everything;
mod fake;
mod grants;
mod hostile_auth;
mod keyring;
mod live_lists;
mod oauth;
mod protocol_view;
mod python_auth;
mod python_sdk;
mod quick_args;
mod sampling_roots;
mod sdk_both_eras;
mod signin_screen;
mod small_screens;
mod terminal;
mod try_by_hand;
mod typescript_sdk;
