#!/usr/bin/env bash
# Side-by-side validation speed: `ahp-elicit validate` (whole process)
# against ajv 8 + ajv-formats and Python `jsonschema` (both in-process,
# schema work only) on the same workloads, in one run.
#
#   bash benches/compare.sh [N]     # N events per workload, default 20000
#   PY_EVENTS=20000 bash benches/compare.sh   # Python on more than its default 4000
#   RUNS=9 PY_RUNS=5 bash benches/compare.sh  # more repetitions (default 5 and 3)
#
# It builds the release binary, installs the pinned ajv into
# benches/compare/node_modules (npm ci) and Python jsonschema (pip) if
# missing, writes the workloads (benches/compare/make_workload.py: mixed
# valid and invalid events, and an all-valid one, from examples/ and
# tests/vectors/), runs the three, checks that they agree where their work
# overlaps (ajv and Python give the same schema verdicts; every event a
# schema rejects, ahp-elicit rejects too: it adds the runtime and cross-body
# checks), and prints events/s and the ratios. Each figure is the median of
# RUNS runs (ahp-elicit: whole processes, one after the other; ajv and
# Python: passes over the file in one process, after a warm-up), so one
# slow moment of a shared machine does not decide a ratio; every run's time
# is printed too.
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-20000}
py_n=${PY_EVENTS:-4000}
runs=${RUNS:-5}
py_runs=${PY_RUNS:-3}
here=benches/compare
work=$(mktemp -d "${TMPDIR:-/tmp}/ahp-compare.XXXXXX")
trap 'rm -rf "$work"' EXIT

# BIN=path/to/ahp-elicit measures that binary instead of building one.
# PROFILE=dist measures the distributed build (default: release, the build
# the README has people make).
profile=${PROFILE:-release}
if [ -z "${BIN:-}" ]; then cargo build --profile "$profile" --locked -q; fi
bin=${BIN:-target/$profile/ahp-elicit}
[ -d "$here/node_modules/ajv" ] || npm ci --prefix "$here" --no-audit --no-fund --loglevel=error
python3 -c 'import jsonschema' 2>/dev/null || pip install -q 'jsonschema==4.26.0'

python3 "$here/make_workload.py" "$work" "$n"

# Wall time of a whole process, in seconds, stdout to a file.
timed() {
  python3 -c 'import subprocess, sys, time
t = time.perf_counter()
with open(sys.argv[1], "w") as out:
    subprocess.run(sys.argv[2:], stdout=out)
print(time.perf_counter() - t)' "$@"
}
for w in mixed valid; do
  f="$work/$w.jsonl"
  events=$(grep -c . "$f")
  "$bin" validate --format json "$f" > /dev/null || true # warm the page cache
  times=()
  for _ in $(seq "$runs"); do
    times+=("$(timed "$work/ours.$w.json" "$bin" validate --format json "$f")")
  done
  ours_s=$(printf '%s\n' "${times[@]}" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
  ours_runs=$(printf '%s ' "${times[@]}")
  python3 - "$work/ours.$w.json" "$work/ours.$w" <<'PY'
import json, sys
with open(sys.argv[2], "w") as out:
    for l in open(sys.argv[1]):
        out.write("1\n" if json.loads(l)["valid"] else "0\n")
PY
  ajv=$(node "$here/ajv_validate.mjs" "$f" "$work/ajv.$w" "$runs")
  # Python: the first $py_n events only (it takes about 2 ms an event).
  py=$(python3 "$here/py_validate_file.py" "$f" "$work/py.$w" "$py_n" "$py_runs")
  python3 - "$w" "$events" "$ours_s" "$ajv" "$py" "$work/ours.$w" "$work/ajv.$w" "$work/py.$w" "$ours_runs" "$work/rows" <<'PY'
import json, sys
w, events, ours_s = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
ours_runs = [float(x) for x in sys.argv[9].split()]
ajv, py = json.loads(sys.argv[4]), json.loads(sys.argv[5])
read = lambda p: [int(x) for x in open(p).read().split()]
ours, a, p = read(sys.argv[6]), read(sys.argv[7]), read(sys.argv[8])
assert len(ours) == len(a) == events and len(p) == py["events"], (len(ours), len(a), len(p), events)
ajv_py = sum(x != y for x, y in zip(a, p))  # over the Python sample
schema_only = sum(1 for o, x in zip(ours, a) if x == 0 and o == 1)
stricter = sum(1 for o, x in zip(ours, a) if x == 1 and o == 0)
eps = events / ours_s
print(f"== {w}: {events} events ({sum(ours)} valid for ahp-elicit, {ajv['valid']} for ajv; "
      f"jsonschema on the first {py['events']}: {py['valid']} valid)")
show = lambda xs: " ".join(f"{x:.3f}" for x in xs)
print(f"  ahp-elicit validate (whole process): {ours_s:.3f} s, {eps:,.0f} events/s   (median of {show(ours_runs)})")
print(f"  ajv 8 (in-process, schema only):     {ajv['seconds']:.3f} s, {ajv['eventsPerSecond']:,.0f} events/s   (median of {show(ajv['runs'])})")
print(f"  python jsonschema (in-process):      {py['seconds']:.3f} s, {py['eventsPerSecond']:,.0f} events/s   (median of {show(py['runs'])})")
print(f"  ratio ahp-elicit / ajv:    {eps / ajv['eventsPerSecond']:.2f}x")
print(f"  ratio ahp-elicit / python: {eps / py['eventsPerSecond']:.1f}x")
print(f"  agreement: ajv vs jsonschema differ on {ajv_py}; schema-invalid but ahp-elicit-valid: {schema_only}; "
      f"ahp-elicit-only rejections (runtime and cross-body checks): {stricter}")
ratio_ajv, ratio_py = eps / ajv['eventsPerSecond'], eps / py['eventsPerSecond']
name = {"valid": "all-valid", "mixed": "mixed"}[w]
with open(sys.argv[10], "a") as rows:
    rows.write(f"| `validate`, {name} {events:,} events (whole process) vs ajv 8 in-process, warmed "
               f"| {eps:,.0f}/s vs {ajv['eventsPerSecond']:,.0f}/s = {ratio_ajv:.2f}x | ≥ 1.5x "
               f"| {'met' if ratio_ajv >= 1.5 else 'not met'} |\n")
    rows.write(f"| same, {name}, vs Python `jsonschema` | {ratio_py:.1f}x | ≥ 100x "
               f"| {'met' if ratio_py >= 100 else 'not met'} |\n")
if ajv_py or schema_only:
    sys.exit(f"the validators disagree on the {w} workload")
PY
done
# The validate rows of the speed table (figure, now, goal, whether met).
echo
echo "| figure | now | goal | |"
echo "|---|---|---|---|"
cat "$work/rows"
