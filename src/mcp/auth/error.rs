//! Why signing in failed.

use super::discovery::DiscoveryError;
use super::flow::FlowError;

/// Why signing in failed: one sentence naming the step and the fix (it may
/// quote a server: sanitized when shown; never a secret). The command
/// exits 3.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct AuthError(pub String);

impl From<DiscoveryError> for AuthError {
    fn from(e: DiscoveryError) -> Self {
        Self(e.to_string())
    }
}

impl From<FlowError> for AuthError {
    fn from(e: FlowError) -> Self {
        Self(e.to_string())
    }
}
