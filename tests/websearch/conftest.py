"""Web search fixtures: the fake engine server, an engine with a small knowledge base, and the ONE
place that opens the SSRF guard for the test host (127.0.0.1)."""

from __future__ import annotations

import ipaddress
import sys
import threading

import pytest

from core.types import SYSTEM_ACTOR
from tests.answering.conftest import configure  # noqa: F401 (re-exported for the tests)
from tests.engine.conftest import HANDBOOK_MD, make_engine, md
from tests.websearch.fake_engines import fake_engines


# The parsing settings that let the engine calls and the URL loader reach the fake server on
# 127.0.0.1: the test host opened the way an admin opens a self-hosted engine. Tests of refused
# addresses never use it.
GUARD_OPEN_FOR_TEST_HOST = {"url_allow_hosts": ["127.0.0.1"]}


def open_guard_for_test_host(engine) -> None:
    engine.save_settings(SYSTEM_ACTOR, {"parsing": dict(GUARD_OPEN_FOR_TEST_HOST)})


@pytest.fixture
def fake():
    with fake_engines() as srv:
        yield srv


@pytest.fixture
def engine(data_dir, monkeypatch):
    monkeypatch.delenv("DATABASE_URL", raising=False)
    monkeypatch.delenv("QDRANT_URL", raising=False)
    e = make_engine(data_dir)
    e.create_kb(SYSTEM_ACTOR, "handbook")
    results = e.ingest(SYSTEM_ACTOR, "handbook", [md("handbook.md", HANDBOOK_MD)])
    assert all(r.status == "indexed" for r in results), results
    yield e
    e.close()


# ---------------------------------------------------------------- nothing leaves the machine
# Every socket connect and name lookup made during a web search test is recorded (an audit hook:
# process-wide and permanent, it records only while a test runs; a connect beyond loopback is also
# stopped before the system call) and checked afterwards: only
# 127.0.0.1 / ::1 may be dialled, and no name but localhost may be looked up (an IP literal needs
# no DNS packet). A test can read what was dialled through the ``network_log`` fixture.
_LOG: list[tuple[str, object]] = []
_RECORDING = threading.Event()
_LOCAL = {"127.0.0.1", "::1", "localhost"}


def _audit(event: str, args: tuple) -> None:
    if not _RECORDING.is_set():
        return
    if event == "socket.connect":
        _LOG.append(("connect", args[1]))
        if not _is_local("connect", args[1]):  # stopped before the system call: a failing guard sends no packet
            raise ConnectionRefusedError(f"test safety: no connection beyond loopback ({args[1][0]})")
    elif event == "socket.getaddrinfo":
        _LOG.append(("lookup", args[0]))


sys.addaudithook(_audit)


def _is_local(kind: str, target: object) -> bool:
    if kind == "connect":
        return not isinstance(target, tuple) or target[0] in _LOCAL  # a str/bytes target is a Unix socket
    host = target.decode() if isinstance(target, bytes) else str(target)
    try:
        ipaddress.ip_address(host.strip("[]").split("%")[0])
        return True  # a literal: resolved without the network (connects are checked separately)
    except ValueError:
        return host in _LOCAL


@pytest.fixture
def network_log() -> list[tuple[str, object]]:
    return _LOG


@pytest.fixture(autouse=True)
def nothing_leaves_the_machine():
    _LOG.clear()
    _RECORDING.set()
    yield
    _RECORDING.clear()
    outside = [(kind, target) for kind, target in _LOG if not _is_local(kind, target)]
    assert not outside, f"a web search test reached beyond 127.0.0.1: {outside}"
