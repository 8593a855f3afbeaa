"""Step 3: split on Markdown headings H1-H6, keeping each section's heading path.

Sections are spans of the text (offsets, not copies) so later steps can tell where a chunk
begins. The heading line stays at the top of its section: it is content worth embedding.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from core.chunking.fences import code_line_mask

_ATX_HEADING = re.compile(r"^ {0,3}(#{1,6})[ \t]+(.+?)(?:[ \t]+#+)?[ \t]*$")


@dataclass(frozen=True)
class Section:
    start: int  # offset in the text
    end: int
    heading_path: tuple[str, ...]


def split_markdown(text: str) -> list[Section]:
    """Sections in order; together they cover every non-blank character of ``text``.

    A section holding nothing but its heading (``# A`` directly followed by ``## B``) is
    joined to the next section, so a heading never becomes a chunk on its own; the joined
    section keeps the path of the text it holds (``A › B``), not of its first heading.
    """
    lines = text.split("\n")
    in_code = code_line_mask(lines)
    starts: list[tuple[int, tuple[str, ...]]] = [(0, ())]
    path: list[tuple[int, str]] = []  # (level, title) of the open headings
    offset = 0
    for line, code in zip(lines, in_code):
        match = None if code else _ATX_HEADING.match(line)
        if match:
            level = len(match.group(1))
            while path and path[-1][0] >= level:
                path.pop()
            path.append((level, match.group(2).strip()))
            starts.append((offset, tuple(title for _, title in path)))
        offset += len(line) + 1

    sections: list[Section] = []
    pending: tuple[int, tuple[str, ...]] | None = None  # a heading-only section waiting to join
    for i, (start, heading_path) in enumerate(starts):
        end = starts[i + 1][0] if i + 1 < len(starts) else len(text)
        body = text[start:end]
        if not body.strip():
            continue
        if pending is not None:
            start = pending[0]  # from the bare heading on; the path is this section's own
            pending = None
        if i + 1 < len(starts) and _is_heading_only(body):
            pending = (start, heading_path)
            continue
        sections.append(Section(start, end, heading_path))
    if pending is not None:  # the document ends with a bare heading: keep it, nothing follows
        sections.append(Section(pending[0], len(text), pending[1]))
    return sections


def _is_heading_only(body: str) -> bool:
    return all(_ATX_HEADING.match(line) for line in body.strip().split("\n") if line.strip())
