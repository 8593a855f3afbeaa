"""A Markdown table cut into several chunks repeats its header row in each chunk, whichever
parser made the table (spreadsheet, PDF lattice table, Word, PowerPoint)."""

from __future__ import annotations

import io
import re

import docx
import openpyxl
import pptx
from pptx.util import Inches

from core.chunking import chunk_document
from core.chunking.tables import find_tables
from core.parsers.base import ParseContext
from core.parsers.registry import parse_bytes
from core.settings.model import ChunkingSettings, ParsingSettings
from core.types import DocPart, ParsedDoc
from tests.parsers.pdf_maker import Page, make_pdf

CFG = ChunkingSettings(chunk_size=400, chunk_overlap=0)
ROWS = [(f"item {n:02d}", f"{n * 3} kg", f"仓库{n % 4}") for n in range(1, 41)]


def _table_chunks(doc: ParsedDoc, cfg: ChunkingSettings = CFG, count=len):
    chunks = chunk_document(doc, cfg, count=count)
    return [c for c in chunks if "| item" in c.text]


def _assert_every_chunk_opens_with(chunks, header: str, cfg: ChunkingSettings = CFG, count=len) -> None:
    assert len(chunks) >= 3
    rows_seen: list[str] = []
    for chunk in chunks:
        lines = [ln for ln in chunk.text.splitlines() if ln.strip()]
        table_start = next(i for i, ln in enumerate(lines) if ln.startswith("|"))
        assert lines[table_start] == header, chunk.text
        assert re.fullmatch(r"\| ?-+ ?(\| ?-+ ?)*\|", lines[table_start + 1].replace(" ", "")), chunk.text
        assert count(chunk.text) <= cfg.chunk_size
        rows_seen += [ln for ln in lines[table_start + 2 :] if ln.startswith("| item")]
    assert len(rows_seen) == len(ROWS) == len(set(rows_seen))  # nothing lost, nothing doubled


def test_plain_markdown_table_repeats_header_and_separator():
    table = "| Item | Weight | Place |\n| --- | --- | --- |\n" + "\n".join(f"| {a} | {b} | {c} |" for a, b, c in ROWS)
    text = "# Stock\n\nThe list below is the whole stock.\n\n" + table + "\n\nAfter the table, prose."
    doc = ParsedDoc("stock.md", "text/markdown", [DocPart(text)])
    chunks = chunk_document(doc, CFG)
    table_chunks = [c for c in chunks if "| item" in c.text]
    _assert_every_chunk_opens_with(table_chunks, "| Item | Weight | Place |")
    assert table_chunks[0].header_chars == 0 and all(c.header_chars > 0 for c in table_chunks[1:])
    assert all(c.heading_path == ("Stock",) for c in chunks)
    assert chunks[-1].text.endswith("After the table, prose.")


def test_header_fits_when_sizes_are_tokens_and_merge_joins_one_table():
    def tokens(text: str) -> int:
        return len(re.findall(r"[A-Za-z0-9]+|\S", text))

    table = "| Item | Weight | Place |\n| --- | --- | --- |\n" + "\n".join(f"| {a} | {b} | {c} |" for a, b, c in ROWS)
    doc = ParsedDoc("stock.md", "text/markdown", [DocPart(table)])
    cfg = ChunkingSettings(chunk_size=120, chunk_overlap=10, size_unit="tokens")
    chunks = chunk_document(doc, cfg, count=tokens)
    assert len(chunks) >= 3
    for chunk in chunks:
        assert chunk.text.startswith("| Item | Weight | Place |\n| --- | --- | --- |\n")
        assert tokens(chunk.text) <= 120
    merged = chunk_document(doc, ChunkingSettings(chunk_size=400, chunk_overlap=0, chunk_min_size_target=390))
    for chunk in merged:  # merged pieces stay one table: one header each
        assert chunk.text.count("| Item | Weight | Place |") == 1
        assert len(find_tables(chunk.text)) == 1


def test_spreadsheet_sheet_split_into_chunks_repeats_its_header():
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Stock"
    ws.append(["Item", "Weight", "Place"])
    for row in ROWS:
        ws.append(list(row))
    raw = io.BytesIO()
    wb.save(raw)
    chunks = _table_chunks(parse_bytes(raw.getvalue(), "stock.xlsx"))
    _assert_every_chunk_opens_with(chunks, "| Item | Weight | Place |")
    assert all(c.heading_path == ("Stock",) for c in chunks)


