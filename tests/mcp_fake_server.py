#!/usr/bin/env python3
"""A fake MCP server for ahp-elicit's adapter tests (issue 6 item 5).

Runs over stdio (default) or Streamable HTTP (`--http`: prints `PORT <n>` on
stdout, serves http://127.0.0.1:<n>/mcp). It offers the tools `probe` and
`other`. Calling `probe` makes the server send, in order, requests and
notifications to the client and record each answer; the tool result's
`structuredContent` holds the record:

  {"initialize": <client's initialize params>,
   "received": [<methods the client sent, in order>],
   "headers": [<MCP headers of each HTTP request>],
   "responses": {<step>: <client's JSON-RPC answer without "jsonrpc">}}

Steps of case "all": ping, form (defaults on name and age), url,
(notification elicitation/complete), bad-mode, invalid (a nested object
property), roots (roots/list, not offered by the client). Case "required":
one form with a required field and no default. The tool `gated` (stdio,
not listed) first fails with -32042 carrying the URL elicitation, then
succeeds.

Hostile text: the server's stderr and one elicitationId carry an ESC, which
the client must never pass to the terminal raw.
"""
import json
import sys
import threading

SERVER_INFO = {"name": "fake-mcp", "title": "Fake MCP", "version": "0.0.1"}
TOOLS = [
    {"name": "probe", "description": "Sends elicitations and records the answers",
     "inputSchema": {"type": "object", "properties": {"case": {"type": "string"}}}},
    {"name": "other", "description": "Does nothing", "inputSchema": {"type": "object"}},
]

FORM = {
    "message": "Fake form",
    "requestedSchema": {
        "type": "object",
        "properties": {
            "name": {"type": "string", "title": "Name", "default": "Ada"},
            "age": {"type": "integer", "minimum": 0, "default": 36},
            "sure": {"type": "boolean"},
        },
        "required": ["name"],
    },
}
URL = {"mode": "url", "message": "Open the page", "url": "https://example.com/auth",
       "elicitationId": "el-1"}
BAD_MODE = {"mode": "telepathy", "message": "?"}
INVALID = {"message": "Nested", "requestedSchema": {
    "type": "object", "properties": {"address": {"type": "object", "properties": {}}}}}
REQUIRED = {"message": "Required", "requestedSchema": {
    "type": "object", "properties": {"code": {"type": "string"}}, "required": ["code"]}}


class State:
    def __init__(self):
        self.initialize = None
        self.received = []
        self.headers = []
        self.next_id = 1000
        self.gate_open = False
        self.lock = threading.Lock()

    def new_id(self):
        with self.lock:
            self.next_id += 1
            return self.next_id


def probe(state, case, call, notify):
    """Run one case; call(method, params) returns the client's answer."""
    responses = {}
    if case == "required":
        responses["required"] = call("elicitation/create", REQUIRED)
    else:
        responses["ping"] = call("ping", None)
        responses["form"] = call("elicitation/create", FORM)
        responses["url"] = call("elicitation/create", URL)
        notify("notifications/elicitation/complete", {"elicitationId": "el-1\x1b[2J"})
        responses["bad-mode"] = call("elicitation/create", BAD_MODE)
        responses["invalid"] = call("elicitation/create", INVALID)
        responses["roots"] = call("roots/list", {})
    return {
        "content": [{"type": "text", "text": "probe done"}],
        "structuredContent": {
            "initialize": state.initialize,
            "received": state.received,
            "headers": state.headers,
            "responses": responses,
        },
    }


def answer(state, msg):
    """The server's answer to a client request (tools/call excluded)."""
    method = msg["method"]
    if method == "initialize":
        state.initialize = msg.get("params")
        return {"protocolVersion": "2025-11-25", "capabilities": {"tools": {}},
                "serverInfo": SERVER_INFO}
    if method == "tools/list":
        return {"tools": TOOLS}
    if method == "ping":
        return {}
    return None


def strip(resp):
    return {k: v for k, v in resp.items() if k != "jsonrpc"}


