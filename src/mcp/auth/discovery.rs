//! Where the metadata of a protected MCP server and of its authorization
//! server is looked for, and what is checked before anything is sent.
//!
//! - Protected Resource Metadata (RFC 9728): the challenge's
//!   `resource_metadata` when given, else the path-aware well-known URL,
//!   then the root one ([`prm_urls`]).
//! - The PRM `resource` must name the server being signed in to
//!   ([`resource_matches`]).
//! - Authorization server metadata (RFC 8414 and OpenID Connect Discovery)
//!   in the MCP specification's order ([`as_metadata_urls`]); the document's
//!   `issuer` must be byte-equal to the issuer the URLs were built from.
//! - Endpoints are https, or plain http only to this machine
//!   ([`endpoint_allowed`]).
//!
//! Identifiers are never re-serialized: `url::Url` validates and builds the
//! well-known URLs, but the `resource` and `issuer` strings that are sent
//! or compared are the published ones, byte for byte.

use serde_json::Value;
use url::Url;

/// The RFC 9728 well-known path.
pub const PRM_WELL_KNOWN: &str = "/.well-known/oauth-protected-resource";
/// The RFC 8414 well-known path.
pub const OAUTH_WELL_KNOWN: &str = "/.well-known/oauth-authorization-server";
/// The OpenID Connect Discovery well-known path.
pub const OIDC_WELL_KNOWN: &str = "/.well-known/openid-configuration";

/// The origin of `url` (`scheme://host[:port]`, no slash).
fn origin(u: &Url) -> String {
    u.origin().ascii_serialization()
}

/// Whether `url` may be fetched for metadata or sent credentials: https,
/// or http to a loopback host (`localhost`, 127.0.0.0/8, `[::1]`).
pub fn endpoint_allowed(url: &str) -> bool {
    let Ok(u) = Url::parse(url) else {
        return false;
    };
    match u.scheme() {
        "https" => u.host().is_some(),
        "http" => is_loopback(&u),
        _ => false,
    }
}

/// Whether the URL's host is this machine.
pub fn is_loopback(u: &Url) -> bool {
    match u.host() {
        Some(url::Host::Domain(d)) => d.eq_ignore_ascii_case("localhost"),
        Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
        Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
        None => false,
    }
}

/// Whether `ip` is this machine or its local link: loopback, the
/// unspecified address (`0.0.0.0` and `::` connect to this machine),
/// link-local (`169.254.0.0/16`, where cloud metadata services answer,
/// and `fe80::/10`), or an IPv4-mapped address of one of those.
pub fn is_home_ip(ip: std::net::IpAddr) -> bool {
    let v4 = |ip: std::net::Ipv4Addr| ip.is_loopback() || ip.is_link_local() || ip.is_unspecified();
    match ip {
        std::net::IpAddr::V4(ip) => v4(ip),
        std::net::IpAddr::V6(ip) => {
            ip.is_loopback()
                || ip.is_unspecified()
                || (ip.segments()[0] & 0xffc0) == 0xfe80
                || ip.to_ipv4_mapped().is_some_and(v4)
        }
    }
}

/// Whether the URL's host is this machine or its local link as written: a
/// loopback name (`localhost`, `*.localhost`) or an address
/// [`is_home_ip`] takes. Names are not looked up ([`resolves_home`]).
pub fn is_local_or_link_local(u: &Url) -> bool {
    match u.host() {
        Some(url::Host::Domain(d)) => {
            let d = d.trim_end_matches('.').to_ascii_lowercase();
            d == "localhost" || d.ends_with(".localhost")
        }
        Some(url::Host::Ipv4(ip)) => is_home_ip(ip.into()),
        Some(url::Host::Ipv6(ip)) => is_home_ip(ip.into()),
        None => false,
    }
}

