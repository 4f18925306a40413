//! The client's roots (`--root PATH|URI`): what `roots/list` answers, in
//! both revisions (pushed as a server request at 2025-11-25, an input
//! request of an `input_required` result at 2026-07-28).
//!
//! Each root is a directory or file that exists on this machine, resolved
//! (absolute, symbolic links followed) and given as a `file://` URI, with
//! its last path component as its name. The capability `roots` is
//! advertised only when at least one root is given (`listChanged: false`
//! at 2025-11-25: the list never changes during a run).

use std::path::PathBuf;

use serde_json::{json, Value};

/// One root: its `file://` URI and name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Root {
    /// `file://` and the resolved absolute path, percent-encoded where a
    /// URI needs it (RFC 8089).
    pub uri: String,
    /// The last component of the path (`/` for the root directory).
    pub name: String,
    /// The resolved path, for what is said to the person.
    pub path: PathBuf,
}

/// Why a `--root` value was refused.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum RootError {
    /// A URI of another scheme (`https://…`): a root must be a file.
    #[error(
        "--root {0}: a root is a local path or a file:// URI (MCP roots must start with file://)"
    )]
    NotAFileUri(String),
    /// A `file://` URI naming another host.
    #[error(
        "--root {0}: a file:// URI must name this machine (file:///path or file://localhost/path)"
    )]
    RemoteHost(String),
    /// A `file://` URI that does not read as one (bad percent-encoding,
    /// a path that is not UTF-8 once decoded).
    #[error("--root {0}: not a file:// URI that reads as a path")]
    BadUri(String),
    /// Empty.
    #[error("--root: give a path or a file:// URI, not an empty value")]
    Empty,
    /// The path does not exist (or cannot be resolved).
    #[error("--root {shown}: {why} (a root must exist)")]
    Missing { shown: String, why: String },
}

impl Root {
    /// Read one `--root` value: a path (relative to the working directory)
    /// or a `file://` URI (`file:///path`, `file://localhost/path`).
    ///
    /// Errors: [`RootError`]: empty, a URI of another scheme or host, or a
    /// path that does not exist.
    pub fn parse(value: &str) -> Result<Root, RootError> {
        let shown = || crate::safe_text::display(value).into_owned();
        if value.is_empty() {
            return Err(RootError::Empty);
        }
        let path = match scheme_of(value) {
            Some(s) if s.eq_ignore_ascii_case("file") => {
                let u = url::Url::parse(value).map_err(|_| RootError::BadUri(shown()))?;
                match u.host_str() {
                    None | Some("") | Some("localhost") => {}
                    Some(_) => return Err(RootError::RemoteHost(shown())),
                }
                u.to_file_path().map_err(|()| RootError::BadUri(shown()))?
            }
            Some(_) => return Err(RootError::NotAFileUri(shown())),
            None => PathBuf::from(value),
        };
        let path = std::fs::canonicalize(&path).map_err(|e| RootError::Missing {
            shown: shown(),
            why: crate::files::io_reason(&e),
        })?;
        Ok(Root::of(path))
    }

    /// The root for an existing, resolved absolute `path`.
    fn of(path: PathBuf) -> Root {
        let uri = url::Url::from_file_path(&path)
            .map(String::from)
            .unwrap_or_else(|()| format!("file://{}", path.display()));
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| "/".to_owned());
        Root { uri, name, path }
    }

    /// The `Root` object of a `ListRootsResult`.
    pub fn to_value(&self) -> Value {
        json!({ "uri": self.uri, "name": self.name })
    }
}

/// A URI scheme at the start of `value` (`file`, `https`), if it has one:
/// letters, digits, `+`, `-`, `.` after a letter, then `:` and `//` (or,
/// for `file`, `:/`: the one-slash form of RFC 8089, `file:/tmp`). A
/// Windows-like `C:\dir` or a path with a colon later is no URI.
fn scheme_of(value: &str) -> Option<&str> {
    let (scheme, rest) = value.split_once(':')?;
    let mut chars = scheme.chars();
    let first = chars.next()?;
    let ok = first.is_ascii_alphabetic()
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
        && (rest.starts_with("//")
            || (scheme.eq_ignore_ascii_case("file") && rest.starts_with('/')));
    ok.then_some(scheme)
}

/// The `ListRootsResult` for `roots`: `{"roots": [{uri, name}, ...]}`.
pub fn list_result(roots: &[Root]) -> Value {
    json!({ "roots": roots.iter().map(Root::to_value).collect::<Vec<_>>() })
}

/// What the session says of its roots, one line: `roots: NAME (URI), …`
/// (escaped: a path may hold any character).
pub fn summary(roots: &[Root]) -> String {
    let listed: Vec<String> = roots
        .iter()
        .map(|r| {
            format!(
                "{} ({})",
                crate::safe_text::display(&r.name),
                crate::safe_text::display(&r.uri)
            )
        })
        .collect();
    format!("roots offered to the server: {}", listed.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_path_or_a_file_uri_becomes_a_resolved_file_uri_named_by_its_last_component() {
        let dir = tempfile::tempdir().expect("dir");
        let sub = dir.path().join("my project");
        std::fs::create_dir(&sub).expect("mkdir");
        let real = std::fs::canonicalize(&sub).expect("real");
        let r = Root::parse(sub.to_str().expect("utf-8")).expect("a root");
        assert_eq!(r.name, "my project");
        assert!(r.uri.starts_with("file:///"), "{}", r.uri);
        assert!(r.uri.ends_with("/my%20project"), "{}", r.uri);
        assert_eq!(r.path, real);
        let again = Root::parse(&r.uri).expect("the URI reads back");
        assert_eq!(again, r);
        // RFC 8089's one-slash form names the same root.
        let one_slash = r.uri.replacen("file:///", "file:/", 1);
        assert_eq!(Root::parse(&one_slash).expect("file:/PATH"), r);
        let local = r.uri.replacen("file://", "file://localhost", 1);
        assert_eq!(Root::parse(&local).expect("localhost"), r);
        assert_eq!(
            list_result(std::slice::from_ref(&r)),
            json!({"roots": [{"uri": r.uri, "name": "my project"}]})
        );
    }

    #[test]
    fn a_root_that_is_not_a_local_existing_file_is_refused_with_the_reason() {
        assert_eq!(Root::parse(""), Err(RootError::Empty));
        assert_eq!(
            Root::parse("https://example.com/x"),
            Err(RootError::NotAFileUri("https://example.com/x".into()))
        );
        assert_eq!(
            Root::parse("file://server/share"),
            Err(RootError::RemoteHost("file://server/share".into()))
        );
        let e = Root::parse("/no/such/place/\u{1b}[31m").expect_err("missing");
        let said = e.to_string();
        assert!(said.starts_with("--root /no/such/place/"), "{said}");
        assert!(said.ends_with("(a root must exist)"), "{said}");
        assert!(!said.contains('\u{1b}'), "{said}");
        // A colon later in a path is no scheme.
        assert_eq!(scheme_of("dir:x"), None);
        assert_eq!(scheme_of("FILE:///x"), Some("FILE"));
    }
}
