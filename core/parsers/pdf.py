"""PDF: the text layer in reading order with tables as Markdown, OCR for scanned pages.

Each page is judged on its own, so a mixed document (typed pages and scans) comes out whole:
a page whose text layer is missing, too short for the picture it shows, or garbage (few real
characters, e.g. a font without a Unicode map) is rendered with pypdfium2 and read by OCR. On
the other pages, pictures large enough to hold text are OCR'd on their own and their lines
join the text layer in reading order (pdf_images.py). With two or more scanned pages, those
pages are read in parallel processes (ocr_pool.py, ``parsing.ocr_workers``) while the pages are
walked in order, so the text and the progress are the same as one page at a time.
"""

from __future__ import annotations

import re

import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_c

from core.errors import ParseError
from core.messages import say
from core.parsers.base import ParseContext
from core.parsers.layout import Box, reading_text
from core.parsers.ocr_pool import PagesRead, pool_size, read_pages
from core.parsers.pdf_ocr import ocr_page
from core.parsers.pdf_bounds import check_streams
from core.parsers.pdf_images import ocr_pictures, picture_regions
from core.parsers.pdf_tables import find_tables
from core.parsers.pdf_text import SOFT_HYPHEN, PageText, read_page_edges, read_page_text
from core.types import DocPart, ParsedDoc

MIN_TEXT_CHARS = 40  # fewer non-space characters than this on a page showing an image: a scan
MIN_REAL_SHARE = 0.6  # below this share of real characters the text layer is garbage
SCAN_IMAGE_SHARE = 0.25  # an image covering this much of the page can hold the page's text
SHORT_TEXT_CHARS = 200  # below this, a page-size image may hold more text than the text layer
STAMPED_SCAN_IMAGE_SHARE = 0.6  # a scan with a typed stamp or header added on top
OUTLINED_TEXT_PATHS = 200  # this many vector paths and no text: text drawn as outlines


def _open(data: bytes, source_name: str) -> pdfium.PdfDocument:
    try:
        return pdfium.PdfDocument(data)
    except pdfium.PdfiumError as exc:
        code = getattr(exc, "err_code", None)
        if code == pdfium_c.FPDF_ERR_PASSWORD:
            raise ParseError.of(say("parse.pdf_password", name=source_name)) from exc
        if code == pdfium_c.FPDF_ERR_SECURITY:
            raise ParseError(f"{source_name} uses an unsupported PDF security handler") from exc
        raise ParseError.of(say("parse.pdf_unreadable", name=source_name), detail=str(exc)) from exc


def _image_share_and_paths(page: pdfium.PdfPage, area: float) -> tuple[float, int]:
    image_area = 0.0
    paths = 0
    for obj in page.get_objects(max_depth=2):
        if obj.type == pdfium_c.FPDF_PAGEOBJ_IMAGE:
            left, bottom, right, top = obj.get_bounds()
            image_area += max(0.0, right - left) * max(0.0, top - bottom)
        elif obj.type == pdfium_c.FPDF_PAGEOBJ_PATH:
            paths += 1
    return (image_area / area if area > 0 else 0.0), paths


def ocr_reason(page: pdfium.PdfPage, text: PageText) -> str | None:
    """Why this page needs OCR, or None when its text layer is good enough."""
    if text.char_count >= MIN_TEXT_CHARS and text.real_share < MIN_REAL_SHARE:
        return f"its text layer is garbage ({text.real_share:.0%} real characters)"
    if text.char_count >= SHORT_TEXT_CHARS:
        return None
    image_share, paths = _image_share_and_paths(page, text.width * text.height)
    if text.char_count < MIN_TEXT_CHARS and image_share >= SCAN_IMAGE_SHARE:
        return "it has no text layer (a scanned image)" if text.char_count == 0 else "its text layer is too short for the image it shows"
    if image_share >= STAMPED_SCAN_IMAGE_SHARE:
        return "its text layer is short beside a page-size image (a stamped or partly searchable scan)"
    if text.char_count == 0 and paths >= OUTLINED_TEXT_PATHS:
        return "its text is drawn as vector outlines"
    return None


