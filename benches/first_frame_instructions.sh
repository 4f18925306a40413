#!/usr/bin/env bash
# Instructions a `demo` start executes up to the end of its first frame
# (callgrind's count, the dynamic loader's work included): a figure of the
# program's own work that does not move with the machine's load, unlike
# the wall time of benches/first_frame.py. Needs valgrind and tmux; the
# binary needs its symbols (callgrind stops when ratatui has written the
# first frame's cells, `apply_buffer_with_cursor`, which every build keeps
# as a function): by default the release build relinked without stripping.
#
#   bash benches/first_frame_instructions.sh [path/to/ahp-elicit-with-symbols]
#
# Prints the count; the profile file stays in a temporary folder named on
# the last line (`callgrind_annotate --inclusive=yes FILE` shows where the
# instructions go).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -z "${1:-}" ]; then
  cargo rustc --release --locked -q --bin ahp-elicit -- -C strip=none
  bin=$(mktemp "${TMPDIR:-/tmp}/ahp-elicit-sym.XXXXXX")
  # (The next `cargo build --release` links the stripped binary again.)
  cp target/release/ahp-elicit "$bin"
else
  bin=$1
fi
out=$(mktemp -d "${TMPDIR:-/tmp}/ahp-first-frame-ir.XXXXXX")
sock="ahp-ir-$$"
tmux -L "$sock" -f /dev/null new-session -d -x 80 -y 24 \
  "valgrind --tool=callgrind --dump-after='*apply_buffer_with_cursor' --callgrind-out-file=$out/cg.%p $bin demo >/dev/null 2>$out/valgrind.err"
# The first dump (.1) is written when the first frame is drawn.
for _ in $(seq 120); do
  ls "$out"/cg.*.1 >/dev/null 2>&1 && break
  sleep 0.5
done
sleep 1
tmux -L "$sock" send-keys Escape
sleep 3
tmux -L "$sock" kill-server 2>/dev/null || true
first=$(ls "$out"/cg.*.1)
echo "instructions up to the end of the first demo frame: $(awk '/^summary:/ {print $2}' "$first")"
echo "profile: $first"
