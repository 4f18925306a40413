"""Drive an MCP server by hand with raw JSON-RPC and print every exchange.

A development aid (not run by the tests): it shows what a server really sends
for `server/discover`, `initialize`, and `tools/call` at 2026-07-28 with its
`input_required` rounds, over stdio or Streamable HTTP. Standard library only.

Usage:
  python3 wire_probe.py stdio COMMAND... -- STEPS
  python3 wire_probe.py http URL -- STEPS
STEPS is a comma-separated list of:
  discover          server/discover with the 2026-07-28 `_meta` (and headers)
  discover-bare     server/discover with no `_meta` and no headers
  init              initialize at 2025-11-25, then notifications/initialized
  call25:TOOL       tools/call on the 2025-11-25 session (pushed
                    elicitation/create requests are answered, stdio only)
  list              tools/list at 2026-07-28
  list-noheaders    the same without the HTTP headers
  list-badheader    with an Mcp-Method header that names another method
  list-nometa       with the headers but without `_meta`
  list-oldversion   naming the revision 2099-01-01
  call:TOOL         tools/call at 2026-07-28, answering every input_required
                    round (requestState echoed) until a complete result
  callnocap:TOOL    the same, declaring no client capabilities
  callbadstate:TOOL the same, with one character added to the requestState
  callnoname:TOOL   tools/call without the Mcp-Name header
  prompt:NAME       prompts/get with its rounds
  read:URI          resources/read with its rounds
Forms are answered with made-up values that fit the schema (answer_for), URL
requests with a bare accept. PROBE_TIMEOUT (seconds, default 5) bounds each
wait for a stdio answer.
"""

import json
import os
import queue
import subprocess
import sys
import threading
import urllib.error
import urllib.request

V26 = "2026-07-28"
V25 = "2025-11-25"
META = {
    "io.modelcontextprotocol/protocolVersion": V26,
    "io.modelcontextprotocol/clientInfo": {"name": "wire-probe", "version": "0"},
    "io.modelcontextprotocol/clientCapabilities": {"elicitation": {"form": {}, "url": {}}},
}


def show(tag, obj):
    print(f"--- {tag}")
    print(json.dumps(obj, indent=None)[:3000])
    sys.stdout.flush()


