"""The issue's "Done when": 20 files queued with ``ingest --detach`` while no worker runs stay
queued; a worker process SIGKILLed after its first file, then ``worker --until-idle``: all 20
indexed, each once, no job left running, the doctor healthy (SQLite + the embedded store: each
worker process opens the store itself, one at a time)."""

from __future__ import annotations

import json
import signal
from collections import Counter

from core.db.database import Database
from core.config import RuntimeConfig
from tests.jobs.conftest import cli_env, files_of, jobs_of, run, start, tiny_docs, wait_for

N = 20


def test_detached_uploads_survive_a_killed_worker_and_are_indexed_once(data_dir, tmp_path, monkeypatch):
    monkeypatch.delenv("DATABASE_URL", raising=False)
    env = cli_env(data_dir, RAGDESK_JOBS__INGEST_BATCH_FILES="1")  # one file per claim: the kill lands between files
    run(env, "kb", "create", "notes")
    paths = tiny_docs(tmp_path / "docs", N)
    out = json.loads(run(env, "--json", "ingest", "--kb", "notes", "--detach", *map(str, paths)).stdout)
    ids = [j["id"] for j in out["jobs"]]
    assert len(ids) == N and len(set(ids)) == N

    db = Database(RuntimeConfig.from_env(data_dir).database_url)
    try:
        assert Counter(j.state for j in jobs_of(db)) == {"queued": N}  # nobody runs them yet
        assert files_of(db) == []
        listed = json.loads(run(env, "--json", "jobs", "list", "--active").stdout)
        assert sorted(r["id"] for r in listed) == sorted(ids) and {r["state"] for r in listed} == {"queued"}

        first = start(env, "worker")
        try:
            wait_for(lambda: any(j.state == "done" for j in jobs_of(db)), 120, "the first file indexed")
            first.send_signal(signal.SIGKILL)
            first.wait(30)
        finally:
            if first.poll() is None:
                first.kill()
        at_kill = Counter(j.state for j in jobs_of(db))
        assert at_kill["done"] < N, f"the worker finished everything before the kill: {at_kill}"

        done = run(env, "--json", "worker", "--until-idle")
        assert json.loads(done.stdout)["ran"] >= N - at_kill["done"]

        jobs = jobs_of(db)
        assert Counter(j.state for j in jobs) == {"done": N}, [(j.state, j.error) for j in jobs]
        files = files_of(db)
        assert Counter(f.name for f in files) == Counter(p.name for p in paths)  # each file once
        assert {f.status for f in files} == {"indexed"}
        assert all(j.file_id in {f.id for f in files} for j in jobs)
        assert not [j for j in jobs if j.state == "running"]
        doctor = json.loads(run(env, "--json", "doctor").stdout)
        assert doctor["healthy"], doctor
        kb = json.loads(run(env, "--json", "kb", "list").stdout)[0]
        assert kb["files"] == N and kb["vectors"] == kb["chunks"] > 0
    finally:
        db.dispose()


def test_a_second_worker_is_refused_while_another_process_holds_the_embedded_store(data_dir, monkeypatch):
    monkeypatch.delenv("DATABASE_URL", raising=False)
    env = cli_env(data_dir)
    run(env, "kb", "create", "notes")
    holder = start(env, "worker")  # holds the store, like the dashboard would
    try:
        db = Database(RuntimeConfig.from_env(data_dir).database_url)
        wait_for(lambda: holder.stderr and _store_held(data_dir), 60, "the first worker to open the store")
        db.dispose()
        refused = run(env, "--wait", "0", "worker", "--until-idle", check=False)
        assert refused.returncode != 0
        assert "holds the embedded vector store" in refused.stderr and "QDRANT_URL" in refused.stderr
        queued = json.loads(run(env, "--json", "jobs", "list").stdout)  # the queue is still readable
        assert isinstance(queued, list)
    finally:
        holder.send_signal(signal.SIGTERM)
        holder.wait(60)


def _store_held(data_dir) -> bool:
    from core.errors import StoreBusy
    from core.vectorstore.factory import open_store

    try:
        store = open_store(data_dir, None, None, wait_seconds=0)
    except StoreBusy:
        return True
    store.close()
    return False
