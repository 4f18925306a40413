//! Messages a person understands, from the command line as typed: errors
//! name the path they are about and say "no such file"; an unknown theme is
//! refused in every mode; `validate` names the input file and suggests the
//! nearest event type for a typo.

use crate::common;

fn stream() -> String {
    common::examples_dir()
        .join("stream.requests.jsonl")
        .display()
        .to_string()
}

fn stderr(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn output_into_a_missing_folder_names_the_path() {
    let dir = tempfile::tempdir().expect("tempdir");
    let target = dir.path().join("no-such-folder/results.jsonl");
    let target = target.display().to_string();
    let args = [
        "respond",
        "--action",
        "cancel",
        "--output",
        &target,
        &stream(),
    ];
    let r = common::run(args, b"");
    assert_eq!(r.code, Some(2));
    let want = format!("cannot open the output {target}: no such file or directory");
    assert!(r.stderr.contains(&want), "{}", r.stderr);
}

#[test]
fn a_missing_input_file_says_no_such_file() {
    let r = common::run(
        [
            "respond",
            "--action",
            "cancel",
            "/nonexistent/requests.jsonl",
        ],
        b"",
    );
    assert_eq!(r.code, Some(2));
    let want = "cannot open the input /nonexistent/requests.jsonl: no such file or directory";
    assert!(r.stderr.contains(want), "{}", r.stderr);
}

#[test]
fn demo_request_of_a_missing_file_says_no_such_file() {
    let r = common::run(["demo", "--request", "/nonexistent/req.json"], b"");
    assert_eq!(r.code, Some(2));
    let want = "cannot read the request file /nonexistent/req.json: no such file or directory";
    assert!(r.stderr.contains(want), "{}", r.stderr);
    assert!(!r.stderr.contains("invalid request"), "{}", r.stderr);
}

#[test]
fn unknown_theme_is_refused_in_every_mode() {
    let runs: [&[&str]; 4] = [
        &["respond", "--action", "decline", "--theme", "nope"],
        &["respond", "--answers", "/dev/null", "--theme", "nope"],
        &["demo", "--theme", "nope"],
        &[
            "mcp", "--action", "decline", "--theme", "nope", "--", "true",
        ],
    ];
    for args in runs {
        let mut c = common::ahp();
        c.args(args);
        if args[0] == "respond" {
            c.arg(stream());
        }
        let o = c.output().expect("run");
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        let e = stderr(&o);
        assert!(e.contains("unknown theme 'nope'"), "{args:?}: {e}");
        assert!(o.stdout.is_empty(), "{args:?}: nothing answered");
    }
}

#[test]
fn validate_text_names_the_file_and_suggests_the_type() {
    let dir = tempfile::tempdir().expect("tempdir");
    let typo = dir.path().join("typo.json");
    let text = std::fs::read_to_string(common::examples_dir().join("url-connect.request.json"))
        .expect("example")
        .replace("user.elicitation.request", "user.elicitation.reqest");
    std::fs::write(&typo, text).expect("write");
    let good = common::examples_dir().join("url-connect.request.json");
    let o = common::ahp()
        .arg("validate")
        .arg(&typo)
        .arg(&good)
        .output()
        .expect("run");
    assert_eq!(o.status.code(), Some(1));
    let out = String::from_utf8_lossy(&o.stdout).into_owned();
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(
        lines[0],
        format!("{}:1: evt-url-1: invalid", typo.display())
    );
    assert!(
        out.contains("did you mean 'user.elicitation.request'?"),
        "{out}"
    );
    assert_eq!(
        lines.last().copied(),
        Some(format!("{}:1: evt-url-1: valid", good.display()).as_str())
    );
}

fn stdout(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

#[test]
fn completions_for_every_shell() {
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let o = common::ahp()
            .args(["completions", shell])
            .output()
            .expect("run");
        assert_eq!(o.status.code(), Some(0), "{shell}");
        let s = stdout(&o);
        for word in ["respond", "validate", "theme", "action"] {
            assert!(s.contains(word), "{shell} completion lacks {word}");
        }
    }
    // The bash script is valid bash.
    let o = common::ahp()
        .args(["completions", "bash"])
        .output()
        .expect("run");
    let dir = tempfile::tempdir().expect("tempdir");
    let script = dir.path().join("ahp-elicit.bash");
    std::fs::write(&script, &o.stdout).expect("write");
    let st = std::process::Command::new("bash")
        .arg("-n")
        .arg(&script)
        .status()
        .expect("bash");
    assert!(st.success(), "bash -n on the completion script");
    let o = common::ahp()
        .args(["completions", "tcsh"])
        .output()
        .expect("run");
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn man_page_has_every_command() {
    let o = common::ahp().arg("man").output().expect("run");
    assert_eq!(o.status.code(), Some(0));
    let s = stdout(&o);
    assert!(s.contains(".TH ahp-elicit 1"), "{}", &s[..200.min(s.len())]);
    for sub in ["respond", "demo", "validate", "mcp", "completions"] {
        assert!(s.contains(&format!(".TH ahp-elicit-{sub} 1")), "{sub}");
    }
}

/// Every command's --help ends with its exit statuses, lists the possible
/// values of its choice options, and themes have one placeholder.
#[test]
fn every_help_lists_exit_statuses_and_values() {
    let subs: [&[&str]; 16] = [
        &[],
        &["respond"],
        &["demo"],
        &["validate"],
        &["modify"],
        &["capabilities"],
        &["wrap"],
        &["upstream"],
        &["mcp"],
        &["completions"],
        &["man"],
        &["upstream", "verify"],
        &["upstream", "extract"],
        &["upstream", "refresh"],
        &["auth"],
        &["auth", "login"],
    ];
    for sub in subs {
        let o = common::ahp().args(sub).arg("--help").output().expect("run");
        assert_eq!(o.status.code(), Some(0), "{sub:?}");
        let s = stdout(&o);
        assert!(s.contains("Exit status:"), "{sub:?} --help:\n{s}");
    }
    let help = |sub: &str| stdout(&common::ahp().args([sub, "--help"]).output().expect("run"));
    let respond = help("respond");
    assert!(respond.contains("[possible values: accept, decline, cancel]"));
    assert!(respond.contains("[possible values: form, url]"));
    assert!(help("mcp").contains("[possible values: form, url]"));
    assert!(help("capabilities").contains("[possible values: form, url]"));
    let validate = help("validate");
    assert!(validate.contains("Possible values:"), "{validate}");
    assert!(validate.contains("- json:"), "{validate}");
    for sub in ["respond", "demo", "mcp"] {
        assert!(help(sub).contains("--theme <NAME|PATH>"), "{sub}");
    }
    let mcp = help("mcp");
    assert!(mcp.contains("--timeout <DURATION>"), "{mcp}");
    assert!(mcp.contains("--log <FILE>"), "{mcp}");
    assert!(mcp.contains("Signing in (HTTP servers):"), "{mcp}");
    assert!(mcp.contains("3 the server needs a sign-in"), "{mcp}");
    assert!(
        mcp.contains("[possible values: auto, 2025-11-25, 2026-07-28]"),
        "{mcp}"
    );
}

/// `respond` takes several FILEs, like `validate`: each is read in turn.
#[test]
fn respond_takes_several_files() {
    let ex = common::examples_dir();
    let o = common::ahp()
        .args(["respond", "--action", "decline"])
        .arg(ex.join("form-every-kind.request.json"))
        .arg(ex.join("url-connect.request.json"))
        .output()
        .expect("run");
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let parents: Vec<String> = stdout(&o)
        .lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).expect("json line");
            v["parentEventId"].as_str().unwrap_or("").to_owned()
        })
        .collect();
    assert_eq!(parents, vec!["evt-profile-1", "evt-url-1"]);
}

/// Without a terminal each command says what it can do instead: `respond`
/// and `mcp` take scripted answers, `demo` has none and points to
/// `respond`. The child runs in a session of its own, so it has no
/// controlling terminal even when the test runner has one.
#[test]
fn no_terminal_hints_fit_the_command() {
    use std::os::unix::process::CommandExt;
    let run = |args: &[&str]| {
        let mut c = std::process::Command::new(env!("CARGO_BIN_EXE_ahp-elicit"));
        c.args(args)
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .stdin(std::process::Stdio::null());
        // SAFETY: setsid is async-signal-safe and touches only the child.
        unsafe {
            c.pre_exec(|| {
                libc::setsid();
                Ok(())
            });
        }
        let out = c.output().unwrap();
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let (code, err) = run(&["demo"]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("no terminal"), "{err}");
    assert!(
        err.contains("ahp-elicit respond --action accept FILE"),
        "{err}"
    );
    assert!(!err.contains("--answers FILE or --action"), "{err}");
    let (code, err) = run(&["respond", "examples/form-every-kind.request.json"]);
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("use --answers FILE or --action to answer without one"),
        "{err}"
    );
}
