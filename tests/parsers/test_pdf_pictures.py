"""Pictures on PDF pages: OCR'd on their own when the page is not a scan (real RapidOCR)."""

from __future__ import annotations

import pytest
from PIL import Image, ImageDraw, ImageFont

from core.parsers.base import ParseContext
from core.parsers.registry import parse_bytes
from core.settings.model import ParsingSettings
from tests.parsers.pdf_maker import Page, cjk_font_path, image_pdf, make_pdf, place_picture

pytestmark = pytest.mark.slow

ROWS = [("State", "Permits", "Handgun", "Long Gun")] + [
    (f"Region {n}", str(1000 + n * 37), str(200 + n * 11), str(50 + n * 3)) for n in range(1, 9)
]


def ruled_table_image(rows, dpi: int = 150, size_pt: float = 14):
    """A scanned ruled table: black rules, large type, as a Pillow image."""
    scale = dpi / 72
    size = int(size_pt * scale)
    font = ImageFont.truetype(str(cjk_font_path()), size)
    cell_w, line_h, margin = int(1.7 * dpi), int(size * 1.3), 12
    heights = [max(len(cell.split("\n")) for cell in row) * line_h + int(size * 0.6) for row in rows]
    image = Image.new("RGB", (cell_w * len(rows[0]) + 2 * margin, sum(heights) + 2 * margin), "white")
    draw = ImageDraw.Draw(image)
    y = margin
    for row, cell_h in zip(rows, heights):
        for c, cell in enumerate(row):
            x = margin + c * cell_w
            draw.rectangle([x, y, x + cell_w, y + cell_h], outline="black", width=2)
            lines = cell.split("\n")  # a multi-line cell, centred in its row like a header cell
            first = y + (cell_h - len(lines) * line_h) // 2 + (line_h - size) // 2 - size // 8
            for i, line in enumerate(lines):
                draw.text((x + 10, first + i * line_h), line, fill="black", font=font)
        y += cell_h
    return image


def test_image_only_page_with_a_small_ruled_table_is_read():
    """The table picture covers about a fifth of the page: too small to call the page a scan,
    which used to leave the page unread ("OCR found no readable text"), OCR never having run."""
    picture = ruled_table_image(ROWS)
    data = place_picture(make_pdf([Page()]), picture, left=60, top=80, width=330)
    doc = parse_bytes(data, "table-scan.pdf")
    assert doc.metadata["ocr_picture_pages"] == [1] and doc.metadata["ocr_pages"] == []
    lines = doc.text.splitlines()
    assert lines[0].split() == ["State", "Permits", "Handgun", "Long", "Gun"]
    for name, permits, handgun, long_gun in ROWS[1:]:
        assert f"{name} {permits} {handgun} {long_gun}" in lines


def text_poster():
    """A picture full of text: Chinese lines, a vertical Chinese text box, some English."""
    font = ImageFont.truetype(str(cjk_font_path()), 44)
    image = Image.new("RGB", (1300, 900), "white")
    draw = ImageDraw.Draw(image)
    for i, line in enumerate(["员工差旅管理办法", "住宿费每晚不超过六百元", "Reimbursement within 30 days"]):
        draw.text((60, 60 + i * 110), line, fill="black", font=font)
    draw.rectangle([1120, 40, 1240, 860], outline="black", width=3)
    for i, ch in enumerate("报销须附发票"):
        draw.text((1158, 70 + i * 62), ch, fill="black", font=font)
    draw.text((60, 520), "Contact: finance office", fill="black", font=font)
    return image


def test_picture_text_joins_the_text_layer_in_reading_order():
    page = Page().text(72, 60, "Notice to all staff about the new travel rules, read the poster", 11)
    page.text(72, 560, "Questions go to the finance team before you book any trip", 11)
    data = place_picture(make_pdf([page]), text_poster(), left=72, top=90, width=430)
    doc = parse_bytes(data, "notice.pdf")
    assert doc.metadata["ocr_pages"] == [] and doc.metadata["ocr_picture_pages"] == [1]
    text = doc.text
    for phrase in ("员工差旅管理办法", "住宿费每晚不超过六百元", "Reimbursement within 30 days", "报销须附发票", "Contact: finance office"):
        assert phrase in text.replace(" ", "") or phrase in text, (phrase, text)
    # the text layer once, and the picture's lines between the two typed lines
    assert text.count("Notice to all staff") == 1
    order = ["Notice to all staff", "员工差旅", "住宿费", "Reimbursement", "Contact", "报销须附发票", "Questions go to"]
    assert [text.index(p) for p in order] == sorted(text.index(p) for p in order), text


def test_pictures_are_not_read_when_the_setting_is_off_and_small_pictures_never():
    page = Page().text(72, 60, "A page of typed text with a small logo beside it, nothing to OCR here", 11)
    logo = text_poster().resize((130, 90))
    data = place_picture(make_pdf([page]), logo, left=400, top=40, width=40)  # 40 pt wide: an icon
    assert parse_bytes(data, "logo.pdf").metadata["ocr_picture_pages"] == []
    poster = place_picture(make_pdf([page]), text_poster(), left=72, top=90, width=430)
    off = ParseContext(settings=ParsingSettings(ocr_pdf_pictures=False))
    doc = parse_bytes(poster, "notice.pdf", off)
    assert doc.metadata["ocr_picture_pages"] == [] and "员工" not in doc.text


def test_multi_line_cells_of_a_scanned_table_read_top_to_bottom():
    """Header cells of two and three lines beside one-line cells centred between them: each
    cell's lines in order ("Disability Category", not "Category Disability")."""
    header = ("Disability\nCategory", "Participants", "Ballots\nCompleted", "Ballots\nIncomplete/\nTerminated")
    rows = [header, ("Blind", "5", "1", "4"), ("Low Vision", "5", "2", "3"), ("Dexterity", "5", "4", "1")]
    scan = image_pdf(ruled_table_image(rows, dpi=200, size_pt=13), dpi=200)
    doc = parse_bytes(scan, "ballots.pdf")
    assert doc.metadata["ocr_pages"] == [1]
    first = doc.text.splitlines()[0]
    assert first.split() == ["Disability", "Category", "Participants", "Ballots", "Completed", "Ballots",
                             "Incomplete/", "Terminated"], doc.text
    assert "Low Vision 5 2 3" in doc.text and "Dexterity 5 4 1" in doc.text
