//! URL redaction for what is written to files: every URL-looking span in
//! a text has its userinfo, query and fragment replaced
//! (`https://u:pw@a.example/cb?code=1#x` →
//! `https://[redacted]@a.example/cb?[redacted]#[redacted]`), malformed ones
//! too (`https:/\\a.example/cb?code=1`, `https:c.example/?t=1`, a quote
//! inside the query) and ones without a scheme (`//u:p@h.example/?t=1`,
//! `www.h.example/?t=1`). The `--log` file ([`crate::log`]) writes
//! [`REDACTED`]. `mcp --events` files are not URL-redacted: they record the
//! events exactly as sent (a redacted URL, default or enum value would
//! make an event invalid or ambiguous), in a file only its owner can read.
//! Works on the text as sent (no parsing); never fetches.
//!
//! Credentials the run knows (every `--header` value; tokens a sign-in
//! obtains) are registered with [`register_secret`] and replaced by
//! [`REDACTED`] wherever server text could carry them back: every notice
//! on stderr ([`crate::notice`]), every `--log` record and every `--events`
//! line ([`redact_secrets`], [`redact_secrets_json`]). A server that quotes
//! the `Authorization` header it got ("token Bearer abc… is not allowed")
//! has the value shown as `[redacted]`. This one replacement is made in
//! events too, which otherwise keep URLs as sent.

use serde_json::Value;

/// The text put in place of a redacted query, fragment or password.
pub const REDACTED: &str = "[redacted]";

/// `url` with a non-empty query and fragment replaced by [`REDACTED`], and
/// its userinfo (name and password) too. Works on the text as sent (no
/// parsing), so a malformed URL is redacted the same way; after `scheme:`
/// any run of `/` and `\` counts as the slashes, as browsers read it.
///
/// `https://u:pw@a.example/cb?code=1#x` → `https://[redacted]@a.example/cb?[redacted]#[redacted]`.
pub fn redact_url(url: &str) -> String {
    redact_url_with(url, REDACTED)
}

/// [`redact_url`] with `token` in place of each redacted part.
fn redact_url_with(url: &str, token: &str) -> String {
    let (before_frag, frag) = match url.find('#') {
        Some(i) => (&url[..i], Some(&url[i + 1..])),
        None => (url, None),
    };
    let (base, query) = match before_frag.find('?') {
        Some(i) => (&before_frag[..i], Some(&before_frag[i + 1..])),
        None => (before_frag, None),
    };
    let mut out = redact_userinfo(base, token);
    for (sep, part) in [('?', query), ('#', frag)] {
        if let Some(p) = part {
            out.push(sep);
            if !p.is_empty() {
                out.push_str(token);
            }
        }
    }
    out
}

