//! A credential header (`Authorization`, `Cookie`, an API key) is never
//! sent over plain `http://` to another machine unless the person says so
//! with `--allow-insecure-http`; loopback and `https://` are not refused.

/// `ahp-elicit mcp ARGS`: (exit code, stderr).
fn mcp(args: &[&str]) -> (i32, String) {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = crate::common::sdk::ahp_in(dir.path())
        .arg("mcp")
        .args(args)
        .env("FAKE_KEY", "KEY-VALUE-123456")
        .output()
        .expect("run");
    let r = crate::common::sdk::McpRun::of(&out, None);
    (r.code, r.stderr)
}

#[test]
fn a_credential_over_plain_http_to_another_host_is_refused() {
    let (code, err) = mcp(&[
        "--header",
        "X-Api-Key: env:FAKE_KEY",
        "--action",
        "decline",
        "--call",
        "t",
        "http://mcp.example.invalid/mcp",
    ]);
    assert_eq!(code, 2);
    assert_eq!(
        err,
        "ahp-elicit mcp: --header X-Api-Key: refusing to send a credential over plain http:// to mcp.example.invalid (anyone on the way can read it); use https://, or pass --allow-insecure-http\n"
    );
}

#[test]
fn the_person_can_allow_it_and_loopback_is_not_refused() {
    for args in [
        &[
            "--allow-insecure-http",
            "--header",
            "Authorization: Bearer abcdefgh",
            "http://mcp.example.invalid/mcp",
        ][..],
        &[
            "--header",
            "Authorization: Bearer abcdefgh",
            "http://127.0.0.1:9/mcp",
        ][..],
        &["--header", "X-Trace: 1", "http://mcp.example.invalid/mcp"][..],
    ] {
        let mut all = vec![
            "--action",
            "decline",
            "--call",
            "t",
            "--connect-timeout",
            "5",
        ];
        all.extend_from_slice(args);
        let (code, err) = mcp(&all);
        // The connection is tried (and fails): no refusal.
        assert_eq!(code, 2, "{err}");
        assert!(!err.contains("refusing"), "{args:?}: {err}");
        assert!(err.contains("server/discover"), "{args:?}: {err}");
    }
}
