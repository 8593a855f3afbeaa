"""Spreadsheets through the real engine: a workbook and a GBK CSV are indexed, and a searched
row comes back with its table's header even when it sits in a later chunk of the table."""

from __future__ import annotations

import io

import openpyxl

from core.ingest.service import Upload
from core.types import SYSTEM_ACTOR

A = SYSTEM_ACTOR
HEADER = "| Part number | Supplier | Unit price | Warehouse |"


def _catalogue() -> bytes:
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Catalogue"
    ws.append(["Part number", "Supplier", "Unit price", "Warehouse"])
    for n in range(1, 121):
        ws.append([f"P-{n:04d}", f"Supplier {n % 7}", n * 1.25, f"Hall {n % 3}"])
    ws.append(["P-9999", "Zephyr Bearings", 77.5, "Hall 9"])  # the row searched for, far down the sheet
    hidden = wb.create_sheet("Notes")
    hidden.append(["internal"])
    hidden.sheet_state = "hidden"
    raw = io.BytesIO()
    wb.save(raw)
    return raw.getvalue()


def test_xlsx_and_gbk_csv_upload_and_search_finds_a_row_with_its_header(engine):
    engine.create_kb(A, "sheets")
    csv_bytes = "城市,住宿标准\n北京,六百元\n成都,四百元\n".encode("gbk")
    book, table = engine.ingest(A, "sheets", [Upload("catalogue.xlsx", _catalogue()), Upload("住宿.csv", csv_bytes)])
    assert (book.status, table.status) == ("indexed", "indexed"), (book.error, table.error)
    assert book.chunks >= 5

    chunks = engine.file_chunks(A, book.file_id)
    assert all(HEADER in c["text"] for c in chunks)
    assert all("internal" not in c["text"] for c in chunks)

    hits = engine.search(A, "Zephyr Bearings", ["sheets"], min_score=0).hits
    assert hits and "| P-9999 | Zephyr Bearings | 77.5 | Hall 9 |" in hits[0].text
    assert hits[0].text.startswith(f"## Catalogue\n\n{HEADER}") or hits[0].text.startswith(HEADER)
    assert hits[0].heading_path == ["Catalogue"] and hits[0].source_name == "catalogue.xlsx"

    hits = engine.search(A, "北京住宿标准", ["sheets"], min_score=0).hits
    assert hits and "| 北京 | 六百元 |" in hits[0].text and "| 城市 | 住宿标准 |" in hits[0].text
