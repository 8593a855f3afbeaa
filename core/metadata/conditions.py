"""A metadata filter as the vector store applies it: typed conditions on payload keys.

A leaf module (no imports from ``core``): ``core.types.SearchFilter`` carries these, and each
engine translates them into its own filter (core/vectorstore/edge_metadata.py, server_metadata.py).

Every point of a knowledge-base file carries its file's metadata under one payload object,
``meta``: ``{key: value}``, where a user field's key is ``f`` + its id and an automatic field's key
is its name (``file_name``, ``folder``, ``title``, ``modified``). Values by kind: text → string,
number → float, date → RFC 3339 UTC string (``2025-03-01T00:00:00Z``), tags → list of strings.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

PAYLOAD_ROOT = "meta"
Kind = Literal["text", "number", "date", "tags"]
KINDS: tuple[Kind, ...] = ("text", "number", "date", "tags")
# The payload index each kind gets (the names both engines use for their schema types).
INDEX_OF: dict[str, str] = {"text": "keyword", "number": "float", "date": "datetime", "tags": "keyword"}


def payload_path(key: str) -> str:
    return f"{PAYLOAD_ROOT}.{key}"


@dataclass(frozen=True)
class MetaCondition:
    """One field's condition. ``any_of``: the value (text, number) or one of the tags equals one of
    these. Bounds: numbers as floats, dates as RFC 3339 strings; None = open."""

    key: str
    kind: Kind
    any_of: tuple[str | float, ...] = ()
    gte: float | str | None = None
    gt: float | str | None = None
    lte: float | str | None = None
    lt: float | str | None = None

    @property
    def path(self) -> str:
        return payload_path(self.key)

    @property
    def is_range(self) -> bool:
        return any(b is not None for b in (self.gte, self.gt, self.lte, self.lt))

    def matches(self, value: object) -> bool:
        """The same test in Python (whole documents, which no vector search sees)."""
        if value is None:
            return False
        if self.kind == "tags":
            values = list(value) if isinstance(value, (list, tuple)) else [value]
            return any(v in self.any_of for v in values)
        if self.any_of and value not in self.any_of:
            return False
        ok = True
        if self.gte is not None:
            ok = ok and value >= self.gte  # type: ignore[operator]
        if self.gt is not None:
            ok = ok and value > self.gt  # type: ignore[operator]
        if self.lte is not None:
            ok = ok and value <= self.lte  # type: ignore[operator]
        if self.lt is not None:
            ok = ok and value < self.lt  # type: ignore[operator]
        return bool(ok)
