"""SearXNG (self-hosted metasearch): GET the admin's query URL with ``format=json``.

``searxng_query_url`` is e.g. ``http://searxng:8080/search?q=<query>``; ``<query>`` is replaced by
the URL-encoded query (without it, ``q=`` is added). The instance must allow the JSON format
(``search.formats`` in its settings.yml). Answer: ``{"results": [{"url", "title", "content"}, ...]}``.
"""

from __future__ import annotations

from urllib.parse import parse_qs, quote_plus, urlencode, urlsplit

import httpx

from core.settings.model import WebSearchSettings
from core.websearch.base import SearchResult, check_engine_url, request_json, require, results_from

REQUIRED = ("searxng_query_url",)


def search(query: str, count: int, cfg: WebSearchSettings, client: httpx.Client) -> list[SearchResult]:
    template = require(cfg.searxng_query_url, "searxng_query_url", "searxng")
    check_engine_url(template.replace("<query>", "q"), "searxng_query_url")
    params: dict[str, str] = {}
    if "<query>" in template:
        url = template.replace("<query>", quote_plus(query))
    else:
        url, params["q"] = template, query
    if "format" not in parse_qs(urlsplit(url).query):
        params["format"] = "json"
    if params:  # appended by hand: httpx's params= would replace the URL's own query string
        url += ("&" if urlsplit(url).query else "?") + urlencode(params)
    data = request_json(client, "GET", url, engine="SearXNG")
    items = data.get("results") if isinstance(data, dict) else None
    return results_from(items, "url", "title", "content", count)
