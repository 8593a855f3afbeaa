import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from core.errors import FileTooLarge, NotFound, ParseError, UnsupportedFormat
from core.parsers.base import ParseContext
from core.parsers.registry import (
    SUPPORTED_EXTENSIONS,
    detect_kind,
    parse_bytes,
    parse_path,
    to_json,
)
from core.settings.model import ParsingSettings
from tests.conftest import REPO_ROOT, shared_path
from tests.parsers.pdf_maker import Page, make_pdf

PNG_1PX = bytes.fromhex(
    "89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d49444154789c6360000002"
    "0001e221bc330000000049454e44ae426082"
)


@pytest.mark.parametrize(
    "data,name,kind",
    [
        (b"%PDF-1.7\n...", "x.bin", "pdf"),
        (PNG_1PX, "photo.dat", "image"),
        (b"\xff\xd8\xff\xe0\x00\x10JFIF", "a.jpg", "image"),
        (b"GIF89a\x01\x00", "a", "image"),
        (b"RIFF\x10\x00\x00\x00WEBPVP8 ", "a.webp", "image"),
        (b"II*\x00\x08\x00\x00\x00", "scan.tif", "image"),
        (b"<!DOCTYPE html><html><body>x</body></html>", "page", "html"),
        (b"# Title\n\nBody", "notes", "markdown"),
        (b"# Title\n\nBody", "notes.txt", "text"),
        (b"plain words only", "notes", "text"),
        (b"<p>inline html in markdown</p>\n# Head", "readme.md", "markdown"),
        ("中文文本".encode("gbk"), "a.txt", "text"),
        (b"BMW and BMX bikes are text, not bitmaps", "bikes", "text"),
    ],
)
def test_detect_kind_from_content(data, name, kind):
    assert detect_kind(data, name) == kind


def test_zip_members_decide_word_powerpoint_or_excel():
    import io
    import zipfile

    def zipped(member: str) -> bytes:
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w") as archive:
            archive.writestr(member, "<x/>")
        return buffer.getvalue()

    assert detect_kind(zipped("word/document.xml"), "renamed.zip") == "docx"
    assert detect_kind(zipped("ppt/presentation.xml"), "deck.docx") == "pptx"
    assert detect_kind(zipped("xl/workbook.xml"), "book.zip") == "xlsx"
    with pytest.raises(UnsupportedFormat, match="zip archive but not a Word, PowerPoint or Excel"):
        detect_kind(zipped("data.csv"), "archive.zip")


def test_docx_that_is_not_a_zip_is_a_clear_error():
    with pytest.raises(ParseError, match=r"not a valid Word file \(not a zip archive\)"):
        parse_bytes(b"just some text pretending", "report.docx")
    with pytest.raises(ParseError, match=r"not a valid PowerPoint file \(not a zip archive\)"):
        parse_bytes(b"%PDF-1.4 really a pdf", "slides.pptx")


def test_random_bytes_are_unsupported_and_the_message_lists_supported_types():
    noise = bytes((i * 73 + 41) % 256 for i in range(4096)) + b"\x00\x01\x02"
    with pytest.raises(UnsupportedFormat) as caught:
        parse_bytes(noise, "blob.bin")
    assert "PDF" in caught.value.message and "Markdown" in caught.value.message
    with pytest.raises(ParseError, match="not a valid PDF"):
        parse_bytes(noise, "blob.pdf")


def test_html_disguised_as_pdf_is_parsed_as_html_with_a_warning():
    html = b"<!DOCTYPE html><html><head><title>Quarterly</title></head><body><p>Revenue grew in the third quarter.</p></body></html>"
    doc = parse_bytes(html, "report.pdf")
    assert "Revenue grew in the third quarter." in doc.text
    assert doc.metadata["kind"] == "html"
    assert any(".pdf" in w and "HTML" in w for w in doc.warnings)


def test_truncated_pdf_fails_with_a_clear_error():
    data = make_pdf([Page().text(72, 72, "Complete sentence on the page")])
    with pytest.raises(ParseError, match="corrupt or truncated"):
        parse_bytes(data[: len(data) // 3], "cut.pdf")


def test_empty_file_and_empty_result_are_errors():
    with pytest.raises(ParseError, match="empty"):
        parse_bytes(b"", "nothing.txt")
    with pytest.raises(ParseError, match="no text could be extracted"):
        parse_bytes(b"\n\n   \n", "blank.md")


def test_size_cap_applies_before_parsing(tmp_path):
    ctx = ParseContext(settings=ParsingSettings(max_upload_mb=1))
    big = b"a" * (1024 * 1024 + 1)
    with pytest.raises(FileTooLarge, match="more than the upload limit of 1 MB"):
        parse_bytes(big, "big.txt", ctx)
    path = tmp_path / "big.txt"
    path.write_bytes(big)
    with pytest.raises(FileTooLarge):
        parse_path(path, ctx)
    with pytest.raises(NotFound):
        parse_path(tmp_path / "missing.pdf", ctx)


def test_parse_path_and_to_json_round_trip(tmp_path):
    path = tmp_path / "two.pdf"
    path.write_bytes(make_pdf([Page().text(72, 72, "First page text"), Page().text(72, 72, "Second page text")]))
    doc = parse_path(path)
    data = json.loads(json.dumps(to_json(doc)))
    assert data["source_name"] == "two.pdf"
    assert [p["page"] for p in data["parts"]] == [1, 2]
    assert data["metadata"]["pages"] == 2 and data["metadata"]["ocr_pages"] == []
    assert "Second page text" in data["text"]


def test_supported_extensions_cover_every_kind():
    for ext in ("pdf", "docx", "pptx", "xlsx", "csv", "png", "jpg", "webp", "bmp", "tiff", "html", "md", "txt"):
        assert ext in SUPPORTED_EXTENSIONS


@pytest.mark.shared
def test_text_pdf_and_markdown_do_not_load_ocr():
    """OCR (onnxruntime + OpenCV, hundreds of MB) must load only for pages that need it."""
    pdf = shared_path("docs", "unstructured__multi-column-2p.pdf")
    md = shared_path("docs", "cmrc2018__README_CN.md")
    code = (
        "import sys; from pathlib import Path; from core.parsers.registry import parse_path;"
        f"parse_path(Path({str(pdf)!r})); parse_path(Path({str(md)!r}));"
        "print(sorted(m for m in ('rapidocr', 'onnxruntime', 'cv2') if m in sys.modules))"
    )
    env = dict(os.environ, PYTHONPATH=str(REPO_ROOT))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=Path(REPO_ROOT), check=True)
    assert out.stdout.strip() == "[]", out.stdout + out.stderr
