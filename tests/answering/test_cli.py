"""``python -m core ask`` / ``compare`` as a user runs them (real processes, extractive answerer)."""

from __future__ import annotations

import json

from tests.cli.test_cli import as_json, run_cli
from tests.engine.conftest import POLICY_MD


def test_ask_and_compare_from_the_command_line(data_dir, tmp_path):
    doc = tmp_path / "差旅.md"
    doc.write_text(POLICY_MD, encoding="utf-8")
    run_cli(data_dir, "kb", "create", "policy")
    run_cli(data_dir, "ingest", "--kb", "policy", str(doc))

    hit = as_json(run_cli(data_dir, "ask", "--json", "--kb", "policy", "--mode", "strict", "一线城市住宿费每晚不超过多少？"))
    assert hit["mode"] == "strict" and hit["hit"] is True and hit["llm_called"] is False
    assert "六百元" in hit["text"] and hit["citations"][0]["source_name"] == "差旅.md"
    assert {"retrieval_started", "sources_found", "done"} <= {e["kind"] for e in hit["events"]}
    assert hit["timings_ms"]["total_ms"] > 0 and hit["chat_id"] is None  # the CLI stores nothing

    miss = as_json(run_cli(data_dir, "--json", "ask", "--mode", "strict", "今天天气怎么样？"))
    assert miss["hit"] is False and miss["text"] == "知识库中暂未收录相关内容，我无法凭已有信息作答。"

    human = run_cli(data_dir, "ask", "一线城市住宿费每晚不超过多少？").stdout
    assert human.startswith("[normal] hit=True") and "[1] 差旅.md" in human

    batch = tmp_path / "q.jsonl"
    batch.write_text("\n".join(json.dumps({"question": q}, ensure_ascii=False) for q in ["一线城市住宿费每晚不超过多少？", "今天天气怎么样？"]), encoding="utf-8")
    rows = as_json(run_cli(data_dir, "compare", "--json", "--batch", str(batch)))
    assert [r["strict"]["hit"] for r in rows] == [True, False]
    assert rows[1]["normal"]["mode"] == "normal" and rows[1]["strict"]["llm_called"] is False

    bad = run_cli(data_dir, "ask", "--mode", "strict", "   ", check=False)
    assert bad.returncode == 2 and "empty" in bad.stderr
