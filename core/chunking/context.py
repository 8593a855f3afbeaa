"""Contextual chunk text: what is embedded and keyword-indexed for a chunk, as opposed to what
is stored and quoted.

A chunk cut from the middle of a section ("The rate is 3% for managers.") has lost the words
that say what it is about: the document's title and its heading path. Those are put in front
of the text that is embedded and BM25-indexed, never in the stored text: citations and
answers quote the source as it is. Headings the chunk already opens with (the first chunk of
a section keeps its glued heading) are not repeated.
"""

from __future__ import annotations

from core.types import Chunk

# Title and headings joined as a breadcrumb on the line before the chunk's own text.
SEPARATOR = " › "
# A heading found this early in the chunk is already its context.
_LOOKAHEAD_CHARS = 300


def context_line(chunk: Chunk, title: str | None) -> str:
    """The breadcrumb to prepend ('' when the chunk already carries all of it)."""
    head = chunk.text[:_LOOKAHEAD_CHARS]
    parts: list[str] = []
    for part in (title or "", *chunk.heading_path):
        part = part.strip().lstrip("#").strip()
        if part and part not in parts and part not in head:
            parts.append(part)
    return SEPARATOR.join(parts)


def contextual_text(chunk: Chunk, title: str | None) -> str:
    line = context_line(chunk, title)
    return f"{line}\n{chunk.text}" if line else chunk.text
