"""An MCP server written with the official Python SDK (`mcp` 2.3.0 from PyPI,
pinned in .ci/sdk/requirements.txt), serving both protocol eras, whose
tools need the client's LLM and its roots, for tests/mcp/sampling_roots.rs
and tests/pty sampling tests.

Both are asked the way the SDK documents: a tool parameter annotated
`Annotated[T, Resolve(fn)]` whose resolver returns `Sample(...)` or
`ListRoots()`. On a 2026-07-28 request the SDK answers `tools/call` with an
`input_required` result (`sampling/createMessage` or `roots/list` among its
`inputRequests`); on a 2025-11-25 session it pushes the request mid-call.

Tools (each answers with one text: JSON, see `report`):
  ask    samples the client's LLM: system prompt "Answer in one word.",
         model hint "claude", maxTokens 50, one user message (the `question`
         argument, default "What is the capital of France?"); reports the
         `CreateMessageResult` it got: {"role", "text", "model",
         "stopReason"}, or {"error": ...} when the client refused.
  roots  lists the client's roots; reports {"roots": [{"uri", "name"}]}.

Usage: python py_sampling_server.py   (stdio)
"""

import json
from typing import Annotated

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.resolve import ListRoots, Resolve, Sample
from mcp_types import (
    CreateMessageResult,
    ListRootsResult,
    ModelHint,
    ModelPreferences,
    SamplingMessage,
    TextContent,
)


def report(obj) -> str:
    return json.dumps(obj, sort_keys=True)


def ask_model(question: str = "What is the capital of France?") -> Sample:
    return Sample(
        [SamplingMessage(role="user", content=TextContent(type="text", text=question))],
        max_tokens=50,
        system_prompt="Answer in one word.",
        model_preferences=ModelPreferences(hints=[ModelHint(name="claude")], speed_priority=0.5),
    )


def ask_roots() -> ListRoots:
    return ListRoots()


server = MCPServer("py-sampling", version="1.0.0")


@server.tool()
async def ask(
    answer: Annotated[CreateMessageResult, Resolve(ask_model)],
    question: str = "What is the capital of France?",
) -> str:
    """Ask the client's model one question."""
    content = answer.content
    text = content.text if isinstance(content, TextContent) else None
    return report(
        {"role": answer.role, "text": text, "model": answer.model, "stopReason": answer.stop_reason}
    )


@server.tool()
async def roots(listed: Annotated[ListRootsResult, Resolve(ask_roots)]) -> str:
    """List the client's roots."""
    return report({"roots": [{"uri": str(r.uri), "name": r.name} for r in listed.roots]})


if __name__ == "__main__":
    server.run("stdio")
