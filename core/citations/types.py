"""What a citation view holds: one typed view per kind of source.

``PageView``: a PDF page (or the two a passage runs over) rendered to PNG with the passage's rectangles drawn on it (and given,
in image pixels, for any other client). ``PassageView``: the passage in its surrounding text
(Markdown, plain text, Word, HTML, transcripts) or in its slide (title, text and notes).
``SheetView``: the cited rows of a sheet among their neighbours, under the sheet's header.

``note`` is a key (``citation.note.*``) an interface renders in its reader's language, with the
English in NOTES for the CLI and logs; empty when the passage was found and marked.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

NOTES = {
    "ocr_positions_missing": ("this page was read by OCR before text positions were kept; the page is shown "
                              "without a highlight (upload the file again to get one)"),
    "not_found_on_page": "the passage could not be placed on this page; the page is shown without a highlight",
    "not_found": "the passage could not be found in the stored text; it is shown on its own",
    "original_missing": "the original file is not stored; the passage is shown in the stored text",
    "text_missing": "the file's text is not stored; the passage is shown on its own",
}


@dataclass(frozen=True)
class Rect:
    """A highlight in image pixels, y growing downward."""

    x0: float
    top: float
    x1: float
    bottom: float


@dataclass
class PdfPage:
    """One rendered page: PNG bytes with the highlight drawn, and the rectangles in its pixels."""

    page: int  # 1-based
    png: bytes
    width: int  # pixels
    height: int
    rects: list[Rect] = field(default_factory=list)
    positions: Literal["text_layer", "ocr", "none"] = "none"  # where the rectangles came from
    note: str = ""
    excerpt_png: bytes = b""  # the highlighted stretch with a margin (empty without a highlight)


@dataclass
class PageView:
    """The cited page, and the next ones while the passage runs on (a chunk may cross a page end)."""

    kind: Literal["pdf_page"]
    file_id: str
    source_name: str
    page_count: int
    pages: list[PdfPage] = field(default_factory=list)

    @property
    def page(self) -> int:
        return self.pages[0].page

    @property
    def rects(self) -> list[Rect]:
        return self.pages[0].rects


@dataclass
class PassageView:
    kind: Literal["text", "slide"]
    file_id: str
    source_name: str
    title: str  # the slide's title or the nearest heading
    text: str  # the surrounding text (a window of the document, or the whole slide)
    spans: list[tuple[int, int]] = field(default_factory=list)  # the passage inside ``text``
    more_before: bool = False  # ``text`` starts inside the document
    more_after: bool = False
    slide: int | None = None
    note: str = ""


@dataclass
class SheetRow:
    number: int  # 1-based, counting the sheet's data rows under its header
    cells: list[str]
    cited: bool


@dataclass
class SheetView:
    kind: Literal["sheet"]
    file_id: str
    source_name: str
    sheet: str
    header: list[str]
    rows: list[SheetRow] = field(default_factory=list)
    note: str = ""


CitationView = PageView | PassageView | SheetView


def note_text(key: str) -> str:
    return NOTES.get(key, key)
