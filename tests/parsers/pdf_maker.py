"""Small PDFs written by hand for the parser tests (no PDF library needed).

Text uses Helvetica for ASCII and the standard Chinese font STSong-Light (UniGB-UCS2-H, not
embedded; readers map it back to Unicode) for anything else, so a generated page has a real
Chinese text layer. Lines can be drawn for ruled tables. Scanned pages are made by rendering
text into an image with Pillow and a CJK font, then saving that image as a PDF.
"""

from __future__ import annotations

import io
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

import pytest

PAGE_W, PAGE_H = 595.0, 842.0  # A4 in points


@dataclass
class Page:
    texts: list[tuple[float, float, float, str]] = field(default_factory=list)  # x, y from top, size, text
    lines: list[tuple[float, float, float, float]] = field(default_factory=list)  # x0, y0, x1, y1 from top
    garbled: list[tuple[float, float, float, str]] = field(default_factory=list)  # text whose Unicode map is broken

    def text(self, x: float, y: float, text: str, size: float = 11.0) -> "Page":
        self.texts.append((x, y, size, text))
        return self

    def garbled_text(self, x: float, y: float, text: str, size: float = 11.0) -> "Page":
        """Text in a font whose ToUnicode map points into the private-use area (a broken
        export): it renders, but extracts as meaningless characters."""
        self.garbled.append((x, y, size, text))
        return self

    def line(self, x0: float, y0: float, x1: float, y1: float) -> "Page":
        self.lines.append((x0, y0, x1, y1))
        return self


def _literal(text: str) -> str:
    return "(" + text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)") + ")"


def _content(page: Page) -> bytes:
    ops = ["0.5 w"]
    for x0, y0, x1, y1 in page.lines:
        ops.append(f"{x0:.2f} {PAGE_H - y0:.2f} m {x1:.2f} {PAGE_H - y1:.2f} l S")
    for x, y, size, text in page.texts:
        if text.isascii():
            ops.append(f"BT /F1 {size} Tf {x:.2f} {PAGE_H - y:.2f} Td {_literal(text)} Tj ET")
        else:
            hexed = text.encode("utf-16-be").hex().upper()
            ops.append(f"BT /F2 {size} Tf {x:.2f} {PAGE_H - y:.2f} Td <{hexed}> Tj ET")
    for x, y, size, text in page.garbled:
        codes = "".join(f"{ord(c):04X}" for c in text)
        ops.append(f"BT /F3 {size} Tf {x:.2f} {PAGE_H - y:.2f} Td <{codes}> Tj ET")
    return "\n".join(ops).encode("latin-1")


_PRIVATE_USE_CMAP = b"""/CIDInit /ProcSet findresource begin 12 dict begin begincmap
/CIDSystemInfo << /Registry (Adobe) /Ordering (UCS) /Supplement 0 >> def
/CMapName /Broken-UCS def /CMapType 2 def
1 begincodespacerange <0000> <FFFF> endcodespacerange
1 beginbfrange <0000> <00FF> <E000> endbfrange
endcmap CMapName currentdict /CMap defineresource pop end end"""


def make_pdf(pages: list[Page]) -> bytes:
    """A valid PDF (correct xref) with the given pages."""
    objects: list[bytes] = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"",  # pages tree, filled below
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
        b"<< /Type /Font /Subtype /Type0 /BaseFont /STSong-Light /Encoding /UniGB-UCS2-H /DescendantFonts [5 0 R] >>",
        b"<< /Type /Font /Subtype /CIDFontType0 /BaseFont /STSong-Light "
        b"/CIDSystemInfo << /Registry (Adobe) /Ordering (GB1) /Supplement 2 >> /FontDescriptor 6 0 R /DW 1000 >>",
        b"<< /Type /FontDescriptor /FontName /STSong-Light /Flags 6 /FontBBox [0 -200 1000 900] "
        b"/ItalicAngle 0 /Ascent 880 /Descent -120 /CapHeight 880 /StemV 93 >>",
        b"<< /Type /Font /Subtype /Type0 /BaseFont /Helvetica /Encoding /Identity-H /DescendantFonts [8 0 R] /ToUnicode 9 0 R >>",
        b"<< /Type /Font /Subtype /CIDFontType2 /BaseFont /Helvetica /CIDSystemInfo << /Registry (Adobe) "
        b"/Ordering (Identity) /Supplement 0 >> /FontDescriptor 6 0 R /DW 600 /CIDToGIDMap /Identity >>",
        b"<< /Length %d >>\nstream\n" % len(_PRIVATE_USE_CMAP) + _PRIVATE_USE_CMAP + b"\nendstream",
    ]
    kids = []
    for page in pages:
        stream = _content(page)
        objects.append(b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream")
        content_id = len(objects)
        objects.append(
            (f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 {PAGE_W:.0f} {PAGE_H:.0f}] "
             f"/Resources << /Font << /F1 3 0 R /F2 4 0 R /F3 7 0 R >> >> /Contents {content_id} 0 R >>").encode()
        )
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
    for offset in offsets:
        out.write(f"{offset:010d} 00000 n \n".encode())
    out.write(f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode())
    return out.getvalue()


