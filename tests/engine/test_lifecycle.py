"""Knowledge-base lifecycle through the real engine: embedded Qdrant, SQLite, real chunking."""

from __future__ import annotations

import pytest

from core.errors import AlreadyExists, NotFound, ReindexNeeded
from core.ingest.service import Upload
from core.types import SYSTEM_ACTOR
from tests.engine.conftest import HANDBOOK_MD, POLICY_MD, md

A = SYSTEM_ACTOR


def test_ingest_then_search_finds_the_right_chunk_in_chinese_and_english(engine):
    engine.create_kb(A, "policies")
    results = engine.ingest(A, "policies", [md("差旅.md", POLICY_MD), md("handbook.md", HANDBOOK_MD)])
    assert [r.status for r in results] == ["indexed", "indexed"]
    assert all(r.chunks > 0 for r in results)

    hits = engine.search(A, "一线城市住宿费每晚不超过多少", ["policies"], min_score=0).hits
    assert hits and "六百元" in hits[0].text
    assert hits[0].source_name == "差旅.md"
    assert hits[0].heading_path and "住宿" in " ".join(hits[0].heading_path)

    hits = engine.search(A, "how many days remote work per week", ["policies"], min_score=0).hits
    assert hits and "three days per week" in hits[0].text


def test_every_chunk_is_stored_with_dense_and_payload(engine):
    engine.create_kb(A, "kb")
    [res] = engine.ingest(A, "kb", [md("差旅.md", POLICY_MD)])
    chunks = engine.file_chunks(A, res.file_id)
    assert len(chunks) == res.chunks
    assert [c["chunk_index"] for c in chunks] == list(range(res.chunks))
    for c in chunks:
        assert c["file_id"] == res.file_id and c["source_name"] == "差旅.md" and c["text"].strip()
    kb = engine.get_kb(A, "kb")
    assert engine._store.count(kb.collection) == res.chunks


def test_same_content_twice_is_reported_present_but_may_live_in_two_kbs(engine):
    engine.create_kb(A, "one")
    engine.create_kb(A, "two")
    [first] = engine.ingest(A, "one", [md("a.md", HANDBOOK_MD)])
    [again] = engine.ingest(A, "one", [md("renamed.md", HANDBOOK_MD)])
    assert again.status == "duplicate" and again.file_id == first.file_id and "a.md" in again.error
    [other] = engine.ingest(A, "two", [md("a.md", HANDBOOK_MD)])
    assert other.status == "indexed" and other.file_id != first.file_id
    assert len(engine.list_files(A, "one")) == 1


def test_the_same_content_twice_in_one_upload_is_indexed_once(engine):
    # both are registered in one commit: the second finds the first's row of the same transaction
    engine.create_kb(A, "kb")
    first, twin, other = engine.ingest(A, "kb", [md("a.md", HANDBOOK_MD), md("copy of a.md", HANDBOOK_MD),
                                                 md("b.md", POLICY_MD)])
    assert (first.status, twin.status, other.status) == ("indexed", "duplicate", "indexed")
    assert twin.file_id == first.file_id and "a.md" in twin.error
    assert sorted(f.name for f in engine.list_files(A, "kb")) == ["a.md", "b.md"]
    assert engine.doctor(A).healthy


def test_deleting_a_file_removes_every_vector(engine):
    engine.create_kb(A, "kb")
    keep, gone = engine.ingest(A, "kb", [md("keep.md", HANDBOOK_MD), md("gone.md", POLICY_MD)])
    kb = engine.get_kb(A, "kb")
    assert engine._store.count(kb.collection, file_id=gone.file_id) == gone.chunks > 0
    [result] = engine.delete_files(A, [gone.file_id])
    assert result.status == "deleted"
    assert engine._store.count(kb.collection, file_id=gone.file_id) == 0
    assert engine._store.count(kb.collection) == keep.chunks
    assert engine.doctor(A).healthy
    assert not engine.search(A, "住宿费", ["kb"], mode="bm25", min_score=0).hits


def test_one_bad_file_fails_alone(engine):
    engine.create_kb(A, "kb")
    uploads = [md(f"doc{i}.md", HANDBOOK_MD.replace("Employee", f"Employee {i}")) for i in range(9)]
    uploads.insert(4, Upload("broken.pdf", b"%PDF-1.4\n this is not really a pdf"))
    results = engine.ingest(A, "kb", uploads)
    statuses = [r.status for r in results]
    assert statuses.count("indexed") == 9 and statuses[4] == "failed"
    assert results[4].error and "Traceback" not in results[4].error
    failed = engine.list_files(A, "kb", status="failed")
    assert [f.name for f in failed] == ["broken.pdf"] and failed[0].error == results[4].error
    kb = engine.get_kb(A, "kb")
    assert engine._store.count(kb.collection, file_id=results[4].file_id) == 0


