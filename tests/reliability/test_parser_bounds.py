"""Parser bounds (issue 36 §24): a PDF whose page tree loops failed with a raw
``PdfiumError: Failed to load page.`` ("something went wrong"); a flate-bomb PDF (a content stream
deflated to ~1 MB a GB) peaked at 2.2 GB for 1 GB inside; a Word file of 450 MB of whitespace at
1.5 GB (whitespace is not text, so the text budget let it through). Each now fails with the
product's own message, the bombs before they are inflated, in a fresh process measured by its own
peak (``benchmarks/hostile_inputs.py`` has the full-size figures)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from core.errors import FileTooLarge, ParseError
from core.ingest.service import Upload
from core.parsers.registry import parse_bytes
from core.types import SYSTEM_ACTOR
from tests.reliability import hostile
from tests.reliability.test_parse_failures import _good_files

REPO = Path(__file__).resolve().parents[2]

_IN_CHILD = """
import json, sys, warnings
warnings.simplefilter("ignore")
from tests.reliability import hostile
builder, size, name = sys.argv[1], int(sys.argv[2]), sys.argv[3]
data = getattr(hostile, builder)(size)
with open("/proc/self/clear_refs", "w") as refs:
    refs.write("5")  # the peak from here on: building the bomb is not what is measured
from core.parsers.registry import parse_bytes
try:
    parse_bytes(data, name)
    outcome = "parsed"
except Exception as exc:
    outcome = f"{type(exc).__name__}: {exc}"
peak_kb = next(int(line.split()[1]) for line in open("/proc/self/status") if line.startswith("VmHWM:"))
print(json.dumps({"outcome": outcome, "peak_mb": peak_kb / 1024}))
"""


def _parse_in_child(builder: str, size: int, name: str) -> dict:
    proc = subprocess.run([sys.executable, "-c", _IN_CHILD, builder, str(size), name], cwd=REPO, capture_output=True,
                          text=True, timeout=600, env={"PYTHONPATH": str(REPO), "HF_HUB_OFFLINE": "1", "PATH": "/usr/bin:/bin"})
    assert proc.returncode == 0, proc.stderr[-2000:]
    return json.loads(proc.stdout.splitlines()[-1])


def test_a_pdf_whose_page_tree_loops_gets_its_own_parse_error():
    with pytest.raises(ParseError, match=r"page 2 of loop.pdf cannot be loaded: the PDF's page tree is broken"):
        parse_bytes(hostile.looping_pdf(), "loop.pdf")


def test_the_looping_pdf_fails_alone_in_a_batch_with_its_reason(kb_engine):
    uploads = _good_files(9)
    uploads.insert(3, Upload("loop.pdf", hostile.looping_pdf()))
    by_name = {r.name: r for r in kb_engine.ingest(SYSTEM_ACTOR, "kb", uploads)}
    assert by_name["loop.pdf"].status == "failed" and "page tree is broken" in by_name["loop.pdf"].error
    assert all(by_name[f"good-{i}.md"].status == "indexed" for i in range(9))


def test_a_flate_bomb_pdf_is_refused_before_it_is_inflated():
    child = _parse_in_child("flate_bomb_pdf", 1024, "bomb.pdf")  # 1 MB on disk, 1 GB inside
    assert child["outcome"].startswith("FileTooLarge: bomb.pdf holds a compressed stream that expands to more "
                                       "than 256 MB"), child
    assert child["peak_mb"] < 400, child  # an interpreter with pdfium loaded: the stream is never held


def test_a_pdf_with_an_ordinary_compressed_page_still_reads():
    doc = parse_bytes(hostile.flate_bomb_pdf(2), "fine.pdf")  # 2 MB of spaces after the text: not a bomb
    assert "A page of text before the blank." in doc.parts[0].text


def test_a_word_file_of_whitespace_is_refused_before_it_is_loaded():
    child = _parse_in_child("blank_docx", 200, "blank.docx")
    assert child["outcome"].startswith("FileTooLarge: blank.docx holds more than 64 MB of blank space"), child
    assert child["peak_mb"] < 400, child


def test_the_bombs_fail_alone_in_a_batch(kb_engine):
    uploads = _good_files(8) + [Upload("bomb.pdf", hostile.flate_bomb_pdf(300)), Upload("blank.docx", hostile.blank_docx(80))]
    results = kb_engine.ingest(SYSTEM_ACTOR, "kb", uploads)
    assert [r.status for r in results] == ["indexed"] * 8 + ["failed", "failed"]
    assert "expands to more than 256 MB" in results[-2].error and "blank space" in results[-1].error
    assert isinstance(FileTooLarge("x"), ParseError)
