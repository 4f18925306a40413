//! `ahp-elicit mcp`: connect to a live MCP server (MCP 2026-07-28 or
//! 2025-11-25, chosen by asking the server unless `--protocol` says), call a
//! tool (or get a prompt, or read a resource) and answer its elicitations. The session is
//! [`crate::mcp::run_session`]; this file reads the flags and builds the
//! responder.
//!
//! Output: the tool's result as one JSON document on stdout (or, when no
//! tool was called, `{"tools": [...]}`; nothing after trying the server by
//! hand at a terminal, [`crate::browse`]); notices on stderr.
//!
//! Exit codes: 0 done; 1 the tool call failed or reported `isError`, did
//! not complete (rounds), an answer was refused, or an elicitation was
//! refused as invalid (or in a mode not advertised); 2 usage, connection, timeout or I/O error; 3
//! a sign-in (OAuth) was needed and could not be made, or failed; 130 the
//! person quit (Ctrl-C twice) or SIGINT; 143 SIGTERM.

use std::path::PathBuf;

use serde_json::{Map, Value};

use crate::binding::{Action, Mode, Revision, SchemaPolicy};
use crate::log::SharedLog;
use crate::mcp::{run_session, ExtraHeaders, McpError, McpOptions, Operation, Target};
use crate::respond::sink::terminal_safe;

use super::answer::AnswerArgs;
use super::{Exit, Words};

