"""Each engine against what its public API documents beyond the happy path: result and query
limits, paging, markup in snippets, empty answers, error bodies and rate limits (429 with
``Retry-After`` or Brave's ``X-RateLimit-*``). The fake server (fake_engines.py) answers as the
documented APIs do, refusals included."""

from __future__ import annotations

import json
import sys
import time
import types

import pytest

from core.parsers.url_guard import AllowList
from core.settings.model import WebSearchSettings
from core.websearch.base import EngineHttp, SearchResult, WebSearchError, engine_client
from core.websearch.engines import search_one
from tests.websearch.fake_engines import KEY

OPEN = AllowList.parse(["127.0.0.1"])  # the fake engines' host, opened the way an admin would


def _search(fake, engine: str, query: str, **over) -> list[SearchResult]:
    cfg = WebSearchSettings(**{**fake.settings(engine), **over})
    with engine_client(EngineHttp(allow=OPEN)) as client:
        return search_one(cfg, query, client)


def _many(n: int) -> list[tuple[str, str, str]]:
    return [(f"https://example.org/r{i}", f"Result {i}", f"snippet {i}") for i in range(n)]


# ---------------------------------------------------------------- limits and paging


def test_tavily_asks_for_at_most_twenty_results(fake):
    fake.results("q", _many(30))
    got = _search(fake, "tavily", "q", web_search_result_count=50)
    assert [r.link for r in got] == [u for u, _, _ in _many(20)]
    assert fake.engine_calls[0].body["max_results"] == 20


@pytest.mark.parametrize("engine", ["tavily", "brave"])
@pytest.mark.parametrize("message", [
    " ".join(f"word{i}" for i in range(120)),  # 120 words, ~900 characters
    "年假" * 300,  # 600 characters without a space
])
def test_a_long_message_is_cut_to_the_engines_query_limit(fake, engine, message):
    # with the extractive default the whole chat message is the query
    _search(fake, engine, message)
    sent = fake.engine_calls[0].body["query"] if engine == "tavily" else fake.engine_calls[0].query["q"]
    assert 0 < len(sent) <= 400 and message.startswith(sent)
    if engine == "brave":
        assert len(sent.split()) <= 50
    if " " in message:
        assert sent.split()[-1] in message.split()  # cut between words, not inside one


def test_a_short_query_is_sent_as_it_is(fake):
    _search(fake, "tavily", "  two  spaces\nand a line  ")
    assert fake.engine_calls[0].body["query"] == "  two  spaces\nand a line  "


def test_brave_pages_past_twenty_results_with_offset(fake):
    fake.results("deep", _many(50))
    got = _search(fake, "brave", "deep", web_search_result_count=45)
    assert [r.link for r in got] == [u for u, _, _ in _many(45)]
    assert [(c.query["count"], c.query.get("offset")) for c in fake.engine_calls] == [("20", None), ("20", "1"), ("20", "2")]


def test_brave_stops_paging_when_it_has_no_more(fake):
    fake.results("some", _many(25))
    assert len(_search(fake, "brave", "some", web_search_result_count=45)) == 25
    assert len(fake.engine_calls) == 2  # the second page was short
    fake.requests.clear()
    fake.results("twenty", _many(20))
    assert len(_search(fake, "brave", "twenty", web_search_result_count=45)) == 20
    assert len(fake.engine_calls) == 1  # "more_results_available": false


def test_brave_highlighting_is_removed_from_snippets(fake):
    fake.results("forecast", [("https://example.org/w", "Weather", "Tom & Jerry <3 the forecast")])
    got = _search(fake, "brave", "forecast")
    assert got == [SearchResult("https://example.org/w", "Weather", "Tom & Jerry <3 the forecast")]


def test_google_pse_without_items_is_an_empty_search(fake):
    assert _search(fake, "google_pse", "nothing at all") == []
    assert len(fake.engine_calls) == 1


# ---------------------------------------------------------------- error bodies


@pytest.mark.parametrize("engine,wrong,status,said", [
    ("tavily", "tavily_api_key", 401, "Unauthorized: missing or invalid API key."),
    ("brave", "brave_search_api_key", 422, "The provided subscription token is invalid."),
    ("google_pse", "google_pse_api_key", 400, "API key not valid. Please pass a valid API key."),
    ("serper", "serper_api_key", 403, "Unauthorized."),
])
def test_a_refused_key_is_reported_with_the_engines_own_words(fake, engine, wrong, status, said):
    with pytest.raises(WebSearchError) as err:
        _search(fake, engine, "q", **{wrong: "wrong-key-999"})
    assert f"HTTP {status}: {said}" in err.value.message
    assert "wrong-key-999" not in err.value.message and KEY not in err.value.message


def test_an_error_body_that_echoes_the_key_is_scrubbed(fake):
    echo = fake.page("/pages/echo", body=json.dumps({"error": {"message": f"key {KEY} was revoked"}}).encode(),
                     status=401, content_type="application/json")
    with pytest.raises(WebSearchError) as err:
        _search(fake, "external", "q", external_web_search_url=echo)
    assert "HTTP 401: key *** was revoked" in err.value.message and KEY not in err.value.message


def test_an_html_error_page_adds_nothing_but_the_status(fake):
    page = fake.page("/pages/gateway", "<html><body>Bad gateway</body></html>", status=502)
    with pytest.raises(WebSearchError) as err:
        _search(fake, "external", "q", external_web_search_url=page)
    assert err.value.message.endswith("answered HTTP 502")


