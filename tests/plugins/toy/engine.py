"""The toy search engine: ``GET {base_url}/toy-search?q=`` with ``X-Toy-Key``; answer
``{"hits": [{"u", "t", "s"}]}``."""

from __future__ import annotations

import httpx
from pydantic import SecretStr

from core.settings.fields import PluginSettings, secret
from core.websearch.base import (
    SearchEngine,
    SearchResult,
    register_engine,
    request_json,
    require,
    results_from,
)


class ToySearchSettings(PluginSettings):
    base_url: str = ""
    api_key: SecretStr = secret("The toy engine's key.", "TOY_SEARCH_API_KEY")


def search(query: str, count: int, cfg, own: ToySearchSettings, client: httpx.Client) -> list[SearchResult]:
    key = require(own.api_key, "api_key", "toy")
    base = require(own.base_url, "base_url", "toy")
    data = request_json(client, "GET", base.rstrip("/") + "/toy-search", engine="Toy search", params={"q": query},
                        headers={"X-Toy-Key": key})
    return results_from(data.get("hits") if isinstance(data, dict) else None, "u", "t", "s", count)


register_engine(SearchEngine("toy", search, ToySearchSettings, required=("base_url", "api_key")))
