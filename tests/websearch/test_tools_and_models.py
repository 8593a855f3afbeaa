"""search_web as a builtin tool (File Context × Builtin Tools), Ollama's context warning, the CLI."""

from __future__ import annotations

import json

import pytest

from core.types import SYSTEM_ACTOR
from tests.answering.conftest import use_ollama, use_openai
from tests.cli.test_cli import as_json, run_cli
from tests.fakes import fake_llm_server, text, tool_call
from tests.websearch.conftest import GUARD_OPEN_FOR_TEST_HOST, configure, open_guard_for_test_host
from tests.websearch.fake_engines import fake_engines, html_page

Q = "How tall is the Quenby lighthouse?"
PAGE = "The Quenby lighthouse is 47 metres tall.\nIt was built in 1871 from local granite."


def _web(engine, fake, **answering) -> str:
    open_guard_for_test_host(engine)
    configure(engine, web_search=fake.settings("searxng"), answering=answering)
    page = fake.page("/pages/lighthouse", html_page("Quenby lighthouse", PAGE))
    fake.results("quenby lighthouse height", [(page, "Quenby lighthouse", "")])
    fake.results(Q, [(page, "Quenby lighthouse", "")])
    return page


def _tool_names(body) -> list[str]:
    return [t["function"]["name"] for t in body.get("tools") or []]


def test_file_context_off_builtin_tools_on_the_model_searches_with_the_tool(engine, fake):
    page = _web(engine, fake, file_context=False, builtin_tools=True)
    with fake_llm_server([tool_call("search_web", {"query": "quenby lighthouse height"}), text("It is 47 metres [1].")]) as srv:
        use_openai(engine, srv)
        answer = engine.ask(SYSTEM_ACTOR, Q, temporary=True, web=True)
        first, second = srv.chat_bodies()
    assert "search_web" in _tool_names(first)
    assert [c.query["q"] for c in fake.hits("/search")] == ["quenby lighthouse height"]  # the tool's query, as given
    tool_reply = [m for m in second["messages"] if m["role"] == "tool"][0]["content"]
    assert "47 metres" in tool_reply and page in tool_reply
    assert [c.location for c in answer.citations] == [page]
    assert "Generating search query" not in [e.message for e in answer.events]


def test_file_context_on_builtin_tools_on_injects_and_offers_the_tool(engine, fake):
    page = _web(engine, fake, file_context=True, builtin_tools=True)
    with fake_llm_server([text('{"queries": ["quenby lighthouse height"]}'), text("47 metres [1].")]) as srv:
        use_openai(engine, srv)
        answer = engine.ask(SYSTEM_ACTOR, Q, temporary=True, web=True)
        _, answer_call = srv.chat_bodies()
    assert "search_web" in _tool_names(answer_call)
    assert page in answer_call["messages"][-1]["content"] or page in answer_call["messages"][0]["content"]
    assert [c.location for c in answer.citations] == [page]


def test_file_context_on_builtin_tools_off_injects_without_the_tool(engine, fake):
    _web(engine, fake, file_context=True, builtin_tools=False)
    with fake_llm_server([text('{"queries": ["quenby lighthouse height"]}'), text("47 metres [1].")]) as srv:
        use_openai(engine, srv)
        engine.ask(SYSTEM_ACTOR, Q, temporary=True, web=True)
        assert all(not _tool_names(b) for b in srv.chat_bodies())
    assert len(fake.hits("/search")) == 1


def test_both_switches_off_searches_nothing_and_says_why(engine, fake):
    _web(engine, fake, file_context=False, builtin_tools=False)
    with fake_llm_server([text("I cannot look that up.")]) as srv:
        use_openai(engine, srv)
        answer = engine.ask(SYSTEM_ACTOR, Q, temporary=True, web=True)
    assert fake.requests == [] and any("File Context or Builtin Tools" in n for n in answer.notices)


def test_without_the_web_switch_no_search_web_tool_is_offered(engine, fake):
    _web(engine, fake, file_context=True, builtin_tools=True)
    with fake_llm_server([text("Answer.")]) as srv:
        use_openai(engine, srv)
        engine.ask(SYSTEM_ACTOR, Q, temporary=True)
        assert "search_web" not in _tool_names(srv.chat_bodies()[0])
    assert fake.requests == []


def test_ollama_context_below_8192_warns_when_web_content_is_injected(engine, fake):
    _web(engine, fake, builtin_tools=False)
    with fake_llm_server([text('{"queries": ["quenby lighthouse height"]}'), text("47 metres [1]."),
                          text('{"queries": ["quenby lighthouse height"]}'), text("47 metres [1].")]) as srv:
        use_ollama(engine, srv, context_length=4096)
        small = engine.ask(SYSTEM_ACTOR, Q, temporary=True, web=True)
        use_ollama(engine, srv, context_length=8192)
        enough = engine.ask(SYSTEM_ACTOR, Q, temporary=True, web=True)
        assert srv.chat_bodies()[1]["options"]["num_ctx"] == 4096
    assert any("web search content" in n and "4096" in n for n in small.notices)
    assert not any("num_ctx" in n for n in enough.notices)
    assert engine.context_warning(web=True) is None  # 8192 now
    configure(engine, llm={"context_length": 4096})
    assert "web search" in (engine.context_warning(web=True) or "") and engine.context_warning() is None


@pytest.mark.slow  # several real CLI processes
def test_ask_and_compare_with_web_from_the_command_line(data_dir):
    with fake_engines() as fake:
        page = fake.page("/pages/lighthouse", html_page("Quenby lighthouse", PAGE))
        fake.results(Q, [(page, "Quenby lighthouse", "")])
        run_cli(data_dir, "settings", "set", "embedding", '{"provider": "local", "model": "hash-64"}')
        run_cli(data_dir, "settings", "set", "parsing", json.dumps(GUARD_OPEN_FOR_TEST_HOST))
        run_cli(data_dir, "settings", "set", "web_search", json.dumps(fake.settings("searxng")))
        run_cli(data_dir, "settings", "set", "web_search.web_search_domain_filter_list", '["127.0.0.1"]')
        got = as_json(run_cli(data_dir, "--json", "ask", "--web", Q))
        assert "47 metres" in got["text"] and got["citations"][0]["location"] == page
        assert "Searched 1 site" in [e["message"] for e in got["events"]]
        human = run_cli(data_dir, "compare", "--web", Q).stdout
        assert "web search is off" in human and "47 metres" in human
        assert len(fake.hits("/search")) == 2  # ask + the normal side of compare; strict never
