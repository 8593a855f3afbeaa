"""Engines for the reliability tests: the embedded store (with or without a knowledge base), a
Qdrant-server stand-in that can refuse, or an embedding server that can hold and slow requests.
Hostile or oversized inputs are generated (tests/reliability/hostile.py)."""

from __future__ import annotations

import pytest

from core.config import RuntimeConfig
from core.engine import Engine
from core.types import SYSTEM_ACTOR as A
from tests.engine.conftest import make_engine
from tests.fakes.embedding_server import fake_embedding_server
from tests.fakes.qdrant_server import fake_qdrant_server


@pytest.fixture
def engine(data_dir, monkeypatch):
    monkeypatch.delenv("DATABASE_URL", raising=False)
    monkeypatch.delenv("QDRANT_URL", raising=False)
    e = make_engine(data_dir)
    yield e
    e.close()


@pytest.fixture
def kb_engine(engine):
    """The embedded engine with one knowledge base, ``kb``."""
    engine.create_kb(A, "kb")
    return engine


@pytest.fixture
def served_store(data_dir, monkeypatch):
    """(engine, fake Qdrant server): the engine's vector store is the server stand-in."""
    monkeypatch.delenv("DATABASE_URL", raising=False)
    with fake_qdrant_server() as srv:
        monkeypatch.setenv("QDRANT_URL", srv.url)
        e = make_engine(data_dir)
        yield e, srv
        e.close()


@pytest.fixture
def api_engine(data_dir, monkeypatch):
    """(engine, fake embedding server): embeddings come from a local OpenAI-shaped server that
    can hold or slow requests; batches of 4 chunks of about 60 characters."""
    monkeypatch.delenv("DATABASE_URL", raising=False)
    monkeypatch.delenv("QDRANT_URL", raising=False)
    with fake_embedding_server(dimension=16) as srv, Engine(RuntimeConfig.from_env(data_dir)) as e:
        e.save_settings(A, {
            "embedding": {"provider": "openai", "base_url": srv.openai_url, "model": "fake-embed", "batch_size": 4},
            "chunking": {"chunk_size": 60, "chunk_overlap": 0}})
        e.create_kb(A, "kb")
        e.embedder().dimension  # the client learns the dimension before a test counts requests
        yield e, srv


def long_markdown(sections: int, word: str = "topic") -> bytes:
    """A document of ``sections`` short sections: one chunk each at 60 characters."""
    return "\n\n".join(f"## Part {i}\n\nPart {i} is about {word} {i}." for i in range(sections)).encode()


def leftovers(engine, file_id: str) -> dict:
    """What a file left behind anywhere: points in any collection, parsed text, running jobs."""
    store = engine._store
    points = {c: store.count(c, file_id=file_id) for c in store.list_collections()}
    running = [j for j in engine.jobs(A, active_only=True) if j.file_id == file_id]
    return {"points": {c: n for c, n in points.items() if n}, "parsed": engine._blobs.get_parsed(file_id) is not None,
            "running_jobs": len(running)}
