"""Reindex without downtime: build a new collection, switch atomically, drop the old one.

Search keeps answering from the old collection until the one-row switch commits. A failed
or cancelled reindex drops only the new collection, so the old index keeps serving.
Files indexed meanwhile are caught up before the switch. Files are re-embedded in groups
through the same batched path as ingest (``pipeline.embed_files``), with one settings and
embedder snapshot for the whole reindex.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Callable

from sqlmodel import select

from core.accounts.access import resolve_kb
from core.chunk_edits.carry import Carried
from core.chunk_edits.carry import carry as carry_edits
from core.db.models import FileRecord, KnowledgeBase, utcnow
from core.errors import Cancelled, CoreError, InvalidInput
from core.ingest.jobs import JobTracker, mark_abandoned
from core.ingest.kb_chunking import settings_for_kb
from core.ingest.parts import EngineParts, Snapshot
from core.ingest.pipeline import (
    EmbedJob,
    FileTarget,
    embed_files,
    full_group,
    make_chunks,
)
from core.ingest.service import kb_collection_name
from core.messages import Said, say
from core.metadata.payload import write_published as write_metadata
from core.parsers.base import ParseContext
from core.retrieval import bm25
from core.retrieval.late import index_token_dimension
from core.types import Actor

_CATCH_UP_ROUNDS = 20


@dataclass
class ReindexResult:
    kb: str
    status: str  # done | failed | cancelled
    collection: str = ""
    files: int = 0
    chunks: int = 0
    error: str = ""
    job_id: str = ""
    file_errors: dict[str, str] = field(default_factory=dict)


def reindex(parts: EngineParts, snap: Snapshot, actor: Actor, kb_ref: str,
            progress: Callable[[int, int, str], None] | None = None, job_id: str | None = None) -> ReindexResult:
    """``job_id``: the queued job that runs it (core/jobs/), tracked instead of a new job row."""
    with parts.db.read() as s:
        kb = resolve_kb(s, actor, kb_ref, write=True)
    mark_abandoned(parts.db)  # a reindex killed earlier (by another process) no longer counts as running
    settings, embedder = settings_for_kb(snap.settings, kb), snap.embedder  # with the knowledge base's own chunking
    version = kb.collection_version + 1
    new = kb_collection_name(kb.id, version)
    if job_id is not None:
        with parts.db.write() as s:
            tracker = JobTracker.adopt_in(parts.db, s, job_id, said=say("job.reindexing", name=kb.name))
    else:
        tracker = JobTracker.start(parts.db, kind="reindex", actor=actor, kb_id=kb.id, file_id=None,
                                   said=say("job.reindexing", name=kb.name))
    result = ReindexResult(kb=kb.name, status="running", collection=new, job_id=tracker.job_id)
    parts.store.drop_collection(new)  # leftover of an earlier interrupted attempt
    # token vectors (late interaction) when the knowledge base's settings want them and the embedder has them
    parts.store.create_collection(new, embedder.dimension, index_token_dimension(embedder, settings.chunking.token_vectors))
    done: dict[str, int] = {}
    chunks = _ChunkCount()
    edits: Carried | None = None

    def report(said: Said) -> None:
        # in chunks (each file's old count until its new one is known), so the bar moves while
        # a group is embedded — one group often holds every file of a knowledge base
        n, total = chunks.progress()
        tracker.progress(n, total, said.text, said=said)
        if progress:
            progress(n, total, said.text)

    try:
        for _ in range(_CATCH_UP_ROUNDS):
            with parts.db.read() as s:
                files = s.exec(select(FileRecord).where(FileRecord.kb_id == kb.id)).all()
            todo = [f for f in files if f.status == "indexed" and f.id not in done]
            chunks.expect(todo)
            busy = [f for f in files if f.status == "processing"]
            if not todo and not busy:
                if result.file_errors:
                    raise CoreError(f"{len(result.file_errors)} file(s) could not be reindexed; the old index keeps "
                                    "serving: " + "; ".join(f"{k}: {v}" for k, v in list(result.file_errors.items())[:3]))
                # hand edits follow their passage into the new index before it serves (core/chunk_edits/)
                edits = carry_edits(parts, embedder, settings, new, [f for f, n in done.items() if n >= 0], edits)
                old = switch_when_caught_up(parts, kb.id, new, version, embedder, settings, done)
                if old is not None:
                    edits.commit(parts.db, parts.store)
                    break
                continue  # a file arrived between that read and the switch: catch it up first
            group: list[tuple[FileRecord, EmbedJob]] = []
            for i, rec in enumerate(todo):
                if tracker.should_cancel():
                    raise Cancelled("reindex cancelled; the old index keeps serving")
                report(say("job.reembedding", name=rec.name))
                try:
                    group.append((rec, _prepare_file(parts, rec, new, settings, embedder, tracker)))
                    chunks.prepared(rec.id, len(group[-1][1].chunks))
                except Cancelled:
                    raise
                except CoreError as exc:
                    result.file_errors[rec.name] = exc.message
                    done[rec.id] = -1
                    chunks.prepared(rec.id, 0)
                if full_group(group, lambda g: len(g[1].chunks)) or i == len(todo) - 1:
                    _embed_group(parts, group, embedder, settings.embedding.batch_size, tracker, result, done,
                                 on_batch=lambda rec, job: (chunks.embedded(rec.id, job.embedded),
                                                            report(say("job.reembedding", name=rec.name))))
                    group = []
            if busy and not todo:
                time.sleep(0.5)  # an upload into the old index is finishing; catch it up next round
        else:
            raise CoreError("files kept arriving during the reindex; try again when uploads have finished")
        if old and old != new:
            parts.store.drop_collection(old)
    except CoreError as exc:
        parts.store.drop_collection(new)
        state = "cancelled" if isinstance(exc, Cancelled) else "failed"
        tracker.finish(state, error=exc.message)
        result.status, result.error = state, exc.message
        return result
    except BaseException:
        parts.store.drop_collection(new)
        tracker.finish("failed", error="reindex stopped by an unexpected error")
        raise
    result.status, result.files, result.chunks = "done", len(done), sum(done.values())
    tracker.finish("done", message=f"{result.files} files, {result.chunks} chunks")
    return result


def _prepare_file(parts: EngineParts, rec: FileRecord, collection: str, settings, embedder,
                  tracker: JobTracker) -> EmbedJob:
    doc = parts.blobs.get_parsed(rec.id)
    if doc is None:  # parsed cache lost: parse the stored original again (cancel is checked per page)
        def stop_if_cancelled(_done: int, _total: int, _step: Said) -> None:
            if tracker.should_cancel():
                raise Cancelled("reindex cancelled; the old index keeps serving")

        doc = parts.parse(parts.blobs.get(rec.sha256), rec.name,
                          ParseContext(settings=settings.parsing, progress=stop_if_cancelled))
        parts.blobs.put_parsed(rec.id, doc)
    chunks = make_chunks(doc, settings.chunking, embedder)
    cap = settings.parsing.max_chunks_per_file
    if len(chunks) > cap:
        raise InvalidInput(f"it makes {len(chunks)} chunks with these settings, more than the limit of {cap} per file "
                           "(setting parsing.max_chunks_per_file)")
    return EmbedJob(FileTarget(file_id=rec.id, collection=collection, kb_id=rec.kb_id), chunks)


class _ChunkCount:
    """Reindex progress in chunks: embedded so far out of the expected total."""

    def __init__(self) -> None:
        self._expected: dict[str, int] = {}
        self._embedded: dict[str, int] = {}

    def expect(self, files: list[FileRecord]) -> None:
        for rec in files:
            self._expected.setdefault(rec.id, max(rec.chunk_count, 1))

    def prepared(self, file_id: str, n: int) -> None:
        self._expected[file_id] = n

    def embedded(self, file_id: str, n: int) -> None:
        self._embedded[file_id] = n

    def progress(self) -> tuple[int, int]:
        return sum(self._embedded.values()), sum(self._expected.values())


def _embed_group(parts: EngineParts, group: list[tuple[FileRecord, EmbedJob]], embedder, batch_size: int,
                 tracker: JobTracker, result: ReindexResult, done: dict[str, int],
                 on_batch: Callable[[FileRecord, EmbedJob], object] = lambda rec, job: None) -> None:
    by_job = {id(job): rec for rec, job in group}

    def should_cancel(jobs: list[EmbedJob]) -> set[int]:  # the reindex is one job: all or none
        return {id(job) for job in jobs} if tracker.should_cancel() else set()

    def progress(jobs: list[EmbedJob]) -> None:
        for job in jobs:
            on_batch(by_job[id(job)], job)

    embed_files([job for _, job in group], embedder, parts.store, batch_size=batch_size,
                should_cancel=should_cancel, progress=progress)
    for rec, job in group:
        if job.state == "cancelled":
            raise Cancelled("reindex cancelled; the old index keeps serving")
        if job.state:
            result.file_errors[rec.name] = job.error
            done[rec.id] = -1
        else:
            done[rec.id] = len(job.chunks)


def switch_when_caught_up(parts, kb_id: str, new: str, version: int, embedder, settings,
                          done: dict[str, int]) -> str | None:
    """The one commit that moves search to the new index; the old collection's name, or None
    when it did not switch: a file was indexed (or started) since the last catch-up read. That
    is checked inside the switch's own transaction, so no ingest can commit in between — a file
    indexed there would otherwise keep pointing at the old collection, which is then dropped."""
    parts.blobs.sync()  # parsed text rewritten during the reindex is durable before the switch
    # Flagged before the switch: nothing searches the new index until it commits (a crash in
    # between leaves an unused collection that start-up drops), and after it every file answers.
    indexed = [file_id for file_id, n in done.items() if n >= 0]
    write_metadata(parts.store, parts.db, {new: indexed})  # the files' metadata, as in the old index
    parts.store.mark_ready(new, indexed)
    with parts.db.write() as s:
        kb = s.get(KnowledgeBase, kb_id)
        if kb is None:
            raise CoreError("the knowledge base was deleted during the reindex")
        arrived = s.exec(select(FileRecord.id).where(
            FileRecord.kb_id == kb_id, FileRecord.status.in_(["indexed", "processing"]),
            FileRecord.id.not_in(list(done)) | (FileRecord.status == "processing"))).first()
        if arrived is not None:
            return None
        old = kb.collection
        kb.collection, kb.collection_version = new, version
        kb.embedder_id, kb.dimension = embedder.id, embedder.dimension
        kb.sparse_encoder = bm25.TOKENIZER_ID
        kb.chunking = settings.chunking.model_dump()
        kb.updated_at = utcnow()
        s.add(kb)
        for rec in s.exec(select(FileRecord).where(FileRecord.kb_id == kb_id, FileRecord.status == "indexed")).all():
            if rec.id in done:
                rec.collection, rec.chunk_count = new, done[rec.id]
                rec.searchable = rec.searchable or done[rec.id] >= 0  # flagged in the new index above
                s.add(rec)
    return old
