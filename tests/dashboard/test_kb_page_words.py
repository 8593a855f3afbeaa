"""The Knowledge Bases page in words people read, in both languages (issue 36): the retrieval
test's timings, whole-word highlights, counts with their right word, the pages a passage runs
over, and a chunk's heading path."""

from __future__ import annotations

import re

from core.ingest.service import Upload
from dashboard.highlight import highlight_html
from tests.dashboard.conftest import button, goto, new_app, sign_up
from tests.parsers.pdf_maker import Page, make_pdf

FAQ = b"# Acme Robotics - Leave FAQ\n\n## Annual leave\n\nEmployees get 15 days of annual leave; the cap is 20 days.\n"


def _kb_page(engine, files: list[Upload], language: str = "en"):
    at = sign_up(new_app(), "alice")
    actor = engine.actor_for(at.session_state["user_id"])
    kb = engine.create_kb(actor, "handbook")
    assert all(r.status == "indexed" for r in engine.ingest(actor, kb.id, files))
    if language != "en":
        at.sidebar.selectbox(key="user_lang").select(language)
        at.run()
    return goto(at, "kbs")


def _search(at, query: str):
    at.text_input(key="rtest_query").input(query)
    at.number_input(key=next(n.key for n in at.number_input if n.key.startswith("rtest_min_"))).set_value(0.0)
    button(at, next(b.label for b in at.button if b.label in ("Search", "检索", "搜索"))).click()
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def test_a_query_word_is_marked_as_a_whole_word():
    marked = highlight_html("The cap is 20 days; caps apply to the capital office.", "cap")
    assert marked == "The <mark>cap</mark> is 20 days; <mark>caps</mark> apply to the capital office."
    assert highlight_html("年假上限为二十天", "年假") == "<mark>年假</mark>上限为二十天"


def test_retrieval_test_timings_are_in_the_reader_language(engine):
    at = _search(_kb_page(engine, [Upload("faq.md", FAQ)], "zh"), "annual leave cap")
    summary = next(c.value for c in at.caption if c.value.startswith("显示"))
    assert "查询向量化" in summary and "合计" in summary and "毫秒" in summary, summary
    assert not re.search(r"embed_query|total| ms\b", summary), summary


def test_counts_take_their_word_in_english(engine):
    at = _kb_page(engine, [Upload("faq.md", FAQ)])
    summary = next(c.value for c in at.caption if "from" in c.value and "piece" in c.value)
    assert summary.startswith("1 chunk from 1 piece;"), summary
    at = _search(at, "annual leave cap")
    shown = next(c.value for c in at.caption if c.value.startswith("Showing"))
    assert shown.startswith("Showing 1 passage,"), shown


def test_chunk_zero_heading_path_ends_with_its_own_heading(engine):
    at = _kb_page(engine, [Upload("faq.md", FAQ)])
    labels = [e.label for e in at.expander if e.label.startswith("#0 ")]
    assert labels and labels[0].endswith("· Acme Robotics - Leave FAQ › Annual leave"), labels


def test_a_passage_over_a_page_end_is_located_on_both_pages(engine):
    pdf = make_pdf([Page().text(72, 80, "Visitor badges are collected at reception and"),
                    Page().text(72, 80, "returned to the security desk before leaving.")])
    at = _search(_kb_page(engine, [Upload("visitors.pdf", pdf)], "zh"), "visitor badges security desk")
    assert any("第 1–2 页" in m.value for m in at.markdown), [m.value for m in at.markdown]
    at.sidebar.selectbox(key="user_lang").select("en")
    at.run()
    assert any(e.label.endswith("· pp. 1–2") for e in at.expander), [e.label for e in at.expander]
