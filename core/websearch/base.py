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

import html
import json
import re
import ssl
import time
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


RATE_LIMIT_RETRIES = 3  # a 429 that says when to come back is retried this many times
MAX_RATE_LIMIT_WAIT = 5.0  # seconds; a longer wait (a quota for the day) is not waited for
_REASON_CHARS = 300


def request_json(client: httpx.Client, method: str, url: str, *, engine: str, secrets: tuple[str, ...] = (),
                 hints: Mapping[int, str] | None = None, **kwargs: Any) -> Any:
    """The engine's JSON answer. Errors name the engine and its host, never the URL (a Google PSE
    URL carries the API key in its query string), and carry the reason the engine's error body
    gives, with ``secrets`` removed. ``hints``: what an admin should check, by HTTP status.

    A 429 is retried when the engine says when to come back (``Retry-After``, or Brave's
    ``X-RateLimit-Reset`` for the window that ran out) within ``MAX_RATE_LIMIT_WAIT`` seconds."""
    host = urlsplit(url).netloc
    for attempt in range(RATE_LIMIT_RETRIES + 1):
        status, headers, body = _exchange(client, method, url, engine, host, kwargs)
        if status == 429 and attempt < RATE_LIMIT_RETRIES:
            wait = _rate_limit_wait(headers)
            if wait is not None:
                time.sleep(wait)
                continue
        break
    if status >= 400:
        reason = _error_reason(body, secrets)
        hint = (hints or {}).get(status, "")
        raise WebSearchError(f"{engine} at {host} answered HTTP {status}" + (f": {reason}" if reason else "")
                             + (f" ({hint})" if hint else ""))
    try:
        return json.loads(body)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise WebSearchError(f"{engine} at {host} answered something that is not JSON") from exc


def _exchange(client: httpx.Client, method: str, url: str, engine: str, host: str,
              kwargs: dict[str, Any]) -> tuple[int, httpx.Headers, bytes]:
    try:
        with client.stream(method, url, **kwargs) as response:
            body = bytearray()
            for chunk in response.iter_bytes():
                body += chunk
                if len(body) > MAX_RESPONSE_BYTES:
                    raise WebSearchError(f"{engine} at {host} sent more than {MAX_RESPONSE_BYTES // 2**20} MB")
            return response.status_code, response.headers, bytes(body)
    except httpx.TimeoutException as exc:
        raise WebSearchError(f"{engine} at {host} timed out") from exc
    except httpx.HTTPError as exc:
        raise WebSearchError(f"could not reach {engine} at {host}: {type(exc).__name__}") from exc


def _numbers(value: str | None) -> list[float]:
    out = []
    for part in (value or "").split(","):
        try:
            out.append(float(part.strip()))
        except ValueError:
            return []
    return out


def _rate_limit_wait(headers: httpx.Headers) -> float | None:
    """Seconds until the engine takes requests again, when it says so and it is soon; else None.
    ``Retry-After`` in seconds; Brave's ``X-RateLimit-Reset`` lists the seconds left in each window
    (per second, per month) beside ``X-RateLimit-Remaining``: the windows with nothing left count."""
    wait: float | None = None
    after = _numbers(headers.get("retry-after"))
    if len(after) == 1:
        wait = after[0]
    else:
        reset, remaining = _numbers(headers.get("x-ratelimit-reset")), _numbers(headers.get("x-ratelimit-remaining"))
        if reset and len(remaining) == len(reset):
            spent = [r for r, left in zip(reset, remaining) if left <= 0]
            wait = max(spent) if spent else None
        elif reset:
            wait = reset[0]
    if wait is None or not 0 <= wait <= MAX_RATE_LIMIT_WAIT:
        return None
    return wait


def _error_reason(body: bytes, secrets: tuple[str, ...]) -> str:
    """The message of an engine's error body, in the shapes the engines document: Tavily
    ``{"detail": {"error"}}``, Google ``{"error": {"message"}}``, Brave ``{"error": {"detail"}}``
    (its examples: ``{"errors": [{"detail"}]}``), Serper ``{"message"}``; or a short plain-text body."""
    text = body.decode("utf-8", "replace").strip()
    try:
        data = json.loads(text)
    except ValueError:
        data = None
    reason = ""
    if isinstance(data, dict):
        errors = data.get("errors")
        for found in (data.get("detail"), data.get("error"), errors[0] if isinstance(errors, list) and errors else None,
                      data.get("message")):
            if isinstance(found, dict):
                found = found.get("error") or found.get("message") or found.get("detail")
            if isinstance(found, str) and found.strip():
                reason = found
                break
    elif data is None and text and not text.startswith("<"):  # plain text; an HTML page says nothing useful
        reason = text.splitlines()[0]
    for secret in secrets:
        if secret:
            reason = reason.replace(secret, "***")
    reason = " ".join(reason.split())
    return reason[:_REASON_CHARS] + ("…" if len(reason) > _REASON_CHARS else "")


def results_from(items: Any, link: str, title: str, snippet: str, count: int, *, markup: bool = False) -> list[SearchResult]:
    """SearchResults from a list of JSON objects, skipping entries without a usable link.
    ``markup``: the engine highlights words in its titles and snippets with HTML (Brave's
    ``<strong>``); the tags are removed and entities decoded."""
    out: list[SearchResult] = []
    for item in items if isinstance(items, list) else []:
        if not isinstance(item, dict) or not isinstance(item.get(link), str) or not item[link].strip():
            continue
        shown = [str(item.get(title) or ""), str(item.get(snippet) or "")]
        if markup:
            shown = [html.unescape(_TAG.sub("", s)) for s in shown]
        out.append(SearchResult(item[link].strip(), *shown))
        if len(out) >= count:
            break
    return out


_TAG = re.compile(r"<[^<>]*>")


def cut_query(query: str, max_chars: int, max_words: int | None = None) -> str:
    """The query within an engine's documented limits (a longer one is refused, and with the
    extractive default the whole chat message is the query): its first ``max_words`` words, then
    at most ``max_chars`` characters, cut at a space when there is one so no word is split."""
    words = query.split()
    if len(query) <= max_chars and (max_words is None or len(words) <= max_words):
        return query
    cut = " ".join(words[:max_words] if max_words else words)
    if len(cut) > max_chars:
        cut = cut[:max_chars]
        if " " in cut:
            cut = cut.rsplit(" ", 1)[0]
    return cut


def require(value: Any, setting: str, engine: str) -> str:
    """The engine's setting ``setting`` (a field of its sub-model; a SecretStr is revealed here only)."""
    plain = value.get_secret_value() if hasattr(value, "get_secret_value") else str(value)
    if not plain.strip():
        raise InvalidSettings(f"web search engine {engine!r} needs {setting_name(engine, setting)}")
    return plain.strip()
