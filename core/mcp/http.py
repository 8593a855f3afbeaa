"""MCP over streamable HTTP at ``/mcp``, beside the REST API (core/api/app.py mounts it).

Each request is judged before its body is read, as every API route is (core/api/gate.py): no
``Authorization: Bearer <token>`` or a wrong, expired, revoked or throttled token is refused
there (401/429, the REST API's JSON error); then the SDK's transport serves the one request.

Stateless (the SDK's ``stateless=True``): no MCP session outlives its request, so there is no
session id that another caller could present — every request stands on its own token. Replies
are server-sent events (``json_response=False``), so the ask tool's progress notifications (the
answer's text as it is written, core/mcp/server.py) reach the client before its result. A browser
page cannot call it with a user's token: the token is a header, never a cookie, and no CORS
headers are sent, so the SDK's DNS-rebinding (Host/Origin) check is not needed here.
"""

from __future__ import annotations

from typing import Any

from mcp.server.context import ServerRequestContext
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from starlette.routing import Route
from starlette.types import Receive, Scope, Send

from core.api.errors import error_response
from core.api.gate import DEFAULT_JSON_KB, KB, bearer_token
from core.api.pools import Pools
from core.errors import CoreError, NotAuthenticated
from core.mcp.server import build_server

PATH = "/mcp"


def _caller(ctx: ServerRequestContext) -> tuple[str, str]:
    request = ctx.request  # the HTTP request the message came in (starlette)
    if request is None:  # cannot happen over HTTP; refuse rather than act as nobody in particular
        raise NotAuthenticated("no HTTP request carries this MCP message's token")
    return bearer_token(request.scope), (request.client.host if request.client else "")


class McpEndpoint:
    """The ASGI app at ``/mcp``."""

    def __init__(self, backend: Any, pools: Pools):
        self.backend, self.pools = backend, pools

        async def run(pool: str, fn, args: tuple) -> Any:
            return await pools.named(pool).run(fn, *args)

        self.server = build_server(backend, _caller, run)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return
        try:
            await self._authenticate(scope)
        except CoreError as exc:
            await error_response(exc)(scope, receive, send)
            return
        # one manager per request: stateless, it keeps nothing between requests, and it needs no
        # lifespan of the app (the dashboard serves the API with lifespan="off")
        manager = StreamableHTTPSessionManager(self.server, json_response=False, stateless=True,
                                               max_request_body_size=DEFAULT_JSON_KB * KB)
        async with manager.run():
            await manager.handle_request(scope, receive, send)

    async def _authenticate(self, scope: Scope) -> None:
        token = bearer_token(scope)
        if not token:
            raise NotAuthenticated("send an API token: Authorization: Bearer <token>")
        client = scope["client"][0] if scope.get("client") else ""
        await self.pools.light.run(self.backend.call, "limits", {}, token, client)


def mcp_route(backend: Any, pools: Pools) -> Route:
    return Route(PATH, endpoint=McpEndpoint(backend, pools), name="mcp", include_in_schema=False)
