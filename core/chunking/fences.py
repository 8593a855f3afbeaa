"""Find fenced code blocks so the text steps leave code alone.

Headings, emphasis and blank lines inside ``` / ~~~ blocks are code, not document structure.
"""

from __future__ import annotations

import re

_FENCE_OPEN = re.compile(r"^ {0,3}(`{3,}|~{3,})")


def code_line_mask(lines: list[str]) -> list[bool]:
    """For each line, whether it belongs to a fenced code block (fence lines included).

    An unclosed fence runs to the end of the text, as Markdown renders it.
    """
    mask: list[bool] = []
    fence: str | None = None
    for line in lines:
        if fence is None:
            opened = _FENCE_OPEN.match(line)
            if opened:
                fence = opened.group(1)
                mask.append(True)
            else:
                mask.append(False)
        else:
            mask.append(True)
            stripped = line.strip()
            if stripped.startswith(fence) and set(stripped) == {fence[0]}:
                fence = None
    return mask
