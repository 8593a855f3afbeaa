"""``core.Engine``: the one public entry to the engine. Pages, the CLI and tests call this.

The engine is a composition root: it opens what the services share (``core/services/runtime.py``)
and builds one service per responsibility (accounts, knowledge bases, files and ingest, jobs,
answers, chats, sources, curated answers, settings), then the plugins' services (Google Drive's
among them, core/services/plugin.py). Its public methods are not
written here: each is an operation a service declares (``core/services/declare.py``), put on the
class by ``core/services/facade.py`` with its access rule applied. Every operation that touches
user data takes the ``Actor`` asking and checks it.

The engine is thread-safe and meant to be shared: the dashboard serves all sessions from one
engine (the embedded vector store admits one process at a time). Long operations (``submit_*``)
go to the job queue in the database (core/jobs/); the engine's worker threads — or
``python -m core worker`` processes — run them, and the Future returned completes when the job
has finished, whichever process ran it.
"""

from __future__ import annotations

import logging
import threading
from pathlib import Path
from types import SimpleNamespace

from core.api.registry import invoke as invoke_api
from core.config import RuntimeConfig
from core.errors import StoreError, StoreUnavailable
from core.ingest import ready as ready_mod
from core.ingest import service as ingest_mod
from core.jobs import queue as job_queue
from core.jobs.worker import WorkerPool
from core.operations import OPERATIONS, PLUGIN_SERVICES
from core.services.accounts import AccountService
from core.services.answers import AnswerService
from core.services.api_bridge import ApiBridge
from core.services.assistants import AssistantService
from core.services.chats import ChatService
from core.services.chunk_edits import ChunkEditService
from core.services.curated import CuratedService
from core.services.facade import install_operations
from core.services.files import FileService
from core.services.jobs import JobService
from core.services.knowledge_bases import KnowledgeBaseService
from core.services.metadata import MetadataService
from core.services.runtime import Runtime
from core.services.openai_compat import OpenAICompatService
from core.services.plugin import build_plugin_services
from core.services.settings import SettingsService
from core.services.sources import SourceService

log = logging.getLogger(__name__)

class Engine:
    def __init__(self, config: RuntimeConfig, *, store_wait_seconds: float = 0.0, serve_handoff: bool = False):
        self.config = config
        self.runtime = rt = Runtime(config, store_wait_seconds=store_wait_seconds)
        rt.start_workers = self.start_workers
        accounts, kbs, chats = AccountService(rt), KnowledgeBaseService(rt), ChatService(rt)
        sources = SourceService(rt, accounts)
        answers = AnswerService(rt)
        assistants = AssistantService(rt, answers)
        own = dict(
            settings=SettingsService(rt), accounts=accounts, kbs=kbs, files=FileService(rt), jobs=JobService(rt),
            answers=answers, chats=chats, sources=sources, curated=CuratedService(rt),
            openai=OpenAICompatService(rt, answers, assistants), api=ApiBridge(self, invoke_api),
            chunk_edits=ChunkEditService(rt), metadata=MetadataService(rt), assistants=assistants)
        # plugins' services (Google Drive's too), handed the services they name (docs/plugins.md)
        self.services = SimpleNamespace(**own, **build_plugin_services(rt, own, PLUGIN_SERVICES))
        self._workers: WorkerPool | None = None  # started on the first submit, or by start_workers()
        self._workers_lock = threading.Lock()
        try:
            try:
                cleaned = ingest_mod.recover_interrupted(rt.parts)
                # indexed files whose points are not flagged searchable yet (core/ingest/ready.py)
                flagged = ready_mod.reconcile(rt.store, rt.db)
            except StoreUnavailable as exc:  # the server is away: start anyway, answer 503; the next start recovers
                log.warning("recovery after a stopped process postponed: %s", exc.message)
                cleaned, flagged = [], {}
        except BaseException:  # the store's lock and the database go back too: a retry can open them
            rt.store.close()
            rt.db.dispose()
            raise
        if cleaned:
            log.warning("cleaned up %d file(s) left half-indexed by a stopped process", len(cleaned))
        requeued = job_queue.release_dead(rt.db, rt.settings().jobs.max_attempts)
        if requeued:
            log.warning("queued again %d job(s) whose worker stopped", len(requeued))
        if flagged:
            log.warning("made %d indexed file(s) searchable that were not flagged yet",
                        sum(len(v) for v in flagged.values()))
        self._handoff = None
        if serve_handoff and not config.qdrant_url:
            from core.handoff.channel import HandoffServer

            try:
                self._handoff = HandoffServer(self, config.data_dir)
            except StoreError as exc:  # the dashboard still starts; the CLI then waits for the store
                log.warning("CLI hand-off not available: %s", exc.message)

    @classmethod
    def open(cls, data_dir: str | Path | None = None, *, store_wait_seconds: float = 0.0,
             serve_handoff: bool = False) -> "Engine":
        """``serve_handoff``: let CLI commands run in this process while it holds the embedded store."""
        return cls(RuntimeConfig.from_env(data_dir), store_wait_seconds=store_wait_seconds, serve_handoff=serve_handoff)

    def close(self, *, interrupt_jobs: bool = False, grace: float = 15.0) -> None:
        """``interrupt_jobs``: jobs running here stop at their next step and go back to the queue
        (a server being stopped: SIGTERM), instead of being let finish."""
        if self._handoff is not None:
            self._handoff.close()
        if not self.stop_workers(interrupt=interrupt_jobs, grace=grace if interrupt_jobs else None):
            # the store stays open under the job still running; the process is ending: its job
            # is queued again at the next start (its worker's process is gone)
            log.warning("a job did not stop within %.0f s; it runs again when ragdesk next starts", grace)
            return
        self.runtime.close()

    def __enter__(self) -> "Engine":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------ the job queue's workers here
    def start_workers(self, concurrency: int | None = None) -> WorkerPool | None:
        """Run queued jobs in this process (once; ``jobs.dashboard_workers`` threads unless
        given). The dashboard starts them when it opens the engine; a submit starts them too."""
        with self._workers_lock:
            if self._workers is None:
                n = self.runtime.settings().jobs.dashboard_workers if concurrency is None else concurrency
                if n <= 0:
                    return None  # worker processes run the queue
                self._workers = WorkerPool(self, n, on_finished=self.runtime.watcher.nudge).start()
            return self._workers

    def stop_workers(self, *, interrupt: bool = False, grace: float | None = None) -> bool:
        """No new claims; jobs running are let finish (or, with ``interrupt``, asked to stop at their
        next step and queued again); queued ones stay queued in the database. Whether the workers
        have all stopped (within ``grace`` seconds)."""
        with self._workers_lock:
            workers, self._workers = self._workers, None
        if workers is None:
            return True
        return workers.stop(wait=True, interrupt=interrupt, grace=grace)

    # ------------------------------------------------------------ the shared parts, for core's job
    # workers and for tests that look under the engine (the services hold them as ``Runtime``)
    @property
    def _db(self):
        return self.runtime.db

    @property
    def _store(self):
        return self.runtime.store

    @property
    def _blobs(self):
        return self.runtime.blobs

    @property
    def _parts(self):
        return self.runtime.parts

    @property
    def _secret_box(self):
        return self.runtime.secret_box

    def _settings(self):
        """The settings in force, secrets included: only for building providers inside core."""
        return self.runtime.settings()

    def _snapshot(self):
        return self.runtime.snapshot()

    def _searcher(self, snap):
        return self.runtime.searcher(snap)


install_operations(Engine, OPERATIONS)
