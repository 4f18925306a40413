#!/usr/bin/env python3
"""How long an elicitation takes to reach the person: stdio against
Streamable HTTP (SSE), whole processes.

A minimal MCP 2025-11-25 server (this file) answers `initialize` and, on
`tools/call`, sends one `elicitation/create` (a form with one field and a
default) and notes the time (CLOCK_MONOTONIC, which every process on the
machine shares). Two figures per transport, each the median of RUNS runs:

- `scripted`: `ahp-elicit mcp --action accept`; from the moment the server
  wrote the request to the moment it read the answer (the whole client
  path: transport read, session, responder, write back);
- `terminal`: `ahp-elicit mcp` in an 80x24 pseudo-terminal; from the moment
  the server wrote the request to the moment the form (its message)
  reached the terminal (then SIGTERM ends the run). The pseudo-terminal
  answers the background query as a terminal does (see first_frame.py);
- `tmux`: the same in an 80x24 tmux pane (a real terminal emulator
  between the program and the harness, which reads the pane's output
  through tmux's control mode, `tmux -C`); from the moment the server wrote
  the request to the moment tmux passed the form's message on. Left out
  when tmux is not installed.

    python3 benches/elicit_latency.py [path/to/ahp-elicit] [RUNS]
    FIGURES=tmux python3 benches/elicit_latency.py BIN 30   # one figure only

Over stdio the server is this file run by ahp-elicit (`--stdio`); over HTTP
it is a thread of this process on 127.0.0.1, twice: `http`, Python's
http.server as it comes (Nagle's algorithm on, a response's headers and
its body or SSE event written in two writes: the server that waits for the
client's ACK between them), and `http-nodelay`, the same server with
TCP_NODELAY on its sockets (as uvicorn, Node and Go servers have).

Goal: every HTTP median within GOAL_MS (5 ms) of the stdio median of the
same figure; the last lines say whether each is met.
"""
import fcntl
import json
import os
import pty
import select
import shlex
import shutil
import signal
import statistics
import struct
import subprocess
import sys
import tempfile
import termios
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
import socket

# Most an HTTP median may be above the stdio median of the same figure.
GOAL_MS = 5.0

ELICIT = {
    "jsonrpc": "2.0", "id": 900, "method": "elicitation/create",
    "params": {"mode": "form", "message": "Latency probe",
               "requestedSchema": {"type": "object", "properties": {
                   "name": {"type": "string", "title": "Name", "default": "Ada"}}}}}


def init_result(rid):
    return {"jsonrpc": "2.0", "id": rid, "result": {
        "protocolVersion": "2025-11-25", "capabilities": {"tools": {}},
        "serverInfo": {"name": "latency", "version": "1"}}}


def tool_result(rid):
    return {"jsonrpc": "2.0", "id": rid, "result": {
        "content": [{"type": "text", "text": "done"}]}}


def tools_list(rid):
    return {"jsonrpc": "2.0", "id": rid, "result": {"tools": [
        {"name": "probe", "inputSchema": {"type": "object"}}]}}


# ---- stdio server (run by ahp-elicit) ----

def stdio_server(stamp_path):
    out = sys.stdout

    def send(obj):
        out.write(json.dumps(obj) + "\n")
        out.flush()

    for line in sys.stdin:
        m = json.loads(line)
        method, rid = m.get("method"), m.get("id")
        if method == "initialize":
            send(init_result(rid))
        elif method == "tools/list":
            send(tools_list(rid))
        elif method == "tools/call":
            call_id = rid
            send(ELICIT)
            sent = time.monotonic()
            with open(stamp_path, "w") as f:
                f.write("%r\n" % sent)
        elif method is None and m.get("id") == 900:
            got = time.monotonic()
            with open(stamp_path, "a") as f:
                f.write("%r\n" % got)
            send(tool_result(call_id))
        elif rid is not None:
            send({"jsonrpc": "2.0", "id": rid, "result": {}})


# ---- HTTP server (a thread of the harness) ----

