"""Hostile files built in memory: small as bytes, enormous once read. Shared by the reliability
tests and benchmarks/hostile_inputs.py."""

from __future__ import annotations

import io
import struct
import zipfile


def _packbits_white_rows(width: int, height: int) -> bytes:
    """A bilevel strip of white rows, PackBits-compressed (each run: 0x81 = repeat the next byte 128 times)."""
    row_bytes = (width + 7) // 8
    row = bytearray()
    left = row_bytes
    while left:
        run = min(128, left)
        row += bytes([(257 - run) % 256, 0x00])  # WhiteIsZero: 0 bits are white
        left -= run
    return bytes(row) * height


def multipage_tiff(pages: list[tuple[int, int]]) -> bytes:
    """A bilevel TIFF with one white page per (width, height); pages of the same size share one
    compressed strip, so a dozen 12000 x 12000 pages weigh a few hundred KB on disk."""
    out = bytearray(b"II*\x00\x00\x00\x00\x00")
    strips: dict[tuple[int, int], tuple[int, int]] = {}
    for size in dict.fromkeys(pages):
        data = _packbits_white_rows(*size)
        strips[size] = (len(out), len(data))
        out += data
        if len(out) % 2:
            out += b"\x00"
    ifd_offsets = []
    for width, height in pages:
        offset, count = strips[(width, height)]
        entries = [(256, 4, width), (257, 4, height), (258, 3, 1), (259, 3, 32773), (262, 3, 0),
                   (273, 4, offset), (277, 3, 1), (278, 4, height), (279, 4, count)]
        ifd_offsets.append(len(out))
        out += struct.pack("<H", len(entries))
        for tag, kind, value in entries:
            out += struct.pack("<HHI", tag, kind, 1)
            out += struct.pack("<HH", value, 0) if kind == 3 else struct.pack("<I", value)
        out += b"\x00\x00\x00\x00"  # next IFD offset, patched below
    struct.pack_into("<I", out, 4, ifd_offsets[0])
    for this, following in zip(ifd_offsets, ifd_offsets[1:]):
        count = struct.unpack_from("<H", out, this)[0]
        struct.pack_into("<I", out, this + 2 + 12 * count, following)
    return bytes(out)


def deep_html(depth: int, text: str = "the innermost paragraph") -> bytes:
    return (b"<html><head><title>Deep</title></head><body>" + b"<div>" * depth
            + f"<p>{text}</p>".encode() + b"</div>" * depth + b"</body></html>")


_DOCX_TEMPLATE: bytes | None = None


def _docx_template() -> bytes:
    global _DOCX_TEMPLATE
    if _DOCX_TEMPLATE is None:
        import docx

        buffer = io.BytesIO()
        docx.Document().save(buffer)
        _DOCX_TEMPLATE = buffer.getvalue()
    return _DOCX_TEMPLATE


_W = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"'


