//! URL review: what a URL-mode request asks the person to open, analysed
//! before any consent. Pure: no terminal, no I/O,
//! and the URL is never fetched.
//!
//! [`review`] parses the URL with the `url` crate (WHATWG URL Standard, the
//! rules browsers use), so what is analysed and shown is what a browser
//! would open. It gives:
//! - the scheme; only `https` and `http` are openable, every other scheme
//!   (`javascript:`, `file:`, `data:`, `ftp:`, ...) and an unparseable URL
//!   are refused with a [`Refusal`];
//! - the host in its Unicode form and its ASCII (`xn--` Punycode) form
//!   (IDNA via the `idna` crate, as the `url` crate applies it);
//! - the registrable domain ("eTLD+1"), from the Public Suffix List embedded
//!   in the `psl` crate (no download; the list is as new as the crate);
//! - an explicit non-default port;
//! - typed [`Warning`]s: plain `http`, IDN, mixed-script and confusable
//!   labels (UTS #39 via `unicode-security`), userinfo, IP-literal hosts
//!   (including odd forms such as decimal `3232235777` that the parser
//!   rewrites), non-default ports, very long URLs, control, bidi or
//!   invisible characters (listed escaped via [`crate::safe_text`]), a
//!   query or fragment parameter (split on `&` and `;`) that leads to
//!   another registrable domain (absolute, or two or more slashes and
//!   backslashes in any mix, or percent-encoded up to [`EXTRA_DECODINGS`]
//!   more times, or inside a same-site URL's own parameters up to
//!   [`NESTED_DEPTH`] levels; a non-ASCII host there is named by its `xn--`
//!   form), and a parameter holding a `javascript:`, `vbscript:` or `data:`
//!   URL.
//!
//! Every string a warning or refusal carries that comes from the URL has
//! already been passed through [`crate::safe_text::display`].

use std::net::{Ipv4Addr, Ipv6Addr};

use unicode_script::{Script, UnicodeScript};
use unicode_security::MixedScript;

use crate::safe_text;

mod suffix;

/// A URL longer than this many characters (Unicode scalar values, as sent)
/// gets [`Warning::Long`] ("very long URLs").
pub const LONG_URL_CHARS: usize = 2000;

/// What kind of host a URL names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HostKind {
    /// A domain name.
    Domain,
    /// An IPv4 address literal.
    Ipv4,
    /// An IPv6 address literal (`[...]`).
    Ipv6,
}

/// The host of a parsed URL, in both forms.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HostInfo {
    pub kind: HostKind,
    /// The host as the URL serialises it: lower-case ASCII with `xn--`
    /// labels for international names; an IPv6 literal in brackets.
    pub ascii: String,
    /// The host with `xn--` labels decoded to Unicode, made safe for the
    /// terminal; equal to `ascii` for ASCII names and IP literals.
    pub unicode: String,
    /// The registrable domain (public suffix plus one label) in ASCII form,
    /// e.g. `example.co.uk` for `login.example.co.uk`. None for IP literals,
    /// single-label hosts (`localhost`) and hosts that are themselves a
    /// public suffix.
    pub registrable_ascii: Option<String>,
    /// The same registrable domain in Unicode form: always a suffix of
    /// `unicode` (with the host's trailing dot, if any, which the ASCII
    /// form leaves out), so [`HostInfo::split_unicode`] can emphasise it.
    pub registrable_unicode: Option<String>,
}

impl HostInfo {
    /// The Unicode host cut into (the part before the registrable domain,
    /// the registrable domain). For `login.example.com`:
    /// `("login.", "example.com")`. With no registrable domain the whole
    /// host is the second part, so a view emphasises all of it.
    #[cfg(any(test, feature = "cli"))]
    pub fn split_unicode(&self) -> (&str, &str) {
        match &self.registrable_unicode {
            Some(r) if self.unicode.ends_with(r.as_str()) => {
                self.unicode.split_at(self.unicode.len() - r.len())
            }
            _ => ("", self.unicode.as_str()),
        }
    }
}

/// How serious a warning is; a view maps these to its warning and danger
/// styles.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Severity {
    /// Worth a look (plain http, IDN, port, IP, length).
    Caution,
    /// A common spoofing device (userinfo, mixed script, confusable,
    /// hidden characters).
    Danger,
}

/// One reason for care, shown before consent. Strings
/// from the URL are already safe for the terminal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Warning {
    /// The scheme is `http`: allowed, but unencrypted.
    PlainHttp,
    /// An international (Punycode) host: both forms are shown.
    Idn { unicode: String, ascii: String },
    /// A host label whose characters come from more than one script
    /// (UTS #39 single-script test), e.g. Cyrillic `а` in a Latin name.
    MixedScript { label: String, scripts: Vec<String> },
    /// A non-ASCII host label that reads as an ASCII one (every non-ASCII
    /// character has an ASCII UTS #39 confusable prototype), e.g. Cyrillic
    /// `раураl` for `paypal`.
    Confusable { label: String, looks_like: String },
    /// Userinfo before `@` (`https://trusted.example@evil.test/`): the name
    /// before `@` is not the site.
    Userinfo {
        username: String,
        has_password: bool,
        host: String,
    },
    /// The host is an IP address, not a name. `written_as` is the host text
    /// as sent when the parser rewrote it (decimal `3232235777`, hex, octal
    /// or short IPv4 forms, IPv4-mapped IPv6). `note` names a special range
    /// (loopback, private, link-local, unspecified).
    IpLiteral {
        kind: HostKind,
        address: String,
        written_as: Option<String>,
        note: Option<&'static str>,
    },
    /// An explicit port other than the scheme's default.
    NonDefaultPort { port: u16, default: Option<u16> },
    /// More than [`LONG_URL_CHARS`] characters.
    Long { chars: usize },
    /// Control, bidi or invisible characters in the URL as sent (the parser
    /// removes tabs and newlines and percent-encodes the rest, so the shown
    /// URL differs from what was sent). `escaped` lists each distinct one as
    /// `\u{..}`.
    HiddenCharacters { count: usize, escaped: Vec<String> },
    /// A query or fragment parameter holds a URL on another registrable
    /// domain (an OAuth `redirect_uri`, a `next=` or `return_to=`): after
    /// the page, the browser may be sent there. `param` is the parameter's
    /// name, or the path of names through same-site URLs (`next → to`);
    /// `fragment` says the (outermost) parameter is in the fragment. `host`
    /// is that URL's host: in Unicode when it is pure ASCII or an IP
    /// literal, else in its ASCII (`xn--`) form, with `idn` saying what the
    /// Unicode form imitates.
    ForeignRedirect {
        param: String,
        fragment: bool,
        host: String,
        idn: Option<IdnNote>,
    },
    /// A query or fragment parameter holds a `javascript:`, `vbscript:` or
    /// `data:` URL (`scheme`, lower case, without `:`): a page that follows
    /// it runs code or shows a page of the server's making. `param` and
    /// `fragment` as for [`Warning::ForeignRedirect`].
    ScriptRedirect {
        param: String,
        fragment: bool,
        scheme: String,
    },
}

