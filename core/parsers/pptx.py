"""PowerPoint (.pptx) presentations: one DocPart per slide.

Each part starts with "## Slide N: Title" and carries ``slide=N``; then the text of every
shape in the slide's order (groups are walked recursively), tables as Markdown, optional
OCR of pictures (ParsingSettings.ocr_pptx_images) and the speaker notes ("Notes: ...").
"""

from __future__ import annotations


import pptx as python_pptx
from lxml import etree
from pptx.enum.shapes import MSO_SHAPE_TYPE, PP_PLACEHOLDER
from pptx.shapes.picture import Picture

from core.errors import UnsupportedFormat
from core.messages import say
from core.parsers.base import ParseContext
from core.parsers.office_ocr import ocr_embedded_image
from core.parsers.office_table import markdown_table
from core.parsers.zipguard import open_office
from core.types import DocPart, ParsedDoc

MIME = "application/vnd.openxmlformats-officedocument.presentationml.presentation"
_TITLE_TYPES = {PP_PLACEHOLDER.TITLE, PP_PLACEHOLDER.CENTER_TITLE, PP_PLACEHOLDER.VERTICAL_TITLE}
_BULLET_TYPES = {PP_PLACEHOLDER.BODY, PP_PLACEHOLDER.OBJECT, PP_PLACEHOLDER.VERTICAL_BODY}
_SKIPPED_TYPES = {PP_PLACEHOLDER.SLIDE_NUMBER, PP_PLACEHOLDER.DATE, PP_PLACEHOLDER.FOOTER}
_TITLE_MAX = 120
_SAFE_XML = etree.XMLParser(resolve_entities=False, no_network=True)


def _placeholder_type(shape):
    """The placeholder type, or None; a malformed placeholder (bad idx/type) counts as none."""
    if not getattr(shape, "is_placeholder", False):
        return None
    try:
        return shape.placeholder_format.type
    except (ValueError, KeyError, AttributeError):
        return None


def _table_markdown(table) -> str:
    rows = []
    for row in table.rows:
        # a merged range keeps its text in the origin cell; the spanned cells stay blank
        rows.append(["" if cell.is_spanned else cell.text for cell in row.cells])
    return markdown_table(rows)


def _text_frame_lines(frame, bulleted: bool) -> list[str]:
    lines = []
    for paragraph in frame.paragraphs:
        text = " ".join(paragraph.text.split())
        if not text:
            continue
        if bulleted:
            lines.append(f"{'    ' * paragraph.level}- {text}")
        else:
            lines.append(text)
    return lines


class _SlideWalker:
    def __init__(self, ctx: ParseContext) -> None:
        self.ctx = ctx
        self.ocr_images = 0
        self.warnings: list[str] = []

    def blocks(self, shapes, slide_no: int, title_shape_id: int | None) -> list[str]:
        out: list[str] = []
        for shape in shapes:
            if shape.shape_id == title_shape_id:
                continue
            try:
                out.extend(self._shape_blocks(shape, slide_no))
            except (KeyError, ValueError, AttributeError, IndexError) as exc:
                # a broken relationship (chart, picture) or odd placeholder spoils one shape,
                # not the deck: say which one and go on
                self.warnings.append(f"slide {slide_no}: shape {shape.name!r} could not be read ({type(exc).__name__}); skipped")
        return out

    def _shape_blocks(self, shape, slide_no: int) -> list[str]:
        kind = _placeholder_type(shape)
        if kind in _SKIPPED_TYPES:
            return []  # dates, footers and slide numbers repeat on every slide
        if shape.shape_type == MSO_SHAPE_TYPE.GROUP:
            return self.blocks(shape.shapes, slide_no, None)
        smartart = _smartart_lines(shape)
        if smartart:
            return ["\n".join(smartart)]
        if getattr(shape, "has_table", False) and shape.has_table:
            table = _table_markdown(shape.table)
            return [table] if table else []
        blocks: list[str] = []
        if getattr(shape, "has_text_frame", False) and shape.has_text_frame:
            lines = _text_frame_lines(shape.text_frame, bulleted=kind in _BULLET_TYPES)
            if lines:
                blocks.append("\n".join(lines))
        if getattr(shape, "has_chart", False) and shape.has_chart and shape.chart.has_title:
            title = shape.chart.chart_title.text_frame.text.strip()
            if title:
                blocks.append(f"Chart: {title}")
        if self.ctx.settings.ocr_pptx_images and isinstance(shape, Picture):
            self.ocr_images += 1
            what = f"slide {slide_no} picture {shape.name!r}"
            try:
                text = ocr_embedded_image(shape.image.blob, self.ctx, what)
            except UnsupportedFormat as exc:
                self.warnings.append(f"{exc.message}; skipped")
                text = ""
            if text:
                blocks.append(f"[Image text] {text}")
        return blocks


