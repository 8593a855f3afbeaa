"""Strict mode with a language model: its answer is checked against the passages it was given before
it is shown (core/answering/verify.py). A number or a name no passage backs is the model's own:
the passage's own sentence is quoted instead, with a notice; an answer the passages back is shown
as the model wrote it. The model is a scripted OpenAI-compatible server on loopback."""

from __future__ import annotations

from core.answering.verify import check_answer
from core.types import SYSTEM_ACTOR as ADMIN
from tests.answering.conftest import configure, use_openai
from tests.fakes import text

POLICY = "第五条 一线城市住宿费每人每晚不超过六百元，其他城市不超过四百元。"
HANDBOOK = "Employees may work remotely up to three days per week with their manager's approval."


def test_numbers_and_names_are_looked_up_by_value_and_across_languages():
    assert check_answer("一线城市每晚不超过600元 [1]", [POLICY]).supported  # 六百 is 600
    assert check_answer("The cap is 600 yuan per night in first-tier cities [1].", [POLICY]).supported
    assert check_answer("Up to three days a week [1].", [HANDBOOK]).supported
    invented = check_answer("一线城市每晚不超过八百元 [1]", [POLICY])
    assert not invented.supported and invented.unsupported == ("800",)
    off_topic = check_answer("The capital of France is Paris.", [HANDBOOK])
    assert not off_topic.supported and set(off_topic.unsupported) == {"france", "paris"}
    # list numbering and the passage numbers [n] are not claims
    assert check_answer("1. Up to 3 days per week [1]\n2. With the manager's approval [1]", [HANDBOOK]).supported


def _strict(engine, server):
    use_openai(engine, server)
    configure(engine, strict={"rag_strict_mode": True}, answering={"builtin_tools": False})


def test_an_invented_number_is_replaced_by_the_passage_a_backed_answer_is_kept(engine, server):
    _strict(engine, server)
    server.add(text("一线城市住宿每晚不超过八百元 [1]"))
    invented = engine.ask(ADMIN, "一线城市住宿费每晚不超过多少？", kbs=["policy"], temporary=True)
    assert invented.llm_called and server.chat_count == 1
    assert "八百" not in invented.text and "六百元" in invented.text and invented.citations
    assert any("800" in n for n in invented.notices)

    server.add(text("一线城市住宿每晚不超过六百元 [1]"))
    kept = engine.ask(ADMIN, "一线城市住宿费每晚不超过多少？", kbs=["policy"], temporary=True)
    assert kept.text == "一线城市住宿每晚不超过六百元 [1]" and server.chat_count == 2
    assert not any("八百" in n or "unsupported" in n for n in kept.notices)


def test_the_text_is_shown_only_after_the_check(engine, server):
    _strict(engine, server)
    server.add(text("Employees may work remotely 5 days per week [1]."))
    events = []
    answer = engine.ask(ADMIN, "How many days per week may employees work remotely?", kbs=["policy"], temporary=True,
                        on_event=events.append)
    shown = "".join(e.message for e in events if e.kind == "text")
    assert "5 days" not in shown  # the model's text never reached the page
    assert "three days" in shown and "three days" in answer.text and any("5" in n for n in answer.notices)


def test_a_model_answering_off_topic_after_a_url_mention_is_not_passed_through(engine, server):
    _strict(engine, server)
    server.add(text("The capital of France is Paris."))
    answer = engine.ask(ADMIN, "How many days per week may employees work remotely? #https://example.com/guide",
                        kbs=["policy"], temporary=True)
    assert "Paris" not in answer.text
    assert answer.text.strip() and (("three days" in answer.text) or not answer.hit)
    assert server.request_count == 1  # the page was not fetched; the model was asked once
