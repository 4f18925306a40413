//! `ahp-elicit mcp` against the real reference server
//! `@modelcontextprotocol/server-everything`, over stdio
//! and Streamable HTTP. Needs node and the packages that
//! `.ci/mcp-setup.sh` installs into `.ci/mcp/node_modules`; without them
//! these tests fail and say so.

use std::path::Path;
use std::process::{Command, Stdio};

use ahp_elicit::binding::{Action, Answer, RequestBody, RequestEvent};
use ahp_elicit::mcp::{run_session, McpOptions, Operation, Target};
use ahp_elicit::responder::{Context, Outcome, RespondError, Responder};
use serde_json::{json, Map, Value};

use crate::common::sdk::{await_line, mcp_in, HttpServer};

/// The server's launcher script; panics with the fix when it is missing.
fn everything() -> String {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join(".ci/mcp/node_modules/@modelcontextprotocol/server-everything/dist/index.js");
    assert!(
        p.is_file(),
        "{} is missing: run .ci/mcp-setup.sh (it installs the pinned MCP test servers; CI runs it)",
        p.display()
    );
    p.to_string_lossy().into_owned()
}

/// A finished `ahp-elicit mcp` run whose stdout is the tool result.
struct Run {
    code: i32,
    result: Value,
    stderr: String,
    events: Vec<Value>,
}

/// Run `ahp-elicit mcp --events FILE ARGS` in a temporary directory; its
/// stdout must be JSON.
fn cli(args: &[&str]) -> Run {
    let dir = tempfile::tempdir().unwrap();
    let r = mcp_in(dir.path(), args);
    Run {
        code: r.code,
        result: r.json(),
        stderr: r.stderr,
        events: r.events,
    }
}

fn stdio_cli(extra: &[&str]) -> Run {
    let server = everything();
    let mut args = extra.to_vec();
    args.extend(["--", "node", server.as_str(), "stdio"]);
    cli(&args)
}

/// All text parts of a tool result, joined.
fn text_of(result: &Value) -> String {
    result["content"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|c| c["text"].as_str())
                .collect::<Vec<_>>()
                .join("\n")
        })
        .unwrap_or_default()
}

const SERVER_NAME: &str = "mcp-servers/everything";

#[test]
fn decline_reaches_the_tool() {
    let r = stdio_cli(&[
        "--call",
        "trigger-elicitation-request",
        "--action",
        "decline",
    ]);
    assert_eq!(r.code, 0, "stderr: {}", r.stderr);
    let text = text_of(&r.result);
    assert!(text.contains("User declined"), "{text}");
    assert!(text.contains("\"action\": \"decline\""), "{text}");
    assert_eq!(r.events.len(), 2);
    let req = &r.events[0];
    assert_eq!(req["source"]["adapter"], "mcp-stdio");
    assert_eq!(req["payload"]["elicitation"]["server"]["name"], SERVER_NAME);
    assert_eq!(req["payload"]["elicitation"]["mode"], "form");
    assert_eq!(r.events[1]["parentEventId"], req["id"]);
    assert_eq!(r.events[1]["payload"]["elicitation"]["action"], "decline");
}

#[test]
fn cancel_reaches_the_tool() {
    let r = stdio_cli(&[
        "--call",
        "trigger-elicitation-request",
        "--action",
        "cancel",
    ]);
    assert_eq!(r.code, 0, "stderr: {}", r.stderr);
    let text = text_of(&r.result);
    assert!(text.contains("User cancelled"), "{text}");
    assert_eq!(r.events.len(), 2);
    assert_eq!(r.events[1]["payload"]["elicitation"]["action"], "cancel");
}

#[test]
fn accept_as_shown_is_refused_when_a_required_field_is_empty() {
    // The form's required "name" has no default: submitting the form as
    // shown is not a valid answer, so no result is sent (-32603) and the
    // command exits 1.
    let r = stdio_cli(&[
        "--call",
        "trigger-elicitation-request",
        "--action",
        "accept",
    ]);
    assert_eq!(r.code, 1, "stderr: {}", r.stderr);
    let text = text_of(&r.result);
    assert_eq!(r.result["isError"], true);
    // The server is told the answer was refused, not why: the reasons
    // stay on stderr (they may quote a refused value).
    let id = r.events[0]["id"].as_str().expect("request id");
    assert!(
        text.contains("-32603")
            && text.contains(&format!(
                "answer refused: request {id}: the client has no answer it can send (why is said to the person only)"
            )),
        "{text}"
    );
    assert!(!text.contains("'name'"), "{text}");
    assert!(
        r.stderr
            .contains(&format!("answer refused: request {id}: 'name' required")),
        "{}",
        r.stderr
    );
    assert_eq!(r.events.len(), 1, "a request event and no result");
    // docs/mcp.md quotes both.
    let doc = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/mcp.md"))
        .expect("docs/mcp.md");
    assert!(
        doc.contains("`answer refused: request ID: 'name'\nrequired`")
            && doc
                .contains("the client has no answer it can send (why is said to the person only)"),
        "docs/mcp.md quotes the refusal"
    );
}

/// A person who fills some fields and keeps the shown defaults of the rest.
struct Person {
    fill: Map<String, Value>,
    seen: Vec<RequestEvent>,
}

