"""CLI subcommands derived from operations declaring ``cli`` (core/cli/derived.py): arguments from
the typed signature, help from the docstring; what cannot be a CLI argument, or would shadow a
command or a global option, is refused when the parser is built."""

from __future__ import annotations

import argparse
from typing import Annotated, Literal

import pytest
from pydantic import Field

from core.cli import derived
from core.services.declare import Cli, operation, operations_of
from core.types import Actor


class _Shelves:
    @operation(access="admin", admin_does="count", cli=Cli("count-things"))
    def count_things(self, actor: Actor, kind: Literal["a", "b"], names: list[str],
                     top: Annotated[int, Field(description="how many")] = 3, loud: bool = False,
                     quiet: bool = True, where: str | None = None, tags: list[str] | None = None) -> int:
        """Count things.

        A longer description."""
        return 0


def _parser(*service_classes: type) -> tuple[argparse.ArgumentParser, argparse._SubParsersAction]:
    parser = argparse.ArgumentParser(prog="t")
    sub = parser.add_subparsers(dest="command")
    sub.add_parser("kb")
    for cls in service_classes:
        derived.register(sub, operations_of("svc", cls))
    return parser, sub


def test_arguments_come_from_the_signature():
    parser, sub = _parser(_Shelves)
    args = parser.parse_args(["count-things", "b", "x", "y", "--top", "7", "--loud", "--no-quiet", "--tags", "t1",
                              "--tags", "t2"])
    assert (args.kind, args.names, args.top, args.loud, args.quiet, args.where, args.tags) == (
        "b", ["x", "y"], 7, True, False, None, ["t1", "t2"])
    defaults = parser.parse_args(["count-things", "a", "x"])
    assert (defaults.top, defaults.loud, defaults.quiet) == (3, False, True)
    with pytest.raises(SystemExit):
        parser.parse_args(["count-things", "c", "x"])  # not one of the Literal's choices
    helped = sub.choices["count-things"].format_help()
    assert "Count things." in helped and "A longer description." in helped and "how many" in helped


def test_what_cannot_be_a_command_is_refused_when_the_parser_is_built():
    class Taken:
        @operation(access="admin", admin_does="x", cli=Cli("kb"))
        def shadow(self, actor: Actor) -> int:
            return 0

    class Reserved:
        @operation(access="admin", admin_does="x", cli=Cli("reserved"))
        def reserved(self, actor: Actor, json: bool = False) -> int:
            return 0

    class Untyped:
        @operation(access="admin", admin_does="x", cli=Cli("untyped"))
        def untyped(self, actor: Actor, blob: dict) -> int:
            return 0

    for cls, message in ((Taken, "already a command"), (Reserved, "CLI's own options"), (Untyped, "cannot be a CLI")):
        with pytest.raises(TypeError, match=message):
            _parser(cls)
