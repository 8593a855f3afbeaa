"""Serper (Google results): ``POST {base}/search`` with the ``X-API-KEY`` header and ``{"q", "num"}``;
answer ``{"organic": [{"link", "title", "snippet"}]}``."""

from __future__ import annotations

import httpx
from pydantic import SecretStr

from core.settings.fields import PluginSettings, secret
from core.settings.model import WebSearchSettings
from core.websearch.base import (
    SearchEngine,
    SearchResult,
    check_engine_url,
    register_engine,
    request_json,
    require,
    results_from,
    setting_name,
)


class SerperSettings(PluginSettings):
    api_key: SecretStr = secret("Serper API key.", "SERPER_API_KEY")
    base_url: str = "https://google.serper.dev"


def search(query: str, count: int, cfg: WebSearchSettings, own: SerperSettings, client: httpx.Client) -> list[SearchResult]:
    key = require(own.api_key, "api_key", "serper")
    url = own.base_url.rstrip("/") + "/search"
    check_engine_url(url, setting_name("serper", "base_url"))
    data = request_json(client, "POST", url, engine="Serper", json={"q": query, "num": count},
                        headers={"X-API-KEY": key}, secrets=(key,))
    return results_from(data.get("organic") if isinstance(data, dict) else None, "link", "title", "snippet", count)


register_engine(SearchEngine("serper", search, SerperSettings, required=("api_key",),
                             legacy={"serper_api_key": "api_key", "serper_base_url": "base_url"}, doc=__doc__ or ""))
