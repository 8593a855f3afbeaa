"""ragdesk's engine. The public entry is ``core.Engine`` (see core/engine.py)."""

from __future__ import annotations

from typing import Any

__all__ = ["Engine"]


def __getattr__(name: str) -> Any:
    # Lazy, so importing a small module (core.types) does not load the whole engine.
    if name == "Engine":
        from core.engine import Engine

        return Engine
    raise AttributeError(name)
