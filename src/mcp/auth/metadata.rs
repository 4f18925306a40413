//! Reading the metadata a sign-in starts from: the Protected Resource
//! Metadata (its `resource` checked against the server) and the
//! authorization server's metadata (its `issuer` checked).

use super::authorizer::*;
use super::discovery::{
    as_metadata_urls, endpoint_allowed, points_home, prm_urls, resource_matches, DiscoveryError,
    ResourceMetadata, ServerMetadata,
};
use super::error::{AuthError, NotAsked};

/// Whether `resource` names the server at `mcp_url` by another loopback
/// name (`localhost`, `127.0.0.1`, `[::1]`): the same scheme, port and
/// path, the hosts both loopback names and not the same. The run should
/// be given `resource` instead.
fn other_loopback_name(resource: &str, mcp_url: &str) -> bool {
    let loopback = |u: &url::Url| matches!(u.host_str(), Some("localhost" | "127.0.0.1" | "[::1]"));
    let (Ok(r), Ok(mut m)) = (url::Url::parse(resource), url::Url::parse(mcp_url)) else {
        return false;
    };
    if !loopback(&r) || !loopback(&m) || r.host_str() == m.host_str() {
        return false;
    }
    if r.scheme() != m.scheme() || r.port_or_known_default() != m.port_or_known_default() {
        return false;
    }
    m.set_host(r.host_str()).is_ok() && resource_matches(resource, m.as_str())
}

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
            let got = self
                .get_json("the protected resource metadata", url)
                .map_err(|e| match e {
                    // The challenge names an address that cannot be
                    // reached: what it wants, and the way to give a token.
                    AuthError::Request { source, .. } if from_header == Some(url.as_str()) => {
                        AuthError::ResourceMetadataUnreachable {
                            mcp_url: self.mcp_url.clone(),
                            url: super::flow::cut(url, 200),
                            source,
                        }
                    }
                    e => e,
                })?;
            let Some(v) = got else {
                continue;
            };
            let prm =
                ResourceMetadata::parse(&v).map_err(|source| AuthError::UnusableMetadata {
                    what: "the protected resource metadata",
                    url: url.clone(),
                    source,
                })?;
            if !resource_matches(&prm.resource, &self.mcp_url) {
                if other_loopback_name(&prm.resource, &self.mcp_url) {
                    return Err(AuthError::OtherLoopbackName {
                        mcp_url: self.mcp_url.clone(),
                        resource: prm.resource,
                    });
                }
                return Err(AuthError::WrongResource {
                    mcp_url: self.mcp_url.clone(),
                    resource: prm.resource,
                });
            }
            return Ok(prm);
        }
        // A challenge's resource_metadata that was not asked is named.
        let not_asked = from_header.and_then(|r| {
            let why = if !endpoint_allowed(r) {
                NotAsked::NotHttps
            } else if points_home(&self.mcp_url, r) {
                NotAsked::OnThisMachine
            } else {
                return None;
            };
            Some((super::flow::cut(r, 200), why))
        });
        Err(AuthError::NoResourceMetadata {
            mcp_url: self.mcp_url.clone(),
            tried: urls,
            not_asked,
        })
    }

    /// Read the authorization server's metadata (spec order); its `issuer`
    /// must be `issuer` exactly.
    pub(super) fn server_metadata(
        &self,
        issuer: &str,
    ) -> Result<(ServerMetadata, String), AuthError> {
        if points_home(&self.mcp_url, issuer) {
            return Err(DiscoveryError::PointsHome {
                what: "authorization server",
                url: issuer.to_owned(),
                server: self.mcp_url.clone(),
            }
            .into());
        }
        let urls = as_metadata_urls(issuer)?;
        for url in &urls {
            let Some(v) = self.get_json("the authorization server metadata", url)? else {
                continue;
            };
            let meta = ServerMetadata::parse(&v).map_err(|source| AuthError::UnusableMetadata {
                what: "the authorization server metadata",
                url: url.clone(),
                source,
            })?;
            if meta.issuer != issuer {
                return Err(AuthError::WrongIssuer {
                    url: url.clone(),
                    says: meta.issuer,
                    issuer: issuer.to_owned(),
                });
            }
            return Ok((meta, url.clone()));
        }
        Err(AuthError::NoServerMetadata {
            issuer: issuer.to_owned(),
            tried: urls.len(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_same_server_by_another_loopback_name_is_told_apart() {
        let r = "http://localhost:3000/mcp";
        assert!(other_loopback_name(r, "http://127.0.0.1:3000/mcp"));
        assert!(other_loopback_name(
            "http://127.0.0.1:3000/mcp",
            "http://localhost:3000/mcp"
        ));
        assert!(other_loopback_name(r, "http://[::1]:3000/mcp"));
        // Another port, path, scheme or host: another server.
        assert!(!other_loopback_name(r, "http://127.0.0.1:3001/mcp"));
        assert!(!other_loopback_name(r, "http://127.0.0.1:3000/other"));
        assert!(!other_loopback_name(r, "https://127.0.0.1:3000/mcp"));
        assert!(!other_loopback_name(
            "http://mcp.example:3000/mcp",
            "http://127.0.0.1:3000/mcp"
        ));
        assert!(!other_loopback_name(r, r));
    }
}
