"""Subcommands added by later features (eval, ask, compare)."""

from __future__ import annotations

import argparse


def register(sub: argparse._SubParsersAction) -> None:
    """Each feature module registers its own subcommands here."""
