"""The job kinds: what a worker does with a claimed job, and how its outcome reads back.

Each kind has a handler ``run(engine, jobs, on_outcome) -> list[Outcome]`` (one outcome per job;
only ``ingest`` is claimed in groups, and it reports each job's outcome to ``on_outcome`` as soon
as that file ends, so a cancelled or finished file's job closes before the rest of its group) and
``decode(jobs) -> object``, which turns the finished rows back into what the engine's synchronous
method returns (the ``Future`` of ``submit_*``).

Every long operation of the engine is one of these kinds, run only by queue workers:
- ``ingest``: uploads (their bytes in the blob store) and URL adds;
- ``retry``: a failed or cancelled file sent through ingest again;
- ``reindex``: a knowledge base rebuilt with the current settings;
- ``sync``: one source (Google Drive, web pages) brought up to date — by hand or by the scheduler;
- ``gdrive_import``: Drive files and folders added as a source;
- ``repair``: the doctor's repair.
Web-search page indexing is not a background job: it runs inside the question that asked for it
(the answer waits for it) and its pages expire with their collection.
"""

from __future__ import annotations

import logging
from dataclasses import asdict, dataclass, fields
from typing import Callable

from core.db.models import FileRecord, Job
from core.errors import CoreError, error_identity, rebuild_error
from core.types import SYSTEM_ACTOR, Actor

log = logging.getLogger(__name__)


@dataclass
class Outcome:
    state: str  # done | failed | cancelled
    result: dict | None = None
    error: str = ""
    message: str = ""
    retryable: bool = False  # failed on something passing (a server that cannot be reached): try again later


OnOutcome = Callable[[str, Outcome], None]  # (job id, its final outcome)


@dataclass(frozen=True)
class Kind:
    name: str
    run: Callable[["object", list[Job], OnOutcome | None], list[Outcome]]
    decode: Callable[[list[Job]], object]


def raised(exc: CoreError) -> dict:
    """A whole-job refusal, kept so the waiting caller gets the same error class (by name and module)."""
    identity = error_identity(exc)
    return {"raised": identity["kind"], "module": identity["module"], "message": exc.message, "key": exc.key,
            "params": exc.params}


def reraise(job: Job) -> None:
    """Raise the error a job's work raised, as its own class (core/errors.py's registry), if it did."""
    info = job.result or {}
    if "raised" in info:
        raise rebuild_error(str(info["raised"]), info.get("message") or job.error, module=str(info.get("module") or ""),
                            key=info.get("key", ""), params=info.get("params") or {})
    if job.state == "failed" and job.result is None:  # its worker died too often, or a bug stopped it
        raise CoreError(job.error or "the job failed")


def actor_of(engine, owner_id: str) -> Actor:
    return SYSTEM_ACTOR if owner_id == SYSTEM_ACTOR.user_id else engine.actor_for(owner_id)


def _known(cls, data: dict):
    names = {f.name for f in fields(cls)}
    return cls(**{k: v for k, v in data.items() if k in names})


# ------------------------------------------------------------------ ingest, retry
def _clean_earlier_attempt(parts, job: Job) -> None:
    """A file left half-indexed by this job's dead worker: its points and row state go (the
    original stays), so this attempt indexes it once."""
    from core.ingest.service import abandon_file

    if job.attempts <= 1 or not job.file_id:
        return
    with parts.db.read() as s:
        rec = s.get(FileRecord, job.file_id)
    if rec is not None and rec.status in ("processing", "pending"):
        abandon_file(parts, rec.id, rec.collection, "failed", "interrupted: its worker stopped; run again")


def _ingest_outcome(r) -> Outcome:
    state = {"indexed": "done", "duplicate": "done"}.get(r.status, r.status)
    return Outcome(state, result=asdict(r), error=r.error if state != "done" else "",
                   message="already present" if r.status == "duplicate" else "", retryable=r.retryable)


