"""A stdio MCP server written with the official Python SDK (`mcp` from PyPI,
pinned in .ci/sdk/requirements.txt), for trying a server by hand
(`ahp-elicit mcp -- python tests/servers/py_try_server.py` at a terminal)
and for tests/mcp/try_by_hand.rs.

Tools (each returns one text: JSON of what it received):
  book_table  arguments: `city` (required string), `guests` (integer
              1..12, required), `terrace` (boolean, default false).
  ask_survey  no arguments; asks a form through the SDK's `ctx.elicit`
              (a pydantic model: `rating` integer 1..5, `comment` string)
              and returns the answer it received. At 2025-11-25 the form
              is pushed (`elicitation/create`); at 2026-07-28 it comes back
              in an `InputRequiredResult` and the answer is read on the retry.
  set_mood    argument: `mood`, one of calm, busy, wild.
  ship_parcel arguments: `recipient` (required string) and `address` (a
              required nested object, street and city, through `$ref`):
              the form cannot draw it, so it is edited as JSON.
  slow        no arguments; reports progress (1 of 3, "warming up") and
              logs "still working" (info), then works for two minutes
              unless cancelled: a cancellation is recorded as
              `{"cancelled": true}` (the client's Esc reached the server).

Prompt: `greeting` (argument `name`, required): one user message
"Hello, NAME". Resource: `menu://today` (text: "Soup of the day").

With the environment variable TRY_RECORD set, each tool also appends what
it received, one JSON line, to that file.

Usage: python py_try_server.py [--http]
  stdio by default; --http serves Streamable HTTP at
  http://127.0.0.1:<ephemeral>/mcp and prints one line
  "listening http://127.0.0.1:<port>/mcp" on stdout when ready.
"""

import json
import os
import sys
import warnings
from typing import Annotated, Literal

import anyio
from pydantic import BaseModel, Field

from mcp import MCPDeprecationWarning
from mcp.server.elicitation import AcceptedElicitation, render_elicitation_schema
from mcp.server.mcpserver import Context, MCPServer
from mcp_types import ElicitRequest, ElicitRequestFormParams, ElicitResult, InputRequiredResult
from mcp_types.version import is_version_at_least


class Survey(BaseModel):
    """How was it?"""

    rating: int = Field(ge=1, le=5, description="From 1 to 5")
    comment: str = Field(default="", description="Anything to add")


class Address(BaseModel):
    street: str
    city: str


server = MCPServer("py-try-by-hand", version="1.0.0")

# `ctx.info` is deprecated at 2026-07-28 (logging, SEP-2577) but still sent:
# the warning would only clutter the client's stderr.
warnings.filterwarnings("ignore", category=MCPDeprecationWarning)


def record(tool: str, received) -> str:
    line = json.dumps({"tool": tool, "received": received}, sort_keys=True)
    path = os.environ.get("TRY_RECORD")
    if path:
        with open(path, "a", encoding="utf-8") as f:
            f.write(line + "\n")
    return line


@server.tool()
def book_table(
    city: str,
    guests: Annotated[int, Field(ge=1, le=12, description="How many people (1 to 12)")],
    terrace: bool = False,
) -> str:
    """Book a table in a city."""
    return record("book_table", {"city": city, "guests": guests, "terrace": terrace})


def modern(ctx: Context) -> bool:
    version = ctx.protocol_version
    return version is not None and is_version_at_least(version, "2026-07-28")


@server.tool()
async def ask_survey(ctx: Context) -> str | InputRequiredResult:
    """Ask a short survey through a form (an elicitation)."""
    if modern(ctx):
        answer = (ctx.input_responses or {}).get("survey")
        if not isinstance(answer, ElicitResult):
            params = ElicitRequestFormParams(
                message="How was it?", requested_schema=render_elicitation_schema(Survey)
            )
            return InputRequiredResult(input_requests={"survey": ElicitRequest(params=params)})
        return record("ask_survey", {"action": answer.action, "content": answer.content})
    result = await ctx.elicit("How was it?", schema=Survey)
    if isinstance(result, AcceptedElicitation):
        return record("ask_survey", {"action": "accept", "content": result.data.model_dump()})
    return record("ask_survey", {"action": result.action, "content": None})


@server.tool()
def set_mood(mood: Literal["calm", "busy", "wild"]) -> str:
    """Set the mood of the room."""
    return record("set_mood", {"mood": mood})


@server.tool()
def ship_parcel(recipient: str, address: Address) -> str:
    """Ship a parcel to an address."""
    return record("ship_parcel", {"recipient": recipient, "address": address.model_dump()})


@server.tool()
async def slow(ctx: Context) -> str:
    """Work for a long while, saying how it goes."""
    await ctx.report_progress(1, 3, "warming up")
    await ctx.info("still working")
    try:
        await anyio.sleep(120)
    except anyio.get_cancelled_exc_class():
        record("slow", {"cancelled": True})
        raise
    return record("slow", {"cancelled": False})


@server.prompt()
def greeting(name: str) -> str:
    """Greet someone by name."""
    return f"Hello, {name}"


@server.resource("menu://today", name="menu", mime_type="text/plain")
def menu() -> str:
    """Today's menu."""
    return "Soup of the day"


def serve_http() -> None:
    from serve_http import local_socket, serve

    sock, port = local_socket()
    serve(server.streamable_http_app(), sock, f"http://127.0.0.1:{port}/mcp")


if __name__ == "__main__":
    if "--http" in sys.argv:
        serve_http()
    else:
        server.run("stdio")
