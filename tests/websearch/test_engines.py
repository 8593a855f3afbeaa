"""Every engine at the protocol level, against the local fake server speaking its API."""

from __future__ import annotations

import importlib.util

import pytest

from core.errors import BlockedAddress, InvalidSettings
from core.parsers.url_guard import AllowList
from core.settings.model import WebSearchSettings
from core.websearch.base import EngineHttp, SearchResult, WebSearchError, engine_client
from core.plugins import SEARCH_ENGINES
from core.websearch.engines import check_configured, search_one
from tests.websearch.fake_engines import CX, KEY

HOSTED = ["searxng", "tavily", "brave", "google_pse", "serper", "external"]
ITEMS = [(f"https://example.org/page{i}", f"Title {i}", f"snippet {i}") for i in range(1, 8)]
OPEN = AllowList.parse(["127.0.0.1"])  # the fake engines' host, opened the way an admin would


def _search(fake, engine: str, query: str, **over) -> list[SearchResult]:
    cfg = WebSearchSettings(**{**fake.settings(engine), **over})
    with engine_client(EngineHttp(allow=OPEN)) as client:
        return search_one(cfg, query, client)


@pytest.mark.parametrize("engine", HOSTED)
def test_each_engine_returns_results_in_rank_order_up_to_the_count(fake, engine):
    fake.results("北京 天气 forecast", ITEMS)
    got = _search(fake, engine, "北京 天气 forecast", web_search_result_count=3)
    assert got == [SearchResult(*item) for item in ITEMS[:3]]
    assert len(fake.engine_calls) == 1


def test_each_engine_sends_its_documented_request(fake):
    fake.results("q", ITEMS[:1])
    for engine in HOSTED:
        _search(fake, engine, "q", web_search_result_count=2, web_search_domain_filter_list=["example.org"])
    searx, tavily, brave, google, serper, external = fake.engine_calls
    assert searx.method == "GET" and searx.query == {"q": "q", "format": "json"}
    assert tavily.method == "POST" and tavily.headers["authorization"] == f"Bearer {KEY}"
    assert tavily.body == {"query": "q", "max_results": 2, "include_domains": ["example.org"]}
    assert brave.headers["x-subscription-token"] == KEY and brave.query == {"q": "q", "count": "2"}
    assert google.query == {"key": KEY, "cx": CX, "q": "q", "num": "2", "start": "1"}
    assert serper.method == "POST" and serper.headers["x-api-key"] == KEY and serper.body == {"q": "q", "num": 2}
    assert external.body == {"query": "q", "count": 2} and external.headers["authorization"] == f"Bearer {KEY}"


def test_searxng_query_url_without_placeholder_gets_q_and_keeps_its_own_parameters(fake):
    fake.results("a b&c", ITEMS[:2])
    got = _search(fake, "searxng", "a b&c", searxng_query_url=fake.url("/search?language=zh-CN"))
    assert [r.link for r in got] == [ITEMS[0][0], ITEMS[1][0]]
    assert fake.engine_calls[0].query == {"language": "zh-CN", "q": "a b&c", "format": "json"}


def test_google_pse_pages_past_ten_results(fake):
    many = [(f"https://example.org/{i}", f"T{i}", "s") for i in range(15)]
    fake.results("deep", many)
    got = _search(fake, "google_pse", "deep", web_search_result_count=13)
    assert [r.link for r in got] == [m[0] for m in many[:13]]
    assert [(c.query["start"], c.query["num"]) for c in fake.engine_calls] == [("1", "10"), ("11", "3")]


