//! Registrable names (the public suffix and one label before it) from the
//! Public Suffix List, read on first use.
//!
//! The list is built in as its text (`upstream/public-suffix/rules.txt`,
//! about 150 KB) and parsed into the `publicsuffix` crate's tree the first
//! time a URL is reviewed: a run that reviews no URL (a form, `validate`)
//! neither parses nor holds it, and the binary carries the text rather
//! than the list compiled into matching code (about 0.5 MB more).

use std::sync::OnceLock;

use publicsuffix::{List, Psl};

/// The list's rules, one a line (`*.` wildcards, `!` exceptions, rules in
/// Unicode and in punycode both matched).
const RULES: &str = include_str!("../../upstream/public-suffix/rules.txt");

/// The parsed list: None only if the built-in text did not parse (a unit
/// test keeps that from shipping), and then no name is registrable.
fn list() -> Option<&'static List> {
    static LIST: OnceLock<Option<List>> = OnceLock::new();
    LIST.get_or_init(|| RULES.parse().ok()).as_ref()
}

/// The registrable name of a host in ASCII (lower case, punycode, as the
/// `url` crate gives it): the longest public suffix that matches, with the
/// label before it, without the host's trailing dot if it has one. None when the host is itself a
/// public suffix (`co.uk`, `github.io`) or has no label before one.
/// Unknown top-level names count as public suffixes (the list's implicit
/// `*` rule), so `a.b.invalid` gives `b.invalid`.
pub(crate) fn registrable(host: &str) -> Option<&str> {
    let host = host.strip_suffix('.').unwrap_or(host);
    let domain = list()?.domain(host.as_bytes())?;
    let name = std::str::from_utf8(domain.as_bytes()).ok()?;
    (!name.is_empty()).then_some(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_built_in_list_parses() {
        assert!(list().is_some());
    }

    #[test]
    fn registrable_names_follow_the_rules_of_the_list() {
        let cases = [
            ("example.com", Some("example.com")),
            ("a.b.example.com", Some("example.com")),
            ("com", None),
            ("www.example.co.uk", Some("example.co.uk")),
            ("co.uk", None),
            // A private rule.
            ("user.github.io", Some("user.github.io")),
            ("github.io", None),
            // A wildcard rule (`*.ck`) and its exception (`!www.ck`).
            ("a.b.ck", Some("a.b.ck")),
            ("www.ck", Some("www.ck")),
            // A rule written in Unicode, matched in punycode (公司.cn).
            ("x.xn--55qx5d.cn", Some("x.xn--55qx5d.cn")),
            // The implicit `*` rule.
            ("a.b.invalid", Some("b.invalid")),
            // A trailing dot is left out.
            ("www.example.com.", Some("example.com")),
        ];
        for (host, want) in cases {
            assert_eq!(registrable(host), want, "{host}");
        }
    }

    /// Every rule of the list, and names under it, give the registrable
    /// name that the list compiled into code (the psl crate, built from the
    /// same rules) gives.
    #[test]
    fn every_rule_gives_the_name_the_compiled_list_gives() {
        let mut hosts = 0;
        for line in RULES
            .lines()
            .filter(|l| !l.is_empty() && !l.starts_with("//"))
        {
            let rule = line.trim_start_matches('!').replace('*', "w");
            let Ok(rule) = idna::domain_to_ascii(&rule) else {
                continue;
            };
            for host in [
                rule.clone(),
                format!("x.{rule}"),
                format!("y.x.{rule}"),
                format!("y.x.{rule}."),
            ] {
                let want = psl::domain_str(&host).filter(|d| !d.is_empty());
                assert_eq!(registrable(&host), want, "{host}");
                hosts += 1;
            }
        }
        assert!(hosts > 40_000, "{hosts} names checked");
    }
}
