"""The remote-source plugin type: what the registry holds for each source kind.

Light to import (no ingest, no vendor client): the registry imports every kind's module when it
is first asked, and settings validation asks it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from core.plugins import SOURCES


@dataclass(frozen=True)
class SourceContext:
    """What a kind gets to open one source row: the engine's parts (``parts.snapshot().settings``
    for the current settings), the row (its ``config`` is what was added), its own settings
    sub-model (``sources.kinds.<name>``, or None) and the box holding the owner's secrets."""

    parts: Any
    row: Any
    own: Any
    box: Any


@dataclass(frozen=True)
class SourceKind:
    """``open(ctx) -> Source`` (core/sources/base.py) for kinds synced by the common sync engine;
    ``sync(parts, box, actor, row, trigger=, progress=, tracker=) -> SyncReport`` for a kind that
    runs its own (Google Drive: its owner's OAuth connection). ``check_config(config)`` refuses a
    bad config with InvalidInput before a source row is created."""

    name: str
    open: Callable[[SourceContext], Any] | None = None
    sync: Callable[..., Any] | None = None
    settings: type | None = None
    check_config: Callable[[dict], dict] | None = None
    title: Callable[[dict], str] | None = None


def register_source_kind(kind: SourceKind) -> SourceKind:
    return SOURCES.register(kind.name, kind)
