"""Ingest many files with embedding batched across them.

A knowledge base of many small documents (FAQ entries, tickets, slides exported one per file)
would otherwise send one tiny embedding request and one vector-store write per file; the
embedder's batching is where its throughput comes from. So files are prepared one by one
(record, parse, chunk — a bad file fails alone here), then the chunks of a group of files are
embedded and stored in full batches, then each file is committed on its own. Cancel is per
file and checked between batches; an embedding failure fails the files of its group that are
not yet committed, never the files before them.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Callable

from sqlmodel import select

from core.db.models import FileRecord, KnowledgeBase, utcnow
from core.errors import Cancelled, CoreError, EmbeddingError
from core.ingest.jobs import JobTracker, cancelled_many, progress_many
from core.ingest.parts import EngineParts
from core.ingest.pipeline import FileTarget, chunk_payload, make_chunks, point_id
from core.ingest.service import IngestResult, Upload, abandon_file, failed_before_start, fetch_url_doc
from core.parsers.base import ParseContext
from core.retrieval import bm25
from core.types import Actor, Chunk, ParsedDoc, VectorPoint

log = logging.getLogger(__name__)

GROUP_CHUNKS = 256  # chunks embedded per group: bounded memory, steady progress
GROUP_FILES = 64

Progress = Callable[[int, int, str], None]


@dataclass
class _Prepared:
    upload: Upload
    record_id: str
    tracker: JobTracker
    target: FileTarget
    doc: ParsedDoc
    chunks: list[Chunk]
    progress: Progress | None
    embedded: int = 0
    failed: IngestResult | None = None

    def report(self, done: int, total: int, message: str) -> None:
        self.tracker.progress(done, total, message)
        if self.progress:
            self.progress(done, total, message)

    def fail(self, parts: EngineParts, state: str, message: str) -> None:
        abandon_file(parts, self.record_id, self.target.collection, state, message)
        self.tracker.finish(state, error=message)
        self.failed = IngestResult(self.upload.name, state, file_id=self.record_id, error=message,
                                   job_id=self.tracker.job_id)


def ingest_many(parts: EngineParts, actor: Actor, uploads: list[Upload], *, collection: str,
                kb_id: str | None = None, chat_id: str | None = None,
                progress: Callable[[str, int, int, str], None] | None = None) -> list[IngestResult]:
    results: list[IngestResult | None] = [None] * len(uploads)
    group: list[tuple[int, _Prepared]] = []
    # One settings snapshot for the whole batch: its files are chunked and embedded alike.
    settings, embedder = parts.settings(), parts.embedder()
    for i, upload in enumerate(uploads):
        on_progress = (lambda d, t, m, n=upload.name: progress(n, d, t, m)) if progress else None
        prepared = _prepare(parts, actor, upload, collection=collection, kb_id=kb_id, chat_id=chat_id,
                            progress=on_progress, settings=settings, embedder=embedder)
        if isinstance(prepared, IngestResult):
            results[i] = prepared
            continue
        group.append((i, prepared))
        if sum(len(p.chunks) for _, p in group) >= GROUP_CHUNKS or len(group) >= GROUP_FILES:
            _flush(parts, group, results, settings, embedder)
            group = []
    if group:
        _flush(parts, group, results, settings, embedder)
    return [r for r in results if r is not None]


def _flush(parts: EngineParts, group: list[tuple[int, _Prepared]], results: list, settings, embedder) -> None:
    _embed_group(parts, [p for _, p in group], embedder, settings.embedding.batch_size)
    committed = _commit_group(parts, [p for _, p in group if p.failed is None])
    for i, prepared in group:
        results[i] = prepared.failed or committed[id(prepared)]


def _prepare(parts: EngineParts, actor: Actor, upload: Upload, *, collection: str, kb_id: str | None,
             chat_id: str | None, progress: Progress | None, settings, embedder) -> _Prepared | IngestResult:
    """Record, parse and chunk one file. Anything wrong fails this file alone."""
    fetched = None
    if upload.url:
        try:
            fetched = fetch_url_doc(upload.url, settings)
        except CoreError as exc:
            return failed_before_start(parts, actor, upload, exc.message, kb_id=kb_id, chat_id=chat_id)
        # what is kept of a URL is its extracted text: reindex and full-document mode read that
        upload = Upload(upload.name, fetched.text.encode("utf-8"), upload.url)
    sha = parts.blobs.put(upload.data)
    with parts.db.write() as s:
        owner = FileRecord.kb_id == kb_id if kb_id else FileRecord.chat_id == chat_id
        for old in s.exec(select(FileRecord).where(owner, FileRecord.sha256 == sha)).all():
            if old.status in ("indexed", "processing", "pending"):
                return IngestResult(upload.name, "duplicate", file_id=old.id, chunks=old.chunk_count,
                                    error=f"already present as '{old.name}'")
            s.delete(old)  # a failed or cancelled earlier attempt: try again from scratch
        record = FileRecord(sha256=sha, name=upload.name, size=len(upload.data), owner_id=actor.user_id,
                            kb_id=kb_id, chat_id=chat_id, status="processing", collection=collection)
        s.add(record)
        tracker = JobTracker.start_in(parts.db, s, kind="ingest", actor=actor, kb_id=kb_id, file_id=record.id,
                                      message=f"parsing {upload.name}")
    target = FileTarget(file_id=record.id, collection=collection, kb_id=kb_id, chat_id=chat_id)
    prepared = _Prepared(upload, record.id, tracker, target, doc=None, chunks=[], progress=progress)  # type: ignore[arg-type]

    def parse_progress(done: int, total: int, message: str) -> None:
        prepared.report(done, total, message)
        if tracker.should_cancel():
            raise Cancelled("cancelled by request")

    try:
        prepared.doc = fetched or parts.parse(upload.data, upload.name,
                                              ParseContext(settings=settings.parsing, progress=parse_progress))
        prepared.chunks = make_chunks(prepared.doc, settings.chunking, embedder)
        parts.blobs.put_parsed(record.id, prepared.doc)
    except CoreError as exc:
        prepared.fail(parts, "cancelled" if isinstance(exc, Cancelled) else "failed", exc.message)
    except Exception as exc:  # a parser or library bug: this file fails alone, with its reason logged
        log.exception("unexpected error while ingesting %s", upload.name)
        prepared.fail(parts, "failed", f"unexpected error while processing this file ({type(exc).__name__}: {exc})")
    return prepared.failed or prepared


def _embed_group(parts: EngineParts, group: list[_Prepared], embedder, batch_size: int) -> None:
    queue = [(p, c) for p in group for c in p.chunks]
    _report_all(parts, [(p, 0) for p in group])
    while queue:
        stopped = cancelled_many(parts.db, [p.tracker for p in group if p.failed is None])
        for p in group:
            if p.failed is None and p.tracker.job_id in stopped:
                p.fail(parts, "cancelled", "cancelled by request")
        queue = [(p, c) for p, c in queue if p.failed is None]
        batch, queue = queue[:batch_size], queue[batch_size:]
        if not batch:
            break
        try:
            vectors = embedder.embed_documents([c.text for _, c in batch])
            if len(vectors) != len(batch):
                raise EmbeddingError(f"the embedder returned {len(vectors)} vectors for {len(batch)} texts")
            by_collection: dict[str, list[VectorPoint]] = {}
            for (p, c), vec in zip(batch, vectors):
                by_collection.setdefault(p.target.collection, []).append(VectorPoint(
                    id=point_id(p.target.file_id, c.index), dense=[float(x) for x in vec],
                    sparse=bm25.encode_document(c.text), payload=chunk_payload(c, p.target)))
            for name, points in by_collection.items():
                parts.store.upsert(name, points)
        except Exception as exc:  # the whole batch is lost: every unfinished file of the group fails
            message = exc.message if isinstance(exc, CoreError) else f"unexpected error while embedding ({type(exc).__name__}: {exc})"
            if not isinstance(exc, CoreError):
                log.exception("unexpected error while embedding a batch")
            for p in group:
                if p.failed is None:
                    p.fail(parts, "failed", message)
            return
        for p, _ in batch:
            p.embedded += 1
        _report_all(parts, [(p, p.embedded) for p in {id(p): p for p, _ in batch}.values()])


def _report_all(parts: EngineParts, items: list[tuple[_Prepared, int]]) -> None:
    """Embedding progress of several files: callbacks each, job rows in one transaction."""
    for p, done in items:
        if p.progress:
            p.progress(done, len(p.chunks), "embedding")
    progress_many(parts.db, [(p.tracker, done, len(p.chunks), "embedding") for p, done in items if p.failed is None])


def _commit_group(parts: EngineParts, group: list[_Prepared]) -> dict[int, IngestResult]:
    """Make a group of fully embedded files searchable in one transaction (one commit, not one
    per file). Their originals and parsed text are made durable first (one sync for all)."""
    parts.blobs.sync()
    moved: list[_Prepared] = []
    with parts.db.write() as s:
        # Checked in the same transaction that makes the files searchable, so a reindex switch
        # can't slip in between.
        collections: dict[str, str | None] = {}
        for p in group:
            kb_id = p.target.kb_id
            if kb_id and kb_id not in collections:
                kb = s.get(KnowledgeBase, kb_id)
                collections[kb_id] = kb.collection if kb else None
            if kb_id is not None and collections[kb_id] != p.target.collection:
                moved.append(p)
                continue
            rec = s.get(FileRecord, p.record_id)
            rec.status, rec.chunk_count, rec.char_count = "indexed", len(p.chunks), len(p.doc.text)
            rec.mime = p.doc.mime
            rec.meta = {k: v for k, v in p.doc.metadata.items() if isinstance(v, (str, int, float, bool, list))}
            rec.updated_at = utcnow()
            s.add(rec)
            p.tracker.finish_in(s, "done", message=f"{len(p.chunks)} chunks", total=len(p.chunks))
    for p in moved:
        p.fail(parts, "failed", "the knowledge base was reindexed or deleted while this file was processing; upload it again")
    return {id(p): p.failed or IngestResult(p.upload.name, "indexed", file_id=p.record_id, chunks=len(p.chunks),
                                            job_id=p.tracker.job_id, warnings=list(p.doc.warnings))
            for p in group}
