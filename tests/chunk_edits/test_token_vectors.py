"""An edit reaches the late-interaction channel too: in a knowledge base with token vectors (the real
e5 model), the edited chunk's stored token vectors are those of its new text."""

from __future__ import annotations

from core.embeddings.base import token_encoder
from core.ingest.service import Upload
from core.types import SYSTEM_ACTOR as ADMIN
from tests.chunk_edits.conftest import chunk_with, make

DOC = """# Facilities

## Parking

Visitors park in the north garage on level two.

## Lunch

The canteen serves lunch from noon to two.
"""
NEW = "Bicycles are stored in the basement cage next to the showers."


def test_an_edit_rewrites_the_chunks_token_vectors(data_dir, monkeypatch):
    engine = make(data_dir, monkeypatch, embedding={"provider": "local", "model": "multilingual-e5-small"})
    try:
        engine.create_kb(ADMIN, "kb")
        [result] = engine.ingest(ADMIN, "kb", [Upload("facilities.md", DOC.encode())])
        assert result.status == "indexed", result
        [rec] = engine.list_files(ADMIN, "kb")
        store, collection = engine._store, rec.collection
        assert store.token_dimension(collection) > 0  # the knowledge base holds token vectors
        parking = chunk_with(engine, rec.id, "north garage")
        encoder = token_encoder(engine._snapshot().embedder)
        query = encoder.query_tokens("where are bicycles stored").vectors.tolist()

        def late() -> float:
            return store.late_scores(collection, [parking.chunk_id], query)[parking.chunk_id]

        before = late()
        engine.edit_chunk(ADMIN, rec.id, parking.chunk_index, text=NEW)
        after = late()
        # MaxSim against the question: the new passage's tokens answer it, the old ones did not
        assert after > before + 0.05 * len(query), (before, after)
        [hit, *_] = engine.search(ADMIN, "where are bicycles stored", ["kb"], min_score=0.0).hits
        assert hit.text == NEW and hit.late is not None
    finally:
        engine.close()
