"""``ingest --detach`` and ``worker``: the job queue from the CLI (``jobs list|show|wait|cancel`` are
derived from the job service's operations, core/services/jobs.py).

``ingest --detach`` opens only the database and the blob folder — never the vector store — so it
works from any process, also while the dashboard holds the embedded store (so do ``jobs``:
``Cli(store=False)``).
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
    wk = sub.add_parser("worker", help="run queued jobs in this process (needs the vector store; see docs/deploy.md)")
    wk.add_argument("--concurrency", type=int, default=1, metavar="N", help="worker threads (default 1)")
    wk.add_argument("--until-idle", action="store_true", help="exit once nothing is queued or running")
    wk.set_defaults(handler=cmd_worker)