def test_word_table_split_into_chunks_repeats_its_header():
    document = docx.Document()
    document.add_paragraph("Stock list")
    table = document.add_table(rows=1, cols=3)
    for cell, title in zip(table.rows[0].cells, ("Item", "Weight", "Place")):
        cell.text = title
    for row in ROWS:
        for cell, value in zip(table.add_row().cells, row):
            cell.text = value
    raw = io.BytesIO()
    document.save(raw)
    _assert_every_chunk_opens_with(_table_chunks(parse_bytes(raw.getvalue(), "stock.docx")), "| Item | Weight | Place |")


def test_powerpoint_table_split_into_chunks_repeats_its_header():
    deck = pptx.Presentation()
    slide = deck.slides.add_slide(deck.slide_layouts[5])
    slide.shapes.title.text = "Stock"
    shape = slide.shapes.add_table(len(ROWS) + 1, 3, Inches(0.5), Inches(1.5), Inches(9), Inches(5))
    for c, title in enumerate(("Item", "Weight", "Place")):
        shape.table.cell(0, c).text = title
    for r, row in enumerate(ROWS, start=1):
        for c, value in enumerate(row):
            shape.table.cell(r, c).text = value
    raw = io.BytesIO()
    deck.save(raw)
    _assert_every_chunk_opens_with(_table_chunks(parse_bytes(raw.getvalue(), "stock.pptx")), "| Item | Weight | Place |")


def test_pdf_ruled_table_split_into_chunks_repeats_its_header():
    page = Page().text(72, 40, "Stock list", 12)
    xs, top, step = [72, 220, 360, 500], 60, 18
    ys = [top + step * r for r in range(len(ROWS) + 2)]
    for y in ys:
        page.line(xs[0], y, xs[-1], y)
    for x in xs:
        page.line(x, ys[0], x, ys[-1])
    for r, row in enumerate([("Item", "Weight", "Place"), *ROWS]):
        for c, cell in enumerate(row):
            page.text(xs[c] + 5, ys[r] + 13, cell, 9)
    doc = parse_bytes(make_pdf([page]), "stock.pdf", ParseContext(settings=ParsingSettings(ocr_enabled=False)))
    assert doc.metadata["tables"] == 1
    chunks = _table_chunks(doc)
    _assert_every_chunk_opens_with(chunks, "| Item | Weight | Place |")
    assert all(c.page == 1 for c in chunks)


def test_table_without_outer_pipes_repeats_its_header_too():
    table = "Item | Weight | Place\n---|---|---\n" + "\n".join(f"{a} | {b} | {c}" for a, b, c in ROWS)
    doc = ParsedDoc("stock.md", "text/markdown", [DocPart("Stock list follows.\n\n" + table)])
    chunks = [c for c in chunk_document(doc, CFG) if "item" in c.text]
    assert len(chunks) >= 3
    for chunk in chunks:
        lines = [ln for ln in chunk.text.splitlines() if "|" in ln]
        assert lines[:2] == ["Item | Weight | Place", "---|---|---"], chunk.text
        assert len(chunk.text) <= CFG.chunk_size


def test_pipes_in_prose_are_not_a_table():
    text = "a | b is an expression\nnot a table at all\n" * 40
    doc = ParsedDoc("p.md", "text/markdown", [DocPart(text)])
    assert find_tables(text) == []
    assert all(c.header_chars == 0 for c in chunk_document(doc, CFG))


def test_overlap_never_carries_half_a_row_into_the_next_piece():
    # Rows are records: a piece that opened with the tail of the row before it ("… up to 250
    # words |") would be read as a row of its own. Cells hold sentence marks, where overlap used
    # to begin.
    rows = [(f"R-{n:02d}", f"Service {n}", f"{n * 7} EUR", f"Billed per page. One page is up to 250 words, {n} pages minimum.")
            for n in range(1, 31)]
    table = "| Code | Service | Rate | Notes |\n| --- | --- | --- | --- |\n" + "\n".join(f"| {a} | {b} | {c} | {d} |" for a, b, c, d in rows)
    doc = ParsedDoc("rates.md", "text/markdown", [DocPart(table)])
    chunks = chunk_document(doc, ChunkingSettings(chunk_size=400, chunk_overlap=80))
    assert len(chunks) >= 3
    whole = {f"| {a} | {b} | {c} | {d} |" for a, b, c, d in rows}
    seen = []
    for chunk in chunks:
        lines = [ln for ln in chunk.text.splitlines() if ln.strip()]
        assert lines[0] == "| Code | Service | Rate | Notes |", chunk.text
        body = lines[2:]
        assert body and all(ln in whole for ln in body), chunk.text
        seen += body
    assert set(seen) == whole
