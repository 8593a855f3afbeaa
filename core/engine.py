"""``core.Engine``: the one public entry to the engine. Pages, the CLI and tests call this.

Every method that touches user data takes the ``Actor`` asking and checks it. The engine
is thread-safe and meant to be shared: the dashboard serves all sessions from one engine
(the embedded vector store admits one process at a time).

Long operations (``submit_*``) go to the job queue in the database (core/jobs/); the
engine's worker threads — or ``python -m core worker`` processes — run them, and the Future
returned completes when the job has finished, whichever process ran it.
"""

from __future__ import annotations

import logging
import threading
import time
import weakref
from concurrent.futures import Future
from pathlib import Path
from typing import Callable

from sqlmodel import select

from core import doctor as doctor_mod
from core import knowledge
from core.accounts.access import check_file, require_admin, resolve_kb
from core.config import RuntimeConfig
from core.curated.methods import CuratedMethods
from core.storage.data_folder import PrivateDataFolder, sqlite_path
from core.db.database import Database
from core.db.models import FileRecord, Job, KnowledgeBase
from core.embeddings.base import Embedder
from core.engine_accounts import AccountMethods
from core.engine_drive import DriveMethods
from core.embeddings.factory import make_embedder
from core.errors import StoreError
from core.ingest import jobs as jobs_mod
from core.ingest import paths as paths_mod
from core.ingest import ready as ready_mod
from core.ingest import reindex as reindex_mod
from core.ingest import service as ingest_mod
from core.ingest.blobs import BlobStore
from core.ingest.parts import EngineParts, Snapshot
from core.ingest.service import IngestResult, Upload
from core.jobs import queue as job_queue
from core.jobs.futures import JobWatcher
from core.jobs.submit import enqueue_one, enqueue_uploads
from core.jobs.worker import WorkerPool
from core.limits import check_question, check_search
from core.llm.factory import provider_for
from core.parsers.base import ParseContext
from core.retrieval import search as search_mod
from core.retrieval.rerank import Reranker, make_reranker
from core.searcher import Searcher
from core.secrets.box import SecretBox
from core.settings.model import Settings
from core.settings.store import SettingsStore, mask_secret_fields, masked
from core.types import Actor, ParsedDoc
from core.vectorstore.factory import open_store

log = logging.getLogger(__name__)


def _parse(data: bytes, name: str, ctx: ParseContext) -> ParsedDoc:
    from core.parsers.registry import parse_bytes  # lazy: parsers pull heavy libraries

    return parse_bytes(data, name, ctx)


