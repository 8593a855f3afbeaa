"""Spreadsheets: real .xlsx workbooks written with openpyxl, CSV files in real encodings."""

from __future__ import annotations

import io
import re
import zipfile

import openpyxl
import pytest

from core.errors import ParseError
from core.parsers.base import ParseContext
from core.parsers.registry import detect_kind, parse_bytes
from core.settings.model import ParsingSettings


def _with_cached_value(xlsx: bytes, sheet_member: str, cell: str, value: str) -> bytes:
    """Add the cached result Excel saves beside a formula (openpyxl itself never calculates)."""
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(xlsx)) as src, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as dst:
        for info in src.infolist():
            data = src.read(info)
            if info.filename == sheet_member:
                xml = data.decode("utf-8")
                xml, n = re.subn(rf'(<c r="{cell}"[^>]*>\s*<f>[^<]*</f>)(<v\s*/>|<v></v>)?', rf"\1<v>{value}</v>", xml)
                assert n == 1, xml
                data = xml.encode("utf-8")
            dst.writestr(info, data)
    return out.getvalue()


def workbook_bytes() -> bytes:
    wb = openpyxl.Workbook()
    staff = wb.active
    staff.title = "Staff"
    staff.append([None])  # a blank first row and a blank first column are trimmed
    staff.append([None, "Name", "Department", "Salary", "Bonus"])
    staff.append([None, "Alice", "Research", 1000, "=D3*0.15"])
    staff.append([None, "Bob", None, 900, "=D4*0.1"])
    staff.append([None, "Carol", "Sales", 1234.5, 7])
    staff.merge_cells("C3:C4")  # Alice and Bob are both in Research
    budget = wb.create_sheet("预算")
    budget.append(["项目", "金额", "日期"])
    budget.append(["差旅", 600, __import__("datetime").date(2026, 3, 1)])
    secret = wb.create_sheet("Secret")
    secret.append(["password", "hunter2"])
    secret.sheet_state = "hidden"
    raw = io.BytesIO()
    wb.save(raw)
    return _with_cached_value(raw.getvalue(), "xl/worksheets/sheet1.xml", "E3", "150")


def test_xlsx_gives_one_table_per_visible_sheet_with_cached_formula_values():
    doc = parse_bytes(workbook_bytes(), "people.xlsx")
    assert doc.metadata["kind"] == "xlsx" and doc.metadata["sheets"] == ["Staff", "预算"]
    assert [p.heading_path for p in doc.parts] == [("Staff",), ("预算",)]
    staff = doc.parts[0].text.splitlines()
    assert staff[0] == "## Staff"
    assert staff[2:] == [
        "| Name | Department | Salary | Bonus |",
        "| --- | --- | --- | --- |",
        "| Alice | Research | 1000 | 150 |",  # the cached value, not "=D3*0.15"
        "| Bob | Research | 900 | =D4*0.1 |",  # merged cell repeated; a never-calculated formula
        "| Carol | Sales | 1234.5 | 7 |",
    ]
    assert "| 差旅 | 600 | 2026-03-01 |" in doc.parts[1].text
    assert "hunter2" not in doc.text and "Secret" not in doc.text
    assert any("'Secret' is hidden and was skipped" in w for w in doc.warnings)
    assert any("1 formula cell(s) have no saved value" in w for w in doc.warnings)


def test_huge_sheet_is_capped_with_a_warning():
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Log"
    ws.append(["n", "square"] + [f"c{i}" for i in range(8)])
    for n in range(1, 61):
        ws.append([n, n * n] + ["x"] * 8)
    raw = io.BytesIO()
    wb.save(raw)
    ctx = ParseContext(settings=ParsingSettings(spreadsheet_max_rows=21, spreadsheet_max_columns=3))
    doc = parse_bytes(raw.getvalue(), "log.xlsx", ctx)
    rows = [ln for ln in doc.text.splitlines() if ln.startswith("| ") and "---" not in ln]
    assert len(rows) == 21 and rows[0] == "| n | square | c0 |" and rows[-1] == "| 20 | 400 | x |"
    assert any("61 non-empty rows; only the first 21" in w and "spreadsheet_max_rows" in w for w in doc.warnings)
    assert any("10 columns wide; only the first 3" in w for w in doc.warnings)


def test_gbk_csv_with_semicolons_is_decoded_and_sniffed():
    text = "城市;住宿标准;备注\n北京;六百元;一线城市\n\n成都;四百元;其他城市\n"
    doc = parse_bytes(text.encode("gbk"), "标准.csv")
    assert doc.metadata["kind"] == "csv" and doc.metadata["delimiter"] == ";"
    assert doc.metadata["encoding"] == "gb18030"
    assert doc.text.splitlines() == [
        "## 标准.csv", "", "| 城市 | 住宿标准 | 备注 |", "| --- | --- | --- |",
        "| 北京 | 六百元 | 一线城市 |", "| 成都 | 四百元 | 其他城市 |",
    ]


def test_tsv_and_quoted_commas():
    assert "| a,b | c |" in parse_bytes(b'"a,b"\tc\n1\t2\n', "x.tsv").text
    doc = parse_bytes(b'name,note\n"Smith, J.","said ""hi"""\n', "people.csv")
    assert '| Smith, J. | said "hi" |' in doc.text


def test_detection_by_content_and_clear_errors():
    assert detect_kind(workbook_bytes(), "upload.bin") == "xlsx"
    assert detect_kind(b"a,b\n1,2\n", "t.csv") == "csv"
    with pytest.raises(ParseError, match="not a valid Excel file"):
        parse_bytes(b"this is text", "fake.xlsx")
    broken = io.BytesIO()
    with zipfile.ZipFile(broken, "w") as z:
        z.writestr("[Content_Types].xml", "<Types/>")
        z.writestr("xl/workbook.xml", "<not-a-workbook")
    with pytest.raises(ParseError, match="Excel"):
        parse_bytes(broken.getvalue(), "broken.xlsx")


def test_xlsx_zip_bomb_is_refused_before_openpyxl_opens_it():
    ctx = ParseContext(settings=ParsingSettings(zip_max_uncompressed_mb=1))
    wb = openpyxl.Workbook()
    wb.active.append(["x" * 1000] * 2000)
    raw = io.BytesIO()
    wb.save(raw)
    with pytest.raises(ParseError, match="Excel file refused.*zip bomb"):
        parse_bytes(raw.getvalue(), "bomb.xlsx", ctx)
