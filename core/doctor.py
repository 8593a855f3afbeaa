"""Find and repair disagreements between the database and the vector store.

What can disagree, and the repair:
- a collection no knowledge base or chat file points to (an interrupted reindex) → dropped;
- vectors of a file the database does not list as indexed in that collection (a crash
  mid-ingest, a delete that died half-way) → deleted;
- an indexed file whose vectors are missing or short → re-embedded from its parsed text
  (or marked failed with the reason when that is gone too);
- an indexed file whose points are not flagged ``ready`` (a process stopped between its commit
  and the flag; a collection written before the flag existed) → flagged, so search sees it
  (every engine start does this too: core/ingest/ready.py);
- files stuck in "processing" by a process that is gone → cleaned up;
- a knowledge base naming a collection that does not exist (a create that failed) → created
  empty, so its next ingest works (its indexed files are then rebuilt like any missing vectors);
- stored originals no file row refers to, and parsed text of a file that no longer has any
  → removed;
- web-search collections older than ``web_search.web_search_collection_ttl_hours`` → removed on
  every run (they are a cache past its lifetime, not a disagreement); one with no record is an
  orphan like any other.

Work in progress is never taken for an orphan. An ingest writes a file's row before its
original, parsed text or vectors, so the doctor lists what is stored first (files, and the rows
of small ones) and reads the file rows after: whatever it then finds unclaimed was unclaimed when
it was written. A temp file of a live writer, and the new collection of a reindex whose process
is alive, are left alone.

The store's collections are listed once per run; every check below reads that one listing.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from sqlmodel import select

from core.accounts.access import require_admin
from core.chunk_edits.carry import carry as carry_edits
from core.db.models import FileRecord, Job, KnowledgeBase, utcnow
from core.ingest.jobs import JobTracker, abandoned, cancelled_many, process_alive, progress_many
from core.ingest.kb_chunking import settings_for_kb, settings_for_kb_id
from core.ingest.parts import EngineParts, Snapshot
from core.ingest.pipeline import (
    EmbedJob,
    FileTarget,
    embed_files,
    full_group,
    make_chunks,
)
from core.ingest.ready import mark_searchable
from core.ingest.service import RETRY_STATES, ensure_collection, recover_interrupted
from core.types import Actor
from core.vectorstore.base import is_ours, kb_collection_prefix
from core.websearch import collections as web_collections


@dataclass
class DoctorReport:
    orphan_collections: list[str] = field(default_factory=list)
    orphan_vectors: dict[str, int] = field(default_factory=dict)  # "collection/file_id" -> points
    missing_vectors: list[str] = field(default_factory=list)  # file ids
    interrupted_files: list[str] = field(default_factory=list)
    orphan_blobs: list[str] = field(default_factory=list)
    orphan_parsed: list[str] = field(default_factory=list)  # file ids whose parsed text has no live file
    missing_collections: list[str] = field(default_factory=list)  # named by a knowledge base, absent
    unready_files: list[str] = field(default_factory=list)  # indexed, points not flagged searchable
    expired_web_collections: list[str] = field(default_factory=list)  # removed (a healthy clean-up)
    retry_originals: list[str] = field(default_factory=list)  # kept for failed files' Retry (healthy)
    repaired: bool = False
    notes: list[str] = field(default_factory=list)

    @property
    def healthy(self) -> bool:
        return not (self.orphan_collections or self.orphan_vectors or self.missing_vectors
                    or self.interrupted_files or self.orphan_blobs or self.orphan_parsed
                    or self.missing_collections or self.unready_files)


def run_doctor(parts: EngineParts, snap: Snapshot, actor: Actor, repair: bool = False) -> DoctorReport:
    require_admin(actor, "run the storage doctor")
    report = DoctorReport(repaired=repair)
    rebuild: list[FileRecord] = []
    # Listed before any row is read (see the module doc): an original or parsed text written by
    # an upload that is still starting already has its row by then.
    blobs_on_disk = _stored_files(parts.blobs.files_dir, "*/*")
    parsed_on_disk = _stored_files(parts.blobs.parsed_dir, "*.json")
    originals_as_rows, parsed_as_rows = parts.blobs.stored_rows()
    if repair:
        report.interrupted_files = recover_interrupted(parts)
    with parts.db.read() as s:
        kbs = s.exec(select(KnowledgeBase)).all()
        files = s.exec(select(FileRecord)).all()
        running = s.exec(select(Job).where(Job.kind == "reindex", Job.state.in_(["queued", "running"]))).all()
    reindexing = tuple(kb_collection_prefix(j.kb_id) for j in running if j.kb_id and not abandoned(j))
    serving = {kb.collection for kb in kbs if kb.collection} | {f.collection for f in files if f.collection}
    busy = {f.id for f in files if f.status in ("processing", "pending")}
    if not repair:
        report.interrupted_files = sorted(busy)  # reported; a live process may still own them

    collections = set(parts.store.list_collections())  # the one listing of this run
    _check_kb_collections(parts, kbs, collections, report, repair)
    ttl = snap.settings.web_search.web_search_collection_ttl_hours
    report.expired_web_collections = web_collections.remove_expired(parts.store, parts.db, ttl)
    collections -= set(report.expired_web_collections)
    live_web = web_collections.live_names(parts.db)
    for name in sorted(collections):
        if not is_ours(name):
            continue  # a shared Qdrant server's other collections are not ours to judge
        if web_collections.is_web_collection(name):
            if name not in live_web:
                report.orphan_collections.append(name)
                if repair:
                    parts.store.drop_collection(name)
            continue  # its points belong to no file record
        if name not in serving:
            if name.startswith(reindexing):
                continue  # the new index of a reindex that is running now
            report.orphan_collections.append(name)
            if repair:
                parts.store.drop_collection(name)
            continue
        expected = {f.id: f.chunk_count for f in files if f.collection == name and f.status == "indexed"}
        present = parts.store.file_ids(name)
        unclaimed = _unclaimed(parts, name, [f for f in present if f not in expected and f not in busy])
        for file_id in unclaimed:
            report.orphan_vectors[f"{name}/{file_id}"] = present[file_id]
            if repair:
                parts.store.delete_file(name, file_id)
        for file_id, n in expected.items():
            if present.get(file_id, 0) < n:
                report.missing_vectors.append(file_id)
                if repair:
                    rebuild.append(next(f for f in files if f.id == file_id))
        _check_ready(parts, name, expected, report, repair)
    if rebuild:
        _rebuild_files(parts, snap, actor, rebuild, report)

    for f in files:
        if f.status == "indexed" and f.collection and f.collection not in collections:
            report.missing_vectors.append(f.id)
            if repair:
                _mark_failed(parts, f.id, "its index is missing; upload the file again or reindex")

    _check_stored_files(parts, files, blobs_on_disk, parsed_on_disk, originals_as_rows, parsed_as_rows,
                        report, repair)
    return report


def _stored_files(folder, pattern: str) -> list:
    """Files under ``folder``, without the temp file of a write still going on (its writer's pid
    is in its name: ``.<name>.<pid>.<thread>.tmp``); a dead writer's temp file is an orphan."""
    if not folder.exists():
        return []
    out = []
    for path in folder.glob(pattern):
        if path.name.startswith(".") and path.name.endswith(".tmp"):
            pid = path.name.rsplit(".", 3)[-3]
            if pid.isdigit() and process_alive(int(pid)):
                continue
        out.append(path)
    return out


