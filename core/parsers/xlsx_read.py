"""Reading an .xlsx workbook as a stream of rows that stops when the caller has enough.

``openpyxl.load_workbook`` (even read-only) scans each sheet once to size it when the file
declares no dimension, and a sheet is then read to its last row: a 1M-row sheet of which 5,000
rows are kept cost minutes. Here openpyxl reads the workbook parts (sheet list, shared strings,
styles for dates) and its own row parser yields the rows the caller takes, one at a time;
rows past the cap are only counted, from the raw XML (``count_filled_rows``), for the warning.
"""

from __future__ import annotations

import functools
import io
import re
import warnings
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

_MERGE_REF = re.compile(rb"<(?:\w+:)?mergeCell\b[^>]*?\bref=\"([A-Z]+)(\d+):([A-Z]+)(\d+)\"")
_SCAN_BLOCK = 1 << 20


@dataclass
class SheetInfo:
    name: str
    path: str  # member of the archive
    state: str  # visible | hidden | veryHidden
    is_chart: bool


class Workbook:
    """The parts of a workbook every sheet needs, read once (small beside the sheets)."""

    def __init__(self, data: bytes, archive: zipfile.ZipFile):
        from openpyxl.reader.excel import ExcelReader
        from openpyxl.styles.stylesheet import apply_stylesheet

        self.archive = archive
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # "no default style" and similar noise
            reader = ExcelReader(io.BytesIO(data), read_only=True)
            reader.read_manifest()
            reader.read_strings()
            reader.read_workbook()
            apply_stylesheet(reader.archive, reader.wb)
        self._reader = reader
        self.shared_strings: list[str] = reader.shared_strings
        self.sheets = [SheetInfo(sheet.name, rel.target, sheet.state or "visible", "chartsheet" in (rel.Type or ""))
                       for sheet, rel in reader.parser.find_sheets() if rel.target in reader.valid_files]

    def close(self) -> None:
        self._reader.archive.close()

    def _parser(self, path: str, data_only: bool):
        from openpyxl.worksheet._reader import WorkSheetParser

        wb = self._reader.wb
        return WorkSheetParser(self.archive.open(path), self.shared_strings, data_only=data_only, epoch=wb.epoch,
                               date_formats=wb._date_formats, timedelta_formats=wb._timedelta_formats)

    def rows(self, sheet: SheetInfo) -> Iterator[tuple[int, list[Any], list[Any]]]:
        """(row number, cached values, formulas) of each row present in the sheet, read lazily:
        a caller that stops early never parses the rest. Values and formulas come from two
        parsers in step (openpyxl gives either a cell's cached value or its formula)."""
        values = self._parser(sheet.path, data_only=True)
        formulas = self._parser(sheet.path, data_only=False)
        try:
            for (number, value_cells), (_, formula_cells) in zip(values.parse(), formulas.parse()):
                yield number, _by_column(value_cells), _by_column(formula_cells)
        finally:
            values.source.close()
            formulas.source.close()


def _by_column(cells: list[dict]) -> list[Any]:
    if not cells:
        return []
    row: list[Any] = [None] * max(cell["column"] for cell in cells)
    for cell in cells:
        row[cell["column"] - 1] = cell["value"]
    return row


def _column_number(letters: bytes) -> int:
    n = 0
    for ch in letters:
        n = n * 26 + ch - 64
    return n


def merged_ranges(archive: zipfile.ZipFile, member: str) -> list[tuple[int, int, int, int]]:
    """(min_row, min_col, max_row, max_col) of each merged range, 1-based, scanned from the raw
    XML in blocks (they follow the cells, and the rows are read lazily)."""
    found: set[tuple[int, int, int, int]] = set()
    tail = b""
    with archive.open(member) as stream:
        while block := stream.read(_SCAN_BLOCK):
            data = tail + block
            if b"mergeCell" not in data:  # the cells come first: most blocks have none
                tail = data[-256:]
                continue
            for m in _MERGE_REF.finditer(data):
                found.add((int(m.group(2)), _column_number(m.group(1)), int(m.group(4)), _column_number(m.group(3))))
            tail = data[-256:]  # a tag cut at the block's end is whole in the next window
    return sorted(found)


_ROOT_PREFIX = re.compile(rb"<(\w+:)?worksheet[\s>]")
_ROW_NUMBER = re.compile(rb"\br=\"(\d+)\"")


@dataclass(frozen=True)
class _RowPatterns:
    """Row patterns for the sheet's own tag prefix ("" or e.g. "x:"): a literal start keeps the
    regex engine at memchr speed (an optional prefix group made it 5-10x slower)."""

    start: re.Pattern  # every row, self-closing <row .../> too
    last_start: re.Pattern  # used with match(): one backward scan to the last row start
    empty: re.Pattern  # <row/>, or a row holding only self-closing (styled, empty) cells


@functools.lru_cache(maxsize=4)
def _row_patterns(prefix: bytes) -> _RowPatterns:
    p = re.escape(prefix)
    tag = rb"<" + p + rb"row(?:\s[^>]*)?"
    return _RowPatterns(
        start=re.compile(tag + rb">"),
        last_start=re.compile(rb"(?s:.*)(<" + p + rb"row[\s/>])"),
        empty=re.compile(tag + rb"/>|" + tag + rb"(?<!/)>\s*(?:<" + p + rb"c\b[^>]*/>\s*)*</" + p + rb"row>"),
    )


def count_filled_rows(archive: zipfile.ZipFile, member: str, after_row: int) -> int:
    """Rows numbered above ``after_row`` that hold a cell with content, counted from the raw XML
    in blocks, at regex speed: parsing the XML runs at ~12 MB/s here and a 1M-row sheet is 180 MB
    of it, while this count only tells the warning how much was cut. (A cell whose content is
    blank counts as content here.)"""
    count = number = 0
    counting = False  # once past after_row, whole stretches of rows are counted at once
    pending = b""
    rows: _RowPatterns | None = None
    with archive.open(member) as stream:
        while True:
            block = stream.read(_SCAN_BLOCK)
            data = pending + block
            if rows is None:
                root = _ROOT_PREFIX.search(data)
                rows = _row_patterns(root.group(1) or b"" if root else b"")
            cut = len(data)
            if block:  # the last row may go on in the next block: it waits for it
                last = rows.last_start.match(data)
                cut = last.start(1) if last else max(0, len(data) - 256)
            complete = data[:cut]
            if not counting:
                for match in rows.start.finditer(complete):
                    found = _ROW_NUMBER.search(match.group(0))
                    number = int(found.group(1)) if found else number + 1  # rows may leave their number out
                    if number > after_row:
                        complete, counting = complete[match.start():], True
                        break
            if counting:
                count += len(rows.start.findall(complete)) - len(rows.empty.findall(complete))
            if not block:
                return count
            pending = data[cut:]
