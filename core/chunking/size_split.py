"""Step 4: split text longer than the chunk size, with overlap.

Boundaries are preferred in this order: paragraph (blank line), line, sentence (。！？；
and . ! ? before a space), then a hard cut (at a space when one is near). A unit that fits
is never cut; units are packed greedily up to the size. Sizes are measured with the
caller's ``count`` (characters, or the embedding model's tokens) on the stripped text.
The result is spans (start, end) of the input, so no text is rewritten.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from core.errors import InvalidSettings

Span = tuple[int, int]
Counter = Callable[[str], int]

_PARAGRAPH_BREAK = re.compile(r"\n[ \t]*\n\s*")
_LINE_BREAK = re.compile(r"\n\s*")
_SENTENCE_END = re.compile(r"[。！？；]+[”’」』）)\"']*\s*|[.!?]+[\"'”’)\]]*(?:\s+|$)")
_LEVELS = (_PARAGRAPH_BREAK, _LINE_BREAK, _SENTENCE_END)
# Where overlap may begin: preferably after a line break or a sentence/clause mark, else
# after any whitespace or at any CJK character.
_CLEAN_START = re.compile(r"(?:(?<=\n)|(?<=[。！？；，：、])|(?<=[.!?;,:]\s))\s*\S")
_SOFT_START = re.compile(r"(?<=\s)\S|[\u3000-\u9fff\uf900-\ufaff\uff00-\uffef]")


def split_to_size(
    text: str,
    size: int,
    overlap: int,
    count: Counter,
    sticky: Callable[[str], bool] = lambda _: False,
) -> list[Span]:
    """Spans of ``text``, stripped of outer whitespace, each measuring at most ``size``.

    ``sticky(unit_text)`` marks units (headings) that must not end a piece when more text
    follows: they move to the start of the next piece instead.
    """
    splitter = _Splitter(text, size, overlap, count, sticky)
    return [span for span in splitter.split(0, len(text), 0) if span[0] < span[1]]


@dataclass
class _Splitter:
    text: str
    size: int
    overlap: int
    count: Counter
    sticky: Callable[[str], bool]

    def measure(self, start: int, end: int) -> int:
        return self.count(self.text[start:end].strip())

    def fits(self, start: int, end: int) -> bool:
        return self.measure(start, end) <= self.size

    def trim(self, start: int, end: int) -> Span:
        piece = self.text[start:end]
        lead = len(piece) - len(piece.lstrip())
        return (start + lead, start + len(piece.rstrip())) if piece.strip() else (start, start)

    def split(self, start: int, end: int, level: int) -> list[Span]:
        if self.fits(start, end):
            return [self.trim(start, end)]
        if level == len(_LEVELS):
            return self.hard_cut(start, end)
        units = self.cut(start, end, _LEVELS[level])
        if len(units) == 1:
            return self.split(start, end, level + 1)
        pieces: list[Span] = []
        buffer: list[Span] = []
        for unit in units:
            if self.fits(*unit):
                buffer.append(unit)
                continue
            # An oversized unit is split on its own; the headings just before it go with it.
            unit_start = unit[0]
            while buffer and self.sticky(self.text[slice(*buffer[-1])]):
                unit_start = buffer.pop()[0]
            pieces += self.pack(buffer, level)
            buffer = []
            pieces += self.split(unit_start, unit[1], level + 1)
        return pieces + self.pack(buffer, level)

    def cut(self, start: int, end: int, boundary: re.Pattern[str]) -> list[Span]:
        """Consecutive units covering [start, end); each keeps its trailing separator."""
        units: list[Span] = []
        pos = start
        for match in boundary.finditer(self.text, start, end):
            if match.end() > pos and self.text[pos : match.start()].strip():
                units.append((pos, match.end()))
                pos = match.end()
        if pos < end:
            if units and not self.text[pos:end].strip():
                units[-1] = (units[-1][0], end)
            else:
                units.append((pos, end))
        return units

    def pack(self, units: list[Span], level: int) -> list[Span]:
        """Greedy packing of fitting units, with overlap carried between pieces."""
        pieces: list[Span] = []
        i = 0
        carry: int | None = None  # where the overlap taken from the previous piece begins
        while i < len(units):
            start = units[i][0]
            if carry is not None and self.fits(carry, units[i][1]):
                start = carry
            j = i
            while j + 1 < len(units) and self.fits(start, units[j + 1][1]):
                j += 1
            if j + 1 < len(units):  # headings open the next piece instead of ending this one
                while j > i and self.sticky(self.text[slice(*units[j])]):
                    j -= 1
                if j == i and self.sticky(self.text[slice(*units[i])]):
                    # Headings plus the next unit overflow: cut that span at a finer level so
                    # the headings still open a piece with text after them.
                    k = i + 1
                    while k + 1 < len(units) and self.sticky(self.text[slice(*units[k])]):
                        k += 1
                    pieces += self.split(units[i][0], units[k][1], level + 1)
                    i, carry = k + 1, None
                    continue
            pieces.append(self.trim(start, units[j][1]))
            carry = None  # a piece opening with a heading starts a new topic: no overlap
            next_first_line = self.text[slice(*units[j + 1])].strip().split("\n")[0] if j + 1 < len(units) else ""
            if next_first_line and not self.sticky(next_first_line):
                carry = self.overlap_start(start, units[j][1])
            i = j + 1
        return pieces

    def overlap_start(self, start: int, end: int) -> int | None:
        """The earliest soft boundary after ``start`` whose tail measures at most the overlap."""
        if self.overlap <= 0:
            return None
        for boundary in (_CLEAN_START, _SOFT_START):
            found = self.earliest_tail(start, end, boundary)
            if found is not None:
                return found
        return None

    def earliest_tail(self, start: int, end: int, boundary: re.Pattern[str]) -> int | None:
        candidates = [m.end() - 1 for m in boundary.finditer(self.text, start + 1, end)]
        lo, hi, best = 0, len(candidates) - 1, None
        while lo <= hi:  # tails shrink as the boundary moves right
            mid = (lo + hi) // 2
            if self.measure(candidates[mid], end) <= self.overlap:
                best, hi = candidates[mid], mid - 1
            else:
                lo = mid + 1
        return best

    def hard_cut(self, start: int, end: int) -> list[Span]:
        pieces: list[Span] = []
        pos = self.trim(start, end)[0]
        done = pos  # everything before this is in a piece already
        while pos < end and self.text[pos:end].strip():
            cut = self.longest_fit(pos, end)
            space = self.text.rfind(" ", pos, cut) if cut < end else -1
            if space > pos + (cut - pos) // 2 and space + 1 > done:
                cut = space + 1  # keep words whole when a space is near the end
            pieces.append(self.trim(pos, cut))
            done = cut
            if cut >= end:
                break
            carry = self.overlap_start(pos, cut)
            nxt = self.trim(cut, end)[0]
            if carry is not None and carry > pos and self.longest_fit(carry, end) > cut:
                nxt = carry
            pos = nxt
        return pieces

    def longest_fit(self, pos: int, end: int) -> int:
        # Gallop first so a huge unbroken run costs O(log) counts of piece-sized text, not of
        # the whole run.
        lo, hi, best, step = pos + 1, end, pos, max(1, self.size)
        while pos + step < end and self.fits(pos, pos + step):
            best, lo, step = pos + step, pos + step + 1, step * 2
        hi = min(end, pos + step)
        while lo <= hi:
            mid = (lo + hi) // 2
            if self.fits(pos, mid):
                best, lo = mid, mid + 1
            else:
                hi = mid - 1
        if best == pos:
            raise InvalidSettings(
                f"chunk_size {self.size} is too small: a single character already measures more"
            )
        return best
