"""Every API request is judged before its body is read: its token, then its size.

FastAPI reads and parses a JSON body before any dependency or endpoint runs, so a wrong token
used to be refused only after a 300 MB body had been read, and a body's size was never capped.
This ASGI middleware sits in front of the routes:

1. the route is found (a path that is no API route passes on, its body capped small);
2. the API token is checked by the engine (the ``limits`` operation: wrong, expired, revoked or
   throttled tokens are refused there, 401/429) — before one byte of the body is read; the
   upload limits it returns are the request's, read once (``request.state.limits``);
3. the body is capped by route: a multipart upload by the upload limits (files × the largest
   file, plus the multipart framing: ``UploadLimits.max_request_bytes``), a JSON body by the
   route's ``max_body_kb`` (default 1 MiB).
   An announced length over the cap is refused at once; a body without one is counted as it
   arrives and refused when it passes the cap;
4. a response sent before the body was read to its end closes the connection, so the server
   never drains the rest of a refused body (uvicorn otherwise reads on until the client stops).
"""

from __future__ import annotations

from typing import Any

from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException
from starlette.routing import Match
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from core.api.errors import error_response
from core.api.pools import Pools
from core.errors import CoreError, NotAuthenticated
from core.upload_limits import UploadLimits

KB = 1024
DEFAULT_JSON_KB = 1024  # a question, a search, a knowledge base's name: far below this
OTHER_BODY_KB = 64  # paths that are no API route (docs, schema, 404s) read no body worth having
LIMITS_STATE = "ragdesk_limits"


class BodyTooLarge(HTTPException):
    """Raised from ``receive`` once a body passes its cap (FastAPI re-raises HTTP errors as they are)."""

    def __init__(self, cap: int):
        super().__init__(413, f"the request body is larger than the {_size(cap)} this route accepts")


def _size(n: int) -> str:
    return f"{n // (1024 * KB)} MB" if n >= 1024 * KB else f"{max(1, n // KB)} KB"


def bearer_token(scope: Scope) -> str:
    for name, value in scope.get("headers", []):
        if name == b"authorization":
            scheme, _, token = value.decode("latin-1").partition(" ")
            return token.strip() if scheme.lower() == "bearer" else ""
    return ""


def _declared_length(scope: Scope) -> int | None:
    for name, value in scope.get("headers", []):
        if name == b"content-length":
            text = value.decode("latin-1").strip()
            return int(text) if text.isdigit() else None
    return None


def _chunked(scope: Scope) -> bool:
    return any(name == b"transfer-encoding" for name, _ in scope.get("headers", []))


def body_cap(op: Any, limits: UploadLimits) -> int:
    """The largest body route ``op`` reads, in bytes."""
    if op.body == "multipart":
        return limits.max_request_bytes
    if op.body == "none":
        return OTHER_BODY_KB * KB
    return (op.max_body_kb or DEFAULT_JSON_KB) * KB


class RequestGate:
    """``api``: the FastAPI app (its routes name the operations); ``backend`` checks the token."""

    def __init__(self, app: ASGIApp, *, api: Any, backend: Any, pools: Pools, ops: dict,
                 json_paths: tuple[str, ...] = ()):
        self.app, self.api, self.backend, self.pools, self.ops = app, api, backend, pools, ops
        self.json_paths = json_paths  # served beside the routes, checking their own tokens (MCP): a JSON cap

    def _operation(self, scope: Scope) -> Any:
        for route in self.api.router.routes:
            match, _ = route.matches(scope)
            if match is Match.FULL:
                return self.ops.get(getattr(route, "name", ""))
        return None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = _declared_length(scope)
        body = _BodyWatch(receive, send, empty=not declared and not _chunked(scope))
        op = self._operation(scope)
        if op is None:
            body.cap = (DEFAULT_JSON_KB if scope.get("path") in self.json_paths else OTHER_BODY_KB) * KB
        else:
            try:
                limits = await self._authenticate(scope)
            except CoreError as exc:
                await error_response(exc)(scope, body.receive, body.send)
                return
            scope.setdefault("state", {})[LIMITS_STATE] = limits  # the request's one read of them
            body.cap = body_cap(op, limits)
        if declared is not None and declared > body.cap:
            await _too_large(body.cap)(scope, body.receive, body.send)
            return
        await self.app(scope, body.receive, body.send)

    async def _authenticate(self, scope: Scope) -> UploadLimits:
        token = bearer_token(scope)
        if not token:
            raise NotAuthenticated("send an API token: Authorization: Bearer <token>")
        client = scope["client"][0] if scope.get("client") else ""
        return UploadLimits.from_dict(await self.pools.light.run(self.backend.call, "limits", {}, token, client))


def _too_large(cap: int) -> JSONResponse:
    exc = BodyTooLarge(cap)
    return JSONResponse({"error": {"code": "body_too_large", "message": exc.detail}}, status_code=413)


class _BodyWatch:
    """Counts the body as it is read (refusing it past ``cap``) and closes the connection after a
    response sent before the body's end."""

    def __init__(self, receive: Receive, send: Send, *, empty: bool):
        self._receive, self._send = receive, send
        self.cap = 0
        self.read = 0
        self.complete = empty  # no length and not chunked: HTTP/1.1 says there is no body

    async def receive(self) -> Message:
        message = await self._receive()
        if message["type"] == "http.request":
            self.read += len(message.get("body", b""))
            if self.read > self.cap:
                raise BodyTooLarge(self.cap)
            if not message.get("more_body", False):
                self.complete = True
        return message

    async def send(self, message: Message) -> None:
        if message["type"] == "http.response.start" and not self.complete:
            headers = [h for h in message.get("headers", []) if h[0].lower() != b"connection"]
            message = {**message, "headers": [*headers, (b"connection", b"close")]}
        await self._send(message)
