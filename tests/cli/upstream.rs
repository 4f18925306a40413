//! `ahp-elicit upstream verify|extract|refresh`: verify
//! against the shared pinned files, a deterministic extraction equal to the
//! committed file, refresh against a loopback HTTP server started here
//! (good files and a tampered one), and clear failures on modified copies.

use crate::common;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use ahp_elicit::binding::Revision;
use ahp_elicit::upstream;

/// The commit and digests each pinned revision's NOTES name (tag commit,
/// schema.ts, schema.json), checked against the pins.
const NOTED: &[(&str, &str, &str, &str)] = &[
    (
        "2025-11-25",
        "38c84e9f93ad191d9eb26d92b945d17bd0efcaf3",
        "0845473b20273dae35df6651b831540be3d5866a42d0ad324e4a06caaa398a07",
        "1ffe4c5577974012f5fa02af14ea88df4b7146679df1abaaad497c8d9230ca8a",
    ),
    (
        "2026-07-28",
        "5f5440bb26a62e2cf3440b92da5a667efa03b267",
        "742750af0bb8c716e7030c4977c992b55d1adc4407e9e66997db5846baedc2cd",
        "ef70b61f99b6d2e5e3b46863822eab08dff6a45bedc7a08914e0e5b133f40203",
    ),
];

fn noted(rev: Revision) -> (&'static str, &'static str, &'static str) {
    let (_, c, t, j) = NOTED
        .iter()
        .find(|(v, ..)| *v == rev.as_str())
        .unwrap_or_else(|| panic!("no noted digests for {rev}"));
    (c, t, j)
}

/// The committed definitions of `rev` as the binary embeds them.
fn embedded(rev: Revision) -> &'static str {
    rev.data().definitions
}

/// `upstream refresh --protocol-version 2025-11-25 --mirror MIRROR --dir
/// DIR`, run to its end.
fn refresh_2025(mirror: &str, dir: &Path) -> std::process::Output {
    crate::common::ahp_at_root()
        .args([
            "upstream",
            "refresh",
            "--protocol-version",
            "2025-11-25",
            "--mirror",
            mirror,
            "--dir",
        ])
        .arg(dir)
        .output()
        .unwrap()
}

fn stderr_of(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn committed_file(rev: Revision) -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(rev.data().definitions_path))
        .unwrap()
}

/// A temp dir holding copies of `rev`'s pinned files.
fn copy_of_upstream(rev: Revision) -> tempfile::TempDir {
    let t = tempfile::tempdir().unwrap();
    for n in ["schema.ts", "schema.json"] {
        std::fs::copy(common::upstream_dir(rev).join(n), t.path().join(n)).unwrap();
    }
    t
}

#[test]
#[ignore = "needs the pinned upstream files: run `ahp-elicit upstream refresh` or set AHP_UPSTREAM_DIR"]
fn verify_passes_against_the_shared_files() {
    for rev in Revision::ALL.iter().copied() {
        let dir = common::upstream_dir(rev);
        assert!(
            upstream::verify(rev, &dir, embedded(rev), rev.data().definitions_path)
                .unwrap()
                .is_empty()
        );
        let out = crate::common::ahp_at_root()
            .args([
                "upstream",
                "verify",
                "--protocol-version",
                rev.as_str(),
                "--dir",
            ])
            .arg(&dir)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(stdout.starts_with("ok: "), "{stdout}");
        assert!(stdout.contains(noted(rev).0), "{stdout}");
    }
}

