"""Environment proxies that cannot bypass the SSRF guard.

A proxy resolves the host it is asked for itself, so a request handed to it by name would be
resolved a second time, after our check (DNS rebinding), and a name in ``NO_PROXY`` would make
httpx connect directly with its own resolver. Here the guard resolves and checks the host first;
the proxy is then asked for a CONNECT tunnel to exactly the checked address (``CONNECT
203.0.113.7:443``), and TLS runs inside the tunnel with the URL's own host name for SNI and the
certificate check. The proxy's own address is checked too: it may be private (an admin's network
has its proxy), never link-local or a metadata address. A proxy that refuses CONNECT to a port
answers an error; no request is ever handed over by name.
"""

from __future__ import annotations

import base64
import ipaddress
import urllib.request
from dataclasses import dataclass
from urllib.parse import unquote, urlsplit

import httpcore

from core.errors import BlockedAddress, FetchError
from core.parsers.url_guard import SERVICES, AllowList, GuardedBackend, resolve_checked

_REPLY_LIMIT = 16 * 1024  # a CONNECT reply's header is a few lines


@dataclass(frozen=True)
class Proxy:
    host: str
    port: int
    authorization: str = ""  # "Basic ..." from the proxy URL's user:password

    @classmethod
    def parse(cls, url: str) -> "Proxy":
        parts = urlsplit(url if "://" in url else f"http://{url}")
        if parts.scheme not in ("http", "") or not parts.hostname:
            raise FetchError(f"only http:// proxies are supported for guarded requests, not {parts.scheme}://")
        auth = ""
        if parts.username:
            pair = f"{unquote(parts.username)}:{unquote(parts.password or '')}".encode()
            auth = "Basic " + base64.b64encode(pair).decode()
        return cls(parts.hostname, parts.port or 8080, auth)


def environment_proxy(scheme: str, host: str) -> Proxy | None:
    """The proxy the environment names for ``scheme`` (HTTP_PROXY, HTTPS_PROXY, ALL_PROXY), unless
    ``NO_PROXY`` exempts ``host``. An exempt host is connected directly, through the guard."""
    proxies = urllib.request.getproxies_environment()
    url = proxies.get(scheme) or proxies.get("all")
    if not url or urllib.request.proxy_bypass_environment(host, proxies):
        return None
    return Proxy.parse(url)


def _authority(address: str, port: int) -> bytes:
    ip = ipaddress.ip_address(address)
    return (f"[{ip}]:{port}" if ip.version == 6 else f"{ip}:{port}").encode()


class TunnelBackend(httpcore.NetworkBackend):
    """Checks and resolves the target like ``GuardedBackend``, then opens a CONNECT tunnel to the
    checked address through ``proxy`` (itself reached at its own checked address)."""

    def __init__(self, allow: AllowList, proxy: Proxy) -> None:
        self._allow, self._proxy = allow, proxy
        self._to_proxy = GuardedBackend(SERVICES)

    def connect_tcp(self, host, port, timeout=None, local_address=None, socket_options=None):
        name = host.decode() if isinstance(host, bytes) else host
        addresses = resolve_checked(name, port, self._allow)
        stream = self._to_proxy.connect_tcp(self._proxy.host, self._proxy.port, timeout, local_address, socket_options)
        try:
            self._open_tunnel(stream, _authority(addresses[0], port), timeout)
        except BaseException:
            stream.close()
            raise
        return stream

    def _open_tunnel(self, stream, authority: bytes, timeout) -> None:
        lines = [b"CONNECT " + authority + b" HTTP/1.1", b"Host: " + authority]
        if self._proxy.authorization:
            lines.append(b"Proxy-Authorization: " + self._proxy.authorization.encode())
        stream.write(b"\r\n".join(lines) + b"\r\n\r\n", timeout)
        reply = b""
        while b"\r\n\r\n" not in reply:
            chunk = stream.read(1, timeout)  # byte by byte: nothing of the tunnel is read past the header
            if not chunk or len(reply) > _REPLY_LIMIT:
                raise httpcore.ProxyError("the proxy closed the connection or sent no CONNECT reply")
            reply += chunk
        status = reply.split(b"\r\n", 1)[0].split()
        if len(status) < 2 or status[1] != b"200":
            raise httpcore.ProxyError(f"the proxy refused the tunnel ({b' '.join(status[1:]).decode(errors='replace')})")

    def connect_unix_socket(self, path, timeout=None, socket_options=None):
        raise BlockedAddress("unix sockets are never fetched")

    def sleep(self, seconds: float) -> None:
        self._to_proxy.sleep(seconds)
