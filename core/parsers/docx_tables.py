"""Word tables as Markdown, working on the XML so merged cells keep their text once.

python-docx's ``row.cells`` repeats a merged cell once per grid column and per merged row,
which would duplicate text. Here a horizontally merged cell (gridSpan) puts its text in its
first grid column and leaves the spanned columns blank; a vertically merged continuation
(vMerge="continue") is blank. Skipped grid columns (gridBefore/gridAfter, short rows) are
padded, and a table nested in a cell is flattened into that cell's text.
"""

from __future__ import annotations

from docx.oxml.ns import qn
from docx.table import Table, _Cell

from core.parsers.docx_text import paragraph_text
from core.parsers.office_table import markdown_table


# Tables nested deeper than this inside a cell give their text without row structure: the walk
# below recurses per level, and real documents nest a few levels at most.
MAX_NESTING = 12


def _cell_text(cell: _Cell, depth: int = 0) -> str:
    if depth >= MAX_NESTING:  # every paragraph below, in order, without recursing
        return " ".join(t for t in (paragraph_text(p).strip() for p in cell._tc.iter(qn("w:p"))) if t)
    pieces: list[str] = []
    for block in cell.iter_inner_content():
        if isinstance(block, Table):
            pieces.append(flatten_table(block, depth + 1))
        else:
            pieces.append(paragraph_text(block._p))
    return " ".join(p.strip() for p in pieces if p.strip())


def table_rows(table: Table, depth: int = 0) -> list[list[str]]:
    rows: list[list[str]] = []
    for tr in table._tbl.tr_lst:
        row: list[str] = [""] * tr.grid_before
        for tc in tr.tc_lst:
            text = "" if tc.vMerge == "continue" else _cell_text(_Cell(tc, table), depth)
            row.append(text)
            row.extend([""] * (max(tc.grid_span, 1) - 1))
        rows.append(row)
    return rows


def flatten_table(table: Table, depth: int = 0) -> str:
    """A nested table's text for one cell: cells joined by spaces, rows by " ; "."""
    lines = [" ".join(c for c in row if c) for row in table_rows(table, depth)]
    return " ; ".join(line for line in lines if line)


def render_table(table: Table) -> str:
    return markdown_table(table_rows(table))
