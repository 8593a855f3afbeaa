import copy
import io

import docx
import pytest
from docx.oxml import OxmlElement
from docx.oxml.ns import qn

from core.errors import ParseError
from core.parsers.base import ParseContext
from core.parsers.docx import PARSER
from core.settings.model import ParsingSettings
from tests.conftest import shared_path
from tests.parsers.office_manifest import manifest_phrases, squash

SHARED_DOCX = manifest_phrases("docx")


@pytest.mark.shared
@pytest.mark.parametrize("name,phrases", SHARED_DOCX or [pytest.param("", [], marks=pytest.mark.skip("no MANIFEST"))])
def test_shared_docx_has_every_must_appear_phrase(name, phrases):
    path = shared_path("docs", name)
    doc = PARSER.parse(path.read_bytes(), name, ParseContext())
    text = squash(doc.text)
    missing = [p for p in phrases if squash(p) not in text]
    assert not missing, f"{name}: missing {missing}"


@pytest.mark.shared
def test_shared_merged_and_nested_tables_keep_cells_once_and_rows_whole():
    doc = PARSER.parse(shared_path("docs", "unstructured__docx-tables.docx").read_bytes(), "t.docx", ParseContext())
    lines = doc.text.splitlines()
    assert "| Header Col 1 | Header Col 2 |" in lines
    assert "| Lorem ipsum | A link example |" in lines
    # the nested table's text is flattened into its own cell of the outer row
    nested_row = next(line for line in lines if line.startswith("| d |"))
    assert nested_row.count("|") == 4 and "e" in nested_row and "h" in nested_row


def _numbered(paragraph, num_id: int, ilvl: int) -> None:
    pPr = paragraph._p.get_or_add_pPr()
    numPr = OxmlElement("w:numPr")
    for tag, value in (("w:ilvl", ilvl), ("w:numId", num_id)):
        el = OxmlElement(tag)
        el.set(qn("w:val"), str(value))
        numPr.append(el)
    pPr.append(numPr)


@pytest.fixture
def chinese_docx() -> bytes:
    d = docx.Document()
    d.core_properties.title = ""
    d.add_paragraph("知识库使用手册", style="Title")
    d.add_paragraph("第一章 概述", style="Heading 1")
    d.add_paragraph("本系统支持上传文档并进行检索问答。")
    d.add_paragraph("主要功能", style="Heading 2")
    d.add_paragraph("文档解析", style="List Bullet")
    d.add_paragraph("表格识别", style="List Bullet 2")
    d.add_paragraph("合并单元格", style="List Bullet 2")
    d.add_paragraph("向量检索", style="List Bullet")
    step1 = d.add_paragraph("上传文件", style="List Number")
    d.add_paragraph("选择知识库", style="List Number")
    sub = d.add_paragraph("确认权限")
    _numbered(sub, 5, 1)  # "List Number" is numId 5 in python-docx's template: a level-2 item
    d.add_paragraph("第二章 数据", style="Heading 1")
    table = d.add_table(rows=3, cols=3)
    for r, row in enumerate([["地区", "季度", "销售额"], ["华东", "Q1", "120"], ["华南", "Q2", "95"]]):
        for c, value in enumerate(row):
            table.cell(r, c).text = value
    merged = table.cell(1, 0).merge(table.cell(2, 0))  # vertical merge
    merged.text = "华东华南"
    wide = table.cell(0, 1).merge(table.cell(0, 2))  # horizontal merge
    wide.text = "季度与销售额"
    inner = table.cell(2, 2).add_table(rows=1, cols=2)
    inner.cell(0, 0).text = "内层甲"
    inner.cell(0, 1).text = "内层乙"
    # a ragged table: the second row lost a cell
    ragged = d.add_table(rows=2, cols=3)
    for c, value in enumerate(["名称", "数量", "单位"]):
        ragged.cell(0, c).text = value
    ragged.cell(1, 0).text = "苹果"
    ragged.cell(1, 1).text = "3"
    row = ragged.rows[1]._tr
    row.remove(row.tc_lst[-1])
    d.sections[0].header.paragraphs[0].text = "内部资料 页眉"
    d.sections[0].footer.paragraphs[0].text = "版权所有 页脚"
    assert step1.text
    buffer = io.BytesIO()
    d.save(buffer)
    return buffer.getvalue()


def test_headings_become_markdown_and_heading_paths(chinese_docx):
    doc = PARSER.parse(chinese_docx, "手册.docx", ParseContext())
    assert doc.title == "知识库使用手册"
    lines = doc.text.splitlines()
    assert "# 知识库使用手册" in lines and "# 第一章 概述" in lines and "## 主要功能" in lines
    body = next(p for p in doc.parts if "本系统支持上传文档" in p.text)
    assert body.heading_path == ("第一章 概述",)
    features = next(p for p in doc.parts if "文档解析" in p.text)
    assert features.heading_path == ("第一章 概述", "主要功能")
    data = next(p for p in doc.parts if "地区" in p.text)
    assert data.heading_path == ("第二章 数据",)


