"""Google Programmable Search Engine (Custom Search JSON API): ``GET {base}/customsearch/v1`` with
``key``, ``cx`` (the engine id), ``q``, ``num`` (at most 10 per request) and ``start`` (1-based) for
the following pages; answer ``{"items": [{"link", "title", "snippet"}]}``."""

from __future__ import annotations

import httpx

from core.settings.model import WebSearchSettings
from core.websearch.base import SearchResult, check_engine_url, request_json, require, results_from

REQUIRED = ("google_pse_api_key", "google_pse_engine_id")
PAGE = 10


def search(query: str, count: int, cfg: WebSearchSettings, client: httpx.Client) -> list[SearchResult]:
    key = require(cfg.google_pse_api_key, "google_pse_api_key", "google_pse")
    cx = require(cfg.google_pse_engine_id, "google_pse_engine_id", "google_pse")
    url = cfg.google_pse_base_url.rstrip("/") + "/customsearch/v1"
    check_engine_url(url, "google_pse_base_url")
    out: list[SearchResult] = []
    start = 1
    while len(out) < count:
        num = min(PAGE, count - len(out))
        data = request_json(client, "GET", url, engine="Google PSE",
                            params={"key": key, "cx": cx, "q": query, "num": num, "start": start})
        page = results_from(data.get("items") if isinstance(data, dict) else None, "link", "title", "snippet", num)
        out += page
        if len(page) < num:
            break  # no more results
        start += num
    return out
