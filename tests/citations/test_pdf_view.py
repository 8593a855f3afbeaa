"""A PDF citation: the page rendered, the passage's words under the highlight, nothing else.

The ground truth is pypdfium2's own character boxes (text layer) or where the test drew each
line of a scanned page; the view's rectangles must cover the passage's words and leave the
other paragraphs' words alone.
"""

from __future__ import annotations

import io

import pypdfium2 as pdfium
import pytest
from PIL import Image

from core.citations.types import PageView, PdfPage
from core.ingest.service import Upload
from core.types import SYSTEM_ACTOR as ADMIN
from tests.citations.conftest import chunk_with
from tests.parsers.pdf_maker import PAGE_H, Page, image_pdf, make_pdf, text_image

PARAGRAPHS = [
    ["Travel policy for all staff members.", "Employees may book economy class flights only,",
     "and only after the manager has approved the trip."],
    ["Hotel costs are capped at 150 euros per night,", "breakfast included, in every city we visit."],
    ["Taxi rides need a receipt from the driver;", "ride sharing apps are accepted as well."],
]


def _text_pdf() -> bytes:
    page, y = Page(), 90.0
    for paragraph in PARAGRAPHS:
        for line in paragraph:
            page.text(72, y, line)
            y += 15
        y += 40  # a clear gap: each paragraph is a block of its own
    return make_pdf([page, Page().text(72, 90, "Second page: meals are paid up to 40 euros a day.")])


def _word_boxes(data: bytes, page_index: int, word: str, scale: float) -> list[tuple[float, float, float, float]]:
    """Every occurrence of ``word`` on the page, as pixel boxes of the view (pypdfium2's char boxes)."""
    document = pdfium.PdfDocument(data)
    textpage = document[page_index].get_textpage()
    boxes = []
    searcher = textpage.search(word, match_case=True, match_whole_word=True)
    while (found := searcher.get_next()) is not None:
        start, count = found
        chars = [textpage.get_charbox(i) for i in range(start, start + count)]
        left, bottom = min(c[0] for c in chars), min(c[1] for c in chars)
        right, top = max(c[2] for c in chars), max(c[3] for c in chars)
        boxes.append((left * scale, (PAGE_H - top) * scale, right * scale, (PAGE_H - bottom) * scale))
    return boxes


def _covered(box, rects) -> bool:
    cx, cy = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
    return any(r.x0 <= cx <= r.x1 and r.top <= cy <= r.bottom for r in rects)


def _pixel(view: PdfPage, x: float, y: float) -> tuple[int, int, int]:
    return Image.open(io.BytesIO(view.png)).convert("RGB").getpixel((int(x), int(y)))


def test_text_layer_highlight_covers_the_cited_words_and_nothing_else(engine):
    data = _text_pdf()
    engine.create_kb(ADMIN, "travel")
    [res] = engine.ingest(ADMIN, "travel", [Upload("travel.pdf", data)])
    chunk = chunk_with(engine, ADMIN, res.file_id, "Hotel costs")
    assert "Taxi" not in chunk["text"] and "economy" not in chunk["text"]

    view = engine.citation_view(ADMIN, res.file_id, chunk["text"], page=chunk["page"])

    assert isinstance(view, PageView) and [p.page for p in view.pages] == [1] and view.page_count == 2
    view = view.pages[0]
    assert view.positions == "text_layer" and view.note == "" and view.rects
    image = Image.open(io.BytesIO(view.png))
    assert image.size == (view.width, view.height) and max(image.size) <= 1600
    scale = view.width / 595.0
    for word in ["Hotel", "capped", "150", "euros", "breakfast", "included", "visit."]:
        boxes = _word_boxes(data, 0, word.rstrip("."), scale)
        assert boxes and all(_covered(b, view.rects) for b in boxes), word
    for word in ["economy", "approved", "Taxi", "receipt", "sharing"]:
        boxes = _word_boxes(data, 0, word, scale)
        assert boxes and not any(_covered(b, view.rects) for b in boxes), word
    # the highlight is drawn into the image: yellow under a cited word, white paper elsewhere
    hotel = _word_boxes(data, 0, "Hotel", scale)[0]
    r, g, b = _pixel(view, hotel[0] + 1, hotel[1] - 1)
    assert r > 200 and g > 180 and b < 200
    assert _pixel(view, view.width - 5, view.height - 5) == (255, 255, 255)
    # the close-up: the highlighted stretch with a margin, far smaller than the page
    close_up = Image.open(io.BytesIO(view.excerpt_png))
    assert close_up.width < view.width and close_up.height < view.height / 4
    assert close_up.height >= max(r.bottom for r in view.rects) - min(r.top for r in view.rects)


