"""Scoring answers against expected answers, the A/B rows and summary, and the HTML report."""

from __future__ import annotations

import html

from core.answering.questions import BatchItem, parse_batch
from core.answering.report import comparison_rows, html_report, summarise, to_csv, to_jsonl
from core.answering.scoring import score
from core.answering.types import Answer, Citation, Comparison

NO_HIT = "知识库中暂未收录相关内容，我无法凭已有信息作答。"


def _cite(n=1, kb_id="kb1", source="handbook.md"):
    return Citation(n=n, chunk_id="c", file_id="f", source_name=source, location="p. 2", heading_path=[],
                    text="…", score=0.8, kb_id=kb_id)


def quoted(text: str, mode="normal") -> Answer:
    return Answer("q", text, mode, hit=True, llm_called=False, citations=[_cite()])


def strict_refusal() -> Answer:
    return Answer("q", NO_HIT, "strict", hit=False, llm_called=False)


def test_outcomes_correct_refused_wrong_and_unscored():
    assert score(quoted("员工每年享有十五天带薪年假。[1]"), "十五天").outcome == "correct"
    assert score(quoted("Every employee receives 15 Days of paid leave [1]"), "15 days").outcome == "correct"
    assert score(quoted("You get fifteen days [1]"), "15 days|fifteen days").outcome == "correct"  # alternatives
    assert score(quoted("Overtime is paid at 1.5 times [1]"), "15 days").outcome == "wrong"
    assert score(strict_refusal(), "十五天").outcome == "refused"
    assert not score(strict_refusal(), "十五天").as_expected
    nothing = Answer("q", "Nothing relevant was found", "normal", hit=False, llm_called=False, from_kb=False)
    assert score(nothing, "15 days").outcome == "refused"  # no quote and no model: no claim made
    assert score(quoted("x"), None) is None and score(quoted("x"), "  ") is None


def test_not_covered_questions_want_a_refusal():
    assert score(strict_refusal(), "-").as_expected
    general = Answer("q", "Canberra is the capital.", "normal", hit=False, llm_called=True, from_kb=False)
    s = score(general, "-")
    assert (s.outcome, s.as_expected) == ("wrong", False)


def test_batch_expected_answers_from_csv_jsonl_and_paste():
    csv = "question,expected\n年假几天？,十五天\n天气？,-\n无答案？,\n".encode()
    assert parse_batch("q.csv", csv) == [BatchItem("年假几天？", "十五天"), BatchItem("天气？", "-"), BatchItem("无答案？", "")]
    jsonl = '{"question": "a", "expected_answer": "x"}\n"b"\n'.encode()
    assert parse_batch("q.jsonl", jsonl) == [BatchItem("a", "x"), BatchItem("b", None)]
    assert parse_batch("p.txt", "a || 15 days\nb\n".encode()) == [BatchItem("a", "15 days"), BatchItem("b", None)]


def _rows():
    covered = Comparison("年假几天？", quoted("员工每年享有十五天带薪年假。[1]"), quoted("员工每年享有十五天带薪年假。[1]", "strict"))
    off = Comparison("<b>weather</b>?", Answer("q", "It is sunny.", "normal", hit=False, llm_called=True, from_kb=False),
                     strict_refusal())
    return comparison_rows([covered, off], ["十五天", "-"])


def test_rows_flag_differences_and_summary_counts():
    rows = _rows()
    assert [r["modes_differ"] for r in rows] == [False, True]
    assert rows[0]["normal_citations"] == "[1] handbook.md · p. 2"
    normal, strict = summarise(rows)
    assert (normal.correct, normal.wrong, normal.as_expected, normal.model_calls) == (1, 1, 1, 1)
    assert (strict.correct, strict.refusals, strict.as_expected, strict.scored) == (1, 1, 2, 2)


def test_exports_keep_chinese_and_escape_html():
    rows = _rows()
    assert to_csv(rows).decode("utf-8-sig").splitlines()[0].startswith("question,expected,normal_answer")
    assert "十五天" in to_jsonl(rows).decode() and len(to_jsonl(rows).splitlines()) == 2
    page = html_report(rows, title="A/B <demo>")
    assert "<b>weather</b>" not in page and html.escape("<b>weather</b>") in page
    assert "<title>A/B &lt;demo&gt;</title>" in page
    assert "<script" not in page and "http" not in page.split("<body>")[1]  # self-contained: no outside resources
    assert page.count("class='tag correct'") == 2 and "class='tag refused'" in page
