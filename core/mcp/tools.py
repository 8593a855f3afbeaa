"""The MCP tools, derived from the operation registry: a route declared with ``mcp="name"``
(``Http(..., mcp=...)``, core/services/declare.py) is also that tool.

A tool is its route, not a fourth hand-written surface: its input schema is the route's input
model (made from the operation's signature, with the same types, limits and descriptions as the
REST body and the Python facade), its description the route's summary, its output schema the
route's output model. A call is a REST call by another door: ``Backend.call`` runs
``registry.invoke`` next to the engine, which turns the caller's API token into an Actor, applies
the access rule and validates the arguments — so strict mode's guarantees, knowledge-base
access and token checks are exactly the engine's.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import cache
from typing import Any

from pydantic import TypeAdapter

from core.api.errors import error_code
from core.api.registry import Operation as Route
from core.api.registry import operations
from core.errors import CoreError

RESULT = "result"  # an output that is no JSON object (a list) is sent as {"result": ...}


@dataclass(frozen=True)
class Tool:
    name: str
    route: str  # the registry route it runs
    description: str
    input_schema: dict[str, Any]
    output_schema: dict[str, Any]
    wrapped: bool  # the route's output is no object: the structured result is {"result": output}
    pool: str  # the API's thread pool for it (core/api/pools.py)
    events: bool = False  # its route sends the operation's events: the text goes out as progress notifications


def _output_schema(out: Any) -> tuple[dict[str, Any], bool]:
    schema = TypeAdapter(out).json_schema(mode="serialization")
    if schema.get("type") == "object":  # a model: its own schema (MCP wants an object at the root)
        return schema, False
    defs = schema.pop("$defs", None)
    wrapped: dict[str, Any] = {"type": "object", "properties": {RESULT: schema}, "required": [RESULT]}
    if defs:
        wrapped["$defs"] = defs
    return wrapped, True


def tools_of(routes: Iterable[Route]) -> dict[str, Tool]:
    """The MCP tools of these HTTP routes (those declared with ``mcp=``), by name."""
    found: dict[str, Tool] = {}
    for route in routes:
        if not route.mcp:
            continue
        if route.mcp in found:
            raise TypeError(f"MCP tool {route.mcp!r} is declared on two routes")
        if route.body not in ("json", "none"):  # an upload's files are no JSON arguments
            raise TypeError(f"MCP tool {route.mcp!r}: a {route.body} route cannot be a tool")
        if route.streams:  # OpenAI's chunks are no tool result; an events route is (its reply last)
            raise TypeError(f"MCP tool {route.mcp!r}: an OpenAI streaming route cannot be a tool")
        output, wrapped = _output_schema(route.output)
        found[route.mcp] = Tool(route.mcp, route.name, route.summary, route.input.model_json_schema(), output,
                                wrapped, route.pool, route.events)
    return found


@cache
def tools() -> dict[str, Tool]:
    """Every MCP tool, by name."""
    return tools_of(operations().values())


@dataclass(frozen=True)
class ToolReply:
    structured: dict[str, Any] | None
    text: str
    is_error: bool = False


def refusal(exc: CoreError) -> ToolReply:
    """A tool's error result: the REST API's code for the error and the engine's message."""
    return ToolReply(None, f"{error_code(exc)}: {exc.message}", is_error=True)


def call(backend: Any, tool: Tool, arguments: dict[str, Any] | None, token: str, client: str,
         on_event: Callable[[Any], None] | None = None) -> ToolReply:
    """Run ``tool`` as the token's user (blocking: call it on a thread). A CoreError — a wrong token,
    a knowledge base the user may not read, bad arguments — is the tool's error result with the
    engine's message and the REST API's code; anything else propagates (the SDK reports it).
    ``on_event``: the answer's events as they happen (a tool whose route sends them)."""
    try:
        result = backend.call(tool.route, dict(arguments or {}), token, client,
                              **({"on_event": on_event} if tool.events and on_event is not None else {}))
    except CoreError as exc:
        return refusal(exc)
    structured = {RESULT: result} if tool.wrapped else result
    # the same JSON as text too: clients that read no structured content still get all of it
    return ToolReply(structured, json.dumps(structured, ensure_ascii=False))
