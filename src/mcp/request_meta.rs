//! What MCP 2026-07-28 adds to every client request: the `_meta` entries
//! (protocol version, client info, per-request capabilities) and, over
//! Streamable HTTP, the request metadata headers (`MCP-Protocol-Version`,
//! `Mcp-Method`, `Mcp-Name`, `Mcp-Param-*`) with the transport's value
//! encoding.
//!
//! Pure functions over `serde_json::Value`: the session decides when they
//! apply (when its revision, a [`Revision`], is 2026-07-28), the
//! transports only carry the headers.

use serde_json::{json, Map, Value};

use crate::binding::{Mode, Revision};

/// MCP error code: the HTTP headers do not match the body (2026-07-28).
pub const HEADER_MISMATCH: i64 = -32020;
/// MCP error code: the request needs a client capability that was not
/// declared (2026-07-28).
pub const MISSING_CAPABILITY: i64 = -32021;
/// MCP error code: the protocol version is not supported (2026-07-28;
/// `data.supported` lists the server's versions).
pub const UNSUPPORTED_VERSION: i64 = -32022;

/// `_meta` key of the protocol version.
pub const META_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
/// `_meta` key of the client's identity.
pub const META_CLIENT_INFO: &str = "io.modelcontextprotocol/clientInfo";
/// `_meta` key of the client's capabilities for this request.
pub const META_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";
/// Result `_meta` key of the server's identity.
pub const META_SERVER_INFO: &str = "io.modelcontextprotocol/serverInfo";

/// The client's `Implementation` object.
pub fn client_info() -> Value {
    json!({
        "name": "ahp-elicit",
        "title": "ahp-elicit",
        "version": env!("CARGO_PKG_VERSION")
    })
}

/// `capabilities.elicitation` for the advertised modes: `{form:{}, url:{}}`
/// with only the modes given.
pub fn elicitation_capability(modes: &[Mode]) -> Value {
    let mut e = Map::new();
    for m in modes {
        e.insert(m.as_str().into(), json!({}));
    }
    Value::Object(e)
}

/// The client's capabilities in `revision`: `elicitation` for the
/// advertised modes; `sampling` (`{}`: no context, no tools) when someone
/// can write a model's reply; `roots` when roots are given (`listChanged:
/// false` at 2025-11-25; `{}` at 2026-07-28, whose `roots` has no members).
pub fn client_capabilities(
    revision: Revision,
    modes: &[Mode],
    sampling: bool,
    roots: bool,
) -> Value {
    let mut c = Map::new();
    c.insert("elicitation".into(), elicitation_capability(modes));
    if sampling {
        c.insert("sampling".into(), json!({}));
    }
    if roots {
        let r = if revision == Revision::V2025_11_25 {
            json!({ "listChanged": false })
        } else {
            json!({})
        };
        c.insert("roots".into(), r);
    }
    Value::Object(c)
}

/// Put the 2026-07-28 `_meta` entries into a request's params (creating the
/// params and `_meta` objects when absent; entries already there, such as
/// a `progressToken`, are kept), with the client's `capabilities`
/// ([`client_capabilities`]). Params that are not an object are left as
/// they are.
pub fn with_meta_capabilities(params: Option<Value>, capabilities: Value) -> Value {
    let mut params = params.unwrap_or_else(|| json!({}));
    let Some(p) = params.as_object_mut() else {
        return params;
    };
    let meta = p.entry("_meta").or_insert_with(|| json!({}));
    if let Some(m) = meta.as_object_mut() {
        m.insert(META_VERSION.into(), json!(Revision::V2026_07_28.as_str()));
        m.insert(META_CLIENT_INFO.into(), client_info());
        m.insert(META_CAPABILITIES.into(), capabilities);
    }
    params
}

