//! A step-up: the request a 403 `insufficient_scope` refused, the scopes
//! a new sign-in asks for, and why a step-up that adds nothing is refused.

use serde_json::Value;

use super::authorizer::*;
use super::challenge::BearerChallenge;
use super::error::{AuthError, NothingNew};
use super::flow::union_scopes;
use super::store::Tokens;

/// The request a server refused for lack of a sign-in or of access: its
/// JSON-RPC method and, for `tools/call`, the tool's name (as this client
/// sent it: the server's text, unescaped).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct RequestName {
    /// The JSON-RPC method (`tools/call`).
    pub method: String,
    /// The tool called, for `tools/call`.
    pub tool: Option<String>,
}

impl RequestName {
    /// The request named in a JSON-RPC message's bytes (the body the
    /// transport sent); None when it is not a request (a response or
    /// something that does not parse).
    pub fn of_message(body: &[u8]) -> Option<Self> {
        let v: Value = serde_json::from_slice(body).ok()?;
        let method = v.get("method")?.as_str()?.to_owned();
        let tool = (method == "tools/call")
            .then(|| v.get("params")?.get("name")?.as_str())
            .flatten()
            .map(str::to_owned);
        Some(Self { method, tool })
    }
}

impl std::fmt::Display for RequestName {
    /// `tools/call NAME` (the name made safe for a terminal), or the method.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&crate::safe_text::display(&self.method))?;
        if let Some(t) = &self.tool {
            write!(f, " {}", crate::safe_text::display(t))?;
        }
        Ok(())
    }
}

/// What a step-up sign-in is for: a 403 `insufficient_scope` named access
/// the token in use does not have.
#[derive(Debug, Clone, Copy)]
pub struct StepUp<'a> {
    /// The scopes the refusal named that were neither asked for nor
    /// granted before (what the new sign-in adds).
    pub adds: &'a [String],
    /// The scopes of the token in use: as granted, else as asked for.
    pub has: &'a [String],
    /// The request refused, when known.
    pub request: Option<&'a RequestName>,
}

impl StepUp<'_> {
    /// One sentence, safe for a terminal: `tools/call admin_reset needs
    /// more access: scope admin (you have: read)`; `host` names the
    /// server when the request is not known.
    pub fn sentence(&self, host: &str) -> String {
        let who = match self.request {
            Some(r) => r.to_string(),
            None => crate::safe_text::display(host).into_owned(),
        };
        let adds = crate::safe_text::display(&self.adds.join(" ")).into_owned();
        let what = match self.adds.len() {
            0 => "no scope named".to_owned(),
            1 => format!("scope {adds}"),
            _ => format!("scopes {adds}"),
        };
        let has = if self.has.is_empty() {
            String::new()
        } else {
            format!(
                " (you have: {})",
                crate::safe_text::display(&self.has.join(" "))
            )
        };
        format!("{who} needs more access: {what}{has}")
    }
}

/// The scopes of a step-up ([`Authorizer::step_up_scopes`]).
pub(super) struct StepUpScopes {
    /// Asked for now: asked and granted before, then the challenge's.
    pub(super) union: Vec<String>,
    /// What the union adds.
    pub(super) adds: Vec<String>,
    /// What the token in use has.
    pub(super) has: Vec<String>,
}

impl Authorizer {
    /// A step-up's scopes: the union, in first-seen order, of those asked
    /// for and granted before and those the challenge names; what that
    /// adds; and what the token in use has (granted, else asked for).
    ///
    /// Errors: the union adds nothing ([`Self::nothing_new`]).
    pub(super) fn step_up_scopes(
        &self,
        t: &Tokens,
        ch: &BearerChallenge,
        request: Option<&RequestName>,
    ) -> Result<StepUpScopes, AuthError> {
        let granted = t.scopes_granted.clone().unwrap_or_default();
        let asked = ch.scope.clone().unwrap_or_default();
        let union = union_scopes(&t.scopes_requested, &granted, &asked);
        let before = union_scopes(&t.scopes_requested, &granted, &[]);
        if union.len() == before.len() {
            return Err(self.nothing_new(request, &asked, &granted));
        }
        let has = t
            .scopes_granted
            .clone()
            .unwrap_or_else(|| t.scopes_requested.clone());
        let adds = union[before.len()..].to_vec();
        Ok(StepUpScopes { union, adds, has })
    }

