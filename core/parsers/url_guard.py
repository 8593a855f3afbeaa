"""Which addresses a URL fetch may reach (SSRF guard). Every fetcher goes through it.

A fetch refuses loopback, private, multicast, reserved, unspecified and other non-global
addresses, IPv4 and IPv6, including IPv4 addresses embedded in IPv6 (mapped ::ffff:a.b.c.d,
compatible ::a.b.c.d, 6to4, Teredo, NAT64 64:ff9b::/96 and the local-use 64:ff9b:1::/48 at every
prefix length) — except the hosts and networks an admin opens in ``parsing.url_allow_hosts``
(e.g. ``127.0.0.1``, ``10.1.0.0/16``, ``wiki.internal``). Link-local addresses and the cloud
metadata endpoints (``ALWAYS_CLOSED``), in any of those IPv6 forms, stay closed whatever that list
says, and an entry that would cover one of them is refused when saved. The host is
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
IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network

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


@dataclass(frozen=True)
class _Carrier:
    """An IPv6 form that carries an IPv4 address: a fixed prefix, and where the 32 IPv4 bits sit
    (segments of (first bit, length), most significant bit 0)."""

    label: str
    prefix: ipaddress.IPv6Network
    segments: tuple[tuple[int, int], ...]
    inverted: bool = False  # Teredo stores the client address with every bit flipped
    exact: bool = False  # the IPv4 address *is* the destination (no other meaning of the IPv6 one)

    def ipv4_of(self, ip: ipaddress.IPv6Address) -> ipaddress.IPv4Address:
        value, bits = 0, int(ip)
        for start, length in self.segments:
            value = (value << length) | ((bits >> (128 - start - length)) & ((1 << length) - 1))
        return ipaddress.IPv4Address(value ^ 0xFFFFFFFF if self.inverted else value)

    def bits_of(self, net: ipaddress.IPv4Network) -> tuple[int, int]:
        """(mask, value): the IPv6 bits fixed for every address of this form carrying ``net``."""
        mask, value = int(self.prefix.netmask), int(self.prefix.network_address)
        v4 = int(net.network_address) ^ (0xFFFFFFFF if self.inverted else 0)
        position = 0  # index of the IPv4 bit, 0 = most significant
        for start, length in self.segments:
            for bit in range(start, start + length):
                if position < net.prefixlen:
                    shift = 127 - bit
                    mask |= 1 << shift
                    value = (value & ~(1 << shift)) | (((v4 >> (31 - position)) & 1) << shift)
                position += 1
        return mask, value


_LOW32 = ((96, 32),)
# RFC 4291 (mapped, compatible), RFC 6052 (NAT64 well-known and local-use prefixes at every
# prefix length a /48 allows), RFC 3056 (6to4), RFC 4380 (Teredo).
_CARRIERS = tuple(_Carrier(label, ipaddress.ip_network(prefix), segments, inverted, exact) for
                  label, prefix, segments, inverted, exact in (
    ("IPv4-mapped", "::ffff:0:0/96", _LOW32, False, True),
    ("IPv4-compatible", "::/96", _LOW32, False, False),
    ("NAT64", "64:ff9b::/96", _LOW32, False, True),
    ("local-use NAT64 /96", "64:ff9b:1::/48", _LOW32, False, False),
    ("local-use NAT64 /64", "64:ff9b:1::/48", ((72, 32),), False, False),
    ("local-use NAT64 /56", "64:ff9b:1::/48", ((56, 8), (72, 24)), False, False),
    ("local-use NAT64 /48", "64:ff9b:1::/48", ((48, 16), (72, 16)), False, False),
    ("6to4", "2002::/16", ((16, 32),), False, True),
    ("Teredo", "2001::/32", _LOW32, True, False),
))
_NOT_COMPATIBLE = ipaddress.ip_network("::/127")  # :: and ::1 are themselves, not 0.0.0.x


def _embedded_ipv4s(ip: ipaddress.IPv6Address) -> list[tuple[_Carrier, ipaddress.IPv4Address]]:
    """Every IPv4 address ``ip`` may stand for (several readings for a local-use NAT64 prefix)."""
    if ip in _NOT_COMPATIBLE:
        return []
    return [(c, c.ipv4_of(ip)) for c in _CARRIERS if ip in c.prefix]


def _is_closed(ip: IPAddress) -> bool:
    return any(ip in net for net in ALWAYS_CLOSED if net.version == ip.version)


def closed_reason(ip: IPAddress) -> str | None:
    """Why ``ip`` is never fetched, whatever the allow-list says (None: it may be opened)."""
    inner = [v4 for _, v4 in _embedded_ipv4s(ip)] if isinstance(ip, ipaddress.IPv6Address) else []
    if _is_closed(ip) or any(_is_closed(v4) for v4 in inner):
        return f"link-local or cloud metadata address {ip}"
    return None


def closed_network_covered(network: IPNetwork) -> str | None:
    """What closed address ``network`` would cover, in words (None: it covers none)."""
    for closed in ALWAYS_CLOSED:
        if closed.version == network.version and network.overlaps(closed):
            return str(closed)
    if network.version == 6:
        mask, value = int(network.netmask), int(network.network_address)
        for carrier in _CARRIERS:
            for closed in (c for c in ALWAYS_CLOSED if c.version == 4):
                form_mask, form_value = carrier.bits_of(closed)
                common = mask & form_mask
                if (value ^ form_value) & common == 0:
                    return f"{closed} in its {carrier.label} form"
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


# A service an admin configured (language model, embedding API, reranker, a proxy): it may be on
# the LAN or this machine, but link-local and metadata addresses stay closed like everywhere else.
SERVICES = AllowList(all_private=True)


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
    covered = closed_network_covered(network)
    if covered:
        raise ValueError(f"{entry!r} in url_allow_hosts covers the link-local or cloud metadata address {covered}, "
                         "which is never fetched: open a narrower network")
    return "network", network


def blocked_reason(ip: IPAddress) -> str | None:
    """Why a fetch must not reach ``ip`` (None when it is an ordinary public address)."""
    if isinstance(ip, ipaddress.IPv6Address):
        readings = _embedded_ipv4s(ip)
        for _, inner in readings:
            reason = blocked_reason(inner)
            if reason:
                return f"{reason} (embedded in {ip})"
        if any(carrier.exact for carrier, _ in readings):
            return None  # the IPv4 address is where it goes, and it is public
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
