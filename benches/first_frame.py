#!/usr/bin/env python3
"""Time from process start to the first full frame of `ahp-elicit demo`.

Runs the binary RUNS times (default 30) in a fresh 80x24 pseudo-terminal and
measures, for each run, the wall time from just before the process is
spawned until the last row of the first frame (the key help, which holds
"Esc cancel") has been written to the terminal; then the run is cancelled
with Esc. The pseudo-terminal answers the background query as a terminal
does (see `answer_queries`). Prints the median, the minimum and the
maximum in milliseconds, and the peak resident set size of `demo` (the
form shown, then cancelled) over min(RUNS, 10) further runs, each started
by GNU time (`/usr/bin/time -f %M`): the rusage of a child that Python
forks is no measure, since the kernel carries the peak of the forked
Python process across the exec (`/bin/true` measures 10 to 14 MB so);
GNU time is a small C program whose child starts from its few pages.
Needs GNU time.

    python3 benches/first_frame.py [path/to/ahp-elicit] [RUNS]
    BASE=path/to/other-build python3 benches/first_frame.py BIN [RUNS]

With BASE, the two builds run in turns (BASE, then BIN, RUNS times), so a
busy moment of a shared machine slows both; it prints both figures and the
median of the per-round ratios (BIN's time over BASE's).

The same measure as the `first_frame_every_kind` criterion bench in
benches/tui.rs, without building the benches.
"""
import fcntl
import os
import pty
import select
import signal
import statistics
import struct
import subprocess
import sys
import tempfile
import termios
import time

MARK = b"Esc cancel"


# The background query a terminal answers before the first frame
# (src/tui/background.rs): OSC 11 asks for the background colour, and the
# device attributes query after it ends the wait. Every terminal answers
# the latter within one round trip, so this pseudo-terminal answers both as
# a dark xterm does; left unanswered, the screen would wait the query's
# whole timeout (1 s), which no real terminal makes it do.
OSC11_QUERY = b"\x1b]11;?\x07"
DA_QUERY = b"\x1b[c"
OSC11_REPLY = b"\x1b]11;rgb:1e1e/1e1e/2e2e\x07"
DA_REPLY = b"\x1b[?62;22c"


def answer_queries(master, chunk):
    if OSC11_QUERY in chunk:
        os.write(master, OSC11_REPLY)
    if DA_QUERY in chunk:
        os.write(master, DA_REPLY)


def one_run(binary, rss=False):
    """One start: (ms to the first frame, None); with `rss`, started by
    GNU time: (that time, the peak RSS in KiB)."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
    env = dict(os.environ, TERM="xterm-256color")
    env.pop("NO_COLOR", None)
    argv = [binary, "demo"]
    if rss:
        fd, peak_file = tempfile.mkstemp(prefix="ahp-first-frame-rss.")
        os.close(fd)
        argv = ["/usr/bin/time", "-f", "%M", "-o", peak_file] + argv
    start = time.perf_counter()
    p = subprocess.Popen(argv, stdin=slave, stdout=subprocess.DEVNULL,
                         stderr=slave, env=env, start_new_session=True,
                         preexec_fn=lambda: fcntl.ioctl(0, termios.TIOCSCTTY, 0))
    os.close(slave)
    seen = b""
    took = None
    deadline = start + 10
    while took is None and time.perf_counter() < deadline:
        ready, _, _ = select.select([master], [], [], 0.5)
        if not ready:
            continue
        try:
            chunk = os.read(master, 65536)
        except OSError:
            break
        if not chunk:
            break
        seen = seen[-64:] + chunk
        answer_queries(master, chunk)
        if MARK in seen:
            took = time.perf_counter() - start
    # Cancel with Esc, again every 500 ms: a form drops the keys of its
    # first 300 ms and each dropped key starts that guard again (keys
    # typed for an earlier screen never answer this one), so a quicker
    # repeat would never get through. The pty is drained meanwhile so the
    # process never blocks on it.
    end = time.perf_counter() + 10
    last = 0.0
    done = False
    try:
        while not done and time.perf_counter() < end:
            pid, _ = os.waitpid(p.pid, os.WNOHANG)
            if pid:
                done = True
                break
            if time.perf_counter() - last > 0.5:
                os.write(master, b"\x1b")
                last = time.perf_counter()
            if select.select([master], [], [], 0.05)[0]:
                os.read(master, 65536)
    except OSError:
        pass
    if not done:
        # os.kill, not p.kill: Popen would reap the child itself.
        try:
            os.kill(p.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        os.waitpid(p.pid, 0)
    p.returncode = 0  # reaped above
    os.close(master)
    if took is None:
        sys.exit("no first frame within 10 s")
    peak = None
    if rss:
        with open(peak_file) as f:
            peak = int(f.read().split()[-1])
        os.unlink(peak_file)
    return took * 1000, peak


def main():
    binary = sys.argv[1] if len(sys.argv) > 1 else "target/release/ahp-elicit"
    runs = int(sys.argv[2]) if len(sys.argv) > 2 else 30
    base = os.environ.get("BASE")
    builds = [base, binary] if base else [binary]
    for b in builds:
        one_run(b)  # warm the page cache
    got = {b: [] for b in builds}
    for _ in range(runs):
        for b in builds:
            got[b].append(one_run(b))
    peaks = {b: [] for b in builds}
    for _ in range(min(runs, 10)):
        for b in builds:
            peaks[b].append(one_run(b, rss=True)[1])
    for b in builds:
        ms = [t for t, _ in got[b]]
        rss = sorted(peaks[b])
        name = f" ({b})" if base else ""
        print(f"first full demo frame over {runs} runs{name}: median {statistics.median(ms):.2f} ms, "
              f"min {min(ms):.2f} ms, max {max(ms):.2f} ms")
        print(f"demo peak RSS over {len(rss)} runs{name}: median {statistics.median(rss) / 1024:.1f} MB, "
              f"max {rss[-1] / 1024:.1f} MB")
    if base:
        ratios = [n[0] / o[0] for o, n in zip(got[base], got[binary])]
        print(f"per-round ratio, {binary} / {base}: median {statistics.median(ratios):.2f} "
              f"(min {min(ratios):.2f}, max {max(ratios):.2f})")


if __name__ == "__main__":
    main()
