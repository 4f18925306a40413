"""An MCP server written with `fastmcp` 4.2.3 (PyPI, pinned in
.ci/sdk/requirements.txt beside `mcp` 2.3.0), for tests/mcp/sdk_both_eras.rs.

Its tools ask for input with fastmcp's guard pattern, as its documentation
shows for 2026-07-28 (SEP-2322): the tool returns an `InputRequiredResult`
whose `input_requests` name what it needs, and on the retried call reads the
answers from `ctx.input_responses` (and its own state from
`ctx.request_state`, which fastmcp seals on the wire and unseals before the
tool runs). This result only exists at 2026-07-28: on a 2025-11-25
connection fastmcp refuses it with -32602, so a client must speak
2026-07-28 to use these tools.

Tools (each answers with one text: JSON, see `report`):
  book   a form: `name` (required string), `guests` (integer 1..12,
         default 2), `seating` (enum inside|terrace).
  visit  a URL-mode request (https://example.com/ahp-consent).
  pair   two different forms in one call, one per round: `contact`
         (required string `email`) first, its answer kept in `requestState`,
         then `prefs` (enum `color` red|green|blue, boolean `news` default
         false).

Usage: python py_fastmcp_server.py [--http] [--stateless]
  stdio by default; --http serves Streamable HTTP at
  http://127.0.0.1:<ephemeral>/mcp and prints one line
  "listening http://127.0.0.1:<port>/mcp" on stdout when it accepts
  connections; --stateless passes `stateless_http=True`.
"""

import json
import socket
import sys

from fastmcp import Context, FastMCP
from mcp_types import (
    ElicitRequest,
    ElicitRequestFormParams,
    ElicitRequestURLParams,
    ElicitResult,
    InputRequiredResult,
)

URL = "https://example.com/ahp-consent"

BOOKING = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "title": "Name", "description": "Your name", "minLength": 2},
        "guests": {"type": "integer", "title": "Guests", "minimum": 1, "maximum": 12, "default": 2},
        "seating": {"type": "string", "title": "Seating", "enum": ["inside", "terrace"]},
    },
    "required": ["name", "seating"],
}
CONTACT = {
    "type": "object",
    "properties": {"email": {"type": "string", "title": "Email"}},
    "required": ["email"],
}
PREFS = {
    "type": "object",
    "properties": {
        "color": {"type": "string", "title": "Colour", "enum": ["red", "green", "blue"]},
        "news": {"type": "boolean", "title": "News", "default": False},
    },
    "required": ["color"],
}

mcp = FastMCP("py-fastmcp-forms", version="1.0.0")


def form(message: str, schema: dict) -> ElicitRequest:
    return ElicitRequest(params=ElicitRequestFormParams(message=message, requested_schema=schema))


def seen(ctx: Context, key: str):
    """What the server received for `key`: `{action, received}`, or None."""
    answer = (ctx.input_responses or {}).get(key)
    if answer is None:
        return None
    if not isinstance(answer, ElicitResult):
        return {"action": "not an elicitation", "received": None}
    return {"action": answer.action, "received": answer.content}


def report(obj) -> str:
    return json.dumps(obj, sort_keys=True)


@mcp.tool
async def book(ctx: Context) -> str | InputRequiredResult:
    """Ask for a booking (one form)."""
    got = seen(ctx, "booking")
    if got is None:
        return InputRequiredResult(input_requests={"booking": form("Book a table", BOOKING)})
    return report(got)


@mcp.tool
async def visit(ctx: Context) -> str | InputRequiredResult:
    """Ask to open a page (URL mode)."""
    got = seen(ctx, "consent")
    if got is None:
        params = ElicitRequestURLParams(message="Please confirm on the web page", url=URL)
        return InputRequiredResult(input_requests={"consent": ElicitRequest(params=params)})
    return report(got)


@mcp.tool
async def pair(ctx: Context) -> str | InputRequiredResult:
    """Ask two forms in one call, one per round."""
    contact = json.loads(ctx.request_state) if ctx.request_state else seen(ctx, "contact")
    if contact is None:
        return InputRequiredResult(input_requests={"contact": form("Your contact", CONTACT)})
    prefs = seen(ctx, "prefs")
    if prefs is None:
        return InputRequiredResult(
            input_requests={"prefs": form("Your preferences", PREFS)},
            request_state=json.dumps(contact, sort_keys=True),
        )
    return report({"contact": contact, "prefs": prefs})


if __name__ == "__main__":
    if "--http" in sys.argv:
        import anyio

        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(("127.0.0.1", 0))
        sock.listen(64)
        port = sock.getsockname()[1]
        print(f"listening http://127.0.0.1:{port}/mcp", flush=True)
        anyio.run(
            lambda: mcp.run_http_async(
                show_banner=False,
                host="127.0.0.1",
                port=port,
                log_level="warning",
                stateless_http="--stateless" in sys.argv,
                sockets=[sock],
            )
        )
    else:
        mcp.run("stdio", show_banner=False)
