//! `ahp-elicit upstream verify|extract|refresh`: verify
//! against the shared pinned files, a deterministic extraction equal to the
//! committed file, refresh against a loopback HTTP server started here
//! (good files and a tampered one), and clear failures on modified copies.

mod common;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use ahp_elicit::binding::schemas::MCP_ELICITATION;
use ahp_elicit::upstream;
use assert_cmd::Command;

fn bin() -> Command {
    let mut c = Command::cargo_bin("ahp-elicit").unwrap();
    c.current_dir(env!("CARGO_MANIFEST_DIR"));
    c.env_remove("AHP_UPSTREAM_DIR");
    c
}

fn stderr_of(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn committed_file() -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(upstream::GENERATED_PATH))
        .unwrap()
}

/// A temp dir holding copies of the pinned files.
fn copy_of_upstream() -> tempfile::TempDir {
    let t = tempfile::tempdir().unwrap();
    for n in ["schema.ts", "schema.json"] {
        std::fs::copy(common::upstream_dir().join(n), t.path().join(n)).unwrap();
    }
    t
}

#[test]
#[ignore = "needs the pinned upstream files: run `ahp-elicit upstream refresh` or set AHP_UPSTREAM_DIR"]
fn verify_passes_against_the_shared_files() {
    let dir = common::upstream_dir();
    assert!(upstream::verify(&dir, MCP_ELICITATION).unwrap().is_empty());
    let out = bin()
        .args(["upstream", "verify", "--dir"])
        .arg(&dir)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.starts_with("ok: "), "{stdout}");
    assert!(
        stdout.contains("38c84e9f93ad191d9eb26d92b945d17bd0efcaf3"),
        "{stdout}"
    );
}

#[test]
#[ignore = "needs the pinned upstream files: run `ahp-elicit upstream refresh` or set AHP_UPSTREAM_DIR"]
fn the_pin_records_the_notes_digests_and_the_actual_sizes() {
    let p = upstream::pin();
    let ts = p.file("schema.ts").unwrap();
    let js = p.file("schema.json").unwrap();
    assert_eq!(
        ts.sha256,
        "0845473b20273dae35df6651b831540be3d5866a42d0ad324e4a06caaa398a07"
    );
    assert_eq!(
        js.sha256,
        "1ffe4c5577974012f5fa02af14ea88df4b7146679df1abaaad497c8d9230ca8a"
    );
    let dir = common::upstream_dir();
    for f in [ts, js] {
        let bytes = std::fs::read(dir.join(&f.name)).unwrap();
        assert_eq!(bytes.len() as u64, f.bytes, "{}", f.name);
        assert_eq!(upstream::sha256_hex(&bytes), f.sha256, "{}", f.name);
    }
}

#[test]
#[ignore = "needs the pinned upstream files: run `ahp-elicit upstream refresh` or set AHP_UPSTREAM_DIR"]
fn extract_is_deterministic_and_equals_the_committed_file() {
    let dir = common::upstream_dir();
    let a = upstream::extract_dir(&dir).unwrap();
    let b = upstream::extract_dir(&dir).unwrap();
    assert_eq!(a, b);
    assert_eq!(
        a, MCP_ELICITATION,
        "the embedded copy is the fresh extraction"
    );
    assert_eq!(a, committed_file());
    // No upstream prose: the only "description" keys left are the property
    // named description of the primitive definitions.
    let doc: serde_json::Value = serde_json::from_str(&a).unwrap();
    assert_no_prose(&doc, "");

    // Through the command, into a temp file.
    let t = tempfile::tempdir().unwrap();
    let out_file = t.path().join("gen.json");
    let out = bin()
        .args(["upstream", "extract", "--dir"])
        .arg(&dir)
        .arg("--out")
        .arg(&out_file)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    assert_eq!(std::fs::read_to_string(&out_file).unwrap(), a);
}

fn assert_no_prose(v: &serde_json::Value, at: &str) {
    if let Some(o) = v.as_object() {
        for (k, x) in o {
            if k == "description" {
                // Allowed only as a property definition (under "properties").
                assert!(at.ends_with("/properties"), "prose at {at}/{k}");
                assert_eq!(x, &serde_json::json!({"type": "string"}), "{at}");
            }
            assert_no_prose(x, &format!("{at}/{k}"));
        }
    }
}

