"""Render an HTML tree (BeautifulSoup) as Markdown blocks: headings, paragraphs, nested
lists, data tables as pipe tables, code blocks and quotes.

Tables used only for page layout (one row or one column, or cells holding block content)
are not data: their cells are rendered as ordinary blocks.
"""

from __future__ import annotations

import re

from bs4 import BeautifulSoup, Comment, NavigableString, Tag

from core.parsers.office_table import markdown_table

_HEADINGS = {f"h{n}": n for n in range(1, 7)}
_INLINE = {
    "a", "abbr", "b", "bdi", "bdo", "cite", "code", "data", "dfn", "em", "font", "i", "kbd", "label",
    "mark", "q", "s", "samp", "small", "span", "strike", "strong", "sub", "sup", "time", "tt", "u", "var",
    "wbr", "nobr", "big", "center", "ins", "del",
}
# A cell holding one of these is a page-layout container, not a data cell; paragraphs,
# divs and short lists inside a data cell are flattened onto its row.
_LAYOUT_MARKERS = {"table", "h1", "h2", "h3", "h4", "h5", "h6", "pre", "blockquote"}
_LAYOUT_CELL_CHARS = 1500  # an essay in a cell means the table only positions it
_SPACES = re.compile(r"[ \t\r\f\v\u00a0]+")
_WHITESPACE = re.compile(r"\s+")  # in HTML text a newline is just a space; only <br> breaks a line
# text nodes that are markup leftovers, not content
_SKIP_STRINGS = (Comment,)


def inline_text(node: Tag | NavigableString) -> str:
    """The text of a node on one logical line (<br> becomes a newline)."""
    if isinstance(node, NavigableString):
        return "" if isinstance(node, _SKIP_STRINGS) else _WHITESPACE.sub(" ", str(node))
    if node.name == "br":
        return "\n"
    inner = "".join(inline_text(child) for child in node.children)
    # block elements flattened into one line (a <p> in a table cell) still separate words
    return inner if node.name in _INLINE else f" {inner} "


def _tidy(text: str) -> str:
    lines = [_SPACES.sub(" ", line).strip() for line in text.split("\n")]
    return "\n".join(line for line in lines if line)


class _Renderer:
    def __init__(self) -> None:
        self.blocks: list[str] = []
        self.buffer: list[str] = []

    def flush(self) -> None:
        text = _tidy("".join(self.buffer))
        if text:
            self.blocks.append(text)
        self.buffer = []

    def walk(self, node: Tag) -> None:
        for child in node.children:
            if isinstance(child, NavigableString):
                if not isinstance(child, _SKIP_STRINGS):
                    self.buffer.append(_WHITESPACE.sub(" ", str(child)))
            elif isinstance(child, Tag):
                self.element(child)

    def element(self, tag: Tag) -> None:
        name = tag.name
        if name in _INLINE:
            self.walk(tag)
        elif name == "br":
            self.buffer.append("\n")
        elif name in _HEADINGS:
            self.flush()
            text = " ".join(inline_text(tag).split())
            if text:
                self.blocks.append(f"{'#' * _HEADINGS[name]} {text}")
        elif name in ("ul", "ol"):
            self.flush()
            lines = _list_lines(tag, 0)
            if lines:
                self.blocks.append("\n".join(lines))
        elif name == "table":
            self.flush()
            self.table(tag)
        elif name == "pre":
            self.flush()
            code = tag.get_text().strip("\n")
            if code.strip():
                self.blocks.append(f"```\n{code}\n```")
        elif name == "blockquote":
            self.flush()
            inner = _Renderer()
            inner.walk(tag)
            inner.flush()
            quoted = "\n\n".join(inner.blocks)
            if quoted:
                self.blocks.append("\n".join(f"> {line}" if line else ">" for line in quoted.split("\n")))
        elif name in ("img", "hr", "input", "select", "option", "button", "map", "area"):
            self.flush()
        else:  # p, div, section, article, main, td outside data tables, unknown tags...
            self.flush()
            self.walk(tag)
            self.flush()

    def table(self, table: Tag) -> None:
        rows = _table_rows(table)
        if rows is None:  # layout table: its cells are just containers
            self.walk(table)
            self.flush()
            return
        rendered = markdown_table(rows)
        if rendered:
            self.blocks.append(rendered)


def _own_rows(table: Tag) -> list[Tag]:
    """The table's rows, not those of tables nested inside its cells."""
    return [tr for tr in table.find_all("tr") if tr.find_parent("table") is table]


def _table_rows(table: Tag) -> list[list[str]] | None:
    """Cell texts (colspan leaves the spanned cells blank), or None for a layout table."""
    rows: list[list[str]] = []
    for tr in _own_rows(table):
        row: list[str] = []
        for cell in tr.find_all(["td", "th"], recursive=False):
            if cell.find(_LAYOUT_MARKERS):
                return None
            text = inline_text(cell)
            if len(text) > _LAYOUT_CELL_CHARS:
                return None
            row.append(text)
            span = cell.get("colspan", "1")
            row.extend([""] * (min(int(span), 50) - 1 if str(span).isdigit() and int(span) > 1 else 0))
        if any(c.strip() for c in row):
            rows.append(row)
    if len(rows) < 2 or max(len(r) for r in rows) < 2:
        return None
    return rows


def _list_lines(tag: Tag, depth: int) -> list[str]:
    lines: list[str] = []
    number = 0
    for li in tag.find_all("li", recursive=False):
        number += 1
        marker = f"{number}." if tag.name == "ol" else "-"
        own = [c for c in li.children if not (isinstance(c, Tag) and c.name in ("ul", "ol"))]
        text = " ".join("".join(inline_text(c) for c in own).split())
        if text:
            lines.append(f"{'    ' * depth}{marker} {text}")
        for sub in li.find_all(["ul", "ol"], recursive=False):
            lines.extend(_list_lines(sub, depth + 1 if text else depth))
    return lines


def html_blocks(root: Tag | BeautifulSoup) -> list[str]:
    renderer = _Renderer()
    renderer.walk(root)
    renderer.flush()
    return renderer.blocks
