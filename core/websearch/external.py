"""An external search service of your own: ``POST <external_web_search_url>`` with
``{"query", "count"}`` and ``Authorization: Bearer <external_web_search_api_key>`` (when set);
answer: a JSON list of ``{"link", "title", "snippet"}``."""

from __future__ import annotations

import httpx

from core.settings.model import WebSearchSettings
from core.websearch.base import SearchResult, check_engine_url, request_json, require, results_from

REQUIRED = ("external_web_search_url",)


def search(query: str, count: int, cfg: WebSearchSettings, client: httpx.Client) -> list[SearchResult]:
    url = require(cfg.external_web_search_url, "external_web_search_url", "external")
    check_engine_url(url, "external_web_search_url")
    key = cfg.external_web_search_api_key.strip()
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    data = request_json(client, "POST", url, engine="the external search service", json={"query": query, "count": count},
                        headers=headers)
    return results_from(data, "link", "title", "snippet", count)
