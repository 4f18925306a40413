//! URL review on real request events (the shared example and vectors) and
//! properties that must hold for any input: no panic, redaction leaves no
//! query or fragment text, wrapping keeps every character.

use crate::common;

use ahp_elicit::binding::{parse_json, read_request_event, RequestBody};
use ahp_elicit::redact::{redact_text, redact_url, REDACTED};
use ahp_elicit::url_review::{review, Warning};
use proptest::prelude::*;

fn url_of(event: &serde_json::Value) -> Option<String> {
    let req = read_request_event(event).ok()?;
    match &req.view.request()?.body {
        RequestBody::Url { url, .. } => Some(url.clone()),
        RequestBody::Form(_) => None,
    }
}

#[test]
fn the_shared_url_example_is_openable_and_clean() {
    let bytes = std::fs::read(common::examples_dir().join("url-connect.request.json")).unwrap();
    let ev = parse_json(&bytes).unwrap();
    let url = url_of(&ev).expect("a URL-mode body");
    let r = review(&url);
    assert!(r.openable());
    assert_eq!(
        r.target(),
        Some("https://auth.example.com/connect?elicitation=6f1d2c")
    );
    let h = r.host.as_ref().unwrap();
    assert_eq!(h.split_unicode(), ("auth.", "example.com"));
    assert!(r.warnings.is_empty(), "{:?}", r.warnings);
    assert_eq!(
        redact_url(&url),
        "https://auth.example.com/connect?[redacted]"
    );
}

#[test]
fn every_valid_url_vector_is_reviewed() {
    let mut n = 0;
    for case in common::vectors() {
        let Some(ev) = case.get("request") else {
            continue;
        };
        let Some(url) = url_of(ev) else { continue };
        n += 1;
        let r = review(&url);
        // The binding accepted it as an absolute URL, so it parses here too.
        assert!(r.url.is_some(), "{}: {url}", case["id"]);
        if r.openable() {
            assert!(r.host.is_some(), "{}: {url}", case["id"]);
        }
    }
    assert!(n >= 2, "only {n} valid URL-mode requests found");
}

#[test]
fn userinfo_is_warned_and_unsafe_schemes_are_not_openable() {
    let r = review("https://trusted.example@evil.test/");
    assert!(matches!(&r.warnings[..], [Warning::Userinfo { host, .. }] if host == "evil.test"));
    for (u, s) in [
        ("javascript:alert(1)", "javascript"),
        ("file:///etc/passwd", "file"),
        ("data:text/plain,hi", "data"),
    ] {
        let r = review(u);
        assert!(!r.openable());
        assert_eq!(r.scheme.as_deref(), Some(s));
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn review_never_panics(s in "\\PC{0,80}") {
        let r = review(&s);
        // Openable implies an https/http target that reviews the same way.
        if let Some(t) = r.target() {
            prop_assert!(t.starts_with("https://") || t.starts_with("http://"));
            prop_assert!(review(t).openable());
        }
        // Shown text never carries a raw control character.
        prop_assert!(!r.display_url().chars().any(|c| c.is_control()));
        for w in &r.warnings {
            prop_assert!(!w.sentence().chars().any(|c| c.is_control()));
        }
    }

    #[test]
    fn review_of_url_like_text_never_panics(
        scheme in "(https?|javascript|file|data|ftp|HTTP)",
        user in "([a-z.]{0,8}@)?",
        host in "[a-z0-9\\u{430}-\\u{44f}.\\-\\[\\]:]{0,20}",
        rest in "[/?#a-z0-9=&%\\u{202e}\\t]{0,20}",
    ) {
        let u = format!("{scheme}://{user}{host}{rest}");
        let r = review(&u);
        prop_assert_eq!(r.openable(), r.target().is_some());
    }

    #[test]
    fn redaction_hides_query_and_fragment(
        base in "https://[a-z]{1,8}\\.example/[a-z/]{0,8}",
        query in "[a-zA-Z0-9=&%]{1,20}",
        frag in "[a-zA-Z0-9=&]{1,10}",
    ) {
        let u = format!("{base}?SECRET{query}#SECRET{frag}");
        let red = redact_url(&u);
        prop_assert_eq!(&red, &format!("{base}?{REDACTED}#{REDACTED}"));
        let msg = format!("Go to {u} now");
        let red_msg = redact_text(&msg);
        prop_assert!(!red_msg.contains("SECRET"), "{}", red_msg);
        prop_assert!(red_msg.ends_with(" now"));
    }
}

/// A URL inside the query that leaves the registrable domain (an OAuth
/// `redirect_uri`, a `next=`) is flagged; one that stays on the site is not.
#[test]
fn a_foreign_url_in_the_query_is_flagged() {
    let r = review(
        "https://accounts.example.com/o/oauth2/auth?client_id=1&redirect_uri=https%3A%2F%2Fcollect.evil.test%2Fcb&next=https://www.example.com/home",
    );
    let foreign: Vec<&Warning> = r
        .warnings
        .iter()
        .filter(|w| w.kind() == "foreign-redirect")
        .collect();
    assert_eq!(foreign.len(), 1, "{:?}", r.warnings);
    assert_eq!(
        foreign[0].sentence(),
        "The query parameter \"redirect_uri\" holds a URL on another site (collect.evil.test): after this page, the browser may be sent there."
    );
    assert_eq!(
        foreign[0].severity(),
        ahp_elicit::url_review::Severity::Danger
    );
    let same = review("https://example.com/login?next=https://app.example.com/");
    assert!(same.warnings.iter().all(|w| w.kind() != "foreign-redirect"));
}
