#!/usr/bin/env python3
"""`ahp-elicit validate` against ajv 8, interleaved: the ratio of each round.

The same events (benches/compare/make_workload.py: the all-valid and the
mixed workload of N events, default 20,000; with every report, in
/dev/shm when it is there, so that no side's writeback to disk lands in
another's round, and removed at the end) are checked ROUNDS times
(default 15) by each side, one right after the other in each round (the
order rotates), so a busy moment of a shared machine slows every side of a
round rather than one side of the comparison:

- `ahp-elicit validate --format json FILE` as a whole process (start,
  reading, every check, every error with its JSON pointer, rule and
  message, one JSON line an event written), wall time; its checks run on
  as many threads as the machine has cores (at most 8);
- ajv 8 with ajv-formats (draft 2020-12, formats asserted) in one node
  process, warmed (benches/compare/ajv_validate.mjs --serve), on one
  thread, two ways, timed inside node:
  - like for like (`report`, the goal's comparison): the file read and
    split, each event through the wire root and its body text through the
    `request`/`result` definition with every error collected (allErrors
    on), one JSON line an event written ({id, type, valid, errors:
    [{pointer, rule, message}], input, line});
  - lean (`pass`, shown beside it): over lines already in memory, the
    first error ending an event's check (allErrors off), a verdict byte
    kept, nothing written.

What ajv still does not do that ahp-elicit does (so even the like-for-like
ratio leans towards ajv): the process start; the binding's checks beyond
the schemas (a result's answer against its request, the form subset's
rules the schemas cannot say, limits, text parts); messages naming the
rule; terminal-unsafe characters of server text escaped in the output.

A round's ratio is ajv's time over ahp-elicit's (events/s of ahp-elicit
over events/s of ajv: above 1, ahp-elicit is faster). A run's figure is
the median of its per-round like-for-like ratios; the goal is GOAL (1.5x)
in every run. Printed for each workload and run: the median, the minimum
and the maximum of the per-round ratios against each ajv pass, each
round's like-for-like ratio and how many rounds reach GOAL, and whether the
run's median meets it; with RUNS above 1, the runs' medians and in how many
runs the goal was met (the exit status is 0 when it was met in all).
The verdicts are compared first: every event ajv rejects, ahp-elicit must
reject too (it adds the runtime and cross-body checks).

    python3 benches/validate_vs_ajv.py [BIN] [ROUNDS] [N] [RUNS]
    RUNS (default 1) whole runs, one after the other; BIN defaults to target/release/ahp-elicit (build it first:
    cargo build --release); ajv is installed pinned into
    benches/compare/node_modules by `npm ci` when missing.
"""
import json
import os
import shutil
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


def ratios(theirs, ours):
    return [a / o for a, o in zip(theirs, ours)]


def main():
    binary = sys.argv[1] if len(sys.argv) > 1 else "target/release/ahp-elicit"
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 15
    n = int(sys.argv[3]) if len(sys.argv) > 3 else 20000
    runs = int(sys.argv[4]) if len(sys.argv) > 4 else 1
    if not os.path.isdir(os.path.join(COMPARE, "node_modules", "ajv")):
        subprocess.run(["npm", "ci", "--prefix", COMPARE, "--no-audit", "--no-fund",
                        "--loglevel=error"], check=True)
    # The workloads and every side's report in memory (tmpfs) where there
    # is one: a report written to disk leaves dirty pages whose writeback
    # lands in later rounds of either side.
    shm = "/dev/shm" if os.path.isdir("/dev/shm") and os.access("/dev/shm", os.W_OK) else None
    work = tempfile.mkdtemp(prefix="ahp-vs-ajv.", dir=shm)
    try:
        return measure(binary, rounds, n, runs, work)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def measure(binary, rounds, n, runs, work):
    subprocess.run([sys.executable, os.path.join(COMPARE, "make_workload.py"), work, str(n)],
                   check=True, stdout=subprocess.DEVNULL)
    met = True
    medians = {"valid": [], "mixed": []}
    for run, w in [(k, w) for k in range(runs) for w in ("valid", "mixed")]:
        path = os.path.join(work, w + ".jsonl")
        events = sum(1 for l in open(path) if l.strip())
        ajv_out = os.path.join(work, "ajv." + w)
        ours_out = os.path.join(work, "ours." + w + ".json")
        node = subprocess.Popen(["node", os.path.join(COMPARE, "ajv_validate.mjs"), "--serve",
                                 path, ajv_out, os.path.join(work, "ajv-report." + w)],
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                                bufsize=1)
        assert node.stdout.readline().strip() == "ready"

        def ajv_once(how):
            node.stdin.write(how + "\n")
            node.stdin.flush()
            return float(node.stdout.readline())

        ours_once(binary, path, ours_out)  # the page cache warmed, the verdicts kept
        ours = [json.loads(l)["valid"] for l in open(ours_out)]
        theirs = [l.strip() == "1" for l in open(ajv_out) if l.strip()]
        assert len(ours) == len(theirs) == events, (len(ours), len(theirs), events)
        bad = sum(1 for o, a in zip(ours, theirs) if o and not a)
        if bad:
            sys.exit(f"{w}: {bad} events ajv rejects were accepted by ahp-elicit")
        sides = {
            "ours": lambda: ours_once(binary, path, ours_out),
            "report": lambda: ajv_once("report"),
            "pass": lambda: ajv_once("pass"),
        }
        order = list(sides)
        times = {k: [] for k in sides}
        for r in range(rounds):
            for k in order[r % 3:] + order[:r % 3]:
                times[k].append(sides[k]())
        node.stdin.close()
        node.wait()
        like = ratios(times["report"], times["ours"])
        lean = ratios(times["pass"], times["ours"])
        low = min(like)
        mid = statistics.median(like)
        met &= mid >= GOAL
        medians[w].append(mid)
        med = {k: statistics.median(v) for k, v in times.items()}
        name = {"valid": "all-valid", "mixed": "mixed"}[w]
        print(f"== {name}: {events} events, {rounds} rounds"
              + (f", run {run + 1} of {runs}" if runs > 1 else ""))
        print(f"  ahp-elicit validate (whole process): median {med['ours']:.3f} s "
              f"({events / med['ours']:,.0f} events/s)")
        print(f"  ajv 8 like for like (warmed; file read, every error, report written): "
              f"median {med['report']:.3f} s ({events / med['report']:,.0f} events/s)")
        print(f"  ajv 8 lean (warmed; in memory, first error, verdict only): "
              f"median {med['pass']:.3f} s ({events / med['pass']:,.0f} events/s)")
        print(f"  ratio per round, like for like: median {mid:.2f}x, "
              f"min {low:.2f}x, max {max(like):.2f}x")
        print(f"  ratio per round, lean: median {statistics.median(lean):.2f}x, "
              f"min {min(lean):.2f}x, max {max(lean):.2f}x")
        print("  rounds (like for like): " + " ".join(f"{x:.2f}" for x in like)
              + f" ({sum(x >= GOAL for x in like)} of {rounds} at {GOAL}x or more)")
        print(f"  goal {GOAL}x like for like, the run's median: "
              f"{'met' if mid >= GOAL else 'NOT met'}")
    if runs > 1:
        for w, name in (("valid", "all-valid"), ("mixed", "mixed")):
            ok = sum(m >= GOAL for m in medians[w])
            print(f"== {name}, {runs} runs: medians "
                  + " ".join(f"{m:.2f}x" for m in medians[w])
                  + f"; goal {GOAL}x met in {ok} of {runs} runs")
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())