/// Arguments of `ahp-elicit mcp`.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  ahp-elicit mcp --call trigger-elicitation-request --action decline -- npx -y @modelcontextprotocol/server-everything@2026.8.31 stdio\n  ahp-elicit mcp --action accept http://127.0.0.1:3001/mcp\n\nExit status: 0 done, 1 the tool call failed or reported isError, the server answered or asked what this client cannot take (an elicitation refused as invalid or in a mode not advertised), or an answer was refused, 2 usage, connection or I/O error, 3 the server needs a sign-in that could not be made (no --browser CMD without a terminal: run `ahp-elicit auth login URL`), was cancelled at the terminal or failed, 130 the person quit, 128+N ended by signal N.",
    mut_arg("answers", |a| a
        .value_name("FILE")
        .help("Answer elicitations from this answers file (scripted person): one answer for all, answers by event id, or rules matching server, call, mode, protocol revision, message and fields (see `ahp-elicit answers check`)")),
    mut_arg("action", |a| a.help(
        "Answer every elicitation with this action; accept submits a form as shown (its defaults filled in)"
    )),
    mut_arg("theme", |a| a.display_order(121)),
    mut_arg("log", |a| a.display_order(126).help(
        "Log requests, decisions and launches (JSON Lines) to FILE; URL queries and fragments redacted, no form values"
    )),
    mut_arg("log_values", |a| a.display_order(127)),
)]
pub struct McpArgs {
    /// The tool to call. Without it (and without --prompt or --read), at a
    /// terminal, pick tools from a list, fill in their arguments and see
    /// their results; otherwise the tools are only listed: no tool is
    /// called.
    #[arg(long, value_name = "TOOL", display_order = 1, conflicts_with_all = ["prompt", "read"])]
    pub call: Option<String>,
    /// Get this prompt (prompts/get) instead of calling a tool; --args are
    /// its arguments.
    #[arg(long, value_name = "NAME", display_order = 3, conflicts_with = "read")]
    pub prompt: Option<String>,
    /// Read this resource (resources/read) instead of calling a tool.
    #[arg(long, value_name = "URI", display_order = 4)]
    pub read: Option<String>,
    /// The tool's (or the prompt's) arguments, a JSON object (integers
    /// beyond 64 bits are sent as written).
    #[arg(long, value_name = "JSON", display_order = 2)]
    pub args: Option<String>,
    /// One argument (repeatable): NAME=VALUE, VALUE read by the property's
    /// type in the tool's inputSchema (integer, number, boolean, enum,
    /// string; an array property takes each NAME=VALUE given as an item),
    /// or NAME:=JSON for any JSON value. Put over --args (a name in both
    /// takes this value). Without --call, at a terminal, they fill the
    /// arguments form.
    #[arg(long = "arg", value_name = "NAME=VALUE", display_order = 2)]
    pub arg: Vec<String>,
    /// The MCP revision to speak: auto asks the server (server/discover,
    /// then initialize when the server is older); a revision speaks only
    /// that one. Default: the environment variable AHP_ELICIT_PROTOCOL
    /// (same values), else auto.
    #[arg(long, value_name = "REVISION", value_parser = protocol_values(), display_order = 43)]
    pub protocol: Option<String>,
    /// How many input_required rounds (MCP 2026-07-28) one request may take.
    #[arg(long, value_name = "N", default_value_t = crate::mcp::DEFAULT_MAX_ROUNDS, value_parser = clap::value_parser!(u32).range(1..=1000), display_order = 44)]
    pub max_rounds: u32,
    /// Add a header to every HTTP request, written 'Name: value'
    /// (repeatable); a value 'env:VAR' is read from the environment
    /// variable VAR. Values never appear in logs, events or messages, even
    /// quoted back by the server (shown as [redacted]).
    #[arg(long = "header", value_name = "HEADER", display_order = 45)]
    pub headers: Vec<String>,
    /// Send credential headers (Authorization, Proxy-Authorization, Cookie,
    /// or a name holding token, key, secret, auth, password, credential or
    /// session) over plain http:// to a host other than this machine;
    /// refused without it, since anyone on the path can read them.
    #[arg(long, display_order = 46)]
    pub allow_insecure_http: bool,
    /// Never start a sign-in: use (and renew) only a sign-in stored by
    /// `ahp-elicit auth login`; without one the run ends with exit 3
    /// naming that command (for CI, even with a terminal).
    #[arg(long, display_order = 47)]
    pub stored_auth_only: bool,
    /// When a sign-in is needed and this run cannot make one (no terminal,
    /// no --browser, or --stored-auth-only), wait up to DURATION for one
    /// that someone stores with `ahp-elicit auth login URL` elsewhere.
    #[arg(long, value_name = "DURATION", value_parser = super::parse_duration, display_order = 48)]
    pub wait_for_sign_in: Option<std::time::Duration>,
    /// Offer this directory or file to the server as a root (repeatable):
    /// a path or a file:// URI that exists; `roots/list` is answered with
    /// their file:// URIs and names, and the capability `roots` is
    /// declared only when one is given.
    #[arg(long = "root", value_name = "PATH|URI", display_order = 49)]
    pub roots: Vec<String>,
    /// How elicitations are answered (the flags shared with `respond`).
    #[command(flatten)]
    pub answer: AnswerArgs,
    /// Write every AHP event (requests and results) to FILE as JSON Lines,
    /// exactly as sent (URLs not redacted; the file is created 0600).
    #[arg(long, value_name = "FILE", display_order = 41)]
    pub events: Option<PathBuf>,
    /// The elicitation modes to advertise, comma-separated.
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "form,url",
        value_name = "MODES",
        value_parser = Words::<Mode>::new(),
        display_order = 42
    )]
    pub modes: Vec<Mode>,
    /// How a requestedSchema outside the closed AHP form subset is read:
    /// compatible (the default here: real servers' SDKs add titles,
    /// patterns, nullable fields...) draws it, lists the keywords it ignored
    /// and enforces the assertions it can; strict answers -32602 with the
    /// subset rule.
    #[arg(
        long,
        value_enum,
        default_value = "compatible",
        value_name = "POLICY",
        display_order = 122
    )]
    pub schema_policy: SchemaPolicy,
    /// Cancel an elicitation left unanswered this long: seconds (`120`) or a
    /// duration (`2m`, `1.5s`); finite and positive. Also bounds the wait
    /// for a browser flow after a -32042 error.
    #[arg(long, value_name = "DURATION", value_parser = super::parse_duration, allow_hyphen_values = true, display_order = 123)]
    pub timeout: Option<std::time::Duration>,
    /// How long the server may take to answer `initialize` (and
    /// `tools/list`): seconds or a duration, as for --timeout.
    #[arg(long, value_name = "DURATION", default_value = "30", value_parser = super::parse_duration, allow_hyphen_values = true, display_order = 124)]
    pub connect_timeout: std::time::Duration,
    /// How long one call (tools/call, prompts/get, resources/read) may wait
    /// for its answer: seconds or a duration, as for --timeout. The time a
    /// form or consent screen is open does not count.
    #[arg(long, value_name = "DURATION", default_value = "600", value_parser = super::parse_duration, allow_hyphen_values = true, display_order = 124)]
    pub call_timeout: std::time::Duration,
    /// Say less: no line about the revision chosen or the fallback to the
    /// older one; errors, warnings and the server's own text are still said.
    #[arg(long, short = 'q', display_order = 125)]
    pub quiet: bool,
    /// `source.adapter` of the request events (default mcp-stdio or mcp-http).
    #[arg(long, value_name = "NAME", display_order = 125)]
    pub source_adapter: Option<String>,
    /// Signing in when an HTTP server asks for it (OAuth).
    #[command(flatten)]
    pub auth: super::auth::AuthFlags,
    /// The server: `-- COMMAND [ARGS...]` (stdio) or a URL (Streamable HTTP).
    #[arg(
        value_name = "SERVER",
        trailing_var_arg = true,
        allow_hyphen_values = true
    )]
    pub server: Vec<String>,
}

/// The responder of a run with no terminal and neither `--answers` nor
/// `--action`: the call starts all the same (most calls ask nothing), and
/// an elicitation that arrives is answered `cancel`, with the reason
/// there is no one to answer (`why`, ending with what to use instead) on
/// stderr; `cancelled` counts them, and the run then exits 2.
struct NoTerminal {
    why: String,
    cancelled: std::sync::Arc<std::sync::atomic::AtomicUsize>,
}

