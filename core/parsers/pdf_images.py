"""OCR of the pictures on a PDF page that keeps its text layer.

A page is OCR'd whole only when it is a scan (pdf.ocr_reason). Other pages may still carry
text inside pictures: a screenshot or a poster beside a caption, or a small scanned table
on an otherwise empty page. Each picture large enough to hold text is rendered on its own
(what the reader sees there, at the OCR resolution) and read by OCR; its lines, in their own
reading order, become one block placed where the picture stands on the page. A line the
text layer already holds (text typed over a picture) is not added twice. Pages without such
pictures never load OCR.
"""

from __future__ import annotations

from dataclasses import dataclass

import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_c

from core.parsers.layout import Box

MIN_SIDE_PT = 54.0  # 3/4 inch: smaller pictures are icons, bullets, logos
MIN_PAGE_SHARE = 0.02  # of the page's area
MAX_REGIONS = 6  # the largest pictures of a page, merged where they overlap
MAX_SIDE_PX = 3500
COVERED_SHARE = 0.5  # an OCR line this much covered by text-layer words is already known


@dataclass(frozen=True)
class Region:
    """A rectangle on the page in points, y growing downward."""

    left: float
    top: float
    right: float
    bottom: float

    @property
    def area(self) -> float:
        return (self.right - self.left) * (self.bottom - self.top)

    def overlaps(self, other: "Region") -> bool:
        return self.left < other.right and other.left < self.right and self.top < other.bottom and other.top < self.bottom

    def union(self, other: "Region") -> "Region":
        return Region(min(self.left, other.left), min(self.top, other.top), max(self.right, other.right), max(self.bottom, other.bottom))


def picture_regions(page: pdfium.PdfPage) -> list[Region]:
    """Top-level pictures on an unrotated page that are large enough to hold text."""
    if page.get_rotation() % 360 != 0:
        return []  # object bounds are in unrotated space; rotated pages are OCR'd whole when scanned
    width, height = page.get_size()
    regions: list[Region] = []
    for obj in page.get_objects(filter=[pdfium_c.FPDF_PAGEOBJ_IMAGE], max_depth=0):
        left, bottom, right, top = obj.get_bounds()
        left, right = max(0.0, left), min(width, right)
        bottom, top = max(0.0, bottom), min(height, top)
        region = Region(left, height - top, right, height - bottom)
        if min(right - left, top - bottom) >= MIN_SIDE_PT and region.area >= MIN_PAGE_SHARE * width * height:
            regions.append(region)
    merged: list[Region] = []
    for region in sorted(regions, key=lambda r: r.area, reverse=True):
        for i, other in enumerate(merged):
            if region.overlaps(other):
                merged[i] = other.union(region)
                break
        else:
            merged.append(region)
    return merged[:MAX_REGIONS]


def render_region(page: pdfium.PdfPage, region: Region, dpi: int):
    """The region as rendered on the page (BGR numpy array) and its scale in pixels per point."""
    width, height = page.get_size()
    scale = min(dpi / 72.0, MAX_SIDE_PX / max(region.right - region.left, region.bottom - region.top, 1.0))
    crop = (region.left, height - region.bottom, width - region.right, region.top)  # points cut off each side
    bitmap = page.render(scale=scale, crop=crop, may_draw_forms=True)
    try:
        return bitmap.to_numpy().copy(), scale
    finally:
        bitmap.close()


def _covered(line: Box, words: list[Box]) -> bool:
    inside = [w for w in words if line.x0 <= (w.x0 + w.x1) / 2 <= line.x1 and line.top <= w.cy <= line.bottom]
    return sum(w.x1 - w.x0 for w in inside) >= COVERED_SHARE * (line.x1 - line.x0)


def ocr_pictures(page: pdfium.PdfPage, regions: list[Region], words: list[Box], *, dpi: int,
                 timeout_seconds: float, what: str, notes: list[str] | None = None,
                 placed_lines: list[Box] | None = None) -> list[Box]:
    """One block per picture holding its text in its own reading order, placed where the
    picture stands; lines the text layer already has are left out. ``placed_lines``, when
    given, receives those lines one by one in page points (to highlight a citation later)."""
    from core.parsers.ocr import ocr_boxes, ocr_reading_text  # loads OCR only when a page has such pictures

    blocks: list[Box] = []
    for n, region in enumerate(regions, start=1):
        image, scale = render_region(page, region, dpi)
        lines: list[Box] = []
        for box in ocr_boxes(image, timeout_seconds=timeout_seconds, what=f"{what}, picture {n}", notes=notes):
            placed = Box(region.left + box.x0 / scale, region.top + box.top / scale,
                         region.left + box.x1 / scale, region.top + box.bottom / scale, box.text)
            if not _covered(placed, words):
                lines.append(placed)
                if placed_lines is not None:
                    placed_lines.append(placed)
        text = ocr_reading_text(lines)
        if text.strip():
            blocks.append(Box(region.left, region.top, region.right, region.bottom, text, is_block=True))
    return blocks
