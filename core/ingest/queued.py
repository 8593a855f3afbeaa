"""Ingest, retry and reindex as queued jobs: a worker's handler for each (declared by the file
service, core/services/files.py) and how their finished rows read back (the ``Future``'s value)."""

from __future__ import annotations

from dataclasses import asdict

from core.db.models import FileRecord, Job
from core.errors import CoreError
from core.ingest import reindex as reindex_mod
from core.ingest import service as ingest_mod
from core.ingest.parts import EngineParts, Snapshot
from core.ingest.reindex import ReindexResult
from core.ingest.service import IngestResult, Upload
from core.jobs.kinds import OnOutcome, Outcome, known_fields, raised, reraise
from core.types import Actor


def _clean_earlier_attempt(parts: EngineParts, job: Job) -> None:
    """A file left half-indexed by this job's dead worker: its points and row state go (the
    original stays), so this attempt indexes it once."""
    if job.attempts <= 1 or not job.file_id:
        return
    with parts.db.read() as s:
        rec = s.get(FileRecord, job.file_id)
    if rec is not None and rec.status in ("processing", "pending"):
        ingest_mod.abandon_file(parts, rec.id, rec.collection, "failed", "interrupted: its worker stopped; run again")


def _ingest_outcome(r) -> Outcome:
    state = {"indexed": "done", "duplicate": "done"}.get(r.status, r.status)
    return Outcome(state, result=asdict(r), error=r.error if state != "done" else "",
                   message="already present" if r.status == "duplicate" else "", retryable=r.retryable)


def run_ingest(parts: EngineParts, snapshot: Snapshot, actor: Actor, jobs: list[Job],
               on_outcome: OnOutcome | None = None) -> list[Outcome]:
    """One group of upload jobs (one knowledge base, one owner), each file's outcome reported as it ends."""
    out: dict[str, Outcome] = {}
    uploads, ids = [], []
    for job in jobs:
        _clean_earlier_attempt(parts, job)
        p = job.payload or {}
        if p.get("url"):
            uploads.append(Upload.from_url(p["url"]))
        elif job.blob and parts.blobs.has(job.blob):
            uploads.append(Upload(p.get("name") or job.blob, parts.blobs.get(job.blob)))
        else:
            out[job.id] = Outcome("failed", error=f"the upload of '{p.get('name', '?')}' is no longer stored; upload it again")
            continue
        ids.append(job.id)

    def ended(i: int, r) -> None:  # one file's result, as soon as it has one
        if on_outcome is not None:
            on_outcome(ids[i], _ingest_outcome(r))

    try:
        results = ingest_mod.ingest(parts, snapshot, actor, jobs[0].kb_id, uploads, job_ids=ids,
                                    on_result=ended) if ids else []
    except CoreError as exc:  # the whole group (a reindex needed, the knowledge base gone)
        results = None
        for job_id in ids:
            out[job_id] = Outcome("failed", result=raised(exc), error=exc.message, retryable=exc.retryable)
    for job_id, r in zip(ids, results or []):
        out[job_id] = _ingest_outcome(r)
    for job in jobs:  # an original no file keeps (refused, duplicate of another name) goes now
        if job.blob and out[job.id].state != "done":
            ingest_mod.drop_unused_original(parts, job.blob)
    return [out[j.id] for j in jobs]


def decode_ingest(jobs: list[Job]) -> list[IngestResult]:
    out = []
    for job in jobs:
        if job.result and "raised" in job.result:
            reraise(job)
        if job.result:
            out.append(known_fields(IngestResult, job.result))
        else:  # cancelled before it started, or its worker died too often
            name = (job.payload or {}).get("name") or (job.payload or {}).get("url") or job.id
            out.append(IngestResult(name, job.state if job.state != "done" else "indexed", file_id=job.file_id,
                                    error=job.error, job_id=job.id))
    return out


def run_reindex(parts: EngineParts, snapshot: Snapshot, actor: Actor, job: Job) -> Outcome:
    result = reindex_mod.reindex(parts, snapshot, actor, job.kb_id, job_id=job.id)
    return Outcome(result.status, result=asdict(result), error=result.error)


def decode_reindex(jobs: list[Job]) -> ReindexResult:
    [job] = jobs
    reraise(job)
    return known_fields(ReindexResult, job.result or {"kb": job.kb_id, "status": job.state, "error": job.error})
