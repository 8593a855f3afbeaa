"""Strict A/B page: both columns for one question; a batch → table, summary, downloads."""

from __future__ import annotations

import pytest

from core.errors import InvalidInput
from core.ingest.service import Upload
from dashboard.ab_widgets import parse_questions
from tests.dashboard.conftest import button, goto, new_app, sign_up
from tests.dashboard.test_knowledge_bases import POLICY

QUESTION = "出差乘坐飞机要提前几天申请？"


def _ab(engine):
    at = sign_up(new_app(), "alice")
    actor = engine.actor_for(at.session_state["user_id"])
    kb = engine.create_kb(actor, "差旅")
    engine.ingest(actor, kb.id, [Upload("差旅.md", POLICY.encode())])
    return goto(at, "ab"), actor


def test_one_question_renders_normal_and_strict_columns(engine):
    at, _ = _ab(engine)
    at.text_area(key="ab_question").input(QUESTION)
    button(at, "Compare").click()
    at.run()
    assert not at.exception
    assert [s.value for s in at.subheader] == ["Normal", "Strict"]
    badges = "\n".join(str(m.value) for m in at.markdown)
    assert "Normal mode" in badges and "Strict mode" in badges
    retrieved = [d.value for d in at.dataframe]
    assert len(retrieved) == 2 and all("BM25" in d.columns and len(d) > 0 for d in retrieved)
    assert "提前三天申请" in badges  # the normal answer quotes the passage


def test_batch_table_summary_and_downloads(engine):
    at, _ = _ab(engine)
    at.tabs[1]  # the batch tab exists
    at.text_area(key="ab_paste").input(f"{QUESTION}\n今天天气怎么样？\n")
    button(at, "Run batch").click()
    at.run()
    assert not at.exception
    frames = [d.value for d in at.dataframe]
    table = next(f for f in frames if "question" in f.columns)
    assert list(table["question"]) == [QUESTION, "今天天气怎么样？"]
    assert table.loc[1, "strict_answer"] == "知识库中暂未收录相关内容，我无法凭已有信息作答。"
    assert not table.loc[1, "strict_llm_called"]
    summary = next(f for f in frames if "Refusals" in f.columns)
    assert int(summary.loc[summary["mode"] == "Strict mode", "Refusals"].item()) == int((~table["strict_hit"]).sum()) >= 1
    labels = [b.label for b in at.get("download_button")]
    assert labels == ["Download CSV", "Download JSONL"]


def test_parse_questions_formats():
    assert parse_questions("q.csv", "id,question\n1,年假几天？\n2,\"Hello, world?\"\n".encode()) == ["年假几天？", "Hello, world?"]
    assert parse_questions("q.jsonl", '{"question": "一"}\n\n"二"\n'.encode()) == ["一", "二"]
    assert parse_questions("q.txt", "a\n\n b \n".encode()) == ["a", "b"]
    with pytest.raises(InvalidInput, match="line 2"):
        parse_questions("q.jsonl", b'{"question": "x"}\n{broken\n')
