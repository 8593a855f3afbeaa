"""An httpx transport whose sockets only go to addresses the SSRF guard has checked.

httpx's own HTTPTransport does not accept a custom httpcore network backend, so this small
adapter drives an ``httpcore.ConnectionPool`` built with ``GuardedBackend`` and maps
httpcore's exceptions onto httpx's, so callers handle one family.
"""

from __future__ import annotations

import ssl
from typing import Iterator

import httpcore
import httpx

from core.parsers.url_guard import AllowList, GuardedBackend

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
    def __init__(self, allow: AllowList | bool, ssl_context: ssl.SSLContext | None = None) -> None:
        # ssl_context: e.g. one that also trusts an internal CA; certificates are always
        # checked against the URL's host name, never against the pinned IP address
        self._pool = httpcore.ConnectionPool(
            ssl_context=ssl_context or httpx.create_ssl_context(),
            network_backend=GuardedBackend(allow),
            retries=0,
        )

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
            response = self._pool.handle_request(core_request)
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
