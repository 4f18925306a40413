"""A minimal MCP server over stdio (MCP 2025-11-25, no SDK) whose one tool,
`echo`, returns the `arguments` of its call exactly as they arrived: the
text of the JSON-RPC line from `"arguments":` on (so an integer beyond 64
bits is seen as the client wrote it) and the arguments as
`structuredContent`. Its inputSchema has a property of each type `mcp
--arg` reads. With ECHO_HUGE set, a second tool, `huge`, has 3,000
properties: more than a form can hold. With ECHO_GATE set, a tool `noisy`
(no arguments) writes five lines on stderr (one with an escape sequence),
then answers only once the file ECHO_GATE names exists. Used by tests/mcp/quick_args.rs and
tests/mcp/small_screens.rs."""

import json
import os
import sys
import time

SCHEMA = {
    "type": "object",
    "properties": {
        "name": {"type": "string"},
        "times": {"type": "integer", "minimum": 1},
        "ratio": {"type": "number"},
        "loud": {"type": "boolean"},
        "color": {"type": "string", "enum": ["red", "green"]},
        "tags": {"type": "array", "items": {"type": "string"}},
        "big": {"type": "integer"},
    },
    "required": ["name"],
    "additionalProperties": False,
}


def reply(rid, result):
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": rid, "result": result}) + "\n")
    sys.stdout.flush()


def error(rid, code, message):
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": rid,
                                 "error": {"code": code, "message": message}}) + "\n")
    sys.stdout.flush()


for line in sys.stdin:
    msg = json.loads(line)
    method, rid = msg.get("method"), msg.get("id")
    if rid is None:
        continue
    if method == "initialize":
        reply(rid, {"protocolVersion": "2025-11-25", "capabilities": {"tools": {}},
                    "serverInfo": {"name": "echo-args", "version": "1"}})
    elif method == "tools/list":
        tools = [{"name": "echo", "inputSchema": SCHEMA}]
        if os.environ.get("ECHO_HUGE"):
            props = {"p%d" % i: {"type": "string"} for i in range(3000)}
            tools.append({"name": "huge", "inputSchema": {"type": "object", "properties": props}})
        if os.environ.get("ECHO_GATE"):
            tools.append({"name": "noisy", "inputSchema": {"type": "object"}})
        reply(rid, {"tools": tools})
    elif method == "tools/call" and msg["params"].get("name") == "noisy":
        for i in range(1, 5):
            sys.stderr.write("debug %d\n" % i)
        sys.stderr.write("debug 5 \x1b[31mred\n")
        sys.stderr.flush()
        while not os.path.exists(os.environ["ECHO_GATE"]):
            time.sleep(0.05)
        reply(rid, {"content": [{"type": "text", "text": "noisy done"}]})
    elif method == "tools/call":
        # Python reads JSON integers exactly and floats as floats, so the
        # text says which the client sent.
        args = msg["params"].get("arguments", {})
        reply(rid, {"content": [{"type": "text", "text": json.dumps(args)}],
                    "structuredContent": msg["params"].get("arguments", {})})
    else:
        error(rid, -32601, "method not found")
