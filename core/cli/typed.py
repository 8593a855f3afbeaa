"""What was typed on a derived command line (core/cli/derived.py), read into an operation's values:
a parameter's words parsed, its ``from_file`` read, a path's bytes, a secret read from a file, the
terminal or standard input (never the command line), each checked (``Arg(check=...)``)."""

from __future__ import annotations

import argparse
import getpass
import inspect
import sys
import typing
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from pydantic import SecretStr

from core.errors import InvalidInput
from core.services.declare import Arg, Operation

FROM_FILE = "__from_file"  # the dest of an Arg's ``from_file`` option: <parameter>__from_file
REFUSED = "__refused"  # the dest of a secret's ``refuse`` option: <parameter>__refused
PLAIN = Arg()


def unwrap(annotation: Any) -> tuple[Any, str]:
    """The plain type of a hint and its description (from ``Annotated[..., Field(description=...)]``)."""
    description = ""
    for _ in range(2):  # Annotated[X, ...] | None: the None first, then the Annotated
        if typing.get_origin(annotation) is typing.Annotated:
            annotation, *extras = typing.get_args(annotation)
            description = description or next(
                (getattr(e, "description", "") or "" for e in extras if getattr(e, "description", "")), "")
        args = typing.get_args(annotation)
        if type(None) in args and len(args) == 2:  # X | None: an option left out is None
            annotation = next(a for a in args if a is not type(None))
    return annotation, description


def moment(text: str) -> datetime:
    """An ISO 8601 date and time (2026-03-01T09:30:00+01:00; without a zone: UTC)."""
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an ISO 8601 date and time: {text!r}") from None
    return moment if moment.tzinfo else moment.replace(tzinfo=timezone.utc)


def read_text(path: str) -> str:
    file = Path(path)
    if not file.is_file():
        raise InvalidInput(f"no such file: {file}")
    return file.read_text(encoding="utf-8")


def value_of(op: Operation, param: inspect.Parameter, args: argparse.Namespace) -> Any:
    """A parameter's value from what was typed: its ``from_file`` read, its words parsed, checked."""
    value = _read(op, param, args)
    check = op.cli.args.get(param.name, PLAIN).check
    if check is not None:
        check(value)
    return value


def _read(op: Operation, param: inspect.Parameter, args: argparse.Namespace) -> Any:
    arg = op.cli.args.get(param.name, PLAIN)
    if arg.secret:
        how = "standard input" + (f" or with {arg.from_file} PATH" if arg.from_file else "")
        if arg.refuse and getattr(args, param.name + REFUSED) is not None:
            raise InvalidInput(arg.refusal or f"the {arg.secret} is never taken on the command line (other users "
                                              f"see it in ps): give it on {how}")
        value = _secret(arg, getattr(args, param.name + FROM_FILE) if arg.from_file else None)
        return SecretStr(value) if unwrap(op.hints.get(param.name))[0] is SecretStr else value
    value = getattr(args, param.name)
    if arg.from_file and getattr(args, param.name + FROM_FILE) is not None:
        return read_text(getattr(args, param.name + FROM_FILE))
    if value is None and param.default is inspect.Parameter.empty:
        if arg.default is not inspect.Parameter.empty:
            return arg.default
        raise InvalidInput(arg.missing or f"give {'/'.join(arg.flag) if isinstance(arg.flag, tuple) else arg.flag}")
    if arg.path:
        file = Path(value)
        if not file.is_file():
            raise InvalidInput(f"no such file: {file}")
        return file.read_bytes()
    if arg.parse is not None and value is not param.default:
        return arg.parse(value)
    return value


def _secret(arg: Arg, path: str | None) -> str:
    """``Arg(secret=what)``: the first line of the file at ``path`` (its ``from_file`` option; "-" is
    standard input), else typed at the terminal without echo (twice unless ``confirm=False``, so a
    typo is not kept), or the first line of standard input (a script's pipe). The value is never
    printed nor put in an error. A secret that may come from a file may not be empty."""
    what = arg.secret
    if path and path != "-":
        try:
            with open(path, encoding="utf-8") as file:
                text = file.readline()
        except OSError as exc:
            raise InvalidInput(f"cannot read the {what} file {path}: {exc.strerror}") from None
    elif sys.stdin is not None and sys.stdin.isatty():
        text = getpass.getpass(f"{arg.prompt or what}: ")
        if arg.confirm and getpass.getpass("again: ") != text:
            raise InvalidInput(f"the two {what}s typed differ")
    else:
        text = sys.stdin.readline() if sys.stdin is not None else ""
        if not text and not arg.from_file:
            raise InvalidInput(f"give the {what} on standard input")
    value = text.rstrip("\r\n")
    if not value and arg.from_file:
        raise InvalidInput(f"no {what}: give it on standard input or with {arg.from_file} PATH")
    return value
