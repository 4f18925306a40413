//! Signing in to remote MCP servers: OAuth 2.1 authorization as the MCP
//! authorization specification asks (both pinned revisions), for the
//! Streamable HTTP transport only (stdio servers take their credentials
//! from the environment).
//!
//! [`store`] keeps what a sign-in leaves behind (client registrations and
//! tokens) behind the [`store::Store`] trait, each written down as a
//! [`record`]; `file_store` keeps them on disk between runs, `keyring_store`
//! in the operating system's keychain, and [`default_store`] chooses
//! (`--auth-store`, else the keychain when one answers, else the file). [`challenge`] reads `WWW-Authenticate`,
//! [`discovery`] finds and checks the metadata, and [`flow`] holds the pure
//! steps of one authorization (PKCE, scopes, the authorization URL, the
//! callback's checks, the token answer). [`listener`] is the loopback
//! listener the browser comes back to, and [`authorizer::Authorizer`] runs
//! the whole flow for the HTTP transport: its spine in [`authorizer`], its
//! steps in `metadata`, `tokens`, `registration`, `browser`, [`step_up`],
//! `http` and `hints`, what it is given in [`options`], and why it fails
//! in [`error`] ([`AuthError`]). [`jose`] signs the JWTs a sign-in sends
//! (DPoP proofs, client assertions), and [`dpop`] binds tokens to a key
//! pair of the sign-in (RFC 9449) when the authorization server offers it. What a sign-in is doing (under way,
//! waiting for the browser) it publishes to the session it serves, whose
//! screens show it: [`crate::responder::sign_in::SignIns`], given in
//! [`AuthOptions::sign_ins`].

pub mod authorizer;
mod browser;
pub mod challenge;
pub mod default_store;
pub mod discovery;
pub mod dpop;
pub mod error;
#[cfg(test)]
mod fake_as;
#[cfg(unix)]
pub mod file_store;
pub mod flow;
mod grants;
mod hints;
mod http;
pub mod jose;
#[cfg(all(
    feature = "keyring",
    any(target_os = "linux", target_os = "macos", windows)
))]
pub mod keyring_store;
pub mod listener;
mod metadata;
pub mod options;
pub mod record;
mod registration;
pub mod revoke;
pub mod step_up;
pub mod store;
mod tokens;
pub mod unattended;

pub use authorizer::{Authorizer, Unauthorized};
pub use default_store::open_store;
pub use error::AuthError;
pub use options::{AuthOptions, Opener, PreRegistered, Screen, SignInRequest};
pub use step_up::{RequestName, StepUp};