/// Whether the URL's host is this machine or its local link, its name
/// looked up too (a name `/etc/hosts` gives a loopback address, for one):
/// [`is_local_or_link_local`], or any address the name resolves to is
/// one [`is_home_ip`] takes. A name that does not resolve is not.
pub fn resolves_home(u: &Url) -> bool {
    if is_local_or_link_local(u) {
        return true;
    }
    let (Some(url::Host::Domain(d)), Some(port)) = (u.host(), u.port_or_known_default()) else {
        return false;
    };
    use std::net::ToSocketAddrs;
    (d, port)
        .to_socket_addrs()
        .is_ok_and(|mut addrs| addrs.any(|a| is_home_ip(a.ip())))
}

/// Whether sign-in for the MCP server at `mcp_url` must not send a request
/// to `url`: the server is on another machine and `url` is on this one or
/// its local link ([`resolves_home`]: names are looked up, so a name that
/// resolves to a loopback address counts; the lookup is the system's,
/// made again when the request connects). A server's 401 and metadata
/// choose these URLs, path and query included; a remote server may not
/// make the client ask the person's own machine (a local server may: it
/// runs there already). A URL that does not parse is not judged here
/// ([`endpoint_allowed`] refuses it).
pub fn points_home(mcp_url: &str, url: &str) -> bool {
    let (Ok(m), Ok(u)) = (Url::parse(mcp_url), Url::parse(url)) else {
        return false;
    };
    if m.host() == u.host() {
        return false;
    }
    resolves_home(&u) && !resolves_home(&m)
}

/// The host of `url` when it is plain `http://` to another machine (not a
/// loopback host: `localhost`, `*.localhost`, `127.0.0.0/8`, `::1`), the
/// host as the URL spells it; `None` for `https://`, this machine, or a
/// URL that does not parse. A credential (a `--header`, a sign-in's
/// token) is never sent to such a host unless the person allows it
/// (`--allow-insecure-http`): anyone on the way could read it.
pub fn plain_http_host(url: &str) -> Option<String> {
    let u = Url::parse(url).ok()?;
    if u.scheme() != "http" {
        return None;
    }
    let loopback = match u.host()? {
        url::Host::Domain(d) => {
            let d = d.trim_end_matches('.').to_ascii_lowercase();
            d == "localhost" || d.ends_with(".localhost")
        }
        url::Host::Ipv4(a) => a.is_loopback(),
        url::Host::Ipv6(a) => {
            a.is_loopback() || a.to_ipv4_mapped().is_some_and(|a| a.is_loopback())
        }
    };
    (!loopback).then(|| u.host_str().unwrap_or_default().to_owned())
}

/// Why discovery cannot go on: an endpoint that is not an allowed URL, a
/// metadata document without a member the client needs, or a server that
/// breaks a rule the client signs in under. One sentence each (it quotes
/// the URLs and issuer as given: sanitized when shown).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DiscoveryError {
    /// The MCP endpoint is not an http(s) URL.
    #[error("{0} is not an http(s) URL")]
    NotHttp(String),
    /// The issuer is not https (nor http on this machine).
    #[error("the authorization server \"{0}\" is not an https URL (nor http on this machine)")]
    IssuerNotHttps(String),
    /// The issuer has a query or fragment.
    #[error("the authorization server \"{0}\" has a query or fragment (RFC 8414 forbids them)")]
    IssuerQuery(String),
    /// A metadata document has no string member by this name.
    #[error("it has no \"{0}\" string")]
    NoString(&'static str),
    /// A PRM document names no authorization server.
    #[error("it names no \"authorization_servers\"")]
    NoAuthorizationServers,
    /// The server (its issuer) does not advertise PKCE S256.
    #[error("{0} does not say it supports PKCE (S256): ahp-elicit does not sign in without it")]
    NoPkce(String),
    /// The server (its issuer) does not offer response type `code`.
    #[error("{0} does not offer the authorization code flow (response type \"code\")")]
    NoCodeFlow(String),
    /// A remote MCP server's metadata names a URL on this machine or its
    /// local link ([`points_home`]).
    #[error("the {what} \"{url}\" is on this machine (or its local link) but {server} is not: a remote server may not send sign-in requests to this machine")]
    PointsHome {
        /// What the URL is (`authorization server`, `token endpoint`, ...).
        what: &'static str,
        /// The URL as published.
        url: String,
        /// The MCP server's URL.
        server: String,
    },
    /// An endpoint (`authorization`, `token`, `registration`, `revocation`) of the server
    /// (its issuer) is not https nor on this machine.
    #[error("the {endpoint} endpoint of {issuer} is not https: credentials are sent over https only (or to this machine)")]
    NotHttps {
        /// Which endpoint.
        endpoint: &'static str,
        /// The server's issuer.
        issuer: String,
    },
}

