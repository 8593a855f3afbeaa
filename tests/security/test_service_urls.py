"""Threat: an admin-set service URL (language model, embedding API, reranker, Ollama) or the
environment's proxy used to reach the cloud metadata address. These clients connected wherever
their URL pointed (169.254.169.254, its IPv4-mapped IPv6 form), resolved a name again after any
check, and honoured HTTP(S)_PROXY/NO_PROXY with their own resolver.

Now every one goes through the one URL guard: a service may be private or loopback (a model
server on the LAN), never link-local or a metadata address; the name is resolved once and the
socket connects to the checked address; the environment's proxy is not used by them, and where
web search uses it, it gets a CONNECT tunnel to the checked address, never the name.

Nothing leaves loopback: the ``connections`` fixture stops (and records) any other connect()
before the system call, and one test runs the clients in a child process under the shared nettrap.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from core.embeddings.ollama_api import OllamaEmbedder
from core.embeddings.openai_api import OpenAIEmbedder
from core.errors import BlockedAddress, CoreError
from core.llm.ollama_chat import OllamaChatModel
from core.llm.openai_chat import OpenAIChatModel
from core.llm.base import ChatMessage
from core.retrieval.rerank import HttpReranker
from tests.fakes.connect_proxy import connect_proxy
from tests.fakes.llm_server import fake_llm_server, text
from tests.security.conftest import hosts
from tests.security.test_one_guard import ControlledDns, _web_search

METADATA_FORMS = ["169.254.169.254", "[::ffff:169.254.169.254]", "[::ffff:a9fe:a9fe]", "[fe80::1]",
                  "[64:ff9b::a9fe:a9fe]", "100.100.100.200"]


def _ask(model) -> str:
    return "".join(getattr(e, "text", "") for e in model.stream([ChatMessage(role="user", content="hi")]))


def _call(service: str, base: str):
    if service == "openai-llm":
        return _ask(OpenAIChatModel(base_url=f"{base}/v1", api_key="k", model="m", timeout=5))
    if service == "ollama-llm":
        return _ask(OllamaChatModel(base_url=base, model="fake-model", timeout=5))
    if service == "openai-embedding":
        return OpenAIEmbedder(base_url=f"{base}/v1", model="m", timeout=5).embed_query("hi")
    if service == "ollama-embedding":
        return OllamaEmbedder(base_url=base, model="m", timeout=5).embed_query("hi")
    return HttpReranker(f"{base}/rerank", timeout=5).score("q", ["a"])


SERVICES = ["openai-llm", "ollama-llm", "openai-embedding", "ollama-embedding", "reranker"]


@pytest.mark.parametrize("address", METADATA_FORMS)
@pytest.mark.parametrize("service", SERVICES)
def test_a_service_url_at_a_metadata_address_is_refused_before_connecting(service, address, connections):
    with pytest.raises(CoreError, match="never fetched"):
        _call(service, f"http://{address}")
    assert connections == []


@pytest.mark.parametrize("service", ["openai-llm", "ollama-llm"])
def test_a_service_on_loopback_is_reached_pinned_to_the_one_address_checked(service, connections, monkeypatch):
    with fake_llm_server([text("hello"), text("again")]) as server:
        port = server.url.rsplit(":", 1)[1]
        dns = ControlledDns(socket.getaddrinfo, "llm.rebind.test", ["127.0.0.1", "169.254.169.254"])
        monkeypatch.setattr(socket, "getaddrinfo", dns)
        base = f"http://llm.rebind.test:{port}"
        model = OpenAIChatModel(base_url=f"{base}/v1", api_key="k", model="fake-model", timeout=5) if service == "openai-llm" \
            else OllamaChatModel(base_url=base, model="fake-model", timeout=5)
        assert _ask(model) == "hello"
        assert dns.asked == 1 and hosts(connections) == {"127.0.0.1"}  # resolved once, connected there
        with pytest.raises(CoreError, match="never fetched"):  # a new client: the name now says metadata
            _ask(OpenAIChatModel(base_url=f"{base}/v1", api_key="k", model="fake-model", timeout=5) if service == "openai-llm"
                 else OllamaChatModel(base_url=base, model="fake-model", timeout=5))
        assert hosts(connections) == {"127.0.0.1"}


def test_services_ignore_the_environments_proxy(connections, monkeypatch):
    with connect_proxy() as proxy, fake_llm_server([text("direct")]) as server:
        for var in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"):
            monkeypatch.setenv(var, proxy.url)
        monkeypatch.delenv("NO_PROXY", raising=False)
        monkeypatch.delenv("no_proxy", raising=False)
        assert _ask(OpenAIChatModel(base_url=server.openai_url, api_key="k", model="fake-model", timeout=5)) == "direct"
        with pytest.raises(BlockedAddress, match="never fetched"):
            OpenAIEmbedder(base_url="http://169.254.169.254/v1", model="m", timeout=5).embed_query("hi")
    assert proxy.requests == []


@pytest.fixture
def fake():
    from tests.websearch.fake_engines import fake_engines

    with fake_engines() as srv:
        srv.results("q", [("https://example.org/a", "A", "snippet a")])
        yield srv


def _rebinding_engine(fake, monkeypatch) -> tuple[dict, ControlledDns]:
    port = fake.base.rsplit(":", 1)[1]
    dns = ControlledDns(socket.getaddrinfo, "searx.rebind.test", ["127.0.0.1", "169.254.169.254"])
    monkeypatch.setattr(socket, "getaddrinfo", dns)
    settings = {**fake.settings("searxng"), "searxng_query_url": f"http://searx.rebind.test:{port}/search?q=<query>",
                "web_search_trust_env": True}
    return settings, dns


def test_with_environment_proxies_a_no_proxy_engine_is_still_connected_at_the_checked_address(
        fake, connections, monkeypatch):
    with connect_proxy() as proxy:
        monkeypatch.setenv("HTTP_PROXY", proxy.url)
        monkeypatch.setenv("NO_PROXY", "searx.rebind.test")  # the client goes direct: with its own resolver?
        settings, dns = _rebinding_engine(fake, monkeypatch)
        context, _ = _web_search(settings, url_allow_hosts=["searx.rebind.test"])
    assert context.error == "" and len(context.passages) == 1
    assert dns.asked == 1 and hosts(connections) == {"127.0.0.1"} and proxy.requests == []


def test_through_the_environments_proxy_the_tunnel_goes_to_the_checked_address_not_the_name(
        fake, connections, monkeypatch):
    with connect_proxy() as proxy:
        monkeypatch.setenv("HTTP_PROXY", proxy.url)
        monkeypatch.delenv("NO_PROXY", raising=False)
        monkeypatch.delenv("no_proxy", raising=False)
        settings, dns = _rebinding_engine(fake, monkeypatch)
        context, _ = _web_search(settings, url_allow_hosts=["searx.rebind.test"])
        port = fake.base.rsplit(":", 1)[1]
        assert context.error == "" and len(context.passages) == 1
        assert proxy.requests == [f"CONNECT 127.0.0.1:{port} HTTP/1.1"]  # never the name: no second resolution
        context, _ = _web_search(settings, url_allow_hosts=["searx.rebind.test"])  # now it says metadata
        assert "never fetched" in context.error and len(proxy.requests) == 1
    assert hosts(connections) == {"127.0.0.1"}


def test_a_proxy_at_a_metadata_address_is_never_dialled(fake, connections, monkeypatch):
    monkeypatch.setenv("HTTP_PROXY", "http://169.254.169.254:3128")
    monkeypatch.delenv("NO_PROXY", raising=False)
    monkeypatch.delenv("no_proxy", raising=False)
    settings = {**fake.settings("searxng"), "web_search_trust_env": True}
    context, _ = _web_search(settings, url_allow_hosts=["127.0.0.1"])
    assert "never fetched" in context.error and connections == [] and fake.engine_calls == []


NETTRAP = Path("/work/shared/tools/nettrap")


@pytest.mark.skipif(not NETTRAP.is_dir(), reason="the shared nettrap is not on this machine")
def test_under_the_nettrap_no_service_client_reaches_the_metadata_address(tmp_path):
    """A child process with the shared socket trap loaded: every client is pointed at the metadata
    address in its IPv4 and mapped IPv6 forms; the trap's log must stay empty (it records any
    connection outside loopback, which would mean the guard let it through)."""
    log = tmp_path / "nettrap.log"
    script = (
        "import sys\n"
        "from tests.security.test_service_urls import SERVICES, _call\n"
        "from core.errors import CoreError\n"
        "for service in SERVICES:\n"
        "    for base in ('http://169.254.169.254', 'http://[::ffff:169.254.169.254]'):\n"
        "        try:\n"
        "            _call(service, base)\n"
        "        except CoreError as exc:\n"
        "            print(service, 'refused:', exc.message)\n"
    )
    root = Path(__file__).resolve().parents[2]
    env = {**os.environ, "PYTHONPATH": f"{NETTRAP}:{root}", "NETTRAP_LOG": str(log)}
    done = subprocess.run([sys.executable, "-c", script], env=env, cwd=root, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert not log.exists() or log.read_text() == ""
    assert done.stdout.count("never fetched") == 2 * len(SERVICES), done.stdout
