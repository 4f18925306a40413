//! Servers written with the current official MCP SDKs of both protocol
//! eras, installed pinned by `.ci/sdk-setup.sh` (servers in tests/servers/),
//! answered end to end through `ahp-elicit mcp` with no `--protocol` flag,
//! over stdio and Streamable HTTP:
//!
//! | server | era the client should pick | file |
//! |---|---|---|
//! | `@modelcontextprotocol/server` 2.4.0, default (dual-era) | 2026-07-28 | ts_v2_server.mjs |
//! | the same, `legacy: 'reject'` (2026-07-28 only) | 2026-07-28 | ts_v2_server.mjs --legacy-reject |
//! | Python `mcp` 2.3.0 (`Resolve`/`Elicit`), stateful and `stateless_http` | 2026-07-28 | py_mcp_eras_server.py |
//! | `fastmcp` 4.2.3 (tools return `InputRequiredResult`; 2026-07-28 only) | 2026-07-28 | py_fastmcp_server.py |
//! | `@modelcontextprotocol/sdk` 1.32.2 (2025-11-25 only) | 2025-11-25 | ts_zod_server.mjs |
//!
//! Every server has a form tool `book` (a required string `name`, an
//! integer `guests` in 1..12 with default 2, an enum `seating`), a URL-mode
//! tool `visit`, and `pair`, which asks two different forms in one call.
//! Each tool's result is JSON saying what the server received (the action
//! and the content), so each test checks what reached the server.
//! `tests/servers/wire_probe.py` drives any of these servers by hand with
//! raw JSON-RPC and prints what it sends.
//!
//! The SDKs are optional: without them each test says so and returns
//! (under CI it fails). HTTP servers listen on 127.0.0.1 with an ephemeral
//! port they print; every wait is bounded and every server is killed when
//! its test ends. The waits in the terminal tests are for screen text;
//! their timeouts only guard against a hang.

#![cfg(unix)]

use crate::common;
use crate::common::sdk;

use std::path::Path;

use common::pty::*;
use sdk::*;
use serde_json::{json, Value};

/// The revision every request event of a 2026-07-28 session names.
const V2026: &str = "2026-07-28";
const V2025: &str = "2025-11-25";
/// The page every `visit` tool asks to open.
const CONSENT_URL: &str = "https://example.com/ahp-consent";

/// A server of the table above.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Sdk {
    /// TypeScript v2, dual-era.
    TsV2,
    /// TypeScript v2, `legacy: 'reject'`.
    TsV2Reject,
    /// Python `mcp` 2.3.0; over HTTP stateful.
    PyMcp,
    /// Python `mcp` 2.3.0 over HTTP with `stateless_http=True`.
    PyMcpStateless,
    /// fastmcp 4.2.3; over HTTP stateful.
    FastMcp,
    /// fastmcp 4.2.3 over HTTP with `stateless_http=True`.
    FastMcpStateless,
    /// TypeScript v1 1.32.2 (stdio only).
    TsV1,
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Transport {
    Stdio,
    Http,
}

impl Sdk {
    /// The command line of the server, or None (with the skip notice) when
    /// its SDK is not installed.
    fn argv(self, transport: Transport) -> Option<Vec<String>> {
        let script = |name: &str| {
            root()
                .join("tests/servers")
                .join(name)
                .display()
                .to_string()
        };
        let mut argv = match self {
            Sdk::TsV2 | Sdk::TsV2Reject => {
                let probe = root()
                    .join(".ci/sdk/node/node_modules/@modelcontextprotocol/node/package.json");
                if !installed("the TypeScript MCP SDK v2", &probe) {
                    return None;
                }
                vec!["node".to_owned(), script("ts_v2_server.mjs")]
            }
            Sdk::TsV1 => {
                let probe =
                    root().join(".ci/sdk/node/node_modules/@modelcontextprotocol/sdk/package.json");
                if !installed("the TypeScript MCP SDK", &probe) {
                    return None;
                }
                vec!["node".to_owned(), script("ts_zod_server.mjs")]
            }
            Sdk::PyMcp | Sdk::PyMcpStateless | Sdk::FastMcp | Sdk::FastMcpStateless => {
                let py = root().join(".ci/sdk/venv/bin/python");
                let probe = root().join(".ci/sdk/venv/bin/fastmcp");
                if !installed("the Python MCP SDK and fastmcp", &probe) {
                    return None;
                }
                let file = if matches!(self, Sdk::PyMcp | Sdk::PyMcpStateless) {
                    "py_mcp_eras_server.py"
                } else {
                    "py_fastmcp_server.py"
                };
                vec![py.display().to_string(), script(file)]
            }
        };
        if transport == Transport::Http {
            argv.push("--http".to_owned());
        }
        match self {
            Sdk::TsV2Reject => argv.push("--legacy-reject".to_owned()),
            Sdk::PyMcpStateless | Sdk::FastMcpStateless => argv.push("--stateless".to_owned()),
            _ => {}
        }
        Some(argv)
    }

