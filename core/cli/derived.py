"""CLI subcommands derived from operations that declare ``cli`` (core/services/declare.py: ``Cli``).

Each becomes ``python -m core <name>``: a parameter without a default is a positional argument, one
with a default an option (``--top-k``; a bool ``--flag`` / ``--no-flag``; a list repeats the
option; a ``Literal`` gives choices); the help is the method's docstring (a parameter's from its
``Annotated[..., Field(description=...)]``). It runs as the local admin like every command, through
the hand-off when the operation declares one and another process holds the store, and prints the
declared output model (``--json``: its JSON). Plugins' operations come here (core/services/plugin.py);
a name already taken by a hand-written command is refused, never shadowed.
"""

from __future__ import annotations

import argparse
import functools
import inspect
import typing
from collections.abc import Iterable
from typing import Any, Literal

from pydantic import TypeAdapter

from core.cli.context import emit, engine_for
from core.services.declare import Operation
from core.types import SYSTEM_ACTOR

_RESERVED = frozenset({"json", "data_dir", "wait", "verbose", "command", "handler"})
_SCALARS = (str, int, float)


def _unwrap(annotation: Any) -> tuple[Any, str]:
    """The plain type of a hint and its description (from ``Annotated[..., Field(description=...)]``)."""
    description = ""
    if typing.get_origin(annotation) is typing.Annotated:
        annotation, *extras = typing.get_args(annotation)
        description = next((getattr(e, "description", "") or "" for e in extras if getattr(e, "description", "")), "")
    args = typing.get_args(annotation)
    if type(None) in args and len(args) == 2:  # X | None: an option left out is None
        annotation = next(a for a in args if a is not type(None))
    return annotation, description


def _argument(parser: argparse.ArgumentParser, op: Operation, param: inspect.Parameter, hint: Any) -> None:
    kind, description = _unwrap(hint)
    if param.name in _RESERVED:
        raise TypeError(f"{op.name}(): parameter {param.name!r} is one of the CLI's own options")
    required = param.default is inspect.Parameter.empty
    flag = "--" + param.name.replace("_", "-")
    spec: dict[str, Any] = {"help": description or None}
    origin = typing.get_origin(kind)
    if kind is bool:
        if required:
            raise TypeError(f"{op.name}(): a bool parameter needs a default to be a CLI flag")
        parser.add_argument(flag if not param.default else "--no-" + param.name.replace("_", "-"),
                            dest=param.name, action="store_false" if param.default else "store_true", **spec)
        return
    if origin is Literal:
        spec["choices"] = list(typing.get_args(kind))
        spec["type"] = type(spec["choices"][0])
    elif origin in (list, tuple) and typing.get_args(kind)[0] in _SCALARS:
        spec["type"] = typing.get_args(kind)[0]
        spec["nargs" if required else "action"] = "+" if required else "append"
    elif kind in _SCALARS:
        spec["type"] = kind
    else:
        raise TypeError(f"{op.name}(): parameter {param.name!r} of type {kind!r} cannot be a CLI argument")
    if required:
        parser.add_argument(param.name, **spec)
    else:
        parser.add_argument(flag, dest=param.name, default=param.default, **spec)


def _out(op: Operation) -> TypeAdapter:
    declared = op.cli.out or (op.routes[0].out if op.routes else None)
    return TypeAdapter(declared) if declared is not None else op.output


def _rows(value: Any) -> str:
    """The text form without ``--json``: a row per line, its fields side by side."""
    rows = value if isinstance(value, list) else [value]
    return "\n".join("  ".join(str(v) for v in row.values()) if isinstance(row, dict) else str(row)
                     for row in rows) or "(none)"


def run(op: Operation, args: argparse.Namespace) -> int:
    kwargs = {p.name: getattr(args, p.name) for p in op.wire_params()}
    with engine_for(args, handed_off=op.remote is not None, command=op.cli.name) as engine:
        call = getattr(engine, op.name)
        result = call(SYSTEM_ACTOR, **kwargs) if op.takes_actor else call(**kwargs)
    out = _out(op)
    emit(args, out.dump_python(out.validate_python(result, from_attributes=True), mode="json"), op.cli.human or _rows)
    return 0


def register(sub: argparse._SubParsersAction, operations: Iterable[Operation]) -> list[str]:
    """A subcommand for each of ``operations`` that declares ``cli``; their names."""
    added = []
    for op in operations:
        if op.cli is None:
            continue
        if op.cli.name in sub.choices:
            raise TypeError(f"CLI command {op.cli.name!r} ({op.name}) is already a command")
        doc = inspect.getdoc(op.function) or ""
        parser = sub.add_parser(op.cli.name, help=doc.split("\n\n")[0].replace("\n", " ") or None,
                                description=doc or None, formatter_class=argparse.RawDescriptionHelpFormatter)
        hints = typing.get_type_hints(op.function, include_extras=True)
        for param in op.wire_params():
            _argument(parser, op, param, hints.get(param.name, str))
        parser.set_defaults(handler=functools.partial(run, op))
        added.append(op.cli.name)
    return added
