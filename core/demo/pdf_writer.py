"""A small PDF writer for the generated demo documents: text lines, ruled lines, and a page that is
only a picture (a "scan"). No PDF library ships with ragdesk that writes files; the format for
this much is short enough to write directly.

Text uses the standard Helvetica font (not embedded; every reader has it), so it is Latin-1 text
only. A picture page holds one 8-bit grayscale image, Flate-compressed, filling the page, and no
text layer: a reader sees the text, a parser has to OCR it. The output is byte-for-byte the same
for the same input, so a second demo load is recognised as a duplicate.
"""

from __future__ import annotations

import io
import zlib
from dataclasses import dataclass, field

from core.errors import InvalidInput

A4 = (595.0, 842.0)  # points


@dataclass
class TextPage:
    """Coordinates are points from the top-left corner."""

    size: tuple[float, float] = A4
    texts: list[tuple[float, float, float, str]] = field(default_factory=list)  # x, y (baseline), font size, text
    lines: list[tuple[float, float, float, float]] = field(default_factory=list)  # x0, y0, x1, y1

    def text(self, x: float, y: float, text: str, size: float = 11.0) -> "TextPage":
        try:
            text.encode("latin-1")
        except UnicodeEncodeError:
            raise InvalidInput(f"the demo PDF writer draws Latin-1 text only: {text!r}") from None
        self.texts.append((x, y, size, text))
        return self

    def line(self, x0: float, y0: float, x1: float, y1: float) -> "TextPage":
        self.lines.append((x0, y0, x1, y1))
        return self


@dataclass
class PicturePage:
    """One grayscale picture covering the page: ``pixels`` is width × height bytes, row by row."""

    width: int
    height: int
    pixels: bytes
    size: tuple[float, float] = A4


def _escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")


def _text_stream(page: TextPage) -> bytes:
    height = page.size[1]
    ops = ["0.6 w"]
    ops += [f"{x0:.2f} {height - y0:.2f} m {x1:.2f} {height - y1:.2f} l S" for x0, y0, x1, y1 in page.lines]
    ops += [f"BT /F1 {size:g} Tf {x:.2f} {height - y:.2f} Td ({_escape(text)}) Tj ET" for x, y, size, text in page.texts]
    return "\n".join(ops).encode("latin-1")


def _stream(head: str, data: bytes) -> bytes:
    return f"<< {head} /Length {len(data)} >>\nstream\n".encode() + data + b"\nendstream"


def write_pdf(pages: list[TextPage | PicturePage]) -> bytes:
    objects: list[bytes] = [b"<< /Type /Catalog /Pages 2 0 R >>", b"",
                            b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>"]
    kids = []
    for page in pages:
        w, h = page.size
        if isinstance(page, PicturePage):
            if len(page.pixels) != page.width * page.height:
                raise InvalidInput("a picture page needs width × height grayscale bytes")
            objects.append(_stream(f"/Type /XObject /Subtype /Image /Width {page.width} /Height {page.height} "
                                   "/ColorSpace /DeviceGray /BitsPerComponent 8 /Filter /FlateDecode",
                                   zlib.compress(page.pixels, 9)))
            image = len(objects)
            objects.append(_stream("", f"q {w:.2f} 0 0 {h:.2f} 0 0 cm /Im1 Do Q".encode()))
            resources = f"/XObject << /Im1 {image} 0 R >>"
        else:
            objects.append(_stream("", _text_stream(page)))
            resources = "/Font << /F1 3 0 R >>"
        content = len(objects)
        objects.append(f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 {w:.0f} {h:.0f}] /Resources << {resources} >> "
                       f"/Contents {content} 0 R >>".encode())
        kids.append(f"{len(objects)} 0 R")
    objects[1] = f"<< /Type /Pages /Kids [{' '.join(kids)}] /Count {len(kids)} >>".encode()
    out = io.BytesIO()
    out.write(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(out.tell())
        out.write(f"{number} 0 obj\n".encode() + body + b"\nendobj\n")
    xref = out.tell()
    out.write(f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode())
    out.write("".join(f"{offset:010d} 00000 n \n" for offset in offsets).encode())
    out.write(f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode())
    return out.getvalue()
