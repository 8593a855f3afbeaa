"""A PDF page rendered with the cited passage highlighted.

Positions come from the page's text layer (pdfium's character boxes, mapped to the rendered
image by pdfium itself, so rotated pages come out right) or, for a scanned page and for text
inside pictures, from the OCR lines the parser kept (``ParsedDoc.metadata["ocr_lines"]``, in
page points); inside an OCR line characters are spread evenly over its width. The passage is
located by core/citations/match.py and the marked characters become one rectangle per line
stretch, drawn server-side with Pillow. A page read by OCR before lines were kept (an older
knowledge base) is shown without a highlight, and the view says so.
"""

from __future__ import annotations

import ctypes
import io
from dataclasses import dataclass

import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_c
from PIL import Image, ImageDraw

from core.citations.match import marked_indexes
from core.citations.types import Rect

DPI = 110  # a page readable on a laptop screen (an A4 page is 909 x 1286 px)
MAX_SIDE_PX = 1600  # posters and drawings are scaled down to this
PAD_PX = 2.0
FILL = (255, 214, 0, 96)  # translucent yellow, the text stays readable under it
OUTLINE = (214, 120, 0, 255)
EXCERPT_MARGIN_PX = 48


@dataclass(frozen=True)
class Glyph:
    """One character with its box in image pixels."""

    ch: str
    x0: float
    top: float
    x1: float
    bottom: float


def render_scale(page: pdfium.PdfPage) -> float:
    width, height = page.get_size()
    return min(DPI / 72.0, MAX_SIDE_PX / max(width, height, 1.0))


def text_layer_glyphs(page: pdfium.PdfPage, size: tuple[int, int]) -> list[Glyph]:
    """The page's characters in content order, boxes mapped onto an image of ``size`` pixels."""
    textpage = page.get_textpage()
    try:
        raw = textpage.raw
        count = pdfium_c.FPDFText_CountChars(raw)
        rect = pdfium_c.FS_RECTF()
        dx, dy = ctypes.c_int(), ctypes.c_int()
        glyphs: list[Glyph] = []

        def device(x: float, y: float) -> tuple[int, int]:
            pdfium_c.FPDF_PageToDevice(page.raw, 0, 0, size[0], size[1], 0, x, y, ctypes.byref(dx), ctypes.byref(dy))
            return dx.value, dy.value

        for i in range(count):
            code = pdfium_c.FPDFText_GetUnicode(raw, i)
            if code < 32 or not 0 < code < 0x110000:
                continue
            if not pdfium_c.FPDFText_GetLooseCharBox(raw, i, ctypes.byref(rect)):
                continue
            (ax, ay), (bx, by) = device(rect.left, rect.top), device(rect.right, rect.bottom)
            glyphs.append(Glyph(chr(code), min(ax, bx), min(ay, by), max(ax, bx), max(ay, by)))
        return glyphs
    finally:
        textpage.close()


def ocr_glyphs(lines: list[list], scale: float) -> list[Glyph]:
    """OCR lines ([x0, top, x1, bottom, text] in points) as characters spread over each line."""
    glyphs: list[Glyph] = []
    for x0, top, x1, bottom, text in lines:
        if not text:
            continue
        step = (x1 - x0) / len(text)
        for i, ch in enumerate(text):
            glyphs.append(Glyph(ch, (x0 + i * step) * scale, top * scale, (x0 + (i + 1) * step) * scale, bottom * scale))
        glyphs.append(Glyph(" ", x1 * scale, top * scale, x1 * scale, bottom * scale))  # lines do not run together
    return glyphs


def passage_rects(glyphs: list[Glyph], passage: str) -> list[Rect]:
    """One rectangle per stretch of the passage's characters on one line, padded a little."""
    marked = sorted(marked_indexes([g.ch for g in glyphs], passage))
    rects: list[list[float]] = []
    for i in marked:
        g = glyphs[i]
        if g.ch.isspace() or g.x1 <= g.x0:
            continue
        height = max(g.bottom - g.top, 1.0)
        middle = (g.top + g.bottom) / 2
        last = rects[-1] if rects else None
        if last and last[1] <= middle <= last[3] and g.x0 >= last[0] - height and g.x0 - last[2] <= 2 * height:
            last[1], last[2], last[3] = min(last[1], g.top), max(last[2], g.x1), max(last[3], g.bottom)
        else:
            rects.append([g.x0, g.top, g.x1, g.bottom])
    return [Rect(x0 - PAD_PX, top - PAD_PX, x1 + PAD_PX, bottom + PAD_PX) for x0, top, x1, bottom in rects]


def render_page(page: pdfium.PdfPage) -> Image.Image:
    bitmap = page.render(scale=render_scale(page), may_draw_forms=True)
    try:
        return bitmap.to_pil().convert("RGB")
    finally:
        bitmap.close()


def highlighted(image: Image.Image, rects: list[Rect]) -> Image.Image:
    """The image with the rectangles drawn over it."""
    if not rects:
        return image
    overlay = Image.new("RGBA", image.size, (0, 0, 0, 0))
    pen = ImageDraw.Draw(overlay)
    for r in rects:
        pen.rectangle((r.x0, r.top, r.x1, r.bottom), fill=FILL, outline=OUTLINE, width=2)
    return Image.alpha_composite(image.convert("RGBA"), overlay).convert("RGB")


def excerpt(image: Image.Image, rects: list[Rect]) -> Image.Image | None:
    """The highlighted stretch of the page with a margin around it: readable on a phone, where the
    whole page is shown a third of its size."""
    if not rects:
        return None
    left = max(0, int(min(r.x0 for r in rects) - EXCERPT_MARGIN_PX))
    top = max(0, int(min(r.top for r in rects) - EXCERPT_MARGIN_PX))
    right = min(image.width, int(max(r.x1 for r in rects) + EXCERPT_MARGIN_PX))
    bottom = min(image.height, int(max(r.bottom for r in rects) + EXCERPT_MARGIN_PX))
    return image.crop((left, top, right, bottom))


def png(image: Image.Image) -> bytes:
    out = io.BytesIO()
    image.save(out, format="PNG", optimize=False, compress_level=6)
    return out.getvalue()
