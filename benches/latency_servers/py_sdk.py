"""MCP servers written with the official Python SDK (`mcp`) and with
`fastmcp` (PyPI, pinned in .ci/sdk/requirements.txt), for
benches/elicit_latency.py: one tool `probe` that asks one form (message
"Latency probe", one string field with a default) through the framework's
`ctx.elicit`, which at MCP 2025-11-25 pushes `elicitation/create` on the
call's own stream.

Before the request is sent and after its answer came back, the tool writes
the time (time.monotonic, CLOCK_MONOTONIC, seconds) to the file named by the
environment variable LATENCY_STAMP, one line each (the file is written anew
at each call). With LATENCY_NOISE=1 the tool first logs a message
(`ctx.info`) and reports progress (sent when the call asked for it).

Usage: python py_sdk.py mcp|fastmcp [--http]
  stdio by default; --http serves Streamable HTTP (uvicorn) at
  http://127.0.0.1:<ephemeral>/mcp and prints one line
  "listening http://127.0.0.1:<port>/mcp" on stdout when it accepts
  connections.
"""

import os
import sys
import time

from pydantic import BaseModel

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tests", "servers"))


class Probe(BaseModel):
    name: str = "Ada"


def stamp(mode: str) -> None:
    path = os.environ.get("LATENCY_STAMP")
    if path:
        with open(path, mode) as f:
            f.write("%r\n" % time.monotonic())


def with_mcp(http: bool) -> None:
    from mcp.server.mcpserver import Context, MCPServer

    server = MCPServer("latency-py-mcp", version="1.0.0")

    @server.tool()
    async def probe(ctx: Context) -> str:
        """Ask one form."""
        if os.environ.get("LATENCY_NOISE"):
            await ctx.info("about to ask")
            await ctx.report_progress(1, 2, "asking")
        stamp("w")
        result = await ctx.elicit("Latency probe", schema=Probe)
        stamp("a")
        return result.action

    if http:
        from serve_http import local_socket, serve

        sock, port = local_socket()
        serve(server.streamable_http_app(), sock, f"http://127.0.0.1:{port}/mcp")
    else:
        server.run("stdio")


def with_fastmcp(http: bool) -> None:
    from fastmcp import Context, FastMCP

    mcp = FastMCP("latency-fastmcp", version="1.0.0")

    @mcp.tool()
    async def probe(ctx: Context) -> str:
        """Ask one form."""
        if os.environ.get("LATENCY_NOISE"):
            await ctx.info("about to ask")
            await ctx.report_progress(1, 2, "asking")
        stamp("w")
        result = await ctx.elicit("Latency probe", Probe)
        stamp("a")
        return result.action

    if http:
        import anyio
        from serve_http import local_socket

        sock, port = local_socket()
        sock.listen(64)
        print(f"listening http://127.0.0.1:{port}/mcp", flush=True)
        anyio.run(
            lambda: mcp.run_http_async(
                show_banner=False, host="127.0.0.1", port=port, log_level="warning", sockets=[sock]
            )
        )
    else:
        mcp.run("stdio", show_banner=False)


if __name__ == "__main__":
    {"mcp": with_mcp, "fastmcp": with_fastmcp}[sys.argv[1]]("--http" in sys.argv)
