#!/usr/bin/env python3
"""How long an elicitation takes to reach the person: stdio against
Streamable HTTP (SSE), whole processes, against this file's own minimal
server and against servers written with the official SDKs.

Servers (SERVERS=bench,ts-v1,py-mcp,fastmcp picks some; the SDK ones are
left out when .ci/sdk does not hold them: `bash .ci/sdk-setup.sh`):

- `bench`: a minimal MCP 2025-11-25 server (this file) that answers
  `initialize` and, on `tools/call`, sends one `elicitation/create` (a
  form with one field and a default) and notes the time
  (CLOCK_MONOTONIC, which every process on the machine shares) once it
  wrote it, and again when it read the answer. Over stdio it is this file
  run by ahp-elicit (`--stdio`); over HTTP it is a thread of this process
  on 127.0.0.1, twice: `http`, Python's http.server as it comes (Nagle's
  algorithm on, a response's headers and its body or SSE event written in
  two writes: the server that waits for the client's ACK between them),
  and `http-nodelay`, the same server with TCP_NODELAY on its sockets (as
  uvicorn, Node and Go servers have);
- `ts-v1`: the TypeScript SDK v1's McpServer (benches/latency_servers/
  ts_v1.mjs), over stdio and over its StreamableHTTPServerTransport
  (stateful, node:http; the request goes on the standalone GET stream);
- `py-mcp`, `fastmcp`: the Python SDK's MCPServer and fastmcp
  (benches/latency_servers/py_sdk.py), over stdio and Streamable HTTP
  (uvicorn; the request goes on the call's stream).
  The SDK servers note the time just before the tool asks and just after
  the answer came back; over HTTP each runs once, for all runs.

Figures (FIGURES=scripted,terminal,tmux,attached picks some), each the
median of RUNS runs, stdio and HTTP in turns:

- `scripted`: `ahp-elicit mcp --call probe --action accept`; from the
  request to its answer (the whole client path: transport read, session,
  responder, write back);
- `terminal`: `ahp-elicit mcp --call probe` in an 80x24 pseudo-terminal;
  from the request to the form (its message) reaching the terminal (then
  SIGTERM ends the run). The pseudo-terminal answers the background query
  as a terminal does (see first_frame.py);
- `tmux`: the same in an 80x24 tmux pane, the pane's output read through
  tmux's control mode (`tmux -C`);
- `attached`: the same in a tmux pane with a tmux client attached in a
  pseudo-terminal (as a person's terminal emulator runs tmux): from the
  request to the form's message in what tmux draws on that client. The
  harness answers tmux's queries of its terminal as xterm does.
  The last two are left out when tmux is not installed.

PATHS=call,list: `call` (the default) runs the tool with `--call probe`;
`list` starts on the tool list and presses Enter there once the list is
drawn (the call's waiting screen, then the form), for the terminal
figures. PROTOCOL=VERSION is the `--protocol` asked for (default
2025-11-25, the era in which a server pushes `elicitation/create`;
PROTOCOL= lets ahp-elicit find it by itself, server/discover first).

The SDK servers read three variants from the environment: LATENCY_NOISE=1
(a log message, and with py-mcp and fastmcp a progress notification,
just before the request), LATENCY_RELATED=1 (ts-v1: the request on the
call's own stream, `relatedRequestId`, instead of the GET stream) and
LATENCY_EVENTS=1 (ts-v1: the SDK's in-memory event store, so every SSE
event carries an `id:` line and each stream opens with a priming event).

    python3 benches/elicit_latency.py [path/to/ahp-elicit] [RUNS]
    FIGURES=attached SERVERS=py-mcp python3 benches/elicit_latency.py BIN 30

Goal: every HTTP median within GOAL_MS (5 ms) of the stdio median of the
same figure, server and path; the last lines say whether each is met.
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
from pathlib import Path
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
# The tool list with `probe` on it (the `list` path presses Enter then).
LIST_MARK = b"Enter: pick"
# How long the list is on screen before Enter: past its guard (a key that
# comes sooner is dropped).
LIST_PAUSE = 0.6

# The version asked for (`--protocol`); PROTOCOL= (empty) lets ahp-elicit
# find it as it does by default (server/discover first).
PROTOCOL = os.environ.get("PROTOCOL", "2025-11-25")

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
VENV_PYTHON = ROOT / ".ci" / "sdk" / "venv" / "bin" / "python"
NODE_MODULES = ROOT / ".ci" / "sdk" / "node" / "node_modules" / "@modelcontextprotocol" / "sdk"


class Transport:
    """One server over one transport: the arguments that make ahp-elicit
    use it, and the times it noted (request sent, answer read)."""

    def __init__(self, server, name, stamp):
        self.server = server
        self.name = name
        self.stamp = stamp

    def reset(self):
        try:
            os.unlink(self.stamp)
        except FileNotFoundError:
            pass

    def times(self):
        """(sent, got): got is None before the answer came back. The
        server notes the time before it writes the file: the form may be
        on screen first, so the file is waited for."""
        deadline = time.monotonic() + 10
        while True:
            try:
                lines = open(self.stamp).read().split("\n")
            except FileNotFoundError:
                lines = []
            done = [float(x) for x in lines[:-1]]
            if done or time.monotonic() > deadline:
                break
            time.sleep(0.001)
        return done[0], (done[1] if len(done) > 1 else None)

    def close(self):
        pass


class BenchStdio(Transport):
    def args(self):
        return ["--", sys.executable, os.path.abspath(__file__), "--stdio", self.stamp]


class BenchHttp(Transport):
    def __init__(self, server, name, stamp, nodelay):
        super().__init__(server, name, stamp)
        self.http = Http(nodelay)

    def args(self):
        return [self.http.url]

    def reset(self):
        self.http.reset()

    def times(self):
        return self.http.sent, self.http.got


class SdkStdio(Transport):
    def __init__(self, server, name, stamp, cmd):
        super().__init__(server, name, stamp)
        self.cmd = cmd

    def args(self):
        return ["--", "env", "LATENCY_STAMP=" + self.stamp] + self.cmd


class SdkHttp(Transport):
    """The server runs once, for all runs, at the URL it prints."""

    def __init__(self, server, name, stamp, cmd):
        super().__init__(server, name, stamp)
        self.proc = subprocess.Popen(
            cmd + ["--http"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
            env=dict(os.environ, LATENCY_STAMP=stamp), start_new_session=True)
        line = self.proc.stdout.readline().decode()
        if not line.startswith("listening "):
            raise SystemExit("%s did not start: %r" % (server, line))
        self.url = line.split()[1]

    def args(self):
        return [self.url]

    def close(self):
        try:
            os.killpg(self.proc.pid, signal.SIGTERM)
        except OSError:
            pass
        self.proc.wait()


def servers(tmp):
    """Every server to measure: name -> its transports, stdio first."""
    def stamp(server, name):
        return os.path.join(tmp, "%s-%s" % (server, name))

    out = {"bench": [BenchStdio("bench", "stdio", stamp("bench", "stdio")),
                     BenchHttp("bench", "http", None, False),
                     BenchHttp("bench", "http-nodelay", None, True)]}
    sdk = []
    if NODE_MODULES.is_dir() and shutil.which("node"):
        sdk.append(("ts-v1", ["node", str(HERE / "latency_servers" / "ts_v1.mjs")]))
    if VENV_PYTHON.exists():
        for kind in ("mcp", "fastmcp"):
            name = "py-mcp" if kind == "mcp" else kind
            sdk.append((name, [str(VENV_PYTHON), str(HERE / "latency_servers" / "py_sdk.py"), kind]))
    if not sdk:
        print("no SDK in .ci/sdk (bash .ci/sdk-setup.sh): the SDK servers are left out")
    only = os.environ.get("SERVERS")
    for name, cmd in sdk:
        if only and name not in only.split(","):
            continue
        out[name] = [SdkStdio(name, "stdio", stamp(name, "stdio"), cmd),
                     SdkHttp(name, "http", stamp(name, "http"), cmd)]
    if only:
        out = {k: v for k, v in out.items() if k in only.split(",")}
    return out


def command(binary, tr, path, action=None):
    cmd = [binary, "mcp"]
    if PROTOCOL:
        cmd += ["--protocol", PROTOCOL]
    if path == "call":
        cmd += ["--call", "probe"]
    if action:
        cmd += ["--action", action]
    return cmd + tr.args()


def scripted(binary, tr, path):
    tr.reset()
    subprocess.run(command(binary, tr, "call", "accept"),
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                   stdin=subprocess.DEVNULL, check=True, timeout=60)
    sent, got = tr.times()
    return got - sent


def answer_terminal_queries(fd, chunk):
    """Answer what a terminal is asked (background colour, device
    attributes) as xterm does."""
    if OSC11_QUERY in chunk:
        os.write(fd, OSC11_REPLY)
    if b"\x1b]10;?" in chunk:
        os.write(fd, b"\x1b]10;rgb:dcdc/dcdc/dcdc\x07")
    if b"\x1b[>c" in chunk or b"\x1b[>0c" in chunk:
        os.write(fd, b"\x1b[>41;390;0c")
    if DA_QUERY in chunk or b"\x1b[0c" in chunk:
        os.write(fd, DA_REPLY)


def watch_for_form(fd, path, what, tr, answer=True):
    """Read `fd` until the form's message shows (its time) or 30 s passed;
    on the `list` path, press Enter once the list is drawn."""
    seen = b""
    deadline = time.monotonic() + 30
    pressed = path != "list"
    while time.monotonic() < deadline:
        r, _, _ = select.select([fd], [], [], 0.5)
        if not r:
            continue
        try:
            chunk = os.read(fd, 65536)
        except OSError:
            break
        if not chunk:
            break
        now = time.monotonic()
        if answer:
            answer_terminal_queries(fd, chunk)
        seen += chunk
        if not pressed and LIST_MARK in seen:
            # Past the list's guard (a key sooner is dropped); not timed:
            # the clock starts when the server asks.
            time.sleep(LIST_PAUSE)
            os.write(fd, b"\r")
            pressed = True
        if pressed and MARK in seen:
            return now
    raise SystemExit("the form never appeared (%s, %s %s): %r"
                     % (what, tr.server, tr.name, seen[-2500:]))


def terminal(binary, tr, path):
    tr.reset()
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
    env = dict(os.environ, TERM="xterm-256color")
    env.pop("NO_COLOR", None)
    p = subprocess.Popen(
        command(binary, tr, path),
        stdin=slave, stdout=subprocess.DEVNULL, stderr=slave, env=env,
        start_new_session=True,
        preexec_fn=lambda: fcntl.ioctl(0, termios.TIOCSCTTY, 0))
    os.close(slave)
    try:
        shown = watch_for_form(master, path, "terminal", tr)
    finally:
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
        try:
            while select.select([master], [], [], 0)[0] and os.read(master, 65536):
                pass
        except OSError:
            pass
        os.close(master)
    return shown - tr.times()[0]


def tmux_socket():
    """A socket name of its own for each run: a server being killed is
    never the one a new run talks to."""
    tmux_socket.runs = getattr(tmux_socket, "runs", 0) + 1
    return "ahp-latency-%d-%d" % (os.getpid(), tmux_socket.runs)


def tmux_command(sock, cmd, control):
    # A tmux server of its own (a socket named for this process), no
    # configuration file, one 80x24 pane running the command.
    return ["tmux", "-L", sock, "-f", "/dev/null"] + (["-C"] if control else []) + [
        "new-session", "-x", "80", "-y", "24", " ".join(shlex.quote(c) for c in cmd)]


def tmux_env():
    env = dict(os.environ, TERM="xterm-256color")
    env.pop("TMUX", None)
    env.pop("NO_COLOR", None)
    return env


def in_tmux(binary, tr, path):
    tr.reset()
    sock = tmux_socket()
    p = subprocess.Popen(tmux_command(sock, command(binary, tr, path), True),
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL, env=tmux_env(), bufsize=0)
    try:
        # `%output %PANE DATA` lines: the pane's bytes, control characters
        # escaped; the message's letters are as they were. Nothing to
        # answer: tmux answers the program itself. A key goes in with
        # send-keys.
        seen = b""
        shown = None
        pressed = path != "list"
        deadline = time.monotonic() + 30
        while shown is None and time.monotonic() < deadline:
            r, _, _ = select.select([p.stdout], [], [], 0.5)
            if not r:
                continue
            chunk = os.read(p.stdout.fileno(), 65536)
            if not chunk:
                break
            seen += chunk
            if not pressed and LIST_MARK in seen:
                time.sleep(LIST_PAUSE)
                p.stdin.write(b"send-keys Enter\n")
                pressed = True
            if pressed and MARK in seen:
                shown = time.monotonic()
        if shown is None:
            raise SystemExit("the form never appeared in tmux (%s %s): %r"
                             % (tr.server, tr.name, seen[-2500:]))
    finally:
        subprocess.run(["tmux", "-L", sock, "kill-server"], stderr=subprocess.DEVNULL)
        try:
            p.wait(10)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
    return shown - tr.times()[0]


def attached(binary, tr, path):
    tr.reset()
    sock = tmux_socket()
    argv = tmux_command(sock, command(binary, tr, path), False)
    env = tmux_env()
    pid, fd = pty.fork()
    if pid == 0:
        try:
            fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
            os.execvpe(argv[0], argv, env)
        finally:
            os._exit(127)
    try:
        shown = watch_for_form(fd, path, "attached", tr)
    finally:
        subprocess.run(["tmux", "-L", sock, "kill-server"], stderr=subprocess.DEVNULL)
        try:
            while select.select([fd], [], [], 1)[0] and os.read(fd, 65536):
                pass
        except OSError:
            pass
        os.waitpid(pid, 0)
        os.close(fd)
    return shown - tr.times()[0]


def main():
    if len(sys.argv) >= 2 and sys.argv[1] == "--stdio":
        stdio_server(sys.argv[2])
        return
    binary = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "target/release/ahp-elicit")
    runs = int(sys.argv[2]) if len(sys.argv) > 2 else 15
    figures = [("scripted", scripted), ("terminal", terminal)]
    if shutil.which("tmux"):
        figures += [("tmux", in_tmux), ("attached", attached)]
    else:
        print("tmux is not installed: the tmux figures are left out")
    only = os.environ.get("FIGURES")
    if only:
        figures = [f for f in figures if f[0] in only.split(",")]
    paths = os.environ.get("PATHS", "call").split(",")
    medians = {}
    with tempfile.TemporaryDirectory() as tmp:
        every = servers(tmp)
        try:
            for what, fn in figures:
                for server, transports in every.items():
                    for path in (["call"] if what == "scripted" else paths):
                        ms = {tr.name: [] for tr in transports}
                        # In turns, so a busy moment of the machine slows
                        # every transport alike.
                        for _ in range(runs):
                            for tr in transports:
                                ms[tr.name].append(fn(binary, tr, path) * 1000)
                        for name, m in ms.items():
                            medians[(what, server, path, name)] = statistics.median(m)
                            print("%-8s %-8s %-4s %-12s median %7.2f ms  min %7.2f  max %7.2f  (%d runs)"
                                  % (what, server, path, name, statistics.median(m), min(m),
                                     max(m), runs), flush=True)
        finally:
            for transports in every.values():
                for tr in transports:
                    tr.close()
    for (what, server, path, name), m in medians.items():
        if name == "stdio":
            continue
        over = m - medians[(what, server, path, "stdio")]
        print("goal: %-8s %-8s %-4s %-12s %+6.2f ms against stdio (at most %+.1f): %s" % (
            what, server, path, name, over, GOAL_MS, "met" if over <= GOAL_MS else "NOT met"))


if __name__ == "__main__":
    main()
