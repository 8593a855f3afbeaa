import codecs

import pytest

from core.errors import CoreError
from core.parsers.registry import parse_bytes
from core.parsers.text import decode_text
from tests.conftest import shared_path
from tests.parsers.office_manifest import manifest_phrases, squash

CHINESE_SIMPLIFIED = (
    "知识库问答系统支持多种文档格式。管理员上传文件后，系统会自动解析、切分并建立索引，"
    "用户提问时先检索相关片段，再生成带引用的回答。严格模式下只根据知识库内容作答。"
)
CHINESE_TRADITIONAL = (
    "知識庫問答系統支援多種文件格式。管理員上傳檔案後，系統會自動解析、切分並建立索引，"
    "使用者提問時先檢索相關片段，再產生附有引用的回答。"
)

SHARED_MD = manifest_phrases("markdown")


@pytest.mark.shared
@pytest.mark.parametrize("name,phrases", SHARED_MD or [pytest.param("", [], marks=pytest.mark.skip("no MANIFEST"))])
def test_shared_markdown_has_every_must_appear_phrase(name, phrases):
    path = shared_path("docs", name)
    doc = parse_bytes(path.read_bytes(), name)
    missing = [p for p in phrases if squash(p) not in squash(doc.text)]
    assert not missing, f"{name}: missing {missing}"


@pytest.mark.shared
def test_latin1_markdown_decodes_umlauts():
    doc = parse_bytes(shared_path("docs", "unstructured__umlauts-non-utf8.md").read_bytes(), "u.md")
    assert "können" in doc.text and "äöüß" in doc.text
    assert doc.metadata["encoding"] in ("cp1252", "iso8859-1")


@pytest.mark.parametrize(
    "text,encoding",
    [
        (CHINESE_SIMPLIFIED, "gbk"),
        (CHINESE_SIMPLIFIED, "gb18030"),
        (CHINESE_TRADITIONAL, "big5"),
        ("Grüße aus Köln: naïve façade, “smart quotes” – €5", "cp1252"),
    ],
)
def test_legacy_encodings_are_detected(text, encoding):
    data = ("# Title\n\n" + text).encode(encoding)
    decoded, detected = decode_text(data)
    assert text in decoded, f"decoded as {detected}"
    assert not decoded.startswith("\ufeff")


def test_utf8_with_bom_loses_the_bom_and_keeps_text():
    data = codecs.BOM_UTF8 + "# 概述\n\nUTF-8 带 BOM 的文件。\r\n第二行".encode("utf-8")
    doc = parse_bytes(data, "bom.md")
    assert doc.text.startswith("# 概述")
    assert "第二行" in doc.text and "\r" not in doc.text
    assert doc.metadata["encoding"] == "utf-8-sig"


def test_utf16_with_bom_is_text():
    data = "Notes in UTF-16\n第二行".encode("utf-16")
    doc = parse_bytes(data, "notes.txt")
    assert "第二行" in doc.text


@pytest.mark.parametrize("encoding", ["utf-16-le", "utf-16-be"])
def test_utf16_without_a_bom_is_text_html_and_csv(encoding):
    # some Windows and Java tools, and mail exports, write UTF-16 with no byte-order mark
    notes = "Meeting notes, written by the export tool.\nAttendees: Ana, Li Wei\n第二行：年假十五天\n"
    doc = parse_bytes(notes.encode(encoding), "notes.txt")
    assert "第二行：年假十五天" in doc.text and "Attendees: Ana, Li Wei" in doc.text
    page = "<!DOCTYPE html><html><body><h1>Leave policy</h1><p>Fifteen days of annual leave. 年假十五天。</p></body></html>"
    doc = parse_bytes(page.encode(encoding), "policy.html")
    assert doc.metadata["kind"] == "html" and "年假十五天" in doc.text and "<p>" not in doc.text
    table = "item,price\nstapler,4.50\npaper,3.20\n"
    assert "stapler" in parse_bytes(table.encode(encoding), "prices.csv").text


def test_binary_with_nul_bytes_is_still_not_text():
    blob = bytes(range(256)) * 40
    with pytest.raises(CoreError):
        parse_bytes(blob, "blob.dat")


def test_gbk_text_file_through_the_registry():
    doc = parse_bytes(CHINESE_SIMPLIFIED.encode("gbk"), "说明.txt")
    assert doc.text == CHINESE_SIMPLIFIED
    assert doc.mime == "text/plain"


def test_markdown_parts_carry_heading_paths_and_code_fences_are_not_headings():
    md = "# Guide\n\nIntro.\n\n## Install\n\n```sh\n# not a heading\npip install x\n```\n\n### Linux\n\nApt.\n\n## Use\n\nRun it."
    doc = parse_bytes(md.encode(), "guide.md")
    paths = [p.heading_path for p in doc.parts]
    assert paths == [("Guide",), ("Guide", "Install"), ("Guide", "Install", "Linux"), ("Guide", "Use")]
    assert "# not a heading" in doc.parts[1].text
    assert doc.title == "Guide"
    assert doc.text == md