impl crate::responder::Responder for NoTerminal {
    fn respond(
        &mut self,
        req: &crate::binding::RequestEvent,
        _: &crate::responder::Context,
    ) -> Result<crate::responder::Outcome, crate::responder::RespondError> {
        self.cancelled
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        crate::notice::say_in(
            "mcp",
            format!(
                "the server asked for input (request {}), answered cancel: {}",
                terminal_safe(&req.id),
                self.why
            ),
        );
        Ok(crate::responder::Outcome::Answer(
            crate::binding::Answer::bare(Action::Cancel),
        ))
    }
}

/// The responder `mcp` hands to the shared loop: `--log` records requests
/// and decisions, as in `respond` (the loop itself applies `--timeout`).
struct LoggingResponder {
    inner: Box<dyn crate::responder::Responder>,
    log: Option<SharedLog>,
}

impl LoggingResponder {
    fn note(&self, f: impl FnOnce(&mut crate::log::EventLog) -> Result<(), crate::log::LogError>) {
        if let Some(l) = &self.log {
            if let Err(e) = f(&mut crate::log::lock_log(l)) {
                crate::notice::say(format!("cannot write the log: {e}"));
            }
        }
    }
}

impl crate::responder::Responder for LoggingResponder {
    fn respond(
        &mut self,
        req: &crate::binding::RequestEvent,
        cx: &crate::responder::Context,
    ) -> Result<crate::responder::Outcome, crate::responder::RespondError> {
        self.note(|l| {
            l.set_current(&req.id);
            l.request_received(req)
        });
        let out = self.inner.respond(req, cx);
        match &out {
            Ok(crate::responder::Outcome::Answer(a)) => self.note(|l| l.decision(&req.id, a)),
            Ok(crate::responder::Outcome::Quit) => {
                let a = crate::binding::Answer::bare(Action::Cancel);
                self.note(|l| l.decision(&req.id, &a))
            }
            Err(_) => {}
        }
        out
    }

    fn idle(&mut self, wait: std::time::Duration) -> bool {
        self.inner.idle(wait)
    }

    fn in_lines(
        &mut self,
        job: &mut crate::responder::LinesJob<'_>,
    ) -> Result<(), crate::mcp::auth::authorizer::SignInError> {
        self.inner.in_lines(job)
    }

    fn follow_sign_ins(&mut self, sign_ins: std::sync::Arc<crate::responder::sign_in::SignIns>) {
        self.inner.follow_sign_ins(sign_ins)
    }

    fn follow_trace(&mut self, trace: std::sync::Arc<crate::responder::trace::Trace>) {
        self.inner.follow_trace(trace)
    }

    /// The screen says what it still has to say (time ran out on the last
    /// request, the requests declined without being shown) before the
    /// result is printed: the session may end before the waiting screen
    /// ever ran again.
    fn finish(&mut self) {
        self.inner.finish()
    }

    fn wait(
        &mut self,
        wait: std::time::Duration,
        shown: &crate::responder::Waiting,
    ) -> crate::responder::WaitKey {
        self.inner.wait(wait, shown)
    }

    /// `--log` records each call made while trying the server by hand
    /// (when its result is shown, or when the person cancelled it).
    fn browse(
        &mut self,
        step: &crate::browse::Step,
    ) -> Result<crate::browse::Reply, crate::responder::RespondError> {
        use crate::browse::Step;
        if let Step::Result {
            kind,
            tool,
            outcome,
            arguments,
            ..
        } = step
        {
            self.note(|l| l.called(*kind, tool, arguments, outcome))
        }
        self.inner.browse(step)
    }
}

/// The values of `--protocol` (listed by `--help` and the completions):
/// `auto` and every pinned revision; read by [`protocol_choice`].
fn protocol_values() -> clap::builder::PossibleValuesParser {
    let names = std::iter::once("auto").chain(Revision::ALL.iter().map(|r| r.as_str()));
    clap::builder::PossibleValuesParser::new(names.collect::<Vec<_>>())
}

/// The environment variable that sets the default of `--protocol`.
pub const PROTOCOL_ENV: &str = "AHP_ELICIT_PROTOCOL";

/// The revision `--protocol` asks for (a value of [`protocol_values`]) if
/// given, else [`PROTOCOL_ENV`] when set and not empty (trimmed), else
/// auto: None for `auto` (ask the server), the pinned revision otherwise.
///
/// Errors: the variable holds another value (the sentence names it and the
/// values it takes).
fn protocol_choice(flag: Option<String>, env: Option<String>) -> Result<Option<Revision>, String> {
    let Some(v) = flag.or(env.filter(|v| !v.is_empty())) else {
        return Ok(None);
    };
    match v.trim() {
        "auto" => Ok(None),
        given => Revision::parse(given).map(Some).ok_or_else(|| {
            let versions: Vec<&str> = Revision::ALL.iter().map(|r| r.as_str()).collect();
            format!(
                "{PROTOCOL_ENV}='{}': give auto, {}",
                terminal_safe(&v),
                versions.join(" or ")
            )
        }),
    }
}

