"""An engine whose chunks are small, so one page holds several citable passages."""

from __future__ import annotations

import pytest

from tests.engine.conftest import make_engine


@pytest.fixture
def engine(data_dir, monkeypatch):
    monkeypatch.delenv("DATABASE_URL", raising=False)
    monkeypatch.delenv("QDRANT_URL", raising=False)
    e = make_engine(data_dir, chunking={"chunk_size": 160, "chunk_overlap": 0})
    yield e
    e.close()


def chunk_with(engine, actor, file_id: str, words: str) -> dict:
    """The stored chunk of the file holding ``words``."""
    found = [c for c in engine.file_chunks(actor, file_id) if words in c["text"]]
    assert found, [c["text"] for c in engine.file_chunks(actor, file_id)]
    return found[0]
