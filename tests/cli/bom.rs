//! A UTF-8 byte order mark at the start of an input (as some editors write
//! it) is read past by every reader: each command gives the same output
//! and exit status on a file with one as on the same file without.

use crate::common;

/// The repository's example `name`, written into `dir` twice: as it is,
/// and with a byte order mark before it (`bom-NAME`).
fn both(dir: &std::path::Path, from: &str, name: &str) {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read(root.join(from)).expect("example");
    std::fs::write(dir.join(name), &text).expect("write");
    let mut marked = b"\xEF\xBB\xBF".to_vec();
    marked.extend_from_slice(&text);
    std::fs::write(dir.join(format!("bom-{name}")), marked).expect("write");
}

/// `text` without the values of its `"time"` and `"id"` members (each run
/// stamps its own).
fn untimed(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(at) = ["\"time\":\"", "\"id\":\""]
        .iter()
        .filter_map(|k| rest.find(k).map(|i| (i, k.len())))
        .min()
    {
        let (i, k) = at;
        out.push_str(&rest[..i + k]);
        rest = &rest[i + k..];
        let end = rest.find('"').unwrap_or(rest.len());
        rest = &rest[end..];
    }
    out.push_str(rest);
    out
}

#[test]
fn every_reader_reads_past_a_byte_order_mark() {
    let dir = tempfile::tempdir().expect("tempdir");
    let d = dir.path();
    both(d, "examples/form-every-kind.request.json", "req.json");
    both(d, "examples/form-every-kind.result.json", "res.json");
    both(d, "examples/stream.requests.jsonl", "stream.jsonl");
    both(d, "examples/inputs/elicit.params.json", "params.json");
    both(d, "examples/inputs/elicit.params.jsonl", "params.jsonl");
    both(d, "examples/inputs/answers.rules.json", "rules.json");
    both(d, "examples/inputs/content.effect.json", "effect.json");
    let runs: [(&[&str], Option<i32>); 10] = [
        (
            &["respond", "--answers", "F:rules.json", "F:stream.jsonl"],
            None,
        ),
        (&["validate", "F:req.json"], Some(0)),
        (&["validate", "F:stream.jsonl"], Some(0)),
        (
            &["validate", "--request", "F:req.json", "F:res.json"],
            Some(0),
        ),
        (
            &["respond", "--action", "decline", "F:stream.jsonl"],
            Some(0),
        ),
        (&["wrap", "--server", "s", "F:params.json"], Some(0)),
        (&["wrap", "--server", "s", "F:params.jsonl"], Some(0)),
        (
            &["answers", "check", "F:rules.json", "F:stream.jsonl"],
            None,
        ),
        (&["answers", "check", "F:rules.json"], Some(0)),
        (
            &[
                "modify",
                "--permission",
                "read-write",
                "--request",
                "F:req.json",
                "--result",
                "F:res.json",
                "--effect",
                "F:effect.json",
            ],
            Some(0),
        ),
    ];
    for (args, want) in runs {
        let plain: Vec<String> = args.iter().map(|a| a.replace("F:", "")).collect();
        let marked: Vec<String> = args.iter().map(|a| a.replace("F:", "bom-")).collect();
        let plain: Vec<&str> = plain.iter().map(String::as_str).collect();
        let marked: Vec<&str> = marked.iter().map(String::as_str).collect();
        let (code, out, err) = common::run_in(&plain, d);
        if want.is_some() {
            assert_eq!(code, want, "{plain:?}: {err}");
        }
        let (bom_code, bom_out, bom_err) = common::run_in(&marked, d);
        assert_eq!(bom_code, code, "{marked:?}: {bom_err}");
        assert_eq!(
            untimed(&bom_out.replace("bom-", "")),
            untimed(&out),
            "{marked:?}: {bom_err}"
        );
    }
}
