"""``python -m core compare --batch`` (issue 18): expected answers scored with scoring.py, the A/B
page's summary counts printed, its HTML report written with --report; JSON keeps its shape."""

from __future__ import annotations

import json

from tests.cli.test_cli import as_json, run_cli
from tests.engine.conftest import POLICY_MD

QUESTIONS = [("一线城市住宿费每晚不超过多少？", "六百元"), ("今天天气怎么样？", "-"), ("出差乘坐火车可以报销几等座？", None)]


def _setup(data_dir, tmp_path):
    doc = tmp_path / "差旅.md"
    doc.write_text(POLICY_MD, encoding="utf-8")
    run_cli(data_dir, "kb", "create", "policy")
    run_cli(data_dir, "ingest", "--kb", "policy", str(doc))
    batch = tmp_path / "q.jsonl"
    batch.write_text("\n".join(json.dumps({"question": q, **({"expected": e} if e else {})}, ensure_ascii=False)
                               for q, e in QUESTIONS), encoding="utf-8")
    return batch


def test_compare_batch_scores_summarises_and_writes_the_report(data_dir, tmp_path):
    batch = _setup(data_dir, tmp_path)
    report = tmp_path / "ab.html"
    proc = run_cli(data_dir, "compare", "--json", "--batch", str(batch), "--report", str(report))
    rows = as_json(proc)
    # the existing shape, plus the scores
    assert [r["question"] for r in rows] == [q for q, _ in QUESTIONS]
    assert {"question", "normal", "strict", "expected", "scores", "modes_differ"} == set(rows[0])
    assert rows[0]["normal"]["mode"] == "normal" and "六百元" in rows[0]["strict"]["text"]
    assert rows[0]["scores"]["strict"] == {"outcome": "correct", "as_expected": True, "verdict": "correct"}
    assert rows[1]["scores"]["strict"] == {"outcome": "refused", "as_expected": True, "verdict": "refused"}
    assert rows[1]["scores"]["normal"]["outcome"] == "refused"  # nothing found, no model: no claim
    assert rows[2]["expected"] is None and rows[2]["scores"]["normal"]["outcome"] is None
    assert [r["modes_differ"] for r in rows] == [False, False, False]  # two refusals in other words are no difference
    # the page's headline counts, beside the JSON
    assert "strict: as expected 2/2 (correct 1, wrong 0), refusals 1/3" in proc.stderr
    assert "normal: as expected 2/2" in proc.stderr and "modes differ: 0 of 3" in proc.stderr
    page = report.read_text(encoding="utf-8")
    assert page.startswith("<!doctype html>") and "<script" not in page and "Questions: 3 · Modes differ: 0" in page
    assert "六百元" in page and page.count("class='tag correct'") == 2


def test_compare_batch_human_output_ends_with_the_summary(data_dir, tmp_path):
    batch = _setup(data_dir, tmp_path)
    out = run_cli(data_dir, "compare", "--batch", str(batch)).stdout
    assert "Q: 一线城市住宿费每晚不超过多少？ (expected: 六百元)" in out
    assert out.rstrip().splitlines()[-1] == "modes differ: 0 of 3"
    bad = run_cli(data_dir, "compare", "--batch", str(batch), "--report", str(tmp_path / "no" / "r.html"), check=False)
    assert bad.returncode == 2 and "not a folder" in bad.stderr
