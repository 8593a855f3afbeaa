"""Brave Search API: ``GET {base}/res/v1/web/search?q=&count=`` with the ``X-Subscription-Token``
header; answer ``{"web": {"results": [{"url", "title", "description"}]}}`` (count is at most 20)."""

from __future__ import annotations

import httpx

from core.settings.model import WebSearchSettings
from core.websearch.base import SearchResult, check_engine_url, request_json, require, results_from

REQUIRED = ("brave_search_api_key",)
MAX_COUNT = 20


def search(query: str, count: int, cfg: WebSearchSettings, client: httpx.Client) -> list[SearchResult]:
    key = require(cfg.brave_search_api_key, "brave_search_api_key", "brave")
    url = cfg.brave_base_url.rstrip("/") + "/res/v1/web/search"
    check_engine_url(url, "brave_base_url")
    data = request_json(client, "GET", url, engine="Brave Search", params={"q": query, "count": min(count, MAX_COUNT)},
                        headers={"X-Subscription-Token": key, "Accept": "application/json"})
    web = data.get("web") if isinstance(data, dict) else None
    return results_from(web.get("results") if isinstance(web, dict) else None, "url", "title", "description", count)
