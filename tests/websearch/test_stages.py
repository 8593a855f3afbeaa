"""The web step's time per stage: in ``Answer.timings_ms`` as wall and CPU milliseconds, each stage
measured where it happens (a slow page shows in ``load``, not elsewhere)."""

from __future__ import annotations

from core.types import SYSTEM_ACTOR
from tests.websearch.conftest import configure, open_guard_for_test_host
from tests.websearch.fake_engines import html_page

QUESTION = "When does the Port7 ferry run in winter?"
TEXT = "In winter the Port7 ferry runs twice a day, at 08:00 and 16:30.\nIn summer it runs hourly."
STAGES = ("queries", "engine", "load", "chunk", "embed", "collection", "store", "retrieve")
PAGE_DELAY_S = 0.4


def test_every_stage_is_timed_and_a_slow_page_shows_in_load(engine, fake):
    open_guard_for_test_host(engine)
    configure(engine, web_search=fake.settings("searxng"))
    page = fake.page("/pages/ferry", html_page("Port7 ferry", TEXT), delay=PAGE_DELAY_S)
    fake.results(QUESTION, [(page, "Port7 ferry", "winter timetable")])
    answer = engine.ask(SYSTEM_ACTOR, QUESTION, temporary=True, web=True)
    assert page in [c.location for c in answer.citations], answer.text
    t = answer.timings_ms
    for name in STAGES:
        assert t[f"web_{name}_ms"] >= 0 and t[f"web_{name}_cpu_ms"] >= 0, name
    assert t["web_load_ms"] >= PAGE_DELAY_S * 1000
    assert t["web_engine_ms"] < PAGE_DELAY_S * 1000  # the engine answers at once: the delay is the page's
    assert sum(t[f"web_{n}_ms"] for n in STAGES) <= t["web_search_ms"] + 1


def test_strict_mode_has_no_web_stages(engine, fake):
    open_guard_for_test_host(engine)
    configure(engine, web_search=fake.settings("searxng"))
    answer = engine.ask(SYSTEM_ACTOR, QUESTION, temporary=True, web=True, mode="strict")
    assert fake.requests == []
    assert not [k for k in answer.timings_ms if k.startswith("web_")]
