"""Word list paragraphs as nested Markdown list items.

Word keeps list structure in numbering definitions: a paragraph (or its style) points at a
numId and a level (ilvl); the abstract numbering says whether that level is a bullet or a
number. We render bullets as "- " and numbers as "N. " with our own running counters, and
indent by the nesting depth within the current list run (so a list that starts at level 2
is not turned into a Markdown code block).
"""

from __future__ import annotations

import re

from docx.oxml.ns import qn
from docx.text.paragraph import Paragraph

_NUMBERED_LIST_STYLE = re.compile(r"^list\b.*?\s([2-9])$", re.IGNORECASE)
_INDENT = "    "  # 4 spaces nests under "- " and "1. " alike


def _style_chain(style):
    seen = 0
    while style is not None and seen < 20:  # a malformed base-style loop must not hang us
        yield style
        style = style.base_style
        seen += 1


def list_position(paragraph: Paragraph, style) -> tuple[int, int] | None:
    """(numId, ilvl) when the paragraph is a list item, from its own or its style's numPr.
    ``style`` is the paragraph's style (looked up once per style id by the caller)."""
    num_id = ilvl = None
    pPr = paragraph._p.pPr
    if pPr is not None and pPr.numPr is not None:
        if pPr.numPr.numId is not None:
            num_id = pPr.numPr.numId.val
        if pPr.numPr.ilvl is not None:
            ilvl = pPr.numPr.ilvl.val
    if num_id is None:
        try:
            styles = list(_style_chain(style))
        except (KeyError, ValueError):
            styles = []
        for style in styles:
            s_pPr = style.element.pPr
            if s_pPr is not None and s_pPr.numPr is not None and s_pPr.numPr.numId is not None:
                num_id = s_pPr.numPr.numId.val
                if ilvl is None and s_pPr.numPr.ilvl is not None:
                    ilvl = s_pPr.numPr.ilvl.val
                if ilvl is None:
                    # "List Bullet 2" / "List Number 3" nest by style, each on its own numId
                    match = _NUMBERED_LIST_STYLE.match(style.name or "")
                    if match:
                        ilvl = int(match.group(1)) - 1
                break
    if num_id is None or num_id == 0:  # numId 0 means "numbering removed"
        return None
    return num_id, ilvl or 0


class ListRenderer:
    """Stateful across one document: counters per list and level, nesting per run of items."""

    def __init__(self, numbering_element) -> None:
        self._formats = self._read_formats(numbering_element)
        self._counters: dict[tuple[int, int], int] = {}
        self._open_levels: list[int] = []

    @staticmethod
    def _read_formats(numbering) -> dict[int, dict[int, str]]:
        if numbering is None:
            return {}
        abstract: dict[str, dict[int, str]] = {}
        for an in numbering.findall(qn("w:abstractNum")):
            levels: dict[int, str] = {}
            for lvl in an.findall(qn("w:lvl")):
                fmt = lvl.find(qn("w:numFmt"))
                levels[int(lvl.get(qn("w:ilvl"), "0"))] = fmt.get(qn("w:val"), "decimal") if fmt is not None else "decimal"
            abstract[an.get(qn("w:abstractNumId"))] = levels
        formats: dict[int, dict[int, str]] = {}
        for num in numbering.findall(qn("w:num")):
            ref = num.find(qn("w:abstractNumId"))
            if ref is not None:
                formats[int(num.get(qn("w:numId")))] = abstract.get(ref.get(qn("w:val")), {})
        return formats

    def end_run(self) -> None:
        """A non-list block ends the nesting run (numbering counters carry on, as in Word)."""
        self._open_levels = []

    def item(self, num_id: int, ilvl: int, text: str, style_name: str = "") -> str:
        while self._open_levels and self._open_levels[-1] > ilvl:
            self._open_levels.pop()
        if not self._open_levels or self._open_levels[-1] < ilvl:
            self._open_levels.append(ilvl)
        depth = len(self._open_levels) - 1
        levels = self._formats.get(num_id, {})
        fmt = levels.get(ilvl, levels.get(0))  # an undefined level looks like the list's first
        if fmt is None:  # no definition: trust the style name ("List Number", "List Bullet")
            fmt = "decimal" if "number" in style_name.lower() else "bullet"
        # a shallower item restarts the numbering of the levels below it
        for key in [k for k in self._counters if k[0] == num_id and k[1] > ilvl]:
            del self._counters[key]
        if fmt in ("bullet", "none"):
            marker = "-"
        else:
            self._counters[(num_id, ilvl)] = self._counters.get((num_id, ilvl), 0) + 1
            marker = f"{self._counters[(num_id, ilvl)]}."
        return f"{_INDENT * depth}{marker} {text}"