/// Read one `--header 'Name: value'`: the name an HTTP token, the value
/// without control characters; `env:VAR` is read from the environment.
///
/// Errors: a sentence naming the header (never its value).
fn parse_header(
    text: &str,
    env: impl Fn(&str) -> Option<String>,
) -> Result<(String, String), String> {
    let Some((name, value)) = text.split_once(':') else {
        return Err("--header: write it as 'Name: value'".into());
    };
    let name = name.trim();
    let token = |c: char| c.is_ascii_alphanumeric() || "!#$%&'*+-.^_`|~".contains(c);
    if name.is_empty() || !name.chars().all(token) {
        return Err(format!(
            "--header: '{}' is not an HTTP header name",
            terminal_safe(name)
        ));
    }
    let value = value.trim();
    // `env:VAR` is the whole value or its last word (`Bearer env:TOKEN`);
    // an `env:` anywhere else (any case) is refused, never sent as written.
    let cut = value
        .rfind(|c: char| c.is_ascii_whitespace())
        .map_or(0, |i| i + 1);
    let (before, last) = value.split_at(cut);
    let var = last.strip_prefix("env:");
    let elsewhere = |t: &str| t.to_ascii_lowercase().contains("env:");
    if elsewhere(before) || (var.is_none() && elsewhere(last)) {
        return Err(format!(
            "--header {name}: env:VAR is read only as the whole value or its last word ('Bearer env:TOKEN'); give the rest of the value another way"
        ));
    }
    let value = match var {
        Some("") => return Err(format!("--header {name}: env: needs a variable name")),
        Some(var) => {
            let said = |what: &str| {
                format!(
                    "--header {name}: the environment variable '{}' is {what}",
                    terminal_safe(var)
                )
            };
            let read = env(var).ok_or_else(|| said("not set"))?;
            if read.trim().is_empty() {
                return Err(said("empty"));
            }
            format!("{before}{read}")
        }
        None => value.to_owned(),
    };
    if value.chars().any(|c| c.is_control() && c != '\t') || !value.is_ascii() {
        return Err(format!(
            "--header {name}: the value must be printable ASCII (no line breaks)"
        ));
    }
    Ok((name.to_owned(), value))
}

/// Whether a header carries a credential: `Authorization`,
/// `Proxy-Authorization`, `Cookie`, or a name holding `token`, `key`,
/// `secret`, `auth`, `password`, `credential` or `session` (any case:
/// `X-Api-Key`, `X-Auth-Token`, `Mcp-Session-Id`).
pub fn is_credential_header(name: &str) -> bool {
    let n = name.to_ascii_lowercase();
    n == "cookie"
        || [
            "token",
            "key",
            "secret",
            "auth",
            "password",
            "credential",
            "session",
        ]
        .iter()
        .any(|w| n.contains(w))
}

pub use crate::mcp::auth::discovery::plain_http_host;

/// Refuses credential headers (see [`is_credential_header`]) on a plain
/// `http://` URL to another host (`--allow-insecure-http` lifts it).
///
/// Errors: one line naming the header (never its value) and the host.
fn check_plain_http(url: &str, headers: &[(String, String)]) -> Result<(), String> {
    let Some(host) = plain_http_host(url) else {
        return Ok(());
    };
    match headers.iter().find(|(n, _)| is_credential_header(n)) {
        Some((name, _)) => Err(format!(
            "--header {name}: refusing to send a credential over plain http:// to {} (anyone on the way can read it); use https://, or pass --allow-insecure-http",
            terminal_safe(&host)
        )),
        None => Ok(()),
    }
}

fn usage(msg: &str) -> Exit {
    crate::notice::say_in("mcp", msg);
    Exit::Usage
}

