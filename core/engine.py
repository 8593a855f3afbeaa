"""``core.Engine``: the one public entry to the engine. Pages, the CLI and tests call this.

Every method that touches user data takes the ``Actor`` asking and checks it. The engine
is thread-safe and meant to be shared: the dashboard serves all sessions from one engine
(the embedded vector store admits one process at a time).
"""

from __future__ import annotations

import logging
import threading
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Callable

from sqlmodel import select

from core import doctor as doctor_mod
from core import knowledge, users
from core.access import check_file, require_admin, resolve_kb
from core.config import RuntimeConfig
from core.db.database import Database
from core.db.models import FileRecord, Job, KnowledgeBase, User
from core.embeddings.base import Embedder
from core.embeddings.factory import make_embedder
from core.errors import InvalidInput
from core.ingest import jobs as jobs_mod
from core.ingest import reindex as reindex_mod
from core.ingest import service as ingest_mod
from core.ingest.blobs import BlobStore
from core.ingest.parts import EngineParts
from core.ingest.service import IngestResult, Upload
from core.parsers.base import ParseContext
from core.retrieval import search as search_mod
from core.retrieval.rerank import Reranker, make_reranker
from core.settings.model import Settings
from core.settings.store import SettingsStore, masked
from core.types import Actor, ParsedDoc
from core.vectorstore.factory import open_store

log = logging.getLogger(__name__)


def _parse(data: bytes, name: str, ctx: ParseContext) -> ParsedDoc:
    from core.parsers.registry import parse_bytes  # lazy: parsers pull heavy libraries

    return parse_bytes(data, name, ctx)