def test_lists_nest_and_number(chinese_docx):
    lines = PARSER.parse(chinese_docx, "手册.docx", ParseContext()).text.splitlines()
    assert "- 文档解析" in lines
    assert "    - 表格识别" in lines and "    - 合并单元格" in lines
    assert "- 向量检索" in lines
    assert "1. 上传文件" in lines and "2. 选择知识库" in lines
    assert "    1. 确认权限" in lines
    # one tight list: no blank line between consecutive items
    joined = "\n".join(lines)
    assert "- 文档解析\n    - 表格识别" in joined


def test_merged_ragged_and_nested_cells(chinese_docx):
    text = PARSER.parse(chinese_docx, "手册.docx", ParseContext()).text
    assert text.count("华东华南") == 1, "a vertically merged cell must not repeat its text"
    assert text.count("季度与销售额") == 1, "a horizontally merged cell must not repeat its text"
    lines = text.splitlines()
    header = next(line for line in lines if line.startswith("| 地区"))
    assert header == "| 地区 | 季度与销售额 |  |"
    nested = next(line for line in lines if "内层甲" in line)
    assert "内层乙" in nested and nested.startswith("|  | Q2 |")
    ragged_header = next(line for line in lines if line.startswith("| 名称"))
    ragged_row = next(line for line in lines if line.startswith("| 苹果"))
    assert ragged_row == "| 苹果 | 3 |  |" and ragged_row.count("|") == ragged_header.count("|")


def test_headers_and_footers_follow_the_setting(chinese_docx):
    off = PARSER.parse(chinese_docx, "手册.docx", ParseContext()).text
    assert "页眉" not in off and "页脚" not in off
    on = PARSER.parse(chinese_docx, "手册.docx", ParseContext(settings=ParsingSettings(docx_headers_footers=True)))
    assert on.parts[0].text == "Header: 内部资料 页眉"
    assert on.parts[-1].text == "Footer: 版权所有 页脚"


def _text_image(path, text: str) -> None:
    from PIL import Image, ImageDraw, ImageFont

    image = Image.new("RGB", (900, 140), "white")
    ImageDraw.Draw(image).text((30, 40), text, fill="black", font=ImageFont.load_default(size=56))
    image.save(path)


def _with_picture(data: bytes, picture) -> bytes:
    d = docx.Document(io.BytesIO(data))
    d.add_picture(str(picture))
    buffer = io.BytesIO()
    d.save(buffer)
    return buffer.getvalue()


def test_embedded_images_are_not_read_unless_asked(chinese_docx, tmp_path):
    _text_image(tmp_path / "scan.png", "INVOICE 4711")
    data = _with_picture(chinese_docx, tmp_path / "scan.png")
    doc = PARSER.parse(data, "x.docx", ParseContext())
    assert "[Image text]" not in doc.text and "ocr_images" not in doc.metadata


@pytest.mark.slow
def test_embedded_image_text_is_read_with_ocr(chinese_docx, tmp_path):
    _text_image(tmp_path / "scan.png", "INVOICE 4711")
    data = _with_picture(chinese_docx, tmp_path / "scan.png")
    doc = PARSER.parse(data, "x.docx", ParseContext(settings=ParsingSettings(ocr_docx_images=True)))
    assert doc.metadata["ocr_images"] == 1
    image_line = next(line for line in doc.text.splitlines() if line.startswith("[Image text]"))
    assert "INVOICE" in image_line and "4711" in image_line
    # the image text sits where the picture is: after the last table, in the last section
    assert "[Image text]" in doc.parts[-1].text