class NoDelayServer(ThreadingHTTPServer):
    """The harness's server with TCP_NODELAY on every connection."""

    def get_request(self):
        conn, addr = super().get_request()
        conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        return conn, addr


class Http:
    def __init__(self, nodelay=False):
        self.sent = None
        self.got = None
        self.answered = threading.Event()
        harness = self

        class H(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *a):
                pass

            def reply(self, status, obj=None):
                body = b"" if obj is None else json.dumps(obj).encode()
                self.send_response(status)
                if obj is not None:
                    self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def do_GET(self):
                self.reply(405)

            def do_DELETE(self):
                self.reply(200)

            def do_POST(self):
                n = int(self.headers.get("Content-Length", "0"))
                m = json.loads(self.rfile.read(n))
                method, rid = m.get("method"), m.get("id")
                if method == "initialize":
                    self.reply(200, init_result(rid))
                elif method == "tools/list":
                    self.reply(200, tools_list(rid))
                elif method == "tools/call":
                    self.send_response(200)
                    self.send_header("Content-Type", "text/event-stream")
                    self.send_header("Cache-Control", "no-cache")
                    self.end_headers()
                    self.wfile.write(b"data: " + json.dumps(ELICIT).encode() + b"\n\n")
                    self.wfile.flush()
                    harness.sent = time.monotonic()
                    harness.answered.wait(60)
                    self.wfile.write(b"data: " + json.dumps(tool_result(rid)).encode() + b"\n\n")
                    self.wfile.flush()
                    self.close_connection = True
                elif method is None and rid == 900:
                    harness.got = time.monotonic()
                    self.reply(202)
                    harness.answered.set()
                elif rid is not None:
                    self.reply(200, {"jsonrpc": "2.0", "id": rid, "result": {}})
                else:
                    self.reply(202)

        self.server = (NoDelayServer if nodelay else ThreadingHTTPServer)(("127.0.0.1", 0), H)
        self.server.daemon_threads = True
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = "http://127.0.0.1:%d/mcp" % self.server.server_address[1]

    def reset(self):
        self.sent = self.got = None
        self.answered.clear()


OSC11_QUERY = b"\x1b]11;?\x07"
DA_QUERY = b"\x1b[c"
OSC11_REPLY = b"\x1b]11;rgb:1e1e/1e1e/2e2e\x07"
DA_REPLY = b"\x1b[?62;22c"
# The form's message: drawn in the frame that first shows the form.
MARK = b"Latency"


def server_args(transport, http, stamp):
    if transport.startswith("http"):
        return [http.url]
    return ["--", sys.executable, os.path.abspath(__file__), "--stdio", stamp]


def scripted(binary, transport, http):
    with tempfile.TemporaryDirectory() as d:
        stamp = os.path.join(d, "stamp")
        if http:
            http.reset()
        subprocess.run([binary, "mcp", "--protocol", "2025-11-25", "--call", "probe",
                        "--action", "accept"] + server_args(transport, http, stamp),
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                       stdin=subprocess.DEVNULL, check=True, timeout=60)
        if http:
            return http.got - http.sent
        sent, got = (float(x) for x in open(stamp).read().split())
        return got - sent


def terminal(binary, transport, http):
    with tempfile.TemporaryDirectory() as d:
        stamp = os.path.join(d, "stamp")
        if http:
            http.reset()
        master, slave = pty.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
        env = dict(os.environ, TERM="xterm-256color")
        env.pop("NO_COLOR", None)
        p = subprocess.Popen(
            [binary, "mcp", "--protocol", "2025-11-25", "--call", "probe"]
            + server_args(transport, http, stamp),
            stdin=slave, stdout=subprocess.DEVNULL, stderr=slave, env=env,
            start_new_session=True,
            preexec_fn=lambda: fcntl.ioctl(0, termios.TIOCSCTTY, 0))
        os.close(slave)
        seen = b""
        shown = None
        deadline = time.monotonic() + 30
        while shown is None and time.monotonic() < deadline:
            r, _, _ = select.select([master], [], [], 0.5)
            if not r:
                continue
            try:
                chunk = os.read(master, 65536)
            except OSError:
                break
            if OSC11_QUERY in chunk:
                os.write(master, OSC11_REPLY)
            if DA_QUERY in chunk:
                os.write(master, DA_REPLY)
            seen += chunk
            if MARK in seen:
                shown = time.monotonic()
        # Measured: end the run (SIGTERM ends it at once: the cancel it
        # sends is not timed).
        try:
            os.killpg(p.pid, signal.SIGTERM)
        except OSError:
            pass
        try:
            p.wait(10)
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()
        # Drain and close.
        try:
            while select.select([master], [], [], 0)[0] and os.read(master, 65536):
                pass
        except OSError:
            pass
        os.close(master)
        if shown is None:
            raise SystemExit("the form never appeared (%s): %r" % (transport, seen[:2500]))
        if http:
            sent = http.sent
        else:
            sent = float(open(stamp).read().split()[0])
        return shown - sent


