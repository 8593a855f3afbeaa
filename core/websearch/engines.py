"""The engine registry: pick the configured engine, check its settings, run one query."""

from __future__ import annotations

from types import ModuleType

import httpx

from core.errors import InvalidSettings
from core.settings.model import WebSearchSettings
from core.websearch import brave, duckduckgo, external, google_pse, searxng, serper, tavily
from core.websearch.base import SearchResult

ENGINES: dict[str, ModuleType] = {
    "searxng": searxng, "tavily": tavily, "brave": brave, "google_pse": google_pse, "serper": serper,
    "external": external, "duckduckgo": duckduckgo,
}


def engine_module(cfg: WebSearchSettings) -> ModuleType:
    module = ENGINES.get(cfg.web_search_engine)
    if module is None:
        raise InvalidSettings(f"unknown web search engine {cfg.web_search_engine!r} (choose one of {', '.join(ENGINES)})")
    return module


def check_configured(cfg: WebSearchSettings) -> None:
    """Raise a clear InvalidSettings naming what the chosen engine lacks (before any request)."""
    module = engine_module(cfg)
    missing = [name for name in module.REQUIRED if not str(getattr(cfg, name)).strip()]
    if missing:
        raise InvalidSettings(f"web search engine {cfg.web_search_engine!r} needs "
                              + " and ".join(f"web_search.{m}" for m in missing))


def search_one(cfg: WebSearchSettings, query: str, client: httpx.Client) -> list[SearchResult]:
    return engine_module(cfg).search(query, cfg.web_search_result_count, cfg, client)
