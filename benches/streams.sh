#!/usr/bin/env bash
# Long streams: events/s and peak RSS of `ahp-elicit validate` and
# `ahp-elicit respond --action decline` on a short and a long stream of the
# same events (every request and result of examples/ and tests/vectors/,
# each with a distinct id), to show that speed holds and memory stays
# bounded as the stream grows. Needs GNU time.
#
#   bash benches/streams.sh [SHORT] [LONG]    # defaults 10000 1000000
set -euo pipefail
cd "$(dirname "$0")/.."
short=${1:-10000}
long=${2:-1000000}
work=$(mktemp -d "${TMPDIR:-/tmp}/ahp-streams.XXXXXX")
trap 'rm -rf "$work"' EXIT
cargo build --release --locked -q
bin=target/release/ahp-elicit

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

# Seconds and peak RSS (KiB) of a command, stdout discarded.
measure() {
  /usr/bin/time -f "%e %M" "$@" > /dev/null 2> "$work/time" || true
  tail -1 "$work/time"
}

for n in "$short" "$long"; do
  make "$n" all "$work/v.$n.jsonl"
  make "$n" requests "$work/r.$n.jsonl"
  read -r s kb < <(measure "$bin" validate --format json "$work/v.$n.jsonl")
  python3 -c "import sys; n,s,kb=int(sys.argv[1]),float(sys.argv[2]),int(sys.argv[3]); print(f'validate {n:>9} events: {s:6.2f} s {n/s:>10,.0f} events/s  peak RSS {kb/1024:6.1f} MB')" "$n" "$s" "$kb"
  read -r s kb < <(measure "$bin" respond --action decline "$work/r.$n.jsonl")
  python3 -c "import sys; n,s,kb=int(sys.argv[1]),float(sys.argv[2]),int(sys.argv[3]); print(f'respond  {n:>9} requests: {s:6.2f} s {n/s:>10,.0f} requests/s peak RSS {kb/1024:6.1f} MB')" "$n" "$s" "$kb"
  rm -f "$work/v.$n.jsonl" "$work/r.$n.jsonl"
done