def cjk_font_path() -> Path:
    """A font with Chinese glyphs, or skip: Debian's fonts-noto-cjk provides one."""
    candidates = [Path("/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc")]
    if shutil.which("fc-match"):
        found = subprocess.run(["fc-match", "-f", "%{file}", ":lang=zh"], capture_output=True, text=True, check=False)
        if found.stdout.strip():
            candidates.append(Path(found.stdout.strip()))
    for path in candidates:
        if path.exists() and path.suffix.lower() in (".ttc", ".ttf", ".otf"):
            return path
    pytest.skip("needs a CJK font to draw Chinese test images (apt-get install fonts-noto-cjk)")


def text_image(lines: list[str], size: int = 40, width: int = 1400, margin: int = 60):
    """A white image with the lines drawn in black (a 'scan'), as a Pillow image."""
    from PIL import Image, ImageDraw, ImageFont

    font = ImageFont.truetype(str(cjk_font_path()), size)
    height = margin * 2 + int(len(lines) * size * 1.8)
    image = Image.new("RGB", (width, height), "white")
    draw = ImageDraw.Draw(image)
    for i, line in enumerate(lines):
        draw.text((margin, margin + i * size * 1.8), line, fill="black", font=font)
    return image


def image_pdf(image, dpi: int = 150) -> bytes:
    """The image saved as a one-page, image-only PDF (no text layer)."""
    out = io.BytesIO()
    image.save(out, format="PDF", resolution=dpi)
    return out.getvalue()


def join_pdfs(*documents: bytes) -> bytes:
    """Concatenate PDFs page by page with pypdfium2."""
    import pypdfium2 as pdfium

    target = pdfium.PdfDocument.new()
    for data in documents:
        target.import_pages(pdfium.PdfDocument(data))
    out = io.BytesIO()
    target.save(out)
    return out.getvalue()


def stamp_text(data: bytes, text: str, x: float = 36, y_from_top: float = 30, size: float = 9) -> bytes:
    """Add a line of real text (Helvetica) on top of the first page, like a scanner's stamp."""
    import pypdfium2 as pdfium
    import pypdfium2.raw as pdfium_c

    document = pdfium.PdfDocument(data)
    page = document[0]
    obj = pdfium_c.FPDFPageObj_NewTextObj(document.raw, b"Helvetica", size)
    encoded = (text + "\0").encode("utf-16-le")
    pdfium_c.FPDFText_SetText(obj, (pdfium_c.FPDF_WCHAR * (len(encoded) // 2)).from_buffer_copy(encoded))
    pdfium_c.FPDFPageObj_Transform(obj, 1, 0, 0, 1, x, page.get_height() - y_from_top)
    pdfium_c.FPDFPage_InsertObject(page.raw, obj)
    pdfium_c.FPDFPage_GenerateContent(page.raw)
    out = io.BytesIO()
    document.save(out)
    return out.getvalue()


def place_picture(data: bytes, image, left: float, top: float, width: float, page_index: int = 0) -> bytes:
    """Draw a Pillow image on a page of an existing PDF (a PNG picture object), ``width`` points
    wide, its top-left corner at (left, top) with y from the page's top."""
    import pypdfium2 as pdfium

    document = pdfium.PdfDocument(data)
    page = document[page_index]
    encoded = io.BytesIO()
    image.convert("RGB").save(encoded, format="JPEG", quality=95)
    encoded.seek(0)
    picture = pdfium.PdfImage.new(document)
    picture.load_jpeg(encoded, inline=False)
    height = width * image.height / image.width
    picture.set_matrix(pdfium.PdfMatrix().scale(width, height).translate(left, page.get_height() - top - height))
    page.insert_obj(picture)
    page.gen_content()
    out = io.BytesIO()
    document.save(out)
    return out.getvalue()
