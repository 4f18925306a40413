//! The shell completions, run in the shells themselves: bash and fish
//! complete a subcommand's options and an option's possible values from the
//! generated script; zsh reads its script without a syntax error and finds
//! the same options in it. A shell that is not installed is skipped with a
//! notice (`.ci/run` installs zsh and fish).

use std::process::Command;

use crate::common::BIN;

/// The completion script for `shell`, written into `dir`.
fn script(shell: &str, dir: &std::path::Path) -> std::path::PathBuf {
    let out = Command::new(BIN)
        .args(["completions", shell])
        .output()
        .expect("run ahp-elicit");
    assert_eq!(out.status.code(), Some(0), "{shell}");
    let p = dir.join(format!("ahp-elicit.{shell}"));
    std::fs::write(&p, &out.stdout).unwrap();
    p
}

/// The completion script for `shell` in a new temporary folder (returned,
/// to keep), or None (the test skips, saying so) when `shell` is not
/// installed.
fn script_for(shell: &str) -> Option<(tempfile::TempDir, std::path::PathBuf)> {
    if !has(shell) {
        return None;
    }
    let dir = tempfile::tempdir().unwrap();
    let s = script(shell, dir.path());
    Some((dir, s))
}

/// Asserts that a shell ran without error (its stderr in the message).
fn succeeded(out: &std::process::Output) {
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
}

fn has(shell: &str) -> bool {
    let found = Command::new("sh")
        .args(["-c", &format!("command -v {shell}")])
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false);
    if !found {
        eprintln!("skipped: {shell} is not installed (.ci/run installs it)");
    }
    found
}

/// What bash offers for `words` (the last one being completed).
fn bash_complete(script: &std::path::Path, words: &[&str]) -> Vec<String> {
    let quoted: Vec<String> = words.iter().map(|w| format!("'{w}'")).collect();
    let n = words.len() - 1;
    let prev = if n > 0 { words[n - 1] } else { "" };
    let code = format!(
        "source '{}'; COMP_WORDS=({}); COMP_CWORD={n}; _ahp__elicit ahp-elicit '{}' '{prev}'; printf '%s\\n' \"${{COMPREPLY[@]}}\"",
        script.display(),
        quoted.join(" "),
        words[n]
    );
    let out = Command::new("bash").args(["-c", &code]).output().unwrap();
    succeeded(&out);
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(str::to_owned)
        .collect()
}

#[test]
fn bash_offers_a_subcommands_options_and_values() {
    let dir = tempfile::tempdir().unwrap();
    let s = script("bash", dir.path());
    assert_eq!(
        bash_complete(&s, &["ahp-elicit", "respond", "--a"]),
        ["--answers", "--action"]
    );
    assert_eq!(
        bash_complete(&s, &["ahp-elicit", "upstream", "verify", "--pro"]),
        ["--protocol-version"]
    );
    assert_eq!(
        bash_complete(&s, &["ahp-elicit", "wrap", "--protocol-version", ""]),
        ["2025-11-25", "2026-07-28"]
    );
    let top = bash_complete(&s, &["ahp-elicit", "re"]);
    assert_eq!(top, ["respond"]);
}

/// `--protocol` and `--theme` offer their values, not files.
#[test]
fn bash_offers_protocol_and_theme_values_not_files() {
    let dir = tempfile::tempdir().unwrap();
    let s = script("bash", dir.path());
    assert_eq!(
        bash_complete(&s, &["ahp-elicit", "mcp", "--protocol", ""]),
        ["auto", "2025-11-25", "2026-07-28"]
    );
    for sub in ["respond", "demo"] {
        assert_eq!(
            bash_complete(&s, &["ahp-elicit", sub, "--theme", ""]),
            ["default", "light", "high-contrast", "monochrome"],
            "{sub}"
        );
    }
}

#[test]
fn fish_offers_a_subcommands_options() {
    let Some((_dir, s)) = script_for("fish") else {
        return;
    };
    let out = Command::new("fish")
        .args([
            "--no-config",
            "-c",
            &format!(
                "source '{}'; complete -C 'ahp-elicit respond --a'; complete -C 'ahp-elicit wrap --protocol-version '",
                s.display()
            ),
        ])
        .output()
        .unwrap();
    succeeded(&out);
    let text = String::from_utf8_lossy(&out.stdout);
    let firsts: Vec<&str> = text
        .lines()
        .map(|l| l.split('\t').next().unwrap_or(""))
        .collect();
    for want in ["--answers", "--action", "2025-11-25", "2026-07-28"] {
        assert!(firsts.contains(&want), "{want} in {text}");
    }
}

#[test]
fn zsh_reads_its_script_and_it_names_the_options() {
    let Some((_dir, s)) = script_for("zsh") else {
        return;
    };
    let out = Command::new("zsh")
        .args(["-n", &s.display().to_string()])
        .output()
        .unwrap();
    succeeded(&out);
    // The function loads and defines the completer.
    let out = Command::new("zsh")
        .args([
            "-f",
            "-c",
            &format!(
                "autoload -U compinit; compinit -u -D; source '{}'; whence -w _ahp-elicit",
                s.display()
            ),
        ])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("_ahp-elicit: function"), "{text}");
    let body = std::fs::read_to_string(&s).unwrap();
    for want in ["--answers=[", "--action=[", "(2025-11-25 2026-07-28)"] {
        assert!(body.contains(want), "{want}");
    }
}
