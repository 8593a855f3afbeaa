"""A real engine (hash embedder, embedded Qdrant, SQLite) with one knowledge base, for the sources."""

from __future__ import annotations

import pytest

from core.types import SYSTEM_ACTOR
from tests.engine.conftest import make_engine


@pytest.fixture
def engine(data_dir, monkeypatch):
    for var in ("DATABASE_URL", "QDRANT_URL", "QDRANT_API_KEY", "RAGDESK_SECRET_KEY"):
        monkeypatch.delenv(var, raising=False)
    e = make_engine(data_dir)
    e.create_kb(SYSTEM_ACTOR, "kb")
    yield e
    e.close()


def kb_text(engine, actor, kb: str) -> str:
    """Every chunk the knowledge base answers from, after checking no vector is left of a file that is gone."""
    files = [f for f in engine.list_files(actor, kb) if f.status == "indexed"]
    assert engine._store.count(engine.get_kb(actor, kb).collection) == sum(f.chunk_count for f in files)
    return "\n".join(c["text"] for f in files for c in engine.file_chunks(actor, f.id))
