"""The web search flow through ``Engine.ask``: statuses, de-duplication, the domain filter, page
loading (timeouts, the SSRF guard), both bypass options, a failing engine, strict mode."""

from __future__ import annotations

import pytest

from core.types import SYSTEM_ACTOR
from core.websearch.base import SearchResult
from core.websearch.filters import dedupe, filter_domains, host_allowed
from tests.websearch.conftest import configure, open_guard_for_test_host
from tests.websearch.fake_engines import html_page

Q = "How tall is the Quenby lighthouse?"
LIGHTHOUSE = "The Quenby lighthouse is 47 metres tall.\nIt was built in 1871 from local granite."
FERRY = "The Quenby ferry leaves every hour.\nTickets cost four pounds."

def _statuses(answer) -> list[str]:
    return [e.message for e in answer.events if e.kind == "web_search"]


def _web(engine, fake, engine_name: str = "searxng", guard_open: bool = True, **web) -> None:
    if guard_open:
        open_guard_for_test_host(engine)
    configure(engine, web_search={**fake.settings(engine_name), **web})


def _two_pages(fake) -> tuple[str, str]:
    a = fake.page("/pages/lighthouse", html_page("Quenby lighthouse", LIGHTHOUSE))
    b = fake.page("/pages/ferry", html_page("Quenby ferry", FERRY))
    return a, b


# ---------------------------------------------------------------- pure pieces


def test_dedupe_keeps_the_first_of_each_url_in_order():
    rs = [SearchResult("https://a/1", "first"), SearchResult("https://b/1"), SearchResult("https://a/1", "again"),
          SearchResult("https://c/1"), SearchResult("https://b/1")]
    assert [(r.link, r.title) for r in dedupe(rs)] == [("https://a/1", "first"), ("https://b/1", ""), ("https://c/1", "")]


@pytest.mark.parametrize("url,ok", [
    ("https://example.com/x", True), ("https://docs.example.com/x", True), ("https://EXAMPLE.com./x", True),
    ("https://badexample.com/x", False), ("https://example.com.evil.io/x", False), ("https://other.org/x", False),
    ("https://user@evil.io/?example.com", False), ("not a url", False),
])
def test_domain_filter_admits_an_entry_and_its_subdomains_only(url, ok):
    assert host_allowed(url, ["example.com", "wiki.org"]) is ok
    assert host_allowed(url, []) is True


def test_filter_domains_reports_what_it_dropped():
    kept, dropped = filter_domains([SearchResult("https://a.example.com/"), SearchResult("https://b.net/")], ["example.com"])
    assert [r.link for r in kept] == ["https://a.example.com/"] and [r.link for r in dropped] == ["https://b.net/"]


# ---------------------------------------------------------------- through the engine


def test_event_sequence_dedupe_in_order_and_one_load_per_page(engine, fake):
    _web(engine, fake)
    a, b = _two_pages(fake)
    fake.results(Q, [(b, "ferry", ""), (a, "lighthouse", ""), (b, "ferry again", "")])
    answer = engine.ask(SYSTEM_ACTOR, Q, temporary=True, web=True)
    events = [e for e in answer.events if e.kind == "web_search"]
    assert [e.message for e in events] == ["Generating search query", "Searching the web", "Searched 2 sites"]
    assert [e.data["done"] for e in events] == [False, False, True]
    assert events[1].data["queries"] == [Q] and events[-1].data["urls"] == [b, a]  # engine order, duplicate gone
    assert len(fake.hits("/pages/ferry")) == 1 and len(fake.hits("/pages/lighthouse")) == 1
    assert "47 metres" in answer.text


def test_the_domain_filter_drops_results_before_their_pages_are_loaded(engine, fake):
    _web(engine, fake, web_search_domain_filter_list=["127.0.0.1"])
    a, _ = _two_pages(fake)
    elsewhere = "https://outside.example/page"
    fake.results(Q, [(elsewhere, "outside", "47 metres"), (a, "lighthouse", "")])
    answer = engine.ask(SYSTEM_ACTOR, Q, temporary=True, web=True)
    assert _statuses(answer)[-1] == "Searched 1 site"
    assert any("1 result outside the domain filter" in n for n in answer.notices)
    assert [c.location for c in answer.citations] == [a]


def test_no_results_says_so_and_the_answer_still_comes(engine, fake):
    _web(engine, fake)
    answer = engine.ask(SYSTEM_ACTOR, Q, temporary=True, web=True)
    last = [e for e in answer.events if e.kind == "web_search"][-1]
    assert last.message == "No search results found" and last.data["error"] is True
    assert answer.text and not answer.error


