"""An MCP server written with the official Python SDK (`mcp` 2.3.0 from PyPI,
pinned in .ci/sdk/requirements.txt), serving both protocol eras, for
tests/mcp/sdk_both_eras.rs.

Its forms are asked the way the SDK documents for both eras: a tool
parameter annotated `Annotated[ElicitationResult[Model], Resolve(fn)]`
whose resolver returns `Elicit(message, Model)`. On a 2026-07-28 request the
SDK answers `tools/call` with an `input_required` result (the resolvers that
still need input batched in one round, their progress in `requestState`); on
a 2025-11-25 session it pushes `elicitation/create` mid-call instead.

URL mode has no resolver marker: `visit` returns an `InputRequiredResult`
with a URL-mode `elicitation/create` itself on 2026-07-28 (the answer comes
back on `ctx.input_responses`) and calls `ctx.elicit_url` on 2025-11-25.

Tools (each answers with one text: JSON, see `report`):
  book   a form: `name` (required string), `guests` (integer 1..12,
         default 2), `seating` (enum inside|terrace).
  visit  a URL-mode request (https://example.com/ahp-consent).
  pair   two different forms in one call: `contact` (required string
         `email`) and `prefs` (enum `color` red|green|blue, boolean `news`
         default false); on 2026-07-28 both in one round.

Usage: python py_mcp_eras_server.py [--http] [--stateless]
  stdio by default; --http serves Streamable HTTP at
  http://127.0.0.1:<ephemeral>/mcp and prints one line
  "listening http://127.0.0.1:<port>/mcp" on stdout when ready;
  --stateless builds the app with `stateless_http=True`.
"""

import json
import sys
import uuid
from typing import Annotated, Literal

from pydantic import BaseModel, Field

from mcp.server.elicitation import AcceptedElicitation, ElicitationResult
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.resolve import Elicit, Resolve
from mcp_types import ElicitRequest, ElicitRequestURLParams, ElicitResult, InputRequiredResult
from mcp_types.version import is_version_at_least

URL = "https://example.com/ahp-consent"


class Booking(BaseModel):
    name: str = Field(description="Your name", min_length=2)
    guests: int = Field(default=2, ge=1, le=12)
    seating: Literal["inside", "terrace"]


class Contact(BaseModel):
    email: str


class Prefs(BaseModel):
    color: Literal["red", "green", "blue"]
    news: bool = False


def ask_booking() -> Elicit[Booking]:
    return Elicit("Book a table", Booking)


def ask_contact() -> Elicit[Contact]:
    return Elicit("Your contact", Contact)


def ask_prefs() -> Elicit[Prefs]:
    return Elicit("Your preferences", Prefs)


def outcome(result: ElicitationResult) -> dict:
    """What the server received: `{action, received}`."""
    if isinstance(result, AcceptedElicitation):
        return {"action": "accept", "received": result.data.model_dump()}
    return {"action": result.action, "received": None}


def report(obj) -> str:
    return json.dumps(obj, sort_keys=True)


server = MCPServer("py-mcp-eras", version="1.0.0")


@server.tool()
async def book(booking: Annotated[ElicitationResult[Booking], Resolve(ask_booking)]) -> str:
    """Ask for a booking (one form)."""
    return report(outcome(booking))


@server.tool()
async def pair(
    contact: Annotated[ElicitationResult[Contact], Resolve(ask_contact)],
    prefs: Annotated[ElicitationResult[Prefs], Resolve(ask_prefs)],
) -> str:
    """Ask two forms in one call."""
    return report({"contact": outcome(contact), "prefs": outcome(prefs)})


@server.tool()
async def visit(ctx: Context) -> str | InputRequiredResult:
    """Ask to open a page (URL mode)."""
    message = "Please confirm on the web page"
    version = ctx.protocol_version
    if version is not None and is_version_at_least(version, "2026-07-28"):
        answer = (ctx.input_responses or {}).get("consent")
        if answer is None:
            return InputRequiredResult(
                input_requests={"consent": ElicitRequest(params=ElicitRequestURLParams(message=message, url=URL))}
            )
        if not isinstance(answer, ElicitResult):
            return report({"action": "not an elicitation", "received": None})
        return report({"action": answer.action, "received": answer.content})
    result = await ctx.elicit_url(message, URL, str(uuid.uuid4()))
    return report({"action": result.action, "received": None})


def serve_http(stateless: bool) -> None:
    from serve_http import local_socket, serve

    sock, port = local_socket()
    app = server.streamable_http_app(stateless_http=stateless)
    serve(app, sock, f"http://127.0.0.1:{port}/mcp")


if __name__ == "__main__":
    if "--http" in sys.argv:
        serve_http("--stateless" in sys.argv)
    else:
        server.run("stdio")
