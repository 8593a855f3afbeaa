"""Google Programmable Search Engine (Custom Search JSON API): ``GET {base}/customsearch/v1`` with
``key``, ``cx`` (the engine id), ``q``, ``num`` (at most 10 per request) and ``start`` (1-based) for
the following pages (``start + num`` at most 100); answer ``{"items": [{"link", "title", "snippet"}]}``,
without ``items`` when nothing was found; errors ``{"error": {"code", "message"}}``. Google's overview
page says the API takes no new customers and ends on 1 January 2027."""

from __future__ import annotations

import httpx
from pydantic import Field, SecretStr

from core.settings.fields import PluginSettings, env, secret
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

PAGE = 10


class GooglePseSettings(PluginSettings):
    api_key: SecretStr = secret("Custom Search JSON API key.", "GOOGLE_PSE_API_KEY")
    engine_id: str = Field("", description="The search engine id (cx).", json_schema_extra=env("GOOGLE_PSE_ENGINE_ID"))
    base_url: str = "https://www.googleapis.com"


def search(query: str, count: int, cfg: WebSearchSettings, own: GooglePseSettings, client: httpx.Client) -> list[SearchResult]:
    key = require(own.api_key, "api_key", "google_pse")
    cx = require(own.engine_id, "engine_id", "google_pse")
    url = own.base_url.rstrip("/") + "/customsearch/v1"
    check_engine_url(url, setting_name("google_pse", "base_url"))
    out: list[SearchResult] = []
    start = 1
    while len(out) < count:
        num = min(PAGE, count - len(out))
        data = request_json(client, "GET", url, engine="Google PSE",
                            params={"key": key, "cx": cx, "q": query, "num": num, "start": start},
                            secrets=(key, cx))
        page = results_from(data.get("items") if isinstance(data, dict) else None, "link", "title", "snippet", num)
        out += page
        if len(page) < num:
            break  # no more results
        start += num
    return out


register_engine(SearchEngine("google_pse", search, GooglePseSettings, required=("api_key", "engine_id"),
                             legacy={"google_pse_api_key": "api_key", "google_pse_engine_id": "engine_id",
                                     "google_pse_base_url": "base_url"}, doc=__doc__ or ""))
