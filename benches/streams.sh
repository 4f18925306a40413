#!/usr/bin/env bash
# Long streams, start and size, in one run: events/s, CPU time and peak RSS
# of `ahp-elicit validate` and `ahp-elicit respond --action decline` on a
# short and a long stream of the same events (every request and result of
# examples/ and tests/vectors/, each with a distinct id), to show that
# speed holds and memory stays bounded as the stream grows; then the first
# full `demo` frame and the demo's peak RSS (benches/first_frame.py) and the
# size of the binary (the release build; PROFILE=dist measures the
# distributed one). It ends with one table: each figure of this run, its
# goal, and whether it is met.
#
#   bash benches/streams.sh [SHORT] [LONG]    # defaults 10000 1000000
#   SHORT_RUNS=5 LONG_RUNS=3 FRAME_RUNS=30 BIN=path/to/ahp-elicit bash benches/streams.sh
#
# Each speed is the median of the runs (5 on the short stream, 3 on the
# long one, by default) and each peak RSS the largest of them, so one slow
# moment of a shared machine does not decide the comparison. The CPU time
# per event (user + system, all threads, from the child's rusage) is
# printed beside it: on a machine shared with other work it moves far less
# than the wall time, so it tells a slower program from a busier machine.
# All streams are written and synced to disk before any is timed, so the
# kernel's writeback of those files does not run during the timed runs.
# Needs GNU time (/usr/bin/time), which gives each peak RSS.
# MB here is 2^20 bytes.
set -euo pipefail
cd "$(dirname "$0")/.."
short=${1:-10000}
long=${2:-1000000}
short_runs=${SHORT_RUNS:-5}
long_runs=${LONG_RUNS:-3}
frame_runs=${FRAME_RUNS:-30}
work=$(mktemp -d "${TMPDIR:-/tmp}/ahp-streams.XXXXXX")
trap 'rm -rf "$work"' EXIT
# PROFILE=dist measures the distributed build (default: release, the build
# the README has people make).
profile=${PROFILE:-release}
if [ -z "${BIN:-}" ]; then cargo build --profile "$profile" --locked -q; fi
bin=${BIN:-target/$profile/ahp-elicit}

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

# Median seconds (wall, perf_counter), median CPU seconds (user + system,
# from the child's rusage) and largest peak RSS (KiB) of RUNS runs of a
# command, stdout discarded. The command is started by GNU time, whose
# figure is the peak: the rusage of a child Python starts carries Python's
# own peak across the exec (`/bin/true` measures 10 to 14 MB so).
measure() {
  python3 - "$@" <<'PY'
import os, subprocess, sys, tempfile, time
runs, cmd = int(sys.argv[1]), sys.argv[2:]
secs, cpu, peak = [], [], 0
fd, peak_file = tempfile.mkstemp()
os.close(fd)
for _ in range(runs):
    t = time.perf_counter()
    p = subprocess.Popen(["/usr/bin/time", "-f", "%M", "-o", peak_file] + cmd,
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, _, usage = os.wait4(p.pid, 0)
    secs.append(time.perf_counter() - t)
    cpu.append(usage.ru_utime + usage.ru_stime)
    with open(peak_file) as f:
        peak = max(peak, int(f.read().split()[-1]))
os.unlink(peak_file)
print(sorted(secs)[len(secs) // 2], sorted(cpu)[len(cpu) // 2], peak)
PY
}

figures=$work/figures
report() {
  python3 -c 'import sys
what, n, s, cpu, kb, unit = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4]), int(sys.argv[5]), sys.argv[6]
print(f"{what:<8} {n:>9} {unit}: {s:6.2f} s {n/s:>10,.0f} {unit}/s  CPU {cpu/n*1e6:6.1f} us/{unit[:-1]}  peak RSS {kb/1024:6.1f} MB")' "$@"
  echo "$1 $2 $3 $4 $5" >> "$figures"
}

for n in "$short" "$long"; do
  make "$n" all "$work/v.$n.jsonl"
  make "$n" requests "$work/r.$n.jsonl"
done
sync
for n in "$short" "$long"; do
  runs=$short_runs
  [ "$n" = "$long" ] && runs=$long_runs
  read -r s cpu kb < <(measure "$runs" "$bin" validate --format json "$work/v.$n.jsonl")
  report validate "$n" "$s" "$cpu" "$kb" events
  read -r s cpu kb < <(measure "$runs" "$bin" respond --action decline "$work/r.$n.jsonl")
  report respond "$n" "$s" "$cpu" "$kb" requests
done
rm -f "$work"/*.jsonl

frame=$(python3 benches/first_frame.py "$bin" "$frame_runs")
echo "$frame"
size=$(stat -c %s "$bin")
echo "$profile binary: $size bytes"

# One table: figure, this run, goal, met ("-": shown, no goal of its own).
echo "$frame" | python3 -c '
import re, sys
figures, size, short, long = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
profile = sys.argv[5]
frame = sys.stdin.read()
got = {}
for line in open(figures):
    what, n, s, cpu, kb = line.split()
    got[(what, int(n))] = (int(n) / float(s), float(cpu) / int(n) * 1e6, int(kb) / 1024)
ms = float(re.search(r"median ([0-9.]+) ms", frame).group(1))
rss = float(re.search(r"RSS over .*?max ([0-9.]+) MB", frame).group(1))
rs, rl = got[("respond", short)], got[("respond", long)]
vs, vl = got[("validate", short)], got[("validate", long)]
rows = [
    (f"respond --action decline, {short:,} requests", f"{rs[0]:,.0f}/s", ">= 60,000/s", rs[0] >= 60000),
    (f"respond, {long:,} requests", f"{rl[0]:,.0f}/s = {rl[0] / rs[0]:.2f}x the {short:,} figure",
     ">= 0.90x", rl[0] >= 0.9 * rs[0]),
    (f"respond CPU per request, {short:,} / {long:,}",
     f"{rs[1]:.1f} / {rl[1]:.1f} us = {rl[1] / rs[1]:.2f}x", "-", None),
    (f"respond peak RSS, {long:,} requests", f"{rl[2]:.1f} MB", "< 50 MB", rl[2] < 50),
    (f"validate, {long:,} events", f"{vl[0]:,.0f}/s = {vl[0] / vs[0]:.2f}x the {short:,} figure", "-", None),
    (f"validate peak RSS, {long:,} events", f"{vl[2]:.1f} MB", "< 50 MB", vl[2] < 50),
    ("first full demo frame, median", f"{ms:.2f} ms", "<= 6 ms", ms <= 6),
    ("demo peak RSS", f"{rss:.1f} MB", "<= 10 MB", rss <= 10),
    # The size goal is for the distributed build (PROFILE=dist).
    (f"{profile} binary", f"{size / 2**20:.1f} MB ({size:,} bytes)",
     "<= 8 MB" if profile == "dist" else "-", size <= 8 * 2**20 if profile == "dist" else None),
]
w = [max(len(r[i]) for r in rows + [("figure", "this run", "goal")]) for i in range(3)]
print()
def row(a, b, c, d):
    print(f"| {a:<{w[0]}} | {b:<{w[1]}} | {c:<{w[2]}} | {d:<3} |")
row("figure", "this run", "goal", "met")
row("-" * w[0], "-" * w[1], "-" * w[2], "---")
for what, now, goal, met in rows:
    m = "-" if met is None else ("yes" if met else "no")
    row(what, now, goal, m)
' "$figures" "$size" "$short" "$long" "$profile"
