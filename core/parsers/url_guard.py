"""Which addresses a URL fetch may reach (SSRF guard). Every fetcher goes through it.

A fetch refuses loopback, private, multicast, reserved, unspecified and other non-global
addresses, IPv4 and IPv6, including IPv4 addresses embedded in IPv6 (mapped ::ffff:a.b.c.d,
6to4, NAT64) — except the hosts and networks an admin opens in ``parsing.url_allow_hosts``
(e.g. ``127.0.0.1``, ``10.1.0.0/16``, ``wiki.internal``). Link-local addresses and the cloud
metadata endpoints (``ALWAYS_CLOSED``) stay closed whatever that list says. The host is
resolved once and the connection is made to exactly the addresses that were checked (see
``GuardedBackend``), so a DNS answer that changes between check and connect (rebinding)
cannot slip through; redirects are checked again at every hop by the fetchers.

``parsing.url_allow_private`` (a boolean, deprecated) still opens every private address.
"""

from __future__ import annotations

import ipaddress
import re
import socket
from dataclasses import dataclass
from urllib.parse import urlsplit

import httpcore

from core.errors import BlockedAddress, FetchError

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
_NAT64 = ipaddress.ip_network("64:ff9b::/96")

# Closed whatever an admin opens: link-local (where clouds serve instance metadata and
# credentials) and the metadata addresses that are not link-local.
ALWAYS_CLOSED = tuple(ipaddress.ip_network(n) for n in (
    "169.254.0.0/16",      # IPv4 link-local: AWS, GCP, Azure, OpenStack metadata at 169.254.169.254
    "fe80::/10",           # IPv6 link-local
    "100.100.100.200/32",  # Alibaba Cloud metadata
    "fd00:ec2::254/128",   # AWS metadata over IPv6
    "168.63.129.16/32",    # Azure platform wire server
))
_HOST_NAME = re.compile(r"^(?=.{1,253}$)([a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9])?)(\.[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9])?)*$")


def closed_reason(ip: IPAddress) -> str | None:
    """Why ``ip`` is never fetched, whatever the allow-list says (None: it may be opened)."""
    inner = _embedded_ipv4(ip) if isinstance(ip, ipaddress.IPv6Address) else None
    for candidate in (ip, inner):
        if candidate is not None and any(candidate in net for net in ALWAYS_CLOSED if net.version == candidate.version):
            return f"link-local or cloud metadata address {ip}"
    return None


@dataclass(frozen=True)
class AllowList:
    """What an admin opened: host names (exact, case-insensitive) and networks."""

    hosts: frozenset[str] = frozenset()
    networks: tuple[ipaddress.IPv4Network | ipaddress.IPv6Network, ...] = ()
    all_private: bool = False  # the deprecated url_allow_private switch

    @classmethod
    def parse(cls, entries: list[str] | tuple[str, ...], all_private: bool = False) -> "AllowList":
        hosts, networks = set(), []
        for entry in entries:
            kind, value = parse_allow_entry(entry)
            (networks.append(value) if kind == "network" else hosts.add(value))
        return cls(frozenset(hosts), tuple(networks), all_private)

    @classmethod
    def of(cls, allow: "AllowList | bool | object") -> "AllowList":
        """From an AllowList, a ParsingSettings, or the old boolean."""
        if isinstance(allow, AllowList):
            return allow
        if isinstance(allow, bool):
            return cls(all_private=allow)
        return cls.parse(list(getattr(allow, "url_allow_hosts", [])), bool(getattr(allow, "url_allow_private", False)))

    def opens(self, host: str, ip: IPAddress) -> bool:
        if self.all_private or host.strip("[]").lower().rstrip(".") in self.hosts:
            return True
        return any(ip in net for net in self.networks if net.version == ip.version)


def parse_allow_entry(entry: str) -> tuple[str, object]:
    """("network", ip_network) or ("host", name); ValueError with a message for the admin."""
    text = str(entry).strip().lower().rstrip(".")
    if not text:
        raise ValueError("an empty entry in url_allow_hosts")
    try:
        network = ipaddress.ip_network(text.strip("[]"), strict=False)
    except ValueError:
        if not _HOST_NAME.match(text):
            raise ValueError(f"{entry!r} in url_allow_hosts is neither a host name nor an IP address or CIDR") from None
        return "host", text
    for closed in ALWAYS_CLOSED:
        if closed.version == network.version and network.subnet_of(closed):
            raise ValueError(f"{entry!r} in url_allow_hosts is a link-local or cloud metadata address ({closed}), "
                             "which is never fetched")
    return "network", network


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


def resolve_checked(host: str, port: int, allow: "AllowList | bool") -> list[str]:
    """Resolve ``host`` and return its addresses, refusing if any of them is blocked.

    Refusing when *any* answer is private (not only the first) stops a host that
    publishes both a public and an internal address from choosing for us.
    """
    allow = AllowList.of(allow)
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
    for address in addresses:
        ip = ipaddress.ip_address(address)
        closed = closed_reason(ip)
        if closed:
            raise BlockedAddress(f"refused to fetch {host!r}: it resolves to a {closed}, which is never fetched")
        reason = blocked_reason(ip)
        if reason and not allow.opens(host, ip):
            raise BlockedAddress(
                f"refused to fetch {host!r}: it resolves to {reason}; an admin can open this host or network "
                "in the parsing settings (url_allow_hosts)"
            )
    return addresses


def check_url(url: str, allow: "AllowList | bool") -> list[str]:
    """The addresses ``url`` may be fetched from; raises BlockedAddress / FetchError."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https"):
        scheme = f"{parts.scheme}://" if parts.scheme else "a URL without a scheme"
        raise FetchError(f"only http and https URLs can be fetched, not {scheme}")
    if not parts.hostname:
        raise FetchError(f"the URL {url!r} has no host")
    try:
        port = parts.port or (443 if parts.scheme == "https" else 80)
    except ValueError as exc:
        raise FetchError(f"the URL {url!r} has an invalid port") from exc
    return resolve_checked(parts.hostname, port, allow)


class GuardedBackend(httpcore.NetworkBackend):
    """httpcore network backend that resolves, checks, and connects to the checked address.

    TLS still uses the URL's host name for SNI and certificate checks (httpcore passes it to
    ``start_tls`` separately), and the Host header comes from the URL, so only the socket's
    destination is pinned.
    """

    def __init__(self, allow: "AllowList | bool") -> None:
        self._allow = AllowList.of(allow)
        self._inner = httpcore.SyncBackend()

    def connect_tcp(self, host, port, timeout=None, local_address=None, socket_options=None):
        addresses = resolve_checked(host.decode() if isinstance(host, bytes) else host, port, self._allow)
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
