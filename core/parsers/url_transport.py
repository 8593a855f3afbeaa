"""An httpx transport whose sockets only go to addresses the SSRF guard has checked.

httpx's own HTTPTransport does not accept a custom httpcore network backend, so this small
adapter drives an ``httpcore.ConnectionPool`` built with ``GuardedBackend`` and maps
httpcore's exceptions onto httpx's, so callers handle one family.
"""

from __future__ import annotations

import ssl
import threading
from typing import Iterator

import httpcore
import httpx

from core.errors import BlockedAddress, FetchError
from core.parsers.url_guard import SERVICES, AllowList, GuardedBackend
from core.parsers.url_proxy import Proxy, TunnelBackend, environment_proxy

_EXCEPTIONS: list[tuple[type[Exception], type[httpx.TransportError]]] = [
    (httpcore.ConnectTimeout, httpx.ConnectTimeout),
    (httpcore.ReadTimeout, httpx.ReadTimeout),
    (httpcore.WriteTimeout, httpx.WriteTimeout),
    (httpcore.PoolTimeout, httpx.PoolTimeout),
    (httpcore.ConnectError, httpx.ConnectError),
    (httpcore.ReadError, httpx.ReadError),
    (httpcore.WriteError, httpx.WriteError),
    (httpcore.RemoteProtocolError, httpx.RemoteProtocolError),
    (httpcore.LocalProtocolError, httpx.LocalProtocolError),
    (httpcore.ProtocolError, httpx.ProtocolError),
    (httpcore.NetworkError, httpx.NetworkError),
    (httpcore.TimeoutException, httpx.TimeoutException),
]


def _as_httpx(exc: Exception) -> Exception:
    for source, target in _EXCEPTIONS:
        if isinstance(exc, source):
            return target(str(exc))
    return exc


class _Body(httpx.SyncByteStream):
    def __init__(self, stream) -> None:
        self._stream = stream

    def __iter__(self) -> Iterator[bytes]:
        try:
            yield from self._stream
        except Exception as exc:
            mapped = _as_httpx(exc)
            if mapped is exc:
                raise
            raise mapped from exc

    def close(self) -> None:
        if hasattr(self._stream, "close"):
            self._stream.close()


class GuardedTransport(httpx.BaseTransport):
    """``trust_env``: go through the proxy HTTP(S)_PROXY/ALL_PROXY name (NO_PROXY honoured) — as
    a CONNECT tunnel to the checked address (``core/parsers/url_proxy.py``), never by name."""

    def __init__(self, allow: AllowList | bool, ssl_context: ssl.SSLContext | None = None, *,
                 trust_env: bool = False) -> None:
        # ssl_context: e.g. one that also trusts an internal CA; certificates are always
        # checked against the URL's host name, never against the pinned IP address
        self._allow, self._trust_env = AllowList.of(allow), trust_env
        self._ssl = ssl_context or httpx.create_ssl_context()
        self._pool = self._new_pool(GuardedBackend(self._allow))
        self._proxied: dict[Proxy, httpcore.ConnectionPool] = {}
        self._lock = threading.Lock()

    def _new_pool(self, backend: httpcore.NetworkBackend) -> httpcore.ConnectionPool:
        return httpcore.ConnectionPool(ssl_context=self._ssl, network_backend=backend, retries=0)

    def _pool_for(self, url: httpx.URL) -> httpcore.ConnectionPool:
        proxy = environment_proxy(url.scheme, url.host) if self._trust_env else None
        if proxy is None:
            return self._pool
        with self._lock:
            if proxy not in self._proxied:
                self._proxied[proxy] = self._new_pool(TunnelBackend(self._allow, proxy))
            return self._proxied[proxy]

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        core_request = httpcore.Request(
            method=request.method,
            url=httpcore.URL(
                scheme=request.url.raw_scheme, host=request.url.raw_host, port=request.url.port,
                target=request.url.raw_path,
            ),
            headers=request.headers.raw,
            content=request.stream,
            extensions=request.extensions,
        )
        try:
            response = self._pool_for(request.url).handle_request(core_request)
        except Exception as exc:
            mapped = _as_httpx(exc)
            if mapped is exc:
                raise
            raise mapped from exc
        return httpx.Response(
            status_code=response.status, headers=response.headers, stream=_Body(response.stream),
            extensions=response.extensions,
        )

    def close(self) -> None:
        self._pool.close()
        for pool in self._proxied.values():
            pool.close()


class _ServiceTransport(GuardedTransport):
    """A name that does not resolve is the service's connection failure (each client words its own),
    not a page that could not be fetched; a refused address stays the guard's ``BlockedAddress``."""

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        try:
            return super().handle_request(request)
        except BlockedAddress:
            raise
        except FetchError as exc:
            raise httpx.ConnectError(f"{exc.message} ({exc.detail or 'name resolution failed'})", request=request) from exc


def service_client(*, timeout: float | httpx.Timeout, headers: dict[str, str] | None = None,
                   base_url: str = "", follow_redirects: bool = False) -> httpx.Client:
    """The HTTP client for a service an admin configured (language model, embedding API, reranker):
    its address may be private or loopback (a model server on the LAN), never link-local or a
    metadata address; resolved once and connected at the checked address; no environment proxy."""
    return httpx.Client(**service_client_options(timeout=timeout, headers=headers, follow_redirects=follow_redirects),
                        base_url=base_url)


def service_client_options(*, timeout: float | httpx.Timeout, headers: dict[str, str] | None = None,
                           follow_redirects: bool = False) -> dict:
    """``httpx.Client`` keyword arguments of ``service_client`` (for vendor clients that build their own)."""
    return dict(transport=_ServiceTransport(SERVICES), trust_env=False, timeout=timeout, headers=headers or {},
                follow_redirects=follow_redirects)
