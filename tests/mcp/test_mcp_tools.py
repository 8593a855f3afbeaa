"""The MCP tools are routes of the operation registry declared with ``mcp=``: their schema is the
route's input model, made from the operation's signature; what cannot be a tool is refused."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Annotated

import pytest
from pydantic import BaseModel, ConfigDict, Field

from core.api.registry import routes_of
from core.mcp.tools import tools, tools_of
from core.services.declare import Http, operation
from core.services.facade import install
from core.types import Actor


class _ShelfOut(BaseModel):
    model_config = ConfigDict(from_attributes=True)
    name: str


class _Shelves:
    @operation(http=(Http("POST", "/shelves/look", out=_ShelfOut, summary="look at a shelf", mcp="look"),
                     Http("GET", "/shelves", name="shelves", out=list[_ShelfOut], summary="every shelf",
                          params=(), mcp="shelves"),
                     Http("GET", "/shelves/plain", name="plain", out=list[_ShelfOut], summary="no tool", params=())))
    def look(self, actor: Actor, shelf: Annotated[str, Field(min_length=1, description="the shelf's name")],
             limit: Annotated[int, Field(ge=1, le=5)] = 3) -> dict:
        return {"name": shelf}


def _routes(service: type) -> dict:
    host = type("Host", (), {"__init__": lambda self: setattr(self, "services", SimpleNamespace(s=service()))})
    return routes_of(install(host, {"s": service}).values())


def test_a_tool_is_its_route_with_the_signatures_schema():
    routes = _routes(_Shelves)
    found = tools_of(routes.values())
    assert set(found) == {"look", "shelves"}  # the route without mcp= is no tool
    look = found["look"]
    assert look.route == "look" and look.description == "look at a shelf"
    assert look.input_schema == routes["look"].input.model_json_schema()
    assert look.input_schema["properties"]["limit"]["maximum"] == 5 and look.input_schema["required"] == ["shelf"]
    assert look.output_schema["type"] == "object" and not look.wrapped
    shelves = found["shelves"]  # a list is sent as {"result": [...]}: MCP wants an object
    assert shelves.wrapped and shelves.output_schema["required"] == ["result"]
    assert shelves.output_schema["properties"]["result"]["type"] == "array"


def test_what_cannot_be_a_tool_is_refused():
    class Twice:
        @operation(http=(Http("POST", "/a", out=_ShelfOut, summary="a", mcp="same"),
                         Http("POST", "/b", name="b", out=_ShelfOut, summary="b", mcp="same")))
        def a(self, actor: Actor, shelf: str) -> dict: ...

    class Upload:
        @operation(http=Http("POST", "/up", out=_ShelfOut, summary="up", body="multipart", mcp="up"))
        def up(self, actor: Actor, shelf: str) -> dict: ...

    for service, words in ((Twice, "two routes"), (Upload, "multipart")):
        with pytest.raises(TypeError, match=words):
            tools_of(_routes(service).values())


def test_ragdesk_declares_three_tools():
    assert {name: t.route for name, t in tools().items()} == {
        "list_knowledge_bases": "list_kbs", "search": "search", "ask": "ask_stream"}


def test_a_full_pool_is_the_tools_error_not_a_protocol_failure():
    """The HTTP API's pools refuse a call when their waiting line is full: the caller gets the tool's
    error result with the API's code (server_busy), as REST gets a 503."""
    import anyio
    from mcp import Client

    from core.api.pools import ServerBusy
    from core.mcp.server import build_server

    async def busy(pool: str, fn, args: tuple):
        raise ServerBusy(f"too many {pool} requests at once; try again in a moment")

    async def session():
        async with Client(build_server(None, lambda ctx: ("rd_token", ""), busy)) as mcp:
            return await mcp.call_tool("search", {"query": "remote work"})

    reply = anyio.run(session)
    assert reply.is_error and reply.content[0].text == "server_busy: too many answer requests at once; try again in a moment"
