"""Find and repair disagreements between the database and the vector store.

What can disagree, and the repair:
- a collection no knowledge base or chat file points to (an interrupted reindex) → dropped;
- vectors of a file the database does not list as indexed in that collection (a crash
  mid-ingest, a delete that died half-way) → deleted;
- an indexed file whose vectors are missing or short → re-embedded from its parsed text
  (or marked failed with the reason when that is gone too);
- files stuck in "processing" by a process that is gone → cleaned up;
- stored originals no file row refers to → removed;
- web-search collections older than ``web_search.web_search_collection_ttl_hours`` → removed on
  every run (they are a cache past its lifetime, not a disagreement); one with no record is an
  orphan like any other.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from sqlmodel import select

from core.access import require_admin
from core.db.models import FileRecord, KnowledgeBase, utcnow
from core.ingest.jobs import JobTracker
from core.ingest.parts import EngineParts, Snapshot
from core.ingest.pipeline import (
    EmbedJob,
    FileTarget,
    embed_files,
    full_group,
    make_chunks,
)
from core.ingest.service import RETRY_STATES, recover_interrupted
from core.types import Actor
from core.vectorstore.base import is_ours
from core.websearch import collections as web_collections


@dataclass
class DoctorReport:
    orphan_collections: list[str] = field(default_factory=list)
    orphan_vectors: dict[str, int] = field(default_factory=dict)  # "collection/file_id" -> points
    missing_vectors: list[str] = field(default_factory=list)  # file ids
    interrupted_files: list[str] = field(default_factory=list)
    orphan_blobs: list[str] = field(default_factory=list)
    expired_web_collections: list[str] = field(default_factory=list)  # removed (a healthy clean-up)
    retry_originals: list[str] = field(default_factory=list)  # kept for failed files' Retry (healthy)
    repaired: bool = False
    notes: list[str] = field(default_factory=list)

    @property
    def healthy(self) -> bool:
        return not (self.orphan_collections or self.orphan_vectors or self.missing_vectors
                    or self.interrupted_files or self.orphan_blobs)


def run_doctor(parts: EngineParts, snap: Snapshot, actor: Actor, repair: bool = False) -> DoctorReport:
    require_admin(actor, "run the storage doctor")
    report = DoctorReport(repaired=repair)
    rebuild: list[FileRecord] = []
    if repair:
        report.interrupted_files = recover_interrupted(parts)
    with parts.db.read() as s:
        kbs = s.exec(select(KnowledgeBase)).all()
        files = s.exec(select(FileRecord)).all()
    serving = {kb.collection for kb in kbs if kb.collection} | {f.collection for f in files if f.collection}
    busy = {f.id for f in files if f.status in ("processing", "pending")}
    if not repair:
        report.interrupted_files = sorted(busy)  # reported; a live process may still own them

    ttl = snap.settings.web_search.web_search_collection_ttl_hours
    report.expired_web_collections = web_collections.remove_expired(parts.store, parts.db, ttl)
    live_web = web_collections.live_names(parts.db)
    for name in parts.store.list_collections():
        if not is_ours(name):
            continue  # a shared Qdrant server's other collections are not ours to judge
        if web_collections.is_web_collection(name):
            if name not in live_web:
                report.orphan_collections.append(name)
                if repair:
                    parts.store.drop_collection(name)
            continue  # its points belong to no file record
        if name not in serving:
            report.orphan_collections.append(name)
            if repair:
                parts.store.drop_collection(name)
            continue
        expected = {f.id: f.chunk_count for f in files if f.collection == name and f.status == "indexed"}
        present = parts.store.file_ids(name)
        for file_id, n in present.items():
            if file_id not in expected and file_id not in busy:
                report.orphan_vectors[f"{name}/{file_id}"] = n
                if repair:
                    parts.store.delete_file(name, file_id)
        for file_id, n in expected.items():
            if present.get(file_id, 0) < n:
                report.missing_vectors.append(file_id)
                if repair:
                    rebuild.append(next(f for f in files if f.id == file_id))
    if rebuild:
        _rebuild_files(parts, snap, actor, rebuild, report)

    for f in files:
        if f.status == "indexed" and f.collection and f.collection not in parts.store.list_collections():
            report.missing_vectors.append(f.id)
            if repair:
                _mark_failed(parts, f.id, "its index is missing; upload the file again or reindex")

    referenced = {f.sha256 for f in files}
    stored = {p.name for p in parts.blobs.files_dir.glob("*/*")} if parts.blobs.files_dir.exists() else set()
    live = {f.sha256 for f in files if f.status not in RETRY_STATES}
    report.retry_originals = sorted({f.sha256 for f in files if f.status in RETRY_STATES and f.kb_id} & stored - live)
    if parts.blobs.files_dir.exists():
        for path in parts.blobs.files_dir.glob("*/*"):
            if path.name not in referenced:
                report.orphan_blobs.append(path.name)
                if repair:
                    path.unlink(missing_ok=True)  # an unreferenced original or a temp file of a killed write
    return report


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
    chunks = make_chunks(doc, snap.settings.chunking, snap.embedder)
    return rec, EmbedJob(FileTarget(rec.id, rec.collection, rec.kb_id, rec.chat_id), chunks), tracker


def _finish_rebuild(parts: EngineParts, snap: Snapshot, group: list[tuple[FileRecord, EmbedJob, JobTracker]],
                    report: DoctorReport) -> None:
    trackers = {id(job): tracker for _, job, tracker in group}
    embed_files([job for _, job, _ in group], snap.embedder, parts.store, batch_size=snap.settings.embedding.batch_size,
                should_cancel=lambda job: trackers[id(job)].should_cancel(),
                progress=lambda job: trackers[id(job)].progress(job.embedded, len(job.chunks), "embedding"))
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
        tracker.finish("done")
        report.notes.append(f"{rec.name}: re-embedded {len(job.chunks)} chunks")


def _mark_failed(parts: EngineParts, file_id: str, error: str) -> None:
    with parts.db.write() as s:
        row = s.get(FileRecord, file_id)
        if row is not None:
            row.status, row.error, row.chunk_count, row.updated_at = "failed", error, 0, utcnow()
            s.add(row)
