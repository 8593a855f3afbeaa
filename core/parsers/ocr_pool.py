"""Scanned PDF pages read by OCR in parallel processes, the OCR model loaded once per process.

One process reading one page keeps a core busy only part of the time (rendering, detection and
the per-line recognition runs are each small), and onnxruntime's two threads on one page gained
nothing measurable (core/parsers/ocr.py). So the pages of a scanned PDF go to a small pool of
processes instead: ``min(CPU cores, parsing.ocr_workers, scanned pages)``, each with
``cores // workers`` onnxruntime threads, started with ``spawn`` (a clean interpreter: no copy
of the parent's embedder, store or locks) and given the PDF as a private temporary file that it
opens once and renders its pages from (a page's pixels never cross a pipe).

- Order: pages are submitted in page order; the parser takes each result in page order, so
  progress is reported page by page as before and the text comes out identical.
- Cancel: while it waits, the parser's ``check`` (ParseContext.progress: raises Cancelled) runs
  every ``POLL_SECONDS``; on any exception the pool's processes are terminated at once.
- Time limit: each page keeps its limit inside its worker (ocr_boxes); a worker that died or
  hangs past the limit plus ``STALL_GRACE_SECONDS`` fails the file rather than waiting forever.
- Memory: each worker holds the OCR models and one page's buffers: peak 777 MB at 300 DPI on a dense
  page of the shared paper (benchmarks/ocr_pdf_parallel.py; each page brings back its worker's
  VmHWM, and the parse records the largest as ``ocr_worker_peak_rss_mb``).
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from core.errors import ParseError
from core.parsers.layout import Box
from core.parsers.pdf_ocr import ocr_page

log = logging.getLogger(__name__)

POLL_SECONDS = 0.2
STALL_GRACE_SECONDS = 30.0


def cpu_cores() -> int:
    return len(os.sched_getaffinity(0))


def pool_size(setting: int, pages: int) -> int:
    return max(1, min(cpu_cores(), setting, pages))


@dataclass
class PageRead:
    """One page's OCR, in page points (picklable: it comes back from a worker)."""

    number: int
    text: str = ""
    lines: list[Box] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    error: str = ""  # the page's ParseError message (e.g. over its time limit)
    peak_rss_mb: float = 0.0  # the worker's peak resident memory so far


# ---------------------------------------------------------------- worker side

_document = None


def _start_worker(pdf_path: str, onnx_threads: int) -> None:
    global _document
    import pypdfium2 as pdfium

    from core.parsers import ocr

    ocr.ONNX_THREADS = onnx_threads
    ocr.get_engine()  # the models, once per worker, before the first page
    _document = pdfium.PdfDocument(pdf_path)


def _read_page(index: int, number: int, dpi: int, timeout_seconds: float) -> PageRead:
    notes: list[str] = []
    page = _document[index]
    try:
        text, lines = ocr_page(page, number, dpi=dpi, timeout_seconds=timeout_seconds, notes=notes)
        read = PageRead(number, text, lines, notes)
    except ParseError as exc:
        read = PageRead(number, notes=notes, error=exc.message)
    finally:
        page.close()
    read.peak_rss_mb = _peak_rss_mb()
    return read


def _peak_rss_mb() -> float:
    """This process's peak resident memory since it started its program (VmHWM). Not
    ``getrusage``: its maxrss keeps the pre-exec fork's, i.e. the parent's size."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


# ---------------------------------------------------------------- parser side


@dataclass
class PagesRead:
    """The pool's results as the parser takes them, page by page."""

    workers: int
    pending: dict[int, object]  # page number -> AsyncResult
    check: Callable[[], None]
    timeout_seconds: float
    peak_rss_mb: float = 0.0
    _last_done: float = field(default_factory=time.monotonic)

    def take(self, number: int) -> PageRead:
        """Page ``number``'s OCR, waiting for it; ``check`` runs while waiting (it may raise)."""
        result = self.pending.pop(number)
        while not result.ready():
            self.check()
            result.wait(POLL_SECONDS)
            if not result.ready() and time.monotonic() - self._last_done > self.timeout_seconds + STALL_GRACE_SECONDS:
                raise ParseError(f"OCR of page {number} took longer than {self.timeout_seconds:g} s and was stopped "
                                 "(setting parsing.ocr_page_timeout_seconds; an OCR worker stopped answering)")
        self._last_done = time.monotonic()
        read = result.get()
        self.peak_rss_mb = max(self.peak_rss_mb, read.peak_rss_mb)
        if read.error:
            raise ParseError(read.error)
        return read


@contextmanager
def read_pages(data: bytes, pages: list[tuple[int, int]], *, workers: int, dpi: int, timeout_seconds: float,
               check: Callable[[], None]) -> Iterator[PagesRead]:
    """Start OCR of ``pages`` ((index, number) pairs) of the PDF ``data`` on ``workers`` processes;
    the results are taken with ``PagesRead.take``. On leaving (done, failed or cancelled) the
    processes are terminated and the temporary copy of the PDF is removed."""
    threads = max(1, cpu_cores() // workers)
    with tempfile.NamedTemporaryFile(prefix="ragdesk-ocr-", suffix=".pdf") as copy:  # 0600: only we read it
        copy.write(data)
        copy.flush()
        pool = multiprocessing.get_context("spawn").Pool(workers, initializer=_start_worker,
                                                          initargs=(copy.name, threads))
        try:
            pending = {number: pool.apply_async(_read_page, (index, number, dpi, timeout_seconds))
                       for index, number in pages}
            reads = PagesRead(workers, pending, check, timeout_seconds)
            yield reads
            log.info("OCR of %d page(s) on %d processes: peak RSS per worker %.0f MB", len(pages), workers,
                     reads.peak_rss_mb)
        finally:
            pool.terminate()  # at once: a cancelled file leaves no page being read
            pool.join()