@pytest.mark.parametrize("engine,missing,named", [
    ("searxng", "searxng_query_url", "query_url"), ("tavily", "tavily_api_key", "api_key"),
    ("brave", "brave_search_api_key", "api_key"), ("google_pse", "google_pse_engine_id", "engine_id"),
    ("serper", "serper_api_key", "api_key"), ("external", "external_web_search_url", "url"),
])
def test_an_engine_without_its_key_or_url_is_a_clear_settings_error_before_any_request(fake, engine, missing, named):
    # the settings are given with today's flat keys (fake.settings): they land in the engine's sub-model
    cfg = WebSearchSettings(**{**fake.settings(engine), missing: ""})
    where = f"web_search.engines.{engine}.{named}"
    with pytest.raises(InvalidSettings, match=where):
        check_configured(cfg)
    with pytest.raises(InvalidSettings, match=where), engine_client(EngineHttp(allow=OPEN)) as client:
        search_one(cfg, "q", client)
    assert fake.requests == []


@pytest.mark.parametrize("engine", HOSTED)
def test_a_failing_engine_is_a_web_search_error_that_names_no_secret(fake, engine):
    fake.engine_status = 500
    with pytest.raises(WebSearchError) as err:
        _search(fake, engine, "q")
    assert "500" in err.value.message and KEY not in err.value.message and CX not in err.value.message


def test_a_wrong_key_is_reported_with_the_engine_status(fake):
    with pytest.raises(WebSearchError, match="401"):
        _search(fake, "tavily", "q", tavily_api_key="wrong")
    with pytest.raises(WebSearchError, match="400"):
        _search(fake, "google_pse", "q", google_pse_api_key="wrong")


def test_an_engine_answer_that_is_not_json_is_an_error(fake):
    fake.page("/pages/html", "<html>not json</html>")
    with pytest.raises(WebSearchError, match="not JSON"):
        _search(fake, "external", "q", external_web_search_url=fake.url("/pages/html"))


def test_results_without_a_link_are_skipped(fake):
    fake.results("q", [("", "no link", "x"), ("https://example.org/ok", "ok", "y")])
    assert [r.link for r in _search(fake, "serper", "q")] == ["https://example.org/ok"]


def test_an_engine_url_at_a_metadata_address_or_other_scheme_is_refused(fake):
    with pytest.raises(InvalidSettings, match="web_search.engines.searxng.query_url"):
        _search(fake, "searxng", "q", searxng_query_url="ftp://searx.example/search")
    with pytest.raises(BlockedAddress, match="never fetched"):  # the SSRF guard, before connecting
        _search(fake, "searxng", "q", searxng_query_url="http://169.254.169.254/search?q=<query>")
    assert fake.requests == []


def test_duckduckgo_is_marked_unofficial_and_optional():
    assert SEARCH_ENGINES.get("duckduckgo").unofficial and "unofficial" in SEARCH_ENGINES.get("duckduckgo").doc.lower()
    help_text = WebSearchSettings.model_fields["web_search_engine"].description or ""
    assert "unofficial" in help_text.lower()
    if importlib.util.find_spec("ddgs") is not None:
        pytest.skip("ddgs is installed here: the missing-package message cannot be shown")
    with pytest.raises(InvalidSettings, match="pip install ddgs"), engine_client(EngineHttp()) as client:
        search_one(WebSearchSettings(web_search_engine="duckduckgo"), "q", client)


def test_a_slow_engine_times_out_by_the_setting_with_a_clear_error(fake):
    from core.websearch.flow import search_all

    fake.engine_delay = 1.0
    cfg = WebSearchSettings(**fake.settings("searxng"), web_search_timeout_seconds=0.2)
    with pytest.raises(WebSearchError, match="timed out"):
        search_all(cfg, ["q"], lambda notice: None, OPEN)


def test_one_failing_query_fails_alone(fake):
    from core.websearch.flow import search_all

    fake.results("good", ITEMS[:1])
    fake.failing_queries.add("broken")
    notices: list[str] = []
    got = search_all(WebSearchSettings(**fake.settings("searxng")), ["broken", "good"], lambda n: notices.append(str(n)), OPEN)
    assert got == [SearchResult(*ITEMS[0])]
    assert len(notices) == 1 and "'broken'" in notices[0] and "HTTP 500" in notices[0]
