"""A stdio MCP server written with the official Python SDK (`mcp` from PyPI,
pinned in .ci/sdk/requirements.txt), for tests/mcp/python_sdk.rs.

Its forms are what the SDK generates from pydantic models. Each tool asks
one elicitation and returns, as its text result, one JSON object:
`{"action": ..., "received": <content as the server received it>,
"validated": <the model's dump after pydantic validation, or null>}`.

Tools:
  book      `ctx.elicit(schema=Booking)`: the SDK renders the model (a
            top-level title and description, field titles, defaults, a
            Literal enum, a Literal of integers, a pattern with examples, an
            optional field that was nullable).
  book_raw  the same model as pydantic's plain `model_json_schema()`, sent
            with `elicit_form`: the nullable field as
            `anyOf: [{"type": "string"}, {"type": "null"}]`, `default: null`.
  ship      a model with a nested object: not a form.

The server is an `MCPServer`: in mcp 2.x that is FastMCP renamed (the
`mcp.server.fastmcp` module is gone), so it is also the FastMCP server; it
adds `ctx.elicit(schema=Model)`, which renders the pydantic model, over the
low-level session's `elicit_form`, which `book_raw` and `ship` use.
"""

import json
from typing import Literal, Optional

from pydantic import BaseModel, Field, ValidationError

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.elicitation import AcceptedElicitation


class Booking(BaseModel):
    """Book a table at the restaurant."""

    name: str = Field(description="Your name", min_length=2)
    guests: int = Field(default=2, ge=1, le=12)
    seating: Literal["inside", "terrace"] = "inside"
    course: Literal[1, 2, 3] = 2
    code: str = Field(default="AB", pattern=r"^[A-Z]{2}$", examples=["XY"])
    nickname: Optional[str] = None
    vegetarian: bool = False


class Address(BaseModel):
    street: str
    city: str


class Shipping(BaseModel):
    """Where to ship."""

    recipient: str
    address: Address


server = MCPServer("py-pydantic-forms", version="1.0.0")


def report(action: str, received, validated) -> str:
    return json.dumps(
        {"action": action, "received": received, "validated": validated},
        sort_keys=True,
    )


@server.tool()
async def book(ctx: Context) -> str:
    """Ask for a booking with the SDK's ctx.elicit (pydantic model)."""
    result = await ctx.elicit("Book a table", schema=Booking)
    if isinstance(result, AcceptedElicitation):
        data = result.data.model_dump()
        return report("accept", data, data)
    return report(result.action, None, None)


async def raw(ctx: Context, message: str, model) -> str:
    result = await ctx.session.elicit_form(
        message,
        requested_schema=model.model_json_schema(),
        related_request_id=ctx.request_id,
    )
    if result.action != "accept":
        return report(result.action, None, None)
    try:
        validated = model.model_validate(result.content).model_dump()
    except ValidationError as e:
        validated = {"error": str(e)}
    return report("accept", result.content, validated)


@server.tool()
async def book_raw(ctx: Context) -> str:
    """Ask for a booking with pydantic's plain JSON Schema (nullable anyOf)."""
    return await raw(ctx, "Book a table (raw schema)", Booking)


@server.tool()
async def ship(ctx: Context) -> str:
    """Ask for a nested object: not something a form can answer."""
    return await raw(ctx, "Where should we ship?", Shipping)


if __name__ == "__main__":
    server.run("stdio")