impl Warning {
    /// A short stable name for the warning kind (`http`, `idn`,
    /// `mixed-script`, `confusable`, `userinfo`, `ip-literal`, `port`,
    /// `long`, `hidden-characters`, `foreign-redirect`, `script-redirect`),
    /// for logs and tests.
    #[cfg(any(test, feature = "internals"))]
    pub fn kind(&self) -> &'static str {
        match self {
            Warning::PlainHttp => "http",
            Warning::Idn { .. } => "idn",
            Warning::MixedScript { .. } => "mixed-script",
            Warning::Confusable { .. } => "confusable",
            Warning::Userinfo { .. } => "userinfo",
            Warning::IpLiteral { .. } => "ip-literal",
            Warning::NonDefaultPort { .. } => "port",
            Warning::Long { .. } => "long",
            Warning::HiddenCharacters { .. } => "hidden-characters",
            Warning::ForeignRedirect { .. } => "foreign-redirect",
            Warning::ScriptRedirect { .. } => "script-redirect",
        }
    }

    /// How serious the warning is.
    pub fn severity(&self) -> Severity {
        match self {
            Warning::MixedScript { .. }
            | Warning::Confusable { .. }
            | Warning::Userinfo { .. }
            | Warning::HiddenCharacters { .. }
            | Warning::ForeignRedirect { .. }
            | Warning::ScriptRedirect { .. } => Severity::Danger,
            _ => Severity::Caution,
        }
    }

    /// One human sentence for the screen.
    pub fn sentence(&self) -> String {
        match self {
            Warning::PlainHttp => "Plain http: the page is not encrypted; anyone on the network \
                                   path can read or change it."
                .into(),
            Warning::Idn { unicode, ascii } => format!(
                "International domain name: shown as {unicode}, its ASCII (Punycode) form \
                 is {ascii}."
            ),
            Warning::MixedScript { label, scripts } => format!(
                "The host label \"{label}\" mixes scripts ({}): a common way to imitate \
                 another name.",
                scripts.join(", ")
            ),
            Warning::Confusable { label, looks_like } => format!(
                "The host label \"{label}\" looks like \"{looks_like}\" but is made of \
                 other characters."
            ),
            Warning::Userinfo {
                username,
                has_password,
                host,
            } => {
                let what = if *has_password {
                    format!("\"{username}\" and a password")
                } else {
                    format!("\"{username}\"")
                };
                format!("The text before '@' ({what}) is not the site: this URL opens {host}.")
            }
            Warning::IpLiteral {
                kind,
                address,
                written_as,
                note,
            } => {
                let v = if *kind == HostKind::Ipv6 {
                    "IPv6"
                } else {
                    "IPv4"
                };
                let mut s = format!("The host is an {v} address ({address}), not a name");
                if let Some(w) = written_as {
                    s.push_str(&format!(
                        "; the request wrote it as \"{w}\", which browsers read as {address}"
                    ));
                }
                if let Some(n) = note {
                    s.push_str(&format!("; {n}"));
                }
                s.push('.');
                s
            }
            Warning::NonDefaultPort { port, default } => match default {
                Some(d) => format!("Non-default port {port} (this scheme normally uses {d})."),
                None => format!("Explicit port {port}."),
            },
            Warning::Long { chars } => format!(
                "Very long URL ({chars} characters): check the host; the rest can hide things."
            ),
            Warning::HiddenCharacters { count, escaped } => format!(
                "The URL as sent contains {count} control, bidi or invisible character{} \
                 ({}); they are shown escaped.",
                if *count == 1 { "" } else { "s" },
                escaped.join(" ")
            ),
            Warning::ForeignRedirect {
                param,
                fragment,
                host,
                idn,
            } => {
                let note = idn.as_ref().map(IdnNote::phrase).unwrap_or_default();
                let place = if *fragment { "fragment" } else { "query" };
                format!(
                    "The {place} parameter \"{param}\" holds a URL on another site \
                     ({host}{note}): after this page, the browser may be sent there."
                )
            }
            Warning::ScriptRedirect {
                param,
                fragment,
                scheme,
            } => {
                let place = if *fragment { "fragment" } else { "query" };
                let what = match scheme.as_str() {
                    "data" => "which carries a page of its own that can imitate any site",
                    _ => "which runs code in the page instead of opening one",
                };
                format!(
                    "The {place} parameter \"{param}\" holds a {scheme}: URL, {what}, \
                     if the page follows it."
                )
            }
        }
    }
}

/// What the Unicode form of an international host found in the query
/// imitates; the host itself is named by its ASCII form.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IdnNote {
    /// The scripts its mixed-script labels mix (UTS #39), empty when every
    /// label is single-script.
    pub scripts: Vec<String>,
    /// The ASCII name it reads as, when its non-ASCII labels are made of
    /// characters that look like ASCII ones (e.g. `paypal.com`).
    pub looks_like: Option<String>,
}

impl IdnNote {
    /// The words after the host's ASCII form: `, an international name
    /// that mixes scripts (Latin, Cyrillic) and reads as "paypal.com", a
    /// common way to imitate another name`.
    fn phrase(&self) -> String {
        let mut out = String::from(", an international name");
        if !self.scripts.is_empty() {
            out.push_str(&format!(
                " that mixes scripts ({})",
                self.scripts.join(", ")
            ));
        }
        if let Some(l) = &self.looks_like {
            let joint = if self.scripts.is_empty() {
                " that"
            } else {
                " and"
            };
            out.push_str(&format!("{joint} reads as \"{l}\""));
        }
        if !self.scripts.is_empty() || self.looks_like.is_some() {
            out.push_str(", a common way to imitate another name");
        }
        out
    }
}

/// Why a URL cannot be opened: only decline and cancel are
/// offered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// Not a valid absolute URL; `error` is the parser's reason.
    Unparseable { error: String },
    /// A scheme other than `https` and `http` (lower case, without `:`).
    Scheme { scheme: String },
}

