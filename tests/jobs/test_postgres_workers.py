"""Two worker processes on one PostgreSQL queue and one vector store they can share (the
Qdrant-server stand-in, which speaks Qdrant's HTTP API; the embedded store admits one process):
they claim disjoint jobs; one is SIGKILLed while its job waits on an embedding call, the other
finishes that job; every file is indexed once and no job ran to the end twice."""

from __future__ import annotations

import json
import signal
from collections import Counter

from core.config import RuntimeConfig
from core.db.database import Database
from core.engine import Engine
from core.types import SYSTEM_ACTOR as A
from tests.fakes.embedding_server import fake_embedding_server, held
from tests.fakes.qdrant_server import fake_qdrant_server
from tests.jobs.conftest import cli_env, files_of, jobs_of, run, start, tiny_docs, wait_for

N = 8


def test_two_workers_share_the_queue_and_a_killed_workers_job_is_finished_by_the_other(
        postgres_url, data_dir, tmp_path, monkeypatch):
    with fake_qdrant_server() as qdrant, fake_embedding_server(dimension=16) as emb:
        monkeypatch.setenv("DATABASE_URL", postgres_url)
        monkeypatch.setenv("QDRANT_URL", qdrant.url)
        with Engine(RuntimeConfig.from_env(data_dir)) as engine:
            engine.save_settings(A, {"embedding": {"provider": "openai", "base_url": emb.openai_url,
                                                   "model": "fake-embed"},
                                     "jobs": {"ingest_batch_files": 1, "lease_seconds": 5}})
            engine.create_kb(A, "kb")
            engine.embedder().dimension
        env = cli_env(data_dir, DATABASE_URL=postgres_url, QDRANT_URL=qdrant.url)
        del env["RAGDESK_EMBEDDING__PROVIDER"], env["RAGDESK_EMBEDDING__MODEL"]  # the saved settings apply
        paths = tiny_docs(tmp_path / "docs", N)
        ids = [j["id"] for j in json.loads(run(env, "--json", "ingest", "--kb", "kb", "--detach",
                                               *map(str, paths)).stdout)["jobs"]]
        db = Database(postgres_url)
        gate = held()
        emb.fail_next(gate)  # the first embedding call of any worker waits at the server
        workers = [start(env, "worker"), start(env, "worker")]
        try:
            assert gate.entered.wait(120), "no worker reached an embedding call"
            # the other worker goes on meanwhile; the held job is the one running since before those
            wait_for(lambda: sum(j.state == "done" for j in jobs_of(db)) >= 2, 120, "the other worker's jobs")
            running = [j for j in jobs_of(db) if j.state == "running"]
            assert running, [(j.state, j.attempts, j.error, j.message) for j in jobs_of(db)]
            held_job = min(running, key=lambda j: j.started_at)
            by_pid = {p.pid: p for p in workers}
            victim = by_pid[held_job.pid]
            victim.send_signal(signal.SIGKILL)
            victim.wait(30)
            survivor = next(p for p in workers if p is not victim)
            wait_for(lambda: all(j.state == "done" for j in jobs_of(db)), 180, "every job done by the survivor")
        finally:
            gate.gate.set()
            for p in workers:
                if p.poll() is None:
                    p.send_signal(signal.SIGTERM)
                    p.wait(60)
        try:
            jobs = {j.id: j for j in jobs_of(db)}
            assert set(jobs) == set(ids)
            again = jobs[held_job.id]
            assert again.attempts == 2 and again.state == "done" and str(survivor.pid) in again.worker_id
            assert all(j.attempts == 1 for j in jobs.values() if j.id != held_job.id)  # nothing else ran twice
            workers_used = Counter(j.worker_id.split(":")[1] for j in jobs.values())
            assert len(workers_used) >= 1
            files = files_of(db)
            assert Counter(f.name for f in files) == Counter(p.name for p in paths)  # each file indexed once
            assert {f.status for f in files} == {"indexed"}
        finally:
            db.dispose()
        with Engine(RuntimeConfig.from_env(data_dir)) as engine:
            for f in files:  # the killed attempt's vectors are gone: exactly each file's chunks
                assert engine._store.count(f.collection, file_id=f.id) == f.chunk_count
            assert engine.doctor(A).healthy
