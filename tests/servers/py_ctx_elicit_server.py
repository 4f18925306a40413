"""A server that asks the way the Python SDKs' documentation shows first:
`await ctx.elicit(message, schema=Model)` inside a tool, which pushes
`elicitation/create` and so works only on a 2025-11-25 session. For
tests/mcp/python_sdk.rs: the client's hint (and, at a terminal, its offer
to run the call again over 2025-11-25) when the auto-chosen 2026-07-28
session cannot carry it.

Usage: python py_ctx_elicit_server.py [--fastmcp]
  stdio; `mcp` 2.3.0's MCPServer by default (at 2026-07-28 the call fails
  with JSON-RPC -32600), `--fastmcp` with fastmcp 4.2.3 (at 2026-07-28 the
  tool result has isError).

Tool `book`: asks for `name` (required string) and answers with one text,
JSON `{"action": ..., "name": ...}`.
"""

import json
import sys

from pydantic import BaseModel


class Booking(BaseModel):
    name: str


def report(action, name=None) -> str:
    return json.dumps({"action": action, "name": name}, sort_keys=True)


if "--fastmcp" in sys.argv:
    from fastmcp import Context, FastMCP

    app = FastMCP("py-ctx-elicit-fastmcp")

    @app.tool
    async def book(ctx: Context) -> str:
        """Book a table (asks with ctx.elicit)."""
        result = await ctx.elicit("Book a table", response_type=Booking)
        if result.action == "accept":
            return report("accept", result.data.name)
        return report(result.action)

    if __name__ == "__main__":
        app.run("stdio", show_banner=False)
else:
    from mcp.server.elicitation import AcceptedElicitation
    from mcp.server.mcpserver import Context, MCPServer

    app = MCPServer("py-ctx-elicit", version="1.0.0")

    @app.tool()
    async def book(ctx: Context) -> str:
        """Book a table (asks with ctx.elicit)."""
        result = await ctx.elicit("Book a table", schema=Booking)
        if isinstance(result, AcceptedElicitation):
            return report("accept", result.data.name)
        return report(result.action)

    if __name__ == "__main__":
        app.run("stdio")
