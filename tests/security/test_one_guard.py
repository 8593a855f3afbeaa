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


# ---------------------------------------------------------------- the web search engine's own API
class ControlledDns:
    """``socket.getaddrinfo`` for one test name: answers in turn (the last one repeats); every other
    name goes to the real resolver. Nothing is asked of a DNS server for the test name."""

    def __init__(self, real, name: str, answers: list[str]):
        self.real, self.name, self.answers, self.asked = real, name, answers, 0

    def __call__(self, host, port, *args, **kwargs):
        if host != self.name:
            return self.real(host, port, *args, **kwargs)
        address = self.answers[min(self.asked, len(self.answers) - 1)]
        self.asked += 1
        return [(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP, "", (address, int(port or 0)))]


@pytest.fixture
def fake():
    from tests.websearch.fake_engines import fake_engines

    with fake_engines() as srv:
        srv.results("q", [("https://example.org/a", "A", "snippet a"), ("https://example.org/b", "B", "snippet b")])
        yield srv


def _web_search(engine_settings: dict, **parsing):
    from core.settings.model import WebSearchSettings
    from core.websearch.flow import WebSearchRequest, run_web_search

    cfg = WebSearchSettings(**engine_settings, bypass_web_search_web_loader=True,
                            bypass_web_search_embedding_and_retrieval=True)
    notices: list[str] = []
    context = run_web_search(WebSearchRequest(
        message="q", settings=cfg, parsing=ParsingSettings(**parsing), query_model=None,
        index_and_search=lambda *_: [], on_status=lambda _: None, on_notice=notices.append, queries=["q"]))
    return context, notices


ENGINE_URL_FIELDS = {"searxng": "searxng_query_url", "tavily": "tavily_base_url", "brave": "brave_base_url",
                     "google_pse": "google_pse_base_url", "serper": "serper_base_url",
                     "external": "external_web_search_url"}


@pytest.mark.parametrize("engine", list(ENGINE_URL_FIELDS))
@pytest.mark.parametrize("address", ["100.100.100.200", "168.63.129.16", "[fd00:ec2::254]", "[64:ff9b::a9fe:a9fe]",
                                     "[2002:a9fe:a9fe::1]"])
def test_an_engine_at_a_metadata_address_is_refused_before_connecting(fake, connections, engine, address):
    settings = fake.settings(engine)
    field = ENGINE_URL_FIELDS[engine]
    settings[field] = f"http://{address}/search?q=<query>" if engine == "searxng" else f"http://{address}/api"
    context, _ = _web_search(settings, url_allow_private=True)  # even with every private address open
    assert "never fetched" in context.error and context.passages == []
    assert connections == []


def test_a_private_engine_is_reached_only_once_an_admin_opened_it(fake, connections):
    context, _ = _web_search(fake.settings("searxng"))
    assert "url_allow_hosts" in context.error and connections == [] and fake.engine_calls == []
    context, _ = _web_search(fake.settings("searxng"), url_allow_hosts=["127.0.0.1"])
    assert context.error == "" and [p.url for p in context.passages] == ["https://example.org/a", "https://example.org/b"]
    assert hosts(connections) == {"127.0.0.1"}


def test_a_rebinding_engine_name_is_connected_at_the_address_that_was_checked(fake, connections, monkeypatch):
    port = fake.base.rsplit(":", 1)[1]
    dns = ControlledDns(socket.getaddrinfo, "searx.rebind.test", ["127.0.0.1", "169.254.169.254"])
    monkeypatch.setattr(socket, "getaddrinfo", dns)
    settings = {**fake.settings("searxng"), "searxng_query_url": f"http://searx.rebind.test:{port}/search?q=<query>"}
    context, _ = _web_search(settings, url_allow_hosts=["searx.rebind.test"])
    assert context.error == "" and len(context.passages) == 2  # checked once, connected to that answer
    assert hosts(connections) == {"127.0.0.1"}
    context, _ = _web_search(settings, url_allow_hosts=["searx.rebind.test"])  # the name now says metadata
    assert "never fetched" in context.error and hosts(connections) == {"127.0.0.1"}


def test_through_the_environments_proxy_the_engine_name_is_still_checked_first(fake, connections, monkeypatch):
    monkeypatch.setenv("HTTP_PROXY", fake.base)  # a proxy on loopback: it must not even be asked
    settings = {**fake.settings("searxng"), "searxng_query_url": "http://100.100.100.200/search?q=<query>",
                "web_search_trust_env": True}
    context, _ = _web_search(settings, url_allow_private=True)
    assert "never fetched" in context.error and connections == [] and fake.requests == []