def test_a_passage_on_the_second_page_is_shown_there(engine):
    data = _text_pdf()
    engine.create_kb(ADMIN, "travel")
    [res] = engine.ingest(ADMIN, "travel", [Upload("travel.pdf", data)])
    chunk = chunk_with(engine, ADMIN, res.file_id, "meals are paid")
    view = engine.citation_view(ADMIN, res.file_id, chunk["text"], page=chunk["page"])
    # the chunk starts on page 1 (the taxi paragraph) and runs on to page 2: both are shown
    assert chunk["page"] == 1 and [p.page for p in view.pages] == [1, 2]
    first, second = view.pages
    scale = second.width / 595.0
    assert all(_covered(b, first.rects) for b in _word_boxes(data, 0, "Taxi", scale))
    assert not any(_covered(b, first.rects) for b in _word_boxes(data, 0, "Hotel", scale))
    boxes = _word_boxes(data, 1, "meals", scale)
    assert boxes and all(_covered(b, second.rects) for b in boxes)
    # the same call again is served from the cache: the same object
    assert engine.citation_view(ADMIN, res.file_id, chunk["text"], page=1) is view


SCAN_LINES = ["Remote work is allowed two days", "each week with the approval of", "your manager and the team lead.",
              "", "", "Laptops are replaced every four", "years by the IT desk, monitors", "every six years, phones never."]


@pytest.mark.slow
def test_scanned_page_is_highlighted_from_the_ocr_lines_and_older_kbs_show_the_page_plainly(engine):
    size, margin, dpi = 40, 60, 150
    data = image_pdf(text_image(SCAN_LINES, size=size, margin=margin), dpi=dpi)
    engine.create_kb(ADMIN, "scans")
    [res] = engine.ingest(ADMIN, "scans", [Upload("scan.pdf", data)])
    assert res.status == "indexed", res
    doc = engine.file_text(ADMIN, res.file_id)
    assert doc.metadata["ocr_pages"] == [1] and len(doc.metadata["ocr_lines"]["1"]) >= 4
    chunk = chunk_with(engine, ADMIN, res.file_id, "Laptops")
    assert "Remote" not in chunk["text"]

    view = engine.citation_view(ADMIN, res.file_id, chunk["text"], page=1).pages[0]

    assert view.positions == "ocr" and view.note == "" and view.rects
    scale = view.width / pdfium.PdfDocument(data)[0].get_width()

    def drawn(i: int) -> tuple[float, float, float, float]:
        """Where the test drew line i, in the view's pixels (image px -> points -> view px)."""
        to_view = 72.0 / dpi * scale
        top = margin + i * size * 1.8
        return (margin * to_view, top * to_view, (margin + 10 * size) * to_view, (top + size) * to_view)

    assert all(_covered(drawn(i), view.rects) for i in (5, 6, 7))
    assert not any(_covered(drawn(i), view.rects) for i in (0, 1, 2))

    # A knowledge base parsed before OCR lines were kept: the page, no highlight, and why.
    old = engine._blobs.get_parsed(res.file_id)
    del old.metadata["ocr_lines"]
    engine._blobs.put_parsed(res.file_id, old)
    plain = engine.citation_view(ADMIN, res.file_id, chunk["text"] + " ", page=1).pages[0]  # not the cached view
    assert plain.png and plain.rects == [] and plain.positions == "none" and plain.note == "ocr_positions_missing"
    assert plain.excerpt_png == b""
