import pytest

from core.errors import Cancelled, ParseError
from core.parsers.base import ParseContext
from core.parsers.registry import parse_bytes
from core.settings.model import ParsingSettings
from tests.conftest import shared_path
from tests.parsers.office_manifest import manifest_phrases, squash
from tests.parsers.pdf_maker import Page, image_pdf, make_pdf, stamp_text, text_image

SCANNED = {"unstructured__loremipsum-flat.pdf", "rapidocrpdf__image.pdf"}
SHARED_TEXT_PDFS = [(n, p) for n, p in manifest_phrases("pdf") if n not in SCANNED and p]
NO_OCR = ParseContext(settings=ParsingSettings(ocr_enabled=False))


@pytest.mark.shared
@pytest.mark.parametrize("name,phrases", SHARED_TEXT_PDFS or [pytest.param("", [], marks=pytest.mark.skip("no MANIFEST"))])
def test_shared_text_pdfs_have_every_must_appear_phrase_without_ocr(name, phrases):
    doc = parse_bytes(shared_path("docs", name).read_bytes(), name, NO_OCR)
    missing = [p for p in phrases if squash(p) not in squash(doc.text)]
    assert not missing, f"{name}: missing {missing}"
    assert doc.metadata["ocr_pages"] == []
    assert all(part.page is not None for part in doc.parts)


@pytest.mark.shared
def test_ruled_table_rows_stay_whole_in_markdown():
    doc = parse_bytes(shared_path("docs", "pdfplumber__nics-background-checks-2015-11.pdf").read_bytes(), "nics.pdf", NO_OCR)
    lines = doc.text.splitlines()
    alabama = [line for line in lines if line.startswith("| Alabama |")]
    assert len(alabama) == 1 and "| 71,137 |" in alabama[0]
    assert alabama[0].count("|") == lines[0].count("|")  # as many cells as the header row
    wyoming = next(line for line in lines if line.startswith("| Wyoming |"))
    assert wyoming.rstrip(" |").endswith("| 5,017")  # the row's own total, not a neighbour's
    # table text is not repeated as loose text
    assert sum("Alabama" in line for line in lines) == 1
    assert doc.metadata["tables"] == 1


@pytest.mark.shared
def test_two_column_paper_is_read_column_by_column_with_pages():
    doc = parse_bytes(shared_path("docs", "unstructured__multi-column-2p.pdf").read_bytes(), "dpr.pdf", NO_OCR)
    assert [p.page for p in doc.parts] == [1, 2]
    first = doc.parts[0].text
    # consecutive lines of the left column, joined across a hyphenated line break
    assert "relies on efficient passage retrieval to select candidate" in " ".join(first.split())
    assert first.index("Abstract") < first.index("1 Introduction") < first.index("Retrieval in open-domain QA is usually")
    assert "Dense Passage Retrieval for Open-Domain Question Answering" in doc.parts[0].text
    assert "arXiv:2004.04906" in first  # the rotated margin stamp is kept, apart from the columns


@pytest.mark.shared
def test_password_protected_pdf_fails_clearly():
    with pytest.raises(ParseError, match="password-protected"):
        parse_bytes(shared_path("docs", "unstructured__password.pdf").read_bytes(), "unstructured__password.pdf")


def test_generated_two_page_chinese_english_pdf_keeps_pages():
    pages = [
        Page().text(72, 80, "Quarterly report 季度报告", 16).text(72, 120, "知识库检索与问答系统的第一页。"),
        Page().text(72, 80, "Second page: retrieval augmented generation").text(72, 110, "第二页的中文内容。"),
    ]
    doc = parse_bytes(make_pdf(pages), "report.pdf", NO_OCR)
    assert [p.page for p in doc.parts] == [1, 2]
    assert "季度报告" in doc.parts[0].text and "知识库检索与问答系统的第一页。" in doc.parts[0].text
    assert "第二页的中文内容。" in doc.parts[1].text and "retrieval augmented generation" in doc.parts[1].text
    assert doc.metadata == {"pages": 2, "ocr_pages": [], "ocr_picture_pages": [], "tables": 0, "kind": "pdf", "parser": "pdf"}


def _column_lines(prefix: str) -> list[str]:
    return [f"{prefix} line {i} of running column text here" for i in range(1, 9)]


def test_generated_two_column_page_is_read_down_each_column():
    page = Page().text(72, 60, "A Title That Spans Both Columns Of The Page", 18)
    for i, (left, right) in enumerate(zip(_column_lines("Left"), _column_lines("Right"))):
        page.text(50, 120 + i * 14, left, 10).text(320, 120 + i * 14, right, 10)
    text = parse_bytes(make_pdf([page]), "cols.pdf", NO_OCR).text
    order = [text.index(line) for line in [*_column_lines("Left"), *_column_lines("Right")]]
    assert order == sorted(order), text
    assert text.index("A Title That Spans") < order[0]


