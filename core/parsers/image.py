"""Images (PNG, JPEG, WebP, BMP, TIFF, GIF): OCR, Chinese and English, in reading order.

Pillow decodes every format (OpenCV cannot read GIF, and TIFFs may hold several pages, each
becoming a part with its page number). Camera photos are turned upright by their EXIF tag.
"""

from __future__ import annotations

import io

import numpy as np
from PIL import Image, ImageOps, ImageSequence, UnidentifiedImageError

from core.errors import ParseError
from core.parsers.base import ParseContext
from core.types import DocPart, ParsedDoc

MAX_PIXELS = 80_000_000  # decompression-bomb guard: ~9000 x 9000
OCR_MAX_SIDE_PX = 3500  # larger images are scaled down before OCR
MAX_FRAMES = 200


def _frames(image: Image.Image) -> list[Image.Image]:
    frames = []
    for index, frame in enumerate(ImageSequence.Iterator(image)):
        if index >= MAX_FRAMES:
            break
        frames.append(frame.copy())
        if image.format != "TIFF":
            break  # GIF/WebP animations: the first frame holds the picture
    return frames


def to_ocr_array(frame: Image.Image) -> np.ndarray:
    """An upright RGB frame on white (transparency flattened), scaled to a bounded size, as BGR."""
    frame = ImageOps.exif_transpose(frame) or frame
    if frame.mode in ("RGBA", "LA", "P", "PA"):
        rgba = frame.convert("RGBA")
        background = Image.new("RGBA", rgba.size, (255, 255, 255, 255))
        frame = Image.alpha_composite(background, rgba)
    frame = frame.convert("RGB")
    longest = max(frame.size)
    if longest > OCR_MAX_SIDE_PX:
        ratio = OCR_MAX_SIDE_PX / longest
        frame = frame.resize((max(1, round(frame.width * ratio)), max(1, round(frame.height * ratio))), Image.LANCZOS)
    return np.ascontiguousarray(np.asarray(frame)[:, :, ::-1])


class ImageParser:
    name = "image"

    def parse(self, data: bytes, source_name: str, ctx: ParseContext) -> ParsedDoc:
        try:
            image = Image.open(io.BytesIO(data))
            if image.width * image.height > MAX_PIXELS:
                raise ParseError(
                    f"{source_name} is {image.width} x {image.height} pixels, too large to OCR "
                    f"(limit {MAX_PIXELS // 1_000_000} megapixels)"
                )
            frames = _frames(image)
        except Image.DecompressionBombError as exc:
            raise ParseError(f"{source_name} declares an enormous picture size (a decompression bomb?)", detail=str(exc)) from exc
        except (UnidentifiedImageError, OSError, SyntaxError, ValueError) as exc:
            raise ParseError(f"{source_name} is not a readable image (corrupt or truncated)", detail=str(exc)) from exc
        if not ctx.settings.ocr_enabled:
            raise ParseError(f"{source_name} is an image and OCR is turned off (setting parsing.ocr_enabled)")

        from core.parsers.ocr import ocr_text  # OCR loads only when an image arrives

        parts: list[DocPart] = []
        notes: list[str] = []
        total = len(frames)
        for index, frame in enumerate(frames):
            ctx.progress(index, total, f"OCR of image {index + 1} of {total}")
            try:
                array = to_ocr_array(frame)
            except (OSError, ValueError) as exc:
                raise ParseError(f"{source_name} could not be decoded (corrupt image data)", detail=str(exc)) from exc
            what = source_name if total == 1 else f"page {index + 1} of {source_name}"
            text = ocr_text(array, timeout_seconds=ctx.settings.ocr_page_timeout_seconds, what=what, notes=notes)
            if text.strip():
                parts.append(DocPart(text=text, page=index + 1 if total > 1 else None))
        ctx.progress(total, total, "OCR done")
        return ParsedDoc(
            source_name=source_name,
            mime=Image.MIME.get(image.format or "", "image/*"),
            parts=parts,
            metadata={"format": image.format, "width": image.width, "height": image.height, "frames": total},
            warnings=notes,
        )


PARSER = ImageParser()
