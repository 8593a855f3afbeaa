"""Threat: a user makes the server fetch an internal address — the cloud metadata endpoint
(credentials), an admin console on loopback, another host on the LAN — directly, through a
redirect, through a URL scheme other than http(s), or through the YouTube transcript path.

The address rules themselves (every private/loopback/NAT64/mapped form, DNS rebinding pinned at
connect time, TLS to the pinned address) are tested in tests/parsers/test_url.py; zip bombs in
tests/parsers/test_zipguard.py. Here: the allow-list cannot open what must stay closed."""

from __future__ import annotations

import pytest

from core.errors import BlockedAddress, FetchError, InvalidSettings
from core.parsers.base import ParseContext
from core.parsers.url import fetch_url
from core.parsers.url_guard import AllowList, check_url
from core.parsers.youtube import transcript_session
from core.settings.model import ParsingSettings
from core.types import SYSTEM_ACTOR
from tests.parsers.http_fixtures import local_server
from tests.security.conftest import hosts

METADATA = "http://169.254.169.254/latest/meta-data/iam/security-credentials/"


def _ctx(**parsing) -> ParseContext:
    return ParseContext(settings=ParsingSettings(**parsing))


@pytest.fixture
def server():
    with local_server() as srv:
        yield srv


@pytest.mark.parametrize("opened", [
    {"url_allow_hosts": ["127.0.0.1"]},
    {"url_allow_hosts": ["127.0.0.0/8", "10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "fc00::/8"]},  # wide, but savable
    {"url_allow_private": True},  # the deprecated switch
])
def test_a_redirect_to_the_metadata_address_is_refused_before_connecting(server, connections, opened):
    server.serve("/page", b"<html><body><p>ok page</p></body></html>", "text/html")
    server.redirect("/hop", METADATA)
    assert "ok page" in fetch_url(server.url("/page"), _ctx(**opened)).text  # the local server is open
    connections.clear()
    with pytest.raises(BlockedAddress, match="never fetched"):
        fetch_url(server.url("/hop"), _ctx(**opened))
    assert hosts(connections) == {"127.0.0.1"}  # only the first hop was connected
    assert server.hits[-1] == "/hop"


def test_metadata_and_link_local_cannot_be_opened_by_the_setting():
    for entry in ("169.254.169.254", "169.254.0.0/16", "fe80::1", "100.100.100.200", "fd00:ec2::254"):
        with pytest.raises(ValueError, match="never fetched"):
            ParsingSettings(url_allow_hosts=[entry])
    with pytest.raises(ValueError, match="neither a host name"):
        ParsingSettings(url_allow_hosts=["http://x/"])
    from core.settings.store import validate

    with pytest.raises(InvalidSettings, match="url_allow_hosts"):
        validate({"parsing": {"url_allow_hosts": ["169.254.169.254"]}})


def test_a_named_host_is_opened_but_not_what_it_does_not_name(connections):
    allow = AllowList.parse(["localhost"])
    assert check_url("http://localhost:9/", allow)
    with pytest.raises(BlockedAddress, match="url_allow_hosts"):
        check_url("http://127.0.0.1:9/", allow)  # same address, but the admin opened a name, not this
    assert connections == []  # deciding never connects


@pytest.mark.parametrize("url", ["file:///etc/passwd", "ftp://example.com/a", "gopher://x/", "dict://127.0.0.1:11211/"])
def test_other_schemes_say_only_http_and_https(url, connections):
    with pytest.raises(FetchError, match="only http and https") as err:
        check_url(url, AllowList.parse(["127.0.0.1"]))
    assert url.split("://")[0] + "://" in err.value.message
    assert connections == []


def test_the_youtube_path_goes_through_the_guard(server, connections):
    server.serve("/page", b"hello", "text/plain")
    server.redirect("/hop", METADATA)
    session = transcript_session(_ctx(url_allow_hosts=["127.0.0.1"]))
    assert session.get(server.url("/page")).text == "hello"  # a real request through the guarded adapter
    connections.clear()
    with pytest.raises(BlockedAddress, match="never fetched"):
        session.get(server.url("/hop"))  # requests follows the redirect; the guard refuses the hop
    with pytest.raises(BlockedAddress, match="url_allow_hosts"):
        session.get("http://10.0.0.1/")
    assert hosts(connections) == {"127.0.0.1"}
    closed = transcript_session(_ctx())
    connections.clear()
    with pytest.raises(BlockedAddress):
        closed.get(server.url("/page"))  # not opened: refused, not fetched
    assert connections == []


def test_an_engine_ingest_of_a_non_http_url_fails_alone(tmp_path, monkeypatch):
    monkeypatch.delenv("DATABASE_URL", raising=False)
    monkeypatch.delenv("QDRANT_URL", raising=False)
    from tests.engine.conftest import make_engine

    good = tmp_path / "good.md"
    good.write_text("# Good\n\nA good file about remote work and laptops.\n", encoding="utf-8")
    with make_engine(tmp_path / "data") as engine:
        engine.create_kb(SYSTEM_ACTOR, "kb")
        results = engine.ingest_paths(SYSTEM_ACTOR, "kb", ["file:///etc/passwd", "ftp://example.com/x", good])
    by_name = {r.name: r for r in results}
    assert by_name["file:///etc/passwd"].status == "failed"
    assert "only http and https" in by_name["file:///etc/passwd"].error
    assert "only http and https" in by_name["ftp://example.com/x"].error
    assert by_name["good.md"].status == "indexed"