/// The session's options from the flags.
///
/// Errors: a usage sentence (no server, no mode, `--args` not a JSON
/// object).
fn options(args: McpArgs) -> Result<McpOptions, String> {
    let target = Target::from_args(&args.server).map_err(|e| e.to_string())?;
    let modes = super::unique(&args.modes);
    if modes.is_empty() {
        return Err("--modes: give at least one of form, url".into());
    }
    let arguments = match &args.args {
        None => Map::new(),
        Some(text) => match crate::binding::exact_int::parse(text) {
            Ok(Value::Object(o)) => o,
            Ok(_) => return Err("--args must be a JSON object".into()),
            Err(e) => return Err(format!("--args is not JSON: {e}")),
        },
    };
    let arg_values = args
        .arg
        .iter()
        .map(|a| crate::binding::tool_args::ArgValue::parse(a))
        .collect::<Result<Vec<_>, _>>()?;
    let interactive = args.answer.interactive();
    let mut headers = Vec::new();
    for h in &args.headers {
        let (name, value) = parse_header(h, |v| {
            // A browser this run starts never inherits it.
            crate::launcher::hide_from_children(v);
            std::env::var(v).ok()
        })?;
        // Never shown again, even when a server quotes it back.
        crate::redact::register_secret(&value);
        headers.push((name, value));
    }
    let http = matches!(target, Target::Http { .. });
    if !headers.is_empty() && !http {
        return Err("--header applies to a server URL (Streamable HTTP), not to a command".into());
    }
    if let Target::Http { url } = &target {
        if !args.allow_insecure_http {
            check_plain_http(url, &headers)?;
        }
    }
    if args.auth.any() && !http {
        return Err("the sign-in flags apply to a server URL (Streamable HTTP), not to a command: a stdio server takes its credentials from its environment".into());
    }
    // A token brought with --header: OAuth is off for the run.
    let brought = headers
        .iter()
        .any(|(k, _): &(String, String)| k.eq_ignore_ascii_case("authorization"));
    let auth = if http && !brought {
        let stderr_terminal = std::io::IsTerminal::is_terminal(&std::io::stderr());
        let open = match &args.answer.browser {
            _ if args.stored_auth_only => super::auth::Open::Not(
                "--stored-auth-only: this run uses only a sign-in stored by \"ahp-elicit auth login\"",
            ),
            // Nobody reads the warnings of a scripted run: the sign-in URL
            // is refused as a URL elicitation would be.
            Some(cmd) => super::auth::Open::Command {
                cmd,
                unattended: !interactive,
            },
            // The answering thread holds the terminal: the sign-in is
            // asked there, between requests.
            None if interactive && super::auth::at_terminal() => super::auth::Open::Terminal {
                desk: true,
                copy: args.answer.no_open,
            },
            None if stderr_terminal => super::auth::Open::Not(
                "with --answers or --action the sign-in is not asked at the terminal",
            ),
            None => super::auth::Open::Not("this run has no terminal to sign in on"),
        };
        let url = match &target {
            Target::Http { url } => Some(url.as_str()),
            _ => None,
        };
        let mut o = super::auth::options(&args.auth, open, url)?;
        // The sign-in's requests are bounded as the handshake is (whose
        // clock stops meanwhile).
        o.request_timeout = args.connect_timeout;
        o.request_timeout_flag = Some("--connect-timeout");
        o.allow_insecure_http = args.allow_insecure_http;
        o.wait_for_sign_in = args.wait_for_sign_in;
        o.offer_browser = !args.stored_auth_only;
        // A grant signs in by itself: neither refusing a sign-in nor
        // waiting for another process's goes with it.
        if o.unattended.is_some() && (args.stored_auth_only || args.wait_for_sign_in.is_some()) {
            return Err("--grant signs in without a person: not with --stored-auth-only or --wait-for-sign-in".into());
        }
        // Another process writes the store that is waited on.
        if args.wait_for_sign_in.is_some() && args.auth.auth_store.as_deref() == Some("memory") {
            return Err("--wait-for-sign-in waits for a sign-in another process stores: not with --auth-store memory".into());
        }
        Some(o)
    } else {
        None
    };
    let operation = match (args.call, args.prompt, args.read) {
        (Some(t), _, _) => Operation::Tool(t),
        (_, Some(p), _) => Operation::Prompt(p),
        (_, _, Some(u)) => Operation::Read(u),
        _ => Operation::List,
    };
    // Arguments with nothing to give them to are a mistake, not to be
    // dropped without a word.
    if args.args.is_some() && matches!(operation, Operation::List | Operation::Read(_)) {
        return Err("--args gives the arguments of --call TOOL or --prompt NAME: name one".into());
    }
    // Without --call they fill the forms of the tools picked at a terminal.
    if !arg_values.is_empty()
        && (matches!(operation, Operation::Read(_))
            || (operation == Operation::List && !interactive))
    {
        return Err("--arg gives an argument of --call TOOL or --prompt NAME (or, at a terminal, of the tools picked): name one".into());
    }
    let mut roots: Vec<crate::mcp::roots::Root> = Vec::new();
    for r in &args.roots {
        let root = crate::mcp::roots::Root::parse(r).map_err(|e| e.to_string())?;
        if !roots.contains(&root) {
            roots.push(root);
        }
    }
    // Someone can write a model's reply: the person at the terminal, or
    // an answers file with a rule for sampling (`--action` has none).
    let sampling = match &args.answer.answers {
        None => interactive,
        Some(path) => crate::scripted::Answers::from_file(path).is_ok_and(|a| a.covers_sampling()),
    };
    Ok(McpOptions {
        target,
        operation,
        arguments,
        arg_values,
        // The full screen shows it; plain lines say it as it comes.
        stderr_on_screen: interactive && !crate::plain::chosen(args.answer.plain),
        protocol: protocol_choice(args.protocol, std::env::var(PROTOCOL_ENV).ok())?,
        max_rounds: args.max_rounds,
        headers: ExtraHeaders(headers),
        modes,
        events: args.events,
        source_adapter: args.source_adapter,
        schema_policy: args.schema_policy,
        timeout: args.timeout,
        connect_timeout: args.connect_timeout,
        call_timeout: args.call_timeout,
        completion_wait: (!interactive).then_some(crate::mcp::SCRIPTED_COMPLETION_WAIT),
        notices: crate::notice::Notices::stderr(),
        show_refusals: interactive,
        // A script takes each request the moment it is ready.
        waiting_screen: interactive,
        auth,
        quiet: args.quiet,
        sampling,
        roots,
    })
}