def run_ingest(engine, jobs: list[Job], on_outcome: OnOutcome | None = None) -> list[Outcome]:
    from core.ingest import service as ingest_mod
    from core.ingest.service import Upload

    parts = engine._parts
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
    actor = actor_of(engine, jobs[0].owner_id)

    def ended(i: int, r) -> None:  # one file's result, as soon as it has one
        if on_outcome is not None:
            on_outcome(ids[i], _ingest_outcome(r))

    try:
        results = ingest_mod.ingest(parts, engine._snapshot(), actor, jobs[0].kb_id, uploads, job_ids=ids,
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


def decode_ingest(jobs: list[Job]) -> list:
    from core.ingest.service import IngestResult

    out = []
    for job in jobs:
        if job.result and "raised" in job.result:
            reraise(job)
        if job.result:
            out.append(_known(IngestResult, job.result))
        else:  # cancelled before it started, or its worker died too often
            name = (job.payload or {}).get("name") or (job.payload or {}).get("url") or job.id
            out.append(IngestResult(name, job.state if job.state != "done" else "indexed", file_id=job.file_id,
                                    error=job.error, job_id=job.id))
    return out


# ------------------------------------------------------------------ reindex
def run_reindex(engine, jobs: list[Job], on_outcome: OnOutcome | None = None) -> list[Outcome]:
    from core.ingest import reindex as reindex_mod

    [job] = jobs
    actor = actor_of(engine, job.owner_id)
    result = reindex_mod.reindex(engine._parts, engine._snapshot(), actor, job.kb_id, job_id=job.id)
    return [Outcome(result.status, result=asdict(result), error=result.error)]


def decode_reindex(jobs: list[Job]):
    from core.ingest.reindex import ReindexResult

    [job] = jobs
    reraise(job)
    return _known(ReindexResult, job.result or {"kb": job.kb_id, "status": job.state, "error": job.error})


# ------------------------------------------------------------------ sync, gdrive_import
def _report_outcome(report) -> Outcome:
    state = report.status if report.status in ("done", "cancelled") else "failed"
    return Outcome(state, result=report.as_dict(), error=report.error)


def run_sync(engine, jobs: list[Job], on_outcome: OnOutcome | None = None) -> list[Outcome]:
    [job] = jobs
    p = job.payload or {}
    report = engine.services.sources.run_sync(actor_of(engine, job.owner_id), p["source_id"], p.get("trigger", "manual"), job.id)
    return [_report_outcome(report)]


def run_gdrive_import(engine, jobs: list[Job], on_outcome: OnOutcome | None = None) -> list[Outcome]:
    [job] = jobs
    p = job.payload or {}
    report = engine.services.drive.run_gdrive_import(actor_of(engine, job.owner_id), job.kb_id, p["ids"], p.get("watch", False), job.id)
    return [_report_outcome(report)]


def decode_report(jobs: list[Job]):
    from core.sources.sync import ItemResult, SyncReport

    [job] = jobs
    reraise(job)
    data = dict(job.result or {})
    report = _known(SyncReport, data | {"results": []}) if data else SyncReport(
        (job.payload or {}).get("source_id", ""), "", job.state, error=job.error)
    report.results = [_known(ItemResult, r) for r in data.get("results", [])]
    return report


# ------------------------------------------------------------------ repair
def run_repair(engine, jobs: list[Job], on_outcome: OnOutcome | None = None) -> list[Outcome]:
    [job] = jobs
    report = engine.doctor(actor_of(engine, job.owner_id), repair=True)
    return [Outcome("done", result=asdict(report))]


def decode_repair(jobs: list[Job]):
    from core.doctor import DoctorReport

    [job] = jobs
    reraise(job)
    return _known(DoctorReport, job.result or {})


KINDS: dict[str, Kind] = {k.name: k for k in (
    Kind("ingest", run_ingest, decode_ingest),
    Kind("retry", run_ingest, decode_ingest),
    Kind("reindex", run_reindex, decode_reindex),
    Kind("sync", run_sync, decode_report),
    Kind("gdrive_import", run_gdrive_import, decode_report),
    Kind("repair", run_repair, decode_repair),
)}


def kind(name: str) -> Kind:
    try:
        return KINDS[name]
    except KeyError:
        raise CoreError(f"unknown job kind '{name}' (a newer release queued it?)") from None
