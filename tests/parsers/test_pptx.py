import io

import pytest
from pptx import Presentation
from pptx.util import Inches, Pt

from core.parsers.base import ParseContext
from core.parsers.pptx import PARSER
from tests.conftest import shared_path
from tests.parsers.office_manifest import manifest_phrases, squash

SHARED_PPTX = manifest_phrases("pptx")


@pytest.mark.shared
@pytest.mark.parametrize("name,phrases", SHARED_PPTX or [pytest.param("", [], marks=pytest.mark.skip("no MANIFEST"))])
def test_shared_pptx_has_every_must_appear_phrase(name, phrases):
    path = shared_path("docs", name)
    doc = PARSER.parse(path.read_bytes(), name, ParseContext())
    text = squash(doc.text)
    missing = [p for p in phrases if squash(p) not in text]
    assert not missing, f"{name}: missing {missing}"
    assert [p.slide for p in doc.parts] == list(range(1, len(doc.parts) + 1))


@pytest.mark.shared
def test_shared_malformed_pptx_still_yields_its_title():
    path = shared_path("docs", "unstructured__fake-power-point-malformed.pptx")
    doc = PARSER.parse(path.read_bytes(), path.name, ParseContext())
    assert doc.parts[0].text.startswith("## Slide 1: Test Slide")


@pytest.mark.shared
def test_shared_table_rows_stay_whole():
    path = shared_path("docs", "unstructured__sample-presentation.pptx")
    doc = PARSER.parse(path.read_bytes(), path.name, ParseContext())
    assert "| 2 | A2 | B2 | C2 |" in doc.parts[3].text.splitlines()
    assert "    - With a sub-bullet" in doc.parts[1].text.splitlines()


def _textbox(shapes, text: str, left: float):
    box = shapes.add_textbox(Inches(left), Inches(1), Inches(2), Inches(1))
    box.text_frame.text = text
    return box


@pytest.fixture
def chinese_deck() -> bytes:
    prs = Presentation()
    title_slide = prs.slides.add_slide(prs.slide_layouts[0])
    title_slide.shapes.title.text = "季度经营报告"
    title_slide.placeholders[1].text = "二〇二六年第三季度"

    content = prs.slides.add_slide(prs.slide_layouts[1])
    content.shapes.title.text = "关键指标"
    body = content.placeholders[1].text_frame
    body.text = "收入增长"
    sub = body.add_paragraph()
    sub.text = "华东地区领先"
    sub.level = 1
    content.notes_slide.notes_text_frame.text = "讲解时强调同比增长百分之二十。"

    groups = prs.slides.add_slide(prs.slide_layouts[5])  # title only
    groups.shapes.title.text = "组织结构"
    outer = groups.shapes.add_group_shape()
    _textbox(outer.shapes, "总经理办公室", 0.5)
    inner = outer.shapes.add_group_shape()
    _textbox(inner.shapes, "研发中心", 3)
    _textbox(inner.shapes, "市场部", 5.5)

    tables = prs.slides.add_slide(prs.slide_layouts[6])  # blank: no title
    frame = tables.shapes.add_table(3, 3, Inches(0.5), Inches(0.5), Inches(8), Inches(2))
    table = frame.table
    for r, row in enumerate([["产品", "一月", "二月"], ["手机", "10", "12"], ["电脑", "5", "7"]]):
        for c, value in enumerate(row):
            table.cell(r, c).text = value
    table.cell(0, 1).merge(table.cell(0, 2))
    table.cell(0, 1).text = "销量（万台）"
    _textbox(tables.shapes, "数据来源：内部统计", 0.5).text_frame.paragraphs[0].runs[0].font.size = Pt(10)
    buffer = io.BytesIO()
    prs.save(buffer)
    return buffer.getvalue()


def test_one_part_per_slide_with_number_and_title(chinese_deck):
    doc = PARSER.parse(chinese_deck, "报告.pptx", ParseContext())
    assert [p.slide for p in doc.parts] == [1, 2, 3, 4]
    assert doc.title == "季度经营报告"
    assert doc.parts[0].text.splitlines()[0] == "## Slide 1: 季度经营报告"
    assert "二〇二六年第三季度" in doc.parts[0].text
    assert doc.parts[1].heading_path == ("Slide 2: 关键指标",)
    assert doc.parts[3].text.splitlines()[0] == "## Slide 4"
    assert doc.metadata["slides"] == 4


def test_bullets_nest_and_notes_follow(chinese_deck):
    text = PARSER.parse(chinese_deck, "报告.pptx", ParseContext()).parts[1].text
    lines = text.splitlines()
    assert "- 收入增长" in lines and "    - 华东地区领先" in lines
    assert lines[-1] == "Notes: 讲解时强调同比增长百分之二十。"
    assert text.count("关键指标") == 1  # the title is the heading, not repeated as body text


def test_nested_groups_are_walked(chinese_deck):
    text = PARSER.parse(chinese_deck, "报告.pptx", ParseContext()).parts[2].text
    for name in ("总经理办公室", "研发中心", "市场部"):
        assert name in text


def test_tables_render_with_merged_cells_once(chinese_deck):
    text = PARSER.parse(chinese_deck, "报告.pptx", ParseContext()).parts[3].text
    lines = text.splitlines()
    assert "| 产品 | 销量（万台） |  |" in lines
    assert "| 手机 | 10 | 12 |" in lines
    assert text.count("销量（万台）") == 1
    assert "数据来源：内部统计" in text


