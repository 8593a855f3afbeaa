"""Map offsets in the chunked text back to the document parts (page, slide, segment).

Parts are cleaned one by one and joined with a blank line; the later steps change only
whitespace. So the n-th non-whitespace character of the final text is the n-th of the
joined parts, and counting non-whitespace characters locates any offset.
"""

from __future__ import annotations

import bisect
import re

from core.types import DocPart

_NON_SPACE = re.compile(r"\S")
PART_SEPARATOR = "\n\n"


class PartLocator:
    def __init__(self, parts: list[DocPart], cleaned_texts: list[str]):
        self._parts: list[DocPart] = []
        self._first_char: list[int] = []  # non-space ordinal where each part begins
        seen = 0
        for part, cleaned in zip(parts, cleaned_texts, strict=True):
            size = len(_NON_SPACE.findall(cleaned))
            if size:
                self._parts.append(part)
                self._first_char.append(seen)
                seen += size

    def parts_at(self, text: str, offsets: list[int]) -> list[DocPart | None]:
        """The part holding the character at each offset of ``text`` (None if no part)."""
        if not self._parts:
            return [None] * len(offsets)
        order = sorted(range(len(offsets)), key=offsets.__getitem__)
        found: list[DocPart | None] = [None] * len(offsets)
        pos, ordinal = 0, 0
        for i in order:
            ordinal += len(_NON_SPACE.findall(text, pos, offsets[i]))
            pos = offsets[i]
            found[i] = self._parts[bisect.bisect_right(self._first_char, ordinal) - 1]
        return found
