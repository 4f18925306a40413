//! ahp-elicit answers MCP elicitations in a terminal; this library is what
//! it is built on, without the terminal.
//!
//! Data flows one way: event in ([`binding::parse_json`],
//! [`binding::read_request`]) → validated request → form state
//! ([`form::Form`]) → answer ([`binding::Answer`]) → validated result event
//! out ([`binding::make_result_event`]). A program that answers requests
//! implements [`responder::Responder`], or uses the scripted answerer
//! ([`scripted::ScriptedResponder`]: an answers file or one action); a
//! consented URL is opened through a [`launcher::Launcher`].
//!
//! The public API is these five modules; with `default-features = false`
//! (no `cli` feature) the library has no terminal dependency. The command
//! line (`cli`) is the binary's: its front doors (`respond`, the MCP client
//! `mcp`), stream validation, plain mode and the full-screen terminal
//! (`tui`, the only module that imports ratatui or crossterm) are
//! crate-private (the `internals` feature opens them to the project's own
//! tests). Dependency rule: the answerers build `binding ← form ← {tui,
//! plain, scripted}` and decide URL consent through one terminal-free state
//! machine (`consent`); the front doors build `binding ← responder ← session
//! ← {respond, mcp}` and reach an answerer only through the `Responder`
//! trait (docs/architecture.md).
//!
//! Read a request, fill its form and make the result event:
//!
//! ```
//! use ahp_elicit::binding::{self, Answer, ReadOptions, RequestBody, RequestView, ResultMeta};
//! use ahp_elicit::form::Form;
//! use serde_json::json;
//!
//! let params = json!({
//!     "message": "Where should the data live?",
//!     "requestedSchema": {
//!         "type": "object",
//!         "properties": {"region": {"type": "string", "enum": ["eu-west", "us-east"]}},
//!         "required": ["region"]
//!     }
//! });
//! let event = json!({
//!     "ahp": "0.1", "id": "evt-1", "type": "user.elicitation.request",
//!     "time": "2026-12-03T10:00:00Z", "source": {"adapter": "example"},
//!     "payload": {"elicitation": {
//!         "server": {"name": "workspace"}, "mode": "form",
//!         "request": {"type": "text", "selection": "body", "text": params.to_string()}
//!     }}
//! });
//! let request = binding::read_request(event, ReadOptions::default()).expect("a valid request");
//!
//! let RequestView::Body(body) = &request.view else { unreachable!("a body") };
//! let RequestBody::Form(schema) = &body.body else { unreachable!("a form") };
//! let mut form = Form::new(schema, &body.message);
//! assert!(form.content().is_err(), "region is required");
//! form.set_json("region", &json!("eu-west")).expect("one of the options");
//!
//! let answer = Answer { action: binding::Action::Accept, content: Some(form.content().unwrap()) };
//! let result = binding::make_result_event(&request, &answer, &ResultMeta::default())
//!     .expect("a valid result");
//! assert_eq!(result["type"], "user.elicitation.result");
//! assert_eq!(
//!     result["payload"]["elicitation"]["result"]["text"],
//!     r#"{"action":"accept","content":{"region":"eu-west"}}"#
//! );
//! ```
//!
//! A bad event is refused with every violation, each naming its place
//! (a JSON pointer) and its rule:
//!
//! ```
//! use ahp_elicit::binding::{self, ReadOptions};
//! use serde_json::json;
//!
//! let event = json!({"ahp": "0.1", "id": "evt-2", "type": "user.elicitation.request"});
//! let violations = binding::read_request(event, ReadOptions::default()).unwrap_err();
//! let said: Vec<String> = violations.iter().map(|v| v.message.clone()).collect();
//! assert_eq!(said, [r#""time" is required"#, r#""source" is required"#, r#""payload" is required"#]);
//! assert!(violations.iter().all(|v| v.location.pointer.is_empty()), "all at the wire root");
//! ```

// Every type the library's API hands out can be named by its user
// (re-exported where its module is crate-private). Checked on the library
// alone: the command line's own types are the binary's.
#![cfg_attr(not(feature = "cli"), warn(unnameable_types))]

/// Declares the crate's machinery: each module once, with its visibility
/// as the product has it (crate-private, or private to its parent), and
/// public, hidden from the documentation, with the `internals` feature,
/// which only the project's own tests, benchmarks and fuzz targets turn on
/// (a dev-dependency of the crate on itself; not part of the API). Without
/// the feature each declaration is exactly as written, so the public API is
/// the modules declared `pub mod` and the compiler reports dead code in the
/// rest. Defined before every module, so each can declare its own
/// submodules with it (and list them for `cargo fmt`, as below).
macro_rules! internals {
    ($($vis:vis mod $name:ident;)*) => {$(
        #[cfg(feature = "internals")]
        #[doc(hidden)]
        pub mod $name;
        #[cfg(not(feature = "internals"))]
        $vis mod $name;
    )*};
}

// The library: reading, validating and writing events (`binding`), the
// form model (`form`), the `Responder` trait a front door drives
// (`responder`), the scripted answerer (`scripted`), the responder a
// program can use as it is, and the launchers that open a consented URL
// (`launcher`).
pub mod binding;
pub mod form;
pub mod launcher;
pub mod responder;
pub mod scripted;

// The binary's command line (`src/main.rs` calls `cli::main`).
#[cfg(feature = "cli")]
#[doc(hidden)]
pub mod cli;

// The machinery behind them, crate-private (public with `internals`).
//
// What the library's public modules use.
internals! {
    pub(crate) mod consent;
    pub(crate) mod safe_text;
    pub(crate) mod stream;
    pub(crate) mod url_review;
}

// The command line's machinery (the `cli` feature): the two front doors
// (`respond`, `mcp`), stream validation, plain mode, the interactive
// session's state (`browse`), signals and logs; `demo` and `upstream` serve
// only the command line; the full-screen front end (`tui`), the only module
// that imports ratatui or crossterm.
#[cfg(feature = "cli")]
internals! {
    pub(crate) mod browse;
    pub(crate) mod demo;
    pub(crate) mod files;
    pub(crate) mod log;
    pub(crate) mod mcp;
    pub(crate) mod misplaced;
    pub(crate) mod notice;
    pub(crate) mod plain;
    pub(crate) mod redact;
    pub(crate) mod respond;
    pub(crate) mod session;
    pub(crate) mod signals;
    pub(crate) mod tui;
    pub(crate) mod upstream;
    pub(crate) mod validate;
}

// `cargo fmt` does not follow a module declared inside a macro: it follows
// the modules of `internals!` through this list of their names, in a module
// that is never compiled (`cfg(any())` is false) and whose `path` keeps
// their files where they are. `.ci/run` checks that `cargo fmt` reaches
// every file.
#[cfg(any())]
#[path = "."]
mod for_cargo_fmt {
    mod browse;
    mod consent;
    mod demo;
    mod files;
    mod log;
    mod mcp;
    mod misplaced;
    mod notice;
    mod plain;
    mod redact;
    mod respond;
    mod safe_text;
    mod session;
    mod signals;
    mod stream;
    mod tui;
    mod upstream;
    mod url_review;
    mod validate;
}
