"""``Engine.citation_view``: where a cited passage stands in its file, checked like reading the file.

Everything comes from what ingestion stored: the original bytes (a PDF page is rendered from
them) and the parsed text. Nothing is fetched and no model is called, so strict mode is
unchanged: a citation is knowledge-base content the asker may already read. Rendered pages are
kept in a small process-wide cache, so reopening a citation (every Streamlit rerun) is free.
"""

from __future__ import annotations

import hashlib

import pypdfium2 as pdfium

from core.accounts.access import check_file
from core.citations import passages
from core.citations.pdf_page import (excerpt, highlighted, ocr_glyphs, passage_rects, png, render_page, render_scale,
                                     text_layer_glyphs)
from core.citations.match import ANCHOR_CHARS, locate
from core.citations.types import CitationView, PageView, PassageView, PdfPage
from core.db.models import FileRecord
from core.errors import NotFound
from core.ingest.parts import EngineParts
from core.lru import Lru
from core.types import Actor, ParsedDoc

MAX_PAGES = 3  # a chunk runs over two pages at most in practice; a whole-document citation is cut here
_PDF = "application/pdf"
_SLIDES = "application/vnd.openxmlformats-officedocument.presentationml.presentation"
_SHEETS = ("application/vnd.openxmlformats-officedocument.spreadsheetml.sheet", "text/csv")



def citation_view(parts: EngineParts, actor: Actor, file_id: str, passage: str, *, page: int | None = None,
                  slide: int | None = None, heading_path: tuple[str, ...] = (),
                  views: "Lru[PageView] | None" = None) -> CitationView:
    """``views``: the engine's cache of rendered pages (``Runtime.citation_views``); None renders anew."""
    with parts.db.read() as s:
        rec = check_file(s, actor, s.get(FileRecord, file_id), file_id)
    doc = parts.blobs.get_parsed(rec.id)
    mime = doc.mime if doc is not None else (rec.mime or "")
    if mime == _PDF:
        data = parts.blobs.get(rec.sha256) if rec.sha256 and parts.blobs.has(rec.sha256) else None
        if data is not None and data.startswith(b"%PDF"):
            return _pdf_view(rec, data, doc, passage, page, views)
        if doc is not None:
            view = passages.text_view(rec.id, doc, passage, heading_path)
            view.note = view.note or "original_missing"
            return view
    if doc is None:
        return PassageView("text", rec.id, rec.name, "", passage, [(0, len(passage))], note="text_missing")
    if mime == _SLIDES or slide is not None:
        return passages.slide_view(rec.id, doc, passage, slide)
    if mime in _SHEETS:
        return passages.sheet_view(rec.id, doc, passage, heading_path)
    return passages.text_view(rec.id, doc, passage, heading_path)


def _pdf_view(rec: FileRecord, data: bytes, doc: ParsedDoc | None, passage: str, page: int | None,
              views: "Lru[PageView] | None") -> PageView:
    if page is None and doc is not None:
        part = passages.best_part(doc, passage)
        page = part.page if part is not None else None
    page = page or 1
    key = (rec.id, rec.sha256, page, hashlib.sha256(passage.encode()).hexdigest())
    hit = views.get(key) if views is not None else None
    if hit is not None:
        return hit
    view = _render_pdf_view(rec, data, doc, passage, page)
    if views is not None:
        views.put(key, view)
    return view


def _pages_touched(doc: ParsedDoc | None, passage: str, first: int, count: int) -> list[int]:
    """The cited page and the pages after it that the passage runs on to (at most MAX_PAGES)."""
    pages = [first]
    if doc is None:
        return pages
    texts = {p.page: p.text for p in doc.parts if p.page is not None}
    while len(pages) < MAX_PAGES and pages[-1] + 1 <= count and pages[-1] + 1 in texts:
        found = locate(texts[pages[-1] + 1], passage)
        if not any(e - s >= ANCHOR_CHARS for s, e in found):
            break
        pages.append(pages[-1] + 1)
    return pages


def _render_pdf_view(rec: FileRecord, data: bytes, doc: ParsedDoc | None, passage: str, first: int) -> PageView:
    metadata = doc.metadata if doc is not None else {}
    document = pdfium.PdfDocument(data)
    try:
        count = len(document)
        if not 1 <= first <= count:
            raise NotFound(f"'{rec.name}' has no page {first}")
        shown = [_render_one(document, n, metadata, passage) for n in _pages_touched(doc, passage, first, count)]
    finally:
        document.close()
    return PageView("pdf_page", rec.id, rec.name, count, shown)


def _render_one(document: pdfium.PdfDocument, number: int, metadata: dict, passage: str) -> PdfPage:
    page = document[number - 1]
    try:
        image = render_page(page)
        scale = render_scale(page)
        kept = metadata.get("ocr_lines")  # absent: parsed before OCR lines were kept
        lines = (kept or {}).get(str(number)) or []
        note, positions = "", "text_layer"
        if number in metadata.get("ocr_pages", []):
            glyphs, positions = ocr_glyphs(lines, scale), "ocr"
            if kept is None:
                note = "ocr_positions_missing"
        else:
            glyphs = text_layer_glyphs(page, image.size) + ocr_glyphs(lines, scale)
        rects = passage_rects(glyphs, passage) if glyphs else []
    finally:
        page.close()
    if not rects:
        positions, note = "none", note or "not_found_on_page"
    marked = highlighted(image, rects)
    close_up = excerpt(marked, rects)
    return PdfPage(number, png(marked), image.width, image.height, rects, positions, note,
                   excerpt_png=png(close_up) if close_up is not None else b"")
