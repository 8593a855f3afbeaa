"""Threat: an internal address reached through a gap in the one SSRF guard — an IPv6 form of a
metadata address the guard does not unwrap, an allow-list entry wide enough to cover the
metadata addresses, a search engine or Google Drive endpoint that is checked differently (or
re-resolved after the check, so a rebinding name reaches 169.254.169.254).

Every decision is made without a packet leaving loopback: IP literals need no DNS, rebinding
names are answered by a resolver the test controls, and the ``connections`` fixture stops any
connection beyond loopback before the system call (and records it, so the test sees it)."""

from __future__ import annotations

import re
import socket

import pytest

from core.errors import BlockedAddress, InvalidSettings
from core.parsers.url_guard import AllowList, check_url
from core.settings.model import ParsingSettings
from core.settings.store import validate
from tests.security.conftest import hosts

WIDEST = AllowList(all_private=True)  # the deprecated switch: every private address open

# 169.254.169.254 (a9fe:a9fe), 100.100.100.200 (6464:64c8) and 168.63.129.16 (a83f:8110) in
# every IPv6 form that carries an IPv4 address.
CLOSED_FORMS = {
    "64:ff9b:1::a9fe:a9fe": "local-use NAT64, /96 prefix",
    "64:ff9b:1:a9fe:a9:fe00::": "local-use NAT64, /48 prefix (RFC 6052: bits 48-63 and 72-87)",
    "64:ff9b:1:a9:fe:a9fe::": "local-use NAT64, /56 prefix",
    "64:ff9b:1:0:a9:fea9:fe00:0": "local-use NAT64, /64 prefix",
    "::a9fe:a9fe": "IPv4-compatible",
    "::6464:64c8": "IPv4-compatible, Alibaba metadata",
    "2001:0:4136:e378:8000:63bf:5601:5601": "Teredo (client = last 32 bits inverted)",
    "2001:0:4136:e378:8000:63bf:57c0:7eef": "Teredo, Azure wire server",
    "64:ff9b::a83f:8110": "NAT64, Azure wire server",
    "2002:6464:64c8::1": "6to4, Alibaba metadata",
    "::ffff:a9fe:a9fe": "IPv4-mapped",
}


@pytest.mark.parametrize("address", list(CLOSED_FORMS))
def test_every_ipv6_form_of_a_closed_address_stays_closed_whatever_is_opened(address, connections):
    with pytest.raises(BlockedAddress, match="never fetched"):
        check_url(f"http://[{address}]/latest/meta-data/", WIDEST)
    assert connections == []


@pytest.mark.parametrize("entry", [
    "0.0.0.0/0", "169.0.0.0/8", "169.254.169.0/24", "100.100.0.0/16", "168.63.129.0/24", "128.0.0.0/2",
    "::/0", "fe80::/9", "fc00::/7", "fd00:ec2::/32", "::ffff:0:0/96", "::/96", "64:ff9b::/96", "64:ff9b:1::/48",
    "2002::/16", "2002:a9fe::/32", "2001::/32", "::/1",
])
def test_an_allow_list_entry_covering_a_closed_address_is_refused_when_saved(entry):
    with pytest.raises(InvalidSettings, match=re.escape(repr(entry)) + ".*never fetched"):
        validate({"parsing": {"url_allow_hosts": ["127.0.0.1", entry]}})


@pytest.mark.parametrize("entry", ["10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "127.0.0.0/8", "fc00::/8",
                                   "fd12:3456::/32", "100.64.0.0/11", "2002:0a00::/24"])
def test_private_networks_that_hold_no_closed_address_can_still_be_opened(entry):
    assert ParsingSettings(url_allow_hosts=[entry]).url_allow_hosts == [entry]
