"""Spreadsheets (.xlsx workbooks, .csv/.tsv files): one Markdown table per sheet.

Each visible sheet becomes a DocPart headed "## <sheet name>" (a CSV file is one sheet named
after the file) whose first non-empty row is the table's header. Cells show what Excel shows
when the file was last saved: formulas give their cached values (``data_only=True``); a
formula never calculated (a file written by a script) shows its formula text, with a warning.
Vertically merged cells repeat their value down the merged rows, so every row still carries
its group; horizontally merged cells keep the value in their first column. Hidden sheets are
skipped, and sheets over the row / column limits (ParsingSettings.spreadsheet_max_rows,
spreadsheet_max_columns) are cut, each with a warning. Empty rows and columns are dropped.

Caps apply while reading: a sheet is read up to its last kept row (the rest only counted, for
the warning: core/parsers/xlsx_read.py), and the text kept from all sheets is held to the text
budget of core/parsers/budget.py, so a 1M-row sheet costs seconds, not minutes.
"""

from __future__ import annotations

import csv
import datetime as dt
import io
import zipfile
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import Any

from core.errors import ParseError
from core.parsers.base import ParseContext
from core.parsers.budget import TextBudget
from core.parsers.office_table import markdown_table
from core.parsers.text import decode_text
from core.parsers.ooxml_strict import as_transitional
from core.parsers.zipguard import check_office_zip
from core.types import DocPart, ParsedDoc

XLSX_MIME = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
CSV_MIME = "text/csv"


@dataclass
class _Sheet:
    """Rows of one sheet as cell texts, capped, and what the caps dropped."""

    name: str
    rows: list[list[str]] = field(default_factory=list)
    total_rows: int = 0  # non-empty rows seen, kept or not
    widest: int = 0  # widest non-empty row kept, in columns
    uncalculated: int = 0  # formula cells without a cached value, in the rows kept
    last_row_read: int = 0  # number of the last row taken from the sheet (xlsx)


