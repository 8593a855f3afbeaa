"""The HTTP API (FastAPI): REST under /api/v1/, the OpenAI-compatible /v1/ and MCP at /mcp, every
route derived from the operation registry, every one behind a Bearer API token.

Errors are JSON ``{"error": {"code", "message"}}`` with a stable code (``errors.py``). Before a
route reads its body, the token is checked and the body capped (``gate.py``); each kind of
request runs on its own bounded thread pool (``pools.py``); an upload is answered once it is
queued (``uploads.py``). The docs (/docs, Swagger UI) load their scripts from this server
(fastapi-offline's bundled assets): no CDN; ReDoc is not served (its script calls a CDN).
"""

from __future__ import annotations

import inspect
import logging
import secrets
import threading
from pathlib import Path
from typing import Annotated, Any

from fastapi import Body, Depends, FastAPI, Query, Request
from fastapi import Path as PathParam
from fastapi.exceptions import RequestValidationError
from fastapi.openapi.docs import get_swagger_ui_html
from fastapi.responses import FileResponse, JSONResponse
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from pydantic import BaseModel, create_model
from starlette.exceptions import HTTPException as StarletteHTTPException

from core.api.backend import Backend
from core.api.errors import error_body, error_response, validation_reply
from core.api.gate import RequestGate
from core.api.pools import Pools
from core.api.registry import Operation, operations
from core.api.event_stream import event_stream
from core.api.sse import live_stream
from core.api.uploads import DEFAULT_WAIT_SECONDS, MAX_WAIT_SECONDS, upload
from core.errors import CoreError, NotAuthenticated
from core.mcp.http import PATH as MCP_PATH
from core.mcp.http import mcp_route

log = logging.getLogger("core.api")

ASSETS = "/api/docs-assets"
_bearer = HTTPBearer(auto_error=False, scheme_name="API token",
                     description="A personal API token: `python -m core tokens create --user NAME`, or the dashboard")


async def _token(creds: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)]) -> str:  # async: no thread
    if creds is None or creds.scheme.lower() != "bearer" or not creds.credentials:
        raise NotAuthenticated("send an API token: Authorization: Bearer <token>")
    return creds.credentials


def _client(request: Request) -> str:
    return request.client.host if request.client else ""


def _body_model(op: Operation) -> type[BaseModel]:
    """The input model less the fields the path carries."""
    if not op.path_fields:
        return op.input
    fields = {n: (f.annotation, f) for n, f in op.input.model_fields.items() if n not in op.path_fields}
    return create_model(f"{op.input.__name__}Body", __config__=op.input.model_config, **fields)


def _signature(op: Operation) -> inspect.Signature:
    kw = inspect.Parameter.KEYWORD_ONLY
    params = [inspect.Parameter("request", kw, annotation=Request),
              inspect.Parameter("token", kw, annotation=Annotated[str, Depends(_token)])]
    for name in op.path_fields:
        params.append(inspect.Parameter(name, kw, annotation=Annotated[str, PathParam()]))
    if op.body == "none":
        for name in op.query_fields:
            f = op.input.model_fields[name]
            default = inspect.Parameter.empty if f.is_required() else f.default
            params.append(inspect.Parameter(name, kw, default=default,
                                            annotation=Annotated[f.annotation, Query(description=f.description)]))
    elif op.body == "json":
        model = _body_model(op)
        required = any(f.is_required() for f in model.model_fields.values())
        params.append(inspect.Parameter("body", kw, default=inspect.Parameter.empty if required else None,
                                        annotation=Annotated[model | None if not required else model, Body()]))
    return inspect.Signature(params)


def _json_endpoint(backend: Backend, op: Operation, pools: Pools):
    pool = pools.named(op.pool)

    async def endpoint(**kw: Any):
        request, token, body = kw.pop("request"), kw.pop("token"), kw.pop("body", None)
        payload = {**(body.model_dump(exclude_unset=True) if body is not None else {}), **kw}
        if op.events:  # the answer's events as they happen, then the answer (event_stream.py)
            return await event_stream(lambda on_event: backend.call(op.name, payload, token, _client(request),
                                                                    on_event=on_event), pool)
        if op.streams and payload.get("stream"):  # the text as the model writes it, on every backend
            return await live_stream(lambda on_event: backend.call(op.name, payload, token, _client(request),
                                                                   on_event=on_event),
                                     str(payload.get("model") or "ragdesk"), pool)
        result = await pool.run(backend.call, op.name, payload, token, _client(request))
        return JSONResponse(result, status_code=op.status_code)

    endpoint.__signature__ = _signature(op)
    endpoint.__name__ = op.name
    return endpoint


_MULTIPART_DOC = {"requestBody": {"required": True, "content": {"multipart/form-data": {"schema": {
    "type": "object", "required": ["files"],
    "properties": {"files": {"type": "array", "items": {"type": "string", "format": "binary"}}}}}}}}


