"""What a PDF's compressed streams expand to, checked before pdfium opens the file.

pdfium inflates a page's content stream whole when the page is read: a stream of a few MB on disk
that deflates to gigabytes of spaces (a flate bomb) took a 1 GB content stream to 2.2 GB
resident. Here every Flate stream but an image's is inflated in 1 MB steps and thrown away, and
the file is refused once one of them would pass ``MAX_STREAM_MB`` — memory stays flat and the
work stops at the limit. Images are left to pdfium, which inflates an image only to the size its
width and height declare (their pixels are checked by the OCR path before any render).

A stream is found by its ``stream`` keyword after an object's dictionary; a damaged or encrypted
stream that does not inflate is left to pdfium, which reports it as the file's own error.
"""

from __future__ import annotations

import re
import zlib

from core.errors import FileTooLarge

MAX_STREAM_MB = 256  # a content stream is a few MB at most in practice; CAD drawings reach ~100 MB
_STEP = 1 << 20  # output inflated (and dropped) at a time
_FEED = 1 << 16  # input handed to the inflater at a time
_HEAD = 4096  # how far back an object's dictionary is looked for
_FLATE = re.compile(rb"/FlateDecode\b|/Fl\b")
_IMAGE = re.compile(rb"/Subtype\s*/Image\b")


def _inflated_over(data: bytes, start: int, limit: int) -> bool:
    """Whether the Flate stream starting at ``start`` inflates past ``limit`` bytes."""
    inflater, view = zlib.decompressobj(), memoryview(data)
    total, position = 0, start
    try:
        while position < len(data) and total <= limit and not inflater.eof:
            total += len(inflater.decompress(view[position:position + _FEED], _STEP))
            position += _FEED
            while inflater.unconsumed_tail and total <= limit and not inflater.eof:
                total += len(inflater.decompress(inflater.unconsumed_tail, _STEP))
    except zlib.error:
        return False  # not (only) Flate data here, or damaged: pdfium decides
    return total > limit


def _streams(data: bytes):
    """(dictionary bytes, where the data starts) of every stream, found by its keyword."""
    at = data.find(b"stream")
    while at != -1:
        after = at + len(b"stream")
        if data[at - 3:at] != b"end" and data[after:after + 1] in (b"\r", b"\n"):
            window = data[max(0, at - _HEAD):at]
            head = window[window.rfind(b"obj") + 3:] if b"obj" in window else window
            yield head, after + (2 if data[after:after + 2] == b"\r\n" else 1)
        at = data.find(b"stream", after)


def check_streams(data: bytes, source_name: str, max_mb: int = MAX_STREAM_MB) -> None:
    """Refuse ``data`` (FileTooLarge) when one of its non-image Flate streams inflates past ``max_mb``."""
    limit = max_mb << 20
    for head, start in _streams(data):
        if not _FLATE.search(head) or _IMAGE.search(head):
            continue
        if _inflated_over(data, start, limit):
            raise FileTooLarge(
                f"{source_name} holds a compressed stream that expands to more than {max_mb} MB (a compression "
                "bomb, or a drawing far too large to read as text): it was refused before it was read")