def in_tmux(binary, transport, http):
    with tempfile.TemporaryDirectory() as d:
        stamp = os.path.join(d, "stamp")
        if http:
            http.reset()
        cmd = [binary, "mcp", "--protocol", "2025-11-25", "--call", "probe"] \
            + server_args(transport, http, stamp)
        # A tmux server of its own (a socket named for this process), no
        # configuration file, one 80x24 pane running the command.
        sock = "ahp-latency-%d" % os.getpid()
        env = dict(os.environ)
        env.pop("TMUX", None)
        p = subprocess.Popen(
            ["tmux", "-L", sock, "-f", "/dev/null", "-C", "new-session", "-x", "80", "-y", "24",
             " ".join(shlex.quote(c) for c in cmd)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
            env=env, bufsize=0)
        seen = b""
        shown = None
        deadline = time.monotonic() + 30
        while shown is None and time.monotonic() < deadline:
            r, _, _ = select.select([p.stdout], [], [], 0.5)
            if not r:
                continue
            chunk = os.read(p.stdout.fileno(), 65536)
            if not chunk:
                break
            # `%output %PANE DATA` lines: the pane's bytes, control
            # characters escaped; the message's letters are as they were.
            seen += chunk
            if MARK in seen:
                shown = time.monotonic()
        subprocess.run(["tmux", "-L", sock, "kill-server"], stderr=subprocess.DEVNULL)
        try:
            p.wait(10)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
        if shown is None:
            raise SystemExit("the form never appeared in tmux (%s): %r" % (transport, seen[-2500:]))
        if http:
            sent = http.sent
        else:
            sent = float(open(stamp).read().split()[0])
        return shown - sent


def main():
    if len(sys.argv) >= 2 and sys.argv[1] == "--stdio":
        stdio_server(sys.argv[2])
        return
    binary = sys.argv[1] if len(sys.argv) > 1 else "target/release/ahp-elicit"
    runs = int(sys.argv[2]) if len(sys.argv) > 2 else 15
    servers = {"stdio": None, "http": Http(), "http-nodelay": Http(nodelay=True)}
    medians = {}
    figures = [("scripted", scripted), ("terminal", terminal)]
    if shutil.which("tmux"):
        figures.append(("tmux", in_tmux))
    else:
        print("tmux is not installed: the tmux figure is left out")
    # FIGURES=tmux,terminal measures those only.
    only = os.environ.get("FIGURES")
    if only:
        figures = [f for f in figures if f[0] in only.split(",")]
    for what, fn in figures:
        for transport, http in servers.items():
            ms = [fn(binary, transport, http) * 1000 for _ in range(runs)]
            medians[(what, transport)] = statistics.median(ms)
            print("%-8s %-12s median %7.2f ms  min %7.2f  max %7.2f  (%d runs)" % (
                what, transport, statistics.median(ms), min(ms), max(ms), runs))
    for (what, transport), m in medians.items():
        if transport == "stdio":
            continue
        over = m - medians[(what, "stdio")]
        print("goal: %-8s %-12s %+6.2f ms against stdio (at most %+.1f): %s" % (
            what, transport, over, GOAL_MS, "met" if over <= GOAL_MS else "NOT met"))


if __name__ == "__main__":
    main()