impl Refusal {
    /// One human sentence saying why the URL is not opened.
    pub fn sentence(&self) -> String {
        const ONLY: &str = "only https and http URLs are opened";
        match self {
            Refusal::Unparseable { error } => {
                format!("This is not a valid absolute URL ({error}), so it cannot be opened.")
            }
            Refusal::Scheme { scheme } => match scheme.as_str() {
                "javascript" => {
                    format!("A javascript: URL runs code instead of opening a page; {ONLY}.")
                }
                "file" => format!("A file: URL opens a file on this computer; {ONLY}."),
                "data" => {
                    format!("A data: URL carries its own page, which can imitate any site; {ONLY}.")
                }
                "vbscript" => format!("A vbscript: URL runs code; {ONLY}."),
                "blob" => format!("A blob: URL refers to data inside another page; {ONLY}."),
                s => format!("The scheme '{s}:' is not opened; {ONLY}."),
            },
        }
    }
}

/// The analysis of one URL-mode URL.
#[derive(Debug, Clone, PartialEq)]
pub struct UrlReview {
    /// The URL exactly as the request sent it (not sanitised: use
    /// [`UrlReview::display_sent`] to show it).
    pub raw: String,
    /// The parsed URL, or None when it does not parse.
    pub url: Option<url::Url>,
    /// The scheme in lower case without `:`, when the URL parses.
    pub scheme: Option<String>,
    /// The host, when the URL has one.
    pub host: Option<HostInfo>,
    /// An explicit port other than the scheme's default (the parser drops
    /// an explicit default port such as `:443` on https).
    pub port: Option<u16>,
    /// Reasons for care, in a fixed order: hidden characters, userinfo,
    /// confusable and mixed-script labels, IDN, IP literal, http, port, long.
    pub warnings: Vec<Warning>,
    /// Why it cannot be opened; None when it is openable.
    pub refusal: Option<Refusal>,
}

impl UrlReview {
    /// Whether the URL may be opened after consent (`https`/`http` and
    /// parseable). When false, only decline and cancel are offered.
    #[cfg(any(test, feature = "cli"))]
    pub fn openable(&self) -> bool {
        self.refusal.is_none()
    }

    /// The exact string to hand to the browser when openable: the parsed
    /// URL's serialisation, which is what was analysed and shown (not the
    /// raw text; see [`UrlReview::rewritten`]). None when not openable.
    pub fn target(&self) -> Option<&str> {
        match (&self.refusal, &self.url) {
            (None, Some(u)) => Some(u.as_str()),
            _ => None,
        }
    }

    /// The URL to show, in full: the parsed serialisation, or the raw text
    /// when it does not parse; safe for the terminal.
    #[cfg(feature = "cli")]
    pub fn display_url(&self) -> String {
        match &self.url {
            Some(u) => safe_text::display(u.as_str()).into_owned(),
            None => safe_text::display(&self.raw).into_owned(),
        }
    }

    /// The URL as sent, safe for the terminal (control and bidi characters
    /// shown as `\u{..}`).
    #[cfg(any(test, feature = "cli"))]
    pub fn display_sent(&self) -> String {
        safe_text::display(&self.raw).into_owned()
    }

    /// Why a script (`--action accept`, an answers file) may not consent to
    /// this URL with nobody to read the consent screen's warnings: one
    /// sentence naming the host and the first reason, or None. Refused:
    /// every warning the screen marks as danger (look-alike, mixed-script
    /// or confusable names, a user name before `@`, hidden characters,
    /// redirects away), an international (Punycode) name, an IP address in
    /// a special range (loopback such as `0x7f000001`, link-local such as
    /// the cloud metadata address `169.254.169.254`, private, unspecified)
    /// and the names `localhost` and `*.localhost`. A rule that names the
    /// host (`host` in its `match`) lifts it.
    pub fn unattended_refusal(&self) -> Option<String> {
        let (host, why) = self.unattended_concern(false)?;
        Some(format!(
            "refused to consent unattended to a URL whose host '{host}' {why} (a rule with \"host\": \"{host}\" allows it)"
        ))
    }

    /// What about this URL's host a script may not consent to (see
    /// [`Self::unattended_refusal`]): the host made safe for the terminal
    /// and why (`is a link-local address`); `None` when nothing is. With
    /// `loopback_ok`, a loopback host (`localhost`, `*.localhost`,
    /// `127.0.0.0/8`, `::1`) is no concern by itself (a sign-in at a
    /// server on this machine opens one); every danger still is.
    pub fn unattended_concern(&self, loopback_ok: bool) -> Option<(String, String)> {
        let host = self.host.as_ref().map_or("(none)", |h| h.ascii.as_str());
        let local = host == "localhost" || host.ends_with(".localhost");
        let loopback = local
            || self
                .url
                .as_ref()
                .and_then(|u| u.host())
                .is_some_and(|h| match h {
                    url::Host::Ipv4(a) => a.is_loopback(),
                    url::Host::Ipv6(a) => a.is_loopback(),
                    url::Host::Domain(_) => false,
                });
        let lifted = loopback_ok && loopback;
        let why = self
            .warnings
            .iter()
            .find_map(|w| match w {
                Warning::IpLiteral { note: Some(n), .. } if !lifted => Some(format!("is {n}")),
                Warning::Idn { .. } => Some("is an international (Punycode) name".to_owned()),
                w if w.severity() == Severity::Danger => {
                    Some(format!("is warned about: {}", w.sentence()))
                }
                _ => None,
            })
            .or_else(|| (local && !lifted).then(|| "is this computer (localhost)".to_owned()))?;
        Some((safe_text::display(host).into_owned(), why))
    }

    /// Whether the parser rewrote the URL (so the screen also shows it as
    /// sent). A trailing `/` added to an empty path does not count.
    #[cfg(any(test, feature = "cli"))]
    pub fn rewritten(&self) -> bool {
        match &self.url {
            Some(u) => {
                let s = u.as_str();
                s != self.raw && s.strip_suffix('/') != Some(self.raw.as_str())
            }
            None => false,
        }
    }

    /// The warning kinds in order (see [`Warning::kind`]).
    #[cfg(test)]
    pub fn warning_kinds(&self) -> Vec<&'static str> {
        self.warnings.iter().map(Warning::kind).collect()
    }
}

/// Analyse `url`. Never fails and never fetches:
/// an unparseable URL gives a review with [`Refusal::Unparseable`].
pub fn review(url: &str) -> UrlReview {
    review_with_known(url, &[])
}

