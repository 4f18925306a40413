//! Signing in to remote MCP servers: OAuth 2.1 authorization as the MCP
//! authorization specification asks (both pinned revisions), for the
//! Streamable HTTP transport only (stdio servers take their credentials
//! from the environment).
//!
//! [`store`] keeps what a sign-in leaves behind (client registrations and
//! tokens) behind the [`store::Store`] trait. [`challenge`] reads
//! `WWW-Authenticate`, [`discovery`] finds and checks the metadata, and
//! [`flow`] holds the pure steps of one authorization (PKCE, scopes, the
//! authorization URL, the callback's checks, the token answer).
//! [`listener`] is the loopback listener the browser comes back to, and
//! [`authorizer::Authorizer`] runs the whole flow for the HTTP transport.

pub mod authorizer;
pub mod challenge;
pub mod discovery;
pub mod flow;
pub mod listener;
pub mod store;

pub use authorizer::{AuthError, AuthOptions, Authorizer, Opener, PreRegistered, Unauthorized};

/// The store `--auth-store` names: `memory` keeps sign-ins for the run
/// only. Sign-ins kept on disk (the default, or a directory) are not in
/// this build yet.
///
/// Errors: a usage sentence for anything but `memory`.
pub fn open_store(choice: Option<&str>) -> Result<std::sync::Arc<dyn store::Store>, String> {
    match choice {
        Some("memory") => Ok(std::sync::Arc::new(store::MemoryStore::default())),
        _ => Err("sign-ins are kept only with --auth-store memory in this build".into()),
    }
}
