"""What the services share: the data folder, the database, the vector store, the blob store, the
settings, the job watcher. Built once by ``core.engine.Engine``; each service is handed it (or
only the part it needs) and keeps its own state to itself."""

from __future__ import annotations

import logging
import threading
import weakref
from collections.abc import Callable
from concurrent.futures import Future

from core.config import RuntimeConfig
from core.db.database import Database
from core.embeddings.factory import make_embedder
from core.ingest.blobs import BlobStore
from core.ingest.parts import EngineParts, Snapshot
from core.jobs.futures import JobWatcher
from core.parsers.base import ParseContext
from core.retrieval.rerank import Reranker, make_reranker
from core.lru import Lru
from core.retrieval.query_cache import query_vectors
from core.searcher import Searcher
from core.secrets.box import SecretBox
from core.settings.model import Settings
from core.settings.store import SettingsStore, encrypt_plain_rows
from core.storage.data_folder import PrivateDataFolder, sqlite_path
from core.types import ParsedDoc
from core.vectorstore.factory import open_store

log = logging.getLogger("core.engine")


def parse_document(data: bytes, name: str, ctx: ParseContext) -> ParsedDoc:
    from core.parsers.registry import parse_bytes  # lazy: parsers pull heavy libraries

    return parse_bytes(data, name, ctx)


class Runtime:
    def __init__(self, config: RuntimeConfig, *, store_wait_seconds: float = 0.0, with_store: bool = True):
        """``with_store=False``: no vector store (``store`` is None), for operations over the database
        and blob folder alone (core/engine_database.py)."""
        self.config = config
        # ours alone (checked, tightened; umask 077 while open), see core/storage/data_folder.py
        self.data_folder = PrivateDataFolder(config.data_dir, sqlite_path(config.database_url), config.data_dir_link)
        weakref.finalize(self, self.data_folder.close)  # also when this constructor fails below
        # Other core modules keep their secrets with this box too (handed to them by the services).
        self.secret_box = SecretBox.for_data_dir(config.data_dir)
        self.db = Database(config.database_url)
        try:
            self.settings_store = SettingsStore(self.db, box=self.secret_box)
            encrypt_plain_rows(self.db, self.secret_box)  # keys an earlier release saved in plain text
            self.store = open_store(config.data_dir, config.qdrant_url, config.qdrant_api_key,
                                    wait_seconds=store_wait_seconds) if with_store else None
        except BaseException:  # e.g. StoreBusy: give the database connections back before the caller retries
            self.db.dispose()
            raise
        # the start-up check of a store server: named with its problem now, not at the first search
        self.store_problem = getattr(self.store, "unreachable", lambda: "")()
        if self.store_problem:
            log.warning("%s Searches, answers and indexing wait until it answers (the HTTP API says 503 "
                        "store_unavailable meanwhile); check QDRANT_URL and the server.", self.store_problem)
        self.blobs = BlobStore(config.blobs_dir, config.parsed_dir, self.db)
        self.parts = EngineParts(db=self.db, store=self.store, blobs=self.blobs, parse=parse_document,
                                 snapshot=self.snapshot)
        self.watcher = JobWatcher(self.db)  # the Futures of queued jobs
        self.start_workers: Callable[[], object] = lambda: None  # set by the engine (its worker threads)
        # this engine's own caches: another engine in the process never sees them
        self.query_vectors = query_vectors()
        self.citation_views: Lru = Lru(32)  # rendered citation pages, ~100-400 KB of PNG each
        self._reranker_lock = threading.Lock()
        self._reranker_key: tuple | None = None
        self._reranker: Reranker | None = None

    def settings(self) -> Settings:
        """The settings in force, secrets included: only for building providers inside core."""
        return self.settings_store.current()

    def snapshot(self) -> Snapshot:
        """The settings and embedder of one operation (an ingest batch, a reindex, a question)."""
        settings = self.settings()  # unmasked: providers are built from it; never leaves core
        return Snapshot(settings, make_embedder(settings.embedding))

    def searcher(self, snap: Snapshot) -> Searcher:
        return Searcher.build(self.store, self.db, snap.settings, snap.embedder, lambda: self.reranker(snap.settings),
                              self.query_vectors)

    def reranker(self, settings: Settings | None = None) -> Reranker | None:
        cfg = (settings or self.settings()).retrieval.reranker
        key = tuple(cfg.model_dump().values())
        with self._reranker_lock:
            if key != self._reranker_key:
                self._reranker, self._reranker_key = make_reranker(cfg), key
            return self._reranker

    def wake_workers(self) -> None:
        """Something was queued: this process's workers (started if need be) look now."""
        pool = self.start_workers()
        if pool is not None:
            pool.wake()

    def queued(self, job_ids: list[str]) -> Future:
        """A Future over jobs just queued; this process's workers are woken to run them."""
        self.wake_workers()
        return self.watcher.watch(job_ids)

    def close(self) -> None:
        self.watcher.close()
        if self.store is not None:
            self.store.close()
        self.db.dispose()
        self.data_folder.close()
