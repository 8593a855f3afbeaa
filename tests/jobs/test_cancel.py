"""Cancel through the queue on the default (embedded) store: a running ingest or reindex ends
within 2 s of the request (while its embedding call is held at the server); a queued upload ends
at once, before any worker touched it, and its stored original goes."""

from __future__ import annotations

import time

from core.config import RuntimeConfig
from core.engine import Engine
from core.ingest.blobs import sha256_hex
from core.ingest.service import Upload
from core.types import SYSTEM_ACTOR as A
from tests.engine.conftest import HANDBOOK_MD, make_engine, md
from tests.fakes.embedding_server import Failure, fake_embedding_server, held
from tests.reliability.conftest import long_markdown

LIMIT_SECONDS = 2.0


def _api_engine(data_dir, srv) -> Engine:
    engine = Engine(RuntimeConfig.from_env(data_dir))
    engine.save_settings(A, {"embedding": {"provider": "openai", "base_url": srv.openai_url, "model": "fake-embed",
                                           "batch_size": 64},
                             "chunking": {"chunk_size": 60, "chunk_overlap": 0}})
    engine.create_kb(A, "kb")
    engine.embedder().dimension
    return engine


def _cancel_timed(engine: Engine, gate, kind: str) -> tuple[object, float]:
    assert gate.entered.wait(60), "the job never reached its second embedding call"
    [job] = [j for j in engine.jobs(A, active_only=True) if j.kind == kind]
    assert job.state == "running" and job.worker_id  # a queue worker runs it
    asked = time.monotonic()
    engine.cancel_job(A, job.id)
    while engine.job(A, job.id).state == "running" and time.monotonic() - asked < 20:
        time.sleep(0.02)
    return engine.job(A, job.id), time.monotonic() - asked


def test_cancel_of_a_running_ingest_takes_effect_within_two_seconds(data_dir, monkeypatch):
    monkeypatch.delenv("DATABASE_URL", raising=False)
    monkeypatch.delenv("QDRANT_URL", raising=False)
    with fake_embedding_server(dimension=16) as srv, _api_engine(data_dir, srv) as engine:
        gate = held()
        srv.fail_next(Failure(), gate)
        future = engine.submit_ingest(A, "kb", [Upload("big.md", long_markdown(400))])
        try:
            job, took = _cancel_timed(engine, gate, "ingest")
        finally:
            gate.gate.set()
        assert job.state == "cancelled" and took <= LIMIT_SECONDS, took
        [result] = future.result(timeout=60)
        assert result.status == "cancelled" and result.job_id == job.id
        assert engine.job(A, job.id).finished_at is not None


def test_cancel_of_a_running_reindex_takes_effect_within_two_seconds(data_dir, monkeypatch):
    monkeypatch.delenv("DATABASE_URL", raising=False)
    monkeypatch.delenv("QDRANT_URL", raising=False)
    with fake_embedding_server(dimension=16) as srv, _api_engine(data_dir, srv) as engine:
        [indexed] = engine.ingest(A, "kb", [Upload("big.md", long_markdown(400))])
        serving = engine.get_kb(A, "kb").collection
        gate = held()
        srv.fail_next(Failure(), gate)
        future = engine.submit_reindex(A, "kb")
        try:
            job, took = _cancel_timed(engine, gate, "reindex")
        finally:
            gate.gate.set()
        assert job.state == "cancelled" and took <= LIMIT_SECONDS, took
        assert future.result(timeout=60).status == "cancelled"
        assert engine._store.list_collections() == [serving]
        assert engine._store.count(serving, file_id=indexed.file_id) == indexed.chunks
        assert engine.doctor(A).healthy


def test_a_waiting_upload_is_cancelled_at_once_and_its_original_goes(data_dir, monkeypatch):
    monkeypatch.delenv("DATABASE_URL", raising=False)
    monkeypatch.delenv("QDRANT_URL", raising=False)
    with make_engine(data_dir, jobs={"dashboard_workers": 0}) as engine:  # nobody runs the queue here
        engine.create_kb(A, "kb")
        upload = md("handbook.md", HANDBOOK_MD)
        future = engine.submit_ingest(A, "kb", [upload])
        [job_id] = future.job_ids
        job = engine.job(A, job_id)
        assert job.state == "queued" and engine._blobs.has(sha256_hex(upload.data))  # stored as it arrived
        assert engine.cancel_job(A, job_id).state == "cancelled"
        [result] = future.result(timeout=10)
        assert result.status == "cancelled" and result.name == "handbook.md"
        assert not engine._blobs.has(sha256_hex(upload.data))
        engine.start_workers(1)  # a worker now finds nothing to run
        time.sleep(1.0)
        assert engine.job(A, job_id).state == "cancelled" and engine.list_files(A, "kb") == []
        assert engine.doctor(A).healthy