def test_a_failing_engine_gives_an_error_status_with_the_queries_and_the_answer_still_comes(engine, fake):
    _web(engine, fake, "brave")
    fake.engine_status = 500
    answer = engine.ask(SYSTEM_ACTOR, "How many remote work days are allowed per week?", temporary=True, web=True)
    last = [e for e in answer.events if e.kind == "web_search"][-1]
    assert last.message == "An error occurred while searching the web"
    assert last.data["error"] is True and last.data["queries"] == ["How many remote work days are allowed per week?"]
    assert any("HTTP 500" in n for n in answer.notices)
    assert not answer.error and "three days" in answer.text  # answered from the knowledge base


def test_an_engine_without_its_key_is_a_clear_notice_not_a_crash(engine, fake):
    _web(engine, fake, "serper", serper_api_key="")
    answer = engine.ask(SYSTEM_ACTOR, Q, temporary=True, web=True)
    assert _statuses(answer)[-1] == "An error occurred while searching the web"
    assert any("needs web_search.engines.serper.api_key" in n for n in answer.notices)
    assert fake.requests == [] and not answer.error


def test_a_page_that_times_out_is_skipped_alone(engine, fake):
    _web(engine, fake)
    configure(engine, parsing={"url_timeout_seconds": 0.3})
    a, _ = _two_pages(fake)
    slow = fake.page("/pages/slow", html_page("slow", "never arrives in time"), delay=1.5)
    fake.results(Q, [(slow, "slow", ""), (a, "lighthouse", "")])
    answer = engine.ask(SYSTEM_ACTOR, Q, temporary=True, web=True)
    assert any(n.startswith(f"skipped {slow}") and "timed out" in n for n in answer.notices)
    assert _statuses(answer)[-1] == "Searched 1 site"
    assert [c.location for c in answer.citations] == [a]


def test_results_at_private_or_metadata_addresses_are_refused_before_any_connection(engine, fake, network_log):
    # the admin opened the engine's host by name only: result pages on 127.0.0.1 stay refused
    engine.save_settings(SYSTEM_ACTOR, {"parsing": {"url_allow_hosts": ["localhost"]}})
    configure(engine, web_search={**fake.settings("searxng"),
                                  "searxng_query_url": fake.url("/search?q=<query>").replace("127.0.0.1", "localhost")})
    bad = ["http://169.254.169.254/latest/meta-data/", "http://10.0.0.1/admin", fake.url("/pages/lighthouse")]
    fake.results(Q, [(u, "x", "") for u in bad])
    network_log.clear()
    answer = engine.ask(SYSTEM_ACTOR, Q, temporary=True, web=True)
    hosts = {target[0] for kind, target in network_log if kind == "connect" and isinstance(target, tuple)}
    assert hosts == {"127.0.0.1"}  # the engine call was seen (the hook works), nothing else was dialled
    assert len(fake.engine_calls) == 1 and fake.hits("/pages/") == []  # the loopback result was refused too
    for url in bad:
        assert any(n.startswith(f"skipped {url}: refused") for n in answer.notices), answer.notices
    assert _statuses(answer)[-1] == "No search results found" and not answer.error


def test_bypass_web_loader_uses_the_engine_snippets(engine, fake):
    _web(engine, fake, "tavily", bypass_web_search_web_loader=True)
    a, b = _two_pages(fake)
    fake.results(Q, [(a, "Quenby lighthouse", "The Quenby lighthouse is 47 metres tall."), (b, "ferry", "")])
    answer = engine.ask(SYSTEM_ACTOR, Q, temporary=True, web=True)
    assert fake.hits("/pages/") == []  # no page was loaded
    assert _statuses(answer)[-1] == "Searched 1 site"  # the result without a snippet has nothing to use
    assert "47 metres" in answer.text and [c.location for c in answer.citations] == [a]


def test_bypass_embedding_injects_whole_pages_within_the_budget(engine, fake):
    _web(engine, fake, bypass_web_search_embedding_and_retrieval=True)
    a, b = _two_pages(fake)
    fake.results(Q, [(a, "lighthouse", ""), (b, "ferry", "")])
    answer = engine.ask(SYSTEM_ACTOR, Q, temporary=True, web=True)
    assert not [c for c in engine._store.list_collections() if "web-search-" in c]  # nothing was indexed
    assert {c.location for c in answer.citations} >= {a}
    assert any("1871" in c.text and "47 metres" in c.text for c in answer.citations)  # the page, whole


