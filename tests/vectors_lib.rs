//! Every conformance vector through the library API.

mod common;

use ahp_elicit::binding::{check_answer, read_request_event, read_result_event};

fn judge(v: &serde_json::Value) -> Result<(), String> {
    let kind = v["kind"].as_str().unwrap();
    match kind {
        "request" => read_request_event(&v["request"])
            .map(|_| ())
            .map_err(|e| format!("{e:?}")),
        "result" => read_result_event(&v["result"])
            .map(|_| ())
            .map_err(|e| format!("{e:?}")),
        "request+result" => {
            let req = read_request_event(&v["request"])
                .map_err(|e| format!("request itself invalid: {e:?}"))?;
            let res = read_result_event(&v["result"]).map_err(|e| format!("{e:?}"))?;
            let errs = check_answer(&req, &res);
            if errs.is_empty() {
                Ok(())
            } else {
                Err(format!("{errs:?}"))
            }
        }
        other => panic!("unknown vector kind {other}"),
    }
}

#[test]
fn every_vector_passes_through_the_library() {
    let vectors = common::vectors();
    assert_eq!(vectors.len(), 60, "the vector file has 60 cases");
    let mut failures = Vec::new();
    for v in &vectors {
        let id = v["id"].as_str().unwrap();
        let want_valid = v["expect"] == "valid";
        let got = judge(v);
        if got.is_ok() != want_valid {
            failures.push(format!("{id}: expected {}, got {got:?}", v["expect"]));
        }
    }
    assert!(
        failures.is_empty(),
        "{} vectors failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
