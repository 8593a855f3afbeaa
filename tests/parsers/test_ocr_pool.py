"""Scanned PDF pages read in parallel processes (core/parsers/ocr_pool.py): the same document as
one page at a time, progress page by page, a cancel that ends the pool at once, the time limit.

Real RapidOCR in real spawned processes, on a generated scanned PDF (slow: model loads per worker)."""

from __future__ import annotations

import multiprocessing
import time

import pytest

from core.errors import Cancelled, ParseError
from core.parsers.base import ParseContext
from core.parsers.ocr_pool import cpu_cores
from core.parsers.registry import parse_bytes
from core.settings.model import ParsingSettings
from tests.parsers.pdf_maker import Page, image_pdf, join_pdfs, make_pdf, text_image

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(cpu_cores() < 2, reason="a pool of OCR processes needs at least 2 CPU cores")]


def _scan(n: int) -> bytes:
    return image_pdf(text_image([f"Scanned page {n} of the ferry timetable", f"第{n}页：冬季每天两班",
                                 f"Departure {n}:30 from pier {n * 3}"]))


def _document(scanned_pages: int = 3) -> bytes:
    typed = make_pdf([Page().text(72, 80, "A typed page between the scans, with a real text layer to keep.")])
    scans = [_scan(n) for n in range(1, scanned_pages + 1)]
    return join_pdfs(scans[0], typed, *scans[1:])


def _parse(data: bytes, workers: int, progress=lambda done, total, message: None):
    ctx = ParseContext(settings=ParsingSettings(ocr_workers=workers, ocr_dpi=150), progress=progress)
    return parse_bytes(data, "scans.pdf", ctx)


def test_parallel_pages_equal_one_page_at_a_time_and_progress_goes_page_by_page():
    data = _document()
    sequential = _parse(data, workers=1)
    messages: list[str] = []
    parallel = _parse(data, workers=2, progress=lambda done, total, step: messages.append(step.text))
    assert parallel.metadata["ocr_workers"] == 2 and "ocr_workers" not in sequential.metadata
    assert parallel.metadata["ocr_pages"] == sequential.metadata["ocr_pages"] == [1, 3, 4]
    assert [(p.page, p.text) for p in parallel.parts] == [(p.page, p.text) for p in sequential.parts]
    assert parallel.metadata["ocr_lines"] == sequential.metadata["ocr_lines"]
    assert parallel.warnings == sequential.warnings
    assert "Departure 3:30 from pier 9" in parallel.parts[3].text
    ocr_steps = [m for m in messages if ": OCR (" in m]
    assert [m.split(":")[0] for m in ocr_steps] == ["page 1 of 4", "page 3 of 4", "page 4 of 4"]
    assert multiprocessing.active_children() == []  # the pool is gone with the parse


def test_a_cancel_stops_the_pool_within_two_seconds():
    data = _document(scanned_pages=10)
    asked_at: list[float] = []
    workers_when_asked: list[int] = []

    def progress(done, total, step):  # the ingest's cancel check: it raises once asked to stop
        if asked_at:
            raise Cancelled("cancelled by request")
        if step.text.startswith("page 4 of 11: OCR"):  # pages 1-3 read; 4-10 still queued or being read
            workers_when_asked.append(len(multiprocessing.active_children()))
            asked_at.append(time.monotonic())

    with pytest.raises(Cancelled):
        _parse(data, workers=2, progress=progress)
    ended = time.monotonic()
    assert workers_when_asked == [2]  # the pool was at work when the cancel came
    assert ended - asked_at[0] < 2.0  # its processes terminated, not left to finish their pages
    assert multiprocessing.active_children() == []


def test_a_page_over_its_time_limit_fails_the_file_and_names_the_page():
    ctx = ParseContext(settings=ParsingSettings(ocr_workers=2, ocr_page_timeout_seconds=0.001))
    with pytest.raises(ParseError, match=r"OCR of page 1 took longer than 0\.001 s"):
        parse_bytes(join_pdfs(_scan(1), _scan(2)), "slow.pdf", ctx)
    assert multiprocessing.active_children() == []


def test_an_ingest_through_the_engine_reads_the_scans_in_the_pool_and_finds_them(data_dir, monkeypatch):
    from core.ingest.service import Upload
    from core.types import SYSTEM_ACTOR
    from tests.engine.conftest import make_engine

    monkeypatch.delenv("DATABASE_URL", raising=False)
    monkeypatch.delenv("QDRANT_URL", raising=False)
    engine = make_engine(data_dir, parsing={"ocr_workers": 2, "ocr_dpi": 150})
    try:
        engine.create_kb(SYSTEM_ACTOR, "scans")
        [result] = engine.ingest(SYSTEM_ACTOR, "scans", [Upload("scans.pdf", _document())])
        assert result.status == "indexed", result
        found = engine.search(SYSTEM_ACTOR, "Departure 3:30 from pier 9", ["scans"], mode="bm25", min_score=0)
        assert found.hits and "Departure 3:30 from pier 9" in found.hits[0].text, [h.text[:80] for h in found.hits]
    finally:
        engine.close()
    assert multiprocessing.active_children() == []
