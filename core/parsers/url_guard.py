"""Which addresses a URL fetch may reach (SSRF guard).

A fetch refuses loopback, private, link-local (cloud metadata at 169.254.169.254),
multicast, reserved, unspecified and other non-global addresses, IPv4 and IPv6, including
IPv4 addresses embedded in IPv6 (mapped ::ffff:a.b.c.d, 6to4, NAT64), unless the admin
setting ``url_allow_private`` is on. The host is resolved once and the connection is made
to exactly the addresses that were checked (see ``GuardedBackend``), so a DNS answer that
changes between check and connect (rebinding) cannot slip through.
"""

from __future__ import annotations

import ipaddress
import socket
from urllib.parse import urlsplit

import httpcore

from core.errors import BlockedAddress, FetchError

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
_NAT64 = ipaddress.ip_network("64:ff9b::/96")


def _embedded_ipv4(ip: ipaddress.IPv6Address) -> ipaddress.IPv4Address | None:
    if ip.ipv4_mapped is not None:
        return ip.ipv4_mapped
    if ip.sixtofour is not None:
        return ip.sixtofour
    if ip in _NAT64:
        return ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)
    return None


def blocked_reason(ip: IPAddress) -> str | None:
    """Why a fetch must not reach ``ip`` (None when it is an ordinary public address)."""
    if isinstance(ip, ipaddress.IPv6Address):
        inner = _embedded_ipv4(ip)
        if inner is not None:
            reason = blocked_reason(inner)
            return f"{reason} (embedded in {ip})" if reason else None
    for flag, label in (
        ("is_unspecified", "unspecified"),
        ("is_loopback", "loopback"),
        ("is_link_local", "link-local"),
        ("is_multicast", "multicast"),
        ("is_private", "private"),
        ("is_reserved", "reserved"),
    ):
        if getattr(ip, flag):
            return f"{label} address {ip}"
    if not ip.is_global:  # e.g. 100.64.0.0/10 carrier-grade NAT
        return f"non-public address {ip}"
    return None


def resolve_checked(host: str, port: int, allow_private: bool) -> list[str]:
    """Resolve ``host`` and return its addresses, refusing if any of them is blocked.

    Refusing when *any* answer is private (not only the first) stops a host that
    publishes both a public and an internal address from choosing for us.
    """
    literal = host.strip("[]")
    try:
        infos = socket.getaddrinfo(literal, port, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError) as exc:
        raise FetchError(f"cannot resolve host {host!r}", detail=str(exc)) from exc
    addresses: list[str] = []
    for info in infos:
        address = info[4][0].split("%", 1)[0]  # drop an IPv6 zone id
        if address not in addresses:
            addresses.append(address)
    if not addresses:
        raise FetchError(f"cannot resolve host {host!r}")
    if not allow_private:
        for address in addresses:
            reason = blocked_reason(ipaddress.ip_address(address))
            if reason:
                raise BlockedAddress(
                    f"refused to fetch {host!r}: it resolves to {reason}; an admin can allow private "
                    "addresses in the parsing settings (url_allow_private)"
                )
    return addresses


def check_url(url: str, allow_private: bool) -> list[str]:
    """The addresses ``url`` may be fetched from; raises BlockedAddress / FetchError."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https"):
        raise FetchError(f"only http and https URLs can be fetched, not {parts.scheme or 'a URL without a scheme'!r}")
    if not parts.hostname:
        raise FetchError(f"the URL {url!r} has no host")
    try:
        port = parts.port or (443 if parts.scheme == "https" else 80)
    except ValueError as exc:
        raise FetchError(f"the URL {url!r} has an invalid port") from exc
    return resolve_checked(parts.hostname, port, allow_private)


class GuardedBackend(httpcore.NetworkBackend):
    """httpcore network backend that resolves, checks, and connects to the checked address.

    TLS still uses the URL's host name for SNI and certificate checks (httpcore passes it to
    ``start_tls`` separately), and the Host header comes from the URL, so only the socket's
    destination is pinned.
    """

    def __init__(self, allow_private: bool) -> None:
        self._allow_private = allow_private
        self._inner = httpcore.SyncBackend()

    def connect_tcp(self, host, port, timeout=None, local_address=None, socket_options=None):
        addresses = resolve_checked(host, port, self._allow_private)
        last_error: Exception | None = None
        for address in addresses:
            try:
                return self._inner.connect_tcp(address, port, timeout, local_address, socket_options)
            except (httpcore.ConnectError, httpcore.ConnectTimeout) as exc:
                last_error = exc  # try the next checked address, like a browser would
        assert last_error is not None
        raise last_error

    def connect_unix_socket(self, path, timeout=None, socket_options=None):
        raise BlockedAddress("unix sockets are never fetched")

    def sleep(self, seconds: float) -> None:
        self._inner.sleep(seconds)
