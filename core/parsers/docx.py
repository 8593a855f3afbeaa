"""Word (.docx) documents as Markdown: headings, nested lists and tables in document order.

One DocPart per heading section, with the heading path leading to it. Headers and footers
and OCR of embedded images are optional (ParsingSettings.docx_headers_footers,
ocr_docx_images).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import docx as python_docx
from docx.oxml.ns import qn
from docx.table import Table
from docx.text.paragraph import Paragraph

from core.errors import UnsupportedFormat
from core.parsers.base import ParseContext
from core.parsers.docx_lists import ListRenderer, list_position
from core.parsers.docx_tables import render_table
from core.parsers.docx_text import notes, paragraph_text, text_boxes
from core.parsers.office_ocr import ocr_embedded_image
from core.parsers.zipguard import open_office
from core.types import DocPart, ParsedDoc

MIME = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"


def _allow_deep_xml() -> None:
    """python-docx's XML parser stops at libxml2's default depth of 256 elements — about 80
    tables nested in cells — and the valid file was then called corrupt. The same parser with
    ``huge_tree`` reads it; entities stay unresolved (no XXE), and the zip guard has already
    capped the decompressed size that huge_tree would otherwise leave open."""
    from docx.oxml import parser as oxml
    from lxml import etree

    deep = etree.XMLParser(remove_blank_text=True, resolve_entities=False, huge_tree=True, no_network=True)
    deep.set_element_class_lookup(oxml.element_class_lookup)
    oxml.oxml_parser = deep


_allow_deep_xml()
_HEADING_STYLE = re.compile(r"^heading\s*([1-9])$", re.IGNORECASE)
_BLIP = qn("a:blip")
_EMBED = qn("r:embed")


def _heading_level(paragraph: Paragraph, style) -> int | None:
    """1..6 for Title / Heading N styles (or styles based on them), else None."""
    depth = 0
    while style is not None and depth < 20:
        name = (style.name or "").strip()
        if name.lower() == "title":
            return 1
        match = _HEADING_STYLE.match(name)
        if match:
            return min(int(match.group(1)), 6)
        style, depth = style.base_style, depth + 1
    pPr = paragraph._p.pPr
    outline = pPr.find(qn("w:outlineLvl")) if pPr is not None else None
    if outline is not None:
        level = int(outline.get(qn("w:val"), "9"))
        if level < 6:
            return level + 1
    return None


def _iter_blocks(container):
    """Paragraphs and tables in document order, looking inside content controls (w:sdt)."""
    for child in container.iterchildren():
        if child.tag == qn("w:p"):
            yield child
        elif child.tag == qn("w:tbl"):
            yield child
        elif child.tag == qn("w:sdt"):
            content = child.find(qn("w:sdtContent"))
            if content is not None:
                yield from _iter_blocks(content)


@dataclass
class _Sections:
    """Collects blocks into one DocPart per heading section."""

    parts: list[DocPart] = field(default_factory=list)
    path: list[tuple[int, str]] = field(default_factory=list)
    blocks: list[str] = field(default_factory=list)
    last_was_list: bool = False

    def add(self, block: str, *, is_list: bool = False) -> None:
        # consecutive list items form one tight Markdown list
        if is_list and self.last_was_list and self.blocks:
            self.blocks[-1] += "\n" + block
        else:
            self.blocks.append(block)
        self.last_was_list = is_list

    def flush(self) -> None:
        text = "\n\n".join(b for b in self.blocks if b.strip())
        if text.strip():
            self.parts.append(DocPart(text=text, heading_path=tuple(t for _, t in self.path)))
        self.blocks = []
        self.last_was_list = False

    def heading(self, level: int, title: str) -> None:
        self.flush()
        while self.path and self.path[-1][0] >= level:
            self.path.pop()
        self.path.append((level, title))
        self.add(f"{'#' * level} {title}")


class DocxParser:
    name = "docx"

    def parse(self, data: bytes, source_name: str, ctx: ParseContext) -> ParsedDoc:
        document = open_office(data, "Word", ctx, python_docx.Document, "Word document", source_name)
        numbering = None
        try:
            numbering = document.part.numbering_part.element
        except (KeyError, NotImplementedError):
            pass  # a document without lists has no numbering part
        walker = _Walker(document, ListRenderer(numbering), ctx)
        sections = _Sections()
        walker.walk(document.element.body, sections)
        sections.flush()
        parts = sections.parts
        for title, texts in notes(document, walker.warnings):
            parts.append(DocPart(text=f"## {title}\n\n" + "\n".join(texts), heading_path=(title,)))
        if ctx.settings.docx_headers_footers:
            header, footer = _headers_footers(document)
            if header:
                parts.insert(0, DocPart(text=f"Header: {header}"))
            if footer:
                parts.append(DocPart(text=f"Footer: {footer}"))
        title = (document.core_properties.title or "").strip() or None
        if title is None:
            title = next((p.heading_path[0] for p in parts if p.heading_path), None)
        return ParsedDoc(
            source_name=source_name,
            mime=MIME,
            parts=parts,
            title=title,
            metadata={"ocr_images": walker.ocr_images} if walker.ocr_images else {},
            warnings=walker.warnings,
        )


class _Walker:
    def __init__(self, document, lists: ListRenderer, ctx: ParseContext) -> None:
        self.document = document
        self.lists = lists
        self.ctx = ctx
        self.ocr_images = 0
        self.warnings: list[str] = []
        # python-docx finds a style by scanning every style of the document on each access (3 ms
        # a paragraph); one lookup per style id made a 50,000-paragraph file ~100x faster
        self._styles: dict[str | None, object] = {}

    def style_of(self, paragraph: Paragraph):
        style_id = paragraph._p.style
        if style_id not in self._styles:
            try:
                self._styles[style_id] = paragraph.style
            except (KeyError, ValueError):
                self._styles[style_id] = None
        return self._styles[style_id]

    def walk(self, body, sections: _Sections) -> None:
        for element in _iter_blocks(body):
            if element.tag == qn("w:tbl"):
                self.lists.end_run()
                sections.add(render_table(Table(element, self.document._body)))
                continue
            paragraph = Paragraph(element, self.document._body)
            text = paragraph_text(element).strip()
            boxes = text_boxes(element)
            image_text = self._ocr_images(element) if self.ctx.settings.ocr_docx_images else ""
            if not text and not image_text and not boxes:
                continue  # blank spacer paragraphs neither end a list nor add text
            style = self.style_of(paragraph) if text else None
            level = _heading_level(paragraph, style) if text else None
            if level is not None:
                self.lists.end_run()
                sections.heading(level, " ".join(text.split()))
            elif text and (position := list_position(paragraph, style)) is not None:
                style_name = style.name if style is not None else ""
                sections.add(self.lists.item(position[0], position[1], text, style_name or ""), is_list=True)
            elif text:
                self.lists.end_run()
                sections.add(text)
            for box in boxes:
                sections.add(box)
            if image_text:
                sections.add(f"[Image text] {image_text}")

    def _ocr_images(self, element) -> str:
        texts = []
        for blip in element.iter(_BLIP):
            rel_id = blip.get(_EMBED)
            part = self.document.part.related_parts.get(rel_id) if rel_id else None
            if part is None:
                continue
            self.ocr_images += 1
            what = f"embedded image {self.ocr_images}"
            try:
                text = ocr_embedded_image(part.blob, self.ctx, what)
            except UnsupportedFormat as exc:
                self.warnings.append(f"{exc.message}; skipped")
                continue
            if text:
                texts.append(text)
        return " ".join(texts)


def _headers_footers(document) -> tuple[str, str]:
    headers: list[str] = []
    footers: list[str] = []
    for section in document.sections:
        for store, part in ((headers, section.header), (footers, section.footer)):
            if part.is_linked_to_previous:
                continue
            text = " ".join(paragraph_text(b._p).strip() for b in part.iter_inner_content() if isinstance(b, Paragraph))
            if text.strip() and text not in store:
                store.append(text.strip())
    return " ".join(headers), " ".join(footers)


PARSER = DocxParser()