/// The Protected Resource Metadata URLs to try for the MCP endpoint
/// `mcp_url`, in order: `resource_metadata` from the challenge (when it is
/// an allowed URL), then `origin/.well-known/oauth-protected-resource/PATH`
/// (the endpoint's path without a trailing slash, its query kept), then
/// the root `origin/.well-known/oauth-protected-resource`. No duplicates.
///
/// Errors: `mcp_url` is not an http(s) URL.
pub fn prm_urls(
    mcp_url: &str,
    resource_metadata: Option<&str>,
) -> Result<Vec<String>, DiscoveryError> {
    let u = Url::parse(mcp_url)
        .ok()
        .filter(|u| matches!(u.scheme(), "http" | "https"))
        .ok_or_else(|| DiscoveryError::NotHttp(mcp_url.to_owned()))?;
    let mut out = Vec::new();
    if let Some(rm) = resource_metadata.filter(|r| endpoint_allowed(r) && !points_home(mcp_url, r))
    {
        out.push(rm.to_owned());
    }
    let path = u.path().trim_end_matches('/');
    let root = format!("{}{PRM_WELL_KNOWN}", origin(&u));
    if !path.is_empty() {
        let mut with_path = format!("{root}{path}");
        if let Some(q) = u.query() {
            with_path.push('?');
            with_path.push_str(q);
        }
        out.push(with_path);
    }
    out.push(root);
    out.dedup();
    let mut seen = std::collections::HashSet::new();
    out.retain(|x| seen.insert(x.clone()));
    Ok(out)
}

/// The authorization server metadata URLs for `issuer`, in the MCP
/// specification's order. With a path `/t`:
/// `/.well-known/oauth-authorization-server/t`,
/// `/.well-known/openid-configuration/t`, `/t/.well-known/openid-configuration`;
/// without: `/.well-known/oauth-authorization-server`, then
/// `/.well-known/openid-configuration`.
///
/// Errors: `issuer` is not an allowed URL (https, or http on this
/// machine), or has a query or fragment (RFC 8414 §2).
pub fn as_metadata_urls(issuer: &str) -> Result<Vec<String>, DiscoveryError> {
    let u = Url::parse(issuer)
        .ok()
        .filter(|_| endpoint_allowed(issuer))
        .ok_or_else(|| DiscoveryError::IssuerNotHttps(issuer.to_owned()))?;
    if u.query().is_some() || u.fragment().is_some() {
        return Err(DiscoveryError::IssuerQuery(issuer.to_owned()));
    }
    let o = origin(&u);
    let path = u.path().trim_end_matches('/');
    Ok(if path.is_empty() {
        vec![
            format!("{o}{OAUTH_WELL_KNOWN}"),
            format!("{o}{OIDC_WELL_KNOWN}"),
        ]
    } else {
        vec![
            format!("{o}{OAUTH_WELL_KNOWN}{path}"),
            format!("{o}{OIDC_WELL_KNOWN}{path}"),
            format!("{o}{path}{OIDC_WELL_KNOWN}"),
        ]
    })
}

