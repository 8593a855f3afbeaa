"""Threat: a file whose parse runs out of stack or memory (deeply nested HTML, a TIFF declaring
huge pages) shows a generic "something went wrong", holds gigabytes, or stops its batch. Each
such file must fail alone with a reason naming the problem, costing little."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from core.errors import ParseError
from core.ingest.service import Upload
from core.parsers.registry import parse_bytes
from core.types import SYSTEM_ACTOR, Actor
from tests.engine.conftest import HANDBOOK_MD
from tests.reliability import hostile

REPO = Path(__file__).resolve().parents[2]


def _good_files(count: int) -> list[Upload]:
    return [Upload(f"good-{i}.md", f"# Note {i}\n\n{HANDBOOK_MD}\nNote number {i} is unique.\n".encode()) for i in range(count)]


def test_deeply_nested_html_gets_its_own_parse_error():
    with pytest.raises(ParseError, match="nests its content too deeply"):
        parse_bytes(hostile.deep_html(5000), "deep.html")


def test_one_deep_html_file_in_a_batch_of_ten_fails_alone_with_its_reason(kb_engine):
    uploads = _good_files(9)
    uploads.insert(4, Upload("deep.html", hostile.deep_html(5000)))
    results = kb_engine.ingest(SYSTEM_ACTOR, "kb", uploads)
    by_name = {r.name: r for r in results}
    assert len(results) == 10 and by_name["deep.html"].status == "failed"
    assert "deep.html nests its content too deeply" in by_name["deep.html"].error
    assert all(by_name[f"good-{i}.md"].status == "indexed" for i in range(9))


def test_a_plain_user_is_told_why_the_deep_file_failed(kb_engine):
    bob = kb_engine.sign_up("bob", "correct horse battery")
    chat = kb_engine.create_chat(Actor(user_id=bob.id, role="user"), "t")
    [result] = kb_engine.attach_to_chat(Actor(user_id=bob.id, role="user"), chat.id, [Upload("deep.html", hostile.deep_html(5000))])
    assert result.status == "failed" and "nests its content too deeply" in result.error


_PARSE_IN_CHILD = """
import json, sys, warnings
warnings.simplefilter("ignore")
from core.parsers.registry import parse_bytes
from tests.reliability import hostile
pages = json.loads(sys.argv[1])
try:
    parse_bytes(hostile.multipage_tiff([tuple(p) for p in pages]), "scan.tiff")
    outcome = "parsed"
except Exception as exc:
    outcome = f"{type(exc).__name__}: {exc}"
# VmHWM is this process image's own peak: ru_maxrss also carries the peak of the image it replaced,
# i.e. of the (large) test process that forked it
peak_kb = next(int(line.split()[1]) for line in open("/proc/self/status") if line.startswith("VmHWM:"))
print(json.dumps({"outcome": outcome, "peak_mb": peak_kb / 1024}))
"""


def _parse_tiff_in_child(pages: list[tuple[int, int]]) -> dict:
    """Parse a generated TIFF in a fresh process; its outcome and its peak resident memory."""
    proc = subprocess.run([sys.executable, "-c", _PARSE_IN_CHILD, json.dumps(pages)], cwd=REPO, capture_output=True,
                          text=True, timeout=300, env={"PYTHONPATH": str(REPO), "HF_HUB_OFFLINE": "1", "PATH": "/usr/bin:/bin"})
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.splitlines()[-1])


def test_a_tiff_with_huge_later_pages_is_refused_before_any_page_is_decoded():
    # 290 KB on disk; today's code decoded all 12 pages at once (2.6 GB resident) before OCR
    child = _parse_tiff_in_child([(64, 64)] + [(12000, 12000)] * 12)
    assert child["outcome"] == "ParseError: page 2 of scan.tiff is 12000 x 12000 pixels, too large to OCR (limit 80 megapixels per page)"
    assert child["peak_mb"] < 600  # an interpreter with Pillow and numpy; one decoded page alone is 144 MB


def test_a_tiff_whose_pages_add_up_past_the_budget_is_refused_up_front():
    pages = [(8000, 8000)] * 16  # 64 megapixels each, under the per-page limit; 1,024 in all
    child = _parse_tiff_in_child(pages)
    assert child["outcome"].startswith("ParseError: scan.tiff holds more than 1000 megapixels in its first 16 pages")
    assert child["peak_mb"] < 600


def test_the_tiff_fails_alone_in_a_chat_attachment_batch(kb_engine):
    chat = kb_engine.create_chat(SYSTEM_ACTOR, "scans")
    uploads = _good_files(9) + [Upload("scan.tiff", hostile.multipage_tiff([(64, 64)] + [(12000, 12000)] * 60))]
    results = kb_engine.attach_to_chat(SYSTEM_ACTOR, chat.id, uploads)
    assert [r.status for r in results] == ["indexed"] * 9 + ["failed"]
    assert "page 2 of scan.tiff is 12000 x 12000 pixels" in results[-1].error
