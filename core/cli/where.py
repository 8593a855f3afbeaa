"""The ``--where`` metadata filter that ``search``, ``ask`` and ``assistants`` take, read by
core/metadata/where.py."""

from __future__ import annotations

import argparse

from core.metadata.where import CLI_HELP, from_cli

__all__ = ["add_where_argument", "from_cli"]


def add_where_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--where", action="append", default=[], metavar="FIELD=VALUE", help=CLI_HELP)
