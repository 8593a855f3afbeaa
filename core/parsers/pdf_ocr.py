"""One PDF page read by OCR: rendered with pypdfium2, its lines placed back in page points.

Its own module because both the parser (pdf.py, one page at a time) and the OCR worker
processes (ocr_pool.py) read pages this way, and the pool is what the parser drives.
"""

from __future__ import annotations

import pypdfium2 as pdfium

from core.parsers.layout import Box

OCR_MAX_SIDE_PX = 3500  # renders larger than this (posters, A0 drawings) are scaled down


def ocr_scale(page: pdfium.PdfPage, dpi: int) -> float:
    """Pixels per point of the page's OCR rendering (capped so the longer side stays bounded)."""
    width, height = page.get_size()
    return min(dpi / 72.0, OCR_MAX_SIDE_PX / max(width, height, 1.0))


def render_for_ocr(page: pdfium.PdfPage, dpi: int):
    """The page as a BGR numpy array at `dpi` (capped so the longer side stays bounded)."""
    bitmap = page.render(scale=ocr_scale(page, dpi), may_draw_forms=True)
    try:
        return bitmap.to_numpy().copy()
    finally:
        bitmap.close()


def ocr_page(page: pdfium.PdfPage, number: int, *, dpi: int, timeout_seconds: float,
             notes: list[str]) -> tuple[str, list[Box]]:
    """The page's OCR text and its lines, placed in page points (y from the top of the page as
    shown). Runs in this process or in an OCR worker (ocr_pool.py)."""
    from core.parsers.ocr import ocr_boxes, ocr_reading_text  # loads OCR only when a page needs it

    scale = ocr_scale(page, dpi)
    image = render_for_ocr(page, dpi)
    boxes = ocr_boxes(image, timeout_seconds=timeout_seconds, what=f"page {number}", notes=notes)
    lines = [Box(b.x0 / scale, b.top / scale, b.x1 / scale, b.bottom / scale, b.text) for b in boxes]
    return ocr_reading_text(boxes), lines
