#!/usr/bin/env bash
# Peak memory (maximum resident set size) of `ahp-elicit demo` showing the
# every-kind form, then cancelled with Esc. Needs tmux and GNU time.
# Usage: benches/peak_memory.sh [path/to/ahp-elicit]
set -euo pipefail
bin=${1:-target/release/ahp-elicit}
out=$(mktemp)
tmux kill-session -t ahp-mem 2>/dev/null || true
tmux new-session -d -s ahp-mem -x 80 -y 24 "/usr/bin/time -v $bin demo >/dev/null 2>$out"
sleep 1.5
tmux send-keys -t ahp-mem Escape
sleep 1
grep -E "Maximum resident set size" "$out"
rm -f "$out"