def _upload_endpoint(backend: Backend, op: Operation, pools: Pools, stopping: threading.Event):
    async def endpoint(request: Request, token: Annotated[str, Depends(_token)],
                       wait: Annotated[bool, Query(description="wait until every file's job has finished (or the "
                                                               "timeout runs out)")] = False,
                       timeout: Annotated[float, Query(ge=0, le=MAX_WAIT_SECONDS, description="seconds to wait "
                                                       "with wait=true")] = DEFAULT_WAIT_SECONDS,
                       **path: str):
        reply, status = await upload(backend, pools, request, token, path, op.name, wait=wait, timeout=timeout,
                                     stopping=stopping)
        return JSONResponse(reply, status_code=status)

    kw = inspect.Parameter.KEYWORD_ONLY
    sig = inspect.signature(endpoint)
    params = [p for p in sig.parameters.values() if p.kind != inspect.Parameter.VAR_KEYWORD]
    params += [inspect.Parameter(n, kw, annotation=Annotated[str, PathParam()]) for n in op.path_fields]
    endpoint.__signature__ = sig.replace(parameters=params)
    endpoint.__name__ = op.name
    return endpoint


def _add_routes(app: FastAPI, backend: Backend, pools: Pools, stopping: threading.Event) -> None:
    for op in operations().values():
        endpoint = (_upload_endpoint(backend, op, pools, stopping) if op.body == "multipart"
                    else _json_endpoint(backend, op, pools))
        app.add_api_route(op.path, endpoint, methods=[op.method], name=op.name, summary=op.summary,
                          response_model=op.output, status_code=op.status_code, tags=[op.tag] if op.tag else None,
                          openapi_extra=_MULTIPART_DOC if op.body == "multipart" else None,
                          responses={401: {"description": "missing or wrong API token"},
                                     413: {"description": "the body is larger than this route accepts"},
                                     503: {"description": "the vector store cannot be reached, or too many "
                                                          "requests of this kind at once (Retry-After)"}})


def _add_error_handlers(app: FastAPI) -> None:
    @app.exception_handler(CoreError)
    async def core_error(request: Request, exc: CoreError):
        return error_response(exc)

    @app.exception_handler(RequestValidationError)
    async def invalid(request: Request, exc: RequestValidationError):
        errors = exc.errors()  # no input echoed: only locations (cut short) and messages
        return JSONResponse(validation_reply(errors), status_code=422)

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException):
        code = {404: "not_found", 405: "method_not_allowed", 413: "body_too_large"}.get(exc.status_code, "http_error")
        return JSONResponse(error_body(code, str(exc.detail)), status_code=exc.status_code)

    @app.exception_handler(Exception)
    async def unexpected(request: Request, exc: Exception):
        error_id = secrets.token_hex(4)
        log.error("API request failed (error id %s)", error_id, exc_info=exc)
        return JSONResponse(error_body("internal_error", f"the server failed on this request (error id {error_id}; "
                                                         "see its log)"), status_code=500)


# What /docs needs, and nothing else of fastapi-offline's folder: its ReDoc bundle fetches its logo
# from cdn.redoc.ly (hard-coded), so ReDoc is not served at all.
_DOCS_ASSETS = {"swagger-ui-bundle.js": "text/javascript", "swagger-ui.css": "text/css", "favicon.png": "image/png"}


def _add_docs(app: FastAPI) -> None:
    import fastapi_offline

    folder = Path(fastapi_offline.__file__).parent / "static"

    @app.get(f"{ASSETS}/{{name}}", include_in_schema=False)
    async def asset(name: str):
        if name not in _DOCS_ASSETS:
            raise StarletteHTTPException(404, "not found")
        return FileResponse(folder / name, media_type=_DOCS_ASSETS[name])

    @app.get("/docs", include_in_schema=False)
    async def swagger():
        return get_swagger_ui_html(openapi_url="/openapi.json", title="ragdesk API",
                                   swagger_js_url=f"{ASSETS}/swagger-ui-bundle.js",
                                   swagger_css_url=f"{ASSETS}/swagger-ui.css", swagger_favicon_url=f"{ASSETS}/favicon.png",
                                   swagger_ui_parameters={"validatorUrl": None})  # the validator badge calls out


def create_app(backend: Backend, pools: Pools | None = None) -> FastAPI:
    """``app.state.stopping``: set it when the server begins to stop (core/api/serve.py does):
    uploads waiting with ?wait=true answer where things stand at once."""
    pools = pools or Pools()
    stopping = threading.Event()
    app = FastAPI(title="ragdesk API", version="1", docs_url=None, redoc_url=None,
                  description="Knowledge bases, files, search, answers and chats of ragdesk; OpenAI-compatible "
                              "chat completions under /v1. Every route takes `Authorization: Bearer <API token>`.")
    app.state.stopping = stopping
    _add_error_handlers(app)
    _add_routes(app, backend, pools, stopping)
    _add_docs(app)
    app.router.routes.append(mcp_route(backend, pools))  # MCP over streamable HTTP (core/mcp/http.py)
    # the token and the body's size are judged before any route reads the body (core/api/gate.py)
    app.add_middleware(RequestGate, api=app, backend=backend, pools=pools, ops=operations(), json_paths=(MCP_PATH,))
    return app