/// Run the command; returns the exit status.
pub fn run(args: McpArgs) -> Exit {
    let answer = args.answer.clone();
    let mut opts = match options(args) {
        Ok(o) => o,
        Err(e) => return usage(&e),
    };
    let log = match answer.open_log() {
        Ok(l) => l,
        Err(e) => return usage(&format!("cannot open the log: {e}")),
    };
    // A sign-in's launches of the browser are logged too.
    if let (Some(a), Some(l)) = (opts.auth.as_mut(), &log) {
        a.record_launch = Some(crate::log::sign_in_launches(l.clone()));
    }
    // Declared before the responder: held messages are written after the
    // terminal is given back.
    let hold = answer.hold_stderr();
    let cancelled = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let mut outcome = match session(&mut opts, &answer, &log, &cancelled) {
        Ok(o) => o,
        Err(e) => return usage(&e),
    };
    // At a terminal, a tool that asks the 2025-11-25 way may be run again
    // in that revision, if the person says so.
    if answer.interactive()
        && cancelled_is_zero(&cancelled)
        && older_way(&outcome)
        && run_again(crate::plain::chosen(answer.plain))
    {
        crate::notice::say_in(
            "mcp",
            format!("running the call again over MCP {}", Revision::V2025_11_25),
        );
        opts.protocol = Some(Revision::V2025_11_25);
        outcome = match session(&mut opts, &answer, &log, &cancelled) {
            Ok(o) => o,
            Err(e) => return usage(&e),
        };
    }
    // What was held while the screen was up is said before the result.
    drop(hold);
    let unanswered = cancelled.load(std::sync::atomic::Ordering::Relaxed);
    match outcome {
        Ok(report) if unanswered > 0 => {
            let exit = report_result(&report);
            crate::notice::say_in(
                "mcp",
                format!("{unanswered} elicitation(s) answered cancel: no terminal to answer on"),
            );
            match exit {
                Exit::Ok | Exit::Invalid => Exit::Usage,
                other => other,
            }
        }
        Ok(report) => report_result(&report),
        Err(e) => exit_for(e),
    }
}

fn cancelled_is_zero(c: &std::sync::atomic::AtomicUsize) -> bool {
    c.load(std::sync::atomic::Ordering::Relaxed) == 0
}

/// One session with the responder the flags choose (the same as
/// `respond`'s: scripted with --answers/--action, else the terminal; with
/// neither and no terminal, [`NoTerminal`], counting into `cancelled`).
///
/// Errors: the responder cannot be made (a sentence for the person).
fn session(
    opts: &mut McpOptions,
    answer: &AnswerArgs,
    log: &Option<SharedLog>,
    cancelled: &std::sync::Arc<std::sync::atomic::AtomicUsize>,
) -> Result<Result<crate::mcp::SessionReport, McpError>, String> {
    let inner = match answer.responder(log.clone()) {
        Ok(r) => r,
        // No terminal and no script: the call starts all the same (most
        // ask nothing); an elicitation that comes is answered cancel.
        Err(e)
            if answer.interactive()
                && super::answer::check_theme(answer.theme.as_deref()).is_ok() =>
        {
            opts.show_refusals = false;
            opts.completion_wait = Some(crate::mcp::SCRIPTED_COMPLETION_WAIT);
            opts.stderr_on_screen = false;
            // Nobody can write a model's reply.
            opts.sampling = false;
            Box::new(NoTerminal {
                why: e,
                cancelled: cancelled.clone(),
            })
        }
        Err(e) => return Err(e),
    };
    let mut responder = LoggingResponder {
        inner,
        log: log.clone(),
    };
    let outcome = run_session(opts, &mut responder);
    // The terminal is given back before the tool result is printed (stdout
    // may be that terminal).
    drop(responder);
    Ok(outcome)
}

/// Whether the session ended because the tool asks the 2025-11-25 way (a
/// -32600, or an `isError` result saying it could not push its question),
/// and the person was not already told so on the list's result screen (a
/// session of the list is not run again).
fn older_way(outcome: &Result<crate::mcp::SessionReport, McpError>) -> bool {
    match outcome {
        Ok(report) => report.older_way && !report.browsed,
        Err(McpError::Incomplete(crate::mcp::Incomplete::OlderWayOnly { .. })) => true,
        Err(_) => false,
    }
}

/// Ask the person on the terminal whether to run the call again over MCP
/// 2025-11-25 (the tool may run twice): the key `y`, with no Enter (in
/// plain lines, `y` then Enter); false without a terminal or on anything
/// else.
fn run_again(plain: bool) -> bool {
    let Ok(mut tty) = crate::plain::TtyIo::open() else {
        return false;
    };
    use crate::plain::LineIo;
    let legacy = Revision::V2025_11_25;
    let modern = Revision::V2026_07_28;
    let said = tty.say(&format!(
        "The tool asks its questions the MCP {legacy} way, which this MCP {modern} session cannot carry."
    ));
    if said.is_err() {
        return false;
    }
    let question = format!(
        "Run the call again over MCP {legacy}? The tool may run twice (it has run once already)."
    );
    if plain {
        let prompt =
            format!("{question} Type y and press Enter to run it again; anything else does not: ");
        return matches!(
            tty.ask(&prompt, None, &|| false),
            Ok(crate::plain::Reply::Line(l)) if matches!(l.trim().to_ascii_lowercase().as_str(), "y" | "yes")
        );
    }
    let prompt = format!("{question} Press y to run it again, any other key not to: ");
    matches!(
        tty.ask_key(&prompt, crate::tui::FORM_GUARD),
        Ok(Some(b'y' | b'Y'))
    )
}

