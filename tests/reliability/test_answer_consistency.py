"""Answering-side consistency: what an answer says about itself stays true after a reload, and
the File Context switch means what it says.

- A web-search answer's badge became "attachment" after a reload: the stored citation carries
  its origin ("web"), but the badge guessed from the kb id and the source name (a page title).
- A temporary chat with File Context off still injected the pages of ``#https://…`` mentions.
Local servers only: the fake search engine serves the pages, the fake LLM server records what the
model was sent; nothing leaves 127.0.0.1 (checked after every test)."""

from __future__ import annotations

import pytest

from core.answering.provenance import answer_sources
from core.types import SYSTEM_ACTOR as ADMIN
from tests.answering.conftest import configure, use_openai
from tests.fakes import fake_llm_server, text
from tests.websearch.conftest import engine, fake, nothing_leaves_the_machine  # noqa: F401 (fixtures)
from tests.websearch.fake_engines import html_page

QUESTION = "What is the boiling point of zorblax coolant?"
PAGE_TEXT = "The boiling point of zorblax coolant is 412 degrees Celsius at sea level."


@pytest.fixture
def llm():
    with fake_llm_server() as srv:
        yield srv


def _open_guard_for(engine) -> None:
    engine.save_settings(ADMIN, {"parsing": {"url_allow_hosts": ["127.0.0.1"]}})


def test_a_web_answer_keeps_its_web_badge_after_a_reload(engine, fake):
    _open_guard_for(engine)
    configure(engine, web_search=fake.settings("searxng"))
    page = fake.page("/pages/zorblax", html_page("Zorblax coolant facts", PAGE_TEXT))
    fake.results(QUESTION, [(page, "Zorblax coolant facts", "boiling point 412")])
    chat = engine.create_chat(ADMIN, "web")
    answer = engine.ask(ADMIN, QUESTION, chat_id=chat.id, web=True)
    assert "412" in answer.text and {c.origin for c in answer.citations} == {"web"}
    assert answer_sources(answer) == ["web"]
    stored = engine.chat_messages(ADMIN, chat.id)[-1]  # what the chat page draws after a reload
    assert answer_sources(stored) == ["web"]


@pytest.mark.parametrize("builtin_tools", [False, True])
def test_file_context_off_a_temporary_chat_does_not_fetch_a_mentioned_page(engine, fake, llm, builtin_tools):
    _open_guard_for(engine)
    use_openai(engine, llm)
    configure(engine, answering={"file_context": False, "builtin_tools": builtin_tools})
    page = fake.page("/pages/zorblax", html_page("Zorblax coolant facts", PAGE_TEXT))
    llm.add(text("I do not know."))
    answer = engine.ask(ADMIN, f"#{page} {QUESTION}", temporary=True)
    assert not answer.error and answer.llm_called
    assert fake.hits("/pages/zorblax") == []  # not fetched: a temporary page could not reach the model otherwise
    assert "412 degrees" not in str(llm.chat_bodies()[-1]["messages"])  # the page's fact (a port may hold 412)
    assert any("file context is off" in n and page in n for n in answer.notices), answer.notices
    assert answer.citations == [] and answer.sources == []


def test_file_context_on_a_temporary_chat_uses_the_mentioned_page(engine, fake, llm):
    _open_guard_for(engine)
    use_openai(engine, llm)
    configure(engine, answering={"file_context": True, "builtin_tools": False})
    page = fake.page("/pages/zorblax", html_page("Zorblax coolant facts", PAGE_TEXT))
    llm.add(text("412 degrees Celsius [1]"))
    answer = engine.ask(ADMIN, f"#{page} {QUESTION}", temporary=True)
    assert len(fake.hits("/pages/zorblax")) == 1 and "412 degrees" in str(llm.chat_bodies()[-1]["messages"])
    assert answer_sources(answer) == ["web"]
