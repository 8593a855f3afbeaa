"""The issue's acceptance scenario: SearXNG configured, a question whose answer is only on the web,
answered in normal mode with the page cited by URL, each page loaded once; strict never searches."""

from __future__ import annotations

from core.types import SYSTEM_ACTOR
from tests.websearch.conftest import configure, open_guard_for_test_host
from tests.websearch.fake_engines import html_page

QUESTION = "What is the boiling point of zorblax coolant?"
ZORBLAX = ("Zorblax coolant is a synthetic heat-transfer fluid used in orbital radiators.\n"
           "The boiling point of zorblax coolant is 412 degrees Celsius at sea level.\n"
           "It freezes at minus 80 degrees Celsius and is not flammable.")


def _setup(engine, fake):
    open_guard_for_test_host(engine)
    configure(engine, web_search=fake.settings("searxng"))
    a = fake.page("/pages/zorblax", html_page("Zorblax coolant facts", ZORBLAX))
    b = fake.page("/pages/other", html_page("Radiator maintenance", "Radiators need cleaning twice a year.\n"
                                                                     "Use soft brushes only."))
    fake.results(QUESTION, [(a, "Zorblax coolant facts", "boiling point 412"), (b, "Radiators", "cleaning"),
                            (a, "Zorblax coolant facts (duplicate)", "dup")])
    return a, b


def test_answered_from_the_web_page_cited_by_url(engine, fake):
    page, other = _setup(engine, fake)
    answer = engine.ask(SYSTEM_ACTOR, QUESTION, temporary=True, web=True)
    assert not answer.error, answer.error
    assert "412" in answer.text
    assert page in [c.location for c in answer.citations]
    assert any(c.source_name == "Zorblax coolant facts" for c in answer.citations)
    assert len(fake.hits("/pages/zorblax")) == 1 and len(fake.hits("/pages/other")) == 1  # each page loaded once
    assert len(fake.hits("/search")) == 1
    statuses = [e.message for e in answer.events if e.kind == "web_search"]
    assert statuses == ["Generating search query", "Searching the web", "Searched 2 sites"]
    done = [e for e in answer.events if e.kind == "web_search"][-1]
    assert done.data["urls"] == [page, other] and done.data["done"] is True
    assert answer.llm_called is False  # extractive default: no model was asked for queries
    assert 0 < answer.timings_ms["web_search_ms"] < answer.timings_ms["total_ms"]
    assert answer.hit is False and answer.from_kb is False  # answered from the web, not the knowledge base


def test_strict_mode_never_calls_the_engine(engine, fake):
    _setup(engine, fake)
    answer = engine.ask(SYSTEM_ACTOR, QUESTION, temporary=True, web=True, mode="strict")
    assert fake.requests == []
    assert "web search is off" in " ".join(answer.notices)
    assert not [e for e in answer.events if e.kind == "web_search"]
