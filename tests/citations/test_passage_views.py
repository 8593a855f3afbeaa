"""Citations of slides, sheets and text files: the passage marked in the text around it."""

from __future__ import annotations

import io

import pptx
from openpyxl import Workbook

from core.citations.match import normalise
from core.citations.types import PassageView, SheetView
from core.ingest.service import Upload
from core.types import SYSTEM_ACTOR as ADMIN
from tests.citations.conftest import chunk_with
from tests.engine.conftest import HANDBOOK_MD, POLICY_MD, md


def _marked(view: PassageView) -> str:
    return "".join(view.text[s:e] for s, e in view.spans)


def _deck() -> bytes:
    deck = pptx.Presentation()
    for title, body, notes in [
        ("Quarterly goals", "Grow revenue by ten percent\nOpen the Lyon office", "Ask finance for the exact figure."),
        ("Hiring plan", "Two engineers in spring\nOne designer in autumn", "The designer role is still unapproved."),
    ]:
        slide = deck.slides.add_slide(deck.slide_layouts[1])
        slide.shapes.title.text = title
        slide.placeholders[1].text_frame.text = body
        slide.notes_slide.notes_text_frame.text = notes
    out = io.BytesIO()
    deck.save(out)
    return out.getvalue()


def test_slide_citation_shows_its_slide_title_text_and_notes_with_the_passage_marked(engine):
    engine.create_kb(ADMIN, "plans")
    [res] = engine.ingest(ADMIN, "plans", [Upload("plans.pptx", _deck())])
    chunk = chunk_with(engine, ADMIN, res.file_id, "Two engineers")
    view = engine.citation_view(ADMIN, res.file_id, chunk["text"], slide=chunk["slide"],
                                heading_path=chunk["heading_path"])
    assert isinstance(view, PassageView) and view.kind == "slide" and view.slide == 2
    assert view.title == "Slide 2: Hiring plan" and view.note == ""
    assert "Two engineers in spring" in view.text and "Notes: The designer role is still unapproved." in view.text
    assert "Lyon" not in view.text  # only its own slide
    assert "Two engineers in spring" in _marked(view) and "designer role" in _marked(view)


def test_text_citation_marks_the_passage_inside_its_surrounding_paragraphs(engine):
    engine.create_kb(ADMIN, "docs")
    [res] = engine.ingest(ADMIN, "docs", [md("handbook.md", HANDBOOK_MD)])
    chunk = chunk_with(engine, ADMIN, res.file_id, "Lost equipment")
    view = engine.citation_view(ADMIN, res.file_id, chunk["text"], heading_path=chunk["heading_path"])
    assert isinstance(view, PassageView) and view.kind == "text" and view.note == ""
    marked = _marked(view)
    assert "Lost equipment must be reported to the IT desk within 24 hours." in marked
    assert "remotely" not in marked and "remotely" in view.text  # the text around it, unmarked
    assert normalise(marked)[0] in normalise(chunk["text"])[0] or normalise(chunk["text"])[0] in normalise(marked)[0]


def test_chinese_text_citation_is_marked_where_it_stands(engine):
    engine.create_kb(ADMIN, "zh")
    [res] = engine.ingest(ADMIN, "zh", [md("travel.md", POLICY_MD)])
    chunk = chunk_with(engine, ADMIN, res.file_id, "第五条")
    view = engine.citation_view(ADMIN, res.file_id, chunk["text"])
    marked = _marked(view)
    assert "一线城市住宿费每人每晚不超过六百元" in marked and "二等座" not in marked


def _workbook() -> bytes:
    book = Workbook()
    sheet = book.active
    sheet.title = "Allowances"
    sheet.append(["City", "Hotel per night", "Meals per day"])
    for i in range(30):
        sheet.append([f"City {i:02d}", 100 + i, 30 + i])
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()


def test_sheet_citation_shows_the_cited_rows_among_neighbours_under_the_header(engine):
    engine.create_kb(ADMIN, "money")
    [res] = engine.ingest(ADMIN, "money", [Upload("allowances.xlsx", _workbook())])
    chunks = engine.file_chunks(ADMIN, res.file_id)
    assert len(chunks) >= 3  # 30 rows at 160 characters a chunk
    chunk = chunks[1]
    view = engine.citation_view(ADMIN, res.file_id, chunk["text"], heading_path=chunk["heading_path"])
    assert isinstance(view, SheetView) and view.sheet == "Allowances" and view.note == ""
    assert view.header == ["City", "Hotel per night", "Meals per day"]
    cited = [r for r in view.rows if r.cited]
    assert cited and all(r.cells[0] in chunk["text"] for r in cited)
    # every row of the chunk is marked, and some rows around it are shown unmarked
    in_chunk = [f"City {i:02d}" for i in range(30) if f"| City {i:02d} |" in chunk["text"]]
    assert [r.cells[0] for r in cited] == in_chunk
    assert any(not r.cited for r in view.rows) and len(view.rows) <= len(cited) + 6
