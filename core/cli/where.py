"""The ``--where`` metadata filter that ``search``, ``ask`` and ``assistants`` take, read by
core/metadata/where.py."""

from __future__ import annotations

import argparse

from core.metadata.where import from_cli

__all__ = ["add_where_argument", "from_cli"]

WHERE_HELP = ("metadata filter (repeatable, all must hold): field=value, field>=N, field<N, "
              "field=FROM..TO (numbers, dates; an open end allowed), tags=a|b (any of)")


def add_where_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--where", action="append", default=[], metavar="FIELD=VALUE", help=WHERE_HELP)