class Engine:
    def __init__(self, config: RuntimeConfig, *, store_wait_seconds: float = 0.0, serve_handoff: bool = False):
        self.config = config
        config.data_dir.mkdir(parents=True, exist_ok=True)
        self.db = Database(config.database_url)
        self.settings_store = SettingsStore(self.db)
        self.store = open_store(config.data_dir, config.qdrant_url, config.qdrant_api_key, wait_seconds=store_wait_seconds)
        self.blobs = BlobStore(config.blobs_dir, config.parsed_dir)
        self.parts = EngineParts(db=self.db, store=self.store, blobs=self.blobs, settings=self.settings,
                                 embedder=self.embedder, parse=_parse)
        self._jobs = ThreadPoolExecutor(max_workers=1, thread_name_prefix="ragdesk-job")
        self._reranker_lock = threading.Lock()
        self._reranker_key: tuple | None = None
        self._reranker: Reranker | None = None
        cleaned = ingest_mod.recover_interrupted(self.parts)
        if cleaned:
            log.warning("cleaned up %d file(s) left half-indexed by a stopped process", len(cleaned))
        self._handoff = None
        if serve_handoff and not config.qdrant_url:
            from core.handoff import HandoffServer

            self._handoff = HandoffServer(self, config.data_dir)

    @classmethod
    def open(cls, data_dir: str | Path | None = None, *, store_wait_seconds: float = 0.0,
             serve_handoff: bool = False) -> "Engine":
        """``serve_handoff``: let CLI commands run in this process while it holds the embedded store."""
        return cls(RuntimeConfig.from_env(data_dir), store_wait_seconds=store_wait_seconds, serve_handoff=serve_handoff)

    def close(self) -> None:
        if self._handoff is not None:
            self._handoff.close()
        self._jobs.shutdown(wait=True, cancel_futures=True)
        self.store.close()
        self.db.dispose()

    def __enter__(self) -> "Engine":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------ settings & models
    def settings(self) -> Settings:
        """The settings in force now (a change saved by any process applies on the next call)."""
        return self.settings_store.current()

    def settings_masked(self) -> dict:
        return masked(self.settings())

    def settings_overridden(self) -> dict:
        return self.settings_store.overridden()

    def save_settings(self, actor: Actor, patch: dict) -> Settings:
        require_admin(actor, "change settings")
        return self.settings_store.save(patch, saved_by=actor.name or actor.user_id)

    def embedder(self) -> Embedder:
        return make_embedder(self.settings().embedding)

    def reranker(self, settings: Settings | None = None) -> Reranker | None:
        cfg = (settings or self.settings()).retrieval.reranker
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
            "llm": "extractive (no LLM configured)" if s.llm.provider == "extractive" else f"{s.llm.provider}/{s.llm.model}",
            "vector_store": "Qdrant server" if self.config.qdrant_url else "embedded Qdrant (edge)",
            "database": "PostgreSQL" if not self.db.is_sqlite else "SQLite",
            "strict_min_similarity": s.strict.rag_strict_min_similarity,
            "strict_max_results": s.strict.rag_strict_max_results,
            "min_similarity": s.retrieval.rag_min_similarity,
            "max_results": s.retrieval.rag_max_results,
            "llm_provider": s.llm.provider,  # pages word these in the user's language
            "store_kind": "server" if self.config.qdrant_url else "embedded",
        }

    # ------------------------------------------------------------ users
    def sign_up(self, name: str, password: str, **kw) -> User:
        return users.sign_up(self.db, name, password, **kw)

    def sign_in(self, name: str, password: str) -> User:
        return users.authenticate(self.db, name, password)

    def sso_sign_in(self, email: str, display_name: str = "") -> User:
        return users.sso_user(self.db, email, display_name)

    def user_count(self) -> int:
        return users.user_count(self.db)

    def actor_for(self, user_id: str) -> Actor:
        return users.actor_of(users.get_user(self.db, user_id))

    def user(self, user_id: str) -> User:
        return users.get_user(self.db, user_id)

    def list_users(self, actor: Actor) -> list[User]:
        return users.list_users(self.db, actor)

    def set_role(self, actor: Actor, user_name: str, role: str) -> User:
        return users.set_role(self.db, actor, user_name, role)

    def set_language(self, actor: Actor, language: str) -> None:
        users.set_language(self.db, actor, language)

    # ------------------------------------------------------------ knowledge bases
    def create_kb(self, actor: Actor, name: str, description: str = "", visibility: str = "private") -> KnowledgeBase:
        return knowledge.create_kb(self.parts, actor, name, description, visibility)

    def list_kbs(self, actor: Actor) -> list[KnowledgeBase]:
        return knowledge.list_kbs(self.parts, actor)

    def get_kb(self, actor: Actor, ref: str) -> KnowledgeBase:
        return knowledge.get_kb(self.parts, actor, ref)

    def kb_stats(self, actor: Actor, ref: str) -> dict:
        return knowledge.kb_stats(self.parts, actor, ref)

    def update_kb(self, actor: Actor, ref: str, **changes) -> KnowledgeBase:
        return knowledge.update_kb(self.parts, actor, ref, **changes)

    def share_kb(self, actor: Actor, ref: str, user_names: list[str]) -> list[str]:
        return knowledge.share_kb(self.parts, actor, ref, user_names)

    def shared_with(self, actor: Actor, ref: str) -> list[str]:
        return knowledge.shared_with(self.parts, actor, ref)

    def set_kb_chunking(self, actor: Actor, ref: str, override: dict | None) -> KnowledgeBase:
        """A knowledge base's own chunk size / overlap / min-size target ({} = the global ones);
        a reindex applies it to the files already there."""
        from core.ingest.kb_chunking import set_kb_chunking

        return set_kb_chunking(self.parts, actor, ref, override)

    def kb_chunking(self, kb: KnowledgeBase):
        """The chunking settings this knowledge base's next ingest or reindex uses."""
        from core.ingest.kb_chunking import effective_chunking

        return effective_chunking(self.settings(), kb.chunking_override)

    def delete_kb(self, actor: Actor, ref: str) -> None:
        knowledge.delete_kb(self.parts, actor, ref)

    # ------------------------------------------------------------ files
    def ingest(self, actor: Actor, kb: str, uploads: list[Upload],
               progress: Callable[[str, int, int, str], None] | None = None) -> list[IngestResult]:
        return ingest_mod.ingest(self.parts, actor, kb, uploads, progress)

    def ingest_paths(self, actor: Actor, kb: str, paths: list[Path | str],
                     progress: Callable[[str, int, int, str], None] | None = None) -> list[IngestResult]:
        uploads, unreadable = [], []
        urls = [str(p) for p in paths if str(p).startswith(("http://", "https://"))]
        uploads.extend(Upload.from_url(u) for u in urls)
        paths = [p for p in paths if str(p) not in urls]
        for path in _expand(paths):
            try:
                uploads.append(Upload(path.name, path.read_bytes()))
            except OSError as exc:
                unreadable.append(IngestResult(str(path), "failed", error=f"cannot read file: {exc.strerror}"))
        return unreadable + (self.ingest(actor, kb, uploads, progress) if uploads else [])

    def submit_ingest(self, actor: Actor, kb: str, uploads: list[Upload]) -> Future:
        """Ingest in the background; progress and cancel go through ``jobs()`` / ``cancel_job()``."""
        self.get_kb(actor, kb)  # fail now, in the caller, for unknown or forbidden knowledge bases
        return self._jobs.submit(self.ingest, actor, kb, uploads)

    def list_files(self, actor: Actor, kb: str | None = None, status: str | None = None) -> list[FileRecord]:
        with self.db.read() as s:
            q = select(FileRecord).order_by(FileRecord.created_at.desc())
            if kb is not None:
                q = q.where(FileRecord.kb_id == resolve_kb(s, actor, kb).id)
            elif not actor.is_admin:
                visible = [k.id for k in knowledge.list_kbs(self.parts, actor)]
                q = q.where((FileRecord.kb_id.in_(visible)) | ((FileRecord.kb_id.is_(None)) & (FileRecord.owner_id == actor.user_id)))
            if status:
                q = q.where(FileRecord.status == status)
            return list(s.exec(q))

    def get_file(self, actor: Actor, file_id: str) -> FileRecord:
        with self.db.read() as s:
            return check_file(s, actor, s.get(FileRecord, file_id), file_id)

    def file_chunks(self, actor: Actor, file_id: str) -> list[dict]:
        """The stored chunks of a file in order (the chunk inspector)."""
        rec = self.get_file(actor, file_id)
        if rec.status != "indexed" or not self.store.collection_exists(rec.collection):
            return []
        return [dict(p.payload, chunk_id=p.id) for p in self.store.scroll_file(rec.collection, rec.id)]

    def file_text(self, actor: Actor, file_id: str) -> ParsedDoc | None:
        rec = self.get_file(actor, file_id)
        return self.blobs.get_parsed(rec.id)

    def delete_files(self, actor: Actor, file_ids: list[str]) -> list[IngestResult]:
        return ingest_mod.delete_files(self.parts, actor, file_ids)

    def file_original(self, actor: Actor, file_id: str) -> tuple[str, bytes]:
        """(name, bytes as uploaded) of a file the actor may read (the download button)."""
        from core.ingest.originals import original

        return original(self.parts, actor, file_id)

    def submit_retry(self, actor: Actor, file_id: str) -> tuple[str, Future]:
        """Send a failed or cancelled file through ingest again: (knowledge base id, Future)."""
        from core.ingest.originals import retry_upload

        kb_id, upload = retry_upload(self.parts, actor, file_id)
        return kb_id, self.submit_ingest(actor, kb_id, [upload])

    def parse(self, data: bytes, name: str) -> ParsedDoc:
        return _parse(data, name, ParseContext(settings=self.settings().parsing))

    # ------------------------------------------------------------ jobs, reindex, doctor
    def jobs(self, actor: Actor, ids: list[str] | None = None, active_only: bool = False) -> list[Job]:
        return jobs_mod.list_jobs(self.db, actor, ids=ids, active_only=active_only)

    def cancel_job(self, actor: Actor, job_id: str) -> Job:
        return jobs_mod.request_cancel(self.db, actor, job_id)

    def reindex(self, actor: Actor, kb: str, progress: Callable[[int, int, str], None] | None = None):
        return reindex_mod.reindex(self.parts, actor, kb, progress)

    def submit_reindex(self, actor: Actor, kb: str) -> Future:
        self.get_kb(actor, kb)
        return self._jobs.submit(self.reindex, actor, kb)

    def doctor(self, actor: Actor, repair: bool = False) -> doctor_mod.DoctorReport:
        return doctor_mod.run_doctor(self.parts, actor, repair)

    # ------------------------------------------------------------ retrieval
    def search_targets(self, actor: Actor, kbs: list[str] | None = None) -> list[search_mod.SearchTarget]:
        with self.db.read() as s:
            chosen = [resolve_kb(s, actor, ref) for ref in kbs] if kbs else knowledge.list_kbs(self.parts, actor)
        return [search_mod.SearchTarget(kb.collection, kb.embedder_id, kb.name, kb.id, kb.sparse_encoder)
                for kb in chosen if kb.collection]

    def search(self, actor: Actor, query: str, kbs: list[str] | None = None, *, mode: str | None = None,
               top_k: int | None = None, min_score: float | None = None, file_ids: tuple[str, ...] = ()) -> search_mod.SearchResult:
        if mode is not None and mode not in search_mod.MODES:
            raise InvalidInput(f"mode must be one of {', '.join(search_mod.MODES)}")
        settings = self.settings()  # one snapshot per query: each read is a database round trip
        cfg = settings.retrieval
        for file_id in file_ids:
            self.get_file(actor, file_id)
        return search_mod.search(
            store=self.store, db=self.db, embedder=make_embedder(settings.embedding),
            reranker=self.reranker(settings) if (mode or cfg.mode) == "hybrid+rerank" else None,
            cfg=cfg, targets=self.search_targets(actor, kbs), query=query, mode=mode, top_k=top_k,
            min_score=min_score, file_ids=tuple(file_ids),
        )

    # ---- answering (core/answering): modes, chats, compare. Every call checks the actor.
    def ask(self, actor: Actor, question: str, *, kbs: list[str] | None = None, chat_id: str | None = None,
            mode: str | None = None, temporary: bool = False, file_ids: tuple = (), on_event=None):
        """Answer in the mode in force (or ``mode``); events go to ``on_event`` as they happen."""
        from core.answering.service import ask

        return ask(self, actor, question, kbs=kbs, chat_id=chat_id, mode=mode, temporary=temporary,
                   file_ids=tuple(file_ids), on_event=on_event)

    def compare(self, actor: Actor, question: str, kbs: list[str] | None = None):
        from core.answering.compare import compare

        return compare(self, actor, question, kbs)

    def compare_batch(self, actor: Actor, questions: list[str], kbs: list[str] | None = None):
        from core.answering.compare import compare_batch

        return compare_batch(self, actor, questions, kbs)

    def list_chats(self, actor: Actor, query: str = ""):
        from core.answering import chats

        return chats.list_chats(self.parts, actor, query)

    def chat_messages(self, actor: Actor, chat_id: str):
        from core.answering import chats

        return chats.chat_messages(self.parts, actor, chat_id)

    def create_chat(self, actor: Actor, title: str = ""):
        from core.answering import chats

        return chats.create_chat(self.parts, actor, title)

    def delete_chat(self, actor: Actor, chat_id: str) -> None:
        """The chat, its messages, its files and their vectors."""
        from core.answering import chats

        chats.delete_chat(self.parts, actor, chat_id)

    def rename_chat(self, actor: Actor, chat_id: str, title: str):
        from core.answering import chat_extras

        return chat_extras.rename_chat(self.parts, actor, chat_id, title)

    def export_chat_markdown(self, actor: Actor, chat_id: str) -> str:
        from core.answering import chat_extras

        return chat_extras.chat_markdown(self.parts, actor, chat_id)

    def set_feedback(self, actor: Actor, message_id: str, rating: int, comment: str = "") -> None:
        """Thumbs up (1) / down (-1) / none (0) on an answer in one of the actor's chats."""
        from core.answering import chat_extras

        chat_extras.set_feedback(self.parts, actor, message_id, rating, comment)

    def feedback_of(self, actor: Actor, message_ids: list[str]) -> dict[str, int]:
        from core.answering import chat_extras

        return chat_extras.feedback_of(self.parts, actor, message_ids)

    def list_feedback(self, actor: Actor, limit: int = 200):
        from core.answering import chat_extras

        return chat_extras.list_feedback(self.parts, actor, limit)

    def attach_to_chat(self, actor: Actor, chat_id: str, uploads: list[Upload]) -> list[IngestResult]:
        """Index files into the chat's own collection (``ragdesk_chat_<id>``; reindex never touches it)."""
        from core.answering.attach import attach_uploads

        return attach_uploads(self, actor, chat_id, uploads)

    def test_llm(self, actor: Actor) -> str:
        """A cheap connectivity check of the configured chat model; raises LLMError."""
        from core.llm.factory import make_chat_model

        require_admin(actor, "test the language model connection")
        return make_chat_model(self.settings().llm).check()

    def context_warning(self) -> str | None:
        """Ollama's context length still at its 2048 default while context is injected."""
        from core.llm.ollama_chat import needs_context_warning

        s = self.settings()
        return needs_context_warning(s.llm.context_length, s.answering.file_context) if s.llm.provider == "ollama" else None


def _expand(paths: list[Path]) -> list[Path]:
    """Files as given, folders expanded to the files inside them (sorted, hidden ones skipped)."""
    out = []
    for p in map(Path, paths):
        if p.is_dir():
            out.extend(sorted(f for f in p.rglob("*") if f.is_file() and not any(part.startswith(".") for part in f.relative_to(p).parts)))
        else:
            out.append(p)
    return out
