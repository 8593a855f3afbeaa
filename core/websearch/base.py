"""What every engine module shares: the result type, the error, and the HTTP client for the
engine's own API.

Where the SSRF guard applies: everywhere, the same one (``core/parsers/url_guard.py``). Engine
API calls go through ``GuardedTransport``: the engine's host is resolved once, checked, and the
socket connects to exactly the checked address (a name that rebinds after the check gains
nothing). The engine's address may be private or loopback (a self-hosted SearXNG, e.g.
``http://searxng:8080``) only once an admin opened that host or network in
``parsing.url_allow_hosts``; link-local and cloud metadata addresses, in any IPv4 or IPv6 form,
never. Engine calls follow no redirects (a compromised engine cannot bounce us elsewhere) and
their responses are size-capped. With ``web_search_trust_env`` the request goes through the
environment's proxy as a CONNECT tunnel to the address the guard checked (``url_proxy.py``), so
the proxy never resolves the name again; a host ``NO_PROXY`` exempts is connected directly,
pinned the same way. Result pages go through the URL loader, whatever the engine.
"""

from __future__ import annotations

import json
import ssl
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

import httpx

from core.errors import CoreError, InvalidSettings
from core.parsers.url_guard import AllowList
from core.parsers.url_transport import GuardedTransport

MAX_RESPONSE_BYTES = 5 * 1024 * 1024
USER_AGENT = "ragdesk/0.1 (web search)"


class WebSearchError(CoreError):
    """A search engine could not be reached or answered something unusable."""

    exit_code = 12
    http_status = 502
    retryable = True


@dataclass(frozen=True)
class SearchResult:
    link: str
    title: str = ""
    snippet: str = ""


@dataclass(frozen=True)
class SearchEngine:
    """A web search engine plugin (registered in ``core.plugins.SEARCH_ENGINES`` by its module).

    ``search(query, count, web_search_settings, own_settings, client)`` returns results in rank
    order; ``own_settings`` is an instance of ``settings`` (the engine's sub-model, shown at
    ``web_search.engines.<name>``). ``required``: fields of it that must be set before a request.
    ``legacy``: the flat ``web_search.*`` key each field had before engines had sub-models."""

    name: str
    search: Callable[..., list[SearchResult]]
    settings: type | None = None
    required: tuple[str, ...] = ()
    legacy: Mapping[str, str] = field(default_factory=dict)
    unofficial: bool = False
    doc: str = ""


def register_engine(engine: SearchEngine) -> SearchEngine:
    from core.plugins import SEARCH_ENGINES

    return SEARCH_ENGINES.register(engine.name, engine)


def setting_name(engine: str, name: str) -> str:
    """How an admin finds an engine's setting (its path in the settings)."""
    return f"web_search.engines.{engine}.{name}"


@dataclass(frozen=True)
class EngineHttp:
    """How engine API requests are made (from the web_search and parsing settings)."""

    verify: bool = True  # enable_web_loader_ssl_verification
    trust_env: bool = False  # web_search_trust_env: HTTP(S)_PROXY from the environment
    timeout_seconds: float = 15.0
    allow: AllowList = field(default_factory=AllowList)  # parsing.url_allow_hosts: what an admin opened


def engine_client(http: EngineHttp) -> httpx.Client:
    common = dict(timeout=httpx.Timeout(http.timeout_seconds), follow_redirects=False,
                  headers={"User-Agent": USER_AGENT, "Accept": "application/json"})
    # with trust_env the environment's proxy carries the request, as a tunnel to the checked address
    transport = GuardedTransport(http.allow, None if http.verify else _unverified_tls(), trust_env=http.trust_env)
    return httpx.Client(transport=transport, trust_env=False, **common)


def _unverified_tls() -> ssl.SSLContext:
    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    return context


def check_engine_url(url: str, setting: str) -> None:
    """An admin-set engine address is http(s) with a host; where it may connect is the guard's
    decision, made when the request connects. ``setting``: the setting's full name."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise InvalidSettings(f"{setting} must be an http:// or https:// URL with a host")


def request_json(client: httpx.Client, method: str, url: str, *, engine: str, **kwargs: Any) -> Any:
    """The engine's JSON answer. Errors name the engine and its host, never the URL (a Google PSE
    URL carries the API key in its query string)."""
    host = urlsplit(url).netloc
    try:
        with client.stream(method, url, **kwargs) as response:
            if response.status_code >= 400:
                raise WebSearchError(f"{engine} at {host} answered HTTP {response.status_code}")
            body = bytearray()
            for chunk in response.iter_bytes():
                body += chunk
                if len(body) > MAX_RESPONSE_BYTES:
                    raise WebSearchError(f"{engine} at {host} sent more than {MAX_RESPONSE_BYTES // 2**20} MB")
    except httpx.TimeoutException as exc:
        raise WebSearchError(f"{engine} at {host} timed out") from exc
    except httpx.HTTPError as exc:
        raise WebSearchError(f"could not reach {engine} at {host}: {type(exc).__name__}") from exc
    try:
        return json.loads(bytes(body))
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise WebSearchError(f"{engine} at {host} answered something that is not JSON") from exc


def results_from(items: Any, link: str, title: str, snippet: str, count: int) -> list[SearchResult]:
    """SearchResults from a list of JSON objects, skipping entries without a usable link."""
    out: list[SearchResult] = []
    for item in items if isinstance(items, list) else []:
        if not isinstance(item, dict) or not isinstance(item.get(link), str) or not item[link].strip():
            continue
        out.append(SearchResult(item[link].strip(), str(item.get(title) or ""), str(item.get(snippet) or "")))
        if len(out) >= count:
            break
    return out


def require(value: Any, setting: str, engine: str) -> str:
    """The engine's setting ``setting`` (a field of its sub-model; a SecretStr is revealed here only)."""
    plain = value.get_secret_value() if hasattr(value, "get_secret_value") else str(value)
    if not plain.strip():
        raise InvalidSettings(f"web search engine {engine!r} needs {setting_name(engine, setting)}")
    return plain.strip()
