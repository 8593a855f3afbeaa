"""``jobs list|show|wait|cancel``, ``ingest --detach`` and ``worker``: the job queue from the CLI.

``jobs`` and ``ingest --detach`` open only the database and the blob folder — never the vector
store — so they work from any process, also while the dashboard holds the embedded store.
``worker`` runs queued jobs in this process; it needs the store (on the embedded default it is
refused while the dashboard holds it: the dashboard's own workers run the queue then).
"""

from __future__ import annotations

import argparse
import signal
import sys
import threading
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

from core.cli.context import emit
from core.errors import StoreBusy
from core.types import SYSTEM_ACTOR


@dataclass
class QueueSide:
    """The database and blob folder of a data folder: what enqueueing and reading jobs need."""

    db: object
    blobs: object
    box: object
    data_dir: Path

    def settings(self):
        from core.settings.store import SettingsStore

        return SettingsStore(self.db, box=self.box).current()


@contextmanager
def queue_side(args: argparse.Namespace) -> Iterator[QueueSide]:
    from core.config import RuntimeConfig
    from core.db.database import Database
    from core.ingest.blobs import BlobStore
    from core.secrets.box import SecretBox

    config = RuntimeConfig.from_env(args.data_dir)
    config.data_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
    db = Database(config.database_url)
    try:
        yield QueueSide(db, BlobStore(config.blobs_dir, config.parsed_dir, db), SecretBox.for_data_dir(config.data_dir),
                        config.data_dir)
    finally:
        db.dispose()


def job_row(j) -> dict:
    """The row of ``jobs list`` and ``jobs cancel`` (its shape is kept across releases)."""
    return {"id": j.id, "kind": j.kind, "state": j.state, "kb_id": j.kb_id, "done": j.progress_done,
            "total": j.progress_total, "message": j.message, "error": j.error, "updated_at": j.updated_at}


def job_detail(j) -> dict:
    return dict(job_row(j), name=(j.payload or {}).get("name", ""), file_id=j.file_id, attempts=j.attempts,
                worker_id=j.worker_id, cancel_requested=j.cancel_requested, created_at=j.created_at,
                started_at=j.started_at, finished_at=j.finished_at, result=j.result)


def _line(r: dict) -> str:
    return (f"{r['id']}  {r['kind']:<8} {r['state']:<10} {r['done']}/{r['total']}  {r['message']}".rstrip()
            + (f"  — {r['error']}" if r["error"] else ""))


def cmd_jobs(args: argparse.Namespace) -> int:
    from core.ingest import jobs as jobs_mod
    from core.jobs import queue

    with queue_side(args) as side:
        if args.jobs_command == "list":
            rows = [job_row(j) for j in jobs_mod.list_jobs(side.db, SYSTEM_ACTOR, active_only=args.active)]
            emit(args, rows, lambda rs: "\n".join(_line(r) for r in rs) or "no jobs")
        elif args.jobs_command == "show":
            emit(args, job_detail(queue.get(side.db, SYSTEM_ACTOR, args.job_id)),
                 lambda r: _line(r) + f"\n  attempts {r['attempts']}, worker {r['worker_id'] or '-'}")
        elif args.jobs_command == "wait":
            jobs, ended = queue.wait(side.db, SYSTEM_ACTOR, args.job_ids, args.timeout)
            rows = [job_row(j) for j in jobs]
            emit(args, {"finished": ended, "jobs": rows},
                 lambda r: "\n".join(_line(x) for x in r["jobs"]) + ("" if ended else "\n(timed out; still going)"))
            if not ended:
                return 2
            return 0 if all(j.state == "done" for j in jobs) else 1
        else:
            job = queue.cancel(side.db, SYSTEM_ACTOR, args.job_id)
            if job.state == "cancelled" and job.blob:
                from core.ingest.service import drop_unused_original

                drop_unused_original(side, job.blob)  # nothing else uses the waiting upload's original
            emit(args, job_row(job), lambda r: f"cancel requested for {r['kind']} job {r['id']} ({r['state']})")
    return 0


