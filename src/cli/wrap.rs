//! `ahp-elicit wrap`: raw MCP `elicitation/create` params in,
//! a validated `user.elicitation.request` event out, through
//! [`crate::binding::wrap_request`] (the params serialized whole into
//! `request.text`, the mode written explicitly, nothing injected).
//!
//! `--protocol-version V` checks the params against that pinned revision's
//! definitions and writes it as the event's `extensions.mcp`
//! (`--input-key K` adds the `inputRequests` entry's key). Without either,
//! the event names no revision and follows 2025-11-25, as before the second
//! pin.
//!
//! The default id is `evt-` and the first 16 hex digits of the SHA-256 of
//! the serialized params (the `request.text`), so wrapping the same params
//! twice gives the same id; with `--time` the whole output is reproducible.
//!
//! JSON Lines of params (a server's log) are wrapped one event a line, in
//! order; nothing is written unless every line is valid (an error names its
//! line), `--id` is refused, and the same params twice get their line
//! number added to the second id.
//!
//! Exit: 0 the event is on stdout; 1 the params are not valid (each error on
//! stderr with its pointer and rule); 2 usage or unreadable input.

use std::io::Write;
use std::path::{Path, PathBuf};

use serde_json::Value;
use sha2::Digest;

use crate::binding::content::format_ok;
use crate::binding::limits::{MAX_EVENT_BYTES, MAX_ID_CHARS};
use crate::binding::{
    parse_json, wrap_request, McpExtension, Revision, SchemaPolicy, Server, StringFormat,
    WrapOptions,
};
use crate::respond::sink::terminal_safe;
use crate::safe_text::display;

use super::{revision_parser, Exit};

/// What `ahp-elicit wrap --help` says after the options: two examples
/// (the second pinned to the latest revision), what is read and printed,
/// and the exit statuses.
fn after_help() -> String {
    format!(
        "Examples:\n  ahp-elicit wrap --server deployer examples/inputs/elicit.params.json > request.json\n  \
ahp-elicit wrap --server deployer --protocol-version {} < examples/inputs/elicit.params.json\n\n\
Reads the params object of an MCP elicitation/create request (not the JSON-RPC envelope) \
and prints one user.elicitation.request event as a JSON line \
(JSON Lines of params: one event a line).\n\n\
Exit status: 0 printed, 1 invalid params (errors on stderr), 2 usage or unreadable input.",
        Revision::V2026_07_28
    )
}

/// Arguments of `ahp-elicit wrap`.
#[derive(Debug, clap::Args)]
#[command(after_help = after_help())]
pub struct WrapArgs {
    /// The requesting MCP server's name (identity as this adapter knows it).
    #[arg(long, value_name = "NAME")]
    pub server: String,
    /// The server's display title.
    #[arg(long, value_name = "T")]
    pub server_title: Option<String>,
    /// The server's version.
    #[arg(long, value_name = "V")]
    pub server_version: Option<String>,
    /// source.adapter of the event.
    #[arg(long, value_name = "A", default_value = "ahp-elicit-wrap")]
    pub adapter: String,
    /// Event id (default: `evt-` + the first 16 hex digits of the SHA-256 of the serialized params).
    #[arg(long, value_name = "ID")]
    pub id: Option<String>,
    /// Event time, RFC 3339 (default: now).
    #[arg(long, value_name = "TIME")]
    pub time: Option<String>,
    /// The MCP revision the params follow, written as extensions.mcp
    /// (default: none written, which means 2025-11-25).
    #[arg(long = "protocol-version", value_name = "VERSION", value_parser = revision_parser())]
    pub protocol_version: Option<Revision>,
    /// The key of the inputRequests entry the params came from, written as
    /// extensions.mcp.inputKey (needs --protocol-version).
    #[arg(long, value_name = "KEY", requires = "protocol_version")]
    pub input_key: Option<String>,
    /// How the params' requestedSchema is read: strict (the AHP rule) or
    /// compatible (what real servers' SDKs send: the event then says so in
    /// its extensions, as `mcp --events` records it).
    #[arg(long, value_enum, default_value = "strict", value_name = "POLICY")]
    pub schema_policy: SchemaPolicy,
    /// The params file; `-` or nothing is stdin.
    #[arg(value_name = "FILE|-")]
    pub input: Option<PathBuf>,
}

/// When `v` is not params but something that holds them (a JSON-RPC
/// message, an `inputRequests` entry, an `input_required` result), one
/// sentence saying what it looks like and what to give instead.
fn wrapper_hint(v: &Value) -> Option<String> {
    let o = v.as_object()?;
    if o.contains_key("message") || o.contains_key("requestedSchema") || o.contains_key("url") {
        return None;
    }
    if o.contains_key("jsonrpc") {
        return Some(
            "this is a JSON-RPC message, not elicitation/create params: give its \"params\" object"
                .into(),
        );
    }
    if o.get("method").and_then(Value::as_str) == Some("elicitation/create") {
        return Some(
            "this is an inputRequests entry ({\"method\", \"params\"}): give its \"params\" object (and its key as --input-key)"
                .into(),
        );
    }
    if o.contains_key("inputRequests") || o.contains_key("resultType") {
        return Some(
            "this is an input_required result: wrap the \"params\" of each inputRequests entry, one at a time, with --protocol-version and --input-key KEY"
                .into(),
        );
    }
    None
}

/// The default event id for params serialized as `text`.
pub fn default_id(text: &str) -> String {
    let d = sha2::Sha256::digest(text.as_bytes());
    let hex: String = d.iter().take(8).map(|b| format!("{b:02x}")).collect();
    format!("evt-{hex}")
}