def cell_text(value: Any) -> str:
    """A cell value as the text a reader expects (no float noise, ISO dates)."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, float):
        if value.is_integer() and abs(value) < 1e15:
            return str(int(value))
        return f"{value:.15g}"
    if isinstance(value, dt.datetime):
        if value.time() == dt.time(0, 0):
            return value.date().isoformat()
        return value.isoformat(sep=" ", timespec="seconds")
    if isinstance(value, (dt.date, dt.time)):
        return value.isoformat()
    return str(value)


def _collect(sheet: _Sheet, rows: Iterable[list[str]], ctx: ParseContext, budget: TextBudget) -> bool:
    """Keep the sheet's first non-empty rows up to the row cap; True when a non-empty row was
    left over (reading stops there: the caller counts the rest if it wants the total)."""
    max_rows, max_cols = ctx.settings.spreadsheet_max_rows, ctx.settings.spreadsheet_max_columns
    for row in rows:
        last = max((i for i, text in enumerate(row) if text.strip()), default=-1)
        if last < 0:
            continue
        sheet.total_rows += 1
        if len(sheet.rows) >= max_rows:
            return True
        kept = row[: min(last + 1, max_cols)]
        for text in kept:
            budget.add(text)
        sheet.widest = max(sheet.widest, last + 1)
        sheet.rows.append(kept)
    return False


def _sheet_part(sheet: _Sheet, ctx: ParseContext, warnings_out: list[str]) -> DocPart | None:
    max_rows, max_cols = ctx.settings.spreadsheet_max_rows, ctx.settings.spreadsheet_max_columns
    if sheet.total_rows > max_rows:
        warnings_out.append(
            f"sheet {sheet.name!r} has {sheet.total_rows} non-empty rows; only the first {max_rows} were "
            f"kept (setting parsing.spreadsheet_max_rows)"
        )
    if sheet.widest > max_cols:
        warnings_out.append(
            f"sheet {sheet.name!r} is {sheet.widest} columns wide; only the first {max_cols} were kept "
            f"(setting parsing.spreadsheet_max_columns)"
        )
    if sheet.uncalculated:
        warnings_out.append(
            f"sheet {sheet.name!r}: {sheet.uncalculated} formula cell(s) have no saved value (the file was "
            f"never recalculated in a spreadsheet program); their formulas are shown instead"
        )
    table = markdown_table(sheet.rows)
    if not table:
        return None
    return DocPart(text=f"## {sheet.name}\n\n{table}", heading_path=(sheet.name,))


# ---------------------------------------------------------------- xlsx


def _fill_down(ranges: list[tuple[int, int, int, int]]) -> dict[tuple[int, int], tuple[int, int]]:
    """Cell (row, col) -> origin cell whose value it repeats: the first column of a range that
    spans rows. Horizontal spans stay blank (their value sits in the range's first column)."""
    owner: dict[tuple[int, int], tuple[int, int]] = {}
    for min_row, min_col, max_row, _max_col in ranges:
        if max_row > min_row and (max_row - min_row) <= 10_000:
            for r in range(min_row + 1, max_row + 1):
                owner[(r, min_col)] = (min_row, min_col)
    return owner


def _xlsx_rows(rows: Iterator[tuple[int, list[Any], list[Any]]], fill: dict[tuple[int, int], tuple[int, int]],
               sheet: _Sheet) -> Iterator[list[str]]:
    origins = {origin for origin in fill.values()}
    remembered: dict[tuple[int, int], str] = {}
    uncalculated = 0  # of the row last yielded: counted once the caller asks for the next (it kept that one)
    for r, values, formulas in rows:
        sheet.uncalculated += uncalculated
        uncalculated = 0
        sheet.last_row_read = r
        row: list[str] = []
        for c, value in enumerate(values, start=1):
            text = cell_text(value)
            formula = formulas[c - 1] if c - 1 < len(formulas) else None
            if value is None and isinstance(formula, str) and formula.startswith("="):
                text = formula
                uncalculated += 1
            if (r, c) in origins:
                remembered[(r, c)] = text
            elif not text and (r, c) in fill:
                text = remembered.get(fill[(r, c)], "")
            row.append(text)
        yield row
    sheet.uncalculated += uncalculated


class XlsxParser:
    name = "xlsx"

    def parse(self, data: bytes, source_name: str, ctx: ParseContext) -> ParsedDoc:
        from core.parsers.xlsx_read import count_filled_rows, merged_ranges

        data, archive = as_transitional(data, check_office_zip(data, "Excel", ctx))
        workbook = self._open(data, archive)
        budget = TextBudget(ctx, source_name)
        parts: list[DocPart] = []
        notes: list[str] = []
        sheet_names: list[str] = []
        try:
            for info in workbook.sheets:
                if info.state != "visible":
                    notes.append(f"sheet {info.name!r} is hidden and was skipped")
                    continue
                if info.is_chart:  # a chartsheet holds no cells
                    continue
                fill = _fill_down(merged_ranges(archive, info.path))
                sheet = _Sheet(info.name)
                if _collect(sheet, _xlsx_rows(workbook.rows(info), fill, sheet), ctx, budget):
                    # the row that did not fit was counted; count the rest after it
                    sheet.total_rows += count_filled_rows(archive, info.path, sheet.last_row_read)
                sheet_names.append(info.name)
                part = _sheet_part(sheet, ctx, notes)
                if part is not None:
                    parts.append(part)
        except (KeyError, ValueError, TypeError, IndexError, zipfile.BadZipFile) as exc:
            raise ParseError(f"corrupt Excel file {source_name} (a sheet cannot be read)", detail=f"{type(exc).__name__}: {exc}") from exc
        except Exception as exc:  # lxml / expat raise their own families on broken XML
            if type(exc).__module__.startswith(("lxml", "xml", "pyexpat", "defusedxml")):
                raise ParseError(f"corrupt Excel file {source_name} (its XML cannot be read)", detail=str(exc)) from exc
            raise
        finally:
            workbook.close()
        return ParsedDoc(
            source_name=source_name,
            mime=XLSX_MIME,
            parts=parts,
            title=PurePosixPath(source_name).stem or None,
            metadata={"sheets": sheet_names},
            warnings=notes,
        )

    @staticmethod
    def _open(data: bytes, archive: zipfile.ZipFile):
        from openpyxl.utils.exceptions import InvalidFileException

        from core.parsers.xlsx_read import Workbook

        try:
            return Workbook(data, archive)
        except (InvalidFileException, KeyError, ValueError, TypeError, OSError, zipfile.BadZipFile) as exc:
            raise ParseError("not a valid Excel file (the workbook cannot be read)", detail=f"{type(exc).__name__}: {exc}") from exc
        except Exception as exc:  # lxml / expat raise their own families on broken XML
            if type(exc).__module__.startswith(("lxml", "xml", "pyexpat", "defusedxml")):
                raise ParseError("corrupt Excel file (its XML cannot be read)", detail=str(exc)) from exc
            raise


# ---------------------------------------------------------------- csv


def _dialect(text: str, source_name: str) -> type[csv.Dialect] | csv.Dialect:
    if source_name.lower().endswith(".tsv"):
        return csv.excel_tab
    sample = "\n".join(text[:65536].split("\n")[:50])
    try:
        return csv.Sniffer().sniff(sample, delimiters=",;\t|")
    except csv.Error:
        return csv.excel  # one column, or no consistent delimiter: a plain comma file


class CsvParser:
    name = "csv"

    def parse(self, data: bytes, source_name: str, ctx: ParseContext) -> ParsedDoc:
        text, encoding = decode_text(data)
        dialect = _dialect(text, source_name)
        name = PurePosixPath(source_name.replace("\\", "/")).name or source_name
        notes: list[str] = []
        sheet = _Sheet(name)
        try:
            rows = csv.reader(io.StringIO(text), dialect)
            if _collect(sheet, ([cell.strip() for cell in row] for row in rows), ctx, TextBudget(ctx, source_name)):
                sheet.total_rows += sum(1 for row in rows if any(cell.strip() for cell in row))  # the rest, counted only
        except csv.Error as exc:
            raise ParseError(f"{source_name} is not a readable CSV file", detail=str(exc)) from exc
        part = _sheet_part(sheet, ctx, notes)
        return ParsedDoc(
            source_name=source_name,
            mime=CSV_MIME,
            parts=[part] if part else [],
            title=PurePosixPath(name).stem or None,
            metadata={"encoding": encoding, "delimiter": dialect.delimiter},
            warnings=notes,
        )


XLSX_PARSER = XlsxParser()
CSV_PARSER = CsvParser()
