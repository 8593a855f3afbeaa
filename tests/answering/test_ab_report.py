"""The A/B rows and HTML report (issue 18): "modes differ" compares verdicts, not wording; the
report's header is labelled; Markdown tables in answers are HTML tables, escaped, no scripts."""

from __future__ import annotations

import re
from datetime import datetime, timezone

from core.answering.report import comparison_rows, html_report
from core.answering.types import Answer, Citation, Comparison

NO_HIT = "知识库中暂未收录相关内容，我无法凭已有信息作答。"


def _cite() -> Citation:
    return Citation(n=1, chunk_id="c", file_id="f", source_name="handbook.md", location="", heading_path=[], text="…",
                    score=0.8, kb_id="kb1")


def quoted(text: str, mode: str = "normal") -> Answer:
    return Answer("q", text, mode, hit=True, llm_called=False, citations=[_cite()])


def normal_nothing() -> Answer:
    return Answer("q", "Nothing relevant was found in the knowledge base, and no language model is configured.",
                  "normal", hit=False, llm_called=False, from_kb=False)


def strict_refusal() -> Answer:
    return Answer("q", NO_HIT, "strict", hit=False, llm_called=False)


def test_two_refusals_in_other_words_are_no_difference_with_or_without_an_expected_answer():
    both_refuse = Comparison("天气？", normal_nothing(), strict_refusal())
    rows = comparison_rows([both_refuse, both_refuse], ["-", None])
    assert [r["modes_differ"] for r in rows] == [False, False]
    assert [(r["normal_verdict"], r["strict_verdict"]) for r in rows] == [("refused", "refused")] * 2


def test_verdicts_that_differ_are_counted():
    answered_vs_refused = Comparison("capital?", quoted("| Hotel, capital cities | 180 EUR |"), strict_refusal())
    same_fact_other_words = Comparison("年假？", quoted("十五天带薪年假。[1]"), quoted("员工享有十五天带薪年假 [1]", "strict"))
    right_vs_wrong = Comparison("年假？", quoted("十五天带薪年假。[1]"), quoted("十六周育儿假 [1]", "strict"))
    rows = comparison_rows([answered_vs_refused, answered_vs_refused, same_fact_other_words, right_vs_wrong],
                           ["-", None, "十五天", "十五天"])
    assert [r["modes_differ"] for r in rows] == [True, True, False, True]
    assert (rows[1]["normal_verdict"], rows[1]["strict_verdict"]) == ("answered", "refused")


def test_the_report_header_says_what_its_numbers_are():
    rows = comparison_rows([Comparison("天气？", normal_nothing(), strict_refusal())] * 3, [None] * 3)
    page = html_report(rows, generated=datetime(2026, 5, 4, 9, 30, tzinfo=timezone.utc))
    meta = re.search(r"<p class='meta'>(.*?)</p>", page).group(1)
    assert meta == "Questions: 3 · Modes differ: 0 · Generated: 2026-05-04 09:30 UTC"
    zh = html_report(rows, labels={"questions": "问题数", "modes_differ": "两种模式不同", "generated": "生成时间"},
                     generated=datetime(2026, 5, 4, 9, 30, tzinfo=timezone.utc))
    assert "问题数: 3 · 两种模式不同: 0 · 生成时间: 2026-05-04 09:30 UTC" in zh


def test_markdown_tables_in_answers_are_html_tables_escaped():
    answer = ("No language model is configured, so this answer quotes the knowledge base.\n"
              "| Expense | Limit <b>x</b> |\n| --- | --- |\n| Hotel, capital cities | 180 EUR <script>alert(1)</script> |\n\n[1]\n"
              "Expense claims are submitted within 30 days. [2]")
    rows = comparison_rows([Comparison("hotel?", quoted(answer), quoted(answer, "strict"))], ["180 EUR"])
    page = html_report(rows)
    body = page.split("<body>")[1]
    assert "| --- |" not in body and "| Hotel" not in body  # no raw pipes
    assert body.count("<table class='md'>") == 2
    assert "<th>Expense</th><th>Limit &lt;b&gt;x&lt;/b&gt;</th>" in body
    assert "<td>Hotel, capital cities</td><td>180 EUR &lt;script&gt;alert(1)&lt;/script&gt;</td>" in body
    assert "<script" not in body and "Expense claims are submitted within 30 days. [2]" in body


def test_a_question_where_a_refusal_is_right_reads_as_the_page_says_it():
    """Issue 36: the report said "Expected: -" where the page said "not covered (a refusal is right)"."""
    rows = comparison_rows([Comparison("天气？", normal_nothing(), strict_refusal())], ["-"])
    page = html_report(rows)
    assert "Expected answer: not covered by the knowledge base (a refusal is right)</div>" in page
    assert ": -<" not in page
    zh = html_report(rows, labels={"expected": "预期答案", "not_covered": "知识库未涵盖（应当拒答）"})
    assert "预期答案: 知识库未涵盖（应当拒答）" in zh
