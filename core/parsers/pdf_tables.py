"""Ruled tables on a PDF page, as Markdown.

Cells come from pdfplumber's lattice algorithm (ruling edges -> intersections -> cells ->
tables), fed with the edges pdfium read. Words are put into cells by their centres. A row of
the ruling grid may hold several text rows (statistical tables rule every fifth line): when
most cells of a band have text on every line, each line becomes its own Markdown row, so the
cells of one logical row stay in one Markdown row.
"""

from __future__ import annotations

from bisect import bisect_right

from pdfplumber.table import cells_to_tables, edges_to_intersections, intersections_to_cells, merge_edges

from core.parsers.layout import Box, group_lines

SNAP = 3.0
MIN_EDGE = 3.0


def find_tables(edges: list[dict], words: list[Box]) -> tuple[list[Box], list[Box]]:
    """(table blocks holding Markdown, words not inside any table)."""
    edges = [e for e in edges if max(e["width"], e["height"]) >= 1.0]
    if len(edges) < 4:
        return [], words
    merged = [e for e in merge_edges(edges, SNAP, SNAP, SNAP, SNAP) if max(e["width"], e["height"]) >= MIN_EDGE]
    cells = intersections_to_cells(edges_to_intersections(merged, SNAP, SNAP))
    tables: list[Box] = []
    remaining = words
    for table_cells in cells_to_tables(cells):
        x0 = min(c[0] for c in table_cells)
        top = min(c[1] for c in table_cells)
        x1 = max(c[2] for c in table_cells)
        bottom = max(c[3] for c in table_cells)
        inside = [w for w in remaining if _centre_in(w, (x0, top, x1, bottom))]
        rendered = _table_markdown(table_cells, inside)
        if rendered is None:
            continue
        markdown, used = rendered
        tables.append(Box(x0, top, x1, bottom, markdown, is_block=True))
        used_ids = {id(w) for w in used}
        remaining = [w for w in remaining if id(w) not in used_ids]
    return tables, remaining


def _centre_in(word: Box, cell: tuple[float, float, float, float]) -> bool:
    cx, cy = (word.x0 + word.x1) / 2, word.cy
    return cell[0] <= cx <= cell[2] and cell[1] <= cy <= cell[3]


def _cluster(values: list[float]) -> list[float]:
    out: list[float] = []
    for v in sorted(values):
        if not out or v - out[-1] > SNAP:
            out.append(v)
    return out


def _index(boundaries: list[float], value: float) -> int:
    return max(0, bisect_right(boundaries, value + SNAP) - 1)


def _nearest(boundaries: list[float], value: float) -> int:
    i = bisect_right(boundaries, value)
    if i > 0 and (i == len(boundaries) or value - boundaries[i - 1] <= boundaries[i] - value):
        return i - 1
    return i


def _escape(text: str) -> str:
    return text.replace("|", "\\|").strip()


def _table_markdown(
    cells: list[tuple[float, float, float, float]], words: list[Box]
) -> tuple[str, list[Box]] | None:
    """The table as Markdown and the words it used, or None when it is not a real table."""
    columns = _cluster([c[0] for c in cells] + [c[2] for c in cells])
    rows = _cluster([c[1] for c in cells] + [c[3] for c in cells])
    n_cols = len(columns) - 1
    if n_cols < 2 or not words:
        return None  # a framed paragraph, not a table
    # Every grid slot points at the (possibly merged) cell covering it: words find their
    # cell by two binary searches instead of a scan over all cells.
    slot_owner: dict[tuple[int, int], int] = {}
    for n, (cx0, ctop, cx1, cbottom) in enumerate(cells):
        for r in range(_nearest(rows, ctop), _nearest(rows, cbottom)):
            for c in range(_nearest(columns, cx0), _nearest(columns, cx1)):
                slot_owner.setdefault((r, c), n)
    words_of_cell: dict[int, list[Box]] = {}
    for w in words:
        owner = slot_owner.get((_index(rows, w.cy), _index(columns, (w.x0 + w.x1) / 2)))
        if owner is not None and _centre_in(w, cells[owner]):
            words_of_cell.setdefault(owner, []).append(w)
    bands: dict[int, list[tuple[int, list[Box]]]] = {}
    for n, inside in words_of_cell.items():
        bands.setdefault(_nearest(rows, cells[n][1]), []).append((_nearest(columns, cells[n][0]), inside))
    markdown_rows: list[list[str]] = []
    for band in sorted(bands):
        markdown_rows.extend(_band_rows(sorted(bands[band], key=lambda cw: cw[0]), n_cols))
    if sum(1 for r in markdown_rows for c in r if c) < 2:
        return None
    lines = ["| " + " | ".join(_escape(c) for c in row) + " |" for row in markdown_rows]
    lines.insert(1, "| " + " | ".join("---" for _ in range(n_cols)) + " |")
    return "\n".join(lines), [w for ws in words_of_cell.values() for w in ws]


def _band_rows(cell_words: list[tuple[int, list[Box]]], n_cols: int) -> list[list[str]]:
    text_lines = group_lines([w for _, ws in cell_words for w in ws])
    line_of = {id(w): i for i, line in enumerate(text_lines) for w in line.boxes}
    multi_line_cells = sum(1 for _, ws in cell_words if len({line_of[id(w)] for w in ws}) > 1)
    stacked = len(text_lines) > 1 and multi_line_cells >= 2 and multi_line_cells * 2 >= len(cell_words)
    if not stacked:
        row = [""] * n_cols
        for col, ws in cell_words:
            text = " ".join(line.text() for line in group_lines(ws))
            row[min(col, n_cols - 1)] = (row[min(col, n_cols - 1)] + " " + text).strip()
        return [row]
    out = []
    for i in range(len(text_lines)):
        row = [""] * n_cols
        for col, ws in cell_words:
            on_line = sorted((w for w in ws if line_of[id(w)] == i), key=lambda w: w.x0)
            if on_line:
                text = " ".join(w.text for w in on_line)
                row[min(col, n_cols - 1)] = (row[min(col, n_cols - 1)] + " " + text).strip()
        if any(row):
            out.append(row)
    return out