def run_stdio():
    state = State()
    sys.stderr.write("fake server ready \x1b[31mred\x1b[0m\n")
    sys.stderr.flush()

    def write(obj):
        sys.stdout.write(json.dumps(obj) + "\n")
        sys.stdout.flush()

    def read():
        line = sys.stdin.readline()
        if not line:
            sys.exit(0)
        return json.loads(line)

    def call(method, params):
        rid = state.new_id()
        msg = {"jsonrpc": "2.0", "id": rid, "method": method}
        if params is not None:
            msg["params"] = params
        write(msg)
        while True:
            m = read()
            if m.get("id") == rid and "method" not in m:
                return strip(m)
            state.received.append(m.get("method", "(response)"))

    def notify(method, params):
        write({"jsonrpc": "2.0", "method": method, "params": params})

    # Noise before the handshake: a non-JSON line and a notification.
    sys.stdout.write("this is not JSON\n")
    write({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})
    while True:
        m = read()
        if "method" not in m:
            continue
        state.received.append(m["method"])
        if "id" not in m:
            continue
        if m["method"] == "tools/call":
            p = m.get("params", {})
            if p.get("name") == "gated":
                # URLElicitationRequiredError first, success on the retry.
                if not state.gate_open:
                    state.gate_open = True
                    write({"jsonrpc": "2.0", "id": m["id"], "error": {
                        "code": -32042, "message": "authorization needed",
                        "data": {"elicitations": [URL]}}})
                else:
                    write({"jsonrpc": "2.0", "id": m["id"], "result": {
                        "content": [{"type": "text", "text": "gate open"}]}})
                continue
            if p.get("name") == "probe":
                case = p.get("arguments", {}).get("case", "all")
                write({"jsonrpc": "2.0", "id": m["id"], "result": probe(state, case, call, notify)})
            else:
                write({"jsonrpc": "2.0", "id": m["id"],
                       "error": {"code": -32602, "message": "unknown tool"}})
            continue
        r = answer(state, m)
        if r is None:
            write({"jsonrpc": "2.0", "id": m["id"],
                   "error": {"code": -32601, "message": "method not found"}})
        else:
            write({"jsonrpc": "2.0", "id": m["id"], "result": r})


def run_http():
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    state = State()
    answers = {}
    cond = threading.Condition()
    session = "sess-\u00e9-1".encode("ascii", "ignore").decode()  # "sess--1"

    class H(BaseHTTPRequestHandler):
        def log_message(self, *a):
            pass

        def record(self, method):
            state.headers.append({
                "method": method,
                "accept": self.headers.get("Accept"),
                "session": self.headers.get("Mcp-Session-Id"),
                "version": self.headers.get("MCP-Protocol-Version"),
            })

        def send_json(self, obj, extra=None):
            body = json.dumps(obj).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            for k, v in (extra or {}).items():
                self.send_header(k, v)
            self.end_headers()
            self.wfile.write(body)

        def do_GET(self):
            self.record("GET")
            self.send_response(405)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def do_DELETE(self):
            self.record("DELETE")
            self.send_response(200)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def do_POST(self):
            n = int(self.headers.get("Content-Length", "0"))
            m = json.loads(self.rfile.read(n))
            self.record(m.get("method", "(response)"))
            if "method" not in m:
                with cond:
                    answers[m.get("id")] = strip(m)
                    cond.notify_all()
                self.send_response(202)
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            state.received.append(m["method"])
            if "id" not in m:
                self.send_response(202)
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            if m["method"] == "initialize":
                self.send_json({"jsonrpc": "2.0", "id": m["id"], "result": answer(state, m)},
                               {"Mcp-Session-Id": session})
                return
            if m["method"] == "tools/list":
                # As an SSE stream with a priming event and a comment.
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.end_headers()
                msg = {"jsonrpc": "2.0", "id": m["id"], "result": answer(state, m)}
                self.wfile.write(b": hello\r\nid: p0\r\ndata:\r\n\r\n")
                self.wfile.write(b"event: message\r\nid: e1\r\ndata: " + json.dumps(msg).encode() + b"\r\n\r\n")
                return
            if m["method"] == "tools/call":
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.end_headers()
                lock = threading.Lock()

                def event(obj):
                    with lock:
                        self.wfile.write(b"data: " + json.dumps(obj).encode() + b"\n\n")
                        self.wfile.flush()

                def call(method, params):
                    rid = state.new_id()
                    msg = {"jsonrpc": "2.0", "id": rid, "method": method}
                    if params is not None:
                        msg["params"] = params
                    event(msg)
                    with cond:
                        ok = cond.wait_for(lambda: rid in answers, timeout=20)
                        return answers.pop(rid) if ok else {"timeout": True}

                def notify(method, params):
                    event({"jsonrpc": "2.0", "method": method, "params": params})

                p = m.get("params", {})
                case = p.get("arguments", {}).get("case", "all")
                event({"jsonrpc": "2.0", "id": m["id"], "result": probe(state, case, call, notify)})
                return
            self.send_json({"jsonrpc": "2.0", "id": m["id"],
                            "error": {"code": -32601, "message": "method not found"}})

    srv = ThreadingHTTPServer(("127.0.0.1", 0), H)
    srv.daemon_threads = True
    sys.stdout.write("PORT %d\n" % srv.server_address[1])
    sys.stdout.flush()
    srv.serve_forever()


if __name__ == "__main__":
    if "--http" in sys.argv:
        run_http()
    else:
        run_stdio()