def _join_hyphenated(text: str) -> str:
    text = re.sub(SOFT_HYPHEN + r"\n(?=\S)", "", text)
    return text.replace(SOFT_HYPHEN, "-")


def _text_layer(page: pdfium.PdfPage, text: PageText, picture_lines: list[Box] = ()) -> tuple[str, int]:
    edges = read_page_edges(page, text.height)
    tables, words = find_tables(edges, text.words)
    body = _join_hyphenated(reading_text(words + tables + list(picture_lines)))
    if text.rotated_text:
        body = f"{body}\n\n{text.rotated_text}" if body else text.rotated_text
    return body, len(tables)


def stored_lines(lines: list[Box]) -> list[list]:
    """OCR lines as kept in the parsed document, so a citation can be highlighted on a scanned
    page without reading it again (core/citations/pdf_page.py)."""
    return [[round(b.x0, 1), round(b.top, 1), round(b.x1, 1), round(b.bottom, 1), b.text] for b in lines]


class PdfParser:
    name = "pdf"

    def parse(self, data: bytes, source_name: str, ctx: ParseContext) -> ParsedDoc:
        check_streams(data, source_name)  # a flate bomb is refused before pdfium inflates it whole
        document = _open(data, source_name)
        try:
            return self._parse_open(document, data, source_name, ctx)
        finally:
            document.close()

    def _parse_open(self, document: pdfium.PdfDocument, data: bytes, source_name: str, ctx: ParseContext) -> ParsedDoc:
        total = len(document)
        if total == 0:
            raise ParseError(f"{source_name} has no pages")
        texts = _scanned_pages(document, source_name, ctx)
        scanned = [(i, i + 1) for i, (_, reason) in texts.items() if reason]
        workers = pool_size(ctx.settings.ocr_workers, len(scanned)) if ctx.settings.ocr_enabled else 1
        if workers < 2:
            return _PageWalk(document, source_name, ctx, texts).run()
        # the scanned pages are read ahead, in parallel, while the walk below takes them in order
        with read_pages(data, scanned, workers=workers, dpi=ctx.settings.ocr_dpi,
                        timeout_seconds=ctx.settings.ocr_page_timeout_seconds,
                        check=lambda: ctx.progress(0, total, say("pdf.scanned_ahead"))) as ahead:
            doc = _PageWalk(document, source_name, ctx, texts, ahead).run()
        doc.metadata["ocr_workers"] = workers
        doc.metadata["ocr_worker_peak_rss_mb"] = round(ahead.peak_rss_mb)
        return doc


def _load_page(document: pdfium.PdfDocument, index: int, source_name: str) -> pdfium.PdfPage:
    """Page ``index``, or the file's ParseError: a page tree that loops back on itself, or points
    at something that is not a page, lists pages pdfium then cannot load (a raw PdfiumError)."""
    try:
        return document[index]
    except pdfium.PdfiumError as exc:
        raise ParseError(f"page {index + 1} of {source_name} cannot be loaded: the PDF's page tree is broken "
                         "(it may loop back on itself); save the file again from its program or print it to PDF",
                         detail=str(exc)) from None


def _scanned_pages(document: pdfium.PdfDocument, source_name: str,
                   ctx: ParseContext) -> dict[int, tuple[PageText, str | None]]:
    """Every page's text layer and why it needs OCR (None: it does not), in page order."""
    out: dict[int, tuple[PageText, str | None]] = {}
    total = len(document)
    for index in range(total):
        # a first pass before any page is read: the counter stays at 0 (may raise Cancelled)
        ctx.progress(0, total, say("pdf.text_layer", page=index + 1, pages=total))
        page = _load_page(document, index, source_name)
        try:
            text = read_page_text(page)
            out[index] = (text, ocr_reason(page, text))
        except pdfium.PdfiumError as exc:
            raise ParseError(f"page {index + 1} of {source_name} could not be read (corrupt PDF)", detail=str(exc)) from exc
        finally:
            page.close()
    return out


