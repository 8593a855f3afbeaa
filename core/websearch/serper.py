"""Serper (Google results): ``POST {base}/search`` with the ``X-API-KEY`` header and ``{"q", "num"}``;
answer ``{"organic": [{"link", "title", "snippet"}]}``."""

from __future__ import annotations

import httpx

from core.settings.model import WebSearchSettings
from core.websearch.base import SearchResult, check_engine_url, request_json, require, results_from

REQUIRED = ("serper_api_key",)


def search(query: str, count: int, cfg: WebSearchSettings, client: httpx.Client) -> list[SearchResult]:
    key = require(cfg.serper_api_key, "serper_api_key", "serper")
    url = cfg.serper_base_url.rstrip("/") + "/search"
    check_engine_url(url, "serper_base_url")
    data = request_json(client, "POST", url, engine="Serper", json={"q": query, "num": count},
                        headers={"X-API-KEY": key})
    return results_from(data.get("organic") if isinstance(data, dict) else None, "link", "title", "snippet", count)
