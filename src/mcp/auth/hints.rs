//! The sentences of a sign-in: what is said before the browser opens,
//! the sign-in in use, and the hints an error adds (the command to sign
//! in with, the accounts signed in, the kept client to forget).

use super::authorizer::*;
use super::browser::*;
use super::error::AuthError;
use super::step_up::*;

/// `word` as one word of a POSIX shell command line: as it is when it
/// holds only characters no shell treats specially, else in single quotes
/// (a single quote in it written `'\''`).
pub(super) fn shell_word(word: &str) -> String {
    let plain = !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "_-./:@%+=,".contains(c));
    if plain {
        word.to_owned()
    } else {
        format!("'{}'", word.replace('\'', "'\\''"))
    }
}

/// The host of a URL, for messages (empty when it has none).
pub(super) fn host_of(url: &str) -> String {
    url::Url::parse(url)
        .ok()
        .and_then(|u| u.host_str().map(str::to_owned))
        .unwrap_or_default()
}

/// `; a sign-in is stored for account NAME (pass --account NAME)` (or
/// `for accounts A, B (pass --account NAME)`), empty for no names; the
/// names made safe for a terminal.
pub fn accounts_hint(names: &[&str]) -> String {
    let shown: Vec<String> = names
        .iter()
        .map(|n| crate::safe_text::display(n).into_owned())
        .collect();
    match shown.as_slice() {
        [] => String::new(),
        [one] => format!("; a sign-in is stored for account {one} (pass --account {one})"),
        many => format!(
            "; sign-ins are stored for accounts {} (pass --account NAME)",
            many.join(", ")
        ),
    }
}

impl Authorizer {
    /// When the token in use is one an earlier run stored (read from the
    /// store, not obtained or renewed by this run): what to say with an
    /// error the server answered it with. A server that restarted and
    /// forgot its tokens may fail on one (HTTP 500) rather than ask for a
    /// sign-in.
    pub fn stored_sign_in_hint(&self) -> Option<String> {
        let g = self.lock().ok()?;
        if g.withheld == Some(g.generation) {
            return None;
        }
        let c = g.current.as_ref().filter(|c| c.from_store)?;
        let account = match c.sign_in.key.account.as_str() {
            "default" => String::new(),
            a => format!("--account {} ", crate::safe_text::display(a)),
        };
        Some(format!(
            "a sign-in stored by an earlier run was sent with the request; if the server no longer takes it, \"ahp-elicit auth logout {account}{}\" clears it",
            self.mcp_url
        ))
    }

    /// The sign-in in use, in words (never a secret): `signed in to URL at
    /// ISSUER (account NAME); access for 59 minutes 40 seconds, renewable`.
    pub fn summary(&self) -> Option<String> {
        let g = self.lock().ok()?;
        let s = &g.current.as_ref()?.sign_in;
        let mut out = format!(
            "signed in to {} at {} (account {})",
            s.mcp_url, s.key.issuer, s.key.account
        );
        if s.grant != super::store::GrantType::AuthorizationCode {
            out.push_str(&format!(" with {}", s.grant.words()));
        }
        if let Some(left) = s
            .tokens
            .expires_at
            .and_then(|t| t.duration_since(now()).ok())
        {
            out.push_str(&format!(
                "; access for {}",
                crate::responder::duration_words(left.as_secs())
            ));
        }
        if s.tokens.refresh_token.is_some() {
            out.push_str(", renewable");
        }
        Some(out)
    }

    /// What is said before the opener opens the authorization URL.
    pub(super) fn opening_sentence(&self, s: &Shown<'_>) -> String {
        format!(
            "{}signing in at {} for {}{}: opening the authorization URL with {}",
            s.step_up.map_or_else(String::new, |u| format!(
                "{}; ",
                u.sentence(&host_of(&self.mcp_url))
            )),
            host_of(&s.meta.authorization_endpoint),
            self.mcp_url,
            if s.scopes.is_empty() {
                String::new()
            } else {
                format!(" (access asked: {})", s.scopes.join(" "))
            },
            self.opts.opener_name
        )
    }

