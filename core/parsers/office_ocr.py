"""OCR of images embedded in Word and PowerPoint files, through the shared OCR module.

``core.parsers.ocr`` (RapidOCR, owned by the image/PDF parsers) is imported only when a
setting asks for embedded-image OCR, so ordinary documents never load an OCR model.
"""

from __future__ import annotations

import io

from core.errors import ParseError, UnsupportedFormat
from core.parsers.base import ParseContext

MIN_SIDE_PX = 24  # bullets, icons and spacer pixels hold no readable text


def ocr_embedded_image(data: bytes, ctx: ParseContext, what: str) -> str:
    """The text OCR reads in one embedded image ("" for none or a tiny image).

    Raises UnsupportedFormat for an image Pillow cannot decode (e.g. EMF/WMF vector
    drawings): callers record that as a warning and go on with the document.
    """
    from PIL import Image, UnidentifiedImageError

    try:
        import numpy as np

        from core.parsers.ocr import ocr_text
    except ImportError as exc:
        raise ParseError(
            "OCR of embedded images is switched on, but the OCR engine (core.parsers.ocr) is not available",
            detail=str(exc),
        ) from exc
    try:
        with Image.open(io.BytesIO(data)) as image:
            if min(image.size) < MIN_SIDE_PX:
                return ""
            rgb = np.asarray(image.convert("RGB"))
    except (UnidentifiedImageError, OSError, ValueError) as exc:
        raise UnsupportedFormat(f"{what}: image format not readable for OCR", detail=str(exc)) from exc
    bgr = np.ascontiguousarray(rgb[:, :, ::-1])  # the OCR engine takes OpenCV's channel order
    return ocr_text(bgr, timeout_seconds=ctx.settings.ocr_page_timeout_seconds, what=what).strip()
