"""Images (PNG, JPEG, WebP, BMP, TIFF, GIF): OCR, Chinese and English, in reading order.

Pillow decodes every format (OpenCV cannot read GIF, and TIFFs may hold several pages, each
becoming a part with its page number). Camera photos are turned upright by their EXIF tag.

A TIFF's pages are sized from their headers before any is decoded: each page and all of them
together must fit a pixel budget (a 2 MB file can declare a dozen 12000 x 12000 pages), and
then pages are decoded, scaled down and OCR'd one at a time, so memory holds one page.
"""

from __future__ import annotations

import io

import numpy as np
from PIL import Image, UnidentifiedImageError

from core.errors import ParseError
from core.messages import say
from core.parsers.base import ParseContext
from core.types import DocPart, ParsedDoc

MAX_PIXELS = 80_000_000  # one page, decompression-bomb guard: ~9000 x 9000 (~320 MB decoded as RGBA)
# All pages together: about 115 A4 pages scanned at 300 DPI, 260 at 200 DPI. Decoding is paid per
# pixel before OCR starts, so this bounds the work a small file can ask for.
MAX_TOTAL_PIXELS = 1_000_000_000
OCR_MAX_SIDE_PX = 3500  # larger images are scaled down before OCR
MAX_FRAMES = 200

# EXIF orientation -> the transpose that makes the picture upright (as ImageOps.exif_transpose)
_UPRIGHT = {
    2: Image.Transpose.FLIP_LEFT_RIGHT, 3: Image.Transpose.ROTATE_180, 4: Image.Transpose.FLIP_TOP_BOTTOM,
    5: Image.Transpose.TRANSPOSE, 6: Image.Transpose.ROTATE_270, 7: Image.Transpose.TRANSVERSE,
    8: Image.Transpose.ROTATE_90,
}
_ORIENTATION_TAG = 0x0112


def frame_sizes(image: Image.Image, source_name: str) -> tuple[list[tuple[int, int]], bool]:
    """(width, height) of each page to read, from the headers only, and whether pages beyond
    MAX_FRAMES were left out. Raises ParseError when a page or their sum is over the budget."""
    sizes: list[tuple[int, int]] = []
    total = 0
    truncated = False
    index = 0
    while True:
        width, height = image.size
        pixels = width * height
        what = source_name if index == 0 else f"page {index + 1} of {source_name}"
        if pixels > MAX_PIXELS:
            raise ParseError(f"{what} is {width} x {height} pixels, too large to OCR "
                             f"(limit {MAX_PIXELS // 1_000_000} megapixels per page)")
        total += pixels
        if total > MAX_TOTAL_PIXELS:
            raise ParseError(f"{source_name} holds more than {MAX_TOTAL_PIXELS // 1_000_000} megapixels in its first "
                             f"{index + 1} pages, more than can be OCR'd from one file: split it into smaller files")
        sizes.append((width, height))
        if image.format != "TIFF":
            break  # GIF/WebP animations: the first frame holds the picture
        if index + 1 >= MAX_FRAMES:
            truncated = _has_frame(image, index + 1)
            break
        if not _has_frame(image, index + 1):
            break
        index += 1
    image.seek(0)
    return sizes, truncated


def _has_frame(image: Image.Image, index: int) -> bool:
    """Moves to frame ``index`` when it exists (reads its header, decodes nothing)."""
    try:
        image.seek(index)
    except EOFError:
        return False
    return True


def _upright(frame: Image.Image) -> Image.Transpose | None:
    try:
        return _UPRIGHT.get(frame.getexif().get(_ORIENTATION_TAG))
    except (OSError, ValueError, SyntaxError):  # an unreadable EXIF block: keep the picture as it is
        return None


def to_ocr_array(frame: Image.Image) -> np.ndarray:
    """An upright RGB frame on white (transparency flattened), scaled to a bounded size, as BGR.

    Scaled first, while the picture is in its own mode, so no full-size RGB copy is ever made."""
    upright = _upright(frame)
    if frame.mode == "1":
        frame = frame.convert("L")  # bilevel scans: resampling needs grey levels
    elif frame.mode in ("P", "PA"):
        frame = frame.convert("RGBA")
    longest = max(frame.size)
    if longest > OCR_MAX_SIDE_PX:
        ratio = OCR_MAX_SIDE_PX / longest
        frame = frame.resize((max(1, round(frame.width * ratio)), max(1, round(frame.height * ratio))), Image.LANCZOS)
    if upright is not None:
        frame = frame.transpose(upright)
    if frame.mode in ("RGBA", "LA"):
        rgba = frame.convert("RGBA")
        background = Image.new("RGBA", rgba.size, (255, 255, 255, 255))
        frame = Image.alpha_composite(background, rgba)
    frame = frame.convert("RGB")
    return np.ascontiguousarray(np.asarray(frame)[:, :, ::-1])


def _open(data: bytes, source_name: str) -> tuple[Image.Image, list[tuple[int, int]], bool]:
    try:
        image = Image.open(io.BytesIO(data))
        sizes, truncated = frame_sizes(image, source_name)
    except Image.DecompressionBombError as exc:
        raise ParseError(f"{source_name} declares an enormous picture size (a decompression bomb?)", detail=str(exc)) from exc
    except (UnidentifiedImageError, OSError, SyntaxError, ValueError) as exc:
        raise ParseError(f"{source_name} is not a readable image (corrupt or truncated)", detail=str(exc)) from exc
    return image, sizes, truncated


def _decode(image: Image.Image, index: int, source_name: str) -> np.ndarray:
    """Page ``index`` only, decoded and scaled; nothing of the previous page stays in memory."""
    try:
        image.seek(index)
        image.load()
    except Image.DecompressionBombError as exc:
        raise ParseError(f"{source_name} declares an enormous picture size (a decompression bomb?)", detail=str(exc)) from exc
    except (OSError, ValueError, SyntaxError, EOFError) as exc:
        raise ParseError(f"{source_name} is not a readable image (corrupt or truncated)", detail=str(exc)) from exc
    try:
        return to_ocr_array(image)
    except (OSError, ValueError) as exc:
        raise ParseError(f"{source_name} could not be decoded (corrupt image data)", detail=str(exc)) from exc


class ImageParser:
    name = "image"

    def parse(self, data: bytes, source_name: str, ctx: ParseContext) -> ParsedDoc:
        image, sizes, truncated = _open(data, source_name)
        if not ctx.settings.ocr_enabled:
            raise ParseError(f"{source_name} is an image and OCR is turned off (setting parsing.ocr_enabled)")

        parts: list[DocPart] = []
        notes: list[str] = []
        if truncated:
            notes.append(f"{source_name} has more than {MAX_FRAMES} pages; only the first {MAX_FRAMES} were read")
        total = len(sizes)
        for index in range(total):
            ctx.progress(index, total, say("image.ocr", n=index + 1, total=total))
            array = _decode(image, index, source_name)
            from core.parsers.ocr import ocr_text  # OCR loads only once a picture has been decoded

            what = source_name if total == 1 else f"page {index + 1} of {source_name}"
            text = ocr_text(array, timeout_seconds=ctx.settings.ocr_page_timeout_seconds, what=what, notes=notes)
            del array
            if text.strip():
                parts.append(DocPart(text=text, page=index + 1 if total > 1 else None))
        ctx.progress(total, total, say("image.done"))
        width, height = sizes[0]
        return ParsedDoc(
            source_name=source_name,
            mime=Image.MIME.get(image.format or "", "image/*"),
            parts=parts,
            metadata={"format": image.format, "width": width, "height": height, "frames": total},
            warnings=notes,
        )


PARSER = ImageParser()