/// The request metadata headers of a 2026-07-28 POST: the protocol
/// version, `Mcp-Method`, and `Mcp-Name` for `tools/call` and
/// `prompts/get` (`params.name`) and `resources/read` (`params.uri`).
pub fn standard_headers(method: &str, params: Option<&Value>) -> Vec<(String, String)> {
    let mut h = vec![
        (
            "MCP-Protocol-Version".to_owned(),
            Revision::V2026_07_28.as_str().to_owned(),
        ),
        ("Mcp-Method".to_owned(), method.to_owned()),
    ];
    let source = match method {
        "tools/call" | "prompts/get" => "name",
        "resources/read" => "uri",
        _ => return h,
    };
    if let Some(v) = params.and_then(|p| p.get(source)).and_then(Value::as_str) {
        h.push(("Mcp-Name".to_owned(), encode_header_value(v)));
    }
    h
}

/// A header value as the transport's Value Encoding says: as it is when it
/// is visible ASCII or inner spaces and tabs; otherwise (non-ASCII, control
/// characters, leading or trailing whitespace, or text that looks like the
/// sentinel) `=?base64?{Base64 of the UTF-8}?=`.
pub fn encode_header_value(v: &str) -> String {
    let plain = v
        .bytes()
        .all(|b| b == b' ' || b == b'\t' || (0x21..=0x7e).contains(&b));
    let trimmed = !v.starts_with([' ', '\t']) && !v.ends_with([' ', '\t']);
    let sentinel = v.starts_with("=?base64?") && v.ends_with("?=");
    if plain && trimmed && !sentinel {
        v.to_owned()
    } else {
        format!("=?base64?{}?=", base64(v.as_bytes()))
    }
}

/// Standard Base64 (RFC 4648, with padding).
pub fn base64(bytes: &[u8]) -> String {
    const A: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for c in bytes.chunks(3) {
        let n = (u32::from(c[0]) << 16)
            | (u32::from(*c.get(1).unwrap_or(&0)) << 8)
            | u32::from(*c.get(2).unwrap_or(&0));
        let idx = [n >> 18, n >> 12, n >> 6, n];
        for (i, k) in idx.iter().enumerate() {
            if i <= c.len() {
                out.push(A[(*k & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// Largest integer an `x-mcp-header` parameter may carry (JavaScript's
/// safe range).
const MAX_SAFE_INTEGER: i64 = (1 << 53) - 1;

/// One `x-mcp-header` annotation of a tool's `inputSchema`: the header name
/// part and the chain of `properties` keys leading to the parameter.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HeaderParam {
    /// `Mcp-Param-{name}`.
    pub name: String,
    /// Property keys from the schema root.
    pub path: Vec<String>,
}

/// Which rule an `x-mcp-header` annotation breaks; `at` is where it is
/// ("the schema root" or a JSON Pointer below `inputSchema`), `name` the
/// header name as sent (sanitized when shown).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum HeaderRule {
    /// The annotation is not a string.
    #[error("x-mcp-header at {} is not a string", crate::safe_text::display(.at))]
    NotAString { at: String },
    /// The annotation is empty.
    #[error("x-mcp-header at {} is empty", crate::safe_text::display(.at))]
    Empty { at: String },
    /// The annotation is not an HTTP token.
    #[error("x-mcp-header at {} is not an HTTP header name token", crate::safe_text::display(.at))]
    NotAToken { at: String },
    /// The annotated schema is not a property reached through
    /// `properties` keys only.
    #[error(
        "x-mcp-header at {} is not on a property reached through properties only",
        crate::safe_text::display(.at)
    )]
    NotReachable { at: String },
    /// The annotated property is not a string, integer or boolean.
    #[error(
        "x-mcp-header at {} is on a property that is not a string, integer or boolean",
        crate::safe_text::display(.at)
    )]
    WrongType { at: String },
    /// Two annotations give one name (compared regardless of case).
    #[error(
        "x-mcp-header '{}' is used twice (names are compared regardless of case)",
        crate::safe_text::display(.name)
    )]
    Twice { name: String },
}

