"""Image parser checks that need no OCR run (the OCR ones are in test_ocr.py)."""

import struct
import warnings
import zlib

import pytest

from core.errors import ParseError
from core.parsers.base import ParseContext
from core.parsers.registry import parse_bytes
from core.settings.model import ParsingSettings


def _png_header(width: int, height: int) -> bytes:
    """A PNG that declares its size but carries no pixels."""
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    chunk = b"IHDR" + ihdr
    end = struct.pack(">I", 0) + b"IEND" + struct.pack(">I", zlib.crc32(b"IEND"))
    return b"\x89PNG\r\n\x1a\n" + struct.pack(">I", len(ihdr)) + chunk + struct.pack(">I", zlib.crc32(chunk)) + end


def test_corrupt_image_fails_alone_with_its_reason():
    with pytest.raises(ParseError, match="not a readable image"):
        parse_bytes(_png_header(40, 20) + b"\x00garbage-instead-of-pixel-data", "broken.png")


@pytest.mark.parametrize("side", [10_000, 20_000])
def test_huge_declared_size_is_refused_before_decoding(side):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # Pillow warns about the size before we refuse it
        with pytest.raises(ParseError, match="too large to OCR|decompression bomb"):
            parse_bytes(_png_header(side, side), "huge.png")


def test_image_with_ocr_turned_off_says_so():
    from PIL import Image
    import io

    buffer = io.BytesIO()
    Image.new("RGB", (64, 32), "white").save(buffer, format="WEBP")
    with pytest.raises(ParseError, match="OCR is turned off"):
        parse_bytes(buffer.getvalue(), "photo.webp", ParseContext(settings=ParsingSettings(ocr_enabled=False)))
