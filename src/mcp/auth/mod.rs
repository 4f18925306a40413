//! Signing in to remote MCP servers: OAuth 2.1 authorization as the MCP
//! authorization specification asks (both pinned revisions), for the
//! Streamable HTTP transport only (stdio servers take their credentials
//! from the environment).
//!
//! [`store`] keeps what a sign-in leaves behind (client registrations and
//! tokens) behind the [`store::Store`] trait; [`file_store`] keeps them on
//! disk between runs.

#[cfg(unix)]
pub mod file_store;
pub mod store;