class Stdio:
    def __init__(self, argv):
        self.p = subprocess.Popen(
            argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        self.err = []
        self.lines = queue.Queue()
        threading.Thread(target=self._drain, daemon=True).start()
        threading.Thread(target=self._read, daemon=True).start()

    def _drain(self):
        for line in self.p.stderr:
            self.err.append(line)

    def _read(self):
        for line in self.p.stdout:
            self.lines.put(line)
        self.lines.put(None)

    def send(self, msg, expect_reply=True, timeout=float(os.environ.get("PROBE_TIMEOUT", "5"))):
        show("> " + msg.get("method", "response"), msg)
        self.p.stdin.write(json.dumps(msg) + "\n")
        self.p.stdin.flush()
        if not expect_reply:
            return None
        while True:
            try:
                line = self.lines.get(timeout=timeout)
            except queue.Empty:
                line = None
            if not line:
                show("< (nothing; exit=%s)" % self.p.poll(), {"stderr": "".join(self.err)[-800:]})
                return None
            m = json.loads(line)
            show("<", m)
            if "id" in m and m.get("id") == msg.get("id") and "method" not in m:
                return m
            if "method" in m and "id" in m:
                # a server->client request (2025-11-25 push): answer it
                ans = self.on_request(m)
                show("> response", ans)
                self.p.stdin.write(json.dumps(ans) + "\n")
                self.p.stdin.flush()

    def on_request(self, m):
        if m["method"] == "elicitation/create":
            return {"jsonrpc": "2.0", "id": m["id"], "result": answer_for(m["params"])}
        return {"jsonrpc": "2.0", "id": m["id"], "error": {"code": -32601, "message": "no"}}

    def close(self):
        self.p.stdin.close()
        try:
            self.p.wait(3)
        except subprocess.TimeoutExpired:
            self.p.kill()


class Http:
    def __init__(self, url):
        self.url = url
        self.session = None

    def send(self, msg, expect_reply=True, headers=None, timeout=10.0):
        h = {"content-type": "application/json", "accept": "application/json, text/event-stream"}
        if self.session:
            h["mcp-session-id"] = self.session
        h.update(headers or {})
        show("> POST " + msg.get("method", "response") + " headers=" + json.dumps(headers or {}), msg)
        req = urllib.request.Request(self.url, data=json.dumps(msg).encode(), headers=h, method="POST")
        try:
            resp = urllib.request.urlopen(req, timeout=timeout)
            status, rh, body = resp.status, dict(resp.headers), resp.read().decode()
        except urllib.error.HTTPError as e:
            status, rh, body = e.code, dict(e.headers), e.read().decode()
        keep = {k: v for k, v in rh.items() if k.lower() in ("content-type", "mcp-session-id", "mcp-protocol-version")}
        print(f"--- < HTTP {status} {json.dumps(keep)}")
        if status == 200 and msg.get("method") == "initialize" and (rh.get("mcp-session-id") or rh.get("Mcp-Session-Id")):
            self.session = rh.get("mcp-session-id") or rh.get("Mcp-Session-Id")
        ct = (rh.get("content-type") or rh.get("Content-Type") or "")
        reply = None
        if "text/event-stream" in ct:
            for line in body.splitlines():
                if line.startswith("data:"):
                    d = line[5:].strip()
                    if d:
                        m = json.loads(d)
                        show("< sse", m)
                        if m.get("id") == msg.get("id") and "method" not in m:
                            reply = m
        elif body.strip():
            try:
                reply = json.loads(body)
                show("<", reply)
            except ValueError:
                print("<", body[:500])
        return reply

    def close(self):
        pass


def answer_for(params):
    if params.get("mode") == "url":
        return {"action": "accept"}
    props = params["requestedSchema"].get("properties", {})
    content = {}
    for k, s in props.items():
        if "enum" in s:
            content[k] = s["enum"][-1]
        elif s.get("type") == "string":
            content[k] = "Ada" if k == "name" else "ada@example.com" if k == "email" else "x"
        elif s.get("type") in ("integer", "number"):
            content[k] = 3
        elif s.get("type") == "boolean":
            content[k] = True
    return {"action": "accept", "content": content}


def h26(method, name=None):
    h = {"mcp-protocol-version": V26, "mcp-method": method}
    if name:
        h["mcp-name"] = name
    return h


def run(conn, steps, http):
    n = [0]

    def nid():
        n[0] += 1
        return n[0]

    def send(msg, headers=None, **kw):
        if http:
            return conn.send(msg, headers=headers, **kw)
        return conn.send(msg, **kw)

    for step in steps:
        print(f"\n===== {step}")
        if step == "discover":
            send({"jsonrpc": "2.0", "id": nid(), "method": "server/discover", "params": {"_meta": META}},
                 headers=h26("server/discover"))
        elif step == "discover-bare":
            send({"jsonrpc": "2.0", "id": nid(), "method": "server/discover", "params": {}},
                 headers={})
        elif step == "init":
            r = send({"jsonrpc": "2.0", "id": nid(), "method": "initialize", "params": {
                "protocolVersion": V25, "capabilities": {"elicitation": {"form": {}, "url": {}}},
                "clientInfo": {"name": "wire-probe", "version": "0"}}}, headers={})
            if r and "result" in r:
                if http:
                    conn.send({"jsonrpc": "2.0", "method": "notifications/initialized"},
                              headers={"mcp-protocol-version": V25})
                else:
                    conn.send({"jsonrpc": "2.0", "method": "notifications/initialized"}, expect_reply=False)
        elif step.startswith("call25:"):
            tool = step.split(":", 1)[1]
            hd = {"mcp-protocol-version": V25}
            send({"jsonrpc": "2.0", "id": nid(), "method": "tools/call",
                  "params": {"name": tool, "arguments": {}}}, headers=hd, timeout=20)
        elif step.startswith("callnoname:"):
            tool = step.split(":", 1)[1]
            send({"jsonrpc": "2.0", "id": nid(), "method": "tools/call",
                  "params": {"name": tool, "arguments": {}, "_meta": META}},
                 headers=h26("tools/call"))
        elif step.startswith("prompt:") or step.startswith("read:"):
            kind, what = step.split(":", 1)
            method, field = ("prompts/get", "name") if kind == "prompt" else ("resources/read", "uri")
            params = {field: what, "_meta": META}
            for rnd in range(6):
                r = send({"jsonrpc": "2.0", "id": nid(), "method": method, "params": params},
                         headers=h26(method, what), timeout=20)
                if not r or "result" not in r or r["result"].get("resultType") != "input_required":
                    break
                res = r["result"]
                responses = {k: answer_for(v["params"]) for k, v in (res.get("inputRequests") or {}).items()}
                params = {field: what, "_meta": META, "inputResponses": responses}
                if "requestState" in res:
                    params["requestState"] = res["requestState"]
        elif step == "list":
            send({"jsonrpc": "2.0", "id": nid(), "method": "tools/list", "params": {"_meta": META}},
                 headers=h26("tools/list"))
        elif step == "list-noheaders":
            send({"jsonrpc": "2.0", "id": nid(), "method": "tools/list", "params": {"_meta": META}},
                 headers={})
        elif step == "list-badheader":
            send({"jsonrpc": "2.0", "id": nid(), "method": "tools/list", "params": {"_meta": META}},
                 headers={"mcp-protocol-version": V26, "mcp-method": "tools/call"})
        elif step == "list-nometa":
            send({"jsonrpc": "2.0", "id": nid(), "method": "tools/list", "params": {}},
                 headers={"mcp-protocol-version": V26, "mcp-method": "tools/list"})
        elif step == "list-oldversion":
            m = dict(META)
            m["io.modelcontextprotocol/protocolVersion"] = "2099-01-01"
            send({"jsonrpc": "2.0", "id": nid(), "method": "tools/list", "params": {"_meta": m}},
                 headers={"mcp-protocol-version": "2099-01-01", "mcp-method": "tools/list"})
        elif step.startswith("call:") or step.startswith("callnocap:") or step.startswith("callbadstate:"):
            kind, tool = step.split(":", 1)
            meta = dict(META)
            if kind == "callnocap":
                meta["io.modelcontextprotocol/clientCapabilities"] = {}
            params = {"name": tool, "arguments": {}, "_meta": meta}
            for rnd in range(6):
                r = send({"jsonrpc": "2.0", "id": nid(), "method": "tools/call", "params": params},
                         headers=h26("tools/call", tool), timeout=20)
                if not r or "result" not in r or r["result"].get("resultType") != "input_required":
                    break
                res = r["result"]
                responses = {k: answer_for(v["params"]) for k, v in (res.get("inputRequests") or {}).items()}
                params = {"name": tool, "arguments": {}, "_meta": meta, "inputResponses": responses}
                if "requestState" in res:
                    params["requestState"] = res["requestState"]
                    if kind == "callbadstate":
                        params["requestState"] = res["requestState"] + "x"
        else:
            print("unknown step", step)


def main():
    mode = sys.argv[1]
    sep = sys.argv.index("--")
    target = sys.argv[2:sep]
    steps = sys.argv[sep + 1].split(",")
    if mode == "stdio":
        conn = Stdio(target)
        try:
            run(conn, steps, False)
        finally:
            conn.close()
            if conn.err:
                print("--- server stderr (tail):", "".join(conn.err)[-600:])
    else:
        run(Http(target[0]), steps, True)


if __name__ == "__main__":
    main()
