"""Search-query generation: the reply parsing and every fallback, with and without a chat model."""

from __future__ import annotations

import pytest

from core.types import SYSTEM_ACTOR
from core.websearch.queries import MAX_QUERIES, parse_queries
from tests.answering.conftest import use_openai
from tests.fakes import fake_llm_server, http_error, text
from tests.websearch.conftest import configure, open_guard_for_test_host
from tests.websearch.fake_engines import html_page

MSG = "今年的诺贝尔物理学奖得主是谁？"


@pytest.mark.parametrize("reply,expected", [
    ('{"queries": ["nobel physics 2026", "诺贝尔物理学奖 2026"]}', ["nobel physics 2026", "诺贝尔物理学奖 2026"]),
    ('Sure! Here you go:\n```json\n{\n  "queries": ["-current korean president"]\n}\n```', ["-current korean president"]),
    ('{"queries": ["a", " a ", "b"]}', ["a", "b"]),  # trimmed, duplicates dropped
    ('no json at all', [MSG]),
    ('{"queries": ["unterminated"', [MSG]),
    ('} backwards {', [MSG]),
    ('{"queries": "not a list"}', [MSG]),
    ('{"something": ["else"]}', [MSG]),
    ('{"queries": [""]}', [MSG]),  # an empty string → the message
    ('{"queries": ["  ", 3]}', [MSG]),
    ('{"queries": []}', []),  # an empty list → no search at all
    ('', [MSG]),
])
def test_parse_queries(reply, expected):
    assert parse_queries(reply, MSG) == expected


def test_at_most_a_few_queries_are_kept():
    reply = '{"queries": [' + ", ".join(f'"q{i}"' for i in range(10)) + "]}"
    assert parse_queries(reply, MSG) == [f"q{i}" for i in range(MAX_QUERIES)]


def _web(engine, fake):
    open_guard_for_test_host(engine)
    configure(engine, web_search=fake.settings("searxng"))


def test_the_model_writes_the_queries_and_each_is_searched(engine, fake):
    _web(engine, fake)
    page = fake.page("/pages/nobel", html_page("Nobel 2026", "The 2026 physics prize went to Ada Example."))
    fake.results("nobel physics 2026", [(page, "Nobel 2026", "prize")])
    with fake_llm_server([text('{"queries": ["nobel physics 2026", "physics laureate"]}'), text("Ada Example [1].")]) as srv:
        use_openai(engine, srv)
        answer = engine.ask(SYSTEM_ACTOR, MSG, temporary=True, web=True)
        prompt = srv.chat_bodies()[0]["messages"][-1]["content"]
        final = srv.chat_bodies()[1]["messages"]
    assert not answer.error and answer.llm_called
    assert '{"queries"' in prompt and MSG in prompt
    assert sorted(c.query["q"] for c in fake.hits("/search")) == ["nobel physics 2026", "physics laureate"]
    assert "Ada Example" in " ".join(m["content"] for m in final)  # the page reached the answer prompt
    assert [c.location for c in answer.citations] == [page]


def test_a_failing_model_falls_back_to_the_message(engine, fake):
    _web(engine, fake)
    with fake_llm_server([http_error(500), text("no idea")]) as srv:
        use_openai(engine, srv)
        answer = engine.ask(SYSTEM_ACTOR, MSG, temporary=True, web=True)
        assert srv.chat_count == 2  # the query call failed, the answer call was made
    assert [c.query["q"] for c in fake.hits("/search")] == [MSG]
    assert answer.text.endswith("no idea") and not answer.error  # the answer still came


def test_an_empty_query_list_searches_nothing_and_the_answer_goes_on(engine, fake):
    _web(engine, fake)
    with fake_llm_server([text('{"queries": []}'), text("Hello there.")]) as srv:
        use_openai(engine, srv)
        answer = engine.ask(SYSTEM_ACTOR, "Tell me a joke about cats", temporary=True, web=True)
    statuses = [e.message for e in answer.events if e.kind == "web_search"]
    assert statuses == ["Generating search query", "No search query generated"]
    assert fake.requests == [] and answer.text.endswith("Hello there.")


def test_without_a_chat_model_the_message_is_the_query_and_no_model_is_called(engine, fake):
    _web(engine, fake)
    with fake_llm_server([]) as srv:
        answer = engine.ask(SYSTEM_ACTOR, MSG, temporary=True, web=True)  # extractive default
        assert srv.request_count == 0
    assert [c.query["q"] for c in fake.hits("/search")] == [MSG]
    assert answer.llm_called is False