#[test]
#[ignore = "needs the pinned upstream files: run `ahp-elicit upstream refresh` or set AHP_UPSTREAM_DIR"]
fn verify_fails_clearly_on_a_modified_copy() {
    let t = copy_of_upstream();
    let p = t.path().join("schema.json");
    let mut text = std::fs::read_to_string(&p).unwrap();
    text = text.replacen("\"integer\"", "\"number\"", 1);
    std::fs::write(&p, text).unwrap();
    let out = bin()
        .args(["upstream", "verify", "--dir"])
        .arg(t.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = stderr_of(&out);
    assert!(err.contains("schema.json: SHA-256 is "), "{err}");
    assert!(
        err.contains(
            "the pin says 1ffe4c5577974012f5fa02af14ea88df4b7146679df1abaaad497c8d9230ca8a"
        ),
        "{err}"
    );
    assert!(
        !err.contains("schema.ts:"),
        "only schema.json differs: {err}"
    );
    // extract refuses too.
    let out = bin()
        .args(["upstream", "extract", "--out", "-", "--dir"])
        .arg(t.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
}

#[test]
#[ignore = "needs the pinned upstream files: run `ahp-elicit upstream refresh` or set AHP_UPSTREAM_DIR"]
fn verify_fails_when_the_committed_extraction_is_stale() {
    let t = tempfile::tempdir().unwrap();
    let stale = t.path().join("stale.json");
    std::fs::write(
        &stale,
        MCP_ELICITATION.replacen("\"minLength\"", "\"minLen\"", 1),
    )
    .unwrap();
    let out = bin()
        .args(["upstream", "verify", "--dir"])
        .arg(common::upstream_dir())
        .arg("--schema")
        .arg(&stale)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = stderr_of(&out);
    assert!(err.contains("differs from a fresh extraction"), "{err}");
    assert!(err.contains("minLen"), "{err}");
}

#[test]
fn verify_with_missing_files_is_an_io_error() {
    let t = tempfile::tempdir().unwrap();
    let out = bin()
        .args(["upstream", "verify", "--dir"])
        .arg(t.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr_of(&out).contains("schema.ts"));
}

// ------------------------------------------------------------ refresh

/// Serve `files` (path suffix → body) on 127.0.0.1 until the test ends;
/// returns the prefix to pass as the mirror and a count of requests.
fn serve(files: Vec<(&'static str, Vec<u8>)>) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    let files = Arc::new(files);
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut s) = stream else { continue };
            let files = Arc::clone(&files);
            std::thread::spawn(move || {
                let mut r = BufReader::new(s.try_clone().unwrap());
                let mut line = String::new();
                if r.read_line(&mut line).is_err() {
                    return;
                }
                let path = line.split_whitespace().nth(1).unwrap_or("").to_owned();
                loop {
                    let mut h = String::new();
                    if r.read_line(&mut h).unwrap_or(0) == 0 || h == "\r\n" {
                        break;
                    }
                }
                let body = files
                    .iter()
                    .find(|(suffix, _)| path.ends_with(suffix))
                    .map(|(_, b)| b.clone());
                let resp = match body {
                    Some(b) => {
                        let mut v = format!(
                            "HTTP/1.1 200 OK\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                            b.len()
                        )
                        .into_bytes();
                        v.extend(b);
                        v
                    }
                    None => {
                        b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
                            .to_vec()
                    }
                };
                let _ = s.write_all(&resp);
                let _ = s.flush();
                let mut sink = [0u8; 64];
                let _ = s.set_read_timeout(Some(std::time::Duration::from_millis(200)));
                let _ = s.read(&mut sink);
            });
        }
    });
    format!("http://{addr}/")
}

fn pinned_bytes() -> (Vec<u8>, Vec<u8>) {
    let d = common::upstream_dir();
    (
        std::fs::read(d.join("schema.ts")).unwrap(),
        std::fs::read(d.join("schema.json")).unwrap(),
    )
}

fn listing(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    v.sort();
    v
}

#[test]
#[ignore = "needs the pinned upstream files: run `ahp-elicit upstream refresh` or set AHP_UPSTREAM_DIR"]
fn refresh_downloads_the_pinned_files_from_loopback() {
    let (ts, js) = pinned_bytes();
    let mirror = serve(vec![
        ("/2025-11-25/schema/2025-11-25/schema.ts", ts.clone()),
        ("/2025-11-25/schema/2025-11-25/schema.json", js.clone()),
    ]);
    let t = tempfile::tempdir().unwrap();
    let dest = t.path().join("mcp");
    let out = bin()
        .args(["upstream", "refresh", "--mirror", &mirror, "--dir"])
        .arg(&dest)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    assert_eq!(std::fs::read(dest.join("schema.ts")).unwrap(), ts);
    assert_eq!(std::fs::read(dest.join("schema.json")).unwrap(), js);
    assert_eq!(
        listing(&dest),
        [dest.join("schema.json"), dest.join("schema.ts")],
        "no temporary file is left"
    );
    // And the refreshed folder verifies.
    assert!(upstream::verify(&dest, MCP_ELICITATION).unwrap().is_empty());
}

