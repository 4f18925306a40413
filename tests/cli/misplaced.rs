//! Raw MCP `elicitation/create` params or a JSON-RPC message given where an
//! AHP event is expected (`respond`, `validate`, `demo --request`) get one
//! line that says what the input looks like and the `wrap` command to use,
//! not a list of wire-root errors.

use crate::common;

const BIN: &str = env!("CARGO_BIN_EXE_ahp-elicit");

fn write(dir: &std::path::Path, name: &str, v: &serde_json::Value) -> String {
    let p = dir.join(name);
    std::fs::write(&p, v.to_string() + "\n").expect("write");
    p.display().to_string()
}

#[test]
fn params_and_json_rpc_get_one_line_naming_wrap() {
    let dir = tempfile::tempdir().expect("tempdir");
    let params = serde_json::json!({"message": "Name?",
        "requestedSchema": {"type": "object", "properties": {"n": {"type": "string"}}}});
    let rpc = serde_json::json!({"jsonrpc": "2.0", "id": 3, "method": "elicitation/create",
        "params": params});
    let p = write(dir.path(), "params.json", &params);
    let r = write(dir.path(), "rpc.json", &rpc);
    for args in [
        vec!["validate", p.as_str()],
        vec!["respond", "--action", "cancel", p.as_str()],
        vec!["demo", "--request", p.as_str()],
    ] {
        let (code, out, err) = common::run_in(BIN, &args, dir.path());
        let all = format!("{out}{err}");
        assert_eq!(code, Some(1), "{args:?}: {all}");
        assert!(
            all.contains("looks like the params of an MCP elicitation/create request")
                && all.contains("ahp-elicit wrap --server NAME"),
            "{args:?}: {all}"
        );
        assert!(!all.contains("wire-root/required"), "{args:?}: {all}");
    }
    let (code, out, err) = common::run_in(BIN, &["validate", r.as_str()], dir.path());
    assert_eq!(code, Some(1));
    assert!(
        format!("{out}{err}").contains("JSON-RPC elicitation/create request"),
        "{out}{err}"
    );
}