def test_searxng_refusing_the_json_format_says_which_setting_to_change(fake):
    with pytest.raises(WebSearchError) as err:
        _search(fake, "searxng", "q", searxng_query_url=fake.url("/search?q=<query>&format=html"))
    assert "HTTP 403" in err.value.message and "search.formats" in err.value.message


def test_searxng_engines_that_did_not_answer_are_an_error_not_an_empty_search(fake):
    fake.unresponsive = [["google", "CAPTCHA"], ["duckduckgo", "timeout"]]
    with pytest.raises(WebSearchError) as err:
        _search(fake, "searxng", "q")
    assert "google: CAPTCHA, duckduckgo: timeout" in err.value.message
    fake.results("q", _many(2))  # some engines answered: their results, no error
    assert len(_search(fake, "searxng", "q")) == 2


def test_results_with_null_or_missing_optional_fields(fake):
    fake.results("q", [("https://example.org/a", None, None)])  # type: ignore[list-item]
    for engine in ["searxng", "tavily", "serper", "google_pse", "external"]:
        assert _search(fake, engine, "q") == [SearchResult("https://example.org/a", "", "")], engine


# ---------------------------------------------------------------- rate limits


def test_a_429_with_retry_after_is_retried_after_that_wait(fake):
    fake.results("q", _many(1))
    fake.rate_limited = [{"Retry-After": "1"}]
    started = time.monotonic()
    assert len(_search(fake, "tavily", "q")) == 1
    assert time.monotonic() - started >= 0.9 and len(fake.engine_calls) == 2


def test_brave_per_second_limit_is_waited_out_from_its_rate_limit_headers(fake):
    fake.results("q", _many(1))
    fake.rate_limited = [{"X-RateLimit-Limit": "1, 2000", "X-RateLimit-Remaining": "0, 1500",
                          "X-RateLimit-Reset": "1, 1419704"}] * 2
    started = time.monotonic()
    assert len(_search(fake, "brave", "q")) == 1
    assert time.monotonic() - started >= 1.8 and len(fake.engine_calls) == 3


def test_a_spent_quota_is_reported_at_once_not_waited_for(fake):
    fake.rate_limited = [{"X-RateLimit-Limit": "1, 2000", "X-RateLimit-Remaining": "1, 0",
                          "X-RateLimit-Reset": "1, 1419704"}]
    with pytest.raises(WebSearchError) as err:
        _search(fake, "brave", "q")
    assert "HTTP 429: Request rate limit exceeded for plan." in err.value.message and len(fake.engine_calls) == 1
    fake.requests.clear()
    fake.rate_limited = [{}]  # Google's daily quota: no Retry-After
    with pytest.raises(WebSearchError, match="HTTP 429: Quota exceeded"):
        _search(fake, "google_pse", "q")
    assert len(fake.engine_calls) == 1


def test_a_429_that_keeps_coming_gives_up_after_a_few_tries(fake):
    fake.rate_limited = [{"Retry-After": "0"}] * 10
    with pytest.raises(WebSearchError, match="HTTP 429"):
        _search(fake, "serper", "q")
    assert len(fake.engine_calls) == 4  # the first try and three more


# ---------------------------------------------------------------- DuckDuckGo's client library


def _stand_in_ddgs(monkeypatch, raises: Exception | None = None, rows: list[dict] | None = None) -> list[dict]:
    """The ddgs package as its source defines it (DDGS(...).text(query, max_results=), and
    DDGSException("No results found.") when nothing was found): DuckDuckGo's hosts are fixed in it,
    so no local server can stand in for them."""
    calls: list[dict] = []

    class DDGSException(Exception):
        pass

    class DDGS:
        def __init__(self, proxy=None, timeout=5, *, verify=True):
            calls.append({"timeout": timeout, "verify": verify})

        def text(self, query, **kw):
            calls[-1].update(query=query, **kw)
            if raises is not None:
                raise DDGSException(str(raises))
            return rows or []

    module = types.ModuleType("ddgs")
    module.DDGS, module.DDGSException = DDGS, DDGSException  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "ddgs", module)
    return calls


def test_duckduckgo_finding_nothing_is_an_empty_search(monkeypatch):
    calls = _stand_in_ddgs(monkeypatch, raises=Exception("No results found."))
    with engine_client(EngineHttp()) as client:
        assert search_one(WebSearchSettings(web_search_engine="duckduckgo", web_search_timeout_seconds=7.5), "q", client) == []
    assert calls == [{"timeout": 8, "verify": True, "query": "q", "max_results": 3}]


def test_duckduckgo_failing_says_what_the_client_said(monkeypatch):
    _stand_in_ddgs(monkeypatch, raises=Exception("https://html.duckduckgo.com/html 202 Ratelimit"))
    with pytest.raises(WebSearchError, match="DDGSException: https://html.duckduckgo.com/html 202 Ratelimit"), \
            engine_client(EngineHttp()) as client:
        search_one(WebSearchSettings(web_search_engine="duckduckgo"), "q", client)


def test_duckduckgo_rows_become_results(monkeypatch):
    _stand_in_ddgs(monkeypatch, rows=[{"href": "https://example.org/d", "title": "D", "body": "about d"}, {"title": "no link"}])
    with engine_client(EngineHttp()) as client:
        got = search_one(WebSearchSettings(web_search_engine="duckduckgo"), "q", client)
    assert got == [SearchResult("https://example.org/d", "D", "about d")]
