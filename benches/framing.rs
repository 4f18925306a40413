//! Event framing throughput ([`ahp_elicit::stream::Framer`]): a 1 MiB
//! pretty-printed request event (thousands of lines) and the same events as
//! JSON Lines, framed in one pass. The goal: a 1 MiB pretty document well
//! under 100 ms (reading it line by line and re-parsing the document so
//! far took seconds at 75 KB).
//!
//! Run: `cargo bench --bench framing -- --warm-up-time 1 --measurement-time 3`.

use ahp_elicit::binding::limits::MAX_EVENT_BYTES;
use ahp_elicit::stream::{frame_all, frame_reader, Frame};
use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use serde_json::{json, Value};

/// A valid request event with `pad` structured items in its open
/// `extensions`.
fn event(pad: usize) -> Value {
    let items: Vec<Value> = (0..pad)
        .map(
            |i| json!({"i": i, "note": {"text": "padding { \"quoted\" }", "more": [i, "}", null]}}),
        )
        .collect();
    json!({"ahp": "0.1", "id": "bench", "type": "user.elicitation.request",
        "time": "2026-11-30T09:00:00Z", "source": {"adapter": "mcp-stdio"},
        "payload": {"elicitation": {"server": {"name": "bench"}, "mode": "form",
            "request": {"type": "text", "selection": "body",
                "text": "{\"message\":\"Hi\",\"requestedSchema\":{\"type\":\"object\",\"properties\":{}}}"}}},
        "extensions": {"org.example.padding": items}})
}

/// A pretty document of at least 1 MiB.
fn pretty_mib() -> Vec<u8> {
    let mut pad = 4096;
    loop {
        let text = serde_json::to_vec_pretty(&event(pad)).expect("pretty");
        if text.len() >= 1 << 20 {
            return text;
        }
        pad += 1024;
    }
}

fn framing(c: &mut Criterion) {
    let pretty = pretty_mib();
    let frames = frame_all(&pretty, MAX_EVENT_BYTES);
    assert!(matches!(&frames[..], [Frame::Value { .. }]), "one event");
    let lines = pretty.iter().filter(|b| **b == b'\n').count();
    eprintln!("pretty document: {} bytes, {lines} lines", pretty.len());
    let mut g = c.benchmark_group("framing");
    g.throughput(Throughput::Bytes(pretty.len() as u64));
    g.bench_function("pretty_1mib", |b| {
        b.iter(|| frame_all(std::hint::black_box(&pretty), MAX_EVENT_BYTES).len())
    });
    g.bench_function("pretty_1mib_reader", |b| {
        b.iter(|| {
            let mut n = 0;
            frame_reader(std::hint::black_box(&pretty[..]), MAX_EVENT_BYTES, |_| {
                n += 1;
                true
            })
            .expect("read");
            n
        })
    });
    let mut jsonl = Vec::new();
    let one = serde_json::to_vec(&event(8)).expect("json");
    while jsonl.len() < 1 << 20 {
        jsonl.extend_from_slice(&one);
        jsonl.push(b'\n');
    }
    let n = frame_all(&jsonl, MAX_EVENT_BYTES).len();
    assert_eq!(n * (one.len() + 1), jsonl.len());
    g.throughput(Throughput::Bytes(jsonl.len() as u64));
    g.bench_function("json_lines_1mib", |b| {
        b.iter(|| frame_all(std::hint::black_box(&jsonl), MAX_EVENT_BYTES).len())
    });
    g.finish();
}

criterion_group!(benches, framing);
criterion_main!(benches);