/// Whether the PRM `resource` names the MCP endpoint `mcp_url`: same
/// scheme, host (ASCII case-insensitive) and port (default ports equal),
/// and the endpoint's path starts with the resource's path at a segment
/// boundary. A resource with a query or fragment never matches.
pub fn resource_matches(resource: &str, mcp_url: &str) -> bool {
    let (Ok(r), Ok(m)) = (Url::parse(resource), Url::parse(mcp_url)) else {
        return false;
    };
    if r.scheme() != m.scheme()
        || r.host_str().map(str::to_ascii_lowercase) != m.host_str().map(str::to_ascii_lowercase)
        || r.port_or_known_default() != m.port_or_known_default()
        || r.fragment().is_some()
        || r.query().is_some()
    {
        return false;
    }
    let rp = r.path().trim_end_matches('/');
    let mp = m.path();
    rp.is_empty()
        || mp == rp
        || mp
            .strip_prefix(rp)
            .is_some_and(|rest| rest.starts_with('/'))
}

/// Protected Resource Metadata (RFC 9728 §2), the members the client reads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResourceMetadata {
    /// `resource`, exactly as published.
    pub resource: String,
    /// `authorization_servers`, in order (at least one).
    pub authorization_servers: Vec<String>,
    /// `scopes_supported`, when given.
    pub scopes_supported: Option<Vec<String>>,
}

fn strings(v: Option<&Value>) -> Option<Vec<String>> {
    Some(
        v?.as_array()?
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_owned)
            .collect(),
    )
}

impl ResourceMetadata {
    /// Read a PRM document.
    ///
    /// Errors: the member that is missing or wrong ([`DiscoveryError`]).
    pub fn parse(v: &Value) -> Result<Self, DiscoveryError> {
        let resource = v
            .get("resource")
            .and_then(Value::as_str)
            .ok_or(DiscoveryError::NoString("resource"))?
            .to_owned();
        let authorization_servers = strings(v.get("authorization_servers"))
            .filter(|a| !a.is_empty())
            .ok_or(DiscoveryError::NoAuthorizationServers)?;
        Ok(Self {
            resource,
            authorization_servers,
            scopes_supported: strings(v.get("scopes_supported")),
        })
    }
}

/// Authorization server metadata (RFC 8414 §2), the members the client
/// reads.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ServerMetadata {
    /// `issuer`, exactly as published.
    pub issuer: String,
    /// `authorization_endpoint`.
    pub authorization_endpoint: String,
    /// `token_endpoint`.
    pub token_endpoint: String,
    /// `registration_endpoint` (RFC 7591).
    pub registration_endpoint: Option<String>,
    /// `revocation_endpoint` (RFC 7009): where `auth logout` revokes.
    pub revocation_endpoint: Option<String>,
    /// `scopes_supported`.
    pub scopes_supported: Option<Vec<String>>,
    /// `response_types_supported`.
    pub response_types_supported: Option<Vec<String>>,
    /// `code_challenge_methods_supported` (RFC 7636).
    pub code_challenge_methods_supported: Option<Vec<String>>,
    /// `token_endpoint_auth_methods_supported`.
    pub token_endpoint_auth_methods_supported: Option<Vec<String>>,
    /// `client_id_metadata_document_supported`.
    pub client_id_metadata_document_supported: bool,
    /// `authorization_response_iss_parameter_supported` (RFC 9207).
    pub authorization_response_iss_parameter_supported: bool,
    /// `grant_types_supported`: the grants it offers, when it lists them.
    pub grant_types_supported: Option<Vec<String>>,
    /// `token_endpoint_auth_signing_alg_values_supported`: the algorithms
    /// it takes for `private_key_jwt` client assertions, when it lists
    /// them.
    pub token_endpoint_auth_signing_alg_values_supported: Option<Vec<String>>,
    /// `dpop_signing_alg_values_supported` (RFC 9449 §5.1): the proof
    /// algorithms it takes; present when it offers DPoP.
    pub dpop_signing_alg_values_supported: Option<Vec<String>>,
}

