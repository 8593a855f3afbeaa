"""Strict A/B page: both columns for one question; a batch with expected answers → summary,
per-question cards scored per mode, the "modes differ" filter, HTML / CSV / JSONL downloads."""

from __future__ import annotations

import pytest

from core.demo import demo_questions
from core.errors import InvalidInput
from core.ingest.service import Upload
from dashboard.ab_widgets import parse_items
from tests.dashboard.conftest import button, goto, new_app, sign_up, texts
from tests.dashboard.test_knowledge_bases import POLICY

QUESTION = "出差乘坐飞机要提前几天申请？"
NO_HIT = "知识库中暂未收录相关内容，我无法凭已有信息作答。"


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



def test_batch_scores_each_mode_filters_differences_and_exports(engine):
    at, actor = _ab(engine)
    # hash-64 test vectors score lower than a real model: a lower bar keeps the test about the page
    engine.save_settings(actor, {"strict": {"rag_strict_min_similarity": 0.3}})
    at.text_area(key="ab_paste").input(f"{QUESTION} || 三天\n今天天气怎么样？ || -\n")
    button(at, "Run batch").click()
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    shown = texts(at)
    # per question, both answers side by side with their outcome
    assert "1. " + QUESTION in shown and "2. 今天天气怎么样？" in shown
    assert NO_HIT in shown  # the strict refusal, readable in the card (not only in a download)
    assert "answered with the expected fact" in shown and "refused" in shown
    assert "Expected: not covered by the knowledge base (a refusal is right)" in shown
    summary = next(d.value for d in at.dataframe if "Refusals" in d.value.columns)
    strict = summary.loc[summary["Mode"] == "Strict mode"].iloc[0]
    assert strict["As expected"] == "2 / 2" and int(strict["Refusals"]) == 1
    table = next(d.value for d in at.dataframe if "question" in d.value.columns)
    assert list(table["question"]) == [QUESTION, "今天天气怎么样？"]
    assert not table.loc[1, "strict_llm_called"] and table.loc[1, "strict_outcome"] == "refused"
    labels = [b.label for b in at.get("download_button")]
    assert labels == ["Download HTML report", "Download CSV", "Download JSONL"]
    # the filter keeps only the questions where normal and strict differ
    differ = list(table["modes_differ"])
    at.toggle(key="ab_only_differ").set_value(True).run()
    assert f"{sum(differ)} of 2 questions" in texts(at)


def test_demo_questions_run_in_one_click(engine):
    at, _ = _ab(engine)
    button(at, "Run the demo questions").click()
    at.run()
    table = next(d.value for d in at.dataframe if "question" in d.value.columns)
    assert len(table) == len(demo_questions()) and any("annual leave" in q for q in table["question"]) and any("年假" in q for q in table["question"])
    assert "-" in set(table["expected"])  # the off-topic ones, where a refusal is right


def test_parse_batch_formats():
    assert [i.question for i in parse_items("q.csv", "id,question\n1,年假几天？\n2,\"Hello, world?\"\n".encode())] == \
        ["年假几天？", "Hello, world?"]
    assert [(i.question, i.expected) for i in parse_items("q.jsonl", '{"question": "一", "expected": "1"}\n\n"二"\n'.encode())] \
        == [("一", "1"), ("二", None)]
    assert [i.question for i in parse_items("q.txt", "a\n\n b \n".encode())] == ["a", "b"]
    with pytest.raises(InvalidInput, match="line 2"):
        parse_items("q.jsonl", b'{"question": "x"}\n{broken\n')
