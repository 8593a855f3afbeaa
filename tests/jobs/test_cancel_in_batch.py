"""Cancel one file of a batch a worker claimed (16 uploads of one knowledge base go together): it ends
within 2 s — its job finished, its file cancelled with no vector — while the batch's embedding call
is still held at the server; the rest of the batch is indexed as if nothing happened."""

from __future__ import annotations

import time

from core.config import RuntimeConfig
from core.engine import Engine
from core.ingest.service import Upload
from core.jobs import queue
from core.types import SYSTEM_ACTOR as A
from tests.fakes.embedding_server import Failure, fake_embedding_server, held

LIMIT_SECONDS = 2.0
N = 40


def _notes() -> list[Upload]:
    return [Upload(f"note_{i:02d}.md", f"# Note {i}\n\nThe heron number {i} fishes at pond {i * 3}.\n".encode())
            for i in range(N)]


def test_cancelling_one_file_of_a_claimed_batch_ends_it_within_two_seconds(data_dir, monkeypatch):
    monkeypatch.delenv("DATABASE_URL", raising=False)
    monkeypatch.delenv("QDRANT_URL", raising=False)
    with fake_embedding_server(dimension=16) as srv:
        engine = Engine(RuntimeConfig.from_env(data_dir))
        try:
            engine.save_settings(A, {"embedding": {"provider": "openai", "base_url": srv.openai_url,
                                                   "model": "fake-embed", "batch_size": 64},
                                     "jobs": {"dashboard_workers": 1, "ingest_batch_files": 16}})
            engine.create_kb(A, "kb")
            engine.embedder().dimension
            gate = held()
            srv.fail_next(Failure(), gate)  # the first batch's embedding call waits at the server
            future = engine.submit_ingest(A, "kb", _notes())
            assert gate.entered.wait(60), "the first batch never reached its embedding call"
            running = [j for j in engine.jobs(A, ids=future.job_ids) if j.state == "running"]
            assert len(running) == 16  # one claim: the batch
            victim = sorted(running, key=lambda j: j.payload["name"])[8]  # one in the middle of the batch
            name = victim.payload["name"]
            asked = time.monotonic()
            engine.cancel_job(A, victim.id)
            while not queue.finished(engine.job(A, victim.id)) and time.monotonic() - asked < 10:
                time.sleep(0.02)
            took = time.monotonic() - asked
            ended = engine.job(A, victim.id)
            gate.gate.set()
            assert queue.finished(ended) and took <= LIMIT_SECONDS, took
            assert ended.state == "cancelled" and "cancelled" in ended.message, (ended.state, ended.message)
            results = future.result(timeout=120)
        finally:
            gate.gate.set()
            engine.close()
        engine = Engine(RuntimeConfig.from_env(data_dir))
        try:
            by_name = {r.name: r for r in results}
            assert by_name[name].status == "cancelled"
            assert {r.status for n, r in by_name.items() if n != name} == {"indexed"}
            files = {f.name: f for f in engine.list_files(A, "kb")}
            assert files[name].status == "cancelled" and len(files) == N
            collection = engine.get_kb(A, "kb").collection
            assert engine._store.count(collection, file_id=files[name].id) == 0
            assert engine.doctor(A).healthy
        finally:
            engine.close()
