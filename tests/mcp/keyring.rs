//! Sign-ins kept in a real Secret Service: each test starts its own D-Bus
//! session bus (`dbus-daemon`, with a configuration of its own that
//! activates no service) and, where it needs one, GNOME Keyring on it
//! (`gnome-keyring-daemon --unlock --components=secrets`, its keyrings in
//! the test's directory), and hands the bus's address to the `ahp-elicit`
//! it runs, and to `secret-tool`, which reads the keychain as a person
//! would. The server is tests/servers/hostile_as.py, signed in to with the
//! stand-in browser `.ci/mcp/follow-redirects.py`.
//!
//! Without `dbus-daemon`, `dbus-send`, `gnome-keyring-daemon` or
//! `secret-tool` the tests
//! say so and pass; on CI (`CI=true`), where `.ci/run` installs them, they
//! fail instead.
//!
//! Every wait is for a condition (the bus's address printed, the keyring's
//! name owned on the bus) or for a process to end.

#![cfg(unix)]

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use serde_json::Value;

use super::hostile_auth::{endpoint, server};
use super::oauth::{ahp_with, browser, Run};
use crate::common::wait_ok;

/// A D-Bus session bus, and GNOME Keyring on it when asked; both killed on
/// drop.
struct Bus {
    address: String,
    children: Vec<Child>,
    /// The directory GNOME Keyring keeps its keyrings in (HOME,
    /// XDG_DATA_HOME, XDG_RUNTIME_DIR of the daemon).
    home: PathBuf,
}

