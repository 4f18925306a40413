#!/usr/bin/env python3
"""Regenerate link/symbol-order.PROFILE.txt: the functions of the binary that a
`demo` start runs, up to its first frame and then through a cancel (Esc)
and the exit, in the order callgrind first saw them.

build.rs hands the files to the linker (lld's --symbol-ordering-file), which
places these functions side by side at the start of the code. The kernel
maps a program's code in blocks of 64 KiB around each page it runs
(fault-around), so code the start runs, spread over the whole 12 MB of
code, maps about 5 MB; side by side, about 1 MB (docs/testing.md, "What
a demo start holds in memory").

Names are mangled (v0) with each crate's hash: a new compiler, a changed
dependency or another profile renames some of them, and the linker skips
names it does not find (the binary stays correct; only those functions are
left where they were). Run this again after such changes, for each
profile whose figures matter:

    python3 benches/symbol_order.py            # release
    PROFILE=dist python3 benches/symbol_order.py

Each profile has its file (a profile's names would be mostly unknown to
another's build); build.rs gives the linker all of them, one after the
other. Needs valgrind.
"""
import fcntl
import os
import pty
import re
import select
import shutil
import struct
import subprocess
import sys
import tempfile
import termios
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from first_frame import MARK, answer_queries  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def build(profile):
    """An unstripped build of the binary (the same code as the stripped one)."""
    subprocess.run(["cargo", "rustc", "--profile", profile, "--locked", "-q", "--bin",
                    "ahp-elicit", "--", "-C", "strip=none"], cwd=ROOT, check=True)
    fd, path = tempfile.mkstemp(prefix="ahp-elicit-sym.")
    os.close(fd)
    shutil.copy(os.path.join(ROOT, "target", profile, "ahp-elicit"), path)
    return path


def run_demo(binary, out):
    """`demo` under callgrind in an 80x24 pseudo-terminal that answers the
    background query, cancelled with Esc once its first frame is drawn."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
    env = dict(os.environ, TERM="xterm-256color")
    env.pop("NO_COLOR", None)
    p = subprocess.Popen(["valgrind", "--tool=callgrind", "--demangle=no",
                          f"--callgrind-out-file={out}", binary, "demo"],
                         stdin=slave, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                         env=env, start_new_session=True,
                         preexec_fn=lambda: fcntl.ioctl(0, termios.TIOCSCTTY, 0))
    os.close(slave)
    seen = b""
    end = time.monotonic() + 120
    while MARK not in seen and time.monotonic() < end:
        if select.select([master], [], [], 0.5)[0]:
            chunk = os.read(master, 65536)
            seen = seen[-64:] + chunk
            answer_queries(master, chunk)
    if MARK not in seen:
        p.kill()
        sys.exit("no first frame within 120 s")
    # A form drops the keys of its first 300 ms: Esc again until it ends.
    last = 0.0
    while p.poll() is None and time.monotonic() < end:
        if time.monotonic() - last > 1:
            os.write(master, b"\x1b")
            last = time.monotonic()
        if select.select([master], [], [], 0.1)[0]:
            try:
                os.read(master, 65536)
            except OSError:
                pass
    os.close(master)
    p.wait()


def functions_run(profile_file, binary):
    """The functions of `binary` in a callgrind profile, first seen first."""
    obs, fns = {}, {}
    lines = open(profile_file).read().splitlines()
    for line in lines:
        m = re.match(r"^c?ob=\((\d+)\) (.*)$", line)
        if m:
            obs[m.group(1)] = m.group(2)
        m = re.match(r"^c?fn=\((\d+)\) (.*)$", line)
        if m:
            fns[m.group(1)] = m.group(2)
    names, seen, ob = [], set(), ""
    for line in lines:
        m = re.match(r"^ob=\((\d+)\)", line)
        if m:
            ob = obs[m.group(1)]
            continue
        m = re.match(r"^fn=\((\d+)\)", line)
        if m and ob == binary:
            # callgrind marks a function's recursion levels 'N.
            name = re.sub(r"'\d+$", "", fns[m.group(1)])
            if name not in seen:
                seen.add(name)
                names.append(name)
    return names


def main():
    profile = os.environ.get("PROFILE", "release")
    binary = build(profile)
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "cg.out")
        run_demo(binary, out)
        names = functions_run(out, binary)
    os.unlink(binary)
    if len(names) < 100:
        sys.exit(f"only {len(names)} functions seen: is callgrind working?")
    order = os.path.join(ROOT, "link", f"symbol-order.{profile}.txt")
    with open(order, "w") as f:
        f.write("\n".join(names) + "\n")
    print(f"{order}: {len(names)} functions")


if __name__ == "__main__":
    main()
