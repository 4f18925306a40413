#!/usr/bin/env bash
# Peak memory (maximum resident set size, GNU time) of `ahp-elicit respond`
# under two floods; the goal is under 100 MB each:
#  1. a stream of large valid requests (3.9 MB each, 200 of them, ~780 MB)
#     answered by `--action decline`: the reader stays within its read-ahead
#     budget, so memory does not grow with the stream;
#  2. a stream of invalid lines (1,000,000 lines, ~67 MB) while the terminal
#     UI waits for a request (in a pseudo-terminal): the held messages stay
#     within their bound, the rest is counted; the run is then quit with
#     Ctrl-C twice.
# Usage: benches/flood_memory.sh [path/to/ahp-elicit]   (needs python3 and
# GNU time: apt-get install time)
set -euo pipefail
bin=${1:-target/release/ahp-elicit}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

python3 - "$work/big.json" <<'PY'
import json, sys
params = {"message": "Big request.", "requestedSchema": {"type": "object",
          "properties": {"name": {"type": "string"}}}}
pad = ["x" * 60000 for _ in range(65)]
ev = {"ahp": "0.1", "id": "big", "type": "user.elicitation.request",
      "time": "2026-11-30T09:00:00Z", "source": {"adapter": "mcp-stdio"},
      "payload": {"elicitation": {"server": {"name": "flood"}, "mode": "form",
          "request": {"type": "text", "selection": "body", "text": json.dumps(params)}}},
      "extensions": {"org.example.padding": pad}}
open(sys.argv[1], "w").write(json.dumps(ev))
PY
echo "event size: $(stat -c %s "$work/big.json") bytes"

echo "1. 200 valid 3.9 MB requests, --action decline:"
python3 - "$work/big.json" <<'PY' | /usr/bin/time -v -o "$work/t1" "$bin" respond --action decline > "$work/out1"
import sys
ev = open(sys.argv[1], "rb").read()
out = sys.stdout.buffer
for i in range(200):
    out.write(ev.replace(b'"id": "big"', b'"id": "big-%d"' % i, 1) + b"\n")
PY
echo "   results: $(wc -l < "$work/out1")"
grep -E "Maximum resident set size|Elapsed" "$work/t1" | sed 's/^/   /'

echo "2. 1,000,000 invalid lines while the terminal UI waits:"
python3 - "$bin" "$work" <<'PY'
import fcntl, os, pty, subprocess, sys, termios, threading, time
bin, work = sys.argv[1], sys.argv[2]
fifo = os.path.join(work, "in.fifo")
os.mkfifo(fifo)
master, slave = pty.openpty()
env = dict(os.environ, TERM="xterm-256color")
p = subprocess.Popen(["/usr/bin/time", "-v", "-o", os.path.join(work, "t2"), bin,
                      "respond", fifo], stdin=slave, stdout=slave, stderr=slave,
                     env=env, start_new_session=True,
                     preexec_fn=lambda: fcntl.ioctl(0, termios.TIOCSCTTY, 0))
os.close(slave)
seen = bytearray()
def drain():
    while True:
        try:
            b = os.read(master, 65536)
        except OSError:
            return
        if not b:
            return
        seen.extend(b[-4096:])
threading.Thread(target=drain, daemon=True).start()
w = open(fifo, "wb")
line = b"this is not a JSON event, it is a line of text of some sixty bytes\n"
chunk = line * 10000
for _ in range(100):
    w.write(chunk)
w.flush()
time.sleep(2)
os.write(master, b"\x03")
time.sleep(0.5)
os.write(master, b"\x03")
p.wait(timeout=60)
w.close()
print("   exit:", p.returncode)
PY
grep -E "Maximum resident set size|Elapsed" "$work/t2" | sed 's/^/   /'
