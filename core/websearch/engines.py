"""Pick the configured engine from the registry, check its settings, run one query."""

from __future__ import annotations

import httpx

from core.errors import InvalidSettings
from core.plugins import SEARCH_ENGINES, UnknownPlugin
from core.settings.model import WebSearchSettings
from core.websearch.base import SearchEngine, SearchResult, require


def engine_for(cfg: WebSearchSettings) -> SearchEngine:
    try:
        return SEARCH_ENGINES.get(cfg.web_search_engine)
    except UnknownPlugin as exc:  # saved while a plugin engine was installed, and it is gone now
        raise InvalidSettings(str(exc)) from None


def check_configured(cfg: WebSearchSettings) -> None:
    """Raise a clear InvalidSettings naming what the chosen engine lacks (before any request)."""
    engine = engine_for(cfg)
    own = cfg.engine_settings(engine.name)
    for name in engine.required:
        require(getattr(own, name), name, engine.name)


def search_one(cfg: WebSearchSettings, query: str, client: httpx.Client) -> list[SearchResult]:
    engine = engine_for(cfg)
    return engine.search(query, cfg.web_search_result_count, cfg, cfg.engine_settings(engine.name), client)