def docx_with_body(paragraphs, *, repeat: int = 1) -> bytes:
    """A real Word file (python-docx's own template) whose body is ``paragraphs`` (XML strings of
    w:p elements) written ``repeat`` times, streamed into the zip so building it stays cheap."""
    template = zipfile.ZipFile(io.BytesIO(_docx_template()))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        for info in template.infolist():
            if info.filename != "word/document.xml":
                archive.writestr(info, template.read(info.filename))
                continue
            with archive.open("word/document.xml", "w") as body:
                body.write(f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:document {_W}><w:body>'.encode())
                block = "".join(paragraphs).encode()
                per_write = max(1, (1 << 16) // len(block))  # large writes: the zip compresses them fast
                for _ in range(repeat // per_write):
                    body.write(block * per_write)
                body.write(block * (repeat % per_write))
                body.write(b"<w:sectPr/></w:body></w:document>")
    return out.getvalue()


def paragraph(text: str, runs: int = 1) -> str:
    run = f'<w:r><w:rPr><w:b/></w:rPr><w:t xml:space="preserve">{text}</w:t></w:r>'
    return "<w:p>" + run * runs + "</w:p>"


_XLSX_PARTS = {
    "[Content_Types].xml": (
        '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
        '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
        '<Default Extension="xml" ContentType="application/xml"/>'
        '<Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>'
        '<Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>'
        '</Types>'),
    "_rels/.rels": (
        '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
        '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/>'
        '</Relationships>'),
    "xl/workbook.xml": (
        '<?xml version="1.0" encoding="UTF-8"?><workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" '
        'xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets>'
        '<sheet name="Log" sheetId="1" r:id="rId1"/></sheets></workbook>'),
    "xl/_rels/workbook.xml.rels": (
        '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
        '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/>'
        '</Relationships>'),
}


def long_xlsx(rows: int, columns: int = 5, *, dimension: bool = True) -> bytes:
    """One sheet of ``rows`` numeric rows (written as a script would: inline numbers, no styles).
    ``dimension=False`` leaves out the <dimension> element, as some generators do."""
    letters = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"[:columns]
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, xml in _XLSX_PARTS.items():
            archive.writestr(name, xml)
        with archive.open("xl/worksheets/sheet1.xml", "w") as sheet:
            sheet.write(b'<?xml version="1.0" encoding="UTF-8"?>'
                        b'<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">')
            if dimension:
                sheet.write(f'<dimension ref="A1:{letters[-1]}{rows}"/>'.encode())
            sheet.write(b"<sheetData>")
            for r in range(1, rows + 1):
                cells = "".join(f'<c r="{c}{r}"><v>{r * 10 + i}</v></c>' for i, c in enumerate(letters))
                sheet.write(f'<row r="{r}">{cells}</row>'.encode())
            sheet.write(b"</sheetData></worksheet>")
    return out.getvalue()


def _pdf(objects: list[bytes]) -> bytes:
    """A PDF of these objects (numbered from 1; object 1 is the catalog), with a correct xref."""
    out, offsets = bytearray(b"%PDF-1.7\n"), []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += f"{number} 0 obj\n".encode() + body + b"\nendobj\n"
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    out += b"".join(f"{o:010d} 00000 n \n".encode() for o in offsets)
    out += f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode()
    return bytes(out)


_FONT = b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"


def _stream(data: bytes, extra: bytes = b"") -> bytes:
    return b"<< /Length %d %s>>\nstream\n" % (len(data), extra) + data + b"\nendstream"


def looping_pdf() -> bytes:
    """A page tree whose Pages node lists itself among its kids: pdfium counts three pages and
    cannot load the second."""
    text = b"BT /F1 12 Tf 72 700 Td (The first page reads fine.) Tj ET"
    return _pdf([b"<< /Type /Catalog /Pages 2 0 R >>",
                 b"<< /Type /Pages /Kids [3 0 R 2 0 R] /Count 3 >>",
                 b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
                 b"/Resources << /Font << /F1 5 0 R >> >> >>",
                 _stream(text), _FONT])


def flate_bomb_pdf(megabytes: int) -> bytes:
    """One page whose content stream is a little text and then ``megabytes`` MB of spaces, deflated
    (about 1 MB on disk per GB it expands to)."""
    import zlib

    packer = zlib.compressobj(9)
    packed = packer.compress(b"BT /F1 12 Tf 72 700 Td (A page of text before the blank.) Tj ET\n")
    blank = b" " * (1 << 20)
    for _ in range(megabytes):
        packed += packer.compress(blank)
    packed += packer.flush()
    return _pdf([b"<< /Type /Catalog /Pages 2 0 R >>",
                 b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
                 b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
                 b"/Resources << /Font << /F1 5 0 R >> >> >>",
                 _stream(packed, b"/Filter /FlateDecode "), _FONT])


def blank_docx(megabytes: int) -> bytes:
    """A Word file whose document XML is ``megabytes`` MB of whitespace between short paragraphs
    (whitespace is not text: the text budget did not count it)."""
    return docx_with_body([paragraph("A short paragraph."), " " * (1 << 20)], repeat=megabytes)
