"""Step 4b: a Markdown table cut into several chunks repeats its header in each of them.

A retrieved row must still say what its columns are. Every parser emits tables the same way
(a pipe header line, a ``| --- |`` separator line, then pipe rows: spreadsheets, PDF lattice
tables, Word, PowerPoint and HTML tables all go through ``office_table.markdown_table`` or
``pdf_tables``), so one rule serves them all. When a section is too big for one chunk, each
table in it is split on its own with the chunk size reduced by the header's size, and every
piece after the first starts with the header and separator lines (its ``prefix``). Offsets
still point into the text, so locating pages is unchanged; the prefix is extra text.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from core.chunking.fences import code_line_mask
from core.chunking.size_split import Counter, split_to_size

_ROW = re.compile(r"^ {0,3}\S.*\|")  # a pipe row; the outer pipes are optional in Markdown
_SEPARATOR = re.compile(r"^ {0,3}\|?[ \t]*:?-+:?[ \t]*(?:\|[ \t]*:?-+:?[ \t]*)*\|?[ \t]*$")

# (start, end, prefix): a span of the section's text and the header lines that go before it.
PrefixedSpan = tuple[int, int, str]


@dataclass(frozen=True)
class Table:
    start: int  # offset of the header line
    body_start: int  # offset of the first row after the separator line
    end: int  # end of the last row
    header: str  # header line + "\n" + separator line


def find_tables(text: str) -> list[Table]:
    """Pipe tables (with or without outer pipes) outside code fences that have at least one
    row under their separator."""
    lines = text.split("\n")
    in_code = code_line_mask(lines)
    offsets, pos = [], 0
    for line in lines:
        offsets.append(pos)
        pos += len(line) + 1
    tables: list[Table] = []
    i = 0
    while i + 2 < len(lines):
        if in_code[i] or not _ROW.match(lines[i]) or in_code[i + 1] or "|" not in lines[i + 1] or not _SEPARATOR.match(lines[i + 1]):
            i += 1
            continue
        last = i + 1
        while last + 1 < len(lines) and not in_code[last + 1] and _ROW.match(lines[last + 1]):
            last += 1
        if last > i + 1:
            tables.append(Table(offsets[i], offsets[i + 2], offsets[last] + len(lines[last]), lines[i] + "\n" + lines[i + 1]))
        i = last + 1
    return tables


def split_with_headers(
    text: str, size: int, overlap: int, count: Counter, sticky: Callable[[str], bool] = lambda _: False
) -> list[PrefixedSpan]:
    """``split_to_size`` over ``text``, except that tables cut into pieces repeat their header."""
    plain = [(s, e, "") for s, e in split_to_size(text, size, overlap, count, sticky)]
    if len(plain) < 2:
        return plain
    tables = [t for t in find_tables(text) if 2 * count(t.header + "\n") <= size]
    if not tables:
        return plain
    out: list[PrefixedSpan] = []
    pos = 0
    for table in tables:
        start = _with_leading_headings(text, pos, table.start, sticky)
        out += [(pos + s, pos + e, "") for s, e in split_to_size(text[pos:start], size, overlap, count, sticky)]
        out += _split_table(text, start, table, size, count, sticky)
        pos = table.end
    out += [(pos + s, pos + e, "") for s, e in split_to_size(text[pos:], size, overlap, count, sticky)]
    return out


def _with_leading_headings(text: str, floor: int, start: int, sticky: Callable[[str], bool]) -> int:
    """Move a table's start back over the heading lines just above it, so they stay together."""
    while start > floor:
        line_start = text.rfind("\n", floor, start - 1) + 1
        line = text[line_start : start - 1]
        if not line.strip() or not sticky(line):
            break
        start = line_start
    return start


def _split_table(
    text: str, start: int, table: Table, size: int, count: Counter, sticky: Callable[[str], bool]
) -> list[PrefixedSpan]:
    prefix = table.header + "\n"
    out: list[PrefixedSpan] = []
    reserve = count(prefix)
    pending = [(start, table.end)]
    for _attempt in range(4):  # token counts are not additive: shrink until every piece fits
        budget = max(1, size - reserve)
        retry: list[tuple[int, int]] = []
        for lo, hi in pending:
            # no overlap inside a table: rows are records and the header is repeated, while an
            # overlap starts at a sentence mark inside a cell and carries half a row over
            spans = split_to_size(text[lo:hi], budget, 0, count, sticky)
            for s, e in spans:
                s, e = lo + s, lo + e
                if s < table.body_start:
                    out.append((s, e, ""))
                elif count(prefix + text[s:e]) <= size:
                    out.append((s, e, prefix))
                else:
                    retry.append((s, e))
        if not retry:
            break
        pending, reserve = retry, reserve + max(1, reserve // 2)
    else:  # never seen: the header could not be fitted, the piece goes without it
        out += [(s, e, "") for s, e in pending]
    return sorted(out)