    /// The `inputRequests` key under which the server asks `tool`'s form
    /// (Python `Resolve` names it after the resolver's `module:qualname`).
    fn key(self, tool: &str) -> &'static str {
        let py = matches!(self, Sdk::PyMcp | Sdk::PyMcpStateless);
        match (tool, py) {
            ("book", false) => "booking",
            ("book", true) => "__main__:ask_booking",
            ("visit", _) => "consent",
            _ => unreachable!("{tool}"),
        }
    }

    /// The era `ahp-elicit mcp` should pick by itself.
    fn era(self) -> &'static str {
        if self == Sdk::TsV1 {
            V2025
        } else {
            V2026
        }
    }
}

/// A server ready to be reached: the words that name it on the command
/// line of `ahp-elicit mcp` (`-- COMMAND...` or the URL), and the HTTP
/// server to keep alive meanwhile.
struct Target {
    words: Vec<String>,
    _http: Option<HttpServer>,
}

fn target(sdk: Sdk, transport: Transport) -> Option<Target> {
    let argv = sdk.argv(transport)?;
    Some(match transport {
        Transport::Stdio => Target {
            words: std::iter::once("--".to_owned()).chain(argv).collect(),
            _http: None,
        },
        Transport::Http => {
            let http = start_http(&argv);
            Target {
                words: vec![http.url.clone()],
                _http: Some(http),
            }
        }
    })
}

/// Run `ahp-elicit mcp --events FILE FLAGS TARGET` in `dir`, stdin closed.
fn run(dir: &Path, flags: &[&str], t: &Target) -> McpRun {
    let words = t.words.iter().map(String::as_str);
    mcp_in(dir, flags.iter().copied().chain(words))
}

/// The params of request event `i`, parsed from its text.
fn params_of(r: &McpRun, i: usize) -> Value {
    let text = r.events[i]
        .pointer("/payload/elicitation/request/text")
        .and_then(Value::as_str)
        .unwrap_or_else(|| panic!("event {i} is a request event: {}", r.events[i]));
    serde_json::from_str(text).expect("request text is JSON")
}

/// The request events and result events say the era in use
/// (`extensions.mcp.protocolVersion`); at 2026-07-28 a request event also
/// names the `inputRequests` key it answers and the call it belongs to.
fn assert_era(r: &McpRun, sdk: Sdk, tool: &str) {
    let era = sdk.era();
    assert!(!r.events.is_empty(), "events written; stderr: {}", r.stderr);
    for e in &r.events {
        assert_eq!(
            e.pointer("/extensions/mcp/protocolVersion"),
            Some(&json!(era)),
            "{sdk:?}: every event names the era: {e}"
        );
    }
    if era == V2026 {
        let mcp = &r.events[0]["extensions"]["mcp"];
        assert_eq!(mcp["inputKey"], sdk.key(tool), "{mcp}");
        assert_eq!(mcp["call"], json!({"method": "tools/call", "name": tool}));
    }
    assert!(
        r.stderr.contains(era),
        "{sdk:?}: the era is said on stderr: {}",
        r.stderr
    );
}

/// `book`, answered by `--answers`: the server received the answer, with
/// the default `guests` left as drawn when `guests` is not given.
fn form_by_answers(sdk: Sdk, transport: Transport) {
    let Some(t) = target(sdk, transport) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let a = answers(
        dir.path(),
        &json!({"action": "accept", "content": {"name": "Ada", "seating": "terrace"}}),
    );
    let r = run(dir.path(), &["--call", "book", "--answers", &a], &t);
    assert_eq!(r.code, 0, "{sdk:?} {transport:?}: stderr: {}", r.stderr);
    let report = r.tool_report();
    assert_eq!(report["action"], "accept", "{report}");
    assert_eq!(
        report["received"],
        json!({"name": "Ada", "guests": 2, "seating": "terrace"}),
        "{sdk:?} {transport:?}"
    );
    if matches!(sdk, Sdk::TsV2 | Sdk::TsV2Reject) {
        // The server's requestState came back as it was sent.
        assert_eq!(report["state"], "book-state:v1", "{report}");
    }
    assert_eq!(r.events.len(), 2, "a request and a result event");
    let schema = &params_of(&r, 0)["requestedSchema"];
    assert_eq!(
        schema["properties"]["guests"],
        json!({"type": "integer", "title": "Guests", "minimum": 1, "maximum": 12, "default": 2})
    );
    assert_eq!(
        schema["properties"]["seating"]["enum"],
        json!(["inside", "terrace"])
    );
    assert_era(&r, sdk, "book");
}

