"""The text layer and ruling lines of one PDF page, read with pypdfium2.

pdfium is used instead of pdfminer (under pdfplumber) for speed: it reads the shared text PDFs
at well over 100 pages/s where pdfplumber manages about 10 (measured in docs/parsers.md).
Characters become words (split at spaces and at jumps in position), words carry boxes in
top-down page coordinates, and rotated text (margin stamps) is kept apart so it does not
disturb the column detection.
"""

from __future__ import annotations

import ctypes
import math
import unicodedata
from dataclasses import dataclass, field

import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_c

from core.parsers.layout import Box

_SPACES = {" ", "\t", "\r", "\n", "\xa0", "\u3000", "\u2002", "\u2003", "\u2009", "\u200b"}
_ROTATION_TOLERANCE = 0.05  # radians
SOFT_HYPHEN = "\u00ad"  # ends a word split across lines; joined again after layout


@dataclass
class PageText:
    width: float
    height: float
    words: list[Box] = field(default_factory=list)
    rotated_text: str = ""
    char_count: int = 0  # non-space characters
    real_char_count: int = 0  # letters, digits, punctuation, symbols (not private-use or unmapped)

    @property
    def real_share(self) -> float:
        return self.real_char_count / self.char_count if self.char_count else 0.0


def _is_real(ch: str) -> bool:
    if ch == "\ufffd":
        return False
    category = unicodedata.category(ch)
    return category[0] in "LNPS" and category != "Co"


def read_page_text(page: pdfium.PdfPage) -> PageText:
    width, height = page.get_size()
    if page.get_rotation() % 180 == 90:
        # Character boxes are in the unrotated page space: lay text out in that space.
        width, height = height, width
    result = PageText(width=width, height=height)
    textpage = page.get_textpage()
    try:
        _collect_words(textpage.raw, height, result)
    finally:
        textpage.close()
    return result


def _char_codes(raw_textpage, count: int) -> list[int]:
    """Every character's code point, read in one call (per-character calls cost more)."""
    buffer = (ctypes.c_ushort * (count + 1))()
    written = pdfium_c.FPDFText_GetText(raw_textpage, 0, count, buffer)
    if written - 1 == count:
        units = buffer[:count]
        if not any(0xD800 <= u <= 0xDFFF for u in units):
            return list(units)
    # Characters outside the BMP arrive as surrogate pairs: ask per character instead.
    return [pdfium_c.FPDFText_GetUnicode(raw_textpage, i) for i in range(count)]