class Engine(AccountMethods, DriveMethods, CuratedMethods):
    def __init__(self, config: RuntimeConfig, *, store_wait_seconds: float = 0.0, serve_handoff: bool = False):
        self.config = config
        # ours alone (checked, tightened; umask 077 while open), see core/storage/data_folder.py
        self._data_folder = PrivateDataFolder(config.data_dir, sqlite_path(config.database_url))
        weakref.finalize(self, self._data_folder.close)  # also when this constructor fails below
        # Other core modules keep their secrets with this box too (handed to them by the engine).
        self._secret_box = SecretBox.for_data_dir(config.data_dir)
        self._db = Database(config.database_url)
        try:
            self._settings_store = SettingsStore(self._db, box=self._secret_box)
            self._store = open_store(config.data_dir, config.qdrant_url, config.qdrant_api_key, wait_seconds=store_wait_seconds)
        except BaseException:  # e.g. StoreBusy: give the database connections back before the caller retries
            self._db.dispose()
            raise
        self._blobs = BlobStore(config.blobs_dir, config.parsed_dir)
        self._parts = EngineParts(db=self._db, store=self._store, blobs=self._blobs, parse=_parse, snapshot=self._snapshot)
        self._watcher = JobWatcher(self._db)  # the Futures of queued jobs
        self._workers: WorkerPool | None = None  # started on the first submit, or by start_workers()
        self._workers_lock = threading.Lock()
        self._reranker_lock = threading.Lock()
        self._reranker_key: tuple | None = None
        self._reranker: Reranker | None = None
        self._context_providers: list = []  # normal-mode extra context sources (web search)
        try:
            cleaned = ingest_mod.recover_interrupted(self._parts)
            # indexed files whose points are not flagged searchable yet (core/ingest/ready.py)
            flagged = ready_mod.reconcile(self._store, self._db)
        except BaseException:  # the store's lock and the database go back too: a retry can open them
            self._store.close()
            self._db.dispose()
            raise
        if cleaned:
            log.warning("cleaned up %d file(s) left half-indexed by a stopped process", len(cleaned))
        requeued = job_queue.release_dead(self._db, self._settings().jobs.max_attempts)
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

    def close(self) -> None:
        if self._handoff is not None:
            self._handoff.close()
        self.stop_workers()
        self._watcher.close()
        self._store.close()
        self._db.dispose()
        self._data_folder.close()

    def __enter__(self) -> "Engine":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------ settings & models
    def _settings(self) -> Settings:
        """The settings in force, secrets included: only for building providers inside core."""
        return self._settings_store.current()

    def settings(self) -> Settings:
        """The settings in force now, secrets masked (a change saved by any process applies on the next call)."""
        return Settings.model_validate(masked(self._settings()))

    def settings_masked(self) -> dict:
        return masked(self._settings())

    def settings_overridden(self) -> dict:
        """Settings set by the environment (locked in the UI), secrets masked."""
        return mask_secret_fields(self._settings_store.overridden())

    def save_settings(self, actor: Actor, patch: dict) -> Settings:
        require_admin(actor, "change settings")
        return self._settings_store.save(patch, saved_by=actor.name or actor.user_id)

    def embedder(self) -> Embedder:
        return make_embedder(self._settings().embedding)

    def _snapshot(self) -> Snapshot:
        """The settings and embedder of one operation (an ingest batch, a reindex, a question)."""
        settings = self._settings()  # unmasked: providers are built from it; never leaves core
        return Snapshot(settings, make_embedder(settings.embedding))

    def _searcher(self, snap: Snapshot) -> Searcher:
        return Searcher.build(self._store, self._db, snap.settings, snap.embedder, lambda: self.reranker(snap.settings))

    def reranker(self, settings: Settings | None = None) -> Reranker | None:
        cfg = (settings or self._settings()).retrieval.reranker
        key = tuple(cfg.model_dump().values())
        with self._reranker_lock:
            if key != self._reranker_key:
                self._reranker, self._reranker_key = make_reranker(cfg), key
            return self._reranker

    def status(self) -> dict:
        """What the header strip shows: mode, models, store, thresholds."""
        s = self.settings()
        return {
            "mode": "strict" if s.strict.rag_strict_mode else "normal",
            "embedder": f"{s.embedding.provider}/{s.embedding.model}",
            "llm": "extractive (no LLM configured)" if provider_for(s.llm).quotes_only else f"{s.llm.provider}/{s.llm.model}",
            "vector_store": "Qdrant server" if self.config.qdrant_url else "embedded Qdrant (edge)",
            "database": "PostgreSQL" if not self._db.is_sqlite else "SQLite",
            "strict_min_similarity": s.strict.rag_strict_min_similarity,
            "strict_max_results": s.strict.rag_strict_max_results,
            "min_similarity": s.retrieval.rag_min_similarity,
            "max_results": s.retrieval.rag_max_results,
            "llm_provider": s.llm.provider,  # pages word these in the user's language
            "store_kind": "server" if self.config.qdrant_url else "embedded",
        }


    # ------------------------------------------------------------ knowledge bases
    def create_kb(self, actor: Actor, name: str, description: str = "", visibility: str = "private") -> KnowledgeBase:
        return knowledge.create_kb(self._db, actor, name, description, visibility)

    def list_kbs(self, actor: Actor) -> list[KnowledgeBase]:
        return knowledge.list_kbs(self._db, actor)

    def get_kb(self, actor: Actor, ref: str) -> KnowledgeBase:
        return knowledge.get_kb(self._db, actor, ref)

    def kb_stats(self, actor: Actor, ref: str) -> dict:
        return knowledge.kb_stats(self._db, self._store, actor, ref)

    def update_kb(self, actor: Actor, ref: str, **changes) -> KnowledgeBase:
        return knowledge.update_kb(self._db, actor, ref, **changes)

    def share_kb(self, actor: Actor, ref: str, user_names: list[str]) -> list[str]:
        return knowledge.share_kb(self._db, actor, ref, user_names)

    def shared_with(self, actor: Actor, ref: str) -> list[str]:
        return knowledge.shared_with(self._db, actor, ref)

    def set_kb_chunking(self, actor: Actor, ref: str, override: dict | None) -> KnowledgeBase:
        """A knowledge base's own chunk size / overlap / min-size target ({} = the global ones);
        a reindex applies it to the files already there."""
        from core.ingest.kb_chunking import set_kb_chunking

        return set_kb_chunking(self._parts, actor, ref, override)

    def kb_chunking(self, kb: KnowledgeBase):
        """The chunking settings this knowledge base's next ingest or reindex uses."""
        from core.ingest.kb_chunking import effective_chunking

        return effective_chunking(self.settings(), kb.chunking_override)

    def delete_kb(self, actor: Actor, ref: str) -> None:
        knowledge.delete_kb(self._parts, actor, ref)

    # ------------------------------------------------------------ files
    def ingest(self, actor: Actor, kb: str, uploads: list[Upload],
               progress: Callable[[str, int, int, str], None] | None = None) -> list[IngestResult]:
        return ingest_mod.ingest(self._parts, self._snapshot(), actor, kb, uploads, progress)

    def ingest_paths(self, actor: Actor, kb: str, paths: list[Path | str],
                     progress: Callable[[str, int, int, str], None] | None = None) -> list[IngestResult]:
        """Files, folders and URLs named on the server (the CLI): admins only — it reads the server's disk."""
        require_admin(actor, "ingest files from the server's disk")
        return paths_mod.ingest_paths(lambda uploads: self.ingest(actor, kb, uploads, progress), paths,
                                      self._settings().parsing.max_upload_mb)

    def submit_ingest(self, actor: Actor, kb: str, uploads: list[Upload]) -> Future:
        """Ingest in the background: each upload is stored and queued as a job now (its id in
        ``future.job_ids``); progress and cancel go through ``jobs()`` / ``cancel_job()``."""
        with self._db.read() as s:  # fail now, in the caller, for unknown or forbidden knowledge bases
            kb_id = resolve_kb(s, actor, kb, write=True).id
        return self._queued(enqueue_uploads(self._db, self._blobs, actor, kb_id, uploads))

    # ------------------------------------------------------------ the job queue's workers here
    def start_workers(self, concurrency: int | None = None) -> WorkerPool | None:
        """Run queued jobs in this process (once; ``jobs.dashboard_workers`` threads unless
        given). The dashboard starts them when it opens the engine; a submit starts them too."""
        with self._workers_lock:
            if self._workers is None:
                n = self._settings().jobs.dashboard_workers if concurrency is None else concurrency
                if n <= 0:
                    return None  # worker processes run the queue
                self._workers = WorkerPool(self, n, on_finished=self._watcher.nudge).start()
            return self._workers

    def stop_workers(self) -> None:
        """No new claims; jobs running are let finish; queued ones stay queued in the database."""
        with self._workers_lock:
            workers, self._workers = self._workers, None
        if workers is not None:
            workers.stop(wait=True)

    def _queued(self, job_ids: list[str]) -> Future:
        pool = self.start_workers()
        if pool is not None:
            pool.wake()
        return self._watcher.watch(job_ids)

    def job(self, actor: Actor, job_id: str) -> Job:
        return job_queue.get(self._db, actor, job_id)

    def wait_jobs(self, actor: Actor, job_ids: list[str], timeout: float | None = None) -> tuple[list[Job], bool]:
        """The jobs once all have finished or at ``timeout``: (jobs, all finished)."""
        return job_queue.wait(self._db, actor, job_ids, timeout)

    def list_files(self, actor: Actor, kb: str | None = None, status: str | None = None) -> list[FileRecord]:
        with self._db.read() as s:
            q = select(FileRecord).order_by(FileRecord.created_at.desc())
            if kb is not None:
                q = q.where(FileRecord.kb_id == resolve_kb(s, actor, kb).id)
            else:
                # Chat files are their owner's alone, admins included; an admin sees every KB file.
                own_chat_files = (FileRecord.kb_id.is_(None)) & (FileRecord.owner_id == actor.user_id)
                if actor.is_admin:
                    q = q.where((FileRecord.kb_id.is_not(None)) | own_chat_files)
                else:
                    visible = [k.id for k in knowledge.list_kbs(self._db, actor)]
                    q = q.where((FileRecord.kb_id.in_(visible)) | own_chat_files)
            if status:
                q = q.where(FileRecord.status == status)
            return list(s.exec(q))

    def get_file(self, actor: Actor, file_id: str) -> FileRecord:
        with self._db.read() as s:
            return check_file(s, actor, s.get(FileRecord, file_id), file_id)

    def file_chunks(self, actor: Actor, file_id: str) -> list[dict]:
        """The stored chunks of a file in order (the chunk inspector)."""
        rec = self.get_file(actor, file_id)
        if rec.status != "indexed" or not self._store.collection_exists(rec.collection):
            return []
        return [dict(p.payload, chunk_id=p.id) for p in self._store.scroll_file(rec.collection, rec.id)]

    def file_text(self, actor: Actor, file_id: str) -> ParsedDoc | None:
        rec = self.get_file(actor, file_id)
        return self._blobs.get_parsed(rec.id)

    def delete_files(self, actor: Actor, file_ids: list[str]) -> list[IngestResult]:
        return ingest_mod.delete_files(self._parts, actor, file_ids)

    def file_original(self, actor: Actor, file_id: str) -> tuple[str, bytes]:
        """(name, bytes as uploaded) of a file the actor may read (the download button)."""
        from core.ingest.originals import original

        return original(self._parts, actor, file_id)

    def citation_view(self, actor: Actor, file_id: str, passage: str, *, page: int | None = None,
                      slide: int | None = None, heading_path: tuple[str, ...] | list[str] = ()):
        """Where a cited passage stands in its file (the PDF page rendered with it highlighted, the
        slide, the sheet rows, the surrounding text), for an actor who may read the file."""
        from core.citations.service import citation_view  # lazy: rendering pulls in Pillow

        return citation_view(self._parts, actor, file_id, passage, page=page, slide=slide,
                             heading_path=tuple(heading_path or ()))

    def submit_retry(self, actor: Actor, file_id: str) -> tuple[str, Future]:
        """Send a failed or cancelled file through ingest again: (knowledge base id, Future)."""
        from core.ingest.originals import retry_upload

        kb_id, upload = retry_upload(self._parts, actor, file_id)  # refused now when it cannot be retried
        return kb_id, self._queued(enqueue_uploads(self._db, self._blobs, actor, kb_id, [upload], kind="retry"))

    def parse(self, data: bytes, name: str) -> ParsedDoc:
        return _parse(data, name, ParseContext(settings=self.settings().parsing))

    # ------------------------------------------------------------ jobs, reindex, doctor
    def jobs(self, actor: Actor, ids: list[str] | None = None, active_only: bool = False) -> list[Job]:
        return jobs_mod.list_jobs(self._db, actor, ids=ids, active_only=active_only)

    def cancel_job(self, actor: Actor, job_id: str) -> Job:
        """A queued job ends at once; a running one stops at its next step (within a second)."""
        job = job_queue.cancel(self._db, actor, job_id)
        if job.state == "cancelled" and job.blob:
            ingest_mod.drop_unused_original(self._parts, job.blob)
        return job

    def reindex(self, actor: Actor, kb: str, progress: Callable[[int, int, str], None] | None = None):
        return reindex_mod.reindex(self._parts, self._snapshot(), actor, kb, progress)

    def submit_reindex(self, actor: Actor, kb: str) -> Future:
        with self._db.read() as s:
            kb_id = resolve_kb(s, actor, kb, write=True).id
        return self._queued([enqueue_one(self._db, actor, "reindex", kb_id=kb_id)])

    def submit_repair(self, actor: Actor) -> Future:
        """The doctor's repair as a queued job (its Future gives the DoctorReport)."""
        require_admin(actor, "run the storage doctor")
        return self._queued([enqueue_one(self._db, actor, "repair")])

    def doctor(self, actor: Actor, repair: bool = False) -> doctor_mod.DoctorReport:
        return doctor_mod.run_doctor(self._parts, self._snapshot(), actor, repair)

    # ------------------------------------------------------------ retrieval
    def search_targets(self, actor: Actor, kbs: list[str] | None = None) -> list[search_mod.SearchTarget]:
        with self._db.read() as s:
            chosen = [resolve_kb(s, actor, ref) for ref in kbs] if kbs else knowledge.list_kbs(self._db, actor)
        return [search_mod.SearchTarget(kb.collection, kb.embedder_id, kb.name, kb.id, kb.sparse_encoder)
                for kb in chosen if kb.collection]

    def search(self, actor: Actor, query: str, kbs: list[str] | None = None, *, mode: str | None = None,
               top_k: int | None = None, min_score: float | None = None, file_ids: tuple[str, ...] = ()) -> search_mod.SearchResult:
        """The retrieval test: the same search function answering uses, on one settings snapshot."""
        snap = self._snapshot()
        check_search(query, top_k, min_score, snap.settings)
        for file_id in file_ids:
            self.get_file(actor, file_id)
        targets = self.search_targets(actor, kbs)
        return self._searcher(snap)(query, targets, mode=mode, top_k=top_k, min_score=min_score,
                                                file_ids=tuple(file_ids))

    # ---- answering (core/answering): modes, chats, compare. Every call checks the actor.
    def ask(self, actor: Actor, question: str, *, kbs: list[str] | None = None, chat_id: str | None = None,
            mode: str | None = None, temporary: bool = False, file_ids: tuple = (), on_event=None, web: bool = False):
        """Answer in the mode in force (or ``mode``); events go to ``on_event`` as they happen.
        One context per question: one settings and embedder snapshot, the actor's knowledge bases.
        ``web``: the chat's Web search switch (normal mode only; strict mode never searches)."""
        from core.answering.service import ask

        started = time.perf_counter()
        ctx, kb_ids = self._answer_context(actor, kbs, file_ids, web=web)
        check_question(question, ctx.settings)
        return ask(ctx, question, kb_ids=kb_ids, chat_id=chat_id, mode=mode, temporary=temporary,
                   file_ids=tuple(file_ids), on_event=on_event, started=started)

    def _answer_context(self, actor: Actor, kbs: list[str] | None, file_ids: tuple = (), web: bool = False):
        from dataclasses import replace

        from core.answer_context import answer_context

        snap = self._snapshot()
        with self._db.read() as s:
            kb_ids = [resolve_kb(s, actor, ref).id for ref in kbs] if kbs else None
        for file_id in file_ids:
            self.get_file(actor, file_id)
        ctx = answer_context(self._parts, snap, self._searcher(snap), actor, tuple(self._context_providers))
        return (replace(ctx, open_web=self._web_opener(snap)) if web else ctx), kb_ids

    def _web_opener(self, snap: Snapshot):
        """Opens the message's web search (normal mode only: strict answering never receives it)."""
        from core.answering.models import chat_model
        from core.answering.web import open_session
        from core.websearch.index import indexer

        s, r = snap.settings, snap.settings.retrieval

        def open_web(run, query: str, earlier):
            model = None if provider_for(s.llm).quotes_only else chat_model(s.llm)
            reranker = self.reranker(s) if r.mode == "hybrid+rerank" else None
            index = indexer(self._parts, snap, top_k=r.rag_max_results, min_score=r.rag_min_similarity, reranker=reranker)
            return open_session(s, run, query, model=model, index_and_search=index, history=earlier)

        return open_web

    def register_context_provider(self, provider) -> None:
        """Add a source of extra context items for normal-mode answers (``answering.context.
        ContextProvider``). Strict mode never calls one; it says it did not."""
        self._context_providers.append(provider)

    def _compare_one(self, actor: Actor, question: str, kbs: list[str] | None, web: bool = False):
        """Both modes of one question from one context: the same snapshot, scope and search."""
        from core.answering.compare import compare
        from core.answering.policy import check_compare
        from core.answering.service import ask

        ctx, kb_ids = self._answer_context(actor, kbs, web=web)
        check_compare(actor, ctx.settings)  # the normal column: admins (and strict.compare_roles) only
        check_question(question, ctx.settings)
        return compare(lambda q, mode: ask(ctx, q, kb_ids=kb_ids, mode=mode, temporary=True), question)

    def compare(self, actor: Actor, question: str, kbs: list[str] | None = None, web: bool = False):
        """Normal and strict side by side; with ``web`` the normal side may search the web, the
        strict side never does (it says so)."""
        return self._compare_one(actor, question, kbs, web=web)

    def compare_batch(self, actor: Actor, questions: list[str], kbs: list[str] | None = None, web: bool = False):
        from core.answering.policy import check_compare

        check_compare(actor, self._settings())  # refused before any question, even an empty batch
        return [self._compare_one(actor, q, kbs, web=web) for q in questions if q.strip()]

    def may_compare(self, actor: Actor) -> bool:
        """May see normal-mode answers while strict mode is on: the Strict A/B page and its menu entry."""
        from core.answering.policy import may_compare

        return may_compare(actor, self._settings())

    def list_chats(self, actor: Actor, query: str = ""):
        from core.answering import chats

        return chats.list_chats(self._db, actor, query)

    def chat_messages(self, actor: Actor, chat_id: str):
        from core.answering import chats

        return chats.chat_messages(self._db, actor, chat_id)

    def create_chat(self, actor: Actor, title: str = ""):
        from core.answering import chats

        return chats.create_chat(self._db, actor, title)

    def delete_chat(self, actor: Actor, chat_id: str) -> None:
        """The chat, its messages, its files and their vectors."""
        from core.answering import chats

        chats.delete_chat(self._parts, actor, chat_id)

    def rename_chat(self, actor: Actor, chat_id: str, title: str):
        from core.answering import chat_extras

        return chat_extras.rename_chat(self._parts, actor, chat_id, title)

    def export_chat_markdown(self, actor: Actor, chat_id: str) -> str:
        from core.answering import chat_extras

        return chat_extras.chat_markdown(self._parts, actor, chat_id)

    def set_feedback(self, actor: Actor, message_id: str, rating: int, comment: str = "") -> None:
        """Thumbs up (1) / down (-1) / none (0) on an answer in one of the actor's chats."""
        from core.answering import chat_extras

        chat_extras.set_feedback(self._parts, actor, message_id, rating, comment)

    def feedback_of(self, actor: Actor, message_ids: list[str]) -> dict[str, int]:
        from core.answering import chat_extras

        return chat_extras.feedback_of(self._parts, actor, message_ids)

    def list_feedback(self, actor: Actor, limit: int = 200):
        from core.answering import chat_extras

        return chat_extras.list_feedback(self._parts, actor, limit)

    def attach_to_chat(self, actor: Actor, chat_id: str, uploads: list[Upload]) -> list[IngestResult]:
        """Index files into the chat's own collection (``ragdesk_chat_<id>``; reindex never touches it)."""
        from core.answering.attach import attach_uploads

        return attach_uploads(self._parts, self._snapshot(), actor, chat_id, uploads)

    def test_llm(self, actor: Actor) -> str:
        """A cheap connectivity check of the configured chat model; raises LLMError."""
        from core.llm.factory import make_chat_model

        require_admin(actor, "test the language model connection")
        return make_chat_model(self._settings().llm).check()

    def context_warning(self, web: bool = False) -> str | None:
        """Ollama's context length still at its 2048 default while context is injected (below
        8192 with ``web``: the chat's Web search switch is on)."""
        from core.llm.ollama_chat import needs_context_warning

        s = self.settings()
        web = web and s.web_search.enable_web_search
        return (needs_context_warning(s.llm.context_length, s.answering.file_context or web, web=web)
                if provider_for(s.llm).small_default_context else None)