impl ServerMetadata {
    /// Read an RFC 8414 or OpenID Connect Discovery document.
    ///
    /// Errors: the member that is missing ([`DiscoveryError::NoString`]).
    pub fn parse(v: &Value) -> Result<Self, DiscoveryError> {
        let s = |k: &str| v.get(k).and_then(Value::as_str).map(str::to_owned);
        let need = |k: &'static str| s(k).ok_or(DiscoveryError::NoString(k));
        let flag = |k: &str| v.get(k).and_then(Value::as_bool).unwrap_or(false);
        Ok(Self {
            issuer: need("issuer")?,
            authorization_endpoint: need("authorization_endpoint")?,
            token_endpoint: need("token_endpoint")?,
            registration_endpoint: s("registration_endpoint"),
            revocation_endpoint: s("revocation_endpoint"),
            scopes_supported: strings(v.get("scopes_supported")),
            response_types_supported: strings(v.get("response_types_supported")),
            code_challenge_methods_supported: strings(v.get("code_challenge_methods_supported")),
            token_endpoint_auth_methods_supported: strings(
                v.get("token_endpoint_auth_methods_supported"),
            ),
            client_id_metadata_document_supported: flag("client_id_metadata_document_supported"),
            authorization_response_iss_parameter_supported: flag(
                "authorization_response_iss_parameter_supported",
            ),
            grant_types_supported: strings(v.get("grant_types_supported")),
            token_endpoint_auth_signing_alg_values_supported: strings(
                v.get("token_endpoint_auth_signing_alg_values_supported"),
            ),
            dpop_signing_alg_values_supported: strings(v.get("dpop_signing_alg_values_supported")),
        })
    }

    /// What must hold before the client sends anything to this server:
    /// PKCE S256 advertised, `code` among the response types (when
    /// listed), every endpoint https or on this machine.
    ///
    /// Errors: the rule broken, naming the server ([`DiscoveryError`]).
    pub fn check(&self) -> Result<(), DiscoveryError> {
        let who = &self.issuer;
        if !self
            .code_challenge_methods_supported
            .as_ref()
            .is_some_and(|m| m.iter().any(|x| x == "S256"))
        {
            return Err(DiscoveryError::NoPkce(who.clone()));
        }
        if let Some(rt) = &self.response_types_supported {
            if !rt.iter().any(|x| x == "code") {
                return Err(DiscoveryError::NoCodeFlow(who.clone()));
            }
        }
        self.check_endpoints()
    }

    /// What must hold before a grant that needs no person sends anything
    /// to this server (no browser: PKCE and the code flow are not asked
    /// for): every endpoint https or on this machine.
    ///
    /// Errors: [`DiscoveryError::NotHttps`] naming the endpoint.
    pub fn check_endpoints(&self) -> Result<(), DiscoveryError> {
        let who = &self.issuer;
        for (name, url) in [
            ("authorization", Some(&self.authorization_endpoint)),
            ("token", Some(&self.token_endpoint)),
            ("registration", self.registration_endpoint.as_ref()),
            ("revocation", self.revocation_endpoint.as_ref()),
        ] {
            if let Some(url) = url {
                if !endpoint_allowed(url) {
                    return Err(DiscoveryError::NotHttps {
                        endpoint: name,
                        issuer: who.clone(),
                    });
                }
            }
        }
        Ok(())
    }