def _collect_words(raw_textpage, page_height: float, out: PageText) -> None:
    # A hot loop (thousands of characters per page): ctypes functions and the rect pointer
    # are bound to locals, boxes are plain floats.
    count = pdfium_c.FPDFText_CountChars(raw_textpage)
    codes = _char_codes(raw_textpage, count)
    get_box = pdfium_c.FPDFText_GetLooseCharBox
    get_angle = pdfium_c.FPDFText_GetCharAngle
    rect = pdfium_c.FS_RECTF()
    rect_ref = ctypes.byref(rect)
    max_angle = 2 * math.pi - _ROTATION_TOLERANCE
    words = out.words
    word_chars: list[str] = []
    wx0 = wtop = wx1 = wbottom = 0.0  # box of the word being built
    px0 = px1 = pcy = 0.0  # previous character
    have_prev = False
    rotated: list[str] = []
    chars = real = 0

    for i in range(count):
        code = codes[i]
        if code == 2 or code == 0xFFFE:  # pdfium's line-end hyphen mark (per-char / bulk reads)
            ch = SOFT_HYPHEN
        else:
            ch = chr(code) if 0 < code < 0x110000 else "\ufffd"
            if code < 32 or ch in _SPACES:
                if word_chars:
                    words.append(Box(wx0, wtop, wx1, wbottom, "".join(word_chars)))
                    word_chars = []
                have_prev = False
                if rotated and rotated[-1] != " ":
                    rotated.append(" ")
                continue
        chars += 1
        real += _is_real(ch)
        if not get_box(raw_textpage, i, rect_ref):
            continue
        x0, x1 = rect.left, rect.right
        top, bottom = page_height - rect.top, page_height - rect.bottom
        height = bottom - top if bottom - top > 1.0 else 1.0
        cy = (top + bottom) / 2
        # Same line and adjacent; ligature parts share one box, so overlap is fine, going
        # back to the left is not.
        continues = have_prev and abs(cy - pcy) < 0.5 * height and x0 >= px0 - 0.1 * height and x0 - px1 < 0.25 * height
        if not continues:
            # Only a character that does not continue a horizontal word can be rotated text
            # (rotated characters step up or down the page), so only those are asked.
            angle = get_angle(raw_textpage, i)
            if _ROTATION_TOLERANCE < angle < max_angle:
                if word_chars:
                    words.append(Box(wx0, wtop, wx1, wbottom, "".join(word_chars)))
                    word_chars = []
                have_prev = False
                rotated.append(ch)
                continue
            if word_chars:
                words.append(Box(wx0, wtop, wx1, wbottom, "".join(word_chars)))
                word_chars = []
        if not word_chars:
            wx0, wtop, wx1, wbottom = x0, top, x1, bottom
        else:
            if x0 < wx0:
                wx0 = x0
            if top < wtop:
                wtop = top
            if x1 > wx1:
                wx1 = x1
            if bottom > wbottom:
                wbottom = bottom
        word_chars.append(ch)
        px0, px1, pcy, have_prev = x0, x1, cy, True
    if word_chars:
        words.append(Box(wx0, wtop, wx1, wbottom, "".join(word_chars)))
    out.char_count += chars
    out.real_char_count += real
    out.rotated_text = "".join(rotated).strip()


def read_page_edges(page: pdfium.PdfPage, page_height: float) -> list[dict]:
    """Horizontal and vertical ruling segments (stroked lines and rectangle sides), as
    pdfplumber-style edge dicts in top-down coordinates."""
    edges: list[dict] = []
    for obj in page.get_objects(filter=[pdfium_c.FPDF_PAGEOBJ_PATH], max_depth=3):
        matrix = obj.get_matrix()
        segments = pdfium_c.FPDFPath_CountSegments(obj.raw)
        if segments <= 0 or segments > 400:
            continue
        start = current = None
        x = ctypes.c_float()
        y = ctypes.c_float()
        for s in range(segments):
            segment = pdfium_c.FPDFPath_GetPathSegment(obj.raw, s)
            pdfium_c.FPDFPathSegment_GetPoint(segment, ctypes.byref(x), ctypes.byref(y))
            point = matrix.on_point(x.value, y.value)
            kind = pdfium_c.FPDFPathSegment_GetType(segment)
            if kind == pdfium_c.FPDF_SEGMENT_MOVETO:
                start = current = point
                continue
            if kind == pdfium_c.FPDF_SEGMENT_LINETO and current is not None:
                _add_edge(edges, current, point, page_height)
            current = point
            if pdfium_c.FPDFPathSegment_GetClose(segment) and start is not None:
                _add_edge(edges, current, start, page_height)
                current = start
    return edges


def _add_edge(edges: list[dict], a: tuple[float, float], b: tuple[float, float], page_height: float) -> None:
    (ax, ay), (bx, by) = a, b
    if abs(ay - by) < 1.0 and abs(ax - bx) >= 2.0:
        x0, x1 = sorted((ax, bx))
        top = page_height - (ay + by) / 2
        edges.append({"x0": x0, "x1": x1, "top": top, "bottom": top, "width": x1 - x0, "height": 0.0,
                      "orientation": "h", "object_type": "line"})
    elif abs(ax - bx) < 1.0 and abs(ay - by) >= 2.0:
        top, bottom = sorted((page_height - ay, page_height - by))
        x = (ax + bx) / 2
        edges.append({"x0": x, "x1": x, "top": top, "bottom": bottom, "width": 0.0, "height": bottom - top,
                      "orientation": "v", "object_type": "line"})
