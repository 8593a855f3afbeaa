"""Embedding is batched across files; failures and cancels stay per file or per group."""

from __future__ import annotations

import pytest

from core.config import RuntimeConfig
from core.engine import Engine
from core.ingest.service import Upload
from core.types import SYSTEM_ACTOR
from tests.fakes.embedding_server import fake_embedding_server, http_error

A = SYSTEM_ACTOR


@pytest.fixture
def api_engine(data_dir, monkeypatch):
    monkeypatch.delenv("DATABASE_URL", raising=False)
    with fake_embedding_server(dimension=64) as srv, Engine(RuntimeConfig.from_env(data_dir)) as engine:
        engine.save_settings(A, {"embedding": {"provider": "openai", "base_url": srv.openai_url, "model": "fake-embed",
                                               "batch_size": 4}})
        engine.create_kb(A, "kb")
        yield engine, srv


def _small_files(n: int) -> list[Upload]:
    return [Upload(f"faq{i}.md", f"问题{i}：报销第{i}类费用需要提供什么材料？答：发票原件{i}份。".encode()) for i in range(n)]


def test_small_files_share_embedding_batches(api_engine):
    engine, srv = api_engine
    engine.embedder().dimension  # the client learns the dimension once, before counting
    before = srv.embed_count
    results = engine.ingest(A, "kb", _small_files(10))
    assert [r.status for r in results] == ["indexed"] * 10 and sum(r.chunks for r in results) == 10
    assert srv.embed_count - before == 3  # ceil(10 / 4), not 10 requests
    assert srv.batch_sizes()[-3:] == [4, 4, 2]
    kb = engine.get_kb(A, "kb")
    assert engine._store.count(kb.collection) == 10


def test_an_embedding_outage_fails_the_group_cleanly_and_keeps_earlier_files(api_engine):
    engine, srv = api_engine
    [first] = engine.ingest(A, "kb", _small_files(1))
    srv.fail_next(http_error(503))
    results = engine.ingest(A, "kb", _small_files(6)[1:] + [Upload("broken.pdf", b"%PDF-1.4 nope")])
    by_name = {r.name: r for r in results}
    assert by_name["broken.pdf"].status == "failed" and "503" not in by_name["broken.pdf"].error  # its own reason
    batched = [r for r in results if r.name != "broken.pdf"]
    assert all(r.status == "failed" and "503" in r.error for r in batched)
    kb = engine.get_kb(A, "kb")
    assert engine._store.count(kb.collection) == first.chunks  # nothing half-indexed, the first file kept
    assert engine.doctor(A).healthy
    again = engine.ingest(A, "kb", _small_files(6)[1:])  # retry after the outage
    assert all(r.status == "indexed" for r in again)


def test_reindex_batches_across_files_like_ingest(api_engine):
    engine, srv = api_engine
    engine.ingest(A, "kb", _small_files(10))
    before = srv.embed_count
    result = engine.reindex(A, "kb")
    assert result.status == "done" and result.files == 10 and result.chunks == 10
    assert srv.embed_count - before == 3  # one path for ingest and reindex: shared batches of 4
    kb = engine.get_kb(A, "kb")
    assert engine._store.count(kb.collection) == 10 and engine.doctor(A).healthy


def test_doctor_rebuilds_missing_vectors_in_shared_batches(api_engine):
    engine, srv = api_engine
    results = engine.ingest(A, "kb", _small_files(6))
    kb = engine.get_kb(A, "kb")
    for r in results:
        engine._store.delete_file(kb.collection, r.file_id)  # vectors lost behind the database's back
    before = srv.embed_count
    engine.doctor(A, repair=True)
    assert srv.embed_count - before == 2  # ceil(6 / 4), not one request per file
    assert engine._store.count(kb.collection) == 6 and engine.doctor(A).healthy


def test_a_model_switch_during_an_ingest_does_not_mix_vectors(api_engine):
    engine, srv = api_engine
    switched = []

    def switch_model(name: str, done: int, total: int, message: str) -> None:
        if not switched:  # an admin saves another embedder while the batch is being embedded
            switched.append(name)
            engine.save_settings(A, {"embedding": {"provider": "local", "model": "hash-32"}})

    results = engine.ingest(A, "kb", _small_files(3), progress=switch_model)
    assert switched and [r.status for r in results] == ["indexed"] * 3
    kb = engine.get_kb(A, "kb")
    # The whole batch used the embedder it started with: one model, one dimension in the collection.
    assert kb.embedder_id == "openai/fake-embed"
    assert engine._store.dimension(kb.collection) == 64 and engine._store.count(kb.collection) == 3
    assert all(f.meta["embedder_id"] == kb.embedder_id for f in engine.list_files(A, "kb"))
    # The next batch sees the switch and refuses to add 32-d vectors to the 64-d index.
    from core.errors import ReindexNeeded

    with pytest.raises(ReindexNeeded):
        engine.ingest(A, "kb", _small_files(4)[3:])


def test_a_commit_refuses_vectors_of_a_model_the_knowledge_base_no_longer_expects(api_engine):
    from core.db.models import KnowledgeBase

    engine, _ = api_engine
    engine.ingest(A, "kb", _small_files(1))  # the index exists, built with openai/fake-embed
    kb = engine.get_kb(A, "kb")

    def rebuilt_elsewhere(*_args) -> None:
        # Another process switched this knowledge base to another model while our batch embedded.
        with engine._db.write() as s:
            row = s.get(KnowledgeBase, kb.id)
            row.embedder_id = "test/hash-64"
            s.add(row)

    [result] = engine.ingest(A, "kb", _small_files(2)[1:], progress=rebuilt_elsewhere)
    assert result.status == "failed"
    assert "expects test/hash-64" in result.error and "openai/fake-embed" in result.error
    assert engine._store.count(kb.collection, file_id=result.file_id) == 0  # no vector of it is left