    /// What must hold of this server's issuer and endpoints when it signs
    /// in for the MCP server at `mcp_url`: none of them is on this machine
    /// or its local link unless the MCP server is too ([`points_home`]).
    ///
    /// Errors: [`DiscoveryError::PointsHome`] naming the first such URL.
    pub fn check_reach(&self, mcp_url: &str) -> Result<(), DiscoveryError> {
        for (what, url) in [
            ("authorization server", Some(&self.issuer)),
            ("authorization endpoint", Some(&self.authorization_endpoint)),
            ("token endpoint", Some(&self.token_endpoint)),
            ("registration endpoint", self.registration_endpoint.as_ref()),
            ("revocation endpoint", self.revocation_endpoint.as_ref()),
        ] {
            if let Some(url) = url.filter(|u| points_home(mcp_url, u)) {
                return Err(DiscoveryError::PointsHome {
                    what,
                    url: url.clone(),
                    server: mcp_url.to_owned(),
                });
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn prm_urls_follow_the_header_then_the_path_then_the_root() {
        assert_eq!(
            prm_urls(
                "https://mcp.example.com/public/mcp/",
                Some("https://mcp.example.com/custom/prm")
            )
            .unwrap(),
            [
                "https://mcp.example.com/custom/prm",
                "https://mcp.example.com/.well-known/oauth-protected-resource/public/mcp",
                "https://mcp.example.com/.well-known/oauth-protected-resource",
            ]
        );
        // The root endpoint has no path-aware URL; a query is kept.
        assert_eq!(
            prm_urls("http://localhost:1234", None).unwrap(),
            ["http://localhost:1234/.well-known/oauth-protected-resource"]
        );
        assert_eq!(
            prm_urls("http://localhost:1234/mcp?tenant=a", None).unwrap()[0],
            "http://localhost:1234/.well-known/oauth-protected-resource/mcp?tenant=a"
        );
        // A header naming a non-https remote host is not followed.
        assert_eq!(
            prm_urls("https://a.example/mcp", Some("http://evil.example/prm"))
                .unwrap()
                .len(),
            2
        );
        assert!(prm_urls("ftp://a.example/", None).is_err());
    }

    #[test]
    fn as_metadata_urls_follow_the_spec_order() {
        assert_eq!(
            as_metadata_urls("https://auth.example.com/tenant1").unwrap(),
            [
                "https://auth.example.com/.well-known/oauth-authorization-server/tenant1",
                "https://auth.example.com/.well-known/openid-configuration/tenant1",
                "https://auth.example.com/tenant1/.well-known/openid-configuration",
            ]
        );
        for issuer in ["http://localhost:1234", "http://localhost:1234/"] {
            assert_eq!(
                as_metadata_urls(issuer).unwrap(),
                [
                    "http://localhost:1234/.well-known/oauth-authorization-server",
                    "http://localhost:1234/.well-known/openid-configuration",
                ]
            );
        }
        assert!(as_metadata_urls("http://auth.example.com").is_err());
        assert!(as_metadata_urls("https://auth.example.com/?a=b").is_err());
    }

    #[test]
    fn the_resource_must_name_this_server() {
        let m = "https://MCP.example.com:443/api/mcp";
        assert!(resource_matches("https://mcp.example.com", m));
        assert!(resource_matches("https://mcp.example.com/api", m));
        assert!(resource_matches("https://mcp.example.com/api/mcp", m));
        assert!(resource_matches("https://mcp.example.com/api/", m));
        assert!(!resource_matches("https://mcp.example.com/ap", m));
        assert!(!resource_matches("https://evil.example.com/api/mcp", m));
        assert!(!resource_matches("http://mcp.example.com/api/mcp", m));
        assert!(!resource_matches("https://mcp.example.com:8443/api", m));
        assert!(!resource_matches("https://mcp.example.com/api#x", m));
        assert!(!resource_matches("not a url", m));
    }

    #[test]
    fn only_https_or_this_machine_is_allowed() {
        for ok in [
            "https://a.example/x",
            "http://localhost:3000/token",
            "http://127.0.0.2/t",
            "http://[::1]:80/t",
        ] {
            assert!(endpoint_allowed(ok), "{ok}");
        }
        for bad in ["http://a.example/x", "ftp://localhost/", "javascript:x", ""] {
            assert!(!endpoint_allowed(bad), "{bad}");
        }
    }

    #[test]
    fn a_remote_server_may_not_point_sign_in_at_this_machine_or_its_link() {
        let remote = "https://mcp.example.com/mcp";
        for home in [
            "http://127.0.0.1:8080/prm",
            "http://localhost/x",
            "http://a.localhost/x",
            "http://[::1]/x",
            "http://[::ffff:127.0.0.1]/x",
            "http://169.254.169.254/latest/meta-data",
            "http://[fe80::1]/x",
            "https://0.0.0.0:8443/x",
            "https://[::]/x",
        ] {
            assert!(points_home(remote, home), "{home}");
            assert!(!points_home("http://127.0.0.1:3000/mcp", home), "{home}");
            assert!(!points_home("http://localhost:3000/mcp", home), "{home}");
        }
        assert!(!points_home(remote, "https://auth.example.com/"));
        // The challenge's resource_metadata at home is not asked.
        assert_eq!(
            prm_urls(remote, Some("http://127.0.0.1:8080/prm?x=1")).unwrap(),
            [
                "https://mcp.example.com/.well-known/oauth-protected-resource/mcp",
                "https://mcp.example.com/.well-known/oauth-protected-resource"
            ]
        );
        let mut m = ServerMetadata::parse(&metadata()).unwrap();
        assert_eq!(m.check_reach("http://localhost:1234/mcp"), Ok(()));
        assert_eq!(
            m.check_reach(remote).unwrap_err().to_string(),
            "the authorization server \"http://localhost:1234\" is on this machine (or its local link) but https://mcp.example.com/mcp is not: a remote server may not send sign-in requests to this machine"
        );
        m.issuer = "https://auth.example.com".into();
        m.authorization_endpoint = "https://auth.example.com/authorize".into();
        m.token_endpoint = "http://169.254.169.254/token".into();
        assert!(matches!(
            m.check_reach(remote),
            Err(DiscoveryError::PointsHome {
                what: "token endpoint",
                ..
            })
        ));
    }

    fn metadata() -> Value {
        json!({
            "issuer": "http://localhost:1234",
            "authorization_endpoint": "http://localhost:1234/authorize",
            "token_endpoint": "http://localhost:1234/token",
            "registration_endpoint": "http://localhost:1234/register",
            "response_types_supported": ["code"],
            "code_challenge_methods_supported": ["S256"],
            "authorization_response_iss_parameter_supported": true,
        })
    }

    #[test]
    fn server_metadata_is_read_and_checked() {
        let m = ServerMetadata::parse(&metadata()).unwrap();
        assert_eq!(m.issuer, "http://localhost:1234");
        assert!(m.authorization_response_iss_parameter_supported);
        assert!(!m.client_id_metadata_document_supported);
        m.check().unwrap();
        let mut v = metadata();
        v.as_object_mut()
            .unwrap()
            .remove("code_challenge_methods_supported");
        let e = ServerMetadata::parse(&v).unwrap().check().unwrap_err();
        assert_eq!(
            e.to_string(),
            "http://localhost:1234 does not say it supports PKCE (S256): ahp-elicit does not sign in without it"
        );
        v = metadata();
        v["token_endpoint"] = json!("http://login.example.com/token");
        let e = ServerMetadata::parse(&v)
            .unwrap()
            .check()
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("the token endpoint of http://localhost:1234 is not https"),
            "{e}"
        );
        v = metadata();
        v.as_object_mut().unwrap().remove("token_endpoint");
        assert_eq!(
            ServerMetadata::parse(&v).unwrap_err().to_string(),
            "it has no \"token_endpoint\" string"
        );
    }

    #[test]
    fn resource_metadata_keeps_the_strings_as_published() {
        let m = ResourceMetadata::parse(&json!({
            "resource": "http://localhost:1234",
            "authorization_servers": ["http://localhost:1234/tenant1"],
            "scopes_supported": ["mcp:basic"],
        }))
        .unwrap();
        assert_eq!(m.resource, "http://localhost:1234");
        assert_eq!(m.authorization_servers, ["http://localhost:1234/tenant1"]);
        assert!(
            ResourceMetadata::parse(&json!({"resource": "x", "authorization_servers": []}))
                .is_err()
        );
    }
}