def _unclaimed(parts: EngineParts, collection: str, file_ids: list[str]) -> list[str]:
    """Of these file ids with points in ``collection``, those no row claims now (read again: a
    file that started after the doctor's first read has its row by the time its points exist)."""
    if not file_ids:
        return []
    with parts.db.read() as s:
        claimed = set(s.exec(select(FileRecord.id).where(
            FileRecord.id.in_(file_ids), FileRecord.collection == collection,
            FileRecord.status.in_(["indexed", "processing", "pending"]))))
    return sorted(set(file_ids) - claimed)


def _check_ready(parts: EngineParts, name: str, expected: dict[str, int], report: DoctorReport, repair: bool) -> None:
    """Indexed files of ``name`` whose points search does not see yet (not flagged ready)."""
    hidden = sorted(f for f in parts.store.unready_file_ids(name) if f in expected)
    report.unready_files.extend(hidden)
    if repair and hidden:
        parts.store.ensure_ready_index(name)
        parts.store.mark_ready(name, hidden)
        mark_searchable(parts.db, hidden)


def _check_kb_collections(parts: EngineParts, kbs: list[KnowledgeBase], collections: set[str], report: DoctorReport,
                          repair: bool) -> None:
    """A knowledge base whose collection is gone (its first create failed, or it was dropped by
    hand) is created empty on repair, with the dimension the knowledge base records."""
    for kb in kbs:
        if kb.collection and kb.collection not in collections:
            report.missing_collections.append(kb.collection)
            if repair:
                ensure_collection(parts.store, kb.collection, kb.dimension)
                collections.add(kb.collection)
                report.notes.append(f"{kb.name}: its missing collection was created again")


def _check_stored_files(parts: EngineParts, files: list[FileRecord], blobs_on_disk: list, parsed_on_disk: list,
                        originals_as_rows: set[str], parsed_as_rows: set[str], report: DoctorReport,
                        repair: bool) -> None:
    """Originals and parsed texts no file claims, as files and as rows (core/ingest/blobs.py)."""
    with parts.db.read() as s:  # an upload waiting in the queue names its original (read after the listing too)
        queued = set(s.exec(select(Job.blob).where(Job.blob != "", Job.state.in_(["staged", "queued", "running"]))))
    referenced = {f.sha256 for f in files} | queued
    stored = {p.name for p in blobs_on_disk} | originals_as_rows
    live = {f.sha256 for f in files if f.status not in RETRY_STATES}
    report.retry_originals = sorted({f.sha256 for f in files if f.status in RETRY_STATES and f.kb_id} & stored - live)
    for path in blobs_on_disk:
        if path.name not in referenced:
            report.orphan_blobs.append(path.name)
            if repair:
                path.unlink(missing_ok=True)  # an unreferenced original or a temp file of a killed write
    for sha in sorted(originals_as_rows - referenced):
        report.orphan_blobs.append(sha)
        if repair:
            parts.blobs.delete_blob(sha)
    # Parsed text is kept for indexed and in-progress files; a failed or cancelled one's goes with
    # its vectors (Retry parses the original again).
    keeps_text = {f.id for f in files if f.status not in RETRY_STATES}
    for path in parsed_on_disk:
        if path.name.removesuffix(".json") not in keeps_text:
            report.orphan_parsed.append(path.name.removesuffix(".json"))
            if repair:
                path.unlink(missing_ok=True)
    for file_id in sorted(parsed_as_rows - keeps_text):
        report.orphan_parsed.append(file_id)
        if repair:
            parts.blobs.delete_parsed(file_id)


