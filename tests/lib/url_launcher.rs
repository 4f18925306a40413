//! `--browser CMD` and consent: a recording script
//! stands in for the browser. Scripts run as `sh SCRIPT` so that no test
//! executes a file another thread may still hold open for writing.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use ahp_elicit::consent::{Consent, Effect, Input, Reader};
use ahp_elicit::launcher::Launcher;
use ahp_elicit::launcher::{CommandBrowser, LaunchError, NoOpen};
use ahp_elicit::url_review::{review, UrlReview};

/// Consent to the reviewed URL `r` through the consent machine (a
/// script's: at once) and carry out the open it asks for with `launcher`
/// (`Consent::open_with`, the answerers' one path to a launch); the
/// launcher's result. A URL that cannot be opened is not offered consent,
/// and `open_with` refuses it without calling the launcher.
fn consent_and_open(launcher: &mut dyn Launcher, r: &UrlReview) -> Result<(), LaunchError> {
    let mut c = Consent::new(r, Reader::Script);
    let effect = c.input(Input::Consent, Instant::now()).effect;
    let asked = r.target().map(|t| Effect::Open(t.to_owned()));
    assert_eq!(effect, asked, "{}", r.raw);
    c.open_with(launcher, false).1
}

/// A script that appends its argument count and each argument, one a line,
/// to `rec`, then exits with `status`.
fn recorder(dir: &Path, rec: &Path, status: i32) -> PathBuf {
    let script = dir.join("rec.sh");
    std::fs::write(
        &script,
        format!(
            "printf '%s\\n' \"$#\" \"$@\" >> '{}'\nexit {status}\n",
            rec.display()
        ),
    )
    .unwrap();
    script
}

fn browser(script: &Path, extra: &str) -> CommandBrowser {
    CommandBrowser::new(format!("sh '{}' {extra}", script.display()))
}

#[test]
fn one_launch_with_the_exact_url_as_only_argument() {
    let dir = tempfile::tempdir().unwrap();
    let rec = dir.path().join("rec.txt");
    let script = recorder(dir.path(), &rec, 0);
    let mut b = browser(&script, "");
    let url = "https://login.example.com/oauth/authorize?client_id=a b&state=x#frag";
    let r = review(url);
    assert!(!rec.exists(), "nothing is launched before consent");
    consent_and_open(&mut b, &r).unwrap();
    let target = r.target().unwrap();
    assert_eq!(
        target,
        "https://login.example.com/oauth/authorize?client_id=a%20b&state=x#frag"
    );
    assert_eq!(
        std::fs::read_to_string(&rec).unwrap(),
        format!("1\n{target}\n")
    );
}

#[test]
fn shell_metacharacters_are_not_interpreted() {
    let dir = tempfile::tempdir().unwrap();
    let rec = dir.path().join("rec.txt");
    let pwned = dir.path().join("pwned");
    let script = recorder(dir.path(), &rec, 0);
    let mut b = browser(&script, "");
    let url = format!(
        "https://a.example/?q=$(touch%20{})&x=`id`;y|z",
        pwned.display()
    );
    let r = review(&url);
    consent_and_open(&mut b, &r).unwrap();
    let got = std::fs::read_to_string(&rec).unwrap();
    assert_eq!(got, format!("1\n{}\n", r.target().unwrap()));
    assert!(got.contains("$(touch"), "{got}");
    assert!(!pwned.exists());
}

#[test]
fn leading_arguments_come_before_the_url() {
    let dir = tempfile::tempdir().unwrap();
    let rec = dir.path().join("rec.txt");
    let script = recorder(dir.path(), &rec, 0);
    let mut b = browser(&script, "--new-window 'a profile'");
    b.open("https://a.example/").unwrap();
    assert_eq!(
        std::fs::read_to_string(&rec).unwrap(),
        "3\n--new-window\na profile\nhttps://a.example/\n"
    );
}

#[test]
fn a_failing_command_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let rec = dir.path().join("rec.txt");
    let script = recorder(dir.path(), &rec, 3);
    let mut b = browser(&script, "");
    let e = consent_and_open(&mut b, &review("https://a.example/")).unwrap_err();
    assert!(matches!(e, LaunchError::Failed { code: 3, .. }), "{e:?}");
    assert_eq!(
        e.to_string(),
        "The browser command \"sh\" failed (exit status 3)."
    );
    // It did run, once.
    assert_eq!(
        std::fs::read_to_string(&rec).unwrap(),
        "1\nhttps://a.example/\n"
    );
}

#[test]
fn a_missing_program_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("no-such-browser");
    let mut b = CommandBrowser::new(format!("'{}'", missing.display()));
    let e = b.open("https://a.example/").unwrap_err();
    assert!(matches!(e, LaunchError::Start { .. }), "{e:?}");
    assert_eq!(
        e.to_string(),
        format!(
            "The browser command \"{}\" could not be started: No such file or directory \
             (os error 2).",
            missing.display()
        )
    );
}

#[test]
fn refused_urls_never_run_the_command() {
    let dir = tempfile::tempdir().unwrap();
    let rec = dir.path().join("rec.txt");
    let script = recorder(dir.path(), &rec, 0);
    let mut b = browser(&script, "");
    for u in [
        "javascript:alert(document.cookie)",
        "file:///etc/passwd",
        "data:text/html,<script>x</script>",
        "ftp://files.example/",
        "::not a url::",
    ] {
        let e = consent_and_open(&mut b, &review(u)).unwrap_err();
        assert!(matches!(e, LaunchError::Refused(_)), "{u}: {e:?}");
        assert!(!e.to_string().is_empty());
    }
    assert!(!rec.exists());
}

#[test]
fn a_browser_that_keeps_running_counts_as_started() {
    let dir = tempfile::tempdir().unwrap();
    let rec = dir.path().join("rec.txt");
    let script = dir.path().join("stay.sh");
    std::fs::write(
        &script,
        format!(
            "printf '%s\\n' \"$1\" >> '{}'\nexec sleep 1\n",
            rec.display()
        ),
    )
    .unwrap();
    let mut b = browser(&script, "");
    b.check = Duration::from_millis(100);
    b.open("https://a.example/").unwrap();
}

#[test]
fn no_open_opens_nothing_and_records_consent() {
    let mut n = NoOpen::default();
    consent_and_open(&mut n, &review("https://a.example/x?y=1")).unwrap();
    assert_eq!(n.consented, vec!["https://a.example/x?y=1".to_string()]);
    assert!(consent_and_open(&mut n, &review("file:///x")).is_err());
    assert_eq!(n.consented.len(), 1);
}