impl Drop for Bus {
    fn drop(&mut self) {
        for c in self.children.iter_mut().rev() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

/// Whether `cmd` is on PATH.
fn have(cmd: &str) -> bool {
    Command::new("sh")
        .args(["-c", &format!("command -v {cmd}")])
        .stdout(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// Whether the Secret Service tools are here; when not, says so, and on
/// CI fails.
fn tools_here() -> bool {
    let missing: Vec<&str> = [
        "dbus-daemon",
        "dbus-send",
        "gnome-keyring-daemon",
        "secret-tool",
    ]
    .into_iter()
    .filter(|c| !have(c))
    .collect();
    if missing.is_empty() {
        return true;
    }
    let why = format!(
        "the keychain tests need {} (Debian: dbus-daemon dbus-bin gnome-keyring libsecret-tools; .ci/run installs them)",
        missing.join(", ")
    );
    assert!(std::env::var("CI").as_deref() != Ok("true"), "{why}");
    eprintln!("skipped: {why}");
    false
}

/// A session bus of its own in `dir` (no service activation: a name is
/// there only when a test starts its owner).
fn bus(dir: &Path) -> Bus {
    let conf = dir.join("session.conf");
    std::fs::write(
        &conf,
        format!(
            r#"<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>session</type>
  <listen>unix:path={}</listen>
  <policy context="default">
    <allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
    <allow own="*"/>
  </policy>
</busconfig>
"#,
            dir.join("bus").display()
        ),
    )
    .unwrap();
    let mut daemon = Command::new("dbus-daemon")
        .arg(format!("--config-file={}", conf.display()))
        .args(["--nofork", "--print-address=1"])
        .stdout(Stdio::piped())
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("dbus-daemon starts");
    let mut line = String::new();
    BufReader::new(daemon.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let address = line.trim().to_owned();
    assert!(address.starts_with("unix:"), "the bus's address: {line:?}");
    let home = dir.join("keyring-home");
    std::fs::create_dir_all(home.join("run")).unwrap();
    Bus {
        address,
        children: vec![daemon],
        home,
    }
}

/// A session bus with GNOME Keyring on it, its login keyring unlocked.
fn keyring_bus(dir: &Path) -> Bus {
    let mut b = bus(dir);
    let mut gk = Command::new("gnome-keyring-daemon")
        .args(["--unlock", "--components=secrets", "--foreground"])
        .env("DBUS_SESSION_BUS_ADDRESS", &b.address)
        .env("HOME", &b.home)
        .env("XDG_DATA_HOME", b.home.join("data"))
        .env("XDG_RUNTIME_DIR", b.home.join("run"))
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("gnome-keyring-daemon starts");
    // The login keyring's password, then end of input.
    gk.stdin.take().unwrap().write_all(b"pass").unwrap();
    b.children.push(gk);
    let address = b.address.clone();
    wait_ok(Duration::from_secs(30), || {
        let out = Command::new("dbus-send")
            .args([
                "--session",
                "--print-reply",
                "--dest=org.freedesktop.DBus",
                "/org/freedesktop/DBus",
                "org.freedesktop.DBus.NameHasOwner",
                "string:org.freedesktop.secrets",
            ])
            .env("DBUS_SESSION_BUS_ADDRESS", &address)
            .output()
            .map_err(|e| e.to_string())?;
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        if text.contains("boolean true") {
            Ok(())
        } else {
            Err(format!("org.freedesktop.secrets is not on the bus: {text}"))
        }
    });
    b
}

/// `ahp-elicit ARGS` with the state in `dir/state`, on `bus` when given
/// (else with no session bus at all).
fn run(dir: &Path, bus: Option<&Bus>, args: &[&str]) -> Run {
    let env: Vec<(&str, &str)> = bus
        .map(|b| ("DBUS_SESSION_BUS_ADDRESS", b.address.as_str()))
        .into_iter()
        .collect();
    ahp_with(dir, &env, args)
}

/// The secrets of service `ahp-elicit` in the keychain, by item name
/// (`sign-in …`, `client …`, `index`), as `secret-tool` reads them: the
/// names from `search` (which writes the attributes on stderr), each secret
/// from `lookup`.
fn items(bus: &Bus) -> Vec<(String, String)> {
    let tool = |args: &[&str]| {
        let out = Command::new("secret-tool")
            .args(args)
            .env("DBUS_SESSION_BUS_ADDRESS", &bus.address)
            .output()
            .unwrap();
        format!(
            "{}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    };
    let listed = tool(&["search", "--all", "--unlock", "service", "ahp-elicit"]);
    let mut found: Vec<(String, String)> = listed
        .lines()
        .filter_map(|l| {
            l.split_once("attribute.username = ")
                .map(|(_, u)| u.to_owned())
        })
        .map(|user| {
            let secret = tool(&["lookup", "service", "ahp-elicit", "username", &user]);
            (user, secret.trim().to_owned())
        })
        .collect();
    found.sort();
    found
}

/// The sign-in records in the keychain.
fn sign_ins_in_keychain(bus: &Bus) -> Vec<Value> {
    items(bus)
        .into_iter()
        .filter(|(u, _)| u.starts_with("sign-in "))
        .map(|(_, s)| serde_json::from_str(&s).expect("a sign-in item is JSON"))
        .collect()
}

/// Every file under `dir` with its bytes.
fn files_under(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    let Ok(list) = std::fs::read_dir(dir) else {
        return out;
    };
    for e in list.flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(files_under(&p));
        } else {
            out.push((p.clone(), std::fs::read(&p).unwrap_or_default()));
        }
    }
    out
}

/// The sign-in files of the file store in `dir/state`.
fn sign_in_files(dir: &Path) -> Vec<PathBuf> {
    files_under(&dir.join("state/oauth"))
        .into_iter()
        .map(|(p, _)| p)
        .filter(|p| {
            p.extension().is_some_and(|e| e == "json")
                && p.parent().is_some_and(|d| d.ends_with("oauth"))
        })
        .collect()
}

/// `auth status --json` as JSON.
fn status_json(dir: &Path, bus: Option<&Bus>, extra: &[&str]) -> Value {
    let mut args = vec!["auth", "status", "--json"];
    args.extend_from_slice(extra);
    let r = run(dir, bus, &args);
    assert_eq!(r.code, 0, "{}", r.stderr);
    serde_json::from_str(&r.stdout).unwrap()
}

#[test]
fn a_sign_in_kept_in_the_secret_service_is_there_and_in_no_file_and_moves_both_ways() {
    if !tools_here() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let bus = keyring_bus(d);
    let srv = server(d);
    let url = endpoint(&srv, "plain");
    let b = browser();
    // 1. Signed in with --auth-store keyring: said where, kept there.
    let first = run(
        d,
        Some(&bus),
        &[
            "mcp",
            "--auth-store",
            "keyring",
            "--browser",
            &b,
            "--call",
            "t",
            &url,
        ],
    );
    assert_eq!(first.code, 0, "{}", first.stderr);
    assert!(
        first
            .stderr
            .contains("signed in; secrets kept in the Secret Service keychain\n"),
        "{}",
        first.stderr
    );
    let kept = sign_ins_in_keychain(&bus);
    assert_eq!(kept.len(), 1, "{kept:?}");
    let record = &kept[0];
    assert_eq!(record["mcp_url"], url.as_str());
    let access = record["tokens"]["access_token"]
        .as_str()
        .unwrap()
        .to_owned();
    let refresh = record["tokens"]["refresh_token"]
        .as_str()
        .map(str::to_owned);
    assert!(access.starts_with("access-"), "{record}");
    // No secret in any file of the state directory (a lock file at most).
    for (path, bytes) in files_under(&d.join("state")) {
        let text = String::from_utf8_lossy(&bytes);
        assert!(
            !text.contains(&access),
            "{} holds the token",
            path.display()
        );
        if let Some(r) = &refresh {
            assert!(
                !text.contains(r.as_str()),
                "{} holds the refresh token",
                path.display()
            );
        }
    }
    assert!(sign_in_files(d).is_empty());
    // Never on stdout or stderr either.
    assert!(!first.stderr.contains(&access) && !first.stdout.contains(&access));
    // 2. `auth status` names the store, as text and as JSON, with and
    //    without --auth-store keyring.
    let text = run(
        d,
        Some(&bus),
        &["auth", "status", "--auth-store", "keyring"],
    );
    assert_eq!(text.code, 0, "{}", text.stderr);
    assert!(
        text.stdout.contains("  store:     keyring\n"),
        "{}",
        text.stdout
    );
    assert!(
        text.stdout.contains(
            "  in:        the Secret Service keychain (service ahp-elicit, item \"sign-in "
        ),
        "{}",
        text.stdout
    );
    let listed = status_json(d, Some(&bus), &[]);
    let one = &listed["sign_ins"][0];
    assert_eq!(one["store"], "keyring", "{listed}");
    assert_eq!(one["file"], Value::Null);
    assert_eq!(listed["sign_ins"].as_array().unwrap().len(), 1);
    // 3. Moved to the file store: no new sign-in; the next call uses the
    //    stored token without a browser (none is given, no terminal).
    let moved = run(d, Some(&bus), &["auth", "move", "--to", "file"]);
    assert_eq!(moved.code, 0, "{}", moved.stderr);
    assert!(moved.stdout.contains("(0600 file)"), "{}", moved.stdout);
    assert!(sign_ins_in_keychain(&bus).is_empty(), "{:?}", items(&bus));
    assert_eq!(sign_in_files(d).len(), 1);
    assert_eq!(
        status_json(d, Some(&bus), &[])["sign_ins"][0]["store"],
        "file"
    );
    let again = run(d, Some(&bus), &["mcp", "--call", "t", &url]);
    assert_eq!(again.code, 0, "{}", again.stderr);
    assert!(
        !again.stderr.contains("signed in; secrets kept"),
        "{}",
        again.stderr
    );
    // 4. And back to the keychain.
    let back = run(d, Some(&bus), &["auth", "move", "--to", "keyring", &url]);
    assert_eq!(back.code, 0, "{}", back.stderr);
    assert!(
        back.stdout.contains("to the Secret Service keychain"),
        "{}",
        back.stdout
    );
    assert!(sign_in_files(d).is_empty());
    assert_eq!(sign_ins_in_keychain(&bus).len(), 1);
    for store in [&["--auth-store", "keyring"][..], &[]] {
        let mut args = vec!["mcp", "--call", "t"];
        args.extend_from_slice(store);
        args.push(&url);
        let used = run(d, Some(&bus), &args);
        assert_eq!(used.code, 0, "{:?}: {}", store, used.stderr);
    }
    // Only the one sign-in was ever made.
    assert_eq!(
        super::oauth::recorded_count(d, "authorize", None),
        1,
        "{:?}",
        super::oauth::recorded(d)
    );
    // 5. Signed out: gone from the keychain.
    let out = run(d, Some(&bus), &["auth", "logout", "--no-revoke", &url]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(sign_ins_in_keychain(&bus).is_empty());
}

#[test]
fn the_default_store_is_the_keychain_when_one_answers_and_still_reads_the_files() {
    if !tools_here() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let srv = server(d);
    let old = endpoint(&srv, "plain");
    let new = endpoint(&srv, "lenient");
    let b = browser();
    // An earlier sign-in in the file store (a run with no keychain).
    let first = run(d, None, &["mcp", "--browser", &b, "--call", "t", &old]);
    assert_eq!(first.code, 0, "{}", first.stderr);
    assert_eq!(sign_in_files(d).len(), 1);
    // Now a keychain answers: the file's sign-in is still used (no
    // browser), and a new sign-in goes to the keychain.
    let bus = keyring_bus(d);
    let reused = run(d, Some(&bus), &["mcp", "--call", "t", &old]);
    assert_eq!(reused.code, 0, "{}", reused.stderr);
    let second = run(
        d,
        Some(&bus),
        &["mcp", "--browser", &b, "--call", "t", &new],
    );
    assert_eq!(second.code, 0, "{}", second.stderr);
    assert!(
        second
            .stderr
            .contains("signed in; secrets kept in the Secret Service keychain\n"),
        "{}",
        second.stderr
    );
    assert_eq!(sign_in_files(d).len(), 1);
    let kept = sign_ins_in_keychain(&bus);
    assert_eq!(kept.len(), 1);
    assert_eq!(kept[0]["mcp_url"], new.as_str());
    // `auth status` lists both, each with its store.
    let listed = status_json(d, Some(&bus), &[]);
    let mut stores: Vec<(String, String)> = listed["sign_ins"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["mcp_url"].as_str().unwrap().to_owned(),
                s["store"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    stores.sort();
    let mut want = vec![
        (old.clone(), "file".to_owned()),
        (new.clone(), "keyring".to_owned()),
    ];
    want.sort();
    assert_eq!(stores, want);
}

#[test]
fn with_no_secret_service_the_default_keeps_sign_ins_in_a_file_and_says_so_at_once() {
    if !tools_here() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // A session bus with nothing on it (as on CI, over ssh, in a
    // container with a bus), then no bus at all.
    let bus = bus(d);
    let srv = server(d);
    let b = browser();
    for (scenario, on) in [("plain", Some(&bus)), ("lenient", None)] {
        let url = endpoint(&srv, scenario);
        let r = run(d, on, &["mcp", "--browser", &b, "--call", "t", &url]);
        assert_eq!(r.code, 0, "{}", r.stderr);
        let line = r
            .stderr
            .lines()
            .find(|l| l.contains("signed in; secrets kept in "))
            .unwrap_or_else(|| panic!("no line says where: {}", r.stderr));
        assert!(
            line.contains(&format!("{}/state/oauth/", d.display()))
                && line.contains(".json (0600 file); no keychain answered ("),
            "{line}"
        );
        // Failed at once, not by running out of time.
        assert!(!line.contains("no answer within"), "{line}");
        let why = if on.is_some() {
            "org.freedesktop.secrets"
        } else {
            "no D-Bus session bus"
        };
        assert!(line.contains(why), "{line}");
    }
    assert_eq!(sign_in_files(d).len(), 2);
    // --auth-store keyring there is an error naming the way out, said
    // before any sign-in starts.
    let authorized = super::oauth::recorded_count(d, "authorize", None);
    let named = run(
        d,
        Some(&bus),
        &[
            "mcp",
            "--auth-store",
            "keyring",
            "--browser",
            &b,
            "--call",
            "t",
            &endpoint(&srv, "other"),
        ],
    );
    assert_eq!(named.code, 2, "{}", named.stderr);
    assert!(
        named
            .stderr
            .contains("--auth-store keyring: the Secret Service keychain cannot be reached (")
            && named.stderr.contains("give --auth-store file"),
        "{}",
        named.stderr
    );
    assert_eq!(
        super::oauth::recorded_count(d, "authorize", None),
        authorized
    );
    // So does `auth move --to keyring`.
    let url = endpoint(&srv, "plain");
    let r = run(d, Some(&bus), &["auth", "move", "--to", "keyring", &url]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(
        r.stderr
            .contains("the Secret Service keychain cannot be reached (")
            && r.stderr.contains("give --auth-store file"),
        "{}",
        r.stderr
    );
}
