#!/usr/bin/env python3
"""Build the comparison workloads for benches/compare.sh.

From the repository's examples (examples/*.json, *.jsonl) and conformance
vectors (tests/vectors/elicitation.jsonl), write two JSON Lines files of at
least N events each (one compact event a line):

- mixed.jsonl: every request and result event of the examples and vectors,
  valid and invalid, repeated;
- valid.jsonl: only the events the vectors and examples say are valid.

Each repetition gives every event a distinct id (`<id>-r<k>`), and a result's
parentEventId gets the same suffix, so a result still pairs with its own
request and never with another vector's. Usage:
    make_workload.py OUT_DIR [N]
"""
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def groups():
    """Lists of (event, expected_valid) kept together (a request and its result)."""
    out = []
    for p in sorted((ROOT / "examples").iterdir()):
        if p.suffix == ".json":
            out.append([(json.loads(p.read_text()), True)])
        elif p.suffix == ".jsonl":
            out += [[(json.loads(l), True)] for l in p.read_text().splitlines() if l.strip()]
    for line in (ROOT / "tests" / "vectors" / "elicitation.jsonl").read_text().splitlines():
        if not line.strip():
            continue
        v = json.loads(line)
        ok = v["expect"] == "valid"
        if v["kind"] == "request":
            out.append([(v["request"], ok)])
        elif v["kind"] == "result":
            out.append([(v["result"], ok)])
        else:
            out.append([(v["request"], True), (v["result"], ok)])
    return out


def relabel(ev, suffix):
    ev = json.loads(json.dumps(ev))
    if isinstance(ev, dict):
        if isinstance(ev.get("id"), str):
            ev["id"] += suffix
        if isinstance(ev.get("parentEventId"), str):
            ev["parentEventId"] += suffix
    return ev


def write(path, gs, n):
    count, k = 0, 0
    with open(path, "w") as f:
        while count < n:
            for gi, g in enumerate(gs):
                for ev, _ in g:
                    f.write(json.dumps(relabel(ev, f"-g{gi}r{k}"), separators=(",", ":"), ensure_ascii=False))
                    f.write("\n")
                    count += 1
            k += 1
    return count


def main():
    out = Path(sys.argv[1])
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 20000
    out.mkdir(parents=True, exist_ok=True)
    gs = groups()
    valid = [[(e, ok) for e, ok in g if ok] for g in gs]
    valid = [g for g in valid if g]
    m = write(out / "mixed.jsonl", gs, n)
    v = write(out / "valid.jsonl", valid, n)
    print(f"workload: {m} events in mixed.jsonl, {v} in valid.jsonl")


if __name__ == "__main__":
    main()