    /// The error when a flow for `scopes` is needed and nothing can show
    /// it: what is needed (a sign-in, or for a step-up the access the
    /// refusal named: [`StepUp::sentence`]), the command to sign in with
    /// (`auth login`, with this run's account and, for a step-up or a
    /// run given `--scope`, `--scope` with the scopes the flow would ask
    /// for, so the sign-in it stores has them), why this run cannot, and
    /// the accounts signed in to this server when this run's is not one
    /// of them.
    pub(super) fn no_way_to_sign_in(
        &self,
        resource: &str,
        scopes: &[String],
        step_up: Option<StepUp<'_>>,
    ) -> AuthError {
        let how = if let Some(grant) = self.stored_grant(resource) {
            // Made without a person: a browser sign-in is not the way back.
            let flag = grant.as_str().replace('_', "-");
            format!(
                "its stored sign-in with {} has ended: run again with --grant {flag} and its credentials",
                grant.words()
            )
        } else if self.opts.name_login {
            let command = self.login_command(scopes, step_up.is_some());
            if self.opts.offer_browser {
                format!("run \"{command}\" at a terminal (or pass --browser CMD)")
            } else {
                format!("run \"{command}\" at a terminal")
            }
        } else {
            "run this at a terminal, or pass --browser CMD".to_owned()
        };
        let needs = match step_up {
            Some(s) => s.sentence(&self.mcp_url),
            None => format!("{} needs a sign-in", self.mcp_url),
        };
        AuthError::NoWayToSignIn {
            step_up: step_up.is_some(),
            needs,
            how,
            reason: self.opts.no_opener_reason.clone(),
            others: self.other_accounts_hint(resource),
        }
    }

    /// The command that signs in for this run, as a shell line:
    /// `ahp-elicit auth login [--account NAME] [--scope 'S ...'] URL`
    /// (`--scope` with the scopes asked when the run asks for its own, or
    /// for a step-up).
    pub(super) fn login_command(&self, scopes: &[String], step_up: bool) -> String {
        let account = &self.opts.account;
        let mut flags = String::new();
        if account != "default" {
            flags.push_str(&format!("--account {} ", shell_word(account)));
        }
        if (step_up || self.opts.scope.is_some()) && !scopes.is_empty() {
            flags.push_str(&format!("--scope {} ", shell_word(&scopes.join(" "))));
        }
        format!("ahp-elicit auth login {flags}{}", self.mcp_url)
    }

    /// The grant of the newest sign-in stored for this run's account and
    /// this server (its MCP URL or `resource`) when it was made without a
    /// person (client credentials, a JWT bearer assertion, enterprise);
    /// None for a browser sign-in, none stored, or a store not read.
    pub(super) fn stored_grant(&self, resource: &str) -> Option<super::store::GrantType> {
        let Ok(Ok(all)) = self.opts.store.as_ref().map(|s| s.all()) else {
            return None;
        };
        all.into_iter()
            .filter(|s| s.mcp_url == self.mcp_url || s.key.resource == resource)
            .filter(|s| s.key.account == self.opts.account)
            .max_by_key(|s| s.tokens.obtained_at)
            .map(|s| s.grant)
            .filter(|g| *g != super::store::GrantType::AuthorizationCode)
    }