def test_broken_document_xml_fails_alone():
    d = docx.Document()
    d.add_paragraph("hello")
    buffer = io.BytesIO()
    d.save(buffer)
    import zipfile

    source = zipfile.ZipFile(io.BytesIO(buffer.getvalue()))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as target:
        for info in source.infolist():
            data = source.read(info)
            if info.filename == "word/document.xml":
                data = data[: len(data) // 2]  # truncated XML
            target.writestr(copy.copy(info), data)
    with pytest.raises(ParseError, match="Word"):
        PARSER.parse(out.getvalue(), "broken.docx", ParseContext())


W = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
MC = "http://schemas.openxmlformats.org/markup-compatibility/2006"
WPS = "http://schemas.microsoft.com/office/word/2010/wordprocessingShape"


def test_tracked_changes_read_as_accepted_and_text_boxes_once():
    from docx.oxml import parse_xml

    d = docx.Document()
    p = d.add_paragraph("合同金额为")
    p._p.append(parse_xml(f'<w:ins xmlns:w="{W}" w:id="1" w:author="a"><w:r><w:t>五十万元</w:t></w:r></w:ins>'))
    p._p.append(parse_xml(f'<w:del xmlns:w="{W}" w:id="2" w:author="a"><w:r><w:delText>三十万元</w:delText></w:r></w:del>'))
    box = f'<w:txbxContent xmlns:w="{W}"><w:p><w:r><w:t>侧栏提示：请在月底前签字</w:t></w:r></w:p></w:txbxContent>'
    anchor = d.add_paragraph("见右侧文本框。")
    anchor._p.append(parse_xml(
        f'<w:r xmlns:w="{W}" xmlns:mc="{MC}" xmlns:wps="{WPS}"><mc:AlternateContent>'
        f'<mc:Choice Requires="wps"><w:drawing><wps:txbx>{box}</wps:txbx></w:drawing></mc:Choice>'
        f'<mc:Fallback><w:pict>{box}</w:pict></mc:Fallback></mc:AlternateContent></w:r>'
    ))
    buffer = io.BytesIO()
    d.save(buffer)
    text = PARSER.parse(buffer.getvalue(), "合同.docx", ParseContext()).text
    assert "合同金额为五十万元" in text and "三十万元" not in text
    assert text.count("侧栏提示：请在月底前签字") == 1
    assert "见右侧文本框。\n\n侧栏提示" in text


def _with_notes(kind: str, body_text: str, note_texts: list[str]) -> bytes:
    """A Word file whose body refers to footnotes (or endnotes) held in their own part, as Word writes
    them: two separator notes (ids -1 and 0) first, then the author's."""
    import re
    import zipfile

    base = docx.Document()
    base.add_paragraph(body_text)
    buffer = io.BytesIO()
    base.save(buffer)
    tag = kind[:-1]  # footnote / endnote
    w = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"'
    notes = "".join(f'<w:{tag} w:id="{i + 1}"><w:p><w:r><w:t>{t}</w:t></w:r></w:p></w:{tag}>' for i, t in enumerate(note_texts))
    part = (f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:{kind} {w}>'
            f'<w:{tag} w:type="separator" w:id="-1"><w:p><w:r><w:separator/></w:r></w:p></w:{tag}>'
            f'<w:{tag} w:type="continuationSeparator" w:id="0"><w:p><w:r><w:continuationSeparator/></w:r></w:p></w:{tag}>'
            f'{notes}</w:{kind}>')
    source = zipfile.ZipFile(io.BytesIO(buffer.getvalue()))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as target:
        for info in source.infolist():
            data = source.read(info)
            if info.filename == "[Content_Types].xml":
                data = data.replace(b"</Types>", (
                    f'<Override PartName="/word/{kind}.xml" ContentType="application/vnd.openxmlformats-officedocument.'
                    f'wordprocessingml.{kind}+xml"/></Types>').encode())
            elif info.filename == "word/_rels/document.xml.rels":
                data = data.replace(b"</Relationships>", (
                    f'<Relationship Id="rIdNotes" Type="http://schemas.openxmlformats.org/officeDocument/2006/'
                    f'relationships/{kind}" Target="{kind}.xml"/></Relationships>').encode())
            elif info.filename == "word/document.xml":
                data = re.sub(rb"(</w:t></w:r>)", (f'\\1<w:r><w:{tag}Reference w:id="1"/></w:r>').encode(), data, count=1)
            target.writestr(info, data)
        target.writestr(f"word/{kind}.xml", part)
    return out.getvalue()


@pytest.mark.parametrize("kind", ["footnotes", "endnotes"])
def test_footnotes_and_endnotes_are_read_after_the_body(kind):
    data = _with_notes(kind, "第七条 出差住宿按标准报销。", ["一线城市指北京、上海、广州、深圳。", "Capital cities: 180 EUR a night."])
    doc = PARSER.parse(data, "rules.docx", ParseContext())
    assert doc.text.startswith("第七条 出差住宿按标准报销。")
    title = kind.capitalize()
    assert f"## {title}\n\n[1] 一线城市指北京、上海、广州、深圳。\n[2] Capital cities: 180 EUR a night." in doc.text
    assert doc.parts[-1].heading_path == (title,)


def test_an_unreadable_notes_part_is_left_out_with_a_warning_and_the_body_kept():
    data = _with_notes("footnotes", "第七条 出差住宿按标准报销。", ["a < b is not XML"])
    doc = PARSER.parse(data, "rules.docx", ParseContext())
    assert doc.text == "第七条 出差住宿按标准报销。"
    assert doc.warnings == ["the footnotes of this Word file cannot be read and were left out"]