/// `upstream verify` with no revision named verifies every pinned revision
/// whose files are found, one `ok:` line each.
#[test]
#[ignore = "needs the pinned upstream files: run `ahp-elicit upstream refresh` or set AHP_UPSTREAM_DIR"]
fn verify_checks_every_pinned_revision_by_default() {
    let t = tempfile::tempdir().unwrap();
    for rev in Revision::ALL.iter().copied() {
        let d = t.path().join(rev.as_str());
        std::fs::create_dir(&d).unwrap();
        for n in ["schema.ts", "schema.json"] {
            std::fs::copy(common::upstream_dir(rev).join(n), d.join(n)).unwrap();
        }
    }
    let out = crate::common::ahp_at_root()
        .env("AHP_UPSTREAM_DIR", t.path())
        .args(["upstream", "verify"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    let stdout = String::from_utf8_lossy(&out.stdout);
    for rev in Revision::ALL {
        assert!(
            stdout.contains(&format!("pinned MCP {rev} files")),
            "{rev}: {stdout}"
        );
    }
    assert_eq!(stdout.lines().count(), Revision::ALL.len(), "{stdout}");
}

#[test]
#[ignore = "needs the pinned upstream files: run `ahp-elicit upstream refresh` or set AHP_UPSTREAM_DIR"]
fn the_pin_records_the_notes_digests_and_the_actual_sizes() {
    for rev in Revision::ALL.iter().copied() {
        let p = upstream::pin(rev);
        let (commit, ts_sha, js_sha) = noted(rev);
        assert_eq!(p.commit, commit, "{rev}");
        let ts = p.file("schema.ts").unwrap();
        let js = p.file("schema.json").unwrap();
        assert_eq!(ts.sha256, ts_sha, "{rev}");
        assert_eq!(js.sha256, js_sha, "{rev}");
        let dir = common::upstream_dir(rev);
        for f in [ts, js] {
            let bytes = std::fs::read(dir.join(&f.name)).unwrap();
            assert_eq!(bytes.len() as u64, f.bytes, "{rev} {}", f.name);
            assert_eq!(upstream::sha256_hex(&bytes), f.sha256, "{rev} {}", f.name);
        }
    }
}

#[test]
#[ignore = "needs the pinned upstream files: run `ahp-elicit upstream refresh` or set AHP_UPSTREAM_DIR"]
fn extract_is_deterministic_and_equals_the_committed_file() {
    for rev in Revision::ALL.iter().copied() {
        let dir = common::upstream_dir(rev);
        let a = upstream::extract_dir(rev, &dir).unwrap();
        let b = upstream::extract_dir(rev, &dir).unwrap();
        assert_eq!(a, b);
        assert_eq!(
            a,
            embedded(rev),
            "{rev}: the embedded copy is the fresh extraction"
        );
        assert_eq!(a, committed_file(rev));
        // No upstream prose: the only "description" keys left are the
        // property named description of the primitive definitions.
        let doc: serde_json::Value = serde_json::from_str(&a).unwrap();
        assert_no_prose(&doc, "");

        // Through the command, into a temp file.
        let t = tempfile::tempdir().unwrap();
        let out_file = t.path().join("gen.json");
        let out = crate::common::ahp_at_root()
            .args([
                "upstream",
                "extract",
                "--protocol-version",
                rev.as_str(),
                "--dir",
            ])
            .arg(&dir)
            .arg("--out")
            .arg(&out_file)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
        assert_eq!(std::fs::read_to_string(&out_file).unwrap(), a);
    }
}

/// The first pin's generated file is byte for byte what it was before the
/// second revision was adopted (its SHA-256 when it was committed).
#[test]
fn the_first_revisions_definitions_are_unchanged() {
    let text = committed_file(Revision::V2025_11_25);
    assert_eq!(
        upstream::sha256_hex(text.as_bytes()),
        "9379a5498183c118bb77a4d9abfc54c7644a2c078d8864ce1bf6ff2ded7b99c2"
    );
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
    let t = copy_of_upstream(Revision::V2025_11_25);
    let p = t.path().join("schema.json");
    let mut text = std::fs::read_to_string(&p).unwrap();
    text = text.replacen("\"integer\"", "\"number\"", 1);
    std::fs::write(&p, text).unwrap();
    let out = crate::common::ahp_at_root()
        .args([
            "upstream",
            "verify",
            "--protocol-version",
            "2025-11-25",
            "--dir",
        ])
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
    let out = crate::common::ahp_at_root()
        .args([
            "upstream",
            "extract",
            "--protocol-version",
            "2025-11-25",
            "--out",
            "-",
            "--dir",
        ])
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
        embedded(Revision::V2025_11_25).replacen("\"minLength\"", "\"minLen\"", 1),
    )
    .unwrap();
    let out = crate::common::ahp_at_root()
        .args([
            "upstream",
            "verify",
            "--protocol-version",
            "2025-11-25",
            "--dir",
        ])
        .arg(common::upstream_dir(Revision::V2025_11_25))
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
    let out = crate::common::ahp_at_root()
        .args([
            "upstream",
            "verify",
            "--protocol-version",
            "2026-07-28",
            "--dir",
        ])
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
    let d = common::upstream_dir(Revision::V2025_11_25);
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
    let out = refresh_2025(&mirror, &dest);
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    assert_eq!(std::fs::read(dest.join("schema.ts")).unwrap(), ts);
    assert_eq!(std::fs::read(dest.join("schema.json")).unwrap(), js);
    assert_eq!(
        listing(&dest),
        [dest.join("schema.json"), dest.join("schema.ts")],
        "no temporary file is left"
    );
    // And the refreshed folder verifies.
    let rev = Revision::V2025_11_25;
    assert!(
        upstream::verify(rev, &dest, embedded(rev), rev.data().definitions_path)
            .unwrap()
            .is_empty()
    );
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
    let out = refresh_2025(&mirror, t.path());
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
    let out = refresh_2025(&mirror, t.path());
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
    let out = crate::common::ahp_at_root()
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
    let out = crate::common::ahp_at_root()
        .current_dir(t.path())
        .env_remove("AHP_UPSTREAM_DIR")
        .args(["upstream", "verify"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = stderr_of(&out);
    for rev in Revision::ALL {
        assert!(
            err.contains(&format!(
                "looked for the pinned MCP {rev} schema.ts and schema.json in upstream/mcp/{rev}"
            )),
            "{err}"
        );
        assert!(
            err.contains(&format!(
                "ahp-elicit upstream refresh --protocol-version {rev}"
            )),
            "{err}"
        );
    }
}

fn readme() -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("upstream/README.md"))
        .unwrap()
}

/// The README's section of `rev` (from `## MCP <version>` to the next
/// `## ` heading).
fn readme_section(readme: &str, rev: Revision) -> String {
    let head = format!("\n## MCP {rev}");
    let at = readme
        .find(&head)
        .unwrap_or_else(|| panic!("upstream/README.md has no section {head:?}"));
    let rest = &readme[at + 1..];
    let end = rest[3..].find("\n## ").map(|i| i + 4).unwrap_or(rest.len());
    rest[..end].to_owned()
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

/// The repository says the override evidence itself: for each pinned
/// revision, every override its extraction applies, the schema.ts text it
/// checks and the tagged JSON it corrects are in that revision's section of
/// upstream/README.md, with the pinned digests; nothing points outside the
/// repository for it.
#[test]
fn the_readme_states_every_override_and_its_evidence() {
    let text = readme();
    for rev in Revision::ALL.iter().copied() {
        let section = readme_section(&text, rev);
        for o in upstream::overrides_of(rev) {
            let row = readme_row(&section, o.name);
            assert!(row.contains(o.ts_scope), "{rev} {}: {row}", o.name);
            for ev in o.ts_evidence {
                assert!(row.contains(ev), "{rev} {}: {ev} not in {row}", o.name);
            }
            assert!(
                row.contains(o.upstream),
                "{rev} {}: {} not in {row}",
                o.name,
                o.upstream
            );
            assert!(!cited_lines(&row).is_empty(), "{}: no line numbers", o.name);
        }
        for f in upstream::pin(rev).files {
            assert!(section.contains(&f.sha256), "{rev} {}", f.name);
            assert!(section.contains(&f.url), "{}", f.url);
        }
        assert!(!rev.data().pin_json.contains("NOTES.md"));
        assert!(!rev.data().pin_json.contains("../"));
    }
    assert!(!text.contains("NOTES.md"));
}

/// Each schema.ts line the README cites holds the text it quotes, in the
/// pinned schema.ts of the section's revision.
#[test]
#[ignore = "needs the pinned upstream files: run `ahp-elicit upstream refresh` or set AHP_UPSTREAM_DIR"]
fn the_readme_cites_the_pinned_schema_ts_lines() {
    let text = readme();
    for rev in Revision::ALL.iter().copied() {
        let ts = std::fs::read_to_string(common::upstream_dir(rev).join("schema.ts")).unwrap();
        let lines: Vec<&str> = ts.lines().collect();
        let section = readme_section(&text, rev);
        for o in upstream::overrides_of(rev) {
            for (n, quoted) in cited_lines(&readme_row(&section, o.name)) {
                let line = lines.get(n - 1).copied().unwrap_or_default();
                assert_eq!(line.trim(), quoted, "{rev} {} line {n}", o.name);
            }
        }
    }
}

/// An override of the catalogue that a revision does not apply has lost its
/// evidence in that revision's files, or corrects a definition the
/// revision's extraction does not copy: none is dropped silently.
#[test]
#[ignore = "needs the pinned upstream files: run `ahp-elicit upstream refresh` or set AHP_UPSTREAM_DIR"]
fn every_override_not_carried_over_has_lost_its_evidence_or_its_definition() {
    for rev in Revision::ALL.iter().copied() {
        let dir = common::upstream_dir(rev);
        let json: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(dir.join("schema.json")).unwrap())
                .unwrap();
        let ts = std::fs::read_to_string(dir.join("schema.ts")).unwrap();
        let generated: serde_json::Value = serde_json::from_str(embedded(rev)).unwrap();
        let applied = upstream::overrides_of(rev);
        for o in upstream::OVERRIDES {
            let carried = applied.iter().any(|a| a.name == o.name);
            let alone = upstream::extract(rev, &json, &ts, std::slice::from_ref(o));
            let def = o.sites[0].split('/').nth(1).unwrap();
            let extracted = generated["$defs"].get(def).is_some();
            if carried {
                assert!(alone.is_ok(), "{rev} {}: {alone:?}", o.name);
                assert!(extracted, "{rev} {}: corrects {def}", o.name);
            } else {
                assert!(
                    alone.is_err() || !extracted,
                    "{rev}: {} still holds and {def} is extracted: apply it",
                    o.name
                );
            }
        }
    }
}
