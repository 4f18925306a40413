//! `validate` throughput: the validate command's core
//! ([`split_input`] and [`Checker`]: limits, wire root, pinned MCP
//! definitions, closed form subset, cross-body checks) on a mix of request
//! and result events, beside a plain `serde_json::from_slice` of the same
//! bytes. `benches/py_validate.py` measures Python `jsonschema` on the same
//! mix.
//!
//! The mix (same rule in the Python script): the `.json` examples in name
//! order, then the lines of `stream.requests.jsonl`, then for every vector
//! its `request` then its `result` (whichever it has), one event a line.
//!
//! Run: `cargo bench --bench validate -- --warm-up-time 1 --measurement-time 3`.

use std::path::PathBuf;

use ahp_elicit::validate::{split_input, Checker};
use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use serde_json::Value;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The mix as JSON Lines and the number of events in it.
pub fn mix() -> (Vec<u8>, usize) {
    let ex = root().join("examples");
    let mut names: Vec<PathBuf> = std::fs::read_dir(&ex)
        .expect("examples")
        .map(|e| e.expect("entry").path())
        .collect();
    names.sort();
    let mut events: Vec<Value> = Vec::new();
    for p in &names {
        if p.extension().is_none_or(|e| e != "json") {
            continue;
        }
        let text = std::fs::read_to_string(p).expect("example");
        events.push(serde_json::from_str(&text).expect("example JSON"));
    }
    for p in &names {
        if p.extension().is_some_and(|e| e == "jsonl") {
            let text = std::fs::read_to_string(p).expect("stream");
            for l in text.lines().filter(|l| !l.trim().is_empty()) {
                events.push(serde_json::from_str(l).expect("stream line"));
            }
        }
    }
    let vectors =
        std::fs::read_to_string(root().join("tests/vectors/elicitation.jsonl")).expect("vectors");
    for l in vectors.lines().filter(|l| !l.trim().is_empty()) {
        let v: Value = serde_json::from_str(l).expect("vector");
        for k in ["request", "result"] {
            if let Some(e) = v.get(k) {
                events.push(e.clone());
            }
        }
    }
    let mut out = Vec::new();
    for e in &events {
        out.extend(serde_json::to_vec(e).expect("serialize"));
        out.push(b'\n');
    }
    (out, events.len())
}

fn bench(c: &mut Criterion) {
    let (bytes, n) = mix();
    // Sanity: every event gets a verdict.
    let mut count = 0;
    let mut checker = Checker::new(Vec::new());
    split_input(&bytes[..], |ch| {
        let _ = checker.check(&ch.bytes.expect("line within limits"));
        count += 1;
    })
    .expect("in-memory read");
    assert_eq!(count, n);
    eprintln!("mix: {n} events, {} bytes", bytes.len());

    let mut g = c.benchmark_group("validate");
    g.throughput(Throughput::Elements(n as u64));
    g.bench_function("ahp-elicit validate core", |b| {
        b.iter(|| {
            let mut checker = Checker::new(Vec::new());
            let mut invalid = 0usize;
            split_input(&bytes[..], |ch| {
                if let Ok(b) = ch.bytes {
                    if !checker.check(&b).errors.is_empty() {
                        invalid += 1;
                    }
                }
            })
            .expect("in-memory read");
            std::hint::black_box(invalid)
        })
    });
    g.bench_function("serde_json::from_slice only", |b| {
        b.iter(|| {
            let mut k = 0usize;
            for line in bytes.split(|&b| b == b'\n').filter(|l| !l.is_empty()) {
                let v: Value = serde_json::from_slice(line).expect("JSON");
                k += v.as_object().map_or(0, |o| o.len());
            }
            std::hint::black_box(k)
        })
    });
    g.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .warm_up_time(std::time::Duration::from_secs(1))
        .measurement_time(std::time::Duration::from_secs(3))
        .sample_size(20);
    targets = bench
}
criterion_main!(benches);