/// `visit`, consented by `--answers`: the server received a bare accept;
/// at 2026-07-28 the URL request has no `elicitationId`.
fn url_by_answers(sdk: Sdk, transport: Transport) {
    let Some(t) = target(sdk, transport) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let a = answers(dir.path(), &json!({"action": "accept"}));
    let r = run(dir.path(), &["--call", "visit", "--answers", &a], &t);
    assert_eq!(r.code, 0, "{sdk:?} {transport:?}: stderr: {}", r.stderr);
    assert_eq!(
        r.tool_report(),
        json!({"action": "accept", "received": null}),
        "{sdk:?} {transport:?}"
    );
    let params = params_of(&r, 0);
    assert_eq!(params["mode"], "url");
    assert_eq!(params["url"], CONSENT_URL);
    assert_eq!(
        params.get("elicitationId").is_some(),
        sdk.era() == V2025,
        "{params}"
    );
    assert_era(&r, sdk, "visit");
}

/// `pair` declined by `--action decline`: both forms reached the person
/// (two request events, two results) and the server saw both declined.
fn pair_declined(sdk: Sdk, transport: Transport) {
    let Some(t) = target(sdk, transport) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let r = run(dir.path(), &["--call", "pair", "--action", "decline"], &t);
    assert_eq!(r.code, 0, "{sdk:?} {transport:?}: stderr: {}", r.stderr);
    let declined = json!({"action": "decline", "received": null});
    assert_eq!(
        r.tool_report(),
        json!({"contact": declined, "prefs": declined}),
        "{sdk:?} {transport:?}"
    );
    assert_eq!(r.events.len(), 4, "two requests, two results");
    let messages: Vec<Value> = r
        .events
        .iter()
        .enumerate()
        .filter(|(_, e)| e.pointer("/payload/elicitation/request").is_some())
        .map(|(i, _)| params_of(&r, i)["message"].clone())
        .collect();
    assert_eq!(
        messages,
        vec![json!("Your contact"), json!("Your preferences")]
    );
    for e in &r.events {
        assert_eq!(
            e.pointer("/extensions/mcp/protocolVersion"),
            Some(&json!(V2026)),
            "{sdk:?}: every event names the era: {e}"
        );
    }
    let keys: Vec<Value> = r
        .events
        .iter()
        .filter(|e| e["type"] == "user.elicitation.request")
        .filter_map(|e| e.pointer("/extensions/mcp/inputKey").cloned())
        .collect();
    let want = if matches!(sdk, Sdk::PyMcp | Sdk::PyMcpStateless) {
        json!(["__main__:ask_contact", "__main__:ask_prefs"])
    } else {
        json!(["contact", "prefs"])
    };
    assert_eq!(
        Value::from(keys),
        want,
        "the request events name their keys"
    );
}

// TypeScript v2, default (dual-era): createMcpHandler over HTTP, serveStdio.

#[test]
fn ts_v2_form_over_stdio() {
    form_by_answers(Sdk::TsV2, Transport::Stdio);
}

#[test]
fn ts_v2_form_over_http() {
    form_by_answers(Sdk::TsV2, Transport::Http);
}

#[test]
fn ts_v2_url_over_stdio() {
    url_by_answers(Sdk::TsV2, Transport::Stdio);
}

#[test]
fn ts_v2_url_over_http() {
    url_by_answers(Sdk::TsV2, Transport::Http);
}

#[test]
fn ts_v2_two_forms_in_one_round_over_http() {
    pair_declined(Sdk::TsV2, Transport::Http);
}