# ---------------------------------------------------------------- Google Drive endpoints
@pytest.fixture
def drive_engine(tmp_path, monkeypatch):
    """A real engine wired to the fake Drive on 127.0.0.1; nothing opened to the guard yet."""
    from core.config import RuntimeConfig
    from core.engine import Engine
    from core.types import SYSTEM_ACTOR
    from tests.fakes.drive_server import FakeDrive

    for var in ("DATABASE_URL", "QDRANT_URL", "QDRANT_API_KEY", "RAGDESK_SECRET_KEY"):
        monkeypatch.delenv(var, raising=False)
    with FakeDrive() as drive:
        engine = Engine(RuntimeConfig.from_env(tmp_path / "data"))
        engine.save_settings(SYSTEM_ACTOR, {"embedding": {"provider": "local", "model": "hash-64"},
                                            "gdrive": drive.settings()})
        alice = engine.actor_for(engine.sign_up("alice", "correct horse 1").id)
        try:
            yield engine, drive, alice
        finally:
            engine.close()


def _set(engine, **sections) -> None:
    from core.types import SYSTEM_ACTOR

    engine.save_settings(SYSTEM_ACTOR, sections)


def test_the_loopback_drive_stand_in_is_reached_only_once_an_admin_opened_its_host(drive_engine, connections):
    engine, drive, alice = drive_engine
    with pytest.raises(BlockedAddress, match="url_allow_hosts"):
        engine.gdrive_connect_refresh_token(alice, drive.issue_refresh_token("alice"))
    assert connections == [] and drive.requests == []
    _set(engine, parsing={"url_allow_hosts": ["127.0.0.1"]})
    assert engine.gdrive_connect_refresh_token(alice, drive.issue_refresh_token("alice"))["connected"]
    assert engine.gdrive_list(alice) == [] and hosts(connections) == {"127.0.0.1"}


@pytest.mark.parametrize("endpoint", ["oauth_token_url", "api_base_url"])
@pytest.mark.parametrize("address", ["100.100.100.200", "168.63.129.16", "[fd00:ec2::254]", "[64:ff9b:1::a9fe:a9fe]"])
def test_a_drive_endpoint_at_a_metadata_address_is_refused_before_connecting(drive_engine, connections, endpoint, address):
    engine, drive, alice = drive_engine
    _set(engine, parsing={"url_allow_hosts": ["127.0.0.1"], "url_allow_private": True})
    _set(engine, gdrive={endpoint: f"https://{address}" + ("/token" if endpoint == "oauth_token_url" else "")})
    with pytest.raises(BlockedAddress, match="never fetched"):
        engine.gdrive_connect_refresh_token(alice, drive.issue_refresh_token("alice"))
    assert {h for h in hosts(connections) if h != "127.0.0.1"} == set()


def test_the_drive_revoke_endpoint_goes_through_the_guard(drive_engine, connections):
    engine, drive, alice = drive_engine
    _set(engine, parsing={"url_allow_hosts": ["127.0.0.1"]})
    engine.gdrive_connect_refresh_token(alice, drive.issue_refresh_token("alice"))
    _set(engine, gdrive={"revoke_url": "https://100.100.100.200/revoke"})
    connections.clear()
    assert engine.gdrive_disconnect(alice) == {"disconnected": True, "revoked_at_google": False}  # tokens dropped anyway
    assert connections == []


def test_a_rebinding_drive_api_name_never_reaches_the_metadata_address(drive_engine, connections, monkeypatch):
    engine, drive, alice = drive_engine
    port = drive.url.rsplit(":", 1)[1]
    dns = ControlledDns(socket.getaddrinfo, "localhost", ["127.0.0.1", "169.254.169.254"])
    monkeypatch.setattr(socket, "getaddrinfo", dns)
    _set(engine, parsing={"url_allow_hosts": ["127.0.0.1", "localhost"]},
         gdrive={"api_base_url": f"http://localhost:{port}"})
    engine.gdrive_connect_refresh_token(alice, drive.issue_refresh_token("alice"))  # the API answered at 127.0.0.1
    with pytest.raises(BlockedAddress, match="never fetched"):
        engine.gdrive_list(alice)  # a new connection: the name now says 169.254.169.254
    assert dns.asked >= 2 and hosts(connections) == {"127.0.0.1"}


def test_a_page_name_that_rebinds_after_the_check_is_never_connected_there(connections, monkeypatch):
    from core.parsers.base import ParseContext
    from core.parsers.url import fetch_url
    from tests.parsers.http_fixtures import local_server

    with local_server() as server:
        server.serve("/page", b"<html><body><p>the checked page</p></body></html>", "text/html")
        port = server.url("/page").rsplit(":", 1)[1].split("/", 1)[0]
        dns = ControlledDns(socket.getaddrinfo, "page.rebind.test", ["127.0.0.1"])
        monkeypatch.setattr(socket, "getaddrinfo", dns)
        ctx = ParseContext(settings=ParsingSettings(url_allow_hosts=["page.rebind.test"]))
        assert "the checked page" in fetch_url(f"http://page.rebind.test:{port}/page", ctx).text
        dns.answers, dns.asked = ["127.0.0.1", "169.254.169.254"], 0  # checked first, then rebinds
        with pytest.raises(BlockedAddress, match="never fetched"):
            fetch_url(f"http://page.rebind.test:{port}/page", ctx)
    assert hosts(connections) == {"127.0.0.1"} and server.hits == ["/page"]