/// The length of the scheme at the start of `s` (`[A-Za-z][A-Za-z0-9+.-]*`
/// followed by `:`), if there is one.
fn scheme_len(s: &str) -> Option<usize> {
    let first = s.chars().next()?;
    if !first.is_ascii_alphabetic() {
        return None;
    }
    let n = s
        .find(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.')))
        .unwrap_or(s.len());
    (s[n..].starts_with(':')).then_some(n)
}

/// Where the authority starts in `base`: after `scheme:` and its slashes,
/// after the leading `//` of a scheme-relative URL, or at 0 for a
/// `www.` host written without a scheme.
fn authority_start(base: &str) -> Option<usize> {
    let slashes_after = |i: usize| {
        let after = &base[i..];
        after.len() - after.trim_start_matches(['/', '\\']).len()
    };
    if let Some(n) = scheme_len(base) {
        return Some(n + 1 + slashes_after(n + 1));
    }
    if base.starts_with("//") {
        return Some(slashes_after(0));
    }
    starts_with_www(base).then_some(0)
}

fn starts_with_www(s: &str) -> bool {
    s.get(..4).is_some_and(|w| w.eq_ignore_ascii_case("www."))
        && s[4..].starts_with(|c: char| c.is_alphanumeric())
}

fn redact_userinfo(base: &str, token: &str) -> String {
    let Some(auth_start) = authority_start(base) else {
        return base.to_owned();
    };
    let rest = &base[auth_start..];
    let auth_end = rest.find(['/', '\\']).unwrap_or(rest.len());
    match rest[..auth_end].rfind('@') {
        Some(at) if at > 0 => format!("{}{token}{}", &base[..auth_start], &rest[at..]),
        _ => base.to_owned(),
    }
}

/// Schemes a browser opens as web addresses even without `//`
/// (`https:c.example/` is `https://c.example/`).
const SPECIAL_SCHEMES: [&str; 6] = ["http", "https", "ws", "wss", "ftp", "file"];

/// Where a URL starts in `token` (a run of text without whitespace): a
/// scheme that is special, or any scheme followed by two slashes or
/// backslashes, or, without a scheme, a `//host` authority or a `www.`
/// host (see `schemeless_start`); the earliest of these.
fn url_start(token: &str) -> Option<usize> {
    match (scheme_start(token), schemeless_start(token)) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

/// Where a URL written without a scheme starts in `token`: `//` followed
/// by a host character (`//c:d@e.test/?q`), or `www.` followed by one
/// (`www.z.test/?q`), either at the start of the token or after a
/// character that cannot be part of a host or path (`(`, `"`, `=`, ...),
/// so `a/b`, `2026/12/01` and `x.www.y` are left alone.
fn schemeless_start(token: &str) -> Option<usize> {
    token.char_indices().find_map(|(i, _)| {
        let prev = token[..i].chars().next_back();
        let boundary = prev.is_none_or(|c| {
            !(c.is_alphanumeric() || matches!(c, '.' | '-' | '_' | '/' | '\\' | ':' | '@' | '%'))
        });
        let at = &token[i..];
        let slashed = at.starts_with("//") && at[2..].starts_with(|c: char| c.is_alphanumeric());
        (boundary && (slashed || starts_with_www(at))).then_some(i)
    })
}

/// Where a URL with a scheme starts in `token` (see [`url_start`]).
fn scheme_start(token: &str) -> Option<usize> {
    for (i, _) in token.match_indices(':') {
        // Back over the scheme characters, then forward to a letter.
        let start = token[..i]
            .char_indices()
            .rev()
            .take_while(|(_, c)| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
            .last()
            .map_or(i, |(j, _)| j);
        let Some(off) = token[start..i].find(|c: char| c.is_ascii_alphabetic()) else {
            continue;
        };
        let start = start + off;
        let scheme = token[start..i].to_ascii_lowercase();
        let tail = &token[i + 1..];
        let slashed = tail.len() - tail.trim_start_matches(['/', '\\']).len() >= 2;
        if SPECIAL_SCHEMES.contains(&scheme.as_str()) || slashed {
            return Some(start);
        }
    }
    None
}

/// `text` with every URL-looking span in it redacted by [`redact_url`]: a
/// span starts at a scheme (see `url_start`: `https:`, `http:`, ... even
/// malformed as `https:/\host` or `https:host`, or any `scheme://`), or
/// without one at a `//host` authority or a `www.` host, and
/// runs to the next whitespace, so a quote or bracket inside the query
/// (`?a"&code=...`) does not end it.
pub fn redact_text(text: &str) -> String {
    redact_text_with(text, REDACTED)
}

/// [`redact_text`] with `token` in place of each redacted part.
fn redact_text_with(text: &str, redact: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while !rest.is_empty() {
        let ws = rest.find(char::is_whitespace).unwrap_or(rest.len());
        let token = &rest[..ws];
        match url_start(token) {
            Some(s) => {
                out.push_str(&token[..s]);
                out.push_str(&redact_url_with(&token[s..], redact));
            }
            None => out.push_str(token),
        }
        let after = &rest[ws..];
        let sp = after.len() - after.trim_start().len();
        out.push_str(&after[..sp]);
        rest = &after[sp..];
    }
    out
}

/// Whether [`redact_text`] could change `text`: a quick look (a `:`
/// before two slashes or after a scheme that needs none, `//`, `www.`)
/// that is true for every text it changes, so a caller can skip copying
/// one it would leave as it is. It may be true for a text it leaves alone.
pub fn may_hold_url(text: &str) -> bool {
    let b = text.as_bytes();
    let colon = text.match_indices(':').any(|(i, _)| {
        let slashed = b[i + 1..]
            .iter()
            .take(2)
            .filter(|c| matches!(c, b'/' | b'\\'))
            .count()
            == 2;
        slashed
            || SPECIAL_SCHEMES
                .iter()
                .any(|s| i >= s.len() && b[i - s.len()..i].eq_ignore_ascii_case(s.as_bytes()))
    });
    colon
        || text.contains("//")
        || text
            .match_indices('.')
            .any(|(i, _)| i >= 3 && b[i - 3..i].eq_ignore_ascii_case(b"www"))
}

/// `v` with every string in it redacted by [`redact_text`] (object keys
/// are kept). A string that holds JSON itself (an AHP `text` part) is
/// redacted inside and written back compactly.
pub fn redact_json(v: &Value) -> Value {
    match v {
        Value::String(s) => {
            let t = s.trim_start();
            if t.starts_with('{') || t.starts_with('[') {
                if let Ok(inner) = serde_json::from_str::<Value>(s) {
                    let red = redact_json(&inner);
                    return if red == inner {
                        v.clone()
                    } else {
                        Value::String(red.to_string())
                    };
                }
            }
            Value::String(redact_text(s))
        }
        Value::Array(a) => Value::Array(a.iter().map(redact_json).collect()),
        Value::Object(o) => {
            Value::Object(o.iter().map(|(k, x)| (k.clone(), redact_json(x))).collect())
        }
        other => other.clone(),
    }
}

/// Registered values shorter than this are not redacted (a value of a
/// few characters, `1` or `yes`, would blank ordinary words).
pub const MIN_SECRET_LEN: usize = 8;

/// Credentials registered for redaction (see the module documentation).
static SECRETS: std::sync::RwLock<Vec<String>> = std::sync::RwLock::new(Vec::new());

/// Registers `value` (a `--header` value, an access or refresh token, a
/// client secret) so that [`redact_secrets`] replaces it from now on in
/// this process; for a value written `Scheme credential` (`Bearer abc…`,
/// `Basic …`, `token …`) the credential alone is registered too, since a
/// server may quote only that. Values (and credentials) shorter than
/// [`MIN_SECRET_LEN`] characters are ignored; registering one twice keeps
/// one.
pub fn register_secret(value: &str) {
    let value = value.trim();
    let mut parts = vec![value];
    if let Some((scheme, cred)) = value.split_once(' ') {
        if !scheme.is_empty()
            && scheme
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-')
        {
            parts.push(cred.trim());
        }
    }
    let Ok(mut list) = SECRETS.write() else {
        return;
    };
    for p in parts {
        if p.chars().count() >= MIN_SECRET_LEN && !list.iter().any(|s| s == p) {
            list.push(p.to_owned());
        }
    }
    // Longest first: a value and its credential both match, the value wins.
    list.sort_by_key(|s| std::cmp::Reverse(s.len()));
}

/// Whether any secret is registered (a caller can skip copying a value
/// that [`redact_secrets_json`] would leave as it is).
pub fn any_secret() -> bool {
    SECRETS.read().map(|l| !l.is_empty()).unwrap_or(false)
}

/// `text` with every registered secret replaced by [`REDACTED`]
/// (borrowed unchanged when none occurs).
pub fn redact_secrets(text: &str) -> std::borrow::Cow<'_, str> {
    let Ok(list) = SECRETS.read() else {
        return text.into();
    };
    if list.is_empty() || !list.iter().any(|s| text.contains(s.as_str())) {
        return text.into();
    }
    let mut out = text.to_owned();
    for s in list.iter() {
        if out.contains(s.as_str()) {
            out = out.replace(s.as_str(), REDACTED);
        }
    }
    out.into()
}

/// [`redact_secrets`] on every string (keys too) of a JSON value, in place.
pub fn redact_secrets_json(v: &mut Value) {
    if !any_secret() {
        return;
    }
    match v {
        Value::String(s) => {
            if let std::borrow::Cow::Owned(r) = redact_secrets(s) {
                *s = r;
            }
        }
        Value::Array(a) => a.iter_mut().for_each(redact_secrets_json),
        Value::Object(o) => {
            if o.keys().any(|k| redact_secrets(k) != k.as_str()) {
                let old = std::mem::take(o);
                *o = old
                    .into_iter()
                    .map(|(k, v)| (redact_secrets(&k).into_owned(), v))
                    .collect();
            }
            o.values_mut().for_each(redact_secrets_json);
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The quick look is true for every text redaction changes.
    #[test]
    fn may_hold_url_is_true_whenever_a_text_is_redacted() {
        for t in [
            "see https://a.example/cb?code=1 now",
            "HTTPS:c.example/?t=1",
            "https:/\\a.example/cb?code=1",
            "x //u:p@h.example/?t=1",
            "go to WWW.h.example/?t=1",
            "(www.z.test/?q)",
            "mailto://a@b.c?x",
            "file:etc/passwd?x",
        ] {
            assert_ne!(redact_text(t), t, "{t}");
            assert!(may_hold_url(t), "{t}");
        }
        for t in ["xxxx", "Progress 1/3", "a.b.c", "level info", "2026/12/01"] {
            assert!(!may_hold_url(t), "{t}");
            assert_eq!(redact_text(t), t);
        }
    }

    #[test]
    fn url_query_and_fragment_are_redacted() {
        assert_eq!(
            redact_url("https://a.example/cb?code=abc&state=x#frag"),
            "https://a.example/cb?[redacted]#[redacted]"
        );
        assert_eq!(redact_url("https://a.example/cb"), "https://a.example/cb");
        assert_eq!(redact_url("https://a.example/?"), "https://a.example/?");
        assert_eq!(
            redact_url("https://a.example/#only"),
            "https://a.example/#[redacted]"
        );
        assert_eq!(
            redact_url("https://user:pw@a.example/x?q=1"),
            "https://[redacted]@a.example/x?[redacted]"
        );
        assert_eq!(
            redact_url("https://trusted.example@evil.test/"),
            "https://[redacted]@evil.test/"
        );
        assert_eq!(redact_url("not a url?secret"), "not a url?[redacted]");
    }

    #[test]
    fn urls_inside_text_are_redacted() {
        assert_eq!(
            redact_text("Open https://a.example/cb?code=1#x to sign in, or http://b.example/?t=2."),
            "Open https://a.example/cb?[redacted]#[redacted] to sign in, or http://b.example/?[redacted]"
        );
        assert_eq!(
            redact_text("see \"https://x.example/p?tok=9\" now"),
            "see \"https://x.example/p?[redacted] now"
        );
        assert_eq!(
            redact_text("(https://x.example/?a=1)"),
            "(https://x.example/?[redacted]"
        );
        assert_eq!(redact_text("no urls here: a://"), "no urls here: a://");
        assert_eq!(redact_text("://x?y"), "://x?y");
        assert_eq!(
            redact_text("Grüße https://ü.example/?k=1"),
            "Grüße https://ü.example/?[redacted]"
        );
    }

    #[test]
    fn urls_without_a_scheme_are_redacted() {
        assert_eq!(
            redact_text("visit www.z.test/?q=SECRET3 or //c:d@e.test/?SECRET4 now"),
            "visit www.z.test/?[redacted] or //[redacted]@e.test/?[redacted] now"
        );
        assert_eq!(
            redact_text("(WWW.a.test/p#SECRET5) \"//h.test/x?t=SECRET6\""),
            "(WWW.a.test/p#[redacted] \"//h.test/x?[redacted]"
        );
        for kept in [
            "Pick red/green, then press Enter.",
            "see a/b and ./c/d or ../e",
            "due 2026/12/01 at 10:00",
            "x.www.y.test and wwwx.test",
            "a//b and // a comment",
            "is it? yes",
        ] {
            assert_eq!(redact_text(kept), kept);
        }
    }

    #[test]
    fn malformed_and_hidden_urls_are_redacted() {
        assert_eq!(
            redact_text(r#"go https://a.example/cb?x"&code=s3cret now"#),
            "go https://a.example/cb?[redacted] now"
        );
        assert_eq!(
            redact_text(r"at https:/\a.example/cb?code=s3cret"),
            r"at https:/\a.example/cb?[redacted]"
        );
        assert_eq!(
            redact_text("see https:c.example/?t=s3cret."),
            "see https:c.example/?[redacted]"
        );
        assert_eq!(
            redact_text("x https://admin:hunter2@h.example/p"),
            "x https://[redacted]@h.example/p"
        );
        assert_eq!(
            redact_text(r"HTTPS:\\h.example\p?k=s3cret#f"),
            r"HTTPS:\\h.example\p?[redacted]#[redacted]"
        );
        assert_eq!(
            redact_url(r"https:/\admin:hunter2@a.example\x"),
            r"https:/\[redacted]@a.example\x"
        );
        assert_eq!(
            redact_text("(see:https://a.example/?k=1)"),
            "(see:https://a.example/?[redacted]"
        );
        // Not URLs: times, ratios, a colon in prose.
        let prose = "at 10:30? ratio 3:4, note: fine; mailto-like a@b";
        assert_eq!(redact_text(prose), prose);
    }

    #[test]
    fn registered_secrets_are_redacted_from_text_and_json() {
        register_secret("Bearer TOPSECRET-123456");
        register_secret("short");
        let said = "token Bearer TOPSECRET-123456 is not allowed; TOPSECRET-123456 again; short";
        assert_eq!(
            redact_secrets(said),
            "token [redacted] is not allowed; [redacted] again; short"
        );
        assert!(matches!(
            redact_secrets("nothing here"),
            std::borrow::Cow::Borrowed(_)
        ));
        let mut v = serde_json::json!({"message": "got TOPSECRET-123456",
            "TOPSECRET-123456": ["x TOPSECRET-123456", 1]});
        redact_secrets_json(&mut v);
        assert_eq!(
            v,
            serde_json::json!({"message": "got [redacted]", "[redacted]": ["x [redacted]", 1]})
        );
    }
}
