"""Adding and removing files: one result per file, nothing half-indexed, no orphan vectors.

Order of work for one file, chosen so a crash at any point can be cleaned up (the steps
live in core/ingest/batch.py, which batches embedding across files):
1. a file row in state "processing" naming its collection is committed first;
2. parse, chunk, embed and upsert (points carry the file id);
3. the row becomes "indexed" in one commit — only then does search return it.
A failure or cancel deletes the file's points before marking it; a killed process leaves
"processing" rows that ``recover_interrupted`` (run when the store is opened) cleans up.
"""

from __future__ import annotations

import logging
from typing import Callable

from sqlmodel import select

from core.accounts.access import check_file, resolve_kb
from core.db.models import FileRecord, KnowledgeBase, utcnow
from core.errors import AlreadyExists, CoreError, ReindexNeeded, StoreError
from core.ingest.batch import ingest_many
from core.ingest.failed_files import (  # noqa: F401 (also read from here: failed_before_start, RETRY_STATES)
    RETRY_STATES,
    abandon_file,
    drop_unused_original,
    failed_before_start,
)
from core.ingest.jobs import JobTracker, abandoned, cancel_file_jobs, mark_abandoned
from core.ingest.kb_chunking import effective_chunking
from core.ingest.parts import EngineParts, Snapshot
from core.ingest.uploads import FileProgress, IngestResult, Upload, fetch_url_doc  # noqa: F401 (read from here too)
from core.retrieval import bm25
from core.retrieval.late import index_token_dimension
from core.types import Actor
from core.vectorstore.base import VectorStore, kb_collection, kb_collection_prefix

log = logging.getLogger(__name__)


def kb_collection_name(kb_id: str, version: int) -> str:
    return kb_collection(kb_id, version)


def ensure_collection(store: VectorStore, name: str, dimension: int, token_dimension: int = 0) -> None:
    """Make sure ``name`` exists with ``dimension`` (and, when it is made here, ``token_dimension``
    token vectors): created when missing, at the point of use.

    Idempotent, so a create that failed once (the knowledge base already names the collection)
    is made good by the next call, and two first ingests racing to create it both go on (the
    loser's "already exists" — an error on a Qdrant server — is checked, not trusted blindly)."""
    if not store.collection_exists(name):
        try:
            store.create_collection(name, dimension, token_dimension)
        except (AlreadyExists, StoreError):
            if not store.collection_exists(name):
                raise  # a real refusal: the store said no and nobody else made it either
    have = store.dimension(name)
    if have != dimension:
        raise StoreError(f"collection {name} holds {have}-dimensional vectors, not {dimension}: reindex its knowledge base")


def ensure_kb_index(parts: EngineParts, snap: Snapshot, kb_id: str) -> KnowledgeBase:
    """Give a knowledge base its first collection, or check it matches the snapshot's embedder;
    either way the collection exists when this returns."""
    embedder = snap.embedder
    with parts.db.read() as s:
        kb = s.get(KnowledgeBase, kb_id)
    if not kb.collection:
        kb = _name_first_collection(parts, snap, kb_id)
    if kb.sparse_encoder and kb.sparse_encoder != bm25.TOKENIZER_ID:
        raise ReindexNeeded(f"knowledge base '{kb.name}' was indexed with an older keyword tokeniser: reindex it")
    if kb.embedder_id != embedder.id:
        raise ReindexNeeded(
            f"knowledge base '{kb.name}' was built with {kb.embedder_id} but the current embedder is "
            f"{embedder.id}: reindex it before adding files"
        )
    # Outside any transaction (a store call may be slow); checked on every ingest, not only the first.
    # Token vectors as its recorded chunking said when the index was named (late interaction).
    tokens = index_token_dimension(embedder, bool((kb.chunking or {}).get("token_vectors")))
    ensure_collection(parts.store, kb.collection, kb.dimension, tokens)
    return kb


def _name_first_collection(parts: EngineParts, snap: Snapshot, kb_id: str) -> KnowledgeBase:
    """Record the first collection of a knowledge base (once: a concurrent first ingest that
    got here first has recorded it already, and that is what both use)."""
    embedder = snap.embedder
    # Learnt before the write transaction: an API embedder asks its server (a slow call must not
    # hold the database's write lock, which every other writer — other workers too — waits on).
    dimension = embedder.dimension
    with parts.db.write() as s:
        kb = s.get(KnowledgeBase, kb_id)
        if not kb.collection:
            kb.collection_version = 1
            kb.collection = kb_collection_name(kb.id, 1)
            kb.embedder_id, kb.dimension = embedder.id, dimension
            kb.sparse_encoder = bm25.TOKENIZER_ID
            kb.chunking = effective_chunking(snap.settings, kb.chunking_override).model_dump()
            kb.updated_at = utcnow()
            s.add(kb)
    return kb