/// Read and check the `x-mcp-header` annotations of a tool definition
/// (2026-07-28 Streamable HTTP, "Custom Headers from Tool Parameters"):
/// each is a non-empty HTTP token, unique regardless of case, on a
/// property of type string, integer or boolean reached only through
/// `properties` keys.
///
/// Errors: the first broken rule, [`HeaderRule`] (the tool is then left
/// out of the tool list).
pub fn header_params(tool: &Value) -> Result<Vec<HeaderParam>, HeaderRule> {
    let mut out = Vec::new();
    if let Some(schema) = tool.get("inputSchema") {
        collect(schema, &mut Vec::new(), true, &mut out)?;
    }
    let mut seen = std::collections::HashSet::new();
    for p in &out {
        if !seen.insert(p.name.to_ascii_lowercase()) {
            return Err(HeaderRule::Twice {
                name: p.name.clone(),
            });
        }
    }
    Ok(out)
}

fn is_tchar(c: char) -> bool {
    c.is_ascii_alphanumeric() || "!#$%&'*+-.^_`|~".contains(c)
}

/// Walk a schema: `reachable` is true while only `properties` keys led here.
fn collect(
    schema: &Value,
    path: &mut Vec<String>,
    reachable: bool,
    out: &mut Vec<HeaderParam>,
) -> Result<(), HeaderRule> {
    match schema {
        Value::Object(o) => {
            if let Some(h) = o.get("x-mcp-header") {
                let at = if path.is_empty() {
                    "the schema root".to_owned()
                } else {
                    format!("/{}", path.join("/"))
                };
                let Some(name) = h.as_str() else {
                    return Err(HeaderRule::NotAString { at });
                };
                if name.is_empty() {
                    return Err(HeaderRule::Empty { at });
                }
                if !name.chars().all(is_tchar) {
                    return Err(HeaderRule::NotAToken { at });
                }
                if !reachable || path.is_empty() {
                    return Err(HeaderRule::NotReachable { at });
                }
                let ty = o.get("type").and_then(Value::as_str);
                if !matches!(ty, Some("string" | "integer" | "boolean")) {
                    return Err(HeaderRule::WrongType { at });
                }
                out.push(HeaderParam {
                    name: name.to_owned(),
                    path: path.clone(),
                });
            }
            for (k, v) in o {
                match k.as_str() {
                    "properties" => {
                        if let Value::Object(props) = v {
                            for (pk, pv) in props {
                                path.push(pk.clone());
                                let r = collect(pv, path, reachable, out);
                                path.pop();
                                r?;
                            }
                        }
                    }
                    "x-mcp-header" | "const" | "default" | "enum" | "examples" => {}
                    _ => collect(v, path, false, out)?,
                }
            }
            Ok(())
        }
        Value::Array(a) => a.iter().try_for_each(|v| collect(v, path, false, out)),
        _ => Ok(()),
    }
}

/// The `Mcp-Param-*` headers of a call: for each annotation whose path has
/// a string, integer or boolean value in `arguments` (null or absent: no
/// header), the encoded value.
pub fn param_headers(
    params: &[HeaderParam],
    arguments: &Map<String, Value>,
) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for p in params {
        let mut v: Option<&Value> = None;
        let mut obj = Some(arguments);
        for k in &p.path {
            v = obj.and_then(|o| o.get(k));
            obj = v.and_then(Value::as_object);
        }
        let text = match v {
            Some(Value::String(s)) => s.clone(),
            Some(Value::Bool(b)) => b.to_string(),
            Some(Value::Number(n)) => match n.as_i64() {
                Some(i) if i.abs() <= MAX_SAFE_INTEGER => i.to_string(),
                _ => match n.as_f64() {
                    Some(f) if f.fract() == 0.0 && f.abs() <= MAX_SAFE_INTEGER as f64 => {
                        format!("{}", f as i64)
                    }
                    _ => n.to_string(),
                },
            },
            _ => continue,
        };
        out.push((format!("Mcp-Param-{}", p.name), encode_header_value(&text)));
    }
    out
}

