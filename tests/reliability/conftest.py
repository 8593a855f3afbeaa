"""Engines for the reliability tests: the embedded store, or a Qdrant-server stand-in that can refuse."""

from __future__ import annotations

import pytest

from tests.engine.conftest import make_engine
from tests.fakes.qdrant_server import fake_qdrant_server


@pytest.fixture
def engine(data_dir, monkeypatch):
    monkeypatch.delenv("DATABASE_URL", raising=False)
    monkeypatch.delenv("QDRANT_URL", raising=False)
    e = make_engine(data_dir)
    yield e
    e.close()


@pytest.fixture
def served_store(data_dir, monkeypatch):
    """(engine, fake Qdrant server): the engine's vector store is the server stand-in."""
    monkeypatch.delenv("DATABASE_URL", raising=False)
    with fake_qdrant_server() as srv:
        monkeypatch.setenv("QDRANT_URL", srv.url)
        e = make_engine(data_dir)
        yield e, srv
        e.close()
