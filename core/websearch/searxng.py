"""SearXNG (self-hosted metasearch): GET the admin's query URL with ``format=json``.

``query_url`` is e.g. ``http://searxng:8080/search?q=<query>``; ``<query>`` is replaced by
the URL-encoded query (without it, ``q=`` is added). The instance must allow the JSON format
(``search.formats`` in its settings.yml); a format it does not allow is refused with HTTP 403.
Answer: ``{"results": [{"url", "title", "content"}, ...], "unresponsive_engines": [[name, error], ...]}``.
No results while its engines failed (a CAPTCHA, a suspension) is reported as an error naming
them, not as an empty search.
"""

from __future__ import annotations

from urllib.parse import parse_qs, quote_plus, urlencode, urlsplit

import httpx
from pydantic import Field

from core.settings.fields import PluginSettings, env
from core.settings.model import WebSearchSettings
from core.websearch.base import (
    SearchEngine,
    SearchResult,
    WebSearchError,
    check_engine_url,
    register_engine,
    request_json,
    require,
    results_from,
    setting_name,
)

FORMAT_HINT = "the instance must allow the JSON format: add json to search.formats in its settings.yml"


class SearxngSettings(PluginSettings):
    query_url: str = Field("", description="e.g. http://searxng:8080/search?q=<query> (the instance must allow format=json).",
                           json_schema_extra=env("SEARXNG_QUERY_URL"))


def search(query: str, count: int, cfg: WebSearchSettings, own: SearxngSettings, client: httpx.Client) -> list[SearchResult]:
    template = require(own.query_url, "query_url", "searxng")
    check_engine_url(template.replace("<query>", "q"), setting_name("searxng", "query_url"))
    params: dict[str, str] = {}
    if "<query>" in template:
        url = template.replace("<query>", quote_plus(query))
    else:
        url, params["q"] = template, query
    if "format" not in parse_qs(urlsplit(url).query):
        params["format"] = "json"
    if params:  # appended by hand: httpx's params= would replace the URL's own query string
        url += ("&" if urlsplit(url).query else "?") + urlencode(params)
    data = request_json(client, "GET", url, engine="SearXNG", hints={403: FORMAT_HINT})
    items = data.get("results") if isinstance(data, dict) else None
    results = results_from(items, "url", "title", "content", count)
    failed = _unresponsive(data.get("unresponsive_engines") if isinstance(data, dict) else None)
    if not results and failed:
        raise WebSearchError(f"SearXNG at {urlsplit(url).netloc} found nothing: its engines did not answer ({failed})")
    return results


def _unresponsive(engines: object) -> str:
    """``unresponsive_engines`` ([[name, error], ...]) as "name: error, ..."."""
    named = []
    for entry in engines if isinstance(engines, list) else []:
        if isinstance(entry, (list, tuple)):
            named.append(": ".join(str(part) for part in entry if part))
    return ", ".join(n for n in named if n)[:300]


register_engine(SearchEngine("searxng", search, SearxngSettings, required=("query_url",),
                             legacy={"searxng_query_url": "query_url"}, doc=__doc__ or ""))