def test_rename_and_delete_kb_drops_its_collection(engine):
    engine.create_kb(A, "old")
    engine.ingest(A, "old", [md("h.md", HANDBOOK_MD)])
    kb = engine.update_kb(A, "old", name="new")
    assert engine.get_kb(A, "new").id == kb.id
    with pytest.raises(NotFound):
        engine.get_kb(A, "old")
    with pytest.raises(AlreadyExists):
        engine.create_kb(A, "new")
    collection = kb.collection
    assert engine._store.collection_exists(collection)
    engine.delete_kb(A, "new")
    assert not engine._store.collection_exists(collection)
    assert engine.list_files(A) == []
    assert engine.doctor(A).healthy


def test_reindex_switches_to_a_new_collection_and_handles_a_dimension_change(engine):
    engine.create_kb(A, "kb")
    engine.ingest(A, "kb", [md("差旅.md", POLICY_MD)])
    before = engine.get_kb(A, "kb")
    engine.save_settings(A, {"embedding": {"model": "hash-32"}, "chunking": {"chunk_size": 120, "chunk_overlap": 10}})
    with pytest.raises(ReindexNeeded, match="reindex"):
        engine.search(A, "住宿费", ["kb"])
    with pytest.raises(ReindexNeeded):
        engine.ingest(A, "kb", [md("h.md", HANDBOOK_MD)])
    result = engine.reindex(A, "kb")
    assert result.status == "done", result.error
    after = engine.get_kb(A, "kb")
    assert after.collection != before.collection and after.dimension == 32
    assert not engine._store.collection_exists(before.collection)
    assert engine._store.dimension(after.collection) == 32
    assert engine._store.count(after.collection) == result.chunks > 0
    hits = engine.search(A, "一线城市住宿费", ["kb"], min_score=0).hits
    assert hits and "六百元" in hits[0].text
    assert engine.doctor(A).healthy


def test_a_cancelled_reindex_leaves_the_old_index_serving(engine):
    engine.create_kb(A, "kb")
    engine.ingest(A, "kb", [md(f"h{i}.md", HANDBOOK_MD + f"\n\nappendix {i}") for i in range(3)])
    before = engine.get_kb(A, "kb")

    cancelled = {}

    def cancel_on_first_progress(done, total, message):
        if not cancelled:
            job = engine.jobs(A, active_only=True)[0]
            cancelled["job"] = engine.cancel_job(A, job.id)

    result = engine.reindex(A, "kb", progress=cancel_on_first_progress)
    assert result.status == "cancelled"
    after = engine.get_kb(A, "kb")
    assert after.collection == before.collection
    assert engine._store.list_collections() == [before.collection]
    assert engine.search(A, "laptop monitor headset", ["kb"], min_score=0).hits
    assert engine.jobs(A, ids=[result.job_id])[0].state == "cancelled"


def test_chunk_settings_change_applies_to_new_files_without_reindex(engine):
    engine.create_kb(A, "kb")
    [big] = engine.ingest(A, "kb", [md("p.md", POLICY_MD)])
    engine.save_settings(A, {"chunking": {"chunk_size": 80, "chunk_overlap": 0}})
    [small] = engine.ingest(A, "kb", [md("p2.md", POLICY_MD + "\n\n第七条 附则。")])
    assert small.chunks > big.chunks


def test_reindex_progress_moves_while_its_one_group_is_embedded(engine):
    """Issue 18: the reindex bar stayed empty for the whole run (files counted only after their
    group, and one group often holds every file). Progress is in chunks, embedded of expected."""
    engine.save_settings(A, {"chunking": {"chunk_size": 120, "chunk_overlap": 0}, "embedding": {"batch_size": 4}})
    engine.create_kb(A, "kb")
    engine.ingest(A, "kb", [md(f"h{i}.md", HANDBOOK_MD + f"\n\nappendix {i}") for i in range(3)])
    expected = sum(f.chunk_count for f in engine.list_files(A, "kb"))
    seen: list[tuple[int, int]] = []
    result = engine.reindex(A, "kb", progress=lambda done, total, message: seen.append((done, total)))
    assert result.status == "done" and result.chunks == expected
    moving = [(d, t) for d, t in seen if 0 < d < t]
    assert moving, f"progress never moved between 0 and the total: {seen}"
    assert all(d <= t for d, t in seen) and seen[-1] == (expected, expected)
