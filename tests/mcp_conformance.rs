//! The official MCP conformance suite's client scenario
//! `elicitation-sep1034-client-defaults` against `ahp-elicit mcp --action
//! accept` (issue 6 item 5). The suite starts its own Streamable HTTP server
//! on localhost and appends its URL as the last argument of the command.
//!
//! Same as `npx @modelcontextprotocol/conformance@0.1.13 client --command
//! "target/debug/ahp-elicit mcp --action accept" --scenario
//! elicitation-sep1034-client-defaults`, but with the pinned copy that
//! `.ci/mcp-setup.sh` installs (no registry access while testing).

use std::path::Path;
use std::process::{Command, Stdio};

#[test]
fn sep1034_client_defaults_passes() {
    let suite = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join(".ci/mcp/node_modules/@modelcontextprotocol/conformance/dist/index.js");
    assert!(
        suite.is_file(),
        "{} is missing: run .ci/mcp-setup.sh (it installs @modelcontextprotocol/conformance@0.1.13; CI runs it)",
        suite.display()
    );
    let bin = env!("CARGO_BIN_EXE_ahp-elicit");
    // The suite splits the command on spaces.
    assert!(
        !bin.contains(' '),
        "the binary path must have no spaces: {bin}"
    );
    let out = Command::new("node")
        .arg(&suite)
        .args(["client", "--command"])
        .arg(format!("{bin} mcp --action accept"))
        .args(["--scenario", "elicitation-sep1034-client-defaults"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let text = format!(
        "{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "conformance failed:\n{text}");
    assert!(text.contains("Passed: 5/5, 0 failed, 0 warnings"), "{text}");
    assert!(text.contains("OVERALL: PASSED"), "{text}");
    for check in ["string", "integer", "number", "enum", "boolean"] {
        let id = format!("client-elicitation-sep1034-{check}-default");
        let line = text
            .lines()
            .find(|l| l.contains(&id))
            .unwrap_or_else(|| panic!("no line for {id}:\n{text}"));
        assert!(line.contains("SUCCESS"), "{line}");
    }
}
