"""Web search fixtures: the fake engine server, an engine with a small knowledge base, and the ONE
place that opens the SSRF guard for the test host (127.0.0.1)."""

from __future__ import annotations

import pytest

from core.types import SYSTEM_ACTOR
from tests.answering.conftest import configure  # noqa: F401 (re-exported for the tests)
from tests.engine.conftest import HANDBOOK_MD, make_engine, md
from tests.websearch.fake_engines import fake_engines


# The parsing settings that let the URL loader reach the fake server on 127.0.0.1. Today the only
# switch is ``url_allow_private`` (it opens every private address); when ``parsing.url_allow_hosts``
# lands this becomes {"url_allow_hosts": ["127.0.0.1"]}. Tests of refused addresses never use it.
GUARD_OPEN_FOR_TEST_HOST = {"url_allow_private": True}


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
