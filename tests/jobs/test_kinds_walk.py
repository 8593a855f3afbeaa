"""Every job kind runs on a queue worker: each ``submit_*`` of the engine queues a row that a
worker of the pool claims (its id on the row, one attempt), and no executor of its own, thread
or scheduler outside the queue runs the work (the engine holds no executor; the threads alive
are the queue's, the Future watcher and the embedder's call thread inside a job)."""

from __future__ import annotations

import threading
from concurrent.futures import Executor

from core.engine import Engine
from core.ingest.service import Upload
from core.jobs.kinds import KINDS
from core.jobs.worker import THREAD_PREFIX
from core.types import SYSTEM_ACTOR as A
from tests.engine.conftest import HANDBOOK_MD, make_engine, md

# Thread names allowed to be alive besides the main thread: the queue's workers and heartbeat,
# the Future watcher, the one embedding call of a running job (core/ingest/pipeline.py).
# The queue's own threads, and helpers a job's own step waits on (the embed call it can cancel,
# the OCR of one page under its time limit, the process's one torch thread that runs a local
# model's calls for whoever waits on them): none of them takes work of its own.
ALLOWED = (THREAD_PREFIX, "ragdesk-job-watch", "ragdesk-embed", "ragdesk-ocr", "ragdesk-torch")


def _submit_each_kind(engine: Engine) -> dict:
    engine.create_kb(A, "kb")
    futures = {"ingest": engine.submit_ingest(A, "kb", [md("handbook.md", HANDBOOK_MD)])}
    futures["ingest"].result(timeout=60)
    [bad] = engine.ingest(A, "kb", [Upload("broken.pdf", b"%PDF-1.4 not really a pdf")])
    assert bad.status == "failed"
    futures["retry"] = engine.submit_retry(A, bad.file_id)[1]
    futures["reindex"] = engine.submit_reindex(A, "kb")
    source = engine._parts  # a web-pages source row to sync (its page is unreachable: the sync reports it)
    from core.sources import service as sources

    row = sources.find_or_create(source, A, kind="web", kb_ref="kb", config={"urls": ["http://127.0.0.1:9/x"]},
                                 title="Web pages: 1", watch=False)
    futures["sync"] = engine.submit_sync_source(A, row.id)
    futures["gdrive_import"] = engine.submit_gdrive_import(A, "kb", ["some-drive-file"])
    futures["repair"] = engine.submit_repair(A)
    return futures


def test_every_job_kind_runs_on_a_queue_worker_and_nothing_else_runs_work(data_dir, monkeypatch):
    monkeypatch.delenv("DATABASE_URL", raising=False)
    monkeypatch.delenv("QDRANT_URL", raising=False)
    with make_engine(data_dir) as engine:
        assert not [v for v in vars(engine).values() if isinstance(v, Executor)]  # no executor of its own
        futures = _submit_each_kind(engine)
        assert set(futures) == set(KINDS), "a new job kind: walk it here too"
        for kind, future in futures.items():
            try:
                future.result(timeout=120)
            except Exception:  # e.g. Drive not connected: the job failed, on the queue all the same
                pass
            [job_id] = future.job_ids
            job = engine.job(A, job_id)
            assert job.kind == kind and job.finished_at is not None, (kind, job.state, job.error)
            assert job.worker_id in engine._workers.ids and job.attempts == 1, (kind, job.worker_id)
        others = [t.name for t in threading.enumerate()
                  if t is not threading.main_thread() and not t.name.startswith(ALLOWED)]
        assert not [n for n in others if n.startswith("ragdesk")], others
