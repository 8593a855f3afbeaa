"""Where a cited passage lies in a source's characters, however they were laid out.

A passage and its source rarely agree character for character: the chunk's text went through
layout (reading order, tables as Markdown pipes, joined hyphenation) and cleaning, and a PDF's
characters come in content-stream order. So both sides are normalised (no whitespace, no
Markdown markup, NFKC, case-folded) and compared by shingles: every source position that
starts a K-character piece of the passage is marked. Long runs of marks are the passage; a
short run counts only near a long one (a table cell beside its row), so a phrase the page
repeats elsewhere is not marked. Order does not matter, so columns and tables still match.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence

K = 8  # shingle length in normalised characters (about a word and a half, or a Chinese phrase)
ANCHOR_CHARS = 2 * K  # a run this long is the passage itself
NEAR_CHARS = 60  # a shorter run within this many normalised characters of an anchor is kept
_DROP = frozenset("|#*`>_~-\u00ad\x02\ufffe\u2010\u2011")  # markup, dashes of table rules, soft hyphens


def normalise(text: Sequence[str]) -> tuple[str, list[int]]:
    """The comparable form of ``text`` (a string or a list of characters) and, for each of its
    characters, the index in ``text`` it came from."""
    out: list[str] = []
    source: list[int] = []
    for i, ch in enumerate(text):
        if ch.isspace() or ch in _DROP:
            continue
        folded = ch if ch.isascii() else unicodedata.normalize("NFKC", ch)
        for c in folded.casefold():
            if not c.isspace() and c not in _DROP:
                out.append(c)
                source.append(i)
    return "".join(out), source


def marked_runs(haystack: str, passage: str) -> list[tuple[int, int]]:
    """Runs [start, end) of normalised ``haystack`` that hold normalised ``passage``."""
    if not haystack or not passage:
        return []
    at = haystack.find(passage)
    if at >= 0:  # the common case: the passage as one piece
        return [(at, at + len(passage))]
    k = min(K, len(passage))
    pieces = {passage[i:i + k] for i in range(len(passage) - k + 1)}
    marked = bytearray(len(haystack))
    for i in range(len(haystack) - k + 1):
        if haystack[i:i + k] in pieces:
            marked[i:i + k] = b"\x01" * k
    runs: list[tuple[int, int]] = []
    i = 0
    while i < len(marked):
        if marked[i]:
            j = i
            while j < len(marked) and marked[j]:
                j += 1
            runs.append((i, j))
            i = j
        else:
            i += 1
    anchor = min(ANCHOR_CHARS, len(passage))
    anchors = [r for r in runs if r[1] - r[0] >= anchor]
    if not anchors:
        return []
    return [r for r in runs if r in anchors or any(r[0] - a[1] <= NEAR_CHARS and a[0] - r[1] <= NEAR_CHARS for a in anchors)]


def locate(text: Sequence[str], passage: str) -> list[tuple[int, int]]:
    """Spans [start, end) of ``text`` (indexes into it) holding the passage, in order."""
    hay, source = normalise(text)
    needle, _ = normalise(passage)
    spans = []
    for start, end in marked_runs(hay, needle):
        spans.append((source[start], source[end - 1] + 1))
    return spans


def marked_indexes(text: Sequence[str], passage: str) -> set[int]:
    """Indexes of ``text`` that belong to the passage."""
    return {i for start, end in locate(text, passage) for i in range(start, end)}


def merge_spans(spans: list[tuple[int, int]], gap: int = 40) -> list[tuple[int, int]]:
    """Neighbouring spans joined when only a little text (up to ``gap`` characters, e.g. the
    markup or spacing the normalisation dropped) stands between them."""
    merged: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if merged and start - merged[-1][1] <= gap:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((start, end))
    return merged