    /// The error of a step-up that would ask for nothing new: the scopes
    /// the refusal names (`asked`) the token has, or were asked for and
    /// not granted.
    pub(super) fn nothing_new(
        &self,
        request: Option<&RequestName>,
        asked: &[String],
        granted: &[String],
    ) -> AuthError {
        let why = if asked.is_empty() {
            NothingNew::NoScopeNamed
        } else if asked.iter().all(|s| granted.contains(s)) {
            NothingNew::Held
        } else {
            NothingNew::NotGranted
        };
        AuthError::NothingNewToAsk {
            mcp_url: self.mcp_url.clone(),
            request: request.cloned(),
            asked: asked.to_vec(),
            why,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mcp::auth::fake_as::*;
    use crate::mcp::auth::store::Store;
    use serde_json::json;
    use std::sync::{Arc, Mutex};

    #[test]
    fn step_up_signs_in_again_for_the_union_of_scopes() {
        let fake = fake_as(|base, m, t, _| match (m, t) {
            ("GET", "/.well-known/oauth-protected-resource/mcp") => (
                200,
                json!({"resource": format!("{base}/mcp"), "authorization_servers": [base]})
                    .to_string(),
            ),
            ("GET", "/.well-known/oauth-authorization-server") => (200, metadata(base)),
            ("POST", "/register") => (201, r#"{"client_id":"new-client"}"#.into()),
            ("POST", "/token") => (
                200,
                r#"{"access_token":"a3","token_type":"bearer","scope":"a b"}"#.into(),
            ),
            _ => (404, "{}".into()),
        });
        let store = Arc::new(crate::mcp::auth::store::MemoryStore::default());
        store.save(&stored(&fake.base, 3600, &["a"])).unwrap();
        let (mut a, _) = authorizer(&fake.base, Arc::clone(&store));
        let urls = Arc::new(Mutex::new(Vec::new()));
        let rec = Arc::clone(&urls);
        // A browser that the authorization server redirects at once.
        a.opts.opener = Some(Arc::new(move |url: &str| {
            rec.lock().unwrap().push(url.to_owned());
            let u = url::Url::parse(url).unwrap();
            let q: std::collections::HashMap<String, String> =
                u.query_pairs().into_owned().collect();
            let back = format!("{}?code=c1&state={}", q["redirect_uri"], q["state"]);
            std::thread::spawn(move || {
                let _ = ureq::get(&back).call();
            });
            Ok(())
        }));
        a.opts.opener_name = "a test".into();
        // A pinned callback port is the one in the redirect URI.
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        a.opts.callback_port = Some(port);
        let (generation, _) = a.header();
        let challenge = BearerChallenge {
            error: Some("insufficient_scope".into()),
            scope: Some(vec!["b".into()]),
            ..BearerChallenge::default()
        };
        a.authorize(&Unauthorized {
            status: 403,
            challenge: Some(challenge.clone()),
            generation,
            request: None,
        })
        .unwrap();
        let asked = urls.lock().unwrap()[0].clone();
        assert!(asked.contains("&scope=a+b&"), "{asked}");
        assert!(asked.contains("client_id=new-client"), "{asked}");
        assert!(
            asked.contains(&format!(
                "redirect_uri=http%3A%2F%2F127.0.0.1%3A{port}%2Fcallback"
            )),
            "{asked}"
        );
        assert_eq!(a.header(), (generation + 1, Some("Bearer a3".into())));
        // The same challenge again adds nothing: refused, no new flow.
        let e = a
            .authorize(&Unauthorized {
                status: 403,
                challenge: Some(challenge),
                generation: generation + 1,
                request: None,
            })
            .unwrap_err();
        assert!(
            e.to_string().ends_with("refused the request for lack of access (b), which the token in use has already: not signing in again"),
            "{e}"
        );
        assert_eq!(urls.lock().unwrap().len(), 1);
    }
}
