"""Show near-identical chunks once (the same paragraph uploaded in two files, boilerplate)."""

from __future__ import annotations

import re
from typing import Protocol

_SPACE = re.compile(r"\s+")


class _HasText(Protocol):
    text: str


def shingles(text: str, size: int = 5) -> frozenset[str]:
    flat = _SPACE.sub(" ", text.lower()).strip()
    if len(flat) <= size:
        return frozenset([flat])
    return frozenset(flat[i : i + size] for i in range(len(flat) - size + 1))


def similarity(a: frozenset[str], b: frozenset[str]) -> float:
    if not a or not b:
        return 0.0
    return len(a & b) / len(a | b)


def drop_near_duplicates(hits: list, threshold: float, limit: int | None = None) -> list:
    """Keep the first (best-ranked) of any group whose character 5-gram Jaccard ≥ threshold.

    Stops once ``limit`` hits are kept: only the head of the ranking is ever shown.
    """
    kept: list = []
    kept_shingles: list[frozenset[str]] = []
    for hit in hits:
        if limit is not None and len(kept) >= limit:
            break
        sh = shingles(hit.text)
        # Jaccard ≥ t needs the smaller set to be at least t of the larger: skip hopeless pairs cheaply.
        if any(min(len(sh), len(o)) >= threshold * max(len(sh), len(o)) and similarity(sh, o) >= threshold
               for o in kept_shingles):
            continue
        kept.append(hit)
        kept_shingles.append(sh)
    return kept