def ingest(parts: EngineParts, snap: Snapshot, actor: Actor, kb_ref: str, uploads: list[Upload],
           progress: FileProgress | None = None, job_ids: list[str] | None = None,
           on_result: Callable[[int, IngestResult], None] | None = None) -> list[IngestResult]:
    """Index uploads into a knowledge base, one result per upload; a bad file fails alone.
    The index check and every file of the batch use the same snapshot. ``job_ids``: the queued
    job of each upload (core/jobs/), tracked instead of a new job row per file; ``on_result``
    hears each upload's result as soon as it has one."""
    with parts.db.read() as s:
        kb = resolve_kb(s, actor, kb_ref, write=True)
    kb = ensure_kb_index(parts, snap, kb.id)
    return ingest_many(parts, snap, actor, uploads, collection=kb.collection, kb_id=kb.id, progress=progress,
                       job_ids=job_ids, on_result=on_result)


def delete_files(parts: EngineParts, actor: Actor, file_ids: list[str]) -> list[IngestResult]:
    """Remove files and every one of their vectors; one result per file."""
    results = []
    for file_id in file_ids:
        try:
            with parts.db.read() as s:
                rec = check_file(s, actor, s.get(FileRecord, file_id), file_id, write=True)
            remove_file_everywhere(parts, rec)
            results.append(IngestResult(rec.name, "deleted", file_id=rec.id))
        except CoreError as exc:
            results.append(IngestResult(file_id, "failed", file_id=file_id, error=exc.message))
    return results


def remove_file_everywhere(parts: EngineParts, rec: FileRecord) -> None:
    """A file, its vectors, parsed text and (when no other file uses it) original. A file still
    being indexed is cancelled first; its ingest removes whatever it writes after this (it finds
    its row gone), and a killed ingest's last points are the doctor's to remove."""
    in_progress = rec.status in ("processing", "pending")
    if in_progress:
        cancel_file_jobs(parts.db, rec.id)
    if rec.collection and parts.store.collection_exists(rec.collection):
        parts.store.delete_file(rec.collection, rec.id)
        left = 0 if in_progress else parts.store.count(rec.collection, file_id=rec.id)
        if left:
            raise CoreError(f"could not remove all vectors of '{rec.name}' ({left} left); run the doctor")
    parts.blobs.delete_parsed(rec.id)
    with parts.db.write() as s:
        row = s.get(FileRecord, rec.id)
        if row is not None:
            s.delete(row)
        still_used = s.exec(select(FileRecord.id).where(FileRecord.sha256 == rec.sha256, FileRecord.id != rec.id)).first()
    if rec.sha256 and not still_used:
        parts.blobs.delete_blob(rec.sha256)


def recover_interrupted(parts: EngineParts) -> list[str]:
    """Clean up after processes that died: a file they were indexing loses its points and is
    marked failed; the new collection of a reindex they were running is dropped (the old one
    kept serving throughout). Returns the ids of the files cleaned."""
    from core.db.models import Job

    cleaned = []
    with parts.db.read() as s:
        stuck = s.exec(select(FileRecord).where(FileRecord.status.in_(["processing", "pending"]))).all()
        active = s.exec(select(Job).where(Job.state.in_(["queued", "running"]))).all()
    jobs = {j.file_id: j for j in active}
    for rec in stuck:
        job = jobs.get(rec.id)
        if job is not None and not abandoned(job):
            continue  # still being worked on by a live process
        abandon_file(parts, rec.id, rec.collection, "failed", "interrupted: the process stopped while indexing; upload again")
        if job is not None and not job.worker_id:  # a queue job is queued again instead (core/jobs/queue.py)
            JobTracker(parts.db, job.id).finish("failed", error="interrupted")
        cleaned.append(rec.id)
    dead_reindexes = {j.kb_id for j in active if j.kind == "reindex" and j.kb_id and abandoned(j)}
    live_reindexes = {j.kb_id for j in active if j.kind == "reindex" and not abandoned(j)}
    mark_abandoned(parts.db)  # jobs without a file (a reindex) too
    for kb_id in dead_reindexes - live_reindexes:
        drop_unfinished_indexes(parts, kb_id)
    return cleaned


def drop_unfinished_indexes(parts: EngineParts, kb_id: str) -> list[str]:
    """Drop a knowledge base's collections that neither it nor any file points to (what a
    reindex that stopped half-way built); the names dropped."""
    with parts.db.read() as s:
        kb = s.get(KnowledgeBase, kb_id)
        used = set(s.exec(select(FileRecord.collection).where(FileRecord.kb_id == kb_id)))
    if kb is not None:
        used.add(kb.collection)
    prefix = kb_collection_prefix(kb_id)
    dropped = [c for c in parts.store.list_collections() if c.startswith(prefix) and c not in used]
    for name in dropped:
        parts.store.drop_collection(name)
    return dropped
