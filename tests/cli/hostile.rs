//! The hostile-input corpus: every case in
//! `tests/hostile/cases/` run through the real binary with its expected
//! outcome. Regenerate the corpus with `python3 tests/hostile/make_corpus.py`.

use std::path::Path;

use crate::common;

use serde_json::Value;

fn run_case(dir: &Path) -> Result<(), String> {
    let expect: Value =
        serde_json::from_slice(&std::fs::read(dir.join("expect.json")).unwrap()).unwrap();
    let args = common::hostile_args(dir);
    let out = crate::common::ahp()
        .args(&args)
        .write_stdin(common::hostile_input(dir))
        .timeout(std::time::Duration::from_secs(60))
        .output()
        .map_err(|e| e.to_string())?;
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let mut problems = Vec::new();
    let want_exit = expect["exit"].as_i64().unwrap() as i32;
    if out.status.code() != Some(want_exit) {
        problems.push(format!("exit {:?}, want {want_exit}", out.status.code()));
    }
    let mut actions = Vec::new();
    for line in stdout.lines() {
        match serde_json::from_str::<Value>(line) {
            Ok(ev) => {
                // Every emitted line is a valid result event.
                if let Err(e) = ahp_elicit::binding::read_result(ev.clone()) {
                    problems.push(format!("emitted an invalid result: {e:?}"));
                }
                actions.push(
                    ev["payload"]["elicitation"]["action"]
                        .as_str()
                        .unwrap_or("?")
                        .to_owned(),
                );
            }
            Err(e) => problems.push(format!("stdout line is not JSON ({e}): {line}")),
        }
    }
    let want_actions: Vec<String> = serde_json::from_value(expect["actions"].clone()).unwrap();
    if actions != want_actions {
        problems.push(format!("actions {actions:?}, want {want_actions:?}"));
    }
    for s in expect["stderr_has"].as_array().unwrap() {
        let s = s.as_str().unwrap();
        if !stderr.contains(s) {
            problems.push(format!("stderr lacks {s:?}"));
        }
    }
    for s in expect["never"].as_array().unwrap() {
        let s = s.as_str().unwrap();
        if stdout.contains(s) || stderr.contains(s) {
            problems.push(format!("output contains raw {s:?}"));
        }
    }
    if stderr.contains("panicked") {
        problems.push("the process panicked".into());
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "{}\n  stderr: {}",
            problems.join("; "),
            stderr.chars().take(600).collect::<String>()
        ))
    }
}

#[test]
fn hostile_corpus() {
    let dirs = common::hostile_cases();
    assert!(
        dirs.len() >= 40,
        "the corpus has at least 40 cases, found {}",
        dirs.len()
    );
    let failures: Vec<String> = dirs
        .iter()
        .filter_map(|d| {
            run_case(d)
                .err()
                .map(|e| format!("{}: {e}", d.file_name().unwrap().to_string_lossy()))
        })
        .collect();
    assert!(
        failures.is_empty(),
        "{} of {} cases failed:\n{}",
        failures.len(),
        dirs.len(),
        failures.join("\n")
    );
}