def _rebuild_files(parts: EngineParts, snap: Snapshot, actor: Actor, recs: list[FileRecord], report: DoctorReport) -> None:
    """Re-embed files whose vectors are missing, in shared batches (the ingest path)."""
    group: list[tuple[FileRecord, EmbedJob, JobTracker]] = []
    for i, rec in enumerate(recs):
        prepared = _prepare_rebuild(parts, snap, actor, rec, report)
        if prepared is not None:
            group.append(prepared)
        if group and (full_group(group, lambda g: len(g[1].chunks)) or i == len(recs) - 1):
            _finish_rebuild(parts, snap, group, report)
            group = []


def _prepare_rebuild(parts: EngineParts, snap: Snapshot, actor: Actor, rec: FileRecord,
                     report: DoctorReport) -> tuple[FileRecord, EmbedJob, JobTracker] | None:
    doc = parts.blobs.get_parsed(rec.id)
    if doc is None:
        _mark_failed(parts, rec.id, "its vectors and parsed text are missing; upload the file again")
        report.notes.append(f"{rec.name}: marked failed (nothing to rebuild from)")
        return None
    with parts.db.read() as s:
        kb = s.get(KnowledgeBase, rec.kb_id) if rec.kb_id else None
    expected = kb.embedder_id if kb is not None else (rec.meta or {}).get("embedder_id", snap.embedder.id)
    if expected != snap.embedder.id:
        report.notes.append(f"{rec.name}: not rebuilt — it was embedded with {expected}; reindex or upload it again")
        return None
    tracker = JobTracker.start(parts.db, kind="repair", actor=actor, kb_id=rec.kb_id, file_id=rec.id,
                               message=f"re-embedding {rec.name}")
    parts.store.delete_file(rec.collection, rec.id)
    # the knowledge base's own chunking, as its ingest used (not the global one)
    chunks = make_chunks(doc, settings_for_kb(snap.settings, kb).chunking, snap.embedder)
    return rec, EmbedJob(FileTarget(rec.id, rec.collection, rec.kb_id, rec.chat_id), chunks), tracker


def _finish_rebuild(parts: EngineParts, snap: Snapshot, group: list[tuple[FileRecord, EmbedJob, JobTracker]],
                    report: DoctorReport) -> None:
    trackers = {id(job): tracker for _, job, tracker in group}

    def should_cancel(jobs: list[EmbedJob]) -> set[int]:  # one query for the batch's files, as ingest does
        stopped = cancelled_many(parts.db, [trackers[id(job)] for job in jobs])
        return {id(job) for job in jobs if trackers[id(job)].job_id in stopped}

    def progress(jobs: list[EmbedJob]) -> None:  # one commit for the batch's files
        progress_many(parts.db, [(trackers[id(job)], job.embedded, len(job.chunks), "embedding") for job in jobs])

    embed_files([job for _, job, _ in group], snap.embedder, parts.store, batch_size=snap.settings.embedding.batch_size,
                should_cancel=should_cancel, progress=progress)
    for rec, job, tracker in group:
        if job.state:
            parts.store.delete_file(rec.collection, rec.id)
            _mark_failed(parts, rec.id, f"repair failed: {job.error}")
            tracker.finish("failed", error=job.error)
            continue
        with parts.db.write() as s:
            row = s.get(FileRecord, rec.id)
            row.chunk_count, row.updated_at = len(job.chunks), utcnow()
            s.add(row)
        # hand edits follow their passage into the rebuilt points (core/chunk_edits/)
        carry_edits(parts, snap.embedder, settings_for_kb_id(parts, snap.settings, rec.kb_id), rec.collection,
                    [rec.id]).commit(parts.db, parts.store)
        parts.store.mark_ready(rec.collection, [rec.id])  # its new points answer from now on
        mark_searchable(parts.db, [rec.id])
        tracker.finish("done")
        report.notes.append(f"{rec.name}: re-embedded {len(job.chunks)} chunks")


def _mark_failed(parts: EngineParts, file_id: str, error: str) -> None:
    with parts.db.write() as s:
        row = s.get(FileRecord, file_id)
        if row is not None:
            row.status, row.error, row.chunk_count, row.updated_at = "failed", error, 0, utcnow()
            s.add(row)
