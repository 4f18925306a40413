//! `mcp --call TOOL --arg NAME=VALUE`: each value read by the property's
//! type in the tool's inputSchema, refused with the schema's reason when it
//! does not fit, and integers beyond 64 bits sent as written (with `--arg`
//! and `--args` alike), against tests/servers/echo_args.py, which echoes
//! the arguments as Python read them (integers exactly, floats as floats).

use serde_json::{json, Value};

use crate::common::root;
use crate::common::sdk::{mcp_in, McpRun};

fn echo(flags: &[&str]) -> McpRun {
    let dir = tempfile::tempdir().expect("tempdir");
    let server = root().join("tests/servers/echo_args.py");
    let server = server.to_str().expect("utf8 path");
    let mut args = vec![
        "--protocol",
        "2025-11-25",
        "--action",
        "decline",
        "--call",
        "echo",
    ];
    args.extend(flags);
    args.extend(["--", "python3", server]);
    mcp_in(dir.path(), args)
}

/// The arguments as the server read them: the text it wrote back.
fn received(r: &McpRun) -> String {
    assert_eq!(r.code, 0, "stderr: {}", r.stderr);
    r.json()["content"][0]["text"]
        .as_str()
        .expect("text")
        .to_owned()
}

#[test]
fn each_arg_is_sent_as_its_schema_type() {
    let r = echo(&[
        "--arg",
        "name=007",
        "--arg",
        "times=3",
        "--arg",
        "ratio=0.5",
        "--arg",
        "loud=true",
        "--arg",
        "color=green",
        "--arg",
        "tags=a",
        "--arg",
        "tags=b",
    ]);
    let got: Value = serde_json::from_str(&received(&r)).expect("json");
    assert_eq!(
        got,
        json!({"name": "007", "times": 3, "ratio": 0.5, "loud": true, "color": "green", "tags": ["a", "b"]})
    );
}

#[test]
fn integers_beyond_64_bits_are_sent_as_written() {
    let r = echo(&["--arg", "name=x", "--arg", "big=18446744073709551617"]);
    assert_eq!(
        received(&r),
        r#"{"name": "x", "big": 18446744073709551617}"#
    );
    let r = echo(&[
        "--args",
        r#"{"name": "x", "big": -170141183460469231731687303715884105729}"#,
    ]);
    assert_eq!(
        received(&r),
        r#"{"name": "x", "big": -170141183460469231731687303715884105729}"#
    );
}

#[test]
fn arg_is_put_over_args() {
    let r = echo(&[
        "--args",
        r#"{"name": "a", "times": 1}"#,
        "--arg",
        "times:=2",
    ]);
    assert_eq!(received(&r), r#"{"name": "a", "times": 2}"#);
}

#[test]
fn a_value_that_does_not_fit_is_refused_naming_the_argument() {
    let r = echo(&["--arg", "name=x", "--arg", "times=two"]);
    r.assert_said(2, r#"--arg times: "two" is not of type "integer""#);
    let r = echo(&["--arg", "name=x", "--arg", "times=0"]);
    r.assert_said(2, "--arg times: 0 is less than the minimum of 1");
    let r = echo(&["--arg", "name=x", "--arg", "color=blue"]);
    r.assert_said(2, r#"--arg color: "blue" is not one of"#);
    let r = echo(&["--arg", "nme=x"]);
    r.assert_said(
        2,
        "--arg nme: the tool's inputSchema has no such property (it has: name, times",
    );
    assert_eq!(r.stdout, "", "nothing is called");
    let r = echo(&["--arg", "name"]);
    r.assert_said(2, "--arg 'name': write NAME=VALUE, or NAME:=JSON");
}

/// At a terminal without `--call`, the `--arg` values that fit a tool's
/// inputSchema fill its arguments form when it is picked; one that does
/// not fit is left out.
#[cfg(unix)]
#[test]
fn at_a_terminal_arg_values_fill_the_arguments_form() {
    use crate::common::pty::Tui;
    let dir = tempfile::tempdir().expect("tempdir");
    let server = root().join("tests/servers/echo_args.py");
    let args = format!(
        "mcp --protocol 2025-11-25 --arg name=Ada --arg times=3 --arg loud=maybe --arg nmae=Bo -- python3 '{}'",
        server.display()
    );
    let out = dir.path().join("out.json");
    // The form leaves `tags` out (an array of free strings): the whole
    // arguments then go through the editor, kept as they are.
    let envs = [("VISUAL", "true".to_owned())];
    let mut t = Tui::start_env(dir.path(), &out, 100, 40, &args, &envs);
    t.wait_for("1 of 1 shown");
    // A misspelled name no form takes is said on the list.
    t.wait_for("--arg nmae: no tool or prompt here declares it; left out of every form");
    t.press("\r", "Arguments for tools/call echo");
    t.wait_for("Ada");
    t.submit();
    t.wait_for("Result of the tool 'echo'");
    t.wait_for(r#"{"name": "Ada", "times": 3"#);
    assert!(!t.shows("maybe"), "{}", t.screen());
    t.press("q", "");
    assert_eq!(t.finish(), 0);
}