impl Responder for Person {
    fn respond(&mut self, req: &RequestEvent, _cx: &Context) -> Result<Outcome, RespondError> {
        self.seen.push(req.clone());
        let Some(RequestBody::Form(form)) = req.view.request().map(|r| &r.body) else {
            return Ok(Outcome::Answer(Answer::bare(Action::Accept)));
        };
        let mut content = Map::new();
        for f in &form.fields {
            if let Some(v) = self
                .fill
                .get(&f.name)
                .cloned()
                .or_else(|| f.default_value())
            {
                content.insert(f.name.clone(), v);
            }
        }
        Ok(Outcome::Answer(Answer {
            action: Action::Accept,
            content: Some(content),
        }))
    }
}

fn person() -> Person {
    let fill = json!({"name": "Ada Lovelace", "check": true, "email": "ada@example.com"});
    Person {
        fill: fill.as_object().unwrap().clone(),
        seen: Vec::new(),
    }
}

fn accept_opts(target: Target) -> McpOptions {
    let mut o = McpOptions::new(target);
    o.operation = Operation::Tool("trigger-elicitation-request".into());
    o.modes = vec![ahp_elicit::binding::Mode::Form];
    o
}

fn assert_answers_reflected(result: &Value) {
    let text = text_of(result);
    for line in [
        "- Name: Ada Lovelace",
        "- Agreed to terms: true",
        "- Email: ada@example.com",
        "- Favorite Integer: 42",
        "- Favorite Number: 3.14",
    ] {
        assert!(text.contains(line), "missing {line:?} in {text}");
    }
}

#[test]
fn accepted_answers_reach_the_tool_over_stdio() {
    let mut p = person();
    let target = Target::Stdio {
        program: "node".into(),
        args: vec![everything(), "stdio".into()],
    };
    let report = run_session(&accept_opts(target), &mut p).unwrap();
    assert_eq!(report.server.name, SERVER_NAME);
    assert_eq!(report.answered, 1);
    assert!(report.refused.is_empty() && report.rejected.is_empty());
    assert_answers_reflected(&report.result);
    // The whole form of the real server passed the binding: every field kind.
    let RequestBody::Form(form) = &p.seen[0].view.request().unwrap().body else {
        panic!("a form")
    };
    assert_eq!(form.fields.len(), 13);
    assert_eq!(p.seen[0].adapter, "mcp-stdio");
}

#[test]
fn url_mode_is_offered_only_when_advertised() {
    let args = r#"{"url":"https://example.com/consent","elicitationId":"el-7"}"#;
    let r = stdio_cli(&[
        "--call",
        "trigger-url-elicitation",
        "--args",
        args,
        "--action",
        "accept",
    ]);
    assert_eq!(r.code, 0, "stderr: {}", r.stderr);
    let text = text_of(&r.result);
    assert!(
        text.contains("completed the URL elicitation flow"),
        "{text}"
    );
    assert!(text.contains("Elicitation ID: el-7"), "{text}");
    assert_eq!(r.events.len(), 2);
    assert_eq!(r.events[0]["payload"]["elicitation"]["mode"], "url");
    // The error path: -32042 carries a URL elicitation; accepted, the call
    // is retried and goes through.
    let args = r#"{"url":"https://example.com/consent","errorPath":true}"#;
    let r = stdio_cli(&[
        "--call",
        "trigger-url-elicitation",
        "--args",
        args,
        "--action",
        "accept",
    ]);
    assert_eq!(r.code, 0, "stderr: {}", r.stderr);
    assert!(text_of(&r.result).contains("completed the URL elicitation flow"));
    assert!(r.stderr.contains("error -32042"), "{}", r.stderr);
    assert_eq!(r.events.len(), 4, "prerequisite and request path");
    // With form only, the server does not register its URL tool.
    let r = stdio_cli(&["--modes", "form", "--action", "cancel"]);
    let names: Vec<String> = r.result["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_owned())
        .collect();
    assert!(
        names.iter().any(|n| n == "trigger-elicitation-request"),
        "{names:?}"
    );
    assert!(
        !names.iter().any(|n| n == "trigger-url-elicitation"),
        "{names:?}"
    );
}

/// The server in Streamable HTTP mode on a free local port; killed on drop.
fn start_http() -> HttpServer {
    let script = everything();
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let mut child = Command::new("node")
        .arg(&script)
        .arg("streamableHttp")
        .env("PORT", port.to_string())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let err = child.stderr.take().unwrap();
    await_line(
        err,
        "listening on port",
        &format!("the everything server on port {port}"),
    );
    HttpServer::of(child, format!("http://127.0.0.1:{port}/mcp"))
}

#[test]
fn accepted_answers_reach_the_tool_over_streamable_http() {
    let srv = start_http();
    let mut p = person();
    let report = run_session(
        &accept_opts(Target::Http {
            url: srv.url.clone(),
        }),
        &mut p,
    )
    .unwrap();
    assert_eq!(report.server.name, SERVER_NAME);
    assert_eq!(report.answered, 1);
    assert_answers_reflected(&report.result);
    assert_eq!(p.seen[0].adapter, "mcp-http");
    // And the command line over HTTP: decline.
    let r = cli(&[
        "--call",
        "trigger-elicitation-request",
        "--action",
        "decline",
        &srv.url,
    ]);
    assert_eq!(r.code, 0, "stderr: {}", r.stderr);
    assert!(text_of(&r.result).contains("User declined"));
    assert_eq!(r.events[0]["source"]["adapter"], "mcp-http");
}
