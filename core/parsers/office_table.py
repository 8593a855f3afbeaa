"""Render a grid of cell texts as a Markdown pipe table (used by the docx, pptx and html parsers)."""

from __future__ import annotations

import re

_SPACE = re.compile(r"\s+")


def clean_cell(text: str) -> str:
    """One line per cell: a Markdown row must not break, and a pipe would split the cell."""
    return _SPACE.sub(" ", text).strip().replace("|", "\\|")


def markdown_table(rows: list[list[str]]) -> str:
    """The first row is the header. Ragged rows are padded with empty cells; empty rows and
    columns that are empty in every row are dropped. Returns "" for a table with no text."""
    grid = [[clean_cell(c) for c in row] for row in rows]
    grid = [row for row in grid if any(row)]
    if not grid:
        return ""
    width = max(len(row) for row in grid)
    grid = [row + [""] * (width - len(row)) for row in grid]
    keep = [i for i in range(width) if any(row[i] for row in grid)]
    grid = [[row[i] for i in keep] for row in grid]
    lines = ["| " + " | ".join(grid[0]) + " |", "|" + " --- |" * len(keep)]
    lines += ["| " + " | ".join(row) + " |" for row in grid[1:]]
    return "\n".join(lines)