/// [`review`], with the query parameters named in `known` left out of the
/// "parameter leads to another domain" check: parameters the program
/// itself added and knows (an OAuth authorization URL's `redirect_uri`,
/// which leads to this machine). Only the query's top level is spared: the
/// same name in the fragment, or deeper in a nested URL, is checked as
/// usual.
pub fn review_with_known(url: &str, known: &[&str]) -> UrlReview {
    let raw = url.to_owned();
    let mut warnings: Vec<Warning> = hidden_warning(&raw).into_iter().collect();
    let chars = raw.chars().count();

    let parsed = match url::Url::parse(&raw) {
        Ok(u) => u,
        Err(e) => {
            if chars > LONG_URL_CHARS {
                warnings.push(Warning::Long { chars });
            }
            return UrlReview {
                raw,
                url: None,
                scheme: None,
                host: None,
                port: None,
                warnings,
                refusal: Some(Refusal::Unparseable {
                    error: e.to_string(),
                }),
            };
        }
    };

    let scheme = parsed.scheme().to_owned();
    let refusal = match scheme.as_str() {
        "https" | "http" => None,
        _ => Some(Refusal::Scheme {
            scheme: scheme.clone(),
        }),
    };

    let host = host_info(&parsed);
    warnings.extend(userinfo_warning(&parsed, host.as_ref()));
    if let Some(h) = &host {
        warnings.extend(host_warnings(h, &raw, &parsed));
    }

    if scheme == "http" {
        warnings.push(Warning::PlainHttp);
    }
    let port = parsed.port();
    if let Some(p) = port {
        warnings.push(Warning::NonDefaultPort {
            port: p,
            default: default_port(&scheme),
        });
    }
    if chars > LONG_URL_CHARS {
        warnings.push(Warning::Long { chars });
    }
    if let Some(h) = &host {
        warnings.extend(foreign_redirects(&parsed, h, known));
    }

    UrlReview {
        raw,
        url: Some(parsed),
        scheme: Some(scheme),
        host,
        port,
        warnings,
        refusal,
    }
}

/// How many more times a query value is percent-decoded, after the one
/// decoding of the query itself, when it does not yet read as a URL: a
/// value encoded twice (`https%253A%252F%252Fevil.test`) is still found,
/// and a value encoded without end costs no more than this.
pub const EXTRA_DECODINGS: usize = 3;

/// How many same-site URLs deep the parameters are followed: a value that
/// is a URL on the reviewed site has its own query and fragment checked
/// (`next=https://site/cb?to=https://evil.test`), up to this many levels.
pub const NESTED_DEPTH: usize = 3;

/// At most this many redirect warnings are given for one URL.
const MAX_REDIRECT_WARNINGS: usize = 5;

/// Where a parameter value leads.
enum Lead {
    /// An http(s) URL (absolute, or resolved against the page).
    Url(url::Url),
    /// A script or data scheme (`javascript`, `vbscript`, `data`), lower case.
    Script(&'static str),
}

/// Parameters of the query and the fragment whose value leads to an
/// http(s) URL whose registrable domain differs from `site`'s (or that has
/// none while the site has one), or to a script or data scheme; one warning
/// per parameter name (at most [`MAX_REDIRECT_WARNINGS`]).
///
/// Parameters are split on `&` and `;`. In the fragment, a route's query
/// (`#/signin?next=...`) counts as its parameters. A value leads to a URL
/// when it is an absolute http(s) URL or starts with two or more slashes or
/// backslashes in any mix (`//evil.test/`, `///evil.test`, `/\evil.test`),
/// which a browser resolves to a host with the page's scheme, as it is or
/// after up to [`EXTRA_DECODINGS`] more percent-decodings. A value that is a
/// URL on the same site has its own parameters checked, up to
/// [`NESTED_DEPTH`] levels; the warning names the path of parameters
/// (`next → to`).
fn foreign_redirects(parsed: &url::Url, site: &HostInfo, known: &[&str]) -> Vec<Warning> {
    let own = site.registrable_ascii.as_deref().unwrap_or(&site.ascii);
    let mut out: Vec<Warning> = Vec::new();
    scan_params(parsed, own, None, 0, known, &mut out);
    out
}

/// [`foreign_redirects`] for the parameters of `page`, found `depth`
/// same-site URLs deep under the parameter path `outer` (with whether that
/// path starts in the reviewed URL's fragment).
fn scan_params(
    page: &url::Url,
    own: &str,
    outer: Option<(&str, bool)>,
    depth: usize,
    known: &[&str],
    out: &mut Vec<Warning>,
) {
    for (in_fragment, k, v) in params_of(page) {
        if out.len() >= MAX_REDIRECT_WARNINGS {
            return;
        }
        if outer.is_none() && !in_fragment && known.contains(&k.as_str()) {
            continue;
        }
        let name = safe_text::display(&k.chars().take(60).collect::<String>()).into_owned();
        let (param, fragment) = match outer {
            Some((p, f)) => (format!("{p} → {name}"), f),
            None => (name, in_fragment),
        };
        let seen = out.iter().any(|w| match w {
            Warning::ForeignRedirect { param: p, .. }
            | Warning::ScriptRedirect { param: p, .. } => *p == param,
            _ => false,
        });
        match lead_of_value(page, &v) {
            Some(Lead::Script(scheme)) if !seen => out.push(Warning::ScriptRedirect {
                param,
                fragment,
                scheme: scheme.to_owned(),
            }),
            Some(Lead::Url(u)) => {
                let Some(h) = host_info(&u) else {
                    continue;
                };
                let theirs = h.registrable_ascii.as_deref().unwrap_or(&h.ascii);
                if !theirs.eq_ignore_ascii_case(own) {
                    if !seen {
                        out.push(foreign_redirect(param, fragment, &h));
                    }
                } else if depth < NESTED_DEPTH {
                    scan_params(&u, own, Some((&param, fragment)), depth + 1, &[], out);
                }
            }
            _ => {}
        }
    }
}

/// The parameters of `u`'s query, then of its fragment (`true`), split on
/// `&` and `;` and form-decoded. A fragment key holding `?` (a route with
/// its own query, `/signin?next`) is named by what follows the last `?`.
fn params_of(u: &url::Url) -> Vec<(bool, String, String)> {
    let mut out = Vec::new();
    for (in_fragment, text) in [(false, u.query()), (true, u.fragment())] {
        let Some(text) = text else { continue };
        let text = text.replace(';', "&");
        for (k, v) in url::form_urlencoded::parse(text.as_bytes()) {
            let k = match k.rsplit_once('?') {
                Some((_, name)) if in_fragment => name.to_owned(),
                _ => k.into_owned(),
            };
            out.push((in_fragment, k, v.into_owned()));
        }
    }
    out
}

/// Where a parameter value leads, if anywhere (see [`foreign_redirects`]).
fn lead_of_value(page: &url::Url, value: &str) -> Option<Lead> {
    let mut text = value.to_owned();
    for _ in 0..=EXTRA_DECODINGS {
        // A browser drops tabs and newlines anywhere and leading spaces and
        // controls before it reads a URL.
        let clean: String = text
            .chars()
            .filter(|c| !matches!(c, '\t' | '\n' | '\r'))
            .collect();
        let clean = clean.trim_start_matches(|c: char| c <= ' ');
        if let Some(s) = script_scheme(clean) {
            return Some(Lead::Script(s));
        }
        let mut lead = clean.chars();
        let relative = matches!(
            (lead.next(), lead.next()),
            (Some('/' | '\\'), Some('/' | '\\'))
        );
        let found = if relative {
            // Browsers skip every slash and backslash before the host of an
            // http(s) URL (WHATWG "special authority ignore slashes"); the
            // `url` crate reads a third one as an empty host, so the run is
            // made two slashes first.
            let rest = clean.trim_start_matches(['/', '\\']);
            page.join(&format!("//{rest}")).ok()
        } else {
            url::Url::parse(clean).ok()
        };
        if let Some(u) = found.filter(|u| matches!(u.scheme(), "http" | "https")) {
            return Some(Lead::Url(u));
        }
        let decoded = percent_decode(&text);
        if decoded == text {
            return None;
        }
        text = decoded;
    }
    None
}

/// The script or data scheme `value` starts with (`javascript:`,
/// `vbscript:`, `data:`, any case), lower case.
fn script_scheme(value: &str) -> Option<&'static str> {
    let (scheme, _) = value.split_once(':')?;
    ["javascript", "vbscript", "data"]
        .into_iter()
        .find(|s| s.eq_ignore_ascii_case(scheme))
}

