"""The MCP server (the official ``mcp`` SDK's low-level ``Server``) over the registry's tools.

One server serves both transports; what differs is where the caller's API token comes from
(``Caller``): over stdio the token the process was started with, over streamable HTTP each
request's ``Authorization: Bearer`` header (already checked before its body was read,
core/mcp/http.py, and checked again next to the engine by ``registry.invoke``). Tool calls are
blocking engine calls, so they run on threads (``Runner``: the API's bounded pools over HTTP).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import Any, Protocol

import mcp_types as types
from anyio import to_thread
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server

from core.errors import CoreError
from core.mcp import tools as tool_defs

log = logging.getLogger(__name__)
NAME = "ragdesk"
INSTRUCTIONS = ("ragdesk answers from a team's knowledge bases. list_knowledge_bases shows those you may read; "
                "search returns passages with their file, location and score; ask answers a question with "
                "citations. In strict mode (forced for plain users while the server's policy is on) an answer "
                "comes only from the knowledge base: without a hit it is a fixed reply and no model is called.")


class Caller(Protocol):
    def __call__(self, ctx: ServerRequestContext) -> tuple[str, str]:
        """The request's API token and the client's address (for the engine's token throttle)."""


Runner = Callable[[str, Callable[..., Any], tuple], Awaitable[Any]]  # (pool name, fn, args) -> fn(*args)


async def run_on_thread(pool: str, fn: Callable[..., Any], args: tuple) -> Any:
    return await to_thread.run_sync(fn, *args)


def _tool(t: tool_defs.Tool) -> types.Tool:
    return types.Tool(name=t.name, description=t.description, input_schema=t.input_schema,
                      output_schema=t.output_schema)


def _progress_token(ctx: ServerRequestContext) -> str | int | None:
    """The progress token the client sent with the call, if it asked for progress."""
    meta = ctx.meta
    if isinstance(meta, dict):
        return meta.get("progress_token", meta.get("progressToken"))
    return getattr(meta, "progress_token", None)


class _TextProgress:
    """The answer's text as it is written, sent as ``notifications/progress`` (progress 1, 2, …,
    the piece as its message), in order, on the call's own stream; statuses are not sent."""

    def __init__(self, ctx: ServerRequestContext, token: str | int):
        self.ctx, self.token = ctx, token
        self.loop = asyncio.get_running_loop()
        self.pieces: asyncio.Queue = asyncio.Queue()
        self.sender = asyncio.create_task(self._send())

    def on_event(self, event: Any) -> None:  # on the tool's thread
        if getattr(event, "kind", "") == "text" and getattr(event, "message", ""):
            self.loop.call_soon_threadsafe(self.pieces.put_nowait, event.message)

    async def _send(self) -> None:
        sent = 0
        while (piece := await self.pieces.get()) is not None:
            sent += 1
            try:
                await self.ctx.session.send_progress_notification(self.token, sent, message=piece,
                                                                  related_request_id=self.ctx.request_id)
            except Exception:  # a client gone or a closed stream: the result still goes out (or fails) alone
                log.debug("an MCP progress notification was not sent", exc_info=True)

    async def close(self) -> None:
        self.pieces.put_nowait(None)
        await self.sender


def build_server(backend: Any, caller: Caller, run: Runner = run_on_thread) -> Server:
    """An MCP server whose tools run on ``backend`` (core/api/backend.py) as ``caller``'s user."""

    async def list_tools(ctx: ServerRequestContext, params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
        return types.ListToolsResult(tools=[_tool(t) for t in tool_defs.tools().values()])

    async def call_tool(ctx: ServerRequestContext, params: types.CallToolRequestParams) -> types.CallToolResult:
        tool = tool_defs.tools().get(params.name)
        if tool is None:
            return types.CallToolResult(content=[types.TextContent(text=f"unknown tool {params.name!r}")],
                                        is_error=True)
        progress = _progress_token(ctx) if tool.events else None
        texts = _TextProgress(ctx, progress) if progress is not None else None
        try:
            token, client = caller(ctx)
            reply = await run(tool.pool, tool_defs.call, (backend, tool, params.arguments, token, client,
                                                          texts.on_event if texts else None))
        except CoreError as exc:  # before the call: its pool's waiting line is full (server_busy)
            reply = tool_defs.refusal(exc)
        finally:
            if texts:
                await texts.close()  # every piece sent before the result
        return types.CallToolResult(content=[types.TextContent(text=reply.text)],
                                    structured_content=reply.structured, is_error=reply.is_error)

    def input_schema(name: str) -> dict | None:
        tool = tool_defs.tools().get(name)
        return tool.input_schema if tool else None

    return Server(NAME, version="1", instructions=INSTRUCTIONS, on_list_tools=list_tools, on_call_tool=call_tool,
                  get_tool_input_schema=input_schema)
