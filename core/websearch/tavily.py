"""Tavily: ``POST {base}/search`` with ``Authorization: Bearer <key>`` and a JSON body
``{"query", "max_results", "include_domains"}``; answer ``{"results": [{"url", "title", "content"}]}``."""

from __future__ import annotations

import httpx

from core.settings.model import WebSearchSettings
from core.websearch.base import SearchResult, check_engine_url, request_json, require, results_from

REQUIRED = ("tavily_api_key",)


def search(query: str, count: int, cfg: WebSearchSettings, client: httpx.Client) -> list[SearchResult]:
    key = require(cfg.tavily_api_key, "tavily_api_key", "tavily")
    url = cfg.tavily_base_url.rstrip("/") + "/search"
    check_engine_url(url, "tavily_base_url")
    body: dict = {"query": query, "max_results": count}
    if cfg.web_search_domain_filter_list:
        body["include_domains"] = list(cfg.web_search_domain_filter_list)
    data = request_json(client, "POST", url, engine="Tavily", json=body, headers={"Authorization": f"Bearer {key}"})
    return results_from(data.get("results") if isinstance(data, dict) else None, "url", "title", "content", count)
