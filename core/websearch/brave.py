"""Brave Search API: ``GET {base}/res/v1/web/search?q=&count=`` with the ``X-Subscription-Token``
header; answer ``{"web": {"results": [{"url", "title", "description"}]}}`` (count is at most 20)."""

from __future__ import annotations

import httpx
from pydantic import SecretStr

from core.settings.fields import PluginSettings, secret
from core.settings.model import WebSearchSettings
from core.websearch.base import (
    SearchEngine,
    SearchResult,
    check_engine_url,
    register_engine,
    request_json,
    require,
    results_from,
    setting_name,
)

MAX_COUNT = 20


class BraveSettings(PluginSettings):
    api_key: SecretStr = secret("Brave Search API key.", "BRAVE_SEARCH_API_KEY")
    base_url: str = "https://api.search.brave.com"


def search(query: str, count: int, cfg: WebSearchSettings, own: BraveSettings, client: httpx.Client) -> list[SearchResult]:
    key = require(own.api_key, "api_key", "brave")
    url = own.base_url.rstrip("/") + "/res/v1/web/search"
    check_engine_url(url, setting_name("brave", "base_url"))
    data = request_json(client, "GET", url, engine="Brave Search", params={"q": query, "count": min(count, MAX_COUNT)},
                        headers={"X-Subscription-Token": key, "Accept": "application/json"})
    web = data.get("web") if isinstance(data, dict) else None
    return results_from(web.get("results") if isinstance(web, dict) else None, "url", "title", "description", count)


register_engine(SearchEngine("brave", search, BraveSettings, required=("api_key",),
                             legacy={"brave_search_api_key": "api_key", "brave_base_url": "base_url"}, doc=__doc__ or ""))