#[test]
#[ignore = "needs the pinned upstream files: run `ahp-elicit upstream refresh` or set AHP_UPSTREAM_DIR"]
fn refresh_refuses_a_tampered_file_and_keeps_nothing() {
    let (ts, mut js) = pinned_bytes();
    let at = js.len() / 2;
    js[at] ^= 0x20;
    let mirror = serve(vec![
        ("/2025-11-25/schema/2025-11-25/schema.ts", ts),
        ("/2025-11-25/schema/2025-11-25/schema.json", js),
    ]);
    let t = tempfile::tempdir().unwrap();
    // An older copy already there must survive untouched.
    std::fs::write(t.path().join("schema.ts"), b"old ts").unwrap();
    let out = bin()
        .args(["upstream", "refresh", "--mirror", &mirror, "--dir"])
        .arg(t.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = stderr_of(&out);
    assert!(err.contains("refused, nothing kept"), "{err}");
    assert!(err.contains("schema.json: SHA-256 is "), "{err}");
    assert!(
        !err.contains("schema.ts: SHA-256"),
        "schema.ts was good: {err}"
    );
    assert_eq!(listing(t.path()), [t.path().join("schema.ts")]);
    assert_eq!(
        std::fs::read(t.path().join("schema.ts")).unwrap(),
        b"old ts"
    );
}

#[test]
#[ignore = "needs the pinned upstream files: run `ahp-elicit upstream refresh` or set AHP_UPSTREAM_DIR"]
fn refresh_with_a_missing_file_is_a_download_error() {
    let (ts, _) = pinned_bytes();
    let mirror = serve(vec![("/2025-11-25/schema/2025-11-25/schema.ts", ts)]);
    let t = tempfile::tempdir().unwrap();
    let out = bin()
        .args(["upstream", "refresh", "--mirror", &mirror, "--dir"])
        .arg(t.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr_of(&out).contains("schema.json"),
        "{}",
        stderr_of(&out)
    );
    assert!(listing(t.path()).is_empty());
}

#[test]
fn the_mirror_option_is_hidden_from_help() {
    let out = bin()
        .args(["upstream", "refresh", "--help"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let help = String::from_utf8_lossy(&out.stdout);
    assert!(help.contains("--dir"), "{help}");
    assert!(!help.contains("--mirror"), "{help}");
}

#[test]
fn verify_with_no_upstream_files_says_where_it_looked_and_how_to_get_them() {
    let t = tempfile::tempdir().unwrap();
    let out = bin()
        .current_dir(t.path())
        .env_remove("AHP_UPSTREAM_DIR")
        .args(["upstream", "verify"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = stderr_of(&out);
    assert!(
        err.contains(
            "looked for the pinned schema.ts and schema.json in ../shared/upstream/mcp/2025-11-25"
        ),
        "{err}"
    );
    assert!(err.contains("ahp-elicit upstream refresh"), "{err}");
}

fn readme() -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("upstream/README.md"))
        .unwrap()
}

/// The README's row for an override, `|` unescaped.
fn readme_row(readme: &str, name: &str) -> String {
    let start = format!("| `{name}` |");
    readme
        .lines()
        .find(|l| l.starts_with(&start))
        .unwrap_or_else(|| panic!("upstream/README.md has no row for {name}"))
        .replace("\\|", "|")
}

/// `N: `text`` pairs of a README row: schema.ts line numbers and the text
/// the row says they hold.
fn cited_lines(row: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut rest = row;
    while let Some(i) = rest.find(": `") {
        let digits: String = rest[..i]
            .chars()
            .rev()
            .take_while(char::is_ascii_digit)
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect();
        let after = &rest[i + 3..];
        let Some(end) = after.find('`') else { break };
        if let Ok(n) = digits.parse() {
            out.push((n, after[..end].to_owned()));
        }
        rest = &after[end + 1..];
    }
    out
}

/// The repository says the override evidence itself: every override, the
/// schema.ts text it checks and the tagged JSON it corrects are in
/// upstream/README.md, with the pinned digests; nothing points outside the
/// repository for it.
#[test]
fn the_readme_states_every_override_and_its_evidence() {
    let text = readme();
    for o in upstream::OVERRIDES {
        let row = readme_row(&text, o.name);
        assert!(row.contains(o.ts_scope), "{}: {row}", o.name);
        for ev in o.ts_evidence {
            assert!(row.contains(ev), "{}: {ev} not in {row}", o.name);
        }
        assert!(
            row.contains(o.upstream),
            "{}: {} not in {row}",
            o.name,
            o.upstream
        );
        assert!(!cited_lines(&row).is_empty(), "{}: no line numbers", o.name);
    }
    for f in upstream::pin().files {
        assert!(text.contains(&f.sha256), "{}", f.name);
        assert!(text.contains(&f.url), "{}", f.url);
    }
    assert!(!text.contains("NOTES.md"));
    assert!(!upstream::PIN_JSON.contains("NOTES.md"));
    assert!(!upstream::PIN_JSON.contains("../"));
}

/// Each schema.ts line the README cites holds the text it quotes.
#[test]
#[ignore = "needs the pinned upstream files: run `ahp-elicit upstream refresh` or set AHP_UPSTREAM_DIR"]
fn the_readme_cites_the_pinned_schema_ts_lines() {
    let ts = std::fs::read_to_string(common::upstream_dir().join("schema.ts")).unwrap();
    let lines: Vec<&str> = ts.lines().collect();
    let text = readme();
    for o in upstream::OVERRIDES {
        for (n, quoted) in cited_lines(&readme_row(&text, o.name)) {
            let line = lines.get(n - 1).copied().unwrap_or_default();
            assert_eq!(line.trim(), quoted, "{} line {n}", o.name);
        }
    }
}
