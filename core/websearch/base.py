"""What every engine module shares: the result type, the error, and the HTTP client for the
engine's own API.

Where the SSRF guard applies. The search engine's URL is set by an admin (a SearXNG instance is
usually on a private host, e.g. ``http://searxng:8080``), so engine API calls may reach private
and loopback addresses — but never link-local ones (169.254.0.0/16, fe80::/10: cloud metadata)
nor multicast/unspecified, they follow no redirects (a compromised engine cannot bounce us
elsewhere) and their responses are size-capped. Result pages are a different matter: their
addresses come from the internet, so every one of them goes through ``core/parsers/url_guard.py``
via the URL loader, whatever the engine.
"""

from __future__ import annotations

import ipaddress
import json
import socket
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import httpx

from core.errors import CoreError, InvalidSettings

MAX_RESPONSE_BYTES = 5 * 1024 * 1024
USER_AGENT = "ragdesk/0.1 (web search)"


class WebSearchError(CoreError):
    """A search engine could not be reached or answered something unusable."""

    exit_code = 12
    retryable = True


@dataclass(frozen=True)
class SearchResult:
    link: str
    title: str = ""
    snippet: str = ""


@dataclass(frozen=True)
class EngineHttp:
    """How engine API requests are made (from the web_search settings)."""

    verify: bool = True  # enable_web_loader_ssl_verification
    trust_env: bool = False  # web_search_trust_env: HTTP(S)_PROXY from the environment
    timeout_seconds: float = 15.0


def engine_client(http: EngineHttp) -> httpx.Client:
    return httpx.Client(verify=http.verify, trust_env=http.trust_env, timeout=httpx.Timeout(http.timeout_seconds),
                        follow_redirects=False, headers={"User-Agent": USER_AGENT, "Accept": "application/json"})


def check_engine_url(url: str, setting: str) -> None:
    """An admin-set engine address: http(s), with a host, never link-local/metadata."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise InvalidSettings(f"web_search.{setting} must be an http:// or https:// URL with a host")
    try:
        infos = socket.getaddrinfo(parts.hostname.strip("[]"), None, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError):
        return  # not resolvable here (perhaps only through the proxy): the request itself will say
    for info in infos:
        ip = ipaddress.ip_address(info[4][0].split("%", 1)[0])
        inner = ip.ipv4_mapped if isinstance(ip, ipaddress.IPv6Address) else None
        for candidate in filter(None, (ip, inner)):
            if candidate.is_link_local or candidate.is_multicast or candidate.is_unspecified:
                raise InvalidSettings(f"web_search.{setting} points at {candidate}, a link-local/metadata or "
                                      "non-routable address: refused")


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


def require(value: str, setting: str, engine: str) -> str:
    if not value.strip():
        raise InvalidSettings(f"web search engine {engine!r} needs web_search.{setting}")
    return value.strip()
