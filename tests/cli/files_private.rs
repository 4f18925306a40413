//! The files ahp-elicit writes (`--output`, `--log`, `--events`) are
//! created readable by their owner only (0600) and never written through a
//! symbolic link: a link planted at the path is refused with an error that
//! names the path, and the file it points to is left as it was.
#![cfg(unix)]

use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use serde_json::json;

fn request() -> String {
    let params = json!({"message": "m", "requestedSchema": {"type": "object",
        "properties": {"n": {"type": "string", "default": "x"}}}});
    crate::common::request_line("files", "evt-1", &params) + "\n"
}

fn mode(p: &Path) -> u32 {
    std::fs::metadata(p).expect("file").permissions().mode() & 0o777
}

/// A victim file and a link to it in `dir`.
fn planted(dir: &Path, name: &str) -> (std::path::PathBuf, std::path::PathBuf) {
    let victim = dir.join(format!("{name}-victim"));
    std::fs::write(&victim, "precious\n").expect("victim");
    let link = dir.join(name);
    std::os::unix::fs::symlink(&victim, &link).expect("symlink");
    (victim, link)
}

#[test]
fn output_and_log_are_created_private() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("out.jsonl");
    let log = dir.path().join("log.jsonl");
    crate::common::ahp()
        .args(["respond", "--action", "accept", "--output"])
        .arg(&out)
        .arg("--log")
        .arg(&log)
        .write_stdin(request())
        .assert()
        .code(0);
    assert_eq!(mode(&out), 0o600);
    assert_eq!(mode(&log), 0o600);
    assert_eq!(
        std::fs::read_to_string(&out).expect("out").lines().count(),
        1
    );
}

#[test]
fn a_symlinked_output_or_log_is_refused() {
    for flag in ["--output", "--log"] {
        let dir = tempfile::tempdir().expect("tempdir");
        let (victim, link) = planted(dir.path(), "file");
        let o = crate::common::ahp()
            .args(["respond", "--action", "accept", flag])
            .arg(&link)
            .write_stdin(request())
            .output()
            .expect("run");
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{flag}: {err}");
        assert!(
            err.contains(&format!("{}: is a symbolic link", link.display())),
            "{flag}: {err}"
        );
        assert_eq!(
            std::fs::read_to_string(&victim).expect("victim"),
            "precious\n",
            "{flag}"
        );
        assert!(o.stdout.is_empty(), "{flag}: nothing answered");
    }
}

#[test]
fn a_symlinked_events_file_is_refused() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (victim, link) = planted(dir.path(), "events");
    let o = crate::common::ahp()
        .args(["mcp", "--action", "decline", "--events"])
        .arg(&link)
        .args(["--", "true"])
        .output()
        .expect("run");
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("is a symbolic link"), "{err}");
    assert_eq!(
        std::fs::read_to_string(&victim).expect("victim"),
        "precious\n"
    );
}

/// `/dev/stdout` (a link to the process's own stream) and `/dev/null` keep
/// working; another device is refused.
#[test]
fn the_standard_streams_and_dev_null_work_and_other_devices_are_refused() {
    let out = crate::common::ahp()
        .args(["respond", "--action", "accept", "--output", "/dev/stdout"])
        .args(["--log", "/dev/null"])
        .write_stdin(request())
        .output()
        .expect("run");
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(text.lines().count(), 1, "{text}");
    assert!(text.contains("\"evt-1\""), "{text}");

    let out = crate::common::ahp()
        .args(["respond", "--action", "accept", "--log", "/dev/zero"])
        .write_stdin(request())
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(
            "/dev/zero: is a device (not /dev/null or your terminal); refusing to write to it"
        ),
        "{err}"
    );
}

/// A log file that belongs to another user is refused and left as it
/// was (needs root to give a file away; skipped otherwise).
#[test]
fn another_users_log_is_refused_and_left_alone() {
    if unsafe { libc::geteuid() } != 0 {
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let log = dir.path().join("theirs.log");
    std::fs::write(&log, "theirs\n").expect("write");
    std::os::unix::fs::chown(&log, Some(65534), Some(65534)).expect("chown");
    let out = crate::common::ahp()
        .args(["respond", "--action", "accept", "--log"])
        .arg(&log)
        .write_stdin(request())
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("belongs to another user (uid 65534)"), "{err}");
    assert_eq!(std::fs::read_to_string(&log).expect("log"), "theirs\n");
}