@pytest.mark.slow
def test_pictures_are_read_with_ocr_only_when_asked(chinese_deck, tmp_path):
    from PIL import Image, ImageDraw, ImageFont

    from core.settings.model import ParsingSettings

    picture = tmp_path / "chart.png"
    image = Image.new("RGB", (900, 140), "white")
    ImageDraw.Draw(image).text((30, 40), "REVENUE 2026", fill="black", font=ImageFont.load_default(size=56))
    image.save(picture)
    prs = Presentation(io.BytesIO(chinese_deck))
    group = prs.slides[2].shapes.add_group_shape()
    group.shapes.add_picture(str(picture), Inches(1), Inches(4), Inches(4))  # inside a group
    buffer = io.BytesIO()
    prs.save(buffer)
    assert "[Image text]" not in PARSER.parse(buffer.getvalue(), "d.pptx", ParseContext()).text
    doc = PARSER.parse(buffer.getvalue(), "d.pptx", ParseContext(settings=ParsingSettings(ocr_pptx_images=True)))
    assert doc.metadata["ocr_images"] == 1
    assert "[Image text] REVENUE 2026" in doc.parts[2].text


def test_a_broken_shape_is_skipped_with_a_warning_and_charts_keep_their_title():
    from pptx.chart.data import CategoryChartData
    from pptx.enum.chart import XL_CHART_TYPE

    prs = Presentation()
    slide = prs.slides.add_slide(prs.slide_layouts[5])
    slide.shapes.title.text = "销量图表"
    data = CategoryChartData()
    data.categories = ["一月", "二月"]
    data.add_series("销量", (10, 12))
    good = slide.shapes.add_chart(XL_CHART_TYPE.COLUMN_CLUSTERED, Inches(1), Inches(1), Inches(4), Inches(3), data)
    good.chart.has_title = True
    good.chart.chart_title.text_frame.text = "月度销量"
    broken = slide.shapes.add_chart(XL_CHART_TYPE.PIE, Inches(5), Inches(1), Inches(3), Inches(3), data)
    broken.name = "Broken chart"
    slide.part.drop_rel(broken._element.chart_rId)  # the chart part goes missing from the file
    _textbox(slide.shapes, "图表下方的说明文字", 1)
    buffer = io.BytesIO()
    prs.save(buffer)
    doc = PARSER.parse(buffer.getvalue(), "charts.pptx", ParseContext())
    assert "Chart: 月度销量" in doc.text and "图表下方的说明文字" in doc.text
    assert doc.warnings == ["slide 1: shape 'Broken chart' could not be read (KeyError); skipped"]


def test_smartart_node_texts_are_read_from_the_diagram_part():
    from lxml import etree
    from pptx.opc.constants import RELATIONSHIP_TYPE as RT
    from pptx.opc.package import Part
    from pptx.opc.packuri import PackURI

    prs = Presentation()
    slide = prs.slides.add_slide(prs.slide_layouts[5])
    slide.shapes.title.text = "审批流程"
    dgm = "http://schemas.openxmlformats.org/drawingml/2006/diagram"
    a = "http://schemas.openxmlformats.org/drawingml/2006/main"
    points = "".join(
        f'<dgm:pt modelId="{i}"><dgm:t><a:bodyPr/><a:p><a:r><a:t>{text}</a:t></a:r></a:p></dgm:t></dgm:pt>'
        for i, text in enumerate(["提交申请", "部门审核", "财务复核"], start=1)
    )
    data_xml = (
        f'<dgm:dataModel xmlns:dgm="{dgm}" xmlns:a="{a}"><dgm:ptLst><dgm:pt modelId="0" type="doc"/>{points}'
        f'<dgm:pt modelId="9" type="parTrans"><dgm:t><a:bodyPr/><a:p><a:r><a:t>CONNECTOR</a:t></a:r></a:p></dgm:t></dgm:pt>'
        f'</dgm:ptLst></dgm:dataModel>'
    )
    part = Part(PackURI("/ppt/diagrams/data1.xml"),
                "application/vnd.openxmlformats-officedocument.drawingml.diagramData+xml", prs.part.package,
                data_xml.encode())
    rel_id = slide.part.relate_to(part, RT.DIAGRAM_DATA)
    frame = (
        '<p:graphicFrame xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main" '
        f'xmlns:a="{a}" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships">'
        '<p:nvGraphicFramePr><p:cNvPr id="40" name="Diagram 1"/><p:cNvGraphicFramePr/><p:nvPr/></p:nvGraphicFramePr>'
        '<p:xfrm><a:off x="0" y="0"/><a:ext cx="100" cy="100"/></p:xfrm>'
        f'<a:graphic><a:graphicData uri="{dgm}"><dgm:relIds xmlns:dgm="{dgm}" r:dm="{rel_id}" r:lo="" r:qs="" r:cs=""/>'
        '</a:graphicData></a:graphic></p:graphicFrame>'
    )
    slide.shapes._spTree.append(etree.fromstring(frame))
    buffer = io.BytesIO()
    prs.save(buffer)
    text = PARSER.parse(buffer.getvalue(), "flow.pptx", ParseContext()).text
    assert "- 提交申请\n- 部门审核\n- 财务复核" in text and "CONNECTOR" not in text
