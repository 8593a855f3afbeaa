"""A knowledge base's own chunking: stored on the knowledge base, used by ingest, applied to
existing files by a reindex; an old database gains the new column at start-up."""

from __future__ import annotations

import sqlite3

import pytest

from core.db.database import Database, sqlite_url
from core.errors import InvalidInput, PermissionDenied
from core.types import SYSTEM_ACTOR
from tests.engine.conftest import make_engine, md

LONG = "# 规定\n\n" + "\n\n".join(f"第{i}条 员工出差须遵守本办法的各项规定，费用据实报销，发票须真实有效。" for i in range(1, 40))


def _lengths(engine, kb) -> list[int]:
    return [len(c["text"]) for f in engine.list_files(SYSTEM_ACTOR, kb) for c in engine.file_chunks(SYSTEM_ACTOR, f.id)]


def test_own_chunking_is_used_by_ingest_and_applied_by_reindex(data_dir):
    with make_engine(data_dir) as engine:
        engine.create_kb(SYSTEM_ACTOR, "small")
        engine.set_kb_chunking(SYSTEM_ACTOR, "small", {"chunk_size": 120, "chunk_overlap": 10})
        engine.ingest(SYSTEM_ACTOR, "small", [md("a.md", LONG)])
        small = _lengths(engine, "small")
        assert max(small) <= 120 and len(small) > 5
        kb = engine.get_kb(SYSTEM_ACTOR, "small")
        assert kb.chunking["chunk_size"] == 120 and engine.kb_chunking(kb).chunk_size == 120
        engine.set_kb_chunking(SYSTEM_ACTOR, "small", {"chunk_size": 400, "chunk_overlap": 20})
        result = engine.reindex(SYSTEM_ACTOR, "small")
        assert result.status == "done"
        bigger = _lengths(engine, "small")
        assert len(bigger) < len(small) and max(bigger) > 120
        engine.set_kb_chunking(SYSTEM_ACTOR, "small", {})  # back to the global settings
        assert engine.kb_chunking(engine.get_kb(SYSTEM_ACTOR, "small")) == engine.settings().chunking


def test_bad_or_forbidden_chunking_is_refused(data_dir):
    with make_engine(data_dir) as engine:
        engine.create_kb(SYSTEM_ACTOR, "kb")
        with pytest.raises(InvalidInput, match="must be smaller than chunk_size"):
            engine.set_kb_chunking(SYSTEM_ACTOR, "kb", {"chunk_size": 100, "chunk_overlap": 100})
        with pytest.raises(InvalidInput, match="can set only"):
            engine.set_kb_chunking(SYSTEM_ACTOR, "kb", {"size_unit": 1})
        engine.sign_up("admin", "correct horse 1")
        user = engine.actor_for(engine.sign_up("bob", "correct horse 1").id)
        engine.update_kb(SYSTEM_ACTOR, "kb", visibility="public")
        with pytest.raises(PermissionDenied):
            engine.set_kb_chunking(user, engine.get_kb(SYSTEM_ACTOR, "kb").id, {"chunk_size": 300})


def test_an_older_database_gains_the_new_column(tmp_path):
    path = tmp_path / "old.db"
    with sqlite3.connect(path) as conn:  # a knowledgebase table as an earlier ragdesk made it
        conn.execute("CREATE TABLE knowledgebase (id VARCHAR PRIMARY KEY, name VARCHAR, description VARCHAR, "
                     "owner_id VARCHAR, visibility VARCHAR, full_document BOOLEAN, collection VARCHAR, "
                     "collection_version INTEGER, embedder_id VARCHAR, dimension INTEGER, sparse_encoder VARCHAR, "
                     "chunking JSON, created_at DATETIME, updated_at DATETIME)")
        conn.execute("INSERT INTO knowledgebase (id, name, owner_id, visibility) VALUES ('k1', 'old', 'u', 'private')")
    db = Database(sqlite_url(path))
    from core.db.models import KnowledgeBase

    with db.read() as s:
        kb = s.get(KnowledgeBase, "k1")
    assert kb.name == "old" and not kb.chunking_override
    db.dispose()