/// The exit status of a failed session, said on stderr first.
fn exit_for(e: McpError) -> Exit {
    // Errors may quote the server (an HTTP body): sanitized.
    crate::notice::say_in("mcp", crate::safe_text::display(&crate::notice::chain(&e)));
    if is_sign_in_failure(&e) {
        return Exit::SignIn;
    }
    match e {
        // The handshake refused: the server cannot be spoken to.
        McpError::Rpc { ref method, .. } if is_handshake(method) => Exit::Usage,
        McpError::Rpc { .. } | McpError::Incomplete(_) | McpError::Unreadable { .. } => {
            Exit::Invalid
        }
        // A signal also ends the screen as a quit: 128 + it wins.
        McpError::Quit => match crate::signals::received() {
            Some(sig) => Exit::Signal(sig),
            None => Exit::Interrupted,
        },
        McpError::Interrupted(sig) => Exit::Signal(sig),
        _ => Exit::Usage,
    }
}

/// Whether signing in was needed and failed (exit 3).
fn is_sign_in_failure(e: &McpError) -> bool {
    match e {
        McpError::Delivery {
            source: crate::mcp::transport::TransportError::Auth(_),
            ..
        } => true,
        McpError::Waiting { source, .. } => is_sign_in_failure(source),
        McpError::SignIn(_) => true,
        _ => false,
    }
}

/// Whether `method` is one of the handshake's (`initialize`,
/// `server/discover`): a refusal there means the server cannot be spoken
/// to in the revision asked, exit 2 like a server that cannot be reached.
fn is_handshake(method: &str) -> bool {
    matches!(method, "initialize" | "server/discover")
}