/// `s` with each `%XX` turned into its byte (invalid UTF-8 replaced);
/// a `%` not followed by two hex digits is kept.
fn percent_decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        let hex = |j: usize| b.get(j).and_then(|c| (*c as char).to_digit(16));
        match (b[i], hex(i + 1), hex(i + 2)) {
            (b'%', Some(h), Some(l)) => {
                out.push((h * 16 + l) as u8);
                i += 3;
            }
            (c, _, _) => {
                out.push(c);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The warning for `param` leading to host `h`. A host that is not pure
/// ASCII is named by its ASCII (`xn--`) form, which cannot pass for another
/// name, with what its Unicode form imitates.
fn foreign_redirect(param: String, fragment: bool, h: &HostInfo) -> Warning {
    if h.kind != HostKind::Domain || h.unicode == h.ascii {
        return Warning::ForeignRedirect {
            param,
            fragment,
            host: h.unicode.clone(),
            idn: None,
        };
    }
    let mut scripts: Vec<String> = Vec::new();
    let mut looks_like = false;
    let mut reads_as: Vec<String> = Vec::new();
    for label in h.unicode.trim_end_matches('.').split('.') {
        if label.is_ascii() {
            reads_as.push(label.to_owned());
            continue;
        }
        match ascii_lookalike(label) {
            Some(l) => {
                looks_like = true;
                reads_as.push(l);
            }
            None => reads_as.push(label.to_owned()),
        }
        if !label.is_single_script() {
            for s in scripts_of(label) {
                if !scripts.contains(&s) {
                    scripts.push(s);
                }
            }
        }
    }
    Warning::ForeignRedirect {
        param,
        fragment,
        host: h.ascii.clone(),
        idn: Some(IdnNote {
            scripts,
            looks_like: looks_like.then(|| reads_as.join(".")),
        }),
    }
}

/// The control, bidi and invisible characters of the URL as sent: how many,
/// and each distinct one escaped, in order of first appearance.
fn hidden_warning(raw: &str) -> Option<Warning> {
    let hidden: Vec<char> = raw.chars().filter(|&c| safe_text::is_unsafe(c)).collect();
    if hidden.is_empty() {
        return None;
    }
    let mut escaped: Vec<String> = Vec::new();
    for c in &hidden {
        let e = safe_text::display(&c.to_string()).into_owned();
        if !escaped.contains(&e) {
            escaped.push(e);
        }
    }
    Some(Warning::HiddenCharacters {
        count: hidden.len(),
        escaped,
    })
}

/// A user name or password before the host: it reads like a site name.
fn userinfo_warning(parsed: &url::Url, host: Option<&HostInfo>) -> Option<Warning> {
    if parsed.username().is_empty() && parsed.password().is_none() {
        return None;
    }
    Some(Warning::Userinfo {
        username: safe_text::display(parsed.username()).into_owned(),
        has_password: parsed.password().is_some(),
        host: host.map(|h| h.unicode.clone()).unwrap_or_default(),
    })
}

/// Warnings about the host: lookalike and mixed-script labels and the
/// punycode form of a domain, or the address of an IP literal (and how the
/// request wrote it when that differs).
fn host_warnings(h: &HostInfo, raw: &str, parsed: &url::Url) -> Vec<Warning> {
    match h.kind {
        HostKind::Domain => domain_warnings(h),
        HostKind::Ipv4 | HostKind::Ipv6 => {
            let written_as = raw_host(raw).and_then(|w| {
                let same = w.eq_ignore_ascii_case(&h.ascii);
                (!same).then(|| safe_text::display(w).into_owned())
            });
            vec![Warning::IpLiteral {
                kind: h.kind,
                address: h.ascii.clone(),
                written_as,
                note: ip_note(parsed),
            }]
        }
    }
}

/// Per non-ASCII label: confusable with an ASCII word, mixed scripts; then
/// the IDN's two forms when any label is punycode.
fn domain_warnings(h: &HostInfo) -> Vec<Warning> {
    let mut warnings = Vec::new();
    for label in h.unicode.split('.').filter(|l| !l.is_ascii()) {
        if let Some(looks_like) = ascii_lookalike(label) {
            warnings.push(Warning::Confusable {
                label: label.to_owned(),
                looks_like,
            });
        }
        if !label.is_single_script() {
            warnings.push(Warning::MixedScript {
                label: label.to_owned(),
                scripts: scripts_of(label),
            });
        }
    }
    if h.ascii.split('.').any(|l| l.starts_with("xn--")) {
        warnings.push(Warning::Idn {
            unicode: h.unicode.clone(),
            ascii: h.ascii.clone(),
        });
    }
    warnings
}

fn default_port(scheme: &str) -> Option<u16> {
    match scheme {
        "http" | "ws" => Some(80),
        "https" | "wss" => Some(443),
        "ftp" => Some(21),
        _ => None,
    }
}

fn host_info(u: &url::Url) -> Option<HostInfo> {
    let host = u.host()?;
    let ascii = u.host_str()?.to_owned();
    match host {
        url::Host::Domain(_) => {
            // The url crate has already applied UTS #46; decoding cannot fail
            // for a name it produced, but keep the ASCII form if it does.
            let (uni, res) = idna::domain_to_unicode(&ascii);
            let unicode_raw = if res.is_ok() { uni } else { ascii.clone() };
            let unicode = safe_text::display(&unicode_raw).into_owned();
            let registrable_ascii = suffix::registrable(&ascii).map(str::to_owned);
            let registrable_unicode = registrable_ascii.as_ref().and_then(|r| {
                let n = r.trim_end_matches('.').split('.').count();
                let labels: Vec<&str> = unicode.trim_end_matches('.').split('.').collect();
                let start = labels.len().checked_sub(n)?;
                let mut s = labels[start..].join(".");
                if unicode.ends_with('.') {
                    s.push('.');
                }
                unicode.ends_with(s.as_str()).then_some(s)
            });
            Some(HostInfo {
                kind: HostKind::Domain,
                ascii,
                unicode,
                registrable_ascii,
                registrable_unicode,
            })
        }
        url::Host::Ipv4(_) => Some(HostInfo {
            kind: HostKind::Ipv4,
            unicode: ascii.clone(),
            ascii,
            registrable_ascii: None,
            registrable_unicode: None,
        }),
        url::Host::Ipv6(_) => Some(HostInfo {
            kind: HostKind::Ipv6,
            unicode: ascii.clone(),
            ascii,
            registrable_ascii: None,
            registrable_unicode: None,
        }),
    }
}

/// The distinct scripts of `label`'s letters (Common and Inherited left
/// out), by full Unicode name, in order of first use.
fn scripts_of(label: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for c in label.chars() {
        let s = c.script();
        if matches!(s, Script::Common | Script::Inherited | Script::Unknown) {
            continue;
        }
        let name = s.full_name().to_owned();
        if !out.contains(&name) {
            out.push(name);
        }
    }
    out
}

/// The ASCII string a non-ASCII label reads as, when every non-ASCII
/// character's UTS #39 skeleton is ASCII (e.g. Cyrillic `а` → `a`); None
/// otherwise. ASCII characters are kept as they are.
fn ascii_lookalike(label: &str) -> Option<String> {
    let mut out = String::with_capacity(label.len());
    for c in label.chars() {
        if c.is_ascii() {
            out.push(c);
            continue;
        }
        let mut buf = [0u8; 4];
        let sk: String = unicode_security::skeleton(c.encode_utf8(&mut buf)).collect();
        if sk.is_empty() || !sk.is_ascii() {
            return None;
        }
        out.push_str(&sk.to_ascii_lowercase());
    }
    (out != label).then_some(out)
}

/// The host text as written in the raw URL (after `scheme://`, without
/// userinfo and port), used to say when the parser rewrote an IP literal.
/// An approximation of the WHATWG authority split, good enough for a note.
fn raw_host(raw: &str) -> Option<&str> {
    let (_, rest) = raw.trim().split_once("://")?;
    let end = rest.find(['/', '?', '#', '\\']).unwrap_or(rest.len());
    let auth = &rest[..end];
    let host_port = auth.rsplit_once('@').map_or(auth, |(_, h)| h);
    if host_port.starts_with('[') {
        let close = host_port.find(']')?;
        return Some(&host_port[..=close]);
    }
    Some(host_port.split_once(':').map_or(host_port, |(h, _)| h))
}

fn ip_note(u: &url::Url) -> Option<&'static str> {
    match u.host()? {
        url::Host::Ipv4(a) => v4_note(a),
        url::Host::Ipv6(a) => v6_note(a),
        url::Host::Domain(_) => None,
    }
}

fn v4_note(a: Ipv4Addr) -> Option<&'static str> {
    if a.is_loopback() {
        Some("a loopback address (this computer)")
    } else if a.is_private() {
        Some("a private-network address")
    } else if a.is_link_local() {
        Some("a link-local address")
    } else if a.is_unspecified() {
        Some("the unspecified address")
    } else {
        None
    }
}

