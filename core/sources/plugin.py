"""The remote-source plugin type: what the registry holds for each source kind.

Light to import (no ingest, no vendor client): the registry imports every kind's module when it
is first asked, and settings validation asks it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from core.plugins import SOURCES


@dataclass(frozen=True)
class SourceContext:
    """What a kind gets to open one source row: the engine's parts (``parts.snapshot().settings``
    for the current settings), the row (its ``config`` is what was added), its own settings
    sub-model (``sources.kinds.<name>``, or None), the box holding the owner's secrets, and the
    source's own credentials (``secrets``: name -> plain value, decrypted for this run only)."""

    parts: Any
    row: Any
    own: Any
    box: Any
    secrets: dict = field(default_factory=dict)


@dataclass(frozen=True)
class SourceKind:
    """``open(ctx) -> Source`` (core/sources/base.py) for kinds synced by the common sync engine;
    ``sync(parts, box, actor, row, trigger=, progress=, tracker=) -> SyncReport`` for a kind that
    runs its own (Google Drive: its owner's OAuth connection). ``check_config(config)`` refuses a
    bad config with InvalidInput before a source row is created; ``admit(config, settings)`` then
    refuses one the current settings forbid (a folder outside the allowed roots, a URL the guard
    refuses). ``admin_only``: only an admin may add one (a server path). ``secrets``: config keys
    that are credentials — taken out of the config, stored encrypted per source (never listed),
    handed to ``open`` as ``ctx.secrets``."""

    name: str
    open: Callable[[SourceContext], Any] | None = None
    sync: Callable[..., Any] | None = None
    settings: type | None = None
    check_config: Callable[[dict], dict] | None = None
    title: Callable[[dict], str] | None = None
    admit: Callable[[dict, Any], dict] | None = None
    admin_only: bool = False
    secrets: tuple[str, ...] = ()


def register_source_kind(kind: SourceKind) -> SourceKind:
    return SOURCES.register(kind.name, kind)
