"""Threat: a small Office file that expands into far more text or XML than can be indexed (a 2 MB
.docx of 60 MB XML, a 1M-row sheet) costs minutes and a gigabyte before the chunk cap refuses
it. The caps apply while reading: such a file is refused (or cut) from what has been read so far,
with a reason naming the setting, and fails alone in its batch. The figures (time, memory) are
in benchmarks/hostile_inputs.py and docs/security.md."""

from __future__ import annotations

import io
import zipfile

import pytest

from core.errors import FileTooLarge
from core.ingest.service import Upload
from core.parsers.base import ParseContext
from core.parsers.registry import parse_bytes
from core.settings.model import ParsingSettings
from core.types import SYSTEM_ACTOR
from tests.engine.conftest import HANDBOOK_MD
from tests.reliability import hostile

POLICY_LINE = "差旅制度 travel rules for every employee, paragraph text of a policy. "


def _good_files(count: int) -> list[Upload]:
    return [Upload(f"good-{i}.md", f"# Note {i}\n\n{HANDBOOK_MD}\nNote number {i} is unique.\n".encode()) for i in range(count)]


@pytest.fixture(scope="module")
def docx_bomb() -> bytes:
    # 400,000 paragraphs: 0.3 MB on disk, 60 MB of XML, 27M characters of text
    return hostile.docx_with_body([hostile.paragraph(POLICY_LINE)], repeat=400_000)


def test_a_docx_that_expands_past_the_chunk_cap_is_refused_while_its_xml_is_read(docx_bomb):
    with pytest.raises(FileTooLarge, match=r"bomb\.docx holds more than 5,000,000 characters of text.*"
                                           r"parsing\.max_chunks_per_file"):
        parse_bytes(docx_bomb, "bomb.docx")


def test_the_docx_bomb_fails_alone_in_a_batch_of_ten(kb_engine, docx_bomb):
    uploads = _good_files(9)
    uploads.insert(3, Upload("bomb.docx", docx_bomb))
    results = {r.name: r for r in kb_engine.ingest(SYSTEM_ACTOR, "kb", uploads)}
    assert results["bomb.docx"].status == "failed"
    assert "holds more than 5,000,000 characters of text" in results["bomb.docx"].error
    assert [results[f"good-{i}.md"].status for i in range(9)] == ["indexed"] * 9


def test_a_docx_of_millions_of_empty_elements_is_refused_before_python_docx_loads_it():
    bomb = hostile.docx_with_body(["<w:p/>"], repeat=4_100_000)  # 25 MB of XML, no text at all
    with pytest.raises(FileTooLarge, match="holds more than 4,000,000 XML elements"):
        parse_bytes(bomb, "empty.docx")


def test_the_text_budget_follows_the_knowledge_bases_chunking(kb_engine):
    kb_engine.save_settings(SYSTEM_ACTOR, {"parsing": {"max_chunks_per_file": 10}, "chunking": {"chunk_size": 200}})
    text = hostile.docx_with_body([hostile.paragraph(POLICY_LINE)], repeat=100)  # ~5,500 non-space characters
    [refused] = kb_engine.ingest(SYSTEM_ACTOR, "kb", [Upload("policy.docx", text)])
    # 10 chunks of 200 characters, doubled: 4,000; refused while reading, not after chunking
    assert refused.status == "failed" and "holds more than 4,000 characters of text" in refused.error
    kb_engine.save_settings(SYSTEM_ACTOR, {"chunking": {"chunk_size": 2000}})
    [taken] = kb_engine.ingest(SYSTEM_ACTOR, "kb", [Upload("policy.docx", text)])
    assert taken.status == "indexed"


def test_a_sheet_longer_than_the_wanted_text_is_refused_while_read(kb_engine):
    kb_engine.save_settings(SYSTEM_ACTOR, {"parsing": {"max_chunks_per_file": 10}})
    [refused] = kb_engine.ingest(SYSTEM_ACTOR, "kb", [Upload("log.xlsx", hostile.long_xlsx(3000))])
    assert refused.status == "failed" and "log.xlsx holds more than 10,000 characters of text" in refused.error


def test_rows_past_the_row_cap_are_counted_not_parsed():
    """Reading stops at the cap: the rest of the sheet is only counted (from the raw XML, at regex
    speed), so a cell past the cap that openpyxl could not even convert does not fail the file."""
    source = zipfile.ZipFile(io.BytesIO(hostile.long_xlsx(6000)))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        for info in source.infolist():
            data = source.read(info.filename)
            if info.filename == "xl/worksheets/sheet1.xml":
                data = data.replace(b'<c r="A5999"><v>59990</v></c>', b'<c r="A5999"><v>not a number</v></c>')
            archive.writestr(info.filename, data)
    ctx = ParseContext(settings=ParsingSettings(spreadsheet_max_rows=100))
    doc = parse_bytes(out.getvalue(), "log.xlsx", ctx)
    assert doc.warnings == ["sheet 'Log' has 6000 non-empty rows; only the first 100 were kept "
                            "(setting parsing.spreadsheet_max_rows)"]
    lines = doc.text.splitlines()
    assert lines[2] == "| 10 | 11 | 12 | 13 | 14 |" and lines[-1] == "| 1000 | 1001 | 1002 | 1003 | 1004 |"
    assert len(lines) == 2 + 1 + 1 + 99  # heading, blank, header row, rule, 99 rows
