//! URL review on real request events (the shared example and vectors) and
//! properties that must hold for any input: no panic, redaction leaves no
//! query or fragment text, wrapping keeps every character.

use crate::common;

use ahp_elicit::binding::{parse_json, read_request, ReadOptions, RequestBody};
use ahp_elicit::redact::{redact_text, redact_url, REDACTED};
use ahp_elicit::url_review::{review, Warning};
use proptest::prelude::*;

fn url_of(event: &serde_json::Value) -> Option<String> {
    let req = read_request(event.clone(), ReadOptions::default()).ok()?;
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

/// The foreign-host sentences of `url`, in order.
fn foreign_sentences(url: &str) -> Vec<String> {
    review(url)
        .warnings
        .iter()
        .filter(|w| w.kind() == "foreign-redirect")
        .map(Warning::sentence)
        .collect()
}

/// A protocol-relative URL in the query (`//evil.test/x`, also once more
/// percent-encoded) leaves the site as an absolute one does: a browser
/// resolves it against the page's scheme.
#[test]
fn a_protocol_relative_url_in_the_query_is_flagged() {
    for url in [
        "https://app.example.com/login?next=//evil.test/x",
        "https://app.example.com/login?next=%2F%2Fevil.test%2F",
        "https://app.example.com/login?next=/%5Cevil.test/",
        "https://app.example.com/login?next=%252F%252Fevil.test%252F",
    ] {
        assert_eq!(
            foreign_sentences(url),
            ["The query parameter \"next\" holds a URL on another site (evil.test): after this page, the browser may be sent there."],
            "{url}"
        );
    }
    // A path on the same site, and a protocol-relative URL back to it,
    // stay quiet.
    assert!(foreign_sentences("https://app.example.com/login?next=/home").is_empty());
    assert!(foreign_sentences("https://app.example.com/login?next=//www.example.com/").is_empty());
}

/// A URL percent-encoded twice in the query is decoded a bounded number of
/// times and still found; one encoded more often than that is not chased.
#[test]
fn a_double_encoded_url_in_the_query_is_flagged() {
    assert_eq!(
        foreign_sentences(
            "https://accounts.example.com/auth?client_id=1&redirect_uri=https%253A%252F%252Fevil.test"
        ),
        ["The query parameter \"redirect_uri\" holds a URL on another site (evil.test): after this page, the browser may be sent there."]
    );
    let mut deep = String::from("https://evil.test/");
    for _ in 0..=ahp_elicit::url_review::EXTRA_DECODINGS + 1 {
        deep = deep
            .replace('%', "%25")
            .replace(':', "%3A")
            .replace('/', "%2F");
    }
    assert!(foreign_sentences(&format!("https://example.com/?next={deep}")).is_empty());
}

/// A foreign host that is not pure ASCII is named by its punycode form, with
/// what its Unicode form imitates: never as `pаypal.com`, which reads as
/// paypal.com.
#[test]
fn a_lookalike_foreign_host_is_named_by_its_punycode_form() {
    let s = foreign_sentences("https://example.com/login?next=https://xn--pypal-4ve.com/");
    assert_eq!(
        s,
        ["The query parameter \"next\" holds a URL on another site (xn--pypal-4ve.com, an international name that mixes scripts (Latin, Cyrillic) and reads as \"paypal.com\", a common way to imitate another name): after this page, the browser may be sent there."]
    );
    assert!(!s[0].contains('\u{430}'), "{s:?}");
    // Whole-script Cyrillic: one script, still reads as an ASCII name.
    let s = foreign_sentences(
        "https://example.com/?next=https://\u{440}\u{430}\u{443}\u{440}\u{430}\u{4cf}.com/",
    );
    assert_eq!(
        s,
        ["The query parameter \"next\" holds a URL on another site (xn--80aa0cbo65f.com, an international name that reads as \"paypal.com\", a common way to imitate another name): after this page, the browser may be sent there."]
    );
}

/// Three or more slashes, or slashes mixed with backslashes, resolve to a
/// host in a browser as two do; so does that value percent-encoded.
#[test]
fn many_slashes_in_the_query_are_flagged() {
    for url in [
        "https://auth.example.com/login?next=///evil.test",
        "https://auth.example.com/login?next=%2F%2F%2Fevil.test",
        "https://auth.example.com/login?next=/\\/evil.test/",
        "https://auth.example.com/login?next=%5C%2F%5C%2Fevil.test",
    ] {
        assert_eq!(
            foreign_sentences(url),
            ["The query parameter \"next\" holds a URL on another site (evil.test): after this page, the browser may be sent there."],
            "{url}"
        );
    }
    assert!(
        foreign_sentences("https://auth.example.com/login?next=///www.example.com/").is_empty()
    );
}

/// A same-site redirect whose own query holds a foreign URL leads there in
/// two hops: the nested value is checked too, to a bounded depth.
#[test]
fn a_foreign_url_nested_in_a_same_site_redirect_is_flagged() {
    assert_eq!(
        foreign_sentences(
            "https://auth.example.com/login?next=https://auth.example.com/cb%3Fto%3Dhttps://evil.test"
        ),
        ["The query parameter \"next → to\" holds a URL on another site (evil.test): after this page, the browser may be sent there."]
    );
    // Twice nested is still found.
    assert_eq!(
        foreign_sentences(
            "https://example.com/a?n=https%3A%2F%2Fexample.com%2Fb%3Fm%3Dhttps%253A%252F%252Fexample.com%252Fc%253Fto%253Dhttps%25253A%25252F%25252Fevil.test"
        ).len(),
        1
    );
    assert!(foreign_sentences(
        "https://auth.example.com/login?next=https://auth.example.com/cb%3Fto%3D/home"
    )
    .is_empty());
}

/// `;` separates parameters for many servers, as `&` does.
#[test]
fn a_semicolon_separated_parameter_is_checked() {
    assert_eq!(
        foreign_sentences("https://auth.example.com/login?a=1;next=https://evil.test"),
        ["The query parameter \"next\" holds a URL on another site (evil.test): after this page, the browser may be sent there."]
    );
}

/// The fragment is read by the page's own script, which may follow a URL
/// in it (`#next=`, or a route with its own query `#/login?next=`).
#[test]
fn a_foreign_url_in_the_fragment_is_flagged() {
    for url in [
        "https://auth.example.com/login#next=https://evil.test/",
        "https://auth.example.com/login#/signin?next=https://evil.test/",
    ] {
        assert_eq!(
            foreign_sentences(url),
            ["The fragment parameter \"next\" holds a URL on another site (evil.test): after this page, the browser may be sent there."],
            "{url}"
        );
    }
    assert!(foreign_sentences("https://auth.example.com/login#next=/home").is_empty());
}

/// A redirect value with a script or data scheme runs code or shows a page
/// of its own making if the page follows it.
#[test]
fn a_script_scheme_in_a_redirect_value_is_flagged() {
    for (url, scheme) in [
        (
            "https://auth.example.com/login?next=javascript:alert(1)",
            "javascript",
        ),
        (
            "https://auth.example.com/login?next=JavaScript%3Aalert(1)",
            "javascript",
        ),
        (
            "https://auth.example.com/login?next=java%09script:alert(1)",
            "javascript",
        ),
        ("https://auth.example.com/login?u=data:text/html,x", "data"),
        ("https://auth.example.com/login#next=vbscript:x", "vbscript"),
    ] {
        let r = review(url);
        let w: Vec<&Warning> = r
            .warnings
            .iter()
            .filter(|w| w.kind() == "script-redirect")
            .collect();
        assert_eq!(w.len(), 1, "{url}: {:?}", r.warnings);
        assert_eq!(w[0].severity(), ahp_elicit::url_review::Severity::Danger);
        assert!(
            w[0].sentence().contains(&format!("a {scheme}: URL")),
            "{url}: {}",
            w[0].sentence()
        );
    }
    assert_eq!(
        review("https://auth.example.com/login?next=javascript:alert(1)").warnings[0].sentence(),
        "The query parameter \"next\" holds a javascript: URL, which runs code in the page instead of opening one, if the page follows it."
    );
    // A word that merely starts like a scheme is not one.
    assert!(review("https://auth.example.com/login?q=datastore")
        .warnings
        .is_empty());
}