def test_generated_ruled_table_becomes_markdown_and_is_not_repeated():
    page = Page().text(72, 60, "Inventory before the table", 12)
    xs, ys = [72, 200, 330, 460], [100, 125, 150, 175]
    for y in ys:
        page.line(xs[0], y, xs[-1], y)
    for x in xs:
        page.line(x, ys[0], x, ys[-1])
    rows = [("名称", "Price", "Stock"), ("苹果 Apples", "1.99", "739"), ("Bananas", "1.89", "6")]
    for r, row in enumerate(rows):
        for c, cell in enumerate(row):
            page.text(xs[c] + 6, ys[r] + 17, cell, 10)
    page.text(72, 220, "Text after the table", 12)
    doc = parse_bytes(make_pdf([page]), "table.pdf", NO_OCR)
    lines = doc.text.splitlines()
    assert "| 名称 | Price | Stock |" in lines
    assert "| --- | --- | --- |" in lines
    assert "| 苹果 Apples | 1.99 | 739 |" in lines
    assert doc.text.count("739") == 1
    assert doc.text.index("Inventory before") < doc.text.index("| 名称") < doc.text.index("Text after")


def test_scanned_page_with_ocr_off_fails_with_the_reason(tmp_path):
    scan = image_pdf(text_image(["A scanned page"]))
    with pytest.raises(ParseError, match="no text could be extracted.*OCR is turned off"):
        parse_bytes(scan, "scan.pdf", NO_OCR)


def test_progress_is_reported_per_page_and_cancel_stops_parsing():
    data = make_pdf([Page().text(72, 72, f"Page number {i} text") for i in range(1, 5)])
    seen = []
    ctx = ParseContext(settings=ParsingSettings(ocr_enabled=False), progress=lambda d, t, m: seen.append((d, t)))
    parse_bytes(data, "four.pdf", ctx)
    assert seen[0] == (0, 4) and seen[-1] == (4, 4) and (3, 4) in seen

    def cancel_at_page_three(done, total, message):
        if done == 2:
            raise Cancelled("cancelled by the admin")

    with pytest.raises(Cancelled):
        parse_bytes(data, "four.pdf", ParseContext(settings=ParsingSettings(ocr_enabled=False), progress=cancel_at_page_three))


def test_garbage_text_layer_is_not_indexed_when_ocr_is_off():
    garbled = "This sentence was exported with a broken font map and reads as nonsense."
    good = Page().text(72, 80, "A normal first page with a trustworthy text layer.")
    doc = parse_bytes(make_pdf([good, Page().garbled_text(72, 80, garbled)]), "broken.pdf", NO_OCR)
    assert [p.page for p in doc.parts] == [1]
    assert not any(0xE000 <= ord(ch) <= 0xF8FF for ch in doc.text)
    assert any(w.startswith("page 2: its text layer is garbage") for w in doc.warnings)
    with pytest.raises(ParseError, match="no text could be extracted"):
        parse_bytes(make_pdf([Page().garbled_text(72, 80, garbled)]), "all-broken.pdf", NO_OCR)


def test_rotated_page_keeps_its_line_order():
    import io

    import pypdfium2 as pdfium

    lines = [f"Line {i} of a page that is shown rotated by ninety degrees" for i in range(1, 6)]
    page = Page()
    for i, line in enumerate(lines):
        page.text(72, 100 + i * 16, line)
    document = pdfium.PdfDocument(make_pdf([page]))
    document[0].set_rotation(90)
    buffer = io.BytesIO()
    document.save(buffer)
    text = parse_bytes(buffer.getvalue(), "rotated.pdf", NO_OCR).text
    assert text.splitlines() == lines


def test_scan_with_a_typed_stamp_is_still_sent_to_ocr():
    scan = image_pdf(text_image(["The scanned body text of a contract page"] * 6))
    stamped = stamp_text(scan, "CONFIDENTIAL - received 2026-11-29 by the records office")
    doc = parse_bytes(stamped, "stamped.pdf", NO_OCR)
    assert "CONFIDENTIAL - received 2026-11-29" in doc.text  # OCR off: the stamp is all there is
    assert any("page 1: its text layer is short beside a page-size image" in w for w in doc.warnings)
    typed = make_pdf([Page().text(72, 80, "A typed page of text without any image, " * 2)])
    assert parse_bytes(typed, "typed.pdf", NO_OCR).warnings == []
