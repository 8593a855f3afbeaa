"""Curated answers in answering: before retrieval in both modes, verbatim, cited with approver
and time; strict mode uses them without a model call."""

from __future__ import annotations

from core.types import SYSTEM_ACTOR as ADMIN
from tests.answering.conftest import configure, use_openai
from tests.fakes import text

Q = "一线城市出差住宿每晚最多报销多少钱？"
APPROVED = "一线城市每人每晚不超过六百元（人事部 2025 年确认）。"


def test_strict_mode_returns_the_curated_answer_with_no_search_and_no_model_call(engine, server):
    use_openai(engine, server)
    configure(engine, strict={"rag_strict_mode": True})
    entry = engine.add_curated(ADMIN, "policy", Q, APPROVED)
    events = []
    answer = engine.ask(ADMIN, "一线城市出差住宿每晚最多报销多少钱", on_event=events.append)  # no question mark
    assert answer.mode == "strict" and answer.text == APPROVED
    assert answer.hit and answer.from_kb and not answer.llm_called and server.request_count == 0
    assert answer.sources == ["curated"] and answer.curated["id"] == entry.id
    [c] = answer.citations
    assert (c.origin, c.approved_by, c.approved_at, c.chunk_id) == ("curated", ADMIN.name, entry.approved_at, entry.id)
    kinds = [e.kind for e in events]
    assert "curated" in kinds and "retrieval_started" not in kinds and kinds[-1] == "done"
    # the chat keeps it: the stored message carries the curated citation
    stored = engine.chat_messages(ADMIN, answer.chat_id)[-1]
    assert stored.content == APPROVED and stored.citations[0]["origin"] == "curated"
    assert stored.citations[0]["approved_by"] == ADMIN.name and stored.llm_called is False


def test_normal_mode_answers_curated_first_and_otherwise_as_before(engine, server):
    use_openai(engine, server)
    engine.add_curated(ADMIN, "policy", Q, APPROVED)
    answer = engine.ask(ADMIN, Q, mode="normal", temporary=True)
    assert answer.text == APPROVED and server.request_count == 0 and answer.curated is not None
    server.add(text("员工可报销二等座车票。[1]"))
    other = engine.ask(ADMIN, "出差坐火车可以报销什么座位？", mode="normal", temporary=True)
    assert other.curated is None and other.llm_called and other.text == "员工可报销二等座车票。[1]"


def test_a_neighbouring_question_is_not_given_the_curated_answer(engine, server):
    """Same words, another subject: refused whatever the score (hash embedder: almost 1)."""
    configure(engine, strict={"rag_strict_mode": True})
    engine.add_curated(ADMIN, "policy", Q, APPROVED)
    answer = engine.ask(ADMIN, "其他城市出差住宿每晚最多报销多少钱？", temporary=True)
    assert answer.curated is None and answer.text != APPROVED
    assert all(c.origin == "kb" for c in answer.citations)


def test_curated_answers_off_or_outside_the_scope_do_not_fire(engine):
    engine.add_curated(ADMIN, "policy", Q, APPROVED)
    engine.create_kb(ADMIN, "other")
    assert engine.ask(ADMIN, Q, kbs=["other"], temporary=True).curated is None  # another knowledge base asked
    [travel] = [f for f in engine.list_files(ADMIN, "policy") if f.name == "travel.md"]
    assert engine.ask(ADMIN, Q, file_ids=(travel.id,), temporary=True).curated is None  # a file picked
    configure(engine, curated={"enabled": False})
    assert engine.ask(ADMIN, Q, temporary=True).curated is None


def test_the_ab_compare_shows_the_curated_answer_on_both_sides(engine, server):
    use_openai(engine, server)
    engine.add_curated(ADMIN, "policy", Q, APPROVED)
    comparison = engine.compare(ADMIN, Q)
    assert comparison.normal.curated and comparison.strict.curated
    assert comparison.normal.text == comparison.strict.text == APPROVED and server.request_count == 0
