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

Both calls push `elicitation/create`, which exists only on a 2025-11-25
session (at 2026-07-28 they fail: "no back-channel"). The server speaks
both eras, so on a 2026-07-28 request each tool returns the same form in an
`InputRequiredResult` instead (the model rendered by the SDK's
`render_elicitation_schema`, which `ctx.elicit` uses too) and reads the
answer from `ctx.input_responses` on the retry: the forms and the reports
are the same in both eras.
"""

import json
from typing import Literal, Optional

from pydantic import BaseModel, Field, ValidationError

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.elicitation import AcceptedElicitation, render_elicitation_schema
from mcp_types import ElicitRequest, ElicitRequestFormParams, ElicitResult, InputRequiredResult
from mcp_types.version import is_version_at_least


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


def modern(ctx: Context) -> bool:
    """Whether this request is served at 2026-07-28 (no server push)."""
    version = ctx.protocol_version
    return version is not None and is_version_at_least(version, "2026-07-28")


def asked(ctx: Context, message: str, schema: dict):
    """At 2026-07-28: the answer to the form `schema` (an `ElicitResult`),
    or the `InputRequiredResult` that asks for it (key "form")."""
    answer = (ctx.input_responses or {}).get("form")
    if isinstance(answer, ElicitResult):
        return answer
    params = ElicitRequestFormParams(message=message, requested_schema=schema)
    return InputRequiredResult(input_requests={"form": ElicitRequest(params=params)})


@server.tool()
async def book(ctx: Context) -> str | InputRequiredResult:
    """Ask for a booking with the SDK's ctx.elicit (pydantic model)."""
    if modern(ctx):
        result = asked(ctx, "Book a table", render_elicitation_schema(Booking))
        if isinstance(result, InputRequiredResult):
            return result
        if result.action != "accept":
            return report(result.action, None, None)
        try:
            data = Booking.model_validate(result.content).model_dump()
        except ValidationError as e:
            return report("accept", result.content, {"error": str(e)})
        return report("accept", data, data)
    result = await ctx.elicit("Book a table", schema=Booking)
    if isinstance(result, AcceptedElicitation):
        data = result.data.model_dump()
        return report("accept", data, data)
    return report(result.action, None, None)


async def raw(ctx: Context, message: str, model) -> str | InputRequiredResult:
    if modern(ctx):
        result = asked(ctx, message, model.model_json_schema())
        if isinstance(result, InputRequiredResult):
            return result
    else:
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
async def book_raw(ctx: Context) -> str | InputRequiredResult:
    """Ask for a booking with pydantic's plain JSON Schema (nullable anyOf)."""
    return await raw(ctx, "Book a table (raw schema)", Booking)


@server.tool()
async def ship(ctx: Context) -> str | InputRequiredResult:
    """Ask for a nested object: not something a form can answer."""
    return await raw(ctx, "Where should we ship?", Shipping)


if __name__ == "__main__":
    server.run("stdio")
