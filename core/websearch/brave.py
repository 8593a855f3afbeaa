"""Brave Search API: ``GET {base}/res/v1/web/search?q=&count=&offset=`` with the
``X-Subscription-Token`` header; answer ``{"web": {"results": [{"url", "title", "description"}]},
"query": {"more_results_available"}}``. ``count`` is at most 20 a page and ``offset`` (in pages)
at most 9, so more results take more pages; the query is at most 400 characters and 50 words
(longer is refused with HTTP 422), so a longer one is cut. Titles and descriptions carry HTML
highlighting (``<strong>``), removed here."""

from __future__ import annotations

import httpx
from pydantic import SecretStr

from core.settings.fields import PluginSettings, secret
from core.settings.model import WebSearchSettings
from core.websearch.base import (
    SearchEngine,
    SearchResult,
    check_engine_url,
    cut_query,
    register_engine,
    request_json,
    require,
    results_from,
    setting_name,
)

MAX_COUNT = 20
MAX_OFFSET = 9
MAX_QUERY_CHARS = 400
MAX_QUERY_WORDS = 50


class BraveSettings(PluginSettings):
    api_key: SecretStr = secret("Brave Search API key.", "BRAVE_SEARCH_API_KEY")
    base_url: str = "https://api.search.brave.com"


def search(query: str, count: int, cfg: WebSearchSettings, own: BraveSettings, client: httpx.Client) -> list[SearchResult]:
    key = require(own.api_key, "api_key", "brave")
    url = own.base_url.rstrip("/") + "/res/v1/web/search"
    check_engine_url(url, setting_name("brave", "base_url"))
    size = min(count, MAX_COUNT)  # offset counts pages of this size, so every page asks for it
    out: list[SearchResult] = []
    seen: set[str] = set()
    for offset in range(MAX_OFFSET + 1):
        params: dict[str, str | int] = {"q": cut_query(query, MAX_QUERY_CHARS, MAX_QUERY_WORDS), "count": size}
        if offset:
            params["offset"] = offset
        data = request_json(client, "GET", url, engine="Brave Search", params=params, secrets=(key,),
                            headers={"X-Subscription-Token": key, "Accept": "application/json"})
        web = data.get("web") if isinstance(data, dict) else None
        page = results_from(web.get("results") if isinstance(web, dict) else None, "url", "title", "description",
                            size, markup=True)
        for result in page:  # pages may overlap (Brave says so)
            if result.link not in seen:
                seen.add(result.link)
                out.append(result)
        about = data.get("query") if isinstance(data, dict) else None
        if len(out) >= count or len(page) < size or (isinstance(about, dict) and about.get("more_results_available") is False):
            break
    return out[:count]


register_engine(SearchEngine("brave", search, BraveSettings, required=("api_key",),
                             legacy={"brave_search_api_key": "api_key", "brave_base_url": "base_url"}, doc=__doc__ or ""))