/// Print the tool's result on stdout and say on stderr what went wrong:
/// 1 when the tool reported `isError`, an elicitation got no valid answer,
/// or one was refused as invalid (or in a mode not advertised).
fn report_result(report: &crate::mcp::SessionReport) -> Exit {
    // The person tried the server by hand and left the list: the results
    // were on the screen, nothing is printed.
    if report.browsed {
        return Exit::Ok;
    }
    match serde_json::to_string_pretty(&report.result) {
        Ok(s) => {
            if let Err(exit) = super::out_text(&format!("{}\n", terminal_safe(&s))) {
                return exit;
            }
        }
        Err(e) => return usage(&format!("printing the result: {e}")),
    }
    let tool_error = report.result.get("isError") == Some(&Value::Bool(true));
    if tool_error {
        crate::notice::say_in("mcp", "the tool reported an error (isError: true)");
    }
    if report.older_way {
        crate::notice::say_in("mcp", crate::mcp::older_way_hint());
    }
    if !report.refused.is_empty() {
        crate::notice::say_in(
            "mcp",
            format!(
                "{} elicitation(s) got no valid answer",
                report.refused.len()
            ),
        );
    }
    if !report.rejected.is_empty() {
        crate::notice::say_in(
            "mcp",
            format!(
                "{} elicitation(s) refused without an answer (invalid params, or a mode not advertised)",
                report.rejected.len()
            ),
        );
    }
    if tool_error || !report.refused.is_empty() || !report.rejected.is_empty() {
        Exit::Invalid
    } else {
        Exit::Ok
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_flag_wins_over_the_environment_which_wins_over_auto() {
        let v2025 = Some(Revision::V2025_11_25.as_str().to_owned());
        let v2026 = Some(Revision::V2026_07_28.as_str().to_owned());
        assert_eq!(
            protocol_choice(v2026, v2025.clone()),
            Ok(Some(Revision::V2026_07_28))
        );
        assert_eq!(
            protocol_choice(Some("auto".into()), v2025.clone()),
            Ok(None)
        );
        assert_eq!(
            protocol_choice(None, v2025),
            Ok(Some(Revision::V2025_11_25))
        );
        assert_eq!(
            protocol_choice(None, Some(" 2026-07-28 ".into())),
            Ok(Some(Revision::V2026_07_28))
        );
        assert_eq!(protocol_choice(None, Some("auto".into())), Ok(None));
        assert_eq!(protocol_choice(None, Some(String::new())), Ok(None));
        assert_eq!(protocol_choice(None, None), Ok(None));
        assert_eq!(
            protocol_choice(None, Some("2024".into())),
            Err("AHP_ELICIT_PROTOCOL='2024': give auto, 2025-11-25 or 2026-07-28".into())
        );
    }

    #[test]
    fn reads_headers_and_never_quotes_their_values() {
        let env = |v: &str| (v == "TOKEN").then(|| "s3cret".to_owned());
        assert_eq!(
            parse_header("Authorization: Bearer abc", env).unwrap(),
            ("Authorization".into(), "Bearer abc".into())
        );
        assert_eq!(
            parse_header("X-Key: env:TOKEN", env).unwrap(),
            ("X-Key".into(), "s3cret".into())
        );
        // The last word of a value is read too (`Bearer env:TOKEN`), and
        // never sent as written.
        assert_eq!(
            parse_header("Authorization: Bearer env:TOKEN", env).unwrap(),
            ("Authorization".into(), "Bearer s3cret".into())
        );
        assert_eq!(
            parse_header("Authorization: Bearer env:NOPE", env).unwrap_err(),
            "--header Authorization: the environment variable 'NOPE' is not set"
        );
        for written in [
            "X-Key: env:TOKEN extra",
            "Cookie: a=env:TOKEN",
            "X-Key: ENV:TOKEN",
            "X-Key: prefix Env:TOKEN",
        ] {
            let name = written.split(':').next().unwrap();
            assert_eq!(
                parse_header(written, env).unwrap_err(),
                format!("--header {name}: env:VAR is read only as the whole value or its last word ('Bearer env:TOKEN'); give the rest of the value another way"),
                "{written}"
            );
        }
        // A tab before the last word is a word break too.
        assert_eq!(
            parse_header("Authorization: Bearer\tenv:TOKEN", env).unwrap(),
            ("Authorization".into(), "Bearer\ts3cret".into())
        );
        let e = parse_header("X-Key: env:NOPE", env).unwrap_err();
        assert_eq!(
            e,
            "--header X-Key: the environment variable 'NOPE' is not set"
        );
        // An empty variable is said empty; `env:` alone names none.
        let empty = |v: &str| (v == "EMPTYV").then(String::new);
        assert_eq!(
            parse_header("Authorization: Bearer env:EMPTYV", empty).unwrap_err(),
            "--header Authorization: the environment variable 'EMPTYV' is empty"
        );
        assert_eq!(
            parse_header("X-Key: env:", env).unwrap_err(),
            "--header X-Key: env: needs a variable name"
        );
        let e = parse_header("X-Key: a\u{7}secret", env).unwrap_err();
        assert!(!e.contains("secret"), "{e}");
        assert!(parse_header("no colon", env).is_err());
        assert!(parse_header("Bad Name: v", env).is_err());
    }

    #[test]
    fn credential_headers_are_named_by_their_names() {
        for n in [
            "Authorization",
            "proxy-authorization",
            "Cookie",
            "X-Api-Key",
            "X-Auth-Token",
            "Private-Token",
            "X-Client-Secret",
            "Mcp-Session-Id",
        ] {
            assert!(is_credential_header(n), "{n}");
        }
        for n in ["Accept-Language", "X-Trace", "User-Agent", "Mcp-Param-City"] {
            assert!(!is_credential_header(n), "{n}");
        }
    }

    #[test]
    fn plain_http_to_another_host_is_told_apart_from_loopback() {
        assert_eq!(
            plain_http_host("http://mcp.example.com/mcp").as_deref(),
            Some("mcp.example.com")
        );
        assert_eq!(
            plain_http_host("http://10.0.0.5:8080/mcp").as_deref(),
            Some("10.0.0.5")
        );
        for url in [
            "https://mcp.example.com/mcp",
            "http://127.0.0.1:3000/mcp",
            "http://127.8.0.1/mcp",
            "http://localhost:3000/mcp",
            "http://api.localhost/mcp",
            "http://[::1]:3000/mcp",
        ] {
            assert_eq!(plain_http_host(url), None, "{url}");
        }
        let h = vec![("Authorization".to_owned(), "Bearer TOPSECRET".to_owned())];
        let e = check_plain_http("http://mcp.example.com/mcp", &h).unwrap_err();
        assert_eq!(e, "--header Authorization: refusing to send a credential over plain http:// to mcp.example.com (anyone on the way can read it); use https://, or pass --allow-insecure-http");
        assert!(check_plain_http("https://mcp.example.com/mcp", &h).is_ok());
        let plain = vec![("X-Trace".to_owned(), "1".to_owned())];
        assert!(check_plain_http("http://mcp.example.com/mcp", &plain).is_ok());
    }

    /// Counts the calls of `finish` it gets.
    struct Finishes(std::rc::Rc<std::cell::Cell<u32>>);

    impl crate::responder::Responder for Finishes {
        fn respond(
            &mut self,
            _: &crate::binding::RequestEvent,
            _: &crate::responder::Context,
        ) -> Result<crate::responder::Outcome, crate::responder::RespondError> {
            Err(crate::responder::RespondError::Unavailable(
                "not asked".into(),
            ))
        }

        fn finish(&mut self) {
            self.0.set(self.0.get() + 1);
        }
    }

    /// The session's end reaches the screen: what it still has to say (time
    /// ran out on the last request) is shown even when the session ended
    /// before the waiting screen ran again.
    #[test]
    fn the_end_of_the_session_reaches_the_screen() {
        let calls = std::rc::Rc::new(std::cell::Cell::new(0));
        let mut s = LoggingResponder {
            inner: Box::new(Finishes(calls.clone())),
            log: None,
        };
        crate::responder::Responder::finish(&mut s);
        assert_eq!(calls.get(), 1);
    }
}
