"""OCR through the real RapidOCR models: the shared scans and images, plus one generated image.

Slow (model load, a few seconds of CPU per page), so kept to these few documents.
"""

import io
import re

import pytest

from core.errors import ParseError
from core.parsers.base import ParseContext
from core.parsers.registry import parse_bytes
from core.settings.model import ParsingSettings
from tests.conftest import shared_path
from tests.parsers.office_manifest import manifest_phrases, squash
from tests.parsers.pdf_maker import Page, image_pdf, join_pdfs, make_pdf, text_image

pytestmark = pytest.mark.slow

SCANNED_PDFS = ["unstructured__loremipsum-flat.pdf", "rapidocrpdf__image.pdf"]
# The bundled PP-OCRv6 recogniser has no Hangul in its alphabet: Korean cannot be read.
NOT_READABLE = {("unstructured__english-and-korean.png", "안녕하세요")}


def _ocr_cases():
    phrases = dict(manifest_phrases("pdf") + manifest_phrases("image"))
    for name in SCANNED_PDFS + [n for n, _ in manifest_phrases("image")]:
        for phrase in phrases.get(name, []):
            marks = [pytest.mark.xfail(strict=True, reason="no Korean in the bundled OCR model")] if (name, phrase) in NOT_READABLE else []
            yield pytest.param(name, phrase, marks=marks, id=f"{name}:{phrase[:20]}")


_cache: dict[str, object] = {}


def _ocr_doc(name: str):
    if name not in _cache:
        doc = parse_bytes(shared_path("docs", name).read_bytes(), name)
        if name.endswith(".pdf"):
            assert doc.metadata["ocr_pages"] == [1] and [p.page for p in doc.parts] == [1]
        _cache[name] = doc
    return _cache[name]


def _ocr_text(name: str) -> str:
    return _ocr_doc(name).text


@pytest.mark.shared
def test_korean_is_reported_as_unreadable_not_returned_as_garbage():
    doc = _ocr_doc("unstructured__english-and-korean.png")
    assert "RULES AND INSTRUCTIONS" in doc.text and "successfully sent" in doc.text
    assert "YGEREASURE" not in doc.text and "\n., \n" not in doc.text  # the Korean lines misread
    [warning] = [w for w in doc.warnings if "could not be read" in w]
    assert int(re.search(r"(\d+) text line\(s\)", warning).group(1)) >= 2 and "Korean Hangul" in warning


@pytest.mark.shared
@pytest.mark.parametrize("name", ["unstructured__loremipsum-flat.pdf", "rapidocrpdf__image.pdf",
                                  "unstructured__chi_sim_image.jpeg", "unstructured__layout-parser-paper-with-table.jpg"])
def test_readable_scans_raise_no_unreadable_warning(name):
    assert not [w for w in _ocr_doc(name).warnings if "could not be read" in w]


@pytest.mark.shared
@pytest.mark.parametrize("name,phrase", list(_ocr_cases()) or [pytest.param("", "", marks=pytest.mark.skip("no MANIFEST"))])
def test_shared_scans_and_images_have_must_appear_phrases(name, phrase):
    assert squash(phrase) in squash(_ocr_text(name))


@pytest.mark.shared
def test_english_ocr_keeps_spaces_between_words():
    assert "Lorem ipsum dolor sit amet" in _ocr_text("unstructured__loremipsum-flat.pdf")


@pytest.mark.shared
def test_scanned_two_column_journal_page_is_read_column_by_column():
    text = squash(_ocr_text("rapidocrpdf__image.pdf"))
    # consecutive lines of the left column (one hyphenated at the line end), then the right column
    left = squash("tendency for the primary tumours to group together in the lower half of the figure with the lymph node metastases")
    right = squash("larger difference between the two patients than between different stages of cancer")
    assert left in text and right in text
    assert text.index(left) < text.index(right)


LINES = ["知识库问答系统 第一行", "Retrieval keeps English words apart", "第三行：严格模式只根据知识库作答"]


def test_mixed_pdf_ocrs_only_the_scanned_page_and_reads_chinese_and_english():
    typed = make_pdf([Page().text(72, 80, "Typed first page with a real text layer, long enough to trust.")])
    scanned = image_pdf(text_image(LINES))
    doc = parse_bytes(join_pdfs(typed, scanned), "mixed.pdf")
    assert doc.metadata["ocr_pages"] == [2]
    assert [p.page for p in doc.parts] == [1, 2]
    page_two = doc.parts[1].text
    positions = [squash(page_two).find(squash(line)) for line in LINES]
    assert all(p >= 0 for p in positions), page_two
    assert positions == sorted(positions)  # top to bottom
    assert "Retrieval keeps English words apart" in page_two


def test_image_file_is_ocred_in_reading_order_and_tiff_pages_become_parts():
    buffer = io.BytesIO()
    second = text_image(["Second TIFF page 第二页"])
    text_image(LINES).save(buffer, format="TIFF", save_all=True, append_images=[second])
    doc = parse_bytes(buffer.getvalue(), "scan.tiff")
    assert doc.mime == "image/tiff"
    assert [p.page for p in doc.parts] == [1, 2]
    text = squash(doc.parts[0].text)
    assert text.find(squash(LINES[0])) < text.find(squash(LINES[1])) < text.find(squash(LINES[2]))
    assert squash("Second TIFF page 第二页") in squash(doc.parts[1].text)


def test_ocr_page_time_limit_names_the_page():
    ctx = ParseContext(settings=ParsingSettings(ocr_page_timeout_seconds=0.001))
    scanned = image_pdf(text_image(LINES))
    with pytest.raises(ParseError, match=r"OCR of page 1 took longer than 0\.001 s"):
        parse_bytes(scanned, "slow.pdf", ctx)


def test_engine_can_be_released_and_rebuilt():
    from core.parsers import ocr

    image = text_image(["Released and rebuilt 重建"])
    buffer = io.BytesIO()
    image.save(buffer, format="PNG")
    ocr.release_engine()
    assert ocr._engine is None
    doc = parse_bytes(buffer.getvalue(), "again.png")
    assert squash("Released and rebuilt 重建") in squash(doc.text)
