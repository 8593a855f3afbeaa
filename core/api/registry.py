"""The operation registry: every API operation declared once.

An ``Operation`` names the operation, its HTTP method and path, its pydantic input and output
models, who may call it, whether it may run long (a job: progress shows under ``/api/v1/jobs``),
and its implementation ``(engine, actor, input) -> output`` over today's ``Engine`` methods.

Everything else is derived from ``OPERATIONS``: the HTTP routes and the OpenAPI schema
(``core/api/app.py``), the hand-off's one ``api_call`` operation (``core/services/api_bridge.py``) and
the security test that walks every route as the wrong user (``tests/api/test_every_route.py``).
A new operation is one ``@operation(...)`` declaration in ``core/api/ops_*.py``.

``invoke`` is the one door: it turns the caller's API token into an ``Actor`` (the engine's
``actor_for_api_token``: wrong, expired, revoked tokens raise ``NotAuthenticated``), applies the
access rule, validates the input and runs the implementation. The API process calls it on its
own engine, or the dashboard's process calls it for the API through the hand-off — the token is
checked where the engine is, so the socket never lets the API act as anyone but the token's user.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel, ValidationError

from core.errors import InvalidInput, PermissionDenied
from core.types import Actor

Access = Literal["user", "admin"]  # "user": any signed-in token (the engine checks each resource)
Body = Literal["none", "json", "multipart"]


@dataclass(frozen=True)
class Operation:
    name: str
    method: str  # GET | POST | DELETE
    path: str  # "/api/v1/kbs/{kb}": names in braces are fields of ``input``
    input: type[BaseModel]
    output: Any  # a pydantic model, or list[Model]
    run: Callable[[Any, Actor, Any], Any]
    summary: str
    access: Access = "user"
    job: bool = False  # may run long; its progress rows show under /api/v1/jobs while it runs
    body: Body = "json"  # GET and DELETE take their fields from the path and the query string
    status_code: int = 200
    tag: str = ""
    # Values for required body fields the security walk and the docs use (never a real secret).
    example: dict[str, Any] = field(default_factory=dict)
    # ``stream: true`` in its input asks for server-sent events; ``run`` then takes a fourth
    # argument, the sink for the answer's live events (core/api/sse.py)
    streams: bool = False

    @property
    def path_fields(self) -> tuple[str, ...]:
        return tuple(re.findall(r"{(\w+)}", self.path))

    @property
    def query_fields(self) -> tuple[str, ...]:
        if self.body != "none":
            return ()
        return tuple(n for n in self.input.model_fields if n not in self.path_fields)


OPERATIONS: dict[str, Operation] = {}


def operation(name: str, method: str, path: str, *, input: type[BaseModel], output: Any, summary: str,
              **options: Any) -> Callable:
    """Declare the decorated ``(engine, actor, input) -> output`` as operation ``name``."""

    def register(run: Callable) -> Callable:
        if name in OPERATIONS:
            raise ValueError(f"operation {name!r} is declared twice")
        body = options.pop("body", "none" if method in ("GET", "DELETE") else "json")
        op = Operation(name, method, path, input, output, run, summary, body=body, **options)
        missing = [f for f in op.path_fields if f not in input.model_fields]
        if missing:
            raise ValueError(f"operation {name!r}: path field(s) {missing} are not in its input model")
        OPERATIONS[name] = op
        return run

    return register


def operations() -> dict[str, Operation]:
    """Every declared operation (importing the modules that declare them)."""
    from core.api import ops_answers, ops_chats, ops_files, ops_kbs, ops_openai  # noqa: F401 (they declare)

    return OPERATIONS


def to_json(value: Any) -> Any:
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json")
    if isinstance(value, list):
        return [to_json(v) for v in value]
    return value


def _validation_message(exc: ValidationError) -> str:
    first = exc.errors()[0]
    where = ".".join(str(p) for p in first.get("loc", ())) or "input"
    return f"{where}: {first.get('msg', 'invalid')}" + (f" (and {exc.error_count() - 1} more)" if exc.error_count() > 1 else "")


def invoke(engine: Any, token: str, name: str, payload: dict, *, client: str = "",
           on_event: Callable[[Any], None] | None = None) -> Any:
    """Run operation ``name`` for the token's user: the JSON-ready output, or a CoreError.
    ``on_event`` receives a streaming operation's live events (in the engine's process only)."""
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
    if op.streams:
        return to_json(op.run(engine, actor, data, on_event))
    return to_json(op.run(engine, actor, data))
