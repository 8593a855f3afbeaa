"""DuckDuckGo, UNOFFICIAL: DuckDuckGo has no public search API; this goes through the maintained
``ddgs`` client (``pip install ddgs``), which reads DuckDuckGo's pages and may break or be
rate-limited at any time. Optional: without the package the engine says so."""

from __future__ import annotations

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


def search(query: str, count: int, cfg: WebSearchSettings, own: None, client: httpx.Client) -> list[SearchResult]:
    try:
        from ddgs import DDGS
    except ImportError:
        raise InvalidSettings("web search engine 'duckduckgo' needs the optional ddgs package "
                              "(pip install ddgs); or choose another engine") from None
    try:
        items = DDGS(verify=cfg.enable_web_loader_ssl_verification).text(query, max_results=count)
    except Exception as exc:  # the client raises its own family; report it as a search failure
        raise WebSearchError(f"DuckDuckGo (unofficial client) failed: {type(exc).__name__}") from exc
    return results_from(list(items or []), "href", "title", "body", count)


register_engine(SearchEngine("duckduckgo", search, unofficial=True, doc=__doc__ or ""))
