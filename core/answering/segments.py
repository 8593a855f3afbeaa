"""A passage's body read in the units strict mode judges: sentences (a paragraph's wrapped lines
joined), table rows each with its table's header, and a FAQ's question with its answer."""

from __future__ import annotations

import re

from core.answering.answer_types import value_spans
from core.answering.reading import numbers
from core.retrieval.bilingual import has_chinese

_SEGMENT = re.compile(r"(?<=[。！？；;!?\n])|(?<=\.)\s+")


_BLOCK_START = re.compile(r"\s*(?:[-*+>#|•·]|\d+[.)、]|[（(]?[一二三四五六七八九十\d]+[）)、]|第[一二三四五六七八九十百\d]+[条章节款])")


def _paragraph_lines(body: str) -> list[str]:
    """The body's lines with a paragraph's wrapped lines joined: a sentence broken at the end of a
    line ("may not exceed" / "50% of the monthly fee") is one sentence. A list item, heading, table
    row or numbered article starts a line of its own."""
    out: list[str] = []
    for line in body.splitlines():
        joins = (out and out[-1].strip() and line.strip() and not _BLOCK_START.match(line)
                 and not out[-1].lstrip().startswith(("|", "#")))
        if joins:
            glue = "" if has_chinese(out[-1][-1:]) and has_chinese(line.lstrip()[:1]) else " "
            out[-1] = out[-1].rstrip() + glue + line.strip()
        else:
            out.append(line)
    return out


def segments(body: str) -> list[tuple[str, bool, str]]:
    """Sentences, and table rows each with its table's header row (the header names the columns).
    A question is also read with the sentence after it: in a FAQ the answer belongs to its question
    ("一线城市住宿标准是多少？ 每晚六百元。"). Each with whether it is one such unit (a row, a question
    and its answer), where a value is about whatever the unit names, however far apart; and the
    question of a FAQ pair ("" for the rest)."""
    out: list[tuple[str, bool, str]] = []
    header: str | None = None
    asked: str | None = None  # a question waiting for its answer
    lines = _paragraph_lines(body)
    for i, line in enumerate(lines):
        if line.lstrip().startswith("|"):
            asked = None
            if re.fullmatch(r"[\s|:-]+", line):
                continue
            following = lines[i + 1] if i + 1 < len(lines) else ""
            if re.fullmatch(r"\s*\|[\s|:-]+", following):  # a header row: the separator follows it
                header = line
            else:
                out.append((f"{header}\n{line}" if header else line, True, ""))
            continue
        header = None
        for sentence in _SEGMENT.split(line):
            if not sentence.strip():
                continue
            if asked is not None:
                out.append((f"{asked} {sentence}", True, asked))
            out.append((sentence, False, ""))
            asked = sentence if sentence.rstrip(" *_").endswith(("?", "？")) else None  # **问：…？**
    return out


_HEADER_UNIT = re.compile(r"[(（]([^()（）]{1,24})[)）]\s*$")
_CELL = re.compile(r"(?<=\|)[^|]+(?=\|)")  # a cell between two pipes


def cells_in_header_units(segment: str, wanted) -> list[tuple[int, int]]:
    """A table row's cells that state the value asked for in the unit their column's header gives:
    "up to 2" under "Weight band (kg)" is a weight, "1" under "Delivery time (working days)" a
    duration. ``segment`` is a header line and a row, as ``segments`` gives them."""
    header, _, row = segment.partition("\n")
    if "\n" in row or not header.lstrip().startswith("|") or not row.lstrip().startswith("|"):
        return []
    heads = [m.group() for m in _CELL.finditer(header)]
    out = []
    for n, cell in enumerate(_CELL.finditer(row)):
        unit = _HEADER_UNIT.search(heads[n]) if n < len(heads) else None
        if unit and numbers(cell.group()) and value_spans(f"{cell.group().strip()} {unit.group(1)}", wanted):
            out.append((len(header) + 1 + cell.start(), len(header) + 1 + cell.end()))
    return out