/// Run the command; returns the exit status.
pub fn run(args: WrapArgs) -> Exit {
    if let Some(usage) = flag_fault(&args) {
        crate::notice::say_in("wrap", usage);
        return Exit::Usage;
    }
    let input = args.input.as_deref().unwrap_or(Path::new("-"));
    let bytes = match super::read_input(input, MAX_EVENT_BYTES, "params") {
        Ok(b) => b,
        Err(e) => {
            crate::notice::say_in("wrap", &e);
            return Exit::Usage;
        }
    };
    // One params object, or JSON Lines of them (a server's log): each
    // line is wrapped as its own event, and nothing is written unless
    // every line is valid.
    let docs: Vec<(Option<usize>, Value)> = match parse_json(&bytes) {
        Ok(v) => vec![(None, v)],
        Err(e) => match json_lines(&bytes) {
            Some(lines) => lines,
            None => {
                super::print_violations(
                    "wrap",
                    "the params are not a valid elicitation/create request",
                    &[e],
                );
                return Exit::Invalid;
            }
        },
    };
    if docs.len() > 1 && args.id.is_some() {
        crate::notice::say_in(
            "wrap",
            "--id names one event, and the input holds several params (JSON Lines): leave --id out",
        );
        return Exit::Usage;
    }
    let events = match wrap_all(&args, &docs) {
        Ok(events) => events,
        Err(exit) => return exit,
    };
    let mut out = std::io::stdout().lock();
    if events
        .iter()
        .try_for_each(|e| writeln!(out, "{e}"))
        .and_then(|_| out.flush())
        .is_err()
    {
        return Exit::Usage;
    }
    Exit::Ok
}

/// The flags' own rules, before any input is read: `--time` an RFC 3339
/// date-time, `--id` 1 to [`MAX_ID_CHARS`] characters and `--input-key`
/// 1 to 256, neither with a control character. Returns the sentence that
/// names the first flag that breaks its rule, None when all hold.
fn flag_fault(args: &WrapArgs) -> Option<String> {
    if let Some(t) = &args.time {
        if !format_ok(StringFormat::DateTime, t) {
            return Some(format!(
                "--time '{}' is not an RFC 3339 date-time",
                display(t)
            ));
        }
    }
    let bad = |v: &str, max: usize| {
        let n = v.chars().count();
        n == 0 || n > max || v.chars().any(char::is_control)
    };
    if args.id.as_deref().is_some_and(|id| bad(id, MAX_ID_CHARS)) {
        return Some(format!(
            "--id must be 1 to {MAX_ID_CHARS} characters, no control characters"
        ));
    }
    if args.input_key.as_deref().is_some_and(|k| bad(k, 256)) {
        return Some("--input-key must be 1 to 256 characters, no control characters".into());
    }
    None
}

/// Every params object of `docs` wrapped as one request event line
/// (terminal-safe JSON), in order; each event gets `--id`, or the digest
/// of its params (made distinct when the same params come twice).
/// Errors: the exit status after the first params that cannot be
/// wrapped were reported (nothing is written then).
fn wrap_all(args: &WrapArgs, docs: &[(Option<usize>, Value)]) -> Result<Vec<String>, Exit> {
    let mcp = args.protocol_version.map(|protocol_version| McpExtension {
        protocol_version,
        input_key: args.input_key.clone(),
        call: None,
    });
    let server = Server {
        name: args.server.clone(),
        title: args.server_title.clone(),
        version: args.server_version.clone(),
    };
    let mut events = Vec::with_capacity(docs.len());
    let mut ids = std::collections::HashSet::new();
    for (line, params) in docs {
        let at = |what: String| match line {
            Some(n) => format!("line {n}: {what}"),
            None => what,
        };
        if let Some(hint) = wrapper_hint(params) {
            crate::notice::say_in("wrap", at(hint));
            return Err(Exit::Invalid);
        }
        let text = match serde_json::to_string(params) {
            Ok(t) => t,
            Err(e) => {
                crate::notice::say_in("wrap", at(e.to_string()));
                return Err(Exit::Usage);
            }
        };
        let mut id = args.id.clone().unwrap_or_else(|| default_id(&text));
        // The same params twice in one stream still get distinct ids.
        if let (false, Some(n)) = (ids.insert(id.clone()), line) {
            id = format!("{id}-{n}");
            ids.insert(id.clone());
        }
        let options = WrapOptions {
            time: args.time.as_deref(),
            policy: args.schema_policy,
            mcp: mcp.as_ref(),
            ..WrapOptions::new(&server, &args.adapter, &id)
        };
        match wrap_request(params, &options) {
            Ok(ev) => events.push(terminal_safe(&ev.event.to_string())),
            Err(mut es) => {
                let compatible = || {
                    let policy = SchemaPolicy::Compatible;
                    wrap_request(params, &WrapOptions { policy, ..options })
                };
                let form = |r: crate::binding::RequestEvent| {
                    !matches!(r.view, crate::binding::RequestView::NotAForm { .. })
                };
                if args.schema_policy == SchemaPolicy::Strict && compatible().is_ok_and(form) {
                    crate::validate::note(&mut es);
                }
                let what = at("the params are not a valid elicitation/create request".into());
                super::print_violations("wrap", &what, &es);
                return Err(Exit::Invalid);
            }
        }
    }
    Ok(events)
}

/// The JSON values of `bytes` read as JSON Lines (one value a line; blank
/// lines skipped), each with its line number (from 1); None when there are
/// fewer than two or some line is not JSON (the caller then reports the
/// whole input's parse error).
fn json_lines(bytes: &[u8]) -> Option<Vec<(Option<usize>, Value)>> {
    let mut out = Vec::new();
    for (i, line) in bytes.split(|b| *b == b'\n').enumerate() {
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        out.push((Some(i + 1), parse_json(line).ok()?));
    }
    (out.len() > 1).then_some(out)
}