/// The words for the 2026-07-28 error codes (None for others): what
/// -32020, -32021 and -32022 mean, with the versions or capabilities the
/// server named in `data`.
pub fn explain(code: i64, data: Option<&Value>) -> Option<String> {
    match code {
        HEADER_MISMATCH => Some(
            "the server says the HTTP headers do not match the request body (-32020 HeaderMismatch)"
                .into(),
        ),
        MISSING_CAPABILITY => {
            let caps = data
                .and_then(|d| d.get("requiredCapabilities"))
                .map(|c| c.to_string())
                .unwrap_or_else(|| "(not named)".into());
            Some(format!(
                "the server needs a client capability this client did not declare (-32021): {caps}"
            ))
        }
        UNSUPPORTED_VERSION => Some(format!(
            "the server does not speak the protocol version asked for (-32022); it speaks: {}",
            supported_versions(data).unwrap_or_else(|| "(not named)".into())
        )),
        _ => None,
    }
}

/// Versions of a list a server sent that are named; the rest are counted.
const VERSIONS_SHOWN: usize = 10;

/// The versions of a -32022 error's `data.supported`, comma-separated: the
/// first [`VERSIONS_SHOWN`] (each cut to 40 characters), then how many more.
pub fn supported_versions(data: Option<&Value>) -> Option<String> {
    let list = data?.get("supported")?.as_array()?;
    let named = list.iter().filter_map(Value::as_str);
    let total = named.clone().count();
    let mut names: Vec<String> = named
        .take(VERSIONS_SHOWN)
        .map(|s| s.chars().take(40).collect())
        .collect();
    if total > VERSIONS_SHOWN {
        names.push(format!("and {} more", total - VERSIONS_SHOWN));
    }
    (!names.is_empty()).then(|| names.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_version_list_is_cut_when_shown() {
        let many: Vec<String> = (0..100_000).map(|i| format!("2026-01-{i}")).collect();
        let said = supported_versions(Some(&json!({ "supported": many }))).unwrap();
        assert!(said.starts_with("2026-01-0, 2026-01-1, "), "{said}");
        assert!(said.ends_with(", 2026-01-9, and 99990 more"), "{said}");
        let few = json!({ "supported": [Revision::V2025_11_25.as_str()] });
        assert_eq!(
            supported_versions(Some(&few)).as_deref(),
            Some(Revision::V2025_11_25.as_str())
        );
    }

    #[test]
    fn encodes_header_values_as_the_transport_says() {
        assert_eq!(encode_header_value("us-west1"), "us-west1");
        assert_eq!(encode_header_value("us west 1"), "us west 1");
        assert_eq!(
            encode_header_value("Hello, 世界"),
            "=?base64?SGVsbG8sIOS4lueVjA==?="
        );
        assert_eq!(encode_header_value(" padded "), "=?base64?IHBhZGRlZCA=?=");
        assert_eq!(
            encode_header_value("line1\nline2"),
            "=?base64?bGluZTEKbGluZTI=?="
        );
        assert_eq!(
            encode_header_value("=?base64?literal?="),
            "=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?="
        );
        assert_eq!(base64(b""), "");
        assert_eq!(base64(b"f"), "Zg==");
        assert_eq!(base64(b"fo"), "Zm8=");
        assert_eq!(base64(b"foo"), "Zm9v");
    }

    #[test]
    fn meta_keeps_what_is_there_and_adds_the_three_entries() {
        let p = with_meta_capabilities(
            Some(json!({"name": "t", "_meta": {"progressToken": "x"}})),
            client_capabilities(Revision::V2026_07_28, &[Mode::Form], false, false),
        );
        assert_eq!(p["name"], "t");
        assert_eq!(p["_meta"]["progressToken"], "x");
        assert_eq!(p["_meta"][META_VERSION], Revision::V2026_07_28.as_str());
        assert_eq!(p["_meta"][META_CLIENT_INFO]["name"], "ahp-elicit");
        assert_eq!(
            p["_meta"][META_CAPABILITIES],
            json!({"elicitation": {"form": {}}})
        );
    }

    #[test]
    fn sampling_and_roots_are_declared_only_when_offered_as_each_revision_shapes_them() {
        let modes = [Mode::Form, Mode::Url];
        let elicit = json!({"form": {}, "url": {}});
        for rev in [Revision::V2025_11_25, Revision::V2026_07_28] {
            assert_eq!(
                client_capabilities(rev, &modes, false, false),
                json!({"elicitation": elicit})
            );
        }
        assert_eq!(
            client_capabilities(Revision::V2025_11_25, &modes, true, true),
            json!({"elicitation": elicit, "sampling": {}, "roots": {"listChanged": false}})
        );
        assert_eq!(
            client_capabilities(Revision::V2026_07_28, &modes, true, true),
            json!({"elicitation": elicit, "sampling": {}, "roots": {}})
        );
    }

    #[test]
    fn standard_headers_name_the_method_and_the_target() {
        let h = standard_headers("resources/read", Some(&json!({"uri": "file:///a b"})));
        assert_eq!(
            h,
            vec![
                (
                    "MCP-Protocol-Version".into(),
                    Revision::V2026_07_28.as_str().into()
                ),
                ("Mcp-Method".into(), "resources/read".into()),
                ("Mcp-Name".into(), "file:///a b".into()),
            ]
        );
        assert_eq!(standard_headers("tools/list", None).len(), 2);
    }

    #[test]
    fn reads_x_mcp_header_annotations_and_mirrors_present_values() {
        let tool = json!({"name": "q", "inputSchema": {"type": "object", "properties": {
            "region": {"type": "string", "x-mcp-header": "Region"},
            "n": {"type": "integer", "x-mcp-header": "N"},
            "deep": {"type": "object", "properties": {"on": {"type": "boolean", "x-mcp-header": "On"}}},
            "plain": {"type": "string"}
        }}});
        let params = header_params(&tool).unwrap();
        assert_eq!(params.len(), 3);
        let args = json!({"region": "eu 1 ", "n": 42, "deep": {"on": false}, "plain": "x"});
        let h = param_headers(&params, args.as_object().unwrap());
        assert_eq!(
            h,
            vec![
                ("Mcp-Param-Region".into(), "=?base64?ZXUgMSA=?=".into()),
                ("Mcp-Param-N".into(), "42".into()),
                ("Mcp-Param-On".into(), "false".into()),
            ]
        );
        let none = json!({"region": null});
        assert!(param_headers(&params, none.as_object().unwrap()).is_empty());
    }

    #[test]
    fn refuses_broken_annotations() {
        let bad = |props: Value| {
            header_params(&json!({"inputSchema": {"type": "object", "properties": props}}))
                .unwrap_err()
                .to_string()
        };
        assert!(bad(json!({"a": {"type": "string", "x-mcp-header": ""}})).contains("empty"));
        assert!(bad(json!({"a": {"type": "string", "x-mcp-header": "A B"}})).contains("token"));
        assert!(bad(json!({"a": {"type": "number", "x-mcp-header": "A"}})).contains("integer"));
        assert!(bad(json!({"a": {"type": "string", "x-mcp-header": "A"},
                           "b": {"type": "string", "x-mcp-header": "a"}}))
        .contains("twice"));
        assert!(bad(
            json!({"a": {"type": "array", "items": {"type": "string", "x-mcp-header": "A"}}})
        )
        .contains("properties only"));
    }

    #[test]
    fn explains_the_new_error_codes() {
        let d =
            json!({"supported": [Revision::V2026_07_28.as_str(), "2027-01-01"], "requested": "x"});
        assert_eq!(
            explain(UNSUPPORTED_VERSION, Some(&d)).unwrap(),
            "the server does not speak the protocol version asked for (-32022); it speaks: 2026-07-28, 2027-01-01"
        );
        assert!(explain(HEADER_MISMATCH, None).unwrap().contains("headers"));
        assert!(explain(-32601, None).is_none());
    }
}
