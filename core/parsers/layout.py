"""Reading order for positioned text: PDF words and OCR boxes share it.

A recursive XY-cut: a region is split at a vertical gutter when both sides look like columns
of running text (so a two-column paper is read column by column, not across), otherwise at
its widest horizontal gap that is larger than normal line spacing (paragraphs, a title above
the columns). Leaves are read line by line, left to right. Tables arrive as single boxes
holding their Markdown and keep their place in that order.

Coordinates: x grows to the right, y grows downward (top < bottom).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from statistics import median

# A gutter must be at least this many text heights wide. Narrow journal gutters are ~0.7 of
# an OCR line box; inter-word spaces (~0.3) rarely line up over several lines, and a narrow
# gutter must hold over more lines than a wide one.
GUTTER_MIN_HEIGHTS = 0.5
WIDE_GUTTER_HEIGHTS = 1.0
# A horizontal cut needs a gap larger than this many text heights (line spacing is ~0.2-0.4).
PARAGRAPH_GAP_HEIGHTS = 0.6
# Each side of a gutter must read like running text: lines of some length, not table cells.
COLUMN_MIN_LINES = 2  # beside a wide gutter
NARROW_COLUMN_MIN_LINES = 3  # beside a narrow one
COLUMN_MIN_MEDIAN_CHARS = 10
COLUMN_MIN_WIDTH_SHARE = 0.12
MAX_DEPTH = 60
# A box this many text heights tall, and taller than twice its width, is vertical text.
VERTICAL_MIN_HEIGHTS = 3.0
# Two lines are one table row when a box of one covers this share of the other's height.
BRIDGE_SHARE = 0.35


@dataclass(frozen=True)
class Box:
    x0: float
    top: float
    x1: float
    bottom: float
    text: str
    is_block: bool = False  # a whole table (Markdown) or vertical text; never merged into a text line

    @property
    def height(self) -> float:
        return self.bottom - self.top

    @property
    def cy(self) -> float:
        return (self.top + self.bottom) / 2


@dataclass
class Line:
    boxes: list[Box]

    @property
    def top(self) -> float:
        return min(b.top for b in self.boxes)

    @property
    def bottom(self) -> float:
        return max(b.bottom for b in self.boxes)

    def text(self) -> str:
        return " ".join(b.text for stack in _stacks(self.boxes) for b in stack)


def _stacks(boxes: list[Box]) -> list[list[Box]]:
    """Boxes of one line left to right; boxes standing above one another (the lines of one
    table cell, "Disability" over "Category") form a stack read top to bottom."""
    stacks: list[tuple[float, float, list[Box]]] = []  # x0, x1, boxes
    for box in sorted(boxes, key=lambda b: b.x0):
        for i, (x0, x1, members) in enumerate(stacks):
            overlap = min(x1, box.x1) - max(x0, box.x0)
            stacked = all(box.top >= m.bottom - 0.3 * m.height or box.bottom <= m.top + 0.3 * m.height for m in members)
            if stacked and overlap >= 0.5 * min(x1 - x0, box.x1 - box.x0):
                members.append(box)
                stacks[i] = (min(x0, box.x0), max(x1, box.x1), members)
                break
        else:
            stacks.append((box.x0, box.x1, [box]))
    stacks.sort(key=lambda s: s[0])
    return [sorted(members, key=lambda b: b.top) for _, _, members in stacks]


def group_lines(boxes: list[Box]) -> list[Line]:
    """Boxes that share a text line (vertical overlap of half the smaller height), top to bottom."""
    lines: list[Line] = []
    spans: list[tuple[float, float]] = []
    for box in sorted(boxes, key=lambda b: (b.cy, b.x0)):
        placed = False
        for i in range(len(lines) - 1, max(-1, len(lines) - 3), -1):  # the last two lines suffice
            top, bottom = spans[i]
            overlap = min(bottom, box.bottom) - max(top, box.top)
            if overlap >= 0.5 * min(bottom - top, box.height):
                lines[i].boxes.append(box)
                spans[i] = (min(top, box.top), max(bottom, box.bottom))
                placed = True
                break
        if not placed:
            lines.append(Line([box]))
            spans.append((box.top, box.bottom))
    lines.sort(key=lambda line: line.top)
    return _join_bridged(lines)


def _core(line: Line) -> tuple[float, float]:
    """The vertical span most boxes of a line share (their median top and bottom)."""
    return median(b.top for b in line.boxes), median(b.bottom for b in line.boxes)


def _bridged(upper: Line, lower: Line) -> bool:
    """A box of one line reaches well into the other line's span: a one-line table cell centred
    beside a two-line cell ("Participants" beside "Disability / Category"), so both lines are
    one row of a table."""
    for line, other in ((upper, lower), (lower, upper)):
        top, bottom = _core(other)
        height = bottom - top
        if height > 0 and any(min(b.bottom, bottom) - max(b.top, top) >= BRIDGE_SHARE * height for b in line.boxes):
            return True
    return False


def _join_bridged(lines: list[Line]) -> list[Line]:
    joined: list[Line] = []
    for line in lines:
        if joined and not any(b.is_block for b in line.boxes + joined[-1].boxes) and _bridged(joined[-1], line):
            joined[-1] = Line(joined[-1].boxes + line.boxes)
        else:
            joined.append(line)
    return joined


def _gaps(intervals: list[tuple[float, float]], min_gap: float) -> list[tuple[float, float]]:
    """Empty stretches between the union of intervals, at least min_gap wide (edges excluded)."""
    gaps = []
    ordered = sorted(intervals)
    reach = ordered[0][1]
    for start, end in ordered[1:]:
        if start - reach >= min_gap:
            gaps.append((reach, start))
        reach = max(reach, end)
    return gaps


def _text_height(boxes: list[Box]) -> float:
    heights = [b.height for b in boxes if not b.is_block and b.height > 0]
    return median(heights) if heights else 10.0


def _reads_as_column(boxes: list[Box], region_width: float, min_lines: int) -> bool:
    if any(b.is_block for b in boxes):
        return True  # a table beside text is a column of its own
    lines = group_lines(boxes)
    if len(lines) < min_lines:
        return False
    width = max(b.x1 for b in boxes) - min(b.x0 for b in boxes)
    if width < COLUMN_MIN_WIDTH_SHARE * region_width:
        return False
    return median(len(line.text()) for line in lines) >= COLUMN_MIN_MEDIAN_CHARS


def _vertical_cut(boxes: list[Box], height: float) -> tuple[list[Box], list[Box]] | None:
    gaps = _gaps([(b.x0, b.x1) for b in boxes], GUTTER_MIN_HEIGHTS * height)
    region_width = max(b.x1 for b in boxes) - min(b.x0 for b in boxes)
    for start, end in sorted(gaps, key=lambda g: g[1] - g[0], reverse=True):
        middle = (start + end) / 2
        left = [b for b in boxes if b.x1 <= middle]
        right = [b for b in boxes if b.x0 >= middle]
        min_lines = COLUMN_MIN_LINES if end - start >= WIDE_GUTTER_HEIGHTS * height else NARROW_COLUMN_MIN_LINES
        if _reads_as_column(left, region_width, min_lines) and _reads_as_column(right, region_width, min_lines):
            return left, right
    return None


def _horizontal_cut(boxes: list[Box], height: float) -> tuple[list[Box], list[Box]] | None:
    gaps = _gaps([(b.top, b.bottom) for b in boxes], PARAGRAPH_GAP_HEIGHTS * height)
    if not gaps:
        return None
    start, end = max(gaps, key=lambda g: g[1] - g[0])
    middle = (start + end) / 2
    return [b for b in boxes if b.bottom <= middle], [b for b in boxes if b.top >= middle]


def _xy_cut(boxes: list[Box], height: float, depth: int, out: list[list[Box]]) -> None:
    if len(boxes) > 1 and depth < MAX_DEPTH:
        split = _vertical_cut(boxes, height) or _horizontal_cut(boxes, height)
        if split:
            for side in split:
                _xy_cut(side, height, depth + 1, out)
            return
    out.append(boxes)


def _mark_vertical_text(boxes: list[Box]) -> list[Box]:
    """A column of vertical text (CJK set top to bottom) spans many lines of the horizontal
    text beside it: as a block of its own it neither glues those lines together nor hides
    the gutter before it."""
    height = _text_height(boxes)
    return [
        replace(b, is_block=True)
        if not b.is_block and b.height >= VERTICAL_MIN_HEIGHTS * height and b.height >= 2 * (b.x1 - b.x0)
        else b
        for b in boxes
    ]


def reading_blocks(boxes: list[Box]) -> list[list[Line]]:
    """Blocks (columns' paragraphs, tables) in reading order, each as its lines."""
    boxes = [b for b in boxes if b.text.strip()]
    if not boxes:
        return []
    boxes = _mark_vertical_text(boxes)
    leaves: list[list[Box]] = []
    _xy_cut(boxes, _text_height(boxes), 0, leaves)
    blocks: list[list[Line]] = []
    for leaf in leaves:
        tables = [b for b in leaf if b.is_block]
        lines = group_lines([b for b in leaf if not b.is_block]) + [Line([t]) for t in tables]
        blocks.append(sorted(lines, key=lambda line: line.top))
    return blocks


def reading_text(boxes: list[Box]) -> str:
    """Plain Markdown-ish text: lines joined by newlines, blocks by blank lines."""
    out = []
    for block in reading_blocks(boxes):
        chunk: list[str] = []
        for line in block:
            if line.boxes[0].is_block:
                if chunk:
                    out.append("\n".join(chunk))
                    chunk = []
                out.append(line.boxes[0].text)
            else:
                chunk.append(line.text())
        if chunk:
            out.append("\n".join(chunk))
    return "\n\n".join(part for part in out if part.strip())
