"""Tavily: ``POST {base}/search`` with ``Authorization: Bearer <key>`` and a JSON body
``{"query", "max_results", "include_domains"}`` (``max_results`` at most 20, the query at most 400
characters: a longer one is cut); answer ``{"results": [{"url", "title", "content"}]}``; errors
``{"detail": {"error"}}``."""

from __future__ import annotations

import httpx
from pydantic import SecretStr

from core.settings.fields import PluginSettings, secret
from core.settings.model import WebSearchSettings
from core.websearch.base import (
    SearchEngine,
    SearchResult,
    check_engine_url,
    cut_query,
    register_engine,
    request_json,
    require,
    results_from,
    setting_name,
)

MAX_RESULTS = 20  # Tavily refuses more
MAX_QUERY_CHARS = 400  # Tavily refuses longer: "Query is too long"


class TavilySettings(PluginSettings):
    api_key: SecretStr = secret("Tavily API key.", "TAVILY_API_KEY")
    base_url: str = "https://api.tavily.com"


def search(query: str, count: int, cfg: WebSearchSettings, own: TavilySettings, client: httpx.Client) -> list[SearchResult]:
    key = require(own.api_key, "api_key", "tavily")
    url = own.base_url.rstrip("/") + "/search"
    check_engine_url(url, setting_name("tavily", "base_url"))
    body: dict = {"query": cut_query(query, MAX_QUERY_CHARS), "max_results": min(count, MAX_RESULTS)}
    if cfg.web_search_domain_filter_list:
        body["include_domains"] = list(cfg.web_search_domain_filter_list)
    data = request_json(client, "POST", url, engine="Tavily", json=body, headers={"Authorization": f"Bearer {key}"},
                        secrets=(key,))
    return results_from(data.get("results") if isinstance(data, dict) else None, "url", "title", "content", count)


register_engine(SearchEngine("tavily", search, TavilySettings, required=("api_key",),
                             legacy={"tavily_api_key": "api_key", "tavily_base_url": "base_url"}, doc=__doc__ or ""))