fn v6_note(a: Ipv6Addr) -> Option<&'static str> {
    if let Some(v4) = a.to_ipv4_mapped() {
        return v4_note(v4).or(Some("an IPv4-mapped address"));
    }
    if a.is_loopback() {
        Some("a loopback address (this computer)")
    } else if a.is_unspecified() {
        Some("the unspecified address")
    } else if (a.segments()[0] & 0xfe00) == 0xfc00 {
        Some("a private-network (unique local) address")
    } else if (a.segments()[0] & 0xffc0) == 0xfe80 {
        Some("a link-local address")
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(u: &str) -> Vec<&'static str> {
        review(u).warning_kinds()
    }

    #[test]
    fn plain_https_has_no_warnings() {
        let r = review("https://login.example.co.uk/oauth?state=1");
        assert!(r.openable());
        assert_eq!(r.scheme.as_deref(), Some("https"));
        assert!(r.warnings.is_empty(), "{:?}", r.warnings);
        let h = r.host.as_ref().unwrap();
        assert_eq!(h.kind, HostKind::Domain);
        assert_eq!(h.ascii, "login.example.co.uk");
        assert_eq!(h.unicode, "login.example.co.uk");
        assert_eq!(h.registrable_ascii.as_deref(), Some("example.co.uk"));
        assert_eq!(h.split_unicode(), ("login.", "example.co.uk"));
        assert_eq!(
            r.target(),
            Some("https://login.example.co.uk/oauth?state=1")
        );
        assert_eq!(r.port, None);
        assert!(!r.rewritten());
    }

    #[test]
    fn unknown_tld_uses_the_default_rule() {
        let r = review("https://trusted.example@evil.test/");
        let h = r.host.as_ref().unwrap();
        assert_eq!(h.registrable_ascii.as_deref(), Some("evil.test"));
        assert_eq!(h.split_unicode(), ("", "evil.test"));
    }

    #[test]
    fn http_is_allowed_with_a_warning() {
        let r = review("http://example.com/");
        assert!(r.openable());
        assert_eq!(r.warning_kinds(), vec!["http"]);
        assert!(r.warnings[0].sentence().starts_with("Plain http"));
        assert_eq!(r.warnings[0].severity(), Severity::Caution);
    }

    #[test]
    fn idn_shows_both_forms() {
        let r = review("https://münchen.example/");
        let h = r.host.as_ref().unwrap();
        assert_eq!(h.ascii, "xn--mnchen-3ya.example");
        assert_eq!(h.unicode, "münchen.example");
        assert_eq!(
            r.warnings,
            vec![Warning::Idn {
                unicode: "münchen.example".into(),
                ascii: "xn--mnchen-3ya.example".into()
            }]
        );
        assert_eq!(
            r.warnings[0].sentence(),
            "International domain name: shown as münchen.example, its ASCII (Punycode) \
             form is xn--mnchen-3ya.example."
        );
        // Sent already in Punycode: same analysis.
        let p = review("https://xn--mnchen-3ya.example/");
        assert_eq!(p.host.as_ref().unwrap().unicode, "münchen.example");
        assert_eq!(p.warning_kinds(), vec!["idn"]);
    }

    #[test]
    fn idn_registrable_domain_in_both_forms() {
        let r = review("https://www.bücher.de/");
        let h = r.host.as_ref().unwrap();
        assert_eq!(h.registrable_ascii.as_deref(), Some("xn--bcher-kva.de"));
        assert_eq!(h.registrable_unicode.as_deref(), Some("bücher.de"));
        assert_eq!(h.split_unicode(), ("www.", "bücher.de"));
    }

    #[test]
    fn mixed_script_and_confusable() {
        // Cyrillic 'а' (U+0430) in a Latin name.
        let r = review("https://p\u{430}ypal.com/login");
        assert_eq!(r.warning_kinds(), vec!["confusable", "mixed-script", "idn"]);
        assert_eq!(
            r.warnings[0],
            Warning::Confusable {
                label: "p\u{430}ypal".into(),
                looks_like: "paypal".into()
            }
        );
        assert_eq!(
            r.warnings[1],
            Warning::MixedScript {
                label: "p\u{430}ypal".into(),
                scripts: vec!["Latin".into(), "Cyrillic".into()]
            }
        );
        assert_eq!(r.warnings[1].severity(), Severity::Danger);
        assert_eq!(
            r.host.as_ref().unwrap().ascii,
            "xn--pypal-4ve.com",
            "both forms are kept"
        );
    }

    #[test]
    fn whole_script_confusable() {
        // All Cyrillic: single script, but reads as "paypal".
        let r = review("https://\u{440}\u{430}\u{443}\u{440}\u{430}\u{4cf}.com/");
        let k = r.warning_kinds();
        assert!(k.contains(&"confusable"), "{k:?}");
        assert!(!k.contains(&"mixed-script"), "{k:?}");
        match &r.warnings[0] {
            Warning::Confusable { looks_like, .. } => assert_eq!(looks_like, "paypal"),
            w => panic!("{w:?}"),
        }
    }

    #[test]
    fn plain_idn_is_not_confusable() {
        assert_eq!(kinds("https://münchen.de/"), vec!["idn"]);
        assert_eq!(kinds("https://例え.jp/"), vec!["idn"]);
    }

    #[test]
    fn userinfo_is_named() {
        let r = review("https://trusted.example@evil.test/");
        assert_eq!(
            r.warnings,
            vec![Warning::Userinfo {
                username: "trusted.example".into(),
                has_password: false,
                host: "evil.test".into()
            }]
        );
        assert_eq!(
            r.warnings[0].sentence(),
            "The text before '@' (\"trusted.example\") is not the site: this URL opens evil.test."
        );
        let p = review("https://bank.example:hunter2@evil.test/");
        match &p.warnings[0] {
            Warning::Userinfo { has_password, .. } => assert!(*has_password),
            w => panic!("{w:?}"),
        }
    }

    #[test]
    fn ipv4_literal() {
        let r = review("https://93.184.216.34/x");
        assert_eq!(
            r.warnings,
            vec![Warning::IpLiteral {
                kind: HostKind::Ipv4,
                address: "93.184.216.34".into(),
                written_as: None,
                note: None
            }]
        );
        assert_eq!(r.host.as_ref().unwrap().registrable_ascii, None);
    }

    #[test]
    fn decimal_ipv4_is_normalised_and_said() {
        let r = review("http://3232235777/");
        assert_eq!(r.target(), Some("http://192.168.1.1/"));
        assert_eq!(
            r.warnings[0],
            Warning::IpLiteral {
                kind: HostKind::Ipv4,
                address: "192.168.1.1".into(),
                written_as: Some("3232235777".into()),
                note: Some("a private-network address")
            }
        );
        assert_eq!(
            r.warnings[0].sentence(),
            "The host is an IPv4 address (192.168.1.1), not a name; the request wrote it as \
             \"3232235777\", which browsers read as 192.168.1.1; a private-network address."
        );
        assert_eq!(r.warning_kinds(), vec!["ip-literal", "http"]);
        assert!(r.rewritten());
        // Hex and short forms too.
        match &review("http://0x7f.1/").warnings[0] {
            Warning::IpLiteral {
                address,
                written_as,
                note,
                ..
            } => {
                assert_eq!(address, "127.0.0.1");
                assert_eq!(written_as.as_deref(), Some("0x7f.1"));
                assert_eq!(*note, Some("a loopback address (this computer)"));
            }
            w => panic!("{w:?}"),
        }
    }

    #[test]
    fn ipv6_literal() {
        let r = review("https://[::1]:8443/");
        assert_eq!(r.host.as_ref().unwrap().ascii, "[::1]");
        assert_eq!(r.warning_kinds(), vec!["ip-literal", "port"]);
        assert_eq!(r.port, Some(8443));
        let m = review("https://[::ffff:192.168.1.1]/");
        match &m.warnings[0] {
            Warning::IpLiteral {
                kind,
                address,
                written_as,
                note,
            } => {
                assert_eq!(*kind, HostKind::Ipv6);
                assert_eq!(address, "[::ffff:c0a8:101]");
                assert_eq!(written_as.as_deref(), Some("[::ffff:192.168.1.1]"));
                assert_eq!(*note, Some("a private-network address"));
            }
            w => panic!("{w:?}"),
        }
    }

    #[test]
    fn non_default_port() {
        let r = review("https://example.com:8443/");
        assert_eq!(
            r.warnings,
            vec![Warning::NonDefaultPort {
                port: 8443,
                default: Some(443)
            }]
        );
        assert_eq!(
            r.warnings[0].sentence(),
            "Non-default port 8443 (this scheme normally uses 443)."
        );
        // An explicit default port is dropped by the parser: no warning.
        assert!(review("https://example.com:443/").warnings.is_empty());
        assert_eq!(kinds("http://example.com:80/"), vec!["http"]);
    }

    #[test]
    fn very_long_url() {
        let u = format!("https://example.com/?q={}", "a".repeat(2000));
        let r = review(&u);
        assert_eq!(
            r.warnings,
            vec![Warning::Long {
                chars: u.chars().count()
            }]
        );
        assert_eq!(u.chars().count(), 2023);
        let ok = format!("https://example.com/?q={}", "a".repeat(1977));
        assert_eq!(ok.chars().count(), LONG_URL_CHARS);
        assert!(review(&ok).warnings.is_empty());
    }

    #[test]
    fn hidden_characters_are_listed_escaped() {
        let r = review("https://example.com/\u{202e}fdp.exe\n");
        assert_eq!(
            r.warnings[0],
            Warning::HiddenCharacters {
                count: 2,
                escaped: vec!["\\u{202e}".into(), "\\u{a}".into()]
            }
        );
        assert_eq!(
            r.display_sent(),
            "https://example.com/\\u{202e}fdp.exe\\u{a}"
        );
        // The parser percent-encodes the override and drops the newline.
        assert_eq!(r.target(), Some("https://example.com/%E2%80%AEfdp.exe"));
        assert!(r.rewritten());
        // A tab inside the host is removed by the parser: still warned.
        let t = review("https://exa\tmple.com/");
        assert_eq!(t.host.as_ref().unwrap().ascii, "example.com");
        assert_eq!(t.warning_kinds(), vec!["hidden-characters"]);
    }

    #[test]
    fn refused_schemes() {
        for (u, scheme, start) in [
            (
                "javascript:alert(1)",
                "javascript",
                "A javascript: URL runs code",
            ),
            ("file:///etc/passwd", "file", "A file: URL opens a file"),
            (
                "data:text/html,<h1>hi</h1>",
                "data",
                "A data: URL carries its own page",
            ),
            (
                "ftp://ftp.example.com/x",
                "ftp",
                "The scheme 'ftp:' is not opened",
            ),
            (
                "mailto:a@example.com",
                "mailto",
                "The scheme 'mailto:' is not opened",
            ),
            ("vbscript:msgbox", "vbscript", "A vbscript: URL runs code"),
            (
                "JavaScript:alert(1)",
                "javascript",
                "A javascript: URL runs code",
            ),
        ] {
            let r = review(u);
            assert!(!r.openable(), "{u}");
            assert_eq!(r.target(), None, "{u}");
            assert_eq!(
                r.refusal,
                Some(Refusal::Scheme {
                    scheme: scheme.into()
                }),
                "{u}"
            );
            let s = r.refusal.as_ref().unwrap().sentence();
            assert!(s.starts_with(start), "{u}: {s}");
            assert!(s.ends_with("only https and http URLs are opened."), "{s}");
        }
    }

    #[test]
    fn unparseable_is_refused() {
        for u in [
            "not a url",
            "https://",
            "http://exa mple.com/",
            "",
            "//example.com/",
        ] {
            let r = review(u);
            assert!(!r.openable(), "{u}");
            assert!(
                matches!(r.refusal, Some(Refusal::Unparseable { .. })),
                "{u}"
            );
            assert!(r.host.is_none());
        }
        let r = review("https://");
        assert_eq!(
            r.refusal.unwrap().sentence(),
            "This is not a valid absolute URL (empty host), so it cannot be opened."
        );
    }

    #[test]
    fn localhost_has_no_registrable_domain() {
        let r = review("http://localhost:8080/cb");
        let h = r.host.as_ref().unwrap();
        assert_eq!(h.registrable_ascii, None);
        assert_eq!(h.split_unicode(), ("", "localhost"));
        assert_eq!(r.warning_kinds(), vec!["http", "port"]);
    }

    #[test]
    fn invisible_characters_in_the_host_are_warned() {
        // UTS #46 drops U+200B and U+00AD from host names: the name opened
        // is example.com, and the request's text is flagged.
        for u in ["https://exa\u{200b}mple.com/", "https://exa\u{ad}mple.com/"] {
            let r = review(u);
            assert_eq!(r.host.as_ref().unwrap().ascii, "example.com", "{u}");
            assert_eq!(r.warning_kinds(), vec!["hidden-characters"], "{u}");
            assert!(r.rewritten());
        }
    }

    #[test]
    fn trailing_dot_and_backslash() {
        let r = review("https://login.example.com./");
        let h = r.host.as_ref().unwrap();
        assert_eq!(h.ascii, "login.example.com.");
        assert_eq!(h.registrable_ascii.as_deref(), Some("example.com"));
        assert_eq!(h.split_unicode(), ("login.", "example.com."));
        // A backslash is a slash in http(s) URLs: the host is evil.test.
        let b = review("https://evil.test\\@trusted.example/");
        assert_eq!(b.host.as_ref().unwrap().ascii, "evil.test");
        assert_eq!(b.target(), Some("https://evil.test/@trusted.example/"));
        assert!(b.rewritten());
    }

    #[test]
    fn fullwidth_host_is_mapped_and_shown_rewritten() {
        let r = review("https://\u{ff45}xample.com/");
        assert_eq!(r.host.as_ref().unwrap().ascii, "example.com");
        assert!(r.rewritten());
        assert!(r.warnings.is_empty());
    }

    #[test]
    fn known_parameters_are_spared_the_foreign_domain_check_and_others_are_not() {
        let url = "https://login.example.com/authorize?next=https://evil.test/&response_type=code&client_id=https://app.example.org/c.json&redirect_uri=http%3A%2F%2F127.0.0.1%3A51234%2Fcallback&state=s&resource=https://mcp.other.example/mcp#redirect_uri=https://evil.test/";
        let names = |r: &UrlReview| -> Vec<String> {
            r.warnings
                .iter()
                .filter_map(|w| match w {
                    Warning::ForeignRedirect { param, .. } => Some(param.clone()),
                    _ => None,
                })
                .collect()
        };
        assert_eq!(
            names(&review(url)),
            ["next", "client_id", "redirect_uri", "resource"]
        );
        let known = review_with_known(url, &["client_id", "redirect_uri", "resource"]);
        // The fragment's redirect_uri is not the client's: still warned.
        assert_eq!(names(&known), ["next", "redirect_uri"]);
        assert!(known.warnings.iter().any(|w| matches!(
            w,
            Warning::ForeignRedirect { param, fragment: true, .. } if param == "redirect_uri"
        )));
    }
}
