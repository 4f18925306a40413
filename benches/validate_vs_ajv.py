#!/usr/bin/env python3
"""`ahp-elicit validate` against ajv 8, interleaved: the ratio of each round.

The same events (benches/compare/make_workload.py: the all-valid and the
mixed workload of N events, default 20,000) are checked ROUNDS times
(default 15) by both, one right after the other in each round (who goes
first alternates), so a busy moment of a shared machine slows both sides
of a round rather than one side of the comparison:

- `ahp-elicit validate --format json FILE` as a whole process (start,
  reading, every check, the verdicts written), wall time;
- ajv 8 with ajv-formats (draft 2020-12) in one node process, warmed
  (benches/compare/ajv_validate.mjs --serve), one pass over the same lines
  checking the schema part only, timed inside node.

A round's ratio is ajv's time over ahp-elicit's (events/s of ahp-elicit
over events/s of ajv: above 1, ahp-elicit is faster). Printed for each
workload: the median, the minimum and the maximum of the per-round ratios,
each round's ratio, and whether the goal (GOAL, 1.5x, in every round: the
minimum) is met. The verdicts are compared first: every event ajv rejects,
ahp-elicit must reject too (it adds the runtime and cross-body checks).

    python3 benches/validate_vs_ajv.py [BIN] [ROUNDS] [N]
    BIN defaults to target/release/ahp-elicit (build it first:
    cargo build --release); ajv is installed pinned into
    benches/compare/node_modules by `npm ci` when missing.
"""
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
COMPARE = os.path.join(HERE, "compare")
GOAL = 1.5


def ours_once(binary, path, out):
    t = time.perf_counter()
    with open(out, "w") as f:
        subprocess.run([binary, "validate", "--format", "json", path], stdout=f,
                       stderr=subprocess.DEVNULL, check=False)
    return time.perf_counter() - t


def main():
    binary = sys.argv[1] if len(sys.argv) > 1 else "target/release/ahp-elicit"
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 15
    n = int(sys.argv[3]) if len(sys.argv) > 3 else 20000
    if not os.path.isdir(os.path.join(COMPARE, "node_modules", "ajv")):
        subprocess.run(["npm", "ci", "--prefix", COMPARE, "--no-audit", "--no-fund",
                        "--loglevel=error"], check=True)
    work = tempfile.mkdtemp(prefix="ahp-vs-ajv.")
    subprocess.run([sys.executable, os.path.join(COMPARE, "make_workload.py"), work, str(n)],
                   check=True, stdout=subprocess.DEVNULL)
    met = True
    for w in ("valid", "mixed"):
        path = os.path.join(work, w + ".jsonl")
        events = sum(1 for l in open(path) if l.strip())
        ajv_out = os.path.join(work, "ajv." + w)
        ours_out = os.path.join(work, "ours." + w + ".json")
        node = subprocess.Popen(["node", os.path.join(COMPARE, "ajv_validate.mjs"), "--serve",
                                 path, ajv_out], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                text=True, bufsize=1)
        assert node.stdout.readline().strip() == "ready"

        def ajv_once():
            node.stdin.write("pass\n")
            node.stdin.flush()
            return float(node.stdout.readline())

        ours_once(binary, path, ours_out)  # the page cache warmed, the verdicts kept
        ours = [json.loads(l)["valid"] for l in open(ours_out)]
        theirs = [l.strip() == "1" for l in open(ajv_out) if l.strip()]
        assert len(ours) == len(theirs) == events, (len(ours), len(theirs), events)
        bad = sum(1 for o, a in zip(ours, theirs) if o and not a)
        if bad:
            sys.exit(f"{w}: {bad} events ajv rejects were accepted by ahp-elicit")
        ratios, ours_s, ajv_s = [], [], []
        for r in range(rounds):
            if r % 2 == 0:
                o = ours_once(binary, path, ours_out)
                a = ajv_once()
            else:
                a = ajv_once()
                o = ours_once(binary, path, ours_out)
            ours_s.append(o)
            ajv_s.append(a)
            ratios.append(a / o)
        node.stdin.close()
        node.wait()
        low = min(ratios)
        met &= low >= GOAL
        name = {"valid": "all-valid", "mixed": "mixed"}[w]
        print(f"== {name}: {events} events, {rounds} rounds")
        print(f"  ahp-elicit validate (whole process): median {statistics.median(ours_s):.3f} s "
              f"({events / statistics.median(ours_s):,.0f} events/s)")
        print(f"  ajv 8 (in-process, warmed, schema only): median {statistics.median(ajv_s):.3f} s "
              f"({events / statistics.median(ajv_s):,.0f} events/s)")
        print(f"  ratio per round: median {statistics.median(ratios):.2f}x, "
              f"min {low:.2f}x, max {max(ratios):.2f}x")
        print("  rounds: " + " ".join(f"{x:.2f}" for x in ratios))
        print(f"  goal {GOAL}x in every round (the minimum): {'met' if low >= GOAL else 'NOT met'}")
    sys.exit(0 if met else 1)


if __name__ == "__main__":
    main()