def cmd_ingest_detach(args: argparse.Namespace) -> int:
    """Store the files in the blob folder and queue one job each; print the job ids."""
    from core.accounts.access import resolve_kb
    from core.ingest import paths as paths_mod
    from core.ingest.service import IngestResult
    from core.jobs.submit import enqueue_uploads
    from core.upload_limits import UploadLimits

    with queue_side(args) as side:
        with side.db.read() as s:
            kb_id = resolve_kb(s, SYSTEM_ACTOR, args.kb, write=True).id
        queued: list[dict] = []

        def enqueue(uploads):
            ids = enqueue_uploads(side.db, side.blobs, SYSTEM_ACTOR, kb_id, uploads)
            queued.extend({"id": i, "name": u.name} for i, u in zip(ids, uploads))
            return [IngestResult(u.name, "queued", job_id=i) for i, u in zip(ids, uploads)]

        sources = [p if p.startswith(("http://", "https://")) else Path(p) for p in args.paths]
        results = paths_mod.ingest_paths(enqueue, sources, UploadLimits.of(side.settings()))
    refused = [{"name": r.name, "error": r.error} for r in results if r.status != "queued"]
    out = {"jobs": queued} | ({"refused": refused} if refused else {})
    emit(args, out, lambda o: "\n".join([f"queued  {j['id']}  {j['name']}" for j in o["jobs"]]
                                        + [f"refused {r['name']}  — {r['error']}" for r in o.get("refused", [])]))
    return 1 if refused else 0


def cmd_worker(args: argparse.Namespace) -> int:
    from core.config import RuntimeConfig
    from core.engine import Engine
    from core.jobs.worker import WorkerPool

    config = RuntimeConfig.from_env(args.data_dir)
    try:
        engine = Engine(config, store_wait_seconds=max(args.wait, 0.0))
    except StoreBusy as exc:
        raise StoreBusy(
            f"{exc.message.rstrip('.')}. Another process (the dashboard?) holds the embedded vector store, and its own "
            "workers run the queue: jobs queued with 'ingest --detach' are run there. Separate worker "
            "processes need a Qdrant server (QDRANT_URL) and PostgreSQL (DATABASE_URL); see docs/deploy.md."
        ) from None
    pool = WorkerPool(engine, args.concurrency, until_idle=args.until_idle, label="cli")
    stop = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: stop.set())
    try:
        if not args.until_idle:
            engine.start_sync_scheduler()  # the leader among all processes queues the due syncs
        print(f"worker: {args.concurrency} thread(s) on the job queue"
              + (" until it is empty" if args.until_idle else "; Ctrl-C or SIGTERM stops"), file=sys.stderr)
        pool.start()
        while pool.alive and not stop.is_set():
            stop.wait(0.2)
        # stopped by a signal: a running job stops at its next step and goes back to the queue
        # (another worker takes it); at the end of --until-idle nothing is running
        pool.stop(wait=True, interrupt=stop.is_set(), grace=15.0)
    finally:
        engine.stop_sync_scheduler()
        engine.close()
    emit(args, {"ran": pool.runs, "workers": pool.ids}, lambda r: f"ran {r['ran']} job(s)")
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    jobs = sub.add_parser("jobs", help="the job queue: list, show, wait for or cancel jobs (any process)")
    jobs.set_defaults(handler=cmd_jobs)
    js = jobs.add_subparsers(dest="jobs_command", required=True)
    js.add_parser("list").add_argument("--active", action="store_true", help="only queued and running jobs")
    js.add_parser("show").add_argument("job_id")
    w = js.add_parser("wait", help="until the jobs have finished (exit 0 all done, 1 some not, 2 timed out)")
    w.add_argument("job_ids", nargs="+")
    w.add_argument("--timeout", type=float, default=None, metavar="SECONDS")
    js.add_parser("cancel").add_argument("job_id")

    wk = sub.add_parser("worker", help="run queued jobs in this process (needs the vector store; see docs/deploy.md)")
    wk.add_argument("--concurrency", type=int, default=1, metavar="N", help="worker threads (default 1)")
    wk.add_argument("--until-idle", action="store_true", help="exit once nothing is queued or running")
    wk.set_defaults(handler=cmd_worker)
