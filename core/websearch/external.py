"""An external search service of your own: ``POST <url>`` with ``{"query", "count"}`` and
``Authorization: Bearer <api_key>`` (when set); answer: a JSON list of ``{"link", "title", "snippet"}``."""

from __future__ import annotations

import httpx
from pydantic import Field, SecretStr

from core.settings.fields import PluginSettings, env, reveal, secret
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


class ExternalSettings(PluginSettings):
    url: str = Field("", description="Your search service's URL.", json_schema_extra=env("EXTERNAL_WEB_SEARCH_URL"))
    api_key: SecretStr = secret("Sent as a Bearer token (optional).", "EXTERNAL_WEB_SEARCH_API_KEY")


def search(query: str, count: int, cfg: WebSearchSettings, own: ExternalSettings, client: httpx.Client) -> list[SearchResult]:
    url = require(own.url, "url", "external")
    check_engine_url(url, setting_name("external", "url"))
    key = reveal(own.api_key).strip()
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    data = request_json(client, "POST", url, engine="the external search service", json={"query": query, "count": count},
                        headers=headers, secrets=(key,))
    return results_from(data, "link", "title", "snippet", count)


register_engine(SearchEngine("external", search, ExternalSettings, required=("url",),
                             legacy={"external_web_search_url": "url", "external_web_search_api_key": "api_key"},
                             doc=__doc__ or ""))