/// `prompts/get` (`--prompt`) and `resources/read` (`--read`) answer
/// `input_required` like `tools/call`: the form is asked, the request is
/// retried with the answer, and the result printed is the server's.
#[test]
fn ts_v2_prompt_and_resource_ask_a_form_over_http() {
    let Some(t) = target(Sdk::TsV2, Transport::Http) else {
        return;
    };
    let contact = json!({"action": "accept", "received": {"email": "ada@example.com"}});
    for (flags, text_at) in [
        (["--prompt", "greeting"], "/messages/0/content/text"),
        (["--read", "ahp://note"], "/contents/0/text"),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let a = answers(
            dir.path(),
            &json!({"action": "accept", "content": {"email": "ada@example.com"}}),
        );
        let mut all = flags.to_vec();
        all.extend(["--answers", &a]);
        let r = run(dir.path(), &all, &t);
        assert_eq!(r.code, 0, "{flags:?}: stderr: {}", r.stderr);
        let result: Value = serde_json::from_str(&r.stdout)
            .unwrap_or_else(|e| panic!("{flags:?}: stdout is the result ({e}): {}", r.stdout));
        let text = result
            .pointer(text_at)
            .and_then(Value::as_str)
            .unwrap_or_else(|| panic!("{flags:?}: {text_at} in {result}"));
        assert_eq!(serde_json::from_str::<Value>(text).unwrap(), contact);
        let method = if flags[0] == "--prompt" {
            "prompts/get"
        } else {
            "resources/read"
        };
        assert_eq!(
            r.events[0]["extensions"]["mcp"]["call"],
            json!({"method": method, "name": flags[1]})
        );
    }
}

// TypeScript v2 with `legacy: 'reject'`: 2026-07-28 only.

#[test]
fn ts_v2_reject_form_over_stdio() {
    form_by_answers(Sdk::TsV2Reject, Transport::Stdio);
}

#[test]
fn ts_v2_reject_form_over_http() {
    form_by_answers(Sdk::TsV2Reject, Transport::Http);
}

#[test]
fn ts_v2_reject_url_over_stdio() {
    url_by_answers(Sdk::TsV2Reject, Transport::Stdio);
}

#[test]
fn ts_v2_reject_url_over_http() {
    url_by_answers(Sdk::TsV2Reject, Transport::Http);
}

// Python mcp 2.3.0: Resolve/Elicit, stateful and stateless HTTP.

#[test]
fn py_mcp_form_over_stdio() {
    form_by_answers(Sdk::PyMcp, Transport::Stdio);
}

#[test]
fn py_mcp_form_over_http() {
    form_by_answers(Sdk::PyMcp, Transport::Http);
}

#[test]
fn py_mcp_form_over_stateless_http() {
    form_by_answers(Sdk::PyMcpStateless, Transport::Http);
}

#[test]
fn py_mcp_url_over_stdio() {
    url_by_answers(Sdk::PyMcp, Transport::Stdio);
}

#[test]
fn py_mcp_url_over_http() {
    url_by_answers(Sdk::PyMcp, Transport::Http);
}

#[test]
fn py_mcp_url_over_stateless_http() {
    url_by_answers(Sdk::PyMcpStateless, Transport::Http);
}

#[test]
fn py_mcp_two_forms_in_one_round_over_stdio() {
    pair_declined(Sdk::PyMcp, Transport::Stdio);
}

// fastmcp 4.2.3: tools that return InputRequiredResult (2026-07-28 only).

#[test]
fn fastmcp_form_over_stdio() {
    form_by_answers(Sdk::FastMcp, Transport::Stdio);
}

#[test]
fn fastmcp_form_over_http() {
    form_by_answers(Sdk::FastMcp, Transport::Http);
}

#[test]
fn fastmcp_form_over_stateless_http() {
    form_by_answers(Sdk::FastMcpStateless, Transport::Http);
}

#[test]
fn fastmcp_url_over_stdio() {
    url_by_answers(Sdk::FastMcp, Transport::Stdio);
}

#[test]
fn fastmcp_url_over_http() {
    url_by_answers(Sdk::FastMcp, Transport::Http);
}

#[test]
fn fastmcp_two_forms_in_two_rounds_with_request_state_over_stateless_http() {
    pair_declined(Sdk::FastMcpStateless, Transport::Http);
}

// TypeScript v1 1.32.2: 2025-11-25 only (no server/discover).

#[test]
fn ts_v1_url_over_stdio_stays_2025() {
    url_by_answers(Sdk::TsV1, Transport::Stdio);
}

// In a pseudo-terminal: a person answers.

/// `ahp-elicit mcp --call TOOL TARGET` in a pty, stdout into `out.json`.
fn start_tui(dir: &Path, tool: &str, t: &Target) -> Tui {
    Tui::start_words(
        dir,
        (100, 40),
        ["mcp", "--no-open", "--call", tool]
            .iter()
            .map(|s| s.to_string())
            .chain(t.words.iter().cloned()),
    )
}