    /// When no sign-in is stored for this run's account but some are for
    /// others (same MCP URL or resource): `; a sign-in is stored for
    /// account NAME (pass --account NAME)`; else empty.
    pub(super) fn other_accounts_hint(&self, resource: &str) -> String {
        let Ok(Ok(all)) = self.opts.store.as_ref().map(|s| s.all()) else {
            return String::new();
        };
        let mut names: Vec<&str> = all
            .iter()
            .filter(|s| s.mcp_url == self.mcp_url || s.key.resource == resource)
            .map(|s| s.key.account.as_str())
            .collect();
        names.sort_unstable();
        names.dedup();
        if names.contains(&self.opts.account.as_str()) {
            return String::new();
        }
        accounts_hint(&names)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mcp::auth::discovery::{ResourceMetadata, ServerMetadata};
    use crate::mcp::auth::options::*;
    use crate::responder::lines::cancelled;
    use std::sync::Arc;

    #[test]
    fn a_cancelled_sign_in_names_the_server_escaped() {
        assert_eq!(
            cancelled("https://mcp.example.com/mcp"),
            "sign-in to https://mcp.example.com/mcp cancelled"
        );
        assert_eq!(
            cancelled("http://a.example/\u{1b}[2J"),
            "sign-in to http://a.example/\\u{1b}[2J cancelled"
        );
    }

    #[test]
    fn other_accounts_are_named_with_the_flag_to_pass() {
        assert_eq!(accounts_hint(&[]), "");
        assert_eq!(
            accounts_hint(&["work"]),
            "; a sign-in is stored for account work (pass --account work)"
        );
        assert_eq!(
            accounts_hint(&["home", "w\u{1b}[2Jork"]),
            "; sign-ins are stored for accounts home, w\\u{1b}[2Jork (pass --account NAME)"
        );
    }

    #[test]
    fn without_an_opener_no_flow_starts_and_the_error_names_auth_login() {
        let a = Authorizer::new(
            "http://127.0.0.1:9/mcp",
            AuthOptions::new(Ok(
                Arc::new(crate::mcp::auth::store::MemoryStore::default()),
            )),
        );
        let mut g = a.lock().unwrap();
        let prm = ResourceMetadata {
            resource: "http://127.0.0.1:9/mcp".into(),
            authorization_servers: vec!["http://127.0.0.1:9".into()],
            scopes_supported: None,
        };
        let e = a
            .flow(&mut g, &prm, &ServerMetadata::default(), "", vec![], None)
            .unwrap_err();
        assert_eq!(
            e.to_string(),
            "http://127.0.0.1:9/mcp needs a sign-in: run \"ahp-elicit auth login http://127.0.0.1:9/mcp\" at a terminal (or pass --browser CMD); this run cannot open a browser"
        );
        assert!(matches!(e, AuthError::NoWayToSignIn { .. }), "{e:?}");
        assert_eq!(g.flows, 0);
    }

    #[test]
    fn without_an_opener_a_step_up_names_the_access_and_the_scopes_to_sign_in_for() {
        let mut opts = AuthOptions::new(Ok(Arc::new(
            crate::mcp::auth::store::MemoryStore::default(),
        )));
        opts.account = "work team".into();
        let a = Authorizer::new("http://127.0.0.1:9/mcp", opts);
        let mut g = a.lock().unwrap();
        let prm = ResourceMetadata {
            resource: "http://127.0.0.1:9/mcp".into(),
            authorization_servers: vec!["http://127.0.0.1:9".into()],
            scopes_supported: None,
        };
        let request = RequestName {
            method: "tools/call".into(),
            tool: Some("admin_reset".into()),
        };
        let (adds, has) = (vec!["admin".to_owned()], vec!["read".to_owned()]);
        let step = StepUp {
            adds: &adds,
            has: &has,
            request: Some(&request),
        };
        let scopes = vec!["read".to_owned(), "admin".to_owned()];
        let e = a
            .flow(
                &mut g,
                &prm,
                &ServerMetadata::default(),
                "",
                scopes,
                Some(step),
            )
            .unwrap_err();
        assert_eq!(
            e.to_string(),
            "tools/call admin_reset needs more access: scope admin (you have: read): run \"ahp-elicit auth login --account 'work team' --scope 'read admin' http://127.0.0.1:9/mcp\" at a terminal (or pass --browser CMD); this run cannot open a browser"
        );
        assert_eq!(g.flows, 0);
    }

    #[test]
    fn an_ended_sign_in_made_without_a_person_names_its_grant_not_a_browser_sign_in() {
        let store = Arc::new(crate::mcp::auth::store::MemoryStore::default());
        let base = "http://127.0.0.1:9";
        for grant in [
            crate::mcp::auth::store::GrantType::ClientCredentials,
            crate::mcp::auth::store::GrantType::JwtBearer,
        ] {
            let mut s = crate::mcp::auth::fake_as::stored(base, -60, &[]);
            s.tokens.refresh_token = None;
            s.grant = grant;
            crate::mcp::auth::store::Store::save(&*store, &s).unwrap();
            let (a, _) = crate::mcp::auth::fake_as::authorizer(base, store.clone());
            let mut g = a.lock().unwrap();
            let prm = ResourceMetadata {
                resource: format!("{base}/mcp"),
                authorization_servers: vec![base.into()],
                scopes_supported: None,
            };
            let e = a
                .flow(&mut g, &prm, &ServerMetadata::default(), "", vec![], None)
                .unwrap_err()
                .to_string();
            let flag = grant.as_str().replace('_', "-");
            assert_eq!(
                e,
                format!(
                    "{base}/mcp needs a sign-in: its stored sign-in with {} has ended: run again with --grant {flag} and its credentials; this run cannot open a browser",
                    grant.words()
                )
            );
            assert!(!e.contains("auth login"), "{e}");
        }
    }

    #[test]
    fn shell_words_are_quoted_only_when_a_shell_would_split_or_read_them() {
        assert_eq!(shell_word("read"), "read");
        assert_eq!(shell_word("mcp:tools.read"), "mcp:tools.read");
        assert_eq!(shell_word("read admin"), "'read admin'");
        assert_eq!(shell_word("it's"), "'it'\\''s'");
        assert_eq!(shell_word("$HOME"), "'$HOME'");
        assert_eq!(shell_word(""), "''");
    }
}
