"""DuckDuckGo, UNOFFICIAL: DuckDuckGo has no public search API; this goes through the maintained
``ddgs`` client (``pip install ddgs``), which reads DuckDuckGo's pages and may break or be
rate-limited at any time. Optional: without the package the engine says so. ``DDGS().text(query,
max_results=)`` returns ``[{"href", "title", "body"}]`` and raises ``DDGSException("No results
found.")`` when nothing was found, which is an empty search here, not a failure."""

from __future__ import annotations

import math

import httpx

from core.errors import InvalidSettings
from core.settings.model import WebSearchSettings
from core.websearch.base import (
    SearchEngine,
    SearchResult,
    WebSearchError,
    register_engine,
    results_from,
)

NOTHING_FOUND = "no results found"  # the client's words when no engine found anything


def search(query: str, count: int, cfg: WebSearchSettings, own: None, client: httpx.Client) -> list[SearchResult]:
    try:
        from ddgs import DDGS
    except ImportError:
        raise InvalidSettings("web search engine 'duckduckgo' needs the optional ddgs package "
                              "(pip install ddgs); or choose another engine") from None
    client_timeout = max(1, math.ceil(cfg.web_search_timeout_seconds))  # the client takes whole seconds
    try:
        items = DDGS(timeout=client_timeout, verify=cfg.enable_web_loader_ssl_verification).text(query, max_results=count)
    except Exception as exc:  # the client raises its own family; report it as a search failure
        said = " ".join(str(exc).split())[:300]
        if type(exc).__name__ == "DDGSException" and said.rstrip(".").lower() == NOTHING_FOUND:
            return []
        raise WebSearchError(f"DuckDuckGo (unofficial client) failed: {type(exc).__name__}"
                             + (f": {said}" if said else "")) from exc
    return results_from(list(items or []), "href", "title", "body", count)


register_engine(SearchEngine("duckduckgo", search, unofficial=True, doc=__doc__ or ""))