/// The run said on stderr the era it picked.
fn assert_said_era(tui: &Tui, sdk: Sdk) {
    let err = tui.stderr();
    assert!(
        err.contains(sdk.era()),
        "{sdk:?}: the era in use ({}) is said on stderr: {err}",
        sdk.era()
    );
}

fn report_in(dir: &Path) -> Value {
    tool_report(&std::fs::read_to_string(dir.join("out.json")).unwrap())
}

/// `book` filled in a terminal: name typed, guests changed, the second
/// seating chosen.
fn form_in_a_terminal(sdk: Sdk, transport: Transport) {
    let Some(t) = target(sdk, transport) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let mut tui = start_tui(dir.path(), "book", &t);
    tui.wait_for("Book a table");
    tui.send("Ada");
    // guests: the default 2 cleared (Ctrl-X) and 5 typed.
    tui.send("\t");
    tui.send("\x18");
    tui.send("5");
    // seating: the second option, "terrace".
    tui.send("\t");
    tui.send("\x1b[B");
    tui.send(" ");
    tui.send("\x13");
    tui.wait_for("Review");
    tui.send("\r");
    assert_eq!(tui.finish(), 0, "{sdk:?}: stderr: {}", tui.stderr());
    assert_said_era(&tui, sdk);
    assert_eq!(
        report_in(dir.path())["received"],
        json!({"name": "Ada", "guests": 5, "seating": "terrace"})
    );
}

#[test]
fn ts_v2_form_in_a_terminal_over_stdio() {
    form_in_a_terminal(Sdk::TsV2, Transport::Stdio);
}

#[test]
fn py_mcp_form_in_a_terminal_over_stateless_http() {
    form_in_a_terminal(Sdk::PyMcpStateless, Transport::Http);
}

#[test]
fn fastmcp_form_in_a_terminal_over_http() {
    form_in_a_terminal(Sdk::FastMcp, Transport::Http);
}

/// `visit` consented in a terminal (`o`, nothing opened with
/// `--no-open`): the server received the accept.
fn url_in_a_terminal(sdk: Sdk, transport: Transport) {
    let Some(t) = target(sdk, transport) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let mut tui = start_tui(dir.path(), "visit", &t);
    tui.wait_for("Please confirm on the web page");
    tui.wait_for(CONSENT_URL);
    tui.send("o");
    tui.wait_for("Nothing was opened (--no-open)");
    tui.wait_for("[>Done<]");
    tui.send("\r");
    assert_eq!(tui.finish(), 0, "{sdk:?}: stderr: {}", tui.stderr());
    assert_said_era(&tui, sdk);
    assert_eq!(
        report_in(dir.path()),
        json!({"action": "accept", "received": null})
    );
}

#[test]
fn ts_v2_reject_url_in_a_terminal_over_http() {
    url_in_a_terminal(Sdk::TsV2Reject, Transport::Http);
}

#[test]
fn ts_v1_url_in_a_terminal_over_stdio_stays_2025() {
    url_in_a_terminal(Sdk::TsV1, Transport::Stdio);
}

/// `pair` in a terminal: both forms of the one round are shown in turn
/// ("request 1 of 2"), each answered; the server got both answers.
#[test]
fn ts_v2_two_forms_in_a_terminal_over_http() {
    let Some(t) = target(Sdk::TsV2, Transport::Http) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let mut tui = start_tui(dir.path(), "pair", &t);
    tui.wait_for("Your contact");
    tui.wait_for("1 of 2");
    tui.send("ada@example.com");
    tui.send("\x13");
    tui.wait_for("Review");
    tui.send("\r");
    tui.wait_for("Your preferences");
    tui.wait_for("2 of 2");
    // colour: the second option from the top is "green"; news: ticked.
    tui.send("\x1b[B");
    tui.send(" ");
    tui.send("\t");
    tui.send(" ");
    tui.send("\x13");
    tui.wait_for("Review");
    tui.send("\r");
    assert_eq!(tui.finish(), 0, "stderr: {}", tui.stderr());
    assert_said_era(&tui, Sdk::TsV2);
    assert_eq!(
        report_in(dir.path()),
        json!({
            "contact": {"action": "accept", "received": {"email": "ada@example.com"}},
            "prefs": {"action": "accept", "received": {"color": "green", "news": true}}
        })
    );
}
