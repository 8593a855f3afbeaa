"""Strict mode's second opinion (core/answering/model_judge.py, ``strict.rag_strict_model_judge``):
a question the dictionary judge refuses for a named word ("gangways" where the rules say aisles)
is put to the connected model once; its yes counts only when it quotes the passage word for word
and the quote states the kind of value asked for. Off (the default), the refusal makes no model
call. The model is a scripted OpenAI-compatible server on loopback."""

from __future__ import annotations

import json

import pytest

from core.answering.model_judge import read_reply
from core.answering.reading import read_question
from core.answering.replies import no_hit_reply
from core.types import SYSTEM_ACTOR as ADMIN
from tests.answering.conftest import configure, use_openai
from tests.engine.conftest import make_engine, md
from tests.fakes import http_error, text

RULES = """# Warehouse safety rules

## Aisles

Main aisles must be kept at least 3 metres wide at all times. Nothing may be parked in a main aisle.

## Stacking

Pallets may be stacked up to 2 metres high. Damaged pallets go to the repair bay.
"""
QUESTION = "How wide must the main gangways be?"  # the rules say aisles; no dictionary links the two
QUOTE = "Main aisles must be kept at least 3 metres wide"


def judged(quote: str, passage: int = 1) -> str:
    return json.dumps({"passage": passage, "quote": quote})


@pytest.fixture
def rules_engine(data_dir, monkeypatch):
    monkeypatch.delenv("DATABASE_URL", raising=False)
    monkeypatch.delenv("QDRANT_URL", raising=False)
    e = make_engine(data_dir, embedding={"model": "multilingual-e5-small"})
    e.create_kb(ADMIN, "rules")
    assert all(r.status == "indexed" for r in e.ingest(ADMIN, "rules", [md("rules.md", RULES)]))
    yield e
    e.close()


def test_a_reply_counts_only_as_the_passages_own_words_stating_the_value_asked_for():
    question = read_question(QUESTION)
    passages = ["Main aisles must be kept at least 3 metres wide at all times.", "Pallets may be stacked up to 2 metres high."]
    found = read_reply(f"Sure: {judged(QUOTE)}", question, passages)
    assert found is not None and found.passage == 0 and found.quote == QUOTE
    assert read_reply(judged("main  AISLES must be kept at least 3 metres\nwide"), question, passages) is not None  # spacing, case
    assert read_reply(judged("Gangways must be 3 metres wide"), question, passages) is None  # the model's words
    assert read_reply(judged("Nothing may be parked", 1), question, passages) is None  # no width stated
    assert read_reply(judged(QUOTE, 3), question, passages) is None  # no such passage
    assert read_reply(json.dumps({"passage": 0, "quote": ""}), question, passages) is None
    assert read_reply("The gangways must be 3 metres wide.", question, passages) is None  # no JSON


def test_off_by_default_a_word_refusal_calls_no_model(rules_engine, server):
    use_openai(rules_engine, server)
    configure(rules_engine, strict={"rag_strict_mode": True})
    answer = rules_engine.ask(ADMIN, QUESTION, kbs=["rules"], temporary=True)
    assert answer.text == no_hit_reply(rules_engine.settings().strict, QUESTION)
    assert not answer.hit and not answer.llm_called and server.request_count == 0
    assert any("gangways" in n for n in answer.notices)


def test_on_the_models_quoted_yes_answers_and_is_checked_like_any_strict_answer(rules_engine, server):
    use_openai(rules_engine, server)
    configure(rules_engine, strict={"rag_strict_mode": True, "rag_strict_model_judge": True},
              answering={"builtin_tools": False})
    server.add(text(judged(QUOTE)))
    server.add(text("Main gangways (aisles) must be at least 3 metres wide [1]."))
    answer = rules_engine.ask(ADMIN, QUESTION, kbs=["rules"], temporary=True)
    assert answer.hit and answer.llm_called and server.chat_count == 2
    assert answer.text == "Main gangways (aisles) must be at least 3 metres wide [1]."
    assert answer.citations and answer.citations[0].source_name == "rules.md"
    assert any("gangways" in n and "quoted" in n for n in answer.notices)
    judge_request = server.chat_bodies()[0]
    assert QUESTION in json.dumps(judge_request, ensure_ascii=False)

    # the model's yes, then an answer with a number the passage lacks: the quote is shown instead
    server.add(text(judged(QUOTE)))
    server.add(text("Main gangways must be at least 5 metres wide [1]."))
    checked = rules_engine.ask(ADMIN, QUESTION, kbs=["rules"], temporary=True)
    assert "5 metres" not in checked.text and "3 metres" in checked.text and checked.hit


def test_on_a_no_or_a_paraphrase_keeps_the_refusal_and_nothing_more_is_asked(rules_engine, server):
    use_openai(rules_engine, server)
    configure(rules_engine, strict={"rag_strict_mode": True, "rag_strict_model_judge": True})
    for reply in (text(json.dumps({"passage": 0, "quote": ""})), text(judged("Gangways must be 3 metres wide")),
                  http_error(500)):  # a failing model keeps the refusal too, no error shown
        before = server.chat_count
        server.add(reply)
        answer = rules_engine.ask(ADMIN, QUESTION, kbs=["rules"], temporary=True)
        assert answer.text == no_hit_reply(rules_engine.settings().strict, QUESTION) and not answer.hit
        assert not answer.error
        assert server.chat_count == before + 1  # the judgement only; no answer was asked for
        assert any("gangways" in n for n in answer.notices)


def test_a_question_nothing_passes_the_threshold_for_never_reaches_the_model(rules_engine, server):
    use_openai(rules_engine, server)
    configure(rules_engine, strict={"rag_strict_mode": True, "rag_strict_model_judge": True})
    answer = rules_engine.ask(ADMIN, "What is the capital of Peru?", kbs=["rules"], temporary=True)
    assert not answer.hit and not answer.llm_called and server.request_count == 0