_DIAGRAM_URI = "http://schemas.openxmlformats.org/drawingml/2006/diagram"
_DGM = "{http://schemas.openxmlformats.org/drawingml/2006/diagram}"
_A_P = "{http://schemas.openxmlformats.org/drawingml/2006/main}p"
_A_T = "{http://schemas.openxmlformats.org/drawingml/2006/main}t"
_R_DM = "{http://schemas.openxmlformats.org/officeDocument/2006/relationships}dm"


def _smartart_lines(shape) -> list[str]:
    """The node texts of a SmartArt diagram (kept in its data part, not in the slide)."""
    graphic_data = shape._element.find(".//{http://schemas.openxmlformats.org/drawingml/2006/main}graphicData")
    if graphic_data is None or graphic_data.get("uri") != _DIAGRAM_URI:
        return []
    rel_ids = graphic_data.find(f"{_DGM}relIds")
    if rel_ids is None or rel_ids.get(_R_DM) is None:
        return []
    data_part = shape.part.related_part(rel_ids.get(_R_DM))  # KeyError when missing: caller warns
    root = etree.fromstring(data_part.blob, parser=_SAFE_XML)
    lines = []
    for point in root.iter(f"{_DGM}pt"):
        if point.get("type", "node") != "node":
            continue  # connector and presentation points carry no text of their own
        for paragraph in point.iter(_A_P):
            text = " ".join("".join(t.text or "" for t in paragraph.iter(_A_T)).split())
            if text:
                lines.append(f"- {text}")
    return lines


def _title_shape(slide):
    for shape in slide.shapes:
        if _placeholder_type(shape) in _TITLE_TYPES and shape.has_text_frame and shape.text_frame.text.strip():
            return shape
    return None


class PptxParser:
    name = "pptx"

    def parse(self, data: bytes, source_name: str, ctx: ParseContext) -> ParsedDoc:
        presentation = open_office(data, "PowerPoint", ctx, python_pptx.Presentation, "presentation", source_name)
        walker = _SlideWalker(ctx)
        parts: list[DocPart] = []
        slides = list(presentation.slides)
        for number, slide in enumerate(slides, start=1):
            ctx.progress(number - 1, len(slides), say("pptx.slide", n=number, total=len(slides)))
            title_shape = _title_shape(slide)
            title_lines = title_shape.text_frame.text.split("\n") if title_shape is not None else []
            title_lines = [" ".join(t.split()) for t in title_lines if t.strip()]
            title = title_lines[0][:_TITLE_MAX] if title_lines else ""
            heading = f"## Slide {number}: {title}" if title else f"## Slide {number}"
            blocks = [heading]
            if len(title_lines) > 1 or (title_lines and len(title_lines[0]) > _TITLE_MAX):
                # an over-long title box (org charts do this) keeps its full text in the body
                blocks.append("\n".join(title_lines))
            blocks += walker.blocks(slide.shapes, number, title_shape.shape_id if title_shape is not None else None)
            notes = _notes(slide)
            if notes:
                blocks.append(f"Notes: {notes}")
            parts.append(DocPart(text="\n\n".join(blocks), slide=number, heading_path=(heading[3:],)))
        ctx.progress(len(slides), len(slides), say("pptx.done"))
        # the first slide title names the deck better than core properties, which often
        # keep a template's "PowerPoint Presentation"
        doc_title = next((t for p in parts if (t := p.heading_path[0].partition(": ")[2])), None)
        if doc_title is None:
            doc_title = (presentation.core_properties.title or "").strip() or None
        metadata = {"slides": len(slides)}
        if walker.ocr_images:
            metadata["ocr_images"] = walker.ocr_images
        return ParsedDoc(
            source_name=source_name, mime=MIME, parts=parts, title=doc_title, metadata=metadata, warnings=walker.warnings
        )


def _notes(slide) -> str:
    if not slide.has_notes_slide:
        return ""
    frame = slide.notes_slide.notes_text_frame
    if frame is None:
        return ""
    return "\n".join(line.strip() for line in frame.text.split("\n") if line.strip())


PARSER = PptxParser()
