"""The doctor finds and repairs disagreements between the database and the vector store."""

from __future__ import annotations

from core.ingest.pipeline import point_id
from core.retrieval import bm25
from core.types import SYSTEM_ACTOR, VectorPoint
from core.vectorstore.base import kb_collection
from tests.engine.conftest import HANDBOOK_MD, POLICY_MD, md

A = SYSTEM_ACTOR


def _stray_point(file_id: str, kb_id: str, dim: int) -> VectorPoint:
    return VectorPoint(id=point_id(file_id, 0), dense=[1.0] + [0.0] * (dim - 1), sparse=bm25.encode_document("stray"),
                       payload={"file_id": file_id, "kb_id": kb_id, "chunk_index": 0, "text": "stray", "source_name": "x"})


def test_orphan_vectors_and_collections_are_found_and_repaired(engine):
    engine.create_kb(A, "kb")
    engine.ingest(A, "kb", [md("h.md", HANDBOOK_MD)])
    kb = engine.get_kb(A, "kb")
    engine._store.upsert(kb.collection, [_stray_point("deadbeef" * 4, kb.id, kb.dimension)])
    leftover = kb_collection(kb.id, 99)  # an interrupted reindex
    engine._store.create_collection(leftover, kb.dimension)
    engine._store.create_collection("other_app_data", 4)  # not ours: never judged

    report = engine.doctor(A)
    assert not report.healthy
    assert report.orphan_collections == [leftover]
    assert list(report.orphan_vectors) == [f"{kb.collection}/{'deadbeef' * 4}"]

    repaired = engine.doctor(A, repair=True)
    assert repaired.repaired
    assert engine.doctor(A).healthy
    assert not engine._store.collection_exists(leftover)
    assert engine._store.collection_exists("other_app_data")
    assert engine._store.count(kb.collection, file_id="deadbeef" * 4) == 0


def test_missing_vectors_are_rebuilt_from_the_parsed_text(engine):
    engine.create_kb(A, "kb")
    keep, lost = engine.ingest(A, "kb", [md("h.md", HANDBOOK_MD), md("p.md", POLICY_MD)])
    kb = engine.get_kb(A, "kb")
    engine._store.delete_file(kb.collection, lost.file_id)  # vectors gone behind the database's back

    report = engine.doctor(A)
    assert report.missing_vectors == [lost.file_id]
    engine.doctor(A, repair=True)
    assert engine._store.count(kb.collection, file_id=lost.file_id) == lost.chunks
    assert engine.doctor(A).healthy
    assert engine.search(A, "一线城市住宿费", ["kb"], min_score=0).hits[0].file_id == lost.file_id


def test_orphan_original_is_removed(engine):
    engine.create_kb(A, "kb")
    engine._blobs.put(b"an upload whose database row never got written")
    report = engine.doctor(A)
    assert len(report.orphan_blobs) == 1
    engine.doctor(A, repair=True)
    assert engine.doctor(A).healthy
