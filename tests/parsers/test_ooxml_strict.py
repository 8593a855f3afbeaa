"""Office files saved as "Strict Open XML" (core/parsers/ooxml_strict.py): the same content as
the transitional file they mirror. The Strict files are made here from ordinary ones by moving
their namespaces to purl.oclc.org, as Excel's and Word's "Strict Open XML" save option writes them
(the package's own relationship namespace stays)."""

from __future__ import annotations

import io
import re
import zipfile

import docx
import openpyxl
import pptx

from core.parsers.registry import parse_bytes

_FAMILIES = rb"spreadsheetml|wordprocessingml|presentationml|drawingml|officeDocument"


def strict(package: bytes) -> bytes:
    source = zipfile.ZipFile(io.BytesIO(package))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as target:
        for info in source.infolist():
            body = source.read(info)
            if info.filename.endswith((".xml", ".rels")):
                body = re.sub(rb"http://schemas\.openxmlformats\.org/(" + _FAMILIES + rb")/2006/([A-Za-z-]+)",
                              lambda m: b"http://purl.oclc.org/ooxml/" + m.group(1) + b"/"
                              + m.group(2).replace(b"extended-properties", b"extendedProperties"), body)
            target.writestr(info.filename, body)
    return out.getvalue()


def _saved(document) -> bytes:
    buffer = io.BytesIO()
    document.save(buffer)
    return buffer.getvalue()


def test_a_strict_workbook_is_read_like_its_transitional_twin():
    book = openpyxl.Workbook()
    sheet = book.active
    sheet.title = "报价"
    sheet.append(["服务", "单价（元）"])
    sheet.append(["常温仓储", 3.5])
    sheet.append(["Express parcel", 14.9])
    plain = _saved(book)
    assert b"purl.oclc.org/ooxml/spreadsheetml" in zipfile.ZipFile(io.BytesIO(strict(plain))).read("xl/workbook.xml")
    doc = parse_bytes(strict(plain), "rates.xlsx")
    assert "| 常温仓储 | 3.5 |" in doc.text and "Express parcel" in doc.text
    assert doc.text == parse_bytes(plain, "rates.xlsx").text


def test_a_strict_word_document_and_presentation_are_read():
    word = docx.Document()
    word.add_heading("差旅制度", level=1)
    word.add_paragraph("Hotel, capital cities: 180 EUR per night.")
    doc = parse_bytes(strict(_saved(word)), "policy.docx")
    assert "差旅制度" in doc.text and "180 EUR per night" in doc.text
    deck = pptx.Presentation()
    slide = deck.slides.add_slide(deck.slide_layouts[1])
    slide.shapes.title.text = "On-call"
    slide.placeholders[1].text = "One on-call week every six to eight weeks"
    doc = parse_bytes(strict(_saved(deck)), "deck.pptx")
    assert "One on-call week every six to eight weeks" in doc.text