class _PageWalk:
    """The pages in order: OCR'd (here, or taken from the pool's read-ahead), or their text layer
    with any pictures OCR'd, into one document."""

    def __init__(self, document: pdfium.PdfDocument, source_name: str, ctx: ParseContext,
                 texts: dict[int, tuple[PageText, str | None]], ahead: PagesRead | None = None):
        self.document, self.source_name, self.ctx, self.texts, self.ahead = document, source_name, ctx, texts, ahead
        self.parts: list[DocPart] = []
        self.ocr_pages: list[int] = []
        self.picture_pages: list[int] = []  # pages whose pictures were OCR'd beside their text layer
        self.warnings: list[str] = []
        self.table_count = 0
        self.ocr_lines: dict[str, list[list]] = {}  # page number -> OCR lines in points (citations)

    def run(self) -> ParsedDoc:
        total, ctx = len(self.document), self.ctx
        for index in range(total):
            number = index + 1
            ctx.progress(index, total, say("pdf.page", page=number, pages=total))
            page = _load_page(self.document, index, self.source_name)
            try:
                body = self._page(page, index, number, total)
            except pdfium.PdfiumError as exc:
                raise ParseError(f"page {number} of {self.source_name} could not be read (corrupt PDF)",
                                 detail=str(exc)) from exc
            finally:
                page.close()
            if body.strip():
                self.parts.append(DocPart(text=body, page=number))
        ctx.progress(total, total, say("pdf.done", pages=total))
        metadata = {"pages": total, "ocr_pages": self.ocr_pages, "ocr_picture_pages": self.picture_pages,
                    "tables": self.table_count}
        if self.ocr_lines:  # a dict: it stays in the parsed text, out of the file's database row
            metadata["ocr_lines"] = self.ocr_lines
        return ParsedDoc(source_name=self.source_name, mime="application/pdf", parts=self.parts,
                         title=_title(self.document), metadata=metadata, warnings=self.warnings)

    def _page(self, page: pdfium.PdfPage, index: int, number: int, total: int) -> str:
        ctx, settings = self.ctx, self.ctx.settings
        text, reason = self.texts[index]
        if reason and settings.ocr_enabled:
            ctx.progress(index, total, say("pdf.ocr", page=number, pages=total, reason=reason))
            if self.ahead is not None:
                read = self.ahead.take(number)
                body, lines = read.text, read.lines
                self.warnings.extend(read.notes)
            else:
                body, lines = ocr_page(page, number, dpi=settings.ocr_dpi,
                                       timeout_seconds=settings.ocr_page_timeout_seconds, notes=self.warnings)
            self.ocr_lines[str(number)] = stored_lines(lines)
            self.ocr_pages.append(number)
            return body
        if reason and text.real_share < MIN_REAL_SHARE:
            # Garbage would only pollute the index: skip the page, say so.
            self.warnings.append(f"page {number}: {reason}, and OCR is turned off; the page was skipped")
            return ""
        if reason:
            self.warnings.append(f"page {number}: {reason}, and OCR is turned off; its text may be missing")
        picture_lines: list[Box] = []
        if settings.ocr_enabled and settings.ocr_pdf_pictures:
            regions = picture_regions(page)
            if regions:
                ctx.progress(index, total, say("pdf.pictures", page=number, pages=total, n=len(regions)))
                placed: list[Box] = []
                picture_lines = ocr_pictures(
                    page, regions, text.words, dpi=settings.ocr_dpi, timeout_seconds=settings.ocr_page_timeout_seconds,
                    what=f"page {number}", notes=self.warnings, placed_lines=placed)
                if placed:
                    self.ocr_lines[str(number)] = stored_lines(placed)
                self.picture_pages.append(number)
        body, tables = _text_layer(page, text, picture_lines)
        self.table_count += tables
        return body


def _title(document: pdfium.PdfDocument) -> str | None:
    try:
        title = document.get_metadata_value("Title").strip()
    except (pdfium.PdfiumError, AttributeError, KeyError):
        return None
    return title or None


PARSER = PdfParser()
