//! Reading the metadata a sign-in starts from: the Protected Resource
//! Metadata (its `resource` checked against the server) and the
//! authorization server's metadata (its `issuer` checked).

use super::authorizer::*;
use super::discovery::{
    as_metadata_urls, endpoint_allowed, prm_urls, resource_matches, ResourceMetadata,
    ServerMetadata,
};
use super::error::AuthError;

impl Authorizer {
    /// The authorization servers the server names in its Protected
    /// Resource Metadata (the challenge's `resource_metadata`, else the
    /// well-known addresses), its `resource` checked: where a client
    /// registration for it is kept.
    ///
    /// Errors: the metadata cannot be found, read or used.
    pub fn authorization_servers(
        &self,
        from_header: Option<&str>,
    ) -> Result<Vec<String>, AuthError> {
        Ok(self.resource_metadata(from_header)?.authorization_servers)
    }

    /// Read the Protected Resource Metadata and check its `resource`.
    pub(super) fn resource_metadata(
        &self,
        from_header: Option<&str>,
    ) -> Result<ResourceMetadata, AuthError> {
        let urls = prm_urls(&self.mcp_url, from_header)?;
        for url in &urls {
            let Some(v) = self.get_json("the protected resource metadata", url)? else {
                continue;
            };
            let prm = ResourceMetadata::parse(&v).map_err(|e| {
                AuthError(format!(
                    "the protected resource metadata at {url} cannot be used: {e}"
                ))
            })?;
            if !resource_matches(&prm.resource, &self.mcp_url) {
                return Err(AuthError(format!(
                    "the metadata of {} says it is for {}: refusing to sign in",
                    self.mcp_url, prm.resource
                )));
            }
            return Ok(prm);
        }
        // A challenge's resource_metadata that was not asked is named.
        let skipped = from_header
            .filter(|r| !endpoint_allowed(r))
            .map(|r| {
                format!(
                    "; not asked: the resource_metadata its challenge names, \"{}\", which is not https (nor http on this machine)",
                    super::flow::cut(r, 200)
                )
            })
            .unwrap_or_default();
        Err(AuthError(format!(
            "{} asks for a sign-in but publishes no protected resource metadata (tried {}{skipped}): it cannot be signed in to automatically; with a token it takes, pass --header 'Authorization: env:VAR' (VAR holding \"Bearer TOKEN\")",
            self.mcp_url,
            urls.join(" and ")
        )))
    }

    /// Read the authorization server's metadata (spec order); its `issuer`
    /// must be `issuer` exactly.
    pub(super) fn server_metadata(
        &self,
        issuer: &str,
    ) -> Result<(ServerMetadata, String), AuthError> {
        let urls = as_metadata_urls(issuer)?;
        for url in &urls {
            let Some(v) = self.get_json("the authorization server metadata", url)? else {
                continue;
            };
            let meta = ServerMetadata::parse(&v).map_err(|e| {
                AuthError(format!(
                    "the authorization server metadata at {url} cannot be used: {e}"
                ))
            })?;
            if meta.issuer != issuer {
                return Err(AuthError(format!(
                    "the authorization server metadata at {url} says it is \"{}\", not \"{issuer}\": refusing to use it",
                    meta.issuer
                )));
            }
            return Ok((meta, url.clone()));
        }
        Err(AuthError(format!(
            "no authorization server metadata for {issuer} (tried {} addresses)",
            urls.len()
        )))
    }
}
