#!/usr/bin/env bash
# Long streams: events/s and peak RSS of `ahp-elicit validate` and
# `ahp-elicit respond --action decline` on a short and a long stream of the
# same events (every request and result of examples/ and tests/vectors/,
# each with a distinct id), to show that speed holds and memory stays
# bounded as the stream grows.
#
#   bash benches/streams.sh [SHORT] [LONG]    # defaults 10000 1000000
#   SHORT_RUNS=5 LONG_RUNS=3 BIN=path/to/ahp-elicit bash benches/streams.sh
#
# Each speed is the median of the runs (5 on the short stream, 3 on the
# long one, by default) and each peak RSS the largest of them, so one slow
# moment of a shared machine does not decide the comparison.
set -euo pipefail
cd "$(dirname "$0")/.."
short=${1:-10000}
long=${2:-1000000}
short_runs=${SHORT_RUNS:-5}
long_runs=${LONG_RUNS:-3}
work=$(mktemp -d "${TMPDIR:-/tmp}/ahp-streams.XXXXXX")
trap 'rm -rf "$work"' EXIT
if [ -z "${BIN:-}" ]; then cargo build --release --locked -q; fi
bin=${BIN:-target/release/ahp-elicit}

# N valid events in order (requests followed by their results), distinct
# ids; with "requests", the requests only.
make() {
  python3 - "$1" "$2" "$3" <<'PY'
import json, subprocess, sys, tempfile, os
n, kind, out = int(sys.argv[1]), sys.argv[2], sys.argv[3]
d = tempfile.mkdtemp()
subprocess.run([sys.executable, "benches/compare/make_workload.py", d, "1"], check=True,
               stdout=subprocess.DEVNULL)
base = [json.loads(l) for l in open(os.path.join(d, "valid.jsonl"))]
if kind == "requests":
    base = [e for e in base if e.get("type") == "user.elicitation.request"]
with open(out, "w") as f:
    i = 0
    while i < n:
        k = i // len(base)
        for e in base:
            if i >= n:
                break
            e = dict(e)
            e["id"] = f"{e['id']}-s{k}"
            if "parentEventId" in e:
                e["parentEventId"] = f"{e['parentEventId']}-s{k}"
            f.write(json.dumps(e, separators=(",", ":")) + "\n")
            i += 1
PY
}

# Median seconds (wall, perf_counter) and largest peak RSS (KiB, from the
# child's rusage) of RUNS runs of a command, stdout discarded.
measure() {
  python3 - "$@" <<'PY'
import os, subprocess, sys, time
runs, cmd = int(sys.argv[1]), sys.argv[2:]
secs, peak = [], 0
for _ in range(runs):
    t = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, _, usage = os.wait4(p.pid, 0)
    secs.append(time.perf_counter() - t)
    peak = max(peak, usage.ru_maxrss)
print(sorted(secs)[len(secs) // 2], peak)
PY
}

report() {
  python3 -c "import sys; what,n,s,kb,unit=sys.argv[1],int(sys.argv[2]),float(sys.argv[3]),int(sys.argv[4]),sys.argv[5]; print(f'{what} {n:>9} {unit}: {s:6.2f} s {n/s:>10,.0f} {unit}/s  peak RSS {kb/1024:6.1f} MB')" "$@"
}

for n in "$short" "$long"; do
  runs=$short_runs
  [ "$n" = "$long" ] && runs=$long_runs
  make "$n" all "$work/v.$n.jsonl"
  make "$n" requests "$work/r.$n.jsonl"
  read -r s kb < <(measure "$runs" "$bin" validate --format json "$work/v.$n.jsonl")
  report "validate" "$n" "$s" "$kb" events
  read -r s kb < <(measure "$runs" "$bin" respond --action decline "$work/r.$n.jsonl")
  report "respond " "$n" "$s" "$kb" requests
  rm -f "$work/v.$n.jsonl" "$work/r.$n.jsonl"
done
