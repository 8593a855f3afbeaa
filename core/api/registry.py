"""The HTTP API's routes, derived from the engine's declared operations.

A route is declared on the operation it serves (``http=Http(...)`` on ``@operation``, see
core/services/declare.py): method and path, which of the operation's parameters it takes and
under which names, values it fixes, the output model a caller may see. From that come the
route's input model (made from the operation's signature, so the same types and limits as the
Python facade and the CLI hand-off), the HTTP routes and OpenAPI schema (``core/api/app.py``),
the hand-off's one ``api_call`` operation (``core/services/api_bridge.py``) and the security
test that walks every route as the wrong user (``tests/api/test_every_route.py``).

``invoke`` is the one door: it turns the caller's API token into an ``Actor`` (the engine's
``actor_for_api_token``: wrong, expired, revoked tokens raise ``NotAuthenticated``), applies the
access rule, validates the input and runs the engine's operation. The API process calls it on
its own engine, or the dashboard's process calls it for the API through the hand-off — the token
is checked where the engine is, so the socket never lets the API act as anyone but the token's user.
"""

from __future__ import annotations

import re
import typing
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from pydantic import BaseModel, ConfigDict, TypeAdapter, ValidationError, create_model

from core.errors import InvalidInput, PermissionDenied
from core.operations import OPERATIONS
from core.services.declare import Http
from core.services.declare import Operation as EngineOperation
from core.types import Actor


@dataclass(frozen=True)
class Operation:
    """One HTTP route: what app.py serves and the security walk calls."""

    name: str
    method: str  # GET | POST | DELETE
    path: str  # "/api/v1/kbs/{kb}": names in braces are fields of ``input``
    input: type[BaseModel]
    output: Any  # a pydantic model, or list[Model]
    run: Callable[..., Any]  # (engine, actor, input[, on_event]) -> output
    summary: str
    access: str = "user"
    job: bool = False
    body: str = "json"  # GET and DELETE take their fields from the path and the query string
    status_code: int = 200
    tag: str = ""
    example: dict[str, Any] = field(default_factory=dict)
    streams: bool = False
    events: bool = False  # always server-sent events: the operation's events, its reply last
    engine_operation: str = ""  # the engine operation it serves
    pool: str = "light"  # the API's thread pool for it (core/api/pools.py)
    max_body_kb: int = 0  # 0: the API's default cap for a JSON body (core/api/gate.py)
    mcp: str = ""  # the MCP tool this route also is (core/mcp/tools.py)

    @property
    def path_fields(self) -> tuple[str, ...]:
        return tuple(re.findall(r"{(\w+)}", self.path))

    @property
    def query_fields(self) -> tuple[str, ...]:
        if self.body != "none":
            return ()
        return tuple(n for n in self.input.model_fields if n not in self.path_fields)


def _camel(name: str) -> str:
    return "".join(part.capitalize() for part in name.split("_"))


def _input_model(op: EngineOperation, http: Http, route: str) -> type[BaseModel]:
    """The route's fields: the operation's parameters it takes, under the route's names, with the
    signature's types, defaults and limits (``Annotated[..., Field(...)]``)."""
    hints = typing.get_type_hints(op.function, include_extras=True)
    wire = {p.name: p for p in op.wire_params()}
    taken = http.params if http.params is not None else tuple(n for n in wire if n not in http.fixed)
    route_name = {param: name for name, param in http.rename.items()}
    fields = {}
    for param in taken:
        if param not in wire:
            raise TypeError(f"route {route!r}: {op.name}() has no parameter {param!r} to take")
        default = wire[param].default
        fields[route_name.get(param, param)] = (hints.get(param, Any), ... if default is wire[param].empty else default)
    for param in http.fixed:
        if param not in wire:
            raise TypeError(f"route {route!r}: {op.name}() has no parameter {param!r} to fix")
    return create_model(f"{_camel(route)}Input", __config__=ConfigDict(extra=http.extra), **fields)


def _runner(op: EngineOperation, http: Http, output: TypeAdapter) -> Callable[..., Any]:
    def run(engine: Any, actor: Actor, data: BaseModel, on_event: Callable | None = None) -> Any:
        kwargs = {http.rename.get(name, name): getattr(data, name) for name in type(data).model_fields}
        kwargs.update(http.fixed)
        if http.streams or http.events:
            kwargs["on_event"] = on_event
        result = getattr(engine, op.name)(actor, **kwargs)
        if http.reply is not None:
            result = http.reply(data.model_dump(), result)
        return output.validate_python(result, from_attributes=True)

    return run


def _route(op: EngineOperation, http: Http) -> Operation:
    name = http.name or op.name
    model = _input_model(op, http, name)
    missing = [f for f in re.findall(r"{(\w+)}", http.path) if f not in model.model_fields]
    if missing:
        raise TypeError(f"route {name!r}: path field(s) {missing} are not among its parameters")
    if (http.streams or http.events) and "on_event" not in op.signature.parameters:
        raise TypeError(f"route {name!r} streams, but {op.name}() takes no on_event")
    body = http.body or ("none" if http.method in ("GET", "DELETE") else "json")
    pool = http.pool or ("upload" if body == "multipart" else "light")
    if pool not in ("light", "answer", "upload"):
        raise TypeError(f"route {name!r}: unknown pool {pool!r}")
    return Operation(name, http.method, http.path, model, http.out, _runner(op, http, TypeAdapter(http.out)),
                     http.summary, access=op.access, job=op.job, body=body, status_code=http.status_code,
                     tag=http.tag, example=dict(http.example), streams=http.streams, events=http.events,
                     engine_operation=op.name,
                     pool=pool, max_body_kb=http.max_body_kb, mcp=http.mcp)


def routes_of(declared: Iterable[EngineOperation]) -> dict[str, Operation]:
    """The HTTP routes of these engine operations, by name."""
    routes: dict[str, Operation] = {}
    for op in declared:
        for http in op.routes:
            route = _route(op, http)
            if route.name in routes:
                raise TypeError(f"HTTP route {route.name!r} is declared twice")
            routes[route.name] = route
    return routes


@cache
def operations() -> dict[str, Operation]:
    """Every HTTP route, by name, from the engine's declared operations."""
    return routes_of(OPERATIONS.values())


def to_json(value: Any) -> Any:
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json")
    if isinstance(value, list):
        return [to_json(v) for v in value]
    return value


def _validation_message(exc: ValidationError) -> str:
    from core.api.errors import short_loc

    first = exc.errors(include_input=False, include_url=False)[0]
    where = ".".join(str(p) for p in short_loc(first.get("loc", ()))) or "input"
    return f"{where}: {first.get('msg', 'invalid')}" + (f" (and {exc.error_count() - 1} more)" if exc.error_count() > 1 else "")


def invoke(engine: Any, token: str, name: str, payload: dict, *, client: str = "",
           on_event: Callable[[Any], None] | None = None) -> Any:
    """Run route ``name`` for the token's user: the JSON-ready output, or a CoreError.
    ``on_event`` receives a streaming route's live events (in the engine's process only)."""
    op = operations().get(name)
    if op is None:
        raise InvalidInput(f"unknown API operation {name!r}")
    actor = engine.actor_for_api_token(token, client=client)  # NotAuthenticated for a bad token
    if op.access == "admin" and not actor.is_admin:
        raise PermissionDenied(f"'{op.name}' is for admins")
    try:
        data = op.input.model_validate(payload)
    except ValidationError as exc:
        raise InvalidInput(_validation_message(exc)) from None
    return to_json(op.run(engine, actor, data, on_event))
