"""Word, PowerPoint and Excel files for the demo, written with the libraries ragdesk already uses
to read them (python-docx, python-pptx, openpyxl), and a scanned page drawn with Pillow.

Office files are zip archives whose entries carry the time they were written, and their core
properties a creation date: both are fixed here, so the same demo is the same bytes every time
(a second load finds the files already indexed instead of adding copies).
"""

from __future__ import annotations

import io
import re
import zipfile
from dataclasses import dataclass
from datetime import datetime
from typing import Callable

FIXED_TIME = datetime(2026, 1, 5, 9, 0, 0)
_ZIP_TIME = (2026, 1, 5, 9, 0, 0)


@dataclass(frozen=True)
class Slide:
    title: str
    bullets: tuple[str, ...] = ()


def stable_zip(data: bytes, rewrite: dict[str, Callable[[bytes], bytes]] | None = None) -> bytes:
    """The same archive with every entry dated ``FIXED_TIME`` (entry order kept; ``rewrite`` maps an
    entry name to a change of its content)."""
    rewrite = rewrite or {}
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(data)) as source, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as target:
        for info in source.infolist():
            entry = zipfile.ZipInfo(info.filename, date_time=_ZIP_TIME)
            entry.compress_type = zipfile.ZIP_DEFLATED
            entry.external_attr = info.external_attr
            body = source.read(info.filename)
            target.writestr(entry, rewrite[info.filename](body) if info.filename in rewrite else body)
    return out.getvalue()


def _saved(document) -> bytes:
    buf = io.BytesIO()
    document.save(buf)
    return stable_zip(buf.getvalue())


def _fix_core_properties(props, title: str) -> None:
    props.title = title
    props.author = "ragdesk demo"
    props.created = props.modified = FIXED_TIME
    props.last_modified_by = "ragdesk demo"
    props.revision = 1


def word_file(title: str, paragraphs: list[str], table: list[tuple[str, ...]] | None = None) -> bytes:
    """A heading, paragraphs, then an optional table (first row is the header)."""
    import docx

    document = docx.Document()
    _fix_core_properties(document.core_properties, title)
    document.add_heading(title, level=1)
    for text in paragraphs:
        document.add_paragraph(text)
    if table:
        grid = document.add_table(rows=len(table), cols=len(table[0]))
        grid.style = "Table Grid"
        for r, row in enumerate(table):
            for c, value in enumerate(row):
                grid.cell(r, c).text = value
    return _saved(document)


def slide_deck(title: str, subtitle: str, slides: list[Slide]) -> bytes:
    """A title slide, then one title-and-bullets slide each."""
    from pptx import Presentation

    deck = Presentation()
    _fix_core_properties(deck.core_properties, title)
    first = deck.slides.add_slide(deck.slide_layouts[0])
    first.shapes.title.text = title
    first.placeholders[1].text = subtitle
    for slide in slides:
        page = deck.slides.add_slide(deck.slide_layouts[1])
        page.shapes.title.text = slide.title
        body = page.placeholders[1].text_frame
        body.text = slide.bullets[0] if slide.bullets else ""
        for bullet in slide.bullets[1:]:
            body.add_paragraph().text = bullet
    return _saved(deck)


def workbook(sheets: dict[str, list[tuple[str, ...]]]) -> bytes:
    """One sheet per name, each a table whose first row is the header."""
    from openpyxl import Workbook

    book = Workbook()
    book.remove(book.active)
    book.properties.creator = "ragdesk demo"
    book.properties.created = book.properties.modified = FIXED_TIME
    for name, rows in sheets.items():
        sheet = book.create_sheet(name)
        for row in rows:
            sheet.append(list(row))
    buf = io.BytesIO()
    book.save(buf)
    # openpyxl stamps "modified" with the current time on save: put the fixed one back.
    return stable_zip(buf.getvalue(), {"docProps/core.xml": _fixed_core_xml})


def _fixed_core_xml(body: bytes) -> bytes:
    stamp = FIXED_TIME.strftime("%Y-%m-%dT%H:%M:%SZ").encode()
    return re.sub(rb"(<dcterms:(?:created|modified)[^>]*>)[^<]*(</dcterms:)", rb"\g<1>" + stamp + rb"\g<2>", body)


def scanned_page(lines: list[str], width: int = 1240, font_size: int = 34) -> tuple[int, int, bytes]:
    """Lines of text drawn black on white with Pillow's own scalable font (no system font needed),
    as (width, height, grayscale pixels) for a picture-only PDF page: a scan to OCR."""
    from PIL import Image, ImageDraw, ImageFont

    font = ImageFont.load_default(size=font_size)
    margin, step = 80, int(font_size * 1.9)
    height = 2 * margin + step * len(lines)
    image = Image.new("L", (width, height), 255)
    draw = ImageDraw.Draw(image)
    for i, line in enumerate(lines):
        draw.text((margin, margin + i * step), line, fill=0, font=font)
    return width, height, image.tobytes()