def test_web_search_switched_off_by_the_admin_searches_nothing(engine, fake):
    _web(engine, fake, enable_web_search=False)
    answer = engine.ask(SYSTEM_ACTOR, Q, temporary=True, web=True)
    assert fake.requests == [] and any("enable_web_search" in n for n in answer.notices)


def test_compare_searches_for_the_normal_side_only(engine, fake):
    _web(engine, fake)
    a, _ = _two_pages(fake)
    fake.results(Q, [(a, "lighthouse", "")])
    result = engine.compare(SYSTEM_ACTOR, Q, web=True)
    assert len(fake.engine_calls) == 1
    assert _statuses(result.normal)[-1] == "Searched 1 site" and _statuses(result.strict) == []
    assert any("web search is off" in n for n in result.strict.notices)
    assert all(not c.location.startswith("http") for c in result.strict.citations)


def test_queries_run_in_parallel_and_page_loads_are_bounded_by_the_setting(engine, fake):
    from tests.answering.conftest import use_openai
    from tests.fakes import fake_llm_server, text

    _web(engine, fake, web_search_concurrent_requests=2)
    fake.engine_delay = 0.3
    pages = [fake.page(f"/pages/p{i}", html_page(f"Quenby {i}", LIGHTHOUSE), delay=0.3) for i in range(5)]
    for i, q in enumerate(["q one", "q two", "q three"]):
        fake.results(q, [(pages[i], "p", ""), (pages[i + 1], "p", "")] + ([(pages[4], "p", "")] if i == 2 else []))
    with fake_llm_server([text('{"queries": ["q one", "q two", "q three"]}'), text("47 metres [1].")]) as srv:
        use_openai(engine, srv)
        answer = engine.ask(SYSTEM_ACTOR, Q, temporary=True, web=True)
    assert fake.max_in_flight["engine"] == 3  # the three queries at once
    assert fake.max_in_flight["pages"] == 2  # never more pages than web_search_concurrent_requests
    assert [len(fake.hits(f"/pages/p{i}")) for i in range(5)] == [1] * 5  # de-duplicated across queries
    assert _statuses(answer)[-1] == "Searched 5 sites"


def test_whole_pages_are_cut_to_the_model_context_and_the_cut_is_said(engine, fake):
    from tests.answering.conftest import use_openai
    from tests.fakes import fake_llm_server, text

    _web(engine, fake, bypass_web_search_embedding_and_retrieval=True)
    long_page = fake.page("/pages/long", html_page("Quenby history", "\n".join(
        f"Paragraph {i}: the Quenby lighthouse keepers logged the weather every evening." for i in range(400))))
    fake.results(Q, [(long_page, "history", "")])
    with fake_llm_server([text('{"queries": ["quenby"]}'), text("Keepers logged the weather [1].")]) as srv:
        use_openai(engine, srv, context_length=1024)
        fake.results("quenby", [(long_page, "history", "")])
        answer = engine.ask(SYSTEM_ACTOR, Q, temporary=True, web=True)
        sent = srv.chat_bodies()[1]["messages"]
    assert any("shortened: Quenby history" in n for n in answer.notices), answer.notices
    prompt = " ".join(m["content"] for m in sent)
    assert "Paragraph 0:" in prompt and "Paragraph 399:" not in prompt  # cut, most of it left out


def test_certificate_checks_follow_the_setting_for_engine_and_pages(engine, tmp_path):
    import json

    from tests.parsers.http_fixtures import local_server, self_signed_localhost

    server_tls, _ = self_signed_localhost(tmp_path)
    with local_server(server_tls) as srv:
        page = srv.url("/page", host="localhost")
        srv.serve("/page", html_page("Quenby lighthouse", LIGHTHOUSE).encode(), "text/html; charset=utf-8")
        srv.serve("/search", json.dumps({"results": [{"url": page, "title": "Quenby", "content": ""}]}).encode(),
                  "application/json")
        open_guard_for_test_host(engine)
        configure(engine, web_search={"enable_web_search": True, "web_search_engine": "searxng",
                                      "searxng_query_url": srv.url("/search?q=<query>", host="localhost")})
        checked = engine.ask(SYSTEM_ACTOR, Q, temporary=True, web=True)
        assert _statuses(checked)[-1] == "An error occurred while searching the web"  # self-signed: refused
        assert [h for h in srv.hits if h.startswith("/page")] == []
        configure(engine, web_search={"enable_web_loader_ssl_verification": False})
        unchecked = engine.ask(SYSTEM_ACTOR, Q, temporary=True, web=True)
    assert _statuses(unchecked)[-1] == "Searched 1 site"
    assert [c.location for c in unchecked.citations] == [page] and "47 metres" in unchecked.text
