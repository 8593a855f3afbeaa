"""Step 5: min-size forward merge (seed 000, "合并算法").

One forward pass. The accumulator absorbs the next piece while (1) the accumulated text is
still below the min-size target, (2) the merged text stays within the chunk size and
(3) both come from the same source. Pieces are joined with a blank line; the merged piece
keeps the metadata of its first piece. Nothing is ever dropped: a piece that cannot be
absorbed starts the next accumulator.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

SEPARATOR = "\n\n"


@dataclass(frozen=True)
class Piece:
    """A split piece on its way to becoming a Chunk."""

    text: str
    source: str
    start: int = 0  # offset in the document text where this text begins
    end: int = 0  # offset where it ends (exclusive); 0 = unknown
    heading_path: tuple[str, ...] = ()
    merged_count: int = 1
    header_chars: int = 0  # a repeated table header opens ``text`` (see tables.py)


def merge_small_pieces(
    pieces: list[Piece], min_target: int, max_size: int, count: Callable[[str], int] = len
) -> list[Piece]:
    if min_target <= 0 or not pieces:
        return list(pieces)
    merged: list[Piece] = []
    current = pieces[0]
    current_size = count(current.text)
    for nxt in pieces[1:]:
        if current_size < min_target and nxt.source == current.source:
            joined = _join(current, nxt)
            joined_size = count(joined)
            if joined_size <= max_size:
                current = replace(current, text=joined, merged_count=current.merged_count + nxt.merged_count,
                                  end=nxt.end)
                current_size = joined_size
                continue
        merged.append(current)
        current, current_size = nxt, count(nxt.text)
    merged.append(current)
    return merged


def _join(current: Piece, nxt: Piece) -> str:
    """Pieces of one table join as one table: the repeated header and the blank line go."""
    header = nxt.text[: nxt.header_chars]
    if header and header in current.text:
        return current.text + "\n" + nxt.text[nxt.header_chars :]
    return current.text + SEPARATOR + nxt.text
