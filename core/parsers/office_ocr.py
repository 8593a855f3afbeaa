"""OCR of images embedded in Word and PowerPoint files, through the shared OCR module.

The OCR engine lives in ``core.parsers.ocr`` (owned by the image/PDF parsers). It is
imported only when a setting asks for embedded-image OCR, so documents without that
setting never load an OCR model.
"""

from __future__ import annotations

import importlib

from core.errors import ParseError
from core.parsers.base import ParseContext


def ocr_embedded_image(data: bytes, ctx: ParseContext) -> str:
    """The text RapidOCR reads in one embedded image ("" when it reads none)."""
    try:
        ocr = importlib.import_module("core.parsers.ocr")
    except ImportError as exc:
        raise ParseError(
            "OCR of embedded images is switched on, but the OCR engine (core.parsers.ocr) is not available",
            detail=str(exc),
        ) from exc
    reader = getattr(ocr, "ocr_image_bytes", None)
    if reader is None:
        raise ParseError("OCR of embedded images is switched on, but core.parsers.ocr has no ocr_image_bytes()")
    return reader(data, ctx).strip()
