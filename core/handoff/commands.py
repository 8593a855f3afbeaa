"""The hand-off's interface, derived from the engine's declared operations.

The commands are the operations declared with ``handoff`` (core/services/): a request is
``{"command": name, "args": {...}}`` and its arguments are checked against a model made from the
operation's signature (strict types, no field it does not name); the result is written as JSON
and read back into the operation's return type, both from its return annotation.
``"events": true`` asks a command whose operation takes ``on_event`` (``api_call``) for its
events as they happen: each is written as ``{"event": {...}}`` before the reply
(``core.handoff.channel``). Nothing else
crosses the socket: no objects, no Actor (the server runs every command as the local admin —
except ``api_call``, which runs as the user of the API token it carries, checked by the engine;
see ``core/api/registry.py``), no callables.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from pydantic import ValidationError

from core.errors import CoreError, InvalidInput, StoreError, error_identity, rebuild_error
from core.operations import OPERATIONS
from core.services.declare import Operation
from core.types import SYSTEM_ACTOR

# Fields a client may send that are dropped unread: the server decides who runs the command.
IGNORED_FIELDS = frozenset({"actor"})


def commands() -> dict[str, Operation]:
    """The operations the CLI may hand off, by name."""
    return {name: op for name, op in OPERATIONS.items() if op.remote is not None}


def _target(op: Operation) -> Operation:
    """The operation whose arguments the command takes: its queued twin's, when it runs through one."""
    return OPERATIONS[op.remote.via] if op.remote.via else op


def _refusal(name: str, exc: ValidationError) -> InvalidInput:
    errors = exc.errors()
    extra = [str(e["loc"][0]) for e in errors if e["type"] == "extra_forbidden"]
    if extra:
        return InvalidInput(f"'{name}' takes no argument(s) {', '.join(sorted(extra))}")
    missing = [str(e["loc"][0]) for e in errors if e["type"] == "missing"]
    if missing:
        return InvalidInput(f"'{name}' needs {', '.join(sorted(missing))}")
    where = ".".join(str(p) for p in errors[0]["loc"])
    return InvalidInput(f"'{name}': argument {where} has the wrong type ({errors[0]['msg']})")


def takes_events(op: Operation) -> bool:
    """Whether a command can send its events as they happen (``"events": true``): it runs the
    operation itself (no queued twin, no custom runner) and the operation takes ``on_event``."""
    return op.remote.run is None and not op.remote.via and "on_event" in op.signature.parameters


def wants_events(message: Any) -> bool:
    """The request asks for the command's events as they happen (checked by ``validate_request``)."""
    return isinstance(message, dict) and message.get("events") is True


def validate_request(message: Any) -> tuple[str, dict]:
    """(command, args) from a decoded request; raises InvalidInput for anything off-schema."""
    if not isinstance(message, dict):
        raise InvalidInput("a hand-off request must be a JSON object")
    extra = set(message) - {"command", "args", "events"} - IGNORED_FIELDS
    if extra:
        raise InvalidInput(f"unknown request field(s): {', '.join(sorted(extra))}")
    name, args = message.get("command"), message.get("args", {})
    known = commands()
    if not isinstance(name, str) or name not in known:
        raise InvalidInput(f"unknown hand-off command {name!r}" if isinstance(name, str) else "no hand-off command")
    if not isinstance(message.get("events", False), bool):
        raise InvalidInput("a hand-off request's 'events' must be true or false")
    if wants_events(message) and not takes_events(known[name]):
        raise InvalidInput(f"'{name}' sends no events: ask for its result only")
    if not isinstance(args, dict):
        raise InvalidInput("hand-off arguments must be a JSON object")
    args = {k: v for k, v in args.items() if k not in IGNORED_FIELDS}
    model = _target(known[name]).input_model
    try:  # from JSON text: strict types as JSON has them (a string for a path, an array for a tuple)
        data = model.model_validate_json(json.dumps(args))
    except ValidationError as exc:
        raise _refusal(name, exc) from None
    return name, {field: getattr(data, field) for field in type(data).model_fields}


def run_command(engine: Any, name: str, args: dict, on_event: Callable[[Any], None] | None = None) -> Any:
    """Run a validated command in this process, as the local admin; its JSON-ready result.
    ``on_event``: its events as they happen (a command that ``takes_events`` only)."""
    op = commands()[name]
    if op.remote.run is not None:
        result = op.remote.run(engine, args)
    else:
        target = _target(op)
        call = getattr(engine, target.name)
        if on_event is not None:
            args = {**args, "on_event": on_event}
        result = call(SYSTEM_ACTOR, **args) if target.takes_actor else call(**args)
        if op.remote.via:
            result = result.result()  # the queued twin's Future: wait for the job, as the CLI does
    return op.output.dump_python(result, mode="json") if op.remote.send_result else None


def request_args(op: Operation, args: tuple, kwargs: dict) -> dict:
    """Client side: a call's arguments as the command takes them (the actor and callbacks stay here)."""
    bound = op.signature.bind(None, *args, **kwargs)  # None: the unbound method's self
    model = _target(op).input_model
    values = {}
    for param in op.wire_params():
        if param.name not in bound.arguments:
            continue
        value = bound.arguments[param.name]
        if param.name not in model.model_fields:
            if value != param.default:
                raise InvalidInput(f"'{op.name}' cannot be handed off with {param.name}={value!r}")
            continue
        values[param.name] = value
    if op.remote.prepare is not None:
        values = op.remote.prepare(values)
    try:
        return model.model_validate(values, strict=False).model_dump(mode="json", exclude_unset=True)
    except ValidationError as exc:
        raise _refusal(op.name, exc) from None


def decode_result(op: Operation, result: Any) -> Any:
    """Client side: the reply's result as the operation's return type."""
    return op.decode(result) if op.remote.send_result else None


def error_payload(exc: CoreError) -> dict:
    """An error as the reply carries it: its class (name and module, see core/errors.py) and message."""
    return {**error_identity(exc), "message": exc.message}


def error_from_payload(payload: Any) -> CoreError:
    """The typed error a reply describes, as its own class (exit codes survive); never anything but a CoreError."""
    if not isinstance(payload, dict) or not isinstance(payload.get("message"), str):
        return StoreError("the dashboard process sent a malformed error")
    module = payload.get("module")
    return rebuild_error(str(payload.get("kind")), payload["message"], module=module if isinstance(module, str) else "")
