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

pub mod challenge;
pub mod discovery;
pub mod flow;
pub mod store;
